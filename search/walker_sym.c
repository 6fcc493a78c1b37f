/* Symmetric walks: the walker's scheme kept as orbits under a group G of
 * symmetries of <n,n,n> (scheme.h: the cyclic shift of the factors, C3, and
 * with it the index reversal, C3 x C2), after Moosbauer, Poole, "Flip graphs
 * with symmetry and new matrix multiplication schemes", 2025.
 *
 * The scheme is a constant set of *fixed* terms (those an element of G other
 * than the identity maps to themselves: the diagonal cubes of the start) and
 * a set of free orbits, each held by one representative t; its terms are the
 * |G| images g t.  A move on two representatives is applied to all their
 * images at once: |G| flips on disjoint pairs of terms, each keeping the
 * tensor, so the scheme stays a scheme and stays invariant, and a walk takes
 * |G| times fewer steps than the plain one through the same schemes.
 *
 *   flip      orbits o1 != o2 whose images g1 t1, g2 t2 share a factor v (at
 *             position A after the images are chosen so): the flip of the two
 *             (search_flip) becomes the new representatives;
 *   reduction g1 t1 and g2 t2 share two factors: t1 takes the sum, o2 goes
 *             (rank - |G|); with gen_max 1 (a lazy walk, as Moosbauer and
 *             Poole's program walks) there is no such search: a flip between
 *             the two zeroes a factor and so makes the reduction, and a walk
 *             does 2.5 times the flips per second (bench/RESULTS.md);
 *   plus      search_plus on t1 and an image of t2: a third orbit (rank + |G|).
 * A representative that a move leaves with a zero factor goes with its orbit.
 * One that an element h != 1 fixes has |G|/|H| distinct images, each |H|
 * times (H its stabilizer): over GF(2) the orbit vanishes when |H| is even and
 * its distinct images join the fixed terms when |H| = 3 (a new cube).  Moves
 * never touch the fixed terms, so the cubes chosen at the start decide the
 * ranks a walk can reach (rank = fixed + |G| * orbits).
 *
 * Index: every orbit has ne = 3 (C3) or 6 (C3 x C2) entries, entry e = 3b + q
 * standing for the image whose factor at position A is reversal^b(t[q]); an
 * entry's value is that factor.  Because G moves every factor through every
 * position, two orbits have images sharing a factor exactly when two of their
 * entries have one value, so one hash table value -> bucket (a list of
 * entries) finds every flip.  M lists the buckets of two or more entries; a
 * flip draws one of them and an ordered pair of its entries, uniformly (a pair
 * within one orbit is drawn again).  A flip changes one factor of each
 * representative, so it moves one entry of each orbit to another bucket (two
 * under C3 x C2). */
#include "walker_impl.h"

#include <math.h>
#include <string.h>

#include "schemes/involution.h"

typedef struct sym_walk {
    int g, order, ne, n, nn;
    bool c2;                  /* c3xc2 or c3xc2sK: the entries e >= 3 are the involution's images */
    uint8_t *half;            /* half[o]: orbit o is a half orbit (below) */
    int nhalf;                /* alive half orbits */
    int swaps;                /* the pairs the involution swaps (scheme_symmetry_swaps) */
    uint64_t col;             /* scheme_involution_column(n) */
    scheme_format fmt;
    int gen_max;              /* search_params.gen_max: dependent sets of up to this many orbits */
    int ocap;                 /* orbit slots */
    uint64_t *rep;            /* rep[o * 3 + q] */
    int32_t *alive, *apos, *ofree;
    int nalive, nofree;
    scheme_term *fixed;
    int nfixed, fixed_cap;

    /* entries: code = o * ne + e */
    uint64_t *val;
    int32_t *bid, *nxt, *prv;
    wk_table tab;
    wk_bucket *bk;
    int32_t *bfree;
    int nbfree;
    int32_t *M, *mpos;        /* M: the buckets of two or more entries; mpos[b]: b's place, -1 */
    int nM;
    bool lazy;                /* gen_max 1: no reduction search (see the top) */
    uint8_t rev8[256];        /* the bits of a byte reversed */

    int32_t *work;            /* orbits to check for reductions */
    uint8_t *queued;
    int nwork;
} sym_walk;

/* ---- the group on factors ---- */

/* The involution on a factor (scheme_symmetry_image): the index reversal,
 * its n*n bits in reverse order a byte at a time, or a swap of fewer pairs
 * (schemes/involution.h). */
static uint64_t rev(const sym_walk *s, uint64_t x)
{
    if (2 * s->swaps + 1 < s->n)
        return scheme_involution_apply(x, s->n, s->swaps, s->col);
    uint64_t r = 0;
    for (int i = 0; i < 8; i++, x >>= 8)
        r = r << 8 | s->rev8[x & 255];
    return r >> (64 - s->nn);
}

/* ---- the transposition t2 on <n,m,m> ----
 *
 * The image of t = (a, b, c) is t' = (c^T, b^T, a^T): position B stays B, and
 * A and C trade places, so the factors at C of the whole scheme are the
 * transposes of those at A and a flip at C is the image of a flip at A.  An
 * orbit has ne = 4 entries: e = 0 the factor a of t at A, 1 the factor c^T of
 * t' at A, 2 the factor b of t at B, 3 the factor b^T of t' at B; entries at
 * B carry the tag bit 63 in their value (a factor has fewer than 64 entries,
 * scheme_symmetry_fits), so one table finds the flips at A and at B. */
#define T2_TAG (1ull << 63)

static void t2_image(const sym_walk *s, const uint64_t T[3], uint64_t U[3])
{
    const scheme_term u = scheme_symmetry_image_fmt(SCHEME_SYM_T2, s->fmt, (scheme_term){{T[0], T[1], T[2]}}, 1);
    memcpy(U, u.f, sizeof u.f);
}

/* The position whose factors entry e's bucket holds: A, or B for t2's e >= 2. */
static int entry_pos(const sym_walk *s, int e) { return s->g == SCHEME_SYM_T2 && e >= 2 ? 1 : 0; }

static uint64_t entry_value(const sym_walk *s, int o, int e)
{
    if (s->g == SCHEME_SYM_T2) {
        const uint64_t *t = &s->rep[o * 3];
        switch (e) {
        case 0: return t[0];
        case 1: return scheme_factor_transpose(t[2], s->fmt.m, s->fmt.n);
        case 2: return t[1] | T2_TAG;
        default: return scheme_factor_transpose(t[1], s->fmt.m, s->fmt.m) | T2_TAG;
        }
    }
    uint64_t v = s->rep[o * 3 + e % 3];
    return e >= 3 ? rev(s, v) : v;
}

/* The image of orbit o's representative whose factor at entry_pos(e) is
 * entry e's value (less the tag). */
static void entry_image(const sym_walk *s, int o, int e, uint64_t T[3])
{
    if (s->g == SCHEME_SYM_T2) {
        const uint64_t *t = &s->rep[o * 3];
        if (e % 2)
            t2_image(s, t, T);
        else
            memcpy(T, t, 3 * sizeof *T);
        return;
    }
    const int q = e % 3;
    for (int x = 0; x < 3; x++) {
        uint64_t v = s->rep[o * 3 + (x + q) % 3];
        T[x] = e >= 3 ? rev(s, v) : v;
    }
}

/* ---- the entry index ---- */

static void m_add(sym_walk *s, int32_t b)
{
    s->mpos[b] = s->nM;
    s->M[s->nM++] = b;
}

static void m_del(sym_walk *s, int32_t b)
{
    int32_t at = s->mpos[b], last = s->M[--s->nM];
    s->M[at] = last;
    s->mpos[last] = at;
    s->mpos[b] = -1;
}

