/* Tests of the multiplication runtime (runtime/, export/plan*.c, the matrix and
 * multiply commands).  Every product is checked against the plain row-by-row
 * reference (rt_mul_naive), itself checked against the bit-by-bit triple loop,
 * on fresh random inputs each run: the seed is printed on failure and
 * FLIPGRAPH_SEED=... replays it. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "export/export.h"
#include "runtime/runtime.h"
#include "schemes/scheme.h"
#include "verify/verify.h"
#include "test_common.h"

static rt_matrix *random_matrix(scheme_rng *rng, uint64_t rows, uint64_t cols, double density)
{
    rt_matrix *m = rt_matrix_new(rows, cols);
    cr_assert_not_null(m);
    rt_matrix_random(m, rng, density);
    return m;
}

static bool equal(const rt_matrix *x, const rt_matrix *y)
{
    rt_diff d;
    rt_matrix_compare(x, y, &d);
    return d.equal;
}

/* ---- schemes for the chains ---- */

/* A corpus file (NULL, the reason logged, when it does not read: every caller asserts it, since
 * the corpus is part of the repository). */
static scheme *corpus_scheme(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/kauers-moosbauer/%s", tc_corpus_dir(), name);
    scheme_diag d;
    memset(&d, 0, sizeof d);
    scheme *s = scheme_read_file(path, NULL, &d);
    if (!s)
        cr_log_error("%s:%d:%d: %s", path, d.line, d.col, d.msg);
    return s;
}

typedef struct {
    scheme *s[6];
    const char *name[6];
    int n;
} pool_t;

static void pool_add(pool_t *p, scheme *s, const char *name)
{
    /* every scheme is there: the corpus is part of the repository (data/corpus) */
    cr_assert_not_null(s, "%s did not read or build", name);
    if (p->n < 6) {
        verify_result vr;
        cr_assert(verify_f2(s, &vr), "%s does not verify over GF(2): %s", name, vr.msg);
        p->s[p->n] = s;
        p->name[p->n++] = name;
    } else {
        scheme_free(s);
    }
}

static void pool_free(pool_t *p)
{
    for (int i = 0; i < p->n; i++)
        scheme_free(p->s[i]);
}

/* Schemes valid over GF(2) (z_only: valid over Z too, for Boolean products). */
static void pool_fill(pool_t *p, scheme_rng *rng, bool z_only)
{
    memset(p, 0, sizeof *p);
    char err[256];
    pool_add(p, rt_scheme_builtin("strassen", err, sizeof err), "strassen");
    scheme_format f = {1 + (int)scheme_rng_below(rng, 3), 1 + (int)scheme_rng_below(rng, 3),
                       1 + (int)scheme_rng_below(rng, 3)};
    pool_add(p, scheme_standard(f), "standard");
    pool_add(p, corpus_scheme("223-11-mod0.exp"), "223-11-mod0.exp");
    if (!z_only) {
        pool_add(p, corpus_scheme("444-47-mod2.exp"), "444-47-mod2.exp");
        pool_add(p, corpus_scheme("233-15-mod0.exp"), "233-15-mod0.exp");
    } else {
        pool_add(p, corpus_scheme("233-15-mod0.exp"), "233-15-mod0.exp");
    }
}

/* ---- matrices and files ---- */

Test(runtime, naive_equals_triple_loop)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int it = 0; it < 30; it++) {
        uint64_t r = 1 + scheme_rng_below(&rng, 90), k = 1 + scheme_rng_below(&rng, 150),
                 c = 1 + scheme_rng_below(&rng, 140);
        bool boolean = it & 1;
        double dens = boolean ? 1.0 / (double)k : 0.5;
        rt_matrix *A = random_matrix(&rng, r, k, dens), *B = random_matrix(&rng, k, c, dens);
        rt_matrix *C1 = rt_matrix_new(r, c), *C2 = rt_matrix_new(r, c);
        cr_assert(rt_mul_naive(A, B, C1, boolean));
        cr_assert(rt_mul_bitwise(A, B, C2, boolean));
        cr_assert(equal(C1, C2), "seed %" PRIu64 ": %" PRIu64 "x%" PRIu64 "x%" PRIu64, seed, r, k, c);
        rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(C1), rt_matrix_free(C2);
    }
}

