/* search: the walker's data structures, shared by walker.c and the driver
 * (internal to search/; the interface is search.h). */
#ifndef FLIPGRAPH_WALKER_IMPL_H
#define FLIPGRAPH_WALKER_IMPL_H

#include <math.h>
#include <stdlib.h>

#include "search.h"

/* A hash-table entry: factor value (0: empty) -> bucket id. */
typedef struct wk_hent {
    uint64_t key;
    int32_t bid;
    int32_t pad;
} wk_hent;

typedef struct wk_table {
    wk_hent *e;
    uint32_t mask;
    int shift; /* 64 - log2(size) */
} wk_table;

#define WK_HASH_MUL 0x9E3779B97F4A7C15ull

static inline int pos_y(int x) { return x == 2 ? 0 : x + 1; }
static inline int pos_z(int x) { return x == 0 ? 2 : x - 1; }

static inline uint32_t hslot(const wk_table *t, uint64_t key)
{
    return (uint32_t)((key * WK_HASH_MUL) >> t->shift);
}

static inline int32_t tab_find(const wk_table *t, uint64_t key)
{
    uint32_t i = hslot(t, key);
    for (;;) {
        const wk_hent *e = &t->e[i];
        if (e->key == key)
            return e->bid;
        if (!e->key)
            return -1;
        i = (i + 1) & t->mask;
    }
}

/* Deletes key (present) with backward-shift deletion: no tombstones. */
static inline void tab_delete(wk_table *t, uint64_t key)
{
    uint32_t i = hslot(t, key);
    while (t->e[i].key != key)
        i = (i + 1) & t->mask;
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & t->mask;
        uint64_t k = t->e[j].key;
        if (!k)
            break;
        uint32_t home = hslot(t, k);
        /* move e[j] to the hole at i when its home is not in (i, j] cyclically */
        if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
            t->e[i] = t->e[j];
            i = j;
        }
    }
    t->e[i].key = 0;
}

/* A table of at least 4 * n slots (a power of two); false when out of memory. */
static inline bool tab_init(wk_table *t, int n)
{
    uint32_t size = 16;
    int shift = 60;
    while (size < 4u * (uint32_t)n) {
        size <<= 1;
        shift--;
    }
    t->e = (wk_hent *)calloc(size, sizeof(wk_hent));
    t->mask = size - 1;
    t->shift = shift;
    return t->e != NULL;
}

/* The weight bias's acceptance exp(-B_w d) for d below this is a table
 * (walker_weight_keep): exp was a few per cent of the plain walk's time. */
#define WK_WEIGHT_KEEP_MAX 130

/* Terms sharing one value at one position: a list through wk_node. */
typedef struct wk_bucket {
    int32_t count;
    int32_t head; /* slot, -1 when empty */
} wk_bucket;

/* Per (slot, position), index slot << 2 | pos. */
typedef struct wk_node {
    int32_t bid;       /* bucket, -1 when not indexed */
    int32_t nxt, prv;  /* neighbouring slots in the bucket's list, -1 at the ends */
    int32_t mpos;      /* index in M[0] (bucket of two) or M[1] (more), -1 when alone */
} wk_node;

struct search_walker {
    scheme_format fmt;
    int cap;            /* slots */
    int rank;           /* alive terms */
    int gen_max, plus_max;
    bool isolated_plus; /* search_params.isolated_plus */
    double degree_bias; /* search_params.degree_bias */
    double weight_bias; /* search_params.weight_bias */
    double weight_keep_for;                 /* the weight_bias weight_keep holds (-1: none yet) */
    double weight_keep[WK_WEIGHT_KEEP_MAX]; /* weight_keep[d] = exp(-weight_bias d) */
    uint64_t lookahead, lookahead_count; /* search_params.lookahead; flips since the last look */
    bool plus_tabu;     /* search_params.plus_tabu */
    int tabu_rank;      /* the rank the last plus transition left; its tabu holds while the rank is
                           this (-1: none) */
    int32_t tabu_s[2], tabu_u[2]; /* the unordered pairs of slots the tabu refuses to flip ... */
    int tabu_x[2];                /* ... at these positions */
    uint64_t plus_hold;  /* search_params.plus_hold */
    uint64_t hold_left;  /* flips left in which no reduction is taken (the plus hold) */
    uint64_t L, Lmin, Lmax;  /* adaptive plateau length and its bounds */
    uint64_t plateau_count;  /* flips since the rank last dropped or a plus */

    uint64_t *f;        /* factor of slot s at pos: f[s << 2 | pos] */
    wk_node *node;      /* [cap * 4] */
    int32_t *alive, *apos; /* alive slots; apos[s]: index in alive, -1 when free */
    int32_t *sfree;
    int nsfree;

    wk_table tab[3];
    wk_bucket *bk;
    int32_t *bfree;
    int nbk, nbfree;

    int32_t *M[2];      /* (slot << 2 | pos) in buckets of two / of three or more */
    int nM[2];
    int32_t *hist;      /* hist[k]: buckets of size k >= 3 */
    int kmax;           /* largest bucket size (3 when none is larger) */

    int32_t *work;      /* (slot << 2 | pos) changed, to check for reductions */
    int nwork;
    /* The flip's own work items (walker.c, "A flip keeps its bucket's
     * span"): entries below flip_items were pushed by the flip, whose shared
     * position is flip_x; their check of the shared bucket is skipped
     * (st.skipped), or run anyway with check_skipped set (tests:
     * st.skipped_found counts the ones that found a reduction). */
    int flip_items, flip_x;
    bool check_skipped;

