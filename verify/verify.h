/* verify: the Brent equations over GF(2) and over Z; Hensel lifting GF(2) -> Z.
 *
 * A scheme for <n,m,p> is valid when, for every (i,j), (j',k), (k',i'):
 *     sum_r a_r[i,j] b_r[j',k] c_r[k',i'] = [j=j'][k=k'][i=i'].
 */
#ifndef FLIPGRAPH_VERIFY_H
#define FLIPGRAPH_VERIFY_H

#include "../schemes/scheme.h"

typedef struct verify_result {
    bool valid;
    /* When invalid: the first failing equation, in the file's own terms. */
    int ai, aj;  /* entry a[ai,aj] (1-based) */
    int bj, bk;  /* entry b[bj,bk] (1-based) */
    int ck, ci;  /* entry c[ck,ci] (1-based) */
    long long got, want;
    char msg[512]; /* e.g. "a12*b21 -> c11: the third factors sum to 1, expected 0" */
} verify_result;

/* Over GF(2), bit-parallel on the packed words (any ring's scheme: its words). */
bool verify_f2(const scheme *s, verify_result *res);
/* Over Z with overflow-safe accumulation (an F2 scheme: its 0/1 coefficients). */
bool verify_z(const scheme *s, verify_result *res);
/* The plain triple-loop reference (per equation, per term): for tests and the benchmark. */
bool verify_f2_reference(const scheme *s, verify_result *res);
/* verify_z for SCHEME_RING_Z, verify_f2 otherwise.  res may be NULL in all four. */
bool verify_scheme(const scheme *s, scheme_ring ring, verify_result *res);

/* Hensel lifting (docs/verify.md). */
typedef enum verify_lift_status {
    VERIFY_LIFT_OK = 0,     /* lifted; the result passed verify_z */
    VERIFY_LIFT_NONE,       /* proved: no solution mod 4 reduces to this scheme */
    VERIFY_LIFT_NOT_FOUND,  /* lifts mod 4, but no attempt reached an integer scheme */
    VERIFY_LIFT_BAD_INPUT,  /* not a valid GF(2) scheme */
    VERIFY_LIFT_TOO_LARGE,  /* the system exceeds the memory limit, or out of memory */
    VERIFY_LIFT_INTERNAL    /* a check of the lifter itself failed (a bug) */
} verify_lift_status;

typedef struct verify_lift_result {
    bool lifted;
    verify_lift_status status;
    char msg[512]; /* why not, when not; how, when lifted */
    /* Statistics, filled in both cases (0 when the lift stopped before). */
    int unknowns;       /* coefficient entries: rank * (nm + mp + pn) */
    int equations;      /* Brent equations with a nonzero Jacobian row */
    int jacobian_rank;  /* rank of the Jacobian mod 2 */
    int precision;      /* k of the last modulus 2^k reached */
    int attempts;       /* choices of free variables tried */
    int max_coeff;      /* largest |coefficient| of the lift */
    int defect;         /* how far from lifting modulo 4 (status VERIFY_LIFT_NONE): the Brent
                           equations left in the normal form of the step's right-hand side
                           modulo the Jacobian's columns, and those no unknown touches; 0 when
                           the scheme lifts mod 4 (docs/verify.md, "The defect") */
    double seconds;
} verify_lift_result;

typedef struct verify_lift_options {
    uint64_t seed;     /* for the retries' random choices; 0: a fixed default */
    int sign_attempts; /* sign choices per elimination (default 2) */
    int orders;        /* column orders (eliminations) tried (default 16) */
    int max_coef;      /* > 0: a lift with a larger |coefficient| does not end the attempts; the
                          one with the smallest is returned when none is within it (0: the first) */
    int symmetry;      /* scheme_symmetry: > 0, the lift is invariant under it (the scheme must be;
                          the coefficients of a term's image are tied to the term's: one unknown
                          per orbit of entries; docs/verify.md, "Invariant lifts"); 0: none */
} verify_lift_options;

/* Lifts a valid GF(2) scheme (or an integer scheme's reduction mod 2) to Z;
 * NULL when it does not lift (res says why: which modulus, inconsistent system).
 * The result is an integer scheme that passed verify_z.  See docs/verify.md. */
scheme *verify_lift(const scheme *f2, verify_lift_result *res);
/* The same with options (NULL: defaults). */
scheme *verify_lift_ex(const scheme *f2, const verify_lift_options *opt, verify_lift_result *res);

#endif
