/* Checks of the GPU walk over Z (cuda/walk_z_core.h, cuda/walk_z.cu,
 * search/walk_gpu_z.c), without Criterion (the device machine lacks it).
 * Built twice (CMakeLists.txt): gpu_z against the GPU (skipped, exit 77,
 * where none is visible) and gpu_z_emu against the CPU emulator
 * (tests/emu_walk_z.c), which runs in CI.
 *
 *   1. the packed planes against plain integers on random vectors: the
 *      relation up to sign, the bounded sum, pack and unpack;
 *   2. the core on the CPU from several starts (standard algorithms, a lifted
 *      corpus scheme): after every step for a while, then after every batch,
 *      the walker's scheme verifies over Z, has its rank, coefficients in
 *      {-1, 0, 1}, and no reduction within the bound left; beside it the same
 *      walker walked as a warp walks it (32 lanes, the scans in chunks of 32
 *      terms: the warp kernel's source) must hold the same scalars and terms,
 *      bit for bit, after every step and batch;
 *   3. the device (or emulator) against the core run here (one thread) from
 *      the same seeds, for each kernel (warp, thread, and on the device
 *      global): every walker's scalars and best terms equal, bit for bit;
 *      the match kernel (sampled flips, another walk) against the core run
 *      here with its sampled flips (the 32 lanes' matches computed in a
 *      loop), bit for bit, and its walk's invariants as in 2.;
 *   4. every walker's best scheme verifies over Z;
 *   5. the engine backend reaches <2,2,2>:7 and <3,3,3>:23 (25 under the
 *      sanitizers) over Z (the default kernel, then the match kernel) and
 *      refuses what it cannot walk (--coef-max 2; a scheme with a
 *      coefficient 2 does not pack).
 * Prints "N passed, N failed".  FLIPGRAPH_SEED replays the random parts. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/fg_cuda.h"
#include "schemes/scheme.h"
#include "search/search.h"
#include "search/walk_gpu.h"
#include "verify/verify.h"

#include "gpu_check.h"
#include "test_tally.h"
#include "test_seed.h"

static uint64_t g_seed;

static bool verifies_z(const scheme *s)
{
    verify_result vr;
    memset(&vr, 0, sizeof vr);
    return verify_z(s, &vr);
}

/* ---- 1. the planes against plain integers ---- */

static void random_vec(scheme_rng *r, int8_t *x, int n, int zeros)
{
    for (int e = 0; e < n; e++) {
        const uint32_t k = scheme_rng_below(r, 3 + (uint32_t)zeros);
        x[e] = (int8_t)(k == 0 ? 1 : k == 1 ? -1 : 0);
    }
}

static void planes_against_integers(int trials)
{
    scheme_rng r;
    scheme_rng_seed(&r, g_seed ^ 0x5151);
    int bad_rel = 0, bad_add = 0, bad_pack = 0, equal_seen = 0, opposite_seen = 0, over_seen = 0;
    for (int t = 0; t < trials; t++) {
        const int n = 1 + (int)scheme_rng_below(&r, 64);
        int8_t a[64], b[64], sum[64], got[64];
        random_vec(&r, a, n, (int)scheme_rng_below(&r, 8));
        /* b: a, -a, a with a few entries changed, or fresh */
        const uint32_t kind = scheme_rng_below(&r, 4);
        for (int e = 0; e < n; e++)
            b[e] = kind == 0 ? a[e] : kind == 1 ? (int8_t)-a[e] : a[e];
        if (kind == 2)
            b[scheme_rng_below(&r, (uint32_t)n)] = (int8_t)(scheme_rng_below(&r, 3) - 1);
        if (kind == 3)
            random_vec(&r, b, n, (int)scheme_rng_below(&r, 8));
        uint64_t av, as, bv, bs;
        if (!wz_pack(a, n, &av, &as) || !wz_pack(b, n, &bv, &bs)) {
            bad_pack++;
            continue;
        }
        int8_t back[64];
        wz_unpack(av, as, n, back);
        bad_pack += memcmp(back, a, (size_t)n) != 0 || (as & ~av) != 0 || (n < 64 && (av >> n) != 0);
        /* the relation, where a is nonzero */
        bool az = true, eq = true, opp = true;
        for (int e = 0; e < n; e++) {
            az = az && !a[e];
            eq = eq && a[e] == b[e];
            opp = opp && a[e] == -b[e];
        }
        if (!az) {
            const int want = eq ? 1 : opp ? -1 : 0;
            bad_rel += wz_rel(av, as, bv, bs) != want;
            equal_seen += want == 1;
            opposite_seen += want == -1;
        }
        /* the bounded sum */
        const int mul = scheme_rng_below(&r, 2) ? 1 : -1;
        bool fits = true;
        for (int e = 0; e < n; e++) {
            const int v = a[e] + mul * b[e];
            fits = fits && v >= -1 && v <= 1;
            sum[e] = (int8_t)v;
        }
        uint64_t rv = 0, rs = 0;
        const int ok = wz_add(av, as, bv, bs, mul, &rv, &rs);
        over_seen += !fits;
        if (ok != (int)fits) {
            bad_add++;
            continue;
        }
        if (ok) {
            wz_unpack(rv, rs, n, got);
            bad_add += memcmp(got, sum, (size_t)n) != 0 || (rs & ~rv) != 0;
        }
    }
    /* a coefficient 2 does not pack */
    const int8_t two[3] = {1, 2, 0};
    uint64_t v, s;
    CHECK(!wz_pack(two, 3, &v, &s), "wz_pack took a coefficient 2");
    CHECK(bad_pack == 0, "seed %llu: %d vectors did not pack and unpack back", (unsigned long long)g_seed, bad_pack);
    CHECK(bad_rel == 0, "seed %llu: %d relations up to sign differ from the integers'", (unsigned long long)g_seed,
          bad_rel);
    CHECK(bad_add == 0, "seed %llu: %d bounded sums differ from the integers'", (unsigned long long)g_seed, bad_add);
    CHECK(equal_seen > 0 && opposite_seen > 0 && over_seen > 0, "the cases: %d equal, %d opposite, %d over the bound",
          equal_seen, opposite_seen, over_seen);
}

