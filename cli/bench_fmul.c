/* flipgraph bench multiply --type f64|f32: the BLAS's GEMM against chains of
 * schemes over it (runtime/fmul.c), on the same random n x n matrices in one
 * run, with the error of every product beside its time (docs/float.md). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../runtime/runtime.h"
#include "cli.h"

static const char *usage_text =
    "usage: flipgraph bench multiply --type f64|f32 [--sizes N[,N...]] [--threads T] [--reps K]\n"
    "                                [--chain S[,S...][@plain|@fused][@rows|@blas][@sN]]...\n"
    "                                [--samples K] [--sums plain|fused] [--parallel rows|blas]\n"
    "                                [--streams N] [--backend cpu|gpu [--tf32]]\n"
    "\n"
    "Times n x n products of uniform random matrices in [-1, 1): the BLAS's GEMM alone\n"
    "(the baseline), then each chain of schemes over it (flipgraph multiply --type), side\n"
    "by side on the same matrices.  Each time is the best of K runs (default 2).  Beside\n"
    "each time: effective GFLOP/s (2n^3 / time), the speed-up over the GEMM, and the\n"
    "largest error on --samples entries (default 64) against a compensated long double\n"
    "reference, with the chain's first-order bound (docs/float.md).  The last line per\n"
    "size names the fastest chain.  --backend gpu: on GPU 0, cuBLAS's GEMM against the chains\n"
    "over it (cuda/rt_fmul.cu); the time is the device time of the product (CUDA events, best\n"
    "of K; transfers excluded, printed apart); SGEMM without TF32 unless --tf32 (then the\n"
    "bound uses TF32's unit roundoff 2^-11).\n"
    "\n"
    "  --sizes      default 1024,2048,4096\n"
    "  --threads    the BLAS's and the sums' threads (default: all processors)\n"
    "  --chain      one chain, levels outermost first: strassen, winograd, std:NxMxP or a\n"
    "               scheme file valid over Z; repeat for more (default: strassen with 1 and 2\n"
    "               levels, winograd with 2 and 3); a suffix @plain or @fused picks that chain's\n"
    "               sums, @rows or @blas\n"
    "               its threads, @sN its streams\n"
    "  --sums       plain: each operand sum and accumulation its own pass; fused: one pass\n"
    "               a side per level (default: fused on the GPU, plain on the CPU)\n"
    "  --parallel   CPU: rows: a panel of C's rows per thread, each with its own sums and a\n"
    "               one-thread BLAS; blas: the BLAS's threads, the sums on one (default: rows\n"
    "               where there are levels and 2048 rows a thread)\n"
    "  --streams    GPU: streams for the last level's GEMMs (default 1)\n";

typedef struct {
    char label[200];
    scheme *owned[EXPORT_PLAN_MAX_LEVELS];
    int nowned;
    rt_fplan plan;
} bench_chain;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void free_chain(bench_chain *c)
{
    for (int i = 0; i < c->nowned; i++)
        scheme_free(c->owned[i]);
    rt_fplan_free(&c->plan);
}

/* A chain's suffixes @plain, @fused, @sN (taken off the end of copy, which
 * is cut there): false after a message. */
static bool parse_suffixes(const char *spec, char *copy, rt_fsums *sums, int *streams, rt_fpar *par)
{
    char *at;
    while ((at = strrchr(copy, '@')) != NULL) {
        long v;
        if (!strcmp(at + 1, "plain"))
            *sums = RT_FSUMS_PLAIN;
        else if (!strcmp(at + 1, "fused"))
            *sums = RT_FSUMS_FUSED;
        else if (!strcmp(at + 1, "rows"))
            *par = RT_FPAR_ROWS;
        else if (!strcmp(at + 1, "blas"))
            *par = RT_FPAR_BLAS;
        else if (at[1] == 's' && cli_parse_long(at + 2, 1, 8, &v))
            *streams = (int)v;
        else {
            cli_error(CLI_USAGE, "bench multiply",
                      "--chain %s: '%s': expected @plain, @fused, @rows, @blas or @s1 .. @s8", spec, at);
            return false;
        }
        *at = 0;
    }
    return true;
}

/* "strassen,strassen,FILE[@fused][@s4]": each level a built-in or a file.
 * false after a message. */
