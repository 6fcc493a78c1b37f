/* bench_gpu_walk: the GPU flip-graph walk's figures (docs/gpu-walk.md), a table last.
 *
 *   flips  total flips/s on <4,4,4> and <5,5,5> from the standard algorithm
 *          (kernel time; each store where it fits; launches of equal step
 *          counts, the baseline, beside timed launches), and the CPU engine's
 *          flips/s on the same machine with one thread per core, side by side
 *   sflips flips/s of the whole search (search_run_gpu, every walker set of
 *          --devices, the host's verification and pool included) over
 *          --flips-seconds on <4,4,4> and <5,5,5>: total flips / wall time
 *   ttr    seconds from <4,4,4>'s standard algorithm to rank --ttr-rank (47)
 *          (search_run_gpu), for seeds 1..N, median
 *   best   best rank after S seconds on <5,5,5>, <4,4,5>, <4,5,5>, seeds 1..--best-seeds
 * --devices LIST (0,1): the searches (sflips, ttr, best) walk one walker set
 * per listed GPU; flips measures one walk object on the first.
 *
 * Usage: bench_gpu_walk [--only flips,sflips,ttr,best] [--flips-seconds S] [--cpu-seconds S]
 *        [--ttr-seeds N] [--ttr-cap S] [--best-seconds S] [--best-formats F,F,..]
 *        [--warps N] [--rounds K] [--mix N] [--store auto|regs|smem] [--plateau L]
 *        [--plus-max P] [--walk-len N] [--pool-min N] [--steps N] [--pairs 0|1] [--idle-plus N]
 *        [--gpu-defaults 0|1] [--ttr-first SEED] [--ttr-progress S] [--pool-up X] [--collect 0|1|2]
 *        [--devices LIST] [--ttr-rank R] [--best-seeds N] [--isolated-restart 0|1] [--timed 0|1]
 *        [--flips-mode both|steps|timed]
 * --timed 0: the searches' launches adapt their step count (the baseline) instead of timing
 * each walker (search_gpu_options.timed).
 * --gpu-defaults: the GPU's own defaults (walk_gpu.h) where a shared parameter is left at the
 * CPU default; off by default as soon as one of --plateau/--walk-len/--plus-max/--pool-min is given.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../cuda/fg_cuda.h"
#include "../search/search.h"
#include "../search/walk_gpu.h"

typedef struct opts {
    const char *only;
    double flips_s, cpu_s, ttr_cap, best_s;
    int ttr_seeds, ttr_first, ttr_rank, best_seeds;
    int flips_mode; /* flips phase: 0 both launch kinds, 1 equal step counts only, 2 timed only */
    char devs[64]; /* the --devices list as given, for the table */
    double ttr_progress;
    char best_formats[256];
    search_gpu_options g;
    uint64_t plateau, walk_len;
    int plus_max, pool_min;
    double pool_up; /* < 0: the default */
    int siblings;   /* --collect K: search_params.siblings; < 0: the GPU's default (1) */
} opts;

static char table[64][320];
static int nrows;

