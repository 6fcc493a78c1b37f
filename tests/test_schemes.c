/* Tests of the scheme model (schemes/): formats, the standard algorithm, the
 * canonical form and hash, every reader and writer on every corpus file
 * (data/corpus, cited per folder in CORPUS below), malformed inputs at
 * the library level and through `flipgraph convert`.
 *
 * Randomized tests seed from /dev/urandom (or FLIPGRAPH_SEED) and print the
 * seed in every failure message so that a failure can be replayed. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "schemes/scheme.h"
#include "test_common.h"

/* ---------------------------------------------------------------- helpers */

static scheme *read_text(const char *text, const scheme_format *dims, scheme_diag *d)
{
    return scheme_read_buffer(text, strlen(text), "t", dims, d);
}

/* Everything a writer produces, in a malloc'd NUL-terminated buffer. */
static char *write_to_string(const scheme *s, scheme_file_kind kind, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    cr_assert_not_null(f);
    bool ok = scheme_write(s, kind, f);
    fclose(f);
    cr_assert(ok, "writing %s failed", scheme_file_kind_name(kind));
    if (len)
        *len = n;
    return buf;
}

/* The Brent equations, straight from the definition: an oracle for the
 * readers (a reader that mixes up an index order yields an invalid scheme).
 * over_z: the integer coefficients; else the GF(2) words. */
static bool brent_holds(const scheme *s, bool over_z)
{
    scheme_format f = s->fmt;
    int na = f.n * f.m, nb = f.m * f.p, nc = f.p * f.n;
    long long *t = calloc((size_t)na * nb * nc, sizeof *t);
    cr_assert_not_null(t);
    for (int r = 0; r < s->rank; r++) {
        int v[3][64];
        for (int pos = 0; pos < 3; pos++)
            for (int e = 0; e < 64; e++)
                v[pos][e] = over_z ? s->zterms[r].z[pos][e] : (int)((s->terms[r].f[pos] >> e) & 1);
        for (int a = 0; a < na; a++)
            if (v[0][a])
                for (int b = 0; b < nb; b++)
                    if (v[1][b])
                        for (int c = 0; c < nc; c++)
                            if (v[2][c])
                                t[((size_t)a * nb + b) * nc + c] += (long long)v[0][a] * v[1][b] * v[2][c];
    }
    bool ok = true;
    for (int i = 0; i < f.n && ok; i++)
        for (int j = 0; j < f.m && ok; j++)
            for (int j2 = 0; j2 < f.m && ok; j2++)
                for (int k = 0; k < f.p && ok; k++)
                    for (int k2 = 0; k2 < f.p && ok; k2++)
                        for (int i2 = 0; i2 < f.n && ok; i2++) {
                            long long got = t[((size_t)(i * f.m + j) * nb + (j2 * f.p + k)) * nc +
                                              (k2 * f.n + i2)];
                            long long want = j == j2 && k == k2 && i == i2;
                            ok = over_z ? got == want : ((got & 1) == want);
                        }
    free(t);
    return ok;
}

/* ----------------------------------------------------- formats and model */

Test(schemes, standard_algorithm_has_nmp_terms)
{
    scheme_format f = {2, 3, 4};
    scheme *s = scheme_standard(f);
    cr_assert_not_null(s);
    cr_assert_eq(s->rank, 24);
    scheme_free(s);
}

Test(schemes, format_parse_accepts_and_refuses)
{
    scheme_format f;
    char err[256];
    cr_assert(scheme_format_parse("4x4x4", &f, err, sizeof err));
    cr_assert(f.n == 4 && f.m == 4 && f.p == 4);
    cr_assert(scheme_format_parse("2X32x2", &f, err, sizeof err));
    cr_assert(f.n == 2 && f.m == 32 && f.p == 2);
    cr_assert(scheme_format_parse("1,64,1", &f, err, sizeof err));
    cr_assert(f.m == 64);
    static const char *bad[] = {"", "4", "4x4", "4x4x", "x4x4", "0x4x4", "4x4x65", "9x9x9",
                                "2x33x2", "4x4x4x", "4x4x4 ", "-1x4x4", "4y4y4", "a", "4x4x4junk"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        cr_assert_not(scheme_format_parse(bad[i], &f, err, sizeof err), "'%s' accepted", bad[i]);
        cr_assert(err[0], "no message for '%s'", bad[i]);
    }
    char buf[32];
    cr_assert_str_eq(scheme_format_str((scheme_format){3, 4, 5}, buf), "<3,4,5>");
}

Test(schemes, format_validity_is_the_64_entry_limit)
{
    int valid = 0;
    for (int n = 1; n <= 65; n++)
        for (int m = 1; m <= 65; m++)
            for (int p = 1; p <= 65; p++) {
                scheme_format f = {n, m, p};
                bool want = n * m <= 64 && m * p <= 64 && p * n <= 64;
                cr_assert_eq(scheme_format_valid(f), want, "<%d,%d,%d>", n, m, p);
                if (want) {
                    valid++;
                    for (int pos = 0; pos < 3; pos++)
                        cr_assert_eq(scheme_factor_size(f, pos),
                                     scheme_factor_rows(f, pos) * scheme_factor_cols(f, pos));
                }
            }
    cr_assert_gt(valid, 0);
}

Test(schemes, standard_algorithm_is_valid_and_well_formed)
{
    /* Every format with all dimensions <= 6, and the extreme shapes. */
    scheme_format extra[] = {{1, 64, 1}, {64, 1, 1}, {1, 1, 64}, {2, 32, 2}, {8, 8, 8}, {4, 16, 4}};
    for (int k = 0; k < 6 * 6 * 6 + 6; k++) {
        scheme_format f = k < 216 ? (scheme_format){k / 36 + 1, k / 6 % 6 + 1, k % 6 + 1} : extra[k - 216];
        scheme *s = scheme_standard(f);
        cr_assert_not_null(s);
        cr_assert_eq(s->rank, f.n * f.m * f.p);
        cr_assert_eq(s->ring, SCHEME_RING_F2);
        for (int r = 0; r < s->rank; r++)
            for (int pos = 0; pos < 3; pos++) {
                cr_assert_eq(__builtin_popcountll(s->terms[r].f[pos]), 1);
                int size = scheme_factor_size(f, pos);
                cr_assert(size == 64 || (s->terms[r].f[pos] >> size) == 0);
            }
        if (f.n * f.m * f.p <= 512 || k >= 216)
            cr_assert(brent_holds(s, false), "<%d,%d,%d>", f.n, f.m, f.p);
        scheme_free(s);
    }
    cr_assert_null(scheme_standard((scheme_format){9, 9, 9}));
    cr_assert_null(scheme_standard((scheme_format){0, 1, 1}));
}

Test(schemes, standard_algorithm_entries_in_the_file_convention)
{
    /* <2,2,2>: term (i,j,k) is a_ij b_jk c_ki (c indexed column, row of the product). */
    scheme *s = scheme_standard((scheme_format){2, 2, 2});
    char *txt = write_to_string(s, SCHEME_FILE_EXP, NULL);
    cr_assert(strstr(txt, "(a12)*(b21)*(c11)\n"), "%s", txt);
    cr_assert(strstr(txt, "(a21)*(b12)*(c22)\n"), "%s", txt);
    cr_assert(strstr(txt, "(a22)*(b21)*(c12)\n"), "%s", txt);
    free(txt);
    scheme_free(s);
}

Test(schemes, hash_independent_of_term_order)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    static const char *files[] = {"kauers-moosbauer/444-47-mod2.exp", "kauers-moosbauer/555-97-mod0.exp",
                                  "moosbauer-poole/555l.txt", "arai/455_73.m"};
    for (size_t fi = 0; fi < sizeof files / sizeof *files; fi++) {
        scheme_diag d;
        scheme *s = scheme_read_file(tc_corpus(files[fi]), NULL, &d);
        cr_assert_not_null(s, "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
        scheme *c0 = scheme_clone(s);
        uint64_t h0 = scheme_hash(c0);
        for (int round = 0; round < 20; round++) {
            scheme *c = scheme_clone(s);
            for (int r = c->rank - 1; r > 0; r--) { /* Fisher-Yates, terms and coefficients together */
                int q = (int)scheme_rng_below(&rng, (uint32_t)r + 1);
                scheme_term t = c->terms[r];
                c->terms[r] = c->terms[q];
                c->terms[q] = t;
                if (c->ring == SCHEME_RING_Z) {
                    scheme_zterm z = c->zterms[r];
                    c->zterms[r] = c->zterms[q];
                    c->zterms[q] = z;
                }
            }
            cr_assert(scheme_equal(c, s), "seed %llu", (unsigned long long)seed);
            char *a = write_to_string(c, SCHEME_FILE_NATIVE, NULL), *b = write_to_string(s, SCHEME_FILE_NATIVE, NULL);
            cr_assert_str_eq(a, b, "native output depends on term order (seed %llu)", (unsigned long long)seed);
            free(a);
            free(b);
            cr_assert_eq(scheme_hash(c), h0, "%s: hash depends on term order (seed %llu)", files[fi],
                         (unsigned long long)seed);
            /* One flipped bit (in a Z scheme: one coefficient) changes the hash. */
            int r = (int)scheme_rng_below(&rng, (uint32_t)c->rank), pos = (int)scheme_rng_below(&rng, 3);
            int e = (int)scheme_rng_below(&rng, (uint32_t)scheme_factor_size(c->fmt, pos));
            c->terms[r].f[pos] ^= 1ull << e;
            if (c->ring == SCHEME_RING_Z)
                c->zterms[r].z[pos][e] = (int8_t)(c->zterms[r].z[pos][e] == 0 ? 1 : 0);
            cr_assert_neq(scheme_hash(c), h0, "seed %llu", (unsigned long long)seed);
            cr_assert_not(scheme_equal(c, s));
            scheme_free(c);
        }
        char hex[17];
        cr_assert_eq(strlen(scheme_hash_hex(h0, hex)), 16);
        scheme_free(c0);
        scheme_free(s);
    }
}

