/* The CPU walker: one scheme, an incremental index of flip candidates, random
 * flips, every reduction at once, plus transitions after a plateau.
 *
 * Index (the classic one of flip-graph walkers, the Flip-graph post: "existing flip graph
 * search procedures ... maintain, for each position A,B,C, a map"): per
 * position an open-addressing hash table factor value -> bucket, each bucket a
 * doubly linked list of the terms holding that value there.  Terms live in
 * fixed slots.  Every (slot, position) in a bucket of two is listed in M2, in
 * a bucket of three or more in M3.  A flip draws r < |M2| + (kmax-1)|M3|: a
 * member of M2 and its one partner, or a member of M3 (bucket of k) kept with
 * probability (k-1)/(kmax-1) and a uniform partner; so every ordered flippable
 * pair is equally likely, with no rejection while no bucket exceeds three.
 * A move touches O(1) buckets; nothing is allocated after the walker is built.
 *
 * Reductions are kept exhaustive incrementally: after every change of the
 * factor at (slot, q) the buckets of that slot are checked (pairs sharing two
 * factors; with gen_max >= 3 the sets of up to gen_max terms sharing a factor
 * whose other factors are dependent, the Flip-graph post's generalized flip), and the
 * changes those reductions make are checked in turn (a work list).
 */
#include "walker_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the member lists M2 (buckets of two) and M3 (three or more) ---- */

static inline void m_add(search_walker *w, int cls, int32_t code)
{
    int32_t *n = &w->nM[cls];
    w->node[code].mpos = *n;
    w->M[cls][(*n)++] = code;
}

static inline void m_del(search_walker *w, int cls, int32_t code)
{
    int32_t at = w->node[code].mpos;
    int32_t last = w->M[cls][--w->nM[cls]];
    w->M[cls][at] = last;
    w->node[last].mpos = at;
    w->node[code].mpos = -1;
}

static inline void hist_inc(search_walker *w, int k)
{
    w->hist[k]++;
    if (k > w->kmax)
        w->kmax = k;
}

static inline void hist_dec(search_walker *w, int k)
{
    w->hist[k]--;
    while (w->kmax > 3 && !w->hist[w->kmax])
        w->kmax--;
}

/* ---- buckets: (slot, pos) joins / leaves the bucket of its factor ---- */

void walker_idx_add(search_walker *w, int32_t s, int pos)
{
    int32_t code = s << 2 | pos;
    uint64_t key = w->f[code];
    wk_table *t = &w->tab[pos];
    uint32_t i = hslot(t, key);
    int32_t b;
    for (;;) {
        wk_hent *e = &t->e[i];
        if (e->key == key) {
            b = e->bid;
            break;
        }
        if (!e->key) {
            b = w->bfree[--w->nbfree];
            e->key = key;
            e->bid = b;
            w->bk[b].count = 0;
            w->bk[b].head = -1;
            break;
        }
        i = (i + 1) & t->mask;
    }
    wk_bucket *bk = &w->bk[b];
    wk_node *n = &w->node[code];
    n->bid = b;
    n->prv = -1;
    int32_t old = bk->head;
    n->nxt = old;
    if (old >= 0)
        w->node[old << 2 | pos].prv = s;
    bk->head = s;
    int c = ++bk->count;
    if (c == 2) {
        m_add(w, 0, old << 2 | pos);
        m_add(w, 0, code);
    } else if (c == 3) {
        /* the two old members move from M2 to M3 */
        int32_t o2 = w->node[old << 2 | pos].nxt;
        m_del(w, 0, old << 2 | pos);
        m_del(w, 0, o2 << 2 | pos);
        m_add(w, 1, old << 2 | pos);
        m_add(w, 1, o2 << 2 | pos);
        m_add(w, 1, code);
        hist_inc(w, 3);
    } else if (c > 3) {
        m_add(w, 1, code);
        w->hist[c - 1]--;
        hist_inc(w, c);
    }
}

void walker_idx_remove(search_walker *w, int32_t s, int pos)
{
    int32_t code = s << 2 | pos;
    wk_node *n = &w->node[code];
    int32_t b = n->bid;
    wk_bucket *bk = &w->bk[b];
    if (n->prv >= 0)
        w->node[n->prv << 2 | pos].nxt = n->nxt;
    else
        bk->head = n->nxt;
    if (n->nxt >= 0)
        w->node[n->nxt << 2 | pos].prv = n->prv;
    int c = --bk->count;
    if (c == 0) {
        tab_delete(&w->tab[pos], w->f[code]);
        w->bfree[w->nbfree++] = b;
    } else if (c == 1) {
        m_del(w, 0, code);
        m_del(w, 0, bk->head << 2 | pos);
    } else if (c == 2) {
        int32_t h = bk->head, h2 = w->node[h << 2 | pos].nxt;
        m_del(w, 1, code);
        m_del(w, 1, h << 2 | pos);
        m_del(w, 1, h2 << 2 | pos);
        m_add(w, 0, h << 2 | pos);
        m_add(w, 0, h2 << 2 | pos);
        hist_dec(w, 3);
    } else {
        m_del(w, 1, code);
        w->hist[c]++;
        hist_dec(w, c + 1);
    }
    n->bid = -1;
    /* a bucket shrinking to gen_max enters the range that is checked for
     * dependent factors: a dependence among the rest may have been there all along */
    if (c == w->gen_max && c >= 3)
        w->work[w->nwork++] = bk->head << 2 | pos;
}

/* ---- terms ---- */

void walker_term_remove(search_walker *w, int32_t s)
{
    for (int p = 0; p < 3; p++)
        if (w->node[s << 2 | p].bid >= 0)
            walker_idx_remove(w, s, p);
    int32_t at = w->apos[s];
    int32_t last = w->alive[--w->rank];
    w->alive[at] = last;
    w->apos[last] = at;
    w->apos[s] = -1;
    w->sfree[w->nsfree++] = s;
}

