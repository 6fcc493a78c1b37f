/* Internal to runtime/: the block layout of the operands between the levels,
 * shared by the GF(2) and the integer executors.  docs/runtime.md describes it
 * for the GPU executor. */
#ifndef FLIPGRAPH_RUNTIME_LAYOUT_H
#define FLIPGRAPH_RUNTIME_LAYOUT_H

#include "runtime.h"

/* Block offsets of one operand: the block in block-row I and block-column J
 * (I, J in mixed radix over the levels, level 0 most significant) sits at block
 * index off_row[I] + off_col[J] of the interleaved order (x_0 y_0 x_1 y_1 ...),
 * Karppa, Kaski 2019, (51)-(52). */
typedef struct rt_layout {
    uint64_t nrow, ncol; /* S and T (A), T and U (B), S and U (C) */
    uint64_t *off_row, *off_col;
} rt_layout;

/* which: 0 = A (s, t), 1 = B (t, u), 2 = C (s, u).  false when out of memory. */
bool rt_layout_init(rt_layout *lay, const export_plan *p, int which);
void rt_layout_free(rt_layout *lay);

/* Level l of a pass through the levels applies its matrix left times (the
 * product of the ranks of the levels above it), each time to runs of right
 * blocks (the product of the levels below it of s*t on side EXPORT_PLAN_XI,
 * t*u on _ETA, s*u on _ZETA): Karppa, Kaski 2019, (30)-(32), in the layout above. */
uint64_t rt_level_left(const export_plan *p, int l);
uint64_t rt_level_right(const export_plan *p, int l, int side);

/* 64-byte aligned words (zeroed when zero is true); NULL when out of memory. */
uint64_t *rt_buf_alloc(uint64_t words, bool zero);

double rt_clock(void);

/* A sized plan's levels in the GPU executor's form (cuda/fg_cuda.h); returns
 * their count.  The arrays are the plan's. */
struct cuda_rt_level;
int rt_gpu_levels(const export_plan *plan, struct cuda_rt_level *lv);

/* Functions compiled for AVX-512, AVX2 and the baseline, one picked at load
 * time (an ifunc); elsewhere than x86-64 the baseline only. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RT_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define RT_CLONES
#endif

#endif
