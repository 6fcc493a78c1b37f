/* runtime: bit matrices, their files, and the plan executor (Karppa, Kaski 2019;
 * docs/references.md).
 *
 * A bit matrix is rows x cols bits stored row by row, each row a whole number of
 * 64-bit words (bit c of a row is bit c%64 of word c/64); bits past cols are
 * always zero.  The executor multiplies two of them with a plan (export/export.h):
 * pad and permute the operands into blocks, expanding Yates levels, products of
 * blocks with a word-level kernel, compressing levels, permute back.  This CPU
 * executor is the reference that a GPU executor (cuda/) is checked against;
 * docs/runtime.md gives the file formats and the layout between the levels.
 */
#ifndef FLIPGRAPH_RUNTIME_H
#define FLIPGRAPH_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../export/export.h"
#include "../schemes/scheme.h"

/* ---- bit matrices ------------------------------------------------------ */

/* Largest matrix the runtime allocates (a file larger than this is refused). */
#define RT_MAX_DIM (1ull << 32)
#define RT_MAX_MATRIX_BYTES (16ull << 30)

typedef struct rt_matrix {
    uint64_t rows, cols;
    uint64_t stride; /* words per row: ceil(cols / 64) */
    uint64_t *w;     /* rows * stride words, 64-byte aligned */
} rt_matrix;

/* A zero matrix; NULL when a dimension is 0, too large, or out of memory. */
rt_matrix *rt_matrix_new(uint64_t rows, uint64_t cols);
/* The same beyond RT_MAX_MATRIX_BYTES (matrices made in memory, never read from
 * a file: bench multiply --generate); zero false leaves the words unset. */
rt_matrix *rt_matrix_new_large(uint64_t rows, uint64_t cols, bool zero);
void rt_matrix_free(rt_matrix *m);
static inline bool rt_matrix_get(const rt_matrix *m, uint64_t r, uint64_t c)
{
    return (m->w[r * m->stride + c / 64] >> (c % 64)) & 1;
}
static inline void rt_matrix_set(rt_matrix *m, uint64_t r, uint64_t c, bool v)
{
    uint64_t *w = &m->w[r * m->stride + c / 64], bit = 1ull << (c % 64);
    *w = v ? *w | bit : *w & ~bit;
}
/* Fills with independent bits, each 1 with probability density (0..1). */
void rt_matrix_random(rt_matrix *m, scheme_rng *rng, double density);
uint64_t rt_matrix_popcount(const rt_matrix *m);
/* Clears the bits past cols in every row (keeps the invariant after raw writes). */
void rt_matrix_mask_tail(rt_matrix *m);

/* ---- files (docs/runtime.md) ------------------------------------------- */

/* Binary: a 64-byte little-endian header then rows * stride words, little-endian. */
#define RT_FILE_MAGIC "FGBITMAT"
#define RT_FILE_VERSION 1u
#define RT_FILE_HEADER_BYTES 64u
/* Text files are for small matrices: at most this many bytes. */
#define RT_TEXT_MAX_BYTES (64u << 20)

typedef enum rt_file_kind {
    RT_FILE_BINARY = 0, /* header + words */
    RT_FILE_TEXT = 1    /* one row per line of 0/1 characters */
} rt_file_kind;

/* Reads a matrix, detecting the kind from the content (the magic). Sizes are
 * checked before anything is allocated: the file size must match the header.
 * NULL with diag (FILE:LINE:COL for text, the byte offset in msg for binary). */
rt_matrix *rt_matrix_read_file(const char *path, rt_file_kind *kind, scheme_diag *diag);
rt_matrix *rt_matrix_read_buffer(const char *buf, size_t len, const char *name,
                                 rt_file_kind *kind, scheme_diag *diag);
/* Only the dimensions (a binary header, or a text file scanned). */
bool rt_matrix_read_dims(const char *path, uint64_t *rows, uint64_t *cols, rt_file_kind *kind,
                         scheme_diag *diag);
bool rt_matrix_write(const rt_matrix *m, rt_file_kind kind, FILE *out);
/* Whole or not at all (scheme_write_file_atomic); "-" is standard output. */
bool rt_matrix_write_file(const char *path, const rt_matrix *m, rt_file_kind kind, char *err,
                          size_t errlen);

