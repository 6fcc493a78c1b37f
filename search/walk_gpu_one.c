/* The frame of the one-GPU backends (walk_gpu_one.h). */
#include "walk_gpu_one.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walk_gpu.h"

const search_gpu_options *gpu_one_begin(const search_params *p, const search_gpu_options *o, search_gpu_options *od,
                                        search_result *res)
{
    memset(res, 0, sizeof *res);
    res->status = SEARCH_BAD_PARAMS;
    if (!o) {
        search_gpu_options_default(od);
        o = od;
    }
    return search_params_check(p, res->msg, sizeof res->msg) ? o : NULL;
}

bool gpu_one_init(gpu_one *g, const search_params *p, const search_gpu_options *o, const char *walk,
                  search_result *res)
{
    memset(g, 0, sizeof *g);
    if (o->ndevices > 1) {
        snprintf(res->msg, sizeof res->msg, "--devices: %s runs on one GPU (give --device)", walk);
        return false;
    }
    if (!(o->launch_ms > 0) || o->launch_ms > 60000 || o->warps < 0) {
        snprintf(res->msg, sizeof res->msg, "bad GPU options (launch 0..60000 ms, no negative warps)");
        return false;
    }
    g->p = p;
    g->launch_ms = o->launch_ms;
    g->warps = o->warps;
    g->device = o->ndevices == 1 ? o->devices[0] : p->device;
    pthread_mutex_init(&g->mu, NULL);
    return true;
}

bool gpu_one_start(engine *e, gpu_one *g, void *(*fn)(void *), void *arg)
{
    engine_thread_begin(e);
    if (pthread_create(&g->th, NULL, fn, arg) != 0) {
        engine_thread_end(e);
        engine_fail(e, SEARCH_FAILED, "cannot start the GPU thread");
        return false;
    }
    g->started = true;
    return true;
}

void gpu_one_publish(gpu_one *g, const engine_stats *totals, const int32_t *rank0, size_t stride)
{
    atomic_store(&g->flips, totals->flips);
    atomic_store(&g->plus, totals->plus);
    atomic_store(&g->reductions, totals->reductions);
    atomic_store(&g->restarts, totals->restarts);
    atomic_store(&g->undone, totals->undone);
    pthread_mutex_lock(&g->mu);
    for (int i = 0; i < g->walkers; i++)
        g->ranks[i] = *(const int32_t *)((const char *)rank0 + (size_t)i * stride);
    pthread_mutex_unlock(&g->mu);
}

uint64_t gpu_one_next_steps(const gpu_one *g, uint64_t n, double ms)
{
    if (ms < g->launch_ms / 2 && n < (1ull << 40))
        return n * 2;
    if (ms > g->launch_ms * 2 && n > 64)
        return n / 2;
    return n;
}

void gpu_one_stats(void *ctx, engine_stats *st)
{
    gpu_one *g = ctx;
    st->flips += atomic_load(&g->flips);
    st->plus += atomic_load(&g->plus);
    st->reductions += atomic_load(&g->reductions);
    st->restarts += atomic_load(&g->restarts);
    st->undone += atomic_load(&g->undone);
    st->plateau = g->p->plateau;
    st->devices = 1;
    if (st->rank_count && g->ranks) {
        pthread_mutex_lock(&g->mu);
        for (int i = 0; i < g->walkers; i++) {
            const int r = g->ranks[i];
            if (r > 0) {
                st->rank_count[r < SCHEME_MAX_RANK ? r : SCHEME_MAX_RANK]++;
                st->walkers++;
            }
        }
        pthread_mutex_unlock(&g->mu);
    }
}

void gpu_one_join(void *ctx)
{
    gpu_one *g = ctx;
    if (g->started)
        pthread_join(g->th, NULL);
}

void gpu_one_free(gpu_one *g)
{
    free(g->ranks);
    pthread_mutex_destroy(&g->mu);
}
