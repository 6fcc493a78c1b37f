/* The CPU backend of the engine (engine.h): one walker per thread.
 *
 * A walker walks from its base rank (the rank it restarted at) until it gets
 * below it (an improvement for the walker: the scheme is offered to the
 * engine, which verifies, pools and reports it, and the walk goes on from
 * there) or until walk_len flips pass without that (a failed walk: the walker
 * restarts from the pool, engine_restart).  With one thread a seed replays
 * exactly: nothing the walk does depends on time.  The engine does the rest:
 * starts, pool, verification, callbacks, stop conditions, progress, result.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/walk_bias.h"
#include "engine.h"
#include "walker_impl.h"

typedef struct worker_stat {
    _Atomic uint64_t flips, plus, restarts, reductions;
    _Atomic uint64_t undone; /* flips the bias undid */
    _Atomic uint64_t plateau;
    _Atomic uint64_t siblings; /* failed walks' schemes the pool took (search_params.siblings) */
    atomic_int rank;        /* the walker's current rank, for the progress spread; 0: not started */
    char pad[4];            /* one cache line per walker: no false sharing of the counters */
} worker_stat;
_Static_assert(sizeof(worker_stat) == 64, "worker_stat fills one cache line");

typedef struct cpu_backend cpu_backend;

typedef struct worker_arg {
    cpu_backend *c;
    int id;
    uint64_t seed;
    uint64_t budget; /* flips; 0: unlimited */
    pthread_t th;
    bool started;
} worker_arg;

struct cpu_backend {
    engine *e;
    const search_params *p; /* the walk's settings: the run's, or those of walkers beside a GPU */
    int id_base;            /* walker ids: id_base + thread */
    int cap;
    int nthreads;
    worker_stat *ws;
    worker_arg *args;
};

/* The Luby sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...: walks of these
 * lengths (times walk_len) are within a logarithmic factor of the best fixed
 * restart length for any distribution of the time to improve (Luby, Sinclair,
 * Zuckerman 1993) - and that distribution changes with every rank. */
uint64_t search_luby(uint64_t i)
{
    for (;;) {
        uint64_t k = 1;
        while (((1ull << k) - 1) < i)
            k++;
        if (i == (1ull << k) - 1)
            return 1ull << (k - 1);
        i -= (1ull << (k - 1)) - 1;
    }
}

/* Offers the walker's scheme to the engine (verified, pooled, reported there).
 * Returns engine_offer's ENGINE_* bits; -1: the run failed. */
static int offer(engine *e, search_walker *w, scheme_rng *rng, int id)
{
    scheme *s = search_walker_snapshot(w);
    if (!s) {
        engine_fail(e, SEARCH_FAILED, "out of memory");
        return -1;
    }
    const int r = engine_offer(e, id, s, rng);
    scheme_free(s);
    return r;
}

/* Whether a walk that failed at this rank pools its scheme: at the pool's
 * level only, by the siblings rule (engine_siblings_open). */
static bool sibling_wanted(engine *e, const search_params *p, int walker, int rank)
{
    if (!p->siblings)
        return false;
    int count = 0;
    const int level = engine_pool_level(e, walker, &count);
    return rank == level && engine_siblings_open(p, count);
}

static void publish(worker_stat *ws, const search_walker_stats *st, const search_walker_stats *st0)
{
    atomic_store(&ws->flips, st->flips - st0->flips);
    atomic_store(&ws->plus, st->plus - st0->plus);
    atomic_store(&ws->reductions, st->reductions - st0->reductions);
    atomic_store(&ws->undone, st->undone - st0->undone);
}

