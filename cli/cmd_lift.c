/* flipgraph lift: Hensel-lift a GF(2) scheme to the integers (docs/verify.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db.h"
#include "../search/search.h"
#include "../search/session.h"
#include "../verify/verify.h"
#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: flipgraph lift ID|FILE [-o OUT] [--db PATH] [--to native|exp]\n"
            "                  [--attempts N] [--coef-max K] [--seed N] [--walk T [--threads N]]\n"
            "                  [--survey T] [--symmetry c3|c3xc2|c3xc2sK|t2]\n"
            "\n"
            "Lifts a GF(2) scheme to one over the integers by Hensel lifting (solving the\n"
            "Brent equations modulo 2, 4, 8, ...), and checks the result over Z.\n"
            "FILE: a scheme file (any format flipgraph reads; an integer file is reduced\n"
            "mod 2 first).  ID: a scheme stored in the database (an argument of digits\n"
            "only, as in flipgraph export; write ./123 for a file named 123).\n"
            "\n"
            "  -o, --output OUT  write the lifted scheme to OUT (whole or not at all); default:\n"
            "                    standard output for a FILE, nothing for an ID\n"
            "  --db PATH         the database (default $FLIPGRAPH_DB, else ./flipgraph.db).\n"
            "                    With an ID, or with a FILE when --db is given, the lifted\n"
            "                    scheme is stored with ring Z, source \"lift\" and the GF(2)\n"
            "                    scheme as its parent (a FILE is imported first)\n"
            "  --to KIND         native (default) or exp\n"
            "  --attempts N      column orders tried before giving up (default 16)\n"
            "  --coef-max K      a lift with a coefficient beyond K in absolute value does not end\n"
            "                    the attempts: the first within K is taken, else the one with the\n"
            "                    smallest (default: the first lift; the GPU walk over Z takes 1)\n"
            "  --seed N          seed of the retries' random choices and of the walk (default fixed)\n"
            "  --walk T          when the scheme does not lift, walk its neighbours at its rank\n"
            "                    for up to T (a duration: 30s, 5m; the GF(2) walk with plus\n"
            "                    transitions there) and lift every distinct scheme met until one\n"
            "                    lifts (docs/search.md, \"The lifting walk\"); stored with --db: the\n"
            "                    GF(2) scheme that lifted (source lift-walk), then its lift\n"
            "  --threads N       --walk runs N walks at once, each its own seed; the first that\n"
            "                    lifts ends them; --survey runs N walks for T and sums their\n"
            "                    counts (1..64, default 1)\n"
            "  --survey T        measure instead of lifting: walk the scheme's neighbours at its\n"
            "                    rank for T as --walk does, lift every distinct scheme met (at\n"
            "                    most 65536) and print how many lift and the defects of those\n"
            "                    that do not lift modulo 4 (whether a GF(2) scheme lifts goes by\n"
            "                    the region it lies in); stores nothing; -o OUT: the GF(2) scheme\n"
            "                    of the lowest defect met (--to its kind)\n"
            "  --symmetry G      an invariant lift: the scheme must be invariant under G (c3,\n"
            "                    c3xc2 on <n,n,n>, t2 on <n,m,m>) and so is its lift (one unknown\n"
            "                    per orbit of coefficient entries; docs/verify.md, \"Invariant\n"
            "                    lifts\"); exit 1 when no invariant lift was found, which proves\n"
            "                    nothing about other lifts.  Not with --walk or --survey\n"
            "  -h, --help        this text\n"
            "\n"
            "exit: 0 lifted (--survey: schemes met); 1 the scheme cannot be lifted (the\n"
            "message says why: at which modulus the system was inconsistent, or that no\n"
            "attempt found an integer lift; --survey: none met);\n"
            "2 bad usage, unreadable input, not a valid GF(2) scheme, unknown ID or OUT not\n"
            "writable; 3 a database failure, or a system too large to solve here.\n");
}

/* The store's table (cli_db_exit) but for exit 3, "a database failure", which
 * here also covers a store that cannot be written and one that refuses a
 * scheme (lift writes to it). */
static int db_code(db_status st)
{
    return st == DB_READONLY || st == DB_INVALID ? CLI_INTERNAL : cli_db_exit(st);
}

