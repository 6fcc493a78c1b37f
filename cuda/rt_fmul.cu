// Float products with a chain of schemes over cuBLAS (docs/float.md): the
// recursion of the CPU product (runtime/fmul_impl.h: peeling, single-block
// operands used in place with their coefficient in alpha, a product that feeds
// one block of C written straight into it) with the operand sums and the
// accumulations as addition kernels, everything on one stream.  This is the
// plain variant of Huang, Yu, van de Geijn 2020 (workspace for the sums); their
// fused variant (sums in the GEMM's operand loads and epilogue) is not built.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

constexpr int MAXR = 16; // sources (or outputs) a fused pass holds in registers
constexpr int MAXS = 8;  // streams for the last level's GEMMs

// Blocks of a level: block b at base + (b / bc) rstep + (b % bc) cstep, its rows
// ld apart (a view into A, B or C: bc blocks a row; workspace slots: bc = 1).
template <typename T> struct BSet {
    T *base;
    long long ld, rstep, cstep;
    int bc;
};

template <typename T, int V> struct alignas(sizeof(T) * V) Vec {
    T e[V];
};

template <typename T, int V> __device__ __forceinline__ T *blk_at(const BSet<T> &s, int b, long long r, long long c)
{
    return s.base + (long long)(b / s.bc) * s.rstep + (long long)(b % s.bc) * s.cstep + r * s.ld + c * V;
}

// The fused sum (runtime.h, rt_fsum; its CPU twin is fm_fsum_ in
// runtime/fmul_impl.h): out_o = (live[o] == 2 ? out_o : 0) + sum_s coef[o ns +
// s] src_s, s in increasing order, zero coefficients left out, outputs whose
// row is all zero (live[o] == 0) not touched.  Each thread does V consecutive entries of
// one row; SRC holds the ns <= R sources in registers (each read once) and
// loops over the outputs; otherwise the no <= R outputs are held in registers
// and the sources stream by (each read once, each output written once).
template <typename T, int V, bool SRC, int R>
__global__ void fsum_kernel(BSet<T> src, int ns, BSet<T> dst, int no, const T *__restrict__ coef,
                            const int *__restrict__ live, long long rows, long long colsv)
{
    long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= colsv)
        return;
    for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
        if (SRC) {
            Vec<T, V> v[R];
#pragma unroll
            for (int s = 0; s < R; s++)
                if (s < ns)
                    v[s] = *reinterpret_cast<const Vec<T, V> *>(blk_at<T, V>(src, s, r, c));
            for (int o = 0; o < no; o++) {
                int mode = live[o];
                if (!mode)
                    continue;
                Vec<T, V> *d = reinterpret_cast<Vec<T, V> *>(blk_at<T, V>(dst, o, r, c));
                Vec<T, V> acc;
                if (mode == 2)
                    acc = *d;
                else
#pragma unroll
                    for (int e = 0; e < V; e++)
                        acc.e[e] = (T)0;
#pragma unroll
                for (int s = 0; s < R; s++)
                    if (s < ns) {
                        T k = coef[o * ns + s];
                        if (k != (T)0)
#pragma unroll
                            for (int e = 0; e < V; e++)
                                acc.e[e] += k * v[s].e[e];
                    }
                *d = acc;
            }
        } else {
            Vec<T, V> acc[R];
#pragma unroll
            for (int o = 0; o < R; o++)
                if (o < no && live[o]) {
                    if (live[o] == 2)
                        acc[o] = *reinterpret_cast<const Vec<T, V> *>(blk_at<T, V>(dst, o, r, c));
                    else
#pragma unroll
                        for (int e = 0; e < V; e++)
                            acc[o].e[e] = (T)0;
                }
            for (int s = 0; s < ns; s++) {
                Vec<T, V> x = *reinterpret_cast<const Vec<T, V> *>(blk_at<T, V>(src, s, r, c));
#pragma unroll
                for (int o = 0; o < R; o++)
                    if (o < no) {
                        T k = coef[o * ns + s];
                        if (k != (T)0)
#pragma unroll
                            for (int e = 0; e < V; e++)
                                acc[o].e[e] += k * x.e[e];
                    }
            }
#pragma unroll
            for (int o = 0; o < R; o++)
                if (o < no && live[o])
                    *reinterpret_cast<Vec<T, V> *>(blk_at<T, V>(dst, o, r, c)) = acc[o];
        }
    }
}

