// Yates levels over bit-sliced words on the GPU (Karppa, Kaski 2019, sections
// 3.9 and 3.11), and the block layouts around them (section 3.5).
//
// A level maps [P][a][L] to [P][h][L]: for each prefix p and each 16-byte unit
// l of the rest, a thread loads the `na` inputs into registers, then writes
// each output as the XOR of the inputs its coefficient row selects.  Threads
// next to each other touch 16-byte units next to each other: every access is a
// coalesced 16-byte load or store.  Consecutive levels are merged by the caller
// into one level whose coefficient matrix is the Kronecker product of theirs
// (section 3.15): the thread then reads the inputs of two levels once and
// writes the outputs of both once; the intermediate never reaches memory.
// The levels are bound by memory bandwidth, so a row of coefficients is
// evaluated directly (one XOR per non-zero) rather than through the plan's
// straight-line program: that would cut instructions, not bytes.
#include <cstdint>
#include <cuda_runtime.h>

#include "rt_internal.h"

namespace {

__device__ __forceinline__ uint4 operator^(uint4 a, uint4 b)
{
    return make_uint4(a.x ^ b.x, a.y ^ b.y, a.z ^ b.z, a.w ^ b.w);
}

unsigned grid_for(long long threads)
{
    long long b = (threads + 255) / 256;
    if (b > (1 << 20)) b = 1 << 20;
    return (unsigned)(b < 1 ? 1 : b);
}

__global__ void pack_kernel(const uint64_t *src, long long rows, long long cols, long long ld,
                            uint64_t *dst, RtLayout L, long long total)
{
    const long long src_words = (cols + 63) / 64;
    const long long bsize = L.br * L.bw;
    for (long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x; id < total;
         id += (long long)gridDim.x * blockDim.x) {
        long long b = id / bsize;
        const long long within = id - b * bsize;
        const long long r_in = within / L.bw, w_in = within - r_in * L.bw;
        long long I = 0, J = 0, mi = 1, mj = 1;
        for (int l = L.d - 1; l >= 0; l--) {
            const long long j = b % L.cs[l];
            b /= L.cs[l];
            const long long i = b % L.rs[l];
            b /= L.rs[l];
            I += i * mi;
            J += j * mj;
            mi *= L.rs[l];
            mj *= L.cs[l];
        }
        const long long row = I * L.br + r_in, w = J * L.bw + w_in;
        uint64_t v = 0;
        if (row < rows && w < src_words) {
            v = src[row * ld + w];
            const long long lo = w * 64;
            if (cols - lo < 64) v &= (1ull << (cols - lo)) - 1;
        }
        dst[id] = v;
    }
}

__global__ void unpack_kernel(const uint64_t *src, RtLayout L, uint64_t *dst, long long rows,
                              long long cols, long long ld)
{
    const long long words = (cols + 63) / 64;
    const long long total = rows * words;
    for (long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x; id < total;
         id += (long long)gridDim.x * blockDim.x) {
        const long long row = id / words, w = id - row * words;
        long long I = row / L.br, J = w / L.bw;
        const long long r_in = row - I * L.br, w_in = w - J * L.bw;
        int di[RT_MAX_LEVELS], dj[RT_MAX_LEVELS];
        for (int l = L.d - 1; l >= 0; l--) {
            di[l] = (int)(I % L.rs[l]);
            I /= L.rs[l];
            dj[l] = (int)(J % L.cs[l]);
            J /= L.cs[l];
        }
        long long b = 0;
        for (int l = 0; l < L.d; l++) b = (b * L.rs[l] + di[l]) * L.cs[l] + dj[l];
        uint64_t v = src[(b * L.br + r_in) * L.bw + w_in];
        const long long lo = w * 64;
        if (cols - lo < 64) v &= (1ull << (cols - lo)) - 1;
        dst[row * ld + w] = v;
    }
}

template <int NA>
__global__ void expand_reg(const uint4 *__restrict__ in, uint4 *__restrict__ out, long long P,
                           int nh, long long L, const uint64_t *__restrict__ masks)
{
    const long long total = P * L;
    for (long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x; id < total;
         id += (long long)gridDim.x * blockDim.x) {
        const long long p = id / L, l = id - p * L;
        const uint4 *src = in + p * NA * L + l;
        uint4 x[NA];
#pragma unroll
        for (int a = 0; a < NA; a++) x[a] = __ldg(src + a * L);
        uint4 *dst = out + p * nh * L + l;
        for (int h = 0; h < nh; h++) {
            const uint64_t m = __ldg(masks + h);
            uint4 v = make_uint4(0, 0, 0, 0);
#pragma unroll
            for (int a = 0; a < NA; a++)
                if ((m >> a) & 1) v = v ^ x[a];
            dst[h * L] = v;
        }
    }
}

__global__ void expand_gen(const uint4 *__restrict__ in, uint4 *__restrict__ out, long long P,
                           int na, int nh, long long L, const uint64_t *__restrict__ masks)
{
    const long long total = P * L;
    for (long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x; id < total;
         id += (long long)gridDim.x * blockDim.x) {
        const long long p = id / L, l = id - p * L;
        const uint4 *src = in + p * na * L + l;
        uint4 *dst = out + p * nh * L + l;
        for (int h = 0; h < nh; h++) {
            const uint64_t m = __ldg(masks + h);
            uint4 v = make_uint4(0, 0, 0, 0);
            for (int a = 0; a < na; a++)
                if ((m >> a) & 1) v = v ^ __ldg(src + a * L);
            dst[h * L] = v;
        }
    }
}

template <int NO>
__global__ void compress_reg(const uint4 *__restrict__ in, uint4 *__restrict__ out, long long P,
                             int nh, long long L, const uint64_t *__restrict__ masks, bool accumulate)
{
    const long long total = P * L;
    for (long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x; id < total;
         id += (long long)gridDim.x * blockDim.x) {
        const long long p = id / L, l = id - p * L;
        const uint4 *src = in + p * nh * L + l;
        uint4 *dst = out + p * NO * L + l;
        uint4 acc[NO];
#pragma unroll
        for (int o = 0; o < NO; o++) acc[o] = accumulate ? dst[o * L] : make_uint4(0, 0, 0, 0);
        for (int h = 0; h < nh; h++) {
            const uint64_t m = __ldg(masks + h);
            if (!m) continue;
            const uint4 v = __ldg(src + h * L);
#pragma unroll
            for (int o = 0; o < NO; o++)
                if ((m >> o) & 1) acc[o] = acc[o] ^ v;
        }
#pragma unroll
        for (int o = 0; o < NO; o++) dst[o * L] = acc[o];
    }
}

__global__ void compress_gen(const uint4 *__restrict__ in, uint4 *__restrict__ out, long long P,
                             int nh, int no, long long L, const uint64_t *__restrict__ masks,
                             bool accumulate)
{
    const long long total = P * L;
    for (long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x; id < total;
         id += (long long)gridDim.x * blockDim.x) {
        const long long p = id / L, l = id - p * L;
        const uint4 *src = in + p * nh * L + l;
        uint4 *dst = out + p * no * L + l;
        for (int o = 0; o < no; o++) {
            uint4 v = accumulate ? dst[o * L] : make_uint4(0, 0, 0, 0);
            for (int h = 0; h < nh; h++)
                if ((__ldg(masks + h) >> o) & 1) v = v ^ __ldg(src + h * L);
            dst[o * L] = v;
        }
    }
}

template <int N> struct Dispatch {
    static void expand(int na, unsigned g, cudaStream_t st, const uint4 *in, uint4 *out,
                       long long P, int nh, long long L, const uint64_t *m)
    {
        if (na == N) expand_reg<N><<<g, 256, 0, st>>>(in, out, P, nh, L, m);
        else Dispatch<N - 1>::expand(na, g, st, in, out, P, nh, L, m);
    }
    static void compress(int no, unsigned g, cudaStream_t st, const uint4 *in, uint4 *out,
                         long long P, int nh, long long L, const uint64_t *m, bool acc)
    {
        if (no == N) compress_reg<N><<<g, 256, 0, st>>>(in, out, P, nh, L, m, acc);
        else Dispatch<N - 1>::compress(no, g, st, in, out, P, nh, L, m, acc);
    }
};
template <> struct Dispatch<0> {
    static void expand(int, unsigned, cudaStream_t, const uint4 *, uint4 *, long long, int,
                       long long, const uint64_t *) {}
    static void compress(int, unsigned, cudaStream_t, const uint4 *, uint4 *, long long, int,
                         long long, const uint64_t *, bool) {}
};

constexpr int REG_MAX = 16; // inputs (outputs) a thread keeps in registers

int done() { return cudaGetLastError() == cudaSuccess ? 0 : 3; }

} // namespace

