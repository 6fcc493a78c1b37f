/* The symmetric walk of one walker, written once for the GPU (one thread per
 * walker, cuda/walk_sym.cu) and the CPU (tests/test_symmetry.c and the
 * emulator cuda/walk_sym_emu.c run this same source), after Moosbauer, Poole,
 * "Flip graphs with symmetry and new matrix multiplication schemes", 2025.
 *
 * It is the lazy walk of search/walker_sym.c (gen-max 1, the symmetric
 * defaults; that file's comment has the orbits, entries and buckets): the
 * scheme is a set of fixed terms and free orbits under C3 (the cyclic shift)
 * or C3 x C2 (with the index reversal); a flip draws a value two or more
 * entries share, uniformly, and an ordered pair of its entries of two orbits,
 * and changes one factor of each representative; an orbit left with a zero
 * factor goes (the reduction), one left fixed by the shift joins the fixed
 * terms, one fixed by the reversal vanishes; a plus transition adds an orbit
 * after `plateau` flips without a reduction, and at once where no flip is
 * left; a walk ends `walk_len` flips after its last new minimum and starts
 * over from the start (the symmetric defaults' pool-fresh 1).
 *
 * Why one thread per walker and not the plain walk's warp per walker
 * (walk_core.cuh): the walk's draw is uniform over the shared values, which
 * needs the value -> entries index; a warp's __match_any_sync finds shared
 * values among 32 sampled entries only, a different walk.  The index of one
 * walker is a few kilobytes, so every thread keeps its own in global memory.
 *
 * The state of a walker: a wsym_state (scalars) and a block of 64-bit words
 * (arrays) laid out by wsym_layout_init.  Plain C that nvcc also compiles. */
#ifndef FLIPGRAPH_WALK_SYM_CORE_H
#define FLIPGRAPH_WALK_SYM_CORE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "schemes/involution.h"
#include "walk_bias.h"

#if defined(__CUDACC__)
#define WSYM_FN static __host__ __device__ __forceinline__
#else
#define WSYM_FN static inline
#endif

#define WSYM_FIXED_EXTRA 16 /* fixed terms a walk may add to the start's (new cubes) */

/* An entry, bucket or orbit index, or -1.  16 bits: the index arrays were
 * half of a <6,6,6> c3xc2s1 walker's shared memory in 32 (bench/RESULTS.md,
 * forty-eighth session); wsym_layout_fits keeps every index below 2^15. */
typedef int16_t wsym_ix;
#define WSYM_IX_MAX 32767

typedef struct wsym_layout {
    int g;          /* 1: C3, 2: C3 x C2 (scheme_symmetry) */
    int ne;         /* entries per orbit: 3 or 6 */
    int n;          /* <n,n,n> */
    int nn;         /* bits per factor: n * n */
    int swaps;      /* C3 x C2: the pairs (i, n-1-i) its involution swaps (n/2: the reversal) */
    uint64_t col;   /* scheme_involution_column(n) */
    int ocap;       /* orbit slots */
    int nc;         /* entries (and bucket ids): ocap * ne */
    int tsize;      /* hash slots, the least power of two above nc (at least 16) */
    int tshift;     /* 64 - log2(tsize) */
    int fcap;       /* fixed-term slots */
    /* offsets in 64-bit words from the start of a walker's block */
    size_t o_rep, o_key, o_fixed, o_brep, o_bfixed, o_ix;
    /* offsets in wsym_ix units from o_ix */
    size_t i_tbid, i_bcount, i_bhead, i_bfree, i_M, i_mpos, i_bid, i_nxt, i_prv, i_alive, i_apos,
        i_ofree, i_half;
    size_t words;   /* the block's size in 64-bit words */
} wsym_layout;

