/* Checks of the symmetric GPU walk (cuda/walk_sym_core.h, cuda/walk_sym.cu,
 * search/walk_gpu_sym.c), without Criterion (the device machine lacks it).
 * Built twice (CMakeLists.txt): gpu_sym against the GPU (skipped, exit 77,
 * where none is visible) and gpu_sym_emu against the CPU emulator
 * (tests/emu_walk_sym.c), which runs in CI.
 *
 *   1. the core on the CPU, move by move: every flip is |G| plain flips on
 *      the images of two terms (tests/sym_reference.h), every scheme verifies
 *      and is invariant, the index agrees with a recount;
 *   2. the device (or emulator) against the core run here from the same
 *      seeds: every walker's counters, rank, stream and best scheme equal;
 *   3. every walker's best scheme verifies and is invariant;
 *   4. the engine backend reaches <3,3,3>:23 (c3), <2,2,2>:7 (c3xc2) and <4,4,4>:50
 *      (c3xc2s1, half orbits).
 * C3 x C2 with the reversal (c3xc2) and with fewer swaps (c3xc2s1, c3xc2s2),
 * whose involution is another code path (schemes/involution.h).
 * Prints "N passed, N failed".  FLIPGRAPH_SEED replays the random parts. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/fg_cuda.h"
#include "cuda/smem_shape.h"
#include "schemes/scheme.h"
#include "search/search.h"
#include "search/walk_gpu.h"
#include "sym_reference.h"
#include "verify/verify.h"

#include "gpu_check.h"
#include "test_tally.h"
#include "test_seed.h"

static uint64_t g_seed;

static bool verifies(const scheme *s)
{
    verify_result vr;
    memset(&vr, 0, sizeof vr);
    return verify_f2(s, &vr);
}

/* The walker's scheme: fixed terms and every image of each representative. */
static scheme *core_scheme(const wsym_walker *w, scheme_format f, scheme_symmetry g)
{
    const int order = scheme_symmetry_order(g);
    scheme *s = scheme_new(f, SCHEME_RING_F2, w->st->nfixed + order * w->st->nalive + 1);
    for (int i = 0; i < w->st->nfixed; i++)
        scheme_push(s, w->fixed[i * 3], w->fixed[i * 3 + 1], w->fixed[i * 3 + 2]);
    for (int i = 0; i < w->st->nalive; i++) {
        const int32_t o = w->alive[i];
        scheme_term t = {{w->rep[o * 3], w->rep[o * 3 + 1], w->rep[o * 3 + 2]}};
        for (int k = 0; k < (w->half[o] ? 3 : order); k++) { /* a half orbit: its three terms */
            scheme_term u = scheme_symmetry_image(g, f.n, t, k);
            scheme_push(s, u.f[0], u.f[1], u.f[2]);
        }
    }
    return s;
}

/* The index against a recount: every entry of every alive orbit in the bucket
 * of its value, the bucket counts, M = the buckets of two or more. */
