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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schemes/scheme.h"
#include "search/search.h"
#include "search/session.h"
#include "test_common.h"
#include "test_walk.h"
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
    g_seed = tc_seed();
}

static void seed_and_dir(void)
{
    seed_only();
    tc_suite_dir_make("fg-test-resize");
}

TestSuite(resize, .init = seed_only);
TestSuite(resize_cli, .init = seed_and_dir, .fini = tc_suite_dir_remove);

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
    tc_dims_of(f, d);
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
    tc_dims_of(f, d);
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
    tc_dims_of(f, d);
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
    scheme *s = tc_walked_from(st, &p, seed, flips);
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
    tc_dims_of(f, d);
    d[dim] += by;
    return fmt_of(d);
}

/* ---- re-layout against the reference ---- */

Test(resize, project_relayout_matches_the_entry_reference)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    char fb[32];
    for (int it = 0; it < tc_scaled(3000); it++) {
        scheme_format f = tc_random_format(&rng, 16);
        int d[3];
        tc_dims_of(f, d);
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
    for (int it = 0; it < tc_scaled(3000); it++) {
        scheme_format f = tc_random_format(&rng, 16);
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
    for (int round = 0; round < tc_scaled(4); round++)
        for (size_t fi = 0; fi < NWALK; fi++) {
            scheme_format f = walk_formats[fi];
            scheme *s = walked(f, scheme_rng_next(&rng), 1000 + scheme_rng_below(&rng, 300000));
            int d[3];
            tc_dims_of(f, d);
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
        tc_dims_of(f, d);
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
            tc_dims_of(fs[fi], d);
            tc_dims_of(to, w);
            int diff = 0, dim = -1;
            for (int i = 0; i < 3; i++)
                if (d[i] != w[i]) {
                    diff++;
                    dim = i;
                }
            if (diff == 1 && w[dim] == d[dim] - 1) {
                /* one projection: the first index that leaves the lowest rank
                 * after the reductions, unless a change of basis leaves less */
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
                /* or a change of basis that leaves strictly less (checked valid above) */
                CHECK(r->rank <= best->rank, "%s: rank %d, but index %d gives %d", what, r->rank, best_index,
                      best->rank);
                if (r->rank == best->rank)
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

Test(resize, corpus_schemes_resize)
{
    static const struct {
        const char *file;
        scheme_format to;
    } cases[] = {
        {"kauers-moosbauer/444-47-mod2.exp", {3, 4, 4}},
        {"kauers-moosbauer/444-47-mod2.exp", {4, 5, 4}},
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

/* A permutation of the format is reached by search_permute, the rank kept
 * (projection and extension took AlphaEvolve's <4,4,5>:61 to a <5,4,4> of 68). */
Test(resize, a_permuted_format_keeps_the_rank)
{
    static const struct {
        const char *file;
        scheme_format to;
        scheme_ring ring;
    } cases[] = {
        {"kauers-moosbauer/445-60-mod2.exp", {5, 4, 4}, SCHEME_RING_F2},
        {"kauers-moosbauer/445-60-mod2.exp", {4, 5, 4}, SCHEME_RING_F2},
        {"kauers-moosbauer/445-62-mod0.exp", {5, 4, 4}, SCHEME_RING_Z},
        {"arai/455_73.m", {5, 5, 4}, SCHEME_RING_F2},
    };
    char err[600], fb[32], what[300];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        scheme *s = tc_read_corpus(cases[i].file);
        scheme *in = cases[i].ring == SCHEME_RING_F2 ? scheme_to_f2(s) : scheme_clone(s);
        scheme *r = search_resize(in, cases[i].to, err, sizeof err);
        snprintf(what, sizeof what, "%s to %s", cases[i].file, scheme_format_str(cases[i].to, fb));
        cr_assert_not_null(r, "%s: %s", what, err);
        cr_assert_eq(r->rank, in->rank, "%s: rank %d, the input's %d", what, r->rank, in->rank);
        cr_assert_eq(r->ring, cases[i].ring, "%s: ring", what);
        scheme *p = search_permute(in, cases[i].to);
        cr_assert(p && scheme_equal(r, p), "%s: not search_permute's scheme", what);
        verify_result vr;
        cr_assert(verify_scheme(r, cases[i].ring, &vr), "%s: %s", what, vr.msg);
        scheme_free(p);
        scheme_free(r);
        scheme_free(in);
        scheme_free(s);
    }
}

/* ---- projection after a change of basis (search_project_basis) ---- */

/* Whether factor pos of t, a rows x cols matrix, is u v^T (u over the rows)
 * or, with cols_side, x z^T (z over the columns): entry by entry. */
static bool ref_rank1(const scheme_term *t, scheme_format f, int pos, unsigned vec, bool cols_side)
{
    int d[3];
    tc_dims_of(f, d);
    int rows = d[row_dim[pos]], cols = d[col_dim[pos]];
    int first = -1;
    /* no entry outside the lines of vec */
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            if ((t->f[pos] >> (r * cols + c) & 1) && !(vec >> (cols_side ? c : r) & 1))
                return false;
    /* the lines in vec all carry the same pattern, and it is not empty */
    int nl = cols_side ? cols : rows, no = cols_side ? rows : cols;
    uint64_t pat = 0;
    for (int l = 0; l < nl; l++) {
        uint64_t p = 0;
        for (int o = 0; o < no; o++) {
            int r = cols_side ? o : l, c = cols_side ? l : o;
            if (t->f[pos] >> (r * cols + c) & 1)
                p |= 1ull << o;
        }
        if (!(vec >> l & 1))
            continue;
        if (first < 0) {
            first = l;
            pat = p;
        } else if (p != pat)
            return false;
    }
    return pat != 0;
}

Test(resize, basis_projection_drops_the_rank_one_terms_and_verifies, .timeout = 300)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed ^ 0xba515u);
    char fb[32], what[240];
    for (int round = 0; round < tc_scaled(3); round++)
        for (size_t fi = 0; fi < NWALK; fi++) {
            scheme_format f = walk_formats[fi];
            scheme *s = walked(f, scheme_rng_next(&rng), 1000 + scheme_rng_below(&rng, 300000));
            int d[3];
            tc_dims_of(f, d);
            for (int dim = 0; dim < 3; dim++) {
                if (d[dim] < 2)
                    continue;
                const int cpos = (dim + 2) % 3;
                for (int k = 0; k < 6; k++) {
                    unsigned full = (1u << d[dim]) - 1, u, z;
                    /* half the time u is the column of a rank-one factor of s,
                     * so that terms drop */
                    u = 1 + scheme_rng_below(&rng, full);
                    if (k % 2)
                        for (int r = 0; r < s->rank; r++)
                            for (unsigned v = 1; v <= full; v++)
                                if (ref_rank1(&s->terms[r], f, dim, v, false)) {
                                    u = v;
                                    r = s->rank;
                                    break;
                                }
                    do
                        z = 1 + scheme_rng_below(&rng, full);
                    while (!__builtin_parity(u & z));
                    int drop = 0;
                    for (int r = 0; r < s->rank; r++)
                        drop += ref_rank1(&s->terms[r], f, dim, u, false) || ref_rank1(&s->terms[r], f, cpos, z, true);
                    scheme *p = search_project_basis(s, dim, u, z);
                    snprintf(what, sizeof what, "basis projection of walked %s rank %d dim %d u %#x z %#x",
                             scheme_format_str(f, fb), s->rank, dim, u, z);
                    check_valid(p, shifted(f, dim, -1), what);
                    CHECK(p->rank == s->rank - drop, "%s: rank %d, the reference drops %d terms", what, p->rank,
                          drop);
                    scheme_free(p);
                    /* an even z.u has no such basis */
                    unsigned z0 = z ^ (u & -u);
                    if (z0)
                        CHECK(!search_project_basis(s, dim, u, z0), "%s: z %#x with z.u = 0 accepted", what, z0);
                }
                /* at a unit vector it is the plain projection, term for term */
                int i = (int)scheme_rng_below(&rng, (uint32_t)d[dim]);
                scheme *p = search_project_basis(s, dim, 1u << i, 1u << i);
                scheme *q = search_project(s, dim, i);
                cr_assert(p && q);
                CHECK(p->rank == q->rank, "unit vector %d of dim %d: rank %d, plain %d", i, dim, p->rank, q->rank);
                for (int r = 0; r < p->rank; r++)
                    CHECK(!memcmp(&p->terms[r], &q->terms[r], sizeof p->terms[r]),
                          "unit vector %d of dim %d: term %d differs from the plain projection", i, dim, r);
                scheme_free(p);
                scheme_free(q);
            }
            scheme_free(s);
        }
    scheme *s = walked((scheme_format){3, 3, 3}, 1, 1000);
    CHECK(!search_project_basis(s, 0, 0, 1) && !search_project_basis(s, 0, 8, 8) && !search_project_basis(s, 3, 1, 1),
          "a zero or out-of-range vector or dimension accepted");
    scheme_free(s);
}

/* The lowest rank of s projected by deleting one index of dimension dim
 * (each index tried), then reduced: the plain projection resize must beat. */
static int best_plain_projection(const scheme *s, int dim)
{
    const int size[3] = {s->fmt.n, s->fmt.m, s->fmt.p};
    int plain = s->rank;
    for (int i = 0; i < size[dim]; i++) {
        scheme *q = search_project(s, dim, i);
        cr_assert_not_null(q);
        search_reduce_all(q->terms, &q->rank, 5);
        if (q->rank < plain)
            plain = q->rank;
        scheme_free(q);
    }
    return plain;
}

/* Arai, Ichikawa, Hukushima's <4,5,5>:73 has few rank-one factors on any
 * coordinate line: no plain projection to <4,4,5> drops more than a term or
 * two, while a change of basis drops many (bench/RESULTS.md: 72 and 62). */
Test(resize, resize_beats_every_plain_projection_where_a_basis_change_pays)
{
    scheme *s = tc_read_corpus("arai/455_73.m");
    char err[600];
    const int plain = best_plain_projection(s, 1);
    scheme *r = search_resize(s, (scheme_format){4, 4, 5}, err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    check_valid(r, (scheme_format){4, 4, 5}, "arai/455_73.m to <4,4,5>");
    cr_assert_lt(r->rank, plain, "resize gave rank %d, the best plain projection %d", r->rank, plain);
    scheme_free(r);
    scheme_free(s);
}

/* Moosbauer and Poole's <6,6,6>:153 taken down one index in each of the three
 * dimensions lands on the <5,5,5> record 93 (records.tsv), their own <5,5,5>
 * rank, and one index down to <5,6,6> below every plain projection: the
 * formats with a 6 start from it within a few ranks of their records
 * (docs/resize.md, bench/RESULTS.md). */
Test(resize, the_published_153_projects_to_the_555_record, .timeout = 300)
{
    scheme *s = tc_read_corpus("moosbauer-poole/666m153.txt");
    char err[600];
    cr_assert_eq(s->rank, 153);
    scheme *r = search_resize(s, (scheme_format){5, 5, 5}, err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    check_valid(r, (scheme_format){5, 5, 5}, "666m153.txt to <5,5,5>");
    cr_assert_leq(r->rank, 93, "the <5,5,5> record is 93, the projection gave %d", r->rank);
    scheme_free(r);

    const int plain = best_plain_projection(s, 0);
    r = search_resize(s, (scheme_format){5, 6, 6}, err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    check_valid(r, (scheme_format){5, 6, 6}, "666m153.txt to <5,6,6>");
    cr_assert_lt(r->rank, plain, "resize gave rank %d, the best plain projection %d", r->rank, plain);
    scheme_free(r);
    scheme_free(s);
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

    /* integer schemes stay integer (tests/test_resize_z.c); the change of
     * basis is over GF(2) only */
    scheme *z = tc_read_corpus("kauers-moosbauer/444-49-mod0.exp");
    cr_assert_eq(z->ring, SCHEME_RING_Z);
    cr_assert_null(search_project_basis(z, 0, 1, 1));
    scheme *zp = search_project(z, 0, 0), *ze = search_extend(z, 0);
    cr_assert(zp && ze && zp->ring == SCHEME_RING_Z && ze->ring == SCHEME_RING_Z);
    scheme_free(zp);
    scheme_free(ze);
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

/* resize --survey: one row per smaller format, each rank the oriented
 * projection's (search_survey in-process), the summary's counts those of
 * the rows; --lift says which lift (each one verified over Z by the lift);
 * --dims writes the same rank as the survey's row. */
Test(resize_cli, survey_prints_every_smaller_format, .timeout = 300)
{
    static char out[65536];
    char path[4096], err[600], fb[32], row[64];
    snprintf(path, sizeof path, "%s/data/found/556-110-z-lift.txt", getenv("FLIPGRAPH_SOURCE"));
    int rc = tc_run_cli("", out, sizeof out, "resize '%s' --survey", path);
    CHECK(rc == 0, "exit %d: %s", rc, out);
    CHECK(strstr(out, "survey: <5,5,6> rank 110 over GF(2), projected to 29 smaller formats"), "%s", out);
    scheme *z = tc_read_or_die(path), *s = scheme_to_f2(z);
    scheme_free(z);
    search_survey_row *rows;
    const int n = search_survey(s, 0, &rows, err, sizeof err);
    cr_assert_eq(n, 29, "%s", err);
    int at = 0;
    for (int i = 0; i < n; i++) {
        snprintf(row, sizeof row, "  %-9s %5d %5d ", scheme_format_str(rows[i].fmt, fb), rows[i].steps,
                 rows[i].s->rank);
        CHECK(strstr(out, row), "no row '%s' in:\n%s", row, out);
        at += rows[i].s->rank == search_record_rank(rows[i].fmt);
    }
    char summary[128];
    snprintf(summary, sizeof summary, "29 formats: %d at the GF(2) record, 0 below it", at);
    CHECK(strstr(out, summary), "no '%s' in:\n%s", summary, out);

    /* --lift within the reach: a row per format, "yes" as many times as the summary says */
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --survey --reach 2 --lift", path);
    CHECK(rc == 0, "exit %d: %s", rc, out);
    int reach2 = 0;
    for (int i = 0; i < n; i++)
        reach2 += rows[i].steps <= 2;
    const int yes = tc_count_of(out, "  yes, |c| <= ");
    snprintf(summary, sizeof summary, "%d formats: ", reach2);
    CHECK(strstr(out, summary) && tc_count_of(out, "\n  <") == reach2, "not %d rows:\n%s", reach2, out);
    snprintf(summary, sizeof summary, ", %d lift%s to Z", yes, yes == 1 ? "s" : "");
    CHECK(strstr(out, summary), "no '%s' in:\n%s", summary, out);
    int lifts = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].steps <= 2) {
            verify_result vz;
            verify_lift_result lr;
            scheme *zl = verify_lift(rows[i].s, &lr);
            lifts += zl && verify_z(zl, &vz);
            scheme_free(zl);
        }
    CHECK(lifts == yes, "the table says %d lift, %d do", yes, lifts);

    /* --dims to a format of the table: the row's rank, the file valid */
    const char *o = tc_path_in("survey-335.txt");
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --dims 3x3x5 -o '%s'", path, o);
    CHECK(rc == 0, "exit %d: %s", rc, out);
    scheme *w = tc_read_or_die(o);
    for (int i = 0; i < n; i++)
        if (same_fmt(rows[i].fmt, (scheme_format){3, 3, 5}))
            CHECK(w->rank == rows[i].s->rank, "--dims 3x3x5 wrote rank %d, the survey %d", w->rank, rows[i].s->rank);
    cli_verifies(o, (scheme_format){3, 3, 5});
    scheme_free(w);
    search_survey_free(rows, n);
    scheme_free(s);

    /* usage */
    static const char *const bad[] = {"--survey --dims 3x3x5", "--survey -o x.txt", "--reach 2",
                                      "--lift --dims 3x3x5", "--survey --reach 0", "--survey --lift --ring z"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc = tc_run_cli("", out, sizeof out, "resize '%s' %s", path, bad[i]);
        CHECK(rc == 2 && strstr(out, "flipgraph resize"), "%s: exit %d: %s", bad[i], rc, out);
    }
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
        "--dims 2x2x3 --to yaml",
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

/* ---- products ---- */

/* Entry (r, c) of factor pos of term t, written out through the (row, col)
 * pairs of the format. */
static int entry_of(const scheme_term *t, scheme_format f, int pos, int r, int c)
{
    int d[3];
    tc_dims_of(f, d);
    return (int)(t->f[pos] >> (r * d[col_dim[pos]] + c) & 1);
}

/* The product against a reference that goes entry by entry: entry
 * ((r1, r2), (c1, c2)) of the product's term (t1, t2) is entry (r1, c1) of t1
 * times entry (r2, c2) of t2, the combined index x1 * d2 + x2. */
Test(resize, product_matches_the_entry_reference)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed ^ 0x9e3779b9u);
    char fa[32], fb[32];
    int tried = 0;
    for (int it = 0; it < tc_scaled(2000); it++) {
        scheme_format f1 = tc_random_format(&rng, 4), f2 = tc_random_format(&rng, 4);
        scheme_format f = search_product_format(f1, f2);
        scheme *s1 = random_terms(f1, 1 + (int)scheme_rng_below(&rng, 6), &rng);
        scheme *s2 = random_terms(f2, 1 + (int)scheme_rng_below(&rng, 6), &rng);
        scheme *pr = search_product(s1, s2);
        if (!scheme_format_valid(f)) {
            CHECK(!pr, "%s times %s: a product of a format beyond 64 entries", scheme_format_str(f1, fa),
                  scheme_format_str(f2, fb));
            scheme_free(s1);
            scheme_free(s2);
            continue;
        }
        tried++;
        CHECK(pr && same_fmt(pr->fmt, f) && pr->rank == s1->rank * s2->rank, "%s times %s: format or rank",
              scheme_format_str(f1, fa), scheme_format_str(f2, fb));
        int d1[3], d2[3], d[3];
        tc_dims_of(f1, d1);
        tc_dims_of(f2, d2);
        tc_dims_of(f, d);
        for (int t1 = 0; t1 < s1->rank; t1++)
            for (int t2 = 0; t2 < s2->rank; t2++) {
                const scheme_term *u = &pr->terms[t1 * s2->rank + t2];
                for (int pos = 0; pos < 3; pos++)
                    for (int r = 0; r < d[row_dim[pos]]; r++)
                        for (int c = 0; c < d[col_dim[pos]]; c++) {
                            int r2n = d2[row_dim[pos]], c2n = d2[col_dim[pos]];
                            int want = entry_of(&s1->terms[t1], f1, pos, r / r2n, c / c2n) &
                                       entry_of(&s2->terms[t2], f2, pos, r % r2n, c % c2n);
                            CHECK(entry_of(u, f, pos, r, c) == want,
                                  "%s times %s: term (%d,%d) factor %d entry (%d,%d) is %d, reference %d",
                                  scheme_format_str(f1, fa), scheme_format_str(f2, fb), t1, t2, pos, r, c,
                                  entry_of(u, f, pos, r, c), want);
                        }
            }
        scheme_free(pr);
        scheme_free(s1);
        scheme_free(s2);
    }
    CHECK(tried > tc_scaled(2000) / 10, "only %d products were formats", tried);
}

/* Products of valid schemes are valid schemes of the product format, over
 * GF(2) (walked schemes) and over Z (integer corpus files, coefficients
 * multiplied). */
Test(resize, products_of_valid_schemes_verify, .timeout = 300)
{
    static const scheme_format fs[] = {{2, 2, 2}, {1, 2, 2}, {2, 3, 1}, {3, 3, 3}, {2, 2, 3}, {1, 1, 4}};
    const int nf = (int)(sizeof fs / sizeof *fs);
    scheme *w[sizeof fs / sizeof *fs];
    for (int i = 0; i < nf; i++)
        w[i] = walked(fs[i], g_seed + (uint64_t)i, 200000);
    char fa[32], fb[32], what[200];
    for (int i = 0; i < nf; i++)
        for (int j = 0; j < nf; j++) {
            scheme_format f = search_product_format(fs[i], fs[j]);
            scheme *pr = search_product(w[i], w[j]);
            if (!scheme_format_valid(f)) {
                CHECK(!pr, "a product beyond the 64-entry limit");
                continue;
            }
            snprintf(what, sizeof what, "%s rank %d times %s rank %d", scheme_format_str(fs[i], fa), w[i]->rank,
                     scheme_format_str(fs[j], fb), w[j]->rank);
            check_valid(pr, f, what);
            CHECK(pr->rank == w[i]->rank * w[j]->rank, "%s: rank %d", what, pr->rank);
            scheme_free(pr);
        }
    for (int i = 0; i < nf; i++)
        scheme_free(w[i]);

    /* over Z: <2,2,3>:11 times <2,2,2> (Strassen's rank, from <2,2,3> projected) */
    scheme *z = tc_read_corpus("kauers-moosbauer/223-11-mod0.exp");
    cr_assert_eq(z->ring, SCHEME_RING_Z);
    scheme *zz = search_product(z, z);
    verify_result vr;
    CHECK(zz && zz->ring == SCHEME_RING_Z && zz->rank == 121 && same_fmt(zz->fmt, (scheme_format){4, 4, 9}),
          "<2,2,3>:11 squared over Z: %s", zz ? "wrong ring, rank or format" : "NULL");
    CHECK(verify_z(zz, &vr), "<2,2,3>:11 squared over Z: %s", vr.msg);
    /* an integer and a GF(2) scheme: the product is over GF(2) */
    scheme *g = walked((scheme_format){1, 2, 2}, g_seed, 1000);
    scheme *mixed = search_product(z, g);
    check_valid(mixed, (scheme_format){2, 4, 6}, "<2,2,3>:11 over Z times <1,2,2> over GF(2)");
    scheme_free(mixed);
    scheme_free(g);
    scheme_free(zz);
    scheme_free(z);
}

/* ---- sums ---- */

/* The sum against a reference that goes entry by entry: the first scheme's
 * terms keep their entries, the second's move by the first's extent of the
 * summed dimension in the factors that have it as rows or columns, and every
 * other entry of the larger factors is zero. */
Test(resize, sum_matches_the_entry_reference)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed ^ 0x5bd1e995u);
    char fa[32], fb[32];
    int tried = 0;
    for (int it = 0; it < tc_scaled(2000); it++) {
        scheme_format f1 = tc_random_format(&rng, 4);
        int d1[3], d2[3], d[3];
        tc_dims_of(f1, d1);
        const int dim = (int)scheme_rng_below(&rng, 3);
        memcpy(d2, d1, sizeof d2);
        d2[dim] = 1 + (int)scheme_rng_below(&rng, 4);
        scheme_format f2 = {d2[0], d2[1], d2[2]};
        scheme *s1 = random_terms(f1, 1 + (int)scheme_rng_below(&rng, 6), &rng);
        scheme *s2 = random_terms(f2, 1 + (int)scheme_rng_below(&rng, 6), &rng);
        scheme *sum = search_sum(s1, s2, dim);
        memcpy(d, d1, sizeof d);
        d[dim] = d1[dim] + d2[dim];
        scheme_format f = {d[0], d[1], d[2]};
        if (!scheme_format_valid(f)) {
            CHECK(!sum, "%s plus %s along %d: a sum beyond 64 entries", scheme_format_str(f1, fa),
                  scheme_format_str(f2, fb), dim);
            scheme_free(s1);
            scheme_free(s2);
            continue;
        }
        tried++;
        CHECK(sum && same_fmt(sum->fmt, f) && sum->rank == s1->rank + s2->rank, "%s plus %s along %d: format or rank",
              scheme_format_str(f1, fa), scheme_format_str(f2, fb), dim);
        for (int t = 0; t < sum->rank; t++) {
            const bool second = t >= s1->rank;
            const scheme *src = second ? s2 : s1;
            const scheme_format sf = second ? f2 : f1;
            const int *sd = second ? d2 : d1;
            const scheme_term *from = &src->terms[second ? t - s1->rank : t];
            for (int pos = 0; pos < 3; pos++)
                for (int r = 0; r < d[row_dim[pos]]; r++)
                    for (int c = 0; c < d[col_dim[pos]]; c++) {
                        const int r0 = r - (second && row_dim[pos] == dim ? d1[dim] : 0);
                        const int c0 = c - (second && col_dim[pos] == dim ? d1[dim] : 0);
                        const int want = r0 >= 0 && c0 >= 0 && r0 < sd[row_dim[pos]] && c0 < sd[col_dim[pos]]
                                             ? entry_of(from, sf, pos, r0, c0)
                                             : 0;
                        CHECK(entry_of(&sum->terms[t], f, pos, r, c) == want,
                              "%s plus %s along %d: term %d factor %d entry (%d,%d) is %d, reference %d",
                              scheme_format_str(f1, fa), scheme_format_str(f2, fb), dim, t, pos, r, c,
                              entry_of(&sum->terms[t], f, pos, r, c), want);
                    }
        }
        /* the other two dimensions must agree */
        int d3[3];
        memcpy(d3, d2, sizeof d3);
        d3[(dim + 1) % 3]++;
        scheme *s3 = random_terms((scheme_format){d3[0], d3[1], d3[2]}, 2, &rng);
        scheme *bad = search_sum(s1, s3, dim);
        CHECK(!bad, "%s plus %s along %d: a sum of formats that differ in two dimensions", scheme_format_str(f1, fa),
              scheme_format_str(s3->fmt, fb), dim);
        scheme_free(bad);
        scheme_free(s3);
        scheme_free(sum);
        scheme_free(s1);
        scheme_free(s2);
    }
    CHECK(tried > tc_scaled(2000) / 10, "only %d sums were formats", tried);
}

/* Sums of valid schemes are valid schemes (the block decomposition of the
 * product), over GF(2) (walked schemes, every pair whose formats differ in one
 * dimension, summed along it) and over Z (integer corpus files). */
Test(resize, sums_of_valid_schemes_verify, .timeout = 300)
{
    static const scheme_format fs[] = {{2, 2, 2}, {2, 2, 1}, {2, 2, 3}, {1, 2, 2}, {3, 2, 2}, {2, 3, 2}};
    const int nf = (int)(sizeof fs / sizeof *fs);
    scheme *w[sizeof fs / sizeof *fs];
    for (int i = 0; i < nf; i++)
        w[i] = walked(fs[i], g_seed + (uint64_t)i, 200000);
    char fa[32], fb[32], what[200];
    int sums = 0;
    for (int i = 0; i < nf; i++)
        for (int j = 0; j < nf; j++) {
            int di[3], dj[3], differ = 0, dim = -1;
            tc_dims_of(fs[i], di);
            tc_dims_of(fs[j], dj);
            for (int k = 0; k < 3; k++)
                if (di[k] != dj[k]) {
                    differ++;
                    dim = k;
                }
            for (int k = 0; k < 3; k++) {
                if (differ > 1 || (differ == 1 && k != dim))
                    continue;
                int d[3] = {di[0], di[1], di[2]};
                d[k] += dj[k];
                scheme_format f = {d[0], d[1], d[2]};
                scheme *sum = search_sum(w[i], w[j], k);
                snprintf(what, sizeof what, "%s rank %d plus %s rank %d along %d", scheme_format_str(fs[i], fa),
                         w[i]->rank, scheme_format_str(fs[j], fb), w[j]->rank, k);
                check_valid(sum, f, what);
                CHECK(sum->rank == w[i]->rank + w[j]->rank, "%s: rank %d", what, sum->rank);
                scheme_free(sum);
                sums++;
            }
        }
    CHECK(sums >= 20, "only %d sums", sums);
    for (int i = 0; i < nf; i++)
        scheme_free(w[i]);

    /* over Z: <2,2,3>:11 twice along p is a <2,2,6> of rank 22 */
    scheme *z = tc_read_corpus("kauers-moosbauer/223-11-mod0.exp");
    scheme *zz = search_sum(z, z, 2);
    verify_result vr;
    CHECK(zz && zz->ring == SCHEME_RING_Z && zz->rank == 22 && same_fmt(zz->fmt, (scheme_format){2, 2, 6}),
          "<2,2,3>:11 twice over Z: %s", zz ? "wrong ring, rank or format" : "NULL");
    CHECK(verify_z(zz, &vr), "<2,2,3>:11 twice over Z: %s", vr.msg);
    scheme_free(zz);
    scheme_free(z);
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
    scheme *m = search_meta_start((scheme_format){3, 3, 5}, known, 3, 3, &from, NULL, NULL);
    check_valid(m, (scheme_format){3, 3, 5}, "meta start of <3,3,5>");
    /* <3,3,4>:29 extended: 29 + 9 new terms at most, below the standard 45
     * and below <3,3,6>'s standard projected (45) */
    CHECK(m && from == 2 && m->rank <= 38, "seed %llu: from %d rank %d", g_seed, from, m ? m->rank : -1);
    scheme_free(m);
    /* only the standard near: nothing below n*m*p */
    m = search_meta_start((scheme_format){3, 3, 5}, known, 2, 2, &from, NULL, NULL);
    CHECK(!m && from == -1, "seed %llu: a start from the standard <3,3,6> (rank %d)", g_seed, m ? m->rank : -1);
    scheme_free(m);
    /* nothing near <4,4,4> */
    m = search_meta_start((scheme_format){4, 4, 4}, known, 3, 3, &from, NULL, NULL);
    CHECK(!m && from == -1, "seed %llu: a start for <4,4,4> from afar", g_seed);
    scheme_free(m);
    /* a product: <2,2,2> and <1,1,2> walked multiply to <2,2,4>; with from2
     * NULL no product is tried and nothing is near */
    scheme *s112 = walked((scheme_format){1, 1, 2}, g_seed, 1000), *s222 = NULL;
    for (uint64_t k = 0; k < 50 && (!s222 || s222->rank > 7); k++) { /* Strassen's rank, found in a walk */
        scheme_free(s222);
        s222 = walked((scheme_format){2, 2, 2}, g_seed + k, 20000);
    }
    const scheme *known2[2] = {s222, s112};
    int from2 = -2;
    m = search_meta_start((scheme_format){2, 2, 4}, known2, 2, 2, &from, &from2, NULL);
    check_valid(m, (scheme_format){2, 2, 4}, "meta start of <2,2,4> from a product");
    CHECK(m && from == 0 && from2 == 1 && m->rank <= 14, "seed %llu: from %d, %d rank %d (<2,2,2>: %d)", g_seed,
          from, from2, m ? m->rank : -1, s222->rank);
    scheme_free(m);
    m = search_meta_start((scheme_format){2, 2, 4}, known2, 2, 2, &from, NULL, NULL);
    CHECK(!m && from == -1, "seed %llu: a start for <2,2,4> without products", g_seed);
    scheme_free(m);
    /* a sum: <4,4,6> = <4,4,2> + <4,4,4> from Kauers-Moosbauer's <2,4,4>:26
     * and <4,4,4>:47 (its record 73), the first in another ordering */
    scheme *k26 = tc_read_corpus("kauers-moosbauer/244-26-mod0.exp"), *k47 = tc_read_corpus("kauers-moosbauer/444-47-mod2.exp");
    const scheme *known3[2] = {k26, k47};
    search_meta_how how = SEARCH_META_MOVED;
    m = search_meta_start((scheme_format){4, 4, 6}, known3, 2, 2, &from, &from2, &how);
    check_valid(m, (scheme_format){4, 4, 6}, "meta start of <4,4,6> from a sum");
    CHECK(m && how == SEARCH_META_SUM && m->rank <= 73 && ((from == 0 && from2 == 1) || (from == 1 && from2 == 0)),
          "seed %llu: <4,4,6>: how %d, from %d, %d, rank %d", g_seed, (int)how, from, from2, m ? m->rank : -1);
    scheme_free(m);
    /* known schemes past nnear only combine: <4,4,4>:47 is no move to <4,4,5>
     * then, and the sum above still is one */
    m = search_meta_start((scheme_format){4, 4, 5}, known3, 2, 0, &from, &from2, &how);
    CHECK(!m && from == -1, "seed %llu: a start for <4,4,5> from a scheme past nnear", g_seed);
    scheme_free(m);
    m = search_meta_start((scheme_format){4, 4, 6}, known3, 2, 0, &from, &from2, &how);
    CHECK(m && how == SEARCH_META_SUM && m->rank <= 73, "seed %llu: <4,4,6> with nnear 0", g_seed);
    scheme_free(m);
    /* a product in another ordering: <3,3,5>:36 times the standard <1,2,2>
     * (the second as <2,2,1>) is <6,6,5>, taken to <5,6,6>: rank 144 at most */
    scheme *k36 = tc_read_corpus("kauers-moosbauer/335-36-mod0.exp"), *s122 = scheme_standard((scheme_format){1, 2, 2});
    const scheme *known4[2] = {k36, s122};
    m = search_meta_start((scheme_format){5, 6, 6}, known4, 2, 2, &from, &from2, &how);
    check_valid(m, (scheme_format){5, 6, 6}, "meta start of <5,6,6> from a product");
    CHECK(m && how == SEARCH_META_PRODUCT && m->rank <= 144, "seed %llu: <5,6,6>: how %d, from %d, %d, rank %d", g_seed,
          (int)how, from, from2, m ? m->rank : -1);
    scheme_free(m);
    scheme_free(k26);
    scheme_free(k47);
    scheme_free(k36);
    scheme_free(s122);
    scheme_free(s112);
    scheme_free(s222);
    scheme_free(far);
    scheme_free(std336);
    scheme_free(k29);
    scheme_free(z);
}

/* flipgraph resize --product: FILE times FILE2 in the product format (or
 * --dims), verified; a product beyond the 64-entry limit exits 2 and writes
 * nothing. */
Test(resize_cli, product_of_two_files, .timeout = 300)
{
    char out[8192], expect[200];
    scheme *a = walked((scheme_format){2, 2, 2}, g_seed, 20000), *b = walked((scheme_format){1, 2, 3}, g_seed, 20000);
    write_scheme(a, tc_path_in("a.native"), SCHEME_FILE_NATIVE);
    write_scheme(b, tc_path_in("b.exp"), SCHEME_FILE_EXP);
    const char *o = tc_path_in("ab.native");
    int rc = tc_run_cli("", out, sizeof out, "resize '%s' --product '%s' -o '%s'", tc_path_in("a.native"),
                        tc_path_in("b.exp"), o);
    CHECK(rc == 0, "resize --product: exit %d: %s", rc, out);
    snprintf(expect, sizeof expect, "times <1,2,3> rank %d is <2,4,6> rank %d", b->rank, a->rank * b->rank);
    CHECK(strstr(out, expect), "expected '%s' in: %s", expect, out);
    cli_verifies(o, (scheme_format){2, 4, 6});
    scheme *back = tc_read_or_die(o);
    CHECK(back->rank <= a->rank * b->rank, "the product file has rank %d", back->rank);
    scheme_free(back);
    /* then resized */
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --product '%s' --dims 2x4x5 -o '%s'", tc_path_in("a.native"),
                    tc_path_in("b.exp"), tc_path_in("ab245.native"));
    CHECK(rc == 0, "resize --product --dims: exit %d: %s", rc, out);
    cli_verifies(tc_path_in("ab245.native"), (scheme_format){2, 4, 5});
    /* <2,2,2> times <4,4,5>: <8,8,10> is not a format */
    scheme *big = scheme_standard((scheme_format){4, 4, 5});
    write_scheme(big, tc_path_in("big.native"), SCHEME_FILE_NATIVE);
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --product '%s' -o '%s'", tc_path_in("a.native"),
                    tc_path_in("big.native"), tc_path_in("no.native"));
    CHECK(rc == 2 && strstr(out, "not a format"), "<2,2,2> times <4,4,5>: exit %d: %s", rc, out);
    CHECK(!tc_exists(tc_path_in("no.native")), "a refused product was written");
    /* an unreadable second file */
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --product '%s' -o '%s'", tc_path_in("a.native"),
                    tc_path_in("missing.native"), tc_path_in("no.native"));
    CHECK(rc == 2 && !tc_exists(tc_path_in("no.native")), "a missing FILE2: exit %d: %s", rc, out);
    scheme_free(big);
    scheme_free(a);
    scheme_free(b);
}

