/* flipgraph report: what the store holds, for a researcher reading it in the
 * morning (docs/report.md).
 *
 *   flipgraph report [--db PATH] [-o DIR] [--dims NxMxP] [--no-plots]
 *
 * Writes DIR/report.md (default ./report): per format our best rank over
 * GF(2) and over Z against the known record, the gap, which run found the
 * best and when; a table of the runs; and per format a PNG of best rank
 * against time per run, drawn by gnuplot from the improvement logs
 * (cli/report_plot.c).  Every file is written whole or not at all.
 * Exit: 0 ok; 2 bad usage, a database missing or unreadable, DIR not
 * writable; 3 the Markdown was written but a plot was not (gnuplot missing
 * or failing), or the store failed. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../db/db.h"
#include "../search/search.h"
#include "cli.h"
#include "fg_commit.h" /* FLIPGRAPH_GIT_COMMIT, written at every build */
#include "report_plot.h"

#define CMD "report"
/* Curves per plot: more is a tangle nobody reads. */
#define REPORT_PLOT_RUNS 12

static const char *usage_text =
    "usage: flipgraph report [--db PATH] [-o DIR] [--dims NxMxP] [--no-plots]\n"
    "\n"
    "Writes DIR/report.md (default DIR: ./report) from the scheme store: per format our best\n"
    "rank over GF(2) and Z against the known record, the gap, the run that found the best and\n"
    "when, how many schemes are stored; a table of the runs; and per format a PNG plot of best\n"
    "rank against time for each run (DIR/rank-NxMxP.png, drawn by gnuplot from the data and\n"
    "script written next to it: DIR/rank-NxMxP.dat, DIR/rank-NxMxP.gp).\n"
    "\n"
    "  --db PATH      the database (else $FLIPGRAPH_DB, else ./flipgraph.db); opened read-only\n"
    "                 when it cannot be written\n"
    "  -o, --out DIR  the report's folder, created when missing (default ./report)\n"
    "  --dims NxMxP   only this format\n"
    "  --no-plots     the Markdown only (no data, scripts or PNGs)\n"
    "\n"
    "gnuplot: $FLIPGRAPH_GNUPLOT, else `gnuplot` on $PATH (Debian: gnuplot-nox).  Without it the\n"
    "Markdown, the data and the scripts are still written, and the exit code is 3.\n"
    "\n"
    "exit codes: 0 ok; 2 bad usage, database missing or unreadable, DIR not writable;\n"
    "3 plots missing (gnuplot not installed or failed) or a store failure.\n";

/* ---- what the report is made of ---- */

typedef struct rep_run {
    db_run_row row;
    db_improvement *imp;
    int64_t nimp;
    double duration; /* seconds; < 0 unknown (still running, or no end recorded) */
} rep_run;

typedef struct rep_fmt {
    db_format_row row;
    db_scheme_row best[2];
    bool has_best[2];
    int record, record_z;    /* search_record_rank(_z): -1 unknown */
    bool unsure, unsure_z;   /* records.tsv marks the record with '?' */
    int plot;        /* -1 none (no improvement log), else a report_plot_status */
    int plotted, plottable;
    char plot_err[1024];
} rep_fmt;

typedef struct report {
    const char *dbpath;
    bool has_dims;
    scheme_format dims;
    db_stats_info stats;
    rep_fmt *f;
    int nf, capf;
    rep_run *r;
    int nr, capr;
    bool oom;
    bool plots;          /* --no-plots not given */
    bool have_gnuplot;
    char gnuplot[4096];
    char generated[32];
} report;

static bool same_fmt(scheme_format a, scheme_format b)
{
    return a.n == b.n && a.m == b.m && a.p == b.p;
}

static int fmt_cmp(scheme_format a, scheme_format b)
{
    if (a.n != b.n) return a.n < b.n ? -1 : 1;
    if (a.m != b.m) return a.m < b.m ? -1 : 1;
    if (a.p != b.p) return a.p < b.p ? -1 : 1;
    return 0;
}

