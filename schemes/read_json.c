/* JSON scheme files (docs/formats.md, "JSON"): one object holding the format,
 * optionally the rank and the ring, and the three coefficient matrices, one
 * row a term.  Two spellings of the keys are read:
 *
 *   the catalogue of Perminov's FastMatrixMultiplication (docs/references.md):
 *     {"n": [n, m, p], "m": R, "z2": true|false, "u": [...], "v": [...], "w": [...]}
 *   flipgraph export --to json (docs/export.md):
 *     {"format": [n, m, p], "rank": R, "ring": "gf2"|"z", "a": [...], "b": [...], "c": [...]}
 *
 * u/a rows hold n*m entries (i*m + j), v/b rows m*p (j*p + k), w/c rows p*n
 * (k*n + i, the transposed product): the bit order of scheme.h, so a row is
 * a factor as it stands.  Every other key is skipped (its value must still be
 * JSON).  The keys come in any order, so the object is read twice: once to
 * find where each value starts, then the values in the order that needs them
 * (the format before the matrices).  Nesting is walked with a bounded stack,
 * never by recursion, so no input can exhaust the C stack. */
#include "read_internal.h"

#include <string.h>

enum { JK_FORMAT, JK_RANK, JK_Z2, JK_RING, JK_A, JK_B, JK_C, JK_COUNT };

/* The two names of each key: the catalogue's, then the export's (NULL: none). */
static const char *const jk_names[JK_COUNT][2] = {
    [JK_FORMAT] = {"n", "format"}, [JK_RANK] = {"m", "rank"}, [JK_Z2] = {"z2", NULL},
    [JK_RING] = {"ring", NULL},    [JK_A] = {"u", "a"},       [JK_B] = {"v", "b"},
    [JK_C] = {"w", "c"},
};
static const char *const jk_what[JK_COUNT] = {
    [JK_FORMAT] = "the format [n, m, p]", [JK_RANK] = "the rank", [JK_Z2] = "whether the scheme is over GF(2)",
    [JK_RING] = "the ring", [JK_A] = "the A factors", [JK_B] = "the B factors", [JK_C] = "the C factors",
};

#define JSON_MAX_DEPTH 64

typedef struct jstate {
    rd_ctx *c;
    bool seen[JK_COUNT];
    size_t key_off[JK_COUNT]; /* where the key's name starts */
    size_t val_off[JK_COUNT]; /* where its value starts */
    int key_name[JK_COUNT];   /* which of the two names was used */
    size_t close_off;         /* the object's closing brace */
} jstate;

/* A JSON string at the cursor, its raw bytes (escapes left as they are) in
 * [*from, *to). */
static bool j_string(rd_ctx *c, size_t *from, size_t *to)
{
    if (rd_peek(c) != '"')
        return rd_fail_at(c, c->pos, "expected a string");
    size_t start = c->pos++;
    for (;;) {
        int ch = rd_peek(c);
        if (ch < 0 || ch == '\n')
            return rd_fail_plain(c, start, "a string that is never closed (expected '\"' before the end of the line)");
        if (ch < 0x20)
            return rd_fail_at(c, c->pos, "a control character inside a string");
        c->pos++;
        if (ch == '"')
            break;
        if (ch == '\\') {
            if (rd_peek(c) < 0)
                return rd_fail_at(c, c->pos, "expected an escaped character");
            c->pos++;
        }
    }
    if (from)
        *from = start + 1;
    if (to)
        *to = c->pos - 1;
    return true;
}

/* A JSON number at the cursor; *integral false when it has a fraction or an
 * exponent. */
/* An object's key and its ':' (the key's raw bytes in [*from, *to), as j_string). */
static bool j_key(rd_ctx *c, size_t *from, size_t *to)
{
    rd_skip_space(c);
    if (!j_string(c, from, to))
        return false;
    rd_skip_space(c);
    if (rd_peek(c) != ':')
        return rd_fail_at(c, c->pos, "expected ':' after a key");
    c->pos++;
    return true;
}

static bool j_number(rd_ctx *c, long *value, bool *integral)
{
    size_t start = c->pos;
    if (rd_peek(c) == '-')
        c->pos++;
    if (!rd_is_digit(rd_peek(c)))
        return rd_fail_at(c, c->pos, "expected a number");
    long v = 0;
    while (rd_is_digit(rd_peek(c))) {
        if (v < 100000000)
            v = v * 10 + (rd_peek(c) - '0');
        c->pos++;
    }
    *integral = true;
    if (rd_peek(c) == '.') {
        c->pos++;
        *integral = false;
        if (!rd_is_digit(rd_peek(c)))
            return rd_fail_at(c, c->pos, "expected a digit after '.'");
        while (rd_is_digit(rd_peek(c)))
            c->pos++;
    }
    if (rd_peek(c) == 'e' || rd_peek(c) == 'E') {
        c->pos++;
        *integral = false;
        if (rd_peek(c) == '+' || rd_peek(c) == '-')
            c->pos++;
        if (!rd_is_digit(rd_peek(c)))
            return rd_fail_at(c, c->pos, "expected a digit in the exponent");
        while (rd_is_digit(rd_peek(c)))
            c->pos++;
    }
    *value = c->buf[start] == '-' ? -v : v;
    return true;
}

