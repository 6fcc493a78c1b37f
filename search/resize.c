/* Moves between formats: projection and extension (docs/resize.md).
 *
 * Kauers, Wood, "Exploring the meta flip graph for matrix multiplication"
 * (2025) join the flip graphs of all formats into one "meta flip graph" with
 * two more kinds of edges: a projection goes from <n,m,p> to a format one
 * smaller in one dimension (delete one index from every factor: the Brent
 * equations of the smaller format are those of the larger one whose indices
 * avoid it), an extension to a format one larger (the new index gets the
 * standard terms of its slice, a product of format <1,m,p>, <n,1,p> or
 * <n,m,1>, patched beside the old scheme).  A good scheme of a neighbouring
 * format, projected or extended and then reduced, is a start of low rank for
 * a walk in the new format: often far below the standard algorithm, at times
 * at or near the record.  The walk itself (flips, reductions, plus
 * transitions) is that of Kauers, Moosbauer 2023 and Arai, Ichikawa,
 * Hukushima, "Adaptive flip graph algorithm for matrix multiplication" (2024),
 * whose reductions (search_reduce_all) we apply after each move.
 *
 * Dimensions and factors: factor pos (a = 0, b = 1, c = 2) has rows of
 * dimension pos and columns of dimension (pos+1)%3 (a: n x m, b: m x p,
 * c: p x n).  So dimension d is the rows of factor d, the columns of factor
 * (d+2)%3, and does not occur in factor (d+1)%3. */
#include "search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../verify/verify.h"

/* The gen_max of the reductions after each move (sets of up to 5 terms
 * sharing a factor: the generalized flip's limit, the Flip-graph post). */
#define RESIZE_GEN_MAX 5

static void fmt_dims(scheme_format f, int d[3])
{
    d[0] = f.n;
    d[1] = f.m;
    d[2] = f.p;
}

static scheme_format dims_fmt(const int d[3]) { return (scheme_format){d[0], d[1], d[2]}; }

/* The low k bits (k in 0..64). */
static inline uint64_t low_mask(int k) { return k >= 64 ? ~0ull : (1ull << k) - 1; }

static inline uint64_t shr(uint64_t w, int k) { return k >= 64 ? 0 : w >> k; }

/* Row r0 of a rows x cols factor deleted: the rows below it move up one. */
static uint64_t delete_row(uint64_t w, int rows, int cols, int r0)
{
    w &= low_mask(rows * cols);
    uint64_t below = w & low_mask(r0 * cols);
    uint64_t above = shr(w, (r0 + 1) * cols);
    return below | (above << (r0 * cols));
}

/* Column c0 of a rows x cols factor deleted: every row gets cols - 1 bits. */
static uint64_t delete_col(uint64_t w, int rows, int cols, int c0)
{
    uint64_t out = 0;
    for (int r = 0; r < rows; r++) {
        uint64_t row = shr(w, r * cols) & low_mask(cols);
        uint64_t kept = (row & low_mask(c0)) | (shr(row, c0 + 1) << c0);
        out |= kept << (r * (cols - 1));
    }
    return out;
}

/* A zero column appended to a rows x cols factor (cols + 1 bits a row). */
static uint64_t append_col(uint64_t w, int rows, int cols)
{
    uint64_t out = 0;
    for (int r = 0; r < rows; r++)
        out |= (shr(w, r * cols) & low_mask(cols)) << (r * (cols + 1));
    return out;
}

/* The same re-layouts over Z: a factor's coefficients (scheme_zterm) sit at
 * entry r*cols + c as its bits do, so they move as the bits move.  out is
 * written in full (entries past the new size zero). */
static void zdelete_row(const int8_t *w, int rows, int cols, int r0, int8_t *out)
{
    int k = 0;
    memset(out, 0, SCHEME_MAX_ENTRIES);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols && r != r0; c++)
            out[k++] = w[r * cols + c];
}

static void zdelete_col(const int8_t *w, int rows, int cols, int c0, int8_t *out)
{
    int k = 0;
    memset(out, 0, SCHEME_MAX_ENTRIES);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            if (c != c0)
                out[k++] = w[r * cols + c];
}

static void zappend_col(const int8_t *w, int rows, int cols, int8_t *out)
{
    memset(out, 0, SCHEME_MAX_ENTRIES);
    for (int r = 0; r < rows; r++)
        memcpy(out + r * (cols + 1), w + r * cols, (size_t)cols);
}

static bool zzero(const int8_t *w)
{
    for (int e = 0; e < SCHEME_MAX_ENTRIES; e++)
        if (w[e])
            return false;
    return true;
}

static bool ring_ok(const scheme *s) { return s->ring == SCHEME_RING_F2 || s->ring == SCHEME_RING_Z; }

scheme *search_project(const scheme *s, int dim, int index)
{
    if (!s || !ring_ok(s) || dim < 0 || dim > 2)
        return NULL;
    int d[3], nd[3];
    fmt_dims(s->fmt, d);
    if (d[dim] <= 1 || index < 0 || index >= d[dim])
        return NULL;
    memcpy(nd, d, sizeof nd);
    nd[dim]--;
    int rows_pos = dim, cols_pos = (dim + 2) % 3;
    scheme *r = scheme_new(dims_fmt(nd), s->ring, s->rank);
    if (!r)
        return NULL;
    for (int t = 0; t < s->rank; t++) {
        if (s->ring == SCHEME_RING_Z) {
            const scheme_zterm *x = &s->zterms[t];
            scheme_zterm u;
            const int other = (dim + 1) % 3; /* the factor without this dimension */
            memcpy(u.z[other], x->z[other], sizeof u.z[other]);
            zdelete_row(x->z[rows_pos], d[rows_pos], d[(rows_pos + 1) % 3], index, u.z[rows_pos]);
            zdelete_col(x->z[cols_pos], d[cols_pos], d[(cols_pos + 1) % 3], index, u.z[cols_pos]);
            if (zzero(u.z[0]) || zzero(u.z[1]) || zzero(u.z[2]))
                continue;
            if (!scheme_push_z(r, &u)) {
                scheme_free(r);
                return NULL;
            }
            continue;
        }
        scheme_term u = s->terms[t];
        u.f[rows_pos] = delete_row(u.f[rows_pos], d[rows_pos], d[(rows_pos + 1) % 3], index);
        u.f[cols_pos] = delete_col(u.f[cols_pos], d[cols_pos], d[(cols_pos + 1) % 3], index);
        if (!u.f[0] || !u.f[1] || !u.f[2])
            continue; /* it touched only the deleted slice */
        if (!scheme_push(r, u.f[0], u.f[1], u.f[2])) {
            scheme_free(r);
            return NULL;
        }
    }
    return r;
}

