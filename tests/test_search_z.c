/* Tests of the walk over Z (search/moves_z.c, search/walker_z.c; docs/search.md,
 * "Searching over Z"): every reference move against the expanded tensor, the
 * walker move by move against the reference and the Brent equations over Z,
 * searches to <2,2,2>:7 and <3,3,3>:23 from the standard algorithm, and the
 * command (--ring z, the store, --from with a lift, refusals).
 *
 * Randomized tests seed from /dev/urandom (or FLIPGRAPH_SEED, to replay) and
 * print the seed in every failure message.  Under FLIPGRAPH_SANITIZED=1 the
 * loops shrink. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "db/db.h"
#include "runtime/runtime.h"
#include "schemes/scheme.h"
#include "search/search.h"
#include "search/session.h"
#include "verify/verify.h"
#include "test_common.h"
#include "test_tally.h"

static const scheme_format g_formats[] = {{2, 2, 2}, {2, 3, 4}, {3, 3, 3}, {3, 2, 5}, {4, 4, 4}, {3, 4, 5}};
#define NFORMATS (int)(sizeof g_formats / sizeof g_formats[0])

/* The expanded tensor sum_r a_r (x) b_r (x) c_r, entry (ea, eb, ec) at
 * (ea * nb + eb) * nc + ec: the plain reference every move must keep. */
static long long *tensor(const scheme *s)
{
    const int na = scheme_factor_size(s->fmt, 0), nb = scheme_factor_size(s->fmt, 1),
              nc = scheme_factor_size(s->fmt, 2);
    long long *t = calloc((size_t)na * nb * nc, sizeof *t);
    cr_assert_not_null(t);
    for (int r = 0; r < s->rank; r++)
        for (int a = 0; a < na; a++) {
            const int va = s->zterms[r].z[0][a];
            if (!va)
                continue;
            for (int b = 0; b < nb; b++) {
                const int vb = s->zterms[r].z[1][b];
                if (!vb)
                    continue;
                for (int c = 0; c < nc; c++)
                    t[((size_t)a * nb + b) * nc + c] += (long long)va * vb * s->zterms[r].z[2][c];
            }
        }
    return t;
}

static bool same_tensor(const scheme *x, const scheme *y)
{
    const size_t n = (size_t)scheme_factor_size(x->fmt, 0) * scheme_factor_size(x->fmt, 1) *
                     scheme_factor_size(x->fmt, 2);
    long long *a = tensor(x), *b = tensor(y);
    const bool eq = !memcmp(a, b, n * sizeof *a);
    free(a);
    free(b);
    return eq;
}

/* Words equal to the odd coefficients, no zero factor, no coefficient above cmax. */
static void well_formed(const scheme *s, int cmax, uint64_t seed)
{
    for (int r = 0; r < s->rank; r++)
        for (int pos = 0; pos < 3; pos++) {
            uint64_t odd = 0;
            bool nz = false;
            for (int e = 0; e < scheme_factor_size(s->fmt, pos); e++) {
                const int v = s->zterms[r].z[pos][e];
                cr_assert(v <= cmax && v >= -cmax, "coefficient %d above the bound %d (seed %llu)", v, cmax,
                          (unsigned long long)seed);
                nz |= v != 0;
                if (v & 1)
                    odd |= 1ull << e;
            }
            cr_assert(nz, "a zero factor was left (seed %llu)", (unsigned long long)seed);
            cr_assert_eq(odd, s->terms[r].f[pos], "words disagree with the coefficients (seed %llu)",
                         (unsigned long long)seed);
        }
}

static scheme *standard_z(scheme_format f, int extra)
{
    scheme *s0 = scheme_standard(f);
    scheme *s = search_z_copy(s0);
    scheme_free(s0);
    cr_assert_not_null(s);
    cr_assert(scheme_reserve(s, s->rank + extra));
    return s;
}

static int rnd_sign(scheme_rng *r) { return scheme_rng_next(r) >> 63 ? 1 : -1; }

/* ---------------------------------------------------------- reference moves */

Test(search_z_moves, every_move_keeps_the_expanded_tensor, .timeout = 120)
{
    const uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    long flips = 0, opposite = 0, pluses = 0, reductions = 0, refused = 0;
    for (int fi = 0; fi < NFORMATS; fi++)
        for (int cmax = 1; cmax <= 2; cmax++) {
            scheme *s = standard_z(g_formats[fi], 64);
            for (int step = 0; step < tc_scaled(3000); step++) {
                scheme *before = scheme_clone(s);
                const int i = (int)scheme_rng_below(&rng, (uint32_t)s->rank);
                const int j = (int)scheme_rng_below(&rng, (uint32_t)s->rank);
                const int x = (int)scheme_rng_below(&rng, 3);
                const unsigned what = scheme_rng_below(&rng, 100);
                bool moved;
                if (what < 2 && s->rank + 1 < s->cap) {
                    moved = search_z_plus(s, i, j, x, rnd_sign(&rng), cmax);
                    pluses += moved;
                } else if (what < 6) {
                    const int r0 = s->rank;
                    search_z_reduce_all(s, cmax);
                    moved = s->rank < r0;
                    reductions += r0 - s->rank;
                } else {
                    const int rel = i != j ? search_z_relation(s, i, j, x) : 0;
                    moved = search_z_flip(s, i, j, x, rnd_sign(&rng), cmax);
                    flips += moved;
                    opposite += moved && rel < 0;
                    refused += rel && !moved;
                }
                if (!moved)
                    cr_assert(scheme_equal(s, before), "a refused move changed the scheme (seed %llu)",
                              (unsigned long long)seed);
                cr_assert(same_tensor(s, before), "step %d on format %d changed the tensor (seed %llu)", step, fi,
                          (unsigned long long)seed);
                verify_result vr;
                cr_assert(verify_z(s, &vr), "step %d: %s (seed %llu)", step, vr.msg, (unsigned long long)seed);
                well_formed(s, cmax, seed);
                scheme_free(before);
            }
            scheme_free(s);
        }
    /* the test walked: flips between opposite factors, plus transitions, reductions, refusals */
    cr_assert(flips > 100 && opposite > 0 && pluses > 0 && reductions > 0 && refused > 0,
              "flips %ld, opposite %ld, plus %ld, reductions %ld, refused %ld (seed %llu)", flips, opposite, pluses,
              reductions, refused, (unsigned long long)seed);
}

Test(search_z_moves, reductions_of_pairs_equal_up_to_sign)
{
    const uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int k = 0; k < tc_scaled(200); k++) {
        scheme *s = standard_z((scheme_format){3, 3, 3}, 8);
        const int r0 = s->rank;
        /* (a', b', d) = (s1 a, s2 b, d) and (-a', b', d) cancel; so do (a', b', d) and
         * (-a', -b', -d) */
        const scheme_zterm t = s->zterms[scheme_rng_below(&rng, (uint32_t)s->rank)];
        scheme_zterm u = t, v = t;
        const int s1 = rnd_sign(&rng), s2 = rnd_sign(&rng), kind = (int)scheme_rng_below(&rng, 2);
        for (int e = 0; e < 9; e++) {
            u.z[0][e] = (int8_t)(s1 * t.z[0][e]);
            u.z[1][e] = (int8_t)(s2 * t.z[1][e]);
            u.z[2][e] = (int8_t)(e == (int)(k % 9) || e == (int)((k + 4) % 9) ? 1 : 0);
            v.z[0][e] = (int8_t)(-u.z[0][e]);
            v.z[1][e] = (int8_t)(kind ? -u.z[1][e] : u.z[1][e]);
            v.z[2][e] = (int8_t)(kind ? -u.z[2][e] : u.z[2][e]);
        }
        cr_assert(scheme_push_z(s, &u) && scheme_push_z(s, &v));
        verify_result vr;
        cr_assert(verify_z(s, &vr), "%s (seed %llu)", vr.msg, (unsigned long long)seed);
        int i, j;
        cr_assert(search_z_find_reduction(s, 1, &i, &j), "seed %llu", (unsigned long long)seed);
        /* the pair itself: both go (the sum of their third factors is zero) */
        cr_assert(search_z_reduce_pair(s, r0, r0 + 1, 1), "seed %llu", (unsigned long long)seed);
        cr_assert_eq(s->rank, r0);
        cr_assert(verify_z(s, &vr), "%s (seed %llu)", vr.msg, (unsigned long long)seed);
        scheme_free(s);
    }
    /* a reduction above the bound is none: (a, b, c) twice would give 2c */
    scheme *s = standard_z((scheme_format){2, 2, 2}, 2);
    scheme_zterm t = s->zterms[0];
    cr_assert(scheme_push_z(s, &t));
    int i, j;
    cr_assert_not(search_z_find_reduction(s, 1, &i, &j));
    cr_assert(search_z_find_reduction(s, 2, &i, &j));
    scheme_free(s);
}

/* Five terms whose products at b and c are dependent over Z without a shared
 * factor: (x1 + sg x2) (x) (y1 + y2) = x1 y1 + x1 y2 + sg x2 y1 + sg x2 y2, the
 * factors at a random; appended to s. */