/* flipgraph resize --sum: FILE plus FILE2 along the dimension where they
 * differ (FILE2 in another ordering where needed), verified; equal formats
 * need --along; formats that no ordering brings within one dimension, a sum
 * beyond the 64-entry limit and --sum with --product exit 2 and write nothing. */
Test(resize_cli, sum_of_two_files, .timeout = 300)
{
    char out[8192], expect[200];
    scheme *a = walked((scheme_format){2, 2, 2}, g_seed, 20000), *b = walked((scheme_format){3, 2, 2}, g_seed, 20000);
    write_scheme(a, tc_path_in("a.native"), SCHEME_FILE_NATIVE);
    write_scheme(b, tc_path_in("b.exp"), SCHEME_FILE_EXP);
    /* <2,2,2> + <3,2,2>: along n, <5,2,2> (the first ordering that fits) */
    const char *o = tc_path_in("ab.native");
    int rc = tc_run_cli("", out, sizeof out, "resize '%s' --sum '%s' -o '%s'", tc_path_in("a.native"),
                        tc_path_in("b.exp"), o);
    CHECK(rc == 0, "resize --sum: exit %d: %s", rc, out);
    snprintf(expect, sizeof expect, "plus <3,2,2> rank %d is <5,2,2> rank %d", b->rank, a->rank + b->rank);
    CHECK(strstr(out, expect), "expected '%s' in: %s", expect, out);
    cli_verifies(o, (scheme_format){5, 2, 2});
    /* --along p: FILE2 taken as <2,2,3> */
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --sum '%s' --along p -o '%s'", tc_path_in("a.native"),
                    tc_path_in("b.exp"), tc_path_in("ab225.native"));
    CHECK(rc == 0, "resize --sum --along p: exit %d: %s", rc, out);
    cli_verifies(tc_path_in("ab225.native"), (scheme_format){2, 2, 5});
    /* equal formats: --along is needed, then m doubles */
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --sum '%s' -o '%s'", tc_path_in("a.native"),
                    tc_path_in("a.native"), tc_path_in("no.native"));
    CHECK(rc == 2 && strstr(out, "--along"), "equal formats without --along: exit %d: %s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --sum '%s' --along m -o '%s'", tc_path_in("a.native"),
                    tc_path_in("a.native"), tc_path_in("aa.native"));
    CHECK(rc == 0, "resize --sum --along m: exit %d: %s", rc, out);
    cli_verifies(tc_path_in("aa.native"), (scheme_format){2, 4, 2});
    /* <2,2,2> and <1,3,3>: two dimensions apart in every ordering */
    scheme *c = scheme_standard((scheme_format){1, 3, 3});
    write_scheme(c, tc_path_in("c.native"), SCHEME_FILE_NATIVE);
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --sum '%s' -o '%s'", tc_path_in("a.native"),
                    tc_path_in("c.native"), tc_path_in("no.native"));
    CHECK(rc == 2 && strstr(out, "more than one dimension"), "<2,2,2> + <1,3,3>: exit %d: %s", rc, out);
    /* <4,8,8> + <4,8,8> along p: <4,8,16> is not a format (b: 8 x 16) */
    scheme *big = scheme_standard((scheme_format){4, 8, 8});
    write_scheme(big, tc_path_in("big.native"), SCHEME_FILE_NATIVE);
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --sum '%s' --along p -o '%s'", tc_path_in("big.native"),
                    tc_path_in("big.native"), tc_path_in("no.native"));
    CHECK(rc == 2 && strstr(out, "not a format"), "<4,8,8> + <4,8,8>: exit %d: %s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --sum '%s' --product '%s' -o '%s'", tc_path_in("a.native"),
                    tc_path_in("a.native"), tc_path_in("a.native"), tc_path_in("no.native"));
    CHECK(rc == 2, "--sum with --product: exit %d: %s", rc, out);
    CHECK(!tc_exists(tc_path_in("no.native")), "a refused sum was written");
    scheme_free(big);
    scheme_free(c);
    scheme_free(a);
    scheme_free(b);
}

