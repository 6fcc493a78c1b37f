// Bit-matrix helpers on the device: transposition, conversions for the cuBLAS
// baseline, random fill, the inner-layer dispatch and thin memory wrappers.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "bmm_internal.h"

namespace {

thread_local char g_last_error[256] = "";

int fail(cudaError_t e, const char *what)
{
    snprintf(g_last_error, sizeof g_last_error, "%s: %s", what, cudaGetErrorString(e));
    return 3;
}

// Mask of the valid bits of word w of a row of `cols` bits (0 past the row).
__device__ __forceinline__ uint64_t word_mask(long long w, long long cols)
{
    const long long lo = w * 64;
    if (lo >= cols) return 0;
    if (cols - lo >= 64) return ~0ull;
    return (1ull << (cols - lo)) - 1;
}

// One warp a 64 x 64 tile: lane l holds source rows l and l+32 of the tile;
// output row c of the tile is two ballots of bit c.
__global__ void transpose_kernel(const uint64_t *B, long long rows, long long cols, long long ldb,
                                 uint64_t *Bt, long long tiles_r, long long tiles_c, long long ldbt)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (warp >= tiles_r * tiles_c) return;
    const long long jb = warp / tiles_c; // output row tile = source word column
    const long long iw = warp % tiles_c; // output word = source row tile
    const uint64_t m = word_mask(jb, cols);
    const long long i0 = iw * 64 + lane, i1 = i0 + 32;
    const uint64_t x0 = (m && i0 < rows) ? (B[i0 * ldb + jb] & m) : 0;
    const uint64_t x1 = (m && i1 < rows) ? (B[i1 * ldb + jb] & m) : 0;
    uint64_t out0 = 0, out1 = 0;
#pragma unroll 8
    for (int c = 0; c < 64; c++) {
        const uint32_t lo = __ballot_sync(0xffffffffu, (x0 >> c) & 1);
        const uint32_t hi = __ballot_sync(0xffffffffu, (x1 >> c) & 1);
        const uint64_t w = (uint64_t)lo | ((uint64_t)hi << 32);
        if ((c & 31) == lane) {
            if (c < 32) out0 = w;
            else out1 = w;
        }
    }
    Bt[(jb * 64 + lane) * ldbt + iw] = out0;
    Bt[(jb * 64 + 32 + lane) * ldbt + iw] = out1;
}

__global__ void bits_to_bytes_kernel(const uint64_t *X, long long rows, long long cols,
                                     long long ldx, int8_t *Y, long long ld8)
{
    const long long words = (cols + 63) / 64;
    const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= rows * words) return;
    const long long i = id / words, w = id % words;
    const uint64_t x = X[i * ldx + w] & word_mask(w, cols);
    const long long lim = ld8 - w * 64 < 64 ? ld8 - w * 64 : 64;
    int8_t *y = Y + i * ld8 + w * 64;
    if (lim == 64 && (((uintptr_t)y) & 15) == 0) {
        uint4 *y4 = (uint4 *)y;
#pragma unroll
        for (int q = 0; q < 4; q++) {
            uint32_t v[4];
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int b = q * 16 + e * 4;
                v[e] = (uint32_t)((x >> b) & 1) | (uint32_t)((x >> (b + 1)) & 1) << 8 |
                       (uint32_t)((x >> (b + 2)) & 1) << 16 | (uint32_t)((x >> (b + 3)) & 1) << 24;
            }
            y4[q] = make_uint4(v[0], v[1], v[2], v[3]);
        }
    } else {
        for (long long b = 0; b < lim; b++) y[b] = (int8_t)((x >> b) & 1);
    }
}

// A warp per 64-bit output word: two coalesced reads of 32 counts, two ballots.
__global__ void pack_i32_kernel(const int32_t *X, long long rows, long long cols, long long ld32,
                                uint64_t *C, long long ldc, int mode)
{
    const long long words = (cols + 63) / 64;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (warp >= rows * words) return;
    const long long i = warp / words, w = warp % words;
    uint64_t out = 0;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const long long c = w * 64 + h * 32 + lane;
        int32_t v = c < cols ? X[i * ld32 + c] : 0;
        const bool bit = mode == CUDA_BMM_GF2 ? (v & 1) : (v != 0);
        out |= (uint64_t)__ballot_sync(0xffffffffu, bit) << (32 * h);
    }
    if (lane == 0) C[i * ldc + w] = out;
}

__global__ void random_kernel(uint64_t *d, size_t words, unsigned long long seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = seed + 0x9e3779b97f4a7c15ull * (i + 1);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        d[i] = z ^ (z >> 31);
    }
}

unsigned blocks_for(long long threads, int per_block)
{
    long long b = (threads + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b);
}

} // namespace

int bmm_tc_stages(void)
{
    const char *s = getenv("FLIPGRAPH_TC_STAGES");
    int v = s ? atoi(s) : 4;
    return v >= 3 && v <= 6 ? v : 4;
}

int bmm_resolve(int kernel)
{
    if (kernel != CUDA_BMM_AUTO) return kernel;
    int dev = 0, major = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    return major == 9 ? CUDA_BMM_WGMMA : CUDA_BMM_TC;
}