static bool parse_chain(const char *spec, bench_chain *c, rt_fsums sums, int streams, rt_fpar par)
{
    memset(c, 0, sizeof *c);
    char *copy = strdup(spec), *rest = copy;
    if (copy && !parse_suffixes(spec, copy, &sums, &streams, &par)) {
        free(copy);
        return false;
    }
    const scheme *chain[EXPORT_PLAN_MAX_LEVELS];
    const char *names[EXPORT_PLAN_MAX_LEVELS];
    bool ok = copy != NULL;
    while (ok && rest) {
        char *tok = strsep(&rest, ",");
        if (!*tok || c->nowned == EXPORT_PLAN_MAX_LEVELS) {
            cli_error(CLI_USAGE, "bench multiply", "--chain %s: empty level or more than %d levels", spec,
                      EXPORT_PLAN_MAX_LEVELS);
            ok = false;
            break;
        }
        struct stat st;
        scheme *s;
        char err[512];
        if (stat(tok, &st) == 0) {
            s = cli_read_scheme("bench multiply", tok, NULL);
        } else {
            s = rt_scheme_builtin(tok, err, sizeof err);
            if (!s)
                cli_error(CLI_USAGE, "bench multiply", "--chain %s: %s: not a file; %s", spec, tok, err);
        }
        if (!s) {
            ok = false;
            break;
        }
        /* The label names files by their last component, to keep the table's columns. */
        const char *base = strrchr(tok, '/') ? strrchr(tok, '/') + 1 : tok;
        size_t used = strlen(c->label);
        snprintf(c->label + used, sizeof c->label - used, "%s%s", c->nowned ? "," : "", base);
        names[c->nowned] = tok;
        chain[c->nowned] = s;
        c->owned[c->nowned++] = s;
    }
    char err[1024];
    if (ok && !rt_fplan_init(&c->plan, chain, names, c->nowned, NULL, err, sizeof err)) {
        cli_error(CLI_USAGE, "bench multiply", "--chain %s", err);
        ok = false;
    }
    if (ok) {
        c->plan.sums = sums;
        c->plan.streams = streams;
        c->plan.par = par;
        /* The label shows what is not the default. */
        size_t used = strlen(c->label);
        if (sums != RT_FSUMS_AUTO)
            used += (size_t)snprintf(c->label + used, sizeof c->label - used, "@%s",
                                     sums == RT_FSUMS_PLAIN ? "plain" : "fused");
        if (par != RT_FPAR_AUTO && used < sizeof c->label)
            used += (size_t)snprintf(c->label + used, sizeof c->label - used, "@%s",
                                     par == RT_FPAR_ROWS ? "rows" : "blas");
        if (streams > 1 && used < sizeof c->label)
            snprintf(c->label + used, sizeof c->label - used, "@s%d", streams);
    }
    free(copy);
    if (!ok)
        free_chain(c);
    return ok;
}

static void print_row(uint64_t n, const char *method, double secs, double cpu, double base, double base_cpu,
                      bool gpu, double err, double bound)
{
    char ratio[32] = "-", cratio[32] = "-", b[32] = "-";
    if (base > 0)
        snprintf(ratio, sizeof ratio, "%.3f", base / secs);
    if (!gpu && base_cpu > 0 && cpu > 0)
        snprintf(cratio, sizeof cratio, "%.3f", base_cpu / cpu);
    if (bound > 0)
        snprintf(b, sizeof b, "%.2e", bound);
    printf("%6" PRIu64 "  %-34s %9.4f  %8.3f  %8.2f  %7s  %7s  %9.2e  %9s\n", n, method, secs, cpu,
           2.0 * (double)n * n * n / secs / 1e9, ratio, cratio, err, b);
    fflush(stdout);
}

