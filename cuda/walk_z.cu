// The walk over Z on the GPU: a warp (the default) or a thread per walker,
// each walking cuda/walk_z_core.h (the same source the CPU emulator and tests
// run) on its own state (fg_cuda.h's walk_z block; docs/gpu-walk.md, "Walks
// over Z").
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#include "fg_cuda.h"
#include "smem_shape.cuh"

namespace {

const int kThreads = 128;

bool fail(char *err, size_t len, const char *what, cudaError_t e)
{
    if (err && len)
        snprintf(err, len, "%s: %s", what, cudaGetErrorString(e));
    return false;
}

__global__ void wz_init_kernel(wz_state *st, uint64_t *blocks, int cap, const uint64_t *starts, const int32_t *ranks,
                               int nstarts, uint64_t seed, int walkers)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= walkers)
        return;
    wz_state s;
    wz_init_state(&s, seed, i, cap);
    wz_walker w;
    wz_bind_block(&w, &s, blocks + (size_t)i * wz_block_words(cap));
    const wz_start start = {starts, ranks, nstarts};
    wz_reset(&w, &start);
    st[i] = s;
}

__global__ void wz_walk_kernel(wz_state *st, uint64_t *blocks, int cap, const uint64_t *starts,
                               const int32_t *ranks, int nstarts, wz_params P, uint64_t steps, int walkers)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= walkers)
        return;
    // the scalars in registers for the walk, back at the end
    wz_state s = st[i];
    wz_walker w;
    wz_bind_block(&w, &s, blocks + (size_t)i * wz_block_words(cap));
    const wz_start start = {starts, ranks, nstarts};
    const wz_params Pi = wz_params_of(&P, i, walkers);
    wz_walk(&w, &start, &Pi, steps);
    st[i] = s;
}

// The same walk with the walker's terms in shared memory, one warp per walker
// (the warp copies the terms in and out; the best terms stay in global memory,
// written only at a new best).  Every step scans the rank's terms, so they
// live where a load is cheap (the symmetric walk's measurement, walk_sym.cu).
// kMode 1 (warp): the warp walks (every lane runs the scalar code on its own
// copy of the scalars, the scans split over the lanes: walk_z_core.h, "Who
// walks"); 0 (thread): lane 0 walks alone (the first kernel, kept as the
// alternative); the two walk the same walk, bit for bit.  2 (match): the warp
// walks with sampled flips (wz_flip_match), another walk.
template <int kMode>
__global__ void wz_walk_smem(wz_state *st, uint64_t *blocks, int cap, const uint64_t *starts, const int32_t *ranks,
                             int nstarts, wz_params P, uint64_t steps, int walkers)
{
    extern __shared__ uint64_t smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int i = blockIdx.x * (blockDim.x / 32) + warp;
    if (i >= walkers)
        return;  // warp-uniform: the warp's ballots see all 32 lanes
    const size_t tw = (size_t)cap * WZ_TERM_WORDS;
    uint64_t *mine = smem + (size_t)warp * tw, *g = blocks + (size_t)i * wz_block_words(cap);
    for (size_t k = lane; k < tw; k += 32)
        mine[k] = g[k];
    __syncwarp();
    if (kMode || lane == 0) {
        wz_state s = st[i];
        wz_walker w;
        if (kMode == 2)
            wz_bind_match(&w, &s, mine, g + tw, lane);
        else if (kMode == 1)
            wz_bind_warp(&w, &s, mine, g + tw, lane);
        else
            wz_bind(&w, &s, mine, g + tw);
        const wz_start start = {starts, ranks, nstarts};
        const wz_params Pi = wz_params_of(&P, i, walkers);
        wz_walk(&w, &start, &Pi, steps);
        __syncwarp(kMode ? 0xffffffffu : 1u);
        if (lane == 0)
            st[i] = s;  // every lane's copy is the same
    }
    __syncwarp();
    for (size_t k = lane; k < tw; k += 32)
        g[k] = mine[k];
}

typedef void (*wz_kernel_fn)(wz_state *, uint64_t *, int, const uint64_t *, const int32_t *, int, wz_params,
                             uint64_t, int);

}  // namespace

struct cuda_wz {
    int walkers = 0, cap = 0, nstarts = 0, start_room = 0;
    int device = 0;
    wz_state *d_state = nullptr;
    uint64_t *d_blocks = nullptr, *d_starts = nullptr;
    int32_t *d_ranks = nullptr;
    int per_block = 0;  // walkers (warps) per block of a shared-memory kernel; 0: global memory
    int kernel = CUDA_WZ_GLOBAL;
    char name[256] = "";
};

