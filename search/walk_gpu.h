/* search: the GPU backend's own knobs (issue 5; docs/gpu-walk.md).
 *
 * search_run_gpu(p, ...) is search_run_gpu_opts(p, NULL, ...): the defaults
 * below.  The walk parameters shared with the CPU engine (plateau, plus_max,
 * walk_len, gen_max, pool) come from search_params; these are the GPU's own.
 */
#ifndef FLIPGRAPH_SEARCH_WALK_GPU_H
#define FLIPGRAPH_SEARCH_WALK_GPU_H

#include "search.h"

typedef struct search_gpu_options {
    int warps;          /* walkers (one warp each); 0: as many as the device runs at once */
    int rounds;         /* __match_any_sync rounds per step (k of seed 004) */
    int mix_every;      /* steps between rotations of one slot across lanes; 0: never */
    int store;          /* CUDA_WALK_STORE_*: 0 auto (registers up to rank 128) */
    uint32_t steps;     /* steps per launch; 0: adapt so that a launch takes about launch_ms */
    double launch_ms;
    int check;          /* checking mode: walkers whose current scheme is verified after every launch */
    bool check_pairs;   /* after each flip, reduce any pair the two changed terms form at once */
    uint32_t idle_plus; /* empty steps in a row before a plus transition (or a restart); 0: never */
    bool verbose;       /* a line per launch on stderr */
} search_gpu_options;

void search_gpu_options_default(search_gpu_options *o);

/* search_run_gpu with the GPU's own options (NULL: the defaults). */
search_status search_run_gpu_opts(const search_params *p, const search_gpu_options *o,
                                  const scheme *const *starts, int nstarts,
                                  const search_callbacks *cb, search_result *res);

#endif
