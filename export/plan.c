/* The runtime's plan: a chain of schemes as the data Yates's algorithm runs on.
 *
 * Karppa, Kaski 2019, section 2.5: a scheme <s,t,u> of rank r is a triple (zeta | xi, eta)
 * with the triple product property (19); Kronecker products of such triples
 * multiply (s1 s2 ..) x (t1 t2 ..) by (t1 t2 ..) x (u1 u2 ..) matrices (24), and
 * Yates's algorithm (30) applies the Kronecker factors one level at a time.  This
 * file maps schemes to those matrices, checks them, and sizes the plan.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

/* Sizes beyond this are refused: 2^40 bits a side is far past any memory. */
#define PLAN_MAX_DIM (1ull << 40)

void export_plan_free(export_plan *p)
{
    if (!p)
        return;
    for (int l = 0; l < EXPORT_PLAN_MAX_LEVELS; l++) {
        export_plan_level *L = &p->level[l];
        free(L->xi);
        free(L->eta);
        free(L->zeta);
        free(L->xi_z);
        free(L->eta_z);
        free(L->zeta_z);
        for (int k = 0; k < 3; k++)
            export_plan_slp_free(&L->slp[k]);
    }
    memset(p, 0, sizeof *p);
}

/* Integer coefficient of entry e at position pos of term h (0/1 for a GF(2) scheme). */
static int coef_z(const scheme *s, int h, int pos, int e)
{
    if (s->ring == SCHEME_RING_Z)
        return s->zterms[h].z[pos][e];
    return (int)((s->terms[h].f[pos] >> e) & 1);
}

/* Triple product property over GF(2), bit-parallel over the product index:
 * W[(i,j)][(j',k)] collects, as a word over (i',k'), the sum of zeta columns. */
static bool check_f2(const export_plan_level *L, char *err, size_t errlen, int level)
{
    int st = L->s * L->t, tu = L->t * L->u, su = L->s * L->u, r = L->r;
    uint64_t *W = calloc((size_t)st * tu, sizeof *W);
    if (!W)
        return scheme_fail(err, errlen, "out of memory");
    for (int h = 0; h < r; h++) {
        uint64_t z = 0;
        for (int g = 0; g < su; g++)
            if (L->zeta[(size_t)g * r + h])
                z |= 1ull << g;
        if (!z)
            continue;
        for (int e = 0; e < st; e++) {
            if (!L->xi[(size_t)h * st + e])
                continue;
            for (int f = 0; f < tu; f++)
                if (L->eta[(size_t)h * tu + f])
                    W[(size_t)e * tu + f] ^= z;
        }
    }
    bool ok = true;
    for (int i = 0; i < L->s && ok; i++)
        for (int j = 0; j < L->t && ok; j++)
            for (int j2 = 0; j2 < L->t && ok; j2++)
                for (int k = 0; k < L->u && ok; k++) {
                    uint64_t want = j == j2 ? 1ull << (i * L->u + k) : 0;
                    uint64_t got = W[(size_t)(i * L->t + j) * tu + j2 * L->u + k];
                    if (got != want) {
                        ok = false;
                        scheme_fail(err, errlen,
                                    "level %d (%s): not a matrix multiplication scheme over "
                                    "GF(2): the products of a%d%d and b%d%d do not sum to the "
                                    "right entries of the product",
                                    level + 1, L->name, i + 1, j + 1, j2 + 1, k + 1);
                    }
                }
    free(W);
    return ok;
}

