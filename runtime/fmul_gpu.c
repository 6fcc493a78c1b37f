/* The GPU float product: the plan's levels as plain arrays for cuda_fmul
 * (cuda/fg_cuda.h, cuda/rt_fmul.cu; docs/float.md).  Without nvcc, or without
 * a visible GPU, it says so: the CPU product is the reference. */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

#include "../cuda/fg_cuda.h"

rt_status rt_fmul_gpu(const rt_fplan *p, const rt_fmatrix *A, const rt_fmatrix *B, rt_fmatrix *C,
                      int device, bool tf32, int timing_reps, rt_fstats *stats, char *err,
                      size_t errlen)
{
    if (A->type != B->type || A->type != C->type || A->cols != B->rows || C->rows != A->rows ||
        C->cols != B->cols) {
        scheme_fail(err, errlen, "A is %llu x %llu %s, B %llu x %llu %s, C %llu x %llu %s: A's columns "
                    "must equal B's rows, C must be A's rows x B's columns, all of one type",
                    (unsigned long long)A->rows, (unsigned long long)A->cols, rt_ftype_name(A->type),
                    (unsigned long long)B->rows, (unsigned long long)B->cols, rt_ftype_name(B->type),
                    (unsigned long long)C->rows, (unsigned long long)C->cols, rt_ftype_name(C->type));
        return RT_EDIMS;
    }
    if (!cuda_compiled_in()) {
        scheme_fail(err, errlen, "this build has no GPU backend (built without nvcc); use --backend cpu");
        return RT_EBACKEND;
    }
    if (cuda_device_count() < 1) {
        scheme_fail(err, errlen, "no GPU is visible; use --backend cpu");
        return RT_EBACKEND;
    }
    if (tf32 && A->type != RT_F32) {
        scheme_fail(err, errlen, "TF32 applies to f32 products only");
        return RT_EDIMS;
    }
    /* CSR arrays per level: offsets (rank + 1) then entries. */
    cuda_flevel lv[EXPORT_PLAN_MAX_LEVELS];
    int *mem[EXPORT_PLAN_MAX_LEVELS];
    memset(mem, 0, sizeof mem);
    rt_status st = RT_OK;
    for (int l = 0; l < p->levels; l++) {
        const rt_flevel *L = &p->lv[l];
        size_t na = 0, nb = 0, nc = 0;
        for (int h = 0; h < L->rank; h++) {
            na += (size_t)L->terms[h].na;
            nb += (size_t)L->terms[h].nb;
            nc += (size_t)L->terms[h].nc;
        }
        size_t off = (size_t)L->rank + 1;
        int *m = mem[l] = malloc((3 * off + 2 * (na + nb + nc)) * sizeof *m);
        if (!m) {
            scheme_fail(err, errlen, "out of memory");
            st = RT_ENOMEM;
            goto out;
        }
        int *ao = m, *bo = ao + off, *co = bo + off;
        int *ab = co + off, *ac = ab + na, *bb = ac + na, *bc = bb + nb, *cb = bc + nb, *cc = cb + nc;
        int ia = 0, ib = 0, ic = 0;
        for (int h = 0; h < L->rank; h++) {
            const rt_fterm *t = &L->terms[h];
            ao[h] = ia;
            bo[h] = ib;
            co[h] = ic;
            for (int q = 0; q < t->na; q++, ia++)
                ab[ia] = t->a_blk[q], ac[ia] = t->a_coef[q];
            for (int q = 0; q < t->nb; q++, ib++)
                bb[ib] = t->b_blk[q], bc[ib] = t->b_coef[q];
            for (int q = 0; q < t->nc; q++, ic++)
                cb[ic] = t->c_blk[q], cc[ic] = t->c_coef[q];
        }
        ao[L->rank] = ia;
        bo[L->rank] = ib;
        co[L->rank] = ic;
        lv[l] = (cuda_flevel){L->n, L->m, L->p, L->rank, ao, ab, ac, bo, bb, bc, co, cb, cc,
                              L->nt, L->ns, L->nq, L->t_slot, L->s_slot, L->q_slot, L->ta, L->sb, L->qc};
    }
    cuda_fstats cs;
    int rc = cuda_fmul(lv, p->levels, A->type == RT_F64, tf32, p->sums != RT_FSUMS_PLAIN, p->streams, A->rows,
                       A->cols, B->cols, A->data, B->data, C->data, device, timing_reps, &cs, err, errlen);
    if (rc == 2)
        st = RT_EDIMS;
    else if (rc != 0)
        st = RT_EDEVICE;
    else if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->total = cs.ms_total / 1e3;
        stats->device = cs.ms_compute / 1e3;
        stats->transfer = (cs.ms_upload + cs.ms_download) / 1e3;
        stats->gemm_calls = cs.gemm_calls;
        stats->add_launches = cs.add_launches;
        stats->device_bytes = cs.peak_bytes;
        stats->fused_levels = cs.fused_levels;
    }
out:
    for (int l = 0; l < p->levels; l++)
        free(mem[l]);
    return st;
}
