// Float products with a chain of schemes over cuBLAS (docs/float.md): the
// recursion of the CPU product (runtime/fmul_impl.h: peeling, single-block
// operands used in place with their coefficient in alpha, a product that feeds
// one block of C written straight into it) with the operand sums and the
// accumulations as addition kernels, everything on one stream.  This is the
// plain variant of Huang, Yu, van de Geijn 2020 (workspace for the sums); their
// fused variant (sums in the GEMM's operand loads and epilogue) is not built.
#include <chrono>
#include <cstdio>
#include <cstring>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "fg_cuda.h"

namespace {

constexpr int MAXT = 64; // entries of one factor (SCHEME_MAX_ENTRIES)
constexpr int MAXL = 8;  // levels (EXPORT_PLAN_MAX_LEVELS)

struct Fail {
    int code;
};

char g_err[512];

void fail(int code, const char *fmt, const char *what, int value)
{
    snprintf(g_err, sizeof g_err, fmt, what, value);
    throw Fail{code};
}

void ck(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        snprintf(g_err, sizeof g_err, "%s: %s", what, cudaGetErrorString(e));
        throw Fail{3};
    }
}

void ckb(cublasStatus_t s, const char *what)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        fail(3, "%s: cuBLAS status %d", what, (int)s);
}

template <typename T> struct SumArgs {
    const T *src[MAXT];
    T coef[MAXT];
    int n;
};

// dst = sum_t coef_t src_t over rows x cols (leading dimensions ldd, lds).
template <typename T>
__global__ void sum_kernel(T *dst, long long ldd, long long rows, long long cols, long long lds,
                           SumArgs<T> a)
{
    long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
        T v = a.coef[0] * a.src[0][r * lds + c];
        for (int t = 1; t < a.n; t++)
            v += a.coef[t] * a.src[t][r * lds + c];
        dst[r * ldd + c] = v;
    }
}

template <typename T> struct AccArgs {
    T *dst[MAXT];
    T coef[MAXT];
    unsigned long long keep; // bit t: add to dst_t (else overwrite)
    int n;
};

// dst_t = (keep_t ? dst_t : 0) + coef_t q for every target t.
template <typename T>
__global__ void acc_kernel(const T *q, long long ldq, long long rows, long long cols, long long ldd,
                           AccArgs<T> a)
{
    long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
        T v = q[r * ldq + c];
        for (int t = 0; t < a.n; t++) {
            T *d = a.dst[t] + r * ldd + c;
            *d = ((a.keep >> t) & 1) ? *d + a.coef[t] * v : a.coef[t] * v;
        }
    }
}

dim3 grid_for(long long rows, long long cols)
{
    long long gx = (cols + 255) / 256;
    long long gy = rows < 65535 ? rows : 65535;
    return dim3((unsigned)gx, (unsigned)(gy > 0 ? gy : 1));
}

