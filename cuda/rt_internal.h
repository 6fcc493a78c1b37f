// Internal interface of the GPU runtime: the Yates-level kernels (rt_levels.cu)
// used by the executor (rt_multiply.cu).  Device code only.
#ifndef FLIPGRAPH_RT_INTERNAL_H
#define FLIPGRAPH_RT_INTERNAL_H

#include <cstdint>
#include <cuda_runtime.h>

#define RT_MAX_LEVELS 16

// A mixed-radix block layout (Karppa, Kaski 2019, section 3.5): a rows x cols bit matrix
// split d times; level l splits rows by rs[l] and columns by cs[l].  Block
// (I, J) with digits (i_0..i_{d-1}), (j_0..j_{d-1}) (level 0 most significant)
// sits at block index  sum over l of the digits i_0 j_0 i_1 j_1 ... in radices
// rs[0] cs[0] rs[1] cs[1] ...; a block is br x (bw*64) bits, row-major.
struct RtLayout {
    int d;
    int rs[RT_MAX_LEVELS], cs[RT_MAX_LEVELS];
    long long br, bw; // block rows, block words a row
};

// dst (layout L, every block) <- src (plain, rows x cols bits, ld words), zero padded.
int rt_pack(const uint64_t *src, long long rows, long long cols, long long ld, uint64_t *dst,
            const RtLayout &L, cudaStream_t st);
// dst (plain, rows x cols bits, ld words) <- src (layout L), cropped.
int rt_unpack(const uint64_t *src, const RtLayout &L, uint64_t *dst, long long rows,
              long long cols, long long ld, cudaStream_t st);

// out[p][h][l] = XOR over a of in[p][a][l] where bit a of masks[h] is set;
// l counts 16-byte units (L of them), a < na <= 64, h < nh.  masks: device.
int rt_expand(const uint64_t *in, uint64_t *out, long long P, int na, int nh, long long L,
              const uint64_t *masks, cudaStream_t st);
// out[p][o][l] = XOR over h of in[p][h][l] where bit o of masks[h] is set
// (o < no <= 64, h < nh); accumulate: out ^= instead of out =.
int rt_compress(const uint64_t *in, uint64_t *out, long long P, int nh, int no, long long L,
                const uint64_t *masks, bool accumulate, cudaStream_t st);

#endif
