/* Tests of symmetric schemes and walks: the group action (schemes/symmetry.c),
 * the symmetric start, the invariance check, and the symmetric walker
 * (search/walker_sym.c) against its definition: every symmetric flip is |G|
 * plain flips (search_flip) on the images of two terms, every scheme it
 * holds verifies and is invariant, and its index agrees with a recount.
 *
 * Randomized tests seed from /dev/urandom (or FLIPGRAPH_SEED, to replay) and
 * print the seed in every failure message. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "schemes/scheme.h"
#include "search/search.h"
#include "verify/verify.h"
#include "test_common.h"
#include "test_walk.h"
#include "sym_reference.h"
#include "test_tally.h"

static bool sanitized(void)
{
    const char *e = getenv("FLIPGRAPH_SANITIZED");
    return e && *e && strcmp(e, "0") != 0;
}

static bool verifies(const scheme *s)
{
    verify_result vr;
    memset(&vr, 0, sizeof vr);
    return verify_f2(s, &vr);
}

static const scheme_symmetry groups[] = {SCHEME_SYM_C3, SCHEME_SYM_C3XC2};

/* ---------------------------------------------------------------- the group */

Test(symmetry, the_group_has_its_order_and_keeps_the_tensor)
{
    scheme_rng rng;
    uint64_t seed = tc_seed();
    scheme_rng_seed(&rng, seed);
    for (int n = 2; n <= 8; n++) {
        const uint64_t mask = n * n == 64 ? ~0ull : (1ull << (n * n)) - 1;
        for (int it = 0; it < 200; it++) {
            scheme_term t = {{scheme_rng_next(&rng) & mask, scheme_rng_next(&rng) & mask,
                              scheme_rng_next(&rng) & mask}};
            /* shift^3 = 1, reversal^2 = 1, and they commute */
            scheme_term s3 = t;
            for (int k = 0; k < 3; k++)
                s3 = scheme_symmetry_image(SCHEME_SYM_C3XC2, n, s3, 1);
            cr_assert(!memcmp(&s3, &t, sizeof t), "seed %llu n %d", (unsigned long long)seed, n);
            scheme_term r2 = scheme_symmetry_image(SCHEME_SYM_C3XC2, n,
                                                   scheme_symmetry_image(SCHEME_SYM_C3XC2, n, t, 3), 3);
            cr_assert(!memcmp(&r2, &t, sizeof t), "seed %llu n %d", (unsigned long long)seed, n);
            scheme_term a = scheme_symmetry_image(SCHEME_SYM_C3XC2, n,
                                                  scheme_symmetry_image(SCHEME_SYM_C3XC2, n, t, 1), 3);
            scheme_term b = scheme_symmetry_image(SCHEME_SYM_C3XC2, n,
                                                  scheme_symmetry_image(SCHEME_SYM_C3XC2, n, t, 3), 1);
            scheme_term c = scheme_symmetry_image(SCHEME_SYM_C3XC2, n, t, 4);
            cr_assert(!memcmp(&a, &b, sizeof a) && !memcmp(&a, &c, sizeof a), "seed %llu n %d",
                      (unsigned long long)seed, n);
        }
        /* every element maps the standard algorithm onto a scheme (itself, as a set) */
        scheme *std = scheme_standard((scheme_format){n, n, n});
        for (int k = 0; k < 6; k++) {
            scheme *img = scheme_new(std->fmt, SCHEME_RING_F2, std->rank);
            for (int r = 0; r < std->rank; r++) {
                scheme_term u = scheme_symmetry_image(SCHEME_SYM_C3XC2, n, std->terms[r], k);
                scheme_push(img, u.f[0], u.f[1], u.f[2]);
            }
            cr_assert(scheme_equal(img, std), "n %d element %d", n, k);
            scheme_free(img);
        }
        int term, elem;
        char err[256];
        cr_assert(scheme_symmetry_check(std, SCHEME_SYM_C3XC2, &term, &elem, err, sizeof err), "%s", err);
        scheme_free(std);
    }
}

/* ------------------------------------------------ the involutions (c3xc2sK) */

/* The group whose involution swaps the first k pairs (i, n-1-i) of <n,n,n>:
 * c3xc2 for k = n/2, c3xc2sK below; SCHEME_SYM_NONE where no name has it. */
static scheme_symmetry group_of_swaps(int n, int k)
{
    if (k == n / 2)
        return SCHEME_SYM_C3XC2;
    return k <= 3 ? (scheme_symmetry)(SCHEME_SYM_C3XC2S1 + k - 1) : SCHEME_SYM_NONE;
}

/* Bit r*n+c of x to pi(r)*n+pi(c), one bit at a time: the reference of
 * schemes/involution.h's delta swaps. */
static uint64_t conjugate_by_swaps(uint64_t x, int n, int k)
{
    int pi[8];
    for (int i = 0; i < n; i++)
        pi[i] = i;
    for (int i = 0; i < k; i++) {
        pi[i] = n - 1 - i;
        pi[n - 1 - i] = i;
    }
    uint64_t y = 0;
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            y |= (x >> (r * n + c) & 1) << (pi[r] * n + pi[c]);
    return y;
}

/* Every involution that swaps k pairs (i, n-1-i), k = 1..n/2, is conjugation
 * by that permutation (against a loop over the bits), with the shift a group
 * of six (shift^3 = 1, g^2 = 1, they commute) that keeps the standard
 * algorithm; its image of an integer term reduces mod 2 to the GF(2) image. */
