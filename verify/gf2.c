/* Bit-packed column basis over GF(2) (see gf2.h). */
#include <stdlib.h>
#include <string.h>

#include "gf2.h"

static int words(int bits) { return (bits + 63) / 64; }

size_t gf2_basis_bytes(int nbits, int ncols)
{
    size_t cap = (size_t)(nbits < ncols ? nbits : ncols);
    size_t vw = (size_t)words(nbits), cw = (size_t)words(ncols);
    return (cap + 1) * (vw + cw) * 8 + cap * 2 * sizeof(int) + (size_t)nbits * sizeof(int);
}

bool gf2_basis_init(gf2_basis *b, int nbits, int ncols)
{
    memset(b, 0, sizeof *b);
    b->nbits = nbits;
    b->ncols = ncols;
    b->vw = words(nbits);
    b->cw = words(ncols);
    b->cap = nbits < ncols ? nbits : ncols;
    size_t cap = (size_t)b->cap;
    b->vec = malloc((cap ? cap : 1) * (size_t)b->vw * 8);
    b->combo = malloc((cap ? cap : 1) * (size_t)b->cw * 8);
    b->vhi = malloc((cap ? cap : 1) * sizeof(int));
    b->chi = malloc((cap ? cap : 1) * sizeof(int));
    b->lead_of = malloc(((size_t)nbits + 1) * sizeof(int));
    b->sv = calloc((size_t)b->vw + 1, 8);
    b->sc = calloc((size_t)b->cw + 1, 8);
    if (!b->vec || !b->combo || !b->vhi || !b->chi || !b->lead_of || !b->sv || !b->sc) {
        gf2_basis_free(b);
        return false;
    }
    for (int i = 0; i < nbits; i++)
        b->lead_of[i] = -1;
    return true;
}

void gf2_basis_free(gf2_basis *b)
{
    free(b->vec);
    free(b->combo);
    free(b->vhi);
    free(b->chi);
    free(b->lead_of);
    free(b->sv);
    free(b->sc);
    memset(b, 0, sizeof *b);
}

uint64_t *gf2_basis_column(gf2_basis *b)
{
    memset(b->sv, 0, (size_t)b->vw * 8);
    return b->sv;
}

static void xor_words(uint64_t *restrict dst, const uint64_t *restrict src, int from, int to)
{
    for (int w = from; w < to; w++)
        dst[w] ^= src[w];
}

static int used_words(const uint64_t *v, int n)
{
    while (n > 0 && v[n - 1] == 0)
        n--;
    return n;
}

/* Reduces v (with combination c, c_hi words in use) by lowest set bits.
 * Returns the lead bit left, or -1 when v reduced to zero. */
static int reduce(gf2_basis *b, uint64_t *v, int *v_hi, uint64_t *c, int *c_hi)
{
    int hi = *v_hi, chi = *c_hi;
    for (int w = 0; w < hi;) {
        if (!v[w]) {
            w++;
            continue;
        }
        int bit = w * 64 + __builtin_ctzll(v[w]);
        int idx = b->lead_of[bit];
        if (idx < 0) {
            *v_hi = hi;
            *c_hi = chi;
            return bit;
        }
        const uint64_t *bv = b->vec + (size_t)idx * b->vw;
        xor_words(v, bv, w, b->vhi[idx]);
        if (b->vhi[idx] > hi)
            hi = b->vhi[idx];
        xor_words(c, b->combo + (size_t)idx * b->cw, 0, b->chi[idx]);
        if (b->chi[idx] > chi)
            chi = b->chi[idx];
    }
    *v_hi = hi;
    *c_hi = chi;
    return -1;
}

bool gf2_basis_insert(gf2_basis *b, int col)
{
    uint64_t *v = b->sv, *c = b->sc;
    memset(c, 0, (size_t)b->cw * 8);
    c[col / 64] = 1ull << (col % 64);
    int v_hi = used_words(v, b->vw), c_hi = col / 64 + 1;
    int lead = reduce(b, v, &v_hi, c, &c_hi);
    if (lead < 0 || b->count >= b->cap)
        return false;
    int idx = b->count++;
    uint64_t *bv = b->vec + (size_t)idx * b->vw;
    memcpy(bv, v, (size_t)b->vw * 8);
    memcpy(b->combo + (size_t)idx * b->cw, c, (size_t)b->cw * 8);
    b->vhi[idx] = used_words(v, v_hi);
    b->chi[idx] = used_words(c, c_hi);
    b->lead_of[lead] = idx;
    return true;
}

bool gf2_basis_solve(gf2_basis *b, const uint64_t *rhs, uint64_t *d)
{
    uint64_t *v = b->sv;
    memcpy(v, rhs, (size_t)b->vw * 8);
    memset(d, 0, (size_t)b->cw * 8);
    int v_hi = used_words(v, b->vw), c_hi = 0;
    return reduce(b, v, &v_hi, d, &c_hi) < 0;
}

int gf2_basis_residue_weight(gf2_basis *b, const uint64_t *rhs)
{
    uint64_t *v = b->sv;
    memcpy(v, rhs, (size_t)b->vw * 8);
    int weight = 0;
    for (int w = 0; w < b->vw; w++)
        while (v[w]) {
            const int bit = w * 64 + __builtin_ctzll(v[w]);
            const int idx = b->lead_of[bit];
            if (idx < 0) { /* not a lead: it stays in the normal form */
                weight++;
                v[w] &= v[w] - 1;
                continue;
            }
            /* the basis vector's bits are all at or above its lead */
            xor_words(v, b->vec + (size_t)idx * b->vw, w, b->vhi[idx]);
        }
    return weight;
}