/* ---- the core on the CPU ---- */

typedef struct core_run {
    scheme_format f;
    int cap;
    wz_state st;
    uint64_t *block, *starts;
    int32_t rank;
    wz_start start;
    wz_walker w;
} core_run;

/* A Z start from s (GF(2): as it is, coefficients 0 and 1). */
static bool core_open(core_run *c, const scheme *s, int extra, uint64_t seed, int index)
{
    memset(c, 0, sizeof *c);
    scheme *z = search_z_copy(s);
    if (!z)
        return false;
    c->f = z->fmt;
    c->cap = z->rank + extra;
    c->rank = z->rank;
    c->starts = calloc((size_t)c->cap * WZ_TERM_WORDS, sizeof(uint64_t));
    c->block = calloc(wz_block_words(c->cap), sizeof(uint64_t));
    const bool ok = c->starts && c->block && search_gpu_z_pack(z, c->cap, c->starts);
    scheme_free(z);
    if (!ok)
        return false;
    c->start = (wz_start){c->starts, &c->rank, 1};
    wz_init_state(&c->st, seed, index, c->cap);
    wz_bind_block(&c->w, &c->st, c->block);
    wz_reset(&c->w, &c->start);
    return true;
}

static void core_close(core_run *c)
{
    free(c->block);
    free(c->starts);
}

/* What is wrong with the walker's scheme ("" when nothing). */
static const char *core_wrong(const core_run *c, char *why, size_t len)
{
    why[0] = 0;
    scheme *s = search_gpu_z_unpack(c->f, c->w.t, c->st.rank);
    if (!s)
        return snprintf(why, len, "out of memory"), why;
    int i, j;
    for (int k = 0; k < c->st.rank && !why[0]; k++)
        for (int pos = 0; pos < 3; pos++) {
            const uint64_t *t = wz_term(&c->w, k);
            if (!t[2 * pos] || (t[2 * pos + 1] & ~t[2 * pos]))
                snprintf(why, len, "term %d: factor %d zero or a sign off its support", k, pos);
        }
    if (!why[0] && s->rank != c->st.rank)
        snprintf(why, len, "rank %d, %d terms", c->st.rank, s->rank);
    else if (!why[0] && search_z_max_coef(s) > 1)
        snprintf(why, len, "a coefficient %d", search_z_max_coef(s));
    else if (!why[0] && !verifies_z(s))
        snprintf(why, len, "rank %d: does not verify over Z", s->rank);
    else if (!why[0] && search_z_find_reduction(s, 1, &i, &j))
        snprintf(why, len, "a reduction within the bound left (terms %d and %d)", i, j);
    scheme_free(s);
    return why;
}

