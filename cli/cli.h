/* cli: the flipgraph command and its subcommands.
 *
 * Exit codes (docs/db.md, "Exit codes"), the same for every subcommand:
 *   0 success; 1 a negative answer (a scheme is invalid, a target rank not
 *   reached, two matrices differ); 2 bad usage or unreadable/malformed input;
 *   3 an internal or device failure.
 * Options are long options taking "--opt=value" or "--opt value" (getopt_long).
 */
#ifndef FLIPGRAPH_CLI_H
#define FLIPGRAPH_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "../db/db.h"
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
int cmd_resize(int argc, char **argv);
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
/* bench multiply --type f64|f32 (cli/bench_fmul.c); bench_multiply_cmd hands over to it. */
int bench_multiply_float_cmd(int argc, char **argv);
/* bench multiply --generate (cli/bench_multiply_gen.c): operands from a seed, checked by Freivalds. */
int bench_multiply_generate_cmd(int argc, char **argv);
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
/* The paths args[0..n) with every folder among them replaced by its regular
 * files (names not starting with '.', in name order): a folder of schemes,
 * such as `search --pool-out` writes, as one --from.  *out: n' strings (free
 * with cli_paths_free).  CLI_OK, or an exit code after the message (a folder
 * that cannot be read or holds no file, out of memory). */
int cli_expand_paths(const char *cmd, const char *option, const char *const *args, int n, char ***out, int *nout);
void cli_paths_free(char **paths, int n);
/* Whether PATH is a file that starts like a zip (an AlphaTensor .npz); false
 * for "-" and for what cannot be opened (the reader then says why). */
bool cli_is_npz_path(const char *path);
/* Every scheme of an .npz; NULL with FILE: member 'K': what was expected on stderr. */
scheme_npz *cli_read_npz(const char *cmd, const char *path);
/* "option '-x' is unknown or lacks its value" (optopt set) or "unknown option
 * 'ARG'": the message of a getopt_long failure; returns CLI_USAGE. */
int cli_option_error(const char *cmd, char **argv);

/* ---- schemes by ID or FILE (export, lift, multiply --scheme) ---- */

/* An ID|FILE argument is a scheme id of the store when it is digits only
 * (write ./123 for a file named 123). */
bool cli_is_scheme_id(const char *arg);
/* The exit code of a store failure (the table of docs/db.md): DB_INVALID 1;
 * what the user gave (missing, read-only, not flipgraph's, newer, corrupt, no
 * such id, a request that makes no sense such as merging a file into itself)
 * 2; the rest (busy, full, I/O) 3. */
int cli_db_exit(db_status st);
/* A stored scheme by id, with the store at path opened read-only for the time
 * of the read; row (may be NULL) gets its provenance.  NULL on failure, with
 * *st and err saying why and *opened false when the store itself could not be
 * opened: the caller words the message. */
scheme *cli_load_stored(const char *path, int64_t id, db_scheme_row *row, db_status *st, bool *opened,
                        char *err, size_t errlen);

/* ---- helpers of the reports and benchmarks ---- */

/* A seed from /dev/urandom, else from the clock and the process id; never 0. */
uint64_t cli_random_seed(void);
/* 12345678 -> "12.3 M": counts a reader takes in at a glance. */
/* 1234567 with sep " " -> "1.23 M", with "" -> "1.23M" (SI prefixes up to Y). */
const char *cli_fmt_si_sep(double v, const char *sep, char *buf, size_t len);
const char *cli_fmt_si(double v, char *buf, size_t len);
/* qsort order of doubles (timings: best first, median in the middle). */
int cli_cmp_double(const void *a, const void *b);
/* The corpus folder of the benchmarks: option (--corpus DIR), else
 * $FLIPGRAPH_CORPUS, else the repository's data/corpus, seen from the working
 * directory, from the binary's folder or from the configured source tree.  false when no corpus is there,
 * after saying where it looked. */
bool cli_find_corpus(const char *cmd, const char *option, char *buf, size_t len);