static bool core_index_ok(const wsym_walker *w, char *why, size_t len)
{
    const wsym_layout *L = w->L;
    const wsym_state *st = w->st;
    int nhalf = 0;
    for (int i = 0; i < st->nalive; i++)
        nhalf += w->half[w->alive[i]] != 0;
    if (nhalf != st->nhalf || st->rank != st->nfixed + (L->g == 2 ? 6 : 3) * (st->nalive - nhalf) + 3 * nhalf)
        return snprintf(why, len, "rank %d, %d half orbits (%d counted)", st->rank, nhalf, st->nhalf), false;
    int inM = 0;
    for (int i = 0; i < st->nalive; i++) {
        const int32_t o = w->alive[i];
        if (w->apos[o] != i)
            return snprintf(why, len, "orbit %d: alive list", o), false;
        for (int e = 0; e < wsym_ne(w, o); e++) {
            const int32_t code = o * L->ne + e, b = w->bid[code];
            const uint64_t v = wsym_value(w, o, e);
            uint32_t h = wsym_hslot(L, v);
            while (w->key[h] && w->key[h] != v)
                h = (h + 1) & (uint32_t)(L->tsize - 1);
            if (w->key[h] != v || w->tbid[h] != b)
                return snprintf(why, len, "orbit %d entry %d: not found under its value", o, e), false;
            int cnt = 0, found = 0;
            for (int32_t u = w->bhead[b]; u >= 0 && cnt <= L->nc; u = w->nxt[u], cnt++)
                found |= u == code;
            if (!found || cnt != w->bcount[b])
                return snprintf(why, len, "orbit %d entry %d: bucket count %d, list %d", o, e, w->bcount[b], cnt),
                       false;
            if ((w->mpos[b] >= 0) != (cnt >= 2) || (w->mpos[b] >= 0 && w->M[w->mpos[b]] != b))
                return snprintf(why, len, "orbit %d entry %d: M", o, e), false;
            inM += cnt >= 2 && w->bhead[b] == code;
        }
    }
    if (inM != st->nM)
        return snprintf(why, len, "M holds %d buckets, %d found", st->nM, inM), false;
    return true;
}

typedef struct core_run {
    wsym_layout L;
    wsym_state st;
    uint64_t *block;
    search_symmetric_parts parts;
    wsym_start start;
    wsym_walker w;
} core_run;

/* The core walker from the symmetric start of the given cubes (default: count
 * 0), its orbits split as the backend splits them. */
static bool core_open_cubes(core_run *c, scheme_format f, scheme_symmetry g, const search_cubes *cubes, int ocap_extra,
                            uint64_t seed, int index)
{
    char err[256];
    scheme *s = search_symmetric_start(f, g, cubes, err, sizeof err);
    if (!s)
        return false;
    bool ok = search_symmetric_parts_make(s, g, &c->parts) == SEARCH_PARTS_OK;
    scheme_free(s);
    if (!ok)
        return false;
    wsym_layout_init(&c->L, scheme_symmetry_has_c2(g) ? 2 : 1, f.n, scheme_symmetry_swaps(g, f.n),
                     c->parts.norbits + c->parts.nhalf + ocap_extra, c->parts.nfixed + 3 * c->parts.nhalf);
    c->block = calloc(c->L.words, sizeof(uint64_t));
    wsym_init_state(&c->st, seed, index);
    wsym_bind(&c->w, &c->L, &c->st, c->block);
    const search_symmetric_parts *q = &c->parts;
    c->start = (wsym_start){q->reps, q->norbits, q->fixed, q->nfixed, q->half, q->nhalf};
    wsym_reset(&c->w, &c->start);
    return true;
}

static bool core_open(core_run *c, scheme_format f, scheme_symmetry g, int ocap_extra, uint64_t seed, int index)
{
    const search_cubes cubes = {0};
    return core_open_cubes(c, f, g, &cubes, ocap_extra, seed, index);
}

static void core_close(core_run *c)
{
    free(c->block);
    search_symmetric_parts_free(&c->parts);
}