static void row(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void row(const char *fmt, ...)
{
    if (nrows >= 64)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(table[nrows++], sizeof table[0], fmt, ap);
    va_end(ap);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void set_params(const opts *o, search_params *p, scheme_format f)
{
    search_params_default(p);
    p->fmt = f;
    if (o->plateau) {
        p->plateau = o->plateau;
        if (p->plateau_min > p->plateau) p->plateau_min = p->plateau;
        if (p->plateau_max < p->plateau) p->plateau_max = p->plateau;
    }
    /* as given (no GPU defaults): the GPU's plateau fixed, as `flipgraph search`
     * runs it unless --plateau-min/max is given (docs/gpu-walk.md, "The
     * adaptive plateau") */
    if (!o->g.gpu_defaults)
        p->plateau_min = p->plateau_max = p->plateau;
    if (o->walk_len) p->walk_len = o->walk_len;
    /* --collect K: the failed walks' siblings (search_params.siblings); as given, the GPU's 1 */
    p->siblings = o->siblings >= 0 ? o->siblings : 1;
    if (o->pool_up >= 0) p->pool_up = o->pool_up;
    if (o->plus_max >= 0) p->plus_max = o->plus_max;
    if (o->pool_min > 0) {
        p->pool_min = o->pool_min;
        if (p->pool_size < p->pool_min) p->pool_size = p->pool_min;
    }
    p->progress_every = 0;
}

/* flips/s of the kernel alone: walkers from the standard algorithm, launches
 * for `seconds` after a warm-up launch (the first ranks fall fast). */
static void bench_flips(const opts *o, scheme_format f, int store, bool timed)
{
    char fb[32], err[256];
    scheme_format_str(f, fb);
    scheme *s = scheme_standard(f);
    search_params p0, p;
    set_params(o, &p0, f);
    search_gpu_params(&p0, &o->g, &p); /* the plateau and plus-max a search would run with */
    cuda_walk_config c;
    memset(&c, 0, sizeof c);
    c.warps = o->g.warps;
    c.cap = (s->rank + 31) / 32 * 32;
    c.seed = 1;
    c.rounds = o->g.rounds;
    c.plateau = (uint32_t)p.plateau;
    c.plus_max = p.plus_max;
    c.mix_every = o->g.mix_every;
    c.store = store;
    c.check_pairs = o->g.check_pairs;
    c.idle_plus = o->g.idle_plus;
    c.isolated_restart = o->g.isolated_restart;
    c.walk_len = 0; /* flips/s of walks, without restarts */
    /* timed: each walker walks 200 ms a launch by its clock (what a search
     * runs); else the baseline, equal step counts of about 200 ms */
    c.launch_us = timed && !o->g.steps ? 200000 : 0;
    c.device = o->g.ndevices > 0 ? o->g.devices[0] : 0;
    cuda_walk *w;
    if (cuda_walk_create(&c, &w, err, sizeof err) != 0) {
        printf("flips %s: %s\n", fb, err);
        row("| flips/s | %s | - | %s |", fb, err);
        scheme_free(s);
        return;
    }
    cuda_walk_info in;
    cuda_walk_get_info(w, &in);
    uint64_t *t = malloc((size_t)s->rank * 3 * sizeof *t);
    for (int i = 0; i < s->rank; i++)
        memcpy(t + 3 * i, s->terms[i].f, 3 * sizeof *t);
    for (int i = 0; i < in.warps; i++)
        cuda_walk_load(w, i, t, s->rank, err, sizeof err);
    cuda_walk_batch b;
    uint32_t steps = o->g.steps ? o->g.steps : c.launch_us ? 1u << 24 : 20000;
    cuda_walk_launch(w, steps, err, sizeof err);
    cuda_walk_collect(w, &b, err, sizeof err);
    uint64_t f0 = 0, s0 = 0;
    for (int i = 0; i < b.warps; i++) {
        f0 += b.warp[i].flips;
        s0 += b.warp[i].steps;
    }
    /* about 200 ms per launch */
    if (!o->g.steps && !c.launch_us && b.ms > 0)
        steps = (uint32_t)(steps * 200.0 / b.ms) + 1;
    double ms = 0, t0 = now_s();
    uint64_t f1 = f0, s1 = s0, plus = 0, red = 0;
    int best = s->rank, launches = 0, rc = 0;
    double sum_rank = 0;
    while (now_s() - t0 < o->flips_s) {
        if ((rc = cuda_walk_launch(w, steps, err, sizeof err)) || (rc = cuda_walk_collect(w, &b, err, sizeof err)))
            break;
        ms += b.ms;
        launches++;
        f1 = s1 = plus = red = 0;
        sum_rank = 0;
        for (int i = 0; i < b.warps; i++) {
            f1 += b.warp[i].flips;
            s1 += b.warp[i].steps;
            plus += b.warp[i].plus;
            red += b.warp[i].reductions;
            sum_rank += b.warp[i].rank;
            if (b.warp[i].best_rank < best)
                best = b.warp[i].best_rank;
        }
    }
    const double wall = now_s() - t0;
    const char *sn = in.store == CUDA_WALK_STORE_REGS ? "regs" : "smem";
    if (rc) {
        printf("flips %s (%s): %s\n", fb, sn, err);
        row("| flips/s | %s | - | %s |", fb, err);
    } else {
        const double fps = ms > 0 ? (double)(f1 - f0) / (ms / 1000) : 0;
        const char *mode = c.launch_us ? "timed launches" : "step launches";
        printf("flips %s (%s store, %s, %d walkers, %u steps/launch, %d launches): %.3g flips/s (kernel), %.3g "
               "(wall), %.3g steps/s, %.2f flips per step, mean rank %.1f, best %d, %llu plus, %llu reductions\n",
               fb, sn, mode, in.warps, steps, launches, fps, (double)(f1 - f0) / wall, (double)(s1 - s0) / (ms / 1000),
               s1 > s0 ? (double)(f1 - f0) / (double)(s1 - s0) : 0, sum_rank / b.warps, best,
               (unsigned long long)plus, (unsigned long long)red);
        row("| GPU flips/s | %s | %.3g | %s store, %s, %d walkers, mean rank %.1f |", fb, fps, sn, mode,
            in.warps, sum_rank / b.warps);
    }
    fflush(stdout);
    free(t);
    scheme_free(s);
    cuda_walk_destroy(w);
}

static void bench_cpu(const opts *o, scheme_format f)
{
    char fb[32];
    scheme_format_str(f, fb);
    search_params p;
    set_params(o, &p, f);
    p.threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (p.threads < 1)
        p.threads = 1;
    p.time_limit = o->cpu_s;
    p.seed = 1;
    search_result r;
    search_status st = search_run_cpu(&p, NULL, 0, NULL, &r);
    if (st > SEARCH_NOT_REACHED) {
        printf("cpu %s: %s\n", fb, r.msg);
        row("| CPU flips/s | %s | - | %s |", fb, r.msg);
    } else {
        double fps = r.seconds > 0 ? (double)r.flips / r.seconds : 0;
        printf("cpu %s: %d threads, %.3g flips/s (%.3g per thread), best rank %d\n", fb, p.threads, fps,
               fps / p.threads, r.best_rank);
        row("| CPU flips/s | %s | %.3g | search_run_cpu, %d threads (%.3g per thread) |", fb, fps, p.threads,
            fps / p.threads);
    }
    search_result_free(&r);
    fflush(stdout);
}

typedef struct trace_ctx {
    const char *what;
} trace_ctx;

static bool on_found(void *ctx, const search_found *f)
{
    trace_ctx *tc = ctx;
    printf("  %s: rank %d at %.2f s (%.3g flips)\n", tc->what, f->rank, f->seconds, (double)f->flips);
    fflush(stdout);
    return true;
}

static void on_progress(void *ctx, const search_progress *pr)
{
    trace_ctx *tc = ctx;
    printf("  %s: [%5.1fs] %.3g flips/s best %d level %d (%d schemes) plus %llu restarts %llu\n", tc->what,
           pr->seconds, pr->flips_per_s, pr->best_rank, pr->level, pr->level_count,
           (unsigned long long)pr->plus, (unsigned long long)pr->restarts);
    fflush(stdout);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void bench_ttr(const opts *o)
{
    scheme_format f = {4, 4, 4};
    double t[64];
    int n = 0, reached = 0;
    char list[512] = "";
    for (int seed = o->ttr_first; seed < o->ttr_first + o->ttr_seeds && n < 64; seed++) {
        search_params p;
        set_params(o, &p, f);
        p.progress_every = o->ttr_progress;
        p.seed = (uint64_t)seed;
        p.target_rank = o->ttr_rank;
        p.time_limit = o->ttr_cap;
        char what[64];
        snprintf(what, sizeof what, "<4,4,4> seed %d", seed);
        trace_ctx tc = {what};
        search_callbacks cb = {.ctx = &tc, .improved = on_found,
                               .progress = o->ttr_progress > 0 ? on_progress : NULL};
        search_result r;
        search_status st = search_run_gpu_opts(&p, &o->g, NULL, 0, &cb, &r);
        const bool ok = st == SEARCH_REACHED;
        printf("ttr <4,4,4> seed %d: %s rank %d after %.2f s, %.3g flips, %llu restarts%s%s\n", seed,
               ok ? "reached" : "not reached,", r.best_rank, r.seconds, (double)r.flips,
               (unsigned long long)r.restarts, r.msg[0] ? ": " : "", r.msg);
        fflush(stdout);
        t[n++] = ok ? r.seconds : 1e30;
        reached += ok;
        char one[48];
        if (ok)
            snprintf(one, sizeof one, "%s%.1f", n > 1 ? ", " : "", r.seconds);
        else
            snprintf(one, sizeof one, "%s>%.0f (rank %d)", n > 1 ? ", " : "", o->ttr_cap, r.best_rank);
        strncat(list, one, sizeof list - strlen(list) - 1);
        search_result_free(&r);
        if (st > SEARCH_NOT_REACHED)
            break;
    }
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    double med = n ? t[n / 2] : 1e30;
    if (med < 1e29)
        row("| time to rank %d, GPUs %s | <4,4,4> | %.1f s median | %d/%d seeds reached: %s s |", o->ttr_rank,
            o->devs, med, reached, n, list);
    else
        row("| time to rank %d, GPUs %s | <4,4,4> | > %.0f s median | %d/%d seeds reached: %s |", o->ttr_rank,
            o->devs, o->ttr_cap, reached, n, list);
}

static void bench_best(const opts *o)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", o->best_formats);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        scheme_format f;
        char e[128];
        if (!scheme_format_parse(tok, &f, e, sizeof e)) {
            printf("best: %s\n", e);
            continue;
        }
        char fb[32];
        scheme_format_str(f, fb);
        for (int seed = 1; seed <= o->best_seeds; seed++) {
            search_params p;
            set_params(o, &p, f);
            p.seed = (uint64_t)seed;
            p.time_limit = o->best_s;
            trace_ctx tc = {fb};
            search_callbacks cb = {.ctx = &tc, .improved = on_found};
            search_result r;
            search_status st = search_run_gpu_opts(&p, &o->g, NULL, 0, &cb, &r);
            printf("best %s seed %d, GPUs %s, after %.0f s: rank %d (record %d), %.3g flips, %llu restarts%s%s\n", fb,
                   seed, o->devs, r.seconds, r.best_rank, search_record_rank(f), (double)r.flips,
                   (unsigned long long)r.restarts, r.msg[0] ? ": " : "", r.msg);
            fflush(stdout);
            if (st > SEARCH_NOT_REACHED)
                row("| best rank after %.0f s, GPUs %s, seed %d | %s | - | %s |", o->best_s, o->devs, seed, fb, r.msg);
            else
                row("| best rank after %.0f s, GPUs %s, seed %d | %s | %d | record %d; %.3g flips/s |", o->best_s,
                    o->devs, seed, fb, r.best_rank, search_record_rank(f),
                    r.seconds > 0 ? (double)r.flips / r.seconds : 0);
            search_result_free(&r);
            if (st > SEARCH_NOT_REACHED)
                break;
        }
    }
}

/* flips/s of the whole search on every walker set of --devices: what a user
 * running `flipgraph search --backend gpu --devices LIST` gets. */
static void bench_sflips(const opts *o, scheme_format f)
{
    char fb[32];
    scheme_format_str(f, fb);
    search_params p;
    set_params(o, &p, f);
    p.seed = 1;
    p.time_limit = o->flips_s;
    search_result r;
    search_gpu_stats st;
    search_status s = search_run_gpu_stats(&p, &o->g, NULL, 0, NULL, &r, &st);
    if (s > SEARCH_NOT_REACHED) {
        printf("sflips %s, GPUs %s: %s\n", fb, o->devs, r.msg);
        row("| search flips/s, GPUs %s | %s | - | %s |", o->devs, fb, r.msg);
    } else {
        char sets[256] = "";
        for (int k = 0; k < st.sets; k++)
            snprintf(sets + strlen(sets), sizeof sets - strlen(sets), "%s%.3g (GPU %d, %d walkers)", k ? ", " : "",
                     r.seconds > 0 ? (double)st.set[k].flips / r.seconds : 0, st.set[k].device, st.set[k].walkers);
        const double fps = r.seconds > 0 ? (double)r.flips / r.seconds : 0;
        printf("sflips %s, GPUs %s: %.3g flips/s over %.1f s (per set: %s), best rank %d, %llu restarts, %llu pooled\n",
               fb, o->devs, fps, r.seconds, sets, r.best_rank, (unsigned long long)r.restarts,
               (unsigned long long)st.pool_added);
        row("| search flips/s, GPUs %s | %s | %.3g | %.0f s from the standard algorithm; per set %s; best rank %d |",
            o->devs, fb, fps, r.seconds, sets, r.best_rank);
    }
    search_result_free(&r);
    fflush(stdout);
}

/* --only: a comma-separated list of phases; none: flips, ttr, best */
static bool phase(const opts *o, const char *name)
{
    if (!o->only)
        return strcmp(name, "sflips") != 0;
    const size_t n = strlen(name);
    for (const char *q = o->only; *q;) {
        const char *e = strchr(q, ',');
        const size_t len = e ? (size_t)(e - q) : strlen(q);
        if (len == n && !strncmp(q, name, n))
            return true;
        q += len + (e != NULL);
    }
    return false;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: bench_gpu_walk [--only flips,sflips,ttr,best] [--flips-seconds S] [--cpu-seconds S]\n"
                 "       [--ttr-seeds N] [--ttr-cap S] [--best-seconds S] [--best-formats F,F,..]\n"
                 "       [--warps N] [--rounds K] [--mix N] [--store auto|regs|smem] [--plateau L]\n"
                 "       [--plus-max P] [--walk-len N] [--pool-min N] [--steps N] [--pairs 0|1] [--idle-plus N]\n"
                 "       [--gpu-defaults 0|1] [--ttr-first SEED] [--ttr-progress S] [--pool-up X] [--collect 0|1|2]\n"
                 "       [--devices LIST] [--ttr-rank R] [--best-seeds N]\n"
                 "       [--isolated-restart 0|1] [--timed 0|1] [--flips-mode both|steps|timed]\n");
}

