/* GPU bit-matrix products (docs/gpu-runtime.md): effective bit operations per second,
 * (2n^3 - n^2) / time, of the inner kernels and the plans, side by side with
 * the route a user would take today (cuBLAS int8 GEMM on 0/1 bytes, then the
 * parity or non-zero test) and a CUDA-core kernel in the style of Karppa, Kaski
 * 2019 (docs/references.md).
 *
 *   bench_gpu_multiply [--log2 14,15,16] [--reps 5] [--no-plans] [--no-cublas]
 *
 * Results are checked against each other (TC = SIMT = cuBLAS, plans = cubic)
 * before a figure is printed.  The table at the end is Markdown.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/fg_cuda.h"
#include "schemes/scheme.h"

#if FLIPGRAPH_HAVE_CUDA && defined(FG_BENCH_CUBLAS)
#include <cublas_v2.h>
#define HAVE_CUBLAS 1
#else
#define HAVE_CUBLAS 0
#endif

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define MAXROWS 256
static struct row {
    long long n;
    char method[64], mode[8];
    double ms, pbops, frac;
    char note[96];
} rows[MAXROWS];
static int nrows;
static int failures;
static int tc_only;

static void add_row(long long n, const char *method, const char *mode, double ms, double ceiling,
                    const char *note)
{
    if (nrows >= MAXROWS) return;
    struct row *r = &rows[nrows++];
    r->n = n;
    snprintf(r->method, sizeof r->method, "%s", method);
    snprintf(r->mode, sizeof r->mode, "%s", mode);
    r->ms = ms;
    const double ops = 2.0 * n * (double)n * n - (double)n * n;
    r->pbops = ops / (ms * 1e-3) / 1e15;
    r->frac = ceiling > 0 ? r->pbops * 1e15 / ceiling : 0;
    snprintf(r->note, sizeof r->note, "%s", note ? note : "");
    printf("  n=%lld %-28s %-4s %10.3f ms %8.3f Pbop/s %s\n", n, method, mode, ms, r->pbops, r->note);
    fflush(stdout);
}

static int check(const char *what, const uint64_t *x, const uint64_t *y, size_t words)
{
    if (memcmp(x, y, words * 8) == 0) return 1;
    size_t i = 0;
    while (i < words && x[i] == y[i]) i++;
    printf("  MISMATCH %s: first differing word %zu\n", what, i);
    failures++;
    return 0;
}

/* ---- plans ---- */
typedef struct chain {
    int n;
    cuda_rt_level lv[4];
    uint8_t *buf[12];
} chain;

static void chain_add(chain *ch, const scheme *s)
{
    const int S = s->fmt.n, T = s->fmt.m, U = s->fmt.p, R = s->rank;
    uint8_t *xi = calloc((size_t)R * S * T, 1), *eta = calloc((size_t)R * T * U, 1),
            *zeta = calloc((size_t)S * U * R, 1);
    for (int h = 0; h < R; h++) {
        const scheme_term *t = &s->terms[h];
        for (int e = 0; e < S * T; e++) xi[h * S * T + e] = (t->f[SCHEME_A] >> e) & 1;
        for (int e = 0; e < T * U; e++) eta[h * T * U + e] = (t->f[SCHEME_B] >> e) & 1;
        for (int i = 0; i < S; i++)
            for (int k = 0; k < U; k++) zeta[(i * U + k) * R + h] = (t->f[SCHEME_C] >> (k * S + i)) & 1;
    }
    cuda_rt_level L = {S, T, U, R, xi, eta, zeta};
    ch->buf[3 * ch->n] = xi, ch->buf[3 * ch->n + 1] = eta, ch->buf[3 * ch->n + 2] = zeta;
    ch->lv[ch->n++] = L;
}

static void chain_free(chain *ch)
{
    for (int i = 0; i < 3 * ch->n; i++) free(ch->buf[i]);
    ch->n = 0;
}

static scheme *strassen(void)
{
    static const uint64_t t[7][3] = {{9, 9, 9}, {12, 1, 10}, {1, 10, 12}, {8, 5, 3},
                                     {3, 8, 5}, {5, 3, 8},   {10, 12, 1}};
    scheme_format f = {2, 2, 2};
    scheme *s = scheme_new(f, SCHEME_RING_F2, 7);
    for (int i = 0; i < 7; i++) scheme_push(s, t[i][0], t[i][1], t[i][2]);
    return s;
}

