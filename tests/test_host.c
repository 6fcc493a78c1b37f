/* Tests of the host layer (runtime/host.c, docs/host-layer.md): products split
 * into subproblems under memory limits, with one or several CPU executors
 * standing in for GPUs, against the in-core product (rt_execute) and the plain
 * reference (rt_mul_naive), bit for bit; the generated operands and the checks
 * of bench multiply --generate (runtime/check.c); the CLI options.  Inputs are
 * fresh each run: the seed is printed on failure and FLIPGRAPH_SEED=...
 * replays it. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static scheme *corpus_scheme(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/kauers-moosbauer/%s", tc_corpus_dir(), name);
    scheme_diag d;
    memset(&d, 0, sizeof d);
    scheme *s = scheme_read_file(path, NULL, &d);
    cr_assert_not_null(s, "%s:%d:%d: %s", path, d.line, d.col, d.msg);
    return s;
}

typedef struct {
    scheme *s[4];
    const char *name[4];
    int n;
} pool_t;

/* GF(2) pool: Strassen, a random standard format, <4,4,4>:47 (GF(2) only),
 * <2,2,3>:11; the Boolean pool keeps the schemes valid over Z. */
static void pool_fill(pool_t *p, scheme_rng *rng, bool z_only)
{
    memset(p, 0, sizeof *p);
    char err[256];
    p->s[p->n] = rt_scheme_builtin("strassen", err, sizeof err), p->name[p->n++] = "strassen";
    scheme_format f = {1 + (int)scheme_rng_below(rng, 3), 1 + (int)scheme_rng_below(rng, 3),
                       1 + (int)scheme_rng_below(rng, 3)};
    p->s[p->n] = scheme_standard(f), p->name[p->n++] = "standard";
    p->s[p->n] = corpus_scheme("223-11-mod0.exp"), p->name[p->n++] = "223-11-mod0.exp";
    if (!z_only)
        p->s[p->n] = corpus_scheme("444-47-mod2.exp"), p->name[p->n++] = "444-47-mod2.exp";
    for (int i = 0; i < p->n; i++) {
        verify_result vr;
        cr_assert_not_null(p->s[i]);
        cr_assert(verify_f2(p->s[i], &vr), "%s: %s", p->name[i], vr.msg);
    }
}

static void pool_free(pool_t *p)
{
    for (int i = 0; i < p->n; i++)
        scheme_free(p->s[i]);
}

typedef struct {
    uint64_t calls, last_done, last_total;
    bool monotone;
} progress_log;

static void on_progress(void *ctx, uint64_t done, uint64_t total, double seconds)
{
    progress_log *l = ctx;
    (void)seconds;
    if (l->calls && done < l->last_done)
        l->monotone = false;
    l->calls++;
    l->last_done = done, l->last_total = total;
}

/* One product through the host layer with a forced split and `nexec` CPU
 * executors, against rt_execute (in core) and rt_mul_naive. */
