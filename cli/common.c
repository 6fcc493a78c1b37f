/* Helpers shared by the subcommands: errors, durations, numbers, clocks. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

bool cli_parse_duration(const char *s, double *seconds)
{
    double total = 0;
    const char *q = s;
    if (!*q)
        return false;
    while (*q) {
        char *end;
        errno = 0;
        double v = strtod(q, &end);
        if (end == q || errno || v < 0)
            return false;
        q = end;
        double unit = 1;
        if (*q == 's') unit = 1, q++;
        else if (*q == 'm') unit = 60, q++;
        else if (*q == 'h') unit = 3600, q++;
        else if (*q == 'd') unit = 86400, q++;
        else if (*q) return false;
        total += v * unit;
    }
    *seconds = total;
    return true;
}

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
