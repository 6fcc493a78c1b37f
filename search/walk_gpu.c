/* The GPU backend of the engine (engine.h; one GPU or several; docs/gpu-walk.md):
 * thousands of warps walk (cuda/walk*.cu, one warp per scheme, after the Flip-graph post)
 * while the host collects the walkers whose rank fell and offers each scheme
 * to the engine (which verifies it with verify_f2 before it is pooled or
 * reported), and keeps the GPU's copy of the pool (which stalled walkers
 * restart from) up to date.  Two launches are in flight: the host works on one
 * launch's results while the GPU runs the next, on the walk's own stream.
 *
 * Walker sets: one per listed device (--devices 0,1; one set on
 * search_params.device by default), each a cuda_walk with its own stream,
 * driven by its own host thread.  The sets share the engine: one pool, one
 * improvement path, one stop flag, one result; a scheme one set brings home
 * reaches every set's device pool at that set's next refresh.  One GPU may be
 * listed twice (two sets share it).  The engine's thread checks the stop
 * conditions, reports progress and joins.
 *
 * The policy is the engine's: a walker that goes walk_len flips without a
 * lower rank restarts from a random scheme of the device pool, which the host
 * stages from the pool by the engine's restart policy (engine_stage; docs/search.md,
 * "Restarts") whenever a verified scheme joins the pool, so that no walker
 * waits for the host; plus transitions after `plateau` steps without a rank
 * drop while the rank is below best + plus_max.
 */
#include "walk_gpu.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cuda/fg_cuda.h"
#include "../verify/verify.h"
#include "engine.h"


typedef struct gpu_backend gpu_backend;

/* One walker set: one cuda_walk on one device, driven by one host thread. */
typedef struct gpu_set {
    gpu_backend *g;
    int index;
    scheme_rng rng;       /* replacements in the pool, the staging's draws */
    cuda_walk *w;
    cuda_walk_info info;
    uint64_t *terms;      /* [cap*3] scratch */
    uint64_t *pool_terms; /* [pool_cap][cap][3]: the device pool being staged */
    int32_t *pool_ranks;
    int pool_cap;
    uint64_t pool_seen;   /* engine_pool_version at the last staging */
    pthread_t thread;
    bool started;
    /* under g->mu (written by the set's own thread) */
    search_gpu_set_stats st;
    uint64_t isolated;    /* returned schemes not pooled (flip-isolated) */
    int *rank_count;      /* [cap+1]: the set's walkers per current rank after its last launch */
    bool has_ranks;
    uint64_t plateau0;    /* walker 0's plateau after the set's last launch (it adapts) */
} gpu_set;

struct gpu_backend {
    engine *e;
    const search_params *p;
    const search_gpu_options *o;
    gpu_set *sets;
    int nsets;
    int cap;
    pthread_mutex_t mu;   /* the sets' st, rank_count, has_ranks */
    uint64_t pool_added;  /* the pool's additions when the sets ended */
};

static scheme *from_terms(scheme_format f, const uint64_t *t, int rank)
{
    scheme *s = scheme_new(f, SCHEME_RING_F2, rank > 0 ? rank : 1);
    if (!s)
        return NULL;
    for (int i = 0; i < rank; i++)
        if (!scheme_push(s, t[3 * i], t[3 * i + 1], t[3 * i + 2])) {
            scheme_free(s);
            return NULL;
        }
    return s;
}

/* A scheme from the GPU, offered to the engine (verified there first; a
 * failure is a bug, never kept).  false: the run failed. */
static bool keep(gpu_set *s, const uint64_t *t, int rank, int warp, bool sibling)
{
    gpu_backend *g = s->g;
    scheme *sc = from_terms(g->p->fmt, t, rank);
    if (!sc) {
        engine_fail(g->e, SEARCH_FAILED, "out of memory");
        return false;
    }
    /* A flip-isolated scheme (no two terms share a factor: Strassen's square
     * and its kin at <4,4,4>:49) is reported but not pooled by the engine:
     * walkers restarting from it could only leave by plus transitions, and a
     * level full of them stalls the search (docs/search.md). */
    const int r = engine_offer(g->e, s->st.first_walker + warp, sc, &s->rng);
    scheme_free(sc);
    if (r < 0)
        return false;
    pthread_mutex_lock(&g->mu);
    s->st.returned++;
    s->st.pooled += (r & ENGINE_POOLED) != 0;
    s->st.siblings += sibling && (r & ENGINE_POOLED);
    s->st.improvements += (r & ENGINE_IMPROVED) != 0;
    s->isolated += (r & ENGINE_ISOLATED) != 0;
    pthread_mutex_unlock(&g->mu);
    return true;
}

