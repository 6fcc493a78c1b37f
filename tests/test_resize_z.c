/* Tests of the moves between formats over Z (search/resize.c on integer
 * schemes; docs/resize.md, "Over Z") and of the meta search over Z.
 *
 * Differential, on fresh random inputs: projection, extension and the two
 * permutation moves of integer terms against a plain reference that goes
 * entry by entry through the coefficients; the corpus's integer schemes
 * (Kauers-Moosbauer's mod0 files) resized to every neighbouring format stay
 * integer schemes that verify over Z, within their own largest coefficient,
 * and reduce mod 2 to what the GF(2) moves give for their reduction where
 * no reduction is taken; every ordering of them verifies and returns; the
 * meta start and `flipgraph search --meta --ring z` store integer schemes
 * only, each verified over Z.  The seed comes from /dev/urandom
 * (FLIPGRAPH_SEED=<seed> replays) and every assertion that depends on it
 * prints it.  The CLI test writes only inside its own temporary folder. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "schemes/scheme.h"
#include "search/search.h"
#include "test_common.h"
#include "verify/verify.h"

static unsigned long long g_seed;

#define CHECK(cond, ...) \
    cr_assert(cond, "%s [seed %llu: FLIPGRAPH_SEED=%llu replays]", tc_fmt(__VA_ARGS__), g_seed, g_seed)

static void seed_only(void) { g_seed = tc_seed(); }

static void seed_and_dir(void)
{
    seed_only();
    tc_suite_dir_make("fg-test-resize-z");
}

TestSuite(resize_z, .init = seed_only);
TestSuite(resize_z_cli, .init = seed_and_dir, .fini = tc_suite_dir_remove);

/* Which dimension the rows and the columns of each factor run over
 * (a: n x m, b: m x p, c: p x n), written out rather than derived. */
static const int row_dim[3] = {0, 1, 2};
static const int col_dim[3] = {1, 2, 0};

/* ---- the reference: entry by entry, on the coefficients ---- */

static bool zero_factor(const int8_t *w, int entries)
{
    for (int e = 0; e < entries; e++)
        if (w[e])
            return false;
    return true;
}

/* Term t with index `index` of dimension dim deleted; false when a factor
 * became zero (the term is dropped). */
static bool ref_project(scheme_format f, const scheme_zterm *t, int dim, int index, scheme_zterm *out)
{
    int d[3], nd[3];
    tc_dims_of(f, d);
    memcpy(nd, d, sizeof nd);
    nd[dim]--;
    memset(out, 0, sizeof *out);
    for (int pos = 0; pos < 3; pos++) {
        const int rows = d[row_dim[pos]], cols = d[col_dim[pos]], ncols = nd[col_dim[pos]];
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++) {
                if ((row_dim[pos] == dim && r == index) || (col_dim[pos] == dim && c == index))
                    continue;
                const int nr = row_dim[pos] == dim && r > index ? r - 1 : r;
                const int nc = col_dim[pos] == dim && c > index ? c - 1 : c;
                out->z[pos][nr * ncols + nc] = t->z[pos][r * cols + c];
            }
    }
    return !zero_factor(out->z[0], nd[0] * nd[1]) && !zero_factor(out->z[1], nd[1] * nd[2]) &&
           !zero_factor(out->z[2], nd[2] * nd[0]);
}

/* Term t laid out for the format with dimension dim one larger. */
static void ref_extend(scheme_format f, const scheme_zterm *t, int dim, scheme_zterm *out)
{
    int d[3], nd[3];
    tc_dims_of(f, d);
    memcpy(nd, d, sizeof nd);
    nd[dim]++;
    memset(out, 0, sizeof *out);
    for (int pos = 0; pos < 3; pos++) {
        const int rows = d[row_dim[pos]], cols = d[col_dim[pos]], ncols = nd[col_dim[pos]];
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++)
                out->z[pos][r * ncols + c] = t->z[pos][r * cols + c];
    }
}

/* The tensor entry (i,j),(j2,k),(k2,i2) of a scheme, summed over its terms:
 * sum of a[i][j] b[j2][k] c[k2][i2].  The permutations are checked on it. */
