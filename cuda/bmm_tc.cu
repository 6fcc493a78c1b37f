// The inner layer on bit tensor cores: C = A * Bt^T over GF(2) or Boolean.
//
// Karppa, Kaski 2019 (section 3.10) ran the inner layer as word operations with warp
// shuffles; Hopper has bit tensor cores that do exactly AND + popcount:
// mma.sync.m16n8k256.row.col.s32.b1.b1.s32.and.popc.  Over GF(2) an entry is
// the parity of the popcount, for the Boolean product it is "popcount != 0"
// (docs/gpu-runtime.md).  No XOR-popc: Hopper emulates it.
//
// A block computes a 128 x 256 tile of C with 8 warps (2 x 4), each warp a
// 64 x 64 tile = 4 x 8 mma tiles, 128 s32 accumulators a thread.  K advances
// 512 bits (64 bytes a row) per pipeline stage; stages are filled with 16-byte
// cp.async and read with ldmatrix.  The byte layout of a b1 m16n8k256 fragment
// is the byte layout of an f16 m16n8k16 fragment (32 bytes a row), so the
// ldmatrix addressing of f16 GEMMs carries over unchanged.  Rows of 64 bytes
// are XOR-swizzled by 16-byte chunk so that ldmatrix reads are free of bank
// conflicts.
#include <cstdint>
#include <cuda_runtime.h>

#include "bmm_internal.h"

namespace {

constexpr int BM = 128, BN = 256;
constexpr int ROWB = 64;                 // bytes of K a row per stage (512 bits)
constexpr int THREADS = 256;
constexpr int A_BYTES = BM * ROWB;       // 8 KiB
constexpr int B_BYTES = BN * ROWB;       // 16 KiB
constexpr int STAGE_BYTES = A_BYTES + B_BYTES;

// Byte offset of 16-byte chunk c (0..3) of row r in a stage buffer.  Eight
// consecutive rows at one logical chunk land in eight distinct 16-byte bank
// groups (r & 1 picks the half of the 128-byte line, (r >> 1) & 3 the chunk).
__device__ __forceinline__ uint32_t swz(int r, int c)
{
    return (uint32_t)(r * ROWB + ((c ^ ((r >> 1) & 3)) << 4));
}

__device__ __forceinline__ void cp_async16(uint32_t saddr, const void *g)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(saddr), "l"(g));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldsm_x4(uint32_t addr, uint32_t &r0, uint32_t &r1, uint32_t &r2,
                                        uint32_t &r3)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr));
}

