// The inner layer on Hopper's warpgroup tensor cores: wgmma b1 AND.popc
// (sm_90a only), C = A * Bt^T over GF(2) (parity) or Boolean (non-zero).
//
// The same product as bmm_tc.cu, with the instruction that the measured
// ceilings favour (docs/device.md: 1.5e16 bit-ops/s against 8.6e15
// for mma.sync on an H100): a warpgroup multiplies a 64 x 256 tile by reading
// both operands straight from shared memory through matrix descriptors, so no
// fragments pass through registers and a thread holds only its 128 s32
// accumulators.  A block (two warpgroups) computes 128 x 256; K advances 1024
// bits a stage, filled with 16-byte cp.async.
//
// Shared memory holds each operand in the K-major layout with the 128-byte
// swizzle: a row's 1024 bits of the stage are 128 contiguous bytes, its 16-byte
// chunk c stored at chunk c ^ (row % 8); 8 rows make a 1024-byte atom (the
// descriptor's stride offset).  Eight lanes copy one row, so each 8-lane phase
// of a cp.async reads 128 contiguous bytes of global memory (one line) and
// writes 128 bytes to distinct banks.  (A first version without swizzle, eight
// rows of one chunk a phase, read half sectors: twice the L2 requests, and the
// kernel was L2-bound at 25% of the tensor pipe.)  A k-step of 256 bits selects
// 32 bytes of each row by moving the descriptor's start address; the hardware
// applies the swizzle to the address bits, so the atoms must be 1024-aligned.
#include <cstdint>
#include <cuda_runtime.h>

#include "bmm_internal.h"

