/* The GPU backend of the engine for walks over Z (docs/gpu-walk.md, "Walks
 * over Z"): one thread per walker walks cuda/walk_z_core.h, the moves of
 * search/walker_z.c with coefficients in {-1, 0, 1} (--coef-max 1; larger
 * bounds walk on the CPU).  Every walker starts from one of the engine's
 * start schemes and starts over from one when its walk ends.
 *
 * One host thread launches, reads every walker's scalars, offers the scheme
 * of the walker with the lowest rank below the run's best (the engine
 * verifies it over Z on the CPU before it is kept, reported or stored), and
 * sizes the next launch to take about launch_ms.  A walker copies its scheme
 * on the device only at a new lowest rank below the run's best at its
 * launch, so only improvements cross the bus. */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/fg_cuda.h"
#include "engine.h"
#include "walk_gpu.h"

typedef struct z_backend {
    engine *e;
    const search_params *p;
    double launch_ms;
    int warps, device, cap;
    cuda_wz *cz;
    int walkers;
    wz_state *st;
    uint64_t *terms;          /* one walker's best terms, [cap][6] */
    int32_t *ranks;           /* the walkers' ranks after the last launch, for the progress spread */
    pthread_mutex_t mu;
    pthread_t th;
    bool started;
    _Atomic uint64_t flips, plus, reductions, restarts;
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

static bool z_setup(engine *e, void *ctx)
{
    z_backend *b = ctx;
    b->e = e;
    const search_params *p = b->p;
    const int n = engine_nstarts(e);
    /* room as the CPU walker has it (driver.c): the start, plus_max, a margin */
    b->cap = engine_max_start_rank(e) + p->plus_max + 8;
    uint64_t *starts = calloc((size_t)n * (size_t)b->cap * WZ_TERM_WORDS, sizeof *starts);
    int32_t *ranks = calloc((size_t)n, sizeof *ranks);
    if (!starts || !ranks) {
        free(starts);
        free(ranks);
        engine_fail(e, SEARCH_FAILED, "out of memory");
        return false;
    }
    for (int i = 0; i < n; i++) {
        const scheme *s = engine_start_scheme(e, i);
        ranks[i] = s->rank;
        if (!search_gpu_z_pack(s, b->cap, starts + (size_t)i * (size_t)b->cap * WZ_TERM_WORDS)) {
            free(starts);
            free(ranks);
            engine_fail(e, SEARCH_BAD_PARAMS,
                        "start %d has a coefficient %d: the GPU walk over Z holds coefficients in {-1, 0, 1} "
                        "(give --backend cpu)",
                        i + 1, search_z_max_coef(s));
            return false;
        }
    }
    cuda_wz_config cfg = {0, b->warps, b->device, p->seed, b->cap, starts, ranks, n};
    char err[256];
    const int rc = cuda_wz_create(&cfg, &b->cz, err, sizeof err);
    free(starts);
    free(ranks);
    if (rc) {
        engine_fail(e, rc == 2 ? SEARCH_BAD_PARAMS : SEARCH_FAILED, "GPU %d: %s", b->device, err);
        return false;
    }
    b->walkers = cuda_wz_walkers(b->cz);
    b->st = calloc((size_t)b->walkers, sizeof *b->st);
    b->ranks = calloc((size_t)b->walkers, sizeof *b->ranks);
    b->terms = malloc((size_t)b->cap * WZ_TERM_WORDS * sizeof *b->terms);
    if (!b->st || !b->ranks || !b->terms) {
        engine_fail(e, SEARCH_FAILED, "out of memory");
        return false;
    }
    return true;
}

static void *z_thread(void *arg)
{
    z_backend *b = arg;
    engine *e = b->e;
    const search_params *p = b->p;
    scheme_rng rng;
    scheme_rng_seed(&rng, p->seed ^ 0x243F6A8885A308D3ull);
    wz_params P = {p->walk_len, p->plateau, p->plus_max, p->target_rank, INT_MAX, 0};
    uint64_t n = 1024; /* steps per walker per launch: sized to take about launch_ms */
    char err[256];
    while (!engine_should_stop(e)) {
        const int best = engine_best_rank(e);
        P.report_below = best > 0 ? best : INT_MAX;
        double ms = 0;
        if (cuda_wz_run(b->cz, &P, n, &ms, err, sizeof err) || cuda_wz_states(b->cz, b->st, err, sizeof err)) {
            engine_fail(e, SEARCH_FAILED, "GPU %d: %s", b->device, err);
            break;
        }
        uint64_t f = 0, pl = 0, r = 0, rs = 0;
        int low = -1;
        bool bad = false;
        for (int i = 0; i < b->walkers; i++) {
            const wz_state *s = &b->st[i];
            f += s->flips;
            pl += s->plus;
            r += s->reductions;
            rs += s->restarts;
            if (s->failed) {
                engine_fail(e, SEARCH_FAILED, "BUG: GPU walker %d over Z ran out of term slots", i);
                bad = true;
                break;
            }
            if (s->best_rank < P.report_below && (low < 0 || s->best_rank < b->st[low].best_rank))
                low = i;
        }
        if (bad)
            break;
        atomic_store(&b->flips, f);
        atomic_store(&b->plus, pl);
        atomic_store(&b->reductions, r);
        atomic_store(&b->restarts, rs);
        pthread_mutex_lock(&b->mu);
        for (int i = 0; i < b->walkers; i++)
            b->ranks[i] = b->st[i].rank;
        pthread_mutex_unlock(&b->mu);
        if (low >= 0 && best > 0 && b->st[low].best_rank < engine_best_rank(e)) {
            if (cuda_wz_best(b->cz, low, &b->st[low], b->terms, err, sizeof err)) {
                engine_fail(e, SEARCH_FAILED, "GPU %d: %s", b->device, err);
                break;
            }
            scheme *s = search_gpu_z_unpack(p->fmt, b->terms, b->st[low].best_rank);
            if (!s) {
                engine_fail(e, SEARCH_FAILED, "out of memory");
                break;
            }
            const int rc = engine_offer(e, low, s, &rng); /* verified over Z there */
            scheme_free(s);
            if (rc < 0)
                break;
        }
        if (ms < b->launch_ms / 2 && n < (1ull << 40))
            n *= 2;
        else if (ms > b->launch_ms * 2 && n > 64)
            n /= 2;
    }
    engine_thread_end(e);
    return NULL;
}

static bool z_start(engine *e, void *ctx)
{
    z_backend *b = ctx;
    engine_thread_begin(e);
    if (pthread_create(&b->th, NULL, z_thread, b) != 0) {
        engine_thread_end(e);
        engine_fail(e, SEARCH_FAILED, "cannot start the GPU thread");
        return false;
    }
    b->started = true;
    return true;
}

static void z_stats(void *ctx, engine_stats *st)
{
    z_backend *b = ctx;
    st->flips += atomic_load(&b->flips);
    st->plus += atomic_load(&b->plus);
    st->reductions += atomic_load(&b->reductions);
    st->restarts += atomic_load(&b->restarts);
    st->plateau = b->p->plateau;
    st->devices = 1;
    if (st->rank_count && b->ranks) {
        pthread_mutex_lock(&b->mu);
        for (int i = 0; i < b->walkers; i++) {
            const int r = b->ranks[i];
            if (r > 0) {
                st->rank_count[r < SCHEME_MAX_RANK ? r : SCHEME_MAX_RANK]++;
                st->walkers++;
            }
        }
        pthread_mutex_unlock(&b->mu);
    }
}

static void z_join(void *ctx)
{
    z_backend *b = ctx;
    if (b->started)
        pthread_join(b->th, NULL);
}

static void z_walker_name(void *ctx, int walker, char *buf, size_t len)
{
    z_backend *b = ctx;
    snprintf(buf, len, "GPU walker %d over Z (GPU %d)", walker, b->device);
}

search_status search_run_gpu_z(const search_params *p, const search_gpu_options *o, const scheme *const *starts,
                               int nstarts, const search_callbacks *cb, search_result *res)
{
    memset(res, 0, sizeof *res);
    res->status = SEARCH_BAD_PARAMS;
    search_gpu_options od;
    if (!o) {
        search_gpu_options_default(&od);
        o = &od;
    }
    if (!search_params_check(p, res->msg, sizeof res->msg))
        return res->status;
    if (p->ring != SCHEME_RING_Z) {
        snprintf(res->msg, sizeof res->msg, "the GPU walk over Z walks over Z only (give --ring z)");
        return res->status;
    }
    if (p->coef_max != 1) {
        snprintf(res->msg, sizeof res->msg,
                 "--coef-max %d: the GPU walk over Z holds coefficients in {-1, 0, 1} (--coef-max 1); "
                 "larger bounds walk on the CPU (--backend cpu)",
                 p->coef_max);
        return res->status;
    }
    if (o->ndevices > 1) {
        snprintf(res->msg, sizeof res->msg, "--devices: the GPU walk over Z runs on one GPU (give --device)");
        return res->status;
    }
    if (!(o->launch_ms > 0) || o->launch_ms > 60000 || o->warps < 0) {
        snprintf(res->msg, sizeof res->msg, "bad GPU options (launch 0..60000 ms, no negative warps)");
        return res->status;
    }
    z_backend b;
    memset(&b, 0, sizeof b);
    b.p = p;
    b.launch_ms = o->launch_ms;
    b.warps = o->warps;
    b.device = o->ndevices == 1 ? o->devices[0] : p->device;
    pthread_mutex_init(&b.mu, NULL);
    const engine_backend eb = {"gpu", &b, z_setup, z_start, z_stats, z_join, z_walker_name};
    engine_run(p, starts, nstarts, cb, &eb, res);
    cuda_wz_destroy(b.cz);
    free(b.st);
    free(b.ranks);
    free(b.terms);
    pthread_mutex_destroy(&b.mu);
    return res->status;
}