static long long tensor_entry(const scheme *s, const int a[2], const int b[2], const int c[2])
{
    const scheme_format f = s->fmt;
    long long sum = 0;
    for (int r = 0; r < s->rank; r++)
        sum += (long long)s->zterms[r].z[0][a[0] * f.m + a[1]] * s->zterms[r].z[1][b[0] * f.p + b[1]] *
               s->zterms[r].z[2][c[0] * f.n + c[1]];
    return sum;
}

/* Random integer terms (not a scheme): coefficients in -2..2, sparse or
 * dense, no factor zero. */
static scheme *random_zterms(scheme_format f, int rank, scheme_rng *rng)
{
    scheme *s = scheme_new(f, SCHEME_RING_Z, rank);
    cr_assert_not_null(s);
    for (int r = 0; r < rank; r++) {
        scheme_zterm t;
        memset(&t, 0, sizeof t);
        for (int pos = 0; pos < 3; pos++) {
            const int size = scheme_factor_size(f, pos);
            const bool sparse = scheme_rng_below(rng, 2);
            do {
                for (int e = 0; e < size; e++)
                    t.z[pos][e] = sparse && scheme_rng_below(rng, 4) ? 0 : (int8_t)((int)scheme_rng_below(rng, 5) - 2);
            } while (zero_factor(t.z[pos], size));
        }
        cr_assert(scheme_push_z(s, &t));
    }
    return s;
}

/* The words of every term are the odd coefficients (what scheme_push_z keeps). */
static void words_match(const scheme *s, const char *what)
{
    for (int r = 0; r < s->rank; r++)
        for (int pos = 0; pos < 3; pos++) {
            uint64_t w = 0;
            for (int e = 0; e < SCHEME_MAX_ENTRIES; e++)
                if (s->zterms[r].z[pos][e] & 1)
                    w |= 1ull << e;
            CHECK(w == s->terms[r].f[pos], "%s: term %d factor %d: the word is not the odd coefficients", what, r,
                  pos);
        }
}

Test(resize_z, project_and_extend_match_the_entry_reference)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed);
    char fb[32];
    for (int it = 0; it < tc_scaled(2000); it++) {
        scheme_format f = tc_random_format(&rng, 8);
        int d[3];
        tc_dims_of(f, d);
        const int dim = (int)scheme_rng_below(&rng, 3);
        scheme *s = random_zterms(f, 1 + (int)scheme_rng_below(&rng, 30), &rng);
        if (d[dim] > 1) {
            const int index = (int)scheme_rng_below(&rng, (uint32_t)d[dim]);
            scheme *p = search_project(s, dim, index);
            CHECK(p && p->ring == SCHEME_RING_Z, "project %s dim %d index %d: NULL or not over Z",
                  scheme_format_str(f, fb), dim, index);
            int k = 0;
            for (int r = 0; r < s->rank; r++) {
                scheme_zterm want;
                if (!ref_project(f, &s->zterms[r], dim, index, &want))
                    continue;
                CHECK(k < p->rank && !memcmp(&p->zterms[k], &want, sizeof want),
                      "project %s dim %d index %d: term %d differs from the reference", scheme_format_str(f, fb), dim,
                      index, r);
                k++;
            }
            CHECK(k == p->rank, "project %s: %d terms, the reference keeps %d", scheme_format_str(f, fb), p->rank, k);
            words_match(p, "project");
            scheme_free(p);
        }
        scheme_format g = f;
        if (dim == 0)
            g.n++;
        else if (dim == 1)
            g.m++;
        else
            g.p++;
        if (scheme_format_valid(g)) {
            scheme *e = search_extend(s, dim);
            const int slice = (dim == 0 ? d[1] * d[2] : dim == 1 ? d[0] * d[2] : d[0] * d[1]);
            CHECK(e && e->ring == SCHEME_RING_Z && e->rank == s->rank + slice, "extend %s dim %d",
                  scheme_format_str(f, fb), dim);
            for (int r = 0; r < s->rank; r++) {
                scheme_zterm want;
                ref_extend(f, &s->zterms[r], dim, &want);
                CHECK(!memcmp(&e->zterms[r], &want, sizeof want), "extend %s dim %d: term %d differs",
                      scheme_format_str(f, fb), dim, r);
            }
            /* the new slice: standard terms, every coefficient 1 */
            for (int r = s->rank; r < e->rank; r++)
                for (int pos = 0; pos < 3; pos++) {
                    int ones = 0, others = 0;
                    for (int x = 0; x < SCHEME_MAX_ENTRIES; x++)
                        ones += e->zterms[r].z[pos][x] == 1, others += e->zterms[r].z[pos][x] != 0 &&
                                                                      e->zterms[r].z[pos][x] != 1;
                    CHECK(ones == 1 && others == 0, "extend %s dim %d: new term %d is not a standard term",
                          scheme_format_str(f, fb), dim, r);
                }
            words_match(e, "extend");
            scheme_free(e);
        }
        scheme_free(s);
    }
}

