/* The GPU search driver (one GPU or several; docs/gpu-walk.md):
 * thousands of warps walk (cuda/walk*.cu, one warp per scheme, after the Flip-graph post)
 * while the host collects the walkers whose rank fell, verifies each scheme
 * with verify_f2 before it is pooled or reported, and keeps the GPU's copy of
 * the pool of best schemes (which stalled walkers restart from) up to date.
 * Two launches are in flight: the host works on one launch's results while
 * the GPU runs the next, on the walk's own stream.
 *
 * Walker sets: one per listed device (--devices 0,1; one set on
 * search_params.device by default), each a cuda_walk with its own stream,
 * driven by its own host thread.  The sets share one pool, one improvement
 * path (the callbacks are called under one mutex), one stop flag and one
 * result; a scheme one set brings home reaches every set's device pool at
 * that set's next refresh.  One GPU may be listed twice (two sets share it).
 * The calling thread only waits, reports progress and joins.
 *
 * The policy mirrors the CPU driver (driver.c): a walker that goes walk_len
 * flips without a lower rank restarts from a random scheme of the pool's level
 * (the lowest rank with pool_min schemes; Kauers-Moosbauer's level strategy),
 * plus transitions after `plateau` steps without a rank drop while the rank is
 * below best + plus_max.  Restarts happen on the GPU, from a device copy of the
 * pool that the host refreshes whenever a verified scheme joins the pool, so
 * that no walker waits for the host.
 */
#include "walk_gpu.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cuda/fg_cuda.h"
#include "../verify/verify.h"
#include "pool.h"

void search_gpu_options_default(search_gpu_options *o)
{
    memset(o, 0, sizeof *o);
    o->warps = 0;
    o->rounds = 3;
    o->mix_every = 4;
    o->store = CUDA_WALK_STORE_AUTO;
    o->steps = 0;
    o->launch_ms = 100;
    o->timed = true;
    o->check = 0;
    o->check_pairs = true;
    o->idle_plus = SEARCH_GPU_DEFAULT_IDLE_PLUS;
    o->gpu_defaults = true;
    o->collect = true;
}

/* The shared parameters the GPU runs with: p, where the caller left a CPU
 * default, the GPU's measured default instead (search.h's defaults were
 * measured for one CPU thread; the GPU walks thousands of schemes at once).
 * The GPU's plateau does not adapt: plateau-min/max only follow it where
 * search_params_check needs them to. */
void search_gpu_params(const search_params *p, const search_gpu_options *o, search_params *q)
{
    *q = *p;
    if (!o->gpu_defaults)
        return;
    if (q->plateau == SEARCH_DEFAULT_PLATEAU) {
        q->plateau = SEARCH_GPU_DEFAULT_PLATEAU;
        if (q->plateau_min > q->plateau)
            q->plateau_min = q->plateau;
    }
    if (q->plus_max == SEARCH_DEFAULT_PLUS_MAX)
        q->plus_max = SEARCH_GPU_DEFAULT_PLUS_MAX;
    if (q->pool_min == SEARCH_DEFAULT_POOL_MIN && SEARCH_GPU_DEFAULT_POOL_MIN <= q->pool_size)
        q->pool_min = SEARCH_GPU_DEFAULT_POOL_MIN;
    if (q->walk_len == SEARCH_DEFAULT_WALK_LEN)
        q->walk_len = SEARCH_GPU_DEFAULT_WALK_LEN;
}

typedef struct gpu_search gpu_search;

/* One walker set: one cuda_walk on one device, driven by one host thread. */
typedef struct gpu_set {
    gpu_search *g;
    int index;
    scheme_rng rng;       /* replacements in the shared pool */
    cuda_walk *w;
    cuda_walk_info info;
    uint64_t *terms;      /* [cap*3] scratch */
    uint64_t *pool_terms; /* [pool_cap][cap][3]: the device pool being built */
    int32_t *pool_ranks;
    int pool_cap;
    uint64_t pool_seen;   /* pool.added at the last upload */
    pthread_t thread;
    bool started;
    /* under g->mu (written by the set's own thread) */
    search_gpu_set_stats st;
    uint64_t isolated;    /* returned schemes not pooled (flip-isolated) */
    int *rank_count;      /* [cap+1]: the set's walkers per current rank after its last launch */
    bool has_ranks;
} gpu_set;

