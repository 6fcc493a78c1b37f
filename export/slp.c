/* Straight-line programs for linear forms, with shared subexpressions.
 *
 * Each side of a bilinear scheme is a matrix-vector product by a small
 * constant matrix (Karppa, Kaski 2019, section 2.6: the P_l additions of a straight-line
 * program for xi, eta, zeta).  Written form by form it costs nnz - 1 additions
 * per form; pairs x_i + x_j that occur in several forms are computed once.
 * The greedy choice (repeatedly share the pair that occurs in the most forms) is
 * Paar's algorithm for XOR networks (Paar 1997) and what Benson-Ballard's
 * fast-matmul does in codegen/subexpr_elim.py (Benson, Ballard 2015); over Z a pair is shared when
 * its two coefficients agree up to one common factor and a sign
 * (c x_i + c s x_j = c (x_i + s x_j), s = +-1).  Each share saves count - 1
 * additions.  Not optimal (that is NP-hard) but good and deterministic. */
#include <stdlib.h>
#include <string.h>

#include "export.h"

/* The total pair scanning the greedy may do (sum over rounds of the pairs
 * counted): with every scheme of the corpus it stays far below; a pathological
 * input stops sharing early and is still computed correctly. */
#define SLP_WORK_LIMIT 200000000L

typedef struct form {
    int n;       /* terms in use */
    int *var;
    int *coef;
} form;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int iabs(int v) { return v < 0 ? -v : v; }

/* Key of the pair (u, v), u < v, with sign s: u in bits 63..33, v in 32..1, s<0 in bit 0. */
static uint64_t pair_key(int u, int v, int s)
{
    return ((uint64_t)(uint32_t)u << 33) | ((uint64_t)(uint32_t)v << 1) | (s < 0);
}

/* The pair of terms x, y of a form as a key, or false when not shareable. */
static bool form_pair(const form *f, int x, int y, bool f2, uint64_t *key)
{
    int u = f->var[x], v = f->var[y], cu = f->coef[x], cv = f->coef[y];
    if (u > v) {
        int t = u; u = v; v = t;
        t = cu; cu = cv; cv = t;
    }
    if (!f2 && iabs(cu) != iabs(cv))
        return false;
    *key = pair_key(u, v, f2 ? 1 : ((cu < 0) == (cv < 0) ? 1 : -1));
    return true;
}

void export_slp_free(export_slp *p)
{
    free(p->ops);
    free(p->start);
    free(p->var);
    free(p->coef);
    memset(p, 0, sizeof *p);
}

