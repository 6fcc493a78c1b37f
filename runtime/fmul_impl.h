/* Internal to runtime/fmul.c: the float product for one type, included once
 * with FT = float, SFX = s, GEMM = cblas_sgemm and once for double.  The
 * recursion follows Huang, Smith, Henry, van de Geijn, "Strassen's algorithm
 * reloaded" (2016) in its plain form (explicit operand sums into workspace, the
 * BLAS for the products) with peeling as in Benson, Ballard, "A framework for
 * practical parallel fast matrix multiplication" (2015). */

#define FM_CAT2(a, b) a##b
#define FM_CAT(a, b) FM_CAT2(a, b)
#define FM(name) FM_CAT(name, SFX)

static void FM(fm_gemm_)(fm_ctx *x, uint64_t M, uint64_t K, uint64_t N, FT alpha, const FT *A,
                         uint64_t lda, const FT *B, uint64_t ldb, bool beta, FT *C, uint64_t ldc)
{
    if (M == 0 || N == 0)
        return;
    if (K == 0) {
        /* No terms: C = beta C. */
        if (!beta)
            for (uint64_t i = 0; i < M; i++)
                memset(C + i * ldc, 0, N * sizeof(FT));
        return;
    }
    double t0 = rt_clock();
#ifdef FLIPGRAPH_OPENBLAS
    GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)M, (blasint)N, (blasint)K, alpha, A,
         (blasint)lda, B, (blasint)ldb, beta ? (FT)1 : (FT)0, C, (blasint)ldc);
#else
    /* Built without a BLAS (-DFLIPGRAPH_BLAS=OFF, for machines that lack it):
     * the plain loop, correct and slow. */
    for (uint64_t i = 0; i < M; i++) {
        FT *c = C + i * ldc;
        if (!beta)
            memset(c, 0, N * sizeof(FT));
        for (uint64_t k = 0; k < K; k++) {
            FT a = alpha * A[i * lda + k];
            const FT *b = B + k * ldb;
            for (uint64_t j = 0; j < N; j++)
                c[j] += a * b[j];
        }
    }
#endif
    x->gemm += rt_clock() - t0;
    x->gemm_calls++;
}

/* T = sum_j coef_j X_j over rows x cols, the X_j at offsets from base. */
typedef struct {
    FT *dst;
    uint64_t ldd, cols;
    int n;
    const FT *src[SCHEME_MAX_ENTRIES];
    uint64_t lds;
    FT coef[SCHEME_MAX_ENTRIES];
} FM(fm_sum_job_);

RT_CLONES static void FM(fm_sum_rows_)(void *ctx, uint64_t b, uint64_t e, int thread)
{
    const FM(fm_sum_job_) *j = ctx;
    for (uint64_t r = b; r < e; r++) {
        FT *d = j->dst + r * j->ldd;
        const FT *s0 = j->src[0] + r * j->lds;
        FT c0 = j->coef[0];
        for (uint64_t c = 0; c < j->cols; c++)
            d[c] = c0 * s0[c];
        for (int t = 1; t < j->n; t++) {
            const FT *s = j->src[t] + r * j->lds;
            FT ct = j->coef[t];
            for (uint64_t c = 0; c < j->cols; c++)
                d[c] += ct * s[c];
        }
    }
}

/* C_t = (keep_t ? C_t : 0) + coef_t Q for each target t. */
typedef struct {
    const FT *q;
    uint64_t ldq, cols;
    int n;
    FT *dst[SCHEME_MAX_ENTRIES];
    uint64_t ldd;
    FT coef[SCHEME_MAX_ENTRIES];
    bool keep[SCHEME_MAX_ENTRIES];
} FM(fm_acc_job_);

RT_CLONES static void FM(fm_acc_rows_)(void *ctx, uint64_t b, uint64_t e, int thread)
{
    const FM(fm_acc_job_) *j = ctx;
    for (uint64_t r = b; r < e; r++) {
        const FT *q = j->q + r * j->ldq;
        for (int t = 0; t < j->n; t++) {
            FT *d = j->dst[t] + r * j->ldd;
            FT ct = j->coef[t];
            if (j->keep[t])
                for (uint64_t c = 0; c < j->cols; c++)
                    d[c] += ct * q[c];
            else
                for (uint64_t c = 0; c < j->cols; c++)
                    d[c] = ct * q[c];
        }
    }
}

