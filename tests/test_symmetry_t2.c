/* Tests of the transposition t2 on <n,m,m> (schemes/symmetry.c, search/walker_sym.c):
 * the map (a, b, c) -> (c^T, b^T, a^T) against an entry-by-entry reference,
 * the t2 starts (verify, invariant, the rank and fixed terms the groups
 * give), and the t2 walker against its definition: every move is the plain
 * flip (search_flip) of two images together with its image, every scheme it
 * holds verifies and is invariant, and its index agrees with a recount.
 *
 * Randomized tests seed from /dev/urandom (or FLIPGRAPH_SEED, to replay) and
 * print the seed in every failure message. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schemes/scheme.h"
#include "search/search.h"
#include "test_common.h"
#include "verify/verify.h"

static bool verifies(const scheme *s)
{
    verify_result vr;
    memset(&vr, 0, sizeof vr);
    return verify_f2(s, &vr);
}

static const scheme_format t2_formats[] = {{2, 2, 2}, {2, 3, 3}, {3, 2, 2}, {3, 4, 4}, {4, 5, 5}, {5, 4, 4}};
#define NT2 (sizeof t2_formats / sizeof *t2_formats)

/* Entry (r, c) of factor pos of t in format f (a: n x m, b: m x m, c: m x n). */
static int entry(scheme_format f, const scheme_term *t, int pos, int r, int c)
{
    const int cols = pos == 0 ? f.m : pos == 1 ? f.m : f.n;
    return (int)(t->f[pos] >> (r * cols + c) & 1);
}

static uint64_t rnd_factor(scheme_rng *rng, int entries)
{
    uint64_t w;
    do
        w = scheme_rng_next(rng) & (entries >= 64 ? ~0ull : (1ull << entries) - 1);
    while (!w);
    return w;
}

Test(t2, the_image_is_the_entrywise_transposition_and_an_involution)
{
    const uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (size_t fi = 0; fi < NT2; fi++) {
        const scheme_format f = t2_formats[fi];
        for (int k = 0; k < 200; k++) {
            scheme_term t = {{rnd_factor(&rng, f.n * f.m), rnd_factor(&rng, f.m * f.m), rnd_factor(&rng, f.m * f.n)}};
            scheme_term u = scheme_symmetry_image_fmt(SCHEME_SYM_T2, f, t, 1);
            for (int i = 0; i < f.n; i++)
                for (int j = 0; j < f.m; j++) {
                    cr_assert_eq(entry(f, &u, 0, i, j), entry(f, &t, 2, j, i), "seed %llu: a' = c^T",
                                 (unsigned long long)seed);
                    cr_assert_eq(entry(f, &u, 2, j, i), entry(f, &t, 0, i, j), "seed %llu: c' = a^T",
                                 (unsigned long long)seed);
                }
            for (int j = 0; j < f.m; j++)
                for (int l = 0; l < f.m; l++)
                    cr_assert_eq(entry(f, &u, 1, j, l), entry(f, &t, 1, l, j), "seed %llu: b' = b^T",
                                 (unsigned long long)seed);
            scheme_term v = scheme_symmetry_image_fmt(SCHEME_SYM_T2, f, u, 1);
            cr_assert(!memcmp(&v, &t, sizeof t), "seed %llu: not an involution", (unsigned long long)seed);
            scheme_term id = scheme_symmetry_image_fmt(SCHEME_SYM_T2, f, t, 0);
            cr_assert(!memcmp(&id, &t, sizeof t));
        }
    }
    cr_assert_eq(scheme_symmetry_order(SCHEME_SYM_T2), 2);
    scheme_symmetry g;
    cr_assert(scheme_symmetry_parse("t2", &g) && g == SCHEME_SYM_T2);
    cr_assert_str_eq(scheme_symmetry_name(SCHEME_SYM_T2), "t2");
}

Test(t2, fits_only_formats_with_m_equal_p)
{
    char err[256];
    cr_assert(scheme_symmetry_fits(SCHEME_SYM_T2, (scheme_format){4, 5, 5}, err, sizeof err));
    cr_assert(scheme_symmetry_fits(SCHEME_SYM_T2, (scheme_format){3, 3, 3}, err, sizeof err));
    cr_assert_not(scheme_symmetry_fits(SCHEME_SYM_T2, (scheme_format){4, 4, 5}, err, sizeof err));
    cr_assert(strstr(err, "<4,4,5>"), "%s", err);
    cr_assert_not(scheme_symmetry_fits(SCHEME_SYM_T2, (scheme_format){8, 8, 8}, err, sizeof err));
}

