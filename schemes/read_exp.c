/* The term grammar shared by Kauers-Moosbauer .exp, Moosbauer-Poole .txt and
 * the body of the native format (docs/formats.md gives it in EBNF):
 *
 *   line    = term | "-" "(" term ")"                  one term per line
 *   term    = factor SEP factor SEP factor             SEP: "*" (exp, native) | spaces or nothing (txt)
 *   factor  = [sign] "(" sum ")" | [sign] monomial
 *   sum     = [sign] monomial { sign monomial }
 *   monomial= [digits ["*"]] entry                     entry: a12 (exp, txt) | a1_12 (native)
 *
 * with spaces and tabs allowed between any two tokens.  The letter of an entry
 * is fixed by its position (a, then b, then c).  Entries that repeat inside a
 * factor add up; a term written -(...) has its first factor negated (a line
 * starting "-(" is a negated term or a negated first factor: see
 * rd_is_negated_term).  For
 * exp/txt the dimensions are the largest indices seen (a_ij: i <= n, j <= m;
 * b_jk: k <= p; c_ki: k <= p, i <= n) unless --dims gives them; entries are
 * collected in a 9 x 9 grid per factor and packed once the format is known. */
#include "read_internal.h"

#include <string.h>

typedef struct lines {
    rd_ctx *c;
    const rd_lines_opts *o;
    rd_terms ts;
    int maxr[3], maxc[3];       /* largest 1-based indices per position (inference) */
    bool neg_term;              /* inside -( ... ) */
    int64_t acc[RD_GRID];       /* the factor being read; int64 cannot overflow on a capped file */
} lines;

static const char *const pos_name[3] = {"first", "second", "third"};

static void entry_name(const lines *L, int pos, int idx, char *out, size_t n)
{
    char letter = (char)('a' + pos);
    if (L->o->style == RD_STYLE_NATIVE) {
        int cols = scheme_factor_cols(*L->o->fmt, pos);
        snprintf(out, n, "%c%d_%d", letter, idx / cols + 1, idx % cols + 1);
    } else {
        snprintf(out, n, "%c%d%d", letter, idx / RD_GRID_SIDE + 1, idx % RD_GRID_SIDE + 1);
    }
}

/* A sign or a coefficient other than 1: evidence of an integer file. */
static bool saw_integer(lines *L, size_t off, const char *what)
{
    if (L->o->ring_f2)
        return rd_fail_plain(L->c, off,
                             "%s in a file whose header says 'ring f2' (GF(2) files carry "
                             "neither signs nor coefficients; write 'ring z' for an integer scheme)",
                             what);
    L->ts.ring_z = true;
    return true;
}

/* Parses up to a few digits; *v saturates at 1000000 so huge numbers give a clear error. */
static long parse_digits(rd_ctx *c)
{
    long v = 0;
    while (rd_is_digit(rd_peek(c))) {
        if (v < 1000000)
            v = v * 10 + (rd_peek(c) - '0');
        c->pos++;
    }
    return v;
}