static void idx_add(sym_walk *s, int32_t code)
{
    const uint64_t key = s->val[code];
    wk_table *t = &s->tab;
    uint32_t i = hslot(t, key);
    int32_t b;
    for (;;) {
        wk_hent *h = &t->e[i];
        if (h->key == key) {
            b = h->bid;
            break;
        }
        if (!h->key) {
            b = s->bfree[--s->nbfree];
            h->key = key;
            h->bid = b;
            s->bk[b].count = 0;
            s->bk[b].head = -1;
            break;
        }
        i = (i + 1) & t->mask;
    }
    wk_bucket *bk = &s->bk[b];
    s->bid[code] = b;
    s->prv[code] = -1;
    s->nxt[code] = bk->head;
    if (bk->head >= 0)
        s->prv[bk->head] = code;
    bk->head = code;
    if (++bk->count == 2)
        m_add(s, b);
}

/* The members of bucket b that a dependent set may take (reduce_dependent):
 * entries of distinct orbits with one entry in the bucket (an orbit with two
 * would meet its own images), no half orbit (the top).  Their codes in mem,
 * their orbits in orb; -1 where there are more than cap of them. */
static int bucket_members(const sym_walk *s, int32_t b, int cap, int32_t *mem, int32_t *orb)
{
    int k = 0;
    for (int32_t u = s->bk[b].head; u >= 0; u = s->nxt[u]) {
        const int32_t o = u / s->ne;
        bool twice = s->half[o];
        for (int32_t v = s->bk[b].head; v >= 0 && !twice; v = s->nxt[v])
            twice = v != u && v / s->ne == o;
        if (twice)
            continue;
        if (k == cap)
            return -1;
        mem[k] = u;
        orb[k] = o;
        k++;
    }
    return k;
}

static void idx_remove(sym_walk *s, int32_t code)
{
    int32_t b = s->bid[code];
    wk_bucket *bk = &s->bk[b];
    if (s->prv[code] >= 0)
        s->nxt[s->prv[code]] = s->nxt[code];
    else
        bk->head = s->nxt[code];
    if (s->nxt[code] >= 0)
        s->prv[s->nxt[code]] = s->prv[code];
    if (--bk->count == 0) {
        tab_delete(&s->tab, s->val[code]);
        s->bfree[s->nbfree++] = b;
    } else if (bk->count == 1) {
        m_del(s, b);
    } else if (!s->lazy && s->gen_max >= 3 && bk->count >= 3) {
        /* the members a dependent set may take (3..gen_max are checked) can
         * enter that range when another orbit's entry leaves: no member's
         * orbit changed, so one of them is queued (the plain walker's rule,
         * walker_idx_remove); one already in range is looked at again */
        int32_t mem[32], orb[32];
        const int k = bucket_members(s, b, s->gen_max, mem, orb);
        if (k >= 3 && !s->queued[orb[0]]) {
            s->queued[orb[0]] = 1;
            s->work[s->nwork++] = orb[0];
        }
    }
    s->bid[code] = -1;
}

/* ---- orbits ---- */

static void set_rank(search_walker *w)
{
    const sym_walk *s = w->sym;
    w->rank = s->nfixed + s->order * (s->nalive - s->nhalf) + 3 * s->nhalf;
}

/* The entries orbit o has in the index: a half orbit's three (its images
 * under the involution are the same terms). */
static int orbit_ne(const sym_walk *s, int32_t o) { return s->half[o] ? 3 : s->ne; }

/* Adds t to the fixed terms, or cancels it with an equal one (GF(2)). */
static void fixed_xor(sym_walk *s, uint64_t a, uint64_t b, uint64_t c)
{
    for (int i = 0; i < s->nfixed; i++)
        if (s->fixed[i].f[0] == a && s->fixed[i].f[1] == b && s->fixed[i].f[2] == c) {
            s->fixed[i] = s->fixed[--s->nfixed];
            return;
        }
    /* fixed_cap bounds the terms a scheme of the walker can hold */
    if (s->nfixed < s->fixed_cap)
        s->fixed[s->nfixed++] = (scheme_term){{a, b, c}};
}

static void orbit_unlink(sym_walk *s, int32_t o)
{
    for (int e = 0; e < orbit_ne(s, o); e++)
        idx_remove(s, o * s->ne + e);
}

static void orbit_free_slot(sym_walk *s, int32_t o)
{
    int32_t at = s->apos[o], last = s->alive[--s->nalive];
    s->alive[at] = last;
    s->apos[last] = at;
    s->apos[o] = -1;
    s->ofree[s->nofree++] = o;
    if (s->half[o]) {
        s->half[o] = 0;
        s->nhalf--;
    }
}

/* What a representative T is: ORBIT_FREE, ORBIT_GONE (a zero factor, or the
 * reversal fixes it: |H| even, the images cancel in pairs) or ORBIT_CUBE (the
 * shift fixes it and the reversal does not: |H| = 3, each distinct image three
 * times, once over GF(2)).
 *
 * Half orbits (c3xc2 and c3xc2sK): a term t of the scheme that the involution
 * g fixes and the shift does not has three images, each once, which an orbit
 * of six entries cannot hold (its images would come twice and cancel).  The
 * start's terms among the indices an involution with fixed points fixes are
 * such terms (docs/search.md, "Other involutions"); the walk holds each three
 * as a half orbit of three entries, so that flips move them.  A flip of a half
 * orbit's image with a free orbit's is the plain flip with both images of the
 * free one (they share the half orbit's factor, which g fixes), so the half
 * orbit takes the sum of the two deltas and stays fixed by g; with another
 * half orbit it is one plain flip per image of the shift.  A half orbit with a
 * zero factor goes (rank - 3), one the shift fixes joins the fixed terms once;
 * plus transitions and the reduction search leave half orbits alone, and
 * walks make none (cuda/walk_sym_core.h holds them the same way). */
enum { ORBIT_FREE, ORBIT_GONE, ORBIT_CUBE };
/* R: the involution's images of T's factors (read only under c3xc2 and
 * c3xc2sK, for an orbit that is not a half orbit). */
static int orbit_kind(const sym_walk *s, const uint64_t T[3], const uint64_t R[3], bool half)
{
    if (!T[0] || !T[1] || !T[2])
        return ORBIT_GONE;
    if (s->g == SCHEME_SYM_T2) {
        uint64_t U[3];
        t2_image(s, T, U);
        return U[0] == T[0] && U[1] == T[1] && U[2] == T[2] ? ORBIT_GONE : ORBIT_FREE;
    }
    if (s->c2 && !half && R[0] == T[0] && R[1] == T[1] && R[2] == T[2])
        return ORBIT_GONE;
    return T[0] == T[1] && T[1] == T[2] ? ORBIT_CUBE : ORBIT_FREE;
}

/* The involution's image of factor q of orbit o's representative, as the
 * index holds it (a free orbit's entry 3 + q; a half orbit's factors are
 * their own images), so that a flip does not compute it again: the delta
 * swaps of c3xc2sK were a fifth of a <6,6,6> c3xc2s2 walk's time
 * (bench/RESULTS.md, forty-sixth session). */
static uint64_t rep_rev(const sym_walk *s, int32_t o, int q)
{
    return s->half[o] ? s->rep[o * 3 + q] : s->val[o * s->ne + 3 + q];
}

/* Gives orbit o (alive, unlinked) the representative T: an orbit with a
 * zero factor or an even stabilizer vanishes, one fixed by the shift alone
 * joins the fixed terms, a free one is indexed and queued for reductions. */