/* The same walker walked by a warp: 32 lanes (the CPU evaluates their tests in a loop). */
static void core_as_warp(core_run *c)
{
    wz_bind_warp(&c->w, &c->st, c->block, c->block + (size_t)c->cap * WZ_TERM_WORDS, 0);
}

/* The walker with the match kernel's sampled flips (another walk). */
static void core_as_match(core_run *c)
{
    wz_bind_match(&c->w, &c->st, c->block, c->block + (size_t)c->cap * WZ_TERM_WORDS, 0);
}

/* Whether the two walkers hold the same scalars, terms and best terms. */
static bool core_same(const core_run *a, const core_run *b)
{
    if (memcmp(&a->st, &b->st, sizeof a->st) != 0)
        return false;
    if (memcmp(a->w.t, b->w.t, (size_t)a->st.rank * WZ_TERM_WORDS * sizeof(uint64_t)) != 0)
        return false;
    return a->st.best_rank == INT_MAX ||
           memcmp(a->w.best, b->w.best, (size_t)a->st.best_rank * WZ_TERM_WORDS * sizeof(uint64_t)) == 0;
}

/* 2. */
static void core_walks(const char *name, const scheme *start, uint64_t seed)
{
    core_run c, cw, cm;
    if (!core_open(&c, start, 10, seed, 0) || !core_open(&cw, start, 10, seed, 0) ||
        !core_open(&cm, start, 10, seed, 0)) {
        CHECK(false, "%s: core_open", name);
        return;
    }
    core_as_warp(&cw);
    core_as_match(&cm);
    /* short walks and plateaus, so that plus transitions and restarts happen */
    const wz_params P = {3000, 60, 4, 0, INT_MAX, 0, 0};
    char why[256];
    int low = c.st.rank;
    bool ok = !core_wrong(&c, why, sizeof why)[0];
    CHECK(ok, "%s: the start: %s", name, why);
    for (int step = 0; step < 400 && ok; step++) {
        wz_walk(&c.w, &c.start, &P, 1);
        wz_walk(&cw.w, &cw.start, &P, 1);
        ok = !core_wrong(&c, why, sizeof why)[0];
        CHECK(ok, "seed %llu %s step %d: %s", (unsigned long long)seed, name, step, why);
        const bool same = core_same(&c, &cw);
        CHECK(same, "seed %llu %s step %d: the warp's walk (32 lanes) left the thread's", (unsigned long long)seed,
              name, step);
        ok = ok && same;
        /* the sampled walk: its own moves, the same invariants */
        wz_walk(&cm.w, &cm.start, &P, 1);
        const bool mok = !core_wrong(&cm, why, sizeof why)[0];
        CHECK(mok, "seed %llu %s step %d, sampled flips (match kernel): %s", (unsigned long long)seed, name, step,
              why);
        ok = ok && mok;
        low = c.st.rank < low ? c.st.rank : low;
    }
    for (int batch = 0; batch < 60 && ok; batch++) {
        wz_walk(&c.w, &c.start, &P, 500);
        wz_walk(&cw.w, &cw.start, &P, 500);
        ok = !core_wrong(&c, why, sizeof why)[0] && !c.st.failed;
        CHECK(ok, "seed %llu %s batch %d: %s%s", (unsigned long long)seed, name, batch, why,
              c.st.failed ? " (out of slots)" : "");
        const bool same = core_same(&c, &cw);
        CHECK(same, "seed %llu %s batch %d: the warp's walk (32 lanes) left the thread's", (unsigned long long)seed,
              name, batch);
        ok = ok && same;
        wz_walk(&cm.w, &cm.start, &P, 500);
        const bool mok = !core_wrong(&cm, why, sizeof why)[0] && !cm.st.failed;
        CHECK(mok, "seed %llu %s batch %d, sampled flips (match kernel): %s%s", (unsigned long long)seed, name, batch,
              why, cm.st.failed ? " (out of slots)" : "");
        ok = ok && mok;
        low = c.st.rank < low ? c.st.rank : low;
    }
    CHECK(cm.st.flips > 0 && cm.st.plus > 0 && cm.st.reductions > 0 && cm.st.restarts > 0,
          "seed %llu %s, sampled flips: %llu flips, %llu plus, %llu reductions, %llu restarts",
          (unsigned long long)seed, name, (unsigned long long)cm.st.flips, (unsigned long long)cm.st.plus,
          (unsigned long long)cm.st.reductions, (unsigned long long)cm.st.restarts);
    printf("%s, sampled flips: %llu flips (%llu refused by the bound), %llu plus, %llu reductions, %llu restarts, "
           "rank %d\n",
           name, (unsigned long long)cm.st.flips, (unsigned long long)cm.st.rejected, (unsigned long long)cm.st.plus,
           (unsigned long long)cm.st.reductions, (unsigned long long)cm.st.restarts, cm.st.rank);
    CHECK(c.st.flips > 0 && c.st.plus > 0 && c.st.reductions > 0 && c.st.restarts > 0,
          "seed %llu %s: %llu flips, %llu plus, %llu reductions, %llu restarts", (unsigned long long)seed, name,
          (unsigned long long)c.st.flips, (unsigned long long)c.st.plus, (unsigned long long)c.st.reductions,
          (unsigned long long)c.st.restarts);
    printf("%s: %llu flips (%llu refused by the bound), %llu plus, %llu reductions, %llu restarts, rank %d, "
           "lowest %d\n",
           name, (unsigned long long)c.st.flips, (unsigned long long)c.st.rejected, (unsigned long long)c.st.plus,
           (unsigned long long)c.st.reductions, (unsigned long long)c.st.restarts, c.st.rank, low);
    core_close(&c);
    core_close(&cw);
    core_close(&cm);
}

