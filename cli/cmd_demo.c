/* flipgraph demo: the embedded default job, end to end in a few seconds.
 *
 * It walks the flip graph of <3,3,3> from the standard algorithm (rank 27)
 * down to Laderman's rank 23, stores every verified improvement with its run,
 * reads the best back from the store, lifts it to the integers, and multiplies
 * two random bit matrices with it (one Yates level, Karppa, Kaski 2019), checked against
 * the naive product.  Each step is a piece a researcher uses on its own.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db.h"
#include "../export/export.h"
#include "../runtime/runtime.h"
#include "../search/search.h"
#include "../search/session.h"
#include "../verify/verify.h"
#include "cli.h"

/* Each improvement, after the session stored it. */
static void demo_improved(void *ctx, const search_found *f, const char *path, bool stored_new)
{
    (void)ctx, (void)path;
    printf("  rank %3d  after %7.3f s  %10.3g flips  verified, stored%s\n", f->rank, f->seconds,
           (double)f->flips, stored_new ? "" : " (already in the store)");
    fflush(stdout);
}

static void demo_usage(FILE *out)
{
    fprintf(out,
            "usage: flipgraph demo [--db PATH] [--seed S] [--threads N] [--size N]\n\n"
            "The embedded default job, end to end:\n"
            "  1. search <3,3,3> on the CPU from the standard algorithm (rank 27) to rank 23;\n"
            "  2. verify every improvement over GF(2) and store it with its run (default db: "
            "demo.db);\n"
            "  3. read the best scheme back from the store and lift it to the integers;\n"
            "  4. multiply two random N x N bit matrices (default 1536) with one level of it,\n"
            "     and compare with the naive product.\n"
            "Exit 0 when every step succeeded, 1 when rank 23 was not reached in 120 s,\n"
            "2 on bad usage, 3 on a failure of the store or the runtime.\n");
}

