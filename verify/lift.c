/* Hensel lifting of a GF(2) scheme to the integers (docs/verify.md).
 *
 * Unknowns: every coefficient entry x = (a_r[e], b_r[e], c_r[e]) of every term.
 * Equations: F(x) = sum_r a_r[ea] b_r[eb] c_r[ec] - [j=j'][k=k'][i=i'] = 0.
 * Start from x ≡ the GF(2) scheme (mod 2).  When F(x) ≡ 0 mod 2^k, k >= 1, a
 * correction x + 2^k d gives
 *     F(x + 2^k d) ≡ F(x) + 2^k J(x) d   (mod 2^(k+1))
 * because F is trilinear and 2k >= k+1; and J(x) ≡ J0 = J(x mod 2) mod 2.  So
 * every step solves the same GF(2) system J0 d = F(x)/2^k mod 2 with a new
 * right-hand side: J0 is eliminated once (gf2.c) and reused.  After each step
 * x is kept as symmetric residues mod 2^(k+1); as soon as F(x) = 0 over Z the
 * scheme is an integer one, checked again by verify_z.
 *
 * Choice of the solution (the system is underdetermined): unknowns whose
 * GF(2) value is 1 are offered to the elimination before those whose value is
 * 0, so the zero entries become the free unknowns whenever possible and every
 * free unknown keeps its starting value (corrections are 0 there).  Zeros
 * therefore stay zero unless the equations force them, and a scheme whose lift
 * has the GF(2) scheme's support comes out with coefficients +-1.  The free
 * unknowns with value 1 are mostly gauge (scaling a term's factors by -1);
 * which sign they keep can matter, so when a lift does not settle, further
 * attempts give them random signs, and then shuffle the column order (a new
 * elimination, other free unknowns).  Solvability mod 4 does not depend on any
 * of these choices (changing x by 2 changes F/2 by a column of J0), so an
 * inconsistent first step proves there is no lift at all: that is how
 * <4,4,4> rank 47 of Kauers-Moosbauer is refused.
 *
 * Invariant lifts (verify_lift_options.symmetry): a group G of symmetries
 * (scheme.h) permutes the coefficient entries of an invariant scheme: entry
 * e of factor q of term r goes to entry e' of factor q' of the term g(r).
 * The lift ties the entries of each orbit of that action to one unknown, so
 * every x it reaches is invariant; the Jacobian column of a tied unknown is
 * the sum of its entries' columns (the chain rule), and the steps are the
 * same.  With ties, the system mod 4 being inconsistent proves only that no
 * *invariant* lift exists. */
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "gf2.h"
#include "verify_internal.h"

/* Symmetric residues mod 2^LIFT_KMAX can hold every int8_t coefficient with
 * room to spare; a lift that has not settled by then is not a small one. */
#define LIFT_KMAX 12
/* Default attempts: re-eliminating with a shuffled column order (other free
 * unknowns) succeeds far more often than new signs on the same free unknowns
 * (measured on flipped <4,4,4> schemes: 30/30 with 64 orders x 1 sign, 22/30
 * with 1 order x 64 signs), so most of the budget goes to orders. */
#define LIFT_ORDERS 16
#define LIFT_SIGNS 2
/* Refuse systems whose elimination would need more memory than this. */
#define LIFT_MAX_BYTES ((size_t)1 << 30)