/* 2b. The weight bias (wz_params.weight_bias; docs/search.md, "The weight
 * bias") against the walk without it: a copy of the walker (its block and
 * scalars) flips with no bias, giving the proposal O; the walker flips with
 * bias B from the same scalars (the same draws up to the test's, which comes
 * last) and must end at O or, undone, where it began, S, undone only where O
 * has S's rank and d = W(O) - W(S) > 0 (W: the nonzero coefficients of the
 * unpacked integer schemes, by search_scheme_nonzeros); the undone flips must
 * number the sum of 1 - exp(-B d) over those flips within 5 standard
 * deviations. */
static void core_weight_bias(const scheme *start, const char *name, uint64_t seed, bool warp, int steps,
                             double bias)
{
    core_run c, d;
    if (!core_open(&c, start, 24, seed, 0) || !core_open(&d, start, 24, seed, 0)) {
        CHECK(false, "%s: core_open", name);
        return;
    }
    if (warp) {
        core_as_warp(&c);
        core_as_warp(&d);
    }
    const size_t words = wz_block_words(c.cap);
    tc_tally tl = {0};
    long kept_heavier = 0;
    bool ok = true;
    /* steps flips, or more until 150 of them could be undone (a warp walk of
     * 800 steps met only 70 on one seed: many of its flips reduce) */
    for (int step = 0; ok && step < 10 * steps && (step < steps || tl.trials < 150); step++) {
        memcpy(d.block, c.block, words * sizeof(uint64_t));
        d.st = c.st;
        scheme *S = search_gpu_z_unpack(c.f, c.w.t, c.st.rank);
        d.w.wbias = 0;
        const int m0 = wz_flip(&d.w);
        scheme *O = search_gpu_z_unpack(d.f, d.w.t, d.st.rank);
        c.w.wbias = bias;
        const int m1 = wz_flip(&c.w);
        scheme *A = search_gpu_z_unpack(c.f, c.w.t, c.st.rank);
        ok = S && O && A && m0 == m1;
        CHECK(ok, "seed %llu %s step %d: one copy flipped, the other not", (unsigned long long)seed, name, step);
        const long dw = ok ? search_scheme_nonzeros(O) - search_scheme_nonzeros(S) : 0;
        const bool heavier = ok && m0 == 1 && O->rank == S->rank && dw > 0;
        if (heavier) {
            const double q = 1 - exp(-bias * (double)dw);
            tc_tally_chance(&tl, q);
        }
        if (ok && c.st.undone != d.st.undone) {
            ok = c.st.undone == d.st.undone + 1 && scheme_equal(A, S) && heavier;
            CHECK(ok, "seed %llu %s step %d: an undone flip (rank %d, %ld coefficients added) or another scheme",
                  (unsigned long long)seed, name, step, O->rank, dw);
            tl.undone++;
        } else if (ok) {
            ok = scheme_equal(A, O);
            CHECK(ok, "seed %llu %s step %d: the biased walker made another flip", (unsigned long long)seed, name,
                  step);
            kept_heavier += heavier;
            if (step % 29 == 28 && c.st.rank < c.cap - 2)
                wz_plus(&c.w);
        }
        scheme_free(S);
        scheme_free(O);
        scheme_free(A);
        if (!m0 && ok) { /* no flip in reach: a plus transition, else the walk ends */
            if (c.st.rank >= c.cap - 2)
                break;
            wz_plus(&c.w);
        }
    }
    const double bound = tc_tally_bound(&tl);
    CHECK(!ok || (tl.trials >= 100 && kept_heavier > 0 && tc_tally_fits(&tl)),
          "seed %llu %s, weight bias %.2f: %ld of %ld heavier flips undone, %.1f expected (bound %.1f), %ld heavier "
          "kept",
          (unsigned long long)seed, name, bias, tl.undone, tl.trials, tl.expect, bound, kept_heavier);
    printf("%s, weight bias %.2f: %ld of %ld heavier flips undone, %.1f expected, %ld heavier kept\n", name, bias,
           tl.undone, tl.trials, tl.expect, kept_heavier);
    core_close(&c);
    core_close(&d);
}

