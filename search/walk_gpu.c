/* The GPU search driver (issue 5; docs/gpu-walk.md): thousands of warps walk
 * (cuda/walk*.cu, one warp per scheme, seed 004) while the host collects the
 * walkers whose rank fell, verifies each scheme with verify_f2 before it is
 * pooled or reported, and keeps the GPU's copy of the pool of best schemes
 * (which stalled walkers restart from) up to date.  Two launches are in flight: the host works on one launch's results
 * while the GPU runs the next, on the walk's own stream.
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
    o->check = 0;
    o->check_pairs = true;
    o->idle_plus = SEARCH_GPU_DEFAULT_IDLE_PLUS;
    o->gpu_defaults = true;
    o->collect = true;
}

/* The shared parameters the GPU runs with: p, where the caller left a CPU
 * default, the GPU's measured default instead (search.h's defaults were
 * measured for one CPU thread; the GPU walks 2640 schemes at once). */
static void gpu_params(const search_params *p, const search_gpu_options *o, search_params *q)
{
    *q = *p;
    if (!o->gpu_defaults)
        return;
    if (q->plus_max == SEARCH_DEFAULT_PLUS_MAX)
        q->plus_max = SEARCH_GPU_DEFAULT_PLUS_MAX;
    if (q->pool_min == SEARCH_DEFAULT_POOL_MIN && SEARCH_GPU_DEFAULT_POOL_MIN <= q->pool_size)
        q->pool_min = SEARCH_GPU_DEFAULT_POOL_MIN;
    if (q->walk_len == SEARCH_DEFAULT_WALK_LEN)
        q->walk_len = SEARCH_GPU_DEFAULT_WALK_LEN;
}

typedef struct gpu_run {
    const search_params *p;
    const search_gpu_options *o;
    const search_callbacks *cb;
    search_pool pool;
    scheme_rng rng;
    cuda_walk *w;
    cuda_walk_info info;
    uint64_t *terms;  /* [cap*3] scratch */
    uint64_t *pool_terms; /* [pool_cap][cap][3]: the device pool being built */
    int32_t *pool_ranks;
    int pool_cap;
    uint64_t pool_seen;   /* pool.added at the last upload */
    uint64_t flips, plus, reductions, restarts, improvements;
    uint64_t pooled, isolated; /* returned schemes pooled / not (flip-isolated) */
    int best_rank;
    scheme *best;
    double t0;
    bool failed, reached;
    char msg[512];
} gpu_run;

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

static void run_fail(gpu_run *r, const char *msg)
{
    if (!r->failed) {
        r->failed = true;
        snprintf(r->msg, sizeof r->msg, "%s", msg);
    }
}

/* A scheme from the GPU: verified first; a failure is a bug, never kept. */
static bool keep(gpu_run *r, const uint64_t *t, int rank, int walker)
{
    scheme *s = from_terms(r->p->fmt, t, rank);
    if (!s) {
        run_fail(r, "out of memory");
        return false;
    }
    verify_result vr;
    memset(&vr, 0, sizeof vr);
    if (!verify_f2(s, &vr)) {
        char fb[32], m[512];
        snprintf(m, sizeof m, "BUG: GPU walker %d returned a scheme of rank %d for %s that does not verify: %.300s",
                 walker, rank, scheme_format_str(s->fmt, fb), vr.msg);
        run_fail(r, m);
        scheme_free(s);
        return false;
    }
    bool oom = false;
    /* A flip-isolated scheme (no two terms share a factor: Strassen's square
     * and its kin at <4,4,4>:49) is reported but not pooled: walkers
     * restarting from it could only leave by plus transitions, and a level
     * full of them stalls the search (docs/search.md measured this for the
     * CPU walker; the GPU stalled at 49 the same way). */
    if (search_count_flips(s->terms, rank) > 0) {
        search_pool_add(&r->pool, s, &r->rng, &oom);
        r->pooled++;
    } else {
        r->isolated++;
    }
    if (oom) {
        scheme_free(s);
        run_fail(r, "out of memory");
        return false;
    }
    bool ok = true;
    if (rank < r->best_rank) {
        r->best_rank = rank;
        scheme_free(r->best);
        r->best = scheme_clone(s);
        r->improvements++;
        if (r->cb && r->cb->improved) {
            search_found f = {s, rank, now_s() - r->t0, r->flips, walker};
            if (!r->cb->improved(r->cb->ctx, &f)) {
                run_fail(r, "the improvement handler failed");
                ok = false;
            }
        }
        if (r->p->target_rank > 0 && rank <= r->p->target_rank)
            r->reached = true;
    }
    scheme_free(s);
    return ok;
}

/* Stages the device pool: the schemes of the pool's level and of every lower
 * rank, lower ranks first, up to pool_cap.  false on a device error. */