scheme *search_extend(const scheme *s, int dim)
{
    if (!s || !ring_ok(s) || dim < 0 || dim > 2)
        return NULL;
    int d[3], nd[3];
    fmt_dims(s->fmt, d);
    memcpy(nd, d, sizeof nd);
    nd[dim]++;
    if (!scheme_format_valid(s->fmt) || !scheme_format_valid(dims_fmt(nd)))
        return NULL;
    int e1 = (dim + 1) % 3, e2 = (dim + 2) % 3;
    scheme *r = scheme_new(dims_fmt(nd), s->ring, s->rank + d[e1] * d[e2]);
    if (!r)
        return NULL;
    /* The old terms: a row appended at the end of factor dim leaves every bit
     * where it was; a column appended to factor e2 moves its rows apart. */
    for (int t = 0; t < s->rank; t++) {
        if (s->ring == SCHEME_RING_Z) {
            scheme_zterm u = s->zterms[t];
            zappend_col(s->zterms[t].z[e2], d[e2], d[dim], u.z[e2]);
            if (!scheme_push_z(r, &u)) {
                scheme_free(r);
                return NULL;
            }
            continue;
        }
        scheme_term u = s->terms[t];
        u.f[dim] &= low_mask(d[dim] * d[e1]);
        u.f[e1] &= low_mask(d[e1] * d[e2]);
        u.f[e2] = append_col(u.f[e2], d[e2], d[dim]);
        if (!scheme_push(r, u.f[0], u.f[1], u.f[2])) {
            scheme_free(r);
            return NULL;
        }
    }
    /* The new slice: a_ij b_jk c_ki with the index of dimension dim at its new
     * value d[dim], the other two free (idx[0] = i, idx[1] = j, idx[2] = k;
     * factor pos has row idx[pos] and column idx[(pos+1)%3]). */
    int idx[3];
    idx[dim] = d[dim];
    for (idx[e1] = 0; idx[e1] < d[e1]; idx[e1]++)
        for (idx[e2] = 0; idx[e2] < d[e2]; idx[e2]++) {
            uint64_t w[3];
            for (int pos = 0; pos < 3; pos++)
                w[pos] = 1ull << (idx[pos] * nd[(pos + 1) % 3] + idx[(pos + 1) % 3]);
            if (!scheme_push(r, w[0], w[1], w[2])) {
                scheme_free(r);
                return NULL;
            }
        }
    return r;
}

scheme_format search_product_format(scheme_format f1, scheme_format f2)
{
    return (scheme_format){f1.n * f2.n, f1.m * f2.m, f1.p * f2.p};
}

/* The Kronecker product of one factor of each term: entry (r1, c1) of the
 * first and (r2, c2) of the second give entry (r1*rows2 + r2, c1*cols2 + c2),
 * so that index i of the product is i1*n2 + i2 in every factor alike. */
static uint64_t kron_bits(uint64_t x, int cols1, uint64_t y, int rows2, int cols2)
{
    const int cols = cols1 * cols2;
    uint64_t out = 0;
    for (uint64_t u = x; u; u &= u - 1) {
        int e1 = __builtin_ctzll(u), r1 = e1 / cols1, c1 = e1 % cols1;
        for (uint64_t v = y; v; v &= v - 1) {
            int e2 = __builtin_ctzll(v), r2 = e2 / cols2, c2 = e2 % cols2;
            out |= 1ull << ((r1 * rows2 + r2) * cols + c1 * cols2 + c2);
        }
    }
    return out;
}

scheme *search_product(const scheme *s1, const scheme *s2)
{
    if (!s1 || !s2)
        return NULL;
    scheme_format f = search_product_format(s1->fmt, s2->fmt);
    if (!scheme_format_valid(s1->fmt) || !scheme_format_valid(s2->fmt) || !scheme_format_valid(f))
        return NULL;
    if ((long)s1->rank * s2->rank > SCHEME_MAX_RANK)
        return NULL;
    const bool z = s1->ring == SCHEME_RING_Z && s2->ring == SCHEME_RING_Z;
    if (!z && (s1->ring != SCHEME_RING_F2 || s2->ring != SCHEME_RING_F2)) {
        scheme *a = scheme_to_f2(s1), *b = scheme_to_f2(s2), *r = a && b ? search_product(a, b) : NULL;
        scheme_free(a);
        scheme_free(b);
        return r;
    }
    int d1[3], d2[3];
    fmt_dims(s1->fmt, d1);
    fmt_dims(s2->fmt, d2);
    if (z && search_z_max_coef(s1) * search_z_max_coef(s2) > 127)
        return NULL; /* every coefficient product must fit the int8 of a zterm */
    scheme *r = scheme_new(f, z ? SCHEME_RING_Z : SCHEME_RING_F2, s1->rank * s2->rank);
    if (!r)
        return NULL;
    for (int t1 = 0; t1 < s1->rank; t1++)
        for (int t2 = 0; t2 < s2->rank; t2++) {
            bool ok;
            if (z) {
                scheme_zterm u;
                memset(&u, 0, sizeof u);
                for (int pos = 0; pos < 3; pos++) {
                    const int r1n = d1[pos], c1n = d1[(pos + 1) % 3];
                    const int r2n = d2[pos], c2n = d2[(pos + 1) % 3], cols = c1n * c2n;
                    for (int e1 = 0; e1 < r1n * c1n; e1++) {
                        const int x = s1->zterms[t1].z[pos][e1];
                        if (!x)
                            continue;
                        for (int e2 = 0; e2 < r2n * c2n; e2++) {
                            const int y = s2->zterms[t2].z[pos][e2];
                            if (y)
                                u.z[pos][((e1 / c1n) * r2n + e2 / c2n) * cols + (e1 % c1n) * c2n + e2 % c2n] =
                                    (int8_t)(x * y);
                        }
                    }
                }
                ok = scheme_push_z(r, &u);
            } else {
                uint64_t w[3];
                for (int pos = 0; pos < 3; pos++)
                    w[pos] = kron_bits(s1->terms[t1].f[pos], d1[(pos + 1) % 3], s2->terms[t2].f[pos], d2[pos],
                                       d2[(pos + 1) % 3]);
                ok = scheme_push(r, w[0], w[1], w[2]);
            }
            if (!ok) {
                scheme_free(r);
                return NULL;
            }
        }
    return r;
}

/* Entry (r, c) of a factor with `cols` columns moved to (r + roff, c + coff)
 * of one with `ncols` columns. */
static uint64_t place_bits(uint64_t w, int cols, int ncols, int roff, int coff)
{
    uint64_t out = 0;
    for (uint64_t u = w; u; u &= u - 1) {
        const int e = __builtin_ctzll(u);
        out |= 1ull << ((e / cols + roff) * ncols + e % cols + coff);
    }
    return out;
}

static void zplace(const int8_t *w, int rows, int cols, int ncols, int roff, int coff, int8_t *out)
{
    memset(out, 0, SCHEME_MAX_ENTRIES);
    for (int e = 0; e < rows * cols; e++)
        out[(e / cols + roff) * ncols + e % cols + coff] = w[e];
}

scheme *search_sum(const scheme *s1, const scheme *s2, int dim)
{
    if (!s1 || !s2 || dim < 0 || dim > 2 || !ring_ok(s1) || !ring_ok(s2))
        return NULL;
    int d1[3], d2[3], nd[3];
    fmt_dims(s1->fmt, d1);
    fmt_dims(s2->fmt, d2);
    memcpy(nd, d1, sizeof nd);
    nd[dim] = d1[dim] + d2[dim];
    for (int k = 0; k < 3; k++)
        if (k != dim && d1[k] != d2[k])
            return NULL;
    if (!scheme_format_valid(s1->fmt) || !scheme_format_valid(s2->fmt) || !scheme_format_valid(dims_fmt(nd)) ||
        s1->rank + s2->rank > SCHEME_MAX_RANK)
        return NULL;
    const bool z = s1->ring == SCHEME_RING_Z && s2->ring == SCHEME_RING_Z;
    scheme *r = scheme_new(dims_fmt(nd), z ? SCHEME_RING_Z : SCHEME_RING_F2, s1->rank + s2->rank);
    if (!r)
        return NULL;
    /* factor pos has its rows along dimension pos and its columns along
     * (pos+1)%3: the second scheme's index of dimension dim starts at d1[dim] */
    for (int which = 0; which < 2; which++) {
        const scheme *s = which ? s2 : s1;
        const int *d = which ? d2 : d1;
        for (int t = 0; t < s->rank; t++) {
            bool ok;
            if (z) {
                scheme_zterm u;
                for (int pos = 0; pos < 3; pos++) {
                    const int cpos = (pos + 1) % 3;
                    zplace(s->zterms[t].z[pos], d[pos], d[cpos], nd[cpos], which && pos == dim ? d1[dim] : 0,
                           which && cpos == dim ? d1[dim] : 0, u.z[pos]);
                }
                ok = scheme_push_z(r, &u);
            } else {
                uint64_t w[3];
                for (int pos = 0; pos < 3; pos++) {
                    const int cpos = (pos + 1) % 3;
                    w[pos] = place_bits(s->terms[t].f[pos] & low_mask(d[pos] * d[cpos]), d[cpos], nd[cpos],
                                        which && pos == dim ? d1[dim] : 0, which && cpos == dim ? d1[dim] : 0);
                }
                ok = scheme_push(r, w[0], w[1], w[2]);
            }
            if (!ok) {
                scheme_free(r);
                return NULL;
            }
        }
    }
    return r;
}