Test(symmetry, every_involution_is_a_swap_of_indices_and_keeps_the_tensor)
{
    scheme_rng rng;
    const uint64_t seed = tc_seed();
    scheme_rng_seed(&rng, seed);
    int groups_seen = 0;
    for (int n = 2; n <= 8; n++)
        for (int k = 1; 2 * k <= n; k++) {
            const scheme_symmetry g = group_of_swaps(n, k);
            if (g == SCHEME_SYM_NONE)
                continue;
            groups_seen++;
            const scheme_format f = {n, n, n};
            char err[256];
            cr_assert(scheme_symmetry_fits(g, f, err, sizeof err), "%s on n %d: %s", scheme_symmetry_name(g), n, err);
            cr_assert_eq(scheme_symmetry_swaps(g, n), k);
            cr_assert_eq(scheme_symmetry_order(g), 6);
            const uint64_t mask = n * n == 64 ? ~0ull : (1ull << (n * n)) - 1;
            for (int it = 0; it < 200; it++) {
                const scheme_term t = {{scheme_rng_next(&rng) & mask, scheme_rng_next(&rng) & mask,
                                        scheme_rng_next(&rng) & mask}};
                const scheme_term u = scheme_symmetry_image(g, n, t, 3);
                for (int x = 0; x < 3; x++)
                    cr_assert_eq(u.f[x], conjugate_by_swaps(t.f[x], n, k), "seed %llu %s n %d",
                                 (unsigned long long)seed, scheme_symmetry_name(g), n);
                const scheme_term u2 = scheme_symmetry_image(g, n, u, 3);
                const scheme_term a = scheme_symmetry_image(g, n, scheme_symmetry_image(g, n, t, 1), 3);
                const scheme_term b = scheme_symmetry_image(g, n, u, 1);
                const scheme_term c = scheme_symmetry_image(g, n, t, 4);
                cr_assert(!memcmp(&u2, &t, sizeof t) && !memcmp(&a, &b, sizeof a) && !memcmp(&a, &c, sizeof a),
                          "seed %llu %s n %d", (unsigned long long)seed, scheme_symmetry_name(g), n);
                /* an integer term with the same support: its image, mod 2 */
                scheme_zterm z, zi;
                memset(&z, 0, sizeof z);
                for (int x = 0; x < 3; x++)
                    for (int e = 0; e < n * n; e++)
                        if (t.f[x] >> e & 1)
                            z.z[x][e] = (int8_t)(scheme_rng_below(&rng, 2) ? 1 : -3);
                scheme_symmetry_image_z(g, n, &z, 4, &zi);
                const scheme_term c4 = scheme_symmetry_image(g, n, t, 4);
                for (int x = 0; x < 3; x++)
                    for (int e = 0; e < n * n; e++)
                        cr_assert_eq((uint64_t)(zi.z[x][e] & 1), c4.f[x] >> e & 1, "seed %llu %s n %d",
                                     (unsigned long long)seed, scheme_symmetry_name(g), n);
            }
            scheme *std = scheme_standard(f);
            int term, elem;
            cr_assert(scheme_symmetry_check(std, g, &term, &elem, err, sizeof err), "%s n %d: %s",
                      scheme_symmetry_name(g), n, err);
            scheme_free(std);
        }
    cr_assert_eq(groups_seen, 16); /* n = 2..8: the reversal of each, and 9 with fewer swaps */
    /* the names that do not fit: all pairs (that is c3xc2), more than there are, not square */
    static const struct {
        scheme_symmetry g;
        int n, m, p;
        const char *why;
    } bad[] = {
        {SCHEME_SYM_C3XC2S1, 3, 3, 3, "that is c3xc2"},  {SCHEME_SYM_C3XC2S2, 4, 4, 4, "that is c3xc2"},
        {SCHEME_SYM_C3XC2S3, 6, 6, 6, "that is c3xc2"},  {SCHEME_SYM_C3XC2S3, 5, 5, 5, "needs n >= 8"},
        {SCHEME_SYM_C3XC2S2, 2, 2, 2, "needs n >= 6"},   {SCHEME_SYM_C3XC2S1, 4, 4, 5, "square"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[256] = "";
        cr_assert_not(scheme_symmetry_fits(bad[i].g, (scheme_format){bad[i].n, bad[i].m, bad[i].p}, err, sizeof err));
        cr_assert(strstr(err, bad[i].why) && strstr(err, scheme_symmetry_name(bad[i].g)), "%s", err);
    }
    scheme_symmetry g;
    cr_assert(scheme_symmetry_parse("c3xc2s2", &g) && g == SCHEME_SYM_C3XC2S2);
    cr_assert_not(scheme_symmetry_parse("c3xc2s4", &g));
    cr_assert_str_eq(scheme_symmetry_name(SCHEME_SYM_C3XC2S1), "c3xc2s1");
}

/* The start under c3xc2sK: invariant, valid, and its fixed terms are the
 * cubes and the terms among the m = n - 2K indices the involution fixes: the
 * standard ones (m^3 - m off the diagonal) and those a cube within them adds
 * (|S|^3 - |S|), which the walk keeps as they are.  The default cubes are n's
 * where the involution maps them to cubes (<6,6,6>'s under c3xc2s2), else the
 * mirror pairs. */
Test(symmetry, starts_under_fewer_swaps_are_invariant_with_their_fixed_block)
{
    static const struct {
        int n;
        scheme_symmetry g;
        const char *cubes; /* the default */
    } cases[] = {
        {4, SCHEME_SYM_C3XC2S1, "1001,0110"},        {5, SCHEME_SYM_C3XC2S1, "10001,01010,00100"},
        {6, SCHEME_SYM_C3XC2S1, "100001,010010,001100"}, {6, SCHEME_SYM_C3XC2S2, "110000,001100,000011"},
        {7, SCHEME_SYM_C3XC2S2, "1100000,0011100,0000011"},
        {8, SCHEME_SYM_C3XC2S3, "10000001,01000010,00100100,00011000"},
        {6, SCHEME_SYM_C3XC2, "110000,001100,000011"}, /* the reversal fixes no index: no block */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int n = cases[i].n, k = scheme_symmetry_swaps(cases[i].g, n), m = n - 2 * k;
        const char *name = scheme_symmetry_name(cases[i].g);
        search_cubes c = {0}, d;
        char err[256], text[96];
        search_cubes_default_for(cases[i].g, n, &d);
        search_cubes_text(&d, text, sizeof text);
        cr_assert_str_eq(text, cases[i].cubes, "%s n %d", name, n);
        scheme *s = search_symmetric_start((scheme_format){n, n, n}, cases[i].g, &c, err, sizeof err);
        cr_assert(s, "%s n %d: %s", name, n, err);
        int term, elem;
        cr_assert(verifies(s), "%s n %d", name, n);
        cr_assert(scheme_symmetry_check(s, cases[i].g, &term, &elem, err, sizeof err), "%s n %d: %s", name, n, err);
        uint64_t *reps = malloc((size_t)s->rank * 3 * sizeof *reps), *fixed = malloc((size_t)s->rank * 3 * sizeof *fixed);
        int norbits, nfixed;
        cr_assert(search_symmetric_split(s, cases[i].g, reps, &norbits, fixed, &nfixed), "%s n %d", name, n);
        int frozen = 0, want = m * m * m - m;
        for (int t = 0; t < nfixed; t++)
            frozen += !(fixed[3 * t] == fixed[3 * t + 1] && fixed[3 * t + 1] == fixed[3 * t + 2]);
        for (int q = 0; q < d.count; q++) {
            const unsigned block = ((1u << n) - 1) & ~((1u << k) - 1) & ((1u << (n - k)) - 1);
            const int sz = __builtin_popcount(d.mask[q]);
            if (!(d.mask[q] & ~block))
                want += sz * sz * sz - sz;
        }
        cr_assert_eq(frozen, want, "%s n %d: %d fixed terms that are not cubes, expected %d", name, n, frozen, want);
        cr_assert_eq(s->rank, nfixed + 6 * norbits, "%s n %d", name, n);
        free(reps);
        free(fixed);
        scheme_free(s);
    }
    /* <6,6,6>'s default cubes are not closed under c3xc2s1: refused when given */
    search_cubes c;
    char err[256];
    cr_assert(search_cubes_parse("110000,001100,000011", &c));
    cr_assert_null(search_symmetric_start((scheme_format){6, 6, 6}, SCHEME_SYM_C3XC2S1, &c, err, sizeof err));
    cr_assert(strstr(err, "under c3xc2s1 the image of every cube must be a cube"), "%s", err);
}

/* Removes the term whose factors are t[0..2]; false when s has none. */
static bool remove_term(scheme *s, const uint64_t *t)
{
    for (int r = 0; r < s->rank; r++)
        if (!memcmp(s->terms[r].f, t, 3 * sizeof *t)) {
            scheme_remove(s, r);
            return true;
        }
    return false;
}

/* search_symmetric_parts_make is the split and then the halves, as the walks
 * and the banner took them one by one: the same counts and words on the starts
 * of <4,4,4> to <6,6,6> (half orbits among them), and a scheme that is not
 * invariant is refused as such, by the split or by the halves, leaving the
 * parts empty. */
Test(symmetry, the_parts_are_the_split_then_the_halves)
{
    static const scheme_symmetry gs[] = {SCHEME_SYM_C3, SCHEME_SYM_C3XC2, SCHEME_SYM_C3XC2S1};
    int halves = 0;
    for (size_t i = 0; i < sizeof gs / sizeof gs[0]; i++)
        for (int n = 4; n <= 6; n++) {
            const char *name = scheme_symmetry_name(gs[i]);
            const search_cubes c = {0};
            char err[256];
            scheme *s = search_symmetric_start((scheme_format){n, n, n}, gs[i], &c, err, sizeof err);
            cr_assert(s, "%s n %d: %s", name, n, err);
            const size_t words = (size_t)s->rank * 3;
            uint64_t *reps = malloc(words * sizeof *reps), *fixed = malloc(words * sizeof *fixed),
                     *half = malloc(words * sizeof *half);
            int norbits, nfixed;
            cr_assert(search_symmetric_split(s, gs[i], reps, &norbits, fixed, &nfixed), "%s n %d", name, n);
            const int nhalf = search_symmetric_halves(s->fmt, gs[i], fixed, &nfixed, half);
            cr_assert_geq(nhalf, 0, "%s n %d", name, n);
            search_symmetric_parts q;
            cr_assert_eq(search_symmetric_parts_make(s, gs[i], &q), SEARCH_PARTS_OK, "%s n %d", name, n);
            cr_assert(q.norbits == norbits && q.nfixed == nfixed && q.nhalf == nhalf,
                      "%s n %d: %d orbits, %d fixed, %d half orbits; the calls %d, %d, %d", name, n, q.norbits,
                      q.nfixed, q.nhalf, norbits, nfixed, nhalf);
            cr_assert(!memcmp(q.reps, reps, (size_t)norbits * 3 * sizeof *reps), "%s n %d: reps", name, n);
            cr_assert(!memcmp(q.fixed, fixed, (size_t)nfixed * 3 * sizeof *fixed), "%s n %d: fixed", name, n);
            cr_assert(!memcmp(q.half, half, (size_t)nhalf * 3 * sizeof *half), "%s n %d: half", name, n);
            cr_assert_eq(s->rank, q.nfixed + scheme_symmetry_order(gs[i]) * q.norbits + 3 * q.nhalf, "%s n %d",
                         name, n);
            halves += q.nhalf;
            search_symmetric_parts_free(&q);
            cr_assert(!q.reps && !q.fixed && !q.half && !q.norbits && !q.nfixed && !q.nhalf);
            free(reps);
            free(fixed);
            free(half);
            scheme_free(s);
        }
    cr_assert_gt(halves, 0, "no start had a half orbit");

    /* one term of a free orbit gone: the split refuses */
    const search_cubes c = {0};
    char err[256];
    scheme *s = search_symmetric_start((scheme_format){4, 4, 4}, SCHEME_SYM_C3, &c, err, sizeof err);
    cr_assert(s, "%s", err);
    search_symmetric_parts q;
    cr_assert_eq(search_symmetric_parts_make(s, SCHEME_SYM_C3, &q), SEARCH_PARTS_OK);
    cr_assert_gt(q.norbits, 0);
    cr_assert(remove_term(s, q.reps), "the first representative is not a term of the start");
    search_symmetric_parts_free(&q);
    q.norbits = 1; /* make must set every field */
    cr_assert_eq(search_symmetric_parts_make(s, SCHEME_SYM_C3, &q), SEARCH_PARTS_NOT_INVARIANT);
    cr_assert(!q.reps && !q.fixed && !q.half && !q.norbits && !q.nfixed && !q.nhalf);
    search_symmetric_parts_free(&q);
    scheme_free(s);

    /* one term of a half orbit gone: the split takes the other two as fixed,
     * the halves refuse */
    s = search_symmetric_start((scheme_format){4, 4, 4}, SCHEME_SYM_C3XC2S1, &c, err, sizeof err);
    cr_assert(s, "%s", err);
    cr_assert_eq(search_symmetric_parts_make(s, SCHEME_SYM_C3XC2S1, &q), SEARCH_PARTS_OK);
    cr_assert_gt(q.nhalf, 0);
    cr_assert(remove_term(s, q.half), "the first half orbit is not a term of the start");
    search_symmetric_parts_free(&q);
    uint64_t *reps = malloc((size_t)s->rank * 3 * sizeof *reps), *fixed = malloc((size_t)s->rank * 3 * sizeof *fixed),
             *half = malloc((size_t)s->rank * 3 * sizeof *half);
    int norbits, nfixed;
    cr_assert(search_symmetric_split(s, SCHEME_SYM_C3XC2S1, reps, &norbits, fixed, &nfixed));
    cr_assert_lt(search_symmetric_halves(s->fmt, SCHEME_SYM_C3XC2S1, fixed, &nfixed, half), 0);
    cr_assert_eq(search_symmetric_parts_make(s, SCHEME_SYM_C3XC2S1, &q), SEARCH_PARTS_NOT_INVARIANT);
    cr_assert(!q.reps && !q.fixed && !q.half && !q.norbits && !q.nfixed && !q.nhalf);
    free(reps);
    free(fixed);
    free(half);
    scheme_free(s);
}

/* A scheme that verifies maps to a scheme that verifies under every element
 * (the element is a symmetry of the tensor), checked on a walked <3,3,3>. */
Test(symmetry, images_of_a_valid_scheme_are_valid)
{
    search_params p;
    search_params_default(&p);
    p.fmt = (scheme_format){3, 3, 3};
    scheme *std = scheme_standard(p.fmt);
    scheme *s = tc_walked_from(std, &p, tc_seed(), 5000);
    cr_assert(verifies(s));
    for (int k = 1; k < 6; k++) {
        scheme *img = scheme_new(s->fmt, SCHEME_RING_F2, s->rank);
        for (int r = 0; r < s->rank; r++) {
            scheme_term u = scheme_symmetry_image(SCHEME_SYM_C3XC2, 3, s->terms[r], k);
            scheme_push(img, u.f[0], u.f[1], u.f[2]);
        }
        cr_assert(verifies(img), "element %d", k);
        scheme_free(img);
    }
    scheme_free(s);
    scheme_free(std);
}

Test(symmetry, the_check_names_a_term_whose_image_is_missing)
{
    search_cubes c = {0};
    char err[256];
    int term, elem;
    scheme *s = search_symmetric_start((scheme_format){4, 4, 4}, SCHEME_SYM_C3, &c, err, sizeof err);
    cr_assert(s, "%s", err);
    cr_assert(scheme_symmetry_check(s, SCHEME_SYM_C3, &term, &elem, err, sizeof err), "%s", err);
    /* drop one term of an orbit: its images name it */
    int victim = 5;
    scheme_term gone = s->terms[victim];
    scheme_remove(s, victim);
    cr_assert_not(scheme_symmetry_check(s, SCHEME_SYM_C3, &term, &elem, err, sizeof err));
    cr_assert(strstr(err, "image"), "%s", err);
    scheme_term img = scheme_symmetry_image(SCHEME_SYM_C3, 4, s->terms[term], elem);
    cr_assert(!memcmp(&img, &gone, sizeof img), "the named term's image is not the term removed: %s", err);
    /* non-square formats do not fit */
    scheme *r = scheme_standard((scheme_format){3, 3, 4});
    cr_assert_not(scheme_symmetry_check(r, SCHEME_SYM_C3, &term, &elem, err, sizeof err));
    cr_assert(strstr(err, "square"), "%s", err);
    scheme_free(r);
    scheme_free(s);
}

/* ------------------------------------------------------------ the start */

Test(symmetry, starts_verify_are_invariant_and_have_the_expected_rank)
{
    char err[256];
    int term, elem;
    for (int n = 2; n <= 7; n++)
        for (int gi = 0; gi < 2; gi++) {
            search_cubes c = {0};
            scheme *s = search_symmetric_start((scheme_format){n, n, n}, groups[gi], &c, err, sizeof err);
            cr_assert(s, "n %d: %s", n, err);
            cr_assert(verifies(s), "n %d", n);
            cr_assert(scheme_symmetry_check(s, groups[gi], &term, &elem, err, sizeof err), "n %d: %s", n, err);
            /* n^3 - n off the diagonal, one per cube, |S|^3 - |S| per cube */
            search_cubes d;
            search_cubes_default(n, &d);
            int want = n * n * n - n;
            for (int q = 0; q < d.count; q++) {
                int k = __builtin_popcount(d.mask[q]);
                want += 1 + k * k * k - k;
            }
            cr_assert_eq(s->rank, want, "n %d", n);
            scheme_free(s);
        }
    /* the cubes of the issue's <5,5,5> example, and cubes that do not fit */
    search_cubes c;
    cr_assert(search_cubes_parse("10001,01010,00100", &c));
    cr_assert_eq(c.count, 3);
    char text[64];
    search_cubes_text(&c, text, sizeof text);
    cr_assert_str_eq(text, "10001,01010,00100");
    scheme *s = search_symmetric_start((scheme_format){5, 5, 5}, SCHEME_SYM_C3XC2, &c, err, sizeof err);
    cr_assert(s && verifies(s));
    scheme_free(s);
    cr_assert(search_cubes_parse("11000,00111", &c));
    cr_assert(!search_symmetric_start((scheme_format){5, 5, 5}, SCHEME_SYM_C3XC2, &c, err, sizeof err));
    cr_assert(strstr(err, "mirror"), "%s", err);
    s = search_symmetric_start((scheme_format){5, 5, 5}, SCHEME_SYM_C3, &c, err, sizeof err);
    cr_assert(s && verifies(s), "%s", err);
    scheme_free(s);
    const char *bad[] = {"11000,00011", "1100,0011", "11000,01111"};
    for (int i = 0; i < 3; i++) {
        cr_assert(search_cubes_parse(bad[i], &c), "%s", bad[i]);
        cr_assert(!search_symmetric_start((scheme_format){5, 5, 5}, SCHEME_SYM_C3, &c, err, sizeof err), "%s",
                  bad[i]);
        cr_assert(strstr(err, "--cubes"), "%s", err);
    }
    const char *unparsable[] = {"", "1,", "12", "101,1010", "111111111"};
    for (int i = 0; i < 5; i++)
        cr_assert_not(search_cubes_parse(unparsable[i], &c), "%s", unparsable[i]);
}

/* ------------------------------------------------------------ the walker */

static void walk_and_check(scheme_format f, scheme_symmetry g, uint64_t seed, int steps, int gen_max)
{
    search_params p;
    search_params_default(&p);
    p.fmt = f;
    p.symmetry = g;
    p.gen_max = gen_max;
    char err[256];
    search_cubes c = {0};
    scheme *start = search_symmetric_start(f, g, &c, err, sizeof err);
    cr_assert(start, "%s", err);
    search_walker *w = search_walker_new(start, &p, seed, start->rank + 64);
    cr_assert(w, "seed %llu", (unsigned long long)seed);
    cr_assert(search_walker_check(w, err, sizeof err), "seed %llu: %s", (unsigned long long)seed, err);
    int compared = 0, term, elem;
    for (int step = 0; step < steps; step++) {
        scheme *before = search_walker_snapshot(w);
        search_walker_stats st0, st1;
        search_walker_stats_get(w, &st0);
        bool plus = step % 97 == 96 && search_walker_rank(w) < start->rank + 20;
        bool moved = plus ? search_walker_plus(w) : search_walker_flip(w);
        search_walker_stats_get(w, &st1);
        scheme *after = search_walker_snapshot(w);
        cr_assert(search_walker_check(w, err, sizeof err), "seed %llu step %d: %s", (unsigned long long)seed, step,
                  err);
        cr_assert(verifies(after), "seed %llu step %d: the walker's scheme does not verify",
                  (unsigned long long)seed, step);
        cr_assert(scheme_symmetry_check(after, g, &term, &elem, err, sizeof err), "seed %llu step %d: %s",
                  (unsigned long long)seed, step, err);
        if (moved && !plus && st1.reductions == st0.reductions && compared < 40) {
            cr_assert(sym_is_flip_of(before, after, g),
                      "seed %llu step %d: the move is not |G| flips of the images of two terms",
                      (unsigned long long)seed, step);
            compared++;
        }
        scheme_free(before);
        scheme_free(after);
        if (!moved)
            break;
    }
    cr_assert(compared > 0, "seed %llu: no flip was compared with the reference", (unsigned long long)seed);
    search_walker_free(w);
    scheme_free(start);
}

/* The reference where two orbits are equal as sets (the lazy walk keeps
 * them until a flip joins two copies; a <7,7,7> c3xc2 walk of tests/gpu_sym.c
 * met one): |G| flips on copies are recognised, between a copy and a third
 * orbit and between the two copies, and a move one flip short is not. */
static uint64_t sym_random_factor(uint64_t *st, int nn)
{
    uint64_t v;
    do
        v = scheme_splitmix64(st) & ((1ull << nn) - 1);
    while (!v);
    return v;
}

static void push_orbit(scheme *s, scheme_term t)
{
    for (int k = 0; k < 3; k++) {
        const scheme_term u = scheme_symmetry_image(SCHEME_SYM_C3, s->fmt.n, t, k);
        scheme_push(s, u.f[0], u.f[1], u.f[2]);
    }
}

Test(symmetry, the_flip_reference_takes_copies_of_repeated_orbits)
{
    const uint64_t seed = tc_seed();
    uint64_t st = seed;
    const scheme_format f = {3, 3, 3};
    for (int round = 0; round < 50; round++) {
        uint64_t u = sym_random_factor(&st, 9), w, y1, y2, z1, z2;
        do
            w = sym_random_factor(&st, 9);
        while (w == u);
        do {
            y1 = sym_random_factor(&st, 9);
            y2 = sym_random_factor(&st, 9);
            z1 = sym_random_factor(&st, 9);
            z2 = sym_random_factor(&st, 9);
        } while (y1 == y2 || z1 == z2);
        /* a copy of t's orbit (second, written from the image of t) flips with s's */
        const scheme_term t = {{u, y1, z1}}, s3 = {{u, y2, z2}};
        scheme *before = scheme_new(f, SCHEME_RING_F2, 12);
        push_orbit(before, t);
        push_orbit(before, scheme_symmetry_image(SCHEME_SYM_C3, 3, t, 1));
        push_orbit(before, s3);
        cr_assert(sym_has_repeated_term(before), "seed %llu", (unsigned long long)seed);
        scheme *after = scheme_clone(before), *short_one = scheme_clone(before);
        for (int k = 0; k < 3; k++) {
            const int x = (3 - k) % 3; /* u sits at position -k in the k-th image */
            const int a = 3 + (k + 2) % 3; /* the second orbit starts at the image 1 */
            cr_assert(after->terms[a].f[x] == after->terms[6 + k].f[x], "seed %llu k %d", (unsigned long long)seed, k);
            cr_assert(search_flip(after->terms, &after->rank, a, 6 + k, x) && after->rank == 9);
            if (k)
                cr_assert(search_flip(short_one->terms, &short_one->rank, a, 6 + k, x) && short_one->rank == 9);
        }
        cr_assert(sym_is_flip_of(before, after, SCHEME_SYM_C3), "seed %llu round %d: a copy with a third orbit",
                  (unsigned long long)seed, round);
        cr_assert(!sym_is_flip_of(before, short_one, SCHEME_SYM_C3), "seed %llu round %d: two flips of three",
                  (unsigned long long)seed, round);
        scheme_free(before);
        scheme_free(after);
        scheme_free(short_one);

        /* the two copies flip with each other: t = (u, u, w) and its image (u, w, u) share u */
        const scheme_term c = {{u, u, w}};
        before = scheme_new(f, SCHEME_RING_F2, 6);
        push_orbit(before, c);
        push_orbit(before, scheme_symmetry_image(SCHEME_SYM_C3, 3, c, 1));
        after = scheme_clone(before);
        /* pair k: the image k of the first copy (place k) and of the second (place 3 + k), sharing position -k */
        for (int k = 0; k < 3; k++)
            cr_assert(search_flip(after->terms, &after->rank, k, 3 + k, (3 - k) % 3) && after->rank == 6,
                      "seed %llu k %d", (unsigned long long)seed, k);
        cr_assert(sym_is_flip_of(before, after, SCHEME_SYM_C3), "seed %llu round %d: the two copies",
                  (unsigned long long)seed, round);
        scheme_free(before);
        scheme_free(after);
    }
}

Test(symmetry_walker, every_move_is_the_plain_moves_on_the_images, .timeout = 240)
{
    const uint64_t seed = tc_seed();
    const int steps = sanitized() ? 150 : 600;
    for (int n = 3; n <= 5; n++)
        for (int gi = 0; gi < 2; gi++) {
            walk_and_check((scheme_format){n, n, n}, groups[gi], seed + (uint64_t)(n * 2 + gi), steps, 5);
            /* the lazy walk: no reduction search, a flip that zeroes a factor reduces */
            walk_and_check((scheme_format){n, n, n}, groups[gi], seed + (uint64_t)(n * 2 + gi) + 99, steps, 1);
        }
}

/* A bucket whose members a dependent set may take shrinks to gen_max when an
 * entry of another orbit leaves it: no member's orbit changed, so without the
 * walker queueing one of them (idx_remove) the set waits for a flip that
 * touches the bucket, and search_walker_check (sym_check: no dependent set of
 * up to gen_max orbits is left in any bucket) fails.  gen_max 3 and 4 make
 * such buckets common; the walks count their dependent-set reductions, so
 * that the test cannot pass by never meeting a dependent set. */
Test(symmetry_walker, a_bucket_shrinking_to_gen_max_is_checked_again, .timeout = 240)
{
    const uint64_t seed = tc_seed();
    const int walks = sanitized() ? 8 : 40, steps = 400;
    long reductions = 0;
    char err[256];
    for (int i = 0; i < walks; i++) {
        search_params p;
        search_params_default(&p);
        p.fmt = (scheme_format){4 + i % 2, 4 + i % 2, 4 + i % 2};
        p.symmetry = groups[i / 2 % 2];
        p.gen_max = 3 + i / 4 % 2;
        search_cubes c = {0};
        scheme *start = search_symmetric_start(p.fmt, p.symmetry, &c, err, sizeof err);
        cr_assert(start, "%s", err);
        search_walker *w = search_walker_new(start, &p, seed + (uint64_t)i, start->rank + 64);
        cr_assert(w);
        search_walker_stats st;
        for (int step = 0; step < steps; step++) {
            bool plus = step % 41 == 40 && search_walker_rank(w) < start->rank + 20;
            bool moved = plus ? search_walker_plus(w) : search_walker_flip(w);
            cr_assert(search_walker_check(w, err, sizeof err), "seed %llu walk %d (<%d,%d,%d>, gen-max %d) step %d: %s",
                      (unsigned long long)(seed + (uint64_t)i), i, p.fmt.n, p.fmt.n, p.fmt.n, p.gen_max, step, err);
            if (!moved)
                break;
        }
        search_walker_stats_get(w, &st);
        reductions += (long)st.gen_reductions;
        search_walker_free(w);
        scheme_free(start);
    }
    /* the walks met dependent sets at all (else they said nothing of them) */
    cr_assert(reductions > 0, "seed %llu: no dependent-set reduction in %d walks", (unsigned long long)seed, walks);
}

/* The same under involutions with fixed indices (schemes/involution.h's delta
 * swaps, not the reversal's bit reversal), the full and the lazy walk. */
Test(symmetry_walker, fewer_swaps_moves_are_the_plain_moves_on_the_images, .timeout = 240)
{
    const uint64_t seed = tc_seed();
    const int steps = sanitized() ? 150 : 600;
    walk_and_check((scheme_format){4, 4, 4}, SCHEME_SYM_C3XC2S1, seed + 1, steps, 5);
    walk_and_check((scheme_format){5, 5, 5}, SCHEME_SYM_C3XC2S1, seed + 2, steps, 1);
    walk_and_check((scheme_format){6, 6, 6}, SCHEME_SYM_C3XC2S2, seed + 3, steps / 3, 1);
    /* the half orbits move: after 3000 flips most of the start's terms that
     * the involution fixes (those among the indices 1..3 of <5,5,5> under
     * c3xc2s1: 24 standard ones and 6 that the cube 01010 adds) are gone */
    search_params p;
    search_params_default(&p);
    p.fmt = (scheme_format){5, 5, 5};
    p.symmetry = SCHEME_SYM_C3XC2S1;
    p.gen_max = 1;
    char err[256];
    search_cubes c = {0};
    scheme *start = search_symmetric_start(p.fmt, p.symmetry, &c, err, sizeof err);
    cr_assert(start, "%s", err);
    search_walker *w = search_walker_new(start, &p, seed + 4, start->rank + 64);
    cr_assert(w);
    for (int i = 0; i < 3000; i++)
        if (!search_walker_flip(w))
            search_walker_plus(w);
    scheme *end = search_walker_snapshot(w);
    cr_assert(verifies(end) && scheme_symmetry_check(end, p.symmetry, &(int){0}, &(int){0}, err, sizeof err), "%s",
              err);
    int fixed_at_start = 0, kept = 0;
    for (int r = 0; r < start->rank; r++) {
        const scheme_term t = start->terms[r], u = scheme_symmetry_image(p.symmetry, 5, t, 3);
        if (memcmp(&t, &u, sizeof t) || (t.f[0] == t.f[1] && t.f[1] == t.f[2]))
            continue;
        fixed_at_start++;
        kept += sym_find_term(end, t) >= 0;
    }
    cr_assert_eq(fixed_at_start, 30);
    cr_assert_lt(kept, fixed_at_start / 2, "seed %llu: %d of the %d terms the involution fixes are where they were",
                 (unsigned long long)seed, kept, fixed_at_start);
    scheme_free(end);
    search_walker_free(w);
    scheme_free(start);
}

/* Long walks with plus transitions stay valid and invariant (checked at the end). */
Test(symmetry_walker, long_walks_stay_valid, .timeout = 240)
{
    const uint64_t seed = tc_seed();
    char err[256];
    int term, elem;
    for (int n = 4; n <= 6; n++)
        for (int gi = 0; gi < 4; gi++) {
            search_params p;
            search_params_default(&p);
            p.fmt = (scheme_format){n, n, n};
            p.symmetry = groups[gi % 2];
            p.gen_max = gi < 2 ? 5 : 1; /* eager reductions, then the lazy walk */
            p.plateau = p.plateau_min = p.plateau_max = 300;
            p.plus_max = 9;
            search_cubes c = {0};
            scheme *start = search_symmetric_start(p.fmt, groups[gi % 2], &c, err, sizeof err);
            search_walker *w = search_walker_new(start, &p, seed ^ (uint64_t)n, 0);
            cr_assert(w);
            int base = search_walker_rank(w);
            search_walker_walk(w, sanitized() ? 20000 : 200000, base, 0);
            search_walker_stats st;
            search_walker_stats_get(w, &st);
            cr_assert(st.plus > 0, "seed %llu n %d: no plus transition", (unsigned long long)seed, n);
            cr_assert(st.reductions > 0, "seed %llu n %d gen-max %d: no reduction", (unsigned long long)seed, n,
                      p.gen_max);
            cr_assert(search_walker_check(w, err, sizeof err), "seed %llu n %d: %s", (unsigned long long)seed, n,
                      err);
            scheme *s = search_walker_snapshot(w);
            cr_assert(verifies(s), "seed %llu n %d", (unsigned long long)seed, n);
            cr_assert(scheme_symmetry_check(s, groups[gi % 2], &term, &elem, err, sizeof err), "%s", err);
            scheme_free(s);
            search_walker_free(w);
            scheme_free(start);
        }
}

/* Under C3 x C2 the rank is the fixed terms (the cubes) plus six per free
 * orbit, and the cubes change only two at a time (a new cube x*x*x comes with
 * its reversal's), so a walk keeps the parity of its rank (docs/search.md,
 * "Symmetric walks"): checked along walks from starts of odd and even cube
 * counts.  (No walk here made a new cube: in 8e7 flips of such walks the
 * cubes stayed the start's.) */
static int count_cubes(const scheme *s)
{
    int c = 0;
    for (int r = 0; r < s->rank; r++)
        c += s->terms[r].f[0] == s->terms[r].f[1] && s->terms[r].f[1] == s->terms[r].f[2];
    return c;
}

/* The weight bias on a symmetric walk (docs/search.md, "The weight bias"),
 * against the walk without it: two walkers from the same scheme with the same
 * seed draw the same flip (the acceptance draw comes after it), so the biased
 * one must end at the unbiased one's outcome O or, undone, where it began, S
 * (the walkers' start, which takes any reduction the scheme left);
 * undone only where O has S's rank and more coefficients, d = (W(O) - W(S)) /
 * |G| > 0 on the two representatives; and the undone flips must number the sum
 * of 1 - exp(-B d) over those flips within 5 standard deviations. */
static void weight_bias_against_the_unbiased_walk(scheme_format f, scheme_symmetry g, uint64_t seed, int steps,
                                                  double bias)
{
    search_params p0, p1;
    search_params_default(&p0);
    p0.fmt = f;
    p0.symmetry = g;
    p0.gen_max = 1;
    p1 = p0;
    p1.weight_bias = bias;
    char err[256];
    search_cubes c = {0};
    scheme *cur = search_symmetric_start(f, g, &c, err, sizeof err);
    cr_assert(cur, "%s", err);
    const int order = g == SCHEME_SYM_C3XC2 ? 6 : 3, cap = cur->rank + 64;
    tc_tally tl = {0};
    long kept_heavier = 0;
    for (int step = 0; step < steps; step++) {
        const uint64_t k = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(step + 1));
        search_walker *w0 = search_walker_new(cur, &p0, k, cap), *w1 = search_walker_new(cur, &p1, k, cap);
        cr_assert(w0 && w1);
        /* the walkers' common start: cur with the reductions a new walker
         * takes (the lazy walk leaves pair reductions that a start takes) */
        scheme *S = search_walker_snapshot(w1);
        cr_assert(S);
        const bool m0 = search_walker_flip(w0), m1 = search_walker_flip(w1);
        cr_assert_eq(m0, m1, "seed %llu step %d: one walker flipped, the other not", (unsigned long long)seed, step);
        scheme *o = search_walker_snapshot(w0), *a = search_walker_snapshot(w1);
        search_walker_stats st;
        search_walker_stats_get(w1, &st);
        const long dw = search_scheme_nonzeros(o) - search_scheme_nonzeros(S);
        if (m0 && o->rank == S->rank) {
            cr_assert_eq(dw % order, 0, "seed %llu step %d: the weight changed by %ld, not a multiple of |G| %d",
                         (unsigned long long)seed, step, dw, order);
            if (dw > 0) {
                const double q = 1 - exp(-bias * (double)(dw / order));
                tc_tally_chance(&tl, q);
            }
        }
        if (st.undone) {
            cr_assert(scheme_equal(a, S), "seed %llu step %d: an undone flip left another scheme",
                      (unsigned long long)seed, step);
            cr_assert(o->rank == S->rank && dw > 0, "seed %llu step %d: a flip to rank %d adding %ld undone",
                      (unsigned long long)seed, step, o->rank, dw);
            tl.undone++;
        } else {
            cr_assert(scheme_equal(a, o), "seed %llu step %d: the biased walker made another flip",
                      (unsigned long long)seed, step);
            kept_heavier += o->rank == S->rank && dw > 0;
            /* the walk goes on from the outcome, with a plus transition now and then */
            if (step % 29 == 28 && a->rank < cur->rank + 12)
                search_walker_plus(w1);
            scheme_free(cur);
            cur = search_walker_snapshot(w1);
        }
        scheme_free(o);
        scheme_free(a);
        scheme_free(S);
        search_walker_free(w0);
        search_walker_free(w1);
        if (!m0)
            break;
    }
    cr_assert_geq(tl.trials, 100, "seed %llu: %ld flips added coefficients", (unsigned long long)seed, tl.trials);
    cr_assert_gt(kept_heavier, 0, "seed %llu: no heavier flip was kept", (unsigned long long)seed);
    const double bound = tc_tally_bound(&tl);
    cr_assert(tc_tally_fits(&tl), "seed %llu %s: %ld of %ld heavier flips undone, %.1f expected (bound %.1f)",
              (unsigned long long)seed, scheme_symmetry_name(g), tl.undone, tl.trials, tl.expect, bound);
    scheme_free(cur);
}

