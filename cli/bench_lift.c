/* flipgraph bench lift: placeholder until issue 6 lands; says so plainly. */
#include "cli.h"

int bench_lift_cmd(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(CLI_INTERNAL, "bench lift", "not implemented in this build (issue 6)");
}
