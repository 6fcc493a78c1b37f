/* Tests of CLI-level features: `flipgraph report` (Markdown and
 * plots), `flipgraph sweep`, `flipgraph db merge` of overlapping stores, and
 * what `flipgraph search` prints while it runs (the banner, the progress
 * table of cli/progress.c, -q, --until-record) and the built-in records.
 *
 * Each test builds its database in a fresh temporary folder through the API:
 * the standard algorithms, published schemes from $FLIPGRAPH_CORPUS (read
 * with scheme_read_file; the folders are cited where used), real CPU searches
 * (search_run_cpu) whose verified improvements go into the store, and a run
 * with a hand-written improvement log.  The expected report is computed from
 * the store through the API, never written in.  Seeds come from /dev/urandom
 * (FLIPGRAPH_SEED replays) and every assertion that depends on one
 * prints it.  The PNG assertions alone are skipped, saying so, where gnuplot
 * is not installed (scripts/setup.sh installs it). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuda/fg_cuda.h"
#include "db/db.h"
#include "schemes/scheme.h"
#include "search/search.h"
#include "test_common.h"

/* The progress table's formatting is pure functions over plain data: compiled
 * in here, so that its alignment is checked on values no short search reaches.
 * (It calls nothing else of cli/, whose objects the tests do not link.) */
#include "cli/progress.c"

/* ---- seeds, temporary folders, running the binary (test_common.h) ---- */

static unsigned long long g_seed;

#define CHECK(cond, ...) \
    cr_assert(cond, "%s [seed %llu: FLIPGRAPH_SEED=%llu replays]", tc_fmt(__VA_ARGS__), g_seed, g_seed)

static void make_dir(void)
{
    g_seed = tc_seed();
    tc_suite_dir_make("fg-test-cli");
}

TestSuite(cli, .init = make_dir, .fini = tc_suite_dir_remove);

static char *slurp(const char *path) { return tc_slurp(path, 16u << 20, NULL); }

/* The line of text that starts with prefix (a table row), or NULL. */
static const char *line_starting(const char *text, const char *prefix, char *buf, size_t len)
{
    size_t pl = strlen(prefix);
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t ll = nl ? (size_t)(nl - p) : strlen(p);
        if (ll >= pl && !strncmp(p, prefix, pl)) {
            snprintf(buf, len, "%.*s", (int)ll, p);
            return buf;
        }
        p = nl ? nl + 1 : NULL;
    }
    return NULL;
}

static bool png_magic(const char *path)
{
    static const unsigned char magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char head[8];
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return n == sizeof head && !memcmp(head, magic, sizeof magic);
}

/* The binary runs $FLIPGRAPH_GNUPLOT, else gnuplot from $PATH: so do we. */
static bool gnuplot_installed(void)
{
    const char *g = getenv("FLIPGRAPH_GNUPLOT");
    if (g && *g)
        return system("command -v \"$FLIPGRAPH_GNUPLOT\" >&2") == 0;
    return system("command -v gnuplot >&2") == 0;
}

/* No temporary of an atomic write is left behind in dir. */
static void assert_no_temporaries(const char *dir)
{
    char cmd[1024], out[4096];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c '\\.tmp\\.' ", dir);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    pclose(f);
    cr_assert_eq(atoi(out), 0, "temporary files left in %s", dir);
}

/* ---- building a store through the API ---- */

static db *open_new(const char *name)
{
    char err[1024];
    db_status st;
    db *d = db_open(tc_path_in(name), true, &st, err, sizeof err);
    cr_assert_not_null(d, "%s: %s", name, err);
    return d;
}

static int64_t import_scheme(db *d, const scheme *s, const char *source)
{
    char err[1024];
    int64_t id, f2;
    bool existed;
    db_provenance prov = {0, 0, source, 0, 0};
    db_status st = db_import_scheme(d, s, &prov, &id, &existed, &f2, NULL, err, sizeof err);
    cr_assert_eq(st, DB_OK, "%s: %s", source, err);
    return id;
}

typedef struct store_ctx {
    db *d;
    int64_t run;
    int improvements;
} store_ctx;

static bool store_improved(void *ctx, const search_found *f)
{
    store_ctx *c = ctx;
    char err[1024];
    int64_t id;
    bool existed;
    db_provenance prov = {c->run, 0, "search", f->flips, f->seconds};
    if (db_insert_scheme(c->d, f->s, &prov, &id, &existed, err, sizeof err) != DB_OK ||
        db_run_improvement(c->d, c->run, f->seconds, f->rank, err, sizeof err) != DB_OK) {
        cr_log_error("storing an improvement: %s", err);
        return false;
    }
    c->improvements++;
    return true;
}

/* A real CPU search from the standard algorithm, every verified improvement
 * stored with its run; stops at the record or after max_s. */
static int64_t search_into(db *d, scheme_format f, uint64_t seed, double max_s, int *best)
{
    char err[1024];
    search_config cfg;
    search_config_default(&cfg);
    search_params *pp = &cfg.p;
    pp->fmt = f;
    pp->threads = 1;
    pp->seed = seed;
    pp->time_limit = max_s;
    pp->target_rank = search_record_rank(f);
    pp->progress_every = 0;
    search_params p = *pp;
    char *text = search_config_to_text(&cfg);
    db_run_info info = {f, text, seed, "cpu", "1 thread", NULL};
    store_ctx c = {d, 0, 0};
    cr_assert_eq(db_run_begin(d, &info, &c.run, err, sizeof err), DB_OK, "%s", err);
    free(text);
    search_callbacks cb = {.ctx = &c, .improved = store_improved};
    search_result res;
    search_status ss = search_run_cpu(&p, NULL, 0, &cb, &res);
    CHECK(ss == SEARCH_REACHED || ss == SEARCH_NOT_REACHED, "search: %s", res.msg);
    cr_assert_eq(db_run_end(d, c.run, "finished", res.flips, res.best_rank, err, sizeof err), DB_OK,
                 "%s", err);
    CHECK(c.improvements > 0, "the search from the standard algorithm improved nothing");
    *best = res.best_rank;
    search_result_free(&res);
    return c.run;
}

/* ---- report ---- */

typedef struct fixture {
    int64_t run222, run333, run444;
    int best222, best333;
} fixture;

/* <2,2,2> and <3,3,3>: real searches; <2,3,3>: kauers-moosbauer/233-15-mod0.exp
 * (over Z, stored with its reduction mod 2); <2,2,3>: the standard algorithm;
 * <4,4,4>: a run with a hand-written improvement log whose last scheme is
 * kauers-moosbauer/444-47-mod2.exp (the GF(2) record). */
static void build_report_db(const char *name, fixture *fx)
{
    char err[1024];
    db *d = open_new(name);
    scheme *s233 = tc_read_corpus("kauers-moosbauer/233-15-mod0.exp");
    cr_assert_eq(s233->ring, SCHEME_RING_Z);
    import_scheme(d, s233, "import:233-15-mod0.exp");
    scheme_free(s233);
    scheme *std = scheme_standard((scheme_format){2, 2, 3});
    import_scheme(d, std, "standard");
    scheme_free(std);

    uint64_t sm = g_seed;
    fx->run222 = search_into(d, (scheme_format){2, 2, 2}, scheme_splitmix64(&sm), 20, &fx->best222);
    fx->run333 = search_into(d, (scheme_format){3, 3, 3}, scheme_splitmix64(&sm), 3, &fx->best333);

    db_run_info info = {{4, 4, 4}, "fmt=4x4x4\n", 4444, "gpu", "test device", NULL};
    cr_assert_eq(db_run_begin(d, &info, &fx->run444, err, sizeof err), DB_OK, "%s", err);
    static const db_improvement log[] = {{0.0004, 60}, {1.5, 52}, {30, 49}, {600, 47}};
    for (size_t i = 0; i < sizeof log / sizeof *log; i++)
        cr_assert_eq(db_run_improvement(d, fx->run444, log[i].seconds, log[i].rank, err, sizeof err),
                     DB_OK, "%s", err);
    scheme *s444 = tc_read_corpus("kauers-moosbauer/444-47-mod2.exp");
    cr_assert_eq(s444->rank, 47);
    db_provenance prov = {fx->run444, 0, "search", 123456789, 600};
    int64_t id;
    bool existed;
    cr_assert_eq(db_insert_scheme(d, s444, &prov, &id, &existed, err, sizeof err), DB_OK, "%s", err);
    scheme_free(s444);
    cr_assert_eq(db_run_end(d, fx->run444, "finished", 987654321, 47, err, sizeof err), DB_OK, "%s", err);
    db_close(d);
}

