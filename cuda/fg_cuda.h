/* cuda: every device kernel and its host launcher, behind a plain C interface.
 *
 * This header is all that host code sees of the GPU.  It compiles without
 * nvcc: then cuda_compiled_in() is false and every launcher reports that no
 * GPU backend was built.  Kernels use plain data only (uint64_t words), the
 * layout of schemes/scheme.h.
 */
#ifndef FLIPGRAPH_FG_CUDA_H
#define FLIPGRAPH_FG_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "walk_bias.h"
#include "walk_sym_core.h"
#include "walk_z_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* true when the kernels were compiled into this binary. */
bool cuda_compiled_in(void);
/* Number of visible GPUs (0 when none or not compiled in); describes device 0
 * ("NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.1 GiB") into buf. */
int cuda_device_describe(char *buf, size_t len);
/* Number of visible GPUs, 0 when none or not compiled in. */
int cuda_device_count(void);

/* ==== runtime: bit-matrix products on the GPU ================================
 * Owned by cuda/rt_*.cu and cuda/bmm_*.cu; docs/gpu-runtime.md.
 *
 * A bit matrix is row-major 64-bit words: bit c of row i is bit c%64 of word
 * i*ld + c/64 (ld >= ceil(cols/64) words).  Bits past the last column are
 * ignored on input and written as 0.  Return codes of every call below:
 * 0 ok, 2 bad input (sizes, a Boolean plan with levels), 3 device failure or
 * no GPU (also the answer of every call in a build without CUDA); err says why. */

enum { CUDA_BMM_GF2 = 0,   /* parity of popcount(AND) */
       CUDA_BMM_BOOL = 1   /* popcount(AND) != 0 */ };

/* Inner-layer kernels. */
enum { CUDA_BMM_AUTO = -1, /* the fastest this GPU has (wgmma on Hopper) */
       CUDA_BMM_TC = 0,    /* bit tensor cores: mma.sync m16n8k256 b1 AND.popc */
       CUDA_BMM_SIMT = 1,  /* CUDA cores: LOP3 AND/XOR (AND/OR) on words, as Karppa, Kaski 2019 */
       CUDA_BMM_WGMMA = 2, /* warpgroup tensor cores: wgmma m64n256k256 b1 AND.popc (sm_90a) */
       CUDA_BMM_KERNELS = 3 };

/* One level of a plan: a scheme <s,t,u> of rank r as 0/1 bytes, the layouts of
 * export/export.h (export_plan_level): xi[h*s*t + i*t + j], eta[h*t*u + j*u + k],
 * zeta[(i*u + k)*r + h]. */
typedef struct cuda_rt_level {
    int s, t, u, r;
    const uint8_t *xi, *eta, *zeta;
} cuda_rt_level;

/* What one product did: device times (ms, CUDA events) and the layers used. */
typedef struct cuda_rt_stats {
    double ms_upload, ms_pack, ms_expand, ms_inner, ms_compress, ms_unpack, ms_download;
    double ms_device;   /* pack + expand + inner + compress + unpack */
    double ms_total;    /* everything, transfers and allocations included */
    int serial_levels;  /* levels run by the serial layer (Karppa, Kaski 2019, 3.8) */
    int parallel_levels;
    unsigned long long rows_pad, inner_pad, cols_pad; /* padded sizes used */
    double peak_bytes;  /* device memory held at once */
} cuda_rt_stats;

/* C = A * B, A rows x inner, B inner x cols (host matrices, layout above), over
 * GF(2) or Boolean (mode), with the plan's levels (nlevels 0: the cubic product
 * on the inner layer alone; Boolean needs nlevels == 0).  kernel: the inner
 * layer's (CUDA_BMM_AUTO: the fastest).  device: GPU index.  stats may be NULL. */
int cuda_rt_multiply(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                     unsigned long long rows, unsigned long long inner, unsigned long long cols,
                     const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                     uint64_t *C, size_t ldc, int device, cuda_rt_stats *stats,
                     char *err, size_t errlen);

/* The same with at most max_device_bytes of device memory (0: the free memory
 * less a margin): the serial layer takes as many outer levels as that needs;
 * 2 when even every level serial does not fit (the host layer, runtime/host.c,
 * splits such products). */
int cuda_rt_multiply_limit(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                           unsigned long long rows, unsigned long long inner, unsigned long long cols,
                           const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                           uint64_t *C, size_t ldc, int device, double max_device_bytes,
                           cuda_rt_stats *stats, char *err, size_t errlen);
