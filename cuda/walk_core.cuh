/* One warp walks one scheme on the flip graph over GF(2) (the Flip-graph post,
 * "GPU-Accelerated Search", docs/references.md; moves as docs/search.md, the
 * walk as docs/gpu-walk.md).
 *
 * Written once for two targets: the CUDA kernel (walk_kernel.cu, W = the warp
 * intrinsics) and the CPU emulator (walk_emu.cpp, W = 32 cooperating lane
 * contexts), so the exact move logic can be checked where no GPU is.  Every
 * intrinsic below is reached by all 32 lanes in the same order: control flow
 * that contains one depends on warp-uniform values only.
 *
 * Lane t holds terms t, t+32, t+64, ... (slot k = term k*32+t).  A step:
 *   1. after a plateau of `plateau` steps without a rank drop: a plus
 *      transition (Arai, Ichikawa, Hukushima 2024) on two random terms sharing no factor;
 *      each walker's plateau adapts within plateau_min..plateau_max (plateau_up/down);
 *   2. every `mix_every` steps one full slot rotates across lanes, because two
 *      terms of one lane are never compared by __match_any_sync;
 *   3. up to `rounds` times: the warp agrees on a position x, every lane picks
 *      one of its terms at random, __match_any_sync on its factor at x; a mask
 *      of two or more lanes is a set of terms sharing x (Flip-graph post);
 *   4. the warp picks one such set M at random, up to 5 members; lanes 1..31
 *      each test one non-empty subset D of the members for factors at y (or z)
 *      that sum to zero (the Flip-graph post's generalized flip), one ballot decides: a
 *      dependent subset is a reduction (search_reduce_dependent), else a flip
 *      of two random members (search_flip); while no term was dropped, the
 *      next set of the same match follows (up to kFlipsPerStep flips a step);
 *   5. terms left with a zero factor are dropped (the last term takes the
 *      place, highest index first, as scheme_remove does);
 *   6. after a flip, a pair the two changed terms form with any term is
 *      reduced at once (check_pairs);
 *   7. with eager_gen, after a flip that reduced nothing, a dependent set of
 *      3..gen_max terms in the buckets of the two changed terms is reduced at
 *      once (eager_gen_term), where otherwise only a match samples it.
 * A walker that finds no flip for idle_plus steps takes a plus transition, or
 * with isolated_restart ends its walk and restarts from the pool.
 */
#ifndef FLIPGRAPH_WALK_CORE_CUH
#define FLIPGRAPH_WALK_CORE_CUH

#include <stddef.h>
#include <stdint.h>

#include "fg_cuda.h"

#if !defined(__CUDACC__)
#include <math.h>
#endif

#if defined(__CUDACC__)
#define WK_FN __device__ __forceinline__
#define WK_POPC(x) __popc(x)
#define WK_POPC64(x) __popcll(x)
#define WK_FFS(x) __ffs(x)
#define WK_UNROLL _Pragma("unroll")
#else
#define WK_FN inline
#define WK_POPC(x) __builtin_popcount(x)
#define WK_POPC64(x) __builtin_popcountll(x)
#define WK_FFS(x) __builtin_ffs((int)(x))
#define WK_UNROLL _Pragma("GCC unroll 32")
#endif

namespace walk {

/* What a launch needs (device pointers). */
struct Params {
    uint64_t *terms;        /* [warps][cap][3]: the current schemes */
    uint64_t *best;         /* [warps][cap][3]: each walker's scheme at its best rank */
    cuda_walk_warp *state;  /* [warps] */
    uint64_t *qterms;       /* [qcap][cap][3]: improved schemes of this launch */
    int32_t *qwarp, *qrank, *qcount;
    int32_t *qsibling;      /* [qcap]: 1 where the entry is a failed walk's scheme (collect), else 0 */
    cuda_walk_move *moves;  /* [warps], or NULL without trace */
    const uint64_t *pool;   /* [pool_n][cap][3]: schemes walkers restart from */
    const int32_t *pool_rank;
    int pool_n;
    uint32_t walk_len, walk_max; /* the k-th walk of a walker: walk_len * luby(k), at most walk_max */
    uint32_t idle_plus;     /* steps in a row without a flip candidate that call a plus transition */
    int collect_rank;       /* a walk that ends at this rank returns its scheme (pool diversity) */
    int warps, cap, qcap;
    uint32_t steps, plateau;
    uint32_t plateau_min, plateau_max; /* a walker's plateau adapts within these (cuda_walk_config) */
    uint64_t seed;
    int rounds, plus_max, target, mix_every, gen_max, check_pairs;
    int isolated_restart;   /* idle_plus empty steps end the walk instead of a plus */
    int eager_gen;          /* after a flip that reduced nothing: eager_gen_term for its two terms */
    int flips_per_step;     /* set by the launch (walk_kernel.cu, walk_emu.cpp): kFlipsPerStep */
    uint64_t budget_ns;     /* a warp's walking time per launch (cuda_walk_config.launch_us); 0: steps only */
    float degree_bias;      /* B of search_params.degree_bias; 0: off (cuda_walk_config.degree_bias) */
    float weight_bias;      /* B_w of search_params.weight_bias; 0: off (cuda_walk_config.weight_bias) */
    float weight_bias_max;  /* > weight_bias: warp w of warps walks with cuda_walk_bias_at (walk_bias.h) */
    uint32_t plus_hold;     /* flips after a plus that make no reduction (cuda_walk_config.plus_hold) */
};

static const uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
/* Flips a step may take from the sets of one match (1: one per step; the
 * launch may override it for measurement: FLIPGRAPH_WALK_FLIPS). */
static const int kFlipsPerStep = 4;

/* splitmix64's finalizer: a counter-based stream is mix64(key + n * golden). */
WK_FN uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
/* Keys of the lane and warp streams: functions of (seed, warp, lane) only, so a
 * seed replays a walk and no two lanes share a stream. */
WK_FN uint64_t lane_key(uint64_t seed, int w, int lane)
{
    return mix64(seed ^ mix64(((uint64_t)(uint32_t)w << 8 | (uint64_t)lane) + 0x6a09e667f3bcc909ULL));
}
WK_FN uint64_t warp_key(uint64_t seed, int w)
{
    return mix64(seed ^ mix64(((uint64_t)(uint32_t)w << 8 | 0xffu) + 0xbb67ae8584caa73bULL));
}
/* Chris Wellons' lowbias32: a cheap 32-bit finalizer for the lane streams,
 * which need one small number per round. */
WK_FN uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}
struct Rng {
    uint64_t s;
    WK_FN uint64_t next() { s += kGolden; return mix64(s); }
    WK_FN uint32_t next32() { s += kGolden; return hash32((uint32_t)(s >> 32) ^ (uint32_t)s); }
};
/* The Luby sequence 1 1 2 1 1 2 4 1 1 2 ... (as search_luby in driver.c). */
WK_FN uint32_t luby(uint32_t i)
{
    for (;;) {
        uint32_t k = 1;
        while (k < 31 && ((1u << k) - 1) < i)
            k++;
        if (i == (1u << k) - 1 || k == 31)
            return 1u << (k - 1);
        i -= (1u << (k - 1)) - 1;
    }
}
/* The adaptive plateau (search/driver.c's rule): doubled at a new lowest rank of
 * the walk, while flips alone make progress; halved at a failed walk, where the
 * level is hard and plus transitions are what moves on.  Bounds of 0 are the
 * configured plateau. */