// One level's coefficient tables on the device (T), with each output's mode
// (0 untouched, 1 written, 2 added to): lc[beta] for the C pass, whose blocks
// are added to where the caller's C is kept (beta) or a direct product wrote
// them first.
template <typename T> struct Tab {
    T *ta, *sb, *qc;
    int *lt, *ls, *lc[2];
};

template <typename T> struct Ctx {
    const cuda_flevel *lv;
    int nlevels;
    cublasHandle_t h[MAXS]; // h[0] on st[0], the main stream
    cudaStream_t st[MAXS];
    int nst;
    cudaEvent_t fork, join[MAXS];
    T *ws_t[MAXL], *ws_s[MAXL], *ws_q[MAXL];
    bool fused[MAXL];
    Tab<T> tab[MAXL];
    void *tabmem[MAXL];
    unsigned long long gemms, adds;
};

typedef unsigned long long u64;

// Row-major C (M x N) = alpha A B + beta C is column-major C^T = alpha B^T A^T + beta C^T.
template <typename T>
void gemm_on(Ctx<T> &x, int si, u64 M, u64 K, u64 N, T alpha, const T *A, u64 lda, const T *B, u64 ldb,
             bool beta, T *C, u64 ldc)
{
    if (M == 0 || N == 0)
        return;
    if (K == 0) {
        if (!beta)
            ck(cudaMemset2DAsync(C, ldc * sizeof(T), 0, N * sizeof(T), M, x.st[si]), "cudaMemset2DAsync");
        return;
    }
    T b = beta ? (T)1 : (T)0;
    ckb(gemm_call(x.h[si], (int)N, (int)M, (int)K, &alpha, B, (int)ldb, A, (int)lda, &b, C, (int)ldc),
        "GEMM");
    x.gemms++;
}

template <typename T>
void gemm(Ctx<T> &x, u64 M, u64 K, u64 N, T alpha, const T *A, u64 lda, const T *B, u64 ldb, bool beta,
          T *C, u64 ldc)
{
    gemm_on(x, 0, M, K, N, alpha, A, lda, B, ldb, beta, C, ldc);
}

// The side streams wait for the main stream (fork), or the main for them (join).
template <typename T> void fork_streams(Ctx<T> &x)
{
    if (x.nst < 2)
        return;
    ck(cudaEventRecord(x.fork, x.st[0]), "cudaEventRecord");
    for (int s = 1; s < x.nst; s++)
        ck(cudaStreamWaitEvent(x.st[s], x.fork, 0), "cudaStreamWaitEvent");
}

template <typename T> void join_streams(Ctx<T> &x)
{
    for (int s = 1; s < x.nst; s++) {
        ck(cudaEventRecord(x.join[s], x.st[s]), "cudaEventRecord");
        ck(cudaStreamWaitEvent(x.st[0], x.join[s], 0), "cudaStreamWaitEvent");
    }
}

template <typename T, int V>
bool aligned_v(const BSet<T> &s)
{
    return V == 1 || ((uintptr_t)s.base % (sizeof(T) * V) == 0 && s.ld % V == 0 && s.rstep % V == 0 &&
                      s.cstep % V == 0);
}

