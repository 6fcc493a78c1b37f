/* The walk over Z (docs/search.md, "Searching over Z"): the plain walker's
 * index and uniform flip draw (walker.c) with integer factors.
 *
 * Each factor is an int8 vector (its entries in the bit order of scheme.h).
 * The walker's key for it, w->f[slot << 2 | pos], is a nonzero 64-bit hash of
 * the factor up to sign (the vector times the sign of its first nonzero
 * entry), so one bucket holds the terms whose factors there are equal up to
 * sign, and walker.c's M2/M3 lists, histogram and draw work unchanged: a
 * uniform ordered pair (s, u) sharing position x up to sign.  Every move
 * compares the vectors themselves before it changes anything, so a hash
 * collision costs a rejected draw, never a wrong scheme.
 *
 *   flip       x_s = sg x_u, mu = +1 or -1 at random: y_s += mu y_u,
 *              z_u -= mu sg z_s (search_z_flip);
 *   reduction  s and u equal up to sign at two positions (search_z_reduce_pair),
 *              checked after every change of a factor, as the plain walker
 *              checks pairs; dependent sets (gen-max > 2) are not searched;
 *   plus       search_z_plus on two terms equal up to sign nowhere.
 * A move that would make a coefficient larger than coef_max in absolute value
 * is not taken: a flip draws again (up to 8 draws, then the step passes), a
 * reduction is not one.  Perminov's ternary_flip_graph walks coefficients in
 * {-1, 0, 1} (our coef-max 1) the same way (docs/references.md). */
#include "walker_impl.h"

#include <math.h>
#include <string.h>

typedef struct z_walk {
    int size[3];          /* entries of a factor at each position, padded to 16 (zeros past its own) */
    int coef_max;
    int8_t *v;            /* v[(slot * 3 + pos) * 64 + e] */
} z_walk;

#define ZW_TRIES 8

static inline int8_t *zv(const search_walker *w, int32_t s, int pos)
{
    return w->zw->v + ((size_t)s * 3 + (size_t)pos) * SCHEME_MAX_ENTRIES;
}

/* The key of a factor up to sign; 0 for the zero vector.  n is a multiple of
 * 8 (z_walk.size). */
