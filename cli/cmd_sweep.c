/* flipgraph sweep: search every format of a range for a fixed time each,
 * then compare with the records (docs/report.md, "sweep").
 *
 *   flipgraph sweep --dims-list 2x2x2..5x5x5 --time-per 5m [--threads N] [--seed S]
 *                   [--db PATH] [--from-db] [--backend cpu|gpu|auto] [--until-record]
 *
 * A range A..B is every format <n,m,p> with n <= m <= p and each dimension
 * between the corners' (the rank is the same for every permutation of n, m,
 * p, so the sorted formats cover the range); a list is comma-separated
 * formats or ranges, searched in the order given.  SIGINT or SIGTERM stops
 * the current format after its batch (search_request_stop), stores what it
 * found and prints the table so far; a second signal ends the process at
 * once (the store is transactional, nothing half-written).
 * Exit: 0 every format searched its time (or reached its record with
 * --until-record); 1 interrupted, or with --until-record a format missed its
 * record; 2 bad usage; 3 a search or the store failed, or no GPU for
 * --backend gpu. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/fg_cuda.h"
#include "../db/db.h"
#include "../search/search.h"
#include "cli.h"

#define CMD "sweep"
/* More formats than any sensible range holds (2x2x2..8x8x8 is 120). */
#define SWEEP_MAX_FORMATS 1000

static const char *usage_text =
    "usage: flipgraph sweep --dims-list LIST [--time-per DUR] [--threads N] [--seed S]\n"
    "                       [--db PATH] [--from-db] [--backend cpu|gpu|auto] [--until-record]\n"
    "                       [--progress DUR] [-q]\n"
    "\n"
    "Searches every format of LIST for DUR each, then prints a table of our best rank\n"
    "against the known record (GF(2)).\n"
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
    db *d;
    int64_t run_id;
    bool quiet;
    bool db_failed;
    char fmtbuf[32];
    /* progress reports come every engine_every seconds (often enough for the
     * run's heartbeat in the store); a line is printed every print_every (0: none) */
    double print_every, engine_every, next_print;
    pthread_mutex_t mu; /* the store: improvements (walker threads) and progress (driver) */
} sweep_ctx;

static bool on_improved(void *ctx, const search_found *f)
{
    sweep_ctx *c = ctx;
    if (!c->quiet) {
        printf("      %s: rank %d after %.1f s\n", c->fmtbuf, f->rank, f->seconds);
        fflush(stdout);
    }
    if (!c->d)
        return true;
    char err[1024];
    db_provenance prov = {c->run_id, 0, "search", f->flips, f->seconds};
    int64_t id = 0;
    bool existed = false;
    pthread_mutex_lock(&c->mu);
    db_status st = db_insert_scheme(c->d, f->s, &prov, &id, &existed, err, sizeof err);
    if (st == DB_OK)
        st = db_run_improvement(c->d, c->run_id, f->seconds, f->rank, err, sizeof err);
    pthread_mutex_unlock(&c->mu);
    if (st != DB_OK) {
        if (existed || id)
            cli_error(CLI_INTERNAL, CMD, "the %s rank-%d scheme found after %.1f s is stored (id "
                      "%" PRId64 "), but not its entry in run %" PRId64 "'s improvement log: %s",
                      c->fmtbuf, f->rank, f->seconds, id, c->run_id, err);
        else
            cli_error(CLI_INTERNAL, CMD, "the %s rank-%d scheme found after %.1f s was NOT "
                      "stored: %s", c->fmtbuf, f->rank, f->seconds, err);
        c->db_failed = true;
        return false;
    }
    return true;
}