/* The walk's parameters (every walker the same). */
typedef struct wsym_params {
    uint64_t walk_len;   /* flips after the walk's last new minimum before it starts over */
    uint64_t plateau;    /* flips without a reduction before a plus transition */
    int plus_max;        /* plus transitions only while rank < the walk's minimum + plus_max */
    int target;          /* a walker stops walking at this rank or below (0: never) */
    int report_below;    /* a walker copies its scheme (best arrays) at a new lowest rank below this */
    double weight_bias;  /* search_params.weight_bias: a flip adding d > 0 coefficients to the two
                            representatives is undone unless a draw below exp(-B d); 0: off */
    double weight_bias_max; /* > weight_bias: walker i of n walks with cuda_walk_bias_at (wsym_params_of) */
} wsym_params;

/* P as walker i of n walks it: its own weight bias where a window is spread
 * over the walkers (walk_bias.h); the kernels and the emulator call it. */
WSYM_FN wsym_params wsym_params_of(const wsym_params *P, int i, int n)
{
    wsym_params q = *P;
    q.weight_bias = cuda_walk_bias_at(P->weight_bias, P->weight_bias_max, i, n);
    return q;
}

/* A walker's scalars. */
typedef struct wsym_state {
    uint64_t rng;           /* splitmix64 counter */
    uint64_t flips, plus, reductions, restarts;
    uint64_t undone;        /* flips undone by the weight bias */
    uint64_t since;         /* flips since the walk's last new minimum */
    uint64_t plateau_count; /* flips since the last reduction or plus */
    int32_t nalive, nofree, nbfree, nM, nfixed, rank;
    int32_t walk_min;       /* the current walk's lowest rank */
    int32_t best_rank;      /* the lowest rank copied to the best arrays (INT32_MAX: none) */
    int32_t best_norbits, best_nfixed;
    int32_t failed;         /* 1: the walk overflowed its slots (a bug: the host says so) */
    int32_t nhalf;          /* alive half orbits (C3 x C2 with an involution that fixes indices) */
    int32_t pad[2];
} wsym_state;

/* The start every walk begins from: free orbit representatives, fixed terms,
 * and half orbits (search_symmetric_halves: terms the involution fixes and
 * the shift moves, three images each once). */
typedef struct wsym_start {
    const uint64_t *reps;   /* [norbits][3] */
    int norbits;
    const uint64_t *fixed;  /* [nfixed][3] */
    int nfixed;
    const uint64_t *half;   /* [nhalf][3] */
    int nhalf;
} wsym_start;

/* Orbit slots for walks of up to cap terms from a start with nhalf half
 * orbits, orbits of `order` terms otherwise.  Walks make no half orbits (a
 * term the involution fixes in a free orbit cancels with its image), so the
 * start's count bounds them; a walker with no free slot makes no plus
 * transition.  Slots as for orbits of 3 made c3xc2s1's <6,6,6> walker 58 KB,
 * too large for shared memory (bench/RESULTS.md, forty-sixth session). */
WSYM_FN int wsym_orbit_slots(int cap, int order, int nhalf) { return cap / order + nhalf + 4; }

/* Entries per free orbit of group g (1: C3, 2: C3 x C2): the factors at A of its images. */
WSYM_FN int wsym_group_ne(int g) { return g == 2 ? 6 : 3; }

/* start_fixed: the start's fixed terms and 3 per half orbit (the best arrays
 * hold a half orbit as its three terms, wsym_keep_best). */