struct gpu_search {
    const search_params *p;
    const search_gpu_options *o;
    const search_callbacks *cb;
    search_pool pool;
    gpu_set *sets;
    int nsets;
    double t0;
    pthread_mutex_t mu;   /* what follows and the sets' st; improved() is called under it */
    pthread_cond_t finished; /* a set's thread is done */
    int running;
    int best_rank;
    double best_t;        /* when best_rank was first reached */
    scheme *best;
    uint64_t improvements;
    bool stop, failed, reached, interrupted;
    char msg[512];
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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

static void fail_locked(gpu_search *g, const char *msg)
{
    if (!g->failed) {
        g->failed = true;
        snprintf(g->msg, sizeof g->msg, "%s", msg);
    }
    g->stop = true;
}

static void run_fail(gpu_search *g, const char *msg)
{
    pthread_mutex_lock(&g->mu);
    fail_locked(g, msg);
    pthread_mutex_unlock(&g->mu);
}

static uint64_t flips_locked(const gpu_search *g)
{
    uint64_t f = 0;
    for (int k = 0; k < g->nsets; k++)
        f += g->sets[k].st.flips;
    return f;
}

/* A scheme from the GPU: verified first; a failure is a bug, never kept. */
static bool keep(gpu_set *s, const uint64_t *t, int rank, int warp)
{
    gpu_search *g = s->g;
    const int walker = s->st.first_walker + warp;
    scheme *sc = from_terms(g->p->fmt, t, rank);
    if (!sc) {
        run_fail(g, "out of memory");
        return false;
    }
    verify_result vr;
    memset(&vr, 0, sizeof vr);
    if (!verify_f2(sc, &vr)) {
        char fb[32], m[512];
        snprintf(m, sizeof m, "BUG: GPU walker %d (GPU %d) returned a scheme of rank %d for %s that does not verify: %.300s",
                 walker, s->st.device, rank, scheme_format_str(sc->fmt, fb), vr.msg);
        run_fail(g, m);
        scheme_free(sc);
        return false;
    }
    bool oom = false, pooled = false;
    /* A flip-isolated scheme (no two terms share a factor: Strassen's square
     * and its kin at <4,4,4>:49) is reported but not pooled: walkers
     * restarting from it could only leave by plus transitions, and a level
     * full of them stalls the search (docs/search.md measured this for the
     * CPU walker; the GPU stalled at 49 the same way). */
    const bool isolated = search_count_flips(sc->terms, rank) == 0;
    if (!isolated)
        pooled = search_pool_add(&g->pool, sc, &s->rng, &oom);
    bool ok = !oom;
    pthread_mutex_lock(&g->mu);
    s->st.returned++;
    s->st.pooled += pooled;
    s->isolated += isolated;
    if (oom)
        fail_locked(g, "out of memory");
    if (ok && rank < g->best_rank) {
        scheme *b = scheme_clone(sc);
        if (!b) {
            fail_locked(g, "out of memory");
            ok = false;
        } else {
            g->best_rank = rank;
            g->best_t = now_s();
            scheme_free(g->best);
            g->best = b;
            g->improvements++;
            s->st.improvements++;
            if (g->cb && g->cb->improved) {
                search_found f = {sc, rank, g->best_t - g->t0, flips_locked(g), walker};
                if (!g->cb->improved(g->cb->ctx, &f)) {
                    fail_locked(g, "the improvement handler failed");
                    ok = false;
                }
            }
            if (g->p->target_rank > 0 && rank <= g->p->target_rank) {
                g->reached = true;
                g->stop = true;
            }
        }
    }
    pthread_mutex_unlock(&g->mu);
    scheme_free(sc);
    return ok;
}

/* Stages the set's device pool from the shared pool: the schemes of the
 * pool's level and of every lower rank, lower ranks first, up to pool_cap.
 * false on a device error. */
static bool upload_pool(gpu_set *s)
{
    gpu_search *g = s->g;
    search_pool *pool = &g->pool;
    int n = 0;
    const size_t cw = (size_t)s->info.cap * 3;
    pthread_mutex_lock(&pool->mu);
    s->pool_seen = pool->added;
    int level = -1; /* as pool.c: the lowest rank with pool_min schemes, else with any */
    for (int k = 0; k <= pool->max_rank && level < 0; k++)
        if (pool->r[k].count >= pool->min)
            level = k;
    for (int k = 0; k <= pool->max_rank && level < 0; k++)
        if (pool->r[k].count)
            level = k;
    /* walks that end at the level without a lower rank bring their scheme
     * home while the level has room: the pool's diversity (driver.c) */
    cuda_walk_set_collect(s->w, g->o->collect && level >= 0 && pool->r[level].count < pool->size ? level : 0);
    /* pool_up (driver.c's restarts one rank above the level, for diversity):
     * the device draws uniformly from what it holds, so the first nonempty
     * rank above the level gets a share up/(1-up) of the level's entries */
    int up_rank = -1, up_n = 0;
    if (level >= 0 && g->p->pool_up > 0 && g->p->pool_up < 1) {
        for (int k = level + 1; k <= pool->max_rank && up_rank < 0; k++)
            if (pool->r[k].count)
                up_rank = k;
        int below = 0;
        for (int k = 0; k <= level; k++)
            below += pool->r[k].count;
        if (up_rank >= 0) {
            up_n = (int)((double)below * g->p->pool_up / (1 - g->p->pool_up) + 0.5);
            if (up_n > pool->r[up_rank].count)
                up_n = pool->r[up_rank].count;
            if (up_n > s->pool_cap / 4)
                up_n = s->pool_cap / 4;
        }
    }
    for (int k = 0; k <= pool->max_rank && n < s->pool_cap; k++) {
        if (k > level && k != up_rank)
            continue;
        const int cnt = k == up_rank ? up_n : pool->r[k].count;
        for (int i = 0; i < cnt && n < s->pool_cap - (k <= level ? up_n : 0); i++) {
            const scheme *sc = pool->r[k].s[i];
            if (sc->rank > s->info.cap)
                continue;
            for (int t = 0; t < sc->rank; t++)
                memcpy(s->pool_terms + (size_t)n * cw + 3 * (size_t)t, sc->terms[t].f, 3 * sizeof(uint64_t));
            s->pool_ranks[n++] = sc->rank;
        }
    }
    pthread_mutex_unlock(&pool->mu);
    char err[256];
    if (cuda_walk_set_pool(s->w, s->pool_terms, s->pool_ranks, n, err, sizeof err) != 0) {
        run_fail(g, err);
        return false;
    }
    pthread_mutex_lock(&g->mu);
    s->st.refreshes++;
    pthread_mutex_unlock(&g->mu);
    return true;
}

static bool pool_changed(gpu_set *s)
{
    pthread_mutex_lock(&s->g->pool.mu);
    const bool c = s->g->pool.added != s->pool_seen;
    pthread_mutex_unlock(&s->g->pool.mu);
    return c;
}

/* One launch's results: totals, the walkers' ranks, improvements, checks, the pool. */
static void process(gpu_set *s, const cuda_walk_batch *b)
{
    gpu_search *g = s->g;
    uint64_t flips = 0, plus = 0, red = 0, restarts = 0;
    for (int i = 0; i < b->warps; i++) {
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
    memset(s->rank_count, 0, ((size_t)s->info.cap + 1) * sizeof *s->rank_count);
    for (int i = 0; i < b->warps; i++) {
        const int r = b->warp[i].rank;
        s->rank_count[r < 0 ? 0 : r > s->info.cap ? s->info.cap : r]++;
    }
    s->has_ranks = true;
    pthread_mutex_unlock(&g->mu);
    for (int q = 0; q < b->improved; q++)
        if (!keep(s, b->improved_terms + (size_t)q * (size_t)b->cap * 3, b->improved_rank[q], b->improved_warp[q]))
            return;
    /* checking mode: the current schemes of a moving window of walkers */
    for (int k = 0; k < b->sample_count; k++) {
        const int wi = (b->sample_first + k) % b->warps;
        scheme *sc = from_terms(g->p->fmt, b->sample_terms + (size_t)k * (size_t)b->cap * 3, b->warp[wi].rank);
        verify_result vr;
        memset(&vr, 0, sizeof vr);
        bool bad = false;
        if (!sc) {
            run_fail(g, "out of memory");
            bad = true;
        } else if (!verify_f2(sc, &vr)) {
            char m[512];
            snprintf(m, sizeof m, "BUG: check: GPU walker %d (GPU %d) holds a scheme of rank %d that does not verify: %.300s",
                     s->st.first_walker + wi, s->st.device, b->warp[wi].rank, vr.msg);
            run_fail(g, m);
            bad = true;
        }
        scheme_free(sc);
        if (bad)
            return;
    }
    pthread_mutex_lock(&g->mu);
    const bool done = g->failed || g->reached;
    pthread_mutex_unlock(&g->mu);
    /* new schemes in the pool (from any set): this set's device copy follows */
    if (!done && pool_changed(s))
        upload_pool(s);
}

/* Launches end each walker by its clock (cuda_walk_config.launch_us) unless a
 * fixed step count is asked for (exact replay) or timed is off (the baseline). */
static bool timed_launches(const search_gpu_options *o) { return !o->steps && o->timed; }

/* A set's thread: its launch loop, two launches in flight. */
static void *set_walk(void *arg)
{
    gpu_set *s = arg;
    gpu_search *g = s->g;
    const search_params *p = g->p;
    const search_gpu_options *o = g->o;
    char err[256];
    /* timed launches: the clock ends each walker's part; the step count only
     * bounds it (1 << 24 steps take a minute or more) */
    const bool timed = timed_launches(o);
    uint32_t steps = o->steps ? o->steps : timed ? 1u << 24 : 2048;
    pthread_mutex_lock(&g->mu);
    bool stopping = g->stop, failed = g->failed;
    pthread_mutex_unlock(&g->mu);
    while (!failed) {
        if (!stopping && cuda_walk_in_flight(s->w) < 2) {
            if (cuda_walk_launch(s->w, steps, err, sizeof err) != 0) {
                run_fail(g, err);
                break;
            }
            if (cuda_walk_in_flight(s->w) < 2)
                continue; /* the first launch: queue a second before waiting */
        }
        if (cuda_walk_in_flight(s->w) == 0)
            break;
        cuda_walk_batch b;
        if (cuda_walk_collect(s->w, &b, err, sizeof err) != 0) {
            run_fail(g, err);
            break;
        }
        process(s, &b);
        const double t = now_s();
        if (o->verbose) {
            pthread_mutex_lock(&g->mu);
            const int best = g->best_rank;
            pthread_mutex_unlock(&g->mu);
            char who[48] = "";
            if (g->nsets > 1)
                snprintf(who, sizeof who, " [set %d, GPU %d]", s->index, s->st.device);
            fprintf(stderr, "gpu walk%s: launch %ld, %u steps, %.1f ms, %d improved (%d later), best %d, %.3g flips/s\n",
                    who, b.launch, b.steps, b.ms, b.improved, b.improved_dropped, best,
                    (double)s->st.flips / (t - g->t0));
        }
        if (!o->steps && !timed) {
            if (b.ms < o->launch_ms / 2 && steps < (1u << 24))
                steps *= 2;
            else if (b.ms > o->launch_ms * 2 && steps > 64)
                steps /= 2;
        }
        pthread_mutex_lock(&g->mu);
        if (search_stop_requested()) {
            g->interrupted = true;
            g->stop = true;
        }
        if ((p->time_limit > 0 && t - g->t0 >= p->time_limit) || (p->max_flips && flips_locked(g) >= p->max_flips))
            g->stop = true;
        stopping = g->stop;
        failed = g->failed;
        pthread_mutex_unlock(&g->mu);
    }
    /* whatever is still in flight (after a failure) finishes before the buffers go */
    while (cuda_walk_in_flight(s->w) > 0) {
        cuda_walk_batch b;
        if (cuda_walk_collect(s->w, &b, err, sizeof err) != 0)
            break;
    }
    pthread_mutex_lock(&g->mu);
    g->running--;
    pthread_cond_signal(&g->finished);
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

static int distinct_devices(const gpu_search *g)
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

/* The progress report, taken under g->mu (the pool level is filled after). */
static void progress_locked(gpu_search *g, double t, double *last_t, uint64_t *last_flips, search_progress *pr)
{
    memset(pr, 0, sizeof *pr);
    const uint64_t flips = flips_locked(g);
    pr->seconds = t - g->t0;
    pr->flips = flips;
    pr->flips_per_s = t > *last_t ? (double)(flips - *last_flips) / (t - *last_t) : 0;
    pr->best_rank = g->best_rank;
    pr->record = search_record_rank(g->p->fmt);
    pr->plateau = g->p->plateau;
    pr->best_age = t - g->best_t;
    pr->devices = distinct_devices(g);
    int cap = 0;
    for (int k = 0; k < g->nsets; k++) {
        const gpu_set *s = &g->sets[k];
        pr->plus += s->st.plus;
        pr->restarts += s->st.restarts;
        pr->reductions += s->st.reductions;
        if (s->has_ranks) {
            pr->walkers += s->info.warps;
            if (s->info.cap > cap)
                cap = s->info.cap;
        }
    }
    /* the walkers' ranks: min, (lower) median and max over every set's last launch */
    int seen = 0;
    const int mid = (pr->walkers - 1) / 2;
    for (int r = 0; r <= cap && pr->walkers > 0; r++) {
        int c = 0;
        for (int k = 0; k < g->nsets; k++)
            if (g->sets[k].has_ranks && r <= g->sets[k].info.cap)
                c += g->sets[k].rank_count[r];
        if (!c)
            continue;
        if (!pr->rank_min)
            pr->rank_min = r;
        if (seen <= mid && mid < seen + c)
            pr->rank_median = r;
        pr->rank_max = r;
        seen += c;
    }
    *last_t = t;
    *last_flips = flips;
}

/* The calling thread: waits for the sets, reporting progress on the way. */
static void monitor(gpu_search *g)
{
    const search_params *p = g->p;
    const bool report = p->progress_every > 0 && g->cb && g->cb->progress;
    double last_t = g->t0, next = g->t0 + p->progress_every;
    uint64_t last_flips = 0;
    pthread_mutex_lock(&g->mu);
    while (g->running > 0) {
        if (!report) {
            pthread_cond_wait(&g->finished, &g->mu);
            continue;
        }
        const double t = now_s();
        if (t >= next) {
            search_progress pr;
            progress_locked(g, t, &last_t, &last_flips, &pr);
            pthread_mutex_unlock(&g->mu);
            pr.level = search_pool_level(&g->pool, &pr.level_count);
            g->cb->progress(g->cb->ctx, &pr);
            next = t + p->progress_every;
            pthread_mutex_lock(&g->mu);
            continue;
        }
        struct timespec ts; /* the condition variable runs on CLOCK_MONOTONIC (main) */
        const double w = next < t + 1 ? next : t + 1;
        ts.tv_sec = (time_t)w;
        ts.tv_nsec = (long)((w - (double)ts.tv_sec) * 1e9);
        pthread_cond_timedwait(&g->finished, &g->mu, &ts);
    }
    pthread_mutex_unlock(&g->mu);
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

/* Creates set k's walk on its device, loads its walkers and its device pool. */
static bool set_create(gpu_search *g, gpu_set *s, int cap, int first_walker, scheme *const *f2s, int nstarts,
                       search_result *res)
{
    const search_params *p = g->p;
    const search_gpu_options *o = g->o;
    char err[256], where[48] = "";
    if (g->nsets > 1)
        snprintf(where, sizeof where, " on GPU %d (set %d)", s->st.device, s->index);
    cuda_walk_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.warps = o->warps;
    cfg.cap = cap;
    cfg.device = s->st.device;
    cfg.seed = s->st.seed;
    cfg.rounds = o->rounds;
    cfg.gen_max = p->gen_max < 5 ? p->gen_max : 5;
    cfg.plateau = p->plateau > 0xffffffffu ? 0xffffffffu : (uint32_t)p->plateau;
    cfg.plus_max = p->plus_max;
    cfg.target_rank = p->target_rank;
    cfg.mix_every = o->mix_every;
    cfg.walk_len = p->walk_len > 0xffffffffu ? 0xffffffffu : (uint32_t)p->walk_len;
    cfg.walk_max = p->walk_max > 0xffffffffu ? 0xffffffffu : (uint32_t)p->walk_max;
    cfg.pool_cap = p->pool_size < 256 ? p->pool_size : 256;
    cfg.sample = o->check;
    cfg.check_pairs = o->check_pairs;
    cfg.idle_plus = o->idle_plus;
    cfg.isolated_restart = o->isolated_restart;
    cfg.store = o->store;
    if (timed_launches(o))
        cfg.launch_us = (uint32_t)(o->launch_ms * 1000);
    int rc = cuda_walk_create(&cfg, &s->w, err, sizeof err);
    if (rc != 0) {
        snprintf(res->msg, sizeof res->msg, "GPU walk%s: %s", where, err);
        res->status = rc == 2 ? SEARCH_BAD_PARAMS : SEARCH_FAILED;
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
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = SEARCH_FAILED;
        return false;
    }
    if (o->verbose)
        fprintf(stderr, "gpu walk%s: %s; %d walkers, cap %d, %s store, walk_len %u, plateau %u, plus_max %d, "
                "idle_plus %u, pool_min %d, seed %llu\n", where, s->info.device,
                s->info.warps, s->info.cap, s->info.store == CUDA_WALK_STORE_REGS ? "register" : "shared-memory",
                cfg.walk_len, cfg.plateau, cfg.plus_max, cfg.idle_plus, p->pool_min,
                (unsigned long long)cfg.seed);
    for (int i = 0; i < s->info.warps; i++) {
        const scheme *sc = f2s[(first_walker + i) % nstarts];
        for (int k = 0; k < sc->rank; k++)
            memcpy(s->terms + 3 * k, sc->terms[k].f, 3 * sizeof(uint64_t));
        if (cuda_walk_load(s->w, i, s->terms, sc->rank, err, sizeof err) != 0) {
            snprintf(res->msg, sizeof res->msg, "GPU walk%s: %s", where, err);
            res->status = SEARCH_FAILED;
            return false;
        }
    }
    if (!upload_pool(s)) {
        snprintf(res->msg, sizeof res->msg, "GPU walk%s: %.400s", where, g->msg);
        res->status = SEARCH_FAILED;
        return false;
    }
    return true;
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
    if (o->rounds < 1 || o->rounds > 64 || o->warps < 0 || o->mix_every < 0 || o->check < 0 ||
        o->store < 0 || o->store > 2 || !(o->launch_ms > 0) || o->launch_ms > 60000) {
        snprintf(res->msg, sizeof res->msg, "bad GPU options (rounds 1..64, launch 0..60000 ms, no negative values)");
        return res->status;
    }

    gpu_search g;
    memset(&g, 0, sizeof g);
    g.p = p;
    g.o = o;
    g.cb = cb;
    g.nsets = nsets;
    g.best_rank = SCHEME_MAX_RANK + 1;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&g.mu, NULL);
    pthread_cond_init(&g.finished, &ca);
    pthread_condattr_destroy(&ca);

    scheme *std = NULL;
    scheme **f2s = NULL;
    bool pool_ok = false;
    g.sets = calloc((size_t)nsets, sizeof *g.sets);
    if (!g.sets) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = SEARCH_FAILED;
        goto out;
    }
    for (int k = 0; k < nsets; k++) {
        gpu_set *s = &g.sets[k];
        s->g = &g;
        s->index = k;
        s->st.device = o->ndevices > 0 ? o->devices[k] : p->device;
        s->st.seed = set_seed(p->seed, k);
        scheme_rng_seed(&s->rng, s->st.seed ^ 0x9e3779b97f4a7c15ull);
    }

    /* the start schemes, verified: the pool's first members (as driver.c) */
    int max_rank;
    if (!search_starts_prepare(p, &starts, &nstarts, &std, &max_rank, res))
        goto out;
    /* plus transitions stop at the cap; restarts come from lower ranks */
    int cap = (max_rank + 31) / 32 * 32;
    if (cap < 32)
        cap = 32;
    if (cap > CUDA_WALK_MAX_CAP) {
        snprintf(res->msg, sizeof res->msg, "start rank %d: the GPU walk holds at most %d terms", max_rank,
                 CUDA_WALK_MAX_CAP);
        goto out;
    }
    if (!(pool_ok = search_pool_init(&g.pool, max_rank, p->pool_size, p->pool_min))) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = SEARCH_FAILED;
        goto out;
    }
    f2s = calloc((size_t)nstarts, sizeof *f2s);
    if (!f2s) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = SEARCH_FAILED;
        goto out;
    }
    for (int i = 0; i < nstarts; i++) {
        f2s[i] = scheme_to_f2(starts[i]);
        verify_result vr;
        memset(&vr, 0, sizeof vr);
        if (!f2s[i] || !verify_f2(f2s[i], &vr)) {
            if (f2s[i])
                snprintf(res->msg, sizeof res->msg, "start scheme %d does not verify over GF(2): %.400s", i + 1,
                         vr.msg);
            else
                snprintf(res->msg, sizeof res->msg, "out of memory");
            res->status = f2s[i] ? SEARCH_BAD_PARAMS : SEARCH_FAILED;
            goto out;
        }
        if (f2s[i]->rank < 2) {
            snprintf(res->msg, sizeof res->msg, "start scheme %d has rank %d: nothing to walk", i + 1,
                     f2s[i]->rank);
            goto out;
        }
        search_pool_add(&g.pool, f2s[i], &g.sets[0].rng, NULL);
        if (f2s[i]->rank < g.best_rank) {
            g.best_rank = f2s[i]->rank;
            scheme_free(g.best);
            g.best = scheme_clone(f2s[i]);
        }
    }
    res->start_rank = g.best_rank;

