/* flipgraph bench search: placeholder until issue 3 lands; says so plainly. */
#include "cli.h"

int bench_search_cmd(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(CLI_INTERNAL, "bench search", "not implemented in this build (issue 3)");
}