/* The row of a format in the first table, with its cells. */
/* record_z: the z column of data/records.tsv, written here by hand. */
static void check_format_row(const char *md, const char *fmt, int best, int record, int record_z,
                             const char *found, const char *gap)
{
    char prefix[64], row[2048], cell[64];
    snprintf(prefix, sizeof prefix, "| %s | ", fmt);
    const char *r = line_starting(md, prefix, row, sizeof row);
    CHECK(r != NULL, "report.md has no row for %s:\n%s", fmt, md);
    snprintf(cell, sizeof cell, "| %s | **%d** | %d | %d | ", fmt, best, record, record_z);
    CHECK(strstr(r, cell) == r, "row of %s: expected best %d, record %d, Z record %d: %s", fmt, best,
          record, record_z, r);
    CHECK(strstr(r, found) != NULL, "row of %s: expected '%s': %s", fmt, found, r);
    CHECK(strstr(r, gap) != NULL, "row of %s: expected the gap '%s': %s", fmt, gap, r);
}

static void gap_of(int best, int record, char *buf, size_t len)
{
    if (best == record)
        snprintf(buf, len, "| 0 (at the record) |");
    else if (best > record)
        snprintf(buf, len, "| +%d |", best - record);
    else
        snprintf(buf, len, "| **%d", best - record);
}

Test(cli, report_from_a_store_built_through_the_api)
{
    fixture fx;
    build_report_db("r.db", &fx);
    const char *dir = tc_path_in("rep");
    bool have_gp = gnuplot_installed();
    char out[65536];
    int rc = tc_run_cli("", out, sizeof out, "report --db '%s' -o '%s'", tc_path_in("r.db"), dir);
    cr_assert_eq(rc, have_gp ? 0 : 3, "report exited %d:\n%s", rc, out);

    char p[1024];
    snprintf(p, sizeof p, "%s/report.md", dir);
    char *md = slurp(p);

    /* per format: best, record, who found it, the gap, from the store's own answers */
    char found[128], gap[64];
    snprintf(found, sizeof found, "| run %lld (cpu, seed ", (long long)fx.run222);
    gap_of(fx.best222, 7, gap, sizeof gap);
    check_format_row(md, "<2,2,2>", fx.best222, 7, 7, found, gap);
    snprintf(found, sizeof found, "| run %lld (cpu, seed ", (long long)fx.run333);
    gap_of(fx.best333, 23, gap, sizeof gap);
    check_format_row(md, "<3,3,3>", fx.best333, 23, 23, found, gap);
    snprintf(found, sizeof found, "| run %lld (gpu, seed 4444) |", (long long)fx.run444);
    /* <4,4,4>: 47 over GF(2) (AlphaTensor, Kauers-Moosbauer), 49 over Z */
    check_format_row(md, "<4,4,4>", 47, 47, 49, found, "| 0 (at the record) |");
    CHECK(strstr(md, "(10m00s into the run)") != NULL, "the <4,4,4> best was found 600 s in:\n%s", md);
    check_format_row(md, "<2,2,3>", 12, 11, 11, "| `standard` |", "| +1 |");
    /* a Z scheme and its reduction: one each, best Z rank 15 */
    check_format_row(md, "<2,3,3>", 15, 15, 15, "imported from `233-15-mod0.exp", "| 0 (at the record) |");
    char row[2048];
    CHECK(strstr(line_starting(md, "| <2,3,3> | ", row, sizeof row), "| 1 | 15 | 1 |") != NULL,
          "<2,3,3>: 1 GF(2) scheme, best Z 15, 1 Z scheme: %s", row);

    /* the runs table */
    char prefix[64];
    snprintf(prefix, sizeof prefix, "| %lld | <4,4,4> | finished | gpu | test device", (long long)fx.run444);
    CHECK(line_starting(md, prefix, row, sizeof row) != NULL, "runs table: no row '%s':\n%s", prefix, md);
    CHECK(strstr(row, "| 4444 |") && strstr(row, "| **47** | 47 | 4 | 1 |"),
          "run row of <4,4,4>: seed 4444, best 47, record 47, 4 improvements, 1 scheme: %s", row);
    snprintf(prefix, sizeof prefix, "| %lld | <2,2,2> | finished | cpu |", (long long)fx.run222);
    CHECK(line_starting(md, prefix, row, sizeof row) != NULL, "runs table: no row '%s':\n%s", prefix, md);

    /* the plots: data and scripts always, PNGs where gnuplot is */
    const char *fmts[] = {"2x2x2", "3x3x3", "4x4x4"};
    for (int i = 0; i < 3; i++) {
        char f[1024];
        snprintf(f, sizeof f, "%s/rank-%s.dat", dir, fmts[i]);
        CHECK(tc_exists(f), "%s missing", f);
        snprintf(f, sizeof f, "%s/rank-%s.gp", dir, fmts[i]);
        CHECK(tc_exists(f), "%s missing", f);
    }
    /* formats without a run have no plot */
    snprintf(p, sizeof p, "%s/rank-2x3x3.dat", dir);
    CHECK(!tc_exists(p), "%s: <2,3,3> has no run, so no plot", p);
    snprintf(p, sizeof p, "%s/rank-4x4x4.dat", dir);
    char *dat = slurp(p);
    CHECK(strstr(dat, "600.000000 47 1") && strstr(dat, "1.500000 52 1"),
          "the <4,4,4> data holds the improvement log:\n%s", dat);
    free(dat);
    if (have_gp) {
        for (int i = 0; i < 3; i++) {
            char f[1024], ref[256];
            snprintf(f, sizeof f, "%s/rank-%s.png", dir, fmts[i]);
            CHECK(png_magic(f), "%s is not a PNG (or missing)", f);
            snprintf(ref, sizeof ref, "](rank-%s.png)", fmts[i]);
            CHECK(strstr(md, ref) != NULL, "report.md does not show %s", f);
        }
    } else {
        cr_log_warn("gnuplot is not installed: the PNG assertions are skipped");
        fprintf(stderr, "report PNG check: skipped (gnuplot not installed)\n");
    }
    free(md);
    assert_no_temporaries(dir);
}

Test(cli, report_without_gnuplot_still_writes_the_markdown)
{
    fixture fx;
    build_report_db("r.db", &fx);
    const char *dir = tc_path_in("nogp");
    char out[65536];
    int rc = tc_run_cli("FLIPGRAPH_GNUPLOT=/nonexistent/gnuplot", out, sizeof out,
                     "report --db='%s' --out='%s'", tc_path_in("r.db"), dir);
    cr_assert_eq(rc, 3, "report without gnuplot: exit 3 expected, got %d:\n%s", rc, out);
    cr_assert(strstr(out, "gnuplot not found"), "the error says why:\n%s", out);
    char p[1024];
    snprintf(p, sizeof p, "%s/report.md", dir);
    char *md = slurp(p);
    cr_assert(strstr(md, "gnuplot was not found"), "report.md says the plots are missing:\n%s", md);
    cr_assert(strstr(md, "| <4,4,4> | **47** | 47 |"), "the tables are still there:\n%s", md);
    free(md);
    snprintf(p, sizeof p, "%s/rank-4x4x4.png", dir);
    cr_assert(!tc_exists(p), "no PNG without gnuplot");
    snprintf(p, sizeof p, "%s/rank-4x4x4.gp", dir);
    cr_assert(tc_exists(p), "the script is written for later");

    /* a "gnuplot" that exits 0 but writes no PNG: refused, nothing half-written */
    const char *dir3 = tc_path_in("badgp");
    rc = tc_run_cli("FLIPGRAPH_GNUPLOT=/bin/echo", out, sizeof out, "report --db '%s' -o '%s'",
                 tc_path_in("r.db"), dir3);
    cr_assert_eq(rc, 3, "a plotter that writes no PNG: exit 3, got %d:\n%s", rc, out);
    cr_assert(strstr(out, "did not write a PNG"), "%s", out);
    snprintf(p, sizeof p, "%s/report.md", dir3);
    md = slurp(p);
    cr_assert(strstr(md, "**The plot failed:**"), "report.md names the failed plot:\n%s", md);
    free(md);
    snprintf(p, sizeof p, "%s/rank-4x4x4.png", dir3);
    cr_assert(!tc_exists(p), "no PNG from a failed plot");
    assert_no_temporaries(dir3);

    /* --no-plots: the Markdown alone, exit 0 */
    const char *dir2 = tc_path_in("noplots");
    rc = tc_run_cli("FLIPGRAPH_GNUPLOT=/nonexistent/gnuplot", out, sizeof out,
                 "report --db '%s' -o '%s' --no-plots", tc_path_in("r.db"), dir2);
    cr_assert_eq(rc, 0, "--no-plots: %d:\n%s", rc, out);
    snprintf(p, sizeof p, "%s/rank-4x4x4.dat", dir2);
    cr_assert(!tc_exists(p), "--no-plots writes no data");
    assert_no_temporaries(dir);
}