WK_FN uint32_t plateau_lo(const Params &p) { return p.plateau_min ? p.plateau_min : p.plateau; }
WK_FN uint32_t plateau_hi(const Params &p) { return p.plateau_max ? p.plateau_max : p.plateau; }
WK_FN uint32_t plateau_start(const Params &p, uint32_t cur)
{
    uint32_t l = cur ? cur : p.plateau;
    if (l < plateau_lo(p)) l = plateau_lo(p);
    if (l > plateau_hi(p)) l = plateau_hi(p);
    return l;
}
WK_FN uint32_t plateau_up(const Params &p, uint32_t l)
{
    return l > plateau_hi(p) / 2 ? plateau_hi(p) : 2 * l;
}
WK_FN uint32_t plateau_down(const Params &p, uint32_t l)
{
    return l / 2 < plateau_lo(p) ? plateau_lo(p) : l / 2;
}

/* Flips without a lower rank that the k-th walk of a walker may take. */
WK_FN uint32_t walk_limit(const Params &p, uint32_t k)
{
    uint64_t l = (uint64_t)p.walk_len * luby(k ? k : 1);
    if (p.walk_max && l > p.walk_max)
        l = p.walk_max;
    return l > 0xffffffffu ? 0xffffffffu : (uint32_t)l;
}

/* The lane of member k of a set: the k-th set bit of the rotated mask mr. */
WK_FN int member_lane(uint32_t mr, int k, int rot)
{
    for (int i = 0; i < k; ++i)
        mr &= mr - 1;
    return (WK_FFS(mr) - 1 + rot) & 31;
}
/* Uniform in [0, n) from 32 random bits (multiply-shift). */
WK_FN uint32_t below(uint32_t r, uint32_t n) { return (uint32_t)(((uint64_t)r * n) >> 32); }
WK_FN uint32_t rotr32(uint32_t x, int r) { return (x >> r) | (x << ((32 - r) & 31)); }

/* A term's factor at a warp-uniform position without dynamic register indexing. */
template <class F>
WK_FN F sel3(int x, const F t[3]) { return x == 0 ? t[0] : (x == 1 ? t[1] : t[2]); }
template <class F>
WK_FN void put3(F t[3], int x, F v)
{
    t[0] = x == 0 ? v : t[0];
    t[1] = x == 1 ? v : t[1];
    t[2] = x == 2 ? v : t[2];
}
WK_FN int pos_y(int x) { return x == 2 ? 0 : x + 1; }
WK_FN int pos_z(int x) { return x == 0 ? 2 : x - 1; }

/* A lane's terms in registers: K slots, selected with predicated moves so that
 * nothing spills to local memory (K <= 4 keeps 24 registers of terms).  F is
 * the factor word: uint32_t where every factor of the scheme fits in 32 bits
 * (the format's n*m, m*p, p*n <= 32: <4,4,4> and <5,5,5> included), which
 * halves the registers of terms and the shuffles and compares of a step;
 * uint64_t otherwise. */
template <int K, class F = uint64_t>
struct RegStore {
    typedef F Word;
    F f[K][3];
    WK_FN int slots() const { return K; }
    WK_FN void get(int j, F t[3]) const
    {
        t[0] = f[0][0]; t[1] = f[0][1]; t[2] = f[0][2];
        WK_UNROLL
        for (int k = 1; k < K; ++k)
            if (j == k) { t[0] = f[k][0]; t[1] = f[k][1]; t[2] = f[k][2]; }
    }
    WK_FN void set(int j, const F t[3])
    {
        WK_UNROLL
        for (int k = 0; k < K; ++k)
            if (j == k) { f[k][0] = t[0]; f[k][1] = t[1]; f[k][2] = t[2]; }
    }
};

/* A lane's terms in shared memory (any rank up to CUDA_WALK_MAX_CAP): word
 * (slot*3 + pos)*32 + lane, so a warp's access is 32 consecutive words. */
struct SmemStore {
    typedef uint64_t Word;
    uint64_t *s;
    int K, lane;
    WK_FN int slots() const { return K; }
    WK_FN void get(int j, uint64_t t[3]) const
    {
        const uint64_t *q = s + j * 96 + lane;
        t[0] = q[0]; t[1] = q[32]; t[2] = q[64];
    }
    WK_FN void set(int j, const uint64_t t[3])
    {
        uint64_t *q = s + j * 96 + lane;
        q[0] = t[0]; q[32] = t[1]; q[64] = t[2];
    }
};

/* Loads a scheme; returns whether one of this lane's factors has a bit at 32 or
 * above (a narrow store keeps the low 32 bits only: its walk must not run). */