/* The fused sum (runtime.h, rt_fsum): each output row from every source row
 * with a nonzero coefficient, sources in increasing order. */
static void FM(fm_fsum_)(uint64_t rows, uint64_t cols, int nsrc, const FT *const *src, uint64_t lds,
                         int nout, FT *const *dst, uint64_t ldd, const int *coef, const bool *keep)
{
    for (int o = 0; o < nout; o++) {
        const int *co = coef + (size_t)o * (size_t)nsrc;
        int first = 0;
        while (first < nsrc && co[first] == 0)
            first++;
        if (first == nsrc)
            continue; /* no term: the output is not touched */
        for (uint64_t r = 0; r < rows; r++) {
            FT *d = dst[o] + r * ldd;
            if (!keep || !keep[o])
                for (uint64_t c = 0; c < cols; c++)
                    d[c] = (FT)0;
            for (int s = first; s < nsrc; s++) {
                if (co[s] == 0)
                    continue;
                const FT *q = src[s] + r * lds;
                FT k = (FT)co[s];
                for (uint64_t c = 0; c < cols; c++)
                    d[c] += k * q[c];
            }
        }
    }
}

static void FM(fm_run_)(fm_ctx *x, uint64_t rows, rt_range_fn fn, void *job)
{
    /* On the calling thread only: the BLAS's threads spin for a while after each
     * GEMM, and sum threads of our own then wait behind them for time slices.
     * Measured on the 2-core box (bench multiply --type f64, n = 300, two
     * Strassen levels): 0.109 s with 2 sum threads, 0.0019 s with one. */
    double t0 = rt_clock();
    fn(job, 0, rows, 0);
    x->adds += rt_clock() - t0;
}

static void FM(fm_rec_)(fm_ctx *x, int depth, uint64_t M, uint64_t K, uint64_t N, FT alpha,
                        const FT *A, uint64_t lda, const FT *B, uint64_t ldb, bool beta, FT *C,
                        uint64_t ldc);

/* One level's core (Mb n x Kb m x Nb p) with the fused schedule: one pass for
 * all the A sums, one for all the B sums, the products that feed one C block
 * straight into it (alpha, beta) and those that feed several into their Q
 * slots, then one pass adding the Q slots into C (each C block written once
 * more).  The products are independent of each other, so that the GPU runs
 * them all between one fork and one join (cuda/rt_fmul.cu's fused level, which
 * does the same operations in the same order). */
