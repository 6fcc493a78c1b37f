/* flipgraph bench multiply --generate: a product of operands made in memory from
 * a seed (no files, so sizes beyond the disk), through the host layer and its
 * executors, checked without a reference product: Freivalds's check over GF(2)
 * on 64 random vectors, and a sample of entries recomputed from a row of A and a
 * column of B (docs/host-layer.md). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../export/export.h"
#include "../runtime/runtime.h"
#include "cli.h"

static const char *usage_text =
    "usage: flipgraph bench multiply --generate N|RxKxC [--scheme S[,S...]] [--levels L] [--boolean]\n"
    "                                [--devices LIST | --backend cpu|gpu] [--threads T]\n"
    "                                [--max-memory MIB] [--max-device-memory MIB] [--seed S]\n"
    "                                [--samples K] [--pipeline D] [--db PATH] [-q]\n"
    "\n"
    "Multiplies an R x K by a K x C bit matrix (N: N x N by N x N) whose bits come from the\n"
    "seed, made in memory on all threads: no files, so sizes beyond the disk (a 2^19 x 2^19\n"
    "operand is 32 GiB).  The product runs as `flipgraph multiply` runs it (the host layer\n"
    "and its executors under the memory limits; docs/host-layer.md) and is checked without a\n"
    "reference: GF(2) by Freivalds's check, C X = A (B X) for 64 random vectors X at once (a\n"
    "wrong product passes with probability at most 2^-64), and both rings on K sampled\n"
    "entries recomputed from a row of A and a column of B (default 64).  Exit 0 when the\n"
    "checks pass, 3 when one fails (or on a device failure), 2 on bad usage or when the\n"
    "product does not fit the limits.\n"
    "\n"
    "  --scheme, --levels, --boolean, --devices, --backend, --threads, --max-memory,\n"
    "  --max-device-memory, --db: as flipgraph multiply --help (--max-memory: buffers\n"
    "  beyond the three operands, default 80% of RAM less the operands)\n"
    "  --seed S     the operands' seed (default: a random one, printed)\n"
    "  --pipeline D subproblems in flight per executor, 1 .. 4 (default 2; docs/host-layer.md)\n"
    "  -q           no progress bar\n";

/* The profile of the product (docs/host-layer.md, "The profile"): where the
 * wall time went, host phases in seconds of wall or thread time, GPU phases from
 * CUDA events. */
