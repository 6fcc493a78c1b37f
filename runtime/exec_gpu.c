/* The GPU backend of `flipgraph multiply`: the plan's levels handed to the
 * CUDA executor (cuda/, docs/gpu-runtime.md), which runs the same plan and layout of
 * docs/runtime.md on the device.  Without nvcc, or without a visible GPU, it
 * says so: the CPU executor is the reference. */
#include <stdlib.h>

#include "layout.h"

#include "../cuda/fg_cuda.h"

static rt_status usable(const export_plan *plan, int device, char *err, size_t errlen)
{
    if (!cuda_compiled_in()) {
        scheme_fail(err, errlen, "this build has no GPU backend (built without nvcc); use --backend cpu");
        return RT_EBACKEND;
    }
    int n = cuda_device_count();
    if (n < 1) {
        scheme_fail(err, errlen, "no GPU is visible; use --backend cpu");
        return RT_EBACKEND;
    }
    if (device < 0 || device >= n) {
        scheme_fail(err, errlen, "there is no GPU %d (%d visible)", device, n);
        return RT_EBACKEND;
    }
    if (plan->boolean && plan->levels > 0) {
        scheme_fail(err, errlen, "the GPU executor does the Boolean product with the cubic method "
                                 "only (no --scheme); use --backend cpu for Boolean products with schemes");
        return RT_EBACKEND;
    }
    return RT_OK;
}

int rt_gpu_levels(const export_plan *plan, struct cuda_rt_level *lv)
{
    for (int l = 0; l < plan->levels; l++) {
        const export_plan_level *L = &plan->level[l];
        lv[l] = (cuda_rt_level){L->s, L->t, L->u, L->r, L->xi, L->eta, L->zeta};
    }
    return plan->levels;
}

rt_status rt_device_need(const export_plan *plan, int device, double max_device_bytes,
                         double *peak_bytes, char *err, size_t errlen)
{
    rt_status st = usable(plan, device, err, errlen);
    if (st != RT_OK)
        return st;
    cuda_rt_level lv[EXPORT_PLAN_MAX_LEVELS];
    int rc = cuda_rt_need(lv, rt_gpu_levels(plan, lv), plan->boolean ? CUDA_BMM_BOOL : CUDA_BMM_GF2,
                          CUDA_BMM_AUTO, plan->rows, plan->inner, plan->cols, device, max_device_bytes,
                          peak_bytes, NULL, err, errlen);
    if (rc == 2)
        return RT_EDIMS;
    if (rc != 0)
        return RT_EDEVICE;
    return *peak_bytes < 0 ? RT_EMEMORY : RT_OK;
}

rt_status rt_device_stream_need(const export_plan *plan, int device, double max_device_bytes,
                                double *bytes, char *err, size_t errlen)
{
    rt_status st = usable(plan, device, err, errlen);
    if (st != RT_OK)
        return st;
    cuda_rt_level lv[EXPORT_PLAN_MAX_LEVELS];
    int rc = cuda_rt_session_need(lv, rt_gpu_levels(plan, lv), plan->boolean ? CUDA_BMM_BOOL : CUDA_BMM_GF2,
                                  CUDA_BMM_AUTO, plan->rows, plan->inner, plan->cols, device, max_device_bytes,
                                  bytes, err, errlen);
    if (rc == 2)
        return RT_EDIMS;
    if (rc != 0)
        return RT_EDEVICE;
    return *bytes < 0 ? RT_EMEMORY : RT_OK;
}

rt_status rt_execute_device(const export_plan *plan, const rt_matrix *A, const rt_matrix *B,
                            rt_matrix *C, int device, double max_device_bytes, rt_stats *stats,
                            char *err, size_t errlen)
{
    rt_status st = usable(plan, device, err, errlen);
    if (st != RT_OK)
        return st;
    if (!plan->sized || A->rows != plan->rows || A->cols != plan->inner || B->rows != plan->inner ||
        B->cols != plan->cols || C->rows != A->rows || C->cols != B->cols) {
        scheme_fail(err, errlen, "the matrices do not fit the plan's sizes");
        return RT_EDIMS;
    }
    cuda_rt_level lv[EXPORT_PLAN_MAX_LEVELS];
    cuda_rt_stats cs;
    int rc = cuda_rt_multiply_limit(lv, rt_gpu_levels(plan, lv), plan->boolean ? CUDA_BMM_BOOL : CUDA_BMM_GF2,
                                    CUDA_BMM_AUTO, A->rows, A->cols, B->cols, A->w, A->stride, B->w,
                                    B->stride, C->w, C->stride, device, max_device_bytes, &cs, err,
                                    errlen);
    if (rc == 2)
        return RT_EDIMS;
    if (rc != 0)
        return RT_EDEVICE;
    rt_matrix_mask_tail(C);
    if (stats) {
        stats->permute = (cs.ms_upload + cs.ms_pack + cs.ms_unpack + cs.ms_download) / 1e3;
        stats->upload = cs.ms_upload / 1e3, stats->download = cs.ms_download / 1e3;
        stats->expand = cs.ms_expand / 1e3;
        stats->inner = cs.ms_inner / 1e3;
        stats->compress = cs.ms_compress / 1e3;
        stats->total = cs.ms_total / 1e3;
    }
    return RT_OK;
}

rt_status rt_execute_gpu(const export_plan *plan, const rt_matrix *A, const rt_matrix *B,
                         rt_matrix *C, rt_stats *stats, char *err, size_t errlen)
{
    return rt_execute_device(plan, A, B, C, 0, 0.0, stats, err, errlen);
}