Test(cli, report_dims_and_errors)
{
    fixture fx;
    build_report_db("r.db", &fx);
    char out[65536], p[1024];
    const char *dir = tc_path_in("only444");
    int rc = tc_run_cli("", out, sizeof out, "report --db '%s' -o '%s' --dims 4x4x4 --no-plots",
                     tc_path_in("r.db"), dir);
    cr_assert_eq(rc, 0, "%s", out);
    snprintf(p, sizeof p, "%s/report.md", dir);
    char *md = slurp(p);
    cr_assert(strstr(md, "| <4,4,4> | **47**"), "%s", md);
    cr_assert(!strstr(md, "<2,2,2>") && !strstr(md, "<3,3,3>"), "--dims 4x4x4 shows only <4,4,4>:\n%s", md);
    cr_assert(!strstr(md, "sources disagree"), "no uncertain record shown, no note:\n%s", md);
    free(md);
    /* <3,6,6>: records.tsv lists "83?" over GF(2) and over Z: both marked, with the note */
    dir = tc_path_in("only366");
    rc = tc_run_cli("", out, sizeof out, "report --db '%s' -o '%s' --dims 6x3x6 --no-plots", tc_path_in("r.db"), dir);
    cr_assert_eq(rc, 0, "%s", out);
    snprintf(p, sizeof p, "%s/report.md", dir);
    md = slurp(p);
    cr_assert(strstr(md, "| <6,3,6> | – | 83? | 83? | – |"), "the <6,3,6> row marks both records:\n%s", md);
    cr_assert(strstr(md, "sources disagree"), "the note on '?':\n%s", md);
    free(md);

    cr_assert_eq(tc_run_cli("", out, sizeof out, "report --help"), 0);
    cr_assert(strstr(out, "usage: flipgraph report"), "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "report --db '%s' -o '%s'", tc_path_in("missing.db"),
                         tc_path_in("m")), 2, "a missing database: exit 2\n%s", out);
    cr_assert(!tc_exists(tc_path_in("missing.db")), "report must not create a database");
    cr_assert_eq(tc_run_cli("", out, sizeof out, "report --db '%s' --bogus", tc_path_in("r.db")), 2, "%s", out);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "report --db '%s' --dims 2x2", tc_path_in("r.db")), 2, "%s", out);
    /* a file where the folder should be */
    FILE *f = fopen(tc_path_in("afile"), "w");
    cr_assert_not_null(f);
    fclose(f);
    cr_assert_eq(tc_run_cli("", out, sizeof out, "report --db '%s' -o '%s'", tc_path_in("r.db"),
                         tc_path_in("afile")), 2, "%s", out);
    /* an empty store: a report that says so */
    db_close(open_new("empty.db"));
    rc = tc_run_cli("", out, sizeof out, "report --db '%s' -o '%s'", tc_path_in("empty.db"), tc_path_in("e"));
    cr_assert_eq(rc, 0, "%s", out);
    snprintf(p, sizeof p, "%s/report.md", tc_path_in("e"));
    md = slurp(p);
    cr_assert(strstr(md, "holds no schemes and no runs"), "%s", md);
    free(md);
}

/* ---- merge ---- */

typedef struct hash_set {
    char h[64][20];
    int n;
    bool dup;
} hash_set;

static bool collect_hash(void *ctx, const db_scheme_row *row)
{
    hash_set *hs = ctx;
    char key[20];
    snprintf(key, sizeof key, "%d%s", (int)row->ring, row->hash);
    for (int i = 0; i < hs->n; i++)
        if (!strcmp(hs->h[i], key))
            hs->dup = true;
    if (hs->n < 64)
        snprintf(hs->h[hs->n++], sizeof hs->h[0], "%s", key);
    return true;
}