static void orbit_place(search_walker *w, int32_t o, const uint64_t T[3])
{
    sym_walk *s = w->sym;
    uint64_t R[3] = {0, 0, 0};
    const bool c2_images = s->c2 && !s->half[o];
    if (c2_images)
        for (int q = 0; q < 3; q++)
            R[q] = rev(s, T[q]);
    const int kind = orbit_kind(s, T, R, s->half[o]);
    if (kind == ORBIT_CUBE) {
        fixed_xor(s, T[0], T[0], T[0]);
        if (c2_images)
            fixed_xor(s, R[0], R[0], R[0]);
    }
    if (kind != ORBIT_FREE) {
        orbit_free_slot(s, o);
        set_rank(w);
        return;
    }
    for (int q = 0; q < 3; q++)
        s->rep[o * 3 + q] = T[q];
    for (int e = 0; e < orbit_ne(s, o); e++) {
        /* entry_value, with the images computed above */
        s->val[o * s->ne + e] = c2_images && e >= 3 ? R[e - 3] : entry_value(s, o, e);
        idx_add(s, o * s->ne + e);
    }
    if (!s->queued[o] && !s->half[o]) {
        s->queued[o] = 1;
        s->work[s->nwork++] = o;
    }
}

static int32_t orbit_new(search_walker *w, const uint64_t T[3], bool half)
{
    sym_walk *s = w->sym;
    int32_t o = s->ofree[--s->nofree];
    s->apos[o] = s->nalive;
    s->alive[s->nalive++] = o;
    s->queued[o] = 0;
    s->half[o] = half;
    s->nhalf += half;
    orbit_place(w, o, T);
    set_rank(w);
    return o;
}

static void orbit_set(search_walker *w, int32_t o, const uint64_t T[3])
{
    orbit_unlink(w->sym, o);
    orbit_place(w, o, T);
    set_rank(w);
}

/* Orbit o's representative T with delta added to its factor q, and R, its
 * factors' involution images (orbit_kind's). */
static void orbit_changed(const sym_walk *s, int32_t o, int q, uint64_t delta, uint64_t T[3], uint64_t R[3])
{
    for (int x = 0; x < 3; x++) {
        T[x] = s->rep[o * 3 + x];
        R[x] = 0;
    }
    T[q] ^= delta;
    if (s->c2 && !s->half[o])
        for (int x = 0; x < 3; x++)
            R[x] = x == q ? rev(s, T[q]) : rep_rev(s, o, x);
}

/* Orbit o's representative with delta added to its factor q: a flip changes
 * one factor of each of its two representatives, so only the entries of that
 * factor move to another bucket (1 of 3 under C3, 2 of 6 under C3 x C2); an
 * orbit that vanishes or becomes fixed takes orbit_set's path. */
static void orbit_xor_factor(search_walker *w, int32_t o, int q, uint64_t delta)
{
    sym_walk *s = w->sym;
    uint64_t T[3], R[3];
    orbit_changed(s, o, q, delta, T, R);
    if (s->g == SCHEME_SYM_T2 || orbit_kind(s, T, R, s->half[o]) != ORBIT_FREE) {
        orbit_set(w, o, T);
        return;
    }
    const uint64_t r = R[q];
    s->rep[o * 3 + q] = T[q];
    for (int b = 0; b < orbit_ne(s, o) / 3; b++) {
        const int32_t code = o * s->ne + 3 * b + q;
        idx_remove(s, code);
        s->val[code] = b ? r : T[q];
        idx_add(s, code);
    }
    if (!s->lazy && !s->queued[o] && !s->half[o]) {
        s->queued[o] = 1;
        s->work[s->nwork++] = o;
    }
}

static void orbit_remove(search_walker *w, int32_t o)
{
    orbit_unlink(w->sym, o);
    orbit_free_slot(w->sym, o);
    set_rank(w);
}

/* ---- reductions ---- */

/* A dependent set in the bucket of entry code (the generalized flip that
 * finds a zero, search_reduce_dependent): images g_i t_i of 3..gen_max
 * distinct orbits share the factor v at A and their factors at B (or C) sum
 * to zero over a subset D; the lowest member r of D goes and every other
 * member adds its factor at C (or B).  The |G| images of the move act on
 * disjoint sets of terms (the orbits are distinct and free).  An orbit with
 * two entries in the bucket is left out: its images would meet twice. */
static bool reduce_dependent(search_walker *w, int32_t code)
{
    sym_walk *s = w->sym;
    const wk_bucket *bk = &s->bk[s->bid[code]];
    if (bk->count < 3 || s->gen_max < 3)
        return false;
    int32_t mem[32], orb[32];
    /* larger sets are not checked, as in the plain walk */
    const int k = bucket_members(s, s->bid[code], s->gen_max, mem, orb);
    if (k < 3)
        return false;
    uint64_t T[32][3];
    for (int i = 0; i < k; i++)
        entry_image(s, orb[i], mem[i] % s->ne, T[i]);
    const int P = entry_pos(s, code % s->ne);
    for (int yi = 0; yi < 2; yi++) {
        const int y = yi ? pos_z(P) : pos_y(P);
        uint64_t v[32];
        for (int i = 0; i < k; i++)
            v[i] = T[i][y];
        const uint32_t sub = search_find_dependent(v, k);
        if (!sub)
            continue;
        const int z = 3 - P - y, r = __builtin_ctz(sub);
        orbit_remove(w, orb[r]);
        for (int j = r + 1; j < k; j++)
            if (sub >> j & 1) {
                T[j][z] ^= T[r][z];
                orbit_set(w, orb[j], T[j]);
            }
        w->st.reductions++;
        w->st.gen_reductions++;
        return true;
    }
    return false;
}

/* One reduction of orbit o with other orbits, if any: two of their images
 * share two factors, or a dependent set shares one. */
static bool reduce_one(search_walker *w, int32_t o)
{
    sym_walk *s = w->sym;
    for (int e = 0; e < s->ne; e++) {
        const int32_t code = o * s->ne + e;
        for (int32_t u = s->bk[s->bid[code]].head; u >= 0; u = s->nxt[u]) {
            const int32_t o2 = u / s->ne;
            if (o2 == o || s->half[o2])
                continue;
            uint64_t T1[3], T2[3];
            entry_image(s, o, e, T1);
            entry_image(s, o2, u % s->ne, T2);
            const int y = pos_y(entry_pos(s, e)), z = pos_z(entry_pos(s, e));
            if (T1[y] == T2[y])
                T1[z] ^= T2[z];
            else if (T1[z] == T2[z])
                T1[y] ^= T2[y];
            else
                continue;
            orbit_remove(w, o2);
            orbit_set(w, o, T1);
            w->st.reductions++;
            return true;
        }
    }
    for (int e = 0; e < s->ne; e++)
        if (reduce_dependent(w, o * s->ne + e))
            return true;
    return false;
}

static void process_work(search_walker *w)
{
    sym_walk *s = w->sym;
    while (s->nwork) {
        int32_t o = s->work[--s->nwork];
        s->queued[o] = 0;
        if (s->apos[o] < 0 || s->lazy)
            continue;
        while (s->apos[o] >= 0 && !s->queued[o] && reduce_one(w, o))
            ;
    }
}

/* ---- life cycle ---- */