/* ---- comparison and the reference products ----------------------------- */

typedef struct rt_diff {
    bool same_dims, equal;
    uint64_t count;                /* entries that differ (same_dims only) */
    uint64_t first_row, first_col; /* the first in row-major order */
} rt_diff;
void rt_matrix_compare(const rt_matrix *x, const rt_matrix *y, rt_diff *d);

/* C = A B over GF(2) (XOR) or as Boolean matrices (OR): for each set A[i,k],
 * row k of B is added to row i of C.  The plain reference of every fast path.
 * C must be A->rows x B->cols; false when the dimensions do not fit. */
bool rt_mul_naive(const rt_matrix *A, const rt_matrix *B, rt_matrix *C, bool boolean);
/* The same one bit at a time (the triple loop), for tests on small sizes. */
bool rt_mul_bitwise(const rt_matrix *A, const rt_matrix *B, rt_matrix *C, bool boolean);

/* ---- the block kernel -------------------------------------------------- */

/* C (rows x 64*cwords) ^= A (rows x 64*kwords) B (64*kwords x 64*cwords), or |=
 * for the Boolean product, with method-of-four-Russians tables of 8-bit chunks
 * of each 64 x 64 block of B.  Strides are in words.  Plain C with GCC vector
 * types, compiled for AVX-512, AVX2 and the baseline (chosen at run time).
 * scratch: RT_KERNEL_SCRATCH_BYTES, 64-byte aligned, or NULL (then allocated). */
#define RT_KERNEL_SCRATCH_BYTES (16u * 256u * 64u) /* the tables: 256 KiB */
void rt_kernel_mul(const uint64_t *A, size_t a_stride, const uint64_t *B, size_t b_stride,
                   uint64_t *C, size_t c_stride, size_t rows, size_t kwords, size_t cwords,
                   bool boolean, void *scratch);

/* ---- threads ----------------------------------------------------------- */

/* Runs fn(ctx, begin, end, thread) over [0, n) split into contiguous ranges,
 * on `threads` threads (the calling thread is one of them).  Items are taken in
 * chunks of `grain` from a shared counter so uneven items balance. */
typedef void (*rt_range_fn)(void *ctx, uint64_t begin, uint64_t end, int thread);
void rt_parallel(int threads, uint64_t n, uint64_t grain, rt_range_fn fn, void *ctx);
/* Online processors (at least 1). */
int rt_default_threads(void);

/* ---- the executor ------------------------------------------------------ */

typedef enum rt_status {
    RT_OK = 0,
    RT_EDIMS,    /* dimensions do not fit each other or the plan (usage: exit 2) */
    RT_EMEMORY,  /* the plan's buffers exceed the memory limit (exit 2) */
    RT_ENOMEM,   /* an allocation failed (exit 3) */
    RT_EBACKEND, /* the backend is not available (exit 2) */
    RT_EDEVICE   /* the device failed (exit 3) */
} rt_status;

typedef struct rt_stats {
    double permute, expand, inner, compress, total; /* seconds */
    double upload, download; /* GPU: the copies (inside permute), CUDA events */
} rt_stats;

/* C = A B with a sized plan (export_plan_size for A->rows, A->cols, B->cols);
 * C must be A->rows x B->cols.  GF(2) with any chain; Boolean with the cubic
 * plan (OR kernel) or with levels valid over Z (integers mod 2^32, then "not
 * zero").  threads <= 0: rt_default_threads().  max_bytes: refuse plans whose
 * buffers need more (0: no limit).  stats may be NULL. */
rt_status rt_execute(const export_plan *plan, const rt_matrix *A, const rt_matrix *B,
                     rt_matrix *C, int threads, double max_bytes, rt_stats *stats, char *err,
                     size_t errlen);
/* The Boolean path with levels (integers); rt_execute calls it. */
rt_status rt_execute_z(const export_plan *plan, const rt_matrix *A, const rt_matrix *B,
                       rt_matrix *C, int threads, rt_stats *stats, char *err, size_t errlen);
/* The same on GPU 0 through the CUDA executor (cuda/fg_cuda.h, docs/gpu-runtime.md): the
 * cubic Boolean product or GF(2) with any chain.  RT_EBACKEND with a message
 * when the build has no CUDA or no GPU is visible. */
