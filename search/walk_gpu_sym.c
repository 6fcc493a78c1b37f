/* The GPU backend of the engine for symmetric walks (docs/gpu-walk.md,
 * "Symmetric walks"): one thread per walker walks cuda/walk_sym_core.h, the
 * lazy walk of search/walker_sym.c with the symmetric defaults (every walk
 * starts over from the start, as Moosbauer and Poole's program does).
 *
 * One host thread launches, reads every walker's scalars, offers the scheme
 * of the walker with the lowest rank below the run's best (the engine
 * verifies it on the CPU before it is kept or reported), and sizes the next
 * launch to take about launch_ms.  A walker copies its scheme on the device
 * only at a new lowest rank below the run's best at its launch, so only
 * improvements cross the bus. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/fg_cuda.h"
#include "engine.h"
#include "walk_gpu.h"
#include "walk_gpu_one.h"

typedef struct sym_backend {
    gpu_one g; /* first: gpu_one_stats and gpu_one_join take the backend */
    cuda_sym *cs;
    int order, ocap;
    wsym_state *st;
    uint64_t *reps, *fixed;
} sym_backend;

static bool sym_setup(engine *e, void *ctx)
{
    sym_backend *b = ctx;
    b->g.e = e;
    const search_params *p = b->g.p;
    if (engine_nstarts(e) != 1) {
        engine_fail(e, SEARCH_BAD_PARAMS, "the symmetric GPU walk starts from one scheme (%d given)",
                    engine_nstarts(e));
        return false;
    }
    const scheme *start = engine_start_scheme(e, 0);
    b->order = scheme_symmetry_order((scheme_symmetry)p->symmetry);
    /* room as the CPU walker has it (driver.c): the start, plus_max, a margin */
    const int cap = engine_max_start_rank(e) + p->plus_max + 8;
    /* the terms the involution fixes and the shift moves walk as half orbits
     * (search_symmetric_halves; cuda/walk_sym_core.h) */
    search_symmetric_parts parts;
    const search_parts_status st = search_symmetric_parts_make(start, (scheme_symmetry)p->symmetry, &parts);
    if (st != SEARCH_PARTS_OK) {
        const bool oom = st == SEARCH_PARTS_NO_MEMORY;
        engine_fail(e, oom ? SEARCH_FAILED : SEARCH_BAD_PARAMS, "%s",
                    oom ? "out of memory" : "the start scheme is not invariant");
        return false;
    }
    const int norbits = parts.norbits, nfixed = parts.nfixed, nhalf = parts.nhalf;
    /* every walker descends from this start (cuda/walk_sym_core.h) */
    b->ocap = wsym_orbit_slots(cap, b->order, nhalf);
    const scheme_symmetry g = (scheme_symmetry)p->symmetry;
    const int cuda_g = scheme_symmetry_has_c2(g) ? 2 : 1; /* cuda_sym_config's group */
    if (!wsym_layout_fits(cuda_g, b->ocap)) {
        search_symmetric_parts_free(&parts);
        engine_fail(e, SEARCH_BAD_PARAMS, "the symmetric GPU walk indexes at most %d entries a walker: start rank %d "
                    "and --plus-max %d need more (the CPU walk has no such bound)", WSYM_IX_MAX,
                    engine_max_start_rank(e), p->plus_max);
        return false;
    }
    if (norbits < 1) {
        search_symmetric_parts_free(&parts);
        engine_fail(e, SEARCH_BAD_PARAMS, "the start scheme has no free orbit: nothing to walk");
        return false;
    }
    cuda_sym_config cfg = {0,        b->g.warps, b->g.device, p->seed, cuda_g,
                           p->fmt.n, b->ocap,    parts.reps,  norbits, parts.fixed,
                           nfixed,   scheme_symmetry_swaps(g, p->fmt.n), parts.half, nhalf};
    char err[256];
    const int rc = cuda_sym_create(&cfg, &b->cs, err, sizeof err);
    search_symmetric_parts_free(&parts);
    if (rc) {
        engine_fail(e, rc == 2 ? SEARCH_BAD_PARAMS : SEARCH_FAILED, "GPU %d: %s", b->g.device, err);
        return false;
    }
    b->g.walkers = cuda_sym_walkers(b->cs);
    b->st = calloc((size_t)b->g.walkers, sizeof *b->st);
    b->g.ranks = calloc((size_t)b->g.walkers, sizeof *b->g.ranks);
    b->reps = malloc((size_t)b->ocap * 3 * sizeof *b->reps);
    b->fixed = malloc((size_t)(nfixed + 3 * nhalf + WSYM_FIXED_EXTRA) * 3 * sizeof *b->fixed);
    if (!b->st || !b->g.ranks || !b->reps || !b->fixed) {
        engine_fail(e, SEARCH_FAILED, "out of memory");
        return false;
    }
    return true;
}

