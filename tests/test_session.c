/* The session (search/session.c) and the parameter table through the command
 * line: every improvement reaches the store and the --out folder exactly once;
 * --resume restores the backend and its parameters (a GPU run needs a GPU, or
 * --backend cpu); an option a backend does not read is refused with exit 2;
 * docs/search.md's table is the one the table prints.  Each test works in its
 * own temporary folder. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cuda/fg_cuda.h"
#include "db/db.h"
#include "search/search.h"
#include "search/session.h"
#include "verify/verify.h"
#include "test_common.h"

static void make_dir(void) { tc_suite_dir_make("fg-test-session"); }

TestSuite(session, .init = make_dir, .fini = tc_suite_dir_remove, .timeout = 300);

static char g_out[1 << 17];
#define OUT g_out, sizeof g_out

typedef struct counts {
    int improved, progress, started;
    int64_t run_id;
    int last_rank;
    bool order_ok;
} counts;

static void count_improved(void *ctx, const search_found *f, const char *path, bool stored_new)
{
    counts *c = ctx;
    c->order_ok = c->order_ok && stored_new && path[0] && (c->last_rank == 0 || f->rank < c->last_rank);
    c->last_rank = f->rank;
    c->improved++;
}

static void count_started(void *ctx, int64_t run_id)
{
    counts *c = ctx;
    c->started++;
    c->run_id = run_id;
}

/* The .txt files of a folder, by name, into names[] (sorted); returns how many. */
static int txt_files(const char *dir, char names[][256], int max)
{
    int n = 0;
    DIR *dd = opendir(dir);
    cr_assert_not_null(dd, "%s", dir);
    for (struct dirent *e; (e = readdir(dd));)
        if (strstr(e->d_name, ".txt") && n < max)
            snprintf(names[n++], 256, "%s", e->d_name);
    closedir(dd);
    qsort(names, (size_t)n, 256, (int (*)(const void *, const void *))strcmp);
    return n;
}

/* Every improvement the engine reports is one row of the run's improvement
 * log, one stored scheme of the run and one --out file; the hooks see each
 * once, in decreasing rank; the run ends finished. */
Test(session, every_improvement_reaches_the_store_and_the_folder_exactly_once)
{
    const char *dbp = tc_path_in("once.db"), *dir = tc_path_in("out");
    char err[1024];
    db_status st;
    search_session *ss = session_open(dbp, &st, err, sizeof err);
    cr_assert_not_null(ss, "%s", err);
    cr_assert(session_set_out_dir(ss, dir, err, sizeof err), "%s", err);
    search_config c;
    search_config_default(&c);
    cr_assert(search_config_set(&c, SEARCH_PARAM_DIMS, "3x3x3", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_TARGET_RANK, "23", err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_TIME, "60", err, sizeof err), "%s", err);
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, tc_seed() % 1000000007u);
    cr_assert(search_config_set(&c, SEARCH_PARAM_SEED, seed, err, sizeof err), "%s", err);
    cr_assert(search_config_set(&c, SEARCH_PARAM_THREADS, "2", err, sizeof err), "%s", err);
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    counts k = {.order_ok = true};
    session_hooks h = {.ctx = &k, .improved = count_improved, .started = count_started};
    session_run run;
    search_result res;
    search_status ss_st = session_search(ss, &c, NULL, NULL, 0, &h, &run, &res);
    cr_assert_eq(ss_st, SEARCH_REACHED, "seed %s: %s", seed, res.msg);
    cr_assert(!run.store_failed && !run.end_lost && !run.begin_failed, "%s", run.msg);
    cr_assert_eq(k.started, 1);
    cr_assert_eq(k.run_id, run.run_id);
    cr_assert_gt(res.improvements, 0);
    cr_assert_eq((uint64_t)k.improved, res.improvements, "hooks %d, engine %" PRIu64, k.improved,
                 res.improvements);
    cr_assert(k.order_ok, "each improvement once, new, written, in decreasing rank");
    cr_assert_eq(run.stored, res.improvements);

    db *d = session_store(ss);
    db_improvement *log = NULL;
    int64_t n = 0;
    cr_assert_eq(db_run_improvements(d, run.run_id, &log, &n, err, sizeof err), DB_OK, "%s", err);
    free(log);
    cr_assert_eq((uint64_t)n, res.improvements, "log %" PRId64 ", improvements %" PRIu64, n, res.improvements);
    db_run_row row;
    cr_assert_eq(db_run_get(d, run.run_id, &row, err, sizeof err), DB_OK, "%s", err);
    cr_assert_str_eq(row.status, "finished");
    cr_assert_str_eq(row.backend, "cpu");
    cr_assert_eq((uint64_t)row.schemes, res.improvements);
    cr_assert_eq(row.best_rank, res.best_rank);
    char *text = db_run_params(d, run.run_id, &st, err, sizeof err);
    cr_assert_not_null(text, "%s", err);
    cr_assert(strstr(text, "backend=cpu\n") && strstr(text, "threads=2\n") && strstr(text, "given="),
              "the record keeps the backend and what was given:\n%s", text);
    free(text);
    search_result_free(&res);
    session_close(ss);

    static char names[1024][256];
    const int files = txt_files(dir, names, 1024);
    cr_assert(files < 1024, "more files than the count can tell");
    cr_assert_eq((uint64_t)files, res.improvements, "%d files", files);
}

