/* search: the GPU backend's own knobs (docs/gpu-walk.md).
 *
 * search_run_gpu(p, ...) is search_run_gpu_opts(p, NULL, ...): the defaults
 * below.  The walk parameters shared with the CPU engine (plateau, plus_max,
 * walk_len, gen_max, pool) come from search_params; these are the GPU's own.
 */
#ifndef FLIPGRAPH_SEARCH_WALK_GPU_H
#define FLIPGRAPH_SEARCH_WALK_GPU_H

#include "search.h"

/* The GPU's defaults for the shared walk parameters are search/params.def's
 * gpu column (docs/gpu-walk.md, "Defaults": measured on an H100, <4,4,4> from
 * the standard algorithm).  The GPU's plateau counts steps (a step takes up
 * to 4 flips) and does not adapt: at a hard level the CPU's adaptive plateau
 * sits at its floor (plateau_min, 2000 flips), and a GPU plateau of 20000
 * steps made plus transitions so rare that <4,4,4> never left rank 49
 * (bench/RESULTS.md, "the plateau"). */
#define SEARCH_GPU_DEFAULT_IDLE_PLUS 32

/* The defaults; warps, rounds and launch_ms from params.def. */
void search_gpu_options_default(search_gpu_options *o);

/* The shared walk parameters the GPU runs with: p, where o->gpu_defaults is set
 * and a field holds the CPU default, with params.def's gpu column instead (the
 * plateau bounds follow the plateau). */
void search_gpu_params(const search_params *p, const search_gpu_options *o, search_params *q);

/* The symmetric walk on the GPU (walk_gpu_sym.c), where search_run_gpu goes
 * when p->symmetry is set: one GPU, the symmetric defaults' lazy walk. */
search_status search_run_gpu_sym(const search_params *p, const search_gpu_options *o, const scheme *const *starts,
                                 int nstarts, const search_callbacks *cb, search_result *res);

/* The walk over Z on the GPU (walk_gpu_z.c), where search_run_gpu goes when
 * p->ring is z: one GPU, coefficients in {-1, 0, 1} (--coef-max 1). */
search_status search_run_gpu_z(const search_params *p, const search_gpu_options *o, const scheme *const *starts,
                               int nstarts, const search_callbacks *cb, search_result *res);
/* A Z scheme as the GPU walk over Z holds it (cuda/walk_z_core.h's planes,
 * terms [cap][6], zero past its rank); false when a coefficient is not in
 * {-1, 0, 1} or the rank passes cap. */
bool search_gpu_z_pack(const scheme *s, int cap, uint64_t *terms);
/* The Z scheme of rank terms in those planes; NULL when out of memory. */
scheme *search_gpu_z_unpack(scheme_format f, const uint64_t *terms, int rank);

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
    uint64_t siblings;      /* of those pooled, failed walks' schemes (search_params.siblings) */
    uint64_t improvements;  /* of those, a rank below the run's best so far */
    uint64_t refreshes;     /* uploads of the shared pool to the set's device pool */
    uint64_t undone;        /* flips undone by the degree or weight bias (search_params.degree_bias, weight_bias) */
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
