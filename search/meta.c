/* search --meta: one search whose walk changes format (docs/resize.md, "The
 * meta search").
 *
 * Kauers, Wood, "Exploring the meta flip graph for matrix multiplication"
 * (2025) walk the union of the flip graphs of all formats: besides flips and
 * reductions a walk may project its scheme to a smaller format or extend it
 * to a larger one, and a walk whose rank drifts more than 10 above the best
 * known for its format is reset to that best.  Here the walk within a format
 * is the engine's (its walkers, pool, plus transitions and GPU backend, one
 * stored run per leg); a leg ends when its rank stalls (--stall), and the
 * next leg moves one of the format's lowest schemes (drawn from its pool at
 * the best rank; not the leg's last scheme, which may have ended above it) to
 * a neighbouring format of the range (one dimension one larger or smaller,
 * search_resize, then search_permute to the sorted order, since every
 * permutation of a format has the same rank).  The reset rule is theirs: a moved scheme more than `drift` above the best this
 * run holds for the new format is dropped and the leg starts from that
 * format's pool instead (its `pool` lowest distinct schemes).  With
 * until_record the walk prefers neighbours not yet at their record and, when
 * every neighbour is, jumps to the unfinished format nearest to it, started
 * from search_meta_start over every format's best (projections, extensions,
 * products). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../verify/verify.h"
#include "session.h"

#define META_POOL_MAX 64

typedef struct meta_fmt {
    scheme_format f;
    int record;    /* the goal: the published record less search_meta_config.below */
    int published; /* the published record (records.tsv): what the legs and the table report */
    scheme *pool[META_POOL_MAX]; /* the lowest distinct schemes, by rank */
    uint64_t hash[META_POOL_MAX];
    int npool;
    int fails; /* legs here in a row that did not lower the best */
    int detours; /* detour legs here (search_meta_config.detours) */
    /* what the detours here did for one stuck format (the last one they were
     * for; another resets them): one ended above this format's record, and the
     * lowest rank the legs back from them reached (0: none yet) */
    int detoured_for;
    bool detour_short;
    int detour_back;
    /* a square format's fresh legs under --symmetry (fresh_kind): the
     * lowest rank each kind reached, [META_FRESH_SYMMETRIC] from its cubes
     * and [META_FRESH_STANDARD] plain from the standard algorithm (0: none
     * yet), and the kind walked last */
    int fresh_best[2];
    int fresh_last;
    /* the index of the last leg here, and of the last leg after which this
     * format's best was lower than before it (-1: none in this search) */
    int last_leg, improved_at;
    /* over Z: the lowest rank of a scheme found or stored for this format
     * that the pool does not hold, its coefficients beyond --coef-max (a lift
     * of a symmetric leg can hold a 3, which the walks from the pool cannot
     * start from: the GPU walk over Z holds {-1, 0, 1}); 0: none */
    int held;
} meta_fmt;

enum { META_FRESH_NONE = -1, META_FRESH_SYMMETRIC = 0, META_FRESH_STANDARD = 1 };

/* A square format's fresh turn under --symmetry: the symmetric walk from its
 * cubes first, the plain walk from the standard algorithm second, then the
 * kind whose legs ended lower, on a tie the other kind than last time.  Why:
 * on one H100 the symmetric walk of <4,4,4> from its cubes ended at 50 in 8
 * legs of 8 (20 to 160 s; on the CPU both two-cube partitions stop at 50 in
 * 60 s), where plain walks from the standard algorithm (the fresh detours in
 * the same logs) reached 47 in 3 of 3, in 2.9 to 13.2 s; a seed of the
 * twentieth session spent 320 s of <4,4,4> legs at 49 and 50 before a
 * projection brought 47 (bench/RESULTS.md, "One process per seed").
 * <5,5,5> goes the other way: the symmetric walk reaches 93 in about 10 s,
 * the plain one stops near 99. */
static int fresh_kind(const meta_fmt *m)
{
    if (!m->fresh_best[META_FRESH_SYMMETRIC])
        return META_FRESH_SYMMETRIC;
    if (!m->fresh_best[META_FRESH_STANDARD])
        return META_FRESH_STANDARD;
    if (m->fresh_best[META_FRESH_SYMMETRIC] != m->fresh_best[META_FRESH_STANDARD])
        return m->fresh_best[META_FRESH_SYMMETRIC] < m->fresh_best[META_FRESH_STANDARD] ? META_FRESH_SYMMETRIC
                                                                                         : META_FRESH_STANDARD;
    return m->fresh_last == META_FRESH_SYMMETRIC ? META_FRESH_STANDARD : META_FRESH_SYMMETRIC;
}

/* Whether the next own leg of format m (visited `visits` times) is a fresh
 * turn under --symmetry (symmetric): m square, an even number of legs on it
 * so far (search/meta.c's leg loop says what a fresh turn is). */
static bool fresh_turn_due(const meta_fmt *m, int visits, bool symmetric)
{
    return symmetric && m->f.n == m->f.m && m->f.m == m->f.p && visits % 2 == 0;
}

static bool same(scheme_format x, scheme_format y) { return x.n == y.n && x.m == y.m && x.p == y.p; }

static int find_fmt(const meta_fmt *v, int n, scheme_format f)
{
    f = search_format_sorted(f);
    for (int i = 0; i < n; i++)
        if (same(v[i].f, f))
            return i;
    return -1;
}

static int best_of(const meta_fmt *m) { return m->npool ? m->pool[0]->rank : -1; }

/* The lowest rank found for the format: its pool's, or a held one's (-1: none). */
static int reached(const meta_fmt *m)
{
    const int b = best_of(m);
    return m->held > 0 && (b < 0 || m->held < b) ? m->held : b;
}

static bool at_record(const meta_fmt *m) { return m->record > 0 && reached(m) > 0 && reached(m) <= m->record; }

/* The format's best in the result: the lowest reached, and whether it is held. */
static void report_best(search_meta_format *of, const meta_fmt *m)
{
    of->best = reached(m);
    of->best_held = of->best != best_of(m);
}

/* The rank at which the way back from a fresh detour on a starts, for a
 * neighbour smaller than the stuck format: a's record extended by the
 * standard terms of the new slice, vol(stuck) - vol(a) of them (<4,4,4>:47
 * gives <4,4,5> 63).  A larger neighbour's is not known beforehand (its walk
 * from the standard algorithm may end short of its record, and what a
 * projection drops depends on the scheme): it counts as above every smaller
 * one's. */
static int detour_start(const meta_fmt *v, int stuck, int a)
{
    const int vs = v[stuck].f.n * v[stuck].f.m * v[stuck].f.p, va = v[a].f.n * v[a].f.m * v[a].f.p;
    return va < vs ? v[a].record + vs - va : 1 << 30;
}

/* Detour candidates y for the stuck format `stuck` in the order they are
 * tried (search --meta rule 8): those not yet detoured for it first, the
 * lowest detour_start first, then detoured least; then the lowest rank a leg
 * back from their detours for it reached, those none of whose detours ended
 * above their own record, detoured least.  Ties stay in a random order. */
static bool detour_before(const meta_fmt *v, int stuck, int a, int b)
{
    const meta_fmt *x = &v[a], *y = &v[b];
    const bool tx = x->detoured_for == stuck, ty = y->detoured_for == stuck;
    if (tx != ty)
        return !tx;
    if (tx) {
        const int bx = x->detour_back ? x->detour_back : 1 << 30, by = y->detour_back ? y->detour_back : 1 << 30;
        if (bx != by)
            return bx < by;
        if (x->detour_short != y->detour_short)
            return !x->detour_short;
    } else {
        const int sx = detour_start(v, stuck, a), sy = detour_start(v, stuck, b);
        if (sx != sy)
            return sx < sy;
    }
    return x->detours < y->detours;
}