static void check_split(scheme_rng *rng, uint64_t seed, const scheme *const *chain, const char *const *names,
                        int levels, bool boolean, uint64_t maxdim)
{
    char err[1024];
    export_plan p;
    cr_assert(export_plan_init(&p, chain, names, levels, boolean, err, sizeof err), "%s", err);
    uint64_t r = 1 + scheme_rng_below(rng, (uint32_t)maxdim), k = 1 + scheme_rng_below(rng, (uint32_t)maxdim),
             c = 1 + scheme_rng_below(rng, (uint32_t)maxdim);
    cr_assert(export_plan_size(&p, r, k, c, err, sizeof err), "%s", err);
    double dens = boolean ? 1.5 / (double)k : 0.5;
    rt_matrix *A = random_matrix(rng, r, k, dens), *B = random_matrix(rng, k, c, dens);
    rt_matrix *C = random_matrix(rng, r, c, 0.5), *in_core = rt_matrix_new(r, c), *want = rt_matrix_new(r, c);
    rt_mul_naive(A, B, want, boolean);
    cr_assert_eq(rt_execute(&p, A, B, in_core, 2, 0, NULL, err, sizeof err), RT_OK, "%s", err);

    rt_executor ex[3];
    int nexec = 1 + (int)scheme_rng_below(rng, 3);
    for (int i = 0; i < nexec; i++)
        ex[i] = (rt_executor){-1, 1 + (int)scheme_rng_below(rng, 2)};
    progress_log log = {0, 0, 0, true};
    rt_host_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.exec = ex, cfg.n_exec = nexec, cfg.threads = 1 + (int)scheme_rng_below(rng, 3);
    cfg.min_host_levels = boolean ? 0 : (int)scheme_rng_below(rng, (uint32_t)levels + 1);
    cfg.min_tiles = 1u << scheme_rng_below(rng, 3);
    cfg.pipeline = 1 + (int)scheme_rng_below(rng, RT_HOST_MAX_DEPTH);
    if (nexec == 1 && cfg.min_host_levels == 0 && cfg.min_tiles == 1)
        cfg.min_tiles = 2; /* always through the host layer here */
    cfg.progress = on_progress, cfg.progress_ctx = &log;
    rt_host_split sp;
    cr_assert_eq(rt_host_choose(&p, &cfg, &sp, err, sizeof err), RT_OK, "%s", err);
    cr_assert(!sp.in_core);
    cr_assert_geq(sp.host_levels, cfg.min_host_levels);
    rt_host_stats hs;
    rt_status st = rt_host_execute(&p, &sp, &cfg, A, B, C, &hs, err, sizeof err);
    cr_assert_eq(st, RT_OK, "%s", err);
    char desc[256];
    rt_host_describe(&sp, desc, sizeof desc);
    rt_diff d1, d2;
    rt_matrix_compare(C, in_core, &d1);
    rt_matrix_compare(C, want, &d2);
    cr_assert(d1.equal && d2.equal,
              "seed %" PRIu64 ": %s %" PRIu64 "x%" PRIu64 "x%" PRIu64 ", %d levels, %s, %d executors, pipeline %d: "
              "%" PRIu64 " entries differ from the in-core product, %" PRIu64 " from the naive one",
              seed, boolean ? "Boolean" : "GF(2)", r, k, c, levels, desc, nexec, cfg.pipeline, d1.count, d2.count);
    cr_assert_eq(hs.leaves, sp.leaves);
    /* the profile of CPU executors: no GPU phases, times that add up */
    cr_assert(hs.gpus == 0 && hs.dev_compute == 0 && hs.h2d_bytes == 0 && !hs.pinned);
    cr_assert(hs.zero_c >= 0 && hs.buffers >= 0 && hs.wait_sums >= 0 && hs.wait_free >= 0);
    cr_assert(hs.zero_c + hs.buffers <= hs.total, "zero C %.3f s, buffers %.3f s, total %.3f s", hs.zero_c,
              hs.buffers, hs.total);
    cr_assert(log.calls >= 1 && log.monotone && log.last_done == sp.leaves && log.last_total == sp.leaves);
    rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(C), rt_matrix_free(in_core), rt_matrix_free(want);
    export_plan_free(&p);
}

static void random_splits(bool boolean, int rounds)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    pool_t pool;
    pool_fill(&pool, &rng, boolean);
    for (int it = 0; it < rounds; it++) {
        int levels = (int)scheme_rng_below(&rng, 3); /* 0 .. 2 */
        const scheme *chain[2];
        const char *names[2];
        uint64_t R = 1;
        for (int l = 0; l < levels; l++) {
            int i = (int)scheme_rng_below(&rng, (uint32_t)pool.n);
            chain[l] = pool.s[i], names[l] = pool.name[i];
            R *= (uint64_t)pool.s[i]->rank;
        }
        if (R > 800)
            levels = 1;
        check_split(&rng, seed, chain, names, levels, boolean, tc_sanitized() ? 300 : 600);
    }
    pool_free(&pool);
}

Test(host, gf2_splits_equal_in_core_and_naive)
{
    random_splits(false, tc_sanitized() ? 6 : 24);
}

Test(host, boolean_tiles_equal_in_core_and_naive)
{
    random_splits(true, tc_sanitized() ? 5 : 16);
}

/* The pipeline's schedule does not change a bit: one product (C larger than 2
 * MiB, so that C is zeroed in whole 2 MiB chunks and a tail; C starts as
 * garbage) through every pipeline depth (the executor keeps a subproblem in
 * flight from depth 2), 1 to 3 executors and 1 or 3 threads for the sums and
 * accumulation, GF(2) with a Strassen host level and tiles and Boolean with
 * tiles, against the in-core product. */