typedef struct lift_ctx {
    scheme_format f;
    int R, na, nb, nc, L; /* L = na + nb + nc entries per term */
    int S;                /* entries: R * L */
    int N;                /* unknowns: each one or more entries (an orbit under the symmetry) */
    int *mem, *mem_start; /* unknown u's entries: mem[mem_start[u] .. mem_start[u + 1]) */
    scheme_symmetry sym;  /* the lift's symmetry (SCHEME_SYM_NONE: one entry per unknown) */
    int nfull;            /* na * nb * nc equations */
    int nrows;            /* equations whose Jacobian row is nonzero */
    int *rowmap;          /* nfull -> row of J, or -1 */
    const scheme *s0;     /* the GF(2) scheme */
    int *order;           /* column order offered to the elimination */
    bool *pivot;          /* per unknown: a pivot of the current elimination */
    int64_t *x;           /* the current point per entry, symmetric residues */
    int64_t *F;           /* residuals, nfull */
    uint64_t *rhs, *d;
    gf2_basis basis;
    scheme_rng rng;
    int defect; /* set where step 1 is inconsistent (verify_lift_result.defect) */
} lift_ctx;

/* Entry x is entry ent_entry(x) of factor ent_pos(x) of term x / L. */
static inline int ent_pos(const lift_ctx *c, int x)
{
    int o = x % c->L;
    return o < c->na ? 0 : o < c->na + c->nb ? 1 : 2;
}
static inline int ent_entry(const lift_ctx *c, int x)
{
    int o = x % c->L;
    return o < c->na ? o : o < c->na + c->nb ? o - c->na : o - c->na - c->nb;
}
static inline int ent_index(const lift_ctx *c, int r, int pos, int e)
{
    return r * c->L + (pos == 0 ? 0 : pos == 1 ? c->na : c->na + c->nb) + e;
}
/* The GF(2) value of unknown u (its entries all have it: the scheme is invariant). */
static inline int bit_of(const lift_ctx *c, int u)
{
    const int x = c->mem[c->mem_start[u]];
    return (int)((c->s0->terms[x / c->L].f[ent_pos(c, x)] >> ent_entry(c, x)) & 1);
}

/* Calls fn(ctx, full_row) for every equation the Jacobian column of entry x touches. */
static void entry_rows(const lift_ctx *c, int x, void (*fn)(void *, int), void *ctx)
{
    const scheme_term *t = &c->s0->terms[x / c->L];
    int pos = ent_pos(c, x), e = ent_entry(c, x);
    uint64_t A = t->f[0], B = t->f[1], C = t->f[2];
    if (pos == 0) A = 1ull << e;
    if (pos == 1) B = 1ull << e;
    if (pos == 2) C = 1ull << e;
    for (uint64_t a = A; a; a &= a - 1)
        for (uint64_t b = B; b; b &= b - 1) {
            int base = (__builtin_ctzll(a) * c->nb + __builtin_ctzll(b)) * c->nc;
            for (uint64_t cc = C; cc; cc &= cc - 1)
                fn(ctx, base + __builtin_ctzll(cc));
        }
}

/* The same for unknown u: its entries' rows, each once per entry (set_row
 * adds them mod 2). */
static void column_rows(const lift_ctx *c, int u, void (*fn)(void *, int), void *ctx)
{
    for (int i = c->mem_start[u]; i < c->mem_start[u + 1]; i++)
        entry_rows(c, c->mem[i], fn, ctx);
}

static void mark_row(void *ctx, int row) { ((int *)ctx)[row] = 1; }

typedef struct { const lift_ctx *c; uint64_t *v; } set_ctx;
static void set_row(void *ctx, int row)
{
    set_ctx *s = ctx;
    int j = s->c->rowmap[row];
    s->v[j / 64] ^= 1ull << (j % 64); /* a sum mod 2: tied entries may meet in a row */
}

static void shuffle(scheme_rng *rng, int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)scheme_rng_below(rng, (uint32_t)i + 1);
        int t = v[i]; v[i] = v[j]; v[j] = t;
    }
}

/* Column order: unknowns with GF(2) value 1, then those with value 0; within
 * each group the natural order (attempt 0) or a random one. */
static void make_order(lift_ctx *c, bool random)
{
    int k = 0;
    for (int g = 1; g >= 0; g--) {
        int start = k;
        for (int u = 0; u < c->N; u++)
            if (bit_of(c, u) == g)
                c->order[k++] = u;
        if (random)
            shuffle(&c->rng, c->order + start, k - start);
    }
}

