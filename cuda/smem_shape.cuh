// The launch shape of a walk kernel that keeps each walker's state in shared
// memory, one warp per walker (cuda/walk_sym.cu, cuda/walk_z.cu).
#pragma once

#include <cuda_runtime.h>

struct smem_shape {
    int per_block;  // walkers (warps) per block; 0: the state does not fit, take the global-memory kernel
    int resident;   // such blocks resident on an SM at once
};

// A walker's state of `bytes` goes to shared memory when it fits four times
// over in an SM's.
static inline bool smem_state_fits(size_t bytes, const cudaDeviceProp &prop)
{
    return prop.sharedMemPerMultiprocessor / (bytes + 1024 / 4) >= 4 && bytes * 4 <= prop.sharedMemPerBlockOptin;
}

// A block holds as many walkers as its shared memory, the
// kernel's registers and 32 warps allow: without the register bound a small
// format (a few hundred bytes a walker) asks for blocks of 32 warps, more
// registers than an SM has at these kernels' counts, and the launch fails
// ("too many resources requested for launch"; tests/gpu_sym.c's <2,2,2> c3xc2).
// Sets the kernel's dynamic shared memory; `allow` false (the global kernel
// asked for) gives per_block 0.
template <typename Kernel>
static cudaError_t smem_shape_for(Kernel kfn, size_t bytes, const cudaDeviceProp &prop, bool allow, smem_shape *out)
{
    out->per_block = 0;
    out->resident = 0;
    if (!allow || !smem_state_fits(bytes, prop))
        return cudaSuccess;
    const size_t smem_max = prop.sharedMemPerBlockOptin;
    const int per_sm = (int)(prop.sharedMemPerMultiprocessor / (bytes + 1024 / 4));
    cudaFuncAttributes fa;
    cudaError_t e = cudaFuncGetAttributes(&fa, kfn);
    if (e != cudaSuccess)
        return e;
    int per_block = (int)(smem_max / bytes) < per_sm ? (int)(smem_max / bytes) : per_sm;
    if (per_block > fa.maxThreadsPerBlock / 32)
        per_block = fa.maxThreadsPerBlock / 32;
    if (per_block > 32)
        per_block = 32;
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