int rt_pack(const uint64_t *src, long long rows, long long cols, long long ld, uint64_t *dst,
            const RtLayout &L, cudaStream_t st)
{
    long long blocks = 1;
    for (int l = 0; l < L.d; l++) blocks *= (long long)L.rs[l] * L.cs[l];
    const long long total = blocks * L.br * L.bw;
    pack_kernel<<<grid_for(total), 256, 0, st>>>(src, rows, cols, ld, dst, L, total);
    return done();
}

int rt_unpack(const uint64_t *src, const RtLayout &L, uint64_t *dst, long long rows,
              long long cols, long long ld, cudaStream_t st)
{
    const long long total = rows * ((cols + 63) / 64);
    unpack_kernel<<<grid_for(total), 256, 0, st>>>(src, L, dst, rows, cols, ld);
    return done();
}

int rt_expand(const uint64_t *in, uint64_t *out, long long P, int na, int nh, long long L,
              const uint64_t *masks, cudaStream_t st)
{
    const unsigned g = grid_for(P * L);
    if (na <= REG_MAX)
        Dispatch<REG_MAX>::expand(na, g, st, (const uint4 *)in, (uint4 *)out, P, nh, L, masks);
    else
        expand_gen<<<g, 256, 0, st>>>((const uint4 *)in, (uint4 *)out, P, na, nh, L, masks);
    return done();
}

int rt_compress(const uint64_t *in, uint64_t *out, long long P, int nh, int no, long long L,
                const uint64_t *masks, bool accumulate, cudaStream_t st)
{
    const unsigned g = grid_for(P * L);
    if (no <= REG_MAX)
        Dispatch<REG_MAX>::compress(no, g, st, (const uint4 *)in, (uint4 *)out, P, nh, L, masks,
                                    accumulate);
    else
        compress_gen<<<g, 256, 0, st>>>((const uint4 *)in, (uint4 *)out, P, nh, no, L, masks,
                                        accumulate);
    return done();
}