int cmd_demo(int argc, char **argv)
{
    const char *db_path = "demo.db";
    long seed = 1, threads = 2, size = 1536;
    static const struct option opts[] = {{"db", required_argument, 0, 'd'},
                                         {"seed", required_argument, 0, 's'},
                                         {"threads", required_argument, 0, 't'},
                                         {"size", required_argument, 0, 'n'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    optind = 0;
    for (int c; (c = getopt_long(argc, argv, "h", opts, NULL)) != -1;) {
        switch (c) {
        case 'd': db_path = optarg; break;
        case 's':
            if (!cli_parse_long(optarg, 0, __LONG_MAX__, &seed))
                return cli_error(CLI_USAGE, "demo", "--seed: expected a non-negative integer");
            break;
        case 't':
            if (!cli_parse_long(optarg, 1, 1024, &threads))
                return cli_error(CLI_USAGE, "demo", "--threads: expected 1..1024");
            break;
        case 'n':
            if (!cli_parse_long(optarg, 1, 1 << 16, &size))
                return cli_error(CLI_USAGE, "demo", "--size: expected 1..65536");
            break;
        case 'h': demo_usage(stdout); return CLI_OK;
        default: demo_usage(stderr); return CLI_USAGE;
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, "demo", "unexpected argument '%s'", argv[optind]);

    char err[512];
    db_status st;
    search_session *ss = session_open(db_path, &st, err, sizeof err);
    if (!ss) /* the store's message names the path; its table of exit codes */
        return cli_error(cli_db_exit(st), "demo", "%s", err);
    db *store = session_store(ss);

    /* 1-2. search, verify, store: the search's defaults (search/params.def) on the CPU */
    scheme_format fmt = {3, 3, 3};
    search_config cfg;
    search_config_default(&cfg);
    char sv[32], tv[32];
    snprintf(sv, sizeof sv, "%ld", seed);
    snprintf(tv, sizeof tv, "%ld", threads);
    if (!search_config_set(&cfg, SEARCH_PARAM_DIMS, "3x3x3", err, sizeof err) ||
        !search_config_set(&cfg, SEARCH_PARAM_TARGET_RANK, "23", err, sizeof err) ||
        !search_config_set(&cfg, SEARCH_PARAM_TIME, "120", err, sizeof err) ||
        !search_config_set(&cfg, SEARCH_PARAM_THREADS, tv, err, sizeof err) ||
        !search_config_set(&cfg, SEARCH_PARAM_SEED, sv, err, sizeof err) ||
        !search_config_set(&cfg, SEARCH_PARAM_PROGRESS, "0", err, sizeof err) ||
        !search_config_resolve(&cfg, SEARCH_BACKEND_CPU, err, sizeof err)) {
        session_close(ss);
        return cli_error(CLI_USAGE, "demo", "%s", err);
    }
    const search_params *pp = &cfg.p;
    int code = CLI_OK;
    printf("1. search <3,3,3> from the standard algorithm (rank 27), target 23 (Laderman), "
           "seed %ld, %ld threads\n", seed, threads);
    session_hooks hooks = {.improved = demo_improved};
    session_run run;
    search_result res;
    session_search(ss, &cfg, NULL, NULL, 0, &hooks, &run, &res);
    if (run.begin_failed) {
        search_result_free(&res);
        session_close(ss);
        return cli_error(cli_db_exit(run.begin_status), "demo", "%s", run.msg);
    }
    if (run.end_lost) {
        code = cli_error(CLI_INTERNAL, "demo", "%s", run.end_msg);
        goto out_search;
    }
    printf("   best rank %d after %.2f s, %.3g flips (%.3g flips/s), run %lld in %s\n",
           res.best_rank, res.seconds, (double)res.flips,
           res.seconds > 0 ? (double)res.flips / res.seconds : 0.0, (long long)run.run_id, db_path);
    if (res.status == SEARCH_FAILED) {
        code = cli_error(CLI_INTERNAL, "demo", "search failed: %s", res.msg);
        goto out_search;
    }
    if (res.best_rank > pp->target_rank) {
        code = cli_error(CLI_NEGATIVE, "demo", "rank %d not reached", pp->target_rank);
        goto out_search;
    }

    /* 3. the best scheme, as the store has it; verified again, lifted */
    int64_t best_id;
    int best_rank;
    scheme *best = NULL;
    if (db_best(store, fmt, SCHEME_RING_F2, &best_id, &best_rank, err, sizeof err) != DB_OK ||
        !(best = db_load_scheme(store, best_id, &st, err, sizeof err))) {
        code = cli_error(CLI_INTERNAL, "demo", "reading the best scheme back: %s", err);
        goto out_search;
    }
    verify_result vr;
    bool valid = verify_f2(best, &vr);
    printf("2. stored scheme #%lld: <3,3,3> rank %d over GF(2): %s\n", (long long)best_id,
           best->rank, valid ? "valid" : vr.msg);
    if (!valid) {
        code = cli_error(CLI_INTERNAL, "demo", "a stored scheme does not verify: %s", vr.msg);
        goto out_best;
    }
    verify_lift_result lr;
    scheme *lifted = verify_lift(best, &lr);
    if (lifted) {
        int64_t zid = 0;
        bool existed;
        db_provenance prov = {.parent_id = best_id, .source = "lift"};
        if (db_insert_scheme(store, lifted, &prov, &zid, &existed, err, sizeof err) == DB_OK)
            printf("3. lifted to Z: valid over the integers, stored as #%lld (parent #%lld)\n",
                   (long long)zid, (long long)best_id);
        else
            code = cli_error(CLI_INTERNAL, "demo", "3. lifted to Z, but the lift was NOT stored: %s",
                             err);
        scheme_free(lifted);
    } else {
        printf("3. no lift to Z: %s\n", lr.msg);
    }

    /* 4. use it: one Yates level of the found scheme, checked against the naive product */
    {
        export_plan plan;
        const scheme *chain[1] = {best};
        const char *names[1] = {"demo"};
        uint64_t n = (uint64_t)size;
        rt_matrix *A = rt_matrix_new(n, n), *B = rt_matrix_new(n, n), *C = rt_matrix_new(n, n),
                  *N = rt_matrix_new(n, n);
        if (!A || !B || !C || !N) {
            code = cli_error(CLI_INTERNAL, "demo", "out of memory for %llu x %llu matrices",
                             (unsigned long long)n, (unsigned long long)n);
        } else if (!export_plan_init(&plan, chain, names, 1, false, err, sizeof err)) {
            code = cli_error(CLI_INTERNAL, "demo", "plan: %s", err);
        } else {
            scheme_rng rng;
            scheme_rng_seed(&rng, (uint64_t)seed ^ 0x6d756c7469706c79ull);
            rt_matrix_random(A, &rng, 0.5);
            rt_matrix_random(B, &rng, 0.5);
            rt_stats rs;
            double t0 = cli_now();
            rt_status rst = export_plan_size(&plan, n, n, n, err, sizeof err)
                                ? rt_execute(&plan, A, B, C, (int)threads, 0, &rs, err, sizeof err)
                                : RT_EDIMS;
            double t1 = cli_now();
            if (rst != RT_OK) {
                code = cli_error(CLI_INTERNAL, "demo", "multiply: %s", err);
            } else {
                rt_mul_naive(A, B, N, false);
                double t2 = cli_now();
                rt_diff d;
                rt_matrix_compare(C, N, &d);
                bool same = d.same_dims && d.equal;
                printf("4. multiplied two random %llu x %llu bit matrices over GF(2) with one level "
                       "of #%lld:\n   %.3f s (naive %.3f s), %.3g effective bit-ops/s: %s\n",
                       (unsigned long long)n, (unsigned long long)n, (long long)best_id, t1 - t0,
                       t2 - t1, (2.0 * n * n * n - (double)n * n) / (t1 - t0),
                       same ? "equal to the naive product" : "DIFFERS");
                if (!same)
                    code = cli_error(CLI_INTERNAL, "demo", "the product differs from the naive one");
            }
            export_plan_free(&plan);
        }
        rt_matrix_free(A);
        rt_matrix_free(B);
        rt_matrix_free(C);
        rt_matrix_free(N);
    }
    if (code == CLI_OK)
        printf("demo: all steps succeeded (inspect with: flipgraph db stats --db %s)\n", db_path);
out_best:
    scheme_free(best);
out_search:
    search_result_free(&res);
    session_close(ss);
    return code;
}