static int neighbours(const meta_fmt *v, int n, int i, int nb[6], scheme_format dir[6]);

/* The format a detour is for when several are short of their record and
 * all of them are stuck (search --meta rule 8, its second case): each
 * failed at least min_fails legs in a row and holds a pool.  Of those with
 * a neighbour at its record, the one whose detour starts nearest above its
 * record (detour_start less the record: <4,4,4>:47 gives <4,4,5> 63, 3
 * above 60; <3,5,5>:58 gives <4,5,5> 83, 10 above 73), on a tie the format
 * just walked (cur), then the first.  -1: not all stuck, or none has such a
 * neighbour. */
static int detour_for_stuck_ones(const meta_fmt *v, int n, int cur, int min_fails)
{
    for (int i = 0; i < n; i++)
        if (!at_record(&v[i]) && (v[i].fails < min_fails || !v[i].npool))
            return -1;
    int pick = -1, pick_gap = 0;
    for (int i = 0; i < n; i++) {
        if (at_record(&v[i]))
            continue;
        int nb[6];
        scheme_format dir[6];
        const int nn = neighbours(v, n, i, nb, dir);
        int gap = -1;
        for (int q = 0; q < nn; q++)
            if (at_record(&v[nb[q]])) {
                const int st = detour_start(v, i, nb[q]);
                const int g = st == 1 << 30 || v[i].record <= 0 ? 1 << 30 : st - v[i].record;
                if (gap < 0 || g < gap)
                    gap = g;
            }
        if (gap >= 0 && (pick < 0 || gap < pick_gap || (gap == pick_gap && i == cur))) {
            pick = i;
            pick_gap = gap;
        }
    }
    return pick;
}

static void detour_order(const meta_fmt *v, int stuck, int *y, int ny, uint64_t *sm)
{
    for (int i = ny - 1; i > 0; i--) {
        const int r = (int)(scheme_splitmix64(sm) % (uint64_t)(i + 1)), t = y[i];
        y[i] = y[r];
        y[r] = t;
    }
    for (int i = 1; i < ny; i++)
        for (int k = i; k > 0 && detour_before(v, stuck, y[k], y[k - 1]); k--) {
            const int t = y[k];
            y[k] = y[k - 1];
            y[k - 1] = t;
        }
}

/* Keeps a copy of s in the format's pool when it is new (canonical hash) and
 * among the `keep` lowest; false only when out of memory. */
static bool pool_offer(meta_fmt *m, const scheme *s, int keep)
{
    scheme *c = scheme_clone(s);
    if (!c)
        return false;
    uint64_t h = scheme_hash(c);
    for (int i = 0; i < m->npool; i++)
        if (m->hash[i] == h && m->pool[i]->rank == c->rank) {
            scheme_free(c);
            return true;
        }
    int at = m->npool;
    while (at > 0 && m->pool[at - 1]->rank > c->rank)
        at--;
    if (at >= keep) {
        scheme_free(c);
        return true;
    }
    if (m->npool == keep) {
        scheme_free(m->pool[keep - 1]);
        m->npool--;
    }
    memmove(&m->pool[at + 1], &m->pool[at], (size_t)(m->npool - at) * sizeof *m->pool);
    memmove(&m->hash[at + 1], &m->hash[at], (size_t)(m->npool - at) * sizeof *m->hash);
    m->pool[at] = c;
    m->hash[at] = h;
    m->npool++;
    return true;
}

/* A scheme for m's pool, or over Z beyond coef_max only its rank (held). */
static bool pool_or_hold(meta_fmt *m, const scheme *s, int keep, int coef_max)
{
    if (s->ring == SCHEME_RING_Z && search_z_max_coef(s) > coef_max) {
        if (!m->held || s->rank < m->held)
            m->held = s->rank;
        return true;
    }
    return pool_offer(m, s, keep);
}

bool search_meta_formats(scheme_format lo, scheme_format hi, scheme_format *out, int *n, int cap)
{
    int a[3] = {lo.n, lo.m, lo.p}, b[3] = {hi.n, hi.m, hi.p};
    *n = 0;
    for (int i = 0; i < 3; i++)
        if (a[i] < 1 || a[i] > b[i])
            return false;
    for (int x = a[0]; x <= b[0]; x++)
        for (int y = a[1]; y <= b[1]; y++)
            for (int z = a[2]; z <= b[2]; z++) {
                scheme_format f = {x, y, z};
                if (x > y || y > z || !scheme_format_valid(f))
                    continue;
                if (*n < cap)
                    out[*n] = f;
                (*n)++;
            }
    return *n > 0 && *n <= cap;
}

/* The neighbours of format i in the range: formats one step away in one
 * dimension, as orientations of i's format (so that search_resize takes i's
 * schemes there); nb[k] the index of the sorted format, dir[k] its
 * orientation.  Returns how many. */
/* The store's lowest distinct schemes of m's format over the walk's ring, in
 * each of its orientations (a scheme stored as <5,4,5> serves <4,5,5>), into
 * m's pool; over Z only those within coef_max, the others held. */
typedef struct store_rows {
    int64_t id[META_POOL_MAX];
    int n;
} store_rows;

static bool take_row(void *ctx, const db_scheme_row *row)
{
    store_rows *r = ctx;
    r->id[r->n++] = row->id;
    return r->n < META_POOL_MAX;
}

static bool pool_from_store(db *d, meta_fmt *m, int keep, scheme_ring ring, int coef_max, char *err, size_t errlen)
{
    const int d3[3] = {m->f.n, m->f.m, m->f.p};
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    scheme_format seen[6];
    int nseen = 0;
    for (int q = 0; q < 6; q++) {
        scheme_format o = {d3[perm[q][0]], d3[perm[q][1]], d3[perm[q][2]]};
        bool dup = false;
        for (int k = 0; k < nseen; k++)
            dup |= same(seen[k], o);
        if (dup)
            continue;
        seen[nseen++] = o;
        store_rows r = {.n = 0};
        db_filter f = {.has_fmt = true, .fmt = o, .ring = ring, .limit = keep};
        if (db_list(d, &f, take_row, &r, err, errlen) != DB_OK)
            return false;
        for (int k = 0; k < r.n; k++) {
            db_status st;
            scheme *s = db_load_scheme(d, r.id[k], &st, err, errlen);
            if (!s)
                return false;
            scheme *p = search_permute(s, m->f);
            scheme_free(s);
            /* a lift with a 2: the walk within the bound cannot start there (held) */
            const bool ok = p && pool_or_hold(m, p, keep, coef_max);
            scheme_free(p);
            if (!ok) {
                snprintf(err, errlen, "out of memory");
                return false;
            }
        }
    }
    return true;
}

/* The formats one step from f (one dimension one larger or smaller, none
 * below 1), n's first: at most 6. */
static int one_step(scheme_format f, scheme_format out[6])
{
    int k = 0, d[3] = {f.n, f.m, f.p};
    for (int dim = 0; dim < 3; dim++)
        for (int by = -1; by <= 1; by += 2) {
            int e[3] = {d[0], d[1], d[2]};
            e[dim] += by;
            if (e[dim] >= 1)
                out[k++] = (scheme_format){e[0], e[1], e[2]};
        }
    return k;
}

