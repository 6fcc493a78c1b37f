/* Helpers shared by the Criterion tests (tests/test_*.c): seeds, the corpus,
 * running the flipgraph binary with its output captured, temporary folders.
 * Header-only (static inline, so a file uses what it needs); the environment
 * is the one ctest sets (CMakeLists.txt): FLIPGRAPH_BIN, FLIPGRAPH_CORPUS,
 * FLIPGRAPH_SOURCE, and FLIPGRAPH_SANITIZED=1 under ASan+UBSan. */
#ifndef FLIPGRAPH_TEST_COMMON_H
#define FLIPGRAPH_TEST_COMMON_H

#include <criterion/criterion.h>
#include <sqlite3.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "schemes/scheme.h"
#include "search/search.h"
#include "verify/verify.h"
#include "test_seed.h"

/* ---- seeds (tc_seed, test_seed.h) and scale ---- */

/* True under the sanitizers (FLIPGRAPH_SANITIZED set and not "0"): heavy loops
 * scale down then. */
static inline bool tc_sanitized(void)
{
    const char *e = getenv("FLIPGRAPH_SANITIZED");
    return e && *e && strcmp(e, "0") != 0;
}

/* n, or under the sanitizers a tenth of it (at least 1): loop counts. */
static inline int tc_scaled(int n) { return tc_sanitized() ? (n / 10 > 0 ? n / 10 : 1) : n; }

