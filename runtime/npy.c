/* NumPy .npy files of float matrices (docs/float.md has the subset read and
 * written).  The header is parsed by the schemes module's one .npy header
 * parser (strict: the byte offset of the first surprise), and the file's size
 * is checked against the shape before anything is allocated. */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime.h"

#define NPY_PREFIX 8 /* magic (6) + major + minor */

typedef struct npy_header {
    uint64_t rows, cols;
    rt_ftype type;
    bool fortran;
    size_t data_offset; /* bytes before the entries */
} npy_header;

/* The shared header parser (schemes/npy_header.c), then what a float matrix
 * needs: a little-endian f4/f8 dtype and a 2-D shape of positive dimensions. */
static bool header_parse(const unsigned char *head, size_t got, const char *name, npy_header *h,
                         scheme_diag *d)
{
    scheme_npy_header g;
    memset(h, 0, sizeof *h);
    if (!scheme_npy_header_parse(head, got, name, &g, d))
        return false;
    const char *descr = g.descr;
    if (!strcmp(descr, "<f8") || !strcmp(descr, "f8") || !strcmp(descr, "<d"))
        h->type = RT_F64;
    else if (!strcmp(descr, "<f4") || !strcmp(descr, "f4") || !strcmp(descr, "<f"))
        h->type = RT_F32;
    else {
        scheme_diag_set(d, name,
                 "byte %zu of the .npy header: dtype '%s', expected '<f8' (float64) or "
                 "'<f4' (float32), little-endian%s", g.descr_at, descr,
                 descr[0] == '>' ? " (this file is big-endian)" : "");
        return false;
    }
    if (g.ndim != 2) {
        scheme_diag_set(d, name, "byte %zu of the .npy header: a %d-D array, expected a 2-D shape (rows, cols)",
                 g.shape_at, g.ndim);
        return false;
    }
    if (g.shape[0] < 1 || g.shape[1] < 1 || g.shape[0] > RT_MAX_DIM || g.shape[1] > RT_MAX_DIM) {
        scheme_diag_set(d, name, "byte %zu of the .npy header: shape (%llu, %llu): each dimension must be 1 .. 2^32",
                 g.shape_at, (unsigned long long)g.shape[0], (unsigned long long)g.shape[1]);
        return false;
    }
    h->rows = g.shape[0];
    h->cols = g.shape[1];
    h->fortran = g.fortran;
    h->data_offset = g.data_offset;
    if ((double)h->rows * (double)h->cols * (double)rt_ftype_size(h->type) > (double)RT_MAX_MATRIX_BYTES) {
        scheme_diag_set(d, name, "%llu x %llu %s entries are larger than this program's limit of %llu GiB",
                 (unsigned long long)h->rows, (unsigned long long)h->cols, rt_ftype_name(h->type),
                 (unsigned long long)(RT_MAX_MATRIX_BYTES >> 30));
        return false;
    }
    return true;
}

/* Moves raw little-endian entries (in file order) into m, row-major. */
static void data_finish(rt_fmatrix *m, const void *raw, bool fortran)
{
    size_t es = rt_ftype_size(m->type);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .npy reader assumes a little-endian host"
#endif
    if (!fortran) {
        memcpy(m->data, raw, m->rows * m->cols * es);
        return;
    }
    /* Fortran order: column by column; transpose in tiles to stay in cache. */
    const uint64_t R = m->rows, C = m->cols, TB = 64;
    for (uint64_t c0 = 0; c0 < C; c0 += TB)
        for (uint64_t r0 = 0; r0 < R; r0 += TB)
            for (uint64_t c = c0; c < C && c < c0 + TB; c++)
                for (uint64_t r = r0; r < R && r < r0 + TB; r++) {
                    if (es == 8)
                        ((double *)m->data)[r * C + c] = ((const double *)raw)[c * R + r];
                    else
                        ((float *)m->data)[r * C + c] = ((const float *)raw)[c * R + r];
                }
}

