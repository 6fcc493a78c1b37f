/* search: the walker's data structures, shared by walker.c and the driver
 * (internal to search/; the interface is search.h). */
#ifndef FLIPGRAPH_WALKER_IMPL_H
#define FLIPGRAPH_WALKER_IMPL_H

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

    scheme_rng rng;
    search_walker_stats st;
};

/* search_walker_reset; with reduced true the caller vouches that s has no
 * reduction left for this walker's gen_max (a pooled walker state): the
 * checks are skipped, which makes restarts of large formats cheap. */
bool walker_reset(search_walker *w, const scheme *s, bool reduced);

#endif
