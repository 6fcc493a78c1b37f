/* Tests of AlphaTensor's .npz scheme files (schemes/read_npz.c, write_npz.c;
 * docs/formats.md, "AlphaTensor .npz"): round trips of random schemes through
 * the writer and the reader, AlphaTensor's own published files
 * (data/alphatensor/, CC-BY 4.0, data/README.md) read and verified, the
 * convention checked against a wrong one, every class of malformed input at
 * the library level and through verify, convert and db import, with its exit
 * code, its message and no file left behind.
 *
 * Randomized tests seed from /dev/urandom (or FLIPGRAPH_SEED) and print the
 * seed in every failure message. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "schemes/scheme.h"
#include "test_common.h"
#include "verify/verify.h"

static void setup(void) { tc_suite_dir_make("fg_npz"); }

TestSuite(npz, .init = setup, .fini = tc_suite_dir_remove);

static const char *fixture(const char *name)
{
    static char bufs[4][4096];
    static int k;
    char *b = bufs[k++ % 4];
    const char *src = getenv("FLIPGRAPH_SOURCE");
    snprintf(b, sizeof bufs[0], "%s/data/alphatensor/%s", src && *src ? src : ".", name);
    return b;
}

/* ---------------------------------------------------------------- helpers */

/* A random scheme of a random format (factors of at most 64 entries):
 * over Z with coefficients in -3..3 (one 2 at least, so that it reads back
 * as Z), or over GF(2).  Not a valid scheme: the files do not care. */
static scheme *random_scheme(scheme_rng *rng, scheme_ring ring)
{
    scheme_format f;
    do {
        f.n = 1 + (int)scheme_rng_below(rng, 8);
        f.m = 1 + (int)scheme_rng_below(rng, 8);
        f.p = 1 + (int)scheme_rng_below(rng, 8);
    } while (!scheme_format_valid(f));
    int rank = 1 + (int)scheme_rng_below(rng, 60);
    scheme *s = scheme_new(f, ring, rank);
    cr_assert_not_null(s);
    for (int r = 0; r < rank; r++) {
        scheme_zterm z;
        memset(&z, 0, sizeof z);
        for (int pos = 0; pos < 3; pos++) {
            int size = scheme_factor_size(f, pos);
            bool any = false;
            for (int e = 0; e < size; e++) {
                int v = ring == SCHEME_RING_Z ? (int)scheme_rng_below(rng, 7) - 3 : (int)scheme_rng_below(rng, 2);
                if (ring == SCHEME_RING_F2 || scheme_rng_below(rng, 3) == 0)
                    z.z[pos][e] = (int8_t)v;
                any |= z.z[pos][e] != 0 && (ring == SCHEME_RING_Z || z.z[pos][e] == 1);
            }
            if (!any)
                z.z[pos][scheme_rng_below(rng, (uint32_t)size)] = 1;
        }
        if (ring == SCHEME_RING_Z) {
            if (r == 0)
                z.z[0][0] = 2;
            cr_assert(scheme_push_z(s, &z));
        } else {
            uint64_t w[3] = {0, 0, 0};
            for (int pos = 0; pos < 3; pos++)
                for (int e = 0; e < SCHEME_MAX_ENTRIES; e++)
                    if (z.z[pos][e])
                        w[pos] |= 1ull << e;
            cr_assert(scheme_push(s, w[0], w[1], w[2]));
        }
    }
    return s;
}

/* The bytes of an .npz of count schemes (caller frees). */
static char *npz_bytes(const scheme *const *s, int count, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    cr_assert_not_null(f);
    cr_assert(scheme_write_npz_set(s, count, f), "the writer failed: %s", strerror(errno));
    fclose(f);
    return buf;
}

