/* Tests of the moves between formats (search/resize.c, docs/resize.md) and of
 * `flipgraph resize`.
 *
 * Differential, on fresh random inputs: the bit re-layout of search_project
 * and search_extend against a plain reference that goes entry by entry
 * through (row, col) pairs; projections of valid schemes (the standard
 * algorithm walked by search_walker) verify for the smaller format;
 * projection then extension returns to the format; the extension of a
 * standard algorithm is the larger standard algorithm; walked schemes resized
 * to every neighbouring format verify, and a projection is at most the lowest
 * rank any single index gives.  The seed comes from /dev/urandom
 * (FLIPGRAPH_SEED=<seed> replays) and every assertion that depends on it
 * prints it.  The walks are long enough (up to a million flips, a tenth of a
 * second) to leave the standard algorithm far behind: <3,3,3> reaches 23,
 * <4,4,4> the fifties.  The CLI tests write only inside their own temporary folder. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schemes/scheme.h"
#include "search/search.h"
#include "test_common.h"
#include "verify/verify.h"

static unsigned long long g_seed;

#define CHECK(cond, ...) \
    cr_assert(cond, "%s [seed %llu: FLIPGRAPH_SEED=%llu replays]", tc_fmt(__VA_ARGS__), g_seed, g_seed)

/* Run by hand from the build folder (./test_resize), where ctest's environment
 * is not set: the flipgraph binary beside this one and the corpus of the
 * build's source tree (CMakeCache.txt), else of the folder above, where they
 * are (variables already set win). */
static void default_env(void)
{
    char exe[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = 0;
    if (!tc_bin_or_null()) {
        snprintf(path, sizeof path, "%s/flipgraph", exe);
        if (access(path, X_OK) == 0)
            setenv("FLIPGRAPH_BIN", path, 1);
    }
    const char *c = getenv("FLIPGRAPH_CORPUS"), *src = getenv("FLIPGRAPH_SOURCE");
    if ((c && *c) || (src && *src))
        return;
    /* the build folder's source tree (CMakeCache.txt), else the folder above */
    char line[4096];
    snprintf(path, sizeof path, "%s/CMakeCache.txt", exe);
    FILE *f = fopen(path, "r");
    path[0] = 0;
    static const char key[] = "CMAKE_HOME_DIRECTORY:INTERNAL=";
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, sizeof key - 1)) {
            line[strcspn(line, "\r\n")] = 0;
            snprintf(path, sizeof path, "%s/data/corpus", line + sizeof key - 1);
            break;
        }
    if (f)
        fclose(f);
    if (!path[0] || !tc_exists(path))
        snprintf(path, sizeof path, "%s/../data/corpus", exe);
    if (tc_exists(path))
        setenv("FLIPGRAPH_CORPUS", path, 1);
}

static void seed_only(void)
{
    default_env();
    g_seed = tc_seed("FLIPGRAPH_SEED");
}

static void seed_and_dir(void)
{
    seed_only();
    tc_suite_dir_make("fg-test-resize");
}

TestSuite(resize, .init = seed_only);
TestSuite(resize_cli, .init = seed_and_dir, .fini = tc_suite_dir_remove);

static int scaled(int n) { return tc_sanitized() ? (n / 10 > 0 ? n / 10 : 1) : n; }

static void dims_of(scheme_format f, int d[3])
{
    d[0] = f.n;
    d[1] = f.m;
    d[2] = f.p;
}

static scheme_format fmt_of(const int d[3]) { return (scheme_format){d[0], d[1], d[2]}; }

static bool same_fmt(scheme_format x, scheme_format y) { return x.n == y.n && x.m == y.m && x.p == y.p; }

/* ---- the reference: entry by entry ---- */

/* Which dimension the rows and the columns of each factor run over
 * (a: n x m, b: m x p, c: p x n), written out rather than derived. */
static const int row_dim[3] = {0, 1, 2};
static const int col_dim[3] = {1, 2, 0};

/* Term t with index `index` of dimension dim deleted, entry by entry; false
 * when a factor became zero (the term is dropped). */
static bool ref_project_term(scheme_format f, const scheme_term *t, int dim, int index, scheme_term *out)
{
    int d[3], nd[3];
    dims_of(f, d);
    memcpy(nd, d, sizeof nd);
    nd[dim]--;
    for (int pos = 0; pos < 3; pos++) {
        int rows = d[row_dim[pos]], cols = d[col_dim[pos]], ncols = nd[col_dim[pos]];
        uint64_t w = 0;
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++) {
                if (!(t->f[pos] >> (r * cols + c) & 1))
                    continue;
                int nr = r, nc = c;
                if (row_dim[pos] == dim) {
                    if (r == index)
                        continue;
                    if (r > index)
                        nr = r - 1;
                }
                if (col_dim[pos] == dim) {
                    if (c == index)
                        continue;
                    if (c > index)
                        nc = c - 1;
                }
                w |= 1ull << (nr * ncols + nc);
            }
        out->f[pos] = w;
    }
    return out->f[0] && out->f[1] && out->f[2];
}