WSYM_FN void wsym_layout_init(wsym_layout *L, int g, int n, int swaps, int ocap, int start_fixed)
{
    L->g = g;
    L->ne = wsym_group_ne(g);
    L->n = n;
    L->nn = n * n;
    L->swaps = g == 2 ? swaps : 0;
    L->col = scheme_involution_column(n);
    L->ocap = ocap;
    L->nc = ocap * L->ne;
    /* More slots than entries, so that a probe always meets an empty one.  A
     * walk holds fewer entries than its rank (the fixed terms have none),
     * far below its slots' nc (516 for <6,6,6> c3xc2s1 from rank 278), so the
     * table stays about a quarter full.  At twice nc it was half of that
     * walker's 50912 bytes, and four walkers filled an SM's shared memory
     * where six fit in its 38624 (eight in 27632 with 16-bit indices,
     * wsym_ix; tests/gpu_sym.c). */
    L->tsize = 16;
    L->tshift = 60;
    while (L->tsize <= L->nc) {
        L->tsize <<= 1;
        L->tshift--;
    }
    L->fcap = start_fixed + WSYM_FIXED_EXTRA;
    size_t w = 0;
    L->o_rep = w, w += (size_t)ocap * 3;
    L->o_key = w, w += (size_t)L->tsize;
    L->o_fixed = w, w += (size_t)L->fcap * 3;
    L->o_brep = w, w += (size_t)ocap * 3;
    L->o_bfixed = w, w += (size_t)L->fcap * 3;
    L->o_ix = w;
    size_t i = 0;
    L->i_tbid = i, i += (size_t)L->tsize;
    L->i_bcount = i, i += (size_t)L->nc;
    L->i_bhead = i, i += (size_t)L->nc;
    L->i_bfree = i, i += (size_t)L->nc;
    L->i_M = i, i += (size_t)L->nc;
    L->i_mpos = i, i += (size_t)L->nc;
    L->i_bid = i, i += (size_t)L->nc;
    L->i_nxt = i, i += (size_t)L->nc;
    L->i_prv = i, i += (size_t)L->nc;
    L->i_alive = i, i += (size_t)ocap;
    L->i_apos = i, i += (size_t)ocap;
    L->i_ofree = i, i += (size_t)ocap;
    L->i_half = i, i += (size_t)ocap;
    L->words = w + (i * sizeof(wsym_ix) + 7) / 8;
}

/* Whether a walker of group g with ocap orbit slots fits its 16-bit indices
 * (entries and buckets below nc = ocap * wsym_group_ne(g), orbits below ocap). */
WSYM_FN int wsym_layout_fits(int g, int ocap) { return ocap > 0 && (long)ocap * wsym_group_ne(g) <= WSYM_IX_MAX; }

/* Pointers into one walker's block. */
typedef struct wsym_walker {
    const wsym_layout *L;
    wsym_state *st;
    uint64_t *rep, *key, *fixed, *brep, *bfixed;
    wsym_ix *tbid, *bcount, *bhead, *bfree, *M, *mpos, *bid, *nxt, *prv, *alive, *apos, *ofree;
    wsym_ix *half; /* half[o]: orbit o is a half orbit (3 entries, 3 terms) */
} wsym_walker;

WSYM_FN void wsym_bind(wsym_walker *w, const wsym_layout *L, wsym_state *st, uint64_t *block)
{
    w->L = L;
    w->st = st;
    w->rep = block + L->o_rep;
    w->key = block + L->o_key;
    w->fixed = block + L->o_fixed;
    w->brep = block + L->o_brep;
    w->bfixed = block + L->o_bfixed;
    wsym_ix *b = (wsym_ix *)(block + L->o_ix);
    w->tbid = b + L->i_tbid;
    w->bcount = b + L->i_bcount;
    w->bhead = b + L->i_bhead;
    w->bfree = b + L->i_bfree;
    w->M = b + L->i_M;
    w->mpos = b + L->i_mpos;
    w->bid = b + L->i_bid;
    w->nxt = b + L->i_nxt;
    w->prv = b + L->i_prv;
    w->alive = b + L->i_alive;
    w->apos = b + L->i_apos;
    w->ofree = b + L->i_ofree;
    w->half = b + L->i_half;
}

/* ---- random numbers: splitmix64 on a counter ---- */

WSYM_FN int wsym_popc(uint64_t x)
{
#if defined(__CUDA_ARCH__)
    return __popcll(x);
#else
    return __builtin_popcountll(x);
#endif
}

