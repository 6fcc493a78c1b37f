/* The host layer: products larger than one executor's memory (docs/host-layer.md).
 *
 * Karppa, Kaski 2019 (sections 3.12 and 3.16) run the outermost levels of the
 * chain on the host, over sub-instances that fit the accelerators.  Here a
 * subproblem ("leaf") is one product h = (h_0, .., h_{k-1}) of the k host levels
 * and one tile (ta, tb, tc) below them: its operands are
 *     T = sum over (I, J) of xi[h](I, J) A_{I,J},  S = sum eta[h](J, K) B_{J,K}
 * with xi[h] the Kronecker product of the host levels' rows (a block of A is
 * selected when every level's coefficient is 1), its product Q = T S is done
 * by an executor with the rest of the chain, and Q is added into every block
 * C_{I,K} whose zeta coefficient is 1.  That is Yates's algorithm on the host
 * levels taken one product at a time (the serial layer's order, 3.8): no
 * intermediate level is kept, so the host needs, beside the operands, only
 * T, S and Q per executor.  The tiles are the standard algorithm as one more
 * level (rank a*b*c, one block per product, no sums), which the Boolean
 * product can use too: its accumulation is OR.
 *
 * Executors take leaves from one shared counter, one host thread each; the
 * additions into C are locked per block of C.  XOR and OR are associative and
 * commutative, so the bits of C do not depend on the order: they are those of
 * the in-core product, which tests/test_host.c checks.  A GPU executor is a
 * streaming session (cuda_rt_session_*): the pipeline below keeps one
 * subproblem in flight on it, so that its copies run under the products.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layout.h"

#include "../cuda/fg_cuda.h"

/* One host level as lists per product h of its non-zero coefficients:
 * pairs (i, j) of A blocks, (j, k) of B blocks, (i, k) of C blocks. */
typedef struct {
    int s, t, u, r;
    int *a_off, *a_x, *a_y; /* CSR: entries a_off[h] .. a_off[h+1]-1 */
    int *b_off, *b_x, *b_y;
    int *c_off, *c_x, *c_y;
} host_level;

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
static uint64_t round_up(uint64_t a, uint64_t q) { return ceil_div(a, q) * q; }

static void level_free(host_level *L)
{
    free(L->a_off), free(L->a_x), free(L->a_y);
    free(L->b_off), free(L->b_x), free(L->b_y);
    free(L->c_off), free(L->c_x), free(L->c_y);
    memset(L, 0, sizeof *L);
}

static bool level_alloc(host_level *L, int s, int t, int u, int r, int na, int nb, int nc)
{
    memset(L, 0, sizeof *L);
    L->s = s, L->t = t, L->u = u, L->r = r;
    L->a_off = calloc((size_t)r + 1, sizeof(int));
    L->b_off = calloc((size_t)r + 1, sizeof(int));
    L->c_off = calloc((size_t)r + 1, sizeof(int));
    L->a_x = malloc((size_t)(na ? na : 1) * sizeof(int)), L->a_y = malloc((size_t)(na ? na : 1) * sizeof(int));
    L->b_x = malloc((size_t)(nb ? nb : 1) * sizeof(int)), L->b_y = malloc((size_t)(nb ? nb : 1) * sizeof(int));
    L->c_x = malloc((size_t)(nc ? nc : 1) * sizeof(int)), L->c_y = malloc((size_t)(nc ? nc : 1) * sizeof(int));
    if (L->a_off && L->b_off && L->c_off && L->a_x && L->a_y && L->b_x && L->b_y && L->c_x && L->c_y)
        return true;
    level_free(L);
    return false;
}

/* A level of the plan (its GF(2) matrices). */
static bool level_from_plan(host_level *L, const export_plan_level *P)
{
    int s = P->s, t = P->t, u = P->u, r = P->r, na = 0, nb = 0, nc = 0;
    for (int i = 0; i < r * s * t; i++)
        na += P->xi[i] & 1;
    for (int i = 0; i < r * t * u; i++)
        nb += P->eta[i] & 1;
    for (int i = 0; i < s * u * r; i++)
        nc += P->zeta[i] & 1;
    if (!level_alloc(L, s, t, u, r, na, nb, nc))
        return false;
    na = nb = nc = 0;
    for (int h = 0; h < r; h++) {
        for (int i = 0; i < s; i++)
            for (int j = 0; j < t; j++)
                if (P->xi[h * s * t + i * t + j] & 1)
                    L->a_x[na] = i, L->a_y[na++] = j;
        for (int j = 0; j < t; j++)
            for (int k = 0; k < u; k++)
                if (P->eta[h * t * u + j * u + k] & 1)
                    L->b_x[nb] = j, L->b_y[nb++] = k;
        for (int i = 0; i < s; i++)
            for (int k = 0; k < u; k++)
                if (P->zeta[(i * u + k) * r + h] & 1)
                    L->c_x[nc] = i, L->c_y[nc++] = k;
        L->a_off[h + 1] = na, L->b_off[h + 1] = nb, L->c_off[h + 1] = nc;
    }
    return true;
}

/* The tiles as a level: the standard algorithm <a,b,c>, product h = (ta*b + tb)*c + tc. */
static bool level_tiles(host_level *L, uint64_t a, uint64_t b, uint64_t c)
{
    int r = (int)(a * b * c);
    if (!level_alloc(L, (int)a, (int)b, (int)c, r, r, r, r))
        return false;
    for (int h = 0; h < r; h++) {
        int ta = h / (int)(b * c), tb = h / (int)c % (int)b, tc = h % (int)c;
        L->a_x[h] = ta, L->a_y[h] = tb;
        L->b_x[h] = tb, L->b_y[h] = tc;
        L->c_x[h] = ta, L->c_y[h] = tc;
        L->a_off[h + 1] = L->b_off[h + 1] = L->c_off[h + 1] = h + 1;
    }
    return true;
}

/* The plan of the levels below the host levels, sized for one leaf.  It shares
 * the levels' arrays with the whole plan: never export_plan_free it. */
static bool sub_plan(const export_plan *p, int dh, uint64_t rows, uint64_t inner, uint64_t cols,
                     export_plan *sub, char *err, size_t errlen)
{
    memset(sub, 0, sizeof *sub);
    sub->levels = p->levels - dh;
    sub->boolean = p->boolean;
    sub->S = sub->T = sub->U = sub->R = 1;
    for (int l = 0; l < sub->levels; l++) {
        sub->level[l] = p->level[dh + l];
        sub->S *= (uint64_t)sub->level[l].s;
        sub->T *= (uint64_t)sub->level[l].t;
        sub->U *= (uint64_t)sub->level[l].u;
        sub->R *= (uint64_t)sub->level[l].r;
    }
    return export_plan_size(sub, rows, inner, cols, err, errlen);
}

