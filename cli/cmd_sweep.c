/* flipgraph sweep: search every format of a range for a fixed time each,
 * then compare with the records (docs/report.md, "sweep").
 *
 *   flipgraph sweep --dims-list 2x2x2..5x5x5 --time-per 5m [--threads N] [--seed S]
 *                   [--db PATH] [--from-db] [--backend cpu|gpu|auto] [--until-record]
 *                   [--meta] [--meta-reach K] [--rounds K] [--stall DUR]
 *
 * A range A..B is every format <n,m,p> with n <= m <= p and each dimension
 * between the corners' (the rank is the same for every permutation of n, m,
 * p, so the sorted formats cover the range); a list is comma-separated
 * formats or ranges, searched in the order given, K times over (--rounds).
 * With --meta a format starts from the lowest of its neighbours' bests so far
 * taken to it by projections and extensions (search_meta_start, Kauers, Wood
 * 2025), or its own best of an earlier round, when that is below the other
 * start (the database's best with --from-db, else the standard algorithm);
 * products of two formats' bests count too (search_product); with --from-db
 * the store's bests count from the first round, with --meta-reach K
 * projections from formats up to K steps larger (search_meta_start_reach),
 * and a start that came from another format is stored (source resize).  With
 * --symmetry the square formats walk symmetrically from their cubes.  With
 * --ring z every format walks over Z and the table's records are the z column
 * of data/records.tsv (docs/search.md, "Searching over Z").
 * SIGINT or SIGTERM stops
 * the current format after its batch (search_request_stop), stores what it
 * found and prints the table so far; a second signal ends the process at
 * once (the store is transactional, nothing half-written).
 * Exit: 0 every format searched its time (or reached its record with
 * --until-record); 1 interrupted, or with --until-record a format missed its
 * record; 2 bad usage; 3 a search or the store failed, or no GPU for
 * --backend gpu. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cuda/fg_cuda.h"
#include "../db/db.h"
#include "../search/search.h"
#include "../search/session.h"
#include "cli.h"

#define CMD "sweep"
/* More formats than any sensible range holds (2x2x2..8x8x8 is 120). */
#define SWEEP_MAX_FORMATS 1000