    scheme_rng rng;
    search_walker_stats st;

    /* a symmetric walk (search_params.symmetry; walker_sym.c): the scheme is
     * kept as orbits there, and flips, plus transitions, reductions, resets and
     * snapshots go through it; the plain index above is left empty */
    struct sym_walk *sym;
    /* a walk over Z (search_params.ring; walker_z.c): the index above holds, for
     * each factor, a nonzero hash of the factor up to sign, so that its buckets
     * are the terms whose factors are equal up to sign; the coefficients live
     * there, and flips, plus transitions, reductions, resets and snapshots go
     * through it */
    struct z_walk *zw;
};

/* The symmetric walk (walker_sym.c), called by walker.c's entry points. */
struct sym_walk *sym_new(const search_params *p, int cap);
void sym_free(struct sym_walk *s);
bool sym_reset(search_walker *w, const scheme *s);
bool sym_flip(search_walker *w);
bool sym_plus(search_walker *w);
int sym_terms(const search_walker *w, scheme_term *out);
bool sym_check(const search_walker *w, char *err, size_t errlen);
bool sym_flip_isolated(const search_walker *w);

/* The walk over Z (walker_z.c), called by walker.c's entry points. */
struct z_walk *z_new(const search_params *p, int cap);
void z_free(struct z_walk *z);
bool z_reset(search_walker *w, const scheme *s, bool reduced);
bool z_flip(search_walker *w);
bool z_plus(search_walker *w);
scheme *z_snapshot(const search_walker *w);
int z_terms(const search_walker *w, scheme_term *out); /* the GF(2) words: odd coefficients */
bool z_check(const search_walker *w, char *err, size_t errlen);

/* The plain walker's index and terms (walker.c), shared with the walk over Z:
 * a (slot, position) joins / leaves the bucket of its key w->f[slot << 2 | pos];
 * a term is added with three keys (its slot returned, all positions queued for
 * the reduction checks) or removed; walker_clear empties the walker. */
void walker_idx_add(search_walker *w, int32_t s, int pos);
void walker_idx_remove(search_walker *w, int32_t s, int pos);
int32_t walker_term_add(search_walker *w, uint64_t a, uint64_t b, uint64_t c);
void walker_term_remove(search_walker *w, int32_t s);
void walker_clear(search_walker *w);
static inline void walker_work_push(search_walker *w, int32_t s, int pos)
{
    w->work[w->nwork++] = s << 2 | pos;
}
/* A uniformly random ordered pair (s, u) of terms in one bucket at position x
 * (docs/search.md, "A uniform flip"); at least one bucket of two must exist. */
void walker_draw_pair(search_walker *w, int32_t *s, int32_t *u, int *x);
/* The plus tabu (search_params.plus_tabu; docs/search.md, "Why plus
 * transitions come back"): walker_tabu_set after a plus transition that made
 * term n from terms i and j at position x, the rank before it given;
 * walker_draw_pair_tabu draws as walker_draw_pair, again (up to 8 draws) while
 * the pair is one the tabu refuses, and returns false when every draw was. */
void walker_tabu_set(search_walker *w, int32_t i, int32_t j, int32_t n, int x, int before);
bool walker_draw_pair_tabu(search_walker *w, int32_t *s, int32_t *u, int *x);
/* The index against a recomputation (buckets, M2/M3, histogram); the ordered
 * pairs it offers. */
bool walker_check_index(const search_walker *w, char *err, size_t errlen);
uint64_t walker_index_pairs(const search_walker *w);
/* The same count from the member lists and the histogram (what a flip reads
 * for the degree bias): O(largest bucket). */
uint64_t walker_degree(const search_walker *w);
/* The Metropolis test of the degree and weight biases on a flip that reduces
 * nothing, from D = d0 flips to D' = d1 (read with the degree bias only),
 * adding dw nonzero coefficients: true when the flip is to be undone (or not
 * made), kept with probability min(1, (D/D')^B) min(1, exp(-B_w dw)).  A draw
 * only where a test applies (D' > D with the degree bias, dw > 0 with the
 * weight bias), so that a seed replays as before where the biases are off. */
bool walker_bias_rejects(search_walker *w, uint64_t d0, uint64_t d1, int dw);

/* exp(-w->weight_bias * d), the same double, from a table for small d (the
 * driver may set weight_bias after the walker is built: the table follows). */
static inline double walker_weight_keep(search_walker *w, int d)
{
    if (d < 0 || d >= WK_WEIGHT_KEEP_MAX)
        return exp(-w->weight_bias * d);
    if (w->weight_keep_for != w->weight_bias) {
        for (int k = 0; k < WK_WEIGHT_KEEP_MAX; k++)
            w->weight_keep[k] = exp(-w->weight_bias * k);
        w->weight_keep_for = w->weight_bias;
    }
    return w->weight_keep[d];
}

/* No flip is possible: the walk ends there (the driver restarts). */
bool walker_flip_isolated(const search_walker *w);

/* search_walker_reset; with reduced true the caller vouches that s has no
 * reduction left for this walker's gen_max (a pooled walker state): the
 * checks are skipped, which makes restarts of large formats cheap. */
bool walker_reset(search_walker *w, const scheme *s, bool reduced);

#endif