sym_walk *sym_new(const search_params *p, int cap)
{
    sym_walk *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->g = p->symmetry;
    s->order = scheme_symmetry_order((scheme_symmetry)p->symmetry);
    s->c2 = scheme_symmetry_has_c2((scheme_symmetry)s->g);
    s->swaps = scheme_symmetry_swaps((scheme_symmetry)s->g, p->fmt.n);
    s->col = scheme_involution_column(p->fmt.n);
    s->ne = s->c2 ? 6 : s->g == SCHEME_SYM_T2 ? 4 : 3;
    s->fmt = p->fmt;
    s->n = p->fmt.n;
    s->nn = p->fmt.n * p->fmt.n;
    s->gen_max = p->gen_max > 32 ? 32 : p->gen_max;
    s->lazy = p->gen_max <= 1;
    for (int b = 0; b < 256; b++)
        for (int i = 0; i < 8; i++)
            s->rev8[b] |= (uint8_t)((b >> i & 1) << (7 - i));
    /* a walk may hold up to cap terms and one plus transition more */
    s->ocap = cap / (s->c2 ? 3 : s->order) + 4; /* half orbits hold 3 terms */
    s->fixed_cap = cap + 2 * s->order;
    const int nc = s->ocap * s->ne;
    bool ok = true;
#define ALLOC(ptr, n) ok = ok && ((ptr) = calloc((size_t)(n) > 0 ? (size_t)(n) : 1, sizeof *(ptr))) != NULL
    ALLOC(s->rep, s->ocap * 3);
    ALLOC(s->alive, s->ocap);
    ALLOC(s->apos, s->ocap);
    ALLOC(s->ofree, s->ocap);
    ALLOC(s->fixed, s->fixed_cap);
    ALLOC(s->val, nc);
    ALLOC(s->bid, nc);
    ALLOC(s->nxt, nc);
    ALLOC(s->prv, nc);
    ALLOC(s->mpos, nc);
    ALLOC(s->bk, nc);
    ALLOC(s->bfree, nc);
    ALLOC(s->M, nc);
    ALLOC(s->work, s->ocap * 2 + 8);
    ALLOC(s->queued, s->ocap);
    ALLOC(s->half, s->ocap);
#undef ALLOC
    if (!ok || !tab_init(&s->tab, nc)) {
        sym_free(s);
        return NULL;
    }
    return s;
}

void sym_free(sym_walk *s)
{
    if (!s)
        return;
    free(s->rep);
    free(s->alive);
    free(s->apos);
    free(s->ofree);
    free(s->fixed);
    free(s->val);
    free(s->bid);
    free(s->nxt);
    free(s->prv);
    free(s->mpos);
    free(s->bk);
    free(s->bfree);
    free(s->M);
    free(s->work);
    free(s->queued);
    free(s->half);
    free(s->tab.e);
    free(s);
}

static int term_cmp(const void *pa, const void *pb)
{
    const scheme_term *a = pa, *b = pb;
    for (int x = 0; x < 3; x++)
        if (a->f[x] != b->f[x])
            return a->f[x] < b->f[x] ? -1 : 1;
    return 0;
}

bool search_symmetric_split(const scheme *sch, scheme_symmetry g, uint64_t *reps, int *norbits, uint64_t *fixed,
                            int *nfixed)
{
    const int order = scheme_symmetry_order(g);
    *norbits = *nfixed = 0;
    scheme_term *t = malloc((size_t)(sch->rank ? sch->rank : 1) * sizeof *t);
    uint8_t *used = calloc((size_t)(sch->rank ? sch->rank : 1), 1);
    bool ok = t && used;
    int k = 0;
    for (int r = 0; ok && r < sch->rank; r++)
        if (sch->terms[r].f[0] && sch->terms[r].f[1] && sch->terms[r].f[2])
            t[k++] = sch->terms[r];
    if (ok)
        qsort(t, (size_t)k, sizeof *t, term_cmp);
    int m = 0;
    for (int i = 0; ok && i < k;) {
        if (i + 1 < k && !term_cmp(&t[i], &t[i + 1])) {
            i += 2;
            continue;
        }
        t[m++] = t[i++];
    }
    for (int i = 0; ok && i < m; i++) {
        if (used[i])
            continue;
        used[i] = 1;
        scheme_term img[6];
        bool free_orbit = true;
        for (int e = 1; e < order; e++) {
            img[e] = scheme_symmetry_image_fmt(g, sch->fmt, t[i], e);
            free_orbit = free_orbit && term_cmp(&img[e], &t[i]);
        }
        if (!free_orbit) {
            memcpy(&fixed[3 * (*nfixed)++], t[i].f, 3 * sizeof(uint64_t));
            continue;
        }
        for (int e = 1; e < order && ok; e++) {
            scheme_term *hit = bsearch(&img[e], t, (size_t)m, sizeof *t, term_cmp);
            ok = hit && !used[hit - t];
            if (ok)
                used[hit - t] = 1;
        }
        if (ok)
            memcpy(&reps[3 * (*norbits)++], t[i].f, 3 * sizeof(uint64_t));
    }
    free(t);
    free(used);
    return ok;
}

scheme *search_symmetric_join(scheme_format f, scheme_symmetry g, const uint64_t *reps, int norbits,
                              const uint64_t *fixed, int nfixed)
{
    const int order = scheme_symmetry_order(g);
    scheme *s = scheme_new(f, SCHEME_RING_F2, nfixed + order * norbits + 1);
    if (!s)
        return NULL;
    for (int i = 0; i < nfixed; i++)
        scheme_push(s, fixed[3 * i], fixed[3 * i + 1], fixed[3 * i + 2]);
    for (int i = 0; i < norbits; i++) {
        const scheme_term t = {{reps[3 * i], reps[3 * i + 1], reps[3 * i + 2]}};
        for (int k = 0; k < order; k++) {
            const scheme_term u = scheme_symmetry_image_fmt(g, f, t, k);
            scheme_push(s, u.f[0], u.f[1], u.f[2]);
        }
    }
    return s;
}

int search_symmetric_halves(scheme_format f, scheme_symmetry g, uint64_t *fixed, int *nfixed, uint64_t *half)
{
    if (!scheme_symmetry_has_c2(g))
        return 0;
    int nhalf = 0, kept = 0;
    for (int i = 0; i < *nfixed; i++) {
        uint64_t *t = &fixed[3 * i];
        if (!t[0]) /* an image of a half orbit already taken (cleared below) */
            continue;
        if (t[0] == t[1] && t[1] == t[2]) { /* a cube: the shift fixes it */
            memmove(&fixed[3 * kept++], t, 3 * sizeof *t);
            continue;
        }
        /* its two other images under the shift, later in the list: cleared */
        for (int k = 1; k < 3; k++) {
            const scheme_term u = scheme_symmetry_image_fmt(g, f, (scheme_term){{t[0], t[1], t[2]}}, k);
            int at = -1;
            for (int j = i + 1; j < *nfixed && at < 0; j++)
                if (fixed[3 * j] == u.f[0] && fixed[3 * j + 1] == u.f[1] && fixed[3 * j + 2] == u.f[2])
                    at = j;
            if (at < 0)
                return -1;
            fixed[3 * at] = 0;
        }
        memcpy(&half[3 * nhalf++], t, 3 * sizeof *t);
    }
    *nfixed = kept;
    return nhalf;
}

search_parts_status search_symmetric_parts_make(const scheme *s, scheme_symmetry g, search_symmetric_parts *out)
{
    const size_t words = (size_t)(s->rank ? s->rank : 1) * 3;
    *out = (search_symmetric_parts){malloc(words * sizeof(uint64_t)), malloc(words * sizeof(uint64_t)),
                                    malloc(words * sizeof(uint64_t)), 0, 0, 0};
    search_parts_status st = SEARCH_PARTS_OK;
    if (!out->reps || !out->fixed || !out->half)
        st = SEARCH_PARTS_NO_MEMORY;
    else if (!search_symmetric_split(s, g, out->reps, &out->norbits, out->fixed, &out->nfixed) ||
             (out->nhalf = search_symmetric_halves(s->fmt, g, out->fixed, &out->nfixed, out->half)) < 0)
        st = SEARCH_PARTS_NOT_INVARIANT;
    if (st != SEARCH_PARTS_OK)
        search_symmetric_parts_free(out);
    return st;
}

void search_symmetric_parts_free(search_symmetric_parts *p)
{
    free(p->reps);
    free(p->fixed);
    free(p->half);
    *p = (search_symmetric_parts){0};
}

