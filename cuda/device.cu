// Device discovery: which GPUs this process can use.
#include <cstdio>
#include <cuda_runtime.h>

#include "fg_cuda.h"

extern "C" bool cuda_compiled_in(void) { return true; }

extern "C" int cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky "no device" error
        return 0;
    }
    return n;
}

extern "C" int cuda_device_describe(char *buf, size_t len)
{
    int n = cuda_device_count();
    if (n <= 0) {
        snprintf(buf, len, "none");
        return 0;
    }
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        snprintf(buf, len, "unknown device");
        return n;
    }
    snprintf(buf, len, "%s, sm_%d%d, %d SMs, %.1f GiB%s", p.name, p.major, p.minor,
             p.multiProcessorCount, (double)p.totalGlobalMem / (1u << 30),
             n > 1 ? " (and more)" : "");
    return n;
}