/* The device memory cuda_rt_multiply_limit would hold for these sizes (its dry
 * run, with the fewest serial levels that fit): *peak_bytes, or -1 (and a
 * message in err) when nothing fits; *serial_levels (may be NULL) the levels
 * it would run serially.  Returns 0, 2 or 3 as above. */
int cuda_rt_need(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                 unsigned long long rows, unsigned long long inner, unsigned long long cols,
                 int device, double max_device_bytes, double *peak_bytes, int *serial_levels,
                 char *err, size_t errlen);
/* Page-locked host memory (copies at full PCIe speed); NULL when it cannot be had. */
void *cuda_rt_host_alloc(size_t bytes);
void cuda_rt_host_free(void *p);
/* Page-locks memory the caller allocated (cudaHostRegister, portable to every
 * GPU); non-zero when it cannot.  Unregister before freeing it. */
int cuda_rt_host_register(void *p, size_t bytes);
void cuda_rt_host_unregister(void *p);

/* A streaming session (the host layer's GPU executor, docs/host-layer.md): one
 * plan and one size of subproblem, many subproblems.  It holds two sets of
 * device buffers for the plain operands and product, a compute stream and a
 * stream per copy direction, and keeps the device's memory pool between
 * subproblems, so that subproblem i+1's upload and subproblem i-1's download
 * run under subproblem i's product (Karppa, Kaski 2019, 3.16).  Subproblem i
 * uses buffer set i % 2; submit and finish alternate as
 *     submit(0) submit(1) finish(0) submit(2) finish(1) ... finish(n-1)
 * (at most two in flight; finish in the order of submit). */
typedef struct cuda_rt_session cuda_rt_session;
/* Device time of a session, summed over its subproblems (ms, CUDA events). */
typedef struct cuda_rt_session_stats {
    double ms_h2d, ms_compute, ms_d2h; /* spans on the three streams */
    double ms_pack, ms_expand, ms_inner, ms_compress, ms_unpack; /* within compute */
    double ms_idle;     /* compute stream idle between consecutive products */
    double h2d_bytes, d2h_bytes;
    unsigned long long products;
    double device_bytes; /* held: the two buffer sets and the product's peak */
    int serial_levels;
} cuda_rt_session_stats;
/* Device memory a session needs (the two buffer sets and the fewest serial
 * levels whose peak fits beside them in max_device_bytes, 0: the free memory
 * less a margin): *bytes, or -1 with a message when nothing fits.  0, 2, 3. */
int cuda_rt_session_need(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                         unsigned long long rows, unsigned long long inner, unsigned long long cols,
                         int device, double max_device_bytes, double *bytes, char *err, size_t errlen);
/* NULL with a message (and *code 2 or 3) when it cannot be made.  levels must
 * outlive the session. */
cuda_rt_session *cuda_rt_session_new(const cuda_rt_level *levels, int nlevels, int mode, int kernel,
                                     unsigned long long rows, unsigned long long inner,
                                     unsigned long long cols, int device, double max_device_bytes,
                                     int *code, char *err, size_t errlen);
/* Queues subproblem `index`: A (rows x inner, lda words a row) and B uploaded
 * into set index % 2 and the product after them.  A and B must stay unchanged
 * until uploaded(index) or finish(index).  0, or 3 with a message. */
int cuda_rt_session_submit(cuda_rt_session *s, unsigned long long index, const uint64_t *A,
                           size_t lda, const uint64_t *B, size_t ldb, char *err, size_t errlen);
/* Waits until subproblem `index`'s operands are on the device (A and B may then
 * change); 0 at once when it is already finished. */
int cuda_rt_session_uploaded(cuda_rt_session *s, unsigned long long index, char *err, size_t errlen);
/* Downloads subproblem `index`'s product into C (rows x cols, ldc words a row)
 * and waits for it. */
int cuda_rt_session_finish(cuda_rt_session *s, unsigned long long index, uint64_t *C, size_t ldc,
                           char *err, size_t errlen);
void cuda_rt_session_stats_get(const cuda_rt_session *s, cuda_rt_session_stats *st);
void cuda_rt_session_free(cuda_rt_session *s);

/* Device-memory building blocks (benchmarks and tests; pointers are device
 * pointers, stream a cudaStream_t or NULL).  The inner layer: batch products
 * C[b] = A[b] * Bt[b]^T, A[b] m x k, Bt[b] n x k (B transposed), C[b] m x n.
 * TC needs m % 128, n % 256, k % 512 == 0; WGMMA m % 128, n % 256, k % 1024;
 * SIMT m % 128, n % 128, k % 256;
 * leading dimensions and strides in words, multiples of 8. */
