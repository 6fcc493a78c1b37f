/* GPU runtime checks (docs/gpu-runtime.md): differential tests of the GPU executor
 * (cuda_rt_multiply) against a CPU reference on fresh random inputs.
 *
 * A plain executable (the GPU machine has no Criterion): prints one line per
 * failure with the seed that replays it, then "N passed, N failed"; exit 1 on a
 * failure.  Where no GPU is visible it says "skipped: no GPU visible" and exits 77
 * (ctest counts it as skipped).
 * Replay: FLIPGRAPH_SEED=<seed> gpu_runtime.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/fg_cuda.h"
#include "export/export.h"
#include "runtime/runtime.h"
#include "schemes/scheme.h"
#include "gpu_check.h"
#include "test_seed.h"

static const char *kname(int k) { return k == CUDA_BMM_TC ? "tc" : k == CUDA_BMM_SIMT ? "simt" : k == CUDA_BMM_WGMMA ? "wgmma" : "auto"; }
static uint64_t g_seed;

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct mat {
    long long rows, cols, ld;
    uint64_t *w;
} mat;

static mat mat_new(long long rows, long long cols)
{
    mat m = {rows, cols, (cols + 63) / 64, NULL};
    m.w = calloc((size_t)(rows * m.ld), 8);
    if (!m.w) {
        fprintf(stderr, "out of memory\n");
        exit(3);
    }
    return m;
}

/* Each bit 1 with probability about density (a multiple of 1/64). */
static void mat_random(mat *m, double density)
{
    int k = (int)(density * 64 + 0.5);
    for (long long i = 0; i < m->rows; i++)
        for (long long w = 0; w < m->ld; w++) {
            uint64_t x = 0;
            if (k == 32) {
                x = rnd();
            } else {
                for (int b = 0; b < 64; b++)
                    if ((int)(rnd() & 63) < k) x |= 1ull << b;
            }
            long long lo = w * 64;
            if (m->cols - lo < 64) x &= (1ull << (m->cols - lo)) - 1;
            /* Garbage past the last column must be ignored by the GPU. */
            if (m->cols - lo < 64 && (rnd() & 1)) x |= ~((1ull << (m->cols - lo)) - 1);
            m->w[i * m->ld + w] = x;
        }
}

/* The plain reference: row k of B added to row i of C for each set A[i,k]. */
static void mul_ref(const mat *A, const mat *B, mat *C, int boolean)
{
    memset(C->w, 0, (size_t)(C->rows * C->ld) * 8);
    for (long long i = 0; i < A->rows; i++) {
        uint64_t *c = C->w + i * C->ld;
        for (long long k = 0; k < A->cols; k++) {
            if (!((A->w[i * A->ld + k / 64] >> (k % 64)) & 1)) continue;
            const uint64_t *b = B->w + k * B->ld;
            for (long long w = 0; w < C->ld; w++) c[w] = boolean ? (c[w] | b[w]) : (c[w] ^ b[w]);
        }
        long long lo = (C->ld - 1) * 64;
        if (C->cols - lo < 64) c[C->ld - 1] &= (1ull << (C->cols - lo)) - 1;
    }
}

static long long mat_diff(const mat *x, const mat *y, long long *fr, long long *fc)
{
    long long n = 0;
    *fr = *fc = -1;
    for (long long i = 0; i < x->rows; i++)
        for (long long w = 0; w < x->ld; w++) {
            uint64_t d = x->w[i * x->ld + w] ^ y->w[i * y->ld + w];
            if (d) {
                if (*fr < 0) *fr = i, *fc = w * 64 + __builtin_ctzll(d);
                n += __builtin_popcountll(d);
            }
        }
    return n;
}

/* ---- plans built from schemes (layouts of cuda_rt_level) ---- */

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
            for (int k = 0; k < U; k++)
                zeta[(i * U + k) * R + h] = (t->f[SCHEME_C] >> (k * S + i)) & 1;
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
    /* Strassen (1969); a: bit i*2+j, b: bit j*2+k, c: bit k*2+i (transposed). */
    static const uint64_t t[7][3] = {{9, 9, 9},  {12, 1, 10}, {1, 10, 12}, {8, 5, 3},
                                     {3, 8, 5},  {5, 3, 8},   {10, 12, 1}};
    scheme_format f = {2, 2, 2};
    scheme *s = scheme_new(f, SCHEME_RING_F2, 7);
    for (int i = 0; i < 7; i++) scheme_push(s, t[i][0], t[i][1], t[i][2]);
    return s;
}

