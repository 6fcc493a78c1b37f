/* The store's exit codes hold for every command that writes it (docs/db.md,
 * "Exit codes" and "Faults it survives"): search, sweep and demo with a bad
 * --db exit 2 naming the path once; a store that fails while a run ends
 * exits 3 and says what was not stored; merging a file into itself is bad
 * usage; a file with flipgraph's application_id but schema version 0 and
 * tables is not ours; a killed run shows as killed and can be resumed; the
 * FLIPGRAPH_DB_MAX_BYTES quota holds for every writer; a store that `db
 * check` found damaged warns every writer.  Every test works in its own
 * temporary folder. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "db/db_internal.h" /* db_migrations: a file of schema version 1, as shipped */
#include "schemes/scheme.h"
#include "test_common.h"

static void make_dir(void) { tc_suite_dir_make("fg-test-store-exits"); }

TestSuite(store_exits, .init = make_dir, .fini = tc_suite_dir_remove, .timeout = 300);

static char g_out[1 << 17];
#define OUT g_out, sizeof g_out
static char *file_bytes(const char *path, size_t *len) { return tc_slurp(path, 64u << 20, len); }

static bool same_bytes(const char *path, const char *before, size_t blen)
{
    size_t len;
    char *now = file_bytes(path, &len);
    bool same = len == blen && !memcmp(now, before, len);
    free(now);
    return same;
}

/* A run row of the store at path, read-only (the writer may still be at work). */
static db_status get_run(const char *path, int64_t id, db_run_row *row)
{
    char err[1024];
    db_status st;
    db *d = db_open_ex(path, DB_OPEN_READONLY, &st, err, sizeof err);
    if (!d)
        return st;
    st = db_run_get(d, id, row, err, sizeof err);
    db_close(d);
    return st;
}

static void init_store(const char *path)
{
    cr_assert_eq(tc_run_cli("", OUT, "db init --db '%s'", path), 0, "%s", g_out);
}

/* A trigger that writes 200 kB whenever sql_event happens: under
 * FLIPGRAPH_DB_MAX_BYTES=1 (no growth) that write, and with it the
 * statement that fired it, fails with a full disk, exactly there. */
static void fill_disk_on(const char *path, const char *event)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "CREATE TABLE pad (x); CREATE TRIGGER pad_it %s BEGIN "
             "INSERT INTO pad VALUES (zeroblob(200000)); END;", event);
    tc_sql_exec(path, sql);
}
static int wait_code(pid_t pid)
{
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return tc_exit_code(status);
}

/* ---- 1. search, sweep, demo: a bad --db is bad input, said once ---- */

static void expect_bad_store(const char *path, const char *what)
{
    static const char *cmds[] = {
        "search --dims 2x2x2 --time 0.2s -q --backend cpu --db '%s'",
        "sweep --dims-list 2x2x2 --time-per 0.2s -q --backend cpu --threads 1 --db '%s'",
        "demo --size 64 --db '%s'",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char args[1024];
        snprintf(args, sizeof args, cmds[i], path);
        int rc = tc_run_cli("", OUT, "%s", args);
        cr_assert_eq(rc, 2, "%s (%s): exit 2 expected, got %d:\n%s", args, what, rc, g_out);
        cr_assert_eq(tc_count_of(g_out, path), 1, "%s (%s): the path once in the message:\n%s", args,
                     what, g_out);
        cr_assert(strstr(g_out, what), "%s: '%s' expected in:\n%s", args, what, g_out);
    }
}

