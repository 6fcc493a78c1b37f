/* The pool: walkers restart from the best schemes found so far, and only
 * move on to rank r once enough schemes of rank r exist (the level strategy
 * of Kauers-Moosbauer's flips and Arai-Ichikawa-Hukushima's adaptive search:
 * many distinct schemes of rank r make a scheme of rank r-1 likelier than one
 * scheme walked for long). */
#include "pool.h"
#include "walker_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool search_pool_init(search_pool *p, int max_rank, int size, int min)
{
    memset(p, 0, sizeof *p);
    p->max_rank = max_rank;
    p->size = size;
    p->min = min;
    p->r = calloc((size_t)max_rank + 1, sizeof *p->r);
    if (!p->r)
        return false;
    pthread_mutex_init(&p->mu, NULL);
    return true;
}

void search_pool_free(search_pool *p)
{
    if (!p->r)
        return;
    for (int k = 0; k <= p->max_rank; k++) {
        for (int i = 0; i < p->r[k].count; i++)
            scheme_free(p->r[k].s[i]);
        free(p->r[k].s);
        free(p->r[k].hash);
    }
    free(p->r);
    p->r = NULL;
    pthread_mutex_destroy(&p->mu);
}

/* Whether rank r holds c (canonical, of canonical hash h); under the pool's lock. */
static bool holds_locked(const search_pool_rank *r, const scheme *c, uint64_t h)
{
    for (int i = 0; i < r->count; i++)
        if (r->hash[i] == h && scheme_equal(r->s[i], c))
            return true;
    return false;
}

bool search_pool_holds(search_pool *p, const scheme *c, uint64_t h)
{
    if (c->rank < 0 || c->rank > p->max_rank)
        return false;
    pthread_mutex_lock(&p->mu);
    const bool in = holds_locked(&p->r[c->rank], c, h);
    pthread_mutex_unlock(&p->mu);
    return in;
}

bool search_pool_add(search_pool *p, const scheme *s, scheme_rng *rng, bool *oom)
{
    if (oom)
        *oom = false;
    if (s->rank < 0 || s->rank > p->max_rank)
        return false;
    scheme *c = scheme_clone(s);
    if (!c) {
        if (oom)
            *oom = true;
        return false;
    }
    uint64_t h = scheme_hash(c); /* canonicalizes c */
    bool added = false;
    pthread_mutex_lock(&p->mu);
    search_pool_rank *r = &p->r[s->rank];
    if (!holds_locked(r, c, h)) {
        if (!r->s) {
            r->s = calloc((size_t)p->size, sizeof *r->s);
            r->hash = calloc((size_t)p->size, sizeof *r->hash);
            if (!r->s || !r->hash) {
                free(r->s);
                free(r->hash);
                r->s = NULL;
                r->hash = NULL;
                if (oom)
                    *oom = true;
                goto out;
            }
        }
        int at = r->count < p->size ? r->count++ : (int)scheme_rng_below(rng, (uint32_t)p->size);
        scheme_free(r->s[at]);
        r->s[at] = c;
        r->hash[at] = h;
        c = NULL;
        added = true;
        p->added++;
    }
out:
    pthread_mutex_unlock(&p->mu);
    scheme_free(c);
    return added;
}

/* ---- the restart policy ----------------------------------------------------
 * One rule for every backend (docs/search.md, "Restarts"):
 *   1. the level: the lowest rank holding at least `min` schemes; while no rank
 *      holds that many, the highest nonempty rank (the start schemes), so that
 *      independent descents from the starts fill the ranks below;
 *   2. with probability `fresh`, the highest nonempty rank instead (the starts);
 *   3. then, repeatedly, with probability `up`, the next nonempty rank above
 *      (the j-th nonempty rank above the level: up^j (1 - up); the topmost
 *      takes what is left);
 *   4. a uniformly random scheme of that rank.
 * pick_rank_locked draws it (the CPU walkers' restarts: its random draws are
 * those of the measured policy, so a seed replays as before) and
 * weights_locked computes its exact distribution, from which the GPU's device
 * pool is staged (search_pool_stage).  tests/test_engine.c checks that the two
 * agree. */

