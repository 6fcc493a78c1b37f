/* Naming a Brent equation in the files' own terms, shared by every verifier.
 *
 * Equation (ea, eb, ec) of <n,m,p> is  sum_r a_r[i,j] b_r[j',k] c_r[k',i'] =
 * [j=j'][k=k'][i=i']  with ea = i*m+j, eb = j'*p+k, ec = k'*n+i'.  The files
 * write the third factor's entry c[k',i'] as c{k'+1}{i'+1}: first the column of
 * the product, then its row (data/corpus/CONVENTIONS.md). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "verify_internal.h"

int verify_expected(scheme_format f, int ea, int eb, int ec)
{
    int i = ea / f.m, j = ea % f.m;
    int j2 = eb / f.p, k = eb % f.p;
    int k2 = ec / f.n, i2 = ec % f.n;
    return j == j2 && k == k2 && i == i2;
}

const char *verify_entry_name(scheme_format f, int pos, int e, char buf[32])
{
    static const char letter[3] = {'a', 'b', 'c'};
    int cols = scheme_factor_cols(f, pos);
    int row = e / cols + 1, col = e % cols + 1;
    if (row <= 9 && col <= 9)
        snprintf(buf, 32, "%c%d%d", letter[pos], row, col);
    else
        snprintf(buf, 32, "%c[%d,%d]", letter[pos], row, col);
    return buf;
}

bool verify_ok(verify_result *res)
{
    if (res) {
        memset(res, 0, sizeof *res);
        res->valid = true;
        snprintf(res->msg, sizeof res->msg, "valid");
    }
    return true;
}

bool verify_fail_equation(verify_result *res, scheme_format f, int ea, int eb, int ec,
                          long long got, long long want)
{
    if (!res)
        return false;
    memset(res, 0, sizeof *res);
    res->valid = false;
    res->ai = ea / f.m + 1;
    res->aj = ea % f.m + 1;
    res->bj = eb / f.p + 1;
    res->bk = eb % f.p + 1;
    res->ck = ec / f.n + 1;
    res->ci = ec % f.n + 1;
    res->got = got;
    res->want = want;
    char na[32], nb[32], nc[32];
    snprintf(res->msg, sizeof res->msg, "%s*%s -> %s: the third factors sum to %lld, expected %lld",
             verify_entry_name(f, SCHEME_A, ea, na), verify_entry_name(f, SCHEME_B, eb, nb),
             verify_entry_name(f, SCHEME_C, ec, nc), got, want);
    return false;
}

bool verify_fail_msg(verify_result *res, const char *fmt, ...)
{
    if (!res)
        return false;
    memset(res, 0, sizeof *res);
    res->valid = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->msg, sizeof res->msg, fmt, ap);
    va_end(ap);
    return false;
}

bool verify_check_shape(const scheme *s, verify_result *res)
{
    char fb[32];
    if (!s)
        return verify_fail_msg(res, "no scheme");
    if (!scheme_format_valid(s->fmt))
        return verify_fail_msg(res, "format %s is not supported (n*m, m*p, p*n must be 1..64)",
                               scheme_format_str(s->fmt, fb));
    if (s->rank < 0 || s->rank > s->cap || (s->rank > 0 && !s->terms))
        return verify_fail_msg(res, "rank %d is out of range", s->rank);
    if (s->ring == SCHEME_RING_Z && s->rank > 0 && !s->zterms)
        return verify_fail_msg(res, "integer scheme without coefficients");
    for (int pos = 0; pos < 3; pos++) {
        uint64_t outside = ~verify_entry_mask(scheme_factor_size(s->fmt, pos));
        for (int r = 0; r < s->rank; r++)
            if (s->terms[r].f[pos] & outside)
                return verify_fail_msg(res, "term %d: factor %c has an entry outside its %dx%d matrix",
                                       r + 1, "abc"[pos], scheme_factor_rows(s->fmt, pos),
                                       scheme_factor_cols(s->fmt, pos));
    }
    return true;
}
