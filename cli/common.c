/* Helpers shared by the subcommands: errors, durations, numbers, clocks, schemes
 * by ID or FILE, and what the reports and benchmarks have in common. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../search/search.h"
#include "cli.h"

int cli_error(int code, const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "flipgraph %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

bool cli_parse_duration(const char *s, double *seconds) { return search_parse_duration(s, seconds); }

bool cli_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 0);
    if (end == s || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bool cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return true;
    return false;
}

scheme *cli_read_scheme(const char *cmd, const char *path, const scheme_format *dims)
{
    scheme_diag d;
    memset(&d, 0, sizeof d);
    scheme *s = scheme_read_file(path, dims, &d);
    if (!s) {
        /* The path as given, not d.file: that one is cut at 255 characters. */
        if (d.line > 0)
            fprintf(stderr, "%s:%d:%d: %s\n", path, d.line, d.col, d.msg);
        else
            fprintf(stderr, "%s: %s\n", path, d.msg);
    }
    return s;
}

bool cli_is_npz_path(const char *path)
{
    if (!strcmp(path, "-"))
        return false;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    unsigned char b[4];
    bool yes = fread(b, 1, 4, f) == 4 && scheme_is_npz(b, 4);
    fclose(f);
    return yes;
}

scheme_npz *cli_read_npz(const char *cmd, const char *path)
{
    (void)cmd;
    scheme_diag d;
    memset(&d, 0, sizeof d);
    scheme_npz *z = scheme_npz_read_file(path, &d);
    if (!z)
        fprintf(stderr, "%s: %s\n", path, d.msg);
    return z;
}

int cli_option_error(const char *cmd, char **argv)
{
    if (optopt)
        return cli_error(CLI_USAGE, cmd, "option '-%c' is unknown or lacks its value", optopt);
    return cli_error(CLI_USAGE, cmd, "unknown option '%s'", argv[optind - 1]);
}

/* ---- schemes by ID or FILE ---- */

bool cli_is_scheme_id(const char *arg)
{
    if (!*arg)
        return false;
    for (; *arg; arg++)
        if (*arg < '0' || *arg > '9')
            return false;
    return true;
}

int cli_db_exit(db_status st)
{
    switch (st) {
    case DB_OK:
        return CLI_OK;
    case DB_INVALID:
        return CLI_NEGATIVE;
    case DB_NOT_FOUND:
    case DB_READONLY:
    case DB_NOT_FLIPGRAPH:
    case DB_CORRUPT:
    case DB_NEWER:
    case DB_MISUSE:
        return CLI_USAGE;
    case DB_BUSY:
    case DB_FULL:
    case DB_IO:
        return CLI_INTERNAL;
    }
    return CLI_INTERNAL;
}

scheme *cli_load_stored(const char *path, int64_t id, db_scheme_row *row, db_status *st, bool *opened,
                        char *err, size_t errlen)
{
    db *d = db_open_ex(path, DB_OPEN_READONLY, st, err, errlen);
    *opened = d != NULL;
    if (!d)
        return NULL;
    scheme *s = db_load_scheme(d, id, st, err, errlen);
    if (s && row && (*st = db_scheme_info(d, id, row, err, errlen)) != DB_OK) {
        scheme_free(s);
        s = NULL;
    }
    db_close(d);
    return s;
}

/* ---- helpers of the reports and benchmarks ---- */

uint64_t cli_random_seed(void)
{
    uint64_t s = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        if (read(fd, &s, sizeof s) != (ssize_t)sizeof s)
            s = 0;
        close(fd);
    }
    return s ? s : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
}

/* cli_fmt_si_sep lives in progress.c with the table cells (tests/test_cli.c compiles that file alone) */
const char *cli_fmt_si(double v, char *buf, size_t len) { return cli_fmt_si_sep(v, " ", buf, len); }