Test(host, pipeline_depths_executors_threads_same_bits)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    char err[1024];
    scheme *sq = rt_scheme_builtin("strassen", err, sizeof err);
    const scheme *chain[1] = {sq};
    const char *names[1] = {"strassen"};
    for (int boolean = 0; boolean < 2; boolean++) {
        export_plan p;
        cr_assert(export_plan_init(&p, chain, names, boolean ? 0 : 1, boolean, err, sizeof err), "%s", err);
        uint64_t r = 2100 + scheme_rng_below(&rng, 300), k = 300 + scheme_rng_below(&rng, 400),
                 c = 8200 + scheme_rng_below(&rng, 900);
        cr_assert(export_plan_size(&p, r, k, c, err, sizeof err), "%s", err);
        rt_matrix *A = random_matrix(&rng, r, k, boolean ? 1.0 / (double)k : 0.5),
                  *B = random_matrix(&rng, k, c, boolean ? 1.0 / (double)k : 0.5);
        rt_matrix *C = rt_matrix_new(r, c), *want = rt_matrix_new(r, c);
        cr_assert_gt(C->rows * C->stride * 8, 2u << 20);
        cr_assert_eq(rt_execute(&p, A, B, want, 2, 0, NULL, err, sizeof err), RT_OK, "%s", err);
        for (int depth = 1; depth <= RT_HOST_MAX_DEPTH; depth++)
            for (int nexec = 1; nexec <= 3; nexec++)
                for (int threads = 1; threads <= 3; threads += 2) {
                    if (tc_sanitized() && (nexec == 2 || threads == 3))
                        continue;
                    rt_executor ex[3] = {{-1, 1}, {-1, 2}, {-1, 1}};
                    rt_host_config cfg;
                    memset(&cfg, 0, sizeof cfg);
                    cfg.exec = ex, cfg.n_exec = nexec, cfg.threads = threads, cfg.pipeline = depth;
                    cfg.min_host_levels = boolean ? 0 : 1;
                    cfg.min_tiles = 2;
                    rt_host_split sp;
                    cr_assert_eq(rt_host_choose(&p, &cfg, &sp, err, sizeof err), RT_OK, "%s", err);
                    cr_assert(!sp.in_core && sp.leaves >= 8);
                    rt_matrix_random(C, &rng, 0.5);
                    rt_host_stats hs;
                    cr_assert_eq(rt_host_execute(&p, &sp, &cfg, A, B, C, &hs, err, sizeof err), RT_OK, "%s", err);
                    rt_diff d;
                    rt_matrix_compare(C, want, &d);
                    cr_assert(d.equal,
                              "seed %" PRIu64 ": %s %" PRIu64 "x%" PRIu64 "x%" PRIu64 ", depth %d, %d executors, "
                              "%d threads: %" PRIu64 " entries differ from the in-core product",
                              seed, boolean ? "Boolean" : "GF(2)", r, k, c, depth, nexec, threads, d.count);
                    cr_assert_eq(hs.leaves, sp.leaves);
                }
        rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(C), rt_matrix_free(want);
        export_plan_free(&p);
    }
    scheme_free(sq);
}

/* The limit picks the split: in core when it fits, else host levels, then tiles,
 * within the limit; a limit nothing fits is refused. */
