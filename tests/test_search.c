/* Tests of search/: the moves, the walker's incremental index against the
 * plain reference, the driver (replay, searches that must succeed), records,
 * parameters, and the `flipgraph search` command.
 *
 * Randomized tests seed from /dev/urandom (or FLIPGRAPH_SEED, to replay) and
 * print the seed in every failure message.  Under FLIPGRAPH_SANITIZED=1 the
 * loops shrink. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "schemes/scheme.h"
#include "cuda/walk_bias.h"
#include "search/search.h"
#include "search/walk_gpu.h"
#include "verify/verify.h"
#include "test_common.h"

/* ---------------------------------------------------------------- helpers */

/* Valid over GF(2), checked by the bit-parallel verifier and, for small
 * schemes, by the triple-loop reference as well. */
static bool valid_terms(scheme_format f, const scheme_term *t, int rank, char *msg, size_t len)
{
    scheme *s = scheme_new(f, SCHEME_RING_F2, rank > 0 ? rank : 1);
    for (int r = 0; r < rank; r++)
        scheme_push(s, t[r].f[0], t[r].f[1], t[r].f[2]);
    verify_result vr;
    memset(&vr, 0, sizeof vr);
    bool ok = verify_f2(s, &vr);
    if (!ok)
        snprintf(msg, len, "%s", vr.msg);
    scheme_free(s);
    return ok;
}

static bool no_zero_factor(const scheme_term *t, int rank)
{
    for (int r = 0; r < rank; r++)
        if (!t[r].f[0] || !t[r].f[1] || !t[r].f[2])
            return false;
    return true;
}

static scheme_term *standard_terms(scheme_format f, int *rank, int cap)
{
    scheme *s = scheme_standard(f);
    cr_assert_not_null(s);
    scheme_term *t = calloc((size_t)cap, sizeof *t);
    memcpy(t, s->terms, sizeof *t * (size_t)s->rank);
    *rank = s->rank;
    scheme_free(s);
    return t;
}

static scheme *terms_scheme(scheme_format f, const scheme_term *t, int rank)
{
    scheme *s = scheme_new(f, SCHEME_RING_F2, rank > 0 ? rank : 1);
    for (int r = 0; r < rank; r++)
        scheme_push(s, t[r].f[0], t[r].f[1], t[r].f[2]);
    return s;
}

/* A random ordered pair sharing a factor: false when none. */
static bool random_flip_pair(const scheme_term *t, int rank, scheme_rng *rng, int *i, int *j, int *x)
{
    for (int tries = 0; tries < 2000; tries++) {
        int a = (int)scheme_rng_below(rng, (uint32_t)rank);
        int b = (int)scheme_rng_below(rng, (uint32_t)rank);
        int p = (int)scheme_rng_below(rng, 3);
        if (a != b && t[a].f[p] == t[b].f[p]) {
            *i = a, *j = b, *x = p;
            return true;
        }
    }
    return false;
}

static const scheme_format formats[] = {
    {1, 1, 1}, {1, 2, 3}, {2, 1, 2}, {2, 2, 2}, {2, 2, 3}, {2, 3, 2}, {3, 2, 2}, {2, 3, 4},
    {3, 3, 3}, {2, 4, 5}, {4, 4, 4}, {3, 4, 5}, {5, 5, 5}, {4, 4, 2}, {2, 2, 8}, {8, 8, 1},
};
#define NFORMATS (sizeof formats / sizeof *formats)

/* ------------------------------------------------------------ moves */

Test(search_moves, flip_matches_its_definition)
{
    scheme_term t[2] = {{{0x3, 0x5, 0x9}}, {{0x3, 0x6, 0xc}}};
    int rank = 2;
    cr_assert(search_flip(t, &rank, 0, 1, SCHEME_A));
    cr_assert_eq(rank, 2);
    /* (x, y0 + y1, z0), (x, y1, z1 + z0) */
    cr_assert_eq(t[0].f[0], 0x3);
    cr_assert_eq(t[0].f[1], 0x5 ^ 0x6);
    cr_assert_eq(t[0].f[2], 0x9);
    cr_assert_eq(t[1].f[1], 0x6);
    cr_assert_eq(t[1].f[2], 0xc ^ 0x9);
    /* no shared factor: refused, nothing changed */
    scheme_term u[2] = {{{1, 2, 4}}, {{2, 4, 8}}};
    rank = 2;
    cr_assert_not(search_flip(u, &rank, 0, 1, SCHEME_B));
    cr_assert_eq(u[0].f[1], 2);
}

Test(search_moves, every_move_keeps_the_tensor)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    int steps = tc_scaled(300);
    for (size_t fi = 0; fi < NFORMATS; fi++) {
        scheme_format f = formats[fi];
        int cap = f.n * f.m * f.p + 64;
        int rank;
        scheme_term *t = standard_terms(f, &rank, cap);
        char fb[32], msg[512];
        for (int step = 0; step < steps; step++) {
            int kind = (int)scheme_rng_below(&rng, 10);
            const char *what = "";
            int i, j, x;
            if (kind < 5 && random_flip_pair(t, rank, &rng, &i, &j, &x)) {
                what = "flip";
                cr_assert(search_flip(t, &rank, i, j, x));
            } else if (kind < 7 && rank >= 2 && rank < cap) {
                i = (int)scheme_rng_below(&rng, (uint32_t)rank);
                j = (int)scheme_rng_below(&rng, (uint32_t)rank);
                x = (int)scheme_rng_below(&rng, 3);
                bool shares = i == j || t[i].f[0] == t[j].f[0] || t[i].f[1] == t[j].f[1] ||
                              t[i].f[2] == t[j].f[2];
                what = "plus";
                cr_assert_eq(search_plus(t, &rank, cap, i, j, x), !shares,
                             "plus precondition (seed %llu)", (unsigned long long)seed);
            } else if (kind < 9 && random_flip_pair(t, rank, &rng, &i, &j, &x)) {
                /* generalized flip over up to five terms sharing t[i]'s factor at x */
                int idx[5], s = 0;
                for (int r = 0; r < rank && s < 5; r++)
                    if (t[r].f[x] == t[i].f[x])
                        idx[s++] = r;
                uint32_t G[5];
                for (;;) {
                    for (int a = 0; a < s; a++)
                        G[a] = (uint32_t)scheme_rng_below(&rng, 1u << s);
                    uint32_t inv[5];
                    if (search_gf2_inverse(G, s, inv))
                        break;
                }
                int y = (x + 1 + (int)scheme_rng_below(&rng, 2)) % 3;
                what = "generalized flip";
                cr_assert(search_gen_flip(t, &rank, idx, s, x, y, G));
            } else {
                what = "reduce all";
                int before = rank;
                int removed = search_reduce_all(t, &rank, 5);
                cr_assert_eq(before - rank, removed);
            }
            cr_assert(valid_terms(f, t, rank, msg, sizeof msg),
                      "%s: %s broke the scheme at step %d (seed %llu): %s",
                      scheme_format_str(f, fb), what, step, (unsigned long long)seed, msg);
            cr_assert(no_zero_factor(t, rank), "%s: %s left a zero factor (seed %llu)",
                      scheme_format_str(f, fb), what, (unsigned long long)seed);
        }
        free(t);
    }
}

Test(search_moves, the_flip_is_the_generalized_flip_with_an_elementary_matrix)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    scheme_format f = {3, 3, 3};
    int rank;
    scheme_term *t = standard_terms(f, &rank, 64);
    for (int k = 0; k < tc_scaled(200); k++) {
        int i, j, x;
        cr_assert(random_flip_pair(t, rank, &rng, &i, &j, &x));
        scheme_term a[64], b[64];
        memcpy(a, t, sizeof a);
        memcpy(b, t, sizeof b);
        int ra = rank, rb = rank;
        search_flip(a, &ra, i, j, x);
        int idx[2] = {i, j};
        uint32_t G[2] = {3, 2}; /* y_i += y_j; then z_j += z_i */
        search_gen_flip(b, &rb, idx, 2, x, (x + 1) % 3, G);
        cr_assert_eq(ra, rb);
        cr_assert_eq(memcmp(a, b, sizeof(scheme_term) * (size_t)ra), 0,
                     "flip and generalized flip differ (seed %llu)", (unsigned long long)seed);
        memcpy(t, a, sizeof a);
        rank = ra;
        search_reduce_all(t, &rank, 5);
    }
    free(t);
}

Test(search_moves, reductions_lower_the_rank)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (size_t fi = 0; fi < NFORMATS; fi++) {
        scheme_format f = formats[fi];
        int cap = f.n * f.m * f.p + 8;
        char fb[32], msg[512];
        uint64_t mask[3];
        for (int p = 0; p < 3; p++) {
            int sz = scheme_factor_size(f, p);
            mask[p] = sz == 64 ? ~0ull : (1ull << sz) - 1;
        }
        if (scheme_factor_size(f, 2) < 2)
            continue; /* no second non-zero value to split with */
        /* a pair: (x, y, z) split into (x, y, z + w) + (x, y, w) */
        int rank;
        scheme_term *t = standard_terms(f, &rank, cap);
        int r = (int)scheme_rng_below(&rng, (uint32_t)rank);
        uint64_t w;
        do
            w = scheme_rng_next(&rng) & mask[2];
        while (!w || w == t[r].f[2]);
        t[rank] = t[r];
        t[rank].f[2] = w;
        t[r].f[2] ^= w;
        rank++;
        cr_assert(valid_terms(f, t, rank, msg, sizeof msg));
        search_reduction red;
        cr_assert(search_find_reduction(t, rank, 2, &red));
        cr_assert_eq(red.kind, 2);
        int before = rank;
        cr_assert(search_reduce_pair(t, &rank, red.idx[0], red.idx[1]));
        cr_assert_eq(rank, before - 1, "%s: pair reduction (seed %llu)", scheme_format_str(f, fb),
                     (unsigned long long)seed);
        cr_assert(valid_terms(f, t, rank, msg, sizeof msg));
        free(t);

        /* a dependent triple: + (x, y1, w) + (x, y2, w) + (x, y1 + y2, w), a zero sum */
        if (scheme_factor_size(f, 1) < 2)
            continue;
        t = standard_terms(f, &rank, cap);
        uint64_t x, y1, y2;
        do {
            x = scheme_rng_next(&rng) & mask[0];
            y1 = scheme_rng_next(&rng) & mask[1];
            y2 = scheme_rng_next(&rng) & mask[1];
            w = scheme_rng_next(&rng) & mask[2];
        } while (!x || !y1 || !y2 || !w || y1 == y2);
        scheme_term add[3] = {{{x, y1, w}}, {{x, y2, w}}, {{x, y1 ^ y2, w}}};
        for (int k = 0; k < 3; k++)
            t[rank++] = add[k];
        before = rank;
        search_reduce_all(t, &rank, 5);
        cr_assert_lt(rank, before, "%s: the zero-sum triple was not reduced (seed %llu)",
                      scheme_format_str(f, fb), (unsigned long long)seed);
        cr_assert(valid_terms(f, t, rank, msg, sizeof msg), "%s: %s (seed %llu)",
                  scheme_format_str(f, fb), msg, (unsigned long long)seed);
        cr_assert(no_zero_factor(t, rank));
        free(t);
    }
}

Test(search_moves, general_reduction_by_a_dependent_set)
{
    /* three terms sharing x, with y3 = y1 + y2 and independent z's */
    scheme_term t[3] = {{{1, 0x1, 0x10}}, {{1, 0x2, 0x20}}, {{1, 0x3, 0x40}}};
    int rank = 3;
    uint64_t v[3] = {t[0].f[1], t[1].f[1], t[2].f[1]};
    uint32_t sub = search_find_dependent(v, 3);
    cr_assert_eq(sub, 7);
    int idx[3] = {0, 1, 2};
    cr_assert(search_reduce_dependent(t, &rank, idx, 3, 0, 1, sub));
    cr_assert_eq(rank, 2);
    /* term 0 dropped, its z added to the others:
     * x(y1 z1 + y2 z2 + y3 z3) = x(y2 (z2 + z1) + y3 (z3 + z1)) since y1 = y2 + y3 */
    scheme_term want[2] = {{{1, 0x3, 0x50}}, {{1, 0x2, 0x30}}};
    for (int k = 0; k < 2; k++)
        for (int p = 0; p < 3; p++)
            cr_assert_eq(t[k].f[p], want[k].f[p]);
    /* a subset that does not sum to zero is refused */
    scheme_term u[3] = {{{1, 0x1, 0x10}}, {{1, 0x2, 0x20}}, {{1, 0x4, 0x40}}};
    rank = 3;
    cr_assert_not(search_reduce_dependent(u, &rank, idx, 3, 0, 1, 7));
    cr_assert_eq(rank, 3);
}

Test(search_moves, find_dependent_agrees_with_brute_force)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int k = 0; k < tc_scaled(20000); k++) {
        int s = 1 + (int)scheme_rng_below(&rng, 8);
        int bits = 1 + (int)scheme_rng_below(&rng, 6);
        uint64_t v[8];
        for (int i = 0; i < s; i++)
            v[i] = scheme_rng_next(&rng) & ((1ull << bits) - 1);
        bool dep = false;
        for (uint32_t m = 1; m < (1u << s) && !dep; m++) {
            uint64_t x = 0;
            for (int i = 0; i < s; i++)
                if (m >> i & 1)
                    x ^= v[i];
            dep = !x;
        }
        uint32_t sub = search_find_dependent(v, s);
        cr_assert_eq(sub != 0, dep, "dependence of %d vectors (seed %llu)", s, (unsigned long long)seed);
        if (sub) {
            uint64_t x = 0;
            for (int i = 0; i < s; i++)
                if (sub >> i & 1)
                    x ^= v[i];
            cr_assert_eq(x, 0, "the subset does not sum to zero (seed %llu)", (unsigned long long)seed);
        }
    }
}

Test(search_moves, find_dependent_is_the_elimination)
{
    /* the listed sums (s <= SEARCH_DEPENDENT_SPAN_MAX) against the elimination:
     * the same subset on fresh random sets, dependent ones made on purpose (a
     * vector set to the sum of a random subset of the ones before it), sizes
     * past the fast path's bound included */
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    int dependent = 0, fast = 0;
    for (int k = 0; k < tc_scaled(50000); k++) {
        int s = 1 + (int)scheme_rng_below(&rng, SEARCH_DEPENDENT_SPAN_MAX + 3);
        int bits = 1 + (int)scheme_rng_below(&rng, 40);
        uint64_t mask = (1ull << bits) - 1, v[SEARCH_DEPENDENT_SPAN_MAX + 3];
        for (int i = 0; i < s; i++)
            v[i] = scheme_rng_next(&rng) & mask;
        if (s > 1 && scheme_rng_below(&rng, 2)) {
            int at = 1 + (int)scheme_rng_below(&rng, (uint32_t)(s - 1));
            uint32_t m = scheme_rng_below(&rng, 1u << at);
            v[at] = 0;
            for (int i = 0; i < at; i++)
                if (m >> i & 1)
                    v[at] ^= v[i];
        }
        uint32_t want = search_find_dependent_ref(v, s), got = search_find_dependent(v, s);
        cr_assert_eq(got, want, "%d vectors of %d bits: 0x%x, the elimination 0x%x (seed %llu)", s, bits,
                     got, want, (unsigned long long)seed);
        dependent += want != 0;
        fast += s <= SEARCH_DEPENDENT_SPAN_MAX;
    }
    /* both answers and both roads were exercised */
    cr_assert_gt(dependent, tc_scaled(50000) / 4);
    cr_assert_lt(dependent, tc_scaled(50000));
    cr_assert_gt(fast, tc_scaled(50000) / 2);
}

/* The tensor of a term list as bits: entry (i, j, k) of the factors at a, b, c
 * at i * (|b| |c|) + j |c| + k; words as needed (at most 9 * 9 * 9 bits here). */
#define TENSOR_WORDS 16
static void term_tensor(scheme_format f, const scheme_term *t, int rank, uint64_t *T)
{
    int sa = scheme_factor_size(f, 0), sb = scheme_factor_size(f, 1), sc = scheme_factor_size(f, 2);
    cr_assert_leq(sa * sb * sc, TENSOR_WORDS * 64);
    memset(T, 0, sizeof(uint64_t) * TENSOR_WORDS);
    for (int r = 0; r < rank; r++)
        for (int i = 0; i < sa; i++)
            for (int j = 0; j < sb; j++)
                for (int k = 0; k < sc; k++)
                    if ((t[r].f[0] >> i & 1) && (t[r].f[1] >> j & 1) && (t[r].f[2] >> k & 1)) {
                        int bit = (i * sb + j) * sc + k;
                        T[bit / 64] ^= 1ull << (bit % 64);
                    }
}

/* The plain reference: is some nonempty subset of the products at the two
 * positions other than x zero?  Every subset tried, entry by entry. */
static bool flattening_dependent_ref(scheme_format f, const scheme_term *t, int rank, int x)
{
    int y = (x + 1) % 3, z = (x + 2) % 3;
    int sy = scheme_factor_size(f, y), sz = scheme_factor_size(f, z);
    for (uint32_t m = 1; m < (1u << rank); m++) {
        bool zero = true;
        for (int i = 0; i < sy && zero; i++)
            for (int j = 0; j < sz && zero; j++) {
                int bit = 0;
                for (int r = 0; r < rank; r++)
                    if (m >> r & 1)
                        bit ^= (int)((t[r].f[y] >> i & 1) & (t[r].f[z] >> j & 1));
                zero = !bit;
            }
        if (zero)
            return true;
    }
    return false;
}

/* rank terms of format f with random nonzero factors. */
static void random_terms(scheme_format f, scheme_term *t, int rank, scheme_rng *rng)
{
    for (int r = 0; r < rank; r++)
        for (int p = 0; p < 3; p++) {
            uint64_t mask = (1ull << scheme_factor_size(f, p)) - 1, w;
            do
                w = scheme_rng_next(rng) & mask;
            while (!w);
            t[r].f[p] = w;
        }
}

/* search_each_flattening visits every dependent row: the sets it names are
 * rank - (the products' rank) in number, and each sums to zero. */
typedef struct visit_sets {
    scheme_format f;
    const scheme_term *t;
    int x, sets;
    bool all_zero;
} visit_sets;

static bool count_set(void *ctx, const int *members, int count)
{
    visit_sets *v = ctx;
    int y = (v->x + 1) % 3, z = (v->x + 2) % 3;
    int sy = scheme_factor_size(v->f, y), sz = scheme_factor_size(v->f, z);
    for (int i = 0; i < sy; i++)
        for (int j = 0; j < sz; j++) {
            int bit = 0;
            for (int k = 0; k < count; k++)
                bit ^= (int)((v->t[members[k]].f[y] >> i & 1) & (v->t[members[k]].f[z] >> j & 1));
            v->all_zero &= !bit;
        }
    v->sets++;
    return false;
}