static void FM(fm_fused_)(fm_ctx *x, int depth, uint64_t Mb, uint64_t Kb, uint64_t Nb, FT alpha,
                          const FT *A, uint64_t lda, const FT *B, uint64_t ldb, bool beta, FT *C,
                          uint64_t ldc)
{
    const rt_flevel *L = &x->plan->lv[depth];
    FT *T = x->ws[depth].t, *S = x->ws[depth].s, *Q = x->ws[depth].q;
    int nm = L->n * L->m, mp = L->m * L->p, np = L->n * L->p;
    const FT *src[SCHEME_MAX_ENTRIES];
    FT *dst[SCHEME_MAX_RANK];
    double t0 = rt_clock();
    for (int b = 0; b < nm; b++)
        src[b] = A + (uint64_t)(b / L->m) * Mb * lda + (uint64_t)(b % L->m) * Kb;
    for (int o = 0; o < L->nt; o++)
        dst[o] = T + (uint64_t)o * Mb * Kb;
    FM(fm_fsum_)(Mb, Kb, nm, src, lda, L->nt, dst, Kb, L->ta, NULL);
    for (int b = 0; b < mp; b++)
        src[b] = B + (uint64_t)(b / L->p) * Kb * ldb + (uint64_t)(b % L->p) * Nb;
    for (int o = 0; o < L->ns; o++)
        dst[o] = S + (uint64_t)o * Kb * Nb;
    FM(fm_fsum_)(Kb, Nb, mp, src, ldb, L->ns, dst, Nb, L->sb, NULL);
    x->adds += rt_clock() - t0;
#define C_BLK(b) (C + (uint64_t)((b) / L->p) * Mb * ldc + (uint64_t)((b) % L->p) * Nb)
    bool written[SCHEME_MAX_ENTRIES];
    for (int b = 0; b < np; b++)
        written[b] = beta;
    for (int h = 0; h < L->rank; h++) {
        const rt_fterm *t = &L->terms[h];
        if (t->na == 0 || t->nb == 0 || t->nc == 0)
            continue;
        FT scale = alpha;
        const FT *tp = L->t_slot[h] >= 0 ? T + (uint64_t)L->t_slot[h] * Mb * Kb
                                         : A + (uint64_t)(t->a_blk[0] / L->m) * Mb * lda +
                                               (uint64_t)(t->a_blk[0] % L->m) * Kb;
        uint64_t ldt = L->t_slot[h] >= 0 ? Kb : lda;
        if (L->t_slot[h] < 0)
            scale *= (FT)t->a_coef[0];
        const FT *sp = L->s_slot[h] >= 0 ? S + (uint64_t)L->s_slot[h] * Kb * Nb
                                         : B + (uint64_t)(t->b_blk[0] / L->p) * Kb * ldb +
                                               (uint64_t)(t->b_blk[0] % L->p) * Nb;
        uint64_t lds = L->s_slot[h] >= 0 ? Nb : ldb;
        if (L->s_slot[h] < 0)
            scale *= (FT)t->b_coef[0];
        if (L->q_slot[h] >= 0) {
            FM(fm_rec_)(x, depth + 1, Mb, Kb, Nb, scale, tp, ldt, sp, lds, false,
                        Q + (uint64_t)L->q_slot[h] * Mb * Nb, Nb);
        } else {
            int b = t->c_blk[0];
            FM(fm_rec_)(x, depth + 1, Mb, Kb, Nb, scale * (FT)t->c_coef[0], tp, ldt, sp, lds, written[b],
                        C_BLK(b), ldc);
            written[b] = true;
        }
    }
    if (L->nq > 0) {
        t0 = rt_clock();
        const FT *qs[SCHEME_MAX_RANK];
        FT *cs[SCHEME_MAX_ENTRIES];
        bool keep[SCHEME_MAX_ENTRIES];
        for (int o = 0; o < L->nq; o++)
            qs[o] = Q + (uint64_t)o * Mb * Nb;
        for (int b = 0; b < np; b++) {
            cs[b] = C_BLK(b);
            keep[b] = written[b];
            for (int o = 0; o < L->nq; o++)
                written[b] |= L->qc[(size_t)b * L->nq + o] != 0;
        }
        FM(fm_fsum_)(Mb, Nb, L->nq, qs, Nb, np, cs, ldc, L->qc, keep);
        x->adds += rt_clock() - t0;
    }
    /* A valid scheme feeds every block of C; a block it did not feed is 0 A B. */
    for (int b = 0; b < np; b++)
        if (!written[b])
            for (uint64_t i = 0; i < Mb; i++)
                memset(C_BLK(b) + i * ldc, 0, Nb * sizeof(FT));
#undef C_BLK
}

/* D = a X + b Y over rows x cols (a, b are +-1 here, so each entry is one
 * rounding of the exact sum); D may be X.  The element loops of the sums are
 * compiled for AVX-512, AVX2 and the baseline (RT_CLONES) and vectorized
 * (CMakeLists.txt gives runtime/fmul.c the vectorizer's dynamic cost model,
 * which -O2 leaves out): at n = 4096 on one core the scalar loops moved
 * 8-12 GB/s (bench/RESULTS.md). */
RT_CLONES static void FM(fm_lin2_rows_)(uint64_t rows, uint64_t cols, FT *D, uint64_t ldd, FT a,
                                        const FT *X, uint64_t ldx, FT b, const FT *Y, uint64_t ldy)
{
    for (uint64_t r = 0; r < rows; r++) {
        FT *d = D + r * ldd;
        const FT *p = X + r * ldx, *q = Y + r * ldy;
        for (uint64_t c = 0; c < cols; c++)
            d[c] = a * p[c] + b * q[c];
    }
}