Test(runtime, mul_refuses_mismatched_dims)
{
    rt_matrix *A = rt_matrix_new(3, 4), *B = rt_matrix_new(5, 2), *C = rt_matrix_new(3, 2);
    cr_assert_not(rt_mul_naive(A, B, C, false));
    cr_assert_not(rt_mul_bitwise(A, B, C, true));
    rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(C);
    cr_assert_null(rt_matrix_new(0, 5));
}

Test(runtime, compare_finds_first_difference)
{
    scheme_rng rng;
    uint64_t seed = tc_seed();
    scheme_rng_seed(&rng, seed);
    rt_matrix *x = random_matrix(&rng, 70, 130, 0.5);
    rt_matrix *y = rt_matrix_new(70, 130);
    memcpy(y->w, x->w, x->rows * x->stride * 8);
    rt_diff d;
    rt_matrix_compare(x, y, &d);
    cr_assert(d.equal && d.same_dims);
    rt_matrix_set(y, 65, 129, !rt_matrix_get(y, 65, 129));
    rt_matrix_set(y, 12, 70, !rt_matrix_get(y, 12, 70));
    rt_matrix_compare(x, y, &d);
    cr_assert(!d.equal);
    cr_assert_eq(d.count, 2);
    cr_assert_eq(d.first_row, 12);
    cr_assert_eq(d.first_col, 70);
    rt_matrix *z = rt_matrix_new(130, 70);
    rt_matrix_compare(x, z, &d);
    cr_assert(!d.same_dims && !d.equal);
    rt_matrix_free(x), rt_matrix_free(y), rt_matrix_free(z);
}

static rt_matrix *roundtrip(const rt_matrix *m, rt_file_kind kind)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(rt_matrix_write(m, kind, f));
    fclose(f);
    scheme_diag d;
    rt_file_kind got;
    rt_matrix *r = rt_matrix_read_buffer(buf, len, "mem", &got, &d);
    cr_assert_not_null(r, "%s", d.msg);
    cr_assert_eq(got, kind);
    free(buf);
    return r;
}

Test(runtime, files_round_trip)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int it = 0; it < 20; it++) {
        uint64_t r = 1 + scheme_rng_below(&rng, 100), c = 1 + scheme_rng_below(&rng, 300);
        rt_matrix *m = random_matrix(&rng, r, c, 0.3);
        for (int kind = 0; kind < 2; kind++) {
            rt_matrix *back = roundtrip(m, (rt_file_kind)kind);
            cr_assert(back->rows == r && back->cols == c && equal(m, back), "seed %" PRIu64, seed);
            rt_matrix_free(back);
        }
        rt_matrix_free(m);
    }
}

static void expect_bad(const char *buf, size_t len, const char *want, int line, int col)
{
    scheme_diag d;
    memset(&d, 0, sizeof d);
    rt_matrix *m = rt_matrix_read_buffer(buf, len, "bad", NULL, &d);
    cr_assert_null(m, "accepted: %s", want);
    cr_assert(strstr(d.msg, want), "message '%s' lacks '%s'", d.msg, want);
    if (line)
        cr_assert(d.line == line && d.col == col, "at %d:%d, expected %d:%d", d.line, d.col, line, col);
}

Test(runtime, bad_files_are_refused)
{
    expect_bad("0101\n0121\n", 10, "expected 0 or 1, found '2'", 2, 3);
    expect_bad("# c\n0101\n011\n", 13, "row 2 has 3 columns", 3, 1);
    expect_bad("# only a comment\n\n", 18, "has none", 0, 0);
    rt_matrix *m = rt_matrix_new(3, 70);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    rt_matrix_write(m, RT_FILE_BINARY, f);
    fclose(f);
    expect_bad(buf, len - 8, "bytes of words", 0, 0);         /* truncated payload */
    expect_bad(buf, 40, "truncated header", 0, 0);
    char *big = malloc(len + 8);
    memcpy(big, buf, len);
    memset(big + len, 0, 8);
    expect_bad(big, len + 8, "bytes of words", 0, 0);        /* trailing bytes */
    buf[64 + 8 + 7] = (char)0x80;                              /* row 1, bit 127 > 70 */
    expect_bad(buf, len, "bits set past column", 0, 0);
    buf[64 + 8 + 7] = 0;
    uint64_t huge = 1ull << 40;
    memcpy(buf + 16, &huge, 8);                                /* rows: header lies */
    expect_bad(buf, len, "each dimension", 0, 0);
    uint64_t rows = 1000000;
    memcpy(buf + 16, &rows, 8);
    expect_bad(buf, len, "bytes of words", 0, 0);
    rows = 3;
    memcpy(buf + 16, &rows, 8);
    buf[8] = 2;                                                /* version */
    expect_bad(buf, len, "version 2", 0, 0);
    free(big);
    free(buf);
    rt_matrix_free(m);
}

