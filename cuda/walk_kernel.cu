// The walk kernels: walk_core.cuh's warp walk over the CUDA intrinsics, one
// instantiation per register store size, one for shared memory; and the small
// kernel that scatters staged schemes into their walkers.
#include <cuda_runtime.h>
#include <stdlib.h>

#include "walk_core.cuh"
#include "walk_kernel.cuh"

namespace walk {

namespace {

const unsigned kFull = 0xffffffffu;

// As in the Flip-graph post: flip candidates come from __match_any_sync (MATCH.ANY.U64), the
// subset tests from ballots, the exchanges from shuffles.
struct DevWarp {
    __device__ __forceinline__ int lane() const { return (int)(threadIdx.x & 31); }
    __device__ __forceinline__ uint32_t match(uint64_t v) const
    {
        return __match_any_sync(kFull, (unsigned long long)v);
    }
    __device__ __forceinline__ uint32_t match(uint32_t v) const { return __match_any_sync(kFull, v); }
    __device__ __forceinline__ uint32_t ballot(bool b) const { return __ballot_sync(kFull, b); }
    __device__ __forceinline__ uint64_t shfl(uint64_t v, int src) const
    {
        return (uint64_t)__shfl_sync(kFull, (unsigned long long)v, src);
    }
    __device__ __forceinline__ uint32_t shfl(uint32_t v, int src) const { return __shfl_sync(kFull, v, src); }
    __device__ __forceinline__ uint32_t shfl32(uint32_t v, int src) const
    {
        return __shfl_sync(kFull, v, src);
    }
    __device__ __forceinline__ uint32_t max(uint32_t v) const { return __reduce_max_sync(kFull, v); }
    __device__ __forceinline__ uint32_t sum(uint32_t v) const { return __reduce_add_sync(kFull, v); }
    // %globaltimer: nanoseconds, the same clock on every SM
    __device__ __forceinline__ uint64_t now_ns() const
    {
        uint64_t t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        return t;
    }
    __device__ __forceinline__ int32_t atomic_add(int32_t *p, int32_t v) const
    {
        return atomicAdd((int *)p, (int)v);
    }
};

// Occupancy is what hides the latency of one warp's long chain of shuffles
// (ncu on an H100: 16 walkers/SM at 125 registers left 42% of issue slots
// idle), so the register budget is capped where ptxas does not spill (K <= 3:
// 5 blocks of 4 warps; K = 4 would spill).  This is the wide (64-bit) kernel;
// the narrow one below walks the 32-bit formats.
template <int K, bool kTrace, bool kEager>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, K <= 3 ? 5 : 4) walk_regs_kernel(Params p)
{
    const int w = (int)(blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5));
    if (w >= p.warps)
        return;
    RegStore<K, uint64_t> st;
    DevWarp wp;
    walk_warp<kTrace, kEager>(p, st, wp, w, true);
}
// The narrow kernel (32-bit factor words) at NB blocks of 4 warps per SM: ptxas
// caps the registers at 65536 / (NB * 128) (72 at 7, 64 at 8; the few spills
// go to L1).  Measured on an H100 (bench/RESULTS.md, "GPU walk speed"), flips/s
// with 5/6/7/8 blocks: <4,4,4> 1.69/1.79/1.91/1.91e9, <5,5,5> 1.49/1.55/1.57/
// 1.57e9; beyond 7 the step is issue-bound (ncu: 0.69 warps issued per
// scheduler and cycle, 1.7 eligible), not latency-bound.  Measured with equal
// step counts per launch; timed launches (walk_core.cuh) removed the tail
// since, and 8 blocks were not measured again.
template <int K, bool kTrace, bool kEager, int NB>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, NB) walk_narrow_kernel(Params p)
{
    const int w = (int)(blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5));
    if (w >= p.warps)
        return;
    RegStore<K, uint32_t> st;
    DevWarp wp;
    walk_warp<kTrace, kEager>(p, st, wp, w);
}

