/* Float products with a chain of schemes valid over Z, over a BLAS
 * (docs/float.md).  The recursion itself is in fmul_impl.h, once per type. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifdef FLIPGRAPH_OPENBLAS
#include <cblas.h>
#endif

#include "layout.h"

typedef struct {
    void *t, *s, *q; /* operand sums of A and B, one product: per depth */
} fm_ws;

typedef struct {
    const rt_fplan *plan;
    bool fused; /* the fused schedule (rt_fsums) */
    fm_ws ws[EXPORT_PLAN_MAX_LEVELS];
    double gemm, adds;
    uint64_t gemm_calls;
} fm_ctx;

#define FT float
#define SFX s
#define GEMM cblas_sgemm
#include "fmul_impl.h"
#undef FT
#undef SFX
#undef GEMM

#define FT double
#define SFX d
#define GEMM cblas_dgemm
#include "fmul_impl.h"
#undef FT
#undef SFX
#undef GEMM

const char *rt_blas_name(void)
{
#ifdef FLIPGRAPH_OPENBLAS
    return openblas_get_config();
#else
    return "none (built with -DFLIPGRAPH_BLAS=OFF: plain C loops)";
#endif
}

static void set_blas_threads(int threads)
{
#ifdef FLIPGRAPH_OPENBLAS
    static int current = -1;
    if (threads != current) {
        openblas_set_num_threads(threads);
        current = threads;
    }
#else
    (void)threads;
#endif
}

static rt_status check_dims(const rt_fmatrix *A, const rt_fmatrix *B, const rt_fmatrix *C,
                            char *err, size_t errlen)
{
    if (A->type != B->type || A->type != C->type) {
        scheme_fail(err, errlen, "the matrices are of different types (A %s, B %s, C %s)",
                    rt_ftype_name(A->type), rt_ftype_name(B->type), rt_ftype_name(C->type));
        return RT_EDIMS;
    }
    if (A->cols != B->rows || C->rows != A->rows || C->cols != B->cols) {
        scheme_fail(err, errlen,
                    "A is %llu x %llu, B %llu x %llu, C %llu x %llu: A's columns must equal B's "
                    "rows and C must be A's rows x B's columns",
                    (unsigned long long)A->rows, (unsigned long long)A->cols,
                    (unsigned long long)B->rows, (unsigned long long)B->cols,
                    (unsigned long long)C->rows, (unsigned long long)C->cols);
        return RT_EDIMS;
    }
    /* The BLAS takes int dimensions and leading dimensions. */
    if (A->rows > INT32_MAX || A->cols > INT32_MAX || B->cols > INT32_MAX) {
        scheme_fail(err, errlen, "dimensions above 2^31-1 exceed the BLAS's int interface");
        return RT_EDIMS;
    }
    return RT_OK;
}

/* Workspace kept between calls, as the BLAS keeps its packing buffers: a
 * fresh allocation of this size is mmap'd by the C library and unmapped when
 * freed, so every call would fault its pages in again (the kernel zeroing
 * them; on the 2-core KVM box 0.2-1.2 s of system time for one 4096^3
 * product with two Winograd levels, against 2.3 s of user time;
 * bench/RESULTS.md).  A buffer is taken by one call at a time (busy), the
 * smallest free one that is large enough; one too small is freed and
 * replaced.  A call that had to allocate frees at its end the free buffers
 * it did not use itself, so that what is kept after a change of sizes is one
 * call's workspace (plus that of calls running beside it), while calls that
 * find all they need (a bench's chains in turn, whose blocks are alike) free
 * nothing; rt_fmul_release frees the free ones. */
#define FM_POOL 64

typedef struct {
    void *p;
    uint64_t words;
    uint64_t call; /* the call that used it last */
    bool busy;
} fm_buf;

static pthread_mutex_t fm_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static fm_buf fm_pool[FM_POOL];
static uint64_t fm_calls;

static uint64_t fm_call_begin(void)
{
    pthread_mutex_lock(&fm_pool_lock);
    uint64_t c = ++fm_calls;
    pthread_mutex_unlock(&fm_pool_lock);
    return c;
}