typedef struct cuda_bmm_shape {
    long long m, n, k, batch;
    long long lda, ldbt, ldc;          /* words */
    long long stride_a, stride_bt, stride_c; /* words between batch entries */
} cuda_bmm_shape;
int cuda_bmm_device(int kernel, int mode, const uint64_t *dA, const uint64_t *dBt,
                    uint64_t *dC, const cuda_bmm_shape *sh, void *stream);
/* Row and column quanta of an inner kernel (m, n, k multiples). */
void cuda_bmm_quanta(int kernel, long long *qm, long long *qn, long long *qk);
/* Bt (cols x rows, ldbt) = B^T, B rows x cols (ldb); Bt is zero-padded up to
 * prows_t x pcols_t bits (prows_t >= cols, pcols_t >= rows, multiples of 64). */
int cuda_bmm_transpose(const uint64_t *dB, long long rows, long long cols, long long ldb,
                       uint64_t *dBt, long long prows_t, long long pcols_t, long long ldbt,
                       void *stream);
/* 0/1 bytes (row-major, ld8 bytes) from bits, for the cuBLAS int8 baseline. */
int cuda_bmm_bits_to_bytes(const uint64_t *dX, long long rows, long long cols, long long ldx,
                           int8_t *dY, long long ld8, void *stream);
/* Bits from int32 counts (row-major, ld32): parity (GF2) or non-zero (BOOL). */
int cuda_bmm_pack_i32(const int32_t *dX, long long rows, long long cols, long long ld32,
                      uint64_t *dC, long long ldc, int mode, void *stream);
/* Device memory: allocation, copies, synchronisation, timing (thin wrappers so
 * that C programs need no CUDA headers); non-zero return = failure. */
int cuda_rt_set_device(int device);
void *cuda_rt_malloc(size_t bytes);
void cuda_rt_free(void *p);
int cuda_rt_memcpy_h2d(void *dst, const void *src, size_t bytes);
int cuda_rt_memcpy_d2h(void *dst, const void *src, size_t bytes);
int cuda_rt_memset(void *dst, int value, size_t bytes);
int cuda_rt_sync(void);
/* Fills with random bits on the device (splitmix64 of seed and index). */
int cuda_rt_random_bits(uint64_t *d, size_t words, unsigned long long seed);
/* Free and total device memory, bytes. */
int cuda_rt_mem_info(size_t *free_bytes, size_t *total_bytes);
const char *cuda_rt_last_error(void);
/* ==== float products: chains of schemes over cuBLAS ===========================
 * Owned by cuda/rt_fmul.cu (no-CUDA fallback in cuda/no_cuda.c); docs/float.md.
 *
 * One level of a scheme valid over Z, as lists per product h (CSR: entries
 * x_off[h] .. x_off[h+1]-1 of x_blk and x_coef): A blocks i*m+j, B blocks
 * j*p+k, C blocks i*p+k, with their integer coefficients. */
typedef struct cuda_flevel {
    int n, m, p, rank;
    const int *a_off, *a_blk, *a_coef;
    const int *b_off, *b_blk, *b_coef;
    const int *c_off, *c_blk, *c_coef;
    /* The fused schedule (runtime.h, rt_flevel): slots per product (-1: none)
     * and the dense tables ta (nt x n m), sb (ns x m p), qc (n p x nq). */
    int nt, ns, nq;
    const int *t_slot, *s_slot, *q_slot, *ta, *sb, *qc;
} cuda_flevel;

typedef struct cuda_fstats {
    double ms_upload, ms_compute, ms_download; /* CUDA events */
    double ms_total;                           /* everything, allocations included */
    unsigned long long gemm_calls, add_launches;
    double peak_bytes;                         /* device memory held */
    int fused_levels;                          /* levels that ran fused (the others per product) */
} cuda_fstats;