Test(symmetry_walker, the_weight_bias_undoes_heavier_flips_with_probability_one_minus_exp, .timeout = 240)
{
    const uint64_t seed = tc_seed();
    const int steps = tc_sanitized() ? 250 : 800;
    weight_bias_against_the_unbiased_walk((scheme_format){4, 4, 4}, SCHEME_SYM_C3, seed, steps, 0.4);
    weight_bias_against_the_unbiased_walk((scheme_format){4, 4, 4}, SCHEME_SYM_C3XC2, seed + 1, steps, 0.2);
}

Test(symmetry_walker, a_c3xc2_walk_keeps_the_parity_of_its_rank, .timeout = 240)
{
    const uint64_t seed = tc_seed();
    static const char *const cubes[] = {"110000,001100,000011", "111000,000111", "11000,00100,00011", "1001,0110"};
    char err[256];
    for (int k = 0; k < 4; k++) {
        search_cubes c;
        cr_assert(search_cubes_parse(cubes[k], &c));
        const int n = c.digits;
        search_params p;
        search_params_default(&p);
        p.fmt = (scheme_format){n, n, n};
        p.symmetry = SCHEME_SYM_C3XC2;
        p.gen_max = 1;
        p.plateau = p.plateau_min = p.plateau_max = 200;
        p.plus_max = 12;
        scheme *start = search_symmetric_start(p.fmt, SCHEME_SYM_C3XC2, &c, err, sizeof err);
        cr_assert(start, "%s", err);
        search_walker *w = search_walker_new(start, &p, seed ^ (uint64_t)(k + 1), 0);
        cr_assert(w);
        const int parity = search_walker_rank(w) % 2, cubes0 = count_cubes(start);
        int moved = 0;
        for (int i = 0; i < (sanitized() ? 40 : 400); i++) {
            const int base = search_walker_rank(w);
            search_walker_walk(w, 500, base, 0);
            scheme *s = search_walker_snapshot(w);
            const int nc = count_cubes(s);
            cr_assert_eq(s->rank % 2, parity, "seed %llu cubes %s: rank %d after a start of parity %d",
                         (unsigned long long)seed, cubes[k], s->rank, parity);
            cr_assert_eq((s->rank - nc) % 6, 0, "seed %llu: rank %d with %d cubes is not cubes + 6 * orbits",
                         (unsigned long long)seed, s->rank, nc);
            cr_assert_eq((nc - cubes0) % 2, 0, "the cubes went from %d to %d", cubes0, nc);
            moved += s->rank != base;
            scheme_free(s);
        }
        cr_assert_gt(moved, 0, "cubes %s: the rank never moved", cubes[k]);
        search_walker_free(w);
        scheme_free(start);
    }
}