static void write_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(buf, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* A zip of members (names[k], bufs[k], lens[k]) at path, through libzip. */
static void make_zip(const char *path, int n, const char *const *names, const void *const *bufs,
                     const size_t *lens)
{
    int err;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    cr_assert_not_null(za, "zip_open %s: %d", path, err);
    for (int k = 0; k < n; k++) {
        zip_source_t *s = zip_source_buffer(za, bufs[k], lens[k], 0);
        cr_assert_not_null(s);
        cr_assert_geq(zip_file_add(za, names[k], s, 0), 0, "%s", zip_strerror(za));
    }
    cr_assert_eq(zip_close(za), 0);
}

/* A .npy member: header with descr and shape (a Python tuple), then data. */
static size_t npy_member(unsigned char *out, const char *descr, const char *shape, const void *data,
                         size_t dlen)
{
    char dict[200];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
    size_t total = (10 + (size_t)n + 1 + 63) / 64 * 64, hlen = total - 10;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (unsigned char)(hlen & 0xff);
    out[9] = (unsigned char)(hlen >> 8);
    memcpy(out + 10, dict, (size_t)n);
    memset(out + 10 + n, ' ', hlen - (size_t)n - 1);
    out[total - 1] = '\n';
    if (dlen)
        memcpy(out + total, data, dlen);
    return total + dlen;
}

/* Reads a one-member zip (name, bytes) and expects a refusal whose message
 * holds want. */
static void expect_refused(const char *name, const void *buf, size_t len, const char *want)
{
    const char *path = tc_path_in("bad.npz");
    const char *names[1] = {name};
    const void *bufs[1] = {buf};
    size_t lens[1] = {len};
    make_zip(path, 1, names, bufs, lens);
    scheme_diag d;
    memset(&d, 0, sizeof d);
    scheme_npz *z = scheme_npz_read_file(path, &d);
    cr_assert_null(z, "%s accepted (want '%s')", name, want);
    cr_assert_str_eq(d.file, path);
    cr_assert(strstr(d.msg, want), "message '%s' lacks '%s'", d.msg, want);
    char member[200];
    snprintf(member, sizeof member, "member '%s'", name);
    cr_assert(strstr(d.msg, member), "message '%s' does not name the member %s", d.msg, name);
}

/* --------------------------------------------------------------- round trips */

Test(npz, random_schemes_round_trip_through_writer_and_reader)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int round = 0; round < 40; round++) {
        /* A set of distinct formats, both rings, square and rectangular. */
        scheme *s[6];
        int count = 1 + (int)scheme_rng_below(&rng, 6);
        for (int k = 0; k < count; k++) {
            bool clash;
            do {
                s[k] = random_scheme(&rng, scheme_rng_below(&rng, 2) ? SCHEME_RING_Z : SCHEME_RING_F2);
                if (round == 0 && k == 0) { /* one square format at least */
                    scheme_free(s[k]);
                    s[k] = scheme_standard((scheme_format){3, 3, 3});
                }
                clash = false;
                for (int j = 0; j < k; j++)
                    clash |= s[j]->fmt.n == s[k]->fmt.n && s[j]->fmt.m == s[k]->fmt.m && s[j]->fmt.p == s[k]->fmt.p;
                if (clash)
                    scheme_free(s[k]);
            } while (clash);
        }
        size_t len;
        char *buf = npz_bytes((const scheme *const *)s, count, &len);
        scheme_diag d;
        scheme_npz *z = scheme_npz_read_buffer(buf, len, "rt.npz", &d);
        cr_assert_not_null(z, "seed %#llx round %d: %s", (unsigned long long)seed, round, d.msg);
        cr_assert_eq(z->count, count, "seed %#llx", (unsigned long long)seed);
        for (int k = 0; k < count; k++) {
            char key[64], fb[32];
            snprintf(key, sizeof key, "%d,%d,%d", s[k]->fmt.n, s[k]->fmt.m, s[k]->fmt.p);
            cr_assert_str_eq(z->e[k].key, key);
            cr_assert_not_null(z->e[k].s, "seed %#llx: %s skipped: %s", (unsigned long long)seed, key,
                               z->e[k].skipped);
            cr_assert_eq(z->e[k].s->ring, s[k]->ring, "seed %#llx %s", (unsigned long long)seed, key);
            cr_assert(scheme_equal(z->e[k].s, s[k]), "seed %#llx round %d: %s differs after the round trip",
                      (unsigned long long)seed, round, scheme_format_str(s[k]->fmt, fb));
            /* One member through the single-scheme reader, chosen by --dims. */
            scheme *one = scheme_read_buffer(buf, len, "rt.npz", &s[k]->fmt, &d);
            cr_assert_not_null(one, "%s", d.msg);
            cr_assert(scheme_equal(one, s[k]));
            scheme_free(one);
        }
        scheme_npz_free(z);
        free(buf);
        for (int k = 0; k < count; k++)
            scheme_free(s[k]);
    }
}

