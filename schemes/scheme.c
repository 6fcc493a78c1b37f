/* The scheme type: formats, life cycle, the standard algorithm, canonical form. */
#include "scheme.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

int scheme_factor_rows(scheme_format f, int pos)
{
    return pos == SCHEME_A ? f.n : pos == SCHEME_B ? f.m : f.p;
}

int scheme_factor_cols(scheme_format f, int pos)
{
    return pos == SCHEME_A ? f.m : pos == SCHEME_B ? f.p : f.n;
}

int scheme_factor_size(scheme_format f, int pos)
{
    return scheme_factor_rows(f, pos) * scheme_factor_cols(f, pos);
}

uint64_t scheme_factor_transpose(uint64_t w, int rows, int cols)
{
    const int nb = rows * cols;
    uint64_t out = 0;
    for (uint64_t u = nb >= 64 ? w : w & ((1ull << nb) - 1); u; u &= u - 1) {
        const int e = __builtin_ctzll(u);
        out |= 1ull << ((e % cols) * rows + e / cols);
    }
    return out;
}

void scheme_zfactor_transpose(const int8_t *w, int rows, int cols, int8_t *out)
{
    memset(out, 0, SCHEME_MAX_ENTRIES);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            out[c * rows + r] = w[r * cols + c];
}

bool scheme_format_valid(scheme_format f)
{
    return f.n >= 1 && f.m >= 1 && f.p >= 1 && f.n <= 64 && f.m <= 64 && f.p <= 64 &&
           f.n * f.m <= 64 && f.m * f.p <= 64 && f.p * f.n <= 64;
}

bool scheme_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return false;
}

bool scheme_format_parse(const char *s, scheme_format *out, char *err, size_t errlen)
{
    long v[3];
    const char *q = s;
    for (int i = 0; i < 3; i++) {
        char *end;
        if (*q < '0' || *q > '9')
            return scheme_fail(err, errlen, "format '%s': expected NxMxP, e.g. 4x4x4", s);
        errno = 0;
        v[i] = strtol(q, &end, 10);
        if (errno || v[i] < 1 || v[i] > 64)
            return scheme_fail(err, errlen, "format '%s': each dimension must be 1..64", s);
        q = end;
        if (i < 2) {
            if (*q != 'x' && *q != 'X' && *q != ',')
                return scheme_fail(err, errlen, "format '%s': expected NxMxP, e.g. 4x4x4", s);
            q++;
        }
    }
    if (*q)
        return scheme_fail(err, errlen, "format '%s': unexpected '%s' after NxMxP", s, q);
    scheme_format f = {(int)v[0], (int)v[1], (int)v[2]};
    if (!scheme_format_valid(f))
        return scheme_fail(err, errlen,
                           "format '%s': n*m, m*p and p*n must each be at most 64 "
                           "(factors are 64-bit words)", s);
    *out = f;
    return true;
}

const char *scheme_format_str(scheme_format f, char buf[32])
{
    snprintf(buf, 32, "<%d,%d,%d>", f.n, f.m, f.p);
    return buf;
}

const char *scheme_ring_name(scheme_ring r) { return r == SCHEME_RING_Z ? "Z" : "GF(2)"; }

const char *scheme_ring_key(scheme_ring r) { return r == SCHEME_RING_Z ? "z" : "f2"; }

scheme *scheme_new(scheme_format f, scheme_ring ring, int cap)
{
    scheme *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->fmt = f;
    s->ring = ring;
    if (!scheme_reserve(s, cap < 4 ? 4 : cap)) {
        scheme_free(s);
        return NULL;
    }
    return s;
}

void scheme_free(scheme *s)
{
    if (!s)
        return;
    free(s->terms);
    free(s->zterms);
    free(s);
}

