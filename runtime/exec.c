/* The CPU executor over GF(2) (and the cubic Boolean product).
 *
 * Karppa, Kaski 2019, sections 2.6 and 3.9-3.11, breadth first: the operands are padded
 * and permuted into blocks (layout.c), each expanding level turns the s*t input
 * runs of every application into r output runs with the level's straight-line
 * program, the inner layer multiplies the R pairs of blocks with the table
 * kernel (kernel.c), and the compressing levels run the other way.  Every phase
 * is a parallel loop over independent items (rt_parallel).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout.h"

/* Words of one run processed at a time by a level: the registers of the
 * program are tile-word vectors, kept in cache like a GPU thread's registers.
 * A run is a multiple of 64 words (a block is at least 64 x 64 bits); the
 * tile is the largest of 256, 128, 64 words that divides it. */
#define TILE 256
/* One item of the inner layer is INNER_ROWS rows by INNER_WORDS words of a
 * product block: the kernel's tables are built per item and per word column,
 * so items are tall (2048 rows measured best with 512-bit panels), and the
 * threads share a block by its panels, which costs no extra tables. */
#define INNER_ROWS 2048
#define INNER_WORDS 8

typedef uint64_t vt __attribute__((vector_size(64)));
typedef uint64_t vtu __attribute__((vector_size(64), aligned(8), may_alias));

double rt_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

/* ---- packing: the padded operand in block order ---- */

typedef struct {
    const rt_matrix *m;
    uint64_t *buf;
    const rt_layout *lay;
    uint64_t brows, bwords; /* block rows and words per block row */
    bool unpack;
} pack_ctx;

static void pack_rows(void *vctx, uint64_t begin, uint64_t end, int thread)
{
    const pack_ctx *c = vctx;
    const rt_matrix *m = c->m;
    uint64_t blk = c->brows * c->bwords;
    for (uint64_t g = begin; g < end; g++) {
        uint64_t I = g / c->brows, ib = g % c->brows;
        for (uint64_t J = 0; J < c->lay->ncol; J++) {
            uint64_t *b = c->buf + (c->lay->off_row[I] + c->lay->off_col[J]) * blk + ib * c->bwords;
            uint64_t w0 = J * c->bwords;
            uint64_t n = 0; /* words of the matrix inside this block row */
            if (g < m->rows && w0 < m->stride)
                n = m->stride - w0 < c->bwords ? m->stride - w0 : c->bwords;
            uint64_t *row = m->w + g * m->stride + w0;
            if (c->unpack) {
                if (n)
                    memcpy(row, b, n * 8);
            } else {
                if (n)
                    memcpy(b, row, n * 8);
                if (n < c->bwords)
                    memset(b + n, 0, (c->bwords - n) * 8);
            }
        }
    }
    (void)thread;
}

static void pack(const rt_matrix *m, uint64_t *buf, const rt_layout *lay, uint64_t brows,
                 uint64_t bcols, bool unpack, int threads)
{
    pack_ctx c = {m, buf, lay, brows, bcols / 64, unpack};
    uint64_t rows = unpack ? m->rows : lay->nrow * brows;
    rt_parallel(threads, rows, 256, pack_rows, &c);
}

/* ---- one Yates level ---- */

typedef struct {
    const export_plan_slp *slp;
    const int32_t *opdest; /* op k writes straight into output opdest[k], or -1 */
    const uint64_t *in;
    uint64_t *out;
    uint64_t run;   /* words of one run (one input or output of an application) */
    uint64_t tile;  /* words per item: 256, 128 or 64, dividing run */
    uint64_t tiles; /* run / tile */
    uint64_t *scratch; /* per thread: n_ops * TILE words */
    const uint64_t **regs; /* per thread: n_in + n_ops pointers */
} level_ctx;