static void *worker(void *arg)
{
    worker_arg *a = arg;
    cpu_backend *c = a->c;
    engine *e = c->e;
    const search_params *p = c->p;
    worker_stat *ws = &c->ws[a->id];
    scheme_rng rng; /* pool choices: separate from the walk's own stream */
    scheme_rng_seed(&rng, a->seed ^ 0x5bd1e9955bd1e995ull);
    scheme *tmp = scheme_standard(p->fmt); /* a placeholder to build the walker */
    search_walker *w = tmp ? search_walker_new(tmp, p, a->seed, c->cap) : NULL;
    scheme_free(tmp);
    if (!w) {
        engine_fail(e, SEARCH_FAILED, "out of memory (walker %d)", a->id);
        engine_thread_end(e);
        return NULL;
    }
    /* this thread's weight bias where a window is spread over the threads */
    w->weight_bias = cuda_walk_bias_at(p->weight_bias, p->weight_bias_max, a->id, c->nthreads);
    const int id = c->id_base + a->id; /* the engine's walker id: its island, its reports */
    int base = engine_restart(e, id, &rng, w);
    uint64_t since = 0, done_total = 0;
    uint64_t k = 1; /* walks so far: the k-th walk is walk_len * luby(k) long */
    uint64_t wlen = p->walk_len;
    int stuck = 0;
    search_walker_stats st0, st;
    search_walker_stats_get(w, &st0);
    while (base >= 0 && !engine_should_stop(e)) {
        atomic_store_explicit(&ws->rank, search_walker_rank(w), memory_order_relaxed);
        if (search_walker_rank(w) < base) {
            if (offer(e, w, &rng, id) < 0)
                break;
            base = search_walker_rank(w);
            since = 0; /* the walk goes on from the fresh scheme */
            /* the adaptive plateau: plus transitions less often while flips alone make progress */
            w->L = w->L * 2 < w->Lmax ? w->L * 2 : w->Lmax;
            if (!p->isolated_plus && walker_flip_isolated(w))
                since = wlen; /* flip-isolated: a dead end, restart (else the walk's plus moves on) */
            continue;
        }
        if (since >= wlen) {
            /* a failed walk: restart from the pool; more plus transitions while the level is hard */
            if (sibling_wanted(e, p, id, search_walker_rank(w))) {
                const int r = offer(e, w, &rng, id);
                if (r < 0)
                    break;
                if (r & ENGINE_POOLED)
                    atomic_fetch_add(&ws->siblings, 1);
            }
            w->L = w->L / 2 > w->Lmin ? w->L / 2 : w->Lmin;
            base = engine_restart(e, id, &rng, w);
            since = 0;
            k++;
            wlen = p->walk_len * search_luby(k);
            if (wlen > p->walk_max)
                wlen = p->walk_max;
            atomic_fetch_add(&ws->restarts, 1);
            continue;
        }
        uint64_t n = p->batch;
        if (since + n > wlen)
            n = wlen - since;
        if (a->budget) {
            if (done_total >= a->budget)
                break;
            if (n > a->budget - done_total)
                n = a->budget - done_total;
        }
        uint64_t done = search_walker_walk(w, n, base, base);
        if (!done && search_walker_rank(w) >= base) {
            /* a flip-isolated scheme: restart from the pool; when the restart is
             * isolated too, a plus transition moves on (the only move there is);
             * when that fails as well, nothing is left to do */
            if (stuck++ == 1 && search_walker_plus(w))
                continue;
            if (stuck > 3)
                break;
            since = wlen;
            continue;
        }
        stuck = 0;
        since += done;
        done_total += done;
        search_walker_stats_get(w, &st);
        publish(ws, &st, &st0);
        atomic_store(&ws->plateau, w->L);
    }
    search_walker_stats_get(w, &st);
    publish(ws, &st, &st0);
    search_walker_free(w);
    engine_thread_end(e);
    return NULL;
}

/* The walkers of c: p->threads of them with p's walk settings, ids from id_base. */
static bool cpu_init(cpu_backend *c, engine *e, const search_params *p, int id_base)
{
    c->e = e;
    c->p = p;
    c->id_base = id_base;
    c->cap = engine_max_start_rank(e) + p->plus_max + 8;
    c->nthreads = p->threads;
    c->ws = calloc((size_t)p->threads, sizeof *c->ws);
    c->args = calloc((size_t)p->threads, sizeof *c->args);
    if (!c->ws || !c->args) {
        engine_fail(e, SEARCH_FAILED, "out of memory");
        return false;
    }
    uint64_t sm = p->seed;
    for (int i = 0; i < p->threads; i++) {
        c->args[i].c = c;
        c->args[i].id = i;
        c->args[i].seed = scheme_splitmix64(&sm);
        c->args[i].budget = p->max_flips ? p->max_flips / (uint64_t)p->threads +
                                               ((uint64_t)i < p->max_flips % (uint64_t)p->threads)
                                         : 0;
    }
    return true;
}

static bool cpu_setup(engine *e, void *ctx) { return cpu_init(ctx, e, engine_params(e), 0); }

static bool cpu_start(engine *e, void *ctx)
{
    cpu_backend *c = ctx;
    /* Workers block no signals of their own: the session's handler only sets
     * the stop flag, whichever thread runs it. */
    for (int i = 0; i < c->nthreads; i++) {
        worker_arg *a = &c->args[i];
        if (c->p->max_flips && !a->budget)
            continue;
        engine_thread_begin(e);
        if (pthread_create(&a->th, NULL, worker, a) != 0) {
            engine_thread_end(e);
            engine_fail(e, SEARCH_FAILED, "cannot start thread %d", i);
            return false;
        }
        a->started = true;
    }
    return true;
}