/* ---- the kernel and the programs ---- */

Test(runtime, kernel_equals_naive)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    void *scratch = aligned_alloc(64, RT_KERNEL_SCRATCH_BYTES);
    for (int it = 0; it < 40; it++) {
        size_t rows = 1 + scheme_rng_below(&rng, 700), kw = 1 + scheme_rng_below(&rng, 5),
               cw = 1 + scheme_rng_below(&rng, 19);
        bool boolean = it & 1;
        double dens = boolean ? 1.0 / (64.0 * kw) : 0.5;
        /* Strides wider than the blocks, as inside a larger matrix. */
        rt_matrix *A = random_matrix(&rng, rows, 64 * (kw + 1), dens);
        rt_matrix *B = random_matrix(&rng, 64 * kw, 64 * (cw + 2), dens);
        rt_matrix *C = random_matrix(&rng, rows, 64 * (cw + 1), 0.5);
        /* Reference: C0 + A[:, :64kw] B[:, :64cw] on the sub-blocks. */
        rt_matrix *As = rt_matrix_new(rows, 64 * kw), *Bs = rt_matrix_new(64 * kw, 64 * cw),
                  *P = rt_matrix_new(rows, 64 * cw), *want = rt_matrix_new(rows, 64 * (cw + 1));
        for (size_t i = 0; i < rows; i++)
            memcpy(&As->w[i * As->stride], &A->w[i * A->stride], kw * 8);
        for (size_t i = 0; i < 64 * kw; i++)
            memcpy(&Bs->w[i * Bs->stride], &B->w[i * B->stride], cw * 8);
        rt_mul_naive(As, Bs, P, boolean);
        memcpy(want->w, C->w, rows * C->stride * 8);
        for (size_t i = 0; i < rows; i++)
            for (size_t w = 0; w < cw; w++) {
                uint64_t *x = &want->w[i * want->stride + w];
                *x = boolean ? *x | P->w[i * P->stride + w] : *x ^ P->w[i * P->stride + w];
            }
        rt_kernel_mul(A->w, A->stride, B->w, B->stride, C->w, C->stride, rows, kw, cw, boolean,
                      (it % 3) ? scratch : NULL);
        cr_assert(equal(C, want), "seed %" PRIu64 " rows %zu kw %zu cw %zu %s", seed, rows, kw, cw,
                  boolean ? "Boolean" : "GF(2)");
        rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(C), rt_matrix_free(As);
        rt_matrix_free(Bs), rt_matrix_free(P), rt_matrix_free(want);
    }
    free(scratch);
}

Test(runtime, programs_compute_their_matrices)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int it = 0; it < 60; it++) {
        int n_out = 1 + (int)scheme_rng_below(&rng, 50), n_in = 1 + (int)scheme_rng_below(&rng, 40);
        uint8_t *m = malloc((size_t)n_out * n_in);
        uint32_t dens = 1 + scheme_rng_below(&rng, 4);
        for (int i = 0; i < n_out * n_in; i++)
            m[i] = scheme_rng_below(&rng, 5) < dens;
        export_plan_slp slp;
        cr_assert(export_plan_slp_build(&slp, m, n_out, n_in));
        cr_assert(slp.n_ops <= slp.naive_ops, "sharing made it longer: %d > %d", slp.n_ops, slp.naive_ops);
        for (int k = 0; k < slp.n_ops; k++)
            cr_assert(slp.src[2 * k] < (uint32_t)(n_in + k) && slp.src[2 * k + 1] < (uint32_t)(n_in + k));
        uint64_t *in = malloc((size_t)n_in * 8), *out = malloc((size_t)n_out * 8);
        for (int v = 0; v < n_in; v++)
            in[v] = scheme_rng_next(&rng);
        export_plan_slp_eval(&slp, in, out);
        for (int o = 0; o < n_out; o++) {
            uint64_t want = 0;
            for (int v = 0; v < n_in; v++)
                if (m[o * n_in + v])
                    want ^= in[v];
            cr_assert_eq(out[o], want, "seed %" PRIu64 ": row %d of %dx%d", seed, o, n_out, n_in);
        }
        export_plan_slp_free(&slp);
        free(m), free(in), free(out);
    }
}