/* A new term in a free slot, indexed, all three positions queued for checks. */
int32_t walker_term_add(search_walker *w, uint64_t a, uint64_t b, uint64_t c)
{
    int32_t s = w->sfree[--w->nsfree];
    w->f[s << 2 | 0] = a;
    w->f[s << 2 | 1] = b;
    w->f[s << 2 | 2] = c;
    w->apos[s] = w->rank;
    w->alive[w->rank++] = s;
    for (int p = 0; p < 3; p++) {
        walker_idx_add(w, s, p);
        walker_work_push(w, s, p);
    }
    return s;
}

/* Sets the factor of slot s at pos to v (XOR of the old one with d), keeping
 * the index; drops the term when v is zero; queues the change. */
static void factor_xor(search_walker *w, int32_t s, int pos, uint64_t d)
{
    int32_t code = s << 2 | pos;
    walker_idx_remove(w, s, pos);
    w->f[code] ^= d;
    if (!w->f[code]) {
        walker_term_remove(w, s);
        return;
    }
    walker_idx_add(w, s, pos);
    walker_work_push(w, s, pos);
}

/* ---- reductions ---- */

/* Pairs: a term of the bucket of (s, q) that shares a second factor with s. */
static bool check_pair(search_walker *w, int32_t s, int q)
{
    int r1 = pos_y(q), r2 = pos_z(q);
    uint64_t f1 = w->f[s << 2 | r1], f2 = w->f[s << 2 | r2];
    int32_t b = w->node[s << 2 | q].bid;
    for (int32_t u = w->bk[b].head; u >= 0; u = w->node[u << 2 | q].nxt) {
        if (u == s)
            continue;
        int differ;
        if (w->f[u << 2 | r1] == f1)
            differ = r2;
        else if (w->f[u << 2 | r2] == f2)
            differ = r1;
        else
            continue;
        /* (x, y, z_s) + (x, y, z_u) = (x, y, z_s + z_u): u goes, s takes the sum */
        uint64_t d = w->f[u << 2 | differ];
        walker_term_remove(w, u);
        w->st.reductions++;
        factor_xor(w, s, differ, d); /* removes s too when the sum is zero */
        if (w->apos[s] >= 0)
            walker_work_push(w, s, q);
        return true;
    }
    return false;
}

/* A bucket at position x (3 <= size <= gen_max): are the factors at y of its
 * terms dependent?  Then drop one and fix the others (search_reduce_dependent). */
static bool check_dependent(search_walker *w, int32_t b, int x, int y)
{
    int32_t idx[32];
    uint64_t v[32];
    int k = 0;
    for (int32_t u = w->bk[b].head; u >= 0; u = w->node[u << 2 | x].nxt) {
        idx[k] = u;
        v[k] = w->f[u << 2 | y];
        k++;
    }
    uint32_t sub;
    if (k == 3) /* no two are equal (pairs were reduced first): only the triple */
        sub = (v[0] ^ v[1] ^ v[2]) ? 0 : 7;
    else
        sub = search_find_dependent(v, k);
    if (!sub)
        return false;
    int z = 3 - x - y;
    int r = __builtin_ctz(sub);
    int32_t sr = idx[r];
    uint64_t zr = w->f[sr << 2 | z];
    walker_term_remove(w, sr);
    w->st.gen_reductions++;
    w->st.reductions++;
    for (int j = r + 1; j < k; j++)
        if (sub >> j & 1)
            factor_xor(w, idx[j], z, zr);
    /* The factors at y of the rest may hold a second dependent subset (a
     * bucket that shrank to gen_max held two, walker_idx_remove): the item
     * that found this one may have been sr's, which is gone, and the members'
     * own items check the bucket at x at their factors at z only
     * (check_general), so a member that stays checks it again. */
    for (int j = r + 1; j < k; j++)
        if (sub >> j & 1 && w->apos[idx[j]] >= 0) {
            walker_work_push(w, idx[j], x);
            break;
        }
    return true;
}

/* A flip keeps its bucket's span.  The flip (x, y_s, z_s), (x, y_u, z_u) ->
 * (x, y_s + y_u, z_s), (x, y_u, z_u + z_s) changes, in the bucket B both terms
 * share at x, one y factor by another member's and one z factor by another
 * member's: B's y factors and its z factors span what they spanned, with as
 * many vectors, so they stay independent; and they were, since reductions are
 * exhaustive after every move.  The check of B by the flip's two work items
 * can only fail, and is skipped (the checks went from 28% of the <6,6,6>
 * walk's time to 8%; bench/RESULTS.md, "A flip keeps its bucket's span").
 * The flip may also queue the head of a bucket that shrank to gen_max when s
 * or u left it: that term shares y with s or z with u, so it is not in B (the
 * pair would have been reduced), and its bucket at x did not change: the skip
 * there is as safe.  A change made by a reduction in between comes with work
 * items of its own, which check B in full; a term leaving B keeps the rest
 * independent. */
static bool check_general(search_walker *w, int32_t s, int q, int skip_r)
{
    int gm = w->gen_max;
    /* the bucket s joined at q: its factors at both other positions */
    int32_t b = w->node[s << 2 | q].bid;
    int c = w->bk[b].count;
    if (c >= 3 && c <= gm) {
        if (check_dependent(w, b, q, pos_y(q)) || check_dependent(w, b, q, pos_z(q)))
            return true;
    }
    /* the buckets s sits in at the other positions: their factors at q changed */
    for (int d = 1; d <= 2; d++) {
        int r = (q + d) % 3;
        b = w->node[s << 2 | r].bid;
        c = w->bk[b].count;
        if (c < 3 || c > gm)
            continue;
        if (r == skip_r) {
            w->st.skipped++;
            if (w->check_skipped && check_dependent(w, b, r, q)) {
                w->st.skipped_found++;
                return true;
            }
            continue;
        }
        if (check_dependent(w, b, r, q))
            return true;
    }
    return false;
}