rt_fmatrix *rt_npy_read_buffer(const void *buf, size_t len, const char *name, scheme_diag *d)
{
    npy_header h;
    if (!header_parse(buf, len, name, &h, d))
        return NULL;
    uint64_t payload = h.rows * h.cols * rt_ftype_size(h.type);
    if (len - h.data_offset != payload) {
        scheme_diag_set(d, name, "the file has %zu bytes of entries, the header (%llu x %llu %s) says %llu",
                 len - h.data_offset, (unsigned long long)h.rows, (unsigned long long)h.cols,
                 rt_ftype_name(h.type), (unsigned long long)payload);
        return NULL;
    }
    rt_fmatrix *m = rt_fmatrix_new(h.rows, h.cols, h.type);
    if (!m) {
        scheme_diag_set(d, name, "out of memory for %llu x %llu", (unsigned long long)h.rows,
                 (unsigned long long)h.cols);
        return NULL;
    }
    data_finish(m, (const char *)buf + h.data_offset, h.fortran);
    return m;
}

/* Opens path and reads the prefix and header (at most 1 MiB + 12 bytes). */
static FILE *open_header(const char *path, unsigned char **head, size_t *got, scheme_diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        scheme_diag_set(d, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    unsigned char *b = malloc(cap);
    if (!b) {
        fclose(f);
        scheme_diag_set(d, path, "out of memory");
        return NULL;
    }
    n = fread(b, 1, cap, f);
    /* A header longer than the first read (version 2.0 with a huge dict). */
    if (n == cap && n >= 12 && b[6] >= 2) {
        size_t hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
        if (hlen <= 1u << 20 && hlen + 12 > cap) {
            unsigned char *nb = realloc(b, hlen + 12);
            if (!nb) {
                free(b);
                fclose(f);
                scheme_diag_set(d, path, "out of memory");
                return NULL;
            }
            b = nb;
            n += fread(b + n, 1, hlen + 12 - n, f);
        }
    }
    if (ferror(f)) {
        scheme_diag_set(d, path, "read error: %s", strerror(errno));
        free(b);
        fclose(f);
        return NULL;
    }
    *head = b;
    *got = n;
    return f;
}

bool rt_npy_is_npy(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char m[6];
    bool yes = fread(m, 1, 6, f) == 6 && !memcmp(m, RT_NPY_MAGIC, 6);
    fclose(f);
    return yes;
}

bool rt_npy_read_dims(const char *path, uint64_t *rows, uint64_t *cols, rt_ftype *type,
                      bool *fortran, scheme_diag *d)
{
    unsigned char *head;
    size_t got;
    FILE *f = open_header(path, &head, &got, d);
    if (!f)
        return false;
    npy_header h;
    bool ok = header_parse(head, got, path, &h, d);
    struct stat st;
    if (ok && (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))) {
        scheme_diag_set(d, path, "not a regular file");
        ok = false;
    }
    if (ok) {
        uint64_t want = h.data_offset + h.rows * h.cols * rt_ftype_size(h.type);
        if ((uint64_t)st.st_size != want) {
            scheme_diag_set(d, path, "the file has %llu bytes, the header (%llu x %llu %s) says %llu",
                     (unsigned long long)st.st_size, (unsigned long long)h.rows,
                     (unsigned long long)h.cols, rt_ftype_name(h.type), (unsigned long long)want);
            ok = false;
        }
    }
    free(head);
    fclose(f);
    if (ok) {
        if (rows)
            *rows = h.rows;
        if (cols)
            *cols = h.cols;
        if (type)
            *type = h.type;
        if (fortran)
            *fortran = h.fortran;
    }
    return ok;
}

