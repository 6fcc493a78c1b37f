/* schemes: the scheme model of flipgraph.
 *
 * A format <n,m,p> multiplies an n x m matrix A by an m x p matrix B.  A term is
 * three factors (a, b, c): a is n x m, b is m x p, c is p x n (the *transposed*
 * product position, the cyclic convention of every published format, see
 * data/corpus/CONVENTIONS.md and docs/formats.md):
 *
 *     sum_r a_r[i,j] b_r[j',k] c_r[k',i'] = [j=j'][k=k'][i=i'].
 *
 * A factor over GF(2) is one uint64_t, bit  row * cols + col  (a: i*m+j,
 * b: j*p+k, c: k*n+i).  An integer scheme keeps, next to the GF(2) words (its
 * reduction mod 2), one int8_t per entry.  n*m, m*p and p*n are at most 64.
 *
 * This module knows nothing of the rest of the program.
 */
#ifndef FLIPGRAPH_SCHEME_H
#define FLIPGRAPH_SCHEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SCHEME_MAX_ENTRIES 64     /* entries of one factor */
#define SCHEME_MAX_RANK 4096      /* no scheme of a format up to 64 entries needs more */

typedef struct scheme_format {
    int n, m, p;
} scheme_format;

typedef enum scheme_ring {
    SCHEME_RING_F2 = 0, /* coefficients in GF(2): only the words */
    SCHEME_RING_Z = 1   /* small integer coefficients (int8_t), words = odd entries */
} scheme_ring;

/* Position of a factor within a term. */
enum { SCHEME_A = 0, SCHEME_B = 1, SCHEME_C = 2 };

typedef struct scheme_term {
    uint64_t f[3]; /* f[SCHEME_A], f[SCHEME_B], f[SCHEME_C] */
} scheme_term;

/* Integer coefficients of one term: z[pos][entry], entry in the bit order above. */
typedef struct scheme_zterm {
    int8_t z[3][SCHEME_MAX_ENTRIES];
} scheme_zterm;

typedef struct scheme {
    scheme_format fmt;
    scheme_ring ring;
    int rank;           /* number of terms */
    int cap;            /* allocated terms */
    scheme_term *terms; /* always present: over Z, the reduction mod 2 */
    scheme_zterm *zterms; /* NULL over GF(2) */
} scheme;

/* A diagnostic for anything read from a file: FILE:LINE:COL: message. */
typedef struct scheme_diag {
    char file[256];
    int line, col; /* 1-based; 0 when unknown */
    char msg[512];
} scheme_diag;

/* ---- formats ---------------------------------------------------------- */

/* Rows and columns of the factor at position pos (a: n x m, b: m x p, c: p x n). */
int scheme_factor_rows(scheme_format f, int pos);
int scheme_factor_cols(scheme_format f, int pos);
/* Entries of the factor at position pos. */
int scheme_factor_size(scheme_format f, int pos);
/* Factor w of a rows x cols matrix (bit r*cols+c), transposed (cols x rows);
 * bits beyond rows*cols are ignored. */
uint64_t scheme_factor_transpose(uint64_t w, int rows, int cols);
/* The same for an integer factor (scheme_zterm's entries, r*cols+c): out
 * (SCHEME_MAX_ENTRIES entries, those past rows*cols zero) is w transposed. */
void scheme_zfactor_transpose(const int8_t *w, int rows, int cols, int8_t *out);
/* true when every dimension is >= 1 and n*m, m*p, p*n <= 64. */
bool scheme_format_valid(scheme_format f);
/* Parses "NxMxP" (also "N,M,P"); false with a message in err (may be NULL). */
bool scheme_format_parse(const char *s, scheme_format *out, char *err, size_t errlen);
/* Writes "<n,m,p>". */
const char *scheme_format_str(scheme_format f, char buf[32]);
/* The ring as people read it ("Z", "GF(2)") and as the options and the store
 * spell it ("z", "f2"). */
const char *scheme_ring_name(scheme_ring r);
const char *scheme_ring_key(scheme_ring r);

/* ---- life cycle ------------------------------------------------------- */

