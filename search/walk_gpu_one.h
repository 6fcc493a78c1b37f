/* search: what the one-GPU backends of the engine share (walk_gpu_sym.c, the
 * symmetric walk; walk_gpu_z.c, the walk over Z).  Each is one host thread
 * that launches a kernel of walkers, reads their scalars, offers schemes to
 * the engine and sizes the next launch; this is that thread's frame: the
 * options they take, the counters and ranks the progress rows read, the
 * thread's start and join, and the launch sizing.  A backend's struct holds a
 * gpu_one as its first member, so that gpu_one_stats and gpu_one_join serve
 * as its engine_backend's stats and join. */
#ifndef FLIPGRAPH_SEARCH_WALK_GPU_ONE_H
#define FLIPGRAPH_SEARCH_WALK_GPU_ONE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "engine.h"

typedef struct gpu_one {
    engine *e;
    const search_params *p;
    double launch_ms;
    int warps, device;
    int walkers;
    int32_t *ranks;           /* the walkers' ranks after the last launch, for the progress spread */
    pthread_mutex_t mu;       /* guards ranks */
    pthread_t th;
    bool started;
    _Atomic uint64_t flips, plus, reductions, restarts, undone;
} gpu_one;

/* The start of a one-GPU backend's search_run_gpu_*: res cleared with status
 * BAD_PARAMS (what it keeps until the run starts), o or else the defaults
 * written to *od, and p checked (search_params_check).  Returns the options to
 * use; NULL where p is refused, res->msg saying why. */
const search_gpu_options *gpu_one_begin(const search_params *p, const search_gpu_options *o, search_gpu_options *od,
                                        search_result *res);
/* Checks o for a walk on one GPU and fills g (the device: o's one device, else
 * p->device); false with the reason in res->msg (status BAD_PARAMS) naming
 * `walk` ("the symmetric GPU walk"). */
bool gpu_one_init(gpu_one *g, const search_params *p, const search_gpu_options *o, const char *walk,
                  search_result *res);
/* Starts fn(arg) as the backend's thread (engine_thread_begin/end around it:
 * fn calls engine_thread_end when it returns). */
bool gpu_one_start(engine *e, gpu_one *g, void *(*fn)(void *), void *arg);
/* After a launch: the totals over the walkers (the counters of engine_stats;
 * its other fields unused), and their ranks read from nwalkers states of
 * `stride` bytes whose rank field is at rank0. */
void gpu_one_publish(gpu_one *g, const engine_stats *totals, const int32_t *rank0, size_t stride);
/* The steps per walker of the next launch, from this one's n steps in ms. */
uint64_t gpu_one_next_steps(const gpu_one *g, uint64_t n, double ms);
/* engine_backend's stats and join; ctx: the backend, its first member a gpu_one. */
void gpu_one_stats(void *ctx, engine_stats *st);
void gpu_one_join(void *ctx);
/* Frees ranks and the mutex. */
void gpu_one_free(gpu_one *g);

#endif