Test(npz, writer_refuses_two_schemes_of_one_format)
{
    scheme *a = scheme_standard((scheme_format){2, 2, 2}), *b = scheme_standard((scheme_format){2, 2, 2});
    const scheme *s[2] = {a, b};
    FILE *f = tmpfile();
    errno = 0;
    cr_assert_not(scheme_write_npz_set(s, 2, f));
    cr_assert_eq(errno, EINVAL);
    fclose(f);
    scheme_free(a);
    scheme_free(b);
}

/* ------------------------------------------------ AlphaTensor's own files */

Test(npz, alphatensor_f2_file_reads_and_every_scheme_verifies)
{
    scheme_diag d;
    scheme_npz *z = scheme_npz_read_file(fixture("factorizations_f2.npz"), &d);
    cr_assert_not_null(z, "%s: %s", d.file, d.msg);
    cr_assert_eq(z->count, 20);
    bool saw444 = false;
    for (int k = 0; k < z->count; k++) {
        const scheme_npz_entry *e = &z->e[k];
        cr_assert_not_null(e->s, "%s skipped: %s", e->key, e->skipped);
        cr_assert_eq(e->s->ring, SCHEME_RING_F2, "%s", e->key);
        verify_result res;
        cr_assert(verify_scheme(e->s, SCHEME_RING_F2, &res), "%s: %s", e->key, res.msg);
        if (!strcmp(e->key, "4,4,4")) {
            saw444 = true;
            cr_assert_eq(e->s->rank, 47); /* AlphaTensor's <4,4,4>:47 over GF(2) */
        }
    }
    cr_assert(saw444);
    scheme_npz_free(z);
}

Test(npz, alphatensor_r_subset_reads_verifies_over_z_and_skips_what_we_cannot_hold)
{
    scheme_diag d;
    scheme_npz *z = scheme_npz_read_file(fixture("factorizations_r_subset.npz"), &d);
    cr_assert_not_null(z, "%s", d.msg);
    cr_assert_eq(z->count, 7);
    int valid = 0;
    for (int k = 0; k < z->count; k++) {
        const scheme_npz_entry *e = &z->e[k];
        if (!strcmp(e->key, "3,4,11")) { /* coefficients 0.5: over Q only */
            cr_assert_null(e->s);
            cr_assert(strstr(e->skipped, "fractions"), "%s", e->skipped);
            continue;
        }
        if (!strcmp(e->key, "4,9,10")) { /* a factor of 90 entries */
            cr_assert_null(e->s);
            cr_assert(strstr(e->skipped, "at most 64"), "%s", e->skipped);
            continue;
        }
        cr_assert_not_null(e->s, "%s: %s", e->key, e->skipped);
        cr_assert_eq(e->s->ring, SCHEME_RING_Z, "%s", e->key);
        verify_result res;
        cr_assert(verify_scheme(e->s, SCHEME_RING_Z, &res), "%s over Z: %s", e->key, res.msg);
        if (!strcmp(e->key, "3,3,3"))
            cr_assert_eq(e->s->rank, 23);
        if (!strcmp(e->key, "4,4,4"))
            cr_assert_eq(e->s->rank, 49);
        valid++;
    }
    cr_assert_eq(valid, 5);
    scheme_npz_free(z);
}

/* The factor w is indexed k*N+i (the transposed product, our c); reading it
 * as i*P+k instead (the product's own layout) breaks every rectangular
 * scheme: the convention is not a guess that happens to pass. */