/* Term t laid out for the format with dimension dim one larger. */
static scheme_term ref_extend_term(scheme_format f, const scheme_term *t, int dim)
{
    int d[3], nd[3];
    dims_of(f, d);
    memcpy(nd, d, sizeof nd);
    nd[dim]++;
    scheme_term out;
    for (int pos = 0; pos < 3; pos++) {
        int rows = d[row_dim[pos]], cols = d[col_dim[pos]], ncols = nd[col_dim[pos]];
        uint64_t w = 0;
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++)
                if (t->f[pos] >> (r * cols + c) & 1)
                    w |= 1ull << (r * ncols + c);
        out.f[pos] = w;
    }
    return out;
}

/* The slice's standard terms a_ij b_jk c_ki of the larger format, in the
 * loop order i, j, k, with the index of dimension dim at its new value. */
static int ref_slice(scheme_format f, int dim, scheme_term *out)
{
    int d[3];
    dims_of(f, d);
    scheme_format g = f;
    if (dim == 0)
        g.n++;
    else if (dim == 1)
        g.m++;
    else
        g.p++;
    int k = 0;
    for (int i = 0; i < g.n; i++)
        for (int j = 0; j < g.m; j++)
            for (int kk = 0; kk < g.p; kk++) {
                int idx[3] = {i, j, kk};
                if (idx[dim] != d[dim])
                    continue;
                out[k++] = (scheme_term){{1ull << (i * g.m + j), 1ull << (j * g.p + kk), 1ull << (kk * g.n + i)}};
            }
    return k;
}

static int term_cmp(const void *x, const void *y)
{
    const scheme_term *a = x, *b = y;
    for (int p = 0; p < 3; p++)
        if (a->f[p] != b->f[p])
            return a->f[p] < b->f[p] ? -1 : 1;
    return 0;
}

/* ---- random inputs ---- */

static scheme_format random_format(scheme_rng *rng, int maxdim)
{
    for (;;) {
        scheme_format f = {1 + (int)scheme_rng_below(rng, (uint32_t)maxdim),
                           1 + (int)scheme_rng_below(rng, (uint32_t)maxdim),
                           1 + (int)scheme_rng_below(rng, (uint32_t)maxdim)};
        if (scheme_format_valid(f))
            return f;
    }
}

static uint64_t mask_of(int entries) { return entries >= 64 ? ~0ull : (1ull << entries) - 1; }

/* Random terms (not a scheme): sparse or dense words inside each factor. */
static scheme *random_terms(scheme_format f, int rank, scheme_rng *rng)
{
    scheme *s = scheme_new(f, SCHEME_RING_F2, rank);
    cr_assert_not_null(s);
    for (int r = 0; r < rank; r++) {
        uint64_t w[3];
        for (int pos = 0; pos < 3; pos++) {
            uint64_t m = mask_of(scheme_factor_size(f, pos));
            do {
                w[pos] = scheme_rng_next(rng);
                if (scheme_rng_below(rng, 2))
                    w[pos] &= scheme_rng_next(rng) & scheme_rng_next(rng);
                w[pos] &= m;
            } while (!w[pos]);
        }
        cr_assert(scheme_push(s, w[0], w[1], w[2]));
    }
    return s;
}

/* The standard algorithm of f walked for `flips` flips (plus transitions
 * included): a fresh valid scheme. */
static scheme *walked(scheme_format f, uint64_t seed, uint64_t flips)
{
    search_params p;
    search_params_default(&p);
    p.fmt = f;
    scheme *st = scheme_standard(f);
    cr_assert_not_null(st);
    search_walker *w = search_walker_new(st, &p, seed, 0);
    cr_assert_not_null(w);
    search_walker_walk(w, flips, search_walker_rank(w), 0);
    scheme *s = search_walker_snapshot(w);
    cr_assert_not_null(s);
    search_walker_free(w);
    scheme_free(st);
    verify_result vr;
    char fb[32];
    CHECK(verify_f2(s, &vr), "walked %s: %s", scheme_format_str(f, fb), vr.msg);
    return s;
}

static void check_valid(const scheme *s, scheme_format want, const char *what)
{
    char fa[32], fb[32];
    CHECK(s, "%s: NULL", what);
    CHECK(same_fmt(s->fmt, want), "%s: format %s, expected %s", what, scheme_format_str(s->fmt, fa),
          scheme_format_str(want, fb));
    CHECK(s->ring == SCHEME_RING_F2, "%s: not over GF(2)", what);
    verify_result vr;
    CHECK(verify_f2(s, &vr), "%s: invalid %s rank %d: %s", what, scheme_format_str(s->fmt, fa), s->rank,
          vr.msg);
    for (int r = 0; r < s->rank; r++)
        CHECK(s->terms[r].f[0] && s->terms[r].f[1] && s->terms[r].f[2], "%s: term %d has a zero factor",
              what, r);
}