/* The bound of the moves over Z: the scheme's own largest coefficient, at
 * least 1, so that a move never raises it. */
static int coef_bound(const scheme *s)
{
    const int m = search_z_max_coef(s);
    return m > 1 ? m : 1;
}

/* The reductions after a move: over GF(2) search_reduce_all (gen_max 5), over
 * Z the pair reductions within coef_bound; then, where `eliminate`, the
 * eliminations by a flattening (over Z within coef_bound too), which also
 * catch dependent sets whose terms share no factor (out of memory they stop
 * early and the scheme is still valid). */
static void reduce(scheme *s, bool eliminate)
{
    if (s->ring == SCHEME_RING_Z) {
        search_z_reduce_all(s, coef_bound(s));
        if (eliminate)
            (void)search_z_reduce_flattening(s, coef_bound(s));
    } else {
        search_reduce_all(s->terms, &s->rank, RESIZE_GEN_MAX);
        if (eliminate)
            (void)search_reduce_flattening(s->fmt, s->terms, &s->rank);
    }
}

/* ---- projection after a change of basis ----
 *
 * The tensor of <n,m,p>, sum a_ij b_jk c_ki, is kept by a -> P a, c -> c P^-1
 * for any invertible P on dimension 0 (and likewise on the others: dimension
 * d is the rows of factor d and the columns of factor (d+2)%3).  Deleting the
 * last index after such a change drops every term whose factor d is u v^T and
 * every term whose factor (d+2)%3 is w z^T, where u = P^-1 e_last and z^T =
 * e_last^T P (so z.u = 1); deleting index i without one is the case u = z =
 * e_i.  A scheme found by a walk is rarely laid out so that its rank-one
 * factors share a coordinate row, so the plain projection drops few terms
 * where a change of basis can drop many: that is the whole point of choosing
 * (u, z) over all 2^d - 1 vectors u and the 2^(d-1) z with z.u = 1. */

/* Rank-one factors: w = u v^T (rows x cols) gives its rows u as a mask (bit r:
 * row r is v) and returns v; 0 (and *u = 0) when w is not of rank one. */
static uint64_t rank1(uint64_t w, int rows, int cols, unsigned *u)
{
    uint64_t v = 0;
    *u = 0;
    for (int r = 0; r < rows; r++) {
        uint64_t row = shr(w, r * cols) & low_mask(cols);
        if (!row)
            continue;
        if (!v)
            v = row;
        else if (row != v)
            return *u = 0, 0;
        *u |= 1u << r;
    }
    return v;
}

static int parity(unsigned x) { return __builtin_parity(x); }

/* rows x cols factor times the d x d matrix M from the left (dim = rows). */
static uint64_t mul_left(uint64_t w, int rows, int cols, const unsigned *M)
{
    uint64_t out = 0;
    for (int r = 0; r < rows; r++) {
        uint64_t row = 0;
        for (int k = 0; k < rows; k++)
            if (M[r] >> k & 1)
                row ^= shr(w, k * cols) & low_mask(cols);
        out |= row << (r * cols);
    }
    return out;
}

/* rows x cols factor times M (cols x cols) from the right: row vector x M. */
static uint64_t mul_right(uint64_t w, int rows, int cols, const unsigned *M)
{
    uint64_t out = 0;
    for (int r = 0; r < rows; r++) {
        unsigned x = (unsigned)(shr(w, r * cols) & low_mask(cols)), y = 0;
        for (int k = 0; k < cols; k++)
            if (x >> k & 1)
                y ^= M[k];
        out |= (uint64_t)y << (r * cols);
    }
    return out;
}

/* P (rows as bit masks) with P u = e_last and last row z, and its inverse;
 * false when none (z.u != 1).  Rows 0..d-2: the first vectors orthogonal to
 * u that are independent of the rows before them, so a basis of u's
 * annihilator; z is outside it (z.u = 1), so P is invertible. */
static bool basis_for(int d, unsigned u, unsigned z, unsigned P[8], unsigned Pinv[8])
{
    if (!parity(u & z))
        return false;
    unsigned lead[8] = {0}; /* lead[b]: a reduced row whose highest bit is b */
    int k = 0;
    for (unsigned r = 1; r < (1u << d) && k < d - 1; r++) {
        if (parity(r & u))
            continue;
        unsigned x = r;
        for (int b = d - 1; b >= 0 && x; b--)
            if (x >> b & 1) {
                if (!lead[b]) {
                    lead[b] = x;
                    break;
                }
                x ^= lead[b];
            }
        if (x)
            P[k++] = r; /* independent of the rows so far */
    }
    if (k != d - 1)
        return false;
    P[d - 1] = z;
    /* Gauss-Jordan: [P | I] -> [I | P^-1] */
    unsigned A[8], I[8];
    for (int i = 0; i < d; i++) {
        A[i] = P[i];
        I[i] = 1u << i;
    }
    for (int c = 0; c < d; c++) {
        int piv = -1;
        for (int i = c; i < d; i++)
            if (A[i] >> c & 1) {
                piv = i;
                break;
            }
        if (piv < 0)
            return false;
        unsigned t = A[piv];
        A[piv] = A[c];
        A[c] = t;
        t = I[piv];
        I[piv] = I[c];
        I[c] = t;
        for (int i = 0; i < d; i++)
            if (i != c && (A[i] >> c & 1)) {
                A[i] ^= A[c];
                I[i] ^= I[c];
            }
    }
    memcpy(Pinv, I, d * sizeof *I);
    return true;
}

scheme *search_project_basis(const scheme *s, int dim, unsigned u, unsigned z)
{
    if (!s || s->ring != SCHEME_RING_F2 || dim < 0 || dim > 2)
        return NULL;
    int d[3];
    fmt_dims(s->fmt, d);
    const int dd = d[dim];
    unsigned P[8], Pinv[8];
    if (dd < 2 || dd > 8 || !u || !z || u >> dd || z >> dd || !basis_for(dd, u, z, P, Pinv))
        return NULL;
    const int rows_pos = dim, cols_pos = (dim + 2) % 3;
    scheme *t = scheme_new(s->fmt, SCHEME_RING_F2, s->rank);
    if (!t)
        return NULL;
    for (int i = 0; i < s->rank; i++) {
        scheme_term w = s->terms[i];
        w.f[rows_pos] = mul_left(w.f[rows_pos], d[rows_pos], d[(rows_pos + 1) % 3], P);
        w.f[cols_pos] = mul_right(w.f[cols_pos], d[cols_pos], dd, Pinv);
        if (!scheme_push(t, w.f[0], w.f[1], w.f[2])) {
            scheme_free(t);
            return NULL;
        }
    }
    scheme *r = search_project(t, dim, dd - 1);
    scheme_free(t);
    return r;
}

