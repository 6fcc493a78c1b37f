// The GPU executor of a plan (Karppa, Kaski 2019, section 3): C = A * B over GF(2) with a
// chain of schemes, or the cubic product (GF(2) or Boolean) on the inner layer.
//
// Layers, outermost first:
//  - serial layer (section 3.8): the first `ds` levels run one product h at a
//    time, reusing space, so that inputs whose expanded working set exceeds the
//    GPU's memory still run; ds is the smallest number that fits (found by a
//    dry run of the executor that only counts bytes).
//  - expanding parallel layer (3.9): the remaining levels, consecutive levels
//    merged into one pass where their inputs fit in registers (3.15);
//  - inner layer (3.10): one batched launch of the R products on bit tensor
//    cores (cuda/bmm_tc.cu) or CUDA cores (cuda/bmm_simt.cu);
//  - compressing parallel layer (3.11), merged the same way.
// Matrices larger than the GPU's memory go through the host layer and its
// pipeline (3.16, runtime/host.c): a streaming session (the end of this file)
// keeps two sets of device buffers and three streams, so that the copies of
// one subproblem run under the product of another.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <vector>

#include <cuda_runtime.h>

#include "bmm_internal.h"
#include "rt_internal.h"

void bmm_set_error(const char *msg);

namespace {

enum { PH_UPLOAD, PH_PACK, PH_EXPAND, PH_INNER, PH_COMPRESS, PH_UNPACK, PH_DOWNLOAD, PH_N };

struct Fail {
    int code;
};

// Allocations through the stream-ordered pool, counted; in a dry run nothing is
// allocated or launched and only the peak is kept.
struct Mem {
    bool dry = true;
    cudaStream_t st = nullptr;
    size_t cur = 0, peak = 0;
    uintptr_t fake = 4096;
    std::map<void *, size_t> live;

    uint64_t *alloc(size_t words)
    {
        const size_t bytes = std::max<size_t>(words * 8, 16);
        cur += bytes;
        peak = std::max(peak, cur);
        void *p;
        if (dry) {
            p = (void *)fake;
            fake += (bytes + 255) & ~(size_t)255;
        } else {
            cudaError_t e = cudaMallocAsync(&p, bytes, st);
            if (e != cudaSuccess) {
                char m[160];
                snprintf(m, sizeof m, "device allocation of %.2f GiB: %s", bytes / 1073741824.0,
                         cudaGetErrorString(e));
                bmm_set_error(m);
                throw Fail{3};
            }
        }
        live[p] = bytes;
        return (uint64_t *)p;
    }
    void release(void *p)
    {
        auto it = live.find(p);
        if (it == live.end()) return;
        cur -= it->second;
        if (!dry) cudaFreeAsync(p, st);
        live.erase(it);
    }
    void release_all()
    {
        while (!live.empty()) release(live.begin()->first);
    }
};

struct Timer {
    bool on = false;
    cudaStream_t st = nullptr;
    std::vector<std::pair<int, std::pair<cudaEvent_t, cudaEvent_t>>> marks;
    int open = -1;
    cudaEvent_t a = nullptr;
    void begin(int phase)
    {
        if (!on || marks.size() > 20000) return;
        cudaEventCreate(&a);
        cudaEventRecord(a, st);
        open = phase;
    }
    void end()
    {
        if (open < 0) return;
        cudaEvent_t b;
        cudaEventCreate(&b);
        cudaEventRecord(b, st);
        marks.push_back({open, {a, b}});
        open = -1;
    }
    void sum(double *ms)
    {
        for (auto &m : marks) {
            float t = 0;
            if (ms && cudaEventElapsedTime(&t, m.second.first, m.second.second) == cudaSuccess)
                ms[m.first] += t;
            cudaEventDestroy(m.second.first);
            cudaEventDestroy(m.second.second);
        }
        marks.clear();
    }
};

void check(int rc, const char *what)
{
    if (rc == 0) return;
    if (rc == 3) {
        char m[200];
        snprintf(m, sizeof m, "%s: %s", what, cudaGetErrorString(cudaGetLastError()));
        bmm_set_error(m);
    } else {
        char m[200];
        snprintf(m, sizeof m, "%s: unsupported shape", what);
        bmm_set_error(m);
    }
    throw Fail{rc};
}

void check_cuda(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return;
    char m[200];
    snprintf(m, sizeof m, "%s: %s", what, cudaGetErrorString(e));
    bmm_set_error(m);
    throw Fail{3};
}

// Consecutive levels [l0, l1) evaluated in one pass; masks on the device:
// expansion: one row of inputs per output h; compression: one row of outputs
// per input h (Kronecker products of the levels' coefficients).
struct Group {
    int l0, l1, na, nh;
    std::vector<uint64_t> host;
    uint64_t *dev = nullptr;
};

struct Exec {
    const cuda_rt_level *lv = nullptr;
    int d = 0, ds = 0, kernel = 0, mode = 0;
    long long bs = 0, btw = 0, bu = 0, buw = 0;
    std::vector<Group> ga, gb, gc;         // parallel levels' groups (A, Bt, C sides)
    std::vector<Group> sa, sb, sc;         // serial levels, one level a group
    Mem mem;
    Timer tm;
    cudaStream_t st = nullptr;