static void push_flattening_five(scheme *s, scheme_rng *rng, int sg)
{
    const int na = scheme_factor_size(s->fmt, 0), nb = scheme_factor_size(s->fmt, 1),
              nc = scheme_factor_size(s->fmt, 2);
    int8_t x1[SCHEME_MAX_ENTRIES] = {0}, x2[SCHEME_MAX_ENTRIES] = {0}, y1[SCHEME_MAX_ENTRIES] = {0},
           y2[SCHEME_MAX_ENTRIES] = {0};
    /* disjoint supports keep x1 + sg x2 and y1 + y2 within {-1, 0, 1} */
    const int hb = (int)scheme_rng_below(rng, (uint32_t)(nb - 1)) + 1, hc = (int)scheme_rng_below(rng, (uint32_t)(nc - 1)) + 1;
    for (int e = 0; e < nb; e++)
        (e < hb ? x1 : x2)[e] = (int8_t)(scheme_rng_below(rng, 3) - 1);
    for (int e = 0; e < nc; e++)
        (e < hc ? y1 : y2)[e] = (int8_t)(scheme_rng_below(rng, 3) - 1);
    x1[0] = 1, x2[nb - 1] = 1, y1[0] = 1, y2[nc - 1] = 1; /* none zero */
    const int8_t *B[5] = {x1, x1, x2, x2, NULL}, *C[5] = {y1, y2, y1, y2, NULL};
    for (int k = 0; k < 5; k++) {
        scheme_zterm t;
        memset(&t, 0, sizeof t);
        for (int e = 0; e < na; e++)
            t.z[0][e] = (int8_t)(scheme_rng_below(rng, 3) - 1);
        t.z[0][k % na] = 1;
        for (int e = 0; e < nb; e++)
            t.z[1][e] = k < 4 ? B[k][e] : (int8_t)(x1[e] + sg * x2[e]);
        for (int e = 0; e < nc; e++)
            t.z[2][e] = k < 4 ? C[k][e] : (int8_t)(y1[e] + y2[e]);
        if (k == 4)
            for (int e = 0; e < na; e++)
                t.z[0][e] = (int8_t)-t.z[0][e]; /* any a: only the products matter */
        cr_assert(scheme_push_z(s, &t));
    }
}

Test(search_z_moves, flattening_elimination_keeps_the_tensor_and_the_bound, .timeout = 120)
{
    /* random term lists (coefficients -1..1), a dependent five planted in half of
     * them: the elimination keeps the expanded tensor, the coefficient bound and
     * the words; where the five were planted among independent products it
     * removes a term */
    const uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    int planted = 0, removed_planted = 0, removed_random = 0;
    for (int k = 0; k < tc_scaled(400); k++) {
        const scheme_format f = g_formats[scheme_rng_below(&rng, NFORMATS)];
        scheme *s = scheme_new(f, SCHEME_RING_Z, 32);
        cr_assert_not_null(s);
        const int n = 1 + (int)scheme_rng_below(&rng, 6);
        for (int r = 0; r < n; r++) {
            scheme_zterm t;
            memset(&t, 0, sizeof t);
            for (int pos = 0; pos < 3; pos++) {
                const int sz = scheme_factor_size(f, pos);
                for (int e = 0; e < sz; e++)
                    t.z[pos][e] = (int8_t)(scheme_rng_below(&rng, 3) - 1);
                t.z[pos][scheme_rng_below(&rng, (uint32_t)sz)] = (int8_t)rnd_sign(&rng);
            }
            cr_assert(scheme_push_z(s, &t));
        }
        const bool plant = scheme_rng_below(&rng, 2);
        if (plant)
            push_flattening_five(s, &rng, rnd_sign(&rng));
        scheme *before = scheme_clone(s);
        /* the five's eliminations add a factor at a in {-1, 0, 1} to others: at
         * most 2; a bound of 1 may refuse them, which the random lists try */
        const int cmax = plant ? 2 : 1 + (int)scheme_rng_below(&rng, 2);
        const int r0 = s->rank;
        const int removed = search_z_reduce_flattening(s, cmax);
        cr_assert_geq(removed, 0);
        cr_assert_eq(removed, r0 - s->rank);
        cr_assert(same_tensor(before, s), "the elimination changed the tensor (seed %llu)", (unsigned long long)seed);
        well_formed(s, cmax, seed);
        if (plant) {
            planted++;
            removed_planted += removed > 0;
        } else
            removed_random += removed > 0;
        scheme_free(before);
        scheme_free(s);
    }
    /* the planted five are found nearly always (the random terms' products may
     * join the combination the elimination sees first and spoil it) */
    cr_assert_gt(removed_planted, planted * 3 / 4, "%d of %d planted fives removed (seed %llu)", removed_planted,
                 planted, (unsigned long long)seed);
    (void)removed_random;
}

Test(search_z_moves, flattening_elimination_keeps_a_scheme_valid)
{
    /* the standard <3,3,3>, a dependent five and the four the elimination makes
     * of them, negated (so the nine cancel): a valid scheme of 36 terms over Z;
     * the eliminations leave a valid scheme of at most 27 */
    const uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int k = 0; k < tc_scaled(50); k++) {
        const scheme_format f = {3, 3, 3};
        scheme *five = scheme_new(f, SCHEME_RING_Z, 8);
        push_flattening_five(five, &rng, rnd_sign(&rng));
        scheme *four = scheme_clone(five);
        cr_assert_eq(search_z_reduce_flattening(four, 2), 1, "(seed %llu)", (unsigned long long)seed);
        cr_assert(same_tensor(five, four));
        scheme *s = standard_z(f, 16);
        for (int r = 0; r < five->rank; r++)
            cr_assert(scheme_push_z(s, &five->zterms[r]));
        for (int r = 0; r < four->rank; r++) {
            scheme_zterm t = four->zterms[r];
            for (int e = 0; e < 9; e++)
                t.z[0][e] = (int8_t)-t.z[0][e];
            cr_assert(scheme_push_z(s, &t));
        }
        verify_result vr;
        cr_assert(verify_z(s, &vr), "%s (seed %llu)", vr.msg, (unsigned long long)seed);
        cr_assert_eq(s->rank, 36);
        const int removed = search_z_reduce_flattening(s, 2);
        cr_assert_geq(removed, 9, "(seed %llu)", (unsigned long long)seed);
        cr_assert(verify_z(s, &vr), "%s (seed %llu)", vr.msg, (unsigned long long)seed);
        cr_assert_leq(s->rank, 27);
        well_formed(s, 2, seed);
        scheme_free(s);
        scheme_free(four);
        scheme_free(five);
    }
}

/* ------------------------------------------------------------------ walker */

static search_params zparams(scheme_format f, int cmax)
{
    search_params p;
    search_params_default(&p);
    p.fmt = f;
    p.ring = SCHEME_RING_Z;
    p.coef_max = cmax;
    return p;
}

Test(search_z_walker, agrees_with_the_reference_after_every_move, .timeout = 150)
{
    const uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int fi = 0; fi < NFORMATS; fi++)
        for (int cmax = 1; cmax <= 3; cmax++) {
            search_params p = zparams(g_formats[fi], cmax);
            scheme *start = scheme_standard(p.fmt);
            search_walker *w = search_walker_new(start, &p, scheme_rng_next(&rng), start->rank + 16);
            cr_assert_not_null(w);
            scheme_free(start);
            char err[256];
            cr_assert(search_walker_check(w, err, sizeof err), "%s (seed %llu)", err, (unsigned long long)seed);
            scheme *before = search_walker_snapshot(w);
            for (int step = 0; step < tc_scaled(1500); step++) {
                const int r0 = search_walker_rank(w);
                bool plus = scheme_rng_below(&rng, 50) == 0;
                if (plus)
                    search_walker_plus(w);
                else
                    search_walker_flip(w);
                cr_assert(search_walker_check(w, err, sizeof err), "step %d (%s): %s (seed %llu)", step,
                          plus ? "plus" : "flip", err, (unsigned long long)seed);
                scheme *s = search_walker_snapshot(w);
                cr_assert_eq(s->ring, SCHEME_RING_Z);
                cr_assert_eq(s->rank, search_walker_rank(w));
                if (!plus)
                    cr_assert_leq(s->rank, r0, "a flip raised the rank (seed %llu)", (unsigned long long)seed);
                verify_result vr;
                cr_assert(verify_z(s, &vr), "step %d: %s (seed %llu)", step, vr.msg, (unsigned long long)seed);
                cr_assert(same_tensor(s, before), "step %d changed the tensor (seed %llu)", step,
                          (unsigned long long)seed);
                well_formed(s, cmax, seed);
                scheme_free(before);
                before = s;
            }
            scheme_free(before);
            search_walker_stats st;
            search_walker_stats_get(w, &st);
            cr_assert_gt(st.flips, 0, "no flip was taken on format %d (seed %llu)", fi, (unsigned long long)seed);
            search_walker_free(w);
        }
}

