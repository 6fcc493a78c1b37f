/* The search engine: the one loop of every backend (engine.h; docs/search.md,
 * "The engine and its backends").  Starts, pool, verification of every offered
 * scheme, the run's best and the improvement callbacks, stop conditions,
 * progress and the result live here; a backend (driver.c: CPU threads,
 * walk_gpu.c: GPU walker sets, tests/test_engine.c: a scripted fake) walks.
 */
#include "engine.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../verify/verify.h"
#include "pool.h"

static atomic_int stop_requested;
static const engine_layer *_Atomic g_layer;

void engine_set_layer(const engine_layer *l) { atomic_store(&g_layer, l); }

void search_request_stop(void) { atomic_store(&stop_requested, 1); }
bool search_stop_requested(void) { return atomic_load(&stop_requested) != 0; }
void search_clear_stop(void) { atomic_store(&stop_requested, 0); }

void search_result_free(search_result *r)
{
    if (!r)
        return;
    scheme_free(r->best);
    r->best = NULL;
    for (int i = 0; i < r->npool; i++)
        scheme_free(r->pool[i]);
    free(r->pool);
    r->pool = NULL;
    r->npool = 0;
}

/* Whether kept schemes from..n-1 (those of the rank being kept) hold this
 * canonical hash: islands may pool the same scheme (a start, a remote offer). */
static bool kept_already(const uint64_t *hashes, int from, int n, uint64_t h)
{
    for (int i = from; i < n; i++)
        if (hashes[i] == h)
            return true;
    return false;
}

/* Up to keep distinct schemes of the pools, lowest ranks first, into res->pool
 * (search_params.pool_keep): a run's variety at its best ranks, for the
 * researcher (search --pool-out) and for moves that take many schemes on.
 * best (the run's, may be NULL) comes first where no pool holds it: a
 * flip-isolated scheme is never pooled (engine_offer), and a run's folder
 * that a next run starts from should not lack the run's lowest rank.  The
 * pools may change meanwhile (a checkpoint): each is locked while it is read.
 * false: out of memory. */
static bool keep_pool(search_pool *pools, int npools, int keep, const scheme *best, search_result *res)
{
    const int max_rank = pools[0].max_rank;
    res->pool = keep ? calloc((size_t)keep, sizeof *res->pool) : NULL;
    uint64_t *hashes = keep ? calloc((size_t)keep, sizeof *hashes) : NULL;
    bool ok = !keep || (res->pool && hashes);
    if (ok && keep && best && best->rank <= max_rank) {
        scheme *c = scheme_clone(best);
        ok = c != NULL;
        const uint64_t h = ok ? scheme_hash(c) : 0; /* canonicalizes the copy */
        bool in = false;
        for (int k = 0; ok && k < npools && !in; k++)
            in = search_pool_holds(&pools[k], c, h);
        if (ok && !in) {
            hashes[res->npool] = h;
            res->pool[res->npool++] = c;
        } else
            scheme_free(c);
    }
    for (int r = 0; r <= max_rank && ok && res->npool < keep; r++) {
        const int rank_from = res->npool; /* one pool's members are distinct already */
        for (int k = 0; k < npools && ok && res->npool < keep; k++) {
            search_pool *pool = &pools[k];
            pthread_mutex_lock(&pool->mu);
            for (int i = 0; i < pool->r[r].count && ok && res->npool < keep; i++) {
                if (npools > 1 && kept_already(hashes, rank_from, res->npool, pool->r[r].hash[i]))
                    continue;
                scheme *c = scheme_clone(pool->r[r].s[i]);
                ok = c != NULL;
                if (ok) {
                    hashes[res->npool] = pool->r[r].hash[i];
                    res->pool[res->npool++] = c;
                }
            }
            pthread_mutex_unlock(&pool->mu);
        }
    }
    free(hashes);
    if (!res->npool) {
        free(res->pool);
        res->pool = NULL;
    }
    return ok;
}