/* ------------------------------------------------------------ the engine */

typedef struct found_log {
    scheme_symmetry g;
    int count, bad;
} found_log;

static bool check_found(void *ctx, const search_found *f)
{
    found_log *l = ctx;
    int term, elem;
    char err[256];
    l->count++;
    if (!scheme_symmetry_check(f->s, l->g, &term, &elem, err, sizeof err) || !verifies(f->s))
        l->bad++;
    return true;
}

/* One CPU thread from p's start, every improvement checked by check_found. */
static void run_one_thread(search_params *p, uint64_t seed, found_log *l, search_result *r)
{
    p->threads = 1;
    p->seed = seed;
    p->time_limit = sanitized() ? 100 : 60;
    p->progress_every = 0;
    search_callbacks cb = {.ctx = l, .improved = check_found};
    search_run_cpu(p, NULL, 0, &cb, r);
}

static void must_reach(int n, scheme_symmetry g, int target, uint64_t seed, int gen_max)
{
    search_params p;
    search_params_default(&p);
    p.gen_max = gen_max;
    p.fmt = (scheme_format){n, n, n};
    p.symmetry = g;
    p.target_rank = target;
    found_log l = {g, 0, 0};
    search_result r;
    run_one_thread(&p, seed, &l, &r);
    cr_assert_eq(r.status, SEARCH_REACHED, "seed %llu <%d,%d,%d> %s: best %d (%s)", (unsigned long long)seed, n, n,
                 n, scheme_symmetry_name(g), r.best_rank, r.msg);
    cr_assert_eq(l.bad, 0, "seed %llu: an improvement was not invariant or did not verify",
                 (unsigned long long)seed);
    cr_assert(l.count > 0);
    int term, elem;
    char err[256];
    cr_assert(scheme_symmetry_check(r.best, g, &term, &elem, err, sizeof err), "%s", err);
    search_result_free(&r);
}

Test(symmetry_search, reaches_the_records_of_small_squares, .timeout = 240)
{
    const uint64_t seed = tc_seed();
    must_reach(2, SCHEME_SYM_C3, 7, seed, 5);
    must_reach(3, SCHEME_SYM_C3, 23, seed, 5);
    must_reach(3, SCHEME_SYM_C3, 23, seed, 1); /* the lazy walk */
    /* under c3xc2 a free orbit has 6 terms: with the default cubes of n = 3
     * (two) the ranks are 2 mod 6, and 26 is the lowest of them above 23 */
    must_reach(2, SCHEME_SYM_C3XC2, 7, seed, 5);
    must_reach(3, SCHEME_SYM_C3XC2, 26, seed, 5);
    must_reach(3, SCHEME_SYM_C3XC2, 26, seed, 1);
    /* c3xc2s1 on <4,4,4>: the involution fixes the 2x2x2 block of the
     * indices 1, 2 (12 terms with its cube's), which the walk flips as half
     * orbits: 50, as c3xc2, within a second, where with the block kept as
     * fixed terms it stopped at 62 */
    must_reach(4, SCHEME_SYM_C3XC2S1, 50, seed, 5);
    must_reach(4, SCHEME_SYM_C3XC2S1, 50, seed, 1);
}