/* The standard algorithm is invariant; a published scheme that is not is named. */
Test(t2, the_check_finds_invariant_and_other_schemes)
{
    char err[512];
    int term, elem;
    for (size_t fi = 0; fi < NT2; fi++) {
        scheme *s = scheme_standard(t2_formats[fi]);
        cr_assert(scheme_symmetry_check(s, SCHEME_SYM_T2, &term, &elem, err, sizeof err), "%s", err);
        scheme_free(s);
    }
    scheme *s = tc_read_corpus("kauers-moosbauer/344-38-mod0.exp");
    cr_assert_not(scheme_symmetry_check(s, SCHEME_SYM_T2, &term, &elem, err, sizeof err));
    cr_assert(term >= 0 && strstr(err, "transposition"), "%s", err);
    scheme_free(s);
}

/* The groups of rows: every partition of the rows of a gives a valid,
 * invariant start of rank n*m*(m-1) + m * sum (1 + |S|(|S|-1)), with exactly
 * m * |groups| terms that t2 fixes. */
Test(t2, starts_verify_are_invariant_and_have_the_expected_rank)
{
    char err[512];
    int term, elem;
    for (size_t fi = 0; fi < NT2; fi++) {
        const scheme_format f = t2_formats[fi];
        /* every partition of the n rows, as a restricted growth string */
        int a[8] = {0};
        for (;;) {
            search_cubes c;
            memset(&c, 0, sizeof c);
            c.digits = f.n;
            int ng = 0;
            for (int i = 0; i < f.n; i++)
                ng = a[i] + 1 > ng ? a[i] + 1 : ng;
            c.count = ng;
            for (int i = 0; i < f.n; i++)
                c.mask[a[i]] |= (uint8_t)(1u << i);
            scheme *s = search_symmetric_start(f, SCHEME_SYM_T2, &c, err, sizeof err);
            cr_assert(s, "%s", err);
            cr_assert(verifies(s), "<%d,%d,%d> groups %d: the start does not verify", f.n, f.m, f.p, ng);
            cr_assert(scheme_symmetry_check(s, SCHEME_SYM_T2, &term, &elem, err, sizeof err), "%s", err);
            int want = f.n * f.m * (f.m - 1);
            for (int q = 0; q < ng; q++) {
                const int sz = __builtin_popcount(c.mask[q]);
                want += f.m * (1 + sz * (sz - 1));
            }
            cr_assert_eq(s->rank, want, "<%d,%d,%d> %d groups: rank %d, expected %d", f.n, f.m, f.p, ng, s->rank, want);
            int fixed = 0;
            for (int r = 0; r < s->rank; r++) {
                scheme_term u = scheme_symmetry_image_fmt(SCHEME_SYM_T2, f, s->terms[r], 1);
                fixed += !memcmp(&u, &s->terms[r], sizeof u);
            }
            cr_assert_eq(fixed, f.m * ng, "<%d,%d,%d>: %d fixed terms, expected %d", f.n, f.m, f.p, fixed, f.m * ng);
            scheme_free(s);
            /* next restricted growth string */
            int i = f.n - 1;
            for (; i > 0; i--) {
                int mx = 0;
                for (int j = 0; j < i; j++)
                    mx = a[j] > mx ? a[j] : mx;
                if (a[i] <= mx) {
                    a[i]++;
                    for (int j = i + 1; j < f.n; j++)
                        a[j] = 0;
                    break;
                }
            }
            if (i == 0)
                break;
        }
    }
    /* groups that do not partition the rows are refused */
    search_cubes bad;
    cr_assert(search_cubes_parse("1100,0110", &bad));
    cr_assert_null(search_symmetric_start((scheme_format){4, 5, 5}, SCHEME_SYM_T2, &bad, err, sizeof err));
    cr_assert(search_cubes_parse("11,01", &bad));
    cr_assert_null(search_symmetric_start((scheme_format){4, 5, 5}, SCHEME_SYM_T2, &bad, err, sizeof err));
    cr_assert(strstr(err, "4 digits"), "%s", err);
}

/* Whether after = before with one flip (search_flip) of two of its terms at
 * some position, and the flip of their images: the images share the factor at
 * the mirrored position (A <-> C, B stays), their roles swapped or not. */
static int find_term(const scheme *s, scheme_term t)
{
    for (int r = 0; r < s->rank; r++)
        if (!memcmp(&s->terms[r], &t, sizeof t))
            return r;
    return -1;
}

