/* The header of a NumPy .npy file, parsed once for every reader of .npy data:
 * the float matrices of the runtime (runtime/npy.c) and the members of
 * AlphaTensor's .npz scheme files (schemes/read_npz.c).  The header is a
 * Python literal dict; it is parsed strictly (the three keys NumPy writes,
 * each once, nothing else) so that a file that is not what it seems is refused
 * with the byte offset of the first surprise.  What the dtype and shape must be
 * is the caller's to check. */
#include <string.h>

#include "scheme.h"

#define NPY_PREFIX 8 /* magic (6) + major + minor */

/* A cursor over the dict text; off is the byte offset of text[0] in the file. */
typedef struct {
    const char *s;
    size_t len, i, off;
    const char *name;
    scheme_diag *d;
} npy_cur;

static void skip_ws(npy_cur *c)
{
    while (c->i < c->len && (c->s[c->i] == ' ' || c->s[c->i] == '\t'))
        c->i++;
}

static bool fail_at(npy_cur *c, const char *what)
{
    char found[16];
    if (c->i >= c->len)
        snprintf(found, sizeof found, "the end");
    else if ((unsigned char)c->s[c->i] >= 32 && (unsigned char)c->s[c->i] < 127)
        snprintf(found, sizeof found, "'%c'", c->s[c->i]);
    else
        snprintf(found, sizeof found, "byte 0x%02x", (unsigned char)c->s[c->i]);
    scheme_diag_set(c->d, c->name, "byte %zu of the .npy header: expected %s, found %s", c->off + c->i,
             what, found);
    return false;
}

static bool expect_ch(npy_cur *c, char ch, const char *what)
{
    skip_ws(c);
    if (c->i < c->len && c->s[c->i] == ch) {
        c->i++;
        return true;
    }
    return fail_at(c, what);
}

/* A quoted string ('...' or "...") without escapes; out gets it. */
static bool read_str(npy_cur *c, char *out, size_t outlen, const char *what)
{
    skip_ws(c);
    if (c->i >= c->len || (c->s[c->i] != '\'' && c->s[c->i] != '"'))
        return fail_at(c, what);
    char q = c->s[c->i++];
    size_t n = 0;
    while (c->i < c->len && c->s[c->i] != q) {
        if (c->s[c->i] == '\\' || n + 1 >= outlen)
            return fail_at(c, what);
        out[n++] = c->s[c->i++];
    }
    if (c->i >= c->len)
        return fail_at(c, "a closing quote");
    c->i++;
    out[n] = 0;
    return true;
}

static bool read_uint(npy_cur *c, uint64_t *v)
{
    skip_ws(c);
    if (c->i >= c->len || c->s[c->i] < '0' || c->s[c->i] > '9')
        return fail_at(c, "a dimension (a non-negative integer)");
    uint64_t x = 0;
    while (c->i < c->len && c->s[c->i] >= '0' && c->s[c->i] <= '9') {
        if (x > (UINT64_MAX - 9) / 10)
            return fail_at(c, "a dimension below 2^64");
        x = x * 10 + (uint64_t)(c->s[c->i++] - '0');
    }
    if (c->i < c->len && c->s[c->i] == 'L') /* Python 2 longs, as old NumPy wrote them */
        c->i++;
    *v = x;
    return true;
}

