/* cli: the flipgraph command and its subcommands.
 *
 * Exit codes (ARCHITECTURE.md section 8), the same for every subcommand:
 *   0 success; 1 a negative answer (a scheme is invalid, a target rank not
 *   reached, two matrices differ); 2 bad usage or unreadable/malformed input;
 *   3 an internal or device failure.
 * Options are long options taking "--opt=value" or "--opt value" (getopt_long).
 */
#ifndef FLIPGRAPH_CLI_H
#define FLIPGRAPH_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "../schemes/scheme.h"

enum {
    CLI_OK = 0,
    CLI_NEGATIVE = 1,
    CLI_USAGE = 2,
    CLI_INTERNAL = 3
};

/* One subcommand: argv[0] is the subcommand's name. */
typedef int (*cli_command_fn)(int argc, char **argv);

int cmd_version(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_lift(int argc, char **argv);
int cmd_multiply(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

/* flipgraph bench SUBJECT: each subject in its own file, cli/bench_SUBJECT.c. */
int bench_verify_cmd(int argc, char **argv);
int bench_search_cmd(int argc, char **argv);
int bench_multiply_cmd(int argc, char **argv);
int bench_store_cmd(int argc, char **argv);
int bench_lift_cmd(int argc, char **argv);

/* Prints "flipgraph CMD: message" to stderr and returns code. */
int cli_error(int code, const char *cmd, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "30s", "10m", "8h", "1h30m", "90" (seconds), "1.5h" -> seconds; false when malformed. */
bool cli_parse_duration(const char *s, double *seconds);
/* A non-negative integer option; false when malformed or out of [lo, hi]. */
bool cli_parse_long(const char *s, long lo, long hi, long *out);
/* Seconds since an arbitrary start (CLOCK_MONOTONIC). */
double cli_now(void);
/* True when --help or -h is among argv. */
bool cli_wants_help(int argc, char **argv);
/* Reads a scheme from a file, printing FILE:LINE:COL: message on failure. */
scheme *cli_read_scheme(const char *cmd, const char *path, const scheme_format *dims);

#endif