rt_status rt_execute_gpu(const export_plan *plan, const rt_matrix *A, const rt_matrix *B,
                         rt_matrix *C, rt_stats *stats, char *err, size_t errlen);
/* The same on GPU `device` with at most max_device_bytes of device memory (0:
 * the device's free memory): the executor runs as many of the outermost levels
 * serially as it needs to fit (docs/gpu-runtime.md). */
rt_status rt_execute_device(const export_plan *plan, const rt_matrix *A, const rt_matrix *B,
                            rt_matrix *C, int device, double max_device_bytes, rt_stats *stats,
                            char *err, size_t errlen);
/* The same for the host layer's streaming session on `device` (two buffer sets
 * for the plain operands and product beside the product's peak;
 * cuda_rt_session_need). */
rt_status rt_device_stream_need(const export_plan *plan, int device, double max_device_bytes,
                                double *bytes, char *err, size_t errlen);
/* Device memory the GPU executor needs for a plan (sized) on `device`: the
 * smallest peak it reaches with enough serial levels to fit max_device_bytes
 * (0: the free memory), found by its dry run.  RT_EMEMORY when nothing fits,
 * RT_EBACKEND without a GPU. */
rt_status rt_device_need(const export_plan *plan, int device, double max_device_bytes,
                         double *peak_bytes, char *err, size_t errlen);
/* Physical memory in bytes (0 when unknown). */
double rt_physical_memory(void);

/* ---- the host layer: products beyond one executor's memory ------------
 * (docs/host-layer.md; Karppa, Kaski 2019, sections 3.12 and 3.16)
 *
 * The outermost levels of the chain are evaluated on the host over subproblems:
 * subproblem (h_0, .., h_{k-1}, tile) multiplies the operand sums
 * T = sum (xi_0 x .. x xi_{k-1})[h] A_I and S = (eta ...)[h] B_J, formed from
 * blocks of A and B, on an executor with the rest of the chain, and adds
 * (zeta ...)[h] Q into the blocks of C: the Kronecker product of the host
 * levels' schemes, one product h at a time, as Yates's algorithm does it.
 * Below the host levels the operands may also be cut into tiles (the standard
 * algorithm as one more host level: no sums, only sub-blocks).  Boolean
 * products use tiles only (a scheme's sums need integers, not bits).  Several
 * executors take subproblems from one counter, one host thread each; the
 * accumulation into C is locked per block of C, and over GF(2) and OR the
 * order does not matter, so the bits are those of the in-core product. */

/* An executor: the CPU one (device < 0) with `threads` threads, or GPU `device`. */
typedef struct rt_executor {
    int device;  /* -1: the CPU executor */
    int threads; /* CPU executor threads (<= 0: all processors / executors) */
} rt_executor;

#define RT_HOST_MAX_DEPTH 4
typedef struct rt_host_config {
    const rt_executor *exec; /* executors (NULL: one CPU executor) */
    int n_exec;
    double max_host_bytes;   /* host buffers beyond the operands (0: no limit) */
    double max_device_bytes; /* per GPU (0: its free memory) */
    int threads;             /* host threads for the operand sums (<= 0: all processors) */
    int pipeline;            /* subproblems in flight per executor (sums, product, accumulation
                                overlapped): 1 .. RT_HOST_MAX_DEPTH, 0: 2 */
    /* Tests: at least this many host levels and tiles per dimension. */
    int min_host_levels;
    uint64_t min_tiles;
    /* Called from the calling thread about twice a second while subproblems run,
     * and once at the end (done == total). */
    void (*progress)(void *ctx, uint64_t done, uint64_t total, double seconds);
    void *progress_ctx;
} rt_host_config;

typedef struct rt_host_split {
    bool in_core;          /* one executor, the whole product: no host layer */
    int host_levels;       /* outermost levels of the chain evaluated on the host */
    uint64_t tiles[3];     /* tiles of rows, inner, columns below them */
    uint64_t leaves;       /* subproblems: R of the host levels * tiles */
    uint64_t leaf_rows, leaf_inner, leaf_cols;
    double leaf_bytes;     /* host buffers per executor (T, S, Q of each subproblem in flight) */
    double exec_bytes;     /* the executor's own need per subproblem (host for the CPU,
                              device for a GPU) */
    double host_bytes;     /* all host buffers: executors * (leaf + CPU executor) */
} rt_host_split;