static void *sym_thread(void *arg)
{
    sym_backend *b = arg;
    engine *e = b->g.e;
    const search_params *p = b->g.p;
    scheme_rng rng;
    scheme_rng_seed(&rng, p->seed ^ 0x243F6A8885A308D3ull);
    wsym_params P = {p->walk_len, p->plateau, p->plus_max, p->target_rank, INT_MAX, p->weight_bias,
                     p->weight_bias_max};
    uint64_t n = 4096; /* flips per walker per launch: sized to take about launch_ms */
    char err[256];
    while (!engine_should_stop(e)) {
        const int best = engine_best_rank(e);
        P.report_below = best > 0 ? best : INT_MAX;
        double ms = 0;
        if (cuda_sym_run(b->cs, &P, n, &ms, err, sizeof err) || cuda_sym_states(b->cs, b->st, err, sizeof err)) {
            engine_fail(e, SEARCH_FAILED, "GPU %d: %s", b->g.device, err);
            break;
        }
        engine_stats tot = {0};
        int low = -1;
        for (int i = 0; i < b->g.walkers; i++) {
            const wsym_state *s = &b->st[i];
            tot.flips += s->flips;
            tot.plus += s->plus;
            tot.reductions += s->reductions;
            tot.restarts += s->restarts;
            tot.undone += s->undone;
            if (s->failed) {
                engine_fail(e, SEARCH_FAILED, "BUG: symmetric GPU walker %d ran out of slots", i);
                break;
            }
            if (s->best_rank < P.report_below && (low < 0 || s->best_rank < b->st[low].best_rank))
                low = i;
        }
        gpu_one_publish(&b->g, &tot, &b->st[0].rank, sizeof *b->st);
        if (low >= 0 && best > 0 && b->st[low].best_rank < engine_best_rank(e)) {
            if (cuda_sym_best(b->cs, low, &b->st[low], b->reps, b->fixed, err, sizeof err)) {
                engine_fail(e, SEARCH_FAILED, "GPU %d: %s", b->g.device, err);
                break;
            }
            scheme *s = search_symmetric_join(p->fmt, (scheme_symmetry)p->symmetry, b->reps,
                                              b->st[low].best_norbits, b->fixed, b->st[low].best_nfixed);
            if (!s) {
                engine_fail(e, SEARCH_FAILED, "out of memory");
                break;
            }
            const int rc = engine_offer(e, low, s, &rng);
            scheme_free(s);
            if (rc < 0)
                break;
        }
        n = gpu_one_next_steps(&b->g, n, ms);
    }
    engine_thread_end(e);
    return NULL;
}

static bool sym_start(engine *e, void *ctx)
{
    sym_backend *b = ctx;
    return gpu_one_start(e, &b->g, sym_thread, b);
}

static void sym_walker_name(void *ctx, int walker, char *buf, size_t len)
{
    sym_backend *b = ctx;
    snprintf(buf, len, "symmetric GPU walker %d (GPU %d)", walker, b->g.device);
}

search_status search_run_gpu_sym(const search_params *p, const search_gpu_options *o, const scheme *const *starts,
                                 int nstarts, const search_callbacks *cb, search_result *res)
{
    search_gpu_options od;
    if (!(o = gpu_one_begin(p, o, &od, res)))
        return res->status;
    if (p->symmetry == SCHEME_SYM_T2) {
        snprintf(res->msg, sizeof res->msg,
                 "the symmetric GPU walk is c3 and c3xc2 only: t2 walks on the CPU (--backend cpu)");
        return res->status;
    }
    if (p->gen_max != 1 || p->pool_fresh != 1 || !p->isolated_plus) {
        snprintf(res->msg, sizeof res->msg,
                 "the symmetric GPU walk is the lazy walk that starts every walk over: gen-max 1, pool-fresh 1, "
                 "isolated-plus 1 (the symmetric defaults; --backend cpu walks the others)");
        return res->status;
    }
    sym_backend b;
    memset(&b, 0, sizeof b);
    if (!gpu_one_init(&b.g, p, o, "the symmetric GPU walk", res))
        return res->status;
    const engine_backend eb = {"gpu", &b, sym_setup, sym_start, gpu_one_stats, gpu_one_join, sym_walker_name};
    engine_run_beside(p, o->beside, starts, nstarts, cb, &eb, res);
    cuda_sym_destroy(b.cs);
    free(b.st);
    free(b.reps);
    free(b.fixed);
    gpu_one_free(&b.g);
    return res->status;
}
