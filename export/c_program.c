/* The three straight-line programs of a scheme, as the C writer emits them:
 * the A side (R forms over the entries of A), the B side, and the C side (each
 * entry of the product, row major, as a form over the R products). */
#include <stdlib.h>
#include <string.h>

#include "export.h"

void export_c_program_free(export_c_program *prog)
{
    for (int i = 0; i < 3; i++)
        export_slp_free(&prog->side[i]);
    free(prog->term);
    memset(prog, 0, sizeof *prog);
}

static bool has_positive(const int *c, int n)
{
    for (int i = 0; i < n; i++)
        if (c[i] > 0)
            return true;
    return false;
}

static bool all_zero(const int *c, int n)
{
    for (int i = 0; i < n; i++)
        if (c[i])
            return false;
    return true;
}

bool export_c_program_build(const scheme *s, bool cse, export_c_program *prog)
{
    memset(prog, 0, sizeof *prog);
    scheme_format f = s->fmt;
    bool f2 = s->ring == SCHEME_RING_F2;
    int na = f.n * f.m, nb = f.m * f.p, nc = f.n * f.p, R = s->rank;
    int *ca = calloc((size_t)R * na + 1, sizeof *ca);
    int *cb = calloc((size_t)R * nb + 1, sizeof *cb);
    int *cz = calloc((size_t)R * nc + 1, sizeof *cz); /* c factors, our bit order */
    int *cc = calloc((size_t)nc * R + 1, sizeof *cc); /* C side, dense outputs x products */
    prog->term = calloc((size_t)R + 1, sizeof *prog->term);
    bool ok = ca && cb && cz && cc && prog->term;
    int q = 0;
    for (int r = 0; ok && r < R; r++) {
        int *a = ca + (long)q * na, *b = cb + (long)q * nb, *c = cz + (long)q * nc;
        for (int e = 0; e < na; e++) a[e] = export_coef(s, r, SCHEME_A, e);
        for (int e = 0; e < nb; e++) b[e] = export_coef(s, r, SCHEME_B, e);
        for (int e = 0; e < nc; e++) c[e] = export_coef(s, r, SCHEME_C, e);
        /* A term with a zero factor adds nothing: it is not computed. */
        if (all_zero(a, na) || all_zero(b, nb) || all_zero(c, nc))
            continue;
        if (!f2) {
            /* (-a) x b x (-c) = a x b x c: keep a positive coefficient in every
             * A and B form so that they need no unary minus. */
            if (!has_positive(a, na)) {
                for (int e = 0; e < na; e++) a[e] = -a[e];
                for (int e = 0; e < nc; e++) c[e] = -c[e];
            }
            if (!has_positive(b, nb)) {
                for (int e = 0; e < nb; e++) b[e] = -b[e];
                for (int e = 0; e < nc; e++) c[e] = -c[e];
            }
        }
        prog->term[q++] = r;
    }
    prog->mults = q;
    if (ok) {
        /* C[i*p+k] = sum_q c_q[k*n+i] M_q */
        for (int i = 0; i < f.n; i++)
            for (int k = 0; k < f.p; k++)
                for (int x = 0; x < q; x++)
                    cc[(long)(i * f.p + k) * q + x] = cz[(long)x * nc + k * f.n + i];
        ok = export_slp_build(&prog->side[0], na, q, ca, f2, cse) &&
             export_slp_build(&prog->side[1], nb, q, cb, f2, cse) &&
             export_slp_build(&prog->side[2], q, nc, cc, f2, cse);
    }
    free(ca);
    free(cb);
    free(cz);
    free(cc);
    if (!ok) {
        export_c_program_free(prog);
        return false;
    }
    for (int i = 0; i < 3; i++) {
        prog->cost[i] = export_slp_cost_of(&prog->side[i]);
        prog->adds += prog->cost[i].adds;
        prog->scalings += prog->cost[i].scalings;
        prog->negations += prog->cost[i].negations;
    }
    return true;
}
