/* The text of a long run's output (README.md, docs/search.md): the build line
 * of the banner, the parameters as an aligned grid, and the progress table
 * (docs/search.md, "Progress output").
 *
 * Pure functions into caller buffers: tests/test_cli.c compiles this file in
 * to check the table's alignment without running a search, so it calls
 * nothing of the other cli/ files.  The table is plain ASCII, one line per
 * row, no carriage returns and no colour: a file it is piped to reads like
 * the terminal did.  Every cell is one word, right-aligned in a fixed width;
 * the widths hold any value a run can reach (ranks up to SCHEME_MAX_RANK,
 * counts in SI units, elapsed times up to 9999 hours), so the columns stay
 * under their headers. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../search/search.h"
#include "cli.h"
#include "fg_commit.h" /* FLIPGRAPH_GIT_COMMIT, written at every build */

#ifndef FLIPGRAPH_VERSION
#define FLIPGRAPH_VERSION "unknown"
#endif
#ifndef FLIPGRAPH_BUILD_TYPE
#define FLIPGRAPH_BUILD_TYPE "unknown"
#endif

/* The compiler that compiled this file: the one that built the binary. */
#if defined(__clang__)
#define FG_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define FG_COMPILER "gcc " __VERSION__
#else
#define FG_COMPILER "an unknown C compiler"
#endif

const char *cli_build_info(char *buf, size_t len)
{
    snprintf(buf, len, "flipgraph %s, commit %s, %s build, %s", FLIPGRAPH_VERSION, FLIPGRAPH_GIT_COMMIT,
             FLIPGRAPH_BUILD_TYPE, FG_COMPILER);
    return buf;
}

const char *cli_fmt_hms(double s, char *buf, size_t len)
{
    if (!(s >= 0))
        s = 0;
    if (s > 9999.0 * 3600 + 3599)
        s = 9999.0 * 3600 + 3599;
    long t = (long)s;
    snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    return buf;
}

const char *cli_fmt_si_sep(double v, const char *sep, char *buf, size_t len)
{
    static const char sfx[] = " kMGTPEZY";
    int k = 0;
    /* 999.5 rounds to "1e+03" under %.3g: it is the next unit's 1 */
    while (v >= 999.5 && k < 8) {
        v /= 1000;
        k++;
    }
    if (k == 0)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.3g%s%c", v, sep, sfx[k]);
    return buf;
}

const char *cli_fmt_si_cell(double v, char *buf, size_t len)
{
    return cli_fmt_si_sep(v >= 0 ? v : 0, "", buf, len); /* a cell: no space, never negative */
}

/* ---- the progress table ---- */

enum {
    COL_ELAPSED, COL_RATE, COL_FLIPS, COL_BEST, COL_RECORD, COL_GAP, COL_WALKERS, COL_MIN, COL_MED,
    COL_MAX, COL_PLATEAU, COL_STORED, COL_LEVEL, COL_POOL, NCOLS
};

/* Widths: h:mm:ss fits 9 up to 999 hours (a longer run widens its time
 * cells by one); SI cells are at most 5 ("999k", "1.23G"); ranks at most
 * SCHEME_MAX_RANK = 4096 (4), a gap "+4095" (5); counts (walkers, stored,
 * pool) exact while they fit, else in SI units (count_cell). */
static const struct {
    const char *name;
    int width;
} cols[NCOLS] = {
    {"elapsed", 9}, {"flips/s", 7}, {"flips", 7},   {"best", 4},    {"record", 6},
    {"gap", 5},     {"walkers", 7}, {"min", 4},     {"med", 4},     {"max", 4},
    {"plateau", 9}, {"stored", 6},  {"level", 5},   {"pool", 5},
};
#define GAP "  "

/* A count in column col: exact while it fits, else "16.8M". */
static void count_cell(char *cell, int col, uint64_t v)
{
    snprintf(cell, 32, "%" PRIu64, v);
    if ((int)strlen(cell) > cols[col].width)
        cli_fmt_si_cell((double)v, cell, 32);
}

/* Appends cells[0..NCOLS) right-aligned into buf. */
static const char *join(char *buf, size_t len, char cells[NCOLS][32])
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < NCOLS && at < len; i++) {
        int n = snprintf(buf + at, len - at, "%s%*s", i ? GAP : "", cols[i].width, cells[i]);
        if (n < 0)
            break;
        at += (size_t)n;
    }
    return buf;
}

const char *cli_progress_header(char *buf, size_t len)
{
    char cells[NCOLS][32];
    for (int i = 0; i < NCOLS; i++)
        snprintf(cells[i], sizeof cells[i], "%s", cols[i].name);
    return join(buf, len, cells);
}