int cuda_wz_create(const cuda_wz_config *cfg, cuda_wz **out, char *err, size_t errlen)
{
    *out = nullptr;
    if (!cfg || cfg->cap < 2 || cfg->nstarts < 1 || cfg->walkers < 0 || cfg->warps < 0) {
        if (err && errlen)
            snprintf(err, errlen, "cuda_wz_create: bad arguments");
        return 2;
    }
    for (int i = 0; i < cfg->nstarts; i++)
        if (cfg->start_rank[i] < 1 || cfg->start_rank[i] >= cfg->cap) {
            if (err && errlen)
                snprintf(err, errlen, "cuda_wz_create: start %d of rank %d for %d slots", i, cfg->start_rank[i],
                         cfg->cap);
            return 2;
        }
    cudaError_t e = cudaSetDevice(cfg->device);
    if (e != cudaSuccess)
        return fail(err, errlen, "cudaSetDevice", e), 3;
    cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, cfg->device)) != cudaSuccess)
        return fail(err, errlen, "cudaGetDeviceProperties", e), 3;
    cuda_wz *s = new cuda_wz();
    s->device = cfg->device;
    s->cap = cfg->cap;
    s->nstarts = cfg->nstarts;
    s->start_room = cfg->nstarts;
    snprintf(s->name, sizeof s->name, "%s", prop.name);
    // shared memory when a walker's terms fit four times over in an SM's
    int kernel = cfg->kernel ? cfg->kernel : cuda_wz_kernel_from_env();
    if (kernel < 0 || kernel > CUDA_WZ_MATCH) {
        if (err && errlen)
            snprintf(err, errlen, "cuda_wz_create: FLIPGRAPH_WZ_KERNEL: expected warp, thread, global or match");
        delete s;
        return 2;
    }
    const size_t bytes = (size_t)cfg->cap * WZ_TERM_WORDS * sizeof(uint64_t);
    const bool fits = smem_state_fits(bytes, prop);
    if (kernel == CUDA_WZ_AUTO || !fits)
        kernel = fits && kernel != CUDA_WZ_GLOBAL ? CUDA_WZ_WARP : CUDA_WZ_GLOBAL;
    s->kernel = kernel;
    const wz_kernel_fn kfn = kernel == CUDA_WZ_WARP    ? wz_walk_smem<1>
                             : kernel == CUDA_WZ_MATCH ? wz_walk_smem<2>
                                                       : wz_walk_smem<0>;
    smem_shape shape;
    if ((e = smem_shape_for(kfn, bytes, prop, kernel != CUDA_WZ_GLOBAL, &shape)) != cudaSuccess) {
        fail(err, errlen, "the walk over Z's shared memory", e);
        delete s;
        return 3;
    }
    s->per_block = shape.per_block;
    const int resident = shape.resident;
    s->walkers = cfg->walkers                  ? cfg->walkers
                 : cfg->warps                  ? cfg->warps * (s->per_block ? 1 : 32)
                 : s->per_block ? prop.multiProcessorCount * resident * s->per_block
                                : prop.multiProcessorCount * 1024;
    if (s->walkers < 1) {
        if (err && errlen)
            snprintf(err, errlen, "cuda_wz_create: no walkers (%d)", s->walkers);
        cuda_wz_destroy(s);
        return 2;
    }
    const size_t sw = (size_t)cfg->nstarts * (size_t)cfg->cap * WZ_TERM_WORDS;
    const size_t block_bytes = (size_t)s->walkers * wz_block_words(cfg->cap) * sizeof(uint64_t);
    bool ok = (e = cudaMalloc(&s->d_state, (size_t)s->walkers * sizeof(wz_state))) == cudaSuccess &&
              (e = cudaMalloc(&s->d_blocks, block_bytes)) == cudaSuccess &&
              (e = cudaMalloc(&s->d_starts, sw * sizeof(uint64_t))) == cudaSuccess &&
              (e = cudaMalloc(&s->d_ranks, (size_t)cfg->nstarts * sizeof(int32_t))) == cudaSuccess &&
              (e = cudaMemcpy(s->d_starts, cfg->start_terms, sw * sizeof(uint64_t), cudaMemcpyHostToDevice)) ==
                  cudaSuccess &&
              (e = cudaMemcpy(s->d_ranks, cfg->start_rank, (size_t)cfg->nstarts * sizeof(int32_t),
                              cudaMemcpyHostToDevice)) == cudaSuccess;
    if (!ok) {
        fail(err, errlen, "allocating the walkers over Z", e);
        cuda_wz_destroy(s);
        return 3;
    }
    wz_init_kernel<<<(s->walkers + kThreads - 1) / kThreads, kThreads>>>(s->d_state, s->d_blocks, s->cap,
                                                                       s->d_starts, s->d_ranks, s->nstarts,
                                                                       cfg->seed, s->walkers);
    if ((e = cudaDeviceSynchronize()) != cudaSuccess || (e = cudaGetLastError()) != cudaSuccess) {
        fail(err, errlen, "the walk over Z's init kernel", e);
        cuda_wz_destroy(s);
        return 3;
    }
    *out = s;
    return 0;
}

int cuda_wz_walkers(const cuda_wz *s) { return s->walkers; }

const char *cuda_wz_device_name(const cuda_wz *s) { return s->name; }

int cuda_wz_per_block(const cuda_wz *s) { return s->per_block; }

int cuda_wz_kernel(const cuda_wz *s) { return s->kernel; }