static bool is_t2_flip_of(const scheme *before, const scheme *after)
{
    const scheme_format f = before->fmt;
    for (int i = 0; i < before->rank; i++)
        for (int j = 0; j < before->rank; j++)
            for (int x = 0; x < 3; x++) {
                if (i == j || before->terms[i].f[x] != before->terms[j].f[x])
                    continue;
                for (int swap = 0; swap < 2; swap++) {
                    scheme *c = scheme_clone(before);
                    scheme_term ti = scheme_symmetry_image_fmt(SCHEME_SYM_T2, f, before->terms[i], 1);
                    scheme_term tj = scheme_symmetry_image_fmt(SCHEME_SYM_T2, f, before->terms[j], 1);
                    bool ok = search_flip(c->terms, &c->rank, i, j, x);
                    int a = find_term(c, ti), b = find_term(c, tj);
                    ok = ok && a >= 0 && b >= 0 && a != b &&
                         search_flip(c->terms, &c->rank, swap ? b : a, swap ? a : b, 2 - x);
                    bool same = ok && scheme_equal(c, after);
                    scheme_free(c);
                    if (same)
                        return true;
                }
            }
    return false;
}

/* The walk's seed is base + offset; messages name base, which FLIPGRAPH_SEED
 * replays (the test adds the same offsets). */
static void t2_walk_and_check(scheme_format f, uint64_t base, uint64_t offset, int steps, int gen_max,
                              const char *groups)
{
    const uint64_t seed = base + offset;
    search_params p;
    search_params_default(&p);
    p.fmt = f;
    p.symmetry = SCHEME_SYM_T2;
    p.gen_max = gen_max;
    char err[256];
    search_cubes c = {0};
    if (groups)
        cr_assert(search_cubes_parse(groups, &c));
    scheme *start = search_symmetric_start(f, SCHEME_SYM_T2, &c, err, sizeof err);
    cr_assert(start, "%s", err);
    search_walker *w = search_walker_new(start, &p, seed, start->rank + 64);
    cr_assert(w, "FLIPGRAPH_SEED=%llu", (unsigned long long)base);
    cr_assert(search_walker_check(w, err, sizeof err), "FLIPGRAPH_SEED=%llu: %s", (unsigned long long)base, err);
    int compared = 0, term, elem, lowest = start->rank;
    for (int step = 0; step < steps; step++) {
        scheme *before = search_walker_snapshot(w);
        search_walker_stats st0, st1;
        search_walker_stats_get(w, &st0);
        bool plus = step % 53 == 52 && search_walker_rank(w) < start->rank + 20;
        bool moved = plus ? search_walker_plus(w) : search_walker_flip(w);
        search_walker_stats_get(w, &st1);
        scheme *after = search_walker_snapshot(w);
        cr_assert(search_walker_check(w, err, sizeof err), "FLIPGRAPH_SEED=%llu <%d,%d,%d> step %d: %s",
                  (unsigned long long)base, f.n, f.m, f.p, step, err);
        cr_assert(verifies(after), "FLIPGRAPH_SEED=%llu <%d,%d,%d> step %d: the walker's scheme does not verify",
                  (unsigned long long)base, f.n, f.m, f.p, step);
        cr_assert(scheme_symmetry_check(after, SCHEME_SYM_T2, &term, &elem, err, sizeof err),
                  "FLIPGRAPH_SEED=%llu step %d: %s", (unsigned long long)base, step, err);
        if (moved && !plus && st1.reductions == st0.reductions && compared < 30 && before->rank <= 72) {
            cr_assert(is_t2_flip_of(before, after),
                      "FLIPGRAPH_SEED=%llu <%d,%d,%d> step %d: the move is not the flip of two images and its image",
                      (unsigned long long)base, f.n, f.m, f.p, step);
            compared++;
        }
        if (search_walker_rank(w) < lowest)
            lowest = search_walker_rank(w);
        scheme_free(before);
        scheme_free(after);
        if (!moved)
            break;
    }
    if (f.m * f.m * f.n <= 60)
        cr_assert(compared > 0, "FLIPGRAPH_SEED=%llu: no flip was compared with the reference", (unsigned long long)base);
    search_walker_free(w);
    scheme_free(start);
}

Test(t2_walker, every_move_is_a_flip_and_its_image, .timeout = 240)
{
    const uint64_t seed = tc_seed();
    const int steps = tc_sanitized() ? 120 : 500;
    for (size_t fi = 0; fi < NT2; fi++) {
        t2_walk_and_check(t2_formats[fi], seed, fi, steps, 1, NULL);
        t2_walk_and_check(t2_formats[fi], seed, fi + 100, steps, 5, NULL);
    }
    /* <3,4,4> with one group starts at rank 64: the first flips are compared
     * (the bound on compared ranks is above it) */
    t2_walk_and_check((scheme_format){3, 4, 4}, seed, 7, steps, 1, "111");
    t2_walk_and_check((scheme_format){4, 5, 5}, seed, 8, steps, 1, "1000,0100,0011");
}

/* Long walks with plus transitions stay valid and invariant, and go below
 * their start (the moves do something). */