/* The products' rank by the plain reference: 2^rank distinct subset sums. */
static int products_rank_ref(scheme_format f, const scheme_term *t, int rank, int x)
{
    int y = (x + 1) % 3, z = (x + 2) % 3;
    int sy = scheme_factor_size(f, y), sz = scheme_factor_size(f, z);
    /* a subset's sum as a string of bits, at most 9 * 9 of them here */
    static unsigned char sums[1 << 12][81];
    int distinct = 0;
    for (uint32_t m = 0; m < (1u << rank); m++) {
        unsigned char cur[81] = {0};
        for (int i = 0; i < sy; i++)
            for (int j = 0; j < sz; j++)
                for (int r = 0; r < rank; r++)
                    if (m >> r & 1)
                        cur[i * sz + j] ^= (unsigned char)((t[r].f[y] >> i & 1) & (t[r].f[z] >> j & 1));
        bool seen = false;
        for (int d = 0; d < distinct && !seen; d++)
            seen = !memcmp(sums[d], cur, 81);
        if (!seen)
            memcpy(sums[distinct++], cur, 81);
    }
    int r = 0;
    while ((1 << r) < distinct)
        r++;
    return r;
}

Test(search_moves, each_flattening_names_every_dependent_row)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    static const scheme_format fs[] = {{2, 2, 2}, {2, 2, 3}, {1, 3, 3}, {3, 3, 1}};
    int dependent = 0;
    for (int k = 0; k < tc_scaled(300); k++) {
        scheme_format f = fs[scheme_rng_below(&rng, sizeof fs / sizeof *fs)];
        int rank = 1 + (int)scheme_rng_below(&rng, 10);
        scheme_term t[10];
        random_terms(f, t, rank, &rng);
        for (int x = 0; x < 3; x++) {
            visit_sets v = {f, t, x, 0, true};
            cr_assert_eq(search_each_flattening(f, t, rank, x, count_set, &v), 0);
            const int want = rank - products_rank_ref(f, t, rank, x);
            cr_assert_eq(v.sets, want, "%d sets named, %d dependent rows (seed %llu)", v.sets, want,
                         (unsigned long long)seed);
            cr_assert(v.all_zero, "a named set does not sum to zero (seed %llu)", (unsigned long long)seed);
            dependent += want > 0;
        }
    }
    cr_assert_gt(dependent, 0);
}

Test(search_moves, flattening_elimination_agrees_with_brute_force)
{
    /* random term lists of up to 12 terms with small factors, dependent products
     * planted in some (a term's y and z copied or summed from others'): the
     * finder answers as the subset enumeration does, at the first position that
     * has one, its members' products sum to zero; the elimination keeps the
     * tensor, leaves no zero factor and no dependent flattening */
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    static const scheme_format fs[] = {{2, 2, 2}, {2, 2, 3}, {2, 3, 2}, {3, 2, 2}, {1, 3, 3}, {3, 3, 1}};
    int found = 0, none = 0, removed_more = 0, trials = tc_scaled(3000);
    for (int k = 0; k < trials; k++) {
        scheme_format f = fs[scheme_rng_below(&rng, sizeof fs / sizeof *fs)];
        int rank = 1 + (int)scheme_rng_below(&rng, 12);
        scheme_term t[12];
        random_terms(f, t, rank, &rng);
        if (rank >= 2 && scheme_rng_below(&rng, 2)) {
            /* share one factor with another term, and often a second one too */
            int a = (int)scheme_rng_below(&rng, (uint32_t)rank), b = (int)scheme_rng_below(&rng, (uint32_t)rank);
            int p = (int)scheme_rng_below(&rng, 3);
            t[a].f[p] = t[b].f[p];
            if (scheme_rng_below(&rng, 2))
                t[a].f[(p + 1) % 3] = t[b].f[(p + 1) % 3];
        }
        int want_x = -1;
        for (int x = 0; x < 3 && want_x < 0; x++)
            if (flattening_dependent_ref(f, t, rank, x))
                want_x = x;
        int x = -1, members[12];
        int s = search_find_flattening(f, t, rank, &x, members);
        cr_assert_eq(s > 0, want_x >= 0, "dependence of %d terms (seed %llu)", rank, (unsigned long long)seed);
        if (s <= 0) {
            none++;
            continue;
        }
        found++;
        cr_assert_eq(x, want_x, "the first dependent position (seed %llu)", (unsigned long long)seed);
        for (int i = 1; i < s; i++)
            cr_assert_lt(members[i - 1], members[i]);
        {
            /* the members' products sum to zero */
            scheme_term sub[12];
            for (int i = 0; i < s; i++) {
                sub[i] = t[members[i]];
                sub[i].f[x] = 1; /* the same factor at x: the tensor is the flattening's sum */
            }
            scheme_format g = f;
            uint64_t T[TENSOR_WORDS], zero[TENSOR_WORDS] = {0};
            term_tensor(g, sub, s, T);
            cr_assert_arr_eq(T, zero, sizeof T, "the members' products do not cancel (seed %llu)",
                             (unsigned long long)seed);
        }
        uint64_t before[TENSOR_WORDS], after[TENSOR_WORDS];
        term_tensor(f, t, rank, before);
        scheme_term u[12];
        memcpy(u, t, sizeof u);
        int r2 = rank;
        int removed = search_reduce_flattening(f, t, &rank);
        cr_assert_gt(removed, 0);
        cr_assert_eq(removed, r2 - rank);
        term_tensor(f, t, rank, after);
        cr_assert_arr_eq(before, after, sizeof before, "the elimination changed the tensor (seed %llu)",
                         (unsigned long long)seed);
        cr_assert(no_zero_factor(t, rank));
        for (int p = 0; p < 3; p++)
            cr_assert_not(flattening_dependent_ref(f, t, rank, p),
                          "a dependent flattening left at %d (seed %llu)", p, (unsigned long long)seed);
        /* every reduction of search_reduce_all is a dependent flattening, so none is
         * left; greedy orders end apart, and the flattening often goes further */
        search_reduction red;
        cr_assert_not(search_find_reduction(t, rank, 32, &red), "(seed %llu)", (unsigned long long)seed);
        int r3 = r2;
        search_reduce_all(u, &r3, 32);
        removed_more += rank < r3;
    }
    /* both answers, and eliminations the shared-factor reductions miss, were seen */
    cr_assert_gt(found, trials / 10);
    cr_assert_gt(none, trials / 10);
    cr_assert_gt(removed_more, 0);
}

Test(search_moves, flattening_elimination_of_a_set_that_shares_no_common_factor)
{
    /* at b and c: x1 y1, x1 y2, x2 y1, x2 y2, (x1 + x2)(y1 + y2), which sum to zero;
     * the factors at a independent.  No two terms share two factors and no bucket
     * of terms sharing a factor has dependent factors: search_find_reduction sees
     * nothing; the flattening at a does, and the elimination leaves four terms
     * with the same tensor. */
    scheme_format f = {3, 3, 3};
    const uint64_t x1 = 0x001, x2 = 0x012, y1 = 0x100, y2 = 0x044;
    scheme_term t[5] = {{{0x001, x1, y1}}, {{0x002, x1, y2}}, {{0x004, x2, y1}}, {{0x008, x2, y2}},
                        {{0x010, x1 ^ x2, y1 ^ y2}}};
    int rank = 5;
    search_reduction red;
    cr_assert_not(search_find_reduction(t, rank, 32, &red));
    int x = -1, members[5];
    cr_assert_eq(search_find_flattening(f, t, rank, &x, members), 5);
    cr_assert_eq(x, 0);
    uint64_t before[TENSOR_WORDS], after[TENSOR_WORDS];
    term_tensor(f, t, rank, before);
    cr_assert_eq(search_reduce_flattening(f, t, &rank), 1);
    cr_assert_eq(rank, 4);
    term_tensor(f, t, rank, after);
    cr_assert_arr_eq(before, after, sizeof before);
    /* a valid scheme stays valid: the standard <3,3,3> plus the five terms plus
     * the four the elimination made (the same tensor, so the two cancel) is a
     * valid scheme of 36 terms; every flattening elimination keeps it valid, and
     * the standard algorithm's products are independent, so it ends at 27 or less */
    int srank;
    scheme_term *s = standard_terms(f, &srank, 40);
    scheme_term five[5] = {{{0x001, x1, y1}}, {{0x002, x1, y2}}, {{0x004, x2, y1}}, {{0x008, x2, y2}},
                           {{0x010, x1 ^ x2, y1 ^ y2}}};
    for (int i = 0; i < 5; i++)
        s[srank++] = five[i];
    for (int i = 0; i < 4; i++)
        s[srank++] = t[i];
    char msg[512];
    cr_assert_eq(srank, 36);
    cr_assert(valid_terms(f, s, srank, msg, sizeof msg), "%s", msg);
    int removed = search_reduce_flattening(f, s, &srank);
    cr_assert_geq(removed, 9);
    cr_assert_leq(srank, 27);
    cr_assert(valid_terms(f, s, srank, msg, sizeof msg), "%s", msg);
    cr_assert(no_zero_factor(s, srank));
    free(s);
}

Test(search_moves, gf2_inverse)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int k = 0; k < tc_scaled(2000); k++) {
        int s = 1 + (int)scheme_rng_below(&rng, 5);
        uint32_t G[5], inv[5];
        for (int i = 0; i < s; i++)
            G[i] = (uint32_t)scheme_rng_below(&rng, 1u << s);
        if (!search_gf2_inverse(G, s, inv))
            continue;
        for (int i = 0; i < s; i++) {
            uint32_t row = 0; /* (G inv)[i] */
            for (int j = 0; j < s; j++)
                if (G[i] >> j & 1)
                    row ^= inv[j];
            cr_assert_eq(row, 1u << i, "G * G^-1 is not I (seed %llu)", (unsigned long long)seed);
        }
    }
}

/* ------------------------------------------------------------ walker */

static search_params params_for(scheme_format f)
{
    search_params p;
    search_params_default(&p);
    p.fmt = f;
    return p;
}

Test(search_walker, index_agrees_with_the_reference_after_every_move)
{
    uint64_t seed = tc_seed();
    int steps = tc_scaled(400);
    for (size_t fi = 0; fi < NFORMATS; fi++) {
        scheme_format f = formats[fi];
        search_params p = params_for(f);
        p.plus_max = 3;
        scheme *s = scheme_standard(f);
        search_walker *w = search_walker_new(s, &p, seed + fi, 0);
        cr_assert_not_null(w);
        char fb[32], err[512];
        cr_assert(search_walker_check(w, err, sizeof err), "%s at start: %s (seed %llu)",
                  scheme_format_str(f, fb), err, (unsigned long long)seed);
        for (int k = 0; k < steps; k++) {
            bool plus = k % 17 == 16;
            if (plus)
                search_walker_plus(w);
            else if (!search_walker_flip(w))
                search_walker_plus(w);
            cr_assert(search_walker_check(w, err, sizeof err), "%s step %d (%s): %s (seed %llu)",
                      scheme_format_str(f, fb), k, plus ? "plus" : "flip", err,
                      (unsigned long long)seed);
            scheme *snap = search_walker_snapshot(w);
            verify_result vr;
            cr_assert(verify_f2(snap, &vr), "%s step %d: invalid scheme: %s (seed %llu)",
                      scheme_format_str(f, fb), k, vr.msg, (unsigned long long)seed);
            cr_assert(no_zero_factor(snap->terms, snap->rank));
            scheme_free(snap);
        }
        search_walker_free(w);
        scheme_free(s);
    }
}

/* The plain reference of the lookahead: some ordered flip (i, j, x) leaves a
 * pair of terms that shares two factors. */
static bool some_flip_reduces(const scheme_term *t, int rank)
{
    for (int x = 0; x < 3; x++)
        for (int i = 0; i < rank; i++)
            for (int j = 0; j < rank; j++) {
                if (i == j || t[i].f[x] != t[j].f[x])
                    continue;
                const int y = (x + 1) % 3, z = (x + 2) % 3;
                scheme_term ni = t[i], nj = t[j];
                ni.f[y] ^= t[j].f[y];
                nj.f[z] ^= t[i].f[z];
                if ((ni.f[0] == nj.f[0]) + (ni.f[1] == nj.f[1]) + (ni.f[2] == nj.f[2]) >= 2)
                    return true;
                for (int k = 0; k < rank; k++) {
                    if (k == i || k == j)
                        continue;
                    const scheme_term *o = &t[k];
                    if ((ni.f[0] == o->f[0]) + (ni.f[1] == o->f[1]) + (ni.f[2] == o->f[2]) >= 2 ||
                        (nj.f[0] == o->f[0]) + (nj.f[1] == o->f[1]) + (nj.f[2] == o->f[2]) >= 2)
                        return true;
                }
            }
    return false;
}

Test(search_walker, the_lookahead_takes_a_reduction_when_a_flip_makes_one)
{
    const uint64_t seed = tc_seed();
    const int steps = tc_scaled(300);
    uint64_t took = 0, none = 0;
    for (size_t fi = 0; fi < NFORMATS; fi++) {
        const scheme_format f = formats[fi];
        if (f.n * f.m * f.p > 64)
            continue; /* the reference is O(D rank) a step */
        search_params p = params_for(f);
        p.gen_max = 2; /* only pair reductions: a flip lowers the rank iff it makes one */
        p.lookahead = 1;
        scheme *s = scheme_standard(f);
        search_walker *w = search_walker_new(s, &p, seed + fi, 0);
        cr_assert_not_null(w);
        scheme_term *t = calloc(SCHEME_MAX_RANK, sizeof *t);
        char fb[32], err[512];
        for (int k = 0; k < steps; k++) {
            const int rank = search_walker_terms(w, t);
            const bool want = some_flip_reduces(t, rank);
            search_walker_stats st0, st1;
            search_walker_stats_get(w, &st0);
            if (!search_walker_flip(w)) {
                cr_assert(!want, "%s step %d: no flip, but the reference has one that reduces (seed %llu)",
                          scheme_format_str(f, fb), k, (unsigned long long)seed);
                search_walker_plus(w);
                continue;
            }
            search_walker_stats_get(w, &st1);
            cr_assert_eq(search_walker_rank(w) < rank, want,
                         "%s step %d: rank %d -> %d, the reference %s a flip that reduces (seed %llu)",
                         scheme_format_str(f, fb), k, rank, search_walker_rank(w), want ? "has" : "has no",
                         (unsigned long long)seed);
            cr_assert_eq(st1.lookahead - st0.lookahead, (uint64_t)want, "%s step %d (seed %llu)",
                         scheme_format_str(f, fb), k, (unsigned long long)seed);
            cr_assert(search_walker_check(w, err, sizeof err), "%s step %d: %s (seed %llu)", scheme_format_str(f, fb),
                      k, err, (unsigned long long)seed);
            took += want;
            none += !want;
            if (k % 7 == 6)
                search_walker_plus(w); /* new material for flips */
        }
        free(t);
        search_walker_free(w);
        scheme_free(s);
    }
    cr_assert(took && none, "the walks never met %s (seed %llu)", took ? "a scheme without one" : "a reducing flip",
              (unsigned long long)seed);
}

/* Every N-th flip looks: with N = 3 the lookahead chooses on at most a third. */
Test(search_walker, the_lookahead_looks_every_nth_flip)
{
    const uint64_t seed = tc_seed();
    search_params p = params_for((scheme_format){3, 3, 3});
    p.gen_max = 2;
    p.lookahead = 3;
    scheme *s = scheme_standard(p.fmt);
    search_walker *w = search_walker_new(s, &p, seed, 0);
    cr_assert_not_null(w);
    scheme_term t[SCHEME_MAX_RANK];
    int looked = 0, chose = 0;
    for (int k = 1; k <= tc_scaled(600); k++) {
        const int rank = search_walker_terms(w, t);
        const bool want = some_flip_reduces(t, rank);
        search_walker_stats st0, st1;
        search_walker_stats_get(w, &st0);
        if (!search_walker_flip(w)) {
            search_walker_plus(w);
            break;
        }
        search_walker_stats_get(w, &st1);
        const bool look = k % 3 == 0;
        cr_assert_eq(st1.lookahead - st0.lookahead, (uint64_t)(look && want), "flip %d (seed %llu)", k,
                     (unsigned long long)seed);
        if (look && want)
            cr_assert_lt(search_walker_rank(w), rank, "flip %d: the chosen flip did not reduce (seed %llu)", k,
                         (unsigned long long)seed);
        looked += look;
        chose += look && want;
        if (k % 5 == 4)
            search_walker_plus(w);
    }
    cr_assert(looked > 0 && chose > 0, "looked %d, chose %d (seed %llu)", looked, chose, (unsigned long long)seed);
    search_walker_free(w);
    scheme_free(s);
}

/* A scheme some way down from the standard algorithm (fewer flips than the
 * standard's, so that a plus transition's roads back are likely draws). */
static scheme *descended(scheme_format f, scheme_ring ring, uint64_t seed, uint64_t flips)
{
    search_params p = params_for(f);
    p.ring = ring;
    p.plus_max = 0;
    scheme *std = scheme_standard(f);
    scheme *start = ring == SCHEME_RING_Z ? search_z_copy(std) : scheme_clone(std);
    scheme_free(std);
    search_walker *w = search_walker_new(start, &p, seed, 0);
    cr_assert_not_null(w);
    search_walker_walk(w, flips, start->rank, 0);
    scheme *s = search_walker_snapshot(w);
    search_walker_free(w);
    scheme_free(start);
    return s;
}

/* Plus transitions from start, each followed by one flip: how many of those
 * flips restored the scheme before the plus (compared mod 2, which over Z a
 * sign moved between factors does not change). */
static int back_after_plus(const scheme *start, int tabu, uint64_t lookahead, int trials, uint64_t seed,
                           uint64_t *refused)
{
    search_params p = params_for(start->fmt);
    p.ring = start->ring;
    p.gen_max = 2;
    p.plus_tabu = tabu;
    p.lookahead = lookahead;
    search_walker *w = search_walker_new(start, &p, seed, 0);
    cr_assert_not_null(w);
    scheme *before = scheme_to_f2(start);
    int back = 0;
    for (int t = 0; t < trials; t++) {
        cr_assert(search_walker_reset(w, start));
        const int r0 = search_walker_rank(w);
        if (!search_walker_plus(w) || search_walker_rank(w) != r0 + 1)
            continue;
        search_walker_flip(w);
        if (search_walker_rank(w) != r0)
            continue;
        scheme *s = search_walker_snapshot(w), *s2 = scheme_to_f2(s);
        back += scheme_equal(s2, before);
        scheme_free(s2);
        scheme_free(s);
    }
    search_walker_stats st;
    search_walker_stats_get(w, &st);
    *refused = st.tabu;
    scheme_free(before);
    search_walker_free(w);
    return back;
}

