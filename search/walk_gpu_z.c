/* The GPU backend of the engine for walks over Z (docs/gpu-walk.md, "Walks
 * over Z"): one thread per walker walks cuda/walk_z_core.h, the moves of
 * search/walker_z.c with coefficients in {-1, 0, 1} (--coef-max 1; larger
 * bounds walk on the CPU).
 *
 * The policy is the engine's, as for the GF(2) GPU walk (walk_gpu.c): a walk
 * that goes walk_len steps without a lower rank starts over from a random
 * scheme of the device's start schemes, which the host stages from the pool
 * by the engine's restart policy (engine_stage; docs/search.md, "Restarts")
 * whenever a scheme joins the pool.
 *
 * One host thread launches, reads every walker's scalars, offers the best
 * scheme of up to ZB_OFFERS walkers a launch, lowest rank first, among those
 * whose walk reached the run's best rank or below since they last offered
 * (the engine verifies each over Z on the CPU before it is pooled, reported
 * or stored: a lower rank is an improvement, one at the best rank a sibling
 * for the pool), and sizes the next launch to take about launch_ms.  A walker
 * copies its scheme on the device only at a new lowest rank of its walk at
 * or below the run's best, so little crosses the bus. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/fg_cuda.h"
#include "engine.h"
#include "walk_gpu.h"
#include "walk_gpu_one.h"

#define ZB_OFFERS 16 /* schemes offered per launch at most */
#define ZB_STAGE 64  /* start schemes staged from the pool */

typedef struct z_backend {
    gpu_one g; /* first: gpu_one_stats and gpu_one_join take the backend */
    int cap;
    cuda_wz *cz;
    wz_state *st;
    uint64_t *terms;          /* one walker's best terms, [cap][6] */
    int32_t *offered_walk, *offered_rank; /* per walker: the walk and rank it last offered */
    int *cand;                /* walkers to offer, [walkers] */
    uint64_t *stage;          /* [ZB_STAGE][cap][6]: the start schemes being staged */
    int32_t stage_rank[ZB_STAGE];
    bool stage_bad;           /* a pool scheme did not pack (a bug: the pool holds walk results) */
    uint64_t pool_seen;       /* engine_pool_version at the last staging */
    scheme_rng rng;
} z_backend;

bool search_gpu_z_pack(const scheme *s, int cap, uint64_t *terms)
{
    if (s->ring != SCHEME_RING_Z || s->rank > cap)
        return false;
    memset(terms, 0, (size_t)cap * WZ_TERM_WORDS * sizeof *terms);
    for (int r = 0; r < s->rank; r++)
        for (int pos = 0; pos < 3; pos++)
            if (!wz_pack(s->zterms[r].z[pos], scheme_factor_size(s->fmt, pos), &terms[r * WZ_TERM_WORDS + 2 * pos],
                         &terms[r * WZ_TERM_WORDS + 2 * pos + 1]))
                return false;
    return true;
}

scheme *search_gpu_z_unpack(scheme_format f, const uint64_t *terms, int rank)
{
    scheme *s = scheme_new(f, SCHEME_RING_Z, rank > 0 ? rank : 1);
    if (!s)
        return NULL;
    for (int r = 0; r < rank; r++) {
        scheme_zterm t;
        memset(&t, 0, sizeof t);
        for (int pos = 0; pos < 3; pos++)
            wz_unpack(terms[r * WZ_TERM_WORDS + 2 * pos], terms[r * WZ_TERM_WORDS + 2 * pos + 1],
                      scheme_factor_size(f, pos), t.z[pos]);
        if (!scheme_push_z(s, &t)) {
            scheme_free(s);
            return NULL;
        }
    }
    return s;
}

static void z_stage_visit(void *ctx, int i, const scheme *s)
{
    z_backend *b = ctx;
    b->stage_rank[i] = s->rank;
    if (!search_gpu_z_pack(s, b->cap, b->stage + (size_t)i * (size_t)b->cap * WZ_TERM_WORDS))
        b->stage_bad = true;
}

/* Stages the pool as the device's start schemes (n: how many, 0 on failure,
 * engine_fail called). */
