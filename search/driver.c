/* The CPU search driver: one walker per thread, a shared pool, verified
 * improvements handed to the callbacks, progress, stop on target / time /
 * flip budget / request.
 *
 * A walker walks from its base rank (the rank it restarted at) until it gets
 * below it (an improvement for the walker: the scheme is verified, pooled,
 * reported when it beats the run's best, and the walk goes on from there) or
 * until walk_len flips pass without that (a failed walk: its final scheme, at
 * the base rank, is pooled as one more distinct scheme of that rank, and the
 * walker restarts from the pool).  With one thread a seed replays exactly:
 * nothing the walk does depends on time.
 */

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../verify/verify.h"
#include "pool.h"
#include "walker_impl.h"

static atomic_int stop_requested;

void search_request_stop(void) { atomic_store(&stop_requested, 1); }
bool search_stop_requested(void) { return atomic_load(&stop_requested) != 0; }
void search_clear_stop(void) { atomic_store(&stop_requested, 0); }

void search_result_free(search_result *r)
{
    if (r && r->best) {
        scheme_free(r->best);
        r->best = NULL;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct worker_stat {
    _Atomic uint64_t flips, plus, restarts, reductions;
    _Atomic uint64_t plateau;
    atomic_int rank;        /* the walker's current rank, for the progress spread; 0: not started */
    char pad[20];           /* one cache line per walker: no false sharing of the counters */
} worker_stat;
_Static_assert(sizeof(worker_stat) == 64, "worker_stat fills one cache line");

typedef struct driver {
    const search_params *p;
    const search_callbacks *cb;
    search_pool pool;
    int cap;
    double t0;
    atomic_int stop;        /* 1: finish; set by target, budget, failure, request */
    atomic_int best_rank;
    _Atomic double best_t;  /* when best_rank was first reached (now_s clock): the plateau */
    pthread_mutex_t mu;     /* improvements: best, callbacks, failure */
    scheme *best;
    uint64_t improvements;
    bool failed;
    char msg[512];
    worker_stat *ws;
    int nthreads;
    atomic_int running;
    /* test hook: FLIPGRAPH_SEARCH_CORRUPT=N damages the N-th scheme to keep,
     * so that tests see the verification failure path (exit 3, nothing kept) */
    long corrupt_at;
    atomic_long kept;
} driver;

static uint64_t total_flips(driver *d)
{
    uint64_t n = 0;
    for (int i = 0; i < d->nthreads; i++)
        n += atomic_load(&d->ws[i].flips);
    return n;
}

static void fail(driver *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(driver *d, const char *fmt, ...)
{
    pthread_mutex_lock(&d->mu);
    if (!d->failed) {
        d->failed = true;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&d->mu);
    atomic_store(&d->stop, 1);
}

/* Verifies the walker's scheme and keeps it: in the pool, and as the run's
 * best (with the callback) when it beats it.  false on failure (run stops). */
static bool keep(driver *d, search_walker *w, scheme_rng *rng, int id, bool report)
{
    scheme *s = search_walker_snapshot(w);
    if (!s) {
        fail(d, "out of memory");
        return false;
    }
    if (d->corrupt_at && atomic_fetch_add(&d->kept, 1) + 1 == d->corrupt_at)
        s->terms[0].f[0] ^= 1;
    verify_result vr;
    memset(&vr, 0, sizeof vr);
    if (!verify_f2(s, &vr)) {
        char fb[32];
        fail(d, "BUG: walker %d produced a scheme of rank %d for %s that does not verify: %s", id,
             s->rank, scheme_format_str(s->fmt, fb), vr.msg);
        scheme_free(s);
        return false;
    }
    bool oom = false;
    /* A scheme without a single flip (Strassen's, its square, ...) is a dead
     * end for walks: only a plus leaves it and the reductions lead straight
     * back.  It is reported when it is a new best, but not pooled. */
    if (w->nM[0] + w->nM[1] > 0)
        search_pool_add(&d->pool, s, rng, &oom);
    if (oom) {
        scheme_free(s);
        fail(d, "out of memory");
        return false;
    }
    bool ok = true;
    if (report && s->rank < atomic_load(&d->best_rank)) {
        pthread_mutex_lock(&d->mu);
        if (s->rank < atomic_load(&d->best_rank) && !d->failed) {
            atomic_store(&d->best_rank, s->rank);
            atomic_store(&d->best_t, now_s());
            scheme_free(d->best);
            d->best = scheme_clone(s);
            d->improvements++;
            if (d->cb && d->cb->improved) {
                search_found f = {s, s->rank, now_s() - d->t0, total_flips(d), id};
                if (!d->cb->improved(d->cb->ctx, &f)) {
                    d->failed = true;
                    snprintf(d->msg, sizeof d->msg, "the improvement handler failed");
                    atomic_store(&d->stop, 1);
                    ok = false;
                }
            }
            if (d->p->target_rank > 0 && s->rank <= d->p->target_rank)
                atomic_store(&d->stop, 1);
        }
        pthread_mutex_unlock(&d->mu);
    }
    scheme_free(s);
    return ok;
}

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

typedef struct worker_arg {
    driver *d;
    int id;
    uint64_t seed;
    uint64_t budget; /* flips; 0: unlimited */
} worker_arg;

static void *worker(void *arg)
{
    worker_arg *a = arg;
    driver *d = a->d;
    const search_params *p = d->p;
    worker_stat *ws = &d->ws[a->id];
    scheme_rng rng; /* pool choices: separate from the walk's own stream */
    scheme_rng_seed(&rng, a->seed ^ 0x5bd1e9955bd1e995ull);
    scheme *tmp = scheme_standard(p->fmt); /* a placeholder to build the walker */
    search_walker *w = tmp ? search_walker_new(tmp, p, a->seed, d->cap) : NULL;
    scheme_free(tmp);
    if (!w) {
        fail(d, "out of memory (walker %d)", a->id);
        atomic_fetch_sub(&d->running, 1);
        return NULL;
    }
    int base = search_pool_restart(&d->pool, &rng, w);
    uint64_t since = 0, done_total = 0;
    uint64_t k = 1; /* walks so far: the k-th walk is walk_len * luby(k) long */
    uint64_t wlen = p->walk_len;
    int stuck = 0;
    search_walker_stats st0, st;
    search_walker_stats_get(w, &st0);
    while (base >= 0 && !atomic_load(&d->stop)) {
        atomic_store_explicit(&ws->rank, search_walker_rank(w), memory_order_relaxed);
        if (search_walker_rank(w) < base) {
            if (!keep(d, w, &rng, a->id, true))
                break;
            base = search_walker_rank(w);
            since = 0; /* the walk goes on from the fresh scheme */
            /* the adaptive plateau: plus transitions less often while flips alone make progress */
            w->L = w->L * 2 < w->Lmax ? w->L * 2 : w->Lmax;
            if (w->nM[0] + w->nM[1] == 0)
                since = wlen; /* flip-isolated: a dead end, restart */
            continue;
        }
        if (since >= wlen) {
            /* a failed walk: restart from the pool; more plus transitions while the level is hard */
            w->L = w->L / 2 > w->Lmin ? w->L / 2 : w->Lmin;
            base = search_pool_restart(&d->pool, &rng, w);
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
        atomic_store(&ws->flips, st.flips - st0.flips);
        atomic_store(&ws->plus, st.plus - st0.plus);
        atomic_store(&ws->reductions, st.reductions - st0.reductions);
        atomic_store(&ws->plateau, w->L);
    }
    search_walker_stats_get(w, &st);
    atomic_store(&ws->flips, st.flips - st0.flips);
    atomic_store(&ws->plus, st.plus - st0.plus);
    atomic_store(&ws->reductions, st.reductions - st0.reductions);
    search_walker_free(w);
    atomic_fetch_sub(&d->running, 1);
    return NULL;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* The spread of the walkers' current ranks (the progress line's min, med, max): walkers
 * not started yet (rank 0) are left out; the median is the lower middle one.
 * ranks: room for d->nthreads. */
static void rank_spread(driver *d, int *ranks, search_progress *pr)
{
    int n = 0;
    for (int i = 0; i < d->nthreads; i++) {
        int r = atomic_load_explicit(&d->ws[i].rank, memory_order_relaxed);
        if (r > 0)
            ranks[n++] = r;
    }
    pr->walkers = n;
    if (!n)
        return;
    qsort(ranks, (size_t)n, sizeof *ranks, cmp_int);
    pr->rank_min = ranks[0];
    pr->rank_median = ranks[(n - 1) / 2];
    pr->rank_max = ranks[n - 1];
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

search_status search_run_cpu(const search_params *p, const scheme *const *starts, int nstarts,
                             const search_callbacks *cb, search_result *res)
{
    memset(res, 0, sizeof *res);
    res->status = SEARCH_BAD_PARAMS;
    if (!search_params_check(p, res->msg, sizeof res->msg))
        return res->status;
    driver d;
    memset(&d, 0, sizeof d);
    d.p = p;
    d.cb = cb;
    pthread_mutex_init(&d.mu, NULL);
    const char *corrupt = getenv("FLIPGRAPH_SEARCH_CORRUPT");
    d.corrupt_at = corrupt ? strtol(corrupt, NULL, 10) : 0;

    /* the start schemes, verified: the pool's first members */
    scheme *std = NULL;
    int max_rank;
    if (!search_starts_prepare(p, &starts, &nstarts, &std, &max_rank, res))
        return res->status;
    if (max_rank > SCHEME_MAX_RANK - p->plus_max - 8) {
        snprintf(res->msg, sizeof res->msg, "start rank %d too large", max_rank);
        scheme_free(std);
        return res->status;
    }
    d.cap = max_rank + p->plus_max + 8;
    if (!search_pool_init(&d.pool, max_rank, p->pool_size, p->pool_min)) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = SEARCH_FAILED;
        scheme_free(std);
        return res->status;
    }
    d.pool.up = p->pool_up;
    d.pool.fresh = p->pool_fresh;
    scheme_rng rng0;
    scheme_rng_seed(&rng0, p->seed);
    int best = SCHEME_MAX_RANK + 1;
    for (int i = 0; i < nstarts; i++) {
        scheme *f2 = scheme_to_f2(starts[i]); /* the words; zero terms dropped */
        verify_result vr;
        memset(&vr, 0, sizeof vr);
        if (!f2 || !verify_f2(f2, &vr)) {
            if (f2)
                snprintf(res->msg, sizeof res->msg, "start scheme %d does not verify over GF(2): %.400s",
                         i + 1, vr.msg);
            else
                snprintf(res->msg, sizeof res->msg, "out of memory");
            res->status = f2 ? SEARCH_BAD_PARAMS : SEARCH_FAILED;
            scheme_free(f2);
            search_pool_free(&d.pool);
            scheme_free(std);
            return res->status;
        }
        if (f2->rank < res->start_rank || !i)
            res->start_rank = f2->rank;
        /* pooled with every reduction taken (restarts then skip the checks) */
        search_walker *w = search_walker_new(f2, p, 0, 0);
        scheme *red = w ? search_walker_snapshot(w) : NULL;
        search_walker_free(w);
        scheme_free(f2);
        if (red && !verify_f2(red, &vr)) {
            snprintf(res->msg, sizeof res->msg, "BUG: the reduced start scheme %d does not verify: %.400s",
                     i + 1, vr.msg);
            scheme_free(red);
            red = NULL;
        } else if (!red) {
            snprintf(res->msg, sizeof res->msg, "out of memory");
        }
        if (!red) {
            res->status = SEARCH_FAILED;
            search_pool_free(&d.pool);
            scheme_free(std);
            scheme_free(d.best);
            return res->status;
        }
        search_pool_add(&d.pool, red, &rng0, NULL);
        if (red->rank < best) {
            best = red->rank;
            scheme_free(d.best);
            d.best = scheme_clone(red);
        }
        scheme_free(red);
    }
    scheme_free(std);
    atomic_store(&d.best_rank, best);
    d.pool.reduced = true;
    if (best < res->start_rank && d.best) {
        /* the start itself had reductions left: that is already an improvement */
        d.improvements++;
        if (cb && cb->improved) {
            search_found f = {d.best, best, 0, 0, 0};
            if (!cb->improved(cb->ctx, &f)) {
                d.failed = true;
                snprintf(d.msg, sizeof d.msg, "the improvement handler failed");
                atomic_store(&d.stop, 1);
            }
        }
    }
    if (p->target_rank > 0 && best <= p->target_rank)
        atomic_store(&d.stop, 1);

    d.nthreads = p->threads;
    d.ws = calloc((size_t)p->threads, sizeof *d.ws);
    worker_arg *args = calloc((size_t)p->threads, sizeof *args);
    pthread_t *th = calloc((size_t)p->threads, sizeof *th);
    int *ranks = calloc((size_t)p->threads, sizeof *ranks);
    if (!d.ws || !args || !th || !ranks) {
        free(d.ws);
        free(args);
        free(th);
        free(ranks);
        search_pool_free(&d.pool);
        scheme_free(d.best);
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = SEARCH_FAILED;
        return res->status;
    }
    uint64_t sm = p->seed;
    d.t0 = now_s();
    atomic_store(&d.best_t, d.t0); /* the start's rank is the best until a walker beats it */
    int started = 0;
    /* Workers block no signals of their own: the CLI's handler only sets the
     * stop flag, whichever thread runs it. */
    for (int i = 0; i < p->threads; i++) {
        args[i].d = &d;
        args[i].id = i;
        args[i].seed = scheme_splitmix64(&sm);
        args[i].budget = p->max_flips ? p->max_flips / (uint64_t)p->threads +
                                            ((uint64_t)i < p->max_flips % (uint64_t)p->threads)
                                      : 0;
        if (p->max_flips && !args[i].budget)
            continue;
        atomic_fetch_add(&d.running, 1);
        if (pthread_create(&th[i], NULL, worker, &args[i]) != 0) {
            atomic_fetch_sub(&d.running, 1);
            fail(&d, "cannot start thread %d", i);
            break;
        }
        started = i + 1;
    }

    double last_prog = d.t0, next_prog = d.t0 + p->progress_every;
    uint64_t last_flips = 0;
    while (atomic_load(&d.running) > 0) {
        sleep_s(0.01);
        double t = now_s();
        if (search_stop_requested() && !atomic_load(&d.stop)) {
            res->interrupted = true;
            atomic_store(&d.stop, 1);
        }
        if (p->time_limit > 0 && t - d.t0 >= p->time_limit)
            atomic_store(&d.stop, 1);
        if (p->progress_every > 0 && t >= next_prog && cb && cb->progress) {
            search_progress pr;
            memset(&pr, 0, sizeof pr);
            pr.seconds = t - d.t0;
            pr.flips = total_flips(&d);
            pr.flips_per_s = (double)(pr.flips - last_flips) / (t - last_prog);
            pr.best_rank = atomic_load(&d.best_rank);
            pr.record = search_record_rank(p->fmt);
            pr.level = search_pool_level(&d.pool, &pr.level_count);
            pr.plateau = atomic_load(&d.ws[0].plateau);
            for (int i = 0; i < d.nthreads; i++) {
                pr.plus += atomic_load(&d.ws[i].plus);
                pr.restarts += atomic_load(&d.ws[i].restarts);
                pr.reductions += atomic_load(&d.ws[i].reductions);
            }
            rank_spread(&d, ranks, &pr);
            pr.best_age = t - atomic_load(&d.best_t);
            if (pr.best_age < 0) /* an improvement stamped after t was read */
                pr.best_age = 0;
            pr.devices = 0;
            cb->progress(cb->ctx, &pr);
            last_prog = t;
            last_flips = pr.flips;
            next_prog = t + p->progress_every;
        }
    }
    for (int i = 0; i < started; i++)
        if (!p->max_flips || args[i].budget)
            pthread_join(th[i], NULL);
    if (search_stop_requested())
        res->interrupted = true;

    res->seconds = now_s() - d.t0;
    res->flips = total_flips(&d);
    for (int i = 0; i < d.nthreads; i++) {
        res->plus += atomic_load(&d.ws[i].plus);
        res->restarts += atomic_load(&d.ws[i].restarts);
        res->reductions += atomic_load(&d.ws[i].reductions);
    }
    res->best_rank = atomic_load(&d.best_rank);
    res->best = d.best;
    res->improvements = d.improvements;
    if (d.failed) {
        res->status = SEARCH_FAILED;
        snprintf(res->msg, sizeof res->msg, "%s", d.msg);
    } else if (p->target_rank > 0) {
        res->status = res->best_rank <= p->target_rank ? SEARCH_REACHED : SEARCH_NOT_REACHED;
    } else {
        res->status = SEARCH_REACHED;
    }
    free(d.ws);
    free(args);
    free(th);
    free(ranks);
    search_pool_free(&d.pool);
    pthread_mutex_destroy(&d.mu);
    return res->status;
}