/* After a plus transition two single flips lead straight back (docs/search.md,
 * "Why plus transitions come back"): without the tabu the next flip takes
 * one of them now and then, with it never, over GF(2) and over Z, and over
 * GF(2) with the lookahead too (the roads back are flips that reduce). */
Test(search_walker, the_plus_tabu_refuses_the_two_roads_back, .timeout = 120)
{
    const uint64_t seed = tc_seed();
    const int trials = tc_scaled(3000);
    for (int pass = 0; pass < 3; pass++) {
        const scheme_ring ring = pass == 1 ? SCHEME_RING_Z : SCHEME_RING_F2;
        const uint64_t lookahead = pass == 2 ? 1 : 0;
        scheme *start = descended((scheme_format){3, 3, 3}, ring, seed, 200000);
        uint64_t refused_off = 0, refused_on = 0;
        const int off = back_after_plus(start, 0, lookahead, trials, seed + 1, &refused_off);
        const int on = back_after_plus(start, 1, lookahead, trials, seed + 1, &refused_on);
        cr_assert_gt(off, 0,
                     "%s%s, rank %d: no flip after %d plus transitions went back without the tabu (seed %llu)",
                     scheme_ring_name(ring), lookahead ? " with the lookahead" : "", start->rank, trials,
                     (unsigned long long)seed);
        cr_assert_eq(on, 0, "%s%s, rank %d: %d flips went back with the tabu (seed %llu)", scheme_ring_name(ring),
                     lookahead ? " with the lookahead" : "", start->rank, on, (unsigned long long)seed);
        cr_assert_eq(refused_off, 0u);
        cr_assert_gt(refused_on, 0u, "the tabu refused no draw (seed %llu)", (unsigned long long)seed);
        scheme_free(start);
    }
}

/* A start some way down for the plus hold: the plain walk's descended
 * <3,3,3>, or a lazy symmetric walk's <4,4,4> from the default cubes. */
static scheme *hold_start(scheme_symmetry g, uint64_t seed)
{
    if (g == SCHEME_SYM_NONE)
        return descended((scheme_format){3, 3, 3}, SCHEME_RING_F2, seed, 200000);
    search_params p = params_for((scheme_format){4, 4, 4});
    p.symmetry = g;
    p.gen_max = 1;
    p.plus_max = 0;
    char err[256];
    search_cubes c = {0};
    scheme *start = search_symmetric_start(p.fmt, g, &c, err, sizeof err);
    cr_assert(start, "%s", err);
    search_walker *w = search_walker_new(start, &p, seed, start->rank + 64);
    cr_assert_not_null(w);
    search_walker_walk(w, 20000, start->rank, 0);
    scheme *s = search_walker_snapshot(w);
    search_walker_free(w);
    scheme_free(start);
    return s;
}

/* Plus transitions from start, each followed by `hold` flips and then
 * `after` more: how many trials saw the rank drop below the plus's within the
 * first `hold` flips, and how many after them. */
static void hold_trials(const scheme *start, scheme_symmetry g, int gen_max, double weight_bias, uint64_t plus_hold,
                        int hold, int after, int trials, uint64_t seed, int *within, int *later,
                        search_walker_stats *st)
{
    search_params p = params_for(start->fmt);
    p.symmetry = g;
    p.gen_max = gen_max;
    p.weight_bias = weight_bias;
    p.plus_hold = plus_hold;
    char err[256];
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    search_walker *w = search_walker_new(start, &p, seed, start->rank + 64);
    cr_assert_not_null(w);
    /* the plain walk checks every refusal of the weight bias, those the hold
     * had cleared (not asked flip_reduces again) among them: st.skipped_found */
    search_walker_check_skipped(w, g == SCHEME_SYM_NONE);
    *within = *later = 0;
    for (int t = 0; t < trials; t++) {
        cr_assert(search_walker_reset(w, start));
        const int r0 = search_walker_rank(w);
        if (!search_walker_plus(w) || search_walker_rank(w) <= r0)
            continue;
        const int r1 = search_walker_rank(w);
        int low = r1;
        for (int k = 0; k < hold; k++) {
            search_walker_flip(w);
            low = search_walker_rank(w) < low ? search_walker_rank(w) : low;
        }
        *within += low < r1;
        cr_assert(search_walker_check(w, err, sizeof err), "trial %d: %s", t, err);
        for (int k = 0; k < after && search_walker_rank(w) >= r1; k++)
            search_walker_flip(w);
        *later += low >= r1 && search_walker_rank(w) < r1;
    }
    search_walker_stats_get(w, st);
    search_walker_free(w);
}

/* The plus hold (docs/search.md, "The plus hold"): for its N flips after a
 * plus transition the rank never drops, where without it the same walks drop
 * within as many flips now and then; once it ends the walk reduces again.
 * The plain walk over GF(2) with and without the weight bias, with pair
 * reductions and with dependent sets of up to 5 terms, and the lazy c3 and
 * c3xc2 walks (each predicts a flip's reduction before making it). */
Test(search_walker, the_plus_hold_takes_no_reduction_while_it_lasts, .timeout = 240)
{
    const uint64_t seed = tc_seed();
    static const struct {
        scheme_symmetry g;
        int gen_max;
        double bias;
    } cases[] = {{SCHEME_SYM_NONE, 2, 0},
                 {SCHEME_SYM_NONE, 2, 0.3},
                 {SCHEME_SYM_NONE, 5, 0},
                 {SCHEME_SYM_NONE, 5, 0.3},
                 {SCHEME_SYM_C3, 1, 0},
                 {SCHEME_SYM_C3XC2, 1, 0.1}};
    const int hold = 300, after = 20000, trials = tc_scaled(300);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        scheme *start = hold_start(cases[i].g, seed + i);
        int within_off, later_off, within_on, later_on;
        search_walker_stats off, on;
        hold_trials(start, cases[i].g, cases[i].gen_max, cases[i].bias, 0, hold, after, trials, seed + 7 + i,
                    &within_off, &later_off, &off);
        hold_trials(start, cases[i].g, cases[i].gen_max, cases[i].bias, (uint64_t)hold, hold, after, trials,
                    seed + 7 + i, &within_on, &later_on, &on);
        const char *name = scheme_symmetry_name(cases[i].g);
        cr_assert_gt(within_off, 0,
                     "%s gen-max %d B %g, rank %d: no walk dropped within %d flips of a plus without the hold "
                     "(seed %llu)",
                     name, cases[i].gen_max, cases[i].bias, start->rank, hold, (unsigned long long)seed);
        cr_assert_eq(within_on, 0, "%s gen-max %d B %g, rank %d: %d walks dropped during the hold (seed %llu)", name,
                     cases[i].gen_max, cases[i].bias, start->rank, within_on, (unsigned long long)seed);
        cr_assert_gt(later_on, 0, "%s gen-max %d B %g, rank %d: no walk dropped after the hold ended (seed %llu)",
                     name, cases[i].gen_max, cases[i].bias, start->rank, (unsigned long long)seed);
        cr_assert_gt(on.held, 0u, "%s: the hold refused no draw (seed %llu)", name, (unsigned long long)seed);
        cr_assert_eq(off.held, 0u);
        cr_assert_eq(on.hold_reduced, 0u, "%s: %llu flips reduced during a hold (seed %llu)", name,
                     (unsigned long long)on.hold_reduced, (unsigned long long)seed);
        cr_assert_eq(on.skipped_found + off.skipped_found, 0u,
                     "%s gen-max %d B %g: %llu refused flips reduced or changed D (seed %llu)", name, cases[i].gen_max,
                     cases[i].bias, (unsigned long long)(on.skipped_found + off.skipped_found),
                     (unsigned long long)seed);
        if (cases[i].g == SCHEME_SYM_NONE && cases[i].bias > 0)
            cr_assert_gt(on.unmade, 0u, "%s gen-max %d B %g: the bias refused nothing (seed %llu)", name,
                         cases[i].gen_max, cases[i].bias, (unsigned long long)seed);
        scheme_free(start);
    }
}

/* A plateau counts from the end of a plus hold: with a plateau of 50 flips
 * and a hold of 500, a walk takes no second plus transition during the hold,
 * and takes one soon after it. */
Test(search_walker, a_plateau_counts_from_the_end_of_the_plus_hold, .timeout = 60)
{
    const uint64_t seed = tc_seed();
    scheme *start = hold_start(SCHEME_SYM_NONE, seed);
    search_params p = params_for(start->fmt);
    p.plus_max = 64;
    p.plateau = p.plateau_min = p.plateau_max = 50;
    p.plus_hold = 500;
    search_walker *w = search_walker_new(start, &p, seed + 1, start->rank + 80);
    cr_assert_not_null(w);
    search_walker_stats st0, st1, st2;
    cr_assert(search_walker_plus(w));
    search_walker_stats_get(w, &st0);
    search_walker_walk(w, 500, start->rank, 0);
    search_walker_stats_get(w, &st1);
    cr_assert_eq(st1.plus, st0.plus, "%llu plus transitions during the hold (seed %llu)",
                 (unsigned long long)(st1.plus - st0.plus), (unsigned long long)seed);
    search_walker_walk(w, 2000, start->rank, 0);
    search_walker_stats_get(w, &st2);
    cr_assert_gt(st2.plus, st1.plus, "no plus transition after the hold (seed %llu)", (unsigned long long)seed);
    search_walker_free(w);
    scheme_free(start);
}

Test(search_walker, long_walks_stay_valid, .timeout = 120)
{
    uint64_t seed = tc_seed();
    static const scheme_format fs[] = {{3, 3, 3}, {4, 4, 4}, {2, 4, 5}, {5, 5, 5}};
    for (size_t fi = 0; fi < sizeof fs / sizeof *fs; fi++) {
        search_params p = params_for(fs[fi]);
        p.plus_max = 2;
        p.plateau = p.plateau_min = p.plateau_max = 500;
        scheme *s = scheme_standard(fs[fi]);
        search_walker *w = search_walker_new(s, &p, seed ^ fi, 0);
        char fb[32], err[512];
        for (int round = 0; round < tc_scaled(50); round++) {
            search_walker_walk(w, 2000, search_walker_rank(w), 0);
            cr_assert(search_walker_check(w, err, sizeof err), "%s round %d: %s (seed %llu)",
                      scheme_format_str(fs[fi], fb), round, err, (unsigned long long)seed);
            scheme *snap = search_walker_snapshot(w);
            verify_result vr;
            cr_assert(verify_f2(snap, &vr), "%s round %d: %s (seed %llu)",
                      scheme_format_str(fs[fi], fb), round, vr.msg, (unsigned long long)seed);
            scheme_free(snap);
        }
        search_walker_stats st;
        search_walker_stats_get(w, &st);
        cr_assert_gt(st.flips, 0);
        search_walker_free(w);
        scheme_free(s);
    }
}

Test(search_walker, the_checks_a_flip_makes_needless_never_find_a_reduction, .timeout = 120)
{
    /* walker.c skips the dependence check of the bucket a flip's two terms
     * share (its span is kept), and refuses a flip the biases would undo
     * when its checks on the scheme it would leave find no reduction
     * (flip_reduces); here every skipped check runs anyway and every refused
     * flip is made, on fresh random walks through formats whose standard
     * algorithm has buckets of three to five, and none may find a reduction;
     * the reference check of the whole index (exhaustive reductions included)
     * runs along */
    uint64_t seed = tc_seed();
    static const scheme_format fs[] = {{3, 3, 3}, {2, 3, 4}, {3, 4, 4}, {4, 4, 4}, {3, 4, 5}, {5, 5, 5}};
    uint64_t skipped = 0;
    for (size_t fi = 0; fi < sizeof fs / sizeof *fs; fi++) {
        search_params p = params_for(fs[fi]);
        p.plus_max = 3;
        p.plateau = p.plateau_min = p.plateau_max = 300;
        p.weight_bias = fi % 2 ? 0.3 : 0; /* the bias's undo is the same flip again */
        p.degree_bias = fi % 3 == 2 ? 2 : 0; /* <3,4,4> alone (made, then undone), <5,5,5> with the
                                                 weight bias (refused before, flip_biased) */
        scheme *s = scheme_standard(fs[fi]);
        search_walker *w = search_walker_new(s, &p, seed * 31 + fi, 0);
        cr_assert_not_null(w);
        search_walker_check_skipped(w, true);
        char fb[32], err[512];
        for (int round = 0; round < tc_scaled(400); round++) {
            search_walker_walk(w, 5000, search_walker_rank(w), 0);
            cr_assert(search_walker_check(w, err, sizeof err), "%s round %d: %s (seed %llu)",
                      scheme_format_str(fs[fi], fb), round, err, (unsigned long long)seed);
        }
        search_walker_stats st;
        search_walker_stats_get(w, &st);
        cr_assert_eq(st.skipped_found, 0,
                     "%s: %llu wrong (skipped checks that found a reduction, flips refused or kept on a wrong "
                     "answer of flip_reduces, refused flips whose flip count flip_degree_after missed), "
                     "%llu checks skipped (seed %llu)",
                     scheme_format_str(fs[fi], fb), (unsigned long long)st.skipped_found,
                     (unsigned long long)st.skipped, (unsigned long long)seed);
        cr_assert_gt(st.gen_reductions, 0, "%s: no dependent set was reduced (seed %llu)",
                     scheme_format_str(fs[fi], fb), (unsigned long long)seed);
        if (p.weight_bias > 0 || p.degree_bias > 0)
            cr_assert_gt(st.undone, 0, "%s: the biases undid no flip (seed %llu)",
                         scheme_format_str(fs[fi], fb), (unsigned long long)seed);
        if (p.weight_bias > 0) {
            /* the refusals before the flip (walker.c, flip_biased): each one
             * made anyway here, and none may have reduced or left another flip
             * count than flip_degree_after's; each flip kept for the reduction
             * it was said to make must have made one (skipped_found above) */
            cr_assert_gt(st.unmade, 0, "%s: no flip was refused before it was made (seed %llu)",
                         scheme_format_str(fs[fi], fb), (unsigned long long)seed);
        }
        skipped += st.skipped;
        search_walker_free(w);
        scheme_free(s);
    }
    cr_assert_gt(skipped, (uint64_t)tc_scaled(10000), "only %llu checks were skipped", (unsigned long long)skipped);
}

Test(search_walker, start_reductions_and_zero_terms)
{
    /* a start with a zero-factor term and a splittable pair: both go at once */
    scheme_format f = {2, 2, 2};
    scheme *s = scheme_standard(f);
    scheme_push(s, 0, 1, 1); /* zero factor: dropped */
    scheme_term t0 = s->terms[0];
    s->terms[0].f[2] ^= 0x2;
    scheme_push(s, t0.f[0], t0.f[1], 0x2);
    search_params p = params_for(f);
    search_walker *w = search_walker_new(s, &p, 1, 0);
    cr_assert_not_null(w);
    cr_assert_eq(search_walker_rank(w), 8);
    char err[512];
    cr_assert(search_walker_check(w, err, sizeof err), "%s", err);
    search_walker_free(w);
    scheme_free(s);
}

/* A bucket of gen_max + 1 terms is not checked for dependent sets; when a flip
 * takes one term out, the rest are, and five factors spanning three dimensions
 * hold two independent dependent subsets: the reduction of one leaves four
 * factors in three dimensions, dependent again, and that must be reduced too
 * (walker.c, check_dependent; a <5,5,5> walk of the CI left one).  Not a
 * scheme of <3,3,3>: the walker does not need one.  Bucket B: six terms
 * sharing c = 1, their a factors 1, 2, 3, 4, 6 (rank 3) and 8, their b
 * factors independent; term O shares a = 8 with the sixth and nothing else.
 * The 32 ordered flippable pairs: 30 inside B at c and O's two with the
 * sixth at a; 13 of them shrink B: the one that moves the sixth out, and the
 * 12 inside B whose a factors add up to a third one's (1 + 2 = 3 and so on:
 * a pair sharing a and c, reduced).  Each trial starts again from that scheme
 * and makes one flip. */
Test(search_walker, a_bucket_shrinking_to_gen_max_loses_every_dependent_subset)
{
    scheme_format f = {3, 3, 3};
    scheme *s = scheme_new(f, SCHEME_RING_F2, 7);
    cr_assert_not_null(s);
    static const uint64_t a[6] = {1, 2, 3, 4, 6, 8};
    for (int i = 0; i < 6; i++)
        scheme_push(s, a[i], 1u << i, 1);
    scheme_push(s, 8, 64, 2);
    search_params p = params_for(f);
    p.gen_max = 5;
    p.plus_max = 0;
    p.lookahead = 0;
    p.weight_bias = 0;
    p.degree_bias = 0;
    const uint64_t seed = tc_seed();
    search_walker *w = search_walker_new(s, &p, seed, 0);
    cr_assert_not_null(w);
    char err[512];
    int shrunk = 0;
    for (int trial = 0; trial < 2000; trial++) {
        cr_assert(search_walker_reset(w, s));
        cr_assert_eq(search_walker_rank(w), 7, "the start was reduced (seed %llu)", (unsigned long long)seed);
        cr_assert(search_walker_flip(w));
        shrunk += search_walker_rank(w) < 7;
        cr_assert(search_walker_check(w, err, sizeof err), "trial %d, rank %d: %s (seed %llu)", trial,
                  search_walker_rank(w), err, (unsigned long long)seed);
    }
    /* 13 of 32: about 812 of 2000 (a 1/32 change is 62) */
    cr_assert(shrunk > 700 && shrunk < 925, "B shrank in %d of 2000 trials (seed %llu)", shrunk,
              (unsigned long long)seed);
    search_walker_free(w);
    scheme_free(s);
}

/* Walks w until its scheme has a bucket of three or more and no flip enables a
 * reduction (so that one flip's outcomes are the flips themselves); its terms
 * in t.  false when 400 tries found none. */
