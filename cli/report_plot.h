/* flipgraph report: plots of best rank against time, drawn by gnuplot
 * (docs/report.md).  For each format the report writes three files into its
 * folder: BASE.dat (the improvement logs, one gnuplot index block per run),
 * BASE.gp (a gnuplot script a user can edit and rerun: `gnuplot BASE.gp`)
 * and BASE.png, the plot, written whole or not at all. */
#ifndef FLIPGRAPH_REPORT_PLOT_H
#define FLIPGRAPH_REPORT_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../db/db.h"

/* One run's curve: its improvements (seconds into the run, rank), oldest
 * first, and how long the run lasted (the last rank is drawn up to there). */
typedef struct report_series {
    char title[96];
    const db_improvement *pts;
    int64_t n;
    double end_s;
} report_series;

typedef enum report_plot_status {
    REPORT_PLOT_OK = 0,
    REPORT_PLOT_NO_GNUPLOT, /* data and script written, no PNG: gnuplot is not installed */
    REPORT_PLOT_FAILED      /* a file could not be written, or gnuplot failed (err says) */
} report_plot_status;

/* The gnuplot program to run: $FLIPGRAPH_GNUPLOT, else "gnuplot" found on
 * $PATH.  Returns false (path = what was looked for) when it is missing. */
bool report_gnuplot_find(char *path, size_t len);

/* Writes DIR/BASE.dat and DIR/BASE.gp, then, when gnuplot is not NULL, runs
 * it to make DIR/BASE.png (its PNG signature checked before the rename).
 * record: the known rank drawn as a dashed line (<= 0: none). */
report_plot_status report_plot_rank(const char *dir, const char *base, const char *title,
                                    int record, const report_series *s, int n,
                                    const char *gnuplot, char *err, size_t errlen);

#endif