Test(cli, merge_keeps_each_scheme_once)
{
    char err[1024];
    /* A: <2,2,2> standard, <2,2,3> standard, kauers-moosbauer/233-15-mod0.exp (Z + mod 2)
     * B: <2,2,3> standard, 233-15-mod0.exp again, kauers-moosbauer/444-47-mod2.exp,
     *    and a real <2,2,2> search run */
    db *a = open_new("a.db");
    scheme *s222 = scheme_standard((scheme_format){2, 2, 2});
    scheme *s223 = scheme_standard((scheme_format){2, 2, 3});
    scheme *s233 = tc_read_corpus("kauers-moosbauer/233-15-mod0.exp");
    scheme *s444 = tc_read_corpus("kauers-moosbauer/444-47-mod2.exp");
    import_scheme(a, s222, "standard");
    import_scheme(a, s223, "standard");
    import_scheme(a, s233, "import:233-15-mod0.exp");
    db_close(a);
    db *b = open_new("b.db");
    import_scheme(b, s223, "standard");
    import_scheme(b, s233, "import:233-15-mod0.exp");
    import_scheme(b, s444, "import:444-47-mod2.exp");
    int best;
    uint64_t sm = g_seed ^ 0x5eed;
    search_into(b, (scheme_format){2, 2, 2}, scheme_splitmix64(&sm), 20, &best);
    db_stats_info sb;
    cr_assert_eq(db_stats(b, &sb, err, sizeof err), DB_OK, "%s", err);
    db_close(b);

    char out[65536];
    int rc = tc_run_cli("", out, sizeof out, "db merge '%s' --db '%s'", tc_path_in("b.db"), tc_path_in("a.db"));
    cr_assert_eq(rc, 0, "merge: %d\n%s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "db merge '%s' --db '%s'", tc_path_in("b.db"), tc_path_in("a.db"));
    cr_assert_eq(rc, 0, "merge again: %d\n%s", rc, out);
    CHECK(strstr(out, "runs: 0 added") && strstr(out, "schemes: 0 added"),
          "a repeated merge adds nothing:\n%s", out);

    db_status st;
    a = db_open(tc_path_in("a.db"), false, &st, err, sizeof err);
    cr_assert_not_null(a, "%s", err);
    db_stats_info sa;
    cr_assert_eq(db_stats(a, &sa, err, sizeof err), DB_OK, "%s", err);
    /* A had 4 (222, 223, 233 Z and F2); B adds 444 and the search's schemes,
     * minus what both hold: the union, each once. */
    /* B's own: all but <2,2,3> and 233-15 (Z and mod 2); the search's
     * <2,2,2> schemes are improvements, below A's standard rank 8. */
    int64_t b_only = sb.schemes[0] + sb.schemes[1] - 3;
    CHECK(sa.schemes[0] + sa.schemes[1] == 4 + b_only,
          "after the merge A holds %lld schemes, expected %lld", (long long)(sa.schemes[0] + sa.schemes[1]),
          (long long)(4 + b_only));
    CHECK(sa.runs == 1, "the run of B arrives once: %lld runs", (long long)sa.runs);
    hash_set hs;
    memset(&hs, 0, sizeof hs);
    db_filter flt = {false, {0, 0, 0}, -1, 0};
    cr_assert_eq(db_list(a, &flt, collect_hash, &hs, err, sizeof err), DB_OK, "%s", err);
    CHECK(!hs.dup, "a scheme is stored twice after the merge");
    CHECK(hs.n == 4 + b_only, "db_list visits %d schemes", hs.n);
    int64_t id;
    const scheme *all[] = {s222, s223, s233, s444};
    for (int i = 0; i < 4; i++)
        CHECK(db_find_scheme(a, all[i], &id, err, sizeof err) == DB_OK, "scheme %d missing: %s", i, err);
    db_close(a);
    scheme_free(s222);
    scheme_free(s223);
    scheme_free(s233);
    scheme_free(s444);
}

/* ---- sweep ---- */

typedef struct run_list {
    db_run_row r[16];
    int n;
} run_list;

static bool collect_run(void *ctx, const db_run_row *row)
{
    run_list *l = ctx;
    if (l->n < 16)
        l->r[l->n++] = *row;
    return true;
}

static void list_runs(const char *path, run_list *l)
{
    char err[1024];
    db_status st;
    db *d = db_open(path, false, &st, err, sizeof err);
    cr_assert_not_null(d, "%s", err);
    memset(l, 0, sizeof *l);
    cr_assert_eq(db_list_runs(d, collect_run, l, err, sizeof err), DB_OK, "%s", err);
    db_close(d);
}

/* The table row of a format: "<2,2,2>  start best record gap ..." */
static bool table_row(const char *out, const char *fmt, int *start, int *best, int *record)
{
    char row[1024];
    const char *tab = strstr(out, "\nformat ");
    if (!tab || !line_starting(tab + 1, fmt, row, sizeof row))
        return false;
    return sscanf(row + strlen(fmt), "%d %d %d", start, best, record) == 3;
}

Test(cli, sweep_tiny_range_reaches_the_records)
{
    char out[65536];
    unsigned long long seed = g_seed % 1000000;
    int rc = tc_run_cli("", out, sizeof out,
                     "sweep --dims-list 2x2x2..2x2x3 --time-per 1s --threads 2 --seed %llu "
                     "--db '%s' --backend cpu --progress 0", seed, tc_path_in("s.db"));
    CHECK(rc == 0, "sweep exited %d:\n%s", rc, out);
    int start, best, record;
    CHECK(table_row(out, "<2,2,2>", &start, &best, &record), "no <2,2,2> row:\n%s", out);
    CHECK(start == 8 && best == 7 && record == 7, "<2,2,2>: start 8, best 7, record 7 expected:\n%s", out);
    CHECK(table_row(out, "<2,2,3>", &start, &best, &record), "no <2,2,3> row:\n%s", out);
    CHECK(start == 12 && record == 11 && best >= 11 && best <= 12, "<2,2,3>:\n%s", out);
    CHECK(strstr(out, "record reached"), "%s", out);

    run_list l;
    list_runs(tc_path_in("s.db"), &l);
    CHECK(l.n == 2, "one run per format: %d", l.n);
    CHECK(l.r[0].fmt.n == 2 && l.r[0].fmt.m == 2 && l.r[0].fmt.p == 2 && l.r[0].best_rank == 7 &&
              !strcmp(l.r[0].status, "finished") && l.r[0].improvements >= 1 && l.r[0].schemes >= 1,
          "run 1: %s best %d", l.r[0].status, l.r[0].best_rank);
    CHECK(l.r[1].fmt.p == 3 && !strcmp(l.r[1].status, "finished"), "run 2: %s", l.r[1].status);

    /* --until-record: the format stops at its record, long before its time */
    rc = tc_run_cli("", out, sizeof out,
                 "sweep --dims-list=2x2x2 --time-per=10m --threads=1 --seed=%llu --until-record -q "
                 "--backend=cpu --from-db --db='%s'", seed + 1, tc_path_in("s.db"));
    CHECK(rc == 0, "sweep --until-record exited %d:\n%s", rc, out);
    CHECK(table_row(out, "<2,2,2>", &start, &best, &record) && best == 7 && start == 7,
          "from the store's best (7) the record is there at once:\n%s", out);
    CHECK(strstr(out, "record reached"), "%s", out);
}

/* search --pool-out DIR writes the run's pool (distinct, verified, lowest ranks
 * first, at most --pool-keep), and search --from DIR starts from every file. */
Test(cli, search_pool_out_and_from_a_folder)
{
    char out[65536];
    unsigned long long seed = g_seed % 1000000;
    const char *dir = tc_path_in("pool");
    int rc = tc_run_cli("", out, sizeof out,
                        "search --dims 3x3x3 --time 2s --threads 2 --seed %llu --backend cpu --progress 0 "
                        "--pool-out '%s' --pool-keep 40", seed, dir);
    CHECK(rc == 0, "search exited %d:\n%s", rc, out);
    int best = 0;
    const char *b = strstr(out, "best rank ");
    CHECK(b && sscanf(b, "best rank %d", &best) == 1, "no summary line:\n%s", out);
    DIR *d = opendir(dir);
    CHECK(d, "--pool-out made no folder %s", dir);
    int files = 0, lowest = 1 << 30, at_best = 0;
    char hashes[40][17];
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        int n, m, p, r;
        char hx[17] = "";
        CHECK(sscanf(de->d_name, "%dx%dx%d-%d-%16[0-9a-f].txt", &n, &m, &p, &r, hx) == 5 && n == 3 && m == 3 &&
                  p == 3,
              "file name %s", de->d_name);
        CHECK(files < 40, "more than --pool-keep 40 files");
        scheme *s = tc_read_or_die(tc_fmt("%s/%s", dir, de->d_name));
        CHECK(s->rank == r && verify_f2(s, NULL), "%s: rank %d, valid %d", de->d_name, s->rank, verify_f2(s, NULL));
        char hx2[17];
        scheme_hash_hex(scheme_hash(s), hx2);
        CHECK(!strcmp(hx, hx2), "%s: the name's hash is not the scheme's (%s)", de->d_name, hx2);
        for (int i = 0; i < files; i++)
            CHECK(strcmp(hashes[i], hx), "%s twice", hx);
        snprintf(hashes[files], sizeof hashes[files], "%s", hx);
        files++;
        lowest = r < lowest ? r : lowest;
        at_best += r == best;
        scheme_free(s);
    }
    closedir(d);
    CHECK(files >= 2 && lowest == best && at_best >= 1, "%d files, lowest rank %d, best %d", files, lowest, best);
    CHECK(strstr(out, tc_fmt("%d schemes of the pool", files)), "the count is not said:\n%s", out);

    /* every file a start */
    rc = tc_run_cli("", out, sizeof out, "search --from '%s' --time 0.3s --threads 1 --seed %llu --backend cpu "
                    "--progress 0", dir, seed + 1);
    CHECK(rc == 0, "search --from DIR exited %d:\n%s", rc, out);
    CHECK(strstr(out, tc_fmt("(--from, %d schemes)", files)), "the banner does not count %d starts:\n%s", files, out);

    /* refusals before any walk: an empty folder as --from, a --pool-out that cannot be made */
    mkdir(tc_path_in("empty"), 0777);
    rc = tc_run_cli("", out, sizeof out, "search --from '%s' --time 10m", tc_path_in("empty"));
    CHECK(rc == 2 && strstr(out, "the folder holds no file"), "rc %d:\n%s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "search --dims 2x2x2 --time 10m --pool-out '%s'",
                    tc_fmt("%s/%s", dir, "no-such-sub/deeper"));
    CHECK(rc == 2 && strstr(out, "--pool-out"), "rc %d:\n%s", rc, out);
    /* more --from arguments than the search takes: the message says a folder takes them all */
    static char many[65536] = "search --time 10m";
    for (int i = 0; i < 65; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), " --from '%s'", dir);
    rc = tc_run_cli("", out, sizeof out, "%s", many);
    CHECK(rc == 2 && strstr(out, "at most 64 --from arguments (a folder gives all its files)"), "rc %d:\n%s", rc,
          out);
}

/* search --pool-out DIR --pool-every T: checkpoints while the run goes on (-v
 * says each), and at the end the folder holds the end's pool beside what was
 * there before; --pool-every without a folder to write, and where no pool is
 * written (sweep, search --meta), is refused before any walk. */