bool export_slp_build(export_slp *p, int nin, int nout, const int *coefs, bool f2, bool cse)
{
    memset(p, 0, sizeof *p);
    p->nin = nin;
    p->nout = nout;
    long total = 0;
    for (long i = 0; i < (long)nin * nout; i++)
        total += (f2 ? (coefs[i] & 1) : coefs[i]) != 0;
    form *forms = calloc((size_t)nout + 1, sizeof *forms);
    int *pool_var = malloc(((size_t)total + 1) * sizeof *pool_var);
    int *pool_coef = malloc(((size_t)total + 1) * sizeof *pool_coef);
    int opcap = (int)(total / 2 + 1);
    p->ops = malloc((size_t)opcap * sizeof *p->ops);
    uint64_t *keys = NULL;
    bool ok = forms && pool_var && pool_coef && p->ops;
    if (ok) {
        long at = 0;
        for (int o = 0; o < nout; o++) {
            forms[o].var = pool_var + at;
            forms[o].coef = pool_coef + at;
            for (int v = 0; v < nin; v++) {
                int c = coefs[(long)o * nin + v];
                if (f2)
                    c &= 1;
                if (c) {
                    forms[o].var[forms[o].n] = v;
                    forms[o].coef[forms[o].n] = c;
                    forms[o].n++;
                }
            }
            at += forms[o].n;
        }
    }
    long work = 0;
    while (ok && cse) {
        long npairs = 0;
        for (int o = 0; o < nout; o++)
            npairs += (long)forms[o].n * (forms[o].n - 1) / 2;
        if (npairs < 2 || work + npairs > SLP_WORK_LIMIT)
            break;
        work += npairs;
        free(keys);
        keys = malloc((size_t)npairs * sizeof *keys);
        if (!keys) {
            ok = false;
            break;
        }
        long k = 0;
        for (int o = 0; o < nout; o++)
            for (int x = 0; x < forms[o].n; x++)
                for (int y = x + 1; y < forms[o].n; y++)
                    if (form_pair(&forms[o], x, y, f2, &keys[k]))
                        k++;
        qsort(keys, (size_t)k, sizeof *keys, cmp_u64);
        /* The most frequent pair; among equals the smallest key (deterministic). */
        long best = 0, bestc = 1;
        for (long i = 0; i < k;) {
            long j = i;
            while (j < k && keys[j] == keys[i])
                j++;
            if (j - i > bestc) {
                bestc = j - i;
                best = i;
            }
            i = j;
        }
        if (bestc < 2)
            break;
        uint64_t key = keys[best];
        int u = (int)(key >> 33), v = (int)((key >> 1) & 0xffffffffu), s = (key & 1) ? -1 : 1;
        if (p->nops == opcap) {
            opcap *= 2;
            export_slp_op *no = realloc(p->ops, (size_t)opcap * sizeof *no);
            if (!no) {
                ok = false;
                break;
            }
            p->ops = no;
        }
        int t = nin + p->nops;
        p->ops[p->nops++] = (export_slp_op){u, v, s};
        /* Every form holding c x_u + c s x_v now holds c t. */
        for (int o = 0; o < nout; o++) {
            form *f = &forms[o];
            int xu = -1, xv = -1;
            for (int x = 0; x < f->n; x++) {
                if (f->var[x] == u) xu = x;
                if (f->var[x] == v) xv = x;
            }
            if (xu < 0 || xv < 0)
                continue;
            uint64_t kk;
            if (!form_pair(f, xu, xv, f2, &kk) || kk != key)
                continue;
            int c = f->coef[xu];
            int lo = xu < xv ? xu : xv, hi = xu < xv ? xv : xu;
            /* remove hi then lo (order kept), append t */
            memmove(f->var + hi, f->var + hi + 1, (size_t)(f->n - hi - 1) * sizeof(int));
            memmove(f->coef + hi, f->coef + hi + 1, (size_t)(f->n - hi - 1) * sizeof(int));
            f->n--;
            memmove(f->var + lo, f->var + lo + 1, (size_t)(f->n - lo - 1) * sizeof(int));
            memmove(f->coef + lo, f->coef + lo + 1, (size_t)(f->n - lo - 1) * sizeof(int));
            f->n--;
            f->var[f->n] = t;
            f->coef[f->n] = c;
            f->n++;
        }
    }
    free(keys);
    if (ok) {
        long used = 0;
        for (int o = 0; o < nout; o++)
            used += forms[o].n;
        p->start = malloc(((size_t)nout + 1) * sizeof *p->start);
        p->var = malloc(((size_t)used + 1) * sizeof *p->var);
        p->coef = malloc(((size_t)used + 1) * sizeof *p->coef);
        ok = p->start && p->var && p->coef;
        if (ok) {
            int at = 0;
            for (int o = 0; o < nout; o++) {
                p->start[o] = at;
                memcpy(p->var + at, forms[o].var, (size_t)forms[o].n * sizeof(int));
                memcpy(p->coef + at, forms[o].coef, (size_t)forms[o].n * sizeof(int));
                at += forms[o].n;
            }
            p->start[nout] = at;
        }
    }
    free(forms);
    free(pool_var);
    free(pool_coef);
    if (!ok)
        export_slp_free(p);
    return ok;
}

int export_slp_first_term(const export_slp *p, int o)
{
    int a = p->start[o], b = p->start[o + 1];
    for (int x = a; x < b; x++)
        if (p->coef[x] > 0)
            return x;
    for (int x = a; x < b; x++)
        if (iabs(p->coef[x]) != 1)
            return x;
    return a;
}

export_slp_cost export_slp_cost_of(const export_slp *p)
{
    export_slp_cost c = {p->nops, 0, 0};
    for (int o = 0; o < p->nout; o++) {
        int a = p->start[o], b = p->start[o + 1];
        if (b > a)
            c.adds += b - a - 1;
        for (int x = a; x < b; x++)
            c.scalings += iabs(p->coef[x]) != 1;
        if (b > a && p->coef[export_slp_first_term(p, o)] == -1)
            c.negations++;
    }
    return c;
}

void export_slp_eval(const export_slp *p, bool f2, const long long *in, long long *out)
{
    long long *val = malloc(((size_t)p->nin + (size_t)p->nops + 1) * sizeof *val);
    if (!val)
        abort(); /* tests only; a few hundred values */
    memcpy(val, in, (size_t)p->nin * sizeof *val);
    for (int k = 0; k < p->nops; k++) {
        const export_slp_op *op = &p->ops[k];
        val[p->nin + k] = f2 ? (val[op->x] ^ val[op->y]) : val[op->x] + op->sign * val[op->y];
    }
    for (int o = 0; o < p->nout; o++) {
        long long acc = 0;
        for (int x = p->start[o]; x < p->start[o + 1]; x++)
            acc = f2 ? (acc ^ val[p->var[x]]) : acc + p->coef[x] * val[p->var[x]];
        out[o] = acc;
    }
    free(val);
}
