/* Float products (runtime/fmul.c, runtime/npy.c, docs/float.md): .npy files
 * against hand-made bytes and their refusals; the long double reference
 * against exact integer products; the scheme chains against the reference on
 * fresh random shapes (within the first-order bound of docs/float.md), exactly
 * on small integer inputs, and against the BLAS on larger sizes; the binary end
 * to end.  A failure prints the seed; FLIPGRAPH_SEED=... replays it. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>

#include "test_common.h"

#include "export/export.h"
#include "runtime/runtime.h"
#include "search/search.h"
#include "verify/verify.h"

static bool same_bits(const rt_fmatrix *x, const rt_fmatrix *y)
{
    return x->rows == y->rows && x->cols == y->cols && x->type == y->type &&
           memcmp(x->data, y->data, x->rows * x->cols * rt_ftype_size(x->type)) == 0;
}

/* ---- .npy ---- */

/* A .npy image: version 1.0 prefix, the dict padded to 64 bytes, then data. */
static size_t npy_image(unsigned char *buf, const char *dict, const void *data, size_t dlen)
{
    size_t n = strlen(dict);
    size_t total = (10 + n + 1 + 63) / 64 * 64, hlen = total - 10;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + 10, dict, n);
    memset(buf + 10 + n, ' ', hlen - n - 1);
    buf[total - 1] = '\n';
    if (dlen)
        memcpy(buf + total, data, dlen);
    return total + dlen;
}

Test(float_npy, reads_what_numpy_writes)
{
    /* The bytes np.save writes for np.arange(6.).reshape(2, 3) in each order:
     * C order lists rows, Fortran order columns. */
    double c_data[6] = {0, 1, 2, 3, 4, 5};
    double f_data[6] = {0, 3, 1, 4, 2, 5};
    unsigned char buf[512];
    const char *dicts[2] = {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
                            "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }"};
    for (int o = 0; o < 2; o++) {
        size_t len = npy_image(buf, dicts[o], o ? f_data : c_data, sizeof c_data);
        scheme_diag d;
        memset(&d, 0, sizeof d);
        rt_fmatrix *m = rt_npy_read_buffer(buf, len, "x.npy", &d);
        cr_assert_not_null(m, "%s", d.msg);
        cr_assert_eq(m->rows, 2);
        cr_assert_eq(m->cols, 3);
        cr_assert_eq(m->type, RT_F64);
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 3; c++)
                cr_assert_eq(rt_fmatrix_get(m, r, c), (long double)(r * 3 + c), "order %d (%d,%d)", o, r, c);
        rt_fmatrix_free(m);
    }
    /* float32, keys in another order, a Python 2 long, no trailing comma. */
    float f32[4] = {1.5f, -2.0f, 0.25f, 8.0f};
    size_t len = npy_image(buf, "{'shape': (4L, 1), 'fortran_order': False, 'descr': '<f4'}", f32, sizeof f32);
    rt_fmatrix *m = rt_npy_read_buffer(buf, len, "y.npy", NULL);
    cr_assert_not_null(m);
    cr_assert_eq(m->type, RT_F32);
    cr_assert_eq(m->rows, 4);
    cr_assert_eq(rt_fmatrix_get(m, 2, 0), 0.25L);
    rt_fmatrix_free(m);
}

static void expect_bad(const char *dict, size_t dlen, long extra, const char *want)
{
    unsigned char buf[1024];
    double data[64];
    memset(data, 0, sizeof data);
    size_t len = npy_image(buf, dict, data, dlen);
    len = (size_t)((long)len + extra);
    scheme_diag d;
    memset(&d, 0, sizeof d);
    rt_fmatrix *m = rt_npy_read_buffer(buf, len, "bad.npy", &d);
    cr_assert_null(m, "accepted: %s", dict);
    cr_assert_str_eq(d.file, "bad.npy");
    cr_assert(strstr(d.msg, want), "%s: message '%s' lacks '%s'", dict, d.msg, want);
}

Test(float_npy, bad_headers_are_refused)
{
    expect_bad("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 2), }", 32, 0, "big-endian");
    expect_bad("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", 16, 0, "'<f8' (float64)");
    expect_bad("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", 32, 0, "1-D array");
    expect_bad("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 1), }", 32, 0, "2-D shape");
    expect_bad("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 2), }", 0, 0, "1 .. 2^32");
    expect_bad("{'descr': '<f8', 'fortran_order': False, }", 0, 0, "no 'shape' key");
    expect_bad("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", 32, 0, "each key once");
    expect_bad("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2, 2), }", 32, 0, "True or False");
    expect_bad("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), 'x': 1}", 32, 0, "one of the keys");
    expect_bad("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", 24, 0, "bytes of entries");
    expect_bad("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", 40, 0, "bytes of entries");
    expect_bad("['descr', '<f8']", 0, 0, "Python dict");
    /* Byte offsets: the key 'shap' starts at byte 10 + 41. */
    expect_bad("{'descr': '<f8', 'fortran_order': False, 'shap': (2, 2), }", 32, 0, "byte 51 of the .npy header");
    /* Truncated in the header. */
    expect_bad("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", 0, -40, "truncated");

    unsigned char buf[256];
    size_t len = npy_image(buf, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", "\0\0\0\0\0\0\0\0", 8);
    scheme_diag d;
    buf[6] = 4;
    cr_assert_null(rt_npy_read_buffer(buf, len, "v.npy", &d));
    cr_assert(strstr(d.msg, "version 4.0"), "%s", d.msg);
    buf[6] = 1;
    buf[0] = 'X';
    cr_assert_null(rt_npy_read_buffer(buf, len, "v.npy", &d));
    cr_assert(strstr(d.msg, "not a NumPy .npy file"), "%s", d.msg);
    buf[0] = 0x93;
    buf[len - 9] = 'x'; /* the newline that ends the header */
    cr_assert_null(rt_npy_read_buffer(buf, len, "v.npy", &d));
    cr_assert(strstr(d.msg, "newline"), "%s", d.msg);
}

Test(float_npy, files_round_trip_in_both_orders)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    char dir[256];
    tc_temp_dir(dir, sizeof dir, "fg_npy");
    char path[512];
    snprintf(path, sizeof path, "%s/m.npy", dir);
    for (int round = 0; round < 12; round++) {
        rt_ftype t = round % 2 ? RT_F32 : RT_F64;
        bool fortran = (round / 2) % 2;
        uint64_t r = 1 + scheme_rng_next(&rng) % 90, c = 1 + scheme_rng_next(&rng) % 90;
        rt_fmatrix *m = rt_fmatrix_new(r, c, t);
        rt_fmatrix_random(m, &rng);
        char err[512];
        cr_assert(rt_npy_write_file(path, m, fortran, err, sizeof err), "%s", err);
        uint64_t rr, cc;
        rt_ftype tt;
        bool ff;
        scheme_diag d;
        cr_assert(rt_npy_read_dims(path, &rr, &cc, &tt, &ff, &d), "%s", d.msg);
        cr_assert(rr == r && cc == c && tt == t && ff == fortran);
        rt_fmatrix *back = rt_npy_read_file(path, &d);
        cr_assert_not_null(back, "%s", d.msg);
        cr_assert(same_bits(m, back), "seed %" PRIu64 " round %d: %llu x %llu %s %s order differs",
                  seed, round, (unsigned long long)r, (unsigned long long)c, rt_ftype_name(t),
                  fortran ? "Fortran" : "C");
        /* The header is padded so that the entries start at a multiple of 64. */
        struct stat st;
        stat(path, &st);
        cr_assert_eq(((uint64_t)st.st_size - r * c * rt_ftype_size(t)) % 64, 0);
        rt_fmatrix_free(m);
        rt_fmatrix_free(back);
    }
    /* A file whose size disagrees with its header names the file. */
    FILE *f = fopen(path, "ab");
    fputc(0, f);
    fclose(f);
    scheme_diag d;
    memset(&d, 0, sizeof d);
    cr_assert_null(rt_npy_read_file(path, &d));
    cr_assert_str_eq(d.file, path);
    cr_assert(strstr(d.msg, "the header"), "%s", d.msg);
    /* A write that cannot happen leaves nothing and says why. */
    char bad[600], err[512];
    snprintf(bad, sizeof bad, "%s/no/such/dir/x.npy", dir);
    rt_fmatrix *m = rt_fmatrix_new(2, 2, RT_F64);
    cr_assert_not(rt_npy_write_file(bad, m, false, err, sizeof err));
    cr_assert(err[0]);
    rt_fmatrix_free(m);
    tc_remove_tree(dir);
}

