/* Built only without nvcc: the symmetric GPU walk reports that it is absent. */
#include <stdio.h>

#include "fg_cuda.h"

#if !FLIPGRAPH_HAVE_CUDA
static int absent(char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "no GPU backend in this build (built without CUDA)");
    return 3;
}

int cuda_sym_create(const cuda_sym_config *cfg, cuda_sym **out, char *err, size_t errlen)
{
    (void)cfg;
    *out = NULL;
    return absent(err, errlen);
}
int cuda_sym_walkers(const cuda_sym *s) { return s ? 0 : 0; }
const char *cuda_sym_device_name(const cuda_sym *s) { return s ? "" : ""; }
int cuda_sym_per_block(const cuda_sym *s) { return s ? 0 : 0; }
int cuda_sym_run(cuda_sym *s, const wsym_params *P, uint64_t flips, double *ms, char *err, size_t errlen)
{
    (void)s, (void)P, (void)flips, (void)ms;
    return absent(err, errlen);
}
int cuda_sym_states(cuda_sym *s, wsym_state *out, char *err, size_t errlen)
{
    (void)s, (void)out;
    return absent(err, errlen);
}
int cuda_sym_best(cuda_sym *s, int walker, const wsym_state *st, uint64_t *reps, uint64_t *fixed, char *err,
                  size_t errlen)
{
    (void)s, (void)walker, (void)st, (void)reps, (void)fixed;
    return absent(err, errlen);
}
void cuda_sym_destroy(cuda_sym *s) { (void)s; }
#endif