static const char *usage_text =
    "usage: flipgraph sweep --dims-list LIST [--time-per DUR] [--threads N] [--seed S]\n"
    "                       [--db PATH] [--from-db] [--backend cpu|gpu|auto] [--until-record]\n"
    "                       [--progress DUR] [--meta] [--meta-reach K] [--rounds K] [--stall DUR]\n"
    "                       [--symmetry G] [--ring f2|z] [--coef-max K] [--via-f2 T] [--lift K]\n"
    "                       [--lift-walk T] [-q]\n"
    "\n"
    "Searches every format of LIST for DUR each, then prints a table of our best rank\n"
    "against the known record (GF(2), or Z with --ring z).\n"
    "\n"
    "  --dims-list LIST  formats: NxMxP, or a range A..B (every <n,m,p> with n <= m <= p and\n"
    "                    each dimension between the corners', e.g. 2x2x2..5x5x5 is 20 formats),\n"
    "                    or a comma list of both: 2x2x2,3x3x3 or 2x2x2..2x2x4,4x4x4\n"
    "  --time-per DUR    search time per format: 30s, 5m, 1h (default 1m)\n"
    "  --threads N       CPU walkers (default: the CPUs online)\n"
    "  --seed S          base seed; format i searches with the i-th splitmix64 value\n"
    "                    of it (default: from /dev/urandom, printed)\n"
    "  --db PATH         store every improvement (a run per format) in this database\n"
    "  --from-db         start each format from the database's best GF(2) scheme (needs\n"
    "                    --db; the standard algorithm where none is stored)\n"
    "  --backend B       cpu, gpu, or auto (default: gpu when one is visible, else cpu)\n"
    "  --until-record    stop a format as soon as it reaches its known record\n"
    "  --meta            start a format from its neighbours' bests (one dimension one larger or\n"
    "                    smaller) taken to it by projection or extension (flipgraph resize), from\n"
    "                    the product of two formats' bests whose formats multiply to it (<2,2,2>\n"
    "                    and <3,3,3> for <6,6,6>), or from its own best of an earlier round, when\n"
    "                    lower than the usual start; with --from-db the database's best of\n"
    "                    every format of the list counts from the first round, and over\n"
    "                    GF(2) its bests of smaller formats outside the list count for sums\n"
    "                    and products (<4,4,4> and <3,4,4> for <4,4,7>)\n"
    "  --meta-reach K    with --meta, a format's start may also be the projection of any\n"
    "                    format of the list that holds it (each dimension at least as large)\n"
    "                    up to K steps away (the dimensions' differences summed): 1..64\n"
    "                    (default 1, the neighbours only); a <6,6,6>:153 in the database\n"
    "                    starts <5,5,5> at 93 with K >= 3\n"
    "  --symmetry G      c3 or c3xc2: the square formats <n,n,n> walk symmetrically (from their\n"
    "                    diagonal cubes, never from a meta or database start, which need not be\n"
    "                    invariant), the others as usual; their bests still serve --meta\n"
    "  --ring R          f2 (default) or z: walk over Z (docs/search.md, \"Searching over Z\"),\n"
    "                    against the records' z column; --from-db then takes the database's best\n"
    "                    Z scheme; with --meta the moves keep integer schemes integer; with\n"
    "                    --symmetry the square formats walk over GF(2) symmetrically and every\n"
    "                    improvement is lifted to Z (docs/search.md, \"Symmetric walks over Z\")\n"
    "  --lift K          over Z: before a format walks, lift the store's K lowest GF(2) schemes of\n"
    "                    it to Z (Hensel lifting, as flipgraph lift; each lift verified and stored\n"
    "                    with source lift) and start from the store's best Z scheme (implies\n"
    "                    --from-db; needs --db): the GF(2) results of a search serve the Z sweep\n"
    "  --lift-walk T     with --lift: when no lift reaches the format's Z record, walk the store's\n"
    "                    GF(2) schemes at that rank for up to T (plus transitions at it) and lift\n"
    "                    every distinct scheme met there until one lifts (stored: the GF(2) one\n"
    "                    with source lift-walk, its lift with source lift); a GF(2) scheme that\n"
    "                    does not lift can have neighbours that do\n"
    "  --coef-max K      over Z: coefficients bounded by K in absolute value (1..3, default 1;\n"
    "                    the GPU walks 1 only)\n"
    "  --via-f2 T        over Z: every format walks over GF(2) and lifts each improvement, then\n"
    "                    for up to T walks around the lowest that did not lift and lifts its\n"
    "                    neighbours (docs/search.md, \"Walks over Z by lifting\")\n"
    "  --rounds K        search the list K times over (default 1); with --meta a round starts\n"
    "                    where the last one ended, in every format\n"
    "  --stall DUR       a format stops when DUR passes without a lower rank (and the sweep\n"
    "                    moves to the next one); 0: never (default)\n"
    "  --progress DUR    time between progress lines (default 10s; 0: none)\n"
    "  -q, --quiet       only the final table\n"
    "\n"
    "SIGINT/SIGTERM: the current format stops after its batch, its results are stored, and the\n"
    "table so far is printed; a second signal ends at once.\n"
    "\n"
    "exit codes: 0 every format searched (with --until-record: every record reached);\n"
    "1 interrupted, or a record missed with --until-record; 2 bad usage; 3 a search or the\n"
    "store failed, or no GPU for --backend gpu.\n";

/* ---- the list of formats ---- */

typedef struct fmt_list {
    scheme_format *v;
    int n, cap;
    int skipped; /* formats of a range beyond the 64-entry limit */
} fmt_list;

static bool list_add(fmt_list *L, scheme_format f, char *err, size_t errlen)
{
    for (int i = 0; i < L->n; i++)
        if (L->v[i].n == f.n && L->v[i].m == f.m && L->v[i].p == f.p)
            return true;
    if (L->n >= SWEEP_MAX_FORMATS)
        return scheme_fail(err, errlen, "more than %d formats", SWEEP_MAX_FORMATS);
    if (L->n == L->cap) {
        int cap = L->cap ? 2 * L->cap : 32;
        scheme_format *v = realloc(L->v, (size_t)cap * sizeof *v);
        if (!v)
            return scheme_fail(err, errlen, "out of memory");
        L->v = v;
        L->cap = cap;
    }
    L->v[L->n++] = f;
    return true;
}

