/* The weight bias of one walker among many (docs/search.md, "The weight
 * bias", the spread): one formula for every walk that has the bias, on the
 * CPU (search/driver.c, a thread's walker) and on the GPU (walk_core.cuh, a
 * warp's walker; walk_sym.cu, walk_z.cu and their emulators, a thread's or a
 * warp's).  Plain C that nvcc also compiles. */
#ifndef FLIPGRAPH_WALK_BIAS_H
#define FLIPGRAPH_WALK_BIAS_H

#if defined(__CUDACC__)
#define WALK_BIAS_FN static __host__ __device__ __forceinline__
#else
#define WALK_BIAS_FN static inline
#endif

/* Walker k of n: lo where hi <= lo or n < 2 (one bias for all), else evenly
 * from lo (walker 0) to hi (walker n - 1), so that one run walks the whole
 * window of biases at once and its pool carries each walker's finds to the
 * others (search_params.weight_bias, weight_bias_max). */
WALK_BIAS_FN double cuda_walk_bias_at(double lo, double hi, int k, int n)
{
    if (!(hi > lo) || n < 2)
        return lo;
    return lo + (hi - lo) * (double)k / (double)(n - 1);
}

#endif