WSYM_FN uint64_t wsym_next(wsym_state *st)
{
    uint64_t z = (st->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

WSYM_FN uint32_t wsym_below(wsym_state *st, uint32_t bound)
{
    return (uint32_t)(((wsym_next(st) >> 32) * (uint64_t)bound) >> 32);
}

/* A fresh walker: its stream from (seed, index), no counts, no best. */
WSYM_FN void wsym_init_state(wsym_state *st, uint64_t seed, int index)
{
    wsym_state z;
    char *p = (char *)&z;
    for (size_t i = 0; i < sizeof z; i++)
        p[i] = 0;
    z.rng = seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(index + 1));
    (void)wsym_next(&z);
    z.best_rank = 0x7fffffff;
    *st = z;
}

/* ---- the group on factors ---- */

/* The involution (scheme_symmetry_image): the index reversal, the nn bits in
 * reverse order, or a swap of fewer pairs (schemes/involution.h). */
WSYM_FN uint64_t wsym_rev(const wsym_layout *L, uint64_t x)
{
    if (2 * L->swaps + 1 < L->n)
        return scheme_involution_apply(x, L->n, L->swaps, L->col);
#if defined(__CUDA_ARCH__)
    return __brevll(x) >> (64 - L->nn);
#else
    x = (x >> 1 & 0x5555555555555555ull) | (x & 0x5555555555555555ull) << 1;
    x = (x >> 2 & 0x3333333333333333ull) | (x & 0x3333333333333333ull) << 2;
    x = (x >> 4 & 0x0F0F0F0F0F0F0F0Full) | (x & 0x0F0F0F0F0F0F0F0Full) << 4;
    x = (x >> 8 & 0x00FF00FF00FF00FFull) | (x & 0x00FF00FF00FF00FFull) << 8;
    x = (x >> 16 & 0x0000FFFF0000FFFFull) | (x & 0x0000FFFF0000FFFFull) << 16;
    x = x >> 32 | x << 32;
    return x >> (64 - L->nn);
#endif
}

/* Entry e of orbit o: the factor rep[o][e % 3], reversed for e >= 3. */
WSYM_FN uint64_t wsym_value(const wsym_walker *w, int32_t o, int e)
{
    const uint64_t v = w->rep[o * 3 + e % 3];
    return e >= 3 ? wsym_rev(w->L, v) : v;
}

/* ---- the value index: hash slot -> bucket id, buckets list entries ---- */

WSYM_FN uint32_t wsym_hslot(const wsym_layout *L, uint64_t key)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> L->tshift);
}

WSYM_FN void wsym_m_del(wsym_walker *w, int32_t b)
{
    wsym_state *st = w->st;
    const int32_t at = w->mpos[b], last = w->M[--st->nM];
    w->M[at] = last;
    w->mpos[last] = at;
    w->mpos[b] = -1;
}

WSYM_FN void wsym_idx_add(wsym_walker *w, int32_t code, uint64_t key)
{
    const wsym_layout *L = w->L;
    wsym_state *st = w->st;
    const uint32_t mask = (uint32_t)L->tsize - 1;
    uint32_t i = wsym_hslot(L, key);
    int32_t b;
    for (;;) {
        if (w->key[i] == key) {
            b = w->tbid[i];
            break;
        }
        if (!w->key[i]) {
            b = w->bfree[--st->nbfree];
            w->key[i] = key;
            w->tbid[i] = b;
            w->bcount[b] = 0;
            w->bhead[b] = -1;
            break;
        }
        i = (i + 1) & mask;
    }
    w->bid[code] = b;
    w->prv[code] = -1;
    w->nxt[code] = w->bhead[b];
    if (w->bhead[b] >= 0)
        w->prv[w->bhead[b]] = code;
    w->bhead[b] = code;
    if (++w->bcount[b] == 2) {
        w->mpos[b] = st->nM;
        w->M[st->nM++] = b;
    }
}

/* Removes entry code, whose value is key; a bucket left empty frees its slot
 * (backward-shift deletion, as search/walker_impl.h's tab_delete). */
WSYM_FN void wsym_idx_remove(wsym_walker *w, int32_t code, uint64_t key)
{
    const wsym_layout *L = w->L;
    wsym_state *st = w->st;
    const int32_t b = w->bid[code];
    if (w->prv[code] >= 0)
        w->nxt[w->prv[code]] = w->nxt[code];
    else
        w->bhead[b] = w->nxt[code];
    if (w->nxt[code] >= 0)
        w->prv[w->nxt[code]] = w->prv[code];
    w->bid[code] = -1;
    if (--w->bcount[b] == 1) {
        wsym_m_del(w, b);
        return;
    }
    if (w->bcount[b])
        return;
    w->bfree[st->nbfree++] = b;
    const uint32_t mask = (uint32_t)L->tsize - 1;
    uint32_t i = wsym_hslot(L, key);
    while (w->key[i] != key)
        i = (i + 1) & mask;
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        const uint64_t k = w->key[j];
        if (!k)
            break;
        const uint32_t home = wsym_hslot(L, k);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            w->key[i] = k;
            w->tbid[i] = w->tbid[j];
            i = j;
        }
    }
    w->key[i] = 0;
}