    for (int k = 0, first = 0; k < nsets; k++) {
        if (!set_create(&g, &g.sets[k], cap, first, f2s, nstarts, res))
            goto out;
        first += g.sets[k].info.warps;
    }

    g.t0 = g.best_t = now_s();
    if (p->target_rank > 0 && g.best_rank <= p->target_rank)
        g.reached = g.stop = true;
    g.running = nsets;
    for (int k = 0; k < nsets; k++) {
        int e = pthread_create(&g.sets[k].thread, NULL, set_walk, &g.sets[k]);
        if (e != 0) {
            char m[128];
            snprintf(m, sizeof m, "cannot start the thread of walker set %d: %s", k, strerror(e));
            pthread_mutex_lock(&g.mu);
            fail_locked(&g, m);
            g.running -= nsets - k;
            pthread_mutex_unlock(&g.mu);
            break;
        }
        g.sets[k].started = true;
    }
    monitor(&g);
    for (int k = 0; k < nsets; k++)
        if (g.sets[k].started)
            pthread_join(g.sets[k].thread, NULL);

    res->seconds = now_s() - g.t0;
    uint64_t returned = 0, pooled = 0, isolated = 0;
    for (int k = 0; k < nsets; k++) {
        const gpu_set *s = &g.sets[k];
        res->flips += s->st.flips;
        res->plus += s->st.plus;
        res->reductions += s->st.reductions;
        res->restarts += s->st.restarts;
        returned += s->st.returned;
        pooled += s->st.pooled;
        isolated += s->isolated;
    }
    if (o->verbose)
        fprintf(stderr, "gpu walk: %llu returned schemes (%llu new to the pool, %llu flip-isolated not pooled) from %d set%s\n",
                (unsigned long long)returned, (unsigned long long)pooled, (unsigned long long)isolated, nsets,
                nsets > 1 ? "s" : "");
    res->improvements = g.improvements;
    res->interrupted = g.interrupted;
    res->best_rank = g.best_rank;
    res->best = g.best;
    g.best = NULL;
    if (g.failed) {
        res->status = SEARCH_FAILED;
        snprintf(res->msg, sizeof res->msg, "%s", g.msg);
    } else if (p->target_rank > 0) {
        res->status = res->best_rank <= p->target_rank ? SEARCH_REACHED : SEARCH_NOT_REACHED;
    } else {
        res->status = SEARCH_REACHED;
    }
    if (stats) {
        stats->sets = nsets;
        for (int k = 0; k < nsets; k++)
            stats->set[k] = g.sets[k].st;
        pthread_mutex_lock(&g.pool.mu);
        stats->pool_added = g.pool.added;
        pthread_mutex_unlock(&g.pool.mu);
    }
out:
    for (int k = 0; g.sets && k < nsets; k++) {
        gpu_set *s = &g.sets[k];
        if (s->w)
            cuda_walk_destroy(s->w);
        free(s->terms);
        free(s->pool_terms);
        free(s->pool_ranks);
        free(s->rank_count);
    }
    free(g.sets);
    for (int i = 0; f2s && i < nstarts; i++)
        scheme_free(f2s[i]);
    free(f2s);
    scheme_free(g.best);
    if (pool_ok)
        search_pool_free(&g.pool);
    scheme_free(std);
    pthread_cond_destroy(&g.finished);
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