static bool walk_to_a_state_without_reducing_flips(search_walker *w, const search_params *p, scheme_term *t,
                                                   int *prank)
{
    int rank = 0;
    bool found = false;
    for (int attempt = 0; attempt < 400 && !found; attempt++) {
        search_walker_walk(w, 50, 1000, 0);
        rank = search_walker_terms(w, t);
        bool big = false, reducible = false;
        for (int x = 0; x < 3 && !big; x++)
            for (int i = 0; i < rank && !big; i++) {
                int c = 0;
                for (int j = 0; j < rank; j++)
                    c += t[j].f[x] == t[i].f[x];
                big = c >= 3;
            }
        if (!big)
            continue;
        for (int x = 0; x < 3 && !reducible; x++)
            for (int i = 0; i < rank && !reducible; i++)
                for (int j = 0; j < rank && !reducible; j++) {
                    if (i == j || t[i].f[x] != t[j].f[x])
                        continue;
                    scheme_term u[128];
                    memcpy(u, t, sizeof(scheme_term) * (size_t)rank);
                    int ru = rank;
                    search_flip(u, &ru, i, j, x);
                    search_reduction red;
                    reducible = ru < rank || search_find_reduction(u, ru, p->gen_max, &red);
                }
        found = !reducible;
    }
    *prank = rank;
    return found;
}

/* The nonzero coefficients of a scheme's terms (the weight bias's W), by the
 * library's count (search_scheme_nonzeros), not the walker's difference of two factors. */
static int terms_weight(scheme_format f, const scheme_term *t, int rank)
{
    scheme *s = terms_scheme(f, t, rank);
    const int w = (int)search_scheme_nonzeros(s);
    scheme_free(s);
    return w;
}

/* The reference half of one_flip_matches_the_reference and its Z twin: a
 * draw of probability p from D = d0 flips leads to an outcome with D' = d1
 * flips and dw more nonzero coefficients, kept with probability
 * min(1, (d0/d1)^bias) min(1, exp(-wbias dw)); its hash h is added to the
 * outcomes (oh, MAXO at most) with that share of p, the start (oh[0]) with the rest. */
static void expect_outcome(uint64_t *oh, double *expect, double *got, int *no, int maxo, uint64_t h, double p,
                           double bias, double wbias, double d0, double d1, long dw)
{
    double keep = bias > 0 && d1 > d0 ? pow(d0 / d1, bias) : 1;
    if (wbias > 0 && dw > 0)
        keep *= exp(-wbias * (double)dw);
    int k = 0;
    while (k < *no && oh[k] != h)
        k++;
    if (k == *no) {
        cr_assert_lt(*no, maxo);
        oh[k] = h;
        expect[k] = got[k] = 0;
        (*no)++;
    }
    expect[k] += keep * p;
    expect[0] += (1 - keep) * p;
}

/* The sampling half of one_flip_matches_the_reference and its Z twin: one
 * flip of w from start, samples times, each outcome looked up among the
 * reference's (hashes oh[0..no), oh[0] the start itself) and counted in got[];
 * then a chi-square test against the probabilities expect[] (an outcome of
 * probability 0 must not happen; mean df, sd sqrt(2 df): 8 sd above is not
 * noise), and the walker's undone flips (some with a bias, none without). */
static void assert_one_flip_matches(search_walker *w, scheme *start, const uint64_t *oh, const double *expect,
                                    double *got, int no, int samples, double bias, double wbias, const char *ring,
                                    uint64_t seed)
{
    for (int n = 0; n < samples; n++) {
        cr_assert(search_walker_reset(w, start));
        cr_assert(search_walker_flip(w));
        scheme *o = search_walker_snapshot(w);
        const uint64_t h = scheme_hash(o);
        scheme_free(o);
        int k = 0;
        while (k < no && oh[k] != h)
            k++;
        cr_assert_lt(k, no, "%s: the walker made a flip the reference does not know (seed %llu)", ring,
                     (unsigned long long)seed);
        got[k] += 1;
    }
    double chi = 0;
    int df = -1;
    for (int k = 0; k < no; k++) {
        const double e = expect[k] * samples;
        if (e <= 0) {
            cr_assert_eq(got[k], 0, "%s: an outcome of probability 0 happened (seed %llu)", ring,
                         (unsigned long long)seed);
            continue;
        }
        chi += (got[k] - e) * (got[k] - e) / e;
        df++;
    }
    cr_assert_lt(chi, df + 8 * sqrt(2.0 * df) + 10,
                 "%s, bias %.2f, weight bias %.2f: chi-square %.1f with %d outcomes (seed %llu)", ring, bias, wbias,
                 chi, df + 1, (unsigned long long)seed);
    search_walker_stats st;
    search_walker_stats_get(w, &st);
    if (bias > 0 || wbias > 0)
        cr_assert_gt(st.undone, 0, "%s, bias %.2f, weight bias %.2f: no flip was undone", ring, bias, wbias);
    else
        cr_assert_eq(st.undone, 0);
}

/* One flip of a walker with the given degree and weight biases from a fixed
 * scheme, many times, against the reference: each ordered flippable pair (i,
 * j, x) is drawn with probability 1/D (D = search_count_flips of the scheme),
 * its outcome u (search_flip) kept with probability min(1, (D/D(u))^bias) *
 * min(1, exp(-wbias (W(u) - W))), W the nonzero coefficients of all terms,
 * else the scheme stays (both 0: always kept).  A chi-square test with a
 * generous bound catches a biased sampler or a wrong acceptance, not noise. */
static void one_flip_matches_the_reference(double bias, double wbias)
{
    uint64_t seed = tc_seed();
    scheme_format f = {4, 4, 4};
    search_params p = params_for(f);
    p.degree_bias = bias;
    p.weight_bias = wbias;
    scheme *s = scheme_standard(f);
    search_walker *w = search_walker_new(s, &p, seed, 0);
    scheme_free(s);
    scheme_term t[128];
    int rank = 0;
    cr_assert(walk_to_a_state_without_reducing_flips(w, &p, t, &rank), "no suitable state found (seed %llu)",
              (unsigned long long)seed);
    /* expected: outcome hash -> probability */
    enum { MAXO = 4096 };
    static uint64_t oh[MAXO];
    static double expect[MAXO], got[MAXO];
    scheme *start = terms_scheme(f, t, rank);
    const double d0 = (double)search_count_flips(t, rank);
    const int w0 = terms_weight(f, t, rank);
    oh[0] = scheme_hash(start);
    expect[0] = got[0] = 0;
    int no = 1, pairs = 0, moved_up = 0, heavier = 0;
    for (int x = 0; x < 3; x++)
        for (int i = 0; i < rank; i++)
            for (int j = 0; j < rank; j++) {
                if (i == j || t[i].f[x] != t[j].f[x])
                    continue;
                scheme_term u[128];
                memcpy(u, t, sizeof(scheme_term) * (size_t)rank);
                int ru = rank;
                search_flip(u, &ru, i, j, x);
                const double d1 = (double)search_count_flips(u, ru);
                const int dw = ru == rank ? terms_weight(f, u, ru) - w0 : 0; /* no bias after a reduction */
                moved_up += d1 > d0;
                heavier += dw > 0;
                scheme *o = terms_scheme(f, u, ru);
                const uint64_t h = scheme_hash(o);
                scheme_free(o);
                expect_outcome(oh, expect, got, &no, MAXO, h, 1 / d0, bias, wbias, d0, d1, dw);
                pairs++;
            }
    cr_assert_eq(pairs, (int)d0, "the reference's pairs %d, search_count_flips %.0f", pairs, d0);
    if (bias > 0)
        cr_assert_gt(moved_up, 0, "no flip raises the count: the test would not test the bias (seed %llu)",
                     (unsigned long long)seed);
    if (wbias > 0)
        cr_assert_gt(heavier, 0, "no flip adds coefficients: the test would not test the weight bias (seed %llu)",
                     (unsigned long long)seed);
    const int samples = tc_sanitized() ? 40 * pairs : 400 * pairs;
    assert_one_flip_matches(w, start, oh, expect, got, no, samples, bias, wbias, "over GF(2)", seed);
    scheme_free(start);
    search_walker_free(w);
}

Test(search_walker, flips_are_uniform_over_ordered_pairs, .timeout = 120) { one_flip_matches_the_reference(0, 0); }

/* The degree bias (Metropolis's test on the flip counts) against the same reference. */
Test(search_walker, the_degree_bias_keeps_a_flip_with_metropolis_probability, .timeout = 120)
{
    one_flip_matches_the_reference(4, 0);
}

/* The weight bias (docs/search.md, "The weight bias"): a flip that adds d
 * nonzero coefficients is kept with probability exp(-B_w d); alone, and with
 * the degree bias's factor beside it (one draw for both). */
Test(search_walker, the_weight_bias_keeps_a_flip_with_probability_exp_minus_b_times_the_added_weight, .timeout = 120)
{
    one_flip_matches_the_reference(0, 0.7);
    one_flip_matches_the_reference(2, 0.3);
}

/* A state over Z for one_z_flip_matches_the_reference: a walk with
 * coefficients in {-1, 0, 1} until its scheme has a bucket of three or more
 * (so that flips change the count D) and no flip within the bound 2 reduces
 * (search_z_find_reduction after each of them, and no factor made zero), nor
 * does the scheme itself.  NULL when 400 tries found none. */
static scheme *z_state_without_reducing_flips(scheme_format f, uint64_t seed)
{
    search_params p = params_for(f);
    p.ring = SCHEME_RING_Z;
    p.plus_max = 0;
    scheme *std = scheme_standard(f), *zs = search_z_copy(std);
    search_walker *w = search_walker_new(zs, &p, seed, 0);
    scheme_free(std);
    scheme_free(zs);
    cr_assert_not_null(w);
    scheme *found = NULL;
    for (int attempt = 0; attempt < 400 && !found; attempt++) {
        search_walker_walk(w, 50, 1000, 0);
        scheme *s = search_walker_snapshot(w);
        int i, j;
        bool big = false, reducible = search_z_find_reduction(s, 2, &i, &j);
        for (int x = 0; x < 3 && !big; x++)
            for (i = 0; i < s->rank && !big; i++) {
                int c = 0;
                for (j = 0; j < s->rank; j++)
                    c += search_z_relation(s, i, j, x) != 0;
                big = c >= 3;
            }
        for (int x = 0; x < 3 && big && !reducible; x++)
            for (int a = 0; a < s->rank && !reducible; a++)
                for (int b = 0; b < s->rank && !reducible; b++)
                    for (int mu = -1; mu <= 1 && !reducible; mu += 2) {
                        if (a == b || !search_z_relation(s, a, b, x))
                            continue;
                        scheme *u = scheme_clone(s);
                        cr_assert(search_z_flip(u, a, b, x, mu, 2), "a ternary flip passed the bound 2");
                        reducible = u->rank < s->rank || search_z_find_reduction(u, 2, &i, &j);
                        scheme_free(u);
                    }
        if (big && !reducible)
            found = s;
        else
            scheme_free(s);
    }
    search_walker_free(w);
    return found;
}

/* one_flip_matches_the_reference over Z: each ordered pair (i, j, x) equal up
 * to sign at x and each mu = +1, -1 is drawn with probability 1/(2 D), D =
 * search_z_count_flips, its outcome (search_z_flip) kept with probability
 * min(1, (D/D(u))^bias) * min(1, exp(-wbias (W(u) - W))).  The walker's bound
 * is 2 and the state ternary, so that the bound refuses no draw. */
static void one_z_flip_matches_the_reference(double bias, double wbias)
{
    const uint64_t seed = tc_seed();
    const scheme_format f = {3, 3, 3};
    scheme *start = z_state_without_reducing_flips(f, seed);
    cr_assert_not_null(start, "no suitable state over Z found (seed %llu)", (unsigned long long)seed);
    search_params p = params_for(f);
    p.ring = SCHEME_RING_Z;
    p.coef_max = 2;
    p.degree_bias = bias;
    p.weight_bias = wbias;
    search_walker *w = search_walker_new(start, &p, seed + 1, 0);
    cr_assert_not_null(w);
    enum { MAXO = 4096 };
    static uint64_t oh[MAXO];
    static double expect[MAXO], got[MAXO];
    scheme *s0 = scheme_clone(start);
    oh[0] = scheme_hash(s0);
    scheme_free(s0);
    expect[0] = got[0] = 0;
    const double d0 = (double)search_z_count_flips(start);
    const long w0 = search_scheme_nonzeros(start);
    int no = 1, draws = 0, moved_up = 0, heavier = 0;
    for (int x = 0; x < 3; x++)
        for (int i = 0; i < start->rank; i++)
            for (int j = 0; j < start->rank; j++)
                for (int mu = -1; mu <= 1; mu += 2) {
                    if (i == j || !search_z_relation(start, i, j, x))
                        continue;
                    scheme *u = scheme_clone(start);
                    cr_assert(search_z_flip(u, i, j, x, mu, 2));
                    const double d1 = (double)search_z_count_flips(u);
                    const long dw = search_scheme_nonzeros(u) - w0;
                    moved_up += d1 > d0;
                    heavier += dw > 0;
                    const uint64_t h = scheme_hash(u);
                    scheme_free(u);
                    expect_outcome(oh, expect, got, &no, MAXO, h, 1 / (2 * d0), bias, wbias, d0, d1, dw);
                    draws++;
                }
    cr_assert_eq(draws, 2 * (int)d0, "the reference's draws %d, twice search_z_count_flips %.0f", draws, d0);
    if (bias > 0)
        cr_assert_gt(moved_up, 0, "no flip raises the count: the test would not test the bias (seed %llu)",
                     (unsigned long long)seed);
    if (wbias > 0)
        cr_assert_gt(heavier, 0, "no flip adds coefficients (seed %llu)", (unsigned long long)seed);
    const int samples = tc_sanitized() ? 40 * draws : 400 * draws;
    assert_one_flip_matches(w, start, oh, expect, got, no, samples, bias, wbias, "over Z", seed);
    search_walker_stats st;
    search_walker_stats_get(w, &st);
    cr_assert_eq(st.rejected, 0, "the bound refused a draw: the reference would not be exact");
    scheme_free(start);
    search_walker_free(w);
}

/* The walk over Z draws its flips as the reference does, and its degree bias
 * and weight bias (alone and together) keep them with the reference's probabilities. */
Test(search_walker, z_flips_and_their_biases_match_the_reference, .timeout = 240)
{
    one_z_flip_matches_the_reference(0, 0);
    one_z_flip_matches_the_reference(4, 0);
    one_z_flip_matches_the_reference(0, 0.7);
    one_z_flip_matches_the_reference(2, 0.3);
}

/* Strassen's algorithm over GF(2): no two terms share a factor (flip-isolated). */
static scheme *strassen_f2(void)
{
    /* bits: A11 A12 A21 A22 = 1 2 4 8 (same for B); c is C transposed: C11 C21 C12 C22 = 1 2 4 8 */
    static const uint64_t t[7][3] = {{9, 9, 9}, {12, 1, 10}, {1, 10, 12}, {8, 5, 3},
                                     {3, 8, 5}, {5, 3, 8},   {10, 12, 1}};
    scheme *s = scheme_new((scheme_format){2, 2, 2}, SCHEME_RING_F2, 8);
    for (int r = 0; s && r < 7; r++)
        cr_assert(scheme_push(s, t[r][0], t[r][1], t[r][2]));
    return s;
}

/* The isolated trap (docs/search.md): at a flip-isolated scheme the walker with
 * isolated_plus 0 stops and leaves the scheme as it was; with 1 it takes a plus
 * transition and walks on; the driver still gets away from an isolated start. */
Test(search_walker, an_isolated_scheme_ends_the_walk_or_takes_a_plus)
{
    scheme *st = strassen_f2();
    cr_assert_not_null(st);
    verify_result vr;
    cr_assert(verify_f2(st, &vr), "Strassen over GF(2): %s", vr.msg);
    cr_assert_eq(search_count_flips(st->terms, st->rank), 0, "Strassen's terms share no factor");
    uint64_t seed = tc_seed();
    for (int iso = 0; iso <= 1; iso++) {
        search_params p = params_for(st->fmt);
        p.isolated_plus = iso;
        search_walker *w = search_walker_new(st, &p, seed, 0);
        cr_assert_not_null(w);
        uint64_t done = search_walker_walk(w, 100, 7, 0);
        search_walker_stats ws;
        search_walker_stats_get(w, &ws);
        if (!iso) {
            cr_assert_eq(done, 0, "isolated_plus 0: no flip is possible, the walk ends (seed %llu)",
                         (unsigned long long)seed);
            cr_assert_eq(ws.plus, 0);
            scheme *now = search_walker_snapshot(w);
            cr_assert(scheme_equal(now, st), "the scheme is left as it was");
            scheme_free(now);
        } else {
            cr_assert_gt(ws.plus, 0, "isolated_plus 1: a plus transition leaves the isolated scheme");
            cr_assert_gt(done, 0, "... and the walk goes on with flips (seed %llu)", (unsigned long long)seed);
        }
        search_walker_free(w);
    }
    /* the driver from Strassen alone, isolated_plus 0: it walks (a plus when the restart is
     * isolated too) instead of finding nothing to do */
    search_params p = params_for(st->fmt);
    p.max_flips = 20000;
    p.seed = seed;
    p.progress_every = 0;
    const scheme *starts[1] = {st};
    search_result res;
    search_status rc = search_run_cpu(&p, starts, 1, NULL, &res);
    cr_assert(rc == SEARCH_REACHED || rc == SEARCH_NOT_REACHED, "status %d: %s", rc, res.msg);
    cr_assert_gt(res.flips, 0, "the search walked away from the isolated start (seed %llu)",
                 (unsigned long long)seed);
    cr_assert_eq(res.best_rank, 7);
    search_result_free(&res);
    scheme_free(st);
}

Test(search_walker, same_seed_same_walk_different_seeds_differ)
{
    scheme_format f = {4, 4, 4};
    search_params p = params_for(f);
    p.plus_max = 2;
    p.plateau = p.plateau_min = p.plateau_max = 300;
    scheme *s = scheme_standard(f);
    search_walker *a = search_walker_new(s, &p, 42, 0);
    search_walker *b = search_walker_new(s, &p, 42, 0);
    search_walker *c = search_walker_new(s, &p, 43, 0);
    for (int k = 0; k < 20; k++) {
        search_walker_walk(a, 1000, 64, 0);
        search_walker_walk(b, 1000, 64, 0);
        search_walker_walk(c, 1000, 64, 0);
    }
    scheme *sa = search_walker_snapshot(a), *sb = search_walker_snapshot(b),
           *sc = search_walker_snapshot(c);
    cr_assert(scheme_equal(sa, sb), "same seed, different walks");
    cr_assert_not(scheme_equal(sa, sc), "different seeds, same walk");
    scheme_free(sa);
    scheme_free(sb);
    scheme_free(sc);
    search_walker_free(a);
    search_walker_free(b);
    search_walker_free(c);
    scheme_free(s);
}

/* ------------------------------------------------------------ driver */

typedef struct found_log {
    int n;
    int rank[256];
    bool all_valid;
} found_log;

