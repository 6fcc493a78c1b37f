/* Schemes the runtime knows by name, so that a plan needs no file for them. */
#include <string.h>

#include "runtime.h"

/* Strassen (1969) over Z, each term as 2x2 coefficient matrices of A, B and of
 * the product entries it feeds (C[i][k]); the scheme stores c transposed. */
static const signed char strassen_terms[7][3][2][2] = {
    {{{1, 0}, {0, 1}}, {{1, 0}, {0, 1}}, {{1, 0}, {0, 1}}},   /* (A11+A22)(B11+B22) */
    {{{0, 0}, {1, 1}}, {{1, 0}, {0, 0}}, {{0, 0}, {1, -1}}},  /* (A21+A22) B11 */
    {{{1, 0}, {0, 0}}, {{0, 1}, {0, -1}}, {{0, 1}, {0, 1}}},  /* A11 (B12-B22) */
    {{{0, 0}, {0, 1}}, {{-1, 0}, {1, 0}}, {{1, 0}, {1, 0}}},  /* A22 (B21-B11) */
    {{{1, 1}, {0, 0}}, {{0, 0}, {0, 1}}, {{-1, 1}, {0, 0}}},  /* (A11+A12) B22 */
    {{{-1, 0}, {1, 0}}, {{1, 1}, {0, 0}}, {{0, 0}, {0, 1}}},  /* (A21-A11)(B11+B12) */
    {{{0, 1}, {0, -1}}, {{0, 0}, {1, 1}}, {{1, 0}, {0, 0}}},  /* (A12-A22)(B21+B22) */
};

/* Winograd's variant of Strassen's algorithm (Winograd 1971; the form of
 * Boyer, Dumas, Pernet, Zhou 2009): 7 products and 15 block additions where
 * Strassen's form needs 18, because the operand sums share partial sums
 * (S1 = A21 + A22, S2 = S1 - A11, S3 = A11 - A21, S4 = A12 - S2; T1 = B12 - B11,
 * T2 = B22 - T1, T3 = B22 - B12, T4 = T2 - B21) and so do the results
 * (U2 = P1 + P6, U3 = U2 + P7, U4 = U2 + P5).  The terms below are those
 * products written out over the blocks, in the order P1 .. P7; the runtime
 * recognises the scheme (rt_flevel.winograd) and runs that schedule
 * (runtime/fmul_impl.h, fm_winograd_). */
static const signed char winograd_terms[7][3][2][2] = {
    {{{1, 0}, {0, 0}}, {{1, 0}, {0, 0}}, {{1, 1}, {1, 1}}},      /* P1 = A11 B11 */
    {{{0, 1}, {0, 0}}, {{0, 0}, {1, 0}}, {{1, 0}, {0, 0}}},      /* P2 = A12 B21 */
    {{{1, 1}, {-1, -1}}, {{0, 0}, {0, 1}}, {{0, 1}, {0, 0}}},    /* P3 = S4 B22 */
    {{{0, 0}, {0, 1}}, {{1, -1}, {-1, 1}}, {{0, 0}, {-1, 0}}},   /* P4 = A22 T4 */
    {{{0, 0}, {1, 1}}, {{-1, 1}, {0, 0}}, {{0, 1}, {0, 1}}},     /* P5 = S1 T1 */
    {{{-1, 0}, {1, 1}}, {{1, -1}, {0, 1}}, {{0, 1}, {1, 1}}},    /* P6 = S2 T2 */
    {{{1, 0}, {-1, 0}}, {{0, -1}, {0, 1}}, {{0, 0}, {1, 1}}},    /* P7 = S3 T3 */
};

static scheme *scheme_2x2x2(const signed char terms[7][3][2][2])
{
    scheme_format f = {2, 2, 2};
    scheme *s = scheme_new(f, SCHEME_RING_Z, 7);
    if (!s)
        return NULL;
    for (int h = 0; h < 7; h++) {
        scheme_zterm z;
        memset(&z, 0, sizeof z);
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                z.z[SCHEME_A][i * 2 + j] = terms[h][0][i][j];
                z.z[SCHEME_B][i * 2 + j] = terms[h][1][i][j];
                /* C[i][k] is entry c[k][i], bit k*n+i */
                z.z[SCHEME_C][j * 2 + i] = terms[h][2][i][j];
            }
        if (!scheme_push_z(s, &z)) {
            scheme_free(s);
            return NULL;
        }
    }
    return s;
}

scheme *rt_scheme_builtin(const char *name, char *err, size_t errlen)
{
    if (!strcmp(name, "strassen") || !strcmp(name, "winograd")) {
        scheme *s = scheme_2x2x2(name[0] == 's' ? strassen_terms : winograd_terms);
        if (!s)
            scheme_fail(err, errlen, "out of memory");
        return s;
    }
    const char *fmt = NULL;
    if (!strncmp(name, "std:", 4))
        fmt = name + 4;
    else if (!strncmp(name, "standard:", 9))
        fmt = name + 9;
    if (fmt) {
        scheme_format f;
        if (!scheme_format_parse(fmt, &f, err, errlen))
            return NULL;
        scheme *s = scheme_standard(f);
        if (!s)
            scheme_fail(err, errlen, "out of memory");
        return s;
    }
    scheme_fail(err, errlen, "'%s' is not a built-in scheme (strassen, winograd, std:NxMxP)", name);
    return NULL;
}