/* ---- orbits ---- */

/* A free orbit has one entry per image (its factor at A): L->ne terms. */
WSYM_FN void wsym_set_rank(wsym_walker *w)
{
    w->st->rank = w->st->nfixed + w->L->ne * (w->st->nalive - w->st->nhalf) + 3 * w->st->nhalf;
}

/* The entries of orbit o in the index: 3 for a half orbit. */
WSYM_FN int wsym_ne(const wsym_walker *w, int32_t o) { return w->half[o] ? 3 : w->L->ne; }

/* Adds (x, x, x) to the fixed terms, or cancels it with an equal one (GF(2)). */
WSYM_FN void wsym_fixed_xor(wsym_walker *w, uint64_t x)
{
    wsym_state *st = w->st;
    for (int i = 0; i < st->nfixed; i++)
        if (w->fixed[i * 3] == x && w->fixed[i * 3 + 1] == x && w->fixed[i * 3 + 2] == x) {
            st->nfixed--;
            for (int k = 0; k < 3; k++)
                w->fixed[i * 3 + k] = w->fixed[st->nfixed * 3 + k];
            return;
        }
    if (st->nfixed >= w->L->fcap) {
        st->failed = 1;
        return;
    }
    for (int k = 0; k < 3; k++)
        w->fixed[st->nfixed * 3 + k] = x;
    st->nfixed++;
}

WSYM_FN void wsym_orbit_index(wsym_walker *w, int32_t o)
{
    for (int e = 0; e < wsym_ne(w, o); e++)
        wsym_idx_add(w, o * w->L->ne + e, wsym_value(w, o, e));
}

WSYM_FN void wsym_orbit_unindex(wsym_walker *w, int32_t o)
{
    for (int e = 0; e < wsym_ne(w, o); e++)
        wsym_idx_remove(w, o * w->L->ne + e, wsym_value(w, o, e));
}

WSYM_FN void wsym_orbit_release(wsym_walker *w, int32_t o)
{
    wsym_state *st = w->st;
    const int32_t at = w->apos[o], last = w->alive[--st->nalive];
    w->alive[at] = last;
    w->apos[last] = at;
    w->apos[o] = -1;
    w->ofree[st->nofree++] = o;
    if (w->half[o]) {
        w->half[o] = 0;
        st->nhalf--;
    }
}

/* What a representative T is: 0 a free orbit, 1 it vanishes (a zero factor,
 * or the reversal fixes it: its images cancel in pairs), 2 the shift fixes it
 * and not the reversal: its distinct images join the fixed terms.  A half
 * orbit's T the involution fixes always (search/walker_sym.c, orbit_kind). */
WSYM_FN int wsym_kind(const wsym_layout *L, const uint64_t T[3], int half)
{
    if (!T[0] || !T[1] || !T[2])
        return 1;
    const int rev_fixed = L->g == 2 && !half && wsym_rev(L, T[0]) == T[0] && wsym_rev(L, T[1]) == T[1] &&
                          wsym_rev(L, T[2]) == T[2];
    if (rev_fixed)
        return 1;
    return T[0] == T[1] && T[1] == T[2] ? 2 : 0;
}

/* Gives a new or unindexed orbit o the representative T, or lets it go. */
WSYM_FN void wsym_orbit_place(wsym_walker *w, int32_t o, const uint64_t T[3])
{
    const int kind = wsym_kind(w->L, T, w->half[o]);
    if (kind) {
        if (kind == 2) {
            wsym_fixed_xor(w, T[0]);
            if (w->L->g == 2 && !w->half[o])
                wsym_fixed_xor(w, wsym_rev(w->L, T[0]));
        }
        wsym_orbit_release(w, o);
        wsym_set_rank(w);
        return;
    }
    for (int q = 0; q < 3; q++)
        w->rep[o * 3 + q] = T[q];
    wsym_orbit_index(w, o);
}