Test(cli, search_pool_every_checkpoints_the_pool)
{
    char out[65536];
    unsigned long long seed = g_seed % 1000000;
    const char *dir = tc_path_in("ckpt");
    mkdir(dir, 0777);
    FILE *f = fopen(tc_fmt("%s/notes.txt", dir), "w");
    CHECK(f, "cannot write in %s", dir);
    fputs("mine\n", f);
    fclose(f);
    int rc = tc_run_cli("", out, sizeof out,
                        "search --dims 4x4x4 --time 2.5s --threads 2 --seed %llu --backend cpu --progress 0 -v "
                        "--target-rank 0 --pool-out '%s' --pool-keep 30 --pool-every 0.5s", seed, dir);
    CHECK(rc == 0, "search exited %d:\n%s", rc, out);
    const int checkpoints = tc_count_of(out, "pool checkpoint: ");
    CHECK(checkpoints >= 2, "seed %llu: %d checkpoint lines in a 2.5 s run, one every 0.5 s:\n%s", seed, checkpoints,
          out);
    int said = -1;
    const char *w = strstr(out, "schemes of the pool");
    while (w > out && w[-1] != '\n' && w[-1] != ':')
        w--;
    CHECK(w && sscanf(w, " %d", &said) == 1, "the end's count is not said:\n%s", out);
    DIR *d = opendir(dir);
    CHECK(d, "%s", dir);
    int files = 0, notes = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        if (!strcmp(de->d_name, "notes.txt")) {
            notes++;
            continue;
        }
        scheme *s = tc_read_or_die(tc_fmt("%s/%s", dir, de->d_name));
        CHECK(verify_f2(s, NULL), "%s does not verify", de->d_name);
        scheme_free(s);
        files++;
    }
    closedir(d);
    CHECK(notes == 1, "the file that was there before is gone");
    CHECK(files == said, "seed %llu: %d pool files, the end wrote %d (a checkpoint's dropped schemes stay?)", seed,
          files, said);

    /* --pool-out's default --pool-keep (1000) is a pool to keep: no --pool-keep needed */
    rc = tc_run_cli("", out, sizeof out, "search --dims 3x3x3 --time 1s --threads 1 --seed %llu --backend cpu "
                    "--progress 0 --target-rank 0 --pool-out '%s' --pool-every 0.3s", seed, tc_path_in("ckpt2"));
    CHECK(rc == 0 && strstr(out, "schemes of the pool"), "--pool-every without --pool-keep: rc %d:\n%s", rc, out);

    rc = tc_run_cli("", out, sizeof out, "search --dims 2x2x2 --time 10m --pool-every 1m");
    CHECK(rc == 2 && strstr(out, "--pool-every: the checkpoints go to --pool-out DIR"), "rc %d:\n%s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "search --dims 2x2x2 --time 10m --pool-out '%s' --pool-keep 0 --pool-every 1m",
                    dir);
    CHECK(rc == 2 && strstr(out, "--pool-every: --pool-keep 0 keeps no pool to write"), "rc %d:\n%s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "search --dims 2x2x2 --time 10m --pool-keep 10 --pool-every 1m");
    CHECK(rc == 2 && strstr(out, "--pool-every: the checkpoints go to --pool-out DIR"), "rc %d:\n%s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "sweep --dims-list 2x2x2 --time-per 1s --pool-every 1m");
    CHECK(rc == 2 && strstr(out, "unknown option '--pool-every'"), "rc %d:\n%s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "search --meta --dims-range 2x2x2..2x2x3 --time 1s --pool-every 1m");
    CHECK(rc == 2 && strstr(out, "--meta: --pool-every does not apply"), "rc %d:\n%s", rc, out);
}

Test(cli, sweep_lists_and_usage)
{
    char out[65536];
    /* 2x2x2..3x3x3: <2,2,2> <2,2,3> <2,3,3> <3,3,3>, in this order; a repeat is dropped */
    int rc = tc_run_cli("", out, sizeof out,
                     "sweep --dims-list 2x2x2..3x3x3,2x2x2 --time-per 0.1s --threads 1 --seed 1 -q "
                     "--backend cpu");
    CHECK(rc == 0, "%s", out);
    const char *tab = strstr(out, "\nformat ");
    cr_assert_not_null(tab, "%s", out);
    const char *want[] = {"<2,2,2>", "<2,2,3>", "<2,3,3>", "<3,3,3>"};
    const char *p = tab;
    for (int i = 0; i < 4; i++) {
        const char *q = strstr(p, want[i]);
        CHECK(q != NULL, "row %d (%s) missing or out of order:\n%s", i, want[i], out);
        p = q + 1;
    }
    CHECK(!strstr(p, "<2,2,2>") && !strstr(p, "<3,2,2>"), "<2,2,2> twice:\n%s", out);

    /* bad lists and options: exit 2 */
    const char *bad[] = {"--dims-list 3x3x3..2x2x2 --time-per 1s", "--dims-list 2x2 --time-per 1s",
                         "--dims-list 2x2x2,,3x3x3 --time-per 1s", "--dims-list 3x2x2..3x2x2 --time-per 1s",
                         "--time-per 1s", "--dims-list 2x2x2 --time-per soon",
                         "--dims-list 2x2x2 --backend tpu", "--dims-list 2x2x2 --from-db",
                         "--dims-list 2x2x2 --threads 0", "--dims-list 2x2x2 extra"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc = tc_run_cli("", out, sizeof out, "sweep %s", bad[i]);
        cr_assert_eq(rc, 2, "sweep %s: exit 2 expected, got %d:\n%s", bad[i], rc, out);
    }
    cr_assert_eq(tc_run_cli("", out, sizeof out, "sweep --help"), 0);
    cr_assert(strstr(out, "usage: flipgraph sweep"), "%s", out);
    if (cuda_device_count() == 0) {
        rc = tc_run_cli("", out, sizeof out, "sweep --dims-list 2x2x2 --time-per 1s --backend gpu");
        cr_assert_eq(rc, 3, "--backend gpu without a GPU: exit 3, got %d:\n%s", rc, out);
    }
}
/* Waits up to 30 s until outp contains text; kills pid and fails the test if it never does. */
static void wait_for_text(pid_t pid, const char *outp, const char *text, const char *what)
{
    bool seen = tc_wait_for_text(outp, text, 30);
    if (!seen)
        kill(pid, SIGKILL);
    cr_assert(seen, "%s within 30 s", what);
}

Test(cli, sweep_sigint_stops_cleanly_with_the_table)
{
    const char *outp = tc_path_in("sig.out"), *dbp = tc_path_in("sig.db");
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", g_seed % 1000000);
    char *const argv[] = {(char *)tc_bin(), "sweep", "--dims-list", "3x3x3..3x3x4", "--time-per", "10m",
                          "--threads", "1", "--seed", seed, "--db", (char *)dbp, "--backend", "cpu",
                          "--progress", "0", NULL};
    pid_t pid = tc_spawn_logged(outp, argv, false);
    /* Wait until the first format is under way (its run is recorded), then interrupt. */
    wait_for_text(pid, outp, "[1/2]", "the sweep did not start");
    struct timespec ts = {0, 300 * 1000000};
    nanosleep(&ts, NULL);
    kill(pid, SIGINT);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    char *out = slurp(outp);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1,
              "an interrupted sweep exits 1 (status 0x%x):\n%s", status, out);
    int start, best, record;
    CHECK(table_row(out, "<3,3,3>", &start, &best, &record) && start == 27 && record == 23 &&
              best <= 27,
          "the table so far has <3,3,3>:\n%s", out);
    CHECK(!table_row(out, "<3,3,4>", &start, &best, &record), "<3,3,4> was never started:\n%s", out);
    CHECK(strstr(out, "interrupted: 1 of 2 formats searched"), "%s", out);
    free(out);

    run_list l;
    list_runs(dbp, &l);
    CHECK(l.n == 1 && !strcmp(l.r[0].status, "interrupted"), "one run, marked interrupted: %d %s", l.n,
          l.n ? l.r[0].status : "");
    /* the store is whole: check re-verifies every scheme */
    char o2[65536];
    int rc = tc_run_cli("", o2, sizeof o2, "db check --db '%s'", dbp);
    CHECK(rc == 0, "db check after the interrupt: %d\n%s", rc, o2);
}

/* A second SIGINT ends the search at once, and what is stored stays whole. */
Test(cli, search_second_sigint_exits_at_once_store_whole)
{
    const char *outp = tc_path_in("sig2.out"), *dbp = tc_path_in("sig2.db");
    char *const argv[] = {(char *)tc_bin(), "search", "--dims", "4x4x4", "--time", "10m", "--threads", "1",
                          "--db", (char *)dbp, "--backend", "cpu", "--progress", "0", "-v", NULL};
    pid_t pid = tc_spawn_logged(outp, argv, false);
    /* the first stored improvement: the walk is under way and writing */
    wait_for_text(pid, outp, "rank 5", "the search did not store an improvement");
    kill(pid, SIGINT);
    kill(pid, SIGINT);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    char *out = slurp(outp);
    /* the first signal may have ended the run before the second came: exit 0 (no target:
     * a stop is a normal end, as test_search's sigint test says); else the second ended it
     * by SIGINT's default action */
    CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) || (WIFEXITED(status) && WEXITSTATUS(status) == 0),
          "two SIGINTs: killed by SIGINT or exit 0 (status 0x%x):\n%s", status, out);
    free(out);
    char o2[65536];
    int rc = tc_run_cli("", o2, sizeof o2, "db check --db '%s'", dbp);
    CHECK(rc == 0, "db check after two SIGINTs: %d\n%s", rc, o2);
    rc = tc_run_cli("", o2, sizeof o2, "db best --dims 4x4x4 --db '%s'", dbp);
    CHECK(rc == 0, "the stored schemes are there: %d\n%s", rc, o2);
}