static int neighbours(const meta_fmt *v, int n, int i, int nb[6], scheme_format dir[6])
{
    scheme_format st[6];
    int k = 0;
    const int ns = one_step(v[i].f, st);
    for (int q = 0; q < ns; q++) {
        const int j = find_fmt(v, n, st[q]);
        bool dup = j < 0;
        for (int r = 0; r < k && !dup; r++)
            dup = nb[r] == j;
        if (!dup) {
            nb[k] = j;
            dir[k++] = st[q];
        }
    }
    return k;
}

/* The orientations of src one step from an ordering of `to` (one dimension
 * one larger or smaller): a sorted neighbour can be reached along several
 * dimensions (<4,4,5> to <4,5,5> by a fifth row of A, <5,4,5>, or a fifth
 * column, <4,5,5>), and the moves differ: Kauers and Moosbauer's <4,4,5>:60
 * extended to <4,5,5> walks to Arai, Ichikawa, Hukushima's rank 73 within
 * seconds on one H100, extended to <5,4,5> it stayed at 80 for 150 s on a CPU
 * thread (bench/RESULTS.md, "Moves in every orientation").  Returns how many
 * (at most 6, distinct) are in dirs. */
static int orientations(scheme_format src, scheme_format to, scheme_format dirs[6])
{
    scheme_format st[6];
    int k = 0;
    const int ns = one_step(src, st);
    for (int q = 0; q < ns; q++)
        if (same(search_format_sorted(st[q]), search_format_sorted(to)))
            dirs[k++] = st[q]; /* one_step's formats are distinct */
    return k;
}

/* s taken to the sorted format j (from an orientation one step away):
 * resized, permuted, verified.  NULL when that fails (never a bug the walk
 * needs: the leg then starts from the pool). */
static scheme *move_to(const scheme *s, scheme_format dir, scheme_format to)
{
    char err[256];
    scheme *r = search_resize(s, dir, err, sizeof err); /* in s's ring */
    scheme *p = r ? search_permute(r, to) : NULL;
    scheme_free(r);
    verify_result vr;
    if (p && !verify_scheme(p, p->ring, &vr)) {
        scheme_free(p);
        return NULL;
    }
    return p;
}

/* The store's row of s, 0 when there is no store or it does not hold s: the
 * parent a moved scheme is stored with. */
static int64_t stored_id(db *store, const scheme *s)
{
    char err[256];
    int64_t id;
    return store && db_find_scheme(store, s, &id, err, sizeof err) == DB_OK ? id : 0;
}

/* A moved start: the scheme, its parent's row (stored_id) and the index of
 * the format it came from. */
typedef struct meta_move {
    scheme *s;
    int64_t parent;
    int src;
} meta_move;

/* The most starts a moved leg has: every orientation of every neighbour. */
#define META_MOVES_MAX 24

/* s (of format sf, the store's row pid or 0) moved to the sorted format `to`
 * in every orientation (orientations, move_to), appended to c[*n] with pid
 * and the index src of its format; at most META_MOVES_MAX in all. */
static void move_all(const scheme *s, scheme_format sf, scheme_format to, int64_t pid, int src, meta_move *c, int *n)
{
    scheme_format od[6];
    const int no = orientations(sf, to, od);
    for (int q = 0; q < no && *n < META_MOVES_MAX; q++) {
        scheme *r = move_to(s, od[q], to);
        if (r)
            c[(*n)++] = (meta_move){r, pid, src};
    }
}

/* Factors for the sums and products of search_meta_start beside the range's
 * own bests: the formats of at most META_FACTOR_VOLUME (n*m*p) entries, every
 * dimension at least 2 (<2,2,2> .. <3,3,3>: 8 formats), each walked on the CPU
 * to its record (at most META_FACTOR_FLIPS flips) when a start is first
 * looked for.  Why: the meta walk over <2,2,2>..<6,6,6> entered <4,6,6>
 * before it had walked <2,3,3>, and <2,2,2>:7 times <2,3,3>:15 is <4,6,6>'s
 * record 105.  They only combine (no projection or extension from them) and
 * are not stored; over GF(2) only.
 * With the store read (from_store: --db without --meta-fresh) the store's best
 * GF(2) scheme of every format outside the range that is smaller than the
 * range's largest (every dimension at least 2) joins them, verified, up to
 * META_FACTOR_MAX in all.  Why: a range without <4,4,4> never started <4,4,7>
 * at its record, the sum <4,4,4>:47 + <4,4,3>:38, though the store held both
 * (bench/RESULTS.md, "The formats with a 7 over GF(2)"). */
#define META_FACTOR_VOLUME 27
#define META_FACTOR_FLIPS 2000000
#define META_FACTOR_MAX 64
#define META_FACTOR_TRIES 8

typedef struct meta_factors {
    bool built;
    search_session *from_store; /* non-NULL: the store's bests outside the range join the factors */
    int n;
    scheme *s[META_FACTOR_MAX];
} meta_factors;

/* One factor: walks from f's standard algorithm to its record, at most
 * META_FACTOR_FLIPS flips a try and META_FACTOR_TRIES tries from fresh seeds;
 * the lowest scheme met (NULL: none).  Why the tries: one walk of <2,3,3> can
 * sit on 16 for good (a CI run's seed 18066634142254466956: the <4,6,6> meta
 * test then started at 112, not 105), and plus transitions are bounded by the
 * walk's best, not its current rank, so that the walk does not drift up. */
static scheme *meta_factor_walk(scheme_format f, uint64_t *seed)
{
    search_params p;
    search_params_default(&p);
    p.fmt = f;
    const int record = search_record_rank(f);
    scheme *st = scheme_standard(f);
    scheme *best = NULL;
    for (int t = 0; st && t < META_FACTOR_TRIES && !(best && best->rank <= record); t++) {
        search_walker *w = search_walker_new(st, &p, scheme_splitmix64(seed), 0);
        int low = w ? search_walker_rank(w) : 0;
        for (uint64_t done = 0; w && done < META_FACTOR_FLIPS && low > record;) {
            const uint64_t k = search_walker_walk(w, 20000, low, record + 1);
            done += k ? k : 20000;
            if (search_walker_rank(w) < low)
                low = search_walker_rank(w);
            if (search_walker_rank(w) == low && (!best || best->rank > low)) {
                scheme_free(best);
                best = search_walker_snapshot(w);
            }
        }
        search_walker_free(w);
    }
    scheme_free(st);
    return best;
}

/* The store's best GF(2) schemes of the smaller formats outside the range,
 * into fc (session_outside_bests). */
static void meta_factors_from_store(meta_factors *fc, search_session *ss, const meta_fmt *v, int n)
{
    scheme_format *range = malloc((size_t)n * sizeof *range);
    if (!range)
        return;
    for (int q = 0; q < n; q++)
        range[q] = v[q].f;
    fc->n += session_outside_bests(ss, range, n, fc->s + fc->n, META_FACTOR_MAX - fc->n);
    free(range);
}

static void meta_factors_build(meta_factors *fc, uint64_t seed, const meta_fmt *v, int n)
{
    fc->built = true;
    for (int a = 2; a * a * a <= META_FACTOR_VOLUME; a++)
        for (int b = a; a * b * b <= META_FACTOR_VOLUME; b++)
            for (int c = b; a * b * c <= META_FACTOR_VOLUME && fc->n < META_FACTOR_MAX; c++) {
                const scheme_format f = {a, b, c};
                scheme *s = meta_factor_walk(f, &seed);
                verify_result vr;
                if (s && s->rank < a * b * c && verify_f2(s, &vr))
                    fc->s[fc->n++] = s;
                else
                    scheme_free(s);
            }
    if (fc->from_store)
        meta_factors_from_store(fc, fc->from_store, v, n);
}