/* Every ordering of random integer terms has the tensor of the original with
 * its indices renamed: the rotation <n,m,p> -> <m,p,n> (a, b, c) -> (b, c, a),
 * the transposition <n,m,p> -> <p,m,n> (a, b, c) -> (b^T, a^T, c^T). */
Test(resize_z, permutations_move_the_tensor_entry_by_entry)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed ^ 0x5a5a);
    char fa[32], fb[32];
    for (int it = 0; it < tc_scaled(200); it++) {
        /* three distinct dimensions: every ordering is another format, so
         * search_permute reaches the rotation and the transposition by the
         * moves themselves, not by an earlier ordering equal to them */
        scheme_format f;
        do
            f = tc_random_format(&rng, 5);
        while (f.n == f.m || f.m == f.p || f.n == f.p);
        scheme *s = random_zterms(f, 1 + (int)scheme_rng_below(&rng, 12), &rng);
        const scheme_format rot = {f.m, f.p, f.n}, tr = {f.p, f.m, f.n};
        scheme *r = search_permute(s, rot), *t = search_permute(s, tr);
        CHECK(r && t && r->ring == SCHEME_RING_Z && t->ring == SCHEME_RING_Z, "permute %s",
              scheme_format_str(f, fa));
        for (int i = 0; i < f.n; i++)
            for (int j = 0; j < f.m; j++)
                for (int k = 0; k < f.p; k++)
                    for (int i2 = 0; i2 < f.n; i2++)
                        for (int j2 = 0; j2 < f.m; j2++)
                            for (int k2 = 0; k2 < f.p; k2++) {
                                const int a[2] = {i, j}, b[2] = {j2, k}, c[2] = {k2, i2};
                                const long long x = tensor_entry(s, a, b, c);
                                /* rotated: a' = b, b' = c, c' = a */
                                const int ra[2] = {j2, k}, rb[2] = {k2, i2}, rc[2] = {i, j};
                                CHECK(tensor_entry(r, ra, rb, rc) == x, "rotation of %s to %s: an entry differs",
                                      scheme_format_str(f, fa), scheme_format_str(rot, fb));
                                /* transposed: a' = b^T, b' = a^T, c' = c^T */
                                const int ta[2] = {k, j2}, tb[2] = {j, i}, tc[2] = {i2, k2};
                                CHECK(tensor_entry(t, ta, tb, tc) == x, "transposition of %s to %s: an entry differs",
                                      scheme_format_str(f, fa), scheme_format_str(tr, fb));
                            }
        words_match(r, "rotation");
        words_match(t, "transposition");
        scheme_free(r);
        scheme_free(t);
        scheme_free(s);
    }
}

static const char *const z_corpus[] = {
    "kauers-moosbauer/223-11-mod0.exp", "kauers-moosbauer/233-15-mod0.exp", "kauers-moosbauer/334-29-mod0.exp",
    "kauers-moosbauer/344-38-mod0.exp", "kauers-moosbauer/345-47-mod0.exp", "kauers-moosbauer/444-49-mod0.exp",
};
#define NZC (sizeof z_corpus / sizeof *z_corpus)

/* The corpus's integer schemes to every neighbouring format (one dimension
 * one smaller or larger) and to every ordering: integer schemes that verify
 * over Z, coefficients within the input's, and the ranks the moves allow. */