/* ---- the change of basis over Z ----
 *
 * The same projection with an integer P that is unimodular (P^-1 integer
 * too), so that the tensor stays an integer one: for u in {-1,0,1}^d with a
 * pivot entry u_i = +-1 and z with z.u = 1, the rows of P are
 * e_j - u_j u_i e_i (j != i, in order), orthogonal to u, then z; its inverse
 * has the columns e_j - z_j u (j != i) and u, as P times them shows.  The
 * terms dropped are again those whose factor at dim is u v^T and those whose
 * factor at (dim+2)%3 is w z^T (up to sign).  Coefficients can grow (row
 * j minus a multiple of row i): the caller keeps a result only within its
 * bound. */

static int zpivot(const int8_t *u, int d)
{
    for (int i = 0; i < d; i++)
        if (u[i] == 1 || u[i] == -1)
            return i;
    return -1;
}

static int zdot(const int8_t *a, const int8_t *b, int d)
{
    int x = 0;
    for (int i = 0; i < d; i++)
        x += a[i] * b[i];
    return x;
}

/* v scaled so that its first nonzero entry is positive. */
static void znormalize(int8_t *v, int d)
{
    for (int i = 0; i < d; i++)
        if (v[i]) {
            if (v[i] < 0)
                for (int k = 0; k < d; k++)
                    v[k] = (int8_t)-v[k];
            return;
        }
}

/* A factor read as `lines` lines of `len` entries (line l at l*lstride, entry
 * k at k*estride: its rows, or its columns): true when every line is 0, x or
 * -x for one line x, with u[l] = 0, 1 or -1 (the first nonzero 1).  With the
 * rows, w = u x^T; with the columns, w = x u^T. */
static bool zrank1(const int8_t *w, int lines, int len, int lstride, int estride, int8_t *u)
{
    int first = -1;
    memset(u, 0, 8);
    for (int l = 0; l < lines; l++) {
        bool zero = true, same = true, neg = true;
        for (int k = 0; k < len; k++) {
            const int a = w[l * lstride + k * estride];
            zero &= a == 0;
            if (first >= 0) {
                const int b = w[first * lstride + k * estride];
                same &= a == b;
                neg &= a == -b;
            }
        }
        if (zero)
            continue;
        if (first < 0) {
            first = l;
            u[l] = 1;
        } else if (same)
            u[l] = 1;
        else if (neg)
            u[l] = -1;
        else
            return false;
    }
    return first >= 0;
}

/* n integer entries into out when each fits an int8; false otherwise. */
static bool to_int8(const int *v, int n, int8_t *out)
{
    for (int e = 0; e < n; e++) {
        if (v[e] < -127 || v[e] > 127)
            return false;
        out[e] = (int8_t)v[e];
    }
    return true;
}

scheme *search_project_basis_z(const scheme *s, int dim, const int8_t *u, const int8_t *z)
{
    if (!s || s->ring != SCHEME_RING_Z || dim < 0 || dim > 2)
        return NULL;
    int d[3];
    fmt_dims(s->fmt, d);
    const int dd = d[dim];
    const int piv = dd >= 2 && dd <= 8 ? zpivot(u, dd) : -1;
    if (piv < 0 || zdot(u, z, dd) != 1)
        return NULL;
    for (int k = 0; k < dd; k++)
        if (u[k] < -1 || u[k] > 1)
            return NULL;
    int rowj[8], nj = 0; /* P's rows 0..dd-2: e_j - u_j u_i e_i for these j */
    for (int j = 0; j < dd; j++)
        if (j != piv)
            rowj[nj++] = j;
    const int rows_pos = dim, cols_pos = (dim + 2) % 3;
    const int acols = d[(rows_pos + 1) % 3], crows = d[cols_pos];
    scheme *t = scheme_new(s->fmt, SCHEME_RING_Z, s->rank);
    if (!t)
        return NULL;
    for (int r = 0; r < s->rank; r++) {
        const scheme_zterm *x = &s->zterms[r];
        scheme_zterm y = *x;
        int v[SCHEME_MAX_ENTRIES];
        /* a -> P a (rows over dim) */
        const int8_t *a = x->z[rows_pos];
        for (int k = 0; k < dd; k++)
            for (int c = 0; c < acols; c++) {
                int e = 0;
                if (k < dd - 1)
                    e = a[rowj[k] * acols + c] - u[rowj[k]] * u[piv] * a[piv * acols + c];
                else
                    for (int l = 0; l < dd; l++)
                        e += z[l] * a[l * acols + c];
                v[k * acols + c] = e;
            }
        bool fits = to_int8(v, dd * acols, y.z[rows_pos]);
        /* c -> c P^-1 (columns over dim): column k is c (e_j - z_j u), the last c u */
        const int8_t *c = x->z[cols_pos];
        for (int rr = 0; rr < crows; rr++) {
            int cu = 0;
            for (int l = 0; l < dd; l++)
                cu += c[rr * dd + l] * u[l];
            for (int k = 0; k < dd; k++)
                v[rr * dd + k] = k < dd - 1 ? c[rr * dd + rowj[k]] - z[rowj[k]] * cu : cu;
        }
        fits = fits && to_int8(v, crows * dd, y.z[cols_pos]);
        if (!fits || !scheme_push_z(t, &y)) {
            scheme_free(t);
            return NULL;
        }
    }
    scheme *p = search_project(t, dim, dd - 1);
    scheme_free(t);
    return p;
}

typedef struct zcand {
    int drop;
    int8_t u[8], z[8];
} zcand;

static int zcand_cmp(const void *pa, const void *pb)
{
    const zcand *a = pa, *b = pb;
    if (a->drop != b->drop)
        return b->drop - a->drop;
    const int x = memcmp(a->u, b->u, 8);
    return x ? x : memcmp(a->z, b->z, 8);
}

/* The terms' rank-one directions at dim: ua[r] for factor dim (u v^T), zc[r]
 * for factor (dim+2)%3 (w z^T), normalized; has_u/has_z false where the
 * factor is not of that form. */
typedef struct zdirs {
    int8_t ua[SCHEME_MAX_RANK][8], zc[SCHEME_MAX_RANK][8];
    bool has_u[SCHEME_MAX_RANK], has_z[SCHEME_MAX_RANK];
} zdirs;

static int zdrop(const zdirs *D, int rank, int dd, const int8_t *u, const int8_t *z)
{
    int8_t nu[8] = {0}, nz[8] = {0};
    memcpy(nu, u, (size_t)dd);
    memcpy(nz, z, (size_t)dd);
    znormalize(nu, dd);
    znormalize(nz, dd);
    int n = 0;
    for (int r = 0; r < rank; r++)
        n += (D->has_u[r] && !memcmp(D->ua[r], nu, 8)) || (D->has_z[r] && !memcmp(D->zc[r], nz, 8));
    return n;
}

/* Candidates (u, z) over Z: every pair of a term's u and a term's z with
 * z.u = +-1 (z signed so that z.u = 1), and each u with the unit vector of
 * its pivot (and each z likewise), the ones that drop the most first. */