static bool upload_pool(gpu_run *r)
{
    int n = 0;
    const size_t cw = (size_t)r->info.cap * 3;
    pthread_mutex_lock(&r->pool.mu);
    r->pool_seen = r->pool.added;
    int level = -1; /* as pool.c: the lowest rank with pool_min schemes, else with any */
    for (int k = 0; k <= r->pool.max_rank && level < 0; k++)
        if (r->pool.r[k].count >= r->pool.min)
            level = k;
    for (int k = 0; k <= r->pool.max_rank && level < 0; k++)
        if (r->pool.r[k].count)
            level = k;
    /* walks that end at the level without a lower rank bring their scheme
     * home while the level has room: the pool's diversity (driver.c) */
    cuda_walk_set_collect(r->w, r->o->collect && level >= 0 && r->pool.r[level].count < r->pool.size ? level : 0);
    /* pool_up (driver.c's restarts one rank above the level, for diversity):
     * the device draws uniformly from what it holds, so the first nonempty
     * rank above the level gets a share up/(1-up) of the level's entries */
    int up_rank = -1, up_n = 0;
    if (level >= 0 && r->p->pool_up > 0 && r->p->pool_up < 1) {
        for (int k = level + 1; k <= r->pool.max_rank && up_rank < 0; k++)
            if (r->pool.r[k].count)
                up_rank = k;
        int below = 0;
        for (int k = 0; k <= level; k++)
            below += r->pool.r[k].count;
        if (up_rank >= 0) {
            up_n = (int)((double)below * r->p->pool_up / (1 - r->p->pool_up) + 0.5);
            if (up_n > r->pool.r[up_rank].count)
                up_n = r->pool.r[up_rank].count;
            if (up_n > r->pool_cap / 4)
                up_n = r->pool_cap / 4;
        }
    }
    for (int k = 0; k <= r->pool.max_rank && n < r->pool_cap; k++) {
        if (k > level && k != up_rank)
            continue;
        const int cnt = k == up_rank ? up_n : r->pool.r[k].count;
        for (int i = 0; i < cnt && n < r->pool_cap - (k <= level ? up_n : 0); i++) {
            const scheme *s = r->pool.r[k].s[i];
            if (s->rank > r->info.cap)
                continue;
            for (int t = 0; t < s->rank; t++)
                memcpy(r->pool_terms + (size_t)n * cw + 3 * (size_t)t, s->terms[t].f, 3 * sizeof(uint64_t));
            r->pool_ranks[n++] = s->rank;
        }
    }
    pthread_mutex_unlock(&r->pool.mu);
    char err[256];
    if (cuda_walk_set_pool(r->w, r->pool_terms, r->pool_ranks, n, err, sizeof err) != 0) {
        run_fail(r, err);
        return false;
    }
    return true;
}

/* One launch's results: improvements, checks, totals, the pool. */
static void process(gpu_run *r, const cuda_walk_batch *b)
{
    const search_params *p = r->p;
    uint64_t flips = 0, plus = 0, red = 0;
    for (int i = 0; i < b->warps; i++) {
        flips += b->warp[i].flips;
        plus += b->warp[i].plus;
        red += b->warp[i].reductions;
    }
    r->flips = flips;
    r->plus = plus;
    r->reductions = red;
    uint64_t restarts = 0;
    for (int i = 0; i < b->warps; i++)
        restarts += b->warp[i].restarts;
    r->restarts = restarts;
    for (int q = 0; q < b->improved && !r->failed; q++)
        if (!keep(r, b->improved_terms + (size_t)q * (size_t)b->cap * 3, b->improved_rank[q], b->improved_warp[q]))
            return;
    /* checking mode: the current schemes of a moving window of walkers */
    for (int k = 0; k < b->sample_count && !r->failed; k++) {
        const int wi = (b->sample_first + k) % b->warps;
        scheme *s = from_terms(p->fmt, b->sample_terms + (size_t)k * (size_t)b->cap * 3, b->warp[wi].rank);
        verify_result vr;
        memset(&vr, 0, sizeof vr);
        if (!s) {
            run_fail(r, "out of memory");
        } else if (!verify_f2(s, &vr)) {
            char m[512];
            snprintf(m, sizeof m, "BUG: check: GPU walker %d holds a scheme of rank %d that does not verify: %.300s",
                     wi, b->warp[wi].rank, vr.msg);
            run_fail(r, m);
        }
        scheme_free(s);
    }
    if (r->failed || r->reached)
        return;
    /* new schemes in the pool: the GPU's copy follows (restarts use it) */
    if (r->pool.added != r->pool_seen)
        upload_pool(r);
}