/* 1. */
static void core_moves(scheme_format f, scheme_symmetry g, uint64_t seed, int steps)
{
    core_run c;
    CHECK(core_open(&c, f, g, 24, seed, 0), "core_open");
    char why[256];
    int compared = 0, reductions = 0, plus = 0, term, elem;
    bool ok = true;
    for (int step = 0; step < steps && ok; step++) {
        scheme *before = core_scheme(&c.w, f, g);
        const int32_t nalive = c.st.nalive, nfixed = c.st.nfixed;
        const bool do_plus = step % 53 == 52 && c.st.nalive < c.L.ocap - 2;
        const int moved = do_plus ? wsym_plus(&c.w) : wsym_flip(&c.w, 0);
        scheme *after = core_scheme(&c.w, f, g);
        ok = core_index_ok(&c.w, why, sizeof why);
        CHECK(ok, "seed %llu <%d,%d,%d> %s step %d: %s", (unsigned long long)seed, f.n, f.n, f.n,
              scheme_symmetry_name(g), step, why);
        ok = ok && verifies(after);
        CHECK(ok, "seed %llu step %d: the scheme does not verify", (unsigned long long)seed, step);
        ok = ok && scheme_symmetry_check(after, g, &term, &elem, why, sizeof why);
        CHECK(ok, "seed %llu step %d: not invariant: %s", (unsigned long long)seed, step, why);
        if (moved && !do_plus && c.st.nalive == nalive && c.st.nfixed == nfixed && compared < 60) {
            const bool flip_ok = sym_is_flip_of(before, after, g);
            CHECK(flip_ok, "seed %llu <%d,%d,%d> %s step %d: not |G| flips of the images of two terms",
                  (unsigned long long)seed, f.n, f.n, f.n, scheme_symmetry_name(g), step);
            ok = ok && flip_ok;
            compared++;
        }
        reductions += c.st.nalive < nalive;
        plus += do_plus && moved;
        scheme_free(before);
        scheme_free(after);
        if (!moved)
            break;
    }
    CHECK(compared > 0 && plus > 0, "seed %llu: %d flips compared, %d plus transitions", (unsigned long long)seed,
          compared, plus);
    core_close(&c);
}

/* 1b. The weight bias (wsym_flip's wbias; docs/search.md, "The weight bias")
 * against the walk without it: a copy of the walker (its block and state)
 * flips with wbias 0, giving the proposal O; the walker flips with wbias B and
 * must end at O or, undone, where it began, S, undone only where O has S's
 * rank and d = (W(O) - W(S)) / |G| > 0 coefficients more (W by
 * search_scheme_nonzeros); the undone flips must number the sum of
 * 1 - exp(-B d) over those flips within 5 standard deviations. */
static void core_weight_bias(scheme_format f, scheme_symmetry g, uint64_t seed, int steps, double bias)
{
    core_run c, d;
    CHECK(core_open(&c, f, g, 24, seed, 0) && core_open(&d, f, g, 24, seed, 0), "core_open");
    const int order = scheme_symmetry_order(g);
    tc_tally tl = {0};
    long kept_heavier = 0;
    bool ok = true;
    for (int step = 0; step < steps && ok; step++) {
        memcpy(d.block, c.block, c.L.words * sizeof(uint64_t));
        d.st = c.st;
        scheme *S = core_scheme(&c.w, f, g);
        const uint64_t rej = c.st.undone;
        const int m0 = wsym_flip(&d.w, 0);
        scheme *O = core_scheme(&d.w, f, g);
        const int m1 = wsym_flip(&c.w, bias);
        scheme *A = core_scheme(&c.w, f, g);
        const long dw = search_scheme_nonzeros(O) - search_scheme_nonzeros(S);
        ok = m0 == m1;
        CHECK(ok, "seed %llu step %d: one copy flipped, the other not", (unsigned long long)seed, step);
        if (ok && m0 && O->rank == S->rank) {
            ok = dw % order == 0;
            CHECK(ok, "seed %llu step %d: the weight changed by %ld, not a multiple of |G|", (unsigned long long)seed,
                  step, dw);
            if (dw > 0) {
                const double q = 1 - exp(-bias * (double)(dw / order));
                tc_tally_chance(&tl, q);
            }
        }
        if (ok && c.st.undone != rej) {
            ok = scheme_equal(A, S) && O->rank == S->rank && dw > 0;
            CHECK(ok, "seed %llu step %d: an undone flip (rank %d, %ld coefficients added) or another scheme",
                  (unsigned long long)seed, step, O->rank, dw);
            tl.undone++;
        } else if (ok) {
            ok = scheme_equal(A, O);
            CHECK(ok, "seed %llu step %d: the biased walker made another flip", (unsigned long long)seed, step);
            kept_heavier += O->rank == S->rank && dw > 0;
            if (step % 29 == 28 && c.st.nalive < c.L.ocap - 2)
                wsym_plus(&c.w);
        }
        scheme_free(S);
        scheme_free(O);
        scheme_free(A);
        if (!m0 && ok) { /* no flip in reach: a plus transition, else the walk ends */
            if (c.st.nalive >= c.L.ocap - 2)
                break;
            wsym_plus(&c.w);
        }
    }
    const double bound = tc_tally_bound(&tl);
    CHECK(!ok || (tl.trials >= 100 && kept_heavier > 0 && tc_tally_fits(&tl)),
          "seed %llu <%d,%d,%d> %s: %ld of %ld heavier flips undone, %.1f expected (bound %.1f), %ld heavier kept",
          (unsigned long long)seed, f.n, f.n, f.n, scheme_symmetry_name(g), tl.undone, tl.trials, tl.expect, bound,
          kept_heavier);
    core_close(&c);
    core_close(&d);
}

