/* Mathematica .m files (Kauers-Moosbauer, Arai et al.): a list of terms
 * {A, B, C}, A as n rows of m entries, B as m rows of p entries, C as p rows
 * of n entries (the transposed product, the cyclic convention):
 *
 *   file   = "{" term { "," term } "}"
 *   term   = "{" factor "," factor "," factor "}"
 *   factor = "{" row { "," row } "}"
 *   row    = "{" int { "," int } "}"        int = ["+"|"-"] digits, in -128..127
 *
 * with white space (line breaks included) between any two tokens.  The
 * grammar is exactly four levels deep, so the parser is a fixed loop nest, not
 * a recursion.  The first term fixes n, m and p (or --dims does); every factor
 * of every term must have that shape.  Entries other than 0 and 1 make the
 * scheme an integer one. */
#include "read_internal.h"

#include <string.h>

typedef struct mstate {
    rd_ctx *c;
    rd_terms ts;
    int dim[3]; /* n, m, p; 0 while unknown */
    bool from_dims;
} mstate;

static const char *const fname[3] = {"A", "B", "C"};
/* A is n x m, B is m x p, C is p x n. */
static const char *const dname_rows[3] = {"n = ", "m = ", "p = "};
static const char *const dname_cols[3] = {"m = ", "p = ", "n = "};

static const char *origin(const mstate *M)
{
    return M->from_dims ? " (from --dims)" : " (the shape of term 1: A is n x m, B m x p, C p x n)";
}

/* Rows and columns of factor pos are dims (pos) and (pos+1)%3 of (n, m, p). */
static int want_rows(const mstate *M, int pos) { return M->dim[pos]; }
static int want_cols(const mstate *M, int pos) { return M->dim[(pos + 1) % 3]; }

static bool expect(mstate *M, int ch, const char *what)
{
    rd_ctx *c = M->c;
    rd_skip_space(c);
    if (rd_peek(c) != ch)
        return rd_fail_at(c, c->pos, "expected '%c' %s", ch, what);
    c->pos++;
    return true;
}

static bool parse_int(mstate *M, int *out)
{
    rd_ctx *c = M->c;
    rd_skip_space(c);
    size_t off = c->pos;
    int sign = 1;
    if (rd_peek(c) == '-' || rd_peek(c) == '+') {
        sign = rd_peek(c) == '-' ? -1 : 1;
        c->pos++;
    }
    if (!rd_is_digit(rd_peek(c)))
        return rd_fail_at(c, c->pos, "expected an integer entry");
    long v = 0;
    while (rd_is_digit(rd_peek(c))) {
        if (v < 1000000)
            v = v * 10 + (rd_peek(c) - '0');
        c->pos++;
    }
    v *= sign;
    if (v < -128 || v > 127)
        return rd_fail_plain(c, off, "entry %.*s is outside int8 (-128..127)",
                             (int)(c->pos - off > 12 ? 12 : c->pos - off), c->buf + off);
    *out = (int)v;
    return true;
}