static scheme_format shifted(scheme_format f, int dim, int by)
{
    int d[3];
    dims_of(f, d);
    d[dim] += by;
    return fmt_of(d);
}

/* ---- re-layout against the reference ---- */

Test(resize, project_relayout_matches_the_entry_reference)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    char fb[32];
    for (int it = 0; it < scaled(3000); it++) {
        scheme_format f = random_format(&rng, 16);
        int d[3];
        dims_of(f, d);
        int dim = (int)scheme_rng_below(&rng, 3);
        if (d[dim] == 1)
            continue;
        int index = (int)scheme_rng_below(&rng, (uint32_t)d[dim]);
        scheme *s = random_terms(f, 1 + (int)scheme_rng_below(&rng, 40), &rng);
        scheme *p = search_project(s, dim, index);
        CHECK(p, "project %s dim %d index %d: NULL", scheme_format_str(f, fb), dim, index);
        CHECK(same_fmt(p->fmt, shifted(f, dim, -1)), "project %s dim %d: wrong format",
              scheme_format_str(f, fb), dim);
        int k = 0;
        for (int r = 0; r < s->rank; r++) {
            scheme_term want;
            if (!ref_project_term(f, &s->terms[r], dim, index, &want))
                continue;
            CHECK(k < p->rank, "project %s dim %d index %d: too few terms", scheme_format_str(f, fb), dim,
                  index);
            for (int pos = 0; pos < 3; pos++)
                CHECK(p->terms[k].f[pos] == want.f[pos],
                      "project %s dim %d index %d term %d factor %d: %#llx, reference %#llx (input %#llx)",
                      scheme_format_str(f, fb), dim, index, r, pos, (unsigned long long)p->terms[k].f[pos],
                      (unsigned long long)want.f[pos], (unsigned long long)s->terms[r].f[pos]);
            k++;
        }
        CHECK(k == p->rank, "project %s dim %d index %d: %d terms, reference %d", scheme_format_str(f, fb),
              dim, index, p->rank, k);
        scheme_free(p);
        scheme_free(s);
    }
}

Test(resize, extend_relayout_matches_the_entry_reference)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed ^ 0x5bd1e995u);
    char fb[32];
    scheme_term slice[64];
    for (int it = 0; it < scaled(3000); it++) {
        scheme_format f = random_format(&rng, 16);
        int dim = (int)scheme_rng_below(&rng, 3);
        scheme_format g = shifted(f, dim, 1);
        scheme *s = random_terms(f, 1 + (int)scheme_rng_below(&rng, 40), &rng);
        scheme *e = search_extend(s, dim);
        if (!scheme_format_valid(g)) {
            CHECK(!e, "extend %s dim %d: a result beyond 64 entries", scheme_format_str(f, fb), dim);
            scheme_free(s);
            continue;
        }
        CHECK(e, "extend %s dim %d: NULL", scheme_format_str(f, fb), dim);
        CHECK(same_fmt(e->fmt, g), "extend %s dim %d: wrong format", scheme_format_str(f, fb), dim);
        int ns = ref_slice(f, dim, slice);
        CHECK(e->rank == s->rank + ns, "extend %s dim %d: rank %d, reference %d", scheme_format_str(f, fb),
              dim, e->rank, s->rank + ns);
        for (int r = 0; r < s->rank; r++) {
            scheme_term want = ref_extend_term(f, &s->terms[r], dim);
            for (int pos = 0; pos < 3; pos++)
                CHECK(e->terms[r].f[pos] == want.f[pos],
                      "extend %s dim %d term %d factor %d: %#llx, reference %#llx", scheme_format_str(f, fb),
                      dim, r, pos, (unsigned long long)e->terms[r].f[pos], (unsigned long long)want.f[pos]);
        }
        /* the slice as a set */
        scheme_term got[64];
        memcpy(got, e->terms + s->rank, sizeof(scheme_term) * (size_t)ns);
        qsort(got, (size_t)ns, sizeof *got, term_cmp);
        qsort(slice, (size_t)ns, sizeof *slice, term_cmp);
        CHECK(!memcmp(got, slice, sizeof(scheme_term) * (size_t)ns), "extend %s dim %d: the new slice differs",
              scheme_format_str(f, fb), dim);
        scheme_free(e);
        scheme_free(s);
    }
}

/* ---- valid schemes ---- */

static const scheme_format walk_formats[] = {{3, 3, 3}, {3, 4, 4}, {4, 4, 4}, {2, 3, 5}, {4, 3, 2}, {2, 2, 2}};
#define NWALK (sizeof walk_formats / sizeof *walk_formats)

