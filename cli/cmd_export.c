/* flipgraph export ID|FILE --to FORMAT [-o OUT] [--db PATH] [--name NAME] [--dims NxMxP] [--mod2]
 *
 * Loads a scheme (by id from the store, or from a file), verifies it over its
 * own ring, and writes it in one of the formats of export/ (docs/export.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "db/db.h"
#include "export/export.h"
#include "verify/verify.h"

static const char *const CMD = "export";

static void usage(FILE *out)
{
    fprintf(out,
            "usage: flipgraph export ID|FILE --to FORMAT [-o OUT] [--db PATH] [--name NAME]\n"
            "                        [--dims NxMxP] [--mod2] [--type f64|f32]\n\n"
            "Writes a scheme for other programs.  ID (only digits) is a scheme of the store\n"
            "(--db PATH, else $FLIPGRAPH_DB, else ./flipgraph.db); anything else is a file in any\n"
            "format flipgraph reads (write ./123 for a file named 123).  The scheme is verified\n"
            "over its ring first: an invalid scheme is refused (exit 1).\n\n"
            "  --to FORMAT     exp   Kauers-Moosbauer (a11+a22)*(b11+b22)*(c11+c22)\n"
            "                  txt   Moosbauer-Poole (a11 + a22) (b11 + b22) (c11 + c22)\n"
            "                  m     Mathematica nested lists {{A, B, C}, ...}\n"
            "                  native flipgraph's own text format\n"
            "                  json  format, ring, rank, hash, matrices a, b, c, provenance\n"
            "                  bb    U, V, W coefficient file of Benson-Ballard's fast-matmul\n"
            "                        and Huang's fmm-gen (needs a scheme valid over Z)\n"
            "                  tex   the terms as a LaTeX longtable\n"
            "                  md    the terms as a Markdown table\n"
            "                  c     C11 straight-line program (uint64_t over GF(2), double over Z)\n"
            "  -o, --output OUT  write to OUT (whole or not at all); default standard output.\n"
            "                  With --to bb, a directory OUT gets their file name, NAMEnmp-R-NNZ\n"
            "  --db PATH       the store, for an ID\n"
            "  --name NAME     function name (c), caption (tex, md), name (json, bb);\n"
            "                  default fg_NxMxP_rR\n"
            "  --dims NxMxP    dimensions of a FILE, when they cannot be inferred\n"
            "  --type f64|f32  with --to c: one level of the scheme (valid over Z) as a routine\n"
            "                  NAME(M, K, N, A, lda, B, ldb, C, ldc) over a CBLAS DGEMM/SGEMM\n"
            "                  (operand sums, products, accumulations, peeling; docs/export.md)\n"
            "  --mod2          export the reduction mod 2 of an integer scheme (a GF(2) scheme:\n"
            "                  e.g. uint64_t code from a lifted scheme)\n"
            "  -h, --help      this text\n\n"
            "exit: 0 written, 1 the scheme is invalid (or not valid over Z for bb),\n"
            "      2 bad usage, unreadable input or unwritable OUT, 3 internal failure\n"
            "See docs/export.md.\n");
}

typedef struct write_ctx {
    const scheme *s;
    export_format fmt;
    const export_info *info;
    int ftype; /* -1: none; 0 f64, 1 f32 (--to c --type) */
} write_ctx;

static bool write_cb(void *ctx, FILE *f)
{
    write_ctx *w = ctx;
    if (w->ftype >= 0)
        return export_write_c_blas(w->s, w->info, w->ftype == 1, f);
    return export_write(w->s, w->fmt, w->info, f);
}