cublasStatus_t gemm_call(cublasHandle_t h, int m, int n, int k, const double *alpha, const double *A,
                         int lda, const double *B, int ldb, const double *beta, double *C, int ldc)
{
    return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

cublasStatus_t gemm_call(cublasHandle_t h, int m, int n, int k, const float *alpha, const float *A,
                         int lda, const float *B, int ldb, const float *beta, float *C, int ldc)
{
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <typename T> struct Ctx {
    const cuda_flevel *lv;
    int nlevels;
    cublasHandle_t h;
    cudaStream_t st;
    T *ws_t[MAXL], *ws_s[MAXL], *ws_q[MAXL];
    unsigned long long gemms, adds;
};

typedef unsigned long long u64;

// Row-major C (M x N) = alpha A B + beta C is column-major C^T = alpha B^T A^T + beta C^T.
template <typename T>
void gemm(Ctx<T> &x, u64 M, u64 K, u64 N, T alpha, const T *A, u64 lda, const T *B, u64 ldb,
          bool beta, T *C, u64 ldc)
{
    if (M == 0 || N == 0)
        return;
    if (K == 0) {
        if (!beta)
            ck(cudaMemset2DAsync(C, ldc * sizeof(T), 0, N * sizeof(T), M, x.st), "cudaMemset2DAsync");
        return;
    }
    T b = beta ? (T)1 : (T)0;
    ckb(gemm_call(x.h, (int)N, (int)M, (int)K, &alpha, B, (int)ldb, A, (int)lda, &b, C, (int)ldc),
        "GEMM");
    x.gemms++;
}

template <typename T>
void rec(Ctx<T> &x, int depth, u64 M, u64 K, u64 N, T alpha, const T *A, u64 lda, const T *B,
         u64 ldb, bool beta, T *C, u64 ldc)
{
    if (depth == x.nlevels) {
        gemm(x, M, K, N, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    const cuda_flevel &L = x.lv[depth];
    u64 Mb = M / (u64)L.n, Kb = K / (u64)L.m, Nb = N / (u64)L.p;
    if (Mb == 0 || Kb == 0 || Nb == 0) {
        gemm(x, M, K, N, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    u64 Mc = Mb * (u64)L.n, Kc = Kb * (u64)L.m, Nc = Nb * (u64)L.p;
    T *Tw = x.ws_t[depth], *Sw = x.ws_s[depth], *Qw = x.ws_q[depth];
    bool written[MAXT] = {false};
    auto a_blk = [&](int b) { return A + (u64)(b / L.m) * Mb * lda + (u64)(b % L.m) * Kb; };
    auto b_blk = [&](int b) { return B + (u64)(b / L.p) * Kb * ldb + (u64)(b % L.p) * Nb; };
    auto c_blk = [&](int b) { return C + (u64)(b / L.p) * Mb * ldc + (u64)(b % L.p) * Nb; };
    for (int h = 0; h < L.rank; h++) {
        int a0 = L.a_off[h], na = L.a_off[h + 1] - a0;
        int b0 = L.b_off[h], nb = L.b_off[h + 1] - b0;
        int c0 = L.c_off[h], nc = L.c_off[h + 1] - c0;
        if (na == 0 || nb == 0 || nc == 0)
            continue;
        const T *tp, *sp;
        u64 ldt, lds;
        T scale = alpha;
        if (na == 1) {
            tp = a_blk(L.a_blk[a0]);
            ldt = lda;
            scale *= (T)L.a_coef[a0];
        } else {
            SumArgs<T> s;
            s.n = na;
            for (int q = 0; q < na; q++) {
                s.src[q] = a_blk(L.a_blk[a0 + q]);
                s.coef[q] = (T)L.a_coef[a0 + q];
            }
            sum_kernel<T><<<grid_for(Mb, Kb), 256, 0, x.st>>>(Tw, Kb, Mb, Kb, lda, s);
            ck(cudaGetLastError(), "sum kernel");
            x.adds++;
            tp = Tw;
            ldt = Kb;
        }
        if (nb == 1) {
            sp = b_blk(L.b_blk[b0]);
            lds = ldb;
            scale *= (T)L.b_coef[b0];
        } else {
            SumArgs<T> s;
            s.n = nb;
            for (int q = 0; q < nb; q++) {
                s.src[q] = b_blk(L.b_blk[b0 + q]);
                s.coef[q] = (T)L.b_coef[b0 + q];
            }
            sum_kernel<T><<<grid_for(Kb, Nb), 256, 0, x.st>>>(Sw, Nb, Kb, Nb, ldb, s);
            ck(cudaGetLastError(), "sum kernel");
            x.adds++;
            sp = Sw;
            lds = Nb;
        }
        if (nc == 1) {
            int b = L.c_blk[c0];
            rec(x, depth + 1, Mb, Kb, Nb, scale * (T)L.c_coef[c0], tp, ldt, sp, lds, beta || written[b],
                c_blk(b), ldc);
            written[b] = true;
            continue;
        }
        rec(x, depth + 1, Mb, Kb, Nb, (T)1, tp, ldt, sp, lds, false, Qw, Nb);
        AccArgs<T> a;
        a.n = nc;
        a.keep = 0;
        for (int q = 0; q < nc; q++) {
            int b = L.c_blk[c0 + q];
            a.dst[q] = c_blk(b);
            a.coef[q] = scale * (T)L.c_coef[c0 + q];
            if (beta || written[b])
                a.keep |= 1ull << q;
            written[b] = true;
        }
        acc_kernel<T><<<grid_for(Mb, Nb), 256, 0, x.st>>>(Qw, Nb, Mb, Nb, ldc, a);
        ck(cudaGetLastError(), "accumulate kernel");
        x.adds++;
    }
    for (int b = 0; b < L.n * L.p; b++)
        if (!written[b] && !beta)
            ck(cudaMemset2DAsync(c_blk(b), ldc * sizeof(T), 0, Nb * sizeof(T), Mb, x.st), "cudaMemset2DAsync");
    if (Kc < K)
        gemm(x, Mc, K - Kc, Nc, alpha, A + Kc, lda, B + Kc * ldb, ldb, true, C, ldc);
    if (Nc < N)
        gemm(x, M, K, N - Nc, alpha, A, lda, B + Nc, ldb, beta, C + Nc, ldc);
    if (Mc < M)
        gemm(x, M - Mc, K, Nc, alpha, A + Mc * lda, lda, B, ldb, beta, C + Mc * ldc, ldc);
}

template <typename T>
void run(const cuda_flevel *levels, int nlevels, bool tf32, u64 M, u64 K, u64 N, const void *hA,
         const void *hB, void *hC, int device, int reps, cuda_fstats *stats)
{
    Ctx<T> x;
    memset(&x, 0, sizeof x);
    x.lv = levels;
    x.nlevels = nlevels;
    T *dA = nullptr, *dB = nullptr, *dC = nullptr;
    cudaEvent_t ev[4] = {nullptr, nullptr, nullptr, nullptr};
    double peak = 0;
    try {
        ck(cudaSetDevice(device), "cudaSetDevice");
        ck(cudaStreamCreate(&x.st), "cudaStreamCreate");
        ckb(cublasCreate(&x.h), "cublasCreate");
        ckb(cublasSetStream(x.h, x.st), "cublasSetStream");
        // FP32 stays FP32 unless asked: CUBLAS_DEFAULT_MATH does not use TF32
        // tensor cores (NVIDIA_TF32_OVERRIDE=1 in the environment could still
        // force them; docs/float.md).
        ckb(cublasSetMathMode(x.h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
            "cublasSetMathMode");
        for (int i = 0; i < 4; i++)
            ck(cudaEventCreate(&ev[i]), "cudaEventCreate");
        size_t es = sizeof(T);
        ck(cudaMalloc(&dA, M * K * es), "cudaMalloc A");
        ck(cudaMalloc(&dB, K * N * es), "cudaMalloc B");
        ck(cudaMalloc(&dC, M * N * es), "cudaMalloc C");
        peak = (double)(M * K + K * N + M * N) * (double)es;
        u64 m = M, k = K, n = N;
        for (int l = 0; l < nlevels; l++) {
            m /= (u64)levels[l].n;
            k /= (u64)levels[l].m;
            n /= (u64)levels[l].p;
            if (m == 0 || k == 0 || n == 0)
                break;
            ck(cudaMalloc(&x.ws_t[l], m * k * es), "cudaMalloc workspace");
            ck(cudaMalloc(&x.ws_s[l], k * n * es), "cudaMalloc workspace");
            ck(cudaMalloc(&x.ws_q[l], m * n * es), "cudaMalloc workspace");
            peak += (double)(m * k + k * n + m * n) * (double)es;
        }
        ck(cudaEventRecord(ev[0], x.st), "cudaEventRecord");
        ck(cudaMemcpyAsync(dA, hA, M * K * es, cudaMemcpyHostToDevice, x.st), "upload A");
        ck(cudaMemcpyAsync(dB, hB, K * N * es, cudaMemcpyHostToDevice, x.st), "upload B");
        ck(cudaEventRecord(ev[1], x.st), "cudaEventRecord");
        float best = -1;
        for (int r = 0; r < (reps > 0 ? reps : 1); r++) {
            x.gemms = x.adds = 0;
            cudaEvent_t e0 = r == 0 ? ev[1] : ev[3];
            if (r > 0)
                ck(cudaEventRecord(e0, x.st), "cudaEventRecord");
            rec<T>(x, 0, M, K, N, (T)1, dA, K, dB, N, false, dC, N);
            ck(cudaEventRecord(ev[2], x.st), "cudaEventRecord");
            ck(cudaEventSynchronize(ev[2]), "the product");
            float ms;
            ck(cudaEventElapsedTime(&ms, e0, ev[2]), "cudaEventElapsedTime");
            if (best < 0 || ms < best)
                best = ms;
        }
        ck(cudaEventRecord(ev[2], x.st), "cudaEventRecord");
        ck(cudaMemcpyAsync(hC, dC, M * N * es, cudaMemcpyDeviceToHost, x.st), "download C");
        ck(cudaEventRecord(ev[3], x.st), "cudaEventRecord");
        ck(cudaStreamSynchronize(x.st), "download C");
        if (stats) {
            float up, down;
            ck(cudaEventElapsedTime(&up, ev[0], ev[1]), "cudaEventElapsedTime");
            ck(cudaEventElapsedTime(&down, ev[2], ev[3]), "cudaEventElapsedTime");
            stats->ms_upload = up;
            stats->ms_compute = best;
            stats->ms_download = down;
            stats->gemm_calls = x.gemms;
            stats->add_launches = x.adds;
            stats->peak_bytes = peak;
        }
    } catch (Fail &) {
        for (int l = 0; l < MAXL; l++) {
            cudaFree(x.ws_t[l]);
            cudaFree(x.ws_s[l]);
            cudaFree(x.ws_q[l]);
        }
        cudaFree(dA);
        cudaFree(dB);
        cudaFree(dC);
        for (int i = 0; i < 4; i++)
            if (ev[i])
                cudaEventDestroy(ev[i]);
        if (x.h)
            cublasDestroy(x.h);
        if (x.st)
            cudaStreamDestroy(x.st);
        throw;
    }
    for (int l = 0; l < MAXL; l++) {
        cudaFree(x.ws_t[l]);
        cudaFree(x.ws_s[l]);
        cudaFree(x.ws_q[l]);
    }
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    for (int i = 0; i < 4; i++)
        cudaEventDestroy(ev[i]);
    cublasDestroy(x.h);
    cudaStreamDestroy(x.st);
}

} // namespace

extern "C" int cuda_fmul(const cuda_flevel *levels, int nlevels, int f64, int tf32, unsigned long long M,
                         unsigned long long K, unsigned long long N, const void *A, const void *B,
                         void *C, int device, int timing_reps, cuda_fstats *stats, char *err,
                         size_t errlen)
{
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (nlevels < 0 || nlevels > MAXL || M < 1 || K < 1 || N < 1 || M > 2147483647ull ||
        K > 2147483647ull || N > 2147483647ull) {
        if (err && errlen)
            snprintf(err, errlen, "cuda_fmul: %d levels (at most %d), %llu x %llu x %llu (each 1 .. 2^31-1)",
                     nlevels, MAXL, M, K, N);
        return 2;
    }
    for (int l = 0; l < nlevels; l++)
        if (levels[l].n * levels[l].m > MAXT || levels[l].m * levels[l].p > MAXT ||
            levels[l].n * levels[l].p > MAXT || levels[l].n < 1 || levels[l].m < 1 || levels[l].p < 1) {
            if (err && errlen)
                snprintf(err, errlen, "cuda_fmul: level %d has a format of more than %d entries a factor",
                         l + 1, MAXT);
            return 2;
        }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
        if (err && errlen)
            snprintf(err, errlen, "no GPU is visible");
        return 3;
    }
    if (device < 0 || device >= count) {
        if (err && errlen)
            snprintf(err, errlen, "no GPU %d (%d visible)", device, count);
        return 2;
    }
    auto t0 = std::chrono::steady_clock::now();
    try {
        if (f64)
            run<double>(levels, nlevels, tf32 != 0, M, K, N, A, B, C, device, timing_reps, stats);
        else
            run<float>(levels, nlevels, tf32 != 0, M, K, N, A, B, C, device, timing_reps, stats);
    } catch (Fail &f) {
        if (err && errlen)
            snprintf(err, errlen, "%s", g_err);
        return f.code;
    }
    if (stats)
        stats->ms_total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return 0;
}