static void stage_visit(void *ctx, int i, const scheme *sc)
{
    gpu_set *s = ctx;
    const size_t cw = (size_t)s->info.cap * 3;
    for (int t = 0; t < sc->rank; t++)
        memcpy(s->pool_terms + (size_t)i * cw + 3 * (size_t)t, sc->terms[t].f, 3 * sizeof(uint64_t));
    s->pool_ranks[i] = sc->rank;
}

/* Stages the set's device pool from the engine's pool: pool_cap entries drawn
 * by the engine's restart policy (the device draws uniformly among them, so
 * its restarts follow the same distribution as the CPU's).  false on a device
 * error (the run failed). */
static bool upload_pool(gpu_set *s)
{
    gpu_backend *g = s->g;
    int level = -1, level_count = 0;
    s->pool_seen = engine_pool_version(g->e);
    /* the pool's ranks never exceed the largest start rank, which fits the cap */
    const int n = engine_stage(g->e, &s->rng, s->pool_cap, stage_visit, s, &level, &level_count);
    if (n < 0) {
        engine_fail(g->e, SEARCH_FAILED, "out of memory");
        return false;
    }
    /* walks that end at the level without a lower rank bring their scheme
     * home by the siblings rule, decided per launch from the staged level */
    const bool collect = level >= 0 && engine_siblings_open(g->p, level_count);
    cuda_walk_set_collect(s->w, collect ? level : 0);
    char err[256];
    if (cuda_walk_set_pool(s->w, s->pool_terms, s->pool_ranks, n, err, sizeof err) != 0) {
        engine_fail(g->e, SEARCH_FAILED, "%s", err);
        return false;
    }
    pthread_mutex_lock(&g->mu);
    s->st.refreshes++;
    pthread_mutex_unlock(&g->mu);
    return true;
}

/* One launch's results: totals, the walkers' ranks, improvements, checks, the pool. */
static void process(gpu_set *s, const cuda_walk_batch *b)
{
    gpu_backend *g = s->g;
    uint64_t flips = 0, plus = 0, red = 0, restarts = 0, undone = 0;
    for (int i = 0; i < b->warps; i++) {
        undone += b->warp[i].undone;
        flips += b->warp[i].flips;
        plus += b->warp[i].plus;
        red += b->warp[i].reductions;
        restarts += b->warp[i].restarts;
    }
    pthread_mutex_lock(&g->mu);
    s->st.flips = flips; /* the warps' counters run on: totals since the start */
    s->st.plus = plus;
    s->st.reductions = red;
    s->st.restarts = restarts;
    s->st.undone = undone;
    memset(s->rank_count, 0, ((size_t)s->info.cap + 1) * sizeof *s->rank_count);
    for (int i = 0; i < b->warps; i++) {
        const int r = b->warp[i].rank;
        s->rank_count[r < 0 ? 0 : r > s->info.cap ? s->info.cap : r]++;
    }
    s->has_ranks = true;
    if (b->warps > 0 && b->warp[0].plateau)
        s->plateau0 = b->warp[0].plateau;
    pthread_mutex_unlock(&g->mu);
    for (int q = 0; q < b->improved; q++)
        if (!keep(s, b->improved_terms + (size_t)q * (size_t)b->cap * 3, b->improved_rank[q], b->improved_warp[q],
                  b->improved_sibling[q] != 0))
            return;
    /* checking mode: the current schemes of a moving window of walkers */
    for (int k = 0; k < b->sample_count; k++) {
        const int wi = (b->sample_first + k) % b->warps;
        scheme *sc = from_terms(g->p->fmt, b->sample_terms + (size_t)k * (size_t)b->cap * 3, b->warp[wi].rank);
        verify_result vr;
        memset(&vr, 0, sizeof vr);
        bool bad = false;
        if (!sc) {
            engine_fail(g->e, SEARCH_FAILED, "out of memory");
            bad = true;
        } else if (!verify_f2(sc, &vr)) {
            engine_fail(g->e, SEARCH_FAILED,
                        "BUG: check: GPU walker %d (GPU %d) holds a scheme of rank %d that does not verify: %.300s",
                        s->st.first_walker + wi, s->st.device, b->warp[wi].rank, vr.msg);
            bad = true;
        }
        scheme_free(sc);
        if (bad)
            return;
    }
    /* new schemes in the pool (from any set): this set's device copy follows */
    if (!engine_should_stop(g->e) && engine_pool_version(g->e) != s->pool_seen)
        upload_pool(s);
}

