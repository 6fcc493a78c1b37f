/* Tests of the search engine (search/engine.c; docs/search.md, "The engine and
 * its backends") through a fake backend defined here: its walkers are threads
 * that run a scripted function, offer given schemes (valid improvements,
 * duplicates, flip-isolated ones, a corrupted one), count fake flips, sleep,
 * and report fake ranks.  What is tested is the engine's part: stop on target,
 * time limit, flip budget and search_request_stop; a scheme that does not
 * verify fails the run and is never reported nor pooled; every improvement
 * reaches the callback exactly once, serialized, in decreasing rank order, with
 * many walker threads offering at once; the restart policy (pool.c) and the
 * staging of a device pool by it; the progress rows' fields.
 *
 * The valid schemes come from a CPU walker on <4,4,4> from the standard
 * algorithm with a fixed seed (a chain of decreasing ranks). */
#include <criterion/criterion.h>

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "schemes/scheme.h"
#include "search/engine.h"
#include "test_common.h"
#include "search/pool.h"
#include "search/search.h"
#include "verify/verify.h"

/* ---------------------------------------------------------------- schemes */

#define CHAIN_MAX 64

/* Schemes of strictly decreasing rank, each verified: chain[0] is the first
 * rank below the standard algorithm's. */
typedef struct chain {
    scheme_format f;
    int n;
    scheme *s[CHAIN_MAX];
} chain;

static search_params params_for(scheme_format f)
{
    search_params p;
    search_params_default(&p);
    p.fmt = f;
    p.progress_every = 0;
    return p;
}

/* A walker from the standard algorithm, restarted from the best scheme so far
 * after every 1000 flips without a lower rank (as the engine's walks are). */
static void chain_build(chain *c, scheme_format f, int want, uint64_t flips)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    search_params p = params_for(f);
    p.plus_max = 0;
    p.isolated_plus = 1;
    scheme *std = scheme_standard(f), *cur = std;
    search_walker *w = search_walker_new(cur, &p, 12345, 0);
    cr_assert_not_null(w);
    uint64_t done = 0;
    while (c->n < want && c->n < CHAIN_MAX && done < flips) {
        const int rank = cur->rank;
        cr_assert(search_walker_reset(w, cur));
        const uint64_t d = search_walker_walk(w, 1000, rank, rank);
        done += d + 1;
        if (search_walker_rank(w) < rank) {
            c->s[c->n++] = search_walker_snapshot(w);
            cur = c->s[c->n - 1];
        }
    }
    search_walker_free(w);
    scheme_free(std); /* the chain's schemes are the chain's */
    for (int i = 0; i < c->n; i++) {
        verify_result vr;
        cr_assert(verify_f2(c->s[i], &vr), "chain %d: %s", i, vr.msg);
    }
    cr_assert_geq(c->n, 4, "the chain reached only %d ranks", c->n);
}

static void chain_free(chain *c)
{
    for (int i = 0; i < c->n; i++)
        scheme_free(c->s[i]);
    c->n = 0;
}

/* A distinct scheme of the same rank: a few flips on a copy (the tensor stays). */
static scheme *variant(const scheme *s, uint64_t seed)
{
    search_params p = params_for(s->fmt);
    p.plus_max = 0;
    for (int tries = 0; tries < 100; tries++) {
        search_walker *w = search_walker_new(s, &p, seed * 1000 + (uint64_t)tries, 0);
        cr_assert_not_null(w);
        for (int k = 0; k < 3; k++)
            search_walker_flip(w);
        scheme *v = search_walker_snapshot(w);
        search_walker_free(w);
        if (v->rank == s->rank && !scheme_equal(v, s))
            return v;
        scheme_free(v);
    }
    cr_assert_fail("no variant of rank %d", s->rank);
    return NULL;
}

static scheme *corrupted(const scheme *s)
{
    scheme *c = scheme_clone(s);
    c->terms[0].f[0] ^= 1;
    verify_result vr;
    cr_assert_not(verify_f2(c, &vr));
    return c;
}

/* Strassen's algorithm over GF(2): no two terms share a factor (flip-isolated). */
static scheme *strassen_f2(void)
{
    static const uint64_t t[7][3] = {{9, 9, 9}, {12, 1, 10}, {1, 10, 12}, {8, 5, 3},
                                     {3, 8, 5}, {5, 3, 8},   {10, 12, 1}};
    scheme *s = scheme_new((scheme_format){2, 2, 2}, SCHEME_RING_F2, 8);
    for (int r = 0; s && r < 7; r++)
        cr_assert(scheme_push(s, t[r][0], t[r][1], t[r][2]));
    return s;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(fmod(ms, 1000) * 1e6)};
    nanosleep(&ts, NULL);
}

/* ---------------------------------------------------------------- the fake backend */

#define FAKE_MAX 64

typedef struct fake fake;
typedef void (*fake_script)(fake *f, int id);

struct fake {
    engine *e;
    int nwalkers;
    fake_script script;
    void *user;
    pthread_t th[FAKE_MAX];
    bool started[FAKE_MAX];
    _Atomic uint64_t flips[FAKE_MAX], plus[FAKE_MAX], restarts[FAKE_MAX], reductions[FAKE_MAX];
    atomic_int rank[FAKE_MAX]; /* 0: not reported */
    uint64_t plateau;
    int devices;
    bool fail_setup;
    atomic_int setups, starts, joins, ended;
    /* what the walkers saw */
    atomic_int offer_improved[FAKE_MAX]; /* offers that returned ENGINE_IMPROVED */
    int improved_rank[FAKE_MAX][CHAIN_MAX];
    atomic_int offer_failed;
};

typedef struct fake_arg {
    fake *f;
    int id;
} fake_arg;
static fake_arg g_args[FAKE_MAX];

static void *fake_thread(void *arg)
{
    fake_arg *a = arg;
    a->f->script(a->f, a->id);
    atomic_fetch_add(&a->f->ended, 1);
    engine_thread_end(a->f->e);
    return NULL;
}

static bool fake_setup(engine *e, void *ctx)
{
    fake *f = ctx;
    f->e = e;
    atomic_fetch_add(&f->setups, 1);
    if (f->fail_setup) {
        engine_fail(e, SEARCH_BAD_PARAMS, "fake: no such device");
        return false;
    }
    return true;
}

static bool fake_start(engine *e, void *ctx)
{
    fake *f = ctx;
    atomic_fetch_add(&f->starts, 1);
    for (int i = 0; i < f->nwalkers; i++) {
        g_args[i] = (fake_arg){f, i};
        engine_thread_begin(e);
        if (pthread_create(&f->th[i], NULL, fake_thread, &g_args[i]) != 0) {
            engine_thread_end(e);
            engine_fail(e, SEARCH_FAILED, "fake: cannot start thread %d", i);
            return false;
        }
        f->started[i] = true;
    }
    return true;
}

static void fake_stats(void *ctx, engine_stats *st)
{
    fake *f = ctx;
    for (int i = 0; i < f->nwalkers; i++) {
        st->flips += atomic_load(&f->flips[i]);
        st->plus += atomic_load(&f->plus[i]);
        st->restarts += atomic_load(&f->restarts[i]);
        st->reductions += atomic_load(&f->reductions[i]);
        const int r = atomic_load(&f->rank[i]);
        if (st->rank_count && r > 0) {
            st->rank_count[r]++;
            st->walkers++;
        }
    }
    st->plateau = f->plateau;
    st->devices = f->devices;
}

static void fake_join(void *ctx)
{
    fake *f = ctx;
    atomic_fetch_add(&f->joins, 1);
    for (int i = 0; i < f->nwalkers; i++)
        if (f->started[i])
            pthread_join(f->th[i], NULL);
}

static void fake_name(void *ctx, int walker, char *buf, size_t len) { snprintf(buf, len, "fake walker %d", walker); }

static search_status fake_run(fake *f, const search_params *p, const scheme *const *starts, int nstarts,
                              const search_callbacks *cb, search_result *res)
{
    const engine_backend b = {"fake", f, fake_setup, fake_start, fake_stats, fake_join, fake_name};
    return engine_run(p, starts, nstarts, cb, &b, res);
}

/* A walker's offer, recording what the engine answered. */
static int offer(fake *f, int id, const scheme *s, scheme_rng *rng)
{
    const int r = engine_offer(f->e, id, s, rng);
    if (r < 0) {
        atomic_fetch_add(&f->offer_failed, 1);
    } else if (r & ENGINE_IMPROVED) {
        const int k = atomic_fetch_add(&f->offer_improved[id], 1);
        if (k < CHAIN_MAX)
            f->improved_rank[id][k] = s->rank;
    }
    return r;
}

/* Walks (fake flips) until the engine stops the run. */
static void walk_until_stop(fake *f, int id, uint64_t per_ms)
{
    while (!engine_should_stop(f->e)) {
        atomic_fetch_add(&f->flips[id], per_ms);
        sleep_ms(1);
    }
}

/* ---------------------------------------------------------------- callbacks */

typedef struct cb_log {
    atomic_int inside, overlap;
    int n, bad;
    int rank[1024], walker[1024], node[1024];
    double seconds[1024];
} cb_log;

