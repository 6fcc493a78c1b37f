/* flipgraph bench verify: placeholder until issue 2 lands; says so plainly. */
#include "cli.h"

int bench_verify_cmd(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(CLI_INTERNAL, "bench verify", "not implemented in this build (issue 2)");
}
