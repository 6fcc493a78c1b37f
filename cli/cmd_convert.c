/* flipgraph convert: placeholder until issue 2 lands; says so plainly. */
#include "cli.h"

int cmd_convert(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(CLI_INTERNAL, "convert", "not implemented in this build (issue 2)");
}
