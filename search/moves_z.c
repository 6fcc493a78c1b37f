/* Moves over Z on a plain integer scheme (search.h, "moves over Z";
 * docs/search.md, "Searching over Z"): the definitions the walker over Z
 * (walker_z.c) is tested against.  O(rank) or O(rank^2), obviously correct.
 *
 * Over GF(2) a flip needs two terms with the same factor at one position;
 * over Z the factors may also be opposite (a = -a'), since a sign moves freely
 * between the factors of a term: (-a) (x) b (x) c = a (x) (-b) (x) c. */
#include "search.h"

#include <stdlib.h>
#include <string.h>

static int fsize(const scheme *s, int pos) { return scheme_factor_size(s->fmt, pos); }

/* The GF(2) word of an integer factor: its odd entries. */
static uint64_t odd_word(const int8_t *v, int n)
{
    uint64_t w = 0;
    for (int e = 0; e < n; e++)
        if (v[e] & 1)
            w |= 1ull << e;
    return w;
}

static bool is_zero(const int8_t *v, int n)
{
    for (int e = 0; e < n; e++)
        if (v[e])
            return false;
    return true;
}

/* out = a + mul * b; false when an entry passes the bound (out then undefined). */
static bool add_bounded(int8_t *out, const int8_t *a, const int8_t *b, int mul, int n, int cmax)
{
    for (int e = 0; e < n; e++) {
        int v = a[e] + mul * b[e];
        if (v > cmax || v < -cmax)
            return false;
        out[e] = (int8_t)v;
    }
    return true;
}

static void set_factor(scheme *s, int r, int pos, const int8_t *v)
{
    const int n = fsize(s, pos);
    memcpy(s->zterms[r].z[pos], v, (size_t)n);
    s->terms[r].f[pos] = odd_word(v, n);
}

/* Drops terms i and j (j may be -1) when they have a zero factor, the higher
 * index first so that the lower one's index stays valid. */
static void drop_zero(scheme *s, int i, int j)
{
    int a = i > j ? i : j, b = i > j ? j : i;
    for (int k = 0; k < 2; k++) {
        int r = k ? b : a;
        if (r < 0)
            continue;
        for (int pos = 0; pos < 3; pos++)
            if (is_zero(s->zterms[r].z[pos], fsize(s, pos))) {
                scheme_remove(s, r);
                break;
            }
    }
}

int search_z_relation(const scheme *s, int i, int j, int pos)
{
    const int n = fsize(s, pos);
    const int8_t *u = s->zterms[i].z[pos], *v = s->zterms[j].z[pos];
    bool eq = true, opp = true;
    for (int e = 0; e < n && (eq || opp); e++) {
        eq = eq && u[e] == v[e];
        opp = opp && u[e] == -v[e];
    }
    if (is_zero(u, n))
        return 0;
    return eq ? 1 : opp ? -1 : 0;
}

bool search_z_flip(scheme *s, int i, int j, int x, int mu, int coef_max)
{
    if (s->ring != SCHEME_RING_Z || i == j || i < 0 || j < 0 || i >= s->rank || j >= s->rank || x < 0 || x > 2 ||
        (mu != 1 && mu != -1))
        return false;
    const int sg = search_z_relation(s, i, j, x);
    if (!sg)
        return false;
    const int y = (x + 1) % 3, z = (x + 2) % 3;
    int8_t ny[SCHEME_MAX_ENTRIES], nz[SCHEME_MAX_ENTRIES];
    /* x_i = sg x_j: x_i (x) mu y_j (x) z_i = mu sg x_j (x) y_j (x) z_i, which
     * term j gives back */
    if (!add_bounded(ny, s->zterms[i].z[y], s->zterms[j].z[y], mu, fsize(s, y), coef_max) ||
        !add_bounded(nz, s->zterms[j].z[z], s->zterms[i].z[z], -mu * sg, fsize(s, z), coef_max))
        return false;
    set_factor(s, i, y, ny);
    set_factor(s, j, z, nz);
    drop_zero(s, i, j);
    return true;
}