/* Launches end each walker by its clock (cuda_walk_config.launch_us) unless a
 * fixed step count is asked for (exact replay) or timed is off (the baseline). */
static bool timed_launches(const search_gpu_options *o) { return !o->steps && o->timed; }

/* A set's thread: its launch loop, two launches in flight, until the engine
 * stops the run; then what is in flight is collected (and still offered). */
static void *set_walk(void *arg)
{
    gpu_set *s = arg;
    gpu_backend *g = s->g;
    engine *e = g->e;
    const search_gpu_options *o = g->o;
    char err[256];
    /* timed launches: the clock ends each walker's part; the step count only
     * bounds it (1 << 24 steps take a minute or more) */
    const bool timed = timed_launches(o);
    uint32_t steps = o->steps ? o->steps : timed ? 1u << 24 : 2048;
    for (;;) {
        if (!engine_should_stop(e) && cuda_walk_in_flight(s->w) < 2) {
            if (cuda_walk_launch(s->w, steps, err, sizeof err) != 0) {
                engine_fail(e, SEARCH_FAILED, "%s", err);
                break;
            }
            if (cuda_walk_in_flight(s->w) < 2)
                continue; /* the first launch: queue a second before waiting */
        }
        if (cuda_walk_in_flight(s->w) == 0)
            break;
        cuda_walk_batch b;
        if (cuda_walk_collect(s->w, &b, err, sizeof err) != 0) {
            engine_fail(e, SEARCH_FAILED, "%s", err);
            break;
        }
        process(s, &b);
        if (o->verbose) {
            const double t = engine_elapsed(e);
            char who[48] = "";
            if (g->nsets > 1)
                snprintf(who, sizeof who, " [set %d, GPU %d]", s->index, s->st.device);
            pthread_mutex_lock(&g->mu);
            const uint64_t flips = s->st.flips;
            pthread_mutex_unlock(&g->mu);
            fprintf(stderr, "gpu walk%s: launch %ld, %u steps, %.1f ms, %d improved (%d later), best %d, %.3g flips/s\n",
                    who, b.launch, b.steps, b.ms, b.improved, b.improved_dropped, engine_best_rank(e),
                    t > 0 ? (double)flips / t : 0);
        }
        if (!o->steps && !timed) {
            if (b.ms < o->launch_ms / 2 && steps < (1u << 24))
                steps *= 2;
            else if (b.ms > o->launch_ms * 2 && steps > 64)
                steps /= 2;
        }
    }
    /* whatever is still in flight (after a failure) finishes before the buffers go */
    while (cuda_walk_in_flight(s->w) > 0) {
        cuda_walk_batch b;
        if (cuda_walk_collect(s->w, &b, err, sizeof err) != 0)
            break;
    }
    engine_thread_end(e);
    return NULL;
}

static int distinct_devices(const gpu_backend *g)
{
    int n = 0;
    for (int k = 0; k < g->nsets; k++) {
        bool seen = false;
        for (int j = 0; j < k && !seen; j++)
            seen = g->sets[j].st.device == g->sets[k].st.device;
        n += !seen;
    }
    return n;
}

/* The counters the engine's progress rows and result come from. */
static void gpu_stats(void *ctx, engine_stats *st)
{
    gpu_backend *g = ctx;
    pthread_mutex_lock(&g->mu);
    for (int k = 0; k < g->nsets; k++) {
        const gpu_set *s = &g->sets[k];
        st->flips += s->st.flips;
        st->plus += s->st.plus;
        st->reductions += s->st.reductions;
        st->restarts += s->st.restarts;
        st->undone += s->st.undone;
        st->siblings += s->st.siblings;
        if (st->rank_count && s->has_ranks) {
            /* the walkers' ranks after every set's last launch */
            for (int r = 0; r <= s->info.cap && r <= SCHEME_MAX_RANK; r++)
                st->rank_count[r] += s->rank_count[r];
            st->walkers += s->info.warps;
        }
    }
    /* walker 0's plateau, as the CPU engine reports its walker 0's */
    st->plateau = g->nsets > 0 && g->sets[0].plateau0 ? g->sets[0].plateau0 : g->p->plateau;
    pthread_mutex_unlock(&g->mu);
    st->devices = distinct_devices(g);
}