int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        {"to", required_argument, NULL, 't'},
        {"output", required_argument, NULL, 'o'},
        {"db", required_argument, NULL, 'd'},
        {"name", required_argument, NULL, 'n'},
        {"dims", required_argument, NULL, 'D'},
        {"mod2", no_argument, NULL, '2'},
        {"type", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *to = NULL, *out_path = "-", *db_opt = NULL, *name = NULL, *dims_s = NULL;
    bool mod2 = false;
    int ftype = -1;
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case 't': to = optarg; break;
        case 'o': out_path = optarg; break;
        case 'd': db_opt = optarg; break;
        case 'n': name = optarg; break;
        case 'D': dims_s = optarg; break;
        case '2': mod2 = true; break;
        case 'T':
            if (!strcmp(optarg, "f64") || !strcmp(optarg, "double"))
                ftype = 0;
            else if (!strcmp(optarg, "f32") || !strcmp(optarg, "float"))
                ftype = 1;
            else
                return cli_error(CLI_USAGE, CMD, "--type: expected f64 or f32, got '%s'", optarg);
            break;
        case 'h': usage(stdout); return CLI_OK;
        case ':':
            return cli_error(CLI_USAGE, CMD, "option '%s' needs a value (flipgraph export --help)",
                             argv[optind - 1]);
        default:
            return cli_error(CLI_USAGE, CMD, "unknown option '%s' (flipgraph export --help)",
                             argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_error(CLI_USAGE, CMD, "%s (flipgraph export --help)",
                         optind >= argc ? "which scheme? give one ID or FILE" : "give exactly one ID or FILE");
    const char *what = argv[optind];
    export_format fmt;
    if (!to)
        return cli_error(CLI_USAGE, CMD, "--to FORMAT is required (exp, txt, m, native, json, bb, tex, md, c)");
    if (!export_format_parse(to, &fmt))
        return cli_error(CLI_USAGE, CMD, "unknown format '%s' (exp, txt, m, native, json, bb, tex, md, c)", to);
    if (ftype >= 0 && fmt != EXPORT_C)
        return cli_error(CLI_USAGE, CMD, "--type is for --to c (a routine over a CBLAS GEMM)");
    if (name && !export_name_valid(name))
        return cli_error(CLI_USAGE, CMD, "--name '%s': expected a C identifier of at most 63 characters", name);
    scheme_format dims;
    if (dims_s) {
        char err[256];
        if (!scheme_format_parse(dims_s, &dims, err, sizeof err))
            return cli_error(CLI_USAGE, CMD, "--dims '%s': %s", dims_s, err);
    }

    /* ---- load ---- */
    export_info info = {0};
    info.name = name;
    db_scheme_row row;
    memset(&row, 0, sizeof row);
    const char *db_file = NULL;
    scheme *s = NULL;
    if (cli_is_scheme_id(what)) {
        long long id = strtoll(what, NULL, 10);
        db_file = db_default_path(db_opt);
        db_status st;
        bool opened;
        char err[512] = "";
        s = cli_load_stored(db_file, id, &row, &st, &opened, err, sizeof err);
        if (!s && !opened) {
            if (err[0])
                return cli_error(cli_db_exit(st), CMD, "%s", err);
            return cli_error(cli_db_exit(st), CMD, "%s: %s", db_file, db_status_name(st));
        }
        if (!s) {
            if (st == DB_NOT_FOUND)
                return cli_error(CLI_USAGE, CMD, "%s: no scheme with id %lld", db_file, id);
            return cli_error(cli_db_exit(st), CMD, "%s: scheme %lld: %s", db_file, id,
                             err[0] ? err : db_status_name(st));
        }
        info.db_path = db_file;
        info.db_id = id;
        info.source = row.source[0] ? row.source : NULL;
        info.found_at = row.found_at[0] ? row.found_at : NULL;
        info.run_id = row.run_id;
        info.parent_id = row.parent_id;
        info.flips = row.flips;
        info.seconds = row.seconds;
    } else {
        s = cli_read_scheme(CMD, what, dims_s ? &dims : NULL);
        if (!s)
            return CLI_USAGE;
    }

    if (mod2 && s->ring == SCHEME_RING_Z) {
        /* The reduction is checked like any scheme below: valid over Z implies valid mod 2. */
        scheme *r = scheme_to_f2(s);
        scheme_free(s);
        if (!r)
            return cli_error(CLI_INTERNAL, CMD, "out of memory");
        s = r;
    }

    /* ---- refuse what would mislead ---- */
    int rc = CLI_OK;
    verify_result vr;
    memset(&vr, 0, sizeof vr);
    bool valid = s->ring == SCHEME_RING_Z ? verify_z(s, &vr) : verify_f2(s, &vr);
    bool wide = s->fmt.n > 9 || s->fmt.m > 9 || s->fmt.p > 9;
    char fbuf[32];
    if (!valid) {
        fprintf(stderr, "%s: INVALID over %s: %s\n", what, scheme_ring_name(s->ring), vr.msg);
        rc = cli_error(CLI_NEGATIVE, CMD, "refusing to export an invalid scheme");
    } else if (fmt == EXPORT_BB && s->ring == SCHEME_RING_F2 && !verify_z(s, &vr)) {
        /* Their generators compute in floating point: a GF(2)-only scheme would
         * silently give wrong products there. */
        rc = cli_error(CLI_NEGATIVE, CMD,
                       "%s: a GF(2) scheme that is not valid over Z (%s); Benson-Ballard's and "
                       "Huang's generators compute over the reals: lift it first (flipgraph lift)",
                       what, vr.msg);
    } else if (ftype >= 0 && !verify_z(s, &vr)) {
        /* Floats need the integer coefficients: a GF(2)-only scheme computes wrong products. */
        rc = cli_error(CLI_NEGATIVE, CMD,
                       "%s: --type %s needs a scheme valid over Z, and this one is not (%s): lift it "
                       "first (flipgraph lift)", what, ftype ? "f32" : "f64", vr.msg);
    } else if ((fmt == EXPORT_EXP || fmt == EXPORT_TXT) && wide) {
        rc = cli_error(CLI_USAGE, CMD, "%s: the %s format has one digit per index; %s has a dimension above 9",
                       what, to, scheme_format_str(s->fmt, fbuf));
    }
    if (rc != CLI_OK) {
        scheme_free(s);
        return rc;
    }

    /* ---- write ---- */
    char *path = NULL;
    struct stat sb;
    if (fmt == EXPORT_BB && strcmp(out_path, "-") && stat(out_path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        char fname[256];
        export_bb_filename(s, name, fname, sizeof fname);
        size_t n = strlen(out_path) + strlen(fname) + 2;
        path = malloc(n);
        if (!path) {
            scheme_free(s);
            return cli_error(CLI_INTERNAL, CMD, "out of memory");
        }
        snprintf(path, n, "%s%s%s", out_path, out_path[strlen(out_path) - 1] == '/' ? "" : "/", fname);
        out_path = path;
    }
    write_ctx w = {s, fmt, &info, ftype};
    char err[512] = "";
    errno = 0;
    if (!scheme_write_file_atomic(out_path, write_cb, &w, err, sizeof err)) {
        int e = errno;
        bool users = e == ENOENT || e == EACCES || e == EISDIR || e == ENOTDIR || e == EROFS ||
                     e == ENAMETOOLONG || e == EINVAL || e == EPERM;
        rc = cli_error(users ? CLI_USAGE : CLI_INTERNAL, CMD, "%s", err[0] ? err : strerror(e));
    } else if (strcmp(out_path, "-")) {
        fprintf(stderr, "flipgraph export: wrote %s (%s)\n", out_path, to);
    }
    free(path);
    scheme_free(s);
    return rc;
}