Test(store_exits, search_sweep_demo_refuse_a_bad_store_with_exit_2)
{
    /* a missing folder */
    expect_bad_store(tc_path_in("no/such/dir/x.db"), "folder does not exist");
    /* a corrupt file: SQLite's header is whole, the schema page is not */
    const char *c = tc_path_in("corrupt.db");
    cr_assert_eq(tc_run_cli("", OUT, "db import --db '%s' '%s'", c,
                            tc_corpus("kauers-moosbauer/223-11-mod0.exp")), 0, "%s", g_out);
    int fd = open(c, O_WRONLY);
    char junk[3996];
    memset(junk, 0xa5, sizeof junk);
    cr_assert_eq(pwrite(fd, junk, sizeof junk, 100), (ssize_t)sizeof junk);
    close(fd);
    expect_bad_store(c, "corrupt");

    /* read-only: a file and folder uid 65534 may not write (root is not stopped by modes) */
    const char *ro = tc_path_in("ro/ro.db"), *outp = tc_path_in("ro.out");
    mkdir(tc_path_in("ro"), 0755);
    init_store(ro);
    chmod(ro, 0444);
    chmod(tc_path_in("ro"), 0555);
    chmod(tc_dir, 0755);
    char *argv[][16] = {
        {(char *)tc_bin(), "search", "--dims", "2x2x2", "--time", "0.2s", "-q", "--db", (char *)ro, NULL},
        {(char *)tc_bin(), "sweep", "--dims-list", "2x2x2", "--time-per", "0.2s", "-q", "--threads", "1",
         "--backend", "cpu", "--db", (char *)ro, NULL},
        {(char *)tc_bin(), "demo", "--size", "64", "--db", (char *)ro, NULL},
    };
    for (int i = 0; i < 3; i++) {
        int rc = wait_code(tc_spawn_logged(outp, argv[i], true));
        char *out = tc_slurp(outp, 1 << 20, NULL);
        if (rc == 77 || rc == 121) {
            free(out);
            chmod(tc_path_in("ro"), 0755);
            cr_skip_test("cannot run flipgraph as uid 65534 here (%d)", rc);
        }
        cr_assert_eq(rc, 2, "%s as uid 65534 on a read-only store: exit 2, got %d:\n%s", argv[i][1],
                     rc, out);
        cr_assert(strstr(out, "read-only") && tc_count_of(out, ro) == 1, "%s:\n%s", argv[i][1], out);
        free(out);
    }
    chmod(tc_path_in("ro"), 0755);
    chmod(ro, 0644);
    chmod(tc_dir, 0700);
}

/* ---- 2. a store that fails when a run ends: exit 3, saying what was not stored ---- */

Test(store_exits, a_store_failing_at_the_end_of_a_run_exits_3)
{
    /* search: the end record cannot be written */
    const char *s = tc_path_in("s.db");
    init_store(s);
    fill_disk_on(s, "AFTER UPDATE OF ended ON runs WHEN NEW.ended IS NOT NULL");
    int rc = tc_run_cli("FLIPGRAPH_DB_MAX_BYTES=1", OUT,
                        "search --dims 2x2x2 --time 0.5s -q --backend cpu --seed 3 --db '%s'", s);
    cr_assert_eq(rc, 3, "search whose end was not stored: exit 3, got %d:\n%s", rc, g_out);
    cr_assert(strstr(g_out, "end of run 1") && strstr(g_out, "NOT stored") && strstr(g_out, "full"),
              "%s", g_out);
    db_run_row r;
    cr_assert_eq(get_run(s, 1, &r), DB_OK);
    cr_assert_str_eq(r.status, "running"); /* what the store kept: the process is gone */
    cr_assert_str_eq(r.effective, "killed");
    cr_assert_eq(tc_sql_int(s, "SELECT count(*) FROM schemes WHERE run_id = 1"), 1,
                 "the rank-7 scheme stored on the way stays");

    /* search: an improvement cannot be stored; the message names it */
    const char *t = tc_path_in("t.db");
    init_store(t);
    fill_disk_on(t, "AFTER INSERT ON schemes");
    rc = tc_run_cli("FLIPGRAPH_DB_MAX_BYTES=1", OUT,
                    "search --dims 2x2x2 --time 5s -q --backend cpu --seed 3 --db '%s'", t);
    cr_assert_eq(rc, 3, "search whose improvement was not stored: exit 3, got %d:\n%s", rc, g_out);
    cr_assert(strstr(g_out, "<2,2,2> rank-7 scheme") && strstr(g_out, "NOT stored"), "%s", g_out);
    cr_assert_eq(tc_sql_int(t, "SELECT count(*) FROM schemes"), 0);

    /* sweep: the end record of its run */
    const char *w = tc_path_in("w.db");
    init_store(w);
    fill_disk_on(w, "AFTER UPDATE OF ended ON runs WHEN NEW.ended IS NOT NULL");
    rc = tc_run_cli("FLIPGRAPH_DB_MAX_BYTES=1", OUT,
                    "sweep --dims-list 2x2x2 --time-per 0.3s -q --backend cpu --threads 1 --seed 3 "
                    "--db '%s'", w);
    cr_assert_eq(rc, 3, "sweep whose end was not stored: exit 3, got %d:\n%s", rc, g_out);
    cr_assert(strstr(g_out, "end of run 1") && strstr(g_out, "NOT stored"), "%s", g_out);
    cr_assert_eq(get_run(w, 1, &r), DB_OK);
    cr_assert(r.pid > 0 && r.heartbeat[0], "sweep records its process and heartbeat");

    /* demo: the same */
    const char *m = tc_path_in("m.db");
    init_store(m);
    fill_disk_on(m, "AFTER UPDATE OF ended ON runs WHEN NEW.ended IS NOT NULL");
    rc = tc_run_cli("FLIPGRAPH_DB_MAX_BYTES=1", OUT, "demo --size 64 --db '%s'", m);
    cr_assert_eq(rc, 3, "demo whose end was not stored: exit 3, got %d:\n%s", rc, g_out);
    cr_assert(strstr(g_out, "end of run 1") && strstr(g_out, "NOT stored"), "%s", g_out);
    cr_assert_eq(get_run(m, 1, &r), DB_OK);
    cr_assert(r.pid > 0 && r.heartbeat[0], "demo records its process and heartbeat");
    cr_assert_str_eq(r.effective, "killed");
}