Test(schemes, to_f2_drops_terms_that_vanish_mod_2)
{
    scheme_diag d;
    scheme *s = read_text("(2*a11)*(b11)*(c11)\n(a11)*(b11)*(c11)\n(-a11+2*a12)*(3*b11)*(c11)\n", NULL, &d);
    cr_assert_not_null(s, "%d:%d: %s", d.line, d.col, d.msg);
    cr_assert_eq(s->ring, SCHEME_RING_Z);
    cr_assert_eq(s->rank, 3, "the rank read is the number of terms");
    cr_assert_eq(s->fmt.n, 1);
    cr_assert_eq(s->fmt.m, 2);
    cr_assert_eq(s->fmt.p, 1);
    int zero_word = 0;
    for (int r = 0; r < 3; r++)
        zero_word += s->terms[r].f[0] == 0;
    cr_assert_eq(zero_word, 1);
    scheme *f2 = scheme_to_f2(s);
    cr_assert_eq(f2->ring, SCHEME_RING_F2);
    cr_assert_eq(f2->rank, 2);
    /* The Z scheme with its vanishing term survives a round trip through every writer. */
    scheme_file_kind kinds[] = {SCHEME_FILE_EXP, SCHEME_FILE_TXT, SCHEME_FILE_M, SCHEME_FILE_NATIVE, SCHEME_FILE_JSON};
    for (int k = 0; k < 5; k++) {
        char *txt = write_to_string(s, kinds[k], NULL);
        scheme *back = read_text(txt, NULL, &d);
        cr_assert_not_null(back, "%s: %d:%d: %s\n%s", scheme_file_kind_name(kinds[k]), d.line, d.col, d.msg, txt);
        cr_assert(scheme_equal(back, s), "%s", txt);
        scheme_free(back);
        free(txt);
    }
    scheme_free(f2);
    scheme_free(s);
}

/* ------------------------------------------------------------ the corpus */

typedef struct corpus_file {
    const char *path;         /* relative to the corpus folder */
    scheme_file_kind kind;    /* as detected from the content */
    int n, m, p;
    scheme_ring ring;
    int rank;                 /* terms in the file */
} corpus_file;

/* kauers-moosbauer/: github jakobmoosbauer/flips, solutions/; arai/: github
 * Yamato-Arai/adap, data/; moosbauer-poole/: github jakobmoosbauer/symmetric-flips,
 * schemes/ (see data/corpus/CONVENTIONS.md).  555m93.txt joins its factors
 * with '*', so by content it is an .exp file, as is 666m153.txt, whose last
 * three lines (the cubes) join them without; 366-85-mod2.exp holds 86 terms. */
static const corpus_file CORPUS[] = {
    {"arai/455_73.m", SCHEME_FILE_M, 4, 5, 5, SCHEME_RING_F2, 73},
    {"kauers-moosbauer/223-11-mod0.exp", SCHEME_FILE_EXP, 2, 2, 3, SCHEME_RING_Z, 11},
    {"kauers-moosbauer/224-14-mod0.exp", SCHEME_FILE_EXP, 2, 2, 4, SCHEME_RING_Z, 14},
    {"kauers-moosbauer/225-18-mod0.exp", SCHEME_FILE_EXP, 2, 2, 5, SCHEME_RING_Z, 18},
    {"kauers-moosbauer/226-21-mod2.exp", SCHEME_FILE_EXP, 2, 2, 6, SCHEME_RING_F2, 21},
    {"kauers-moosbauer/233-15-mod0.exp", SCHEME_FILE_EXP, 2, 3, 3, SCHEME_RING_Z, 15},
    {"kauers-moosbauer/234-20-mod0.exp", SCHEME_FILE_EXP, 2, 3, 4, SCHEME_RING_Z, 20},
    {"kauers-moosbauer/235-25-mod0.exp", SCHEME_FILE_EXP, 2, 3, 5, SCHEME_RING_Z, 25},
    {"kauers-moosbauer/236-30-mod2.exp", SCHEME_FILE_EXP, 2, 3, 6, SCHEME_RING_F2, 30},
    {"kauers-moosbauer/244-26-mod0.exp", SCHEME_FILE_EXP, 2, 4, 4, SCHEME_RING_Z, 26},
    {"kauers-moosbauer/245-33-mod0.exp", SCHEME_FILE_EXP, 2, 4, 5, SCHEME_RING_Z, 33},
    {"kauers-moosbauer/246-39-mod2.exp", SCHEME_FILE_EXP, 2, 4, 6, SCHEME_RING_F2, 39},
    {"kauers-moosbauer/255-40-mod0.exp", SCHEME_FILE_EXP, 2, 5, 5, SCHEME_RING_Z, 40},
    {"kauers-moosbauer/256-48-mod2.exp", SCHEME_FILE_EXP, 2, 5, 6, SCHEME_RING_F2, 48},
    {"kauers-moosbauer/266-56-mod2.exp", SCHEME_FILE_EXP, 2, 6, 6, SCHEME_RING_F2, 56},
    {"kauers-moosbauer/334-29-mod0.exp", SCHEME_FILE_EXP, 3, 3, 4, SCHEME_RING_Z, 29},
    {"kauers-moosbauer/335-36-mod0.exp", SCHEME_FILE_EXP, 3, 3, 5, SCHEME_RING_Z, 36},
    {"kauers-moosbauer/336-42-mod2.exp", SCHEME_FILE_EXP, 3, 3, 6, SCHEME_RING_F2, 42},
    {"kauers-moosbauer/344-38-mod0.exp", SCHEME_FILE_EXP, 3, 4, 4, SCHEME_RING_Z, 38},
    {"kauers-moosbauer/344-38-mod0.m", SCHEME_FILE_M, 3, 4, 4, SCHEME_RING_Z, 38},
    {"kauers-moosbauer/345-47-mod0.exp", SCHEME_FILE_EXP, 3, 4, 5, SCHEME_RING_Z, 47},
    {"kauers-moosbauer/346-56-mod2.exp", SCHEME_FILE_EXP, 3, 4, 6, SCHEME_RING_F2, 56},
    {"kauers-moosbauer/355-58-mod0.exp", SCHEME_FILE_EXP, 3, 5, 5, SCHEME_RING_Z, 58},
    {"kauers-moosbauer/356-71-mod2.exp", SCHEME_FILE_EXP, 3, 5, 6, SCHEME_RING_F2, 71},
    {"kauers-moosbauer/366-85-mod2.exp", SCHEME_FILE_EXP, 3, 6, 6, SCHEME_RING_F2, 86},
    {"kauers-moosbauer/444-47-mod2.exp", SCHEME_FILE_EXP, 4, 4, 4, SCHEME_RING_F2, 47},
    {"kauers-moosbauer/444-49-mod0.exp", SCHEME_FILE_EXP, 4, 4, 4, SCHEME_RING_Z, 49},
    {"kauers-moosbauer/445-60-mod2.exp", SCHEME_FILE_EXP, 4, 4, 5, SCHEME_RING_F2, 60},
    {"kauers-moosbauer/445-60-mod2.m", SCHEME_FILE_M, 4, 4, 5, SCHEME_RING_F2, 60},
    {"kauers-moosbauer/445-62-mod0.exp", SCHEME_FILE_EXP, 4, 4, 5, SCHEME_RING_Z, 62},
    {"kauers-moosbauer/446-74-mod2.exp", SCHEME_FILE_EXP, 4, 4, 6, SCHEME_RING_F2, 74},
    {"kauers-moosbauer/455-76-mod0.exp", SCHEME_FILE_EXP, 4, 5, 5, SCHEME_RING_Z, 76},
    {"kauers-moosbauer/456-93-mod2.exp", SCHEME_FILE_EXP, 4, 5, 6, SCHEME_RING_F2, 93},
    {"kauers-moosbauer/555-95-mod2.exp", SCHEME_FILE_EXP, 5, 5, 5, SCHEME_RING_F2, 95},
    {"kauers-moosbauer/555-97-mod0.exp", SCHEME_FILE_EXP, 5, 5, 5, SCHEME_RING_Z, 97},
    {"kauers-moosbauer/556-116-mod2.exp", SCHEME_FILE_EXP, 5, 5, 6, SCHEME_RING_F2, 116},
    {"alphaevolve/445-61-mod0.exp", SCHEME_FILE_EXP, 4, 4, 5, SCHEME_RING_Z, 61},
    {"moosbauer-poole/555l.txt", SCHEME_FILE_TXT, 5, 5, 5, SCHEME_RING_Z, 93},
    {"moosbauer-poole/555m93.txt", SCHEME_FILE_EXP, 5, 5, 5, SCHEME_RING_F2, 93},
    {"moosbauer-poole/666m153.txt", SCHEME_FILE_EXP, 6, 6, 6, SCHEME_RING_F2, 153},
    {"moosbauer-poole/666m153_lifted.txt", SCHEME_FILE_TXT, 6, 6, 6, SCHEME_RING_Z, 153},
};
#define NCORPUS (sizeof CORPUS / sizeof *CORPUS)