/* C = A B (host, row-major, contiguous: A M x K, B K x N, C M x N) of doubles
 * (f64 != 0) or floats, with the levels over cuBLAS's DGEMM/SGEMM on GPU device:
 * the same recursion, peeling and coefficient folding as the CPU product
 * (runtime/fmul_impl.h), the operand sums and accumulations as addition
 * kernels.  fused: each level forms all its operand sums in one pass a side
 * and accumulates its products into C in one pass (more workspace: a level
 * whose fused workspace does not fit in the device's free memory runs per
 * product); otherwise per product, as the CPU's default.  streams > 1: the last
 * level's GEMMs are spread over that many streams (fused levels only).  SGEMM
 * runs without TF32 (CUBLAS_DEFAULT_MATH, and NVIDIA_TF32_OVERRIDE=0 is not
 * needed for it) unless tf32.  timing_reps > 1 runs the device part that many
 * times and reports the best (benchmarks).
 * Returns 0 ok, 2 bad input, 3 no GPU, out of memory or a device failure. */
int cuda_fmul(const cuda_flevel *levels, int nlevels, int f64, int tf32, int fused, int streams,
              unsigned long long M,
              unsigned long long K, unsigned long long N, const void *A, const void *B, void *C,
              int device, int timing_reps, cuda_fstats *stats, char *err, size_t errlen);
/* ==== end float products ====================================================== */

/* ==== end runtime ============================================================ */

/* ==== walk: flip-graph walks on the GPU, one warp per scheme ==================
 * Owned by cuda/walk*.cu (no-CUDA fallbacks in cuda/no_cuda.c); docs/gpu-walk.md.
 *
 * Terms are GF(2) words, three per term (a, b, c), the layout of scheme_term.
 * The kernel knows nothing of the format: moves keep the tensor whatever it is.
 * A walk object holds W walkers (warps) on one device and one stream.  Launches
 * are asynchronous; at most two are in flight, and cuda_walk_collect returns the
 * oldest one's results, so the host verifies and reseeds while the next launch
 * runs.  Return codes: 0 ok, 2 bad arguments, 3 device failure or no GPU (also
 * every call of a build without CUDA); err says why. */

#define CUDA_WALK_MAX_CAP 1024 /* terms per walker; <8,8,8>'s standard algorithm has 512 */

enum { CUDA_WALK_STORE_AUTO = 0, CUDA_WALK_STORE_REGS = 1, CUDA_WALK_STORE_SMEM = 2 };

typedef struct cuda_walk_config {
    int warps;            /* walkers; 0: as many as the device runs at once */
    int cap;              /* most terms of a walker (plus transitions stop there); rounded up to 32 */
    int device;
    uint64_t seed;        /* every lane's random stream derives from it */
    int rounds;           /* __match_any_sync rounds per step before giving up (k of the Flip-graph post) */
    int gen_max;          /* most terms sharing a factor tested for a dependent subset (2..5; 0: 5) */
    int check_pairs;      /* after a flip, test the two changed terms against all for a pair
                             sharing two factors, and reduce it at once */
    int eager_gen;        /* after a flip that reduced nothing, test the buckets of the two
                             changed terms (3..gen_max terms sharing a factor) for a dependent
                             subset and reduce it at once, as the CPU walker does
                             (search_gpu_options.eager_gen); 0: only where a match samples them */
    int isolated_restart; /* a walker with no flip in reach (idle_plus empty steps) restarts
                             from the pool instead of taking a plus transition (the GPU's
                             search_params.isolated_plus = 0) */
    uint32_t plateau;     /* steps without a rank drop before a plus transition; 0: never.  Each
                             walker starts with it and adapts it within plateau_min..plateau_max */
    uint32_t plateau_min; /* the adaptive plateau (as the CPU walker's, search/driver.c): a walker's
                             plateau doubles at each new lowest rank of its walk, up to plateau_max, */
    uint32_t plateau_max; /* and halves at each failed walk (a restart from the pool), down to
                             plateau_min; 0 (either): that bound is plateau, so both 0 fix it */
    int plus_max;         /* plus transitions only while rank < best rank since (re)seed + plus_max */
    int target_rank;      /* a walker stops at this rank or below; 0: never */
    uint32_t walk_len;    /* flips without a lower rank before a walker restarts from a random
                             scheme of the device pool (cuda_walk_set_pool); 0: never.  The
                             k-th walk of a walker may take walk_len * luby(k) (driver.c) */
    uint32_t walk_max;    /* at most this (0: no cap) */
    int pool_cap;         /* schemes the device pool holds (0: 256) */
    uint32_t idle_plus;   /* steps in a row without any two terms sharing a factor (in the
                             sampled rounds) after which a plus transition comes at once, or a
                             restart where the rank may not rise; 0: never */
    int mix_every;        /* every this many steps one slot rotates across lanes (terms t and
                             t+32 are never compared otherwise); 0: never */
    int queue_cap;        /* improved schemes returned per launch (0: 256) */
    int sample;           /* checking mode: walkers whose current scheme returns after every launch */
    int trace;            /* record every walker's last move (differential tests) */
    int store;            /* CUDA_WALK_STORE_*: terms in registers (cap <= 128) or shared memory */
    uint32_t launch_us;   /* a walker ends its part of a launch after this many microseconds of
                             walking (its own clock, from its start) or after the launch's steps,
                             whichever comes first; 0: steps only (exact replay of a seed).
                             Bounding by time keeps every warp busy to the end of the launch:
                             with steps alone the launch waits for its slowest warp */
    float degree_bias;    /* B > 0: a flip from D flippable pairs to D' > D that reduces nothing is
                             undone unless a draw falls below (D/D')^B (search_params.degree_bias,
                             Metropolis et al. 1953); 0: the plain walk */
    float weight_bias;    /* B_w > 0: a flip that adds d > 0 nonzero coefficients and reduces nothing
                             is undone unless a draw falls below exp(-B_w d), with the degree bias's
                             factor where both are on (search_params.weight_bias); 0: off */
    float weight_bias_max; /* > weight_bias: warp k of n walks with cuda_walk_bias_at(weight_bias, this,
                              k, n) (search_params.weight_bias_max); 0: every warp weight_bias */
    uint32_t plus_hold;   /* N > 0: the N flips after a plus transition make no reduction: a set
                             with a dependent subset is passed over, a flip that would drop a term
                             or make a pair sharing two factors is undone, eager_gen waits; the
                             plateau counts from the hold's end (search_params.plus_hold); 0: off */
} cuda_walk_config;