static int zcandidates(const scheme *s, int dim, zcand **out)
{
    int d[3];
    fmt_dims(s->fmt, d);
    const int dd = d[dim], rows_pos = dim, cols_pos = (dim + 2) % 3;
    const int acols = d[(rows_pos + 1) % 3], crows = d[cols_pos];
    zdirs *D = calloc(1, sizeof *D);
    int8_t (*us)[8] = calloc((size_t)s->rank + 1, 8), (*zs)[8] = calloc((size_t)s->rank + 1, 8);
    zcand *c = NULL;
    int nu = 0, nz = 0, nc = 0;
    if (!D || !us || !zs)
        goto done;
    for (int r = 0; r < s->rank; r++) {
        D->has_u[r] = zrank1(s->zterms[r].z[rows_pos], dd, acols, acols, 1, D->ua[r]);
        D->has_z[r] = zrank1(s->zterms[r].z[cols_pos], dd, crows, 1, dd, D->zc[r]);
        bool seen = false;
        for (int k = 0; D->has_u[r] && k < nu && !seen; k++)
            seen = !memcmp(us[k], D->ua[r], 8);
        if (D->has_u[r] && !seen && zpivot(D->ua[r], dd) >= 0)
            memcpy(us[nu++], D->ua[r], 8);
        seen = false;
        for (int k = 0; D->has_z[r] && k < nz && !seen; k++)
            seen = !memcmp(zs[k], D->zc[r], 8);
        if (D->has_z[r] && !seen && zpivot(D->zc[r], dd) >= 0)
            memcpy(zs[nz++], D->zc[r], 8);
    }
    c = malloc(((size_t)nu * nz + nu + nz + 1) * sizeof *c);
    if (!c)
        goto done;
    for (int a = 0; a < nu; a++)
        for (int b = 0; b < nz; b++) {
            const int x = zdot(us[a], zs[b], dd);
            if (x != 1 && x != -1)
                continue;
            zcand k = {0};
            memcpy(k.u, us[a], 8);
            for (int i = 0; i < dd; i++)
                k.z[i] = (int8_t)(x * zs[b][i]);
            k.drop = zdrop(D, s->rank, dd, k.u, k.z);
            c[nc++] = k;
        }
    /* a u alone, its partner the unit vector of its pivot, signed (so the
     * dot product is 1); then a z alone likewise */
    for (int a = 0; a < nu + nz; a++) {
        zcand k = {0};
        int8_t *own = a < nu ? k.u : k.z, *other = a < nu ? k.z : k.u;
        memcpy(own, a < nu ? us[a] : zs[a - nu], 8);
        const int i = zpivot(own, dd);
        other[i] = own[i];
        k.drop = zdrop(D, s->rank, dd, k.u, k.z);
        c[nc++] = k;
    }
    qsort(c, (size_t)nc, sizeof *c, zcand_cmp);
done:
    free(D);
    free(us);
    free(zs);
    *out = c;
    return c ? nc : -1;
}

typedef struct basis_cand {
    int drop;
    unsigned u, z;
} basis_cand;

static int cand_cmp(const void *pa, const void *pb)
{
    const basis_cand *a = pa, *b = pb;
    if (a->drop != b->drop)
        return b->drop - a->drop;
    if (a->u != b->u)
        return a->u < b->u ? -1 : 1;
    return a->z < b->z ? -1 : a->z > b->z;
}

/* Keeps t in *best when it is lower after the reductions (ties: the first). */
static void keep_reduced(scheme **best, scheme *t, bool eliminate)
{
    reduce(t, eliminate);
    if (!*best || t->rank < (*best)->rank) {
        scheme_free(*best);
        *best = t;
    } else
        scheme_free(t);
}

/* The changes of basis tried after the plain projections: the candidates
 * that drop the most terms (the reductions after them can still differ). */
#define RESIZE_BASIS_TRIES 16

/* Projection of dimension dim that leaves the lowest rank after the
 * reductions: at each index as it stands (ties: the lowest index), then after
 * the changes of basis that drop the most terms (dimensions of 2..8; a change
 * is kept only when strictly lower); NULL when out of memory. */
static scheme *project_best(const scheme *s, int dim, bool eliminate)
{
    int d[3];
    fmt_dims(s->fmt, d);
    scheme *best = NULL;
    for (int i = 0; i < d[dim]; i++) {
        scheme *t = search_project(s, dim, i);
        if (!t) {
            scheme_free(best);
            return NULL;
        }
        keep_reduced(&best, t, eliminate);
    }
    const int dd = d[dim], rows_pos = dim, cols_pos = (dim + 2) % 3;
    if (dd < 2 || dd > 8)
        return best;
    if (s->ring == SCHEME_RING_Z) {
        /* the integer changes of basis, kept only within the input's
         * coefficients (at least 1): the walk over Z takes {-1, 0, 1} */
        const int cmax = coef_bound(s);
        zcand *zc;
        const int nzc = zcandidates(s, dim, &zc);
        if (nzc < 0) {
            scheme_free(best);
            return NULL;
        }
        for (int k = 0; k < nzc && k < RESIZE_BASIS_TRIES && zc[k].drop > 0; k++) {
            scheme *t = search_project_basis_z(s, dim, zc[k].u, zc[k].z);
            if (t && search_z_max_coef(t) <= cmax)
                keep_reduced(&best, t, eliminate);
            else
                scheme_free(t);
        }
        free(zc);
        return best;
    }
    const unsigned nv = 1u << dd;
    int *cu = calloc(nv, sizeof *cu), *cz = calloc(nv, sizeof *cz), *cuz = calloc((size_t)nv * nv, sizeof *cuz);
    basis_cand *cand = malloc((size_t)nv * nv / 2 * sizeof *cand);
    if (!cu || !cz || !cuz || !cand) {
        free(cu), free(cz), free(cuz), free(cand);
        scheme_free(best);
        return NULL;
    }
    for (int i = 0; i < s->rank; i++) {
        unsigned u, rows;
        rank1(s->terms[i].f[rows_pos], d[rows_pos], d[(rows_pos + 1) % 3], &u);
        const unsigned z = (unsigned)rank1(s->terms[i].f[cols_pos], d[cols_pos], dd, &rows);
        cu[u]++, cz[z]++, cuz[(size_t)u * nv + z]++;
    }
    int nc = 0;
    for (unsigned u = 1; u < nv; u++)
        for (unsigned z = 1; z < nv; z++)
            if (parity(u & z))
                cand[nc++] = (basis_cand){cu[u] + cz[z] - cuz[(size_t)u * nv + z], u, z};
    qsort(cand, (size_t)nc, sizeof *cand, cand_cmp);
    for (int k = 0; k < nc && k < RESIZE_BASIS_TRIES && cand[k].drop > 0; k++) {
        scheme *t = search_project_basis(s, dim, cand[k].u, cand[k].z);
        if (!t) {
            scheme_free(best);
            best = NULL;
            break;
        }
        keep_reduced(&best, t, eliminate);
    }
    free(cu), free(cz), free(cuz), free(cand);
    return best;
}

/* the largest square format: n * n <= SCHEME_MAX_ENTRIES */
#define RESIZE_SQUARE_MAX 8

/* Where a square scheme extended from n to N puts each index (pos[i], i < N;
 * n <= i: the new ones): the old first half (i < n/2) stays, the old second
 * half moves up by N - n, an odd n's middle index goes to the middle of N
 * (its lower one for even N), and the new indices fill the places between.
 * search_extend appends them at the end, where an involution swapping i and
 * n-1-i (c3xc2's reversal, c3xc2sK's pairs; Moosbauer, Poole 2025) no
 * longer swaps i and N-1-i; placed here it does, and fixes the new indices
 * as before (they are the standard algorithm's, which every relabelling of
 * them keeps), so an invariant scheme stays invariant where no reduction
 * changes it: our <6,6,6>:153 extended to <7,7,7> is c3xc2-invariant, 49
 * orbits, where at the end it was c3-invariant only (docs/resize.md, "Square
 * extensions"). */
