/* libFuzzer target for the scheme readers (schemes/read*.c, detect.c) and,
 * through a round trip, the writers (schemes/write.c).  Built and run by
 * scripts/fuzz.sh; see tests/fuzz/README.md.
 *
 * Each input is read as a whole file, once as is and once with a --dims
 * override picked from its length.  Besides the sanitizers' checks it asserts
 * (abort() = a finding):
 *   - a refusal fills the diagnostic: a line inside the input, column >= 1,
 *     a message;
 *   - an accepted scheme is well formed: valid format, rank 1..SCHEME_MAX_RANK,
 *     no bit outside a factor, no factor zero in its ring, GF(2) words equal to
 *     the parities of the integer coefficients;
 *   - AlphaTensor .npz inputs (a zip) are refused with line 0 and a message;
 *   - every writer that can hold it (.npz too) writes what reads back as the same
 *     scheme (over GF(2) when an integer scheme has only coefficients 0 and 1,
 *     which the published formats cannot mark as integer). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schemes/scheme.h"

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "fuzz_read: check failed at %s:%d: %s\n", __FILE__, __LINE__, \
                    #cond);                                                               \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

static void check_refusal(const uint8_t *data, size_t size, const scheme_diag *d)
{
    int lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    CHECK(d->msg[0] != 0);
    CHECK(memchr(d->msg, 0, sizeof d->msg) != NULL);
    if (scheme_is_npz(data, size)) { /* a zip has no lines: the member and byte are in the message */
        CHECK(d->line == 0);
        return;
    }
    CHECK(d->line >= 1 && d->line <= lines);
    CHECK(d->col >= 1);
}

static void check_scheme(const scheme *s)
{
    CHECK(scheme_format_valid(s->fmt));
    CHECK(s->rank >= 1 && s->rank <= SCHEME_MAX_RANK);
    CHECK((s->ring == SCHEME_RING_Z) == (s->zterms != NULL));
    char err[256];
    /* scheme_writable checks bits in range, nonzero factors and word/coefficient agreement. */
    CHECK(scheme_writable(s, SCHEME_FILE_NATIVE, err, sizeof err));
}

static void round_trip(const scheme *s, scheme_file_kind kind)
{
#if !FLIPGRAPH_HAVE_ZIP
    if (kind == SCHEME_FILE_NPZ)
        return;
#endif
    if (!scheme_writable(s, kind, NULL, 0)) {
        CHECK(kind == SCHEME_FILE_EXP || kind == SCHEME_FILE_TXT);
        CHECK(s->fmt.n > 9 || s->fmt.m > 9 || s->fmt.p > 9);
        return;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f);
    CHECK(scheme_write(s, kind, f));
    fclose(f);
    CHECK(scheme_detect_kind(buf, len) == kind);
    scheme_diag d;
    scheme *back = scheme_read_buffer(buf, len, "written", &s->fmt, &d);
    if (!back) {
        fprintf(stderr, "fuzz_read: %s output refused: %d:%d: %s\n%.*s\n",
                scheme_file_kind_name(kind), d.line, d.col, d.msg, (int)(len > 2000 ? 2000 : len), buf);
        abort();
    }
    if (back->ring == s->ring) {
        CHECK(scheme_equal(back, s));
    } else {
        CHECK(kind != SCHEME_FILE_NATIVE && s->ring == SCHEME_RING_Z);
        scheme *f2 = scheme_to_f2(s);
        CHECK(f2 && scheme_equal(back, f2));
        scheme_free(f2);
    }
    scheme_free(back);
    free(buf);
}

static void one(const uint8_t *data, size_t size, const scheme_format *dims)
{
    scheme_diag d;
    scheme *s = scheme_read_buffer((const char *)data, size, "fuzz", dims, &d);
    if (!s) {
        check_refusal(data, size, &d);
        return;
    }
    check_scheme(s);
    if (dims)
        CHECK(s->fmt.n == dims->n && s->fmt.m == dims->m && s->fmt.p == dims->p);
    static const scheme_file_kind kinds[] = {SCHEME_FILE_NATIVE, SCHEME_FILE_EXP, SCHEME_FILE_TXT,
                                             SCHEME_FILE_M, SCHEME_FILE_NPZ, SCHEME_FILE_JSON};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        round_trip(s, kinds[k]);
    scheme_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const scheme_format dims[] = {{1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {4, 4, 4},
                                         {2, 32, 2}, {5, 5, 5}, {3, 4, 5}, {8, 8, 8}};
    one(data, size, NULL);
    one(data, size, &dims[size % (sizeof dims / sizeof *dims)]);
    return 0;
}