Test(runtime, programs_share_subexpressions)
{
    /* Three rows x0+x1+x2, x0+x1+x3, x0+x1: sharing x0+x1 needs 3 additions, not 5. */
    uint8_t m[3 * 4] = {1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 0};
    export_plan_slp slp;
    cr_assert(export_plan_slp_build(&slp, m, 3, 4));
    cr_assert_eq(slp.naive_ops, 5);
    cr_assert_eq(slp.n_ops, 3);
    export_plan_slp_free(&slp);
}

/* ---- plans ---- */

Test(runtime, plan_checks_schemes_and_rings)
{
    char err[512];
    export_plan p;
    scheme *st = scheme_standard((scheme_format){2, 3, 2});
    scheme *sq = rt_scheme_builtin("strassen", err, sizeof err);
    cr_assert_not_null(sq, "%s", err);
    verify_result vr;
    cr_assert(verify_z(sq, &vr), "built-in Strassen: %s", vr.msg);
    const scheme *chain[2] = {sq, st};
    cr_assert(export_plan_init(&p, chain, NULL, 2, true, err, sizeof err), "%s", err);
    cr_assert(p.level[0].z_valid && p.level[1].z_valid);
    cr_assert_eq(p.S, 4);
    cr_assert_eq(p.T, 6);
    cr_assert_eq(p.U, 4);
    cr_assert_eq(p.R, 84);
    cr_assert(export_plan_size(&p, 1000, 333, 65, err, sizeof err), "%s", err);
    cr_assert_eq(p.bs, 256);  /* 1000 / 4 = 250 -> 256 */
    cr_assert_eq(p.bt, 64);   /* 333 / 6 = 55.5 -> 64 */
    cr_assert_eq(p.bu, 64);   /* 65 / 4 -> 64 */
    cr_assert_eq(p.prows, 1024);
    cr_assert_eq(p.pinner, 384);
    cr_assert_eq(p.pcols, 256);
    cr_assert(p.ops_total > 0 && p.peak_bytes > 0);
    export_plan_free(&p);

    /* Strassen with its signs dropped is a GF(2) scheme only: Boolean refused. */
    scheme *sq2 = scheme_to_f2(sq);
    chain[0] = sq2;
    cr_assert(export_plan_init(&p, chain, NULL, 1, false, err, sizeof err), "%s", err);
    cr_assert_not(p.level[0].z_valid);
    export_plan_free(&p);
    cr_assert_not(export_plan_init(&p, chain, NULL, 1, true, err, sizeof err));
    cr_assert(strstr(err, "valid over GF(2) only"), "%s", err);

    /* A broken scheme (one entry flipped) is refused whatever the caller checked. */
    sq2->terms[3].f[SCHEME_B] ^= 1;
    cr_assert_not(export_plan_init(&p, chain, NULL, 1, false, err, sizeof err));
    cr_assert(strstr(err, "not a matrix multiplication scheme"), "%s", err);
    scheme_free(st), scheme_free(sq), scheme_free(sq2);
}

Test(runtime, plan_prints)
{
    char err[512];
    export_plan p;
    scheme *sq = rt_scheme_builtin("strassen", err, sizeof err);
    const scheme *chain[1] = {sq};
    cr_assert(export_plan_init(&p, chain, NULL, 1, false, err, sizeof err));
    cr_assert(export_plan_size(&p, 100, 100, 100, err, sizeof err));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(export_plan_print(&p, f, true));
    fclose(f);
    cr_assert(strstr(buf, "<2,2,2> rank 7"));
    cr_assert(strstr(buf, "inner layer: 7 products of 64 x 64 by 64 x 64 blocks"), "%s", buf);
    free(buf);
    export_plan_free(&p);
    scheme_free(sq);
}

