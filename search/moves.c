/* Moves on a plain term array: the definitions (docs/search.md, "Moves").
 * The walker (walker.c) and the GPU kernels implement the same moves on their
 * own data structures and are tested against these. */
#include "search.h"

#include <stdlib.h>
#include <string.h>

static inline int pos_y(int x) { return x == 2 ? 0 : x + 1; }
static inline int pos_z(int x) { return x == 0 ? 2 : x - 1; }

static void drop(scheme_term *t, int *rank, int r)
{
    t[r] = t[--*rank];
}

/* Drops every term with a zero factor among the listed ones, highest index
 * first so that the indices still to visit stay valid. */
static void drop_zero_terms(scheme_term *t, int *rank, int *idx, int s)
{
    /* insertion sort, descending: s is tiny */
    for (int a = 1; a < s; a++)
        for (int b = a; b > 0 && idx[b] > idx[b - 1]; b--) {
            int tmp = idx[b]; idx[b] = idx[b - 1]; idx[b - 1] = tmp;
        }
    for (int a = 0; a < s; a++) {
        if (a > 0 && idx[a] == idx[a - 1])
            continue;
        scheme_term *u = &t[idx[a]];
        if (!u->f[0] || !u->f[1] || !u->f[2])
            drop(t, rank, idx[a]);
    }
}

bool search_flip(scheme_term *t, int *rank, int i, int j, int x)
{
    if (i == j || i < 0 || j < 0 || i >= *rank || j >= *rank || x < 0 || x > 2 ||
        t[i].f[x] != t[j].f[x])
        return false;
    int y = pos_y(x), z = pos_z(x);
    t[i].f[y] ^= t[j].f[y];
    t[j].f[z] ^= t[i].f[z];
    int idx[2] = {i, j};
    drop_zero_terms(t, rank, idx, 2);
    return true;
}

bool search_reduce_pair(scheme_term *t, int *rank, int i, int j)
{
    if (i == j || i < 0 || j < 0 || i >= *rank || j >= *rank)
        return false;
    int differ = -1, shared = 0;
    for (int p = 0; p < 3; p++) {
        if (t[i].f[p] == t[j].f[p])
            shared++;
        else
            differ = p;
    }
    if (shared < 2)
        return false;
    if (differ < 0) {
        /* equal terms cancel over GF(2) */
        t[i].f[0] = 0;
    } else {
        t[i].f[differ] ^= t[j].f[differ];
    }
    t[j].f[0] = 0; /* j goes */
    int idx[2] = {i, j};
    drop_zero_terms(t, rank, idx, 2);
    return true;
}

uint32_t search_find_dependent(const uint64_t *v, int s)
{
    /* The walker asks this of every bucket of 3 to gen_max (5) terms a change
     * touches, several times a flip: with elimination it was a third of the
     * plain walk's time on <6,6,6>.  For up to six vectors every sum of the ones
     * before v[k] is listed (span[m] = the sum of v[i], i in m) and v[k] looked
     * up among them: a few dozen predictable compares against elimination's
     * data-dependent branches.  The answer is the elimination's: v[0..k) are
     * independent when v[k] is the first that lies in their span, so the
     * subset that sums to v[k] is unique. */
    if (s <= SEARCH_DEPENDENT_SPAN_MAX) {
        uint64_t span[1u << (SEARCH_DEPENDENT_SPAN_MAX - 1)];
        span[0] = 0;
        for (int k = 0; k < s; k++) {
            const uint32_t n = 1u << k;
            const uint64_t x = v[k];
            for (uint32_t m = 0; m < n; m++)
                if (span[m] == x)
                    return m | n;
            if (k + 1 < s)
                for (uint32_t m = 0; m < n; m++)
                    span[n | m] = span[m] ^ x;
        }
        return 0;
    }
    return search_find_dependent_ref(v, s);
}

uint32_t search_find_dependent_ref(const uint64_t *v, int s)
{
    /* Gaussian elimination in reduced form (each pivot bit lives in one basis
     * vector only), keeping for each basis vector which inputs sum to it. */
    uint64_t basis[32], piv[32];
    uint32_t combo[32];
    int nb = 0;
    for (int k = 0; k < s && k < 32; k++) {
        uint64_t w = v[k];
        uint32_t c = 1u << k;
        for (int b = 0; b < nb; b++)
            if (w & piv[b]) {
                w ^= basis[b];
                c ^= combo[b];
            }
        if (!w)
            return c;
        uint64_t pw = w & -w;
        for (int b = 0; b < nb; b++)
            if (basis[b] & pw) {
                basis[b] ^= w;
                combo[b] ^= c;
            }
        basis[nb] = w;
        piv[nb] = pw;
        combo[nb] = c;
        nb++;
    }
    return 0;
}