static void gpu_walker_name(void *ctx, int walker, char *buf, size_t len)
{
    gpu_backend *g = ctx;
    int dev = -1;
    for (int k = 0; k < g->nsets; k++)
        if (walker >= g->sets[k].st.first_walker && walker < g->sets[k].st.first_walker + g->sets[k].st.walkers)
            dev = g->sets[k].st.device;
    snprintf(buf, len, "GPU walker %d (GPU %d)", walker, dev);
}

/* Set k's kernel seed: set 0 walks with the run's seed (one device replays
 * the single-device runs), the others with seeds derived from it. */
static uint64_t set_seed(uint64_t seed, int k)
{
    if (k == 0)
        return seed;
    uint64_t st = seed ^ (0xd1b54a32d192ed03ull * (uint64_t)k);
    return scheme_splitmix64(&st);
}

/* Creates set k's walk on its device, loads its walkers (the engine's start
 * schemes, round robin) and its device pool.  false: engine_fail was called. */
static bool set_create(gpu_backend *g, gpu_set *s, int first_walker)
{
    engine *e = g->e;
    const search_params *p = g->p;
    const search_gpu_options *o = g->o;
    char err[256], where[48] = "";
    if (g->nsets > 1)
        snprintf(where, sizeof where, " on GPU %d (set %d)", s->st.device, s->index);
    cuda_walk_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.warps = o->warps;
    cfg.cap = g->cap;
    cfg.device = s->st.device;
    cfg.seed = s->st.seed;
    cfg.rounds = o->rounds;
    cfg.gen_max = p->gen_max < 5 ? p->gen_max : 5;
    cfg.plateau = p->plateau > 0xffffffffu ? 0xffffffffu : (uint32_t)p->plateau;
    cfg.plateau_min = p->plateau_min > 0xffffffffu ? 0xffffffffu : (uint32_t)p->plateau_min;
    cfg.plateau_max = p->plateau_max > 0xffffffffu ? 0xffffffffu : (uint32_t)p->plateau_max;
    cfg.plus_max = p->plus_max;
    cfg.target_rank = p->target_rank;
    cfg.mix_every = o->mix_every;
    cfg.walk_len = p->walk_len > 0xffffffffu ? 0xffffffffu : (uint32_t)p->walk_len;
    cfg.walk_max = p->walk_max > 0xffffffffu ? 0xffffffffu : (uint32_t)p->walk_max;
    cfg.pool_cap = p->pool_size < 256 ? p->pool_size : 256;
    cfg.sample = o->check;
    cfg.check_pairs = o->check_pairs;
    cfg.eager_gen = o->eager_gen;
    cfg.idle_plus = o->idle_plus;
    cfg.isolated_restart = o->isolated_restart;
    cfg.store = o->store;
    cfg.degree_bias = (float)p->degree_bias;
    cfg.weight_bias = (float)p->weight_bias;
    cfg.weight_bias_max = (float)p->weight_bias_max;
    cfg.plus_hold = p->plus_hold > 0xffffffffu ? 0xffffffffu : (uint32_t)p->plus_hold;
    if (timed_launches(o))
        cfg.launch_us = (uint32_t)(o->launch_ms * 1000);
    int rc = cuda_walk_create(&cfg, &s->w, err, sizeof err);
    if (rc != 0) {
        engine_fail(e, rc == 2 ? SEARCH_BAD_PARAMS : SEARCH_FAILED, "GPU walk%s: %s", where, err);
        return false;
    }
    cuda_walk_get_info(s->w, &s->info);
    s->st.walkers = s->info.warps;
    s->st.first_walker = first_walker;
    s->pool_cap = cfg.pool_cap;
    s->terms = malloc((size_t)s->info.cap * 3 * sizeof *s->terms);
    s->pool_terms = malloc((size_t)s->pool_cap * s->info.cap * 3 * sizeof *s->pool_terms);
    s->pool_ranks = malloc((size_t)s->pool_cap * sizeof *s->pool_ranks);
    s->rank_count = calloc((size_t)s->info.cap + 1, sizeof *s->rank_count);
    if (!s->terms || !s->pool_terms || !s->pool_ranks || !s->rank_count) {
        engine_fail(e, SEARCH_FAILED, "out of memory");
        return false;
    }
    if (o->verbose)
        fprintf(stderr, "gpu walk%s: %s; %d walkers, cap %d, %s store, walk_len %u, plateau %u (%u..%u), plus_max %d, "
                "idle_plus %u, pool_min %d, seed %llu\n", where, s->info.device,
                s->info.warps, s->info.cap, s->info.store == CUDA_WALK_STORE_REGS ? "register" : "shared-memory",
                cfg.walk_len, cfg.plateau, cfg.plateau_min, cfg.plateau_max, cfg.plus_max, cfg.idle_plus, p->pool_min,
                (unsigned long long)cfg.seed);
    const int nstarts = engine_nstarts(e);
    for (int i = 0; i < s->info.warps; i++) {
        const scheme *sc = engine_start_scheme(e, (first_walker + i) % nstarts);
        for (int k = 0; k < sc->rank; k++)
            memcpy(s->terms + 3 * k, sc->terms[k].f, 3 * sizeof(uint64_t));
        if (cuda_walk_load(s->w, i, s->terms, sc->rank, err, sizeof err) != 0) {
            engine_fail(e, SEARCH_FAILED, "GPU walk%s: %s", where, err);
            return false;
        }
    }
    return upload_pool(s);
}