RT_CLONES static void
level_tiles(const level_ctx *c, uint64_t begin, uint64_t end, int thread)
{
    const export_plan_slp *slp = c->slp;
    int n_in = slp->n_in, n_out = slp->n_out, n_ops = slp->n_ops;
    uint64_t *scratch = c->scratch + (size_t)thread * (size_t)(n_ops ? n_ops : 1) * TILE;
    const uint64_t **reg = c->regs + (size_t)thread * (size_t)(n_in + n_ops);
    for (uint64_t item = begin; item < end; item++) {
        uint64_t p = item / c->tiles, off = (item % c->tiles) * c->tile;
        uint64_t tl = c->tile;
        const uint64_t *in = c->in + p * (uint64_t)n_in * c->run + off;
        uint64_t *out = c->out + p * (uint64_t)n_out * c->run + off;
        for (int x = 0; x < n_in; x++)
            reg[x] = in + (uint64_t)x * c->run;
        for (int k = 0; k < n_ops; k++) {
            uint64_t *d = c->opdest[k] >= 0 ? out + (uint64_t)c->opdest[k] * c->run
                                            : scratch + (size_t)k * TILE;
            const uint64_t *a = reg[slp->src[2 * k]], *b = reg[slp->src[2 * k + 1]];
            for (uint64_t w = 0; w < tl; w += 8)
                *(vtu *)(d + w) = *(const vtu *)(a + w) ^ *(const vtu *)(b + w);
            reg[n_in + k] = d;
        }
        for (int o = 0; o < n_out; o++) {
            uint64_t *d = out + (uint64_t)o * c->run;
            int32_t r = slp->out[o];
            if (r < 0)
                memset(d, 0, tl * 8);
            else if (reg[r] != d)
                memcpy(d, reg[r], tl * 8);
        }
    }
}

static void level_range(void *vctx, uint64_t begin, uint64_t end, int thread)
{
    level_tiles(vctx, begin, end, thread);
}

/* out[p][o][run] = program(in[p][0..n_in-1][run]) for p < prefix. */
static bool run_level(const export_plan_slp *slp, const uint64_t *in, uint64_t *out,
                      uint64_t prefix, uint64_t run, int threads)
{
    int n_ops = slp->n_ops;
    int32_t *opdest = malloc((size_t)(n_ops ? n_ops : 1) * sizeof *opdest);
    uint64_t *scratch = rt_buf_alloc((uint64_t)threads * (uint64_t)(n_ops ? n_ops : 1) * TILE, false);
    const uint64_t **regs = malloc((size_t)threads * (size_t)(slp->n_in + n_ops) * sizeof *regs);
    bool ok = opdest && scratch && regs;
    if (ok) {
        for (int k = 0; k < n_ops; k++)
            opdest[k] = -1;
        for (int o = 0; o < slp->n_out; o++) {
            int32_t r = slp->out[o];
            if (r >= slp->n_in && opdest[r - slp->n_in] < 0)
                opdest[r - slp->n_in] = o;
        }
        uint64_t tile = run % 256 == 0 ? 256 : run % 128 == 0 ? 128 : 64;
        level_ctx c = {slp, opdest, in, out, run, tile, run / tile, scratch, regs};
        uint64_t items = prefix * c.tiles;
        rt_parallel(threads, items, 16, level_range, &c);
    }
    free(opdest);
    free(scratch);
    free(regs);
    return ok;
}

/* ---- the inner layer ---- */

typedef struct {
    const uint64_t *T, *S;
    uint64_t *Q;
    uint64_t bs, bt, bu, chunks, panels;
    bool boolean;
    void **scratch;
} inner_ctx;

static void inner_range(void *vctx, uint64_t begin, uint64_t end, int thread)
{
    const inner_ctx *c = vctx;
    uint64_t kw = c->bt / 64, cw = c->bu / 64;
    for (uint64_t item = begin; item < end; item++) {
        uint64_t pc = item % c->panels, rc = (item / c->panels) % c->chunks,
                 h = item / c->panels / c->chunks;
        uint64_t r0 = rc * INNER_ROWS, w0 = pc * INNER_WORDS;
        uint64_t rows = c->bs - r0 < INNER_ROWS ? c->bs - r0 : INNER_ROWS;
        uint64_t words = cw - w0 < INNER_WORDS ? cw - w0 : INNER_WORDS;
        const uint64_t *T = c->T + h * c->bs * kw + r0 * kw;
        const uint64_t *S = c->S + h * c->bt * cw + w0;
        uint64_t *Q = c->Q + h * c->bs * cw + r0 * cw + w0;
        rt_kernel_mul(T, kw, S, cw, Q, cw, rows, kw, words, c->boolean, c->scratch[thread]);
    }
}