static int level_locked(search_pool *p, int *count)
{
    int highest = -1;
    for (int k = 0; k <= p->max_rank; k++) {
        if (!p->r[k].count)
            continue;
        if (p->r[k].count >= p->min) {
            if (count)
                *count = p->r[k].count;
            return k;
        }
        highest = k;
    }
    /* no rank has enough yet: walk again from the start schemes, so that
     * independent descents fill the ranks below */
    if (count)
        *count = highest >= 0 ? p->r[highest].count : 0;
    return highest;
}

static int highest_locked(const search_pool *p)
{
    for (int j = p->max_rank; j >= 0; j--)
        if (p->r[j].count)
            return j;
    return -1;
}

/* The next nonempty rank above k; -1 when none. */
static int above_locked(const search_pool *p, int k)
{
    for (int j = k + 1; j <= p->max_rank; j++)
        if (p->r[j].count)
            return j;
    return -1;
}

/* Steps 1-3: the rank a restart draws from; -1 when the pool is empty. */
static int pick_rank_locked(search_pool *p, scheme_rng *rng)
{
    int k = level_locked(p, NULL);
    /* sometimes the start schemes: a fresh descent may find a better basin */
    if (k >= 0 && p->fresh > 0 && scheme_rng_uniform(rng) < p->fresh)
        k = highest_locked(p);
    /* sometimes a rank above the level: fresh descents keep the pools diverse */
    while (k >= 0 && p->up > 0 && scheme_rng_uniform(rng) < p->up) {
        int j = above_locked(p, k);
        if (j < 0)
            break;
        k = j;
    }
    return k;
}

/* The distribution of pick_rank_locked: w[k] for k = 0..max_rank; returns the level. */
static int weights_locked(search_pool *p, double *w)
{
    for (int k = 0; k <= p->max_rank; k++)
        w[k] = 0;
    const int level = level_locked(p, NULL);
    if (level < 0)
        return -1;
    const double fresh = p->fresh > 0 ? p->fresh : 0;
    const int from[2] = {level, highest_locked(p)};
    const double mass[2] = {1 - fresh, fresh};
    for (int s = 0; s < 2; s++) {
        double m = mass[s];
        int k = from[s];
        for (int j; m > 0 && p->up > 0 && (j = above_locked(p, k)) >= 0; k = j) {
            w[k] += m * (1 - p->up);
            m *= p->up;
        }
        w[k] += m;
    }
    return level;
}

int search_pool_level(search_pool *p, int *count)
{
    pthread_mutex_lock(&p->mu);
    int k = level_locked(p, count);
    pthread_mutex_unlock(&p->mu);
    return k;
}

int search_pool_restart(search_pool *p, scheme_rng *rng, search_walker *w)
{
    pthread_mutex_lock(&p->mu);
    int k = pick_rank_locked(p, rng);
    if (k >= 0) {
        const search_pool_rank *r = &p->r[k];
        const scheme *s = r->s[scheme_rng_below(rng, (uint32_t)r->count)];
        if (!walker_reset(w, s, p->reduced))
            k = -1;
    }
    pthread_mutex_unlock(&p->mu);
    return k;
}

int search_pool_restart_weights(search_pool *p, double *w)
{
    pthread_mutex_lock(&p->mu);
    int k = weights_locked(p, w);
    pthread_mutex_unlock(&p->mu);
    return k;
}