static uint64_t rng = 0x1234567;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double ceil_wg;
static void bench_kernels(long long n, int reps, double ceil_tc, double ceil_lop, int do_cublas)
{
    const size_t words = (size_t)n * (size_t)(n / 64);
    uint64_t *dA = cuda_rt_malloc(words * 8), *dB = cuda_rt_malloc(words * 8),
             *dC = cuda_rt_malloc(words * 8);
    uint64_t *h_tc[2], *h_x = malloc(words * 8);
    h_tc[0] = malloc(words * 8), h_tc[1] = malloc(words * 8);
    if (!dA || !dB || !dC || !h_tc[0] || !h_tc[1] || !h_x) {
        printf("  n=%lld: out of memory (%s)\n", n, cuda_rt_last_error());
        failures++;
        goto out;
    }
    cuda_rt_random_bits(dA, words, 11 + (unsigned long long)n);
    cuda_rt_random_bits(dB, words, 29 + (unsigned long long)n);
    cuda_bmm_shape sh = {n, n, n, 1, n / 64, n / 64, n / 64, 0, 0, 0};
    const char *mname[2] = {"gf2", "bool"};
    for (int kernel = 0; kernel < CUDA_BMM_KERNELS; kernel++)
        for (int mode = 0; mode < 2; mode++) {
            if (tc_only && kernel == CUDA_BMM_SIMT) continue;
            int r = kernel == CUDA_BMM_SIMT && n >= 65536 ? 2 : reps;
            double t[32];
            cuda_rt_memset(dC, 0xa5, words * 8);
            if (cuda_bmm_device(kernel, mode, dA, dB, dC, &sh, NULL) || cuda_rt_sync()) {
                printf("  kernel %d failed: %s\n", kernel, cuda_rt_last_error());
                failures++;
                continue;
            }
            for (int i = 0; i < r; i++) {
                double t0 = now_ms();
                cuda_bmm_device(kernel, mode, dA, dB, dC, &sh, NULL);
                cuda_rt_sync();
                t[i] = now_ms() - t0;
            }
            const char *ok = "";
            static const char *names[] = {"tensor cores (mma.sync b1)", "CUDA cores (LOP3)",
                                          "tensor cores (wgmma b1)"};
            if (kernel == CUDA_BMM_TC) {
                cuda_rt_memcpy_d2h(h_tc[mode], dC, words * 8);
            } else {
                cuda_rt_memcpy_d2h(h_x, dC, words * 8);
                ok = check(names[kernel], h_x, h_tc[mode], words) ? "= mma.sync" : "MISMATCH";
            }
            add_row(n, names[kernel], mname[mode], median(t, r),
                    kernel == CUDA_BMM_TC ? ceil_tc : kernel == CUDA_BMM_WGMMA ? ceil_wg : ceil_lop, ok);
        }
#if HAVE_CUBLAS
    if (do_cublas) {
        int8_t *a8 = cuda_rt_malloc((size_t)n * n), *b8 = cuda_rt_malloc((size_t)n * n);
        int32_t *c32 = cuda_rt_malloc((size_t)n * n * 4);
        cublasHandle_t hd;
        if (!a8 || !b8 || !c32 || cublasCreate(&hd) != CUBLAS_STATUS_SUCCESS) {
            printf("  n=%lld: cuBLAS baseline skipped (memory or handle)\n", n);
        } else {
            cuda_bmm_bits_to_bytes(dA, n, n, n / 64, a8, n, NULL);
            cuda_bmm_bits_to_bytes(dB, n, n, n / 64, b8, n, NULL);
            const int32_t one = 1, zero = 0;
            /* Column-major: C(j,i) = sum_k Bt8[j][k] A8[i][k] is row-major C[i][j]. */
            int r = n >= 65536 ? 2 : reps;
            double tg[32], tp[2][32];
            for (int i = 0; i <= r; i++) {
                cuda_rt_sync();
                double t0 = now_ms();
                cublasStatus_t s = cublasGemmEx(hd, CUBLAS_OP_T, CUBLAS_OP_N, (int)n, (int)n, (int)n, &one,
                                                b8, CUDA_R_8I, (int)n, a8, CUDA_R_8I, (int)n, &zero, c32,
                                                CUDA_R_32I, (int)n, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
                cuda_rt_sync();
                double t1 = now_ms();
                if (s != CUBLAS_STATUS_SUCCESS) {
                    printf("  cublasGemmEx failed: %d\n", (int)s);
                    failures++;
                    break;
                }
                for (int mode = 0; mode < 2; mode++) {
                    double t2 = now_ms();
                    cuda_bmm_pack_i32(c32, n, n, n, dC, n / 64, mode, NULL);
                    cuda_rt_sync();
                    if (i > 0) tp[mode][i - 1] = now_ms() - t2;
                    if (i == 0) {
                        cuda_rt_memcpy_d2h(h_x, dC, words * 8);
                        check("cublas vs tc", h_x, h_tc[mode], words);
                    }
                }
                if (i > 0) tg[i - 1] = t1 - t0;
            }
            const double g = median(tg, r);
            for (int mode = 0; mode < 2; mode++) {
                char note[96];
                const double pk = median(tp[mode], r);
                snprintf(note, sizeof note, "GEMM %.2f ms + test %.2f ms", g, pk);
                add_row(n, "cuBLAS int8 GEMM + test", mname[mode], g + pk, 0, note);
            }
            cublasDestroy(hd);
        }
        cuda_rt_free(a8), cuda_rt_free(b8), cuda_rt_free(c32);
    }
#else
    (void)do_cublas;
#endif
out:
    cuda_rt_free(dA), cuda_rt_free(dB), cuda_rt_free(dC);
    free(h_tc[0]), free(h_tc[1]), free(h_x);
}

static void bench_plans(long long n, int reps, double ceil_tc, int kernel)
{
    const size_t ld = (size_t)(n / 64), words = (size_t)n * ld;
    uint64_t *A = malloc(words * 8), *B = malloc(words * 8), *C0 = malloc(words * 8), *C = malloc(words * 8);
    if (!A || !B || !C0 || !C) {
        printf("  n=%lld: host memory\n", n);
        failures++;
        goto out;
    }
    for (size_t i = 0; i < words; i++) A[i] = rnd(), B[i] = rnd();
    scheme *st = strassen(), *s444 = NULL;
    {
        const char *dir = getenv("FLIPGRAPH_CORPUS");
        char path[1024];
        snprintf(path, sizeof path, "%s/kauers-moosbauer/444-47-mod2.exp", dir ? dir : "data/corpus");
        scheme_diag d;
        memset(&d, 0, sizeof d);
        s444 = scheme_read_file(path, NULL, &d);
        if (!s444) printf("  note: %s unreadable: %s\n", path, d.msg);
    }
    struct {
        const char *name;
        int nst, n444;
    } plans[] = {{"cubic (plan, 0 levels)", 0, 0}, {"Strassen x1", 1, 0}, {"Strassen x2", 2, 0},
                 {"Strassen x3", 3, 0},            {"Strassen x4", 4, 0}, {"<4,4,4>:47 x1", 0, 1},
                 {"<4,4,4>:47 x2", 0, 2},          {"Strassen + <4,4,4>:47", 1, 1}};
    for (size_t p = 0; p < sizeof plans / sizeof plans[0]; p++) {
        if (plans[p].n444 && !s444) continue;
        chain ch = {0};
        for (int i = 0; i < plans[p].nst; i++) chain_add(&ch, st);
        for (int i = 0; i < plans[p].n444; i++) chain_add(&ch, s444);
        double best = 1e300, tot = 0, inner = 0, lv = 0;
        cuda_rt_stats s;
        char err[256];
        int ok = 1, serial = 0;
        for (int i = 0; i < reps; i++) {
            int rc = cuda_rt_multiply(ch.lv, ch.n, CUDA_BMM_GF2, kernel, (unsigned long long)n,
                                      (unsigned long long)n, (unsigned long long)n, A, ld, B, ld,
                                      p == 0 ? C0 : C, ld, 0, &s, err, sizeof err);
            if (rc) {
                printf("  %s: rc %d: %s\n", plans[p].name, rc, err);
                failures++;
                ok = 0;
                break;
            }
            if (s.ms_device < best) {
                best = s.ms_device, tot = s.ms_total, inner = s.ms_inner;
                lv = s.ms_expand + s.ms_compress + s.ms_pack + s.ms_unpack;
                serial = s.serial_levels;
            }
        }
        if (ok) {
            const char *res = p == 0 ? "reference" : check(plans[p].name, C, C0, words) ? "= cubic" : "MISMATCH";
            char note[96];
            snprintf(note, sizeof note, "inner %.1f, levels+perm %.1f, total %.0f ms, serial %d, %s", inner,
                     lv, tot, serial, res);
            char name[64];
            snprintf(name, sizeof name, "%s [%s]", plans[p].name, kernel == CUDA_BMM_WGMMA ? "wgmma" : "mma.sync");
            add_row(n, name, "gf2", best, ceil_tc, note);
        }
        chain_free(&ch);
    }
    scheme_free(st);
    scheme_free(s444);
out:
    free(A), free(B), free(C0), free(C);
}

int main(int argc, char **argv)
{
    int lg[8] = {14, 15, 16}, nlg = 3, reps = 5, plans = 1, cublas = 1;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--log2", 6)) {
            const char *v = strchr(argv[i], '=') ? strchr(argv[i], '=') + 1 : (i + 1 < argc ? argv[++i] : "");
            nlg = 0;
            for (const char *p = v; *p && nlg < 8;) {
                lg[nlg++] = atoi(p);
                p = strchr(p, ',');
                if (!p) break;
                p++;
            }
        } else if (!strncmp(argv[i], "--reps", 6)) {
            const char *v = strchr(argv[i], '=') ? strchr(argv[i], '=') + 1 : (i + 1 < argc ? argv[++i] : "5");
            reps = atoi(v);
            if (reps < 1) reps = 1;
            if (reps > 31) reps = 31;
        } else if (!strcmp(argv[i], "--no-plans")) {
            plans = 0;
        } else if (!strcmp(argv[i], "--no-cublas")) {
            cublas = 0;
        } else if (!strcmp(argv[i], "--tc-only")) {
            tc_only = 1, cublas = 0, plans = 0;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: bench_gpu_multiply [--log2 14,15,16] [--reps 5] [--no-plans] [--no-cublas] [--tc-only]\n");
            return 0;
        } else {
            fprintf(stderr, "bench_gpu_multiply: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (cuda_device_count() <= 0) {
        printf("skipped: no GPU visible\n");
        return 0;
    }
    char dev[256];
    cuda_device_describe(dev, sizeof dev);
    /* Measured ceilings (docs/device.md): mma.sync b1 AND.popc, LOP3. */
    /* wgmma: 1.5e16 measured on an H100; no H200 figure yet, the same is used. */
    const double ceil_tc = strstr(dev, "H200") ? 9.7e15 : 8.6e15, ceil_lop = 1.06e15;
    ceil_wg = 1.5e16;
    printf("bench_gpu_multiply: %s; ceilings: mma.sync b1 %.2g, wgmma b1 %.2g, LOP3 %.2g bit-ops/s; TC stages %s\n", dev,
           ceil_tc, ceil_wg, ceil_lop, getenv("FLIPGRAPH_TC_STAGES") ? getenv("FLIPGRAPH_TC_STAGES") : "4");
    for (int i = 0; i < nlg; i++) {
        const long long n = 1ll << lg[i];
        printf("n = 2^%d\n", lg[i]);
        bench_kernels(n, reps, ceil_tc, ceil_lop, cublas);
        if (plans) {
            bench_plans(n, n >= 65536 ? 2 : 3, ceil_wg, CUDA_BMM_WGMMA);
            bench_plans(n, n >= 65536 ? 2 : 3, ceil_tc, CUDA_BMM_TC);
        }
    }
    printf("\n| n | method | product | ms | effective Pbop/s | of ceiling | note |\n");
    printf("| --- | --- | --- | ---: | ---: | ---: | --- |\n");
    for (int i = 0; i < nrows; i++) {
        char frac[16] = "";
        if (rows[i].frac > 0) snprintf(frac, sizeof frac, "%.0f%%", 100 * rows[i].frac);
        printf("| 2^%d | %s | %s | %.2f | %.3f | %s | %s |\n", __builtin_ctzll((unsigned long long)rows[i].n),
               rows[i].method, rows[i].mode, rows[i].ms, rows[i].pbops, frac, rows[i].note);
    }
    printf("%d mismatches or failures\n", failures);
    return failures ? 1 : 0;
}