WSYM_FN int32_t wsym_orbit_new(wsym_walker *w, const uint64_t T[3], int half)
{
    wsym_state *st = w->st;
    if (!st->nofree) {
        st->failed = 1;
        return -1;
    }
    const int32_t o = w->ofree[--st->nofree];
    w->apos[o] = st->nalive;
    w->alive[st->nalive++] = o;
    w->half[o] = half;
    st->nhalf += half;
    wsym_orbit_place(w, o, T);
    wsym_set_rank(w);
    return o;
}

/* Orbit o's representative with delta added to factor q: one entry (two under
 * C3 x C2) moves to another bucket, unless the orbit goes or becomes fixed. */
WSYM_FN void wsym_orbit_xor(wsym_walker *w, int32_t o, int q, uint64_t delta)
{
    const wsym_layout *L = w->L;
    uint64_t T[3] = {w->rep[o * 3], w->rep[o * 3 + 1], w->rep[o * 3 + 2]};
    T[q] ^= delta;
    if (wsym_kind(L, T, w->half[o])) {
        wsym_orbit_unindex(w, o);
        wsym_orbit_place(w, o, T);
        return;
    }
    for (int b = 0; b < wsym_ne(w, o) / 3; b++) {
        const int32_t code = o * L->ne + 3 * b + q;
        wsym_idx_remove(w, code, wsym_value(w, o, 3 * b + q));
    }
    w->rep[o * 3 + q] = T[q];
    for (int b = 0; b < wsym_ne(w, o) / 3; b++) {
        const int32_t code = o * L->ne + 3 * b + q;
        wsym_idx_add(w, code, wsym_value(w, o, 3 * b + q));
    }
}

/* ---- the walk ---- */

/* Starts over from the start. */
WSYM_FN void wsym_reset(wsym_walker *w, const wsym_start *s)
{
    const wsym_layout *L = w->L;
    wsym_state *st = w->st;
    for (int i = 0; i < L->tsize; i++)
        w->key[i] = 0;
    st->nalive = st->nM = st->nhalf = 0;
    st->nofree = 0;
    for (int32_t o = L->ocap - 1; o >= 0; o--) {
        w->ofree[st->nofree++] = o;
        w->apos[o] = -1;
        w->half[o] = 0;
    }
    st->nbfree = 0;
    for (int32_t b = L->nc - 1; b >= 0; b--) {
        w->bfree[st->nbfree++] = b;
        w->mpos[b] = -1;
    }
    st->nfixed = 0;
    for (int i = 0; i < s->nfixed && i < L->fcap; i++, st->nfixed++)
        for (int k = 0; k < 3; k++)
            w->fixed[i * 3 + k] = s->fixed[i * 3 + k];
    for (int i = 0; i < s->nhalf; i++)
        wsym_orbit_new(w, &s->half[i * 3], 1);
    for (int i = 0; i < s->norbits; i++)
        wsym_orbit_new(w, &s->reps[i * 3], 0);
    wsym_set_rank(w);
    st->walk_min = st->rank;
    st->since = 0;
    st->plateau_count = 0;
}

/* Two entries sharing a value, of two orbits: a uniform value among those
 * two or more entries share, then a uniform ordered pair of its entries. */
WSYM_FN int wsym_draw(wsym_walker *w, int32_t *pa, int32_t *pb)
{
    wsym_state *st = w->st;
    const int32_t b = w->M[wsym_below(st, (uint32_t)st->nM)];
    const uint32_t cnt = (uint32_t)w->bcount[b];
    const uint32_t i = wsym_below(st, cnt);
    uint32_t j = wsym_below(st, cnt - 1);
    j += j >= i;
    int32_t a = -1, c = -1, u = w->bhead[b];
    for (uint32_t k = 0; u >= 0 && (a < 0 || c < 0); u = w->nxt[u], k++) {
        if (k == i)
            a = u;
        if (k == j)
            c = u;
    }
    *pa = a;
    *pb = c;
    return a / w->L->ne != c / w->L->ne;
}