static uint64_t host_prod(const export_plan *p, int dh, int which)
{
    uint64_t v = 1;
    for (int l = 0; l < dh; l++)
        v *= (uint64_t)(which == 0 ? p->level[l].s : which == 1 ? p->level[l].t
                        : which == 2 ? p->level[l].u : p->level[l].r);
    return v;
}

static int pipeline_depth(const rt_host_config *cfg)
{
    int d = cfg && cfg->pipeline > 0 ? cfg->pipeline : 2;
    return d > RT_HOST_MAX_DEPTH ? RT_HOST_MAX_DEPTH : d;
}

static int n_exec_of(const rt_host_config *cfg) { return cfg && cfg->exec && cfg->n_exec > 0 ? cfg->n_exec : 1; }
static rt_executor exec_of(const rt_host_config *cfg, int i)
{
    if (cfg && cfg->exec && cfg->n_exec > 0)
        return cfg->exec[i];
    return (rt_executor){-1, cfg ? cfg->threads : 0};
}
/* The device memory one executor on GPU `device` may use: --max-device-memory
 * (or the free memory less the executor's margin) shared by the executors
 * listed on that GPU.  Two executors on one GPU run two subproblems at once,
 * so that one's copies overlap the other's product. */
static double device_limit(const rt_host_config *cfg, int device)
{
    int count = 0;
    for (int i = 0; i < n_exec_of(cfg); i++)
        count += exec_of(cfg, i).device == device;
    double base = cfg ? cfg->max_device_bytes : 0;
    if (count <= 1)
        return base;
    if (base <= 0) {
        size_t free_b = 0, total_b = 0;
        if (cuda_rt_set_device(device) != 0 || cuda_rt_mem_info(&free_b, &total_b) != 0)
            return 0;
        base = (double)free_b * 0.92 - 256.0 * 1048576.0;
    }
    return base > 0 ? base / count : 0;
}

static int first_gpu(const rt_host_config *cfg)
{
    for (int i = 0; i < n_exec_of(cfg); i++)
        if (exec_of(cfg, i).device >= 0)
            return exec_of(cfg, i).device;
    return -1;
}

/* Fills the split's sizes for dh host levels and the tiles; *fits says whether
 * it fits the limits.  RT_OK unless sizing failed or the device failed. */
static rt_status try_split(const export_plan *p, const rt_host_config *cfg, int dh, const uint64_t tiles[3],
                           rt_host_split *sp, bool *fits, char *err, size_t errlen)
{
    memset(sp, 0, sizeof *sp);
    sp->host_levels = dh;
    memcpy(sp->tiles, tiles, sizeof sp->tiles);
    export_plan sub;
    memset(&sub, 0, sizeof sub);
    uint64_t qs = 64, qt = 64, qu = 64;
    for (int l = dh; l < p->levels; l++)
        qs *= (uint64_t)p->level[l].s, qt *= (uint64_t)p->level[l].t, qu *= (uint64_t)p->level[l].u;
    sp->leaf_rows = round_up(ceil_div(p->rows, host_prod(p, dh, 0) * tiles[0]), qs);
    sp->leaf_inner = round_up(ceil_div(p->inner, host_prod(p, dh, 1) * tiles[1]), qt);
    sp->leaf_cols = round_up(ceil_div(p->cols, host_prod(p, dh, 2) * tiles[2]), qu);
    sp->leaves = host_prod(p, dh, 3) * tiles[0] * tiles[1] * tiles[2];
    if (!sub_plan(p, dh, sp->leaf_rows, sp->leaf_inner, sp->leaf_cols, &sub, err, errlen))
        return RT_EDIMS;
    sp->leaf_bytes = (double)pipeline_depth(cfg) *
                     ((double)sp->leaf_rows * (double)sp->leaf_inner + (double)sp->leaf_inner * (double)sp->leaf_cols +
                      (double)sp->leaf_rows * (double)sp->leaf_cols) / 8.0;
    int n = n_exec_of(cfg), ncpu = 0;
    for (int i = 0; i < n; i++)
        ncpu += exec_of(cfg, i).device < 0;
    /* the CPU executor's own two product buffers (standing in for a device's) */
    double cpu_need = sub.peak_bytes + 2.0 * (double)sp->leaf_rows * (double)sp->leaf_cols / 8.0;
    sp->exec_bytes = cpu_need;
    sp->host_bytes = (double)n * sp->leaf_bytes + (double)ncpu * cpu_need;
    *fits = !(cfg && cfg->max_host_bytes > 0 && sp->host_bytes > cfg->max_host_bytes);
    int gpu = first_gpu(cfg);
    if (*fits && gpu >= 0) {
        double need = 0;
        rt_status st = rt_device_stream_need(&sub, gpu, device_limit(cfg, gpu), &need, err, errlen);
        if (st == RT_EMEMORY)
            *fits = false;
        else if (st != RT_OK)
            return st;
        else
            sp->exec_bytes = need;
    }
    return RT_OK;
}