    // Per-level local sizes: A side s*t, Bt side u*t, C side s*u.
    int na_a(int l) const { return lv[l].s * lv[l].t; }
    int na_b(int l) const { return lv[l].u * lv[l].t; }
    int no_c(int l) const { return lv[l].s * lv[l].u; }

    long long words_a(int l) const
    {
        long long w = bs * btw;
        for (int i = l; i < d; i++) w *= na_a(i);
        return w;
    }
    long long words_b(int l) const
    {
        long long w = bu * btw;
        for (int i = l; i < d; i++) w *= na_b(i);
        return w;
    }
    long long words_c(int l) const
    {
        long long w = bs * buw;
        for (int i = l; i < d; i++) w *= no_c(i);
        return w;
    }

    // side 0: A (xi), 1: Bt (eta, local index k*t + j), 2: C (zeta).
    static uint8_t coef(const cuda_rt_level &L, int side, int h, int a)
    {
        if (side == 0) return L.xi[h * L.s * L.t + a] & 1;
        if (side == 1) {
            const int k = a / L.t, j = a % L.t;
            return L.eta[h * L.t * L.u + j * L.u + k] & 1;
        }
        return L.zeta[a * L.r + h] & 1; // a = i*u + k
    }
    int local(int l, int side) const { return side == 0 ? na_a(l) : side == 1 ? na_b(l) : no_c(l); }

    Group make_group(int l0, int l1, int side) const
    {
        Group g;
        g.l0 = l0, g.l1 = l1, g.na = 1, g.nh = 1;
        for (int l = l0; l < l1; l++) g.na *= local(l, side), g.nh *= lv[l].r;
        g.host.assign(g.nh, 0);
        for (int h = 0; h < g.nh; h++)
            for (int a = 0; a < g.na; a++) {
                int hh = h, aa = a, c = 1;
                for (int l = l1 - 1; l >= l0 && c; l--) {
                    const int nl = local(l, side);
                    c &= coef(lv[l], side, hh % lv[l].r, aa % nl);
                    hh /= lv[l].r, aa /= nl;
                }
                if (c) g.host[h] |= 1ull << a;
            }
        return g;
    }

    // Groups of the parallel levels, merged from the innermost level outwards
    // while the merged inputs (outputs) of a thread fit in 16 registers of 16 bytes.
    std::vector<Group> partition(int side) const
    {
        std::vector<Group> out;
        int hi = d;
        while (hi > ds) {
            int lo = hi - 1, prod = local(lo, side);
            while (lo - 1 >= ds && prod * local(lo - 1, side) <= 16) prod *= local(--lo, side);
            out.insert(out.begin(), make_group(lo, hi, side));
            hi = lo;
        }
        return out;
    }

    void upload_masks(std::vector<Group> &gs)
    {
        for (auto &g : gs) {
            g.dev = mem.alloc(g.nh);
            if (!mem.dry)
                check_cuda(cudaMemcpyAsync(g.dev, g.host.data(), g.nh * 8, cudaMemcpyHostToDevice, st),
                           "mask upload");
        }
    }

    void setup_groups()
    {
        ga = partition(0), gb = partition(1), gc = partition(2);
        sa.clear(), sb.clear(), sc.clear();
        for (int l = 0; l < ds; l++) {
            sa.push_back(make_group(l, l + 1, 0));
            sb.push_back(make_group(l, l + 1, 1));
            sc.push_back(make_group(l, l + 1, 2));
        }
        upload_masks(ga), upload_masks(gb), upload_masks(gc);
        upload_masks(sa), upload_masks(sb), upload_masks(sc);
    }

    uint64_t *expand_side(uint64_t *X, bool owned, long long rest, std::vector<Group> &gs,
                          long long *P_out)
    {
        long long P = 1;
        for (auto &g : gs) {
            const long long after = rest / g.na;
            uint64_t *Y = mem.alloc((size_t)(P * g.nh * after));
            if (!mem.dry) {
                tm.begin(PH_EXPAND);
                check(rt_expand(X, Y, P, g.na, g.nh, after / 2, g.dev, st), "expanding level");
                tm.end();
            }
            if (owned) mem.release(X);
            X = Y, owned = true, P *= g.nh, rest = after;
        }
        *P_out = P;
        return X;
    }

    // The parallel layers on one sub-instance at depth l0 = ds.
    // Qout (without levels only): the product goes there, not into a buffer of its own.
    uint64_t *parallel(uint64_t *T, uint64_t *S, bool owned, uint64_t *Qout = nullptr)
    {
        long long R = 1, R2 = 1;
        T = expand_side(T, owned, words_a(ds), ga, &R);
        S = expand_side(S, owned, words_b(ds), gb, &R2);
        uint64_t *Q = Qout ? Qout : mem.alloc((size_t)(R * bs * buw));
        if (!mem.dry) {
            cuda_bmm_shape sh;
            sh.m = bs, sh.n = bu, sh.k = btw * 64, sh.batch = R;
            sh.lda = btw, sh.ldbt = btw, sh.ldc = buw;
            sh.stride_a = bs * btw, sh.stride_bt = bu * btw, sh.stride_c = bs * buw;
            tm.begin(PH_INNER);
            check(bmm_launch(kernel, mode, T, S, Q, &sh, st), "inner layer");
            tm.end();
        }
        if (!ga.empty() || owned) mem.release(T);
        if (!gb.empty() || owned) mem.release(S);
        long long P = R, rest = bs * buw;
        for (int i = (int)gc.size() - 1; i >= 0; i--) {
            Group &g = gc[i];
            P /= g.nh;
            uint64_t *Y = mem.alloc((size_t)(P * g.na * rest));
            if (!mem.dry) {
                tm.begin(PH_COMPRESS);
                check(rt_compress(Q, Y, P, g.nh, g.na, rest / 2, g.dev, false, st), "compressing level");
                tm.end();
            }
            mem.release(Q);
            Q = Y, rest *= g.na;
        }
        return Q;
    }