/* Only NxMxP inside a list: "N,M,P" would collide with the list's commas. */
static bool parse_one(const char *s, scheme_format *f, char *err, size_t errlen)
{
    if (strchr(s, ','))
        return scheme_fail(err, errlen, "'%s': write formats as NxMxP in a list", s);
    char e[256];
    if (!scheme_format_parse(s, f, e, sizeof e))
        return scheme_fail(err, errlen, "'%s': %s", s, e);
    return true;
}

static bool parse_item(char *item, fmt_list *L, char *err, size_t errlen)
{
    while (*item == ' ')
        item++;
    size_t len = strlen(item);
    while (len && item[len - 1] == ' ')
        item[--len] = 0;
    if (!*item)
        return scheme_fail(err, errlen, "an empty item (two commas, or a comma at an end)");
    char *dots = strstr(item, "..");
    if (!dots) {
        scheme_format f;
        return parse_one(item, &f, err, errlen) && list_add(L, f, err, errlen);
    }
    *dots = 0;
    scheme_format lo, hi;
    if (!parse_one(item, &lo, err, errlen) || !parse_one(dots + 2, &hi, err, errlen))
        return false;
    if (lo.n > hi.n || lo.m > hi.m || lo.p > hi.p)
        return scheme_fail(err, errlen,
                           "range %dx%dx%d..%dx%dx%d: each dimension of the first corner must be "
                           "at most the second's", lo.n, lo.m, lo.p, hi.n, hi.m, hi.p);
    int before = L->n;
    for (int n = lo.n; n <= hi.n; n++)
        for (int m = n > lo.m ? n : lo.m; m <= hi.m; m++)
            for (int p = m > lo.p ? m : lo.p; p <= hi.p; p++) {
                scheme_format f = {n, m, p};
                if (!scheme_format_valid(f)) {
                    L->skipped++;
                    continue;
                }
                if (!list_add(L, f, err, errlen))
                    return false;
            }
    if (L->n == before)
        return scheme_fail(err, errlen,
                           "range %dx%dx%d..%dx%dx%d holds no format <n,m,p> with n <= m <= p "
                           "(products up to 64)", lo.n, lo.m, lo.p, hi.n, hi.m, hi.p);
    return true;
}

static bool parse_list(const char *s, fmt_list *L, char *err, size_t errlen)
{
    char *copy = strdup(s);
    if (!copy)
        return scheme_fail(err, errlen, "out of memory");
    bool ok = true;
    char *p = copy;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = 0;
        if (!(ok = parse_item(p, L, err, errlen)) || !comma)
            break;
        p = comma + 1;
    }
    free(copy);
    return ok;
}

/* ---- one format ---- */

typedef struct sweep_row {
    scheme_format fmt;
    int start, best, record, stored; /* stored: the database's best after the run (0: none) */
    double seconds;
    uint64_t flips, seed;
    int64_t run_id;
    const char *status;
} sweep_row;

typedef struct sweep_ctx {
    bool quiet;
    char fmtbuf[32];
    char heading[256]; /* "[i/n] FORMAT from ..., record R, seed S": printed with the run's id */
} sweep_ctx;

static void on_started(void *ctx, int64_t run_id)
{
    sweep_ctx *c = ctx;
    if (c->quiet)
        return;
    if (run_id)
        printf("%s, run %" PRId64 "\n", c->heading, run_id);
    else
        printf("%s\n", c->heading);
    fflush(stdout);
}

static void on_improved(void *ctx, const search_found *f, const char *path, bool stored_new)
{
    (void)path, (void)stored_new;
    sweep_ctx *c = ctx;
    if (!c->quiet) {
        printf("      %s: rank %d after %.1f s\n", c->fmtbuf, f->rank, f->seconds);
        fflush(stdout);
    }
}

static void on_progress(void *ctx, const search_progress *pr, uint64_t stored)
{
    (void)stored;
    sweep_ctx *c = ctx;
    if (c->quiet)
        return;
    char rec[32] = "?", rate[32], pool[48] = "-"; /* "-": restarts never draw from the pool (--pool-fresh 1) */
    if (pr->record > 0)
        snprintf(rec, sizeof rec, "%d", pr->record);
    if (pr->level > 0)
        snprintf(pool, sizeof pool, "%d x %d", pr->level, pr->level_count);
    printf("      %-9s %8.1f s  best %4d  record %4s  %9s flips/s  pool %s  plateau %" PRIu64 "\n", c->fmtbuf,
           pr->seconds, pr->best_rank, rec, cli_fmt_si(pr->flips_per_s, rate, sizeof rate), pool, pr->plateau);
    fflush(stdout);
}