/* ---- 3. merging a database into itself ---- */

Test(store_exits, merge_into_itself_is_bad_usage_and_changes_nothing)
{
    const char *a = tc_path_in("a.db");
    cr_assert_eq(tc_run_cli("", OUT, "db import --db '%s' '%s'", a,
                            tc_corpus("kauers-moosbauer/223-11-mod0.exp")), 0, "%s", g_out);
    size_t len;
    char *before = file_bytes(a, &len);
    /* the same file by another name: a symbolic link, and a path through the folder */
    cr_assert_eq(symlink(a, tc_path_in("link.db")), 0, "%s", strerror(errno));
    const char *others[] = {a, tc_path_in("link.db"), tc_fmt("%s/./a.db", tc_dir)};
    for (int i = 0; i < 3; i++) {
        char other[600];
        snprintf(other, sizeof other, "%s", others[i]);
        int rc = tc_run_cli("", OUT, "db merge '%s' --db '%s'", other, a);
        cr_assert_eq(rc, 2, "merge %s into %s: exit 2, got %d:\n%s", other, a, rc, g_out);
        cr_assert(strstr(g_out, "same file") && strstr(g_out, "into itself"), "%s", g_out);
        cr_assert(same_bytes(a, before, len), "merging %s into itself changed the file", other);
    }
    free(before);
    /* the API says the same */
    char err[1024];
    db_status st;
    db *d = db_open(a, false, &st, err, sizeof err);
    cr_assert_not_null(d, "%s", err);
    db_merge_report rep;
    cr_assert_eq(db_merge(d, tc_path_in("link.db"), NULL, NULL, &rep, err, sizeof err), DB_MISUSE);
    cr_assert_eq(rep.schemes_added + rep.runs_added, 0);
    db_close(d);
}

/* ---- 4. flipgraph's application_id, schema version 0, tables ---- */

Test(store_exits, application_id_with_version_0_and_tables_is_not_ours)
{
    const char *p = tc_path_in("v0.db");
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d; CREATE TABLE runs (x);",
             DB_APPLICATION_ID);
    tc_sql_exec(p, sql);
    size_t len;
    char *before = file_bytes(p, &len);
    char err[1024];
    db_status st;
    db *d = db_open(p, true, &st, err, sizeof err);
    cr_assert_null(d);
    cr_assert_eq(st, DB_NOT_FLIPGRAPH, "status %d: %s", st, err);
    cr_assert(strstr(err, "not a flipgraph database") && strstr(err, "schema version 0") &&
              strstr(err, "tables"), "%s", err);
    static const char *cmds[] = {"db init --db '%s'", "db list --db '%s'",
                                 "search --dims 2x2x2 --time 0.2s -q --db '%s'"};
    for (int i = 0; i < 3; i++) {
        char args[1024];
        snprintf(args, sizeof args, cmds[i], p);
        int rc = tc_run_cli("", OUT, "%s", args);
        cr_assert_eq(rc, 2, "%s: exit 2, got %d:\n%s", args, rc, g_out);
        cr_assert(strstr(g_out, "not a flipgraph database") && !strstr(g_out, "already exists"),
                  "%s:\n%s", args, g_out);
        cr_assert_eq(tc_count_of(g_out, p), 1, "%s", g_out);
    }
    cr_assert(same_bytes(p, before, len), "the refused file was changed");
    free(before);
}