/* The same over Z with exact integer sums (products of int8: no overflow in int64). */
static bool check_z(const export_plan_level *L)
{
    int st = L->s * L->t, tu = L->t * L->u, su = L->s * L->u, r = L->r;
    int64_t *W = calloc((size_t)st * tu * su, sizeof *W);
    if (!W)
        return false;
    for (int h = 0; h < r; h++)
        for (int e = 0; e < st; e++) {
            int x = L->xi_z[(size_t)h * st + e];
            if (!x)
                continue;
            for (int f = 0; f < tu; f++) {
                int y = L->eta_z[(size_t)h * tu + f];
                if (!y)
                    continue;
                int64_t *w = &W[((size_t)e * tu + f) * su];
                for (int g = 0; g < su; g++)
                    w[g] += (int64_t)x * y * L->zeta_z[(size_t)g * r + h];
            }
        }
    bool ok = true;
    for (int i = 0; i < L->s && ok; i++)
        for (int j = 0; j < L->t && ok; j++)
            for (int j2 = 0; j2 < L->t && ok; j2++)
                for (int k = 0; k < L->u && ok; k++)
                    for (int g = 0; g < su && ok; g++) {
                        int64_t want = (j == j2 && g == i * L->u + k) ? 1 : 0;
                        if (W[((size_t)(i * L->t + j) * tu + j2 * L->u + k) * su + g] != want)
                            ok = false;
                    }
    free(W);
    return ok;
}

static bool level_init(export_plan_level *L, const scheme *sc, const char *name, int level,
                       char *err, size_t errlen)
{
    L->s = sc->fmt.n;
    L->t = sc->fmt.m;
    L->u = sc->fmt.p;
    L->r = sc->rank;
    snprintf(L->name, sizeof L->name, "%s", name ? name : "scheme");
    scheme *copy = scheme_clone(sc);
    if (!copy)
        return scheme_fail(err, errlen, "out of memory");
    L->hash = scheme_hash(copy);
    scheme_free(copy);
    int s = L->s, t = L->t, u = L->u, r = L->r;
    int st = s * t, tu = t * u, su = s * u;
    if (r < 1)
        return scheme_fail(err, errlen, "level %d (%s): a scheme of rank 0 multiplies nothing",
                           level + 1, L->name);
    L->xi = calloc((size_t)r * st, 1);
    L->eta = calloc((size_t)r * tu, 1);
    L->zeta = calloc((size_t)su * r, 1);
    L->xi_z = calloc((size_t)r * st, 1);
    L->eta_z = calloc((size_t)r * tu, 1);
    L->zeta_z = calloc((size_t)su * r, 1);
    if (!L->xi || !L->eta || !L->zeta || !L->xi_z || !L->eta_z || !L->zeta_z)
        return scheme_fail(err, errlen, "out of memory");
    for (int h = 0; h < r; h++) {
        const scheme_term *tm = &sc->terms[h];
        for (int e = 0; e < st; e++) { /* a_h[i,j] is bit i*t+j */
            L->xi[(size_t)h * st + e] = (uint8_t)((tm->f[SCHEME_A] >> e) & 1);
            L->xi_z[(size_t)h * st + e] = (int8_t)coef_z(sc, h, SCHEME_A, e);
        }
        for (int e = 0; e < tu; e++) { /* b_h[j,k] is bit j*u+k */
            L->eta[(size_t)h * tu + e] = (uint8_t)((tm->f[SCHEME_B] >> e) & 1);
            L->eta_z[(size_t)h * tu + e] = (int8_t)coef_z(sc, h, SCHEME_B, e);
        }
        for (int i = 0; i < s; i++) /* c_h[k,i] is bit k*s+i; zeta row (i,k) */
            for (int k = 0; k < u; k++) {
                L->zeta[(size_t)(i * u + k) * r + h] = (uint8_t)((tm->f[SCHEME_C] >> (k * s + i)) & 1);
                L->zeta_z[(size_t)(i * u + k) * r + h] = (int8_t)coef_z(sc, h, SCHEME_C, k * s + i);
            }
    }
    if (!check_f2(L, err, errlen, level))
        return false;
    L->z_valid = check_z(L);
    if (!L->z_valid) {
        free(L->xi_z);
        free(L->eta_z);
        free(L->zeta_z);
        L->xi_z = L->eta_z = NULL;
        L->zeta_z = NULL;
    }
    if (!export_plan_slp_build(&L->slp[EXPORT_PLAN_XI], L->xi, r, st) ||
        !export_plan_slp_build(&L->slp[EXPORT_PLAN_ETA], L->eta, r, tu) ||
        !export_plan_slp_build(&L->slp[EXPORT_PLAN_ZETA], L->zeta, su, r))
        return scheme_fail(err, errlen, "out of memory");
    return true;
}

