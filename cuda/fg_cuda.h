/* cuda: every device kernel and its host launcher, behind a plain C interface.
 *
 * This header is all that host code sees of the GPU.  It compiles without
 * nvcc: then cuda_compiled_in() is false and every launcher reports that no
 * GPU backend was built.  Kernels use plain data only (uint64_t words), the
 * layout of schemes/scheme.h.
 */
#ifndef FLIPGRAPH_FG_CUDA_H
#define FLIPGRAPH_FG_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* true when the kernels were compiled into this binary. */
bool cuda_compiled_in(void);
/* Number of visible GPUs (0 when none or not compiled in); describes device 0
 * ("NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.1 GiB") into buf. */
int cuda_device_describe(char *buf, size_t len);
/* Number of visible GPUs, 0 when none or not compiled in. */
int cuda_device_count(void);

#ifdef __cplusplus
}
#endif

#endif
