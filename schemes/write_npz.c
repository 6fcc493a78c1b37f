/* Writes schemes as AlphaTensor's .npz files (docs/formats.md, "AlphaTensor
 * .npz"): a zip (libzip, in memory, then one write to the caller's stream, so
 * that scheme_write_file_atomic keeps it whole or not at all) of one member
 * "N,M,P.npy" per scheme, int64 entries.  Square formats get one (3, E, R)
 * array; where the factor sizes differ the member is an object array of three
 * (E, R) arrays, pickled (protocol 3) as NumPy pickles it, so that NumPy loads
 * it with allow_pickle=True as it loads AlphaTensor's own files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#if FLIPGRAPH_HAVE_ZIP
#include <zip.h>
#endif

#include "scheme.h"

#if FLIPGRAPH_HAVE_ZIP
typedef struct wbuf {
    unsigned char *p;
    size_t n, cap;
    bool oom;
} wbuf;

static void put(wbuf *b, const void *src, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + n)
            nc *= 2;
        unsigned char *np = realloc(b->p, nc);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void put1(wbuf *b, unsigned x)
{
    unsigned char c = (unsigned char)x;
    put(b, &c, 1);
}

static void put_le(wbuf *b, uint64_t x, int w)
{
    for (int k = 0; k < w; k++)
        put1(b, (unsigned)(x >> (8 * k)) & 0xff);
}

static void put_str(wbuf *b, const char *s) { put(b, s, strlen(s)); }

/* The .npy header (version 1.0, padded to a multiple of 64 bytes). */
static void npy_header(wbuf *b, const char *descr, const char *shape)
{
    char dict[200];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
    size_t total = (10 + (size_t)n + 1 + 63) / 64 * 64, hlen = total - 10;
    put(b, SCHEME_NPY_MAGIC, 6);
    put1(b, 1);
    put1(b, 0);
    put_le(b, hlen, 2);
    put(b, dict, (size_t)n);
    for (size_t k = (size_t)n; k + 1 < hlen; k++)
        put1(b, ' ');
    put1(b, '\n');
}

static int64_t coef(const scheme *s, int r, int pos, int e)
{
    if (s->ring == SCHEME_RING_Z)
        return s->zterms[r].z[pos][e];
    return (int64_t)((s->terms[r].f[pos] >> e) & 1);
}

/* Factor pos as E x R int64, row-major. */
static void put_factor(wbuf *b, const scheme *s, int pos)
{
    int E = scheme_factor_size(s->fmt, pos);
    for (int e = 0; e < E; e++)
        for (int r = 0; r < s->rank; r++)
            put_le(b, (uint64_t)coef(s, r, pos, e), 8);
}

/* Pickle opcodes (protocol 3), as NumPy's array pickles use them. */
static void pk_int(wbuf *b, int64_t x)
{
    if (x >= 0 && x < 256) {
        put1(b, 'K');
        put1(b, (unsigned)x);
    } else if (x >= 0 && x < 65536) {
        put1(b, 'M');
        put_le(b, (uint64_t)x, 2);
    } else {
        put1(b, 'J');
        put_le(b, (uint64_t)(uint32_t)(int32_t)x, 4);
    }
}

static void pk_unicode(wbuf *b, const char *s)
{
    put1(b, 'X');
    put_le(b, strlen(s), 4);
    put_str(b, s);
}

/* numpy.dtype(name, False, True) with its state (3, order, None, None, None, -1, -1, flags). */
static void pk_dtype(wbuf *b, const char *name, const char *order, int flags)
{
    put_str(b, "cnumpy\ndtype\n");
    pk_unicode(b, name);
    put1(b, 0x89);
    put1(b, 0x88);
    put1(b, 0x87);
    put1(b, 'R');
    put1(b, '(');
    pk_int(b, 3);
    pk_unicode(b, order);
    put_str(b, "NNN");
    pk_int(b, -1);
    pk_int(b, -1);
    pk_int(b, flags);
    put1(b, 't');
    put1(b, 'b');
}

/* _reconstruct(ndarray, (0,), b'b'), left on the stack. */
static void pk_new_array(wbuf *b)
{
    put_str(b, "cnumpy.core.multiarray\n_reconstruct\n");
    put_str(b, "cnumpy\nndarray\n");
    pk_int(b, 0);
    put1(b, 0x85);
    put1(b, 'C');
    put1(b, 1);
    put1(b, 'b');
    put1(b, 0x87);
    put1(b, 'R');
}

