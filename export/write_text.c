/* Writers of the published text formats Moosbauer-Poole .txt and Mathematica
 * nested lists (.m).  schemes/ writes them too (scheme_write_txt, scheme_write_m:
 * the same bytes on every corpus file), but refuses what its readers would not
 * read back, such as a term with a zero factor, which these write as 0; the exp
 * and native writers are schemes/'s own (scheme_write_exp, scheme_write_native). */
#include "export.h"

#include <stdlib.h>

/* Longest factor string: 64 entries of "-127*a8,8" and separators. */
#define FACTOR_MAX (SCHEME_MAX_ENTRIES * 16 + 8)

/* The order Moosbauer and Poole publish a symmetric scheme in: each orbit of
 * the largest group the scheme is invariant under (c3xc2 or c3xc2sK, else c3) on
 * consecutive lines, first appearance first, and the terms some element fixes
 * (the cubes) last.  NULL: not a symmetric scheme (the order as given); an
 * integer scheme counts when it is invariant over Z (scheme_symmetry_orbits). */
static int *symmetric_order(const scheme *s)
{
    if (s->rank < 1) /* the ring and format are scheme_symmetry_orbits' to check */
        return NULL;
    int *orbit = malloc((size_t)s->rank * sizeof *orbit), *perm = malloc((size_t)s->rank * sizeof *perm);
    int *size = calloc((size_t)s->rank, sizeof *size);
    scheme_symmetry g = SCHEME_SYM_C3;
    int norbits = -1;
    for (int i = 0; i < SCHEME_SYM_SQUARE_GROUPS && orbit && perm && size && norbits < 0; i++)
        norbits = scheme_symmetry_orbits(s, g = scheme_symmetry_largest_first[i], orbit);
    if (norbits < 0 || norbits == s->rank) { /* not invariant, or no orbit has two terms */
        free(orbit);
        free(perm);
        free(size);
        return NULL;
    }
    for (int r = 0; r < s->rank; r++)
        size[orbit[r]]++;
    int k = 0;
    for (int pass = 0; pass < 2; pass++) /* free orbits, then the fixed terms */
        for (int r = 0; r < s->rank; r++)
            if (orbit[r] == r && (size[r] == scheme_symmetry_order(g)) == (pass == 0))
                for (int t = r; t < s->rank; t++)
                    if (orbit[t] == r)
                        perm[k++] = t;
    free(orbit);
    free(size);
    return perm;
}

bool export_write_txt(const scheme *s, FILE *out)
{
    /* As in jakobmoosbauer/symmetric-flips: one term a line, the three factors
     * in parentheses separated by a space, the third factor in the published
     * (transposed) convention: (a13 - a32 + a53) (b12 + b21) (-c13 - c25 + c45). */
    char f[3][FACTOR_MAX];
    int *perm = symmetric_order(s);
    for (int k = 0; k < s->rank; k++) {
        const int r = perm ? perm[k] : k;
        for (int pos = 0; pos < 3; pos++)
            if (!export_factor_str(s, r, pos, 0, true, f[pos], sizeof f[pos])) {
                free(perm);
                return false;
            }
        if (fprintf(out, "(%s) (%s) (%s)\n", f[0], f[1], f[2]) < 0) {
            free(perm);
            return false;
        }
    }
    free(perm);
    return !ferror(out);
}

static void write_matrix(const scheme *s, int r, int pos, FILE *out)
{
    int rows = scheme_factor_rows(s->fmt, pos), cols = scheme_factor_cols(s->fmt, pos);
    fputc('{', out);
    for (int i = 0; i < rows; i++) {
        fputs(i ? ", {" : "{", out);
        for (int j = 0; j < cols; j++)
            fprintf(out, j ? ", %d" : "%d", export_coef(s, r, pos, i * cols + j));
        fputc('}', out);
    }
    fputc('}', out);
}

bool export_write_m(const scheme *s, FILE *out)
{
    /* Mathematica's InputForm of a list of terms {A, B, C}: A has n rows of m
     * entries, B m rows of p, C p rows of n (the transposed product), as in the
     * corpus (kauers-moosbauer/344-38-mod0.m, arai/455_73.m).  One term a line. */
    fputc('{', out);
    for (int r = 0; r < s->rank; r++) {
        fputs(r ? ",\n {" : "{", out);
        for (int pos = 0; pos < 3; pos++) {
            if (pos)
                fputs(", ", out);
            write_matrix(s, r, pos, out);
        }
        fputc('}', out);
    }
    fputs("}\n", out);
    return !ferror(out);
}
