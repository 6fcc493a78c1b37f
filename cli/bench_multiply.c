/* flipgraph bench multiply: effective bit operations per second of plans (the
 * cubic method, Strassen levels, <4,4,4> rank-47 levels) against M4RI's mzd_mul
 * in the same run, on the same random matrices.  Every product is checked
 * against the cubic plan's (and M4RI's against it too). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../export/export.h"
#include "../runtime/runtime.h"
#include "../verify/verify.h"
#include "cli.h"

#ifdef FLIPGRAPH_HAVE_M4RI
#include <m4ri/m4ri.h>
#endif

static const char *usage_text =
    "usage: flipgraph bench multiply [--sizes N[,N...]] [--threads T] [--reps K]\n"
    "                                [--scheme444 FILE] [--strassen-levels L,...]\n"
    "                                [--levels444 L,...] [--no-m4ri]\n"
    "       flipgraph bench multiply --type f64|f32 ...   (float products: --type f64 --help)\n"
    "       flipgraph bench multiply --generate N|RxKxC ...  (operands from a seed, beyond the disk:\n"
    "                                --generate 1 --help)\n"
    "\n"
    "Effective bit operations per second, (2n^3 - n^2) / time, of n x n GF(2) products\n"
    "with the cubic plan, Strassen levels and <4,4,4> rank-47 levels (CPU executor),\n"
    "side by side with M4RI's mzd_mul (single-threaded, as Debian builds it) on the\n"
    "same matrices.  Each time is the best of K runs (default 2).\n"
    "\n"
    "  --sizes          default 4096,8192,16384\n"
    "  --threads        CPU threads of the executor (default: all processors)\n"
    "  --scheme444      the <4,4,4> scheme (default $FLIPGRAPH_CORPUS/kauers-moosbauer/444-47-mod2.exp)\n"
    "  --strassen-levels  default 1,2,3\n"
    "  --levels444      default 1,2\n";

static bool parse_list(const char *s, long *v, int *n, int max, long lo, long hi)
{
    char *copy = strdup(s);
    *n = 0;
    bool ok = copy != NULL;
    for (char *t = copy ? strtok(copy, ",") : NULL; t && ok; t = strtok(NULL, ",")) {
        if (*n == max || !cli_parse_long(t, lo, hi, &v[*n]))
            ok = false;
        else
            (*n)++;
    }
    free(copy);
    return ok && *n > 0;
}

typedef struct {
    double best, cpu, predicted; /* best wall time, the CPU time of that run */
} bench_out;

/* CPU seconds of the whole process (all threads): next to the wall time it
 * shows how much of the machine a run had on a shared, loaded box. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_row(uint64_t n, const char *method, double secs, double cpu, double m4ri_secs,
                      double predicted, const char *check)
{
    double eff = 2.0 * (double)n * n * n - (double)n * n;
    char ratio[32] = "-";
    if (m4ri_secs > 0)
        snprintf(ratio, sizeof ratio, "%.2f", m4ri_secs / secs);
    printf("%6" PRIu64 "  %-24s %9.4f  %8.4f  %10.3e  %7s  %10.3e  %s\n", n, method, secs, cpu,
           eff / secs, ratio, predicted, check);
    fflush(stdout);
}

/* Runs a plan K times on A, B; the product goes to C.  false after a message. */
static bool bench_plan(const scheme *s, int levels, const char *name, const rt_matrix *A,
                       const rt_matrix *B, rt_matrix *C, int threads, int reps, bench_out *o)
{
    const scheme *chain[EXPORT_PLAN_MAX_LEVELS];
    const char *names[EXPORT_PLAN_MAX_LEVELS];
    for (int l = 0; l < levels; l++) {
        chain[l] = s;
        names[l] = name;
    }
    char err[512];
    export_plan p;
    if (!export_plan_init(&p, chain, names, levels, false, err, sizeof err)) {
        fprintf(stderr, "flipgraph bench multiply: %s\n", err);
        return false;
    }
    if (!export_plan_size(&p, A->rows, A->cols, B->cols, err, sizeof err)) {
        fprintf(stderr, "flipgraph bench multiply: %s\n", err);
        export_plan_free(&p);
        return false;
    }
    o->best = 0;
    o->cpu = 0;
    o->predicted = p.ops_total;
    for (int r = 0; r < reps; r++) {
        rt_stats st;
        double c0 = cpu_now();
        rt_status rs = rt_execute(&p, A, B, C, threads, 0.8 * rt_physical_memory(), &st, err, sizeof err);
        double cpu = cpu_now() - c0;
        if (rs != RT_OK) {
            fprintf(stderr, "flipgraph bench multiply: %s: %s\n", name, err);
            export_plan_free(&p);
            return false;
        }
        if (r == 0 || st.total < o->best) {
            o->best = st.total;
            o->cpu = cpu;
        }
    }
    export_plan_free(&p);
    return true;
}