/* The profile of a product (docs/host-layer.md, "The profile"). */
typedef struct rt_host_stats {
    double total, sums, exec, accumulate; /* seconds; sums, exec, accumulate summed
                                             over the executors' threads */
    uint64_t leaves;
    rt_stats in_core;  /* the executor's phases, in core */
    double zero_c;     /* C zeroed (its pages first touched) on all threads */
    double buffers;    /* the subproblems' host buffers allocated and touched; the slowest
                          executor's */
    double lock;       /* a GPU executor's buffers page-locked (cudaHostRegister), and unlocked
                          (in core: A, B, C with FLIPGRAPH_PIN_OPERANDS=1); the slowest's */
    bool pinned;       /* they are page-locked */
    double setup;      /* GPU sessions made and freed (streams, device buffers); the slowest's */
    double wait_sums;  /* executors idle waiting for operand sums, summed */
    double wait_free;  /* sums threads waiting for a free slot (the executor is behind), summed */
    int gpus;          /* GPU executors */
    /* GPU executors' device time (CUDA events), summed over them, seconds: the
     * copies each way, the products (pack .. unpack), the compute streams' idle
     * time between products; bytes copied; device memory of the largest. */
    double dev_h2d, dev_compute, dev_d2h, dev_idle;
    double dev_pack, dev_expand, dev_inner, dev_compress, dev_unpack;
    double h2d_bytes, d2h_bytes, device_bytes;
} rt_host_stats;

/* Chooses the split for a sized plan: in core when one executor holds the whole
 * product within the limits; else the fewest host levels (GF(2); Boolean
 * none), then the fewest tiles, whose subproblem fits the limits.  RT_EMEMORY
 * with a message when even the finest split does not fit. */
rt_status rt_host_choose(const export_plan *plan, const rt_host_config *cfg, rt_host_split *split,
                         char *err, size_t errlen);
/* C = A B with the split (rt_host_choose).  In core: the executor alone. */
rt_status rt_host_execute(const export_plan *plan, const rt_host_split *split,
                          const rt_host_config *cfg, const rt_matrix *A, const rt_matrix *B,
                          rt_matrix *C, rt_host_stats *stats, char *err, size_t errlen);
/* One line describing a split ("in core" or "2 host levels, 2x1x2 tiles: 28
 * subproblems of 4096 x 8192 x 4096"). */
const char *rt_host_describe(const rt_host_split *split, char *buf, size_t len);

/* ---- generated operands and checks without a reference product ---------- */

/* Fills with bits that depend only on (seed, word index): the same matrix for a
 * seed whatever the threads (splitmix64; Steele, Lea, Flood 2014). */
void rt_matrix_generate(rt_matrix *m, uint64_t seed, int threads);
/* Freivalds's check over GF(2) (Freivalds 1977): C X == A (B X) for a random
 * cols x 64 bit matrix X from seed, i.e. 64 random vectors at once; a wrong
 * product passes with probability at most 2^-64.  true when they agree. */
bool rt_freivalds_gf2(const rt_matrix *A, const rt_matrix *B, const rt_matrix *C, uint64_t seed,
                      int threads);
/* samples random entries of C recomputed from a row of A and a column of B
 * (GF(2) or Boolean); returns the number that differ. */
uint64_t rt_sample_check(const rt_matrix *A, const rt_matrix *B, const rt_matrix *C, bool boolean,
                         int samples, uint64_t seed);

/* ---- floating-point matrices (docs/float.md) ---------------------------
 *
 * A float matrix is rows x cols entries of one type, row-major and contiguous
 * in memory whatever order its file had.  Files are NumPy .npy (format 1.0,
 * 2.0 or 3.0 read; 1.0 written when the header fits): little-endian f4/f8, 2-D,
 * C or Fortran order. */