static bool log_improved(void *ctx, const search_found *fd)
{
    cb_log *l = ctx;
    if (atomic_fetch_add(&l->inside, 1) != 0)
        atomic_fetch_add(&l->overlap, 1);
    verify_result vr;
    if (!verify_f2(fd->s, &vr) || fd->rank != fd->s->rank)
        l->bad++;
    if (l->n < 1024) {
        l->rank[l->n] = fd->rank;
        l->walker[l->n] = fd->walker;
        l->node[l->n] = fd->node;
        l->seconds[l->n] = fd->seconds;
    }
    l->n++;
    usleep(50); /* widen the window in which a second call could overlap */
    atomic_fetch_sub(&l->inside, 1);
    return true;
}

static void assert_decreasing(const cb_log *l)
{
    cr_assert_eq(atomic_load(&l->overlap), 0, "improved() ran concurrently");
    cr_assert_eq(l->bad, 0, "a reported scheme did not verify");
    for (int i = 1; i < l->n && i < 1024; i++)
        cr_assert_lt(l->rank[i], l->rank[i - 1], "improvement %d: rank %d after %d", i, l->rank[i], l->rank[i - 1]);
}

/* ---------------------------------------------------------------- stop conditions */

static chain g_chain;

static void script_descend(fake *f, int id)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, (uint64_t)id + 1);
    if (id == 0)
        for (int i = 0; i < g_chain.n && !engine_should_stop(f->e); i++) {
            atomic_store(&f->rank[id], g_chain.s[i]->rank);
            atomic_fetch_add(&f->flips[id], 1000);
            offer(f, id, g_chain.s[i], &rng);
        }
    walk_until_stop(f, id, 1000);
}

Test(engine, stops_at_the_target, .timeout = 60)
{
    chain_build(&g_chain, (scheme_format){4, 4, 4}, 8, 20000000);
    search_params p = params_for(g_chain.f);
    p.target_rank = g_chain.s[3]->rank;
    p.time_limit = 30;
    p.threads = 4;
    static fake f;
    f.nwalkers = 4;
    f.script = script_descend;
    static cb_log l;
    search_callbacks cb = {.ctx = &l, .improved = log_improved};
    search_result r;
    search_status st = fake_run(&f, &p, NULL, 0, &cb, &r);
    cr_assert_eq(st, SEARCH_REACHED, "%d: %s", st, r.msg);
    cr_assert_eq(r.best_rank, p.target_rank);
    cr_assert_lt(r.seconds, 10, "the target did not stop the run promptly (%.1f s)", r.seconds);
    cr_assert_eq(l.n, 4, "%d improvements reported", l.n);
    cr_assert_eq(r.improvements, 4);
    assert_decreasing(&l);
    cr_assert_eq(l.rank[3], p.target_rank);
    cr_assert_eq(atomic_load(&f.ended), 4);
    cr_assert_eq(atomic_load(&f.joins), 1);
    cr_assert_not_null(r.best);
    cr_assert(scheme_equal(r.best, g_chain.s[3]));
    cr_assert_eq(r.start_rank, 64);
    cr_assert_geq(r.flips, 4000);
    search_result_free(&r);
    chain_free(&g_chain);
}

static void script_sleep_then_offer(fake *f, int id)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, (uint64_t)id + 1);
    if (id == 1) {
        sleep_ms(100);
        offer(f, id, g_chain.s[1], &rng);
    }
    walk_until_stop(f, id, 100);
}

Test(engine, stops_at_the_time_limit, .timeout = 60)
{
    chain_build(&g_chain, (scheme_format){4, 4, 4}, 4, 20000000);
    search_params p = params_for(g_chain.f);
    p.target_rank = 20; /* out of reach */
    p.time_limit = 0.5;
    static fake f;
    f.nwalkers = 3;
    f.script = script_sleep_then_offer;
    static cb_log l;
    search_callbacks cb = {.ctx = &l, .improved = log_improved};
    search_result r;
    const double t0 = now_s();
    search_status st = fake_run(&f, &p, NULL, 0, &cb, &r);
    const double wall = now_s() - t0;
    cr_assert_eq(st, SEARCH_NOT_REACHED, "%d: %s", st, r.msg);
    cr_assert_geq(r.seconds, 0.5);
    cr_assert_lt(wall, 3, "the run took %.2f s for a limit of 0.5 s", wall);
    cr_assert_eq(l.n, 1);
    cr_assert_eq(l.rank[0], g_chain.s[1]->rank);
    cr_assert_eq(l.walker[0], 1);
    cr_assert_geq(l.seconds[0], 0.09);
    cr_assert_eq(r.best_rank, g_chain.s[1]->rank);
    cr_assert_not(r.interrupted);
    search_result_free(&r);
    /* without a target, the time running out is a normal end */
    p.target_rank = 0;
    p.time_limit = 0.2;
    static fake f2;
    f2.nwalkers = 2;
    f2.script = script_sleep_then_offer;
    cr_assert_eq(fake_run(&f2, &p, NULL, 0, NULL, &r), SEARCH_REACHED, "%s", r.msg);
    search_result_free(&r);
    chain_free(&g_chain);
}

static void script_burn(fake *f, int id)
{
    while (!engine_should_stop(f->e)) {
        atomic_fetch_add(&f->flips[id], 10000);
        usleep(100);
    }
}

Test(engine, stops_at_the_flip_budget, .timeout = 60)
{
    search_params p = params_for((scheme_format){3, 3, 3});
    p.max_flips = 5000000;
    p.time_limit = 30;
    static fake f;
    f.nwalkers = 4;
    f.script = script_burn;
    search_result r;
    search_status st = fake_run(&f, &p, NULL, 0, NULL, &r);
    cr_assert_eq(st, SEARCH_REACHED, "%s", r.msg); /* no target: the budget is a normal end */
    cr_assert_geq(r.flips, p.max_flips);
    cr_assert_lt(r.seconds, 20);
    /* the monitor looks every 10 ms: 4 walkers add at most 1e4 per 0.1 ms each */
    cr_assert_lt(r.flips, p.max_flips + 20000000, "%llu flips", (unsigned long long)r.flips);
    cr_assert_not(r.interrupted);
    search_result_free(&r);
}

static void script_request_stop(fake *f, int id)
{
    if (id == 0) {
        sleep_ms(50);
        search_request_stop();
    }
    walk_until_stop(f, id, 100);
}

Test(engine, search_request_stop_interrupts, .timeout = 60)
{
    search_clear_stop();
    search_params p = params_for((scheme_format){3, 3, 3});
    p.time_limit = 30;
    p.target_rank = 20;
    static fake f;
    f.nwalkers = 3;
    f.script = script_request_stop;
    search_result r;
    search_status st = fake_run(&f, &p, NULL, 0, NULL, &r);
    cr_assert(r.interrupted);
    cr_assert_eq(st, SEARCH_NOT_REACHED, "%s", r.msg);
    cr_assert_lt(r.seconds, 5);
    cr_assert_eq(atomic_load(&f.ended), 3);
    search_result_free(&r);
    search_clear_stop();
    /* without a target a stop is a normal end */
    p.target_rank = 0;
    static fake f2;
    f2.nwalkers = 2;
    f2.script = script_request_stop;
    cr_assert_eq(fake_run(&f2, &p, NULL, 0, NULL, &r), SEARCH_REACHED);
    cr_assert(r.interrupted);
    search_result_free(&r);
    search_clear_stop();
}

/* ---------------------------------------------------------------- verification */

static atomic_int g_bad_offer, g_pool_at_bad, g_after_fail, g_stopped_after;

static void script_corrupt(fake *f, int id)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, 7);
    if (id == 0) {
        offer(f, id, g_chain.s[0], &rng); /* valid: reported */
        scheme *bad = corrupted(g_chain.s[2]);
        atomic_store(&g_bad_offer, offer(f, id, bad, &rng));
        atomic_store(&g_pool_at_bad, engine_pool_count(f->e, bad->rank));
        atomic_store(&g_stopped_after, engine_should_stop(f->e));
        scheme_free(bad);
        /* the run has failed: a valid lower scheme is no longer kept either */
        atomic_store(&g_after_fail, offer(f, id, g_chain.s[3], &rng));
    }
    walk_until_stop(f, id, 100);
}

Test(engine, a_scheme_that_does_not_verify_fails_the_run_and_is_never_kept, .timeout = 60)
{
    chain_build(&g_chain, (scheme_format){4, 4, 4}, 4, 20000000);
    search_params p = params_for(g_chain.f);
    p.time_limit = 30;
    p.pool_min = 1;
    static fake f;
    f.nwalkers = 2;
    f.script = script_corrupt;
    static cb_log l;
    search_callbacks cb = {.ctx = &l, .improved = log_improved};
    search_result r;
    search_status st = fake_run(&f, &p, NULL, 0, &cb, &r);
    cr_assert_eq(st, SEARCH_FAILED);
    cr_assert(strstr(r.msg, "BUG: fake walker 0 produced a scheme of rank") && strstr(r.msg, "does not verify"),
              "%s", r.msg);
    cr_assert_lt(atomic_load(&g_bad_offer), 0);
    cr_assert_eq(atomic_load(&g_pool_at_bad), 0, "the corrupted scheme was pooled");
    cr_assert(atomic_load(&g_stopped_after), "the failure did not stop the run");
    cr_assert_lt(atomic_load(&g_after_fail), 0);
    /* only the valid improvement before the failure reached the callback */
    cr_assert_eq(l.n, 1);
    cr_assert_eq(l.rank[0], g_chain.s[0]->rank);
    cr_assert_eq(l.bad, 0);
    cr_assert_eq(r.best_rank, g_chain.s[0]->rank);
    cr_assert(scheme_equal(r.best, g_chain.s[0]));
    cr_assert_eq(r.improvements, 1);
    search_result_free(&r);
    chain_free(&g_chain);
}

