/* GPU float-product checks (docs/float.md): rt_fmul_gpu (cuda/rt_fmul.cu, cuBLAS
 * base case, addition kernels) against the long double reference on awkward
 * shapes within the bound of docs/float.md, exactly on small integers, and
 * against cuBLAS's own GEMM on larger sizes; SGEMM without TF32 unless asked.
 *
 * A plain executable (the GPU machine has no Criterion): prints one line per
 * failure with the seed that replays it, then "N passed, N failed"; exit 1 on a
 * failure.  Where no GPU is visible it says "skipped: no GPU visible" and exits
 * 77 (ctest counts it as skipped).  Replay: FLIPGRAPH_SEED=<seed> gpu_float.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/fg_cuda.h"
#include "runtime/runtime.h"
#include "schemes/scheme.h"
#include "search/search.h"
#include "verify/verify.h"
#include "gpu_check.h"
#include "test_seed.h"

static uint64_t g_seed;

static void check(bool ok, const char *what)
{
    if (ok)
        passed++;
    else
        gpu_check_fail("FAIL (seed %" PRIu64 "): %s\n", g_seed, what);
}

/* A <3,3,3> rank-23 scheme over Z: CPU search to rank 23, then Hensel lifting. */
static scheme *z_333_23(uint64_t seed)
{
    for (int attempt = 0; attempt < 20; attempt++) {
        search_params p;
        search_params_default(&p);
        p.fmt = (scheme_format){3, 3, 3};
        p.target_rank = 23;
        p.time_limit = 60;
        p.threads = 1;
        p.seed = seed + (uint64_t)attempt;
        p.progress_every = 0;
        search_result r;
        memset(&r, 0, sizeof r);
        if (search_run_cpu(&p, NULL, 0, NULL, &r) == SEARCH_REACHED && r.best && r.best->rank == 23) {
            verify_lift_result lr;
            scheme *z = verify_lift(r.best, &lr);
            search_result_free(&r);
            if (z)
                return z;
        } else {
            search_result_free(&r);
        }
    }
    return NULL;
}

static void fill_ints(rt_fmatrix *m, scheme_rng *rng, int range)
{
    for (uint64_t r = 0; r < m->rows; r++)
        for (uint64_t c = 0; c < m->cols; c++)
            rt_fmatrix_set(m, r, c, (long double)((int)(scheme_rng_next(rng) % (2u * range + 1)) - range));
}

typedef struct {
    const scheme *s[3];
    const char *name;
    int levels;
    rt_fsums sums; /* AUTO: fused on the GPU */
    int streams;
} chain_t;

/* A plan for the chain with its schedule. */
static bool chain_plan(const chain_t *c, rt_fplan *p, char *err, size_t errlen)
{
    const char *names[3] = {c->name, c->name, c->name};
    if (!rt_fplan_init(p, c->s, names, c->levels, NULL, err, errlen))
        return false;
    p->sums = c->sums;
    p->streams = c->streams;
    return true;
}

/* The fused schedule must have run where asked and where the first level's
 * blocks are not empty (otherwise the test would check the fallback only). */
static void check_fused(const chain_t *c, const rt_fplan *p, const rt_fstats *st, uint64_t M, uint64_t K, uint64_t N)
{
    if (c->levels == 0 || c->sums == RT_FSUMS_PLAIN)
        return;
    if (M < (uint64_t)p->lv[0].n || K < (uint64_t)p->lv[0].m || N < (uint64_t)p->lv[0].p)
        return;
    char what[512];
    snprintf(what, sizeof what, "%s %" PRIu64 "x%" PRIu64 "x%" PRIu64 ": %d levels ran fused, expected at least 1",
             c->name, M, K, N, st->fused_levels);
    check(st->fused_levels >= 1, what);
}