static int z_stage(z_backend *b)
{
    int level = -1, level_count = 0;
    b->pool_seen = engine_pool_version(b->g.e);
    b->stage_bad = false;
    const int n = engine_stage(b->g.e, &b->rng, ZB_STAGE, z_stage_visit, b, &level, &level_count);
    if (n <= 0 || b->stage_bad) {
        engine_fail(b->g.e, SEARCH_FAILED, "%s",
                    n < 0    ? "out of memory"
                    : n == 0 ? "BUG: the pool is empty"
                             : "BUG: a pool scheme is not in {-1, 0, 1}");
        return 0;
    }
    return n;
}

static bool z_setup(engine *e, void *ctx)
{
    z_backend *b = ctx;
    b->g.e = e;
    const search_params *p = b->g.p;
    const int n = engine_nstarts(e);
    /* room as the CPU walker has it (driver.c): the start, plus_max, a margin */
    b->cap = engine_max_start_rank(e) + p->plus_max + 8;
    b->stage = calloc((size_t)ZB_STAGE * (size_t)b->cap * WZ_TERM_WORDS, sizeof *b->stage);
    if (!b->stage) {
        engine_fail(e, SEARCH_FAILED, "out of memory");
        return false;
    }
    for (int i = 0; i < n; i++) {
        const scheme *s = engine_start_scheme(e, i);
        if (!search_gpu_z_pack(s, b->cap, b->stage)) {
            engine_fail(e, SEARCH_BAD_PARAMS,
                        "start %d has a coefficient %d: the GPU walk over Z holds coefficients in {-1, 0, 1} "
                        "(give --backend cpu)",
                        i + 1, search_z_max_coef(s));
            return false;
        }
    }
    const int staged = z_stage(b);
    if (!staged)
        return false;
    /* the kernel: FLIPGRAPH_WZ_KERNEL, else the warp kernel where the terms fit (fg_cuda.h) */
    cuda_wz_config cfg = {0, b->g.warps, b->g.device, p->seed, b->cap, b->stage, b->stage_rank, staged,
                          CUDA_WZ_AUTO};
    char err[256];
    const int rc = cuda_wz_create(&cfg, &b->cz, err, sizeof err);
    if (rc) {
        engine_fail(e, rc == 2 ? SEARCH_BAD_PARAMS : SEARCH_FAILED, "GPU %d: %s", b->g.device, err);
        return false;
    }
    b->g.walkers = cuda_wz_walkers(b->cz);
    b->st = calloc((size_t)b->g.walkers, sizeof *b->st);
    b->g.ranks = calloc((size_t)b->g.walkers, sizeof *b->g.ranks);
    b->offered_walk = calloc((size_t)b->g.walkers, sizeof *b->offered_walk);
    b->offered_rank = calloc((size_t)b->g.walkers, sizeof *b->offered_rank);
    b->cand = calloc((size_t)b->g.walkers, sizeof *b->cand);
    b->terms = malloc((size_t)b->cap * WZ_TERM_WORDS * sizeof *b->terms);
    if (!b->st || !b->g.ranks || !b->offered_walk || !b->offered_rank || !b->cand || !b->terms) {
        engine_fail(e, SEARCH_FAILED, "out of memory");
        return false;
    }
    return true;
}

/* Moves the up to k candidates of lowest best rank (the lower walker index
 * first among equals: a replayable order) to the front, in that order. */
static int z_pick(const wz_state *st, int *cand, int n, int k)
{
    int m = 0;
    for (; m < k && m < n; m++) {
        int j = m;
        for (int i = m + 1; i < n; i++)
            if (st[cand[i]].best_rank < st[cand[j]].best_rank ||
                (st[cand[i]].best_rank == st[cand[j]].best_rank && cand[i] < cand[j]))
                j = i;
        const int t = cand[m];
        cand[m] = cand[j];
        cand[j] = t;
    }
    return m;
}