/* The weight bias over Z (walker_z.c; docs/search.md, "The weight bias"):
 * from one scheme S, a walker without the bias and one with it, each new
 * with the same seed, make one flip; they draw the same flip (the test's draw
 * comes after it), so the biased walker must end at the other's outcome O
 * or, undone, at S, undone only where O has S's rank and d = W(O) - W(S) > 0
 * (W counted here on the snapshots); the undone flips number the sum of
 * 1 - exp(-B d) within 5 standard deviations. */
Test(search_z_walker, the_weight_bias_undoes_a_flip_with_probability_one_minus_exp_minus_b_d, .timeout = 150)
{
    const uint64_t seed = tc_seed();
    const double bias = 0.3;
    search_params p0 = zparams((scheme_format){4, 4, 4}, 1), p1 = p0;
    p1.weight_bias = bias;
    /* S: the standard algorithm walked a little, so that flips add and remove coefficients */
    scheme *st = scheme_standard(p0.fmt);
    search_walker *w = search_walker_new(st, &p0, seed, st->rank + 16);
    scheme_free(st);
    for (int k = 0; k < 300; k++)
        search_walker_flip(w);
    scheme *S = search_walker_snapshot(w);
    search_walker_free(w);
    const long w0 = search_scheme_nonzeros(S);
    tc_tally tl = {0};
    long kept = 0, lighter = 0;
    /* heavier flips are about a third of the draws; draw until enough of
     * them for the bound to mean something (a fixed draw count left 89 of
     * 300 under the sanitizers once, seed 6792721367378986984) */
    const long need = tc_sanitized() ? 100 : 900;
    for (int t = 0; tl.trials < need && t < 30 * need; t++) {
        search_walker *a = search_walker_new(S, &p0, seed + 1 + (uint64_t)t, S->rank + 16);
        search_walker *b = search_walker_new(S, &p1, seed + 1 + (uint64_t)t, S->rank + 16);
        cr_assert(a && b);
        search_walker_flip(a);
        search_walker_flip(b);
        scheme *O = search_walker_snapshot(a), *A = search_walker_snapshot(b);
        search_walker_stats sa, sb;
        search_walker_stats_get(a, &sa);
        search_walker_stats_get(b, &sb);
        const long dw = search_scheme_nonzeros(O) - w0;
        const bool heavier = O->rank == S->rank && dw > 0;
        lighter += O->rank == S->rank && dw < 0;
        if (heavier) {
            const double q = 1 - exp(-bias * (double)dw);
            tc_tally_chance(&tl, q);
        }
        if (sb.undone != sa.undone) {
            cr_assert(sb.undone == sa.undone + 1 && heavier && scheme_equal(A, S),
                      "trial %d: an undone flip (rank %d, %ld coefficients added) or another scheme (seed %llu)", t,
                      O->rank, dw, (unsigned long long)seed);
            tl.undone++;
        } else {
            cr_assert(scheme_equal(A, O), "trial %d: the biased walker made another flip (seed %llu)", t,
                      (unsigned long long)seed);
            kept += heavier;
        }
        scheme_free(O);
        scheme_free(A);
        search_walker_free(a);
        search_walker_free(b);
    }
    const double bound = tc_tally_bound(&tl);
    cr_assert(tl.trials >= need && kept > 0 && lighter > 0 && tc_tally_fits(&tl),
              "%ld of %ld heavier flips undone, %.1f expected (bound %.1f); %ld heavier kept, %ld lighter (seed %llu)",
              tl.undone, tl.trials, tl.expect, bound, kept, lighter, (unsigned long long)seed);
    scheme_free(S);
}

Test(search_z_walker, resets_from_integer_schemes_and_reduces_them)
{
    /* Strassen's square with a cancelling pair appended: the reset reduces it */
    search_params p = zparams((scheme_format){2, 2, 2}, 1);
    scheme *s = standard_z(p.fmt, 4);
    scheme_zterm t = s->zterms[3], u = t;
    for (int e = 0; e < 4; e++)
        u.z[0][e] = (int8_t)-t.z[0][e];
    cr_assert(scheme_push_z(s, &t) && scheme_push_z(s, &u));
    search_walker *w = search_walker_new(s, &p, 7, 0);
    cr_assert_not_null(w);
    cr_assert_eq(search_walker_rank(w), 8);
    char err[256];
    cr_assert(search_walker_check(w, err, sizeof err), "%s", err);
    scheme_free(s);
    search_walker_free(w);
}

/* ------------------------------------------------------------------ driver */

typedef struct zseen {
    int last, count;
    bool bad;
    char msg[256];
} zseen;

static bool on_found(void *ctx, const search_found *f)
{
    zseen *z = ctx;
    verify_result vr;
    if (f->s->ring != SCHEME_RING_Z || !verify_z(f->s, &vr) || f->rank >= z->last)
        z->bad = true;
    z->last = f->rank;
    z->count++;
    return true;
}

static void must_reach_z(scheme_format f, int target)
{
    const uint64_t seed = tc_seed();
    search_params p = zparams(f, 1);
    p.target_rank = target;
    p.time_limit = 120;
    p.threads = 1;
    p.seed = seed;
    p.progress_every = 0;
    zseen z = {.last = 1 << 20};
    search_callbacks cb = {.ctx = &z, .improved = on_found};
    search_result res;
    search_run_cpu(&p, NULL, 0, &cb, &res);
    cr_assert_eq(res.status, SEARCH_REACHED, "%s: best %d (seed %llu)", res.msg, res.best_rank,
                 (unsigned long long)seed);
    cr_assert_eq(res.best->ring, SCHEME_RING_Z);
    verify_result vr;
    cr_assert(verify_z(res.best, &vr), "%s", vr.msg);
    cr_assert_leq(search_z_max_coef(res.best), 1);
    cr_assert(z.count > 0 && !z.bad, "improvements must be integer, valid and strictly lower (seed %llu)",
              (unsigned long long)seed);
    search_result_free(&res);
}

Test(search_z_driver, strassen_rank_7, .timeout = 150) { must_reach_z((scheme_format){2, 2, 2}, 7); }
Test(search_z_driver, laderman_rank_23, .timeout = 150) { must_reach_z((scheme_format){3, 3, 3}, 23); }

Test(search_z_driver, a_gf2_start_that_is_not_integer_is_refused)
{
    scheme *s = tc_read_or_die(tc_corpus("kauers-moosbauer/444-47-mod2.exp"));
    search_params p = zparams(s->fmt, 1);
    p.max_flips = 1000;
    search_result res;
    const scheme *starts[1] = {s};
    cr_assert_eq(search_run_cpu(&p, starts, 1, NULL, &res), SEARCH_BAD_PARAMS);
    cr_assert(strstr(res.msg, "does not verify over Z") && strstr(res.msg, "lift"), "%s", res.msg);
    search_result_free(&res);
    scheme_free(s);
}

/* ----------------------------------------------------------------- command */

static int run(const char *dir, const char *args)
{
    const char *bin = getenv("FLIPGRAPH_BIN");
    cr_assert(bin && *bin, "FLIPGRAPH_BIN is not set");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s/out' 2>'%s/err'", bin, args, dir, dir);
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "%s did not exit", cmd);
    return WEXITSTATUS(st);
}