template <bool kTrace, bool kEager>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, 6) walk_smem_kernel(Params p)
{
    extern __shared__ uint64_t smem[];
    const int wib = (int)(threadIdx.x >> 5);
    const int w = (int)(blockIdx.x * kWarpsPerBlock + wib);
    if (w >= p.warps)
        return;
    SmemStore st = {smem + (size_t)wib * (size_t)p.cap * 3, p.cap >> 5, (int)(threadIdx.x & 31)};
    DevWarp wp;
    walk_warp<kTrace, kEager>(p, st, wp, w);
}

// One block per staged scheme: copy it in, reset the walker's ranks and plateau.
__global__ void walk_load_kernel(Params p, const int32_t *ids, const int32_t *ranks,
                                 const uint64_t *terms, int n)
{
    const int e = (int)blockIdx.x;
    if (e >= n)
        return;
    const int w = ids[e], r = ranks[e];
    const uint64_t *src = terms + (size_t)e * (size_t)p.cap * 3;
    uint64_t *dst = p.terms + (size_t)w * (size_t)p.cap * 3;
    for (int i = (int)threadIdx.x; i < r * 3; i += (int)blockDim.x)
        dst[i] = src[i];
    if (threadIdx.x == 0) {
        cuda_walk_warp s = p.state[w];
        s.rank = r;
        s.best_rank = r;
        s.reported_rank = r;
        s.since_drop = 0;
        s.since_best = 0;
        s.degree = 0;
        s.hold_left = 0;
        p.state[w] = s;
    }
}

// Blocks per SM of the narrow kernel: 7 up to 2 slots (72 registers, 60 bytes
// of spills), 8 beyond (measured equal to 7); FLIPGRAPH_WALK_BLOCKS (5..8)
// overrides it for measurement (scripts/device_walk.sh knobs).  Read once.
constexpr int narrow_default_blocks(int K) { return K <= 2 ? 7 : 8; }
int narrow_blocks(int K)
{
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("FLIPGRAPH_WALK_BLOCKS");
        const int n = e ? atoi(e) : 0;
        v = n >= 5 && n <= 8 ? n : 0;
    }
    return v ? v : narrow_default_blocks(K);
}
// Flips a step may take (walk_core.cuh kFlipsPerStep: 4; measured 1/4/8 at 7
// blocks: <4,4,4> 1.61/1.91/1.75e9 flips/s), or FLIPGRAPH_WALK_FLIPS (1..32)
// for measurement.  A trace takes one flip per step whatever this says.
int flips_per_step()
{
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("FLIPGRAPH_WALK_FLIPS");
        const int n = e ? atoi(e) : 0;
        v = n >= 1 && n <= 32 ? n : kFlipsPerStep;
    }
    return v;
}
// The eager kernels (--eager-gen, an experiment) come at the default block
// count only: every count of both would double walk_kernel.cu's compile time.
template <int K, bool kTrace, bool kEager>
const void *nfn()
{
    if constexpr (kEager) {
        return (const void *)walk_narrow_kernel<K, kTrace, kEager, narrow_default_blocks(K)>;
    } else {
        switch (narrow_blocks(K)) {
        case 5: return (const void *)walk_narrow_kernel<K, kTrace, kEager, 5>;
        case 6: return (const void *)walk_narrow_kernel<K, kTrace, kEager, 6>;
        case 7: return (const void *)walk_narrow_kernel<K, kTrace, kEager, 7>;
        default: return (const void *)walk_narrow_kernel<K, kTrace, kEager, 8>;
        }
    }
}
template <int K, bool kTrace, bool kEager>
void nlaunch(const Params &p, int blocks, int threads, cudaStream_t stream)
{
    if constexpr (kEager) {
        walk_narrow_kernel<K, kTrace, kEager, narrow_default_blocks(K)><<<blocks, threads, 0, stream>>>(p);
    } else {
        switch (narrow_blocks(K)) {
        case 5: walk_narrow_kernel<K, kTrace, kEager, 5><<<blocks, threads, 0, stream>>>(p); break;
        case 6: walk_narrow_kernel<K, kTrace, kEager, 6><<<blocks, threads, 0, stream>>>(p); break;
        case 7: walk_narrow_kernel<K, kTrace, kEager, 7><<<blocks, threads, 0, stream>>>(p); break;
        default: walk_narrow_kernel<K, kTrace, kEager, 8><<<blocks, threads, 0, stream>>>(p); break;
        }
    }
}

}  // namespace