struct engine {
    const search_params *p;
    const search_callbacks *cb;
    const engine_backend *b;
    const engine_layer *layer; /* g_layer when the run began (NULL: none) */
    search_pool *pools;       /* search_params.islands of them (1: every walker's) */
    int npools;               /* initialized so far (freed at the end) */
    scheme **starts;          /* verified, reduced */
    int nstarts, max_rank;
    double t0;
    atomic_int stop;          /* 1: finish (target, budget, request, failure) */
    atomic_int best_rank;
    _Atomic double best_t;    /* when best_rank was first reached (the plateau of the run) */
    pthread_mutex_t mu;       /* the best, the callbacks' serialization, failure; running */
    pthread_cond_t changed;   /* a thread ended or the run stopped */
    scheme *best;
    uint64_t improvements;
    atomic_bool failed;       /* written under mu; read anywhere */
    search_status fail_status;
    char msg[512];
    int running;              /* backend threads between engine_thread_begin and _end */
    int *rank_count;          /* [SCHEME_MAX_RANK + 1]: the monitor's scratch for stats() */
};

double search_clock_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void set_stop(engine *e)
{
    atomic_store(&e->stop, 1);
    pthread_mutex_lock(&e->mu);
    pthread_cond_broadcast(&e->changed);
    pthread_mutex_unlock(&e->mu);
}

/* ---- for backends -------------------------------------------------------- */

const search_params *engine_params(const engine *e) { return e->p; }
bool engine_should_stop(const engine *e) { return atomic_load_explicit(&((engine *)e)->stop, memory_order_relaxed) != 0; }
double engine_elapsed(const engine *e) { return search_clock_s() - e->t0; }
int engine_best_rank(const engine *e) { return atomic_load(&((engine *)e)->best_rank); }
int engine_nstarts(const engine *e) { return e->nstarts; }
const scheme *engine_start_scheme(const engine *e, int i) { return i >= 0 && i < e->nstarts ? e->starts[i] : NULL; }
int engine_max_start_rank(const engine *e) { return e->max_rank; }

static void vfail_locked(engine *e, search_status st, const char *fmt, va_list ap)
{
    if (!atomic_load(&e->failed)) {
        atomic_store(&e->failed, true);
        e->fail_status = st;
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    }
    atomic_store(&e->stop, 1);
    pthread_cond_broadcast(&e->changed);
}

static void fail_locked(engine *e, search_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_locked(engine *e, search_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_locked(e, st, fmt, ap);
    va_end(ap);
}

void engine_fail(engine *e, search_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&e->mu);
    vfail_locked(e, st, fmt, ap);
    pthread_mutex_unlock(&e->mu);
    va_end(ap);
}

void engine_thread_begin(engine *e)
{
    pthread_mutex_lock(&e->mu);
    e->running++;
    pthread_mutex_unlock(&e->mu);
}

void engine_thread_end(engine *e)
{
    pthread_mutex_lock(&e->mu);
    e->running--;
    pthread_cond_broadcast(&e->changed);
    pthread_mutex_unlock(&e->mu);
}

/* The backend's counters and the layer's (the other ranks'). */
static void run_stats(engine *e, engine_stats *st)
{
    e->b->stats(e->b->ctx, st);
    if (e->layer && e->layer->stats)
        e->layer->stats(e->layer->ctx, st);
}

static uint64_t backend_flips(engine *e)
{
    engine_stats st;
    memset(&st, 0, sizeof st);
    run_stats(e, &st);
    return st.flips;
}

void engine_stop(engine *e) { set_stop(e); }

void engine_local_stats(engine *e, engine_stats *st) { e->b->stats(e->b->ctx, st); }

const char *engine_failure(engine *e) { return atomic_load(&e->failed) ? e->msg : NULL; }

scheme *engine_best(engine *e)
{
    pthread_mutex_lock(&e->mu);
    scheme *b = e->best ? scheme_clone(e->best) : NULL;
    pthread_mutex_unlock(&e->mu);
    return b;
}

/* No two terms share a factor at any position: no flip at all.  Stops at the
 * first shared factor (a walk's schemes share many: this is O(rank) for them). */