static rep_fmt *add_fmt(report *R, scheme_format f)
{
    for (int i = 0; i < R->nf; i++)
        if (same_fmt(R->f[i].row.fmt, f))
            return &R->f[i];
    if (R->nf == R->capf) {
        int cap = R->capf ? 2 * R->capf : 16;
        rep_fmt *v = realloc(R->f, (size_t)cap * sizeof *v);
        if (!v) {
            R->oom = true;
            return NULL;
        }
        R->f = v;
        R->capf = cap;
    }
    rep_fmt *x = &R->f[R->nf++];
    memset(x, 0, sizeof *x);
    x->row.fmt = f;
    x->record = search_record_rank(f);
    x->record_z = search_record_rank_z(f);
    x->unsure = search_record_uncertain(f, SCHEME_RING_F2);
    x->unsure_z = search_record_uncertain(f, SCHEME_RING_Z);
    x->plot = -1;
    return x;
}

static bool on_format(void *ctx, const db_format_row *row)
{
    report *R = ctx;
    if (R->has_dims && !same_fmt(row->fmt, R->dims))
        return true;
    rep_fmt *x = add_fmt(R, row->fmt);
    if (!x)
        return false;
    x->row = *row;
    return true;
}

static bool on_run(void *ctx, const db_run_row *row)
{
    report *R = ctx;
    if (R->has_dims && !same_fmt(row->fmt, R->dims))
        return true;
    if (R->nr == R->capr) {
        int cap = R->capr ? 2 * R->capr : 16;
        rep_run *v = realloc(R->r, (size_t)cap * sizeof *v);
        if (!v) {
            R->oom = true;
            return false;
        }
        R->r = v;
        R->capr = cap;
    }
    rep_run *x = &R->r[R->nr++];
    memset(x, 0, sizeof *x);
    x->row = *row;
    x->duration = -1;
    return true;
}

static int cmp_fmt_rows(const void *a, const void *b)
{
    return fmt_cmp(((const rep_fmt *)a)->row.fmt, ((const rep_fmt *)b)->row.fmt);
}

static int cmp_runs(const void *a, const void *b)
{
    int64_t x = ((const rep_run *)a)->row.id, y = ((const rep_run *)b)->row.id;
    return x < y ? -1 : x > y;
}

/* "YYYY-MM-DDTHH:MM:SS.sssZ" -> seconds since the epoch; false when not one. */
static bool parse_utc(const char *s, double *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    double sec = 0;
    if (sscanf(s, "%d-%d-%dT%d:%d:%lf", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &sec) != 6)
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    tm.tm_sec = (int)sec;
    time_t t = timegm(&tm);
    if (t == (time_t)-1)
        return false;
    *out = (double)t + (sec - (double)(int)sec);
    return true;
}

static const rep_run *find_run(const report *R, int64_t id)
{
    for (int i = 0; i < R->nr; i++)
        if (R->r[i].row.id == id)
            return &R->r[i];
    return NULL;
}

static db_status collect(report *R, db *d, char *err, size_t errlen)
{
    db_status st = db_stats(d, &R->stats, err, errlen);
    if (st == DB_OK)
        st = db_formats(d, on_format, R, err, errlen);
    if (st == DB_OK)
        st = db_list_runs(d, on_run, R, err, errlen);
    if (st != DB_OK)
        return st;
    if (R->oom) {
        snprintf(err, errlen, "out of memory");
        return DB_IO;
    }
    /* A run that stored nothing still belongs to its format's section. */
    for (int i = 0; i < R->nr; i++)
        if (!add_fmt(R, R->r[i].row.fmt)) {
            snprintf(err, errlen, "out of memory");
            return DB_IO;
        }
    if (R->has_dims && R->nf == 0 && !add_fmt(R, R->dims)) {
        snprintf(err, errlen, "out of memory");
        return DB_IO;
    }
    if (R->nf > 1)
        qsort(R->f, (size_t)R->nf, sizeof *R->f, cmp_fmt_rows);
    if (R->nr > 1)
        qsort(R->r, (size_t)R->nr, sizeof *R->r, cmp_runs);
    for (int i = 0; i < R->nr; i++) {
        rep_run *x = &R->r[i];
        st = db_run_improvements(d, x->row.id, &x->imp, &x->nimp, err, errlen);
        if (st != DB_OK)
            return st;
        double a, b;
        if (x->row.ended[0] && parse_utc(x->row.started, &a) && parse_utc(x->row.ended, &b) && b >= a)
            x->duration = b - a;
    }
    for (int i = 0; i < R->nf; i++)
        for (int ring = 0; ring < 2; ring++) {
            rep_fmt *x = &R->f[i];
            if (!x->row.best_id[ring])
                continue;
            st = db_scheme_info(d, x->row.best_id[ring], &x->best[ring], err, errlen);
            if (st != DB_OK)
                return st;
            x->has_best[ring] = true;
        }
    return DB_OK;
}

