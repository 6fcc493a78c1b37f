/* flipgraph: one binary, subcommands. */
#include <stdio.h>
#include <string.h>

#include "../db/db.h"
#include "cli.h"
#include "fg_commit.h" /* FLIPGRAPH_GIT_COMMIT, written at every build */

typedef struct {
    const char *name;
    cli_command_fn fn;
    const char *summary;
} cli_command;

static const cli_command commands[] = {
    {"verify", cmd_verify, "check schemes against the Brent equations (GF(2) or Z)"},
    {"convert", cmd_convert, "convert a scheme between file formats"},
    {"search", cmd_search, "random walks on the flip graph to lower a format's rank"},
    {"db", cmd_db, "the scheme store: init, stats, list, best, show, export, import, check, runs, merge"},
    {"export", cmd_export, "write a scheme for other programs (exp, txt, m, json, bb, tex, md, c)"},
    {"lift", cmd_lift, "Hensel-lift a GF(2) scheme to the integers"},
    {"resize", cmd_resize, "take a GF(2) scheme to a neighbouring format (project, extend)"},
    {"multiply", cmd_multiply, "multiply bit matrices with a chain of schemes (CPU or GPU)"},
    {"matrix", cmd_matrix, "bit-matrix files: random, mul --naive, cmp, info"},
    {"bench", cmd_bench, "benchmarks: verify, search, multiply, store, lift"},
    {"report", cmd_report, "Markdown report and plots of the stored results"},
    {"sweep", cmd_sweep, "search every format of a range, then compare with the records"},
    {"demo", cmd_demo, "the embedded default job: find, verify, store and use a scheme"},
    {"version", cmd_version, "version, commit, GPU backend compiled in and visible"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: flipgraph COMMAND [OPTIONS]   (flipgraph COMMAND --help for each)\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nexit codes: 0 success, 1 negative answer, 2 bad usage or input, 3 internal/device failure\n");
}

int main(int argc, char **argv)
{
    /* Runs and schemes stored by any subcommand record which program wrote them. */
    db_set_program_version(FLIPGRAPH_VERSION " (" FLIPGRAPH_GIT_COMMIT ")");
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "--version"))
        return cmd_version(1, argv + 1);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "flipgraph: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