/* ---- the output of long runs (cli/progress.c; docs/search.md, "Progress output") ---- */

struct search_progress;
/* "flipgraph 0.1.0, commit 7a55ea1, RelWithDebInfo build, gcc 12.2.0": what
 * was built (commit at configure time), for banners and `flipgraph version`. */
const char *cli_build_info(char *buf, size_t len);
/* 3725.2 -> "1:02:05" (hours not wrapped). */
const char *cli_fmt_hms(double seconds, char *buf, size_t len);
/* 1234567 -> "1.23M": a one-word table cell (cli_fmt_si has a space). */
const char *cli_fmt_si_cell(double v, char *buf, size_t len);
/* The progress table: a header line and rows of the same width, every cell
 * one word right-aligned under its header, no newline at the end.  The
 * header is reprinted before every CLI_PROGRESS_HEADER_EVERY rows. */
#define CLI_PROGRESS_HEADER_EVERY 20
const char *cli_progress_header(char *buf, size_t len);
/* A row from a progress report and the schemes this run stored so far
 * (UINT64_MAX: "-", a run that stores nothing). */
const char *cli_progress_row(char *buf, size_t len, const struct search_progress *pr, uint64_t stored);
/* The progress bar of a long product (multiply, bench multiply --generate):
 * "[#####.....] 12/49 subproblems, 0.8/s, elapsed 0:00:15, ETA 0:00:46". */
const char *cli_progress_bar(char *buf, size_t len, uint64_t done, uint64_t total, double seconds);

/* ---- bit-matrix products (cli/cmd_multiply.c) ---- */

struct export_plan;
struct rt_executor;
/* --devices LIST: "cpu" or a GPU index per executor, comma-separated; false
 * after a message naming the option. */
bool cli_parse_devices(const char *cmd, const char *list, struct rt_executor *ex, int *n, int max);
/* The executors of a bit product: --devices LIST, else --backend's one (GPU 0
 * or the CPU); the CPU executors share `threads` (0: rt_default_threads())
 * evenly, one thread at least.  false after a message naming the option. */
bool cli_executors(const char *cmd, const char *devices, bool gpu, long threads, struct rt_executor *ex, int *nex,
                   int max);
/* Three matrix dimensions "RxKxC" (1 .. RT_MAX_DIM each), separated by any
 * character of seps; with square_ok a single "N" is NxNxN. */
bool cli_parse_dims3(const char *s, const char *seps, bool square_ok, uint64_t v[3]);
/* The plan of --scheme LIST [--levels L] [--boolean] (each scheme resolved,
 * verified; Boolean with levels: valid over Z); false after a message. */
bool cli_bit_plan(const char *cmd, const char *scheme_list, long levels, bool boolean, const char *db_opt,
                  struct export_plan *plan);
/* A progress callback of the host layer (rt_host_config.progress): a bar on
 * standard error after the first second, redrawn in place on a terminal, a
 * line every 10 s otherwise.  ctx: a cli_progress_state. */
typedef struct cli_progress_state {
    bool tty, shown;
    double last;
} cli_progress_state;
void cli_progress_init(cli_progress_state *ps);
void cli_progress_cb(void *ctx, uint64_t done, uint64_t total, double seconds);
/* A line between the rows (an improvement): the time in the elapsed column, then text. */
const char *cli_progress_event(char *buf, size_t len, double seconds, const char *text);
/* "key=value" lines as a grid of per_line columns, each line starting with
 * indent and ending with a newline (the banner's parameters); caller frees;
 * NULL when out of memory. */
char *cli_kv_columns(const char *text, int per_line, const char *indent);
/* --until-record: the target rank that stops at the format's GF(2) record,
 * combined with an explicit target (0: none) as the higher of the two (the
 * earlier stop); -1 when the format has no known record. */
int cli_until_record_target(scheme_format f, int target_rank);
/* The same over a ring: the z column of records.tsv for SCHEME_RING_Z. */
int cli_until_record_target_ring(scheme_format f, scheme_ring ring, int target_rank);

#endif
