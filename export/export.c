/* export: the format table, names, and the helpers the writers share. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "export.h"

static const char *const format_names[EXPORT_FORMAT_COUNT] = {
    [EXPORT_EXP] = "exp", [EXPORT_TXT] = "txt", [EXPORT_M] = "m",
    [EXPORT_NATIVE] = "native", [EXPORT_JSON] = "json", [EXPORT_BB] = "bb",
    [EXPORT_TEX] = "tex", [EXPORT_MD] = "md", [EXPORT_C] = "c",
};

bool export_format_parse(const char *name, export_format *out)
{
    for (int f = 0; f < EXPORT_FORMAT_COUNT; f++)
        if (!strcmp(name, format_names[f])) {
            *out = (export_format)f;
            return true;
        }
    return false;
}

const char *export_format_name(export_format f)
{
    return (unsigned)f < EXPORT_FORMAT_COUNT ? format_names[f] : "?";
}

const char *export_default_name(const scheme *s, char buf[64])
{
    snprintf(buf, 64, "fg_%dx%dx%d_r%d", s->fmt.n, s->fmt.m, s->fmt.p, s->rank);
    return buf;
}

const char *export_hash_hex(const scheme *s, char hex[17])
{
    scheme *canon = scheme_clone(s);
    if (!canon)
        return NULL;
    scheme_hash_hex(scheme_hash(canon), hex);
    scheme_free(canon);
    return hex;
}

bool export_name_valid(const char *name)
{
    static const char *const keywords[] = {
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
        "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
        "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
        "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
        "_Complex", "_Imaginary", "_Alignas", "_Alignof", "_Atomic", "_Generic",
        "_Noreturn", "_Static_assert", "_Thread_local", "main"};
    size_t n = strlen(name);
    if (n == 0 || n > 63 || !(isalpha((unsigned char)name[0]) || name[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)name[i]) || name[i] == '_'))
            return false;
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
        if (!strcmp(name, keywords[k]))
            return false;
    return true;
}

int export_coef(const scheme *s, int r, int pos, int e)
{
    if (s->ring == SCHEME_RING_Z)
        return s->zterms[r].z[pos][e];
    return (int)((s->terms[r].f[pos] >> e) & 1);
}

/* The two printed indices (1-based) of entry e at position pos. */
static void entry_indices(scheme_format f, int pos, int e, bool transposed_c, int *r1, int *r2)
{
    int cols = scheme_factor_cols(f, pos);
    int row = e / cols, col = e % cols;
    if (pos == SCHEME_C && !transposed_c) {
        /* c is p x n, entry (k, i) feeds the product entry (i, k) */
        *r1 = col + 1;
        *r2 = row + 1;
    } else {
        *r1 = row + 1;
        *r2 = col + 1;
    }
}

typedef struct sbuf {
    char *p;
    size_t len, used;
    bool ok;
} sbuf;

static void sb_put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_put(sbuf *b, const char *fmt, ...)
{
    if (!b->ok)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->p + b->used, b->len - b->used, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= b->len - b->used) {
        b->ok = false;
        return;
    }
    b->used += (size_t)w;
}

bool export_factor_str(const scheme *s, int r, int pos, int style, bool transposed_c,
                       char *buf, size_t len)
{
    if (len == 0)
        return false;
    sbuf b = {buf, len, 0, true};
    buf[0] = 0;
    scheme_format f = s->fmt;
    bool wide = f.n > 9 || f.m > 9 || f.p > 9;
    int size = scheme_factor_size(f, pos);
    /* Entries in the order of their printed indices. */
    int order[SCHEME_MAX_ENTRIES], cnt = 0;
    for (int e = 0; e < size; e++)
        if (export_coef(s, r, pos, e))
            order[cnt++] = e;
    for (int x = 1; x < cnt; x++)
        for (int y = x; y > 0; y--) {
            int i1, i2, j1, j2;
            entry_indices(f, pos, order[y - 1], transposed_c, &i1, &i2);
            entry_indices(f, pos, order[y], transposed_c, &j1, &j2);
            if (i1 < j1 || (i1 == j1 && i2 < j2))
                break;
            int t = order[y - 1];
            order[y - 1] = order[y];
            order[y] = t;
        }
    if (cnt == 0) {
        sb_put(&b, "0");
        return b.ok;
    }
    char letter = "abc"[pos];
    for (int x = 0; x < cnt; x++) {
        int c = export_coef(s, r, pos, order[x]);
        int i1, i2;
        entry_indices(f, pos, order[x], transposed_c, &i1, &i2);
        if (x == 0)
            sb_put(&b, c < 0 ? "-" : "");
        else
            sb_put(&b, c < 0 ? " - " : " + ");
        int mag = c < 0 ? -c : c;
        if (mag != 1)
            sb_put(&b, style == 1 ? "%d" : "%d*", mag);
        if (style == 1)
            sb_put(&b, wide ? "%c_{%d,%d}" : "%c_{%d%d}", letter, i1, i2);
        else
            sb_put(&b, wide ? "%c%d,%d" : "%c%d%d", letter, i1, i2);
    }
    return b.ok;
}

static long scheme_nonzeros(const scheme *s)
{
    long nnz = 0;
    for (int r = 0; r < s->rank; r++)
        for (int pos = 0; pos < 3; pos++)
            for (int e = 0; e < scheme_factor_size(s->fmt, pos); e++)
                nnz += export_coef(s, r, pos, e) != 0;
    return nnz;
}

const char *export_bb_filename(const scheme *s, const char *name, char *buf, size_t len)
{
    /* Their files are named like grey322-11-50: algorithm, <m,k,n> one digit
     * each, rank, nonzeros of U, V and W together (fast-matmul codegen/). */
    snprintf(buf, len, "%s%d%d%d-%d-%ld", name ? name : "flipgraph", s->fmt.n, s->fmt.m,
             s->fmt.p, s->rank, scheme_nonzeros(s));
    return buf;
}

bool export_write(const scheme *s, export_format f, const export_info *info, FILE *out)
{
    bool wide = s->fmt.n > 9 || s->fmt.m > 9 || s->fmt.p > 9;
    switch (f) {
    case EXPORT_EXP:
        if (wide) {
            errno = EINVAL;
            return false;
        }
        return scheme_write_exp(s, out);
    case EXPORT_TXT:
        if (wide) {
            errno = EINVAL;
            return false;
        }
        return export_write_txt(s, out);
    case EXPORT_M: return export_write_m(s, out);
    case EXPORT_NATIVE: return scheme_write_native(s, out);
    case EXPORT_JSON: return export_write_json(s, info, out);
    case EXPORT_BB: return export_write_bb(s, info, out);
    case EXPORT_TEX: return export_write_tex(s, info, out);
    case EXPORT_MD: return export_write_md(s, info, out);
    case EXPORT_C: return export_write_c(s, info, out);
    default:
        errno = EINVAL;
        return false;
    }
}