static bool eliminate(lift_ctx *c)
{
    gf2_basis_free(&c->basis);
    if (!gf2_basis_init(&c->basis, c->nrows, c->N))
        return false;
    for (int i = 0; i < c->N; i++) {
        int u = c->order[i];
        set_ctx s = {c, gf2_basis_column(&c->basis)};
        column_rows(c, u, set_row, &s);
        /* The basis tracks combinations by position in the order. */
        c->pivot[u] = gf2_basis_insert(&c->basis, i);
    }
    return true;
}

/* F(x) over Z; true when it is zero everywhere.  |x| < 2^LIFT_KMAX, so a
 * product is below 2^36 and a sum of at most 4*SCHEME_MAX_RANK of them fits
 * int64 with room. */
static bool residual(lift_ctx *c)
{
    scheme_format f = c->f;
    for (int ea = 0; ea < c->na; ea++)
        for (int eb = 0; eb < c->nb; eb++)
            for (int ec = 0; ec < c->nc; ec++)
                c->F[(ea * c->nb + eb) * c->nc + ec] = -verify_expected(f, ea, eb, ec);
    int ia[SCHEME_MAX_ENTRIES], ib[SCHEME_MAX_ENTRIES], ic[SCHEME_MAX_ENTRIES];
    for (int r = 0; r < c->R; r++) {
        const int64_t *xa = c->x + (size_t)r * c->L, *xb = xa + c->na, *xc = xb + c->nb;
        int ka = 0, kb = 0, kc = 0;
        for (int e = 0; e < c->na; e++) if (xa[e]) ia[ka++] = e;
        for (int e = 0; e < c->nb; e++) if (xb[e]) ib[kb++] = e;
        for (int e = 0; e < c->nc; e++) if (xc[e]) ic[kc++] = e;
        for (int p = 0; p < ka; p++)
            for (int q = 0; q < kb; q++) {
                int64_t ab = xa[ia[p]] * xb[ib[q]];
                int64_t *row = c->F + ((size_t)ia[p] * c->nb + ib[q]) * c->nc;
                for (int s = 0; s < kc; s++)
                    row[ic[s]] += ab * xc[ic[s]];
            }
    }
    for (int i = 0; i < c->nfull; i++)
        if (c->F[i])
            return false;
    return true;
}

typedef enum { STEP_LIFTED, STEP_INCONSISTENT, STEP_UNSETTLED, STEP_BROKEN } step_outcome;

/* Runs the Hensel steps from the current x.  *k_out: the step that failed,
 * or the precision reached. */
static step_outcome run_steps(lift_ctx *c, int *k_out)
{
    for (int k = 1; k <= LIFT_KMAX; k++) {
        *k_out = k;
        if (residual(c))
            return STEP_LIFTED;
        if (k == LIFT_KMAX)
            return STEP_UNSETTLED;
        memset(c->rhs, 0, (size_t)c->basis.vw * 8);
        uint64_t low = (1ull << k) - 1;
        int untouched = 0; /* odd equations no unknown can correct */
        for (int i = 0; i < c->nfull; i++) {
            uint64_t v = (uint64_t)c->F[i];
            if (v & low)
                return STEP_BROKEN; /* F must vanish mod 2^k here: a bug, never an answer */
            if ((v >> k) & 1) {
                int j = c->rowmap[i];
                if (j < 0)
                    untouched++;
                else
                    c->rhs[j / 64] |= 1ull << (j % 64);
            }
        }
        if (untouched || !gf2_basis_solve(&c->basis, c->rhs, c->d)) {
            /* at step 1 the distance does not depend on x's choices (a change of x
             * by 2 moves the right-hand side by a column), so it is the scheme's */
            if (k == 1)
                c->defect = untouched + gf2_basis_residue_weight(&c->basis, c->rhs);
            return STEP_INCONSISTENT;
        }
        int64_t M = (int64_t)1 << (k + 1), half = M / 2;
        for (int i = 0; i < c->N; i++) {
            int u = c->order[i];
            const bool add = (c->d[i / 64] >> (i % 64)) & 1;
            for (int m = c->mem_start[u]; m < c->mem_start[u + 1]; m++) {
                const int x = c->mem[m];
                if (add)
                    c->x[x] += (int64_t)1 << k;
                int64_t y = c->x[x] % M;
                if (y < 0) y += M;
                if (y > half) y -= M;
                c->x[x] = y;
            }
        }
    }
    return STEP_UNSETTLED;
}