/* ---- the reference ---- */

static void fill_ints(rt_fmatrix *m, scheme_rng *rng, int range)
{
    for (uint64_t r = 0; r < m->rows; r++)
        for (uint64_t c = 0; c < m->cols; c++)
            rt_fmatrix_set(m, r, c, (long double)((int)(scheme_rng_next(rng) % (2u * range + 1)) - range));
}

Test(float_reference, exact_on_integers)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int round = 0; round < 6; round++) {
        uint64_t M = 1 + scheme_rng_next(&rng) % 40, K = 1 + scheme_rng_next(&rng) % 40,
                 N = 1 + scheme_rng_next(&rng) % 40;
        rt_fmatrix *A = rt_fmatrix_new(M, K, RT_F64), *B = rt_fmatrix_new(K, N, RT_F64),
                   *C = rt_fmatrix_new(M, N, RT_F64);
        fill_ints(A, &rng, 9);
        fill_ints(B, &rng, 9);
        cr_assert(rt_fmul_reference(A, B, C));
        for (uint64_t i = 0; i < M; i++)
            for (uint64_t j = 0; j < N; j++) {
                long long want = 0;
                for (uint64_t k = 0; k < K; k++)
                    want += (long long)rt_fmatrix_get(A, i, k) * (long long)rt_fmatrix_get(B, k, j);
                cr_assert_eq((long long)rt_fmatrix_get(C, i, j), want, "seed %" PRIu64, seed);
            }
        rt_fmatrix_free(A);
        rt_fmatrix_free(B);
        rt_fmatrix_free(C);
    }
}

/* ---- plans ---- */