/* The state of one walker at the end of a launch. */
typedef struct cuda_walk_warp {
    int32_t rank;
    int32_t best_rank;      /* lowest rank since the last load */
    int32_t reported_rank;  /* lowest rank already returned in a batch */
    uint32_t since_drop;    /* steps since the rank last fell (plateau) */
    uint32_t since_best;    /* flips since the best rank last fell or the walker (re)started */
    uint32_t walks;         /* walks so far (the Luby index of the current one) */
    uint64_t steps, flips;  /* flips: flips and reductions applied */
    uint64_t reductions;    /* moves that dropped terms */
    uint64_t removed;       /* terms dropped: rank = loaded + plus - removed */
    uint64_t plus, plus_skipped;
    uint64_t restarts;      /* from the device pool */
    uint64_t rng_lane, rng_warp; /* random stream positions */
    uint64_t undone;        /* flips undone by the degree or weight bias */
    uint32_t degree;        /* with the degree bias: D of the current scheme, 0 when not known */
    uint32_t plateau;       /* this walker's plateau (cuda_walk_config.plateau_min..max); 0: not yet set */
    uint32_t hold_left;     /* flips left of the plus hold (cuda_walk_config.plus_hold) */
    uint64_t held;          /* moves the hold refused: sets passed over, flips undone */
} cuda_walk_warp;

/* trace: a walker's last move, term indices as before the move. */
enum { CUDA_WALK_MOVE_NONE = 0, CUDA_WALK_MOVE_FLIP = 1, CUDA_WALK_MOVE_REDUCE = 2,
       CUDA_WALK_MOVE_PLUS = 3, CUDA_WALK_MOVE_RESTART = 4 /* from the pool */ };
typedef struct cuda_walk_move {
    int32_t kind;
    int32_t x, y;       /* shared position; flips change y of idx[a] and the third of idx[b];
                           reductions: the factors at y of the subset sum to zero */
    int32_t s;          /* terms sharing x that took part (<= 5) */
    int32_t idx[5];
    int32_t a, b;       /* flip: search_flip(idx[a], idx[b], x); plus: search_plus(idx[0], idx[1], x) */
    uint32_t subset;    /* reduction: bit k = idx[k] */
    int32_t npairs;     /* flip: pair reductions that followed, search_reduce_pair(pair[k][0], */
    int32_t pair[8][2]; /* pair[k][1]) in order, indices as before each (at most 8) */
    int32_t ngen;       /* flip, with eager_gen: 1 where a reduction of a dependent subset followed,
                           search_reduce_dependent(gen_idx, gen_s, gen_x, gen_y, gen_subset) */
    int32_t gen_x, gen_y, gen_s, gen_idx[5];
    uint32_t gen_subset;
    int32_t rank_before;
    int32_t undone;     /* flip: undone by the degree bias (the scheme is as before) */
    int32_t held;       /* flip: undone by the plus hold, since it would have reduced (a zero
                           factor, or a pair sharing two factors); the scheme is as before */
    uint32_t degree;    /* with the degree bias: the walker's D after the step, 0 when not known */
} cuda_walk_move;

