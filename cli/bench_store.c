/* flipgraph bench store: placeholder until issue 4 lands; says so plainly. */
#include "cli.h"

int bench_store_cmd(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(CLI_INTERNAL, "bench store", "not implemented in this build (issue 4)");
}