/* ---- plots ---- */

typedef struct pick {
    const rep_run *run;
    int final_rank;
    double final_t;
} pick;

static int cmp_pick_quality(const void *a, const void *b)
{
    const pick *x = a, *y = b;
    if (x->final_rank != y->final_rank)
        return x->final_rank < y->final_rank ? -1 : 1;
    if (x->final_t != y->final_t)
        return x->final_t < y->final_t ? -1 : 1;
    return x->run->row.id < y->run->row.id ? -1 : x->run->row.id > y->run->row.id;
}

static int cmp_pick_id(const void *a, const void *b)
{
    int64_t x = ((const pick *)a)->run->row.id, y = ((const pick *)b)->run->row.id;
    return x < y ? -1 : x > y;
}

/* Only letters, digits and a few marks: run titles go into gnuplot strings. */
static void plain(char *dst, size_t len, const char *src)
{
    size_t k = 0;
    for (; *src && k + 1 < len; src++) {
        char c = *src;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == ' ' || c == '.' || c == '-' || c == '_';
        dst[k++] = ok ? c : '?';
    }
    dst[k] = 0;
}

static void fmt_base(scheme_format f, char *buf, size_t len)
{
    snprintf(buf, len, "rank-%dx%dx%d", f.n, f.m, f.p);
}

static void make_plot(report *R, rep_fmt *x, const char *dir)
{
    pick *pk = calloc((size_t)(R->nr ? R->nr : 1), sizeof *pk);
    report_series *ser = calloc(REPORT_PLOT_RUNS, sizeof *ser);
    if (!pk || !ser) {
        x->plot = REPORT_PLOT_FAILED;
        snprintf(x->plot_err, sizeof x->plot_err, "out of memory");
        free(pk);
        free(ser);
        return;
    }
    int n = 0;
    for (int i = 0; i < R->nr; i++) {
        const rep_run *r = &R->r[i];
        if (!same_fmt(r->row.fmt, x->row.fmt) || r->nimp == 0)
            continue;
        pk[n].run = r;
        pk[n].final_rank = r->imp[r->nimp - 1].rank;
        pk[n].final_t = r->imp[r->nimp - 1].seconds;
        n++;
    }
    x->plottable = n;
    if (n == 0) {
        free(pk);
        free(ser);
        return;
    }
    qsort(pk, (size_t)n, sizeof *pk, cmp_pick_quality);
    int shown = n < REPORT_PLOT_RUNS ? n : REPORT_PLOT_RUNS;
    qsort(pk, (size_t)shown, sizeof *pk, cmp_pick_id);
    for (int i = 0; i < shown; i++) {
        const rep_run *r = pk[i].run;
        char be[32];
        plain(be, sizeof be, r->row.backend);
        snprintf(ser[i].title, sizeof ser[i].title, "run %lld, %s, seed %llu",
                 (long long)r->row.id, be, (unsigned long long)r->row.seed);
        ser[i].pts = r->imp;
        ser[i].n = r->nimp;
        ser[i].end_s = r->duration;
    }
    x->plotted = shown;
    char base[64], title[160], fb[32];
    fmt_base(x->row.fmt, base, sizeof base);
    scheme_format_str(x->row.fmt, fb);
    if (x->record > 0)
        snprintf(title, sizeof title, "%s: best rank over GF(2) against time (known record %d)", fb,
                 x->record);
    else
        snprintf(title, sizeof title, "%s: best rank over GF(2) against time", fb);
    x->plot = report_plot_rank(dir, base, title, x->record, ser, shown,
                               R->have_gnuplot ? R->gnuplot : NULL, x->plot_err, sizeof x->plot_err);
    free(pk);
    free(ser);
}

/* ---- the Markdown ---- */