static scheme *lift_fail(verify_lift_result *res, verify_lift_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static scheme *lift_fail(verify_lift_result *res, verify_lift_status st, const char *fmt, ...)
{
    res->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->msg, sizeof res->msg, fmt, ap);
    va_end(ap);
    res->lifted = false;
    return NULL;
}

static void ctx_free(lift_ctx *c)
{
    gf2_basis_free(&c->basis);
    free(c->rowmap);
    free(c->order);
    free(c->pivot);
    free(c->x);
    free(c->F);
    free(c->rhs);
    free(c->d);
    free(c->mem);
    free(c->mem_start);
}

/* The integer scheme of the current x (NULL when a coefficient leaves int8_t). */
static scheme *build_scheme(lift_ctx *c, int *max_coeff)
{
    scheme *z = scheme_new(c->f, SCHEME_RING_Z, c->R);
    if (!z)
        return NULL;
    int mx = 0;
    for (int r = 0; r < c->R; r++) {
        scheme_zterm t;
        memset(&t, 0, sizeof t);
        const int64_t *xr = c->x + (size_t)r * c->L;
        int off[3] = {0, c->na, c->na + c->nb}, size[3] = {c->na, c->nb, c->nc};
        for (int pos = 0; pos < 3; pos++)
            for (int e = 0; e < size[pos]; e++) {
                int64_t v = xr[off[pos] + e];
                if (v < -127 || v > 127) {
                    scheme_free(z);
                    *max_coeff = (int)(v < 0 ? -v : v);
                    return NULL;
                }
                if ((v < 0 ? -v : v) > mx)
                    mx = (int)(v < 0 ? -v : v);
                t.z[pos][e] = (int8_t)v;
            }
        if (!scheme_push_z(z, &t)) {
            scheme_free(z);
            return NULL;
        }
    }
    *max_coeff = mx;
    return z;
}