static void process_work(search_walker *w)
{
    while (w->nwork) {
        int32_t code = w->work[--w->nwork];
        int32_t s = code >> 2;
        int q = code & 3;
        int skip_r = -1;
        if (w->nwork < w->flip_items) { /* one of the flip's own items */
            w->flip_items = w->nwork;
            skip_r = w->flip_x;
        }
        if (w->apos[s] < 0)
            continue; /* removed since it was queued */
        if (check_pair(w, s, q))
            continue;
        if (w->gen_max >= 3 && check_general(w, s, q, skip_r)) {
            if (w->apos[s] >= 0)
                walker_work_push(w, s, q); /* s may take part in further reductions */
        }
    }
}

/* ---- building ---- */

static void *xcalloc(size_t n, size_t size, bool *ok)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        *ok = false;
    return p;
}

search_walker *search_walker_new(const scheme *start, const search_params *p, uint64_t seed,
                                 int cap)
{
    if (!start || !p || start->fmt.n != p->fmt.n || start->fmt.m != p->fmt.m ||
        start->fmt.p != p->fmt.p || !scheme_format_valid(start->fmt))
        return NULL;
    if (cap <= 0)
        cap = start->rank + (p->plus_max > 0 ? p->plus_max : 0) + 8;
    if (cap < start->rank)
        cap = start->rank;
    if (cap < 4)
        cap = 4;
    if (cap > SCHEME_MAX_RANK)
        return NULL;
    search_walker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    bool ok = true;
    w->fmt = p->fmt;
    w->cap = cap;
    w->gen_max = p->gen_max > 32 ? 32 : p->gen_max;
    w->plus_max = p->plus_max;
    w->isolated_plus = p->isolated_plus != 0;
    w->degree_bias = p->degree_bias;
    w->weight_bias = p->weight_bias;
    w->weight_keep_for = -1; /* no bias is negative: the table is filled at its first use */
    w->lookahead = p->lookahead;
    w->plus_tabu = p->plus_tabu != 0;
    w->tabu_rank = -1;
    w->plus_hold = p->plus_hold;
    w->L = p->plateau ? p->plateau : 1;
    w->Lmin = p->plateau_min ? p->plateau_min : w->L;
    w->Lmax = p->plateau_max ? p->plateau_max : w->L;
    if (w->Lmin > w->L) w->Lmin = w->L;
    if (w->Lmax < w->L) w->Lmax = w->L;
    w->f = xcalloc((size_t)cap * 4, sizeof *w->f, &ok);
    w->node = xcalloc((size_t)cap * 4, sizeof *w->node, &ok);
    w->alive = xcalloc((size_t)cap, sizeof *w->alive, &ok);
    w->apos = xcalloc((size_t)cap, sizeof *w->apos, &ok);
    w->sfree = xcalloc((size_t)cap, sizeof *w->sfree, &ok);
    w->nbk = 3 * cap;
    w->bk = xcalloc((size_t)w->nbk, sizeof *w->bk, &ok);
    w->bfree = xcalloc((size_t)w->nbk, sizeof *w->bfree, &ok);
    w->M[0] = xcalloc((size_t)cap * 3, sizeof *w->M[0], &ok);
    w->M[1] = xcalloc((size_t)cap * 3, sizeof *w->M[1], &ok);
    w->hist = xcalloc((size_t)cap + 2, sizeof *w->hist, &ok);
    /* the work list's bound: 3 per term at a reset, 7 for a move, and per
     * reduction (at most one per term) 7 for a pair, 3 * gen_max + 1 for a set
     * (2 * gen_max + 3: the removed term's 3, 2 per member changed, the
     * re-check of the bucket and of the item's term) */
    int gm = w->gen_max > 2 ? w->gen_max : 2;
    w->work = xcalloc((size_t)(3 * gm + 12) * ((size_t)cap + 1) + 64, sizeof *w->work, &ok);
    for (int q = 0; q < 3; q++)
        if (!tab_init(&w->tab[q], cap))
            ok = false;
    if (p->symmetry != SCHEME_SYM_NONE && !(w->sym = sym_new(p, cap)))
        ok = false;
    if (p->ring == SCHEME_RING_Z) {
        w->gen_max = 2; /* over Z: pair reductions only (docs/search.md, "Searching over Z") */
        if (!(w->zw = z_new(p, cap)))
            ok = false;
    }
    if (!ok) {
        search_walker_free(w);
        return NULL;
    }
    scheme_rng_seed(&w->rng, seed);
    if (!search_walker_reset(w, start)) {
        search_walker_free(w);
        return NULL;
    }
    return w;
}

void search_walker_free(search_walker *w)
{
    if (!w)
        return;
    free(w->f);
    free(w->node);
    free(w->alive);
    free(w->apos);
    free(w->sfree);
    free(w->bk);
    free(w->bfree);
    free(w->M[0]);
    free(w->M[1]);
    free(w->hist);
    free(w->work);
    for (int q = 0; q < 3; q++)
        free(w->tab[q].e);
    sym_free(w->sym);
    z_free(w->zw);
    free(w);
}

bool search_walker_reset(search_walker *w, const scheme *s) { return walker_reset(w, s, false); }

bool walker_reset(search_walker *w, const scheme *s, bool reduced)
{
    if (s->fmt.n != w->fmt.n || s->fmt.m != w->fmt.m || s->fmt.p != w->fmt.p)
        return false;
    w->hold_left = 0;
    if (w->sym) {
        (void)reduced; /* the orbits are found anew, and reduced, at every reset */
        w->plateau_count = 0;
        return sym_reset(w, s);
    }
    if (w->zw) {
        w->plateau_count = 0;
        return z_reset(w, s, reduced);
    }
    int n = 0;
    for (int r = 0; r < s->rank; r++) {
        const scheme_term *t = &s->terms[r];
        if (t->f[0] && t->f[1] && t->f[2])
            n++;
    }
    if (n > w->cap)
        return false;
    walker_clear(w);
    for (int r = 0; r < s->rank; r++) {
        const scheme_term *t = &s->terms[r];
        if (t->f[0] && t->f[1] && t->f[2])
            walker_term_add(w, t->f[0], t->f[1], t->f[2]);
    }
    if (reduced)
        w->nwork = 0; /* the caller vouches that no reduction is left */
    else
        process_work(w);
    w->plateau_count = 0;
    return true;
}