bool regs_fit(int cap) { return cap <= 32 * kMaxRegSlots; }

// The register store's kernel for the occupancy query (the walkers per SM) is
// the narrow one: 32-bit formats are those the speed is measured on; a wide
// format runs the same walkers in more waves where its kernel fits fewer.
template <bool kTrace, bool kEager>
const void *kernel_fn(int store, int cap)
{
    if (store == CUDA_WALK_STORE_REGS) {
        switch (cap >> 5) {
        case 1: return nfn<1, kTrace, kEager>();
        case 2: return nfn<2, kTrace, kEager>();
        case 3: return nfn<3, kTrace, kEager>();
        case 4: return nfn<4, kTrace, kEager>();
        default: return nullptr;
        }
    }
    return (const void *)walk_smem_kernel<kTrace, kEager>;
}

const void *walk_kernel_fn(int store, int cap, bool trace, bool eager)
{
    if (eager)
        return trace ? kernel_fn<true, true>(store, cap) : kernel_fn<false, true>(store, cap);
    return trace ? kernel_fn<true, false>(store, cap) : kernel_fn<false, false>(store, cap);
}

size_t walk_smem_bytes(int store, int cap)
{
    return store == CUDA_WALK_STORE_SMEM ? (size_t)kWarpsPerBlock * (size_t)cap * 3 * sizeof(uint64_t) : 0;
}

template <bool kTrace, bool kEager>
void launch(const Params &p, int store, int blocks, size_t smem, cudaStream_t stream)
{
    const int threads = kWarpsPerBlock * 32;
    if (store == CUDA_WALK_STORE_REGS) {
        // each warp walks in one of the two (walk_warp's width check): the
        // wide kernel of a narrow format costs a load of every scheme
        switch (p.cap >> 5) {
        case 1: nlaunch<1, kTrace, kEager>(p, blocks, threads, stream);
                walk_regs_kernel<1, kTrace, kEager><<<blocks, threads, 0, stream>>>(p); break;
        case 2: nlaunch<2, kTrace, kEager>(p, blocks, threads, stream);
                walk_regs_kernel<2, kTrace, kEager><<<blocks, threads, 0, stream>>>(p); break;
        case 3: nlaunch<3, kTrace, kEager>(p, blocks, threads, stream);
                walk_regs_kernel<3, kTrace, kEager><<<blocks, threads, 0, stream>>>(p); break;
        case 4: nlaunch<4, kTrace, kEager>(p, blocks, threads, stream);
                walk_regs_kernel<4, kTrace, kEager><<<blocks, threads, 0, stream>>>(p); break;
        }
    } else {
        walk_smem_kernel<kTrace, kEager><<<blocks, threads, smem, stream>>>(p);
    }
}

cudaError_t walk_launch_kernel(const Params &p, int store, int blocks, cudaStream_t stream)
{
    const bool trace = p.moves != nullptr, eager = p.eager_gen != 0;
    if (!walk_kernel_fn(store, p.cap, trace, eager))
        return cudaErrorInvalidValue;
    const size_t smem = walk_smem_bytes(store, p.cap);
    Params q = p; // the launch's own settings: the host launcher does not set them
    q.flips_per_step = flips_per_step();
    if (eager) {
        if (trace)
            launch<true, true>(q, store, blocks, smem, stream);
        else
            launch<false, true>(q, store, blocks, smem, stream);
    } else if (trace)
        launch<true, false>(q, store, blocks, smem, stream);
    else
        launch<false, false>(q, store, blocks, smem, stream);
    return cudaGetLastError();
}

cudaError_t walk_launch_load(const Params &p, const int32_t *ids, const int32_t *ranks,
                             const uint64_t *terms, int n, cudaStream_t stream)
{
    if (n <= 0)
        return cudaSuccess;
    walk_load_kernel<<<n, 128, 0, stream>>>(p, ids, ranks, terms, n);
    return cudaGetLastError();
}

}  // namespace walk
