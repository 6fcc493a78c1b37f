/* flipgraph matrix: bit-matrix files (docs/runtime.md): random, mul --naive, cmp, info. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/runtime.h"
#include "cli.h"

static const char *usage_text =
    "usage: flipgraph matrix random --rows R --cols C [--density D] [--seed S] -o FILE [--format bin|text]\n"
    "       flipgraph matrix mul --naive [--boolean] A B -o C [--format bin|text]\n"
    "       flipgraph matrix cmp X Y\n"
    "       flipgraph matrix info FILE\n"
    "\n"
    "Bit matrices: the binary format (a 64-byte header then rows of 64-bit little-endian\n"
    "words) or text (one row per line of 0 and 1), told apart by their content;\n"
    "docs/runtime.md has both.  Output is binary unless --format text.\n"
    "\n"
    "  random   independent random bits, each 1 with probability D (default 0.5);\n"
    "           without --seed a seed is drawn and printed, so the matrix can be remade\n"
    "  mul      the plain reference product A B (row-by-row), over GF(2) or --boolean (AND/OR)\n"
    "  cmp      exit 0 when equal; exit 1 when they differ, saying where (the first\n"
    "           differing row and column, 0-based, and how many entries differ)\n"
    "  info     dimensions, format, ones\n"
    "\n"
    "exit codes: 0 success/equal, 1 the matrices differ, 2 bad usage or unreadable input,\n"
    "3 out of memory or an I/O failure\n";

static rt_matrix *load(const char *path)
{
    scheme_diag d;
    memset(&d, 0, sizeof d);
    rt_matrix *m = rt_matrix_read_file(path, NULL, &d);
    if (!m) {
        if (d.line > 0)
            fprintf(stderr, "%s:%d:%d: %s\n", d.file[0] ? d.file : path, d.line, d.col, d.msg);
        else
            fprintf(stderr, "%s: %s\n", d.file[0] ? d.file : path, d.msg);
    }
    return m;
}

static bool parse_format(const char *s, rt_file_kind *k)
{
    if (!strcmp(s, "bin") || !strcmp(s, "binary"))
        *k = RT_FILE_BINARY;
    else if (!strcmp(s, "text") || !strcmp(s, "txt"))
        *k = RT_FILE_TEXT;
    else
        return false;
    return true;
}

static int save(const char *cmd, const char *path, const rt_matrix *m, rt_file_kind kind)
{
    char err[512];
    if (!rt_matrix_write_file(path, m, kind, err, sizeof err))
        return cli_error(CLI_INTERNAL, cmd, "%s", err);
    return CLI_OK;
}

static int do_random(int argc, char **argv)
{
    static const struct option opts[] = {
        {"rows", required_argument, 0, 'r'}, {"cols", required_argument, 0, 'c'},
        {"density", required_argument, 0, 'd'}, {"seed", required_argument, 0, 's'},
        {"output", required_argument, 0, 'o'}, {"format", required_argument, 0, 'f'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    long rows = -1, cols = -1;
    double density = 0.5;
    uint64_t seed = 0;
    bool have_seed = false;
    const char *out = NULL;
    rt_file_kind kind = RT_FILE_BINARY;
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'r':
            if (!cli_parse_long(optarg, 1, (long)RT_MAX_DIM, &rows))
                return cli_error(CLI_USAGE, "matrix random", "--rows: expected 1 .. 2^32, got '%s'", optarg);
            break;
        case 'c':
            if (!cli_parse_long(optarg, 1, (long)RT_MAX_DIM, &cols))
                return cli_error(CLI_USAGE, "matrix random", "--cols: expected 1 .. 2^32, got '%s'", optarg);
            break;
        case 'd':
            density = strtod(optarg, &end);
            if (end == optarg || *end || !(density >= 0 && density <= 1))
                return cli_error(CLI_USAGE, "matrix random", "--density: expected a number in [0, 1], got '%s'", optarg);
            break;
        case 's':
            seed = strtoull(optarg, &end, 0);
            if (end == optarg || *end || optarg[0] == '-')
                return cli_error(CLI_USAGE, "matrix random", "--seed: expected a non-negative integer, got '%s'", optarg);
            have_seed = true;
            break;
        case 'o': out = optarg; break;
        case 'f':
            if (!parse_format(optarg, &kind))
                return cli_error(CLI_USAGE, "matrix random", "--format: expected bin or text, got '%s'", optarg);
            break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, "matrix random", "unexpected argument '%s'", argv[optind]);
    if (rows < 0 || cols < 0 || !out)
        return cli_error(CLI_USAGE, "matrix random", "--rows, --cols and -o are required (flipgraph matrix --help)");
    if ((double)rows * (double)((cols + 63) / 64) * 8.0 > (double)RT_MAX_MATRIX_BYTES)
        return cli_error(CLI_USAGE, "matrix random", "%ld x %ld is larger than the limit of %llu GiB",
                         rows, cols, (unsigned long long)(RT_MAX_MATRIX_BYTES >> 30));
    if (!have_seed) {
        seed = cli_random_seed();
        fprintf(stderr, "flipgraph matrix random: --seed %" PRIu64 "\n", seed);
    }
    rt_matrix *m = rt_matrix_new((uint64_t)rows, (uint64_t)cols);
    if (!m)
        return cli_error(CLI_INTERNAL, "matrix random", "out of memory for %ld x %ld", rows, cols);
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    rt_matrix_random(m, &rng, density);
    int rc = save("matrix random", out, m, kind);
    rt_matrix_free(m);
    return rc;
}

static int do_mul(int argc, char **argv)
{
    static const struct option opts[] = {
        {"naive", no_argument, 0, 'n'}, {"boolean", no_argument, 0, 'b'},
        {"output", required_argument, 0, 'o'}, {"format", required_argument, 0, 'f'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    bool naive = false, boolean = false;
    const char *out = NULL;
    rt_file_kind kind = RT_FILE_BINARY;
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': naive = true; break;
        case 'b': boolean = true; break;
        case 'o': out = optarg; break;
        case 'f':
            if (!parse_format(optarg, &kind))
                return cli_error(CLI_USAGE, "matrix mul", "--format: expected bin or text, got '%s'", optarg);
            break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    if (!naive)
        return cli_error(CLI_USAGE, "matrix mul",
                         "only --naive (the reference product) is here; flipgraph multiply uses schemes");
    if (argc - optind != 2 || !out)
        return cli_error(CLI_USAGE, "matrix mul", "expected two input files and -o OUT");
    rt_matrix *A = load(argv[optind]);
    if (!A)
        return CLI_USAGE;
    rt_matrix *B = load(argv[optind + 1]);
    if (!B) {
        rt_matrix_free(A);
        return CLI_USAGE;
    }
    int rc;
    if (A->cols != B->rows) {
        rc = cli_error(CLI_USAGE, "matrix mul", "%s is %" PRIu64 " x %" PRIu64 " and %s is %" PRIu64 " x %" PRIu64
                       ": the columns of the first must equal the rows of the second",
                       argv[optind], A->rows, A->cols, argv[optind + 1], B->rows, B->cols);
    } else {
        rt_matrix *C = rt_matrix_new(A->rows, B->cols);
        if (!C) {
            rc = cli_error(CLI_INTERNAL, "matrix mul", "out of memory");
        } else {
            rt_mul_naive(A, B, C, boolean);
            rc = save("matrix mul", out, C, kind);
            rt_matrix_free(C);
        }
    }
    rt_matrix_free(A);
    rt_matrix_free(B);
    return rc;
}

static int do_cmp(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage_text, stdout);
        return CLI_OK;
    }
    if (argc != 3)
        return cli_error(CLI_USAGE, "matrix cmp", "expected two files");
    rt_matrix *x = load(argv[1]);
    if (!x)
        return CLI_USAGE;
    rt_matrix *y = load(argv[2]);
    if (!y) {
        rt_matrix_free(x);
        return CLI_USAGE;
    }
    rt_diff d;
    rt_matrix_compare(x, y, &d);
    int rc;
    if (!d.same_dims) {
        printf("differ: %s is %" PRIu64 " x %" PRIu64 ", %s is %" PRIu64 " x %" PRIu64 "\n", argv[1],
               x->rows, x->cols, argv[2], y->rows, y->cols);
        rc = CLI_NEGATIVE;
    } else if (d.equal) {
        printf("equal: %" PRIu64 " x %" PRIu64 "\n", x->rows, x->cols);
        rc = CLI_OK;
    } else {
        printf("differ: %" PRIu64 " of %" PRIu64 " x %" PRIu64 " entries, first at row %" PRIu64
               ", column %" PRIu64 " (0-based): %d in %s, %d in %s\n",
               d.count, x->rows, x->cols, d.first_row, d.first_col,
               rt_matrix_get(x, d.first_row, d.first_col), argv[1],
               rt_matrix_get(y, d.first_row, d.first_col), argv[2]);
        rc = CLI_NEGATIVE;
    }
    rt_matrix_free(x);
    rt_matrix_free(y);
    return rc;
}

static int do_info(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage_text, stdout);
        return CLI_OK;
    }
    if (argc != 2)
        return cli_error(CLI_USAGE, "matrix info", "expected one file");
    rt_file_kind kind;
    scheme_diag d;
    memset(&d, 0, sizeof d);
    rt_matrix *m = rt_matrix_read_file(argv[1], &kind, &d);
    if (!m) {
        if (d.line > 0)
            fprintf(stderr, "%s:%d:%d: %s\n", d.file, d.line, d.col, d.msg);
        else
            fprintf(stderr, "%s: %s\n", d.file[0] ? d.file : argv[1], d.msg);
        return CLI_USAGE;
    }
    uint64_t ones = rt_matrix_popcount(m);
    printf("%s: %s bit matrix, %" PRIu64 " x %" PRIu64 ", %" PRIu64 " ones (density %.4f), %" PRIu64
           " words per row\n",
           argv[1], kind == RT_FILE_BINARY ? "binary" : "text", m->rows, m->cols, ones,
           (double)ones / ((double)m->rows * (double)m->cols), m->stride);
    rt_matrix_free(m);
    return CLI_OK;
}

int cmd_matrix(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return CLI_USAGE;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
        fputs(usage_text, stdout);
        return CLI_OK;
    }
    if (!strcmp(sub, "random"))
        return do_random(argc - 1, argv + 1);
    if (!strcmp(sub, "mul"))
        return do_mul(argc - 1, argv + 1);
    if (!strcmp(sub, "cmp"))
        return do_cmp(argc - 1, argv + 1);
    if (!strcmp(sub, "info"))
        return do_info(argc - 1, argv + 1);
    return cli_error(CLI_USAGE, "matrix", "unknown subcommand '%s' (random, mul, cmp, info)", sub);
}