bool sym_reset(search_walker *w, const scheme *sch)
{
    sym_walk *s = w->sym;
    memset(s->tab.e, 0, (size_t)(s->tab.mask + 1) * sizeof(wk_hent));
    s->nalive = s->nfixed = s->nM = s->nwork = s->nhalf = 0;
    s->nofree = 0;
    for (int32_t o = s->ocap - 1; o >= 0; o--) {
        s->ofree[s->nofree++] = o;
        s->apos[o] = -1;
        s->queued[o] = 0;
        s->half[o] = 0;
    }
    const int nc = s->ocap * s->ne;
    s->nbfree = 0;
    for (int32_t b = nc - 1; b >= 0; b--)
        s->bfree[s->nbfree++] = b;
    for (int c = 0; c < nc; c++) {
        s->bid[c] = -1;
        s->mpos[c] = -1;
    }
    w->rank = 0;
    /* the free orbits' representatives, the constant (fixed) terms and, under
     * an involution, the fixed terms the shift moves as half orbits
     * (orbit_kind) */
    search_symmetric_parts parts;
    bool ok = search_symmetric_parts_make(sch, (scheme_symmetry)s->g, &parts) == SEARCH_PARTS_OK &&
              parts.nfixed <= s->fixed_cap;
    for (int i = 0; ok && i < parts.nfixed; i++) {
        const uint64_t *t = &parts.fixed[3 * i];
        s->fixed[s->nfixed++] = (scheme_term){{t[0], t[1], t[2]}};
    }
    for (int i = 0; ok && i < parts.nhalf; i++) {
        ok = s->nofree > 0;
        if (ok)
            orbit_new(w, &parts.half[3 * i], true);
    }
    for (int i = 0; ok && i < parts.norbits; i++) {
        ok = s->nofree > 0;
        if (ok)
            orbit_new(w, &parts.reps[3 * i], false);
    }
    search_symmetric_parts_free(&parts);
    if (!ok)
        return false;
    process_work(w);
    set_rank(w);
    return true;
}

/* ---- moves ---- */

/* The flip is drawn as Moosbauer and Poole draw it: a value that two or more
 * entries share, uniformly among those (M), then an ordered pair of its
 * entries, uniformly; a pair within one orbit is drawn again (its images
 * would meet twice). */
static bool draw_pair(sym_walk *s, search_walker *w, int32_t *pa, int32_t *pb)
{
    const wk_bucket *bk = &s->bk[s->M[scheme_rng_below(&w->rng, (uint32_t)s->nM)]];
    const uint32_t i = scheme_rng_below(&w->rng, (uint32_t)bk->count);
    uint32_t j = scheme_rng_below(&w->rng, (uint32_t)bk->count - 1);
    j += j >= i;
    int32_t a = -1, b = -1, u = bk->head;
    for (uint32_t k = 0; u >= 0 && (a < 0 || b < 0); u = s->nxt[u], k++) {
        if (k == i)
            a = u;
        if (k == j)
            b = u;
    }
    *pa = a;
    *pb = b;
    return a / s->ne != b / s->ne;
}

bool sym_flip_isolated(const search_walker *w)
{
    const sym_walk *s = w->sym;
    for (int i = 0; i < s->nM; i++) {
        const wk_bucket *bk = &s->bk[s->M[i]];
        for (int32_t u = s->nxt[bk->head]; u >= 0; u = s->nxt[u])
            if (u / s->ne != bk->head / s->ne)
                return false;
    }
    return true;
}

/* Two entries of distinct orbits in one bucket, uniformly; false when no
 * bucket holds two orbits. */
static bool draw_flip(sym_walk *s, search_walker *w, int32_t *a, int32_t *b)
{
    for (int tries = 0; tries < 64 && s->nM; tries++)
        if (draw_pair(s, w, a, b))
            return true;
    /* the drawn pairs only met their own orbit: look at all of them */
    if (!s->nM || sym_flip_isolated(w))
        return false;
    while (!draw_pair(s, w, a, b))
        ;
    return true;
}

/* The flip of entries a and b (not t2): representative o1 adds d1 to its
 * factor q1, o2 adds d2 to q2. */
typedef struct sym_flip_plan {
    int32_t o1, o2;
    int q1, q2;
    uint64_t d1, d2;
} sym_flip_plan;

static void flip_plan(const sym_walk *s, int32_t a, int32_t b, sym_flip_plan *f)
{
    const int32_t o1 = a / s->ne, o2 = b / s->ne;
    const int e1 = a % s->ne, e2 = b % s->ne;
    /* (v, y1, z1), (v, y2, z2) -> (v, y1 + y2, z1), (v, y2, z2 + z1) (search_flip at A):
     * entry e's image holds rep[(e + x) % 3] at x, reversed when e >= 3 */
    const int p2 = (e2 + 1) % 3, p1 = (e1 + 2) % 3;
    uint64_t y2 = s->rep[o2 * 3 + p2], z1 = s->rep[o1 * 3 + p1];
    /* the reversed factors as the index holds them (rep_rev) */
    if ((e1 >= 3) != (e2 >= 3)) {
        y2 = rep_rev(s, o2, p2);
        z1 = rep_rev(s, o1, p1);
    }
    /* a half orbit meets both images of a free one (orbit_kind): the sum */
    const bool h1 = s->half[o1], h2 = s->half[o2];
    if (h1 && !h2)
        y2 = s->rep[o2 * 3 + p2] ^ rep_rev(s, o2, p2);
    if (h2 && !h1)
        z1 = s->rep[o1 * 3 + p1] ^ rep_rev(s, o1, p1);
    f->o1 = o1, f->o2 = o2;
    f->q1 = (e1 + 1) % 3, f->q2 = (e2 + 2) % 3;
    f->d1 = y2, f->d2 = z1;
}

/* Whether orbit o with delta added to its factor q stops being a free orbit
 * (orbit_xor_factor's test): the rank changes. */
static bool change_leaves_free(const sym_walk *s, int32_t o, int q, uint64_t delta)
{
    uint64_t T[3], R[3];
    orbit_changed(s, o, q, delta, T, R);
    return orbit_kind(s, T, R, s->half[o]) != ORBIT_FREE;
}

/* Whether the planned flip changes the rank: in a lazy walk (gen_max 1, the
 * only one with the plus hold) a flip reduces exactly when a representative
 * it changes gets a zero factor or a stabilizer (orbit_place). */
static bool plan_reduces(const sym_walk *s, const sym_flip_plan *f)
{
    return change_leaves_free(s, f->o1, f->q1, f->d1) || change_leaves_free(s, f->o2, f->q2, f->d2);
}

