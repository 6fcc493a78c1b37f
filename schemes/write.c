/* Writers for every format the readers know: .exp, .txt, .m, JSON and the
 * native format (.npz: write_npz.c).  Each writes exactly what its reader reads back as the same scheme
 * (scheme_equal); tests/test_schemes.c checks it on every corpus file.
 * Entries are written in bit order (row-major), coefficient 1 without a
 * number, as in the published files. */
#include "scheme.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int coef(const scheme *s, int r, int pos, int bit)
{
    if (s->ring == SCHEME_RING_Z)
        return s->zterms[r].z[pos][bit];
    return (int)((s->terms[r].f[pos] >> bit) & 1);
}

bool scheme_writable(const scheme *s, scheme_file_kind kind, char *err, size_t errlen)
{
    char fs[32];
    if (!s || !scheme_format_valid(s->fmt))
        return scheme_fail(err, errlen, "not a valid scheme format");
    if (kind != SCHEME_FILE_EXP && kind != SCHEME_FILE_TXT && kind != SCHEME_FILE_M &&
        kind != SCHEME_FILE_NATIVE && kind != SCHEME_FILE_NPZ && kind != SCHEME_FILE_JSON)
        return scheme_fail(err, errlen, "no writer for the file kind '%s'", scheme_file_kind_name(kind));
    if (s->rank < 1 || s->rank > SCHEME_MAX_RANK)
        return scheme_fail(err, errlen, "rank %d: a file holds 1..%d terms", s->rank, SCHEME_MAX_RANK);
    if (s->ring == SCHEME_RING_Z && !s->zterms)
        return scheme_fail(err, errlen, "an integer scheme without coefficients");
    if ((kind == SCHEME_FILE_EXP || kind == SCHEME_FILE_TXT) &&
        (s->fmt.n > 9 || s->fmt.m > 9 || s->fmt.p > 9))
        return scheme_fail(err, errlen, "the format %s has a dimension above 9, which .%s "
                           "(one-digit indices) cannot hold; use the native format",
                           scheme_format_str(s->fmt, fs), scheme_file_kind_name(kind));
    for (int r = 0; r < s->rank; r++)
        for (int pos = 0; pos < 3; pos++) {
            int size = scheme_factor_size(s->fmt, pos);
            uint64_t w = s->terms[r].f[pos];
            if (size < 64 && (w >> size))
                return scheme_fail(err, errlen, "term %d: factor %d has bits outside the format",
                                   r + 1, pos + 1);
            bool nonzero = false;
            for (int e = 0; e < SCHEME_MAX_ENTRIES; e++) {
                int v = coef(s, r, pos, e);
                if (v && e >= size)
                    return scheme_fail(err, errlen, "term %d: factor %d has entries outside the format",
                                       r + 1, pos + 1);
                if (s->ring == SCHEME_RING_Z && ((w >> e) & 1) != (uint64_t)(v & 1))
                    return scheme_fail(err, errlen, "term %d: the GF(2) words disagree with the "
                                       "integer coefficients", r + 1);
                nonzero |= v != 0;
            }
            if (!nonzero)
                return scheme_fail(err, errlen, "term %d: factor %d is zero; no file format holds "
                                   "a zero factor", r + 1, pos + 1);
        }
    return true;
}

typedef enum { ST_EXP, ST_TXT, ST_NATIVE } style;

static void write_factor(const scheme *s, int r, int pos, style st, FILE *out)
{
    int rows = scheme_factor_rows(s->fmt, pos), cols = scheme_factor_cols(s->fmt, pos);
    char letter = (char)('a' + pos);
    bool first = true;
    fputc('(', out);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            int v = coef(s, r, pos, i * cols + j);
            if (!v)
                continue;
            if (first)
                fputs(v < 0 ? "-" : "", out);
            else if (st == ST_TXT)
                fputs(v < 0 ? " - " : " + ", out);
            else
                fputc(v < 0 ? '-' : '+', out);
            first = false;
            int a = v < 0 ? -v : v;
            if (a != 1)
                fprintf(out, "%d*", a);
            if (st == ST_NATIVE)
                fprintf(out, "%c%d_%d", letter, i + 1, j + 1);
            else
                fprintf(out, "%c%d%d", letter, i + 1, j + 1);
        }
    fputc(')', out);
}