template <class S>
WK_FN bool store_load(S &st, const uint64_t *g, int R, int lane)
{
    typedef typename S::Word F;
    uint64_t hi = 0;
    for (int k = 0; k < st.slots(); ++k) {
        const int i = k * 32 + lane;
        uint64_t t[3] = {0, 0, 0};
        if (i < R) { t[0] = g[3 * i]; t[1] = g[3 * i + 1]; t[2] = g[3 * i + 2]; }
        hi |= t[0] | t[1] | t[2];
        const F n[3] = {(F)t[0], (F)t[1], (F)t[2]};
        st.set(k, n);
    }
    return (hi >> 32) != 0;
}
template <class S>
WK_FN void store_save(const S &st, uint64_t *g, int R, int lane)
{
    for (int k = 0; k < st.slots(); ++k) {
        const int i = k * 32 + lane;
        typename S::Word t[3];
        st.get(k, t);
        if (i < R) { g[3 * i] = t[0]; g[3 * i + 1] = t[1]; g[3 * i + 2] = t[2]; }
    }
}

/* Removes term d (warp-uniform): the last term takes its place (scheme_remove). */
template <class S, class W>
WK_FN void remove_term(S &st, W &wp, int &R, int d, int lane)
{
    const int last = R - 1;
    if (d != last) {
        typename S::Word lt[3];
        st.get(last >> 5, lt);
        for (int f = 0; f < 3; ++f)
            lt[f] = wp.shfl(lt[f], last & 31);
        if (lane == (d & 31)) st.set(d >> 5, lt);
    }
    --R;
}

/* Where term idx is after remove_term(d) on rank R: -1 when it was d. */
WK_FN int track(int idx, int d, int R)
{
    return idx < 0 || idx == d ? -1 : (idx == R - 1 ? d : idx);
}

/* The lowest-lane term other than iu that shares two or more factors with U
 * (warp-uniform), -1 when none: every lane compares its own terms. */
template <class S, class W>
WK_FN int find_pair(const S &st, W &wp, int R, int iu, const typename S::Word U[3], int lane)
{
    int fk = -1;
    for (int k = 0; k < st.slots(); ++k) {
        const int i = k * 32 + lane;
        typename S::Word u[3];
        st.get(k, u);
        const int c = (u[0] == U[0]) + (u[1] == U[1]) + (u[2] == U[2]);
        if (i < R && i != iu && c >= 2 && fk < 0) fk = k;
    }
    const uint32_t fm = wp.ballot(fk >= 0);
    if (!fm)
        return -1;
    const int q = WK_FFS(fm) - 1;
    return (int)wp.shfl32((uint32_t)fk, q) * 32 + q;
}

/* D, the ordered pairs of distinct terms that share a factor at some position
 * (walker_degree on the CPU; search_count_flips): every term's factor is
 * broadcast in turn and counted among the other terms.  O(3 * slots^2 * 32)
 * per lane, so the walk counts it only where it lost track (a reduction, a
 * plus transition, a restart) and follows flips by their difference. */
template <class S, class W>
WK_FN uint32_t degree_count(const S &st, W &wp, int R, int lane)
{
    typedef typename S::Word F;
    uint32_t c = 0;
    for (int k2 = 0; k2 < st.slots(); ++k2) {
        F v2[3];
        st.get(k2, v2);
        for (int s = 0; s < 32; ++s) {
            const int i2 = k2 * 32 + s;
            if (i2 >= R)
                break; /* uniform: the same i2 in every lane */
            F b[3];
            for (int f = 0; f < 3; ++f)
                b[f] = wp.shfl(v2[f], s);
            for (int k = 0; k < st.slots(); ++k) {
                const int i = k * 32 + lane;
                F u[3];
                st.get(k, u);
                if (i < R && i != i2)
                    c += (uint32_t)(u[0] == b[0]) + (uint32_t)(u[1] == b[1]) + (uint32_t)(u[2] == b[2]);
            }
        }
    }
    return wp.sum(c);
}

/* How D changed when a flip took one term's factor at y from ya0 to ya1 and
 * another's at z from zb0 to zb1 (the scheme as after the flip): a changed
 * factor leaves the others holding its old value and joins those holding the
 * new one (itself among them, hence the 2 taken off), two ordered pairs each.
 * One pass over the slots and one warp sum (of signed counts, modulo 2^32). */
template <class S, class W>
WK_FN int degree_change(const S &st, W &wp, int R, int y, typename S::Word ya0, typename S::Word ya1, int z,
                        typename S::Word zb0, typename S::Word zb1, int lane)
{
    int c = 0;
    for (int k = 0; k < st.slots(); ++k) {
        const int i = k * 32 + lane;
        typename S::Word t[3];
        st.get(k, t);
        if (i < R)
            c += (sel3(y, t) == ya1) - (sel3(y, t) == ya0) + (sel3(z, t) == zb1) - (sel3(z, t) == zb0);
    }
    return 2 * ((int)wp.sum((uint32_t)c) - 2);
}

/* Eager generalized reductions (Params::eager_gen; docs/gpu-walk.md, "Eager
 * generalized reductions").  A flip at x that reduced nothing changed the
 * factor of its first term at y and of its second at z.  For each, the bucket
 * it joined at its changed position cp (the members' factors at the two other
 * positions) and the one it stays in at o, the third position (their factors
 * at cp), are tested for a dependent subset when they hold 3..gen_max terms,
 * as check_general does on the CPU; the bucket at x keeps its span
 * (search/walker.c, "A flip keeps its bucket's span").
 *
 * The members are found in the pair check's pass over the slots (step 6),
 * which compares every term with both changed terms already: eager_mask_add
 * sets bit k of em[b] where this lane's slot k is in bucket b (0: the first
 * term's at y, 1: its at z, 2: the second's at z, 3: its at y). */
template <class F>
WK_FN void eager_mask_add(uint32_t em[4], int k, bool live, const F u[3], const F Ta[3], const F Tb[3], int y, int z)
{
    const F uy = sel3(y, u), uz = sel3(z, u);
    em[0] |= (uint32_t)(live && uy == sel3(y, Ta)) << k;
    em[1] |= (uint32_t)(live && uz == sel3(z, Ta)) << k;
    em[2] |= (uint32_t)(live && uz == sel3(z, Tb)) << k;
    em[3] |= (uint32_t)(live && uy == sel3(y, Tb)) << k;
}