/* ---- 5. a killed run ---- */

Test(store_exits, a_killed_search_shows_killed_and_resumes)
{
    const char *p = tc_path_in("k.db"), *outp = tc_path_in("k.out");
    char *const argv[] = {(char *)tc_bin(), "search", "--dims", "4x4x4", "--time", "10m",
                          "--threads", "1", "--backend", "cpu", "--progress", "0", "-q",
                          "--db", (char *)p, NULL};
    pid_t pid = tc_spawn_logged(outp, argv, false);
    db_run_row r;
    bool seen = false;
    for (int i = 0; i < 600 && !seen; i++) { /* until its run row holds a stored scheme */
        struct timespec ts = {0, 50 * 1000000};
        nanosleep(&ts, NULL);
        seen = tc_exists(p) && get_run(p, 1, &r) == DB_OK && r.schemes > 0;
    }
    if (!seen)
        kill(pid, SIGKILL);
    cr_assert(seen, "the search recorded no run with a scheme within 30 s");
    cr_assert_eq(r.pid, (int64_t)pid, "the run row names its process");
    cr_assert(r.pid_start > 0 && r.heartbeat[0] && r.heartbeat_age >= 0 && r.heartbeat_age < 60,
              "pid start %lld, heartbeat '%s' (%.1f s)", (long long)r.pid_start, r.heartbeat,
              r.heartbeat_age);
    cr_assert_str_eq(r.effective, "running");
    kill(pid, SIGKILL);
    cr_assert_eq(wait_code(pid), 128 + SIGKILL);

    cr_assert_eq(get_run(p, 1, &r), DB_OK);
    cr_assert_str_eq(r.status, "running");
    cr_assert_str_eq(r.effective, "killed");
    int rc = tc_run_cli("", OUT, "db runs --db '%s'", p);
    cr_assert_eq(rc, 0, "%s", g_out);
    cr_assert(strstr(g_out, " killed ") && !strstr(g_out, " running "), "%s", g_out);
    rc = tc_run_cli("", OUT, "db stats --db '%s'", p);
    cr_assert(rc == 0 && strstr(g_out, "(0 running, 1 killed)"), "%s", g_out);

    int best = r.best_rank;
    rc = tc_run_cli("", OUT, "search --resume 1 --db '%s' --time 1s", p);
    cr_assert_eq(rc, 0, "resume of a killed run: exit %d:\n%s", rc, g_out);
    cr_assert(strstr(g_out, "run 1 was killed") && strstr(g_out, "resuming run 1 as run 2"), "%s",
              g_out);
    cr_assert_eq(get_run(p, 2, &r), DB_OK);
    cr_assert_str_eq(r.effective, "finished");
    cr_assert(r.best_rank > 0 && r.best_rank <= best, "run 2 starts from run 1's best %d: %d", best,
              r.best_rank);
    rc = tc_run_cli("", OUT, "db check --db '%s'", p);
    cr_assert_eq(rc, 0, "%s", g_out);
}