Test(npz, the_other_reading_of_the_third_factor_does_not_verify)
{
    scheme_format f = {3, 4, 5};
    scheme *s = scheme_read_file(fixture("factorizations_r_subset.npz"), &f, NULL);
    cr_assert_not_null(s);
    verify_result res;
    cr_assert(verify_scheme(s, SCHEME_RING_Z, &res), "%s", res.msg);
    scheme *t = scheme_new(f, SCHEME_RING_Z, s->rank);
    for (int r = 0; r < s->rank; r++) {
        scheme_zterm z = s->zterms[r];
        memset(z.z[2], 0, sizeof z.z[2]);
        /* entry k*n+i of ours read as if it were i*p+k */
        for (int i = 0; i < f.n; i++)
            for (int k = 0; k < f.p; k++)
                z.z[2][i * f.p + k] = s->zterms[r].z[2][k * f.n + i];
        cr_assert(scheme_push_z(t, &z));
    }
    cr_assert_not(verify_scheme(t, SCHEME_RING_Z, &res));
    scheme_free(t);
    scheme_free(s);
}

/* ------------------------------------------------------- malformed input */

Test(npz, every_malformed_member_is_refused_naming_file_and_member)
{
    unsigned char m[4096];
    int64_t ones[3 * 4 * 7];
    for (int k = 0; k < 3 * 4 * 7; k++)
        ones[k] = 1;
    /* Not a .npy name, a name that is not a format. */
    size_t n = npy_member(m, "<i8", "(3, 4, 7)", ones, sizeof ones);
    expect_refused("readme.txt", m, n, "expected a .npy array named N,M,P.npy");
    expect_refused("strassen.npy", m, n, "named N,M,P.npy");
    expect_refused("2,2,0.npy", m, n, "N, M, P positive");
    /* A member that is not .npy at all. */
    expect_refused("2,2,2.npy", "hello", 5, "not a NumPy .npy file");
    /* Wrong shapes. */
    expect_refused("2,2,2.npy", m, npy_member(m, "<i8", "(3, 4, 7)", ones, sizeof ones - 8), "bytes of entries");
    n = npy_member(m, "<i8", "(4, 3, 7)", ones, sizeof ones);
    expect_refused("2,2,2.npy", m, n, "expected (3, 4, R) for <2,2,2>");
    n = npy_member(m, "<i8", "(3, 4, 7)", ones, sizeof ones);
    expect_refused("2,2,3.npy", m, n, "different sizes come as an object array");
    n = npy_member(m, "<i8", "(3, 4, 0)", NULL, 0);
    expect_refused("2,2,2.npy", m, n, "at least 1 term");
    /* A shape whose bytes wrap 64 bits to the 0 present: 3 x 2^38 x 2^23
     * entries of 8 bytes is 3 * 2^64 (read past the buffer before the fix). */
    n = npy_member(m, "<i8", "(3, 274877906944, 8388608)", NULL, 0);
    expect_refused("524288,524288,524288.npy", m, n, "bytes of entries");
    /* Bad dtypes. */
    n = npy_member(m, "<c16", "(3, 4, 7)", ones, sizeof ones);
    expect_refused("2,2,2.npy", m, n, "dtype '<c16', expected integers");
    n = npy_member(m, ">i8", "(3, 4, 7)", ones, sizeof ones);
    expect_refused("2,2,2.npy", m, n, "big-endian");
    n = npy_member(m, "|S8", "(3, 4, 7)", ones, sizeof ones);
    expect_refused("2,2,2.npy", m, n, "dtype '|S8'");
    double nan[3 * 4 * 7];
    for (int k = 0; k < 3 * 4 * 7; k++)
        nan[k] = 1;
    nan[5] = 0.0 / 0.0;
    n = npy_member(m, "<f8", "(3, 4, 7)", nan, sizeof nan);
    expect_refused("2,2,2.npy", m, n, "expected a finite number");
    /* A zero factor. */
    int64_t zero[3 * 4 * 7];
    memcpy(zero, ones, sizeof zero);
    for (int e = 0; e < 4; e++)
        zero[(1 * 4 + e) * 7 + 3] = 0;
    n = npy_member(m, "<i8", "(3, 4, 7)", zero, sizeof zero);
    expect_refused("2,2,2.npy", m, n, "column 3 (a term): factor v is zero");
}