/* ---- the whole product ---- */

/* Level l's program for side (EXPORT_PLAN_XI, _ETA or _ZETA) on buf: returns
 * the level's output (r runs per application expanding, s*u compressing) and
 * frees buf; NULL when out of memory. */
static uint64_t *pass_level(const export_plan *p, int l, int side, uint64_t *buf, uint64_t blk, int threads)
{
    const export_plan_slp *slp = &p->level[l].slp[side];
    uint64_t left = rt_level_left(p, l), run = rt_level_right(p, l, side) * blk;
    uint64_t *out = rt_buf_alloc(left * (uint64_t)slp->n_out * run, false);
    if (!out || !run_level(slp, buf, out, left, run, threads)) {
        free(out);
        free(buf);
        return NULL;
    }
    free(buf);
    return out;
}

/* Expands one operand through the levels, outermost first; returns the final
 * buffer (frees the input). */
static uint64_t *expand(const export_plan *p, int side, uint64_t *buf, uint64_t blk, int threads)
{
    for (int l = 0; l < p->levels && buf; l++)
        buf = pass_level(p, l, side, buf, blk, threads);
    return buf;
}

static uint64_t *compress(const export_plan *p, uint64_t *buf, uint64_t blk, int threads)
{
    for (int l = p->levels - 1; l >= 0 && buf; l--)
        buf = pass_level(p, l, EXPORT_PLAN_ZETA, buf, blk, threads);
    return buf;
}

static rt_status check_dims(const export_plan *p, const rt_matrix *A, const rt_matrix *B,
                            const rt_matrix *C, char *err, size_t errlen)
{
    if (!p->sized) {
        scheme_fail(err, errlen, "the plan has no sizes (export_plan_size)");
        return RT_EDIMS;
    }
    if (A->cols != B->rows) {
        scheme_fail(err, errlen, "A is %llu x %llu and B is %llu x %llu: A's columns must equal B's rows",
                    (unsigned long long)A->rows, (unsigned long long)A->cols,
                    (unsigned long long)B->rows, (unsigned long long)B->cols);
        return RT_EDIMS;
    }
    if (A->rows != p->rows || A->cols != p->inner || B->cols != p->cols) {
        scheme_fail(err, errlen, "the plan is sized for %llu x %llu times %llu x %llu",
                    (unsigned long long)p->rows, (unsigned long long)p->inner,
                    (unsigned long long)p->inner, (unsigned long long)p->cols);
        return RT_EDIMS;
    }
    if (C->rows != A->rows || C->cols != B->cols) {
        scheme_fail(err, errlen, "the product must be %llu x %llu",
                    (unsigned long long)A->rows, (unsigned long long)B->cols);
        return RT_EDIMS;
    }
    return RT_OK;
}

static rt_status oom(char *err, size_t errlen)
{
    scheme_fail(err, errlen, "out of memory");
    return RT_ENOMEM;
}