bool search_reduce_dependent(scheme_term *t, int *rank, const int *idx, int s, int x, int y,
                             uint32_t subset)
{
    if (s < 2 || s > 32 || x < 0 || x > 2 || y < 0 || y > 2 || x == y || !subset ||
        (s < 32 && (subset >> s)))
        return false;
    int z = 3 - x - y;
    uint64_t sum = 0;
    int r = -1;
    for (int k = 0; k < s; k++) {
        if (idx[k] < 0 || idx[k] >= *rank || t[idx[k]].f[x] != t[idx[0]].f[x])
            return false;
        for (int l = 0; l < k; l++)
            if (idx[l] == idx[k])
                return false;
        if (subset >> k & 1) {
            sum ^= t[idx[k]].f[y];
            if (r < 0)
                r = k;
        }
    }
    if (sum)
        return false;
    uint64_t zr = t[idx[r]].f[z];
    int changed[32], nc = 0;
    for (int k = 0; k < s; k++)
        if ((subset >> k & 1) && k != r) {
            t[idx[k]].f[z] ^= zr;
            changed[nc++] = idx[k];
        }
    t[idx[r]].f[0] = 0; /* dropped */
    changed[nc++] = idx[r];
    drop_zero_terms(t, rank, changed, nc);
    return true;
}

bool search_gf2_inverse(const uint32_t *G, int s, uint32_t *inv)
{
    uint32_t a[32], b[32];
    for (int i = 0; i < s; i++) {
        a[i] = G[i];
        b[i] = 1u << i;
    }
    for (int c = 0; c < s; c++) {
        int p = -1;
        for (int i = c; i < s; i++)
            if (a[i] >> c & 1) { p = i; break; }
        if (p < 0)
            return false;
        uint32_t ta = a[p]; a[p] = a[c]; a[c] = ta;
        uint32_t tb = b[p]; b[p] = b[c]; b[c] = tb;
        for (int i = 0; i < s; i++)
            if (i != c && (a[i] >> c & 1)) {
                a[i] ^= a[c];
                b[i] ^= b[c];
            }
    }
    memcpy(inv, b, (size_t)s * sizeof *inv);
    return true;
}

bool search_gen_flip(scheme_term *t, int *rank, const int *idx, int s, int x, int y,
                     const uint32_t *G)
{
    if (s < 1 || s > 5 || x < 0 || x > 2 || y < 0 || y > 2 || x == y)
        return false;
    int z = 3 - x - y;
    for (int k = 0; k < s; k++) {
        if (idx[k] < 0 || idx[k] >= *rank || t[idx[k]].f[x] != t[idx[0]].f[x] ||
            (G[k] >> s))
            return false;
        for (int l = 0; l < k; l++)
            if (idx[l] == idx[k])
                return false;
    }
    uint32_t inv[5];
    if (!search_gf2_inverse(G, s, inv))
        return false;
    /* z' = G^-T z: z'_i = sum_j inv[j][i] z_j */
    uint64_t yv[5], zv[5], yn[5], zn[5];
    for (int k = 0; k < s; k++) {
        yv[k] = t[idx[k]].f[y];
        zv[k] = t[idx[k]].f[z];
    }
    for (int i = 0; i < s; i++) {
        yn[i] = zn[i] = 0;
        for (int j = 0; j < s; j++) {
            if (G[i] >> j & 1)
                yn[i] ^= yv[j];
            if (inv[j] >> i & 1)
                zn[i] ^= zv[j];
        }
    }
    int changed[5];
    for (int k = 0; k < s; k++) {
        t[idx[k]].f[y] = yn[k];
        t[idx[k]].f[z] = zn[k];
        changed[k] = idx[k];
    }
    drop_zero_terms(t, rank, changed, s);
    return true;
}

