/* search: the engine, the one loop every backend runs in (internal to search/;
 * the interface is search.h; docs/search.md, "The engine and its backends").
 *
 * The engine owns what a search is, whatever walks:
 *   - the start schemes: verified over GF(2), reduced (every reduction taken),
 *     pooled; a start with reductions left is already an improvement;
 *   - the pool (pool.c) and its restart policy (docs/search.md, "Restarts");
 *   - the run's best and the improvement hand-off: every scheme a backend
 *     offers is verified with verify_f2 (verify_z over Z) *here* before it is
 *     pooled or reported;
 *     one that fails ends the run with SEARCH_FAILED ("BUG: ... does not
 *     verify") and is neither pooled nor reported; each new best reaches
 *     cb->improved exactly once, serialized, in strictly decreasing rank order;
 *   - the stop conditions: target rank, time limit, flip budget (max_flips),
 *     search_request_stop (res->interrupted), failure;
 *   - the progress rows (one function fills search_progress for any backend
 *     from the counters its stats() returns) and the result.
 *
 * A backend only walks.  It is a struct of function pointers and a context:
 *
 *   setup(e, ctx)   optional: creates its walkers (CPU walker objects, GPU walk
 *                   objects and their device pools, MPI ranks...) but does not
 *                   walk yet; the run's clock starts after it.  false: it
 *                   called engine_fail first (nothing was started).
 *   start(e, ctx)   starts its threads.  Every thread calls engine_thread_begin
 *                   before it is created (from start) and engine_thread_end
 *                   as its very last engine call; each walks until
 *                   engine_should_stop(e) (or its own budget runs out), calls
 *                   engine_offer for every scheme below its walk's base rank
 *                   (and, by search_params.siblings, the schemes its failed
 *                   walks end with at the level), restarts with engine_restart
 *                   (CPU walkers) or stages its device pool with engine_stage
 *                   (GPU).  false: engine_fail was called; threads already
 *                   started are waited for and joined all the same.
 *   stats(ctx, st)  adds its totals since the start to *st (flips, plus,
 *                   reductions, restarts), sets st->plateau and st->devices,
 *                   and, when st->rank_count is not NULL, counts its walkers'
 *                   current ranks there (st->walkers: how many it counted).
 *                   Called at any time from any thread (the engine's monitor,
 *                   or inside engine_offer for search_found.flips): it must
 *                   not call into the engine and must not block for long
 *                   (atomics or a short lock).
 *   join(ctx)       joins its threads (after every one called
 *                   engine_thread_end); called once when start was called.
 *   walker_name     optional: how a diagnostic names walker `walker`
 *                   ("GPU walker 5 (GPU 0)"); NULL: "walker N".
 *
 * The context belongs to the caller, who frees it after engine_run (and may
 * read per-backend statistics from it then).  Walker ids (search_found.walker)
 * are the backend's: CPU threads 0..threads-1; GPU warps numbered across sets.
 * Nothing here sits in a walk's hot path: a backend calls the engine per batch
 * (engine_should_stop), per improvement (engine_offer) and per restart.
 *
 * MPI (search/mpi.c, docs/cluster.md) is a layer around whichever backend
 * walks (engine_layer below): every rank runs the engine with its own CPU or
 * GPU backend, and the layer's one thread carries schemes between the ranks'
 * engines: a worker rank forwards what its engine kept (layer.kept), rank 0
 * offers what arrives to its own engine (engine_offer_remote: verified again
 * there, then pooled and reported to the store) and sends samples of its pool
 * (engine_stage) and the stop back; stats adds the counters the ranks last
 * sent.  No second copy of the walk.
 */
#ifndef FLIPGRAPH_SEARCH_ENGINE_H
#define FLIPGRAPH_SEARCH_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "search.h"

typedef struct engine engine;

