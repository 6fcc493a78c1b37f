/* Reading a scheme: the file's kind from its content, then its reader. */
#include "read_internal.h"

#include <stdlib.h>
#include <string.h>

/* One scheme of an AlphaTensor .npz: the member of format *dims, or the only
 * one; a file of several needs --dims to choose. */
static scheme *rd_read_npz_one(const char *buf, size_t len, const char *name, const scheme_format *dims,
                               scheme_diag *diag)
{
    scheme_npz *z = scheme_npz_read_buffer(buf, len, name, diag);
    if (!z)
        return NULL;
    const scheme_npz_entry *e = NULL;
    char fb[32];
    if (dims) {
        e = scheme_npz_find(z, *dims);
        if (!e)
            snprintf(diag->msg, sizeof diag->msg, "no member %d,%d,%d.npy (a scheme of %s) in this .npz",
                     dims->n, dims->m, dims->p, scheme_format_str(*dims, fb));
    } else if (z->count == 1)
        e = &z->e[0];
    else {
        size_t o = (size_t)snprintf(diag->msg, sizeof diag->msg,
                                    "an .npz of %d schemes: choose one with --dims NxMxP (its keys:", z->count);
        for (int k = 0; k < z->count && o < sizeof diag->msg; k++)
            o += (size_t)snprintf(diag->msg + o, sizeof diag->msg - o, " %s", z->e[k].key);
        if (o < sizeof diag->msg)
            snprintf(diag->msg + o, sizeof diag->msg - o, ")");
    }
    scheme *s = NULL;
    if (e && !e->s)
        snprintf(diag->msg, sizeof diag->msg, "member '%s.npy': %s", e->key, e->skipped);
    else if (e) {
        s = e->s;
        z->e[e - z->e].s = NULL; /* ours now */
    }
    scheme_npz_free(z);
    return s;
}

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
    if (scheme_is_npz(buf, len))
        return rd_read_npz_one(buf, len, name ? name : "<buffer>", dims, diag);
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
    case SCHEME_FILE_JSON:
        return rd_read_json(&c, dims);
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
                       "(a11+a23)*(b12)*(c21+c33), a Mathematica list {...}, a JSON object, or the native "
                       "header 'flipgraph-scheme 1')");
        else
            rd_fail_at(&c, c.pos, "expected a scheme: a term like (a11+a23)*(b12)*(c21+c33), a "
                       "Mathematica list '{', a JSON object, or the native header 'flipgraph-scheme 1'");
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
    size_t len = 0;
    char *buf = scheme_slurp_diag(path, SCHEME_MAX_FILE_BYTES, &len, diag);
    if (!buf)
        return NULL;
    scheme *s = scheme_read_buffer(buf, len, path, dims, diag);
    free(buf);
    return s;
}