static bool has_file(char names[][256], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return true;
    return false;
}

/* The pool file's name of s: NxMxP-RANK-HASH.txt. */
static const char *pool_name(const scheme *s, char *buf)
{
    char hx[17];
    scheme_hash_hex(scheme_hash((scheme *)s), hx);
    snprintf(buf, 256, "%dx%dx%d-%d-%s.txt", s->fmt.n, s->fmt.m, s->fmt.p, s->rank, hx);
    return buf;
}

/* session_write_pool keeps the folder at the latest pool: a file it made for an
 * earlier pool whose scheme the new one dropped goes; a file that was there
 * before the session stays, even under a pool's name; a link put where one of
 * its files was is never removed (nor what it points to); a failed write
 * removes nothing. */
Test(session, the_pool_folder_holds_the_latest_pool_beside_what_was_there)
{
    char dir[512], err[1024], nm[4][256], path[4096];
    snprintf(dir, sizeof dir, "%s", tc_path_in("pool"));
    db_status st;
    search_session *ss = session_open(NULL, &st, err, sizeof err);
    cr_assert_not_null(ss, "%s", err);
    cr_assert(session_set_pool_dir(ss, dir, err, sizeof err), "%s", err);
    scheme *s[4] = {scheme_standard((scheme_format){2, 2, 2}), scheme_standard((scheme_format){2, 2, 3}),
                    scheme_standard((scheme_format){2, 3, 3}), scheme_standard((scheme_format){3, 3, 3})};
    for (int i = 0; i < 4; i++)
        pool_name(s[i], nm[i]);
    /* there before the session: an unrelated file, and a file under s[2]'s name */
    FILE *f = fopen(tc_path_in("pool/notes.txt"), "w");
    cr_assert_not_null(f);
    fputs("mine\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/%s", dir, nm[2]);
    cr_assert_not_null(f = fopen(path, "w"));
    fclose(f);

    search_result a = {.pool = (scheme *[]){s[0], s[1], s[2]}, .npool = 3};
    int written = 0;
    cr_assert(session_write_pool(ss, &a, &written, err, sizeof err), "%s", err);
    cr_assert_eq(written, 3);
    char got[16][256];
    int n = txt_files(dir, got, 16);
    cr_assert_eq(n, 4, "%d files after the first pool", n);
    for (int i = 0; i < 3; i++)
        cr_assert(has_file(got, n, nm[i]), "%s missing", nm[i]);

    struct stat before, after;
    snprintf(path, sizeof path, "%s/%s", dir, nm[1]);
    cr_assert_eq(stat(path, &before), 0);
    search_result b = {.pool = (scheme *[]){s[1], s[3]}, .npool = 2};
    cr_assert(session_write_pool(ss, &b, &written, err, sizeof err), "%s", err);
    cr_assert_eq(stat(path, &after), 0);
    cr_assert_eq(before.st_ino, after.st_ino, "%s: made for the first pool, written again (a new file)", nm[1]);
    cr_assert_eq(written, 2);
    n = txt_files(dir, got, 16);
    cr_assert(has_file(got, n, nm[1]) && has_file(got, n, nm[3]), "the second pool's files");
    cr_assert_not(has_file(got, n, nm[0]), "%s: made for the first pool and dropped, still there", nm[0]);
    cr_assert(has_file(got, n, nm[2]), "%s was there before the session: removed", nm[2]);
    cr_assert(has_file(got, n, "notes.txt"), "an unrelated file was removed");
    cr_assert_eq(n, 4, "%d files after the second pool", n);
    verify_result vr;
    snprintf(path, sizeof path, "%s/%s", dir, nm[3]);
    scheme_diag dg;
    scheme *back = scheme_read_file(path, NULL, &dg);
    cr_assert_not_null(back, "%s", dg.msg);
    cr_assert(verify_f2(back, &vr) && scheme_equal(back, s[3]), "the file holds the scheme");
    scheme_free(back);

    /* a link where a file the session made was: left, and its target too */
    const char *target = tc_path_in("target.txt");
    cr_assert_not_null(f = fopen(target, "w"));
    fputs("keep\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/%s", dir, nm[1]);
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(symlink(target, path), 0);
    /* and a file it made that went missing since: written again */
    char gone[4096];
    snprintf(gone, sizeof gone, "%s/%s", dir, nm[3]);
    cr_assert_eq(unlink(gone), 0);
    search_result c = {.pool = (scheme *[]){s[3]}, .npool = 1};
    cr_assert(session_write_pool(ss, &c, &written, err, sizeof err), "%s", err);
    struct stat sb;
    cr_assert_eq(lstat(path, &sb), 0, "the link was removed");
    cr_assert(S_ISLNK(sb.st_mode));
    cr_assert_eq(stat(target, &sb), 0, "the link's target was removed");
    cr_assert_eq(stat(gone, &sb), 0, "%s went missing and was not written again", nm[3]);

    /* a write that fails (the folder replaced by a file) removes nothing and says so */
    search_result d = {.pool = (scheme *[]){s[0]}, .npool = 1};
    tc_remove_tree(dir);
    cr_assert_not_null(f = fopen(dir, "w"));
    fclose(f);
    cr_assert_not(session_write_pool(ss, &d, &written, err, sizeof err));
    cr_assert(strstr(err, "--pool-out: 0 of 1 schemes written"), "%s", err);
    cr_assert_eq(stat(dir, &sb), 0);
    cr_assert(S_ISREG(sb.st_mode), "the file in the folder's place was touched");
    for (int i = 0; i < 4; i++)
        scheme_free(s[i]);
    session_close(ss);
}