/* 2. and 3. */
static void device_against_core(scheme_format f, scheme_symmetry g, int walkers, uint64_t flips, double wlo,
                                double whi)
{
    char err[256];
    core_run c;
    if (!core_open(&c, f, g, 30, g_seed, 0)) {
        CHECK(false, "core_open");
        return;
    }
    const search_symmetric_parts *q = &c.parts;
    cuda_sym_config cfg = {walkers, 0,          0,        g_seed,    c.L.g,     f.n,     c.L.ocap,
                           q->reps, q->norbits, q->fixed, q->nfixed, c.L.swaps, q->half, q->nhalf};
    cuda_sym *s = NULL;
    int rc = cuda_sym_create(&cfg, &s, err, sizeof err);
    CHECK(rc == 0, "cuda_sym_create: %s", err);
    if (rc) {
        core_close(&c);
        return;
    }
    /* short walks so that restarts, plus transitions and reductions all happen */
    wsym_params P = {20000, 300, 12, 0, INT_MAX, wlo, whi};
    double ms = 0;
    rc = cuda_sym_run(s, &P, flips, &ms, err, sizeof err) || cuda_sym_run(s, &P, flips, &ms, err, sizeof err);
    CHECK(rc == 0, "cuda_sym_run: %s", err);
    wsym_state *dev = calloc((size_t)walkers, sizeof *dev);
    rc = rc || cuda_sym_states(s, dev, err, sizeof err);
    CHECK(rc == 0, "cuda_sym_states: %s", err);
    uint64_t *reps = malloc((size_t)c.L.ocap * 3 * sizeof(uint64_t));
    uint64_t *fixed = malloc((size_t)c.L.fcap * 3 * sizeof(uint64_t));
    int mismatched = 0, bad = 0, restarts = 0;
    for (int i = 0; i < walkers && !rc; i++) {
        /* the same walker on the CPU */
        wsym_init_state(&c.st, g_seed, i);
        wsym_reset(&c.w, &c.start);
        /* walker i's own weight bias where a window is spread over the walkers */
        const wsym_params Pi = wsym_params_of(&P, i, walkers);
        wsym_walk(&c.w, &c.start, &Pi, flips);
        wsym_walk(&c.w, &c.start, &Pi, flips);
        if (memcmp(&c.st, &dev[i], sizeof c.st) != 0) {
            if (!mismatched++)
                printf("walker %d: device rank %d flips %llu rng %llx, CPU rank %d flips %llu rng %llx\n", i,
                       dev[i].rank, (unsigned long long)dev[i].flips, (unsigned long long)dev[i].rng, c.st.rank,
                       (unsigned long long)c.st.flips, (unsigned long long)c.st.rng);
            continue;
        }
        restarts += dev[i].restarts > 0;
        if (dev[i].best_rank == INT_MAX || cuda_sym_best(s, i, &dev[i], reps, fixed, err, sizeof err))
            continue;
        if (memcmp(reps, c.w.brep, (size_t)dev[i].best_norbits * 3 * sizeof(uint64_t)) ||
            memcmp(fixed, c.w.bfixed, (size_t)dev[i].best_nfixed * 3 * sizeof(uint64_t)))
            mismatched++;
        scheme *b = search_symmetric_join(f, g, reps, dev[i].best_norbits, fixed, dev[i].best_nfixed);
        int term, elem;
        if (b->rank != dev[i].best_rank || !verifies(b) || !scheme_symmetry_check(b, g, &term, &elem, err, sizeof err))
            bad++;
        scheme_free(b);
    }
    CHECK(mismatched == 0, "<%d,%d,%d> %s: %d of %d walkers differ from the core run on the CPU", f.n, f.n, f.n,
          scheme_symmetry_name(g), mismatched, walkers);
    CHECK(bad == 0, "<%d,%d,%d> %s: %d best schemes do not verify, are not invariant or have another rank", f.n,
          f.n, f.n, scheme_symmetry_name(g), bad);
    CHECK(restarts > 0, "<%d,%d,%d> %s: no walker restarted", f.n, f.n, f.n, scheme_symmetry_name(g));
    printf("<%d,%d,%d> %s: %d walkers x %llu flips, %.1f ms (last launch) on %s, %d walkers per block%s\n", f.n,
           f.n, f.n, scheme_symmetry_name(g), walkers, (unsigned long long)(2 * flips), ms, cuda_sym_device_name(s),
           cuda_sym_per_block(s), cuda_sym_per_block(s) ? " (shared memory)" : " (global memory)");
    free(dev);
    free(reps);
    free(fixed);
    cuda_sym_destroy(s);
    core_close(&c);
}

