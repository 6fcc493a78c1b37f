/* flipgraph matrix: bit-matrix files (docs/runtime.md) and .npy float matrices
 * (docs/float.md): random, mul --naive, cmp, info. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/runtime.h"
#include "cli.h"

static const char *usage_text =
    "usage: flipgraph matrix random --rows R --cols C [--density D] [--seed S] -o FILE [--format bin|text]\n"
    "       flipgraph matrix random --type f64|f32 --rows R --cols C [--seed S] -o FILE.npy [--order c|f]\n"
    "       flipgraph matrix mul --naive [--boolean] A B -o C [--format bin|text]\n"
    "       flipgraph matrix cmp X Y [--tol T]\n"
    "       flipgraph matrix info FILE\n"
    "\n"
    "Bit matrices: the binary format (a 64-byte header then rows of 64-bit little-endian\n"
    "words) or text (one row per line of 0 and 1), told apart by their content;\n"
    "docs/runtime.md has both.  Output is binary unless --format text.  Float matrices:\n"
    "NumPy .npy files (little-endian float32/float64, 2-D, C or Fortran order;\n"
    "docs/float.md), told apart by their magic.\n"
    "\n"
    "  random   independent random bits, each 1 with probability D (default 0.5);\n"
    "           with --type, independent uniform entries in [-1, 1) as a .npy file\n"
    "           (--order f writes Fortran order); without --seed a seed is drawn and\n"
    "           printed, so the matrix can be remade\n"
    "  mul      the plain reference product A B (row-by-row), over GF(2) or --boolean (AND/OR);\n"
    "           for .npy files the triple loop in long double, rounded once\n"
    "  cmp      exit 0 when equal; exit 1 when they differ, saying where (the first\n"
    "           differing row and column, 0-based, and how many entries differ); for\n"
    "           .npy files equal means every |x - y| <= T (default 0), and the largest\n"
    "           difference is printed\n"
    "  info     dimensions, format, ones (bit matrices) or type, order, largest |entry|\n"
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

static int random_float(long rows, long cols, rt_ftype type, bool have_seed, uint64_t seed,
                        const char *out, bool fortran)
{
    if ((double)rows * (double)cols * (double)rt_ftype_size(type) > (double)RT_MAX_MATRIX_BYTES)
        return cli_error(CLI_USAGE, "matrix random", "%ld x %ld %s is larger than the limit of %llu GiB",
                         rows, cols, rt_ftype_name(type), (unsigned long long)(RT_MAX_MATRIX_BYTES >> 30));
    if (!have_seed) {
        seed = cli_random_seed();
        fprintf(stderr, "flipgraph matrix random: --seed %" PRIu64 "\n", seed);
    }
    rt_fmatrix *m = rt_fmatrix_new((uint64_t)rows, (uint64_t)cols, type);
    if (!m)
        return cli_error(CLI_INTERNAL, "matrix random", "out of memory for %ld x %ld", rows, cols);
    scheme_rng rng;
    scheme_rng_seed(&rng, seed);
    rt_fmatrix_random(m, &rng);
    char err[512];
    int rc = CLI_OK;
    if (!rt_npy_write_file(out, m, fortran, err, sizeof err))
        rc = cli_error(CLI_INTERNAL, "matrix random", "%s", err);
    rt_fmatrix_free(m);
    return rc;
}

static void print_fdiag(const char *path, const scheme_diag *d)
{
    fprintf(stderr, "%s: %s\n", d->file[0] ? d->file : path, d->msg);
}

static rt_fmatrix *load_float(const char *path)
{
    scheme_diag d;
    memset(&d, 0, sizeof d);
    rt_fmatrix *m = rt_npy_read_file(path, &d);
    if (!m)
        print_fdiag(path, &d);
    return m;
}

static int mul_float(const char *a, const char *b, const char *out)
{
    rt_fmatrix *A = load_float(a), *B = A ? load_float(b) : NULL, *C = NULL;
    int rc = CLI_USAGE;
    if (!A || !B)
        goto done;
    if (A->type != B->type) {
        cli_error(CLI_USAGE, "matrix mul", "%s holds %s and %s holds %s: both must be of one type", a,
                  rt_ftype_name(A->type), b, rt_ftype_name(B->type));
        goto done;
    }
    if (A->cols != B->rows) {
        cli_error(CLI_USAGE, "matrix mul", "%s is %" PRIu64 " x %" PRIu64 " and %s is %" PRIu64 " x %" PRIu64
                  ": the columns of the first must equal the rows of the second", a, A->rows, A->cols,
                  b, B->rows, B->cols);
        goto done;
    }
    if (!(C = rt_fmatrix_new(A->rows, B->cols, A->type)) || !rt_fmul_reference(A, B, C)) {
        rc = cli_error(CLI_INTERNAL, "matrix mul", "out of memory");
        goto done;
    }
    char err[512];
    rc = rt_npy_write_file(out, C, false, err, sizeof err) ? CLI_OK : cli_error(CLI_INTERNAL, "matrix mul", "%s", err);
done:
    rt_fmatrix_free(A);
    rt_fmatrix_free(B);
    rt_fmatrix_free(C);
    return rc;
}

static int cmp_float(const char *xp, const char *yp, double tol)
{
    rt_fmatrix *x = load_float(xp), *y = x ? load_float(yp) : NULL;
    int rc = CLI_USAGE;
    if (!x || !y)
        goto done;
    if (x->rows != y->rows || x->cols != y->cols || x->type != y->type) {
        printf("differ: %s is %" PRIu64 " x %" PRIu64 " %s, %s is %" PRIu64 " x %" PRIu64 " %s\n", xp,
               x->rows, x->cols, rt_ftype_name(x->type), yp, y->rows, y->cols, rt_ftype_name(y->type));
        rc = CLI_NEGATIVE;
        goto done;
    }
    long double worst = -1;
    uint64_t wr = 0, wc = 0, count = 0;
    for (uint64_t r = 0; r < x->rows; r++)
        for (uint64_t c = 0; c < x->cols; c++) {
            long double a = rt_fmatrix_get(x, r, c), b = rt_fmatrix_get(y, r, c);
            long double e = a == b ? 0 : fabsl(a - b);
            if (a != b && !(e <= tol)) /* NaN differs */
                count++;
            if (!(e <= worst)) {
                worst = e;
                wr = r;
                wc = c;
            }
        }
    if (count == 0) {
        printf("equal: %" PRIu64 " x %" PRIu64 " %s, largest difference %.3Le (tolerance %.3e)\n", x->rows,
               x->cols, rt_ftype_name(x->type), worst, tol);
        rc = CLI_OK;
    } else {
        printf("differ: %" PRIu64 " of %" PRIu64 " x %" PRIu64 " entries by more than %.3e; the largest, "
               "%.3Le, at row %" PRIu64 ", column %" PRIu64 " (0-based): %.17Lg in %s, %.17Lg in %s\n",
               count, x->rows, x->cols, tol, worst, wr, wc, rt_fmatrix_get(x, wr, wc), xp,
               rt_fmatrix_get(y, wr, wc), yp);
        rc = CLI_NEGATIVE;
    }