static bool j_literal(rd_ctx *c, const char *word)
{
    size_t n = strlen(word);
    if (c->len - c->pos < n || memcmp(c->buf + c->pos, word, n) != 0)
        return rd_fail_at(c, c->pos, "expected a JSON value (a number, a string, an array, an object, "
                          "true, false or null)");
    c->pos += n;
    return true;
}

/* Skips one JSON value of any kind, nested arrays and objects included. */
static bool j_skip_value(rd_ctx *c)
{
    char stack[JSON_MAX_DEPTH]; /* the closing bracket each open level waits for */
    int depth = 0;
    for (;;) {
        rd_skip_space(c);
        int ch = rd_peek(c);
        bool value_done = true;
        if (ch == '[' || ch == '{') {
            if (depth == JSON_MAX_DEPTH)
                return rd_fail_at(c, c->pos, "nested more than %d levels deep", JSON_MAX_DEPTH);
            stack[depth++] = ch == '[' ? ']' : '}';
            c->pos++;
            rd_skip_space(c);
            if (rd_peek(c) == stack[depth - 1]) {
                c->pos++;
                depth--;
            } else {
                value_done = false;
                if (ch == '{' && !j_key(c, NULL, NULL))
                    return false;
            }
        } else if (ch == '"') {
            if (!j_string(c, NULL, NULL))
                return false;
        } else if (ch == '-' || rd_is_digit(ch)) {
            long v;
            bool integral;
            if (!j_number(c, &v, &integral))
                return false;
        } else if (ch == 't' || ch == 'f' || ch == 'n') {
            if (!j_literal(c, ch == 't' ? "true" : ch == 'f' ? "false" : "null"))
                return false;
        } else {
            return rd_fail_at(c, c->pos, "expected a JSON value (a number, a string, an array, an object, "
                              "true, false or null)");
        }
        if (!value_done)
            continue;
        /* after a value: a comma (then the next element or key) or closing brackets */
        for (;;) {
            if (depth == 0)
                return true;
            rd_skip_space(c);
            ch = rd_peek(c);
            if (ch == stack[depth - 1]) {
                c->pos++;
                depth--;
                continue;
            }
            if (ch != ',')
                return rd_fail_at(c, c->pos, "expected ',' or '%c'", stack[depth - 1]);
            c->pos++;
            if (stack[depth - 1] == '}' && !j_key(c, NULL, NULL))
                return false;
            break;
        }
    }
}

/* The first pass: the top-level object's keys and where their values start. */
static bool j_index(jstate *J)
{
    rd_ctx *c = J->c;
    rd_skip_space(c);
    if (rd_peek(c) != '{')
        return rd_fail_at(c, c->pos, "expected '{' opening the JSON object");
    c->pos++;
    rd_skip_space(c);
    if (rd_peek(c) == '}') {
        J->close_off = c->pos++;
    } else {
        for (;;) {
            rd_skip_space(c);
            size_t from, to, key_off = c->pos;
            if (!j_key(c, &from, &to))
                return false;
            rd_skip_space(c);
            for (int k = 0; k < JK_COUNT; k++)
                for (int nm = 0; nm < 2; nm++) {
                    const char *name = jk_names[k][nm];
                    if (!name || strlen(name) != to - from || memcmp(c->buf + from, name, to - from) != 0)
                        continue;
                    if (J->seen[k])
                        return rd_fail_plain(c, key_off, "a second key \"%s\": %s came already as \"%s\"",
                                             name, jk_what[k], jk_names[k][J->key_name[k]]);
                    J->seen[k] = true;
                    J->key_off[k] = key_off;
                    J->val_off[k] = c->pos;
                    J->key_name[k] = nm;
                }
            if (!j_skip_value(c))
                return false;
            rd_skip_space(c);
            if (rd_peek(c) == '}') {
                J->close_off = c->pos++;
                break;
            }
            if (rd_peek(c) != ',')
                return rd_fail_at(c, c->pos, "expected ',' or '}' after a value of the object");
            c->pos++;
        }
    }
    rd_skip_space(c);
    if (rd_peek(c) >= 0)
        return rd_fail_at(c, c->pos, "expected the end of the file after the JSON object");
    return true;
}