template <typename T, int V>
void fsum_launch(Ctx<T> &x, const BSet<T> &src, int ns, const BSet<T> &dst, int no, const T *coef,
                 const int *live, u64 rows, u64 cols)
{
    long long colsv = (long long)(cols / V);
    dim3 g((unsigned)((colsv + 127) / 128), (unsigned)(rows < 65535 ? rows : 65535));
    // Register arrays of 4 (Strassen-like levels), 9 or 16 entries: the fewer
    // registers a thread holds, the more threads (and loads in flight) an SM has.
    long long nr = (long long)rows;
    if (ns <= 4)
        fsum_kernel<T, V, true, 4><<<g, 128, 0, x.st[0]>>>(src, ns, dst, no, coef, live, nr, colsv);
    else if (ns <= 9)
        fsum_kernel<T, V, true, 9><<<g, 128, 0, x.st[0]>>>(src, ns, dst, no, coef, live, nr, colsv);
    else if (ns <= MAXR)
        fsum_kernel<T, V, true, MAXR><<<g, 128, 0, x.st[0]>>>(src, ns, dst, no, coef, live, nr, colsv);
    else if (no <= 4)
        fsum_kernel<T, V, false, 4><<<g, 128, 0, x.st[0]>>>(src, ns, dst, no, coef, live, nr, colsv);
    else if (no <= 9)
        fsum_kernel<T, V, false, 9><<<g, 128, 0, x.st[0]>>>(src, ns, dst, no, coef, live, nr, colsv);
    else
        fsum_kernel<T, V, false, MAXR><<<g, 128, 0, x.st[0]>>>(src, ns, dst, no, coef, live, nr, colsv);
    ck(cudaGetLastError(), "fused sum kernel");
    x.adds++;
}

// The fused sum on the main stream: 16-byte loads where every block is so aligned.
template <typename T>
void fsum(Ctx<T> &x, const BSet<T> &src, int ns, const BSet<T> &dst, int no, const T *coef, const int *live,
          u64 rows, u64 cols)
{
    constexpr int V = 16 / sizeof(T);
    if (cols % V == 0 && aligned_v<T, V>(src) && aligned_v<T, V>(dst))
        fsum_launch<T, V>(x, src, ns, dst, no, coef, live, rows, cols);
    else
        fsum_launch<T, 1>(x, src, ns, dst, no, coef, live, rows, cols);
}

template <typename T>
void rec(Ctx<T> &x, int depth, u64 M, u64 K, u64 N, T alpha, const T *A, u64 lda, const T *B,
         u64 ldb, bool beta, T *C, u64 ldc);