namespace {

constexpr int BM = 128, BN = 256;
constexpr int KC = 8;                    // 16-byte chunks of K a stage (1024 bits)
constexpr int THREADS = 256;             // two warpgroups
constexpr int A_BYTES = BM * KC * 16;    // 16 KiB
constexpr int B_BYTES = BN * KC * 16;    // 32 KiB
constexpr int STAGE_BYTES = A_BYTES + B_BYTES;

__device__ __forceinline__ void cp_async16(uint32_t saddr, const void *g)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(saddr), "l"(g));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Descriptor of a K-major operand with the 128-byte swizzle (PTX ISA, "matrix
// descriptor"): start address >> 4, leading byte offset (unused within one
// swizzle row; 1), stride byte offset (next 8 rows: 1024) >> 4, layout type 1
// (128B swizzle) in bits 62-63.
__device__ __forceinline__ uint64_t desc(uint32_t saddr)
{
    return (uint64_t)((saddr >> 4) & 0x3fff) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
           ((uint64_t)1 << 62);
}
// Byte offset of chunk kc of row r in a swizzled tile.
__device__ __forceinline__ uint32_t swz128(int r, int kc)
{
    return (uint32_t)((r >> 3) * 1024 + (r & 7) * 128 + ((kc ^ (r & 7)) << 4));
}

// wgmma m64n256k256 b1 AND.popc: d (128 s32 a thread) += A (desc) * B (desc).
__device__ __forceinline__ void wgmma_b1_256(int32_t (&d)[128], uint64_t da, uint64_t db)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k256.s32.b1.b1.and.popc "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p;\n}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]), "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
                 : "l"(da), "l"(db)
                 : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Pins the accumulators: the compiler must not move them while a wgmma that
// writes them is in flight.
__device__ __forceinline__ void fence_acc(int32_t (&d)[128])
{
#pragma unroll
    for (int i = 0; i < 128; i++) asm volatile("" : "+r"(d[i])::"memory");
}

using WgArgs = BmmArgs;

template <int MODE, int STAGES>
__global__ void __launch_bounds__(THREADS, 1) bmm_wgmma_kernel(WgArgs p)
{
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, wg = warp >> 2;

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
    // Swizzle atoms need 1024-byte alignment: one spare KiB is allocated for it.
    const uint32_t sbase = ((uint32_t)__cvta_generic_to_shared(smem_raw) + 1023u) & ~1023u;

    // Copy c (of ROWS * KC chunks): eight lanes a row, one chunk each.
    auto load_stage = [&](int kt, int slot) {
        const uint32_t sa = sbase + slot * STAGE_BYTES, sb = sa + A_BYTES;
        const long long koff = (long long)kt * KC * 16;
#pragma unroll
        for (int i = 0; i < BM * KC / THREADS; i++) {
            const int c = i * THREADS + tid, row = c >> 3, kc = c & 7;
            cp_async16(sa + swz128(row, kc), A + row * p.lda_b + koff + kc * 16);
        }
#pragma unroll
        for (int i = 0; i < BN * KC / THREADS; i++) {
            const int c = i * THREADS + tid, row = c >> 3, kc = c & 7;
            cp_async16(sb + swz128(row, kc), B + row * p.ldb_b + koff + kc * 16);
        }
    };

    int32_t d[128];
#pragma unroll
    for (int i = 0; i < 128; i++) d[i] = 0;

#pragma unroll
    for (int s = 0; s < STAGES - 2; s++) {
        if (s < p.ktiles) load_stage(s, s);
        cp_async_commit();
    }
    for (int kt = 0; kt < p.ktiles; kt++) {
        cp_async_wait<STAGES - 3>();
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        {
            // Slot (kt - 2) % STAGES: its wgmmas finished before this barrier.
            const int nk = kt + STAGES - 2;
            if (nk < p.ktiles) load_stage(nk, nk % STAGES);
            cp_async_commit();
        }
        const uint32_t sa = sbase + (kt % STAGES) * STAGE_BYTES, sb = sa + A_BYTES;
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < KC / 2; ks++) {
            const uint64_t da = desc(sa + wg * 64 * 128 + ks * 32);
            const uint64_t db = desc(sb + ks * 32);
            wgmma_b1_256(d, da, db);
        }
        wgmma_commit();
        wgmma_wait<1>();
        fence_acc(d);
    }
    wgmma_wait<0>();
    fence_acc(d);
    cp_async_wait<0>();

    // Accumulator layout (as mma.sync's C, repeated over 32 column groups of 8):
    // d[4j + e]: row g + 8*(e >> 1) of the warp's 16, column 8j + 2*tig + (e & 1).
    const int g = lane >> 2, tig = lane & 3;
    uint64_t *C = p.C + batch * p.sc_w;
    const long long row0 = (long long)bm * BM + wg * 64 + (warp & 3) * 16 + g;
#pragma unroll
    for (int q = 0; q < 4; q++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            uint32_t lo = 0, hi = 0;
#pragma unroll
            for (int ni = 0; ni < 8; ni++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int32_t v = d[4 * (8 * q + ni) + 2 * h + e];
                    const uint32_t bit = MODE == 0 ? (uint32_t)(v & 1) : (uint32_t)(v != 0);
                    if (ni < 4) lo |= bit << (ni * 8 + e);
                    else hi |= bit << ((ni - 4) * 8 + e);
                }
            lo <<= tig * 2, hi <<= tig * 2;
            lo |= __shfl_xor_sync(0xffffffffu, lo, 1);
            hi |= __shfl_xor_sync(0xffffffffu, hi, 1);
            lo |= __shfl_xor_sync(0xffffffffu, lo, 2);
            hi |= __shfl_xor_sync(0xffffffffu, hi, 2);
            if (((q * 2 + h) & 3) == tig)
                C[(row0 + 8 * h) * p.ldc_w + (long long)bn * (BN / 64) + q] =
                    (uint64_t)lo | ((uint64_t)hi << 32);
        }
}

template <int MODE, int STAGES>
int launch(const WgArgs &a, long long blocks, cudaStream_t st)
{
    const int smem = STAGES * STAGE_BYTES + 1024;
    static bool attr = false;
    if (!attr) {
        if (cudaFuncSetAttribute(bmm_wgmma_kernel<MODE, STAGES>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess)
            return 3;
        attr = true;
    }
    bmm_wgmma_kernel<MODE, STAGES><<<(unsigned)blocks, THREADS, smem, st>>>(a);
    return cudaGetLastError() == cudaSuccess ? 0 : 3;
}

} // namespace

int bmm_wgmma_launch(int mode, const uint64_t *dA, const uint64_t *dBt, uint64_t *dC,
                     const cuda_bmm_shape *sh, cudaStream_t st)
{
    if (sh->m % BM || sh->n % BN || sh->k % (KC * 128) || sh->lda % 2 || sh->ldbt % 2 ||
        sh->stride_a % 2 || sh->stride_bt % 2)
        return 2;
    WgArgs a = bmm_args(dA, dBt, dC, sh, BM, BN, KC * 128);
    const long long blocks = (long long)a.tiles_m * a.tiles_n * sh->batch;
    if (blocks <= 0) return 0;
    if (blocks > 0x7fffffffLL) return 2;
    return mode == 0 ? launch<0, 4>(a, blocks, st) : launch<1, 4>(a, blocks, st);
}
