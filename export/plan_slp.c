/* Straight-line programs over GF(2) for the levels of a plan.
 *
 * Each level of Yates's algorithm multiplies many vectors by one small 0/1
 * matrix (Karppa, Kaski 2019, (30)-(32)); its cost is the number of additions of a
 * straight-line program for that matrix, so the plan shares common
 * subexpressions.  The method is Paar's greedy pair elimination (Paar 1997): while some row
 * has two or more variables, take the pair of variables that occurs together in
 * the most rows, make it a new variable, and substitute it.  Ties matter, so a
 * few seeded tie-breaks are tried and the shortest program kept; the result is
 * deterministic.
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"

typedef struct {
    int n, cap;
    int *v; /* sorted variable indices */
} row_t;

typedef struct {
    uint64_t *key; /* (a << 32 | b) + 1, 0 = empty */
    int *count;
    size_t mask;
} pair_map;

/* Beyond this many pairs in one round the matrix is too dense to be worth
 * sharing; its rows are then chained plainly (never met by schemes of 64-entry
 * formats, whose rows have at most 64 variables on the A and B sides). */
#define SLP_MAX_PAIRS (1u << 22)
#define SLP_TRIES 12

static bool row_push(row_t *r, int v)
{
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 8;
        int *nv = realloc(r->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return false;
        r->v = nv;
        r->cap = cap;
    }
    r->v[r->n++] = v;
    return true;
}