rt_status rt_host_choose(const export_plan *p, const rt_host_config *cfg, rt_host_split *split,
                         char *err, size_t errlen)
{
    memset(split, 0, sizeof *split);
    if (!p->sized) {
        scheme_fail(err, errlen, "the plan has no sizes (export_plan_size)");
        return RT_EDIMS;
    }
    int n = n_exec_of(cfg), min_dh = cfg ? cfg->min_host_levels : 0;
    uint64_t min_tiles = cfg && cfg->min_tiles > 1 ? cfg->min_tiles : 1;
    int gpu = first_gpu(cfg);
    if (gpu >= 0 && p->boolean && p->levels > 0) {
        scheme_fail(err, errlen, "the GPU executor does the Boolean product with the cubic method "
                                 "only (no --scheme); use --backend cpu for Boolean products with schemes");
        return RT_EBACKEND;
    }
    /* In core: one executor, the whole product. */
    if (n == 1 && min_dh == 0 && min_tiles == 1) {
        split->in_core = true;
        split->leaves = 1;
        split->tiles[0] = split->tiles[1] = split->tiles[2] = 1;
        split->leaf_rows = p->rows, split->leaf_inner = p->inner, split->leaf_cols = p->cols;
        if (gpu < 0) {
            split->exec_bytes = split->host_bytes = p->peak_bytes;
            if (!(cfg && cfg->max_host_bytes > 0 && p->peak_bytes > cfg->max_host_bytes))
                return RT_OK;
        } else {
            double need = 0;
            rt_status st = rt_device_need(p, gpu, device_limit(cfg, gpu), &need, err, errlen);
            if (st == RT_OK) {
                split->exec_bytes = need;
                return RT_OK;
            }
            if (st != RT_EMEMORY)
                return st;
        }
    }
    /* A scheme's sums over the Boolean semiring would need integers: tiles only. */
    int max_dh = p->boolean ? 0 : p->levels;
    if (min_dh > max_dh)
        min_dh = max_dh;
    uint64_t tiles[3] = {min_tiles, min_tiles, min_tiles};
    rt_host_split sp;
    bool fits;
    rt_status st;
    for (int dh = min_dh; dh <= max_dh; dh++) {
        if ((st = try_split(p, cfg, dh, tiles, &sp, &fits, err, errlen)) != RT_OK)
            return st;
        if (fits && sp.leaves >= (uint64_t)n) {
            *split = sp;
            return RT_OK;
        }
    }
    /* Then tiles below every host level: halve the largest leaf dimension
     * (rows, inner or columns) until the subproblem fits. */
    uint64_t q[3] = {64, 64, 64};
    for (int l = max_dh; l < p->levels; l++)
        q[0] *= (uint64_t)p->level[l].s, q[1] *= (uint64_t)p->level[l].t, q[2] *= (uint64_t)p->level[l].u;
    for (;;) {
        if ((st = try_split(p, cfg, max_dh, tiles, &sp, &fits, err, errlen)) != RT_OK)
            return st;
        uint64_t dims[3] = {sp.leaf_rows, sp.leaf_inner, sp.leaf_cols};
        int best = -1;
        for (int i = 0; i < 3; i++)
            if (dims[i] > q[i] && tiles[i] < 4096 && (best < 0 || dims[i] > dims[best]))
                best = i;
        if (best >= 0 && sp.leaves > (1ull << 24))
            best = -1;
        /* fewer subproblems than executors only when they cannot be split further */
        if (fits && (sp.leaves >= (uint64_t)n || best < 0)) {
            *split = sp;
            return RT_OK;
        }
        if (best < 0)
            break;
        tiles[best] *= 2;
    }
    scheme_fail(err, errlen,
                "the product does not fit the memory limits even split into %" PRIu64
                " subproblems of %" PRIu64 " x %" PRIu64 " x %" PRIu64
                " (%.1f MiB of host buffers; raise --max-memory or --max-device-memory)",
                sp.leaves, sp.leaf_rows, sp.leaf_inner, sp.leaf_cols, sp.host_bytes / 1048576.0);
    return RT_EMEMORY;
}

const char *rt_host_describe(const rt_host_split *sp, char *buf, size_t len)
{
    if (sp->in_core)
        snprintf(buf, len, "in core");
    else
        snprintf(buf, len,
                 "%d host level%s, %" PRIu64 "x%" PRIu64 "x%" PRIu64 " tiles: %" PRIu64
                 " subproblems of %" PRIu64 " x %" PRIu64 " x %" PRIu64 " (%.1f MiB of host buffers)",
                 sp->host_levels, sp->host_levels == 1 ? "" : "s", sp->tiles[0], sp->tiles[1], sp->tiles[2],
                 sp->leaves, sp->leaf_rows, sp->leaf_inner, sp->leaf_cols, sp->host_bytes / 1048576.0);
    return buf;
}

/* ---- running the leaves ---- */

typedef struct host_job {
    const export_plan *plan;
    export_plan sub; /* the executor's plan for one leaf (shares plan's arrays) */
    const rt_host_split *sp;
    const rt_host_config *cfg;
    const rt_matrix *A, *B;
    rt_matrix *C;
    int nl; /* host levels, the tiles last */
    host_level lv[EXPORT_PLAN_MAX_LEVELS + 1];
    uint64_t radix_s[EXPORT_PLAN_MAX_LEVELS + 1], radix_t[EXPORT_PLAN_MAX_LEVELS + 1],
        radix_u[EXPORT_PLAN_MAX_LEVELS + 1], radix_r[EXPORT_PLAN_MAX_LEVELS + 1];
    uint64_t cblocks_col; /* blocks of C per block row */
    pthread_mutex_t *locks; /* striped over the blocks of C */
    uint64_t nlocks;
    atomic_uint_fast64_t next, done;
    atomic_int stop;
    pthread_mutex_t err_lock;
    rt_status status;
    char err[1024];
    int sum_threads, depth;
    double t_sums, t_exec, t_acc; /* under err_lock, as the rest of the profile */
    double wait_ready, wait_free, setup, buffers, lock;
    bool pinned;
    cuda_rt_session_stats dev; /* the GPU sessions', summed */
    int gpus;
    cuda_rt_level gpu_lv[EXPORT_PLAN_MAX_LEVELS]; /* the leaf plan's levels for GPU sessions */
    int finished;                 /* workers that returned, under err_lock */
    pthread_cond_t finished_cond; /* signalled by each */
} host_job;

typedef struct {
    host_job *job;
    int index;
    pthread_t tid;
    bool started;
    double dev_limit; /* a GPU executor's device memory, read before any session allocates */
} host_worker;

/* Blocks (X, Y) of one side selected by leaf h: the Kronecker product of the
 * levels' lists.  side 0: A (s, t), 1: B (t, u), 2: C (s, u).  Returns the count. */
static size_t leaf_blocks(const host_job *j, uint64_t leaf, int side, uint64_t **xs, uint64_t **ys)
{
    int dig[EXPORT_PLAN_MAX_LEVELS + 1];
    uint64_t rest = leaf;
    for (int l = j->nl - 1; l >= 0; l--) {
        dig[l] = (int)(rest % (uint64_t)j->lv[l].r);
        rest /= (uint64_t)j->lv[l].r;
    }
    size_t count = 1;
    for (int l = 0; l < j->nl; l++) {
        const host_level *L = &j->lv[l];
        const int *off = side == 0 ? L->a_off : side == 1 ? L->b_off : L->c_off;
        count *= (size_t)(off[dig[l] + 1] - off[dig[l]]);
    }
    *xs = malloc((count ? count : 1) * sizeof **xs);
    *ys = malloc((count ? count : 1) * sizeof **ys);
    if (!*xs || !*ys) {
        free(*xs), free(*ys);
        *xs = *ys = NULL;
        return (size_t)-1;
    }
    for (size_t c = 0; c < count; c++) {
        size_t rem = c;
        uint64_t X = 0, Y = 0;
        for (int l = j->nl - 1; l >= 0; l--) {
            const host_level *L = &j->lv[l];
            const int *off = side == 0 ? L->a_off : side == 1 ? L->b_off : L->c_off;
            const int *x = side == 0 ? L->a_x : side == 1 ? L->b_x : L->c_x;
            const int *y = side == 0 ? L->a_y : side == 1 ? L->b_y : L->c_y;
            size_t w = (size_t)(off[dig[l] + 1] - off[dig[l]]);
            size_t e = (size_t)off[dig[l]] + rem % w;
            rem /= w;
            /* level l's digit weighs the product of the radices below it */
            uint64_t wx = 1, wy = 1;
            for (int k = l + 1; k < j->nl; k++) {
                wx *= (uint64_t)(side == 1 ? j->lv[k].t : j->lv[k].s);
                wy *= (uint64_t)(side == 0 ? j->lv[k].t : j->lv[k].u);
            }
            X += (uint64_t)x[e] * wx;
            Y += (uint64_t)y[e] * wy;
        }
        (*xs)[c] = X, (*ys)[c] = Y;
    }
    return count;
}