int main(int argc, char **argv)
{
    opts o;
    memset(&o, 0, sizeof o);
    o.flips_s = 10;
    o.cpu_s = 5;
    o.ttr_seeds = 5;
    o.ttr_first = 1;
    o.ttr_rank = 47;
    o.best_seeds = 1;
    snprintf(o.devs, sizeof o.devs, "0");
    o.ttr_cap = 60;
    o.best_s = 120;
    o.plus_max = -1;
    o.pool_up = -1;
    o.siblings = -1;
    snprintf(o.best_formats, sizeof o.best_formats, "5x5x5,4x4x5,4x5x5");
    search_gpu_options_default(&o.g);
    static const struct option lo[] = {
        {"only", required_argument, 0, 'o'},       {"flips-seconds", required_argument, 0, 'f'},
        {"cpu-seconds", required_argument, 0, 'c'}, {"ttr-seeds", required_argument, 0, 'n'},
        {"ttr-cap", required_argument, 0, 't'},    {"best-seconds", required_argument, 0, 'b'},
        {"best-formats", required_argument, 0, 'F'}, {"warps", required_argument, 0, 'w'},
        {"rounds", required_argument, 0, 'r'},     {"mix", required_argument, 0, 'm'},
        {"store", required_argument, 0, 's'},      {"plateau", required_argument, 0, 'L'},
        {"plus-max", required_argument, 0, 'P'},   {"walk-len", required_argument, 0, 'W'},
        {"pool-min", required_argument, 0, 'M'},   {"steps", required_argument, 0, 'S'},
        {"pairs", required_argument, 0, 'p'},      {"idle-plus", required_argument, 0, 'I'},
        {"gpu-defaults", required_argument, 0, 'G'}, {"ttr-first", required_argument, 0, 'N'},
        {"ttr-progress", required_argument, 0, 'R'}, {"pool-up", required_argument, 0, 'U'},
        {"collect", required_argument, 0, 'C'},     {"devices", required_argument, 0, 'D'},
        {"ttr-rank", required_argument, 0, 'K'},    {"best-seeds", required_argument, 0, 'B'},
        {"isolated-restart", required_argument, 0, 'i'}, {"timed", required_argument, 0, 'T'},
        {"flips-mode", required_argument, 0, 'Y'},
        {"help", no_argument, 0, 'h'},             {0, 0, 0, 0}};
    int gpu_defaults = -1;
    optind = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (ch) {
        case 'o': o.only = optarg; break;
        case 'f': o.flips_s = atof(optarg); break;
        case 'c': o.cpu_s = atof(optarg); break;
        case 'n': o.ttr_seeds = atoi(optarg); break;
        case 't': o.ttr_cap = atof(optarg); break;
        case 'b': o.best_s = atof(optarg); break;
        case 'F': snprintf(o.best_formats, sizeof o.best_formats, "%s", optarg); break;
        case 'w': o.g.warps = atoi(optarg); break;
        case 'r': o.g.rounds = atoi(optarg); break;
        case 'm': o.g.mix_every = atoi(optarg); break;
        case 's':
            o.g.store = !strcmp(optarg, "regs") ? CUDA_WALK_STORE_REGS
                        : !strcmp(optarg, "smem") ? CUDA_WALK_STORE_SMEM : CUDA_WALK_STORE_AUTO;
            break;
        case 'L': o.plateau = strtoull(optarg, NULL, 0); break;
        case 'P': o.plus_max = atoi(optarg); break;
        case 'W': o.walk_len = strtoull(optarg, NULL, 0); break;
        case 'M': o.pool_min = atoi(optarg); break;
        case 'S': o.g.steps = (uint32_t)strtoul(optarg, NULL, 0); break;
        case 'p': o.g.check_pairs = atoi(optarg) != 0; break;
        case 'I': o.g.idle_plus = (uint32_t)strtoul(optarg, NULL, 0); break;
        case 'i': o.g.isolated_restart = atoi(optarg) != 0; break;
        case 'T': o.g.timed = atoi(optarg) != 0; break;
        case 'Y':
            o.flips_mode = !strcmp(optarg, "steps") ? 1 : !strcmp(optarg, "timed") ? 2 : 0;
            if (!o.flips_mode && strcmp(optarg, "both")) {
                fprintf(stderr, "bench_gpu_walk: --flips-mode %s: expected steps, timed or both\n", optarg);
                return 2;
            }
            break;
        case 'G': gpu_defaults = atoi(optarg) != 0; break;
        case 'N': o.ttr_first = atoi(optarg); break;
        case 'R': o.ttr_progress = atof(optarg); break;
        case 'U': o.pool_up = atof(optarg); break;
        case 'C': o.siblings = atoi(optarg); break;
        case 'D': {
            o.g.ndevices = 0;
            snprintf(o.devs, sizeof o.devs, "%s", optarg);
            for (char *q = optarg, *e; *q; q = *e ? e + 1 : e) {
                long v = strtol(q, &e, 10);
                if (e == q || v < 0 || v > 255 || (*e && *e != ',') || o.g.ndevices == SEARCH_GPU_MAX_DEVICES) {
                    fprintf(stderr, "bench_gpu_walk: --devices %s: expected GPU indices like 0,1\n", o.devs);
                    return 2;
                }
                o.g.devices[o.g.ndevices++] = (int)v;
            }
            break;
        }
        case 'K': o.ttr_rank = atoi(optarg); break;
        case 'B': o.best_seeds = atoi(optarg); break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    /* a sweep gives the shared parameters explicitly: they are taken as given
     * (a value equal to the CPU default is not replaced by the GPU's) */
    if (gpu_defaults >= 0)
        o.g.gpu_defaults = gpu_defaults;
    else if (o.plateau || o.walk_len || o.plus_max >= 0 || o.pool_min > 0 || o.pool_up >= 0 || o.siblings >= 0)
        o.g.gpu_defaults = false;
    char dev[256];
    if (cuda_device_describe(dev, sizeof dev) <= 0) {
        fprintf(stderr, "bench_gpu_walk: no GPU visible (%s)\n", dev);
        return 2;
    }
    printf("bench_gpu_walk on %s, %ld CPU cores\n", dev, sysconf(_SC_NPROCESSORS_ONLN));
    if (phase(&o, "flips")) {
        /* the baseline (equal step counts: the launch waits for its slowest
         * walker) beside the timed launches a search runs */
        const bool steps = o.flips_mode != 2, timed = o.flips_mode != 1;
        if (steps)
            bench_flips(&o, (scheme_format){4, 4, 4}, o.g.store, false);
        if (timed)
            bench_flips(&o, (scheme_format){4, 4, 4}, o.g.store, true);
        if (o.g.store == CUDA_WALK_STORE_AUTO)
            bench_flips(&o, (scheme_format){4, 4, 4}, CUDA_WALK_STORE_SMEM, timed);
        if (steps)
            bench_flips(&o, (scheme_format){5, 5, 5}, o.g.store, false);
        if (timed)
            bench_flips(&o, (scheme_format){5, 5, 5}, o.g.store, true);
        if (o.cpu_s > 0) {
            bench_cpu(&o, (scheme_format){4, 4, 4});
            bench_cpu(&o, (scheme_format){5, 5, 5});
        }
    }
    if (phase(&o, "sflips")) {
        bench_sflips(&o, (scheme_format){4, 4, 4});
        bench_sflips(&o, (scheme_format){5, 5, 5});
    }
    if (phase(&o, "ttr"))
        bench_ttr(&o);
    if (phase(&o, "best"))
        bench_best(&o);
    printf("\n| what | format | value | note |\n| --- | --- | --- | --- |\n");
    for (int i = 0; i < nrows; i++)
        printf("%s\n", table[i]);
    return 0;
}