static void square_extension_places(int n, int N, int *pos)
{
    bool taken[RESIZE_SQUARE_MAX] = {false};
    for (int i = 0; i < n / 2; i++) {
        pos[i] = i;
        pos[n - 1 - i] = N - 1 - i;
        taken[i] = taken[N - 1 - i] = true;
    }
    if (n % 2) {
        pos[n / 2] = (N - 1) / 2;
        taken[(N - 1) / 2] = true;
    }
    for (int i = n, at = 0; i < N; i++) {
        while (taken[at])
            at++;
        pos[i] = at;
        taken[at] = true;
    }
}

/* Every factor of the square scheme s conjugated by the relabelling i ->
 * pos[i] of its indices: entry (r, c) goes to (pos[r], pos[c]).  The tensor
 * sum a_ij b_jk c_ki is kept (the same relabelling on all three indices), so
 * a valid scheme stays valid, its rank kept. */
static void relabel_square(scheme *s, const int *pos)
{
    const int n = s->fmt.n;
    for (int t = 0; t < s->rank; t++)
        for (int f = 0; f < 3; f++) {
            if (s->ring == SCHEME_RING_Z) {
                int8_t out[SCHEME_MAX_ENTRIES] = {0};
                for (int e = 0; e < n * n; e++)
                    out[pos[e / n] * n + pos[e % n]] = s->zterms[t].z[f][e];
                memcpy(s->zterms[t].z[f], out, sizeof out);
                continue;
            }
            uint64_t out = 0;
            for (uint64_t u = s->terms[t].f[f]; u; u &= u - 1) {
                const int e = __builtin_ctzll(u);
                out |= 1ull << (pos[e / n] * n + pos[e % n]);
            }
            s->terms[t].f[f] = out;
        }
}

scheme *search_extend_square(const scheme *s, int N)
{
    if (!s || s->fmt.n != s->fmt.m || s->fmt.m != s->fmt.p || N <= s->fmt.n || N > RESIZE_SQUARE_MAX)
        return NULL;
    const int n = s->fmt.n;
    scheme *cur = s->ring == SCHEME_RING_Z ? scheme_clone(s) : scheme_to_f2(s);
    for (int k = n; cur && k < N; k++)
        for (int dim = 0; cur && dim < 3; dim++) {
            scheme *next = search_extend(cur, dim);
            scheme_free(cur);
            cur = next;
        }
    if (!cur)
        return NULL;
    int pos[RESIZE_SQUARE_MAX];
    square_extension_places(n, N, pos);
    relabel_square(cur, pos);
    return cur;
}

/* search_resize's moves from a valid scheme of its ring (a permutation of
 * `to`'s format already taken): every projection, then every extension, each
 * followed by the reductions (with the eliminations by a flattening where
 * `eliminate`), and the eliminations at the end in any case.  NULL, err set,
 * out of memory or where an intermediate format is not one (a bug). */
static scheme *resize_road(const scheme *start, scheme_format to, const int *want, int square_from,
                           bool eliminate, char *err, size_t errlen)
{
    scheme *cur = scheme_clone(start);
    if (!cur) {
        scheme_fail(err, errlen, "out of memory");
        return NULL;
    }
    /* Every projection first, then every extension: the formats in between are
     * at most `to` in every dimension, so each of them is a format
     * (scheme_format_valid) whenever `to` is; and the extensions' new terms are
     * added to the smaller scheme. */
    for (int dim = 0; dim < 3; dim++) {
        int d[3];
        fmt_dims(cur->fmt, d);
        for (int k = d[dim]; k > want[dim]; k--) {
            scheme *next = project_best(cur, dim, eliminate);
            scheme_free(cur);
            if (!next) {
                scheme_fail(err, errlen, "out of memory");
                return NULL;
            }
            cur = next;
        }
    }
    if (square_from && to.n == to.m && to.m == to.p && to.n > square_from) {
        /* a square scheme to a larger square format: the new indices in the
         * middle, where a symmetric scheme's involution fixes them */
        scheme *next = search_extend_square(cur, to.n);
        scheme_free(cur);
        if (!next) {
            scheme_fail(err, errlen, "out of memory");
            return NULL;
        }
        cur = next;
    }
    for (int dim = 0; dim < 3; dim++) {
        int d[3];
        fmt_dims(cur->fmt, d);
        for (int k = d[dim]; k < want[dim]; k++) {
            scheme *next = search_extend(cur, dim);
            if (!next) {
                scheme_fail(err, errlen, "%s",
                            scheme_format_valid(cur->fmt) ? "out of memory"
                                                          : "BUG: an intermediate format is not valid");
                scheme_free(cur);
                return NULL;
            }
            scheme_free(cur);
            cur = next;
            reduce(cur, eliminate);
        }
    }
    /* the eliminations once, on both roads: here, where out of memory is an error */
    reduce(cur, false);
    if ((cur->ring == SCHEME_RING_Z ? search_z_reduce_flattening(cur, coef_bound(cur))
                                    : search_reduce_flattening(cur->fmt, cur->terms, &cur->rank)) < 0) {
        scheme_fail(err, errlen, "out of memory");
        scheme_free(cur);
        return NULL;
    }
    return cur;
}

scheme *search_resize(const scheme *s, scheme_format to, char *err, size_t errlen)
{
    char fa[32], fb[32];
    if (!s) {
        scheme_fail(err, errlen, "no scheme");
        return NULL;
    }
    if (!scheme_format_valid(to)) {
        scheme_fail(err, errlen, "%s: not a format (every dimension >= 1, n*m, m*p, p*n <= %d)",
                    scheme_format_str(to, fb), SCHEME_MAX_ENTRIES);
        return NULL;
    }
    /* a copy in the input's ring: an integer scheme stays one */
    const scheme_ring ring = s->ring == SCHEME_RING_Z ? SCHEME_RING_Z : SCHEME_RING_F2;
    scheme *cur = ring == SCHEME_RING_Z ? scheme_clone(s) : scheme_to_f2(s);
    if (!cur) {
        scheme_fail(err, errlen, "out of memory");
        return NULL;
    }
    verify_result vr;
    if (!verify_scheme(cur, ring, &vr)) {
        scheme_fail(err, errlen, "the input is not a valid scheme of %s over %s: %s",
                    scheme_format_str(cur->fmt, fa), scheme_ring_name(ring), vr.msg);
        scheme_free(cur);
        return NULL;
    }
    int want[3];
    fmt_dims(to, want);
    const int square_from = cur->fmt.n == cur->fmt.m && cur->fmt.m == cur->fmt.p ? cur->fmt.n : 0;
    /* A permutation of the input's format (the same format sorted) is reached
     * exactly, the rank kept: projections and extensions would lose
     * (<4,4,5>:61 to <5,4,4> by them gives 68).  The loops below then have
     * nothing to do. */
    const scheme_format have = search_format_sorted(cur->fmt), sorted = search_format_sorted(to);
    if (have.n == sorted.n && have.m == sorted.m && have.p == sorted.p) {
        scheme *p = search_permute(cur, to);
        scheme_free(cur);
        if (!p) {
            scheme_fail(err, errlen, "out of memory");
            return NULL;
        }
        cur = p;
    }
    /* Two roads: the reductions after each move alone (the greedy
     * choices of the projections as they always were), and with the
     * eliminations by a flattening after each move as well, which change those
     * choices: lower most often, higher now and then (bench/RESULTS.md,
     * "One-term eliminations by a flattening").  Both end with the
     * eliminations; the lower is kept (ties: the first). */
    scheme *plain = resize_road(cur, to, want, square_from, false, err, errlen);
    scheme *elim = NULL;
    if (plain) {
        elim = resize_road(cur, to, want, square_from, true, err, errlen);
        if (!elim) {
            scheme_free(plain);
            plain = NULL;
        }
    }
    scheme_free(cur);
    if (!plain)
        return NULL;
    if (elim && elim->rank < plain->rank) {
        scheme_free(plain);
        cur = elim;
    } else {
        scheme_free(elim);
        cur = plain;
    }
    if (cur->fmt.n != to.n || cur->fmt.m != to.m || cur->fmt.p != to.p) {
        scheme_fail(err, errlen, "BUG: resized to %s, not %s", scheme_format_str(cur->fmt, fa),
                    scheme_format_str(to, fb));
        scheme_free(cur);
        return NULL;
    }
    if (!verify_scheme(cur, ring, &vr)) {
        scheme_fail(err, errlen, "BUG: the resized scheme of %s (rank %d) is not valid over %s: %s",
                    scheme_format_str(cur->fmt, fa), cur->rank, scheme_ring_name(ring), vr.msg);
        scheme_free(cur);
        return NULL;
    }
    return cur;
}