static scheme *corpus(const char *rel)
{
    const char *dir = getenv("FLIPGRAPH_CORPUS");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "data/corpus", rel);
    scheme_diag d;
    memset(&d, 0, sizeof d);
    scheme *s = scheme_read_file(path, NULL, &d);
    if (!s) { /* the corpus is part of the repository (data/corpus): missing is a failure */
        gpu_check_fail("FAIL corpus %s:%d:%d: %s (its cases cannot run)\n", path, d.line, d.col, d.msg);
    }
    return s;
}

/* ---- one differential case ---- */

static void check_case(const char *what, const chain *ch, int mode, int kernel, long long n,
                       long long k, long long p)
{
    const uint64_t case_seed = rng_state;
    mat A = mat_new(n, k), B = mat_new(k, p), C = mat_new(n, p), R = mat_new(n, p);
    /* Boolean: density near 1/sqrt(k) so that entries are not all 1. */
    double dens = mode == CUDA_BMM_BOOL ? 1.0 / (1.0 + __builtin_sqrt((double)k)) : 0.5;
    if (dens < 1.0 / 64) dens = 1.0 / 64;
    mat_random(&A, dens);
    mat_random(&B, dens);
    for (long long i = 0; i < C.rows * C.ld; i++) C.w[i] = rnd(); /* poison */
    char err[256] = "";
    cuda_rt_stats st;
    int rc = cuda_rt_multiply(ch ? ch->lv : NULL, ch ? ch->n : 0, mode, kernel, (unsigned long long)n,
                              (unsigned long long)k, (unsigned long long)p, A.w, (size_t)A.ld, B.w,
                              (size_t)B.ld, C.w, (size_t)C.ld, 0, &st, err, sizeof err);
    /* The reference sees A and B without the garbage past the last column. */
    for (long long i = 0; i < A.rows; i++)
        if (A.cols % 64) A.w[i * A.ld + A.ld - 1] &= (1ull << (A.cols % 64)) - 1;
    for (long long i = 0; i < B.rows; i++)
        if (B.cols % 64) B.w[i * B.ld + B.ld - 1] &= (1ull << (B.cols % 64)) - 1;
    if (rc != 0) {
        gpu_check_fail("FAIL %s %s %s %lldx%lldx%lld: rc %d: %s (seed %" PRIu64 ", case state %" PRIu64 ")\n",
                       what, mode ? "bool" : "gf2", kname(kernel), n, k, p, rc, err, g_seed, case_seed);
    } else {
        mul_ref(&A, &B, &R, mode == CUDA_BMM_BOOL);
        long long fr, fc, bad = mat_diff(&C, &R, &fr, &fc);
        if (bad) {
            gpu_check_fail("FAIL %s %s %s %lldx%lldx%lld: %lld entries differ, first (%lld,%lld) "
                           "[serial %d] (seed %" PRIu64 ")\n",
                           what, mode ? "bool" : "gf2", kname(kernel), n, k, p, bad, fr, fc,
                           st.serial_levels, g_seed);
        } else {
            passed++;
        }
    }
    free(A.w), free(B.w), free(C.w), free(R.w);
}

/* The streaming session (the host layer's GPU executor) on `count` subproblems
 * of one size, in its order (submit i, finish i-1, uploaded i), each against the
 * reference; A and B are overwritten right after uploaded(i), as the host
 * layer's sums do. */
