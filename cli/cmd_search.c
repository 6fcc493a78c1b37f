/* flipgraph search: placeholder until issue 3 lands; says so plainly. */
#include "cli.h"

int cmd_search(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(CLI_INTERNAL, "search", "not implemented in this build (issue 3)");
}