bool search_z_reduce_pair(scheme *s, int i, int j, int coef_max)
{
    if (s->ring != SCHEME_RING_Z || i == j || i < 0 || j < 0 || i >= s->rank || j >= s->rank)
        return false;
    int rel[3];
    for (int pos = 0; pos < 3; pos++)
        rel[pos] = search_z_relation(s, i, j, pos);
    for (int d = 0; d < 3; d++) {
        const int p1 = (d + 1) % 3, p2 = (d + 2) % 3;
        if (!rel[p1] || !rel[p2])
            continue;
        /* term j = rel1 rel2 (p1_i (x) p2_i (x) d_j): one term with d_i + rel1 rel2 d_j */
        int8_t nd[SCHEME_MAX_ENTRIES];
        if (!add_bounded(nd, s->zterms[i].z[d], s->zterms[j].z[d], rel[p1] * rel[p2], fsize(s, d), coef_max))
            return false;
        set_factor(s, i, d, nd);
        scheme_remove(s, j);
        if (i == s->rank) /* term i was the last: it moved to j's place */
            i = j;
        drop_zero(s, i, -1);
        return true;
    }
    return false;
}

bool search_z_plus(scheme *s, int i, int j, int x, int sg, int coef_max)
{
    if (s->ring != SCHEME_RING_Z || i == j || i < 0 || j < 0 || i >= s->rank || j >= s->rank || x < 0 || x > 2 ||
        (sg != 1 && sg != -1) || s->rank >= s->cap)
        return false;
    for (int pos = 0; pos < 3; pos++)
        if (search_z_relation(s, i, j, pos))
            return false;
    const int y = (x + 1) % 3, z = (x + 2) % 3;
    const int nx = fsize(s, x), ny = fsize(s, y), nz = fsize(s, z);
    int8_t X[SCHEME_MAX_ENTRIES], Y[SCHEME_MAX_ENTRIES], x1[SCHEME_MAX_ENTRIES], y2[SCHEME_MAX_ENTRIES],
        z3[SCHEME_MAX_ENTRIES];
    const int8_t *zero = (const int8_t[SCHEME_MAX_ENTRIES]){0};
    scheme_zterm *ti = &s->zterms[i], *tj = &s->zterms[j];
    if (!add_bounded(X, zero, tj->z[x], sg, nx, 127) || !add_bounded(Y, zero, tj->z[y], sg, ny, 127) ||
        !add_bounded(x1, ti->z[x], X, -1, nx, coef_max) || !add_bounded(y2, ti->z[y], Y, 1, ny, coef_max) ||
        !add_bounded(z3, tj->z[z], ti->z[z], -1, nz, coef_max))
        return false;
    scheme_zterm t2;
    memset(&t2, 0, sizeof t2);
    memcpy(t2.z[x], X, (size_t)nx);
    memcpy(t2.z[y], y2, (size_t)ny);
    memcpy(t2.z[z], ti->z[z], (size_t)nz);
    set_factor(s, i, x, x1);
    set_factor(s, j, x, X);
    set_factor(s, j, y, Y);
    set_factor(s, j, z, z3);
    if (!scheme_push_z(s, &t2))
        return false; /* room was checked: not reached */
    return true;
}

bool search_z_find_reduction(const scheme *s, int coef_max, int *pi, int *pj)
{
    if (s->ring != SCHEME_RING_Z)
        return false;
    for (int i = 0; i < s->rank; i++)
        for (int j = i + 1; j < s->rank; j++) {
            int rel[3], k = 0;
            for (int pos = 0; pos < 3; pos++)
                k += (rel[pos] = search_z_relation(s, i, j, pos)) != 0;
            if (k < 2)
                continue;
            for (int d = 0; d < 3; d++) {
                const int p1 = (d + 1) % 3, p2 = (d + 2) % 3;
                int8_t nd[SCHEME_MAX_ENTRIES];
                if (rel[p1] && rel[p2] &&
                    add_bounded(nd, s->zterms[i].z[d], s->zterms[j].z[d], rel[p1] * rel[p2], fsize(s, d),
                                coef_max)) {
                    *pi = i;
                    *pj = j;
                    return true;
                }
            }
        }
    return false;
}