// One level's core with the fused schedule (the operations of fm_fused_ in
// runtime/fmul_impl.h, in its order): all A sums in one pass, all B sums in
// one, the products that feed one C block straight into it through cuBLAS's
// alpha and beta and those that feed several into their Q slots, then one pass
// adding the Q slots into C (each C block read and written once).  At the last
// level the products are GEMMs independent of each other and go round the
// streams between one fork and one join (two into one C block on one stream,
// so that they keep their order).
template <typename T>
void fused_level(Ctx<T> &x, int depth, u64 Mb, u64 Kb, u64 Nb, T alpha, const T *A, u64 lda, const T *B,
                 u64 ldb, bool beta, T *C, u64 ldc)
{
    const cuda_flevel &L = x.lv[depth];
    const Tab<T> &tb = x.tab[depth];
    int nm = L.n * L.m, mp = L.m * L.p, np = L.n * L.p;
    T *Tw = x.ws_t[depth], *Sw = x.ws_s[depth], *Qw = x.ws_q[depth];
    bool last = depth + 1 == x.nlevels;
    if (L.nt)
        fsum(x, BSet<T>{const_cast<T *>(A), (long long)lda, (long long)(Mb * lda), (long long)Kb, L.m}, nm,
             BSet<T>{Tw, (long long)Kb, (long long)(Mb * Kb), 0, 1}, L.nt, tb.ta, tb.lt, Mb, Kb);
    if (L.ns)
        fsum(x, BSet<T>{const_cast<T *>(B), (long long)ldb, (long long)(Kb * ldb), (long long)Nb, L.p}, mp,
             BSet<T>{Sw, (long long)Nb, (long long)(Kb * Nb), 0, 1}, L.ns, tb.sb, tb.ls, Kb, Nb);
    auto c_blk = [&](int b) { return C + (u64)(b / L.p) * Mb * ldc + (u64)(b % L.p) * Nb; };
    bool written[MAXT];
    int stream_of[MAXT];
    for (int b = 0; b < np; b++) {
        written[b] = beta;
        stream_of[b] = -1;
    }
    int turn = 0;
    if (last)
        fork_streams(x);
    for (int h = 0; h < L.rank; h++) {
        int a0 = L.a_off[h], na = L.a_off[h + 1] - a0;
        int b0 = L.b_off[h], nb = L.b_off[h + 1] - b0;
        int c0 = L.c_off[h], nc = L.c_off[h + 1] - c0;
        if (na == 0 || nb == 0 || nc == 0)
            continue;
        T scale = alpha;
        const T *tp, *sp;
        u64 ldt, lds;
        if (L.t_slot[h] >= 0) {
            tp = Tw + (u64)L.t_slot[h] * Mb * Kb;
            ldt = Kb;
        } else {
            int b = L.a_blk[a0];
            tp = A + (u64)(b / L.m) * Mb * lda + (u64)(b % L.m) * Kb;
            ldt = lda;
            scale *= (T)L.a_coef[a0];
        }
        if (L.s_slot[h] >= 0) {
            sp = Sw + (u64)L.s_slot[h] * Kb * Nb;
            lds = Nb;
        } else {
            int b = L.b_blk[b0];
            sp = B + (u64)(b / L.p) * Kb * ldb + (u64)(b % L.p) * Nb;
            lds = ldb;
            scale *= (T)L.b_coef[b0];
        }
        if (L.q_slot[h] >= 0) {
            T *q = Qw + (u64)L.q_slot[h] * Mb * Nb;
            if (last)
                gemm_on(x, turn++ % x.nst, Mb, Kb, Nb, scale, tp, ldt, sp, lds, false, q, Nb);
            else
                rec(x, depth + 1, Mb, Kb, Nb, scale, tp, ldt, sp, lds, false, q, Nb);
        } else {
            int b = L.c_blk[c0];
            T a = scale * (T)L.c_coef[c0];
            if (last) {
                if (stream_of[b] < 0)
                    stream_of[b] = turn++ % x.nst;
                gemm_on(x, stream_of[b], Mb, Kb, Nb, a, tp, ldt, sp, lds, written[b], c_blk(b), ldc);
            } else {
                rec(x, depth + 1, Mb, Kb, Nb, a, tp, ldt, sp, lds, written[b], c_blk(b), ldc);
            }
            written[b] = true;
        }
    }
    if (last)
        join_streams(x);
    if (L.nq) {
        fsum(x, BSet<T>{Qw, (long long)Nb, (long long)(Mb * Nb), 0, 1}, L.nq,
             BSet<T>{C, (long long)ldc, (long long)(Mb * ldc), (long long)Nb, L.p}, np, tb.qc, tb.lc[beta ? 1 : 0],
             Mb, Nb);
        for (int b = 0; b < np; b++)
            for (int o = 0; o < L.nq; o++)
                written[b] = written[b] || L.qc[b * L.nq + o] != 0;
    }
    for (int b = 0; b < np; b++)
        if (!written[b])
            ck(cudaMemset2DAsync(c_blk(b), ldc * sizeof(T), 0, Nb * sizeof(T), Mb, x.st[0]), "cudaMemset2DAsync");
}