/* One term's two buckets (masks mj, joined at cp, and ms, stayed in at o):
 * the lowest dependent subset D (bit k: the k-th member by lane, then slot) is
 * reduced as search_reduce_dependent does: its first member goes, the others
 * of D take its factor at the third position; terms left with a zero factor
 * go, highest index first.  Returns whether it reduced (at most one reduction:
 * the rank changed, the step ends). */
template <bool kTrace, class S, class W>
WK_FN bool eager_gen_term(const Params &p, S &st, W &wp, int &R, int cp, int o, uint32_t mj, uint32_t ms,
                          int lane, cuda_walk_move &mv)
{
    typedef typename S::Word F;
    /* both counts in one warp sum (at most 1024 each) */
    const uint32_t both = wp.sum((uint32_t)WK_POPC(mj) | (uint32_t)WK_POPC(ms) << 16);
    for (int b = 0; b < 2; ++b) {
        const int bp = b == 0 ? cp : o; /* the bucket's position */
        const uint32_t mine = b == 0 ? mj : ms;
        const int cnt = (int)(b == 0 ? both & 0xffffu : both >> 16);
        if (cnt < 3 || cnt > p.gen_max || cnt > 5)
            continue;
        F mf[5][3];
        int midx[5];
        uint32_t rest = mine;
        WK_UNROLL
        for (int k = 0; k < 5; ++k) {
            midx[k] = -1;
            mf[k][0] = mf[k][1] = mf[k][2] = 0;
            if (k < cnt) {
                const int L = WK_FFS(wp.ballot(rest != 0)) - 1;
                const int sl = (int)wp.shfl32(rest ? (uint32_t)(WK_FFS(rest) - 1) : 0u, L);
                F u[3];
                st.get(sl, u);
                for (int f = 0; f < 3; ++f)
                    mf[k][f] = wp.shfl(u[f], L);
                midx[k] = sl * 32 + L;
                if (lane == L)
                    rest &= rest - 1;
            }
        }
        /* lane s tests the subset s, at q1 and (in the joined bucket) q2 */
        const int q1 = b == 0 ? pos_y(cp) : cp, q2 = pos_z(cp);
        const uint32_t sub = (uint32_t)lane;
        const bool ok = sub != 0 && sub < (1u << cnt);
        F s1 = 0, s2 = 0;
        WK_UNROLL
        for (int k = 0; k < 5; ++k)
            if (k < cnt && ((sub >> k) & 1)) {
                s1 ^= sel3(q1, mf[k]);
                s2 ^= sel3(q2, mf[k]);
            }
        const uint32_t d1 = wp.ballot(ok && s1 == 0);
        const uint32_t d2 = b == 0 ? wp.ballot(ok && s2 == 0) : 0u;
        if (!(d1 | d2))
            continue;
        const uint32_t D = (uint32_t)(WK_FFS(d1 | d2) - 1);
        const int q = ((d1 >> D) & 1) ? q1 : q2; /* D's factors at q sum to zero */
        const int w3 = 3 - bp - q;
        const int r = WK_FFS(D) - 1;
        F vr = 0;
        WK_UNROLL
        for (int k = 0; k < 5; ++k)
            if (k == r)
                vr = sel3(w3, mf[k]);
        uint32_t dead = 1u << r;
        WK_UNROLL
        for (int k = 0; k < 5; ++k) {
            if (k < cnt && k != r && ((D >> k) & 1)) {
                F nf[3] = {mf[k][0], mf[k][1], mf[k][2]};
                put3(nf, w3, sel3(w3, nf) ^ vr);
                if (lane == (midx[k] & 31))
                    st.set(midx[k] >> 5, nf);
                if (sel3(w3, nf) == 0)
                    dead |= 1u << k;
            }
        }
        if (kTrace) {
            mv.ngen = 1;
            mv.gen_x = bp;
            mv.gen_y = q;
            mv.gen_s = cnt;
            mv.gen_subset = D;
            for (int k = 0; k < 5; ++k)
                mv.gen_idx[k] = midx[k];
        }
        while (dead) { /* the highest index first: the last term takes its place */
            int hk = -1, hi = -1;
            WK_UNROLL
            for (int k = 0; k < 5; ++k)
                if (((dead >> k) & 1) && midx[k] > hi) {
                    hi = midx[k];
                    hk = k;
                }
            remove_term(st, wp, R, hi, lane);
            dead &= ~(1u << hk);
        }
        return true;
    }
    return false;
}

/* Returns the walker's best scheme in the launch's queue; false when the queue
 * is full (the walker keeps it and tries again later). */
template <class W>
WK_FN bool report_best(const Params &p, W &wp, int w, int best, int lane)
{
    int q = 0;
    if (lane == 0) {
        /* a plain look first: a full queue must not count up for ever */
        q = *(volatile int32_t *)p.qcount < p.qcap ? wp.atomic_add(p.qcount, 1) : p.qcap;
    }
    q = (int)wp.shfl32((uint32_t)q, 0);
    if (q >= p.qcap)
        return false;
    const size_t words = (size_t)p.cap * 3;
    const uint64_t *src = p.best + (size_t)w * words;
    uint64_t *dst = p.qterms + (size_t)q * words;
    for (int i = lane; i < best * 3; i += 32)
        dst[i] = src[i];
    if (lane == 0) { p.qwarp[q] = w; p.qrank[q] = best; p.qsibling[q] = 0; }
    return true;
}

/* Returns the walker's current scheme in the queue, while it is less than half
 * full (improvements keep the other half); nothing when it is. */
template <class S, class W>
WK_FN void report_current(const Params &p, const S &st, W &wp, int w, int R, int lane)
{
    int q = 0;
    if (lane == 0)
        q = *(volatile int32_t *)p.qcount < p.qcap / 2 ? wp.atomic_add(p.qcount, 1) : p.qcap;
    q = (int)wp.shfl32((uint32_t)q, 0);
    if (q >= p.qcap)
        return;
    store_save(st, p.qterms + (size_t)q * (size_t)p.cap * 3, R, lane);
    if (lane == 0) { p.qwarp[q] = w; p.qrank[q] = R; p.qsibling[q] = 1; }
}