static bool log_found(void *ctx, const search_found *f)
{
    found_log *l = ctx;
    verify_result vr;
    if (!verify_f2(f->s, &vr))
        l->all_valid = false;
    if (l->n < 256)
        l->rank[l->n++] = f->rank;
    return true;
}

static void must_reach(scheme_format f, int target, uint64_t seed)
{
    search_params p = params_for(f);
    p.target_rank = target;
    p.time_limit = 120; /* generous: these take well under a second */
    p.seed = seed;
    p.progress_every = 0;
    found_log log = {0, {0}, true};
    search_callbacks cb = {.ctx = &log, .improved = log_found};
    search_result r;
    search_status st = search_run_cpu(&p, NULL, 0, &cb, &r);
    char fb[32];
    cr_assert_eq(st, SEARCH_REACHED, "%s to %d: status %d best %d after %.1f s: %s (seed %llu)",
                 scheme_format_str(f, fb), target, st, r.best_rank, r.seconds, r.msg,
                 (unsigned long long)seed);
    cr_assert_leq(r.best_rank, target);
    cr_assert_not_null(r.best);
    cr_assert_eq(r.best->rank, r.best_rank);
    verify_result vr;
    cr_assert(verify_f2(r.best, &vr), "the best scheme does not verify: %s", vr.msg);
    cr_assert(log.all_valid, "an improvement handed to the callback did not verify");
    cr_assert_gt(log.n, 0);
    for (int k = 1; k < log.n; k++)
        cr_assert_lt(log.rank[k], log.rank[k - 1], "improvements must be strictly lower");
    cr_assert_eq(log.rank[log.n - 1], r.best_rank);
    search_result_free(&r);
}

Test(search_driver, strassen_rank_7, .timeout = 150) { must_reach((scheme_format){2, 2, 2}, 7, tc_seed()); }
Test(search_driver, rank_11_for_2x2x3, .timeout = 150) { must_reach((scheme_format){2, 2, 3}, 11, tc_seed()); }
Test(search_driver, laderman_rank_23, .timeout = 150) { must_reach((scheme_format){3, 3, 3}, 23, tc_seed()); }
Test(search_driver, two_threads_rank_23, .timeout = 150)
{
    search_params p = params_for((scheme_format){3, 3, 3});
    p.target_rank = 23;
    p.time_limit = 120;
    p.threads = 2;
    p.seed = tc_seed();
    p.progress_every = 0;
    search_result r;
    cr_assert_eq(search_run_cpu(&p, NULL, 0, NULL, &r), SEARCH_REACHED, "seed %llu",
                 (unsigned long long)p.seed);
    search_result_free(&r);
}

static scheme *run_budget(scheme_format f, uint64_t seed, uint64_t flips, search_result *r)
{
    search_params p = params_for(f);
    p.seed = seed;
    p.max_flips = flips;
    p.progress_every = 0;
    p.walk_len = 300; /* many restarts: the pool's choices are replayed too */
    search_run_cpu(&p, NULL, 0, NULL, r);
    cr_assert_eq(r->status, SEARCH_REACHED, "%s", r->msg);
    return r->best;
}

/* The run's count of flips the bias undid (search_result.undone, the summary
 * line's "the bias undid"): the walkers' sum, so some with a bias and none
 * without; over Z the flips the coefficient bound refuses are not in it. */
Test(search_driver, the_run_counts_the_flips_the_bias_undid, .timeout = 120)
{
    const uint64_t seed = tc_seed();
    static const struct {
        scheme_ring ring;
        scheme_symmetry sym;
    } walks[] = {{SCHEME_RING_F2, SCHEME_SYM_NONE}, {SCHEME_RING_Z, SCHEME_SYM_NONE}, {SCHEME_RING_F2, SCHEME_SYM_C3}};
    for (size_t i = 0; i < sizeof walks / sizeof walks[0]; i++)
        for (int biased = 0; biased < 2; biased++) {
            search_params p = params_for((scheme_format){3, 3, 3});
            p.ring = walks[i].ring;
            p.symmetry = walks[i].sym;
            p.weight_bias = biased ? 0.3 : 0;
            p.seed = seed + i;
            p.threads = 2;
            p.max_flips = 200000;
            p.target_rank = 1; /* never reached: the budget ends the run */
            p.progress_every = 0;
            search_result r;
            search_run_cpu(&p, NULL, 0, NULL, &r);
            cr_assert(r.status == SEARCH_REACHED || r.status == SEARCH_NOT_REACHED, "walk %zu: %s", i, r.msg);
            cr_assert_gt(r.flips, 0, "walk %zu", i);
            if (biased)
                cr_assert(r.undone > 0 && r.undone < r.flips,
                          "walk %zu, weight bias 0.3: %llu of %llu flips undone (seed %llu)", i,
                          (unsigned long long)r.undone, (unsigned long long)r.flips, (unsigned long long)p.seed);
            else
                cr_assert_eq(r.undone, 0, "walk %zu, no bias: %llu flips undone (seed %llu)", i,
                             (unsigned long long)r.undone, (unsigned long long)p.seed);
            search_result_free(&r);
        }
}

/* Siblings (search_params.siblings; docs/search.md, "Siblings"): a walk that
 * fails at the pool's level offers the scheme it ended with.  0: never; 1: while
 * the level holds fewer than pool_size schemes, so at most pool_size for each rank
 * the run's level passed through; 2: always (a full level replaces a member), so
 * far more than that.  The pool's intake counts the start and every sibling. */
Test(search_driver, failed_walks_pool_their_scheme_by_the_siblings_rule, .timeout = 120)
{
    const uint64_t seed = tc_seed();
    for (int k = 0; k <= 2; k++) {
        search_params p = params_for((scheme_format){4, 4, 4});
        p.seed = seed;
        p.threads = 1;
        p.max_flips = tc_sanitized() ? 300000 : 2000000;
        p.target_rank = 1; /* never reached: the budget ends the run */
        p.progress_every = 0;
        p.walk_len = p.walk_max = 200; /* short walks: thousands fail */
        p.pool_size = 8;
        p.pool_min = 1;
        p.siblings = k;
        search_result r;
        search_run_cpu(&p, NULL, 0, NULL, &r);
        cr_assert(r.status == SEARCH_REACHED || r.status == SEARCH_NOT_REACHED, "%s", r.msg);
        const uint64_t bound = (uint64_t)p.pool_size * (uint64_t)(r.start_rank - r.best_rank + 1);
        cr_assert_gt(r.restarts, 4 * bound, "siblings %d: %llu restarts (seed %llu)", k,
                     (unsigned long long)r.restarts, (unsigned long long)seed);
        cr_assert_geq(r.pooled, r.siblings + 1, "siblings %d: the pool took %llu, %llu siblings", k,
                      (unsigned long long)r.pooled, (unsigned long long)r.siblings);
        if (k == 0)
            cr_assert_eq(r.siblings, 0, "siblings 0: %llu pooled (seed %llu)", (unsigned long long)r.siblings,
                         (unsigned long long)seed);
        else if (k == 1)
            cr_assert(r.siblings > 0 && r.siblings <= bound,
                      "siblings 1: %llu pooled, expected 1..%llu (ranks %d..%d, pool-size %d; seed %llu)",
                      (unsigned long long)r.siblings, (unsigned long long)bound, r.start_rank, r.best_rank,
                      p.pool_size, (unsigned long long)seed);
        else
            cr_assert_gt(r.siblings, bound, "siblings 2: %llu pooled, expected more than %llu (seed %llu)",
                         (unsigned long long)r.siblings, (unsigned long long)bound, (unsigned long long)seed);
        search_result_free(&r);
    }
}

Test(search_driver, a_seed_replays_exactly, .timeout = 120)
{
    uint64_t seed = tc_seed();
    uint64_t flips = tc_sanitized() ? 200000 : 2000000;
    search_result r1, r2, r3;
    scheme *a = run_budget((scheme_format){4, 4, 4}, seed, flips, &r1);
    scheme *b = run_budget((scheme_format){4, 4, 4}, seed, flips, &r2);
    scheme *c = run_budget((scheme_format){4, 4, 4}, seed + 1, flips, &r3);
    cr_assert_eq(r1.flips, flips);
    cr_assert_eq(r1.flips, r2.flips);
    cr_assert_eq(r1.restarts, r2.restarts, "seed %llu", (unsigned long long)seed);
    cr_assert_eq(r1.improvements, r2.improvements);
    cr_assert(scheme_equal(a, b), "the same seed gave another best scheme (seed %llu)",
              (unsigned long long)seed);
    /* another seed: another walk.  The best scheme alone may coincide (a short
     * budget can end both at the same flip-isolated scheme, Strassen's square
     * at rank 49), so the walk's counters decide with it. */
    cr_assert_not(scheme_equal(a, c) && r1.restarts == r3.restarts && r1.plus == r3.plus &&
                      r1.reductions == r3.reductions && r1.improvements == r3.improvements,
                  "seeds %llu and %llu walked alike", (unsigned long long)seed, (unsigned long long)seed + 1);
    search_result_free(&r1);
    search_result_free(&r2);
    search_result_free(&r3);
}

Test(search_driver, start_schemes_and_bad_input)
{
    /* a start of another format, and one that does not verify, are refused */
    search_params p = params_for((scheme_format){2, 2, 2});
    p.max_flips = 1000;
    p.progress_every = 0;
    scheme *other = scheme_standard((scheme_format){2, 2, 3});
    const scheme *starts[1] = {other};
    search_result r;
    cr_assert_eq(search_run_cpu(&p, starts, 1, NULL, &r), SEARCH_BAD_PARAMS);
    cr_assert(strstr(r.msg, "<2,2,3>"), "%s", r.msg);
    scheme_free(other);
    scheme *bad = scheme_standard((scheme_format){2, 2, 2});
    bad->terms[3].f[1] ^= 1;
    starts[0] = bad;
    cr_assert_eq(search_run_cpu(&p, starts, 1, NULL, &r), SEARCH_BAD_PARAMS);
    cr_assert(strstr(r.msg, "does not verify"), "%s", r.msg);
    scheme_free(bad);
    /* bad parameters */
    p.gen_max = 1;
    cr_assert_eq(search_run_cpu(&p, NULL, 0, NULL, &r), SEARCH_BAD_PARAMS);
    p = params_for((scheme_format){9, 9, 9});
    cr_assert_eq(search_run_cpu(&p, NULL, 0, NULL, &r), SEARCH_BAD_PARAMS);
    /* a start already at the target: reached at once */
    p = params_for((scheme_format){3, 3, 3});
    p.target_rank = 27;
    p.progress_every = 0;
    cr_assert_eq(search_run_cpu(&p, NULL, 0, NULL, &r), SEARCH_REACHED);
    cr_assert_eq(r.best_rank, 27);
    search_result_free(&r);
}

Test(search_driver, a_start_with_reductions_left_is_reduced_and_reported)
{
    scheme *s = tc_standard_333_split(); /* rank 28, one pair reduction left */
    cr_assert_eq(s->rank, 28);
    search_params p = params_for((scheme_format){3, 3, 3});
    p.target_rank = 27;
    p.progress_every = 0;
    found_log log = {0, {0}, true};
    search_callbacks cb = {.ctx = &log, .improved = log_found};
    const scheme *starts[1] = {s};
    search_result r;
    cr_assert_eq(search_run_cpu(&p, starts, 1, &cb, &r), SEARCH_REACHED, "%s", r.msg);
    cr_assert_eq(r.start_rank, 28);
    cr_assert_eq(r.best_rank, 27);
    cr_assert_eq(log.n, 1);
    cr_assert_eq(log.rank[0], 27);
    cr_assert(log.all_valid);
    search_result_free(&r);
    scheme_free(s);
}

Test(search_driver, target_not_reached_within_the_budget)
{
    search_params p = params_for((scheme_format){3, 3, 3});
    p.target_rank = 5;
    p.max_flips = 20000;
    p.progress_every = 0;
    search_result r;
    cr_assert_eq(search_run_cpu(&p, NULL, 0, NULL, &r), SEARCH_NOT_REACHED);
    cr_assert_gt(r.best_rank, 5);
    search_result_free(&r);
}

Test(search_driver, the_gpu_entry_point_exists)
{
    /* built or not, it answers with a status and a message, never silently */
    search_params p = params_for((scheme_format){2, 2, 2});
    p.target_rank = 7;
    p.time_limit = 5;
    p.progress_every = 0;
    search_result r;
    search_status st = search_run_gpu(&p, NULL, 0, NULL, &r);
    cr_assert(st == SEARCH_REACHED || st == SEARCH_BAD_PARAMS || st == SEARCH_FAILED ||
                  st == SEARCH_NOT_REACHED,
              "status %d", st);
    if (st == SEARCH_BAD_PARAMS || st == SEARCH_FAILED)
        cr_assert(r.msg[0], "no message");
    search_result_free(&r);
}

/* ------------------------------------------------------------ records, params */

Test(search_misc, records_are_symmetric)
{
    cr_assert_eq(search_record_rank((scheme_format){2, 2, 2}), 7);
    cr_assert_eq(search_record_rank((scheme_format){3, 3, 3}), 23);
    cr_assert_eq(search_record_rank((scheme_format){4, 4, 4}), 47);
    cr_assert_eq(search_record_rank((scheme_format){5, 5, 5}), 93);
    cr_assert_eq(search_record_rank((scheme_format){4, 5, 5}), 73);
    int d[3] = {3, 4, 5};
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int k = 0; k < 6; k++)
        cr_assert_eq(search_record_rank((scheme_format){d[perm[k][0]], d[perm[k][1]], d[perm[k][2]]}), 47);
    cr_assert_eq(search_record_rank((scheme_format){1, 4, 5}), 20);
    cr_assert_eq(search_record_rank((scheme_format){5, 1, 3}), 15);
    cr_assert_eq(search_record_rank((scheme_format){7, 4, 4}), 85);   /* the rows with a 7 */
    cr_assert_eq(search_record_rank_z((scheme_format){7, 7, 7}), 250);
    cr_assert_eq(search_record_rank((scheme_format){8, 2, 2}), -1);
}

Test(search_misc, params_round_trip_and_errors)
{
    search_params p;
    search_params_default(&p);
    char err[256];
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    search_config c;
    search_config_default(&c);
    cr_assert(search_config_set(&c, SEARCH_PARAM_DIMS, "2x4x5", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_SEED, "0x123456789abcdef", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_TIME, "1m15s", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_POOL_UP, "0.375", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_PLUS_MAX, "3", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.time_limit, 75.0);
    char *text = search_config_to_text(&c);
    cr_assert(strstr(text, "backend=cpu\n") && strstr(text, "threads=1\n") && !strstr(text, "warps="),
              "the record holds the backend and the rows it reads:\n%s", text);
    search_config q;
    search_config_default(&q);
    cr_assert(search_config_from_text(text, &q, err, sizeof err), "%s", err);
    free(text);
    cr_assert_eq(memcmp(&c.p.fmt, &q.p.fmt, sizeof c.p.fmt), 0);
    cr_assert_eq(q.p.seed, 0x123456789abcdefull);
    cr_assert_eq(q.p.time_limit, 75.0);
    cr_assert_eq(q.p.pool_up, 0.375);
    cr_assert_eq(q.p.plus_max, 3);
    cr_assert(q.given[SEARCH_PARAM_PLUS_MAX] && !q.given[SEARCH_PARAM_PLATEAU],
              "the given rows come back as given, the defaults as defaults");
    cr_assert_not(search_config_from_text("nonsense=1\n", &q, err, sizeof err));
    cr_assert(strstr(err, "nonsense"), "%s", err);
    cr_assert_not(search_config_from_text("threads=x\n", &q, err, sizeof err));
    cr_assert(strstr(err, "line 1") && strstr(err, "--threads x: expected 1..1024"), "%s", err);
    cr_assert_not(search_config_from_text("no equals sign\n", &q, err, sizeof err));
    search_params_default(&p);
    p.plateau_min = p.plateau + 1;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    search_params_default(&p);
    p.pool_min = p.pool_size + 1;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    search_params_default(&p);
    p.gen_max = 33;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "gen-max 33: expected 1..32"), "%s", err);
    /* 1 (no reduction search) is for symmetric walks only */
    p.gen_max = 1;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "gen-max 1: expected 2..32"), "%s", err);
    /* the lookahead: the plain GF(2) walk only */
    search_params_default(&p);
    p.fmt = (scheme_format){3, 3, 3};
    p.lookahead = 64;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.ring = SCHEME_RING_Z;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "--lookahead: only the plain walk over GF(2)"), "%s", err);
    p.ring = SCHEME_RING_F2;
    p.symmetry = SCHEME_SYM_C3;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "--lookahead: only the plain walk over GF(2)"), "%s", err);
    /* the degree bias: the plain walk over GF(2) or Z, no symmetry */
    search_params_default(&p);
    p.fmt = (scheme_format){3, 3, 3};
    p.degree_bias = 2;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.ring = SCHEME_RING_Z;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.symmetry = SCHEME_SYM_C3;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "--degree-bias: only the plain walk has it, over GF(2) and over Z"), "%s", err);
    /* the plus tabu: the plain walk over GF(2) or Z, no symmetry */
    search_params_default(&p);
    p.fmt = (scheme_format){3, 3, 3};
    p.plus_tabu = 1;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.ring = SCHEME_RING_Z;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.ring = SCHEME_RING_F2;
    p.symmetry = SCHEME_SYM_T2;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "--plus-tabu: only the plain walk"), "%s", err);
    /* the plus hold: the plain walk over GF(2), c3 and c3xc2 with gen-max 1 */
    search_params_default(&p);
    p.fmt = (scheme_format){3, 3, 3};
    p.plus_hold = 1000;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.symmetry = SCHEME_SYM_C3XC2;
    p.gen_max = 1;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.gen_max = 2;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "--plus-hold: the plain walk over GF(2) and the c3 and c3xc2 walks"), "%s", err);
    p.symmetry = SCHEME_SYM_NONE;
    p.ring = SCHEME_RING_Z;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "--plus-hold: the plain walk over GF(2)"), "%s", err);
    p.ring = SCHEME_RING_F2;
    p.fmt = (scheme_format){3, 4, 4};
    p.symmetry = SCHEME_SYM_T2;
    p.gen_max = 1;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "--plus-hold: the plain walk over GF(2)"), "%s", err);
    /* the weight bias: the plain walk, c3 or c3xc2, over GF(2) or Z; not t2 */
    search_params_default(&p);
    p.fmt = (scheme_format){3, 3, 3};
    p.weight_bias = 0.25;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.symmetry = SCHEME_SYM_C3XC2;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.ring = SCHEME_RING_Z;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.symmetry = SCHEME_SYM_NONE;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.ring = SCHEME_RING_F2;
    p.fmt = (scheme_format){3, 4, 4};
    p.symmetry = SCHEME_SYM_T2;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "--weight-bias: the walk with --symmetry t2"), "%s", err);
    p.weight_bias = 0;
    p.weight_bias_max = 0.3; /* a window from 0: refused with t2 too */
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "--weight-bias: the walk with --symmetry t2"), "%s", err);
    /* the window: its top above its bottom */
    p.symmetry = SCHEME_SYM_NONE;
    p.fmt = (scheme_format){3, 3, 3};
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
    p.weight_bias = 0.3;
    cr_assert_not(search_params_check(&p, err, sizeof err));
    cr_assert(strstr(err, "--weight-bias-max 0.3: expected above --weight-bias 0.3"), "%s", err);
    p.weight_bias_max = 0.5;
    cr_assert(search_params_check(&p, err, sizeof err), "%s", err);
}