Test(store_exits, run_liveness_at_the_api)
{
    char host[128];
    gethostname(host, sizeof host);
    db_run_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.status, sizeof r.status, "running");
    snprintf(r.host, sizeof r.host, "%s", host);
    r.heartbeat_age = -1;
    r.pid = getpid();
    cr_assert(!db_run_gone(&r), "this very process is alive");
    r.pid_start = 1; /* our pid, but a process that started at another time: reused */
    cr_assert(db_run_gone(&r));
    r.pid_start = 0;
    pid_t kid = fork();
    if (kid == 0)
        _exit(0);
    waitpid(kid, NULL, 0);
    r.pid = kid; /* reaped: no such process (unless reused at once, then alive: not asserted) */
    if (kill(kid, 0) != 0)
        cr_assert(db_run_gone(&r));
    snprintf(r.status, sizeof r.status, "finished");
    cr_assert(!db_run_gone(&r), "only running rows can be killed");
    snprintf(r.status, sizeof r.status, "running");
    snprintf(r.host, sizeof r.host, "not-%.100s", host); /* another host: the heartbeat decides */
    r.heartbeat_age = DB_RUN_STALE_SECONDS - 10;
    cr_assert(!db_run_gone(&r));
    r.heartbeat_age = DB_RUN_STALE_SECONDS + 10;
    cr_assert(db_run_gone(&r));
    r.heartbeat_age = -1; /* schema 1: nothing to tell by */
    r.pid = 0;
    cr_assert(!db_run_gone(&r));

    /* progress moves the heartbeat */
    char err[1024];
    db_status st;
    db *d = db_open(tc_path_in("hb.db"), true, &st, err, sizeof err);
    cr_assert_not_null(d, "%s", err);
    db_run_info info = {{2, 2, 2}, "", 1, "cpu", "", NULL};
    int64_t id;
    cr_assert_eq(db_run_begin(d, &info, &id, err, sizeof err), DB_OK, "%s", err);
    cr_assert_eq(db_run_get(d, id, &r, err, sizeof err), DB_OK);
    char first[32];
    snprintf(first, sizeof first, "%s", r.heartbeat);
    cr_assert(first[0] && r.pid == getpid() && !strcmp(r.effective, "running"));
    struct timespec ts = {0, 20 * 1000000};
    nanosleep(&ts, NULL);
    cr_assert_eq(db_run_progress(d, id, 1000, 7, err, sizeof err), DB_OK, "%s", err);
    cr_assert_eq(db_run_get(d, id, &r, err, sizeof err), DB_OK);
    cr_assert(strcmp(r.heartbeat, first) > 0, "heartbeat %s after %s", r.heartbeat, first);
    db_close(d);
}

/* A store of schema version 1, as flipgraph wrote it before the liveness
 * columns: read-only it is read as it is, opened to write it is migrated. */
Test(store_exits, schema_1_files_are_read_and_migrated)
{
    const char *p = tc_path_in("v1.db");
    char sql[20000];
    snprintf(sql, sizeof sql,
             "BEGIN; %s INSERT INTO runs (uid, n, m, p, params, seed, backend, device, host, "
             "version, started, status) VALUES ('00112233445566778899aabbccddeeff', 2, 2, 2, "
             "'dims=2x2x2', 1, 'cpu', '', 'elsewhere', 'old', '2020-01-01T00:00:00.000Z', "
             "'running'); PRAGMA user_version = 1; PRAGMA application_id = %d; COMMIT;",
             db_migrations[0].sql, DB_APPLICATION_ID);
    tc_sql_exec(p, sql);
    char err[1024];
    db_status st;
    db *d = db_open_ex(p, DB_OPEN_READONLY, &st, err, sizeof err);
    cr_assert_not_null(d, "a schema-1 file read-only: %s", err);
    cr_assert_eq(db_schema_version(d), 1);
    db_run_row r;
    cr_assert_eq(db_run_get(d, 1, &r, err, sizeof err), DB_OK, "%s", err);
    cr_assert(r.pid == 0 && !r.heartbeat[0] && !strcmp(r.effective, "running"),
              "no pid, no heartbeat: taken as alive");
    db_close(d);
    cr_assert_eq(tc_sql_int(p, "PRAGMA user_version"), 1, "a read-only open migrated nothing");
    /* merging it into a new store works from the read-only handle */
    const char *n = tc_path_in("n.db");
    cr_assert_eq(tc_run_cli("", OUT, "db merge '%s' --db '%s'", p, n), 0, "%s", g_out);
    cr_assert(strstr(g_out, "runs: 1 added"), "%s", g_out);
    /* opened to write: migrated, the row kept */
    cr_assert_eq(tc_run_cli("", OUT, "db init --db '%s'", p), 0, "%s", g_out);
    cr_assert(strstr(g_out, "schema version 2"), "%s", g_out);
    cr_assert_eq(tc_sql_int(p, "SELECT count(*) FROM runs WHERE uid = '00112233445566778899aabbccddeeff'"
                            " AND pid IS NULL"), 1);
    cr_assert_eq(tc_sql_int(p, "SELECT count(*) FROM checks"), 0);
}

/* ---- 6. FLIPGRAPH_DB_MAX_BYTES for every writer ---- */