void walker_clear(search_walker *w)
{
    for (int q = 0; q < 3; q++)
        memset(w->tab[q].e, 0, (size_t)(w->tab[q].mask + 1) * sizeof(wk_hent));
    memset(w->hist, 0, (size_t)(w->cap + 2) * sizeof *w->hist);
    w->kmax = 3;
    w->nM[0] = w->nM[1] = 0;
    w->rank = 0;
    w->tabu_rank = -1;
    w->nwork = 0;
    w->nsfree = 0;
    for (int32_t k = w->cap - 1; k >= 0; k--) {
        w->sfree[w->nsfree++] = k;
        w->apos[k] = -1;
        for (int q = 0; q < 4; q++) {
            w->node[k << 2 | q].bid = -1;
            w->node[k << 2 | q].mpos = -1;
        }
    }
    w->nbfree = 0;
    for (int32_t b = w->nbk - 1; b >= 0; b--)
        w->bfree[w->nbfree++] = b;
}

/* ---- moves ---- */

bool walker_flip_isolated(const search_walker *w)
{
    return w->sym ? sym_flip_isolated(w) : !w->nM[0] && !w->nM[1];
}

/* Whether the flip (s, u, x) leaves a pair of terms sharing two factors (a
 * pair reduction): the new s = (x, y_s + y_u, z_s) with a term at its new y
 * that shares x or z_s, or the new u = (x, y_u, z_u + z_s) with a term at its
 * new z that shares x or y_u.  The new s and u never qualify with each other,
 * nor with the other's old factors (that would need y_s = 0 or z_u = 0, and
 * no term has a zero factor). */
static bool reduces_after(const search_walker *w, int32_t s, int32_t u, int x)
{
    const int y = pos_y(x), z = pos_z(x);
    const uint64_t xs = w->f[s << 2 | x], ys = w->f[s << 2 | y] ^ w->f[u << 2 | y], zs = w->f[s << 2 | z];
    int32_t b = tab_find(&w->tab[y], ys);
    if (b >= 0)
        for (int32_t t = w->bk[b].head; t >= 0; t = w->node[t << 2 | y].nxt)
            if (t != s && (w->f[t << 2 | x] == xs || w->f[t << 2 | z] == zs))
                return true;
    const uint64_t yu = w->f[u << 2 | y], zu = w->f[u << 2 | z] ^ zs;
    b = tab_find(&w->tab[z], zu);
    if (b >= 0)
        for (int32_t t = w->bk[b].head; t >= 0; t = w->node[t << 2 | z].nxt)
            if (t != u && (w->f[t << 2 | x] == xs || w->f[t << 2 | y] == yu))
                return true;
    return false;
}

/* Whether the plus tabu refuses the flip (s, u, x) (walker_tabu_set). */
static bool tabu_refuses(const search_walker *w, int32_t s, int32_t u, int x)
{
    if (w->tabu_rank != w->rank)
        return false;
    for (int k = 0; k < 2; k++)
        if (x == w->tabu_x[k] &&
            ((s == w->tabu_s[k] && u == w->tabu_u[k]) || (s == w->tabu_u[k] && u == w->tabu_s[k])))
            return true;
    return false;
}

/* A flip after which a pair reduction is possible, scanning every ordered
 * pair from a random member of the M lists on: O(D) table lookups.  The
 * plus tabu's pairs are skipped: its roads back are such flips. */
static bool find_reducing_flip(search_walker *w, int32_t *ps, int32_t *pu, int *px)
{
    const uint32_t n2 = (uint32_t)w->nM[0], total = n2 + (uint32_t)w->nM[1];
    const uint32_t start = total ? scheme_rng_below(&w->rng, total) : 0;
    for (uint32_t k = 0; k < total; k++) {
        const uint32_t i = (start + k) % total;
        const int32_t code = i < n2 ? w->M[0][i] : w->M[1][i - n2];
        const int32_t s = code >> 2;
        const int x = code & 3;
        for (int32_t u = w->bk[w->node[code].bid].head; u >= 0; u = w->node[u << 2 | x].nxt) {
            if (u == s)
                continue;
            if (tabu_refuses(w, s, u, x)) {
                w->st.tabu++;
                continue;
            }
            if (reduces_after(w, s, u, x)) {
                *ps = s, *pu = u, *px = x;
                return true;
            }
        }
    }
    return false;
}

/* The flip's two factor changes, (x, y_s, z_s), (x, y_u, z_u) ->
 * (x, y_s + y_u, z_s), (x, y_u, z_u + z_s), queued for checks; its own
 * inverse. */
static void flip_factors(search_walker *w, int32_t s, int32_t u, int x)
{
    const int y = pos_y(x), z = pos_z(x);
    const uint64_t zs = w->f[s << 2 | z];
    factor_xor(w, s, y, w->f[u << 2 | y]);
    factor_xor(w, u, z, zs);
}

/* The flip of s and u at x, its reductions after it.  The items it queues
 * are marked as the flip's (check_general's skip_r) when the work list was
 * empty, as it is between moves. */
static void flip_apply(search_walker *w, int32_t s, int32_t u, int x)
{
    const bool empty = w->nwork == 0;
    flip_factors(w, s, u, x);
    w->flip_items = empty ? w->nwork : 0;
    w->flip_x = x;
    process_work(w);
    w->flip_items = 0;
}

/* The flip of s and u at x again, which undoes it (its own inverse) when it
 * made no reduction: the scheme is the one before it, whose reductions were
 * all taken, so the checks of the work it queues can find none and are
 * skipped; with check_skipped (tests) they run, and a reduction they take
 * counts in st.skipped_found. */
static void flip_undo(search_walker *w, int32_t s, int32_t u, int x)
{
    flip_factors(w, s, u, x);
    w->st.skipped += (uint64_t)w->nwork;
    if (!w->check_skipped) {
        w->nwork = 0;
        return;
    }
    const uint64_t r0 = w->st.reductions;
    process_work(w);
    w->st.skipped_found += w->st.reductions - r0;
}