/* Free text in a table cell: a pipe or a newline would break the row. */
static void md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else if (*s == '\n' || *s == '\r')
            fputc(' ', f);
        else
            fputc(*s, f);
    }
}

static const char *fmt_duration(double s, char *buf, size_t len)
{
    if (s < 0)
        snprintf(buf, len, "?");
    else if (s < 0.001)
        snprintf(buf, len, "< 1 ms");
    else if (s < 1)
        snprintf(buf, len, "%.0f ms", s * 1000);
    else if (s < 60)
        snprintf(buf, len, "%.1f s", s);
    else if (s < 3600)
        snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else if (s < 86400)
        snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
    else
        snprintf(buf, len, "%dd%02dh", (int)(s / 86400), (int)(s / 3600) % 24);
    return buf;
}

/* "2025-01-02T03:04:05.678Z" -> "2025-01-02 03:04:05" (UTC is in the header). */
static const char *fmt_when(const char *iso, char *buf, size_t len)
{
    snprintf(buf, len, "%.19s", iso);
    char *t = strchr(buf, 'T');
    if (t)
        *t = ' ';
    return buf;
}

static void gap_text(const rep_fmt *x, char *buf, size_t len)
{
    if (!x->row.best_rank[SCHEME_RING_F2])
        snprintf(buf, len, "–");
    else if (x->record <= 0)
        snprintf(buf, len, "? (no record known)");
    else {
        int d = x->row.best_rank[SCHEME_RING_F2] - x->record;
        if (d == 0)
            snprintf(buf, len, "0 (at the record)");
        else if (d > 0)
            snprintf(buf, len, "+%d", d);
        else
            snprintf(buf, len, "**%d: below the record, check it!**", d);
    }
}

static void found_by(FILE *f, const report *R, const db_scheme_row *b)
{
    if (b->run_id) {
        const rep_run *r = find_run(R, b->run_id);
        fprintf(f, "run %lld", (long long)b->run_id);
        if (r) {
            fputs(" (", f);
            md_text(f, r->row.backend);
            fprintf(f, ", seed %llu)", (unsigned long long)r->row.seed);
        }
        return;
    }
    const char *src = b->source;
    if (!strncmp(src, "import:", 7)) {
        const char *file = src + 7, *slash = strrchr(file, '/');
        fputs("imported from `", f);
        md_text(f, slash ? slash + 1 : file);
        fputs("`", f);
    } else if (src[0]) {
        fputs("`", f);
        md_text(f, src);
        fputs("`", f);
    } else {
        fputs("unknown", f);
    }
}