static void expect_full(const char *env, const char *what, const char *fmt, const char *path)
{
    char args[2048];
    snprintf(args, sizeof args, fmt, path);
    int rc = tc_run_cli(env, OUT, "%s", args);
    cr_assert_eq(rc, 3, "%s under %s: exit 3 expected, got %d:\n%s", what, env, rc, g_out);
    cr_assert(strstr(g_out, "full"), "%s: %s", what, g_out);
    rc = tc_run_cli("", OUT, "db check --db '%s'", path);
    cr_assert_eq(rc, 0, "%s: the store after the full disk: %s", what, g_out);
}

Test(store_exits, the_size_limit_holds_for_every_writer)
{
    const char *env = "FLIPGRAPH_DB_MAX_BYTES=1"; /* no growth past the size at opening */
    const char *p = tc_path_in("q.db");
    init_store(p);
    expect_full(env, "search", "search --dims 4x4x4 --time 20s -q --backend cpu --threads 1 "
                               "--progress 0 --db '%s'", p);
    expect_full(env, "sweep", "sweep --dims-list 4x4x4 --time-per 20s -q --backend cpu "
                              "--threads 1 --db '%s'", p);
    expect_full(env, "db import", tc_fmt("db import --db '%%s' '%s' '%s'",
                                         tc_corpus("kauers-moosbauer/555-95-mod2.exp"),
                                         tc_corpus("kauers-moosbauer/556-116-mod2.exp")), p);
    expect_full(env, "lift --db", tc_fmt("lift '%s' --db '%%s' -o '%s'",
                                         tc_corpus("kauers-moosbauer/334-29-mod0.exp"),
                                         tc_path_in("lifted.txt")), p);
    /* merge: another store with more than fits */
    const char *big = tc_path_in("big.db");
    cr_assert_eq(tc_run_cli("", OUT, "db import --db '%s' '%s' '%s'", big,
                            tc_corpus("kauers-moosbauer/555-97-mod0.exp"),
                            tc_corpus("kauers-moosbauer/456-93-mod2.exp")), 0, "%s", g_out);
    expect_full(env, "db merge", tc_fmt("db merge '%s' --db '%%s'", big), p);
    /* demo: its search stores a few schemes of <3,3,3>, its lift a bigger one over Z */
    expect_full(env, "demo", "demo --size 64 --db '%s'", p);
    /* without the limit the same store takes them */
    cr_assert_eq(tc_run_cli("", OUT, "db merge '%s' --db '%s'", big, p), 0, "%s", g_out);
    /* a malformed limit is bad usage, for a writer of any command */
    int rc = tc_run_cli("FLIPGRAPH_DB_MAX_BYTES=lots", OUT,
                        "search --dims 2x2x2 --time 0.2s -q --db '%s'", p);
    cr_assert_eq(rc, 2, "%s", g_out);
    cr_assert(strstr(g_out, "FLIPGRAPH_DB_MAX_BYTES"), "%s", g_out);

    /* at the API: db_open_ex applies it to writable handles */
    setenv("FLIPGRAPH_DB_MAX_BYTES", "1", 1);
    char err[1024];
    db_status st;
    db *d = db_open(p, false, &st, err, sizeof err);
    cr_assert_not_null(d, "%s", err);
    scheme_diag dg;
    memset(&dg, 0, sizeof dg);
    scheme *s = scheme_read_file(tc_corpus("kauers-moosbauer/556-116-mod2.exp"), NULL, &dg);
    cr_assert_not_null(s, "%s", dg.msg);
    int64_t id;
    bool existed;
    st = db_insert_scheme(d, s, NULL, &id, &existed, err, sizeof err);
    unsetenv("FLIPGRAPH_DB_MAX_BYTES");
    cr_assert_eq(st, DB_FULL, "status %d: %s", st, err);
    db_close(d);
    d = db_open(p, false, &st, err, sizeof err);
    cr_assert_eq(db_insert_scheme(d, s, NULL, &id, &existed, err, sizeof err), DB_OK, "%s", err);
    db_close(d);
    scheme_free(s);
}

/* ---- 7. a store that `db check` found damaged ---- */

static char g_warn[4096];
static int g_warnings;

static void catch_warning(void *ctx, const char *msg)
{
    (void)ctx;
    g_warnings++;
    snprintf(g_warn, sizeof g_warn, "%s", msg);
}