Test(host, limits_choose_the_split)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    char err[1024];
    scheme *sq = rt_scheme_builtin("strassen", err, sizeof err);
    const scheme *chain[2] = {sq, sq};
    const char *names[2] = {"strassen", "strassen"};
    for (int boolean = 0; boolean < 2; boolean++) {
        export_plan p;
        cr_assert(export_plan_init(&p, chain, names, 2, boolean, err, sizeof err), "%s", err);
        uint64_t r = 1500 + scheme_rng_below(&rng, 500), k = 1200 + scheme_rng_below(&rng, 900),
                 c = 900 + scheme_rng_below(&rng, 900);
        cr_assert(export_plan_size(&p, r, k, c, err, sizeof err));
        rt_matrix *A = random_matrix(&rng, r, k, boolean ? 1.0 / (double)k : 0.5),
                  *B = random_matrix(&rng, k, c, boolean ? 1.0 / (double)k : 0.5);
        rt_matrix *C = rt_matrix_new(r, c), *want = rt_matrix_new(r, c);
        rt_mul_naive(A, B, want, boolean);
        rt_host_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.threads = 2;
        rt_host_split sp;
        cfg.max_host_bytes = p.peak_bytes;
        cr_assert_eq(rt_host_choose(&p, &cfg, &sp, err, sizeof err), RT_OK, "%s", err);
        cr_assert(sp.in_core, "the in-core peak itself as the limit");
        for (int div = 3; div <= (boolean ? 12 : 48); div *= 4) {
            cfg.max_host_bytes = p.peak_bytes / div;
            cr_assert_eq(rt_host_choose(&p, &cfg, &sp, err, sizeof err), RT_OK, "%s", err);
            char desc[256];
            cr_assert(!sp.in_core && sp.host_bytes <= cfg.max_host_bytes, "limit %.0f: %s", cfg.max_host_bytes,
                      rt_host_describe(&sp, desc, sizeof desc));
            if (boolean)
                cr_assert_eq(sp.host_levels, 0, "Boolean products split by tiles only");
            else if (div == 3)
                cr_assert(sp.host_levels > 0, "GF(2): host levels come before tiles (%s)",
                          rt_host_describe(&sp, desc, sizeof desc));
            cr_assert_eq(rt_host_execute(&p, &sp, &cfg, A, B, C, NULL, err, sizeof err), RT_OK, "%s", err);
            rt_diff d;
            rt_matrix_compare(C, want, &d);
            cr_assert(d.equal, "seed %" PRIu64 ": %s, limit %.0f bytes (%s): %" PRIu64 " entries differ", seed,
                      boolean ? "Boolean" : "GF(2)", cfg.max_host_bytes, rt_host_describe(&sp, desc, sizeof desc),
                      d.count);
        }
        cfg.max_host_bytes = 1000;
        cr_assert_eq(rt_host_choose(&p, &cfg, &sp, err, sizeof err), RT_EMEMORY);
        cr_assert(strstr(err, "does not fit"), "%s", err);
        rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(C), rt_matrix_free(want);
        export_plan_free(&p);
    }
    scheme_free(sq);
}

/* A GPU executor in a build or on a machine without one is refused, not ignored. */
Test(host, gpu_executor_without_gpu_is_refused)
{
    char err[512];
    export_plan p;
    cr_assert(export_plan_init(&p, NULL, NULL, 0, false, err, sizeof err));
    cr_assert(export_plan_size(&p, 100, 100, 100, err, sizeof err));
    rt_executor ex[2] = {{-1, 1}, {0, 0}};
    rt_host_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.exec = ex, cfg.n_exec = 2;
    rt_host_split sp;
    rt_status st = rt_host_choose(&p, &cfg, &sp, err, sizeof err);
    if (rt_device_need(&p, 0, 0, &(double){0}, err, sizeof err) == RT_EBACKEND)
        cr_assert_eq(st, RT_EBACKEND, "%s", err);
    export_plan_free(&p);
}

/* ---- generated operands and the checks ---- */

Test(host, generate_is_a_function_of_the_seed)
{
    uint64_t seed = tc_seed();
    rt_matrix *x = rt_matrix_new(300, 777), *y = rt_matrix_new(300, 777), *z = rt_matrix_new(300, 777);
    rt_matrix_generate(x, seed, 1);
    rt_matrix_generate(y, seed, 3);
    rt_matrix_generate(z, seed + 1, 2);
    rt_diff d;
    rt_matrix_compare(x, y, &d);
    cr_assert(d.equal, "the threads changed the matrix");
    rt_matrix_compare(x, z, &d);
    cr_assert(!d.equal);
    uint64_t ones = rt_matrix_popcount(x);
    cr_assert(ones > 300 * 777 * 45 / 100 && ones < 300 * 777 * 55 / 100, "%" PRIu64 " ones", ones);
    /* bits past the last column stay zero */
    for (uint64_t i = 0; i < x->rows; i++)
        cr_assert_eq(x->w[i * x->stride + x->stride - 1] >> (777 % 64), 0);
    rt_matrix_free(x), rt_matrix_free(y), rt_matrix_free(z);
}