static bool flip_isolated(const scheme *s)
{
    if (s->ring == SCHEME_RING_Z) /* factors equal up to sign */
        return search_z_count_flips(s) == 0;
    for (int x = 0; x < 3; x++)
        for (int i = 0; i < s->rank; i++)
            for (int j = i + 1; j < s->rank; j++)
                if (s->terms[i].f[x] == s->terms[j].f[x])
                    return false;
    return true;
}

static int improve(engine *e, int node, int walker, const scheme *s, int out);

/* The pool walker `walker` offers to and restarts from: i mod islands (docs/search.md,
 * "Islands"); the one pool without islands. */
static search_pool *walker_pool(engine *e, int walker)
{
    if (e->npools <= 1 || walker < 0)
        return &e->pools[0];
    return &e->pools[(unsigned)walker % (unsigned)e->npools];
}

/* engine_offer and engine_offer_remote: node < 0 is this process's own walker. */
static int offer(engine *e, int node, int walker, const scheme *s, scheme_rng *rng)
{
    if (atomic_load(&e->failed)) /* the run is over; nothing more is kept */
        return -1;
    verify_result vr;
    memset(&vr, 0, sizeof vr);
    /* over the run's ring: verify_z for a walk over Z (docs/search.md, "Searching over Z") */
    const scheme_ring ring = (scheme_ring)e->p->ring;
    if (s->fmt.n != e->p->fmt.n || s->fmt.m != e->p->fmt.m || s->fmt.p != e->p->fmt.p || s->ring != ring ||
        !verify_scheme(s, ring, &vr)) {
        char fb[32], who[64];
        if (node >= 0)
            snprintf(who, sizeof who, "rank %d's walker %d", node, walker);
        else if (e->b->walker_name)
            e->b->walker_name(e->b->ctx, walker, who, sizeof who);
        else
            snprintf(who, sizeof who, "walker %d", walker);
        engine_fail(e, SEARCH_FAILED, "BUG: %s produced a scheme of rank %d for %s that does not verify: %.300s",
                    who, s->rank, scheme_format_str(s->fmt, fb),
                    vr.msg[0] ? vr.msg : ring == SCHEME_RING_Z ? "not an integer scheme of the run's format"
                                                               : "not a GF(2) scheme of the run's format");
        return -1;
    }
    int out = 0;
    /* A scheme without a single flip (Strassen's, its square, ...) is a dead
     * end for walks: only a plus leaves it and the reductions lead straight
     * back.  It is reported when it is a new best, but not pooled. */
    if (flip_isolated(s)) {
        out |= ENGINE_ISOLATED;
    } else {
        bool oom = false;
        if (search_pool_add(walker_pool(e, walker), s, rng, &oom))
            out |= ENGINE_POOLED;
        if (oom) {
            engine_fail(e, SEARCH_FAILED, "out of memory");
            return -1;
        }
    }
    if (s->rank < atomic_load(&e->best_rank))
        out = improve(e, node, walker, s, out);
    if (out > 0 && node < 0 && e->layer && e->layer->kept && (out & (ENGINE_POOLED | ENGINE_IMPROVED)))
        e->layer->kept(e->layer->ctx, walker, s, out);
    return out;
}

int engine_offer(engine *e, int walker, const scheme *s, scheme_rng *rng) { return offer(e, -1, walker, s, rng); }

int engine_offer_remote(engine *e, int node, int walker, const scheme *s, scheme_rng *rng)
{
    return offer(e, node < 0 ? 0 : node, walker, s, rng);
}

/* s (verified) may beat the run's best: keeps it and reports it once. */
static int improve(engine *e, int node, int walker, const scheme *s, int out)
{
    pthread_mutex_lock(&e->mu);
    if (atomic_load(&e->failed)) {
        out = -1;
    } else if (s->rank < atomic_load(&e->best_rank)) {
        scheme *b = scheme_clone(s);
        if (!b) {
            fail_locked(e, SEARCH_FAILED, "out of memory");
            out = -1;
        } else {
            const double t = search_clock_s();
            atomic_store(&e->best_rank, s->rank);
            atomic_store(&e->best_t, t);
            scheme_free(e->best);
            e->best = b;
            e->improvements++;
            out |= ENGINE_IMPROVED;
            if (e->cb && e->cb->improved) {
                search_found f = {s, s->rank, t - e->t0, backend_flips(e), walker, node < 0 ? 0 : node};
                if (!e->cb->improved(e->cb->ctx, &f)) {
                    fail_locked(e, SEARCH_FAILED, "the improvement handler failed");
                    out = -1;
                }
            }
            if (e->p->target_rank > 0 && s->rank <= e->p->target_rank) {
                atomic_store(&e->stop, 1);
                pthread_cond_broadcast(&e->changed);
            }
        }
    }
    pthread_mutex_unlock(&e->mu);
    return out;
}