/* ---- the weight bias's refusals, before the flip ---- */

/* Would term t, its factor at q changed to v by a flip at position x (which
 * also changes the flip's other term, at the third position), take part in a
 * reduction?  The checks process_work makes after the flip on t's work item,
 * on the scheme the flip would leave, the index untouched: the pair check and
 * the dependence checks of the bucket t joins at q (its factors at both other
 * positions), of the bucket it leaves there when that shrinks to gen_max
 * (walker_idx_remove queues its head, whose check looks at the whole bucket),
 * and of the bucket t keeps at the third position r (their factors at q); the
 * bucket at x keeps its span (check_general).  None of these buckets holds the
 * flip's other term, before or after it (it would share two factors with t):
 * the two terms' checks are independent, and the answer is exact. */
static bool change_reduces(const search_walker *w, int32_t t, int q, uint64_t v, int x)
{
    const int a = pos_y(q), b = pos_z(q), r = a == x ? b : a;
    const uint64_t *ft = &w->f[t << 2];
    const int gm = w->gen_max;
    uint64_t va[33], vb[33];
    int k = 0;
    const int32_t joined = tab_find(&w->tab[q], v);
    if (joined >= 0) {
        for (int32_t m = w->bk[joined].head; m >= 0; m = w->node[m << 2 | q].nxt) {
            if (w->f[m << 2 | a] == ft[a] || w->f[m << 2 | b] == ft[b])
                return true; /* check_pair */
            if (k < 32) {
                va[k] = w->f[m << 2 | a];
                vb[k] = w->f[m << 2 | b];
            }
            k++;
        }
    }
    if (gm < 3)
        return false;
    if (k + 1 >= 3 && k + 1 <= gm) {
        va[k] = ft[a];
        vb[k] = ft[b];
        if (search_find_dependent(va, k + 1) || search_find_dependent(vb, k + 1))
            return true;
    }
    const wk_bucket *left = &w->bk[w->node[t << 2 | q].bid];
    if (left->count - 1 == gm) {
        k = 0;
        for (int32_t m = left->head; m >= 0; m = w->node[m << 2 | q].nxt)
            if (m != t) {
                va[k] = w->f[m << 2 | a];
                vb[k] = w->f[m << 2 | b];
                k++;
            }
        if (search_find_dependent(va, k) || search_find_dependent(vb, k))
            return true;
    }
    const wk_bucket *kept = &w->bk[w->node[t << 2 | r].bid];
    if (kept->count >= 3 && kept->count <= gm) {
        k = 0;
        for (int32_t m = kept->head; m >= 0; m = w->node[m << 2 | r].nxt)
            va[k++] = m == t ? v : w->f[m << 2 | q];
        if (search_find_dependent(va, k))
            return true;
    }
    return false;
}

/* Would the flip of s and u at x make a reduction (flip_factors' two changes,
 * then process_work)? */
static bool flip_reduces(const search_walker *w, int32_t s, int32_t u, int x)
{
    const int y = pos_y(x), z = pos_z(x);
    const uint64_t ys = w->f[s << 2 | y] ^ w->f[u << 2 | y], zu = w->f[u << 2 | z] ^ w->f[s << 2 | z];
    if (!ys || !zu)
        return true; /* a pair sharing two factors: never there, reductions being exhaustive */
    return change_reduces(w, s, y, ys, x) || change_reduces(w, u, z, zu, x);
}

/* The nonzero coefficients the flip of s and u at x adds, where it reduces
 * nothing: (x, y_s, z_s), (x, y_u, z_u) -> (x, y_s + y_u, z_s), (x, y_u, z_u + z_s)
 * changes y_s and z_u only. */
static int flip_weight_added(const search_walker *w, int32_t s, int32_t u, int x)
{
    const int y = pos_y(x), z = pos_z(x);
    const uint64_t ys = w->f[s << 2 | y], zu = w->f[u << 2 | z];
    return __builtin_popcountll(ys ^ w->f[u << 2 | y]) - __builtin_popcountll(ys) +
           __builtin_popcountll(zu ^ w->f[s << 2 | z]) - __builtin_popcountll(zu);
}

/* The flips the index offers after the flip of s and u at x, where it
 * reduces nothing, from the d0 it offers now: s leaves its bucket at y and
 * joins the one of y_s + y_u, u leaves its bucket at z and joins the one of
 * z_u + z_s (two positions, so the moves are independent), and a bucket of c
 * terms offers c (c - 1). */
static uint64_t flip_degree_after(const search_walker *w, uint64_t d0, int32_t s, int32_t u, int x)
{
    const int y = pos_y(x), z = pos_z(x);
    const uint64_t ys = w->f[s << 2 | y] ^ w->f[u << 2 | y], zu = w->f[u << 2 | z] ^ w->f[s << 2 | z];
    const int32_t jy = tab_find(&w->tab[y], ys), jz = tab_find(&w->tab[z], zu);
    const int64_t cy = jy >= 0 ? w->bk[jy].count : 0, cz = jz >= 0 ? w->bk[jz].count : 0;
    const int64_t ly = w->bk[w->node[s << 2 | y].bid].count, lz = w->bk[w->node[u << 2 | z].bid].count;
    return (uint64_t)((int64_t)d0 + 2 * (cy - (ly - 1)) + 2 * (cz - (lz - 1)));
}