Test(host, freivalds_and_samples_find_wrong_products)
{
    uint64_t seed = tc_seed();
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    for (int it = 0; it < 6; it++) {
        uint64_t r = 1 + scheme_rng_below(&rng, 500), k = 1 + scheme_rng_below(&rng, 500),
                 c = 1 + scheme_rng_below(&rng, 500);
        bool boolean = it % 2;
        rt_matrix *A = random_matrix(&rng, r, k, boolean ? 1.0 / (double)k : 0.5),
                  *B = random_matrix(&rng, k, c, boolean ? 1.0 / (double)k : 0.5), *C = rt_matrix_new(r, c);
        rt_mul_naive(A, B, C, boolean);
        if (!boolean)
            cr_assert(rt_freivalds_gf2(A, B, C, seed + (uint64_t)it, 2), "seed %" PRIu64 ": a right product fails",
                      seed);
        cr_assert_eq(rt_sample_check(A, B, C, boolean, 64, seed), 0);
        /* one wrong bit: Freivalds's 64 vectors miss it with probability 2^-64 */
        uint64_t i = scheme_rng_below(&rng, (uint32_t)r), j = scheme_rng_below(&rng, (uint32_t)c);
        rt_matrix_set(C, i, j, !rt_matrix_get(C, i, j));
        if (!boolean)
            cr_assert(!rt_freivalds_gf2(A, B, C, seed + (uint64_t)it, 2),
                      "seed %" PRIu64 ": a wrong bit at (%" PRIu64 ",%" PRIu64 ") passes", seed, i, j);
        /* every entry wrong: every sample sees it */
        for (uint64_t w = 0; w < C->rows * C->stride; w++)
            C->w[w] = ~C->w[w];
        rt_matrix_mask_tail(C);
        rt_matrix_set(C, i, j, !rt_matrix_get(C, i, j));
        cr_assert_eq(rt_sample_check(A, B, C, boolean, 64, seed), 64);
        rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(C);
    }
}

/* ---- the CLI ---- */