    // The serial layer at depth l: one product h at a time (Karppa, Kaski 2019, 3.8).
    uint64_t *serial(int l, uint64_t *T, uint64_t *S)
    {
        if (l == ds) return parallel(T, S, false);
        const long long subA = words_a(l + 1), subB = words_b(l + 1), subC = words_c(l + 1);
        uint64_t *Cacc = mem.alloc((size_t)(no_c(l) * subC));
        if (!mem.dry) check_cuda(cudaMemsetAsync(Cacc, 0, no_c(l) * subC * 8, st), "memset");
        uint64_t *Th = mem.alloc((size_t)subA), *Sh = mem.alloc((size_t)subB);
        for (int h = 0; h < lv[l].r; h++) {
            if (!mem.dry) {
                tm.begin(PH_EXPAND);
                check(rt_expand(T, Th, 1, na_a(l), 1, subA / 2, sa[l].dev + h, st), "serial level");
                check(rt_expand(S, Sh, 1, na_b(l), 1, subB / 2, sb[l].dev + h, st), "serial level");
                tm.end();
            }
            uint64_t *Qh = serial(l + 1, Th, Sh);
            if (!mem.dry) {
                tm.begin(PH_COMPRESS);
                check(rt_compress(Qh, Cacc, 1, 1, no_c(l), subC / 2, sc[l].dev + h, true, st),
                      "serial level");
                tm.end();
            }
            mem.release(Qh);
        }
        mem.release(Th);
        mem.release(Sh);
        return Cacc;
    }

    RtLayout layout(int side) const
    {
        RtLayout L;
        memset(&L, 0, sizeof L);
        L.d = d;
        for (int l = 0; l < d; l++) {
            L.rs[l] = side == 1 ? lv[l].u : lv[l].s;
            L.cs[l] = side == 2 ? lv[l].u : lv[l].t;
        }
        L.br = side == 1 ? bu : bs;
        L.bw = side == 2 ? buw : btw;
        return L;
    }

    // The whole product; in a dry run only the peak of device memory is found.
    void run(long long rows, long long inner, long long cols, const uint64_t *A, size_t lda,
             const uint64_t *B, size_t ldb, uint64_t *C, size_t ldc)
    {
        setup_groups();
        uint64_t *Araw = mem.alloc((size_t)(rows * lda));
        uint64_t *Braw = mem.alloc((size_t)(inner * ldb));
        if (!mem.dry) {
            tm.begin(PH_UPLOAD);
            check_cuda(cudaMemcpyAsync(Araw, A, rows * lda * 8, cudaMemcpyHostToDevice, st), "upload A");
            check_cuda(cudaMemcpyAsync(Braw, B, inner * ldb * 8, cudaMemcpyHostToDevice, st), "upload B");
            tm.end();
        }
        uint64_t *Craw = core(rows, inner, cols, Araw, lda, Braw, ldb, nullptr, ldc, false);
        if (!mem.dry) {
            tm.begin(PH_DOWNLOAD);
            check_cuda(cudaMemcpyAsync(C, Craw, rows * ldc * 8, cudaMemcpyDeviceToHost, st), "download C");
            tm.end();
        }
        mem.release(Craw);
    }

