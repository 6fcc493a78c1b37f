/* The CPU emulator of the symmetric GPU walk (fg_cuda.h's walk_sym block): the
 * same calls, each walker walking cuda/walk_sym_core.h on the host, one after
 * another.  Linked in place of cuda/walk_sym.cu (gpu_sym_emu in CMakeLists),
 * so that tests/gpu_sym.c and the backend above it (search/walk_gpu_sym.c) run
 * in CI without a GPU; on the device tests/gpu_sym.c compares the GPU with
 * this source walker by walker. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/fg_cuda.h"

struct cuda_sym {
    wsym_layout L;
    int walkers, norbits, nfixed, nhalf;
    wsym_state *st;
    uint64_t *blocks, *reps, *fixed, *half;
};

int cuda_sym_create(const cuda_sym_config *cfg, cuda_sym **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!cuda_sym_config_valid(cfg)) {
        snprintf(err, errlen, "cuda_sym_create: bad arguments");
        return 2;
    }
    cuda_sym *s = calloc(1, sizeof *s);
    if (!s)
        return snprintf(err, errlen, "out of memory"), 3;
    wsym_layout_init(&s->L, cfg->g, cfg->n, cfg->swaps, cfg->ocap, cfg->start_nfixed + 3 * cfg->start_nhalf);
    s->walkers = cfg->walkers ? cfg->walkers : cfg->warps ? cfg->warps * 32 : 64;
    s->norbits = cfg->start_norbits;
    s->nfixed = cfg->start_nfixed;
    s->st = calloc((size_t)s->walkers, sizeof *s->st);
    s->blocks = calloc((size_t)s->walkers * s->L.words, sizeof(uint64_t));
    s->reps = malloc((size_t)s->norbits * 3 * sizeof(uint64_t));
    s->nhalf = cfg->start_nhalf;
    s->fixed = malloc(((size_t)s->nfixed + 1) * 3 * sizeof(uint64_t));
    s->half = malloc(((size_t)s->nhalf + 1) * 3 * sizeof(uint64_t));
    if (!s->st || !s->blocks || !s->reps || !s->fixed || !s->half) {
        cuda_sym_destroy(s);
        return snprintf(err, errlen, "out of memory"), 3;
    }
    memcpy(s->reps, cfg->start_reps, (size_t)s->norbits * 3 * sizeof(uint64_t));
    if (s->nfixed)
        memcpy(s->fixed, cfg->start_fixed, (size_t)s->nfixed * 3 * sizeof(uint64_t));
    if (s->nhalf)
        memcpy(s->half, cfg->start_half, (size_t)s->nhalf * 3 * sizeof(uint64_t));
    const wsym_start start = {s->reps, s->norbits, s->fixed, s->nfixed, s->half, s->nhalf};
    for (int i = 0; i < s->walkers; i++) {
        wsym_init_state(&s->st[i], cfg->seed, i);
        wsym_walker w;
        wsym_bind(&w, &s->L, &s->st[i], s->blocks + (size_t)i * s->L.words);
        wsym_reset(&w, &start);
    }
    *out = s;
    return 0;
}

int cuda_sym_walkers(const cuda_sym *s) { return s->walkers; }

const char *cuda_sym_device_name(const cuda_sym *s)
{
    (void)s;
    return "the CPU emulator";
}

int cuda_sym_per_block(const cuda_sym *s)
{
    (void)s;
    return 0;
}

int cuda_sym_run(cuda_sym *s, const wsym_params *P, uint64_t flips, double *ms, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    const wsym_start start = {s->reps, s->norbits, s->fixed, s->nfixed, s->half, s->nhalf};
    for (int i = 0; i < s->walkers; i++) {
        wsym_walker w;
        wsym_bind(&w, &s->L, &s->st[i], s->blocks + (size_t)i * s->L.words);
        const wsym_params Pi = wsym_params_of(P, i, s->walkers);
        wsym_walk(&w, &start, &Pi, flips);
    }
    if (ms)
        *ms = 0;
    return 0;
}

int cuda_sym_states(cuda_sym *s, wsym_state *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    memcpy(out, s->st, (size_t)s->walkers * sizeof *out);
    return 0;
}

int cuda_sym_best(cuda_sym *s, int walker, const wsym_state *st, uint64_t *reps, uint64_t *fixed, char *err,
                  size_t errlen)
{
    if (walker < 0 || walker >= s->walkers) {
        snprintf(err, errlen, "cuda_sym_best: walker %d of %d", walker, s->walkers);
        return 2;
    }
    const uint64_t *blk = s->blocks + (size_t)walker * s->L.words;
    memcpy(reps, blk + s->L.o_brep, (size_t)st->best_norbits * 3 * sizeof(uint64_t));
    memcpy(fixed, blk + s->L.o_bfixed, (size_t)st->best_nfixed * 3 * sizeof(uint64_t));
    return 0;
}

void cuda_sym_destroy(cuda_sym *s)
{
    if (!s)
        return;
    free(s->st);
    free(s->blocks);
    free(s->reps);
    free(s->fixed);
    free(s->half);
    free(s);
}
