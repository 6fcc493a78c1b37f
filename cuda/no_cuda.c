/* Built only without nvcc: the GPU backend reports that it is absent. */
#include <stdio.h>
#include <string.h>

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

/* ==== float products: without nvcc, "no GPU backend" ==== */
#if !FLIPGRAPH_HAVE_CUDA
int cuda_fmul(const cuda_flevel *levels, int nlevels, int f64, int tf32, int fused, int streams,
              unsigned long long M,
              unsigned long long K, unsigned long long N, const void *A, const void *B, void *C,
              int device, int timing_reps, cuda_fstats *stats, char *err, size_t errlen)
{
    (void)levels, (void)nlevels, (void)f64, (void)tf32, (void)fused, (void)streams, (void)M, (void)K, (void)N, (void)A;
    (void)B, (void)C, (void)device, (void)timing_reps, (void)stats;
    if (err && errlen) snprintf(err, errlen, "no GPU backend in this build (built without CUDA)");
    return 3;
}
#endif

/* ==== runtime: without nvcc every call answers 3, "no GPU backend" ==== */
#if !FLIPGRAPH_HAVE_CUDA
int cuda_rt_multiply(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                     unsigned long long rows, unsigned long long inner, unsigned long long cols,
                     const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb, uint64_t *C,
                     size_t ldc, int device, cuda_rt_stats *stats, char *err, size_t errlen)
{
    (void)levels, (void)nlevels, (void)mode, (void)kernel, (void)rows, (void)inner, (void)cols;
    (void)A, (void)lda, (void)B, (void)ldb, (void)C, (void)ldc, (void)device, (void)stats;
    if (err && errlen) snprintf(err, errlen, "no GPU backend in this build (built without CUDA)");
    return 3;
}
int cuda_rt_multiply_limit(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                           unsigned long long rows, unsigned long long inner, unsigned long long cols,
                           const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb, uint64_t *C,
                           size_t ldc, int device, double max_device_bytes, cuda_rt_stats *stats,
                           char *err, size_t errlen)
{
    (void)max_device_bytes;
    return cuda_rt_multiply(levels, nlevels, mode, kernel, rows, inner, cols, A, lda, B, ldb, C, ldc,
                            device, stats, err, errlen);
}
int cuda_rt_need(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                 unsigned long long rows, unsigned long long inner, unsigned long long cols,
                 int device, double max_device_bytes, double *peak_bytes, int *serial_levels,
                 char *err, size_t errlen)
{
    (void)levels, (void)nlevels, (void)mode, (void)kernel, (void)rows, (void)inner, (void)cols;
    (void)device, (void)max_device_bytes, (void)serial_levels;
    *peak_bytes = -1;
    if (err && errlen) snprintf(err, errlen, "no GPU backend in this build (built without CUDA)");
    return 3;
}
void *cuda_rt_host_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}
void cuda_rt_host_free(void *p) { (void)p; }
int cuda_rt_host_register(void *p, size_t bytes)
{
    (void)p, (void)bytes;
    return 3;
}
void cuda_rt_host_unregister(void *p) { (void)p; }
int cuda_rt_session_need(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                         unsigned long long rows, unsigned long long inner, unsigned long long cols,
                         int device, double max_device_bytes, double *bytes, char *err, size_t errlen)
{
    (void)levels, (void)nlevels, (void)mode, (void)kernel, (void)rows, (void)inner, (void)cols;
    (void)device, (void)max_device_bytes;
    *bytes = -1;
    if (err && errlen) snprintf(err, errlen, "no GPU backend in this build (built without CUDA)");
    return 3;
}
cuda_rt_session *cuda_rt_session_new(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                                     unsigned long long rows, unsigned long long inner,
                                     unsigned long long cols, int device, double max_device_bytes,
                                     int *code, char *err, size_t errlen)
{
    (void)levels, (void)nlevels, (void)mode, (void)kernel, (void)rows, (void)inner, (void)cols;
    (void)device, (void)max_device_bytes;
    *code = 3;
    if (err && errlen) snprintf(err, errlen, "no GPU backend in this build (built without CUDA)");
    return NULL;
}
int cuda_rt_session_submit(cuda_rt_session *s, unsigned long long index, const uint64_t *A,
                           size_t lda, const uint64_t *B, size_t ldb, char *err, size_t errlen)
{
    (void)s, (void)index, (void)A, (void)lda, (void)B, (void)ldb;
    if (err && errlen) snprintf(err, errlen, "no GPU backend in this build (built without CUDA)");
    return 3;
}
int cuda_rt_session_uploaded(cuda_rt_session *s, unsigned long long index, char *err, size_t errlen)
{
    (void)s, (void)index;
    if (err && errlen) snprintf(err, errlen, "no GPU backend in this build (built without CUDA)");
    return 3;
}
int cuda_rt_session_finish(cuda_rt_session *s, unsigned long long index, uint64_t *C, size_t ldc,
                           char *err, size_t errlen)
{
    (void)s, (void)index, (void)C, (void)ldc;
    if (err && errlen) snprintf(err, errlen, "no GPU backend in this build (built without CUDA)");
    return 3;
}
void cuda_rt_session_stats_get(const cuda_rt_session *s, cuda_rt_session_stats *st)
{
    (void)s;
    memset(st, 0, sizeof *st);
}
void cuda_rt_session_free(cuda_rt_session *s) { (void)s; }
int cuda_bmm_device(int kernel, int mode, const uint64_t *dA, const uint64_t *dBt, uint64_t *dC,
                    const cuda_bmm_shape *sh, void *stream)
{
    (void)kernel, (void)mode, (void)dA, (void)dBt, (void)dC, (void)sh, (void)stream;
    return 3;
}
void cuda_bmm_quanta(int kernel, long long *qm, long long *qn, long long *qk)
{
    (void)kernel;
    *qm = *qn = *qk = 64;
}
int cuda_bmm_transpose(const uint64_t *dB, long long rows, long long cols, long long ldb,
                       uint64_t *dBt, long long prows_t, long long pcols_t, long long ldbt,
                       void *stream)
{
    (void)dB, (void)rows, (void)cols, (void)ldb, (void)dBt, (void)prows_t, (void)pcols_t;
    (void)ldbt, (void)stream;
    return 3;
}
int cuda_bmm_bits_to_bytes(const uint64_t *dX, long long rows, long long cols, long long ldx,
                           int8_t *dY, long long ld8, void *stream)
{
    (void)dX, (void)rows, (void)cols, (void)ldx, (void)dY, (void)ld8, (void)stream;
    return 3;
}
int cuda_bmm_pack_i32(const int32_t *dX, long long rows, long long cols, long long ld32,
                      uint64_t *dC, long long ldc, int mode, void *stream)
{
    (void)dX, (void)rows, (void)cols, (void)ld32, (void)dC, (void)ldc, (void)mode, (void)stream;
    return 3;
}
int cuda_rt_set_device(int device) { (void)device; return 3; }
void *cuda_rt_malloc(size_t bytes) { (void)bytes; return NULL; }
void cuda_rt_free(void *p) { (void)p; }
int cuda_rt_memcpy_h2d(void *dst, const void *src, size_t bytes) { (void)dst, (void)src, (void)bytes; return 3; }
int cuda_rt_memcpy_d2h(void *dst, const void *src, size_t bytes) { (void)dst, (void)src, (void)bytes; return 3; }
int cuda_rt_memset(void *dst, int value, size_t bytes) { (void)dst, (void)value, (void)bytes; return 3; }
int cuda_rt_sync(void) { return 3; }
int cuda_rt_random_bits(uint64_t *d, size_t words, unsigned long long seed) { (void)d, (void)words, (void)seed; return 3; }
int cuda_rt_mem_info(size_t *free_bytes, size_t *total_bytes) { *free_bytes = *total_bytes = 0; return 3; }
const char *cuda_rt_last_error(void) { return "no GPU backend in this build (built without CUDA)"; }
#endif
/* ==== end runtime ==== */

