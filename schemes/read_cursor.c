/* The readers' cursor and diagnostics: FILE:LINE:COL: what was expected, found what. */
#include "read_internal.h"

#include <stdarg.h>
#include <string.h>

void rd_skip_hspace(rd_ctx *c)
{
    while (c->pos < c->len && rd_is_hspace((unsigned char)c->buf[c->pos]))
        c->pos++;
}

void rd_skip_space(rd_ctx *c)
{
    while (c->pos < c->len && (rd_is_hspace((unsigned char)c->buf[c->pos]) || c->buf[c->pos] == '\n'))
        c->pos++;
}

void rd_skip_to_eol(rd_ctx *c)
{
    const char *nl = c->pos < c->len ? memchr(c->buf + c->pos, '\n', c->len - c->pos) : NULL;
    c->pos = nl ? (size_t)(nl - c->buf) : c->len;
}

void rd_line_col(const rd_ctx *c, size_t off, int *line, int *col)
{
    if (off > c->len)
        off = c->len;
    long ln = 1;
    size_t start = 0;
    for (const char *p = c->buf, *end = c->buf + off; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        ln++;
        p = nl + 1;
        start = (size_t)(p - c->buf);
    }
    /* Files are capped at SCHEME_MAX_FILE_BYTES, so both fit an int. */
    *line = (int)ln;
    *col = (int)(off - start + 1);
}

static void describe(const rd_ctx *c, size_t off, char *out, size_t n)
{
    int ch = rd_peek_at(c, off);
    if (ch < 0)
        snprintf(out, n, "end of file");
    else if (ch == '\n' || (ch == '\r' && rd_peek_at(c, off + 1) == '\n'))
        snprintf(out, n, "end of line");
    else if (ch == ' ')
        snprintf(out, n, "a space");
    else if (ch == '\t')
        snprintf(out, n, "a tab");
    else if (ch > 0x20 && ch < 0x7f)
        snprintf(out, n, "'%c'", ch);
    else
        snprintf(out, n, "byte 0x%02x", ch);
}

static bool vfail(rd_ctx *c, size_t off, bool found, const char *fmt, va_list ap)
{
    scheme_diag *d = c->diag;
    if (!d)
        return false;
    snprintf(d->file, sizeof d->file, "%s", c->name ? c->name : "<buffer>");
    rd_line_col(c, off, &d->line, &d->col);
    char msg[sizeof d->msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (found) {
        char what[32];
        describe(c, off, what, sizeof what);
        snprintf(d->msg, sizeof d->msg, "%.400s, found %s", msg, what);
    } else {
        snprintf(d->msg, sizeof d->msg, "%s", msg);
    }
    return false;
}

bool rd_fail_at(rd_ctx *c, size_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(c, off, true, fmt, ap);
    va_end(ap);
    return false;
}

bool rd_fail_plain(rd_ctx *c, size_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(c, off, false, fmt, ap);
    va_end(ap);
    return false;
}