static void print_profile(const rt_host_stats *hs, const rt_host_split *sp)
{
    printf("profile:\n");
    printf("  %-22s %9.3f s\n", "zero C (all threads)", hs->zero_c);
    if (sp->in_core) {
        const rt_stats *r = &hs->in_core;
        printf("  %-22s %9.3f s (the executor's call)\n", "in-core product", hs->exec);
        if (hs->lock > 0)
            printf("  %-22s %9.3f s (A, B, C page-locked and unlocked: %s)\n", "operands locked", hs->lock,
                   hs->pinned ? "yes" : "failed");
        if (hs->gpus)
            printf("  %-22s %9.3f s  upload %.3f, pack/unpack %.3f, expand %.3f, inner %.3f, compress %.3f, "
                   "download %.3f (CUDA events); host side of the call %.3f\n",
                   "GPU phases", r->permute + r->expand + r->inner + r->compress, r->upload,
                   r->permute - r->upload - r->download, r->expand, r->inner, r->compress, r->download,
                   r->total - (r->permute + r->expand + r->inner + r->compress));
        else
            printf("  %-22s %9.3f s  permute %.3f, expand %.3f, inner %.3f, compress %.3f\n", "CPU phases",
                   r->total, r->permute, r->expand, r->inner, r->compress);
        return;
    }
    printf("  %-22s %9.3f s (allocated, touched on all threads)\n", "host buffers", hs->buffers);
    if (hs->gpus)
        printf("  %-22s %9.3f s (%s)\n", "buffers page-locked", hs->lock,
               hs->pinned ? "cudaHostRegister, side by side" : "no: pageable (FLIPGRAPH_PINNED, or too few subproblems)");
    printf("  %-22s %9.3f thread-s (executors idle waiting for them: %.3f s; they waited for a free input "
           "slot: %.3f s)\n", "operand sums", hs->sums, hs->wait_sums, hs->wait_free);
    printf("  %-22s %9.3f thread-s\n", "accumulation", hs->accumulate);
    printf("  %-22s %9.3f thread-s (executor threads in submit/finish)\n", "executor calls", hs->exec);
    if (hs->gpus) {
        double tot = hs->total > 0 ? hs->total * hs->gpus : 1;
        printf("  %-22s %9.3f s (sessions made and freed; the slowest)\n", "GPU set-up", hs->setup);
        printf("  %-22s %9.3f s  %.1f GiB, %.1f GB/s\n", "GPU h2d copies", hs->dev_h2d, hs->h2d_bytes / 1073741824.0,
               hs->dev_h2d > 0 ? hs->h2d_bytes / hs->dev_h2d / 1e9 : 0.0);
        printf("  %-22s %9.3f s  pack %.3f, expand %.3f, inner %.3f, compress %.3f, unpack %.3f\n",
               "GPU products", hs->dev_compute, hs->dev_pack, hs->dev_expand, hs->dev_inner, hs->dev_compress,
               hs->dev_unpack);
        printf("  %-22s %9.3f s  %.1f GiB, %.1f GB/s\n", "GPU d2h copies", hs->dev_d2h, hs->d2h_bytes / 1073741824.0,
               hs->dev_d2h > 0 ? hs->d2h_bytes / hs->dev_d2h / 1e9 : 0.0);
        printf("  %-22s %9.3f s between products; products %.0f%% of the wall time x %d GPU executor%s\n",
               "GPU idle", hs->dev_idle, 100.0 * hs->dev_compute / tot, hs->gpus, hs->gpus == 1 ? "" : "s");
        printf("  %-22s %9.1f MiB per executor\n", "GPU memory", hs->device_bytes / 1048576.0);
    }
}