bool export_plan_init(export_plan *p, const scheme *const *chain, const char *const *names,
                      int levels, bool boolean, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (levels < 0 || levels > EXPORT_PLAN_MAX_LEVELS)
        return scheme_fail(err, errlen, "a plan has 0 to %d levels, not %d",
                           EXPORT_PLAN_MAX_LEVELS, levels);
    p->levels = levels;
    p->boolean = boolean;
    p->S = p->T = p->U = p->R = 1;
    for (int l = 0; l < levels; l++) {
        const scheme *sc = chain[l];
        if (!sc || !scheme_format_valid(sc->fmt)) {
            scheme_fail(err, errlen, "level %d: no scheme or an invalid format", l + 1);
            export_plan_free(p);
            return false;
        }
        if (!level_init(&p->level[l], sc, names ? names[l] : NULL, l, err, errlen)) {
            export_plan_free(p);
            return false;
        }
        const export_plan_level *L = &p->level[l];
        if (p->S > PLAN_MAX_DIM / (uint64_t)L->s || p->T > PLAN_MAX_DIM / (uint64_t)L->t ||
            p->U > PLAN_MAX_DIM / (uint64_t)L->u || p->R > PLAN_MAX_DIM / (uint64_t)L->r) {
            scheme_fail(err, errlen, "the chain is too deep: its dimensions pass 2^40");
            export_plan_free(p);
            return false;
        }
        p->S *= (uint64_t)L->s;
        p->T *= (uint64_t)L->t;
        p->U *= (uint64_t)L->u;
        p->R *= (uint64_t)L->r;
    }
    if (boolean) {
        int bad = export_plan_first_not_z(p);
        if (bad >= 0) {
            scheme_fail(err, errlen,
                        "level %d (%s) is valid over GF(2) only: the Boolean product needs a "
                        "scheme valid over Z (a lifted or mod0 scheme, the standard algorithm) "
                        "or the cubic method",
                        bad + 1, p->level[bad].name);
            export_plan_free(p);
            return false;
        }
    }
    return true;
}

