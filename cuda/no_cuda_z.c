/* Built only without nvcc: the GPU walk over Z reports that it is absent. */
#include <stdio.h>

#include "fg_cuda.h"

#if !FLIPGRAPH_HAVE_CUDA
static int absent(char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "no GPU backend in this build (built without CUDA)");
    return 3;
}

int cuda_wz_create(const cuda_wz_config *cfg, cuda_wz **out, char *err, size_t errlen)
{
    (void)cfg;
    *out = NULL;
    return absent(err, errlen);
}
int cuda_wz_walkers(const cuda_wz *s) { return s ? 0 : 0; }
const char *cuda_wz_device_name(const cuda_wz *s) { return s ? "" : ""; }
int cuda_wz_per_block(const cuda_wz *s) { return s ? 0 : 0; }
int cuda_wz_kernel(const cuda_wz *s) { return s ? 0 : 0; }
int cuda_wz_run(cuda_wz *s, const wz_params *P, uint64_t steps, double *ms, char *err, size_t errlen)
{
    (void)s, (void)P, (void)steps, (void)ms;
    return absent(err, errlen);
}
int cuda_wz_states(cuda_wz *s, wz_state *out, char *err, size_t errlen)
{
    (void)s, (void)out;
    return absent(err, errlen);
}
int cuda_wz_best(cuda_wz *s, int walker, const wz_state *st, uint64_t *terms, char *err, size_t errlen)
{
    (void)s, (void)walker, (void)st, (void)terms;
    return absent(err, errlen);
}
int cuda_wz_set_starts(cuda_wz *s, const uint64_t *terms, const int32_t *ranks, int n, char *err, size_t errlen)
{
    (void)s, (void)terms, (void)ranks, (void)n;
    return absent(err, errlen);
}
void cuda_wz_destroy(cuda_wz *s) { (void)s; }
#endif
