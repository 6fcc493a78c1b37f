/* Bit-matrix files: the binary format (a 64-byte header, then little-endian
 * words) and a 0/1 text format for small matrices, told apart by the magic.
 * docs/runtime.md is the specification; nothing is allocated before the sizes
 * in a header have been checked against the file's size. */
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime.h"

/* Header fields, byte offsets (all little-endian). */
enum {
    H_MAGIC = 0,    /* 8 bytes "FGBITMAT" */
    H_VERSION = 8,  /* u32: 1 */
    H_HBYTES = 12,  /* u32: header size, 64 */
    H_ROWS = 16,    /* u64 */
    H_COLS = 24,    /* u64 */
    H_LAYOUT = 32,  /* u32: 0 = row-major, each row ceil(cols/64) words */
    H_WORDBITS = 36,/* u32: 64 */
    H_STRIDE = 40,  /* u64: words per row */
    H_RESERVED = 48 /* 16 bytes of zeros */
};

static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return le32toh(v); }
static uint64_t get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return le64toh(v); }
static void put32(unsigned char *p, uint32_t v) { v = htole32(v); memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { v = htole64(v); memcpy(p, &v, 8); }

static void diag_set(scheme_diag *d, const char *name, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void diag_set(scheme_diag *d, const char *name, int line, int col, const char *fmt, ...)
{
    if (!d)
        return;
    snprintf(d->file, sizeof d->file, "%s", name);
    d->line = line;
    d->col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
}

/* Checks a binary header; on success the dimensions and the payload size. */
static bool header_check(const unsigned char *h, const char *name, uint64_t *rows,
                         uint64_t *cols, uint64_t *payload, scheme_diag *d)
{
    if (memcmp(h + H_MAGIC, RT_FILE_MAGIC, 8) != 0) {
        diag_set(d, name, 0, 0, "not a flipgraph bit-matrix file (magic " RT_FILE_MAGIC " missing)");
        return false;
    }
    uint32_t version = get32(h + H_VERSION), hbytes = get32(h + H_HBYTES);
    uint32_t layout = get32(h + H_LAYOUT), wbits = get32(h + H_WORDBITS);
    uint64_t r = get64(h + H_ROWS), c = get64(h + H_COLS), stride = get64(h + H_STRIDE);
    if (version != RT_FILE_VERSION) {
        diag_set(d, name, 0, 0, "byte %d: version %u, this program reads version %u", H_VERSION,
                 version, RT_FILE_VERSION);
        return false;
    }
    if (hbytes != RT_FILE_HEADER_BYTES) {
        diag_set(d, name, 0, 0, "byte %d: header size %u, expected %u", H_HBYTES, hbytes,
                 RT_FILE_HEADER_BYTES);
        return false;
    }
    if (layout != 0 || wbits != 64) {
        diag_set(d, name, 0, 0, "byte %d: layout %u with %u-bit words, expected layout 0 "
                 "(row-major) with 64-bit words", H_LAYOUT, layout, wbits);
        return false;
    }
    if (r < 1 || c < 1 || r > RT_MAX_DIM || c > RT_MAX_DIM) {
        diag_set(d, name, 0, 0, "byte %d: %llu x %llu: each dimension must be 1 .. 2^32",
                 H_ROWS, (unsigned long long)r, (unsigned long long)c);
        return false;
    }
    if (stride != (c + 63) / 64) {
        diag_set(d, name, 0, 0, "byte %d: %llu words per row, expected %llu for %llu columns",
                 H_STRIDE, (unsigned long long)stride, (unsigned long long)((c + 63) / 64),
                 (unsigned long long)c);
        return false;
    }
    for (int i = H_RESERVED; i < (int)RT_FILE_HEADER_BYTES; i++)
        if (h[i]) {
            diag_set(d, name, 0, 0, "byte %d: reserved header bytes must be zero", i);
            return false;
        }
    if ((double)r * (double)stride * 8.0 > (double)RT_MAX_MATRIX_BYTES) {
        diag_set(d, name, 0, 0, "%llu x %llu bits is larger than this program's limit of %llu GiB",
                 (unsigned long long)r, (unsigned long long)c,
                 (unsigned long long)(RT_MAX_MATRIX_BYTES >> 30));
        return false;
    }
    *rows = r;
    *cols = c;
    *payload = r * stride * 8;
    return true;
}

/* Converts words in place from little-endian and checks the bits past cols. */
static bool words_finish(rt_matrix *m, const char *name, scheme_diag *d)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    for (uint64_t i = 0; i < m->rows * m->stride; i++)
        m->w[i] = le64toh(m->w[i]);
#endif
    if (m->cols % 64) {
        uint64_t mask = ~0ull << (m->cols % 64);
        for (uint64_t r = 0; r < m->rows; r++)
            if (m->w[r * m->stride + m->stride - 1] & mask) {
                diag_set(d, name, 0, 0, "row %llu (byte %llu): bits set past column %llu",
                         (unsigned long long)r + 1,
                         (unsigned long long)(RT_FILE_HEADER_BYTES + (r * m->stride + m->stride - 1) * 8),
                         (unsigned long long)m->cols);
                return false;
            }
    }
    return true;
}

/* ---- text ---- */

/* One pass over the text: counts rows and columns, and fills m when given. */
static bool text_scan(const char *buf, size_t len, const char *name, uint64_t *rows_out,
                      uint64_t *cols_out, rt_matrix *m, scheme_diag *d)
{
    uint64_t rows = 0, cols = 0;
    int line = 1;
    size_t i = 0;
    while (i < len) {
        size_t start = i;
        while (i < len && buf[i] != '\n')
            i++;
        size_t end = i; /* line is buf[start, end) */
        if (i < len)
            i++;
        size_t k = start;
        while (k < end && (buf[k] == ' ' || buf[k] == '\t' || buf[k] == '\r'))
            k++;
        if (k == end || buf[k] == '#') {
            line++;
            continue;
        }
        uint64_t c = 0;
        for (k = start; k < end; k++) {
            char ch = buf[k];
            if (ch == ' ' || ch == '\t' || ch == '\r')
                continue;
            if (ch != '0' && ch != '1') {
                if ((unsigned char)ch >= 32 && (unsigned char)ch < 127)
                    diag_set(d, name, line, (int)(k - start + 1), "expected 0 or 1, found '%c'", ch);
                else
                    diag_set(d, name, line, (int)(k - start + 1), "expected 0 or 1, found byte 0x%02x",
                             (unsigned char)ch);
                return false;
            }
            if (m && ch == '1')
                m->w[rows * m->stride + c / 64] |= 1ull << (c % 64);
            c++;
        }
        if (rows == 0) {
            cols = c;
        } else if (c != cols) {
            diag_set(d, name, line, 1, "row %llu has %llu columns, the first row has %llu",
                     (unsigned long long)rows + 1, (unsigned long long)c, (unsigned long long)cols);
            return false;
        }
        rows++;
        line++;
    }
    if (rows == 0) {
        diag_set(d, name, line, 1, "expected rows of 0 and 1 (the file has none)");
        return false;
    }
    *rows_out = rows;
    *cols_out = cols;
    return true;
}

static rt_matrix *text_read(const char *buf, size_t len, const char *name, scheme_diag *d)
{
    uint64_t rows, cols;
    if (!text_scan(buf, len, name, &rows, &cols, NULL, d))
        return NULL;
    rt_matrix *m = rt_matrix_new(rows, cols);
    if (!m) {
        diag_set(d, name, 0, 0, "out of memory for %llu x %llu", (unsigned long long)rows,
                 (unsigned long long)cols);
        return NULL;
    }
    text_scan(buf, len, name, &rows, &cols, m, d);
    return m;
}

rt_matrix *rt_matrix_read_buffer(const char *buf, size_t len, const char *name,
                                 rt_file_kind *kind, scheme_diag *d)
{
    if (len >= 8 && memcmp(buf, RT_FILE_MAGIC, 8) == 0) {
        if (kind)
            *kind = RT_FILE_BINARY;
        uint64_t rows, cols, payload;
        if (len < RT_FILE_HEADER_BYTES) {
            diag_set(d, name, 0, 0, "truncated header: %zu bytes, expected %u", len,
                     RT_FILE_HEADER_BYTES);
            return NULL;
        }
        if (!header_check((const unsigned char *)buf, name, &rows, &cols, &payload, d))
            return NULL;
        if (len - RT_FILE_HEADER_BYTES != payload) {
            diag_set(d, name, 0, 0, "%zu bytes of words, the header says %llu x %llu needs %llu",
                     len - RT_FILE_HEADER_BYTES, (unsigned long long)rows, (unsigned long long)cols,
                     (unsigned long long)payload);
            return NULL;
        }
        rt_matrix *m = rt_matrix_new(rows, cols);
        if (!m) {
            diag_set(d, name, 0, 0, "out of memory");
            return NULL;
        }
        memcpy(m->w, buf + RT_FILE_HEADER_BYTES, payload);
        if (!words_finish(m, name, d)) {
            rt_matrix_free(m);
            return NULL;
        }
        return m;
    }
    if (kind)
        *kind = RT_FILE_TEXT;
    return text_read(buf, len, name, d);
}

/* Opens path and reads its first bytes: binary when they are the magic. */
static FILE *open_peek(const char *path, unsigned char *head, size_t *got, scheme_diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_set(d, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    *got = fread(head, 1, RT_FILE_HEADER_BYTES, f);
    if (ferror(f)) {
        diag_set(d, path, 0, 0, "read error: %s", strerror(errno));
        fclose(f);
        return NULL;
    }
    return f;
}

static rt_matrix *read_text_file(const char *path, scheme_diag *d)
{
    char err[512];
    size_t len;
    char *buf = scheme_slurp(path, RT_TEXT_MAX_BYTES, &len, err, sizeof err);
    if (!buf) {
        diag_set(d, path, 0, 0, "%s (text matrices are for small sizes; use the binary format)", err);
        return NULL;
    }
    rt_matrix *m = text_read(buf, len, path, d);
    free(buf);
    return m;
}

rt_matrix *rt_matrix_read_file(const char *path, rt_file_kind *kind, scheme_diag *d)
{
    unsigned char head[RT_FILE_HEADER_BYTES];
    size_t got;
    FILE *f = open_peek(path, head, &got, d);
    if (!f)
        return NULL;
    if (got < 8 || memcmp(head, RT_FILE_MAGIC, 8) != 0) {
        fclose(f);
        if (kind)
            *kind = RT_FILE_TEXT;
        return read_text_file(path, d);
    }
    if (kind)
        *kind = RT_FILE_BINARY;
    uint64_t rows, cols, payload;
    rt_matrix *m = NULL;
    struct stat st;
    if (got < RT_FILE_HEADER_BYTES) {
        diag_set(d, path, 0, 0, "truncated header: %zu bytes, expected %u", got, RT_FILE_HEADER_BYTES);
        goto out;
    }
    if (!header_check(head, path, &rows, &cols, &payload, d))
        goto out;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        diag_set(d, path, 0, 0, "not a regular file");
        goto out;
    }
    if ((uint64_t)st.st_size != RT_FILE_HEADER_BYTES + payload) {
        diag_set(d, path, 0, 0, "the file has %llu bytes, the header (%llu x %llu) says %llu",
                 (unsigned long long)st.st_size, (unsigned long long)rows, (unsigned long long)cols,
                 (unsigned long long)(RT_FILE_HEADER_BYTES + payload));
        goto out;
    }
    m = rt_matrix_new(rows, cols);
    if (!m) {
        diag_set(d, path, 0, 0, "out of memory for %llu x %llu", (unsigned long long)rows,
                 (unsigned long long)cols);
        goto out;
    }
    if (fread(m->w, 1, payload, f) != payload) {
        diag_set(d, path, 0, 0, "short read: %s", ferror(f) ? strerror(errno) : "the file shrank");
        rt_matrix_free(m);
        m = NULL;
        goto out;
    }
    if (!words_finish(m, path, d)) {
        rt_matrix_free(m);
        m = NULL;
    }
out:
    fclose(f);
    return m;
}

bool rt_matrix_read_dims(const char *path, uint64_t *rows, uint64_t *cols, rt_file_kind *kind,
                         scheme_diag *d)
{
    unsigned char head[RT_FILE_HEADER_BYTES];
    size_t got;
    FILE *f = open_peek(path, head, &got, d);
    if (!f)
        return false;
    fclose(f);
    if (got >= 8 && memcmp(head, RT_FILE_MAGIC, 8) == 0) {
        if (kind)
            *kind = RT_FILE_BINARY;
        uint64_t payload;
        if (got < RT_FILE_HEADER_BYTES) {
            diag_set(d, path, 0, 0, "truncated header: %zu bytes, expected %u", got,
                     RT_FILE_HEADER_BYTES);
            return false;
        }
        return header_check(head, path, rows, cols, &payload, d);
    }
    if (kind)
        *kind = RT_FILE_TEXT;
    rt_matrix *m = read_text_file(path, d);
    if (!m)
        return false;
    *rows = m->rows;
    *cols = m->cols;
    rt_matrix_free(m);
    return true;
}

bool rt_matrix_write(const rt_matrix *m, rt_file_kind kind, FILE *out)
{
    if (kind == RT_FILE_TEXT) {
        char *line = malloc(m->cols + 2);
        if (!line)
            return false;
        for (uint64_t r = 0; r < m->rows; r++) {
            for (uint64_t c = 0; c < m->cols; c++)
                line[c] = rt_matrix_get(m, r, c) ? '1' : '0';
            line[m->cols] = '\n';
            if (fwrite(line, 1, m->cols + 1, out) != m->cols + 1) {
                free(line);
                return false;
            }
        }
        free(line);
        return true;
    }
    unsigned char h[RT_FILE_HEADER_BYTES];
    memset(h, 0, sizeof h);
    memcpy(h + H_MAGIC, RT_FILE_MAGIC, 8);
    put32(h + H_VERSION, RT_FILE_VERSION);
    put32(h + H_HBYTES, RT_FILE_HEADER_BYTES);
    put64(h + H_ROWS, m->rows);
    put64(h + H_COLS, m->cols);
    put32(h + H_LAYOUT, 0);
    put32(h + H_WORDBITS, 64);
    put64(h + H_STRIDE, m->stride);
    if (fwrite(h, 1, sizeof h, out) != sizeof h)
        return false;
    uint64_t n = m->rows * m->stride;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return fwrite(m->w, 8, n, out) == n;
#else
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = htole64(m->w[i]);
        if (fwrite(&v, 8, 1, out) != 1)
            return false;
    }
    return true;
#endif
}

typedef struct {
    const rt_matrix *m;
    rt_file_kind kind;
} write_ctx;

static bool write_cb(void *ctx, FILE *f)
{
    const write_ctx *w = ctx;
    return rt_matrix_write(w->m, w->kind, f);
}

bool rt_matrix_write_file(const char *path, const rt_matrix *m, rt_file_kind kind, char *err,
                          size_t errlen)
{
    write_ctx w = {m, kind};
    return scheme_write_file_atomic(path, write_cb, &w, err, errlen);
}