    // From the plain operands on the device to the plain product on the device.
    // ext: Araw, Braw and Craw belong to the caller (a session's buffer sets),
    // neither allocated nor released here; else Araw and Braw are released once
    // packed and Craw is allocated (the caller releases it).
    uint64_t *core(long long rows, long long inner, long long cols, uint64_t *Araw, size_t lda,
                   uint64_t *Braw, size_t ldb, uint64_t *Craw, size_t ldc, bool ext)
    {
        long long pinner = btw * 64, pcols = bu;
        for (int l = 0; l < d; l++) pinner *= lv[l].t, pcols *= lv[l].u;
        // Without levels and padding the plain A is already its one block, and
        // the product block is the plain C: no copies (and less memory, which
        // lets a streamed subproblem be larger).
        const bool alias_a = d == 0 && rows == bs && (long long)lda == btw;
        const bool alias_c = d == 0 && rows == bs && (long long)ldc == buw && cols == bu;
        uint64_t *Ap = alias_a ? Araw : mem.alloc((size_t)words_a(0));
        if (!mem.dry && !alias_a) {
            tm.begin(PH_PACK);
            check(rt_pack(Araw, rows, inner, (long long)lda, Ap, layout(0), st), "pack A");
            tm.end();
        }
        if (!ext && !alias_a) mem.release(Araw); // else released with Ap (parallel's owned T)
        uint64_t *Bt = mem.alloc((size_t)(pcols * (pinner / 64)));
        if (!mem.dry) {
            tm.begin(PH_PACK);
            check(cuda_bmm_transpose(Braw, inner, cols, (long long)ldb, Bt, pcols, pinner, pinner / 64, st),
                  "transpose B");
            tm.end();
        }
        if (!ext) mem.release(Braw);
        uint64_t *Bp = Bt;
        if (d > 0) {
            Bp = mem.alloc((size_t)words_b(0));
            if (!mem.dry) {
                tm.begin(PH_PACK);
                check(rt_pack(Bt, pcols, pinner, pinner / 64, Bp, layout(1), st), "pack B");
                tm.end();
            }
            mem.release(Bt);
        }
        uint64_t *Cp;
        if (alias_c) {
            if (!ext) Craw = mem.alloc((size_t)(rows * ldc));
            Cp = parallel(Ap, Bp, true, Craw); // releases Ap (Araw when aliased and ours) and Bp
            return Craw;
        }
        if (ds > 0) {
            Cp = serial(0, Ap, Bp);
            mem.release(Ap);
            mem.release(Bp);
        } else {
            Cp = parallel(Ap, Bp, true);
        }
        if (!ext) Craw = mem.alloc((size_t)(rows * ldc));
        if (!mem.dry) {
            if ((long long)ldc > (cols + 63) / 64)
                check_cuda(cudaMemsetAsync(Craw, 0, rows * ldc * 8, st), "memset C");
            tm.begin(PH_UNPACK);
            check(rt_unpack(Cp, layout(2), Craw, rows, cols, (long long)ldc, st), "unpack C");
            tm.end();
        }
        mem.release(Cp);
        return Craw;
    }
};

long long round_up(long long x, long long q) { return (x + q - 1) / q * q; }

int say(char *err, size_t len, int code, const char *fmt, const char *arg = "")
{
    if (err && len) snprintf(err, len, fmt, arg);
    return code;
}

// Checks the arguments and sizes an executor for them (device set, kernel
// resolved, block sizes); 0 or the code with a message.
int prepare(Exec &x, const cuda_rt_level *levels, int nlevels, int mode, int kernel,
            unsigned long long rows, unsigned long long inner, unsigned long long cols, size_t lda,
            size_t ldb, size_t ldc, int device, char *err, size_t errlen)
{
    if (mode != CUDA_BMM_GF2 && mode != CUDA_BMM_BOOL) return say(err, errlen, 2, "unknown product mode");
    if (kernel < CUDA_BMM_AUTO || kernel >= CUDA_BMM_KERNELS) return say(err, errlen, 2, "unknown inner kernel");
    if (nlevels < 0 || nlevels > RT_MAX_LEVELS) return say(err, errlen, 2, "too many levels (at most 16)");
    if (mode == CUDA_BMM_BOOL && nlevels > 0)
        return say(err, errlen, 2,
                   "the GPU runs Boolean products with the cubic plan only (a scheme's "
                   "cancellations need integer counts, not bits)");
    if (rows < 1 || inner < 1 || cols < 1) return say(err, errlen, 2, "empty matrix");
    if (lda * 64 < inner || ldb * 64 < cols || ldc * 64 < cols)
        return say(err, errlen, 2, "leading dimension shorter than a row");
    for (int l = 0; l < nlevels; l++) {
        const cuda_rt_level &L = levels[l];
        if (L.s < 1 || L.t < 1 || L.u < 1 || L.r < 1 || L.s * L.t > 64 || L.t * L.u > 64 ||
            L.s * L.u > 64 || L.r > 4096 || !L.xi || !L.eta || !L.zeta)
            return say(err, errlen, 2, "a level is not a valid format <s,t,u> of rank r");
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        cudaGetLastError();
        return say(err, errlen, 3, "no GPU visible");
    }
    if (device < 0 || device >= ndev) return say(err, errlen, 2, "no such GPU");
    if (cudaSetDevice(device) != cudaSuccess) return say(err, errlen, 3, "cudaSetDevice failed");

    kernel = bmm_resolve(kernel);
    x.lv = levels, x.d = nlevels, x.kernel = kernel, x.mode = mode;
    long long qm, qn, qk, S = 1, T = 1, U = 1;
    cuda_bmm_quanta(kernel, &qm, &qn, &qk);
    double total_w = 1;
    for (int l = 0; l < nlevels; l++) {
        S *= levels[l].s, T *= levels[l].t, U *= levels[l].u;
        total_w *= levels[l].r;
    }
    x.bs = round_up(((long long)rows + S - 1) / S, qm);
    x.btw = round_up(((long long)inner + T - 1) / T, qk) / 64;
    x.bu = round_up(((long long)cols + U - 1) / U, qn);
    x.buw = x.bu / 64;
    // The largest expanded operand must be addressable with 64-bit word counts.
    if (total_w * (double)(x.bs + x.bu) * x.btw > 4e18) return say(err, errlen, 2, "sizes overflow");
    return 0;
}

// The device budget: the free memory less a margin, and at most max_bytes (> 0).
int budget_of(double max_bytes, double *budget, double *free_out, char *err, size_t errlen)
{
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return say(err, errlen, 3, "cudaMemGetInfo failed");
    *budget = (double)free_b * 0.92 - 256.0 * (1 << 20);
    if (max_bytes > 0 && max_bytes < *budget) *budget = max_bytes;
    *free_out = (double)free_b;
    return 0;
}

// The device words of one set of plain operands and product.
double raw_bytes(unsigned long long rows, unsigned long long inner, size_t lda, size_t ldb, size_t ldc)
{
    return ((double)rows * (double)lda + (double)inner * (double)ldb + (double)rows * (double)ldc) * 8.0;
}

// The smallest number of serial levels whose dry run fits the budget (-1: none).
// sets > 0: a session's, with that many buffer sets of its own beside the
// product's peak (counted in *peak_out).
int choose_ds(const Exec &x, double budget, unsigned long long rows, unsigned long long inner,
              unsigned long long cols, size_t lda, size_t ldb, size_t ldc, int *ds_out,
              double *peak_out, char *err, size_t errlen, int sets = 0)
{
    int ds = -1, ds_min = 0;
    double peak = 0;
    // Tests force the serial layer on small inputs with this variable.
    if (const char *e = getenv("FLIPGRAPH_GPU_SERIAL_LEVELS")) ds_min = std::min(std::max(atoi(e), 0), x.d);
    for (int cand = ds_min; cand <= x.d && ds < 0; cand++) {
        Exec dry = x;
        dry.ds = cand;
        dry.mem.dry = true;
        try {
            if (sets > 0) {
                dry.setup_groups();
                dry.core((long long)rows, (long long)inner, (long long)cols, nullptr, lda, nullptr, ldb,
                         nullptr, ldc, true);
            } else {
                dry.run((long long)rows, (long long)inner, (long long)cols, nullptr, lda, nullptr, ldb,
                        nullptr, ldc);
            }
        } catch (Fail &f) {
            return say(err, errlen, f.code, "%s", cuda_rt_last_error());
        }
        const double need = (double)dry.mem.peak + sets * raw_bytes(rows, inner, lda, ldb, ldc);
        if (need <= budget) ds = cand, peak = need;
    }
    *ds_out = ds;
    *peak_out = peak;
    return 0;
}

} // namespace

