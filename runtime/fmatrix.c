/* Float matrices: allocation, random fill, the long double reference product
 * and error measures, and float plans (a chain of schemes valid over Z as lists
 * of blocks and coefficients, with the constants of the error bound). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../verify/verify.h"
#include "layout.h"

const char *rt_ftype_name(rt_ftype t) { return t == RT_F32 ? "f32" : "f64"; }

bool rt_ftype_parse(const char *s, rt_ftype *t)
{
    if (!strcmp(s, "f32") || !strcmp(s, "float32") || !strcmp(s, "single"))
        *t = RT_F32;
    else if (!strcmp(s, "f64") || !strcmp(s, "float64") || !strcmp(s, "double"))
        *t = RT_F64;
    else
        return false;
    return true;
}

rt_fmatrix *rt_fmatrix_new(uint64_t rows, uint64_t cols, rt_ftype type)
{
    if (rows < 1 || cols < 1 || rows > RT_MAX_DIM || cols > RT_MAX_DIM)
        return NULL;
    double bytes = (double)rows * (double)cols * (double)rt_ftype_size(type);
    if (bytes > (double)RT_MAX_MATRIX_BYTES)
        return NULL;
    rt_fmatrix *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->data = rt_buf_alloc((rows * cols * rt_ftype_size(type) + 7) / 8, true);
    if (!m->data) {
        free(m);
        return NULL;
    }
    m->rows = rows;
    m->cols = cols;
    m->type = type;
    return m;
}

void rt_fmatrix_free(rt_fmatrix *m)
{
    if (!m)
        return;
    free(m->data);
    free(m);
}

long double rt_fmatrix_get(const rt_fmatrix *m, uint64_t r, uint64_t c)
{
    return m->type == RT_F64 ? (long double)((const double *)m->data)[r * m->cols + c]
                             : (long double)((const float *)m->data)[r * m->cols + c];
}

void rt_fmatrix_set(rt_fmatrix *m, uint64_t r, uint64_t c, long double v)
{
    if (m->type == RT_F64)
        ((double *)m->data)[r * m->cols + c] = (double)v;
    else
        ((float *)m->data)[r * m->cols + c] = (float)v;
}

void rt_fmatrix_random(rt_fmatrix *m, scheme_rng *rng)
{
    uint64_t n = m->rows * m->cols;
    if (m->type == RT_F64) {
        double *d = m->data;
        for (uint64_t i = 0; i < n; i++)
            d[i] = (double)(scheme_rng_next(rng) >> 10) * 0x1p-53 - 1.0;
    } else {
        float *f = m->data;
        for (uint64_t i = 0; i < n; i++)
            f[i] = (float)((double)(scheme_rng_next(rng) >> 39) * 0x1p-24 - 1.0);
    }
}

double rt_fmatrix_max_abs(const rt_fmatrix *m)
{
    uint64_t n = m->rows * m->cols;
    double mx = 0;
    for (uint64_t i = 0; i < n; i++) {
        double v = m->type == RT_F64 ? fabs(((const double *)m->data)[i])
                                     : fabs((double)((const float *)m->data)[i]);
        if (isnan(v))
            return v;
        if (v > mx)
            mx = v;
    }
    return mx;
}

/* ---- the reference ---- */

long double *rt_fmul_reference_ld(const rt_fmatrix *A, const rt_fmatrix *B)
{
    if (A->cols != B->rows || A->type != B->type)
        return NULL;
    uint64_t M = A->rows, K = A->cols, N = B->cols;
    long double *R = calloc(M * N, sizeof *R);
    long double *row = malloc(N * sizeof *row);
    if (!R || !row) {
        free(R);
        free(row);
        return NULL;
    }
    /* i-k-j order: the same sums as the textbook triple loop, in long double,
     * with B read row by row. */
    for (uint64_t i = 0; i < M; i++) {
        for (uint64_t j = 0; j < N; j++)
            row[j] = 0;
        for (uint64_t k = 0; k < K; k++) {
            long double a = rt_fmatrix_get(A, i, k);
            if (B->type == RT_F64) {
                const double *b = (const double *)B->data + k * N;
                for (uint64_t j = 0; j < N; j++)
                    row[j] += a * (long double)b[j];
            } else {
                const float *b = (const float *)B->data + k * N;
                for (uint64_t j = 0; j < N; j++)
                    row[j] += a * (long double)b[j];
            }
        }
        memcpy(R + i * N, row, N * sizeof *row);
    }
    free(row);
    return R;
}

