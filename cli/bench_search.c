/* flipgraph bench search: flips per second per thread, and time to rank
 * (median over seeds), for the CPU walker (search/; docs/search.md).
 *
 * Flips per second are measured two ways: the bare walker (random flips and
 * the reductions they enable, no restarts) from a state reached after a
 * warm-up, and the whole search (restarts, pool, verification of every kept
 * scheme) running without a target.  The reference figure next to them, 2.5e6
 * flips/s per core, is a figure quoted for the best published CPU walker on
 * this kind of machine; it was not measured here, and no paper of
 * docs/references.md states it. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../search/search.h"
#include "cli.h"

#define CMD "bench search"
#define PUBLISHED_FLIPS_PER_CORE 2.5e6

static void usage(FILE *out)
{
    fprintf(out,
"usage: flipgraph bench search [--quick] [--seeds N] [--cap SECONDS] [--threads N]\n"
"                              [--targets NxMxP:R,...] [--flips-only | --rank-only]\n"
"                              [--ring f2|z|both] [--coef-max K] [--backend cpu|gpu]\n"
"\n"
"  flips/s per thread on <4,4,4> and <5,5,5> (bare walker and whole search), then\n"
"  the time to reach each target rank from the standard algorithm, median over\n"
"  N seeds (default targets 3x3x3:23,4x4x4:49,2x4x5:33,3x4x5:47; 5 seeds; each\n"
"  run capped at --cap seconds, default 300).  --quick: 3 seeds, cap 30 s,\n"
"  shorter flip measurements.  --threads: walkers per search (default 1).\n"
"  --ring: over GF(2) (default), over Z (docs/search.md, \"Searching over Z\"; the\n"
"  flips counted are those taken, and the share of drawn flips the coefficient bound\n"
"  --coef-max, default 1, refused is shown), or both, row by row on the same format.\n"
"  --backend gpu: the whole search on GPU 0 (its defaults, docs/gpu-walk.md): flips/s\n"
"  of the whole GPU, no bare walker; over Z the GPU walk takes --coef-max 1 only.\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Bare walker: flips/s after a warm-up walk, no restarts, no plus. */
static double walker_rate(scheme_format f, int ring, int cmax, double seconds, uint64_t seed, int *rank,
                          double *refused)
{
    search_params p;
    search_params_default(&p);
    p.fmt = f;
    p.ring = ring;
    p.coef_max = cmax;
    p.plus_max = 0;
    p.isolated_plus = 1; /* the bare walker's speed: it never stops at an isolated scheme */
    scheme *s = scheme_standard(f);
    search_walker *w = s ? search_walker_new(s, &p, seed, 0) : NULL;
    scheme_free(s);
    if (!w)
        return 0;
    search_walker_walk(w, 2000000, 0, 0); /* warm-up: away from the standard algorithm */
    search_walker_stats st0, st1;
    search_walker_stats_get(w, &st0);
    double t0 = cli_now(), t;
    do {
        search_walker_walk(w, 1 << 20, 0, 0);
        t = cli_now();
    } while (t - t0 < seconds);
    search_walker_stats_get(w, &st1);
    *rank = search_walker_rank(w);
    const double taken = (double)(st1.flips - st0.flips), no = (double)(st1.rejected - st0.rejected);
    *refused = taken + no > 0 ? no / (taken + no) : 0;
    search_walker_free(w);
    return taken / (t - t0);
}

/* One search on the CPU, or on GPU 0 with its defaults. */
static search_status run_search(const search_params *p, bool gpu, search_result *r)
{
    return gpu ? search_run_gpu(p, NULL, 0, NULL, r) : search_run_cpu(p, NULL, 0, NULL, r);
}

/* Whole search, no target, for `seconds`: flips/s per thread (the whole GPU
 * with gpu); negative (a message in msg) when the search could not run. */
static double search_rate(scheme_format f, int ring, int cmax, double seconds, int threads, uint64_t seed,
                          int *best, bool gpu, char *msg, size_t msglen)
{
    search_params p;
    search_params_default(&p);
    p.fmt = f;
    p.ring = ring;
    p.coef_max = cmax;
    p.threads = threads;
    p.time_limit = seconds;
    p.seed = seed;
    p.progress_every = 0;
    search_result r;
    const search_status st = run_search(&p, gpu, &r);
    if (st == SEARCH_BAD_PARAMS || st == SEARCH_FAILED) {
        snprintf(msg, msglen, "%s", r.msg);
        search_result_free(&r);
        return st == SEARCH_BAD_PARAMS ? -2 : -3;
    }
    *best = r.best_rank;
    double rate = r.seconds > 0 ? (double)r.flips / r.seconds / (gpu ? 1 : threads) : 0;
    search_result_free(&r);
    return rate;
}