bool search_plus(scheme_term *t, int *rank, int cap, int i, int j, int x)
{
    if (i == j || i < 0 || j < 0 || i >= *rank || j >= *rank || *rank >= cap || x < 0 || x > 2)
        return false;
    for (int p = 0; p < 3; p++)
        if (t[i].f[p] == t[j].f[p])
            return false;
    int y = pos_y(x), z = pos_z(x);
    scheme_term w;
    w.f[x] = t[j].f[x];
    w.f[y] = t[i].f[y] ^ t[j].f[y];
    w.f[z] = t[i].f[z];
    t[i].f[x] ^= t[j].f[x];
    t[j].f[z] ^= t[i].f[z];
    t[(*rank)++] = w;
    return true; /* no factor can be zero: the two terms differ at every position */
}

bool search_find_reduction(const scheme_term *t, int rank, int gen_max, search_reduction *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < rank; i++)
        for (int j = i + 1; j < rank; j++) {
            int shared = 0;
            for (int p = 0; p < 3; p++)
                shared += t[i].f[p] == t[j].f[p];
            if (shared >= 2) {
                out->kind = 2;
                out->s = 2;
                out->idx[0] = i;
                out->idx[1] = j;
                return true;
            }
        }
    if (gen_max < 3)
        return false;
    if (gen_max > 32)
        gen_max = 32;
    for (int x = 0; x < 3; x++)
        for (int i = 0; i < rank; i++) {
            /* the class of t[i].f[x], visited once: from its first member */
            bool first = true;
            for (int j = 0; j < i && first; j++)
                if (t[j].f[x] == t[i].f[x])
                    first = false;
            if (!first)
                continue;
            int idx[32], s = 0;
            bool too_many = false;
            for (int j = i; j < rank; j++)
                if (t[j].f[x] == t[i].f[x]) {
                    if (s == gen_max) { too_many = true; break; }
                    idx[s++] = j;
                }
            if (too_many || s < 3)
                continue;
            for (int d = 1; d <= 2; d++) {
                int y = (x + d) % 3;
                uint64_t v[32];
                for (int k = 0; k < s; k++)
                    v[k] = t[idx[k]].f[y];
                uint32_t sub = search_find_dependent(v, s);
                if (sub) {
                    out->kind = 3;
                    out->x = x;
                    out->y = y;
                    out->s = s;
                    memcpy(out->idx, idx, sizeof(int) * (size_t)s);
                    out->subset = sub;
                    return true;
                }
            }
        }
    return false;
}

int search_reduce_all(scheme_term *t, int *rank, int gen_max)
{
    int start = *rank;
    search_reduction red;
    while (search_find_reduction(t, *rank, gen_max, &red)) {
        bool ok = red.kind == 2 ? search_reduce_pair(t, rank, red.idx[0], red.idx[1])
                                : search_reduce_dependent(t, rank, red.idx, red.s, red.x, red.y,
                                                          red.subset);
        if (!ok)
            break; /* cannot happen: the finder checked the precondition */
    }
    return start - *rank;
}

uint64_t search_count_flips(const scheme_term *t, int rank)
{
    uint64_t n = 0;
    for (int x = 0; x < 3; x++)
        for (int i = 0; i < rank; i++)
            for (int j = 0; j < rank; j++)
                if (i != j && t[i].f[x] == t[j].f[x])
                    n++;
    return n;
}

/* ---- one-term elimination by a flattening (search.h) ---- */

/* The product y (x) z of two factors as a bit vector: bit i * zsize + j is
 * y_i z_j.  zsize <= 64, so row i touches at most two words. */
static void flat_product(uint64_t y, int ysize, uint64_t z, int zsize, uint64_t *v, int words)
{
    memset(v, 0, sizeof(uint64_t) * (size_t)words);
    for (int i = 0; i < ysize; i++) {
        if (!(y >> i & 1))
            continue;
        int bit = i * zsize, w = bit / 64, sh = bit % 64;
        v[w] ^= z << sh;
        if (sh && w + 1 < words)
            v[w + 1] ^= z >> (64 - sh);
    }
}

static int highest_bit(const uint64_t *v, int words)
{
    for (int w = words - 1; w >= 0; w--)
        if (v[w])
            return w * 64 + 63 - __builtin_clzll(v[w]);
    return -1;
}