/* resize --merge-cubes: the cube move on our <6,6,6>:153, there and back, the
 * line naming the symmetry kept; refusals write nothing. */
Test(resize_cli, merge_cubes_there_and_back, .timeout = 120)
{
    char out[8192], in[4096];
    snprintf(in, sizeof in, "%s/data/found/666-153-c3xc2-gf2.txt", getenv("FLIPGRAPH_SOURCE"));
    const char *m = tc_path_in("m158.txt"), *b = tc_path_in("b153.native"), *no = tc_path_in("no.native");
    int rc = tc_run_cli("", out, sizeof out, "resize '%s' --merge-cubes 110000,000011 --to txt -o '%s'", in, m);
    CHECK(rc == 0 && strstr(out, "resize: <6,6,6> rank 153 -> rank 158 by the cube move 110000,000011 (verified "
                                 "over GF(2), invariant under c3xc2)"),
          "exit %d: %s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "verify --symmetry c3xc2 '%s'", m);
    CHECK(rc == 0 && strstr(out, "rank 158 over GF(2): valid, invariant under c3xc2"), "exit %d: %s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --merge-cubes 110000,000011 -o '%s'", m, b);
    CHECK(rc == 0 && strstr(out, "rank 158 -> rank 153"), "exit %d: %s", rc, out);
    cli_verifies(b, (scheme_format){6, 6, 6});
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --merge-cubes 110000,001100 -o '%s'", in, no);
    CHECK(rc == 0 && strstr(out, "invariant under c3)"), "not a mirror pair: c3 kept: exit %d: %s", rc, out);
    const char *bad[][2] = {{"--merge-cubes 100000,000001", "holds neither both cubes nor their union's"},
                            {"--merge-cubes 110000,011000", "two disjoint nonempty cubes of 6 digits"},
                            {"--merge-cubes 1100,0011", "two disjoint nonempty cubes of 6 digits"},
                            {"--merge-cubes 11x,00", "expected two cubes of 0/1 digits"},
                            {"--merge-cubes 110000,000011 --dims 5x6x6", "--merge-cubes goes alone"}};
    for (int i = 0; i < 5; i++) {
        unlink(no);
        rc = tc_run_cli("", out, sizeof out, "resize '%s' %s -o '%s'", in, bad[i][0], no);
        CHECK(rc == 2 && strstr(out, bad[i][1]), "%s: exit %d: %s", bad[i][0], rc, out);
        CHECK(!tc_exists(no), "%s: a refused move was written", bad[i][0]);
    }
}

/* A square extension keeps our 153's c3xc2 (search_extend_square) and the
 * line says so; a projection of it to a non-square format names none. */
Test(resize_cli, a_square_extension_names_the_symmetry_it_keeps, .timeout = 120)
{
    char out[8192], in[4096];
    snprintf(in, sizeof in, "%s/data/found/666-153-c3xc2-gf2.txt", getenv("FLIPGRAPH_SOURCE"));
    const char *x = tc_path_in("x777.txt"), *p = tc_path_in("p566.native");
    int rc = tc_run_cli("", out, sizeof out, "resize '%s' --dims 7x7x7 --to txt -o '%s'", in, x);
    CHECK(rc == 0 && strstr(out, "resize: <6,6,6> rank 153 -> <7,7,7> rank 280 (verified over GF(2), invariant "
                                 "under c3xc2)"),
          "exit %d: %s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "verify --symmetry c3xc2 '%s'", x);
    CHECK(rc == 0 && strstr(out, "rank 280 over GF(2): valid, invariant under c3xc2 (49 orbits)"), "exit %d: %s", rc,
          out);
    rc = tc_run_cli("", out, sizeof out, "resize '%s' --dims 5x6x6 -o '%s'", in, p);
    CHECK(rc == 0 && strstr(out, "(verified over GF(2))") && !strstr(out, "invariant"), "exit %d: %s", rc, out);
}

/* flipgraph sweep --symmetry c3: the square formats walk symmetrically (their
 * schemes stored as search:c3), the others plain (search). */
Test(resize_cli, sweep_symmetry_for_square_formats, .timeout = 300)
{
    char out[1 << 16];
    const char *db = tc_path_in("sym.db");
    int rc = tc_run_cli("", out, sizeof out,
                        "sweep --dims-list 2x2x2,2x2x3,3x3x3 --time-per 200s --until-record --symmetry c3 --threads 1 "
                        "--seed %llu --progress 0 --db '%s'",
                        g_seed, db);
    CHECK(rc == 0, "seed %llu: exit %d: %s", g_seed, rc, out);
    CHECK(strstr(out, "<3,3,3> from its diagonal cubes, c3"), "seed %llu: %s", g_seed, out);
    CHECK(strstr(out, "<2,2,3> from the standard algorithm"), "seed %llu: %s", g_seed, out);
    CHECK(tc_sql_int(db, "SELECT count(*) FROM schemes WHERE n = 3 AND source = 'search:c3' AND rank = 23") == 1,
          "seed %llu: <3,3,3>:23 not stored as search:c3: %s", g_seed, out);
    CHECK(tc_sql_int(db, "SELECT count(*) FROM schemes WHERE p = 3 AND n = 2 AND source != 'search'") == 0,
          "seed %llu: <2,2,3> stored as symmetric", g_seed);
}

/* ---- permutations ---- */

/* A walked scheme taken to each of the six orderings of its format verifies
 * there with the same rank, and back to its own format it is the same
 * scheme; a format that is not a permutation is refused. */
Test(resize, permutations_verify_and_return)
{
    static const scheme_format fs[] = {{2, 3, 4}, {3, 3, 4}, {2, 2, 5}, {1, 3, 4}, {3, 4, 5}};
    char fa[32], fb[32];
    for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) {
        scheme *s = walked(fs[i], g_seed + i, 100000);
        int d[3];
        tc_dims_of(fs[i], d);
        static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        for (int q = 0; q < 6; q++) {
            scheme_format to = {d[perms[q][0]], d[perms[q][1]], d[perms[q][2]]};
            scheme *p = search_permute(s, to);
            char what[128];
            snprintf(what, sizeof what, "%s rank %d permuted to %s", scheme_format_str(fs[i], fa), s->rank,
                     scheme_format_str(to, fb));
            check_valid(p, to, what);
            CHECK(p->rank == s->rank, "%s: rank %d", what, p->rank);
            scheme *back = search_permute(p, fs[i]);
            CHECK(back && scheme_equal(back, s), "%s and back: not the same scheme", what);
            scheme_free(back);
            scheme_free(p);
        }
        CHECK(!search_permute(s, (scheme_format){d[0] + 1, d[1], d[2]}), "%s: a format that is not a permutation",
              scheme_format_str(fs[i], fa));
        scheme_free(s);
    }
}

/* ---- the meta search (search/meta.c) ---- */

typedef struct meta_log {
    int n;
    scheme_format fmt[4096], src[4096]; /* src: the format a moved start came from */
    int start[4096], best_before[4096], best[4096];
    bool moved[4096], reset[4096], combined[4096]; /* combined: a sum or product of other formats' bests */
    bool detour[4096];
    scheme_format detour_for[4096]; /* a detour's stuck format */
    int beside[4096]; /* the rank of a sum or product pooled beside the leg, -1 none */
    int record[4096];
    double stall[4096];
    /* a square format's fresh start under --symmetry: -1 none, 0 the
     * symmetric walk from its cubes, 1 the plain walk from the standard
     * algorithm; the rank the leg's walk reached (no sum or product beside) */
    int fresh[4096], walk_best[4096];
    int drift;
    scheme_format seen_fmt[64];
    int seen_best[64], nseen;
    scheme_format pre_fmt[8]; /* formats whose best the search found in its store, not walked */
    int pre_best[8], pre_record[8], npre;
    bool symmetric; /* the search ran with --symmetry: square formats take fresh turns */
} meta_log;

static int *seen_slot(meta_log *g, scheme_format f)
{
    for (int i = 0; i < g->nseen; i++)
        if (same_fmt(g->seen_fmt[i], f))
            return &g->seen_best[i];
    g->seen_fmt[g->nseen] = f;
    g->seen_best[g->nseen] = -1;
    return &g->seen_best[g->nseen++];
}

/* f (record `record`) has the best `best` before the first leg: the search's
 * store holds it. */
static void log_preset(meta_log *g, scheme_format f, int best, int record)
{
    *seen_slot(g, f) = best;
    cr_assert_lt(g->npre, (int)(sizeof g->pre_fmt / sizeof g->pre_fmt[0]), "log_preset: more formats than it holds");
    g->pre_fmt[g->npre] = f;
    g->pre_record[g->npre] = record;
    g->pre_best[g->npre++] = best;
}

static void log_leg_start(void *ctx, const search_meta_leg *l)
{
    meta_log *g = ctx;
    if (g->n >= 4096)
        return;
    g->fmt[g->n] = l->fmt;
    g->start[g->n] = l->start_rank;
    g->best_before[g->n] = *seen_slot(g, l->fmt);
    g->moved[g->n] = strstr(l->from, "'s best extended") || strstr(l->from, "'s best projected");
    int a, b, c;
    if (g->moved[g->n] && sscanf(l->from, "<%d,%d,%d>'s best", &a, &b, &c) == 3)
        g->src[g->n] = (scheme_format){a, b, c};
    else
        g->src[g->n] = (scheme_format){0, 0, 0};
    g->reset[g->n] = l->reset;
    g->detour[g->n] = l->detour;
    g->detour_for[g->n] = l->detour ? l->detour_for : (scheme_format){0, 0, 0};
    g->stall[g->n] = l->stall;
    g->combined[g->n] = strstr(l->from, "'s best plus ") || strstr(l->from, "'s best times ");
    g->record[g->n] = l->record;
    g->beside[g->n] = l->beside[0] ? l->beside_rank : -1;
    g->fresh[g->n] = strstr(l->from, "its diagonal cubes") ? 0 : strstr(l->from, "a fresh start") ? 1 : -1;
}

static void log_leg_end(void *ctx, const search_meta_leg *l)
{
    meta_log *g = ctx;
    if (g->n >= 4096)
        return;
    /* the format's best after the leg: the walk's, or a sum or product
     * pooled beside it (search/meta.c counts both) */
    g->best[g->n] = l->best_rank;
    g->walk_best[g->n] = l->best_rank;
    if (g->beside[g->n] > 0 && (g->best[g->n] <= 0 || g->beside[g->n] < g->best[g->n]))
        g->best[g->n] = g->beside[g->n];
    int *b = seen_slot(g, l->fmt);
    if (*b < 0 || g->best[g->n] < *b)
        *b = g->best[g->n];
    g->n++;
}

/* A meta search's leg configuration for the tests: the CPU, one thread, no
 * progress lines, the seed, and the whole search's time (seconds; 0: none). */
static search_config meta_cpu_config(uint64_t seed, double seconds)
{
    search_config c;
    search_config_default(&c);
    c.backend = SEARCH_BACKEND_CPU;
    c.p.threads = 1;
    c.given[SEARCH_PARAM_THREADS] = true;
    c.p.seed = seed;
    c.p.progress_every = 0;
    c.given[SEARCH_PARAM_PROGRESS] = true;
    c.p.time_limit = seconds;
    c.given[SEARCH_PARAM_TIME] = seconds > 0;
    return c;
}

/* The legs on f before leg k that failed in a row, the last ones (detours,
 * legs on a format at its record for another's sake, not counted). */
static int fails_of(const meta_log *g, int k, scheme_format f)
{
    int fails = 0;
    for (int q = 0; q < k; q++)
        if (same_fmt(g->fmt[q], f) && !g->detour[q])
            fails = g->best_before[q] < 0 || g->best[q] < g->best_before[q] ? 0 : fails + 1;
    return fails;
}

/* The legs on leg k's format before it that failed in a row. */
static int fails_before(const meta_log *g, int k) { return fails_of(g, k, g->fmt[k]); }

/* a and b (sorted) one step apart: one dimension of a one larger or smaller
 * gives b after sorting. */
static bool fmt_one_step(scheme_format a, scheme_format b)
{
    for (int dim = 0; dim < 3; dim++)
        for (int by = -1; by <= 1; by += 2) {
            int d[3] = {a.n, a.m, a.p};
            d[dim] += by;
            if (same_fmt(search_format_sorted((scheme_format){d[0], d[1], d[2]}), b))
                return true;
        }
    return false;
}

/* The lowest rank legs before k reached on f (-1: none), and f's record as
 * the log knows it. */
static int logged_best(const meta_log *g, int k, scheme_format f, int *record)
{
    int best = -1;
    *record = -1;
    for (int q = 0; q < g->npre; q++)
        if (same_fmt(g->pre_fmt[q], f)) {
            best = g->pre_best[q];
            *record = g->pre_record[q];
        }
    for (int r = 0; r < g->n; r++)
        if (same_fmt(g->fmt[r], f)) {
            *record = g->record[r];
            if (r < k && g->best[r] > 0 && (best < 0 || g->best[r] < best))
                best = g->best[r];
        }
    return best;
}

/* What the detours on z before leg k did for the stuck format `stuck` (the
 * one leg k's detour is for), as search/meta.c orders the next detour's candidates:
 * the detours on z, whether any since the last one for another format was
 * for the stuck one, whether one of those ended above z's record, the
 * lowest rank a leg back from them reached (0: none), and the rank z's
 * record extended to the stuck format has (z smaller: its record plus the
 * difference of the volumes n*m*p; larger: 1 << 30). */
typedef struct detour_key {
    int count;
    bool tried, fell_short;
    int back, start;
} detour_key;

static int fmt_volume(scheme_format f) { return f.n * f.m * f.p; }

static detour_key detour_key_of(const meta_log *g, int k, scheme_format stuck, scheme_format z)
{
    detour_key d = {0, false, false, 0, 1 << 30};
    int rec;
    (void)logged_best(g, k, z, &rec);
    if (fmt_volume(z) < fmt_volume(stuck))
        d.start = rec + fmt_volume(stuck) - fmt_volume(z);
    for (int r = 1; r < k; r++) {
        if (!g->detour[r] || !same_fmt(g->fmt[r], z))
            continue;
        d.count++;
        if (!same_fmt(g->detour_for[r], stuck)) {
            d.tried = d.fell_short = false;
            d.back = 0;
            continue;
        }
        d.tried = true;
        d.fell_short |= g->best[r] <= 0 || g->best[r] > g->record[r];
        if (r + 1 < k && g->best[r + 1] > 0 && (d.back == 0 || g->best[r + 1] < d.back))
            d.back = g->best[r + 1];
    }
    return d;
}

/* a strictly before b: untried first, the lowest start first; then the
 * lowest rank back, never short; then detoured least. */
static bool detour_key_before(detour_key a, detour_key b)
{
    if (a.tried != b.tried)
        return !a.tried;
    if (a.tried) {
        const int x = a.back ? a.back : 1 << 30, y = b.back ? b.back : 1 << 30;
        if (x != y)
            return x < y;
        if (a.fell_short != b.fell_short)
            return !a.fell_short;
    } else if (a.start != b.start) {
        return a.start < b.start;
    }
    return a.count < b.count;
}

/* Whether f is at its record after the legs before k. */
static bool logged_at_record(const meta_log *g, int k, scheme_format f)
{
    int rec;
    const int best = logged_best(g, k, f, &rec);
    return best > 0 && rec > 0 && best <= rec;
}

/* How far above f's record a detour for it starts before leg k (search/meta.c,
 * detour_for_stuck_ones): of f's neighbours at their record, the lowest
 * record extended to f (smaller neighbours only; a larger one counts as
 * 1 << 30) less f's record; -1 when no neighbour is at its record. */
static int detour_gap(const meta_log *g, int k, scheme_format f)
{
    int recf, gap = -1;
    (void)logged_best(g, k, f, &recf);
    for (int q = 0; q < g->nseen; q++) {
        const scheme_format z = g->seen_fmt[q];
        if (same_fmt(z, f) || !fmt_one_step(f, z) || !logged_at_record(g, k, z))
            continue;
        int recz;
        (void)logged_best(g, k, z, &recz);
        const int x = fmt_volume(z) < fmt_volume(f) && recf > 0 ? recz + fmt_volume(f) - fmt_volume(z) - recf : 1 << 30;
        if (gap < 0 || x < gap)
            gap = x;
    }
    return gap;
}

/* Before leg k, whether f's next own leg is a fresh turn (search/meta.c):
 * f square under --symmetry, an even number of legs on it so far. */
static bool fresh_turn_due(const meta_log *g, int k, scheme_format f)
{
    if (!g->symmetric || f.n != f.m || f.m != f.p)
        return false;
    int visits = 0;
    for (int q = 0; q < k; q++)
        visits += same_fmt(g->fmt[q], f);
    return visits % 2 == 0;
}

/* Before leg k, whether every format seen short of its record failed at
 * least min_fails legs in a row (the second case of the detour rule). */
static bool all_unfinished_stuck(const meta_log *g, int k, int min_fails)
{
    for (int q = 0; q < g->nseen; q++)
        if (!logged_at_record(g, k, g->seen_fmt[q]) && fails_of(g, k, g->seen_fmt[q]) < min_fails)
            return false;
    return true;
}

/* The detour rule (search/meta.c) on a logged meta search with until_record:
 * a detour leg is on a format at its record, the first of the stuck
 * format's neighbours at theirs in detour_key's order, moved from the stuck
 * format (detours from the best) or from the standard algorithm (fresh);
 * the leg before failed, and either its format was the one short of its
 * record, failing its 2nd (or later) leg in a row, and the detour is for
 * it, or several were short and each failed more than stall_grow legs in a
 * row (2 at least), and the detour is for the one whose detour starts
 * nearest above its record (detour_gap; on a tie the leg before's format).
 * It walks with the base stall, and the leg after it goes back to the stuck
 * format from the detour's format, with twice the base stall (once where
 * stall_grow is 0).  Conversely, with detours on, where either case holds
 * after a failed leg a detour follows, where no move can be dropped (drift
 * -1) and every one of the range's nformats formats was walked; with them
 * off no leg is one.  Returns how many detours there were; *several how many
 * were of the second case. */
static int meta_checks_detours_ex(const meta_log *g, const search_meta_config *mc, int nformats, const char *what,
                                  int *several)
{
    char fa[32], fb[32];
    int detours = 0;
    const int min_fails = mc->stall_grow + 1 > 2 ? mc->stall_grow + 1 : 2;
    if (several)
        *several = 0;
    for (int k = 0; k < g->n; k++) {
        bool alone = true, due_several = false;
        if (k > 0) {
            for (int q = 0; q < g->nseen; q++)
                if (!same_fmt(g->seen_fmt[q], g->fmt[k - 1]))
                    alone &= logged_at_record(g, k, g->seen_fmt[q]);
            if (!alone && all_unfinished_stuck(g, k, min_fails)) {
                /* the one it would be for: the lowest gap, the leg before's
                 * format on a tie (else any of the tied ones): due unless its
                 * fresh turn is */
                int low = -1;
                for (int q = 0; q < g->nseen; q++) {
                    const int x = logged_at_record(g, k, g->seen_fmt[q]) ? -1 : detour_gap(g, k, g->seen_fmt[q]);
                    if (x >= 0 && (low < 0 || x < low))
                        low = x;
                }
                const bool prev_low = !logged_at_record(g, k, g->fmt[k - 1]) && detour_gap(g, k, g->fmt[k - 1]) == low;
                due_several = low >= 0;
                for (int q = 0; q < g->nseen && low >= 0; q++) {
                    const scheme_format z = g->seen_fmt[q];
                    if (!logged_at_record(g, k, z) && detour_gap(g, k, z) == low &&
                        (!prev_low || same_fmt(z, g->fmt[k - 1])))
                        due_several &= !fresh_turn_due(g, k, z);
                }
            }
        }
        const bool failed = k > 0 && g->best_before[k - 1] > 0 && g->best[k - 1] >= g->best_before[k - 1];
        if (!g->detour[k]) {
            /* was one due?  leg k-1 failed (its 2nd or later failure in a
             * row) and every other format of the range was at its record,
             * or every unfinished one had failed min_fails legs in a row */
            if (k == 0 || g->detour[k - 1] || !mc->detours || !mc->until_record || mc->drift >= 0 ||
                g->nseen < nformats)
                continue;
            const int f = fails_before(g, k - 1) + 1;
            CHECK(!(failed && f >= 2 && alone && g->nseen > 1 && !fresh_turn_due(g, k, g->fmt[k - 1])),
                  "%s leg %d: %s failed its leg %d in a row, the one format left, and no detour followed", what, k + 1,
                  scheme_format_str(g->fmt[k - 1], fa), f);
            CHECK(!(failed && due_several), "%s leg %d: every format short of its record failed %d legs in a row or "
                  "more (the last %s), and no detour followed", what, k + 1, min_fails,
                  scheme_format_str(g->fmt[k - 1], fa));
            continue;
        }
        detours++;
        const scheme_format stuck = g->detour_for[k];
        CHECK(mc->detours != SEARCH_META_DETOURS_OFF, "%s leg %d: a detour with detours off", what, k + 1);
        if (mc->detours == SEARCH_META_DETOURS_BEST)
            CHECK(k > 0 && g->moved[k] && same_fmt(g->src[k], stuck),
                  "%s leg %d: a detour on %s not moved from the stuck format %s", what, k + 1,
                  scheme_format_str(g->fmt[k], fa), scheme_format_str(stuck, fb));
        else
            CHECK(!g->moved[k] && g->start[k] < 0, "%s leg %d: a fresh detour on %s from a start of rank %d", what,
                  k + 1, scheme_format_str(g->fmt[k], fa), g->start[k]);
        CHECK(k > 0 && !same_fmt(g->fmt[k], stuck), "%s leg %d: a detour on the stuck format", what, k + 1);
        CHECK(k > 0 && fmt_one_step(stuck, g->fmt[k]), "%s leg %d: a detour on %s, not a neighbour of %s", what,
              k + 1, scheme_format_str(g->fmt[k], fa), scheme_format_str(stuck, fb));
        CHECK(k > 0 && !logged_at_record(g, k, stuck), "%s leg %d: a detour for %s, at its record", what, k + 1,
              scheme_format_str(stuck, fa));
        CHECK(!fresh_turn_due(g, k, stuck), "%s leg %d: a detour for %s, whose fresh turn was due", what, k + 1,
              scheme_format_str(stuck, fa));
        /* which case: the one format left, or several stuck */
        if (k > 0 && alone) {
            CHECK(same_fmt(stuck, g->fmt[k - 1]), "%s leg %d: the one format left is %s, the detour is for %s", what,
                  k + 1, scheme_format_str(g->fmt[k - 1], fa), scheme_format_str(stuck, fb));
        } else if (k > 0) {
            if (several)
                (*several)++;
            CHECK(all_unfinished_stuck(g, k, min_fails), "%s leg %d: a detour for %s while some format short of its "
                  "record had failed fewer than %d legs in a row", what, k + 1, scheme_format_str(stuck, fa), min_fails);
            const int mine = detour_gap(g, k, stuck);
            for (int q = 0; q < g->nseen; q++) {
                const scheme_format z = g->seen_fmt[q];
                const int theirs = detour_gap(g, k, z);
                if (same_fmt(z, stuck) || logged_at_record(g, k, z) || theirs < 0)
                    continue;
                CHECK(mine <= theirs && !(mine == theirs && same_fmt(z, g->fmt[k - 1])),
                      "%s leg %d: a detour for %s (%d above its record) where %s's starts %d above", what, k + 1,
                      scheme_format_str(stuck, fa), mine, scheme_format_str(z, fb), theirs);
            }
        }
        /* of the stuck format's neighbours at their record, the first in
         * detour_key's order */
        detour_key mine = detour_key_of(g, k, stuck, g->fmt[k]);
        for (int q = 0; q < g->nseen && k > 0; q++) {
            const scheme_format z = g->seen_fmt[q];
            if (same_fmt(z, g->fmt[k]) || !fmt_one_step(stuck, z) || !logged_at_record(g, k, z))
                continue;
            const detour_key theirs = detour_key_of(g, k, stuck, z);
            CHECK(!detour_key_before(theirs, mine), "%s leg %d: a detour on %s (%d before, %s, short %d, back %d, "
                  "start %d) where %s (%d before, %s, short %d, back %d, start %d) comes first", what, k + 1,
                  scheme_format_str(g->fmt[k], fa), mine.count, mine.tried ? "tried" : "untried", mine.fell_short,
                  mine.back, mine.start, scheme_format_str(z, fb), theirs.count, theirs.tried ? "tried" : "untried",
                  theirs.fell_short, theirs.back, theirs.start);
        }
        CHECK(g->best_before[k] > 0 && g->best_before[k] <= g->record[k], "%s leg %d: a detour on %s (best %d, record "
              "%d), not at its record", what, k + 1, scheme_format_str(g->fmt[k], fa), g->best_before[k], g->record[k]);
        CHECK(failed && fails_before(g, k - 1) >= 1,
              "%s leg %d: a detour after a leg that did not fail its 2nd time in a row or later", what, k + 1);
        CHECK(g->stall[k] == mc->leg_stall, "%s leg %d: a detour's stall %g", what, k + 1, g->stall[k]);
        if (k + 1 < g->n)
            CHECK(g->stall[k + 1] == mc->leg_stall * (mc->stall_grow > 0 ? 2 : 1), "%s leg %d: back from a detour with "
                  "stall %g", what, k + 2, g->stall[k + 1]);
        if (k + 1 < g->n)
            CHECK(!g->detour[k + 1] && same_fmt(g->fmt[k + 1], stuck) &&
                      (g->reset[k + 1] || (g->moved[k + 1] && same_fmt(g->src[k + 1], g->fmt[k]))),
                  "%s leg %d: after the detour on %s, %s not from it", what, k + 2, scheme_format_str(g->fmt[k], fa),
                  scheme_format_str(g->fmt[k + 1], fb));
    }
    return detours;
}

static int meta_checks_detours(const meta_log *g, const search_meta_config *mc, int nformats, const char *what)
{
    return meta_checks_detours_ex(g, mc, nformats, what, NULL);
}

/* Whether leg r lowered its format's best (search/meta.c's `improved`). */
static bool leg_improved(const meta_log *g, int r)
{
    return g->best[r] > 0 && (g->best_before[r] < 0 || g->best[r] < g->best_before[r]);
}

/* The news for leg k (search/meta.c): of its format's neighbours, those
 * whose best dropped after the format's last leg before k; *z the one that
 * dropped last.  False when there is none. */
static bool news_for(const meta_log *g, int k, scheme_format *z)
{
    int last = -1, newest = -1;
    for (int q = 0; q < k; q++)
        if (same_fmt(g->fmt[q], g->fmt[k]))
            last = q;
    for (int r = last + 1; r < k; r++)
        if (fmt_one_step(g->fmt[k], g->fmt[r]) && leg_improved(g, r))
            newest = r;
    if (newest >= 0)
        *z = g->fmt[newest];
    return newest >= 0;
}

/* The news rule (search/meta.c) on a logged meta search: a leg on a format
 * that holds a best, where a neighbour's best dropped after the format's
 * last leg, starts from the neighbour that dropped last, moved (with
 * all_neighbours the lowest of every neighbour's moves: moved from any), or
 * is a reset (the move too far above), a detour, the leg back from one, or
 * a fresh start.  Returns how many such legs took news from another format
 * than the leg before's. */
static int meta_checks_news(const meta_log *g, const search_meta_config *mc, const char *what)
{
    char fa[32], fb[48], fc[32], fd[32];
    int elsewhere = 0;
    for (int k = 1; k < g->n; k++) {
        scheme_format z;
        if (g->detour[k] || g->detour[k - 1] || g->fresh[k] >= 0 || g->reset[k] || g->best_before[k] < 0 ||
            !news_for(g, k, &z))
            continue;
        CHECK(g->moved[k] && (mc->all_neighbours || same_fmt(g->src[k], z)), "%s leg %d: %s %s, where %s holds news",
              what, k + 1, scheme_format_str(g->fmt[k], fa),
              g->moved[k] ? (snprintf(fb, sizeof fb, "moved from %s", scheme_format_str(g->src[k], fc)), fb)
                          : "not moved",
              scheme_format_str(z, fd));
        elsewhere += !same_fmt(z, g->fmt[k - 1]);
    }
    return elsewhere;
}

/* The fresh-start rule (search/meta.c, fresh_kind) on a logged meta search
 * with --symmetry: a square format's first, third, ... leg (detours and the
 * legs back from them aside, which walk plainly) is a fresh start, the others
 * are not; the first fresh start is symmetric, the second the standard
 * algorithm, each later one the kind whose legs reached the lower rank, on
 * a tie the other kind than the last; a fresh leg never walks a moved start
 * (it is kept beside).  Returns how many fresh starts the ranks decided. */
static int meta_checks_fresh(const meta_log *g, const char *what)
{
    char fa[32];
    int decided = 0;
    for (int k = 0; k < g->n; k++) {
        const scheme_format f = g->fmt[k];
        int visits = 0, best[2] = {0, 0}, last = -1;
        for (int q = 0; q < k; q++) {
            if (!same_fmt(g->fmt[q], f))
                continue;
            visits++;
            if (g->fresh[q] >= 0 && g->walk_best[q] > 0) {
                if (!best[g->fresh[q]] || g->walk_best[q] < best[g->fresh[q]])
                    best[g->fresh[q]] = g->walk_best[q];
                last = g->fresh[q];
            }
        }
        const bool square = f.n == f.m && f.m == f.p;
        const bool turn = square && visits % 2 == 0 && !g->detour[k] && !(k > 0 && g->detour[k - 1]);
        if (!turn) {
            CHECK(g->fresh[k] < 0, "%s leg %d: %s visit %d: a fresh start (kind %d) off its turn", what, k + 1,
                  scheme_format_str(f, fa), visits + 1, g->fresh[k]);
            continue;
        }
        int want;
        if (!best[0])
            want = 0;
        else if (!best[1])
            want = 1;
        else {
            want = best[0] != best[1] ? (best[0] < best[1] ? 0 : 1) : (last == 0 ? 1 : 0);
            decided++;
        }
        CHECK(g->fresh[k] == want && !g->moved[k], "%s leg %d: %s visit %d: fresh kind %d%s, expected %d (symmetric "
              "best %d, standard best %d, last %d)", what, k + 1, scheme_format_str(f, fa), visits + 1, g->fresh[k],
              g->moved[k] ? " from a moved start" : "", want, best[0], best[1], last);
    }
    return decided;
}

/* The meta search over <2,2,2>..<2,3,4> with a store: every leg is a run of
 * the store, a moved start comes from a neighbouring format (one dimension
 * one apart after sorting), a moved start is never more than the drift above the
 * best the search held for that format (the reset rule), each format's best
 * is stored, and until_record ends with every record reached. */
Test(resize_cli, meta_search_moves_between_neighbours_and_resets, .timeout = 300)
{
    const char *dbp = tc_path_in("meta-unit.db");
    db_status st;
    char err[512], fa[32], fb[32];
    search_session *ss = session_open(dbp, &st, err, sizeof err);
    cr_assert_not_null(ss, "%s", err);
    for (int drift = 0; drift <= 1; drift++) {
        /* drift 0: 3 s of legs back and forth; 1: until the records */
        search_config c = meta_cpu_config(g_seed + (uint64_t)drift, drift ? 0 : 3);
        /* drift 0 also grows the stall of failing formats (up to 4x) */
        /* drift 1 also starts every moved leg from every visited neighbour's move */
        search_meta_config mc = {{2, 2, 2}, {2, 3, 4}, 0.2, drift, 4, drift == 1, drift == 0 ? 2 : 0, false, drift == 1,
                                 drift ? SEARCH_META_DETOURS_FRESH : SEARCH_META_DETOURS_BEST, 1, 0};
        static meta_log g;
        memset(&g, 0, sizeof g);
        search_meta_hooks h = {&g, log_leg_start, log_leg_end, {0}};
        search_meta_result res;
        search_status s = search_meta_run(ss, &c, NULL, &mc, NULL, 0, &h, &res);
        CHECK(s == (drift ? SEARCH_REACHED : SEARCH_NOT_REACHED), "drift %d: status %d: %s", drift, (int)s, res.msg);
        CHECK(res.legs == g.n && g.n >= 2, "drift %d: %d legs, %d logged", drift, res.legs, g.n);
        CHECK(res.nformats == 5, "drift %d: %d formats in <2,2,2>..<2,3,4>", drift, res.nformats);
        for (int k = 0; k < g.n; k++) {
            if (g.moved[k]) {
                int dist = abs(g.fmt[k].n - g.src[k].n) + abs(g.fmt[k].m - g.src[k].m) + abs(g.fmt[k].p - g.src[k].p);
                CHECK(dist == 1, "drift %d leg %d: %s moved from %s, not a neighbour", drift, k + 1,
                      scheme_format_str(g.fmt[k], fa), scheme_format_str(g.src[k], fb));
            }
            if (g.moved[k] && g.best_before[k] > 0)
                CHECK(g.start[k] <= g.best_before[k] + drift, "drift %d leg %d: a moved start of rank %d, best %d",
                      drift, k + 1, g.start[k], g.best_before[k]);
            if (g.reset[k])
                CHECK(!g.moved[k], "drift %d leg %d: a reset leg started from a moved scheme", drift, k + 1);
            /* a sum or product starts a format only at its record */
            if (g.combined[k])
                CHECK(g.record[k] > 0 && g.start[k] <= g.record[k], "drift %d leg %d: a combined start of rank %d, "
                      "record %d", drift, k + 1, g.start[k], g.record[k]);
            /* the legs of this format before k that failed in a row: the
             * stall doubles with each (up to 2^stall_grow), and after an odd
             * number of them the leg starts from the format's pool; a detour
             * (meta_checks_detours) is none of them and has the base stall */
            const int fails = fails_before(&g, k);
            const bool back = k > 0 && g.detour[k - 1];
            const int grow = back ? (mc.stall_grow < 1 ? mc.stall_grow : 1)
                                  : (fails < mc.stall_grow ? fails : mc.stall_grow);
            const double want = g.detour[k] ? mc.leg_stall : mc.leg_stall * (double)(1 << grow);
            CHECK(g.stall[k] == want, "drift %d leg %d: stall %g after %d failed legs, expected %g", drift, k + 1,
                  g.stall[k], fails, want);
            /* ... unless the move is news (news_for: the neighbour whose best
             * dropped last, after this format's last leg) */
            scheme_format z;
            const bool news = k > 0 && g.moved[k] && news_for(&g, k, &z) && same_fmt(g.src[k], z);
            if (mc.stall_grow > 0 && fails % 2 == 1 && g.best_before[k] > 0 && !news && !g.detour[k] && !back)
                CHECK(!g.moved[k], "drift %d leg %d: after %d failed legs, a moved start (not the pool)", drift, k + 1,
                      fails);
        }
        for (int i = 0; i < res.nformats; i++) {
            const search_meta_format *f = &res.formats[i];
            if (f->best <= 0)
                continue;
            int64_t id;
            int rank;
            db *d = session_store(ss);
            CHECK(db_best(d, f->fmt, SCHEME_RING_F2, &id, &rank, err, sizeof err) == DB_OK && rank <= f->best,
                  "drift %d: %s best %d not stored", drift, scheme_format_str(f->fmt, fa), f->best);
            if (drift == 1)
                CHECK(f->best == f->record, "drift 1: %s best %d, record %d", scheme_format_str(f->fmt, fa), f->best,
                      f->record);
        }
        meta_checks_detours(&g, &mc, res.nformats, "<2,2,2>..<2,3,4>");
        meta_checks_news(&g, &mc, "<2,2,2>..<2,3,4>");
        search_meta_result_free(&res);
    }
    session_close(ss);
    CHECK(tc_sql_int(dbp, "SELECT count(*) FROM runs") >= 4, "every leg a run");
}

/* search --meta over RANGE until every record (1 thread, 120 s at most),
 * into the store DBP; its exit code, its output in out. */
static int meta_until_record(char *out, size_t cap, const char *range, const char *dbp)
{
    return tc_run_cli("", out, cap,
                      "search --meta --dims-range %s --until-record --threads 1 --time 120s --seed %llu --db '%s'", range,
                      g_seed, dbp);
}

/* The store at dbp passes flipgraph db check. */
static void store_checks_clean(const char *dbp)
{
    char out[4096];
    int rc = tc_run_cli("", out, sizeof out, "db check --db '%s'", dbp);
    CHECK(rc == 0, "db check: exit %d: %s", rc, out);
}

/* A meta search from nothing on a new store `name` in the test's folder,
 * logged into g (emptied first); the store passes db check before it
 * returns. */
static search_status meta_run_logged(const char *name, const search_config *c, const search_meta_config *mc,
                                     meta_log *g, search_meta_result *res)
{
    char err[512];
    db_status st;
    const char *dbp = tc_path_in(name);
    search_session *ss = session_open(dbp, &st, err, sizeof err);
    cr_assert_not_null(ss, "%s", err);
    memset(g, 0, sizeof *g);
    search_meta_hooks h = {g, log_leg_start, log_leg_end, {0}};
    search_status rs = search_meta_run(ss, c, NULL, mc, NULL, 0, &h, res);
    session_close(ss);
    store_checks_clean(dbp);
    return rs;
}

/* The meta search over <3,3,4>..<3,4,4> from Kauers and Moosbauer's
 * <3,3,4>:29 (its record) with legs too short for <3,4,4> to reach 38 soon:
 * with detours (from the best, or fresh), after <3,4,4>'s 2nd (and later)
 * failed leg the next is a detour on <3,3,4> and the one after comes back
 * (meta_checks_detours); with them off there is none.  Every stored scheme
 * verifies (db check). */
Test(resize_cli, meta_search_takes_detours_through_a_format_at_its_record, .timeout = 120)
{
    scheme *s29 = tc_read_corpus("kauers-moosbauer/334-29-mod0.exp");
    scheme *start = scheme_to_f2(s29);
    cr_assert_not_null(start);
    for (int on = SEARCH_META_DETOURS_OFF; on <= SEARCH_META_DETOURS_FRESH; on++) {
        char err[512];
        db_status st;
        static const char *names[] = {"off", "best", "fresh"};
        char name[64];
        snprintf(name, sizeof name, "detours-%s.db", names[on]);
        const char *dbp = tc_path_in(name);
        search_session *ss = session_open(dbp, &st, err, sizeof err);
        cr_assert_not_null(ss, "%s", err);
        search_config c = meta_cpu_config(g_seed + (uint64_t)on, 3);
        search_meta_config mc = {{3, 3, 4}, {3, 4, 4}, 0.05, -1, 8, true, 2, false, false, on, 1, 0};
        static meta_log g;
        memset(&g, 0, sizeof g);
        search_meta_hooks h = {&g, log_leg_start, log_leg_end, {0}};
        search_meta_result res;
        const scheme *starts[1] = {start};
        search_status rs = search_meta_run(ss, &c, NULL, &mc, starts, 1, &h, &res);
        CHECK(rs == SEARCH_REACHED || rs == SEARCH_NOT_REACHED, "detours %s: status %d: %s", names[on], (int)rs,
              res.msg);
        const int detours = meta_checks_detours(&g, &mc, res.nformats, names[on]);
        meta_checks_news(&g, &mc, names[on]);
        /* 3 s of legs of at most 0.2 s: <3,4,4> short of 38 at the end
         * failed twice in a row on the way, so a detour was taken */
        CHECK(res.nformats == 2, "%d formats", res.nformats);
        if (on && res.formats[1].best > res.formats[1].record)
            CHECK(detours >= 1, "seed %llu: <3,4,4> ended at %d without a detour", g_seed, res.formats[1].best);
        if (!on)
            CHECK(detours == 0, "detours off: %d detours", detours);
        search_meta_result_free(&res);
        session_close(ss);
        store_checks_clean(dbp);
    }
    scheme_free(start);
    scheme_free(s29);
}

/* A new store `name` in the test's folder holding the corpus files' schemes
 * reduced mod 2 (each at its GF(2) record), logged into g (emptied first) as
 * found before the first leg; its session. */
static search_session *meta_store_of(const char *name, const char *const *files, int nfiles, meta_log *g)
{
    char err[512];
    db_status st;
    search_session *ss = session_open(tc_path_in(name), &st, err, sizeof err);
    cr_assert_not_null(ss, "%s", err);
    memset(g, 0, sizeof *g);
    for (int i = 0; i < nfiles; i++) {
        scheme *z = tc_read_corpus(files[i]);
        scheme *s = scheme_to_f2(z);
        cr_assert_not_null(s, "%s", files[i]);
        int64_t id;
        bool existed;
        db_provenance prov = {0, 0, "test", 0, 0};
        cr_assert(db_insert_scheme(session_store(ss), s, &prov, &id, &existed, err, sizeof err) == DB_OK, "%s", err);
        log_preset(g, s->fmt, s->rank, search_record_rank(s->fmt));
        CHECK(s->rank == search_record_rank(s->fmt), "%s: rank %d", files[i], s->rank);
        scheme_free(s);
        scheme_free(z);
    }
    return ss;
}

/* The meta search on ss from its store, logged into g; its status. */
static search_status meta_run_on(search_session *ss, const search_config *c, const search_meta_config *mc, meta_log *g,
                                 search_meta_result *res)
{
    search_meta_hooks h = {g, log_leg_start, log_leg_end, {0}};
    search_status rs = search_meta_run(ss, c, NULL, mc, NULL, 0, &h, res);
    CHECK(rs == SEARCH_REACHED || rs == SEARCH_NOT_REACHED, "status %d: %s", (int)rs, res->msg);
    return rs;
}

/* The meta search over <2,3,4>..<3,4,4> on a store holding Kauers and
 * Moosbauer's <2,3,4>:20, <2,4,4>:26 and <3,3,4>:29 (their records, reduced
 * mod 2), legs too short for <3,4,4> to reach 38 soon: fresh detours for
 * <3,4,4> go first to each of its two neighbours once, then to the one whose
 * detours did best (meta_checks_detours, detour_key); the order has something
 * to bite on when <3,4,4> ends short: some detour chose between two tried
 * neighbours.  Every stored scheme verifies. */
Test(resize_cli, meta_search_detours_go_where_they_did_best, .timeout = 120)
{
    static meta_log g;
    static const char *const files[] = {"kauers-moosbauer/234-20-mod0.exp", "kauers-moosbauer/244-26-mod0.exp",
                                        "kauers-moosbauer/334-29-mod0.exp"};
    search_session *ss = meta_store_of("detour-order.db", files, 3, &g);
    /* 8 s: about 60 legs on a 2-core box, room for a sanitizer build; 3 detours are enough */
    search_config c = meta_cpu_config(g_seed, 8);
    search_meta_config mc = {{2, 3, 4}, {3, 4, 4}, 0.05, -1, 8, true, 2, true, false, SEARCH_META_DETOURS_FRESH, 1, 0};
    search_meta_result res;
    meta_run_on(ss, &c, &mc, &g, &res);
    CHECK(res.nformats == 4 && res.stored == 3, "%d formats, %d from the store", res.nformats, res.stored);
    const int detours = meta_checks_detours(&g, &mc, res.nformats, "order");
    meta_checks_news(&g, &mc, "order");
    int chosen_among_tried = 0;
    for (int k = 1; k < g.n; k++) {
        if (!g.detour[k])
            continue;
        int tried = 0;
        for (int q = 0; q < g.nseen; q++)
            if (fmt_one_step(g.detour_for[k], g.seen_fmt[q]) && detour_key_of(&g, k, g.detour_for[k], g.seen_fmt[q]).tried)
                tried++;
        chosen_among_tried += tried == 2;
    }
    if (res.formats[3].best > res.formats[3].record)
        CHECK(detours >= 3 && chosen_among_tried >= 1, "seed %llu: <3,4,4> ended at %d after %d detours, %d of them "
              "chosen between two tried neighbours", g_seed, res.formats[3].best, detours, chosen_among_tried);
    search_meta_result_free(&res);
    session_close(ss);
    store_checks_clean(tc_path_in("detour-order.db"));
}

/* The meta search over <3,3,5>..<3,5,5> on a store holding Kauers and
 * Moosbauer's <3,3,5>:36 (its record, reduced mod 2), legs far too short for
 * <3,4,5> (47) and <3,5,5> (58) on one thread: both stay short of their
 * records and move their bests back and forth, and once each has failed
 * more than stall_grow legs in a row the one whose detour starts nearest its
 * record takes detours (<3,4,5>: <3,3,5>:36 extended starts at 51, 4 above
 * 47; <3,5,5> has no neighbour at its record), and after every such failure
 * one follows (meta_checks_detours_ex).  A mutant that keeps rule 8 to the
 * one format left takes none and fails.  Every stored scheme verifies. */
Test(resize_cli, meta_search_detours_when_several_formats_are_stuck, .timeout = 120)
{
    static meta_log g;
    static const char *const files[] = {"kauers-moosbauer/335-36-mod0.exp"};
    search_session *ss = meta_store_of("stuck-two.db", files, 1, &g);
    /* 6 s: legs of 0.05 to 0.2 s, so dozens of legs even under a sanitizer */
    search_config c = meta_cpu_config(g_seed, 6);
    search_meta_config mc = {{3, 3, 5}, {3, 5, 5}, 0.05, -1, 8, true, 2, true, false, SEARCH_META_DETOURS_FRESH, 1, 0};
    search_meta_result res;
    meta_run_on(ss, &c, &mc, &g, &res);
    CHECK(res.nformats == 3 && res.stored == 1, "%d formats, %d from the store", res.nformats, res.stored);
    int several = 0;
    const int detours = meta_checks_detours_ex(&g, &mc, res.nformats, "two stuck", &several);
    meta_checks_news(&g, &mc, "two stuck");
    /* the case has to have come up: both short of their record at the end
     * (legs of 0.2 s at most on one thread) means each failed its longest
     * legs while the other was short too */
    const bool both_short = res.formats[1].best > res.formats[1].record && res.formats[2].best > res.formats[2].record;
    if (both_short)
        CHECK(several >= 1, "seed %llu: <3,4,5> %d and <3,5,5> %d after %d legs and no detour for several stuck "
              "formats (%d detours)", g_seed, res.formats[1].best, res.formats[2].best, g.n, detours);
    session_close(ss);
    store_checks_clean(tc_path_in("stuck-two.db"));
    search_meta_result_free(&res);
}

/* --symmetry c3 over <4,4,4>..<4,4,5> on the CPU, legs far too short for
 * either record: <4,4,4>'s fresh starts follow meta_checks_fresh's rule
 * (the symmetric walk from its cubes ends at 50 there, the plain walk from
 * the standard algorithm anywhere from 49 to the 60s in so short a leg),
 * and some were decided by the ranks.  Every stored scheme verifies. */
Test(resize_cli, meta_search_fresh_starts_take_the_kind_that_did_best, .timeout = 120)
{
    static meta_log g;
    search_config c = meta_cpu_config(g_seed, 5);
    c.p.symmetry = SCHEME_SYM_C3;
    c.given[SEARCH_PARAM_SYMMETRY] = true;
    search_meta_config mc = {{4, 4, 4}, {4, 4, 5}, 0.05, -1, 8, true, 2, false, false, SEARCH_META_DETOURS_FRESH, 1, 0};
    search_meta_result res;
    search_status rs = meta_run_logged("fresh.db", &c, &mc, &g, &res);
    CHECK(rs == SEARCH_REACHED || rs == SEARCH_NOT_REACHED, "status %d: %s", (int)rs, res.msg);
    int fresh[2] = {0, 0};
    for (int k = 0; k < g.n; k++)
        if (g.fresh[k] >= 0)
            fresh[g.fresh[k]]++;
    const int decided = meta_checks_fresh(&g, "fresh");
    meta_checks_news(&g, &mc, "fresh");
    CHECK(fresh[0] >= 1 && fresh[1] >= 1 && decided >= 1,
          "seed %llu: %d legs, %d symmetric and %d standard fresh starts, %d decided by the ranks", g_seed, g.n,
          fresh[0], fresh[1], decided);
    search_meta_result_free(&res);
}

/* --symmetry c3 over <3,4,4>..<4,4,4> on a store holding Kauers and
 * Moosbauer's <3,4,4>:38 (its record, reduced mod 2), legs far too short for
 * <4,4,4>:47 on one thread: <4,4,4>, the one format left, takes detours
 * through <3,4,4>, but never where its fresh turn is due (an even number of
 * legs on it so far), and every other failure there is followed by a detour
 * (meta_checks_detours with the log's symmetric flag); so fresh turns come
 * between the detours.  A meta search whose detours leave no room for fresh
 * turns (the twenty-second session's seed 5 on the GPU) fails both.  Every
 * stored scheme verifies. */
Test(resize_cli, meta_search_fresh_turns_come_between_detours, .timeout = 120)
{
    static meta_log g;
    static const char *const files[] = {"kauers-moosbauer/344-38-mod0.exp"};
    search_session *ss = meta_store_of("fresh-detours.db", files, 1, &g);
    g.symmetric = true;
    search_config c = meta_cpu_config(g_seed, getenv("FLIPGRAPH_SANITIZED") ? 12 : 5);
    c.p.symmetry = SCHEME_SYM_C3;
    c.given[SEARCH_PARAM_SYMMETRY] = true;
    search_meta_config mc = {{3, 4, 4}, {4, 4, 4}, 0.05, -1, 8, true, 2, true, false, SEARCH_META_DETOURS_FRESH, 1, 0};
    search_meta_result res;
    meta_run_on(ss, &c, &mc, &g, &res);
    CHECK(res.nformats == 2 && res.stored == 1, "%d formats, %d from the store", res.nformats, res.stored);
    const int detours = meta_checks_detours(&g, &mc, res.nformats, "fresh and detours");
    int first = -1, fresh_after = 0;
    for (int k = 0; k < g.n; k++) {
        if (g.detour[k] && first < 0)
            first = k;
        fresh_after += first >= 0 && g.fresh[k] >= 0;
    }
    if (res.formats[1].best > res.formats[1].record)
        CHECK(detours >= 2 && fresh_after >= 1, "seed %llu: <4,4,4> at %d after %d legs, %d detours, %d fresh turns "
              "after the first", g_seed, res.formats[1].best, g.n, detours, fresh_after);
    search_meta_result_free(&res);
    session_close(ss);
    store_checks_clean(tc_path_in("fresh-detours.db"));
}

/* The meta search over <3,3,4>..<4,4,5> (six formats), legs far too short
 * for <4,4,4>:47 or <4,4,5>:60: a format's leg starts from the newest best
 * among its neighbours (meta_checks_news), and some such news came from
 * another format than the leg before's.  Every stored scheme verifies. */
Test(resize_cli, meta_search_takes_news_from_any_neighbour, .timeout = 120)
{
    static meta_log g;
    /* 4 s: about 30 legs on a 2-core box, 1 to 6 of them with news from
     * another format than the leg before's (seeds 1-14); three times as long
     * under the sanitizers */
    search_config c = meta_cpu_config(g_seed, getenv("FLIPGRAPH_SANITIZED") ? 12 : 4);
    search_meta_config mc = {{3, 3, 4}, {4, 4, 5}, 0.05, -1, 8, true, 2, false, false, SEARCH_META_DETOURS_FRESH, 1, 0};
    search_meta_result res;
    search_status rs = meta_run_logged("news.db", &c, &mc, &g, &res);
    CHECK(rs == SEARCH_REACHED || rs == SEARCH_NOT_REACHED, "status %d: %s", (int)rs, res.msg);
    CHECK(res.nformats == 6, "%d formats", res.nformats);
    const int elsewhere = meta_checks_news(&g, &mc, "news");
    CHECK(elsewhere >= 1, "seed %llu: %d legs, none with news from another format than the leg before's", g_seed, g.n);
    search_meta_result_free(&res);
}

/* A move to a neighbour that an ordering reaches along two dimensions
 * (<4,4,5> to <4,5,5>: a fifth column of A, or a fifth row, <5,4,5>) starts
 * the leg from both extensions, each stored under the leg (search/meta.c,
 * orientations). */
Test(resize_cli, meta_search_moves_in_every_orientation, .timeout = 120)
{
    char out[65536];
    const char *dbp = tc_path_in("orient.db");
    int rc = tc_run_cli("", out, sizeof out,
                        "search --meta --dims-range 4x4x5..4x5x5 --from '%s' --threads 2 --stall 1s --time 4s "
                        "--seed %llu --db '%s'",
                        tc_corpus("kauers-moosbauer/445-60-mod2.exp"), g_seed, dbp);
    CHECK(rc == 0 || rc == 1, "exit %d:\n%s", rc, out);
    CHECK(strstr(out, "<4,5,5> from <4,4,5>'s best extended (2 orientations, ranks 80..80)"),
          "no leg from both extensions of the <4,4,5>:60:\n%s", out);
    /* both extensions are stored under the leg (two schemes: two slices) */
    CHECK(tc_sql_int(dbp, "SELECT count(*) FROM schemes WHERE n = 4 AND m = 5 AND p = 5 AND rank = 80 "
                          "AND source = 'resize'") == 2,
          "the two moved starts are not both stored under the leg:\n%s", out);
    store_checks_clean(dbp);
}

/* search --meta over <2,2,2>..<2,2,4>: <2,2,4> is entered from the sum of
 * two <2,2,2>:7, its record 14, where the move from <2,2,3>:11 (extended)
 * would start at 15; the leg walks no flip. */
Test(resize_cli, meta_search_starts_at_a_record_sum, .timeout = 300)
{
    char out[16384];
    int rc = meta_until_record(out, sizeof out, "2x2x2..2x2x4", tc_path_in("sum224.db"));
    CHECK(rc == 0, "exit %d:\n%s", rc, out);
    CHECK(strstr(out, "<2,2,4> from <2,2,2>'s best plus <2,2,2>'s rank 14, record 14"), "seed %llu: no sum start:\n%s",
          g_seed, out);
    CHECK(strstr(out, "<2,2,4>: best 14 (start 14) in 0.0 s, 0 flips, record reached"), "seed %llu:\n%s", g_seed, out);
}

/* search --meta over <4,6,6> alone: no neighbour is walked, but the small
 * formats walked on the side for sums and products give <2,2,2>:7 times
 * <2,3,3>:15, the record 105, and the search ends with 0 flips; the scheme is
 * in the store, verified. */
Test(resize_cli, meta_search_starts_from_a_product_of_small_formats, .timeout = 300)
{
    char out[16384];
    const char *dbp = tc_path_in("p466.db");
    int rc = meta_until_record(out, sizeof out, "4x6x6..4x6x6", dbp);
    CHECK(rc == 0, "exit %d:\n%s", rc, out);
    CHECK(strstr(out, "<4,6,6> from <2,2,2>'s best times <2,3,3>'s rank 105, record 105"), "seed %llu:\n%s", g_seed,
          out);
    CHECK(strstr(out, "<4,6,6>: best 105 (start 105) in 0.0 s, 0 flips, record reached"), "seed %llu:\n%s", g_seed, out);
    CHECK(tc_sql_int(dbp, "SELECT count(*) FROM schemes WHERE n = 4 AND m = 6 AND p = 6 AND rank = 105") == 1,
          "the product is not stored");
    store_checks_clean(dbp);
}

/* search --meta over <4,4,7> alone, from a store holding the published
 * <4,4,4>:47 and <3,4,4>:38 (formats outside the range): their sum is the
 * record 85, the first leg's start, stored with its parent; with --meta-fresh
 * the store is not read and the leg starts elsewhere.  sweep --meta --from-db
 * over <4,4,7> alone starts there too (session_outside_bests serves both). */
Test(resize_cli, meta_search_sums_the_stores_formats_outside_the_range, .timeout = 300)
{
    char out[16384];
    const char *dbp = tc_path_in("s447.db"), *freshp = tc_path_in("s447f.db"), *sweepp = tc_path_in("s447s.db");
    const char *stores[] = {dbp, freshp, sweepp};
    for (int k = 0; k < 3; k++) {
        int rc = tc_run_cli("", out, sizeof out, "db --db '%s' import '%s' '%s'", stores[k],
                            tc_corpus("kauers-moosbauer/444-47-mod2.exp"), tc_corpus("kauers-moosbauer/344-38-mod0.exp"));
        cr_assert_eq(rc, 0, "import: %s", out);
    }
    int rc = tc_run_cli("", out, sizeof out,
                        "search --meta --dims-range 4x4x7..4x4x7 --until-record --stall 2s --threads 1 --time 60s "
                        "--seed %llu --db '%s'",
                        g_seed, dbp);
    CHECK(rc == 0, "seed %llu: exit %d:\n%s", g_seed, rc, out);
    CHECK(strstr(out, "<4,4,7> from <3,4,4>'s best plus <4,4,4>'s rank 85, record 85") ||
              strstr(out, "<4,4,7> from <4,4,4>'s best plus <3,4,4>'s rank 85, record 85"),
          "seed %llu: no sum of the stored formats:\n%s", g_seed, out);
    CHECK(strstr(out, "<4,4,7>: best 85 (start 85) in 0.0 s, 0 flips, record reached"), "seed %llu:\n%s", g_seed, out);
    CHECK(tc_sql_int(dbp, "SELECT count(*) FROM schemes WHERE n = 4 AND m = 4 AND p = 7 AND rank = 85 "
                          "AND source = 'resize' AND parent_id IS NOT NULL") == 1,
          "the sum is not stored with its parent");
    store_checks_clean(dbp);
    rc = tc_run_cli("", out, sizeof out,
                    "search --meta --meta-fresh --dims-range 4x4x7..4x4x7 --until-record --stall 1s --threads 1 "
                    "--time 3s --seed %llu --db '%s'",
                    g_seed, freshp);
    CHECK(rc == 0 || rc == 1, "seed %llu: --meta-fresh: exit %d:\n%s", g_seed, rc, out);
    CHECK(strstr(out, "[leg 1] <4,4,7>") && !strstr(out, "'s best plus <4,4,4>'s") && !strstr(out, "plus <3,4,4>'s"),
          "seed %llu: --meta-fresh summed the store's formats:\n%s", g_seed, out);
    rc = tc_run_cli("", out, sizeof out,
                    "sweep --dims-list 4x4x7 --time-per 60s --until-record --meta --from-db --threads 1 --seed %llu "
                    "--progress 0 --db '%s'",
                    g_seed, sweepp);
    CHECK(rc == 0, "seed %llu: sweep: exit %d:\n%s", g_seed, rc, out);
    CHECK(strstr(out, "<4,4,7> from <3,4,4>'s best plus <4,4,4>'s best, record 85") ||
              strstr(out, "<4,4,7> from <4,4,4>'s best plus <3,4,4>'s best, record 85"),
          "seed %llu: sweep: no sum of the stored formats:\n%s", g_seed, out);
    CHECK(tc_sql_int(sweepp, "SELECT count(*) FROM schemes WHERE n = 4 AND m = 4 AND p = 7 AND rank = 85 "
                             "AND parent_id IS NOT NULL") == 1,
          "sweep: the sum is not stored with its parent");
    store_checks_clean(sweepp);
}

/* search --meta over <3,3,3>..<3,3,4>: <3,3,4> is entered by the move from
 * <3,3,3>:23 extended (rank 32); the sum of two <2,3,3>:15 (the small formats
 * walked on the side), 30, lies below the move but above the record 29: it is
 * stored beside the leg (source resize) and not walked; the leg starts from
 * the move. */
Test(resize_cli, meta_search_stores_a_sum_above_the_record_beside_the_leg, .timeout = 300)
{
    char out[16384];
    const char *dbp = tc_path_in("beside.db");
    int rc = meta_until_record(out, sizeof out, "3x3x3..3x3x4", dbp);
    CHECK(rc == 0, "exit %d:\n%s", rc, out);
    const char *beside = strstr(out, "<3,3,4>: stored beside it, not walked: <2,3,3>'s best plus <2,3,3>'s rank 30");
    CHECK(beside, "seed %llu: no sum beside the leg:\n%s", g_seed, out);
    /* "<3,3,4> from <3,3,3>'s best extended (3 orientations, ranks 32..32) rank 32" */
    const char *start = strstr(out, "<3,3,4> from <3,3,3>'s best extended");
    CHECK(start && start < beside, "seed %llu: the leg did not start from the move:\n%s", g_seed, out);
    const char *rk = strstr(start, " rank ");
    CHECK(rk && atoi(rk + strlen(" rank ")) > 30, "seed %llu: a move not above the sum:\n%s", g_seed, out);
    CHECK(tc_sql_int(dbp, "SELECT count(*) FROM schemes WHERE n = 3 AND m = 3 AND p = 4 AND rank = 30 AND "
                          "source = 'resize'") >= 1,
          "the sum is not stored");
    store_checks_clean(dbp);
}

/* The first leg of a format with no move and nothing stored: a large format
 * (n m p >= SEARCH_LARGE_FORMAT) walks a product below the standard algorithm
 * beside it (<6,6,6>: <2,2,2>:7 times <3,3,3>:23, 161, with the standard
 * algorithm's 216, the walkers spread over both), the product stored; a
 * smaller one walks from the standard algorithm and keeps the product beside,
 * not walked (<4,4,4>: <2,2,2>:7 squared, 49). */
Test(resize_cli, meta_first_leg_walks_a_large_formats_product_beside_the_standard_algorithm, .timeout = 300)
{
    char out[16384];
    const char *dbp = tc_path_in("first666.db");
    int rc = tc_run_cli("", out, sizeof out,
                        "search --meta --dims-range 6x6x6..6x6x6 --threads 2 --time 2s --seed %llu --db '%s'", g_seed, dbp);
    CHECK(rc == 0 || rc == 1, "exit %d:\n%s", rc, out);
    CHECK(strstr(out, "[leg 1] <6,6,6> from <2,2,2>'s best times <3,3,3>'s rank 161 and the standard algorithm (rank 216; "
                      "the walkers spread over both) rank 161"),
          "seed %llu: the first leg does not walk the product beside the standard algorithm:\n%s", g_seed, out);
    CHECK(!strstr(out, "not walked"), "seed %llu: the product kept beside, not walked:\n%s", g_seed, out);
    const char *best = strstr(out, "[leg 1] <6,6,6>: best ");
    CHECK(best && atoi(best + strlen("[leg 1] <6,6,6>: best ")) <= 161, "seed %llu: the leg ended above the product:\n%s",
          g_seed, out);
    CHECK(tc_sql_int(dbp, "SELECT count(*) FROM schemes WHERE n = 6 AND m = 6 AND p = 6 AND rank = 161 AND "
                          "source = 'resize'") == 1,
          "the product is not stored");
    store_checks_clean(dbp);

    dbp = tc_path_in("first444.db");
    rc = tc_run_cli("", out, sizeof out,
                    "search --meta --dims-range 4x4x4..4x4x4 --threads 2 --time 1s --seed %llu --db '%s'", g_seed, dbp);
    CHECK(rc == 0 || rc == 1, "exit %d:\n%s", rc, out);
    CHECK(strstr(out, "[leg 1] <4,4,4> from the standard algorithm, record 47"), "seed %llu:\n%s", g_seed, out);
    CHECK(strstr(out, "[leg 1] <4,4,4>: stored beside it, not walked: <2,2,2>'s best times <2,2,2>'s rank 49"),
          "seed %llu: the product of a small format walked:\n%s", g_seed, out);
    store_checks_clean(dbp);
}

/* A meta search on a store that holds an earlier one's schemes goes on from
 * them (from_store): a stored scheme in another orientation fills its sorted
 * format's pool, and with every record stored the search ends before its first
 * leg; without from_store it walks again. */
Test(resize_cli, meta_search_goes_on_from_the_store, .timeout = 300)
{
    char err[512];
    db_status st;
    search_config c = meta_cpu_config(g_seed, 0);
    search_meta_config mc = {{2, 2, 2}, {2, 2, 3}, 0.2, 10, 4, true, 0, false, false, SEARCH_META_DETOURS_OFF, 1, 0};
    search_meta_result res;

    const char *pa = tc_path_in("meta-first.db");
    search_session *a = session_open(pa, &st, err, sizeof err);
    cr_assert_not_null(a, "%s", err);
    CHECK(search_meta_run(a, &c, NULL, &mc, NULL, 0, NULL, &res) == SEARCH_REACHED, "first search: %s", res.msg);
    CHECK(res.legs >= 2 && res.stored == 0, "first search: %d legs, %d from the store", res.legs, res.stored);
    search_meta_result_free(&res);
    /* its two bests into a second store: <2,2,3> as <3,2,2> */
    const char *pb = tc_path_in("meta-second.db");
    search_session *b = session_open(pb, &st, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    const scheme_format fs[2] = {{2, 2, 2}, {2, 2, 3}}, to[2] = {{2, 2, 2}, {3, 2, 2}};
    for (int i = 0; i < 2; i++) {
        int64_t id, nid;
        int rank;
        bool existed;
        cr_assert(db_best(session_store(a), fs[i], SCHEME_RING_F2, &id, &rank, err, sizeof err) == DB_OK, "%s", err);
        scheme *s = db_load_scheme(session_store(a), id, &st, err, sizeof err);
        cr_assert_not_null(s, "%s", err);
        scheme *p = search_permute(s, to[i]);
        cr_assert_not_null(p);
        db_provenance prov = {0, 0, "test", 0, 0};
        cr_assert(db_insert_scheme(session_store(b), p, &prov, &nid, &existed, err, sizeof err) == DB_OK, "%s", err);
        scheme_free(s);
        scheme_free(p);
    }
    session_close(a);
    mc.from_store = true;
    CHECK(search_meta_run(b, &c, NULL, &mc, NULL, 0, NULL, &res) == SEARCH_REACHED, "from the store: %s", res.msg);
    CHECK(res.legs == 0 && res.stored == 2 && res.all_records, "from the store: %d legs, %d stored schemes taken",
          res.legs, res.stored);
    for (int i = 0; i < res.nformats; i++)
        CHECK(res.formats[i].best == res.formats[i].record, "from the store: format %d best %d, record %d", i,
              res.formats[i].best, res.formats[i].record);
    search_meta_result_free(&res);
    mc.from_store = false;
    c.p.time_limit = 1;
    c.given[SEARCH_PARAM_TIME] = true;
    mc.until_record = false;
    search_meta_run(b, &c, NULL, &mc, NULL, 0, NULL, &res);
    CHECK(res.legs >= 1 && res.stored == 0, "fresh: %d legs, %d from the store (%s)", res.legs, res.stored, res.msg);
    search_meta_result_free(&res);
    session_close(b);
}

/* flipgraph search --meta: the table and exit 0 at every record; bad usage
 * exits 2. */
Test(resize_cli, search_meta_until_record, .timeout = 300)
{
    char out[1 << 16];
    const char *db = tc_path_in("smeta.db");
    int rc = tc_run_cli("", out, sizeof out,
                        "search --meta --dims-range 2x2x2..2x3x3 --until-record --stall 1s --threads 1 --seed %llu "
                        "--db '%s'",
                        g_seed, db);
    CHECK(rc == 0, "seed %llu: exit %d: %s", g_seed, rc, out);
    CHECK(strstr(out, "[leg 1] <2,2,2> from the standard algorithm"), "seed %llu: %s", g_seed, out);
    CHECK(strstr(out, "3 of 3 formats at their record"), "seed %llu: %s", g_seed, out);
    CHECK(tc_sql_int(db, "SELECT count(*) FROM schemes WHERE n = 2 AND m = 3 AND p = 3 AND rank = 15") == 1,
          "seed %llu: <2,3,3>:15 not stored", g_seed);
    /* starts from a file of the range, in another orientation (<3,2,2>) */
    scheme *s = walked((scheme_format){3, 2, 2}, g_seed, 20000);
    write_scheme(s, tc_path_in("m322.native"), SCHEME_FILE_NATIVE);
    const char *db2 = tc_path_in("smeta-from.db");
    rc = tc_run_cli("", out, sizeof out,
                    "search --meta --dims-range 2x2x2..2x2x3 --until-record --stall 1s --threads 1 --seed %llu "
                    "--from '%s' --db '%s'",
                    g_seed, tc_path_in("m322.native"), db2);
    CHECK(rc == 0 && strstr(out, "[leg 1] <2,2,3> from the start scheme"), "seed %llu: exit %d: %s", g_seed, rc, out);
    /* the --from scheme is the user's, not a move: never stored as source resize */
    CHECK(tc_sql_int(db2, "SELECT count(*) FROM schemes WHERE source = 'resize' AND run_id = (SELECT min(id) FROM runs)")
              == 0,
          "seed %llu: the --from start stored as a moved start", g_seed);
    scheme_free(s);
    static const char *bad[] = {
        "--meta",                                             /* no range */
        "--meta --dims-range 3x3x3..2x2x2",                   /* empty */
        "--meta --dims-range 2x2x2..3x3x3 --dims 2x2x2",      /* --dims does not apply */
        "--meta --dims-range 2x2x2..3x3x3 --target-rank 20",  /* nor --target-rank */
        "--meta --dims-range 2x2x2..3x3x3 --meta-drift 2000", /* out of range */
        "--meta --dims-range 2x2x2..3x3x3 --meta-pool 0",
        "--meta --dims-range 2x2x2..3x3x3 --meta-stall-grow 11",
        "--meta --dims-range 2x2x2..3x3x3 --stall 0",
        "--meta --dims-range 2x2x2..3x3x3 --meta-detours on",  /* off, best or fresh */
        "--meta --dims-range 2x2x2..3x3x3 --meta-below 1",    /* needs --until-record */
        "--meta --dims-range 2x2x2..3x3x3 --until-record --meta-below 0", /* 1..100 */
        "--meta --mpi --dims-range 2x2x2..3x3x3",             /* not under MPI */
        "--meta --dims-range 2x2x2..2x2x3 --from DATA",       /* a <4,4,4> file outside the range */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char args[512];
        snprintf(args, sizeof args, "%s", bad[i]);
        char *d = strstr(args, "DATA");
        if (d)
            snprintf(d, sizeof args - (size_t)(d - args), "'%s'", tc_corpus("kauers-moosbauer/444-47-mod2.exp"));
        rc = tc_run_cli("", out, sizeof out, "search %s --threads 1 --time 1s", args);
        CHECK(rc == 2 && strstr(out, "flipgraph search:"), "search %s: exit %d, expected 2: %s", args, rc, out);
    }
}

/* search --meta --until-record --meta-below 1 over <2,2,2>..<2,2,3>: the same
 * range --until-record alone ends once both formats reach their records (7
 * and 11, proven optimal, so never below); with the goal one below them the
 * walk goes on at the records until its time is up (exit 1, a goal missed),
 * the legs aim below (their target), and the table and the legs still report
 * the published records. */
Test(resize_cli, meta_search_below_the_records_walks_on, .timeout = 120)
{
    char out[1 << 16];
    int rc = tc_run_cli("", out, sizeof out,
                        "search --meta --dims-range 2x2x2..2x2x3 --until-record --stall 1s --threads 1 --seed %llu "
                        "--time 60s --db '%s'",
                        g_seed, tc_path_in("below0.db"));
    CHECK(rc == 0 && strstr(out, "2 of 2 formats at their record"), "seed %llu: exit %d: %s", g_seed, rc, out);
    const char *end = strstr(out, "meta search: ");
    int legs0 = end ? atoi(end + strlen("meta search: ")) : -1;
    rc = tc_run_cli("", out, sizeof out,
                    "search --meta --dims-range 2x2x2..2x2x3 --until-record --meta-below 1 --stall 1s --threads 1 "
                    "--seed %llu --time 6s --db '%s'",
                    g_seed, tc_path_in("below1.db"));
    CHECK(rc == 1, "seed %llu: exit %d, expected 1 (no format below its record): %s", g_seed, rc, out);
    CHECK(strstr(out, "until every format is 1 below its record"), "seed %llu: banner: %s", g_seed, out);
    CHECK(strstr(out, "2 of 2 formats at their record, 0 of them below it"), "seed %llu: %s", g_seed, out);
    CHECK(strstr(out, "<2,2,2>: best 7 ") && strstr(out, "record 7,"), "seed %llu: the published record: %s", g_seed,
          out);
    end = strstr(out, "meta search: ");
    int legs1 = -1;
    double secs1 = -1;
    CHECK(end && sscanf(end, "meta search: %d legs in %lf s", &legs1, &secs1) == 2, "seed %llu: %s", g_seed, out);
    CHECK(legs0 > 0 && legs1 >= 3 && secs1 >= 5.5,
          "seed %llu: with the goal below the records %d legs in %.1f s (the time is 6 s); %d legs without", g_seed,
          legs1, secs1, legs0);
    /* a leg at a record walked on: a <2,2,2> leg that starts at 7 */
    CHECK(strstr(out, "<2,2,2>: best 7 (start 7)"), "seed %llu: no leg walked on at the record: %s", g_seed, out);
}

/* SIGINT mid-leg: the leg's run is stored as interrupted, the table is
 * printed, exit 1, and the store is whole. */
Test(resize_cli, search_meta_sigint_keeps_what_was_found, .timeout = 120)
{
    const char *outp = tc_path_in("msig.out"), *dbp = tc_path_in("msig.db");
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", g_seed % 1000000);
    char *const argv[] = {(char *)tc_bin(), "search", "--meta", "--dims-range", "3x3x3..4x4x4", "--stall", "2s",
                          "--time", "10m", "--threads", "1", "--seed", seed, "--db", (char *)dbp, NULL};
    pid_t pid = tc_spawn_logged(outp, argv, false);
    /* the second leg under way: the first one's schemes are stored */
    bool seen = tc_wait_for_text(outp, "[leg 2]", 30);
    struct timespec pause = {0, 300 * 1000000};
    nanosleep(&pause, NULL);
    kill(pid, SIGINT);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    char err[256];
    size_t len;
    char *out = scheme_slurp(outp, 1 << 20, &len, err, sizeof err);
    cr_assert_not_null(out);
    CHECK(seen, "no second leg within 30 s: %s", out);
    CHECK(tc_sql_int(dbp, "SELECT count(*) FROM schemes WHERE n = 3 AND m = 3 AND p = 3") > 0, "leg 1 stored nothing");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1, "exit status 0x%x: %s", status, out);
    CHECK(strstr(out, "; interrupted") && strstr(out, "<3,3,3>"), "no table: %s", out);
    CHECK(tc_sql_int(dbp, "SELECT count(*) FROM runs WHERE status = 'interrupted'") == 1, "%s", out);
    store_checks_clean(dbp);
    free(out);
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

/* search_meta_start_reach: a format further than one step is a start only
 * where it holds `to` in some ordering of its dimensions and lies within the
 * reach; Moosbauer and Poole's <6,6,6>:153 is three steps above <5,5,5>. */
Test(resize, meta_start_reach_projects_from_further_formats, .timeout = 300)
{
    scheme *s153 = tc_read_corpus("moosbauer-poole/666m153.txt");
    const scheme *known[1] = {s153};
    int from, from2;
    const scheme_format f555 = {5, 5, 5};
    scheme *m = search_meta_start_reach(f555, known, 1, 1, 1, &from, &from2, NULL);
    CHECK(!m && from == -1, "reach 1: a start from <6,6,6> for <5,5,5>");
    m = search_meta_start_reach(f555, known, 1, 1, 2, &from, &from2, NULL);
    CHECK(!m && from == -1, "reach 2: a start from three steps away");
    m = search_meta_start_reach(f555, known, 1, 1, 3, &from, NULL, NULL);
    CHECK(m && from == 0, "reach 3: no start from <6,6,6> for <5,5,5>");
    check_valid(m, f555, "666m153.txt to <5,5,5> by search_meta_start_reach");
    CHECK(m->rank <= 93, "reach 3: rank %d, the record 93", m->rank);
    scheme_free(m);
    /* reach 1 is search_meta_start */
    CHECK(!search_meta_start(f555, known, 1, 1, &from, &from2, NULL), "search_meta_start reached three steps");

    /* an ordering: <5,5,6> holds <6,4,5> as <6,5,5>, one step (the steps are
     * the dimensions' sums' difference, in any ordering that holds it), and
     * <6,4,4> two steps */
    char err[600];
    scheme *p556 = search_resize(s153, (scheme_format){5, 5, 6}, err, sizeof err);
    cr_assert_not_null(p556, "%s", err);
    const scheme *known2[1] = {p556};
    const scheme_format f645 = {6, 4, 5}, f644 = {6, 4, 4};
    m = search_meta_start_reach(f645, known2, 1, 1, 1, &from, NULL, NULL);
    CHECK(m && from == 0, "reach 1: no start from <5,5,6> (as <6,5,5>) for <6,4,5>");
    check_valid(m, f645, "<5,5,6> to <6,4,5>");
    CHECK(m->rank < p556->rank, "<6,4,5> rank %d, not below <5,5,6>'s %d", m->rank, p556->rank);
    scheme_free(m);
    CHECK(!search_meta_start_reach(f644, known2, 1, 1, 1, &from, NULL, NULL), "reach 1: <6,4,4> is two steps away");
    m = search_meta_start_reach(f644, known2, 1, 1, 2, &from, NULL, NULL);
    CHECK(m && from == 0, "reach 2: no start from <5,5,6> for <6,4,4>");
    check_valid(m, f644, "<5,5,6> to <6,4,4>");
    scheme_free(m);
    /* nnear 0: no projection at all, whatever the reach */
    CHECK(!search_meta_start_reach(f645, known2, 1, 0, 64, &from, NULL, NULL), "nnear 0 moved a scheme");
    scheme_free(p556);
    scheme_free(s153);
}

/* The six orderings of a format's dimensions, as the test names them. */
static const int test_orderings[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

/* The lowest rank search_resize gives from the orderings search_permute
 * reaches (one per distinct ordering of s's dimensions) that hold `to`: what
 * the projections gave before every orientation was tried. */
static int best_by_format_orderings(const scheme *s, scheme_format to)
{
    const int d[3] = {s->fmt.n, s->fmt.m, s->fmt.p}, want[3] = {to.n, to.m, to.p};
    int best = -1;
    char err[600];
    for (int q = 0; q < 6; q++) {
        int o[3];
        for (int k = 0; k < 3; k++)
            o[k] = d[test_orderings[q][k]];
        if (o[0] < want[0] || o[1] < want[1] || o[2] < want[2])
            continue;
        scheme *pq = search_permute(s, fmt_of(o));
        cr_assert_not_null(pq);
        scheme *r = search_resize(pq, to, err, sizeof err);
        cr_assert_not_null(r, "%s", err);
        if (best < 0 || r->rank < best)
            best = r->rank;
        scheme_free(r);
        scheme_free(pq);
    }
    return best;
}

/* search_project_oriented against search_resize from every ordering of the
 * format (fresh walked schemes of random formats): never above any, every
 * result valid, the steps counted; the errors. */
Test(resize, project_oriented_is_never_above_any_ordering, .timeout = 300)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    char err[600], fb[32];
    for (int round = 0; round < tc_scaled(6); round++) {
        scheme_format f;
        do
            f = tc_random_format(&rng, 5);
        while (f.n < 2 || f.m < 2 || f.p < 2 || f.n * f.m * f.p > 80);
        scheme *s = walked(f, scheme_rng_next(&rng), 100000);
        const scheme_format sf = search_format_sorted(f);
        for (int a = 1; a <= sf.p; a++)
            for (int b = a; b <= sf.p; b++)
                for (int c = b; c <= sf.p; c++) {
                    const scheme_format to = {a, b, c};
                    if (a > sf.n || b > sf.m || c > sf.p || scheme_rng_below(&rng, 3))
                        continue;
                    int steps = -1;
                    scheme *r = search_project_oriented(s, to, 0, &steps, err, sizeof err);
                    CHECK(r, "%s rank %d to %s: %s", scheme_format_str(f, fb), s->rank,
                          scheme_format_str(to, (char[32]){0}), err);
                    check_valid(r, to, "search_project_oriented");
                    CHECK(steps == f.n + f.m + f.p - a - b - c, "steps %d", steps);
                    const int by_format = best_by_format_orderings(s, to);
                    CHECK(r->rank <= by_format, "%s to %s: rank %d above the orderings' best %d",
                          scheme_format_str(f, fb), scheme_format_str(to, (char[32]){0}), r->rank, by_format);
                    scheme_free(r);
                }
        /* larger in a dimension than every ordering holds: none */
        const scheme_format big = {sf.p + 1, 1, 1};
        CHECK(!search_project_oriented(s, big, 0, NULL, err, sizeof err) && err[0], "a larger format projected");
        scheme_free(s);
    }
}

/* Which of a scheme's indices a projection deletes is the orientation's
 * choice: our second <6,6,6>:153 gives <4,4,5> 62 from its transposition, an
 * orientation of a square format that search_permute (by format) never takes,
 * where its own ordering gives 65 (bench/RESULTS.md, "Every orientation"; it
 * was <3,4,4> 39 against 40 before the eliminations by a flattening).  Our
 * <5,5,6>:110 gave <3,3,5> and <3,3,6> one lower from another ordering of its
 * factors than from its own; the eliminations by a flattening after each
 * projection now take its own ordering there too (bench/RESULTS.md, "One-term
 * eliminations by a flattening"), so for it the test is "never above". */
Test(resize, project_oriented_beats_the_own_ordering_on_our_schemes, .timeout = 300)
{
    char path[4096], err[600];
    snprintf(path, sizeof path, "%s/data/found/556-110-z-lift.txt", getenv("FLIPGRAPH_SOURCE"));
    scheme *z110 = tc_read_or_die(path), *s110 = scheme_to_f2(z110);
    scheme_free(z110);
    /* every format 2 <= a <= b <= c the 110 holds in its own ordering: never
     * above the own ordering's projection */
    int formats = 0;
    scheme *r;
    for (int a = 2; a <= 5; a++)
        for (int b = a; b <= 5; b++)
            for (int c = b; c <= 6; c++) {
                const scheme_format to = {a, b, c};
                scheme *own = search_resize(s110, to, err, sizeof err);
                r = search_project_oriented(s110, to, 0, NULL, err, sizeof err);
                cr_assert(own && r, "%s", err);
                check_valid(r, to, "the 110 projected");
                CHECK(r->rank <= own->rank, "<%d,%d,%d>: every orientation %d, the own ordering %d", a, b, c,
                      r->rank, own->rank);
                formats++;
                scheme_free(own);
                scheme_free(r);
            }
    CHECK(formats == 30, "the 110: %d formats", formats);
    scheme_free(s110);

    snprintf(path, sizeof path, "%s/data/found/666-153-c3xc2-gf2-b.txt", getenv("FLIPGRAPH_SOURCE"));
    scheme *s153 = tc_read_or_die(path);
    const scheme_format f445 = {4, 4, 5};
    const int by_format = best_by_format_orderings(s153, f445);
    r = search_project_oriented(s153, f445, 0, NULL, err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    check_valid(r, f445, "the 153-b to <4,4,5>");
    CHECK(r->rank < by_format, "<4,4,5>: every orientation %d, the format's orderings %d", r->rank, by_format);
    scheme_free(r);
    /* reach: three steps to <5,5,5>, none within two */
    int steps;
    CHECK(!search_project_oriented(s153, (scheme_format){5, 5, 5}, 2, &steps, err, sizeof err) && steps == 3 &&
              strstr(err, "at most 2"),
          "reach 2: %s", err);
    scheme_free(s153);
}

/* The two roads of search_resize over GF(2) (docs/resize.md, "Reductions
 * after a move"), on our schemes where each road wins: the 130's <3,3,6> is 45
 * by the reductions alone (the eliminations after each move give 46), our
 * first 153's <4,5,6> 93 and <3,6,6> 89 only with the eliminations after each
 * move (95 and 91 without them), the Arai et al. 73's <3,3,3> 23 (24 before
 * the eliminations). At most these ranks, each result valid. */
Test(resize, resize_keeps_the_lower_of_its_two_roads, .timeout = 120)
{
    static const struct {
        const char *file;
        scheme_format to;
        int at_most;
    } cases[] = {
        {"data/found/566-130-z-lift.txt", {3, 3, 6}, 45},
        {"data/found/666-153-c3xc2-gf2.txt", {4, 5, 6}, 93},
        {"data/found/666-153-c3xc2-gf2.txt", {3, 6, 6}, 89},
        {"data/corpus/arai/455_73.m", {3, 3, 3}, 23},
    };
    char path[4096], err[600], fb[32];
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        snprintf(path, sizeof path, "%s/%s", getenv("FLIPGRAPH_SOURCE"), cases[k].file);
        scheme *in = tc_read_or_die(path), *f2 = scheme_to_f2(in);
        scheme_free(in);
        scheme *r = search_project_oriented(f2, cases[k].to, 0, NULL, err, sizeof err);
        cr_assert_not_null(r, "%s", err);
        check_valid(r, cases[k].to, cases[k].file);
        CHECK(r->rank <= cases[k].at_most, "%s to %s: rank %d, at most %d expected", cases[k].file,
              scheme_format_str(cases[k].to, fb), r->rank, cases[k].at_most);
        scheme_free(r);
        scheme_free(f2);
    }
}

/* search_format_holds: some ordering of the first at least the second in
 * every dimension; both orders of the dimensions, equal formats, and one
 * dimension short of it. */
Test(resize, format_holds_compares_sorted_dimensions)
{
    const struct {
        scheme_format big, small;
        bool holds;
    } cases[] = {
        {{6, 6, 6}, {5, 5, 6}, true},  {{6, 6, 6}, {6, 6, 6}, true},  {{4, 6, 5}, {6, 4, 4}, true},
        {{5, 4, 6}, {6, 5, 4}, true},  {{5, 5, 5}, {4, 4, 6}, false}, {{3, 4, 5}, {2, 2, 6}, false},
        {{4, 4, 5}, {4, 5, 5}, false}, {{2, 7, 7}, {3, 3, 3}, false}, {{7, 7, 7}, {6, 6, 6}, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char a[32], b[32];
        cr_expect_eq(search_format_holds(cases[i].big, cases[i].small), cases[i].holds, "%s holds %s: expected %d",
                     scheme_format_str(cases[i].big, a), scheme_format_str(cases[i].small, b), cases[i].holds);
    }
}

/* search_survey: every smaller format once, in order, each the oriented
 * projection; --reach cuts it. */
Test(resize, survey_lists_every_smaller_format, .timeout = 300)
{
    scheme *s = walked((scheme_format){3, 4, 4}, g_seed ^ 0x5e, 200000);
    search_survey_row *rows;
    char err[600];
    const int n = search_survey(s, 0, &rows, err, sizeof err);
    /* 2 <= a <= b <= c with a <= 3, b <= 4, c <= 4, not <3,4,4>: <2,2,2..4>,
     * <2,3,3..4>, <2,4,4>, <3,3,3..4>, <3,4,4> left out: 8 */
    CHECK(n == 8, "%d rows: %s", n, err);
    for (int i = 0; i < n; i++) {
        const scheme_format f = rows[i].fmt;
        CHECK(f.n >= 2 && f.n <= f.m && f.m <= f.p && f.n <= 3 && f.p <= 4 && !(f.n == 3 && f.m == 4 && f.p == 4),
              "row %d", i);
        if (i)
            CHECK(rows[i - 1].fmt.n * 100 + rows[i - 1].fmt.m * 10 + rows[i - 1].fmt.p <
                      f.n * 100 + f.m * 10 + f.p,
                  "rows out of order at %d", i);
        check_valid(rows[i].s, f, "a survey row");
        scheme *r = search_project_oriented(s, f, 0, NULL, err, sizeof err);
        cr_assert_not_null(r);
        CHECK(r->rank == rows[i].s->rank && rows[i].steps == 11 - f.n - f.m - f.p, "row %d: rank %d, steps %d", i,
              rows[i].s->rank, rows[i].steps);
        scheme_free(r);
    }
    search_survey_free(rows, n);
    CHECK(search_survey(s, 1, &rows, err, sizeof err) == 2 && same_fmt(rows[0].fmt, (scheme_format){2, 4, 4}) &&
              same_fmt(rows[1].fmt, (scheme_format){3, 3, 4}),
          "reach 1: not <2,4,4> and <3,3,4>");
    search_survey_free(rows, 2);
    scheme_free(s);
}

/* sweep --meta --from-db: the store's <6,6,6>:153 serves <5,5,5>, before it in
 * the list, not with the default reach (<5,5,5> from the standard algorithm
 * misses its record, and the sweep goes on to <6,6,6>), and in the first
 * round with --meta-reach 3 (its record at once, the start stored as it walks
 * nothing); --meta-reach wants --meta and 1..64. */
Test(resize_cli, sweep_meta_reach_projects_the_stored_best, .timeout = 300)
{
    char out[1 << 16];
    const char *db = tc_path_in("reach.db");
    int rc = tc_run_cli("", out, sizeof out, "db --db '%s' import '%s'", db, tc_corpus("moosbauer-poole/666m153.txt"));
    CHECK(rc == 0, "import: exit %d: %s", rc, out);
    /* the default reach: <5,5,5> is three steps from <6,6,6>, no start there;
     * it misses its record in a second (exit 1), and the sweep goes on */
    rc = tc_run_cli("", out, sizeof out,
                    "sweep --dims-list 5x5x5,6x6x6 --time-per 1s --until-record --meta --from-db --threads 1 "
                    "--seed %llu --progress 0 --db '%s'",
                    g_seed, db);
    CHECK(rc == 1, "seed %llu: reach 1: exit %d: %s", g_seed, rc, out);
    CHECK(strstr(out, "<5,5,5> from the standard algorithm"), "seed %llu: reach 1: %s", g_seed, out);
    CHECK(strstr(out, "<6,6,6> from the database's best"), "seed %llu: reach 1: the sweep stopped: %s", g_seed, out);
    /* (a slow build may store nothing of <5,5,5> in its second: no row is no 93 either) */
    CHECK(tc_sql_int(db, "SELECT count(*) FROM schemes WHERE n = 5 AND m = 5 AND p = 5 AND rank <= 93") == 0,
          "seed %llu: reach 1: <5,5,5> at 93 in one second: %s", g_seed, out);

    rc = tc_run_cli("", out, sizeof out,
                    "sweep --dims-list 5x5x5,6x6x6 --time-per 200s --until-record --meta --meta-reach 3 --from-db "
                    "--threads 1 --seed %llu --progress 0 --db '%s'",
                    g_seed, db);
    CHECK(rc == 0, "seed %llu: exit %d: %s", g_seed, rc, out);
    CHECK(strstr(out, "<5,5,5> from <6,6,6>'s best, projected, record 93"), "seed %llu: %s", g_seed, out);
    CHECK(strstr(out, "<6,6,6> from the database's best"), "seed %llu: %s", g_seed, out);
    CHECK(!strstr(out, "200.0 s"), "seed %llu: a format walked its whole time: %s", g_seed, out);
    /* the start at the record walked no flip: it is stored itself, with its parent */
    CHECK(tc_sql_int(db, "SELECT count(*) FROM schemes WHERE n = 5 AND m = 5 AND p = 5 AND rank <= 93 AND source = "
                         "'resize' AND parent_id = (SELECT id FROM schemes WHERE n = 6)") == 1,
          "seed %llu: no <5,5,5> at 93 stored from the <6,6,6>: %s", g_seed, out);

    static const char *bad[] = {"--meta-reach 0 --meta", "--meta-reach 65 --meta", "--meta-reach x --meta",
                                "--meta-reach 3"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc = tc_run_cli("", out, sizeof out, "sweep --dims-list 2x2x2 --time-per 1s %s --db '%s'", bad[i], db);
        CHECK(rc == 2 && strstr(out, "--meta-reach"), "'%s': exit %d: %s", bad[i], rc, out);
    }
}

/* search --meta-reach: the first leg's format, never walked, starts from the
 * store's <6,6,6>:153 projected three steps down (<5,5,5> at its record 93,
 * the start stored with its parent); with the default reach it does not. */
Test(resize_cli, meta_search_reach_projects_the_stored_best, .timeout = 300)
{
    char out[16384];
    const char *dbp = tc_path_in("reach-meta.db");
    int rc = tc_run_cli("", out, sizeof out, "db --db '%s' import '%s'", dbp, tc_corpus("moosbauer-poole/666m153.txt"));
    CHECK(rc == 0, "import: exit %d: %s", rc, out);
    rc = tc_run_cli("", out, sizeof out,
                    "search --meta --dims-range 5x5x5..6x6x6 --threads 1 --time 1s --seed %llu --db '%s'", g_seed, dbp);
    CHECK(rc == 0 || rc == 1, "exit %d:\n%s", rc, out);
    CHECK(strstr(out, "[leg 1] <5,5,5> from ") && !strstr(out, "[leg 1] <5,5,5> from <6,6,6>"),
          "seed %llu: reach 1 started <5,5,5> from <6,6,6>:\n%s", g_seed, out);
    CHECK(tc_sql_int(dbp, "SELECT count(*) FROM schemes WHERE n = 5 AND rank <= 93") == 0,
          "seed %llu: reach 1: <5,5,5> at 93 in a second:\n%s", g_seed, out);

    rc = tc_run_cli("", out, sizeof out,
                    "search --meta --dims-range 5x5x5..6x6x6 --meta-reach 3 --threads 1 --time 1s --seed %llu --db '%s'",
                    g_seed, dbp);
    CHECK(rc == 0 || rc == 1, "exit %d:\n%s", rc, out);
    CHECK(strstr(out, "reach 3"), "seed %llu: the banner does not say the reach:\n%s", g_seed, out);
    CHECK(strstr(out, "[leg 1] <5,5,5> from <6,6,6>'s best projected rank 93, record 93"), "seed %llu:\n%s", g_seed,
          out);
    CHECK(tc_sql_int(dbp, "SELECT count(*) FROM schemes WHERE n = 5 AND m = 5 AND p = 5 AND rank = 93 AND source = "
                          "'resize' AND parent_id = (SELECT id FROM schemes WHERE n = 6)") == 1,
          "seed %llu: the projected start is not stored with its parent:\n%s", g_seed, out);
    store_checks_clean(dbp);

    static const char *bad[] = {"0", "65", "x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc = tc_run_cli("", out, sizeof out, "search --meta --dims-range 2x2x2..2x2x3 --meta-reach %s --time 1s", bad[i]);
        CHECK(rc == 2 && strstr(out, "--meta-reach"), "--meta-reach %s: exit %d: %s", bad[i], rc, out);
    }
}