typedef struct pool_hook_log {
    int calls, failed, last_written;
} pool_hook_log;

static void count_pool_checkpoint(void *ctx, int written, double seconds, const char *failure)
{
    (void)seconds;
    pool_hook_log *l = ctx;
    l->calls++;
    l->failed += failure != NULL;
    l->last_written = written;
}

/* --pool-every through the session: checkpoints reach the pool folder while
 * the run goes on (the hook sees each), and after the end's write the folder
 * holds exactly the end's pool, every file a verified scheme. */
Test(session, pool_checkpoints_reach_the_folder_and_the_end_leaves_its_pool)
{
    char dir[512], err[1024];
    snprintf(dir, sizeof dir, "%s", tc_path_in("ckpt"));
    db_status st;
    search_session *ss = session_open(NULL, &st, err, sizeof err);
    cr_assert_not_null(ss, "%s", err);
    cr_assert(session_set_pool_dir(ss, dir, err, sizeof err), "%s", err);
    search_config c;
    search_config_default(&c);
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, tc_seed() % 1000000007u);
    const char *set[][2] = {{"dims", "4x4x4"}, {"time", "2"}, {"target-rank", "0"}, {"threads", "2"},
                            {"pool-keep", "40"}, {"pool-every", "0.3"}, {"seed", seed}};
    for (size_t i = 0; i < sizeof set / sizeof *set; i++) {
        int id = -1;
        for (int k = 0; k < SEARCH_PARAM_COUNT; k++)
            if (!strcmp(search_param(k)->name, set[i][0]))
                id = k;
        cr_assert_geq(id, 0, "%s", set[i][0]);
        cr_assert(search_config_set(&c, id, set[i][1], err, sizeof err), "%s", err);
    }
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_CPU, err, sizeof err), "%s", err);
    pool_hook_log pl = {0};
    session_hooks h = {.ctx = &pl, .pool_checkpoint = count_pool_checkpoint};
    session_run run;
    search_result res;
    cr_assert_eq(session_search(ss, &c, NULL, NULL, 0, &h, &run, &res), SEARCH_REACHED, "seed %s: %s", seed,
                 res.msg);
    cr_assert_geq(pl.calls, 2, "seed %s: %d checkpoints in %.1f s, one every 0.3 s", seed, pl.calls, res.seconds);
    cr_assert_eq(pl.failed, 0);
    cr_assert_eq(run.pool_checkpoints, pl.calls);
    cr_assert_eq(run.pool_failed, 0, "%s", run.pool_msg);
    cr_assert_gt(pl.last_written, 0);
    int written = 0;
    cr_assert(session_write_pool(ss, &res, &written, err, sizeof err), "%s", err);
    cr_assert_eq(written, res.npool);
    char got[64][256], nm[256], path[4096];
    const int n = txt_files(dir, got, 64);
    cr_assert_eq(n, res.npool, "seed %s: %d files, the end's pool %d", seed, n, res.npool);
    for (int i = 0; i < res.npool; i++) {
        cr_assert(has_file(got, n, pool_name(res.pool[i], nm)), "%s missing", nm);
        snprintf(path, sizeof path, "%s/%s", dir, nm);
        scheme_diag dg;
        scheme *back = scheme_read_file(path, NULL, &dg);
        cr_assert_not_null(back, "%s", dg.msg);
        verify_result vr;
        cr_assert(verify_f2(back, &vr), "%s: %s", nm, vr.msg);
        scheme_free(back);
    }
    search_result_free(&res);
    session_close(ss);
}