int search_each_flattening(scheme_format f, const scheme_term *t, int rank, int pos,
                           bool (*fn)(void *ctx, const int *members, int count), void *ctx)
{
    if (rank <= 0)
        return 0;
    const int cw = (rank + 63) / 64;
    const int y = pos_y(pos), z = pos_z(pos);
    const int ysize = scheme_factor_size(f, y), zsize = scheme_factor_size(f, z);
    const int bits = ysize * zsize, words = (bits + 63) / 64;
    /* the basis: row k holds a reduced product and, in comb, the terms it sums;
     * pivot_row[b] the row whose highest bit is b */
    uint64_t *vec = malloc(sizeof(uint64_t) * (size_t)words * (size_t)rank);
    uint64_t *comb = malloc(sizeof(uint64_t) * (size_t)cw * (size_t)rank);
    int *pivot_row = malloc(sizeof(int) * (size_t)bits), *members = malloc(sizeof(int) * (size_t)rank);
    int taken = 0;
    if (!vec || !comb || !pivot_row || !members) {
        taken = -1;
        goto out;
    }
    for (int b = 0; b < bits; b++)
        pivot_row[b] = -1;
    for (int r = 0; r < rank && !taken; r++) {
        uint64_t *v = vec + (size_t)r * (size_t)words, *c = comb + (size_t)r * (size_t)cw;
        flat_product(t[r].f[y], ysize, t[r].f[z], zsize, v, words);
        memset(c, 0, sizeof(uint64_t) * (size_t)cw);
        c[r / 64] |= 1ULL << (r % 64);
        int hb;
        while ((hb = highest_bit(v, words)) >= 0 && pivot_row[hb] >= 0) {
            const uint64_t *pv = vec + (size_t)pivot_row[hb] * (size_t)words;
            const uint64_t *pc = comb + (size_t)pivot_row[hb] * (size_t)cw;
            for (int w = 0; w < words; w++)
                v[w] ^= pv[w];
            for (int w = 0; w < cw; w++)
                c[w] ^= pc[w];
        }
        if (hb >= 0) {
            pivot_row[hb] = r;
            continue;
        }
        /* a dependent row: its set, which stays out of the basis */
        int count = 0;
        for (int k = 0; k <= r; k++)
            if (c[k / 64] >> (k % 64) & 1)
                members[count++] = k;
        taken = fn(ctx, members, count) ? 1 : 0;
    }
out:
    free(vec), free(comb), free(pivot_row), free(members);
    return taken;
}

typedef struct first_set {
    int *members, count;
} first_set;

static bool take_first(void *ctx, const int *members, int count)
{
    first_set *fs = ctx;
    memcpy(fs->members, members, sizeof(int) * (size_t)count);
    fs->count = count;
    return true;
}

/* search_find_flattening at the one position pos. */
static int find_flattening_at(scheme_format f, const scheme_term *t, int rank, int pos, int *members)
{
    first_set fs = {members, 0};
    const int taken = search_each_flattening(f, t, rank, pos, take_first, &fs);
    return taken < 0 ? -1 : taken ? fs.count : 0;
}

int search_find_flattening(scheme_format f, const scheme_term *t, int rank, int *x, int *members)
{
    for (int pos = 0; pos < 3; pos++) {
        const int found = find_flattening_at(f, t, rank, pos, members);
        if (found) {
            if (found > 0)
                *x = pos;
            return found;
        }
    }
    return 0;
}

static int cmp_int_desc(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x < y) - (x > y);
}

int search_reduce_flattening(scheme_format f, scheme_term *t, int *rank)
{
    const int start = *rank;
    int *members = malloc(sizeof(int) * (size_t)(start > 0 ? start : 1));
    if (!members)
        return -1;
    int x, s;
    while ((s = search_find_flattening(f, t, *rank, &x, members)) > 0) {
        /* r0, the last member, is the sum of the others' products */
        const int r0 = members[s - 1];
        const uint64_t w = t[r0].f[x];
        int nz = 0;
        for (int k = 0; k < s - 1; k++) {
            t[members[k]].f[x] ^= w;
            if (!t[members[k]].f[x])
                members[nz++] = members[k];
        }
        members[nz++] = r0;
        qsort(members, (size_t)nz, sizeof(int), cmp_int_desc);
        for (int k = 0; k < nz; k++)
            drop(t, rank, members[k]);
    }
    free(members);
    return s < 0 ? -1 : start - *rank;
}