Test(symmetry_search, bad_symmetric_runs_are_refused)
{
    search_params p;
    search_params_default(&p);
    char err[256];
    p.fmt = (scheme_format){3, 3, 4};
    p.symmetry = SCHEME_SYM_C3;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "square"), "%s", err);
    p.fmt = (scheme_format){4, 4, 4};
    p.symmetry = SCHEME_SYM_NONE;
    /* cubes without symmetry: the plain walk's start, a square format over GF(2) */
    cr_assert(search_cubes_parse("1001,0110", &p.cubes));
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.ring = SCHEME_RING_Z;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "--cubes") && strstr(err, "GF(2)"), "%s", err);
    p.ring = SCHEME_RING_F2;
    p.fmt = (scheme_format){4, 4, 5};
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "--cubes") && strstr(err, "square"), "%s", err);
    p.fmt = (scheme_format){4, 4, 4};
    cr_assert(search_cubes_parse("1100,0110", &p.cubes));
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "partition"), "%s", err);
    cr_assert(search_cubes_parse("1001,0110", &p.cubes));
    p.symmetry = SCHEME_SYM_C3;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    /* gen-max 1, no reduction search, only for a symmetric walk */
    p.gen_max = 1;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.symmetry = SCHEME_SYM_NONE;
    p.cubes.count = 0;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "gen-max 1") && strstr(err, "symmetric"), "%s", err);
    p.symmetry = SCHEME_SYM_C3;
    p.gen_max = 5;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    /* a start that is not invariant */
    scheme *s = scheme_standard(p.fmt);
    scheme_term t = s->terms[1];
    scheme_remove(s, 1);
    scheme_push(s, t.f[0], t.f[1], t.f[2]);
    /* a plain walk makes it non-invariant while it stays a scheme */
    search_params q;
    search_params_default(&q);
    q.fmt = p.fmt;
    scheme *walked = tc_walked_from(s, &q, 7, 2000);
    int term, elem;
    if (scheme_symmetry_check(walked, SCHEME_SYM_C3, &term, &elem, err, sizeof err))
        cr_skip_test("the plain walk happened to stay invariant"); /* essentially never */
    const scheme *starts[1] = {walked};
    search_result r;
    p.time_limit = 1;
    p.progress_every = 0;
    search_run_cpu(&p, starts, 1, NULL, &r);
    cr_assert_eq(r.status, SEARCH_BAD_PARAMS, "%s", r.msg);
    cr_assert(strstr(r.msg, "not invariant"), "%s", r.msg);
    search_result_free(&r);
    scheme_free(walked);
    scheme_free(s);
}

/* Cubes without symmetry: the plain walk starts from the C3 start of the
 * cubes (the standard algorithm with its diagonal written as cubes, rank 135
 * for the issue's <5,5,5> cubes, not 125) and walks down from there, every
 * improvement verified. */
Test(symmetry_search, a_plain_walk_starts_from_the_standard_algorithm_written_with_cubes, .timeout = 120)
{
    search_params p;
    search_params_default(&p);
    p.fmt = (scheme_format){5, 5, 5};
    cr_assert(search_cubes_parse("10001,01010,00100", &p.cubes));
    char err[256];
    scheme *want = search_symmetric_start(p.fmt, SCHEME_SYM_C3, &p.cubes, err, sizeof err);
    cr_assert(want, "%s", err);
    cr_assert_eq(want->rank, 135);
    p.max_flips = 200000;
    found_log l = {SCHEME_SYM_NONE, 0, 0};
    search_result r;
    run_one_thread(&p, tc_seed(), &l, &r);
    cr_assert(r.status == SEARCH_NOT_REACHED || r.status == SEARCH_REACHED, "%s", r.msg);
    cr_assert_eq(r.start_rank, want->rank, "seed %llu", (unsigned long long)p.seed);
    cr_assert(r.best && verifies(r.best) && r.best_rank < want->rank && r.best_rank == r.best->rank,
              "seed %llu: best %d", (unsigned long long)p.seed, r.best_rank);
    cr_assert(l.count > 0 && l.bad == 0, "seed %llu", (unsigned long long)p.seed);
    search_result_free(&r);
    scheme_free(want);
}

/* ------------------------------------------------------------ the commands */

static void make_dir(void) { tc_suite_dir_make("fg-test-symmetry"); }
TestSuite(symmetry_cli, .init = make_dir, .fini = tc_suite_dir_remove);

/* A valid scheme that is not invariant: a term of std (the standard
 * algorithm) split in two, a = a1 + a2 with a1 the first entry. */
static void split_a_term(scheme *std)
{
    int v = 0;
    while (std->terms[v].f[0] & 1)
        v++;
    scheme_term t = std->terms[v];
    std->terms[v].f[0] |= 1;
    scheme_push(std, 1, t.f[1], t.f[2]);
}

static void write_scheme(const scheme *s, const char *path)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "%s", path);
    cr_assert(scheme_write_native(s, f));
    fclose(f);
}

Test(symmetry_cli, verify_checks_invariance_and_names_the_term)
{
    char out[8192], err[256];
    search_cubes c = {0};
    scheme *s = search_symmetric_start((scheme_format){4, 4, 4}, SCHEME_SYM_C3, &c, err, sizeof err);
    const char *good = tc_path_in("start.txt");
    write_scheme(s, good);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "verify --symmetry c3 '%s'", good), 0, "%s", out);
    cr_assert(strstr(out, "valid, invariant under c3"), "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "verify --symmetry c3xc2 '%s'", good), 0, "%s", out);
    /* a valid scheme that is not invariant: the standard algorithm with one
     * term split in two (a = a1 + a2) */
    scheme *std = scheme_standard((scheme_format){3, 3, 3});
    split_a_term(std);
    const char *bad = tc_path_in("split.txt");
    write_scheme(std, bad);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "verify '%s'", bad), 0, "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "verify --symmetry c3 '%s'", bad), 1, "%s", out);
    cr_assert(strstr(out, "NOT INVARIANT under c3") && strstr(out, "term "), "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "verify --symmetry c4 '%s'", bad), 2, "%s", out);
    cr_assert(strstr(out, "expected c3, c3xc2, c3xc2s1..c3xc2s3 or t2"), "%s", out);
    scheme *r = scheme_standard((scheme_format){2, 3, 4});
    const char *rect = tc_path_in("rect.txt");
    write_scheme(r, rect);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "verify --symmetry c3 '%s'", rect), 1, "%s", out);
    cr_assert(strstr(out, "square"), "%s", out);
    scheme_free(r);
    scheme_free(std);
    scheme_free(s);
}

/* `search WALK --symmetry G --target-rank R` into a store and a folder of its
 * own (names the file names): it reaches R or below, the banner names G, the
 * store records G for every scheme the walk found, and every improvement
 * written is invariant, the best among them (the shell expands the file
 * names).  out: the search's output. */
static void walk_stores_invariant(const char *walk, const char *g, int R, const char *names, char *out, size_t len)
{
    char db[1024], dir[1024], want[128], name[64];
    snprintf(name, sizeof name, "%s.db", g);
    snprintf(db, sizeof db, "%s", tc_path_in(name));
    snprintf(name, sizeof name, "found-%s", g);
    snprintf(dir, sizeof dir, "%s", tc_path_in(name));
    int rc = tc_run_cli("", out, len, "search %s --symmetry %s --target-rank %d --time 100s --progress 0 --db '%s' "
                        "--out '%s'", walk, g, R, db, dir);
    cr_assert_eq(rc, 0, "%s", out);
    snprintf(want, sizeof want, "symmetry=%s ", g);
    cr_assert(strstr(out, want), "the banner names the symmetry: %s", out);
    char sql[256], verify_out[16384];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM schemes WHERE source = 'search:%s'", g);
    cr_assert_gt(tc_sql_int(db, sql), 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM schemes WHERE source <> 'search:%s'", g);
    cr_assert_eq(tc_sql_int(db, sql), 0);
    cr_assert_eq(tc_run_cli("", verify_out, sizeof verify_out, "verify --symmetry %s '%s'/%s", g, dir, names), 0, "%s",
                 verify_out);
    const char *best = strstr(out, "best rank ");
    int reached = 0;
    cr_assert(best && sscanf(best, "best rank %d", &reached) == 1 && reached <= R, "%s", out);
    snprintf(want, sizeof want, "rank %d over GF(2): valid, invariant under %s", reached, g);
    cr_assert(strstr(verify_out, want), "%s", verify_out);
}

Test(symmetry_cli, search_finds_stores_and_refuses, .timeout = 240)
{
    char out[16384];
    walk_stores_invariant("--dims 3x3x3", "c3", 23, "3x3x3-*.txt", out, sizeof out);
    const char *db = tc_path_in("s.db");
    cr_assert_eq(tc_run_cli("", out, sizeof out, "search --dims 3x3x4 --symmetry c3 --time 1s --db '%s'", db), 2,
                 "%s", out);
    cr_assert(strstr(out, "square"), "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "search --dims 4x4x5 --cubes 1001,0110 --time 1s --db '%s'", db),
                 2, "%s", out);
    cr_assert(strstr(out, "square"), "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out,
                            "search --meta --dims-range 4x4x4..4x4x5 --symmetry c3 --cubes 1001,0110 --time 1s "
                            "--db '%s'", db),
                 2, "%s", out);
    cr_assert(strstr(out, "--meta: --cubes does not apply"), "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out,
                            "search --dims 4x4x4 --symmetry c3 --cubes 1100,0110 --time 1s --db '%s'", db),
                 2, "%s", out);
    cr_assert(strstr(out, "partition"), "%s", out);
    /* the symmetric GPU walk has no rounds (one walker per warp or thread) */
    cr_assert_eq(tc_run_cli("", out, sizeof out,
                            "search --dims 4x4x4 --symmetry c3 --backend gpu --rounds 3 --time 1s --db '%s'", db),
                 2, "%s", out);
    cr_assert(strstr(out, "--rounds") && strstr(out, "symmetric GPU walk"), "%s", out);
    /* nor eager generalized reductions (the plain walk's kernel option) */
    cr_assert_eq(tc_run_cli("", out, sizeof out,
                            "search --dims 4x4x4 --symmetry c3 --backend gpu --eager-gen 1 --time 1s --db '%s'", db),
                 2, "%s", out);
    cr_assert(strstr(out, "--eager-gen: the symmetric GPU walk"), "%s", out);
}

/* c3xc2sK from the command line: the banner counts the terms the walk keeps,
 * the store and the files say the group, verify checks it (and names the
 * involution where a term's image is missing: our c3xc2 153 under c3xc2s2). */
Test(symmetry_cli, a_walk_under_fewer_swaps_is_stored_and_verified, .timeout = 240)
{
    char out[16384];
    walk_stores_invariant("--dims 4x4x4 --threads 1", "c3xc2s1", 56, "4x4x4-*.txt", out, sizeof out);
    cr_assert(strstr(out, "cubes 1001,0110"), "%s", out);
    cr_assert(strstr(out, "12 of the start's terms are fixed by the involution of c3xc2s1 and not by the shift (those "
                          "among the indices 1..2): the walk holds them as half orbits of 3 terms and flips them"),
              "%s", out);
    const char *db = tc_path_in("s1.db");
    char path[1024];
    snprintf(path, sizeof path, "%s/data/found/666-153-c3xc2-gf2.txt", getenv("FLIPGRAPH_SOURCE"));
    cr_assert_eq(tc_run_cli("", out, sizeof out, "verify --symmetry c3xc2s2 '%s'", path), 1, "%s", out);
    cr_assert(strstr(out, "NOT INVARIANT under c3xc2s2") &&
                  strstr(out, "the involution swapping i and n-1-i for i < 2 (c3xc2s2)"),
              "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "search --dims 4x4x4 --symmetry c3xc2s2 --time 1s --db '%s'", db), 2,
                 "%s", out);
    cr_assert(strstr(out, "that is c3xc2"), "%s", out);
    /* the meta search walks every square of its range under the group: refused */
    cr_assert_eq(tc_run_cli("", out, sizeof out,
                            "search --meta --dims-range 3x3x3..4x4x4 --symmetry c3xc2s1 --time 1s --db '%s'", db),
                 2, "%s", out);
    cr_assert(strstr(out, "c3xc2s1 acts only from n = 4"), "%s", out);
}