Test(resize, projections_of_valid_schemes_verify, .timeout = 300)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed ^ 0x1234567u);
    char fb[32], what[200];
    for (int round = 0; round < scaled(4); round++)
        for (size_t fi = 0; fi < NWALK; fi++) {
            scheme_format f = walk_formats[fi];
            scheme *s = walked(f, scheme_rng_next(&rng), 1000 + scheme_rng_below(&rng, 300000));
            int d[3];
            dims_of(f, d);
            for (int dim = 0; dim < 3; dim++) {
                if (d[dim] == 1)
                    continue;
                int index = (int)scheme_rng_below(&rng, (uint32_t)d[dim]);
                scheme *p = search_project(s, dim, index);
                snprintf(what, sizeof what, "project walked %s rank %d dim %d index %d", scheme_format_str(f, fb),
                         s->rank, dim, index);
                check_valid(p, shifted(f, dim, -1), what);
                CHECK(p->rank <= s->rank, "%s: rank %d grew", what, p->rank);
                /* and then back: the extension of the projection */
                scheme *e = search_extend(p, dim);
                snprintf(what, sizeof what, "project then extend walked %s rank %d dim %d index %d",
                         scheme_format_str(f, fb), s->rank, dim, index);
                check_valid(e, f, what);
                scheme_free(e);
                scheme_free(p);
            }
            scheme_free(s);
        }
}

Test(resize, project_then_extend_of_every_index_returns_to_the_format)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed ^ 0xabcdefu);
    char fb[32], what[200];
    for (size_t fi = 0; fi < NWALK; fi++) {
        scheme_format f = walk_formats[fi];
        scheme *s = walked(f, scheme_rng_next(&rng), 200000);
        int d[3];
        dims_of(f, d);
        for (int dim = 0; dim < 3; dim++)
            for (int index = 0; index < d[dim]; index++) {
                scheme *p = search_project(s, dim, index);
                if (d[dim] == 1) {
                    CHECK(!p, "project of a dimension 1 gave a scheme");
                    continue;
                }
                search_reduce_all(p->terms, &p->rank, 5);
                scheme *e = search_extend(p, dim);
                snprintf(what, sizeof what, "%s rank %d: project dim %d index %d, reduce, extend",
                         scheme_format_str(f, fb), s->rank, dim, index);
                check_valid(e, f, what);
                scheme_free(e);
                scheme_free(p);
            }
        scheme_free(s);
    }
}

Test(resize, extension_of_a_standard_algorithm_is_the_standard_algorithm)
{
    char fa[32];
    int checked = 0;
    for (int n = 1; n <= 16; n++)
        for (int m = 1; m <= 16; m++)
            for (int p = 1; p <= 16; p++) {
                scheme_format f = {n, m, p};
                if (!scheme_format_valid(f) || n * m * p > 200)
                    continue;
                scheme *s = scheme_standard(f);
                cr_assert_not_null(s);
                for (int dim = 0; dim < 3; dim++) {
                    scheme_format g = shifted(f, dim, 1);
                    scheme *e = search_extend(s, dim);
                    if (!scheme_format_valid(g)) {
                        cr_assert_null(e, "%s dim %d: extended beyond 64 entries", scheme_format_str(f, fa), dim);
                        continue;
                    }
                    scheme *want = scheme_standard(g);
                    cr_assert_not_null(e, "%s dim %d: NULL", scheme_format_str(f, fa), dim);
                    cr_assert(scheme_equal(e, want), "%s dim %d: not the standard algorithm of the larger format",
                              scheme_format_str(f, fa), dim);
                    checked++;
                    /* and the projection of the last index is the smaller one again */
                    scheme *back = search_project(e, dim, (dim == 0 ? n : dim == 1 ? m : p));
                    cr_assert_not_null(back);
                    cr_assert(scheme_equal(back, s), "%s dim %d: extend then project the new index",
                              scheme_format_str(f, fa), dim);
                    scheme_free(back);
                    scheme_free(want);
                    scheme_free(e);
                }
                scheme_free(s);
            }
    cr_assert_gt(checked, 100);
}

/* Every format within one of f in each dimension (f itself included). */
static int neighbours(scheme_format f, scheme_format *out)
{
    int k = 0;
    for (int a = -1; a <= 1; a++)
        for (int b = -1; b <= 1; b++)
            for (int c = -1; c <= 1; c++) {
                scheme_format g = {f.n + a, f.m + b, f.p + c};
                if (scheme_format_valid(g))
                    out[k++] = g;
            }
    return k;
}