/* ---- the built-in records against data/records.tsv (the corpus folder's parent) ---- */

Test(cli, records_match_records_tsv)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/../records.tsv", tc_corpus_dir());
    char *text = slurp(path);
    cr_assert_not_null(text, "%s: cannot read", path);
    int rows = 0;
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        int d[3], g, z, at = 0;
        char gq[8] = "", zq[8] = "";
        /* n m p gf2[?] z[?] ...: the '?' sticks to its number */
        if (line[0] == '#' || sscanf(line, "%d %d %d %d%7[?] %n", &d[0], &d[1], &d[2], &g, gq, &at) < 4)
            continue;
        if (!at) /* no '?' after gf2: scan again without it */
            sscanf(line, "%d %d %d %d %n", &d[0], &d[1], &d[2], &g, &at);
        cr_assert(sscanf(line + at, "%d%7[?]", &z, zq) >= 1, "records.tsv: %s", line);
        for (int k = 0; k < 6; k++) {
            scheme_format f = {d[perm[k][0]], d[perm[k][1]], d[perm[k][2]]};
            cr_assert_eq(search_record_rank(f), g, "<%d,%d,%d> over GF(2): %s", f.n, f.m, f.p, line);
            cr_assert_eq(search_record_rank_z(f), z, "<%d,%d,%d> over Z: %s", f.n, f.m, f.p, line);
            cr_assert_eq(search_record_uncertain(f, SCHEME_RING_F2), gq[0] == '?', "%s", line);
            cr_assert_eq(search_record_uncertain(f, SCHEME_RING_Z), zq[0] == '?', "%s", line);
        }
        rows++;
    }
    free(text);
    cr_assert_geq(rows, 35, "records.tsv: only %d rows read", rows);
    /* outside the table: <1,m,p> is an outer product (rank m*p over every ring); others unknown */
    cr_assert_eq(search_record_rank_z((scheme_format){4, 1, 5}), 20);
    cr_assert_eq(search_record_rank_z((scheme_format){8, 2, 2}), -1);
    cr_assert(!search_record_uncertain((scheme_format){8, 2, 2}, SCHEME_RING_Z));
}

/* ---- what `flipgraph search` prints while it runs ---- */

/* The end offsets of the words of a line (every cell of the table is one
 * word, right-aligned): n words. */
static int word_ends(const char *line, int *ends, int max)
{
    int n = 0;
    for (int i = 0; line[i] && line[i] != '\n'; i++)
        if (line[i] != ' ' && (line[i + 1] == ' ' || line[i + 1] == 0 || line[i + 1] == '\n') && n < max)
            ends[n++] = i + 1;
    return n;
}

/* Every word of row ends where the header's word above it ends. */
static void check_aligned(const char *header, const char *row, const char *what)
{
    int he[32], re[32];
    int hn = word_ends(header, he, 32), rn = word_ends(row, re, 32);
    CHECK(strlen(row) == strlen(header), "%s: row and header differ in width:\n%s\n%s", what, header, row);
    CHECK(hn == rn, "%s: %d header words, %d cells:\n%s\n%s", what, hn, rn, header, row);
    for (int i = 0; i < hn; i++)
        CHECK(he[i] == re[i], "%s: column %d ends at %d in the header, %d in the row:\n%s\n%s", what, i + 1,
              he[i], re[i], header, row);
    for (const char *c = row; *c; c++)
        CHECK(*c >= 0x20 && *c < 0x7f, "%s: not plain printable ASCII (0x%02x):\n%s", what, (unsigned char)*c,
              row);
}

static double pick(scheme_rng *r, double lo, double hi) /* log-uniform */
{
    return lo * pow(hi / lo, scheme_rng_uniform(r));
}

Test(cli, progress_row_and_header_align)
{
    char header[512], row[512];
    cli_progress_header(header, sizeof header);
    CHECK(strstr(header, "elapsed") && strstr(header, "flips/s") && strstr(header, "best") &&
              strstr(header, "record") && strstr(header, "gap") && strstr(header, "plateau") &&
              strstr(header, "stored") && strstr(header, "level"),
          "header: %s", header);
    /* a known row: the cells say what was given */
    search_progress pr;
    memset(&pr, 0, sizeof pr);
    pr.seconds = 3725.9;
    pr.flips_per_s = 1234567;
    pr.flips = 9876543210ull;
    pr.best_rank = 49;
    pr.record = 47;
    pr.walkers = 3;
    pr.rank_min = 49, pr.rank_median = 50, pr.rank_max = 52;
    pr.best_age = 61;
    pr.level = 50, pr.level_count = 1000;
    cli_progress_row(row, sizeof row, &pr, 12);
    check_aligned(header, row, "a known row");
    int e[32];
    char w[14][32];
    CHECK(word_ends(row, e, 32) == 14 && sscanf(row, "%31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s %31s "
                                                     "%31s %31s", w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7],
                                                w[8], w[9], w[10], w[11], w[12], w[13]) == 14,
          "14 cells: %s", row);
    static const char *want[14] = {"1:02:05", "1.23M", "9.88G", "49", "47", "+2", "3",
                                   "49", "50", "52", "0:01:01", "12", "50", "1000"};
    for (int i = 0; i < 14; i++)
        CHECK(!strcmp(w[i], want[i]), "cell %d: '%s', expected '%s': %s", i + 1, w[i], want[i], row);
    /* no walkers reported, no record, nothing stored: dashes, same columns */
    pr.walkers = 0;
    pr.record = -1;
    cli_progress_row(row, sizeof row, &pr, UINT64_MAX);
    check_aligned(header, row, "dashes");
    CHECK(strstr(row, "  -  ") != NULL, "dashes: %s", row);
    /* random rows up to the largest values a run reaches */
    scheme_rng r;
    scheme_rng_seed(&r, g_seed);
    for (int it = 0; it < 2000; it++) {
        memset(&pr, 0, sizeof pr);
        pr.seconds = pick(&r, 1e-3, 999.0 * 3600);
        pr.flips_per_s = scheme_rng_next(&r) % 8 ? pick(&r, 1e-2, 1e13) : 0;
        pr.flips = (uint64_t)pick(&r, 1, 1.8e19);
        pr.best_rank = 1 + (int)(scheme_rng_next(&r) % SCHEME_MAX_RANK);
        pr.record = scheme_rng_next(&r) % 4 ? 1 + (int)(scheme_rng_next(&r) % SCHEME_MAX_RANK) : -1;
        pr.walkers = scheme_rng_next(&r) % 4 ? (int)pick(&r, 1, 1 << 24) : 0;
        pr.rank_min = 1 + (int)(scheme_rng_next(&r) % SCHEME_MAX_RANK);
        pr.rank_median = 1 + (int)(scheme_rng_next(&r) % SCHEME_MAX_RANK);
        pr.rank_max = 1 + (int)(scheme_rng_next(&r) % SCHEME_MAX_RANK);
        pr.best_age = pick(&r, 1e-3, 999.0 * 3600);
        pr.level = scheme_rng_next(&r) % 8 ? 1 + (int)(scheme_rng_next(&r) % SCHEME_MAX_RANK) : -1;
        pr.level_count = (int)pick(&r, 1, 1e6);
        uint64_t stored = scheme_rng_next(&r) % 8 ? (uint64_t)pick(&r, 1, 1e12) : UINT64_MAX;
        cli_progress_row(row, sizeof row, &pr, stored);
        check_aligned(header, row, tc_fmt("random row %d", it));
    }
    /* an event line: the time under "elapsed", the text after the column gap */
    cli_progress_event(row, sizeof row, 3725.9, "improved: rank 48");
    word_ends(row, e, 32);
    int he[32];
    word_ends(header, he, 32);
    CHECK(e[0] == he[0] && strstr(row, "1:02:05  improved: rank 48"), "event: %s\n%s", row, header);
}