/* A run recorded on the GPU backend: --resume needs a GPU, or --backend cpu
 * given; on the CPU the rows given to the GPU run carry over, the GPU's
 * defaults do not (the CPU's take their place), the GPU-only rows drop. */
Test(session, resume_restores_the_backend_and_its_parameters)
{
    const char *dbp = tc_path_in("gpu.db");
    char err[1024];
    db_status st;
    db *d = db_open(dbp, true, &st, err, sizeof err);
    cr_assert_not_null(d, "%s", err);
    search_config c;
    search_config_default(&c);
    cr_assert(search_config_set(&c, SEARCH_PARAM_DIMS, "2x2x3", err, sizeof err));
    cr_assert(search_config_set(&c, SEARCH_PARAM_PLUS_MAX, "3", err, sizeof err));
    cr_assert(search_config_set(&c, SEARCH_PARAM_WARPS, "64", err, sizeof err));
    cr_assert(search_config_set(&c, SEARCH_PARAM_TIME, "0.3s", err, sizeof err));
    cr_assert(search_config_resolve(&c, SEARCH_BACKEND_GPU, err, sizeof err), "%s", err);
    char *text = search_config_to_text(&c);
    cr_assert(strstr(text, "backend=gpu\n") && strstr(text, "warps=64\n") && strstr(text, "plateau=500\n"),
              "%s", text);
    db_run_info info = {c.p.fmt, text, 7, "gpu", "a GPU", NULL};
    int64_t run;
    cr_assert_eq(db_run_begin(d, &info, &run, err, sizeof err), DB_OK, "%s", err);
    cr_assert_eq(db_run_end(d, run, "finished", 0, 11, err, sizeof err), DB_OK, "%s", err);
    free(text);
    db_close(d);

    int rc = tc_run_cli("", OUT, "search --resume %lld --db '%s' -q", (long long)run, dbp);
    if (!(cuda_compiled_in() && cuda_device_count() > 0)) {
        /* no GPU here (CI, this build machine): refused with the way out named */
        cr_assert_eq(rc, 2, "exit %d:\n%s", rc, g_out);
        cr_assert(strstr(g_out, "walked on the GPU backend") && strstr(g_out, "--backend cpu"), "%s", g_out);
    }
    rc = tc_run_cli("", OUT, "search --resume %lld --db '%s' --backend cpu --threads 2", (long long)run, dbp);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, g_out);
    cr_assert(strstr(g_out, "backend cpu: 2 CPU threads"), "%s", g_out);
    d = db_open(dbp, false, &st, err, sizeof err);
    cr_assert_not_null(d, "%s", err);
    db_run_row row;
    cr_assert_eq(db_run_get(d, run + 1, &row, err, sizeof err), DB_OK, "%s", err);
    cr_assert_str_eq(row.backend, "cpu");
    text = db_run_params(d, run + 1, &st, err, sizeof err);
    cr_assert_not_null(text, "%s", err);
    cr_assert(strstr(text, "backend=cpu\n") && strstr(text, "dims=2x2x3\n") && strstr(text, "plus-max=3\n") &&
                  strstr(text, "plateau=20000\n") && strstr(text, "walk-len=1000\n") &&
                  strstr(text, "time=0.29999") && !strstr(text, "warps="),
              "the resumed run's record:\n%s", text);
    free(text);
    db_close(d);

    /* resumed on its own backend, a CPU run gets back what it was given */
    rc = tc_run_cli("", OUT, "search --dims 2x2x2 --time 0.2s --threads 2 --plateau 3000 --seed 4242 --db '%s' -q",
                    dbp);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, g_out);
    rc = tc_run_cli("", OUT, "search --resume %lld --db '%s'", (long long)run + 2, dbp);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, g_out);
    cr_assert(strstr(g_out, "backend cpu: 2 CPU threads") &&
                  (strstr(g_out, " plateau=3000 ") || strstr(g_out, " plateau=3000\n")), "%s", g_out);
    cr_assert(!strstr(g_out, "seed 4242") && !strstr(g_out, "seed=4242"),
              "a resumed run takes a fresh seed, not the stored one:\n%s", g_out);
}