static bool gpu_setup(engine *e, void *ctx)
{
    gpu_backend *g = ctx;
    g->e = e;
    /* plus transitions stop at the cap; restarts come from lower ranks */
    const int max_rank = engine_max_start_rank(e);
    g->cap = (max_rank + 31) / 32 * 32;
    if (g->cap < 32)
        g->cap = 32;
    if (g->cap > CUDA_WALK_MAX_CAP) {
        engine_fail(e, SEARCH_BAD_PARAMS, "start rank %d: the GPU walk holds at most %d terms", max_rank,
                    CUDA_WALK_MAX_CAP);
        return false;
    }
    for (int i = 0; i < engine_nstarts(e); i++)
        if (engine_start_scheme(e, i)->rank < 2) {
            engine_fail(e, SEARCH_BAD_PARAMS, "start scheme %d has rank %d: nothing to walk", i + 1,
                        engine_start_scheme(e, i)->rank);
            return false;
        }
    for (int k = 0, first = 0; k < g->nsets; k++) {
        if (!set_create(g, &g->sets[k], first))
            return false;
        first += g->sets[k].info.warps;
    }
    return true;
}

static bool gpu_start(engine *e, void *ctx)
{
    gpu_backend *g = ctx;
    for (int k = 0; k < g->nsets; k++) {
        engine_thread_begin(e);
        int err = pthread_create(&g->sets[k].thread, NULL, set_walk, &g->sets[k]);
        if (err != 0) {
            engine_thread_end(e);
            engine_fail(e, SEARCH_FAILED, "cannot start the thread of walker set %d: %s", k, strerror(err));
            return false;
        }
        g->sets[k].started = true;
    }
    return true;
}

static void gpu_join(void *ctx)
{
    gpu_backend *g = ctx;
    for (int k = 0; k < g->nsets; k++)
        if (g->sets[k].started)
            pthread_join(g->sets[k].thread, NULL);
    g->pool_added = engine_pool_version(g->e);
}