static char *slurp(const char *dir, const char *name)
{
    char path[4096], err[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    char *s = scheme_slurp(path, 1 << 20, &len, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    return s;
}

/* Runs args in dir, which must exit rc with every string of out_has (NULL:
 * none) on standard output and of err_has on standard error. */
static void run_says(const char *dir, const char *args, int rc, const char *const *out_has,
                     const char *const *err_has)
{
    cr_assert_eq(run(dir, args), rc, "%s", args);
    char *out = slurp(dir, "out"), *err = slurp(dir, "err");
    for (int i = 0; out_has && out_has[i]; i++)
        cr_assert(strstr(out, out_has[i]), "%s: no '%s' in:\n%s", args, out_has[i], out);
    for (int i = 0; err_has && err_has[i]; i++)
        cr_assert(strstr(err, err_has[i]), "%s: no '%s' in:\n%s", args, err_has[i], err);
    free(out);
    free(err);
}

Test(search_z_cli, bad_usage_exits_2)
{
    char d[64];
    tc_temp_dir(d, sizeof d, "fg-test-search-z");
    struct {
        const char *args, *says;
    } bad[] = {
        {"search --dims 3x3x3 --ring q", "--ring q"},
        {"search --dims 3x3x3 --ring z --backend gpu --coef-max 2", "{-1, 0, 1}"},
        {"search --dims 3x3x3 --ring z --backend gpu --rounds 2", "--rounds"},
        {"search --dims 3x3x3 --ring z --backend gpu --eager-gen 1", "--eager-gen: the Z GPU walk"},
        {"search --dims 3x3x3 --ring z --coef-max 4", "--coef-max 4"},
        {"search --dims 3x3x3 --ring z --coef-max 0", "--coef-max 0"},
        {"search --dims 3x3x3 --coef-max 2", "--ring z"},
        {"search --dims 3x3x3 --ring z --symmetry c3 --coef-max 2", "walks over GF(2) and lifts"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(run(d, bad[i].args), 2, "%s", bad[i].args);
        char *err = slurp(d, "err");
        cr_assert(strstr(err, bad[i].says), "%s: %s", bad[i].args, err);
        free(err);
    }
    /* --until-record takes the z column: <4,4,4> stops at 49 over Z (47 over GF(2)) */
    cr_assert_eq(run(d, "search --ring z --dims 4x4x4 --until-record --max-flips 1 --threads 1"), 1);
    char *banner = slurp(d, "err");
    cr_assert(strstr(banner, "over Z: record 49") && strstr(banner, "at rank <= 49 (the record)"), "%s", banner);
    free(banner);
    /* a GF(2) scheme without an integer lift is refused, saying why */
    char args[4200];
    snprintf(args, sizeof args, "search --ring z --from '%s' --time 1",
             tc_corpus("kauers-moosbauer/444-47-mod2.exp"));
    cr_assert_eq(run(d, args), 2);
    char *err = slurp(d, "err");
    cr_assert(strstr(err, "does not lift"), "%s", err);
    free(err);
    tc_remove_tree(d);
}

Test(search_z_cli, stores_integer_schemes_that_verify_and_resumes, .timeout = 150)
{
    char d[64], args[4400], path[128];
    tc_temp_dir(d, sizeof d, "fg-test-search-z");
    snprintf(path, sizeof path, "%s/z.db", d);
    snprintf(args, sizeof args,
             "search --ring z --dims 3x3x3 --target-rank 23 --time 120s --threads 1 -q --db '%s' --out '%s/o'", path,
             d);
    cr_assert_eq(run(d, args), 0);
    char *out = slurp(d, "out");
    cr_assert(strstr(out, "best rank 23"), "%s", out);
    free(out);
    char err[512];
    db_status st;
    db *store = db_open(path, false, &st, err, sizeof err);
    cr_assert_not_null(store, "%s", err);
    cr_assert_geq(tc_stored_z_verify(store, 1), 1);
    int64_t id;
    int rank;
    cr_assert_eq(db_best(store, (scheme_format){3, 3, 3}, SCHEME_RING_Z, &id, &rank, err, sizeof err), DB_OK, "%s",
                 err);
    cr_assert_eq(rank, 23);
    cr_assert_eq(db_best(store, (scheme_format){3, 3, 3}, SCHEME_RING_F2, &id, &rank, err, sizeof err),
                 DB_NOT_FOUND);
    char *params = db_run_params(store, 1, &st, err, sizeof err);
    cr_assert_not_null(params, "%s", err);
    cr_assert(strstr(params, "ring=z\n") && strstr(params, "coef-max=1\n"), "%s", params);
    free(params);
    db_close(store);
    /* --resume: over Z again, from the stored integer best (the target met at once) */
    snprintf(args, sizeof args, "search --resume 1 --db '%s' -v", path);
    cr_assert_eq(run(d, args), 0);
    char *e2 = slurp(d, "err");
    cr_assert(strstr(e2, "over Z") && strstr(e2, "start rank 23"), "%s", e2);
    free(e2);
    /* the files of --out verify over Z */
    snprintf(args, sizeof args, "verify --ring z %s/o/*.txt", d);
    cr_assert_eq(run(d, args), 0);
    tc_remove_tree(d);
}

static bool write_native_cb(void *ctx, FILE *f) { return scheme_write_native(ctx, f); }

Test(search_z_cli, from_a_gf2_scheme_that_lifts, .timeout = 60)
{
    char d[64], args[4400], path[128], err[512];
    tc_temp_dir(d, sizeof d, "fg-test-search-z");
    /* 223-11-mod0 reduced mod 2: a GF(2) scheme that is not valid over Z with
     * coefficients 1, but lifts; the walk starts from its lift */
    scheme *z = tc_read_or_die(tc_corpus("kauers-moosbauer/223-11-mod0.exp"));
    scheme *f2 = scheme_to_f2(z);
    scheme *ones = search_z_copy(f2);
    verify_result vr;
    cr_assert_not(verify_z(ones, &vr), "the test needs a GF(2) scheme that is not integer as it is");
    snprintf(path, sizeof path, "%s/223-11-f2.txt", d);
    cr_assert(scheme_write_file_atomic(path, write_native_cb, f2, err, sizeof err), "%s", err);
    snprintf(args, sizeof args, "search --ring z --from '%s' --target-rank 11 --threads 1", path);
    cr_assert_eq(run(d, args), 0);
    char *out = slurp(d, "out"), *e = slurp(d, "err");
    cr_assert(strstr(out, "best rank 11"), "%s", out);
    cr_assert(strstr(e, "lifted to Z") && strstr(e, "over Z"), "%s", e);
    free(out);
    free(e);
    scheme_free(ones);
    scheme_free(f2);
    scheme_free(z);
    tc_remove_tree(d);
}

/* A symmetric walk over Z (session.c, lift_improved; docs/search.md,
 * "Symmetric walks over Z"): the walk is over GF(2), and every improvement
 * is stored as it is (source search:c3, invariant under C3) and lifted; the
 * lifts are the run's results: verified over Z, source lift, the parent the
 * GF(2) row of the same rank, which is their reduction mod 2; --out holds the
 * lifts only.  The meta search's symmetric legs over Z do the same. */
typedef struct lift_rows {
    db *store;
    int z, f2;
    bool plain; /* --via-f2: GF(2) rows of the plain walk (source search) or the lifting walk (lift-walk) */
} lift_rows;

static bool check_lift_row(void *ctx, const db_scheme_row *row)
{
    lift_rows *c = ctx;
    char err[512];
    db_status st;
    scheme *s = db_load_scheme(c->store, row->id, &st, err, sizeof err);
    cr_assert_not_null(s, "row %lld: %s", (long long)row->id, err);
    if (row->ring == SCHEME_RING_F2 && c->plain) {
        cr_assert(!strcmp(row->source, "search") || !strcmp(row->source, "lift-walk"), "row %lld: source %s",
                  (long long)row->id, row->source);
        c->f2++;
    } else if (row->ring == SCHEME_RING_F2) {
        int term, elem;
        cr_assert_str_eq(row->source, "search:c3", "row %lld", (long long)row->id);
        cr_assert(scheme_symmetry_check(s, SCHEME_SYM_C3, &term, &elem, err, sizeof err), "row %lld: %s",
                  (long long)row->id, err);
        c->f2++;
    } else {
        verify_result vr;
        cr_assert(verify_z(s, &vr), "row %lld: %s", (long long)row->id, vr.msg);
        cr_assert_str_eq(row->source, "lift", "row %lld", (long long)row->id);
        db_scheme_row parent;
        cr_assert_eq(db_scheme_info(c->store, row->parent_id, &parent, err, sizeof err), DB_OK, "row %lld: %s",
                     (long long)row->id, err);
        cr_assert(parent.ring == SCHEME_RING_F2 && parent.rank == row->rank, "row %lld: parent %lld",
                  (long long)row->id, (long long)parent.id);
        scheme *p = db_load_scheme(c->store, parent.id, &st, err, sizeof err), *m2 = scheme_to_f2(s);
        cr_assert(p && m2 && scheme_hash(p) == scheme_hash(m2), "row %lld: not its parent mod 2",
                  (long long)row->id);
        scheme_free(p);
        scheme_free(m2);
        c->z++;
    }
    scheme_free(s);
    return true;
}

/* The lowest Z rank of f stored at path (-1: none). */
static int z_best_at(const char *path, scheme_format f)
{
    char err[512];
    db_status st;
    db *store = db_open(path, false, &st, err, sizeof err);
    cr_assert_not_null(store, "%s", err);
    int64_t id;
    int rank = -1;
    st = db_best(store, f, SCHEME_RING_Z, &id, &rank, err, sizeof err);
    cr_assert(st == DB_OK || st == DB_NOT_FOUND, "%s", err);
    db_close(store);
    return st == DB_OK ? rank : -1;
}

static void check_lifts_ex(const char *path, bool plain, int *z, int *f2)
{
    char err[512];
    db_status st;
    lift_rows c = {db_open(path, false, &st, err, sizeof err), 0, 0, plain};
    cr_assert_not_null(c.store, "%s", err);
    db_filter all = {.ring = -1};
    cr_assert_eq(db_list(c.store, &all, check_lift_row, &c, err, sizeof err), DB_OK, "%s", err);
    db_close(c.store);
    *z = c.z;
    *f2 = c.f2;
}

static void check_lifts(const char *path, int *z, int *f2) { check_lifts_ex(path, false, z, f2); }

Test(search_z_cli, symmetric_walk_lifts_every_improvement, .timeout = 120)
{
    const unsigned long long seed = (unsigned long long)(tc_seed() % 1000000000u);
    char d[64], args[4400], path[128];
    tc_temp_dir(d, sizeof d, "fg-test-search-z");
    snprintf(path, sizeof path, "%s/s.db", d);
    snprintf(args, sizeof args,
             "search --ring z --symmetry c3 --dims 3x3x3 --target-rank 23 --time 60s --threads 1 --seed %llu "
             "--db '%s' --out '%s/o'",
             seed, path, d);
    run_says(d, args, 0, (const char *[]){"best rank 23", NULL},
             (const char *[]){"the symmetric walk is over GF(2)", "GF(2) improvements lifted to Z", NULL});
    int z, f2;
    check_lifts(path, &z, &f2);
    cr_assert(z >= 1 && f2 >= z, "%d lifts of %d GF(2) schemes", z, f2);
    /* the count the run prints: every lift stored, every GF(2) improvement
     * lifted or said not tried */
    char *e = slurp(d, "err");
    const char *at = strstr(e, "flipgraph search: ");
    int ok = -1, tried = -1, skipped = 0;
    while (at && sscanf(at, "flipgraph search: %d of %d GF(2) improvements lifted to Z (%d not tried)", &ok, &tried,
                        &skipped) < 2)
        at = strstr(at + 1, "flipgraph search: ");
    cr_assert(at, "no lift count in:\n%s", e);
    cr_assert(ok == z && tried + skipped == f2, "%d of %d lifted, %d not tried; stored %d lifts of %d GF(2) schemes",
              ok, tried, skipped, z, f2);
    free(e);
    cr_assert_eq(z_best_at(path, (scheme_format){3, 3, 3}), 23);
    /* --out: the lifts, one file each */
    snprintf(args, sizeof args, "ls '%s/o' | wc -l > '%s/n' && grep -l '^ring z' '%s/o'/* | wc -l >> '%s/n'", d, d,
             d, d);
    cr_assert_eq(system(args), 0);
    char *n = slurp(d, "n");
    int files = -1, zfiles = -1;
    cr_assert_eq(sscanf(n, "%d %d", &files, &zfiles), 2, "%s", n);
    cr_assert(files == z && zfiles == z, "--out: %d files, %d over Z, %d lifts stored", files, zfiles, z);
    free(n);
    /* every lift verifies over Z, and the lifts keep the walk's symmetry
     * where their scheme has an invariant lift within {-1, 0, 1}: an invariant
     * lift first, the plain one within {-1, 0, 1} before an invariant one
     * beyond (session.c's lift_one; docs/verify.md, "Invariant lifts").  So
     * not every file need be invariant (one was not, once, in a loaded ctest
     * run, whose lagging lifter lifts other improvements); most are. */
    snprintf(args, sizeof args, "verify --ring z '%s'/o/*", d);
    run_says(d, args, 0, (const char *[]){"rank 23 over Z: valid", NULL}, NULL);
    /* `if`, not `&&`: a loop whose last file is not invariant must still
     * exit 0 (with `&&` it took that file's status, and the test failed
     * whenever the last lift was the plain one) */
    snprintf(args, sizeof args,
             "cd '%s' && : > inv && for f in o/*; do if '%s' verify --ring z --symmetry c3 \"$f\" > /dev/null 2>&1; "
             "then echo \"$f\" >> inv; fi; done",
             d, getenv("FLIPGRAPH_BIN"));
    cr_assert_eq(system(args), 0);
    char *inv = slurp(d, "inv");
    int invariant = 0;
    for (const char *l = strchr(inv, '\n'); l; l = strchr(l + 1, '\n'))
        invariant++;
    cr_assert(invariant > 0 && 2 * invariant >= z, "seed %llu: %d of %d lifts invariant under c3:\n%s", seed,
              invariant, z, inv);
    free(inv);
    /* the meta search: <3,3,3>'s first leg is symmetric (from its cubes) and
     * lifts the same way */
    snprintf(path, sizeof path, "%s/m.db", d);
    snprintf(args, sizeof args,
             "search --meta --ring z --symmetry c3 --dims-range 3x3x3..3x3x3 --until-record --time 60s "
             "--threads 1 --db '%s'",
             path);
    run_says(d, args, 0, (const char *[]){"1 of 1 formats at their record", NULL},
             (const char *[]){"<3,3,3> from its diagonal cubes (c3)", NULL});
    check_lifts(path, &z, &f2);
    cr_assert(z >= 1 && f2 >= z, "meta: %d lifts of %d GF(2) schemes", z, f2);
    /* and the sweep's square formats */
    snprintf(path, sizeof path, "%s/w.db", d);
    snprintf(args, sizeof args,
             "sweep --ring z --symmetry c3 --dims-list 3x3x3 --until-record --time-per 60s --threads 1 --db '%s'",
             path);
    run_says(d, args, 0, (const char *[]){"record reached", NULL}, NULL);
    check_lifts(path, &z, &f2);
    cr_assert(z >= 1 && f2 >= z, "sweep: %d lifts of %d GF(2) schemes", z, f2);
    tc_remove_tree(d);
}

/* search --ring z --via-f2 T (session.c; docs/search.md, "Walks over Z by
 * lifting"): the walk is over GF(2) and every improvement is lifted, as the
 * symmetric walk over Z does (check_lifts_ex: every Z row a lift of its GF(2)
 * parent of the same rank); a GF(2) start that does not lift, at its target
 * (data/found/345-47-gf2-liftwalk.txt: no lift, proved mod 4), is walked by
 * the lifting walk after, whose neighbour that lifts is stored (source
 * lift-walk) with its lift; and the meta search --via-f2 over <2,2,2>..<2,2,5>
 * reaches every Z record, where a leg from a moved start at the record walks
 * nothing and lifts nothing and keeps its start (a run that dropped it
 * never ended: its format stayed short of its record). */
Test(search_z_cli, via_f2_walks_over_gf2_and_lifts, .timeout = 150)
{
    const unsigned long long g_seed = (unsigned long long)tc_seed();
    char d[64], args[4400], path[128];
    tc_temp_dir(d, sizeof d, "fg-test-search-z");
    snprintf(path, sizeof path, "%s/v.db", d);
    snprintf(args, sizeof args,
             "search --ring z --via-f2 10s --dims 3x3x3 --target-rank 23 --time 60s --threads 1 --db '%s' "
             "--out '%s/o'",
             path, d);
    run_says(d, args, 0, (const char *[]){"best rank 23", NULL},
             (const char *[]){"over Z by GF(2)", "GF(2) improvements lifted to Z", NULL});
    int z, f2;
    check_lifts_ex(path, true, &z, &f2);
    cr_assert(z >= 1 && f2 >= z, "%d lifts of %d GF(2) schemes", z, f2);
    cr_assert_eq(z_best_at(path, (scheme_format){3, 3, 3}), 23);
    /* the lifting walk around a start that does not lift */
    char from[2048];
    snprintf(from, sizeof from, "%s/data/found/345-47-gf2-liftwalk.txt", getenv("FLIPGRAPH_SOURCE"));
    /* with one thread and with three (search_lift_walk_threads: the first
     * walk that lifts wins, the others stop) */
    for (int threads = 1; threads <= 3; threads += 2) {
        snprintf(path, sizeof path, "%s/w%d.db", d, threads);
        snprintf(args, sizeof args,
                 "search --ring z --via-f2 100s --from '%s' --target-rank 47 --threads %d --seed %llu --db '%s'",
                 from, threads, g_seed, path);
        run_says(d, args, 0, (const char *[]){"best rank 47", NULL},
                 (const char *[]){"0 of 1 GF(2) improvements lifted to Z",
                                  "the lifting walk around a GF(2) scheme of rank 47", "one lifted", NULL});
        check_lifts_ex(path, true, &z, &f2);
        cr_assert(z == 1 && f2 == 1, "the lifting walk, %d threads: %d lifts of %d GF(2) schemes", threads, z, f2);
        cr_assert_eq(z_best_at(path, (scheme_format){3, 4, 5}), 47);
    }
    /* without --ring z there is nothing to lift to */
    run_says(d, "search --via-f2 10s --dims 2x2x2 --time 1s", 2, NULL, (const char *[]){"give --ring z", NULL});
    /* the meta search: every leg by GF(2), moved starts at the record kept */
    snprintf(path, sizeof path, "%s/m.db", d);
    snprintf(args, sizeof args,
             "search --meta --ring z --via-f2 5s --dims-range 2x2x2..2x2x5 --until-record --time 60s "
             "--threads 1 --seed %llu --db '%s'",
             g_seed, path);
    run_says(d, args, 0, (const char *[]){"4 of 4 formats at their record", NULL}, NULL);
    for (int p = 2; p <= 5; p++) {
        const scheme_format f = {2, 2, p};
        cr_assert_eq(z_best_at(path, f), search_record_rank_z(f), "<2,2,%d>", p);
    }
    snprintf(args, sizeof args, "db check --db '%s'", path); /* every stored scheme verifies */
    cr_assert_eq(run(d, args), 0, "%s", args);
    /* and the sweep's formats, each from the standard algorithm */
    snprintf(path, sizeof path, "%s/s.db", d);
    snprintf(args, sizeof args,
             "sweep --ring z --via-f2 5s --dims-list 2x2x2..2x2x3 --until-record --time-per 30s --threads 1 "
             "--progress 0 --db '%s'",
             path);
    run_says(d, args, 0, (const char *[]){"record reached", NULL}, NULL);
    check_lifts_ex(path, true, &z, &f2);
    cr_assert(z >= 2 && f2 >= z, "sweep: %d lifts of %d GF(2) schemes", z, f2);
    tc_remove_tree(d);
}

/* sweep --ring z: every format walks over Z, against the records' z column,
 * and stores integer schemes (a tiny range on the CPU, until the record) */
Test(search_z_cli, sweep_over_z_reaches_the_z_records_and_stores_them, .timeout = 150)
{
    char d[64], args[4400], path[128];
    tc_temp_dir(d, sizeof d, "fg-test-search-z");
    snprintf(path, sizeof path, "%s/sweep.db", d);
    snprintf(args, sizeof args,
             "sweep --dims-list 2x2x2..2x2x3 --ring z --until-record --time-per 60s --backend cpu --threads 1 "
             "--seed 3 --progress 0 --db '%s'",
             path);
    cr_assert_eq(run(d, args), 0);
    char *out = slurp(d, "out");
    cr_assert(strstr(out, "over Z (|coefficients| <= 1"), "%s", out);
    cr_assert(strstr(out, "the z column"), "%s", out);
    /* the table's rows: <2,2,2> and <2,2,3> at their Z records, read from the table */
    const scheme_format fmts[2] = {{2, 2, 2}, {2, 2, 3}};
    for (int i = 0; i < 2; i++) {
        char fb[32], row[64];
        snprintf(row, sizeof row, "\n%-10s", scheme_format_str(fmts[i], fb));
        const char *at = strstr(out, row);
        cr_assert_not_null(at, "no row for %s: %s", fb, out);
        int start = 0, best = 0, record = 0;
        cr_assert_eq(sscanf(at + 1 + strlen(fb), "%d %d %d", &start, &best, &record), 3, "%s", at);
        cr_assert_eq(record, search_record_rank_z(fmts[i]), "%s", at);
        cr_assert_eq(best, record, "%s", at);
        cr_assert(strstr(at, "record reached"), "%s", at);
    }
    free(out);
    /* what the sweep stored is over Z and verifies there */
    cr_assert_gt(tc_stored_z_verify_at(path, 0), 0);
    /* --meta over Z: each format starts from its neighbours' integer bests */
    snprintf(path, sizeof path, "%s/zm.db", d);
    snprintf(args, sizeof args,
             "sweep --dims-list 2x2x2..2x3x3 --ring z --meta --backend cpu --threads 1 --until-record "
             "--time-per 60s --db '%s'",
             path);
    cr_assert_eq(run(d, args), 0);
    char *mo = slurp(d, "out");
    cr_assert(strstr(mo, "meta starts") && strstr(mo, "<2,2,2>'s best"), "%s", mo);
    free(mo);
    cr_assert_gt(tc_stored_z_verify_at(path, 1), 0);
    /* bad usage: a symmetric walk over Z lifts, --coef-max does not apply */
    run_says(d, "sweep --dims-list 2x2x2 --ring z --symmetry c3 --coef-max 2 --backend cpu", 2, NULL,
             (const char *[]){"walks over GF(2) and lifts", NULL});
    tc_remove_tree(d);
}

/* The walks over Z have defaults of their own (search/params.c), per backend:
 * on the GPU a plateau of 200000 steps (the GF(2) warp walk's is 500) and walks
 * of 1e6, on the CPU a fixed plateau of 200000 flips and walks of 1e7 (the
 * GF(2) CPU walk's: 20000 in 2000..200000, 1000); the GF(2) walks, the walks
 * over Z by GF(2) (--via-f2) and the symmetric ones keep theirs, and a given
 * row wins. */
Test(search_z_params, the_walks_over_z_have_their_own_defaults)
{
    char err[512];
    search_config c;
    search_config_default(&c);
    c.p.ring = SCHEME_RING_Z;
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.plateau, 200000u);
    cr_assert_eq(c.p.walk_len, 1000000u);
    search_config_default(&c);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.plateau, 500u, "GF(2) on the GPU: the warp walk's plateau");
    cr_assert_eq(c.p.walk_len, 1000000u);
    search_config_default(&c);
    c.p.ring = SCHEME_RING_Z;
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.plateau, 200000u, "Z on the CPU: its own plateau");
    cr_assert_eq(c.p.plateau_min, 200000u, "fixed");
    cr_assert_eq(c.p.plateau_max, 200000u, "fixed");
    cr_assert_eq(c.p.walk_len, 10000000u);
    cr_assert(search_config_z_own(&c, SEARCH_BACKEND_CPU));
    search_config_default(&c);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.plateau, 20000u, "GF(2) on the CPU keeps the CPU walker's plateau");
    cr_assert_eq(c.p.plateau_min, 2000u);
    cr_assert_eq(c.p.walk_len, 1000u);
    cr_assert(!search_config_z_own(&c, SEARCH_BACKEND_CPU));
    search_config_default(&c);
    c.p.ring = SCHEME_RING_Z;
    cr_assert(search_config_set(&c, SEARCH_PARAM_VIA_F2, "10s", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.plateau, 20000u, "--via-f2 walks over GF(2): the GF(2) walk's plateau");
    cr_assert_eq(c.p.walk_len, 1000u);
    search_config_default(&c);
    c.p.ring = SCHEME_RING_Z;
    c.p.symmetry = SCHEME_SYM_C3;
    c.p.fmt = (scheme_format){4, 4, 4};
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.plateau, 17000u, "a symmetric walk over Z: the symmetric walk's own");
    search_config_default(&c);
    c.p.ring = SCHEME_RING_Z;
    cr_assert(search_config_set(&c, SEARCH_PARAM_WALK_LEN, "5000", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_PLATEAU, "3000", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.walk_len, 5000u, "a given row wins on the CPU");
    cr_assert_eq(c.p.plateau, 3000u);
    cr_assert_eq(c.p.plateau_min, 3000u, "the bound follows a given plateau below it");
    search_config_default(&c);
    c.p.ring = SCHEME_RING_Z;
    cr_assert(search_config_set(&c, SEARCH_PARAM_WALK_MAX, "5000", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.walk_len, 5000u, "the default walk length stays within a given walk-max");
    search_config_default(&c);
    c.p.ring = SCHEME_RING_Z;
    cr_assert(search_config_set(&c, SEARCH_PARAM_WALK_MAX, "5000", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_WALK_LEN, "9000", err, sizeof err), "%s", err);
    cr_assert_not(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "given walk lengths that conflict");
    search_config_default(&c);
    c.p.ring = SCHEME_RING_Z;
    cr_assert(search_config_set(&c, SEARCH_PARAM_PLATEAU, "777", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.plateau, 777u, "a given row wins");
    cr_assert_eq(c.p.walk_len, 1000000u);
}

/* sweep --ring z --lift K: the GF(2) results in the store are lifted to Z
 * first (stored with source lift and their GF(2) parent, every one verified
 * over Z), and the walk starts from the best Z scheme; a lift at the record
 * ends the format without a walk.  Refused without --ring z or --db. */
Test(search_z_cli, sweep_lifts_the_stores_gf2_schemes, .timeout = 200)
{
    char d[64], args[4400], path[128];
    tc_temp_dir(d, sizeof d, "fg-test-search-z");
    snprintf(path, sizeof path, "%s/lift.db", d);
    snprintf(args, sizeof args, "search --dims 2x2x3 --target-rank 11 --threads 1 --seed 2 --time 60s -q --db '%s'",
             path);
    cr_assert_eq(run(d, args), 0);
    snprintf(args, sizeof args, "search --dims 3x3x3 --target-rank 23 --threads 1 --seed 2 --time 120s -q --db '%s'",
             path);
    cr_assert_eq(run(d, args), 0);
    snprintf(args, sizeof args,
             "sweep --dims-list 2x2x3,3x3x3 --ring z --lift 8 --until-record --time-per 120s --backend cpu "
             "--threads 1 --seed 3 --progress 0 --db '%s'",
             path);
    cr_assert_eq(run(d, args), 0);
    char *out = slurp(d, "out");
    cr_assert(strstr(out, "lowest GF(2) schemes lifted to Z") || strstr(out, "lowest GF(2) scheme lifted to Z"),
              "%s", out);
    cr_assert(strstr(out, "\n<2,2,3>") && strstr(out, "\n<3,3,3>"), "%s", out);
    free(out);
    char err[512];
    db_status st;
    db *store = db_open(path, false, &st, err, sizeof err);
    cr_assert_not_null(store, "%s", err);
    int nz = 0, nlift = 0;
    for (int64_t id = 1;; id++) {
        db_scheme_row row;
        if (db_scheme_info(store, id, &row, err, sizeof err) != DB_OK)
            break;
        if (row.ring != SCHEME_RING_Z)
            continue;
        scheme *s = db_load_scheme(store, id, &st, err, sizeof err);
        cr_assert_not_null(s, "%s", err);
        verify_result vr;
        cr_assert(verify_z(s, &vr), "scheme %lld: %s", (long long)id, vr.msg);
        nz++;
        if (!strcmp(row.source, "lift")) {
            nlift++;
            db_scheme_row parent;
            cr_assert_eq(db_scheme_info(store, row.parent_id, &parent, err, sizeof err), DB_OK, "%s", err);
            cr_assert_eq(parent.ring, SCHEME_RING_F2, "a lift's parent is its GF(2) scheme");
            cr_assert_eq(parent.rank, row.rank);
        }
        scheme_free(s);
    }
    cr_assert_gt(nlift, 0, "no lift stored");
    int64_t id;
    int rank;
    cr_assert_eq(db_best(store, (scheme_format){2, 2, 3}, SCHEME_RING_Z, &id, &rank, err, sizeof err), DB_OK);
    cr_assert_eq(rank, 11);
    cr_assert_eq(db_best(store, (scheme_format){3, 3, 3}, SCHEME_RING_Z, &id, &rank, err, sizeof err), DB_OK);
    cr_assert_eq(rank, 23);
    db_close(store);
    cr_assert_eq(run(d, "sweep --dims-list 2x2x2 --lift 2 --db x.db --backend cpu"), 2);
    char *e = slurp(d, "err");
    cr_assert(strstr(e, "--lift"), "%s", e);
    free(e);
    cr_assert_eq(run(d, "sweep --dims-list 2x2x2 --ring z --lift 2 --backend cpu"), 2);
    cr_assert_eq(run(d, "sweep --dims-list 2x2x2 --ring z --lift 0 --db x.db --backend cpu"), 2);
    tc_remove_tree(d);
}

/* --from-db over Z, and the meta search's pools over Z, take the lowest
 * stored schemes within --coef-max: a
 * Strassen with a coefficient 2 (a unimodular change of basis, P = [1 2; 0 1]
 * on dimension n: a -> P a, c -> c P^-1) is below the standard algorithm, but
 * outside --coef-max 1. */
Test(search_z_cli, from_db_over_z_keeps_to_the_coefficient_bound, .timeout = 60)
{
    char d[64], args[4400], path[128], err[512];
    tc_temp_dir(d, sizeof d, "fg-test-search-z");
    snprintf(path, sizeof path, "%s/b.db", d);
    scheme *st7 = rt_scheme_builtin("strassen", err, sizeof err);
    cr_assert_not_null(st7, "%s", err);
    scheme *tw = scheme_new(st7->fmt, SCHEME_RING_Z, st7->rank);
    for (int r = 0; r < st7->rank; r++) {
        scheme_zterm t = st7->zterms[r], u = t;
        for (int j = 0; j < 2; j++) /* a: 2 x 2, entry i*2+j; row 0 += 2 row 1 */
            u.z[0][j] = (int8_t)(t.z[0][j] + 2 * t.z[0][2 + j]);
        for (int k = 0; k < 2; k++) /* c: 2 x 2, entry k*2+i; column 1 -= 2 column 0 */
            u.z[2][k * 2 + 1] = (int8_t)(t.z[2][k * 2 + 1] - 2 * t.z[2][k * 2]);
        cr_assert(scheme_push_z(tw, &u));
    }
    verify_result vr;
    cr_assert(verify_z(tw, &vr), "the changed Strassen: %s", vr.msg);
    cr_assert_geq(search_z_max_coef(tw), 2);
    scheme *std8f2 = scheme_standard((scheme_format){2, 2, 2});
    scheme *std8 = search_z_copy(std8f2);
    scheme_free(std8f2);
    db_status st;
    db *store = db_open(path, true, &st, err, sizeof err);
    cr_assert_not_null(store, "%s", err);
    int64_t id;
    bool existed;
    const db_provenance prov = {0, 0, "test", 0, 0};
    cr_assert_eq(db_insert_scheme(store, tw, &prov, &id, &existed, err, sizeof err), DB_OK, "%s", err);
    cr_assert_eq(db_insert_scheme(store, std8, &prov, &id, &existed, err, sizeof err), DB_OK, "%s", err);
    db_close(store);
    snprintf(args, sizeof args,
             "search --ring z --dims 2x2x2 --from-db --db '%s' --backend cpu --threads 1 --max-flips 1 -v", path);
    run(d, args);
    char *e = slurp(d, "err");
    cr_assert(strstr(e, "start rank 8"), "--coef-max 1 takes the standard algorithm: %s", e);
    free(e);
    snprintf(args, sizeof args,
             "search --ring z --dims 2x2x2 --from-db --db '%s' --backend cpu --threads 1 --max-flips 1 -v "
             "--coef-max 3",
             path);
    run(d, args);
    e = slurp(d, "err");
    cr_assert(strstr(e, "start rank 7"), "--coef-max 3 takes the changed Strassen: %s", e);
    free(e);
    /* the meta search's pools likewise: within --coef-max 3 the stored 7 is
     * the record already (no leg); within 1 the pool holds the 8 only, and
     * the 7 beyond the bound counts for the record (held, marked *), so no
     * leg either; with --meta-fresh the store is not read and one leg walks */
    snprintf(args, sizeof args,
             "search --meta --ring z --dims-range 2x2x2..2x2x2 --until-record --db '%s' --threads 1 --time 60s "
             "--coef-max 3",
             path);
    cr_assert_eq(run(d, args), 0);
    e = slurp(d, "out");
    cr_assert(strstr(e, "meta search: 0 legs"), "--coef-max 3: %s", e);
    free(e);
    snprintf(args, sizeof args,
             "search --meta --ring z --dims-range 2x2x2..2x2x2 --until-record --db '%s' --threads 1 --time 60s", path);
    cr_assert_eq(run(d, args), 0);
    e = slurp(d, "out");
    cr_assert(strstr(e, "meta search: 0 legs") && strstr(e, "; 1 schemes from the store") && strstr(e, " 7* ") &&
                  strstr(e, "beyond --coef-max 1"),
              "--coef-max 1: %s", e);
    free(e);
    snprintf(args, sizeof args,
             "search --meta --ring z --dims-range 2x2x2..2x2x2 --until-record --db '%s' --threads 1 --time 60s "
             "--meta-fresh",
             path);
    cr_assert_eq(run(d, args), 0);
    e = slurp(d, "out");
    cr_assert(strstr(e, "meta search: 1 legs") && !strstr(e, "from the store") && !strstr(e, "*"), "--meta-fresh: %s", e);
    free(e);
    /* a store whose only scheme is beyond --coef-max: the CPU walk starts from
     * it anyway (its moves keep to the bound), the GPU walk cannot pack it, so
     * the strict pick finds none and the caller starts from the standard
     * algorithm (a device sweep whose lifts all held a 4 failed otherwise) */
    snprintf(path, sizeof path, "%s/only2.db", d);
    store = db_open(path, true, &st, err, sizeof err);
    cr_assert_not_null(store, "%s", err);
    cr_assert_eq(db_insert_scheme(store, tw, &prov, &id, &existed, err, sizeof err), DB_OK, "%s", err);
    db_close(store);
    search_session *ss = session_open(path, &st, err, sizeof err);
    cr_assert_not_null(ss, "%s", err);
    scheme *got = NULL;
    cr_assert_eq(session_best_start(ss, tw->fmt, SCHEME_RING_Z, 1, false, &got, err, sizeof err), DB_OK, "%s", err);
    cr_assert(got && got->rank == 7 && search_z_max_coef(got) >= 2, "not strict: the changed Strassen");
    scheme_free(got);
    got = NULL;
    cr_assert_eq(session_best_start(ss, tw->fmt, SCHEME_RING_Z, 1, true, &got, err, sizeof err), DB_NOT_FOUND);
    cr_assert_null(got);
    cr_assert_eq(session_best_start(ss, tw->fmt, SCHEME_RING_Z, 3, true, &got, err, sizeof err), DB_OK, "%s", err);
    cr_assert(got && got->rank == 7, "strict within --coef-max 3: the changed Strassen");
    scheme_free(got);
    session_close(ss);
    scheme_free(std8);
    scheme_free(tw);
    scheme_free(st7);
    tc_remove_tree(d);
}

/* The lifting walk (sweep --lift-walk, session_lift_walk; lift --walk,
 * search_lift_walk): data/found's
 * GF(2) <3,4,5>:47 does not lift (proved mod 4), but its neighbours at rank
 * 47 do (about one in eight of them measured): the sweep reaches the Z record
 * from it, and stores the GF(2) scheme that lifted (source lift-walk, parent
 * the start) and its lift (source lift, parent that scheme, its reduction mod
 * 2 that scheme). */
Test(search_z_cli, lifting_walk_reaches_the_z_record_from_a_scheme_that_does_not_lift, .timeout = 600)
{
    char d[64], args[8800], path[128], file[4200], err[512];
    tc_temp_dir(d, sizeof d, "fg-test-search-z");
    snprintf(path, sizeof path, "%s/w.db", d);
    const char *src = getenv("FLIPGRAPH_SOURCE");
    cr_assert(src && *src, "FLIPGRAPH_SOURCE is not set (ctest sets it)");
    snprintf(file, sizeof file, "%s/data/found/345-47-gf2-liftwalk.txt", src);
    scheme *g = tc_read_or_die(file);
    cr_assert_eq(g->rank, 47);
    verify_lift_result lr;
    scheme *none = verify_lift(g, &lr);
    cr_assert_null(none, "the fixture lifts after all: %s", lr.msg);
    cr_assert_eq(lr.status, VERIFY_LIFT_NONE, "%s", lr.msg);
    db_status st;
    db *store = db_open(path, true, &st, err, sizeof err);
    cr_assert_not_null(store, "%s", err);
    int64_t start_id;
    bool existed;
    const db_provenance prov = {0, 0, "test", 0, 0};
    cr_assert_eq(db_insert_scheme(store, g, &prov, &start_id, &existed, err, sizeof err), DB_OK, "%s", err);
    db_close(store);
    /* the lifts alone stop above the record; the walk reaches it */
    snprintf(args, sizeof args,
             "sweep --dims-list 3x4x5 --ring z --lift 1 --lift-walk 300s --db '%s' --until-record --time-per 5s "
             "--threads 1 --seed %llu",
             path, (unsigned long long)tc_seed());
    cr_assert_eq(run(d, args), 0);
    char *out = slurp(d, "out");
    cr_assert(strstr(out, "0 of the store's 1 lowest GF(2) scheme lifted") &&
                  strstr(out, "one lifted: rank 47 over Z") && strstr(out, "record reached"),
              "%s", out);
    free(out);
    store = db_open(path, false, &st, err, sizeof err);
    cr_assert_not_null(store, "%s", err);
    int found = 0;
    for (int64_t id = 1;; id++) {
        db_scheme_row row;
        scheme *s = db_load_scheme(store, id, &st, err, sizeof err);
        if (!s)
            break;
        cr_assert_eq(db_scheme_info(store, id, &row, err, sizeof err), DB_OK, "%s", err);
        if (s->ring == SCHEME_RING_Z) {
            verify_result vr;
            cr_assert(verify_z(s, &vr) && s->rank == 47 && !strcmp(row.source, "lift"), "row %lld: %s",
                      (long long)id, vr.msg);
            db_scheme_row prow;
            cr_assert_eq(db_scheme_info(store, row.parent_id, &prow, err, sizeof err), DB_OK, "%s", err);
            cr_assert_str_eq(prow.source, "lift-walk");
            cr_assert_eq(prow.parent_id, start_id);
            scheme *parent = db_load_scheme(store, row.parent_id, &st, err, sizeof err), *mod2 = scheme_to_f2(s);
            cr_assert(parent && scheme_equal(parent, mod2), "the lift's reduction mod 2 is not its parent");
            scheme_free(parent);
            scheme_free(mod2);
            found++;
        }
        scheme_free(s);
    }
    db_close(store);
    cr_assert_eq(found, 1);
    /* bad usage */
    cr_assert_eq(run(d, "sweep --dims-list 3x4x5 --ring z --lift-walk 10s --db x.db"), 2);
    char *e = slurp(d, "err");
    cr_assert(strstr(e, "--lift K"), "%s", e);
    free(e);
    cr_assert_eq(run(d, "sweep --dims-list 3x4x5 --ring z --lift 1 --lift-walk 0s --db x.db"), 2);

    /* flipgraph lift FILE --walk T: the same for one file.  Without --walk:
     * exit 1; with it the lift is written and stored after the walk's GF(2)
     * scheme (source lift-walk, parent the imported file) */
    char lpath[128];
    snprintf(lpath, sizeof lpath, "%s/l.db", d);
    snprintf(args, sizeof args, "lift '%s' -o '%s/none.txt'", file, d);
    cr_assert_eq(run(d, args), 1);
    snprintf(args, sizeof args, "%s/none.txt", d);
    cr_assert(!tc_exists(args), "a failed lift wrote its output");
    snprintf(args, sizeof args, "lift '%s' --walk 300s --db '%s' -o '%s/l47.txt'", file, lpath, d);
    cr_assert_eq(run(d, args), 0);
    char *le = slurp(d, "err");
    cr_assert(strstr(le, "walking its neighbours at rank 47") && strstr(le, "a neighbour of rank 47 lifted"), "%s",
              le);
    free(le);
    snprintf(args, sizeof args, "%s/l47.txt", d);
    scheme *l47 = tc_read_or_die(args);
    verify_result lvr;
    cr_assert(l47->ring == SCHEME_RING_Z && l47->rank == 47 && verify_z(l47, &lvr), "%s", lvr.msg);
    store = db_open(lpath, false, &st, err, sizeof err);
    cr_assert_not_null(store, "%s", err);
    db_scheme_row r1, r2, r3;
    cr_assert_eq(db_scheme_info(store, 1, &r1, err, sizeof err), DB_OK, "%s", err);
    cr_assert_eq(db_scheme_info(store, 2, &r2, err, sizeof err), DB_OK, "%s", err);
    cr_assert_eq(db_scheme_info(store, 3, &r3, err, sizeof err), DB_OK, "%s", err);
    cr_assert(!strncmp(r1.source, "import:", 7) && r1.ring == SCHEME_RING_F2, "%s", r1.source);
    cr_assert(!strcmp(r2.source, "lift-walk") && r2.parent_id == 1 && r2.ring == SCHEME_RING_F2, "%s", r2.source);
    cr_assert(!strcmp(r3.source, "lift") && r3.parent_id == 2 && r3.ring == SCHEME_RING_Z, "%s", r3.source);
    scheme *z3 = db_load_scheme(store, 3, &st, err, sizeof err);
    cr_assert(z3 && scheme_equal(z3, l47), "the stored lift is not the one written");
    scheme_free(z3);
    db_close(store);
    scheme_free(l47);
    /* a GF(2) scheme without an integer version: the walk finds none, exit 1 */
    snprintf(args, sizeof args, "lift '%s' --walk 1s -o '%s/none.txt'", tc_corpus("kauers-moosbauer/444-47-mod2.exp"),
             d);
    cr_assert_eq(run(d, args), 1);
    le = slurp(d, "err");
    cr_assert(strstr(le, "no neighbour lifted either"), "%s", le);
    free(le);
    cr_assert_eq(run(d, "lift x.txt --walk 0s"), 2);
    /* --threads N: N walks at once, the first lift written, valid over Z and
     * of the file's rank; a count out of range is refused */
    snprintf(args, sizeof args, "lift '%s' --walk 300s --threads 3 -o '%s/t47.txt'", file, d);
    cr_assert_eq(run(d, args), 0);
    snprintf(args, sizeof args, "%s/t47.txt", d);
    scheme *t47 = tc_read_or_die(args);
    cr_assert(t47->ring == SCHEME_RING_Z && t47->rank == 47 && verify_z(t47, &lvr), "%s", lvr.msg);
    scheme_free(t47);
    snprintf(args, sizeof args, "lift '%s' --walk 1s --threads 65", file);
    run_says(d, args, 2, NULL, (const char *[]){"--threads '65': expected 1..64", NULL});
    scheme_free(g);
    tc_remove_tree(d);
}

/* lift --survey: the lifts among a scheme's neighbours go by region.
 * data/found's Z <4,4,5>:62 (a lift of a GF(2) scheme of our GPU meta search):
 * every one of its mod-2 neighbours met at rank 62 lifted (16112 of 16112 in
 * 60 s); the GF(2) <4,4,5>:61 (run 8 of the same search): none did (0 of
 * 7315).  The test asserts the halves: at least half lift from the one,
 * fewer than half from the other, and the counts are the lifts' (the survey
 * lifts nothing: not with --walk; its -o is test_verify's). */
Test(search_z_cli, survey_counts_the_lifts_among_the_neighbours, .timeout = 300)
{
    char d[64], args[4400], file[4200];
    tc_temp_dir(d, sizeof d, "fg-test-search-z");
    const char *src = getenv("FLIPGRAPH_SOURCE");
    cr_assert(src && *src, "FLIPGRAPH_SOURCE is not set (ctest sets it)");
    const char *names[2] = {"445-62-z-lift.txt", "445-61-gf2.txt"};
    for (int k = 0; k < 2; k++) {
        snprintf(file, sizeof file, "%s/data/found/%s", src, names[k]);
        snprintf(args, sizeof args, "lift '%s' --survey 5s --seed %llu", file,
                 (unsigned long long)tc_seed());
        cr_assert_eq(run(d, args), 0, "%s: no scheme met in 5 s", names[k]);
        char *out = slurp(d, "out");
        const char *at = strstr(out, "distinct GF(2) schemes");
        int met = -1, lifted = -1;
        cr_assert(at && sscanf(strstr(out, "> rank "), "> rank %*d: %d", &met) == 1, "%s", out);
        cr_assert(sscanf(strstr(at, "), ") + 3, "%d of them lift", &lifted) == 1, "%s", out);
        cr_assert(met > 0 && lifted >= 0 && lifted <= met, "%s", out);
        if (k == 0)
            cr_assert_geq(2 * lifted, met, "the Z scheme's neighbours: %s", out);
        else
            cr_assert_lt(2 * lifted, met, "the GF(2) 61's neighbours: %s", out);
        free(out);
    }
    /* it measures and lifts nothing */
    snprintf(args, sizeof args, "lift '%s' --survey 5s --walk 5s", file);
    cr_assert_eq(run(d, args), 2);
    snprintf(args, sizeof args, "lift '%s' --survey 0s", file);
    cr_assert_eq(run(d, args), 2);
    tc_remove_tree(d);
}