/* ==== walk: no GPU backend in this build ==== */
#if !FLIPGRAPH_HAVE_CUDA
#include <string.h>

static int walk_absent(char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "no GPU backend: built without CUDA");
    return 3;
}
int cuda_walk_create(const cuda_walk_config *cfg, cuda_walk **out, char *err, size_t errlen)
{
    (void)cfg;
    *out = NULL;
    return walk_absent(err, errlen);
}
void cuda_walk_get_info(const cuda_walk *w, cuda_walk_info *info)
{
    (void)w;
    memset(info, 0, sizeof *info);
}
int cuda_walk_load(cuda_walk *w, int warp, const uint64_t *terms, int rank, char *err, size_t errlen)
{
    (void)w; (void)warp; (void)terms; (void)rank;
    return walk_absent(err, errlen);
}
int cuda_walk_set_pool(cuda_walk *w, const uint64_t *terms, const int32_t *ranks, int n, char *err,
                       size_t errlen)
{
    (void)w; (void)terms; (void)ranks; (void)n;
    return walk_absent(err, errlen);
}
int cuda_walk_launch(cuda_walk *w, uint32_t steps, char *err, size_t errlen)
{
    (void)w; (void)steps;
    return walk_absent(err, errlen);
}
int cuda_walk_collect(cuda_walk *w, cuda_walk_batch *out, char *err, size_t errlen)
{
    (void)w;
    memset(out, 0, sizeof *out);
    return walk_absent(err, errlen);
}
int cuda_walk_in_flight(const cuda_walk *w) { (void)w; return 0; }
void cuda_walk_set_collect(cuda_walk *w, int rank) { (void)w; (void)rank; }
int cuda_walk_read(cuda_walk *w, int warp, uint64_t *terms, int *rank, char *err, size_t errlen)
{
    (void)w; (void)warp; (void)terms;
    *rank = 0;
    return walk_absent(err, errlen);
}
void cuda_walk_destroy(cuda_walk *w) { (void)w; }
#endif
/* ==== end walk ==== */