#define MATCH_CHECKED 256 /* walkers of the match kernel run on the CPU as well */

/* 3. and 4.: each kernel of kernels[] against the core run once here */
static void device_against_core(const char *name, const scheme *start, const int *kernels, int nk, int walkers,
                                uint64_t steps, float wlo, float whi)
{
    char err[256];
    core_run c;
    if (!core_open(&c, start, 12, g_seed, 0)) {
        CHECK(false, "%s: core_open", name);
        return;
    }
    const wz_params P = {4000, 80, 4, 0, INT_MAX, wlo, whi};
    const size_t tw = (size_t)c.cap * WZ_TERM_WORDS;
    cuda_wz *s[4] = {NULL, NULL, NULL, NULL};
    wz_state *dev[4] = {NULL, NULL, NULL, NULL};
    double ms[4] = {0, 0, 0, 0};
    int mismatched[4] = {0, 0, 0, 0}, bad[4] = {0, 0, 0, 0}, restarts[4] = {0, 0, 0, 0}, bests[4] = {0, 0, 0, 0};
    bool up[4] = {false, false, false, false};
    uint64_t *best = malloc(tw * sizeof(uint64_t));
    for (int k = 0; k < nk && k < 4; k++) {
        cuda_wz_config cfg = {walkers, 0, 0, g_seed, c.cap, c.starts, &c.rank, 1, kernels[k]};
        int rc = cuda_wz_create(&cfg, &s[k], err, sizeof err);
        CHECK(rc == 0, "%s, %s kernel: cuda_wz_create: %s", name, cuda_wz_kernel_name(kernels[k]), err);
        if (rc)
            continue;
        CHECK(cuda_wz_kernel(s[k]) == kernels[k], "%s: the %s kernel ran where the %s kernel was asked for", name,
              cuda_wz_kernel_name(cuda_wz_kernel(s[k])), cuda_wz_kernel_name(kernels[k]));
        rc = cuda_wz_run(s[k], &P, steps, &ms[k], err, sizeof err) ||
             cuda_wz_run(s[k], &P, steps, &ms[k], err, sizeof err);
        CHECK(rc == 0, "%s, %s kernel: cuda_wz_run: %s", name, cuda_wz_kernel_name(kernels[k]), err);
        dev[k] = calloc((size_t)walkers, sizeof *dev[k]);
        rc = rc || !dev[k] || cuda_wz_states(s[k], dev[k], err, sizeof err);
        CHECK(rc == 0, "%s, %s kernel: cuda_wz_states: %s", name, cuda_wz_kernel_name(kernels[k]), err);
        up[k] = rc == 0;
    }
    for (int i = 0; i < walkers; i++) {
        /* the same walker on the CPU, once for the kernels of the thread's walk
         * and once more, with sampled flips, for the match kernel */
        for (int mode = 0; mode < 2; mode++) {
        /* the sampled walk's CPU run is slow (32 x 32 compares a round): the
         * first MATCH_CHECKED walkers of the device's are checked */
        if (mode == 1 && i >= MATCH_CHECKED)
            continue;
        bool any = false;
        for (int k = 0; k < nk && k < 4; k++)
            any = any || (up[k] && (kernels[k] == CUDA_WZ_MATCH) == (mode == 1));
        if (!any)
            continue;
        wz_bind_block(&c.w, &c.st, c.block);
        wz_init_state(&c.st, g_seed, i, c.cap);
        wz_reset(&c.w, &c.start);
        if (mode == 1)
            core_as_match(&c);
        /* walker i's own weight bias where a window is spread over the walkers */
        const wz_params Pi = wz_params_of(&P, i, walkers);
        wz_walk(&c.w, &c.start, &Pi, steps);
        wz_walk(&c.w, &c.start, &Pi, steps);
        for (int k = 0; k < nk && k < 4; k++) {
            if (!up[k] || (kernels[k] == CUDA_WZ_MATCH) != (mode == 1))
                continue;
            const wz_state *d = &dev[k][i];
            if (memcmp(&c.st, d, sizeof c.st) != 0) {
                if (!mismatched[k]++)
                    printf("%s kernel, walker %d: device rank %d flips %llu rng %llx, CPU rank %d flips %llu rng "
                           "%llx\n",
                           cuda_wz_kernel_name(kernels[k]), i, d->rank, (unsigned long long)d->flips,
                           (unsigned long long)d->rng, c.st.rank, (unsigned long long)c.st.flips,
                           (unsigned long long)c.st.rng);
                continue;
            }
            restarts[k] += d->restarts > 0;
            if (d->best_rank == INT_MAX)
                continue;
            if (cuda_wz_best(s[k], i, d, best, err, sizeof err)) {
                bad[k]++;
                continue;
            }
            bests[k]++;
            if (memcmp(best, c.w.best, (size_t)d->best_rank * WZ_TERM_WORDS * sizeof(uint64_t)))
                mismatched[k]++;
            scheme *b = search_gpu_z_unpack(c.f, best, d->best_rank);
            if (!b || b->rank != d->best_rank || !verifies_z(b) || search_z_max_coef(b) > 1)
                bad[k]++;
            scheme_free(b);
        }
        }
    }
    for (int k = 0; k < nk && k < 4; k++) {
        if (!up[k])
            continue;
        const char *kn = cuda_wz_kernel_name(kernels[k]);
        const int checked = kernels[k] == CUDA_WZ_MATCH && walkers > MATCH_CHECKED ? MATCH_CHECKED : walkers;
        CHECK(mismatched[k] == 0, "%s, %s kernel: %d of %d walkers differ from the core run on the CPU", name, kn,
              mismatched[k], checked);
        CHECK(bad[k] == 0, "%s, %s kernel: %d best schemes do not verify over Z or have another rank", name, kn,
              bad[k]);
        CHECK(restarts[k] > 0 && bests[k] > 0, "%s, %s kernel: %d walkers restarted, %d kept a best scheme", name,
              kn, restarts[k], bests[k]);
        printf("%s, %s kernel: %d walkers x %llu steps (%d checked), %.1f ms (last launch) on %s, %d walkers per "
               "block%s\n",
               name, kn, walkers, (unsigned long long)(2 * steps), checked, ms[k], cuda_wz_device_name(s[k]),
               cuda_wz_per_block(s[k]), cuda_wz_per_block(s[k]) ? " (shared memory)" : " (global memory)");
    }
    for (int k = 0; k < 4; k++) {
        free(dev[k]);
        cuda_wz_destroy(s[k]);
    }
    free(best);
    core_close(&c);
}