/* An empty scheme (rank 0) with room for cap terms; NULL when out of memory. */
scheme *scheme_new(scheme_format f, scheme_ring ring, int cap);
void scheme_free(scheme *s);
scheme *scheme_clone(const scheme *s);
/* Grows the term arrays so that cap >= want; false when out of memory. */
bool scheme_reserve(scheme *s, int want);
/* Appends a GF(2) term (over Z: coefficients 1 where the word has a bit). */
bool scheme_push(scheme *s, uint64_t a, uint64_t b, uint64_t c);
/* Appends an integer term; the words are derived (odd coefficients). */
bool scheme_push_z(scheme *s, const scheme_zterm *t);
/* Removes term r (the last term takes its place). */
void scheme_remove(scheme *s, int r);
/* The reduction mod 2 as a GF(2) scheme (a copy; terms that vanish are dropped). */
scheme *scheme_to_f2(const scheme *s);
/* Equality of two schemes as sets of terms (canonical forms compared). */
bool scheme_equal(const scheme *x, const scheme *y);

/* The standard (cubic) algorithm of a format: n*m*p terms a_ij b_jk c_ki. */
scheme *scheme_standard(scheme_format f);

/* ---- canonical form --------------------------------------------------- */

/* Sorts the terms into the canonical order (by words, then coefficients). */
void scheme_canonicalize(scheme *s);
/* The canonical bytes: header (n,m,p,ring,rank) then each term big-endian,
 * GF(2): three 8-byte words; Z: three words then 3*64 coefficient bytes.
 * Returns a malloc'd buffer and its length. The scheme is canonicalized. */
uint8_t *scheme_canonical_bytes(scheme *s, size_t *len);
/* XXH3-64 of the canonical bytes (canonicalizes s). */
uint64_t scheme_hash(scheme *s);
/* The hash as 16 lowercase hex digits (big-endian). */
const char *scheme_hash_hex(uint64_t h, char buf[17]);

/* ---- symmetries of square formats -------------------------------------
 *
 * In the cyclic convention the tensor of <n,n,n>, sum a_ij b_jk c_ki, is
 * invariant under the cyclic shift of the three factors, (a, b, c) -> (b, c, a),
 * and under conjugating every factor by the index reversal i -> n-1-i (bit
 * r*n+c -> (n-1-r)*n+(n-1-c): the n*n bits reversed), which commutes with it
 * (Moosbauer, Poole, "Flip graphs with symmetry and new matrix multiplication
 * schemes", 2025).  A scheme is invariant under a group G when the image of
 * every term under every element of G is a term of it, as often as the term.
 * Elements are numbered k = 0..order-1: the shift applied k % 3 times, then the
 * reversal when k >= 3.  The reversal is one of several involutions that
 * commute with the shift: c3xc2sK takes the one that swaps the indices i and
 * n-1-i for i < K only, 1 <= K < n/2 (the reversal swaps all n/2 pairs); up to
 * relabelling these are all the C2s there are (schemes/involution.h). */
typedef enum scheme_symmetry {
    SCHEME_SYM_NONE = 0,
    SCHEME_SYM_C3 = 1,    /* the cyclic shift */
    SCHEME_SYM_C3XC2 = 2, /* the cyclic shift and the index reversal */
    SCHEME_SYM_T2 = 3,    /* the transposition of <n,m,m> (below) */
    SCHEME_SYM_C3XC2S1 = 4, /* the cyclic shift and the swap of the indices 0 and n-1 */
    SCHEME_SYM_C3XC2S2 = 5, /* ... and of 1 and n-2 */
    SCHEME_SYM_C3XC2S3 = 6  /* ... and of 2 and n-3 (n = 8) */
} scheme_symmetry;
/* The transposition: tr(ABC) = tr(C^T B^T A^T), so the tensor of <n,m,p> is
 * invariant under (a, b, c) -> (c^T, b^T, a^T) when m = p (a is n x m, b
 * m x m, c m x n); its element k = 1 is that map, k = 0 the identity.  A term
 * it fixes has c = a^T and b symmetric; over GF(2) an orbit of such a term
 * holds it twice and cancels.  Any format with two equal dimensions is a
 * permutation of one with m = p (search_permute). */
/* "none", "c3", "c3xc2", "t2", "c3xc2s1", "c3xc2s2", "c3xc2s3" */
const char *scheme_symmetry_name(scheme_symmetry g);
/* One of those names; false otherwise. */
bool scheme_symmetry_parse(const char *s, scheme_symmetry *g);
int scheme_symmetry_order(scheme_symmetry g); /* 1, 3, 6, 2; 6 for c3xc2sK */
/* The groups of square formats, largest first (c3xc2, c3xc2s1..c3xc2s3 of
 * order 6, then c3): the order in which a scheme's group is looked for. */