/* The summary says how many flips the bias undid, where a bias is set: some
 * of all the flips with --weight-bias 0.3 and with a window from 0 (its top
 * walker biased); no such line without one. */
Test(session, the_summary_says_how_many_flips_the_bias_undid)
{
    const char *dbp = tc_path_in("undone.db");
    static const char *bias[] = {"", "--weight-bias 0.3", "--threads 2 --weight-bias 0 --weight-bias-max 0.3"};
    for (int biased = 0; biased < 3; biased++) {
        int rc = tc_run_cli("", OUT, "search --dims 3x3x3 --time 0.3s --backend cpu --threads 1 --target-rank 1 %s "
                            "--db '%s'", bias[biased], dbp);
        cr_assert(rc == 0 || rc == 1, "exit %d:\n%s", rc, g_out);
        const char *line = strstr(g_out, "flipgraph search: the bias undid ");
        if (!biased) {
            cr_assert_null(line, "no bias, yet:\n%s", g_out);
            continue;
        }
        unsigned long long undone = 0, flips = 0;
        cr_assert(line && sscanf(line, "flipgraph search: the bias undid %llu of %llu flips", &undone, &flips) == 2,
                  "%s", g_out);
        cr_assert(undone > 0 && undone < flips, "%llu of %llu:\n%s", undone, flips, g_out);
    }
}

/* An option the backend that runs does not read is refused, exit 2, naming
 * it; nothing is stored. */