/* 5. */
static void backend_params(search_params *p, int n, int target)
{
    search_params_default(p);
    p->fmt = (scheme_format){n, n, n};
    p->ring = SCHEME_RING_Z;
    p->coef_max = 1;
    p->target_rank = target;
    p->seed = g_seed;
    /* a bound on a random walk, never a timing: the plain pass's <3,3,3>:23
     * took 0.8-18 s in 12 runs here; main() lowers the target under the sanitizers */
    p->time_limit = 600;
    p->progress_every = 0;
    /* a plateau and walk unit near the CPU walker's (measured on the emulator
     * from the standard <3,3,3>: 4e5-3e6 flips to 23 with 4 walkers) */
    p->plateau = p->plateau_min = p->plateau_max = 2000;
    p->walk_len = p->walk_max = 50000;
}

static void backend_reaches(int n, int target)
{
    search_params p;
    backend_params(&p, n, target);
    search_gpu_options o;
    search_gpu_options_default(&o);
    o.warps = 4; /* the emulator: 4 walkers (the shared-memory kernel's one per warp) */
    o.launch_ms = 20;
    search_result r;
    search_run_gpu_z(&p, &o, NULL, 0, NULL, &r);
    CHECK(r.status == SEARCH_REACHED && r.best && r.best->ring == SCHEME_RING_Z && verifies_z(r.best) &&
              r.best->rank <= target,
          "seed %llu <%d,%d,%d> over Z: status %d best %d (%s)", (unsigned long long)g_seed, n, n, n,
          (int)r.status, r.best_rank, r.msg);
    printf("the engine over Z, <%d,%d,%d> to %d: status %d, rank %d, %llu flips in %.1f s\n", n, n, n, target,
           (int)r.status, r.best_rank, (unsigned long long)r.flips, r.seconds);
    search_result_free(&r);
}