static void check_session(const char *what, const chain *ch, int mode, long long n, long long k, long long p,
                          int count)
{
    char err[256] = "";
    int code = 0;
    cuda_rt_session *se = cuda_rt_session_new(ch ? ch->lv : NULL, ch ? ch->n : 0, mode, CUDA_BMM_AUTO,
                                              (unsigned long long)n, (unsigned long long)k,
                                              (unsigned long long)p, 0, 0.0, &code, err, sizeof err);
    if (!se) {
        gpu_check_fail("FAIL session %s: rc %d: %s\n", what, code, err);
        return;
    }
    double dens = mode == CUDA_BMM_BOOL ? 1.0 / (1.0 + __builtin_sqrt((double)k)) : 0.5;
    if (dens < 1.0 / 64) dens = 1.0 / 64;
    mat A[2], B[2], R[2], C = mat_new(n, p);
    for (int s2 = 0; s2 < 2; s2++) A[s2] = mat_new(n, k), B[s2] = mat_new(k, p), R[s2] = mat_new(n, p);
    int bad_total = 0;
    for (int i = 0; i <= count && !bad_total; i++) {
        const int s2 = i % 2;
        if (i < count) {
            mat_random(&A[s2], dens);
            mat_random(&B[s2], dens);
            mul_ref(&A[s2], &B[s2], &R[s2], mode == CUDA_BMM_BOOL);
            if (cuda_rt_session_submit(se, (unsigned long long)i, A[s2].w, (size_t)A[s2].ld, B[s2].w,
                                       (size_t)B[s2].ld, err, sizeof err) != 0) {
                printf("FAIL session %s: submit %d: %s\n", what, i, err);
                bad_total = 1;
                break;
            }
        }
        if (i > 0) {
            for (long long w = 0; w < C.rows * C.ld; w++) C.w[w] = rnd(); /* poison */
            if (cuda_rt_session_finish(se, (unsigned long long)(i - 1), C.w, (size_t)C.ld, err, sizeof err) != 0) {
                printf("FAIL session %s: finish %d: %s\n", what, i - 1, err);
                bad_total = 1;
                break;
            }
            long long fr, fc, bad = mat_diff(&C, &R[(i - 1) % 2], &fr, &fc);
            if (bad) {
                printf("FAIL session %s %lldx%lldx%lld: subproblem %d: %lld entries differ, first (%lld,%lld) "
                       "(seed %" PRIu64 ")\n", what, n, k, p, i - 1, bad, fr, fc, g_seed);
                bad_total = 1;
            }
        }
        if (i < count && cuda_rt_session_uploaded(se, (unsigned long long)i, err, sizeof err) != 0) {
            printf("FAIL session %s: uploaded %d: %s\n", what, i, err);
            bad_total = 1;
        }
        if (i < count) /* the operands may change now: the product must not see it */
            for (long long w = 0; w < A[s2].rows * A[s2].ld; w++) A[s2].w[w] = ~A[s2].w[w];
    }
    cuda_rt_session_stats ss;
    cuda_rt_session_stats_get(se, &ss);
    if (!bad_total && (ss.products != (unsigned long long)count || !(ss.ms_compute > 0))) {
        printf("FAIL session %s: stats: %llu products, %.3f ms of products\n", what, ss.products, ss.ms_compute);
        bad_total = 1;
    }
    cuda_rt_session_free(se);
    if (bad_total)
        failed++;
    else
        passed++;
    for (int s2 = 0; s2 < 2; s2++) free(A[s2].w), free(B[s2].w), free(R[s2].w);
    free(C.w);
}

/* The same product by the CPU executor (runtime/, the reference) and by the
 * GPU executor on the plan's own arrays (export/plan.c), as `flipgraph multiply
 * --backend cpu|gpu` run them. */
static void check_vs_cpu(const char *what, const scheme *const *chain, int nl, int boolean,
                         long long n, long long k, long long p)
{
    export_plan plan;
    memset(&plan, 0, sizeof plan);
    char err[512] = "";
    const char *names[4] = {NULL, NULL, NULL, NULL};
    if (!export_plan_init(&plan, chain, names, nl, boolean, err, sizeof err) ||
        !export_plan_size(&plan, (uint64_t)n, (uint64_t)k, (uint64_t)p, err, sizeof err)) {
        gpu_check_fail("FAIL %s: plan: %s\n", what, err);
        return;
    }
    rt_matrix *A = rt_matrix_new((uint64_t)n, (uint64_t)k), *B = rt_matrix_new((uint64_t)k, (uint64_t)p),
              *C = rt_matrix_new((uint64_t)n, (uint64_t)p), *G = rt_matrix_new((uint64_t)n, (uint64_t)p);
    if (!A || !B || !C || !G) {
        fprintf(stderr, "out of memory\n");
        exit(3);
    }
    const int thr = boolean ? (int)(64.0 / (1.0 + __builtin_sqrt((double)k))) + 1 : 32;
    for (uint64_t i = 0; i < A->rows * A->stride; i++) {
        uint64_t x = 0;
        for (int b = 0; b < 64; b++) x |= (uint64_t)((int)(rnd() & 63) < thr) << b;
        A->w[i] = x;
    }
    for (uint64_t i = 0; i < B->rows * B->stride; i++) {
        uint64_t x = 0;
        for (int b = 0; b < 64; b++) x |= (uint64_t)((int)(rnd() & 63) < thr) << b;
        B->w[i] = x;
    }
    rt_matrix_mask_tail(A);
    rt_matrix_mask_tail(B);
    for (uint64_t i = 0; i < G->rows * G->stride; i++) G->w[i] = rnd(); /* poison */
    rt_status s = rt_execute(&plan, A, B, C, 0, 0, NULL, err, sizeof err);
    if (s != RT_OK) {
        gpu_check_fail("FAIL %s: CPU executor: %s\n", what, err);
        goto out;
    }
    cuda_rt_level lv[EXPORT_PLAN_MAX_LEVELS];
    for (int l = 0; l < plan.levels; l++) {
        const export_plan_level *L = &plan.level[l];
        cuda_rt_level x = {L->s, L->t, L->u, L->r, L->xi, L->eta, L->zeta};
        lv[l] = x;
    }
    int rc = cuda_rt_multiply(lv, plan.levels, boolean ? CUDA_BMM_BOOL : CUDA_BMM_GF2, CUDA_BMM_AUTO,
                              (unsigned long long)n, (unsigned long long)k, (unsigned long long)p, A->w,
                              (size_t)A->stride, B->w, (size_t)B->stride, G->w, (size_t)G->stride, 0, NULL,
                              err, sizeof err);
    if (rc) {
        gpu_check_fail("FAIL %s: GPU executor rc %d: %s\n", what, rc, err);
        goto out;
    }
    rt_diff d;
    rt_matrix_compare(C, G, &d);
    if (!d.equal) {
        gpu_check_fail("FAIL %s %lldx%lldx%lld: GPU and CPU executors differ in %" PRIu64 " entries, first (%" PRIu64
                       ",%" PRIu64 ") (seed %" PRIu64 ")\n",
                       what, n, k, p, d.count, d.first_row, d.first_col, g_seed);
    } else {
        passed++;
    }
out:
    rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(C), rt_matrix_free(G);
    export_plan_free(&plan);
}

