/* Operands made from a seed, and checks of a product without a reference
 * product: Freivalds's check over GF(2) and a sample of recomputed entries
 * (docs/host-layer.md).  They let `bench multiply --generate` check sizes whose
 * cubic product would take too long and whose files would not fit the disk. */
#include <stdlib.h>
#include <string.h>

#include "layout.h"

/* splitmix64 (Steele, Lea, Flood 2014): a bijective mix of a counter. */
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct {
    rt_matrix *m;
    uint64_t seed;
} gen_ctx;

static void gen_rows(void *vctx, uint64_t begin, uint64_t end, int thread)
{
    const gen_ctx *c = vctx;
    (void)thread;
    uint64_t key = mix(c->seed);
    for (uint64_t r = begin; r < end; r++) {
        uint64_t *w = c->m->w + r * c->m->stride;
        for (uint64_t i = 0; i < c->m->stride; i++)
            w[i] = mix(key ^ (r * c->m->stride + i) * 0xd1342543de82ef95ull);
    }
}

void rt_matrix_generate(rt_matrix *m, uint64_t seed, int threads)
{
    gen_ctx c = {m, seed};
    rt_parallel(threads, m->rows, 1024, gen_rows, &c);
    rt_matrix_mask_tail(m);
}

/* Y (rows x 64) = M X, X a (M->cols) x 64 bit matrix of one word per row. */
typedef struct {
    const rt_matrix *M;
    const uint64_t *X;
    uint64_t *Y;
} mv_ctx;

static void mv_rows(void *vctx, uint64_t begin, uint64_t end, int thread)
{
    const mv_ctx *c = vctx;
    (void)thread;
    /* The kernel wants whole words of M per row and a multiple of 64 rows of X:
     * X has stride*64 rows (zero past M->cols). */
    rt_kernel_mul(c->M->w + begin * c->M->stride, c->M->stride, c->X, 1, c->Y + begin, 1,
                  (size_t)(end - begin), (size_t)c->M->stride, 1, false, NULL);
}

static bool matvec(const rt_matrix *M, const uint64_t *X, uint64_t *Y, int threads)
{
    memset(Y, 0, M->rows * 8);
    mv_ctx c = {M, X, Y};
    rt_parallel(threads, M->rows, 4096, mv_rows, &c);
    return true;
}

bool rt_freivalds_gf2(const rt_matrix *A, const rt_matrix *B, const rt_matrix *C, uint64_t seed,
                      int threads)
{
    if (A->cols != B->rows || C->rows != A->rows || C->cols != B->cols)
        return false;
    uint64_t nx = C->stride * 64, ny = A->stride * 64;
    uint64_t *X = rt_buf_alloc(nx, true), *Y = rt_buf_alloc(ny, true), *Z = rt_buf_alloc(A->rows, true),
             *W = rt_buf_alloc(C->rows, true);
    bool ok = X && Y && Z && W;
    if (ok) {
        uint64_t key = mix(seed ^ 0xf7e1u);
        for (uint64_t i = 0; i < C->cols; i++)
            X[i] = mix(key + i); /* row i of X: 64 random bits (past cols: zero) */
        /* Y = B X (inner x 64), then A Y, against C X. */
        matvec(B, X, Y, threads);
        matvec(A, Y, Z, threads);
        matvec(C, X, W, threads);
        ok = memcmp(Z, W, A->rows * 8) == 0;
    }
    free(X), free(Y), free(Z), free(W);
    return ok;
}

uint64_t rt_sample_check(const rt_matrix *A, const rt_matrix *B, const rt_matrix *C, bool boolean,
                         int samples, uint64_t seed)
{
    uint64_t bad = 0, key = mix(seed ^ 0x5a3b1eu);
    for (int s = 0; s < samples; s++) {
        uint64_t i = mix(key + 2 * (uint64_t)s) % A->rows, k = mix(key + 2 * (uint64_t)s + 1) % B->cols;
        unsigned acc = 0;
        for (uint64_t j = 0; j < A->cols; j++)
            if (rt_matrix_get(A, i, j) && rt_matrix_get(B, j, k))
                acc++;
        bool want = boolean ? acc != 0 : (acc & 1);
        bad += want != rt_matrix_get(C, i, k);
    }
    return bad;
}
