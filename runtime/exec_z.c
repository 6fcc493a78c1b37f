/* The Boolean product with scheme levels: integers through the levels.
 *
 * Over the Boolean semiring there is no subtraction, so a scheme cannot be
 * applied to bits directly (Karppa, Kaski 2019, section 3.18, use the cubic method).  A
 * scheme valid over Z computes the integer product A B exactly; its entries lie
 * in 0 .. inner, so the product modulo 2^32 determines them whenever inner is
 * below 2^32, and the Boolean product is "entry not zero".  Arithmetic modulo
 * 2^32 is a ring homomorphism from Z, so uint32_t wrap-around is exact here
 * whatever the intermediate values.  The layout is that of the GF(2) executor
 * with one 32-bit integer per bit; this path is the reference for Boolean
 * products with schemes, not a fast path.
 */
#include <stdlib.h>
#include <string.h>

#include "layout.h"

#define ZTILE 256       /* elements of a run done at a time */
#define ZINNER_ROWS 64  /* rows of a block per inner item */

static uint32_t *zalloc(uint64_t elems, bool zero)
{
    return (uint32_t *)rt_buf_alloc((elems + 1) / 2, zero);
}

typedef struct {
    const rt_matrix *m;
    uint32_t *buf;
    const rt_layout *lay;
    uint64_t brows, bcols;
    bool unpack;
} zpack_ctx;

static void zpack_rows(void *vctx, uint64_t begin, uint64_t end, int thread)
{
    const zpack_ctx *c = vctx;
    const rt_matrix *m = c->m;
    uint64_t blk = c->brows * c->bcols;
    for (uint64_t g = begin; g < end; g++) {
        uint64_t I = g / c->brows, ib = g % c->brows;
        for (uint64_t J = 0; J < c->lay->ncol; J++) {
            uint32_t *b = c->buf + (c->lay->off_row[I] + c->lay->off_col[J]) * blk + ib * c->bcols;
            for (uint64_t jb = 0; jb < c->bcols; jb++) {
                uint64_t col = J * c->bcols + jb;
                bool inside = g < m->rows && col < m->cols;
                if (c->unpack) {
                    if (inside)
                        rt_matrix_set((rt_matrix *)m, g, col, b[jb] != 0);
                } else {
                    b[jb] = inside && rt_matrix_get(m, g, col);
                }
            }
        }
    }
    (void)thread;
}

typedef struct {
    const int8_t *mat; /* n_out x n_in */
    int n_in, n_out;
    const uint32_t *in;
    uint32_t *out;
    uint64_t run, tiles;
} zlevel_ctx;

static void zlevel_range(void *vctx, uint64_t begin, uint64_t end, int thread)
{
    const zlevel_ctx *c = vctx;
    for (uint64_t item = begin; item < end; item++) {
        uint64_t p = item / c->tiles, off = (item % c->tiles) * ZTILE;
        uint64_t len = c->run - off < ZTILE ? c->run - off : ZTILE;
        const uint32_t *in = c->in + p * (uint64_t)c->n_in * c->run + off;
        uint32_t *out = c->out + p * (uint64_t)c->n_out * c->run + off;
        for (int o = 0; o < c->n_out; o++) {
            uint32_t *d = out + (uint64_t)o * c->run;
            memset(d, 0, len * sizeof *d);
            for (int x = 0; x < c->n_in; x++) {
                uint32_t k = (uint32_t)(int32_t)c->mat[(size_t)o * c->n_in + x];
                if (!k)
                    continue;
                const uint32_t *s = in + (uint64_t)x * c->run;
                for (uint64_t w = 0; w < len; w++)
                    d[w] += k * s[w];
            }
        }
    }
    (void)thread;
}

static uint32_t *zlevel(const int8_t *mat, int n_out, int n_in, uint32_t *in, uint64_t prefix,
                        uint64_t run, int threads)
{
    uint32_t *out = zalloc(prefix * (uint64_t)n_out * run, false);
    if (out) {
        zlevel_ctx c = {mat, n_in, n_out, in, out, run, (run + ZTILE - 1) / ZTILE};
        rt_parallel(threads, prefix * c.tiles, 16, zlevel_range, &c);
    }
    free(in);
    return out;
}

typedef struct {
    const uint32_t *T, *S;
    uint32_t *Q;
    uint64_t bs, bt, bu, chunks;
} zinner_ctx;