/* The pickles of object arrays: anything but NumPy's arrays is refused, and
 * nothing is run. */
Test(npz, pickles_other_than_numpy_arrays_are_refused)
{
    unsigned char m[4096];
    static const char evil[] = "\x80\x03" "cposix\nsystem\n" "X\x04\x00\x00\x00true\x85R.";
    size_t n = npy_member(m, "|O", "(3,)", evil, sizeof evil - 1);
    expect_refused("2,2,3.npy", m, n, "only NumPy's arrays are read");
    static const char trunc[] = "\x80\x03" "cnumpy\nndarray\n" "X\xff\x00\x00\x00" "ab";
    n = npy_member(m, "|O", "(3,)", trunc, sizeof trunc - 1);
    expect_refused("2,2,3.npy", m, n, "a string of 255 bytes where 2 remain");
    static const char op[] = "\x80\x03" "}.";
    n = npy_member(m, "|O", "(3,)", op, sizeof op - 1);
    expect_refused("2,2,3.npy", m, n, "opcode 0x7d");
    static const char notarr[] = "\x80\x03" "K\x05.";
    n = npy_member(m, "|O", "(3,)", notarr, sizeof notarr - 1);
    expect_refused("2,2,3.npy", m, n, "expected a pickled numpy.ndarray");
    n = npy_member(m, "|O", "(2, 3)", notarr, sizeof notarr - 1);
    expect_refused("2,2,3.npy", m, n, "expected shape (3,)");

    /* A real object array of three factors whose shapes do not fit the key:
     * the writer's <2,2,3> member, renamed <2,3,2>. */
    scheme *s = scheme_standard((scheme_format){2, 2, 3});
    size_t len;
    char *buf = npz_bytes((const scheme *const *)&s, 1, &len);
    scheme_npz *z = scheme_npz_read_buffer(buf, len, "x", NULL);
    cr_assert_not_null(z);
    scheme_npz_free(z);
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(buf, len, 0, &ze);
    zip_t *za = zip_open_from_source(src, ZIP_RDONLY, &ze);
    cr_assert_not_null(za);
    zip_stat_t st;
    cr_assert_eq(zip_stat_index(za, 0, 0, &st), 0);
    unsigned char *member = malloc(st.size);
    zip_file_t *zf = zip_fopen_index(za, 0, 0);
    cr_assert_eq(zip_fread(zf, member, st.size), (zip_int64_t)st.size);
    zip_fclose(zf);
    zip_discard(za);
    zip_error_fini(&ze);
    expect_refused("2,3,2.npy", member, st.size, "factor u: shape (4, 12), expected (6, R) for <2,3,2>");
    /* The inner dtype made big-endian: '<' -> '>' in the pickle's dtype state. */
    for (size_t k = 0; k + 6 < st.size; k++)
        if (!memcmp(member + k, "X\x01\x00\x00\x00<", 6))
            member[k + 5] = '>';
    expect_refused("2,2,3.npy", member, st.size, "factor u: dtype '>i8' is big-endian");
    free(member);
    free(buf);
    scheme_free(s);
}

Test(npz, archives_that_are_not_zips_or_hold_nothing_are_refused)
{
    scheme_diag d;
    const char *path = tc_path_in("broken.npz");
    write_file(path, "PK\x03\x04garbage that is no zip at all", 34);
    cr_assert_null(scheme_npz_read_file(path, &d));
    cr_assert(strstr(d.msg, "not a readable zip archive"), "%s", d.msg);
    cr_assert_null(scheme_read_file(path, NULL, &d));
    cr_assert(strstr(d.msg, "not a readable zip archive"), "%s", d.msg);
    write_file(path, "(a11)*(b11)*(c11)\n", 18);
    cr_assert_null(scheme_npz_read_file(path, &d));
    cr_assert(strstr(d.msg, "not a zip archive"), "%s", d.msg);
    /* An empty zip: end of central directory only. */
    static const unsigned char empty[22] = {'P', 'K', 5, 6};
    write_file(path, empty, sizeof empty);
    cr_assert_null(scheme_npz_read_file(path, &d));
    cr_assert(strstr(d.msg, "empty zip archive"), "%s", d.msg);
    /* A member whose bytes were damaged after compression (the CRC). */
    scheme *s = scheme_standard((scheme_format){2, 2, 2});
    size_t len;
    char *buf = npz_bytes((const scheme *const *)&s, 1, &len);
    buf[60] ^= 0x55;
    cr_assert_null(scheme_npz_read_buffer(buf, len, "crc.npz", &d));
    cr_assert_str_eq(d.file, "crc.npz");
    free(buf);
    scheme_free(s);
}