__device__ __forceinline__ void mma_b1(int32_t (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                       uint32_t b1)
{
    asm("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

using TcArgs = BmmArgs;

template <int MODE, int STAGES>
__global__ void __launch_bounds__(THREADS, 1) bmm_tc_kernel(TcArgs p)
{
    extern __shared__ __align__(128) uint8_t smem[];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int warp_m = warp >> 2, warp_n = warp & 3;

    // Grouped rasterisation: blocks that run together share A and B panels in L2.
    const long long per_batch = (long long)p.tiles_m * p.tiles_n;
    const long long bid = blockIdx.x;
    const long long batch = bid / per_batch;
    const int t = (int)(bid - batch * per_batch);
    const int width = p.group_m * p.tiles_n;
    const int group = t / width;
    const int first_m = group * p.group_m;
    const int gsize = min(p.tiles_m - first_m, p.group_m);
    const int bm = first_m + (t % width) % gsize;
    const int bn = (t % width) / gsize;

    const uint8_t *A = p.A + batch * p.sa_b + (long long)bm * BM * p.lda_b;
    const uint8_t *B = p.B + batch * p.sb_b + (long long)bn * BN * p.ldb_b;
    const uint32_t sbase = (uint32_t)__cvta_generic_to_shared(smem);

    auto load_stage = [&](int kt, int slot) {
        const uint32_t sa = sbase + slot * STAGE_BYTES, sb = sa + A_BYTES;
        const long long koff = (long long)kt * ROWB;
#pragma unroll
        for (int i = 0; i < (BM * 4) / THREADS; i++) {
            const int c = tid + i * THREADS, r = c >> 2, ch = c & 3;
            cp_async16(sa + swz(r, ch), A + r * p.lda_b + koff + ch * 16);
        }
#pragma unroll
        for (int i = 0; i < (BN * 4) / THREADS; i++) {
            const int c = tid + i * THREADS, r = c >> 2, ch = c & 3;
            cp_async16(sb + swz(r, ch), B + r * p.ldb_b + koff + ch * 16);
        }
    };

    int32_t acc[4][8][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[i][j][e] = 0;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < p.ktiles) load_stage(s, s);
        cp_async_commit();
    }

    // ldmatrix row and chunk of this lane (see the fragment layouts in the header).
    // Adding 16 rows keeps (r >> 1) & 3, so one swizzled offset per k-step serves
    // every 16-row tile: the other tiles are constant offsets from it.
    const int a_row = warp_m * 64 + (lane & 7) + ((lane >> 3) & 1) * 8, a_ch = lane >> 4;
    const int b_row = warp_n * 64 + (lane & 7) + (lane >> 4) * 8, b_ch = (lane >> 3) & 1;
    const uint32_t a_off0 = swz(a_row, a_ch), a_off1 = swz(a_row, 2 + a_ch);
    const uint32_t b_off0 = A_BYTES + swz(b_row, b_ch), b_off1 = A_BYTES + swz(b_row, 2 + b_ch);

    for (int kt = 0; kt < p.ktiles; kt++) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        {
            const int nk = kt + STAGES - 1;
            if (nk < p.ktiles) load_stage(nk, nk % STAGES);
            cp_async_commit();
        }
        const uint32_t sa = sbase + (kt % STAGES) * STAGE_BYTES;
#pragma unroll
        for (int ks = 0; ks < 2; ks++) {
            const uint32_t ao = sa + (ks ? a_off1 : a_off0), bo = sa + (ks ? b_off1 : b_off0);
            uint32_t af[4][4];
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
                ldsm_x4(ao + mi * 16 * ROWB, af[mi][0], af[mi][1], af[mi][2], af[mi][3]);
#pragma unroll
            for (int nj = 0; nj < 4; nj++) {
                uint32_t b0, b1, b2, b3;
                ldsm_x4(bo + nj * 16 * ROWB, b0, b1, b2, b3);
#pragma unroll
                for (int mi = 0; mi < 4; mi++) {
                    mma_b1(acc[mi][2 * nj], af[mi], b0, b1);
                    mma_b1(acc[mi][2 * nj + 1], af[mi], b2, b3);
                }
            }
        }
    }
    cp_async_wait<0>();

    // Epilogue: a thread holds, for rows g and g+8 of each 16-row tile, columns
    // 2*tig and 2*tig+1 of each 8-column tile; the quad's four threads together
    // hold one 64-bit word (the warp's 64 columns) of each row.
    const int g = lane >> 2, tig = lane & 3;
    uint64_t *C = p.C + batch * p.sc_w;
    const long long wcol = ((long long)bn * BN + warp_n * 64) / 64;
#pragma unroll
    for (int mi = 0; mi < 4; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            uint32_t lo = 0, hi = 0; // columns 0..31 and 32..63 of the warp's word
#pragma unroll
            for (int ni = 0; ni < 8; ni++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int32_t v = acc[mi][ni][h * 2 + e];
                    const uint32_t bit = MODE == 0 ? (uint32_t)(v & 1) : (uint32_t)(v != 0);
                    if (ni < 4) lo |= bit << (ni * 8 + e);
                    else hi |= bit << ((ni - 4) * 8 + e);
                }
            lo <<= tig * 2, hi <<= tig * 2;
            lo |= __shfl_xor_sync(0xffffffffu, lo, 1);
            hi |= __shfl_xor_sync(0xffffffffu, hi, 1);
            lo |= __shfl_xor_sync(0xffffffffu, lo, 2);
            hi |= __shfl_xor_sync(0xffffffffu, hi, 2);
            const uint64_t w = (uint64_t)lo | ((uint64_t)hi << 32);
            if (((mi * 2 + h) & 3) == tig) {
                const long long row = (long long)bm * BM + warp_m * 64 + mi * 16 + h * 8 + g;
                C[row * p.ldc_w + wcol] = w;
            }
        }
}

template <int MODE, int STAGES>
int launch(const TcArgs &a, long long blocks, cudaStream_t st)
{
    const int smem = STAGES * STAGE_BYTES;
    static bool attr = false; // per instantiation; benign race: same value
    if (!attr) {
        if (cudaFuncSetAttribute(bmm_tc_kernel<MODE, STAGES>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess)
            return 3;
        attr = true;
    }
    bmm_tc_kernel<MODE, STAGES><<<(unsigned)blocks, THREADS, smem, st>>>(a);
    return cudaGetLastError() == cudaSuccess ? 0 : 3;
}

} // namespace

int bmm_tc_launch(int mode, const uint64_t *dA, const uint64_t *dBt, uint64_t *dC,
                  const cuda_bmm_shape *sh, cudaStream_t st, int stages)
{
    if (sh->m % BM || sh->n % BN || sh->k % 512 || sh->lda % 8 || sh->ldbt % 8 ||
        sh->stride_a % 8 || sh->stride_bt % 8)
        return 2;
    TcArgs a = bmm_args(dA, dBt, dC, sh, BM, BN, 512);
    const long long blocks = (long long)a.tiles_m * a.tiles_n * sh->batch;
    if (blocks <= 0) return 0;
    if (blocks > 0x7fffffffLL) return 2;
    if (mode == 0) {
        switch (stages) {
        case 3: return launch<0, 3>(a, blocks, st);
        case 5: return launch<0, 5>(a, blocks, st);
        case 6: return launch<0, 6>(a, blocks, st);
        default: return launch<0, 4>(a, blocks, st);
        }
    }
    switch (stages) {
    case 3: return launch<1, 3>(a, blocks, st);
    case 5: return launch<1, 5>(a, blocks, st);
    case 6: return launch<1, 6>(a, blocks, st);
    default: return launch<1, 4>(a, blocks, st);
    }
}