Test(session, an_option_the_backend_does_not_read_is_refused)
{
    const char *dbp = tc_path_in("refused.db");
    static const char *cpu_only[] = {"--threads 2", "--batch 100", "--isolated-plus 1", "--lookahead 10",
                                     "--plus-tabu 1"};
    static const char *gpu_only[] = {"--warps 32", "--rounds 2", "--launch-ms 50", "--devices 0,0", "--device 0",
                                     "--eager-gen 1"};
    for (size_t i = 0; i < sizeof gpu_only / sizeof *gpu_only; i++) {
        int rc = tc_run_cli("", OUT, "search --dims 2x2x2 --time 0.2s --backend cpu %s --db '%s'", gpu_only[i], dbp);
        char name[32];
        snprintf(name, sizeof name, "%.*s:", (int)strcspn(gpu_only[i], " "), gpu_only[i]);
        cr_assert(rc == 2 && strstr(g_out, name) && strstr(g_out, "the cpu backend does not use it (GPU only)"),
                  "%s on the CPU: exit %d:\n%s", gpu_only[i], rc, g_out);
    }
    for (size_t i = 0; i < sizeof cpu_only / sizeof *cpu_only; i++) {
        int rc = tc_run_cli("", OUT, "search --dims 2x2x2 --time 0.2s --backend gpu %s --db '%s'", cpu_only[i], dbp);
        char name[32];
        snprintf(name, sizeof name, "%.*s:", (int)strcspn(cpu_only[i], " "), cpu_only[i]);
        cr_assert(rc == 2 && strstr(g_out, name) && strstr(g_out, "the gpu backend does not use it (CPU only)"),
                  "%s on the GPU: exit %d:\n%s", cpu_only[i], rc, g_out);
    }
    /* the plus hold: the plain GPU walk over GF(2) has it, the symmetric and Z GPU walks not */
    static const char *no_hold[] = {"--dims 3x3x3 --symmetry c3 --gen-max 1", "--dims 2x2x2 --ring z"};
    static const char *which[] = {"the symmetric GPU walk does not have it", "the Z GPU walk does not have it"};
    for (size_t i = 0; i < sizeof no_hold / sizeof *no_hold; i++) {
        int rc = tc_run_cli("", OUT, "search %s --time 0.2s --backend gpu --plus-hold 1000 --db '%s'", no_hold[i], dbp);
        cr_assert(rc == 2 && strstr(g_out, which[i]), "%s --plus-hold on the GPU: exit %d:\n%s", no_hold[i], rc,
                  g_out);
    }
    int rc = tc_run_cli("", OUT, "sweep --dims-list 2x2x2 --time-per 0.1s --backend cpu --device 1 -q");
    cr_assert(rc == 2 && strstr(g_out, "--device:"), "sweep: exit %d:\n%s", rc, g_out);
    rc = tc_run_cli("", OUT, "db runs --db '%s'", dbp);
    cr_assert(rc != 0 || !strstr(g_out, "finished"), "a refused search stored a run:\n%s", g_out);
}

/* docs/search.md holds the table that `flipgraph search --params-table`
 * prints, between its markers, byte for byte. */
Test(session, the_docs_table_is_the_parameter_table)
{
    const char *src = getenv("FLIPGRAPH_SOURCE");
    cr_assert(src, "FLIPGRAPH_SOURCE is not set (ctest sets it)");
    size_t len = 0;
    char *doc = tc_slurp(tc_fmt("%s/docs/search.md", src), 1 << 20, &len);
    cr_assert_not_null(doc);
    const char *begin = strstr(doc, "<!-- params:begin");
    const char *end = strstr(doc, "<!-- params:end -->");
    cr_assert(begin && end && end > begin, "docs/search.md has no params markers");
    begin = strchr(begin, '\n') + 1;
    int rc = tc_run_cli("", OUT, "search --params-table");
    cr_assert_eq(rc, 0);
    size_t n = (size_t)(end - begin);
    cr_assert(strlen(g_out) == n && !memcmp(g_out, begin, n),
              "docs/search.md's parameter table differs from `flipgraph search --params-table`; "
              "regenerate it:\n%s", g_out);
    char *text = search_config_markdown();
    cr_assert(text && !strcmp(text, g_out));
    free(text);
    free(doc);
    rc = tc_run_cli("", OUT, "search --help");
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++)
        cr_assert(strstr(g_out, tc_fmt("  --%s %s ", search_param(i)->name, search_param(i)->arg)),
                  "--help lacks --%s:\n%s", search_param(i)->name, g_out);
}

/* The sweep's starts (search/sweep.c) follow its options: with --meta
 * --from-db over GF(2) a <4,4,7> starts from the sum of the store's <4,4,4>:47
 * and <3,4,4>:38 (outside the list), rank 85, a move whose parent is a stored
 * row; a symmetric format from its cubes alone; a format's own best so far,
 * kept only when lower; without --meta the store's best or the standard
 * algorithm. */