static void against_reference(const chain_t *c, rt_ftype t, uint64_t M, uint64_t K, uint64_t N, bool ints,
                              scheme_rng *rng)
{
    char what[2048], err[1024];
    rt_fplan p;
    if (!chain_plan(c, &p, err, sizeof err)) {
        snprintf(what, sizeof what, "%s: plan: %s", c->name, err);
        check(false, what);
        return;
    }
    rt_fmatrix *A = rt_fmatrix_new(M, K, t), *B = rt_fmatrix_new(K, N, t), *C = rt_fmatrix_new(M, N, t);
    if (ints) {
        fill_ints(A, rng, 3);
        fill_ints(B, rng, 3);
    } else {
        rt_fmatrix_random(A, rng);
        rt_fmatrix_random(B, rng);
    }
    memset(C->data, 0x7f, M * N * rt_ftype_size(t));
    rt_fstats fs;
    memset(&fs, 0, sizeof fs);
    rt_status st = rt_fmul_gpu(&p, A, B, C, 0, false, 1, &fs, err, sizeof err);
    if (st == RT_OK)
        check_fused(c, &p, &fs, M, K, N);
    if (st != RT_OK) {
        snprintf(what, sizeof what, "%s %s %" PRIu64 "x%" PRIu64 "x%" PRIu64 ": %s", c->name, rt_ftype_name(t),
                 M, K, N, err);
        check(false, what);
    } else {
        long double *R = rt_fmul_reference_ld(A, B);
        double e = rt_fmatrix_max_error(C, R);
        double bound = ints ? 0.0 : 2 * rt_fplan_error_bound(&p, t, K, rt_fmatrix_max_abs(A), rt_fmatrix_max_abs(B));
        snprintf(what, sizeof what, "%s %s %" PRIu64 "x%" PRIu64 "x%" PRIu64 "%s: error %.3e, allowed %.3e",
                 c->name, rt_ftype_name(t), M, K, N, ints ? " (integers)" : "", e, bound);
        check(e <= bound, what);
        free(R);
    }
    rt_fmatrix_free(A);
    rt_fmatrix_free(B);
    rt_fmatrix_free(C);
    rt_fplan_free(&p);
}

/* Larger: the chain against cuBLAS's GEMM alone, within both bounds. */
static void against_cublas(const chain_t *c, rt_ftype t, uint64_t M, uint64_t K, uint64_t N, scheme_rng *rng)
{
    char what[2048], err[1024];
    rt_fplan p, none;
    memset(&none, 0, sizeof none);
    if (!chain_plan(c, &p, err, sizeof err)) {
        check(false, err);
        return;
    }
    rt_fmatrix *A = rt_fmatrix_new(M, K, t), *B = rt_fmatrix_new(K, N, t), *C = rt_fmatrix_new(M, N, t),
               *D = rt_fmatrix_new(M, N, t);
    rt_fmatrix_random(A, rng);
    rt_fmatrix_random(B, rng);
    rt_fstats fs;
    memset(&fs, 0, sizeof fs);
    rt_status s1 = rt_fmul_gpu(&p, A, B, C, 0, false, 1, &fs, err, sizeof err);
    if (s1 == RT_OK)
        check_fused(c, &p, &fs, M, K, N);
    rt_status s2 = s1 == RT_OK ? rt_fmul_gpu(&none, A, B, D, 0, false, 1, NULL, err, sizeof err) : s1;
    if (s1 != RT_OK || s2 != RT_OK) {
        snprintf(what, sizeof what, "%s %s %" PRIu64 "x%" PRIu64 "x%" PRIu64 ": %s", c->name, rt_ftype_name(t),
                 M, K, N, err);
        check(false, what);
    } else {
        double amax = rt_fmatrix_max_abs(A), bmax = rt_fmatrix_max_abs(B);
        double bound = 2 * (rt_fplan_error_bound(&p, t, K, amax, bmax) + rt_fplan_error_bound(&none, t, K, amax, bmax));
        double worst = 0;
        for (uint64_t i = 0; i < M; i++)
            for (uint64_t j = 0; j < N; j++) {
                double e = (double)fabsl(rt_fmatrix_get(C, i, j) - rt_fmatrix_get(D, i, j));
                if (!(e <= worst))
                    worst = e;
            }
        snprintf(what, sizeof what, "%s %s %" PRIu64 "x%" PRIu64 "x%" PRIu64 ": |chain - cuBLAS| %.3e, allowed %.3e",
                 c->name, rt_ftype_name(t), M, K, N, worst, bound);
        check(worst <= bound, what);
        double se = rt_fmul_sample_error(A, B, C, 64, rng);
        snprintf(what, sizeof what, "%s %s %" PRIu64 "x%" PRIu64 "x%" PRIu64 ": sampled error %.3e, allowed %.3e",
                 c->name, rt_ftype_name(t), M, K, N, se, bound);
        check(se <= bound, what);
    }
    rt_fmatrix_free(A);
    rt_fmatrix_free(B);
    rt_fmatrix_free(C);
    rt_fmatrix_free(D);
    rt_fplan_free(&p);
}

