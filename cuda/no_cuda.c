/* Built only without nvcc: the GPU backend reports that it is absent. */
#include <stdio.h>

#include "fg_cuda.h"

#if !FLIPGRAPH_HAVE_CUDA
bool cuda_compiled_in(void) { return false; }
int cuda_device_count(void) { return 0; }
int cuda_device_describe(char *buf, size_t len)
{
    snprintf(buf, len, "none (built without CUDA)");
    return 0;
}
#endif