static scheme *builtin(const char *name)
{
    char err[256];
    scheme *s = rt_scheme_builtin(name, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    return s;
}

/* A <3,3,3> rank-23 scheme over Z, made fresh: a CPU search from the standard
 * algorithm to rank 23 (Laderman's rank), then Hensel lifting.  A seed whose
 * scheme does not lift is followed by the next. */
static scheme *z_333_23(uint64_t seed)
{
    for (int attempt = 0; attempt < 20; attempt++) {
        search_params p;
        search_params_default(&p);
        p.fmt = (scheme_format){3, 3, 3};
        p.target_rank = 23;
        p.time_limit = 60;
        p.threads = 1;
        p.seed = seed + (uint64_t)attempt;
        p.progress_every = 0;
        search_result r;
        memset(&r, 0, sizeof r);
        search_status st = search_run_cpu(&p, NULL, 0, NULL, &r);
        if (st == SEARCH_REACHED && r.best && r.best->rank == 23) {
            verify_lift_result lr;
            scheme *z = verify_lift(r.best, &lr);
            search_result_free(&r);
            if (z)
                return z;
        } else {
            search_result_free(&r);
        }
    }
    cr_assert_fail("no <3,3,3>:23 over Z in 20 search and lift attempts (seed %" PRIu64 ")", seed);
    return NULL;
}

Test(float_plan, refuses_gf2_only_levels_naming_them)
{
    scheme *st = builtin("strassen");
    scheme *m2 = tc_read_corpus("kauers-moosbauer/444-47-mod2.exp");
    const scheme *chain[2] = {st, m2};
    const char *names[2] = {"strassen", "444-47-mod2.exp"};
    rt_fplan p;
    int level;
    char err[1024];
    cr_assert_not(rt_fplan_init(&p, chain, names, 2, &level, err, sizeof err));
    cr_assert_eq(level, 2);
    cr_assert(strstr(err, "level 2 (444-47-mod2.exp) is not valid over Z"), "%s", err);
    /* Strassen's stability factor is 12 (Ballard et al. 2016); the standard
     * algorithm's is its inner dimension. */
    cr_assert(rt_fplan_init(&p, chain, names, 1, &level, err, sizeof err), "%s", err);
    cr_assert_eq(p.lv[0].stability, 12.0);
    cr_assert_eq(p.lv[0].rank, 7);
    rt_fplan_free(&p);
    scheme *std = builtin("std:2x3x4");
    const scheme *c1[1] = {std};
    cr_assert(rt_fplan_init(&p, c1, NULL, 1, &level, err, sizeof err), "%s", err);
    cr_assert_eq(p.lv[0].stability, 3.0);
    rt_fplan_free(&p);
    scheme_free(std);
    scheme_free(st);
    scheme_free(m2);
}

/* ---- products ---- */

typedef struct {
    scheme *s[8];
    const char *name[8];
    int n;
} pool_t;

static void pool_add(pool_t *p, scheme *s, const char *name)
{
    p->s[p->n] = s;
    p->name[p->n++] = name;
}

static scheme *shared_333;

static void pool_fill(pool_t *p, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    pool_add(p, builtin("strassen"), "strassen");
    pool_add(p, builtin("winograd"), "winograd");
    if (!shared_333)
        shared_333 = z_333_23(seed);
    pool_add(p, scheme_clone(shared_333), "333-23-lifted");
    pool_add(p, tc_read_corpus("kauers-moosbauer/223-11-mod0.exp"), "223-11-mod0");
    pool_add(p, tc_read_corpus("kauers-moosbauer/233-15-mod0.exp"), "233-15-mod0");
    pool_add(p, builtin("std:2x1x3"), "std:2x1x3");
}

static void pool_free(pool_t *p)
{
    for (int i = 0; i < p->n; i++)
        scheme_free(p->s[i]);
}

/* One product with a chain against the long double reference: within the
 * first-order bound (times 2 for the second-order terms and the reference's own
 * rounding), and exactly on small integers where every value fits the type. */
static void check_chain_par(const scheme *const *chain, const char *const *names, int levels, rt_ftype t,
                            uint64_t M, uint64_t K, uint64_t N, int threads, bool ints, rt_fsums sums,
                            rt_fpar par, scheme_rng *rng, uint64_t seed)
{
    rt_fplan p;
    char err[1024];
    cr_assert(rt_fplan_init(&p, chain, names, levels, NULL, err, sizeof err), "%s", err);
    p.sums = sums;
    p.par = par;
    rt_fmatrix *A = rt_fmatrix_new(M, K, t), *B = rt_fmatrix_new(K, N, t), *C = rt_fmatrix_new(M, N, t);
    if (ints) {
        fill_ints(A, rng, 3);
        fill_ints(B, rng, 3);
    } else {
        rt_fmatrix_random(A, rng);
        rt_fmatrix_random(B, rng);
    }
    /* C starts as garbage: the product must not read it. */
    memset(C->data, 0x7f, M * N * rt_ftype_size(t));
    rt_fstats st;
    cr_assert_eq(rt_fmul(&p, A, B, C, threads, &st, err, sizeof err), RT_OK, "%s", err);
    long double *R = rt_fmul_reference_ld(A, B);
    cr_assert_not_null(R);
    double e = rt_fmatrix_max_error(C, R);
    char chain_s[256] = "";
    for (int l = 0; l < levels; l++)
        snprintf(chain_s + strlen(chain_s), sizeof chain_s - strlen(chain_s), "%s%s", l ? "," : "", names[l]);
    snprintf(chain_s + strlen(chain_s), sizeof chain_s - strlen(chain_s), " (%s sums, %s, %d threads)",
             sums == RT_FSUMS_FUSED ? "fused" : "plain",
             par == RT_FPAR_ROWS ? "rows" : par == RT_FPAR_BLAS ? "blas" : "auto", threads);
    if (ints) {
        cr_assert_eq(e, 0.0, "seed %" PRIu64 ": %s on %" PRIu64 "x%" PRIu64 "x%" PRIu64
                     " %s integers: error %.3e, expected exact", seed, chain_s, M, K, N, rt_ftype_name(t), e);
    } else {
        double bound = 2 * rt_fplan_error_bound(&p, t, K, rt_fmatrix_max_abs(A), rt_fmatrix_max_abs(B));
        cr_assert(e <= bound, "seed %" PRIu64 ": %s on %" PRIu64 "x%" PRIu64 "x%" PRIu64
                  " %s: error %.3e above the bound %.3e", seed, chain_s, M, K, N, rt_ftype_name(t), e, bound);
    }
    free(R);
    rt_fmatrix_free(A);
    rt_fmatrix_free(B);
    rt_fmatrix_free(C);
    rt_fplan_free(&p);
}

static void check_chain(const scheme *const *chain, const char *const *names, int levels, rt_ftype t,
                        uint64_t M, uint64_t K, uint64_t N, int threads, bool ints, rt_fsums sums,
                        scheme_rng *rng, uint64_t seed)
{
    check_chain_par(chain, names, levels, t, M, K, N, threads, ints, sums, RT_FPAR_AUTO, rng, seed);
}

static void random_chains(bool ints, int rounds)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    pool_t pool;
    pool_fill(&pool, seed);
    for (int round = 0; round < rounds; round++) {
        int levels = 1 + (int)(scheme_rng_next(&rng) % 2);
        const scheme *chain[2];
        const char *names[2];
        for (int l = 0; l < levels; l++) {
            int i = (int)(scheme_rng_next(&rng) % (uint64_t)pool.n);
            chain[l] = pool.s[i];
            names[l] = pool.name[i];
        }
        /* Sizes that are multiples of nothing, sometimes smaller than a block. */
        uint64_t M = 1 + scheme_rng_next(&rng) % 150, K = 1 + scheme_rng_next(&rng) % 150,
                 N = 1 + scheme_rng_next(&rng) % 150;
        rt_ftype t = scheme_rng_next(&rng) % 2 ? RT_F32 : RT_F64;
        /* The two schedules alike: per product (the CPU's default) and fused
         * (the GPU's default; here its CPU twin, rt_fsum). */
        rt_fsums sums = scheme_rng_next(&rng) % 2 ? RT_FSUMS_FUSED : RT_FSUMS_PLAIN;
        /* The threads: the BLAS's, or a panel of rows each (forced even on
         * shapes the default would leave to the BLAS), or the default. */
        rt_fpar par = (rt_fpar)(scheme_rng_next(&rng) % 3);
        check_chain_par(chain, names, levels, ints ? RT_F64 : t, M, K, N, 1 + (int)(scheme_rng_next(&rng) % 3), ints,
                        sums, par, &rng, seed);
    }
    pool_free(&pool);
}

Test(float_mul, random_chains_within_the_bound, .timeout = 600)
{
    random_chains(false, tc_sanitized() ? 12 : 40);
}

Test(float_mul, exact_on_small_integers, .timeout = 600)
{
    random_chains(true, tc_sanitized() ? 12 : 40);
}

Test(float_mul, named_chains_on_awkward_shapes, .timeout = 600)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    scheme *st = builtin("strassen");
    scheme *l = z_333_23(seed);
    const scheme *one[1] = {st}, *two[2] = {st, st}, *lad[1] = {l}, *mix[2] = {l, st};
    const char *n1[1] = {"strassen"}, *n2[2] = {"strassen", "strassen"}, *nl[1] = {"333-23"},
               *nm[2] = {"333-23", "strassen"};
    /* Odd in every dimension, tall, wide, a single row or column, exact fits. */
    const uint64_t shapes[][3] = {{1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {7, 9, 11}, {64, 64, 64}, {65, 63, 67},
                                  {1, 200, 1}, {200, 1, 200}, {99, 100, 101}, {36, 36, 36}, {37, 5, 80}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        const uint64_t *s = shapes[i];
        for (int t = 0; t < 2; t++) {
            rt_ftype ty = t ? RT_F32 : RT_F64;
            for (int f = 0; f < 2; f++) {
                rt_fsums su = f ? RT_FSUMS_FUSED : RT_FSUMS_PLAIN;
                check_chain(one, n1, 1, ty, s[0], s[1], s[2], 2, false, su, &rng, seed);
                check_chain(two, n2, 2, ty, s[0], s[1], s[2], 1, false, su, &rng, seed);
                check_chain(lad, nl, 1, ty, s[0], s[1], s[2], 1, false, su, &rng, seed);
                check_chain(mix, nm, 2, ty, s[0], s[1], s[2], 2, false, su, &rng, seed);
            }
        }
        check_chain(mix, nm, 2, RT_F64, s[0], s[1], s[2], 2, true, RT_FSUMS_PLAIN, &rng, seed);
        check_chain(mix, nm, 2, RT_F64, s[0], s[1], s[2], 2, true, RT_FSUMS_FUSED, &rng, seed);
    }
    scheme_free(st);
    scheme_free(l);
}

/* Winograd's schedule (fm_winograd_: C's blocks as workspace where C is
 * overwritten, through Z where it is kept, i.e. below a Winograd or a
 * Strassen level) and the panels of rows, on the same awkward shapes: every
 * chain with a Winograd level, alone, twice, three times and mixed, both
 * ways of using the threads, 1-3 threads, against the long double reference,
 * and exactly on small integers. */
