/* flipgraph bench SUBJECT: benchmarks that print a short table, ours against
 * a baseline (the subjects below name it), side by side in one run. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    cli_command_fn fn;
    const char *what;
} subjects[] = {
    {"verify", bench_verify_cmd, "verifications/s, bit-parallel against a triple-loop reference"},
    {"search", bench_search_cmd, "flips/s per thread and time to rank (CPU walker; GPU with --backend gpu)"},
    {"multiply", bench_multiply_cmd, "effective bit operations/s of scheme plans against M4RI / cuBLAS; --type f64|f32: float chains against the BLAS's GEMM"},
    {"store", bench_store_cmd, "stored schemes/s, batched against one transaction per insert"},
    {"lift", bench_lift_cmd, "Hensel lifting time per scheme"},
};

int cmd_bench(int argc, char **argv)
{
    size_t n = sizeof subjects / sizeof *subjects;
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        FILE *out = argc < 2 ? stderr : stdout;
        fprintf(out, "usage: flipgraph bench SUBJECT [OPTIONS]\n\n");
        for (size_t i = 0; i < n; i++)
            fprintf(out, "  %-9s %s\n", subjects[i].name, subjects[i].what);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    for (size_t i = 0; i < n; i++)
        if (!strcmp(argv[1], subjects[i].name))
            return subjects[i].fn(argc - 1, argv + 1);
    return cli_error(CLI_USAGE, "bench", "unknown subject '%s' (flipgraph bench --help)", argv[1]);
}