/* A flip under the weight bias, with or without the degree bias: kept when it
 * reduces, else with probability min(1, (D/D')^B) exp(-B_w dw)
 * (walker_bias_rejects).  The draw is uniform over the D ordered pairs, so the
 * plain walk stays at a scheme in proportion to its D (a random walk on a
 * graph); the <4,5,5>:73 of Arai, Ichikawa, Hukushima 2024 has 4 flippable
 * pairs where our 74-76 have 10 or more.  The acceptance test of Metropolis,
 * Rosenbluth, Rosenbluth, Teller, Teller 1953 with the proposal's ratio D/D'
 * makes every scheme of a rank equally likely (B = 1; the flip is its own
 * inverse).  The weight bias weighs a scheme by exp(-B_w W), W its nonzero
 * coefficients: a reduction needs two terms to share two factors, which dense
 * factors almost never do (docs/search.md, "The weight bias").  D' and dw are
 * known before the flip (flip_degree_after, flip_weight_added), so the draw is
 * made first; a flip it would undo is checked with flip_reduces and, when it
 * reduces nothing, refused without being made (about 40% of the <6,6,6> walk's
 * flips were made and undone: the index changed four times and the checks run
 * once for nothing).  The same Markov chain as making the flip and undoing it,
 * not the same walk (a flip that reduces takes a draw now).  With
 * check_skipped (tests) both answers of flip_reduces are checked against the
 * flip made: a refused flip is made anyway and must reduce nothing (one that
 * does is kept) and leave D' flips, a flip kept for its reduction must make
 * one; a wrong answer counts in st.skipped_found.  `cleared`: flip_reduces
 * already said no (hold_draw), so a refused flip is not asked again. */
static void flip_biased(search_walker *w, int32_t s, int32_t u, int x, bool cleared)
{
    const int dw = flip_weight_added(w, s, u, x); /* called with the weight bias on */
    const uint64_t d0 = w->degree_bias > 0 ? walker_degree(w) : 0;
    const uint64_t d1 = w->degree_bias > 0 ? flip_degree_after(w, d0, s, u, x) : 0;
    const int before = w->rank;
    w->st.flips++;
    if (!walker_bias_rejects(w, d0, d1, dw)) {
        flip_apply(w, s, u, x); /* kept, whatever it reduces */
        return;
    }
    if (!cleared && flip_reduces(w, s, u, x)) {
        flip_apply(w, s, u, x); /* kept for its reduction */
        if (w->check_skipped && w->rank == before)
            w->st.skipped_found++;
        return;
    }
    w->st.undone++;
    w->st.unmade++;
    if (w->check_skipped) {
        flip_apply(w, s, u, x);
        if (w->rank != before || (w->degree_bias > 0 && walker_degree(w) != d1))
            w->st.skipped_found++;
        if (w->rank == before)
            flip_undo(w, s, u, x);
    }
}

/* The plus hold (search_params.plus_hold; docs/search.md, "The plus
 * hold"): while it lasts, a drawn flip that would reduce (flip_reduces,
 * exact) is drawn again, up to 8 draws in all; false when every draw would
 * have reduced. */
static bool hold_draw(search_walker *w, int32_t *s, int32_t *u, int *x)
{
    for (int tries = 1;; tries++) {
        if (!flip_reduces(w, *s, *u, *x))
            return true;
        w->st.held++;
        if (tries == 8 || !walker_draw_pair_tabu(w, s, u, x))
            return false;
    }
}

bool search_walker_flip(search_walker *w)
{
    if (w->sym)
        return sym_flip(w);
    if (w->zw)
        return z_flip(w);
    if (!w->nM[0] && !w->nM[1]) {
        w->st.no_flip++;
        return false;
    }
    int32_t s, u;
    int x;
    /* The walk takes a reduction only when a random flip happens to make one,
     * with probability k/D at a scheme where k of its D flips do, and moves
     * on; every lookahead-th flip takes one of the k (docs/search.md,
     * "Lookahead"). */
    if (w->lookahead && ++w->lookahead_count >= w->lookahead) {
        w->lookahead_count = 0;
        if (find_reducing_flip(w, &s, &u, &x))
            w->st.lookahead++;
        else if (!walker_draw_pair_tabu(w, &s, &u, &x))
            return true; /* only the roads back were drawn: the step passes */
    } else if (!walker_draw_pair_tabu(w, &s, &u, &x))
        return true;
    const bool held = w->hold_left > 0;
    if (held) {
        w->hold_left--;
        if (!hold_draw(w, &s, &u, &x))
            return true; /* every draw would have reduced: the step passes */
    }
    const int before = w->rank;
    if (w->weight_bias > 0) {
        flip_biased(w, s, u, x, held);
    } else {
        /* The degree bias alone: made first and undone after, as before
         * flip_biased (it undoes few flips, a few per cent: predicting D' for
         * every flip cost more than the refusals saved, 0.93-0.96 times the
         * speed on <5,5,5>; docs/search.md, "The walker"). */
        const uint64_t d0 = w->degree_bias > 0 ? walker_degree(w) : 0;
        w->st.flips++;
        flip_apply(w, s, u, x);
        if (w->degree_bias > 0 && w->rank == before && walker_bias_rejects(w, d0, walker_degree(w), 0)) {
            flip_undo(w, s, u, x);
            w->st.undone++;
        }
    }
    w->st.hold_reduced += held && w->rank < before;
    return true;
}

void walker_draw_pair(search_walker *w, int32_t *ps, int32_t *pu, int *px)
{
    int32_t s, u;
    int x;
    for (;;) {
        /* class M2 has weight |M2|, class M3 (kmax-1)|M3|; in M3 a member of a
         * bucket of k is kept with (k-1)/(kmax-1): uniform over ordered pairs */
        uint32_t n2 = (uint32_t)w->nM[0], n3 = (uint32_t)w->nM[1];
        uint32_t km1 = (uint32_t)w->kmax - 1;
        uint32_t r = scheme_rng_below(&w->rng, n2 + km1 * n3);
        if (r < n2) {
            int32_t code = w->M[0][r];
            s = code >> 2;
            x = code & 3;
            const wk_node *ns = &w->node[code];
            u = ns->nxt >= 0 ? ns->nxt : ns->prv;
            break;
        }
        int32_t code = w->M[1][(r - n2) / km1];
        s = code >> 2;
        x = code & 3;
        const wk_bucket *bk = &w->bk[w->node[code].bid];
        int c = bk->count;
        if (c <= (int)km1 && (int)scheme_rng_below(&w->rng, km1) >= c - 1)
            continue;
        int j = (int)scheme_rng_below(&w->rng, (uint32_t)(c - 1));
        u = bk->head;
        for (;;) {
            if (u != s) {
                if (!j)
                    break;
                j--;
            }
            u = w->node[u << 2 | x].nxt;
        }
        break;
    }
    *ps = s;
    *pu = u;
    *px = x;
}

