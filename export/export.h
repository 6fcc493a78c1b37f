/* export: writing schemes for other programs, and the runtime's plan.
 *
 * Every writer takes a verified scheme and a stream; false on an I/O error.
 */
#ifndef FLIPGRAPH_EXPORT_H
#define FLIPGRAPH_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "../schemes/scheme.h"

/* ---- scheme writers (docs/export.md) ---- */

/* Every format `flipgraph export --to` knows; docs/export.md describes each. */
typedef enum export_format {
    EXPORT_EXP = 0, /* Kauers-Moosbauer .exp (scheme_write_exp) */
    EXPORT_TXT,     /* Moosbauer-Poole .txt: (a13 - a32) (b12 + b21) (-c13) */
    EXPORT_M,       /* Mathematica nested lists, as in the corpus */
    EXPORT_NATIVE,  /* flipgraph's own (scheme_write_native) */
    EXPORT_JSON,    /* the schema of docs/export.md */
    EXPORT_BB,      /* Benson-Ballard / Huang U, V, W coefficient file (Huang 2018, ch. 4) */
    EXPORT_TEX,     /* the terms as a LaTeX longtable */
    EXPORT_MD,      /* the terms as a Markdown table */
    EXPORT_C,       /* a C11 straight-line program (uint64_t over GF(2), double over Z) */
    EXPORT_FORMAT_COUNT
} export_format;

/* "exp", "txt", ... -> format; false when unknown. */
bool export_format_parse(const char *name, export_format *out);
const char *export_format_name(export_format f);

/* What a writer may say beyond the terms; every field is optional (zero/NULL). */
typedef struct export_info {
    const char *name;    /* C function name, table caption, JSON "name"; NULL: export_default_name */
    /* Provenance, when the scheme came from the store (db_scheme_info); export/
     * does not depend on db/, so the CLI copies the row's fields here. */
    const char *db_path;  /* NULL: not from the store (no "provenance" in JSON) */
    int64_t db_id;
    const char *source;   /* "search", "import:FILE", "lift", ... (NULL: unknown) */
    const char *found_at; /* UTC time stamp (NULL: unknown) */
    int64_t run_id;       /* 0: none */
    int64_t parent_id;    /* 0: none */
    uint64_t flips;       /* 0: unknown */
    double seconds;       /* 0: unknown */
} export_info;

/* "fg_NxMxP_rR": the default name of a scheme (a C identifier). */
const char *export_default_name(const scheme *s, char buf[64]);
/* The canonical hash of s (scheme_hash) as 16 hex digits, taken on a copy since
 * scheme_hash puts its argument in canonical form; NULL when out of memory. */
const char *export_hash_hex(const scheme *s, char hex[17]);
/* true when name is a C identifier of at most 63 characters (not a keyword). */
bool export_name_valid(const char *name);

/* The coefficient of entry e (bit order of scheme.h) at position pos of term r:
 * the integer over Z, 0/1 over GF(2). */
int export_coef(const scheme *s, int r, int pos, int e);

/* A factor as a signed sum of entries, "a13 - a32 + 2*a53" (letter a, b, c; 1-based
 * row and column, one digit each when every dimension is <= 9, else "a1,12").
 * style: 0 plain ("a13 - 2*a32"), 1 LaTeX ("a_{13} - 2a_{32}").  transposed_c: print
 * a c entry as the published formats do (cKI = column K, row I of the product),
 * else as the product entry it feeds (cIK).  "0" for a zero factor.  false when it
 * does not fit in buf. */
bool export_factor_str(const scheme *s, int r, int pos, int style, bool transposed_c,
                       char *buf, size_t len);

bool export_write_txt(const scheme *s, FILE *out);
bool export_write_m(const scheme *s, FILE *out);
bool export_write_json(const scheme *s, const export_info *info, FILE *out);
bool export_write_bb(const scheme *s, const export_info *info, FILE *out);
bool export_write_tex(const scheme *s, const export_info *info, FILE *out);
bool export_write_md(const scheme *s, const export_info *info, FILE *out);
bool export_write_c(const scheme *s, const export_info *info, FILE *out);
/* One level of a scheme valid over Z (the caller checks) as a C routine over a
 * CBLAS GEMM for doubles or, with f32, floats (export/write_c_blas.c;
 * `export --to c --type f64|f32`, docs/export.md). */
bool export_write_c_blas(const scheme *s, const export_info *info, bool f32, FILE *out);
/* Any format (info may be NULL).  false on an I/O error, or (errno EINVAL) when the
 * format cannot hold the scheme (txt and exp need dimensions <= 9). */
bool export_write(const scheme *s, export_format f, const export_info *info, FILE *out);