/* The dict: {'descr': '<f8', 'fortran_order': False, 'shape': (R, C), } */
static bool parse_dict(npy_cur *c, scheme_npy_header *h)
{
    bool seen[3] = {false, false, false};
    if (!expect_ch(c, '{', "'{' (the header is a Python dict)"))
        return false;
    for (;;) {
        skip_ws(c);
        if (c->i < c->len && c->s[c->i] == '}') {
            c->i++;
            break;
        }
        char key[32];
        size_t key_at = c->i;
        if (!read_str(c, key, sizeof key, "a key ('descr', 'fortran_order' or 'shape') or '}'"))
            return false;
        if (!expect_ch(c, ':', "':'"))
            return false;
        int k = !strcmp(key, "descr") ? 0 : !strcmp(key, "fortran_order") ? 1 : !strcmp(key, "shape") ? 2 : -1;
        if (k < 0) {
            c->i = key_at;
            return fail_at(c, "one of the keys 'descr', 'fortran_order', 'shape'");
        }
        if (seen[k]) {
            c->i = key_at;
            return fail_at(c, "each key once");
        }
        seen[k] = true;
        skip_ws(c);
        size_t val_at = c->i;
        if (k == 0) {
            if (!read_str(c, h->descr, sizeof h->descr, "a type string such as '<f8'"))
                return false;
            h->descr_at = c->off + val_at;
        } else if (k == 1) {
            if (c->len - c->i >= 4 && !memcmp(c->s + c->i, "True", 4)) {
                h->fortran = true;
                c->i += 4;
            } else if (c->len - c->i >= 5 && !memcmp(c->s + c->i, "False", 5)) {
                h->fortran = false;
                c->i += 5;
            } else
                return fail_at(c, "True or False");
        } else {
            if (!expect_ch(c, '(', "'(' (the shape is a tuple)"))
                return false;
            h->shape_at = c->off + val_at;
            int nd = 0;
            for (;;) {
                skip_ws(c);
                if (c->i < c->len && c->s[c->i] == ')') {
                    c->i++;
                    break;
                }
                if (nd == SCHEME_NPY_MAX_DIMS) {
                    c->i = val_at;
                    return fail_at(c, "a shape of at most 8 dimensions");
                }
                if (!read_uint(c, &h->shape[nd++]))
                    return false;
                skip_ws(c);
                if (c->i < c->len && c->s[c->i] == ',')
                    c->i++;
                else if (c->i >= c->len || c->s[c->i] != ')')
                    return fail_at(c, "',' or ')' in the shape");
            }
            h->ndim = nd;
        }
        skip_ws(c);
        if (c->i < c->len && c->s[c->i] == ',')
            c->i++;
        else if (c->i >= c->len || c->s[c->i] != '}')
            return fail_at(c, "',' or '}'");
    }
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    for (int k = 0; k < 3; k++)
        if (!seen[k]) {
            scheme_diag_set(c->d, c->name, "the .npy header has no '%s' key (expected descr, fortran_order, shape)",
                     keys[k]);
            return false;
        }
    /* Only padding may follow: spaces, then the newline that ends the header. */
    while (c->i < c->len && (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\0'))
        c->i++;
    if (c->i + 1 != c->len || c->s[c->i] != '\n')
        return fail_at(c, "spaces then a newline (the end of the header)");
    return true;
}

bool scheme_npy_header_parse(const unsigned char *head, size_t got, const char *name,
                             scheme_npy_header *h, scheme_diag *d)
{
    memset(h, 0, sizeof *h);
    if (got < 6 || memcmp(head, SCHEME_NPY_MAGIC, 6) != 0) {
        scheme_diag_set(d, name, "not a NumPy .npy file (the magic \\x93NUMPY is missing)");
        return false;
    }
    if (got < NPY_PREFIX + 2) {
        scheme_diag_set(d, name, "truncated .npy header: %zu bytes", got);
        return false;
    }
    unsigned major = head[6], minor = head[7];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)head[8] | (size_t)head[9] << 8;
        hstart = NPY_PREFIX + 2;
    } else if (major == 2 || major == 3) {
        if (got < NPY_PREFIX + 4) {
            scheme_diag_set(d, name, "truncated .npy header: %zu bytes", got);
            return false;
        }
        hlen = (size_t)head[8] | (size_t)head[9] << 8 | (size_t)head[10] << 16 | (size_t)head[11] << 24;
        hstart = NPY_PREFIX + 4;
    } else {
        scheme_diag_set(d, name, "byte 6: .npy format version %u.%u, expected 1.0, 2.0 or 3.0", major, minor);
        return false;
    }
    if (minor != 0) {
        scheme_diag_set(d, name, "byte 7: .npy format version %u.%u, expected minor version 0", major, minor);
        return false;
    }
    if (hlen == 0 || hlen > 1u << 20) {
        scheme_diag_set(d, name, "byte 8: header length %zu, expected 1 .. 1 MiB", hlen);
        return false;
    }
    if (got < hstart + hlen) {
        scheme_diag_set(d, name, "truncated .npy header: the file has %zu bytes, the header needs %zu", got,
                 hstart + hlen);
        return false;
    }
    npy_cur c = {(const char *)head + hstart, hlen, 0, hstart, name, d};
    if (!parse_dict(&c, h))
        return false;
    h->data_offset = hstart + hlen;
    return true;
}
