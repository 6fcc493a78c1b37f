/* flipgraph export: placeholder until issue 6 lands; says so plainly. */
#include "cli.h"

int cmd_export(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(CLI_INTERNAL, "export", "not implemented in this build (issue 6)");
}