/* ---- the table ---- */

static void print_table(const sweep_row *rows, int n, bool with_db)
{
    printf("\n%-10s %6s %6s %7s %5s %10s %10s  %s\n", "format", "start", "best", "record", "gap",
           "time", "flips", with_db ? "stored  status" : "status");
    for (int i = 0; i < n; i++) {
        const sweep_row *r = &rows[i];
        char fb[32], rec[16] = "?", gap[16] = "?", t[32], fl[32], st[16] = "";
        scheme_format_str(r->fmt, fb);
        if (r->record > 0) {
            snprintf(rec, sizeof rec, "%d", r->record);
            snprintf(gap, sizeof gap, "%+d", r->best - r->record);
            if (r->best == r->record)
                snprintf(gap, sizeof gap, "0");
        }
        snprintf(t, sizeof t, "%.1f s", r->seconds);
        cli_fmt_si((double)r->flips, fl, sizeof fl);
        if (with_db) {
            if (r->stored)
                snprintf(st, sizeof st, "%6d  ", r->stored);
            else
                snprintf(st, sizeof st, "%6s  ", "-");
        }
        printf("%-10s %6d %6d %7s %5s %10s %10s  %s%s\n", fb, r->start, r->best, rec, gap, t, fl,
               st, r->status);
    }
    fflush(stdout);
}

enum { OPT_DIMS_LIST = 1000, OPT_TIME_PER, OPT_DB, OPT_FROM_DB, OPT_UNTIL_RECORD, OPT_META, OPT_ROUNDS, OPT_LIFT,
       OPT_LIFT_WALK, OPT_META_REACH, OPT_PARAM = 2000 };

/* The search parameters sweep takes (rows of search/params.def, parsed and
 * checked by the table); the rest of the table is `flipgraph search`'s. */
static const int sweep_params[] = {SEARCH_PARAM_THREADS, SEARCH_PARAM_SEED, SEARCH_PARAM_BACKEND,
                                   SEARCH_PARAM_PROGRESS, SEARCH_PARAM_DEVICE, SEARCH_PARAM_STALL,
                                   SEARCH_PARAM_SYMMETRY, SEARCH_PARAM_RING, SEARCH_PARAM_COEF_MAX,
                                   SEARCH_PARAM_VIA_F2};
#define NSWEEP_PARAMS (int)(sizeof sweep_params / sizeof *sweep_params)

