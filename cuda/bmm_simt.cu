// The inner layer on CUDA cores, in the style of Karppa, Kaski 2019 (section 3.10):
// word operations only.  C[i][j] accumulates, 32 bits at a time, the word
// a & b of row i of A and row j of Bt with one LOP3 (XOR for GF(2), OR for the
// Boolean product: acc = acc ^ (a & b) or acc | (a & b)); at the end a single
// popcount gives the parity (GF(2)) or the test for non-zero (Boolean).  No
// per-bit masks and one LOP3 per 64 bit operations (32 AND + 32 XOR), the most
// a CUDA core does (1.06e15 bit-ops/s measured on an H200, docs/device.md).
//
// A block computes a 128 x 128 tile of C with 256 threads, each an 8 x 8
// register tile (rows ty + 16r, columns tx + 16c) so that both shared-memory
// reads are conflict-free: operands are stored chunk-major (16-byte chunk kq of
// all rows, then chunk kq+1), K advances 256 bits a stage.
#include <cstdint>
#include <cuda_runtime.h>

#include "bmm_internal.h"

namespace {

constexpr int TILE = 128;          // rows of A and of Bt a block
constexpr int KCH = 2;             // 16-byte chunks of K a stage (256 bits)
constexpr int STAGES = 3;
constexpr int THREADS = 256;
constexpr int OP_BYTES = TILE * KCH * 16; // 4 KiB an operand a stage

__device__ __forceinline__ void cp_async16(uint32_t saddr, const void *g)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(saddr), "l"(g));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

using SimtArgs = BmmArgs;

template <int MODE>
__device__ __forceinline__ uint32_t acc_op(uint32_t c, uint32_t a, uint32_t b)
{
    return MODE == 0 ? (c ^ (a & b)) : (c | (a & b));
}

template <int MODE>
__global__ void __launch_bounds__(THREADS, 1) bmm_simt_kernel(SimtArgs p)
{
    __shared__ __align__(16) uint8_t smem[STAGES * 2 * OP_BYTES];
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const long long per_batch = (long long)p.tiles_m * p.tiles_n;
    const long long batch = blockIdx.x / per_batch;
    const int t = (int)(blockIdx.x - batch * per_batch);
    const int bm = t / p.tiles_n, bn = t % p.tiles_n;
    const uint8_t *A = p.A + batch * p.sa_b + (long long)bm * TILE * p.lda_b;
    const uint8_t *B = p.B + batch * p.sb_b + (long long)bn * TILE * p.ldb_b;
    const uint32_t sbase = (uint32_t)__cvta_generic_to_shared(smem);

    // One 16-byte chunk of A and one of B a thread a stage.
    const int lrow = tid >> 1, lch = tid & 1;
    auto load_stage = [&](int kt, int slot) {
        const uint32_t sa = sbase + slot * 2 * OP_BYTES, sb = sa + OP_BYTES;
        const long long koff = (long long)kt * KCH * 16 + lch * 16;
        cp_async16(sa + (lch * TILE + lrow) * 16, A + lrow * p.lda_b + koff);
        cp_async16(sb + (lch * TILE + lrow) * 16, B + lrow * p.ldb_b + koff);
    };

    uint32_t acc[8][8];
#pragma unroll
    for (int r = 0; r < 8; r++)
#pragma unroll
        for (int c = 0; c < 8; c++) acc[r][c] = 0;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < p.ktiles) load_stage(s, s);
        cp_async_commit();
    }
    for (int kt = 0; kt < p.ktiles; kt++) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        {
            const int nk = kt + STAGES - 1;
            if (nk < p.ktiles) load_stage(nk, nk % STAGES);
            cp_async_commit();
        }
        const uint4 *sa = (const uint4 *)(smem + (kt % STAGES) * 2 * OP_BYTES);
        const uint4 *sb = sa + TILE * KCH;
#pragma unroll
        for (int kq = 0; kq < KCH; kq++) {
            uint4 a[8], b[8];
#pragma unroll
            for (int r = 0; r < 8; r++) a[r] = sa[kq * TILE + ty + 16 * r];
#pragma unroll
            for (int c = 0; c < 8; c++) b[c] = sb[kq * TILE + tx + 16 * c];
#pragma unroll
            for (int r = 0; r < 8; r++)
#pragma unroll
                for (int c = 0; c < 8; c++) {
                    uint32_t v = acc[r][c];
                    v = acc_op<MODE>(v, a[r].x, b[c].x);
                    v = acc_op<MODE>(v, a[r].y, b[c].y);
                    v = acc_op<MODE>(v, a[r].z, b[c].z);
                    v = acc_op<MODE>(v, a[r].w, b[c].w);
                    acc[r][c] = v;
                }
        }
    }
    cp_async_wait<0>();

    // Lanes 0-15 hold row 2w + 16r (w: warp), lanes 16-31 row 2w + 1 + 16r;
    // lane tx holds column tx + 16c, so the ballot's 16-bit halves are the
    // columns 16c .. 16c+15 of the two rows.
    const int lane = tid & 31;
    uint64_t *C = p.C + batch * p.sc_w;
#pragma unroll
    for (int r = 0; r < 8; r++) {
        uint64_t w[2] = {0, 0};
#pragma unroll
        for (int c = 0; c < 8; c++) {
            const uint32_t v = acc[r][c];
            const bool bit = MODE == 0 ? (__popc(v) & 1) : (v != 0);
            const uint32_t bal = __ballot_sync(0xffffffffu, bit);
            const uint64_t half = (lane < 16 ? bal : bal >> 16) & 0xffffu;
            w[c >> 2] |= half << (16 * (c & 3));
        }
        if ((lane & 15) == 0) {
            const long long row = (long long)bm * TILE + ty + 16 * r;
            uint64_t *dst = C + row * p.ldc_w + (long long)bn * (TILE / 64);
            dst[0] = w[0];
            dst[1] = w[1];
        }
    }
}

} // namespace

int bmm_simt_launch(int mode, const uint64_t *dA, const uint64_t *dBt, uint64_t *dC,
                    const cuda_bmm_shape *sh, cudaStream_t st)
{
    if (sh->m % TILE || sh->n % TILE || sh->k % 256 || sh->lda % 2 || sh->ldbt % 2 ||
        sh->stride_a % 2 || sh->stride_bt % 2)
        return 2;
    SimtArgs a = bmm_args(dA, dBt, dC, sh, TILE, TILE, 256);
    const long long blocks = (long long)a.tiles_m * a.tiles_n * sh->batch;
    if (blocks <= 0) return 0;
    if (blocks > 0x7fffffffLL) return 2;
    if (mode == 0)
        bmm_simt_kernel<0><<<(unsigned)blocks, THREADS, 0, st>>>(a);
    else
        bmm_simt_kernel<1><<<(unsigned)blocks, THREADS, 0, st>>>(a);
    return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