int engine_restart(engine *e, int walker, scheme_rng *rng, search_walker *w)
{
    return search_pool_restart(walker_pool(e, walker), rng, w);
}

int engine_stage(engine *e, scheme_rng *rng, int n, void (*visit)(void *ctx, int i, const scheme *s), void *ctx,
                 int *level, int *level_count)
{
    return search_pool_stage(&e->pools[0], rng, n, visit, ctx, level, level_count);
}

uint64_t engine_pool_version(engine *e)
{
    uint64_t v = 0;
    for (int k = 0; k < e->npools; k++) {
        pthread_mutex_lock(&e->pools[k].mu);
        v += e->pools[k].added;
        pthread_mutex_unlock(&e->pools[k].mu);
    }
    return v;
}

int engine_pool_level(engine *e, int walker, int *count) { return search_pool_level(walker_pool(e, walker), count); }

/* The lowest level of any island and that island's schemes there (the progress row's). */
static int lowest_level(engine *e, int *count)
{
    int level = -1;
    for (int k = 0; k < e->npools; k++) {
        int c = 0;
        const int l = search_pool_level(&e->pools[k], &c);
        if (l >= 0 && (level < 0 || l < level)) {
            level = l;
            if (count)
                *count = c;
        }
    }
    return level;
}

bool engine_siblings_open(const search_params *p, int level_count)
{
    return p->siblings == 2 || (p->siblings == 1 && level_count < p->pool_size);
}

int engine_island_count(engine *e, int island, int r)
{
    if (island < 0 || island >= e->npools || r < 0 || r > e->pools[island].max_rank)
        return 0;
    search_pool *pool = &e->pools[island];
    pthread_mutex_lock(&pool->mu);
    const int c = pool->r[r].count;
    pthread_mutex_unlock(&pool->mu);
    return c;
}

int engine_pool_count(engine *e, int r)
{
    int c = 0;
    for (int k = 0; k < e->npools; k++)
        c += engine_island_count(e, k, r);
    return c;
}

/* ---- the run --------------------------------------------------------------- */

/* The start schemes: verified over GF(2), reduced (every reduction taken, so
 * that restarts skip the checks), pooled; the best of them is the run's first
 * best.  false with res set. */