extern "C" int cuda_rt_need(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                            unsigned long long rows, unsigned long long inner, unsigned long long cols,
                            int device, double max_device_bytes, double *peak_bytes,
                            int *serial_levels, char *err, size_t errlen)
{
    Exec x;
    const size_t lda = (inner + 63) / 64, ldb = (cols + 63) / 64, ldc = ldb;
    int rc = prepare(x, levels, nlevels, mode, kernel, rows, inner, cols, lda, ldb, ldc, device, err, errlen);
    if (rc) return rc;
    double budget, free_b;
    if ((rc = budget_of(max_device_bytes, &budget, &free_b, err, errlen))) return rc;
    int ds;
    double peak;
    if ((rc = choose_ds(x, budget, rows, inner, cols, lda, ldb, ldc, &ds, &peak, err, errlen))) return rc;
    *peak_bytes = ds < 0 ? -1.0 : peak;
    if (serial_levels) *serial_levels = ds;
    if (ds < 0) {
        char m[200];
        snprintf(m, sizeof m, "the product needs more than %.1f MiB of GPU memory even with every level serial",
                 budget / 1048576.0);
        say(err, errlen, 0, "%s", m);
    }
    return 0;
}

extern "C" void *cuda_rt_host_alloc(size_t bytes)
{
    void *p = nullptr;
    // Portable: page-locked for every GPU, not only the context that made it
    // (a host-layer worker allocates before it picks its device).
    if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    return p;
}

extern "C" void cuda_rt_host_free(void *p)
{
    if (p) cudaFreeHost(p);
}

extern "C" int cuda_rt_multiply(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                                unsigned long long rows, unsigned long long inner,
                                unsigned long long cols, const uint64_t *A, size_t lda,
                                const uint64_t *B, size_t ldb, uint64_t *C, size_t ldc, int device,
                                cuda_rt_stats *stats, char *err, size_t errlen)
{
    return cuda_rt_multiply_limit(levels, nlevels, mode, kernel, rows, inner, cols, A, lda, B, ldb, C,
                                  ldc, device, 0.0, stats, err, errlen);
}