int search_z_reduce_all(scheme *s, int coef_max)
{
    const int r0 = s->rank;
    int i, j;
    while (search_z_find_reduction(s, coef_max, &i, &j))
        if (!search_z_reduce_pair(s, i, j, coef_max))
            break; /* found within the bound by the search: not reached */
    return r0 - s->rank;
}

uint64_t search_z_count_flips(const scheme *s)
{
    uint64_t n = 0;
    for (int i = 0; i < s->rank; i++)
        for (int j = 0; j < s->rank; j++)
            for (int x = 0; x < 3 && i != j; x++)
                n += search_z_relation(s, i, j, x) != 0;
    return n;
}

scheme *search_z_copy(const scheme *s)
{
    if (s->ring == SCHEME_RING_Z)
        return scheme_clone(s);
    scheme *z = scheme_new(s->fmt, SCHEME_RING_Z, s->rank > 0 ? s->rank : 1);
    if (!z)
        return NULL;
    for (int r = 0; r < s->rank; r++) {
        scheme_zterm t;
        memset(&t, 0, sizeof t);
        for (int pos = 0; pos < 3; pos++)
            for (int e = 0; e < SCHEME_MAX_ENTRIES; e++)
                t.z[pos][e] = (int8_t)(s->terms[r].f[pos] >> e & 1);
        if (!scheme_push_z(z, &t)) {
            scheme_free(z);
            return NULL;
        }
    }
    return z;
}

int search_z_max_coef(const scheme *s)
{
    int m = 0;
    for (int r = 0; s->ring == SCHEME_RING_Z && r < s->rank; r++)
        for (int pos = 0; pos < 3; pos++)
            for (int e = 0; e < SCHEME_MAX_ENTRIES; e++) {
                int v = abs(s->zterms[r].z[pos][e]);
                if (v > m)
                    m = v;
            }
    return m;
}

/* ---- the elimination by a flattening over Z (search.h) ---- */

#define ZFLAT_P 2147483647u /* 2^31 - 1, a prime */

static uint32_t zf_mod(int64_t v)
{
    int64_t r = v % (int64_t)ZFLAT_P;
    return (uint32_t)(r < 0 ? r + ZFLAT_P : r);
}

static uint32_t zf_mul(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a * b % ZFLAT_P); }

static uint32_t zf_inv(uint32_t a)
{
    uint64_t r = 1, b = a, e = ZFLAT_P - 2;
    for (; e; e >>= 1, b = b * b % ZFLAT_P)
        if (e & 1)
            r = r * b % ZFLAT_P;
    return (uint32_t)r;
}

/* The product y (x) z of term r as integers: entry i * nz + j is y_i z_j. */
static void zf_product(const scheme *s, int r, int y, int z, int ny, int nz, int32_t *v)
{
    const int8_t *a = s->zterms[r].z[y], *b = s->zterms[r].z[z];
    for (int i = 0; i < ny; i++)
        for (int j = 0; j < nz; j++)
            v[i * nz + j] = a[i] * b[j];
}

/* Tries the dependency lambda (lambda[k] for k in 0..rank, integers) with
 * term r0 (lambda[r0] = +-1) dropped at position x; true when made. */