static void script_wrong_format(fake *f, int id)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, 7);
    if (id == 0) {
        scheme *s = scheme_standard((scheme_format){2, 2, 3}); /* valid, but not the run's format */
        atomic_store(&g_bad_offer, offer(f, id, s, &rng));
        scheme_free(s);
    }
    walk_until_stop(f, id, 100);
}

Test(engine, a_scheme_of_another_format_fails_the_run, .timeout = 60)
{
    search_params p = params_for((scheme_format){2, 2, 2});
    p.time_limit = 30;
    static fake f;
    f.nwalkers = 1;
    f.script = script_wrong_format;
    static cb_log l;
    search_callbacks cb = {.ctx = &l, .improved = log_improved};
    search_result r;
    cr_assert_eq(fake_run(&f, &p, NULL, 0, &cb, &r), SEARCH_FAILED);
    cr_assert(strstr(r.msg, "does not verify"), "%s", r.msg);
    cr_assert_eq(l.n, 0);
    cr_assert_eq(r.best_rank, 8);
    search_result_free(&r);
}

/* ---------------------------------------------------------------- the hand-off */

static atomic_int g_dup[4];

static void script_duplicates(fake *f, int id)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, 3);
    atomic_store(&g_dup[0], offer(f, id, g_chain.s[0], &rng));
    atomic_store(&g_dup[1], offer(f, id, g_chain.s[0], &rng)); /* the same again */
    scheme *v = variant(g_chain.s[0], 9);
    atomic_store(&g_dup[2], offer(f, id, v, &rng)); /* a sibling: pooled, not reported */
    scheme_free(v);
    atomic_store(&g_dup[3], engine_pool_count(f->e, g_chain.s[0]->rank));
    walk_until_stop(f, id, 100);
}

Test(engine, duplicates_and_siblings_are_pooled_once_and_never_reported_again, .timeout = 60)
{
    chain_build(&g_chain, (scheme_format){4, 4, 4}, 4, 20000000);
    search_params p = params_for(g_chain.f);
    p.time_limit = 0.3;
    static fake f;
    f.nwalkers = 1;
    f.script = script_duplicates;
    static cb_log l;
    search_callbacks cb = {.ctx = &l, .improved = log_improved};
    search_result r;
    cr_assert_eq(fake_run(&f, &p, NULL, 0, &cb, &r), SEARCH_REACHED, "%s", r.msg);
    cr_assert_eq(atomic_load(&g_dup[0]), ENGINE_POOLED | ENGINE_IMPROVED);
    cr_assert_eq(atomic_load(&g_dup[1]), 0, "a duplicate: %d", atomic_load(&g_dup[1]));
    cr_assert_eq(atomic_load(&g_dup[2]), ENGINE_POOLED);
    cr_assert_eq(atomic_load(&g_dup[3]), 2);
    cr_assert_eq(l.n, 1);
    search_result_free(&r);
    chain_free(&g_chain);
}

static atomic_int g_iso;

static void script_isolated(fake *f, int id)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, 3);
    scheme *s = strassen_f2();
    atomic_store(&g_iso, offer(f, id, s, &rng) | (engine_pool_count(f->e, 7) << 8));
    scheme_free(s);
    walk_until_stop(f, id, 100);
}

Test(engine, a_flip_isolated_scheme_is_reported_but_not_pooled, .timeout = 60)
{
    search_params p = params_for((scheme_format){2, 2, 2});
    p.target_rank = 7;
    p.time_limit = 30;
    p.pool_keep = 10;
    static fake f;
    f.nwalkers = 1;
    f.script = script_isolated;
    static cb_log l;
    search_callbacks cb = {.ctx = &l, .improved = log_improved};
    search_result r;
    cr_assert_eq(fake_run(&f, &p, NULL, 0, &cb, &r), SEARCH_REACHED, "%s", r.msg);
    cr_assert_eq(atomic_load(&g_iso), ENGINE_IMPROVED | ENGINE_ISOLATED, "%#x", atomic_load(&g_iso));
    cr_assert_eq(l.n, 1);
    cr_assert_eq(l.rank[0], 7);
    /* the pool the run returns (--pool-out) still starts with it: the run's best */
    scheme *st = strassen_f2();
    cr_assert_geq(r.npool, 2, "%d schemes returned: the best and the pooled start", r.npool);
    cr_assert_eq(r.pool[0]->rank, 7);
    cr_assert_eq(scheme_hash(r.pool[0]), scheme_hash(st), "the returned pool does not start with the best");
    cr_assert_eq(r.pool[1]->rank, 8, "then the pool's own, lowest ranks first");
    scheme_free(st);
    search_result_free(&r);
}

/* Many walkers offer the whole chain (each scheme twice, plus siblings) in
 * their own random orders at once. */
static void script_storm(fake *f, int id)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, 1000 + (uint64_t)id);
    int order[2 * CHAIN_MAX];
    const int n = 2 * g_chain.n;
    for (int i = 0; i < n; i++)
        order[i] = i % g_chain.n;
    for (int i = n - 1; i > 0; i--) {
        const int j = (int)scheme_rng_below(&rng, (uint32_t)i + 1);
        const int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < n; i++) {
        atomic_store(&f->rank[id], g_chain.s[order[i]]->rank);
        atomic_fetch_add(&f->flips[id], 100);
        offer(f, id, g_chain.s[order[i]], &rng);
    }
    walk_until_stop(f, id, 100);
}

static void noop_progress(void *ctx, const search_progress *pr) { (void)ctx, (void)pr; }

Test(engine, every_improvement_reaches_the_callback_once_in_decreasing_order, .timeout = 120)
{
    chain_build(&g_chain, (scheme_format){4, 4, 4}, 9, 20000000);
    cr_assert_geq(g_chain.n, 6, "chain of %d", g_chain.n);
    search_params p = params_for(g_chain.f);
    p.target_rank = g_chain.s[g_chain.n - 1]->rank;
    p.time_limit = 60;
    p.progress_every = 0.001; /* progress rows at the same time, from the monitor */
    for (int round = 0; round < 5; round++) {
        static fake f;
        memset(&f, 0, sizeof f);
        f.nwalkers = 16;
        f.script = script_storm;
        static cb_log l;
        memset(&l, 0, sizeof l);
        search_callbacks cb = {.ctx = &l, .improved = log_improved, .progress = noop_progress};
        search_result r;
        search_status st = fake_run(&f, &p, NULL, 0, &cb, &r);
        cr_assert_eq(st, SEARCH_REACHED, "%s", r.msg);
        assert_decreasing(&l);
        cr_assert_gt(l.n, 0);
        cr_assert_eq(l.rank[l.n - 1], p.target_rank);
        cr_assert_eq(r.improvements, (uint64_t)l.n);
        /* each offer the engine answered "improved" is exactly one callback, with its walker */
        int answered = 0;
        for (int w = 0; w < f.nwalkers; w++)
            answered += atomic_load(&f.offer_improved[w]);
        cr_assert_eq(answered, l.n, "%d offers answered improved, %d callbacks", answered, l.n);
        for (int i = 0; i < l.n; i++) {
            const int w = l.walker[i];
            cr_assert(w >= 0 && w < f.nwalkers);
            int hits = 0;
            for (int k = 0; k < atomic_load(&f.offer_improved[w]); k++)
                hits += f.improved_rank[w][k] == l.rank[i];
            cr_assert_eq(hits, 1, "rank %d reported for walker %d, which was answered %d times", l.rank[i], w,
                         hits);
        }
        cr_assert_eq(atomic_load(&f.offer_failed), 0);
        search_result_free(&r);
    }
    chain_free(&g_chain);
}

/* ---------------------------------------------------------------- starts */

Test(engine, a_start_at_the_target_starts_no_walker)
{
    search_params p = params_for((scheme_format){3, 3, 3});
    p.target_rank = 27;
    static fake f;
    f.nwalkers = 2;
    f.script = script_burn;
    search_result r;
    cr_assert_eq(fake_run(&f, &p, NULL, 0, NULL, &r), SEARCH_REACHED, "%s", r.msg);
    cr_assert_eq(atomic_load(&f.setups), 0);
    cr_assert_eq(atomic_load(&f.starts), 0);
    cr_assert_eq(r.best_rank, 27);
    cr_assert_eq(r.start_rank, 27);
    search_result_free(&r);
}