typedef enum rt_ftype {
    RT_F32 = 0,
    RT_F64 = 1
} rt_ftype;
const char *rt_ftype_name(rt_ftype t); /* "f32", "f64" */
/* "f32"/"float32"/"single", "f64"/"float64"/"double"; false otherwise. */
bool rt_ftype_parse(const char *s, rt_ftype *t);
static inline size_t rt_ftype_size(rt_ftype t) { return t == RT_F32 ? 4 : 8; }

typedef struct rt_fmatrix {
    uint64_t rows, cols;
    rt_ftype type;
    void *data; /* rows * cols entries, row-major, 64-byte aligned */
} rt_fmatrix;

/* A zero matrix; NULL when a dimension is 0 or above RT_MAX_DIM, the entries
 * exceed RT_MAX_MATRIX_BYTES, or out of memory. */
rt_fmatrix *rt_fmatrix_new(uint64_t rows, uint64_t cols, rt_ftype type);
void rt_fmatrix_free(rt_fmatrix *m);
/* Entry (r, c) as a long double / set from a long double (rounded to the type). */
long double rt_fmatrix_get(const rt_fmatrix *m, uint64_t r, uint64_t c);
void rt_fmatrix_set(rt_fmatrix *m, uint64_t r, uint64_t c, long double v);
/* Independent entries, uniform in [-1, 1) (53 or 24 random bits). */
void rt_fmatrix_random(rt_fmatrix *m, scheme_rng *rng);
/* Largest |entry| (0 for an all-zero matrix; NaN propagates). */
double rt_fmatrix_max_abs(const rt_fmatrix *m);

/* NumPy .npy (docs/float.md).  The header is checked (magic, version, a
 * Python-literal dict with exactly the keys descr, fortran_order, shape;
 * descr '<f4' or '<f8'; a 2-D shape of positive dimensions) and then the file's
 * size against it, before anything is allocated.  NULL with diag naming the
 * file, the byte offset and what was expected. */
#define RT_NPY_MAGIC SCHEME_NPY_MAGIC
rt_fmatrix *rt_npy_read_file(const char *path, scheme_diag *diag);
rt_fmatrix *rt_npy_read_buffer(const void *buf, size_t len, const char *name, scheme_diag *diag);
/* Only the header: dimensions, type, order. */
bool rt_npy_read_dims(const char *path, uint64_t *rows, uint64_t *cols, rt_ftype *type,
                      bool *fortran, scheme_diag *diag);
/* True when the file starts with the .npy magic (false when unreadable). */
bool rt_npy_is_npy(const char *path);
bool rt_npy_write(const rt_fmatrix *m, bool fortran, FILE *out);
/* Whole or not at all (scheme_write_file_atomic); "-" is standard output. */
bool rt_npy_write_file(const char *path, const rt_fmatrix *m, bool fortran, char *err,
                       size_t errlen);

/* ---- float products with a chain of schemes (docs/float.md) ------------ */

/* One level of a float plan: a scheme valid over Z as lists of (block,
 * coefficient) per product; A blocks i*m+j, B blocks j*p+k, C blocks i*p+k. */
typedef struct rt_fterm {
    int na, nb, nc;
    int a_blk[SCHEME_MAX_ENTRIES], b_blk[SCHEME_MAX_ENTRIES], c_blk[SCHEME_MAX_ENTRIES];
    int a_coef[SCHEME_MAX_ENTRIES], b_coef[SCHEME_MAX_ENTRIES], c_coef[SCHEME_MAX_ENTRIES];
} rt_fterm;

typedef struct rt_flevel {
    int n, m, p, rank;
    char name[128];
    rt_fterm *terms;  /* rank of them */
    double stability; /* E: max over C entries (i,k) of sum_h |c_h[k,i]| |a_h|_1 |b_h|_1 */
    int adds;         /* Q: max nnz(a_h) + max nnz(b_h) + max nnz(C row): the additions' depth */
    /* The fused schedule (docs/float.md, "Fused sums"): product h's A-side sum
     * goes to slot t_slot[h] (-1: one block, used in place), its B-side sum to
     * s_slot[h], its product to q_slot[h] (-1: straight into its one C block).
     * ta is nt x (n m) (slot, A block) coefficients, sb ns x (m p), qc (n p) x nq
     * (C block, Q slot).  One pass per table reads each source block once. */
    int nt, ns, nq;
    int *t_slot, *s_slot, *q_slot, *ta, *sb, *qc;
    /* The level is Winograd's variant of Strassen (the built-in "winograd",
     * its 7 terms in any order): the CPU's plain schedule then shares partial
     * sums between products and uses C's blocks as workspace (fm_winograd_ in
     * runtime/fmul_impl.h; docs/float.md, "Winograd's schedule"). */
    bool winograd;
} rt_flevel;