bool rt_fmul_reference(const rt_fmatrix *A, const rt_fmatrix *B, rt_fmatrix *C)
{
    if (C->rows != A->rows || C->cols != B->cols || C->type != A->type)
        return false;
    long double *R = rt_fmul_reference_ld(A, B);
    if (!R)
        return false;
    for (uint64_t i = 0; i < C->rows; i++)
        for (uint64_t j = 0; j < C->cols; j++)
            rt_fmatrix_set(C, i, j, R[i * C->cols + j]);
    free(R);
    return true;
}

double rt_fmatrix_max_error(const rt_fmatrix *C, const long double *R)
{
    long double mx = 0;
    for (uint64_t i = 0; i < C->rows; i++)
        for (uint64_t j = 0; j < C->cols; j++) {
            long double e = fabsl(rt_fmatrix_get(C, i, j) - R[i * C->cols + j]);
            if (isnan(e))
                return (double)e;
            if (e > mx)
                mx = e;
        }
    return (double)mx;
}

double rt_fmul_sample_error(const rt_fmatrix *A, const rt_fmatrix *B, const rt_fmatrix *C,
                            int samples, scheme_rng *rng)
{
    long double mx = 0;
    for (int s = 0; s < samples; s++) {
        uint64_t i = scheme_rng_next(rng) % C->rows, j = scheme_rng_next(rng) % C->cols;
        /* Kahan summation of exact long double products (64-bit significands
         * hold the product of two doubles to within one rounding). */
        long double sum = 0, comp = 0;
        for (uint64_t k = 0; k < A->cols; k++) {
            long double y = rt_fmatrix_get(A, i, k) * rt_fmatrix_get(B, k, j) - comp;
            long double t = sum + y;
            comp = (t - sum) - y;
            sum = t;
        }
        long double e = fabsl(rt_fmatrix_get(C, i, j) - sum);
        if (isnan(e))
            return (double)e;
        if (e > mx)
            mx = e;
    }
    return (double)mx;
}

/* ---- plans ---- */

static int coef(const scheme *s, int h, int pos, int e)
{
    if (s->ring == SCHEME_RING_Z && s->zterms)
        return s->zterms[h].z[pos][e];
    return (int)((s->terms[h].f[pos] >> e) & 1);
}

/* Whether s is the built-in Winograd scheme up to the order of its terms: each
 * of its terms equals one of s's, coefficient by coefficient (7 distinct terms
 * each found in a scheme of rank 7 is the same set). */
static bool is_winograd(const scheme *s)
{
    if (s->fmt.n != 2 || s->fmt.m != 2 || s->fmt.p != 2 || s->rank != 7)
        return false;
    scheme *w = rt_scheme_builtin("winograd", NULL, 0);
    if (!w)
        return false;
    bool all = true;
    for (int g = 0; g < 7 && all; g++) {
        bool found = false;
        for (int h = 0; h < 7 && !found; h++) {
            bool eq = true;
            for (int pos = 0; pos < 3 && eq; pos++)
                for (int e = 0; e < 4 && eq; e++)
                    eq = coef(w, g, pos, e) == coef(s, h, pos, e);
            found = eq;
        }
        all = found;
    }
    scheme_free(w);
    return all;
}

/* The fused schedule of a level (runtime.h, rt_flevel): slots in product
 * order, dense coefficient tables for one pass each. */