Test(resize, walked_schemes_resized_to_neighbouring_formats_verify, .timeout = 600)
{
    static const scheme_format fs[] = {{3, 3, 3}, {3, 4, 4}, {4, 4, 4}};
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed ^ 0x77777u);
    char fa[32], fb[32], err[600], what[300];
    for (size_t fi = 0; fi < sizeof fs / sizeof *fs; fi++) {
        scheme *s = walked(fs[fi], scheme_rng_next(&rng), 20000 + scheme_rng_below(&rng, 1000000));
        scheme_format nb[32];
        int nn = neighbours(fs[fi], nb);
        /* two steps away as well */
        nb[nn++] = shifted(shifted(fs[fi], 0, -1), 2, 1);
        nb[nn++] = shifted(shifted(fs[fi], 1, -2), 0, -1);
        nb[nn++] = shifted(fs[fi], 2, 2);
        for (int t = 0; t < nn; t++) {
            scheme_format to = nb[t];
            scheme *r = search_resize(s, to, err, sizeof err);
            snprintf(what, sizeof what, "resize walked %s rank %d to %s", scheme_format_str(fs[fi], fa),
                     s->rank, scheme_format_str(to, fb));
            CHECK(r, "%s: %s", what, err);
            check_valid(r, to, what);
            /* one projection: at most the lowest rank any index leaves */
            int d[3], w[3];
            dims_of(fs[fi], d);
            dims_of(to, w);
            int diff = 0, dim = -1;
            for (int i = 0; i < 3; i++)
                if (d[i] != w[i]) {
                    diff++;
                    dim = i;
                }
            if (diff == 1 && w[dim] == d[dim] - 1) {
                /* one projection: the first index that leaves the lowest rank
                 * after the reductions, and nothing else */
                scheme *best = NULL;
                int best_index = -1;
                for (int index = 0; index < d[dim]; index++) {
                    scheme *p = search_project(s, dim, index);
                    cr_assert_not_null(p);
                    search_reduce_all(p->terms, &p->rank, 5);
                    if (!best || p->rank < best->rank) {
                        scheme_free(best);
                        best = p;
                        best_index = index;
                    } else
                        scheme_free(p);
                }
                CHECK(r->rank == best->rank, "%s: rank %d, but index %d gives %d", what, r->rank, best_index,
                      best->rank);
                CHECK(scheme_equal(r, best), "%s: not the projection of index %d, reduced", what, best_index);
                scheme_free(best);
            }
            if (diff == 1 && w[dim] == d[dim] + 1) {
                /* one extension: the slice's standard terms, reduced */
                int slice = w[0] * w[1] * w[2] / w[dim];
                CHECK(r->rank <= s->rank + slice, "%s: rank %d above %d + %d", what, r->rank, s->rank, slice);
                scheme *e = search_extend(s, dim);
                cr_assert_not_null(e);
                search_reduce_all(e->terms, &e->rank, 5);
                CHECK(scheme_equal(r, e), "%s: not the extension, reduced", what);
                scheme_free(e);
            }
            if (diff == 0) {
                scheme *c = scheme_clone(s);
                cr_assert_not_null(c);
                search_reduce_all(c->terms, &c->rank, 5);
                CHECK(scheme_equal(r, c), "%s: the same format changed the scheme", what);
                scheme_free(c);
            }
            scheme_free(r);
        }
        scheme_free(s);
    }
}

Test(resize, corpus_schemes_resize_and_integer_files_reduce_mod_2)
{
    static const struct {
        const char *file;
        scheme_format to;
    } cases[] = {
        {"kauers-moosbauer/444-47-mod2.exp", {3, 4, 4}},
        {"kauers-moosbauer/444-47-mod2.exp", {4, 5, 4}},
        {"kauers-moosbauer/444-49-mod0.exp", {4, 4, 3}}, /* over Z: its reduction mod 2 */
        {"moosbauer-poole/555m93.txt", {4, 5, 5}},
        {"arai/455_73.m", {4, 4, 5}},
    };
    char err[600], fb[32], what[300];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        scheme *s = tc_read_corpus(cases[i].file);
        scheme *r = search_resize(s, cases[i].to, err, sizeof err);
        snprintf(what, sizeof what, "%s to %s", cases[i].file, scheme_format_str(cases[i].to, fb));
        cr_assert_not_null(r, "%s: %s", what, err);
        check_valid(r, cases[i].to, what);
        scheme_free(r);
        scheme_free(s);
    }
}