rt_status rt_execute(const export_plan *p, const rt_matrix *A, const rt_matrix *B, rt_matrix *C,
                     int threads, double max_bytes, rt_stats *stats, char *err, size_t errlen)
{
    rt_status st = check_dims(p, A, B, C, err, errlen);
    if (st != RT_OK)
        return st;
    if (max_bytes > 0 && p->peak_bytes > max_bytes) {
        scheme_fail(err, errlen,
                    "the plan needs %.1f MiB of buffers, more than the limit of %.1f MiB "
                    "(fewer levels, or --max-memory)",
                    p->peak_bytes / 1048576.0, max_bytes / 1048576.0);
        return RT_EMEMORY;
    }
    if (threads <= 0)
        threads = rt_default_threads();
    if (p->boolean && p->levels > 0)
        return rt_execute_z(p, A, B, C, threads, stats, err, errlen);

    rt_stats s = {0};
    double t0 = rt_clock(), t;
    uint64_t blk_a = p->bs * p->bt / 64, blk_b = p->bt * p->bu / 64, blk_c = p->bs * p->bu / 64;
    rt_layout la, lb, lc;
    bool have_a = rt_layout_init(&la, p, 0), have_b = rt_layout_init(&lb, p, 1),
         have_c = rt_layout_init(&lc, p, 2);
    uint64_t *T = NULL, *S = NULL, *Q = NULL;
    void **scratch = NULL;
    st = RT_ENOMEM;
    if (!have_a || !have_b || !have_c)
        goto out;

    /* Without levels and padding the operands are already in block order. */
    bool direct_a = p->levels == 0 && A->rows == p->prows && A->stride * 64 == p->pinner;
    bool direct_b = p->levels == 0 && B->rows == p->pinner && B->stride * 64 == p->pcols;
    bool direct_c = p->levels == 0 && C->rows == p->prows && C->stride * 64 == p->pcols;
    t = rt_clock();
    if (!direct_a) {
        if (!(T = rt_buf_alloc(p->S * p->T * blk_a, false)))
            goto out;
        pack(A, T, &la, p->bs, p->bt, false, threads);
    }
    if (!direct_b) {
        if (!(S = rt_buf_alloc(p->T * p->U * blk_b, false)))
            goto out;
        pack(B, S, &lb, p->bt, p->bu, false, threads);
    }
    s.permute += rt_clock() - t;

    t = rt_clock();
    if (p->levels > 0) {
        T = expand(p, EXPORT_PLAN_XI, T, blk_a, threads);
        if (!T)
            goto out;
        S = expand(p, EXPORT_PLAN_ETA, S, blk_b, threads);
        if (!S)
            goto out;
    }
    s.expand = rt_clock() - t;

    t = rt_clock();
    if (direct_c) {
        memset(C->w, 0, C->rows * C->stride * 8);
        Q = C->w;
    } else if (!(Q = rt_buf_alloc(p->R * blk_c, true))) {
        goto out;
    }
    scratch = calloc((size_t)threads, sizeof *scratch);
    if (!scratch)
        goto out;
    for (int i = 0; i < threads; i++)
        if (!(scratch[i] = aligned_alloc(64, RT_KERNEL_SCRATCH_BYTES)))
            goto out;
    inner_ctx ic = {direct_a ? A->w : T, direct_b ? B->w : S, Q, p->bs, p->bt, p->bu,
                    (p->bs + INNER_ROWS - 1) / INNER_ROWS,
                    (p->bu / 64 + INNER_WORDS - 1) / INNER_WORDS, p->boolean, scratch};
    rt_parallel(threads, p->R * ic.chunks * ic.panels, 1, inner_range, &ic);
    s.inner = rt_clock() - t;
    free(T);
    free(S);
    T = S = NULL;

    t = rt_clock();
    if (p->levels > 0) {
        Q = compress(p, Q, blk_c, threads);
        if (!Q)
            goto out;
    }
    s.compress = rt_clock() - t;

    t = rt_clock();
    if (!direct_c) {
        pack(C, Q, &lc, p->bs, p->bu, true, threads);
        rt_matrix_mask_tail(C);
    }
    s.permute += rt_clock() - t;
    st = RT_OK;
out:
    if (st == RT_ENOMEM)
        oom(err, errlen);
    if (scratch)
        for (int i = 0; i < threads; i++)
            free(scratch[i]);
    free(scratch);
    free(T);
    free(S);
    if (Q != C->w)
        free(Q);
    rt_layout_free(&la);
    rt_layout_free(&lb);
    rt_layout_free(&lc);
    s.total = rt_clock() - t0;
    if (stats)
        *stats = s;
    return st;
}
