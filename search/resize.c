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

scheme *search_project(const scheme *s, int dim, int index)
{
    if (!s || s->ring != SCHEME_RING_F2 || dim < 0 || dim > 2)
        return NULL;
    int d[3], nd[3];
    fmt_dims(s->fmt, d);
    if (d[dim] <= 1 || index < 0 || index >= d[dim])
        return NULL;
    memcpy(nd, d, sizeof nd);
    nd[dim]--;
    int rows_pos = dim, cols_pos = (dim + 2) % 3;
    scheme *r = scheme_new(dims_fmt(nd), SCHEME_RING_F2, s->rank);
    if (!r)
        return NULL;
    for (int t = 0; t < s->rank; t++) {
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
    if (!s || s->ring != SCHEME_RING_F2 || dim < 0 || dim > 2)
        return NULL;
    int d[3], nd[3];
    fmt_dims(s->fmt, d);
    memcpy(nd, d, sizeof nd);
    nd[dim]++;
    if (!scheme_format_valid(s->fmt) || !scheme_format_valid(dims_fmt(nd)))
        return NULL;
    int e1 = (dim + 1) % 3, e2 = (dim + 2) % 3;
    scheme *r = scheme_new(dims_fmt(nd), SCHEME_RING_F2, s->rank + d[e1] * d[e2]);
    if (!r)
        return NULL;
    /* The old terms: a row appended at the end of factor dim leaves every bit
     * where it was; a column appended to factor e2 moves its rows apart. */
    for (int t = 0; t < s->rank; t++) {
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

static void reduce(scheme *s) { search_reduce_all(s->terms, &s->rank, RESIZE_GEN_MAX); }

/* Projection of dimension dim at the index that leaves the lowest rank after
 * the reductions (ties: the lowest index); NULL when out of memory. */
static scheme *project_best(const scheme *s, int dim)
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
        reduce(t);
        if (!best || t->rank < best->rank) {
            scheme_free(best);
            best = t;
        } else
            scheme_free(t);
    }
    return best;
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
    scheme *cur = scheme_to_f2(s); /* a copy, over GF(2) whatever the ring */
    if (!cur) {
        scheme_fail(err, errlen, "out of memory");
        return NULL;
    }
    verify_result vr;
    if (!verify_f2(cur, &vr)) {
        scheme_fail(err, errlen, "the input is not a valid scheme of %s over GF(2): %s",
                    scheme_format_str(cur->fmt, fa), vr.msg);
        scheme_free(cur);
        return NULL;
    }
    int want[3];
    fmt_dims(to, want);
    /* Every projection first, then every extension: the formats in between are
     * at most `to` in every dimension, so each of them is a format
     * (scheme_format_valid) whenever `to` is; and the extensions' new terms are
     * added to the smaller scheme. */
    for (int dim = 0; dim < 3; dim++) {
        int d[3];
        fmt_dims(cur->fmt, d);
        for (int k = d[dim]; k > want[dim]; k--) {
            scheme *next = project_best(cur, dim);
            scheme_free(cur);
            if (!next) {
                scheme_fail(err, errlen, "out of memory");
                return NULL;
            }
            cur = next;
        }
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
            reduce(cur);
        }
    }
    reduce(cur);
    if (cur->fmt.n != to.n || cur->fmt.m != to.m || cur->fmt.p != to.p) {
        scheme_fail(err, errlen, "BUG: resized to %s, not %s", scheme_format_str(cur->fmt, fa),
                    scheme_format_str(to, fb));
        scheme_free(cur);
        return NULL;
    }
    if (!verify_f2(cur, &vr)) {
        scheme_fail(err, errlen, "BUG: the resized scheme of %s (rank %d) is not valid over GF(2): %s",
                    scheme_format_str(cur->fmt, fa), cur->rank, vr.msg);
        scheme_free(cur);
        return NULL;
    }
    return cur;
}

scheme *search_meta_start(scheme_format to, const scheme *const *known, int nknown, int *from)
{
    int want[3];
    fmt_dims(to, want);
    scheme *best = NULL;
    *from = -1;
    for (int i = 0; i < nknown; i++) {
        if (!known[i])
            continue;
        int d[3], dist = 0;
        fmt_dims(known[i]->fmt, d);
        for (int k = 0; k < 3; k++)
            dist += d[k] > want[k] ? d[k] - want[k] : want[k] - d[k];
        if (dist > 1)
            continue;
        char err[256];
        scheme *r = search_resize(known[i], to, err, sizeof err);
        if (r && r->rank < to.n * to.m * to.p && (!best || r->rank < best->rank)) {
            scheme_free(best);
            best = r;
            *from = i;
        } else {
            scheme_free(r);
        }
    }
    return best;
}