static void meta_factors_free(meta_factors *fc)
{
    for (int i = 0; i < fc->n; i++)
        scheme_free(fc->s[i]);
    fc->n = 0;
}

/* How a start came: in words ("<4,4,4>'s best extended") and the store's row
 * of the scheme it came from (of a product's or sum's first part; 0: none). */
typedef struct meta_origin {
    char how[128];
    int64_t parent;
} meta_origin;

/* search_meta_start for format j: combine false, the lowest projection or
 * extension of the range's bests (the first n known schemes); combine true,
 * the lowest sum or product of them and fac's factors (nnear 0: no move). */
static scheme *meta_start_of(const meta_fmt *v, int n, int j, db *store, const meta_factors *fac, bool combine,
                             int reach, meta_origin *o)
{
    const scheme *known[512 + META_FACTOR_MAX];
    for (int q = 0; q < n; q++)
        known[q] = v[q].npool ? v[q].pool[0] : NULL;
    int nk = n;
    for (int q = 0; fac && q < fac->n; q++)
        known[nk++] = fac->s[q];
    int f1, f2 = -1;
    search_meta_how kind = SEARCH_META_MOVED;
    scheme *s = search_meta_start_reach(v[j].f, known, nk, combine ? 0 : n, reach < 1 ? 1 : reach, &f1,
                                        combine ? &f2 : NULL, &kind);
    memset(o, 0, sizeof *o);
    if (s) {
        char fb[32], fc[32];
        o->parent = stored_id(store, known[f1]); /* a walked small factor: none */
        if (f2 >= 0)
            snprintf(o->how, sizeof o->how, "%s's best %s %s's", scheme_format_str(known[f1]->fmt, fb),
                     kind == SEARCH_META_SUM ? "plus" : "times", scheme_format_str(known[f2]->fmt, fc));
        else
            snprintf(o->how, sizeof o->how, "%s's best %s", scheme_format_str(v[f1].f, fb),
                     v[j].f.n * v[j].f.m * v[j].f.p > v[f1].f.n * v[f1].f.m * v[f1].f.p ? "extended" : "projected");
    }
    return s;
}

/* The sums and products of a format never walked, against its start *next
 * (a move, or NULL): the lowest of them starts it where it reaches the
 * record and lies below *next (nothing is left to walk: <2,2,4>:14 as
 * <2,2,2>:7 twice; <4,6,6>:105 as <2,2,2>:7 times <2,3,3>:15); one above the
 * record but below *next is no start (the walk hardly leaves one:
 * bench/RESULTS.md, "Sums and products as meta starts"), it goes to *side, to
 * be stored and kept in the format's pool beside the leg.  The factors are
 * walked the first time (fac: NULL over Z). */
static void meta_combine(const meta_fmt *v, int n, int j, db *store, meta_factors *fac, uint64_t seed, scheme **next,
                         meta_origin *moved, scheme **side, meta_origin *side_o)
{
    if (fac && !fac->built)
        meta_factors_build(fac, seed, v, n);
    meta_origin o;
    scheme *c = meta_start_of(v, n, j, store, fac, true, 1, &o);
    if (!c || (*next && c->rank >= (*next)->rank)) {
        scheme_free(c);
    } else if (v[j].published > 0 && c->rank <= v[j].published) {
        /* at the published record a sum starts the format even when the goal is
         * below it (--meta-below): no move starts lower */
        scheme_free(*next);
        *next = c;
        *moved = o;
    } else {
        *side = c;
        *side_o = o;
    }
}

/* The start of a format never walked, with no move from a neighbour: the
 * lowest projection or extension of every format's best (projections from
 * up to `reach` steps away: search --meta-reach), and meta_combine. */
static scheme *meta_start_for(const meta_fmt *v, int n, int j, db *store, meta_factors *fac, uint64_t seed,
                              int reach, meta_origin *o, scheme **side, meta_origin *side_o)
{
    scheme *s = meta_start_of(v, n, j, store, NULL, false, reach, o);
    meta_combine(v, n, j, store, fac, seed, &s, o, side, side_o);
    return s;
}

/* A start in the walk's ring: over GF(2) its reduction mod 2; over Z an
 * integer copy (a GF(2) scheme with coefficients 1) that must verify over Z.
 * NULL when it does not, or out of memory. */
static scheme *ring_copy(const scheme *s, scheme_ring ring)
{
    if (ring != SCHEME_RING_Z)
        return scheme_to_f2(s);
    scheme *z = search_z_copy(s);
    verify_result vr;
    if (z && !verify_z(z, &vr)) {
        scheme_free(z);
        return NULL;
    }
    return z;
}

/* The standard algorithm of f in the walk's ring (NULL: out of memory). */
static scheme *ring_standard(scheme_format f, scheme_ring ring)
{
    scheme *s = scheme_standard(f);
    if (!s || ring != SCHEME_RING_Z)
        return s;
    scheme *z = ring_copy(s, ring);
    scheme_free(s);
    return z;
}

/* A scheme the leg did not walk to (its moved start, or a sum or product kept
 * beside it) stored under the leg's run (session_store_moved); a failure
 * marks the run's store failed with `what` in its message. */
static void store_under_leg(search_session *ss, session_run *run, scheme *s, int64_t parent, const char *what)
{
    char err[512];
    if (session_store_moved(ss, run, s, parent, err, sizeof err) != DB_OK) {
        run->store_failed = true;
        snprintf(run->msg, sizeof run->msg, "%s (rank %d) was not stored: %s", what, s->rank, err);
    }
}

/* One of m's lowest schemes: drawn at random from its pool at the best rank. */
static const scheme *pool_draw(const meta_fmt *m, uint64_t *sm)
{
    int level = 0;
    while (level < m->npool && m->pool[level]->rank == m->pool[0]->rank)
        level++;
    return m->pool[scheme_splitmix64(sm) % (uint64_t)level];
}

/* The starts of a moved leg into format j: `from` (one of format src's
 * schemes) in every orientation that reaches j, and with `others` every other
 * visited neighbour's best too, lowest first (stable); those more than drift
 * above j's best are dropped (Kauers-Wood).  The lowest goes to *next, its
 * origin to *moved ("<4,4,4>'s best extended" and `tail`), the others to
 * alt[*nalt] (*alt_src: the format *next came from).  Returns how many moves
 * were made before the drift rule: nonzero with *next NULL means the rule
 * dropped them all. */
static int meta_moves(const meta_fmt *v, int n, int j, const scheme *from, int src, bool others, int drift, db *store,
                      const char *tail, scheme **next, meta_origin *moved, meta_move *alt, int *nalt, int *alt_src)
{
    meta_move cand[META_MOVES_MAX];
    int nc = 0;
    move_all(from, v[src].f, v[j].f, stored_id(store, from), src, cand, &nc);
    if (others) {
        int an[6];
        scheme_format ad[6];
        const int na = neighbours(v, n, j, an, ad);
        for (int q = 0; q < na; q++)
            if (an[q] != src && v[an[q]].npool)
                move_all(v[an[q]].pool[0], v[an[q]].f, v[j].f, stored_id(store, v[an[q]].pool[0]), an[q], cand, &nc);
    }
    for (int a = 1; a < nc; a++) /* insertion sort by rank, stable */
        for (int b = a; b > 0 && cand[b].s->rank < cand[b - 1].s->rank; b--) {
            const meta_move t = cand[b];
            cand[b] = cand[b - 1];
            cand[b - 1] = t;
        }
    int kept = 0;
    for (int q = 0; q < nc; q++) {
        if (best_of(&v[j]) >= 0 && drift >= 0 && cand[q].s->rank > best_of(&v[j]) + drift)
            scheme_free(cand[q].s);
        else
            cand[kept++] = cand[q];
    }
    *next = NULL;
    if (kept) {
        char fb[32];
        *next = cand[0].s;
        *alt_src = cand[0].src;
        const meta_fmt *mf = &v[*alt_src];
        moved->parent = cand[0].parent;
        snprintf(moved->how, sizeof moved->how, "%s's best %s%s", scheme_format_str(mf->f, fb),
                 v[j].f.n * v[j].f.m * v[j].f.p > mf->f.n * mf->f.m * mf->f.p ? "extended" : "projected", tail);
        for (int q = 1; q < kept; q++)
            alt[(*nalt)++] = cand[q];
    }
    return nc;
}