Test(resize, refusals)
{
    char err[600];
    scheme *s = scheme_standard((scheme_format){1, 3, 4});
    cr_assert_null(search_project(s, 0, 0), "a dimension of 1 cannot be projected");
    cr_assert_null(search_project(s, 1, 3), "index out of range");
    cr_assert_null(search_project(s, 1, -1), "index out of range");
    cr_assert_null(search_project(s, 3, 0), "dim out of range");
    cr_assert_null(search_extend(s, 3), "dim out of range");
    scheme *one = search_extend(s, 0);
    check_valid(one, (scheme_format){2, 3, 4}, "<1,3,4> extended in n");
    scheme_free(one);
    scheme_free(s);

    s = scheme_standard((scheme_format){8, 8, 1});
    cr_assert_null(search_extend(s, 0), "<9,8,1> has 72 entries in a");
    cr_assert_null(search_extend(s, 1), "<8,9,1> has 72 entries in a");
    scheme *e = search_extend(s, 2); /* <8,8,2>: 64, 16 and 16 entries, a format */
    cr_assert_not_null(e);
    check_valid(e, (scheme_format){8, 8, 2}, "<8,8,1> extended in p");
    scheme_free(e);
    scheme_free(s);

    /* integer schemes: scheme_to_f2 first */
    scheme *z = tc_read_corpus("kauers-moosbauer/444-49-mod0.exp");
    cr_assert_eq(z->ring, SCHEME_RING_Z);
    cr_assert_null(search_project(z, 0, 0));
    cr_assert_null(search_extend(z, 0));
    scheme_free(z);

    /* resize: not a format; an invalid input */
    s = scheme_standard((scheme_format){2, 2, 2});
    err[0] = 0;
    cr_assert_null(search_resize(s, (scheme_format){9, 9, 2}, err, sizeof err));
    cr_assert(strstr(err, "not a format"), "%s", err);
    cr_assert_null(search_resize(s, (scheme_format){0, 2, 2}, err, sizeof err));
    scheme_remove(s, 3);
    err[0] = 0;
    cr_assert_null(search_resize(s, (scheme_format){2, 2, 3}, err, sizeof err));
    cr_assert(strstr(err, "not a valid scheme") && strstr(err, "GF(2)"), "%s", err);
    cr_assert(!strstr(err, "BUG"), "%s", err);
    scheme_free(s);
}

/* ---- the command ---- */

