/* The walk over Z of one walker, written once for the GPU (one thread per
 * walker, cuda/walk_z.cu) and the CPU (the emulator tests/emu_walk_z.c and
 * the checks of tests/gpu_z.c run this same source): the moves of
 * search/walker_z.c (docs/search.md, "Searching over Z") with coefficients in
 * {-1, 0, 1} (--coef-max 1; Perminov's ternary_flip_graph walks the same set,
 * docs/references.md).
 *
 * A factor is two 64-bit planes in the bit order of scheme.h: v, its support
 * (the nonzero entries), and s, the negative ones (s a subset of v).  Two
 * factors are equal up to sign when their v words are equal and their s words
 * are equal (+1) or complementary on v (-1): two word compares, as over GF(2)
 * (wz_rel).  A sum a + mu b within the bound is five word operations (wz_add):
 * it leaves {-1, 0, 1} exactly where a and mu b are both nonzero with one sign.
 *
 * Who walks: one thread (lanes = 1: the thread kernels of walk_z.cu and the
 * CPU) or one warp (lanes = 32: walk_z.cu's warp kernel, the default).  In a
 * warp every lane runs the same scalar code on its own copy of the walker's
 * scalars (every branch is warp-uniform), and the scans over the rank's terms
 * (a flip's partners, a reduction's partner) split over the lanes: lane l
 * tests terms base + l, one ballot per 32 terms (wz_ballot_*).  The walk is
 * the same walk, bit for bit, as one thread's: a scan's answer (a count, the
 * k-th partner, the lowest partner) does not depend on who scans.  On the CPU
 * a walker of 32 lanes evaluates the 32 lanes' tests in a loop (the emulator),
 * so the warp's chunked scans run in ctest too.  Why not the GF(2) kernel's
 * __match_any_sync on one sampled term per lane (walk_core.cuh): a flip here
 * draws its partner uniformly among all terms equal up to sign to a uniform
 * term (search/walker_z.c's walk), which a scan gives exactly and a match of
 * 32 sampled terms does not: that is another walk, the match kernel's
 * (wz_flip_match below; docs/gpu-walk.md, "Walks over Z").
 *
 * The moves (as search/moves_z.c defines them; every one checked against the
 * bound before anything changes, a move that would pass it is not taken):
 *   flip       a uniform term s and position x, then a uniform term u with
 *              x_u = sg x_s (up to 8 draws): y_s += mu y_u, z_u -= mu sg z_s,
 *              mu = +1 or -1 at random; a term with a zero factor goes;
 *   reduction  after every change, the changed terms against every term: two
 *              terms equal up to sign at two positions become one (as
 *              search_z_reduce_pair), so that no reduction within the bound is
 *              ever left;
 *   plus       after `plateau` steps without a reduction (and after 16 steps
 *              that found no two terms sharing a factor), search_z_plus on two
 *              random terms equal up to sign nowhere, while the rank is below
 *              the walk's minimum + plus_max;
 *   restart    `walk_len` steps after the walk's last new minimum, or stuck
 *              where no plus may be taken: from a random start scheme (the
 *              host stages the engine's pool there by its restart policy).
 * A walker copies its scheme to its best terms at each new lowest rank of its
 * walk below report_below (the host sets it one above the run's best, so that
 * schemes at the best rank come home too: siblings for the pool).
 *
 * The state of a walker: a wz_state (scalars) and a block of 64-bit words:
 * the terms [cap][3][2] (v, s), then the best scheme [cap][3][2].  Plain C
 * that nvcc also compiles. */
#ifndef FLIPGRAPH_WALK_Z_CORE_H
#define FLIPGRAPH_WALK_Z_CORE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "walk_bias.h"

#if defined(__CUDACC__)
#define WZ_FN static __host__ __device__ __forceinline__
#else
#define WZ_FN static inline
#endif

#if defined(__CUDA_ARCH__)
#define WZ_POPC(x) __popc(x)
#define WZ_POPC64(x) __popcll(x)
#define WZ_FFS(x) __ffs((int)(x))
#else
#define WZ_POPC(x) __builtin_popcount(x)
#define WZ_POPC64(x) __builtin_popcountll(x)
#define WZ_FFS(x) __builtin_ffs((int)(x))
#endif

#define WZ_TRIES 8       /* draws of a flip per step (walker_z.c's ZW_TRIES) */
#define WZ_IDLE_PLUS 16  /* steps in a row without two terms sharing a factor before a plus */
#define WZ_TERM_WORDS 6  /* (v, s) at each of the three positions */

/* The walk's parameters (every walker the same). */
typedef struct wz_params {
    uint64_t walk_len;   /* steps after the walk's last new minimum before it starts over */
    uint64_t plateau;    /* steps without a reduction before a plus transition */
    int plus_max;        /* plus transitions only while rank < the walk's minimum + plus_max */
    int target;          /* a walker stops walking at this rank or below (0: never) */
    int report_below;    /* a walker copies its scheme (best terms) at a new lowest rank below this */
    float weight_bias;   /* B: a flip that adds d > 0 nonzero coefficients and reduces nothing is undone
                            unless a draw falls below exp(-B d) (0: off; docs/search.md, "The weight bias") */
    float weight_bias_max; /* > weight_bias: walker i of n walks with cuda_walk_bias_at (wz_params_of) */
} wz_params;