bool sym_flip(search_walker *w)
{
    sym_walk *s = w->sym;
    int32_t a = -1, b = -1;
    if (!draw_flip(s, w, &a, &b)) {
        w->st.no_flip++;
        return false;
    }
    if (s->g == SCHEME_SYM_T2) {
        const int32_t o1 = a / s->ne, o2 = b / s->ne;
        const int e1 = a % s->ne, e2 = b % s->ne;
        /* the flip of the two images that share the factor at P (search_flip),
         * each new image taken back to its orbit's representative (t2 is an
         * involution); the images of the pair flip with them */
        uint64_t T1[3], T2[3], R1[3], R2[3];
        entry_image(s, o1, e1, T1);
        entry_image(s, o2, e2, T2);
        const int P = entry_pos(s, e1), y = pos_y(P), z = pos_z(P);
        T1[y] ^= T2[y];
        T2[z] ^= T1[z];
        if (e1 % 2)
            t2_image(s, T1, R1);
        else
            memcpy(R1, T1, sizeof R1);
        if (e2 % 2)
            t2_image(s, T2, R2);
        else
            memcpy(R2, T2, sizeof R2);
        const int before = w->rank;
        w->st.flips++;
        orbit_set(w, o1, R1);
        orbit_set(w, o2, R2);
        w->st.reductions += w->rank < before;
        process_work(w);
        return true;
    }
    sym_flip_plan f;
    flip_plan(s, a, b, &f);
    /* the plus hold (search_params.plus_hold): a flip that would reduce is
     * drawn again, up to 8 draws, then the step passes */
    const bool held = w->hold_left > 0;
    if (held) {
        w->hold_left--;
        for (int tries = 1; plan_reduces(s, &f); tries++) {
            w->st.held++;
            if (tries == 8 || !draw_flip(s, w, &a, &b))
                return true;
            flip_plan(s, a, b, &f);
        }
    }
    const int32_t o1 = f.o1, o2 = f.o2;
    const int q1 = f.q1, q2 = f.q2;
    const uint64_t y2 = f.d1, z1 = f.d2;
    const bool h1 = s->half[o1], h2 = s->half[o2];
    const int before = w->rank;
    w->st.flips++;
    const uint64_t r1 = s->rep[o1 * 3 + q1], r2 = s->rep[o2 * 3 + q2];
    orbit_xor_factor(w, o1, q1, y2);
    orbit_xor_factor(w, o2, q2, z1);
    w->st.reductions += w->rank < before; /* the flip zeroed a factor */
    process_work(w);
    /* The weight bias (docs/search.md, "The weight bias"), on the two
     * representatives: both orbits are free, of |G| terms each, so d is the
     * scheme's change over |G|.  The rank unchanged, both orbits kept their
     * representatives (no reduction, no orbit became fixed), so the flip is
     * undone by the same two additions (y2 and z1 did not change). */
    if (w->weight_bias > 0 && !h1 && !h2 && w->rank == before && s->rep[o1 * 3 + q1] == (r1 ^ y2) &&
        s->rep[o2 * 3 + q2] == (r2 ^ z1)) {
        const int dw = __builtin_popcountll(r1 ^ y2) - __builtin_popcountll(r1) + __builtin_popcountll(r2 ^ z1) -
                       __builtin_popcountll(r2);
        if (dw > 0) {
            const double draw = scheme_rng_uniform(&w->rng);
            if (draw >= walker_weight_keep(w, dw)) {
                orbit_xor_factor(w, o1, q1, y2);
                orbit_xor_factor(w, o2, q2, z1);
                process_work(w);
                w->st.undone++;
            }
        }
    }
    w->st.hold_reduced += held && w->rank < before;
    return true;
}

bool sym_plus(search_walker *w)
{
    sym_walk *s = w->sym;
    if (s->nalive < 2 || s->nofree < 1)
        return false;
    for (int tries = 0; tries < 64; tries++) {
        const int32_t o1 = s->alive[scheme_rng_below(&w->rng, (uint32_t)s->nalive)];
        const int32_t o2 = s->alive[scheme_rng_below(&w->rng, (uint32_t)s->nalive)];
        if (o1 == o2 || s->half[o1] || s->half[o2])
            continue;
        uint64_t T1[3], T2[3];
        entry_image(s, o1, 0, T1);
        entry_image(s, o2, (int)scheme_rng_below(&w->rng, (uint32_t)s->ne), T2);
        if (T1[0] == T2[0] || T1[1] == T2[1] || T1[2] == T2[2])
            continue;
        const int x = (int)scheme_rng_below(&w->rng, 3), y = pos_y(x), z = pos_z(x);
        /* search_plus: (x,y,z) + (x',y',z') = (x+x', y, z) + (x', y+y', z) + (x', y', z+z') */
        uint64_t N1[3] = {T1[0], T1[1], T1[2]}, N2[3], N3[3] = {T2[0], T2[1], T2[2]};
        N1[x] ^= T2[x];
        N2[x] = T2[x];
        N2[y] = T1[y] ^ T2[y];
        N2[z] = T1[z];
        N3[z] ^= T1[z];
        orbit_set(w, o1, N1);
        orbit_set(w, o2, N3);
        orbit_new(w, N2, false);
        w->st.plus++;
        process_work(w);
        return true;
    }
    return false;
}

/* ---- inspection ---- */

int sym_terms(const search_walker *w, scheme_term *out)
{
    const sym_walk *s = w->sym;
    int k = 0;
    for (int i = 0; i < s->nfixed; i++)
        out[k++] = s->fixed[i];
    for (int i = 0; i < s->nalive; i++) {
        const int32_t o = s->alive[i];
        scheme_term t = {{s->rep[o * 3], s->rep[o * 3 + 1], s->rep[o * 3 + 2]}};
        for (int g = 0; g < (s->half[o] ? 3 : s->order); g++)
            out[k++] = scheme_symmetry_image_fmt((scheme_symmetry)s->g, s->fmt, t, g);
    }
    return k;
}

bool sym_check(const search_walker *w, char *err, size_t errlen)
{
    const sym_walk *s = w->sym;
    int nhalf = 0;
    for (int i = 0; i < s->nalive; i++)
        nhalf += s->half[s->alive[i]];
    if (nhalf != s->nhalf || w->rank != s->nfixed + s->order * (s->nalive - nhalf) + 3 * nhalf)
        return scheme_fail(err, errlen, "rank %d, but %d fixed terms, %d orbits of %d and %d half orbits (%d counted)",
                           w->rank, s->nfixed, s->nalive - nhalf, s->order, nhalf, s->nhalf);
    int inM = 0;
    for (int i = 0; i < s->nalive; i++) {
        const int32_t o = s->alive[i];
        if (s->apos[o] != i)
            return scheme_fail(err, errlen, "orbit %d: alive list mismatch", o);
        const uint64_t *t = &s->rep[o * 3];
        if (!t[0] || !t[1] || !t[2])
            return scheme_fail(err, errlen, "orbit %d: a zero factor", o);
        scheme_term T = {{t[0], t[1], t[2]}};
        for (int g = 1; g < s->order; g++) {
            scheme_term u = scheme_symmetry_image_fmt((scheme_symmetry)s->g, s->fmt, T, g);
            /* a half orbit's representative is fixed by the involution (g = 3) and no other */
            if (!term_cmp(&u, &T) != (s->half[o] && g == 3))
                return scheme_fail(err, errlen, "orbit %d%s: its representative is %s by element %d", o,
                                   s->half[o] ? " (half)" : "", term_cmp(&u, &T) ? "not fixed" : "fixed", g);
        }
        for (int e = 0; e < orbit_ne(s, o); e++) {
            const int32_t code = o * s->ne + e;
            if (s->val[code] != entry_value(s, o, e))
                return scheme_fail(err, errlen, "orbit %d entry %d: stale value", o, e);
            const int32_t b = tab_find(&s->tab, s->val[code]);
            if (b < 0 || b != s->bid[code])
                return scheme_fail(err, errlen, "orbit %d entry %d: not in its bucket", o, e);
            int cnt = 0;
            bool found = false;
            for (int32_t u = s->bk[b].head; u >= 0 && cnt <= s->ocap * s->ne; u = s->nxt[u], cnt++) {
                if (s->val[u] != s->val[code])
                    return scheme_fail(err, errlen, "a bucket holds an entry of another value");
                found |= u == code;
            }
            if (!found || cnt != s->bk[b].count)
                return scheme_fail(err, errlen, "orbit %d entry %d: bucket count %d, list %d", o, e,
                                   s->bk[b].count, cnt);
            if ((s->mpos[b] >= 0) != (cnt >= 2) ||
                (s->mpos[b] >= 0 && (s->mpos[b] >= s->nM || s->M[s->mpos[b]] != b)))
                return scheme_fail(err, errlen, "orbit %d entry %d: M membership of its bucket wrong", o, e);
            inM += cnt >= 2 && s->bk[b].head == code; /* each bucket once */
        }
    }
    if (inM != s->nM)
        return scheme_fail(err, errlen, "M holds %d buckets, the entries %d", s->nM, inM);
    /* no reduction between two orbits is left: the plain pairwise check (a
     * lazy walk leaves them to its flips) */
    for (int i = 0; i < s->nalive && !s->lazy; i++)
        for (int j = i + 1; j < s->nalive; j++) {
            const int32_t o1 = s->alive[i], o2 = s->alive[j];
            if (s->half[o1] || s->half[o2])
                continue; /* the reduction search leaves half orbits alone */
            scheme_term T1 = {{s->rep[o1 * 3], s->rep[o1 * 3 + 1], s->rep[o1 * 3 + 2]}};
            scheme_term T2 = {{s->rep[o2 * 3], s->rep[o2 * 3 + 1], s->rep[o2 * 3 + 2]}};
            for (int g = 0; g < s->order; g++) {
                scheme_term u = scheme_symmetry_image_fmt((scheme_symmetry)s->g, s->fmt, T2, g);
                int same = (T1.f[0] == u.f[0]) + (T1.f[1] == u.f[1]) + (T1.f[2] == u.f[2]);
                if (same >= 2)
                    return scheme_fail(err, errlen, "orbits %d and %d: a reduction was left", o1, o2);
            }
        }
    /* nor a dependent set of up to gen_max orbits in one bucket: the plain
     * search over each bucket's members (search_find_dependent_ref) */
    for (int i = 0; i < s->nalive && !s->lazy && s->gen_max >= 3; i++)
        for (int e = 0; e < orbit_ne(s, s->alive[i]); e++) {
            const int32_t code = s->alive[i] * s->ne + e, b = s->bid[code];
            if (s->bk[b].head != code)
                continue; /* each bucket once */
            int32_t mem[32], orb[32];
            const int k = bucket_members(s, b, s->gen_max, mem, orb);
            if (k < 3)
                continue;
            uint64_t T[32][3];
            for (int j = 0; j < k; j++)
                entry_image(s, orb[j], mem[j] % s->ne, T[j]);
            const int P = entry_pos(s, e);
            for (int yi = 0; yi < 2; yi++) {
                const int y = yi ? pos_z(P) : pos_y(P);
                uint64_t v[32];
                for (int j = 0; j < k; j++)
                    v[j] = T[j][y];
                if (search_find_dependent_ref(v, k))
                    return scheme_fail(err, errlen, "orbit %d entry %d: a dependent set of %d orbits was left",
                                       s->alive[i], e, k);
            }
        }
    return true;
}