/* A c3xc2 walk keeps its start's parity (a_c3xc2_walk_keeps_the_parity_of_its_rank),
 * a c3 walk its class mod 3 while no new cube appears: the banner says so, and
 * says when --target-rank is of another class, so that a night at 152 from the
 * paper's cubes (odd; 0 mod 3) is not spent unknowingly. */
Test(symmetry_cli, the_banner_names_the_parity_or_the_class_of_a_symmetric_walk, .timeout = 120)
{
    /* the walk (its cubes), the banner's line, and where --target-rank 152 (46
     * on <4,4,4>) is met when it is of another parity or class (NULL: no such
     * words); under c3 alone a new cube changes the count by one, so no
     * parity, but the class mod 3 that the cubes set (the paper's three: 0) */
    static const struct {
        const char *walk, *line, *met;
    } cases[] = {
        {"--dims 6x6x6 --symmetry c3xc2 --target-rank 152", "every rank of this walk is odd, like its start's 231",
         "--target-rank 152 is met at 151 or below"},
        {"--dims 6x6x6 --symmetry c3xc2 --cubes 110011,001100 --target-rank 152",
         "every rank of this walk is even, like its start's 278 (orbits of 6 terms,", NULL},
        /* t2's orbits are pairs; its fixed terms are the standard algorithm's (i, j, j) */
        {"--dims 6x6x6 --symmetry t2 --target-rank 153", "every rank of this walk is even, like its start's 216 "
         "(orbits of 2 terms,", "--target-rank 153 is met at 152 or below"},
        {"--dims 6x6x6 --symmetry c3 --target-rank 152", "the ranks of this walk are 0 mod 3, like its start's 231",
         "--target-rank 152 is met at 150 or below"},
        {"--dims 6x6x6 --symmetry c3 --cubes 110011,001100 --target-rank 152",
         "the ranks of this walk are 2 mod 3, like its start's 278", NULL},
        {"--dims 4x4x4 --symmetry c3 --cubes 1111 --target-rank 46", "the ranks of this walk are 1 mod 3", NULL},
        /* c3xc2sK's half orbits of 3 terms (a vanishing one: rank - 3): the class mod 3, no parity */
        {"--dims 6x6x6 --symmetry c3xc2s2 --target-rank 152",
         "the ranks of this walk are 0 mod 3, like its start's 231, while no new cube appears (orbits of 6 and half "
         "orbits of 3 terms",
         "--target-rank 152 is met at 150 or below"},
    };
    char out[16384];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = tc_run_cli("", out, sizeof out, "search %s --time 0.2s --threads 1 --progress 0", cases[i].walk);
        cr_assert(rc == 0 || rc == 1, "%s: exit %d: %s", cases[i].walk, rc, out);
        cr_assert(strstr(out, cases[i].line), "%s: %s", cases[i].walk, out);
        cr_assert(cases[i].met ? strstr(out, cases[i].met) != NULL : !strstr(out, "is met at"), "%s: %s",
                  cases[i].walk, out);
        /* each walk names its own rule only: the parity or the class mod 3 */
        cr_assert(!strstr(cases[i].line, "every rank") == !strstr(out, "every rank of this walk") &&
                      !strstr(cases[i].line, "mod 3") == !strstr(out, "the ranks of this walk are"),
                  "%s: %s", cases[i].walk, out);
    }
}

/* The published <5,5,5> rank 93 (data/corpus/moosbauer-poole) is invariant
 * under the shift in our convention, and its fixed terms are the default
 * cubes of n = 5: the walker takes it as it is (33 orbits: 3 cubes and 30
 * orbits of 3) and walks on from it, invariant. */
Test(symmetry, the_published_93_is_c3_invariant_with_the_default_cubes)
{
    scheme *z = tc_read_corpus("moosbauer-poole/555m93.txt");
    scheme *s = scheme_to_f2(z);
    char err[256];
    int term, elem;
    cr_assert_eq(s->rank, 93);
    cr_assert(scheme_symmetry_check(s, SCHEME_SYM_C3, &term, &elem, err, sizeof err), "%s", err);
    cr_assert_not(scheme_symmetry_check(s, SCHEME_SYM_C3XC2, &term, &elem, err, sizeof err));
    int orbit[93];
    cr_assert_eq(scheme_symmetry_orbits(s, SCHEME_SYM_C3, orbit), 33);
    search_cubes d;
    search_cubes_default(5, &d);
    int cubes = 0;
    for (int r = 0; r < s->rank; r++) {
        const scheme_term *t = &s->terms[r];
        if (t->f[0] != t->f[1] || t->f[1] != t->f[2])
            continue;
        bool is_default = false;
        for (int q = 0; q < d.count; q++) {
            uint64_t D = 0;
            for (int i = 0; i < 5; i++)
                if (d.mask[q] >> i & 1)
                    D |= 1ull << (i * 5 + i);
            is_default |= t->f[0] == D;
        }
        cr_assert(is_default, "fixed term %d is not a default cube", r + 1);
        cubes++;
    }
    cr_assert_eq(cubes, d.count);
    search_params p;
    search_params_default(&p);
    p.fmt = s->fmt;
    p.symmetry = SCHEME_SYM_C3;
    search_walker *w = search_walker_new(s, &p, tc_seed(), 0);
    cr_assert(w);
    cr_assert_eq(search_walker_rank(w), 93);
    search_walker_walk(w, 20000, 93, 0);
    cr_assert(search_walker_check(w, err, sizeof err), "%s", err);
    scheme *after = search_walker_snapshot(w);
    cr_assert(verifies(after));
    cr_assert(scheme_symmetry_check(after, SCHEME_SYM_C3, &term, &elem, err, sizeof err), "%s", err);
    scheme_free(after);
    search_walker_free(w);
    scheme_free(s);
    scheme_free(z);
}

/* A symmetric walk takes its own defaults for the rows not given (long walks,
 * plus transitions after 5e4..5e5 flips); a given row wins; a plain walk keeps
 * the table's CPU defaults. */
