/* flipgraph db: placeholder until issue 4 lands; says so plainly. */
#include "cli.h"

int cmd_db(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(CLI_INTERNAL, "db", "not implemented in this build (issue 4)");
}