/* An integer value (no fraction, no exponent) within [lo, hi]. */
static bool j_int(rd_ctx *c, long lo, long hi, const char *what, long *out)
{
    rd_skip_space(c);
    size_t off = c->pos;
    int ch = rd_peek(c);
    if (ch == '"')
        return rd_fail_at(c, off, "expected %s as an integer (a string is not a coefficient: rational "
                          "schemes are not read)", what);
    long v;
    bool integral;
    if (!j_number(c, &v, &integral))
        return false;
    if (!integral)
        return rd_fail_plain(c, off, "%s %.*s is not an integer (flipgraph holds GF(2) and integer "
                             "schemes, not rational ones)", what, (int)(c->pos - off > 16 ? 16 : c->pos - off),
                             c->buf + off);
    if (v < lo || v > hi)
        return rd_fail_plain(c, off, "%s %.*s is outside %ld..%ld", what,
                             (int)(c->pos - off > 16 ? 16 : c->pos - off), c->buf + off, lo, hi);
    *out = v;
    return true;
}

static bool j_expect(rd_ctx *c, int ch, const char *what)
{
    rd_skip_space(c);
    if (rd_peek(c) != ch)
        return rd_fail_at(c, c->pos, "expected '%c' %s", ch, what);
    c->pos++;
    return true;
}

/* ',' then more, or the closing bracket: true in *more for a comma. */
static bool j_next(rd_ctx *c, int close, const char *where, bool *more)
{
    rd_skip_space(c);
    int ch = rd_peek(c);
    if (ch == close || ch == ',') {
        c->pos++;
        *more = ch == ',';
        return true;
    }
    return rd_fail_at(c, c->pos, "expected ',' or '%c' %s", close, where);
}

static const char *const fac_name[3] = {"A", "B", "C"};

/* One matrix (u/a, v/b or w/c): rows of `size` entries, one a term. */
static bool j_matrix(jstate *J, rd_terms *ts, int pos, int size, int ring /* -1 by content, 0 GF(2), 1 Z */)
{
    rd_ctx *c = J->c;
    const int k = JK_A + pos;
    const char *key = jk_names[k][J->key_name[k]];
    c->pos = J->val_off[k];
    char where[64];
    snprintf(where, sizeof where, "in \"%s\" (%s)", key, jk_what[k]);
    if (!j_expect(c, '[', where))
        return false;
    rd_skip_space(c);
    int rows = 0;
    bool more = rd_peek(c) != ']';
    if (!more)
        c->pos++;
    while (more) {
        rd_skip_space(c);
        size_t row_off = c->pos;
        rd_term *t;
        if (pos == 0) {
            t = rd_terms_add(c, ts, row_off);
            if (!t)
                return false;
        } else {
            if (rows == ts->n)
                return rd_fail_plain(c, row_off, "\"%s\" has more rows than \"%s\" (%d): one row a term",
                                     key, jk_names[JK_A][J->key_name[JK_A]], ts->n);
            t = &ts->t[rows];
        }
        t->off[pos] = (uint32_t)row_off;
        if (!j_expect(c, '[', "opening a row (one term's factor)"))
            return false;
        int e = 0;
        bool more_e = true;
        while (more_e) {
            rd_skip_space(c);
            if (e == size)
                return rd_fail_at(c, c->pos, "expected ']': a row of \"%s\" holds %d entries (the %s factor)",
                                  key, size, fac_name[pos]);
            long v;
            const size_t voff = c->pos;
            if (!j_int(c, -128, 127, "a coefficient", &v))
                return false;
            if (ring == 0 && v != 0 && v != 1)
                return rd_fail_plain(c, voff, "a coefficient %ld in a scheme over GF(2) (%s): "
                                     "expected 0 or 1", v, J->seen[JK_Z2] ? "\"z2\": true" : "\"ring\": \"gf2\"");
            if (ring < 0 && v != 0 && v != 1)
                ts->ring_z = true;
            t->g[pos][e++] = (int8_t)v;
            if (!j_next(c, ']', "in a row", &more_e))
                return false;
        }
        if (e != size)
            return rd_fail_plain(c, row_off, "this row of \"%s\" holds %d entries, expected %d (the %s factor of "
                                 "the format)", key, e, size, fac_name[pos]);
        rows++;
        if (!j_next(c, ']', where, &more))
            return false;
    }
    if (rows == 0)
        return rd_fail_plain(c, J->val_off[k], "\"%s\" has no rows: expected one row a term", key);
    if (rows != ts->n)
        return rd_fail_plain(c, J->val_off[k], "\"%s\" has %d rows, \"%s\" %d: one row a term", key, rows,
                             jk_names[JK_A][J->key_name[JK_A]], ts->n);
    return true;
}

