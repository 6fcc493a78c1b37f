/* Float products with a chain of schemes valid over Z, over a BLAS
 * (docs/float.md).  The recursion itself is in fmul_impl.h, once per type. */
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
    int threads;
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

rt_status rt_fmul(const rt_fplan *p, const rt_fmatrix *A, const rt_fmatrix *B, rt_fmatrix *C,
                  int threads, rt_fstats *stats, char *err, size_t errlen)
{
    rt_status st = check_dims(A, B, C, err, errlen);
    if (st != RT_OK)
        return st;
    double t0 = rt_clock();
    fm_ctx x;
    memset(&x, 0, sizeof x);
    x.plan = p;
    x.threads = threads > 0 ? threads : rt_default_threads();
    x.fused = p->sums == RT_FSUMS_FUSED;
    set_blas_threads(x.threads);
    /* Workspace per depth: the block sizes at a depth are the same for every
     * call there (the peeled strips go to the BLAS, never deeper). */
    uint64_t M = A->rows, K = A->cols, N = B->cols;
    size_t es = rt_ftype_size(A->type);
    for (int l = 0; l < p->levels; l++) {
        M /= (uint64_t)p->lv[l].n;
        K /= (uint64_t)p->lv[l].m;
        N /= (uint64_t)p->lv[l].p;
        if (M == 0 || K == 0 || N == 0)
            break;
        /* Fused: a slot per sum and per product through Q (at least one, so that
         * an allocation of 0 is not taken for a failure). */
        uint64_t ct = 1, cs = 1, cq = 1;
        if (x.fused) {
            ct = p->lv[l].nt ? (uint64_t)p->lv[l].nt : 1;
            cs = p->lv[l].ns ? (uint64_t)p->lv[l].ns : 1;
            cq = p->lv[l].nq ? (uint64_t)p->lv[l].nq : 1;
        }
        x.ws[l].t = rt_buf_alloc((ct * M * K * es + 7) / 8, false);
        x.ws[l].s = rt_buf_alloc((cs * K * N * es + 7) / 8, false);
        x.ws[l].q = rt_buf_alloc((cq * M * N * es + 7) / 8, false);
        if (!x.ws[l].t || !x.ws[l].s || !x.ws[l].q) {
            scheme_fail(err, errlen, "out of memory for the workspace of level %d (%.1f MiB)", l + 1,
                        (double)(ct * M * K + cs * K * N + cq * M * N) * (double)es / 1048576.0);
            st = RT_ENOMEM;
            goto out;
        }
    }
    st = A->type == RT_F64 ? fm_top_d(&x, A, B, C) : fm_top_s(&x, A, B, C);
out:
    for (int l = 0; l < p->levels; l++) {
        free(x.ws[l].t);
        free(x.ws[l].s);
        free(x.ws[l].q);
    }
    if (stats) {
        stats->total = rt_clock() - t0;
        stats->gemm = x.gemm;
        stats->adds = x.adds;
        stats->gemm_calls = x.gemm_calls;
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