/* The Benson-Ballard file name of a scheme: "NAMEnmp-R-NNZ" (their convention:
 * dimensions, rank, nonzeros of U, V and W), for `export --to bb -o DIR/`. */
const char *export_bb_filename(const scheme *s, const char *name, char *buf, size_t len);

/* ---- straight-line programs for the C writer ----
 * One side of a scheme as linear forms: outputs y_o = sum_v coef * x_v over the
 * inputs and over temporaries t = x + sign*y that the greedy pair elimination
 * (Paar 1997; Benson-Ballard's subexpr_elim of fast-matmul, Benson, Ballard 2015) shares
 * between forms.  Variables 0..nin-1 are the inputs, nin+k the k-th op's result. */
typedef struct export_slp_op {
    int x, y;  /* operands (variables) */
    int sign;  /* +1 or -1 (always +1 over GF(2), where + is XOR) */
} export_slp_op;

typedef struct export_slp {
    int nin, nout, nops;
    export_slp_op *ops;
    int *start;   /* output o uses terms start[o] .. start[o+1]-1 */
    int *var;     /* the variable of each term */
    int *coef;    /* its nonzero coefficient (1 over GF(2)) */
} export_slp;

/* Counts of one program, as the C writer emits it. */
typedef struct export_slp_cost {
    long adds;      /* binary additions/subtractions (XOR over GF(2)) */
    long scalings;  /* multiplications by a constant other than +-1 */
    long negations; /* unary minus: an output whose every coefficient is -1 */
} export_slp_cost;

/* Builds the program for nout forms over nin inputs, coefficients dense row-major
 * (coefs[o * nin + v]); f2: coefficients mod 2 and XOR.  cse false: no sharing
 * (the plain count).  false when out of memory. */
bool export_slp_build(export_slp *p, int nin, int nout, const int *coefs, bool f2, bool cse);
void export_slp_free(export_slp *p);
export_slp_cost export_slp_cost_of(const export_slp *p);
/* The term of output o written first: a positive one when there is one, else
 * one with |coef| != 1 (a negative constant), so that a unary minus is needed
 * only when every coefficient is -1.  The cost and the C writer agree on it. */
int export_slp_first_term(const export_slp *p, int o);
/* Evaluates the program on integer inputs (tests: it must equal the forms). */
void export_slp_eval(const export_slp *p, bool f2, const long long *in, long long *out);

/* The three programs of the C writer for a scheme: A side (R forms over n*m
 * entries of A), B side (R forms over m*p), C side (n*p product entries, row
 * major i*p+k, over the R products).  Terms with a zero factor are left out
 * (mults counts the products actually formed).  A and B forms are sign-normalized
 * (a form with no positive coefficient is negated together with the term's C
 * factor).  cse as above.  false when out of memory. */
typedef struct export_c_program {
    export_slp side[3];
    int mults;
    int *term; /* term[q]: the scheme term of product q */
    export_slp_cost cost[3];
    long adds, scalings, negations; /* totals */
} export_c_program;
bool export_c_program_build(const scheme *s, bool cse, export_c_program *prog);
void export_c_program_free(export_c_program *prog);

/* ---- the runtime's plan (docs/runtime.md) ----
 *
 * A plan multiplies A (rows x inner) by B (inner x cols) over GF(2), or as
 * Boolean matrices, with a chain of schemes, one per level (Karppa, Kaski 2019,
 * sections 2.5-2.6): C = (zeta_1 x .. x zeta_d)((xi_1 x .. x xi_d) A . (eta_1 x .. x eta_d) B).
 * It is plain data (fixed-width integers and flat arrays, no pointers into
 * schemes) so that a GPU executor can copy it to the device as it is; the CPU
 * executor (runtime/) is the reference.  docs/runtime.md describes the layout
 * of the operands between the levels.
 *
 * Level l (0 = outermost) uses a scheme <s,t,u> of rank r (s,t,u = n,m,p):
 *   xi   r x (s*t):   xi[h*s*t + i*t + j]   = a_h[i,j]  (A side, "alpha" of Karppa, Kaski 2019)
 *   eta  r x (t*u):   eta[h*t*u + j*u + k]  = b_h[j,k]  (B side)
 *   zeta (s*u) x r:   zeta[(i*u + k)*r + h] = c_h[k,i]  (product side; c is transposed)
 * as 0/1 bytes, and as int8 over Z when the scheme's integer coefficients
 * satisfy the Brent equations over Z (then the Boolean product may use it). */

#define EXPORT_PLAN_MAX_LEVELS 16
#define EXPORT_PLAN_BLOCK 64 /* block dimensions are multiples of one 64-bit word */