Test(symmetry_search, symmetric_defaults_apply_to_rows_not_given)
{
    char err[256];
    search_config c;
    search_config_default(&c);
    cr_assert(search_config_set(&c, SEARCH_PARAM_DIMS, "5x5x5", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_SYMMETRY, "c3", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_PLUS_MAX, "7", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    bool has;
    cr_assert_eq(c.p.walk_len, (uint64_t)search_param_symmetric_default(SEARCH_PARAM_WALK_LEN, 5, &has));
    cr_assert(has);
    cr_assert_eq(c.p.plateau, (uint64_t)search_param_symmetric_default(SEARCH_PARAM_PLATEAU, 5, &has));
    cr_assert_eq(c.p.plus_max, 7);
    search_param_symmetric_default(SEARCH_PARAM_POOL_SIZE, 5, &has);
    cr_assert_not(has);
    search_config d;
    search_config_default(&d);
    cr_assert(search_config_resolve(&d, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    cr_assert_eq(d.p.walk_len, (uint64_t)search_param(SEARCH_PARAM_WALK_LEN)->def);
    cr_assert_neq(d.p.walk_len, c.p.walk_len);
    /* from n = 6 their <6,6,6> walk (1e9 / 6 flips, plateau 5e5 / 6), on the GPU too;
     * the lazy walk's rows on both sizes */
    search_config e;
    search_config_default(&e);
    cr_assert(search_config_set(&e, SEARCH_PARAM_DIMS, "6x6x6", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&e, SEARCH_PARAM_SYMMETRY, "c3xc2", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&e, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    cr_assert_eq(e.p.walk_len, 166666667u);
    cr_assert_eq(e.p.plateau, 83333u);
    cr_assert_eq(e.p.gen_max, 1);
    cr_assert(e.p.pool_fresh == 1.0 && e.p.isolated_plus == 1);
    cr_assert_eq(c.p.gen_max, 1);
    cr_assert(c.p.pool_fresh == 1.0 && c.p.isolated_plus == 1);
    /* the default cubes of n = 6: Moosbauer and Poole's 110000,001100,000011 */
    search_cubes six;
    search_cubes_default(6, &six);
    char text[64];
    search_cubes_text(&six, text, sizeof text);
    cr_assert_str_eq(text, "110000,001100,000011");
    /* n = 7: the same pattern, measured against the mirror pairs (bench/RESULTS.md) */
    search_cubes seven;
    search_cubes_default(7, &seven);
    search_cubes_text(&seven, text, sizeof text);
    cr_assert_str_eq(text, "1100000,0011100,0000011");
}

/* From n = 7 the symmetric walks spread the bias window 0.05..0.2 over their
 * walkers, and a lone walker (one CPU thread) walks 0.1 (search/params.c,
 * weight_bias_default, measured on <7,7,7>), on both backends; not below n = 7,
 * not under t2 (which refuses a bias); a window asked for starts at 0, a bias
 * given alone keeps one bias.  threads: "--threads" (NULL: not given). */
typedef struct {
    double bias, max;
} bias_pair;

static bias_pair sym_bias(const char *dims, const char *sym, const char *bias, const char *window, const char *threads,
                          search_backend b)
{
    char err[256];
    search_config c;
    search_config_default(&c);
    cr_assert(search_config_set(&c, SEARCH_PARAM_DIMS, dims, err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_SYMMETRY, sym, err, sizeof err), "%s", err);
    if (bias)
        cr_assert(search_config_set(&c, SEARCH_PARAM_WEIGHT_BIAS, bias, err, sizeof err), "%s", err);
    if (window)
        cr_assert(search_config_set(&c, SEARCH_PARAM_WEIGHT_BIAS_MAX, window, err, sizeof err), "%s", err);
    if (threads)
        cr_assert(search_config_set(&c, SEARCH_PARAM_THREADS, threads, err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, b, err, sizeof err), "%s", err);
    return (bias_pair){c.p.weight_bias, c.p.weight_bias_max};
}

#define assert_bias(got, b, m)                                                                                         \
    do {                                                                                                               \
        const bias_pair g_ = (got);                                                                                    \
        cr_assert(fabs(g_.bias - (b)) < 1e-12 && fabs(g_.max - (m)) < 1e-12, "%s: bias %g max %g, expected %g %g",   \
                  #got, g_.bias, g_.max, (double)(b), (double)(m));                                                    \
    } while (0)

Test(symmetry_search, symmetric_walks_from_n_7_spread_a_bias_window)
{
    const search_backend cpu = SEARCH_BACKEND_CPU, gpu = SEARCH_BACKEND_GPU;
    /* many walkers: the window; one CPU thread: 0.1 */
    assert_bias(sym_bias("7x7x7", "c3xc2", NULL, NULL, "2", cpu), 0.05, 0.2);
    assert_bias(sym_bias("8x8x8", "c3xc2", NULL, NULL, "14", cpu), 0.05, 0.2);
    assert_bias(sym_bias("7x7x7", "c3", NULL, NULL, NULL, gpu), 0.05, 0.2);
    assert_bias(sym_bias("7x7x7", "c3xc2", NULL, NULL, NULL, cpu), 0.1, 0);
    assert_bias(sym_bias("7x7x7", "c3", NULL, NULL, "1", cpu), 0.1, 0);
    /* below n = 7 and under t2: none */
    assert_bias(sym_bias("6x6x6", "c3xc2", NULL, NULL, "2", cpu), 0, 0);
    assert_bias(sym_bias("5x5x5", "c3", NULL, NULL, NULL, gpu), 0, 0);
    assert_bias(sym_bias("7x7x7", "t2", NULL, NULL, "2", cpu), 0, 0);
    /* given rows win: a window alone starts at 0, a bias alone stays one bias */
    assert_bias(sym_bias("7x7x7", "c3xc2", NULL, "0.3", "2", cpu), 0, 0.3);
    assert_bias(sym_bias("7x7x7", "c3xc2", NULL, "0.3", NULL, gpu), 0, 0.3);
    assert_bias(sym_bias("7x7x7", "c3xc2", "0.25", NULL, "2", cpu), 0.25, 0);
    assert_bias(sym_bias("7x7x7", "c3xc2", "0", NULL, NULL, gpu), 0, 0);
    assert_bias(sym_bias("7x7x7", "c3xc2", "0.02", "0.4", "2", cpu), 0.02, 0.4);
    /* the plain walk of <7,7,7> keeps the large formats' 0.2, and a window alone starts at 0 there too */
    assert_bias(sym_bias("7x7x7", "none", NULL, NULL, NULL, cpu), 0.2, 0);
    assert_bias(sym_bias("7x7x7", "none", NULL, "0.3", NULL, gpu), 0, 0.3);
}

/* CPU walkers beside a GPU (--host-threads) are the CPU's threads: the window
 * where there are two or more, 0.1 for one (search_config_beside). */
Test(symmetry_search, walkers_beside_a_gpu_count_as_the_cpu_threads_for_the_bias)
{
    char err[256];
    const char *const hosts[] = {"3", "1"};
    const double want[2][2] = {{0.05, 0.2}, {0.1, 0}};
    for (int k = 0; k < 2; k++) {
        search_config c;
        search_config_default(&c);
        cr_assert(search_config_set(&c, SEARCH_PARAM_DIMS, "7x7x7", err, sizeof err), "%s", err);
        cr_assert(search_config_set(&c, SEARCH_PARAM_SYMMETRY, "c3xc2", err, sizeof err), "%s", err);
        cr_assert(search_config_set(&c, SEARCH_PARAM_HOST_THREADS, hosts[k], err, sizeof err), "%s", err);
        cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
        assert_bias(((bias_pair){c.p.weight_bias, c.p.weight_bias_max}), 0.05, 0.2); /* the GPU's walkers */
        search_params q;
        cr_assert(search_config_beside(&c, &q, err, sizeof err), "%s", err);
        cr_assert_eq(q.threads, atoi(hosts[k]));
        assert_bias(((bias_pair){q.weight_bias, q.weight_bias_max}), want[k][0], want[k][1]);
    }
}

/* Our <6,6,6>:153 (data/found/666-153-c3xc2-gf2.txt: the GPU c3xc2 walk of
 * seed 3 on an H200, bench/RESULTS.md "<6,6,6> c3xc2 for 23 minutes"): the
 * record's rank, invariant under C3 x C2 with the n = 6 cubes among its fixed
 * terms, and it lifts to Z (the Z record is 153 too). */
Test(symmetry, our_666_153_is_c3xc2_invariant_and_lifts_to_z, .timeout = 120)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/data/found/666-153-c3xc2-gf2.txt", getenv("FLIPGRAPH_SOURCE"));
    scheme *s = tc_read_or_die(path);
    cr_assert_eq(s->rank, 153);
    cr_assert(verifies(s));
    char err[256];
    int term, elem;
    cr_assert(scheme_symmetry_check(s, SCHEME_SYM_C3XC2, &term, &elem, err, sizeof err), "%s", err);
    int orbit[153];
    const int norbits = scheme_symmetry_orbits(s, SCHEME_SYM_C3XC2, orbit);
    /* 25 free orbits of 6 terms, the mirror pair 110000, 000011 and the cube 001100 */
    cr_assert_eq(norbits, 27);
    cr_assert_eq(count_cubes(s), 3);
    verify_lift_result lr;
    scheme *z = verify_lift(s, &lr);
    cr_assert_not_null(z, "no lift");
    verify_result vr;
    cr_assert(verify_z(z, &vr), "the lift does not verify over Z: %s", vr.msg);
    cr_assert_eq(z->rank, 153);
    scheme_free(z);
    scheme_free(s);
}

/* ------------------------------------------------------------ invariant lifts */

/* An invariant GF(2) scheme: a symmetric walk of `flips` flips from the start
 * of the given cubes (NULL: the default ones). */
static scheme *walked_invariant(scheme_format f, scheme_symmetry g, const search_cubes *cubes, uint64_t seed,
                                uint64_t flips)
{
    char err[256];
    search_params p;
    search_params_default(&p);
    p.fmt = f;
    p.symmetry = g;
    p.gen_max = 1;
    p.plateau = p.plateau_min = p.plateau_max = 2000;
    p.plus_max = 6;
    search_cubes c = {0};
    if (cubes)
        c = *cubes;
    scheme *start = search_symmetric_start(f, g, &c, err, sizeof err);
    cr_assert(start, "%s", err);
    scheme *s = tc_walked_from(start, &p, seed, flips);
    scheme_free(start);
    return s;
}

/* A square scheme extended to a larger square format (search_extend_square,
 * which search_resize takes there) gets its new indices in the middle, so
 * that an involution swapping i and n-1-i carries over: our <6,6,6>:153
 * (c3xc2) to <7,7,7> and <8,8,8> stays c3xc2; fresh walked schemes: c3xc2
 * <4,4,4> to <5,5,5> c3xc2, c3xc2 <5,5,5> to <6,6,6> c3xc2s2 (an odd n's middle
 * and the new index are the two indices the involution fixes) and to <7,7,7>
 * c3xc2, c3xc2s1 <5,5,5> to <6,6,6> c3xc2s1.  The extension has the rank plus
 * the new slices' standard terms; search_resize's result (the reductions
 * after it) is valid and no larger; the new indices appended at the end
 * (search_extend alone) are not invariant. */
static void check_square_extension(const scheme *s, int to, scheme_symmetry g, const char *what)
{
    char err[600];
    scheme *x = search_extend_square(s, to);
    cr_assert_not_null(x, "%s", what);
    cr_assert(verifies(x), "%s: not valid", what);
    const int n = s->fmt.n;
    cr_assert_eq(x->rank, s->rank + to * to * to - n * n * n, "%s: rank %d", what, x->rank);
    int term, elem;
    cr_assert(scheme_symmetry_check(x, g, &term, &elem, err, sizeof err), "%s: not invariant under %s: %s", what,
              scheme_symmetry_name(g), err);
    scheme *r = search_resize(s, (scheme_format){to, to, to}, err, sizeof err);
    cr_assert(r, "%s: %s", what, err);
    cr_assert(verifies(r) && r->rank <= x->rank, "%s: resize gave rank %d", what, r->rank);
    scheme_free(r);
    /* the new indices appended at the end instead */
    scheme *a = scheme_clone(s);
    for (int step = n; step < to; step++)
        for (int dim = 0; dim < 3; dim++) {
            scheme *next = search_extend(a, dim);
            cr_assert_not_null(next);
            scheme_free(a);
            a = next;
        }
    cr_assert_not(scheme_symmetry_check(a, g, &term, &elem, NULL, 0), "%s: appended, invariant too", what);
    scheme_free(a);
    scheme_free(x);
}

Test(symmetry, square_extensions_keep_the_involution, .timeout = 240)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/data/found/666-153-c3xc2-gf2.txt", getenv("FLIPGRAPH_SOURCE"));
    scheme *s153 = tc_read_or_die(path);
    check_square_extension(s153, 7, SCHEME_SYM_C3XC2, "153 to <7,7,7>");
    check_square_extension(s153, 8, SCHEME_SYM_C3XC2, "153 to <8,8,8>");
    scheme_free(s153);
    const uint64_t seed = tc_seed();
    static const struct {
        int n;
        scheme_symmetry g;
        int to;
        scheme_symmetry kept;
    } cases[] = {
        {4, SCHEME_SYM_C3XC2, 5, SCHEME_SYM_C3XC2},
        {5, SCHEME_SYM_C3XC2, 6, SCHEME_SYM_C3XC2S2},
        {5, SCHEME_SYM_C3XC2, 7, SCHEME_SYM_C3XC2},
        {5, SCHEME_SYM_C3XC2S1, 6, SCHEME_SYM_C3XC2S1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const scheme_format f = {cases[k].n, cases[k].n, cases[k].n};
        scheme *s = walked_invariant(f, cases[k].g, NULL, seed ^ (k + 1), 30000);
        int term, elem;
        char err[256], what[128];
        cr_assert(scheme_symmetry_check(s, cases[k].g, &term, &elem, err, sizeof err), "%s", err);
        snprintf(what, sizeof what, "%s <%d,%d,%d> rank %d to %d (seed %llu)", scheme_symmetry_name(cases[k].g),
                 cases[k].n, cases[k].n, cases[k].n, s->rank, cases[k].to, (unsigned long long)seed);
        check_square_extension(s, cases[k].to, cases[k].kept, what);
        scheme_free(s);
    }
    /* not square, or not larger: none */
    scheme *std = scheme_standard((scheme_format){3, 3, 4});
    cr_assert_null(search_extend_square(std, 5));
    scheme_free(std);
    std = scheme_standard((scheme_format){4, 4, 4});
    cr_assert_null(search_extend_square(std, 4));
    cr_assert_null(search_extend_square(std, 9));
    scheme_free(std);
}

/* verify_lift_options.symmetry against the plain lift on fresh invariant
 * schemes: an invariant lift verifies over Z, is invariant, reduces term by
 * term to its input and has fewer unknowns; where it exists a lift exists,
 * so the plain lift is never refused as impossible (VERIFY_LIFT_NONE) then,
 * and where the plain lift is impossible the invariant one fails too. */
Test(symmetry, invariant_lifts_against_the_plain_lift, .timeout = 240)
{
    const uint64_t seed = tc_seed();
    static const struct { scheme_format f; scheme_symmetry g; } cases[] = {
        {{3, 3, 3}, SCHEME_SYM_C3}, {{4, 4, 4}, SCHEME_SYM_C3}, {{5, 5, 5}, SCHEME_SYM_C3},
        {{4, 4, 4}, SCHEME_SYM_C3XC2}, {{5, 5, 5}, SCHEME_SYM_C3XC2}, {{3, 4, 4}, SCHEME_SYM_T2},
        {{2, 3, 3}, SCHEME_SYM_T2}};
    int lifted = 0, tried = 0, by_group[4] = {0};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (int i = 0; i < (sanitized() ? 2 : 6); i++) {
            const uint64_t sd = seed ^ (k * 1000 + (uint64_t)i + 1);
            scheme *s = walked_invariant(cases[k].f, cases[k].g, NULL, sd, 20000 + 7919 * (uint64_t)i);
            char err[256], fb[32];
            int term, elem;
            cr_assert(scheme_symmetry_check(s, cases[k].g, &term, &elem, err, sizeof err), "%s", err);
            verify_lift_options o = {0};
            o.symmetry = cases[k].g;
            verify_lift_result ls, lp;
            scheme *zs = verify_lift_ex(s, &o, &ls);
            scheme *zp = verify_lift_ex(s, NULL, &lp);
            tried++;
            const char *what = scheme_format_str(s->fmt, fb);
            cr_assert_lt(ls.unknowns, lp.unknowns, "seed %llu %s %s: %d tied unknowns, %d plain",
                         (unsigned long long)sd, what, scheme_symmetry_name(cases[k].g), ls.unknowns, lp.unknowns);
            if (zs) {
                lifted++;
                by_group[cases[k].g]++;
                verify_result vr;
                cr_assert(verify_z(zs, &vr), "seed %llu %s: %s", (unsigned long long)sd, what, vr.msg);
                cr_assert(scheme_symmetry_check(zs, cases[k].g, &term, &elem, err, sizeof err),
                          "seed %llu %s: the invariant lift is not invariant over Z: %s", (unsigned long long)sd,
                          what, err);
                scheme *back = scheme_to_f2(zs);
                cr_assert_eq(back->rank, s->rank);
                for (int r = 0; r < s->rank; r++)
                    cr_assert(!memcmp(&back->terms[r], &s->terms[r], sizeof s->terms[r]),
                              "term %d of the lift does not reduce to term %d", r + 1, r + 1);
                scheme_free(back);
                /* its orbits are its input's (scheme_symmetry_orbits over Z) */
                int *oz = malloc(sizeof(int) * (size_t)s->rank), *o2 = malloc(sizeof(int) * (size_t)s->rank);
                cr_assert_eq(scheme_symmetry_orbits(zs, cases[k].g, oz), scheme_symmetry_orbits(s, cases[k].g, o2));
                cr_assert(!memcmp(oz, o2, sizeof(int) * (size_t)s->rank));
                free(oz);
                free(o2);
                cr_assert_neq(lp.status, VERIFY_LIFT_NONE,
                              "seed %llu %s: an invariant lift exists, but the plain lift says none does: %s",
                              (unsigned long long)sd, what, lp.msg);
            }
            if (lp.status == VERIFY_LIFT_NONE)
                cr_assert_null(zs);
            scheme_free(zs);
            scheme_free(zp);
            scheme_free(s);
        }
    cr_assert_gt(lifted, tried / 4, "seed %llu: %d of %d invariant schemes had an invariant lift",
                 (unsigned long long)seed, lifted, tried);
    for (int g = SCHEME_SYM_C3; g <= SCHEME_SYM_T2; g++)
        cr_assert_gt(by_group[g], 0, "seed %llu: no invariant lift under %s", (unsigned long long)seed,
                     scheme_symmetry_name((scheme_symmetry)g));
}

Test(symmetry, an_invariant_lift_needs_an_invariant_scheme)
{
    verify_lift_options o = {0};
    o.symmetry = SCHEME_SYM_C3;
    verify_lift_result lr;
    /* the standard algorithm of <3,3,3> is invariant (its terms are permuted) */
    scheme *std = scheme_standard((scheme_format){3, 3, 3});
    scheme *z = verify_lift_ex(std, &o, &lr);
    cr_assert_not_null(z, "%s", lr.msg);
    scheme_free(z);
    /* one term split in two: valid, not invariant */
    split_a_term(std);
    cr_assert_null(verify_lift_ex(std, &o, &lr));
    cr_assert_eq(lr.status, VERIFY_LIFT_BAD_INPUT);
    cr_assert(strstr(lr.msg, "not invariant under c3"), "%s", lr.msg);
    scheme_free(std);
    scheme *rect = scheme_standard((scheme_format){2, 3, 4});
    cr_assert_null(verify_lift_ex(rect, &o, &lr));
    cr_assert_eq(lr.status, VERIFY_LIFT_BAD_INPUT);
    cr_assert(strstr(lr.msg, "square"), "%s", lr.msg);
    scheme_free(rect);
}

Test(symmetry_cli, lift_symmetry_gives_an_invariant_lift, .timeout = 120)
{
    char out[16384];
    char in[4096];
    snprintf(in, sizeof in, "%s/data/found/666-153-c3xc2-gf2.txt", getenv("FLIPGRAPH_SOURCE"));
    const char *z = tc_path_in("z153.txt");
    cr_assert_eq(tc_run_cli("", out, sizeof out, "lift '%s' --symmetry c3xc2 -o '%s'", in, z), 0, "%s", out);
    cr_assert(strstr(out, "2754 unknowns"), "one unknown per orbit of entries (16524 / 6): %s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "verify --ring z --symmetry c3xc2 '%s'", z), 0, "%s", out);
    cr_assert(strstr(out, "rank 153 over Z: valid, invariant under c3xc2 (27 orbits)"),
              "the orbits of an invariant integer scheme are counted too: %s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "lift '%s' --symmetry c3 --walk 1s", in), 2, "%s", out);
    cr_assert(strstr(out, "--symmetry"), "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "lift '%s' --symmetry c4", in), 2, "%s", out);
    cr_assert(strstr(out, "expected c3, c3xc2, c3xc2s1..c3xc2s3 or t2"), "%s", out);
}

/* ------------------------------------------------------------ the cube move */

/* Our 153 (fixed terms: the mirror pair 110000, 000011 and 001100): merging
 * the pair gives 158 (two fixed terms, so even ranks for a c3xc2 walk from it),
 * invariant and valid, and the same move splits it back to the 153 itself. */
Test(cube_move, merges_the_mirror_pair_of_our_153_and_splits_it_back, .timeout = 120)
{
    char path[4096], err[256];
    snprintf(path, sizeof path, "%s/data/found/666-153-c3xc2-gf2.txt", getenv("FLIPGRAPH_SOURCE"));
    scheme *s = tc_read_or_die(path);
    search_cubes pair;
    cr_assert(search_cubes_parse("110000,000011", &pair));
    scheme *m = search_cubes_merge(s, &pair, err, sizeof err);
    cr_assert(m, "%s", err);
    cr_assert_eq(m->rank, 158);
    cr_assert(verifies(m));
    int term, elem;
    cr_assert(scheme_symmetry_check(m, SCHEME_SYM_C3XC2, &term, &elem, err, sizeof err), "%s", err);
    cr_assert_eq(count_cubes(m), 2, "110011 and 001100 are its fixed terms");
    scheme *back = search_cubes_merge(m, &pair, err, sizeof err);
    cr_assert(back, "%s", err);
    cr_assert(scheme_equal(back, s), "the split gives back the 153 (rank %d)", back->rank);
    /* a pair that is not a mirror pair keeps c3 only */
    cr_assert(search_cubes_parse("110000,001100", &pair));
    scheme *c3 = search_cubes_merge(s, &pair, err, sizeof err);
    cr_assert(c3 && verifies(c3), "%s", err);
    cr_assert(scheme_symmetry_check(c3, SCHEME_SYM_C3, &term, &elem, err, sizeof err), "%s", err);
    cr_assert(!scheme_symmetry_check(c3, SCHEME_SYM_C3XC2, &term, &elem, NULL, 0));
    scheme_free(c3);
    scheme_free(back);
    scheme_free(m);
    scheme_free(s);
}

/* On fresh walked schemes of random cube partitions: the move leaves a valid
 * scheme invariant under the walk's group, of the other parity, and applied
 * twice it is the identity (the sum it adds is zero and equal terms cancel). */
Test(cube_move, is_valid_invariant_and_its_own_inverse_on_walked_schemes, .timeout = 240)
{
    const uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int trial = 0; trial < (sanitized() ? 6 : 24); trial++) {
        const int n = 3 + (int)scheme_rng_below(&rng, 4);
        const scheme_symmetry g = groups[scheme_rng_below(&rng, 2)];
        search_cubes c;
        memset(&c, 0, sizeof c);
        c.digits = n;
        int x = -1, y = -1; /* the pair to merge: indices into c.mask */
        if (g == SCHEME_SYM_C3XC2) {
            /* each mirror pair of indices one cube or two; one pair (at
             * least) two, which is the pair merged */
            const int split = (int)scheme_rng_below(&rng, (uint32_t)(n / 2));
            for (int i = 0; i < n - 1 - i; i++) {
                const unsigned a = 1u << i, b = 1u << (n - 1 - i);
                if (i == split || scheme_rng_below(&rng, 2)) {
                    if (i == split)
                        x = c.count, y = c.count + 1;
                    c.mask[c.count++] = (uint8_t)a;
                    c.mask[c.count++] = (uint8_t)b;
                } else
                    c.mask[c.count++] = (uint8_t)(a | b);
            }
            if (n % 2)
                c.mask[c.count++] = (uint8_t)(1u << (n / 2));
        } else {
            /* indices dealt into three cubes (the empty ones dropped) */
            uint8_t m[3] = {0, 0, 0};
            for (int i = 0; i < n; i++)
                m[i < 2 ? i : (int)scheme_rng_below(&rng, 3)] |= (uint8_t)(1u << i);
            for (int k = 0; k < 3; k++)
                if (m[k])
                    c.mask[c.count++] = m[k];
            x = 0;
            y = 1;
        }
        const uint64_t sd = seed ^ (uint64_t)(trial + 1);
        scheme *s = walked_invariant((scheme_format){n, n, n}, g, &c, sd, 5000 + 977 * (uint64_t)trial);
        search_cubes pair;
        memset(&pair, 0, sizeof pair);
        pair.digits = n;
        pair.count = 2;
        pair.mask[0] = c.mask[x];
        pair.mask[1] = c.mask[y];
        char err[256], text[64];
        search_cubes_text(&pair, text, sizeof text);
        scheme *m = search_cubes_merge(s, &pair, err, sizeof err);
        cr_assert(m, "seed %llu trial %d, %s on <%d,%d,%d>: %s", (unsigned long long)seed, trial, text, n, n, n, err);
        cr_assert(verifies(m), "seed %llu trial %d: %s leaves an invalid scheme", (unsigned long long)seed, trial,
                  text);
        int term, elem;
        cr_assert(scheme_symmetry_check(m, g, &term, &elem, err, sizeof err), "seed %llu trial %d %s %s: %s",
                  (unsigned long long)seed, trial, scheme_symmetry_name(g), text, err);
        cr_assert((m->rank - s->rank) % 2 != 0, "seed %llu trial %d: rank %d -> %d keeps its parity",
                  (unsigned long long)seed, trial, s->rank, m->rank);
        scheme *back = search_cubes_merge(m, &pair, err, sizeof err);
        cr_assert(back, "seed %llu trial %d: %s", (unsigned long long)seed, trial, err);
        cr_assert(scheme_equal(back, s), "seed %llu trial %d %s: twice is not the identity (rank %d, %d)",
                  (unsigned long long)seed, trial, text, s->rank, back->rank);
        scheme_free(back);
        scheme_free(m);
        scheme_free(s);
    }
}

/* Two implementations of one start: the symmetric start of cubes of one or two
 * indices (search_symmetric_start: the cube plus the diagonal terms it adds)
 * is the standard algorithm with each two-index cube merged from its two
 * single-index cubes (the standard terms a_ii b_ii c_ii) by the cube move.
 * Cubes of three or more indices differ: merging them step by step leaves
 * fewer mixed terms (bench/RESULTS.md, "The cube move"). */
Test(cube_move, merging_singles_of_the_standard_algorithm_gives_the_symmetric_start)
{
    char err[256];
    for (int n = 2; n <= 6; n++) {
        scheme *s = scheme_standard((scheme_format){n, n, n});
        search_cubes c;
        search_cubes_default(n, &c); /* the mirror pairs (and the middle): one or two indices each */
        for (int q = 0; q < c.count; q++) {
            if (__builtin_popcount(c.mask[q]) != 2)
                continue;
            search_cubes pair = {0};
            pair.digits = n;
            pair.count = 2;
            pair.mask[0] = (uint8_t)(c.mask[q] & -c.mask[q]);
            pair.mask[1] = (uint8_t)(c.mask[q] & (c.mask[q] - 1));
            scheme *m = search_cubes_merge(s, &pair, err, sizeof err);
            cr_assert(m, "n %d: %s", n, err);
            scheme_free(s);
            s = m;
        }
        search_cubes none = {0};
        scheme *start = search_symmetric_start((scheme_format){n, n, n}, SCHEME_SYM_C3XC2, &none, err, sizeof err);
        cr_assert(start, "%s", err);
        cr_assert(scheme_equal(s, start), "n %d: merged rank %d, the start's %d", n, s->rank, start->rank);
        scheme_free(start);
        scheme_free(s);
    }
}

Test(cube_move, refuses_what_does_not_fit)
{
    char err[256];
    scheme *s = scheme_standard((scheme_format){4, 4, 4});
    search_cubes pair;
    cr_assert(search_cubes_parse("1100,0011", &pair));
    /* the standard algorithm holds no cube D*D*D of two indices */
    cr_assert_null(search_cubes_merge(s, &pair, err, sizeof err));
    cr_assert(strstr(err, "holds neither both cubes nor their union's"), "%s", err);
    /* single indices: their cubes are the standard terms a_ii b_ii c_ii */
    cr_assert(search_cubes_parse("1000,0100", &pair));
    scheme *m = search_cubes_merge(s, &pair, err, sizeof err);
    cr_assert(m && verifies(m) && m->rank == 64 + 5, "%s", err);
    scheme_free(m);
    cr_assert(search_cubes_parse("1100,0110", &pair));
    cr_assert_null(search_cubes_merge(s, &pair, err, sizeof err));
    cr_assert(strstr(err, "two disjoint nonempty cubes of 4 digits"), "%s", err);
    cr_assert(search_cubes_parse("110,001", &pair));
    cr_assert_null(search_cubes_merge(s, &pair, err, sizeof err));
    cr_assert(search_cubes_parse("1100,0010,0001", &pair));
    cr_assert_null(search_cubes_merge(s, &pair, err, sizeof err));
    scheme_free(s);
    scheme *r = scheme_standard((scheme_format){3, 3, 4});
    cr_assert(search_cubes_parse("100,010", &pair));
    cr_assert_null(search_cubes_merge(r, &pair, err, sizeof err));
    cr_assert(strstr(err, "square format"), "%s", err);
    scheme_free(r);
}