/* The end of call `call`: the free buffers it did not use go. */
static void fm_call_end(uint64_t call)
{
    pthread_mutex_lock(&fm_pool_lock);
    for (int i = 0; i < FM_POOL; i++)
        if (fm_pool[i].p && !fm_pool[i].busy && fm_pool[i].call != call) {
            free(fm_pool[i].p);
            fm_pool[i].p = NULL;
        }
    pthread_mutex_unlock(&fm_pool_lock);
}

static void *fm_ws_get(uint64_t words, uint64_t call, bool *fresh)
{
    pthread_mutex_lock(&fm_pool_lock);
    int best = -1, spare = -1;
    for (int i = 0; i < FM_POOL; i++) {
        fm_buf *b = &fm_pool[i];
        if (b->busy)
            continue;
        if (b->p && b->words >= words && (best < 0 || b->words < fm_pool[best].words))
            best = i;
        if (!b->p && spare < 0)
            spare = i;
    }
    if (best < 0 && spare < 0) {
        /* No empty entry: replace the smallest free buffer (too small here). */
        for (int i = 0; i < FM_POOL; i++)
            if (!fm_pool[i].busy && fm_pool[i].p && (spare < 0 || fm_pool[i].words < fm_pool[spare].words))
                spare = i;
        if (spare >= 0) {
            free(fm_pool[spare].p);
            fm_pool[spare].p = NULL;
        }
    }
    void *p = NULL;
    if (best >= 0) {
        fm_pool[best].busy = true;
        fm_pool[best].call = call;
        p = fm_pool[best].p;
    }
    pthread_mutex_unlock(&fm_pool_lock);
    if (p)
        return p;
    *fresh = true;
    p = rt_buf_alloc(words, false);
    if (!p)
        return NULL;
    pthread_mutex_lock(&fm_pool_lock);
    /* The entry found above may have been taken meanwhile: look again. */
    int slot = -1;
    for (int i = 0; i < FM_POOL && slot < 0; i++)
        if (!fm_pool[i].p)
            slot = i;
    if (slot >= 0) {
        fm_pool[slot].p = p;
        fm_pool[slot].words = words;
        fm_pool[slot].call = call;
        fm_pool[slot].busy = true;
    }
    pthread_mutex_unlock(&fm_pool_lock);
    return p; /* not kept when the pool is full: fm_ws_put frees it */
}

static void fm_ws_put(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&fm_pool_lock);
    bool kept = false;
    for (int i = 0; i < FM_POOL && !kept; i++)
        if (fm_pool[i].p == p) {
            fm_pool[i].busy = false;
            kept = true;
        }
    pthread_mutex_unlock(&fm_pool_lock);
    if (!kept)
        free(p);
}

void rt_fmul_release(void)
{
    pthread_mutex_lock(&fm_pool_lock);
    for (int i = 0; i < FM_POOL; i++)
        if (fm_pool[i].p && !fm_pool[i].busy) {
            free(fm_pool[i].p);
            fm_pool[i].p = NULL;
        }
    pthread_mutex_unlock(&fm_pool_lock);
}

/* One product C = A B (M x K times K x N, row-major with leading dimensions)
 * with its own context and workspace: the whole product, or one panel of C's
 * rows (RT_FPAR_ROWS). */
typedef struct {
    const rt_fplan *plan;
    rt_ftype type;
    bool fused;
    uint64_t M, K, N, lda, ldb, ldc;
    const void *A, *B;
    void *C;
    fm_ctx x;
    uint64_t call; /* rt_fmul's call, for the kept workspace */
    bool fresh;    /* some of the workspace was allocated, not found kept */
    rt_status st;
    double ws_bytes; /* the workspace asked for, for the message */
    int ws_level;    /* the level whose workspace failed (1-based), 0 none */
} fm_part;