/* An entry at the cursor (a letter); *idx receives its slot in L->acc. */
static bool parse_entry(lines *L, int pos, int *idx)
{
    rd_ctx *c = L->c;
    size_t start = c->pos;
    int ch = rd_peek(c);
    char want = (char)('a' + pos);
    bool native = L->o->style == RD_STYLE_NATIVE;
    const char *example = native ? "1_2" : "12";
    if (ch != want) {
        if (ch == 'a' || ch == 'b' || ch == 'c')
            return rd_fail_at(c, start, "expected an entry of the %s factor (%c%s: the %s factor "
                              "holds %c-entries)", pos_name[pos], want, example, pos_name[pos], want);
        return rd_fail_at(c, start, "expected an entry like %c%s", want, example);
    }
    c->pos++;
    long row, col;
    if (native) {
        if (!rd_is_digit(rd_peek(c)))
            return rd_fail_at(c, c->pos, "expected the row index after '%c' (entries are like %c1_2)",
                              want, want);
        row = parse_digits(c);
        if (rd_peek(c) != '_')
            return rd_fail_at(c, c->pos, "expected '_' between the row and column index (like %c1_2)",
                              want);
        c->pos++;
        if (!rd_is_digit(rd_peek(c)))
            return rd_fail_at(c, c->pos, "expected the column index after '_'");
        col = parse_digits(c);
    } else {
        if (!rd_is_digit(rd_peek(c)))
            return rd_fail_at(c, c->pos, "expected a one-digit row index after '%c' (like %c12)",
                              want, want);
        row = rd_peek(c) - '0';
        c->pos++;
        if (!rd_is_digit(rd_peek(c)))
            return rd_fail_at(c, c->pos, "expected a one-digit column index (like %c12)", want);
        col = rd_peek(c) - '0';
        c->pos++;
        if (rd_is_digit(rd_peek(c)) || rd_peek(c) == '_')
            return rd_fail_at(c, c->pos,
                              "expected the end of the entry (.exp and .txt indices are one digit "
                              "each; larger formats need the native format)");
    }
    int len = (int)(c->pos - start);
    if (row == 0 || col == 0)
        return rd_fail_plain(c, start, "index 0 in '%.*s': indices start at 1", len, c->buf + start);
    if (L->o->fmt) {
        scheme_format f = *L->o->fmt;
        int rows = scheme_factor_rows(f, pos), cols = scheme_factor_cols(f, pos);
        if (row > rows || col > cols) {
            char fs[32];
            return rd_fail_plain(c, start,
                                 "'%.*s' is outside the format %s of %s: %c-entries have rows "
                                 "1..%d and columns 1..%d", len, c->buf + start,
                                 scheme_format_str(f, fs), L->o->fmt_origin, want, rows, cols);
        }
        *idx = native ? (int)((row - 1) * cols + (col - 1))
                      : (int)((row - 1) * RD_GRID_SIDE + (col - 1));
        return true;
    }
    if (row > L->maxr[pos])
        L->maxr[pos] = (int)row;
    if (col > L->maxc[pos])
        L->maxc[pos] = (int)col;
    int n = L->maxr[0] > L->maxc[2] ? L->maxr[0] : L->maxc[2];
    int m = L->maxc[0] > L->maxr[1] ? L->maxc[0] : L->maxr[1];
    int p = L->maxc[1] > L->maxr[2] ? L->maxc[1] : L->maxr[2];
    scheme_format f = {n ? n : 1, m ? m : 1, p ? p : 1};
    if (!scheme_format_valid(f)) {
        char fs[32];
        return rd_fail_plain(c, start,
                             "'%.*s' needs a format of at least %s, beyond the limit n*m, m*p, "
                             "p*n <= 64", len, c->buf + start, scheme_format_str(f, fs));
    }
    *idx = (int)((row - 1) * RD_GRID_SIDE + (col - 1));
    return true;
}

/* [digits ["*"]] entry, added to L->acc with the given sign. */
static bool parse_monomial(lines *L, int pos, int sign, size_t sign_off)
{
    rd_ctx *c = L->c;
    long coef = 1;
    if (rd_is_digit(rd_peek(c))) {
        size_t off = c->pos;
        coef = parse_digits(c);
        long limit = sign < 0 ? 128 : 127;
        if (coef > limit)
            return rd_fail_plain(c, sign < 0 ? sign_off : off,
                                 "coefficient %s%.*s is outside int8 (-128..127)", sign < 0 ? "-" : "",
                                 (int)(c->pos - off > 12 ? 12 : c->pos - off), c->buf + off);
        if (coef != 1 && !saw_integer(L, off, "a coefficient"))
            return false;
        /* Moosbauer-Poole write "2 b31"; Kauers-Moosbauer "2*b31". */
        rd_skip_hspace(c);
        if (rd_peek(c) == '*') {
            c->pos++;
            rd_skip_hspace(c);
        }
        int ch = rd_peek(c);
        if (!(ch >= 'a' && ch <= 'z'))
            return rd_fail_at(c, c->pos, "expected an entry like %c%s after the coefficient",
                              'a' + pos, L->o->style == RD_STYLE_NATIVE ? "1_2" : "12");
    }
    int idx = 0;
    if (!parse_entry(L, pos, &idx))
        return false;
    L->acc[idx] += sign * coef;
    return true;
}

/* An optional '+' or '-'; -1 for minus. */
static int parse_sign(lines *L, size_t *off, bool *ok)
{
    rd_ctx *c = L->c;
    int ch = rd_peek(c);
    *ok = true;
    *off = c->pos;
    if (ch != '+' && ch != '-')
        return 1;
    c->pos++;
    rd_skip_hspace(c);
    if (ch == '-') {
        *ok = saw_integer(L, *off, "a minus sign");
        return -1;
    }
    return 1;
}

