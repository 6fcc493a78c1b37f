/* Plots of best rank against time for `flipgraph report`: a data file and a
 * gnuplot script next to the PNG, so a user can restyle and rerun the plot
 * without the database (docs/report.md).  gnuplot writes the PNG to its
 * standard output, a pipe copied into the temporary file of
 * scheme_write_file_atomic: a failed or killed gnuplot, or output that is not
 * a PNG, leaves no half-written plot behind. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_plot.h"

/* Times below this are drawn at it: the time axis is logarithmic, and an
 * improvement in the first millisecond is "at once" for a reader. */
#define PLOT_TMIN 0.001
/* Curves beyond this many make a plot unreadable; the caller picks which. */
#define PLOT_KEY_MAX 12

static bool is_exec(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

/* gnuplot runs in the report's folder: a relative program path must not. */
static bool resolve(char *path, size_t len)
{
    char *abs = realpath(path, NULL);
    if (!abs)
        return false;
    snprintf(path, len, "%s", abs);
    free(abs);
    return true;
}

bool report_gnuplot_find(char *path, size_t len)
{
    const char *want = getenv("FLIPGRAPH_GNUPLOT");
    if (!want || !*want)
        want = "gnuplot";
    snprintf(path, len, "%s", want);
    if (strchr(want, '/'))
        return is_exec(want) && resolve(path, len);
    const char *env = getenv("PATH");
    if (!env || !*env)
        env = "/usr/local/bin:/usr/bin:/bin";
    while (*env) {
        const char *colon = strchr(env, ':');
        size_t dl = colon ? (size_t)(colon - env) : strlen(env);
        char cand[4096];
        if (dl == 0)
            snprintf(cand, sizeof cand, "./%s", want);
        else
            snprintf(cand, sizeof cand, "%.*s/%s", (int)dl, env, want);
        if (is_exec(cand)) {
            snprintf(path, len, "%s", cand);
            return resolve(path, len);
        }
        if (!colon)
            break;
        env = colon + 1;
    }
    return false;
}

/* ---- the data and the script, built in memory, written atomically ---- */

typedef struct text_buf {
    char *p;
    size_t n;
} text_buf;

static bool write_buf(void *ctx, FILE *f)
{
    const text_buf *b = ctx;
    return fwrite(b->p, 1, b->n, f) == b->n;
}

static bool write_text(const char *dir, const char *name, const text_buf *b, char *err,
                       size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return scheme_write_file_atomic(path, write_buf, (void *)b, err, errlen);
}

/* A gnuplot double-quoted string body: quotes and backslashes escaped. */
static void gp_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void emit_data(FILE *f, const report_series *s, int n)
{
    fprintf(f, "# flipgraph report: best rank against time, one block per run (gnuplot index 0, 1, ...)\n"
               "# columns: seconds since the run started, best rank, kind (1 an improvement, 0 the run's end)\n");
    for (int i = 0; i < n; i++) {
        if (i)
            fputs("\n\n", f);
        fprintf(f, "# %s\n", s[i].title);
        double last_t = 0;
        int last_r = 0;
        for (int64_t k = 0; k < s[i].n; k++) {
            fprintf(f, "%.6f %d 1\n", s[i].pts[k].seconds, s[i].pts[k].rank);
            last_t = s[i].pts[k].seconds;
            last_r = s[i].pts[k].rank;
        }
        /* The last level lasts until the run ended: a flat tail says "searched
         * this long without finding better", which is what a reader asks. */
        if (s[i].n > 0 && s[i].end_s > last_t)
            fprintf(f, "%.6f %d 0\n", s[i].end_s, last_r);
    }
}

static void emit_script(FILE *f, const char *base, const char *title, int record,
                        const report_series *s, int n)
{
    double tlo = 1e300, thi = 0;
    int rlo = record > 0 ? record : 1 << 30, rhi = 0;
    for (int i = 0; i < n; i++) {
        for (int64_t k = 0; k < s[i].n; k++) {
            double t = s[i].pts[k].seconds < PLOT_TMIN ? PLOT_TMIN : s[i].pts[k].seconds;
            if (t < tlo) tlo = t;
            if (t > thi) thi = t;
            if (s[i].pts[k].rank < rlo) rlo = s[i].pts[k].rank;
            if (s[i].pts[k].rank > rhi) rhi = s[i].pts[k].rank;
        }
        if (s[i].end_s > thi)
            thi = s[i].end_s;
    }
    if (tlo > thi) /* no points: the caller does not plot then; stay sane */
        tlo = PLOT_TMIN, thi = 1;
    if (rhi < rlo)
        rhi = rlo;
    double xlo = tlo / 2, xhi = thi * 2;
    if (xhi < xlo * 10)
        xhi = xlo * 10;
    int ylo = rlo - 1, yhi = rhi + 1;
    int span = yhi - ylo;
    int ystep = span <= 12 ? 1 : (span + 9) / 10;

    fprintf(f, "# flipgraph report: %s\n# Rerun by hand with:  gnuplot %s.gp   (writes %s.png)\n",
            title, base, base);
    fprintf(f, "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
               "    set terminal pngcairo size 960,560 noenhanced font \",11\"\n"
               "} else {\n"
               "    set terminal png size 960,560 noenhanced\n"
               "}\n");
    /* flipgraph runs this script with -e 'to_stdout=1' and takes the PNG
     * from standard output (written atomically on its side). */
    fprintf(f, "if (!exists(\"to_stdout\")) set output \"%s.png\"\n", base);
    fputs("set title ", f);
    gp_quoted(f, title);
    fputs("\nset xlabel \"seconds since the run started (log scale)\"\n"
          "set ylabel \"best rank over GF(2)\"\n"
          "set logscale x\n"
          "set format x \"%g\"\n", f);
    fprintf(f, "set xrange [%g:%g]\nset yrange [%d:%d]\nset ytics %d\n", xlo, xhi, ylo, yhi, ystep);
    fputs("set grid xtics ytics\n"
          "set key top right box opaque\n", f);
    fprintf(f, "tmin = %g\nt(x) = x < tmin ? tmin : x\n", PLOT_TMIN);
    fputs("plot ", f);
    /* The record first, so that the curves that reach it are drawn over it. */
    if (record > 0)
        fprintf(f, "%d with lines dt 2 lw 1.5 lc rgb \"black\" title \"known record %d\"%s", record,
                record, n ? ", \\\n     " : "");
    for (int i = 0; i < n; i++) {
        int lc = i % 8 + 1;
        fprintf(f, "%s'%s.dat' index %d using (t($1)):2 with steps lw 2 lc %d title ",
                i ? ", \\\n     " : "", base, i, lc);
        if (i < PLOT_KEY_MAX)
            gp_quoted(f, s[i].title);
        else
            fputs("\"\"", f);
        fprintf(f, ", \\\n     '' index %d using (t($1)):($3 == 1 ? $2 : NaN) with points pt 7 ps 0.9 "
                   "lc %d notitle", i, lc);
    }
    fputc('\n', f);
}

/* ---- running gnuplot into the atomic file ---- */

typedef struct gp_run {
    const char *gnuplot, *dir, *script;
    char msg[1024];
} gp_run;

/* The tail of gnuplot's messages holds the reason ("FILE line N: what"). */
static void keep_tail(char *tail, size_t cap, size_t *got, const char *buf, ssize_t r)
{
    size_t n = (size_t)r, room = cap - 1;
    if (n > room) {
        buf += n - room;
        n = room;
    }
    if (*got + n > room) {
        size_t drop = *got + n - room;
        memmove(tail, tail + drop, *got - drop);
        *got -= drop;
    }
    for (size_t i = 0; i < n; i++)
        tail[(*got)++] = buf[i] == '\n' ? ' ' : buf[i];
}

/* A PNG of a few curves is some 50 KB; anything near this is a runaway. */
#define PLOT_MAX_BYTES (64u << 20)

static bool run_gnuplot_cb(void *ctx, FILE *out)
{
    gp_run *g = ctx;
    int po[2], pe[2];
    if (pipe(po) != 0) {
        snprintf(g->msg, sizeof g->msg, "pipe: %s", strerror(errno));
        return false;
    }
    if (pipe(pe) != 0) {
        snprintf(g->msg, sizeof g->msg, "pipe: %s", strerror(errno));
        close(po[0]);
        close(po[1]);
        return false;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(g->msg, sizeof g->msg, "fork: %s", strerror(errno));
        close(po[0]);
        close(po[1]);
        close(pe[0]);
        close(pe[1]);
        return false;
    }
    if (pid == 0) {
        /* The script names its data file relative to its own folder. */
        if (chdir(g->dir) != 0)
            _exit(126);
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]);
        close(po[1]);
        close(pe[0]);
        close(pe[1]);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        execl(g->gnuplot, g->gnuplot, "-e", "to_stdout=1", g->script, (char *)NULL);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    static const unsigned char magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char head[8];
    size_t nhead = 0, total = 0;
    char tail[600];
    size_t got = 0;
    bool write_ok = true, too_big = false;
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int k = 0; k < 2; k++) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[65536];
            ssize_t r = read(fds[k].fd, buf, sizeof buf);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                close(fds[k].fd);
                fds[k].fd = -1;
                open_fds--;
                continue;
            }
            if (k == 1) {
                keep_tail(tail, sizeof tail, &got, buf, r);
                continue;
            }
            for (ssize_t i = 0; i < r && nhead < sizeof head; i++)
                head[nhead++] = (unsigned char)buf[i];
            total += (size_t)r;
            if (total > PLOT_MAX_BYTES && !too_big) {
                too_big = true;
                kill(pid, SIGKILL);
            }
            if (write_ok && !too_big && fwrite(buf, 1, (size_t)r, out) != (size_t)r)
                write_ok = false;
        }
    }
    for (int k = 0; k < 2; k++)
        if (fds[k].fd >= 0)
            close(fds[k].fd);
    while (got && tail[got - 1] == ' ')
        got--;
    tail[got] = 0;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            snprintf(g->msg, sizeof g->msg, "waitpid: %s", strerror(errno));
            return false;
        }
    if (too_big) {
        snprintf(g->msg, sizeof g->msg, "gnuplot wrote more than %u MiB: stopped", PLOT_MAX_BYTES >> 20);
        return false;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            snprintf(g->msg, sizeof g->msg, "could not run %s", g->gnuplot);
        else if (WIFEXITED(status))
            snprintf(g->msg, sizeof g->msg, "gnuplot exited with %d%s%s", WEXITSTATUS(status),
                     got ? ": " : "", tail);
        else
            snprintf(g->msg, sizeof g->msg, "gnuplot was killed by signal %d", WTERMSIG(status));
        return false;
    }
    if (nhead < sizeof head || memcmp(head, magic, sizeof magic)) {
        snprintf(g->msg, sizeof g->msg, "gnuplot did not write a PNG%s%s", got ? ": " : "", tail);
        return false;
    }
    if (!write_ok) {
        snprintf(g->msg, sizeof g->msg, "writing the PNG: %s", strerror(errno));
        return false;
    }
    return true;
}