search_status search_run_gpu_stats(const search_params *p, const search_gpu_options *o,
                                   const scheme *const *starts, int nstarts,
                                   const search_callbacks *cb, search_result *res, search_gpu_stats *stats)
{
    memset(res, 0, sizeof *res);
    if (stats)
        memset(stats, 0, sizeof *stats);
    res->status = SEARCH_BAD_PARAMS;
    search_gpu_options od;
    if (!o) {
        search_gpu_options_default(&od);
        o = &od;
    }
    const search_params *given = p; /* the symmetric walk takes the parameters as given */
    search_params pg;
    search_gpu_params(p, o, &pg);
    p = &pg;
    if (!search_params_check(p, res->msg, sizeof res->msg))
        return res->status;
    if (!cuda_compiled_in()) {
        snprintf(res->msg, sizeof res->msg, "no GPU backend: this flipgraph was built without CUDA");
        return res->status;
    }
    int ndev = cuda_device_count();
    if (ndev <= 0) {
        snprintf(res->msg, sizeof res->msg, "no GPU visible (use --backend cpu)");
        return res->status;
    }
    if (o->ndevices < 0 || o->ndevices > SEARCH_GPU_MAX_DEVICES) {
        snprintf(res->msg, sizeof res->msg, "%d devices: at most %d", o->ndevices, SEARCH_GPU_MAX_DEVICES);
        return res->status;
    }
    const int nsets = o->ndevices > 0 ? o->ndevices : 1;
    for (int k = 0; k < nsets; k++) {
        const int d = o->ndevices > 0 ? o->devices[k] : p->device;
        if (d < 0 || d >= ndev) {
            snprintf(res->msg, sizeof res->msg, "%sno GPU %d (%d visible)", o->ndevices > 0 ? "--devices: " : "", d,
                     ndev);
            return res->status;
        }
    }
    if (given->symmetry != SCHEME_SYM_NONE)
        return search_run_gpu_sym(given, o, starts, nstarts, cb, res);
    if (p->ring == SCHEME_RING_Z)
        return search_run_gpu_z(p, o, starts, nstarts, cb, res);
    if (o->rounds < 1 || o->rounds > 64 || o->warps < 0 || o->mix_every < 0 || o->check < 0 ||
        o->store < 0 || o->store > 2 || !(o->launch_ms > 0) || o->launch_ms > 60000) {
        snprintf(res->msg, sizeof res->msg, "bad GPU options (rounds 1..64, launch 0..60000 ms, no negative values)");
        return res->status;
    }

    gpu_backend g;
    memset(&g, 0, sizeof g);
    g.p = p;
    g.o = o;
    g.nsets = nsets;
    pthread_mutex_init(&g.mu, NULL);
    g.sets = calloc((size_t)nsets, sizeof *g.sets);
    if (!g.sets) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = SEARCH_FAILED;
        pthread_mutex_destroy(&g.mu);
        return res->status;
    }
    for (int k = 0; k < nsets; k++) {
        gpu_set *s = &g.sets[k];
        s->g = &g;
        s->index = k;
        s->st.device = o->ndevices > 0 ? o->devices[k] : p->device;
        s->st.seed = set_seed(p->seed, k);
        scheme_rng_seed(&s->rng, s->st.seed ^ 0x9e3779b97f4a7c15ull);
    }

    const engine_backend b = {"gpu", &g, gpu_setup, gpu_start, gpu_stats, gpu_join, gpu_walker_name};
    engine_run_beside(p, o->beside, starts, nstarts, cb, &b, res);

    uint64_t returned = 0, pooled = 0, isolated = 0;
    for (int k = 0; k < nsets; k++) {
        returned += g.sets[k].st.returned;
        pooled += g.sets[k].st.pooled;
        isolated += g.sets[k].isolated;
    }
    if (o->verbose && g.sets[0].w)
        fprintf(stderr, "gpu walk: %llu returned schemes (%llu new to the pool, %llu flip-isolated not pooled) from %d set%s\n",
                (unsigned long long)returned, (unsigned long long)pooled, (unsigned long long)isolated, nsets,
                nsets > 1 ? "s" : "");
    if (stats && res->status != SEARCH_BAD_PARAMS) {
        stats->sets = nsets;
        for (int k = 0; k < nsets; k++)
            stats->set[k] = g.sets[k].st;
        stats->pool_added = g.pool_added;
    }
    for (int k = 0; k < nsets; k++) {
        gpu_set *s = &g.sets[k];
        if (s->w)
            cuda_walk_destroy(s->w);
        free(s->terms);
        free(s->pool_terms);
        free(s->pool_ranks);
        free(s->rank_count);
    }
    free(g.sets);
    pthread_mutex_destroy(&g.mu);
    return res->status;
}

search_status search_run_gpu_opts(const search_params *p, const search_gpu_options *o,
                                  const scheme *const *starts, int nstarts,
                                  const search_callbacks *cb, search_result *res)
{
    return search_run_gpu_stats(p, o, starts, nstarts, cb, res, NULL);
}

search_status search_run_gpu(const search_params *p, const scheme *const *starts, int nstarts,
                             const search_callbacks *cb, search_result *res)
{
    return search_run_gpu_opts(p, NULL, starts, nstarts, cb, res);
}
