/* flipgraph matrix: placeholder until issue 7 lands; says so plainly. */
#include "cli.h"

int cmd_matrix(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(CLI_INTERNAL, "matrix", "not implemented in this build (issue 7)");
}