Test(store_exits, a_damaged_store_warns_every_writer_until_checked_clean)
{
    const char *p = tc_path_in("dmg.db");
    cr_assert_eq(tc_run_cli("", OUT, "db import --db '%s' '%s' '%s'", p,
                            tc_corpus("kauers-moosbauer/223-11-mod0.exp"),
                            tc_corpus("kauers-moosbauer/444-47-mod2.exp")), 0, "%s", g_out);
    /* a row changed behind the store's back: its hash no longer matches */
    tc_sql_exec(p, "UPDATE schemes SET hash = '0123456789abcdef' WHERE id = 1");
    int rc = tc_run_cli("", OUT, "db check --db '%s'", p);
    cr_assert_eq(rc, 1, "%s", g_out);
    cr_assert_eq(tc_sql_int(p, "SELECT problems FROM checks"), 1, "the verdict is recorded");
    rc = tc_run_cli("", OUT, "db stats --db '%s'", p);
    cr_assert(rc == 0 && strstr(g_out, "1 problem found"), "%s", g_out);
    /* every writer warns, once, naming the path and the verdict */
    const char *writers[] = {
        tc_fmt("db import --db '%s' '%s'", p, tc_corpus("kauers-moosbauer/233-15-mod0.exp")),
        tc_fmt("search --dims 2x2x2 --time 0.2s -q --backend cpu --db '%s'", p),
        tc_fmt("sweep --dims-list 2x2x2 --time-per 0.2s -q --backend cpu --threads 1 --db '%s'", p),
    };
    char cmds[3][2048];
    for (int i = 0; i < 3; i++)
        snprintf(cmds[i], sizeof cmds[i], "%s", writers[i]);
    for (int i = 0; i < 3; i++) {
        rc = tc_run_cli("", OUT, "%s", cmds[i]);
        cr_assert(rc == 0 || rc == 1, "%s: %d\n%s", cmds[i], rc, g_out);
        cr_assert_eq(tc_count_of(g_out, "warning: "), 1, "%s:\n%s", cmds[i], g_out);
        cr_assert(strstr(g_out, tc_fmt("warning: %s: the last `flipgraph db check` (", p)) &&
                  strstr(g_out, "found 1 problem; writing anyway"), "%s:\n%s", cmds[i], g_out);
    }
    /* readers do not warn */
    rc = tc_run_cli("", OUT, "db list --db '%s'", p);
    cr_assert(rc == 0 && !strstr(g_out, "warning"), "%s", g_out);
    /* the API: through the handler, on opens for writing only */
    db_set_warning_handler(catch_warning, NULL);
    char err[1024];
    db_status st;
    db_close(db_open_ex(p, DB_OPEN_READONLY, &st, err, sizeof err));
    db_close(db_open_ex(p, 0, &st, err, sizeof err));
    cr_assert_eq(g_warnings, 0);
    db_close(db_open(p, false, &st, err, sizeof err));
    cr_assert_eq(g_warnings, 1);
    cr_assert(strstr(g_warn, p) && strstr(g_warn, "found 1 problem"), "%s", g_warn);
    db_set_warning_handler(NULL, NULL);

    /* repaired (the damaged row and its reduction mod 2 dropped) and checked clean: the
     * verdict is cleared, the warnings stop */
    tc_sql_exec(p, "DELETE FROM schemes WHERE parent_id = 1; DELETE FROM schemes WHERE id = 1");
    rc = tc_run_cli("", OUT, "db check --db '%s'", p);
    cr_assert_eq(rc, 0, "%s", g_out);
    cr_assert_eq(tc_sql_int(p, "SELECT count(*) FROM checks"), 0);
    rc = tc_run_cli("", OUT, "%s", cmds[0]);
    cr_assert(rc == 0 && !strstr(g_out, "warning"), "%s", g_out);

    /* a verdict that cannot be recorded: db check says so */
    tc_sql_exec(p, "UPDATE schemes SET hash = '0123456789abcdef' WHERE id = 3;"
                "CREATE TRIGGER no_verdict BEFORE INSERT ON checks BEGIN "
                "SELECT RAISE(ABORT, 'the disk refused it'); END;");
    rc = tc_run_cli("", OUT, "db check --db '%s'", p);
    cr_assert_eq(rc, 1, "%s", g_out);
    cr_assert(strstr(g_out, "verdict could not be recorded") && strstr(g_out, "refused it"), "%s",
              g_out);
}