/* The host layer (runtime/host.c) with GPU executors under a device limit that
 * forces subproblems, against the CPU executor in core. */
static void check_host(const char *what, const scheme *const *chain, int nl, int boolean, long long n,
                       long long k, long long p, const rt_executor *ex, int nex, double max_dev)
{
    char err[1024];
    export_plan plan;
    if (!export_plan_init(&plan, chain, NULL, nl, boolean, err, sizeof err) ||
        !export_plan_size(&plan, (uint64_t)n, (uint64_t)k, (uint64_t)p, err, sizeof err)) {
        gpu_check_fail("FAIL %s: plan: %s\n", what, err);
        return;
    }
    rt_matrix *A = rt_matrix_new((uint64_t)n, (uint64_t)k), *B = rt_matrix_new((uint64_t)k, (uint64_t)p),
              *C = rt_matrix_new((uint64_t)n, (uint64_t)p), *G = rt_matrix_new((uint64_t)n, (uint64_t)p);
    int thr = boolean ? 1 : 32; /* Boolean: sparse, else an all-ones product */
    for (uint64_t i = 0; i < A->rows * A->stride; i++) {
        uint64_t x = 0;
        for (int b = 0; b < 64; b++) x |= (uint64_t)((int)(rnd() & 63) < thr) << b;
        A->w[i] = x;
    }
    for (uint64_t i = 0; i < B->rows * B->stride; i++) {
        uint64_t x = 0;
        for (int b = 0; b < 64; b++) x |= (uint64_t)((int)(rnd() & 63) < thr) << b;
        B->w[i] = x;
    }
    rt_matrix_mask_tail(A);
    rt_matrix_mask_tail(B);
    for (uint64_t i = 0; i < G->rows * G->stride; i++) G->w[i] = rnd(); /* poison */
    rt_host_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.exec = ex, cfg.n_exec = nex, cfg.max_device_bytes = max_dev;
    rt_host_split sp;
    rt_status s = rt_execute(&plan, A, B, C, 0, 0, NULL, err, sizeof err);
    if (s != RT_OK) {
        gpu_check_fail("FAIL %s: CPU executor: %s\n", what, err);
    } else if ((s = rt_host_choose(&plan, &cfg, &sp, err, sizeof err)) != RT_OK) {
        gpu_check_fail("FAIL %s: rt_host_choose: %s\n", what, err);
    } else if (sp.in_core) {
        gpu_check_fail("FAIL %s: the device limit did not force subproblems\n", what);
    } else if ((s = rt_host_execute(&plan, &sp, &cfg, A, B, G, NULL, err, sizeof err)) != RT_OK) {
        gpu_check_fail("FAIL %s: rt_host_execute: %s\n", what, err);
    } else {
        rt_diff d;
        rt_matrix_compare(C, G, &d);
        char desc[256];
        if (!d.equal) {
            gpu_check_fail("FAIL %s %lldx%lldx%lld (%s): host layer and CPU executor differ in %" PRIu64
                           " entries (seed %" PRIu64 ")\n",
                           what, n, k, p, rt_host_describe(&sp, desc, sizeof desc), d.count, g_seed);
        } else {
            passed++;
        }
    }
    rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(C), rt_matrix_free(G);
    export_plan_free(&plan);
}

