/* search: the pool of schemes per rank that walkers restart from (internal to
 * search/; the interface is search.h).  Thread-safe. */
#ifndef FLIPGRAPH_SEARCH_POOL_H
#define FLIPGRAPH_SEARCH_POOL_H

#include <pthread.h>

#include "search.h"

typedef struct search_pool_rank {
    scheme **s;        /* verified schemes of this rank, canonical */
    uint64_t *hash;
    int count;
} search_pool_rank;

typedef struct search_pool {
    pthread_mutex_t mu;
    int max_rank;      /* ranks 0..max_rank */
    int size, min;     /* per rank: at most size schemes; min before walkers start there */
    bool reduced;      /* every scheme added has no reduction left (restarts skip the checks) */
    double fresh;      /* a restart starts from the start schemes (the highest rank) with this probability */
    double up;         /* a restart climbs one nonempty rank above with this probability, repeatedly */
    search_pool_rank *r;
    uint64_t added;
} search_pool;

/* up, fresh start at 0 (always the level) and reduced at false; set them
 * after init (the engine: params.pool_up, params.pool_fresh, true). */
bool search_pool_init(search_pool *p, int max_rank, int size, int min);
/* The start schemes of a run, for either backend: the given ones, each of
 * format p->fmt, or when there are none the standard algorithm, the symmetric
 * start of p->symmetry, or without symmetry but with p->cubes the C3 start of
 * those cubes (then *std holds it: the caller frees it).  *max_rank: the
 * largest start rank.  false with res->msg set (res->status SEARCH_FAILED when
 * out of memory, else as it was) when a start is of another format. */
bool search_starts_prepare(const search_params *p, const scheme *const **starts, int *nstarts,
                           scheme **std, int *max_rank, search_result *res);
void search_pool_free(search_pool *p);
/* Adds a copy of s (verified by the caller) unless its canonical hash is there;
 * a full rank replaces a random member.  false: duplicate, rank out of range or
 * out of memory (*oom set). */
bool search_pool_add(search_pool *p, const scheme *s, scheme_rng *rng, bool *oom);
/* Whether the pool holds c (canonical: scheme_hash has run on it, h its hash),
 * by the rule search_pool_add refuses a duplicate with. */
bool search_pool_holds(search_pool *p, const scheme *c, uint64_t h);
/* The rank walkers start from: the lowest rank holding at least min schemes,
 * else the highest rank holding any (the start); -1 when empty.  *count:
 * schemes there. */
int search_pool_level(search_pool *p, int *count);
/* The restart policy (pool.c; docs/search.md, "Restarts"), one rule for every
 * backend.  search_pool_restart resets w to a scheme it draws and returns its
 * rank (-1: empty); search_pool_restart_weights fills w[0..max_rank] with the
 * probability that a restart draws from each rank and returns the level (-1:
 * empty); search_pool_stage writes up to n entries (visit(ctx, i, s) under the
 * pool's lock: copy s there) such that a uniform draw among them follows the
 * same distribution (to within rounding to n entries): how a device pool is
 * staged.  Returns the entries written (-1: out of memory); *level and
 * *level_count (either may be NULL): the level and its schemes. */
int search_pool_restart(search_pool *p, scheme_rng *rng, search_walker *w);
int search_pool_restart_weights(search_pool *p, double *w);
typedef void (*search_pool_visit)(void *ctx, int i, const scheme *s);
int search_pool_stage(search_pool *p, scheme_rng *rng, int n, search_pool_visit visit, void *ctx, int *level,
                      int *level_count);

#endif
