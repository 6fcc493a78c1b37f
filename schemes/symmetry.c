/* Symmetries of square formats: the cyclic shift of the three factors and the
 * index reversal (scheme.h; Moosbauer, Poole, "Flip graphs with symmetry and
 * new matrix multiplication schemes", 2025). */
#include "scheme.h"

#include <stdio.h>
#include <stdlib.h>

#include "involution.h"
#include <string.h>

static const char *const g_names[] = {"none", "c3", "c3xc2", "t2", "c3xc2s1", "c3xc2s2", "c3xc2s3"};
#define NAMES ((int)(sizeof g_names / sizeof g_names[0]))

const char *scheme_symmetry_name(scheme_symmetry g)
{
    return (int)g >= 0 && (int)g < NAMES ? g_names[g] : "none";
}

bool scheme_symmetry_parse(const char *s, scheme_symmetry *g)
{
    for (int i = 0; i < NAMES; i++)
        if (!strcmp(s, g_names[i])) {
            *g = (scheme_symmetry)i;
            return true;
        }
    return false;
}

const scheme_symmetry scheme_symmetry_largest_first[SCHEME_SYM_SQUARE_GROUPS] = {
    SCHEME_SYM_C3XC2, SCHEME_SYM_C3XC2S1, SCHEME_SYM_C3XC2S2, SCHEME_SYM_C3XC2S3, SCHEME_SYM_C3};

bool scheme_symmetry_has_c2(scheme_symmetry g)
{
    return g == SCHEME_SYM_C3XC2 || (g >= SCHEME_SYM_C3XC2S1 && g <= SCHEME_SYM_C3XC2S3);
}

int scheme_symmetry_swaps(scheme_symmetry g, int n)
{
    return g == SCHEME_SYM_C3XC2 ? n / 2 : scheme_symmetry_has_c2(g) ? (int)g - SCHEME_SYM_C3XC2S1 + 1 : 0;
}

int scheme_symmetry_order(scheme_symmetry g)
{
    return g == SCHEME_SYM_C3 ? 3 : scheme_symmetry_has_c2(g) ? 6 : g == SCHEME_SYM_T2 ? 2 : 1;
}

bool scheme_symmetry_fits(scheme_symmetry g, scheme_format f, char *err, size_t errlen)
{
    if (g == SCHEME_SYM_NONE)
        return true;
    if (g == SCHEME_SYM_T2) {
        if (f.m != f.p || f.n * f.m >= 64 || f.m * f.m >= 64)
            return scheme_fail(err, errlen,
                               "symmetry t2: needs a format <n,m,m> (m = p; a permutation of any format with two "
                               "equal dimensions) with n*m < 64 and m*m < 64, not <%d,%d,%d>",
                               f.n, f.m, f.p);
        return true;
    }
    if (f.n != f.m || f.m != f.p || f.n > 8)
        return scheme_fail(err, errlen, "symmetry %s: needs a square format <n,n,n> with n <= 8, not <%d,%d,%d>",
                           scheme_symmetry_name(g), f.n, f.m, f.p);
    const int k = scheme_symmetry_swaps(g, f.n);
    const bool sk = scheme_symmetry_has_c2(g) && g != SCHEME_SYM_C3XC2;
    if (sk && k == f.n / 2)
        return scheme_fail(err, errlen,
                           "symmetry %s: on <%d,%d,%d> it would swap every index pair (i, n-1-i), the index "
                           "reversal: that is c3xc2",
                           scheme_symmetry_name(g), f.n, f.m, f.p);
    if (sk && k > f.n / 2)
        return scheme_fail(err, errlen,
                           "symmetry %s: swaps %d index pairs (i, n-1-i), which needs n >= %d (fewer pairs than "
                           "n/2), not <%d,%d,%d>",
                           scheme_symmetry_name(g), k, 2 * k + 2, f.n, f.m, f.p);
    return true;
}