Test(float_mul, winograd_chains_and_row_panels, .timeout = 600)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    scheme *st = builtin("strassen"), *w = builtin("winograd");
    scheme *l = z_333_23(seed);
    const scheme *chains[6][3] = {{w}, {w, w}, {w, w, w}, {w, st}, {st, w}, {l, w}};
    const char *names[6][3] = {{"winograd"}, {"winograd", "winograd"}, {"winograd", "winograd", "winograd"},
                               {"winograd", "strassen"}, {"strassen", "winograd"}, {"333-23", "winograd"}};
    int levels[6] = {1, 2, 3, 2, 2, 2};
    const uint64_t shapes[][3] = {{1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {7, 9, 11}, {64, 64, 64}, {65, 63, 67},
                                  {1, 200, 1}, {200, 1, 200}, {99, 100, 101}, {36, 36, 36}, {37, 5, 80},
                                  {130, 66, 9}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        const uint64_t *s = shapes[i];
        for (int c = 0; c < 6; c++) {
            for (int t = 0; t < 2; t++) {
                rt_ftype ty = t ? RT_F32 : RT_F64;
                check_chain_par(chains[c], names[c], levels[c], ty, s[0], s[1], s[2], 1 + (int)(i % 3), false,
                                RT_FSUMS_PLAIN, RT_FPAR_BLAS, &rng, seed);
                check_chain_par(chains[c], names[c], levels[c], ty, s[0], s[1], s[2], 2 + (int)(i % 2), false,
                                RT_FSUMS_PLAIN, RT_FPAR_ROWS, &rng, seed);
            }
            check_chain_par(chains[c], names[c], levels[c], RT_F64, s[0], s[1], s[2], 2, true, RT_FSUMS_PLAIN,
                            RT_FPAR_ROWS, &rng, seed);
            check_chain_par(chains[c], names[c], levels[c], RT_F64, s[0], s[1], s[2], 1, true, RT_FSUMS_PLAIN,
                            RT_FPAR_BLAS, &rng, seed);
        }
        /* The fused schedule takes a Winograd level as any other scheme. */
        check_chain_par(chains[1], names[1], 2, RT_F64, s[0], s[1], s[2], 2, false, RT_FSUMS_FUSED,
                        RT_FPAR_AUTO, &rng, seed);
    }
    scheme_free(st);
    scheme_free(w);
    scheme_free(l);
}

/* The workspace kept between calls (runtime/fmul.c's pool): calls of growing
 * and shrinking sizes, and calls from two threads at once (each with panels
 * of rows, so four products' workspace in use together), each against the
 * long double reference; then released and used again. */
typedef struct {
    const scheme *const *chain;
    const char *const *names;
    uint64_t seed;
    int rounds;
} pool_job;

static void *pool_job_main(void *arg)
{
    const pool_job *j = arg;
    scheme_rng rng;
    scheme_rng_seed(&rng, j->seed);
    for (int r = 0; r < j->rounds; r++) {
        uint64_t M = 100 + scheme_rng_next(&rng) % 200, K = 100 + scheme_rng_next(&rng) % 200,
                 N = 100 + scheme_rng_next(&rng) % 200;
        check_chain_par(j->chain, j->names, 2, RT_F64, M, K, N, 2, r % 2 == 0, RT_FSUMS_PLAIN, RT_FPAR_ROWS,
                        &rng, j->seed);
    }
    return NULL;
}

Test(float_mul, workspace_kept_between_calls, .timeout = 600)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    scheme *w = builtin("winograd"), *st = builtin("strassen");
    const scheme *chain[2] = {w, st};
    const char *names[2] = {"winograd", "strassen"};
    const uint64_t sizes[] = {40, 300, 64, 257, 300, 9};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        check_chain_par(chain, names, 2, RT_F64, sizes[i], sizes[i], sizes[i], 1 + (int)(i % 2), false,
                        RT_FSUMS_PLAIN, RT_FPAR_AUTO, &rng, seed);
    rt_fmul_release();
    pool_job jobs[2] = {{chain, names, seed + 1, 4}, {chain, names, seed + 2, 4}};
    pthread_t tid;
    cr_assert_eq(pthread_create(&tid, NULL, pool_job_main, &jobs[1]), 0);
    pool_job_main(&jobs[0]);
    pthread_join(tid, NULL);
    rt_fmul_release();
    check_chain_par(chain, names, 2, RT_F32, 200, 201, 202, 2, false, RT_FSUMS_PLAIN, RT_FPAR_ROWS, &rng, seed);
    scheme_free(w);
    scheme_free(st);
}

/* The built-in "winograd" verifies over Z (rt_fplan_init checks every level),
 * is recognised in any order of its terms and only then; Strassen is not. */
Test(float_plan, winograd_is_recognised)
{
    scheme *st = builtin("strassen"), *w = builtin("winograd");
    const scheme *c1[1] = {w}, *c2[1] = {st};
    const char *n1[1] = {"winograd"}, *n2[1] = {"strassen"};
    rt_fplan p;
    char err[512];
    cr_assert(rt_fplan_init(&p, c1, n1, 1, NULL, err, sizeof err), "%s", err);
    cr_assert(p.lv[0].winograd);
    cr_assert_eq(p.lv[0].rank, 7);
    rt_fplan_free(&p);
    cr_assert(rt_fplan_init(&p, c2, n2, 1, NULL, err, sizeof err), "%s", err);
    cr_assert(!p.lv[0].winograd);
    rt_fplan_free(&p);
    /* Its terms reversed: the same scheme. */
    scheme *r = scheme_new(w->fmt, SCHEME_RING_Z, 7);
    cr_assert_not_null(r);
    for (int h = 6; h >= 0; h--)
        cr_assert(scheme_push_z(r, &w->zterms[h]));
    const scheme *c3[1] = {r};
    cr_assert(rt_fplan_init(&p, c3, n1, 1, NULL, err, sizeof err), "%s", err);
    cr_assert(p.lv[0].winograd);
    rt_fplan_free(&p);
    /* One sign changed in A and in C of a term (still a valid scheme over Z:
     * (-a) b (-c) = a b c) is not the built-in's term: not recognised. */
    scheme *m = scheme_clone(w);
    cr_assert_not_null(m);
    for (int e = 0; e < 4; e++) {
        m->zterms[0].z[SCHEME_A][e] = (int8_t)-m->zterms[0].z[SCHEME_A][e];
        m->zterms[0].z[SCHEME_C][e] = (int8_t)-m->zterms[0].z[SCHEME_C][e];
    }
    const scheme *c4[1] = {m};
    cr_assert(rt_fplan_init(&p, c4, n1, 1, NULL, err, sizeof err), "%s", err);
    cr_assert(!p.lv[0].winograd);
    rt_fplan_free(&p);
    scheme_free(m);
    scheme_free(r);
    scheme_free(st);
    scheme_free(w);
}

/* rt_fsum (the fused pass's CPU twin) against the plain loop it stands for,
 * on fresh random tables (zeros, +-1 and larger coefficients, all-zero rows),
 * strided sources and outputs, outputs kept at random or none (keep NULL): exact on small integers,
 * and outputs with an all-zero row left as they were. */