static bool ops_push(uint32_t **src, int *n_ops, int *cap, int a, int b)
{
    if (*n_ops == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        uint32_t *ns = realloc(*src, (size_t)nc * 2 * sizeof *ns);
        if (!ns)
            return false;
        *src = ns;
        *cap = nc;
    }
    (*src)[2 * *n_ops] = (uint32_t)a;
    (*src)[2 * *n_ops + 1] = (uint32_t)b;
    (*n_ops)++;
    return true;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* One greedy run; tie-breaks by rng (seed 0: the first pair in row order). */
static bool slp_greedy(const uint8_t *m, int n_out, int n_in, uint64_t seed,
                       uint32_t **src_out, int *n_ops_out, int32_t *out)
{
    bool ok = false;
    row_t *rows = calloc((size_t)(n_out ? n_out : 1), sizeof *rows);
    uint32_t *src = NULL;
    int n_ops = 0, cap = 0;
    pair_map pm = {0};
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    if (!rows)
        goto done;
    for (int o = 0; o < n_out; o++)
        for (int v = 0; v < n_in; v++)
            if (m[(size_t)o * n_in + v] && !row_push(&rows[o], v))
                goto done;

    for (;;) {
        size_t pairs = 0;
        for (int o = 0; o < n_out; o++)
            pairs += (size_t)rows[o].n * (rows[o].n - 1) / 2;
        if (pairs == 0)
            break;
        if (pairs > SLP_MAX_PAIRS) {
            /* Too dense to share: chain each row plainly. */
            for (int o = 0; o < n_out; o++) {
                while (rows[o].n > 1) {
                    int a = rows[o].v[0], b = rows[o].v[1];
                    if (!ops_push(&src, &n_ops, &cap, a, b))
                        goto done;
                    memmove(rows[o].v, rows[o].v + 1, (size_t)(rows[o].n - 1) * sizeof(int));
                    rows[o].n--;
                    rows[o].v[0] = n_in + n_ops - 1; /* the new variable replaces both */
                }
            }
            break;
        }
        size_t size = 16;
        while (size < 2 * pairs)
            size <<= 1;
        if (size > pm.mask + 1 || !pm.key) {
            free(pm.key);
            free(pm.count);
            pm.key = malloc(size * sizeof *pm.key);
            pm.count = malloc(size * sizeof *pm.count);
            if (!pm.key || !pm.count)
                goto done;
            pm.mask = size - 1;
        }
        memset(pm.key, 0, (pm.mask + 1) * sizeof *pm.key);
        int best = 0, ties = 0;
        uint64_t best_key = 0;
        for (int o = 0; o < n_out; o++) {
            const row_t *r = &rows[o];
            for (int x = 0; x < r->n; x++)
                for (int y = x + 1; y < r->n; y++) {
                    uint64_t key = ((uint64_t)r->v[x] << 32 | (uint64_t)r->v[y]) + 1;
                    size_t h = mix64(key) & pm.mask;
                    while (pm.key[h] && pm.key[h] != key)
                        h = (h + 1) & pm.mask;
                    if (!pm.key[h]) {
                        pm.key[h] = key;
                        pm.count[h] = 0;
                    }
                    int c = ++pm.count[h];
                    if (c > best) {
                        best = c;
                        best_key = key;
                        ties = 1;
                    } else if (c == best && seed && key != best_key) {
                        /* Reservoir choice among the pairs that reach the maximum. */
                        if (scheme_rng_below(&rng, (uint32_t)++ties) == 0)
                            best_key = key;
                    }
                }
        }
        int a = (int)((best_key - 1) >> 32), b = (int)((best_key - 1) & 0xffffffffu);
        if (!ops_push(&src, &n_ops, &cap, a, b))
            goto done;
        int nv = n_in + n_ops - 1;
        for (int o = 0; o < n_out; o++) {
            row_t *r = &rows[o];
            int ia = -1, ib = -1;
            for (int x = 0; x < r->n; x++) {
                if (r->v[x] == a) ia = x;
                if (r->v[x] == b) ib = x;
            }
            if (ia < 0 || ib < 0)
                continue;
            int w = 0;
            for (int x = 0; x < r->n; x++)
                if (x != ia && x != ib)
                    r->v[w++] = r->v[x];
            r->n = w;
            if (!row_push(r, nv)) /* the largest index: the row stays sorted */
                goto done;
        }
    }
    for (int o = 0; o < n_out; o++)
        out[o] = rows[o].n ? rows[o].v[0] : -1;
    *src_out = src;
    *n_ops_out = n_ops;
    src = NULL;
    ok = true;
done:
    if (rows)
        for (int o = 0; o < n_out; o++)
            free(rows[o].v);
    free(rows);
    free(src);
    free(pm.key);
    free(pm.count);
    return ok;
}

bool export_plan_slp_build(export_plan_slp *slp, const uint8_t *m, int n_out, int n_in)
{
    memset(slp, 0, sizeof *slp);
    slp->n_in = n_in;
    slp->n_out = n_out;
    int naive = 0;
    for (int o = 0; o < n_out; o++) {
        int w = 0;
        for (int v = 0; v < n_in; v++)
            w += m[(size_t)o * n_in + v] != 0;
        naive += w > 1 ? w - 1 : 0;
    }
    slp->naive_ops = naive;
    int32_t *out = malloc((size_t)(n_out ? n_out : 1) * sizeof *out);
    int32_t *try_out = malloc((size_t)(n_out ? n_out : 1) * sizeof *try_out);
    if (!out || !try_out) {
        free(out);
        free(try_out);
        return false;
    }
    uint32_t *best_src = NULL;
    int best_ops = -1;
    for (int t = 0; t < SLP_TRIES; t++) {
        uint32_t *src = NULL;
        int n_ops = 0;
        /* Try 0 is the plain first-pair greedy; the others break ties at random. */
        if (!slp_greedy(m, n_out, n_in, t ? 0x9e3779b97f4a7c15ull * (uint64_t)t : 0, &src,
                        &n_ops, try_out)) {
            free(best_src);
            free(out);
            free(try_out);
            return false;
        }
        if (best_ops < 0 || n_ops < best_ops) {
            free(best_src);
            best_src = src;
            best_ops = n_ops;
            memcpy(out, try_out, (size_t)n_out * sizeof *out);
        } else {
            free(src);
        }
        if (best_ops <= 0)
            break;
    }
    free(try_out);
    slp->src = best_src;
    slp->n_ops = best_ops;
    slp->out = out;
    return true;
}

void export_plan_slp_free(export_plan_slp *slp)
{
    free(slp->src);
    free(slp->out);
    slp->src = NULL;
    slp->out = NULL;
}

void export_plan_slp_eval(const export_plan_slp *slp, const uint64_t *in, uint64_t *out)
{
    size_t nreg = (size_t)slp->n_in + (size_t)slp->n_ops;
    uint64_t *reg = malloc((nreg ? nreg : 1) * sizeof *reg);
    if (!reg) {
        for (int o = 0; o < slp->n_out; o++)
            out[o] = 0;
        return;
    }
    memcpy(reg, in, (size_t)slp->n_in * sizeof *reg);
    for (int k = 0; k < slp->n_ops; k++)
        reg[slp->n_in + k] = reg[slp->src[2 * k]] ^ reg[slp->src[2 * k + 1]];
    for (int o = 0; o < slp->n_out; o++)
        out[o] = slp->out[o] < 0 ? 0 : reg[slp->out[o]];
    free(reg);
}