Test(engine, a_failed_setup_is_the_runs_status)
{
    search_params p = params_for((scheme_format){3, 3, 3});
    p.time_limit = 5;
    static fake f;
    f.nwalkers = 2;
    f.script = script_burn;
    f.fail_setup = true;
    search_result r;
    cr_assert_eq(fake_run(&f, &p, NULL, 0, NULL, &r), SEARCH_BAD_PARAMS);
    cr_assert(strstr(r.msg, "no such device"), "%s", r.msg);
    cr_assert_eq(atomic_load(&f.starts), 0);
    cr_assert_eq(atomic_load(&f.joins), 0);
    search_result_free(&r);
}

Test(engine, a_start_with_reductions_left_is_reduced_pooled_and_reported)
{
    scheme *s = tc_standard_333_split(); /* rank 28, one pair reduction left */
    search_params p = params_for((scheme_format){3, 3, 3});
    p.time_limit = 0.1;
    static fake f;
    f.nwalkers = 1;
    f.script = script_burn;
    static cb_log l;
    search_callbacks cb = {.ctx = &l, .improved = log_improved};
    const scheme *starts[1] = {s};
    search_result r;
    cr_assert_eq(fake_run(&f, &p, starts, 1, &cb, &r), SEARCH_REACHED, "%s", r.msg);
    cr_assert_eq(r.start_rank, 28);
    cr_assert_eq(r.best_rank, 27);
    cr_assert_eq(l.n, 1);
    cr_assert_eq(l.rank[0], 27);
    cr_assert_eq(l.walker[0], 0);
    cr_assert_eq(atomic_load(&f.starts), 1);
    search_result_free(&r);
    scheme_free(s);
}

/* ---------------------------------------------------------------- the restart policy */

/* A pool of <4,4,4> schemes: `counts[i]` distinct schemes at chain rank i. */
static void pool_fill(search_pool *pl, const int *counts, int n, scheme_rng *rng)
{
    for (int i = 0; i < n; i++) {
        const int want = pl->r[g_chain.s[i]->rank].count + counts[i];
        for (int k = 0; pl->r[g_chain.s[i]->rank].count < want; k++) {
            cr_assert_lt(k, 100, "rank %d: no distinct variants", g_chain.s[i]->rank);
            scheme *v = k ? variant(g_chain.s[i], (uint64_t)(1000 * i + k)) : scheme_clone(g_chain.s[i]);
            search_pool_add(pl, v, rng, NULL);
            scheme_free(v);
        }
    }
}

typedef struct stage_log {
    int n;
    const scheme *s[512];
} stage_log;

static void stage_visit(void *ctx, int i, const scheme *s)
{
    stage_log *l = ctx;
    cr_assert_eq(i, l->n);
    l->s[l->n++] = s;
}

/* Draws many restarts and stages a device pool of 256: both must follow the
 * weights, which must be want[] (ranks of the chain, by index). */
static void check_policy(search_pool *pl, const double *want, int n, scheme_rng *rng, search_walker *w)
{
    double wt[128];
    cr_assert_lt(pl->max_rank, 128);
    search_pool_restart_weights(pl, wt);
    double sum = 0;
    for (int k = 0; k <= pl->max_rank; k++)
        sum += wt[k];
    cr_assert_float_eq(sum, 1.0, 1e-12);
    for (int i = 0; i < n; i++)
        cr_assert_float_eq(wt[g_chain.s[i]->rank], want[i], 1e-12, "rank %d: weight %g, want %g",
                           g_chain.s[i]->rank, wt[g_chain.s[i]->rank], want[i]);
    /* the CPU's draws */
    enum { DRAWS = 40000 };
    int hits[128] = {0};
    for (int d = 0; d < DRAWS; d++) {
        const int k = search_pool_restart(pl, rng, w);
        cr_assert(k >= 0 && k <= pl->max_rank);
        cr_assert_eq(search_walker_rank(w), k);
        hits[k]++;
    }
    for (int k = 0; k <= pl->max_rank; k++) {
        const double sd = sqrt(DRAWS * wt[k] * (1 - wt[k])) + 1;
        cr_assert_leq(fabs(hits[k] - DRAWS * wt[k]), 5 * sd, "rank %d: %d draws of %d, weight %g", k, hits[k],
                      DRAWS, wt[k]);
    }
    /* the GPU's device pool: 256 entries, per rank round(256 w) (to within one) */
    static stage_log sl;
    sl.n = 0;
    int level = -2, level_count = -2;
    const int staged = search_pool_stage(pl, rng, 256, stage_visit, &sl, &level, &level_count);
    int per[128] = {0}, ranks = 0, one = -1;
    for (int i = 0; i < sl.n; i++)
        per[sl.s[i]->rank]++;
    for (int k = 0; k <= pl->max_rank; k++)
        if (wt[k] > 0) {
            ranks++;
            one = k;
        }
    if (ranks == 1) { /* one rank alone: each of its schemes once */
        cr_assert_eq(staged, pl->r[one].count < 256 ? pl->r[one].count : 256);
    } else {
        cr_assert_eq(staged, 256);
        for (int k = 0; k <= pl->max_rank; k++)
            cr_assert_leq(fabs(per[k] - 256 * wt[k]), 1.0, "rank %d: %d entries, weight %g", k, per[k], wt[k]);
    }
    cr_assert_eq(staged, sl.n);
    cr_assert_eq(level, search_pool_level(pl, NULL));
    cr_assert_eq(level_count, pl->r[level].count);
    /* a rank with at least its share stages distinct schemes */
    for (int i = 0; i < sl.n; i++)
        for (int j = i + 1; j < sl.n; j++)
            if (sl.s[i] == sl.s[j])
                cr_assert_gt(256 * wt[sl.s[i]->rank], pl->r[sl.s[i]->rank].count - 1e-9,
                             "a scheme staged twice while its rank has enough");
}

Test(engine, the_restart_policy_and_the_device_pool_follow_one_rule, .timeout = 120)
{
    chain_build(&g_chain, (scheme_format){4, 4, 4}, 4, 20000000);
    /* chain ranks r0 > r1 > r2 > r3; r0 plays the start */
    const int top = g_chain.s[0]->rank;
    search_pool pl;
    cr_assert(search_pool_init(&pl, top, 100, 4));
    pl.up = 0.25;
    pl.reduced = true;
    scheme_rng rng;
    scheme_rng_seed(&rng, 77);
    search_params p = params_for(g_chain.f);
    search_walker *w = search_walker_new(g_chain.s[0], &p, 1, 0);
    cr_assert_not_null(w);

    /* r0: 1 (the start), r2: 3, r3: 1.  No rank holds pool_min = 4: restarts
     * start over from the start (the highest rank), not from the lowest
     * nonempty one (r3, where the GPU's staging went before the engine) */
    const int c1[4] = {1, 0, 3, 1};
    pool_fill(&pl, c1, 4, &rng);
    cr_assert_eq(pl.r[g_chain.s[2]->rank].count, 3);
    cr_assert_eq(search_pool_level(&pl, NULL), top);
    const double w1[4] = {1, 0, 0, 0};
    check_policy(&pl, w1, 4, &rng, w);

    /* r2 reaches 4: the level; up = 0.25 climbs to the next nonempty rank (r0,
     * r1 being empty); ranks below the level (r3) get nothing */
    const int c2[4] = {0, 0, 1, 0};
    pool_fill(&pl, c2, 4, &rng);
    cr_assert_eq(search_pool_level(&pl, NULL), g_chain.s[2]->rank);
    const double w2[4] = {0.25, 0, 0.75, 0};
    check_policy(&pl, w2, 4, &rng, w);

    /* r1 nonempty between them: 0.75 at the level, then 0.25 * 0.75, then what
     * is left on top */
    const int c3[4] = {0, 2, 0, 0};
    pool_fill(&pl, c3, 4, &rng);
    const double w3[4] = {0.0625, 0.1875, 0.75, 0};
    check_policy(&pl, w3, 4, &rng, w);

    /* fresh = 0.2: a fifth of the restarts from the start schemes (the top) */
    pl.fresh = 0.2;
    const double w4[4] = {0.8 * 0.0625 + 0.2, 0.8 * 0.1875, 0.8 * 0.75, 0};
    check_policy(&pl, w4, 4, &rng, w);

    /* up = 0: the level alone (its 4 schemes, each staged once) */
    pl.fresh = 0;
    pl.up = 0;
    const double w5[4] = {0, 0, 1, 0};
    check_policy(&pl, w5, 4, &rng, w);

    search_walker_free(w);
    search_pool_free(&pl);
    chain_free(&g_chain);
}

/* One scripted walker (id 0) on p until the run stops; the run must end as
 * reached (no target: the time limit). */
static void run_one_walker(const search_params *p, fake_script script, search_result *r)
{
    static fake f;
    memset(&f, 0, sizeof f);
    f.nwalkers = 1;
    f.script = script;
    cr_assert_eq(fake_run(&f, p, NULL, 0, NULL, r), SEARCH_REACHED, "%s", r->msg);
}

/* Through the engine: the level follows what walkers offer, and
 * engine_restart / engine_stage draw by the same rule. */
