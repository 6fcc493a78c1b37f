/* The GPU backend of `flipgraph multiply` (issue 8 builds it on the same plan).
 * Until then it says so: the CPU executor is the reference. */
#include "runtime.h"

#include "../cuda/fg_cuda.h"

rt_status rt_execute_gpu(const export_plan *plan, const rt_matrix *A, const rt_matrix *B,
                         rt_matrix *C, rt_stats *stats, char *err, size_t errlen)
{
    (void)plan;
    (void)A;
    (void)B;
    (void)C;
    (void)stats;
    if (!cuda_compiled_in())
        scheme_fail(err, errlen, "this build has no GPU backend (built without nvcc); use --backend cpu");
    else
        scheme_fail(err, errlen,
                    "the GPU executor of plans is not part of this build yet (issue 8); "
                    "use --backend cpu");
    return RT_EBACKEND;
}
