/* The native format's header (docs/formats.md):
 *
 *   flipgraph-scheme 1
 *   format 4x4x4
 *   ring f2
 *   rank 47
 *   (a1_4)*(b1_2+b1_3)*(c1_4+c2_2)
 *   ...
 *
 * The magic line comes first; then the three header lines in any order, each
 * once, before the first term; '#' starts a comment anywhere; blank lines are
 * ignored.  The terms follow the shared term grammar (read_exp.c) with entries
 * written aROW_COL, so formats with a dimension above 9 (2x32x2) fit. */
#include "read_internal.h"

#include <string.h>

#define NATIVE_MAGIC "flipgraph-scheme"
#define NATIVE_VERSION 1

/* After a header value: spaces, an optional comment, the end of the line. */
static bool end_of_header_line(rd_ctx *c)
{
    rd_skip_hspace(c);
    if (rd_peek(c) == '#')
        rd_skip_to_eol(c);
    int ch = rd_peek(c);
    if (ch >= 0 && ch != '\n')
        return rd_fail_at(c, c->pos, "expected the end of the header line");
    if (ch == '\n')
        c->pos++;
    return true;
}

/* A header value: the run of non-blank characters at the cursor. */
static size_t token(rd_ctx *c, char *out, size_t n)
{
    size_t start = c->pos;
    while (c->pos < c->len) {
        int ch = (unsigned char)c->buf[c->pos];
        if (rd_is_hspace(ch) || ch == '\n' || ch == '#')
            break;
        c->pos++;
    }
    size_t len = c->pos - start;
    snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), c->buf + start);
    return len;
}

scheme *rd_read_native(rd_ctx *c, const scheme_format *dims)
{
    rd_skip_space(c);
    size_t len_magic = strlen(NATIVE_MAGIC);
    if (c->len - c->pos < len_magic || memcmp(c->buf + c->pos, NATIVE_MAGIC, len_magic) != 0) {
        rd_fail_at(c, c->pos, "expected the native header '" NATIVE_MAGIC " 1'");
        return NULL;
    }
    c->pos += len_magic;
    if (!rd_is_hspace(rd_peek(c))) {
        rd_fail_at(c, c->pos, "expected a space and the version after '" NATIVE_MAGIC "'");
        return NULL;
    }
    rd_skip_hspace(c);
    size_t voff = c->pos;
    if (!rd_is_digit(rd_peek(c))) {
        rd_fail_at(c, c->pos, "expected the format version (1)");
        return NULL;
    }
    long version = 0;
    while (rd_is_digit(rd_peek(c))) {
        if (version < 1000000)
            version = version * 10 + (rd_peek(c) - '0');
        c->pos++;
    }
    if (version != NATIVE_VERSION) {
        rd_fail_plain(c, voff, "native format version %ld: this reader knows version %d", version,
                      NATIVE_VERSION);
        return NULL;
    }
    if (!end_of_header_line(c))
        return NULL;

    scheme_format fmt = {0, 0, 0};
    scheme_ring ring = SCHEME_RING_F2;
    long rank = 0;
    size_t rank_off = 0;
    bool have_fmt = false, have_ring = false, have_rank = false;
    while (!(have_fmt && have_ring && have_rank)) {
        rd_skip_hspace(c);
        int ch = rd_peek(c);
        if (ch == '\n') {
            c->pos++;
            continue;
        }
        if (ch == '#') {
            rd_skip_to_eol(c);
            continue;
        }
        size_t koff = c->pos;
        char key[16], val[64];
        size_t klen = 0;
        while (c->pos < c->len && c->buf[c->pos] >= 'a' && c->buf[c->pos] <= 'z' && klen < 15)
            key[klen++] = c->buf[c->pos++];
        key[klen] = 0;
        bool *seen = !strcmp(key, "format") ? &have_fmt : !strcmp(key, "ring") ? &have_ring
                   : !strcmp(key, "rank") ? &have_rank : NULL;
        if (seen && !rd_is_hspace(rd_peek(c))) {
            rd_fail_at(c, c->pos, "expected a space and the value after '%s'", key);
            return NULL;
        }
        if (!seen) {
            char missing[80] = "";
            const char *names[3] = {have_fmt ? NULL : "'format NxMxP'", have_ring ? NULL : "'ring f2|z'",
                                    have_rank ? NULL : "'rank R'"};
            for (int i = 0; i < 3; i++)
                if (names[i])
                    snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s",
                             missing[0] ? ", " : "", names[i]);
            rd_fail_at(c, koff, "expected the header line%s %s before the first term",
                       (!have_fmt + !have_ring + !have_rank) > 1 ? "s" : "", missing);
            return NULL;
        }
        if (*seen) {
            rd_fail_plain(c, koff, "a second '%s' line in the header", key);
            return NULL;
        }
        *seen = true;
        rd_skip_hspace(c);
        size_t voff2 = c->pos;
        size_t vlen = token(c, val, sizeof val);
        if (vlen == 0) {
            rd_fail_at(c, voff2, "expected the value of '%s'", key);
            return NULL;
        }
        if (!strcmp(key, "format")) {
            char err[200];
            if (vlen >= sizeof val || !scheme_format_parse(val, &fmt, err, sizeof err)) {
                rd_fail_plain(c, voff2, "%s", vlen >= sizeof val ? "format: expected NxMxP" : err);
                return NULL;
            }
            if (dims && (dims->n != fmt.n || dims->m != fmt.m || dims->p != fmt.p)) {
                char a[32], b[32];
                rd_fail_plain(c, voff2, "the header's format %s differs from --dims %s",
                              scheme_format_str(fmt, a), scheme_format_str(*dims, b));
                return NULL;
            }
        } else if (!strcmp(key, "ring")) {
            if (!strcmp(val, "f2"))
                ring = SCHEME_RING_F2;
            else if (!strcmp(val, "z"))
                ring = SCHEME_RING_Z;
            else {
                rd_fail_at(c, voff2, "expected 'f2' or 'z' after 'ring'");
                return NULL;
            }
        } else {
            rank = 0;
            size_t i = 0;
            while (i < vlen && rd_is_digit((unsigned char)c->buf[voff2 + i]) && rank <= SCHEME_MAX_RANK)
                rank = rank * 10 + (c->buf[voff2 + i++] - '0');
            if (i != vlen || rank < 1 || rank > SCHEME_MAX_RANK) {
                rd_fail_plain(c, voff2, "rank '%s': expected a number of terms 1..%d", val,
                              SCHEME_MAX_RANK);
                return NULL;
            }
            rank_off = voff2;
        }
        if (!end_of_header_line(c))
            return NULL;
    }
    rd_lines_opts o = {
        .style = RD_STYLE_NATIVE,
        .fmt = &fmt,
        .fmt_origin = "the header",
        .ring_f2 = ring == SCHEME_RING_F2,
        .ring_z = ring == SCHEME_RING_Z,
        .rank = (int)rank,
        .rank_off = rank_off,
    };
    return rd_read_lines(c, &o);
}