/* The progress table of a real search written to a file: the header, then
 * rows aligned under it, the header again before every 20 rows; no \r. */
/* The progress bar of long products (multiply, bench multiply --generate). */
Test(cli, product_progress_bar)
{
    char buf[256];
    cli_progress_bar(buf, sizeof buf, 12, 48, 6.0);
    cr_assert_str_eq(buf, "[#######.......................] 12/48 subproblems, 2/s, elapsed 0:00:06, ETA 0:00:18");
    cli_progress_bar(buf, sizeof buf, 0, 7, 0.5);
    cr_assert(strstr(buf, "[..............................] 0/7") && strstr(buf, "ETA -"), "%s", buf);
    cli_progress_bar(buf, sizeof buf, 7, 7, 3725.0);
    cr_assert(strstr(buf, "[##############################] 7/7") && strstr(buf, "elapsed 1:02:05, ETA 0:00:00"),
              "%s", buf);
}

Test(cli, search_progress_table_piped_to_a_file)
{
    const char *errp = tc_path_in("prog.err"), *outd = tc_path_in("prog.out");
    unsigned long long seed = g_seed % 1000000007ull;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' search --dims 3x3x3 --threads 1 --time 1.5s --progress 0.02 --seed %llu "
                              "--out '%s' >'%s' 2>'%s'",
             tc_bin(), seed, outd, tc_path_in("prog.stdout"), errp);
    int rc = tc_system(cmd);
    char *err = slurp(errp);
    CHECK(rc == 0, "exit %d:\n%s", rc, err);
    CHECK(!strchr(err, '\r') && !strchr(err, '\033'), "no carriage return or escape in the file");
    char header[512];
    cli_progress_header(header, sizeof header);
    int rows = 0, headers = 0, since = -1, last_stored = -1, last_best = 0, with_walker = 0;
    for (char *line = strtok(err, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strcmp(line, header)) {
            CHECK(since == -1 || since == CLI_PROGRESS_HEADER_EVERY,
                  "the header came again after %d rows, not %d", since, CLI_PROGRESS_HEADER_EVERY);
            headers++;
            since = 0;
            continue;
        }
        int e[32];
        if (!headers || word_ends(line, e, 32) != 14 || strstr(line, "improved:"))
            continue; /* the banner, an event line */
        check_aligned(header, line, "a row of the run");
        CHECK(since < CLI_PROGRESS_HEADER_EVERY, "%d rows without a header", since + 1);
        since++;
        rows++;
        int best, walkers, stored;
        char el[32], rate[32], fl[32], rec[32];
        CHECK(sscanf(line, "%31s %31s %31s %d %31s", el, rate, fl, &best, rec) == 5 && !strcmp(rec, "23"),
              "row: %s", line);
        CHECK(best >= 23 && best <= 27 && (!last_best || best <= last_best), "best rank %d after %d: %s", best,
              last_best, line);
        last_best = best;
        char *cells = line;
        for (int i = 0; i < 6; i++) /* to the walkers column */
            cells += strspn(cells, " "), cells += strcspn(cells, " ");
        /* "-" only until the walker's thread has published its first rank */
        bool dash = !strncmp(cells + strspn(cells, " "), "- ", 2);
        CHECK(dash || (sscanf(cells, "%d", &walkers) == 1 && walkers == 1), "one walker: %s", line);
        with_walker += !dash;
        for (int i = 0; i < 5; i++) /* to the stored column */
            cells += strspn(cells, " "), cells += strcspn(cells, " ");
        CHECK(sscanf(cells, "%d", &stored) == 1 && stored >= last_stored, "stored: %s", line);
        last_stored = stored;
    }
    CHECK(rows > CLI_PROGRESS_HEADER_EVERY, "only %d rows in 1.5 s at 0.02 s intervals", rows);
    CHECK(with_walker > rows / 2, "only %d of %d rows show the walker's rank", with_walker, rows);
    CHECK(headers == 1 + (rows - 1) / CLI_PROGRESS_HEADER_EVERY, "%d headers for %d rows", headers, rows);
    /* stored counts the files this run wrote: every improvement once */
    char c2[1200], n[64];
    snprintf(c2, sizeof c2, "ls '%s' | wc -l", outd);
    FILE *f = popen(c2, "r");
    cr_assert_not_null(f);
    cr_assert_not_null(fgets(n, sizeof n, f));
    pclose(f);
    CHECK(last_best != 23 || last_stored == atoi(n), "the last row says %d stored, %s has %d files",
          last_stored, outd, atoi(n));
    free(err);
}

Test(cli, search_quiet_prints_no_progress)
{
    char out[8192], err[8192], cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' search --dims 3x3x3 -q --time 0.3s --progress 0.02 --seed %llu", tc_bin(),
             g_seed % 1000000007ull);
    int rc = tc_exit_code(tc_system_capture(cmd, out, sizeof out, err, sizeof err));
    CHECK(rc == 0, "exit %d: %s%s", rc, out, err);
    CHECK(err[0] == 0, "-q: nothing on stderr, got:\n%s", err);
    CHECK(strstr(out, "best rank ") && strstr(out, " for <3,3,3> after "), "the summary stays: %s", out);
    /* and without -q the same run prints the banner and the table */
    snprintf(cmd, sizeof cmd, "'%s' search --dims 3x3x3 --time 0.3s --progress 0.02 --seed %llu", tc_bin(),
             g_seed % 1000000007ull);
    rc = tc_exit_code(tc_system_capture(cmd, out, sizeof out, err, sizeof err));
    char header[512];
    CHECK(rc == 0 && strstr(err, cli_progress_header(header, sizeof header)), "exit %d:\n%s", rc, err);
}

Test(cli, search_banner_names_the_build_seed_and_parameters)
{
    char ver[4096], out[65536];
    cr_assert_eq(tc_run_cli("", ver, sizeof ver, "version"), 0, "%s", ver);
    const char *c = strstr(ver, "(commit ");
    cr_assert_not_null(c, "version: %s", ver);
    char commit[64];
    cr_assert_eq(sscanf(c, "(commit %63[^)])", commit), 1, "%s", ver);
    unsigned long long seed = 1000 + g_seed % 1000000007ull;
    int rc = tc_run_cli("", out, sizeof out, "search --dims 2x3x3 --time 0.2s --seed %llu --plateau 3000", seed);
    CHECK(rc == 0, "exit %d:\n%s", rc, out);
    char want[256];
    snprintf(want, sizeof want, "commit %s,", commit);
    CHECK(strstr(out, want), "the banner names the commit %s:\n%s", commit, out);
    snprintf(want, sizeof want, "seed %llu\n", seed);
    CHECK(strstr(out, want), "the banner names the seed %llu:\n%s", seed, out);
    CHECK(strstr(out, "flipgraph 0.") && strstr(out, " build, "), "version and build type:\n%s", out);
    CHECK(strstr(out, "search <2,3,3> over GF(2): record 15 (over Z 15); start rank 18 (the standard algorithm)"),
          "format, records, start:\n%s", out);
    CHECK(strstr(out, "backend cpu: 1 CPU thread"), "backend:\n%s", out);
    static const char *kv[] = {"plateau=3000", "pool-min=16", "walk-len=1000", "time=0.2", "target-rank=0"};
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++) {
        const char *at = strstr(out, kv[i]);
        CHECK(at && (at[strlen(kv[i])] == ' ' || at[strlen(kv[i])] == '\n'), "parameter %s in the banner:\n%s",
              kv[i], out);
    }
    CHECK(strstr(out, "stop: after 0.2s, on SIGINT/SIGTERM"), "when it stops:\n%s", out);
}

/* --plateau alone below the default floor (2000) runs that plateau; with an
 * explicit --plateau-min above it the bounds are contradictory: exit 2 */
Test(cli, search_plateau_alone_moves_the_bound)
{
    char out[65536];
    unsigned long long seed = g_seed % 1000000007ull;
    int rc = tc_run_cli("", out, sizeof out, "search --dims 2x2x3 --time 0.2s --seed %llu --plateau 150", seed);
    CHECK(rc == 0, "exit %d:\n%s", rc, out);
    CHECK((strstr(out, " plateau=150 ") || strstr(out, " plateau=150\n")) &&
              (strstr(out, " plateau-min=150 ") || strstr(out, " plateau-min=150\n")),
          "the banner:\n%s", out);
    rc = tc_run_cli("", out, sizeof out, "search --dims 2x2x3 --time 0.2s --plateau 150 --plateau-min 200");
    CHECK(rc == 2 && strstr(out, "plateau-min <= plateau"), "exit %d:\n%s", rc, out);
}