/* After the plus transition (x_i, y_i, z_i) + (X, Y, Z) = (x_i + X, y_i, z_i)
 * + (X, y_i + Y, z_i) + (X, Y, Z + z_i) (signs over Z as in search_z_plus):
 * the flip of the new term n with j at x (y_n loses Y, z_j gets z_i back) and
 * the flip of i with n at z (x_i loses X, y_n loses y_i) each make a pair
 * equal at two positions whose reduction restores the scheme before the plus
 * exactly.  Both pairs are refused, in either order and with either sign,
 * while the rank stays where the plus left it: a reduction (a move on) or
 * another plus ends the tabu.  A plus whose new term reduced at once (the
 * rank is not before + 1) leaves none. */
void walker_tabu_set(search_walker *w, int32_t i, int32_t j, int32_t n, int x, int before)
{
    if (!w->plus_tabu || n < 0 || w->rank != before + 1) {
        w->tabu_rank = -1;
        return;
    }
    w->tabu_rank = w->rank;
    w->tabu_s[0] = n, w->tabu_u[0] = j, w->tabu_x[0] = x;
    w->tabu_s[1] = i, w->tabu_u[1] = n, w->tabu_x[1] = pos_z(x);
}

bool walker_draw_pair_tabu(search_walker *w, int32_t *s, int32_t *u, int *x)
{
    for (int tries = 0; tries < 8; tries++) {
        walker_draw_pair(w, s, u, x);
        if (!tabu_refuses(w, *s, *u, *x))
            return true;
        w->st.tabu++;
    }
    return false;
}

static bool plain_plus(search_walker *w);

/* A plus transition, and the hold after it (search_params.plus_hold). */
bool search_walker_plus(search_walker *w)
{
    const bool done = w->sym ? sym_plus(w) : w->zw ? z_plus(w) : plain_plus(w);
    if (done)
        w->hold_left = w->plus_hold;
    return done;
}

static bool plain_plus(search_walker *w)
{
    if (w->rank < 2 || w->rank >= w->cap)
        return false;
    for (int tries = 0; tries < 64; tries++) {
        int32_t i = w->alive[scheme_rng_below(&w->rng, (uint32_t)w->rank)];
        int32_t j = w->alive[scheme_rng_below(&w->rng, (uint32_t)w->rank)];
        if (i == j)
            continue;
        const uint64_t *fi = &w->f[i << 2], *fj = &w->f[j << 2];
        if (fi[0] == fj[0] || fi[1] == fj[1] || fi[2] == fj[2])
            continue;
        int x = (int)scheme_rng_below(&w->rng, 3);
        int y = pos_y(x), z = pos_z(x);
        /* (x,y,z) + (x',y',z') = (x+x', y, z) + (x', y+y', z) + (x', y', z+z') */
        uint64_t nt[3];
        nt[x] = fj[x];
        nt[y] = fi[y] ^ fj[y];
        nt[z] = fi[z];
        uint64_t xj = fj[x], zi = fi[z];
        const int before = w->rank;
        factor_xor(w, i, x, xj);
        factor_xor(w, j, z, zi);
        const int32_t n = walker_term_add(w, nt[0], nt[1], nt[2]);
        w->st.plus++;
        process_work(w);
        walker_tabu_set(w, i, j, n, x, before);
        return true;
    }
    return false;
}

uint64_t search_walker_walk(search_walker *w, uint64_t n, int base, int stop_below)
{
    uint64_t done = 0;
    while (done < n) {
        int before = w->rank;
        if (!search_walker_flip(w)) {
            /* nothing shares a factor: only a plus transition can move on, and from
             * there a few flips lead back to where it was (the trap of
             * search_params.isolated_plus); without it the caller restarts */
            if (!w->isolated_plus || !search_walker_plus(w))
                return done;
            continue;
        }
        done++;
        if (w->rank < before) {
            w->plateau_count = 0;
            if (w->rank < stop_below)
                return done;
        } else if (w->hold_left == 0 && ++w->plateau_count >= w->L) {
            /* a plateau counts from the end of a plus hold, so that the walk
             * descends from one plus before it takes the next */
            w->plateau_count = 0;
            if (w->plus_max > 0 && w->rank < base + w->plus_max && search_walker_plus(w) &&
                w->rank < stop_below)
                return done; /* the plus enabled reductions past the old rank */
        }
    }
    return done;
}

/* ---- inspection ---- */

int search_walker_rank(const search_walker *w) { return w->rank; }

uint64_t search_walker_plateau(const search_walker *w) { return w->L; }

void search_walker_stats_get(const search_walker *w, search_walker_stats *st) { *st = w->st; }

int search_walker_terms(const search_walker *w, scheme_term *out)
{
    if (w->sym)
        return sym_terms(w, out);
    if (w->zw)
        return z_terms(w, out);
    for (int r = 0; r < w->rank; r++) {
        int32_t s = w->alive[r];
        out[r].f[0] = w->f[s << 2 | 0];
        out[r].f[1] = w->f[s << 2 | 1];
        out[r].f[2] = w->f[s << 2 | 2];
    }
    return w->rank;
}

scheme *search_walker_snapshot(const search_walker *w)
{
    if (w->zw)
        return z_snapshot(w);
    scheme *s = scheme_new(w->fmt, SCHEME_RING_F2, w->rank > 0 ? w->rank : 1);
    if (!s)
        return NULL;
    s->rank = search_walker_terms(w, s->terms);
    return s;
}

void search_walker_check_skipped(search_walker *w, bool on) { w->check_skipped = on; }