/* One of the two moves that generate the six orderings of (n, m, p): the
 * rotation (a, b, c) -> (b, c, a) takes <n,m,p> to <m,p,n> (the trace of
 * abc is that of bca); the transposition (a, b, c) -> (b^T, a^T, c^T) takes
 * it to <p,m,n> ((AB)^T = B^T A^T). */
static scheme *rotate_or_transpose(const scheme *s, bool transpose)
{
    int d[3];
    fmt_dims(s->fmt, d);
    scheme_format f = transpose ? (scheme_format){d[2], d[1], d[0]} : (scheme_format){d[1], d[2], d[0]};
    scheme *r = scheme_new(f, s->ring, s->rank);
    if (!r)
        return NULL;
    for (int t = 0; t < s->rank; t++) {
        if (s->ring == SCHEME_RING_Z) {
            const scheme_zterm *x = &s->zterms[t];
            scheme_zterm u;
            if (transpose) {
                scheme_zfactor_transpose(x->z[1], d[1], d[2], u.z[0]);
                scheme_zfactor_transpose(x->z[0], d[0], d[1], u.z[1]);
                scheme_zfactor_transpose(x->z[2], d[2], d[0], u.z[2]);
            } else {
                memcpy(u.z[0], x->z[1], sizeof u.z[0]);
                memcpy(u.z[1], x->z[2], sizeof u.z[1]);
                memcpy(u.z[2], x->z[0], sizeof u.z[2]);
            }
            if (!scheme_push_z(r, &u)) {
                scheme_free(r);
                return NULL;
            }
            continue;
        }
        const uint64_t *w = s->terms[t].f;
        bool ok = transpose ? scheme_push(r, scheme_factor_transpose(w[1], d[1], d[2]),
                                          scheme_factor_transpose(w[0], d[0], d[1]),
                                          scheme_factor_transpose(w[2], d[2], d[0]))
                            : scheme_push(r, w[1], w[2], w[0]);
        if (!ok) {
            scheme_free(r);
            return NULL;
        }
    }
    return r;
}

scheme *search_permute(const scheme *s, scheme_format to)
{
    if (!s)
        return NULL;
    scheme *cur = s->ring == SCHEME_RING_Z ? scheme_clone(s) : scheme_to_f2(s);
    for (int k = 0; cur && k < 6; k++) {
        if (cur->fmt.n == to.n && cur->fmt.m == to.m && cur->fmt.p == to.p)
            return cur;
        /* rotations 0, 1, 2, then the transposition and its rotations */
        scheme *next = rotate_or_transpose(cur, k == 2);
        scheme_free(cur);
        cur = next;
    }
    scheme_free(cur);
    return NULL;
}

/* The six orientations of s: s itself, its rotations (a, b, c) -> (b, c, a),
 * the transposition of the second rotation and its rotations, as
 * search_permute walks them, but taken whatever the format: a square
 * format's six orientations are six schemes of one format (equal where s has
 * that symmetry), which search_permute, going by the format, cannot tell
 * apart.  In s's ring (over GF(2) an integer s is reduced).  false when out
 * of memory (nothing left in out). */
static bool orientations(const scheme *s, scheme *out[6])
{
    out[0] = s->ring == SCHEME_RING_Z ? scheme_clone(s) : scheme_to_f2(s);
    for (int q = 1; q < 6; q++)
        out[q] = out[q - 1] ? rotate_or_transpose(out[q - 1], q == 3) : NULL;
    if (out[5])
        return true;
    for (int q = 0; q < 6; q++)
        scheme_free(out[q]);
    return false;
}

scheme *search_project_oriented(const scheme *s, scheme_format to, int reach, int *steps, char *err, size_t errlen)
{
    char fa[32], fb[32];
    if (!s) {
        scheme_fail(err, errlen, "no scheme");
        return NULL;
    }
    if (!scheme_format_valid(to)) {
        scheme_fail(err, errlen, "%s: not a format", scheme_format_str(to, fb));
        return NULL;
    }
    int want[3], d[3], held = 0;
    fmt_dims(to, want);
    fmt_dims(s->fmt, d);
    /* the steps are the same in every orientation: the dimensions' sums differ by them */
    const int dq = d[0] + d[1] + d[2] - want[0] - want[1] - want[2];
    if (steps)
        *steps = dq;
    scheme *o[6];
    if (dq < 0 || (reach > 0 && dq > reach)) {
        scheme_fail(err, errlen, "%s is %s %s (%d steps; at most %d)", scheme_format_str(to, fb),
                    dq < 0 ? "larger than" : "too far below", scheme_format_str(s->fmt, fa), dq < 0 ? -dq : dq, reach);
        return NULL;
    }
    if (!orientations(s, o)) {
        scheme_fail(err, errlen, "out of memory");
        return NULL;
    }
    scheme *best = NULL;
    err[0] = 0;
    for (int q = 0; q < 6; q++) {
        int e[3];
        fmt_dims(o[q]->fmt, e);
        if (e[0] < want[0] || e[1] < want[1] || e[2] < want[2])
            continue;
        held++;
        char why[256];
        scheme *r = search_resize(o[q], to, why, sizeof why);
        if (!r) {
            /* a failure of the move itself (memory, a check) is the answer */
            snprintf(err, errlen, "%s", why);
            scheme_free(best);
            best = NULL;
            break;
        }
        if (!best || r->rank < best->rank) {
            scheme_free(best);
            best = r;
        } else
            scheme_free(r);
    }
    for (int q = 0; q < 6; q++)
        scheme_free(o[q]);
    if (!held)
        scheme_fail(err, errlen, "no ordering of %s holds %s", scheme_format_str(s->fmt, fa), scheme_format_str(to, fb));
    return best;
}

int search_survey(const scheme *s, int reach, search_survey_row **rows, char *err, size_t errlen)
{
    *rows = NULL;
    int d[3];
    fmt_dims(search_format_sorted(s->fmt), d);
    search_survey_row *out = NULL;
    int n = 0, cap = 0;
    /* the sorted formats s holds (each dimension at most s's sorted one),
     * less s's own (no projection) */
    for (int a = 2; a <= d[0]; a++)
        for (int b = a; b <= d[1]; b++)
            for (int c = b; c <= d[2]; c++) {
                const scheme_format to = {a, b, c};
                if (a == d[0] && b == d[1] && c == d[2])
                    continue;
                int steps = d[0] + d[1] + d[2] - a - b - c;
                if (reach > 0 && steps > reach)
                    continue;
                scheme *r = search_project_oriented(s, to, reach, &steps, err, errlen);
                if (!r) {
                    search_survey_free(out, n);
                    return -1;
                }
                if (n == cap) {
                    cap = cap ? 2 * cap : 16;
                    search_survey_row *grown = realloc(out, (size_t)cap * sizeof *grown);
                    if (!grown) {
                        scheme_free(r);
                        search_survey_free(out, n);
                        scheme_fail(err, errlen, "out of memory");
                        return -1;
                    }
                    out = grown;
                }
                out[n++] = (search_survey_row){to, steps, r};
            }
    *rows = out;
    return n;
}

