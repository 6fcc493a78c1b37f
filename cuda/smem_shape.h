/* How many walkers (one warp each) a block of a shared-memory walk kernel
 * holds (cuda/smem_shape.cuh applies it with the device's and the kernel's
 * figures; plain C so that the CPU tests check the arithmetic). */
#ifndef FLIPGRAPH_SMEM_SHAPE_H
#define FLIPGRAPH_SMEM_SHAPE_H

#include <stddef.h>

/* A walker's state of `bytes` goes to shared memory when it fits four times
 * over in an SM's (smem_per_sm, with 256 bytes of the SM's own per block) and
 * in a block's (smem_optin, the opt-in maximum). */
static inline int smem_state_fits_in(size_t bytes, size_t smem_per_sm, size_t smem_optin)
{
    return bytes > 0 && smem_per_sm / (bytes + 1024 / 4) >= 4 && bytes * 4 <= smem_optin;
}

/* Walkers per block: as many as the block's shared memory, the SM's, the
 * kernel's registers (max_threads, its maxThreadsPerBlock) and 32 warps allow;
 * 0 where the state does not fit.  Without the register bound a small format
 * (a few hundred bytes a walker) asked for blocks of 32 warps, more registers
 * than an SM has at these kernels' counts, and the launch failed ("too many
 * resources requested for launch"; tests/gpu_sym.c's <2,2,2> c3xc2). */
static inline int smem_walkers_per_block(size_t bytes, size_t smem_per_sm, size_t smem_optin, int max_threads)
{
    if (!smem_state_fits_in(bytes, smem_per_sm, smem_optin))
        return 0;
    const int per_sm = (int)(smem_per_sm / (bytes + 1024 / 4));
    int per_block = (int)(smem_optin / bytes) < per_sm ? (int)(smem_optin / bytes) : per_sm;
    if (per_block > max_threads / 32)
        per_block = max_threads / 32;
    if (per_block > 32)
        per_block = 32;
    return per_block;
}

#endif