Test(session, a_sweeps_starts_follow_its_options)
{
    const char *dbp = tc_path_in("sweep.db");
    int rc = tc_run_cli("", OUT, "db --db '%s' import '%s' '%s'", dbp, tc_corpus("kauers-moosbauer/444-47-mod2.exp"),
                        tc_corpus("kauers-moosbauer/344-38-mod0.exp"));
    cr_assert_eq(rc, 0, "import: %s", g_out);
    db_status st;
    char err[1024];
    search_session *ss = session_open(dbp, &st, err, sizeof err);
    cr_assert_not_null(ss, "%s", err);
    const scheme_format list[2] = {{4, 4, 7}, {4, 4, 4}};
    session_sweep_options o = {.ring = SCHEME_RING_F2, .from_db = true, .meta = true, .meta_reach = 1, .start_coef_max = 1};
    session_sweep *sw = session_sweep_new(ss, list, 2, &o, &st, err, sizeof err);
    cr_assert_not_null(sw, "%s", err);
    session_sweep_begin b;
    cr_assert_eq(session_sweep_start(sw, 0, SCHEME_SYM_NONE, &b, err, sizeof err), DB_OK, "%s", err);
    cr_assert(b.start && b.start->rank == 85, "<4,4,7> starts at %d (%s)", b.start ? b.start->rank : 0, b.from);
    verify_result vr;
    cr_assert(verify_f2(b.start, &vr), "the sum is not a <4,4,7> scheme: %s", vr.msg);
    cr_assert(b.moved && b.meta_parent > 0, "moved %d, parent %lld", b.moved, (long long)b.meta_parent);
    cr_assert(strstr(b.from, "<4,4,4>'s best plus <3,4,4>'s best") ||
                  strstr(b.from, "<3,4,4>'s best plus <4,4,4>'s best"),
              "from: %s", b.from);
    scheme_free(b.start);
    /* the store's 47 is <4,4,4>'s best from the first round: its own best */
    cr_assert_eq(session_sweep_start(sw, 1, SCHEME_SYM_NONE, &b, err, sizeof err), DB_OK, "%s", err);
    cr_assert(b.start && b.start->rank == 47 && !b.moved, "<4,4,4> starts at %d (%s)", b.start ? b.start->rank : 0,
              b.from);
    scheme *std444 = scheme_standard(list[1]);
    cr_assert(session_sweep_keep(sw, 1, std444)); /* 64: not lower, not kept */
    scheme_free(b.start);
    cr_assert_eq(session_sweep_start(sw, 1, SCHEME_SYM_NONE, &b, err, sizeof err), DB_OK, "%s", err);
    cr_assert(b.start && b.start->rank == 47, "after keeping a 64: %d", b.start ? b.start->rank : 0);
    scheme_free(b.start);
    cr_assert_eq(session_sweep_start(sw, 1, SCHEME_SYM_C3, &b, err, sizeof err), DB_OK, "%s", err);
    cr_assert(!b.start && !b.moved && !strcmp(b.from, "its diagonal cubes, c3"), "symmetric: %s", b.from);
    session_sweep_free(sw);

    /* --meta alone: nothing from the store; a format's best of this sweep is
     * its start once kept */
    o.from_db = false;
    sw = session_sweep_new(ss, list, 2, &o, &st, err, sizeof err);
    cr_assert_not_null(sw, "%s", err);
    cr_assert_eq(session_sweep_start(sw, 0, SCHEME_SYM_NONE, &b, err, sizeof err), DB_OK, "%s", err);
    cr_assert(!b.start && !strcmp(b.from, "the standard algorithm"), "<4,4,7> without the store: %s", b.from);
    scheme *s47 = scheme_read_file(tc_corpus("kauers-moosbauer/444-47-mod2.exp"), NULL, NULL);
    cr_assert_not_null(s47);
    cr_assert(session_sweep_keep(sw, 1, s47));
    cr_assert(session_sweep_keep(sw, 1, std444));
    cr_assert_eq(session_sweep_start(sw, 1, SCHEME_SYM_NONE, &b, err, sizeof err), DB_OK, "%s", err);
    cr_assert(b.start && b.start->rank == 47 && !b.moved && !strcmp(b.from, "its own best so far"), "%d, %s",
              b.start ? b.start->rank : 0, b.from);
    scheme_free(b.start);
    session_sweep_free(sw);

    /* --from-db alone: the store's best where it has one */
    o.from_db = true;
    o.meta = false;
    sw = session_sweep_new(ss, list, 2, &o, &st, err, sizeof err);
    cr_assert_not_null(sw, "%s", err);
    cr_assert_eq(session_sweep_start(sw, 0, SCHEME_SYM_NONE, &b, err, sizeof err), DB_OK, "%s", err);
    cr_assert(!b.start && !strcmp(b.from, "the standard algorithm"), "<4,4,7>, --from-db alone: %s", b.from);
    cr_assert_eq(session_sweep_start(sw, 1, SCHEME_SYM_NONE, &b, err, sizeof err), DB_OK, "%s", err);
    cr_assert(b.start && b.start->rank == 47 && !strcmp(b.from, "the database's best"), "%s", b.from);
    scheme_free(b.start);
    session_sweep_free(sw);
    scheme_free(s47);
    scheme_free(std444);
    session_close(ss);
}