static atomic_int g_level[4];

static void script_fill_level(fake *f, int id)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, 5);
    atomic_store(&g_level[0], engine_pool_level(f->e, id, NULL));
    offer(f, id, g_chain.s[1], &rng);
    for (int k = 1; k < 100 && engine_pool_count(f->e, g_chain.s[1]->rank) < 4; k++) {
        scheme *v = variant(g_chain.s[1], (uint64_t)k);
        offer(f, id, v, &rng);
        scheme_free(v);
    }
    atomic_store(&g_level[1], engine_pool_level(f->e, id, NULL));
    search_walker *w = search_walker_new(g_chain.s[0], engine_params(f->e), 1, 0);
    int ok = 1;
    for (int d = 0; d < 100; d++)
        ok &= engine_restart(f->e, id, &rng, w) == g_chain.s[1]->rank;
    search_walker_free(w);
    atomic_store(&g_level[2], ok);
    static stage_log sl;
    int level = 0, count = 0;
    atomic_store(&g_level[3], engine_stage(f->e, &rng, 64, stage_visit, &sl, &level, &count) == 4 &&
                                  level == g_chain.s[1]->rank && count == 4);
    walk_until_stop(f, id, 100);
}

Test(engine, restarts_through_the_engine_draw_from_the_level, .timeout = 60)
{
    chain_build(&g_chain, (scheme_format){4, 4, 4}, 4, 20000000);
    search_params p = params_for(g_chain.f);
    p.pool_min = 4;
    p.pool_up = 0;
    p.time_limit = 0.2;
    search_result r;
    run_one_walker(&p, script_fill_level, &r);
    cr_assert_eq(atomic_load(&g_level[0]), 64, "before: level %d (the start)", atomic_load(&g_level[0]));
    cr_assert_eq(atomic_load(&g_level[1]), g_chain.s[1]->rank);
    cr_assert(atomic_load(&g_level[2]), "a restart drew from elsewhere than the level");
    cr_assert(atomic_load(&g_level[3]), "the staging did not give the level's 4 schemes");
    search_result_free(&r);
    chain_free(&g_chain);
}

/* Islands (search_params.islands, docs/search.md "Islands"): walker i offers to
 * and restarts from pool i mod K alone; every island starts from the starts;
 * the run's best is shared and --pool-keep returns each scheme once. */
static atomic_int g_isl[9];

static void script_islands(fake *f, int id)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, 7);
    engine *e = f->e;
    const int r0 = 64, r1 = g_chain.s[0]->rank, r2 = g_chain.s[1]->rank; /* r0: the standard start */
    atomic_store(&g_isl[0], engine_island_count(e, 0, r0) == 1 && engine_island_count(e, 1, r0) == 1 &&
                                engine_island_count(e, 2, r0) == 0);
    offer(f, id, g_chain.s[0], &rng); /* walker 0: island 0 */
    atomic_store(&g_isl[1], engine_island_count(e, 0, r1));
    atomic_store(&g_isl[2], engine_island_count(e, 1, r1));
    atomic_store(&g_isl[3], engine_pool_level(e, 0, NULL) == r1 && engine_pool_level(e, 2, NULL) == r1 &&
                                engine_pool_level(e, 1, NULL) == r0 && engine_pool_level(e, 3, NULL) == r0);
    search_walker *w = search_walker_new(g_chain.s[0], engine_params(e), 1, 0);
    int ok0 = 1, ok1 = 1;
    for (int d = 0; d < 50; d++) {
        ok0 &= engine_restart(e, 0, &rng, w) == r1;
        ok1 &= engine_restart(e, 1, &rng, w) == r0; /* island 1 never saw r1 */
    }
    atomic_store(&g_isl[4], ok0);
    atomic_store(&g_isl[5], ok1);
    /* walker 3 is island 1's: its lower scheme goes there, not to island 0 */
    offer(f, 3, g_chain.s[1], &rng);
    atomic_store(&g_isl[6], engine_island_count(e, 1, r2) == 1 && engine_island_count(e, 0, r2) == 0);
    int ok3 = 1;
    for (int d = 0; d < 50; d++)
        ok3 &= engine_restart(e, 3, &rng, w) == r2 && engine_restart(e, 2, &rng, w) == r1;
    atomic_store(&g_isl[7], ok3);
    atomic_store(&g_isl[8], engine_pool_count(e, r0) == 2 && engine_pool_count(e, r1) == 1);
    search_walker_free(w);
    walk_until_stop(f, id, 100);
}

Test(engine, islands_keep_a_pool_each, .timeout = 60)
{
    chain_build(&g_chain, (scheme_format){4, 4, 4}, 4, 20000000);
    search_params p = params_for(g_chain.f);
    p.threads = 2;
    p.islands = 2;
    p.pool_min = 1;
    p.pool_up = 0;
    p.pool_keep = 10;
    p.time_limit = 0.2;
    search_result r;
    run_one_walker(&p, script_islands, &r);
    cr_assert(atomic_load(&g_isl[0]), "every island holds the start once (and there is no third)");
    cr_assert_eq(atomic_load(&g_isl[1]), 1, "walker 0's scheme is not in island 0");
    cr_assert_eq(atomic_load(&g_isl[2]), 0, "walker 0's scheme reached island 1");
    cr_assert(atomic_load(&g_isl[3]), "an island's level follows what another island's walkers offered");
    cr_assert(atomic_load(&g_isl[4]), "walker 0 restarted from elsewhere than its island's level");
    cr_assert(atomic_load(&g_isl[5]), "walker 1 restarted from a scheme only island 0 holds");
    cr_assert(atomic_load(&g_isl[6]), "walker 3's scheme did not go to island 1 alone");
    cr_assert(atomic_load(&g_isl[7]), "walkers 2 and 3 did not restart from their islands' levels");
    cr_assert(atomic_load(&g_isl[8]), "the pools together: the start twice, walker 0's scheme once");
    /* the run's best is shared: the lowest of either island */
    cr_assert_eq(r.best_rank, g_chain.s[1]->rank);
    /* --pool-keep: the three distinct schemes, lowest first, the start once */
    cr_assert_eq(r.npool, 3, "kept %d", r.npool);
    cr_assert_eq(r.pool[0]->rank, g_chain.s[1]->rank);
    cr_assert_eq(r.pool[1]->rank, g_chain.s[0]->rank);
    cr_assert_eq(r.pool[2]->rank, 64);
    search_result_free(&r);
    chain_free(&g_chain);
}

/* One pool for every walker without islands: the same offers reach every walker. */
/* ---------------------------------------------------------------- pool checkpoints */

typedef struct pool_log {
    int calls, last_n, bad, unordered;
    double last_seconds;
    uint64_t last_hash[64];
} pool_log;

static void log_pool(void *ctx, scheme *const *pool, int n, double seconds)
{
    pool_log *l = ctx;
    l->calls++;
    l->last_n = n;
    l->last_seconds = seconds;
    for (int i = 0; i < n; i++) {
        verify_result vr;
        if (!verify_f2(pool[i], &vr))
            l->bad++;
        if (i && pool[i]->rank < pool[i - 1]->rank)
            l->unordered++;
        if (i < 64)
            l->last_hash[i] = scheme_hash(pool[i]);
    }
}

/* walker 0 offers the chain's first three schemes and two variants of the
 * third, then idles: the pool holds five schemes from then on */
static void script_offer_five(fake *f, int id)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, (uint64_t)id + 7);
    if (id == 0) {
        for (int i = 0; i < 3; i++)
            offer(f, id, g_chain.s[i], &rng);
        for (uint64_t k = 1; k <= 2; k++) {
            scheme *v = variant(g_chain.s[2], k);
            offer(f, id, v, &rng);
            scheme_free(v);
        }
    }
    walk_until_stop(f, id, 100);
}

/* Two fake walkers, walker 0 offering five schemes (script_offer_five), the
 * checkpoints logged into *pl. */
static void run_checkpointed(const search_params *p, pool_log *pl, search_result *r)
{
    static fake f;
    memset(&f, 0, sizeof f);
    f.nwalkers = 2;
    f.script = script_offer_five;
    memset(pl, 0, sizeof *pl);
    search_callbacks cb = {.ctx = pl, .pool_checkpoint = log_pool};
    const search_status st = fake_run(&f, p, NULL, 0, &cb, r);
    cr_assert_eq(st, SEARCH_REACHED, "%d: %s", st, r->msg);
}

/* --pool-every: while the run goes on the monitor hands the pool, as the run's
 * end returns it, to the checkpoint callback every pool_every seconds; none
 * without an interval, and none without a pool to keep. */
