// The launch shape of a walk kernel that keeps each walker's state in shared
// memory, one warp per walker (cuda/walk_sym.cu, cuda/walk_z.cu).
#pragma once

#include <cuda_runtime.h>

#include "smem_shape.h"

struct smem_shape {
    int per_block;  // walkers (warps) per block; 0: the state does not fit, take the global-memory kernel
    int resident;   // such blocks resident on an SM at once
};

// A walker's state of `bytes` goes to shared memory when it fits four times
// over in an SM's.
static inline bool smem_state_fits(size_t bytes, const cudaDeviceProp &prop)
{
    return smem_state_fits_in(bytes, prop.sharedMemPerMultiprocessor, prop.sharedMemPerBlockOptin);
}

// The walkers per block of smem_walkers_per_block (smem_shape.h) for this
// kernel on this device, the kernel's dynamic shared memory set to match, and
// the blocks resident at once; `allow` false (the global kernel asked for)
// gives per_block 0.
template <typename Kernel>
static cudaError_t smem_shape_for(Kernel kfn, size_t bytes, const cudaDeviceProp &prop, bool allow, smem_shape *out)
{
    out->per_block = 0;
    out->resident = 0;
    if (!allow || !smem_state_fits(bytes, prop))
        return cudaSuccess;
    cudaFuncAttributes fa;
    cudaError_t e = cudaFuncGetAttributes(&fa, kfn);
    if (e != cudaSuccess)
        return e;
    const int per_block =
        smem_walkers_per_block(bytes, prop.sharedMemPerMultiprocessor, prop.sharedMemPerBlockOptin, fa.maxThreadsPerBlock);
    if (per_block < 1)
        return cudaSuccess;
    if ((e = cudaFuncSetAttribute(kfn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(bytes * (size_t)per_block))) !=
        cudaSuccess)
        return e;
    int resident = 0;
    if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kfn, 32 * per_block, bytes * (size_t)per_block)) !=
        cudaSuccess)
        return e;
    out->per_block = per_block;
    out->resident = resident < 1 ? 1 : resident;
    return cudaSuccess;
}