typedef struct cuda_walk_info {
    int warps, cap, store, warps_per_block, blocks;
    char device[128];
} cuda_walk_info;

/* Results of one launch; pointers stay valid until the next collect. */
typedef struct cuda_walk_batch {
    long launch;                      /* 0, 1, ... */
    uint32_t steps;                   /* steps asked of every walker */
    double ms;                        /* kernel time (CUDA events) */
    int warps, cap;
    const cuda_walk_warp *warp;       /* [warps] */
    int improved;                     /* walkers whose best rank fell below the rank last returned */
    int improved_dropped;             /* more than queue_cap: they return next launch */
    const int32_t *improved_warp;     /* [improved] */
    const int32_t *improved_rank;
    const int32_t *improved_sibling;  /* [improved]: 1 a failed walk's scheme at the collect rank
                                         (cuda_walk_set_collect), 0 a walker's new best */
    const uint64_t *improved_terms;   /* [improved][cap][3]: the scheme at the walker's best rank */
    int sample_first, sample_count;   /* checking mode: walkers sample_first.. (mod warps) */
    const uint64_t *sample_terms;     /* [sample_count][cap][3], ranks in warp[] */
    const cuda_walk_move *moves;      /* [warps] with trace, else NULL */
} cuda_walk_batch;

typedef struct cuda_walk cuda_walk;

int cuda_walk_create(const cuda_walk_config *cfg, cuda_walk **out, char *err, size_t errlen);
void cuda_walk_get_info(const cuda_walk *w, cuda_walk_info *info);
/* Stages a scheme for a walker (rank <= cap, no zero factor): it takes effect at
 * the next launch, resets the walker's ranks and plateau (counters continue).
 * May wait for an earlier launch's upload to finish. */
int cuda_walk_load(cuda_walk *w, int warp, const uint64_t *terms, int rank, char *err, size_t errlen);
/* Stages the device pool walkers restart from (n <= pool_cap schemes, terms
 * [n][cap][3] with ranks[n]); it replaces the pool at the next launch. */
int cuda_walk_set_pool(cuda_walk *w, const uint64_t *terms, const int32_t *ranks, int n, char *err,
                       size_t errlen);
/* From the next launch on, a walker whose walk ends (walk_len) at this rank
 * returns its scheme in the batch like an improvement, while the queue is less
 * than half full: the host pools them (0: none). */
void cuda_walk_set_collect(cuda_walk *w, int rank);
/* Enqueues the staged loads, one launch of `steps` steps per walker and the
 * copies of its results; returns at once (2 when two launches are in flight). */
int cuda_walk_launch(cuda_walk *w, uint32_t steps, char *err, size_t errlen);
/* Waits for the oldest launch in flight and describes its results (2 when none). */
int cuda_walk_collect(cuda_walk *w, cuda_walk_batch *out, char *err, size_t errlen);
/* Launches in flight (0..2). */
int cuda_walk_in_flight(const cuda_walk *w);
/* Copies a walker's current scheme (terms: room for cap terms); waits for every launch. */
int cuda_walk_read(cuda_walk *w, int warp, uint64_t *terms, int *rank, char *err, size_t errlen);
void cuda_walk_destroy(cuda_walk *w);
/* ==== end walk ================================================================ */

/* ==== walk_sym: symmetric walks on the GPU, one thread per walker ==============
 * Owned by cuda/walk_sym.cu (no-CUDA fallbacks in cuda/no_cuda_sym.c, the CPU
 * emulator in tests/emu_walk_sym.c); the walk is cuda/walk_sym_core.h, whose
 * comment says what it does.  Every walker starts from the same start (free
 * orbit representatives and fixed terms) and starts over from it when a walk
 * ends.  Calls are synchronous.  Return codes as the walk block's. */
