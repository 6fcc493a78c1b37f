/* The involution of the C3 x C2 symmetries of <n,n,n> on one factor: plain C
 * that nvcc also compiles (cuda/walk_sym_core.h), as cuda/walk_bias.h.
 *
 * Any C2 that commutes with the cyclic shift of the three factors is
 * conjugation of every factor by one g with g^2 = 1 (the tensor's symmetries
 * (a, b, c) -> (X a Y^-1, Y b Z^-1, Z c X^-1) commute with the shift only when
 * X = Y = Z), and conjugating the whole group by any h maps its invariant
 * schemes one to one onto those of h g h^-1, ranks kept.  Over GF(2) an
 * involution g is conjugate to the permutation matrix of k disjoint
 * transpositions, k = rank(g + 1), 1 <= k <= n/2, so these k are all the C2s
 * there are, up to that relabelling: c3xc2 is k = n/2 (the index reversal of
 * Moosbauer, Poole, "Flip graphs with symmetry and new matrix multiplication
 * schemes", 2025), c3xc2sK the involution swapping the first K pairs
 * (i, n-1-i) (schemes/scheme.h; docs/search.md, "Symmetric walks"). */
#ifndef FLIPGRAPH_INVOLUTION_H
#define FLIPGRAPH_INVOLUTION_H

#include <stdint.h>

#if defined(__CUDACC__)
#define SCHEME_INVOLUTION_FN static __host__ __device__ __forceinline__
#else
#define SCHEME_INVOLUTION_FN static inline
#endif

/* The index i goes to: n-1-i for the first `swaps` pairs, else i itself. */
SCHEME_INVOLUTION_FN int scheme_involution_index(int i, int n, int swaps)
{
    return i < swaps || i > n - 1 - swaps ? n - 1 - i : i;
}

/* Bit r*n of every row r < n: column 0 of an n x n factor (n <= 8), the
 * walkers' constant of scheme_involution_apply. */
SCHEME_INVOLUTION_FN uint64_t scheme_involution_column(int n)
{
    uint64_t col = 0;
    for (int r = 0; r < n; r++)
        col |= 1ull << (r * n);
    return col;
}

/* Conjugation of an n x n factor (bit r*n+c; n <= 8) by the involution that
 * swaps i and n-1-i for i < swaps: bit r*n+c goes to pi(r)*n+pi(c).  Each pair
 * is a swap of two rows, then of two columns, as delta swaps; swaps = n/2 is
 * the n*n bits reversed.  col: scheme_involution_column(n). */
SCHEME_INVOLUTION_FN uint64_t scheme_involution_apply(uint64_t x, int n, int swaps, uint64_t col)
{
    const uint64_t row = (1ull << n) - 1;
    for (int i = 0; i < swaps; i++) {
        const int j = n - 1 - i;
        uint64_t t = ((x >> (i * n)) ^ (x >> (j * n))) & row;
        x ^= t << (i * n) | t << (j * n);
        t = ((x >> i) ^ (x >> j)) & col;
        x ^= t << i | t << j;
    }
    return x;
}

#endif
