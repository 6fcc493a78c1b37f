/* Internals shared by the scheme readers (read_*.c); not part of the API.
 *
 * Every reader works on one in-memory buffer with a byte cursor.  Positions
 * are byte offsets; the line and column of a diagnostic are computed from the
 * offset only when an error is reported, so the hot path carries no
 * bookkeeping.  None of the grammars is recursive: nesting depth is fixed by
 * the grammar itself (a .m file is exactly four list levels deep, a term at
 * most one pair of parentheses around its factors; the JSON values skipped
 * are walked with a fixed stack of 64 levels), so no input can exhaust the
 * stack.
 */
#ifndef FLIPGRAPH_READ_INTERNAL_H
#define FLIPGRAPH_READ_INTERNAL_H

#include "scheme.h"

/* Entries of a factor as the readers collect them: a 9 x 9 grid for the
 * published one-digit-index formats (dimensions are known only at the end),
 * the final bit order (row * cols + col) for native and .m files. */
#define RD_GRID 81
#define RD_GRID_SIDE 9

typedef struct rd_ctx {
    const char *buf;
    size_t len;
    size_t pos;
    const char *name;
    scheme_diag *diag;
} rd_ctx;

/* One term as read: int8 coefficients (clamped with their parity kept when a
 * sum left int8; the overflow is recorded and refused if the ring is Z), and
 * where each factor starts, for errors found after the whole file is read. */
typedef struct rd_term {
    int8_t g[3][RD_GRID];
    uint32_t off[3];
} rd_term;

typedef struct rd_terms {
    rd_term *t;
    int n, cap;
    bool ring_z;         /* a sign or a coefficient other than 1 was seen */
    bool overflow;       /* some coefficient sum left int8 */
    size_t overflow_off; /* the first such factor */
    char overflow_msg[160];
} rd_terms;

/* ---- cursor ---- */
static inline int rd_peek(const rd_ctx *c)
{
    return c->pos < c->len ? (unsigned char)c->buf[c->pos] : -1;
}
static inline int rd_peek_at(const rd_ctx *c, size_t off)
{
    return off < c->len ? (unsigned char)c->buf[off] : -1;
}
/* Horizontal white space: space, tab, CR (so CRLF files read as LF), FF, VT. */
static inline bool rd_is_hspace(int ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}
static inline bool rd_is_digit(int ch) { return ch >= '0' && ch <= '9'; }
void rd_skip_hspace(rd_ctx *c);
/* White space including newlines (the .m grammar). */
void rd_skip_space(rd_ctx *c);
/* Skips to the next '\n' (not past it). */
void rd_skip_to_eol(rd_ctx *c);

/* Fills the diagnostic for byte offset off; always returns false.  "found X"
 * is appended from the byte at off (a character, "end of line", "end of
 * file" or a byte value). */
bool rd_fail_at(rd_ctx *c, size_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Same without the "found" suffix. */
bool rd_fail_plain(rd_ctx *c, size_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Line and column (1-based) of byte offset off. */
void rd_line_col(const rd_ctx *c, size_t off, int *line, int *col);

/* At a line's "-" whose next non-blank is the '(' at off: true for a negated
 * term -(A B C) (Moosbauer-Poole), false for a negated first factor
 * -(a11+a12)*b11*c11.  A factor holds no parentheses, so when another '('
 * comes before the first ')' it is a term; when the ')' ends the line (or
 * meets a comment) the parentheses wrap the whole term; else a separator and
 * more factors follow, and they wrap the first factor only. */
static inline bool rd_is_negated_term(const char *buf, size_t len, size_t off)
{
    size_t q = off + 1;
    while (q < len && buf[q] != '(' && buf[q] != ')' && buf[q] != '\n')
        q++;
    if (q >= len || buf[q] != ')')
        return true;
    q++;
    while (q < len && rd_is_hspace((unsigned char)buf[q]))
        q++;
    return q >= len || buf[q] == '\n' || buf[q] == '#';
}

/* ---- collected terms ---- */
void rd_terms_free(rd_terms *ts);
/* A fresh zeroed term at the end; NULL (diag filled, at off) past SCHEME_MAX_RANK or out of memory. */
rd_term *rd_terms_add(rd_ctx *c, rd_terms *ts, size_t off);
/* Builds the scheme: ring Z when ts->ring_z (after refusing a recorded
 * overflow), else GF(2).  grid: entries are in the 9 x 9 grid, else in bit
 * order.  Refuses a factor that is zero in the scheme's ring.  NULL with diag. */
scheme *rd_terms_finish(rd_ctx *c, rd_terms *ts, scheme_format fmt, bool grid);

/* ---- the readers ---- */
/* Term-per-line files: .exp, .txt and the native body share one term grammar. */
typedef enum rd_style { RD_STYLE_EXP, RD_STYLE_TXT, RD_STYLE_NATIVE } rd_style;
typedef struct rd_lines_opts {
    rd_style style;
    const scheme_format *fmt; /* NULL: inferred from the largest indices (exp/txt) */
    const char *fmt_origin;   /* where fmt comes from, for messages: "--dims", "the header" */
    bool ring_f2;             /* native "ring f2": signs and coefficients are errors */
    bool ring_z;              /* native "ring z" */
    int rank;                 /* native: the header's rank (the term count must match); else -1 */
    size_t rank_off;          /* where the header states it */
} rd_lines_opts;
/* Reads term lines from c->pos to the end of the buffer. */
scheme *rd_read_lines(rd_ctx *c, const rd_lines_opts *o);
scheme *rd_read_native(rd_ctx *c, const scheme_format *dims);
scheme *rd_read_m(rd_ctx *c, const scheme_format *dims);
/* JSON: the FastMatrixMultiplication catalogue's keys or flipgraph export's (read_json.c). */
scheme *rd_read_json(rd_ctx *c, const scheme_format *dims);

#endif
