/* The store's exit codes (docs/db.md, "Exit codes") through every command
 * that writes it: a bad store is bad input (exit 2, one message naming the
 * path once), a store that fails while a search runs or ends is exit 3 with
 * what was not stored, a killed run is seen as killed and resumes, the size
 * cap and the last check's verdict hold for every writer. */
#include "test_common.h"

#include <signal.h>
#include <sqlite3.h>

#include "db/db.h"

static void make_dir(void) { tc_suite_dir_make("fg-storecli"); }
TestSuite(store_cli, .init = make_dir, .fini = tc_suite_dir_remove, .timeout = 300);

/* Runs `flipgraph ARGS` with env, stdout and stderr apart: exit code. */
static int run_split(const char *env, char *out, size_t olen, char *err, size_t elen, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int run_split(const char *env, char *out, size_t olen, char *err, size_t elen, const char *fmt, ...)
{
    char args[4096], cmd[6000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s' %s", tc_dir, env, tc_bin(), args);
    return tc_exit_code(tc_system_capture(cmd, out, olen, err, elen));
}

static int lines_of(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* A fresh store at name with one stored scheme (a verify-and-import). */
static const char *store_with_a_scheme(const char *name)
{
    const char *p = tc_path_in(name);
    char out[4096];
    int rc = tc_run_cli("", out, sizeof out, "db import --db '%s' '%s'", p,
                        tc_corpus("kauers-moosbauer/233-15-mod0.exp"));
    cr_assert_eq(rc, 0, "db import: %d\n%s", rc, out);
    return p;
}

/* The commands that open a store for writing, each short. */
static const char *const writers[] = {
    "search --dims 2x2x2 --time 1s -q --db '%s'",
    "sweep --dims-list 2x2x2 --time-per 1s --db '%s'",
    "demo --db '%s'",
};

static void expect_bad_store(const char *env, const char *path, const char *what)
{
    for (size_t i = 0; i < sizeof writers / sizeof *writers; i++) {
        char args[1200], out[8192], err[8192];
        snprintf(args, sizeof args, writers[i], path);
        int rc = run_split(env, out, sizeof out, err, sizeof err, "%s", args);
        cr_expect_eq(rc, 2, "%s (%s): exit %d\nstderr:\n%s", args, what, rc, err);
        cr_expect_eq(tc_count_of(err, path), 1, "%s (%s): the path once in one message:\n%s", args, what, err);
        cr_expect_eq(lines_of(err), 1, "%s (%s): one message:\n%s", args, what, err);
    }
}

Test(store_cli, a_missing_folder_or_a_corrupt_file_is_bad_input_for_every_writer)
{
    char missing[600];
    snprintf(missing, sizeof missing, "%s/no/such/folder/x.db", tc_dir);
    expect_bad_store("", missing, "missing folder");

    const char *junk = tc_path_in("junk.db");
    FILE *f = fopen(junk, "wb");
    cr_assert_not_null(f);
    for (int i = 0; i < 8192; i++)
        fputc((i * 7919) & 0xff, f);
    fclose(f);
    expect_bad_store("", junk, "not a database");
    /* and untouched */
    size_t len = 0;
    char *after = tc_slurp(junk, 1 << 20, &len);
    cr_assert_eq(len, 8192);
    for (int i = 0; i < 8192; i++)
        cr_assert_eq((unsigned char)after[i], (unsigned)((i * 7919) & 0xff), "byte %d changed", i);
    free(after);
}

Test(store_cli, a_read_only_store_is_bad_input_for_every_writer)
{
    const char *p = store_with_a_scheme("ro.db");
    chmod(p, 0444);
    chmod(tc_dir, 0555);
    if (geteuid() == 0) {
        /* root writes through modes: run the commands as nobody (setpriv, util-linux) */
        if (tc_system("command -v setpriv >/dev/null 2>&1 < /dev/null") != 0) {
            chmod(tc_dir, 0700);
            tc_suite_dir_remove(); /* Criterion runs no .fini after a skip */
            cr_skip_test("root, and no setpriv to run the commands as another user");
        }
        chmod(tc_dir, 0755);
        chmod(tc_dir, 0555);
        expect_bad_store("setpriv --reuid 65534 --regid 65534 --clear-groups", p, "read-only");
    } else {
        expect_bad_store("", p, "read-only");
    }
    chmod(tc_dir, 0700);
    chmod(p, 0644);
}

Test(store_cli, a_flipgraph_id_at_schema_version_0_with_tables_is_refused)
{
    const char *p = store_with_a_scheme("v0.db");
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(p, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "PRAGMA user_version = 0", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    size_t len0 = 0, len1 = 0;
    char *before = tc_slurp(p, 1 << 24, &len0);
    static const char *const cmds[] = {"db stats --db '%s'", "db list --db '%s'",
                                       "search --dims 2x2x2 --time 1s -q --db '%s'"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char args[1200], out[8192], err[8192];
        snprintf(args, sizeof args, cmds[i], p);
        int rc = run_split("", out, sizeof out, err, sizeof err, "%s", args);
        cr_expect_eq(rc, 2, "%s: exit %d\n%s", args, rc, err);
        cr_expect(strstr(err, "not a flipgraph database"), "%s: says so:\n%s", args, err);
        cr_expect(!strstr(err, "already exists"), "%s: no migration was tried:\n%s", args, err);
    }
    char *after = tc_slurp(p, 1 << 24, &len1);
    cr_expect(len0 == len1 && memcmp(before, after, len0) == 0, "the file changed");
    free(before);
    free(after);
}

Test(store_cli, merging_a_store_into_itself_is_bad_usage)
{
    const char *p = store_with_a_scheme("self.db");
    char link[600];
    snprintf(link, sizeof link, "%s/alias.db", tc_dir);
    cr_assert_eq(symlink("self.db", link), 0);
    size_t len0 = 0, len1 = 0;
    char *before = tc_slurp(p, 1 << 24, &len0);
    /* the same file by the same name, another spelling, and a link */
    static const char *const others[] = {"self.db", "./self.db", "alias.db"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        char out[8192], err[8192];
        int rc = run_split("", out, sizeof out, err, sizeof err, "db merge '%s' --db self.db", others[i]);
        cr_expect_eq(rc, 2, "merge %s into self.db: exit %d\n%s", others[i], rc, err);
        cr_expect(strstr(err, "into itself"), "merge %s: says why:\n%s", others[i], err);
    }
    char *after = tc_slurp(p, 1 << 24, &len1);
    cr_expect(len0 == len1 && memcmp(before, after, len0) == 0, "the file changed");
    free(before);
    free(after);
}

/* The status `db runs` shows for run id (a word of its row), or "" */
static void run_status(const char *db, int id, char *status, size_t len)
{
    char out[16384], err[4096];
    status[0] = 0;
    int rc = run_split("", out, sizeof out, err, sizeof err, "db runs --db '%s'", db);
    cr_assert_eq(rc, 0, "db runs: %d\n%s", rc, err);
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        int rid;
        char fmt[32], st[32];
        if (sscanf(line, "%d %31s %31s", &rid, fmt, st) == 3 && rid == id)
            snprintf(status, len, "%s", st);
    }
}

/* The number of rows of a table (sqlite3, read-only), -1 on failure. */
static long rows_of(const char *db, const char *table)
{
    sqlite3 *h;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        sqlite3_close(h);
        return -1;
    }
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    sqlite3_stmt *st;
    long n = -1;
    sqlite3_busy_timeout(h, 2000);
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return n;
}

/* Starts `flipgraph ARGS` in the background (stdout, stderr into files of the
 * suite's folder); its pid. */
static pid_t spawn(const char *env_name, const char *env_value, const char *const *argv)
{
    pid_t kid = fork();
    cr_assert_geq(kid, 0);
    if (kid == 0) {
        if (env_name)
            setenv(env_name, env_value, 1);
        int o = open(tc_path_in("bg.out"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(tc_path_in("bg.err"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || chdir(tc_dir) != 0)
            _exit(120);
        execv(tc_bin(), (char *const *)argv);
        _exit(121);
    }
    return kid;
}

/* Waits until the store holds a run and at least min_schemes schemes (20 s at most). */
static bool wait_for_rows(const char *db, long min_schemes)
{
    for (int i = 0; i < 400; i++) {
        if (rows_of(db, "runs") >= 1 && rows_of(db, "schemes") >= min_schemes)
            return true;
        usleep(50 * 1000);
    }
    return false;
}

static int wait_exit(pid_t kid)
{
    int status;
    cr_assert_eq(waitpid(kid, &status, 0), kid);
    return tc_exit_code(status);
}

Test(store_cli, a_killed_run_is_shown_killed_and_resumes)
{
    const char *db = tc_path_in("kill.db");
    const char *argv[] = {tc_bin(), "search", "--dims", "4x4x4", "--time", "120s", "-q",
                          "--db", db, NULL};
    pid_t kid = spawn(NULL, NULL, argv);
    cr_assert(wait_for_rows(db, 1), "the search stored no run and scheme in 20 s");
    char st[32];
    run_status(db, 1, st, sizeof st);
    cr_expect_str_eq(st, "running", "while its process lives, run 1 is running");
    kill(kid, SIGKILL);
    cr_assert_eq(wait_exit(kid), 128 + SIGKILL);
    run_status(db, 1, st, sizeof st);
    cr_expect_str_eq(st, "killed", "after SIGKILL, run 1 shows as killed");
    char out[8192], err[8192];
    int rc = run_split("", out, sizeof out, err, sizeof err, "db stats --db kill.db");
    cr_expect_eq(rc, 0);
    cr_expect(strstr(out, "1 killed"), "db stats counts the killed run:\n%s", out);
    /* the stored state is all there is: --resume goes on from it */
    rc = run_split("", out, sizeof out, err, sizeof err, "search --resume 1 --time 1s --db kill.db");
    cr_expect_eq(rc, 0, "--resume of a killed run: exit %d\n%s", rc, err);
    cr_expect(strstr(err, "was killed"), "says the resumed run was killed:\n%s", err);
    run_status(db, 2, st, sizeof st);
    cr_expect_str_eq(st, "finished", "the resumed run ended");
    run_status(db, 1, st, sizeof st);
    cr_expect_str_eq(st, "killed", "the killed run stays killed");
}

Test(store_cli, a_store_locked_when_the_search_stores_exits_3_and_says_what_was_lost)
{
    const char *db = tc_path_in("lock.db");
    const char *argv[] = {tc_bin(), "search", "--dims", "4x4x4", "--time", "4s", "-q",
                          "--db", db, NULL};
    pid_t kid = spawn("FLIPGRAPH_DB_BUSY_SECONDS", "1", argv);
    cr_assert(wait_for_rows(db, 1), "the search stored no run and scheme in 20 s");
    /* hold the write lock until the search is over: its last improvements and
     * the end of its run cannot be stored */
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    sqlite3_busy_timeout(h, 5000);
    cr_assert_eq(sqlite3_exec(h, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    int rc = wait_exit(kid);
    sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(h);
    size_t len;
    char *err = tc_slurp(tc_path_in("bg.err"), 1 << 20, &len);
    cr_expect_eq(rc, 3, "exit %d\n%s", rc, err);
    cr_expect(strstr(err, "NOT stored"), "says what was not stored:\n%s", err);
    cr_expect(strstr(err, "run 1"), "names the run:\n%s", err);
    free(err);
    char st[32];
    run_status(db, 1, st, sizeof st);
    cr_expect(strcmp(st, "finished") != 0, "the run's end was not stored, yet it reads %s", st);
    /* what was stored before the lock is whole */
    char out[8192], e2[8192];
    cr_expect_eq(run_split("", out, sizeof out, e2, sizeof e2, "db check --db lock.db"), 0, "%s%s", out, e2);
}

Test(store_cli, the_size_cap_holds_for_every_writer)
{
    /* a cap below what a run with its schemes needs: the writes fail, exit 3 */
    static const struct {
        const char *args;
        int code;
    } cases[] = {
        {"search --dims 4x4x4 --time 5s -q --db cap-%d.db", 3},
        {"sweep --dims-list 4x4x4 --time-per 3s --db cap-%d.db", 3},
        /* one thread: the demo's improvements (and so the free room left in
         * the store's pages, which a write may use without growing it) are
         * the same every time; with two, a run that stored fewer of them let
         * the lift fit, exit 0, once in a loaded full ctest */
        {"demo --threads 1 --db cap-%d.db", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char args[600], out[8192], err[8192];
        snprintf(args, sizeof args, cases[i].args, (int)i);
        int rc = run_split("FLIPGRAPH_DB_MAX_BYTES=45000", out, sizeof out, err, sizeof err, "%s", args);
        cr_expect_eq(rc, cases[i].code, "%s: exit %d\n%s", args, rc, err);
        cr_expect(strstr(err, "full"), "%s: says the store is full:\n%s", args, err);
    }
    /* lift --db stores the lift: refused by the cap as well */
    const char *p = store_with_a_scheme("cap-lift.db");
    char out[8192], err[8192];
    int rc = run_split("FLIPGRAPH_DB_MAX_BYTES=4096", out, sizeof out, err, sizeof err, "lift 1 --db '%s'", p);
    cr_expect_eq(rc, 3, "lift under the cap: exit %d\n%s%s", rc, out, err);
    /* a malformed cap is bad input wherever it is read */
    rc = run_split("FLIPGRAPH_DB_MAX_BYTES=lots", out, sizeof out, err, sizeof err,
                   "search --dims 2x2x2 --time 1s -q --db cap-bad.db");
    cr_expect_eq(rc, 2, "a malformed FLIPGRAPH_DB_MAX_BYTES: exit %d\n%s", rc, err);
    cr_expect(strstr(err, "FLIPGRAPH_DB_MAX_BYTES"), "names the variable:\n%s", err);
}

Test(store_cli, a_store_that_failed_its_check_warns_before_every_write)
{
    const char *p = store_with_a_scheme("checked.db");
    char out[8192], err[8192];
    /* clean: no warning */
    cr_assert_eq(run_split("", out, sizeof out, err, sizeof err, "db check --db checked.db"), 0, "%s", out);
    cr_assert_eq(run_split("", out, sizeof out, err, sizeof err, "search --dims 2x3x3 --time 1s -q --db checked.db"),
                 0, "%s", err);
    cr_expect(!strstr(err, "warning"), "a clean store gives no warning:\n%s", err);
    /* damage one row: the check finds it and records its verdict */
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(p, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "UPDATE schemes SET rank = rank + 1 WHERE id = 1", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    cr_assert_eq(run_split("", out, sizeof out, err, sizeof err, "db check --db checked.db"), 1, "%s", out);
    static const char *const cmds[] = {"search --dims 2x3x3 --time 1s -q --db checked.db",
                                       "db import --db checked.db '%s'"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char args[1200];
        snprintf(args, sizeof args, cmds[i], tc_corpus("kauers-moosbauer/223-11-mod0.exp"));
        run_split("", out, sizeof out, err, sizeof err, "%s", args);
        cr_expect(strstr(err, "warning") && strstr(err, "db check") && strstr(err, "1 problem"),
                  "%s: warns that the last check found a problem:\n%s", args, err);
    }
    /* readers are not warned: nothing is written */
    run_split("", out, sizeof out, err, sizeof err, "db list --db checked.db");
    cr_expect(!strstr(err, "warning"), "db list warns:\n%s", err);
    /* repaired and checked clean: the warning is gone */
    cr_assert_eq(sqlite3_open(p, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "UPDATE schemes SET rank = rank - 1 WHERE id = 1", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    cr_assert_eq(run_split("", out, sizeof out, err, sizeof err, "db check --db checked.db"), 0, "%s", out);
    run_split("", out, sizeof out, err, sizeof err, "search --dims 2x3x3 --time 1s -q --db checked.db");
    cr_expect(!strstr(err, "warning"), "after a clean check no warning:\n%s", err);
}