Test(float_fsum, matches_the_plain_sum)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int round = 0; round < 200; round++) {
        rt_ftype t = round % 2 ? RT_F32 : RT_F64;
        size_t es = rt_ftype_size(t);
        uint64_t rows = 1 + scheme_rng_next(&rng) % 9, cols = 1 + scheme_rng_next(&rng) % 13;
        uint64_t lds = cols + scheme_rng_next(&rng) % 4, ldd = cols + scheme_rng_next(&rng) % 4;
        int ns = 1 + (int)(scheme_rng_next(&rng) % 20), no = 1 + (int)(scheme_rng_next(&rng) % 20);
        bool keep[64], anykeep = scheme_rng_next(&rng) % 2;
        for (int o = 0; o < 64; o++)
            keep[o] = anykeep && scheme_rng_next(&rng) % 2;
        int *coef = malloc((size_t)ns * (size_t)no * sizeof *coef);
        for (int i = 0; i < ns * no; i++) {
            uint64_t r = scheme_rng_next(&rng) % 8;
            coef[i] = r < 4 ? 0 : r < 6 ? 1 : r == 6 ? -1 : (int)(scheme_rng_next(&rng) % 7) - 3;
        }
        if (no > 1) /* an output with no term */
            memset(coef + (size_t)(scheme_rng_next(&rng) % (uint64_t)no) * (size_t)ns, 0, (size_t)ns * sizeof *coef);
        double *sv = malloc((size_t)ns * rows * lds * sizeof *sv), *dv = malloc((size_t)no * rows * ldd * sizeof *dv);
        unsigned char *sb = malloc((size_t)ns * rows * lds * es), *db = malloc((size_t)no * rows * ldd * es);
        for (uint64_t i = 0; i < (uint64_t)ns * rows * lds; i++)
            sv[i] = (double)((int)(scheme_rng_next(&rng) % 41) - 20);
        for (uint64_t i = 0; i < (uint64_t)no * rows * ldd; i++)
            dv[i] = (double)((int)(scheme_rng_next(&rng) % 41) - 20);
        for (uint64_t i = 0; i < (uint64_t)ns * rows * lds; i++) {
            if (t == RT_F64)
                ((double *)sb)[i] = sv[i];
            else
                ((float *)sb)[i] = (float)sv[i];
        }
        for (uint64_t i = 0; i < (uint64_t)no * rows * ldd; i++) {
            if (t == RT_F64)
                ((double *)db)[i] = dv[i];
            else
                ((float *)db)[i] = (float)dv[i];
        }
        const void *src[64];
        void *dst[64];
        for (int s = 0; s < ns; s++)
            src[s] = sb + (size_t)s * rows * lds * es;
        for (int o = 0; o < no; o++)
            dst[o] = db + (size_t)o * rows * ldd * es;
        rt_fsum(t, rows, cols, ns, src, lds, no, dst, ldd, coef, anykeep ? keep : NULL);
        for (int o = 0; o < no; o++) {
            bool any = false;
            for (int s = 0; s < ns; s++)
                any |= coef[o * ns + s] != 0;
            for (uint64_t r = 0; r < rows; r++)
                for (uint64_t c = 0; c < ldd; c++) {
                    uint64_t at = (uint64_t)o * rows * ldd + r * ldd + c;
                    double want = dv[at];
                    if (any && c < cols) {
                        want = anykeep && keep[o] ? dv[at] : 0;
                        for (int s = 0; s < ns; s++)
                            want += coef[o * ns + s] * sv[(uint64_t)s * rows * lds + r * lds + c];
                    }
                    double got = t == RT_F64 ? ((double *)db)[at] : (double)((float *)db)[at];
                    cr_assert_eq(got, want, "seed %" PRIu64 " round %d: output %d (%s) at %" PRIu64 ",%" PRIu64
                                 ": %g, expected %g", seed, round, o, any ? "live" : "no term", r, c, got, want);
                }
        }
        free(coef), free(sv), free(dv), free(sb), free(db);
    }
}

/* The fused schedule's tables (rt_flevel): every nonzero coefficient of the
 * scheme in its slot, and slots only where a sum or a Q pass is needed. */
Test(float_plan, fused_schedule_tables)
{
    scheme *st = builtin("strassen");
    const scheme *one[1] = {st};
    const char *n1[1] = {"strassen"};
    rt_fplan p;
    char err[512];
    cr_assert(rt_fplan_init(&p, one, n1, 1, NULL, err, sizeof err), "%s", err);
    const rt_flevel *L = &p.lv[0];
    int nt = 0, ns = 0, nq = 0;
    for (int h = 0; h < L->rank; h++) {
        const rt_fterm *t = &L->terms[h];
        cr_assert_eq(L->t_slot[h] >= 0, t->na > 1);
        cr_assert_eq(L->s_slot[h] >= 0, t->nb > 1);
        cr_assert_eq(L->q_slot[h] >= 0, t->nc > 1);
        nt += t->na > 1, ns += t->nb > 1, nq += t->nc > 1;
        for (int q = 0; q < t->na && t->na > 1; q++)
            cr_assert_eq(L->ta[L->t_slot[h] * 4 + t->a_blk[q]], t->a_coef[q]);
        for (int q = 0; q < t->nb && t->nb > 1; q++)
            cr_assert_eq(L->sb[L->s_slot[h] * 4 + t->b_blk[q]], t->b_coef[q]);
        for (int q = 0; q < t->nc && t->nc > 1; q++)
            cr_assert_eq(L->qc[t->c_blk[q] * L->nq + L->q_slot[h]], t->c_coef[q]);
    }
    cr_assert_eq(L->nt, nt);
    cr_assert_eq(L->ns, ns);
    cr_assert_eq(L->nq, nq);
    /* Strassen: 5 sums a side, 5 products feed two C blocks. */
    cr_assert_eq(nt, 5);
    cr_assert_eq(ns, 5);
    cr_assert_eq(nq, 5);
    rt_fplan_free(&p);
    scheme_free(st);
}

/* Larger sizes against the BLAS (the long double reference is too slow
 * there): |fast - BLAS| <= the two bounds together. */