static void *z_thread(void *arg)
{
    z_backend *b = arg;
    engine *e = b->g.e;
    const search_params *p = b->g.p;
    wz_params P = {p->walk_len, p->plateau, p->plus_max, p->target_rank, INT_MAX, (float)p->weight_bias,
                   (float)p->weight_bias_max};
    uint64_t n = 1024; /* steps per walker per launch: sized to take about launch_ms */
    char err[256];
    while (!engine_should_stop(e)) {
        if (engine_pool_version(e) != b->pool_seen) {
            const int staged = z_stage(b);
            if (!staged)
                break;
            if (cuda_wz_set_starts(b->cz, b->stage, b->stage_rank, staged, err, sizeof err)) {
                engine_fail(e, SEARCH_FAILED, "GPU %d: %s", b->g.device, err);
                break;
            }
        }
        const int best = engine_best_rank(e);
        P.report_below = best > 0 ? best + 1 : INT_MAX;
        double ms = 0;
        if (cuda_wz_run(b->cz, &P, n, &ms, err, sizeof err) || cuda_wz_states(b->cz, b->st, err, sizeof err)) {
            engine_fail(e, SEARCH_FAILED, "GPU %d: %s", b->g.device, err);
            break;
        }
        engine_stats tot = {0};
        int ncand = 0;
        bool bad = false;
        for (int i = 0; i < b->g.walkers; i++) {
            const wz_state *s = &b->st[i];
            tot.flips += s->flips;
            tot.plus += s->plus;
            tot.reductions += s->reductions;
            tot.restarts += s->restarts;
            tot.undone += s->undone;
            if (s->failed) {
                engine_fail(e, SEARCH_FAILED, "BUG: GPU walker %d over Z ran out of term slots", i);
                bad = true;
                break;
            }
            if (s->best_rank < P.report_below &&
                (s->best_walk != b->offered_walk[i] || s->best_rank < b->offered_rank[i]))
                b->cand[ncand++] = i;
        }
        if (bad)
            break;
        gpu_one_publish(&b->g, &tot, &b->st[0].rank, sizeof *b->st);
        const int npick = z_pick(b->st, b->cand, ncand, ZB_OFFERS);
        for (int k = 0; k < npick && !engine_should_stop(e); k++) {
            const int i = b->cand[k];
            if (b->st[i].best_rank > engine_best_rank(e))
                break; /* the best moved below it within this loop */
            b->offered_walk[i] = b->st[i].best_walk;
            b->offered_rank[i] = b->st[i].best_rank;
            if (cuda_wz_best(b->cz, i, &b->st[i], b->terms, err, sizeof err)) {
                engine_fail(e, SEARCH_FAILED, "GPU %d: %s", b->g.device, err);
                bad = true;
                break;
            }
            scheme *s = search_gpu_z_unpack(p->fmt, b->terms, b->st[i].best_rank);
            if (!s) {
                engine_fail(e, SEARCH_FAILED, "out of memory");
                bad = true;
                break;
            }
            const int rc = engine_offer(e, i, s, &b->rng); /* verified over Z there */
            scheme_free(s);
            if (rc < 0) {
                bad = true;
                break;
            }
        }
        if (bad)
            break;
        n = gpu_one_next_steps(&b->g, n, ms);
    }
    engine_thread_end(e);
    return NULL;
}

static bool z_start(engine *e, void *ctx)
{
    z_backend *b = ctx;
    return gpu_one_start(e, &b->g, z_thread, b);
}

static void z_walker_name(void *ctx, int walker, char *buf, size_t len)
{
    z_backend *b = ctx;
    snprintf(buf, len, "GPU walker %d over Z (GPU %d)", walker, b->g.device);
}

search_status search_run_gpu_z(const search_params *p, const search_gpu_options *o, const scheme *const *starts,
                               int nstarts, const search_callbacks *cb, search_result *res)
{
    search_gpu_options od;
    if (!(o = gpu_one_begin(p, o, &od, res)))
        return res->status;
    if (p->ring != SCHEME_RING_Z) {
        snprintf(res->msg, sizeof res->msg, "the GPU walk over Z walks over Z only (give --ring z)");
        return res->status;
    }
    if (!search_gpu_z_accepts(p, res->msg, sizeof res->msg))
        return res->status;
    z_backend b;
    memset(&b, 0, sizeof b);
    if (!gpu_one_init(&b.g, p, o, "the GPU walk over Z", res))
        return res->status;
    scheme_rng_seed(&b.rng, p->seed ^ 0x243F6A8885A308D3ull);
    const engine_backend eb = {"gpu", &b, z_setup, z_start, gpu_one_stats, gpu_one_join, z_walker_name};
    engine_run_beside(p, o->beside, starts, nstarts, cb, &eb, res);
    cuda_wz_destroy(b.cz);
    free(b.st);
    free(b.terms);
    free(b.offered_walk);
    free(b.offered_rank);
    free(b.cand);
    free(b.stage);
    gpu_one_free(&b.g);
    return res->status;
}