static void on_progress(void *ctx, const search_progress *pr)
{
    sweep_ctx *c = ctx;
    if (c->d) { /* the run's progress and heartbeat */
        char err[1024];
        pthread_mutex_lock(&c->mu);
        db_status st = db_run_progress(c->d, c->run_id, pr->flips, pr->best_rank, err, sizeof err);
        pthread_mutex_unlock(&c->mu);
        if (st != DB_OK && !c->quiet)
            fprintf(stderr, "flipgraph sweep: %s: recording progress: %s\n", c->fmtbuf, err);
    }
    if (c->quiet || c->print_every <= 0)
        return;
    if (c->engine_every != c->print_every) {
        if (pr->seconds + 1e-3 < c->next_print)
            return;
        c->next_print = pr->seconds + c->print_every;
    }
    char rec[32] = "?", rate[32];
    if (pr->record > 0)
        snprintf(rec, sizeof rec, "%d", pr->record);
    printf("      %-9s %8.1f s  best %4d  record %4s  %9s flips/s  pool %d x %d  plateau %" PRIu64
           "\n", c->fmtbuf, pr->seconds, pr->best_rank, rec, cli_fmt_si(pr->flips_per_s, rate, sizeof rate), pr->level,
           pr->level_count, pr->plateau);
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

enum {
    OPT_DIMS_LIST = 1000, OPT_TIME_PER, OPT_THREADS, OPT_SEED, OPT_DB, OPT_FROM_DB, OPT_BACKEND,
    OPT_UNTIL_RECORD, OPT_PROGRESS
};

int cmd_sweep(int argc, char **argv)
{
    static const struct option longs[] = {
        {"dims-list", required_argument, NULL, OPT_DIMS_LIST},
        {"time-per", required_argument, NULL, OPT_TIME_PER},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"seed", required_argument, NULL, OPT_SEED},
        {"db", required_argument, NULL, OPT_DB},
        {"from-db", no_argument, NULL, OPT_FROM_DB},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"until-record", no_argument, NULL, OPT_UNTIL_RECORD},
        {"progress", required_argument, NULL, OPT_PROGRESS},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *dims_list = NULL, *db_path_opt = NULL, *backend = "auto";
    double time_per = 60, progress = 10;
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1)
        threads = 1;
    uint64_t seed = 0;
    bool has_seed = false, from_db = false, until_record = false, quiet = false;
    char err[1024];

    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":qh", longs, NULL)) != -1) {
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
        case OPT_PROGRESS:
            if (!cli_parse_duration(optarg, &progress))
                return cli_error(CLI_USAGE, CMD, "--progress '%s': expected a duration such as 10s (0: none)",
                                 optarg);
            break;
        case OPT_THREADS:
            if (!cli_parse_long(optarg, 1, 1024, &threads))
                return cli_error(CLI_USAGE, CMD, "--threads '%s': expected 1..1024", optarg);
            break;
        case OPT_SEED: {
            char *end;
            errno = 0;
            seed = strtoull(optarg, &end, 0);
            if (end == optarg || *end || errno || optarg[0] == '-')
                return cli_error(CLI_USAGE, CMD, "--seed '%s': expected a non-negative integer", optarg);
            has_seed = true;
            break;
        }
        case OPT_DB:
            db_path_opt = optarg;
            break;
        case OPT_FROM_DB:
            from_db = true;
            break;
        case OPT_BACKEND:
            if (strcmp(optarg, "cpu") && strcmp(optarg, "gpu") && strcmp(optarg, "auto"))
                return cli_error(CLI_USAGE, CMD, "--backend '%s': expected cpu, gpu or auto", optarg);
            backend = optarg;
            break;
        case OPT_UNTIL_RECORD:
            until_record = true;
            break;
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
    fmt_list L = {0};
    if (!parse_list(dims_list, &L, err, sizeof err)) {
        free(L.v);
        return cli_error(CLI_USAGE, CMD, "--dims-list: %s", err);
    }

    /* the backend */
    char device[256];
    bool gpu = false;
    if (!strcmp(backend, "gpu") || !strcmp(backend, "auto")) {
        char desc[200] = "";
        int ngpu = cuda_device_count();
        if (ngpu > 0)
            cuda_device_describe(desc, sizeof desc);
        if (ngpu > 0) {
            gpu = true;
            snprintf(device, sizeof device, "%s", desc);
        } else if (!strcmp(backend, "gpu")) {
            free(L.v);
            return cli_error(CLI_INTERNAL, CMD, "--backend gpu: %s",
                             cuda_compiled_in() ? "no GPU is visible"
                                                : "this build has no GPU backend (built without CUDA)");
        }
    }
    if (!gpu)
        snprintf(device, sizeof device, "%ld thread%s", threads, threads == 1 ? "" : "s");
    search_run_fn run_fn = gpu ? search_run_gpu : search_run_cpu;
    if (!has_seed)
        seed = cli_random_seed();

    db *d = NULL;
    if (db_path_opt) {
        db_status st;
        d = db_open(db_path_opt, true, &st, err, sizeof err);
        if (!d) {
            free(L.v);
            return cli_error(cli_db_exit(st), CMD, "%s", err);
        }
    }

    sweep_row *rows = calloc((size_t)L.n, sizeof *rows);
    if (!rows) {
        db_close(d);
        free(L.v);
        return cli_error(CLI_INTERNAL, CMD, "out of memory");
    }
    char tb[32];
    if (!quiet) {
        printf("flipgraph sweep: %d format%s", L.n, L.n == 1 ? "" : "s");
        if (L.skipped)
            printf(" (%d beyond the 64-entry limit skipped)", L.skipped);
        printf(", %g s each, %s backend (%s), seed %" PRIu64 "%s%s%s\n", time_per,
               gpu ? "gpu" : "cpu", device, seed, d ? ", database " : "", d ? db_path(d) : "",
               until_record ? ", until the record" : "");
        fflush(stdout);
    }

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cli_stop_signal_handler;
    cli_stop_signal_reset();
    sigemptyset(&sa.sa_mask);
    search_clear_stop();
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    int rc = CLI_OK, done = 0;
    uint64_t sm = seed;
    for (int i = 0; i < L.n && !cli_stop_signal_seen(); i++) {
        sweep_row *row = &rows[i];
        row->fmt = L.v[i];
        row->record = search_record_rank(row->fmt);
        row->seed = scheme_splitmix64(&sm);
        row->status = "failed";
        search_params p;
        search_params_default(&p);
        p.fmt = row->fmt;
        p.time_limit = time_per;
        p.threads = (int)threads;
        p.seed = row->seed;
        p.progress_every = quiet ? 0 : progress;
        if (until_record && row->record > 0)
            p.target_rank = row->record;

        sweep_ctx cx;
        memset(&cx, 0, sizeof cx);
        pthread_mutex_init(&cx.mu, NULL);
        cx.d = d;
        cx.quiet = quiet;
        search_params run_p = p; /* p is stored; the engine reports often enough for the heartbeat */
        if (d && (run_p.progress_every <= 0 || run_p.progress_every > DB_RUN_HEARTBEAT_SECONDS))
            run_p.progress_every = DB_RUN_HEARTBEAT_SECONDS;
        cx.print_every = p.progress_every;
        cx.engine_every = run_p.progress_every;
        cx.next_print = p.progress_every;
        scheme_format_str(row->fmt, cx.fmtbuf);
        done = i + 1;

        scheme *start = NULL;
        const char *from = "the standard algorithm";
        if (from_db) {
            int64_t id;
            int rank;
            db_status st = db_best(d, row->fmt, SCHEME_RING_F2, &id, &rank, err, sizeof err);
            if (st == DB_OK) {
                start = db_load_scheme(d, id, &st, err, sizeof err);
                from = "the database's best";
            }
            if (st != DB_OK && st != DB_NOT_FOUND) {
                rc = cli_error(cli_db_exit(st), CMD, "%s: --from-db: %s", cx.fmtbuf, err);
                scheme_free(start);
                break;
            }
        }
        if (d) {
            char *text = search_params_to_text(&p);
            db_run_info info = {row->fmt, text ? text : "", row->seed, gpu ? "gpu" : "cpu", device, NULL};
            db_status st = db_run_begin(d, &info, &cx.run_id, err, sizeof err);
            free(text);
            if (st != DB_OK) {
                rc = cli_error(cli_db_exit(st), CMD, "%s: recording the run: %s", cx.fmtbuf, err);
                scheme_free(start);
                break;
            }
            row->run_id = cx.run_id;
        }
        if (!quiet) {
            printf("[%d/%d] %s from %s, record %s, seed %" PRIu64, i + 1, L.n, cx.fmtbuf, from,
                   row->record > 0 ? (snprintf(tb, sizeof tb, "%d", row->record), tb) : "unknown",
                   row->seed);
            if (cx.run_id)
                printf(", run %" PRId64, cx.run_id);
            printf("\n");
            fflush(stdout);
        }
        search_callbacks cb = {&cx, on_improved, on_progress};
        search_result res;
        const scheme *starts[1] = {start};
        search_status ss = run_fn(&run_p, start ? starts : NULL, start ? 1 : 0, &cb, &res);
        scheme_free(start);
        row->start = res.start_rank;
        row->best = res.best_rank;
        row->seconds = res.seconds;
        row->flips = res.flips;
        const char *run_status = "finished";
        if (ss == SEARCH_BAD_PARAMS || ss == SEARCH_FAILED || cx.db_failed) {
            run_status = "failed";
            row->status = "failed";
            if (!cx.db_failed)
                cli_error(CLI_INTERNAL, CMD, "%s: %s", cx.fmtbuf, res.msg);
            rc = CLI_INTERNAL;
        } else if (res.interrupted) {
            run_status = "interrupted";
            row->status = "interrupted";
            rc = CLI_NEGATIVE;
        } else if (row->record > 0 && row->best < row->record) {
            row->status = "BELOW THE RECORD";
        } else if (row->record > 0 && row->best == row->record) {
            row->status = "record reached";
        } else {
            row->status = "time up";
            if (until_record && row->record > 0 && rc == CLI_OK)
                rc = CLI_NEGATIVE;
        }
        if (d) {
            db_status st = db_run_end(d, cx.run_id, run_status, res.flips, res.best_rank, err,
                                      sizeof err);
            if (st != DB_OK) {
                cli_error(CLI_INTERNAL, CMD, "%s: the end of run %" PRId64 " (%s, best rank %d) was "
                          "NOT stored; the store keeps it marked running: %s", cx.fmtbuf, cx.run_id,
                          run_status, res.best_rank, err);
                rc = CLI_INTERNAL;
            }
            int64_t id;
            int rank;
            if (db_best(d, row->fmt, SCHEME_RING_F2, &id, &rank, err, sizeof err) == DB_OK)
                row->stored = rank;
        }
        if (!quiet) {
            char fl[32];
            printf("      %s: best %d (start %d) in %.1f s, %s flips: %s\n", cx.fmtbuf, row->best,
                   row->start, row->seconds, cli_fmt_si((double)row->flips, fl, sizeof fl), row->status);
            fflush(stdout);
        }
        search_result_free(&res);
        pthread_mutex_destroy(&cx.mu);
        if (rc == CLI_INTERNAL)
            break;
    }
    bool interrupted = cli_stop_signal_seen();
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    search_clear_stop();

    print_table(rows, done, d != NULL);
    if (interrupted) {
        printf("interrupted: %d of %d format%s searched\n", done, L.n, L.n == 1 ? "" : "s");
        if (rc == CLI_OK)
            rc = CLI_NEGATIVE;
    }
    fflush(stdout);
    db_close(d);
    free(rows);
    free(L.v);
    return rc;
}