void search_survey_free(search_survey_row *rows, int n)
{
    for (int i = 0; rows && i < n; i++)
        scheme_free(rows[i].s);
    free(rows);
}

/* Keeps r when it is below n*m*p and below *best; frees the loser. */
static bool keep_lower(scheme **best, scheme *r, scheme_format to)
{
    if (r && r->rank < to.n * to.m * to.p && (!*best || r->rank < (*best)->rank)) {
        scheme_free(*best);
        *best = r;
        return true;
    }
    scheme_free(r);
    return false;
}

/* The six orderings of a format's dimensions (search_permute takes a scheme
 * to each, at the same rank). */
static const int orderings[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

static void ordered(const int d[3], int q, int out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = d[orderings[q][k]];
}

/* Whether two formats are orderings of each other. */
static bool same_sorted(scheme_format x, scheme_format y)
{
    scheme_format a = search_format_sorted(x), b = search_format_sorted(y);
    return a.n == b.n && a.m == b.m && a.p == b.p;
}

/* A sum or product c of known schemes i and j, in `to`'s ordering (taken;
 * NULL: none): after search_resize's reductions and check, kept in *best
 * when lower, with where it came from. */
static void offer_combined(scheme **best, scheme *c, scheme_format to, int i, int j, search_meta_how kind, int *from,
                           int *from2, search_meta_how *how)
{
    char err[256];
    scheme *r = c ? search_resize(c, to, err, sizeof err) : NULL;
    scheme_free(c);
    if (keep_lower(best, r, to)) {
        *from = i;
        *from2 = j;
        if (how)
            *how = kind;
    }
}

bool search_sum_ordering(scheme_format a, scheme_format b, int along, scheme_format *b_ordered, int *dim)
{
    int da[3], db[3], o[3];
    fmt_dims(a, da);
    fmt_dims(b, db);
    int differ = 3;
    *dim = -1;
    for (int q = 0; q < 6; q++) {
        ordered(db, q, o);
        int dq = 0, kq = along;
        for (int k = 0; k < 3; k++)
            if (da[k] != o[k]) {
                dq++;
                kq = k;
            }
        if (dq <= 1 && kq >= 0 && (along < 0 || kq == along) && dq < differ) {
            differ = dq;
            *dim = kq;
            *b_ordered = dims_fmt(o);
        }
    }
    return *dim >= 0;
}

scheme *search_meta_start(scheme_format to, const scheme *const *known, int nknown, int nnear, int *from,
                          int *from2, search_meta_how *how)
{
    return search_meta_start_reach(to, known, nknown, nnear, 1, from, from2, how);
}

scheme *search_meta_start_reach(scheme_format to, const scheme *const *known, int nknown, int nnear, int reach,
                                int *from, int *from2, search_meta_how *how)
{
    int want[3];
    fmt_dims(to, want);
    scheme *best = NULL;
    *from = -1;
    if (from2)
        *from2 = -1;
    if (how)
        *how = SEARCH_META_MOVED;
    char err[256];
    for (int i = 0; i < nnear && i < nknown; i++) {
        if (!known[i])
            continue;
        int d[3], dist = 0;
        fmt_dims(known[i]->fmt, d);
        for (int k = 0; k < 3; k++)
            dist += d[k] > want[k] ? d[k] - want[k] : want[k] - d[k];
        /* A format that holds `to` (every dimension at least to's in some
         * ordering of it) up to `reach` steps above: projected there one index
         * at a time, from every orientation of the scheme that holds it, the
         * lowest kept (search_project_oriented).  Moosbauer and Poole's
         * <6,6,6>:153 gives <5,5,5> its record 93 this way, three steps down;
         * the orientation decides which of the scheme's indices are deleted
         * (our <5,5,6>:110 gives <3,3,5> 39 from its own ordering, 38 from
         * another; bench/RESULTS.md).  Otherwise one step (an extension) by
         * search_resize. */
        scheme *r = search_project_oriented(known[i], to, reach, NULL, err, sizeof err);
        if (!r && dist <= 1)
            r = search_resize(known[i], to, err, sizeof err);
        if (keep_lower(&best, r, to))
            *from = i;
    }
    if (!from2)
        return best;
    const int limit = to.n * to.m * to.p;
    /* Products: two known schemes, the second in any ordering of its format,
     * whose formats multiply to an ordering of `to` (neither of them <1,1,1>);
     * the product is taken to `to`'s ordering, then its reductions. */
    for (int i = 0; i < nknown; i++)
        for (int j = 0; known[i] && j < nknown; j++) {
            if (!known[j] || known[i]->fmt.n * known[i]->fmt.m * known[i]->fmt.p == 1 ||
                known[j]->fmt.n * known[j]->fmt.m * known[j]->fmt.p == 1 ||
                known[i]->rank * known[j]->rank >= (best ? best->rank : limit))
                continue;
            int di[3], dj[3], oj[3];
            fmt_dims(known[i]->fmt, di);
            fmt_dims(known[j]->fmt, dj);
            for (int q = 0; q < 6; q++) {
                ordered(dj, q, oj);
                if (!same_sorted(search_product_format(known[i]->fmt, dims_fmt(oj)), to) ||
                    (best && known[i]->rank * known[j]->rank >= best->rank))
                    continue;
                scheme *sj = search_permute(known[j], dims_fmt(oj)), *pr = sj ? search_product(known[i], sj) : NULL;
                scheme_free(sj);
                offer_combined(&best, search_permute(pr, to), to, i, j, SEARCH_META_PRODUCT, from, from2, how);
                scheme_free(pr);
            }
        }
    /* Sums: `to` split along one dimension into two known schemes' formats
     * (each in some ordering; search_sum), the block decomposition
     * <n,m1+m2,p> = <n,m1,p> + <n,m2,p> that an extension is with m2 = 1 and
     * the standard algorithm of the slice. */
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < nknown; i++) {
            if (!known[i])
                continue;
            int di[3], oi[3];
            fmt_dims(known[i]->fmt, di);
            for (int q = 0; q < 6; q++) {
                ordered(di, q, oi);
                bool dup = false;
                for (int q2 = 0; q2 < q; q2++) {
                    int o2[3];
                    ordered(di, q2, o2);
                    dup |= o2[0] == oi[0] && o2[1] == oi[1] && o2[2] == oi[2];
                }
                if (dup || oi[k] >= want[k] || oi[(k + 1) % 3] != want[(k + 1) % 3] ||
                    oi[(k + 2) % 3] != want[(k + 2) % 3])
                    continue;
                int need[3] = {want[0], want[1], want[2]};
                need[k] = want[k] - oi[k];
                for (int j = 0; j < nknown; j++) {
                    if (!known[j] || !same_sorted(known[j]->fmt, dims_fmt(need)) ||
                        known[i]->rank + known[j]->rank >= (best ? best->rank : limit))
                        continue;
                    scheme *si = search_permute(known[i], dims_fmt(oi)), *sj = search_permute(known[j], dims_fmt(need));
                    scheme *sum = si && sj ? search_sum(si, sj, k) : NULL;
                    scheme_free(si);
                    scheme_free(sj);
                    offer_combined(&best, sum, to, i, j, SEARCH_META_SUM, from, from2, how);
                }
            }
        }
    return best;
}
