/* Reading a scheme: the file's kind from its content, then its reader. */
#include "read_internal.h"

#include <stdlib.h>
#include <string.h>

scheme *scheme_read_buffer(const char *buf, size_t len, const char *name,
                           const scheme_format *dims, scheme_diag *diag)
{
    scheme_diag scratch;
    if (!diag)
        diag = &scratch;
    memset(diag, 0, sizeof *diag);
    rd_ctx c = {.buf = buf ? buf : "", .len = buf ? len : 0, .pos = 0, .name = name, .diag = diag};
    snprintf(diag->file, sizeof diag->file, "%s", name ? name : "<buffer>");
    if (len > SCHEME_MAX_FILE_BYTES) {
        snprintf(diag->msg, sizeof diag->msg, "larger than %u bytes (SCHEME_MAX_FILE_BYTES)",
                 SCHEME_MAX_FILE_BYTES);
        return NULL;
    }
    if (dims && !scheme_format_valid(*dims)) {
        snprintf(diag->msg, sizeof diag->msg,
                 "--dims %dx%dx%d: each dimension must be >= 1 and n*m, m*p, p*n <= 64",
                 dims->n, dims->m, dims->p);
        return NULL;
    }
    /* A UTF-8 byte order mark is harmless text; columns still count it. */
    if (c.len >= 3 && memcmp(c.buf, "\xEF\xBB\xBF", 3) == 0)
        c.pos = 3;
    scheme_file_kind kind = scheme_detect_kind(c.buf + c.pos, c.len - c.pos);
    switch (kind) {
    case SCHEME_FILE_NATIVE:
        return rd_read_native(&c, dims);
    case SCHEME_FILE_M:
        rd_skip_space(&c);
        return rd_read_m(&c, dims);
    case SCHEME_FILE_EXP:
    case SCHEME_FILE_TXT: {
        rd_lines_opts o = {
            .style = kind == SCHEME_FILE_TXT ? RD_STYLE_TXT : RD_STYLE_EXP,
            .fmt = dims,
            .fmt_origin = "--dims",
            .rank = -1,
        };
        return rd_read_lines(&c, &o);
    }
    default:
        rd_skip_space(&c);
        if (c.pos == c.len)
            rd_fail_plain(&c, c.pos, "empty file: expected a scheme (a term per line like "
                       "(a11+a23)*(b12)*(c21+c33), a Mathematica list {...}, or the native "
                       "header 'flipgraph-scheme 1')");
        else
            rd_fail_at(&c, c.pos, "expected a scheme: a term like (a11+a23)*(b12)*(c21+c33), a "
                       "Mathematica list '{', or the native header 'flipgraph-scheme 1'");
        return NULL;
    }
}

scheme *scheme_read_file(const char *path, const scheme_format *dims, scheme_diag *diag)
{
    scheme_diag scratch;
    if (!diag)
        diag = &scratch;
    memset(diag, 0, sizeof *diag);
    snprintf(diag->file, sizeof diag->file, "%s", path);
    char err[400];
    size_t len = 0;
    char *buf = scheme_slurp(path, SCHEME_MAX_FILE_BYTES, &len, err, sizeof err);
    if (!buf) {
        /* scheme_slurp's message starts with the path, which diag->file already holds. */
        size_t pl = strlen(path);
        const char *m = strncmp(err, path, pl) == 0 && err[pl] == ':' ? err + pl + 1 : err;
        while (*m == ' ')
            m++;
        snprintf(diag->msg, sizeof diag->msg, "%s", m);
        return NULL;
    }
    scheme *s = scheme_read_buffer(buf, len, path, dims, diag);
    free(buf);
    return s;
}
