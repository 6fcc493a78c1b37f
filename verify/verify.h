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

/* Hensel lifting (issue 6). */
typedef struct verify_lift_result {
    bool lifted;
    char msg[512]; /* why not, when not */
} verify_lift_result;
/* Lifts a valid GF(2) scheme to Z; NULL when it does not lift (res says why). */
scheme *verify_lift(const scheme *f2, verify_lift_result *res);

#endif