int bench_multiply_cmd(int argc, char **argv)
{
    static const struct option opts[] = {
        {"sizes", required_argument, 0, 'n'}, {"threads", required_argument, 0, 't'},
        {"reps", required_argument, 0, 'r'}, {"scheme444", required_argument, 0, 's'},
        {"strassen-levels", required_argument, 0, 'S'}, {"levels444", required_argument, 0, 'F'},
        {"no-m4ri", no_argument, 0, 'M'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    long sizes[16] = {4096, 8192, 16384}, slev[8] = {1, 2, 3}, flev[8] = {1, 2};
    int nsizes = 3, nslev = 3, nflev = 2;
    long threads = 0, reps = 2;
    bool use_m4ri = true;
    const char *s444_path = NULL;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--type") || !strncmp(argv[i], "--type=", 7))
            return bench_multiply_float_cmd(argc, argv);
        else if (!strcmp(argv[i], "--generate") || !strncmp(argv[i], "--generate=", 11))
            return bench_multiply_generate_cmd(argc, argv);
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (!parse_list(optarg, sizes, &nsizes, 16, 1, 1L << 17))
                return cli_error(CLI_USAGE, "bench multiply", "--sizes: expected N[,N...], 1 .. 131072");
            break;
        case 't':
            if (!cli_parse_long(optarg, 1, 1024, &threads))
                return cli_error(CLI_USAGE, "bench multiply", "--threads: expected 1 .. 1024");
            break;
        case 'r':
            if (!cli_parse_long(optarg, 1, 100, &reps))
                return cli_error(CLI_USAGE, "bench multiply", "--reps: expected 1 .. 100");
            break;
        case 's': s444_path = optarg; break;
        case 'S':
            if (!parse_list(optarg, slev, &nslev, 8, 0, 8))
                return cli_error(CLI_USAGE, "bench multiply", "--strassen-levels: expected L[,L...], 0 .. 8");
            break;
        case 'F':
            if (!parse_list(optarg, flev, &nflev, 8, 0, 6))
                return cli_error(CLI_USAGE, "bench multiply", "--levels444: expected L[,L...], 0 .. 6");
            break;
        case 'M': use_m4ri = false; break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, "bench multiply", "unexpected argument '%s'", argv[optind]);
#ifndef FLIPGRAPH_HAVE_M4RI
    use_m4ri = false;
    printf("M4RI: not linked into this build (Debian libm4ri-dev at configure time adds it)\n");
#endif
    char err[512], pathbuf[1024];
    if (!s444_path) {
        char corpus[900];
        cli_find_corpus("bench multiply", NULL, corpus, sizeof corpus); /* says where it looked */
        snprintf(pathbuf, sizeof pathbuf, "%s/kauers-moosbauer/444-47-mod2.exp", corpus);
        s444_path = pathbuf;
    }
    scheme *strassen = rt_scheme_builtin("strassen", err, sizeof err);
    scheme *s444 = cli_read_scheme("bench multiply", s444_path, NULL);
    verify_result vr;
    if (s444 && (s444->fmt.n != 4 || s444->fmt.m != 4 || s444->fmt.p != 4 || !verify_f2(s444, &vr))) {
        fprintf(stderr, "flipgraph bench multiply: %s is not a valid <4,4,4> scheme over GF(2); "
                        "skipping its plans\n", s444_path);
        scheme_free(s444);
        s444 = NULL;
    } else if (!s444) {
        fprintf(stderr, "flipgraph bench multiply: no <4,4,4> scheme (--scheme444 FILE); skipping its plans\n");
    }
    if (!strassen || !verify_f2(strassen, &vr)) {
        scheme_free(s444);
        scheme_free(strassen);
        return cli_error(CLI_INTERNAL, "bench multiply", "the built-in Strassen scheme did not verify");
    }
    int nthreads = threads > 0 ? (int)threads : rt_default_threads();
    printf("flipgraph bench multiply: %d threads for the plans, M4RI %s, best of %ld\n", nthreads,
           use_m4ri ? "single-threaded" : "not run", reps);
    printf("%6s  %-24s %9s  %8s  %10s  %7s  %10s  %s\n", "n", "method", "wall s", "cpu s",
           "eff. bop/s", "vs M4RI", "pred. bops", "check");
    int rc = CLI_OK;
    for (int si = 0; si < nsizes && rc == CLI_OK; si++) {
        uint64_t n = (uint64_t)sizes[si];
        scheme_rng rng;
        scheme_rng_seed(&rng, 0x5eed0000ull + n);
        rt_matrix *A = rt_matrix_new(n, n), *B = rt_matrix_new(n, n), *C0 = rt_matrix_new(n, n),
                  *C = rt_matrix_new(n, n);
        if (!A || !B || !C0 || !C) {
            rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(C0), rt_matrix_free(C);
            rc = cli_error(CLI_INTERNAL, "bench multiply", "out of memory at n = %" PRIu64, n);
            break;
        }
        rt_matrix_random(A, &rng, 0.5);
        rt_matrix_random(B, &rng, 0.5);
        double eff_n = 2.0 * (double)n * n * n - (double)n * n;
        double m4ri_secs = 0, m4ri_cpu = 0;
        const char *m4ri_check = "-";
#ifdef FLIPGRAPH_HAVE_M4RI
        if (use_m4ri) {
            mzd_t *MA = mzd_init((rci_t)n, (rci_t)n), *MB = mzd_init((rci_t)n, (rci_t)n),
                  *MC = mzd_init((rci_t)n, (rci_t)n);
            for (uint64_t i = 0; i < n; i++) {
                memcpy(mzd_row(MA, (rci_t)i), &A->w[i * A->stride], A->stride * 8);
                memcpy(mzd_row(MB, (rci_t)i), &B->w[i * B->stride], B->stride * 8);
            }
            for (long r = 0; r < reps; r++) {
                double t = cli_now(), c0 = cpu_now();
                mzd_mul(MC, MA, MB, 0);
                t = cli_now() - t;
                if (r == 0 || t < m4ri_secs) {
                    m4ri_secs = t;
                    m4ri_cpu = cpu_now() - c0;
                }
            }
            for (uint64_t i = 0; i < n; i++)
                memcpy(&C->w[i * C->stride], mzd_row(MC, (rci_t)i), C->stride * 8);
            mzd_free(MA), mzd_free(MB), mzd_free(MC);
        }
#endif
        bench_out o;
        /* The cubic plan first: its product is the reference for the others. */
        if (!bench_plan(NULL, 0, "cubic", A, B, C0, nthreads, (int)reps, &o)) {
            rc = CLI_INTERNAL;
        } else {
            if (use_m4ri) {
                rt_diff d;
                rt_matrix_compare(C, C0, &d);
                m4ri_check = d.equal ? "= cubic" : "DIFFERS";
                if (!d.equal)
                    rc = CLI_INTERNAL;
                print_row(n, "M4RI mzd_mul", m4ri_secs, m4ri_cpu, m4ri_secs, eff_n, m4ri_check);
            }
            print_row(n, "cubic", o.best, o.cpu, m4ri_secs, o.predicted, "reference");
        }
        for (int family = 0; family < 2 && rc == CLI_OK; family++) {
            const scheme *s = family == 0 ? strassen : s444;
            if (!s)
                continue;
            int nl = family == 0 ? nslev : nflev;
            const long *lv = family == 0 ? slev : flev;
            for (int li = 0; li < nl && rc == CLI_OK; li++) {
                int L = (int)lv[li];
                if (L == 0)
                    continue;
                char method[64];
                snprintf(method, sizeof method, "%s x %d", family == 0 ? "strassen <2,2,2>:7" : "<4,4,4>:47", L);
                if (!bench_plan(s, L, method, A, B, C, nthreads, (int)reps, &o)) {
                    printf("%6" PRIu64 "  %-24s (skipped: see above)\n", n, method);
                    continue;
                }
                rt_diff d;
                rt_matrix_compare(C, C0, &d);
                if (!d.equal)
                    rc = CLI_INTERNAL;
                print_row(n, method, o.best, o.cpu, m4ri_secs, o.predicted,
                          d.equal ? "= cubic" : "DIFFERS");
            }
        }
        rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(C0), rt_matrix_free(C);
        fflush(stdout);
    }
    printf("(wall s: best of the runs; cpu s: CPU time of that run, all threads; eff. bop/s:\n"
           " (2n^3-n^2)/wall; vs M4RI: M4RI's wall time / this one, above 1 is faster;\n"
           " pred. bops: the plan's predicted bit operations)\n");
    scheme_free(strassen);
    scheme_free(s444);
    if (rc != CLI_OK)
        fprintf(stderr, "flipgraph bench multiply: a product differed or failed\n");
    return rc;
}