search_status search_meta_run(search_session *ss, const search_config *base, const char *device,
                              const search_meta_config *mc, const scheme *const *starts, int nstarts,
                              const search_meta_hooks *h, search_meta_result *out)
{
    memset(out, 0, sizeof *out);
    out->status = SEARCH_BAD_PARAMS;
    scheme_format fl[512];
    int n = 0;
    if (!search_meta_formats(mc->lo, mc->hi, fl, &n, 512)) {
        snprintf(out->msg, sizeof out->msg, "the range holds %s", n ? "more than 512 formats" : "no format");
        return out->status;
    }
    if (mc->pool < 1 || mc->pool > META_POOL_MAX) {
        snprintf(out->msg, sizeof out->msg, "meta pool %d: expected 1..%d", mc->pool, META_POOL_MAX);
        return out->status;
    }
    if (mc->below < 0 || mc->below > 100 || (mc->below && !mc->until_record)) {
        snprintf(out->msg, sizeof out->msg, "meta below %d: expected 0..100, and above 0 only with until_record",
                 mc->below);
        return out->status;
    }
    meta_fmt *v = calloc((size_t)n, sizeof *v);
    out->formats = calloc((size_t)n, sizeof *out->formats);
    if (!v || !out->formats) {
        free(v);
        snprintf(out->msg, sizeof out->msg, "out of memory");
        out->status = SEARCH_FAILED;
        return out->status;
    }
    out->nformats = n;
    /* over Z every pool, move and store row is an integer scheme, and the
     * records are the z column's */
    const scheme_ring ring = base->p.ring == SCHEME_RING_Z ? SCHEME_RING_Z : SCHEME_RING_F2;
    for (int i = 0; i < n; i++) {
        v[i].f = fl[i];
        v[i].published = ring == SCHEME_RING_Z ? search_record_rank_z(fl[i]) : search_record_rank(fl[i]);
        /* a goal below the record (--meta-below): the published schemes are
         * where the rules above stop, and the aim beyond them is to go on */
        v[i].record = v[i].published > mc->below ? v[i].published - mc->below : v[i].published;
        v[i].last_leg = v[i].improved_at = -1;
        v[i].detoured_for = -1;
        out->formats[i].fmt = fl[i];
        out->formats[i].record = v[i].published;
        out->formats[i].best = -1;
        out->formats[i].start = -1;
    }
    /* the first leg: the start schemes' format, else the smallest */
    int cur = 0;
    scheme *next = NULL;
    /* the move's other starts (its other orientations, and with
     * all_neighbours the other neighbours' moves): the leg starts from them
     * too, each stored under it with its parent */
    meta_move alt[META_MOVES_MAX];
    int nalt = 0, alt_src = -1; /* alt_src: the format `next` came from */
    bool ok = true;
    char fa[32];
    for (int s = 0; s < nstarts && ok; s++) {
        int j = find_fmt(v, n, starts[s]->fmt);
        if (j < 0) {
            snprintf(out->msg, sizeof out->msg, "start scheme %d: %s is not in the range", s + 1,
                     scheme_format_str(starts[s]->fmt, fa));
            ok = false;
            break;
        }
        scheme *in = ring_copy(starts[s], ring);
        if (!in) {
            snprintf(out->msg, sizeof out->msg, "start scheme %d: not valid over Z (flipgraph lift takes a GF(2) scheme "
                     "to Z)", s + 1);
            ok = false;
            break;
        }
        scheme *p = search_permute(in, v[j].f);
        scheme_free(in);
        ok = p && pool_offer(&v[j], p, mc->pool);
        if (s == 0) {
            cur = j;
            next = p;
        } else
            scheme_free(p);
    }
    if (!ok) {
        scheme_free(next);
        goto done;
    }

    /* the coefficients a pooled scheme over Z may have: --coef-max, the walk
     * over Z's bound; with --via-f2 any, since the legs walk over GF(2) from
     * their starts' images mod 2 (a lift of a plain GF(2) walk's scheme
     * mostly holds a 2: on the CPU over <3,3,4>..<3,4,5> 5 lifts of 6) */
    const int pool_coef = base->p.via_f2 > 0 ? INT_MAX : base->p.coef_max;
    if (mc->from_store && session_store(ss)) {
        char err[512];
        for (int i = 0; i < n && ok; i++) {
            const int before = v[i].npool;
            if (!pool_from_store(session_store(ss), &v[i], mc->pool, ring, pool_coef, err, sizeof err)) {
                snprintf(out->msg, sizeof out->msg, "%s: the stored schemes: %s", scheme_format_str(v[i].f, fa), err);
                out->status = SEARCH_FAILED;
                out->store_failed = true;
                ok = false;
            }
            out->stored += v[i].npool - before;
            report_best(&out->formats[i], &v[i]);
        }
        /* no start given: the first leg goes on where the stored search
         * stopped, at the first format short of its record */
        for (int i = 0; i < n && ok && nstarts == 0 && mc->until_record; i++)
            if (!at_record(&v[i])) {
                cur = i;
                break;
            }
    }
    meta_origin moved = {"", 0}; /* how `next` came */
    scheme *side = NULL;         /* a sum or product kept beside the leg (meta_start_for) */
    meta_origin side_o = {"", 0};
    meta_factors factors = {false, mc->from_store ? ss : NULL, 0, {NULL}};
    meta_factors *fac = ring == SCHEME_RING_Z ? NULL : &factors;
    const uint64_t fac_seed = base->p.seed ^ 0x6d65746166616374ull;
    /* the first leg, where nothing gave it a start: whatever search_meta_start
     * finds (the store's bests, or a sum or product of small formats at the
     * record: <4,6,6> alone starts at 105) */
    if (ok && !next && !v[cur].npool) {
        next = meta_start_for(v, n, cur, session_store(ss), fac, fac_seed, mc->reach, &moved, &side, &side_o);
    } else if (ok && !next && mc->reach > 1) {
        /* a reach beyond the neighbours (search --meta-reach): a projection
         * of a larger format's best below the store's best of this one
         * starts the first leg (the store's <6,6,6>:153 gives <5,5,5> 93) */
        meta_origin o;
        scheme *s = meta_start_of(v, n, cur, session_store(ss), NULL, false, mc->reach, &o);
        if (s && s->rank < v[cur].pool[0]->rank) {
            next = s;
            moved = o;
        } else {
            scheme_free(s);
        }
    }
    if (!ok) {
        scheme_free(next);
        goto done;
    }

    const double t0 = search_clock_s();
    uint64_t sm = base->p.seed;
    bool symmetric_all = base->p.symmetry != SCHEME_SYM_NONE;
    search_meta_leg leg;
    bool reset = false;       /* the last move was dropped by the reset rule */
    int detour_for = -1;      /* the next leg is a detour for this format (below) */
    int back_from = -1;       /* the next leg comes back from a detour on this format (-1: no) */
    out->status = SEARCH_NOT_REACHED;
    for (int k = 0;; k++) {
        double left = base->p.time_limit > 0 ? base->p.time_limit - (search_clock_s() - t0) : 0;
        if ((base->p.time_limit > 0 && left <= 0.05) || session_stop_seen() || search_stop_requested())
            break;
        if (mc->until_record) {
            bool all = true;
            for (int i = 0; i < n; i++)
                all &= at_record(&v[i]);
            if (all) {
                out->all_records = true;
                out->status = SEARCH_REACHED;
                break;
            }
        }
        meta_fmt *m = &v[cur];
        const int best_before = reached(m);
        const bool detour = detour_for >= 0;
        memset(&leg, 0, sizeof leg);
        leg.index = k + 1;
        leg.detour = detour;
        if (detour)
            leg.detour_for = v[detour_for].f;
        leg.fmt = m->f;
        leg.record = m->published;
        search_config cfg = *base;
        cfg.p.fmt = m->f;
        cfg.given[SEARCH_PARAM_DIMS] = true;
        /* a square format's legs alternate: a fresh start on its first,
         * third, ... visit (fresh_kind: the symmetric walk from its cubes or
         * the plain walk from the standard algorithm), the plain walk from a
         * moved start or its pool on the others; a detour, and the leg back
         * from one, walk plainly */
        const bool fresh_turn = fresh_turn_due(m, out->formats[cur].visits, symmetric_all) && !detour && back_from < 0;
        const int fresh = fresh_turn ? fresh_kind(m) : META_FRESH_NONE;
        if (fresh != META_FRESH_SYMMETRIC) {
            cfg.p.symmetry = SCHEME_SYM_NONE;
            cfg.given[SEARCH_PARAM_SYMMETRY] = false;
        }
        cfg.p.time_limit = left > 0 ? left : 0;
        cfg.given[SEARCH_PARAM_TIME] = left > 0;
        /* a format whose legs keep failing gets longer ones: its last
         * ranks lie further apart in time than a fixed stall allows (the
         * 20-format runs ended with <4,5,5> legs that stalled at 74-76
         * within 20 s, one above the record, again and again); a detour
         * is not one of the format's own legs, and the leg back from one
         * walks a new start, not the format's best, for twice --stall */
        const int grow = back_from >= 0 ? (mc->stall_grow < 1 ? mc->stall_grow : 1)
                              : (m->fails < mc->stall_grow ? m->fails : mc->stall_grow);
        cfg.p.stall = detour ? mc->leg_stall : mc->leg_stall * (double)(1 << grow);
        cfg.given[SEARCH_PARAM_STALL] = true;
        leg.stall = cfg.p.stall;
        cfg.p.seed = scheme_splitmix64(&sm);
        cfg.given[SEARCH_PARAM_SEED] = true;
        if (mc->until_record && m->record > 0) {
            cfg.p.target_rank = m->record;
            cfg.given[SEARCH_PARAM_TARGET_RANK] = true;
        }
        char err[512];
        if (!search_config_resolve(&cfg, cfg.backend, err, sizeof err)) {
            snprintf(out->msg, sizeof out->msg, "%s: %s", scheme_format_str(m->f, fa), err);
            out->status = SEARCH_BAD_PARAMS;
            scheme_free(next);
            break;
        }
        /* the leg's starts: the moved scheme, or the format's pool */
        const scheme *lst[META_POOL_MAX + 1];
        int nl = 0;
        scheme *standard = NULL; /* the first leg's, beside a sum or product */
        bool side_walked = false;
        if (fresh != META_FRESH_NONE) {
            /* a moved start that a fresh leg does not walk is kept beside it
             * (stored and pooled, as a sum or product is): a projection can
             * bring the record itself (<4,4,5>:60 projected is <4,4,4>:47) */
            if (next && moved.how[0] && (!side || next->rank < side->rank)) {
                scheme_free(side);
                side = next;
                side_o = moved;
                next = NULL;
            }
            scheme_free(next);
            next = NULL;
            if (fresh == META_FRESH_SYMMETRIC)
                snprintf(leg.from, sizeof leg.from, "its diagonal cubes (%s)",
                         scheme_symmetry_name((scheme_symmetry)cfg.p.symmetry));
            else
                snprintf(leg.from, sizeof leg.from,
                         "the standard algorithm, a fresh start (its symmetric legs' best %d)",
                         m->fresh_best[META_FRESH_SYMMETRIC]);
        } else if (next) {
            lst[nl++] = next;
            int other = 0; /* starts from other neighbours than `next`'s */
            for (int q = 0; q < nalt; q++) {
                lst[nl++] = alt[q].s;
                other += alt[q].src != alt_src;
            }
            char more[64] = "";
            if (other)
                snprintf(more, sizeof more, " and %d from other neighbours", other);
            if (nalt)
                snprintf(leg.from, sizeof leg.from, "%s (%d orientation%s%s, ranks %d..%d)",
                         moved.how[0] ? moved.how : "the start scheme", nalt + 1 - other, nalt - other ? "s" : "", more,
                         next->rank, alt[nalt - 1].s->rank);
            else
                snprintf(leg.from, sizeof leg.from, "%s", moved.how[0] ? moved.how : "the start scheme");
        } else if (detour) {
            snprintf(leg.from, sizeof leg.from, "the standard algorithm, a detour for %s",
                     scheme_format_str(v[detour_for].f, fa));
        } else {
            for (int i = 0; i < m->npool; i++)
                lst[nl++] = m->pool[i];
            if (nl) {
                snprintf(leg.from, sizeof leg.from, "its pool (%d, best %d)", nl, best_of(m));
            } else if (side && search_large_format(m->f) && (standard = ring_standard(m->f, ring))) {
                /* a large format with no move and nothing stored: the sum or
                 * product walks beside the standard algorithm, the walkers
                 * spread over both (the sum or product first: one walker
                 * takes it).  There the walk from the standard algorithm
                 * can plateau above them: <6,6,6> from <2,2,2>:7 times
                 * <3,3,3>:23 (161) reached 159 in 3 minutes on one H200, from
                 * the standard algorithm 172 at best in 22 (bench/RESULTS.md,
                 * "The plain walk on <6,6,6> from products").  Below, where
                 * nothing was measured but <4,4,4> (its <2,2,2>:7 squared, 49,
                 * has no flip; both rules ended at 49 in 60 s on three seeds),
                 * the product stays beside, not walked, as before. */
                lst[nl++] = side;
                lst[nl++] = standard;
                snprintf(leg.from, sizeof leg.from,
                         "%s rank %d and the standard algorithm (rank %d; the walkers spread over both)", side_o.how,
                         side->rank, standard->rank);
                side_walked = true;
            } else {
                snprintf(leg.from, sizeof leg.from, "the standard algorithm");
            }
        }
        leg.start_rank = nl ? lst[0]->rank : -1;
        leg.reset = reset;
        if (side && !side_walked) {
            snprintf(leg.beside, sizeof leg.beside, "%s", side_o.how);
            leg.beside_rank = side->rank;
        }
        if (h && h->leg_start)
            h->leg_start(h->ctx, &leg);
        session_run run;
        search_result res;
        search_status st =
            session_search(ss, &cfg, device, nl ? lst : NULL, nl, h ? &h->inner : NULL, &run, &res);
        out->legs++;
        /* a moved start is a result of its own (a projection or extension
         * verified in move_to): stored under the leg's run, its parent the
         * scheme it came from, so that a start the walk could not improve is
         * not lost */
        db *store = session_store(ss);
        if (next && nl && moved.how[0]) {
            store_under_leg(ss, &run, next, moved.parent, "the moved start");
            for (int q = 0; q < nalt; q++)
                store_under_leg(ss, &run, alt[q].s, alt[q].parent, "the moved start");
        }
        for (int q = 0; q < nalt; q++)
            scheme_free(alt[q].s);
        nalt = 0;
        scheme_free(standard);
        /* the sum or product kept beside the leg: stored the same way */
        if (side)
            store_under_leg(ss, &run, side, side_o.parent, side_o.how);
        scheme_free(next);
        next = NULL;
        leg.run_id = run.run_id;
        leg.lifts_tried = run.lifts_tried;
        leg.lifts_ok = run.lifts_ok;
        leg.lift_walk_rank = run.lift_walk_rank;
        leg.lift_walk_tried = run.lift_walk_tried;
        leg.lift_walk_ok = run.lift_walk_ok;
        leg.lift_walk_seconds = run.lift_walk_seconds;
        leg.best_rank = res.best_rank;
        leg.start_rank = res.start_rank;
        leg.seconds = res.seconds;
        leg.flips = res.flips;
        leg.status = st;
        search_meta_format *of = &out->formats[cur];
        of->visits++;
        of->seconds += res.seconds;
        of->flips += res.flips;
        if (res.start_rank > 0 && (of->start < 0 || res.start_rank < of->start))
            of->start = res.start_rank;
        if (run.begin_failed || run.store_failed || run.end_lost || st == SEARCH_FAILED || st == SEARCH_BAD_PARAMS) {
            out->status = st == SEARCH_BAD_PARAMS ? SEARCH_BAD_PARAMS : SEARCH_FAILED;
            out->store_failed = run.begin_failed || run.store_failed || run.end_lost;
            out->begin_status = run.begin_status;
            snprintf(out->msg, sizeof out->msg, "%s: %s", scheme_format_str(m->f, fa),
                     run.begin_failed || run.store_failed ? run.msg : run.end_lost ? run.end_msg : res.msg);
            if (h && h->leg_end)
                h->leg_end(h->ctx, &leg);
            search_result_free(&res);
            break;
        }
        const bool side_ok = !side || pool_offer(m, side, mc->pool);
        scheme_free(side);
        side = NULL;
        if (!side_ok || (res.best && !pool_or_hold(m, res.best, mc->pool, pool_coef))) {
            snprintf(out->msg, sizeof out->msg, "out of memory");
            out->status = SEARCH_FAILED;
            search_result_free(&res);
            break;
        }
        report_best(of, m);
        if (h && h->leg_end)
            h->leg_end(h->ctx, &leg);
        const bool interrupted = res.interrupted;
        /* the next format: a random neighbour; with until_record one not yet
         * at its record and, of those, one visited least -- after a leg
         * that lowered its format's best.  A leg that did not, or no such
         * neighbour, jumps (below). */
        const bool improved = best_before < 0 || reached(m) < best_before;
        if (!detour)
            m->fails = improved ? 0 : m->fails + 1;
        m->last_leg = k;
        if (improved)
            m->improved_at = k;
        if (fresh != META_FRESH_NONE && res.best_rank > 0) {
            if (!m->fresh_best[fresh] || res.best_rank < m->fresh_best[fresh])
                m->fresh_best[fresh] = res.best_rank;
            m->fresh_last = fresh;
        }
        /* what a detour did, for the choice of the next (below) */
        if (detour && (res.best_rank <= 0 || res.best_rank > m->record))
            m->detour_short = true;
        if (back_from >= 0 && res.best_rank > 0 &&
            (v[back_from].detour_back == 0 || res.best_rank < v[back_from].detour_back))
            v[back_from].detour_back = res.best_rank;
        int nb[6], cand[6];
        scheme_format dir[6];
        int nn = neighbours(v, n, cur, nb, dir), nc = 0, fewest = 1 << 30;
        for (int q = 0; q < nn; q++)
            if (!mc->until_record || !at_record(&v[nb[q]])) {
                const int vis = out->formats[nb[q]].visits;
                if (mc->until_record && vis > fewest)
                    continue;
                if (mc->until_record && vis < fewest) {
                    fewest = vis;
                    nc = 0;
                }
                cand[nc++] = q;
            }
        if (mc->until_record && !improved)
            nc = 0;
        reset = false;
        moved = (meta_origin){"", 0};
        int j;
        if (nc > 0) {
            j = nb[cand[scheme_splitmix64(&sm) % (uint64_t)nc]];
        } else {
            /* a jump: the unfinished format visited least (ties: the nearest
             * by L1 distance between sorted formats, then the first) */
            int bestv = 1 << 30, bestd = 1 << 30;
            j = -1;
            for (int q = 0; q < n; q++) {
                if ((mc->until_record && at_record(&v[q])) || (q == cur && n > 1))
                    continue;
                int d = abs(v[q].f.n - m->f.n) + abs(v[q].f.m - m->f.m) + abs(v[q].f.p - m->f.p);
                const int vis = out->formats[q].visits;
                if (vis < bestv || (vis == bestv && d < bestd)) {
                    bestv = vis;
                    bestd = d;
                    j = q;
                }
            }
            if (j < 0)
                j = cur; /* everything at its record: the loop ends above */
        }
        /* the start there: a move from a neighbour of j (the format just
         * walked, else one drawn among j's visited neighbours), or for a
         * format never walked the lowest of search_meta_start (projections,
         * extensions, products of every format's best) */
        int src = -1, news = -1, stuck = -1;
        back_from = detour ? cur : -1;
        if (detour) {
            /* back from a detour: its best (at the neighbour's record, or the
             * lowest it reached) moved to the format it was made for */
            j = detour_for;
            detour_for = -1;
            const scheme *b = res.best ? res.best : pool_draw(m, &sm);
            if (meta_moves(v, n, j, b, cur, false, mc->drift, store, ", back from a detour", &next, &moved, alt, &nalt,
                           &alt_src) &&
                !next) {
                reset = true;
                out->resets++;
            }
        } else if (mc->detours != SEARCH_META_DETOURS_OFF && mc->until_record && !improved &&
                   (stuck = j == cur ? (m->fails >= 2 && m->npool ? cur : -1)
                                     : detour_for_stuck_ones(v, n, cur, mc->stall_grow + 1 > 2 ? mc->stall_grow + 1 : 2)) >= 0 &&
                   !fresh_turn_due(&v[stuck], out->formats[stuck].visits, symmetric_all)) {
            /* a detour: the one format short of its record failed its 2nd
             * leg in a row (or more), and every move into it comes from the
             * same few schemes of neighbours at their record (nothing walks
             * a format at its record again).  A neighbour at its record is
             * walked once more (plain, until its record): from the stuck
             * format's best moved there (best), or from the standard
             * algorithm (fresh: a new descent); the leg after brings that
             * leg's best back.  Why: the seventeenth session's 20-format run
             * on one H100 reached <4,4,5>:61 in leg 24 (<4,4,4>:47 extended),
             * and its six <4,4,5> legs after that, 320 s, from its pool, that
             * 47 again and <4,5,5>:73 projected, all ended at 61 (two of them
             * from its pool for 40 and 160 s); the run of the session before
             * reached 60 from another <4,4,4>:47.  Detours take the place of
             * the pool legs of rule 6 there.  Measured (bench/RESULTS.md,
             * "Detours"): from the best, every one of 8 legs back ended at 61
             * again (the moved best lies in the 61's family: 108 distinct
             * <4,5,5>:73s of its plateau all project to 61 or 63); fresh, a
             * <4,4,4> led back to <4,4,5>:60, two <3,4,5>s to 62.  So each
             * neighbour at its record is tried once (the smaller neighbours
             * first, the one whose record extended starts lowest first:
             * detour_start), and after that the one whose detours did best: the
             * lowest rank a leg back from them reached, then none ended above
             * its record, then detoured least (detour_order).  Why: the
             * eighteenth session's run from nothing (one H100) was left with
             * <3,5,5> at 59 and detoured in turn through <2,5,5> (40, back at
             * 65 and never lower), <4,5,5> (from the standard algorithm only
             * to 78 and 79 in 43 s) and <3,4,5> (47 in 3 s, back at 59): two
             * of every three detours spent on neighbours that had shown they
             * lead nowhere.  The rank back before the record: on two CPU
             * threads fresh <3,4,5> detours for <3,5,5> mostly end at 48 or
             * 49 and still lead back to 60, <2,5,5>'s reach 40 and lead back
             * to 65.  The smaller neighbours first: over the seventeenth to
             * nineteenth sessions' GPU runs fresh detours for <4,4,5> at 61
             * led back to 60 through <4,4,4> (back from 63) 4 times of 7,
             * through <3,4,5> (from 67) 0 of 5 and <4,5,5> 0 of 3 (its
             * fresh walks end short of 73); drawn at random, <4,4,4> came
             * third in the nineteenth session's two runs with detours.
             *
             * The second case: several formats short of their record, each
             * failed more than --meta-stall-grow legs in a row (so its
             * longest legs too), move their bests back and forth and none
             * detours: the twenty-first session's seed 6 on one H100 spent
             * 900 s in 13 legs alternating <4,4,5> at 61 and <4,5,5> at 74,
             * as the first runs of seeds 2, 4 and 5 of the nineteenth did.
             * Then the one whose detour starts nearest above its record gets
             * it (detour_for_stuck_ones: <4,4,5> through <4,4,4>, the detour
             * that led back to 60 four times of seven); the long legs come
             * first, since <3,5,5>:58 came from legs of 80 and 160 s in the
             * nineteenth session's seeds 2 and 5.
             *
             * A square format under --symmetry whose fresh turn is due (its
             * next own leg: an even number of legs there so far) takes it
             * instead: the leg back from a detour is no fresh turn, so that
             * detour after detour left no room for one.  The twenty-second
             * session's seed 5 (one H100) left <5,5,5> at 96 after its
             * symmetric leg, walked it plainly from the standard algorithm
             * to 97, and then spent 600 s in seven detours through <4,5,5>
             * and their legs back (98 to 102), where a symmetric leg reaches
             * 93 in about 10 s (bench/RESULTS.md). */
            int yn[6], nr = 0;
            scheme_format yd[6];
            const int ny = neighbours(v, n, stuck, yn, yd);
            for (int q = 0; q < ny; q++)
                if (at_record(&v[yn[q]]))
                    yn[nr++] = yn[q];
            detour_order(v, stuck, yn, nr, &sm);
            if (nr && mc->detours == SEARCH_META_DETOURS_FRESH) {
                j = yn[0];
                detour_for = stuck;
            } else if (mc->detours == SEARCH_META_DETOURS_BEST) {
                /* the first of them the best moves to within the drift */
                for (int t = 0; t < nr && !next; t++) {
                    const int y = yn[t];
                    if (meta_moves(v, n, y, pool_draw(&v[stuck], &sm), stuck, false, mc->drift, store, " for a detour",
                                   &next, &moved, alt, &nalt, &alt_src) &&
                        next) {
                        j = y;
                        detour_for = stuck;
                    }
                }
            }
            if (detour_for >= 0) {
                if (v[j].detoured_for != stuck) {
                    v[j].detoured_for = stuck;
                    v[j].detour_short = false;
                    v[j].detour_back = 0;
                }
                v[j].detours++;
            }
        }
        if (detour || detour_for >= 0) {
            /* the start is made */
        } else if (best_of(&v[j]) < 0 && nc == 0) {
            next = meta_start_for(v, n, j, store, fac, fac_seed, mc->reach, &moved, &side, &side_o);
        } else {
            int jn[6], vn = 0;
            scheme_format jd[6];
            int nj = neighbours(v, n, j, jn, jd);
            /* news first: of j's neighbours whose best dropped after j's last
             * leg, the one that dropped last (the format just walked, where
             * it did); else the format just walked, else one drawn.  Why: the
             * twentieth session's seed 6 reached <4,4,5>:60, walked <4,4,4>
             * (47 projected from it) and jumped to <4,5,5>, whose next three
             * legs (311 s, to the end) went to its pool at 75 and to
             * <5,5,5>:93 projected and never to that 60, which seeds before
             * had extended to <4,5,5>:73 within seconds */
            for (int q = 0; q < nj; q++) {
                const meta_fmt *z = &v[jn[q]];
                if (z->npool && z->improved_at > v[j].last_leg &&
                    (news < 0 || z->improved_at > v[news].improved_at))
                    news = jn[q];
            }
            src = news;
            for (int q = 0; q < nj && src < 0; q++)
                if (jn[q] == cur)
                    src = cur;
            if (src < 0) {
                for (int q = 0; q < nj; q++)
                    if (v[jn[q]].npool)
                        jn[vn++] = jn[q];
                src = vn ? jn[scheme_splitmix64(&sm) % (uint64_t)vn] : -1;
            }
        }
        /* after a failed leg there, a leg from its own pool (its best) -- unless
         * the move is news: a new best of a neighbour is something the pool
         * does not hold (the sixteenth session's run: <4,4,5> reached 60, and
         * the next <4,5,5> leg went to its pool at 75, where that 60 moved
         * walks to 73 within seconds) */
        if (src >= 0 && mc->stall_grow > 0 && v[j].fails % 2 == 1 && v[j].npool && src != news)
            src = -1;
        if (src >= 0 && v[src].npool) {
            /* what moves: one of src's lowest schemes (its pool at the best
             * rank, drawn at random), so that a leg that ended above the
             * format's best does not carry its worse scheme on */
            const scheme *from = pool_draw(&v[src], &sm);
            if (meta_moves(v, n, j, from, src, mc->all_neighbours, mc->drift, store, "", &next, &moved, alt, &nalt,
                           &alt_src) &&
                !next) {
                /* Kauers-Wood: too far above the best, back to the pool */
                reset = true;
                out->resets++;
            }
        }
        /* a format never walked, entered by a move: its sums and products */
        if (best_of(&v[j]) < 0 && src >= 0)
            meta_combine(v, n, j, store, fac, fac_seed, &next, &moved, &side, &side_o);
        cur = j;
        search_result_free(&res);
        if (interrupted) {
            out->interrupted = true;
            break;
        }
    }
    scheme_free(next);
    for (int q = 0; q < nalt; q++)
        scheme_free(alt[q].s);
    scheme_free(side);
    meta_factors_free(&factors);
    out->seconds = search_clock_s() - t0;
    if (session_stop_seen() || search_stop_requested())
        out->interrupted = true;
done:
    for (int i = 0; i < n; i++) {
        report_best(&out->formats[i], &v[i]);
        for (int q = 0; q < v[i].npool; q++)
            scheme_free(v[i].pool[q]);
    }
    free(v);
    return out->status;
}

void search_meta_result_free(search_meta_result *r)
{
    free(r->formats);
    r->formats = NULL;
    r->nformats = 0;
}