#define SCHEME_SYM_SQUARE_GROUPS 5
extern const scheme_symmetry scheme_symmetry_largest_first[SCHEME_SYM_SQUARE_GROUPS];
/* Whether g is the shift with an involution (c3xc2 or c3xc2sK). */
bool scheme_symmetry_has_c2(scheme_symmetry g);
/* The pairs (i, n-1-i) g's involution swaps on <n,n,n>: n/2 for c3xc2, K for
 * c3xc2sK, 0 for the others. */
int scheme_symmetry_swaps(scheme_symmetry g, int n);
/* Whether g acts on format f (square n x n x n, n <= 8, for c3 and c3xc2, and
 * K < n/2 for c3xc2sK, whose K = n/2 would be c3xc2 itself; m = p with
 * n*m < 64 and m*m < 64 for t2); false with a message naming the format. */
bool scheme_symmetry_fits(scheme_symmetry g, scheme_format f, char *err, size_t errlen);
/* The image of a GF(2) term under element k of g, for the factors of f. */
scheme_term scheme_symmetry_image_fmt(scheme_symmetry g, scheme_format f, scheme_term t, int k);
/* The same for square formats <n,n,n> (c3, c3xc2; t2 on <n,n,n> too). */
scheme_term scheme_symmetry_image(scheme_symmetry g, int n, scheme_term t, int k);
/* The image of an integer term (coefficients moved with their entries). */
void scheme_symmetry_image_z_fmt(scheme_symmetry g, scheme_format f, const scheme_zterm *t, int k,
                                 scheme_zterm *out);
void scheme_symmetry_image_z(scheme_symmetry g, int n, const scheme_zterm *t, int k, scheme_zterm *out);
/* Whether s is invariant under g (over its ring: GF(2) words, or the integer
 * terms with their multiplicities).  false with *term the index of a term
 * whose image under element *elem is missing (or less frequent), and a
 * message in err naming both; g must fit s's format. */
bool scheme_symmetry_check(const scheme *s, scheme_symmetry g, int *term, int *elem, char *err,
                           size_t errlen);
/* The orbits of an invariant GF(2) scheme: orbit[r] = the index of the
 * first term of r's orbit (the representative) for every term r; returns the
 * number of orbits, -1 when s is not invariant or out of memory.  An integer
 * scheme invariant over Z has the orbits of its reduction mod 2 when that
 * repeats no term (-1 otherwise). */
int scheme_symmetry_orbits(const scheme *s, scheme_symmetry g, int *orbit);

/* ---- files: every published format, and our own ---------------------- */

typedef enum scheme_file_kind {
    SCHEME_FILE_UNKNOWN = 0,
    SCHEME_FILE_EXP,    /* Kauers-Moosbauer: (a11+a23)*(b12)*(c21+c33) */
    SCHEME_FILE_TXT,    /* Moosbauer-Poole: (a13 - a32) (b12 + b21) (-c13) */
    SCHEME_FILE_M,      /* Mathematica: {{{{1,0},{0,1}}, {...}, {...}}, ...} */
    SCHEME_FILE_NATIVE, /* flipgraph's own, see docs/formats.md */
    SCHEME_FILE_NPZ,    /* AlphaTensor: a zip of NumPy arrays, one member per scheme */
    SCHEME_FILE_JSON    /* {"n": [n,m,p], "u": ..., "v": ..., "w": ...} (Perminov's catalogue) or our export's */
} scheme_file_kind;

/* Limits that keep every reader bounded, whatever the input. */
#define SCHEME_MAX_FILE_BYTES (64u << 20)

/* Reads a scheme from a buffer / a file.  The kind is detected from the
 * content; the format is the file's own (native), or inferred from the
 * largest indices, or *dims when dims is not NULL (an override).  The ring
 * is the native file's own, a JSON file's "z2" or "ring" where it has one; for
 * the published formats it is Z when the file
 * carries a minus sign or a coefficient other than 1 (then every coefficient
 * is kept, overflow refused), else GF(2).  Entries that repeat inside one
 * factor add up (and cancel mod 2).  The rank is the number of terms read.
 * A factor that is zero in the scheme's ring is refused; an integer term with
 * a factor that is nonzero over Z but even (2*a11) is kept, with GF(2) word 0
 * (it adds nothing to a GF(2) equation; scheme_to_f2 drops it).
 * The grammars are in docs/formats.md.  Files are capped at
 * SCHEME_MAX_FILE_BYTES and SCHEME_MAX_RANK terms.
 * On error returns NULL and fills diag (file, line, column, message); diag
 * may be NULL. */