scheme_term scheme_symmetry_image_fmt(scheme_symmetry g, scheme_format f, scheme_term t, int k)
{
    scheme_term u;
    if (g == SCHEME_SYM_T2) {
        if (k % 2 == 0)
            return t;
        /* (a, b, c) -> (c^T, b^T, a^T): c is m x n, b m x m, a n x m */
        u.f[0] = scheme_factor_transpose(t.f[2], f.m, f.n);
        u.f[1] = scheme_factor_transpose(t.f[1], f.m, f.m);
        u.f[2] = scheme_factor_transpose(t.f[0], f.n, f.m);
        return u;
    }
    const int n = f.n, s = k % 3;
    for (int x = 0; x < 3; x++)
        u.f[x] = t.f[(x + s) % 3];
    if (k >= 3)
        for (int x = 0; x < 3; x++)
            u.f[x] = scheme_involution_apply(u.f[x], n, scheme_symmetry_swaps(g, n), scheme_involution_column(n));
    return u;
}

scheme_term scheme_symmetry_image(scheme_symmetry g, int n, scheme_term t, int k)
{
    return scheme_symmetry_image_fmt(g, (scheme_format){n, n, n}, t, k);
}

void scheme_symmetry_image_z_fmt(scheme_symmetry g, scheme_format f, const scheme_zterm *t, int k, scheme_zterm *out)
{
    memset(out, 0, sizeof *out);
    if (g == SCHEME_SYM_T2) {
        if (k % 2 == 0) {
            *out = *t;
            return;
        }
        /* (a, b, c) -> (c^T, b^T, a^T), as scheme_symmetry_image_fmt */
        scheme_zfactor_transpose(t->z[2], f.m, f.n, out->z[0]);
        scheme_zfactor_transpose(t->z[1], f.m, f.m, out->z[1]);
        scheme_zfactor_transpose(t->z[0], f.n, f.m, out->z[2]);
        return;
    }
    const int s = k % 3, n = f.n, swaps = k >= 3 ? scheme_symmetry_swaps(g, n) : 0;
    for (int x = 0; x < 3; x++)
        for (int e = 0; e < n * n; e++)
            out->z[x][scheme_involution_index(e / n, n, swaps) * n + scheme_involution_index(e % n, n, swaps)] =
                t->z[(x + s) % 3][e];
}

void scheme_symmetry_image_z(scheme_symmetry g, int n, const scheme_zterm *t, int k, scheme_zterm *out)
{
    scheme_symmetry_image_z_fmt(g, (scheme_format){n, n, n}, t, k, out);
}

/* ---- invariance ---- */

typedef struct sym_item {
    scheme_term t;
    const scheme_zterm *z; /* NULL over GF(2) */
    int index;
} sym_item;

static int item_cmp(const void *pa, const void *pb)
{
    const sym_item *a = pa, *b = pb;
    for (int x = 0; x < 3; x++)
        if (a->t.f[x] != b->t.f[x])
            return a->t.f[x] < b->t.f[x] ? -1 : 1;
    if (a->z && b->z)
        return memcmp(a->z->z, b->z->z, sizeof a->z->z);
    return 0;
}

