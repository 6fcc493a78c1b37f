/* flipgraph verify: placeholder until issue 2 lands; says so plainly. */
#include "cli.h"

int cmd_verify(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(CLI_INTERNAL, "verify", "not implemented in this build (issue 2)");
}