int bench_multiply_generate_cmd(int argc, char **argv)
{
    static const struct option opts[] = {
        {"generate", required_argument, 0, 'g'}, {"scheme", required_argument, 0, 's'},
        {"levels", required_argument, 0, 'L'}, {"boolean", no_argument, 0, 'B'},
        {"devices", required_argument, 0, 'V'}, {"backend", required_argument, 0, 'k'},
        {"threads", required_argument, 0, 't'}, {"max-memory", required_argument, 0, 'm'},
        {"max-device-memory", required_argument, 0, 'G'}, {"seed", required_argument, 0, 'S'},
        {"samples", required_argument, 0, 'n'}, {"db", required_argument, 0, 'd'},
        {"pipeline", required_argument, 0, 'P'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *scheme_list = NULL, *devices = NULL, *db_opt = NULL;
    long levels = -1, threads = 0, samples = 64, mib, pipeline = 0;
    bool boolean = false, quiet = false, gpu = false, have_backend = false, have_seed = false;
    uint64_t dims[3] = {0, 0, 0}, seed = 0;
    double max_bytes = -1, max_dev = 0;
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'g':
            if (!cli_parse_dims3(optarg, "xX", true, dims))
                return cli_error(CLI_USAGE, "bench multiply", "--generate: expected N or RxKxC (1 .. 2^32), got '%s'",
                                 optarg);
            break;
        case 's': scheme_list = optarg; break;
        case 'L':
            if (!cli_parse_long(optarg, 0, EXPORT_PLAN_MAX_LEVELS, &levels))
                return cli_error(CLI_USAGE, "bench multiply", "--levels: expected 0 .. %d, got '%s'",
                                 EXPORT_PLAN_MAX_LEVELS, optarg);
            break;
        case 'B': boolean = true; break;
        case 'V': devices = optarg; break;
        case 'k':
            have_backend = true;
            if (!strcmp(optarg, "gpu"))
                gpu = true;
            else if (strcmp(optarg, "cpu"))
                return cli_error(CLI_USAGE, "bench multiply", "--backend: expected cpu or gpu, got '%s'", optarg);
            break;
        case 't':
            if (!cli_parse_long(optarg, 1, 1024, &threads))
                return cli_error(CLI_USAGE, "bench multiply", "--threads: expected 1 .. 1024, got '%s'", optarg);
            break;
        case 'm':
            if (!cli_parse_long(optarg, 1, 1L << 40, &mib))
                return cli_error(CLI_USAGE, "bench multiply", "--max-memory: expected MiB, got '%s'", optarg);
            max_bytes = (double)mib * 1048576.0;
            break;
        case 'G':
            if (!cli_parse_long(optarg, 1, 1L << 30, &mib))
                return cli_error(CLI_USAGE, "bench multiply", "--max-device-memory: expected MiB, got '%s'", optarg);
            max_dev = (double)mib * 1048576.0;
            break;
        case 'S': {
            char *end;
            if (!*optarg || *optarg == '-' || (seed = strtoull(optarg, &end, 0), *end))
                return cli_error(CLI_USAGE, "bench multiply", "--seed: expected a non-negative integer, got '%s'",
                                 optarg);
            have_seed = true;
            break;
        }
        case 'n':
            if (!cli_parse_long(optarg, 0, 1000000, &samples))
                return cli_error(CLI_USAGE, "bench multiply", "--samples: expected 0 .. 1000000, got '%s'", optarg);
            break;
        case 'P':
            if (!cli_parse_long(optarg, 1, RT_HOST_MAX_DEPTH, &pipeline))
                return cli_error(CLI_USAGE, "bench multiply", "--pipeline: expected 1 .. %d, got '%s'",
                                 RT_HOST_MAX_DEPTH, optarg);
            break;
        case 'd': db_opt = optarg; break;
        case 'q': quiet = true; break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, "bench multiply", "unexpected argument '%s'", argv[optind]);
    if (devices && have_backend)
        return cli_error(CLI_USAGE, "bench multiply", "give --devices or --backend, not both");
    if (!have_seed)
        seed = cli_random_seed();

    rt_executor ex[64];
    int nex;
    if (!cli_executors("bench multiply", devices, gpu, threads, ex, &nex, 64))
        return CLI_USAGE;
    const int all = threads > 0 ? (int)threads : rt_default_threads();

    export_plan plan;
    memset(&plan, 0, sizeof plan);
    if (!cli_bit_plan("bench multiply", scheme_list, levels, boolean, db_opt, &plan))
        return CLI_USAGE;
    char err[1024];
    int rc = CLI_USAGE;
    rt_matrix *A = NULL, *B = NULL, *C = NULL;
    if (!export_plan_size(&plan, dims[0], dims[1], dims[2], err, sizeof err)) {
        cli_error(CLI_USAGE, "bench multiply", "%s", err);
        goto out;
    }
    double operands = ((double)dims[0] * (double)((dims[1] + 63) / 64) +
                       (double)dims[1] * (double)((dims[2] + 63) / 64) +
                       (double)dims[0] * (double)((dims[2] + 63) / 64)) * 8.0;
    if (max_bytes < 0) {
        max_bytes = 0.8 * rt_physical_memory() - operands;
        if (max_bytes < 64.0 * 1048576.0)
            max_bytes = 64.0 * 1048576.0;
    }
    cli_progress_state prog;
    cli_progress_init(&prog);
    rt_host_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.exec = ex, cfg.n_exec = nex, cfg.threads = all;
    cfg.max_host_bytes = max_bytes, cfg.max_device_bytes = max_dev;
    cfg.pipeline = (int)pipeline;
    if (!quiet)
        cfg.progress = cli_progress_cb, cfg.progress_ctx = &prog;
    rt_host_split split;
    rt_status st = rt_host_choose(&plan, &cfg, &split, err, sizeof err);
    if (st != RT_OK) {
        rc = cli_error(st == RT_ENOMEM || st == RT_EDEVICE ? CLI_INTERNAL : CLI_USAGE, "bench multiply", "%s", err);
        goto out;
    }
    char desc[256], chain[512] = "cubic";
    size_t used = 0;
    for (int l = 0; l < plan.levels && used < sizeof chain; l++)
        used += (size_t)snprintf(chain + used, sizeof chain - used, "%s%s", l ? "," : "", plan.level[l].name);
    printf("flipgraph bench multiply --generate: %" PRIu64 " x %" PRIu64 " times %" PRIu64 " x %" PRIu64
           ", %s, chain %s (%d level%s), seed %" PRIu64 "\n",
           dims[0], dims[1], dims[1], dims[2], boolean ? "Boolean" : "GF(2)", chain, plan.levels,
           plan.levels == 1 ? "" : "s", seed);
    printf("executors:");
    for (int i = 0; i < nex; i++) {
        if (ex[i].device < 0)
            printf("%s cpu (%d threads)", i ? "," : "", ex[i].threads);
        else
            printf("%s GPU %d", i ? "," : "", ex[i].device);
    }
    printf("; operands %.2f GiB; split: %s\n", operands / 1073741824.0, rt_host_describe(&split, desc, sizeof desc));
    fflush(stdout);

    double t = cli_now();
    A = rt_matrix_new_large(dims[0], dims[1], false);
    B = rt_matrix_new_large(dims[1], dims[2], false);
    C = rt_matrix_new_large(dims[0], dims[2], false);
    if (!A || !B || !C) {
        rc = cli_error(CLI_INTERNAL, "bench multiply", "out of memory for the operands (%.2f GiB)",
                       operands / 1073741824.0);
        goto out;
    }
    rt_matrix_generate(A, seed, all);
    rt_matrix_generate(B, seed ^ 0x9e3779b97f4a7c15ull, all);
    if (boolean) {
        /* Dense random operands make an all-ones Boolean product, which checks
         * nothing: density 2^-k with 4^k <= K < 4^(k+1), so that an entry of the
         * product is a sum of about one AND in expectation (about 1 - 1/e of
         * them are 1).  Each extra AND with fresh bits halves the density. */
        int k = 0;
        while (k < 31 && (1ull << (2 * (k + 1))) <= dims[1])
            k++;
        for (int side = 0; side < 2 && k > 1; side++) {
            rt_matrix *M = side ? B : A, *tmp = rt_matrix_new_large(M->rows, M->cols, false);
            if (!tmp) {
                rc = cli_error(CLI_INTERNAL, "bench multiply", "out of memory");
                goto out;
            }
            for (int a = 1; a < k; a++) {
                rt_matrix_generate(tmp, seed + (uint64_t)(side * 64 + a), all);
                for (uint64_t w = 0; w < M->rows * M->stride; w++)
                    M->w[w] &= tmp->w[w];
            }
            rt_matrix_free(tmp);
        }
    }
    double t_gen = cli_now() - t;
    rt_host_stats hs;
    st = rt_host_execute(&plan, &split, &cfg, A, B, C, &hs, err, sizeof err);
    if (st != RT_OK) {
        rc = cli_error(st == RT_ENOMEM || st == RT_EDEVICE ? CLI_INTERNAL : CLI_USAGE, "bench multiply", "%s", err);
        goto out;
    }
    printf("generate   %9.3f s\n", t_gen);
    printf("product    %9.3f s  %.4e effective bit operations/s ((2RKC - RC)/time, host work and transfers "
           "included); thread seconds: sums %.3f, products %.3f, accumulation %.3f\n",
           hs.total, hs.total > 0 ? plan.ops_effective / hs.total : 0.0, hs.sums, hs.exec, hs.accumulate);
    print_profile(&hs, &split);
    bool ok = true;
    if (!boolean) {
        t = cli_now();
        bool pass = rt_freivalds_gf2(A, B, C, seed ^ 0xf4e1u, all);
        printf("Freivalds: %s (64 random vectors, %.3f s)\n", pass ? "pass" : "FAIL", cli_now() - t);
        ok = ok && pass;
    }
    t = cli_now();
    uint64_t bad = rt_sample_check(A, B, C, boolean, (int)samples, seed ^ 0x5a11u);
    printf("samples: %" PRIu64 " of %ld entries differ (%.3f s)\n", bad, samples, cli_now() - t);
    ok = ok && bad == 0;
    rc = ok ? CLI_OK : cli_error(CLI_INTERNAL, "bench multiply", "the product failed its check (seed %" PRIu64 ")", seed);
out:
    rt_matrix_free(A), rt_matrix_free(B), rt_matrix_free(C);
    export_plan_free(&plan);
    return rc;
}
