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

// The arguments every bit-matrix kernel takes: operands in bytes (A, B) and
// words (C), batch strides, and the tile grid for tiles of bm x bn with
// k-steps of kstep bits.  One builder serves the three kernels.
struct BmmArgs {
    const uint8_t *A, *B;
    uint64_t *C;
    long long lda_b, ldb_b, ldc_w; // bytes, bytes, words
    long long sa_b, sb_b, sc_w;    // batch strides
    int tiles_m, tiles_n, ktiles, group_m;
};

static inline BmmArgs bmm_args(const uint64_t *dA, const uint64_t *dBt, uint64_t *dC,
                               const cuda_bmm_shape *sh, long long bm, long long bn, long long kstep)
{
    BmmArgs a;
    a.A = (const uint8_t *)dA;
    a.B = (const uint8_t *)dBt;
    a.C = dC;
    a.lda_b = sh->lda * 8;
    a.ldb_b = sh->ldbt * 8;
    a.ldc_w = sh->ldc;
    a.sa_b = sh->stride_a * 8;
    a.sb_b = sh->stride_bt * 8;
    a.sc_w = sh->stride_c;
    a.tiles_m = (int)(sh->m / bm);
    a.tiles_n = (int)(sh->n / bn);
    a.ktiles = (int)(sh->k / kstep);
    a.group_m = 8;
    return a;
}

// Pipeline depth of the tensor-core kernel (env FLIPGRAPH_TC_STAGES, 3..6; default 4).
int bmm_tc_stages(void);
// Any kernel (CUDA_BMM_*; AUTO resolved by bmm_resolve).
int bmm_launch(int kernel, int mode, const uint64_t *dA, const uint64_t *dBt, uint64_t *dC,
               const cuda_bmm_shape *sh, cudaStream_t st);
int bmm_resolve(int kernel);

#endif