scheme *scheme_read_buffer(const char *buf, size_t len, const char *name,
                           const scheme_format *dims, scheme_diag *diag);
scheme *scheme_read_file(const char *path, const scheme_format *dims, scheme_diag *diag);
scheme_file_kind scheme_detect_kind(const char *buf, size_t len);
const char *scheme_file_kind_name(scheme_file_kind k);
/* "exp", "txt", "m", "native", "npz", "json" -> kind; UNKNOWN otherwise. */
scheme_file_kind scheme_file_kind_parse(const char *name);

/* Writers: return false on an I/O error (errno set), or with errno EINVAL
 * when the kind cannot hold the scheme (see scheme_writable).  Reading back
 * what a writer wrote gives the same scheme (scheme_equal).  The native
 * writer lists the terms in canonical order (one scheme, one file). */
bool scheme_write_exp(const scheme *s, FILE *out);
bool scheme_write_native(const scheme *s, FILE *out);
bool scheme_write(const scheme *s, scheme_file_kind kind, FILE *out);
/* Moosbauer-Poole .txt ("(a11 + a23) (b12) (c21 + c33)") and Mathematica .m. */
bool scheme_write_txt(const scheme *s, FILE *out);
bool scheme_write_m(const scheme *s, FILE *out);
/* JSON with the FastMatrixMultiplication catalogue's keys n, m, z2, u, v, w
 * (docs/formats.md, "JSON"); z2 is true for a GF(2) scheme. */
bool scheme_write_json(const scheme *s, FILE *out);
/* Whether a file of this kind can hold s: rank 1..SCHEME_MAX_RANK, every
 * factor nonzero in the scheme's ring (no format can write a zero factor),
 * and for .exp/.txt (one-digit indices) every dimension at most 9.  false
 * with a message in err (may be NULL). */
bool scheme_writable(const scheme *s, scheme_file_kind kind, char *err, size_t errlen);
/* Adapter for scheme_write_file_atomic: ctx is a scheme_write_ctx. */
typedef struct scheme_write_ctx {
    const scheme *s;
    scheme_file_kind kind;
} scheme_write_ctx;
bool scheme_write_cb(void *ctx, FILE *f);

/* ---- NumPy .npy headers, and AlphaTensor's .npz scheme files ---------- */

/* The header of a .npy file (docs/formats.md, "AlphaTensor .npz"), parsed once
 * for every reader of .npy data (runtime/npy.c reads float matrices with it). */
#define SCHEME_NPY_MAGIC "\x93NUMPY"
#define SCHEME_NPY_MAX_DIMS 8
typedef struct scheme_npy_header {
    char descr[32];            /* as written: "<i8", "|O", "<f4" */
    bool fortran;              /* fortran_order */
    int ndim;                  /* 0 .. SCHEME_NPY_MAX_DIMS */
    uint64_t shape[SCHEME_NPY_MAX_DIMS];
    size_t descr_at, shape_at; /* byte offsets of the two values, for messages */
    size_t data_offset;        /* bytes before the entries */
} scheme_npy_header;
/* Checks the magic, the version (1.0, 2.0, 3.0) and the dict (exactly the keys
 * descr, fortran_order, shape) in head[0, got); false with diag naming the
 * byte offset and what was expected.  The dtype and shape are not judged. */
bool scheme_npy_header_parse(const unsigned char *head, size_t got, const char *name,
                             scheme_npy_header *h, scheme_diag *diag);

/* AlphaTensor's factorization files (Fawzi et al., "Discovering faster matrix
 * multiplication algorithms with reinforcement learning", 2022): a zip of .npy
 * members, one per scheme, named "N,M,P.npy"; each holds the factors u, v, w
 * (N*M x R, M*P x R, P*N x R) as one (3, E, R) integer array or, when the three
 * sizes differ, a pickled object array of three (docs/formats.md says which
 * pickles are read; nothing in them is ever run). */