static void progress(gpu_run *r, double t, double *last_t, uint64_t *last_flips)
{
    search_progress pr;
    memset(&pr, 0, sizeof pr);
    pr.seconds = t - r->t0;
    pr.flips = r->flips;
    pr.flips_per_s = t > *last_t ? (double)(r->flips - *last_flips) / (t - *last_t) : 0;
    pr.best_rank = r->best_rank;
    pr.record = search_record_rank(r->p->fmt);
    pr.level = search_pool_level(&r->pool, &pr.level_count);
    pr.plateau = r->p->plateau;
    pr.plus = r->plus;
    pr.restarts = r->restarts;
    pr.reductions = r->reductions;
    r->cb->progress(r->cb->ctx, &pr);
    *last_t = t;
    *last_flips = r->flips;
}

search_status search_run_gpu_opts(const search_params *p, const search_gpu_options *o,
                                  const scheme *const *starts, int nstarts,
                                  const search_callbacks *cb, search_result *res)
{
    memset(res, 0, sizeof *res);
    res->status = SEARCH_BAD_PARAMS;
    search_gpu_options od;
    if (!o) {
        search_gpu_options_default(&od);
        o = &od;
    }
    search_params pg;
    gpu_params(p, o, &pg);
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
    if (p->device < 0 || p->device >= ndev) {
        snprintf(res->msg, sizeof res->msg, "no GPU %d (%d visible)", p->device, ndev);
        return res->status;
    }
    if (o->rounds < 1 || o->rounds > 64 || o->warps < 0 || o->mix_every < 0 || o->check < 0 ||
        o->store < 0 || o->store > 2 || !(o->launch_ms > 0)) {
        snprintf(res->msg, sizeof res->msg, "bad GPU options (rounds 1..64, no negative values)");
        return res->status;
    }

    gpu_run r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.o = o;
    r.cb = cb;
    scheme_rng_seed(&r.rng, p->seed ^ 0x9e3779b97f4a7c15ull);

    /* the start schemes, verified: the pool's first members (as driver.c) */
    scheme *std = NULL;
    int max_rank;
    if (!search_starts_prepare(p, &starts, &nstarts, &std, &max_rank, res))
        return res->status;
    /* plus transitions stop at the cap; restarts come from lower ranks */
    int cap = (max_rank + 31) / 32 * 32;
    if (cap < 32)
        cap = 32;
    if (cap > CUDA_WALK_MAX_CAP) {
        snprintf(res->msg, sizeof res->msg, "start rank %d: the GPU walk holds at most %d terms", max_rank,
                 CUDA_WALK_MAX_CAP);
        scheme_free(std);
        return res->status;
    }
    if (!search_pool_init(&r.pool, max_rank, p->pool_size, p->pool_min)) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = SEARCH_FAILED;
        scheme_free(std);
        return res->status;
    }
    r.best_rank = SCHEME_MAX_RANK + 1;
    scheme **f2s = calloc((size_t)nstarts, sizeof *f2s);
    if (!f2s) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = SEARCH_FAILED;
        goto out_pool;
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
            goto out_starts;
        }
        if (f2s[i]->rank < 2) {
            snprintf(res->msg, sizeof res->msg, "start scheme %d has rank %d: nothing to walk", i + 1,
                     f2s[i]->rank);
            goto out_starts;
        }
        search_pool_add(&r.pool, f2s[i], &r.rng, NULL);
        if (f2s[i]->rank < r.best_rank) {
            r.best_rank = f2s[i]->rank;
            scheme_free(r.best);
            r.best = scheme_clone(f2s[i]);
        }
    }
    res->start_rank = r.best_rank;

    cuda_walk_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.warps = o->warps;
    cfg.cap = cap;
    cfg.device = p->device;
    cfg.seed = p->seed;
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
    cfg.store = o->store;
    char err[256];
    int rc = cuda_walk_create(&cfg, &r.w, err, sizeof err);
    if (rc != 0) {
        snprintf(res->msg, sizeof res->msg, "GPU walk: %s", err);
        res->status = rc == 2 ? SEARCH_BAD_PARAMS : SEARCH_FAILED;
        goto out_starts;
    }
    cuda_walk_get_info(r.w, &r.info);
    r.pool_cap = cfg.pool_cap;
    r.terms = malloc((size_t)r.info.cap * 3 * sizeof *r.terms);
    r.pool_terms = malloc((size_t)r.pool_cap * r.info.cap * 3 * sizeof *r.pool_terms);
    r.pool_ranks = malloc((size_t)r.pool_cap * sizeof *r.pool_ranks);
    if (!r.terms || !r.pool_terms || !r.pool_ranks) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = SEARCH_FAILED;
        goto out_walk;
    }
    if (o->verbose)
        fprintf(stderr, "gpu walk: %s; %d walkers, cap %d, %s store, walk_len %u, plateau %u, plus_max %d, "
                "idle_plus %u, pool_min %d\n", r.info.device,
                r.info.warps, r.info.cap, r.info.store == CUDA_WALK_STORE_REGS ? "register" : "shared-memory",
                cfg.walk_len, cfg.plateau, cfg.plus_max, cfg.idle_plus, p->pool_min);
    for (int i = 0; i < r.info.warps; i++) {
        const scheme *s = f2s[i % nstarts];
        for (int k = 0; k < s->rank; k++)
            memcpy(r.terms + 3 * k, s->terms[k].f, 3 * sizeof(uint64_t));
        if (cuda_walk_load(r.w, i, r.terms, s->rank, err, sizeof err) != 0) {
            snprintf(res->msg, sizeof res->msg, "GPU walk: %s", err);
            res->status = SEARCH_FAILED;
            goto out_walk;
        }
    }
    if (!upload_pool(&r)) {
        snprintf(res->msg, sizeof res->msg, "GPU walk: %.400s", r.msg);
        res->status = SEARCH_FAILED;
        goto out_walk;
    }

    r.t0 = now_s();
    if (p->target_rank > 0 && r.best_rank <= p->target_rank)
        r.reached = true;
    uint32_t steps = o->steps ? o->steps : 2048;
    double last_t = r.t0, next_prog = r.t0 + p->progress_every;
    uint64_t last_flips = 0;
    bool stopping = r.reached;
    while (!r.failed) {
        if (!stopping && cuda_walk_in_flight(r.w) < 2) {
            if (cuda_walk_launch(r.w, steps, err, sizeof err) != 0) {
                run_fail(&r, err);
                break;
            }
            if (cuda_walk_in_flight(r.w) < 2)
                continue; /* the first launch: queue a second before waiting */
        }
        if (cuda_walk_in_flight(r.w) == 0)
            break;
        cuda_walk_batch b;
        if (cuda_walk_collect(r.w, &b, err, sizeof err) != 0) {
            run_fail(&r, err);
            break;
        }
        process(&r, &b);
        const double t = now_s();
        if (o->verbose)
            fprintf(stderr, "gpu walk: launch %ld, %u steps, %.1f ms, %d improved (%d later), best %d, %.3g flips/s\n",
                    b.launch, b.steps, b.ms, b.improved, b.improved_dropped, r.best_rank,
                    (double)r.flips / (t - r.t0));
        if (!o->steps) {
            if (b.ms < o->launch_ms / 2 && steps < (1u << 24))
                steps *= 2;
            else if (b.ms > o->launch_ms * 2 && steps > 64)
                steps /= 2;
        }
        if (search_stop_requested()) {
            res->interrupted = true;
            stopping = true;
        }
        if (r.reached || (p->time_limit > 0 && t - r.t0 >= p->time_limit) ||
            (p->max_flips && r.flips >= p->max_flips))
            stopping = true;
        if (p->progress_every > 0 && t >= next_prog && cb && cb->progress) {
            progress(&r, t, &last_t, &last_flips);
            next_prog = t + p->progress_every;
        }
    }
    /* whatever is still in flight (after a failure) finishes before the buffers go */
    while (cuda_walk_in_flight(r.w) > 0) {
        cuda_walk_batch b;
        if (cuda_walk_collect(r.w, &b, err, sizeof err) != 0)
            break;
    }

    if (o->verbose)
        fprintf(stderr, "gpu walk: %llu returned schemes pooled, %llu flip-isolated ones not pooled\n",
                (unsigned long long)r.pooled, (unsigned long long)r.isolated);
    res->seconds = now_s() - r.t0;
    res->flips = r.flips;
    res->plus = r.plus;
    res->reductions = r.reductions;
    res->restarts = r.restarts;
    res->improvements = r.improvements;
    res->best_rank = r.best_rank;
    res->best = r.best;
    r.best = NULL;
    if (r.failed) {
        res->status = SEARCH_FAILED;
        snprintf(res->msg, sizeof res->msg, "%s", r.msg);
    } else if (p->target_rank > 0) {
        res->status = res->best_rank <= p->target_rank ? SEARCH_REACHED : SEARCH_NOT_REACHED;
    } else {
        res->status = SEARCH_REACHED;
    }
out_walk:
    cuda_walk_destroy(r.w);
    free(r.terms);
    free(r.pool_terms);
    free(r.pool_ranks);
out_starts:
    for (int i = 0; i < nstarts; i++)
        scheme_free(f2s[i]);
    free(f2s);
out_pool:
    scheme_free(r.best);
    search_pool_free(&r.pool);
    scheme_free(std);
    return res->status;
}

search_status search_run_gpu(const search_params *p, const scheme *const *starts, int nstarts,
                             const search_callbacks *cb, search_result *res)
{
    return search_run_gpu_opts(p, NULL, starts, nstarts, cb, res);
}