typedef struct {
    const rt_matrix *src; /* A or B (sums), or Q (accumulation) */
    rt_matrix *dst;       /* T or S, or C */
    const uint64_t *bx, *by;
    size_t nb;
    uint64_t brows, bwords; /* block rows and words */
    bool boolean;
} sum_ctx;

/* dst rows [begin, end) = XOR of the selected blocks of src (zero outside src). */
static void sum_rows(void *vctx, uint64_t begin, uint64_t end, int thread)
{
    const sum_ctx *c = vctx;
    (void)thread;
    for (uint64_t g = begin; g < end; g++) {
        uint64_t *d = c->dst->w + g * c->dst->stride;
        bool first = true; /* the first block is copied, not added to zeros: a tile is one copy */
        for (size_t b = 0; b < c->nb; b++) {
            uint64_t row = c->bx[b] * c->brows + g, w0 = c->by[b] * c->bwords;
            if (row >= c->src->rows || w0 >= c->src->stride)
                continue;
            uint64_t n = c->src->stride - w0 < c->bwords ? c->src->stride - w0 : c->bwords;
            const uint64_t *s = c->src->w + row * c->src->stride + w0;
            if (first) {
                memcpy(d, s, n * 8);
                memset(d + n, 0, (c->dst->stride - n) * 8);
                first = false;
            } else {
                for (uint64_t w = 0; w < n; w++)
                    d[w] ^= s[w];
            }
        }
        if (first)
            memset(d, 0, c->dst->stride * 8);
    }
}

/* C block rows: dst (C) rows g of the one block (bx[0], by[0]) ^= or |= Q row. */
static void acc_rows(void *vctx, uint64_t begin, uint64_t end, int thread)
{
    const sum_ctx *c = vctx;
    (void)thread;
    uint64_t w0 = c->by[0] * c->bwords;
    if (w0 >= c->dst->stride)
        return;
    uint64_t n = c->dst->stride - w0 < c->bwords ? c->dst->stride - w0 : c->bwords;
    for (uint64_t g = begin; g < end; g++) {
        uint64_t row = c->bx[0] * c->brows + g;
        if (row >= c->dst->rows)
            break;
        uint64_t *d = c->dst->w + row * c->dst->stride + w0;
        const uint64_t *s = c->src->w + g * c->src->stride;
        if (c->boolean)
            for (uint64_t w = 0; w < n; w++)
                d[w] |= s[w];
        else
            for (uint64_t w = 0; w < n; w++)
                d[w] ^= s[w];
    }
}

static void job_fail(host_job *j, rt_status st, const char *msg)
{
    pthread_mutex_lock(&j->err_lock);
    if (j->status == RT_OK) {
        j->status = st;
        snprintf(j->err, sizeof j->err, "%s", msg);
    }
    pthread_mutex_unlock(&j->err_lock);
    atomic_store(&j->stop, 1);
}

/* Whether a GPU executor's leaf buffers are page-locked: FLIPGRAPH_PINNED=1 or 0
 * forces it; by default they are when the executor runs at least
 * RT_HOST_PIN_LEAVES subproblems.  Page-locking costs time once per buffer
 * (measured on an H100 host: 5 GiB of cudaHostAlloc buffers made a 4-subproblem
 * product 2 s slower than pageable ones), and saves it on every copy. */
#define RT_HOST_PIN_LEAVES 8
static bool pin_policy(const host_job *j)
{
    const char *env = getenv("FLIPGRAPH_PINNED");
    if (env && !strcmp(env, "0"))
        return false;
    if (env && !strcmp(env, "1"))
        return true;
    return j->sp->leaves >= (uint64_t)RT_HOST_PIN_LEAVES * (uint64_t)n_exec_of(j->cfg);
}

static void touch_range(void *vctx, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    memset((char *)vctx + (begin << 21), 0, (size_t)((end - begin) << 21));
}

/* Zeroes bytes (a multiple of 2 MiB at p, else the tail too) on `threads`
 * threads: the first touch of fresh pages (the kernel's zeroing, page faults)
 * spread over the cores instead of on one thread or inside a driver call. */
static void zero_parallel(void *p, size_t bytes, int threads)
{
    uint64_t chunks = bytes >> 21;
    rt_parallel(threads, chunks, 1, touch_range, p);
    if (bytes & ((1u << 21) - 1))
        memset((char *)p + (chunks << 21), 0, bytes & ((1u << 21) - 1));
}

typedef struct {
    rt_matrix m;
    bool pinned;
} leaf_buf;

/* A leaf buffer, its pages touched on `threads` threads. */
static bool leaf_buf_alloc(leaf_buf *b, uint64_t rows, uint64_t cols, int threads)
{
    b->m.rows = rows, b->m.cols = cols, b->m.stride = ceil_div(cols, 64);
    b->pinned = false;
    if (!(b->m.w = rt_buf_alloc(rows * b->m.stride, false)))
        return false;
    zero_parallel(b->m.w, (size_t)(rows * b->m.stride * 8), threads);
    return true;
}

static void leaf_buf_free(leaf_buf *b)
{
    if (b->pinned)
        cuda_rt_host_unregister(b->m.w);
    free(b->m.w);
    b->m.w = NULL;
    b->pinned = false;
}

/* One buffer per item: the registrations run side by side. */
/* Buffers to page-lock side by side, for the GPU that copies them: each
 * locking thread selects it first (else the runtime would set up a context on
 * GPU 0 for a product on another GPU). */
typedef struct pin_job {
    leaf_buf **b;
    int device;
} pin_job;

static void pin_range(void *vctx, uint64_t begin, uint64_t end, int thread)
{
    pin_job *pj = vctx;
    (void)thread;
    const bool on = cuda_rt_set_device(pj->device) == 0;
    for (uint64_t i = begin; i < end; i++)
        pj->b[i]->pinned =
            on && cuda_rt_host_register(pj->b[i]->m.w, (size_t)(pj->b[i]->m.rows * pj->b[i]->m.stride * 8)) == 0;
}