Test(host, cli_limits_devices_and_generate)
{
    uint64_t seed = tc_seed();
    char dir[256], cmd[4096];
    tc_temp_dir(dir, sizeof dir, "fg_host");
    const char *b = tc_bin();
    unsigned rows = 1900 + (unsigned)(seed % 300), inner = 1500 + (unsigned)((seed >> 9) % 333),
             cols = 1300 + (unsigned)((seed >> 20) % 260);
    snprintf(cmd, sizeof cmd, "%s matrix random --rows %u --cols %u --seed %" PRIu64 " -o %s/a.fgm && "
             "%s matrix random --rows %u --cols %u --seed %" PRIu64 " -o %s/b.fgm && "
             "%s matrix mul --naive %s/a.fgm %s/b.fgm -o %s/naive.fgm",
             b, rows, inner, seed, dir, b, inner, cols, seed + 1, dir, b, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    /* Under a 1 MiB limit: the host layer, the same bits; it says how it split. */
    snprintf(cmd, sizeof cmd, "%s multiply --scheme strassen --levels 2 --max-memory 1 --threads 2 "
             "--a %s/a.fgm --b %s/b.fgm -o %s/c1.fgm 2>%s/log1.txt && %s matrix cmp %s/c1.fgm %s/naive.fgm >/dev/null && "
             "grep -q 'host level' %s/log1.txt",
             b, dir, dir, dir, dir, b, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "seed %" PRIu64 ": %s", seed, cmd);
    /* Two CPU executors standing in for GPUs, GF(2) with a scheme and Boolean cubic. */
    snprintf(cmd, sizeof cmd, "%s multiply -q --scheme strassen --devices cpu,cpu --threads 2 "
             "--a %s/a.fgm --b %s/b.fgm -o %s/c2.fgm && %s matrix cmp %s/c2.fgm %s/naive.fgm >/dev/null && "
             "%s matrix mul --naive --boolean %s/a.fgm %s/b.fgm -o %s/bn.fgm && "
             "%s multiply -q --boolean --devices cpu,cpu,cpu --max-memory 1 --a %s/a.fgm --b %s/b.fgm -o %s/c3.fgm && "
             "%s matrix cmp %s/c3.fgm %s/bn.fgm >/dev/null",
             b, dir, dir, dir, b, dir, dir, b, dir, dir, dir, b, dir, dir, dir, b, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "seed %" PRIu64 ": %s", seed, cmd);
    /* -q: no progress bar, no timing line */
    snprintf(cmd, sizeof cmd, "%s multiply -q --devices cpu,cpu --a %s/a.fgm --b %s/b.fgm -o %s/c4.fgm 2>%s/log4.txt "
             "&& test ! -s %s/log4.txt", b, dir, dir, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    /* Bad --devices: exit 2, no output file */
    const char *bad[] = {"", "cpu,", "x", "0,,1", "-1", "cpu,gpu"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(cmd, sizeof cmd, "%s multiply --devices '%s' --a %s/a.fgm --b %s/b.fgm -o %s/z.fgm 2>%s/err.txt",
                 b, bad[i], dir, dir, dir, dir);
        cr_assert_eq(tc_system(cmd), 2, "%s", cmd);
        snprintf(cmd, sizeof cmd, "grep -q 'devices' %s/err.txt && test ! -e %s/z.fgm", dir, dir);
        cr_assert_eq(tc_system(cmd), 0, "--devices '%s': no message naming the option", bad[i]);
    }
    /* --plan-only says how the host layer would split the product */
    snprintf(cmd, sizeof cmd, "%s multiply --plan-only --dims 4096x3000x2000 --scheme strassen --max-memory 1 "
             "--devices cpu,cpu >%s/plan.txt && grep -q 'host layer (--max-memory 1 MiB, 2 executors): 1 host level' "
             "%s/plan.txt && %s multiply --plan-only --dims 100x100x100 >%s/plan.txt && "
             "grep -q 'host layer (.*1 executor): in core' %s/plan.txt", b, dir, dir, b, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    /* --devices with --backend, or with float matrices: exit 2 */
    snprintf(cmd, sizeof cmd, "%s multiply --devices cpu --backend cpu --a %s/a.fgm --b %s/b.fgm -o %s/z.fgm 2>%s/err.txt "
             "; test $? -eq 2 && grep -q 'not both' %s/err.txt && "
             "%s multiply --type f64 --scheme strassen --devices cpu --a %s/a.npy --b %s/b.npy -o %s/z.npy 2>%s/err.txt "
             "; test $? -eq 2 && grep -q 'bit matrices' %s/err.txt",
             b, dir, dir, dir, dir, dir, b, dir, dir, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    /* A GPU in a list on a machine or build without one: exit 2 saying so (or 0 on a GPU machine) */
    snprintf(cmd, sizeof cmd, "%s multiply -q --devices 0,cpu --a %s/a.fgm --b %s/b.fgm -o %s/g.fgm 2>%s/log.txt",
             b, dir, dir, dir, dir);
    int grc = tc_system(cmd);
    cr_assert(grc == 0 || grc == 2, "--devices 0,cpu: exit %d", grc);
    /* bench multiply --generate: operands from a seed, Freivalds and samples */
    snprintf(cmd, sizeof cmd, "%s bench multiply --generate 1500 --scheme strassen --levels 2 --max-memory 1 "
             "--devices cpu,cpu --threads 2 --pipeline 3 --seed %" PRIu64 " >%s/bench.txt 2>&1 && "
             "grep -q 'Freivalds: pass' %s/bench.txt && grep -q '^profile:' %s/bench.txt && "
             "grep -q '^  operand sums .* thread-s' %s/bench.txt && grep -q '^  accumulation ' %s/bench.txt",
             b, seed, dir, dir, dir, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    /* --pipeline out of range: bad usage */
    snprintf(cmd, sizeof cmd, "%s bench multiply --generate 100 --pipeline 5 2>%s/err.txt; test $? -eq 2 && "
             "grep -q -- '--pipeline' %s/err.txt", b, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "%s bench multiply --generate 1000x700x300 --boolean -q >%s/bench2.txt 2>&1 && "
             "grep -q 'samples: 0 of' %s/bench2.txt", b, dir, dir);
    cr_assert_eq(tc_system(cmd), 0, "%s", cmd);
    tc_remove_tree(dir);
}