Test(resize_z, corpus_schemes_resized_stay_integer_and_verify, .timeout = 300)
{
    char fa[32], fb[32], err[256];
    for (size_t i = 0; i < NZC; i++) {
        scheme *s = tc_read_corpus(z_corpus[i]);
        cr_assert_eq(s->ring, SCHEME_RING_Z, "%s", z_corpus[i]);
        const int cmax = search_z_max_coef(s) > 1 ? search_z_max_coef(s) : 1;
        int d[3];
        tc_dims_of(s->fmt, d);
        for (int dim = 0; dim < 3; dim++)
            for (int by = -1; by <= 1; by += 2) {
                int e[3] = {d[0], d[1], d[2]};
                e[dim] += by;
                const scheme_format to = {e[0], e[1], e[2]};
                if (e[dim] < 1 || !scheme_format_valid(to))
                    continue;
                scheme *r = search_resize(s, to, err, sizeof err);
                cr_assert_not_null(r, "%s to %s: %s", z_corpus[i], scheme_format_str(to, fa), err);
                verify_result vr;
                cr_assert_eq(r->ring, SCHEME_RING_Z, "%s to %s: not over Z", z_corpus[i], scheme_format_str(to, fa));
                cr_assert(verify_z(r, &vr), "%s to %s (rank %d): %s", z_corpus[i], scheme_format_str(to, fa), r->rank,
                          vr.msg);
                cr_assert_leq(search_z_max_coef(r), cmax, "%s to %s", z_corpus[i], scheme_format_str(to, fa));
                if (by > 0) /* an extension adds the slice's terms, the reductions take some back */
                    cr_assert_leq(r->rank, s->rank + (dim == 0 ? d[1] * d[2] : dim == 1 ? d[0] * d[2] : d[0] * d[1]));
                else { /* at most the lowest single projection, which the reductions do not raise */
                    int lowest = 1 << 30;
                    for (int index = 0; index < d[dim]; index++) {
                        scheme *p = search_project(s, dim, index);
                        cr_assert_not_null(p);
                        if (p->rank < lowest)
                            lowest = p->rank;
                        /* mod 2 the integer projection is the GF(2) projection of
                         * the reduction (coefficients of 2 aside: none here) */
                        scheme *g = scheme_to_f2(s), *gp = search_project(g, dim, index), *pg = scheme_to_f2(p);
                        if (cmax == 1)
                            cr_assert(scheme_equal(gp, pg), "%s dim %d index %d: mod 2 differs", z_corpus[i], dim,
                                      index);
                        scheme_free(g), scheme_free(gp), scheme_free(pg), scheme_free(p);
                    }
                    cr_assert_leq(r->rank, lowest, "%s to %s", z_corpus[i], scheme_format_str(to, fa));
                }
                scheme_free(r);
            }
        /* every ordering, and back */
        static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        for (int q = 0; q < 6; q++) {
            const scheme_format to = {d[perm[q][0]], d[perm[q][1]], d[perm[q][2]]};
            scheme *p = search_permute(s, to);
            cr_assert_not_null(p, "%s to %s", z_corpus[i], scheme_format_str(to, fa));
            verify_result vr;
            cr_assert(p->ring == SCHEME_RING_Z && p->rank == s->rank && verify_z(p, &vr), "%s as %s",
                      z_corpus[i], scheme_format_str(to, fa));
            scheme *back = search_permute(p, s->fmt);
            cr_assert(back && scheme_equal(back, s), "%s as %s and back to %s", z_corpus[i],
                      scheme_format_str(to, fa), scheme_format_str(s->fmt, fb));
            scheme_free(back);
            scheme_free(p);
        }
        scheme_free(s);
    }
}

/* The eliminations by a flattening over Z in search_resize (docs/resize.md,
 * "Reductions after a move"): our <5,6,6>:130 over Z projects to the Z
 * records <4,5,5>:76 and <4,5,6>:90 (80 and 91 with the pair reductions
 * alone), integer schemes within {-1, 0, 1} that verify over Z. */