static bool member(const scheme *s, wbuf *b)
{
    int E[3];
    for (int pos = 0; pos < 3; pos++)
        E[pos] = scheme_factor_size(s->fmt, pos);
    char shape[64];
    if (E[0] == E[1] && E[1] == E[2]) {
        snprintf(shape, sizeof shape, "(3, %d, %d)", E[0], s->rank);
        npy_header(b, "<i8", shape);
        for (int pos = 0; pos < 3; pos++)
            put_factor(b, s, pos);
        return !b->oom;
    }
    npy_header(b, "|O", "(3,)");
    put1(b, 0x80);
    put1(b, 3);
    pk_new_array(b);
    put1(b, '(');
    pk_int(b, 1);
    pk_int(b, 3);
    put1(b, 0x85);
    pk_dtype(b, "O8", "|", 63);
    put1(b, 0x89);
    put1(b, ']');
    put1(b, '(');
    for (int pos = 0; pos < 3; pos++) {
        pk_new_array(b);
        put1(b, '(');
        pk_int(b, 1);
        pk_int(b, E[pos]);
        pk_int(b, s->rank);
        put1(b, 0x86);
        pk_dtype(b, "i8", "<", 0);
        put1(b, 0x89);
        put1(b, 'B');
        put_le(b, (uint64_t)E[pos] * (uint64_t)s->rank * 8, 4);
        put_factor(b, s, pos);
        put1(b, 't');
        put1(b, 'b');
    }
    put1(b, 'e');
    put1(b, 't');
    put1(b, 'b');
    put1(b, '.');
    return !b->oom;
}

bool scheme_write_npz_set(const scheme *const *s, int count, FILE *out)
{
    for (int k = 0; k < count; k++) {
        if (!scheme_writable(s[k], SCHEME_FILE_NPZ, NULL, 0)) {
            errno = EINVAL;
            return false;
        }
        for (int j = 0; j < k; j++)
            if (s[j]->fmt.n == s[k]->fmt.n && s[j]->fmt.m == s[k]->fmt.m && s[j]->fmt.p == s[k]->fmt.p) {
                errno = EINVAL;
                return false;
            }
    }
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, &ze);
    if (!src) {
        zip_error_fini(&ze);
        errno = ENOMEM;
        return false;
    }
    zip_source_keep(src);
    errno = 0; /* below: a libzip failure that sets none reads as EIO */
    zip_t *za = zip_open_from_source(src, ZIP_TRUNCATE, &ze);
    zip_error_fini(&ze);
    if (!za)
        zip_source_free(src); /* the reference zip_open_from_source would have taken */
    bool ok = za != NULL;
    for (int k = 0; ok && k < count; k++) {
        wbuf b = {0};
        if (!member(s[k], &b)) {
            free(b.p);
            ok = false;
            break;
        }
        char name[64];
        snprintf(name, sizeof name, "%d,%d,%d.npy", s[k]->fmt.n, s[k]->fmt.m, s[k]->fmt.p);
        zip_source_t *ms = zip_source_buffer(za, b.p, b.n, 1); /* libzip frees b.p */
        if (!ms) {
            free(b.p);
            ok = false;
            break;
        }
        zip_int64_t idx = zip_file_add(za, name, ms, ZIP_FL_ENC_UTF_8);
        if (idx < 0) {
            zip_source_free(ms);
            ok = false;
            break;
        }
        /* NumPy's savez_compressed; fixed times keep the output byte for byte. */
        if (zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_DEFLATE, 0) != 0 ||
            zip_file_set_mtime(za, (zip_uint64_t)idx, 315532800 + 12 * 3600, 0) != 0) {
            ok = false;
            break;
        }
    }
    if (za) {
        if (ok)
            ok = zip_close(za) == 0;
        if (!ok && za)
            zip_discard(za);
    }
    unsigned char *bytes = NULL;
    zip_stat_t st;
    if (ok && zip_source_open(src) == 0) {
        zip_stat_init(&st);
        ok = zip_source_stat(src, &st) == 0 && (st.valid & ZIP_STAT_SIZE);
        if (ok) {
            bytes = malloc(st.size ? (size_t)st.size : 1);
            ok = bytes && zip_source_read(src, bytes, st.size) == (zip_int64_t)st.size;
        }
        zip_source_close(src);
    } else
        ok = false;
    zip_source_free(src);
    if (!ok) {
        free(bytes);
        errno = errno ? errno : EIO;
        return false;
    }
    ok = fwrite(bytes, 1, (size_t)st.size, out) == (size_t)st.size && fflush(out) == 0;
    free(bytes);
    return ok;
}

#else
bool scheme_write_npz_set(const scheme *const *s, int count, FILE *out)
{
    (void)s;
    (void)count;
    (void)out;
    errno = ENOTSUP; /* -DFLIPGRAPH_ZIP=OFF: no libzip */
    return false;
}
#endif

bool scheme_write_npz(const scheme *s, FILE *out)
{
    return scheme_write_npz_set(&s, 1, out);
}