bool search_walker_check(const search_walker *w, char *err, size_t errlen)
{
    if (w->sym)
        return sym_check(w, err, errlen);
    if (!walker_check_index(w, err, errlen))
        return false;
    if (w->zw)
        return z_check(w, err, errlen);
    /* exhaustive reductions: the reference finds none */
    scheme_term *t = malloc((size_t)(w->rank ? w->rank : 1) * sizeof *t);
    if (!t)
        return scheme_fail(err, errlen, "out of memory");
    search_walker_terms(w, t);
    search_reduction red;
    bool left = search_find_reduction(t, w->rank, w->gen_max, &red);
    uint64_t flips = search_count_flips(t, w->rank);
    free(t);
    if (left)
        return scheme_fail(err, errlen, "a reduction was left (kind %d)", red.kind);
    uint64_t pairs = walker_index_pairs(w);
    if (pairs != flips)
        return scheme_fail(err, errlen, "index counts %llu flips, reference %llu",
                           (unsigned long long)pairs, (unsigned long long)flips);
    if (walker_degree(w) != flips)
        return scheme_fail(err, errlen, "the degree bias counts %llu flips, reference %llu",
                           (unsigned long long)walker_degree(w), (unsigned long long)flips);
    return true;
}

bool walker_check_index(const search_walker *w, char *err, size_t errlen)
{
    /* every alive term indexed at its three factors, non-zero */
    int nalive = 0;
    for (int32_t s = 0; s < w->cap; s++) {
        if (w->apos[s] < 0)
            continue;
        nalive++;
        if (w->alive[w->apos[s]] != s)
            return scheme_fail(err, errlen, "slot %d: alive list mismatch", s);
        for (int q = 0; q < 3; q++) {
            uint64_t v = w->f[s << 2 | q];
            if (!v)
                return scheme_fail(err, errlen, "slot %d: zero factor at %d", s, q);
            int32_t b = tab_find(&w->tab[q], v);
            if (b < 0 || w->node[s << 2 | q].bid != b)
                return scheme_fail(err, errlen, "slot %d pos %d: not in its bucket", s, q);
            bool found = false;
            int cnt = 0;
            for (int32_t u = w->bk[b].head; u >= 0; u = w->node[u << 2 | q].nxt) {
                cnt++;
                if (w->f[u << 2 | q] != v)
                    return scheme_fail(err, errlen, "bucket holds a term of another value");
                if (u == s)
                    found = true;
                if (cnt > w->cap)
                    return scheme_fail(err, errlen, "bucket list loops");
            }
            if (!found || cnt != w->bk[b].count)
                return scheme_fail(err, errlen, "slot %d pos %d: bucket count %d, list %d", s, q,
                                   w->bk[b].count, cnt);
            int32_t mp = w->node[s << 2 | q].mpos;
            if ((mp >= 0) != (cnt >= 2))
                return scheme_fail(err, errlen, "slot %d pos %d: M membership wrong", s, q);
            if (mp >= 0 && (mp >= w->nM[cnt >= 3] || w->M[cnt >= 3][mp] != (s << 2 | q)))
                return scheme_fail(err, errlen, "slot %d pos %d: M position wrong", s, q);
        }
    }
    if (nalive != w->rank)
        return scheme_fail(err, errlen, "rank %d but %d alive slots", w->rank, nalive);
    /* M2 / M3 hold exactly the members of buckets of two / more; hist and kmax agree */
    int expect_m2 = 0, expect_m3 = 0, kmax = 3;
    int *hist = calloc((size_t)w->cap + 2, sizeof *hist);
    if (!hist)
        return scheme_fail(err, errlen, "out of memory");
    for (int q = 0; q < 3; q++)
        for (uint32_t i = 0; i <= w->tab[q].mask; i++)
            if (w->tab[q].e[i].key) {
                int c = w->bk[w->tab[q].e[i].bid].count;
                if (c < 1) {
                    free(hist);
                    return scheme_fail(err, errlen, "empty bucket left in the table");
                }
                if (c == 2)
                    expect_m2 += 2;
                if (c >= 3) {
                    expect_m3 += c;
                    hist[c]++;
                    if (c > kmax)
                        kmax = c;
                }
            }
    bool hist_ok = true;
    for (int c = 3; c <= w->cap; c++)
        if (hist[c] != w->hist[c])
            hist_ok = false;
    free(hist);
    if (!hist_ok)
        return scheme_fail(err, errlen, "bucket-size histogram wrong");
    if (expect_m2 != w->nM[0] || expect_m3 != w->nM[1])
        return scheme_fail(err, errlen, "M2/M3 hold %d/%d, buckets hold %d/%d", w->nM[0], w->nM[1],
                           expect_m2, expect_m3);
    if (kmax != w->kmax)
        return scheme_fail(err, errlen, "kmax %d, expected %d", w->kmax, kmax);
    return true;
}

bool walker_bias_rejects(search_walker *w, uint64_t d0, uint64_t d1, int dw)
{
    bool test = false;
    double keep = 1;
    if (w->degree_bias > 0 && d1 > d0) {
        keep = pow((double)d0 / (double)d1, w->degree_bias);
        test = true;
    }
    if (dw > 0) {
        keep *= walker_weight_keep(w, dw);
        test = true;
    }
    return test && scheme_rng_uniform(&w->rng) >= keep;
}

uint64_t walker_degree(const search_walker *w)
{
    uint64_t d = (uint64_t)w->nM[0]; /* a bucket of two: two ordered pairs, two members */
    for (int k = 3; k <= w->kmax; k++)
        d += (uint64_t)w->hist[k] * (uint64_t)k * (uint64_t)(k - 1);
    return d;
}

/* The flips the index offers: ordered pairs of terms in one bucket. */
uint64_t walker_index_pairs(const search_walker *w)
{
    uint64_t pairs = 0;
    for (int q = 0; q < 3; q++)
        for (uint32_t i = 0; i <= w->tab[q].mask; i++)
            if (w->tab[q].e[i].key) {
                uint64_t c = (uint64_t)w->bk[w->tab[q].e[i].bid].count;
                pairs += c * (c - 1);
            }
    return pairs;
}