/* What stats() reports; the engine zeroes it (and rank_count) before the call. */
typedef struct engine_stats {
    uint64_t flips, plus, reductions, restarts; /* totals over all walkers since the start */
    uint64_t undone;    /* flips the degree or weight bias undid (counted in flips too) */
    uint64_t siblings;  /* failed walks' schemes the pool took (search_params.siblings) */
    uint64_t plateau;   /* the progress row's plateau L: walker 0's (CPU), the fixed one (GPU) */
    int devices;        /* GPUs walking; 0: CPU threads */
    int walkers;        /* walkers counted in rank_count */
    int *rank_count;    /* [SCHEME_MAX_RANK + 1] walkers per current rank (clamp to the ends); NULL:
                           counters only */
} engine_stats;

typedef struct engine_backend {
    const char *name;   /* "cpu", "gpu": diagnostics */
    void *ctx;
    bool (*setup)(engine *e, void *ctx);
    bool (*start)(engine *e, void *ctx);
    void (*stats)(void *ctx, engine_stats *st);
    void (*join)(void *ctx);
    void (*walker_name)(void *ctx, int walker, char *buf, size_t len);
} engine_backend;

/* A layer around the backend (the MPI ranks, search/mpi.c): process-wide, like
 * search_request_stop, since MPI is.  Each call is optional.
 *   start(e, ctx)  after the backend's start: its own threads, each between
 *                  engine_thread_begin and _end like a backend's (so the run
 *                  ends only after they end); false: engine_fail was called.
 *   stats(ctx, st) adds what it knows (other processes' counters) after the
 *                  backend's stats; the same rules as engine_backend.stats.
 *   join(ctx)      after the backend's join, when start was called.
 *   kept(ctx, walker, s, what)  every scheme a walker of this process offered
 *                  that the engine pooled or reported (what: ENGINE_* bits),
 *                  after it verified; from the offering thread, outside the
 *                  engine's locks; must not block (copy s).  Not called for
 *                  engine_offer_remote's schemes. */
typedef struct engine_layer {
    const char *name;
    void *ctx;
    bool (*start)(engine *e, void *ctx);
    void (*stats)(void *ctx, engine_stats *st);
    void (*join)(void *ctx);
    void (*kept)(void *ctx, int walker, const scheme *s, int what);
} engine_layer;
/* Every engine_run from now on runs with layer l (NULL: none); l must live
 * until the runs end. */
void engine_set_layer(const engine_layer *l);

/* Runs a search on backend b: starts (none: the standard algorithm), pool,
 * monitor, result.  Fills *res as search_run_cpu documents; returns res->status. */
search_status engine_run(const search_params *p, const scheme *const *starts, int nstarts,
                         const search_callbacks *cb, const engine_backend *b, search_result *res);

/* engine_run with CPU walkers beside backend b (search/driver.c;
 * --host-threads, docs/search.md "CPU walkers beside the GPU"): when
 * p->host_threads > 0 and beside is not NULL, beside->threads CPU walkers
 * walk with beside's walk settings (plateau and its bounds, walk-len,
 * walk-max, gen-max, plus-max, isolated-plus, batch) and everything else of
 * p, ids from SEARCH_BESIDE_WALKER0, in the same engine (one pool, one best,
 * the stop conditions over all walkers; the progress rows count both, the
 * plateau and devices are b's).  Otherwise engine_run. */
search_status engine_run_beside(const search_params *p, const search_params *beside, const scheme *const *starts,
                                int nstarts, const search_callbacks *cb, const engine_backend *b,
                                search_result *res);

/* ---- for backends -------------------------------------------------------- */

const search_params *engine_params(const engine *e);
/* true once the run ends (target, time, flip budget, request, failure): walkers
 * finish their batch and return.  One atomic load. */
bool engine_should_stop(const engine *e);
/* Ends the run with status st (SEARCH_FAILED, SEARCH_BAD_PARAMS) and a message;
 * the first failure's message is kept. */