Test(npz, two_members_of_one_format_are_refused)
{
    unsigned char a[2048];
    int64_t ones[3 * 4 * 7];
    for (int k = 0; k < 3 * 4 * 7; k++)
        ones[k] = 1;
    size_t n = npy_member(a, "<i8", "(3, 4, 7)", ones, sizeof ones);
    const char *names[2] = {"2,2,2.npy", "dir/2,2,2.npy"};
    const void *bufs[2] = {a, a};
    size_t lens[2] = {n, n};
    make_zip(tc_path_in("dup.npz"), 2, names, bufs, lens);
    scheme_diag d;
    cr_assert_null(scheme_npz_read_file(tc_path_in("dup.npz"), &d));
    cr_assert(strstr(d.msg, "N,M,P.npy"), "%s", d.msg); /* "dir/2,2,2" is no format */
    names[1] = "2,2,2.npy";
    make_zip(tc_path_in("dup.npz"), 1, names, bufs, lens);
    /* libzip refuses two members of one name itself; a second key of one
     * format comes from another spelling: */
    names[1] = "02,2,2.npy";
    make_zip(tc_path_in("dup.npz"), 2, names, bufs, lens);
    cr_assert_null(scheme_npz_read_file(tc_path_in("dup.npz"), &d));
    cr_assert(strstr(d.msg, "a second member of format <2,2,2>"), "%s", d.msg);
}

/* ----------------------------------------------------------- the commands */

Test(npz, verify_prints_one_line_per_scheme_and_exits_by_the_worst)
{
    char out[1 << 16];
    int rc = tc_run_cli("", out, sizeof out, "verify '%s'", fixture("factorizations_f2.npz"));
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_eq(tc_count_of(out, ": valid"), 20, "%s", out);
    cr_assert(strstr(out, "factorizations_f2.npz[4,4,4]: <4,4,4> rank 47 over GF(2): valid"), "%s", out);
    /* The R subset: five valid over Z, two SKIPPED (exit 2: not all verified). */
    rc = tc_run_cli("", out, sizeof out, "verify --ring z '%s'", fixture("factorizations_r_subset.npz"));
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert_eq(tc_count_of(out, "over Z: valid"), 5, "%s", out);
    cr_assert_eq(tc_count_of(out, "SKIPPED"), 2, "%s", out);
    /* --dims picks one. */
    rc = tc_run_cli("", out, sizeof out, "verify --ring z --dims 3x3x3 '%s'", fixture("factorizations_r_subset.npz"));
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "<3,3,3> rank 23 over Z: valid"), "%s", out);
    rc = tc_run_cli("", out, sizeof out, "verify --dims 3x4x11 '%s'", fixture("factorizations_r_subset.npz"));
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "member '3,4,11.npy'") && strstr(out, "fractions"), "%s", out);
    rc = tc_run_cli("", out, sizeof out, "verify --dims 5x5x5 '%s'", fixture("factorizations_r_subset.npz"));
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "no member 5,5,5.npy"), "%s", out);
    /* An invalid scheme in an .npz: exit 1. */
    scheme *s = scheme_standard((scheme_format){2, 3, 4});
    scheme_remove(s, 5);
    size_t len;
    char *buf = npz_bytes((const scheme *const *)&s, 1, &len);
    write_file(tc_path_in("bad234.npz"), buf, len);
    rc = tc_run_cli("", out, sizeof out, "verify '%s'", tc_path_in("bad234.npz"));
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "bad234.npz[2,3,4]: INVALID"), "%s", out);
    /* A malformed one: exit 2, file and member named. */
    write_file(tc_path_in("broken.npz"), "PK\x03\x04not a zip", 14);
    rc = tc_run_cli("", out, sizeof out, "verify '%s'", tc_path_in("broken.npz"));
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "broken.npz: not a readable zip archive"), "%s", out);
    free(buf);
    scheme_free(s);
}