bool scheme_reserve(scheme *s, int want)
{
    if (want <= s->cap)
        return true;
    if (want > SCHEME_MAX_RANK * 4)
        return false;
    int cap = s->cap ? s->cap : 4;
    while (cap < want)
        cap *= 2;
    scheme_term *t = realloc(s->terms, (size_t)cap * sizeof *t);
    if (!t)
        return false;
    s->terms = t;
    if (s->ring == SCHEME_RING_Z) {
        scheme_zterm *z = realloc(s->zterms, (size_t)cap * sizeof *z);
        if (!z)
            return false;
        s->zterms = z;
    }
    s->cap = cap;
    return true;
}

scheme *scheme_clone(const scheme *s)
{
    scheme *c = scheme_new(s->fmt, s->ring, s->rank);
    if (!c)
        return NULL;
    memcpy(c->terms, s->terms, (size_t)s->rank * sizeof *s->terms);
    if (s->ring == SCHEME_RING_Z)
        memcpy(c->zterms, s->zterms, (size_t)s->rank * sizeof *s->zterms);
    c->rank = s->rank;
    return c;
}

bool scheme_push(scheme *s, uint64_t a, uint64_t b, uint64_t c)
{
    if (!scheme_reserve(s, s->rank + 1))
        return false;
    s->terms[s->rank] = (scheme_term){{a, b, c}};
    if (s->ring == SCHEME_RING_Z) {
        scheme_zterm *z = &s->zterms[s->rank];
        memset(z, 0, sizeof *z);
        uint64_t w[3] = {a, b, c};
        for (int pos = 0; pos < 3; pos++)
            for (int e = 0; e < SCHEME_MAX_ENTRIES; e++)
                z->z[pos][e] = (int8_t)((w[pos] >> e) & 1);
    }
    s->rank++;
    return true;
}

bool scheme_push_z(scheme *s, const scheme_zterm *t)
{
    if (s->ring != SCHEME_RING_Z || !scheme_reserve(s, s->rank + 1))
        return false;
    scheme_term w = {{0, 0, 0}};
    for (int pos = 0; pos < 3; pos++)
        for (int e = 0; e < SCHEME_MAX_ENTRIES; e++)
            if (t->z[pos][e] & 1)
                w.f[pos] |= 1ull << e;
    s->terms[s->rank] = w;
    s->zterms[s->rank] = *t;
    s->rank++;
    return true;
}

void scheme_remove(scheme *s, int r)
{
    s->rank--;
    s->terms[r] = s->terms[s->rank];
    if (s->ring == SCHEME_RING_Z)
        s->zterms[r] = s->zterms[s->rank];
}

scheme *scheme_to_f2(const scheme *s)
{
    scheme *c = scheme_new(s->fmt, SCHEME_RING_F2, s->rank);
    if (!c)
        return NULL;
    for (int r = 0; r < s->rank; r++) {
        const scheme_term *t = &s->terms[r];
        if (t->f[0] && t->f[1] && t->f[2])
            scheme_push(c, t->f[0], t->f[1], t->f[2]);
    }
    return c;
}

scheme *scheme_standard(scheme_format f)
{
    if (!scheme_format_valid(f))
        return NULL;
    scheme *s = scheme_new(f, SCHEME_RING_F2, f.n * f.m * f.p);
    if (!s)
        return NULL;
    for (int i = 0; i < f.n; i++)
        for (int j = 0; j < f.m; j++)
            for (int k = 0; k < f.p; k++)
                scheme_push(s, 1ull << (i * f.m + j), 1ull << (j * f.p + k), 1ull << (k * f.n + i));
    return s;
}

/* ---- canonical form ---- */

static int term_cmp(const scheme_term *x, const scheme_term *y)
{
    for (int pos = 0; pos < 3; pos++)
        if (x->f[pos] != y->f[pos])
            return x->f[pos] < y->f[pos] ? -1 : 1;
    return 0;
}

typedef struct {
    scheme_term t;
    scheme_zterm z;
} zpair;

static int cmp_term_qsort(const void *a, const void *b) { return term_cmp(a, b); }

static int cmp_zpair_qsort(const void *a, const void *b)
{
    const zpair *x = a, *y = b;
    int c = term_cmp(&x->t, &y->t);
    return c ? c : memcmp(&x->z, &y->z, sizeof x->z);
}

