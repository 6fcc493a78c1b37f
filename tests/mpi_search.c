/* The MPI search (docs/cluster.md) through mpirun: `mpirun -n 3
 * --oversubscribe flipgraph search --mpi` (with --allow-run-as-root as root,
 * CI's case).  Built and registered only where CMake found MPI
 * (CMakeLists.txt), with FLIPGRAPH_MPIEXEC naming mpirun.
 *
 * What is checked, in the store rank 0 keeps: a <3,3,3> search to 23 and a
 * short <4,4,4> run end as the single-process search does; every improvement
 * is stored once (the run's log strictly decreasing, one scheme of the run
 * per logged rank, the canonical hash unique), each naming the MPI rank whose
 * walker found it, as rank 0's -v lines say, and in the <4,4,4> runs some
 * from the worker ranks; the run record lists the three ranks; SIGINT to
 * mpirun ends the run "interrupted" with its schemes; a worker killed with
 * SIGKILL mid-run loses nothing stored (every scheme stored before the kill
 * is there after, `db check` passes); --resume goes on from an MPI run. */
#include "test_common.h"

#include <sqlite3.h>

static void make_dir(void) { tc_suite_dir_make("fg-mpi"); }
TestSuite(mpi, .init = make_dir, .fini = tc_suite_dir_remove, .timeout = 600);

static const char *mpiexec(void)
{
    const char *m = getenv("FLIPGRAPH_MPIEXEC");
    cr_assert(m && *m, "FLIPGRAPH_MPIEXEC is not set (CMakeLists.txt sets it where MPI was found)");
    return m;
}

/* "mpirun -n 3 --oversubscribe [--allow-run-as-root] flipgraph search --mpi" */
static const char *mpi_prefix(int ranks)
{
    static char b[1024];
    snprintf(b, sizeof b, "'%s' -n %d --oversubscribe %s '%s' search --mpi", mpiexec(), ranks,
             geteuid() == 0 ? "--allow-run-as-root" : "", tc_bin());
    return b;
}

/* Runs the MPI search with args; stdout and stderr together into out. */
static int run_mpi(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int run_mpi(char *out, size_t len, const char *fmt, ...)
{
    char args[4096], cmd[8000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s %s 2>&1", tc_dir, mpi_prefix(3), args);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    size_t n = fread(out, 1, len - 1, f);
    out[n] = 0;
    while (fgetc(f) != EOF)
        ;
    return tc_exit_code(pclose(f));
}

/* The rows of sql (read-only), columns joined by '|', one per line, into out. */
static int sql_rows(const char *db, const char *sql, char *out, size_t len)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
    size_t at = 0;
    int rows = 0;
    out[0] = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const unsigned char *t = sqlite3_column_text(st, c);
            at += (size_t)snprintf(out + at, len - at, "%s%s", c ? "|" : "", t ? (const char *)t : "");
            cr_assert_lt(at, len);
        }
        at += (size_t)snprintf(out + at, len - at, "\n");
        cr_assert_lt(at, len);
        rows++;
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return rows;
}

/* The checks every finished MPI run's store passes: one scheme of the run per
 * logged improvement, strictly decreasing, each named after a rank 0..2 and
 * that rank as rank 0's -v line for it says; the record lists the ranks.
 * Returns how many improvements came from the worker ranks. */
static int check_run(const char *db, int64_t run, const char *log, int want_best)
{
    char rows[65536], q[512];
    snprintf(q, sizeof q, "SELECT status, best_rank, device, backend FROM runs WHERE id = %lld", (long long)run);
    cr_assert_eq(sql_rows(db, q, rows, sizeof rows), 1);
    cr_assert(strstr(rows, "mpi: 3 ranks on 1 host; rank 0: ") && strstr(rows, "; rank 1: ") &&
                  strstr(rows, "; rank 2: ") && strstr(rows, "|cpu\n"),
              "the record lists the ranks, hosts and devices: %s", rows);
    if (want_best > 0) {
        char w[64];
        snprintf(w, sizeof w, "finished|%d|", want_best);
        cr_assert(!strncmp(rows, w, strlen(w)), "want %s: %s", w, rows);
    }
    /* the improvement log: strictly decreasing ranks */
    snprintf(q, sizeof q, "SELECT rank FROM improvements WHERE run_id = %lld ORDER BY seconds, rowid", (long long)run);
    int n = sql_rows(db, q, rows, sizeof rows);
    cr_assert_gt(n, 0, "no improvement logged");
    int last = 1 << 30, workers = 0;
    for (char *line = rows, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        *nl = 0;
        int r = atoi(line);
        cr_assert_lt(r, last, "the log is not strictly decreasing at %d", r);
        last = r;
        /* exactly one scheme of this run at that rank, from a rank 0..2 */
        char one[1024];
        snprintf(q, sizeof q, "SELECT source, hash FROM schemes WHERE run_id = %lld AND rank = %d", (long long)run, r);
        cr_assert_eq(sql_rows(db, q, one, sizeof one), 1, "rank %d: %s", r, one);
        int node = -1;
        cr_assert_eq(sscanf(one, "search@rank%d|", &node), 1, "source of rank %d: %s", r, one);
        cr_assert(node >= 0 && node < 3, "%s", one);
        workers += node > 0;
        /* rank 0's -v line for it names the same rank */
        char line_v[128];
        snprintf(line_v, sizeof line_v, "improved: rank %d (MPI rank %d's walker ", r, node);
        cr_assert(strstr(log, line_v), "no '%s' in rank 0's log:\n%.3000s", line_v, log);
    }
    /* no scheme of the run besides the logged improvements (stored once each) */
    snprintf(q, sizeof q, "SELECT COUNT(*) FROM schemes WHERE run_id = %lld", (long long)run);
    cr_assert_eq(tc_sql_int(db, q), n);
    char out[4096];
    int rc = tc_run_cli("", out, sizeof out, "db check --db '%s'", db);
    cr_assert_eq(rc, 0, "db check: %s", out);
    return workers;
}