extern "C" int cuda_rt_multiply_limit(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                                      unsigned long long rows, unsigned long long inner,
                                      unsigned long long cols, const uint64_t *A, size_t lda,
                                      const uint64_t *B, size_t ldb, uint64_t *C, size_t ldc,
                                      int device, double max_device_bytes, cuda_rt_stats *stats,
                                      char *err, size_t errlen)
{
    const auto t0 = std::chrono::steady_clock::now();
    if (stats) memset(stats, 0, sizeof *stats);
    Exec x;
    int rc = prepare(x, levels, nlevels, mode, kernel, rows, inner, cols, lda, ldb, ldc, device, err, errlen);
    if (rc) return rc;
    double budget, free_b;
    if ((rc = budget_of(max_device_bytes, &budget, &free_b, err, errlen))) return rc;
    int ds;
    double peak;
    if ((rc = choose_ds(x, budget, rows, inner, cols, lda, ldb, ldc, &ds, &peak, err, errlen))) return rc;
    if (ds < 0) {
        char m[240];
        snprintf(m, sizeof m, "the product needs more than %.1f MiB of GPU memory (%.1f GiB free) even "
                 "with every level serial: the host layer splits it (docs/host-layer.md)",
                 budget / 1048576.0, free_b / 1073741824.0);
        return say(err, errlen, 2, "%s", m);
    }

    x.ds = ds;
    x.mem.dry = false;
    if (cudaStreamCreateWithFlags(&x.st, cudaStreamNonBlocking) != cudaSuccess)
        return say(err, errlen, 3, "cudaStreamCreate failed");
    x.mem.st = x.st;
    x.tm.st = x.st;
    x.tm.on = true;
    // Freed blocks stay in the pool during the call (no re-mapping between
    // levels); trimmed at the end so that the memory goes back.
    cudaMemPool_t pool = nullptr;
    uint64_t keep = ~0ull;
    if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess)
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    else
        pool = nullptr, cudaGetLastError();
    rc = 0;
    try {
        x.run((long long)rows, (long long)inner, (long long)cols, A, lda, B, ldb, C, ldc);
        check_cuda(cudaStreamSynchronize(x.st), "GPU execution");
    } catch (Fail &f) {
        rc = f.code;
        cudaStreamSynchronize(x.st);
    }
    double ms[PH_N] = {0};
    if (rc == 0) x.tm.sum(ms);
    x.mem.release_all();
    cudaStreamSynchronize(x.st);
    cudaStreamDestroy(x.st);
    if (pool) cudaMemPoolTrimTo(pool, 0);
    if (rc) return say(err, errlen, rc, "%s", cuda_rt_last_error());
    if (stats) {
        stats->ms_upload = ms[PH_UPLOAD], stats->ms_pack = ms[PH_PACK];
        stats->ms_expand = ms[PH_EXPAND], stats->ms_inner = ms[PH_INNER];
        stats->ms_compress = ms[PH_COMPRESS], stats->ms_unpack = ms[PH_UNPACK];
        stats->ms_download = ms[PH_DOWNLOAD];
        stats->ms_device = ms[PH_PACK] + ms[PH_EXPAND] + ms[PH_INNER] + ms[PH_COMPRESS] + ms[PH_UNPACK];
        stats->serial_levels = ds;
        stats->parallel_levels = nlevels - ds;
        long long S2 = 1, T2 = 1, U2 = 1;
        for (int l = 0; l < nlevels; l++) S2 *= levels[l].s, T2 *= levels[l].t, U2 *= levels[l].u;
        stats->rows_pad = (unsigned long long)(S2 * x.bs);
        stats->inner_pad = (unsigned long long)(T2 * x.btw * 64);
        stats->cols_pad = (unsigned long long)(U2 * x.bu);
        stats->peak_bytes = peak;
        stats->ms_total =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    return 0;
}

extern "C" int cuda_rt_host_register(void *p, size_t bytes)
{
    if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
        cudaGetLastError();
        return 3;
    }
    return 0;
}