/* How a level forms its sums: per product (each sum its own pass, a product
 * feeding several C blocks through one workspace and one pass), or fused (all
 * the A sums of a level in one pass, all the B sums in one, all the products
 * that feed several C blocks accumulated in one pass writing each C block once;
 * more workspace).  AUTO: fused on the GPU, per product on the CPU. */
typedef enum { RT_FSUMS_AUTO = 0, RT_FSUMS_PLAIN, RT_FSUMS_FUSED } rt_fsums;

/* How the CPU product uses its threads: the BLAS's threads inside each GEMM,
 * the sums on the calling thread (BLAS), or C cut into one panel of rows per
 * thread, each panel's product (its own sums and a one-thread BLAS) on a
 * thread of its own (ROWS).  AUTO: ROWS where there are levels, 2 or more
 * threads and at least 2048 rows a thread, BLAS otherwise (docs/float.md,
 * "Threads", says why). */
typedef enum { RT_FPAR_AUTO = 0, RT_FPAR_BLAS, RT_FPAR_ROWS } rt_fpar;

typedef struct rt_fplan {
    int levels;
    rt_flevel lv[EXPORT_PLAN_MAX_LEVELS];
    rt_fsums sums; /* rt_fplan_init sets AUTO */
    rt_fpar par;   /* CPU; rt_fplan_init sets AUTO */
    int streams;   /* GPU: streams for the last level's independent GEMMs (<= 1: one) */
} rt_fplan;

/* Builds a plan from a chain of schemes, outermost first (0 levels: the BLAS
 * alone).  Every level must verify over Z (verify_z; a GF(2) scheme with its
 * 0/1 coefficients); false otherwise with err naming the level (1-based) and
 * its name.  level_out (may be NULL) gets the failing level, 0 for others. */
bool rt_fplan_init(rt_fplan *p, const scheme *const *chain, const char *const *names, int n,
                   int *level_out, char *err, size_t errlen);
void rt_fplan_free(rt_fplan *p);
/* A first-order bound on max |C - fl(C)| for inner dimension K and inputs of
 * largest magnitude amax, bmax (Ballard, Benson, Druinsky, Lipshitz, Schwartz
 * 2016, after their Theorem on the stability vector; docs/float.md):
 *     u amax bmax ((ceil(K / prod m_l) + sum Q_l) prod E_l + K). */
double rt_fplan_error_bound(const rt_fplan *p, rt_ftype type, uint64_t K, double amax, double bmax);
/* Workspace bytes rt_fmul needs for these sizes on `threads` threads (with
 * p->sums: RT_FSUMS_FUSED needs nt, ns, nq blocks a level, per product one of
 * each; with panels of rows, rt_fmul_panels, each panel has B's side whole). */
double rt_fplan_workspace(const rt_fplan *p, rt_ftype type, uint64_t M, uint64_t K, uint64_t N, int threads);
/* How many panels of C's rows rt_fmul cuts an M-row product into on `threads`
 * threads (<= 0: rt_default_threads()) under p->par: 0 where it does not cut
 * (the BLAS's threads). */
int rt_fmul_panels(const rt_fplan *p, uint64_t M, int threads);

typedef struct rt_fstats {
    double total, gemm, adds; /* seconds: all, in the BLAS, in operand sums and accumulations (CPU) */
    uint64_t gemm_calls;
    double device, transfer;  /* GPU: seconds of the product on the device (CUDA events; the best
                                 of the timing runs), of the uploads and the download */
    uint64_t add_launches;    /* GPU: addition kernels launched */
    double device_bytes;      /* GPU: device memory held */
    int fused_levels;         /* GPU: levels that ran with the fused schedule */
} rt_fstats;