/* printf into a static buffer, for assertion messages built in two steps. */
static inline const char *tc_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline const char *tc_fmt(const char *fmt, ...)
{
    static char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

/* ---- the corpus (data/corpus, see data/README.md) ---- */

/* $FLIPGRAPH_CORPUS, else data/corpus in $FLIPGRAPH_SOURCE (else in the
 * working directory).  Not inlined: callers size their buffers for
 * real paths, not for this fallback's buffer. */
__attribute__((noinline, unused)) static const char *tc_corpus_dir(void)
{
    static char buf[4096];
    const char *c = getenv("FLIPGRAPH_CORPUS");
    if (c && *c)
        return c;
    const char *src = getenv("FLIPGRAPH_SOURCE");
    snprintf(buf, sizeof buf, "%s/data/corpus", src && *src ? src : ".");
    return buf;
}

/* The path of a corpus file, "kauers-moosbauer/444-47-mod2.exp" (eight
 * buffers in turn: several may be used in one call). */
static inline const char *tc_corpus(const char *rel)
{
    static char bufs[8][4096];
    static int k;
    char *b = bufs[k++ % 8];
    int n = snprintf(b, sizeof bufs[0], "%s/%s", tc_corpus_dir(), rel);
    cr_assert_lt((size_t)n, sizeof bufs[0], "corpus path too long: %s", b);
    return b;
}

/* A scheme file that must read (the reader's FILE:LINE:COL otherwise). */
static inline scheme *tc_read_or_die(const char *path)
{
    scheme_diag d;
    memset(&d, 0, sizeof d);
    scheme *s = scheme_read_file(path, NULL, &d);
    cr_assert_not_null(s, "%s:%d:%d: %s", path, d.line, d.col, d.msg);
    return s;
}

static inline scheme *tc_read_corpus(const char *rel) { return tc_read_or_die(tc_corpus(rel)); }

/* Term r's GF(2) words from its integer coefficients (the odd entries), after a
 * test changed the coefficients of an integer scheme. */
static inline void tc_z_words(scheme *s, int r)
{
    for (int pos = 0; pos < 3; pos++) {
        uint64_t w = 0;
        for (int e = 0; e < SCHEME_MAX_ENTRIES; e++)
            if (s->zterms[r].z[pos][e] & 1)
                w |= 1ull << e;
        s->terms[r].f[pos] = w;
    }
}

/* Every scheme in the store (ids 1, 2, ... up to the first missing) is over Z
 * and verifies there, with coefficients within max_coef (0: not checked);
 * returns how many. */
static inline int tc_stored_z_verify(db *store, int max_coef)
{
    char err[512];
    db_status st;
    int n = 0;
    for (int64_t id = 1;; id++) {
        scheme *s = db_load_scheme(store, id, &st, err, sizeof err);
        if (!s)
            break;
        verify_result vr;
        cr_assert_eq(s->ring, SCHEME_RING_Z, "scheme %lld", (long long)id);
        cr_assert(verify_z(s, &vr), "scheme %lld: %s", (long long)id, vr.msg);
        if (max_coef > 0)
            cr_assert_leq(search_z_max_coef(s), max_coef, "scheme %lld", (long long)id);
        scheme_free(s);
        n++;
    }
    return n;
}

/* The same for the store at path (opened, checked, closed). */
static inline int tc_stored_z_verify_at(const char *path, int max_coef)
{
    char err[512];
    db_status st;
    db *store = db_open(path, false, &st, err, sizeof err);
    cr_assert_not_null(store, "%s: %s", path, err);
    const int n = tc_stored_z_verify(store, max_coef);
    db_close(store);
    return n;
}

/* ---- formats ---- */

static inline void tc_dims_of(scheme_format f, int d[3])
{
    d[0] = f.n;
    d[1] = f.m;
    d[2] = f.p;
}

/* A random format (scheme_format_valid), each dimension 1..maxdim. */
static inline scheme_format tc_random_format(scheme_rng *rng, int maxdim)
{
    for (;;) {
        scheme_format f = {1 + (int)scheme_rng_below(rng, (uint32_t)maxdim),
                           1 + (int)scheme_rng_below(rng, (uint32_t)maxdim),
                           1 + (int)scheme_rng_below(rng, (uint32_t)maxdim)};
        if (scheme_format_valid(f))
            return f;
    }
}

/* ---- files and folders ---- */

/* A whole file that must be readable, of at most max bytes (caller frees);
 * len may be NULL. */
static inline char *tc_slurp(const char *path, size_t max, size_t *len)
{
    char err[512];
    size_t n;
    char *s = scheme_slurp(path, max, len ? len : &n, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    return s;
}

static inline bool tc_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Polls the file at path every 50 ms for up to `seconds` until it contains
 * text (a spawned command's log); false when it never does. */
static inline bool tc_wait_for_text(const char *path, const char *text, double seconds)
{
    for (int i = 0; i < (int)(seconds * 20); i++) {
        struct timespec ts = {0, 50 * 1000000};
        nanosleep(&ts, NULL);
        char err[256];
        size_t n;
        char *s = scheme_slurp(path, 1 << 20, &n, err, sizeof err);
        const bool seen = s && strstr(s, text);
        free(s);
        if (seen)
            return true;
    }
    return false;
}

static inline const char *tc_tmp_root(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

/* A fresh folder $TMPDIR/STEM-XXXXXX (else /tmp) into buf. */
static inline void tc_temp_dir(char *buf, size_t len, const char *stem)
{
    snprintf(buf, len, "%s/%s-XXXXXX", tc_tmp_root(), stem);
    cr_assert_not_null(mkdtemp(buf), "mkdtemp %s: %s", buf, strerror(errno));
}

static inline int tc_remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    chmod(path, 0700); /* tests make files and folders read-only */
    return remove(path);
}

/* Removes a folder and everything in it (nothing when dir is ""). */
static inline void tc_remove_tree(const char *dir)
{
    if (!dir[0])
        return;
    chmod(dir, 0700);
    nftw(dir, tc_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* One temporary folder per test, for the suites that make it in .init and
 * remove it in .fini (TestSuite(x, .init = ..., .fini = tc_suite_dir_remove)). */
__attribute__((unused)) static char tc_dir[256];

static inline void tc_suite_dir_make(const char *stem) { tc_temp_dir(tc_dir, sizeof tc_dir, stem); }

static inline void tc_suite_dir_remove(void) { tc_remove_tree(tc_dir); }

/* name inside the suite's folder (eight buffers in turn). */
static inline const char *tc_path_in(const char *name)
{
    static char bufs[8][512];
    static int k;
    char *b = bufs[k++ % 8];
    int n = snprintf(b, sizeof bufs[0], "%s/%s", tc_dir, name);
    cr_assert_lt((size_t)n, sizeof bufs[0], "path too long: %s", b);
    return b;
}

/* ---- running the binary ---- */

/* $FLIPGRAPH_BIN, or NULL where it is not set (a test may skip then). */
static inline const char *tc_bin_or_null(void)
{
    const char *b = getenv("FLIPGRAPH_BIN");
    return b && *b ? b : NULL;
}

static inline const char *tc_bin(void)
{
    const char *b = tc_bin_or_null();
    cr_assert(b, "FLIPGRAPH_BIN is not set (ctest sets it)");
    return b;
}

/* The exit code in a status of system() or pclose(): 128 + the signal for a
 * killed process, -1 when the shell could not be run. */
static inline int tc_exit_code(int status)
{
    if (status == -1)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Runs a shell command; its exit code (tc_exit_code). */
static inline int tc_system(const char *cmd) { return tc_exit_code(system(cmd)); }

/* Runs a shell command with its standard output into out and its standard
 * error into err (NULL: left as they are); returns the status of system(). */
static inline int tc_system_capture(const char *cmd, char *out, size_t outlen, char *err, size_t errlen)
{
    char paths[2][600];
    char *bufs[2] = {out, err};
    size_t lens[2] = {outlen, errlen};
    char full[20000];
    int at = snprintf(full, sizeof full, "%s", cmd);
    for (int i = 0; i < 2; i++) {
        if (!bufs[i])
            continue;
        snprintf(paths[i], sizeof paths[i], "%s/fg-test-%s-XXXXXX", tc_tmp_root(), i ? "err" : "out");
        int fd = mkstemp(paths[i]);
        cr_assert_geq(fd, 0, "mkstemp %s: %s", paths[i], strerror(errno));
        close(fd);
        at += snprintf(full + at, sizeof full - (size_t)at, " %d>'%s'", i + 1, paths[i]);
        cr_assert_lt((size_t)at, sizeof full, "command too long: %.200s", cmd);
    }
    int st = system(full);
    for (int i = 0; i < 2; i++) {
        if (!bufs[i])
            continue;
        FILE *f = fopen(paths[i], "rb");
        size_t n = f ? fread(bufs[i], 1, lens[i] - 1, f) : 0;
        bufs[i][n] = 0;
        if (f)
            fclose(f);
        unlink(paths[i]);
    }
    return st;
}

/* Runs `env '$FLIPGRAPH_BIN' ARGS` (env: variables for the command such as
 * "FLIPGRAPH_GNUPLOT=x", or ""), its standard output and error together into
 * out; returns its exit code (tc_exit_code). */
static inline int tc_run_cli(const char *env, char *out, size_t outlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline int tc_run_cli(const char *env, char *out, size_t outlen, const char *fmt, ...)
{
    char args[4096], cmd[6000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s '%s' %s 2>&1", env, tc_bin(), args);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f, "popen %s: %s", cmd, strerror(errno));
    size_t n = fread(out, 1, outlen - 1, f);
    out[n] = 0;
    while (fgetc(f) != EOF)
        ;
    return tc_exit_code(pclose(f));
}

/* How many times needle occurs in hay (occurrences that do not overlap). */
static inline int tc_count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* SQL straight into a database file, past the store's API (the faults the
 * store must survive are made this way). */
static inline void tc_sql_exec(const char *path, const char *sql)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(h, sql, NULL, NULL, &msg);
    cr_assert_eq(rc, SQLITE_OK, "%s: %s", sql, msg ? msg : "");
    sqlite3_close(h);
}

/* The first column of the first row of sql, read-only. */
static inline int64_t tc_sql_int(const char *path, const char *sql)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

/* Starts `flipgraph ARGV...` in the background with stdout and stderr into
 * outp (SIGINT at its default, whatever the test runner set); as uid 65534
 * when unprivileged and root (rights given up after opening outp).  Its pid;
 * the child exits 120 when outp cannot be opened, 121 when the binary cannot
 * be run, 77 when the rights cannot be dropped. */
static inline pid_t tc_spawn_logged(const char *outp, char *const argv[], bool unprivileged)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int fd = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            _exit(120);
        dup2(fd, 1);
        dup2(fd, 2);
        signal(SIGINT, SIG_DFL);
        if (unprivileged && geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(77);
        execv(tc_bin(), argv);
        _exit(121);
    }
    return pid;
}

/* <3,3,3>'s standard algorithm with one term split in two: rank 28, one pair
 * reduction left (a start the search must reduce before it walks). */
static inline scheme *tc_standard_333_split(void)
{
    scheme *s = scheme_standard((scheme_format){3, 3, 3});
    cr_assert_not_null(s);
    scheme_term t0 = s->terms[5];
    s->terms[5].f[2] ^= 0x10;
    scheme_push(s, t0.f[0], t0.f[1], 0x10);
    return s;
}

#endif