Test(engine, pool_checkpoints_hand_over_the_pool_the_end_returns, .timeout = 60)
{
    chain_build(&g_chain, (scheme_format){3, 3, 3}, 4, 20000000);
    search_params p = params_for(g_chain.f);
    p.time_limit = 1.5;
    p.threads = 2;
    p.pool_keep = 50;
    p.pool_every = 0.2;
    static pool_log pl;
    search_result r;
    run_checkpointed(&p, &pl, &r);
    cr_assert_geq(pl.calls, 2, "%d checkpoints in a %.1f s run, one every %.1f s", pl.calls, r.seconds, p.pool_every);
    cr_assert_eq(pl.bad, 0, "%d checkpointed schemes do not verify", pl.bad);
    cr_assert_eq(pl.unordered, 0, "a checkpoint's ranks are not lowest first");
    cr_assert_leq(pl.last_seconds, r.seconds + 0.01);
    /* the pool stopped changing after the offers: the last checkpoint is the end's pool */
    cr_assert_eq(pl.last_n, r.npool, "last checkpoint %d schemes, the end %d", pl.last_n, r.npool);
    cr_assert_geq(r.npool, 3, "the end's pool holds %d schemes", r.npool);
    for (int i = 0; i < r.npool && i < 64; i++)
        cr_assert_eq(pl.last_hash[i], scheme_hash(r.pool[i]), "scheme %d differs from the end's pool", i);
    search_result_free(&r);

    /* no interval: no checkpoint */
    p.pool_every = 0;
    p.time_limit = 0.5;
    run_checkpointed(&p, &pl, &r);
    cr_assert_eq(pl.calls, 0, "%d checkpoints without --pool-every", pl.calls);
    search_result_free(&r);

    /* an interval with no pool to keep (pool_keep 0): none either */
    p.pool_every = 0.1;
    p.pool_keep = 0;
    run_checkpointed(&p, &pl, &r);
    cr_assert_eq(pl.calls, 0, "%d checkpoints with pool_keep 0", pl.calls);
    cr_assert_eq(r.npool, 0);
    search_result_free(&r);
    chain_free(&g_chain);
}

static atomic_int g_one[2];

static void script_one_pool(fake *f, int id)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, 7);
    offer(f, id, g_chain.s[0], &rng);
    search_walker *w = search_walker_new(g_chain.s[0], engine_params(f->e), 1, 0);
    int ok = 1;
    for (int d = 0; d < 50; d++)
        ok &= engine_restart(f->e, 1, &rng, w) == g_chain.s[0]->rank;
    search_walker_free(w);
    atomic_store(&g_one[0], ok);
    atomic_store(&g_one[1], engine_island_count(f->e, 1, 64));
    walk_until_stop(f, id, 100);
}

Test(engine, without_islands_every_walker_shares_one_pool, .timeout = 60)
{
    chain_build(&g_chain, (scheme_format){4, 4, 4}, 4, 20000000);
    search_params p = params_for(g_chain.f);
    p.threads = 2;
    p.pool_min = 1;
    p.pool_up = 0;
    p.time_limit = 0.2;
    search_result r;
    run_one_walker(&p, script_one_pool, &r);
    cr_assert(atomic_load(&g_one[0]), "walker 1 did not restart from walker 0's scheme");
    cr_assert_eq(atomic_load(&g_one[1]), 0, "a second pool exists without --islands");
    search_result_free(&r);
    chain_free(&g_chain);
}

/* ---------------------------------------------------------------- progress */

typedef struct prog_log {
    int n, bad;
    char why[512];
    double last_seconds;
    uint64_t last_flips;
    int best_seen_low;
} prog_log;

static int g_low_rank;

static void on_progress(void *ctx, const search_progress *pr)
{
    prog_log *l = ctx;
    l->n++;
    char why[512] = "";
    if (pr->walkers < 0 || pr->walkers > 5) /* 0..5: the walkers report their ranks after a while */
        snprintf(why, sizeof why, "walkers %d", pr->walkers);
    else if (pr->walkers == 5 && (pr->rank_min != 50 || pr->rank_median != 52 || pr->rank_max != 60))
        snprintf(why, sizeof why, "ranks %d/%d/%d, want 50/52/60", pr->rank_min, pr->rank_median, pr->rank_max);
    else if (pr->plateau != 1234 || pr->devices != 3)
        snprintf(why, sizeof why, "plateau %llu devices %d", (unsigned long long)pr->plateau, pr->devices);
    else if (pr->record != search_record_rank((scheme_format){4, 4, 4}))
        snprintf(why, sizeof why, "record %d", pr->record);
    else if (pr->best_rank != 64 && pr->best_rank != g_low_rank)
        snprintf(why, sizeof why, "best %d", pr->best_rank);
    else if (pr->best_age < 0 || pr->best_age > pr->seconds + 1e-9)
        snprintf(why, sizeof why, "best age %g of %g s", pr->best_age, pr->seconds);
    else if (pr->seconds < l->last_seconds || pr->flips < l->last_flips || pr->flips_per_s < 0)
        snprintf(why, sizeof why, "time %g after %g, flips %llu after %llu, rate %g", pr->seconds, l->last_seconds,
                 (unsigned long long)pr->flips, (unsigned long long)l->last_flips, pr->flips_per_s);
    /* the counters are read one after the other while the walkers add to them */
    else if (llabs((long long)pr->plus - (long long)(pr->flips / 100)) > 50 || pr->restarts > 5 ||
             llabs((long long)pr->reductions - (long long)(pr->flips / 10)) > 500)
        snprintf(why, sizeof why, "plus %llu restarts %llu reductions %llu for %llu flips",
                 (unsigned long long)pr->plus, (unsigned long long)pr->restarts, (unsigned long long)pr->reductions,
                 (unsigned long long)pr->flips);
    else if (pr->best_rank == 64 ? (pr->level != 64 || pr->level_count != 1)
                                 : (pr->level != 64 || pr->level_count != 1 || pr->best_age >= pr->seconds))
        /* pool_min 16: one improvement does not move the level off the start */
        snprintf(why, sizeof why, "level %d (%d schemes), best %d age %g", pr->level, pr->level_count,
                 pr->best_rank, pr->best_age);
    if (pr->best_rank == g_low_rank)
        l->best_seen_low++;
    if (why[0] && !l->bad++)
        snprintf(l->why, sizeof l->why, "row %d: %s", l->n, why);
    l->last_seconds = pr->seconds;
    l->last_flips = pr->flips;
}

static void script_progress(fake *f, int id)
{
    static const int ranks[5] = {55, 50, 60, 52, 52};
    scheme_rng rng;
    scheme_rng_seed(&rng, 5);
    atomic_fetch_add(&f->restarts[id], 1);
    int step = 0;
    while (!engine_should_stop(f->e)) {
        if (step == 2) /* a rank known only after a while: walkers 0 then counts 5 */
            atomic_store(&f->rank[id], ranks[id]);
        atomic_fetch_add(&f->flips[id], 1000);
        atomic_fetch_add(&f->plus[id], 10);
        atomic_fetch_add(&f->reductions[id], 100);
        if (id == 0 && step == 100)
            offer(f, id, g_chain.s[2], &rng);
        step++;
        sleep_ms(1);
    }
}

Test(engine, progress_rows_have_the_backends_counters_and_the_runs_state, .timeout = 60)
{
    chain_build(&g_chain, (scheme_format){4, 4, 4}, 4, 20000000);
    g_low_rank = g_chain.s[2]->rank;
    search_params p = params_for(g_chain.f);
    p.time_limit = 0.6;
    p.progress_every = 0.02;
    static fake f;
    f.nwalkers = 5;
    f.script = script_progress;
    f.plateau = 1234;
    f.devices = 3;
    static prog_log pl;
    search_callbacks cb = {.ctx = &pl, .progress = on_progress};
    search_result r;
    cr_assert_eq(fake_run(&f, &p, NULL, 0, &cb, &r), SEARCH_REACHED, "%s", r.msg);
    cr_assert_geq(pl.n, 10, "%d progress rows in 0.6 s at 0.02 s", pl.n);
    cr_assert_eq(pl.bad, 0, "%d bad rows; first: %s", pl.bad, pl.why);
    cr_assert_gt(pl.best_seen_low, 0, "no row showed the improvement");
    cr_assert_eq(r.restarts, 5);
    cr_assert_eq(r.plus, r.flips / 100);
    search_result_free(&r);
    chain_free(&g_chain);
}

/* With --pool-fresh 1 every restart takes the starts: no row names a pool
 * level, though the pool holds what the walkers offered. */
static int g_fresh_rows, g_fresh_bad;
static void on_fresh(void *ctx, const search_progress *pr)
{
    (void)ctx;
    g_fresh_rows++;
    if (pr->level != -1 || pr->level_count != 0)
        g_fresh_bad++;
}

Test(engine, rows_name_no_pool_level_where_restarts_never_draw_from_the_pool, .timeout = 60)
{
    chain_build(&g_chain, (scheme_format){4, 4, 4}, 4, 20000000);
    for (int fresh = 0; fresh < 2; fresh++) {
        search_params p = params_for(g_chain.f);
        p.time_limit = 0.3;
        p.progress_every = 0.02;
        p.pool_fresh = fresh;
        static fake f;
        memset(&f, 0, sizeof f);
        f.nwalkers = 5;
        f.script = script_progress;
        g_fresh_rows = g_fresh_bad = 0;
        search_callbacks cb = {.progress = on_fresh};
        search_result r;
        cr_assert_eq(fake_run(&f, &p, NULL, 0, &cb, &r), SEARCH_REACHED, "%s", r.msg);
        cr_assert_geq(g_fresh_rows, 5, "%d progress rows", g_fresh_rows);
        if (fresh)
            cr_assert_eq(g_fresh_bad, 0, "%d of %d rows named a level", g_fresh_bad, g_fresh_rows);
        else /* the control: the start's rank, as the progress test above */
            cr_assert_eq(g_fresh_bad, g_fresh_rows, "%d of %d rows named no level", g_fresh_rows - g_fresh_bad,
                         g_fresh_rows);
        search_result_free(&r);
    }
    chain_free(&g_chain);
}