static void write_scheme(const scheme *s, const char *path, scheme_file_kind kind)
{
    char err[600];
    scheme_write_ctx w = {s, kind};
    cr_assert(scheme_write_file_atomic(path, scheme_write_cb, &w, err, sizeof err), "%s", err);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* `flipgraph verify FILE`: exit 0 and the format in its line. */
static void cli_verifies(const char *path, scheme_format want)
{
    char out[4096], fb[32];
    int rc = tc_run_cli("", out, sizeof out, "verify '%s'", path);
    CHECK(rc == 0, "flipgraph verify %s: exit %d: %s", path, rc, out);
    CHECK(strstr(out, scheme_format_str(want, fb)) && strstr(out, "valid"), "flipgraph verify %s: %s", path, out);
}

Test(resize_cli, smaller_and_larger_formats_verify, .timeout = 300)
{
    char out[8192], fa[32], fb[32], expect[200];
    scheme *s = walked((scheme_format){4, 4, 4}, g_seed, 500000);
    write_scheme(s, tc_path_in("in.native"), SCHEME_FILE_NATIVE);
    static const struct {
        scheme_format to;
        const char *kind, *name;
    } cases[] = {
        {{3, 4, 4}, "native", "small.native"},
        {{4, 4, 5}, "exp", "large.exp"},
        {{3, 5, 4}, "txt", "mixed.txt"},
        {{4, 4, 4}, "m", "same.m"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *o = tc_path_in(cases[i].name);
        int rc = tc_run_cli("", out, sizeof out, "resize '%s' --dims %dx%dx%d -o '%s' --to %s",
                            tc_path_in("in.native"), cases[i].to.n, cases[i].to.m, cases[i].to.p, o,
                            cases[i].kind);
        CHECK(rc == 0, "resize to %s: exit %d: %s", scheme_format_str(cases[i].to, fb), rc, out);
        snprintf(expect, sizeof expect, "resize: %s rank %d -> %s rank ", scheme_format_str(s->fmt, fa), s->rank,
                 scheme_format_str(cases[i].to, fb));
        CHECK(strstr(out, expect) && strstr(out, "(verified over GF(2))"), "expected '%s' in: %s", expect, out);
        cli_verifies(tc_path_in(cases[i].name), cases[i].to);
        scheme *back = tc_read_or_die(o);
        cr_assert_eq(back->ring, SCHEME_RING_F2);
        char rk[64];
        snprintf(rk, sizeof rk, "rank %d (verified", back->rank);
        CHECK(strstr(out, rk), "the line names another rank than the file's %d: %s", back->rank, out);
        scheme_free(back);
    }
    scheme_free(s);

    /* an integer corpus file, reduced mod 2 */
    const char *o = tc_path_in("from-z.native");
    int rc = tc_run_cli("", out, sizeof out, "resize '%s' --dims 3x4x4 -o '%s'",
                        tc_corpus("kauers-moosbauer/444-49-mod0.exp"), o);
    CHECK(rc == 0, "resize of an integer file: exit %d: %s", rc, out);
    cli_verifies(o, (scheme_format){3, 4, 4});
}

Test(resize_cli, standard_output_carries_the_scheme)
{
    char cmd[2000];
    scheme *s = walked((scheme_format){3, 3, 3}, g_seed ^ 99, 200000);
    write_scheme(s, tc_path_in("in333.native"), SCHEME_FILE_NATIVE);
    snprintf(cmd, sizeof cmd, "'%s' resize '%s' --dims 2x3x4 2>'%s'", tc_bin(), tc_path_in("in333.native"),
             tc_path_in("stderr.txt"));
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    int rc = tc_exit_code(pclose(f));
    char *errtext = tc_slurp(tc_path_in("stderr.txt"), 1 << 16, NULL);
    CHECK(rc == 0, "exit %d: %s", rc, errtext);
    CHECK(tc_count_of(errtext, "\n") == 1 && strstr(errtext, "-> <2,3,4> rank"), "stderr: %s", errtext);
    scheme_diag d;
    memset(&d, 0, sizeof d);
    scheme *r = scheme_read_buffer(buf, n, "stdout", NULL, &d);
    CHECK(r, "stdout does not read back: %d:%d: %s", d.line, d.col, d.msg);
    check_valid(r, (scheme_format){2, 3, 4}, "stdout");
    free(errtext);
    scheme_free(r);
    scheme_free(s);
}

Test(resize_cli, bad_usage_exits_2)
{
    char out[8192];
    scheme *s = scheme_standard((scheme_format){2, 2, 2});
    const char *in = tc_path_in("std222.native");
    write_scheme(s, in, SCHEME_FILE_NATIVE);
    scheme_free(s);
    const char *o = tc_path_in("never.native");
    static const char *const bad[] = {
        "--dims 4x4",        /* malformed */
        "--dims 9x9x9",      /* 81 entries a factor */
        "--dims 0x2x2",      /* a dimension 0 */
        "--dims 2x2x65",     /* beyond 64 */
        "--dims banana",
        "",                  /* no --dims */
        "--dims 2x2x3 --to json",
        "--dims 2x2x3 --frobnicate",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = tc_run_cli("", out, sizeof out, "resize '%s' %s -o '%s'", in, bad[i], o);
        CHECK(rc == 2, "resize %s: exit %d, expected 2: %s", bad[i], rc, out);
        CHECK(strstr(out, "flipgraph resize:"), "resize %s: no message: %s", bad[i], out);
        CHECK(!tc_exists(o), "resize %s: wrote its output", bad[i]);
    }
    /* no FILE, two FILEs */
    int rc = tc_run_cli("", out, sizeof out, "resize --dims 2x2x3 -o '%s'", o);
    CHECK(rc == 2, "no FILE: exit %d: %s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "resize '%s' '%s' --dims 2x2x3 -o '%s'", in, in, o);
    CHECK(rc == 2, "two FILEs: exit %d: %s", rc, out);
    CHECK(!tc_exists(o), "%s was written", o);
    rc = tc_run_cli("", out, sizeof out, "resize --help");
    CHECK(rc == 0 && strstr(out, "exit: 0 written"), "--help: exit %d: %s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "--help");
    CHECK(rc == 0 && strstr(out, "resize"), "flipgraph --help does not list resize: %s", out);
}

Test(resize_cli, invalid_or_unreadable_input_exits_2)
{
    char out[8192];
    const char *o = tc_path_in("never.native");
    /* <2,2,2>'s standard algorithm less one term: well formed, not a scheme */
    scheme *s = scheme_standard((scheme_format){2, 2, 2});
    scheme_remove(s, 5);
    const char *bad = tc_path_in("invalid.native");
    write_scheme(s, bad, SCHEME_FILE_NATIVE);
    scheme_free(s);
    int rc = tc_run_cli("", out, sizeof out, "resize '%s' --dims 2x2x3 -o '%s'", bad, o);
    CHECK(rc == 2, "invalid input: exit %d: %s", rc, out);
    CHECK(strstr(out, "not a valid scheme") && strstr(out, "GF(2)") && !strstr(out, "BUG"), "message: %s", out);
    CHECK(!tc_exists(o), "%s was written", o);

    write_text(tc_path_in("garbage.exp"), "(a11+b12)*(b11)*\n");
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --dims 2x2x3 -o '%s'", tc_path_in("garbage.exp"), o);
    CHECK(rc == 2, "malformed input: exit %d: %s", rc, out);
    CHECK(!tc_exists(o), "%s was written", o);

    rc = tc_run_cli("", out, sizeof out, "resize '%s' --dims 2x2x3 -o '%s'", tc_path_in("missing.exp"), o);
    CHECK(rc == 2, "missing input: exit %d: %s", rc, out);
    CHECK(!tc_exists(o), "%s was written", o);
}

Test(resize_cli, unwritable_output_exits_2)
{
    char out[8192];
    scheme *s = scheme_standard((scheme_format){2, 2, 2});
    const char *in = tc_path_in("std.native");
    write_scheme(s, in, SCHEME_FILE_NATIVE);
    scheme_free(s);
    /* the test's own folder is a directory: refused */
    int rc = tc_run_cli("", out, sizeof out, "resize '%s' --dims 2x3x2 -o '%s'", in, tc_dir);
    CHECK(rc == 2, "-o a directory: exit %d: %s", rc, out);
    CHECK(strstr(out, "directory"), "message: %s", out);
    /* a folder inside it that does not exist */
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --dims 2x3x2 -o '%s/out.native'", in,
                    tc_path_in("no-such-folder"));
    CHECK(rc == 2, "-o in a missing folder: exit %d: %s", rc, out);
    /* a format .exp cannot hold (indices above 9) */
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --dims 1x2x10 --to exp -o '%s'", in,
                    tc_path_in("wide.exp"));
    CHECK(rc == 2, "--to exp of <1,2,10>: exit %d: %s", rc, out);
    CHECK(!tc_exists(tc_path_in("wide.exp")), "%s was written", tc_path_in("wide.exp"));
}

/* The meta start (flipgraph sweep --meta): of the known schemes one step from
 * the format, the lowest rank after resize; none near, or none below the
 * standard algorithm, is NULL. */
Test(resize, meta_start_takes_the_best_near_scheme)
{
    scheme *z = tc_read_corpus("kauers-moosbauer/334-29-mod0.exp");
    scheme *k29 = scheme_to_f2(z);
    scheme *std336 = scheme_standard((scheme_format){3, 3, 6});
    scheme *far = walked((scheme_format){2, 2, 2}, g_seed, 20000);
    const scheme *known[3] = {far, std336, k29};
    int from = -2;
    scheme *m = search_meta_start((scheme_format){3, 3, 5}, known, 3, &from);
    check_valid(m, (scheme_format){3, 3, 5}, "meta start of <3,3,5>");
    /* <3,3,4>:29 extended: 29 + 9 new terms at most, below the standard 45
     * and below <3,3,6>'s standard projected (45) */
    CHECK(m && from == 2 && m->rank <= 38, "seed %llu: from %d rank %d", g_seed, from, m ? m->rank : -1);
    scheme_free(m);
    /* only the standard near: nothing below n*m*p */
    m = search_meta_start((scheme_format){3, 3, 5}, known, 2, &from);
    CHECK(!m && from == -1, "seed %llu: a start from the standard <3,3,6> (rank %d)", g_seed, m ? m->rank : -1);
    scheme_free(m);
    /* nothing near <4,4,4> */
    m = search_meta_start((scheme_format){4, 4, 4}, known, 3, &from);
    CHECK(!m && from == -1, "seed %llu: a start for <4,4,4> from afar", g_seed);
    scheme_free(m);
    scheme_free(far);
    scheme_free(std336);
    scheme_free(k29);
    scheme_free(z);
}

/* flipgraph sweep --meta --rounds 2: a format starts from its neighbour's best
 * extended, the second round from its own best; every run's schemes stored.
 * --stall: a format whose rank stops falling ends early (these reach their
 * records, 7 and 11, within the first second, and nothing is lower). */
Test(resize_cli, sweep_meta_starts_from_neighbours, .timeout = 300)
{
    char out[1 << 16];
    const char *db = tc_path_in("meta.db");
    int rc = tc_run_cli("", out, sizeof out,
                        "sweep --dims-list 2x2x2,2x2x3 --time-per 200s --stall 1s --meta --rounds 2 --threads 1 "
                        "--seed %llu --progress 0 --db '%s'",
                        g_seed, db);
    CHECK(rc == 0, "seed %llu: exit %d: %s", g_seed, rc, out);
    CHECK(strstr(out, "<2,2,3> from <2,2,2>'s best, extended"), "seed %llu: %s", g_seed, out);
    CHECK(strstr(out, "<2,2,2> from its own best so far"), "seed %llu: %s", g_seed, out);
    CHECK(tc_sql_int(db, "SELECT count(*) FROM runs") == 4, "seed %llu: %s", g_seed, out);
    /* each of the 4 searches stopped on the stall, long before its 200 s */
    CHECK(tc_sql_int(db, "SELECT count(*) FROM runs WHERE params LIKE '%stall=1%'") == 4, "seed %llu: %s", g_seed,
          out);
    CHECK(!strstr(out, "200.0 s"), "seed %llu: a format searched its whole time: %s", g_seed, out);
    int reached = 0;
    for (const char *q = out; (q = strstr(q, "record reached")); q++)
        reached++;
    CHECK(reached >= 4, "seed %llu: the records of <2,2,2> and <2,2,3> in every round: %s", g_seed, out);
}