static int uf_find(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* The unknowns: one per entry, or with c->sym one per orbit of entries under
 * the group (the scheme checked invariant, no term twice).  false with the
 * reason in err (out of memory: err empty). */
static bool tie_entries(lift_ctx *c, char *err, size_t errlen)
{
    err[0] = 0;
    c->mem = malloc((size_t)(c->S ? c->S : 1) * sizeof *c->mem);
    c->mem_start = malloc((size_t)(c->S + 1) * sizeof *c->mem_start);
    int *parent = malloc((size_t)(c->S ? c->S : 1) * sizeof *parent);
    if (!c->mem || !c->mem_start || !parent) {
        free(parent);
        return false;
    }
    for (int x = 0; x < c->S; x++)
        parent[x] = x;
    const int order = c->sym != SCHEME_SYM_NONE ? scheme_symmetry_order(c->sym) : 1;
    /* the action permutes the entries of the factors alike in every term:
     * image[k * L + o] is where element k takes a term's entry o (its offset
     * within the term), found once from the image of that entry alone */
    int *image = malloc((size_t)order * (size_t)c->L * sizeof *image);
    if (!image) {
        free(parent);
        return false;
    }
    for (int k = 1; k < order; k++)
        for (int o = 0; o < c->L; o++) {
            scheme_term probe = {{0, 0, 0}};
            probe.f[ent_pos(c, o)] = 1ull << ent_entry(c, o);
            const scheme_term pi = scheme_symmetry_image_fmt(c->sym, c->f, probe, k);
            int q = 0; /* the one factor where the entry went (a unit image has one) */
            while (q < 2 && !pi.f[q])
                q++;
            image[k * c->L + o] = ent_index(c, 0, q, __builtin_ctzll(pi.f[q]));
        }
    for (int r = 0; r < c->R; r++)
        for (int k = 1; k < order; k++) {
            const scheme_term img = scheme_symmetry_image_fmt(c->sym, c->f, c->s0->terms[r], k);
            int to = -1, matches = 0;
            for (int q = 0; q < c->R; q++)
                if (!memcmp(&c->s0->terms[q], &img, sizeof img)) {
                    to = q;
                    matches++;
                }
            if (matches != 1) {
                snprintf(err, errlen, "term %d's image under element %d of %s is %s", r + 1, k,
                         scheme_symmetry_name(c->sym), matches ? "a term twice (a repeated term)" : "not a term");
                free(image);
                free(parent);
                return false;
            }
            for (int o = 0; o < c->L; o++) {
                const int a = uf_find(parent, r * c->L + o);
                const int b = uf_find(parent, to * c->L + image[k * c->L + o]);
                parent[a < b ? b : a] = a < b ? a : b;
            }
        }
    free(image);
    /* unknowns numbered by their first entry; entries listed in order */
    int *id = malloc((size_t)(c->S ? c->S : 1) * sizeof *id), *count = calloc((size_t)c->S + 1, sizeof *count);
    if (!id || !count) {
        free(id);
        free(count);
        free(parent);
        return false;
    }
    c->N = 0;
    for (int x = 0; x < c->S; x++) {
        const int root = uf_find(parent, x);
        id[x] = root == x ? c->N++ : id[root];
        count[id[x] + 1]++;
    }
    for (int u = 0; u < c->N; u++)
        count[u + 1] += count[u];
    memcpy(c->mem_start, count, (size_t)(c->N + 1) * sizeof *count);
    for (int x = 0; x < c->S; x++)
        c->mem[count[id[x]]++] = x;
    free(id);
    free(count);
    free(parent);
    return true;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

scheme *verify_lift(const scheme *f2, verify_lift_result *res)
{
    return verify_lift_ex(f2, NULL, res);
}

static scheme *lift_run(lift_ctx *c, const verify_lift_options *opt, verify_lift_result *res);

static scheme *lift_in_given_order(const scheme *in, const verify_lift_options *opt,
                                   verify_lift_result *res);

typedef struct {
    scheme_term t;
    int index;
} lift_indexed_term;

static int lift_cmp_indexed(const void *x, const void *y)
{
    const lift_indexed_term *a = x, *b = y;
    for (int pos = 0; pos < 3; pos++)
        if (a->t.f[pos] != b->t.f[pos])
            return a->t.f[pos] < b->t.f[pos] ? -1 : 1;
    return a->index - b->index;
}

/* The lift depends on the order of the terms (the elimination's column
 * order).  It runs on the terms in canonical order, so that it is a function
 * of the scheme alone (a file and its stored copy lift alike), and the result
 * is put back in the input's order: term r of the lift reduces to term r of
 * the input. */
scheme *verify_lift_ex(const scheme *in, const verify_lift_options *opt, verify_lift_result *res)
{
    if (!in || in->rank <= 1 || in->ring != SCHEME_RING_F2)
        return lift_in_given_order(in, opt, res);
    int R = in->rank;
    lift_indexed_term *perm = malloc((size_t)R * sizeof *perm);
    scheme *sorted = scheme_clone(in);
    if (!perm || !sorted) {
        free(perm);
        scheme_free(sorted);
        return lift_in_given_order(in, opt, res);
    }
    for (int r = 0; r < R; r++)
        perm[r] = (lift_indexed_term){in->terms[r], r};
    qsort(perm, (size_t)R, sizeof *perm, lift_cmp_indexed);
    for (int r = 0; r < R; r++)
        sorted->terms[r] = perm[r].t;
    scheme *lifted = lift_in_given_order(sorted, opt, res);
    scheme_free(sorted);
    if (lifted && lifted->rank == R) {
        scheme_zterm *z = malloc((size_t)R * sizeof *z);
        if (z) {
            for (int r = 0; r < R; r++)
                z[perm[r].index] = lifted->zterms[r];
            lifted->rank = 0;
            for (int r = 0; r < R; r++)
                scheme_push_z(lifted, &z[r]);
            free(z);
        }
    }
    free(perm);
    return lifted;
}

static scheme *lift_in_given_order(const scheme *in, const verify_lift_options *opt,
                                   verify_lift_result *res)
{
    verify_lift_result local;
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    double t0 = now_s();
    verify_result vr;
    if (!in)
        return lift_fail(res, VERIFY_LIFT_BAD_INPUT, "no scheme");
    if (!verify_check_shape(in, &vr))
        return lift_fail(res, VERIFY_LIFT_BAD_INPUT, "not a scheme that can be lifted: %s", vr.msg);
    scheme *s0 = in->ring == SCHEME_RING_Z ? scheme_to_f2(in) : scheme_clone(in);
    if (!s0)
        return lift_fail(res, VERIFY_LIFT_TOO_LARGE, "out of memory");
    s0->ring = SCHEME_RING_F2;
    if (!verify_f2(s0, &vr)) {
        scheme_free(s0);
        return lift_fail(res, VERIFY_LIFT_BAD_INPUT, "not a valid GF(2) scheme (%s), so there is nothing to lift",
                         vr.msg);
    }
    lift_ctx c;
    memset(&c, 0, sizeof c);
    c.f = s0->fmt;
    c.s0 = s0;
    c.R = s0->rank;
    c.na = c.f.n * c.f.m;
    c.nb = c.f.m * c.f.p;
    c.nc = c.f.p * c.f.n;
    c.L = c.na + c.nb + c.nc;
    c.S = c.R * c.L;
    c.nfull = c.na * c.nb * c.nc;
    c.sym = opt ? (scheme_symmetry)opt->symmetry : SCHEME_SYM_NONE;
    scheme *out = NULL;
    if (c.sym != SCHEME_SYM_NONE) {
        char why[300];
        int term, elem;
        if (!scheme_symmetry_fits(c.sym, c.f, why, sizeof why)) {
            lift_fail(res, VERIFY_LIFT_BAD_INPUT, "no invariant lift under %s: %s", scheme_symmetry_name(c.sym), why);
            goto done;
        }
        if (!scheme_symmetry_check(s0, c.sym, &term, &elem, why, sizeof why)) {
            lift_fail(res, VERIFY_LIFT_BAD_INPUT, "no invariant lift: the scheme is not invariant under %s: %s",
                      scheme_symmetry_name(c.sym), why);
            goto done;
        }
    }
    {
        char why[300];
        if (!tie_entries(&c, why, sizeof why)) {
            lift_fail(res, why[0] ? VERIFY_LIFT_BAD_INPUT : VERIFY_LIFT_TOO_LARGE, "%s",
                      why[0] ? why : "out of memory");
            goto done;
        }
    }
    res->unknowns = c.N;
    c.rowmap = calloc((size_t)c.nfull, sizeof *c.rowmap);
    if (!c.rowmap) {
        lift_fail(res, VERIFY_LIFT_TOO_LARGE, "out of memory");
        goto done;
    }
    for (int u = 0; u < c.N; u++)
        column_rows(&c, u, mark_row, c.rowmap);
    for (int i = 0; i < c.nfull; i++)
        c.rowmap[i] = c.rowmap[i] ? c.nrows++ : -1;
    res->equations = c.nrows;
    if (gf2_basis_bytes(c.nrows, c.N) > LIFT_MAX_BYTES) {
        lift_fail(res, VERIFY_LIFT_TOO_LARGE,
                  "too large to lift here: %d unknowns and %d equations would need %zu MiB (limit %zu MiB)", c.N,
                  c.nrows, gf2_basis_bytes(c.nrows, c.N) >> 20, LIFT_MAX_BYTES >> 20);
        goto done;
    }
    c.order = malloc((size_t)(c.N ? c.N : 1) * sizeof *c.order);
    c.pivot = calloc((size_t)(c.N ? c.N : 1), sizeof *c.pivot);
    c.x = calloc((size_t)(c.S ? c.S : 1), sizeof *c.x);
    c.F = calloc((size_t)c.nfull, sizeof *c.F);
    c.rhs = calloc((size_t)c.nrows / 64 + 2, 8);
    c.d = calloc((size_t)c.N / 64 + 2, 8);
    if (!c.order || !c.pivot || !c.x || !c.F || !c.rhs || !c.d) {
        lift_fail(res, VERIFY_LIFT_TOO_LARGE, "out of memory");
        goto done;
    }
    scheme_rng_seed(&c.rng, opt && opt->seed ? opt->seed : 0x6c696674ull /* "lift" */);
    out = lift_run(&c, opt, res);
done:
    ctx_free(&c);
    scheme_free(s0);
    res->seconds = now_s() - t0;
    return out;
}

/* The result of a lift found at modulus 2^k in attempt `attempt`. */
static scheme *lifted(const lift_ctx *c, verify_lift_result *res, scheme *z, int k, int mx, int attempt)
{
    res->lifted = true;
    res->max_coeff = mx;
    res->precision = k;
    snprintf(res->msg, sizeof res->msg,
             "lifted to Z at modulus 2^%d (attempt %d of %d; %d unknowns, %d equations, Jacobian rank %d mod 2), "
             "coefficients at most %d in absolute value",
             k, attempt, res->attempts, c->N, c->nrows, c->basis.count, mx);
    return z;
}

static scheme *lift_run(lift_ctx *c, const verify_lift_options *opt, verify_lift_result *res)
{
    int orders = opt && opt->orders > 0 ? opt->orders : LIFT_ORDERS;
    int signs = opt && opt->sign_attempts > 0 ? opt->sign_attempts : LIFT_SIGNS;
    int n_incons = 0, n_unsettled = 0, n_big = 0, first_k = 0, last_k = 0;
    const int want = opt && opt->max_coef > 0 ? opt->max_coef : 0;
    scheme *kept = NULL; /* with want: the lift of the smallest coefficients so far, beyond want */
    int kept_mx = 0, kept_k = 0, kept_attempt = 0;
    char fb[32];
    for (int o = 0; o < orders; o++) {
        make_order(c, o > 0);
        if (!eliminate(c)) {
            scheme_free(kept);
            return lift_fail(res, VERIFY_LIFT_TOO_LARGE, "out of memory for the elimination (%d x %d)", c->nrows,
                             c->N);
        }
        res->jacobian_rank = c->basis.count;
        int free_ones = 0;
        for (int u = 0; u < c->N; u++)
            free_ones += !c->pivot[u] && bit_of(c, u);
        for (int sa = 0; sa < signs; sa++) {
            res->attempts++;
            for (int u = 0; u < c->N; u++) {
                int v = bit_of(c, u);
                if (sa > 0 && v && !c->pivot[u] && (scheme_rng_next(&c->rng) >> 63))
                    v = -1;
                for (int m = c->mem_start[u]; m < c->mem_start[u + 1]; m++)
                    c->x[c->mem[m]] = v;
            }
            int k = 0;
            step_outcome so = run_steps(c, &k);
            res->precision = k;
            if (so == STEP_BROKEN) {
                scheme_free(kept);
                return lift_fail(res, VERIFY_LIFT_INTERNAL,
                                 "internal error: the residual is not divisible by 2^%d at step %d", k, k);
            }
            if (so == STEP_LIFTED) {
                int mx = 0;
                scheme *z = build_scheme(c, &mx);
                if (!z) {
                    n_big++;
                    continue;
                }
                verify_result vr;
                if (!verify_z(z, &vr)) {
                    scheme_free(z);
                    scheme_free(kept);
                    return lift_fail(res, VERIFY_LIFT_INTERNAL,
                                     "internal error: the lift solves F = 0 but verify_z says: %s", vr.msg);
                }
                if (want && mx > want) { /* keep it, try on for one within want */
                    if (!kept || mx < kept_mx) {
                        scheme_free(kept);
                        kept = z;
                        kept_mx = mx;
                        kept_k = k;
                        kept_attempt = res->attempts;
                    } else {
                        scheme_free(z);
                    }
                    if (!free_ones)
                        break; /* as below: another sign attempt would repeat this one */
                    continue;
                }
                scheme_free(kept);
                return lifted(c, res, z, k, mx, res->attempts);
            }
            if (so == STEP_INCONSISTENT) {
                if (k == 1) {
                    scheme_free(kept);
                    res->defect = c->defect;
                    if (c->sym != SCHEME_SYM_NONE) /* tied unknowns: only the invariant lifts are ruled out */
                        return lift_fail(res, VERIFY_LIFT_NONE,
                                         "%s rank %d has no lift invariant under %s: already modulo 4 the Brent "
                                         "equations have no invariant solution that reduces to this scheme (step 1: "
                                         "the linear system of the tied unknowns, %d unknowns, %d equations, rank %d, "
                                         "is inconsistent, its defect %d); lifts that are not invariant are not "
                                         "ruled out",
                                         scheme_format_str(c->f, fb), c->R, scheme_symmetry_name(c->sym), c->N,
                                         c->nrows, c->basis.count, c->defect);
                    return lift_fail(res, VERIFY_LIFT_NONE,
                                     "%s rank %d does not lift to Z: already modulo 4 the Brent equations have "
                                     "no solution that reduces to this scheme (step 1: the linear system of the "
                                     "Jacobian mod 2, %d unknowns, %d equations, rank %d, is inconsistent, its "
                                     "defect %d; this does not depend on any choice)",
                                     scheme_format_str(c->f, fb), c->R, c->N, c->nrows, c->basis.count,
                                     c->defect);
                }
                n_incons++;
                if (!first_k)
                    first_k = k;
                last_k = k;
            } else {
                n_unsettled++;
            }
            if (!free_ones)
                break; /* no sign to choose: more attempts would repeat this one */
        }
    }
    if (kept)
        return lifted(c, res, kept, kept_k, kept_mx, kept_attempt);
    char a[120] = "", b[80] = "", d[80] = "";
    if (n_incons)
        snprintf(a, sizeof a, "%d hit an inconsistent system (first at modulus 2^%d, last at 2^%d); ", n_incons,
                 first_k + 1, last_k + 1);
    if (n_unsettled)
        snprintf(b, sizeof b, "%d did not settle on integers below 2^%d; ", n_unsettled, LIFT_KMAX - 1);
    if (n_big)
        snprintf(d, sizeof d, "%d needed coefficients beyond -127..127; ", n_big);
    return lift_fail(res, VERIFY_LIFT_NOT_FOUND,
                     "%s rank %d: no integer lift found in %d attempts (%d column orders, up to %d sign choices "
                     "each): %s%s%sthe scheme does lift modulo 4, so an integer lift may still exist that these "
                     "choices of free unknowns miss (more attempts may find it)",
                     scheme_format_str(c->f, fb), c->R, res->attempts, orders, signs, a, b, d);
}