void engine_fail(engine *e, search_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void engine_thread_begin(engine *e);
void engine_thread_end(engine *e);
/* Seconds since the run's clock started (after setup). */
double engine_elapsed(const engine *e);
int engine_best_rank(const engine *e);

/* The start schemes, verified and reduced (the pool's first members). */
int engine_nstarts(const engine *e);
const scheme *engine_start_scheme(const engine *e, int i);
/* The largest start rank before reduction (the pool's top rank; walkers' caps derive from it). */
int engine_max_start_rank(const engine *e);

/* What engine_offer did (bits); negative: the scheme did not verify, or the
 * run has failed, or memory ran out (the run ends; nothing was kept). */
enum { ENGINE_POOLED = 1, ENGINE_IMPROVED = 2, ENGINE_ISOLATED = 4 };
/* A scheme from walker `walker` (any thread; s is not taken): verified over
 * GF(2) first; pooled unless flip-isolated (no two terms share a factor:
 * reported when a new best, never pooled: a dead end for walks) or a
 * duplicate; reported through cb->improved when it beats the run's best
 * (then the target is checked).  rng: the walker's own stream, for the
 * pool's replacement draws (so a one-thread run replays). */
int engine_offer(engine *e, int walker, const scheme *s, scheme_rng *rng);

/* engine_offer for a scheme another process found (its MPI rank `node` and
 * that process's walker id): verified and kept the same way; cb->improved
 * sees search_found.node; the layer's kept is not called (no echo). */
int engine_offer_remote(engine *e, int node, int walker, const scheme *s, scheme_rng *rng);
/* Ends the run as a met stop condition does (not a failure, not interrupted):
 * another process decided (the MPI stop). */
void engine_stop(engine *e);
/* A copy of the run's best scheme (caller frees); NULL when out of memory. */
scheme *engine_best(engine *e);
/* This process's backend's counters alone (the layer's left out): what a
 * worker rank sends to rank 0.  st as engine_backend.stats fills it (zero it
 * and rank_count first). */
void engine_local_stats(engine *e, engine_stats *st);
/* The first failure's message; NULL while the run has not failed. */
const char *engine_failure(engine *e);

/* The restart policy (pool.c, docs/search.md "Restarts"): resets w to a scheme
 * drawn from walker `walker`'s pool (its island's, search_params.islands;
 * engine_offer pools there too); returns its rank, -1 when the pool is empty. */
int engine_restart(engine *e, int walker, scheme_rng *rng, search_walker *w);
/* The same policy for a pool that lives elsewhere (the GPU's device pool; the
 * first island's, and the GPU backend has one):
 * up to n entries, each visit(ctx, i, s) under the pool's lock (copy s there),
 * such that a uniform draw among the entries follows the restart policy.
 * Returns the entries staged; *level, *level_count: the level and its schemes. */
int engine_stage(engine *e, scheme_rng *rng, int n, void (*visit)(void *ctx, int i, const scheme *s),
                 void *ctx, int *level, int *level_count);
/* Changes whenever a scheme joins the pool (a device copy is stale when it differs). */
uint64_t engine_pool_version(engine *e);
/* The level of walker `walker`'s pool (its island's) and its schemes there. */
int engine_pool_level(engine *e, int walker, int *count);
/* Whether a walk that failed at the pool's level, which holds level_count
 * schemes, offers its scheme (a sibling; search_params.siblings, docs/search.md,
 * "Siblings"): while the level has room (1) or always (2: a full level
 * replaces a random member, so the walks' chains go on where they ended).
 * The CPU walkers (driver.c) and the GPU's launches (walk_gpu.c) both ask here. */
bool engine_siblings_open(const search_params *p, int level_count);
/* Schemes the pools hold at rank r, all islands together (tests). */
int engine_pool_count(engine *e, int r);
/* Schemes island `island` holds at rank r (tests; 0 outside 0..islands-1). */
int engine_island_count(engine *e, int island, int r);

#endif