/* SGEMM is FP32 unless --tf32: on K = 8192 the FP32 error is within the FP32
 * bound, which TF32's 10-bit inputs would exceed by far. */
static void tf32_off_unless_asked(scheme_rng *rng)
{
    char what[2048], err[1024];
    uint64_t M = 512, K = 8192, N = 512;
    rt_fplan none;
    memset(&none, 0, sizeof none);
    rt_fmatrix *A = rt_fmatrix_new(M, K, RT_F32), *B = rt_fmatrix_new(K, N, RT_F32), *C = rt_fmatrix_new(M, N, RT_F32);
    rt_fmatrix_random(A, rng);
    rt_fmatrix_random(B, rng);
    double amax = rt_fmatrix_max_abs(A), bmax = rt_fmatrix_max_abs(B);
    double bound = rt_fplan_error_bound(&none, RT_F32, K, amax, bmax);
    for (int tf = 0; tf < 2; tf++) {
        rt_status st = rt_fmul_gpu(&none, A, B, C, 0, tf, 1, NULL, err, sizeof err);
        if (st != RT_OK) {
            check(false, err);
            continue;
        }
        double e = rt_fmul_sample_error(A, B, C, 256, rng);
        snprintf(what, sizeof what, "SGEMM %s TF32, K = 8192: sampled error %.3e, FP32 bound %.3e%s", tf ? "with" : "without",
                 e, bound, tf ? " x 2^13" : "");
        check(e <= (tf ? bound * 0x1p13 : bound), what);
        printf("   SGEMM %s TF32: sampled error %.3e (FP32 bound %.3e)\n", tf ? "with" : "without", e, bound);
    }
    /* TF32 with f64 is refused. */
    rt_fmatrix *D = rt_fmatrix_new(4, 4, RT_F64);
    check(rt_fmul_gpu(&none, D, D, D, 0, true, 1, NULL, err, sizeof err) == RT_EDIMS, "--tf32 with f64 refused");
    rt_fmatrix_free(D);
    rt_fmatrix_free(A);
    rt_fmatrix_free(B);
    rt_fmatrix_free(C);
}