static void backend_refuses(void)
{
    search_params p;
    backend_params(&p, 2, 7);
    p.coef_max = 2;
    search_result r;
    search_run_gpu_z(&p, NULL, NULL, 0, NULL, &r);
    CHECK(r.status == SEARCH_BAD_PARAMS && strstr(r.msg, "{-1, 0, 1}"), "--coef-max 2: status %d (%s)",
          (int)r.status, r.msg);
    search_result_free(&r);
    /* a scheme with a coefficient 2 does not pack (the backend's setup then
     * refuses the start): term 0 times 2 at factor 0, and term 0 negated */
    scheme *std = scheme_standard((scheme_format){2, 2, 2});
    scheme *z = search_z_copy(std);
    scheme_free(std);
    scheme_zterm a = z->zterms[0], b = z->zterms[0];
    for (int e = 0; e < SCHEME_MAX_ENTRIES; e++) {
        a.z[0][e] = (int8_t)(2 * a.z[0][e]);
        b.z[0][e] = (int8_t)-b.z[0][e];
    }
    z->zterms[0] = a;
    z->terms[0].f[0] = 0; /* the GF(2) word of 2x */
    scheme_push_z(z, &b);
    uint64_t *terms = calloc((size_t)(z->rank + 1) * WZ_TERM_WORDS, sizeof(uint64_t));
    CHECK(verifies_z(z) && search_z_max_coef(z) == 2, "the test's scheme with a coefficient 2 does not verify");
    CHECK(!search_gpu_z_pack(z, z->rank + 1, terms), "a scheme with a coefficient 2 packed");
    free(terms);
    scheme_free(z);
}

static scheme *lifted_corpus(const char *rel)
{
    const char *dir = getenv("FLIPGRAPH_CORPUS");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "data/corpus", rel);
    scheme_diag d;
    memset(&d, 0, sizeof d);
    scheme *f2 = scheme_read_file(path, NULL, &d);
    if (!f2) {
        printf("%s:%d:%d: %s\n", path, d.line, d.col, d.msg);
        return NULL;
    }
    verify_lift_result lr;
    memset(&lr, 0, sizeof lr);
    scheme *z = verify_lift(f2, &lr);
    scheme_free(f2);
    return z;
}

int main(void)
{
    gpu_check_begin();
    g_seed = tc_seed();
    printf("seed %llu (FLIPGRAPH_SEED replays)\n", (unsigned long long)g_seed);
#ifndef FLIPGRAPH_WZ_EMU
    if (cuda_device_count() <= 0) {
        printf("skipped: no GPU visible\n");
        return 77;
    }
#endif
    planes_against_integers(200000);
    const scheme_format fmts[] = {{2, 2, 2}, {3, 3, 3}, {2, 3, 4}, {4, 4, 4}};
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        scheme *s = scheme_standard(fmts[i]);
        char name[64];
        snprintf(name, sizeof name, "standard <%d,%d,%d>", fmts[i].n, fmts[i].m, fmts[i].p);
        core_walks(name, s, g_seed + i);
        scheme_free(s);
    }
    /* a corpus scheme lifted to Z: the first of these whose lift has
     * coefficients in {-1, 0, 1} (the lifter's attempts are seeded: the same
     * one every run) */
    const char *const corpus[] = {"kauers-moosbauer/334-29-mod0.exp", "kauers-moosbauer/344-38-mod0.exp",
                                  "kauers-moosbauer/444-49-mod0.exp", "kauers-moosbauer/244-26-mod0.exp",
                                  "kauers-moosbauer/233-15-mod0.exp", "kauers-moosbauer/223-11-mod0.exp"};
    scheme *lifted = NULL;
    char lname[128] = "";
    for (size_t i = 0; i < sizeof corpus / sizeof corpus[0] && !lifted; i++) {
        lifted = lifted_corpus(corpus[i]);
        if (lifted && search_z_max_coef(lifted) > 1) {
            scheme_free(lifted);
            lifted = NULL;
        }
        if (lifted)
            snprintf(lname, sizeof lname, "lifted %s", corpus[i]);
    }
    CHECK(lifted != NULL, "no corpus scheme of the list lifts with coefficients in {-1, 0, 1}");
    if (lifted)
        core_walks(lname, lifted, g_seed + 100);