Test(t2_walker, long_walks_stay_valid_and_descend, .timeout = 240)
{
    const uint64_t seed = tc_seed();
    char err[256];
    int term, elem;
    for (size_t fi = 0; fi < NT2; fi++)
        for (int lazy = 0; lazy < 2; lazy++) {
            search_params p;
            search_params_default(&p);
            p.fmt = t2_formats[fi];
            p.symmetry = SCHEME_SYM_T2;
            p.gen_max = lazy ? 1 : 5;
            p.plateau = p.plateau_min = p.plateau_max = 300;
            p.plus_max = 9;
            search_cubes c = {0};
            scheme *start = search_symmetric_start(p.fmt, SCHEME_SYM_T2, &c, err, sizeof err);
            search_walker *w = search_walker_new(start, &p, seed ^ (uint64_t)fi, 0);
            cr_assert(w);
            int base = search_walker_rank(w);
            search_walker_walk(w, tc_sanitized() ? 20000 : 200000, base, 0);
            cr_assert(search_walker_check(w, err, sizeof err), "seed %llu: %s", (unsigned long long)seed, err);
            scheme *s = search_walker_snapshot(w);
            cr_assert(verifies(s), "seed %llu", (unsigned long long)seed);
            cr_assert(scheme_symmetry_check(s, SCHEME_SYM_T2, &term, &elem, err, sizeof err), "%s", err);
            scheme_free(s);
            search_walker_free(w);
            scheme_free(start);
        }
}

/* ------------------------------------------------------------ the commands */

static void make_dir(void) { tc_suite_dir_make("fg-test-t2"); }
TestSuite(t2_cli, .init = make_dir, .fini = tc_suite_dir_remove);

Test(t2_cli, verify_search_and_refusals, .timeout = 240)
{
    char out[16384], err[256];
    search_cubes c = {0};
    cr_assert(search_cubes_parse("110,001", &c));
    scheme *s = search_symmetric_start((scheme_format){3, 4, 4}, SCHEME_SYM_T2, &c, err, sizeof err);
    cr_assert(s, "%s", err);
    const char *good = tc_path_in("t2start.txt");
    FILE *f = fopen(good, "w");
    cr_assert(f && scheme_write_native(s, f));
    fclose(f);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "verify --symmetry t2 '%s'", good), 0, "%s", out);
    cr_assert(strstr(out, "valid, invariant under t2"), "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "verify --symmetry t2 '%s'",
                            tc_corpus("kauers-moosbauer/344-38-mod0.exp")), 1, "%s", out);
    cr_assert(strstr(out, "NOT INVARIANT under t2") && strstr(out, "transposition"), "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "verify --symmetry t2 '%s'",
                            tc_corpus("kauers-moosbauer/445-60-mod2.exp")), 1, "%s", out);
    cr_assert(strstr(out, "<n,m,m>"), "%s", out);
    /* a short t2 search on the CPU: every stored scheme verifies and is invariant */
    const char *db = tc_path_in("t2.db"), *dir = tc_path_in("t2out");
    cr_assert_eq(tc_run_cli("", out, sizeof out,
                            "search --dims 3x4x4 --symmetry t2 --cubes 111 --time 2s --threads 1 --seed 5 "
                            "--progress 0 --db '%s' --out '%s'", db, dir), 0, "%s", out);
    cr_assert(strstr(out, "symmetry=t2"), "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "db list --db '%s' --dims 3x4x4", db), 0, "%s", out);
    cr_assert(strstr(out, "search:t2"), "the stored schemes' source names t2: %s", out);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "for x in '%s'/*; do \"$FLIPGRAPH_BIN\" verify --symmetry t2 \"$x\" || exit 1; done", dir);
    cr_assert_eq(tc_system(cmd), 0, "a stored t2 scheme is not valid and invariant");
    /* refusals: formats without m = p, the GPU, the meta search, the sweep, groups of the wrong length */
    cr_assert_eq(tc_run_cli("", out, sizeof out, "search --dims 4x4x5 --symmetry t2 --time 1s"), 2, "%s", out);
    cr_assert(strstr(out, "<n,m,m>"), "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "search --dims 3x4x4 --symmetry t2 --cubes 11 --time 1s"), 2, "%s",
                 out);
    cr_assert_eq(tc_run_cli("", out, sizeof out,
                            "search --meta --dims-range 2x2x2..3x3x3 --symmetry t2 --time 1s"), 2, "%s", out);
    cr_assert(strstr(out, "t2 walks one format"), "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "sweep --dims-list 2x2x2..2x2x3 --symmetry t2 --time-per 1s"), 2,
                 "%s", out);
    cr_assert(strstr(out, "t2 walks one format"), "%s", out);
    scheme_free(s);
}