static bool commit_factor(lines *L, rd_term *t, int pos, size_t start)
{
    for (int e = 0; e < RD_GRID; e++) {
        int64_t v = L->acc[e];
        if (v >= -128 && v <= 127) {
            t->g[pos][e] = (int8_t)v;
            continue;
        }
        if (!L->ts.overflow) {
            char nm[32];
            entry_name(L, pos, e, nm, sizeof nm);
            L->ts.overflow = true;
            L->ts.overflow_off = start;
            snprintf(L->ts.overflow_msg, sizeof L->ts.overflow_msg,
                     "the coefficient of %s in this factor sums to %lld, outside int8 (-128..127)",
                     nm, (long long)v);
        }
        /* Keep the parity: over GF(2) (no signs, no coefficients) only it counts. */
        bool odd = (v % 2) != 0;
        t->g[pos][e] = (int8_t)(v > 0 ? (odd ? 127 : 126) : (odd ? -127 : -126));
    }
    return true;
}

static bool parse_factor(lines *L, rd_term *t, int pos)
{
    rd_ctx *c = L->c;
    size_t start = c->pos;
    t->off[pos] = (uint32_t)start;
    memset(L->acc, 0, sizeof L->acc);
    bool ok;
    size_t soff;
    /* A sign before a parenthesized factor: -(a11+a12). */
    int factor_sign = 1;
    if (rd_peek(c) == '-' || rd_peek(c) == '+') {
        size_t q = c->pos + 1;
        while (q < c->len && rd_is_hspace((unsigned char)c->buf[q]))
            q++;
        if (rd_peek_at(c, q) == '(') {
            factor_sign = parse_sign(L, &soff, &ok);
            if (!ok)
                return false;
        }
    }
    if (rd_peek(c) == '(') {
        c->pos++;
        rd_skip_hspace(c);
        if (rd_peek(c) == ')')
            return rd_fail_at(c, c->pos, "expected an entry like %c%s inside the parentheses",
                              'a' + pos, L->o->style == RD_STYLE_NATIVE ? "1_2" : "12");
        for (;;) {
            int sign = parse_sign(L, &soff, &ok);
            if (!ok || !parse_monomial(L, pos, sign, soff))
                return false;
            rd_skip_hspace(c);
            int ch = rd_peek(c);
            if (ch == ')') {
                c->pos++;
                break;
            }
            if (ch != '+' && ch != '-')
                return rd_fail_at(c, c->pos, "expected '+', '-' or ')' in the %s factor",
                                  pos_name[pos]);
        }
    } else {
        int ch = rd_peek(c);
        if (ch != '+' && ch != '-' && !rd_is_digit(ch) && !(ch >= 'a' && ch <= 'z'))
            return rd_fail_at(c, c->pos, "expected the %s factor: '(' or an entry like %c%s",
                              pos_name[pos], 'a' + pos,
                              L->o->style == RD_STYLE_NATIVE ? "1_2" : "12");
        int sign = parse_sign(L, &soff, &ok);
        if (!ok || !parse_monomial(L, pos, sign, soff))
            return false;
    }
    if (factor_sign < 0)
        for (int e = 0; e < RD_GRID; e++)
            L->acc[e] = -L->acc[e];
    return commit_factor(L, t, pos, start);
}

static bool parse_separator(lines *L, int next)
{
    rd_ctx *c = L->c;
    rd_skip_hspace(c);
    int ch = rd_peek(c);
    /* .exp and .txt lines may mix their separators within one file:
     * Moosbauer and Poole's published <6,6,6>:153 (666m153.txt) joins 150
     * terms with '*' and writes its three cubes (a11+a22)(b11+b22)(c11+c22).
     * A term's next factor is unambiguous either way: it opens with '(' or
     * with an entry (whose letter the factor's parser checks). */
    if (L->o->style == RD_STYLE_TXT) {
        if (ch == '*') {
            c->pos++;
            rd_skip_hspace(c);
        }
        return true;
    }
    if (L->o->style == RD_STYLE_EXP && (ch == '(' || (ch >= 'a' && ch <= 'c')))
        return true;
    if (ch != '*') {
        if (ch == '(' || (ch >= 'a' && ch <= 'c')) /* only a native file gets here */
            return rd_fail_at(c, c->pos, "expected '*' between the %s and %s factors (this is a "
                              "native file: factors are joined by '*')", pos_name[next - 1], pos_name[next]);
        if (L->neg_term && next == 1)
            return rd_fail_at(c, c->pos, "expected '*' between the first and second factors "
                              "(a line starting with '-(' is a negated term -(A*B*C))");
        return rd_fail_at(c, c->pos, "expected '*' between the %s and %s factors",
                          pos_name[next - 1], pos_name[next]);
    }
    c->pos++;
    rd_skip_hspace(c);
    return true;
}