done:
    rt_fmatrix_free(x);
    rt_fmatrix_free(y);
    return rc;
}

static int do_random(int argc, char **argv)
{
    static const struct option opts[] = {
        {"rows", required_argument, 0, 'r'}, {"cols", required_argument, 0, 'c'},
        {"density", required_argument, 0, 'd'}, {"seed", required_argument, 0, 's'},
        {"output", required_argument, 0, 'o'}, {"format", required_argument, 0, 'f'},
        {"type", required_argument, 0, 'T'}, {"order", required_argument, 0, 'O'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    long rows = -1, cols = -1;
    bool have_type = false, fortran = false, have_density = false, have_format = false;
    rt_ftype ftype = RT_F64;
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
            have_density = true;
            break;
        case 'T':
            if (!rt_ftype_parse(optarg, &ftype))
                return cli_error(CLI_USAGE, "matrix random", "--type: expected f64 or f32, got '%s'", optarg);
            have_type = true;
            break;
        case 'O':
            if (!strcmp(optarg, "f") || !strcmp(optarg, "F") || !strcmp(optarg, "fortran"))
                fortran = true;
            else if (!strcmp(optarg, "c") || !strcmp(optarg, "C"))
                fortran = false;
            else
                return cli_error(CLI_USAGE, "matrix random", "--order: expected c or f, got '%s'", optarg);
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
            have_format = true;
            break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, "matrix random", "unexpected argument '%s'", argv[optind]);
    if (rows < 0 || cols < 0 || !out)
        return cli_error(CLI_USAGE, "matrix random", "--rows, --cols and -o are required (flipgraph matrix --help)");
    if (have_type && (have_density || have_format))
        return cli_error(CLI_USAGE, "matrix random", "--density and --format are for bit matrices; "
                         "--type %s writes a .npy file of uniform entries in [-1, 1)", rt_ftype_name(ftype));
    if (!have_type && fortran)
        return cli_error(CLI_USAGE, "matrix random", "--order is for float matrices (--type f64|f32)");
    if (have_type)
        return random_float(rows, cols, ftype, have_seed, seed, out, fortran);
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
    if (rt_npy_is_npy(argv[optind]) || rt_npy_is_npy(argv[optind + 1])) {
        if (boolean)
            return cli_error(CLI_USAGE, "matrix mul", "--boolean is for bit matrices, not .npy files");
        return mul_float(argv[optind], argv[optind + 1], out);
    }
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
    double tol = 0;
    const char *files[2];
    int nf = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--tol")) {
            if (i + 1 == argc)
                return cli_error(CLI_USAGE, "matrix cmp", "--tol needs a value");
            v = argv[++i];
        } else if (!strncmp(argv[i], "--tol=", 6)) {
            v = argv[i] + 6;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_error(CLI_USAGE, "matrix cmp", "unknown option '%s'", argv[i]);
        } else if (nf == 2) {
            return cli_error(CLI_USAGE, "matrix cmp", "expected two files");
        } else {
            files[nf++] = argv[i];
            continue;
        }
        char *end;
        tol = strtod(v, &end);
        if (end == v || *end || !(tol >= 0))
            return cli_error(CLI_USAGE, "matrix cmp", "--tol: expected a number >= 0, got '%s'", v);
    }
    if (nf != 2)
        return cli_error(CLI_USAGE, "matrix cmp", "expected two files");
    if (rt_npy_is_npy(files[0]) || rt_npy_is_npy(files[1]))
        return cmp_float(files[0], files[1], tol);
    if (tol > 0)
        return cli_error(CLI_USAGE, "matrix cmp", "--tol is for .npy float matrices; bit matrices are equal or not");
    argv[1] = (char *)files[0];
    argv[2] = (char *)files[1];
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
    if (rt_npy_is_npy(argv[1])) {
        uint64_t rows, cols;
        rt_ftype type;
        bool fortran;
        scheme_diag fd;
        memset(&fd, 0, sizeof fd);
        if (!rt_npy_read_dims(argv[1], &rows, &cols, &type, &fortran, &fd)) {
            print_fdiag(argv[1], &fd);
            return CLI_USAGE;
        }
        rt_fmatrix *fm = load_float(argv[1]);
        if (!fm)
            return CLI_USAGE;
        printf("%s: .npy %s matrix, %" PRIu64 " x %" PRIu64 ", %s order, largest |entry| %.6g\n", argv[1],
               rt_ftype_name(type), rows, cols, fortran ? "Fortran" : "C", rt_fmatrix_max_abs(fm));
        rt_fmatrix_free(fm);
        return CLI_OK;
    }
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