Test(resize_z, the_eliminations_take_the_130_to_two_z_records)
{
    char path[4096], err[256];
    snprintf(path, sizeof path, "%s/data/found/566-130-z-lift.txt", getenv("FLIPGRAPH_SOURCE"));
    scheme *s = tc_read_or_die(path);
    cr_assert_eq(s->ring, SCHEME_RING_Z);
    static const struct {
        scheme_format to;
        int rank;
    } want[] = {{{4, 5, 5}, 76}, {{4, 5, 6}, 90}};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        scheme *r = search_project_oriented(s, want[k].to, 0, NULL, err, sizeof err);
        cr_assert_not_null(r, "%s", err);
        verify_result vr;
        cr_assert(r->ring == SCHEME_RING_Z && verify_z(r, &vr), "%s", vr.msg);
        cr_assert_leq(search_z_max_coef(r), 1);
        cr_assert_leq(r->rank, want[k].rank, "<%d,%d,%d>: rank %d", want[k].to.n, want[k].to.m, want[k].to.p,
                      r->rank);
        scheme_free(r);
    }
    scheme_free(s);
}

/* ---- the change of basis over Z (search_project_basis_z) ---- */

/* Whether factor pos of term t is, entry by entry, x y^T with x = `vec` over
 * the dimension `dim` (its rows when rows_side, else its columns) for some
 * nonzero y: every entry is vec[row] * y[col] (or vec[col] * y[row]). */
static bool ref_outer(scheme_format f, const scheme_zterm *t, int pos, const int8_t *vec, bool rows_side)
{
    int d[3];
    tc_dims_of(f, d);
    const int rows = d[row_dim[pos]], cols = d[col_dim[pos]], dd = rows_side ? rows : cols;
    int piv = -1;
    for (int i = 0; i < dd && piv < 0; i++)
        if (vec[i] == 1 || vec[i] == -1)
            piv = i;
    cr_assert_geq(piv, 0);
    bool nonzero = false;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            /* y read off the pivot's line */
            const int y = rows_side ? t->z[pos][piv * cols + c] * vec[piv] : t->z[pos][r * cols + piv] * vec[piv];
            const int want = rows_side ? vec[r] * y : vec[c] * y;
            if (t->z[pos][r * cols + c] != want)
                return false;
            nonzero |= want != 0;
        }
    return nonzero;
}

Test(resize_z, basis_projection_drops_exactly_the_rank_one_terms)
{
    scheme_rng rng;
    scheme_rng_seed(&rng, g_seed ^ 0xba5e);
    char fb[32];
    for (size_t i = 0; i < NZC; i++) {
        scheme *s = tc_read_corpus(z_corpus[i]);
        int d[3];
        tc_dims_of(s->fmt, d);
        for (int dim = 0; dim < 3; dim++) {
            const int dd = d[dim], cpos = (dim + 2) % 3;
            if (dd < 2)
                continue;
            /* u = z = e_k: the plain projection at k, term for term */
            for (int k = 0; k < dd; k++) {
                int8_t e[8] = {0};
                e[k] = 1;
                scheme *b = search_project_basis_z(s, dim, e, e), *p = search_project(s, dim, k);
                CHECK(b && p && b->rank == p->rank, "%s dim %d e_%d", z_corpus[i], dim, k);
                for (int r = 0; r < p->rank; r++)
                    CHECK(!memcmp(&b->zterms[r], &p->zterms[r], sizeof p->zterms[r]),
                          "%s dim %d e_%d: term %d differs from the plain projection", z_corpus[i], dim, k, r);
                scheme_free(b);
                scheme_free(p);
            }
            /* the terms the rank-one directions of the scheme name, and random
             * ones: exactly the terms u v^T at dim or w z^T at cpos drop */
            for (int it = 0; it < tc_scaled(40); it++) {
                int8_t u[8] = {0}, z[8] = {0};
                bool any = false;
                for (int k = 0; k < dd; k++)
                    any |= (u[k] = (int8_t)((int)scheme_rng_below(&rng, 3) - 1)) != 0;
                if (!any)
                    continue;
                int tries = 0, dot = 0;
                do {
                    dot = 0;
                    for (int k = 0; k < dd; k++)
                        dot += u[k] * (z[k] = (int8_t)((int)scheme_rng_below(&rng, 3) - 1));
                } while (dot != 1 && ++tries < 200);
                if (dot != 1)
                    continue;
                scheme *b = search_project_basis_z(s, dim, u, z);
                CHECK(b, "%s dim %d: NULL", z_corpus[i], dim);
                int drop = 0;
                for (int r = 0; r < s->rank; r++)
                    drop += ref_outer(s->fmt, &s->zterms[r], dim, u, true) ||
                            ref_outer(s->fmt, &s->zterms[r], cpos, z, false);
                CHECK(b->rank == s->rank - drop, "%s dim %d: rank %d, the reference drops %d of %d", z_corpus[i],
                      dim, b->rank, drop, s->rank);
                verify_result vr;
                CHECK(verify_z(b, &vr), "%s dim %d to %s: %s", z_corpus[i], dim, scheme_format_str(b->fmt, fb),
                      vr.msg);
                words_match(b, "basis projection");
                scheme_free(b);
                /* z.u != 1 is refused */
                int8_t z2[8];
                for (int k = 0; k < 8; k++)
                    z2[k] = (int8_t)-z[k];
                CHECK(!search_project_basis_z(s, dim, u, z2), "%s dim %d: z.u = -1 accepted", z_corpus[i], dim);
            }
        }
        /* GF(2) schemes are refused */
        scheme *g = scheme_to_f2(s);
        int8_t e[8] = {1};
        CHECK(!search_project_basis_z(g, 0, e, e), "a GF(2) scheme accepted");
        scheme_free(g);
        scheme_free(s);
    }
}