/* ---- the executor against the reference ---- */

static void check_product(scheme_rng *rng, uint64_t seed, const scheme *const *chain,
                          const char *const *names, int levels, bool boolean, uint64_t maxdim)
{
    char err[512];
    export_plan p;
    cr_assert(export_plan_init(&p, chain, names, levels, boolean, err, sizeof err), "%s", err);
    uint64_t r = 1 + scheme_rng_below(rng, (uint32_t)maxdim), k = 1 + scheme_rng_below(rng, (uint32_t)maxdim),
             c = 1 + scheme_rng_below(rng, (uint32_t)maxdim);
    cr_assert(export_plan_size(&p, r, k, c, err, sizeof err), "%s", err);
    double dens = boolean ? 1.5 / (double)k : 0.5;
    rt_matrix *A = random_matrix(rng, r, k, dens), *B = random_matrix(rng, k, c, dens);
    rt_matrix *C = random_matrix(rng, r, c, 0.5), *want = rt_matrix_new(r, c);
    rt_mul_naive(A, B, want, boolean);
    int threads = 1 + (int)scheme_rng_below(rng, 3);
    rt_status st = rt_execute(&p, A, B, C, threads, 0, NULL, err, sizeof err);
    cr_assert_eq(st, RT_OK, "%s", err);
    rt_diff d;
    rt_matrix_compare(C, want, &d);
    char chain_s[512] = "";
    for (int l = 0; l < levels; l++) {
        char fb[32];
        size_t n = strlen(chain_s);
        snprintf(chain_s + n, sizeof chain_s - n, "%s%s%s", l ? "," : "", scheme_format_str(chain[l]->fmt, fb),
                 names ? names[l] : "");
    }
    cr_assert(d.equal,
              "seed %" PRIu64 ": %s product %" PRIu64 "x%" PRIu64 " times %" PRIu64 "x%" PRIu64
              " with [%s], %d threads: %" PRIu64 " entries differ, first (%" PRIu64 ",%" PRIu64 ")",
              seed, boolean ? "Boolean" : "GF(2)", r, k, k, c, chain_s, threads, d.count,
              d.first_row, d.first_col);
    rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(C), rt_matrix_free(want);
    export_plan_free(&p);
}

static void random_chains(bool boolean, int rounds)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    pool_t pool;
    pool_fill(&pool, &rng, boolean);
    cr_assert(pool.n >= 2);
    for (int it = 0; it < rounds; it++) {
        int levels = (int)scheme_rng_below(&rng, 4); /* 0 .. 3 */
        const scheme *chain[3];
        const char *names[3];
        uint64_t R = 1;
        for (int l = 0; l < levels; l++) {
            int i = (int)scheme_rng_below(&rng, (uint32_t)pool.n);
            chain[l] = pool.s[i];
            names[l] = pool.name[i];
            R *= (uint64_t)pool.s[i]->rank;
        }
        if (R > 3000) /* keep the expanded size small for a test */
            levels = 1;
        uint64_t maxdim = tc_sanitized() ? 200 : boolean && levels ? 400 : 700;
        check_product(&rng, seed, chain, names, levels, boolean, maxdim);
    }
    pool_free(&pool);
}

Test(runtime, gf2_products_with_random_chains)
{
    random_chains(false, tc_sanitized() ? 8 : 40);
}

Test(runtime, boolean_products_with_z_chains)
{
    random_chains(true, tc_sanitized() ? 6 : 25);
}

Test(runtime, mixed_chain_444_then_222)
{
    /* A mixed chain: <4,4,4>:47 then Strassen, on sizes that are not multiples. */
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    scheme *s444 = corpus_scheme("444-47-mod2.exp");
    /* the corpus is part of the repository (data/corpus): missing is a failure */
    cr_assert_not_null(s444, "data/corpus/kauers-moosbauer/444-47-mod2.exp did not read");
    char err[256];
    scheme *sq = rt_scheme_builtin("strassen", err, sizeof err);
    const scheme *chain[3] = {s444, s444, sq};
    const char *names[3] = {"444-47", "444-47", "strassen"};
    for (int it = 0; it < 2; it++)
        check_product(&rng, seed, chain, names, tc_sanitized() ? 2 : 3, false, tc_sanitized() ? 300 : 900);
    scheme_free(s444);
    scheme_free(sq);
}