/* With --backend gpu the banner names the GPU defaults that replace the
 * recorded parameters; none once a walk parameter is given.  The banner comes
 * before the backend starts, so this holds with a GPU (exit 0) and without (2). */
Test(cli, search_gpu_banner_names_the_gpu_defaults)
{
    char out[65536];
    int rc = tc_run_cli("", out, sizeof out, "search --backend gpu --dims 2x2x2 --time 0.5s --seed 3");
    CHECK(rc == 0 || rc == 2, "exit %d:\n%s", rc, out);
    const char *l = strstr(out, "the GPU runs its own defaults in place of the CPU's:");
    CHECK(l, "the banner names the GPU defaults:\n%s", out);
    if (l) {
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(l, "\n"), l);
        CHECK(strstr(line, " plateau=500 (steps)") && strstr(line, " walk-len=1000000") &&
                  strstr(line, " pool-min=4"),
              "values: %s", line);
    }
    CHECK(strstr(out, " plateau=500 ") || strstr(out, " plateau=500\n"),
          "the grid shows the plateau that runs (and is recorded):\n%s", out);
    CHECK(!strstr(out, " threads=") && !strstr(out, "batch="), "no CPU-only rows in a GPU banner:\n%s", out);
    CHECK(strstr(out, " host-threads=0") && !strstr(out, "beside"), "no walkers beside by default:\n%s", out);
    CHECK(strstr(out, "launch 100 ms (each walker's clock)"), "the banner names timed launches:\n%s", out);
    rc = tc_run_cli("", out, sizeof out, "search --backend gpu --dims 2x2x2 --time 0.5s --seed 3 --host-threads 3");
    CHECK(rc == 0 || rc == 2, "exit %d:\n%s", rc, out);
    CHECK(strstr(out, "cpu: 3 walkers beside the GPU's, one per thread (plateau 20000 in 2000..200000, walk-len 1000, "
                      "walk-max 100000000)"),
          "the banner names the walkers beside and the CPU's settings they walk with:\n%s", out);
    rc = tc_run_cli("", out, sizeof out, "search --dims 2x2x2 --time 0.5s --seed 3 --host-threads 3");
    CHECK(rc == 2 && strstr(out, "--host-threads: the cpu backend does not use it (GPU only)"),
          "--host-threads on the CPU backend is refused (exit %d):\n%s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "search --backend gpu --dims 2x2x2 --time 0.5s --seed 3 --launch-ms 60001");
    CHECK(rc == 2 && strstr(out, "--launch-ms 60001: expected milliseconds in (0, 60000]"),
          "a launch over a minute is refused (exit %d):\n%s", rc, out);
    rc = tc_run_cli("", out, sizeof out, "search --backend gpu --dims 2x2x2 --time 0.5s --seed 3 --plateau 800");
    CHECK(rc == 0 || rc == 2, "exit %d:\n%s", rc, out);
    CHECK((strstr(out, " plateau=800 ") || strstr(out, " plateau=800\n")) &&
              (!strstr(out, "in place of the CPU's") || !strstr(strstr(out, "in place of the CPU's"), "plateau=")),
          "a given --plateau runs as given:\n%s", out);
}

Test(cli, search_until_record)
{
    char out[65536];
    unsigned long long seed = g_seed % 1000000007ull;
    /* <2,2,2> from the standard algorithm (8) to Strassen's 7: no time limit needed */
    int rc = tc_run_cli("", out, sizeof out, "search --dims 2x2x2 --until-record --seed %llu", seed);
    CHECK(rc == 0 && strstr(out, "best rank 7 for <2,2,2>"), "exit %d:\n%s", rc, out);
    CHECK(strstr(out, "stop: at rank <= 7 (the record)"), "the banner says when it stops:\n%s", out);
    /* with --target-rank the higher rank wins: 6 would never be reached, 7 is */
    rc = tc_run_cli("", out, sizeof out, "search --dims 2x2x2 --until-record --target-rank 6 --seed %llu", seed);
    CHECK(rc == 0 && strstr(out, "best rank 7 for <2,2,2>"), "exit %d:\n%s", rc, out);
    /* ... and a target above the record stops there (the start, 8, is already at it) */
    rc = tc_run_cli("", out, sizeof out, "search --dims=2x2x2 --target-rank=8 --until-record --seed %llu", seed);
    CHECK(rc == 0 && strstr(out, "best rank 8 for <2,2,2>"), "exit %d:\n%s", rc, out);
    /* without --until-record, rank 6 is not reached in the time: exit 1 */
    rc = tc_run_cli("", out, sizeof out, "search --dims 2x2x2 --target-rank 6 --time 0.2s -q --seed %llu", seed);
    CHECK(rc == 1 && strstr(out, "best rank 7 for <2,2,2>"), "exit %d:\n%s", rc, out);
    /* a format without a known record: exit 2, saying so, before any search */
    rc = tc_run_cli("", out, sizeof out, "search --dims 8x2x2 --until-record --time 10s");
    CHECK(rc == 2 && strstr(out, "--until-record: no known GF(2) record for <8,2,2>") && !strstr(out, "best rank"),
          "exit %d:\n%s", rc, out);
    /* <1,m,p> has one (m*p): the start is already there */
    rc = tc_run_cli("", out, sizeof out, "search --dims 1x3x4 --until-record -q");
    CHECK(rc == 0 && strstr(out, "best rank 12 for <1,3,4>"), "exit %d:\n%s", rc, out);
    CHECK(tc_run_cli("", out, sizeof out, "search --help") == 0 && strstr(out, "--until-record"), "%s", out);
}

/* --mpi: where the build has no MPI, a clear exit 2 naming why; where it has,
 * one process alone is a one-rank MPI run (Open MPI's singleton) that stores
 * like any search (tests/mpi_search.c runs three ranks under mpirun). */
Test(cli, search_mpi_without_mpirun_or_without_mpi)
{
    char ver[4096], out[65536];
    cr_assert_eq(tc_run_cli("", ver, sizeof ver, "version"), 0, "%s", ver);
    bool built = strstr(ver, "mpi: built") != NULL;
    cr_assert(built || strstr(ver, "mpi: not built"), "version says nothing of MPI:\n%s", ver);
    const char *db = tc_path_in("mpi1.db");
    /* under ASan: Open MPI's allocations for the life of the process are not ours */
    const char *src = getenv("FLIPGRAPH_SOURCE");
    char env[1024];
    snprintf(env, sizeof env, "OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1 "
             "LSAN_OPTIONS=suppressions='%s/tests/lsan_mpi.supp':print_suppressions=0:fast_unwind_on_malloc=0",
             src ? src : ".");
    int rc = tc_run_cli(env, out, sizeof out, "search --mpi --dims 2x2x2 --target-rank 7 --db '%s'", db);
    if (!built) {
        CHECK(rc == 2 && strstr(out, "flipgraph search: --mpi: this flipgraph was built without MPI"), "exit %d:\n%s",
              rc, out);
        CHECK(!tc_exists(db), "a store was made:\n%s", out);
        return;
    }
    CHECK(rc == 0 && strstr(out, "best rank 7 for <2,2,2>") && strstr(out, "mpi: 1 rank on 1 host; rank 0: "),
          "exit %d:\n%s", rc, out);
    CHECK(tc_sql_int(db, "SELECT COUNT(*) FROM schemes WHERE source = 'search@rank0'") ==
              tc_sql_int(db, "SELECT COUNT(*) FROM schemes"),
          "sources");
    /* --mpi written short is refused, not taken for a run without MPI */
    rc = tc_run_cli(env, out, sizeof out, "search --mp --dims 2x2x2 --target-rank 7");
    CHECK(rc == 2 && strstr(out, "write --mpi in full"), "exit %d:\n%s", rc, out);
    /* over Z the ranks would lose the coefficients: refused */
    rc = tc_run_cli(env, out, sizeof out, "search --mpi --ring z --dims 2x2x2 --target-rank 7");
    CHECK(rc == 2 && strstr(out, "--mpi with --ring z"), "exit %d:\n%s", rc, out);
}