static void emit_formats(FILE *f, const report *R)
{
    int at = 0, above = 0, below = 0, unknown = 0, none = 0;
    for (int i = 0; i < R->nf; i++) {
        const rep_fmt *x = &R->f[i];
        int b = x->row.best_rank[SCHEME_RING_F2];
        if (!b) none++;
        else if (x->record <= 0) unknown++;
        else if (b == x->record) at++;
        else if (b > x->record) above++;
        else below++;
    }
    fprintf(f, "## Best ranks against the records\n\n");
    if (R->nf == 0) {
        fprintf(f, "The database holds no schemes and no runs%s.\n\n",
                R->has_dims ? " of this format" : "");
        return;
    }
    fprintf(f, "%d format%s: **%d at the known record**, %d above it", R->nf, R->nf == 1 ? "" : "s",
            at, above);
    if (below)
        fprintf(f, ", **%d below it (new records? verify and publish)**", below);
    if (unknown)
        fprintf(f, ", %d with no known record", unknown);
    if (none)
        fprintf(f, ", %d with no GF(2) scheme stored", none);
    fprintf(f, ".\nRecords are the best published ranks (`records.tsv`, built in) over GF(2) and over Z "
               "(integer coefficients: a scheme that works over every ring); the gap is our best GF(2) "
               "rank minus the GF(2) record. Best Z is our best stored scheme with integer coefficients "
               "(verified over Z when stored, e.g. lifted with `flipgraph lift`).\n\n");
    fprintf(f, "| format | best GF(2) | record | Z record | gap | found by | found at (UTC) | GF(2) schemes "
               "| best Z | Z schemes |\n");
    fprintf(f, "| --- | ---: | ---: | ---: | --- | --- | --- | ---: | ---: | ---: |\n");
    bool unsure = false;
    for (int i = 0; i < R->nf; i++) {
        const rep_fmt *x = &R->f[i];
        char fb[32], gap[64], when[40], dur[32];
        scheme_format_str(x->row.fmt, fb);
        gap_text(x, gap, sizeof gap);
        fprintf(f, "| %s | ", fb);
        if (x->row.best_rank[0])
            fprintf(f, "**%d**", x->row.best_rank[0]);
        else
            fputs("–", f);
        if (x->record > 0)
            fprintf(f, " | %d%s", x->record, x->unsure ? "?" : "");
        else
            fputs(" | ?", f);
        if (x->record_z > 0)
            fprintf(f, " | %d%s", x->record_z, x->unsure_z ? "?" : "");
        else
            fputs(" | ?", f);
        fprintf(f, " | %s | ", gap);
        unsure |= (x->record > 0 && x->unsure) || (x->record_z > 0 && x->unsure_z);
        if (x->has_best[0]) {
            found_by(f, R, &x->best[0]);
            fprintf(f, " | %s", fmt_when(x->best[0].found_at, when, sizeof when));
            if (x->best[0].run_id && x->best[0].seconds > 0)
                fprintf(f, " (%s into the run)", fmt_duration(x->best[0].seconds, dur, sizeof dur));
        } else {
            fputs("– | –", f);
        }
        fprintf(f, " | %lld | ", (long long)x->row.count[0]);
        if (x->row.best_rank[1])
            fprintf(f, "%d", x->row.best_rank[1]);
        else
            fputs("–", f);
        fprintf(f, " | %lld |\n", (long long)x->row.count[1]);
    }
    fputs("\n", f);
    if (unsure)
        fputs("A record marked `?` is one whose published sources disagree (`records.tsv`); the number "
              "shown is the one the file lists.\n\n", f);
}

static void emit_runs(FILE *f, const report *R)
{
    fprintf(f, "## Runs\n\n");
    if (R->nr == 0) {
        fprintf(f, "No searches recorded%s.\n\n", R->has_dims ? " for this format" : "");
        return;
    }
    fprintf(f, "| run | format | status | backend | device | seed | started (UTC) | duration | flips "
               "| flips/s | best | record | improvements | schemes |\n");
    fprintf(f, "| ---: | --- | --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: "
               "| ---: |\n");
    for (int i = 0; i < R->nr; i++) {
        const rep_run *r = &R->r[i];
        char fb[32], when[40], dur[32], fl[32], rate[32];
        int rec = search_record_rank(r->row.fmt);
        fprintf(f, "| %lld | %s | ", (long long)r->row.id, scheme_format_str(r->row.fmt, fb));
        md_text(f, r->row.effective); /* "killed": marked running, its process gone */
        fputs(" | ", f);
        md_text(f, r->row.backend);
        fputs(" | ", f);
        md_text(f, r->row.device);
        if (r->row.host[0]) {
            fputs(" on ", f);
            md_text(f, r->row.host);
        }
        fprintf(f, " | %llu | %s | %s | %s | %s | ", (unsigned long long)r->row.seed,
                fmt_when(r->row.started, when, sizeof when),
                r->duration >= 0 ? fmt_duration(r->duration, dur, sizeof dur)
                                 : (!strcmp(r->row.effective, "running") ? "running" : "?"),
                cli_fmt_si((double)r->row.flips, fl, sizeof fl),
                r->duration > 0 ? cli_fmt_si((double)r->row.flips / r->duration, rate, sizeof rate)
                                : "?");
        if (r->row.best_rank)
            fprintf(f, "%s%d%s", rec > 0 && r->row.best_rank <= rec ? "**" : "", r->row.best_rank,
                    rec > 0 && r->row.best_rank <= rec ? "**" : "");
        else
            fputs("–", f);
        if (rec > 0)
            fprintf(f, " | %d", rec);
        else
            fputs(" | ?", f);
        fprintf(f, " | %lld | %lld |\n", (long long)r->row.improvements, (long long)r->row.schemes);
    }
    fputs("\n", f);
}