typedef struct cuda_sym_config {
    int walkers;                 /* 0: from warps */
    int warps;                   /* with walkers 0: warps of walkers (one walker per warp in the
                                    shared-memory kernel, 32 in the global one); 0: as many as the
                                    device holds at once */
    int device;
    uint64_t seed;               /* walker i's stream: wsym_init_state(seed, i) */
    int g, n;                    /* the group (1: C3, 2: C3 x C2) and <n,n,n> */
    int ocap;                    /* orbit slots per walker */
    const uint64_t *start_reps;  /* [start_norbits][3] */
    int start_norbits;
    const uint64_t *start_fixed; /* [start_nfixed][3] */
    int start_nfixed;
    int swaps;                   /* g 2: the pairs (i, n-1-i) the involution swaps, n/2 for the
                                    index reversal (scheme_symmetry_swaps) */
    const uint64_t *start_half;  /* [start_nhalf][3]: half orbits (search_symmetric_halves) */
    int start_nhalf;
} cuda_sym_config;

/* Whether cuda_sym_create can take cfg (the kernel's and the emulator's
 * check, one copy): the group and its swaps, the start, and orbit slots for
 * the start and two more that fit the walker's 16-bit indices. */
static inline int cuda_sym_config_valid(const cuda_sym_config *cfg)
{
    return cfg && cfg->n >= 2 && cfg->n <= 8 && (cfg->g == 1 || cfg->g == 2) &&
           (cfg->g != 2 || (cfg->swaps >= 1 && 2 * cfg->swaps <= cfg->n)) && cfg->start_nhalf >= 0 &&
           (!cfg->start_nhalf || cfg->g == 2) && cfg->ocap >= cfg->start_norbits + 2 &&
           wsym_layout_fits(cfg->g, cfg->ocap) && cfg->start_norbits >= 1 && cfg->walkers >= 0 &&
           cfg->warps >= 0;
}

typedef struct cuda_sym cuda_sym;

/* Whether the environment's flag `name` is on: set, not empty, not 0 (an
 * empty FLIPGRAPH_SYM_GLOBAL once ran both sides of a comparison in global
 * memory, bench/RESULTS.md, forty-sixth session). */
static inline int cuda_env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0");
}

/* FLIPGRAPH_SYM_GLOBAL on: the global-memory kernel even where a walker fits
 * in shared memory. */
static inline int cuda_sym_global_from_env(void) { return cuda_env_flag("FLIPGRAPH_SYM_GLOBAL"); }

int cuda_sym_create(const cuda_sym_config *cfg, cuda_sym **out, char *err, size_t errlen);
int cuda_sym_walkers(const cuda_sym *s);
const char *cuda_sym_device_name(const cuda_sym *s);
/* Walkers per block of the shared-memory kernel (one warp each, its state in
 * shared memory); 0: the global-memory kernel (one thread each), taken when a
 * state does not fit four times in an SM's shared memory or where the
 * environment sets FLIPGRAPH_SYM_GLOBAL (measurements). */
int cuda_sym_per_block(const cuda_sym *s);
/* Every walker walks `flips` flips (or stops at the target); *ms: kernel time. */
int cuda_sym_run(cuda_sym *s, const wsym_params *P, uint64_t flips, double *ms, char *err, size_t errlen);
/* Copies every walker's scalars (out: room for cuda_sym_walkers). */
int cuda_sym_states(cuda_sym *s, wsym_state *out, char *err, size_t errlen);
/* Copies walker's best arrays as st (its state, from cuda_sym_states) describes
 * them: st->best_norbits representatives and st->best_nfixed fixed terms (a
 * half orbit's three terms among them: wsym_keep_best). */
int cuda_sym_best(cuda_sym *s, int walker, const wsym_state *st, uint64_t *reps, uint64_t *fixed, char *err,
                  size_t errlen);
void cuda_sym_destroy(cuda_sym *s);
/* ==== end walk_sym ============================================================ */

/* ==== walk_z: walks over Z on the GPU, a warp or a thread per walker ==========
 * Owned by cuda/walk_z.cu (no-CUDA fallbacks in cuda/no_cuda_z.c, the CPU
 * emulator in tests/emu_walk_z.c); the walk is cuda/walk_z_core.h, whose
 * comment says what it does (coefficients in {-1, 0, 1}).  Walker i starts
 * from a random one of the start schemes and starts over from one when a walk
 * ends.  Calls are synchronous.  Return codes as the walk block's.
 *
 * The kernels (every one walks the same walk, bit for bit: walk_z_core.h):
 *   warp    one warp per walker, its terms in shared memory, the scans over
 *           the terms split over the 32 lanes (the default where the terms fit);
 *   thread  one warp per walker, its terms in shared memory, lane 0 walking
 *           alone (the first kernel; kept as the alternative and reference);
 *   global  one thread per walker, its terms in global memory (where they do
 *           not fit in shared memory).
 * And one that walks another walk (checked against the CPU's run of the same
 * source, bit for bit, not against the thread's walk):
 *   match   as warp, but each flip sampled: each lane offers a random term,
 *           __match_any_sync finds those equal up to sign at x, two of one
 *           set flip (walk_z_core.h, wz_flip_match; the GF(2) kernel's way).
 * CUDA_WZ_AUTO takes the environment's FLIPGRAPH_WZ_KERNEL (warp, thread,
 * global or match; FLIPGRAPH_WZ_GLOBAL=1 is global too), else warp where the
 * terms fit four times in an SM's shared memory, else global.  A shared-memory
 * kernel asked for where the terms do not fit runs global. */