int search_pool_stage(search_pool *p, scheme_rng *rng, int n, search_pool_visit visit, void *ctx, int *level,
                      int *level_count)
{
    const int nr = p->max_rank + 1;
    double *w = malloc((size_t)nr * sizeof *w);
    int *q = malloc((size_t)nr * sizeof *q);
    int *idx = malloc((size_t)(p->size > 0 ? p->size : 1) * sizeof *idx);
    if (!w || !q || !idx) {
        free(w);
        free(q);
        free(idx);
        return -1;
    }
    int staged = 0;
    pthread_mutex_lock(&p->mu);
    const int lv = weights_locked(p, w);
    if (level)
        *level = lv;
    if (level_count)
        *level_count = lv >= 0 ? p->r[lv].count : 0;
    if (lv < 0 || n <= 0)
        goto out;
    /* entries per rank: n w[k], rounded by largest remainders (sum n); one rank
     * alone needs no more entries than it has schemes */
    int ranks = 0, one = -1;
    for (int k = 0; k < nr; k++)
        if (w[k] > 0) {
            ranks++;
            one = k;
        }
    if (ranks == 1 && p->r[one].count < n)
        n = p->r[one].count;
    int left = n;
    for (int k = 0; k < nr; k++) {
        q[k] = (int)(w[k] * n);
        left -= q[k];
    }
    while (left > 0) {
        int best = -1;
        double frac = -1;
        for (int k = 0; k < nr; k++) {
            if (w[k] <= 0)
                continue;
            const double f = w[k] * n - q[k];
            if (f > frac) {
                frac = f;
                best = k;
            }
        }
        q[best]++;
        left--;
    }
    /* each rank's entries: a uniform random subset of its schemes, or every
     * scheme equally often (within one) when it has fewer than its share */
    for (int k = 0; k < nr; k++) {
        const search_pool_rank *r = &p->r[k];
        if (!q[k] || !r->count)
            continue;
        if (q[k] <= r->count) {
            for (int i = 0; i < r->count; i++)
                idx[i] = i;
            for (int i = 0; i < q[k]; i++) { /* partial Fisher-Yates */
                const int j = i + (int)scheme_rng_below(rng, (uint32_t)(r->count - i));
                const int t = idx[i];
                idx[i] = idx[j];
                idx[j] = t;
                visit(ctx, staged++, r->s[idx[i]]);
            }
        } else {
            const int off = (int)scheme_rng_below(rng, (uint32_t)r->count);
            for (int i = 0; i < q[k]; i++)
                visit(ctx, staged++, r->s[(off + i) % r->count]);
        }
    }
out:
    pthread_mutex_unlock(&p->mu);
    free(w);
    free(q);
    free(idx);
    return staged;
}

bool search_starts_prepare(const search_params *p, const scheme *const **starts, int *nstarts,
                           scheme **std, int *max_rank, search_result *res)
{
    *std = NULL;
    if (*nstarts <= 0) {
        char err[256] = "out of memory";
        /* without symmetry, given cubes still rewrite the standard algorithm
         * (the C3 start expanded: a plain walk from there, search_params_check) */
        *std = p->symmetry != SCHEME_SYM_NONE
                   ? search_symmetric_start(p->fmt, (scheme_symmetry)p->symmetry, &p->cubes, err, sizeof err)
               : p->cubes.count ? search_symmetric_start(p->fmt, SCHEME_SYM_C3, &p->cubes, err, sizeof err)
                                : scheme_standard(p->fmt);
        if (!*std) {
            snprintf(res->msg, sizeof res->msg, "%s", err);
            res->status = strcmp(err, "out of memory") ? SEARCH_BAD_PARAMS : SEARCH_FAILED;
            return false;
        }
        *starts = (const scheme *const *)std;
        *nstarts = 1;
    }
    *max_rank = 0;
    char fb[32], fb2[32];
    for (int i = 0; i < *nstarts; i++) {
        const scheme *s = (*starts)[i];
        if (s->fmt.n != p->fmt.n || s->fmt.m != p->fmt.m || s->fmt.p != p->fmt.p) {
            snprintf(res->msg, sizeof res->msg, "start scheme %d is for %s, not %s", i + 1,
                     scheme_format_str(s->fmt, fb), scheme_format_str(p->fmt, fb2));
            scheme_free(*std);
            *std = NULL;
            return false;
        }
        int term, elem;
        char err[256];
        if (p->symmetry != SCHEME_SYM_NONE &&
            !scheme_symmetry_check(s, (scheme_symmetry)p->symmetry, &term, &elem, err, sizeof err)) {
            snprintf(res->msg, sizeof res->msg, "start scheme %d is not invariant under %s: %s (a symmetric "
                     "walk starts from invariant schemes: flipgraph verify --symmetry)", i + 1,
                     scheme_symmetry_name((scheme_symmetry)p->symmetry), err);
            scheme_free(*std);
            *std = NULL;
            return false;
        }
        if (s->rank > *max_rank)
            *max_rank = s->rank;
    }
    return true;
}