Test(runtime, refuses_wrong_sizes_and_memory)
{
    char err[512];
    export_plan p;
    cr_assert(export_plan_init(&p, NULL, NULL, 0, false, err, sizeof err));
    cr_assert(export_plan_size(&p, 10, 20, 30, err, sizeof err));
    rt_matrix *A = rt_matrix_new(10, 20), *B = rt_matrix_new(21, 30), *C = rt_matrix_new(10, 30);
    cr_assert_eq(rt_execute(&p, A, B, C, 1, 0, NULL, err, sizeof err), RT_EDIMS);
    cr_assert(strstr(err, "A's columns must equal B's rows"), "%s", err);
    rt_matrix *B2 = rt_matrix_new(20, 30);
    cr_assert_eq(rt_execute(&p, A, B2, C, 1, 1.0, NULL, err, sizeof err), RT_EMEMORY);
    cr_assert_eq(rt_execute(&p, A, B2, C, 1, 0, NULL, err, sizeof err), RT_OK);
    rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(B2), rt_matrix_free(C);
    export_plan_free(&p);
}

/* ---- the binary, end to end ---- */

/* $FLIPGRAPH_BIN, else the binary beside this test's when run by hand in the build folder. */
static const char *bin(void)
{
    const char *b = tc_bin_or_null();
    return b ? b : "./flipgraph";
}

