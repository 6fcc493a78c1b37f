/* The CPU emulator of the GPU walk over Z (fg_cuda.h's walk_z block): the
 * same calls, each walker walking cuda/walk_z_core.h on the host, one after
 * another.  Linked in place of cuda/walk_z.cu (gpu_z_emu in CMakeLists), so
 * that tests/gpu_z.c and the backend above it (search/walk_gpu_z.c) run in CI
 * without a GPU; on the device tests/gpu_z.c compares the GPU with this
 * source walker by walker.  The kernel is chosen as on the device
 * (cuda_wz_config.kernel, FLIPGRAPH_WZ_KERNEL; warp by default): the warp
 * kernel's walker has 32 lanes, whose scans evaluate every lane's test in a
 * loop (walk_z_core.h's wz_ballot_*), the match kernel's too, its matches
 * computed over the 32 lanes' offers in a loop (wz_match_all), the others one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/fg_cuda.h"

struct cuda_wz {
    int walkers, cap, nstarts, kernel;
    wz_state *st;
    uint64_t *blocks, *starts;
    int32_t *ranks;
};

static wz_start emu_start(const cuda_wz *s) { return (wz_start){s->starts, s->ranks, s->nstarts}; }

int cuda_wz_create(const cuda_wz_config *cfg, cuda_wz **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!cfg || cfg->cap < 2 || cfg->nstarts < 1 || cfg->walkers < 0 || cfg->warps < 0) {
        snprintf(err, errlen, "cuda_wz_create: bad arguments");
        return 2;
    }
    for (int i = 0; i < cfg->nstarts; i++)
        if (cfg->start_rank[i] < 1 || cfg->start_rank[i] >= cfg->cap) {
            snprintf(err, errlen, "cuda_wz_create: start %d of rank %d for %d slots", i, cfg->start_rank[i],
                     cfg->cap);
            return 2;
        }
    const int kernel = cfg->kernel ? cfg->kernel : cuda_wz_kernel_from_env();
    if (kernel < 0 || kernel > CUDA_WZ_MATCH) {
        snprintf(err, errlen, "cuda_wz_create: FLIPGRAPH_WZ_KERNEL: expected warp, thread, global or match");
        return 2;
    }
    cuda_wz *s = calloc(1, sizeof *s);
    if (!s)
        return snprintf(err, errlen, "out of memory"), 3;
    s->kernel = kernel == CUDA_WZ_AUTO ? CUDA_WZ_WARP : kernel;
    /* warps: one walker each, as the shared-memory kernel (the default) has them */
    s->walkers = cfg->walkers ? cfg->walkers : cfg->warps ? cfg->warps : 64;
    s->cap = cfg->cap;
    s->nstarts = cfg->nstarts;
    const size_t sw = (size_t)cfg->nstarts * (size_t)cfg->cap * WZ_TERM_WORDS;
    s->st = calloc((size_t)s->walkers, sizeof *s->st);
    s->blocks = calloc((size_t)s->walkers * wz_block_words(s->cap), sizeof(uint64_t));
    s->starts = malloc(sw * sizeof(uint64_t));
    s->ranks = malloc((size_t)cfg->nstarts * sizeof(int32_t));
    if (!s->st || !s->blocks || !s->starts || !s->ranks) {
        cuda_wz_destroy(s);
        return snprintf(err, errlen, "out of memory"), 3;
    }
    memcpy(s->starts, cfg->start_terms, sw * sizeof(uint64_t));
    memcpy(s->ranks, cfg->start_rank, (size_t)cfg->nstarts * sizeof(int32_t));
    const wz_start start = emu_start(s);
    for (int i = 0; i < s->walkers; i++) {
        wz_init_state(&s->st[i], cfg->seed, i, s->cap);
        wz_walker w;
        wz_bind_block(&w, &s->st[i], s->blocks + (size_t)i * wz_block_words(s->cap));
        wz_reset(&w, &start);
    }
    *out = s;
    return 0;
}

int cuda_wz_walkers(const cuda_wz *s) { return s->walkers; }

const char *cuda_wz_device_name(const cuda_wz *s)
{
    (void)s;
    return "the CPU emulator";
}

int cuda_wz_per_block(const cuda_wz *s)
{
    (void)s;
    return 0;
}

int cuda_wz_kernel(const cuda_wz *s) { return s->kernel; }

static void emu_bind(const cuda_wz *s, wz_walker *w, int i)
{
    uint64_t *blk = s->blocks + (size_t)i * wz_block_words(s->cap);
    if (s->kernel == CUDA_WZ_WARP)
        wz_bind_warp(w, &s->st[i], blk, blk + (size_t)s->cap * WZ_TERM_WORDS, 0);
    else if (s->kernel == CUDA_WZ_MATCH)
        wz_bind_match(w, &s->st[i], blk, blk + (size_t)s->cap * WZ_TERM_WORDS, 0);
    else
        wz_bind_block(w, &s->st[i], blk);
}

int cuda_wz_run(cuda_wz *s, const wz_params *P, uint64_t steps, double *ms, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    const wz_start start = emu_start(s);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < s->walkers; i++) {
        wz_walker w;
        emu_bind(s, &w, i);
        const wz_params Pi = wz_params_of(P, i, s->walkers);
        wz_walk(&w, &start, &Pi, steps);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (ms) /* the host's time, so that the backend sizes its launches as on a GPU */
        *ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    return 0;
}

int cuda_wz_states(cuda_wz *s, wz_state *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    memcpy(out, s->st, (size_t)s->walkers * sizeof *out);
    return 0;
}

int cuda_wz_set_starts(cuda_wz *s, const uint64_t *terms, const int32_t *ranks, int n, char *err, size_t errlen)
{
    if (n < 1) {
        snprintf(err, errlen, "cuda_wz_set_starts: %d schemes", n);
        return 2;
    }
    for (int i = 0; i < n; i++)
        if (ranks[i] < 1 || ranks[i] >= s->cap) {
            snprintf(err, errlen, "cuda_wz_set_starts: start %d of rank %d for %d slots", i, ranks[i], s->cap);
            return 2;
        }
    const size_t sw = (size_t)n * (size_t)s->cap * WZ_TERM_WORDS;
    uint64_t *t = realloc(s->starts, sw * sizeof *t);
    if (t)
        s->starts = t;
    int32_t *r = realloc(s->ranks, (size_t)n * sizeof *r);
    if (r)
        s->ranks = r;
    if (!t || !r)
        return snprintf(err, errlen, "out of memory"), 3;
    memcpy(s->starts, terms, sw * sizeof *t);
    memcpy(s->ranks, ranks, (size_t)n * sizeof *r);
    s->nstarts = n;
    return 0;
}

int cuda_wz_best(cuda_wz *s, int walker, const wz_state *st, uint64_t *terms, char *err, size_t errlen)
{
    if (walker < 0 || walker >= s->walkers || st->best_rank < 1 || st->best_rank > s->cap) {
        snprintf(err, errlen, "cuda_wz_best: walker %d of %d", walker, s->walkers);
        return 2;
    }
    const uint64_t *blk = s->blocks + (size_t)walker * wz_block_words(s->cap);
    memcpy(terms, blk + (size_t)s->cap * WZ_TERM_WORDS, (size_t)st->best_rank * WZ_TERM_WORDS * sizeof(uint64_t));
    return 0;
}

void cuda_wz_destroy(cuda_wz *s)
{
    if (!s)
        return;
    free(s->st);
    free(s->blocks);
    free(s->starts);
    free(s->ranks);
    free(s);
}