/* C = A B with the plan: each level splits the operands into n x m and m x p
 * blocks (peeling the rows, inner columns and columns that do not divide: those
 * strips are done by the BLAS), forms the rank products' operand sums with the
 * scheme's integer coefficients, recurses, and accumulates into C; the base
 * case is the BLAS's GEMM.  A, B, C of one type; C is A->rows x B->cols.
 * threads (<= 0: rt_default_threads()): with p->par BLAS the BLAS's threads,
 * the sums on the calling thread (runtime/fmul_impl.h says why); with ROWS one
 * panel of C's rows per thread, each over a one-thread BLAS (stats' gemm and
 * adds are then summed over the threads).
 * RT_EDIMS, RT_ENOMEM with err. */
rt_status rt_fmul(const rt_fplan *p, const rt_fmatrix *A, const rt_fmatrix *B, rt_fmatrix *C,
                  int threads, rt_fstats *stats, char *err, size_t errlen);
/* rt_fmul keeps its workspace between calls (runtime/fmul.c says why); this
 * frees what no call is using. */
void rt_fmul_release(void);
/* The same on a GPU through cuda_fmul (cuda/fg_cuda.h): cuBLAS's DGEMM/SGEMM
 * as the base case, addition kernels for the levels.  f32 without TF32 unless
 * tf32.  timing_reps > 1 runs the device part that many times (the result is
 * that of the last; stats->device the best).  RT_EBACKEND with a message when
 * the build has no CUDA or no GPU is visible, RT_EDEVICE on a device failure.
 * A plan with 0 levels is cuBLAS's GEMM alone (the GPU baseline). */
rt_status rt_fmul_gpu(const rt_fplan *p, const rt_fmatrix *A, const rt_fmatrix *B, rt_fmatrix *C,
                      int device, bool tf32, int timing_reps, rt_fstats *stats, char *err,
                      size_t errlen);
/* out_o = (keep[o] ? out_o : 0) + sum_s coef[o nsrc + s] src_s over rows x cols,
 * s in increasing order, terms with coefficient 0 left out, for every output o
 * whose coefficient row is not all zero (the others are not touched): the
 * fused sum of one level, the CPU twin of cuda/rt_fmul.cu's fsum kernel.
 * keep NULL: no output kept.  Sources and outputs have leading dimensions lds
 * and ldd; f is RT_F32/RT_F64. */
void rt_fsum(rt_ftype f, uint64_t rows, uint64_t cols, int nsrc, const void *const *src, uint64_t lds,
             int nout, void *const *dst, uint64_t ldd, const int *coef, const bool *keep);
/* The BLAS's GEMM alone (the baseline). */
rt_status rt_fmul_blas(const rt_fmatrix *A, const rt_fmatrix *B, rt_fmatrix *C, int threads,
                       char *err, size_t errlen);
/* The plain reference: the triple loop in long double, rounded once into C. */
bool rt_fmul_reference(const rt_fmatrix *A, const rt_fmatrix *B, rt_fmatrix *C);
/* The same as long doubles (rows*cols, malloc'd), for error measurement; NULL
 * when out of memory or the dimensions do not fit. */
long double *rt_fmul_reference_ld(const rt_fmatrix *A, const rt_fmatrix *B);
/* max |C - R| over all entries against a long double reference R. */
double rt_fmatrix_max_error(const rt_fmatrix *C, const long double *R);
/* max |C - AB| over `samples` random entries, each computed in long double
 * (Kahan-compensated, so also for f64 it is more accurate than the product). */
double rt_fmul_sample_error(const rt_fmatrix *A, const rt_fmatrix *B, const rt_fmatrix *C,
                            int samples, scheme_rng *rng);
/* Name and version of the BLAS linked in (for banners and tables). */
const char *rt_blas_name(void);

/* ---- schemes the runtime knows by name --------------------------------- */

/* "strassen" (Strassen 1969, over Z), "winograd" (Winograd's variant of it,
 * 1971: 15 block additions instead of 18; the float product runs it with the
 * schedule of Boyer, Dumas, Pernet, Zhou 2009, docs/float.md), "std:NxMxP" or
 * "standard:NxMxP" (the standard algorithm).  NULL when the name is not one of these (err says why). */
scheme *rt_scheme_builtin(const char *name, char *err, size_t errlen);

#endif