static void FM(fm_lin2_)(fm_ctx *x, uint64_t rows, uint64_t cols, FT *D, uint64_t ldd, FT a,
                         const FT *X, uint64_t ldx, FT b, const FT *Y, uint64_t ldy)
{
    double t0 = rt_clock();
    FM(fm_lin2_rows_)(rows, cols, D, ldd, a, X, ldx, b, Y, ldy);
    x->adds += rt_clock() - t0;
}

/* Winograd's one pass over C where C is overwritten (fm_winograd_): C12 holds
 * P6, C11 P1, C21 P7, C22 P5; after it C12 = U4, C21 = U3, C22 = U7. */
RT_CLONES static void FM(fm_wpost_rows_)(uint64_t rows, uint64_t cols, const FT *C11, FT *C12, FT *C21,
                                         FT *C22, uint64_t ldc)
{
    for (uint64_t r = 0; r < rows; r++) {
        const FT *c11 = C11 + r * ldc;
        FT *c12 = C12 + r * ldc, *c21 = C21 + r * ldc, *c22 = C22 + r * ldc;
        for (uint64_t c = 0; c < cols; c++) {
            FT u2 = c12[c] + c11[c];
            FT u3 = c21[c] + u2;
            c12[c] = u2 + c22[c];
            c21[c] = u3;
            c22[c] = c22[c] + u3;
        }
    }
}

/* C_t += Z for the n targets. */
static void FM(fm_addz_)(fm_ctx *x, uint64_t rows, uint64_t cols, const FT *Z, uint64_t ldz, int n,
                         FT *t0p, FT *t1p, FT *t2p, uint64_t ldc)
{
    FM(fm_acc_job_) j;
    j.q = Z;
    j.ldq = ldz;
    j.cols = cols;
    j.n = n;
    j.ldd = ldc;
    FT *t[3] = {t0p, t1p, t2p};
    for (int q = 0; q < n; q++) {
        j.dst[q] = t[q];
        j.coef[q] = (FT)1;
        j.keep[q] = true;
    }
    FM(fm_run_)(x, rows, FM(fm_acc_rows_), &j);
}

/* Winograd's first operand sums in one pass a side (fm_winograd_): from A11,
 * A21, A22 the sums S3 = A11 - A21, S1 = A21 + A22, S2 = S1 - A11, and from
 * B11, B12, B22 the sums T3 = B22 - B12, T1 = B12 - B11, T2 = B22 - T1, each
 * source read once and each sum written once (6 blocks moved, against 9 in
 * three passes); S2 and T2 from the rounded S1 and T1, as the sequential form
 * computes them. */
RT_CLONES static void FM(fm_wsum3a_rows_)(uint64_t rows, uint64_t cols, const FT *A11, const FT *A21,
                                          const FT *A22, uint64_t lda, FT *S3, FT *S1, FT *S2, uint64_t ldd)
{
    for (uint64_t r = 0; r < rows; r++) {
        const FT *a11 = A11 + r * lda, *a21 = A21 + r * lda, *a22 = A22 + r * lda;
        FT *s3 = S3 + r * ldd, *s1 = S1 + r * ldd, *s2 = S2 + r * ldd;
        for (uint64_t c = 0; c < cols; c++) {
            FT t = a21[c] + a22[c];
            s3[c] = a11[c] - a21[c];
            s1[c] = t;
            s2[c] = t - a11[c];
        }
    }
}

RT_CLONES static void FM(fm_wsum3b_rows_)(uint64_t rows, uint64_t cols, const FT *B11, const FT *B12,
                                          const FT *B22, uint64_t ldb, FT *T3, FT *T1, FT *T2, uint64_t ldd)
{
    for (uint64_t r = 0; r < rows; r++) {
        const FT *b11 = B11 + r * ldb, *b12 = B12 + r * ldb, *b22 = B22 + r * ldb;
        FT *t3 = T3 + r * ldd, *t1 = T1 + r * ldd, *t2 = T2 + r * ldd;
        for (uint64_t c = 0; c < cols; c++) {
            FT u = b12[c] - b11[c];
            t3[c] = b22[c] - b12[c];
            t1[c] = u;
            t2[c] = b22[c] - u;
        }
    }
}