Test(npz, convert_picks_a_member_and_writes_npz_whole_or_not_at_all)
{
    char out[1 << 16];
    const char *exp = tc_path_in("444.exp"), *back = tc_path_in("444.npz");
    int rc = tc_run_cli("", out, sizeof out, "convert --to exp --dims 4x4x4 '%s' -o '%s'",
                        fixture("factorizations_f2.npz"), exp);
    cr_assert_eq(rc, 0, "%s", out);
    rc = tc_run_cli("", out, sizeof out, "verify '%s'", exp);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "<4,4,4> rank 47 over GF(2): valid"), "%s", out);
    /* .exp -> .npz -> native gives the same scheme. */
    rc = tc_run_cli("", out, sizeof out, "convert --to npz '%s' -o '%s'", exp, back);
    cr_assert_eq(rc, 0, "%s", out);
    scheme *a = scheme_read_file(exp, NULL, NULL), *b = scheme_read_file(back, NULL, NULL);
    cr_assert_not_null(a);
    cr_assert_not_null(b);
    cr_assert(scheme_equal(a, b));
    scheme_free(a);
    scheme_free(b);
    /* Without --dims, a file of many schemes names its keys. */
    const char *none = tc_path_in("none.exp");
    rc = tc_run_cli("", out, sizeof out, "convert --to exp '%s' -o '%s'", fixture("factorizations_f2.npz"), none);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "an .npz of 20 schemes: choose one with --dims NxMxP (its keys: 2,2,2 2,2,3"), "%s", out);
    cr_assert_not(tc_exists(none));
    /* A malformed member: exit 2, nothing written, the old file kept. */
    unsigned char m[256];
    size_t n = npy_member(m, "<c8", "(3, 1, 1)", "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 24);
    const char *names[1] = {"1,1,1.npy"};
    const void *bufs[1] = {m};
    size_t lens[1] = {n};
    make_zip(tc_path_in("c8.npz"), 1, names, bufs, lens);
    write_file(none, "old\n", 4);
    rc = tc_run_cli("", out, sizeof out, "convert --to native '%s' -o '%s'", tc_path_in("c8.npz"), none);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "c8.npz: member '1,1,1.npy': dtype '<c8', expected integers"), "%s", out);
    size_t l;
    char *old = tc_slurp(none, 100, &l);
    cr_assert_str_eq(old, "old\n");
    free(old);
    /* From standard input. */
    rc = tc_run_cli("", out, sizeof out, "convert --to exp --dims 2x2x2 - < '%s'", fixture("factorizations_f2.npz"));
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_eq(tc_count_of(out, "\n"), 7, "%s", out);
}