Test(mpi, reaches_23_on_333)
{
    const char *db = tc_path_in("333.db");
    static char out[1 << 16];
    int rc = run_mpi(out, sizeof out, "--dims 3x3x3 --target-rank 23 --time 5m -v --progress 0 --db '%s'", db);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "best rank 23 for <3,3,3>"), "%s", out);
    check_run(db, 1, out, 23);
}

Test(mpi, short_444_runs_store_each_improvement_once)
{
    const char *db = tc_path_in("444.db");
    static char out[1 << 17];
    int workers = 0;
    /* two short runs into one store: the second's starts are fresh, its
     * improvements its own (the store keeps a scheme once, whatever run) */
    for (int run = 1; run <= 2; run++) {
        int rc = run_mpi(out, sizeof out, "--dims 4x4x4 --time 4s -v --progress 1 --db '%s'", db);
        cr_assert_eq(rc, 0, "run %d: exit %d:\n%s", run, rc, out);
        cr_assert(strstr(out, "best rank "), "%s", out);
        /* the progress rows count the walkers of every rank */
        cr_assert(strstr(out, "        3 "), "no row with 3 walkers:\n%.3000s", out);
        workers += check_run(db, run, out, 0);
    }
    cr_assert_eq(tc_sql_int(db, "SELECT COUNT(*) - COUNT(DISTINCT hash) FROM schemes"), 0);
    /* some improvement came from a worker rank: they walk and rank 0 hears them */
    cr_assert_gt(workers, 0, "every improvement of two <4,4,4> runs came from rank 0");
}

/* mpirun started in its own process group, stdout and stderr into logp. */
static pid_t spawn_mpi(const char *logp, const char *args)
{
    char cmd[8000];
    snprintf(cmd, sizeof cmd, "cd '%s' && exec %s %s", tc_dir, mpi_prefix(3), args);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            _exit(120);
        dup2(fd, 1);
        dup2(fd, 2);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(121);
    }
    return pid;
}

/* Waits for pid up to seconds; its exit code (tc_exit_code), -1 on timeout. */
static int wait_for(pid_t pid, double seconds)
{
    for (int i = 0; i < (int)(seconds * 20); i++) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            return tc_exit_code(st);
        usleep(50000);
    }
    return -1;
}

/* Waits until run 1 of db has stored at least n schemes (up to 60 s). */
static void wait_stored(const char *db, int n)
{
    for (int i = 0; i < 1200; i++) {
        if (tc_exists(db)) {
            sqlite3 *h;
            if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
                sqlite3_busy_timeout(h, 1000);
                sqlite3_stmt *st;
                int have = 0;
                if (sqlite3_prepare_v2(h, "SELECT COUNT(*) FROM schemes WHERE run_id = 1", -1, &st, NULL) == SQLITE_OK) {
                    if (sqlite3_step(st) == SQLITE_ROW)
                        have = sqlite3_column_int(st, 0);
                    sqlite3_finalize(st);
                }
                sqlite3_close(h);
                if (have >= n)
                    return;
            }
        }
        usleep(50000);
    }
    cr_assert_fail("run 1 never stored %d schemes", n);
}