static bool prepare_starts(engine *e, const scheme *const *starts, int nstarts, search_result *res)
{
    const search_params *p = e->p;
    scheme *std = NULL;
    int max_rank;
    if (!search_starts_prepare(p, &starts, &nstarts, &std, &max_rank, res))
        return false;
    if (max_rank > SCHEME_MAX_RANK - p->plus_max - 8) {
        snprintf(res->msg, sizeof res->msg, "start rank %d too large", max_rank);
        scheme_free(std);
        return false;
    }
    e->max_rank = max_rank;
    e->starts = calloc((size_t)nstarts, sizeof *e->starts);
    const int islands = p->islands > 1 ? p->islands : 1;
    e->pools = calloc((size_t)islands, sizeof *e->pools);
    while (e->pools && e->npools < islands &&
           search_pool_init(&e->pools[e->npools], max_rank, p->pool_size, p->pool_min)) {
        e->pools[e->npools].up = p->pool_up;
        e->pools[e->npools].fresh = p->pool_fresh;
        e->npools++;
    }
    if (!e->starts || e->npools < islands) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = SEARCH_FAILED;
        scheme_free(std);
        return false;
    }
    scheme_rng rng0;
    scheme_rng_seed(&rng0, p->seed);
    int best = SCHEME_MAX_RANK + 1;
    bool ok = true;
    for (int i = 0; i < nstarts && ok; i++) {
        /* over GF(2) the words, zero terms dropped; over Z the coefficients (a
         * GF(2) start counts with coefficients 1: the standard algorithm) */
        const bool z = p->ring == SCHEME_RING_Z;
        scheme *f2 = z ? search_z_copy(starts[i]) : scheme_to_f2(starts[i]);
        verify_result vr;
        memset(&vr, 0, sizeof vr);
        if (f2 && z && search_z_max_coef(f2) > 63) { /* the walker's int8 sums stay exact below that */
            snprintf(res->msg, sizeof res->msg, "start scheme %d has a coefficient %d: a walk over Z takes "
                     "coefficients up to 63", i + 1, search_z_max_coef(f2));
            res->status = SEARCH_BAD_PARAMS;
            scheme_free(f2);
            ok = false;
            break;
        }
        const scheme_ring ring = z ? SCHEME_RING_Z : SCHEME_RING_F2;
        if (!f2 || !verify_scheme(f2, ring, &vr)) {
            if (f2)
                snprintf(res->msg, sizeof res->msg, "start scheme %d does not verify over %s: %.400s%s", i + 1,
                         scheme_ring_name(ring), vr.msg,
                         z && starts[i]->ring == SCHEME_RING_F2 ? " (a GF(2) scheme: lift it first, flipgraph lift)"
                                                                : "");
            else
                snprintf(res->msg, sizeof res->msg, "out of memory");
            res->status = f2 ? SEARCH_BAD_PARAMS : SEARCH_FAILED;
            scheme_free(f2);
            ok = false;
            break;
        }
        if (f2->rank < res->start_rank || !i)
            res->start_rank = f2->rank;
        /* pooled with every reduction taken (restarts then skip the checks) */
        search_walker *w = search_walker_new(f2, p, 0, 0);
        scheme *red = w ? search_walker_snapshot(w) : NULL;
        search_walker_free(w);
        scheme_free(f2);
        if (red && !verify_scheme(red, z ? SCHEME_RING_Z : SCHEME_RING_F2, &vr)) {
            snprintf(res->msg, sizeof res->msg, "BUG: the reduced start scheme %d does not verify: %.400s", i + 1,
                     vr.msg);
            scheme_free(red);
            red = NULL;
        } else if (!red) {
            snprintf(res->msg, sizeof res->msg, "out of memory");
        }
        if (!red) {
            res->status = SEARCH_FAILED;
            ok = false;
            break;
        }
        for (int k = 0; k < e->npools; k++) /* every island starts from every start */
            search_pool_add(&e->pools[k], red, &rng0, NULL);
        if (red->rank < best) {
            best = red->rank;
            scheme_free(e->best);
            e->best = scheme_clone(red);
        }
        e->starts[e->nstarts++] = red;
    }
    scheme_free(std);
    if (!ok)
        return false;
    if (!e->best) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = SEARCH_FAILED;
        return false;
    }
    atomic_store(&e->best_rank, best);
    for (int k = 0; k < e->npools; k++)
        e->pools[k].reduced = true;
    return true;
}

/* The spread of the walkers' current ranks from a histogram: lowest, lower
 * median, highest. */
static void rank_spread(const int *count, int walkers, search_progress *pr)
{
    pr->walkers = walkers;
    if (walkers <= 0)
        return;
    const int mid = (walkers - 1) / 2;
    int seen = 0;
    for (int r = 0; r <= SCHEME_MAX_RANK && seen < walkers; r++) {
        const int c = count[r];
        if (!c)
            continue;
        if (!seen)
            pr->rank_min = r;
        if (seen <= mid && mid < seen + c)
            pr->rank_median = r;
        pr->rank_max = r;
        seen += c;
    }
}