static void fm_part_run(fm_part *pt)
{
    const rt_fplan *p = pt->plan;
    fm_ctx *x = &pt->x;
    memset(x, 0, sizeof *x);
    x->plan = p;
    x->fused = pt->fused;
    pt->st = RT_OK;
    /* Workspace per depth: the block sizes at a depth are the same for every
     * call there (the peeled strips go to the BLAS, never deeper). */
    uint64_t M = pt->M, K = pt->K, N = pt->N;
    size_t es = rt_ftype_size(pt->type);
    for (int l = 0; l < p->levels; l++) {
        M /= (uint64_t)p->lv[l].n;
        K /= (uint64_t)p->lv[l].m;
        N /= (uint64_t)p->lv[l].p;
        if (M == 0 || K == 0 || N == 0)
            break;
        /* Fused: a slot per sum and per product through Q (at least one, so that
         * an allocation of 0 is not taken for a failure). */
        uint64_t ct = 1, cs = 1, cq = 1;
        if (!x->fused && p->lv[l].winograd)
            ct = cs = 3; /* fm_winograd_: S3, S1, S2 and T3, T1, T2 at once */
        if (x->fused) {
            ct = p->lv[l].nt ? (uint64_t)p->lv[l].nt : 1;
            cs = p->lv[l].ns ? (uint64_t)p->lv[l].ns : 1;
            cq = p->lv[l].nq ? (uint64_t)p->lv[l].nq : 1;
        }
        x->ws[l].t = fm_ws_get((ct * M * K * es + 7) / 8, pt->call, &pt->fresh);
        x->ws[l].s = fm_ws_get((cs * K * N * es + 7) / 8, pt->call, &pt->fresh);
        x->ws[l].q = fm_ws_get((cq * M * N * es + 7) / 8, pt->call, &pt->fresh);
        if (!x->ws[l].t || !x->ws[l].s || !x->ws[l].q) {
            pt->ws_level = l + 1;
            pt->ws_bytes = (double)(ct * M * K + cs * K * N + cq * M * N) * (double)es;
            pt->st = RT_ENOMEM;
            goto out;
        }
    }
    if (pt->type == RT_F64)
        fm_top_d(x, pt->M, pt->K, pt->N, pt->A, pt->lda, pt->B, pt->ldb, pt->C, pt->ldc);
    else
        fm_top_s(x, pt->M, pt->K, pt->N, pt->A, pt->lda, pt->B, pt->ldb, pt->C, pt->ldc);
out:
    for (int l = 0; l < p->levels; l++) {
        fm_ws_put(x->ws[l].t);
        fm_ws_put(x->ws[l].s);
        fm_ws_put(x->ws[l].q);
    }
}

static void *fm_part_main(void *arg)
{
    fm_part_run(arg);
    return NULL;
}

#define FM_MAX_PANELS 64

/* The panels of C's rows for RT_FPAR_ROWS: whole multiples of the levels'
 * row block counts (prod n_l), so that a panel peels no more than the whole
 * product would; 0 where the split does not apply. */
int rt_fmul_panels(const rt_fplan *p, uint64_t M, int threads)
{
    if (threads <= 0)
        threads = rt_default_threads();
    if (threads > FM_MAX_PANELS)
        threads = FM_MAX_PANELS;
    if (p->levels == 0 || threads < 2)
        return 0;
    if (p->par == RT_FPAR_BLAS)
        return 0;
    /* The default splits only where each panel has 2048 rows or more: below,
     * the BLAS's threads on the whole product were as fast or faster in the
     * runs of bench/RESULTS.md (n = 512 .. 2048 on the 2-core box). */
    if (p->par == RT_FPAR_AUTO && M < 2048 * (uint64_t)threads)
        return 0;
    uint64_t unit = 1;
    for (int l = 0; l < p->levels; l++)
        unit *= (uint64_t)p->lv[l].n;
    uint64_t units = M / unit;
    int panels = threads;
    if ((uint64_t)panels > units)
        panels = (int)units;
    return panels >= 2 ? panels : 0;
}