/* 4. */
static void backend_reaches(int n, scheme_symmetry g, int target, int warps)
{
    search_params p;
    search_params_default(&p);
    p.fmt = (scheme_format){n, n, n};
    p.symmetry = g;
    p.target_rank = target;
    p.seed = g_seed;
    p.time_limit = 120;
    p.progress_every = 0;
    /* the symmetric defaults (search/params.c) */
    p.gen_max = 1;
    p.pool_fresh = 1;
    p.isolated_plus = 1;
    p.walk_len = p.walk_max = 200000;
    p.plateau = p.plateau_min = p.plateau_max = 2000;
    p.plus_max = 64;
    search_gpu_options o;
    search_gpu_options_default(&o);
    o.warps = warps;
    o.launch_ms = 20;
    search_result r;
    search_run_gpu_sym(&p, &o, NULL, 0, NULL, &r);
    int term, elem;
    char err[256];
    CHECK(r.status == SEARCH_REACHED && r.best && verifies(r.best) &&
              scheme_symmetry_check(r.best, g, &term, &elem, err, sizeof err),
          "seed %llu <%d,%d,%d> %s: status %d best %d (%s)", (unsigned long long)g_seed, n, n, n,
          scheme_symmetry_name(g), (int)r.status, r.best_rank, r.msg);
    search_result_free(&r);
}

/* 5. The launch shape of the shared-memory kernels (cuda/smem_shape.h, which the
 * symmetric walk and the walk over Z both size their blocks by), with an H100's
 * and H200's shared memory (228 KB an SM, 227 KB a block): a block never asks
 * for more warps than the kernel's registers allow (maxThreadsPerBlock), nor
 * more shared memory than a block or an SM has. */
static void launch_shape(void)
{
    const size_t per_sm = 233472, optin = 232448;
    /* the H200's failure: a <2,2,2> c3xc2 walker of a few hundred bytes, a
     * kernel of 72 registers (28 warps a block at most) */
    int got = smem_walkers_per_block(256, per_sm, optin, 896);
    CHECK(got == 28, "a 256-byte walker, 896 threads a block at most: %d walkers a block, expected 28", got);
    const int max_threads[] = {1024, 896, 768, 640, 512, 256, 64};
    for (size_t bytes = 8; bytes <= 128 * 1024; bytes = bytes * 5 / 4 + 8)
        for (size_t k = 0; k < sizeof max_threads / sizeof *max_threads; k++) {
            const int w = smem_walkers_per_block(bytes, per_sm, optin, max_threads[k]);
            const int fits = per_sm / (bytes + 256) >= 4 && bytes * 4 <= optin;
            CHECK(fits ? w >= 1 && w <= 32 && 32 * w <= max_threads[k] && (size_t)w * bytes <= optin &&
                             (size_t)w * (bytes + 256) <= per_sm
                       : w == 0,
                  "%zu bytes a walker, %d threads a block at most: %d walkers a block (fits: %d)", bytes,
                  max_threads[k], w, fits);
        }
}