int bench_multiply_float_cmd(int argc, char **argv)
{
    static const struct option opts[] = {
        {"type", required_argument, 0, 'T'}, {"sizes", required_argument, 0, 'n'},
        {"threads", required_argument, 0, 't'}, {"reps", required_argument, 0, 'r'},
        {"chain", required_argument, 0, 'c'}, {"samples", required_argument, 0, 'S'},
        {"backend", required_argument, 0, 'b'}, {"tf32", no_argument, 0, 'F'},
        {"sums", required_argument, 0, 'U'}, {"streams", required_argument, 0, 'M'},
        {"parallel", required_argument, 0, 'P'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    rt_fsums sums = RT_FSUMS_AUTO;
    rt_fpar par = RT_FPAR_AUTO;
    long streams = 1;
    long sizes[16] = {1024, 2048, 4096};
    bool gpu = false, tf32 = false;
    int nsizes = 3;
    long threads = 0, reps = 2, samples = 64;
    rt_ftype type = RT_F64;
    const char *chain_specs[16];
    int nchains = 0;
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'T':
            if (!rt_ftype_parse(optarg, &type))
                return cli_error(CLI_USAGE, "bench multiply", "--type: expected f64 or f32, got '%s'", optarg);
            break;
        case 'n': {
            char *copy = strdup(optarg), *rest = copy;
            nsizes = 0;
            bool ok = copy != NULL;
            while (ok && rest) {
                char *tok = strsep(&rest, ",");
                if (nsizes == 16 || !cli_parse_long(tok, 1, 1L << 17, &sizes[nsizes]))
                    ok = false;
                else
                    nsizes++;
            }
            free(copy);
            if (!ok || nsizes == 0)
                return cli_error(CLI_USAGE, "bench multiply", "--sizes: expected N[,N...], 1 .. 131072");
            break;
        }
        case 't':
            if (!cli_parse_long(optarg, 1, 1024, &threads))
                return cli_error(CLI_USAGE, "bench multiply", "--threads: expected 1 .. 1024");
            break;
        case 'r':
            if (!cli_parse_long(optarg, 1, 100, &reps))
                return cli_error(CLI_USAGE, "bench multiply", "--reps: expected 1 .. 100");
            break;
        case 'S':
            if (!cli_parse_long(optarg, 1, 1 << 20, &samples))
                return cli_error(CLI_USAGE, "bench multiply", "--samples: expected 1 .. 2^20");
            break;
        case 'c':
            if (nchains == 16)
                return cli_error(CLI_USAGE, "bench multiply", "at most 16 --chain options");
            chain_specs[nchains++] = optarg;
            break;
        case 'b':
            if (!strcmp(optarg, "gpu"))
                gpu = true;
            else if (strcmp(optarg, "cpu"))
                return cli_error(CLI_USAGE, "bench multiply", "--backend: expected cpu or gpu, got '%s'", optarg);
            break;
        case 'F': tf32 = true; break;
        case 'U':
            if (!strcmp(optarg, "plain"))
                sums = RT_FSUMS_PLAIN;
            else if (!strcmp(optarg, "fused"))
                sums = RT_FSUMS_FUSED;
            else
                return cli_error(CLI_USAGE, "bench multiply", "--sums: expected plain or fused, got '%s'", optarg);
            break;
        case 'M':
            if (!cli_parse_long(optarg, 1, 8, &streams))
                return cli_error(CLI_USAGE, "bench multiply", "--streams: expected 1 .. 8, got '%s'", optarg);
            break;
        case 'P':
            if (!strcmp(optarg, "rows"))
                par = RT_FPAR_ROWS;
            else if (!strcmp(optarg, "blas"))
                par = RT_FPAR_BLAS;
            else
                return cli_error(CLI_USAGE, "bench multiply", "--parallel: expected rows or blas, got '%s'", optarg);
            break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, "bench multiply", "unexpected argument '%s'", argv[optind]);
    if (tf32 && (!gpu || type != RT_F32))
        return cli_error(CLI_USAGE, "bench multiply", "--tf32 is for --type f32 --backend gpu");
    if (nchains == 0) {
        chain_specs[0] = "strassen";
        chain_specs[1] = "strassen,strassen";
        chain_specs[2] = "winograd,winograd";
        chain_specs[3] = "winograd,winograd,winograd";
        nchains = 4;
    }
    bench_chain chains[16];
    for (int i = 0; i < nchains; i++)
        if (!parse_chain(chain_specs[i], &chains[i], sums, (int)streams, par)) {
            for (int k = 0; k < i; k++)
                free_chain(&chains[k]);
            return CLI_USAGE;
        }
    int nthreads = threads > 0 ? (int)threads : rt_default_threads();
    const char *gemm = type == RT_F64 ? "DGEMM" : "SGEMM";
    if (gpu)
        printf("flipgraph bench multiply --type %s --backend gpu: GPU 0, cuBLAS%s, best of %ld (device time)\n",
               rt_ftype_name(type), tf32 ? " with TF32" : (type == RT_F32 ? " without TF32" : ""), reps);
    else
        printf("flipgraph bench multiply --type %s: %d threads, best of %ld, BLAS: %s\n", rt_ftype_name(type),
               nthreads, reps, rt_blas_name());
    printf("%6s  %-34s %9s  %8s  %8s  %7s  %7s  %9s  %9s\n", "n", "method", "wall s", "cpu s", "GFLOP/s",
           "vs GEMM", "cpu vs", "error", "bound");
    int rc = CLI_OK;
    char err[1024];
    for (int si = 0; si < nsizes && rc == CLI_OK; si++) {
        uint64_t n = (uint64_t)sizes[si];
        rt_fmatrix *A = rt_fmatrix_new(n, n, type), *B = rt_fmatrix_new(n, n, type),
                   *C = rt_fmatrix_new(n, n, type);
        if (!A || !B || !C) {
            rt_fmatrix_free(A), rt_fmatrix_free(B), rt_fmatrix_free(C);
            rc = cli_error(CLI_INTERNAL, "bench multiply", "out of memory at n = %" PRIu64, n);
            break;
        }
        scheme_rng rng;
        scheme_rng_seed(&rng, 0xf10a7000ull + n);
        rt_fmatrix_random(A, &rng);
        rt_fmatrix_random(B, &rng);
        double amax = rt_fmatrix_max_abs(A), bmax = rt_fmatrix_max_abs(B);
        /* Interleaved repetitions (the GEMM, then each chain, K times over), the best
         * of each kept: on a shared machine a burst of load then hits all alike. */
        double secs[17], cpus[17];
        for (int ci = 0; ci <= nchains; ci++)
            secs[ci] = cpus[ci] = 0;
        for (long r = 0; r < (gpu ? 1 : reps) && rc == CLI_OK; r++)
            for (int ci = -1; ci < nchains && rc == CLI_OK; ci++) {
                rt_fplan none;
                memset(&none, 0, sizeof none);
                const rt_fplan *p = ci < 0 ? &none : &chains[ci].plan;
                rt_fstats st;
                double c0 = cpu_now(), t, cc;
                rt_status s = gpu ? rt_fmul_gpu(p, A, B, C, 0, tf32, (int)reps, &st, err, sizeof err)
                                  : rt_fmul(p, A, B, C, nthreads, &st, err, sizeof err);
                if (s != RT_OK) {
                    rc = cli_error(s == RT_EDEVICE || s == RT_ENOMEM ? CLI_INTERNAL : CLI_USAGE, "bench multiply",
                                   "%s", err);
                    break;
                }
                /* On the GPU: the device time (best of its reps) and the transfers. */
                t = gpu ? st.device : st.total;
                cc = gpu ? st.transfer : cpu_now() - c0;
                if (r == 0 || t < secs[ci + 1]) {
                    secs[ci + 1] = t;
                    cpus[ci + 1] = cc;
                }
                if (r + 1 < (gpu ? 1 : reps))
                    continue;
                /* The last repetition: its product is checked, the row printed. */
                scheme_rng srng;
                scheme_rng_seed(&srng, 0x5a3b1e00ull + n);
                double e = rt_fmul_sample_error(A, B, C, (int)samples, &srng);
                double bound = rt_fplan_error_bound(p, type, n, amax, bmax) * (tf32 ? 0x1p13 : 1.0);
                char method[240];
                if (ci < 0)
                    snprintf(method, sizeof method, "%s (%s)", gemm, gpu ? "cuBLAS" : "BLAS");
                else
                    snprintf(method, sizeof method, "%s", chains[ci].label);
                print_row(n, method, secs[ci + 1], cpus[ci + 1], secs[0], cpus[0], gpu, e, bound);
                if (!(e <= 2 * bound)) {
                    fprintf(stderr, "flipgraph bench multiply: %s at n = %" PRIu64 ": error %.3e above twice the bound\n",
                            method, n, e);
                    rc = CLI_INTERNAL;
                }
            }
        double base = secs[0], best = 0;
        int best_chain = -1;
        for (int ci = 0; ci < nchains && rc == CLI_OK; ci++)
            if (best_chain < 0 || secs[ci + 1] < best) {
                best = secs[ci + 1];
                best_chain = ci;
            }
        if (best_chain >= 0)
            printf("%6" PRIu64 "  best chain: %s, %.3fx %s\n", n, chains[best_chain].label, base / best, gemm);
        rt_fmatrix_free(A), rt_fmatrix_free(B), rt_fmatrix_free(C);
        rt_fmul_release(); /* the workspace kept for this size */
    }
    if (gpu)
        printf("(on the GPU the 'wall s' column is the device time of the product and 'cpu s' the\n"
               " host-device transfers of that call)\n");
    printf("(wall s: best of the runs, taken in turn; cpu s: CPU time of that run, all threads;\n"
           " GFLOP/s: 2n^3/wall; vs GEMM: the GEMM's wall time / this one, above 1 is faster;\n"
           " cpu vs: the same with CPU times, which on a shared machine shows the work without the\n"
           " waiting (cpu s well below threads x wall s means the run did not have its cores);\n"
           " error: max |C - AB| on the sampled entries against a compensated long double\n"
           " reference; bound: docs/float.md)\n");
    for (int i = 0; i < nchains; i++)
        free_chain(&chains[i]);
    return rc;
}