int cuda_wz_run(cuda_wz *s, const wz_params *P, uint64_t steps, double *ms, char *err, size_t errlen)
{
    cudaError_t e = cudaSetDevice(s->device);
    if (e != cudaSuccess)
        return fail(err, errlen, "cudaSetDevice", e), 3;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a);
    if (s->per_block && s->kernel == CUDA_WZ_WARP)
        wz_walk_smem<1><<<(s->walkers + s->per_block - 1) / s->per_block, 32 * s->per_block,
                          (size_t)s->cap * WZ_TERM_WORDS * sizeof(uint64_t) * (size_t)s->per_block>>>(
            s->d_state, s->d_blocks, s->cap, s->d_starts, s->d_ranks, s->nstarts, *P, steps, s->walkers);
    else if (s->per_block && s->kernel == CUDA_WZ_MATCH)
        wz_walk_smem<2><<<(s->walkers + s->per_block - 1) / s->per_block, 32 * s->per_block,
                          (size_t)s->cap * WZ_TERM_WORDS * sizeof(uint64_t) * (size_t)s->per_block>>>(
            s->d_state, s->d_blocks, s->cap, s->d_starts, s->d_ranks, s->nstarts, *P, steps, s->walkers);
    else if (s->per_block)
        wz_walk_smem<0><<<(s->walkers + s->per_block - 1) / s->per_block, 32 * s->per_block,
                       (size_t)s->cap * WZ_TERM_WORDS * sizeof(uint64_t) * (size_t)s->per_block>>>(
            s->d_state, s->d_blocks, s->cap, s->d_starts, s->d_ranks, s->nstarts, *P, steps, s->walkers);
    else
        wz_walk_kernel<<<(s->walkers + kThreads - 1) / kThreads, kThreads>>>(
            s->d_state, s->d_blocks, s->cap, s->d_starts, s->d_ranks, s->nstarts, *P, steps, s->walkers);
    cudaEventRecord(b);
    e = cudaEventSynchronize(b);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    if (e != cudaSuccess)
        return fail(err, errlen, "the walk over Z kernel", e), 3;
    if (ms)
        *ms = t;
    return 0;
}

int cuda_wz_states(cuda_wz *s, wz_state *out, char *err, size_t errlen)
{
    cudaError_t e = cudaMemcpy(out, s->d_state, (size_t)s->walkers * sizeof(wz_state), cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? 0 : (fail(err, errlen, "reading the walkers' states", e), 3);
}

int cuda_wz_set_starts(cuda_wz *s, const uint64_t *terms, const int32_t *ranks, int n, char *err, size_t errlen)
{
    if (n < 1) {
        if (err && errlen)
            snprintf(err, errlen, "cuda_wz_set_starts: %d schemes", n);
        return 2;
    }
    for (int i = 0; i < n; i++)
        if (ranks[i] < 1 || ranks[i] >= s->cap) {
            if (err && errlen)
                snprintf(err, errlen, "cuda_wz_set_starts: start %d of rank %d for %d slots", i, ranks[i], s->cap);
            return 2;
        }
    cudaError_t e = cudaSetDevice(s->device);
    const size_t sw = (size_t)n * (size_t)s->cap * WZ_TERM_WORDS;
    if (e == cudaSuccess && n > s->start_room) {
        cudaFree(s->d_starts);
        cudaFree(s->d_ranks);
        s->d_starts = nullptr;
        s->d_ranks = nullptr;
        s->start_room = 0;
        if ((e = cudaMalloc(&s->d_starts, sw * sizeof(uint64_t))) == cudaSuccess &&
            (e = cudaMalloc(&s->d_ranks, (size_t)n * sizeof(int32_t))) == cudaSuccess)
            s->start_room = n;
    }
    if (e == cudaSuccess)
        e = cudaMemcpy(s->d_starts, terms, sw * sizeof(uint64_t), cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(s->d_ranks, ranks, (size_t)n * sizeof(int32_t), cudaMemcpyHostToDevice);
    if (e != cudaSuccess)
        return fail(err, errlen, "uploading the start schemes", e), 3;
    s->nstarts = n;
    return 0;
}

int cuda_wz_best(cuda_wz *s, int walker, const wz_state *st, uint64_t *terms, char *err, size_t errlen)
{
    if (walker < 0 || walker >= s->walkers || st->best_rank < 1 || st->best_rank > s->cap) {
        if (err && errlen)
            snprintf(err, errlen, "cuda_wz_best: walker %d of %d", walker, s->walkers);
        return 2;
    }
    const uint64_t *blk = s->d_blocks + (size_t)walker * wz_block_words(s->cap) + (size_t)s->cap * WZ_TERM_WORDS;
    cudaError_t e = cudaMemcpy(terms, blk, (size_t)st->best_rank * WZ_TERM_WORDS * sizeof(uint64_t),
                               cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? 0 : (fail(err, errlen, "reading a walker's best scheme", e), 3);
}

void cuda_wz_destroy(cuda_wz *s)
{
    if (!s)
        return;
    cudaSetDevice(s->device);
    cudaFree(s->d_state);
    cudaFree(s->d_blocks);
    cudaFree(s->d_starts);
    cudaFree(s->d_ranks);
    delete s;
}