/* One progress row for any backend: the run's state and the backend's counters. */
static void fill_progress(engine *e, double t, double last_t, uint64_t last_flips, search_progress *pr)
{
    memset(pr, 0, sizeof *pr);
    engine_stats st;
    memset(&st, 0, sizeof st);
    memset(e->rank_count, 0, (SCHEME_MAX_RANK + 1) * sizeof *e->rank_count);
    st.rank_count = e->rank_count;
    run_stats(e, &st);
    pr->seconds = t - e->t0;
    pr->flips = st.flips;
    pr->flips_per_s = t > last_t ? (double)(st.flips - last_flips) / (t - last_t) : 0;
    pr->best_rank = atomic_load(&e->best_rank);
    pr->record = e->p->ring == SCHEME_RING_Z ? search_record_rank_z(e->p->fmt) : search_record_rank(e->p->fmt);
    /* with --pool-fresh 1 (the symmetric walks' default) every restart takes
     * the starts: the pool is never a start, and its level would read as
     * progress it is not (it stays at the start's rank on the GPU, whose
     * symmetric walkers offer nothing) */
    pr->level_count = 0;
    pr->level = e->p->pool_fresh >= 1 ? -1 : lowest_level(e, &pr->level_count);
    pr->plateau = st.plateau;
    pr->plus = st.plus;
    pr->restarts = st.restarts;
    pr->undone = st.undone;
    pr->reductions = st.reductions;
    rank_spread(e->rank_count, st.walkers, pr);
    pr->best_age = t - atomic_load(&e->best_t);
    if (pr->best_age < 0) /* an improvement stamped after t was read */
        pr->best_age = 0;
    pr->devices = st.devices;
}

/* The pool as the run's end returns it, handed to the checkpoint callback
 * while the walkers go on (keep_pool takes each pool's lock in turn). */
static void pool_checkpoint(engine *e, double t)
{
    search_result snap;
    memset(&snap, 0, sizeof snap);
    pthread_mutex_lock(&e->mu);
    scheme *best = e->best ? scheme_clone(e->best) : NULL;
    pthread_mutex_unlock(&e->mu);
    const bool ok = keep_pool(e->pools, e->npools, e->p->pool_keep, best, &snap);
    scheme_free(best);
    if (!ok)
        engine_fail(e, SEARCH_FAILED, "out of memory (a checkpoint of the pool, --pool-every)");
    else
        e->cb->pool_checkpoint(e->cb->ctx, snap.pool, snap.npool, t - e->t0);
    search_result_free(&snap);
}

/* The calling thread: stop conditions, progress and pool checkpoints until
 * every backend thread ended. */