#ifdef FLIPGRAPH_WZ_EMU
    const int walkers = 16;
#else
    const int walkers = 2048;
#endif
    scheme *s3 = scheme_standard((scheme_format){3, 3, 3});
    scheme *s4 = scheme_standard((scheme_format){4, 4, 4});
    /* the warp kernel (the default) and the thread kernel (one lane walks) on
     * every start; on the device the global-memory kernel too (taken where
     * the terms do not fit in shared memory); the match kernel against the
     * CPU's run of its own walk */
#ifdef FLIPGRAPH_WZ_EMU
    const int kernels[] = {CUDA_WZ_WARP, CUDA_WZ_THREAD, CUDA_WZ_MATCH};
#else
    const int kernels[] = {CUDA_WZ_WARP, CUDA_WZ_THREAD, CUDA_WZ_GLOBAL, CUDA_WZ_MATCH};
#endif
    const int nk = (int)(sizeof kernels / sizeof kernels[0]);
    device_against_core("standard <3,3,3>", s3, kernels, nk, walkers, 3000, 0, 0);
    device_against_core("standard <4,4,4>", s4, kernels, nk, walkers, 3000, 0, 0);
    if (lifted)
        device_against_core(lname, lifted, kernels, nk, walkers, 3000, 0, 0);
    device_against_core("standard <4,4,4>, weight bias 0.3", s4, kernels, nk, walkers, 3000, 0.3f, 0);
    device_against_core("standard <4,4,4>, weight bias 0.05 to 0.5 over the walkers", s4, kernels, nk, walkers, 3000,
                        0.05f, 0.5f);
    core_weight_bias(s4, "standard <4,4,4>, one thread", g_seed + 200, false, 800, 0.4);
    core_weight_bias(s4, "standard <4,4,4>, a warp", g_seed + 201, true, 800, 0.2);
    /* the default: the warp kernel, here and on the device (the terms fit) */
    {
        core_run c;
        cuda_wz *z = NULL;
        char err[256];
        if (core_open(&c, s4, 12, g_seed, 0)) {
            unsetenv("FLIPGRAPH_WZ_KERNEL");
            unsetenv("FLIPGRAPH_WZ_GLOBAL");
            cuda_wz_config cfg = {64, 0, 0, g_seed, c.cap, c.starts, &c.rank, 1, CUDA_WZ_AUTO};
            CHECK(cuda_wz_create(&cfg, &z, err, sizeof err) == 0 && cuda_wz_kernel(z) == CUDA_WZ_WARP,
                  "the default kernel for <4,4,4>: %s (%s)", z ? cuda_wz_kernel_name(cuda_wz_kernel(z)) : "none",
                  err);
            cuda_wz_destroy(z);
            z = NULL;
            setenv("FLIPGRAPH_WZ_KERNEL", "thread", 1);
            CHECK(cuda_wz_create(&cfg, &z, err, sizeof err) == 0 && cuda_wz_kernel(z) == CUDA_WZ_THREAD,
                  "FLIPGRAPH_WZ_KERNEL=thread: %s", z ? cuda_wz_kernel_name(cuda_wz_kernel(z)) : err);
            cuda_wz_destroy(z);
            z = NULL;
            setenv("FLIPGRAPH_WZ_KERNEL", "lane", 1);
            CHECK(cuda_wz_create(&cfg, &z, err, sizeof err) == 2 && !z, "FLIPGRAPH_WZ_KERNEL=lane was taken");
            cuda_wz_destroy(z);
            unsetenv("FLIPGRAPH_WZ_KERNEL");
            core_close(&c);
        }
    }
    scheme_free(s3);
    scheme_free(s4);
    scheme_free(lifted);
    /* Under the sanitizers the emulated warp walks about 50 times slower and
     * <3,3,3>:23 once took over 120 s (4.8e6 flips): that pass checks the
     * memory, the verification and the accounting on the way to rank 25. */
    const int t333 = getenv("FLIPGRAPH_SANITIZED") ? 25 : 23;
    backend_reaches(2, 7);
    backend_reaches(3, t333);
    /* the match kernel's walk through the engine too */
    setenv("FLIPGRAPH_WZ_KERNEL", "match", 1);
    backend_reaches(2, 7);
    backend_reaches(3, t333);
    unsetenv("FLIPGRAPH_WZ_KERNEL");
    backend_refuses();
    return gpu_check_summary();
}