int main(void)
{
    gpu_check_begin();
    if (cuda_device_count() <= 0) {
        printf("skipped: no GPU visible%s\n", cuda_compiled_in() ? "" : " (built without CUDA)");
        return 77; /* ctest's SKIP_RETURN_CODE: counted as skipped, not passed */
    }
    char dev[256];
    cuda_device_describe(dev, sizeof dev);
    g_seed = tc_seed();
    /* Under compute-sanitizer (FLIPGRAPH_SANITIZED=1, scripts/device_float.sh) the
     * kernels run many times slower: small sizes only. */
    const bool small = getenv("FLIPGRAPH_SANITIZED") != NULL;
    printf("gpu_float: %s, seed %" PRIu64 "%s\n", dev, g_seed, small ? " (small sizes)" : "");
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    char err[256];
    scheme *st = rt_scheme_builtin("strassen", err, sizeof err);
    scheme *l = z_333_23(g_seed);
    check(l != NULL, "a <3,3,3>:23 over Z from search and lifting");
    if (!st || !l)
        return 1;
    /* Each chain fused (the GPU's default), fused with its last level's GEMMs on
     * three streams, and per product (plain). */
    const chain_t chains[] = {
        {{NULL}, "cuBLAS alone", 0, RT_FSUMS_AUTO, 1},
        {{st}, "strassen", 1, RT_FSUMS_AUTO, 1},
        {{st}, "strassen@plain", 1, RT_FSUMS_PLAIN, 1},
        {{st, st}, "strassen,strassen", 2, RT_FSUMS_AUTO, 1},
        {{st, st}, "strassen,strassen@s3", 2, RT_FSUMS_AUTO, 3},
        {{st, st}, "strassen,strassen@plain", 2, RT_FSUMS_PLAIN, 1},
        {{l}, "333-23", 1, RT_FSUMS_AUTO, 1},
        {{l}, "333-23@s4", 1, RT_FSUMS_AUTO, 4},
        {{l, st}, "333-23,strassen", 2, RT_FSUMS_AUTO, 1},
        {{l, st}, "333-23,strassen@plain", 2, RT_FSUMS_PLAIN, 1},
        {{st, l, st}, "strassen,333-23,strassen@s2", 3, RT_FSUMS_AUTO, 2},
    };
    const int nchains = (int)(sizeof chains / sizeof *chains);
    {
        /* Which fused passes the 333-23 exercises: sources (<= 16) or outputs in registers. */
        rt_fplan p;
        if (chain_plan(&chains[6], &p, err, sizeof err)) {
            printf("   333-23's fused tables: %d A sums, %d B sums, %d products through Q (C pass: %s in "
                   "registers)\n", p.lv[0].nt, p.lv[0].ns, p.lv[0].nq, p.lv[0].nq <= 16 ? "sources" : "outputs");
            rt_fplan_free(&p);
        }
    }
    /* Odd shapes (peeling; rows of blocks not a multiple of 16 bytes: the fused
     * kernels' one-entry path) and even ones (their 16-byte path). */
    static const uint64_t shapes[][3] = {{1, 1, 1}, {2, 2, 2}, {7, 9, 11}, {64, 64, 64}, {65, 63, 67},
                                         {1, 200, 1}, {200, 1, 200}, {99, 100, 101}, {37, 5, 80}, {301, 257, 199},
                                         {256, 128, 384}, {144, 288, 72}};
    for (size_t i = 0; i < (small ? 5 : sizeof shapes / sizeof *shapes); i++)
        for (int c = 0; c < nchains; c++) {
            against_reference(&chains[c], RT_F64, shapes[i][0], shapes[i][1], shapes[i][2], false, &rng);
            against_reference(&chains[c], RT_F32, shapes[i][0], shapes[i][1], shapes[i][2], false, &rng);
            against_reference(&chains[c], RT_F64, shapes[i][0], shapes[i][1], shapes[i][2], true, &rng);
        }
    /* Random shapes. */
    for (int round = 0; round < (small ? 4 : 30); round++) {
        const chain_t *c = &chains[scheme_rng_next(&rng) % (uint64_t)nchains];
        uint64_t M = 1 + scheme_rng_next(&rng) % 400, K = 1 + scheme_rng_next(&rng) % 400,
                 N = 1 + scheme_rng_next(&rng) % 400;
        against_reference(c, round % 2 ? RT_F32 : RT_F64, M, K, N, false, &rng);
    }
    static const uint64_t large[][3] = {{2048, 2048, 2048}, {3001, 2500, 2777}, {4096, 1000, 3000}};
    /* Large: every chain (FLIPGRAPH_GPU_FLOAT_QUICK=1: the first large
     * shape only, for scripts/device_float.sh's time budget). */
    const bool quick = getenv("FLIPGRAPH_GPU_FLOAT_QUICK") != NULL;
    for (size_t i = 0; i < (small ? 0 : quick ? 1 : sizeof large / sizeof *large); i++)
        for (int c = 1; c < nchains; c++) {
            against_cublas(&chains[c], RT_F64, large[i][0], large[i][1], large[i][2], &rng);
            against_cublas(&chains[c], RT_F32, large[i][0], large[i][1], large[i][2], &rng);
        }
    if (!small)
        tf32_off_unless_asked(&rng);
    scheme_free(st);
    scheme_free(l);
    return gpu_check_summary();
}
