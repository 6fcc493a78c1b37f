// The symmetric walk on the GPU: one thread per walker, each walking
// cuda/walk_sym_core.h (the same source the CPU tests and the emulator run)
// on its own state in global memory (fg_cuda.h's walk_sym block; docs/gpu-walk.md,
// "Symmetric walks").
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

__global__ void sym_init(wsym_layout L, wsym_state *st, uint64_t *blocks, wsym_start start, uint64_t seed,
                         int walkers)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= walkers)
        return;
    wsym_state *s = &st[i];
    wsym_init_state(s, seed, i);
    wsym_walker w;
    wsym_bind(&w, &L, s, blocks + (size_t)i * L.words);
    wsym_reset(&w, &start);
}

__global__ void sym_walk(wsym_layout L, wsym_state *st, uint64_t *blocks, wsym_start start, wsym_params P,
                         uint64_t flips, int walkers)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= walkers)
        return;
    // the scalars in registers for the walk, back at the end
    wsym_state s = st[i];
    wsym_walker w;
    wsym_bind(&w, &L, &s, blocks + (size_t)i * L.words);
    const wsym_params Pi = wsym_params_of(&P, i, walkers);
    wsym_walk(&w, &start, &Pi, flips);
    st[i] = s;
}

// The same walk with the walker's state in shared memory: one warp per walker
// (its lane 0 walks; the warp copies the state in and out).  The walk is a
// chain of dependent loads, and divergent walkers sharing a warp serialize:
// global memory and 32 walkers per warp made each walker about 200 times
// slower than a CPU thread (bench/RESULTS.md), so a walk of 3e7 flips never
// ended within a minute.
__global__ void sym_walk_smem(wsym_layout L, wsym_state *st, uint64_t *blocks, wsym_start start, wsym_params P,
                              uint64_t flips, int walkers)
{
    extern __shared__ uint64_t smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int i = blockIdx.x * (blockDim.x / 32) + warp;
    if (i >= walkers)
        return;
    uint64_t *mine = smem + (size_t)warp * L.words, *g = blocks + (size_t)i * L.words;
    for (size_t k = lane; k < L.words; k += 32)
        mine[k] = g[k];
    __syncwarp();
    if (lane == 0) {
        wsym_state s = st[i];
        wsym_walker w;
        wsym_bind(&w, &L, &s, mine);
        const wsym_params Pi = wsym_params_of(&P, i, walkers);
        wsym_walk(&w, &start, &Pi, flips);
        st[i] = s;
    }
    __syncwarp();
    for (size_t k = lane; k < L.words; k += 32)
        g[k] = mine[k];
}

}  // namespace

struct cuda_sym {
    cuda_sym_config cfg;
    wsym_layout L;
    int walkers = 0;
    int device = 0;
    wsym_state *d_state = nullptr;
    uint64_t *d_blocks = nullptr, *d_reps = nullptr, *d_fixed = nullptr; /* d_fixed: the fixed terms, then the half orbits */
    wsym_start d_start = {};                                               /* the start in device memory */
    int norbits = 0, nfixed = 0;
    int per_block = 0;  // walkers (warps) per block of the shared-memory kernel; 0: global memory
    char name[256] = "";
};

