/* flipgraph version: what was built and what this machine can run. */
#include <stdio.h>

#include "../cuda/fg_cuda.h"
#include "../search/search.h"
#include "cli.h"
#include "fg_commit.h" /* FLIPGRAPH_GIT_COMMIT, written at every build */

int cmd_version(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("usage: flipgraph version\n\n"
               "Prints the version, the git commit it was built from, whether a GPU backend\n"
               "was compiled in, whether a GPU is visible now, and whether the MPI search\n"
               "(search --mpi, docs/cluster.md) was built.\n");
        return CLI_OK;
    }
    char gpu[256];
    int visible = cuda_device_describe(gpu, sizeof gpu);
    char build[256];
    printf("flipgraph %s (commit %s)\n", FLIPGRAPH_VERSION, FLIPGRAPH_GIT_COMMIT);
    printf("build: %s\n", cli_build_info(build, sizeof build)); /* the search banner's line */
    printf("gpu backend: %s\n", cuda_compiled_in() ? "compiled in (sm_90a)" : "not compiled in");
    printf("gpu visible: %s\n", visible > 0 ? gpu : "none");
    printf("mpi: %s\n", search_mpi_built() ? "built (search --mpi)" : "not built");
    return CLI_OK;
}
