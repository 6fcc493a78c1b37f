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

static scheme *strassen(void)
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
                z.z[SCHEME_A][i * 2 + j] = strassen_terms[h][0][i][j];
                z.z[SCHEME_B][i * 2 + j] = strassen_terms[h][1][i][j];
                /* C[i][k] is entry c[k][i], bit k*n+i */
                z.z[SCHEME_C][j * 2 + i] = strassen_terms[h][2][i][j];
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
    if (!strcmp(name, "strassen")) {
        scheme *s = strassen();
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
    scheme_fail(err, errlen, "'%s' is not a built-in scheme (strassen, std:NxMxP)", name);
    return NULL;
}