/* 6. The walker of <6,6,6> under c3xc2s1 from the cubes 110011,001100 (start
 * 278, 72 half-orbit terms; room for the symmetric defaults' plus_max 64, as
 * search/walk_gpu_sym.c gives it) fits an H200's shared memory 8 times over
 * (4 before its hash table was sized by its entries rather than twice them, 6
 * before its indices took 16 bits, forty-eighth session): in global memory
 * its 135168 walkers made 188 in 20 minutes where 6 CPU threads made 168
 * from the default cubes (bench/RESULTS.md, forty-sixth session). */
static void half_orbit_layout(void)
{
    search_cubes cubes = {0};
    core_run c;
    const bool ok = search_cubes_parse("110011,001100", &cubes) &&
                    core_open_cubes(&c, (scheme_format){6, 6, 6}, SCHEME_SYM_C3XC2S1, &cubes, 4, g_seed, 0);
    CHECK(ok, "the c3xc2s1 start of <6,6,6> from the cubes 110011,001100");
    if (!ok)
        return;
    const int rank = c.st.rank;
    CHECK(rank == 278 && c.parts.nhalf == 24, "<6,6,6> c3xc2s1 start: rank %d, %d half orbits, expected 278 and 24",
          rank, c.parts.nhalf);
    wsym_layout L;
    wsym_layout_init(&L, 2, 6, 1, wsym_orbit_slots(rank + 64 + 8, 6, c.parts.nhalf),
                     c.parts.nfixed + 3 * c.parts.nhalf);
    const size_t bytes = L.words * sizeof(uint64_t);
    const int per_block = smem_walkers_per_block(bytes, 233472, 232448, 1024);
    CHECK(per_block >= 8, "<6,6,6> c3xc2s1 walker: %zu bytes, %d walkers a block of an H200's shared memory", bytes,
          per_block);
    /* the 16-bit indices: every entry code below 2^15, else the walker is refused */
    CHECK(wsym_layout_fits(2, L.ocap) && wsym_layout_fits(2, WSYM_IX_MAX / 6) &&
              !wsym_layout_fits(2, WSYM_IX_MAX / 6 + 1) && wsym_layout_fits(1, WSYM_IX_MAX / 3) &&
              !wsym_layout_fits(1, WSYM_IX_MAX / 3 + 1),
          "wsym_layout_fits: %d orbit slots of 6 entries, and the bounds at 2^15", L.ocap);
    cuda_sym_config big = {.walkers = 1, .g = 2, .n = 6, .ocap = WSYM_IX_MAX / 6 + 1, .start_norbits = 1, .swaps = 1};
    CHECK(!cuda_sym_config_valid(&big), "cuda_sym_config_valid takes %d orbit slots of 6 entries", big.ocap);
    big.ocap = WSYM_IX_MAX / 6;
    CHECK(cuda_sym_config_valid(&big), "cuda_sym_config_valid refuses %d orbit slots of 6 entries", big.ocap);
    core_close(&c);
}

/* 7. FLIPGRAPH_SYM_GLOBAL: empty or 0 is unset (cuda_sym_global_from_env). */
static void global_from_env(void)
{
    const char *was = getenv("FLIPGRAPH_SYM_GLOBAL");
    char *saved = was ? strdup(was) : NULL;
    const char *values[] = {"", "0", "1", "yes"};
    for (int i = 0; i < 4; i++) {
        setenv("FLIPGRAPH_SYM_GLOBAL", values[i], 1);
        CHECK(cuda_sym_global_from_env() == (i >= 2), "FLIPGRAPH_SYM_GLOBAL=\"%s\": %d", values[i],
              cuda_sym_global_from_env());
    }
    if (saved)
        setenv("FLIPGRAPH_SYM_GLOBAL", saved, 1);
    else
        unsetenv("FLIPGRAPH_SYM_GLOBAL");
    free(saved);
}