static char *slurp_or_die(const char *path, size_t *len) { return tc_slurp(path, SCHEME_MAX_FILE_BYTES, len); }

Test(corpus, every_file_is_listed_and_parses)
{
    /* Every file in every folder of the corpus, so a file added there is not silently skipped. */
    DIR *top = opendir(tc_corpus_dir());
    cr_assert_not_null(top, "corpus %s: %s", tc_corpus_dir(), strerror(errno));
    int seen = 0;
    struct dirent *de;
    while ((de = readdir(top))) {
        if (de->d_name[0] == '.')
            continue;
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", tc_corpus_dir(), de->d_name);
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        DIR *sub = opendir(dir);
        cr_assert_not_null(sub);
        struct dirent *fe;
        while ((fe = readdir(sub))) {
            if (fe->d_name[0] == '.')
                continue;
            char rel[1024];
            snprintf(rel, sizeof rel, "%s/%s", de->d_name, fe->d_name);
            const corpus_file *cf = NULL;
            for (size_t i = 0; i < NCORPUS; i++)
                if (!strcmp(CORPUS[i].path, rel))
                    cf = &CORPUS[i];
            cr_assert_not_null(cf, "corpus file %s is not in the table of tests/test_schemes.c", rel);
            scheme_diag d;
            scheme *s = scheme_read_file(tc_corpus(rel), NULL, &d);
            cr_assert_not_null(s, "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
            scheme_free(s);
            seen++;
        }
        closedir(sub);
    }
    closedir(top);
    cr_assert_eq(seen, (int)NCORPUS, "the table lists %zu files, the corpus holds %d", NCORPUS, seen);
}

Test(corpus, format_ring_rank_and_kind)
{
    for (size_t i = 0; i < NCORPUS; i++) {
        const corpus_file *cf = &CORPUS[i];
        size_t len;
        char *buf = slurp_or_die(tc_corpus(cf->path), &len);
        cr_assert_eq(scheme_detect_kind(buf, len), cf->kind, "%s: detected %s", cf->path,
                     scheme_file_kind_name(scheme_detect_kind(buf, len)));
        scheme_diag d;
        scheme *s = scheme_read_buffer(buf, len, cf->path, NULL, &d);
        cr_assert_not_null(s, "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
        cr_assert(s->fmt.n == cf->n && s->fmt.m == cf->m && s->fmt.p == cf->p, "%s: <%d,%d,%d>",
                  cf->path, s->fmt.n, s->fmt.m, s->fmt.p);
        cr_assert_eq(s->ring, cf->ring, "%s", cf->path);
        cr_assert_eq(s->rank, cf->rank, "%s: %d terms", cf->path, s->rank);
        cr_assert_eq(s->zterms != NULL, cf->ring == SCHEME_RING_Z);
        /* The same file with --dims equal to its own format reads the same. */
        scheme_format dims = s->fmt;
        scheme *t = scheme_read_buffer(buf, len, cf->path, &dims, &d);
        cr_assert_not_null(t, "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
        cr_assert(scheme_equal(s, t), "%s", cf->path);
        scheme_free(t);
        scheme_free(s);
        free(buf);
    }
}

Test(corpus, every_file_satisfies_the_brent_equations)
{
    /* An oracle for the readers: a transposed or shifted index breaks validity. */
    for (size_t i = 0; i < NCORPUS; i++) {
        scheme_diag d;
        scheme *s = scheme_read_file(tc_corpus(CORPUS[i].path), NULL, &d);
        cr_assert_not_null(s, "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
        cr_assert(brent_holds(s, false), "%s is not valid over GF(2) as read", CORPUS[i].path);
        if (s->ring == SCHEME_RING_Z)
            cr_assert(brent_holds(s, true), "%s is not valid over Z as read", CORPUS[i].path);
        scheme *f2 = scheme_to_f2(s);
        cr_assert(brent_holds(f2, false), "%s: its reduction mod 2", CORPUS[i].path);
        scheme_free(f2);
        scheme_free(s);
    }
}

Test(corpus, m_files_equal_their_exp_twins)
{
    static const char *pairs[][2] = {
        {"kauers-moosbauer/344-38-mod0.m", "kauers-moosbauer/344-38-mod0.exp"},
        {"kauers-moosbauer/445-60-mod2.m", "kauers-moosbauer/445-60-mod2.exp"},
    };
    for (int i = 0; i < 2; i++) {
        scheme_diag d;
        scheme *a = scheme_read_file(tc_corpus(pairs[i][0]), NULL, &d);
        cr_assert_not_null(a, "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
        scheme *b = scheme_read_file(tc_corpus(pairs[i][1]), NULL, &d);
        cr_assert_not_null(b, "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
        cr_assert(scheme_equal(a, b), "%s and %s differ", pairs[i][0], pairs[i][1]);
        scheme_free(a);
        scheme_free(b);
    }
}

Test(corpus, round_trip_through_every_writer)
{
    static const scheme_file_kind kinds[] = {SCHEME_FILE_EXP, SCHEME_FILE_NATIVE, SCHEME_FILE_TXT,
                                             SCHEME_FILE_M, SCHEME_FILE_JSON};
    for (size_t i = 0; i < NCORPUS; i++) {
        scheme_diag d;
        scheme *s = scheme_read_file(tc_corpus(CORPUS[i].path), NULL, &d);
        cr_assert_not_null(s, "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
            size_t len;
            char *txt = write_to_string(s, kinds[k], &len);
            cr_assert_eq(scheme_detect_kind(txt, len), kinds[k], "%s as %s", CORPUS[i].path,
                         scheme_file_kind_name(kinds[k]));
            scheme *back = scheme_read_buffer(txt, len, "written", NULL, &d);
            cr_assert_not_null(back, "%s as %s: %d:%d: %s", CORPUS[i].path,
                               scheme_file_kind_name(kinds[k]), d.line, d.col, d.msg);
            cr_assert(scheme_equal(s, back), "%s changed through %s", CORPUS[i].path,
                      scheme_file_kind_name(kinds[k]));
            /* Writing what was read back gives the same bytes (a fixed point). */
            char *again = write_to_string(back, kinds[k], NULL);
            if (kinds[k] == SCHEME_FILE_NATIVE || kinds[k] == SCHEME_FILE_JSON)
                cr_assert_str_eq(txt, again);
            free(again);
            scheme_free(back);
            free(txt);
        }
        scheme_free(s);
    }
}

Test(corpus, exp_writer_reproduces_published_gf2_lines)
{
    /* The GF(2) .exp files are written in the published syntax except for
     * parentheses around single entries: every written line, with those
     * removed, is a line of the original. */
    scheme_diag d;
    const char *rel = "kauers-moosbauer/444-47-mod2.exp";
    size_t len;
    char *orig = slurp_or_die(tc_corpus(rel), &len);
    scheme *s = scheme_read_buffer(orig, len, rel, NULL, &d);
    cr_assert_not_null(s);
    char *txt = write_to_string(s, SCHEME_FILE_EXP, NULL);
    int lines = 0;
    for (char *line = strtok(txt, "\n"); line; line = strtok(NULL, "\n"), lines++)
        cr_assert(strstr(orig, line), "written line not in %s: %s", rel, line);
    cr_assert_eq(lines, 47);
    free(txt);
    free(orig);
    scheme_free(s);
}

/* --------------------------------------------------- specific syntax */

Test(read, entry_positions_follow_the_cyclic_convention)
{
    /* <3,3,3>: a12 -> row 0 col 1 -> bit 1; b23 -> bit 1*3+2 = 5; c31 (column 3,
     * row 1 of the product) -> bit 2*3+0 = 6.  The .m form lists C as p rows of n. */
    const char *exp = "(a12)*(b23)*(c31)\n(a33)*(b33)*(c33)\n";
    const char *m = "{{{{0,1,0},{0,0,0},{0,0,0}},{{0,0,0},{0,0,1},{0,0,0}},{{0,0,0},{0,0,0},{1,0,0}}},"
                    "{{{0,0,0},{0,0,0},{0,0,1}},{{0,0,0},{0,0,0},{0,0,1}},{{0,0,0},{0,0,0},{0,0,1}}}}";
    const char *nat = "flipgraph-scheme 1\nformat 3x3x3\nring f2\nrank 2\n"
                      "(a1_2)*(b2_3)*(c3_1)\n(a3_3)*(b3_3)*(c3_3)\n";
    const char *txt = "a12 b23 c31\na33 b33 c33\n";
    const char *texts[] = {exp, m, nat, txt};
    for (int i = 0; i < 4; i++) {
        scheme_diag d;
        scheme *s = read_text(texts[i], NULL, &d);
        cr_assert_not_null(s, "%d: %d:%d: %s", i, d.line, d.col, d.msg);
        cr_assert(s->fmt.n == 3 && s->fmt.m == 3 && s->fmt.p == 3);
        cr_assert_eq(s->ring, SCHEME_RING_F2);
        cr_assert_eq(s->terms[0].f[0], 1ull << 1, "%d", i);
        cr_assert_eq(s->terms[0].f[1], 1ull << 5, "%d", i);
        cr_assert_eq(s->terms[0].f[2], 1ull << 6, "%d", i);
        cr_assert_eq(s->terms[1].f[0], 1ull << 8);
        scheme_free(s);
    }
}

Test(read, dimensions_inferred_and_overridden)
{
    scheme_diag d;
    /* Largest indices: a: n >= 2, m >= 3; b: p >= 4; c: X <= p, Y <= n. */
    scheme *s = read_text("(a23)*(b14)*(c11)\n", NULL, &d);
    cr_assert_not_null(s, "%s", d.msg);
    cr_assert(s->fmt.n == 2 && s->fmt.m == 3 && s->fmt.p == 4);
    scheme_free(s);
    s = read_text("(a11)*(b11)*(c52)\n", NULL, &d);
    cr_assert_not_null(s, "%s", d.msg);
    cr_assert(s->fmt.n == 2 && s->fmt.m == 1 && s->fmt.p == 5);
    scheme_free(s);
    /* --dims embeds the same entries in a larger format. */
    scheme_format dims = {2, 2, 2};
    s = read_text("(a11)*(b11)*(c12)\n", &dims, &d);
    cr_assert_not_null(s, "%s", d.msg);
    cr_assert(s->fmt.n == 2 && s->fmt.m == 2 && s->fmt.p == 2);
    cr_assert_eq(s->terms[0].f[2], 1ull << 1); /* c12: row 0, column 1 of a 2 x 2 factor */
    scheme_free(s);
    /* Multi-digit indices in the native format: <2,32,2>. */
    s = read_text("flipgraph-scheme 1\n# a comment\nformat 2x32x2 # trailing\nring z\nrank 1\n\n"
                  "(a2_32 - 2*a1_1)*(b32_2)*(-c2_2) # a term\n", NULL, &d);
    cr_assert_not_null(s, "%d:%d: %s", d.line, d.col, d.msg);
    cr_assert(s->fmt.n == 2 && s->fmt.m == 32 && s->fmt.p == 2);
    cr_assert_eq(s->zterms[0].z[0][63], 1);
    cr_assert_eq(s->zterms[0].z[0][0], -2);
    cr_assert_eq(s->terms[0].f[0], 1ull << 63);
    cr_assert_eq(s->zterms[0].z[1][63], 1);
    cr_assert_eq(s->zterms[0].z[2][3], -1);
    scheme_free(s);
}

Test(read, published_variants)
{
    scheme_diag d;
    struct { const char *text; scheme_ring ring; int coef_a11; } ok[] = {
        /* spaces anywhere between tokens, bare single entries, integer coefficients */
        {" ( -2*a11 + a12 ) * b11 * ( c11 + c12 )\n", SCHEME_RING_Z, -2},
        {"(-2 * a11+a12)*(b11)*(c11+c12)\r\n", SCHEME_RING_Z, -2},
        {"a11*b11*c11\n\n\n", SCHEME_RING_F2, 1},
        {"-a11*b11*c11\n", SCHEME_RING_Z, -1},
        /* Moosbauer-Poole: spaces between factors, touching factors, "2 b31", negated terms */
        {"(a11 - a12) (b11 + 2 b12) (c11)\n", SCHEME_RING_Z, 1},
        {"(a11-a12)(b11+b12)c11\n", SCHEME_RING_Z, 1},
        {"-(a11(-b11+b12)(c11+c12))\n", SCHEME_RING_Z, -1},
        {"-((a11 + a12) b11 (c11))\n", SCHEME_RING_Z, -1},
        {"-(a11*b11*c11)\n", SCHEME_RING_Z, -1},
        /* a sign before a parenthesized factor; at the start of a line it is told
         * from a negated term by what follows the ')' */
        {"-(a11+a12)*b11*c11\n", SCHEME_RING_Z, -1},
        {"- (a11 + a12) (b11) c11\n", SCHEME_RING_Z, -1},
        {"(a11)*-(b11-b12)*+(c11)\n", SCHEME_RING_Z, 1},
        {"a11 b11 c11\n", SCHEME_RING_F2, 1},
        /* repeated entries add, and cancel mod 2 */
        {"(a11+a11+a11+a12)*(b11)*(c11)\n", SCHEME_RING_F2, 1},
        {"(a11+a11+a11+a12)*(b11)*(-c11)\n", SCHEME_RING_Z, 3},
        {"(a11+a12+a12)*(b11)*(c11)\n", SCHEME_RING_F2, 1},
        {"(1*a11)*(b11)*(c11)\n", SCHEME_RING_F2, 1},
        {"(-128*a11)*(b11)*(c11)\n", SCHEME_RING_Z, -128},
        {"(127*a11)*(b11)*(c11)\n", SCHEME_RING_Z, 127},
        {"{{{{1, 0}}, {{1}, {0}}, {{1}}}}\n", SCHEME_RING_F2, 1},
        {"{{{{-1, 0}}, \n{{1},\n {0}}, {{1}}}}", SCHEME_RING_Z, -1},
        {"\xEF\xBB\xBF(a11)*(b11)*(c11)\n", SCHEME_RING_F2, 1},
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        scheme *s = read_text(ok[i].text, NULL, &d);
        cr_assert_not_null(s, "case %zu: %d:%d: %s", i, d.line, d.col, d.msg);
        cr_assert_eq(s->ring, ok[i].ring, "case %zu", i);
        cr_assert_eq(s->rank, 1);
        int v = s->ring == SCHEME_RING_Z ? s->zterms[0].z[0][0] : (int)(s->terms[0].f[0] & 1);
        cr_assert_eq(v, ok[i].coef_a11, "case %zu: a11 = %d", i, v);
        scheme_free(s);
    }
    /* Lines of one file may mix '*' and juxtaposition (Moosbauer and Poole's
     * published 666m153.txt does): the same scheme as with '*' everywhere. */
    static const char *mixed[] = {
        "(a11)*(b11)*(c11)\n(a12+a21) (b11) (c11)\n(a22)(b22)c22\n(a11)*b12 c21\n",
        "(a11) (b11) (c11)\n(a12+a21)*(b11)*(c11)\n(a22)*(b22)*c22\n(a11)(b12)*c21\n",
    };
    scheme *all = read_text("(a11)*(b11)*(c11)\n(a12+a21)*(b11)*(c11)\n(a22)*(b22)*(c22)\n(a11)*(b12)*(c21)\n", NULL, &d);
    cr_assert_not_null(all, "%d:%d: %s", d.line, d.col, d.msg);
    for (int i = 0; i < 2; i++) {
        scheme *m = read_text(mixed[i], NULL, &d);
        cr_assert_not_null(m, "mixed %d: %d:%d: %s", i, d.line, d.col, d.msg);
        cr_assert(scheme_equal(all, m), "mixed %d reads as another scheme", i);
        scheme_free(m);
    }
    scheme_free(all);
    /* A negated term negates one factor: the tensor is the same as with the sign inside. */
    scheme *a = read_text("-(a11 (b11 + b12) c11)\n", NULL, &d);
    scheme *b = read_text("(-a11) (b11 + b12) c11\n", NULL, &d);
    cr_assert(a && b && scheme_equal(a, b));
    scheme_free(a);
    scheme_free(b);
}

/* Strassen's scheme in the FastMatrixMultiplication catalogue's JSON (keys in
 * another order than the catalogue writes them, with keys flipgraph skips) and
 * in .exp: the two readers give the same scheme, so the catalogue's w is the
 * transposed product (entry k*n + i), as our c. */
static const char STRASSEN_JSON[] =
    "{\n  \"complexity\": 18, \"type\": {\"nested\": [1, [2, {\"x\": null}], \"s\\\"t\"], \"ok\": false},\n"
    "  \"w\": [[1,0,0,1],[0,1,0,-1],[0,0,1,1],[1,1,0,0],[-1,0,1,0],[0,0,0,1],[1,0,0,0]],\n"
    "  \"n\": [2, 2, 2], \"m\": 7, \"z2\": false,\n"
    "  \"multiplications\": [\"m1 = (a11 + a22) * (b11 + b22)\", \"...\"],\n"
    "  \"u\": [[1,0,0,1],[0,0,1,1],[1,0,0,0],[0,0,0,1],[1,1,0,0],[-1,0,1,0],[0,1,0,-1]],\n"
    "  \"v\": [[1,0,0,1],[1,0,0,0],[0,1,0,-1],[-1,0,1,0],[0,0,0,1],[1,1,0,0],[0,0,1,1]]\n}\n";
static const char STRASSEN_EXP[] = "(a11+a22)*(b11+b22)*(c11+c22)\n(a21+a22)*(b11)*(c12-c22)\n(a11)*(b12-b22)*(c21+c22)\n"
                                   "(a22)*(-b11+b21)*(c11+c12)\n(a11+a12)*(b22)*(-c11+c21)\n(-a11+a21)*(b11+b12)*(c22)\n"
                                   "(a12-a22)*(b21+b22)*(c11)\n";

Test(read, json_of_the_catalogue_and_of_export)
{
    scheme_diag d;
    cr_assert_eq(scheme_detect_kind(STRASSEN_JSON, strlen(STRASSEN_JSON)), SCHEME_FILE_JSON);
    scheme *j = read_text(STRASSEN_JSON, NULL, &d);
    cr_assert_not_null(j, "%d:%d: %s", d.line, d.col, d.msg);
    scheme *e = read_text(STRASSEN_EXP, NULL, &d);
    cr_assert_not_null(e, "%d:%d: %s", d.line, d.col, d.msg);
    cr_assert_eq(j->ring, SCHEME_RING_Z);
    cr_assert_eq(j->rank, 7);
    cr_assert(scheme_equal(j, e), "the catalogue's JSON and the .exp of Strassen's scheme differ");
    /* The same with --dims, and as the export's keys. */
    const scheme_format f222 = {2, 2, 2};
    scheme *jd = read_text(STRASSEN_JSON, &f222, &d);
    cr_assert(jd && scheme_equal(jd, e));
    scheme_free(jd);
    const char *exported = "{\"schema\": \"flipgraph-scheme/1\", \"format\": [1, 1, 1], \"ring\": \"z\", \"rank\": 1,\n"
                           " \"a\": [[1]], \"b\": [[1]], \"c\": [[1]], \"provenance\": {\"db\": \"x \\\"q\\\".db\", \"id\": 3}}";
    scheme *x = read_text(exported, NULL, &d);
    cr_assert_not_null(x, "%d:%d: %s", d.line, d.col, d.msg);
    cr_assert_eq(x->ring, SCHEME_RING_Z, "\"ring\": \"z\" keeps an all-0/1 scheme integer");
    scheme_free(x);
    /* The ring: z2 true is GF(2); without z2 or ring, decided by the entries as in .m. */
    x = read_text("{\"n\": [1, 1, 1], \"z2\": true, \"u\": [[1]], \"v\": [[1]], \"w\": [[1]]}", NULL, &d);
    cr_assert(x && x->ring == SCHEME_RING_F2);
    scheme_free(x);
    x = read_text("{\"n\": [1, 1, 1], \"u\": [[1]], \"v\": [[1]], \"w\": [[1]]}", NULL, &d);
    cr_assert(x && x->ring == SCHEME_RING_F2);
    scheme_free(x);
    x = read_text("{\"n\": [1, 1, 1], \"u\": [[-1]], \"v\": [[1]], \"w\": [[-1]]}", NULL, &d);
    cr_assert(x && x->ring == SCHEME_RING_Z);
    scheme_free(x);
    /* What the writer writes is the catalogue's layout and reads back (a fixed point). */
    size_t len;
    char *txt = write_to_string(j, SCHEME_FILE_JSON, &len);
    cr_assert(strstr(txt, "\"n\": [2, 2, 2]") && strstr(txt, "\"m\": 7") && strstr(txt, "\"z2\": false"), "%s", txt);
    cr_assert(strstr(txt, "\"w\": [\n        [1, 0, 0, 1],\n        [0, 1, 0, -1],"), "%s", txt);
    scheme *back = scheme_read_buffer(txt, len, "written", NULL, &d);
    cr_assert(back && scheme_equal(back, j));
    scheme_free(back);
    free(txt);
    /* A Mathematica list still reads as one: '{' then '{' is .m, '{' then '"' JSON. */
    cr_assert_eq(scheme_detect_kind("{ {{{1}},{{1}},{{1}}} }", 23), SCHEME_FILE_M);
    cr_assert_eq(scheme_detect_kind("\n {\n  \"n\"", 10), SCHEME_FILE_JSON);
    scheme_free(j);
    scheme_free(e);
}

/* ------------------------------------------------------- malformed input */

typedef struct bad_case {
    const char *what;
    const char *text;
    size_t len;       /* 0: strlen */
    const char *dims; /* --dims, or NULL */
    int line, col;    /* col 0: not checked */
    const char *msg;  /* a piece of the message */
} bad_case;

static const char NUL_TEXT[] = "(a11)*(b11)*(c11)\n(a11)*(b\0";
static const char BINARY[] = "\x7f" "ELF\x02\x01\x01\x00\x00\x00\xff\xfe";

static const bad_case BAD[] = {
    {"empty file", "", 0, NULL, 1, 1, "empty file"},
    {"only blank lines", "\n  \n\t\n", 0, NULL, 4, 1, "empty file"},
    {"unbalanced '('", "(a11)*(b11)*(c11)\n(a11+a12*(b11)*(c11)\n", 0, NULL, 2, 9, "expected '+', '-' or ')'"},
    {"factor never closed", "(a11)*(b11)*(c11\n(a11)*(b11)*(c11)\n", 0, NULL, 1, 17, "found end of line"},
    {"extra ')'", "(a11)*(b11)*(c11))\n", 0, NULL, 1, 18, "expected the end of the line"},
    {"unknown letter", "(a11)*(b11)*(d11)\n", 0, NULL, 1, 14, "expected an entry like c12"},
    {"wrong letter in a position", "(a11)*(c11)*(b11)\n", 0, NULL, 1, 8, "second factor"},
    {"uppercase entry", "(A11)*(b11)*(c11)\n", 0, NULL, 1, 2, "expected an entry like a12"},
    {"index out of --dims", "(a11)*(b11)*(c11)\n(a13)*(b11)*(c11)\n", 0, "2x2x2", 2, 2, "outside the format <2,2,2>"},
    {"index 0", "(a11)*(b11)*(c11)\n(a11)*(b10)*(c11)\n", 0, NULL, 2, 8, "index 0"},
    {"a sign between factors", "(a11)*(b11)*(c11)\n(a11)*(b11)+(c11)\n", 0, NULL, 2, 12, "expected '*' between the second and third"},
    {"native factors not joined", "flipgraph-scheme 1\nformat 1x1x1\nring f2\nrank 1\n(a1_1)(b1_1)*(c1_1)\n", 0, NULL, 5, 7, "native file: factors are joined by '*'"},
    {"exp then .m line", "(a11)*(b11)*(c11)\n{{{{1}},{{1}},{{1}}}}\n", 0, NULL, 2, 1, "first factor"},
    {"native entry in .exp", "(a1_1)*(b11)*(c11)\n", 0, NULL, 1, 4, "one-digit column index"},
    {"three-digit index", "(a111)*(b11)*(c11)\n", 0, NULL, 1, 5, "one digit"},
    {"binary garbage", BINARY, sizeof BINARY - 1, NULL, 1, 1, "expected a scheme"},
    {"NUL byte", NUL_TEXT, sizeof NUL_TEXT - 1, NULL, 2, 9, "byte 0x00"},
    {"coefficient overflows int8", "(a11)*(b11)*(c11)\n(200*a11)*(b11)*(c11)\n", 0, NULL, 2, 2, "outside int8"},
    {"negative coefficient overflows", "(-129*a11)*(b11)*(c11)\n", 0, NULL, 1, 2, "outside int8"},
    {"huge coefficient", "(99999999999999999999*a11)*(b11)*(c11)\n", 0, NULL, 1, 2, "outside int8"},
    {"coefficient sum overflows", "(a11)*(b11)*(c11)\n(100*a11+100*a11)*(b11)*(c11)\n", 0, NULL, 2, 1, "sums to 200"},
    {"negation overflows", "-((-128*a11) b11 c11)\n", 0, NULL, 1, 1, "128"},
    {"two factors only", "(a11)*(b11)\n", 0, NULL, 1, 12, "expected '*'"},
    {"four factors", "(a11)*(b11)*(c11)*(a11)\n", 0, NULL, 1, 18, "end of the line"},
    {"trailing junk", "(a11)*(b11)*(c11) x\n", 0, NULL, 1, 19, "end of the line"},
    {"empty parentheses", "()*(b11)*(c11)\n", 0, NULL, 1, 2, "inside the parentheses"},
    {"nested parentheses", "((a11))*(b11)*(c11)\n", 0, NULL, 1, 2, "expected an entry like a12"},
    {"factor zero mod 2", "(a11)*(b11)*(c11)\n(a12+a12)*(b21)*(c11)\n", 0, NULL, 2, 1, "zero mod 2"},
    {"factor zero over Z", "(a11-a11)*(b11)*(c11)\n", 0, NULL, 1, 1, "is zero"},
    {"format beyond 64 entries", "(a11)*(b11)*(c11)\n(a99)*(b99)*(c99)\n", 0, NULL, 2, 2, "beyond the limit"},
    {"unclosed negated term", "-((a11) (b11) (c11)\n", 0, NULL, 1, 20, "negated term"},
    {"not a scheme", "hello world\n", 0, NULL, 1, 1, "expected a scheme"},
    {".m truncated", "{{{{1, 0}, {0, 1}}, {{1, 0}, {0, 1}},\n {{1, 0}, {0", 0, NULL, 2, 13, "end of file"},
    {".m wrong B shape", "{{{{1,0},{0,1}},{{1,0},{0,1}},{{1,0},{0,1}}},\n{{{1,0},{0,1}},{{1,0},{0,1},{1,1}},{{1,0},{0,1}}}}",
     0, NULL, 2, 28, "the B factor has m = 2 rows"},
    {".m ragged row", "{{{{1,0},{0,1,1}},{{1,0},{0,1}},{{1,0},{0,1}}}}", 0, NULL, 1, 14, "expected '}'"},
    {".m short row", "{{{{1,0},{1}},{{1,0},{0,1}},{{1,0},{0,1}}}}", 0, NULL, 1, 10, "has 1 entries, expected m = 2"},
    {".m shape against --dims", "{{{{1,0},{0,1}},{{1,0},{0,1}},{{1,0},{0,1}}}}", 0, "2x2x3", 1, 18, "B factor has 2 entries, expected p = 3 (from --dims)"},
    {".m entry overflows", "{{{{1, 300}}, {{1}, {1}}, {{1}}}}", 0, NULL, 1, 8, "outside int8"},
    {".m too deep", "{{{{{1}}}, {{1}}, {{1}}}}", 0, NULL, 1, 5, "expected an integer"},
    {".m junk after the list", "{{{{1}}, {{1}}, {{1}}}}\n;x", 0, NULL, 2, 1, "end of the file"},
    {".m empty list", "{}", 0, NULL, 1, 2, "opening a term"},
    {".m factor beyond 64 entries", "{{{{1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1}}}}",
     0, NULL, 1, 132, "at most"},
    {"native: unknown version", "flipgraph-scheme 2\nformat 1x1x1\nring f2\nrank 1\n(a1_1)*(b1_1)*(c1_1)\n", 0, NULL, 1, 18, "version 2"},
    {"native: rank mismatch", "flipgraph-scheme 1\nformat 1x1x1\nring f2\nrank 2\n(a1_1)*(b1_1)*(c1_1)\n", 0, NULL, 4, 6, "holds 1 term"},
    {"native: more terms than rank", "flipgraph-scheme 1\nformat 1x1x1\nring f2\nrank 1\n(a1_1)*(b1_1)*(c1_1)\n(a1_1)*(b1_1)*(c1_1)\n",
     0, NULL, 6, 1, "more terms than the header's rank 1"},
    {"native: sign in ring f2", "flipgraph-scheme 1\nformat 1x1x1\nring f2\nrank 1\n(-a1_1)*(b1_1)*(c1_1)\n", 0, NULL, 5, 2, "ring f2"},
    {"native: outside the format", "flipgraph-scheme 1\nformat 2x2x2\nring z\nrank 1\n(a1_1)*(b1_3)*(c1_1)\n", 0, NULL, 5, 9, "outside the format <2,2,2>"},
    {"native: missing header line", "flipgraph-scheme 1\nformat 1x1x1\n(a1_1)*(b1_1)*(c1_1)\n", 0, NULL, 3, 1, "'ring f2|z'"},
    {"native: duplicate header line", "flipgraph-scheme 1\nformat 1x1x1\nformat 1x1x1\n", 0, NULL, 3, 1, "second 'format'"},
    {"native: bad format", "flipgraph-scheme 1\nformat 9x9x9\nring z\nrank 1\n", 0, NULL, 2, 8, "at most 64"},
    {"native: --dims disagrees", "flipgraph-scheme 1\nformat 1x1x1\nring f2\nrank 1\n(a1_1)*(b1_1)*(c1_1)\n", 0, "2x2x2", 2, 8, "differs from --dims"},
    {"native: one-digit entry", "flipgraph-scheme 1\nformat 2x2x2\nring f2\nrank 1\n(a11)*(b1_1)*(c1_1)\n", 0, NULL, 5, 5, "'_'"},
    {"native: bad ring", "flipgraph-scheme 1\nring q\n", 0, NULL, 2, 6, "'f2' or 'z'"},
    {"json: no w", "{\"n\": [1, 1, 1], \"u\": [[1]], \"v\": [[1]]\n}", 0, NULL, 2, 1, "no key \"w\""},
    {"json: no format", "{\"u\": [[1]], \"v\": [[1]], \"w\": [[1]]}", 0, NULL, 1, 36, "no key \"n\""},
    {"json: short row", "{\"n\": [1, 2, 1],\n \"u\": [[1, 0], [1]],\n \"v\": [[1], [1]], \"w\": [[1], [1]]}", 0, NULL, 2, 16,
     "holds 1 entries, expected 2"},
    {"json: long row", "{\"n\": [1, 1, 1], \"u\": [[1, 0]], \"v\": [[1]], \"w\": [[1]]}", 0, NULL, 1, 28, "expected ']'"},
    {"json: rows differ", "{\"n\": [1, 1, 1], \"u\": [[1], [1]], \"v\": [[1]], \"w\": [[1], [1]]}", 0, NULL, 1, 40,
     "\"v\" has 1 rows, \"u\" 2"},
    {"json: rank disagrees", "{\"n\": [1, 1, 1], \"m\": 2, \"u\": [[1]], \"v\": [[1]], \"w\": [[1]]}", 0, NULL, 1, 23,
     "the rank says 2 terms, the matrices hold 1"},
    {"json: fraction", "{\"n\": [1, 1, 1],\n\"u\": [[0.5]], \"v\": [[1]], \"w\": [[1]]}", 0, NULL, 2, 8, "not an integer"},
    {"json: rational string", "{\"n\": [1, 1, 1], \"u\": [[\"1/2\"]], \"v\": [[1]], \"w\": [[1]]}", 0, NULL, 1, 25,
     "rational schemes are not read"},
    {"json: z2 with a sign", "{\"n\": [1, 1, 1], \"z2\": true, \"u\": [[-1]], \"v\": [[1]], \"w\": [[1]]}", 0, NULL, 1, 37,
     "expected 0 or 1"},
    {"json: beyond 64 entries", "{\"n\": [16, 16, 16], \"u\": [], \"v\": [], \"w\": []}", 0, NULL, 1, 7, "<16,16,16> is beyond"},
    {"json: coefficient overflows", "{\"n\": [1, 1, 1], \"u\": [[300]], \"v\": [[1]], \"w\": [[1]]}", 0, NULL, 1, 25,
     "outside -128..127"},
    {"json: --dims disagrees", "{\"n\": [1, 1, 1], \"u\": [[1]], \"v\": [[1]], \"w\": [[1]]}", 0, "2x2x2", 1, 7,
     "differs from --dims"},
    {"json: key twice", "{\"n\": [1, 1, 1], \"u\": [[1]], \"a\": [[1]], \"v\": [[1]], \"w\": [[1]]}", 0, NULL, 1, 30,
     "a second key \"a\""},
    {"json: z2 and ring", "{\"n\": [1, 1, 1], \"z2\": true, \"ring\": \"z\", \"u\": [[1]], \"v\": [[1]], \"w\": [[1]]}", 0, NULL,
     1, 30, "give one"},
    {"json: string never closed", "{\"n\": [1, 1, 1], \"note\": \"abc\n\"}", 0, NULL, 1, 26, "never closed"},
    {"json: junk after the object", "{\"n\": [1, 1, 1], \"u\": [[1]], \"v\": [[1]], \"w\": [[1]]} x", 0, NULL, 1, 54,
     "end of the file"},
    {"json: missing comma", "{\"n\": [1, 1, 1] \"u\": [[1]]}", 0, NULL, 1, 17, "expected ',' or '}'"},
    {"json: zero factor", "{\"n\": [1, 2, 1], \"u\": [[0, 0]], \"v\": [[1, 0]], \"w\": [[1]]}", 0, NULL, 1, 24, "factor of this term is zero"},
};
#define NBAD (sizeof BAD / sizeof *BAD)

static void check_bad(const bad_case *b, const char *text, size_t len, int line, int col)
{
    scheme_format dims;
    if (b->dims)
        cr_assert(scheme_format_parse(b->dims, &dims, NULL, 0));
    scheme_diag d;
    memset(&d, 0x5a, sizeof d); /* the reader must fill it */
    scheme *s = scheme_read_buffer(text, len, "bad.txt", b->dims ? &dims : NULL, &d);
    cr_assert_null(s, "%s: accepted", b->what);
    cr_assert_str_eq(d.file, "bad.txt");
    cr_assert_eq(d.line, line, "%s: line %d, want %d (%s)", b->what, d.line, line, d.msg);
    if (col)
        cr_assert_eq(d.col, col, "%s: column %d, want %d (%s)", b->what, d.col, col, d.msg);
    cr_assert_geq(d.col, 1, "%s", b->what);
    cr_assert(strlen(d.msg) < sizeof d.msg);
    cr_assert(strstr(d.msg, b->msg), "%s: message '%s' lacks '%s'", b->what, d.msg, b->msg);
}

Test(malformed, table_each_refused_with_its_line)
{
    cr_assert_geq(NBAD, 20);
    for (size_t i = 0; i < NBAD; i++)
        check_bad(&BAD[i], BAD[i].text, BAD[i].len ? BAD[i].len : strlen(BAD[i].text), BAD[i].line,
                  BAD[i].col);
}

Test(malformed, ten_megabyte_line)
{
    /* Line 2: "(" then 10 MB of "a11+" and no closing parenthesis. */
    size_t reps = (10u << 20) / 4;
    size_t len = 18 + 1 + reps * 4 + 1;
    char *t = malloc(len + 1);
    cr_assert_not_null(t);
    memcpy(t, "(a11)*(b11)*(c11)\n(", 19);
    for (size_t i = 0; i < reps; i++)
        memcpy(t + 19 + 4 * i, "a11+", 4);
    t[len - 1] = '\n';
    t[len] = 0;
    bad_case b = {"10 MB line", NULL, 0, NULL, 2, 0, "found end of line"};
    check_bad(&b, t, len, 2, (int)(1 + 4 * reps + 1));
    /* The same line closed is a valid GF(2) factor: 2621440 copies of a11 cancel, a12 stays. */
    memcpy(t + len - 5, "a12)", 4);
    t[len - 1] = '*';
    char *u = malloc(len + 12);
    memcpy(u, t, len);
    memcpy(u + len, "b11*c11\n", 9);
    scheme_diag d;
    scheme *s = scheme_read_buffer(u, len + 8, "big", NULL, &d);
    cr_assert_not_null(s, "%d:%d: %s", d.line, d.col, d.msg);
    cr_assert_eq(s->rank, 2);
    cr_assert_eq(s->ring, SCHEME_RING_F2);
    free(u);
    scheme_free(s);
    free(t);
}

Test(malformed, too_many_terms)
{
    size_t per = strlen("(a11)*(b11)*(c11)\n"), n = SCHEME_MAX_RANK + 1;
    char *t = malloc(per * n + 1);
    for (size_t i = 0; i < n; i++)
        memcpy(t + per * i, "(a11)*(b11)*(c11)\n", per);
    t[per * n] = 0;
    bad_case b = {"rank cap", NULL, 0, NULL, 0, 0, "more than 4096 terms"};
    check_bad(&b, t, per * n, SCHEME_MAX_RANK + 1, 1);
    /* Exactly the cap reads. */
    scheme_diag d;
    scheme *s = scheme_read_buffer(t, per * (n - 1), "cap", NULL, &d);
    cr_assert_not_null(s, "%s", d.msg);
    cr_assert_eq(s->rank, SCHEME_MAX_RANK);
    scheme_free(s);
    free(t);
}

Test(malformed, truncated_corpus_m_file)
{
    size_t len;
    char *buf = slurp_or_die(tc_corpus("kauers-moosbauer/445-60-mod2.m"), &len);
    for (size_t cut = 1; cut < len; cut += len / 37 + 1) {
        int line = 1;
        for (size_t i = 0; i < cut; i++)
            line += buf[i] == '\n';
        /* A cut inside a number may still read that number; the error is then at the end. */
        scheme_diag d;
        scheme *s = scheme_read_buffer(buf, cut, "cut.m", NULL, &d);
        cr_assert_null(s, "cut at %zu accepted", cut);
        cr_assert_eq(d.line, line, "cut at %zu: line %d, want %d: %s", cut, d.line, line, d.msg);
        cr_assert(strstr(d.msg, "end of file"), "cut at %zu: %s", cut, d.msg);
    }
    free(buf);
}

Test(malformed, file_larger_than_the_cap)
{
    char dir[256], path[300];
    tc_temp_dir(dir, sizeof dir, "fg_test_big");
    snprintf(path, sizeof path, "%s/big.exp", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)SCHEME_MAX_FILE_BYTES + 1), 0); /* sparse: no disk used */
    close(fd);
    scheme_diag d;
    scheme *s = scheme_read_file(path, NULL, &d);
    unlink(path);
    tc_remove_tree(dir);
    cr_assert_null(s);
    cr_assert(strstr(d.msg, "larger than"), "%s", d.msg);
    cr_assert_str_eq(d.file, path);
    s = scheme_read_file("/nonexistent/dir/x.exp", NULL, &d);
    cr_assert_null(s);
    cr_assert(strstr(d.msg, "cannot open"), "%s", d.msg);
}

Test(malformed, random_corruptions_never_crash)
{
    /* Random byte edits of corpus files: each is read or refused with a
     * position inside the buffer; never a crash (the fuzz target goes deeper). */
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    int rounds = tc_sanitized() ? 100 : 600;
    static const char alphabet[] = "()*+-{},abcd0129_ \n\t#x[]\":.e\\";
    /* the corpus files as they are, then each written as JSON */
    for (size_t i = 0; i < 2 * NCORPUS; i++) {
        size_t len;
        char *orig;
        if (i < NCORPUS) {
            orig = slurp_or_die(tc_corpus(CORPUS[i].path), &len);
        } else {
            scheme_diag d0;
            scheme *s0 = scheme_read_file(tc_corpus(CORPUS[i - NCORPUS].path), NULL, &d0);
            cr_assert_not_null(s0);
            orig = write_to_string(s0, SCHEME_FILE_JSON, &len);
            scheme_free(s0);
        }
        char *buf = malloc(len);
        for (int r = 0; r < rounds / (int)NCORPUS + 1; r++) {
            memcpy(buf, orig, len);
            int edits = 1 + (int)scheme_rng_below(&rng, 3);
            for (int e = 0; e < edits; e++)
                buf[scheme_rng_below(&rng, (uint32_t)len)] = alphabet[scheme_rng_below(&rng, sizeof alphabet - 1)];
            size_t cut = scheme_rng_below(&rng, 4) == 0 ? scheme_rng_below(&rng, (uint32_t)len + 1) : len;
            scheme_diag d;
            scheme *s = scheme_read_buffer(buf, cut, "edit", NULL, &d);
            if (s) {
                cr_assert_geq(s->rank, 1);
                cr_assert(scheme_format_valid(s->fmt));
                scheme_free(s);
            } else {
                int lines = 1;
                for (size_t k = 0; k < cut; k++)
                    lines += buf[k] == '\n';
                cr_assert(d.line >= 1 && d.line <= lines, "%s%s seed %llu: line %d of %d: %s",
                          CORPUS[i % NCORPUS].path, i < NCORPUS ? "" : " as JSON",
                          (unsigned long long)seed, d.line, lines, d.msg);
                cr_assert(d.msg[0]);
            }
        }
        free(buf);
        free(orig);
    }
}

/* ------------------------------------------------ writers, random schemes */

static bool all_zero(const int8_t *v, int n)
{
    for (int i = 0; i < n; i++)
        if (v[i])
            return false;
    return true;
}

static scheme *random_scheme(scheme_rng *rng, scheme_format f, bool z, int rank)
{
    scheme *s = scheme_new(f, z ? SCHEME_RING_Z : SCHEME_RING_F2, rank);
    for (int r = 0; r < rank; r++) {
        scheme_zterm t;
        memset(&t, 0, sizeof t);
        uint64_t w[3] = {0, 0, 0};
        for (int pos = 0; pos < 3; pos++) {
            int size = scheme_factor_size(f, pos);
            do {
                for (int e = 0; e < size; e++) {
                    int v = 0;
                    uint32_t roll = scheme_rng_below(rng, 8);
                    if (roll == 0)
                        v = (int)scheme_rng_below(rng, 256) - 128; /* -128..127, extremes included */
                    else if (roll < 3)
                        v = roll == 1 ? 1 : -1;
                    if (!z)
                        v &= 1;
                    t.z[pos][e] = (int8_t)v;
                    w[pos] |= (uint64_t)(v & 1) << e;
                }
            } while (z ? all_zero(t.z[pos], size) : w[pos] == 0);
        }
        if (z)
            scheme_push_z(s, &t);
        else
            scheme_push(s, w[0], w[1], w[2]);
    }
    return s;
}

Test(write, random_schemes_round_trip_in_every_format)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    int rounds = tc_sanitized() ? 60 : 300;
    for (int round = 0; round < rounds; round++) {
        scheme_format f;
        do {
            f.n = 1 + (int)scheme_rng_below(&rng, 64);
            f.m = 1 + (int)scheme_rng_below(&rng, 64 / f.n);
            f.p = 1 + (int)scheme_rng_below(&rng, 64 / (f.n > f.m ? f.n : f.m));
        } while (!scheme_format_valid(f));
        bool z = scheme_rng_below(&rng, 2);
        int rank = 1 + (int)scheme_rng_below(&rng, 40);
        scheme *s = random_scheme(&rng, f, z, rank);
        scheme_file_kind kinds[] = {SCHEME_FILE_NATIVE, SCHEME_FILE_M, SCHEME_FILE_JSON, SCHEME_FILE_EXP, SCHEME_FILE_TXT};
        bool small = f.n <= 9 && f.m <= 9 && f.p <= 9;
        for (int k = 0; k < 5; k++) {
            char err[256];
            bool can = scheme_writable(s, kinds[k], err, sizeof err);
            cr_assert_eq(can, k < 3 || small, "seed %llu: %s", (unsigned long long)seed, err);
            if (!can) {
                /* In memory: a refusal must not write a byte. */
                char *sink_buf = NULL;
                size_t sink_len = 0;
                FILE *sink = open_memstream(&sink_buf, &sink_len);
                cr_assert_not_null(sink);
                errno = 0;
                cr_assert_not(scheme_write(s, kinds[k], sink));
                cr_assert_eq(errno, EINVAL);
                fclose(sink);
                cr_assert_eq(sink_len, 0, "seed %llu: a refused write wrote %zu bytes",
                             (unsigned long long)seed, sink_len);
                free(sink_buf);
                continue;
            }
            char *txt = write_to_string(s, kinds[k], NULL);
            scheme_diag d;
            /* exp/txt infer the format from the indices present: give it. */
            scheme *back = read_text(txt, k >= 3 ? &f : NULL, &d);
            cr_assert_not_null(back, "seed %llu, %s <%d,%d,%d>: %d:%d: %s", (unsigned long long)seed,
                               scheme_file_kind_name(kinds[k]), f.n, f.m, f.p, d.line, d.col, d.msg);
            /* A Z scheme whose coefficients are all 0/1 and unsigned reads back as GF(2) from the published formats. */
            if (back->ring != s->ring) {
                cr_assert(kinds[k] != SCHEME_FILE_NATIVE && kinds[k] != SCHEME_FILE_JSON);
                scheme *f2 = scheme_to_f2(s);
                cr_assert(scheme_equal(back, f2), "seed %llu", (unsigned long long)seed);
                scheme_free(f2);
            } else {
                cr_assert(scheme_equal(back, s), "seed %llu, %s <%d,%d,%d>", (unsigned long long)seed,
                          scheme_file_kind_name(kinds[k]), f.n, f.m, f.p);
            }
            scheme_free(back);
            free(txt);
        }
        scheme_free(s);
    }
}

Test(write, refuses_what_no_file_can_hold)
{
    char err[256];
    scheme *s = scheme_new((scheme_format){2, 2, 2}, SCHEME_RING_F2, 2);
    cr_assert_not(scheme_writable(s, SCHEME_FILE_EXP, err, sizeof err), "rank 0");
    scheme_push(s, 1, 0, 1);
    cr_assert_not(scheme_writable(s, SCHEME_FILE_NATIVE, err, sizeof err));
    cr_assert(strstr(err, "zero"), "%s", err);
    s->terms[0].f[1] = 1ull << 4; /* outside a 2 x 2 factor */
    cr_assert_not(scheme_writable(s, SCHEME_FILE_NATIVE, err, sizeof err));
    s->terms[0].f[1] = 2;
    cr_assert(scheme_writable(s, SCHEME_FILE_NATIVE, err, sizeof err), "%s", err);
    cr_assert_not(scheme_writable(s, SCHEME_FILE_UNKNOWN, err, sizeof err));
    scheme_free(s);
}

/* ------------------------------------------- through `flipgraph convert` */

/* Runs a shell command; returns its exit code, stderr in err. */
static int run(const char *cmd, char *err, size_t errlen)
{
    return tc_exit_code(tc_system_capture(cmd, NULL, 0, err, errlen));
}

static char *tmp_file(const char *dir, const char *name, const char *text)
{
    static char path[4][4096];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

Test(convert_cli, malformed_input_exits_2_naming_the_line)
{
    if (!tc_bin_or_null())
        cr_skip_test("FLIPGRAPH_BIN is not set");
    char dir[256];
    tc_temp_dir(dir, sizeof dir, "fg_test_conv");
    struct { const char *name, *text, *opts, *where; } cases[] = {
        {"unbalanced.exp", "(a11)*(b11)*(c11)\n(a11+a12*(b11)*(c11)\n", "", ":2:9: "},
        {"sign.exp", "(a11)*(b11)*(c11)\n(a11)*(b11)+(c11)\n", "", ":2:12: "},
        {"overflow.exp", "(a11)*(b11)*(c11)\n\n(300*a11)*(b11)*(c11)\n", "", ":3:2: "},
        {"dims.exp", "(a11)*(b11)*(c11)\n(a13)*(b11)*(c11)\n", "--dims 2x2x2", ":2:2: "},
        {"short.m", "{{{{1,0},{0,1}},{{1,0},{0,1}},\n{{1,0},{0,1}}},\n{{{1,0}", "", ":3:8: "},
        {"empty.exp", "", "", ":1:1: "},
        {"fraction.json", "{\"n\": [1, 1, 1],\n \"u\": [[0.5]], \"v\": [[1]], \"w\": [[1]]}", "", ":2:9: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *p = tmp_file(dir, cases[i].name, cases[i].text);
        char cmd[16384], err[4096], want[4200];
        snprintf(cmd, sizeof cmd, "'%s' convert --to exp %s '%s' -o '%s/out'", tc_bin(), cases[i].opts, p, dir);
        int rc = run(cmd, err, sizeof err);
        cr_assert_eq(rc, 2, "%s: exit %d, stderr: %s", cases[i].name, rc, err);
        snprintf(want, sizeof want, "%s%s", p, cases[i].where);
        cr_assert(strstr(err, want), "%s: stderr lacks '%s': %s", cases[i].name, want, err);
        char out[4200];
        snprintf(out, sizeof out, "%s/out", dir);
        cr_assert_neq(access(out, F_OK), 0, "%s: output written despite the error", cases[i].name);
        unlink(p);
    }
    rmdir(dir);
}

Test(convert_cli, converts_there_and_back)
{
    if (!tc_bin_or_null())
        cr_skip_test("FLIPGRAPH_BIN is not set");
    char dir[256];
    tc_temp_dir(dir, sizeof dir, "fg_test_conv");
    char cmd[16384], err[4096];
    char log[512];
    snprintf(log, sizeof log, "%s/stdout.txt", dir);
    snprintf(cmd, sizeof cmd, "'%s' convert --help >'%s'", tc_bin(), log);
    cr_assert_eq(run(cmd, err, sizeof err), 0);
    snprintf(cmd, sizeof cmd, "'%s' convert --to nonsense x", tc_bin());
    cr_assert_eq(run(cmd, err, sizeof err), 2);
    snprintf(cmd, sizeof cmd, "'%s' convert '%s'", tc_bin(), tc_corpus("arai/455_73.m"));
    cr_assert_eq(run(cmd, err, sizeof err), 2, "--to missing");
    /* Each file to native and back to .exp, and to JSON (the catalogue's keys) and back to native. */
    static const char *files[] = {"moosbauer-poole/555l.txt", "arai/455_73.m", "kauers-moosbauer/444-49-mod0.exp"};
    static const char *const via[2][2] = {{"native", "exp"}, {"json", "native"}};
    for (int i = 0; i < 3; i++)
        for (int v = 0; v < 2; v++) {
            char mid[512], back[512];
            snprintf(mid, sizeof mid, "%s/x.%s", dir, via[v][0]);
            snprintf(back, sizeof back, "%s/y.%s", dir, via[v][1]);
            snprintf(cmd, sizeof cmd, "'%s' convert --to=%s '%s' -o '%s' && '%s' convert --to %s '%s' --output='%s'",
                     tc_bin(), via[v][0], tc_corpus(files[i]), mid, tc_bin(), via[v][1], mid, back);
            cr_assert_eq(run(cmd, err, sizeof err), 0, "%s", err);
            scheme_diag d;
            scheme *a = scheme_read_file(tc_corpus(files[i]), NULL, &d);
            scheme *b = scheme_read_file(back, NULL, &d);
            cr_assert_not_null(b, "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
            cr_assert(scheme_equal(a, b), "%s through %s", files[i], via[v][0]);
            if (v == 1) {
                size_t len;
                char *text = slurp_or_die(mid, &len);
                cr_assert(strstr(text, "\"u\": [") && strstr(text, "\"z2\": "), "%s", files[i]);
                free(text);
            }
            scheme_free(a);
            scheme_free(b);
            unlink(mid);
            unlink(back);
        }
    /* A format with a dimension above 9 converts to native but not to .exp. */
    char *p = tmp_file(dir, "wide.native",
                       "flipgraph-scheme 1\nformat 2x32x2\nring f2\nrank 1\n(a1_12)*(b12_1)*(c1_1)\n");
    snprintf(cmd, sizeof cmd, "'%s' convert --to exp '%s' >'%s'", tc_bin(), p, log);
    cr_assert_eq(run(cmd, err, sizeof err), 2);
    cr_assert(strstr(err, "native"), "%s", err);
    snprintf(cmd, sizeof cmd, "'%s' convert --to native '%s' >'%s'", tc_bin(), p, log);
    cr_assert_eq(run(cmd, err, sizeof err), 0, "%s", err);
    unlink(p);
    unlink(log);
    rmdir(dir);
}