/* 1: no two orbits share a value (no flip is left). */
WSYM_FN int wsym_isolated(const wsym_walker *w)
{
    for (int i = 0; i < w->st->nM; i++) {
        const int32_t b = w->M[i], h = w->bhead[b];
        for (int32_t u = w->nxt[h]; u >= 0; u = w->nxt[u])
            if (u / w->L->ne != h / w->L->ne)
                return 0;
    }
    return 1;
}

/* One flip; 0 when none is left.  A flip that zeroes a factor is a reduction.
 * wbias > 0: the weight bias, as search/walker_sym.c's sym_flip. */
WSYM_FN int wsym_flip(wsym_walker *w, double wbias)
{
    const wsym_layout *L = w->L;
    wsym_state *st = w->st;
    int32_t a = -1, b = -1;
    int found = 0;
    for (int tries = 0; tries < 64 && st->nM && !found; tries++)
        found = wsym_draw(w, &a, &b);
    if (!found) {
        if (!st->nM || wsym_isolated(w))
            return 0;
        while (!wsym_draw(w, &a, &b))
            ;
    }
    const int32_t o1 = a / L->ne, o2 = b / L->ne;
    const int e1 = a % L->ne, e2 = b % L->ne;
    /* (v, y1, z1), (v, y2, z2) -> (v, y1 + y2, z1), (v, y2, z2 + z1): entry e's
     * image holds rep[(e + x) % 3] at position x, reversed when e >= 3 */
    uint64_t y2 = w->rep[o2 * 3 + (e2 + 1) % 3], z1 = w->rep[o1 * 3 + (e1 + 2) % 3];
    if ((e1 >= 3) != (e2 >= 3)) {
        y2 = wsym_rev(L, y2);
        z1 = wsym_rev(L, z1);
    }
    /* a half orbit meets both images of a free one: the sum (orbit_kind in
     * search/walker_sym.c) */
    const int h1 = w->half[o1], h2 = w->half[o2];
    if (h1 && !h2)
        y2 ^= wsym_rev(L, y2);
    if (h2 && !h1)
        z1 ^= wsym_rev(L, z1);
    const int32_t before = st->rank;
    st->flips++;
    const int q1 = (e1 + 1) % 3, q2 = (e2 + 2) % 3;
    const uint64_t r1 = w->rep[o1 * 3 + q1], r2 = w->rep[o2 * 3 + q2];
    wsym_orbit_xor(w, o1, q1, y2);
    wsym_orbit_xor(w, o2, q2, z1);
    if (st->rank < before)
        st->reductions++;
    /* the weight bias on the two representatives (both orbits free, the rank
     * and both representatives as the flip left them: undone by the same two
     * additions) */
    if (wbias > 0 && !h1 && !h2 && st->rank == before && w->rep[o1 * 3 + q1] == (r1 ^ y2) && w->rep[o2 * 3 + q2] == (r2 ^ z1)) {
        const int dw = wsym_popc(r1 ^ y2) - wsym_popc(r1) + wsym_popc(r2 ^ z1) - wsym_popc(r2);
        if (dw > 0) {
            const double draw = (double)(wsym_next(st) >> 11) * (1.0 / 9007199254740992.0);
            if (draw >= exp(-wbias * dw)) {
                wsym_orbit_xor(w, o1, q1, y2);
                wsym_orbit_xor(w, o2, q2, z1);
                st->undone++;
            }
        }
    }
    return 1;
}

/* A plus transition on two orbits: (x,y,z) + (x',y',z') = (x+x', y, z) +
 * (x', y+y', z) + (x', y', z+z') on a representative and an image of the
 * other; 0 when none was found. */