static void zinner_range(void *vctx, uint64_t begin, uint64_t end, int thread)
{
    const zinner_ctx *c = vctx;
    for (uint64_t item = begin; item < end; item++) {
        uint64_t h = item / c->chunks, r0 = (item % c->chunks) * ZINNER_ROWS;
        uint64_t rows = c->bs - r0 < ZINNER_ROWS ? c->bs - r0 : ZINNER_ROWS;
        const uint32_t *T = c->T + h * c->bs * c->bt, *S = c->S + h * c->bt * c->bu;
        uint32_t *Q = c->Q + h * c->bs * c->bu;
        for (uint64_t i = r0; i < r0 + rows; i++) {
            uint32_t *q = Q + i * c->bu;
            for (uint64_t k = 0; k < c->bt; k++) {
                uint32_t a = T[i * c->bt + k];
                if (!a)
                    continue;
                const uint32_t *s = S + k * c->bu;
                for (uint64_t j = 0; j < c->bu; j++)
                    q[j] += a * s[j];
            }
        }
    }
    (void)thread;
}

rt_status rt_execute_z(const export_plan *p, const rt_matrix *A, const rt_matrix *B,
                       rt_matrix *C, int threads, rt_stats *stats, char *err, size_t errlen)
{
    if (export_plan_first_not_z(p) >= 0) {
        scheme_fail(err, errlen, "the Boolean product needs every level valid over Z");
        return RT_EDIMS;
    }
    if (p->inner >= (1ull << 32)) {
        scheme_fail(err, errlen, "the Boolean product with schemes needs an inner dimension below 2^32");
        return RT_EDIMS;
    }
    if (threads <= 0)
        threads = rt_default_threads();
    rt_stats s = {0};
    double t0 = rt_clock(), t;
    uint64_t blk_a = p->bs * p->bt, blk_b = p->bt * p->bu, blk_c = p->bs * p->bu;
    rt_layout la, lb, lc;
    bool have = rt_layout_init(&la, p, 0);
    have = rt_layout_init(&lb, p, 1) && have;
    have = rt_layout_init(&lc, p, 2) && have;
    uint32_t *T = NULL, *S = NULL, *Q = NULL;
    rt_status st = RT_ENOMEM;
    if (!have)
        goto out;

    t = rt_clock();
    T = zalloc(p->S * p->T * blk_a, false);
    S = zalloc(p->T * p->U * blk_b, false);
    if (!T || !S)
        goto out;
    zpack_ctx pa = {A, T, &la, p->bs, p->bt, false};
    rt_parallel(threads, p->S * p->bs, 64, zpack_rows, &pa);
    zpack_ctx pb = {B, S, &lb, p->bt, p->bu, false};
    rt_parallel(threads, p->T * p->bt, 64, zpack_rows, &pb);
    s.permute = rt_clock() - t;

    t = rt_clock();
    for (int l = 0; l < p->levels; l++) {
        const export_plan_level *L = &p->level[l];
        uint64_t left = rt_level_left(p, l);
        T = zlevel(L->xi_z, L->r, L->s * L->t, T, left, rt_level_right(p, l, EXPORT_PLAN_XI) * blk_a, threads);
        S = zlevel(L->eta_z, L->r, L->t * L->u, S, left, rt_level_right(p, l, EXPORT_PLAN_ETA) * blk_b, threads);
        if (!T || !S)
            goto out;
    }
    s.expand = rt_clock() - t;

    t = rt_clock();
    if (!(Q = zalloc(p->R * blk_c, true)))
        goto out;
    zinner_ctx ic = {T, S, Q, p->bs, p->bt, p->bu, (p->bs + ZINNER_ROWS - 1) / ZINNER_ROWS};
    rt_parallel(threads, p->R * ic.chunks, 1, zinner_range, &ic);
    s.inner = rt_clock() - t;
    free(T);
    free(S);
    T = S = NULL;

    t = rt_clock();
    for (int l = p->levels - 1; l >= 0; l--) {
        const export_plan_level *L = &p->level[l];
        Q = zlevel(L->zeta_z, L->s * L->u, L->r, Q, rt_level_left(p, l),
                   rt_level_right(p, l, EXPORT_PLAN_ZETA) * blk_c, threads);
        if (!Q)
            goto out;
    }
    s.compress = rt_clock() - t;

    t = rt_clock();
    memset(C->w, 0, C->rows * C->stride * 8);
    zpack_ctx pc = {C, Q, &lc, p->bs, p->bu, true};
    rt_parallel(threads, C->rows, 64, zpack_rows, &pc);
    s.permute += rt_clock() - t;
    st = RT_OK;
out:
    if (st == RT_ENOMEM)
        scheme_fail(err, errlen, "out of memory");
    free(T);
    free(S);
    free(Q);
    rt_layout_free(&la);
    rt_layout_free(&lb);
    rt_layout_free(&lc);
    s.total = rt_clock() - t0;
    if (stats)
        *stats = s;
    return st;
}