extern "C" void cuda_rt_host_unregister(void *p)
{
    if (p && cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
}

// ---- streaming sessions (the host layer's GPU executor) ----

namespace {

// One subproblem in flight: its events on the three streams and its phase marks.
struct Flight {
    bool live = false;
    unsigned long long index = 0;
    cudaEvent_t up0 = nullptr, up1 = nullptr, c0 = nullptr, c1 = nullptr;
    std::vector<std::pair<int, std::pair<cudaEvent_t, cudaEvent_t>>> marks;
};

void destroy_event(cudaEvent_t &e)
{
    if (e) cudaEventDestroy(e);
    e = nullptr;
}

} // namespace

struct cuda_rt_session {
    Exec x;
    cuda_rt_level lv[RT_MAX_LEVELS];
    int device = 0;
    long long rows = 0, inner = 0, cols = 0;
    size_t lda = 0, ldb = 0, ldc = 0;
    cudaStream_t h2d = nullptr, d2h = nullptr;
    uint64_t *dA[2] = {nullptr, nullptr}, *dB[2] = {nullptr, nullptr}, *dC[2] = {nullptr, nullptr};
    Flight fl[2];
    cudaEvent_t prev_end = nullptr; // the last finished product's end (device idle after it)
    cudaMemPool_t pool = nullptr;
    cuda_rt_session_stats stats{};
};

extern "C" int cuda_rt_session_need(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                                    unsigned long long rows, unsigned long long inner,
                                    unsigned long long cols, int device, double max_device_bytes,
                                    double *bytes, char *err, size_t errlen)
{
    Exec x;
    const size_t lda = (inner + 63) / 64, ldb = (cols + 63) / 64, ldc = ldb;
    *bytes = -1;
    int rc = prepare(x, levels, nlevels, mode, kernel, rows, inner, cols, lda, ldb, ldc, device, err, errlen);
    if (rc) return rc;
    double budget, free_b;
    if ((rc = budget_of(max_device_bytes, &budget, &free_b, err, errlen))) return rc;
    int ds;
    double peak;
    if ((rc = choose_ds(x, budget, rows, inner, cols, lda, ldb, ldc, &ds, &peak, err, errlen, 2))) return rc;
    if (ds < 0) {
        char m[200];
        snprintf(m, sizeof m, "a streamed subproblem needs more than %.1f MiB of GPU memory even with every "
                 "level serial", budget / 1048576.0);
        say(err, errlen, 0, "%s", m);
        return 0;
    }
    *bytes = peak;
    return 0;
}

extern "C" void cuda_rt_session_free(cuda_rt_session *s)
{
    if (!s) return;
    cudaSetDevice(s->device);
    if (s->x.st) cudaStreamSynchronize(s->x.st);
    if (s->h2d) cudaStreamSynchronize(s->h2d);
    if (s->d2h) cudaStreamSynchronize(s->d2h);
    for (auto &f : s->fl) {
        destroy_event(f.up0), destroy_event(f.up1), destroy_event(f.c0), destroy_event(f.c1);
        for (auto &m : f.marks) cudaEventDestroy(m.second.first), cudaEventDestroy(m.second.second);
        f.marks.clear();
    }
    destroy_event(s->prev_end);
    s->x.tm.sum(nullptr);
    if (s->x.st) {
        s->x.mem.release_all();
        cudaStreamSynchronize(s->x.st);
    }
    for (int k = 0; k < 2; k++) cudaFree(s->dA[k]), cudaFree(s->dB[k]), cudaFree(s->dC[k]);
    if (s->x.st) cudaStreamDestroy(s->x.st);
    if (s->h2d) cudaStreamDestroy(s->h2d);
    if (s->d2h) cudaStreamDestroy(s->d2h);
    if (s->pool) cudaMemPoolTrimTo(s->pool, 0);
    cudaGetLastError();
    delete s;
}

extern "C" cuda_rt_session *cuda_rt_session_new(const cuda_rt_level *levels, int nlevels, int mode,
                                                int kernel, unsigned long long rows,
                                                unsigned long long inner, unsigned long long cols,
                                                int device, double max_device_bytes, int *code,
                                                char *err, size_t errlen)
{
    *code = 2;
    if (nlevels < 0 || nlevels > RT_MAX_LEVELS) {
        say(err, errlen, 2, "too many levels (at most 16)");
        return nullptr;
    }
    cuda_rt_session *s = new (std::nothrow) cuda_rt_session;
    if (!s) {
        *code = 3;
        say(err, errlen, 3, "out of memory");
        return nullptr;
    }
    for (int l = 0; l < nlevels; l++) s->lv[l] = levels[l];
    s->device = device;
    s->rows = (long long)rows, s->inner = (long long)inner, s->cols = (long long)cols;
    s->lda = (inner + 63) / 64, s->ldb = (cols + 63) / 64, s->ldc = s->ldb;
    int rc = prepare(s->x, s->lv, nlevels, mode, kernel, rows, inner, cols, s->lda, s->ldb, s->ldc, device,
                     err, errlen);
    double budget, free_b, peak;
    int ds = -1;
    if (!rc) rc = budget_of(max_device_bytes, &budget, &free_b, err, errlen);
    if (!rc) rc = choose_ds(s->x, budget, rows, inner, cols, s->lda, s->ldb, s->ldc, &ds, &peak, err, errlen, 2);
    if (!rc && ds < 0) rc = say(err, errlen, 2, "a streamed subproblem does not fit the GPU's memory");
    if (rc) {
        *code = rc;
        delete s;
        return nullptr;
    }
    *code = 3;
    Exec &x = s->x;
    x.ds = ds;
    x.mem.dry = false;
    s->stats.serial_levels = ds;
    s->stats.device_bytes = peak;
    if (cudaStreamCreateWithFlags(&x.st, cudaStreamNonBlocking) != cudaSuccess ||
        cudaStreamCreateWithFlags(&s->h2d, cudaStreamNonBlocking) != cudaSuccess ||
        cudaStreamCreateWithFlags(&s->d2h, cudaStreamNonBlocking) != cudaSuccess) {
        say(err, errlen, 3, "cudaStreamCreate failed");
        cuda_rt_session_free(s);
        return nullptr;
    }
    x.mem.st = x.st;
    x.tm.st = x.st;
    x.tm.on = true;
    // The pool keeps what the products free, from one subproblem to the next
    // (no re-mapping of GiBs per subproblem); trimmed when the session ends.
    uint64_t keep = ~0ull;
    if (cudaDeviceGetDefaultMemPool(&s->pool, device) == cudaSuccess)
        cudaMemPoolSetAttribute(s->pool, cudaMemPoolAttrReleaseThreshold, &keep);
    else
        s->pool = nullptr, cudaGetLastError();
    for (int k = 0; k < 2; k++) {
        if (cudaMalloc(&s->dA[k], std::max<size_t>(rows * s->lda * 8, 16)) != cudaSuccess ||
            cudaMalloc(&s->dB[k], std::max<size_t>(inner * s->ldb * 8, 16)) != cudaSuccess ||
            cudaMalloc(&s->dC[k], std::max<size_t>(rows * s->ldc * 8, 16)) != cudaSuccess) {
            say(err, errlen, 3, "device allocation of a session's buffers: %s", cudaGetErrorString(cudaGetLastError()));
            cuda_rt_session_free(s);
            return nullptr;
        }
    }
    try {
        x.setup_groups();
        check_cuda(cudaStreamSynchronize(x.st), "session set-up");
    } catch (Fail &f) {
        *code = f.code;
        say(err, errlen, f.code, "%s", cuda_rt_last_error());
        cuda_rt_session_free(s);
        return nullptr;
    }
    *code = 0;
    return s;
}

extern "C" int cuda_rt_session_submit(cuda_rt_session *s, unsigned long long index, const uint64_t *A,
                                      size_t lda, const uint64_t *B, size_t ldb, char *err, size_t errlen)
{
    const int k = (int)(index % 2);
    Flight &f = s->fl[k];
    if (f.live) return say(err, errlen, 2, "session: a buffer set is still in flight (finish first)");
    if (lda != s->lda || ldb != s->ldb) return say(err, errlen, 2, "session: operands of another size");
    if (cudaSetDevice(s->device) != cudaSuccess) return say(err, errlen, 3, "cudaSetDevice failed");
    Exec &x = s->x;
    try {
        for (cudaEvent_t *e : {&f.up0, &f.up1, &f.c0, &f.c1})
            check_cuda(cudaEventCreate(e), "event");
        const size_t ab = (size_t)s->rows * lda * 8, bb = (size_t)s->inner * ldb * 8;
        // The buffer set was last read by subproblem index-2, finished before
        // this call (the order of the interface), so the upload may overwrite it.
        check_cuda(cudaEventRecord(f.up0, s->h2d), "event");
        check_cuda(cudaMemcpyAsync(s->dA[k], A, ab, cudaMemcpyHostToDevice, s->h2d), "upload A");
        check_cuda(cudaMemcpyAsync(s->dB[k], B, bb, cudaMemcpyHostToDevice, s->h2d), "upload B");
        check_cuda(cudaEventRecord(f.up1, s->h2d), "event");
        check_cuda(cudaStreamWaitEvent(x.st, f.up1, 0), "stream wait");
        check_cuda(cudaEventRecord(f.c0, x.st), "event");
        x.core(s->rows, s->inner, s->cols, s->dA[k], lda, s->dB[k], ldb, s->dC[k], s->ldc, true);
        check_cuda(cudaEventRecord(f.c1, x.st), "event");
        s->stats.h2d_bytes += (double)(ab + bb);
    } catch (Fail &fl) {
        return say(err, errlen, fl.code, "%s", cuda_rt_last_error());
    }
    f.marks.swap(x.tm.marks);
    x.tm.marks.clear();
    f.live = true;
    f.index = index;
    return 0;
}

extern "C" int cuda_rt_session_uploaded(cuda_rt_session *s, unsigned long long index, char *err, size_t errlen)
{
    Flight &f = s->fl[index % 2];
    if (!f.live) return 0; // finished: its upload is long done
    if (f.index != index) return say(err, errlen, 2, "session: that subproblem is not in flight");
    if (cudaEventSynchronize(f.up1) != cudaSuccess) {
        char m[200];
        snprintf(m, sizeof m, "upload: %s", cudaGetErrorString(cudaGetLastError()));
        return say(err, errlen, 3, "%s", m);
    }
    return 0;
}

extern "C" int cuda_rt_session_finish(cuda_rt_session *s, unsigned long long index, uint64_t *C, size_t ldc,
                                      char *err, size_t errlen)
{
    Flight &f = s->fl[index % 2];
    if (!f.live || f.index != index) return say(err, errlen, 2, "session: that subproblem is not in flight");
    if (ldc != s->ldc) return say(err, errlen, 2, "session: a product of another size");
    if (cudaSetDevice(s->device) != cudaSuccess) return say(err, errlen, 3, "cudaSetDevice failed");
    cudaEvent_t d0 = nullptr, d1 = nullptr;
    const size_t cb = (size_t)s->rows * ldc * 8;
    try {
        check_cuda(cudaEventCreate(&d0), "event");
        check_cuda(cudaEventCreate(&d1), "event");
        check_cuda(cudaStreamWaitEvent(s->d2h, f.c1, 0), "stream wait");
        check_cuda(cudaEventRecord(d0, s->d2h), "event");
        check_cuda(cudaMemcpyAsync(C, s->dC[index % 2], cb, cudaMemcpyDeviceToHost, s->d2h), "download C");
        check_cuda(cudaEventRecord(d1, s->d2h), "event");
        check_cuda(cudaEventSynchronize(d1), "GPU execution");
    } catch (Fail &fl) {
        destroy_event(d0), destroy_event(d1);
        return say(err, errlen, fl.code, "%s", cuda_rt_last_error());
    }
    cuda_rt_session_stats &st = s->stats;
    float t = 0;
    if (cudaEventElapsedTime(&t, f.up0, f.up1) == cudaSuccess) st.ms_h2d += t;
    if (cudaEventElapsedTime(&t, f.c0, f.c1) == cudaSuccess) st.ms_compute += t;
    if (cudaEventElapsedTime(&t, d0, d1) == cudaSuccess) st.ms_d2h += t;
    if (s->prev_end && cudaEventElapsedTime(&t, s->prev_end, f.c0) == cudaSuccess && t > 0) st.ms_idle += t;
    cudaGetLastError();
    double ms[PH_N] = {0};
    s->x.tm.marks.swap(f.marks);
    s->x.tm.sum(ms);
    st.ms_pack += ms[PH_PACK], st.ms_expand += ms[PH_EXPAND], st.ms_inner += ms[PH_INNER];
    st.ms_compress += ms[PH_COMPRESS], st.ms_unpack += ms[PH_UNPACK];
    st.d2h_bytes += (double)cb;
    st.products++;
    destroy_event(s->prev_end);
    s->prev_end = f.c1;
    f.c1 = nullptr;
    destroy_event(f.up0), destroy_event(f.up1), destroy_event(f.c0);
    destroy_event(d0), destroy_event(d1);
    f.live = false;
    return 0;
}

extern "C" void cuda_rt_session_stats_get(const cuda_rt_session *s, cuda_rt_session_stats *st)
{
    *st = s->stats;
}