WSYM_FN int wsym_plus(wsym_walker *w)
{
    const wsym_layout *L = w->L;
    wsym_state *st = w->st;
    if (st->nalive < 2 || st->nofree < 1)
        return 0;
    for (int tries = 0; tries < 64; tries++) {
        const int32_t o1 = w->alive[wsym_below(st, (uint32_t)st->nalive)];
        const int32_t o2 = w->alive[wsym_below(st, (uint32_t)st->nalive)];
        if (o1 == o2 || w->half[o1] || w->half[o2])
            continue;
        const int e = (int)wsym_below(st, (uint32_t)L->ne);
        uint64_t T1[3], T2[3];
        for (int x = 0; x < 3; x++) {
            T1[x] = w->rep[o1 * 3 + x];
            T2[x] = wsym_value(w, o2, (e / 3) * 3 + (e % 3 + x) % 3);
        }
        if (T1[0] == T2[0] || T1[1] == T2[1] || T1[2] == T2[2])
            continue;
        const int x = (int)wsym_below(st, 3), y = (x + 1) % 3, z = (x + 2) % 3;
        uint64_t N1[3] = {T1[0], T1[1], T1[2]}, N2[3], N3[3] = {T2[0], T2[1], T2[2]};
        N1[x] ^= T2[x];
        N2[x] = T2[x];
        N2[y] = T1[y] ^ T2[y];
        N2[z] = T1[z];
        N3[z] ^= T1[z];
        wsym_orbit_unindex(w, o1);
        wsym_orbit_place(w, o1, N1);
        wsym_orbit_unindex(w, o2);
        wsym_orbit_place(w, o2, N3);
        wsym_orbit_new(w, N2, 0);
        wsym_set_rank(w);
        st->plus++;
        return 1;
    }
    return 0;
}

/* Copies the scheme to the best arrays (compact: reps of the free orbits;
 * the fixed terms, then each half orbit's three terms, as fixed terms: a
 * half orbit is fixed by the involution, so search_symmetric_join takes its
 * terms as they are). */
WSYM_FN void wsym_keep_best(wsym_walker *w)
{
    wsym_state *st = w->st;
    int nb = 0, nf = st->nfixed;
    for (int i = 0; i < st->nfixed * 3; i++)
        w->bfixed[i] = w->fixed[i];
    for (int i = 0; i < st->nalive; i++) {
        const int32_t o = w->alive[i];
        const uint64_t *t = &w->rep[o * 3];
        if (w->half[o]) {
            if (nf + 3 > w->L->fcap) { /* new cubes filled the room (layout_init): the host says so */
                st->failed = 1;
                return;
            }
            for (int k = 0; k < 3; k++, nf++)
                for (int x = 0; x < 3; x++)
                    w->bfixed[nf * 3 + x] = t[(x + k) % 3];
            continue;
        }
        for (int k = 0; k < 3; k++)
            w->brep[nb * 3 + k] = t[k];
        nb++;
    }
    st->best_norbits = nb;
    st->best_nfixed = nf;
    st->best_rank = st->rank;
}

/* Walks n flips (plus transitions and restarts included); returns the flips made. */
WSYM_FN uint64_t wsym_walk(wsym_walker *w, const wsym_start *s, const wsym_params *P, uint64_t n)
{
    wsym_state *st = w->st;
    uint64_t done = 0;
    while (done < n && !st->failed) {
        if (P->target && st->rank <= P->target)
            break;
        const int32_t before = st->rank;
        if (!wsym_flip(w, P->weight_bias)) {
            /* no flip is left: only a plus transition moves on */
            if (!wsym_plus(w)) {
                st->restarts++;
                wsym_reset(w, s);
            }
            st->plateau_count = 0;
            done++;
            continue;
        }
        done++;
        st->since++;
        if (st->rank < before) {
            st->plateau_count = 0;
        } else if (++st->plateau_count >= P->plateau) {
            st->plateau_count = 0;
            if (st->rank < st->walk_min + P->plus_max)
                wsym_plus(w);
        }
        if (st->rank < st->walk_min) {
            st->walk_min = st->rank;
            st->since = 0;
        }
        if (st->rank < st->best_rank && st->rank < P->report_below)
            wsym_keep_best(w);
        if (st->since >= P->walk_len) {
            st->restarts++;
            wsym_reset(w, s);
        }
    }
    return done;
}

#endif