static bool fsched_build(rt_flevel *L)
{
    int r = L->rank, nm = L->n * L->m, mp = L->m * L->p, np = L->n * L->p;
    int nt = 0, ns = 0, nq = 0;
    for (int h = 0; h < r; h++) {
        const rt_fterm *t = &L->terms[h];
        if (t->na == 0 || t->nb == 0 || t->nc == 0)
            continue; /* a zero product: skipped by every path */
        nt += t->na > 1;
        ns += t->nb > 1;
        nq += t->nc > 1;
    }
    size_t n = 3 * (size_t)r + (size_t)nt * nm + (size_t)ns * mp + (size_t)np * nq;
    int *m = calloc(n ? n : 1, sizeof *m);
    if (!m)
        return false;
    L->t_slot = m;
    L->s_slot = m + r;
    L->q_slot = m + 2 * r;
    L->ta = m + 3 * r;
    L->sb = L->ta + (size_t)nt * nm;
    L->qc = L->sb + (size_t)ns * mp;
    L->nt = L->ns = L->nq = 0;
    for (int h = 0; h < r; h++) {
        const rt_fterm *t = &L->terms[h];
        L->t_slot[h] = L->s_slot[h] = L->q_slot[h] = -1;
        if (t->na == 0 || t->nb == 0 || t->nc == 0)
            continue;
        if (t->na > 1) {
            int o = L->t_slot[h] = L->nt++;
            for (int q = 0; q < t->na; q++)
                L->ta[(size_t)o * nm + t->a_blk[q]] = t->a_coef[q];
        }
        if (t->nb > 1) {
            int o = L->s_slot[h] = L->ns++;
            for (int q = 0; q < t->nb; q++)
                L->sb[(size_t)o * mp + t->b_blk[q]] = t->b_coef[q];
        }
        if (t->nc > 1) {
            int o = L->q_slot[h] = L->nq++;
            for (int q = 0; q < t->nc; q++)
                L->qc[(size_t)t->c_blk[q] * nq + o] = t->c_coef[q];
        }
    }
    return true;
}

bool rt_fplan_init(rt_fplan *p, const scheme *const *chain, const char *const *names, int n,
                   int *level_out, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (level_out)
        *level_out = 0;
    if (n < 0 || n > EXPORT_PLAN_MAX_LEVELS)
        return scheme_fail(err, errlen, "a chain of %d levels: at most %d", n, EXPORT_PLAN_MAX_LEVELS);
    for (int l = 0; l < n; l++) {
        const scheme *s = chain[l];
        const char *name = names && names[l] ? names[l] : "(unnamed)";
        verify_result vr;
        memset(&vr, 0, sizeof vr);
        if (!verify_z(s, &vr)) {
            if (level_out)
                *level_out = l + 1;
            rt_fplan_free(p);
            return scheme_fail(err, errlen,
                               "level %d (%s) is not valid over Z: %s; a float product needs every "
                               "level valid over Z (strassen, std:NxMxP, a lifted or mod0 scheme)",
                               l + 1, name, vr.msg);
        }
        rt_flevel *L = &p->lv[l];
        scheme_format f = s->fmt;
        L->n = f.n;
        L->m = f.m;
        L->p = f.p;
        L->rank = s->rank;
        snprintf(L->name, sizeof L->name, "%s", name);
        L->terms = calloc((size_t)(s->rank ? s->rank : 1), sizeof *L->terms);
        if (!L->terms) {
            rt_fplan_free(p);
            return scheme_fail(err, errlen, "out of memory");
        }
        int max_na = 0, max_nb = 0;
        double l1a[SCHEME_MAX_RANK], l1b[SCHEME_MAX_RANK];
        for (int h = 0; h < s->rank; h++) {
            rt_fterm *t = &L->terms[h];
            l1a[h] = l1b[h] = 0;
            for (int i = 0; i < f.n; i++)
                for (int j = 0; j < f.m; j++) {
                    int c = coef(s, h, SCHEME_A, i * f.m + j);
                    if (c) {
                        t->a_blk[t->na] = i * f.m + j;
                        t->a_coef[t->na++] = c;
                        l1a[h] += abs(c);
                    }
                }
            for (int j = 0; j < f.m; j++)
                for (int k = 0; k < f.p; k++) {
                    int c = coef(s, h, SCHEME_B, j * f.p + k);
                    if (c) {
                        t->b_blk[t->nb] = j * f.p + k;
                        t->b_coef[t->nb++] = c;
                        l1b[h] += abs(c);
                    }
                }
            /* c is stored transposed: c_h[k,i] (bit k*n+i) feeds C[i,k]. */
            for (int i = 0; i < f.n; i++)
                for (int k = 0; k < f.p; k++) {
                    int c = coef(s, h, SCHEME_C, k * f.n + i);
                    if (c) {
                        t->c_blk[t->nc] = i * f.p + k;
                        t->c_coef[t->nc++] = c;
                    }
                }
            if (t->na > max_na)
                max_na = t->na;
            if (t->nb > max_nb)
                max_nb = t->nb;
        }
        /* The stability factor of Ballard et al. 2016 and the additions' depth. */
        int max_nc = 0;
        double E = 0;
        for (int i = 0; i < f.n; i++)
            for (int k = 0; k < f.p; k++) {
                double e = 0;
                int nc = 0;
                for (int h = 0; h < s->rank; h++) {
                    int c = coef(s, h, SCHEME_C, k * f.n + i);
                    if (c) {
                        e += abs(c) * l1a[h] * l1b[h];
                        nc++;
                    }
                }
                if (e > E)
                    E = e;
                if (nc > max_nc)
                    max_nc = nc;
            }
        L->stability = E;
        L->adds = max_na + max_nb + max_nc;
        L->winograd = s->ring == SCHEME_RING_Z && is_winograd(s);
        p->levels = l + 1;
        if (!fsched_build(L)) {
            rt_fplan_free(p);
            return scheme_fail(err, errlen, "out of memory");
        }
    }
    return true;
}

