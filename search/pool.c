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
    bool dup = false;
    for (int i = 0; i < r->count && !dup; i++)
        dup = r->hash[i] == h && scheme_equal(r->s[i], c);
    if (!dup) {
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
    int k = level_locked(p, NULL);
    /* sometimes the start schemes: a fresh descent may find a better basin */
    if (k >= 0 && p->fresh > 0 && (double)(scheme_rng_next(rng) >> 11) * 0x1p-53 < p->fresh) {
        for (int j = p->max_rank; j >= 0; j--)
            if (p->r[j].count) {
                k = j;
                break;
            }
    }
    /* sometimes a rank above the level: fresh descents keep the pools diverse */
    while (k >= 0 && p->up > 0 && (double)(scheme_rng_next(rng) >> 11) * 0x1p-53 < p->up) {
        int j = k + 1;
        while (j <= p->max_rank && !p->r[j].count)
            j++;
        if (j > p->max_rank)
            break;
        k = j;
    }
    if (k >= 0) {
        const search_pool_rank *r = &p->r[k];
        const scheme *s = r->s[scheme_rng_below(rng, (uint32_t)r->count)];
        if (!walker_reset(w, s, p->reduced))
            k = -1;
    }
    pthread_mutex_unlock(&p->mu);
    return k;
}

bool search_starts_prepare(const search_params *p, const scheme *const **starts, int *nstarts,
                           scheme **std, int *max_rank, search_result *res)
{
    *std = NULL;
    if (*nstarts <= 0) {
        *std = scheme_standard(p->fmt);
        if (!*std) {
            snprintf(res->msg, sizeof res->msg, "out of memory");
            res->status = SEARCH_FAILED;
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
        if (s->rank > *max_rank)
            *max_rank = s->rank;
    }
    return true;
}