/* ---- the start ---- */

/* The mirror pairs {i, n-1-i}, and the middle alone for odd n: each cube is
 * its own image under every involution of c3xc2 and c3xc2sK. */
static void cubes_mirror_pairs(int n, search_cubes *out)
{
    memset(out, 0, sizeof *out);
    if (n < 1 || n > SEARCH_MAX_CUBES)
        return;
    out->digits = n;
    for (int i = 0; i < n - 1 - i; i++)
        out->mask[out->count++] = (uint8_t)(1u << i | 1u << (n - 1 - i));
    if (n % 2)
        out->mask[out->count++] = (uint8_t)(1u << (n / 2));
}

void search_cubes_default(int n, search_cubes *out)
{
    cubes_mirror_pairs(n, out);
    /* n = 6 and 7: a pair, the middle, a pair.  n = 6's are the cubes of
     * Moosbauer and Poole's <6,6,6>:153 (mirror-closed too); with them one
     * H100 reached 153 in 6 minutes.  n = 7's the same pattern: 22 minutes on
     * one H200 under c3xc2 ended at 303-309 on four threads and 297 on the
     * GPU, the mirror pairs at 310-322 on three threads (bench/RESULTS.md,
     * "<7,7,7> under c3xc2"). */
    if (n == 6 || n == 7) {
        const unsigned all = (1u << n) - 1, first = 0x03u, last = 0x03u << (n - 2);
        out->count = 3;
        out->mask[0] = (uint8_t)first;
        out->mask[1] = (uint8_t)(all & ~first & ~last);
        out->mask[2] = (uint8_t)last;
    }
}

/* Whether the involution that swaps the first `swaps` pairs (i, n-1-i) maps
 * every cube to a cube (the start is then invariant: search_symmetric_start). */
static bool cubes_closed(const search_cubes *c, int n, int swaps)
{
    for (int i = 0; i < c->count; i++) {
        unsigned m = 0;
        for (int d = 0; d < n; d++)
            m |= (unsigned)(c->mask[i] >> d & 1) << scheme_involution_index(d, n, swaps);
        bool found = false;
        for (int j = 0; j < c->count; j++)
            found |= c->mask[j] == m;
        if (!found)
            return false;
    }
    return true;
}

bool search_symmetry_for_ranges(scheme_symmetry g, char *err, size_t errlen)
{
    if (g == SCHEME_SYM_T2)
        return scheme_fail(err, errlen, "walks every square format of its range symmetrically (c3, c3xc2); t2 walks "
                                        "one format: flipgraph search --dims NxMxM --symmetry t2");
    if (scheme_symmetry_has_c2(g) && g != SCHEME_SYM_C3XC2)
        return scheme_fail(err, errlen,
                           "walks every square format of its range symmetrically (c3, c3xc2), and %s acts only from "
                           "n = %d; it walks one format: flipgraph search --dims NxNxN --symmetry %s",
                           scheme_symmetry_name(g), 2 * scheme_symmetry_swaps(g, 0) + 2, scheme_symmetry_name(g));
    return true;
}

void search_cubes_default_for(scheme_symmetry g, int n, search_cubes *out)
{
    if (g != SCHEME_SYM_T2) {
        search_cubes_default(n, out);
        /* c3xc2sK: n's default where the involution keeps it (<6,6,6>'s under
         * c3xc2s2), else the mirror pairs, each its own image */
        if (scheme_symmetry_has_c2(g) && !cubes_closed(out, n, scheme_symmetry_swaps(g, n)))
            cubes_mirror_pairs(n, out);
        return;
    }
    memset(out, 0, sizeof *out);
    if (n < 1 || n > SEARCH_MAX_CUBES)
        return;
    out->digits = n;
    for (int i = 0; i < n; i++)
        out->mask[out->count++] = (uint8_t)(1u << i);
}

bool search_cubes_parse(const char *str, search_cubes *out)
{
    search_cubes c;
    memset(&c, 0, sizeof c);
    const char *q = str;
    for (;;) {
        int d = 0;
        unsigned mask = 0;
        while (*q == '0' || *q == '1') {
            if (d == 8)
                return false;
            mask |= (unsigned)(*q - '0') << d;
            d++;
            q++;
        }
        if (!d || c.count == SEARCH_MAX_CUBES || (c.count && d != c.digits))
            return false;
        c.digits = d;
        c.mask[c.count++] = (uint8_t)mask;
        if (!*q)
            break;
        if (*q != ',')
            return false;
        q++;
    }
    *out = c;
    return true;
}

void search_cubes_text(const search_cubes *c, char *buf, size_t len)
{
    if (!c->count) {
        snprintf(buf, len, "default");
        return;
    }
    size_t k = 0;
    if (len)
        buf[0] = 0;
    for (int i = 0; i < c->count; i++) {
        char one[SEARCH_MAX_CUBES + 1];
        for (int d = 0; d < c->digits && d < SEARCH_MAX_CUBES; d++)
            one[d] = (char)('0' + (c->mask[i] >> d & 1));
        one[c->digits < SEARCH_MAX_CUBES ? c->digits : SEARCH_MAX_CUBES] = 0;
        if (k < len)
            k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? "," : "", one);
    }
}