static bool parse_line(lines *L)
{
    rd_ctx *c = L->c;
    size_t line_off = c->pos;
    if (L->o->rank >= 0 && L->ts.n >= L->o->rank)
        return rd_fail_plain(c, line_off, "more terms than the header's rank %d", L->o->rank);
    rd_term *t = rd_terms_add(c, &L->ts, line_off);
    if (!t)
        return false;
    /* "-(" opens a negated term (Moosbauer-Poole: -(a55(-b56+b66)(c65+c66))). */
    L->neg_term = false;
    if (rd_peek(c) == '-') {
        size_t q = c->pos + 1;
        while (q < c->len && rd_is_hspace((unsigned char)c->buf[q]))
            q++;
        if (rd_peek_at(c, q) == '(' && rd_is_negated_term(c->buf, c->len, q)) {
            if (!saw_integer(L, c->pos, "a minus sign"))
                return false;
            L->neg_term = true;
            c->pos = q + 1;
            rd_skip_hspace(c);
        }
    }
    for (int pos = 0; pos < 3; pos++) {
        if (pos > 0 && !parse_separator(L, pos))
            return false;
        if (!parse_factor(L, t, pos))
            return false;
    }
    rd_skip_hspace(c);
    if (L->neg_term) {
        if (rd_peek(c) != ')')
            return rd_fail_at(c, c->pos, "expected ')' closing the negated term -(...)");
        c->pos++;
        rd_skip_hspace(c);
        for (int e = 0; e < RD_GRID; e++) {
            int v = -t->g[0][e];
            if (v > 127 && !L->ts.overflow) {
                L->ts.overflow = true;
                L->ts.overflow_off = line_off;
                snprintf(L->ts.overflow_msg, sizeof L->ts.overflow_msg,
                         "negating this term makes a coefficient 128, outside int8 (-128..127)");
            }
            t->g[0][e] = (int8_t)(v > 127 ? 126 : v); /* 128 is even: the parity is kept */
        }
    }
    int ch = rd_peek(c);
    if (ch == '#' && L->o->style == RD_STYLE_NATIVE) {
        rd_skip_to_eol(c);
        ch = rd_peek(c);
    }
    if (ch >= 0 && ch != '\n')
        return rd_fail_at(c, c->pos, "expected the end of the line after the third factor");
    return true;
}

scheme *rd_read_lines(rd_ctx *c, const rd_lines_opts *o)
{
    lines L;
    memset(&L, 0, sizeof L);
    L.c = c;
    L.o = o;
    L.ts.ring_z = o->ring_z;
    scheme *s = NULL;
    for (;;) {
        rd_skip_hspace(c);
        int ch = rd_peek(c);
        if (ch < 0)
            break;
        if (ch == '\n') {
            c->pos++;
            continue;
        }
        if (ch == '#' && o->style == RD_STYLE_NATIVE) {
            rd_skip_to_eol(c);
            continue;
        }
        if (!parse_line(&L))
            goto out;
    }
    if (o->rank >= 0 && L.ts.n != o->rank) {
        rd_fail_plain(c, o->rank_off, "the header says rank %d but the file holds %d term%s",
                      o->rank, L.ts.n, L.ts.n == 1 ? "" : "s");
        goto out;
    }
    if (L.ts.n == 0) {
        rd_fail_at(c, c->pos, "expected at least one term");
        goto out;
    }
    scheme_format f;
    if (o->fmt) {
        f = *o->fmt;
    } else {
        f.n = L.maxr[0] > L.maxc[2] ? L.maxr[0] : L.maxc[2];
        f.m = L.maxc[0] > L.maxr[1] ? L.maxc[0] : L.maxr[1];
        f.p = L.maxc[1] > L.maxr[2] ? L.maxc[1] : L.maxr[2];
    }
    s = rd_terms_finish(c, &L.ts, f, o->style != RD_STYLE_NATIVE);
out:
    rd_terms_free(&L.ts);
    return s;
}
