/* The inner kernel: products of bit blocks with the method of four Russians.
 *
 * For each 64 x 64 block of B (one word column of A) eight tables of the 256
 * sums of 8 consecutive rows of B are built (255 additions each, every entry one
 * addition from a smaller one); then each row of A adds 8 table entries into
 * its row of C.  So one word of A costs 8 vector additions, against 64 with the
 * row-by-row product.  For blocks of few rows, where building 255-entry tables
 * does not pay, 16 tables of 4-bit chunks are used instead.  Karppa, Kaski 2019 (section 3.10) do the inner layer with
 * word-parallel AND and popcount instead; on a CPU the table method moves less
 * data (it needs no transpose and reads each word of A once per panel).
 * Two word columns are done per pass over the rows, halving the traffic of C.
 * C is done in panels of 8, 4, 2, 1 words (one 512-, 256-, 128-bit vector or a
 * word), so the tables (16 x 256 entries of a panel) stay within the L2 cache.
 */
#include <stdlib.h>
#include <string.h>

#include "layout.h"

typedef uint64_t v8 __attribute__((vector_size(64)));
typedef uint64_t v8u __attribute__((vector_size(64), aligned(8), may_alias));
typedef uint64_t v4 __attribute__((vector_size(32)));
typedef uint64_t v4u __attribute__((vector_size(32), aligned(8), may_alias));
typedef uint64_t v2 __attribute__((vector_size(16)));
typedef uint64_t v2u __attribute__((vector_size(16), aligned(8), may_alias));
typedef uint64_t v1;
typedef uint64_t v1u __attribute__((aligned(8), may_alias));

/* Builds the tables of word column kw (rows 64kw .. 64kw+63 of B) for the
 * panel starting at word c0: 64/BITS tables of 2^BITS entries, table g holding
 * T[g][x] = sum of rows BITS*g + b of B over the bits b of x. */
#define BUILD_TABLES(VT, VTU, OP, T, B, bst, kw, c0, BITS)                            \
    do {                                                                              \
        const uint64_t *Bk_ = (B) + (size_t)(kw) * 64 * (bst) + (c0);                 \
        for (int g_ = 0; g_ < 64 / (BITS); g_++) {                                    \
            VT *t_ = (T) + g_ * (1 << (BITS));                                        \
            t_[0] = (VT){0};                                                          \
            for (int b_ = 0; b_ < (BITS); b_++) {                                     \
                VT row_ = *(const VTU *)(Bk_ + (size_t)((BITS) * g_ + b_) * (bst));   \
                int lo_ = 1 << b_;                                                    \
                for (int x_ = 0; x_ < lo_; x_++)                                      \
                    t_[lo_ + x_] = t_[x_] OP row_;                                    \
            }                                                                         \
        }                                                                             \
    } while (0)

/* acc OP= the table entries picked by the chunks of the word a. */
#define LOOKUP(VT, OP, acc, T, a, BITS)                                                   \
    do {                                                                                  \
        for (int g_ = 0; g_ < 64 / (BITS); g_++)                                          \
            acc = acc OP(T)[g_ * (1 << (BITS)) + (((a) >> ((BITS) * g_)) & ((1u << (BITS)) - 1))]; \
    } while (0)

/* One panel of C: all rows, word columns c0 .. c0 + width, two word columns of
 * A per pass (tables T and T + TS). */
#define DEFINE_PANEL(NAME, VT, VTU, OP, BITS)                                                \
    static inline __attribute__((always_inline)) void NAME(                                  \
        const uint64_t *A, size_t as, const uint64_t *B, size_t bst, uint64_t *C, size_t cs, \
        size_t rows, size_t kwords, size_t c0, VT *T)                                        \
    {                                                                                        \
        const int TS = 64 / (BITS) * (1 << (BITS));                                          \
        size_t kw = 0;                                                                       \
        for (; kw + 2 <= kwords; kw += 2) {                                                  \
            BUILD_TABLES(VT, VTU, OP, T, B, bst, kw, c0, BITS);                              \
            BUILD_TABLES(VT, VTU, OP, T + TS, B, bst, kw + 1, c0, BITS);                     \
            for (size_t i = 0; i < rows; i++) {                                              \
                uint64_t a0 = A[i * as + kw], a1 = A[i * as + kw + 1];                       \
                if (!(a0 | a1))                                                              \
                    continue;                                                                \
                VTU *c = (VTU *)(C + i * cs + c0);                                           \
                VT acc = *c;                                                                 \
                LOOKUP(VT, OP, acc, T, a0, BITS);                                            \
                LOOKUP(VT, OP, acc, T + TS, a1, BITS);                                       \
                *c = acc;                                                                    \
            }                                                                                \
        }                                                                                    \
        if (kw < kwords) {                                                                   \
            BUILD_TABLES(VT, VTU, OP, T, B, bst, kw, c0, BITS);                              \
            for (size_t i = 0; i < rows; i++) {                                              \
                uint64_t a0 = A[i * as + kw];                                                \
                if (!a0)                                                                     \
                    continue;                                                                \
                VTU *c = (VTU *)(C + i * cs + c0);                                           \
                VT acc = *c;                                                                 \
                LOOKUP(VT, OP, acc, T, a0, BITS);                                            \
                *c = acc;                                                                    \
            }                                                                                \
        }                                                                                    \
    }