bool search_cubes_check(const search_cubes *c, int n, scheme_symmetry g, char *err, size_t errlen)
{
    if (!c->count)
        return true;
    char text[96];
    search_cubes_text(c, text, sizeof text);
    if (c->digits != n && g == SCHEME_SYM_T2)
        return scheme_fail(err, errlen, "--cubes %s: expected groups of %d digits (the rows of a in <%d,m,m>)", text,
                           n, n);
    if (c->digits != n)
        return scheme_fail(err, errlen, "--cubes %s: expected cubes of %d digits (the diagonal of <%d,%d,%d>)", text,
                           n, n, n, n);
    unsigned seen = 0;
    for (int i = 0; i < c->count; i++) {
        if (!c->mask[i] || (seen & c->mask[i]))
            return scheme_fail(err, errlen, "--cubes %s: expected nonempty cubes that partition the diagonal "
                                            "(each index in exactly one cube)", text);
        seen |= c->mask[i];
    }
    if (seen != (1u << n) - 1)
        return scheme_fail(err, errlen, "--cubes %s: expected cubes that cover the diagonal (each index in exactly "
                                        "one cube)", text);
    if (scheme_symmetry_has_c2(g) && !cubes_closed(c, n, scheme_symmetry_swaps(g, n))) {
        if (g == SCHEME_SYM_C3XC2)
            return scheme_fail(err, errlen, "--cubes %s: under c3xc2 the mirror of every cube must be a cube", text);
        const int k = scheme_symmetry_swaps(g, n);
        return scheme_fail(err, errlen,
                           "--cubes %s: under %s the image of every cube must be a cube (the involution swaps i and "
                           "n-1-i for i < %d)",
                           text, scheme_symmetry_name(g), k);
    }
    return true;
}

/* The t2 start of <n,m,m>: the standard terms a_ij b_jk c_ki with j != k
 * pair into orbits ((i,j,k) and (i,k,j)); those with j = k are fixed.  For
 * each j and each group S of the rows i (the partition `groups`), the fixed
 * terms of S are written as one, (sum_S E_ij) (x) E_jj (x) (sum_S E_ji), plus
 * the terms E_ij (x) E_jj (x) E_ji', i != i' in S, that it adds (they cancel
 * mod 2, and pair into orbits).  So the start has m * |groups| fixed terms:
 * the parity of every rank the walk reaches is that of m * |groups|. */
static scheme *t2_start(scheme_format f, const search_cubes *groups, char *err, size_t errlen)
{
    const int n = f.n, m = f.m;
    scheme *s = scheme_new(f, SCHEME_RING_F2, n * m * m + m * n * n + 8);
    if (!s) {
        scheme_fail(err, errlen, "out of memory");
        return NULL;
    }
#define A_(i, j) (1ull << ((i) * m + (j)))
#define B_(j, k) (1ull << ((j) * m + (k)))
#define C_(k, i) (1ull << ((k) * n + (i)))
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            for (int k = 0; k < m; k++)
                if (j != k)
                    scheme_push(s, A_(i, j), B_(j, k), C_(k, i));
    for (int j = 0; j < m; j++)
        for (int q = 0; q < groups->count; q++) {
            uint64_t a = 0, c = 0;
            for (int i = 0; i < n; i++)
                if (groups->mask[q] >> i & 1) {
                    a |= A_(i, j);
                    c |= C_(j, i);
                }
            scheme_push(s, a, B_(j, j), c);
            for (int i = 0; i < n; i++)
                for (int i2 = 0; i2 < n; i2++)
                    if (i != i2 && (groups->mask[q] >> i & 1) && (groups->mask[q] >> i2 & 1))
                        scheme_push(s, A_(i, j), B_(j, j), C_(j, i2));
        }
#undef A_
#undef B_
#undef C_
    return s;
}

scheme *search_symmetric_start(scheme_format f, scheme_symmetry g, const search_cubes *cubes, char *err,
                               size_t errlen)
{
    if (!scheme_symmetry_fits(g, f, err, errlen))
        return NULL;
    const int n = f.n;
    search_cubes c = *cubes;
    if (!c.count)
        search_cubes_default_for(g, n, &c);
    if (!search_cubes_check(&c, n, g, err, errlen))
        return NULL;
    if (g == SCHEME_SYM_T2)
        return t2_start(f, &c, err, errlen);
    scheme *s = scheme_new(f, SCHEME_RING_F2, n * n * n + 8 * n * n);
    if (!s) {
        scheme_fail(err, errlen, "out of memory");
        return NULL;
    }
#define E(i, j) (1ull << ((i) * n + (j)))
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                if (!(i == j && j == k))
                    scheme_push(s, E(i, j), E(j, k), E(k, i));
    for (int q = 0; q < c.count; q++) {
        uint64_t D = 0;
        for (int i = 0; i < n; i++)
            if (c.mask[q] >> i & 1)
                D |= E(i, i);
        scheme_push(s, D, D, D);
        /* D^3 = sum over i, j, k in the cube of (E_ii, E_jj, E_kk): the terms
         * not on the diagonal of that sum are added back (they cancel mod 2) */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                for (int k = 0; k < n; k++)
                    if ((c.mask[q] >> i & 1) && (c.mask[q] >> j & 1) && (c.mask[q] >> k & 1) &&
                        !(i == j && j == k))
                        scheme_push(s, E(i, i), E(j, j), E(k, k));
    }
#undef E
    return s;
}

/* ---- the cube move ---- */

/* The index of a term (x, y, z) of s, -1 when there is none. */
static int find_term(const scheme *s, uint64_t x, uint64_t y, uint64_t z)
{
    for (int i = 0; i < s->rank; i++)
        if (s->terms[i].f[0] == x && s->terms[i].f[1] == y && s->terms[i].f[2] == z)
            return i;
    return -1;
}

/* Adds (x, y, z) to s over GF(2): removes an equal term, or appends it. */
static bool cube_toggle(scheme *s, uint64_t x, uint64_t y, uint64_t z)
{
    const int i = find_term(s, x, y, z);
    if (i < 0)
        return scheme_push(s, x, y, z);
    scheme_remove(s, i);
    return true;
}

scheme *search_cubes_merge(const scheme *s, const search_cubes *pair, char *err, size_t errlen)
{
    const int n = s->fmt.n;
    char text[96];
    search_cubes_text(pair, text, sizeof text);
    if (s->ring != SCHEME_RING_F2 || s->fmt.m != n || s->fmt.p != n) {
        char fb[32];
        scheme_fail(err, errlen, "--merge-cubes: expected a GF(2) scheme of a square format, not %s over %s",
                    scheme_format_str(s->fmt, fb), scheme_ring_name(s->ring));
        return NULL;
    }
    if (pair->count != 2 || pair->digits != n || !pair->mask[0] || !pair->mask[1] ||
        (pair->mask[0] & pair->mask[1])) {
        scheme_fail(err, errlen, "--merge-cubes %s: expected two disjoint nonempty cubes of %d digits", text, n);
        return NULL;
    }
    uint64_t D[3] = {0, 0, 0}; /* D_x, D_y, D_(x+y) */
    for (int i = 0; i < n; i++) {
        const uint64_t e = 1ull << (i * n + i);
        D[0] |= (pair->mask[0] >> i & 1) ? e : 0;
        D[1] |= (pair->mask[1] >> i & 1) ? e : 0;
    }
    D[2] = D[0] | D[1];
    const bool both = find_term(s, D[0], D[0], D[0]) >= 0 && find_term(s, D[1], D[1], D[1]) >= 0;
    if (!both && find_term(s, D[2], D[2], D[2]) < 0) {
        scheme_fail(err, errlen, "--merge-cubes %s: the scheme holds neither both cubes nor their union's "
                                 "(terms D*D*D of the diagonal matrices D of the cubes)", text);
        return NULL;
    }
    scheme *r = scheme_clone(s);
    bool ok = r != NULL;
    const uint64_t x = D[0], y = D[1];
    const uint64_t nine[9][3] = {{x, x, x}, {y, y, y}, {D[2], D[2], D[2]}, {x, x, y}, {x, y, x},
                                 {y, x, x}, {x, y, y}, {y, x, y}, {y, y, x}};
    for (int t = 0; ok && t < 9; t++)
        ok = cube_toggle(r, nine[t][0], nine[t][1], nine[t][2]);
    if (!ok) {
        scheme_free(r);
        scheme_fail(err, errlen, "out of memory");
        return NULL;
    }
    return r;
}