int export_plan_first_not_z(const export_plan *p)
{
    for (int l = 0; l < p->levels; l++)
        if (!p->level[l].z_valid)
            return l;
    return -1;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* Element operations of one application of a dense integer matrix (Boolean path):
 * an addition per extra nonzero of a row, a multiplication per coefficient not +-1. */
static double dense_ops(const int8_t *m, int rows, int cols)
{
    double ops = 0;
    for (int i = 0; i < rows; i++) {
        int nz = 0;
        for (int j = 0; j < cols; j++) {
            int c = m[(size_t)i * cols + j];
            nz += c != 0;
            ops += c != 0 && c != 1 && c != -1;
        }
        ops += nz > 1 ? nz - 1 : 0;
    }
    return ops;
}

bool export_plan_size(export_plan *p, uint64_t rows, uint64_t inner, uint64_t cols,
                      char *err, size_t errlen)
{
    if (rows < 1 || inner < 1 || cols < 1)
        return scheme_fail(err, errlen, "matrix dimensions must be at least 1");
    if (rows > PLAN_MAX_DIM || inner > PLAN_MAX_DIM || cols > PLAN_MAX_DIM)
        return scheme_fail(err, errlen, "matrix dimensions beyond 2^40 are not supported");
    const uint64_t B = EXPORT_PLAN_BLOCK;
    p->rows = rows;
    p->inner = inner;
    p->cols = cols;
    p->bs = B * ceil_div(rows, B * p->S);
    p->bt = B * ceil_div(inner, B * p->T);
    p->bu = B * ceil_div(cols, B * p->U);
    if ((double)p->bs * (double)p->S > (double)PLAN_MAX_DIM * 2 ||
        (double)p->bt * (double)p->T > (double)PLAN_MAX_DIM * 2 ||
        (double)p->bu * (double)p->U > (double)PLAN_MAX_DIM * 2)
        return scheme_fail(err, errlen, "the padded dimensions are too large");
    p->prows = p->bs * p->S;
    p->pinner = p->bt * p->T;
    p->pcols = p->bu * p->U;

    /* Element counts: bits over GF(2) (and for the cubic Boolean product),
     * 32-bit integers on the Boolean path with levels. */
    bool zpath = p->boolean && p->levels > 0;
    double elem_bytes = zpath ? 4.0 : 1.0 / 8.0;
    double blk_a = (double)p->bs * (double)p->bt, blk_b = (double)p->bt * (double)p->bu,
           blk_c = (double)p->bs * (double)p->bu;
    double R = (double)p->R;
    if (R * blk_a > 1e18 || R * blk_b > 1e18 || R * blk_c > 1e18)
        return scheme_fail(err, errlen, "the expanded operands are too large");
    p->words_a = (uint64_t)(R * blk_a / 64);
    p->words_b = (uint64_t)(R * blk_b / 64);
    p->words_q = (uint64_t)(R * blk_c / 64);

    /* Operations and buffers level by level, in the executor's order: A and B
     * expand outermost level first, Q compresses innermost level first. */
    int d = p->levels;
    double ea = 0, eb = 0, cc = 0, peak = 0;
    double prev_a = (double)p->S * p->T * blk_a, prev_b = (double)p->T * p->U * blk_b;
    double left = 1; /* R of the levels before l */
    for (int l = 0; l < d; l++) {
        const export_plan_level *L = &p->level[l];
        double right_a = 1, right_b = 1;
        for (int k = l + 1; k < d; k++) {
            right_a *= (double)p->level[k].s * p->level[k].t;
            right_b *= (double)p->level[k].t * p->level[k].u;
        }
        double apps_a = left * right_a, apps_b = left * right_b;
        double pa = zpath ? dense_ops(L->xi_z, L->r, L->s * L->t) : L->slp[EXPORT_PLAN_XI].n_ops;
        double pb = zpath ? dense_ops(L->eta_z, L->r, L->t * L->u) : L->slp[EXPORT_PLAN_ETA].n_ops;
        ea += pa * apps_a * blk_a;
        eb += pb * apps_b * blk_b;
        double next_a = left * L->r * right_a * blk_a, next_b = left * L->r * right_b * blk_b;
        peak = fmax(peak, (prev_a + next_a) * elem_bytes);
        peak = fmax(peak, (R * blk_a + prev_b + next_b) * elem_bytes);
        prev_a = next_a;
        prev_b = next_b;
        left *= L->r;
    }
    peak = fmax(peak, (R * (blk_a + blk_b + blk_c)) * elem_bytes);
    double prev_q = R * blk_c;
    for (int l = d - 1; l >= 0; l--) {
        const export_plan_level *L = &p->level[l];
        double lft = 1, right = 1;
        for (int k = 0; k < l; k++)
            lft *= p->level[k].r;
        for (int k = l + 1; k < d; k++)
            right *= (double)p->level[k].s * p->level[k].u;
        double pz = zpath ? dense_ops(L->zeta_z, L->s * L->u, L->r) : L->slp[EXPORT_PLAN_ZETA].n_ops;
        cc += pz * lft * right * blk_c;
        double next_q = lft * L->s * L->u * right * blk_c;
        peak = fmax(peak, (prev_q + next_q) * elem_bytes);
        prev_q = next_q;
    }
    p->peak_bytes = peak;
    p->ops_expand_a = ea;
    p->ops_expand_b = eb;
    p->ops_compress = cc;
    p->ops_inner = R * (double)p->bs * (double)p->bu * (2.0 * (double)p->bt - 1.0);
    p->ops_total = ea + eb + cc + p->ops_inner;
    p->ops_effective = 2.0 * (double)rows * (double)inner * (double)cols - (double)rows * (double)cols;
    p->sized = true;
    return true;
}