Test(runtime, end_to_end_binary)
{
    uint64_t seed = tc_seed();
    char dir[256];
    tc_temp_dir(dir, sizeof dir, "fg_runtime");
    char cmd[8192];
    const char *b = bin();
    unsigned rows = 100 + (unsigned)(seed % 300), inner = 70 + (unsigned)((seed >> 9) % 333),
             cols = 1 + (unsigned)((seed >> 20) % 260);
    snprintf(cmd, sizeof cmd, "%s matrix random --rows %u --cols %u --seed %" PRIu64 " -o %s/a.fgm && "
             "%s matrix random --rows=%u --cols=%u --density 0.3 --seed=%" PRIu64 " -o %s/b.fgm",
             b, rows, inner, seed, dir, b, inner, cols, seed + 1, dir);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "%s matrix mul --naive %s/a.fgm %s/b.fgm -o %s/naive.fgm", b, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "%s multiply -q --scheme strassen,std:2x1x3 --a %s/a.fgm --b %s/b.fgm -o %s/c.fgm --threads 2",
             b, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "%s matrix cmp %s/c.fgm %s/naive.fgm >%s/log.txt", b, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "seed %" PRIu64 ": %s", seed, cmd);
    /* Boolean: cubic, and with Strassen (valid over Z), against the naive OR product, on
     * sparse inputs (dense ones make an all-ones product). */
    snprintf(cmd, sizeof cmd, "%s matrix random --rows %u --cols %u --density 0.05 --seed %" PRIu64 " -o %s/as.fgm && "
             "%s matrix random --rows %u --cols %u --density 0.05 --seed %" PRIu64 " -o %s/bs.txt --format text",
             b, rows, inner, seed + 3, dir, b, inner, cols, seed + 4, dir);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "%s matrix mul --naive --boolean %s/as.fgm %s/bs.txt -o %s/bn.txt --format text && "
             "%s multiply -q --boolean --scheme strassen --levels 2 --a %s/as.fgm --b %s/bs.txt -o %s/bc.fgm && "
             "%s multiply -q --boolean --a %s/as.fgm --b %s/bs.txt -o %s/bq.fgm && "
             "%s matrix cmp %s/bc.fgm %s/bn.txt >%s/log.txt && %s matrix cmp %s/bq.fgm %s/bn.txt >%s/log.txt",
             b, dir, dir, dir, b, dir, dir, dir, b, dir, dir, dir, b, dir, dir, dir, b, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "seed %" PRIu64 ": %s", seed, cmd);
    /* Different matrices: exit 1, saying where; different sizes: exit 1. */
    snprintf(cmd, sizeof cmd, "%s matrix random --rows %u --cols %u --seed %" PRIu64 " -o %s/a2.fgm && "
             "%s matrix cmp %s/a.fgm %s/a2.fgm >%s/cmp.txt", b, rows, inner, seed + 2, dir, b, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), 1, "%s", cmd);
    snprintf(cmd, sizeof cmd, "grep -q 'first at row' %s/cmp.txt", dir);
    cr_assert_eq(tc_system(cmd), 0, "matrix cmp does not say where");
    if (rows != inner || inner != cols) {
        snprintf(cmd, sizeof cmd, "%s matrix cmp %s/a.fgm %s/b.fgm >%s/log.txt 2>&1", b, dir, dir, dir);
        cr_assert_eq(tc_system(cmd), 1, "%s", cmd);
    }
    /* A GF(2)-only scheme cannot do the Boolean product: exit 2 with a message. */
    snprintf(cmd, sizeof cmd, "%s multiply --boolean --scheme %s/kauers-moosbauer/444-47-mod2.exp "
             "--a %s/a.fgm --b %s/b.fgm -o %s/w.fgm 2>%s/err.txt", b, tc_corpus_dir(), dir, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), 2, "%s", cmd);
    snprintf(cmd, sizeof cmd, "grep -q 'valid over GF(2) only' %s/err.txt", dir);
    cr_assert_eq(tc_system(cmd), 0, "the refusal does not say why");
    /* Bad usage: exit 2, and no output file left behind. */
    snprintf(cmd, sizeof cmd, "%s multiply -q --scheme strassen --a %s/a.fgm --b %s/a.fgm -o %s/x.fgm 2>%s/log.txt",
             b, dir, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), rows == inner ? 0 : 2, "%s", cmd);
    snprintf(cmd, sizeof cmd, "%s multiply -q --boolean --scheme strassen --a %s/a.fgm --b %s/b.fgm -o %s/y.fgm 2>%s/log.txt",
             b, dir, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "%s multiply --scheme %s/nope.exp --a %s/a.fgm --b %s/b.fgm -o %s/z.fgm 2>%s/log.txt",
             b, dir, dir, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), 2, "%s", cmd);
    char path[512];
    snprintf(path, sizeof path, "%s/z.fgm", dir);
    cr_assert_neq(access(path, F_OK), 0, "a failed multiply left %s", path);
    snprintf(cmd, sizeof cmd, "%s multiply --backend gpu --scheme strassen --a %s/a.fgm --b %s/b.fgm -o %s/g.fgm 2>%s/log.txt",
             b, dir, dir, dir, dir);
    int grc = tc_system(cmd);
    cr_assert(grc == 0 || grc == 2, "--backend gpu: exit %d", grc);
    /* A scheme by database id (db/ stores it; the Z file's reduction mod 2 is id 2). */
    snprintf(cmd, sizeof cmd, "%s db --db %s/s.db init >%s/log.txt 2>&1 && "
             "%s db --db %s/s.db import %s/kauers-moosbauer/223-11-mod0.exp >%s/log.txt 2>&1",
             b, dir, dir, b, dir, tc_corpus_dir(), dir);
    if (tc_system(cmd) == 0) {
        snprintf(cmd, sizeof cmd, "%s multiply -q --db %s/s.db --scheme 1,db:2,strassen --a %s/a.fgm "
                 "--b %s/b.fgm -o %s/d.fgm && %s matrix cmp %s/d.fgm %s/naive.fgm >%s/log.txt",
                 b, dir, dir, dir, dir, b, dir, dir, dir);
        cr_assert_eq(tc_system(cmd), 0, "seed %" PRIu64 ": %s", seed, cmd);
        snprintf(cmd, sizeof cmd, "%s multiply -q --db %s/s.db --scheme 99 --a %s/a.fgm --b %s/b.fgm "
                 "-o %s/e.fgm 2>%s/log.txt", b, dir, dir, dir, dir, dir);
        cr_assert_eq(tc_system(cmd), 2, "%s", cmd);
    } else {
        cr_log_warn("flipgraph db init/import failed: the database ids are not tested");
    }
    tc_remove_tree(dir);
}