static void expect_rc(const char *what, int got, int want)
{
    if (got == want) {
        passed++;
    } else {
        gpu_check_fail("FAIL %s: rc %d, expected %d\n", what, got, want);
    }
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
    rng_state = g_seed;
    const int small = getenv("FLIPGRAPH_SANITIZED") != NULL;
    printf("gpu_runtime: %s, seed %" PRIu64 "%s\n", dev, g_seed, small ? " (small sizes)" : "");

    /* The cubic product on both inner kernels, GF(2) and Boolean; sizes on and
     * off the kernels' blocks (128 x 256 x 512 and 128 x 128 x 256). */
    static const long long sz[][3] = {{1, 1, 1},     {64, 64, 64},    {100, 200, 300},
                                      {256, 1024, 512}, {128, 512, 256}, {257, 513, 1025},
                                      {1000, 777, 1500}, {129, 4096, 65}};
    const int nsz = small ? 4 : (int)(sizeof sz / sizeof sz[0]);
    for (int kernel = 0; kernel < CUDA_BMM_KERNELS; kernel++)
        for (int mode = 0; mode < 2; mode++)
            for (int i = 0; i < nsz; i++) check_case("cubic", NULL, mode, kernel, sz[i][0], sz[i][1], sz[i][2]);

    /* Chains of schemes (GF(2)): Strassen, <4,4,4>:47, <2,3,4>:20, mixed. */
    scheme *st = strassen(), *s444 = corpus("kauers-moosbauer/444-47-mod2.exp"),
           *s234 = corpus("kauers-moosbauer/234-20-mod0.exp");
    static const long long lsz[][3] = {{300, 400, 500}, {1000, 1000, 1000}, {77, 1234, 901}};
    const int nl = small ? 1 : 3;
    for (int serial = 0; serial < 3; serial++) {
        char sv[8];
        snprintf(sv, sizeof sv, "%d", serial);
        setenv("FLIPGRAPH_GPU_SERIAL_LEVELS", sv, 1);
        for (int c = 0; c < 5; c++) {
            chain ch = {0};
            const char *name = "";
            if (c == 0) ch.n = 0, chain_add(&ch, st), name = "strassen";
            if (c == 1) chain_add(&ch, st), chain_add(&ch, st), name = "strassen^2";
            if (c == 2) {
                if (!s444) continue;
                chain_add(&ch, s444), name = "444:47";
            }
            if (c == 3) {
                if (!s444) continue;
                chain_add(&ch, st), chain_add(&ch, s444), name = "strassen+444:47";
            }
            if (c == 4) {
                if (!s234) continue;
                chain_add(&ch, s234), chain_add(&ch, st), chain_add(&ch, st), name = "234:20+strassen^2";
            }
            if (serial > ch.n) {
                chain_free(&ch);
                continue;
            }
            char what[96];
            snprintf(what, sizeof what, "%s serial>=%d", name, serial);
            for (int i = 0; i < nl; i++)
                for (int kernel = 0; kernel < CUDA_BMM_KERNELS; kernel++)
                    if (kernel != CUDA_BMM_SIMT || i == 0)
                        check_case(what, &ch, CUDA_BMM_GF2, kernel, lsz[i][0], lsz[i][1], lsz[i][2]);
            chain_free(&ch);
        }
    }
    unsetenv("FLIPGRAPH_GPU_SERIAL_LEVELS");

    {
        chain ch = {0};
        chain_add(&ch, st);
        check_case("strassen auto", &ch, CUDA_BMM_GF2, CUDA_BMM_AUTO, 513, 700, 1100);
        chain_free(&ch);
    }

    /* Against the CPU executor, on the plan it builds (export_plan). */
    {
        const scheme *c1[1] = {st}, *c2[2] = {st, st}, *c3[2] = {s444, st}, *c4[2] = {s234, st};
        static const long long vsz[][3] = {{500, 600, 700}, {1000, 999, 1001}};
        for (int i = 0; i < (small ? 1 : 2); i++) {
            const long long n = vsz[i][0], k = vsz[i][1], p = vsz[i][2];
            check_vs_cpu("cpu-executor cubic gf2", NULL, 0, 0, n, k, p);
            check_vs_cpu("cpu-executor cubic bool", NULL, 0, 1, n, k, p);
            check_vs_cpu("cpu-executor strassen", c1, 1, 0, n, k, p);
            check_vs_cpu("cpu-executor strassen^2", c2, 2, 0, n, k, p);
            if (s444) check_vs_cpu("cpu-executor 444:47+strassen", c3, 2, 0, n, k, p);
            if (s234) check_vs_cpu("cpu-executor 234:20+strassen", c4, 2, 0, n, k, p);
        }
    }

    /* The streaming session: aligned cubic (the operands used in place), unaligned,
     * Boolean, Strassen. */
    {
        chain ch = {0};
        chain_add(&ch, st);
        check_session("cubic gf2 aligned", NULL, CUDA_BMM_GF2, 256, 1024, 512, 5);
        check_session("cubic gf2", NULL, CUDA_BMM_GF2, 1000, 777, 1500, 4);
        check_session("cubic bool", NULL, CUDA_BMM_BOOL, 300, 2048, 500, 3);
        check_session("strassen", &ch, CUDA_BMM_GF2, 513, 700, 1100, 3);
        chain_free(&ch);
    }

    /* The host layer: GPU 0 alone, twice (two streams), and beside a CPU executor,
     * under a device limit below the in-core product's need (about 3 MiB at
     * 3001 x 2500 x 2777, 1.2 MiB at the small size). */
    {
        const scheme *c2[2] = {st, st}, *c3[2] = {s444, st};
        const rt_executor one[1] = {{0, 0}}, two[2] = {{0, 0}, {0, 0}}, mix[2] = {{0, 0}, {-1, 0}};
        const double lim = (small ? 1.0 : 2.0) * 1048576.0;
        const long long n = small ? 1500 : 3001, k = small ? 1200 : 2500, p = small ? 1300 : 2777;
        check_host("host layer cubic gf2 [0]", NULL, 0, 0, n, k, p, one, 1, lim);
        check_host("host layer cubic bool [0]", NULL, 0, 1, n, k, p, one, 1, lim);
        check_host("host layer strassen^2 [0]", c2, 2, 0, n, k, p, one, 1, lim);
        check_host("host layer strassen^2 [0,0]", c2, 2, 0, n, k, p, two, 2, lim);
        check_host("host layer cubic bool [0,cpu]", NULL, 0, 1, n, k, p, mix, 2, lim);
        if (s444) check_host("host layer 444:47+strassen [0,cpu]", c3, 2, 0, n, k, p, mix, 2, lim);
    }

    /* Bad input: answered with 2, nothing run. */
    {
        chain ch = {0};
        chain_add(&ch, st);
        uint64_t a = 1, b = 1, c = 0;
        char err[256];
        expect_rc("boolean with levels", cuda_rt_multiply(ch.lv, 1, CUDA_BMM_BOOL, CUDA_BMM_TC, 1, 1, 1, &a, 1, &b, 1, &c, 1, 0, NULL, err, sizeof err), 2);
        expect_rc("empty matrix", cuda_rt_multiply(NULL, 0, CUDA_BMM_GF2, CUDA_BMM_TC, 0, 1, 1, &a, 1, &b, 1, &c, 1, 0, NULL, err, sizeof err), 2);
        expect_rc("short leading dimension", cuda_rt_multiply(NULL, 0, CUDA_BMM_GF2, CUDA_BMM_TC, 1, 65, 1, &a, 1, &b, 1, &c, 1, 0, NULL, err, sizeof err), 2);
        cuda_rt_level bad = ch.lv[0];
        bad.s = 9, bad.t = 9;
        expect_rc("level too large", cuda_rt_multiply(&bad, 1, CUDA_BMM_GF2, CUDA_BMM_TC, 1, 1, 1, &a, 1, &b, 1, &c, 1, 0, NULL, err, sizeof err), 2);
        expect_rc("no such GPU", cuda_rt_multiply(NULL, 0, CUDA_BMM_GF2, CUDA_BMM_TC, 1, 1, 1, &a, 1, &b, 1, &c, 1, 999, NULL, err, sizeof err), 2);
        chain_free(&ch);
    }
    scheme_free(st);
    scheme_free(s444);
    scheme_free(s234);
    return gpu_check_summary();
}