Test(float_mul, against_the_blas_on_larger_sizes, .timeout = 900)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    scheme *st = builtin("strassen");
    scheme *l = z_333_23(seed);
    scheme *w = builtin("winograd");
    const scheme *chains[4][3] = {{st, st, st}, {l, st, NULL}, {st, l, NULL}, {w, w, w}};
    const char *names[4][3] = {{"strassen", "strassen", "strassen"}, {"333-23", "strassen", NULL},
                               {"strassen", "333-23", NULL}, {"winograd", "winograd", "winograd"}};
    int levels[4] = {3, 2, 2, 3};
    int rounds = tc_sanitized() ? 2 : 5;
    for (int round = 0; round < rounds; round++) {
        int c = round % 4;
        uint64_t M = 300 + scheme_rng_next(&rng) % 500, K = 300 + scheme_rng_next(&rng) % 500,
                 N = 300 + scheme_rng_next(&rng) % 500;
        rt_ftype t = round % 2 ? RT_F32 : RT_F64;
        rt_fplan p, none;
        memset(&none, 0, sizeof none);
        char err[1024];
        cr_assert(rt_fplan_init(&p, chains[c], names[c], levels[c], NULL, err, sizeof err), "%s", err);
        p.sums = (round + round / 2) % 2 ? RT_FSUMS_FUSED : RT_FSUMS_PLAIN;
        p.par = round % 2 ? RT_FPAR_ROWS : RT_FPAR_BLAS;
        rt_fmatrix *A = rt_fmatrix_new(M, K, t), *B = rt_fmatrix_new(K, N, t), *C = rt_fmatrix_new(M, N, t),
                   *D = rt_fmatrix_new(M, N, t);
        rt_fmatrix_random(A, &rng);
        rt_fmatrix_random(B, &rng);
        cr_assert_eq(rt_fmul(&p, A, B, C, 2, NULL, err, sizeof err), RT_OK, "%s", err);
        cr_assert_eq(rt_fmul_blas(A, B, D, 2, err, sizeof err), RT_OK, "%s", err);
        double amax = rt_fmatrix_max_abs(A), bmax = rt_fmatrix_max_abs(B);
        double bound = 2 * (rt_fplan_error_bound(&p, t, K, amax, bmax) + rt_fplan_error_bound(&none, t, K, amax, bmax));
        double worst = 0;
        for (uint64_t i = 0; i < M; i++)
            for (uint64_t j = 0; j < N; j++) {
                double e = (double)fabsl(rt_fmatrix_get(C, i, j) - rt_fmatrix_get(D, i, j));
                if (!(e <= worst))
                    worst = e;
            }
        cr_assert(worst <= bound, "seed %" PRIu64 ": chain %d (%s sums) on %" PRIu64 "x%" PRIu64 "x%" PRIu64
                  " %s: |fast - BLAS| = %.3e above %.3e", seed, c, p.sums == RT_FSUMS_FUSED ? "fused" : "plain", M,
                  K, N, rt_ftype_name(t), worst, bound);
        /* And a sample against the compensated reference. */
        double se = rt_fmul_sample_error(A, B, C, 64, &rng);
        cr_assert(se <= bound, "seed %" PRIu64 ": sampled error %.3e", seed, se);
        rt_fmatrix_free(A);
        rt_fmatrix_free(B);
        rt_fmatrix_free(C);
        rt_fmatrix_free(D);
        rt_fplan_free(&p);
    }
    scheme_free(st);
    scheme_free(w);
    scheme_free(l);
}

Test(float_mul, refuses_mismatched_operands)
{
    rt_fplan none;
    memset(&none, 0, sizeof none);
    rt_fmatrix *A = rt_fmatrix_new(3, 4, RT_F64), *B = rt_fmatrix_new(5, 2, RT_F64),
               *B32 = rt_fmatrix_new(4, 2, RT_F32), *C = rt_fmatrix_new(3, 2, RT_F64);
    char err[512];
    cr_assert_eq(rt_fmul(&none, A, B, C, 1, NULL, err, sizeof err), RT_EDIMS);
    cr_assert(strstr(err, "A's columns must equal B's rows"), "%s", err);
    cr_assert_eq(rt_fmul(&none, A, B32, C, 1, NULL, err, sizeof err), RT_EDIMS);
    cr_assert(strstr(err, "different types"), "%s", err);
    rt_fmatrix_free(A);
    rt_fmatrix_free(B);
    rt_fmatrix_free(B32);
    rt_fmatrix_free(C);
}

/* ---- the binary ---- */