int cmd_sweep(int argc, char **argv)
{
    struct option longs[23] = {
        {"meta-reach", required_argument, NULL, OPT_META_REACH},
        {"lift", required_argument, NULL, OPT_LIFT},
        {"lift-walk", required_argument, NULL, OPT_LIFT_WALK},
        {"meta", no_argument, NULL, OPT_META},
        {"rounds", required_argument, NULL, OPT_ROUNDS},
        {"dims-list", required_argument, NULL, OPT_DIMS_LIST},
        {"time-per", required_argument, NULL, OPT_TIME_PER},
        {"db", required_argument, NULL, OPT_DB},
        {"from-db", no_argument, NULL, OPT_FROM_DB},
        {"until-record", no_argument, NULL, OPT_UNTIL_RECORD},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'}};
    for (int i = 0; i < NSWEEP_PARAMS; i++)
        longs[12 + i] = (struct option){search_param(sweep_params[i])->name, required_argument, NULL,
                                       OPT_PARAM + sweep_params[i]};
    const char *dims_list = NULL, *db_path_opt = NULL;
    double time_per = 60;
    search_config base;
    search_config_default(&base);
    base.backend = SEARCH_BACKEND_AUTO;
    base.p.progress_every = 10;
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1)
        threads = 1;
    bool from_db = false, until_record = false, quiet = false, meta = false;
    long rounds = 1, lift_k = 0, meta_reach = 1;
    double lift_walk = 0;
    char err[1024];

    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":qh", longs, NULL)) != -1) {
        if (c >= OPT_PARAM && c < OPT_PARAM + SEARCH_PARAM_COUNT) {
            if (!search_config_set(&base, c - OPT_PARAM, optarg, err, sizeof err))
                return cli_error(CLI_USAGE, CMD, "%s", err);
            continue;
        }
        switch (c) {
        case 'h':
            fputs(usage_text, stdout);
            return CLI_OK;
        case OPT_DIMS_LIST:
            dims_list = optarg;
            break;
        case OPT_TIME_PER:
            if (!cli_parse_duration(optarg, &time_per) || time_per <= 0)
                return cli_error(CLI_USAGE, CMD, "--time-per '%s': expected a duration such as 30s, 5m, 1h",
                                 optarg);
            break;
        case OPT_DB:
            db_path_opt = optarg;
            break;
        case OPT_FROM_DB:
            from_db = true;
            break;
        case OPT_UNTIL_RECORD:
            until_record = true;
            break;
        case OPT_META:
            meta = true;
            break;
        case OPT_LIFT: {
            char *end;
            lift_k = strtol(optarg, &end, 10);
            if (*end || end == optarg || lift_k < 1 || lift_k > 64)
                return cli_error(CLI_USAGE, CMD, "--lift '%s': expected 1..64 (GF(2) schemes a format)", optarg);
            break;
        }
        case OPT_LIFT_WALK:
            if (!search_parse_duration(optarg, &lift_walk) || lift_walk <= 0)
                return cli_error(CLI_USAGE, CMD, "--lift-walk '%s': expected a duration above 0, such as 60s or 5m",
                                 optarg);
            break;
        case OPT_META_REACH:
            if (!cli_parse_long(optarg, 1, 64, &meta_reach))
                return cli_error(CLI_USAGE, CMD, "--meta-reach '%s': expected 1..64 (steps between formats)", optarg);
            break;
        case OPT_ROUNDS: {
            char *end;
            rounds = strtol(optarg, &end, 10);
            if (*end || end == optarg || rounds < 1 || rounds > 1000)
                return cli_error(CLI_USAGE, CMD, "--rounds '%s': expected 1..1000", optarg);
            break;
        }
        case 'q':
            quiet = true;
            break;
        case ':':
            return cli_error(CLI_USAGE, CMD, "option '%s' needs a value", argv[optind - 1]);
        default:
            return cli_error(CLI_USAGE, CMD, "unknown option '%s' (flipgraph sweep --help)",
                             argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, CMD, "unexpected argument '%s' (flipgraph sweep --help)",
                         argv[optind]);
    if (!dims_list)
        return cli_error(CLI_USAGE, CMD, "--dims-list is required, e.g. --dims-list 2x2x2..4x4x4");
    if (from_db && !db_path_opt)
        return cli_error(CLI_USAGE, CMD, "--from-db needs --db PATH");
    if (meta_reach > 1 && !meta)
        return cli_error(CLI_USAGE, CMD, "--meta-reach K: the reach of --meta's projections (give --meta)");
    const scheme_ring ring = (scheme_ring)base.p.ring;
    if (lift_k && (ring != SCHEME_RING_Z || !db_path_opt))
        return cli_error(CLI_USAGE, CMD, "--lift K: lifts the store's GF(2) schemes for a sweep over Z (give "
                         "--ring z and --db PATH)");
    if (lift_walk > 0 && !lift_k)
        return cli_error(CLI_USAGE, CMD, "--lift-walk T: the walk lifts the store's GF(2) schemes (give --lift K, "
                         "--ring z and --db PATH)");
    if (lift_k)
        from_db = true; /* the walk starts from the lowest of them */
    if (!search_symmetry_for_ranges((scheme_symmetry)base.p.symmetry, err, sizeof err))
        return cli_error(CLI_USAGE, CMD, "--symmetry %s: a sweep %s",
                         scheme_symmetry_name((scheme_symmetry)base.p.symmetry), err);
    fmt_list L = {0};
    if (!parse_list(dims_list, &L, err, sizeof err)) {
        free(L.v);
        return cli_error(CLI_USAGE, CMD, "--dims-list: %s", err);
    }

    /* the backend */
    search_backend backend = SEARCH_BACKEND_CPU;
    if (base.backend != SEARCH_BACKEND_CPU) {
        if (cuda_device_count() > base.p.device)
            backend = SEARCH_BACKEND_GPU;
        else if (base.backend == SEARCH_BACKEND_GPU) {
            free(L.v);
            return cli_error(CLI_INTERNAL, CMD, "--backend gpu: %s",
                             cuda_compiled_in() ? "no GPU is visible"
                                                : "this build has no GPU backend (built without CUDA)");
        }
    }
    { /* an option the backend does not use is refused before anything runs */
        search_config probe = base;
        if (!search_config_resolve(&probe, backend, err, sizeof err)) {
            free(L.v);
            return cli_error(CLI_USAGE, CMD, "%s", err);
        }
    }
    if (backend == SEARCH_BACKEND_CPU && !base.given[SEARCH_PARAM_THREADS])
        base.p.threads = (int)threads;
    char device[256];
    if (backend == SEARCH_BACKEND_GPU)
        cuda_device_describe(device, sizeof device);
    else
        snprintf(device, sizeof device, "%d thread%s", base.p.threads, base.p.threads == 1 ? "" : "s");
    uint64_t seed = base.given[SEARCH_PARAM_SEED] ? base.p.seed : cli_random_seed();
    double progress = base.p.progress_every;

    db_status dst;
    search_session *ss = session_open(db_path_opt, &dst, err, sizeof err);
    if (!ss) {
        free(L.v);
        return cli_error(cli_db_exit(dst), CMD, "%s", err);
    }
    db *d = session_store(ss);

    const int nrows = L.n * (int)rounds;
    sweep_row *rows = calloc((size_t)nrows, sizeof *rows);
    if (!rows) {
        session_close(ss);
        free(L.v);
        return cli_error(CLI_INTERNAL, CMD, "out of memory");
    }
    char tb[32];
    if (!quiet) {
        printf("flipgraph sweep: %d format%s", L.n, L.n == 1 ? "" : "s");
        if (L.skipped)
            printf(" (%d beyond the 64-entry limit skipped)", L.skipped);
        printf(", %g s each, %s backend (%s), seed %" PRIu64 "%s%s%s%s", time_per, search_backend_name(backend),
               device, seed, d ? ", database " : "", d ? db_path(d) : "", until_record ? ", until the record" : "",
               meta ? ", meta starts" : "");
        if (rounds > 1)
            printf(", %ld rounds", rounds);
        if (base.p.symmetry != SCHEME_SYM_NONE)
            printf(", square formats %s-symmetric", scheme_symmetry_name((scheme_symmetry)base.p.symmetry));
        if (ring == SCHEME_RING_Z)
            printf(", over Z (|coefficients| <= %d; records: the z column)", base.p.coef_max);
        printf("\n");
        fflush(stdout);
    }

    session_signals_hold(); /* a signal between two formats ends the sweep too */
    int rc = CLI_OK, done = 0;
    const session_sweep_options so = {.ring = ring,
                                      .from_db = from_db,
                                      .meta = meta,
                                      .meta_reach = (int)meta_reach,
                                      .start_coef_max = search_start_coef_max(&base.p),
                                      .strict = backend == SEARCH_BACKEND_GPU};
    db_status sst;
    session_sweep *sw = session_sweep_new(ss, L.v, L.n, &so, &sst, err, sizeof err);
    if (!sw)
        rc = cli_error(sst == DB_OK ? CLI_INTERNAL : cli_db_exit(sst), CMD, "%s", err);
    uint64_t sm = seed;
    for (int k = 0; sw && k < nrows && !session_stop_seen(); k++) {
        const int i = k % L.n;
        sweep_row *row = &rows[k];
        row->fmt = L.v[i];
        row->record = ring == SCHEME_RING_Z ? search_record_rank_z(row->fmt) : search_record_rank(row->fmt);
        row->seed = scheme_splitmix64(&sm);
        row->status = "failed";
        search_config cfg = base;
        cfg.p.fmt = row->fmt;
        const bool square = row->fmt.n == row->fmt.m && row->fmt.m == row->fmt.p;
        if (!square) { /* --symmetry is for the square formats only */
            cfg.p.symmetry = SCHEME_SYM_NONE;
            cfg.given[SEARCH_PARAM_SYMMETRY] = false;
        }
        const bool symmetric = cfg.p.symmetry != SCHEME_SYM_NONE;
        cfg.given[SEARCH_PARAM_DIMS] = true;
        cfg.p.time_limit = time_per;
        cfg.given[SEARCH_PARAM_TIME] = true;
        cfg.p.seed = row->seed;
        cfg.given[SEARCH_PARAM_SEED] = true;
        cfg.p.progress_every = quiet ? 0 : progress;
        cfg.given[SEARCH_PARAM_PROGRESS] = true;
        if (until_record && row->record > 0) {
            cfg.p.target_rank = row->record;
            cfg.given[SEARCH_PARAM_TARGET_RANK] = true;
        }
        if (!search_config_resolve(&cfg, backend, err, sizeof err)) {
            rc = cli_error(CLI_USAGE, CMD, "%s", err);
            break;
        }

        sweep_ctx cx;
        memset(&cx, 0, sizeof cx);
        cx.quiet = quiet;
        scheme_format_str(row->fmt, cx.fmtbuf);
        done = k + 1;

        int lift_best = 0; /* the lowest lifted rank of this format (0: none) */
        if (lift_k) {
            int tried, lifted, best;
            db_status st = session_lift_lowest(ss, row->fmt, (int)lift_k, &tried, &lifted, &best, err, sizeof err);
            if (st != DB_OK) {
                rc = cli_error(cli_db_exit(st), CMD, "%s: --lift: %s", cx.fmtbuf, err);
                break;
            }
            if (!quiet) {
                printf("[%d/%d] %s: %d of the store's %d lowest GF(2) scheme%s lifted to Z", k + 1, nrows, cx.fmtbuf,
                       lifted, tried, tried == 1 ? "" : "s");
                if (best)
                    printf(", the lowest of rank %d", best);
                printf("\n");
            }
            lift_best = best;
            /* the lifts above the Z record: walk the GF(2) schemes at the
             * record and lift their neighbours (session_lift_walk) */
            if (lift_walk > 0 && row->record > 0 && (!lift_best || lift_best > row->record)) {
                int wtried, wbest;
                st = session_lift_walk(ss, row->fmt, (int)lift_k, row->record, lift_walk, row->seed,
                                       session_lift_threads(backend == SEARCH_BACKEND_GPU, base.p.threads), &wtried,
                                       &wbest, err, sizeof err);
                if (st != DB_OK) {
                    rc = cli_error(cli_db_exit(st), CMD, "%s: --lift-walk: %s", cx.fmtbuf, err);
                    break;
                }
                if (!quiet) {
                    printf("[%d/%d] %s: the lifting walk tried %d GF(2) scheme%s at rank <= %d", k + 1, nrows,
                           cx.fmtbuf, wtried, wtried == 1 ? "" : "s", row->record);
                    if (wbest)
                        printf(", one lifted: rank %d over Z", wbest);
                    printf("\n");
                }
                if (wbest && (!lift_best || wbest < lift_best))
                    lift_best = wbest;
            }
        }
        session_sweep_begin begin;
        const db_status bst = session_sweep_start(
            sw, i, symmetric ? (scheme_symmetry)cfg.p.symmetry : SCHEME_SYM_NONE, &begin, err, sizeof err);
        if (bst != DB_OK) {
            rc = cli_error(cli_db_exit(bst), CMD, "%s: --from-db: %s", cx.fmtbuf, err);
            break;
        }
        scheme *start = begin.start;
        snprintf(cx.heading, sizeof cx.heading, "[%d/%d] %s from %s, record %s, seed %" PRIu64, k + 1, nrows,
                 cx.fmtbuf, begin.from, row->record > 0 ? (snprintf(tb, sizeof tb, "%d", row->record), tb) : "unknown",
                 row->seed);
        if (until_record && row->record > 0 && lift_best && lift_best <= row->record) {
            /* a lift reached the record: nothing to walk */
            scheme_free(start);
            row->start = row->best = row->stored = lift_best;
            row->status = session_sweep_outcome_name(lift_best < row->record ? SESSION_SWEEP_BELOW
                                                                             : SESSION_SWEEP_REACHED);
            if (!quiet) {
                printf("      %s: the lift of rank %d reaches the record: %s\n", cx.fmtbuf, lift_best, row->status);
                fflush(stdout);
            }
            continue;
        }
        session_hooks hooks = {.ctx = &cx, .improved = on_improved, .progress = on_progress, .started = on_started};
        session_run run;
        search_result res;
        const scheme *starts[1] = {start};
        search_status ss_st = session_search(ss, &cfg, device, start ? starts : NULL, start ? 1 : 0, &hooks,
                                             &run, &res);
        /* the moved start itself, as search --meta stores its legs' moved
         * starts: a start at the record walks no flip and improves on
         * nothing, and would be lost */
        if (begin.moved) {
            const db_status st = session_store_moved(ss, &run, start, begin.meta_parent, err, sizeof err);
            if (st != DB_OK) {
                rc = cli_error(cli_db_exit(st), CMD, "%s: the meta start (rank %d) was not stored: %s", cx.fmtbuf,
                               start->rank, err);
                scheme_free(start);
                search_result_free(&res);
                break;
            }
        }
        scheme_free(start);
        if (run.begin_failed) {
            rc = cli_error(cli_db_exit(run.begin_status), CMD, "%s: %s", cx.fmtbuf, run.msg);
            search_result_free(&res);
            break;
        }
        row->run_id = run.run_id;
        row->start = res.start_rank;
        row->best = res.best_rank;
        /* a lift below the walk's best counts (it is verified and stored, and
         * valid in every ring, whatever its coefficients: the walk may have
         * started above it when the lift holds a coefficient beyond --coef-max) */
        if (lift_best && (!row->best || lift_best < row->best))
            row->best = lift_best;
        row->seconds = res.seconds;
        row->flips = res.flips;
        if (!session_sweep_keep(sw, i, res.best)) {
            rc = cli_error(CLI_INTERNAL, CMD, "out of memory");
            search_result_free(&res);
            break;
        }
        /* --stall: no lower rank for that long */
        const bool stalled = cfg.p.stall > 0 && res.seconds + 0.05 < time_per;
        const session_sweep_outcome out = session_sweep_outcome_of(ss_st, res.interrupted, row->best, row->record,
                                                                   stalled);
        row->status = session_sweep_outcome_name(out);
        if (out == SESSION_SWEEP_FAILED) {
            cli_error(CLI_INTERNAL, CMD, "%s: %s", cx.fmtbuf, run.store_failed ? run.msg : res.msg);
            rc = CLI_INTERNAL;
        } else if (out == SESSION_SWEEP_INTERRUPTED) {
            rc = CLI_NEGATIVE;
        } else if (until_record && rc == CLI_OK &&
                   (out == SESSION_SWEEP_NONE_LIFTED || (out == SESSION_SWEEP_TIME_UP && row->record > 0))) {
            rc = CLI_NEGATIVE; /* --until-record: a record missed */
        }
        if (run.end_lost) {
            cli_error(CLI_INTERNAL, CMD, "%s: %s", cx.fmtbuf, run.end_msg);
            rc = CLI_INTERNAL;
        }
        if (d) {
            int64_t id;
            int rank;
            if (db_best(d, row->fmt, ring, &id, &rank, err, sizeof err) == DB_OK)
                row->stored = rank;
        }
        if (!quiet) {
            char fl[32];
            printf("      %s: best %d (start %d) in %.1f s, %s flips: %s\n", cx.fmtbuf, row->best,
                   row->start, row->seconds, cli_fmt_si((double)row->flips, fl, sizeof fl), row->status);
            fflush(stdout);
        }
        search_result_free(&res);
        if (rc == CLI_INTERNAL)
            break;
    }
    bool interrupted = session_stop_seen();
    session_signals_release();
    search_clear_stop();

    if (ring == SCHEME_RING_Z)
        printf("\nover Z: record = the z column of data/records.tsv\n");
    print_table(rows, done, d != NULL);
    if (interrupted) {
        printf("interrupted: %d of %d format%s searched\n", done, nrows, nrows == 1 ? "" : "s");
        if (rc == CLI_OK)
            rc = CLI_NEGATIVE;
    }
    fflush(stdout);
    session_close(ss);
    session_sweep_free(sw);
    free(rows);
    free(L.v);
    return rc;
}