static void write_terms(const scheme *s, style st, FILE *out)
{
    const char *sep = st == ST_TXT ? " " : "*";
    for (int r = 0; r < s->rank; r++) {
        for (int pos = 0; pos < 3; pos++) {
            if (pos)
                fputs(sep, out);
            write_factor(s, r, pos, st, out);
        }
        fputc('\n', out);
    }
}

static bool refuse(const scheme *s, scheme_file_kind kind)
{
    if (scheme_writable(s, kind, NULL, 0))
        return false;
    errno = EINVAL;
    return true;
}

static bool finish(FILE *out)
{
    if (ferror(out)) {
        if (!errno)
            errno = EIO;
        return false;
    }
    return true;
}

bool scheme_write_exp(const scheme *s, FILE *out)
{
    if (refuse(s, SCHEME_FILE_EXP))
        return false;
    write_terms(s, ST_EXP, out);
    return finish(out);
}

bool scheme_write_txt(const scheme *s, FILE *out)
{
    if (refuse(s, SCHEME_FILE_TXT))
        return false;
    write_terms(s, ST_TXT, out);
    return finish(out);
}

bool scheme_write_m(const scheme *s, FILE *out)
{
    if (refuse(s, SCHEME_FILE_M))
        return false;
    fputc('{', out);
    for (int r = 0; r < s->rank; r++) {
        fputs(r ? ",\n {" : "{", out);
        for (int pos = 0; pos < 3; pos++) {
            int rows = scheme_factor_rows(s->fmt, pos), cols = scheme_factor_cols(s->fmt, pos);
            fputs(pos ? ", {" : "{", out);
            for (int i = 0; i < rows; i++) {
                fputs(i ? ", {" : "{", out);
                for (int j = 0; j < cols; j++)
                    fprintf(out, j ? ", %d" : "%d", coef(s, r, pos, i * cols + j));
                fputc('}', out);
            }
            fputc('}', out);
        }
        fputc('}', out);
    }
    fputs("}\n", out);
    return finish(out);
}

bool scheme_write_json(const scheme *s, FILE *out)
{
    if (refuse(s, SCHEME_FILE_JSON))
        return false;
    static const char key[3] = {'u', 'v', 'w'};
    fprintf(out, "{\n    \"n\": [%d, %d, %d],\n    \"m\": %d,\n    \"z2\": %s", s->fmt.n, s->fmt.m, s->fmt.p,
            s->rank, s->ring == SCHEME_RING_Z ? "false" : "true");
    for (int pos = 0; pos < 3; pos++) {
        fprintf(out, ",\n    \"%c\": [", key[pos]);
        const int size = scheme_factor_size(s->fmt, pos);
        for (int r = 0; r < s->rank; r++) {
            fputs(r ? ",\n        [" : "\n        [", out);
            for (int e = 0; e < size; e++)
                fprintf(out, e ? ", %d" : "%d", coef(s, r, pos, e));
            fputc(']', out);
        }
        fputs("\n    ]", out);
    }
    fputs("\n}\n", out);
    return finish(out);
}

/* The native file lists the terms in canonical order, so that one scheme has
 * one file, byte for byte, whatever order its terms were found in. */
bool scheme_write_native(const scheme *s, FILE *out)
{
    if (refuse(s, SCHEME_FILE_NATIVE))
        return false;
    scheme *c = scheme_clone(s);
    if (!c) {
        errno = ENOMEM;
        return false;
    }
    scheme_canonicalize(c);
    fprintf(out, "flipgraph-scheme 1\nformat %dx%dx%d\nring %s\nrank %d\n", c->fmt.n, c->fmt.m,
            c->fmt.p, scheme_ring_key(c->ring), c->rank);
    write_terms(c, ST_NATIVE, out);
    scheme_free(c);
    return finish(out);
}

bool scheme_write(const scheme *s, scheme_file_kind kind, FILE *out)
{
    switch (kind) {
    case SCHEME_FILE_EXP: return scheme_write_exp(s, out);
    case SCHEME_FILE_TXT: return scheme_write_txt(s, out);
    case SCHEME_FILE_M: return scheme_write_m(s, out);
    case SCHEME_FILE_NATIVE: return scheme_write_native(s, out);
    case SCHEME_FILE_NPZ: return scheme_write_npz(s, out);
    case SCHEME_FILE_JSON: return scheme_write_json(s, out);
    default:
        errno = EINVAL;
        return false;
    }
}

bool scheme_write_cb(void *ctx, FILE *f)
{
    const scheme_write_ctx *w = ctx;
    return scheme_write(w->s, w->kind, f);
}