#define DEFINE_PANELS(OPNAME, OP, BITS)                               \
    DEFINE_PANEL(p8_##OPNAME##_##BITS, v8, v8u, OP, BITS)             \
    DEFINE_PANEL(p4_##OPNAME##_##BITS, v4, v4u, OP, BITS)             \
    DEFINE_PANEL(p2_##OPNAME##_##BITS, v2, v2u, OP, BITS)             \
    DEFINE_PANEL(p1_##OPNAME##_##BITS, v1, v1u, OP, BITS)

DEFINE_PANELS(xor, ^, 8)
DEFINE_PANELS(or, |, 8)
DEFINE_PANELS(xor, ^, 4)
DEFINE_PANELS(or, |, 4)

/* All panels of C, widest first. */
#define RUN_PANELS(OPNAME, BITS)                                                               \
    do {                                                                                       \
        size_t c0 = 0;                                                                         \
        for (; c0 + 8 <= cwords; c0 += 8)                                                      \
            p8_##OPNAME##_##BITS(A, as, B, bst, C, cs, rows, kwords, c0, (v8 *)scratch);       \
        if (c0 + 4 <= cwords) {                                                                \
            p4_##OPNAME##_##BITS(A, as, B, bst, C, cs, rows, kwords, c0, (v4 *)scratch);       \
            c0 += 4;                                                                           \
        }                                                                                      \
        if (c0 + 2 <= cwords) {                                                                \
            p2_##OPNAME##_##BITS(A, as, B, bst, C, cs, rows, kwords, c0, (v2 *)scratch);       \
            c0 += 2;                                                                           \
        }                                                                                      \
        if (c0 < cwords)                                                                       \
            p1_##OPNAME##_##BITS(A, as, B, bst, C, cs, rows, kwords, c0, (v1 *)scratch);       \
    } while (0)

/* Below this many rows the 255-entry tables cost more to build than they save:
 * 4-bit chunks (16 tables of 16 entries per word column) are then faster. */
#define SMALL_ROWS 192

/* The clones: GCC compiles this function for each target and picks one at load
 * time (an ifunc), so the default build runs AVX-512 or AVX2 where present. */
RT_CLONES static void
kernel_run(const uint64_t *A, size_t as, const uint64_t *B, size_t bst, uint64_t *C, size_t cs,
           size_t rows, size_t kwords, size_t cwords, bool boolean, void *scratch)
{
    if (rows < SMALL_ROWS) {
        if (boolean)
            RUN_PANELS(or, 4);
        else
            RUN_PANELS(xor, 4);
    } else {
        if (boolean)
            RUN_PANELS(or, 8);
        else
            RUN_PANELS(xor, 8);
    }
}

void rt_kernel_mul(const uint64_t *A, size_t a_stride, const uint64_t *B, size_t b_stride,
                   uint64_t *C, size_t c_stride, size_t rows, size_t kwords, size_t cwords,
                   bool boolean, void *scratch)
{
    if (!rows || !kwords || !cwords)
        return;
    void *own = NULL;
    if (!scratch) {
        own = aligned_alloc(64, RT_KERNEL_SCRATCH_BYTES);
        if (!own) { /* no room for tables: the plain row-by-row product */
            for (size_t i = 0; i < rows; i++)
                for (size_t k = 0; k < 64 * kwords; k++)
                    if ((A[i * a_stride + k / 64] >> (k % 64)) & 1)
                        for (size_t w = 0; w < cwords; w++)
                            C[i * c_stride + w] = boolean ? C[i * c_stride + w] | B[k * b_stride + w]
                                                          : C[i * c_stride + w] ^ B[k * b_stride + w];
            return;
        }
        scratch = own;
    }
    kernel_run(A, a_stride, B, b_stride, C, c_stride, rows, kwords, cwords, boolean, scratch);
    free(own);
}