report_plot_status report_plot_rank(const char *dir, const char *base, const char *title,
                                    int record, const report_series *s, int n,
                                    const char *gnuplot, char *err, size_t errlen)
{
    text_buf data = {0}, script = {0};
    FILE *f = open_memstream(&data.p, &data.n);
    FILE *g = f ? open_memstream(&script.p, &script.n) : NULL;
    if (!f || !g) {
        if (f)
            fclose(f);
        free(data.p);
        snprintf(err, errlen, "out of memory");
        return REPORT_PLOT_FAILED;
    }
    emit_data(f, s, n);
    emit_script(g, base, title, record, s, n);
    bool ok = fclose(f) == 0;
    ok = fclose(g) == 0 && ok;
    if (!ok) {
        snprintf(err, errlen, "out of memory");
        free(data.p);
        free(script.p);
        return REPORT_PLOT_FAILED;
    }
    char name[512];
    snprintf(name, sizeof name, "%s.dat", base);
    ok = write_text(dir, name, &data, err, errlen);
    snprintf(name, sizeof name, "%s.gp", base);
    ok = ok && write_text(dir, name, &script, err, errlen);
    free(data.p);
    free(script.p);
    if (!ok)
        return REPORT_PLOT_FAILED;
    if (!gnuplot)
        return REPORT_PLOT_NO_GNUPLOT;

    char png[4096];
    snprintf(png, sizeof png, "%s/%s.png", dir, base);
    gp_run run = {gnuplot, dir, NULL, {0}};
    char script_name[512];
    snprintf(script_name, sizeof script_name, "%s.gp", base);
    run.script = script_name;
    char werr[512];
    if (!scheme_write_file_atomic(png, run_gnuplot_cb, &run, werr, sizeof werr)) {
        snprintf(err, errlen, "%s: %s", png, run.msg[0] ? run.msg : werr);
        return REPORT_PLOT_FAILED;
    }
    return REPORT_PLOT_OK;
}