static void monitor(engine *e, search_result *res)
{
    const search_params *p = e->p;
    const bool report = p->progress_every > 0 && e->cb && e->cb->progress;
    const bool checkpoints = p->pool_every > 0 && p->pool_keep > 0 && e->npools && e->cb && e->cb->pool_checkpoint;
    double last_t = e->t0, next = e->t0 + p->progress_every, next_pool = e->t0 + p->pool_every;
    uint64_t last_flips = 0;
    pthread_mutex_lock(&e->mu);
    while (e->running > 0) {
        /* wake at least every 10 ms: stop requests come from a signal handler */
        double t = search_clock_s(), w = t + 0.01;
        if (report && next < w)
            w = next;
        if (checkpoints && next_pool < w)
            w = next_pool;
        struct timespec ts = {(time_t)w, (long)((w - (double)(time_t)w) * 1e9)};
        pthread_cond_timedwait(&e->changed, &e->mu, &ts);
        if (e->running <= 0)
            break;
        pthread_mutex_unlock(&e->mu);
        t = search_clock_s();
        if (!atomic_load(&e->stop)) {
            if (search_stop_requested()) {
                res->interrupted = true;
                set_stop(e);
            } else if (p->time_limit > 0 && t - e->t0 >= p->time_limit) {
                set_stop(e);
            } else if (p->max_flips && backend_flips(e) >= p->max_flips) {
                set_stop(e);
            } else if (p->stall > 0 && t - atomic_load(&e->best_t) >= p->stall) {
                set_stop(e); /* stalled: no lower rank for p->stall seconds */
            }
        }
        if (report && t >= next) {
            search_progress pr;
            fill_progress(e, t, last_t, last_flips, &pr);
            e->cb->progress(e->cb->ctx, &pr);
            last_t = t;
            last_flips = pr.flips;
            next = t + p->progress_every;
        }
        if (checkpoints && t >= next_pool && !atomic_load(&e->stop)) {
            pool_checkpoint(e, t);
            next_pool = search_clock_s() + p->pool_every;
        }
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
}

search_status engine_run(const search_params *p, const scheme *const *starts, int nstarts,
                         const search_callbacks *cb, const engine_backend *b, search_result *res)
{
    memset(res, 0, sizeof *res);
    res->status = SEARCH_BAD_PARAMS;
    if (!search_params_check(p, res->msg, sizeof res->msg))
        return res->status;
    engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        return res->status = SEARCH_FAILED;
    }
    e->p = p;
    e->cb = cb;
    e->b = b;
    e->layer = atomic_load(&g_layer);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->changed, &ca);
    pthread_condattr_destroy(&ca);
    e->rank_count = calloc(SCHEME_MAX_RANK + 1, sizeof *e->rank_count);
    bool started = false;
    if (!e->rank_count) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = SEARCH_FAILED;
        goto out;
    }
    if (!prepare_starts(e, starts, nstarts, res))
        goto out;
    e->t0 = search_clock_s();
    atomic_store(&e->best_t, e->t0);
    if (atomic_load(&e->best_rank) < res->start_rank) {
        /* the start itself had reductions left: that is already an improvement */
        e->improvements++;
        if (cb && cb->improved) {
            search_found f = {e->best, e->best->rank, 0, 0, 0, 0};
            if (!cb->improved(cb->ctx, &f))
                fail_locked(e, SEARCH_FAILED, "the improvement handler failed");
        }
    }
    if (p->target_rank > 0 && atomic_load(&e->best_rank) <= p->target_rank)
        atomic_store(&e->stop, 1);
    if (!atomic_load(&e->stop)) {
        if (!b->setup || b->setup(e, b->ctx)) {
            /* the run's clock starts once the walkers exist (a GPU's setup takes a while) */
            e->t0 = search_clock_s();
            atomic_store(&e->best_t, e->t0);
            started = true;
            bool layer_started = false;
            if (b->start(e, b->ctx) && e->layer && e->layer->start)
                layer_started = e->layer->start(e, e->layer->ctx);
            monitor(e, res);
            b->join(b->ctx);
            if (layer_started && e->layer->join)
                e->layer->join(e->layer->ctx);
        } else if (!atomic_load(&e->failed)) {
            fail_locked(e, SEARCH_FAILED, "the %s backend could not start", b->name ? b->name : "search");
        }
    }
    if (search_stop_requested())
        res->interrupted = true;

    res->seconds = started ? search_clock_s() - e->t0 : 0;
    if (started) {
        engine_stats st;
        memset(&st, 0, sizeof st);
        run_stats(e, &st);
        res->flips = st.flips;
        res->plus = st.plus;
        res->restarts = st.restarts;
        res->undone = st.undone;
        res->siblings = st.siblings;
        res->pooled = engine_pool_version(e);
        res->reductions = st.reductions;
    }
    res->best_rank = atomic_load(&e->best_rank);
    res->best = e->best;
    e->best = NULL;
    res->improvements = e->improvements;
    if (p->pool_keep > 0 && e->npools && !keep_pool(e->pools, e->npools, p->pool_keep, res->best, res))
        engine_fail(e, SEARCH_FAILED, "out of memory (the pool's schemes that --pool-keep returns)");
    if (atomic_load(&e->failed)) {
        res->status = e->fail_status;
        snprintf(res->msg, sizeof res->msg, "%s", e->msg);
    } else if (p->target_rank > 0) {
        res->status = res->best_rank <= p->target_rank ? SEARCH_REACHED : SEARCH_NOT_REACHED;
    } else {
        res->status = SEARCH_REACHED;
    }
out:
    for (int i = 0; i < e->nstarts; i++)
        scheme_free(e->starts[i]);
    free(e->starts);
    scheme_free(e->best);
    for (int k = 0; k < e->npools; k++)
        search_pool_free(&e->pools[k]);
    free(e->pools);
    free(e->rank_count);
    pthread_cond_destroy(&e->changed);
    pthread_mutex_destroy(&e->mu);
    free(e);
    return res->status;
}