static bool parse_factor(mstate *M, rd_term *t, int term_no, int pos)
{
    rd_ctx *c = M->c;
    rd_skip_space(c);
    t->off[pos] = (uint32_t)c->pos;
    if (!expect(M, '{', pos == 0 ? "opening the A factor (n rows of m entries)"
                      : pos == 1 ? "opening the B factor (m rows of p entries)"
                                 : "opening the C factor (p rows of n entries)"))
        return false;
    int rows = 0, cols = want_cols(M, pos);
    for (;;) {
        rd_skip_space(c);
        size_t row_off = c->pos;
        if (!expect(M, '{', "opening a row"))
            return false;
        int8_t row[SCHEME_MAX_ENTRIES];
        int k = 0;
        for (;;) {
            int v = 0;
            if (!parse_int(M, &v))
                return false;
            if (v != 0 && v != 1)
                M->ts.ring_z = true;
            row[k++] = (int8_t)v;
            rd_skip_space(c);
            int ch = rd_peek(c);
            if (ch == '}') {
                c->pos++;
                break;
            }
            if (ch != ',')
                return rd_fail_at(c, c->pos, "expected ',' or '}' in a row of the %s factor",
                                  fname[pos]);
            if (k == SCHEME_MAX_ENTRIES || (cols && k == cols))
                return rd_fail_at(c, c->pos, "expected '}': rows of the %s factor have %s%d entries%s",
                                  fname[pos], cols ? dname_cols[pos] : "at most ", k, origin(M));
            c->pos++;
        }
        if (!cols) {
            cols = k;
        } else if (k != cols) {
            return rd_fail_plain(c, row_off, "this row of the %s factor has %d entries, expected %s%d%s",
                                 fname[pos], k, dname_cols[pos], cols, origin(M));
        }
        if ((rows + 1) * cols > SCHEME_MAX_ENTRIES)
            return rd_fail_plain(c, row_off, "the %s factor has more than %d entries (factors are "
                                 "64-bit words: n*m, m*p, p*n <= 64)", fname[pos], SCHEME_MAX_ENTRIES);
        memcpy(&t->g[pos][rows * cols], row, (size_t)cols);
        rows++;
        rd_skip_space(c);
        int ch = rd_peek(c);
        if (ch == '}') {
            c->pos++;
            break;
        }
        if (ch != ',')
            return rd_fail_at(c, c->pos, "expected ',' or '}' after a row of the %s factor", fname[pos]);
        if (want_rows(M, pos) && rows == want_rows(M, pos))
            return rd_fail_at(c, c->pos, "expected '}': the %s factor has %s%d rows%s", fname[pos],
                              dname_rows[pos], rows, origin(M));
        c->pos++;
    }
    if (want_rows(M, pos) && rows != want_rows(M, pos))
        return rd_fail_plain(c, t->off[pos], "the %s factor of term %d has %d rows, expected %s%d%s",
                             fname[pos], term_no, rows, dname_rows[pos], want_rows(M, pos), origin(M));
    /* Learn the shape from term 1: A gives n and m, B gives p; C is then checked. */
    M->dim[pos] = rows;
    M->dim[(pos + 1) % 3] = cols;
    return true;
}

scheme *rd_read_m(rd_ctx *c, const scheme_format *dims)
{
    mstate M;
    memset(&M, 0, sizeof M);
    M.c = c;
    if (dims) {
        M.dim[0] = dims->n;
        M.dim[1] = dims->m;
        M.dim[2] = dims->p;
        M.from_dims = true;
    }
    scheme *s = NULL;
    if (!expect(&M, '{', "opening the list of terms"))
        goto out;
    for (int term_no = 1;; term_no++) {
        rd_skip_space(c);
        rd_term *t = rd_terms_add(c, &M.ts, c->pos);
        if (!t)
            goto out;
        if (!expect(&M, '{', "opening a term {A, B, C}"))
            goto out;
        for (int pos = 0; pos < 3; pos++) {
            if (pos > 0 && !expect(&M, ',', pos == 1 ? "between the A and B factors"
                                                     : "between the B and C factors"))
                goto out;
            if (!parse_factor(&M, t, term_no, pos))
                goto out;
        }
        if (!expect(&M, '}', "closing the term after its three factors A, B, C"))
            goto out;
        rd_skip_space(c);
        int ch = rd_peek(c);
        if (ch == '}') {
            c->pos++;
            break;
        }
        if (ch != ',') {
            rd_fail_at(c, c->pos, "expected ',' or '}' after a term");
            goto out;
        }
        c->pos++;
    }
    rd_skip_space(c);
    if (rd_peek(c) >= 0) {
        rd_fail_at(c, c->pos, "expected the end of the file after the list of terms");
        goto out;
    }
    scheme_format f = {M.dim[0], M.dim[1], M.dim[2]};
    if (!scheme_format_valid(f)) {
        char fs[32];
        rd_fail_plain(c, M.ts.t[0].off[0], "the factors' shapes give the format %s, beyond the "
                      "limit n*m, m*p, p*n <= 64", scheme_format_str(f, fs));
        goto out;
    }
    s = rd_terms_finish(c, &M.ts, f, false);
out:
    rd_terms_free(&M.ts);
    return s;
}
