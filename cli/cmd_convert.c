/* flipgraph convert: read a scheme in any known format, write it in another. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: flipgraph convert --to exp|native|txt|m|npz|json [--dims NxMxP] FILE [-o OUT]\n"
            "\n"
            "Reads FILE (Kauers-Moosbauer .exp, Moosbauer-Poole .txt, Mathematica .m,\n"
            "flipgraph's native format, an AlphaTensor .npz or JSON: the FastMatrixMultiplication\n"
            "catalogue's or flipgraph export's; the kind is detected from the content, '-' reads\n"
            "standard input) and writes it in the format given by --to.\n"
            "Reading the output back gives the same scheme.  See docs/formats.md.\n"
            "\n"
            "  --to KIND        exp, native, txt, m, npz (AlphaTensor's layout, one member\n"
            "                   N,M,P.npy) or json (the catalogue's keys n, m, z2, u, v, w)\n"
            "                   (required)\n"
            "  --dims NxMxP     the format, instead of inferring it from the largest indices;\n"
            "                   an index outside it is an error.  Of an .npz of several\n"
            "                   schemes: the member N,M,P.npy to convert\n"
            "  -o, --output OUT write OUT (whole or not at all) instead of standard output\n"
            "  -h, --help       this text\n"
            "\n"
            "exit: 0 converted; 2 bad usage, unreadable or malformed input (FILE:LINE:COL: what\n"
            "was expected), a format the target kind cannot hold, or OUT not writable.\n");
}

int cmd_convert(int argc, char **argv)
{
    static const struct option opts[] = {
        {"to", required_argument, NULL, 't'},
        {"dims", required_argument, NULL, 'd'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *to = NULL, *out = "-";
    scheme_format dims;
    bool have_dims = false;
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 't':
            to = optarg;
            break;
        case 'd': {
            char err[200];
            if (!scheme_format_parse(optarg, &dims, err, sizeof err))
                return cli_error(CLI_USAGE, "convert", "--dims: %s", err);
            have_dims = true;
            break;
        }
        case 'o':
            out = optarg;
            break;
        case 'h':
            usage(stdout);
            return CLI_OK;
        default:
            return cli_error(CLI_USAGE, "convert", "unknown option or missing value: '%s' "
                             "(flipgraph convert --help)", argv[optind - 1]);
        }
    }
    if (!to)
        return cli_error(CLI_USAGE, "convert", "--to exp|native|txt|m|npz|json is required "
                         "(flipgraph convert --help)");
    scheme_file_kind kind = scheme_file_kind_parse(to);
    if (kind == SCHEME_FILE_UNKNOWN)
        return cli_error(CLI_USAGE, "convert", "--to '%s': expected exp, native, txt, m, npz or json "
                         "(other formats: flipgraph export)", to);
    if (optind + 1 != argc)
        return cli_error(CLI_USAGE, "convert", "expected exactly one FILE, got %d "
                         "(flipgraph convert --help)", argc - optind);
    const char *in = argv[optind];
    scheme *s = cli_read_scheme("convert", in, have_dims ? &dims : NULL);
    if (!s)
        return CLI_USAGE;
    char err[600];
    int rc = CLI_OK;
    if (!scheme_writable(s, kind, err, sizeof err)) {
        rc = cli_error(CLI_USAGE, "convert", "%s: cannot write as %s: %s", in, to, err);
    } else {
        scheme_write_ctx ctx = {s, kind};
        if (!scheme_write_file_atomic(out, scheme_write_cb, &ctx, err, sizeof err))
            rc = cli_error(CLI_USAGE, "convert", "%s", err);
    }
    scheme_free(s);
    return rc;
}