void scheme_canonicalize(scheme *s)
{
    if (s->ring == SCHEME_RING_F2) {
        qsort(s->terms, (size_t)s->rank, sizeof *s->terms, cmp_term_qsort);
        return;
    }
    zpair *tmp = malloc((size_t)(s->rank ? s->rank : 1) * sizeof *tmp);
    if (!tmp) { /* fall back to an in-place insertion sort: correct, only slower */
        for (int i = 1; i < s->rank; i++)
            for (int j = i; j > 0; j--) {
                zpair x = {s->terms[j - 1], s->zterms[j - 1]}, y = {s->terms[j], s->zterms[j]};
                if (cmp_zpair_qsort(&x, &y) <= 0)
                    break;
                s->terms[j - 1] = y.t; s->zterms[j - 1] = y.z;
                s->terms[j] = x.t; s->zterms[j] = x.z;
            }
        return;
    }
    for (int r = 0; r < s->rank; r++)
        tmp[r] = (zpair){s->terms[r], s->zterms[r]};
    qsort(tmp, (size_t)s->rank, sizeof *tmp, cmp_zpair_qsort);
    for (int r = 0; r < s->rank; r++) {
        s->terms[r] = tmp[r].t;
        s->zterms[r] = tmp[r].z;
    }
    free(tmp);
}

static uint8_t *put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

uint8_t *scheme_canonical_bytes(scheme *s, size_t *len)
{
    scheme_canonicalize(s);
    size_t per = 24 + (s->ring == SCHEME_RING_Z ? 3 * SCHEME_MAX_ENTRIES : 0);
    size_t n = 8 + (size_t)s->rank * per;
    uint8_t *buf = malloc(n), *p = buf;
    if (!buf)
        return NULL;
    *p++ = (uint8_t)s->fmt.n;
    *p++ = (uint8_t)s->fmt.m;
    *p++ = (uint8_t)s->fmt.p;
    *p++ = (uint8_t)s->ring;
    *p++ = (uint8_t)(s->rank >> 24);
    *p++ = (uint8_t)(s->rank >> 16);
    *p++ = (uint8_t)(s->rank >> 8);
    *p++ = (uint8_t)s->rank;
    for (int r = 0; r < s->rank; r++) {
        for (int pos = 0; pos < 3; pos++)
            p = put_be64(p, s->terms[r].f[pos]);
        if (s->ring == SCHEME_RING_Z) {
            memcpy(p, s->zterms[r].z, 3 * SCHEME_MAX_ENTRIES);
            p += 3 * SCHEME_MAX_ENTRIES;
        }
    }
    *len = n;
    return buf;
}

uint64_t scheme_hash(scheme *s)
{
    size_t len;
    uint8_t *b = scheme_canonical_bytes(s, &len);
    if (!b)
        return 0;
    uint64_t h = XXH3_64bits(b, len);
    free(b);
    return h;
}

const char *scheme_hash_hex(uint64_t h, char buf[17])
{
    snprintf(buf, 17, "%016llx", (unsigned long long)h);
    return buf;
}

bool scheme_equal(const scheme *x, const scheme *y)
{
    if (x->fmt.n != y->fmt.n || x->fmt.m != y->fmt.m || x->fmt.p != y->fmt.p ||
        x->ring != y->ring || x->rank != y->rank)
        return false;
    scheme *a = scheme_clone(x), *b = scheme_clone(y);
    bool eq = false;
    if (a && b) {
        size_t la, lb;
        uint8_t *ba = scheme_canonical_bytes(a, &la), *bb = scheme_canonical_bytes(b, &lb);
        eq = ba && bb && la == lb && memcmp(ba, bb, la) == 0;
        free(ba);
        free(bb);
    }
    scheme_free(a);
    scheme_free(b);
    return eq;
}

/* ---- random numbers ---- */

uint64_t scheme_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void scheme_rng_seed(scheme_rng *r, uint64_t seed)
{
    uint64_t st = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = scheme_splitmix64(&st);
}