Test(float_cli, end_to_end)
{
    uint64_t seed = tc_seed();
    char dir[256];
    tc_temp_dir(dir, sizeof dir, "fg_float");
    const char *b = tc_bin();
    char cmd[8192];
    unsigned M = 50 + (unsigned)(seed % 150), K = 40 + (unsigned)((seed >> 8) % 160), N = 1 + (unsigned)((seed >> 16) % 170);
    char lad[600];
    snprintf(lad, sizeof lad, "%s/333.txt", dir);
    scheme *l = z_333_23(seed);
    char err[512];
    scheme_write_ctx wc = {l, SCHEME_FILE_NATIVE};
    cr_assert(scheme_write_file_atomic(lad, scheme_write_cb, &wc, err, sizeof err), "%s", err);
    scheme_free(l);
    for (int t = 0; t < 2; t++) {
        const char *ty = t ? "f32" : "f64";
        snprintf(cmd, sizeof cmd,
                 "cd %s && %s matrix random --type %s --rows %u --cols %u --seed %" PRIu64 " -o a.npy 2>/dev/null && "
                 "%s matrix random --type %s --rows %u --cols %u --seed %" PRIu64 " --order f -o b.npy && "
                 "%s matrix mul --naive a.npy b.npy -o n.npy && "
                 "%s multiply -q --type %s --scheme strassen,%s --a a.npy --b b.npy -o c.npy --threads 2 && "
                 "%s matrix cmp c.npy n.npy --tol %s",
                 dir, b, ty, M, K, seed, b, ty, K, N, seed + 1, b, b, ty, lad, b, t ? "1e-3" : "1e-11");
        cr_assert_eq(tc_system(tc_fmt("%s >%s/log.txt 2>&1", cmd, dir)), 0, "seed %" PRIu64 ": %s: %s", seed, cmd,
                     tc_slurp(tc_fmt("%s/log.txt", dir), 1 << 16, NULL));
    }
    /* -v prints the sampled error and the bound. */
    snprintf(cmd, sizeof cmd, "cd %s && %s multiply -v --type f32 --scheme strassen --levels 2 --a a.npy --b b.npy -o c2.npy 2>log.txt && "
             "grep -q 'first-order bound' log.txt", dir, b);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    /* A GF(2)-only level: exit 2 naming the level; no output left behind. */
    snprintf(cmd, sizeof cmd, "cd %s && %s multiply --type f32 --scheme strassen,%s --a a.npy --b b.npy -o w.npy 2>err.txt",
             dir, b, tc_corpus("kauers-moosbauer/444-47-mod2.exp"));
    cr_assert_eq(tc_system(cmd), 2, "%s", cmd);
    cr_assert_eq(tc_system(tc_fmt("grep -q 'level 2 (.*444-47-mod2.exp) is not valid over Z' %s/err.txt", dir)), 0,
                 "%s", tc_slurp(tc_fmt("%s/err.txt", dir), 1 << 16, NULL));
    cr_assert_not(tc_exists(tc_fmt("%s/w.npy", dir)));
    /* .npy files without --type: exit 2, saying to add it. */
    snprintf(cmd, sizeof cmd, "cd %s && %s multiply --scheme strassen --a a.npy --b b.npy -o w.bin 2>err.txt", dir, b);
    cr_assert_eq(tc_system(cmd), 2, "%s", cmd);
    cr_assert_eq(tc_system(tc_fmt("grep -q 'a.npy is a NumPy .npy float matrix: .*--type' %s/err.txt", dir)), 0);
    /* The wrong type, a bad file, mismatched shapes: exit 2, naming the file. */
    snprintf(cmd, sizeof cmd, "cd %s && %s multiply --type f64 --scheme strassen --a a.npy --b b.npy -o w.npy 2>err.txt", dir, b);
    cr_assert_eq(tc_system(cmd), 2, "%s", cmd);
    cr_assert_eq(tc_system(tc_fmt("grep -q 'holds f32' %s/err.txt", dir)), 0);
    snprintf(cmd, sizeof cmd, "cd %s && head -c 100 a.npy > t.npy && %s multiply --type f32 --a t.npy --b b.npy -o w.npy 2>err.txt", dir, b);
    cr_assert_eq(tc_system(cmd), 2, "%s", cmd);
    cr_assert_eq(tc_system(tc_fmt("grep -q '^t.npy: ' %s/err.txt", dir)), 0, "%s", tc_slurp(tc_fmt("%s/err.txt", dir), 1 << 16, NULL));
    snprintf(cmd, sizeof cmd, "cd %s && %s multiply --type f32 --a b.npy --b b.npy -o w.npy 2>err.txt", dir, b);
    cr_assert_eq(tc_system(cmd), K == N ? 0 : 2, "%s", cmd);
    /* The GPU backend: exit 2 where the build or the machine has none (nothing
     * written); where it runs, the product must match (tests/gpu_float.c tests more). */
    int grc = tc_system(tc_fmt("cd %s && rm -f w.npy && %s multiply -q --type f32 --backend gpu --a a.npy "
                               "--b b.npy -o w.npy 2>err.txt", dir, b));
    cr_assert(grc == 0 || grc == 2, "--backend gpu: exit %d", grc);
    if (grc == 2)
        cr_assert_not(tc_exists(tc_fmt("%s/w.npy", dir)));
    else
        cr_assert_eq(tc_system(tc_fmt("cd %s && %s matrix cmp w.npy n.npy --tol 1e-3 >/dev/null", dir, b)), 0);
    /* --sums fused (the CPU twin of the GPU's schedule) and --streams give the same
     * product; a bad value, or --sums for bit matrices: exit 2, nothing written. */
    snprintf(cmd, sizeof cmd, "cd %s && %s multiply -q --type f32 --scheme strassen --levels 2 --sums fused --streams 3 "
             "--a a.npy --b b.npy -o f.npy && %s matrix cmp f.npy n.npy --tol 1e-3 >/dev/null", dir, b, b);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "cd %s && %s multiply --type f32 --sums partly --a a.npy --b b.npy -o w3.npy 2>err.txt", dir, b);
    cr_assert_eq(tc_system(cmd), 2, "%s", cmd);
    cr_assert_eq(tc_system(tc_fmt("grep -q -- '--sums: expected plain or fused' %s/err.txt", dir)), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s multiply --sums fused --a a.npy --b b.npy -o w3.npy 2>err.txt", dir, b);
    cr_assert_eq(tc_system(cmd), 2, "%s", cmd);
    cr_assert_eq(tc_system(tc_fmt("grep -q -- '--sums, --parallel and --streams are for float products' %s/err.txt", dir)), 0);
    cr_assert_not(tc_exists(tc_fmt("%s/w3.npy", dir)));
    /* bench multiply --type: chains with their schedule side by side, each row
     * with its error; a bad suffix is exit 2. */
    snprintf(cmd, sizeof cmd, "cd %s && %s bench multiply --type f64 --sizes 37,64 --reps 1 --threads 1 "
             "--chain strassen@plain --chain strassen,strassen@fused@s2 >bench.txt 2>&1 && "
             "grep -q ' strassen@plain ' bench.txt && grep -q ' strassen,strassen@fused@s2 ' bench.txt && "
             "grep -q 'best chain' bench.txt", dir, b);
    cr_assert_eq(tc_system(cmd), 0, "%s: %s", cmd, tc_slurp(tc_fmt("%s/bench.txt", dir), 1 << 16, NULL));
    snprintf(cmd, sizeof cmd, "cd %s && %s bench multiply --type f64 --sizes 8 --chain strassen@fast 2>err.txt", dir, b);
    cr_assert_eq(tc_system(cmd), 2, "%s", cmd);
    cr_assert_eq(tc_system(tc_fmt("grep -q \"'@fast': expected @plain, @fused\" %s/err.txt", dir)), 0);
    /* --tf32 only with f32 on the GPU. */
    cr_assert_eq(tc_system(tc_fmt("cd %s && %s multiply --type f32 --tf32 --a a.npy --b b.npy -o w2.npy 2>err.txt", dir, b)), 2);
    cr_assert_not(tc_exists(tc_fmt("%s/w2.npy", dir)));
    /* db show gives a Z scheme's stability factor (Strassen's is 12) and says when a
     * scheme has none (valid over GF(2) only). */
    scheme *st = builtin("strassen");
    scheme_write_ctx ws = {st, SCHEME_FILE_NATIVE};
    cr_assert(scheme_write_file_atomic(tc_fmt("%s/strassen.txt", dir), scheme_write_cb, &ws, err, sizeof err), "%s", err);
    scheme_free(st);
    snprintf(cmd, sizeof cmd, "cd %s && %s db --db s.db init >/dev/null && %s db --db s.db import strassen.txt >/dev/null && "
             "%s db --db s.db import %s >/dev/null && %s db --db s.db show 1 > show1.txt && %s db --db s.db show 2 > show2.txt",
             dir, b, b, b, tc_corpus("kauers-moosbauer/444-47-mod2.exp"), b, b);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    cr_assert_eq(tc_system(tc_fmt("grep -q '^stability 12 ' %s/show1.txt", dir)), 0, "%s",
                 tc_slurp(tc_fmt("%s/show1.txt", dir), 1 << 16, NULL));
    cr_assert_eq(tc_system(tc_fmt("grep -q '^stability - (not valid over Z' %s/show2.txt", dir)), 0, "%s",
                 tc_slurp(tc_fmt("%s/show2.txt", dir), 1 << 16, NULL));
    /* matrix cmp: different entries exit 1 and say where. */
    snprintf(cmd, sizeof cmd, "cd %s && %s matrix random --type f32 --rows %u --cols %u --seed %" PRIu64 " -o a2.npy && "
             "%s matrix cmp a.npy a2.npy > cmp.txt", dir, b, M, K, seed + 7, b);
    cr_assert_eq(tc_system(cmd), 1, "%s", cmd);
    cr_assert_eq(tc_system(tc_fmt("grep -q 'the largest' %s/cmp.txt", dir)), 0);
    tc_remove_tree(dir);
}

/* ---- export --to c --type: the generated routine compiled and run ---- */

