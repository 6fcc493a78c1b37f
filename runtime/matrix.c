/* Bit matrices: allocation, random fill, comparison, the reference products. */
#include <stdlib.h>
#include <string.h>

#include "layout.h"

rt_matrix *rt_matrix_new(uint64_t rows, uint64_t cols)
{
    if (rows < 1 || cols < 1 || rows > RT_MAX_DIM || cols > RT_MAX_DIM)
        return NULL;
    uint64_t stride = (cols + 63) / 64;
    if ((double)rows * (double)stride * 8.0 > (double)RT_MAX_MATRIX_BYTES)
        return NULL;
    rt_matrix *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->w = rt_buf_alloc(rows * stride, true);
    if (!m->w) {
        free(m);
        return NULL;
    }
    m->rows = rows;
    m->cols = cols;
    m->stride = stride;
    return m;
}

rt_matrix *rt_matrix_new_large(uint64_t rows, uint64_t cols, bool zero)
{
    if (rows < 1 || cols < 1 || rows > RT_MAX_DIM || cols > RT_MAX_DIM)
        return NULL;
    uint64_t stride = (cols + 63) / 64;
    if ((double)rows * (double)stride * 8.0 > 0x1p62)
        return NULL;
    rt_matrix *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    if (!(m->w = rt_buf_alloc(rows * stride, zero))) {
        free(m);
        return NULL;
    }
    m->rows = rows, m->cols = cols, m->stride = stride;
    return m;
}

void rt_matrix_free(rt_matrix *m)
{
    if (!m)
        return;
    free(m->w);
    free(m);
}

void rt_matrix_mask_tail(rt_matrix *m)
{
    if (m->cols % 64 == 0)
        return;
    uint64_t mask = (1ull << (m->cols % 64)) - 1;
    for (uint64_t r = 0; r < m->rows; r++)
        m->w[r * m->stride + m->stride - 1] &= mask;
}

void rt_matrix_random(rt_matrix *m, scheme_rng *rng, double density)
{
    uint64_t n = m->rows * m->stride;
    if (density >= 0.5 - 1e-12 && density <= 0.5 + 1e-12) {
        for (uint64_t i = 0; i < n; i++)
            m->w[i] = scheme_rng_next(rng);
    } else {
        /* One comparison per bit: exact for any density, fine for test sizes. */
        double scaled = density * 18446744073709551616.0;
        uint64_t threshold = density <= 0 ? 0
                             : scaled >= 18446744073709551615.0 ? UINT64_MAX
                                                                : (uint64_t)scaled;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t w = 0;
            for (int b = 0; b < 64; b++)
                if (density >= 1 || scheme_rng_next(rng) < threshold)
                    w |= 1ull << b;
            m->w[i] = w;
        }
    }
    rt_matrix_mask_tail(m);
}

uint64_t rt_matrix_popcount(const rt_matrix *m)
{
    uint64_t c = 0, n = m->rows * m->stride;
    for (uint64_t i = 0; i < n; i++)
        c += (uint64_t)__builtin_popcountll(m->w[i]);
    return c;
}

void rt_matrix_compare(const rt_matrix *x, const rt_matrix *y, rt_diff *d)
{
    memset(d, 0, sizeof *d);
    d->same_dims = x->rows == y->rows && x->cols == y->cols;
    if (!d->same_dims)
        return;
    bool first = true;
    for (uint64_t r = 0; r < x->rows; r++)
        for (uint64_t k = 0; k < x->stride; k++) {
            uint64_t diff = x->w[r * x->stride + k] ^ y->w[r * y->stride + k];
            if (!diff)
                continue;
            if (first) {
                d->first_row = r;
                d->first_col = k * 64 + (uint64_t)__builtin_ctzll(diff);
                first = false;
            }
            d->count += (uint64_t)__builtin_popcountll(diff);
        }
    d->equal = d->count == 0;
}

static bool dims_fit(const rt_matrix *A, const rt_matrix *B, const rt_matrix *C)
{
    return A->cols == B->rows && C->rows == A->rows && C->cols == B->cols;
}

bool rt_mul_naive(const rt_matrix *A, const rt_matrix *B, rt_matrix *C, bool boolean)
{
    if (!dims_fit(A, B, C))
        return false;
    memset(C->w, 0, C->rows * C->stride * 8);
    for (uint64_t i = 0; i < A->rows; i++) {
        uint64_t *c = &C->w[i * C->stride];
        for (uint64_t k = 0; k < A->cols; k++) {
            if (!rt_matrix_get(A, i, k))
                continue;
            const uint64_t *b = &B->w[k * B->stride];
            if (boolean)
                for (uint64_t w = 0; w < C->stride; w++)
                    c[w] |= b[w];
            else
                for (uint64_t w = 0; w < C->stride; w++)
                    c[w] ^= b[w];
        }
    }
    return true;
}

bool rt_mul_bitwise(const rt_matrix *A, const rt_matrix *B, rt_matrix *C, bool boolean)
{
    if (!dims_fit(A, B, C))
        return false;
    for (uint64_t i = 0; i < A->rows; i++)
        for (uint64_t j = 0; j < B->cols; j++) {
            unsigned acc = 0;
            for (uint64_t k = 0; k < A->cols; k++) {
                unsigned prod = rt_matrix_get(A, i, k) & rt_matrix_get(B, k, j);
                acc = boolean ? (acc | prod) : (acc ^ prod);
            }
            rt_matrix_set(C, i, j, acc);
        }
    return true;
}