/* The one-GPU walks (the symmetric and the Z backends) refuse, before any
 * device is touched, what they do not walk: the result cleared, status
 * BAD_PARAMS, the reason named.  Runs without a GPU (and without CUDA). */
Test(search_misc, the_one_gpu_walks_refuse_what_they_do_not_walk)
{
    search_params p;
    search_result r;
    search_params_default(&p);
    p.fmt = (scheme_format){3, 4, 4};
    p.symmetry = SCHEME_SYM_T2;
    cr_assert_eq(search_run_gpu_sym(&p, NULL, NULL, 0, NULL, &r), SEARCH_BAD_PARAMS);
    cr_assert(strstr(r.msg, "c3 and c3xc2 only"), "%s", r.msg);
    cr_assert(!r.best && !r.flips && !r.undone);
    p.fmt = (scheme_format){4, 4, 4};
    p.symmetry = SCHEME_SYM_C3; /* the plain walk's gen-max 5 */
    cr_assert_eq(search_run_gpu_sym(&p, NULL, NULL, 0, NULL, &r), SEARCH_BAD_PARAMS);
    cr_assert(strstr(r.msg, "gen-max 1, pool-fresh 1, isolated-plus 1"), "%s", r.msg);
    p.walk_len = p.walk_max + 1; /* the parameters' own check comes first */
    cr_assert_eq(search_run_gpu_sym(&p, NULL, NULL, 0, NULL, &r), SEARCH_BAD_PARAMS);
    cr_assert(strstr(r.msg, "walk lengths: expected walk-len <= walk-max"), "%s", r.msg);
    cr_assert_eq(search_run_gpu_z(&p, NULL, NULL, 0, NULL, &r), SEARCH_BAD_PARAMS);
    cr_assert(strstr(r.msg, "walk lengths: expected walk-len <= walk-max"), "%s", r.msg);
    search_params_default(&p);
    p.fmt = (scheme_format){4, 4, 5};
    cr_assert_eq(search_run_gpu_z(&p, NULL, NULL, 0, NULL, &r), SEARCH_BAD_PARAMS);
    cr_assert(strstr(r.msg, "walks over Z only (give --ring z)"), "%s", r.msg);
    p.ring = SCHEME_RING_Z;
    p.coef_max = 2;
    cr_assert_eq(search_run_gpu_z(&p, NULL, NULL, 0, NULL, &r), SEARCH_BAD_PARAMS);
    cr_assert(strstr(r.msg, "--coef-max 2: the GPU walk over Z holds coefficients in {-1, 0, 1}"), "%s", r.msg);
    p.coef_max = 1;
    p.degree_bias = 2; /* the CPU walk over Z has it, the GPU's not */
    cr_assert_eq(search_run_gpu_z(&p, NULL, NULL, 0, NULL, &r), SEARCH_BAD_PARAMS);
    cr_assert(strstr(r.msg, "--degree-bias: the GPU walk over Z does not have it"), "%s", r.msg);
    cr_assert(!r.best && !r.flips && !r.undone);
}

/* The weight bias of walker k of n (cuda/walk_bias.h): one for all, or the
 * window from its bottom (walker 0) to its top (walker n - 1) in equal steps. */
Test(search_misc, the_weight_bias_window_is_spread_evenly_over_the_walkers)
{
    cr_assert_float_eq(cuda_walk_bias_at(0.25, 0, 3, 8), 0.25, 1e-12);   /* no window */
    cr_assert_float_eq(cuda_walk_bias_at(0.25, 0.1, 3, 8), 0.25, 1e-12); /* top below bottom: none */
    cr_assert_float_eq(cuda_walk_bias_at(0.1, 0.5, 0, 1), 0.1, 1e-12);   /* one walker */
    const double want[5] = {0.1, 0.2, 0.3, 0.4, 0.5};
    for (int k = 0; k < 5; k++)
        cr_assert_float_eq(cuda_walk_bias_at(0.1, 0.5, k, 5), want[k], 1e-12, "walker %d of 5", k);
    cr_assert_float_eq(cuda_walk_bias_at(0, 0.3, 1, 2), 0.3, 1e-12);
}

/* Every row of search/params.def: its default passes its own range, the
 * record spells the default back to the same value, and a value just outside
 * the range is refused while the ends are taken. */
Test(search_misc, every_parameter_row_parses_its_range_and_round_trips)
{
    char err[256], v[64], w[64];
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++) {
        const search_param_info *r = search_param(i);
        cr_assert(r && r->name && r->help && r->expected && r->arg, "row %d", i);
        cr_assert_eq(search_param_find(r->name), i, "%s", r->name);
        search_config c, d;
        search_config_default(&c);
        search_config_value(&c, i, v, sizeof v);
        search_config_default(&d);
        cr_assert(search_config_set(&d, i, v, err, sizeof err), "%s: its default %s: %s", r->name, v, err);
        search_config_value(&d, i, w, sizeof w);
        cr_assert_str_eq(v, w, "%s", r->name);
        if (r->type != SEARCH_PT_INT && r->type != SEARCH_PT_U64)
            continue;
        snprintf(v, sizeof v, "%.0f", r->lo);
        cr_assert(search_config_set(&d, i, v, err, sizeof err), "%s %s: %s", r->name, v, err);
        if (r->hi < 1e15) {
            snprintf(v, sizeof v, "%.0f", r->hi);
            cr_assert(search_config_set(&d, i, v, err, sizeof err), "%s %s: %s", r->name, v, err);
            snprintf(v, sizeof v, "%.0f", r->hi + 1);
            cr_assert_not(search_config_set(&d, i, v, err, sizeof err), "%s %s taken", r->name, v);
            cr_assert(strstr(err, r->expected), "%s: %s", r->name, err);
        }
        if (r->lo >= 1) {
            snprintf(v, sizeof v, "%.0f", r->lo - 1);
            cr_assert_not(search_config_set(&d, i, v, err, sizeof err), "%s %s taken", r->name, v);
        }
    }
}

/* A row given for a backend that does not read it is refused, naming it; the
 * GPU's defaults (the gpu column) replace the rows not given, and a given row
 * keeps its value. */
Test(search_misc, backends_refuse_rows_they_do_not_read_and_take_their_defaults)
{
    char err[256];
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++) {
        const search_param_info *r = search_param(i);
        for (int b = 0; b < 2; b++) {
            unsigned use = b ? SEARCH_USE_GPU : SEARCH_USE_CPU;
            search_config c;
            search_config_default(&c);
            char v[64];
            search_config_value(&c, i, v, sizeof v);
            cr_assert(search_config_set(&c, i, v, err, sizeof err), "%s", err);
            if (i == SEARCH_PARAM_BACKEND)
                continue;
            bool ok = search_config_resolve(&c, b ? SEARCH_BACKEND_GPU : SEARCH_BACKEND_CPU, err, sizeof err);
            if (r->use & use)
                cr_assert(ok || strstr(err, "plateau") || strstr(err, "pool-min"), "%s on %s: %s", r->name,
                          b ? "gpu" : "cpu", err);
            else {
                cr_assert_not(ok, "--%s is taken by the %s backend, which does not read it", r->name,
                              b ? "gpu" : "cpu");
                char want[64];
                snprintf(want, sizeof want, "--%s: the %s backend does not use it", r->name, b ? "gpu" : "cpu");
                cr_assert(strstr(err, want), "%s", err);
            }
        }
    }
    search_config c;
    search_config_default(&c);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++)
        cr_assert_not(search_config_differs(&c, i, SEARCH_BACKEND_GPU) && (search_param(i)->use & SEARCH_USE_GPU) &&
                          i != SEARCH_PARAM_BACKEND,
                      "%s is not the GPU's default", search_param(i)->name);
    cr_assert_eq(c.p.plateau, 500u);
    cr_assert(c.p.plateau_min <= c.p.plateau, "the bounds follow the GPU's plateau");
    search_config_default(&c);
    cr_assert(search_config_set(&c, SEARCH_PARAM_WALK_LEN, "777", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.walk_len, 777u);
    cr_assert_eq(c.p.pool_min, 4, "the rows not given keep the GPU's defaults");
    /* the library path: search_gpu_params swaps only fields left at the CPU default */
    search_params p, q;
    search_params_default(&p);
    p.plus_max = 5;
    search_gpu_options o;
    search_gpu_options_default(&o);
    search_gpu_params(&p, &o, &q);
    cr_assert_eq(q.plus_max, 5);
    cr_assert_eq(q.plateau, 500u);
    cr_assert_eq(q.walk_len, 1000000u);
    cr_assert(search_params_check(&q, err, sizeof err), "%s", err);
}

/* The plateau's bounds on the GPU: --plateau unless given, so that the GPU's
 * plateau stays fixed by default (500 steps, or the given --plateau) and adapts
 * only where a bound is given; the symmetric and Z GPU walks, which keep it
 * fixed, refuse a bound; the CPU's follow its own rule. */
