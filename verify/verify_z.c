/* The Brent equations over Z.
 *
 * Each term adds a[ea] b[eb] c[ec] to the equation (ea, eb, ec), looping only
 * over the nonzero entries.  Coefficients are int8_t, so one product is below
 * 2^21 in size and a sum of at most 4 * SCHEME_MAX_RANK of them below 2^35: int64
 * cannot overflow for any scheme the model can hold.  The additions and
 * multiplications are still checked (__builtin_*_overflow), so that a future
 * wider coefficient type cannot turn this into a silent wrap. */
#include <stdlib.h>
#include <string.h>

#include "verify_internal.h"

typedef struct nz_list {
    int n;
    int idx[SCHEME_MAX_ENTRIES];
    int64_t val[SCHEME_MAX_ENTRIES];
} nz_list;

static void nonzeros(const scheme *s, int r, int pos, nz_list *out)
{
    int size = scheme_factor_size(s->fmt, pos);
    out->n = 0;
    for (int e = 0; e < size; e++) {
        int64_t v = s->ring == SCHEME_RING_Z ? s->zterms[r].z[pos][e]
                                             : (int64_t)((s->terms[r].f[pos] >> e) & 1);
        if (v) {
            out->idx[out->n] = e;
            out->val[out->n] = v;
            out->n++;
        }
    }
}

/* An integer scheme's words must be its coefficients mod 2, and nothing may
 * sit outside a factor's entries. */
static bool check_z_consistency(const scheme *s, verify_result *res)
{
    for (int r = 0; r < s->rank; r++)
        for (int pos = 0; pos < 3; pos++) {
            int size = scheme_factor_size(s->fmt, pos);
            uint64_t odd = 0;
            for (int e = 0; e < SCHEME_MAX_ENTRIES; e++) {
                int v = s->zterms[r].z[pos][e];
                if (v && e >= size)
                    return verify_fail_msg(res, "term %d: factor %c has a coefficient outside its %dx%d matrix",
                                           r + 1, "abc"[pos], scheme_factor_rows(s->fmt, pos),
                                           scheme_factor_cols(s->fmt, pos));
                if (v & 1)
                    odd |= 1ull << e;
            }
            if (odd != s->terms[r].f[pos])
                return verify_fail_msg(res, "term %d: factor %c: the GF(2) word disagrees with the "
                                       "coefficients mod 2 (internal inconsistency)", r + 1, "abc"[pos]);
        }
    return true;
}

bool verify_z(const scheme *s, verify_result *res)
{
    if (!verify_check_shape(s, res))
        return false;
    if (s->ring == SCHEME_RING_Z && !check_z_consistency(s, res))
        return false;
    scheme_format f = s->fmt;
    size_t na = (size_t)f.n * f.m, nb = (size_t)f.m * f.p, nc = (size_t)f.p * f.n;
    int64_t *acc = calloc(na * nb * nc, sizeof *acc);
    if (!acc)
        return verify_fail_msg(res, "out of memory (%zu equations)", na * nb * nc);
    nz_list la, lb, lc;
    for (int r = 0; r < s->rank; r++) {
        nonzeros(s, r, SCHEME_A, &la);
        nonzeros(s, r, SCHEME_B, &lb);
        nonzeros(s, r, SCHEME_C, &lc);
        for (int x = 0; x < la.n; x++)
            for (int y = 0; y < lb.n; y++) {
                int64_t ab;
                if (__builtin_mul_overflow(la.val[x], lb.val[y], &ab))
                    goto overflow;
                int64_t *row = acc + ((size_t)la.idx[x] * nb + (size_t)lb.idx[y]) * nc;
                for (int z = 0; z < lc.n; z++) {
                    int64_t abc;
                    if (__builtin_mul_overflow(ab, lc.val[z], &abc) ||
                        __builtin_add_overflow(row[lc.idx[z]], abc, &row[lc.idx[z]]))
                        goto overflow;
                }
            }
    }
    for (size_t ea = 0; ea < na; ea++)
        for (size_t eb = 0; eb < nb; eb++)
            for (size_t ec = 0; ec < nc; ec++) {
                int64_t got = acc[(ea * nb + eb) * nc + ec];
                int want = verify_expected(f, (int)ea, (int)eb, (int)ec);
                if (got != want) {
                    free(acc);
                    return verify_fail_equation(res, f, (int)ea, (int)eb, (int)ec, (long long)got, want);
                }
            }
    free(acc);
    return verify_ok(res);
overflow:
    free(acc);
    return verify_fail_msg(res, "integer overflow while summing the terms (coefficients too large)");
}

bool verify_scheme(const scheme *s, scheme_ring ring, verify_result *res)
{
    return ring == SCHEME_RING_Z ? verify_z(s, res) : verify_f2(s, res);
}