static uint64_t z_key(const int8_t *v, int n)
{
    int e = 0;
    while (e < n && !v[e])
        e++;
    if (e == n)
        return 0;
    int8_t t[SCHEME_MAX_ENTRIES];
    if (v[e] < 0) { /* the sign of the first nonzero entry taken out */
        for (int k = 0; k < n; k++)
            t[k] = (int8_t)-v[k];
        v = t;
    }
    uint64_t h = 0x243F6A8885A308D3ull ^ (uint64_t)n;
    for (int k = 0; k < n; k += 8) {
        uint64_t x;
        memcpy(&x, v + k, 8);
        h = (h ^ x) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h | 1;
}

/* The loops below run over 16 entries at a time with a constant trip count,
 * branch-free, so that -O2 vectorizes them; the entries past a factor's own
 * are zero in every vector.  The walker's coefficients stay within 63 (the
 * engine refuses starts with larger ones, moves stay within coef-max), so int8
 * sums cannot wrap. */
#define ZW_CHUNK 16

/* +1: a = b, -1: a = -b, 0: neither (a is never zero here). */
static int z_rel(const int8_t *a, const int8_t *b, int n)
{
    uint8_t diff = 0, sum = 0;
    for (int c = 0; c < n; c += ZW_CHUNK)
        for (int k = 0; k < ZW_CHUNK; k++) {
            diff |= (uint8_t)(a[c + k] ^ b[c + k]);
            sum |= (uint8_t)(a[c + k] + b[c + k]);
        }
    return !diff ? 1 : !sum ? -1 : 0;
}

/* The nonzero entries of a factor (n a multiple of 16, zeros past its own). */
static int z_nonzeros(const int8_t *v, int n)
{
    int c = 0;
    for (int k = 0; k < n; k++)
        c += v[k] != 0;
    return c;
}

/* out = a + mul * b (mul = +1 or -1) within the bound; false when an entry passes it. */
static bool z_add(int8_t *out, const int8_t *a, const int8_t *b, int mul, int n, int cmax)
{
    const int8_t hi = (int8_t)cmax, lo = (int8_t)-cmax;
    uint8_t bad = 0;
    for (int c = 0; c < n; c += ZW_CHUNK)
        if (mul > 0)
            for (int k = 0; k < ZW_CHUNK; k++) {
                const int8_t x = (int8_t)(a[c + k] + b[c + k]);
                bad |= (uint8_t)((x > hi) | (x < lo));
                out[c + k] = x;
            }
        else
            for (int k = 0; k < ZW_CHUNK; k++) {
                const int8_t x = (int8_t)(a[c + k] - b[c + k]);
                bad |= (uint8_t)((x > hi) | (x < lo));
                out[c + k] = x;
            }
    return !bad;
}

/* Factor pos of slot s becomes nv (re-indexed, queued); the term goes when nv is zero. */
static void z_set(search_walker *w, int32_t s, int pos, const int8_t *nv)
{
    const int n = w->zw->size[pos];
    walker_idx_remove(w, s, pos);
    memcpy(zv(w, s, pos), nv, (size_t)n);
    const uint64_t k = z_key(nv, n);
    if (!k) {
        walker_term_remove(w, s);
        return;
    }
    w->f[s << 2 | pos] = k;
    walker_idx_add(w, s, pos);
    walker_work_push(w, s, pos);
}

/* A term equal to s up to sign at two positions: the reduction, when it stays
 * within the bound.  After the factor at q changed, such a pair shares q and
 * another position, or the other two positions (a reduction that was over the
 * bound may fit now): the buckets of s at q and at q+1 hold every such term. */
static bool z_check_pair(search_walker *w, int32_t s, int q)
{
    const z_walk *z = w->zw;
    for (int k = 0; k < 2; k++) {
        const int b = k ? pos_y(q) : q, r1 = pos_y(b), r2 = pos_z(b);
        for (int32_t u = w->bk[w->node[s << 2 | b].bid].head; u >= 0; u = w->node[u << 2 | b].nxt) {
            if (u == s)
                continue;
            const int sb = z_rel(zv(w, u, b), zv(w, s, b), z->size[b]);
            if (!sb)
                continue;
            int t = 0, differ = -1;
            if (w->f[u << 2 | r1] == w->f[s << 2 | r1] && (t = z_rel(zv(w, u, r1), zv(w, s, r1), z->size[r1])))
                differ = r2;
            else if (w->f[u << 2 | r2] == w->f[s << 2 | r2] &&
                     (t = z_rel(zv(w, u, r2), zv(w, s, r2), z->size[r2])))
                differ = r1;
            if (differ < 0)
                continue;
            /* term u = sb t (b_s (x) o_s (x) d_u), o the shared other position: s takes
             * d_s + sb t d_u, u goes */
            int8_t nv[SCHEME_MAX_ENTRIES];
            if (!z_add(nv, zv(w, s, differ), zv(w, u, differ), sb * t, z->size[differ], z->coef_max))
                continue;
            walker_term_remove(w, u);
            w->st.reductions++;
            z_set(w, s, differ, nv); /* removes s too when the sum is zero */
            if (w->apos[s] >= 0)
                walker_work_push(w, s, q);
            return true;
        }
    }
    return false;
}

static void z_process(search_walker *w)
{
    while (w->nwork) {
        const int32_t code = w->work[--w->nwork];
        const int32_t s = code >> 2;
        if (w->apos[s] >= 0)
            z_check_pair(w, s, code & 3);
    }
}

/* ---- life cycle ---- */

z_walk *z_new(const search_params *p, int cap)
{
    z_walk *z = calloc(1, sizeof *z);
    if (!z)
        return NULL;
    /* every loop runs over the size padded to 16 entries (vectorized); the
     * entries past a factor's own stay zero in every vector */
    for (int pos = 0; pos < 3; pos++) {
        const int n = scheme_factor_size(p->fmt, pos);
        z->size[pos] = (n + 15) / 16 * 16 > SCHEME_MAX_ENTRIES ? SCHEME_MAX_ENTRIES : (n + 15) / 16 * 16;
    }
    z->coef_max = p->coef_max > 0 ? p->coef_max : 1;
    z->v = calloc((size_t)cap * 3 * SCHEME_MAX_ENTRIES, 1);
    if (!z->v) {
        free(z);
        return NULL;
    }
    return z;
}

void z_free(z_walk *z)
{
    if (!z)
        return;
    free(z->v);
    free(z);
}

/* A term from three vectors: its keys, a slot, the coefficients there; the
 * slot, or -1 for a zero factor (no term). */
static int32_t z_term_add(search_walker *w, const int8_t *a, const int8_t *b, const int8_t *c)
{
    const z_walk *z = w->zw;
    const int8_t *f[3] = {a, b, c};
    uint64_t k[3];
    for (int pos = 0; pos < 3; pos++)
        if (!(k[pos] = z_key(f[pos], z->size[pos])))
            return -1; /* a zero factor: no term */
    const int32_t s = walker_term_add(w, k[0], k[1], k[2]);
    for (int pos = 0; pos < 3; pos++)
        memcpy(zv(w, s, pos), f[pos], (size_t)z->size[pos]);
    return s;
}

bool z_reset(search_walker *w, const scheme *s, bool reduced)
{
    if (s->rank > w->cap)
        return false;
    walker_clear(w);
    for (int r = 0; r < s->rank; r++) {
        int8_t f[3][SCHEME_MAX_ENTRIES] = {{0}};
        for (int pos = 0; pos < 3; pos++)
            for (int e = 0; e < w->zw->size[pos]; e++)
                f[pos][e] = s->ring == SCHEME_RING_Z ? s->zterms[r].z[pos][e]
                                                     : (int8_t)(s->terms[r].f[pos] >> e & 1);
        z_term_add(w, f[0], f[1], f[2]);
    }
    if (reduced)
        w->nwork = 0; /* the caller vouches that no reduction is left */
    else
        z_process(w);
    return true;
}

/* ---- moves ---- */

bool z_flip(search_walker *w)
{
    const z_walk *z = w->zw;
    if (!w->nM[0] && !w->nM[1]) {
        w->st.no_flip++;
        return false;
    }
    for (int tries = 0; tries < ZW_TRIES; tries++) {
        int32_t s, u;
        int x;
        if (!walker_draw_pair_tabu(w, &s, &u, &x))
            continue; /* only the plus's roads back were drawn */
        const int y = pos_y(x), q = pos_z(x);
        const int sg = z_rel(zv(w, s, x), zv(w, u, x), z->size[x]);
        const int mu = scheme_rng_next(&w->rng) >> 63 ? 1 : -1;
        int8_t ny[SCHEME_MAX_ENTRIES], nz[SCHEME_MAX_ENTRIES];
        if (!sg || !z_add(ny, zv(w, s, y), zv(w, u, y), mu, z->size[y], z->coef_max) ||
            !z_add(nz, zv(w, u, q), zv(w, s, q), -mu * sg, z->size[q], z->coef_max)) {
            w->st.rejected++;
            continue;
        }
        w->st.flips++;
        /* the weight bias (docs/search.md, "The weight bias"): d, the nonzero
         * coefficients the flip adds, from the two factors it changes; the
         * degree bias ("The degree bias"): D, the flips the index offers,
         * before and after */
        const int before = w->rank;
        const uint64_t d0 = w->degree_bias > 0 ? walker_degree(w) : 0;
        const int dw = w->weight_bias > 0 ? z_nonzeros(ny, z->size[y]) - z_nonzeros(zv(w, s, y), z->size[y]) +
                                                z_nonzeros(nz, z->size[q]) - z_nonzeros(zv(w, u, q), z->size[q])
                                          : 0;
        int8_t oy[SCHEME_MAX_ENTRIES], oz[SCHEME_MAX_ENTRIES];
        if (dw > 0 || w->degree_bias > 0) {
            memcpy(oy, zv(w, s, y), (size_t)z->size[y]);
            memcpy(oz, zv(w, u, q), (size_t)z->size[q]);
        }
        z_set(w, s, y, ny); /* s goes when ny is zero; nz was computed first */
        z_set(w, u, q, nz);
        z_process(w);
        /* No reduction (the rank is kept, so no term went and s, u are where
         * they were): the Metropolis test of walker.c's biased flips, the old
         * factors put back when it fails.  The flip with -mu is its inverse
         * (x_s = sg x_u still), drawn from the new scheme with probability
         * 1/(2 D') as this one was with 1/(2 D): the ratio D/D' as over GF(2)
         * (up to draws the bound refuses); walker_bias_rejects. */
        if (w->rank == before && walker_bias_rejects(w, d0, w->degree_bias > 0 ? walker_degree(w) : 0, dw)) {
            z_set(w, s, y, oy);
            z_set(w, u, q, oz);
            z_process(w);
            w->st.undone++;
        }
        return true;
    }
    return true; /* every draw passed the bound: the step passes */
}

bool z_plus(search_walker *w)
{
    const z_walk *z = w->zw;
    if (w->rank < 2 || w->rank >= w->cap)
        return false;
    for (int tries = 0; tries < 64; tries++) {
        const int32_t i = w->alive[scheme_rng_below(&w->rng, (uint32_t)w->rank)];
        const int32_t j = w->alive[scheme_rng_below(&w->rng, (uint32_t)w->rank)];
        if (i == j)
            continue;
        const uint64_t *fi = &w->f[i << 2], *fj = &w->f[j << 2];
        if (fi[0] == fj[0] || fi[1] == fj[1] || fi[2] == fj[2])
            continue;
        const int x = (int)scheme_rng_below(&w->rng, 3), y = pos_y(x), q = pos_z(x);
        const int sg = scheme_rng_next(&w->rng) >> 63 ? 1 : -1;
        /* (X, Y, Z) = (sg x_j, sg y_j, z_j): i -> (x_i - X, y_i, z_i), j -> (X, Y, Z - z_i),
         * new (X, y_i + Y, z_i) */
        int8_t X[SCHEME_MAX_ENTRIES], Y[SCHEME_MAX_ENTRIES], xi[SCHEME_MAX_ENTRIES], yn[SCHEME_MAX_ENTRIES],
            zj[SCHEME_MAX_ENTRIES], zi[SCHEME_MAX_ENTRIES];
        for (int e = 0; e < z->size[x]; e++)
            X[e] = (int8_t)(sg * zv(w, j, x)[e]);
        for (int e = 0; e < z->size[y]; e++)
            Y[e] = (int8_t)(sg * zv(w, j, y)[e]);
        memcpy(zi, zv(w, i, q), (size_t)z->size[q]);
        if (!z_add(xi, zv(w, i, x), X, -1, z->size[x], z->coef_max) ||
            !z_add(yn, zv(w, i, y), Y, 1, z->size[y], z->coef_max) ||
            !z_add(zj, zv(w, j, q), zi, -1, z->size[q], z->coef_max))
            continue;
        /* j's sign moves between two of its factors: the keys stay */
        const int before = w->rank;
        memcpy(zv(w, j, x), X, (size_t)z->size[x]);
        memcpy(zv(w, j, y), Y, (size_t)z->size[y]);
        z_set(w, i, x, xi);
        z_set(w, j, q, zj);
        int8_t t[3][SCHEME_MAX_ENTRIES];
        memcpy(t[x], X, (size_t)z->size[x]);
        memcpy(t[y], yn, (size_t)z->size[y]);
        memcpy(t[q], zi, (size_t)z->size[q]);
        const int32_t n = z_term_add(w, t[0], t[1], t[2]);
        w->st.plus++;
        z_process(w);
        walker_tabu_set(w, i, j, n, x, before);
        return true;
    }
    return false;
}

/* ---- inspection ---- */

scheme *z_snapshot(const search_walker *w)
{
    scheme *s = scheme_new(w->fmt, SCHEME_RING_Z, w->rank > 0 ? w->rank : 1);
    if (!s)
        return NULL;
    for (int r = 0; r < w->rank; r++) {
        const int32_t k = w->alive[r];
        scheme_zterm t;
        memset(&t, 0, sizeof t);
        for (int pos = 0; pos < 3; pos++)
            memcpy(t.z[pos], zv(w, k, pos), (size_t)w->zw->size[pos]);
        if (!scheme_push_z(s, &t)) {
            scheme_free(s);
            return NULL;
        }
    }
    return s;
}

int z_terms(const search_walker *w, scheme_term *out)
{
    for (int r = 0; r < w->rank; r++)
        for (int pos = 0; pos < 3; pos++) {
            const int8_t *v = zv(w, w->alive[r], pos);
            uint64_t odd = 0;
            for (int e = 0; e < w->zw->size[pos]; e++)
                if (v[e] & 1)
                    odd |= 1ull << e;
            out[r].f[pos] = odd;
        }
    return w->rank;
}

bool z_check(const search_walker *w, char *err, size_t errlen)
{
    const z_walk *z = w->zw;
    for (int r = 0; r < w->rank; r++) {
        const int32_t s = w->alive[r];
        for (int pos = 0; pos < 3; pos++) {
            const uint64_t k = z_key(zv(w, s, pos), z->size[pos]);
            if (!k)
                return scheme_fail(err, errlen, "slot %d: zero factor at %d", s, pos);
            if (k != w->f[s << 2 | pos])
                return scheme_fail(err, errlen, "slot %d pos %d: key is not the factor's", s, pos);
        }
    }
    scheme *snap = z_snapshot(w);
    if (!snap)
        return scheme_fail(err, errlen, "out of memory");
    int i, j;
    const bool left = search_z_find_reduction(snap, z->coef_max, &i, &j);
    const uint64_t flips = search_z_count_flips(snap);
    scheme_free(snap);
    if (left)
        return scheme_fail(err, errlen, "a reduction over Z was left (terms %d and %d)", i, j);
    const uint64_t pairs = walker_index_pairs(w);
    if (pairs != flips)
        return scheme_fail(err, errlen, "index counts %llu flips, reference %llu", (unsigned long long)pairs,
                           (unsigned long long)flips);
    return true;
}