int bmm_launch(int kernel, int mode, const uint64_t *dA, const uint64_t *dBt, uint64_t *dC,
               const cuda_bmm_shape *sh, cudaStream_t st)
{
    switch (bmm_resolve(kernel)) {
    case CUDA_BMM_TC: return bmm_tc_launch(mode, dA, dBt, dC, sh, st, bmm_tc_stages());
    case CUDA_BMM_WGMMA: return bmm_wgmma_launch(mode, dA, dBt, dC, sh, st);
    case CUDA_BMM_SIMT: return bmm_simt_launch(mode, dA, dBt, dC, sh, st);
    default: return 2;
    }
}

extern "C" void cuda_bmm_quanta(int kernel, long long *qm, long long *qn, long long *qk)
{
    kernel = bmm_resolve(kernel);
    if (kernel == CUDA_BMM_SIMT) {
        *qm = 128, *qn = 128, *qk = 256;
    } else if (kernel == CUDA_BMM_WGMMA) {
        *qm = 128, *qn = 256, *qk = 1024;
    } else {
        *qm = 128, *qn = 256, *qk = 512;
    }
}

extern "C" int cuda_bmm_device(int kernel, int mode, const uint64_t *dA, const uint64_t *dBt,
                               uint64_t *dC, const cuda_bmm_shape *sh, void *stream)
{
    if (mode != CUDA_BMM_GF2 && mode != CUDA_BMM_BOOL) return 2;
    cudaStream_t st = (cudaStream_t)stream;
    const int rc = bmm_launch(kernel, mode, dA, dBt, dC, sh, st);
    if (rc == 2) snprintf(g_last_error, sizeof g_last_error, "inner kernel %d: unsupported shape", kernel);
    if (rc == 3) return fail(cudaGetLastError(), "inner kernel launch");
    return rc;
}

extern "C" int cuda_bmm_transpose(const uint64_t *dB, long long rows, long long cols,
                                  long long ldb, uint64_t *dBt, long long prows_t,
                                  long long pcols_t, long long ldbt, void *stream)
{
    if (prows_t % 64 || pcols_t % 64 || prows_t < cols || pcols_t < rows || ldbt * 64 < pcols_t)
        return 2;
    const long long tiles_r = prows_t / 64, tiles_c = pcols_t / 64;
    transpose_kernel<<<blocks_for(tiles_r * tiles_c * 32, 256), 256, 0, (cudaStream_t)stream>>>(
        dB, rows, cols, ldb, dBt, tiles_r, tiles_c, ldbt);
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? 0 : fail(e, "transpose");
}

extern "C" int cuda_bmm_bits_to_bytes(const uint64_t *dX, long long rows, long long cols,
                                      long long ldx, int8_t *dY, long long ld8, void *stream)
{
    const long long words = (cols + 63) / 64;
    bits_to_bytes_kernel<<<blocks_for(rows * words, 256), 256, 0, (cudaStream_t)stream>>>(
        dX, rows, cols, ldx, dY, ld8);
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? 0 : fail(e, "bits_to_bytes");
}

extern "C" int cuda_bmm_pack_i32(const int32_t *dX, long long rows, long long cols,
                                 long long ld32, uint64_t *dC, long long ldc, int mode,
                                 void *stream)
{
    const long long words = (cols + 63) / 64;
    pack_i32_kernel<<<blocks_for(rows * words * 32, 256), 256, 0, (cudaStream_t)stream>>>(
        dX, rows, cols, ld32, dC, ldc, mode);
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? 0 : fail(e, "pack_i32");
}

extern "C" int cuda_rt_set_device(int device)
{
    cudaError_t e = cudaSetDevice(device);
    return e == cudaSuccess ? 0 : fail(e, "cudaSetDevice");
}

extern "C" void *cuda_rt_malloc(size_t bytes)
{
    void *p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        fail(e, "cudaMalloc");
        cudaGetLastError();
        return nullptr;
    }
    return p;
}

extern "C" void cuda_rt_free(void *p)
{
    if (p) cudaFree(p);
}

extern "C" int cuda_rt_memcpy_h2d(void *dst, const void *src, size_t bytes)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    return e == cudaSuccess ? 0 : fail(e, "cudaMemcpy h2d");
}

extern "C" int cuda_rt_memcpy_d2h(void *dst, const void *src, size_t bytes)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? 0 : fail(e, "cudaMemcpy d2h");
}

extern "C" int cuda_rt_memset(void *dst, int value, size_t bytes)
{
    cudaError_t e = cudaMemset(dst, value, bytes);
    return e == cudaSuccess ? 0 : fail(e, "cudaMemset");
}

extern "C" int cuda_rt_sync(void)
{
    cudaError_t e = cudaDeviceSynchronize();
    return e == cudaSuccess ? 0 : fail(e, "cudaDeviceSynchronize");
}

extern "C" int cuda_rt_random_bits(uint64_t *d, size_t words, unsigned long long seed)
{
    random_kernel<<<1024, 256>>>(d, words, seed);
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? 0 : fail(e, "random_bits");
}

extern "C" int cuda_rt_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    cudaError_t e = cudaMemGetInfo(free_bytes, total_bytes);
    return e == cudaSuccess ? 0 : fail(e, "cudaMemGetInfo");
}

extern "C" const char *cuda_rt_last_error(void) { return g_last_error; }

// For the runtime launcher (rt_multiply.cu): the same message buffer.
void bmm_set_error(const char *msg)
{
    snprintf(g_last_error, sizeof g_last_error, "%s", msg);
}
