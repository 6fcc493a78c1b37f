// Internal interface between the bit-matrix kernels (cuda/bmm_*.cu) and the
// runtime launchers (cuda/rt_*.cu).  Device code only; C callers use fg_cuda.h.
#ifndef FLIPGRAPH_BMM_INTERNAL_H
#define FLIPGRAPH_BMM_INTERNAL_H

#include <cstdint>
#include <cuda_runtime.h>

#include "fg_cuda.h"

// Launchers: 0 ok, 2 shape not supported, 3 launch failure.
int bmm_tc_launch(int mode, const uint64_t *dA, const uint64_t *dBt, uint64_t *dC,
                  const cuda_bmm_shape *sh, cudaStream_t st, int stages);
int bmm_wgmma_launch(int mode, const uint64_t *dA, const uint64_t *dBt, uint64_t *dC,
                     const cuda_bmm_shape *sh, cudaStream_t st);
int bmm_simt_launch(int mode, const uint64_t *dA, const uint64_t *dBt, uint64_t *dC,
                    const cuda_bmm_shape *sh, cudaStream_t st);

// Pipeline depth of the tensor-core kernel (env FLIPGRAPH_TC_STAGES, 3..6; default 4).
int bmm_tc_stages(void);
// Any kernel (CUDA_BMM_*; AUTO resolved by bmm_resolve).
int bmm_launch(int kernel, int mode, const uint64_t *dA, const uint64_t *dBt, uint64_t *dC,
               const cuda_bmm_shape *sh, cudaStream_t st);
int bmm_resolve(int kernel);

#endif
