/* flipgraph sweep: placeholder until issue 9 lands; says so plainly. */
#include "cli.h"

int cmd_sweep(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(CLI_INTERNAL, "sweep", "not implemented in this build (issue 9)");
}