static const char *driver_src =
    "#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
    "int NAME(int, int, int, const FT *, int, const FT *, int, FT *, int);\n"
    "static unsigned long long st;\n"
    "static unsigned long long nx(void) { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return st; }\n"
    "int main(int argc, char **argv)\n{\n"
    "    if (argc != 6) return 2;\n"
    "    int M = atoi(argv[1]), K = atoi(argv[2]), N = atoi(argv[3]), ints = atoi(argv[5]);\n"
    "    st = strtoull(argv[4], NULL, 10) | 1;\n"
    "    int lda = K + 3, ldb = N + 1, ldc = N + 2;\n"
    "    FT *A = malloc(sizeof(FT) * M * lda), *B = malloc(sizeof(FT) * K * ldb), *C = malloc(sizeof(FT) * M * ldc);\n"
    "    for (int i = 0; i < M * lda; i++) A[i] = ints ? (FT)((int)(nx() % 7) - 3) : (FT)((nx() >> 11) * 0x1p-52 - 1.0);\n"
    "    for (int i = 0; i < K * ldb; i++) B[i] = ints ? (FT)((int)(nx() % 7) - 3) : (FT)((nx() >> 11) * 0x1p-52 - 1.0);\n"
    "    memset(C, 0x7f, sizeof(FT) * M * ldc);\n"
    "    FT guard; memset(&guard, 0x7f, sizeof guard);\n"
    "    if (NAME(M, K, N, A, lda, B, ldb, C, ldc) != 0) return 3;\n"
    "    long double worst = 0, amax = 0, bmax = 0;\n"
    "    for (int i = 0; i < M; i++) for (int k = 0; k < K; k++) if (fabsl(A[i * lda + k]) > amax) amax = fabsl(A[i * lda + k]);\n"
    "    for (int k = 0; k < K; k++) for (int j = 0; j < N; j++) if (fabsl(B[k * ldb + j]) > bmax) bmax = fabsl(B[k * ldb + j]);\n"
    "    int guards = 0;\n"
    "    for (int i = 0; i < M; i++) {\n"
    "        for (int j = 0; j < N; j++) {\n"
    "            long double r = 0;\n"
    "            for (int k = 0; k < K; k++) r += (long double)A[i * lda + k] * B[k * ldb + j];\n"
    "            long double e = fabsl(r - C[i * ldc + j]);\n"
    "            if (!(e <= worst)) worst = e;\n"
    "        }\n"
    "        for (int j = N; j < ldc; j++) guards += memcmp(&C[i * ldc + j], &guard, sizeof guard) != 0;\n"
    "    }\n"
    "    printf(\"%.9Le %.9Le %.9Le %d\\n\", worst, amax, bmax, guards);\n"
    "    return 0;\n}\n";

Test(float_export, c_routine_over_cblas_compiles_and_multiplies, .timeout = 600)
{
#if !defined(FG_TEST_CBLAS_INC) || !defined(FG_TEST_CBLAS_LIB)
    cr_skip_test("built with -DFLIPGRAPH_BLAS=OFF: no CBLAS to compile the generated routine against");
#else
    uint64_t seed = tc_seed();
    char dir[256];
    tc_temp_dir(dir, sizeof dir, "fg_cblas");
    const char *b = tc_bin();
    const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
    scheme *l = z_333_23(seed);
    char lpath[600], err[512];
    snprintf(lpath, sizeof lpath, "%s/333.txt", dir);
    scheme_write_ctx wc = {l, SCHEME_FILE_NATIVE};
    cr_assert(scheme_write_file_atomic(lpath, scheme_write_cb, &wc, err, sizeof err), "%s", err);
    scheme *st = builtin("strassen");
    scheme *m0 = tc_read_corpus("kauers-moosbauer/223-11-mod0.exp");
    struct {
        const char *spec;
        const scheme *s;
    } cases[3] = {{"strassen", NULL}, {NULL, NULL}, {NULL, NULL}};
    char m0path[600];
    snprintf(m0path, sizeof m0path, "%s", tc_corpus("kauers-moosbauer/223-11-mod0.exp"));
    cases[0].s = st;
    cases[1].spec = lpath;
    cases[1].s = l;
    cases[2].spec = m0path;
    cases[2].s = m0;
    /* strassen is a built-in, not a file: export reads files and ids; write it. */
    char spath[600];
    snprintf(spath, sizeof spath, "%s/strassen.txt", dir);
    scheme_write_ctx ws = {st, SCHEME_FILE_NATIVE};
    cr_assert(scheme_write_file_atomic(spath, scheme_write_cb, &ws, err, sizeof err), "%s", err);
    cases[0].spec = spath;
    char drv[600];
    snprintf(drv, sizeof drv, "%s/driver.c", dir);
    FILE *f = fopen(drv, "w");
    cr_assert_not_null(f);
    fputs(driver_src, f);
    fclose(f);
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int c = 0; c < 3; c++)
        for (int t = 0; t < 2; t++) {
            const char *ty = t ? "f32" : "f64", *T = t ? "float" : "double";
            char cmd[4096];
            snprintf(cmd, sizeof cmd,
                     "cd %s && %s export '%s' --to c --type %s --name fmm -o fmm.c 2>log.txt && "
                     "%s -std=c11 -O1 -Wall -Wextra -Werror -I'%s' -c fmm.c 2>>log.txt && "
                     "%s -std=c11 -O1 -Wall -Wextra -DNAME=fmm -DFT=%s driver.c fmm.o -o drv '%s' -lm 2>>log.txt",
                     dir, b, cases[c].spec, ty, cc, FG_TEST_CBLAS_INC, cc, T, FG_TEST_CBLAS_LIB);
            cr_assert_eq(tc_system(cmd), 0, "%s: %s", cmd, tc_slurp(tc_fmt("%s/log.txt", dir), 1 << 16, NULL));
            rt_fplan p;
            const scheme *one[1] = {cases[c].s};
            cr_assert(rt_fplan_init(&p, one, NULL, 1, NULL, err, sizeof err), "%s", err);
            for (int round = 0; round < 4; round++) {
                int M = 1 + (int)(scheme_rng_next(&rng) % 90), K = 1 + (int)(scheme_rng_next(&rng) % 90),
                    N = 1 + (int)(scheme_rng_next(&rng) % 90);
                int ints = round % 2;
                char out[512];
                snprintf(cmd, sizeof cmd, "%s/drv %d %d %d %" PRIu64 " %d", dir, M, K, N, seed + (uint64_t)round, ints);
                int rc = tc_exit_code(tc_system_capture(cmd, out, sizeof out, NULL, 0));
                cr_assert_eq(rc, 0, "%s: exit %d", cmd, rc);
                long double worst, amax, bmax;
                int guards;
                cr_assert_eq(sscanf(out, "%Le %Le %Le %d", &worst, &amax, &bmax, &guards), 4, "%s", out);
                cr_assert_eq(guards, 0, "%s: the routine wrote past column N", cmd);
                double bound = ints && !t ? 0.0 : 2 * rt_fplan_error_bound(&p, t ? RT_F32 : RT_F64, (uint64_t)K,
                                                                            (double)amax, (double)bmax);
                if (ints && t)
                    bound = 0; /* small integers are exact in float too at these sizes */
                cr_assert((double)worst <= bound, "seed %" PRIu64 ": %s (%s %s): error %.3Le above %.3e", seed,
                          cases[c].spec, ty, cmd, worst, bound);
            }
            rt_fplan_free(&p);
        }
    /* A GF(2)-only scheme is refused (exit 1) and nothing is written. */
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s && %s export '%s' --to c --type f64 -o no.c 2>log.txt", dir, b,
             tc_corpus("kauers-moosbauer/444-47-mod2.exp"));
    cr_assert_eq(tc_system(cmd), 1, "%s", cmd);
    cr_assert_not(tc_exists(tc_fmt("%s/no.c", dir)));
    snprintf(cmd, sizeof cmd, "cd %s && %s export '%s' --to exp --type f64 2>log.txt", dir, b, spath);
    cr_assert_eq(tc_system(cmd), 2, "%s", cmd);
    scheme_free(l);
    scheme_free(st);
    scheme_free(m0);
    tc_remove_tree(dir);
#endif
}