int cli_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static bool is_corpus(const char *dir)
{
    char p[PATH_MAX + 32];
    struct stat st;
    snprintf(p, sizeof p, "%s/kauers-moosbauer", dir);
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool corpus_at(const char *option, char *buf, size_t len)
{
    const char *env = getenv("FLIPGRAPH_CORPUS");
    if (option || (env && *env)) {
        snprintf(buf, len, "%s", option ? option : env);
        return is_corpus(buf);
    }
    char real[PATH_MAX];
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    /* the repository's data/corpus: seen from the repository root, from a build
     * folder inside it (build/flipgraph), or where CMake configured the source */
    const char *cands[4][2] = {{"", "data/corpus"}, {exe, "/../data/corpus"},
                               {exe, "/../../data/corpus"}, {"", FLIPGRAPH_SOURCE_DIR "/data/corpus"}};
    for (int i = 0; i < 4; i++) {
        if (cands[i][0] == exe && !exe[0])
            continue;
        snprintf(buf, len, "%s%s", cands[i][0], cands[i][1]);
        if (is_corpus(buf)) {
            if (realpath(buf, real))
                snprintf(buf, len, "%s", real);
            return true;
        }
    }
    snprintf(buf, len, "data/corpus");
    return false;
}

bool cli_find_corpus(const char *cmd, const char *option, char *buf, size_t len)
{
    if (corpus_at(option, buf, len))
        return true;
    cli_error(CLI_USAGE, cmd, "no corpus at %s (--corpus DIR or FLIPGRAPH_CORPUS)", buf);
    return false;
}

/* SIGINT/SIGTERM during a search or sweep (README.md, docs/search.md): the first only asks the
 * walkers to finish their batch (the run then stores, prints its summary and
 * exits with its usual code: 0 without a target, 1 when one was not met); a
 * second leaves at once by the signal's default action.  Nothing
 * is lost that way: every store change is a SQLite transaction (rolled back
 * on the next open) and every file is written to a temporary name and renamed. */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Appends a copy of str to v[0..*n) (capacity *cap); false: out of memory. */
static bool push_path(char ***v, int *n, int *cap, const char *str)
{
    if (*n == *cap) {
        const int nc = *cap ? 2 * *cap : 16;
        char **nv = realloc(*v, (size_t)nc * sizeof **v);
        if (!nv)
            return false;
        *v = nv;
        *cap = nc;
    }
    if (!((*v)[*n] = strdup(str)))
        return false;
    ++*n;
    return true;
}

int cli_expand_paths(const char *cmd, const char *option, const char *const *args, int n, char ***out, int *nout)
{
    char **v = NULL;
    int nv = 0, cap = 0, rc = CLI_OK;
    for (int i = 0; i < n && rc == CLI_OK; i++) {
        struct stat sb;
        if (strcmp(args[i], "-") == 0 || stat(args[i], &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            /* a file (or what the reader will say it cannot open) */
            if (!push_path(&v, &nv, &cap, args[i]))
                rc = cli_error(CLI_INTERNAL, cmd, "out of memory");
            continue;
        }
        DIR *d = opendir(args[i]);
        if (!d) {
            rc = cli_error(CLI_USAGE, cmd, "%s %s: cannot read the folder: %s", option, args[i], strerror(errno));
            break;
        }
        const int first = nv;
        struct dirent *de;
        while (rc == CLI_OK && (de = readdir(d)) != NULL) {
            if (de->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", args[i], de->d_name);
            if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && !push_path(&v, &nv, &cap, path))
                rc = cli_error(CLI_INTERNAL, cmd, "out of memory");
        }
        closedir(d);
        if (rc == CLI_OK && nv == first)
            rc = cli_error(CLI_USAGE, cmd, "%s %s: the folder holds no file", option, args[i]);
        if (rc == CLI_OK)
            qsort(v + first, (size_t)(nv - first), sizeof *v, cmp_str);
    }
    if (rc != CLI_OK) {
        cli_paths_free(v, nv);
        v = NULL;
        nv = 0;
    }
    *out = v;
    *nout = nv;
    return rc;
}

void cli_paths_free(char **paths, int n)
{
    for (int i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}
