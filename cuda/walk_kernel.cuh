// Between the walk kernels (walk_kernel.cu) and their host launcher (walk.cu).
#ifndef FLIPGRAPH_WALK_KERNEL_CUH
#define FLIPGRAPH_WALK_KERNEL_CUH

#include <cuda_runtime.h>

#include "walk_core.cuh"

namespace walk {

const int kWarpsPerBlock = 4;
// Register stores up to 4 slots (rank 128: <5,5,5>'s standard algorithm);
// beyond, shared memory (measured against each other by bench/gpu_walk.c --store).
const int kMaxRegSlots = 4;

bool regs_fit(int cap);
// The kernel for a store and cap (for occupancy queries); NULL when none.
const void *walk_kernel_fn(int store, int cap, bool trace, bool eager);
size_t walk_smem_bytes(int store, int cap);
cudaError_t walk_launch_kernel(const Params &p, int store, int blocks, cudaStream_t stream);
cudaError_t walk_launch_load(const Params &p, const int32_t *ids, const int32_t *ranks,
                             const uint64_t *terms, int n, cudaStream_t stream);

}  // namespace walk

#endif