/* P as walker i of n walks it: its own weight bias where a window is spread
 * over the walkers (walk_bias.h); the kernels and the emulator call it. */
WZ_FN wz_params wz_params_of(const wz_params *P, int i, int n)
{
    wz_params q = *P;
    q.weight_bias = (float)cuda_walk_bias_at(P->weight_bias, P->weight_bias_max, i, n);
    return q;
}

/* A walker's scalars. */
typedef struct wz_state {
    uint64_t rng;           /* splitmix64 counter */
    uint64_t flips, plus, reductions, restarts;
    uint64_t rejected;      /* flips the coefficient bound refused */
    uint64_t undone;        /* flips undone by the weight bias */
    uint64_t since;         /* steps since the walk's last new minimum */
    uint64_t plateau_count; /* steps since the last reduction or plus */
    int32_t rank, cap;
    int32_t walk_min;       /* the current walk's lowest rank */
    int32_t best_rank;      /* the rank of the best terms: the walker's lowest below
                               report_below, over its walks (INT32_MAX: none yet) */
    int32_t idle;           /* steps in a row that found no two terms sharing a factor */
    int32_t failed;         /* 1: a move needed more than cap terms (a bug: the host says so) */
    int32_t walks;          /* walks begun (restarts + 1) */
    int32_t best_walk;      /* the walk the best terms came from */
} wz_state;

/* The schemes walks start from: nstarts schemes of cap terms each. */
typedef struct wz_start {
    const uint64_t *terms;  /* [nstarts][cap][6] */
    const int32_t *rank;    /* [nstarts] */
    int nstarts;
} wz_start;

/* Words of a walker's block. */
WZ_FN size_t wz_block_words(int cap) { return (size_t)cap * WZ_TERM_WORDS * 2; }

/* A walker bound to its scalars and block, and who walks it: lanes 1 (one
 * thread) or 32 (one warp; lane is this thread's lane, 0 on the CPU, which
 * evaluates the 32 lanes' tests of a scan in a loop). */
typedef struct wz_walker {
    wz_state *st;
    uint64_t *t;     /* terms: t[k * 6 + pos * 2] = v, + 1 = s */
    uint64_t *best;
    int lane, lanes;
    int sampled;     /* a warp's sampled flips (wz_flip_match) in place of the uniform draw */
    double wbias;    /* the weight bias of the flips (wz_params.weight_bias; wz_walk sets it, 0 when bound) */
} wz_walker;

/* terms and best: the two halves of the walker's block, or the terms copied
 * elsewhere (the GPU's shared memory); one thread walks */
WZ_FN void wz_bind(wz_walker *w, wz_state *st, uint64_t *terms, uint64_t *best)
{
    w->st = st;
    w->t = terms;
    w->best = best;
    w->lane = 0;
    w->lanes = 1;
    w->sampled = 0;
    w->wbias = 0;
}

/* The same walker walked by a warp (lanes 32; lane: this thread's, 0 on the CPU). */
WZ_FN void wz_bind_warp(wz_walker *w, wz_state *st, uint64_t *terms, uint64_t *best, int lane)
{
    wz_bind(w, st, terms, best);
    w->lane = lane;
    w->lanes = 32;
}

/* The same, the flips sampled: each lane offers one random term, and
 * __match_any_sync finds the terms equal up to sign among the 32
 * (wz_flip_match; the match kernel, another walk than the thread's). */
WZ_FN void wz_bind_match(wz_walker *w, wz_state *st, uint64_t *terms, uint64_t *best, int lane)
{
    wz_bind_warp(w, st, terms, best, lane);
    w->sampled = 1;
}

/* After a write to the terms: in a warp every lane writes the same words
 * (redundantly, no lane is singled out), and none reads another's words
 * before all have written. */
WZ_FN void wz_sync(const wz_walker *w)
{
#if defined(__CUDA_ARCH__)
    if (w->lanes > 1)
        __syncwarp();
#else
    (void)w;
#endif
}

WZ_FN void wz_bind_block(wz_walker *w, wz_state *st, uint64_t *block)
{
    wz_bind(w, st, block, block + (size_t)st->cap * WZ_TERM_WORDS);
}

/* ---- random numbers: splitmix64 on a counter (as walk_sym_core.h) ---- */