int main(void)
{
    gpu_check_begin();
    g_seed = tc_seed();
    printf("seed %llu (FLIPGRAPH_SEED replays)\n", (unsigned long long)g_seed);
#ifndef FLIPGRAPH_SYM_EMU
    if (cuda_device_count() <= 0) {
        printf("skipped: no GPU visible\n");
        return 77;
    }
#endif
    launch_shape();
    half_orbit_layout();
    global_from_env();
    for (int n = 3; n <= 5; n++) {
        core_moves((scheme_format){n, n, n}, SCHEME_SYM_C3, g_seed + (uint64_t)n, 400);
        core_moves((scheme_format){n, n, n}, SCHEME_SYM_C3XC2, g_seed + 10 + (uint64_t)n, 400);
    }
    /* the involutions that swap fewer pairs than the reversal (schemes/involution.h) */
    core_moves((scheme_format){4, 4, 4}, SCHEME_SYM_C3XC2S1, g_seed + 14, 400);
    core_moves((scheme_format){5, 5, 5}, SCHEME_SYM_C3XC2S1, g_seed + 15, 400);
    core_moves((scheme_format){6, 6, 6}, SCHEME_SYM_C3XC2S2, g_seed + 16, 200);
    /* <7,7,7>, the first format above the records' table (49 bits a factor, an
     * odd n whose reversal fixes the middle index) */
    core_moves((scheme_format){7, 7, 7}, SCHEME_SYM_C3, g_seed + 17, 200);
    core_moves((scheme_format){7, 7, 7}, SCHEME_SYM_C3XC2, g_seed + 18, 200);
    core_weight_bias((scheme_format){4, 4, 4}, SCHEME_SYM_C3, g_seed + 20, 800, 0.4);
    core_weight_bias((scheme_format){4, 4, 4}, SCHEME_SYM_C3XC2, g_seed + 21, 800, 0.2);
#ifdef FLIPGRAPH_SYM_EMU
    const int walkers = 24;
#else
    const int walkers = 2048;
#endif
    device_against_core((scheme_format){3, 3, 3}, SCHEME_SYM_C3, walkers, 30000, 0, 0);
    device_against_core((scheme_format){5, 5, 5}, SCHEME_SYM_C3, walkers, 30000, 0, 0);
    device_against_core((scheme_format){4, 4, 4}, SCHEME_SYM_C3XC2, walkers, 30000, 0, 0);
    device_against_core((scheme_format){5, 5, 5}, SCHEME_SYM_C3XC2S1, walkers, 30000, 0, 0);
    device_against_core((scheme_format){7, 7, 7}, SCHEME_SYM_C3XC2, walkers, 30000, 0, 0);
    /* the weight bias spread over the walkers (0.05 to 0.4): each walker against the core with its own */
    device_against_core((scheme_format){4, 4, 4}, SCHEME_SYM_C3, walkers, 30000, 0.05, 0.4);
#ifndef FLIPGRAPH_SYM_EMU
    /* the global-memory kernel too (taken where a state does not fit in shared memory) */
    setenv("FLIPGRAPH_SYM_GLOBAL", "1", 1);
    device_against_core((scheme_format){5, 5, 5}, SCHEME_SYM_C3, walkers, 30000, 0, 0);
    unsetenv("FLIPGRAPH_SYM_GLOBAL");
#endif
    backend_reaches(3, SCHEME_SYM_C3, 23, 2);
    backend_reaches(2, SCHEME_SYM_C3XC2, 7, 2);
    /* half orbits (12 of the start's terms) through the backend, its orbit
     * slots sized from the start's half orbits */
    backend_reaches(4, SCHEME_SYM_C3XC2S1, 50, 2);
    return gpu_check_summary();
}