/* A worker's pipeline (Karppa, Kaski 2019, 3.16): while its executor multiplies
 * one subproblem, a second thread forms the next ones' operand sums and a third
 * adds finished products into C.  Two rings of `depth` slots, taken in order:
 * the inputs (T, S) go FREE -> READY (sums formed) -> FREE (handed to the
 * executor), the outputs (Q) FREE -> DONE (product) -> FREE (accumulated).
 * With depth >= 2 the executor keeps one subproblem in flight: it submits
 * subproblem i, then finishes i-1 into its output slot, then frees i's input
 * slot once i's operands are on the device, so that the sums never wait for an
 * accumulation and neither waits for a product they do not need.  The CPU
 * executor runs the same loop with two buffers of its own standing in for the
 * device's (submit multiplies into one, finish copies it out), so the CI machine
 * tests the order of the hand-overs.  depth 1 runs the stages one after
 * another. */
enum { SLOT_FREE = 0, SLOT_READY = 1, SLOT_DONE = 2 };
#define LEAF_END UINT64_MAX

typedef struct {
    leaf_buf T, S, Q;
    uint64_t in_leaf, out_leaf; /* LEAF_END: no more */
    int in_state, out_state;
} leaf_slot;

typedef struct {
    host_job *j;
    host_worker *wk;
    rt_executor ex;
    int depth, threads;
    double dev_limit; /* device memory of this executor (device_limit) */
    cuda_rt_session *sess; /* a GPU executor's */
    leaf_buf own[2];       /* the CPU executor's stand-ins for the device's buffer sets */
    leaf_slot slot[RT_HOST_MAX_DEPTH];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    double ts, te, ta, wait_ready, wait_free;
} pipe_t;

/* Waits until *state (a slot's, under pp->mu) is `want` (false when the job
 * stopped); adds the seconds waited to *waited. */
static bool slot_wait(pipe_t *pp, const int *state, int want, double *waited)
{
    double t0 = rt_clock();
    pthread_mutex_lock(&pp->mu);
    while (*state != want && !atomic_load(&pp->j->stop)) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 100000000L; /* a stop elsewhere is seen within 0.1 s */
        if (until.tv_nsec >= 1000000000L)
            until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&pp->cv, &pp->mu, &until);
    }
    bool ok = *state == want;
    pthread_mutex_unlock(&pp->mu);
    if (waited)
        *waited += rt_clock() - t0;
    return ok;
}

static void slot_set(pipe_t *pp, int *state, int value)
{
    pthread_mutex_lock(&pp->mu);
    *state = value;
    pthread_cond_broadcast(&pp->cv);
    pthread_mutex_unlock(&pp->mu);
}

/* Stage 1: operand sums of the next subproblems. */
static void *stage_sums(void *arg)
{
    pipe_t *pp = arg;
    host_job *j = pp->j;
    for (uint64_t n = 0;; n++) {
        int k = (int)(n % (uint64_t)pp->depth);
        leaf_slot *sl = &pp->slot[k];
        if (!slot_wait(pp, &sl->in_state, SLOT_FREE, &pp->wait_free))
            return NULL;
        uint64_t leaf = atomic_load(&j->stop) ? LEAF_END : atomic_fetch_add(&j->next, 1);
        if (leaf >= j->sp->leaves) {
            sl->in_leaf = LEAF_END;
            slot_set(pp, &sl->in_state, SLOT_READY);
            return NULL;
        }
        double t0 = rt_clock();
        for (int side = 0; side < 2; side++) {
            uint64_t *bx = NULL, *by = NULL;
            size_t nb = leaf_blocks(j, leaf, side, &bx, &by);
            if (nb == (size_t)-1) {
                job_fail(j, RT_ENOMEM, "out of memory");
                return NULL;
            }
            rt_matrix *dst = side == 0 ? &sl->T.m : &sl->S.m;
            sum_ctx c = {side == 0 ? j->A : j->B, dst, bx, by, nb, dst->rows, dst->stride, false};
            rt_parallel(j->sum_threads, dst->rows, 256, sum_rows, &c);
            free(bx), free(by);
        }
        pp->ts += rt_clock() - t0;
        sl->in_leaf = leaf;
        slot_set(pp, &sl->in_state, SLOT_READY);
    }
}

/* Stage 3: products into C. */
static void *stage_accumulate(void *arg)
{
    pipe_t *pp = arg;
    host_job *j = pp->j;
    for (uint64_t n = 0;; n++) {
        int k = (int)(n % (uint64_t)pp->depth);
        leaf_slot *sl = &pp->slot[k];
        if (!slot_wait(pp, &sl->out_state, SLOT_DONE, NULL))
            return NULL;
        if (sl->out_leaf == LEAF_END)
            return NULL;
        double t0 = rt_clock();
        uint64_t *bx = NULL, *by = NULL;
        size_t nc = leaf_blocks(j, sl->out_leaf, 2, &bx, &by);
        if (nc == (size_t)-1) {
            job_fail(j, RT_ENOMEM, "out of memory");
            return NULL;
        }
        const rt_matrix *Q = &sl->Q.m;
        for (size_t b = 0; b < nc; b++) {
            pthread_mutex_t *lk = &j->locks[(bx[b] * j->cblocks_col + by[b]) % j->nlocks];
            sum_ctx c = {Q, j->C, &bx[b], &by[b], 1, Q->rows, Q->stride, j->plan->boolean};
            pthread_mutex_lock(lk);
            rt_parallel(j->sum_threads, Q->rows, 256, acc_rows, &c);
            pthread_mutex_unlock(lk);
        }
        free(bx), free(by);
        pp->ta += rt_clock() - t0;
        atomic_fetch_add(&j->done, 1);
        slot_set(pp, &sl->out_state, SLOT_FREE);
    }
}

/* The executor's steps.  submit: subproblem `seq` (this executor's count) from
 * input slot in; uploaded: its operands are no longer needed (the input slot may
 * be reused); finish: its product into output slot out.  A GPU session queues
 * the upload and the product in submit, waits for the upload in uploaded, and
 * downloads and waits in finish.  The CPU executor multiplies into its own
 * buffer seq % 2 in submit and copies it out in finish. */
static rt_status exec_submit(pipe_t *pp, uint64_t seq, leaf_slot *in, char *err, size_t errlen)
{
    host_job *j = pp->j;
    if (!pp->sess)
        return rt_execute(&j->sub, &in->T.m, &in->S.m, &pp->own[seq % 2].m, pp->threads, 0, NULL, err, errlen);
    int rc = cuda_rt_session_submit(pp->sess, seq, in->T.m.w, in->T.m.stride, in->S.m.w, in->S.m.stride, err,
                                    errlen);
    /* after the split was chosen every failure is the device's (exit 3, docs/host-layer.md):
     * a shape the session refuses here is a bug of the plan, not bad input */
    return rc == 0 ? RT_OK : RT_EDEVICE;
}