Test(mpi, sigint_to_mpirun_drains_and_stores)
{
    const char *db = tc_path_in("int.db"), *logp = tc_path_in("int.log");
    char args[1024];
    snprintf(args, sizeof args, "--dims 4x4x4 --time 10m --progress 1 --db '%s'", db);
    pid_t pid = spawn_mpi(logp, args);
    wait_stored(db, 4);
    kill(pid, SIGINT);
    int rc = wait_for(pid, 60);
    if (rc < 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    char *log = tc_slurp(logp, 1 << 20, NULL);
    cr_assert_geq(rc, 0, "mpirun did not end after SIGINT:\n%s", log);
    cr_assert(strstr(log, "flipgraph search: interrupted") && strstr(log, "best rank "), "%s", log);
    char rows[4096];
    cr_assert_eq(sql_rows(db, "SELECT status FROM runs WHERE id = 1", rows, sizeof rows), 1);
    cr_assert_str_eq(rows, "interrupted\n", "%s", log);
    /* what it stored: the improvements, once each */
    cr_assert_eq(tc_sql_int(db, "SELECT COUNT(*) FROM schemes WHERE run_id = 1"),
                 tc_sql_int(db, "SELECT COUNT(*) FROM improvements WHERE run_id = 1"));
    cr_assert_eq(tc_sql_int(db, "SELECT MIN(rank) FROM schemes"), tc_sql_int(db, "SELECT best_rank FROM runs"));
    free(log);

    /* --resume on the MPI run: a new MPI run from its best stored scheme */
    static char out[1 << 16];
    int best = (int)tc_sql_int(db, "SELECT best_rank FROM runs WHERE id = 1");
    rc = run_mpi(out, sizeof out, "--resume 1 --time 2s --db '%s'", db);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    char want[128];
    snprintf(want, sizeof want, "start rank %d (the database's best)", best);
    cr_assert(strstr(out, "resuming run 1 as run 2") && strstr(out, want), "want '%s':\n%s", want, out);
    cr_assert_leq(tc_sql_int(db, "SELECT best_rank FROM runs WHERE id = 2"), best);
    cr_assert(strstr(out, "mpi: 3 ranks"), "%s", out);
}

Test(mpi, a_killed_rank_loses_nothing_stored)
{
    const char *db = tc_path_in("kill.db"), *logp = tc_path_in("kill.log");
    char args[1024];
    snprintf(args, sizeof args, "--dims 4x4x4 --time 10m --progress 1 --db '%s'", db);
    pid_t pid = spawn_mpi(logp, args);
    wait_stored(db, 4);
    /* rank 2's pid from the run record; it must be a child of our mpirun */
    char rows[4096];
    cr_assert_eq(sql_rows(db, "SELECT device FROM runs WHERE id = 1", rows, sizeof rows), 1);
    const char *r2 = strstr(rows, "rank 2: ");
    cr_assert_not_null(r2, "%s", rows);
    const char *pp = strstr(r2, " pid ");
    cr_assert_not_null(pp, "%s", rows);
    long victim = atol(pp + 5);
    char statp[64], stat[1024] = "";
    snprintf(statp, sizeof statp, "/proc/%ld/stat", victim);
    FILE *f = fopen(statp, "r");
    cr_assert_not_null(f, "rank 2 (pid %ld) is not running", victim);
    cr_assert_not_null(fgets(stat, sizeof stat, f));
    fclose(f);
    long ppid = 0;
    const char *close_paren = strrchr(stat, ')');
    cr_assert(close_paren && sscanf(close_paren + 2, "%*c %ld", &ppid) == 1, "%s", stat);
    /* mpirun runs `sh -c "exec mpirun ..."`: the shell became mpirun */
    cr_assert_eq(ppid, (long)pid, "pid %ld is not a rank of our mpirun (%ld): %s", victim, (long)pid, stat);

    /* every scheme stored before the kill */
    char before[65536];
    int nb = sql_rows(db, "SELECT hash FROM schemes ORDER BY hash", before, sizeof before);
    cr_assert_gt(nb, 0);
    kill((pid_t)victim, SIGKILL);
    int rc = wait_for(pid, 60);
    if (rc < 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    char *log = tc_slurp(logp, 1 << 20, NULL);
    cr_assert_geq(rc, 0, "mpirun did not end after a rank was killed:\n%s", log);
    cr_assert_neq(rc, 0, "mpirun says nothing of the killed rank:\n%s", log);
    /* ... is there after, and the store is whole */
    for (char *line = before, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        *nl = 0;
        char q[256];
        snprintf(q, sizeof q, "SELECT COUNT(*) FROM schemes WHERE hash = '%.64s'", line);
        cr_assert_eq(tc_sql_int(db, q), 1, "scheme %s stored before the kill is gone", line);
    }
    char out[4096];
    rc = tc_run_cli("", out, sizeof out, "db check --db '%s'", db);
    cr_assert_eq(rc, 0, "db check: %s", out);
    /* rank 0 ended the run (interrupted: mpirun's SIGTERM) or was killed
     * before it could (then the run reads killed); either way it resumes */
    rc = tc_run_cli("", out, sizeof out, "db runs --db '%s'", db);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, " interrupted ") || strstr(out, " killed "), "%s\n%s", out, log);
    cr_log_info("the run after a rank was killed: %s", strstr(out, " interrupted ") ? "interrupted" : "killed");
    free(log);
}