Test(search_misc, the_gpu_plateau_adapts_only_where_a_bound_is_given)
{
    char err[256];
    search_config c;
    search_config_default(&c);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    cr_assert(c.p.plateau == 500 && c.p.plateau_min == 500 && c.p.plateau_max == 500, "%llu %llu..%llu",
              (unsigned long long)c.p.plateau, (unsigned long long)c.p.plateau_min,
              (unsigned long long)c.p.plateau_max);
    search_config_default(&c);
    cr_assert(search_config_set(&c, SEARCH_PARAM_PLATEAU, "20000", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    cr_assert(c.p.plateau_min == 20000 && c.p.plateau_max == 20000, "a given plateau stays fixed on the GPU");
    search_config_default(&c);
    cr_assert(search_config_set(&c, SEARCH_PARAM_PLATEAU_MAX, "200000", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    cr_assert(c.p.plateau == 500 && c.p.plateau_min == 500 && c.p.plateau_max == 200000);
    search_config_default(&c);
    cr_assert(search_config_set(&c, SEARCH_PARAM_PLATEAU_MIN, "100", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    cr_assert(c.p.plateau == 20000 && c.p.plateau_min == 100 && c.p.plateau_max == 200000, "the CPU's rule");
    /* the walks that keep it fixed refuse a bound, naming it */
    static const char *const walks[][2] = {{"symmetry", "c3"}, {"ring", "z"}};
    for (int k = 0; k < 2; k++) {
        search_config_default(&c);
        cr_assert(search_config_set(&c, search_param_find(walks[k][0]), walks[k][1], err, sizeof err), "%s", err);
        cr_assert(search_config_set(&c, SEARCH_PARAM_PLATEAU_MAX, "200000", err, sizeof err), "%s", err);
        cr_assert_not(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "--%s %s took a bound",
                      walks[k][0], walks[k][1]);
        cr_assert(strstr(err, "--plateau-max: the") && strstr(err, "keeps its plateau fixed"), "%s", err);
        search_config_default(&c);
        cr_assert(search_config_set(&c, search_param_find(walks[k][0]), walks[k][1], err, sizeof err), "%s", err);
        cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
        cr_assert_eq(c.p.plateau_min, c.p.plateau);
        cr_assert_eq(c.p.plateau_max, c.p.plateau);
    }
    /* over Z through GF(2) walks (--via-f2) the warp walk adapts it */
    search_config_default(&c);
    cr_assert(search_config_set(&c, SEARCH_PARAM_RING, "z", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_VIA_F2, "30s", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_PLATEAU_MAX, "200000", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.plateau_max, 200000u);
    /* the library path: bounds at the CPU's defaults count as not given */
    search_params p, q;
    search_params_default(&p);
    search_gpu_options o;
    search_gpu_options_default(&o);
    search_gpu_params(&p, &o, &q);
    cr_assert(q.plateau == 500 && q.plateau_min == 500 && q.plateau_max == 500);
    p.plateau_max = 100000;
    search_gpu_params(&p, &o, &q);
    cr_assert(q.plateau == 500 && q.plateau_min == 500 && q.plateau_max == 100000);
}

/* A large format (n m p >= 150) on the plain walk over GF(2) takes, for rows
 * not given, the weight bias 0.2, walks of 1e8 and pool-min 4 below n m p = 216
 * and 1 from there on the CPU, the
 * bias 0.2 and a plateau of 200000 on the GPU; smaller formats, the symmetric
 * walks and the walks over Z keep theirs; a given row wins, and a given window
 * keeps the bias at the table's 0. */
static search_config resolved(const char *const *kv, int n, search_backend b)
{
    char err[256];
    search_config c;
    search_config_default(&c);
    for (int i = 0; i < n; i += 2)
        cr_assert(search_config_set(&c, search_param_find(kv[i]), kv[i + 1], err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, b, err, sizeof err), "%s", err);
    return c;
}

Test(search_misc, large_formats_take_their_own_defaults_on_the_plain_walk)
{
    const char *big[] = {"dims", "5x5x6"};
    search_config c = resolved(big, 2, SEARCH_BACKEND_CPU);
    cr_assert(c.p.weight_bias == 0.2 && c.p.walk_len == 100000000u && c.p.pool_min == 4, "%g %llu %d",
              c.p.weight_bias, (unsigned long long)c.p.walk_len, c.p.pool_min);
    cr_assert(search_config_large(&c, SEARCH_BACKEND_CPU));
    /* pool-min by band: 4 for 150 <= n m p < 216, 1 from 216 on */
    static const struct {
        const char *dims;
        int pool_min;
    } band[] = {{"5x6x6", 4}, {"4x6x8", 4}, {"6x6x6", 1}, {"6x6x7", 1}, {"7x7x7", 1}};
    for (size_t k = 0; k < sizeof band / sizeof band[0]; k++) {
        const char *kv[] = {"dims", band[k].dims};
        c = resolved(kv, 2, SEARCH_BACKEND_CPU);
        cr_assert(c.p.weight_bias == 0.2 && c.p.walk_len == 100000000u && c.p.pool_min == band[k].pool_min,
                  "%s: pool-min %d, expected %d", band[k].dims, c.p.pool_min, band[k].pool_min);
    }
    const char *below[] = {"dims", "5x5x5"}; /* 125 */
    c = resolved(below, 2, SEARCH_BACKEND_CPU);
    cr_assert(c.p.weight_bias == 0 && c.p.walk_len == 1000u && c.p.pool_min == 16);
    cr_assert_not(search_config_large(&c, SEARCH_BACKEND_CPU));
    /* the GPU's: the bias and a fixed plateau of 200000, its own walks and pool-min */
    c = resolved(big, 2, SEARCH_BACKEND_GPU);
    cr_assert(c.p.weight_bias == 0.2 && c.p.plateau == 200000u && c.p.plateau_min == 200000u &&
                  c.p.plateau_max == 200000u && c.p.walk_len == 1000000u && c.p.pool_min == 4,
              "the GPU's large: %g %llu %llu..%llu %llu %d", c.p.weight_bias, (unsigned long long)c.p.plateau,
              (unsigned long long)c.p.plateau_min, (unsigned long long)c.p.plateau_max,
              (unsigned long long)c.p.walk_len, c.p.pool_min);
    cr_assert(search_config_large(&c, SEARCH_BACKEND_GPU));
    c = resolved(below, 2, SEARCH_BACKEND_GPU);
    cr_assert(c.p.weight_bias == 0 && c.p.plateau == 500u && c.p.walk_len == 1000000u && c.p.pool_min == 4,
              "the GPU's own below 150");
    const char *gplateau[] = {"dims", "6x6x6", "plateau", "20000"};
    c = resolved(gplateau, 4, SEARCH_BACKEND_GPU);
    cr_assert(c.p.weight_bias == 0.2 && c.p.plateau == 20000u && c.p.plateau_min == 20000u && c.p.plateau_max == 20000u,
              "a given plateau wins on the GPU, its bounds follow it");
    const char *gz[] = {"dims", "6x6x6", "ring", "z"};
    c = resolved(gz, 4, SEARCH_BACKEND_GPU);
    cr_assert(c.p.weight_bias == 0 && !search_config_large(&c, SEARCH_BACKEND_GPU), "the GPU walk over Z's own");
    const char *sym[] = {"dims", "6x6x6", "symmetry", "c3"};
    c = resolved(sym, 4, SEARCH_BACKEND_CPU);
    cr_assert(c.p.weight_bias == 0 && c.p.walk_len == 166666667u && c.p.pool_min == 16, "the symmetric walk's");
    const char *z[] = {"dims", "6x6x6", "ring", "z"};
    c = resolved(z, 4, SEARCH_BACKEND_CPU);
    cr_assert(c.p.weight_bias == 0 && c.p.walk_len == 10000000u && c.p.plateau == 200000u && c.p.pool_min == 16,
              "over Z: the CPU walk over Z's own, not the large format's");
    cr_assert_not(search_config_large(&c, SEARCH_BACKEND_CPU));
    const char *given[] = {"dims", "5x5x6", "walk-len", "1000", "weight-bias", "0.1"};
    c = resolved(given, 6, SEARCH_BACKEND_CPU);
    cr_assert(c.p.weight_bias == 0.1 && c.p.walk_len == 1000u && c.p.pool_min == 4, "given rows win");
    const char *given_pool[] = {"dims", "5x5x6", "pool-min", "1"};
    c = resolved(given_pool, 4, SEARCH_BACKEND_CPU);
    cr_assert_eq(c.p.pool_min, 1, "a given pool-min wins in the band");
    const char *window[] = {"dims", "6x6x6", "weight-bias-max", "0.4"};
    c = resolved(window, 4, SEARCH_BACKEND_CPU);
    cr_assert(c.p.weight_bias == 0 && c.p.weight_bias_max == 0.4 && c.p.walk_len == 100000000u);
    /* CPU walkers beside a GPU take the CPU's reading, large format included */
    char err[256];
    const char *beside[] = {"dims", "6x6x6", "host-threads", "2"};
    c = resolved(beside, 4, SEARCH_BACKEND_GPU);
    search_params q;
    cr_assert(search_config_beside(&c, &q, err, sizeof err), "%s", err);
    cr_assert(q.walk_len == 100000000u && q.threads == 2, "%llu", (unsigned long long)q.walk_len);
}

/* A plateau not given follows given bounds into their range, on both backends
 * and for the CPU walkers beside a GPU (whose plateau the run never gives): the
 * bounds alone fix it (the thirty-fifth session's device run refused
 * "--host-threads 14 --plateau-min 200000 --plateau-max 200000" on <6,6,6>,
 * the CPU's plateau of 20000 lying below the bounds); a given plateau outside
 * given bounds stays an error. */
Test(search_misc, a_plateau_not_given_follows_given_bounds)
{
    static const search_backend backends[2] = {SEARCH_BACKEND_CPU, SEARCH_BACKEND_GPU};
    for (int b = 0; b < 2; b++) {
        const char *fixed[] = {"dims", "6x6x6", "plateau-min", "200000", "plateau-max", "200000"};
        search_config c = resolved(fixed, 6, backends[b]);
        cr_assert(c.p.plateau == 200000u && c.p.plateau_min == 200000u && c.p.plateau_max == 200000u,
                  "%s: %llu %llu..%llu", search_backend_name(backends[b]), (unsigned long long)c.p.plateau,
                  (unsigned long long)c.p.plateau_min, (unsigned long long)c.p.plateau_max);
        const char *low[] = {"dims", "6x6x6", "plateau-max", "1000"};
        c = resolved(low, 4, backends[b]);
        cr_assert(c.p.plateau == 1000u && c.p.plateau_min <= 1000u && c.p.plateau_max == 1000u,
                  "%s: %llu %llu..%llu", search_backend_name(backends[b]), (unsigned long long)c.p.plateau,
                  (unsigned long long)c.p.plateau_min, (unsigned long long)c.p.plateau_max);
        const char *high[] = {"dims", "3x3x3", "plateau-min", "30000"};
        c = resolved(high, 4, backends[b]);
        cr_assert(c.p.plateau == 30000u && c.p.plateau_min == 30000u && c.p.plateau_max >= 30000u);
    }
    char err[256];
    const char *beside[] = {"dims",        "6x6x6",  "host-threads", "14",
                            "plateau-min", "200000", "plateau-max",  "200000"};
    search_config c = resolved(beside, 8, SEARCH_BACKEND_GPU);
    search_params q;
    cr_assert(search_config_beside(&c, &q, err, sizeof err), "%s", err);
    cr_assert(q.plateau == 200000u && q.plateau_min == 200000u && q.plateau_max == 200000u && q.threads == 14,
              "beside: %llu %llu..%llu", (unsigned long long)q.plateau, (unsigned long long)q.plateau_min,
              (unsigned long long)q.plateau_max);
    /* given on both sides and out of order: an error, naming the rule */
    search_config_default(&c);
    cr_assert(search_config_set(&c, SEARCH_PARAM_PLATEAU, "5000", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_PLATEAU_MIN, "10000", err, sizeof err), "%s", err);
    cr_assert_not(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "a given plateau moved");
    cr_assert(strstr(err, "plateau-min <= plateau <= plateau-max"), "%s", err);
}

/* --siblings: the CPU's 0 and the GPU's 1 (the warp walk's collect while the
 * level has room, as before the row); the symmetric and Z GPU walks, which
 * bring their own schemes home, refuse it, naming it; --via-f2 takes it. */
Test(search_misc, siblings_default_per_backend_and_the_walks_that_refuse_them)
{
    char err[256];
    search_config c;
    search_config_default(&c);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.siblings, 0);
    search_config_default(&c);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.siblings, 1);
    search_config_default(&c);
    cr_assert(search_config_set(&c, SEARCH_PARAM_SIBLINGS, "2", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.siblings, 2);
    cr_assert_not(search_config_set(&c, SEARCH_PARAM_SIBLINGS, "3", err, sizeof err), "--siblings 3 taken");
    static const char *const walks[][2] = {{"symmetry", "c3"}, {"ring", "z"}};
    for (int k = 0; k < 2; k++) {
        search_config_default(&c);
        cr_assert(search_config_set(&c, search_param_find(walks[k][0]), walks[k][1], err, sizeof err), "%s", err);
        cr_assert(search_config_set(&c, SEARCH_PARAM_SIBLINGS, "2", err, sizeof err), "%s", err);
        cr_assert_not(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "--%s %s took --siblings",
                      walks[k][0], walks[k][1]);
        cr_assert(strstr(err, "--siblings: the") && strstr(err, "brings its own schemes home"), "%s", err);
        /* the CPU's walks all read it */
        search_config_default(&c);
        cr_assert(search_config_set(&c, search_param_find(walks[k][0]), walks[k][1], err, sizeof err), "%s", err);
        cr_assert(search_config_set(&c, SEARCH_PARAM_SIBLINGS, "2", err, sizeof err), "%s", err);
        cr_assert(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    }
    search_config_default(&c);
    cr_assert(search_config_set(&c, SEARCH_PARAM_RING, "z", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_VIA_F2, "30s", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_SIBLINGS, "2", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    /* the library path: the CPU's 0 counts as not given */
    search_params p, q;
    search_params_default(&p);
    search_gpu_options o;
    search_gpu_options_default(&o);
    search_gpu_params(&p, &o, &q);
    cr_assert_eq(q.siblings, 1);
    p.siblings = 2;
    search_gpu_params(&p, &o, &q);
    cr_assert_eq(q.siblings, 2);
}

/* The record of a run from before the table (no backend, no given line, every
 * field written out): values equal to the CPU default count as not given, so a
 * GPU run resumed from it takes the GPU's defaults. */
Test(search_misc, records_from_before_the_table_read_as_defaults)
{
    char err[256];
    search_config c;
    search_config_default(&c);
    cr_assert(search_config_from_text("dims=4x4x4\ntarget-rank=0\ntime=60\nthreads=1\nplateau=20000\n"
                                      "plus-max=3\nwalk-len=1000\n", &c, err, sizeof err), "%s", err);
    cr_assert(c.given[SEARCH_PARAM_DIMS] && c.given[SEARCH_PARAM_PLUS_MAX] && c.given[SEARCH_PARAM_TIME]);
    cr_assert(!c.given[SEARCH_PARAM_PLATEAU] && !c.given[SEARCH_PARAM_WALK_LEN] && !c.given[SEARCH_PARAM_THREADS]);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    cr_assert_eq(c.p.plateau, 500u);
    cr_assert_eq(c.p.plus_max, 3);
}

Test(search_misc, luby_sequence)
{
    static const uint64_t want[] = {1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, 1};
    for (int i = 0; i < 16; i++)
        cr_assert_eq(search_luby((uint64_t)i + 1), want[i], "luby(%d)", i + 1);
}

/* ------------------------------------------------------------ structure */

/* A factor as a key a reference can sort: over GF(2) the word; over Z the
 * coefficients with their sign normalised (first nonzero entry positive), so
 * that factors equal up to sign get one key. */
typedef struct stats_key {
    int8_t v[3][SCHEME_MAX_ENTRIES];
    int index;
} stats_key;

static void stats_key_of(const scheme *s, int r, stats_key *k)
{
    memset(k, 0, sizeof *k);
    k->index = r;
    for (int pos = 0; pos < 3; pos++) {
        const int n = scheme_factor_size(s->fmt, pos);
        if (s->ring != SCHEME_RING_Z) {
            for (int e = 0; e < n; e++)
                k->v[pos][e] = (int8_t)((s->terms[r].f[pos] >> e) & 1);
            continue;
        }
        int sg = 0;
        for (int e = 0; e < n && !sg; e++)
            sg = s->zterms[r].z[pos][e] > 0 ? 1 : s->zterms[r].z[pos][e] < 0 ? -1 : 0;
        for (int e = 0; e < n; e++)
            k->v[pos][e] = (int8_t)(sg * s->zterms[r].z[pos][e]);
    }
}

/* Positions compared by the sort below (a bit mask of a, b, c). */
static int g_stats_mask;

static int stats_key_cmp(const void *x, const void *y)
{
    const stats_key *a = x, *b = y;
    for (int pos = 0; pos < 3; pos++)
        if (g_stats_mask >> pos & 1) {
            const int c = memcmp(a->v[pos], b->v[pos], SCHEME_MAX_ENTRIES);
            if (c)
                return c;
        }
    return 0;
}

/* Sorts keys by the positions of mask; returns sum over groups of equal keys
 * of C(size, 2), and sets group[index] = that group's size. */
static uint64_t stats_groups(stats_key *k, int rank, int mask, int *distinct, int *group)
{
    g_stats_mask = mask;
    qsort(k, (size_t)rank, sizeof *k, stats_key_cmp);
    uint64_t pairs = 0;
    *distinct = 0;
    for (int i = 0; i < rank;) {
        int j = i;
        while (j < rank && stats_key_cmp(&k[i], &k[j]) == 0)
            j++;
        pairs += (uint64_t)(j - i) * (uint64_t)(j - i - 1) / 2;
        for (int t = i; t < j; t++)
            if (group)
                group[k[t].index] = j - i;
        ++*distinct;
        i = j;
    }
    return pairs;
}

/* The rank of an integer matrix modulo the prime p, by textbook elimination. */
static int rank_mod_p(const int *m, int rows, int cols, int64_t p)
{
    int64_t a[SCHEME_MAX_ENTRIES][SCHEME_MAX_ENTRIES];
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            a[i][j] = ((m[i * cols + j] % p) + p) % p;
    int r = 0;
    for (int c = 0; c < cols && r < rows; c++) {
        int piv = r;
        while (piv < rows && a[piv][c] == 0)
            piv++;
        if (piv == rows)
            continue;
        for (int j = 0; j < cols; j++) {
            const int64_t t = a[r][j];
            a[r][j] = a[piv][j];
            a[piv][j] = t;
        }
        int64_t inv = 1, b = a[r][c], e = p - 2; /* Fermat */
        for (; e; e >>= 1, b = b * b % p)
            if (e & 1)
                inv = inv * b % p;
        for (int i = 0; i < rows; i++)
            if (i != r && a[i][c]) {
                const int64_t f = a[i][c] * inv % p;
                for (int j = 0; j < cols; j++)
                    a[i][j] = ((a[i][j] - f * a[r][j]) % p + p) % p;
            }
        r++;
    }
    return r;
}

/* A factor's rank as the reference sees it: mod 2 over GF(2); over Q the
 * largest of its ranks modulo three primes near 2^31, which is exact: the
 * rank mod p never passes the rank over Q, and a nonzero minor of int8
 * entries (below 3e20 by Hadamard's bound) is not divisible by all three
 * (their product passes 9e27), so one of them keeps it. */
static int factor_rank_reference(const scheme *s, int r, int pos)
{
    const int rows = scheme_factor_rows(s->fmt, pos), cols = scheme_factor_cols(s->fmt, pos);
    int m[SCHEME_MAX_ENTRIES];
    for (int e = 0; e < rows * cols; e++)
        m[e] = s->ring == SCHEME_RING_Z ? s->zterms[r].z[pos][e] : (int)(s->terms[r].f[pos] >> e & 1);
    if (s->ring != SCHEME_RING_Z)
        return rank_mod_p(m, rows, cols, 2);
    const int64_t primes[3] = {2147483647, 2147483629, 2147483587};
    int best = 0;
    for (int k = 0; k < 3; k++) {
        const int got = rank_mod_p(m, rows, cols, primes[k]);
        best = got > best ? got : best;
    }
    return best;
}

/* The reference: groups by sorting (search_scheme_stats compares pairs). */
static void stats_reference(const scheme *s, search_stats *want)
{
    memset(want, 0, sizeof *want);
    want->rank = s->rank;
    stats_key *k = calloc((size_t)(s->rank ? s->rank : 1), sizeof *k);
    int *g = calloc((size_t)(s->rank ? s->rank : 1) * 3, sizeof *g);
    for (int r = 0; r < s->rank; r++)
        stats_key_of(s, r, &k[r]);
    for (int pos = 0; pos < 3; pos++)
        want->flip_pairs[pos] = stats_groups(k, s->rank, 1 << pos, &want->distinct[pos], g + pos * s->rank);
    want->flip_pairs_total = want->flip_pairs[0] + want->flip_pairs[1] + want->flip_pairs[2];
    /* equal at two positions or three: each position pair counts a pair equal
     * at all three once, so subtract those twice */
    int unused;
    uint64_t two = 0;
    for (int pos = 0; pos < 3; pos++)
        two += stats_groups(k, s->rank, 7 & ~(1 << pos), &unused, NULL);
    want->reducible_pairs = two - 2 * stats_groups(k, s->rank, 7, &unused, NULL);
    for (int r = 0; r < s->rank; r++) {
        want->isolated += g[r] == 1 && g[s->rank + r] == 1 && g[2 * s->rank + r] == 1;
        int k[3] = {factor_rank_reference(s, r, 0), factor_rank_reference(s, r, 1), factor_rank_reference(s, r, 2)};
        int lo = k[0] < k[1] ? k[0] : k[1], hi = k[0] < k[1] ? k[1] : k[0];
        const int mid = k[2] < lo ? lo : k[2] > hi ? hi : k[2];
        lo = k[2] < lo ? k[2] : lo;
        hi = k[2] > hi ? k[2] : hi;
        want->factor_ranks[lo][mid][hi]++;
        for (int pos = 0; pos < 3; pos++)
            for (int e = 0; e < scheme_factor_size(s->fmt, pos); e++) {
                const int v = s->ring == SCHEME_RING_Z ? s->zterms[r].z[pos][e] : (int)(s->terms[r].f[pos] >> e & 1);
                want->nonzeros[pos] += v != 0;
                want->max_coef = abs(v) > want->max_coef ? abs(v) : want->max_coef;
            }
    }
    free(k);
    free(g);
}

static void stats_agree(const scheme *s, uint64_t seed, const char *what)
{
    search_stats got, want;
    search_scheme_stats(s, &got);
    stats_reference(s, &want);
    char fb[32];
    const char *f = scheme_format_str(s->fmt, fb);
    for (int pos = 0; pos < 3; pos++) {
        cr_assert_eq(got.flip_pairs[pos], want.flip_pairs[pos], "%s %s pos %d: flip pairs %llu, reference %llu (seed %llu)",
                     what, f, pos, (unsigned long long)got.flip_pairs[pos], (unsigned long long)want.flip_pairs[pos],
                     (unsigned long long)seed);
        cr_assert_eq(got.distinct[pos], want.distinct[pos], "%s %s pos %d: distinct %d, reference %d (seed %llu)", what,
                     f, pos, got.distinct[pos], want.distinct[pos], (unsigned long long)seed);
        cr_assert_eq(got.nonzeros[pos], want.nonzeros[pos], "%s %s pos %d: nonzeros (seed %llu)", what, f, pos,
                     (unsigned long long)seed);
    }
    cr_assert_eq(got.flip_pairs_total, want.flip_pairs_total, "%s %s (seed %llu)", what, f, (unsigned long long)seed);
    cr_assert_eq(got.reducible_pairs, want.reducible_pairs, "%s %s: reducible %llu, reference %llu (seed %llu)", what,
                 f, (unsigned long long)got.reducible_pairs, (unsigned long long)want.reducible_pairs,
                 (unsigned long long)seed);
    cr_assert_eq(got.isolated, want.isolated, "%s %s: isolated %d, reference %d (seed %llu)", what, f, got.isolated,
                 want.isolated, (unsigned long long)seed);
    cr_assert_eq(got.max_coef, want.max_coef, "%s %s: largest (seed %llu)", what, f, (unsigned long long)seed);
    for (int x = 0; x <= SEARCH_FACTOR_RANK_MAX; x++)
        for (int y = 0; y <= SEARCH_FACTOR_RANK_MAX; y++)
            for (int z = 0; z <= SEARCH_FACTOR_RANK_MAX; z++)
                cr_assert_eq(got.factor_ranks[x][y][z], want.factor_ranks[x][y][z],
                             "%s %s: %d terms of factor ranks %d%d%d, reference %d (seed %llu)", what, f,
                             got.factor_ranks[x][y][z], x, y, z, want.factor_ranks[x][y][z], (unsigned long long)seed);
    cr_assert_eq(got.rank, s->rank);
    /* the walkers' own counts of ordered (i, j, x) */
    const uint64_t ordered = s->ring == SCHEME_RING_Z ? search_z_count_flips(s) : search_count_flips(s->terms, s->rank);
    cr_assert_eq(2 * got.flip_pairs_total, ordered, "%s %s: 2 x %llu pairs, the walkers' count %llu (seed %llu)", what,
                 f, (unsigned long long)got.flip_pairs_total, (unsigned long long)ordered, (unsigned long long)seed);
}

/* Random terms, many of which copy a factor (over Z perhaps negated) or two
 * from an earlier term, so that flip pairs, reducible pairs and repeated
 * terms all occur.  Not schemes of the format: the counts are of any terms. */
static scheme *stats_random(scheme_format f, scheme_ring ring, int rank, scheme_rng *rng)
{
    scheme *s = scheme_new(f, ring, rank);
    for (int r = 0; r < rank; r++) {
        scheme_zterm t;
        memset(&t, 0, sizeof t);
        for (int pos = 0; pos < 3; pos++) {
            const int n = scheme_factor_size(f, pos);
            const uint32_t how = scheme_rng_below(rng, 8);
            if (r > 0 && how < 3) { /* copy an earlier term's factor */
                const int from = (int)scheme_rng_below(rng, (uint32_t)r);
                const int sg = ring == SCHEME_RING_Z && how == 0 ? -1 : 1;
                for (int e = 0; e < n; e++)
                    t.z[pos][e] = (int8_t)(sg * (ring == SCHEME_RING_Z ? s->zterms[from].z[pos][e]
                                                                     : (int)(s->terms[from].f[pos] >> e & 1)));
                continue;
            }
            bool any = false;
            while (!any)
                for (int e = 0; e < n; e++) {
                    const uint32_t c = scheme_rng_below(rng, ring == SCHEME_RING_Z ? 7 : 3);
                    /* mostly zeros; over Z -2..2, and now and then 3 */
                    t.z[pos][e] = (int8_t)(ring == SCHEME_RING_Z ? (c < 3 ? 0 : (int)c - 4 + (c >= 4)) : c == 0);
                    any = any || t.z[pos][e];
                }
        }
        if (ring == SCHEME_RING_Z)
            cr_assert(scheme_push_z(s, &t));
        else {
            uint64_t w[3] = {0, 0, 0};
            for (int pos = 0; pos < 3; pos++)
                for (int e = 0; e < scheme_factor_size(f, pos); e++)
                    w[pos] |= (uint64_t)(t.z[pos][e] != 0) << e;
            cr_assert(scheme_push(s, w[0], w[1], w[2]));
        }
    }
    return s;
}

Test(search_stats, agree_with_a_count_by_sorting)
{
    const uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    const int rounds = getenv("FLIPGRAPH_SANITIZED") ? 40 : 300;
    uint64_t seen_pairs = 0, seen_reducible = 0, seen_isolated = 0;
    int top_factor_rank = 0;
    for (int it = 0; it < rounds; it++) {
        const scheme_format f = formats[scheme_rng_below(&rng, NFORMATS)];
        const scheme_ring ring = it & 1 ? SCHEME_RING_Z : SCHEME_RING_F2;
        scheme *s = stats_random(f, ring, 1 + (int)scheme_rng_below(&rng, 60), &rng);
        stats_agree(s, seed, ring == SCHEME_RING_Z ? "random over Z" : "random over GF(2)");
        search_stats st;
        search_scheme_stats(s, &st);
        seen_pairs += st.flip_pairs_total;
        seen_reducible += st.reducible_pairs;
        seen_isolated += (uint64_t)st.isolated;
        for (int x = 0; x <= SEARCH_FACTOR_RANK_MAX; x++)
            for (int y = 0; y <= SEARCH_FACTOR_RANK_MAX; y++)
                for (int z = top_factor_rank + 1; z <= SEARCH_FACTOR_RANK_MAX; z++)
                    if (st.factor_ranks[x][y][z])
                        top_factor_rank = z;
        scheme_free(s);
    }
    cr_assert_geq(top_factor_rank, 4, "the random terms' factors never had a rank above %d (seed %llu)",
                  top_factor_rank, (unsigned long long)seed);
    cr_assert(seen_pairs && seen_reducible && seen_isolated, "the random terms never made %s (seed %llu)",
              !seen_pairs ? "a flip pair" : !seen_reducible ? "a reducible pair" : "an isolated term",
              (unsigned long long)seed);
    /* walked schemes, whose pairs the walk made */
    for (size_t i = 0; i < NFORMATS; i++) {
        int rank;
        scheme_term *t = standard_terms(formats[i], &rank, SCHEME_MAX_RANK);
        scheme *s = terms_scheme(formats[i], t, rank);
        for (int k = 0; k < 200; k++) {
            int a, b, x;
            if (!random_flip_pair(s->terms, s->rank, &rng, &a, &b, &x))
                break;
            search_flip(s->terms, &s->rank, a, b, x);
        }
        stats_agree(s, seed, "flipped standard algorithm");
        free(t);
        scheme_free(s);
    }
}

Test(search_stats, the_standard_algorithm_and_its_symmetries)
{
    const scheme_format fs[] = {{2, 2, 2}, {3, 3, 3}, {4, 4, 4}, {6, 6, 6}, {2, 3, 4}, {3, 4, 4}, {4, 3, 5}};
    for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) {
        const scheme_format f = fs[i];
        scheme *s = scheme_standard(f);
        search_stats st;
        search_scheme_stats(s, &st);
        /* a_ij b_jk c_ki: a_ij is in the p terms of its k, b_jk in n, c_ki in m */
        const uint64_t n = (uint64_t)f.n, m = (uint64_t)f.m, p = (uint64_t)f.p;
        cr_assert_eq(st.flip_pairs[0], n * m * p * (p - 1) / 2);
        cr_assert_eq(st.flip_pairs[1], m * p * n * (n - 1) / 2);
        cr_assert_eq(st.flip_pairs[2], p * n * m * (m - 1) / 2);
        cr_assert_eq(st.reducible_pairs, 0);
        cr_assert_eq(st.distinct[0], (int)(n * m));
        cr_assert_eq(st.distinct[1], (int)(m * p));
        cr_assert_eq(st.distinct[2], (int)(p * n));
        cr_assert_eq(st.nonzeros[0] + st.nonzeros[1] + st.nonzeros[2], 3 * n * m * p);
        cr_assert_eq(st.max_coef, 1);
        cr_assert_eq(st.factor_ranks[1][1][1], (int)(n * m * p), "<%d,%d,%d>: factor ranks 111", f.n, f.m, f.p);
        const bool square = f.n == f.m && f.m == f.p;
        cr_assert_eq(st.invariant[SCHEME_SYM_C3], square ? 1 : -1, "<%d,%d,%d> c3", f.n, f.m, f.p);
        cr_assert_eq(st.invariant[SCHEME_SYM_C3XC2], square ? 1 : -1, "<%d,%d,%d> c3xc2", f.n, f.m, f.p);
        cr_assert_eq(st.invariant[SCHEME_SYM_T2], f.m == f.p ? 1 : -1, "<%d,%d,%d> t2", f.n, f.m, f.p);
        /* c3xc2sK acts from n = 2K + 2 (below that it is c3xc2 or nothing) */
        for (int k = 1; k <= 3; k++)
            cr_assert_eq(st.invariant[SCHEME_SYM_C3XC2S1 + k - 1], square && f.n >= 2 * k + 2 ? 1 : -1,
                         "<%d,%d,%d> c3xc2s%d", f.n, f.m, f.p, k);
        /* without a_00 b_01 c_10, which no element fixes (a diagonal cube
         * a_ii b_ii c_ii is fixed by c3): invariant under none; twice a term:
         * a reducible pair */
        int r0 = -1;
        for (int r = 0; r < s->rank; r++)
            if (s->terms[r].f[0] == 1 && s->terms[r].f[1] == 2 && s->terms[r].f[2] == 1ull << f.n)
                r0 = r;
        cr_assert_geq(r0, 0);
        const scheme_term last = s->terms[r0];
        scheme_remove(s, r0);
        search_scheme_stats(s, &st);
        for (int g = SCHEME_SYM_C3; g <= SCHEME_SYM_C3XC2S3; g++)
            cr_assert_leq(st.invariant[g], 0, "<%d,%d,%d> without a term: invariant under %d", f.n, f.m, f.p, g);
        cr_assert(scheme_push(s, last.f[0], last.f[1], last.f[2]));
        cr_assert(scheme_push(s, last.f[0], last.f[1], last.f[2]));
        search_scheme_stats(s, &st);
        cr_assert_eq(st.reducible_pairs, 1);
        scheme_free(s);
    }
    /* Strassen's terms share no factor: every term isolated; the line */
    scheme *st7 = strassen_f2();
    search_stats st;
    search_scheme_stats(st7, &st);
    cr_assert_eq(st.flip_pairs_total, 0);
    cr_assert_eq(st.isolated, 7);
    char line[2048];
    search_stats_line(&st, line, sizeof line);
    cr_assert(strstr(line, "flip pairs 0 (a 0, b 0, c 0), reducible pairs 0, terms sharing no factor 7;"), "%s", line);
    cr_assert(strstr(line, "distinct factors a 7, b 7, c 7;"), "%s", line);
    cr_assert(strstr(line, ", largest 1; invariant under c3 "), "%s", line);
    /* every rank-7 scheme of <2,2,2> is Strassen's up to the changes of basis
     * (de Groote 1978), so this is every such scheme's count: six terms of
     * three rank-1 factors, one of three rank-2 ones */
    const char *ranks = strstr(line, "; factor ranks ");
    cr_assert(ranks && strcmp(ranks, "; factor ranks 111:6 222:1") == 0, "%s", line);
    scheme_free(st7);
    scheme *s3 = scheme_standard((scheme_format){3, 3, 3});
    search_scheme_stats(s3, &st);
    search_stats_line(&st, line, sizeof line);
    cr_assert(strstr(line, "flip pairs 81 (a 27, b 27, c 27)") && strstr(line, "nonzero coefficients 81 (a 27, b 27, c 27)") &&
                  strstr(line, "invariant under c3 yes, c3xc2 yes, t2 yes") && !strstr(line, "c3xc2s"),
              "%s", line);
    scheme_free(s3);
    /* the start of <5,5,5> from the cubes 10001,01100,00010: closed under the
     * swap of 0 and 4 (c3xc2s1), not under the reversal (01100 -> 00110) */
    search_cubes cubes;
    cr_assert(search_cubes_parse("10001,01100,00010", &cubes));
    char err[256];
    scheme *s5 = search_symmetric_start((scheme_format){5, 5, 5}, SCHEME_SYM_C3XC2S1, &cubes, err, sizeof err);
    cr_assert(s5, "%s", err);
    search_scheme_stats(s5, &st);
    search_stats_line(&st, line, sizeof line);
    cr_assert(strstr(line, "invariant under c3 yes, c3xc2 no, t2 ") && strstr(line, ", c3xc2s1 yes") &&
                  !strstr(line, "c3xc2s2"),
              "%s", line);
    scheme_free(s5);
}

/* ------------------------------------------------------------ the command */

static const char *bin(void)
{
    const char *b = getenv("FLIPGRAPH_BIN");
    cr_assert(b && *b, "FLIPGRAPH_BIN is not set");
    return b;
}

/* Runs "flipgraph ARGS" with output to files in dir; returns the exit code. */
static int run(const char *dir, const char *env, const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s '%s' %s >'%s/out' 2>'%s/err'", env ? env : "", bin(), args, dir,
             dir);
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "%s did not exit", cmd);
    return WEXITSTATUS(st);
}

static char *slurp(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char err[256];
    size_t len;
    char *s = scheme_slurp(path, 1 << 20, &len, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    return s;
}

Test(search_cli, help_and_bad_usage)
{
    char d[64];
    tc_temp_dir(d, sizeof d, "fg-test-search");
    cr_assert_eq(run(d, NULL, "search --help"), 0);
    char *out = slurp(d, "out");
    cr_assert(strstr(out, "--target-rank") && strstr(out, "--plateau") && strstr(out, "--pool-min"));
    free(out);
    cr_assert_eq(run(d, NULL, "search"), 2);
    cr_assert_eq(run(d, NULL, "search --dims 9x9x9"), 2);
    cr_assert_eq(run(d, NULL, "search --dims 3x3x3 --time soon"), 2);
    cr_assert_eq(run(d, NULL, "search --dims 3x3x3 --bogus"), 2);
    cr_assert_eq(run(d, NULL, "search --dims 3x3x3 --threads 0"), 2);
    cr_assert_eq(run(d, NULL, "search --dims 3x3x3 --backend quantum"), 2);
    cr_assert_eq(run(d, NULL, "search --dims 3x3x3 --plateau-min 10 --plateau 5"), 2);
    cr_assert_eq(run(d, NULL, "search --dims 3x3x3 --from /nonexistent/file.exp"), 2);
    char *err = slurp(d, "err");
    cr_assert(strstr(err, "/nonexistent/file.exp"), "%s", err);
    free(err);
    tc_remove_tree(d);
}

/* --islands (docs/search.md, "Islands"): a CPU run with a pool per island finds,
 * verifies and stores like any other, its banner says so; more islands than
 * threads, or islands on the GPU backend, are refused (exit 2, naming the row). */
Test(search_cli, islands_walk_and_are_checked, .timeout = 150)
{
    char d[64], args[512];
    tc_temp_dir(d, sizeof d, "fg-test-search");
    snprintf(args, sizeof args,
             "search --dims 3x3x3 --threads 2 --islands 2 --target-rank 23 --time 120s --seed %llu --progress 0 "
             "--out '%s/o' --db '%s/s.db'",
             (unsigned long long)tc_seed(), d, d);
    cr_assert_eq(run(d, NULL, args), 0);
    char *out = slurp(d, "out"), *err = slurp(d, "err");
    cr_assert(strstr(out, "best rank 23 for <3,3,3> after"), "%s", out);
    cr_assert(strstr(err, "2 islands, a pool each") && strstr(err, "islands=2"), "%s", err);
    free(out);
    free(err);
    snprintf(args, sizeof args, "verify '%s'/o/*", d);
    cr_assert_eq(run(d, NULL, args), 0);
    snprintf(args, sizeof args, "db --db '%s/s.db' check", d);
    cr_assert_eq(run(d, NULL, args), 0);
    /* the run record keeps the row: a resumed run walks with it again */
    snprintf(args, sizeof args, "search --db '%s/s.db' --resume 1 --target-rank 0 --time 1s --progress 0", d);
    cr_assert_eq(run(d, NULL, args), 0);
    err = slurp(d, "err");
    cr_assert(strstr(err, "2 islands, a pool each") && strstr(err, "islands=2"), "%s", err);
    free(err);
    cr_assert_eq(run(d, NULL, "search --dims 3x3x3 --threads 2 --islands 3 --time 5s"), 2);
    err = slurp(d, "err");
    cr_assert(strstr(err, "--islands 3: expected at most --threads (2)"), "%s", err);
    free(err);
    cr_assert_eq(run(d, NULL, "search --dims 3x3x3 --backend gpu --islands 2 --time 5s"), 2);
    err = slurp(d, "err");
    cr_assert(strstr(err, "--islands") && strstr(err, "CPU only"), "%s", err);
    free(err);
    tc_remove_tree(d);
}

Test(search_cli, finds_writes_and_verifies, .timeout = 150)
{
    char d[64], args[512];
    tc_temp_dir(d, sizeof d, "fg-test-search");
    snprintf(args, sizeof args, "search --dims=3x3x3 --target-rank=23 --time=120s --seed=7 --out '%s/o' -v",
             d);
    cr_assert_eq(run(d, NULL, args), 0);
    char *out = slurp(d, "out");
    cr_assert(strstr(out, "best rank 23 for <3,3,3> after"), "%s", out);
    free(out);
    /* every improvement was written, each file verifies, the last is rank 23 */
    char sub[128];
    snprintf(sub, sizeof sub, "%s/o", d);
    DIR *dir = opendir(sub);
    cr_assert_not_null(dir);
    struct dirent *e;
    int files = 0, best = 1000;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", sub, e->d_name);
        scheme_diag diag;
        scheme *s = scheme_read_file(path, NULL, &diag);
        cr_assert_not_null(s, "%s: %s", path, diag.msg);
        verify_result vr;
        cr_assert(verify_f2(s, &vr), "%s: %s", path, vr.msg);
        char want[64];
        snprintf(want, sizeof want, "3x3x3-%d-", s->rank);
        cr_assert_eq(strncmp(e->d_name, want, strlen(want)), 0, "%s", e->d_name);
        if (s->rank < best)
            best = s->rank;
        scheme_free(s);
        files++;
    }
    closedir(dir);
    cr_assert_gt(files, 0);
    cr_assert_eq(best, 23);

    /* starting from a found file: it already meets the target */
    snprintf(args, sizeof args, "search --from \"$(ls '%s/o'/3x3x3-23-* | head -1)\" --target-rank 23 -q", d);
    cr_assert_eq(run(d, NULL, args), 0);
    out = slurp(d, "out");
    cr_assert(strstr(out, "best rank 23 for <3,3,3>"), "%s", out);
    free(out);

    /* a budget too small for the target: exit 1 */
    cr_assert_eq(run(d, NULL, "search --dims 3x3x3 --target-rank 20 --max-flips 10000 -q"), 1);
    tc_remove_tree(d);
}

/* --stall: a run whose rank stops falling ends (here <2,2,2> reaches 7, below
 * which nothing exists, then stalls: the 60 s test timeout guards the 300 s
 * time limit); the banner names it. */
Test(search_cli, stall_ends_a_run_that_stopped_improving, .timeout = 60)
{
    char d[64];
    tc_temp_dir(d, sizeof d, "fg-test-search");
    cr_assert_eq(run(d, NULL, "search --dims 2x2x2 --stall 1s --time 300s --threads 1 --seed 3"), 0);
    char *out = slurp(d, "out"), *err = slurp(d, "err");
    cr_assert(strstr(out, "best rank 7 for <2,2,2>"), "%s", out);
    cr_assert(strstr(err, "after 1s without a lower rank"), "%s", err);
    free(out);
    free(err);
    cr_assert_eq(run(d, NULL, "search --dims 2x2x2 --stall x -q"), 2);
    tc_remove_tree(d);
}

Test(search_cli, sigint_stops_cleanly, .timeout = 60)
{
    char d[64], cmd[1024];
    tc_temp_dir(d, sizeof d, "fg-test-search");
    snprintf(cmd, sizeof cmd,
             "'%s' search --dims 5x5x5 --time 50s -q >'%s/out' 2>'%s/err' & pid=$!; sleep 1; "
             "kill -INT $pid; wait $pid",
             bin(), d, d);
    int st = system(cmd);
    cr_assert(WIFEXITED(st));
    cr_assert_eq(WEXITSTATUS(st), 0, "no target: a stop is a normal end");
    char *out = slurp(d, "out");
    cr_assert(strstr(out, "best rank"), "no final line: %s", out);
    free(out);
    tc_remove_tree(d);
}

Test(search_cli, stores_improvements_and_the_run_in_the_database, .timeout = 150)
{
    char d[64], args[512], path[128];
    tc_temp_dir(d, sizeof d, "fg-test-search");
    snprintf(path, sizeof path, "%s/t.db", d);
    snprintf(args, sizeof args, "search --dims 3x3x3 --target-rank 23 --time 120s --seed 5 -q --db '%s'", path);
    cr_assert_eq(run(d, NULL, args), 0);
    char err[512];
    db_status st;
    db *store = db_open(path, false, &st, err, sizeof err);
    cr_assert_not_null(store, "%s", err);
    int64_t id;
    int rank;
    cr_assert_eq(db_best(store, (scheme_format){3, 3, 3}, SCHEME_RING_F2, &id, &rank, err, sizeof err),
                 DB_OK, "%s", err);
    cr_assert_eq(rank, 23);
    char *params = db_run_params(store, 1, &st, err, sizeof err);
    cr_assert_not_null(params, "%s", err);
    cr_assert(strstr(params, "dims=3x3x3") && strstr(params, "seed=5") && strstr(params, "pool-min="),
              "%s", params);
    free(params);
    db_close(store);
    /* --from-db starts from that scheme: the target is met at once */
    snprintf(args, sizeof args, "search --dims 3x3x3 --from-db --db '%s' --target-rank 23 -q", path);
    cr_assert_eq(run(d, NULL, args), 0);
    char *out = slurp(d, "out");
    cr_assert(strstr(out, "best rank 23"), "%s", out);
    free(out);
    /* --resume: the stored parameters, a run of its own */
    snprintf(args, sizeof args, "search --resume 1 --db '%s' --max-flips 1000", path);
    cr_assert_eq(run(d, NULL, args), 0);
    snprintf(args, sizeof args, "search --resume 99 --db '%s'", path);
    cr_assert_eq(run(d, NULL, args), 2);
    tc_remove_tree(d);
}