static rt_status exec_uploaded(pipe_t *pp, uint64_t seq, char *err, size_t errlen)
{
    if (!pp->sess)
        return RT_OK;
    int rc = cuda_rt_session_uploaded(pp->sess, seq, err, errlen);
    /* after the split was chosen every failure is the device's (exit 3, docs/host-layer.md):
     * a shape the session refuses here is a bug of the plan, not bad input */
    return rc == 0 ? RT_OK : RT_EDEVICE;
}

static void copy_rows(void *vctx, uint64_t begin, uint64_t end, int thread)
{
    const rt_matrix *const *m = vctx;
    (void)thread;
    memcpy(m[1]->w + begin * m[1]->stride, m[0]->w + begin * m[0]->stride, (end - begin) * m[0]->stride * 8);
}

static rt_status exec_finish(pipe_t *pp, uint64_t seq, leaf_slot *out, char *err, size_t errlen)
{
    if (!pp->sess) {
        const rt_matrix *m[2] = {&pp->own[seq % 2].m, &out->Q.m};
        rt_parallel(pp->threads, m[0]->rows, 256, copy_rows, m);
        return RT_OK;
    }
    int rc = cuda_rt_session_finish(pp->sess, seq, out->Q.m.w, out->Q.m.stride, err, errlen);
    if (rc != 0)
        return RT_EDEVICE;
    rt_matrix_mask_tail(&out->Q.m);
    return RT_OK;
}

static void *worker_main(void *arg)
{
    host_worker *wk = arg;
    host_job *j = wk->job;
    const rt_host_split *sp = j->sp;
    int n = n_exec_of(j->cfg);
    pipe_t *pp = calloc(1, sizeof *pp);
    pthread_t t_sum, t_acc;
    bool have_sum = false, have_acc = false, sync_ok = false, pinned = false;
    double setup = 0, buffers = 0, lock = 0;
    char err[512] = "";
    if (!pp) {
        job_fail(j, RT_ENOMEM, "out of memory");
        goto finish;
    }
    pp->j = j, pp->wk = wk, pp->ex = exec_of(j->cfg, wk->index);
    pp->depth = j->depth;
    pp->threads = pp->ex.threads > 0 ? pp->ex.threads : rt_default_threads() / n;
    if (pp->threads < 1)
        pp->threads = 1;
    bool gpu = pp->ex.device >= 0;
    double t0 = rt_clock();
    if (gpu) {
        pp->dev_limit = wk->dev_limit;
        int code = 0;
        if (cuda_rt_set_device(pp->ex.device) != 0)
            snprintf(err, sizeof err, "%s", cuda_rt_last_error());
        else
            pp->sess = cuda_rt_session_new(j->gpu_lv, j->sub.levels, j->sub.boolean ? CUDA_BMM_BOOL : CUDA_BMM_GF2,
                                           CUDA_BMM_AUTO, j->sub.rows, j->sub.inner, j->sub.cols, pp->ex.device,
                                           pp->dev_limit, &code, err, sizeof err);
        if (!pp->sess) {
            char msg[700];
            snprintf(msg, sizeof msg, "GPU %d: %s", pp->ex.device, err);
            job_fail(j, RT_EDEVICE, msg); /* after the split was chosen: a device failure */
            goto release;
        }
    }
    setup = rt_clock() - t0;
    t0 = rt_clock();
    for (int k = 0; k < pp->depth; k++) {
        leaf_slot *sl = &pp->slot[k];
        if (!leaf_buf_alloc(&sl->T, sp->leaf_rows, sp->leaf_inner, j->sum_threads) ||
            !leaf_buf_alloc(&sl->S, sp->leaf_inner, sp->leaf_cols, j->sum_threads) ||
            !leaf_buf_alloc(&sl->Q, sp->leaf_rows, sp->leaf_cols, j->sum_threads)) {
            job_fail(j, RT_ENOMEM, "out of memory for a subproblem's buffers");
            goto release;
        }
    }
    for (int k = 0; k < 2 && !gpu; k++)
        if (!leaf_buf_alloc(&pp->own[k], sp->leaf_rows, sp->leaf_cols, j->sum_threads)) {
            job_fail(j, RT_ENOMEM, "out of memory for a subproblem's buffers");
            goto release;
        }
    buffers = rt_clock() - t0;
    t0 = rt_clock();
    if (gpu && pin_policy(j)) {
        /* Page-locked so that the session's copies run at full PCIe speed and
         * asynchronously; a buffer that cannot be locked stays pageable. */
        leaf_buf *bufs[3 * RT_HOST_MAX_DEPTH];
        int nb = 0;
        for (int k = 0; k < pp->depth; k++)
            bufs[nb++] = &pp->slot[k].T, bufs[nb++] = &pp->slot[k].S, bufs[nb++] = &pp->slot[k].Q;
        pin_job pj = {bufs, pp->ex.device};
        rt_parallel(nb, (uint64_t)nb, 1, pin_range, &pj);
        pinned = true;
        for (int i = 0; i < nb; i++)
            pinned = pinned && bufs[i]->pinned;
    }
    lock = rt_clock() - t0;
    pthread_mutex_init(&pp->mu, NULL);
    pthread_cond_init(&pp->cv, NULL);
    sync_ok = true;
    if (pthread_create(&t_sum, NULL, stage_sums, pp) != 0 || !(have_sum = true) ||
        pthread_create(&t_acc, NULL, stage_accumulate, pp) != 0 || !(have_acc = true)) {
        job_fail(j, RT_ENOMEM, "cannot start a host thread for a pipeline");
        goto join;
    }
    /* Stage 2, on this thread: the executor, one subproblem in flight. */
    bool flying = false; /* subproblem seq - 1 submitted and not finished */
    uint64_t flying_leaf = 0;
    for (uint64_t seq = 0;; seq++) {
        leaf_slot *in = &pp->slot[seq % (uint64_t)pp->depth];
        if (!slot_wait(pp, &in->in_state, SLOT_READY, &pp->wait_ready))
            break;
        uint64_t leaf = in->in_leaf;
        bool end = leaf == LEAF_END;
        rt_status st = RT_OK;
        uint64_t failed = leaf;
        double t1 = rt_clock();
        if (!end)
            st = exec_submit(pp, seq, in, err, sizeof err);
        /* the previous subproblem's product, then (depth 1) this one's, into
         * their output slots */
        for (int f = 0; f < 2 && st == RT_OK; f++) {
            bool prev = f == 0;
            if (prev ? !flying : (end || pp->depth > 1))
                continue;
            uint64_t fs = prev ? seq - 1 : seq;
            leaf_slot *out = &pp->slot[fs % (uint64_t)pp->depth];
            if (!slot_wait(pp, &out->out_state, SLOT_FREE, NULL)) {
                st = RT_EDIMS; /* stopped elsewhere; that failure is the one reported */
                break;
            }
            failed = prev ? flying_leaf : leaf;
            if ((st = exec_finish(pp, fs, out, err, sizeof err)) != RT_OK)
                break;
            out->out_leaf = failed;
            slot_set(pp, &out->out_state, SLOT_DONE);
            if (prev)
                flying = false;
        }
        if (st == RT_OK && !end) {
            failed = leaf;
            st = exec_uploaded(pp, seq, err, sizeof err);
        }
        pp->te += rt_clock() - t1;
        if (st != RT_OK) {
            if (!atomic_load(&j->stop)) {
                char msg[700];
                snprintf(msg, sizeof msg, "subproblem %" PRIu64 " on %s %d: %s", failed,
                         gpu ? "GPU" : "CPU executor", gpu ? pp->ex.device : wk->index, err);
                job_fail(j, st, msg);
            }
            break;
        }
        if (end) {
            /* the end, after the last product, for the accumulation */
            leaf_slot *out = &pp->slot[seq % (uint64_t)pp->depth];
            if (slot_wait(pp, &out->out_state, SLOT_FREE, NULL)) {
                out->out_leaf = LEAF_END;
                slot_set(pp, &out->out_state, SLOT_DONE);
            }
            break;
        }
        slot_set(pp, &in->in_state, SLOT_FREE);
        if (pp->depth > 1)
            flying = true, flying_leaf = leaf;
    }
join:
    if (have_sum)
        pthread_join(t_sum, NULL);
    if (have_acc)
        pthread_join(t_acc, NULL);
release:
    if (pp && pp->sess) {
        cuda_rt_session_stats cs;
        cuda_rt_session_stats_get(pp->sess, &cs);
        pthread_mutex_lock(&j->err_lock);
        j->dev.ms_h2d += cs.ms_h2d, j->dev.ms_compute += cs.ms_compute, j->dev.ms_d2h += cs.ms_d2h;
        j->dev.ms_pack += cs.ms_pack, j->dev.ms_expand += cs.ms_expand, j->dev.ms_inner += cs.ms_inner;
        j->dev.ms_compress += cs.ms_compress, j->dev.ms_unpack += cs.ms_unpack, j->dev.ms_idle += cs.ms_idle;
        j->dev.h2d_bytes += cs.h2d_bytes, j->dev.d2h_bytes += cs.d2h_bytes;
        j->dev.products += cs.products;
        j->dev.device_bytes = cs.device_bytes > j->dev.device_bytes ? cs.device_bytes : j->dev.device_bytes;
        j->gpus++;
        pthread_mutex_unlock(&j->err_lock);
        double t2 = rt_clock();
        cuda_rt_session_free(pp->sess);
        setup += rt_clock() - t2;
        pp->sess = NULL;
    }
    if (pp) {
        double t3 = rt_clock();
        for (int k = 0; k < pp->depth; k++) {
            leaf_buf_free(&pp->slot[k].T);
            leaf_buf_free(&pp->slot[k].S);
            leaf_buf_free(&pp->slot[k].Q);
        }
        leaf_buf_free(&pp->own[0]);
        leaf_buf_free(&pp->own[1]);
        /* unlocking is part of locking's price, freeing of the buffers' */
        if (pinned)
            lock += rt_clock() - t3;
        else
            buffers += rt_clock() - t3;
        pthread_mutex_lock(&j->err_lock);
        j->t_sums += pp->ts, j->t_exec += pp->te, j->t_acc += pp->ta;
        j->wait_ready += pp->wait_ready, j->wait_free += pp->wait_free;
        j->setup = setup > j->setup ? setup : j->setup;
        j->buffers = buffers > j->buffers ? buffers : j->buffers;
        j->lock = lock > j->lock ? lock : j->lock;
        j->pinned = j->pinned || pinned;
        pthread_mutex_unlock(&j->err_lock);
        if (sync_ok) {
            pthread_mutex_destroy(&pp->mu);
            pthread_cond_destroy(&pp->cv);
        }
    }
    free(pp);
finish:
    pthread_mutex_lock(&j->err_lock);
    j->finished++;
    pthread_cond_signal(&j->finished_cond);
    pthread_mutex_unlock(&j->err_lock);
    return NULL;
}

