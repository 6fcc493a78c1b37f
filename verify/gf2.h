/* verify/ internals: bit-packed linear algebra over GF(2) for Hensel lifting.
 *
 * A column basis of a matrix J (nbits rows, ncols columns) built one column at
 * a time: each column is reduced against the basis by its lowest set bit (its
 * "lead"); a column that does not reduce to zero joins the basis together with
 * its combination, the set of original columns whose XOR it is.  A column
 * that reduces to zero depends on earlier ones: its unknown is *free*.  Since
 * columns are offered in the caller's order, earlier columns are preferred as
 * pivots, and a solution of J d = rhs found by the same reduction is supported
 * on pivot columns only: every free unknown is 0 in it.  The basis is built
 * once and then solves any number of right-hand sides, which is what Hensel
 * lifting needs (the Jacobian mod 2 is the same at every step). */
#ifndef FLIPGRAPH_VERIFY_GF2_H
#define FLIPGRAPH_VERIFY_GF2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gf2_basis {
    int nbits, ncols; /* rows of J, columns of J */
    int vw, cw;       /* words of a column vector, of a combination */
    int cap, count;   /* room for, and number of, basis vectors (the rank) */
    uint64_t *vec;    /* cap * vw */
    uint64_t *combo;  /* cap * cw */
    int *vhi, *chi;   /* per basis vector: words in use (1 + last nonzero word) */
    int *lead_of;     /* nbits: the basis vector whose lead is this bit, or -1 */
    uint64_t *sv, *sc;/* scratch: the vector being reduced and its combination */
} gf2_basis;

/* Bytes gf2_basis_init would allocate (to refuse oversized systems first). */
size_t gf2_basis_bytes(int nbits, int ncols);
bool gf2_basis_init(gf2_basis *b, int nbits, int ncols);
void gf2_basis_free(gf2_basis *b);

/* The scratch vector to fill with column col (zeroed by this call). */
uint64_t *gf2_basis_column(gf2_basis *b);
/* Reduces the scratch vector; true when column col joined the basis (a
 * pivot), false when it depends on earlier columns (a free unknown). */
bool gf2_basis_insert(gf2_basis *b, int col);

/* Solves J d = rhs (rhs: vw words, not modified) with every free unknown 0.
 * d: cw words.  false when rhs is not in the column space (inconsistent). */
bool gf2_basis_solve(gf2_basis *b, const uint64_t *rhs, uint64_t *d);

/* The weight of rhs's normal form modulo the column space: rhs reduced by
 * every basis vector whose lead it has, lowest first, until no lead bit is
 * left; the bits that stay are counted.  0 exactly when rhs is in the column
 * space.  The normal form depends on the column space and the bit order only
 * (every nonzero vector of the space has a lead as its lowest bit), not on the
 * order the columns were offered in. */
int gf2_basis_residue_weight(gf2_basis *b, const uint64_t *rhs);

#endif