/* A sweep row's outcome, case by case (the table's status words). */
Test(session, a_sweeps_outcome_names_each_case)
{
    struct {
        search_status st;
        bool interrupted;
        int best, record;
        bool stalled;
        const char *name;
    } cases[] = {
        {SEARCH_FAILED, false, 50, 49, false, "failed"},
        {SEARCH_BAD_PARAMS, true, 50, 49, false, "failed"},
        {SEARCH_NOT_REACHED, true, 48, 49, false, "interrupted"},
        {SEARCH_NOT_REACHED, false, 0, 49, false, "none lifted"},
        {SEARCH_REACHED, false, 48, 49, false, "BELOW THE RECORD"},
        {SEARCH_REACHED, false, 49, 49, true, "record reached"},
        {SEARCH_NOT_REACHED, false, 50, 49, true, "stalled"},
        {SEARCH_NOT_REACHED, false, 50, 49, false, "time up"},
        {SEARCH_NOT_REACHED, false, 50, -1, false, "time up"},
        {SEARCH_NOT_REACHED, false, 50, 0, true, "stalled"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const char *got = session_sweep_outcome_name(session_sweep_outcome_of(
            cases[k].st, cases[k].interrupted, cases[k].best, cases[k].record, cases[k].stalled));
        cr_assert_str_eq(got, cases[k].name, "case %zu", k);
    }
}

/* A walk over Z's start (session_z_start, search --ring z --from): an integer
 * scheme as it is; the standard algorithm over GF(2) with coefficients 1; a
 * GF(2) scheme that is valid over Z only with signs (an integer <3,4,4>:38
 * taken mod 2) lifted, the lift valid over Z and equal to it mod 2; the GF(2)
 * <4,4,4>:47, which has no lift, refused with the reason. */
Test(session, a_walk_over_z_starts_from_its_schemes_lift)
{
    scheme *z38 = scheme_read_file(tc_corpus("kauers-moosbauer/344-38-mod0.exp"), NULL, NULL);
    scheme *f47 = scheme_read_file(tc_corpus("kauers-moosbauer/444-47-mod2.exp"), NULL, NULL);
    cr_assert(z38 && f47 && z38->ring == SCHEME_RING_Z && f47->ring == SCHEME_RING_F2);
    scheme *out;
    int mx;
    char msg[600] = "";
    verify_result vr;
    cr_assert_eq(session_z_start(z38, &out, &mx, msg, sizeof msg), SESSION_ZSTART_AS_IS, "%s", msg);
    cr_assert(scheme_equal(out, z38));
    scheme_free(out);

    scheme *std = scheme_standard((scheme_format){3, 4, 5});
    cr_assert_eq(session_z_start(std, &out, &mx, msg, sizeof msg), SESSION_ZSTART_AS_IS, "%s", msg);
    cr_assert(out->ring == SCHEME_RING_Z && verify_z(out, &vr) && search_z_max_coef(out) == 1, "%s", vr.msg);
    scheme_free(out);

    scheme *f38 = scheme_to_f2(z38);
    cr_assert_not_null(f38);
    cr_assert_eq(session_z_start(f38, &out, &mx, msg, sizeof msg), SESSION_ZSTART_LIFTED, "%s", msg);
    cr_assert(out->ring == SCHEME_RING_Z && verify_z(out, &vr), "the lift: %s", vr.msg);
    cr_assert(mx >= 1 && mx == search_z_max_coef(out), "max |coefficient| %d, the lift's %d", mx,
              search_z_max_coef(out));
    scheme *back = scheme_to_f2(out);
    cr_assert(back && scheme_equal(back, f38), "the lift is not the scheme mod 2");
    scheme_free(back);
    scheme_free(out);

    out = (scheme *)1;
    cr_assert_eq(session_z_start(f47, &out, &mx, msg, sizeof msg), SESSION_ZSTART_NO_LIFT);
    cr_assert(!out && msg[0], "no reason given");
    scheme_free(f38);
    scheme_free(std);
    scheme_free(f47);
    scheme_free(z38);
}