static void emit_plots(FILE *f, const report *R)
{
    fprintf(f, "## Best rank against time\n\n");
    if (!R->plots) {
        fprintf(f, "Not drawn (`--no-plots`).\n\n");
        return;
    }
    bool missing = false;
    for (int i = 0; i < R->nf; i++)
        missing |= R->f[i].plot == REPORT_PLOT_NO_GNUPLOT;
    if (missing)
        fprintf(f, "**No plots: gnuplot was not found** (`%s`; Debian package `gnuplot-nox`, or set "
                   "`FLIPGRAPH_GNUPLOT`). The data and the gnuplot scripts are here: run "
                   "`gnuplot rank-NxMxP.gp` in this folder once gnuplot is installed.\n\n",
                R->gnuplot);
    else
        fprintf(f, "One curve per run: the best rank it held against the seconds since it started "
                   "(log scale; dots are improvements, the flat tail lasts until the run ended); "
                   "the dashed line is the known record.\n\n");
    int drawn = 0;
    for (int i = 0; i < R->nf; i++) {
        const rep_fmt *x = &R->f[i];
        char fb[32], base[64];
        scheme_format_str(x->row.fmt, fb);
        fmt_base(x->row.fmt, base, sizeof base);
        if (x->plot < 0)
            continue;
        drawn++;
        fprintf(f, "### %s\n\n", fb);
        if (x->plot == REPORT_PLOT_OK)
            fprintf(f, "![%s: best rank against time](%s.png)\n\n", fb, base);
        else if (x->plot == REPORT_PLOT_NO_GNUPLOT)
            fprintf(f, "Not drawn (no gnuplot). ");
        else {
            fprintf(f, "**The plot failed:** ");
            md_text(f, x->plot_err);
            fputs(". ", f);
        }
        fprintf(f, "%d run%s", x->plotted, x->plotted == 1 ? "" : "s");
        if (x->plotted < x->plottable)
            fprintf(f, " of %d (those that reached the lowest rank first)", x->plottable);
        fprintf(f, "; data `%s.dat`, script `%s.gp`.\n\n", base, base);
    }
    if (!drawn)
        fprintf(f, "No run%s has an improvement log to plot.\n\n", R->has_dims ? " of this format" : "");
}

static void emit_report(FILE *f, const report *R)
{
    fprintf(f, "# flipgraph report\n\n");
    fputs("Database `", f);
    md_text(f, R->dbpath);
    fprintf(f, "`, read %s UTC", R->generated);
    if (R->has_dims) {
        char fb[32];
        fprintf(f, ", format %s only", scheme_format_str(R->dims, fb));
    }
    fprintf(f, ".\nIt holds %lld GF(2) and %lld Z schemes of %lld formats, and %lld runs (%lld "
               "still running, %lld killed) with %lld improvements logged.\n\n",
            (long long)R->stats.schemes[0], (long long)R->stats.schemes[1],
            (long long)R->stats.formats, (long long)R->stats.runs, (long long)R->stats.runs_running,
            (long long)R->stats.runs_killed, (long long)R->stats.improvements);
    emit_formats(f, R);
    emit_runs(f, R);
    emit_plots(f, R);
    fprintf(f, "---\nWritten by `flipgraph report` (" FLIPGRAPH_VERSION ", " FLIPGRAPH_GIT_COMMIT
               "). Every stored scheme was verified when it was stored; `flipgraph db check` "
               "verifies them again.\n");
}

typedef struct md_ctx {
    const report *R;
} md_ctx;

static bool write_md(void *ctx, FILE *f)
{
    emit_report(f, ((md_ctx *)ctx)->R);
    return !ferror(f);
}

/* ---- the command ---- */

/* mkdir -p: each missing folder of path. */
static bool make_dirs(const char *path, char *err, size_t errlen)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return scheme_fail(err, errlen, "%s: path too long", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || !*p) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return scheme_fail(err, errlen, "%s: cannot create: %s", buf, strerror(errno));
            *p = c;
            if (!c)
                break;
        }
    }
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return scheme_fail(err, errlen, "%s: not a folder", path);
    return true;
}

enum { OPT_DB = 1000, OPT_DIMS, OPT_NO_PLOTS };