// One level's core per product (the CPU's default schedule): each operand sum
// its own pass into one workspace, a product that feeds several C blocks into
// Q and one pass adding it to each.
template <typename T>
void plain_level(Ctx<T> &x, int depth, u64 Mb, u64 Kb, u64 Nb, T alpha, const T *A, u64 lda, const T *B,
                 u64 ldb, bool beta, T *C, u64 ldc)
{
    const cuda_flevel &L = x.lv[depth];
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
            sum_kernel<T><<<grid_for(Mb, Kb), 256, 0, x.st[0]>>>(Tw, Kb, Mb, Kb, lda, s);
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
            sum_kernel<T><<<grid_for(Kb, Nb), 256, 0, x.st[0]>>>(Sw, Nb, Kb, Nb, ldb, s);
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
        acc_kernel<T><<<grid_for(Mb, Nb), 256, 0, x.st[0]>>>(Qw, Nb, Mb, Nb, ldc, a);
        ck(cudaGetLastError(), "accumulate kernel");
        x.adds++;
    }
    for (int b = 0; b < L.n * L.p; b++)
        if (!written[b] && !beta)
            ck(cudaMemset2DAsync(c_blk(b), ldc * sizeof(T), 0, Nb * sizeof(T), Mb, x.st[0]), "cudaMemset2DAsync");
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
    if (x.fused[depth]) {
        fused_level(x, depth, Mb, Kb, Nb, alpha, A, lda, B, ldb, beta, C, ldc);
    } else {
        plain_level(x, depth, Mb, Kb, Nb, alpha, A, lda, B, ldb, beta, C, ldc);
    }
    if (Kc < K)
        gemm(x, Mc, K - Kc, Nc, alpha, A + Kc, lda, B + Kc * ldb, ldb, true, C, ldc);
    if (Nc < N)
        gemm(x, M, K, N - Nc, alpha, A, lda, B + Nc, ldb, beta, C + Nc, ldc);
    if (Mc < M)
        gemm(x, M - Mc, K, Nc, alpha, A + Mc * lda, lda, B, ldb, beta, C + Mc * ldc, ldc);
}

// A level can run fused when each of its three passes holds its sources or
// its outputs in registers.
bool fusable(const cuda_flevel &L)
{
    int nm = L.n * L.m, mp = L.m * L.p, np = L.n * L.p;
    return (nm <= MAXR || L.nt <= MAXR) && (mp <= MAXR || L.ns <= MAXR) && (L.nq <= MAXR || np <= MAXR);
}