/* A straight-line program over GF(2) for y = M x, M an n_out x n_in 0/1 matrix.
 * Registers 0 .. n_in-1 hold the inputs; operation k writes register n_in + k as
 * reg[src[2k]] ^ reg[src[2k+1]] (both sources below n_in + k): every register is
 * written once, so a GPU thread can keep them in registers.  Output j is register
 * out[j], or -1 when row j of M is zero.  Common subexpressions are shared
 * (Paar's greedy pair elimination); naive_ops is the count without sharing,
 * sum over the rows of (weight - 1). */
typedef struct export_plan_slp {
    int32_t n_in, n_out, n_ops, naive_ops;
    uint32_t *src; /* 2 * n_ops */
    int32_t *out;  /* n_out */
} export_plan_slp;

enum { EXPORT_PLAN_XI = 0, EXPORT_PLAN_ETA = 1, EXPORT_PLAN_ZETA = 2 };

typedef struct export_plan_level {
    int32_t s, t, u, r;
    uint64_t hash;   /* canonical hash of the scheme (its ring's) */
    char name[128];  /* where it came from: file, "db:ID", builtin name */
    bool z_valid;    /* the integer matrices below are present and valid over Z */
    uint8_t *xi, *eta, *zeta;       /* GF(2), layouts above */
    int8_t *xi_z, *eta_z, *zeta_z;  /* over Z; NULL unless z_valid */
    export_plan_slp slp[3];         /* EXPORT_PLAN_XI, _ETA, _ZETA */
} export_plan_level;

typedef struct export_plan {
    int32_t levels;   /* 0: the cubic method (the inner layer only) */
    bool boolean;     /* AND/OR product; needs every level z_valid */
    export_plan_level level[EXPORT_PLAN_MAX_LEVELS];
    /* Products of the levels' dimensions. */
    uint64_t S, T, U, R;
    /* Sizes (export_plan_size): A is rows x inner, B inner x cols.  Each is padded
     * with zeros up to the next multiple of 64 * (S, T or U), so that the inner
     * block bs x bt (A), bt x bu (B), bs x bu (C) is a whole number of 64-bit
     * words each way; the product is cropped back to rows x cols. */
    bool sized;
    uint64_t rows, inner, cols;
    uint64_t prows, pinner, pcols; /* S*bs, T*bt, U*bu */
    uint64_t bs, bt, bu;
    /* 64-bit words of the operands after the last expanding level, and of the
     * largest buffers the CPU executor holds at once (its peak, in bytes). */
    uint64_t words_a, words_b, words_q;
    double peak_bytes;
    /* Predicted bit operations (GF(2): one XOR or AND of two bits is one; the
     * inner layer counts bs*bu*(2*bt-1) per product as Karppa, Kaski 2019 do). */
    double ops_expand_a, ops_expand_b, ops_inner, ops_compress, ops_total;
    double ops_effective; /* 2*r*i*c - r*c of the unpadded cubic product */
} export_plan;

/* Builds the size-free part: per level the coefficient matrices, the Z check and
 * the three programs.  chain[l] is the scheme of level l (outermost first; any
 * ring: GF(2) uses its words), names[l] may be NULL.  The matrices are checked
 * against the triple product property (Karppa, Kaski 2019, (19)) over GF(2): a chain that
 * fails is refused with a message naming the level.  levels may be 0 (cubic).
 * false with a message in err (the plan is then freed). */
bool export_plan_init(export_plan *p, const scheme *const *chain, const char *const *names,
                      int levels, bool boolean, char *err, size_t errlen);
/* Sizes the plan for A rows x inner times B inner x cols (each >= 1): blocks,
 * padding, buffers and predicted operations.  false when a size overflows. */
bool export_plan_size(export_plan *p, uint64_t rows, uint64_t inner, uint64_t cols,
                      char *err, size_t errlen);
void export_plan_free(export_plan *p);
/* Prints the plan readably (verbose: the matrices and programs too). */
bool export_plan_print(const export_plan *p, FILE *out, bool verbose);
/* The index of the first level that is not valid over Z, or -1 when all are. */
int export_plan_first_not_z(const export_plan *p);

/* The program for an n_out x n_in 0/1 matrix m (row-major bytes); tries a few
 * seeded tie-breaks of the greedy and keeps the shortest.  false when out of memory. */
bool export_plan_slp_build(export_plan_slp *slp, const uint8_t *m, int n_out, int n_in);
void export_plan_slp_free(export_plan_slp *slp);
/* Runs the program on 64 bit-sliced instances (tests; the reference semantics). */
void export_plan_slp_eval(const export_plan_slp *slp, const uint64_t *in, uint64_t *out);

#endif