int cmd_report(int argc, char **argv)
{
    static const struct option longs[] = {
        {"db", required_argument, NULL, OPT_DB},
        {"out", required_argument, NULL, 'o'},
        {"dims", required_argument, NULL, OPT_DIMS},
        {"no-plots", no_argument, NULL, OPT_NO_PLOTS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    report R;
    memset(&R, 0, sizeof R);
    R.plots = true;
    const char *opt_db = NULL, *dir = "report";
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", longs, NULL)) != -1) {
        char err[256];
        switch (c) {
        case 'h':
            fputs(usage_text, stdout);
            return CLI_OK;
        case OPT_DB:
            opt_db = optarg;
            break;
        case 'o':
            if (!*optarg)
                return cli_error(CLI_USAGE, CMD, "-o: expected a folder");
            dir = optarg;
            break;
        case OPT_DIMS:
            if (!scheme_format_parse(optarg, &R.dims, err, sizeof err))
                return cli_error(CLI_USAGE, CMD, "--dims: %s", err);
            R.has_dims = true;
            break;
        case OPT_NO_PLOTS:
            R.plots = false;
            break;
        case ':':
            return cli_error(CLI_USAGE, CMD, "option '%s' needs a value", argv[optind - 1]);
        default:
            return cli_error(CLI_USAGE, CMD, "unknown option '%s' (flipgraph report --help)",
                             argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, CMD, "unexpected argument '%s' (flipgraph report --help)",
                         argv[optind]);

    char err[1024];
    db_status st;
    R.dbpath = db_default_path(opt_db);
    db *d = db_open_ex(R.dbpath, 0, &st, err, sizeof err);
    if (!d && st == DB_READONLY)
        d = db_open_ex(R.dbpath, DB_OPEN_READONLY, &st, err, sizeof err);
    if (!d)
        return cli_error(cli_db_exit(st), CMD, "%s", err);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(R.generated, sizeof R.generated, "%Y-%m-%d %H:%M:%S", &tm);
    st = collect(&R, d, err, sizeof err);
    db_close(d);
    int rc = CLI_OK;
    if (st != DB_OK) {
        rc = cli_error(cli_db_exit(st), CMD, "%s: %s", R.dbpath, err);
        goto out;
    }
    if (!make_dirs(dir, err, sizeof err)) {
        rc = cli_error(CLI_USAGE, CMD, "%s", err);
        goto out;
    }

    int plots_ok = 0, plots_failed = 0, plots_missing = 0;
    if (R.plots) {
        R.have_gnuplot = report_gnuplot_find(R.gnuplot, sizeof R.gnuplot);
        for (int i = 0; i < R.nf; i++) {
            make_plot(&R, &R.f[i], dir);
            if (R.f[i].plot == REPORT_PLOT_OK)
                plots_ok++;
            else if (R.f[i].plot == REPORT_PLOT_NO_GNUPLOT)
                plots_missing++;
            else if (R.f[i].plot == REPORT_PLOT_FAILED) {
                plots_failed++;
                cli_error(CLI_INTERNAL, CMD, "%s", R.f[i].plot_err);
            }
        }
    }

    char path[4096];
    snprintf(path, sizeof path, "%s/report.md", dir);
    md_ctx mc = {&R};
    if (!scheme_write_file_atomic(path, write_md, &mc, err, sizeof err)) {
        rc = cli_error(CLI_INTERNAL, CMD, "%s", err);
        goto out;
    }
    printf("wrote %s: %d format%s, %d run%s, %d plot%s\n", path, R.nf, R.nf == 1 ? "" : "s", R.nr,
           R.nr == 1 ? "" : "s", plots_ok, plots_ok == 1 ? "" : "s");
    if (plots_missing) {
        rc = cli_error(CLI_INTERNAL, CMD,
                       "gnuplot not found ('%s'; install the Debian package gnuplot-nox or set "
                       "FLIPGRAPH_GNUPLOT): %d plot%s not drawn; the Markdown, the data and the "
                       "scripts were written",
                       R.gnuplot, plots_missing, plots_missing == 1 ? "" : "s");
    } else if (plots_failed) {
        rc = cli_error(CLI_INTERNAL, CMD, "%d plot%s failed (see above; the Markdown says which)",
                       plots_failed, plots_failed == 1 ? "" : "s");
    }
out:
    for (int i = 0; i < R.nr; i++)
        free(R.r[i].imp);
    free(R.r);
    free(R.f);
    return rc;
}