rt_status rt_host_execute(const export_plan *p, const rt_host_split *sp, const rt_host_config *cfg,
                          const rt_matrix *A, const rt_matrix *B, rt_matrix *C, rt_host_stats *stats,
                          char *err, size_t errlen)
{
    double t0 = rt_clock();
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (!p->sized || A->rows != p->rows || A->cols != p->inner || B->rows != p->inner ||
        B->cols != p->cols || C->rows != A->rows || C->cols != B->cols) {
        scheme_fail(err, errlen, "the matrices do not fit the plan's sizes");
        return RT_EDIMS;
    }
    int n = n_exec_of(cfg);
    int all_threads = cfg && cfg->threads > 0 ? cfg->threads : rt_default_threads();
    if (sp->in_core) {
        rt_executor ex = exec_of(cfg, 0);
        rt_stats rs;
        memset(&rs, 0, sizeof rs);
        if (ex.device >= 0) {
            /* C's pages touched on every thread before the download writes into
             * them: else their first-touch faults run inside the driver's copy,
             * on one thread. */
            double tz = rt_clock();
            zero_parallel(C->w, (size_t)(C->rows * C->stride * 8), all_threads);
            if (stats)
                stats->zero_c = rt_clock() - tz;
        }
        /* FLIPGRAPH_PIN_OPERANDS=1: A, B and C page-locked for the call, to
         * measure what locking costs against the pageable copies it saves
         * (the profile's "host buffers"). */
        const char *pin_env = getenv("FLIPGRAPH_PIN_OPERANDS");
        leaf_buf ops[3] = {{*A, false}, {*B, false}, {*C, false}};
        leaf_buf *opp[3] = {&ops[0], &ops[1], &ops[2]};
        bool pin_ops = ex.device >= 0 && pin_env && !strcmp(pin_env, "1");
        if (pin_ops) {
            double tp = rt_clock();
            pin_job pj = {opp, ex.device};
            rt_parallel(3, 3, 1, pin_range, &pj);
            if (stats)
                stats->lock = rt_clock() - tp, stats->pinned = ops[0].pinned && ops[1].pinned && ops[2].pinned;
        }
        rt_status st = ex.device >= 0
                           ? rt_execute_device(p, A, B, C, ex.device, cfg ? cfg->max_device_bytes : 0, &rs, err, errlen)
                           : rt_execute(p, A, B, C, ex.threads, cfg ? cfg->max_host_bytes : 0, &rs, err, errlen);
        if (pin_ops) {
            double tp = rt_clock();
            for (int i = 0; i < 3; i++)
                if (ops[i].pinned)
                    cuda_rt_host_unregister(ops[i].m.w);
            if (stats)
                stats->lock += rt_clock() - tp;
        }
        if (cfg && cfg->progress && st == RT_OK)
            cfg->progress(cfg->progress_ctx, 1, 1, rt_clock() - t0);
        if (stats) {
            stats->total = rt_clock() - t0;
            stats->exec = rs.total;
            stats->gpus = ex.device >= 0;
            stats->leaves = 1;
            stats->in_core = rs;
        }
        return st;
    }
    if (p->boolean && sp->host_levels > 0) {
        scheme_fail(err, errlen, "Boolean products take tiles only on the host (no host levels)");
        return RT_EDIMS;
    }

    host_job *j = calloc(1, sizeof *j);
    host_worker *wk = calloc((size_t)n, sizeof *wk);
    rt_status st = RT_ENOMEM;
    uint64_t nlocks = 0;
    if (!j || !wk)
        goto done;
    j->plan = p, j->sp = sp, j->cfg = cfg, j->A = A, j->B = B, j->C = C;
    if (!sub_plan(p, sp->host_levels, sp->leaf_rows, sp->leaf_inner, sp->leaf_cols, &j->sub, err, errlen)) {
        st = RT_EDIMS;
        goto done;
    }
    for (int l = 0; l < sp->host_levels; l++) {
        if (!level_from_plan(&j->lv[l], &p->level[l]))
            goto done;
        j->nl = l + 1;
    }
    if (!level_tiles(&j->lv[j->nl], sp->tiles[0], sp->tiles[1], sp->tiles[2]))
        goto done;
    j->nl++;
    uint64_t crows = 1;
    j->cblocks_col = 1;
    for (int l = 0; l < j->nl; l++)
        crows *= (uint64_t)j->lv[l].s, j->cblocks_col *= (uint64_t)j->lv[l].u;
    /* Striped: lock i guards the blocks of C numbered i modulo the count. */
    nlocks = crows * j->cblocks_col < 4096 ? crows * j->cblocks_col : 4096;
    j->nlocks = nlocks;
    if (!(j->locks = malloc((size_t)nlocks * sizeof *j->locks)))
        goto done;
    for (uint64_t i = 0; i < nlocks; i++)
        pthread_mutex_init(&j->locks[i], NULL);
    pthread_mutex_init(&j->err_lock, NULL);
    pthread_cond_init(&j->finished_cond, NULL);
    j->status = RT_OK;
    j->depth = pipeline_depth(cfg);
    j->sum_threads = all_threads / n;
    if (j->sum_threads < 1)
        j->sum_threads = 1;
    rt_gpu_levels(&j->sub, j->gpu_lv);
    double tz = rt_clock();
    zero_parallel(C->w, (size_t)(C->rows * C->stride * 8), all_threads);
    double zero_c = rt_clock() - tz;

    /* every GPU executor's share of its device before any worker starts: a
     * worker's session allocates at once, and a share read after it would be
     * smaller than the one the split was checked against (try_split) */
    for (int i = 0; i < n; i++)
        if (exec_of(cfg, i).device >= 0)
            wk[i].dev_limit = device_limit(cfg, exec_of(cfg, i).device);
    int started = 0;
    for (int i = 0; i < n; i++) {
        wk[i].job = j, wk[i].index = i;
        if (pthread_create(&wk[i].tid, NULL, worker_main, &wk[i]) != 0) {
            job_fail(j, RT_ENOMEM, "cannot start a host thread for an executor");
            break;
        }
        wk[i].started = true;
        started++;
    }
    /* Wait for the workers, reporting progress twice a second. */
    pthread_mutex_lock(&j->err_lock);
    while (j->finished < started) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 500000000L;
        if (until.tv_nsec >= 1000000000L)
            until.tv_sec++, until.tv_nsec -= 1000000000L;
        int w = pthread_cond_timedwait(&j->finished_cond, &j->err_lock, &until);
        if (w == ETIMEDOUT && cfg && cfg->progress) {
            pthread_mutex_unlock(&j->err_lock);
            cfg->progress(cfg->progress_ctx, atomic_load(&j->done), sp->leaves, rt_clock() - t0);
            pthread_mutex_lock(&j->err_lock);
        }
    }
    pthread_mutex_unlock(&j->err_lock);
    for (int i = 0; i < n; i++)
        if (wk[i].started)
            pthread_join(wk[i].tid, NULL);
    st = j->status;
    if (st != RT_OK) {
        scheme_fail(err, errlen, "%s", j->err);
    } else {
        rt_matrix_mask_tail(C);
        if (cfg && cfg->progress)
            cfg->progress(cfg->progress_ctx, sp->leaves, sp->leaves, rt_clock() - t0);
    }
    if (stats) {
        stats->sums = j->t_sums, stats->exec = j->t_exec, stats->accumulate = j->t_acc;
        stats->leaves = atomic_load(&j->done);
        stats->zero_c = zero_c;
        stats->wait_sums = j->wait_ready, stats->wait_free = j->wait_free;
        stats->setup = j->setup, stats->buffers = j->buffers, stats->lock = j->lock, stats->pinned = j->pinned;
        stats->gpus = j->gpus;
        stats->dev_h2d = j->dev.ms_h2d / 1e3, stats->dev_compute = j->dev.ms_compute / 1e3;
        stats->dev_d2h = j->dev.ms_d2h / 1e3, stats->dev_idle = j->dev.ms_idle / 1e3;
        stats->dev_pack = j->dev.ms_pack / 1e3, stats->dev_expand = j->dev.ms_expand / 1e3;
        stats->dev_inner = j->dev.ms_inner / 1e3, stats->dev_compress = j->dev.ms_compress / 1e3;
        stats->dev_unpack = j->dev.ms_unpack / 1e3;
        stats->h2d_bytes = j->dev.h2d_bytes, stats->d2h_bytes = j->dev.d2h_bytes;
        stats->device_bytes = j->dev.device_bytes;
    }
    for (uint64_t i = 0; i < nlocks; i++)
        pthread_mutex_destroy(&j->locks[i]);
    pthread_mutex_destroy(&j->err_lock);
    pthread_cond_destroy(&j->finished_cond);
done:
    if (st == RT_ENOMEM && j && j->status == RT_OK)
        scheme_fail(err, errlen, "out of memory");
    if (j) {
        for (int l = 0; l < j->nl; l++)
            level_free(&j->lv[l]);
        free(j->locks);
    }
    free(j);
    free(wk);
    if (stats)
        stats->total = rt_clock() - t0;
    return st;
}