/* One Winograd level (rt_flevel.winograd) on the core Mb 2 x Kb 2 x Nb 2, in
 * the order of Boyer, Dumas, Pernet, Zhou 2009 ("Memory efficient scheduling
 * of Strassen-Winograd's matrix multiplication algorithm"), with three
 * temporaries a side instead of their one: S3, S1, S2 formed in one pass
 * (fm_wsum3a_rows_), T3, T1, T2 likewise (fm_wsum3b_rows_), S4 = A12 - S2
 * over S3's slot, T4 = T2 - B21 over T3's, and where C
 * is overwritten (beta false) C's own blocks holding products until one pass:
 * P7, P5, P1, P6 go straight into C21, C22, C11, C12, one pass over those four
 * blocks forms U2 = P1 + P6, U4 = U2 + P5 (C12), U3 = U2 + P7 (C21),
 * U7 = U3 + P5 (C22), and P3, P4, P2 are added by the GEMM's beta.  Counted
 * in blocks read or written outside the GEMMs: 6 + 6 for the first sums, 3 + 3
 * for S4 and T4, 7 for the pass (4 read, 3 written): 25, against 31 with one
 * temporary a side (Boyer et al.'s memory) and 53 for the plain schedule on
 * Strassen's form (docs/float.md).  Where C is kept (beta) the products that
 * feed several blocks go through Z (the level's Q) and one pass each adds Z
 * to its blocks: 18 + 20.  Same products and signs as the scheme's terms
 * (built-in "winograd", runtime/builtin.c). */
static void FM(fm_winograd_)(fm_ctx *x, int depth, uint64_t Mb, uint64_t Kb, uint64_t Nb, FT alpha,
                             const FT *A, uint64_t lda, const FT *B, uint64_t ldb, bool beta, FT *C,
                             uint64_t ldc)
{
    const FT *A11 = A, *A12 = A + Kb, *A21 = A + Mb * lda, *A22 = A21 + Kb;
    const FT *B11 = B, *B12 = B + Nb, *B21 = B + Kb * ldb, *B22 = B21 + Nb;
    FT *C11 = C, *C12 = C + Nb, *C21 = C + Mb * ldc, *C22 = C21 + Nb;
    /* Three slots a side (fm_part_run allocates them for Winograd levels). */
    FT *X3 = x->ws[depth].t, *X1 = X3 + Mb * Kb, *X2 = X1 + Mb * Kb;
    FT *Y3 = x->ws[depth].s, *Y1 = Y3 + Kb * Nb, *Y2 = Y1 + Kb * Nb;
    FT *Z = x->ws[depth].q;
    const FT one = (FT)1;
    int d1 = depth + 1;
    double t0 = rt_clock();
    FM(fm_wsum3a_rows_)(Mb, Kb, A11, A21, A22, lda, X3, X1, X2, Kb);
    FM(fm_wsum3b_rows_)(Kb, Nb, B11, B12, B22, ldb, Y3, Y1, Y2, Nb);
    x->adds += rt_clock() - t0;
    if (!beta) {
        FM(fm_rec_)(x, d1, Mb, Kb, Nb, alpha, X3, Kb, Y3, Nb, false, C21, ldc); /* P7 */
        FM(fm_rec_)(x, d1, Mb, Kb, Nb, alpha, X1, Kb, Y1, Nb, false, C22, ldc); /* P5 */
        FM(fm_rec_)(x, d1, Mb, Kb, Nb, alpha, A11, lda, B11, ldb, false, C11, ldc); /* P1 */
        FM(fm_rec_)(x, d1, Mb, Kb, Nb, alpha, X2, Kb, Y2, Nb, false, C12, ldc); /* P6 */
        /* C12 = P6 + P1 + P5 (U4), C21 = P7 + P1 + P6 (U3), C22 = P5 + U3 (U7). */
        t0 = rt_clock();
        FM(fm_wpost_rows_)(Mb, Nb, C11, C12, C21, C22, ldc);
        x->adds += rt_clock() - t0;
    } else {
        FM(fm_rec_)(x, d1, Mb, Kb, Nb, alpha, X3, Kb, Y3, Nb, false, Z, Nb); /* P7 */
        FM(fm_addz_)(x, Mb, Nb, Z, Nb, 2, C21, C22, NULL, ldc);
        FM(fm_rec_)(x, d1, Mb, Kb, Nb, alpha, X1, Kb, Y1, Nb, false, Z, Nb); /* P5 */
        FM(fm_addz_)(x, Mb, Nb, Z, Nb, 2, C12, C22, NULL, ldc);
        FM(fm_rec_)(x, d1, Mb, Kb, Nb, alpha, A11, lda, B11, ldb, false, Z, Nb); /* P1 */
        FM(fm_addz_)(x, Mb, Nb, Z, Nb, 1, C11, NULL, NULL, ldc);
        FM(fm_rec_)(x, d1, Mb, Kb, Nb, alpha, X2, Kb, Y2, Nb, true, Z, Nb); /* U2 = P1 + P6 */
        FM(fm_addz_)(x, Mb, Nb, Z, Nb, 3, C12, C21, C22, ldc);
    }
    /* S4 = A12 - S2: P3 into C12; T4 = T2 - B21: -P4 into C21; P2 into C11. */
    FM(fm_lin2_)(x, Mb, Kb, X3, Kb, one, A12, lda, -one, X2, Kb);
    FM(fm_rec_)(x, d1, Mb, Kb, Nb, alpha, X3, Kb, B22, ldb, true, C12, ldc);
    FM(fm_lin2_)(x, Kb, Nb, Y3, Nb, one, Y2, Nb, -one, B21, ldb);
    FM(fm_rec_)(x, d1, Mb, Kb, Nb, -alpha, A22, lda, Y3, Nb, true, C21, ldc);
    FM(fm_rec_)(x, d1, Mb, Kb, Nb, alpha, A12, lda, B21, ldb, true, C11, ldc);
}