typedef struct target {
    scheme_format f;
    int rank;
} target;

int bench_search_cmd(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"quick", no_argument, 0, 'q'},     {"seeds", required_argument, 0, 's'},
        {"cap", required_argument, 0, 'c'}, {"threads", required_argument, 0, 't'},
        {"targets", required_argument, 0, 'T'}, {"flips-only", no_argument, 0, 'F'},
        {"rank-only", no_argument, 0, 'R'}, {"help", no_argument, 0, 'h'},
        {"ring", required_argument, 0, 'r'}, {"coef-max", required_argument, 0, 'k'},
        {"backend", required_argument, 0, 'b'}, {0, 0, 0, 0},
    };
    bool quick = false, flips = true, ranks = true, gpu = false;
    long seeds = 0, threads = 1, cmax = 1;
    int rings[2] = {SCHEME_RING_F2, SCHEME_RING_F2}, nrings = 1;
    double cap = 0;
    target targets[16] = {
        {{3, 3, 3}, 23}, {{4, 4, 4}, 49}, {{2, 4, 5}, 33}, {{3, 4, 5}, 47},
    };
    int ntargets = 4;
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'q': quick = true; break;
        case 's':
            if (!cli_parse_long(optarg, 1, 1000, &seeds))
                return cli_error(CLI_USAGE, CMD, "--seeds %s: expected 1..1000", optarg);
            break;
        case 'c':
            if (!cli_parse_duration(optarg, &cap) || cap <= 0)
                return cli_error(CLI_USAGE, CMD, "--cap %s: expected a duration", optarg);
            break;
        case 't':
            if (!cli_parse_long(optarg, 1, 1024, &threads))
                return cli_error(CLI_USAGE, CMD, "--threads %s: expected 1..1024", optarg);
            break;
        case 'T': {
            ntargets = 0;
            char *copy = strdup(optarg), *save = NULL;
            for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                char *colon = strchr(tok, ':');
                long r;
                char err[128];
                if (ntargets == 16 || !colon) {
                    free(copy);
                    return cli_error(CLI_USAGE, CMD, "--targets: expected NxMxP:RANK,... (at most 16)");
                }
                *colon = 0;
                if (!scheme_format_parse(tok, &targets[ntargets].f, err, sizeof err) ||
                    !scheme_format_valid(targets[ntargets].f) ||
                    !cli_parse_long(colon + 1, 1, SCHEME_MAX_RANK, &r)) {
                    free(copy);
                    return cli_error(CLI_USAGE, CMD, "--targets: bad entry '%s:%s'", tok, colon + 1);
                }
                targets[ntargets++].rank = (int)r;
            }
            free(copy);
            break;
        }
        case 'r':
            if (!strcmp(optarg, "f2") || !strcmp(optarg, "z")) {
                rings[0] = !strcmp(optarg, "z") ? SCHEME_RING_Z : SCHEME_RING_F2;
                nrings = 1;
            } else if (!strcmp(optarg, "both")) {
                rings[0] = SCHEME_RING_F2;
                rings[1] = SCHEME_RING_Z;
                nrings = 2;
            } else {
                return cli_error(CLI_USAGE, CMD, "--ring %s: expected f2, z or both", optarg);
            }
            break;
        case 'k':
            if (!cli_parse_long(optarg, 1, 3, &cmax))
                return cli_error(CLI_USAGE, CMD, "--coef-max %s: expected 1..3", optarg);
            break;
        case 'b':
            if (strcmp(optarg, "cpu") && strcmp(optarg, "gpu"))
                return cli_error(CLI_USAGE, CMD, "--backend %s: expected cpu or gpu", optarg);
            gpu = !strcmp(optarg, "gpu");
            break;
        case 'F': ranks = false; break;
        case 'R': flips = false; break;
        case 'h': usage(stdout); return CLI_OK;
        case ':': return cli_error(CLI_USAGE, CMD, "%s needs a value", argv[optind - 1]);
        default: return cli_error(CLI_USAGE, CMD, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, CMD, "unexpected argument '%s'", argv[optind]);
    if (!seeds)
        seeds = quick ? 3 : 5;
    if (!cap)
        cap = quick ? 30 : 300;
    double mtime = quick ? 2 : 10;

    if (gpu)
        printf("flipgraph bench search%s: the whole search on GPU 0 (--backend gpu)\n", quick ? " --quick" : "");
    else
        printf("flipgraph bench search%s: %ld thread%s per search\n", quick ? " --quick" : "", threads,
               threads == 1 ? "" : "s");
    if (flips) {
        if (gpu)
            printf("\nflips/s of the GPU (whole search; no bare walker)\n");
        else
            printf("\nflips/s per thread (published CPU walker, quoted, not measured here: %.1e per core)\n",
                   PUBLISHED_FLIPS_PER_CORE);
        printf("%-8s %-4s %14s %8s %9s %16s %8s\n", "format", "ring", "bare walker", "at rank", "refused", "whole search",
               "best");
        static const scheme_format ff[] = {{4, 4, 4}, {5, 5, 5}};
        for (size_t i = 0; i < sizeof ff / sizeof *ff; i++)
            for (int k = 0; k < nrings; k++) {
                char fb[32], rf[32] = "-";
                int wr = 0, best = 0;
                double refused = 0;
                char msg[512];
                double a = gpu ? 0 : walker_rate(ff[i], rings[k], (int)cmax, mtime, 1, &wr, &refused);
                double b = search_rate(ff[i], rings[k], (int)cmax, mtime, (int)threads, 1, &best, gpu, msg,
                                       sizeof msg);
                if (b < 0)
                    return cli_error(b < -2.5 ? CLI_INTERNAL : CLI_USAGE, CMD, "%s", msg);
                if (rings[k] == SCHEME_RING_Z && !gpu)
                    snprintf(rf, sizeof rf, "%.1f%%", 100 * refused);
                char ab[32] = "-", wb[16] = "-";
                if (!gpu) {
                    snprintf(ab, sizeof ab, "%.3g", a);
                    snprintf(wb, sizeof wb, "%d", wr);
                }
                printf("%-8s %-4s %14s %8s %9s %16.3g %8d\n", scheme_format_str(ff[i], fb),
                       scheme_ring_key(rings[k]), ab, wb, rf, b, best);
                fflush(stdout);
            }
    }
    if (ranks) {
        printf("\ntime to rank from the standard algorithm (seconds; median over %ld seeds, cap %.0f s)\n",
               seeds, cap);
        printf("%-8s %-4s %5s %10s %10s %10s   %s\n", "format", "ring", "rank", "median", "min", "max", "each seed");
        for (int i = 0; i < ntargets * nrings; i++) {
            const int ring = rings[i % nrings];
            double tm[1000];
            int reached = 0;
            char each[4096] = "";
            size_t len = 0;
            for (long s = 0; s < seeds; s++) {
                search_params p;
                search_params_default(&p);
                p.fmt = targets[i / nrings].f;
                p.target_rank = targets[i / nrings].rank;
                p.time_limit = cap;
                p.threads = (int)threads;
                p.seed = (uint64_t)s + 1;
                p.progress_every = 0;
                p.ring = ring;
                p.coef_max = (int)cmax;
                search_result r;
                search_status st = run_search(&p, gpu, &r);
                if (st == SEARCH_FAILED || st == SEARCH_BAD_PARAMS) {
                    int rc = cli_error(st == SEARCH_BAD_PARAMS ? CLI_USAGE : CLI_INTERNAL, CMD, "%s", r.msg);
                    search_result_free(&r);
                    return rc;
                }
                bool ok = st == SEARCH_REACHED;
                reached += ok;
                tm[s] = ok ? r.seconds : cap * 1e6; /* not reached sorts last */
                if (len < sizeof each - 64)
                    len += (size_t)snprintf(each + len, sizeof each - len, "%s%.2f%s",
                                            s ? " " : "", ok ? r.seconds : cap,
                                            ok ? "" : "(best " /* filled below */);
                if (!ok && len < sizeof each - 16)
                    len += (size_t)snprintf(each + len, sizeof each - len, "%d)", r.best_rank);
                search_result_free(&r);
            }
            qsort(tm, (size_t)seeds, sizeof *tm, cmp_double);
            char med[32], mn[32], mx[32], fb[32];
#define FMT_T(buf, v) snprintf(buf, sizeof buf, (v) >= cap * 1e5 ? ">%.0f" : "%.2f", (v) >= cap * 1e5 ? cap : (v))
            FMT_T(med, tm[seeds / 2]);
            FMT_T(mn, tm[0]);
            FMT_T(mx, tm[seeds - 1]);
#undef FMT_T
            printf("%-8s %-4s %5d %10s %10s %10s   %s  (%d/%ld reached)\n", scheme_format_str(targets[i / nrings].f, fb),
                   scheme_ring_key(ring), targets[i / nrings].rank, med, mn, mx, each, reached, seeds);
            fflush(stdout);
        }
    }
    return CLI_OK;
}