static void cpu_stats(void *ctx, engine_stats *st)
{
    cpu_backend *c = ctx;
    for (int i = 0; c->ws && i < c->nthreads; i++) {
        const worker_stat *ws = &c->ws[i];
        st->flips += atomic_load(&ws->flips);
        st->plus += atomic_load(&ws->plus);
        st->restarts += atomic_load(&ws->restarts);
        st->reductions += atomic_load(&ws->reductions);
        st->undone += atomic_load(&ws->undone);
        st->siblings += atomic_load(&ws->siblings);
        if (st->rank_count) {
            const int r = atomic_load_explicit(&ws->rank, memory_order_relaxed);
            if (r > 0) { /* 0: not started yet */
                st->rank_count[r < SCHEME_MAX_RANK ? r : SCHEME_MAX_RANK]++;
                st->walkers++;
            }
        }
    }
    st->plateau = c->ws && c->nthreads ? atomic_load(&c->ws[0].plateau) : 0;
    st->devices = 0;
}

static void cpu_join(void *ctx)
{
    cpu_backend *c = ctx;
    for (int i = 0; c->args && i < c->nthreads; i++)
        if (c->args[i].started)
            pthread_join(c->args[i].th, NULL);
}

static void cpu_free(cpu_backend *c)
{
    free(c->ws);
    free(c->args);
}

/* ---- CPU walkers beside another backend (--host-threads) ------------------ */

/* The run's backend and CPU walkers beside it, as one backend to the engine:
 * one pool, one best, one stop; the beside walkers walk with their own
 * settings (search_gpu_options.beside) and ids from SEARCH_BESIDE_WALKER0. */
typedef struct beside_backend {
    const engine_backend *main;
    cpu_backend cpu;
    search_params q;
} beside_backend;

static bool beside_setup(engine *e, void *ctx)
{
    beside_backend *bb = ctx;
    if (bb->main->setup && !bb->main->setup(e, bb->main->ctx))
        return false;
    return cpu_init(&bb->cpu, e, &bb->q, SEARCH_BESIDE_WALKER0);
}

static bool beside_start(engine *e, void *ctx)
{
    beside_backend *bb = ctx;
    return bb->main->start(e, bb->main->ctx) && cpu_start(e, &bb->cpu);
}

static void beside_stats(void *ctx, engine_stats *st)
{
    beside_backend *bb = ctx;
    cpu_stats(&bb->cpu, st);
    bb->main->stats(bb->main->ctx, st); /* the main backend's plateau and devices are the row's */
}

static void beside_join(void *ctx)
{
    beside_backend *bb = ctx;
    bb->main->join(bb->main->ctx);
    cpu_join(&bb->cpu);
}

static void beside_walker_name(void *ctx, int walker, char *buf, size_t len)
{
    beside_backend *bb = ctx;
    if (walker >= SEARCH_BESIDE_WALKER0)
        snprintf(buf, len, "CPU walker %d beside the %s", walker - SEARCH_BESIDE_WALKER0,
                 bb->main->name ? bb->main->name : "run's backend");
    else if (bb->main->walker_name)
        bb->main->walker_name(bb->main->ctx, walker, buf, len);
    else
        snprintf(buf, len, "walker %d", walker);
}

search_status engine_run_beside(const search_params *p, const search_params *beside, const scheme *const *starts,
                                int nstarts, const search_callbacks *cb, const engine_backend *b,
                                search_result *res)
{
    if (!beside || p->host_threads <= 0 || beside->threads <= 0)
        return engine_run(p, starts, nstarts, cb, b, res);
    beside_backend bb;
    memset(&bb, 0, sizeof bb);
    bb.main = b;
    /* what is searched and when it stops: the run's; how a CPU walker walks: its own */
    bb.q = *p;
    bb.q.seed = p->seed ^ 0x686f73742d746872ull; /* streams apart from the main backend's */
    bb.q.threads = beside->threads;
    bb.q.max_flips = 0;
    bb.q.plateau = beside->plateau;
    bb.q.plateau_min = beside->plateau_min;
    bb.q.plateau_max = beside->plateau_max;
    bb.q.walk_len = beside->walk_len;
    bb.q.walk_max = beside->walk_max;
    bb.q.gen_max = beside->gen_max;
    bb.q.plus_max = beside->plus_max;
    bb.q.isolated_plus = beside->isolated_plus;
    bb.q.batch = beside->batch;
    bb.q.siblings = beside->siblings;
    const engine_backend eb = {b->name, &bb, beside_setup, beside_start, beside_stats, beside_join,
                               beside_walker_name};
    search_status st = engine_run(p, starts, nstarts, cb, &eb, res);
    cpu_free(&bb.cpu);
    return st;
}

search_status search_run_cpu(const search_params *p, const scheme *const *starts, int nstarts,
                             const search_callbacks *cb, search_result *res)
{
    cpu_backend c;
    memset(&c, 0, sizeof c);
    const engine_backend b = {"cpu", &c, cpu_setup, cpu_start, cpu_stats, cpu_join, NULL};
    search_status st = engine_run(p, starts, nstarts, cb, &b, res);
    cpu_free(&c);
    return st;
}