int cmd_lift(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"db", required_argument, NULL, 'D'},
        {"to", required_argument, NULL, 't'},
        {"attempts", required_argument, NULL, 'a'},
        {"coef-max", required_argument, NULL, 'k'},
        {"seed", required_argument, NULL, 's'},
        {"walk", required_argument, NULL, 'w'},
        {"threads", required_argument, NULL, 'T'},
        {"survey", required_argument, NULL, 'S'},
        {"symmetry", required_argument, NULL, 'g'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *db_opt = NULL;
    scheme_file_kind kind = SCHEME_FILE_NATIVE;
    verify_lift_options lopt = {0, 0, 0, 0, 0};
    double walk = 0, survey = 0;
    int threads = 1;
    long v;
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'o':
            out = optarg;
            break;
        case 'D':
            db_opt = optarg;
            break;
        case 't':
            kind = scheme_file_kind_parse(optarg);
            if (kind != SCHEME_FILE_NATIVE && kind != SCHEME_FILE_EXP)
                return cli_error(CLI_USAGE, "lift", "--to '%s': expected native or exp "
                                 "(other formats: flipgraph export)", optarg);
            break;
        case 'a':
            if (!cli_parse_long(optarg, 1, 100000, &v))
                return cli_error(CLI_USAGE, "lift", "--attempts '%s': expected 1..100000", optarg);
            lopt.orders = (int)v;
            break;
        case 'k':
            if (!cli_parse_long(optarg, 1, 127, &v))
                return cli_error(CLI_USAGE, "lift", "--coef-max '%s': expected 1..127", optarg);
            lopt.max_coef = (int)v;
            break;
        case 's': { /* the full 64 bits, as search and sweep take them */
            char *end = NULL;
            errno = 0;
            const unsigned long long x = strtoull(optarg, &end, 10);
            if (!optarg[0] || optarg[0] == '-' || !end || *end || errno)
                return cli_error(CLI_USAGE, "lift", "--seed '%s': expected a non-negative integer below 2^64", optarg);
            lopt.seed = (uint64_t)x;
            break;
        }
        case 'w':
            if (!search_parse_duration(optarg, &walk) || walk <= 0)
                return cli_error(CLI_USAGE, "lift", "--walk '%s': expected a duration above 0, such as 30s or 5m",
                                 optarg);
            break;
        case 'T':
            if (!cli_parse_long(optarg, 1, 64, &v))
                return cli_error(CLI_USAGE, "lift", "--threads '%s': expected 1..64", optarg);
            threads = (int)v;
            break;
        case 'S':
            if (!search_parse_duration(optarg, &survey) || survey <= 0)
                return cli_error(CLI_USAGE, "lift", "--survey '%s': expected a duration above 0, such as 30s or 5m",
                                 optarg);
            break;
        case 'g': {
            scheme_symmetry g;
            if (!scheme_symmetry_parse(optarg, &g) || g == SCHEME_SYM_NONE)
                return cli_error(CLI_USAGE, "lift", "--symmetry '%s': expected c3, c3xc2, c3xc2s1..c3xc2s3 or t2",
                                 optarg);
            lopt.symmetry = (int)g;
            break;
        }
        case 'h':
            usage(stdout);
            return CLI_OK;
        default:
            cli_option_error("lift", argv);
            usage(stderr);
            return CLI_USAGE;
        }
    }
    if (optind + 1 != argc) {
        usage(stderr);
        return cli_error(CLI_USAGE, "lift", "expected exactly one ID or FILE, got %d", argc - optind);
    }
    if (lopt.symmetry && (walk > 0 || survey > 0))
        return cli_error(CLI_USAGE, "lift", "--symmetry: the lift alone is invariant, not --%s", walk > 0 ? "walk" : "survey");
    if (survey > 0 && walk > 0)
        return cli_error(CLI_USAGE, "lift", "--survey measures and lifts nothing: not with --walk");
    const char *arg = argv[optind];
    bool by_id = strlen(arg) <= 18 && cli_is_scheme_id(arg); /* 19 digits may overflow %lld */
    bool use_db = by_id || (db_opt && survey <= 0); /* --survey stores nothing: a FILE needs no store */
    char err[512] = "";
    db_status st = DB_OK;
    db *d = NULL;
    scheme *in = NULL, *lifted = NULL, *met = NULL; /* met: the GF(2) scheme --walk lifted */
    int64_t parent = 0;
    int rc = CLI_OK;

    if (use_db) {
        const char *path = db_default_path(db_opt);
        d = db_open(path, !by_id, &st, err, sizeof err);
        if (!d)
            return cli_error(db_code(st), "lift", "%s: %s", path, err);
    }
    if (by_id) {
        long long id = 0;
        sscanf(arg, "%lld", &id);
        in = db_load_scheme(d, id, &st, err, sizeof err);
        if (!in) {
            rc = cli_error(db_code(st), "lift", "scheme %s: %s", arg, err);
            goto done;
        }
        parent = id;
    } else {
        in = cli_read_scheme("lift", arg, NULL);
        if (!in) {
            rc = CLI_USAGE;
            goto done;
        }
    }

    /* SIGINT or SIGTERM ends a walk or a survey at its next chunk, and what it
     * has (a lift, the tally, the closest scheme) is still written */
    if (walk > 0 || survey > 0)
        session_signals_hold();
    if (survey > 0) {
        search_lift_tally t = {.keep = out != NULL};
        const double t0 = cli_now();
        const bool any = search_lift_survey(in, in->rank, survey, lopt.seed, threads, &t);
        const double took = cli_now() - t0;
        if (session_stop_seen())
            fprintf(stderr, "flipgraph lift: interrupted after %.1f s of %gs: the survey's counts so far\n", took,
                    survey);
        char fb[32];
        char walks[64] = "";
        if (threads > 1)
            snprintf(walks, sizeof walks, ", %d walks, distinct walk by walk", threads);
        printf("%s %s rank %d: %d distinct GF(2) schemes of rank <= %d met in %.1f s (seed %llu%s), %d of them lift "
               "(%.1f%%)\n",
               arg, scheme_format_str(in->fmt, fb), in->rank, t.met, in->rank, took, (unsigned long long)lopt.seed,
               walks, t.lifted, t.met ? 100.0 * t.lifted / t.met : 0.0);
        if (t.none) {
            printf("  %d do not lift modulo 4; their defect (docs/verify.md, \"The defect\"): min %d (first at "
                   "%.1f s), mean %.1f, max %d\n",
                   t.none, t.defect_min, t.defect_min_at, t.defect_sum / t.none, t.defect_max);
        }
        rc = any ? CLI_OK : CLI_NEGATIVE;
        if (out && t.closest) { /* a scheme of the lowest defect, for a closer look */
            scheme_write_ctx w = {t.closest, kind};
            if (!scheme_write_file_atomic(out, scheme_write_cb, &w, err, sizeof err))
                rc = cli_error(CLI_USAGE, "lift", "%s", err);
            else
                printf("  one of defect %d written to %s\n", t.defect_min, out);
        } else if (out)
            printf("  none refused modulo 4: nothing written to %s\n", out);
        scheme_free(t.closest);
        goto done;
    }
    verify_lift_result lr;
    lifted = verify_lift_ex(in, &lopt, &lr);
    if (!lifted && walk > 0 && (lr.status == VERIFY_LIFT_NONE || lr.status == VERIFY_LIFT_NOT_FOUND)) {
        int tried;
        fprintf(stderr, "flipgraph lift: %s: %s; walking its neighbours at rank %d for up to %gs\n", arg, lr.msg,
                in->rank, walk);
        const double t0 = cli_now();
        lifted = search_lift_walk_threads(in, in->rank, walk, lopt.seed, threads, &tried, &met);
        lr.seconds = cli_now() - t0;
        if (lifted) {
            snprintf(lr.msg, sizeof lr.msg, "a neighbour of rank %d lifted (%d distinct schemes tried), largest "
                     "|coefficient| %d", met->rank, tried, search_z_max_coef(lifted));
        } else
            snprintf(lr.msg, sizeof lr.msg, "no neighbour lifted either (%d distinct schemes of rank <= %d tried in %.1f s%s)",
                     tried, in->rank, lr.seconds, session_stop_seen() ? ", interrupted" : "");
    }
    if (!lifted) {
        int code = lr.status == VERIFY_LIFT_BAD_INPUT ? CLI_USAGE
                   : lr.status == VERIFY_LIFT_NONE || lr.status == VERIFY_LIFT_NOT_FOUND ? CLI_NEGATIVE
                   : CLI_INTERNAL;
        rc = cli_error(code, "lift", "%s: %s", arg, lr.msg);
        goto done;
    }
    fprintf(stderr, "flipgraph lift: %s: %s (%.3f s)\n", arg, lr.msg, lr.seconds);
    if (d) {
        if (!by_id) {
            /* Import the file first, so the lift has a parent row. */
            int64_t id = 0, f2_id = 0;
            bool existed = false, f2_existed = false;
            char source[300];
            snprintf(source, sizeof source, "import:%s", arg);
            db_provenance prov = {0, 0, source, 0, 0};
            st = db_import_scheme(d, in, &prov, &id, &existed, &f2_id, &f2_existed, err, sizeof err);
            if (st != DB_OK) {
                rc = cli_error(db_code(st), "lift", "storing %s: %s", arg, err);
                goto done;
            }
            parent = in->ring == SCHEME_RING_Z ? f2_id : id;
        }
        if (met) {
            /* the walk's GF(2) scheme between them: the input's child, the lift's parent */
            db_provenance pg = {0, parent, "lift-walk", 0, 0};
            bool existed = false;
            st = db_insert_scheme(d, met, &pg, &parent, &existed, err, sizeof err);
            if (st != DB_OK) {
                rc = cli_error(db_code(st), "lift", "storing the walk's scheme: %s", err);
                goto done;
            }
        }
        db_provenance prov = {0, parent, "lift", 0, lr.seconds};
        int64_t id = 0;
        bool existed = false;
        st = db_insert_scheme(d, lifted, &prov, &id, &existed, err, sizeof err);
        if (st != DB_OK) {
            rc = cli_error(db_code(st), "lift", "storing the lift: %s", err);
            goto done;
        }
        /* Standard output carries the scheme when no -o was given for a FILE. */
        FILE *msg = (!by_id && (!out || !strcmp(out, "-"))) ? stderr : stdout;
        fprintf(msg, "%s: lifted to Z: %s id %lld (parent %lld)\n", arg,
                existed ? "already stored as" : "stored as", (long long)id, (long long)parent);
    }
    if (out || !by_id) {
        scheme_write_ctx w = {lifted, kind};
        if (!scheme_write_file_atomic(out ? out : "-", scheme_write_cb, &w, err, sizeof err))
            rc = cli_error(CLI_USAGE, "lift", "%s", err);
    }
done:
    if (walk > 0 || survey > 0)
        session_signals_release();
    scheme_free(met);
    scheme_free(lifted);
    scheme_free(in);
    if (d)
        db_close(d);
    return rc;
}