void rt_fplan_free(rt_fplan *p)
{
    for (int l = 0; l < EXPORT_PLAN_MAX_LEVELS; l++) {
        free(p->lv[l].terms);
        free(p->lv[l].t_slot); /* the schedule's one allocation */
        p->lv[l].terms = NULL;
        p->lv[l].t_slot = p->lv[l].s_slot = p->lv[l].q_slot = NULL;
        p->lv[l].ta = p->lv[l].sb = p->lv[l].qc = NULL;
    }
    p->levels = 0;
}

double rt_fplan_error_bound(const rt_fplan *p, rt_ftype type, uint64_t K, double amax, double bmax)
{
    double u = type == RT_F64 ? 0x1p-53 : 0x1p-24;
    double mprod = 1, E = 1, Q = 0;
    for (int l = 0; l < p->levels; l++) {
        mprod *= p->lv[l].m;
        E *= p->lv[l].stability;
        Q += p->lv[l].adds;
    }
    double kb = ceil((double)K / mprod);
    return u * amax * bmax * ((kb + Q) * E + (double)K);
}

double rt_fplan_workspace(const rt_fplan *p, rt_ftype type, uint64_t M, uint64_t K, uint64_t N, int threads)
{
    /* Panels: the A and C sides add up to the whole, B's is there once a panel. */
    int panels = rt_fmul_panels(p, M, threads);
    double bside = panels > 1 ? (double)panels : 1;
    double bytes = 0;
    for (int l = 0; l < p->levels; l++) {
        M /= (uint64_t)p->lv[l].n;
        K /= (uint64_t)p->lv[l].m;
        N /= (uint64_t)p->lv[l].p;
        const rt_flevel *L = &p->lv[l];
        if (p->sums == RT_FSUMS_FUSED)
            bytes += ((double)L->nt * M * K + bside * L->ns * K * N + (double)L->nq * M * N) *
                     (double)rt_ftype_size(type);
        else if (L->winograd)
            bytes += (3.0 * M * K + 3.0 * bside * K * N + (double)M * N) * (double)rt_ftype_size(type);
        else
            bytes += ((double)M * K + bside * K * N + (double)M * N) * (double)rt_ftype_size(type);
    }
    return bytes;
}