static bool zf_apply(scheme *s, const int64_t *lambda, int r0, int x, int coef_max)
{
    const int n = fsize(s, x);
    const int64_t l0 = lambda[r0];
    for (int k = 0; k < s->rank; k++) {
        if (k == r0 || !lambda[k])
            continue;
        const int64_t mul = -l0 * lambda[k];
        for (int e = 0; e < n; e++) {
            int64_t v = s->zterms[k].z[x][e] + mul * s->zterms[r0].z[x][e];
            if (v > coef_max || v < -coef_max)
                return false;
        }
    }
    int8_t nv[SCHEME_MAX_ENTRIES];
    for (int k = 0; k < s->rank; k++) {
        if (k == r0 || !lambda[k])
            continue;
        const int mul = (int)(-l0 * lambda[k]);
        for (int e = 0; e < n; e++)
            nv[e] = (int8_t)(s->zterms[k].z[x][e] + mul * s->zterms[r0].z[x][e]);
        set_factor(s, k, x, nv);
    }
    /* zero every factor of r0 at x, then drop each term with a zero factor,
     * the highest index first */
    memset(nv, 0, sizeof nv);
    set_factor(s, r0, x, nv);
    for (int k = s->rank - 1; k >= 0; k--)
        for (int pos = 0; pos < 3; pos++)
            if (is_zero(s->zterms[k].z[pos], fsize(s, pos))) {
                scheme_remove(s, k);
                break;
            }
    return true;
}

/* The terms idx[0..n) at position x (idx ascending, the last one's product in
 * the span of the others' mod 2): a combination over the rationals of their
 * products that is zero, found modulo ZFLAT_P at the first of them that lies in
 * the span of those before it, read as integers of at most 127, checked
 * exactly, then made with that term or another of coefficient +-1 as the one
 * that goes, within coef_max.  1 made, 0 not, -1 out of memory. */
static int zf_solve(scheme *s, int x, const int *idx, int n, int coef_max)
{
    const int y = (x + 1) % 3, z = (x + 2) % 3, ny = fsize(s, y), nz = fsize(s, z), len = ny * nz;
    uint32_t *row = malloc(sizeof(uint32_t) * (size_t)len * (size_t)n);
    uint32_t *comb = malloc(sizeof(uint32_t) * (size_t)n * (size_t)n);
    int *pivot_row = malloc(sizeof(int) * (size_t)len);
    int32_t *prod = malloc(sizeof(int32_t) * (size_t)len);
    int64_t *lambda = calloc((size_t)s->rank, sizeof(int64_t)), *check = malloc(sizeof(int64_t) * (size_t)len);
    int made = 0;
    if (!row || !comb || !pivot_row || !prod || !lambda || !check) {
        made = -1;
        goto out;
    }
    for (int c = 0; c < len; c++)
        pivot_row[c] = -1;
    for (int r = 0; r < n && !made; r++) {
        uint32_t *v = row + (size_t)r * (size_t)len, *cb = comb + (size_t)r * (size_t)n;
        zf_product(s, idx[r], y, z, ny, nz, prod);
        for (int c = 0; c < len; c++)
            v[c] = zf_mod(prod[c]);
        memset(cb, 0, sizeof(uint32_t) * (size_t)n);
        cb[r] = 1;
        /* reduce by the pivot rows (each 1 at its pivot and zero left of it),
         * columns in order, so that v ends zero at every pivot column */
        for (int c = 0; c < len; c++) {
            if (!v[c] || pivot_row[c] < 0)
                continue;
            const uint32_t f = v[c];
            const uint32_t *pv = row + (size_t)pivot_row[c] * (size_t)len;
            const uint32_t *pc = comb + (size_t)pivot_row[c] * (size_t)n;
            for (int d = c; d < len; d++)
                if (pv[d])
                    v[d] = (uint32_t)((v[d] + (uint64_t)(ZFLAT_P - zf_mul(f, pv[d]))) % ZFLAT_P);
            for (int k = 0; k <= r; k++)
                if (pc[k])
                    cb[k] = (uint32_t)((cb[k] + (uint64_t)(ZFLAT_P - zf_mul(f, pc[k]))) % ZFLAT_P);
        }
        int pc = -1;
        for (int c = 0; c < len && pc < 0; c++)
            if (v[c])
                pc = c;
        if (pc >= 0) {
            const uint32_t inv = zf_inv(v[pc]);
            for (int d = pc; d < len; d++)
                v[d] = zf_mul(v[d], inv);
            for (int k = 0; k <= r; k++)
                cb[k] = zf_mul(cb[k], inv);
            pivot_row[pc] = r;
            continue;
        }
        /* sum cb[k] v_k = 0 (mod P), cb[r] = 1: as small integers, over all terms */
        bool small = true;
        for (int k = 0; k < n; k++) {
            int64_t c = k <= r ? (int64_t)cb[k] : 0;
            if (c > (int64_t)(ZFLAT_P / 2))
                c -= ZFLAT_P;
            if (c > 127 || c < -127)
                small = false;
            lambda[idx[k]] = c;
        }
        if (small) {
            memset(check, 0, sizeof(int64_t) * (size_t)len);
            for (int k = 0; k <= r; k++) {
                if (!lambda[idx[k]])
                    continue;
                zf_product(s, idx[k], y, z, ny, nz, prod);
                for (int c = 0; c < len; c++)
                    check[c] += lambda[idx[k]] * prod[c];
            }
            bool exact = true; /* a guard: a wrong combination mod P is all but impossible */
            for (int c = 0; c < len && exact; c++)
                exact = !check[c];
            /* the term itself (coefficient 1) first, then another of +-1 */
            if (exact && zf_apply(s, lambda, idx[r], x, coef_max))
                made = 1;
            for (int k = 0; exact && k < r && !made; k++)
                if ((lambda[idx[k]] == 1 || lambda[idx[k]] == -1) && zf_apply(s, lambda, idx[k], x, coef_max))
                    made = 1;
        }
        for (int k = 0; k < n; k++)
            lambda[idx[k]] = 0;
    }
out:
    free(row), free(comb), free(pivot_row), free(prod), free(lambda), free(check);
    return made;
}