enum { CUDA_WZ_AUTO = 0, CUDA_WZ_WARP = 1, CUDA_WZ_THREAD = 2, CUDA_WZ_GLOBAL = 3, CUDA_WZ_MATCH = 4 };

static inline const char *cuda_wz_kernel_name(int k)
{
    return k == CUDA_WZ_WARP     ? "warp"
           : k == CUDA_WZ_THREAD ? "thread"
           : k == CUDA_WZ_GLOBAL ? "global"
           : k == CUDA_WZ_MATCH  ? "match"
                                 : "auto";
}

/* The kernel FLIPGRAPH_WZ_KERNEL (or FLIPGRAPH_WZ_GLOBAL) asks for, CUDA_WZ_AUTO
 * when neither is set; -1 when the value is none of warp, thread, global, match. */
static inline int cuda_wz_kernel_from_env(void)
{
    const char *k = getenv("FLIPGRAPH_WZ_KERNEL");
    if (k && *k)
        return !strcmp(k, "warp")     ? CUDA_WZ_WARP
               : !strcmp(k, "thread") ? CUDA_WZ_THREAD
               : !strcmp(k, "global") ? CUDA_WZ_GLOBAL
               : !strcmp(k, "match")  ? CUDA_WZ_MATCH
                                      : -1;
    return cuda_env_flag("FLIPGRAPH_WZ_GLOBAL") ? CUDA_WZ_GLOBAL : CUDA_WZ_AUTO;
}

typedef struct cuda_wz_config {
    int walkers;                 /* 0: from warps */
    int warps;                   /* with walkers 0: warps of walkers (one walker per warp in the
                                    shared-memory kernel, 32 in the global one); 0: as many as the
                                    device holds at once */
    int device;
    uint64_t seed;               /* walker i's stream: wz_init_state(seed, i, cap) */
    int cap;                     /* term slots per walker */
    const uint64_t *start_terms; /* [nstarts][cap][6] (walk_z_core.h's planes) */
    const int32_t *start_rank;   /* [nstarts] */
    int nstarts;
    int kernel;                  /* CUDA_WZ_*: 0 (auto) as above */
} cuda_wz_config;

typedef struct cuda_wz cuda_wz;

int cuda_wz_create(const cuda_wz_config *cfg, cuda_wz **out, char *err, size_t errlen);
int cuda_wz_walkers(const cuda_wz *s);
const char *cuda_wz_device_name(const cuda_wz *s);
/* Walkers per block of a shared-memory kernel (one warp each, its state in
 * shared memory); 0: the global-memory kernel (one thread each). */
int cuda_wz_per_block(const cuda_wz *s);
/* The kernel that runs (CUDA_WZ_WARP, _THREAD, _GLOBAL or _MATCH). */
int cuda_wz_kernel(const cuda_wz *s);
/* Every walker walks `steps` steps (or stops at the target); *ms: kernel time. */
int cuda_wz_run(cuda_wz *s, const wz_params *P, uint64_t steps, double *ms, char *err, size_t errlen);
/* Copies every walker's scalars (out: room for cuda_wz_walkers). */
int cuda_wz_states(cuda_wz *s, wz_state *out, char *err, size_t errlen);
/* Replaces the start schemes (as cuda_wz_config's; the same cap): walks that
 * begin from now on draw from these. */
int cuda_wz_set_starts(cuda_wz *s, const uint64_t *terms, const int32_t *ranks, int n, char *err, size_t errlen);
/* Copies walker's best terms (st->best_rank of them, [rank][6]). */
int cuda_wz_best(cuda_wz *s, int walker, const wz_state *st, uint64_t *terms, char *err, size_t errlen);
void cuda_wz_destroy(cuda_wz *s);
/* ==== end walk_z ============================================================== */

#ifdef __cplusplus
}
#endif

#endif