/* The meta start over Z: from integer schemes of neighbouring formats and
 * products of integer schemes, an integer scheme that verifies over Z. */
Test(resize_z, meta_start_from_integer_schemes_is_integer)
{
    scheme *k[3] = {tc_read_corpus("kauers-moosbauer/223-11-mod0.exp"),
                    tc_read_corpus("kauers-moosbauer/233-15-mod0.exp"),
                    tc_read_corpus("kauers-moosbauer/334-29-mod0.exp")};
    const scheme *known[3] = {k[0], k[1], k[2]};
    const scheme_format want[] = {{2, 3, 4}, {3, 3, 3}, {2, 2, 4}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        int from, from2;
        scheme *s = search_meta_start(want[i], known, 3, 3, &from, &from2, NULL);
        char fa[32];
        cr_assert_not_null(s, "%s", scheme_format_str(want[i], fa));
        verify_result vr;
        cr_assert(s->ring == SCHEME_RING_Z && verify_z(s, &vr), "%s: %s", scheme_format_str(want[i], fa), vr.msg);
        cr_assert_lt(s->rank, want[i].n * want[i].m * want[i].p);
        cr_assert_geq(from, 0);
        scheme_free(s);
    }
    for (int i = 0; i < 3; i++)
        scheme_free(k[i]);
}

Test(resize_z_cli, meta_search_over_z_reaches_the_z_records_and_stores_integer_schemes, .timeout = 300)
{
    char out[16384];
    const char *path = tc_path_in("zm.db");
    int rc = tc_run_cli("", out, sizeof out,
                        "search --meta --ring z --dims-range 2x2x2..2x3x3 --until-record --threads 1 --time 240s "
                        "--seed %llu --db '%s'",
                        g_seed, path);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "over Z") && strstr(out, "3 of 3 formats at their record"), "%s", out);
    /* the moved starts were stored too (source resize), all of them integer */
    cr_assert_geq(tc_stored_z_verify_at(path, 1), 4);
    /* a second search on the same store starts there, over Z */
    rc = tc_run_cli("", out, sizeof out,
                    "search --meta --ring z --dims-range 2x2x2..2x3x3 --until-record --threads 1 --time 60s "
                    "--seed %llu --db '%s'",
                    g_seed + 1, path);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "meta search: 0 legs"), "%s", out);
    /* a start that is not valid over Z is refused */
    rc = tc_run_cli("", out, sizeof out, "search --meta --ring z --dims-range 4x4x4..4x4x5 --from '%s' --time 1s",
                    tc_corpus("kauers-moosbauer/444-47-mod2.exp"));
    cr_assert_eq(rc, 2, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "does not lift"), "%s", out);
}