template <typename T> void release(Ctx<T> &x, T *dA, T *dB, T *dC, cudaEvent_t *ev)
{
    for (int l = 0; l < MAXL; l++) {
        cudaFree(x.ws_t[l]);
        cudaFree(x.ws_s[l]);
        cudaFree(x.ws_q[l]);
        cudaFree(x.tabmem[l]);
    }
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    for (int i = 0; i < 4; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    if (x.fork)
        cudaEventDestroy(x.fork);
    for (int s = 0; s < MAXS; s++) {
        if (x.join[s])
            cudaEventDestroy(x.join[s]);
        if (x.h[s])
            cublasDestroy(x.h[s]);
        if (x.st[s])
            cudaStreamDestroy(x.st[s]);
    }
}

// The coefficient tables of a fused level, as T, uploaded once per call.
template <typename T> void upload_tables(Ctx<T> &x, int l)
{
    const cuda_flevel &L = x.lv[l];
    size_t nta = (size_t)L.nt * L.n * L.m, nsb = (size_t)L.ns * L.m * L.p, nqc = (size_t)L.n * L.p * L.nq;
    size_t nlive = (size_t)L.nt + L.ns + 2 * (size_t)L.n * L.p;
    size_t nco = nta + nsb + nqc;
    size_t bytes = nco * sizeof(T) + nlive * sizeof(int);
    unsigned char *host = (unsigned char *)malloc(bytes ? bytes : 1);
    if (!host)
        fail(3, "%s (%d bytes)", "out of host memory for the coefficient tables", (int)bytes);
    T *co = (T *)host;
    int *live = (int *)(host + nco * sizeof(T));
    for (size_t i = 0; i < nta; i++)
        co[i] = (T)L.ta[i];
    for (size_t i = 0; i < nsb; i++)
        co[nta + i] = (T)L.sb[i];
    for (size_t i = 0; i < nqc; i++)
        co[nta + nsb + i] = (T)L.qc[i];
    for (int o = 0; o < L.nt; o++)
        live[o] = 1;
    for (int o = 0; o < L.ns; o++)
        live[L.nt + o] = 1;
    // A C block fed by a Q slot is added to where a direct product wrote it
    // first (or the caller's C is kept), else written.
    int np = L.n * L.p;
    bool direct[MAXT] = {false};
    for (int h = 0; h < L.rank; h++)
        if (L.q_slot[h] < 0 && L.a_off[h + 1] > L.a_off[h] && L.b_off[h + 1] > L.b_off[h] &&
            L.c_off[h + 1] > L.c_off[h])
            direct[L.c_blk[L.c_off[h]]] = true;
    for (int b = 0; b < np; b++) {
        int any = 0;
        for (int q = 0; q < L.nq; q++)
            any |= L.qc[b * L.nq + q] != 0;
        live[L.nt + L.ns + b] = any ? (direct[b] ? 2 : 1) : 0;
        live[L.nt + L.ns + np + b] = any ? 2 : 0;
    }
    cudaError_t e = cudaMalloc(&x.tabmem[l], bytes ? bytes : 1);
    if (e == cudaSuccess)
        e = cudaMemcpy(x.tabmem[l], host, bytes, cudaMemcpyHostToDevice);
    free(host);
    ck(e, "the coefficient tables");
    T *d = (T *)x.tabmem[l];
    int *dl = (int *)((unsigned char *)x.tabmem[l] + nco * sizeof(T));
    x.tab[l] = Tab<T>{d, d + nta, d + nta + nsb, dl, dl + L.nt, {dl + L.nt + L.ns, dl + L.nt + L.ns + np}};
}

template <typename T>
void run(const cuda_flevel *levels, int nlevels, bool tf32, bool fused, int streams, u64 M, u64 K, u64 N,
         const void *hA, const void *hB, void *hC, int device, int reps, cuda_fstats *stats)
{
    Ctx<T> x;
    memset(&x, 0, sizeof x);
    x.lv = levels;
    x.nlevels = nlevels;
    x.nst = streams < 1 ? 1 : streams > MAXS ? MAXS : streams;
    T *dA = nullptr, *dB = nullptr, *dC = nullptr;
    cudaEvent_t ev[4] = {nullptr, nullptr, nullptr, nullptr};
    double peak = 0;
    int nfused = 0;
    try {
        ck(cudaSetDevice(device), "cudaSetDevice");
        for (int s = 0; s < x.nst; s++) {
            ck(cudaStreamCreateWithFlags(&x.st[s], cudaStreamNonBlocking), "cudaStreamCreate");
            // A handle per stream: cuBLAS's workspace is per handle, so that GEMMs
            // on two streams never share one.
            ckb(cublasCreate(&x.h[s]), "cublasCreate");
            ckb(cublasSetStream(x.h[s], x.st[s]), "cublasSetStream");
            // FP32 stays FP32 unless asked: CUBLAS_DEFAULT_MATH does not use TF32
            // tensor cores (NVIDIA_TF32_OVERRIDE=1 in the environment could still
            // force them; docs/float.md).
            ckb(cublasSetMathMode(x.h[s], tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
                "cublasSetMathMode");
            ck(cudaEventCreateWithFlags(&x.join[s], cudaEventDisableTiming), "cudaEventCreate");
        }
        ck(cudaEventCreateWithFlags(&x.fork, cudaEventDisableTiming), "cudaEventCreate");
        for (int i = 0; i < 4; i++)
            ck(cudaEventCreate(&ev[i]), "cudaEventCreate");
        size_t es = sizeof(T);
        ck(cudaMalloc(&dA, M * K * es), "cudaMalloc A");
        ck(cudaMalloc(&dB, K * N * es), "cudaMalloc B");
        ck(cudaMalloc(&dC, M * N * es), "cudaMalloc C");
        peak = (double)(M * K + K * N + M * N) * (double)es;
        // The fused workspace (a slot per sum and per product through Q) where
        // it fits in the free memory, less a margin for cuBLAS; otherwise that
        // level runs per product with one slot of each.
        size_t free_b = 0, total_b = 0;
        ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
        double budget = (double)free_b - 1024.0 * 1048576.0;
        u64 m = M, k = K, n = N;
        for (int l = 0; l < nlevels; l++) {
            const cuda_flevel &L = levels[l];
            m /= (u64)L.n;
            k /= (u64)L.m;
            n /= (u64)L.p;
            if (m == 0 || k == 0 || n == 0)
                break;
            u64 ct = 1, cs = 1, cq = 1;
            if (fused && fusable(L)) {
                u64 ft = L.nt ? (u64)L.nt : 1, fs = L.ns ? (u64)L.ns : 1, fq = L.nq ? (u64)L.nq : 1;
                double need = (double)(ft * m * k + fs * k * n + fq * m * n) * (double)es;
                if (need <= budget) {
                    ct = ft, cs = fs, cq = fq;
                    x.fused[l] = true;
                    nfused++;
                }
            }
            double got = (double)(ct * m * k + cs * k * n + cq * m * n) * (double)es;
            budget -= got;
            ck(cudaMalloc(&x.ws_t[l], ct * m * k * es), "cudaMalloc workspace");
            ck(cudaMalloc(&x.ws_s[l], cs * k * n * es), "cudaMalloc workspace");
            ck(cudaMalloc(&x.ws_q[l], cq * m * n * es), "cudaMalloc workspace");
            peak += got;
            if (x.fused[l])
                upload_tables(x, l);
        }
        cudaStream_t st = x.st[0];
        ck(cudaEventRecord(ev[0], st), "cudaEventRecord");
        ck(cudaMemcpyAsync(dA, hA, M * K * es, cudaMemcpyHostToDevice, st), "upload A");
        ck(cudaMemcpyAsync(dB, hB, K * N * es, cudaMemcpyHostToDevice, st), "upload B");
        ck(cudaEventRecord(ev[1], st), "cudaEventRecord");
        float best = -1;
        for (int r = 0; r < (reps > 0 ? reps : 1); r++) {
            x.gemms = x.adds = 0;
            cudaEvent_t e0 = r == 0 ? ev[1] : ev[3];
            if (r > 0)
                ck(cudaEventRecord(e0, st), "cudaEventRecord");
            rec<T>(x, 0, M, K, N, (T)1, dA, K, dB, N, false, dC, N);
            ck(cudaEventRecord(ev[2], st), "cudaEventRecord");
            ck(cudaEventSynchronize(ev[2]), "the product");
            float ms;
            ck(cudaEventElapsedTime(&ms, e0, ev[2]), "cudaEventElapsedTime");
            if (best < 0 || ms < best)
                best = ms;
        }
        ck(cudaEventRecord(ev[2], st), "cudaEventRecord");
        ck(cudaMemcpyAsync(hC, dC, M * N * es, cudaMemcpyDeviceToHost, st), "download C");
        ck(cudaEventRecord(ev[3], st), "cudaEventRecord");
        ck(cudaStreamSynchronize(st), "download C");
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
            stats->fused_levels = nfused;
        }
    } catch (Fail &) {
        release(x, dA, dB, dC, ev);
        throw;
    }
    release(x, dA, dB, dC, ev);
}

} // namespace

extern "C" int cuda_fmul(const cuda_flevel *levels, int nlevels, int f64, int tf32, int fused, int streams,
                         unsigned long long M,
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
            run<double>(levels, nlevels, tf32 != 0, fused != 0, streams, M, K, N, A, B, C, device, timing_reps, stats);
        else
            run<float>(levels, nlevels, tf32 != 0, fused != 0, streams, M, K, N, A, B, C, device, timing_reps, stats);
    } catch (Fail &f) {
        if (err && errlen)
            snprintf(err, errlen, "%s", g_err);
        return f.code;
    }
    if (stats)
        stats->ms_total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return 0;
}