Test(npz, db_import_stores_every_scheme_of_an_npz)
{
    char out[1 << 16];
    const char *db = tc_path_in("at.db");
    int rc = tc_run_cli("", out, sizeof out, "db import '%s' --db '%s'", fixture("factorizations_f2.npz"), db);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "20 stored, 0 already there, 0 refused, 0 unreadable"), "%s", out);
    cr_assert(strstr(out, "factorizations_f2.npz[4,4,4]"), "%s", out);
    cr_assert_eq(tc_sql_int(db, "SELECT count(*) FROM schemes"), 20);
    /* The R subset: five Z schemes (and their reductions mod 2), two unreadable. */
    rc = tc_run_cli("", out, sizeof out, "db import '%s' --db '%s'", fixture("factorizations_r_subset.npz"), db);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "5 stored, 0 already there, 0 refused, 2 unreadable"), "%s", out);
    cr_assert(strstr(out, "factorizations_r_subset.npz[3,4,11]: beyond flipgraph's limits"), "%s", out);
    /* Again: all there already. */
    rc = tc_run_cli("", out, sizeof out, "db import '%s' --db '%s'", fixture("factorizations_f2.npz"), db);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "0 stored, 20 already there"), "%s", out);
    /* --dims imports one. */
    const char *db2 = tc_path_in("one.db");
    rc = tc_run_cli("", out, sizeof out, "db import --dims 3x3x3 '%s' --db '%s'", fixture("factorizations_r_subset.npz"), db2);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "1 stored"), "%s", out);
    /* A malformed .npz: unreadable, exit 2. */
    write_file(tc_path_in("broken.npz"), "PK\x03\x04not a zip", 14);
    rc = tc_run_cli("", out, sizeof out, "db import '%s' --db '%s'", tc_path_in("broken.npz"), db2);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "broken.npz: not a readable zip archive"), "%s", out);
}

/* Random damage to the pickle of an object-array member (re-zipped, so that
 * the CRC holds and the pickle itself is read): every outcome is a refusal
 * that names the member, or a well-formed scheme; never a crash (the
 * sanitized pass runs this too). */
Test(npz, damaged_pickles_are_refused_or_read_never_crash)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    scheme *s = scheme_standard((scheme_format){2, 3, 4});
    size_t len;
    char *buf = npz_bytes((const scheme *const *)&s, 1, &len);
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(buf, len, 0, &ze);
    zip_t *za = zip_open_from_source(src, ZIP_RDONLY, &ze);
    cr_assert_not_null(za);
    zip_stat_t st;
    cr_assert_eq(zip_stat_index(za, 0, 0, &st), 0);
    unsigned char *orig = malloc(st.size), *m = malloc(st.size + 8);
    zip_file_t *zf = zip_fopen_index(za, 0, 0);
    cr_assert_eq(zip_fread(zf, orig, st.size), (zip_int64_t)st.size);
    zip_fclose(zf);
    zip_discard(za);
    zip_error_fini(&ze);
    const size_t header = 128; /* the .npy header the writer wrote: 2 x 64 bytes */
    cr_assert(!memcmp(orig + header, "\x80\x03", 2));
    int rounds = tc_sanitized() ? 150 : 400, refused = 0;
    for (int round = 0; round < rounds; round++) {
        memcpy(m, orig, st.size);
        size_t n = st.size;
        int flips = 1 + (int)scheme_rng_below(&rng, 3);
        for (int k = 0; k < flips; k++) {
            size_t at = header + scheme_rng_below(&rng, (uint32_t)(st.size - header));
            m[at] = (unsigned char)scheme_rng_next(&rng);
        }
        if (scheme_rng_below(&rng, 4) == 0) /* sometimes cut short too */
            n = header + scheme_rng_below(&rng, (uint32_t)(st.size - header));
        const char *names[1] = {"2,3,4.npy"};
        const void *bufs[1] = {m};
        size_t lens[1] = {n};
        make_zip(tc_path_in("dmg.npz"), 1, names, bufs, lens);
        scheme_diag d;
        memset(&d, 0, sizeof d);
        scheme_npz *z = scheme_npz_read_file(tc_path_in("dmg.npz"), &d);
        if (!z) {
            refused++;
            cr_assert(strstr(d.msg, "member '2,3,4.npy'"), "seed %#llx round %d: '%s'",
                      (unsigned long long)seed, round, d.msg);
            continue;
        }
        cr_assert_eq(z->count, 1);
        if (z->e[0].s) {
            char err[300];
            cr_assert(scheme_writable(z->e[0].s, SCHEME_FILE_NATIVE, err, sizeof err),
                      "seed %#llx round %d: %s", (unsigned long long)seed, round, err);
        }
        scheme_npz_free(z);
    }
    cr_assert_gt(refused, 0, "seed %#llx: no damage was ever refused", (unsigned long long)seed);
    free(orig);
    free(m);
    free(buf);
    scheme_free(s);
}