typedef struct zf_ctx {
    scheme *s;
    int x, coef_max, made, sets;
} zf_ctx;

static bool zf_try(void *ctx, const int *members, int count)
{
    zf_ctx *c = ctx;
    c->sets++;
    c->made = zf_solve(c->s, c->x, members, count, c->coef_max);
    return c->made != 0; /* made, or out of memory: stop */
}

/* One elimination at position x: 1 made, 0 none found, -1 out of memory.  A
 * usable dependency has a coefficient +-1, so its image mod 2 is a dependency
 * of the words' products: where the bit-parallel elimination over GF(2) finds
 * none, there is none.  Each set it names is solved over the rationals on its
 * own terms first (cheap, and most dependencies a projection leaves are
 * these); where none of them gives one, all the terms are (a dependency whose
 * even coefficients leave a term out of its image mod 2, or a combination of
 * the sets). */
static int zf_once(scheme *s, int x, int coef_max)
{
    zf_ctx c = {s, x, coef_max, 0, 0};
    const int taken = search_each_flattening(s->fmt, s->terms, s->rank, x, zf_try, &c);
    if (taken < 0 || c.made < 0)
        return -1;
    if (c.made || !c.sets)
        return c.made;
    int *all = malloc(sizeof(int) * (size_t)s->rank);
    if (!all)
        return -1;
    for (int k = 0; k < s->rank; k++)
        all[k] = k;
    const int made = zf_solve(s, x, all, s->rank, coef_max);
    free(all);
    return made;
}

int search_z_reduce_flattening(scheme *s, int coef_max)
{
    if (!s || s->ring != SCHEME_RING_Z)
        return 0;
    const int start = s->rank;
    for (;;) {
        int made = 0;
        for (int x = 0; x < 3 && !made; x++) {
            made = zf_once(s, x, coef_max);
            if (made < 0)
                return -1;
        }
        if (!made)
            break;
    }
    return start - s->rank;
}
