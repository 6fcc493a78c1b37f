/* flipgraph bench multiply: placeholder until issue 7 lands; says so plainly. */
#include "cli.h"

int bench_multiply_cmd(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(CLI_INTERNAL, "bench multiply", "not implemented in this build (issue 7)");
}