/* Walks warp w for p.steps steps (or until its rank reaches p.target).
 *
 * Width: a narrow store (32-bit words) walks only a scheme whose factors all
 * fit in 32 bits and returns at once otherwise; with wide_only, a wide store
 * walks only the others, so that the narrow and the wide kernel launched one
 * after the other (walk_kernel.cu) walk every warp once.  Every correct scheme
 * of a format has the same width (each bit of a factor is a matrix entry the
 * tensor needs), so a walker's restarts keep its width; where a pool scheme is
 * wider all the same, the narrow walk writes it home and leaves the rest of the
 * launch to the wide kernel.
 *
 * kEager: whether the code of step 7 (eager_gen_term) is compiled in at all;
 * p.eager_gen then switches it on.  The kernels without it are the ones built
 * before it, register for register (the extra code spills in every variant). */
template <bool kTrace, bool kEager, class S, class W>
WK_FN void walk_warp(const Params &p, S &st, W &wp, int w, bool wide_only = false)
{
    typedef typename S::Word F;
    const bool narrow = sizeof(F) < sizeof(uint64_t);
    const int lane = wp.lane();
    const int cap = p.cap;
    const size_t base = (size_t)w * (size_t)cap * 3;
    const cuda_walk_warp *wsp = p.state + w;
    int R = wsp->rank, best = wsp->best_rank, reported = wsp->reported_rank;
    uint32_t since = wsp->since_drop, since_best = wsp->since_best;
    if (R < 2)
        return;
    uint32_t plateau = plateau_start(p, wsp->plateau);
    uint32_t n_steps = 0, n_flips = 0, n_red = 0, n_removed = 0, n_plus = 0, n_skip = 0, n_restart = 0;

    const bool wide = wp.ballot(store_load(st, p.terms + base, R, lane)) != 0;
    if (narrow ? wide : (wide_only && !wide))
        return;
    bool handed = false; /* a narrow walk that restarted from a wide pool scheme */
    Rng lr = {lane_key(p.seed, w, lane) + wsp->rng_lane};
    Rng wr = {warp_key(p.seed, w) + wsp->rng_warp};
    const bool trace = kTrace;
    cuda_walk_move mv;
    mv.kind = CUDA_WALK_MOVE_NONE;
    mv.x = mv.y = mv.s = mv.a = mv.b = 0;
    mv.subset = 0;
    mv.rank_before = R;
    for (int k = 0; k < 5; ++k) mv.idx[k] = -1;
    mv.npairs = 0;
    mv.ngen = 0;
    mv.undone = 0;
    mv.held = 0;
    mv.degree = 0;
    int mixc = p.mix_every;
    uint32_t idle = 0; /* steps in a row that found no two terms sharing a factor */
    /* The degree bias (search_params.degree_bias; docs/search.md, "The degree
     * bias"): D of the current scheme while dknown, kept across launches in the
     * walker's state and followed through flips by their difference. */
    const bool biased = p.degree_bias > 0.0f;
    /* The weight bias (search_params.weight_bias; docs/search.md, "The weight
     * bias"): the flip's change of nonzero coefficients, from its two factors;
     * this warp's own B_w where a window is spread over the warps. */
    const float wbias = (float)cuda_walk_bias_at(p.weight_bias, p.weight_bias_max, w, p.warps);
    const bool wbiased = wbias > 0.0f;
    uint32_t dcur = wsp->degree;
    bool dknown = biased && dcur != 0;
    uint32_t n_rej = 0;
    uint32_t nwalk = wsp->walks ? wsp->walks : 1; /* this is the walker's nwalk-th walk */
    uint32_t wlim = walk_limit(p, nwalk);
    /* The plus hold (cuda_walk_config.plus_hold; docs/search.md, "The plus
     * hold"): flips left in which nothing may reduce, from the last plus. */
    uint32_t hold = wsp->hold_left, n_held = 0;

    /* The launch tail: steps cost more or less (1 to kFlipsPerStep flips, pair
     * checks, plus transitions), so a launch of equal step counts waits for its
     * slowest warp while the others' slots idle (ncu on an H100: 35% achieved
     * against 44% theoretical occupancy).  A time budget ends every warp
     * together.  Lane 0's clock decides for the warp (one ballot). */
    const uint64_t t_start = p.budget_ns ? wp.now_ns() : 0;
    for (uint32_t step = 0; step < p.steps; ++step) {
        if (R <= p.target)
            break;
        if (p.budget_ns && (step & 7) == 0 && step &&
            wp.ballot(lane == 0 && wp.now_ns() - t_start >= p.budget_ns))
            break;
        ++n_steps;
        const uint64_t u = wr.next();
        const uint32_t ulo = (uint32_t)u, uhi = (uint32_t)(u >> 32);
        if (trace) { mv.kind = CUDA_WALK_MOVE_NONE; mv.rank_before = R; mv.npairs = 0; mv.ngen = 0; mv.undone = 0; mv.held = 0; }

        /* 0. a walk that went walk_len flips without a lower rank restarts from
         * a random scheme of the pool (Kauers-Moosbauer's level strategy; the
         * host keeps the pool at the lowest rank with enough schemes). */
        if (p.walk_len && p.pool_n > 0 && since_best >= wlim) {
            bool go = true;
            if (best < reported) { /* report before leaving; a full queue: later */
                if (report_best(p, wp, w, best, lane))
                    reported = best;
                else
                    go = false;
            }
            if (go) {
                /* a failed walk's scheme is one more of its rank for the pool,
                 * while the host asks for them (collect; the CPU walker does not
                 * pool its failed walks: docs/search.md, "Siblings") */
                if (p.collect_rank && R == p.collect_rank)
                    report_current(p, st, wp, w, R, lane);
                const int k = (int)below(ulo, (uint32_t)p.pool_n);
                R = p.pool_rank[k];
                const uint64_t *src = p.pool + (size_t)k * (size_t)cap * 3;
                if (wp.ballot(store_load(st, src, R, lane)) && narrow) {
                    uint64_t *dst = p.terms + base;
                    for (int i = lane; i < R * 3; i += 32)
                        dst[i] = src[i];
                    handed = true;
                }
                best = reported = R;
                since = since_best = 0;
                hold = 0;
                dknown = false;
                ++n_restart;
                plateau = plateau_down(p, plateau);
                wlim = walk_limit(p, ++nwalk); /* Luby restarts, as driver.c */
                if (trace) mv.kind = CUDA_WALK_MOVE_RESTART;
                if (handed)
                    break;
                continue;
            }
        }

        /* 1. plus transition after a plateau (search_plus's layout: i becomes
         * (x+x', y, z), j becomes (x', y', z+z'), (x', y+y', z) is appended). */
        /* A walker with no flip in reach (low ranks have few) does not wait out
         * the plateau: after idle_plus empty steps it takes a plus transition,
         * or, when its rank may not rise, restarts from the pool. */
        const bool stuck = p.idle_plus && idle >= p.idle_plus;
        if (stuck && (p.isolated_restart || !(R < cap && R < best + p.plus_max)) && p.walk_len &&
            p.pool_n > 0) {
            since_best = wlim; /* restart at the next step */
            idle = 0;
            continue;
        }
        if (((p.plateau && since >= plateau) || stuck) && R >= 2 && R < cap && R < best + p.plus_max) {
            const int i = (int)below(ulo, (uint32_t)R);
            int j = (int)below(uhi, (uint32_t)(R - 1));
            j += j >= i;
            const int x = (int)below((uint32_t)wr.next(), 3u);
            const int y = pos_y(x), z = pos_z(x);
            F ti[3], tj[3];
            st.get(i >> 5, ti);
            st.get(j >> 5, tj);
            for (int f = 0; f < 3; ++f) {
                ti[f] = wp.shfl(ti[f], i & 31);
                tj[f] = wp.shfl(tj[f], j & 31);
            }
            const F px = sel3(x, ti), py = sel3(y, ti), pz = sel3(z, ti);
            const F qx = sel3(x, tj), qy = sel3(y, tj), qz = sel3(z, tj);
            if (px == qx || py == qy || pz == qz) {
                ++n_skip;
                continue;
            }
            F ni[3], nj[3], nn[3];
            put3(ni, x, px ^ qx); put3(ni, y, py); put3(ni, z, pz);
            put3(nj, x, qx); put3(nj, y, qy); put3(nj, z, pz ^ qz);
            put3(nn, x, qx); put3(nn, y, py ^ qy); put3(nn, z, pz);
            if (lane == (i & 31)) st.set(i >> 5, ni);
            if (lane == (j & 31)) st.set(j >> 5, nj);
            if (lane == (R & 31)) st.set(R >> 5, nn);
            if (trace) {
                mv.kind = CUDA_WALK_MOVE_PLUS; mv.x = x; mv.y = y; mv.s = 2;
                mv.idx[0] = i; mv.idx[1] = j; mv.a = 0; mv.b = 1;
            }
            ++R;
            ++n_plus;
            since = 0;
            idle = 0;
            hold = p.plus_hold;
            dknown = false;
            continue;
        }

        /* 2. mixing: rotate one full slot by a random shift. */
        if (p.mix_every && R > 32 && --mixc <= 0) {
            mixc = p.mix_every;
            const uint64_t u2 = wr.next();
            const int k = (int)below((uint32_t)u2, (uint32_t)(R >> 5));
            const int sh = 1 + (int)below((uint32_t)(u2 >> 32), 31u);
            F t[3];
            st.get(k, t);
            for (int f = 0; f < 3; ++f)
                t[f] = wp.shfl(t[f], (lane + 32 - sh) & 31);
            st.set(k, t);
        }

        /* 3. candidates: terms sharing the factor at x, found by hardware. */
        const int nl = R > lane ? ((R - 1 - lane) >> 5) + 1 : 0;
        int x = (int)below(ulo, 3u);
        F t[3] = {0, 0, 0};
        int j = 0;
        uint32_t m = 0, cand = 0;
        for (int r = 0; r < p.rounds; ++r) {
            if (r) x = pos_y(x);
            j = (int)below(lr.next32(), (uint32_t)nl);
            st.get(j, t);
            const F v = nl ? sel3(x, t) : 0;
            m = wp.match(v);
            cand = wp.ballot(v != 0 && WK_POPC(m) >= 2);
            if (cand)
                break;
        }
        if (!cand) {
            since += hold == 0; /* a plateau counts from the hold's end */
            ++idle;
            continue;
        }
        idle = 0;

        /* Several flips per step (the Flip-graph post's k rounds): the sets of one match
         * are disjoint, and a flip changes only two terms of its own set, so
         * while no term was dropped (positions unchanged) every other set is
         * still a set of terms sharing x; the next is taken with fresh random
         * bits.  A trace records one move per step: one flip there. */
        const int R0 = R;
        uint32_t ur = ulo, uh = uhi;
        for (int fi = 0;; ++fi) {
            /* 4. one set sharing x, up to 5 members, chosen at random. */
            const int rot = (int)(ur & 31);
            const int L = (WK_FFS(rotr32(cand, rot)) - 1 + rot) & 31;
            const uint32_t M = wp.shfl32(m, L);
            const int rot2 = (int)((ur >> 5) & 31);
            const uint32_t Mr = rotr32(M, rot2);
            const int cnt = WK_POPC(M) < p.gen_max ? WK_POPC(M) : p.gen_max;
            /* this lane's member index: its rank among the set bits of Mr */
            const int pl = (lane - rot2) & 31;
            int mi = -1;
            if ((Mr >> pl) & 1) {
                const int k = WK_POPC(Mr & ((1u << pl) - 1u));
                mi = k < cnt ? k : -1;
            }
            const int y = pos_y(x), z = pos_z(x);
            F myy = sel3(y, t), myz = sel3(z, t);
            /* lane s tests the subset D = bits of s (Flip-graph post: 31 lanes, 31
             * subsets), summing the members' factors as they are broadcast */
            const uint32_t sub = (uint32_t)lane;
            const bool ok = sub != 0 && sub < (1u << cnt);
            F sy = 0, sz = 0;
            {
                uint32_t mr = Mr;
                WK_UNROLL
                for (int k = 0; k < 5; ++k) {
                    if (k < cnt) {
                        const int lk = (WK_FFS(mr) - 1 + rot2) & 31;
                        mr &= mr - 1;
                        const F yk = wp.shfl(myy, lk), zk = wp.shfl(myz, lk);
                        if ((sub >> k) & 1) { sy ^= yk; sz ^= zk; }
                    }
                }
            }
            const uint32_t dy = wp.ballot(ok && sy == 0), dz = wp.ballot(ok && sz == 0);
            /* the hold passes over a set with a dependent subset: a set drawn
             * counts one flip of it, so that a walker among such sets ends its
             * hold all the same */
            const bool holding = hold > 0;
            if (holding) {
                --hold;
                if (dy | dz) {
                    ++n_held;
                    break;
                }
            }

            bool changed = false, dead = false;
            int la = 0, lb = 0;
            F ya0 = 0, zb0 = 0; /* the degree bias: the flip's factors before it */
            F fyb = 0, fza = 0; /* the factors the flip added (an undo adds them again) */
            if (dy | dz) {
                const int D = WK_FFS(dy | dz) - 1;
                const bool byY = (dy >> D) & 1;
                const int r = WK_FFS((uint32_t)D) - 1;
                const int lr_ = member_lane(Mr, r, rot2);
                const F vr = wp.shfl(byY ? myz : myy, lr_);
                if (mi >= 0 && ((D >> mi) & 1)) {
                    changed = true;
                    if (mi == r) dead = true;
                    else if (byY) { myz ^= vr; dead = myz == 0; }
                    else { myy ^= vr; dead = myy == 0; }
                }
                ++n_red;
                if (trace) {
                    mv.kind = CUDA_WALK_MOVE_REDUCE; mv.x = x; mv.y = byY ? y : z;
                    mv.subset = (uint32_t)D; mv.a = mv.b = 0;
                }
            } else {
                const int a = (int)below(uh, (uint32_t)cnt);
                int b = (int)below(uh << 16, (uint32_t)(cnt - 1));
                b += b >= a;
                la = member_lane(Mr, a, rot2);
                lb = member_lane(Mr, b, rot2);
                const F yb = wp.shfl(myy, lb), za = wp.shfl(myz, la);
                fyb = yb;
                fza = za;
                if (biased || wbiased) {
                    ya0 = wp.shfl(myy, la);
                    zb0 = wp.shfl(myz, lb);
                }
                if (mi == a) { myy ^= yb; changed = true; dead = myy == 0; }
                if (mi == b) { myz ^= za; changed = true; dead = dead || myz == 0; }
                if (trace) {
                    mv.kind = CUDA_WALK_MOVE_FLIP; mv.x = x; mv.y = y;
                    mv.subset = 0; mv.a = a; mv.b = b;
                }
            }
            ++n_flips;
            ++since_best;
            const int myidx = j * 32 + lane;
            /* the flip is its own inverse: yb and za did not change (the hold's
             * undo and the bias's) */
            auto undo_flip = [&]() {
                if (lane == la) myy ^= fyb;
                if (lane == lb) myz ^= fza;
                if (lane == la || lane == lb) {
                    put3(t, y, myy);
                    put3(t, z, myz);
                    st.set(j, t);
                }
            };
            if (trace) {
                mv.s = cnt;
                WK_UNROLL
                for (int k = 0; k < 5; ++k) {
                    mv.idx[k] = -1;
                    if (k < cnt) mv.idx[k] = (int)wp.shfl32((uint32_t)myidx, member_lane(Mr, k, rot2));
                }
            }
            if (changed) {
                put3(t, y, myy);
                put3(t, z, myz);
                st.set(j, t);
            }

            /* a held flip that zeroes a factor is undone below (after step 6);
             * none does while gen_max >= 2 (a zero factor needs y_a = y_b, a
             * dependent pair the set's test found), but no path may reduce
             * during a hold */
            bool hold_undo = holding && wp.ballot(dead) != 0;
            if (hold_undo)
                dead = false;

            /* 5. drop terms with a zero factor, highest index first. */
            uint32_t deadm = wp.ballot(dead);
            while (deadm) {
                const int d = (int)wp.max(dead ? (uint32_t)myidx + 1u : 0u) - 1;
                remove_term(st, wp, R, d, lane);
                if (dead && myidx == d) dead = false;
                deadm = wp.ballot(dead);
            }

            /* 6. after a flip, the two changed terms against every term: a pair
             * sharing two factors is reduced at once (as search_reduce_pair), so
             * that no pair reduction waits to be sampled.  Before the flip no pair
             * shared two factors (inductively), so only these two can. */
            const bool eager = kEager && p.eager_gen && !(dy | dz) && p.gen_max >= 3 && !holding;
            uint32_t em[4] = {0u, 0u, 0u, 0u}; /* step 7's buckets (eager_mask_add) */
            if (p.check_pairs && !(dy | dz) && !hold_undo) {
                /* the two changed terms, from their lanes (written back above) */
                int im[2];
                im[0] = (int)wp.shfl32((uint32_t)myidx, la);
                im[1] = (int)wp.shfl32((uint32_t)myidx, lb);
                F T[2][3];
                for (int f = 0; f < 3; ++f) {
                    T[0][f] = wp.shfl(t[f], la);
                    T[1][f] = wp.shfl(t[f], lb);
                }
                /* one ballot first: mostly neither has a partner */
                bool hit = false;
                for (int k = 0; k < st.slots(); ++k) {
                    const int i = k * 32 + lane;
                    F u[3];
                    st.get(k, u);
                    const int ca = (u[0] == T[0][0]) + (u[1] == T[0][1]) + (u[2] == T[0][2]);
                    const int cb = (u[0] == T[1][0]) + (u[1] == T[1][1]) + (u[2] == T[1][2]);
                    hit = hit || (i < R && ((ca >= 2 && i != im[0]) || (cb >= 2 && i != im[1])));
                    if (eager)
                        eager_mask_add(em, k, i < R, u, T[0], T[1], y, z);
                }
                int np = 0;
                const bool any_hit = wp.ballot(hit) != 0;
                if (holding && any_hit) {
                    hold_undo = true; /* a pair would reduce: undone below */
                } else if (any_hit) {
                    WK_UNROLL
                    for (int pass = 0; pass < 2; ++pass) {
                        F U[3] = {T[pass][0], T[pass][1], T[pass][2]};
                        int iu = im[pass];
                        for (int it = 0; it < 4 && iu >= 0; ++it) {
                            const int ip = find_pair(st, wp, R, iu, U, lane);
                            if (ip < 0)
                                break;
                            F P[3];
                            st.get(ip >> 5, P);
                            for (int f = 0; f < 3; ++f)
                                P[f] = wp.shfl(P[f], ip & 31);
                            if (trace && np < 8) { mv.pair[np][0] = iu; mv.pair[np][1] = ip; }
                            ++np;
                            ++n_red;
                            const bool same = P[0] == U[0] && P[1] == U[1] && P[2] == U[2];
                            /* the other of the pair takes the sum of the differing factors */
                            U[0] ^= U[0] != P[0] ? P[0] : 0;
                            U[1] ^= U[1] != P[1] ? P[1] : 0;
                            U[2] ^= U[2] != P[2] ? P[2] : 0;
                            if (!same && lane == (iu & 31)) st.set(iu >> 5, U);
                            /* drop ip (and iu when equal), the higher index first,
                             * following where the two changed terms go */
                            int hi = ip, lo = -1;
                            if (same) { hi = ip > iu ? ip : iu; lo = ip > iu ? iu : ip; }
                            iu = same ? -1 : track(iu, hi, R);
                            im[1] = track(im[1], hi, R);
                            remove_term(st, wp, R, hi, lane);
                            if (same) {
                                im[1] = track(im[1], lo, R);
                                remove_term(st, wp, R, lo, lane);
                            }
                        }
                        if (pass == 0) im[0] = iu;
                    }
                }
                if (trace) mv.npairs = np;
            }
            if (hold_undo) {
                undo_flip();
                ++n_held;
                if (trace) mv.held = 1;
                break;
            }
            /* 7. with eager_gen, a flip that reduced nothing: the buckets of its two
             * terms, tested for dependent sets at once (eager_gen_term) */
            if (eager && R == R0) {
                if (!p.check_pairs) { /* no pair check's pass: one of its own */
                    F T[2][3];
                    for (int f = 0; f < 3; ++f) {
                        T[0][f] = wp.shfl(t[f], la);
                        T[1][f] = wp.shfl(t[f], lb);
                    }
                    for (int k = 0; k < st.slots(); ++k) {
                        F u[3];
                        st.get(k, u);
                        eager_mask_add(em, k, k * 32 + lane < R, u, T[0], T[1], y, z);
                    }
                }
                if (!eager_gen_term<kTrace>(p, st, wp, R, y, z, em[0], em[1], lane, mv))
                    eager_gen_term<kTrace>(p, st, wp, R, z, y, em[2], em[3], lane, mv);
            }
            if (R != R0) {
                dknown = false;
            } else if ((biased || wbiased) && !(dy | dz)) {
                /* Metropolis's test as search_walker_flip's: a flip to D' > D that
                 * reduced nothing is undone unless a draw falls below (D/D')^B;
                 * D' follows from D by the two changed factors (a's at y, b's at
                 * z: degree_change); times exp(-B_w d) where it adds d > 0
                 * nonzero coefficients.  A draw only where a test can undo. */
                float keep = 1.0f;
                bool test = false;
                uint32_t d0 = 0;
                if (biased) {
                    const int dd = degree_change(st, wp, R, y, ya0, ya0 ^ fyb, z, zb0, zb0 ^ fza, lane);
                    const uint32_t d1 = dknown ? (uint32_t)((int)dcur + dd) : degree_count(st, wp, R, lane);
                    d0 = (uint32_t)((int)d1 - dd);
                    dcur = d1;
                    dknown = true;
                    if (d1 > d0) {
                        keep = powf((float)d0 / (float)d1, p.degree_bias);
                        test = true;
                    }
                }
                if (wbiased) {
                    const int dw = WK_POPC64((uint64_t)(ya0 ^ fyb)) - WK_POPC64((uint64_t)ya0) +
                                   WK_POPC64((uint64_t)(zb0 ^ fza)) - WK_POPC64((uint64_t)zb0);
                    if (dw > 0) {
                        keep *= expf(-wbias * (float)dw);
                        test = true;
                    }
                }
                if (test) {
                    const float draw = (float)(uint32_t)(wr.next() >> 40) * (1.0f / 16777216.0f);
                    if (draw >= keep) {
                        undo_flip();
                        dcur = d0;
                        ++n_rej;
                        if (trace) mv.undone = 1;
                    }
                }
            }
            if (kTrace || R != R0 || fi + 1 >= p.flips_per_step)
                break;
            cand &= ~M;
            if (!cand)
                break;
            ur = hash32(ur ^ 0x85ebca6bu);
            uh = hash32(uh ^ ur);
        }
        const int removed_now = R0 - R;
        if (!removed_now) {
            since += hold == 0;
            continue;
        }
        n_removed += (uint32_t)removed_now;
        since = 0;
        if (R < best) {
            best = R;
            since_best = 0;
            plateau = plateau_up(p, plateau);
            store_save(st, p.best + base, R, lane);
        }
    }

    if (!handed)
        store_save(st, p.terms + base, R, lane);
    if (trace) mv.degree = dknown ? dcur : 0;
    if (trace && lane == 0)
        p.moves[w] = mv;
    if (best < reported && report_best(p, wp, w, best, lane))
        reported = best;
    if (lane == 0) {
        cuda_walk_warp *o = p.state + w;
        o->rank = R;
        o->best_rank = best;
        o->reported_rank = reported;
        o->since_drop = since;
        o->since_best = since_best;
        o->restarts += n_restart;
        o->walks = nwalk;
        o->steps += n_steps;
        o->flips += n_flips;
        o->reductions += n_red;
        o->removed += n_removed;
        o->plus += n_plus;
        o->plus_skipped += n_skip;
        o->undone += n_rej;
        o->degree = dknown ? dcur : 0;
        o->plateau = plateau;
        o->hold_left = hold;
        o->held += n_held;
        o->rng_lane = lr.s - lane_key(p.seed, w, lane);
        o->rng_warp = wr.s - warp_key(p.seed, w);
    }
}

} /* namespace walk */

#endif