typedef struct scheme_npz_entry {
    char key[64];         /* the member's name without ".npy": "4,4,4" */
    scheme_format fmt;    /* from the key */
    int rank;             /* R */
    scheme *s;            /* NULL when the scheme is beyond flipgraph's limits */
    char skipped[256];    /* then: why */
} scheme_npz_entry;
typedef struct scheme_npz {
    int count;
    scheme_npz_entry *e;  /* in the archive's order */
} scheme_npz;
/* true when buf starts like a zip archive ("PK\3\4" or the empty "PK\5\6"). */
bool scheme_is_npz(const void *buf, size_t len);
/* Reads every member.  A member beyond the limits (a factor of more than 64
 * entries, a rank above SCHEME_MAX_RANK, a coefficient outside int8) is kept
 * as an entry with s NULL and the reason in skipped; anything malformed (not a
 * zip, a member that is not a .npy array named N,M,P.npy, a shape that does not
 * fit the key, a dtype other than integers or integral floats, a pickle other
 * than NumPy's arrays) refuses the whole file: NULL with diag naming the file,
 * the member and what was expected.  The ring of each scheme is Z when its
 * member holds an entry other than 0 and 1, else GF(2), as for .exp files. */
scheme_npz *scheme_npz_read_buffer(const void *buf, size_t len, const char *name, scheme_diag *diag);
scheme_npz *scheme_npz_read_file(const char *path, scheme_diag *diag);
void scheme_npz_free(scheme_npz *z);
/* The entry of format f (keys are formats), or NULL. */
const scheme_npz_entry *scheme_npz_find(const scheme_npz *z, scheme_format f);
/* Writes count schemes as AlphaTensor writes them: member "N,M,P.npy" of
 * int64 entries, a (3, E, R) array when the factor sizes agree, else a
 * pickled object array of three (E, R) arrays as NumPy pickles it.  Keys
 * (formats) must be distinct: false with errno EINVAL otherwise. */
bool scheme_write_npz_set(const scheme *const *s, int count, FILE *out);
bool scheme_write_npz(const scheme *s, FILE *out);

/* ---- small shared utilities ------------------------------------------ */

/* Writes what write_fn(ctx, f) produces (false on failure) to PATH, which the
 * user named (every -o goes through here), replacing nothing that is not a
 * file of ours to replace:
 *  - "-": standard output.
 *  - absent or a regular file: whole or not at all, through a uniquely named
 *    temporary beside it (O_EXCL), fsync, rename.  An existing file keeps its
 *    mode and, where the process may set them, its owner and group; a new
 *    file gets 0666 & ~umask, as fopen would give it.
 *  - a symlink (a chain, relative or dangling): the file it finally names is
 *    written by these rules, the link itself is left as it is.
 *  - a character or block device or a FIFO: opened O_WRONLY (no create, no
 *    truncate, no rename) and written in place; a FIFO waits for a reader.
 *  - a directory, a socket, anything else: refused ("PATH: is a directory").
 * false with errno and a message naming PATH and the reason in err on
 * failure; no temporary is left behind. */
bool scheme_write_file_atomic(const char *path, bool (*write_fn)(void *ctx, FILE *f),
                              void *ctx, char *err, size_t errlen);
/* Reads a whole file (at most max bytes) into a malloc'd NUL-terminated buffer. */
char *scheme_slurp(const char *path, size_t max, size_t *len, char *err, size_t errlen);
/* The same for a reader: NULL with diag (when not NULL) naming the file and why. */
char *scheme_slurp_diag(const char *path, size_t max, size_t *len, scheme_diag *diag);
/* Fills d (when not NULL): the file, no line or column, the message. */
void scheme_diag_set(scheme_diag *d, const char *file, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A small, fast, seedable generator (xoshiro256**), shared by tests,
 * walkers and the runtime.  Counter-free; split with scheme_rng_jump. */
typedef struct scheme_rng {
    uint64_t s[4];
} scheme_rng;
void scheme_rng_seed(scheme_rng *r, uint64_t seed);
static inline uint64_t scheme_rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline uint64_t scheme_rng_next(scheme_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = scheme_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = scheme_rng_rotl(s[3], 45);
    return result;
}
/* Uniform in [0, bound) (Lemire's multiply-shift; bound > 0). */
static inline uint32_t scheme_rng_below(scheme_rng *r, uint32_t bound)
{
    return (uint32_t)(((scheme_rng_next(r) >> 32) * (uint64_t)bound) >> 32);
}
/* Uniform in [0, 1), the top 53 bits (the Metropolis draws, the pool's restarts). */
static inline double scheme_rng_uniform(scheme_rng *r) { return (double)(scheme_rng_next(r) >> 11) * 0x1p-53; }
/* splitmix64: derives independent seeds (per thread, per warp). */
uint64_t scheme_splitmix64(uint64_t *state);

/* Fills an error buffer printf-style; returns false so callers can `return scheme_fail(...)`. */
bool scheme_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