rt_fmatrix *rt_npy_read_file(const char *path, scheme_diag *d)
{
    unsigned char *head;
    size_t got;
    FILE *f = open_header(path, &head, &got, d);
    if (!f)
        return NULL;
    npy_header h;
    rt_fmatrix *m = NULL;
    void *raw = NULL;
    struct stat st;
    if (!header_parse(head, got, path, &h, d))
        goto out;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        scheme_diag_set(d, path, "not a regular file");
        goto out;
    }
    uint64_t payload = h.rows * h.cols * rt_ftype_size(h.type);
    if ((uint64_t)st.st_size != h.data_offset + payload) {
        scheme_diag_set(d, path, "the file has %llu bytes, the header (%llu x %llu %s) says %llu",
                 (unsigned long long)st.st_size, (unsigned long long)h.rows,
                 (unsigned long long)h.cols, rt_ftype_name(h.type),
                 (unsigned long long)(h.data_offset + payload));
        goto out;
    }
    m = rt_fmatrix_new(h.rows, h.cols, h.type);
    if (!m) {
        scheme_diag_set(d, path, "out of memory for %llu x %llu", (unsigned long long)h.rows,
                 (unsigned long long)h.cols);
        goto out;
    }
    void *dst = m->data;
    if (h.fortran) {
        raw = malloc(payload);
        if (!raw) {
            scheme_diag_set(d, path, "out of memory for %llu x %llu", (unsigned long long)h.rows,
                     (unsigned long long)h.cols);
            goto fail;
        }
        dst = raw;
    }
    if (fseeko(f, (off_t)h.data_offset, SEEK_SET) != 0 || fread(dst, 1, payload, f) != payload) {
        scheme_diag_set(d, path, "short read: %s", ferror(f) ? strerror(errno) : "the file shrank");
        goto fail;
    }
    if (h.fortran)
        data_finish(m, raw, true);
    goto out;
fail:
    rt_fmatrix_free(m);
    m = NULL;
out:
    free(raw);
    free(head);
    fclose(f);
    return m;
}

bool rt_npy_write(const rt_fmatrix *m, bool fortran, FILE *out)
{
    char dict[160];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': (%llu, %llu), }",
                     m->type == RT_F64 ? "<f8" : "<f4", fortran ? "True" : "False",
                     (unsigned long long)m->rows, (unsigned long long)m->cols);
    /* Version 1.0; the prefix, dict, padding and newline make a multiple of 64
     * bytes, so the entries are aligned as NumPy aligns them. */
    size_t total = (NPY_PREFIX + 2 + (size_t)n + 1 + 63) / 64 * 64;
    size_t hlen = total - NPY_PREFIX - 2;
    unsigned char head[256];
    memcpy(head, RT_NPY_MAGIC, 6);
    head[6] = 1;
    head[7] = 0;
    head[8] = (unsigned char)(hlen & 0xff);
    head[9] = (unsigned char)(hlen >> 8);
    memcpy(head + 10, dict, (size_t)n);
    memset(head + 10 + n, ' ', hlen - (size_t)n - 1);
    head[total - 1] = '\n';
    if (fwrite(head, 1, total, out) != total)
        return false;
    size_t es = rt_ftype_size(m->type);
    if (!fortran)
        return fwrite(m->data, es, m->rows * m->cols, out) == m->rows * m->cols;
    /* Column by column, through a buffer of one column. */
    unsigned char *col = malloc(m->rows * es);
    if (!col)
        return false;
    bool ok = true;
    for (uint64_t c = 0; c < m->cols && ok; c++) {
        for (uint64_t r = 0; r < m->rows; r++)
            memcpy(col + r * es, (const unsigned char *)m->data + (r * m->cols + c) * es, es);
        ok = fwrite(col, es, m->rows, out) == m->rows;
    }
    free(col);
    return ok;
}

typedef struct {
    const rt_fmatrix *m;
    bool fortran;
} npy_write_ctx;

static bool write_cb(void *ctx, FILE *f)
{
    const npy_write_ctx *w = ctx;
    return rt_npy_write(w->m, w->fortran, f);
}

bool rt_npy_write_file(const char *path, const rt_fmatrix *m, bool fortran, char *err, size_t errlen)
{
    npy_write_ctx w = {m, fortran};
    return scheme_write_file_atomic(path, write_cb, &w, err, errlen);
}