int cuda_sym_create(const cuda_sym_config *cfg, cuda_sym **out, char *err, size_t errlen)
{
    *out = nullptr;
    if (!cuda_sym_config_valid(cfg)) {
        if (err && errlen)
            snprintf(err, errlen, "cuda_sym_create: bad arguments");
        return 2;
    }
    cudaError_t e = cudaSetDevice(cfg->device);
    if (e != cudaSuccess)
        return fail(err, errlen, "cudaSetDevice", e), 3;
    cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, cfg->device)) != cudaSuccess)
        return fail(err, errlen, "cudaGetDeviceProperties", e), 3;
    cuda_sym *s = new cuda_sym();
    s->cfg = *cfg;
    s->device = cfg->device;
    snprintf(s->name, sizeof s->name, "%s", prop.name);
    wsym_layout_init(&s->L, cfg->g, cfg->n, cfg->swaps, cfg->ocap, cfg->start_nfixed + 3 * cfg->start_nhalf);
    smem_shape shape;
    if ((e = smem_shape_for(sym_walk_smem, s->L.words * sizeof(uint64_t), prop, !cuda_sym_global_from_env(),
                            &shape)) != cudaSuccess) {
        fail(err, errlen, "the symmetric walk's shared memory", e);
        delete s;
        return 3;
    }
    s->per_block = shape.per_block;
    s->walkers = cfg->walkers                  ? cfg->walkers
                 : cfg->warps                  ? cfg->warps * (s->per_block ? 1 : 32)
                 : s->per_block ? prop.multiProcessorCount * shape.resident * s->per_block
                                : prop.multiProcessorCount * 1024;
    s->norbits = cfg->start_norbits;
    s->nfixed = cfg->start_nfixed;
    const size_t block_bytes = (size_t)s->walkers * s->L.words * sizeof(uint64_t);
    bool ok = (e = cudaMalloc(&s->d_state, (size_t)s->walkers * sizeof(wsym_state))) == cudaSuccess &&
              (e = cudaMalloc(&s->d_blocks, block_bytes)) == cudaSuccess &&
              (e = cudaMalloc(&s->d_reps, (size_t)s->norbits * 3 * sizeof(uint64_t))) == cudaSuccess &&
              (e = cudaMalloc(&s->d_fixed, ((size_t)s->nfixed + cfg->start_nhalf + 1) * 3 * sizeof(uint64_t))) ==
                  cudaSuccess &&
              (e = cudaMemcpy(s->d_reps, cfg->start_reps, (size_t)s->norbits * 3 * sizeof(uint64_t),
                              cudaMemcpyHostToDevice)) == cudaSuccess &&
              (s->nfixed == 0 || (e = cudaMemcpy(s->d_fixed, cfg->start_fixed, (size_t)s->nfixed * 3 * sizeof(uint64_t),
                                                 cudaMemcpyHostToDevice)) == cudaSuccess) &&
              (cfg->start_nhalf == 0 ||
               (e = cudaMemcpy(s->d_fixed + (size_t)s->nfixed * 3, cfg->start_half,
                               (size_t)cfg->start_nhalf * 3 * sizeof(uint64_t), cudaMemcpyHostToDevice)) == cudaSuccess);
    if (!ok) {
        fail(err, errlen, "allocating the symmetric walkers", e);
        cuda_sym_destroy(s);
        return 3;
    }
    s->d_start = {s->d_reps, s->norbits, s->d_fixed, s->nfixed, s->d_fixed + (size_t)s->nfixed * 3, cfg->start_nhalf};
    sym_init<<<(s->walkers + kThreads - 1) / kThreads, kThreads>>>(s->L, s->d_state, s->d_blocks, s->d_start,
                                                                 cfg->seed, s->walkers);
    if ((e = cudaDeviceSynchronize()) != cudaSuccess || (e = cudaGetLastError()) != cudaSuccess) {
        fail(err, errlen, "the symmetric walk's init kernel", e);
        cuda_sym_destroy(s);
        return 3;
    }
    *out = s;
    return 0;
}

int cuda_sym_walkers(const cuda_sym *s) { return s->walkers; }

const char *cuda_sym_device_name(const cuda_sym *s) { return s->name; }

int cuda_sym_per_block(const cuda_sym *s) { return s->per_block; }

int cuda_sym_run(cuda_sym *s, const wsym_params *P, uint64_t flips, double *ms, char *err, size_t errlen)
{
    cudaError_t e = cudaSetDevice(s->device);
    if (e != cudaSuccess)
        return fail(err, errlen, "cudaSetDevice", e), 3;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a);
    if (s->per_block)
        sym_walk_smem<<<(s->walkers + s->per_block - 1) / s->per_block, 32 * s->per_block,
                        s->L.words * sizeof(uint64_t) * (size_t)s->per_block>>>(
            s->L, s->d_state, s->d_blocks, s->d_start, *P, flips, s->walkers);
    else
        sym_walk<<<(s->walkers + kThreads - 1) / kThreads, kThreads>>>(s->L, s->d_state, s->d_blocks, s->d_start, *P,
                                                                     flips, s->walkers);
    cudaEventRecord(b);
    e = cudaEventSynchronize(b);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    if (e != cudaSuccess)
        return fail(err, errlen, "the symmetric walk kernel", e), 3;
    if (ms)
        *ms = t;
    return 0;
}

int cuda_sym_states(cuda_sym *s, wsym_state *out, char *err, size_t errlen)
{
    cudaError_t e = cudaMemcpy(out, s->d_state, (size_t)s->walkers * sizeof(wsym_state), cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? 0 : (fail(err, errlen, "reading the walkers' states", e), 3);
}

int cuda_sym_best(cuda_sym *s, int walker, const wsym_state *st, uint64_t *reps, uint64_t *fixed, char *err,
                  size_t errlen)
{
    if (walker < 0 || walker >= s->walkers) {
        if (err && errlen)
            snprintf(err, errlen, "cuda_sym_best: walker %d of %d", walker, s->walkers);
        return 2;
    }
    const uint64_t *blk = s->d_blocks + (size_t)walker * s->L.words;
    cudaError_t e = cudaMemcpy(reps, blk + s->L.o_brep, (size_t)st->best_norbits * 3 * sizeof(uint64_t),
                               cudaMemcpyDeviceToHost);
    if (e == cudaSuccess && st->best_nfixed)
        e = cudaMemcpy(fixed, blk + s->L.o_bfixed, (size_t)st->best_nfixed * 3 * sizeof(uint64_t),
                       cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? 0 : (fail(err, errlen, "reading a walker's best scheme", e), 3);
}

void cuda_sym_destroy(cuda_sym *s)
{
    if (!s)
        return;
    cudaSetDevice(s->device);
    cudaFree(s->d_state);
    cudaFree(s->d_blocks);
    cudaFree(s->d_reps);
    cudaFree(s->d_fixed);
    delete s;
}