scheme *rd_read_json(rd_ctx *c, const scheme_format *dims)
{
    jstate J;
    memset(&J, 0, sizeof J);
    J.c = c;
    rd_terms ts;
    memset(&ts, 0, sizeof ts);
    scheme *s = NULL;
    char fs[32], ds[32];
    if (!j_index(&J))
        goto out;
    for (int k = 0; k < JK_COUNT; k++)
        if (!J.seen[k] && (k == JK_A || k == JK_B || k == JK_C || (k == JK_FORMAT && !dims))) {
            rd_fail_plain(c, J.close_off, "the object has no key \"%s\" (%s; \"%s\" in flipgraph's export)",
                          jk_names[k][0], jk_what[k], jk_names[k][1]);
            goto out;
        }
    if (J.seen[JK_Z2] && J.seen[JK_RING]) {
        rd_fail_plain(c, J.key_off[JK_RING], "both \"z2\" and \"ring\" say the ring: give one");
        goto out;
    }
    scheme_format f = dims ? *dims : (scheme_format){0, 0, 0};
    if (J.seen[JK_FORMAT]) {
        c->pos = J.val_off[JK_FORMAT];
        long d[3];
        if (!j_expect(c, '[', "opening the format [n, m, p]"))
            goto out;
        for (int i = 0; i < 3; i++) {
            bool more = false; /* set by j_next when it succeeds (gcc -O3 cannot see it) */
            if (!j_int(c, 1, 64, "a dimension", &d[i]) ||
                !j_next(c, ']', "in the format [n, m, p]", &more))
                goto out;
            if (more != (i < 2)) {
                rd_fail_at(c, c->pos - 1, "the format holds three dimensions [n, m, p]");
                goto out;
            }
        }
        const scheme_format ff = {(int)d[0], (int)d[1], (int)d[2]};
        if (!scheme_format_valid(ff)) {
            rd_fail_plain(c, J.val_off[JK_FORMAT], "the format %s is beyond flipgraph's factors (n*m, m*p, p*n "
                          "<= 64 entries)", scheme_format_str(ff, fs));
            goto out;
        }
        if (dims && (ff.n != dims->n || ff.m != dims->m || ff.p != dims->p)) {
            rd_fail_plain(c, J.val_off[JK_FORMAT], "the file's format %s differs from --dims %s",
                          scheme_format_str(ff, fs), scheme_format_str(*dims, ds));
            goto out;
        }
        f = ff;
    }
    int ring = -1;
    if (J.seen[JK_Z2]) {
        c->pos = J.val_off[JK_Z2];
        rd_skip_space(c);
        if (rd_peek(c) == 't' && j_literal(c, "true"))
            ring = 0;
        else if (rd_peek(c) == 'f' && j_literal(c, "false"))
            ring = 1;
        else {
            rd_fail_at(c, J.val_off[JK_Z2], "expected true or false for \"z2\" (whether the scheme is over GF(2))");
            goto out;
        }
    } else if (J.seen[JK_RING]) {
        c->pos = J.val_off[JK_RING];
        size_t from, to;
        if (!j_string(c, &from, &to))
            goto out;
        if (to - from == 3 && memcmp(c->buf + from, "gf2", 3) == 0)
            ring = 0;
        else if (to - from == 1 && c->buf[from] == 'z')
            ring = 1;
        else {
            rd_fail_plain(c, J.val_off[JK_RING], "the ring \"%.*s\": expected \"gf2\" or \"z\"",
                          (int)(to - from > 16 ? 16 : to - from), c->buf + from);
            goto out;
        }
    }
    for (int pos = 0; pos < 3; pos++)
        if (!j_matrix(&J, &ts, pos, scheme_factor_size(f, pos), ring))
            goto out;
    if (J.seen[JK_RANK]) {
        c->pos = J.val_off[JK_RANK];
        long r;
        if (!j_int(c, 0, SCHEME_MAX_RANK, "the rank", &r))
            goto out;
        if (r != ts.n) {
            rd_fail_plain(c, J.val_off[JK_RANK], "the rank says %ld terms, the matrices hold %d", r, ts.n);
            goto out;
        }
    }
    if (ring >= 0)
        ts.ring_z = ring == 1;
    c->pos = c->len;
    s = rd_terms_finish(c, &ts, f, false);
out:
    rd_terms_free(&ts);
    return s;
}
