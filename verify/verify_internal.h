/* verify/ internals shared by its files: naming equations, bounds checks. */
#ifndef FLIPGRAPH_VERIFY_INTERNAL_H
#define FLIPGRAPH_VERIFY_INTERNAL_H

#include "verify.h"

/* Mask of the entries of a factor of `size` entries (size 1..64). */
static inline uint64_t verify_entry_mask(int size)
{
    return size >= 64 ? ~0ull : (1ull << size) - 1;
}

/* The expected value of equation (ea, eb, ec) of format f: [j=j'][k=k'][i=i']. */
int verify_expected(scheme_format f, int ea, int eb, int ec);

/* Fills res (may be NULL) as valid; returns true. */
bool verify_ok(verify_result *res);

/* Fills res (may be NULL) for the failing equation (ea, eb, ec) and returns
 * false: "a12*b21 -> c11: the third factors sum to 1, expected 0". */
bool verify_fail_equation(verify_result *res, scheme_format f, int ea, int eb, int ec,
                          long long got, long long want);

/* Fills res (may be NULL) with a free-form reason and returns false. */
bool verify_fail_msg(verify_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Checks what every verifier needs before it reads a scheme: a valid format,
 * a rank in range, no bit outside a factor's entries.  false with res filled. */
bool verify_check_shape(const scheme *s, verify_result *res);

/* Writes the name of entry e of the factor at pos as the files do ("a12",
 * "c31"; "a[10,2]" when an index exceeds 9).  Returns buf. */
const char *verify_entry_name(scheme_format f, int pos, int e, char buf[32]);

#endif