/* C = alpha A B (+ C when beta): A is M x K (lda), B K x N (ldb), C M x N (ldc),
 * with the levels depth.. of the plan. */
static void FM(fm_rec_)(fm_ctx *x, int depth, uint64_t M, uint64_t K, uint64_t N, FT alpha,
                        const FT *A, uint64_t lda, const FT *B, uint64_t ldb, bool beta, FT *C,
                        uint64_t ldc)
{
    if (depth == x->plan->levels) {
        FM(fm_gemm_)(x, M, K, N, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    const rt_flevel *L = &x->plan->lv[depth];
    uint64_t Mb = M / (uint64_t)L->n, Kb = K / (uint64_t)L->m, Nb = N / (uint64_t)L->p;
    if (Mb == 0 || Kb == 0 || Nb == 0) {
        /* Smaller than the scheme's blocks: this level and those below do nothing. */
        FM(fm_gemm_)(x, M, K, N, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    uint64_t Mc = Mb * (uint64_t)L->n, Kc = Kb * (uint64_t)L->m, Nc = Nb * (uint64_t)L->p;
    if (x->fused) {
        FM(fm_fused_)(x, depth, Mb, Kb, Nb, alpha, A, lda, B, ldb, beta, C, ldc);
        goto peel;
    }
    if (L->winograd) {
        FM(fm_winograd_)(x, depth, Mb, Kb, Nb, alpha, A, lda, B, ldb, beta, C, ldc);
        goto peel;
    }
    FT *T = x->ws[depth].t, *S = x->ws[depth].s, *Q = x->ws[depth].q;
    bool written[SCHEME_MAX_ENTRIES];
    memset(written, 0, sizeof written);
#define A_BLK(b) (A + (uint64_t)((b) / L->m) * Mb * lda + (uint64_t)((b) % L->m) * Kb)
#define B_BLK(b) (B + (uint64_t)((b) / L->p) * Kb * ldb + (uint64_t)((b) % L->p) * Nb)
#define C_BLK(b) (C + (uint64_t)((b) / L->p) * Mb * ldc + (uint64_t)((b) % L->p) * Nb)
    for (int h = 0; h < L->rank; h++) {
        const rt_fterm *t = &L->terms[h];
        if (t->na == 0 || t->nb == 0 || t->nc == 0)
            continue;
        const FT *tp, *sp;
        uint64_t ldt, lds;
        FT scale = alpha;
        if (t->na == 1) {
            /* A single block: used in place, its coefficient moves into alpha. */
            tp = A_BLK(t->a_blk[0]);
            ldt = lda;
            scale *= (FT)t->a_coef[0];
        } else {
            FM(fm_sum_job_) j;
            j.dst = T;
            j.ldd = Kb;
            j.cols = Kb;
            j.n = t->na;
            j.lds = lda;
            for (int q = 0; q < t->na; q++) {
                j.src[q] = A_BLK(t->a_blk[q]);
                j.coef[q] = (FT)t->a_coef[q];
            }
            FM(fm_run_)(x, Mb, FM(fm_sum_rows_), &j);
            tp = T;
            ldt = Kb;
        }
        if (t->nb == 1) {
            sp = B_BLK(t->b_blk[0]);
            lds = ldb;
            scale *= (FT)t->b_coef[0];
        } else {
            FM(fm_sum_job_) j;
            j.dst = S;
            j.ldd = Nb;
            j.cols = Nb;
            j.n = t->nb;
            j.lds = ldb;
            for (int q = 0; q < t->nb; q++) {
                j.src[q] = B_BLK(t->b_blk[q]);
                j.coef[q] = (FT)t->b_coef[q];
            }
            FM(fm_run_)(x, Kb, FM(fm_sum_rows_), &j);
            sp = S;
            lds = Nb;
        }
        if (t->nc == 1) {
            /* One block of C: the product goes straight into it. */
            int b = t->c_blk[0];
            FM(fm_rec_)(x, depth + 1, Mb, Kb, Nb, scale * (FT)t->c_coef[0], tp, ldt, sp, lds,
                        beta || written[b], C_BLK(b), ldc);
            written[b] = true;
            continue;
        }
        FM(fm_rec_)(x, depth + 1, Mb, Kb, Nb, (FT)1, tp, ldt, sp, lds, false, Q, Nb);
        FM(fm_acc_job_) j;
        j.q = Q;
        j.ldq = Nb;
        j.cols = Nb;
        j.n = t->nc;
        j.ldd = ldc;
        for (int q = 0; q < t->nc; q++) {
            int b = t->c_blk[q];
            j.dst[q] = C_BLK(b);
            j.coef[q] = scale * (FT)t->c_coef[q];
            j.keep[q] = beta || written[b];
            written[b] = true;
        }
        FM(fm_run_)(x, Mb, FM(fm_acc_rows_), &j);
    }
    /* A valid scheme feeds every block of C; a block it did not feed is 0 A B. */
    for (int b = 0; b < L->n * L->p; b++)
        if (!written[b] && !beta)
            for (uint64_t i = 0; i < Mb; i++)
                memset(C_BLK(b) + i * ldc, 0, Nb * sizeof(FT));
#undef A_BLK
#undef B_BLK
#undef C_BLK
peel:
    /* The strips the blocks leave out (peeling): the inner remainder adds to
     * the core; the last columns and the last rows are products of their own. */
    if (Kc < K)
        FM(fm_gemm_)(x, Mc, K - Kc, Nc, alpha, A + Kc, lda, B + Kc * ldb, ldb, true, C, ldc);
    if (Nc < N)
        FM(fm_gemm_)(x, M, K, N - Nc, alpha, A, lda, B + Nc, ldb, beta, C + Nc, ldc);
    if (Mc < M)
        FM(fm_gemm_)(x, M - Mc, K, Nc, alpha, A + Mc * lda, lda, B, ldb, beta, C + Mc * ldc, ldc);
}

static void FM(fm_top_)(fm_ctx *x, uint64_t M, uint64_t K, uint64_t N, const void *A, uint64_t lda,
                        const void *B, uint64_t ldb, void *C, uint64_t ldc)
{
    FM(fm_rec_)(x, 0, M, K, N, (FT)1, A, lda, B, ldb, false, C, ldc);
}

#undef FM
#undef FM_CAT
#undef FM_CAT2