/* Occurrences of key among the sorted items. */
static int count_of(const sym_item *items, int n, const sym_item *key)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (item_cmp(&items[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    int c = 0;
    while (lo + c < n && !item_cmp(&items[lo + c], key))
        c++;
    return c;
}

/* The items of s, sorted; NULL when out of memory. */
static sym_item *sorted_items(const scheme *s)
{
    sym_item *it = malloc((size_t)(s->rank ? s->rank : 1) * sizeof *it);
    if (!it)
        return NULL;
    for (int r = 0; r < s->rank; r++) {
        it[r].t = s->terms[r];
        it[r].z = s->ring == SCHEME_RING_Z ? &s->zterms[r] : NULL;
        it[r].index = r;
    }
    qsort(it, (size_t)s->rank, sizeof *it, item_cmp);
    return it;
}

bool scheme_symmetry_check(const scheme *s, scheme_symmetry g, int *term, int *elem, char *err, size_t errlen)
{
    *term = *elem = -1;
    if (!scheme_symmetry_fits(g, s->fmt, err, errlen))
        return false;
    if (g == SCHEME_SYM_NONE)
        return true;
    sym_item *it = sorted_items(s);
    if (!it)
        return scheme_fail(err, errlen, "out of memory");
    const int gens[2] = {1, 3};
    const bool z = s->ring == SCHEME_RING_Z;
    bool ok = true;
    for (int i = 0; i < s->rank && ok; i++) {
        const int mine = count_of(it, s->rank, &it[i]);
        for (int gi = 0; gi < (scheme_symmetry_has_c2(g) ? 2 : 1) && ok; gi++) {
            sym_item key;
            scheme_zterm zt;
            key.t = scheme_symmetry_image_fmt(g, s->fmt, it[i].t, gens[gi]);
            key.z = NULL;
            if (z) {
                scheme_symmetry_image_z_fmt(g, s->fmt, it[i].z, gens[gi], &zt);
                key.z = &zt;
            }
            const int theirs = count_of(it, s->rank, &key);
            /* over GF(2) a term that repeats cancels: only the parity counts */
            if (z ? theirs != mine : (theirs & 1) != (mine & 1)) {
                *term = it[i].index;
                *elem = gens[gi];
                ok = false;
            }
        }
    }
    free(it);
    if (!ok) {
        char inv[96];
        const int k = scheme_symmetry_swaps(g, s->fmt.n);
        if (g == SCHEME_SYM_C3XC2)
            snprintf(inv, sizeof inv, "index reversal i -> n-1-i");
        else
            snprintf(inv, sizeof inv, "involution swapping i and n-1-i for i < %d (%s)", k, scheme_symmetry_name(g));
        return scheme_fail(err, errlen, "term %d: its image under the %s is not a term%s", *term + 1,
                           g == SCHEME_SYM_T2 ? "transposition (a, b, c) -> (c^T, b^T, a^T)"
                           : *elem == 1       ? "cyclic shift (a, b, c) -> (b, c, a)"
                                              : inv,
                           z ? " (as often)" : "");
    }
    return true;
}

/* An integer scheme's orbits: those of its reduction mod 2 when it is
 * invariant over Z and the reduction repeats no term (then the images of
 * term r reduce to the images of r's reduction, one term each). */
static int orbits_z(const scheme *s, scheme_symmetry g, int *orbit)
{
    int term, elem;
    if (!scheme_symmetry_check(s, g, &term, &elem, NULL, 0))
        return -1;
    scheme *f2 = scheme_to_f2(s);
    sym_item *it = f2 ? sorted_items(f2) : NULL;
    int n = -1;
    if (it) {
        bool repeated = false;
        for (int r = 1; r < f2->rank; r++)
            repeated |= !item_cmp(&it[r - 1], &it[r]);
        if (!repeated)
            n = scheme_symmetry_orbits(f2, g, orbit);
    }
    free(it);
    scheme_free(f2);
    return n;
}

int scheme_symmetry_orbits(const scheme *s, scheme_symmetry g, int *orbit)
{
    if (!scheme_symmetry_fits(g, s->fmt, NULL, 0))
        return -1;
    if (s->ring == SCHEME_RING_Z)
        return orbits_z(s, g, orbit);
    sym_item *it = sorted_items(s);
    if (!it)
        return -1;
    for (int r = 0; r < s->rank; r++)
        orbit[r] = -1;
    int norbits = 0, order = scheme_symmetry_order(g);
    for (int r = 0; r < s->rank; r++) {
        if (orbit[r] >= 0)
            continue;
        norbits++;
        orbit[r] = r;
        for (int k = 1; k < order; k++) {
            sym_item key = {scheme_symmetry_image_fmt(g, s->fmt, s->terms[r], k), NULL, 0};
            int lo = 0, hi = s->rank;
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (item_cmp(&it[mid], &key) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            /* the first occurrence not yet in an orbit */
            int at = -1;
            for (int j = lo; j < s->rank && !item_cmp(&it[j], &key); j++)
                if (orbit[it[j].index] < 0 || orbit[it[j].index] == r) {
                    at = it[j].index;
                    break;
                }
            if (at < 0) {
                free(it);
                return -1;
            }
            orbit[at] = r;
        }
    }
    free(it);
    return norbits;
}