/* An even number of walkers: the median is the lower middle one. */
static void script_even(fake *f, int id)
{
    static const int ranks[4] = {60, 50, 55, 52};
    atomic_store(&f->rank[id], ranks[id]);
    walk_until_stop(f, id, 100);
}

static int g_even_bad, g_even_rows;
static void on_even(void *ctx, const search_progress *pr)
{
    g_even_rows++;
    if (pr->walkers == 4 && (pr->rank_min != 50 || pr->rank_median != 52 || pr->rank_max != 60))
        g_even_bad++;
}

Test(engine, the_median_of_an_even_count_is_the_lower_middle, .timeout = 60)
{
    search_params p = params_for((scheme_format){4, 4, 4});
    p.time_limit = 0.2;
    p.progress_every = 0.02;
    static fake f;
    f.nwalkers = 4;
    f.script = script_even;
    search_callbacks cb = {.progress = on_even};
    search_result r;
    cr_assert_eq(fake_run(&f, &p, NULL, 0, &cb, &r), SEARCH_REACHED);
    cr_assert_gt(g_even_rows, 2);
    cr_assert_eq(g_even_bad, 0);
    search_result_free(&r);
}

/* ---------------------------------------------------------------- the layer (MPI's place) */

/* A fake layer as search/mpi.c is one: a thread of its own that offers schemes
 * "from rank 2" (engine_offer_remote), counters added to the backend's, and
 * kept() for every scheme a local walker offered that the engine kept. */
typedef struct fake_layer {
    engine *e;
    pthread_t th;
    atomic_int starts, joins, kept, kept_bad, remote_improved, ended;
    atomic_int local_done; /* the local walker offered its half */
    int backend_joins_at_join;
    fake *f;
} fake_layer;
static fake_layer g_layer;

static void *layer_thread(void *arg)
{
    fake_layer *l = arg;
    scheme_rng rng;
    scheme_rng_seed(&rng, 99);
    while (!atomic_load(&l->local_done) && !engine_should_stop(l->e))
        sleep_ms(1);
    for (int i = g_chain.n / 2; i < g_chain.n && !engine_should_stop(l->e); i++) {
        int r = engine_offer_remote(l->e, 2, 7, g_chain.s[i], &rng);
        if (r > 0 && (r & ENGINE_IMPROVED))
            atomic_fetch_add(&l->remote_improved, 1);
    }
    while (!engine_should_stop(l->e))
        sleep_ms(1);
    sleep_ms(50); /* the run waits for this thread: its end must not come before */
    atomic_store(&l->ended, 1);
    engine_thread_end(l->e);
    return NULL;
}

static bool layer_start(engine *e, void *ctx)
{
    fake_layer *l = ctx;
    l->e = e;
    atomic_fetch_add(&l->starts, 1);
    engine_thread_begin(e);
    if (pthread_create(&l->th, NULL, layer_thread, l) != 0) {
        engine_thread_end(e);
        return false;
    }
    return true;
}

static void layer_stats(void *ctx, engine_stats *st)
{
    (void)ctx;
    st->flips += 5000; /* the other ranks' */
    if (st->rank_count) {
        st->rank_count[70] += 3;
        st->walkers += 3;
    }
}

static void layer_join(void *ctx)
{
    fake_layer *l = ctx;
    l->backend_joins_at_join = atomic_load(&l->f->joins);
    pthread_join(l->th, NULL);
    atomic_fetch_add(&l->joins, 1);
}

static void layer_kept(void *ctx, int walker, const scheme *s, int what)
{
    fake_layer *l = ctx;
    verify_result vr;
    atomic_fetch_add(&l->kept, 1);
    if (walker != 0 || !(what & (ENGINE_POOLED | ENGINE_IMPROVED)) || !verify_f2(s, &vr) ||
        s->rank < g_chain.s[g_chain.n / 2 - 1]->rank)
        atomic_fetch_add(&l->kept_bad, 1); /* a remote scheme echoed, or one not kept */
}

static void script_half(fake *f, int id)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, (uint64_t)id + 1);
    if (id == 0) {
        for (int i = 0; i < g_chain.n / 2; i++) {
            atomic_store(&f->rank[id], g_chain.s[i]->rank);
            atomic_fetch_add(&f->flips[id], 1000);
            offer(f, id, g_chain.s[i], &rng);
        }
        offer(f, id, g_chain.s[0], &rng); /* a duplicate: neither kept nor sent */
        atomic_store(&g_layer.local_done, 1);
    }
    walk_until_stop(f, id, 0);
}

Test(engine, a_layer_offers_remote_schemes_adds_its_counters_and_sees_what_local_walkers_kept, .timeout = 60)
{
    chain_build(&g_chain, (scheme_format){4, 4, 4}, 8, 20000000);
    cr_assert_geq(g_chain.n, 4);
    search_params p = params_for(g_chain.f);
    p.target_rank = g_chain.s[g_chain.n - 1]->rank;
    p.time_limit = 30;
    p.threads = 2;
    static fake f;
    f.nwalkers = 2;
    f.script = script_half;
    g_layer.f = &f;
    const engine_layer el = {"fake-mpi", &g_layer, layer_start, layer_stats, layer_join, layer_kept};
    engine_set_layer(&el);
    static cb_log l;
    search_callbacks cb = {.ctx = &l, .improved = log_improved};
    search_result r;
    search_status st = fake_run(&f, &p, NULL, 0, &cb, &r);
    engine_set_layer(NULL);
    cr_assert_eq(st, SEARCH_REACHED, "%d: %s", st, r.msg);
    const int half = g_chain.n / 2;
    /* every scheme reported once, in decreasing order, the remote ones as rank 2's walker 7 */
    cr_assert_eq(l.n, g_chain.n, "%d improvements reported", l.n);
    assert_decreasing(&l);
    for (int i = 0; i < g_chain.n; i++) {
        cr_assert_eq(l.node[i], i < half ? 0 : 2, "improvement %d: node %d", i, l.node[i]);
        cr_assert_eq(l.walker[i], i < half ? 0 : 7, "improvement %d: walker %d", i, l.walker[i]);
    }
    cr_assert_eq(atomic_load(&g_layer.remote_improved), g_chain.n - half);
    /* kept(): each local scheme the engine kept, once; never a remote one, never the duplicate */
    cr_assert_eq(atomic_load(&g_layer.kept), half);
    cr_assert_eq(atomic_load(&g_layer.kept_bad), 0);
    /* started once, joined once after the backend, the run waited for its thread */
    cr_assert_eq(atomic_load(&g_layer.starts), 1);
    cr_assert_eq(atomic_load(&g_layer.joins), 1);
    cr_assert_eq(g_layer.backend_joins_at_join, 1);
    cr_assert_eq(atomic_load(&g_layer.ended), 1);
    /* the result counts the layer's flips with the backend's */
    cr_assert_eq(r.flips, (uint64_t)half * 1000 + 5000, "flips %llu", (unsigned long long)r.flips);
    search_result_free(&r);

    /* with the layer removed, a run has none of it */
    memset(&g_layer, 0, sizeof g_layer);
    static fake f2;
    f2.nwalkers = 1;
    f2.script = script_descend;
    p.target_rank = g_chain.s[1]->rank;
    st = fake_run(&f2, &p, NULL, 0, NULL, &r);
    cr_assert_eq(st, SEARCH_REACHED, "%d: %s", st, r.msg);
    cr_assert_eq(atomic_load(&g_layer.starts), 0);
    cr_assert_eq(atomic_load(&g_layer.kept), 0);
    search_result_free(&r);
    chain_free(&g_chain);
}

/* ---------------------------------------------------------------- CPU walkers beside (--host-threads) */

/* The fake walkers only count flips and report rank 60: every improvement of
 * these runs comes from the CPU walkers beside them. */
static void script_count(fake *f, int id)
{
    atomic_store(&f->rank[id], 60);
    walk_until_stop(f, id, 1000);
}

typedef struct beside_log {
    cb_log imp;
    int rows, max_walkers, bad;
    char why[256];
} beside_log;

static bool beside_improved(void *ctx, const search_found *fd) { return log_improved(&((beside_log *)ctx)->imp, fd); }

static void beside_progress(void *ctx, const search_progress *pr)
{
    beside_log *l = ctx;
    l->rows++;
    if (pr->walkers > l->max_walkers)
        l->max_walkers = pr->walkers;
    if ((pr->plateau != 777 || pr->devices != 1) && !l->bad++)
        snprintf(l->why, sizeof l->why, "row %d: plateau %llu devices %d (the main backend's: 777, 1)", l->rows,
                 (unsigned long long)pr->plateau, pr->devices);
}