WZ_FN uint64_t wz_next(wz_state *st)
{
    uint64_t z = (st->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

WZ_FN uint32_t wz_below(wz_state *st, uint32_t bound)
{
    return (uint32_t)(((wz_next(st) >> 32) * (uint64_t)bound) >> 32);
}

/* A fresh walker of cap term slots: its stream from (seed, index), no counts, no best. */
WZ_FN void wz_init_state(wz_state *st, uint64_t seed, int index, int cap)
{
    wz_state z;
    char *p = (char *)&z;
    for (size_t i = 0; i < sizeof z; i++)
        p[i] = 0;
    z.rng = seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(index + 1));
    (void)wz_next(&z);
    z.best_rank = 0x7fffffff;
    z.cap = cap;
    *st = z;
}

/* ---- packed factors: v the support, s the negative entries ---- */

/* +1: a = b, -1: a = -b, 0: neither (a is never zero here). */
WZ_FN int wz_rel(uint64_t av, uint64_t as, uint64_t bv, uint64_t bs)
{
    if (av != bv)
        return 0;
    return as == bs ? 1 : (as ^ bs) == av ? -1 : 0;
}

/* r = a + mul * b (mul = +1 or -1); 0 when an entry would leave {-1, 0, 1}:
 * both nonzero with one sign. */
WZ_FN int wz_add(uint64_t av, uint64_t as, uint64_t bv, uint64_t bs, int mul, uint64_t *rv, uint64_t *rs)
{
    if (mul < 0)
        bs ^= bv;
    if (av & bv & ~(as ^ bs))
        return 0;
    *rv = av ^ bv;
    *rs = (as & ~bv) | (bs & ~av);
    return 1;
}

/* The planes of an integer vector of n entries; 0 when an entry is not in {-1, 0, 1}. */
WZ_FN int wz_pack(const int8_t *x, int n, uint64_t *v, uint64_t *s)
{
    uint64_t a = 0, b = 0;
    for (int e = 0; e < n; e++) {
        if (x[e] > 1 || x[e] < -1)
            return 0;
        a |= (uint64_t)(x[e] != 0) << e;
        b |= (uint64_t)(x[e] < 0) << e;
    }
    *v = a;
    *s = b;
    return 1;
}

WZ_FN void wz_unpack(uint64_t v, uint64_t s, int n, int8_t *x)
{
    for (int e = 0; e < n; e++)
        x[e] = (int8_t)((v >> e & 1) ? ((s >> e & 1) ? -1 : 1) : 0);
}

/* ---- terms ---- */

WZ_FN uint64_t *wz_term(const wz_walker *w, int k) { return w->t + (size_t)k * WZ_TERM_WORDS; }

WZ_FN int wz_relp(const wz_walker *w, int a, int b, int pos)
{
    const uint64_t *ta = wz_term(w, a), *tb = wz_term(w, b);
    return wz_rel(ta[2 * pos], ta[2 * pos + 1], tb[2 * pos], tb[2 * pos + 1]);
}

/* Copies n words: a warp's lanes each take every 32nd (then wz_sync where
 * the lanes read them); one thread or the CPU, all of them. */
WZ_FN void wz_copy(const wz_walker *w, uint64_t *dst, const uint64_t *src, size_t n)
{
    size_t i = 0, step = 1;
#if defined(__CUDA_ARCH__)
    i = (size_t)w->lane;
    step = (size_t)w->lanes;
#else
    (void)w;
#endif
    for (; i < n; i += step)
        dst[i] = src[i];
}

/* ---- scans over the terms: one bit per term of a chunk of `lanes` terms ---- */

/* Term u is a flip partner of term s at x (its factor there equal up to sign
 * to (xv, xs), s's). */
WZ_FN int wz_is_partner(const wz_walker *w, int u, int s, int x, uint64_t xv, uint64_t xs)
{
    if (u >= w->st->rank || u == s)
        return 0;
    const uint64_t *tu = wz_term(w, u);
    return wz_rel(tu[2 * x], tu[2 * x + 1], xv, xs) != 0;
}

/* The position d at which terms s and u (equal up to sign at the two others)
 * become one within the bound, the first of 0, 1, 2 (search_z_reduce_pair's
 * order); -1 when none.  The third position is not looked at when the first
 * two are both unrelated (most pairs). */
WZ_FN int wz_pair_d(const wz_walker *w, int s, int u)
{
    if (u >= w->st->rank || u == s)
        return -1;
    int rel[3];
    rel[0] = wz_relp(w, s, u, 0);
    rel[1] = wz_relp(w, s, u, 1);
    if (!rel[0] && !rel[1])
        return -1;
    rel[2] = wz_relp(w, s, u, 2);
    if ((rel[0] != 0) + (rel[1] != 0) + (rel[2] != 0) < 2)
        return -1;
    const uint64_t *ts = wz_term(w, s), *tu = wz_term(w, u);
    for (int d = 0; d < 3; d++) {
        const int p1 = d == 2 ? 0 : d + 1, p2 = d == 0 ? 2 : d - 1;
        uint64_t nv, ns;
        if (rel[p1] && rel[p2] &&
            wz_add(ts[2 * d], ts[2 * d + 1], tu[2 * d], tu[2 * d + 1], rel[p1] * rel[p2], &nv, &ns))
            return d;
    }
    return -1;
}

/* The chunk of terms base .. base + lanes - 1: bit l for term base + l.  A
 * warp: lane l tests its term, one ballot; one thread or the CPU: a loop over
 * the lanes (the emulator of the warp's ballot). */
WZ_FN uint32_t wz_ballot_partner(const wz_walker *w, int base, int s, int x, uint64_t xv, uint64_t xs)
{
#if defined(__CUDA_ARCH__)
    if (w->lanes > 1)
        return __ballot_sync(0xffffffffu, wz_is_partner(w, base + w->lane, s, x, xv, xs));
#endif
    uint32_t m = 0;
    for (int l = 0; l < w->lanes; l++)
        m |= (uint32_t)wz_is_partner(w, base + l, s, x, xv, xs) << l;
    return m;
}

WZ_FN uint32_t wz_ballot_pair(const wz_walker *w, int base, int s)
{
#if defined(__CUDA_ARCH__)
    if (w->lanes > 1)
        return __ballot_sync(0xffffffffu, wz_pair_d(w, s, base + w->lane) >= 0);
#endif
    uint32_t m = 0;
    for (int l = 0; l < w->lanes; l++)
        m |= (uint32_t)(wz_pair_d(w, s, base + l) >= 0) << l;
    return m;
}

/* The masks of a scan's first four chunks (128 terms in a warp), kept in
 * registers (named, not an array: a dynamically indexed array would go to
 * local memory), so that the k-th partner needs no second scan there. */
typedef struct wz_chunks {
    uint32_t m0, m1, m2, m3;
} wz_chunks;

WZ_FN void wz_chunks_put(wz_chunks *k, int c, uint32_t m)
{
    k->m0 = c == 0 ? m : k->m0;
    k->m1 = c == 1 ? m : k->m1;
    k->m2 = c == 2 ? m : k->m2;
    k->m3 = c == 3 ? m : k->m3;
}

WZ_FN uint32_t wz_chunks_get(const wz_chunks *k, int c)
{
    return c == 0 ? k->m0 : c == 1 ? k->m1 : c == 2 ? k->m2 : k->m3;
}

/* The terms other than s whose factor at x is equal up to sign to s's; the
 * first chunks' masks go to *keep. */
WZ_FN int wz_count_partners(const wz_walker *w, int s, int x, uint64_t xv, uint64_t xs, wz_chunks *keep)
{
    int cnt = 0, c = 0;
    if (w->lanes == 1) { /* one thread: the plain loop (the thread kernels' own; a constant there) */
        for (int u = 0; u < w->st->rank; u++)
            cnt += wz_is_partner(w, u, s, x, xv, xs);
        return cnt;
    }
    for (int base = 0; base < w->st->rank; base += w->lanes, c++) {
        const uint32_t m = wz_ballot_partner(w, base, s, x, xv, xs);
        wz_chunks_put(keep, c, m);
        cnt += WZ_POPC(m);
    }
    return cnt;
}

/* The k-th of them in index order (k < their count; keep: the count's masks). */
WZ_FN int wz_kth_partner(const wz_walker *w, int s, int x, uint64_t xv, uint64_t xs, const wz_chunks *keep, int k)
{
    int c = 0;
    if (w->lanes == 1) {
        for (int u = 0; u < w->st->rank; u++)
            if (wz_is_partner(w, u, s, x, xv, xs) && k-- == 0)
                return u;
        return -1;
    }
    for (int base = 0; base < w->st->rank; base += w->lanes, c++) {
        uint32_t m = c < 4 ? wz_chunks_get(keep, c) : wz_ballot_partner(w, base, s, x, xv, xs);
        const int n = WZ_POPC(m);
        if (k < n) {
            for (; k > 0; k--)
                m &= m - 1;
            return base + WZ_FFS(m) - 1;
        }
        k -= n;
    }
    return -1;
}

/* The lowest terms that reduce with a and with b within the bound (-1:
 * none), in one scan: a flip's two changed terms, of which the second's
 * answer stands when the first has no partner (nothing changed between). */
WZ_FN int wz_first_pair2(const wz_walker *w, int a, int b, int *ub)
{
    *ub = -1;
    if (w->lanes == 1) {
        for (int u = 0; u < w->st->rank; u++) {
            if (wz_pair_d(w, a, u) >= 0)
                return u;
            if (*ub < 0 && wz_pair_d(w, b, u) >= 0)
                *ub = u;
        }
        return -1;
    }
    for (int base = 0; base < w->st->rank; base += w->lanes) {
        uint32_t ma = 0, mb = 0;
#if defined(__CUDA_ARCH__)
        if (w->lanes > 1) {
            ma = __ballot_sync(0xffffffffu, wz_pair_d(w, a, base + w->lane) >= 0);
            mb = __ballot_sync(0xffffffffu, wz_pair_d(w, b, base + w->lane) >= 0);
        } else
#endif
            for (int l = 0; l < w->lanes; l++) {
                ma |= (uint32_t)(wz_pair_d(w, a, base + l) >= 0) << l;
                mb |= (uint32_t)(wz_pair_d(w, b, base + l) >= 0) << l;
            }
        if (ma)
            return base + WZ_FFS(ma) - 1;
        if (mb && *ub < 0)
            *ub = base + WZ_FFS(mb) - 1;
    }
    return -1;
}

/* The lowest term that reduces with s within the bound, -1 when none. */
WZ_FN int wz_first_pair(const wz_walker *w, int s)
{
    if (w->lanes == 1) {
        for (int u = 0; u < w->st->rank; u++)
            if (wz_pair_d(w, s, u) >= 0)
                return u;
        return -1;
    }
    for (int base = 0; base < w->st->rank; base += w->lanes) {
        const uint32_t m = wz_ballot_pair(w, base, s);
        if (m)
            return base + WZ_FFS(m) - 1;
    }
    return -1;
}

/* Where tracked index t is after term k goes (the last term takes k's place,
 * as scheme_remove does): -1 when it was k. */
WZ_FN int wz_track(int t, int k, int last) { return t == k ? -1 : t == last ? k : t; }

WZ_FN void wz_remove(wz_walker *w, int k, int *t1, int *t2)
{
    const int last = --w->st->rank;
    if (k != last) {
        wz_sync(w); /* every lane is done reading term k */
        uint64_t *d = wz_term(w, k);
        const uint64_t *s = wz_term(w, last);
        for (int i = 0; i < WZ_TERM_WORDS; i++)
            d[i] = s[i];
        wz_sync(w);
    }
    if (t1)
        *t1 = wz_track(*t1, k, last);
    if (t2)
        *t2 = wz_track(*t2, k, last);
}

/* Term s against every term: a pair equal up to sign at two positions
 * becomes one term when the sum stays within the bound (search_z_reduce_pair:
 * term u = r1 r2 (p1_s (x) p2_s (x) d_u), so s takes d_s + r1 r2 d_u and u
 * goes), again until s has no such partner; s goes when its sum is zero.
 * Tracks s (its index is returned, -1 when it went) and *t1, *t2. */
WZ_FN int wz_reduce_with(wz_walker *w, int s, int *t1, int *t2)
{
    wz_state *st = w->st;
    while (s >= 0) {
        /* the lowest partner and the first position that works (the scan
         * splits over a warp's lanes; the answer is the thread's) */
        const int u = wz_first_pair(w, s);
        if (u < 0)
            break;
        const int d = wz_pair_d(w, s, u);
        const int p1 = d == 2 ? 0 : d + 1, p2 = d == 0 ? 2 : d - 1;
        uint64_t *ts = wz_term(w, s);
        const uint64_t *tu = wz_term(w, u);
        uint64_t nv = 0, ns = 0;
        (void)wz_add(ts[2 * d], ts[2 * d + 1], tu[2 * d], tu[2 * d + 1], wz_relp(w, s, u, p1) * wz_relp(w, s, u, p2),
                     &nv, &ns);
        wz_sync(w); /* every lane has read s and u before any writes */
        ts[2 * d] = nv;
        ts[2 * d + 1] = ns;
        wz_sync(w);
        st->reductions++;
        st->plateau_count = 0;
        int ss = s;
        wz_remove(w, u, &ss, t1);
        /* u's index is gone; t2 follows as t1 did */
        if (t2)
            *t2 = wz_track(*t2, u, st->rank);
        s = ss;
        if (!nv) {
            int gone = s;
            wz_remove(w, gone, t1, t2);
            s = -1;
        }
    }
    return s;
}

/* Every reduction of the scheme taken (a start's). */
WZ_FN void wz_reduce_all(wz_walker *w)
{
    for (int again = 1; again;) {
        again = 0;
        for (int s = 0; s < w->st->rank; s++) {
            const int r0 = w->st->rank;
            wz_reduce_with(w, s, 0, 0);
            if (w->st->rank != r0)
                again = 1;
        }
    }
}

/* ---- the walk ---- */

/* Starts over from a random start scheme (the host stages them from the
 * engine's pool); the best terms stay (wz_walk keeps them over walks). */
WZ_FN void wz_reset(wz_walker *w, const wz_start *S)
{
    wz_state *st = w->st;
    const int k = S->nstarts > 1 ? (int)wz_below(st, (uint32_t)S->nstarts) : 0;
    const int r = S->rank[k] < st->cap ? S->rank[k] : st->cap;
    const uint64_t *src = S->terms + (size_t)k * (size_t)st->cap * WZ_TERM_WORDS;
    wz_sync(w);
    wz_copy(w, w->t, src, (size_t)r * WZ_TERM_WORDS);
    wz_sync(w);
    st->rank = r;
    wz_reduce_all(w);
    st->walk_min = st->rank;
    /* the best terms stay: a walk that found a new low and started over
     * within one launch, before the host read them, must not lose them */
    st->walks++;
    st->since = 0;
    st->plateau_count = 0;
    st->idle = 0;
}

/* After a flip changed y of term s and z of term u (yv, zv their new
 * supports): a term with a zero factor goes, then the changed terms'
 * reductions. */
WZ_FN void wz_flip_reduce(wz_walker *w, int s, int u, uint64_t yv, uint64_t zv)
{
    int a = s, b = u;
    if (!yv)
        wz_remove(w, a, &b, 0), a = -1;
    if (b >= 0 && !zv)
        wz_remove(w, b, &a, 0), b = -1;
    /* the changed terms against every term; mostly neither has a partner,
     * which one scan for both tells (then nothing changes: the same as the
     * two scans of wz_reduce_with, a's and then b's) */
    if (a >= 0 && b >= 0) {
        int ub;
        if (wz_first_pair2(w, a, b, &ub) < 0) {
            if (ub >= 0)
                wz_reduce_with(w, b, &a, 0);
            return;
        }
    }
    a = a >= 0 ? wz_reduce_with(w, a, &b, 0) : -1;
    if (b >= 0)
        wz_reduce_with(w, b, &a, 0);
}

/* The flip of term s with its partner u at x (equal up to sign there):
 * mu = +1 or -1 at random, y_s += mu y_u, z_u -= mu sg z_s; a term with a
 * zero factor goes, then the changed terms' reductions (wz_flip_reduce), then the
 * weight bias's test.  0 (nothing changed) when the bound refuses it. */
WZ_FN int wz_flip_at(wz_walker *w, int s, int u, int x)
{
    wz_state *st = w->st;
    const int y = x == 2 ? 0 : x + 1, z = x == 0 ? 2 : x - 1;
    const int sg = wz_relp(w, s, u, x);
    const int mu = (wz_next(st) >> 63) ? 1 : -1;
    uint64_t *tsm = wz_term(w, s), *tum = wz_term(w, u);
    uint64_t yv, ys, zv, zs;
    /* x_s (x) mu y_u (x) z_s = mu sg x_u (x) y_u (x) z_s, which term u gives back */
    if (!wz_add(tsm[2 * y], tsm[2 * y + 1], tum[2 * y], tum[2 * y + 1], mu, &yv, &ys) ||
        !wz_add(tum[2 * z], tum[2 * z + 1], tsm[2 * z], tsm[2 * z + 1], -mu * sg, &zv, &zs))
        return 0;
    /* the weight bias: d, the nonzero coefficients the flip adds (the
     * supports of the two factors it changes), and what to put back */
    const int dw = w->wbias > 0 ? (int)WZ_POPC64(yv) - (int)WZ_POPC64(tsm[2 * y]) + (int)WZ_POPC64(zv) -
                                      (int)WZ_POPC64(tum[2 * z])
                                : 0;
    const uint64_t oyv = tsm[2 * y], oys = tsm[2 * y + 1], ozv = tum[2 * z], ozs = tum[2 * z + 1];
    const int32_t before = st->rank;
    wz_sync(w); /* every lane has read s and u before any writes */
    tsm[2 * y] = yv;
    tsm[2 * y + 1] = ys;
    tum[2 * z] = zv;
    tum[2 * z + 1] = zs;
    wz_sync(w);
    st->flips++;
    wz_flip_reduce(w, s, u, yv, zv);
    /* No reduction (the rank is kept: no term went, s and u are where they
     * were): Metropolis's test as in search/walker_z.c, the old factors put
     * back when it fails.  A draw only where d > 0, so that a seed walks as
     * before where the bias is off. */
    if (dw > 0 && st->rank == before) {
        const double draw = (double)(wz_next(st) >> 11) * (1.0 / 9007199254740992.0);
        if (draw >= exp(-w->wbias * dw)) {
            wz_sync(w);
            tsm[2 * y] = oyv;
            tsm[2 * y + 1] = oys;
            tum[2 * z] = ozv;
            tum[2 * z + 1] = ozs;
            wz_sync(w);
            st->undone++;
        }
    }
    return 1;
}

/* One flip: 1 taken, 2 every draw passed the bound, 0 no two terms sharing a
 * factor were drawn. */
WZ_FN int wz_flip_uniform(wz_walker *w)
{
    wz_state *st = w->st;
    int drawn = 0;
    for (int tries = 0; tries < WZ_TRIES && st->rank >= 2; tries++) {
        const int s = (int)wz_below(st, (uint32_t)st->rank);
        const int x = (int)wz_below(st, 3u);
        const uint64_t *ts = wz_term(w, s);
        const uint64_t xv = ts[2 * x], xs = ts[2 * x + 1];
        wz_chunks keep = {0, 0, 0, 0};
        const int cnt = wz_count_partners(w, s, x, xv, xs, &keep);
        if (!cnt)
            continue;
        drawn = 1;
        const int u = wz_kth_partner(w, s, x, xv, xs, &keep, (int)wz_below(st, (uint32_t)cnt));
        if (wz_flip_at(w, s, u, x))
            return 1;
        st->rejected++;
    }
    return drawn ? 2 : 0;
}

/* ---- the sampled flip (the match kernel) ---- */

/* The term lane l offers in a round of random word r: uniform among all
 * terms (lowbias32 of r and the lane), so that any two terms may meet. */
WZ_FN int wz_lane_term(const wz_walker *w, uint64_t r, int l)
{
    uint32_t h = (uint32_t)r ^ (uint32_t)(r >> 32) ^ (0x9E3779B9u * (uint32_t)(l + 1));
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return (int)(((uint64_t)h * (uint64_t)w->st->rank) >> 32);
}

/* The sign word of a factor with the sign of its lowest support bit divided
 * out: two factors are equal up to sign exactly when their supports and
 * these words are equal. */
WZ_FN uint64_t wz_canon(uint64_t v, uint64_t s) { return (s & v & (~v + 1)) ? s ^ v : s; }

/* The lanes whose offered factors at x are equal up to sign to this lane's
 * (bit l for lane l), 0 for a lane that offers none: j[l] the offered terms,
 * a lane offering the same term as a lower lane offers none. */
typedef struct wz_offer {
    int j;           /* this lane's term, -1 when none */
    uint32_t mask;   /* the lanes equal up to sign at x, this one included */
} wz_offer;

/* Lane l's offer in a round (r, x): one match of the terms (duplicates out),
 * one of the 64-bit key (v, canonical sign) where every factor has at most 32
 * entries, else one of v and one of the canonical sign word. */
WZ_FN wz_offer wz_match_lane(const wz_walker *w, uint64_t r, int x, int l)
{
    wz_offer o;
    o.j = wz_lane_term(w, r, l);
    o.mask = 0;
#if defined(__CUDA_ARCH__)
    const uint32_t same = __match_any_sync(0xffffffffu, (unsigned)o.j);
    const bool first = (same & ((1u << l) - 1u)) == 0;
    const uint64_t *t = wz_term(w, o.j);
    const uint64_t v = first ? t[2 * x] : 0, c = first ? wz_canon(t[2 * x], t[2 * x + 1]) : 0;
    const bool wide = __ballot_sync(0xffffffffu, ((v | c) >> 32) != 0) != 0;
    uint32_t m = __match_any_sync(0xffffffffu, wide ? v : v | c << 32);
    if (wide)
        m &= __match_any_sync(0xffffffffu, c);
    o.j = first ? o.j : -1;
    o.mask = first ? m : 0;
#else
    (void)x, (void)l;
#endif
    return o;
}

/* The CPU's (and a thread's) round: every lane's offer in a loop, as the
 * device's matches give them. */
WZ_FN void wz_match_all(const wz_walker *w, uint64_t r, int x, int *j, uint32_t *mask)
{
    uint64_t v[32], c[32];
    for (int l = 0; l < 32; l++) {
        j[l] = wz_lane_term(w, r, l);
        for (int k = 0; k < l; k++)
            if (j[k] == j[l]) {
                j[l] = -1;
                break;
            }
        const uint64_t *t = j[l] >= 0 ? wz_term(w, j[l]) : 0;
        v[l] = t ? t[2 * x] : 0;
        c[l] = t ? wz_canon(t[2 * x], t[2 * x + 1]) : 0;
    }
    for (int l = 0; l < 32; l++) {
        uint32_t m = 0;
        for (int k = 0; k < 32; k++)
            m |= (uint32_t)(v[k] == v[l] && c[k] == c[l]) << k;
        mask[l] = j[l] >= 0 ? m : 0;
    }
}

/* The lane of the k-th set bit of m (k < popcount(m)). */
WZ_FN int wz_nth_lane(uint32_t m, int k)
{
    for (; k > 0; k--)
        m &= m - 1;
    return WZ_FFS(m) - 1;
}

/* floor(p * n / 2^32): a draw below n from 32 random bits. */
WZ_FN int wz_scale(uint32_t p, int n) { return (int)(((uint64_t)p * (uint64_t)n) >> 32); }

/* Two distinct random members of the set M (two or more lanes) from the
 * halves of p: the device's and the CPU's round draw them alike, so the
 * emulator replays the kernel's walk. */
WZ_FN void wz_pick_two(uint32_t M, uint32_t p, int *la, int *lb)
{
    const int n = WZ_POPC(M);
    const int a = (int)(((uint64_t)(p & 0xffffu) * (uint64_t)n) >> 16);
    int b = (int)(((uint64_t)(p >> 16) * (uint64_t)(n - 1)) >> 16);
    b += b >= a;
    *la = wz_nth_lane(M, a);
    *lb = wz_nth_lane(M, b);
}

/* One sampled flip (the GF(2) kernel's candidates, walk_core.cuh, over Z): a
 * position x, each lane offers a random term, and the offers equal up to sign
 * at x form sets; a random set with two or more members, two random members
 * s, u of it, and the flip of s with u (wz_flip_at).  Up to WZ_TRIES rounds;
 * returns as wz_flip_uniform.  Only a warp's walker (lanes 32) takes it. */
WZ_FN int wz_flip_match(wz_walker *w)
{
    wz_state *st = w->st;
    int drawn = 0;
    for (int tries = 0; tries < WZ_TRIES && st->rank >= 2; tries++) {
        const uint64_t r = wz_next(st);
        const int x = (int)wz_below(st, 3u);
        uint32_t cand = 0, M = 0;
        int js = -1, ju = -1;
        const uint64_t pick = wz_next(st);
        const uint32_t p1 = (uint32_t)pick, p2 = (uint32_t)(pick >> 32);
#if defined(__CUDA_ARCH__)
        const wz_offer o = wz_match_lane(w, r, x, w->lane);
        cand = __ballot_sync(0xffffffffu, WZ_POPC(o.mask) >= 2);
        if (!cand)
            continue;
        /* the set of a random candidate lane, two random members of it */
        M = __shfl_sync(0xffffffffu, o.mask, wz_nth_lane(cand, wz_scale(p1, WZ_POPC(cand))));
        int la, lb;
        wz_pick_two(M, p2, &la, &lb);
        js = __shfl_sync(0xffffffffu, o.j, la);
        ju = __shfl_sync(0xffffffffu, o.j, lb);
#else
        int j[32];
        uint32_t mask[32];
        wz_match_all(w, r, x, j, mask);
        for (int l = 0; l < 32; l++)
            cand |= (uint32_t)(WZ_POPC(mask[l]) >= 2) << l;
        if (!cand)
            continue;
        M = mask[wz_nth_lane(cand, wz_scale(p1, WZ_POPC(cand)))];
        int la, lb;
        wz_pick_two(M, p2, &la, &lb);
        js = j[la];
        ju = j[lb];
#endif
        drawn = 1;
        if (wz_flip_at(w, js, ju, x))
            return 1;
        st->rejected++;
    }
    return drawn ? 2 : 0;
}

/* One flip: 1 taken, 2 every draw passed the bound, 0 no two terms sharing a
 * factor were drawn. */
WZ_FN int wz_flip(wz_walker *w) { return w->sampled ? wz_flip_match(w) : wz_flip_uniform(w); }

/* A plus transition (search_z_plus) on two terms equal up to sign nowhere:
 * (X, Y) = sg (x_j, y_j): i -> (x_i - X, y_i, z_i), j -> (X, Y, z_j - z_i),
 * new (X, y_i + Y, z_i); 0 when none was found within the bound. */
WZ_FN int wz_plus(wz_walker *w)
{
    wz_state *st = w->st;
    if (st->rank < 2)
        return 0;
    if (st->rank >= st->cap) {
        st->failed = 1;
        return 0;
    }
    for (int tries = 0; tries < 64; tries++) {
        int i = (int)wz_below(st, (uint32_t)st->rank);
        int j = (int)wz_below(st, (uint32_t)st->rank);
        if (i == j || wz_relp(w, i, j, 0) || wz_relp(w, i, j, 1) || wz_relp(w, i, j, 2))
            continue;
        const int x = (int)wz_below(st, 3u), y = x == 2 ? 0 : x + 1, z = x == 0 ? 2 : x - 1;
        const int sg = (wz_next(st) >> 63) ? 1 : -1;
        uint64_t *ti = wz_term(w, i), *tj = wz_term(w, j), *tn = wz_term(w, st->rank);
        const uint64_t Xv = tj[2 * x], Xs = sg < 0 ? tj[2 * x + 1] ^ Xv : tj[2 * x + 1];
        const uint64_t Yv = tj[2 * y], Ys = sg < 0 ? tj[2 * y + 1] ^ Yv : tj[2 * y + 1];
        uint64_t xiv, xis, ynv, yns, zjv, zjs;
        if (!wz_add(ti[2 * x], ti[2 * x + 1], Xv, Xs, -1, &xiv, &xis) ||
            !wz_add(ti[2 * y], ti[2 * y + 1], Yv, Ys, 1, &ynv, &yns) ||
            !wz_add(tj[2 * z], tj[2 * z + 1], ti[2 * z], ti[2 * z + 1], -1, &zjv, &zjs))
            continue;
        wz_sync(w); /* every lane has read i and j before any writes */
        tn[2 * x] = Xv, tn[2 * x + 1] = Xs;
        tn[2 * y] = ynv, tn[2 * y + 1] = yns;
        tn[2 * z] = ti[2 * z], tn[2 * z + 1] = ti[2 * z + 1];
        tj[2 * x] = Xv, tj[2 * x + 1] = Xs;
        tj[2 * y] = Yv, tj[2 * y + 1] = Ys;
        tj[2 * z] = zjv, tj[2 * z + 1] = zjs;
        ti[2 * x] = xiv, ti[2 * x + 1] = xis;
        wz_sync(w);
        int n = st->rank++;
        st->plus++;
        /* no factor is zero (the terms were equal up to sign nowhere); the
         * three changed terms against every term */
        i = wz_reduce_with(w, i, &j, &n);
        if (j >= 0)
            j = wz_reduce_with(w, j, &i, &n);
        if (n >= 0)
            wz_reduce_with(w, n, &i, &j);
        return 1;
    }
    return 0;
}

/* Copies the scheme to the best terms. */
WZ_FN void wz_keep_best(wz_walker *w)
{
    wz_state *st = w->st;
    wz_copy(w, w->best, w->t, (size_t)st->rank * WZ_TERM_WORDS);
    st->best_rank = st->rank;
    st->best_walk = st->walks;
}

/* Walks n steps (a step: one flip drawn, or a plus transition, or a restart);
 * returns the steps made. */
WZ_FN uint64_t wz_walk(wz_walker *w, const wz_start *S, const wz_params *P, uint64_t n)
{
    wz_state *st = w->st;
    uint64_t done = 0;
    w->wbias = P->weight_bias;
    while (done < n && !st->failed) {
        if (P->target && st->rank <= P->target)
            break;
        const int32_t before = st->rank;
        const int r = wz_flip(w);
        done++;
        st->since++;
        if (!r) {
            /* nothing shares a factor here: a plus transition moves on, or a restart */
            if (++st->idle >= WZ_IDLE_PLUS) {
                st->idle = 0;
                if (!(st->rank < st->walk_min + P->plus_max && st->rank < st->cap - 1 && wz_plus(w))) {
                    st->restarts++;
                    wz_reset(w, S);
                    continue;
                }
            }
        } else {
            st->idle = 0;
        }
        if (st->rank < before) {
            st->plateau_count = 0;
        } else if (++st->plateau_count >= P->plateau) {
            st->plateau_count = 0;
            if (st->rank < st->walk_min + P->plus_max && st->rank < st->cap - 1)
                wz_plus(w);
        }
        if (st->rank < st->walk_min) {
            st->walk_min = st->rank;
            st->since = 0;
        }
        /* a new low, or a later walk's scheme at the best rank (a sibling) */
        if (st->rank < P->report_below &&
            (st->rank < st->best_rank || (st->rank == st->best_rank && st->best_walk != st->walks)))
            wz_keep_best(w);
        if (st->since >= P->walk_len) {
            st->restarts++;
            wz_reset(w, S);
        }
    }
    return done;
}

#endif
