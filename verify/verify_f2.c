/* The Brent equations over GF(2): a bit-parallel verifier and the plain reference.
 *
 * Bit-parallel: for one pair (a-entry, b-entry) the n*p equations on the third
 * factor's entries are one 64-bit word, so a term contributes by XORing its c
 * word into acc[ea][eb] for every set bit ea of a and eb of b.  A scheme is valid
 * when every acc[ea][eb] equals the word of the product tensor: c[k,i] for
 * ea = (i,j), eb = (j,k), and 0 when the inner indices differ.  Work:
 * sum_r |a_r| |b_r| word XORs plus n*m*m*p compares, against the reference's
 * n*m * m*p * p*n * R bit tests. */
#include <string.h>

#include "verify_internal.h"

/* The c word the product tensor puts at (ea, eb): [j=j'] c[k,i]. */
static inline uint64_t expected_word(scheme_format f, int ea, int eb)
{
    int i = ea / f.m, j = ea % f.m;
    int j2 = eb / f.p, k = eb % f.p;
    return j == j2 ? 1ull << (k * f.n + i) : 0;
}

bool verify_f2(const scheme *s, verify_result *res)
{
    if (!verify_check_shape(s, res))
        return false;
    scheme_format f = s->fmt;
    int na = f.n * f.m, nb = f.m * f.p;
    uint64_t acc[SCHEME_MAX_ENTRIES * SCHEME_MAX_ENTRIES];
    memset(acc, 0, (size_t)na * (size_t)nb * sizeof *acc);
    for (int r = 0; r < s->rank; r++) {
        const scheme_term *t = &s->terms[r];
        uint64_t c = t->f[SCHEME_C];
        for (uint64_t a = t->f[SCHEME_A]; a; a &= a - 1) {
            uint64_t *row = acc + (size_t)__builtin_ctzll(a) * (size_t)nb;
            for (uint64_t b = t->f[SCHEME_B]; b; b &= b - 1)
                row[__builtin_ctzll(b)] ^= c;
        }
    }
    /* Compare with the product tensor without divisions: subtract (XOR) the
     * expected word of each ea = (i,j), eb = (j,k), then OR everything. */
    uint64_t any = 0;
    for (int i = 0; i < f.n; i++)
        for (int j = 0; j < f.m; j++) {
            uint64_t *row = acc + (size_t)(i * f.m + j) * nb;
            for (int k = 0; k < f.p; k++)
                row[j * f.p + k] ^= 1ull << (k * f.n + i);
            for (int eb = 0; eb < nb; eb++)
                any |= row[eb];
        }
    if (any) {
        /* Invalid: the first failing equation in (ea, eb, ec) order. */
        for (int ea = 0; ea < na; ea++)
            for (int eb = 0; eb < nb; eb++) {
                uint64_t diff = acc[(size_t)ea * nb + eb];
                if (diff) {
                    int ec = __builtin_ctzll(diff);
                    int want = (int)((expected_word(f, ea, eb) >> ec) & 1);
                    return verify_fail_equation(res, f, ea, eb, ec, want ^ 1, want);
                }
            }
    }
    return verify_ok(res);
}

bool verify_f2_reference(const scheme *s, verify_result *res)
{
    if (!verify_check_shape(s, res))
        return false;
    scheme_format f = s->fmt;
    int na = f.n * f.m, nb = f.m * f.p, nc = f.p * f.n;
    for (int ea = 0; ea < na; ea++)
        for (int eb = 0; eb < nb; eb++)
            for (int ec = 0; ec < nc; ec++) {
                int sum = 0;
                for (int r = 0; r < s->rank; r++) {
                    const scheme_term *t = &s->terms[r];
                    sum ^= (int)((t->f[SCHEME_A] >> ea) & (t->f[SCHEME_B] >> eb) & (t->f[SCHEME_C] >> ec) & 1);
                }
                int want = verify_expected(f, ea, eb, ec);
                if (sum != want)
                    return verify_fail_equation(res, f, ea, eb, ec, sum, want);
            }
    return verify_ok(res);
}