/* A config for the GPU with the given options (name, value pairs), resolved,
 * and the beside walkers' settings from it. */
static void beside_config(search_config *c, search_params *q, const char *const *opts, int n)
{
    char err[256];
    search_config_default(c);
    for (int i = 0; i < n; i += 2)
        cr_assert(search_config_set(c, search_param_find(opts[i]), opts[i + 1], err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    cr_assert(search_config_beside(c, q, err, sizeof err), "%s", err);
}

static search_status beside_run(fake *f, const search_params *p, const search_params *q, beside_log *l,
                                search_result *r)
{
    memset(l, 0, sizeof *l);
    search_callbacks cb = {.ctx = l, .improved = beside_improved, .progress = beside_progress};
    const engine_backend b = {"fake", f, fake_setup, fake_start, fake_stats, fake_join, fake_name};
    return engine_run_beside(p, q, NULL, 0, &cb, &b, r);
}

/* f, reset: n walkers that count flips (script_count), plateau 777 on 1 device. */
static void fake_counting(fake *f, int n)
{
    memset(f, 0, sizeof *f);
    f->nwalkers = n;
    f->script = script_count;
    f->plateau = 777;
    f->devices = 1;
}

static uint64_t fake_flips(fake *f)
{
    uint64_t s = 0;
    for (int i = 0; i < f->nwalkers; i++)
        s += atomic_load(&f->flips[i]);
    return s;
}

Test(engine, cpu_walkers_beside_walk_in_the_same_run, .timeout = 60)
{
    static const char *const opts[] = {"dims", "3x3x3", "host-threads", "2", "seed", "7"};
    search_config c;
    search_params q;
    beside_config(&c, &q, opts, 6);
    cr_assert_eq(q.threads, 2);
    search_params p = c.p;
    p.time_limit = 1.0;
    p.progress_every = 0.05;
    static fake f;
    fake_counting(&f, 2);
    static beside_log l;
    search_result r;
    cr_assert_eq(beside_run(&f, &p, &q, &l, &r), SEARCH_REACHED, "%s", r.msg);
    assert_decreasing(&l.imp);
    cr_assert_gt(l.imp.n, 0, "no improvement in 1 s of two CPU walkers on <3,3,3> from 27");
    cr_assert_lt(r.best_rank, 27);
    for (int i = 0; i < l.imp.n && i < 1024; i++)
        cr_assert(l.imp.walker[i] == SEARCH_BESIDE_WALKER0 || l.imp.walker[i] == SEARCH_BESIDE_WALKER0 + 1,
                  "improvement %d from walker %d: the fake walkers offer nothing", i, l.imp.walker[i]);
    const uint64_t ff = fake_flips(&f);
    cr_assert_gt(ff, 0);
    cr_assert_gt(r.flips, ff, "the run's flips %llu are the fake's %llu alone: the CPU walkers' are not counted",
                 (unsigned long long)r.flips, (unsigned long long)ff);
    cr_assert_eq(l.max_walkers, 4, "walkers in the rows: %d, want 2 fake + 2 CPU", l.max_walkers);
    cr_assert_eq(l.bad, 0, "%s", l.why);
    cr_assert_eq(atomic_load(&f.setups), 1);
    cr_assert_eq(atomic_load(&f.joins), 1);
    search_result_free(&r);

    /* without --host-threads the same call is the backend alone */
    search_params p0 = p;
    p0.host_threads = 0;
    static fake f0;
    fake_counting(&f0, 2);
    p0.time_limit = 0.3;
    cr_assert_eq(beside_run(&f0, &p0, &q, &l, &r), SEARCH_REACHED, "%s", r.msg);
    cr_assert_eq(l.imp.n, 0);
    cr_assert_eq(r.best_rank, 27);
    cr_assert_eq(r.flips, fake_flips(&f0));
    cr_assert_eq(l.max_walkers, 2);
    search_result_free(&r);
}

Test(engine, the_flip_budget_counts_the_walkers_beside, .timeout = 60)
{
    static const char *const opts[] = {"dims", "4x4x4", "host-threads", "2", "max-flips", "3000000"};
    search_config c;
    search_params q;
    beside_config(&c, &q, opts, 6);
    cr_assert_eq(q.max_flips, 0, "the walkers beside have no budget of their own");
    search_params p = c.p;
    p.progress_every = 0;
    static fake f;
    fake_counting(&f, 1);
    static beside_log l;
    search_result r;
    cr_assert_eq(beside_run(&f, &p, &q, &l, &r), SEARCH_REACHED, "%s", r.msg);
    const uint64_t ff = fake_flips(&f);
    /* the fake adds 1000 a millisecond and would reach the budget alone in
     * 3 s; the run ends before it does only when the CPU walkers' flips count */
    cr_assert_lt(ff, 3000000, "the fake made %llu of 3e6 flips: the CPU walkers' did not count toward the budget",
                 (unsigned long long)ff);
    cr_assert_geq(r.flips, 3000000);
    cr_assert_gt(r.flips, ff);
    search_result_free(&r);
}

Test(engine, a_failed_setup_starts_no_walker_beside, .timeout = 60)
{
    static const char *const opts[] = {"dims", "3x3x3", "host-threads", "2"};
    search_config c;
    search_params q;
    beside_config(&c, &q, opts, 4);
    search_params p = c.p;
    p.time_limit = 0.5;
    p.progress_every = 0;
    static fake f;
    fake_counting(&f, 2);
    f.fail_setup = true;
    static beside_log l;
    search_result r;
    cr_assert_eq(beside_run(&f, &p, &q, &l, &r), SEARCH_BAD_PARAMS);
    cr_assert(strstr(r.msg, "no such device"), "%s", r.msg);
    cr_assert_eq(l.imp.n, 0);
    cr_assert_eq(r.flips, 0);
    search_result_free(&r);
}

Test(engine, symmetric_walkers_beside_offer_verified_invariant_schemes, .timeout = 60)
{
    static const char *const opts[] = {"dims", "4x4x4", "host-threads", "2", "symmetry", "c3", "seed", "3"};
    search_config c;
    search_params q;
    beside_config(&c, &q, opts, 8);
    search_params p = c.p;
    p.time_limit = 1.5;
    p.progress_every = 0;
    static fake f;
    fake_counting(&f, 1);
    static beside_log l;
    search_result r;
    /* the engine verifies every offer (a failure ends the run with SEARCH_FAILED) */
    cr_assert_eq(beside_run(&f, &p, &q, &l, &r), SEARCH_REACHED, "%s", r.msg);
    assert_decreasing(&l.imp);
    cr_assert_gt(l.imp.n, 0);
    cr_assert_lt(r.best_rank, 64);
    int term, elem;
    char err[256];
    cr_assert(r.best, "no best");
    cr_assert(scheme_symmetry_check(r.best, SCHEME_SYM_C3, &term, &elem, err, sizeof err),
              "the best of a c3 walk beside: %s", err);
    search_result_free(&r);
}

Test(engine, the_walkers_beside_take_the_cpus_walk_settings)
{
    search_config c;
    search_params q;
    static const char *const plain[] = {"dims", "4x4x5", "host-threads", "6"};
    beside_config(&c, &q, plain, 4);
    const search_param_info *pl = search_param(SEARCH_PARAM_PLATEAU), *wl = search_param(SEARCH_PARAM_WALK_LEN);
    cr_assert_eq((double)c.p.plateau, pl->gpu_def, "the run: the GPU's plateau");
    cr_assert_eq((double)q.plateau, pl->def, "beside: the CPU's plateau %llu", (unsigned long long)q.plateau);
    cr_assert_eq((double)q.walk_len, wl->def);
    cr_assert_neq(pl->def, pl->gpu_def, "the test needs a row whose defaults differ");
    cr_assert_eq(q.threads, 6);
    cr_assert_eq(q.host_threads, 0);
    /* a row given holds for both; the CPU's bounds follow it (the CPU-only rows
     * such as --plateau-min stay refused with --backend gpu: their defaults) */
    static const char *const given[] = {"dims", "4x4x5", "host-threads", "1", "plateau", "777"};
    beside_config(&c, &q, given, 6);
    cr_assert_eq(c.p.plateau, 777);
    cr_assert_eq(q.plateau, 777);
    cr_assert_eq(q.plateau_min, 777);
    /* a symmetric walk's own defaults hold for both */
    static const char *const sym[] = {"dims", "6x6x6", "host-threads", "2", "symmetry", "c3xc2"};
    beside_config(&c, &q, sym, 6);
    cr_assert_eq(c.p.plateau, q.plateau);
    cr_assert_eq(c.p.walk_len, q.walk_len);
    cr_assert_eq(c.p.gen_max, 1);
    cr_assert_eq(q.gen_max, 1);
    /* the GPU's own rows given (--warps) do not stop the CPU's reading */
    static const char *const gpu[] = {"dims", "4x4x4", "host-threads", "3", "warps", "64", "rounds", "2"};
    beside_config(&c, &q, gpu, 8);
    cr_assert_eq(q.threads, 3);
}
