/* search: the GPU backend's own knobs (docs/gpu-walk.md).
 *
 * search_run_gpu(p, ...) is search_run_gpu_opts(p, NULL, ...): the defaults
 * below.  The walk parameters shared with the CPU engine (plateau, plus_max,
 * walk_len, gen_max, pool) come from search_params; these are the GPU's own.
 */
#ifndef FLIPGRAPH_SEARCH_WALK_GPU_H
#define FLIPGRAPH_SEARCH_WALK_GPU_H

#include "search.h"

#define SEARCH_GPU_MAX_DEVICES 16

typedef struct search_gpu_options {
    int warps;          /* walkers (one warp each); 0: as many as the device runs at once */
    int rounds;         /* __match_any_sync rounds per step (k of the Flip-graph post) */
    int mix_every;      /* steps between rotations of one slot across lanes; 0: never */
    int store;          /* CUDA_WALK_STORE_*: 0 auto (registers up to rank 128) */
    uint32_t steps;     /* steps per launch (exact replay of a seed); 0: launches of launch_ms */
    double launch_ms;
    bool timed;         /* with steps 0: every walker walks launch_ms per launch, bounded by its
                           clock (cuda_walk_config.launch_us; no launch tail); false: the step
                           count adapts so that a launch takes about launch_ms (the slowest
                           walker's time: the others wait at the end) */
    int check;          /* checking mode: walkers whose current scheme is verified after every launch */
    bool check_pairs;   /* after each flip, reduce any pair the two changed terms form at once */
    uint32_t idle_plus; /* empty steps in a row before a plus transition (or a restart); 0: never */
    bool isolated_restart; /* idle_plus empty steps end the walk (restart) rather than a plus */
    bool verbose;       /* a line per launch on stderr */
    bool collect;       /* walks ending at the level without improving pool their scheme (siblings) */
    /* --devices: one walker set per listed GPU, one pool and one
     * store for all; ndevices 0: search_params.device alone.  A GPU may be
     * listed twice (two walker sets on one device: the multi-GPU path tested
     * on a one-GPU machine). */
    int ndevices;
    int devices[SEARCH_GPU_MAX_DEVICES];
    /* true (the default): a search_params field left at the CPU engine's
     * default (SEARCH_DEFAULT_*) takes the GPU's measured default below
     * instead; false: search_params as given (benchmarks sweeping them). */
    bool gpu_defaults;
} search_gpu_options;

/* The GPU's own defaults for the shared walk parameters (docs/gpu-walk.md,
 * "Defaults": measured on an H100, <4,4,4> from the standard algorithm).
 * Applied per field when the caller left the CPU default there.  The GPU's
 * plateau counts steps (a step takes up to 4 flips) and does not adapt: at a
 * hard level the CPU's adaptive plateau sits at its floor (plateau_min, 2000
 * flips), and a GPU plateau of 20000 steps made plus transitions so rare that
 * <4,4,4> never left rank 49 (bench/RESULTS.md, "the plateau"). */
#define SEARCH_GPU_DEFAULT_PLATEAU 500
#define SEARCH_GPU_DEFAULT_PLUS_MAX 2
#define SEARCH_GPU_DEFAULT_POOL_MIN 4
#define SEARCH_GPU_DEFAULT_WALK_LEN 1000000
#define SEARCH_GPU_DEFAULT_IDLE_PLUS 32

void search_gpu_options_default(search_gpu_options *o);

/* The shared walk parameters the GPU runs with: p, where o->gpu_defaults is set
 * and a field holds the CPU default, with the GPU's default above instead. */
void search_gpu_params(const search_params *p, const search_gpu_options *o, search_params *q);

/* search_run_gpu with the GPU's own options (NULL: the defaults). */
search_status search_run_gpu_opts(const search_params *p, const search_gpu_options *o,
                                  const scheme *const *starts, int nstarts,
                                  const search_callbacks *cb, search_result *res);

/* What each walker set did (docs/gpu-walk.md, "Several GPUs").
 * Set k walks on devices[k] (search_params.device when ndevices is 0); its
 * warps are walkers first_walker .. first_walker + walkers - 1 in
 * search_found.walker.  The sets' flips, plus, reductions and restarts add up
 * to search_result's; their improvements to search_result.improvements. */
typedef struct search_gpu_set_stats {
    int device;
    int walkers, first_walker;
    uint64_t seed;          /* the set's kernel seed: search_params.seed for set 0, derived for the others */
    uint64_t flips, plus, reductions, restarts;
    uint64_t returned;      /* schemes the set returned (each verified before anything else) */
    uint64_t pooled;        /* of those, new to the shared pool */
    uint64_t improvements;  /* of those, a rank below the run's best so far */
    uint64_t refreshes;     /* uploads of the shared pool to the set's device pool */
} search_gpu_set_stats;

typedef struct search_gpu_stats {
    int sets;
    search_gpu_set_stats set[SEARCH_GPU_MAX_DEVICES];
    uint64_t pool_added;    /* schemes the shared pool took in all, the starts included */
} search_gpu_stats;

/* search_run_gpu_opts that also fills *st (NULL: not). */
search_status search_run_gpu_stats(const search_params *p, const search_gpu_options *o,
                                   const scheme *const *starts, int nstarts,
                                   const search_callbacks *cb, search_result *res, search_gpu_stats *st);

#endif