rt_status rt_fmul(const rt_fplan *p, const rt_fmatrix *A, const rt_fmatrix *B, rt_fmatrix *C,
                  int threads, rt_fstats *stats, char *err, size_t errlen)
{
    rt_status st = check_dims(A, B, C, err, errlen);
    if (st != RT_OK)
        return st;
    double t0 = rt_clock();
    int nthreads = threads > 0 ? threads : rt_default_threads();
    if (nthreads > FM_MAX_PANELS)
        nthreads = FM_MAX_PANELS;
    uint64_t M = A->rows, K = A->cols, N = B->cols;
    size_t es = rt_ftype_size(A->type);
    int panels = rt_fmul_panels(p, M, nthreads);
    fm_part parts[FM_MAX_PANELS];
    int np = panels ? panels : 1;
    uint64_t call = fm_call_begin();
    uint64_t unit = 1;
    for (int l = 0; l < p->levels; l++)
        unit *= (uint64_t)p->lv[l].n;
    for (int i = 0; i < np; i++) {
        fm_part *pt = &parts[i];
        memset(pt, 0, sizeof *pt);
        pt->plan = p;
        pt->type = A->type;
        pt->fused = p->sums == RT_FSUMS_FUSED;
        pt->call = call;
        /* Panel i: rows [r0, r1), r0 and r1 multiples of unit except the last end. */
        uint64_t units = M / unit;
        uint64_t r0 = panels ? units * (uint64_t)i / (uint64_t)np * unit : 0;
        uint64_t r1 = panels && i + 1 < np ? units * (uint64_t)(i + 1) / (uint64_t)np * unit : M;
        pt->M = r1 - r0;
        pt->K = K;
        pt->N = N;
        pt->lda = K;
        pt->ldb = N;
        pt->ldc = N;
        pt->A = (const char *)A->data + r0 * K * es;
        pt->B = B->data;
        pt->C = (char *)C->data + r0 * N * es;
    }
    if (panels) {
        /* Each panel's GEMMs on its own thread: the BLAS runs single-threaded, so
         * that no BLAS thread spins beside another panel's sums. */
        set_blas_threads(1);
        pthread_t tid[FM_MAX_PANELS];
        bool started[FM_MAX_PANELS];
        for (int i = 1; i < np; i++)
            started[i] = pthread_create(&tid[i], NULL, fm_part_main, &parts[i]) == 0;
        fm_part_run(&parts[0]);
        for (int i = 1; i < np; i++) {
            if (started[i])
                pthread_join(tid[i], NULL);
            else
                fm_part_run(&parts[i]); /* no thread to be had: the panel here */
        }
    } else {
        set_blas_threads(nthreads);
        fm_part_run(&parts[0]);
    }
    double gemm = 0, adds = 0;
    uint64_t calls = 0;
    bool fresh = false;
    for (int i = 0; i < np; i++)
        fresh |= parts[i].fresh;
    if (fresh)
        fm_call_end(call);
    for (int i = 0; i < np; i++) {
        gemm += parts[i].x.gemm;
        adds += parts[i].x.adds;
        calls += parts[i].x.gemm_calls;
        if (parts[i].st != RT_OK && st == RT_OK) {
            st = parts[i].st;
            scheme_fail(err, errlen, "out of memory for the workspace of level %d (%.1f MiB)",
                        parts[i].ws_level, parts[i].ws_bytes / 1048576.0);
        }
    }
    if (stats) {
        stats->total = rt_clock() - t0;
        stats->gemm = gemm;
        stats->adds = adds;
        stats->gemm_calls = calls;
    }
    return st;
}

void rt_fsum(rt_ftype f, uint64_t rows, uint64_t cols, int nsrc, const void *const *src, uint64_t lds,
             int nout, void *const *dst, uint64_t ldd, const int *coef, const bool *keep)
{
    if (f == RT_F64)
        fm_fsum_d(rows, cols, nsrc, (const double *const *)src, lds, nout, (double *const *)dst, ldd,
                  coef, keep);
    else
        fm_fsum_s(rows, cols, nsrc, (const float *const *)src, lds, nout, (float *const *)dst, ldd,
                  coef, keep);
}

rt_status rt_fmul_blas(const rt_fmatrix *A, const rt_fmatrix *B, rt_fmatrix *C, int threads,
                       char *err, size_t errlen)
{
    rt_fplan none;
    memset(&none, 0, sizeof none);
    return rt_fmul(&none, A, B, C, threads, NULL, err, errlen);
}