const char *cli_progress_row(char *buf, size_t len, const struct search_progress *pr, uint64_t stored)
{
    char cells[NCOLS][32];
    cli_fmt_hms(pr->seconds, cells[COL_ELAPSED], 32);
    cli_fmt_si_cell(pr->flips_per_s, cells[COL_RATE], 32);
    cli_fmt_si_cell((double)pr->flips, cells[COL_FLIPS], 32);
    snprintf(cells[COL_BEST], 32, "%d", pr->best_rank);
    if (pr->record > 0) {
        snprintf(cells[COL_RECORD], 32, "%d", pr->record);
        snprintf(cells[COL_GAP], 32, "%+d", pr->best_rank - pr->record);
        if (pr->best_rank == pr->record)
            snprintf(cells[COL_GAP], 32, "0");
    } else {
        snprintf(cells[COL_RECORD], 32, "-");
        snprintf(cells[COL_GAP], 32, "-");
    }
    if (pr->walkers > 0) {
        count_cell(cells[COL_WALKERS], COL_WALKERS, (uint64_t)pr->walkers);
        snprintf(cells[COL_MIN], 32, "%d", pr->rank_min);
        snprintf(cells[COL_MED], 32, "%d", pr->rank_median);
        snprintf(cells[COL_MAX], 32, "%d", pr->rank_max);
    } else {
        for (int i = COL_WALKERS; i <= COL_MAX; i++)
            snprintf(cells[i], 32, "-");
    }
    cli_fmt_hms(pr->best_age, cells[COL_PLATEAU], 32);
    if (stored == UINT64_MAX)
        snprintf(cells[COL_STORED], 32, "-");
    else
        count_cell(cells[COL_STORED], COL_STORED, stored);
    if (pr->level > 0) {
        snprintf(cells[COL_LEVEL], 32, "%d", pr->level);
        count_cell(cells[COL_POOL], COL_POOL, (uint64_t)(pr->level_count > 0 ? pr->level_count : 0));
    } else {
        snprintf(cells[COL_LEVEL], 32, "-");
        snprintf(cells[COL_POOL], 32, "-");
    }
    return join(buf, len, cells);
}

const char *cli_progress_event(char *buf, size_t len, double seconds, const char *text)
{
    char t[32];
    snprintf(buf, len, "%*s" GAP "%s", cols[COL_ELAPSED].width, cli_fmt_hms(seconds, t, sizeof t), text);
    return buf;
}

/* ---- the parameters of the banner ---- */

/* One "key=value" item as shown: a decimal fraction stored with every digit
 * (time=0.20000000000000001, so that a resume reads back the same double)
 * shown with 6 significant digits; integers (the seed) exactly as stored. */
static size_t kv_item(const char *s, size_t n, char *out, size_t len)
{
    snprintf(out, len, "%.*s", (int)n, s);
    char *eq = strchr(out, '=');
    if (eq && strpbrk(eq + 1, ".eE")) {
        char *end;
        double v = strtod(eq + 1, &end);
        if (end != eq + 1 && !*end)
            snprintf(eq + 1, len - (size_t)(eq + 1 - out), "%.6g", v);
    }
    return strlen(out);
}

char *cli_kv_columns(const char *text, int per_line, const char *indent)
{
    if (per_line < 1)
        per_line = 1;
    char item[256];
    /* the widest "key=value" sets the column width */
    size_t widest = 0, items = 0;
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        if (n) {
            items++;
            size_t w = kv_item(s, n, item, sizeof item);
            if (w > widest)
                widest = w;
        }
        s += n + (nl ? 1 : 0);
    }
    size_t lines = (items + (size_t)per_line - 1) / (size_t)per_line;
    size_t cap = items * (widest + 2) + lines * (strlen(indent) + 1) + 1;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t at = 0, col = 0;
    out[0] = 0;
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        if (n) {
            bool last = col + 1 == (size_t)per_line || !nl || !nl[1];
            size_t w = kv_item(s, n, item, sizeof item);
            at += (size_t)snprintf(out + at, cap - at, "%s%s", col ? "" : indent, item);
            if (last) {
                at += (size_t)snprintf(out + at, cap - at, "\n");
                col = 0;
            } else {
                at += (size_t)snprintf(out + at, cap - at, "%*s", (int)(widest + 2 - w), "");
                col++;
            }
        }
        s += n + (nl ? 1 : 0);
    }
    if (col) /* text without a final newline */
        at += (size_t)snprintf(out + at, cap - at, "\n");
    return out;
}

/* ---- the progress bar of long products (docs/host-layer.md) ---- */

const char *cli_progress_bar(char *buf, size_t len, uint64_t done, uint64_t total, double seconds)
{
    enum { WIDTH = 30 };
    char bar[WIDTH + 1], el[32], eta[32];
    uint64_t fill = total ? done * WIDTH / total : WIDTH;
    for (int i = 0; i < WIDTH; i++)
        bar[i] = (uint64_t)i < fill ? '#' : '.';
    bar[WIDTH] = 0;
    double rate = seconds > 0 ? (double)done / seconds : 0;
    cli_fmt_hms(seconds, el, sizeof el);
    if (done > 0 && done < total)
        cli_fmt_hms((double)(total - done) / rate, eta, sizeof eta);
    else
        snprintf(eta, sizeof eta, done >= total ? "0:00:00" : "-");
    snprintf(buf, len, "[%s] %" PRIu64 "/%" PRIu64 " subproblems, %.3g/s, elapsed %s, ETA %s", bar, done, total,
             rate, el, eta);
    return buf;
}
