/* flipgraph search: random walks on the flip graph to lower a format's rank
 * (search/search.h; docs/search.md).  Every improvement was verified by the
 * engine before it reaches us; we write it to --out and/or store it in --db. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../cuda/fg_cuda.h"
#include "../db/db.h"
#include "../search/search.h"
#include "../search/walk_gpu.h"
#include "cli.h"

#define CMD "search"
#define MAX_FROM 64

static void usage(FILE *out)
{
    search_params d;
    search_params_default(&d);
    fprintf(out,
"usage: flipgraph search --dims NxMxP [OPTIONS]\n"
"\n"
"Random walks on the flip graph of <n,m,p> over GF(2): random flips, every\n"
"reduction at once, plus transitions after a plateau, restarts from a pool of\n"
"the best schemes.  Every improvement is verified before it is kept.\n"
"\n"
"  --dims NxMxP        the format (may be omitted with --from or --resume)\n"
"  --target-rank R     stop when a scheme of rank <= R is found (default: none)\n"
"  --until-record      stop at the format's known GF(2) record (records.tsv, built in;\n"
"                      exit 2 for a format without one); with --target-rank the higher\n"
"                      of the two ranks (the earlier stop) wins\n"
"  --time T            stop after T (30s, 10m, 8h, 1h30m; default: none with a target\n"
"                      (--target-rank, --until-record) or --max-flips, else 60s)\n"
"  --max-flips N       stop after N flips in all (default: none)\n"
"  --backend B         cpu, gpu or auto (gpu when one is visible; default cpu)\n"
"  --device N          GPU index (default 0)\n"
"  --threads N         CPU walkers, one per thread (default 1)\n"
"  --seed S            seed of every walker (default: from /dev/urandom, printed);\n"
"                      with --threads 1 a seed replays the search exactly\n"
"  --from FILE         start from this scheme (any format the readers know; repeatable)\n"
"  --out DIR           write every improvement to DIR/NxMxP-RANK-HASH.txt (native format)\n"
"  --db PATH           store every improvement and the run in this database\n"
"  --from-db           start from the best scheme of the format in the database\n"
"  --resume RUN        run again with the parameters stored for run RUN, from the best stored scheme\n"
"  -q, --quiet         no banner, no progress table (the summary line on stdout stays)\n"
"  -v, --verbose       also a line for every improvement (and, on the GPU, per launch)\n"
"\n"
"walk parameters (docs/search.md says how each default was measured):\n"
"  --plateau L         flips without a rank drop before a plus transition (default %" PRIu64 ")\n"
"  --plateau-min L     the adaptive plateau's lower bound (default %" PRIu64 "; a --plateau\n"
"                      below it without --plateau-min lowers it to the plateau)\n"
"  --plateau-max L     ... and upper bound (default %" PRIu64 ")\n"
"  --plus-max K        plus transitions only while rank < base rank + K; 0: none (default %d;\n"
"                      the GPU backend has its own defaults for --plateau, --plus-max,\n"
"                      --pool-min and --walk-len, docs/gpu-walk.md; giving any of them\n"
"                      runs exactly what was given)\n"
"  --walk-len N        unit walk: the k-th walk of a walker lasts N * luby(k) flips\n"
"                      without a lower rank, then it restarts from the pool (default %" PRIu64 ")\n"
"  --walk-max N        cap on one walk (default %" PRIu64 ")\n"
"  --gen-max S         largest set of terms sharing a factor checked for dependent\n"
"                      factors (general reductions); 2: pairs only (default %d)\n"
"  --isolated-plus B   at a flip-isolated scheme (no two terms share a factor), 1: take a\n"
"                      plus transition and walk on; 0: restart from the pool (default %d;\n"
"                      CPU engine; docs/search.md, \"The isolated trap\")\n"
"  --pool-size N       schemes kept per rank (default %d)\n"
"  --pool-min N        schemes of rank r needed before walkers start from rank r (default %d)\n"
"  --pool-up P         probability that a restart climbs one rank above that level,\n"
"                      repeatedly (default %g)\n"
"  --pool-fresh P      probability that a restart starts over from the start schemes (default %g)\n"
"  --progress SECONDS  interval of progress rows; 0: none (default %g)\n"
"  --batch N           flips per walker between checks of time and signals (default %" PRIu64 ")\n"
"\n"
"GPU backend only: --warps N, --rounds K, --launch-ms MS (each walker walks MS of its\n"
"own clock per launch; default 100), --devices LIST (0,1: one walker set per GPU, one\n"
"pool; docs/gpu-walk.md)\n"
"\n"
"output (stderr, docs/search.md \"Progress output\"): a banner (build, commit, device,\n"
"format and record, start rank, seed, every parameter), then every --progress seconds a\n"
"row of an aligned table, its header repeated every %d rows: elapsed, flips/s, flips,\n"
"best rank, record, gap (best - record), walkers and the min/median/max of their current\n"
"ranks, plateau (time since the best improved), schemes stored by this run, the pool level\n"
"and its size.  The summary line goes to stdout.\n"
"\n"
"SIGINT or SIGTERM: the walkers finish their batch, the run is stored and its summary\n"
"printed (exit 0 without a target, else 1); a second signal ends the process at once\n"
"(the store stays whole).\n\n"
"exit: 0 target reached (or no target and the time ran out), 1 time ran out before\n"
"the target, 2 bad usage or input, 3 internal failure (a scheme that fails\n"
"verification is a bug: reported, never kept)\n",
            d.plateau, d.plateau_min, d.plateau_max, d.plus_max, d.walk_len, d.walk_max, d.gen_max,
            d.isolated_plus, d.pool_size, d.pool_min, d.pool_up, d.pool_fresh, d.progress_every, d.batch,
            CLI_PROGRESS_HEADER_EVERY);
}

typedef struct ctx {
    const char *out_dir;
    db *db;
    int64_t run_id;
    bool verbose, quiet;
    pthread_mutex_t mu; /* the database handle: improvements and progress come from different threads */
    _Atomic uint64_t stored; /* schemes this run wrote: new database rows, else files in --out */
    int rows;                /* progress rows printed: the header comes again every 20 */
    const char *db_path;
    /* Progress reports come every engine interval; a row is printed every
     * print_every seconds (0: never).  They differ when the store needs a
     * heartbeat more often than rows are asked for (DB_RUN_HEARTBEAT_SECONDS). */
    double print_every, engine_every, next_print;
    _Atomic int unstored;    /* improvements the store refused (the run then stops) */
} ctx;

/* The stored column: "-" (UINT64_MAX) when the run stores nothing. */
static uint64_t stored_cell(ctx *c)
{
    return c->db || c->out_dir ? atomic_load(&c->stored) : UINT64_MAX;
}

static bool write_native(void *c, FILE *f) { return scheme_write_native(c, f); }

static bool on_improved(void *p, const search_found *f)
{
    ctx *c = p;
    char path[4096] = "";
    if (c->out_dir) {
        scheme *s = scheme_clone(f->s);
        if (!s) {
            fprintf(stderr, "flipgraph search: out of memory\n");
            return false;
        }
        char hx[17];
        scheme_hash_hex(scheme_hash(s), hx);
        snprintf(path, sizeof path, "%s/%dx%dx%d-%d-%s.txt", c->out_dir, s->fmt.n, s->fmt.m,
                 s->fmt.p, s->rank, hx);
        char err[512];
        bool ok = scheme_write_file_atomic(path, write_native, s, err, sizeof err);
        scheme_free(s);
        if (!ok) {
            fprintf(stderr, "flipgraph search: %s\n", err);
            return false;
        }
    }
    bool wrote = c->out_dir != NULL;
    if (c->db) {
        char err[512];
        int64_t id = 0;
        bool existed = false;
        db_provenance prov = {c->run_id, 0, "search", f->flips, f->seconds};
        pthread_mutex_lock(&c->mu);
        db_status st = db_insert_scheme(c->db, f->s, &prov, &id, &existed, err, sizeof err);
        bool scheme_in = st == DB_OK;
        if (st == DB_OK)
            st = db_run_improvement(c->db, c->run_id, f->seconds, f->rank, err, sizeof err);
        pthread_mutex_unlock(&c->mu);
        if (st != DB_OK) {
            char fb[32];
            atomic_fetch_add(&c->unstored, 1);
            if (scheme_in)
                fprintf(stderr, "flipgraph search: the %s rank-%d scheme found after %.1f s is "
                        "stored (id %" PRId64 "), but not its entry in run %" PRId64 "'s "
                        "improvement log: %s\n", scheme_format_str(f->s->fmt, fb), f->rank,
                        f->seconds, id, c->run_id, err);
            else
                fprintf(stderr, "flipgraph search: the %s rank-%d scheme found after %.1f s was "
                        "NOT stored: %s\n", scheme_format_str(f->s->fmt, fb), f->rank, f->seconds,
                        err);
            return false;
        }
        wrote = !existed; /* already stored by an earlier run: not this run's */
    }
    if (wrote)
        atomic_fetch_add(&c->stored, 1);
    if (c->verbose && !c->quiet) {
        char text[4400], line[4500], fl[32];
        snprintf(text, sizeof text, "improved: rank %d (walker %d, %s flips)%s%s", f->rank, f->walker,
                 cli_fmt_si_cell((double)f->flips, fl, sizeof fl), path[0] ? " -> " : "", path);
        fprintf(stderr, "%s\n", cli_progress_event(line, sizeof line, f->seconds, text));
    }
    return true;
}

static void on_progress(void *p, const search_progress *pr)
{
    ctx *c = p;
    if (c->db) { /* the run's progress and heartbeat */
        char err[512];
        pthread_mutex_lock(&c->mu);
        if (db_run_progress(c->db, c->run_id, pr->flips, pr->best_rank, err, sizeof err) != DB_OK &&
            !c->quiet)
            fprintf(stderr, "flipgraph search: database (progress): %s\n", err);
        pthread_mutex_unlock(&c->mu);
    }
    if (c->quiet || c->print_every <= 0)
        return;
    if (c->engine_every != c->print_every) {
        if (pr->seconds + 1e-3 < c->next_print)
            return;
        c->next_print = pr->seconds + c->print_every;
    }
    char line[512];
    /* one fprintf per line: improvement lines from walker threads never split a row */
    if (c->rows % CLI_PROGRESS_HEADER_EVERY == 0)
        fprintf(stderr, "%s\n", cli_progress_header(line, sizeof line));
    c->rows++;
    fprintf(stderr, "%s\n", cli_progress_row(line, sizeof line, pr, stored_cell(c)));
    if (c->verbose)
        fprintf(stderr, "%*s  plus %" PRIu64 ", restarts %" PRIu64 ", reductions %" PRIu64
                        ", walker 0's plateau length L %" PRIu64 "\n",
                9, "", pr->plus, pr->restarts, pr->reductions, pr->plateau);
}

/* ---- the banner: what runs, with what, from where (docs/search.md) ---- */

typedef struct banner_info {
    const search_params *p;
    const search_gpu_options *g;
    bool gpu;
    const scheme *const *starts;
    int nstarts;
    const char *from;        /* where the start schemes came from, in words */
    bool until_record;
    int explicit_target;     /* --target-rank as given (0: none) */
} banner_info;

/* The GPU's own defaults replace some of the parameters the run record keeps
 * (search_gpu_params): say which, with the values that run. */
static void gpu_overrides(const search_params *p, const search_gpu_options *g)
{
    search_params q;
    search_gpu_params(p, g, &q);
    char line[256] = "";
    int k = 0;
    if (q.plateau != p->plateau)
        k += snprintf(line + k, sizeof line - (size_t)k, " plateau=%" PRIu64 " (steps)", q.plateau);
    if (q.plateau_min != p->plateau_min)
        k += snprintf(line + k, sizeof line - (size_t)k, " plateau-min=%" PRIu64, q.plateau_min);
    if (q.plus_max != p->plus_max)
        k += snprintf(line + k, sizeof line - (size_t)k, " plus-max=%d", q.plus_max);
    if (q.pool_min != p->pool_min)
        k += snprintf(line + k, sizeof line - (size_t)k, " pool-min=%d", q.pool_min);
    if (q.walk_len != p->walk_len)
        k += snprintf(line + k, sizeof line - (size_t)k, " walk-len=%" PRIu64, q.walk_len);
    if (k)
        fprintf(stderr, "the GPU runs its own defaults in their place:%s\n", line);
}

static void banner(const banner_info *b)
{
    const search_params *p = b->p;
    char buf[512], fb[32], t[32];
    fprintf(stderr, "%s\n", cli_build_info(buf, sizeof buf));

    int rec = search_record_rank(p->fmt), recz = search_record_rank_z(p->fmt);
    int start = p->fmt.n * p->fmt.m * p->fmt.p;
    for (int i = 0; i < b->nstarts; i++)
        if (!i || b->starts[i]->rank < start)
            start = b->starts[i]->rank;
    char rs[64] = "no known record", rz[32] = "";
    if (rec > 0)
        snprintf(rs, sizeof rs, "record %d%s", rec,
                 search_record_uncertain(p->fmt, SCHEME_RING_F2) ? "?" : "");
    if (recz > 0)
        snprintf(rz, sizeof rz, " (over Z %d%s)", recz, search_record_uncertain(p->fmt, SCHEME_RING_Z) ? "?" : "");
    fprintf(stderr, "search %s over GF(2): %s%s; start rank %d (%s%s); seed %" PRIu64 "\n",
            scheme_format_str(p->fmt, fb), rs, rz, start, b->from,
            b->nstarts > 1 ? (snprintf(t, sizeof t, ", %d schemes", b->nstarts), t) : "", p->seed);

    /* when it stops */
    char stop[256];
    int at = snprintf(stop, sizeof stop, "stop:");
    if (p->target_rank > 0) {
        const char *why = "";
        if (b->until_record)
            why = b->explicit_target > rec ? " (--target-rank, above the record)" : " (the record)";
        at += snprintf(stop + at, sizeof stop - (size_t)at, " at rank <= %d%s,", p->target_rank, why);
    }
    if (p->time_limit > 0)
        at += snprintf(stop + at, sizeof stop - (size_t)at, " after %s,",
                       p->time_limit < 60 ? (snprintf(t, sizeof t, "%gs", p->time_limit), t)
                                          : cli_fmt_hms(p->time_limit, t, sizeof t));
    if (p->max_flips)
        at += snprintf(stop + at, sizeof stop - (size_t)at, " after %s flips,",
                       cli_fmt_si_cell((double)p->max_flips, t, sizeof t));
    snprintf(stop + at, sizeof stop - (size_t)at, " on SIGINT/SIGTERM");
    fprintf(stderr, "%s\n", stop);

    /* where it runs */
    if (b->gpu) {
        char dev[256] = "";
        int visible = cuda_device_describe(dev, sizeof dev);
        char list[128] = "";
        int n = b->g->ndevices ? b->g->ndevices : 1;
        for (int i = 0, k = 0; i < n; i++)
            k += snprintf(list + k, sizeof list - (size_t)k, "%s%d", i ? "," : "",
                          b->g->ndevices ? b->g->devices[i] : p->device);
        fprintf(stderr, "backend gpu: device%s %s of %d visible (device 0: %s)\n", n > 1 ? "s" : "", list,
                visible, visible > 0 ? dev : "none");
        fprintf(stderr, "gpu: warps %d%s, rounds %d, launch %g ms (%s)\n", b->g->warps,
                b->g->warps ? "" : " (as many as run at once)", b->g->rounds, b->g->launch_ms,
                b->g->steps ? "fixed steps" : b->g->timed ? "each walker's clock" : "adaptive steps");
    } else {
        fprintf(stderr, "backend cpu: %d CPU thread%s (one walker each)\n", p->threads,
                p->threads == 1 ? "" : "s");
    }

    /* every parameter, as the run record stores them (--resume reads them back) */
    char *text = search_params_to_text(p);
    char *grid = text ? cli_kv_columns(text, 4, "  ") : NULL;
    if (grid)
        fprintf(stderr, "parameters:\n%s", grid);
    free(grid);
    free(text);
    if (b->gpu)
        gpu_overrides(p, b->g);
}

static uint64_t random_seed(void)
{
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        if (fread(&s, sizeof s, 1, f) != 1)
            s = 0;
        fclose(f);
    }
    if (!s) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t t = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^ (uint64_t)getpid();
        s = scheme_splitmix64(&t);
    }
    return s >> 1 ? s >> 1 : 1; /* fits a signed 64-bit database column */
}

enum {
    O_DIMS = 256, O_TARGET, O_TIME, O_MAXFLIPS, O_BACKEND, O_DEVICE, O_THREADS, O_SEED, O_FROM,
    O_OUT, O_DB, O_FROMDB, O_RESUME, O_PLATEAU, O_PLATEAU_MIN, O_PLATEAU_MAX, O_PLUS_MAX,
    O_WALK_LEN, O_WALK_MAX, O_GEN_MAX, O_ISOLATED_PLUS, O_POOL_SIZE, O_POOL_MIN, O_POOL_UP, O_POOL_FRESH, O_PROGRESS,
    O_BATCH,
    O_WARPS, O_ROUNDS, O_LAUNCH_MS, O_DEVICES, O_UNTIL_RECORD, O_HELP
};

static const struct option longopts[] = {
    {"dims", required_argument, 0, O_DIMS},
    {"target-rank", required_argument, 0, O_TARGET},
    {"until-record", no_argument, 0, O_UNTIL_RECORD},
    {"time", required_argument, 0, O_TIME},
    {"max-flips", required_argument, 0, O_MAXFLIPS},
    {"backend", required_argument, 0, O_BACKEND},
    {"device", required_argument, 0, O_DEVICE},
    {"devices", required_argument, 0, O_DEVICES},
    {"threads", required_argument, 0, O_THREADS},
    {"seed", required_argument, 0, O_SEED},
    {"from", required_argument, 0, O_FROM},
    {"out", required_argument, 0, O_OUT},
    {"db", required_argument, 0, O_DB},
    {"from-db", no_argument, 0, O_FROMDB},
    {"resume", required_argument, 0, O_RESUME},
    {"plateau", required_argument, 0, O_PLATEAU},
    {"plateau-min", required_argument, 0, O_PLATEAU_MIN},
    {"plateau-max", required_argument, 0, O_PLATEAU_MAX},
    {"plus-max", required_argument, 0, O_PLUS_MAX},
    {"walk-len", required_argument, 0, O_WALK_LEN},
    {"walk-max", required_argument, 0, O_WALK_MAX},
    {"gen-max", required_argument, 0, O_GEN_MAX},
    {"isolated-plus", required_argument, 0, O_ISOLATED_PLUS},
    {"pool-size", required_argument, 0, O_POOL_SIZE},
    {"pool-min", required_argument, 0, O_POOL_MIN},
    {"pool-up", required_argument, 0, O_POOL_UP},
    {"pool-fresh", required_argument, 0, O_POOL_FRESH},
    {"progress", required_argument, 0, O_PROGRESS},
    {"batch", required_argument, 0, O_BATCH},
    {"warps", required_argument, 0, O_WARPS},
    {"rounds", required_argument, 0, O_ROUNDS},
    {"launch-ms", required_argument, 0, O_LAUNCH_MS},
    {"quiet", no_argument, 0, 'q'},
    {"verbose", no_argument, 0, 'v'},
    {"help", no_argument, 0, O_HELP},
    {0, 0, 0, 0},
};

/* The long name of option value c (messages). */
static const char *opt_name(int c)
{
    for (const struct option *o = longopts; o->name; o++)
        if (o->val == c)
            return o->name;
    return "?";
}

int cli_until_record_target(scheme_format f, int target_rank)
{
    int record = search_record_rank(f);
    if (record <= 0)
        return -1;
    return target_rank > record ? target_rank : record;
}

static bool parse_u64(const char *s, uint64_t lo, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-')
        return false;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end || errno || v < lo)
        return false;
    *out = v;
    return true;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno)
        return false;
    *out = v;
    return true;
}

int cmd_search(int argc, char **argv)
{
    search_params p;
    search_params_default(&p);
    search_gpu_options gopt;
    search_gpu_options_default(&gopt);
    const char *from[MAX_FROM];
    int nfrom = 0;
    const char *out_dir = NULL, *db_path = NULL, *backend = "cpu";
    bool have_dims = false, have_seed = false, have_time = false, from_db = false;
    bool quiet = false, verbose = false, until_record = false;
    int64_t resume = 0;
    /* options given on the command line override a resumed run's parameters */
    search_params cli_set;
    memset(&cli_set, 0, sizeof cli_set);
    bool set[O_HELP + 1];
    memset(set, 0, sizeof set);

    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":qvh", longopts, NULL)) != -1) {
        long l;
        uint64_t u;
        double x;
        if (c >= 0 && c <= O_HELP)
            set[c] = true;
        switch (c) {
        case O_DIMS: {
            char err[256];
            if (!scheme_format_parse(optarg, &p.fmt, err, sizeof err))
                return cli_error(CLI_USAGE, CMD, "--dims %s: %s", optarg, err);
            have_dims = true;
            break;
        }
        case O_TARGET:
            if (!cli_parse_long(optarg, 1, SCHEME_MAX_RANK, &l))
                return cli_error(CLI_USAGE, CMD, "--target-rank %s: expected 1..%d", optarg,
                                 SCHEME_MAX_RANK);
            p.target_rank = (int)l;
            break;
        case O_UNTIL_RECORD: until_record = true; break;
        case O_TIME:
            if (!cli_parse_duration(optarg, &p.time_limit) || p.time_limit <= 0)
                return cli_error(CLI_USAGE, CMD, "--time %s: expected a duration such as 30s, 10m, 8h",
                                 optarg);
            have_time = true;
            break;
        case O_MAXFLIPS:
            if (!parse_u64(optarg, 1, &p.max_flips))
                return cli_error(CLI_USAGE, CMD, "--max-flips %s: expected a positive integer", optarg);
            break;
        case O_BACKEND:
            if (strcmp(optarg, "cpu") && strcmp(optarg, "gpu") && strcmp(optarg, "auto"))
                return cli_error(CLI_USAGE, CMD, "--backend %s: expected cpu, gpu or auto", optarg);
            backend = optarg;
            break;
        case O_DEVICE:
            if (!cli_parse_long(optarg, 0, 255, &l))
                return cli_error(CLI_USAGE, CMD, "--device %s: expected 0..255", optarg);
            p.device = (int)l;
            break;
        case O_DEVICES: {
            /* "0,1": one walker set per GPU; a GPU may appear twice */
            gopt.ndevices = 0;
            const char *q = optarg;
            for (;;) {
                char *end;
                errno = 0;
                long v = strtol(q, &end, 10);
                if (end == q || errno || v < 0 || v > 255 || (*end && *end != ',') ||
                    gopt.ndevices == SEARCH_GPU_MAX_DEVICES)
                    return cli_error(CLI_USAGE, CMD,
                                     "--devices %s: expected a comma-separated list of at most %d "
                                     "GPU indices 0..255",
                                     optarg, SEARCH_GPU_MAX_DEVICES);
                gopt.devices[gopt.ndevices++] = (int)v;
                if (!*end)
                    break;
                q = end + 1;
            }
            p.device = gopt.devices[0];
            break;
        }
        case O_THREADS:
            if (!cli_parse_long(optarg, 1, 1024, &l))
                return cli_error(CLI_USAGE, CMD, "--threads %s: expected 1..1024", optarg);
            p.threads = (int)l;
            break;
        case O_SEED:
            if (!parse_u64(optarg, 0, &p.seed))
                return cli_error(CLI_USAGE, CMD, "--seed %s: expected a non-negative integer", optarg);
            have_seed = true;
            break;
        case O_FROM:
            if (nfrom == MAX_FROM)
                return cli_error(CLI_USAGE, CMD, "at most %d --from files", MAX_FROM);
            from[nfrom++] = optarg;
            break;
        case O_OUT: out_dir = optarg; break;
        case O_DB: db_path = optarg; break;
        case O_FROMDB: from_db = true; break;
        case O_RESUME:
            if (!cli_parse_long(optarg, 1, 0x7fffffffffffffffL, &l))
                return cli_error(CLI_USAGE, CMD, "--resume %s: expected a run id", optarg);
            resume = l;
            break;
        case O_PLATEAU:
        case O_PLATEAU_MIN:
        case O_PLATEAU_MAX:
        case O_WALK_LEN:
        case O_WALK_MAX:
        case O_BATCH:
            if (!parse_u64(optarg, 1, &u))
                return cli_error(CLI_USAGE, CMD, "--%s %s: expected a positive integer",
                                 opt_name(c), optarg);
            if (c == O_PLATEAU) p.plateau = u;
            if (c == O_PLATEAU_MIN) p.plateau_min = u;
            if (c == O_PLATEAU_MAX) p.plateau_max = u;
            if (c == O_WALK_LEN) p.walk_len = u;
            if (c == O_WALK_MAX) p.walk_max = u;
            if (c == O_BATCH) p.batch = u;
            break;
        case O_PLUS_MAX:
            if (!cli_parse_long(optarg, 0, 64, &l))
                return cli_error(CLI_USAGE, CMD, "--plus-max %s: expected 0..64", optarg);
            p.plus_max = (int)l;
            break;
        case O_GEN_MAX:
            if (!cli_parse_long(optarg, 2, 32, &l))
                return cli_error(CLI_USAGE, CMD, "--gen-max %s: expected 2..32", optarg);
            p.gen_max = (int)l;
            break;
        case O_ISOLATED_PLUS:
            if (!cli_parse_long(optarg, 0, 1, &l))
                return cli_error(CLI_USAGE, CMD, "--isolated-plus %s: expected 0 or 1", optarg);
            p.isolated_plus = (int)l;
            break;
        case O_POOL_SIZE:
            if (!cli_parse_long(optarg, 1, 1000000, &l))
                return cli_error(CLI_USAGE, CMD, "--pool-size %s: expected 1..1000000", optarg);
            p.pool_size = (int)l;
            break;
        case O_POOL_MIN:
            if (!cli_parse_long(optarg, 1, 1000000, &l))
                return cli_error(CLI_USAGE, CMD, "--pool-min %s: expected 1..1000000", optarg);
            p.pool_min = (int)l;
            break;
        case O_POOL_UP:
            if (!parse_double(optarg, &x) || !(x >= 0 && x < 1))
                return cli_error(CLI_USAGE, CMD, "--pool-up %s: expected 0 <= P < 1", optarg);
            p.pool_up = x;
            break;
        case O_POOL_FRESH:
            if (!parse_double(optarg, &x) || !(x >= 0 && x <= 1))
                return cli_error(CLI_USAGE, CMD, "--pool-fresh %s: expected 0 <= P <= 1", optarg);
            p.pool_fresh = x;
            break;
        case O_PROGRESS:
            if (!parse_double(optarg, &x) || !(x >= 0))
                return cli_error(CLI_USAGE, CMD, "--progress %s: expected seconds >= 0", optarg);
            p.progress_every = x;
            break;
        case O_WARPS:
            if (!cli_parse_long(optarg, 0, 1L << 24, &l))
                return cli_error(CLI_USAGE, CMD, "--warps %s: expected 0..16777216", optarg);
            gopt.warps = (int)l;
            break;
        case O_ROUNDS:
            if (!cli_parse_long(optarg, 1, 64, &l))
                return cli_error(CLI_USAGE, CMD, "--rounds %s: expected 1..64", optarg);
            gopt.rounds = (int)l;
            break;
        case O_LAUNCH_MS:
            if (!parse_double(optarg, &x) || !(x > 0) || x > 60000)
                return cli_error(CLI_USAGE, CMD, "--launch-ms %s: expected milliseconds in (0, 60000]", optarg);
            gopt.launch_ms = x;
            break;
        case 'q': quiet = true; break;
        case 'v': verbose = true; break;
        case 'h':
        case O_HELP: usage(stdout); return CLI_OK;
        case ':':
            return cli_error(CLI_USAGE, CMD, "%s needs a value (flipgraph search --help)",
                             argv[optind - 1]);
        default:
            return cli_error(CLI_USAGE, CMD, "unknown option '%s' (flipgraph search --help)",
                             argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, CMD, "unexpected argument '%s' (flipgraph search --help)",
                         argv[optind]);
    if ((from_db || resume) && !db_path)
        db_path = db_default_path(NULL);

    int rc = CLI_OK;
    db *store = NULL;
    scheme *starts[MAX_FROM + 1];
    int nstarts = 0;
    char err[512];

    if (db_path) {
        /* the store's own messages name the path; its table of exit codes (docs/db.md) */
        db_status st;
        store = db_open(db_path, true, &st, err, sizeof err);
        if (!store)
            return cli_error(cli_db_exit(st), CMD, "%s", err);
    }

    if (resume) {
        db_status st;
        db_run_row old;
        char *text = NULL;
        if ((st = db_run_get(store, resume, &old, err, sizeof err)) == DB_OK)
            text = db_run_params(store, resume, &st, err, sizeof err);
        if (!text) {
            db_close(store);
            return cli_error(cli_db_exit(st), CMD, "--resume %" PRId64 ": %s", resume, err);
        }
        /* a run marked running: killed (its process gone, db_run_gone), or alive */
        if (!strcmp(old.effective, "killed") && !quiet)
            fprintf(stderr, "flipgraph search: run %" PRId64 " was killed (pid %lld on %s is "
                    "gone); going on from what it stored\n", resume, (long long)old.pid, old.host);
        else if (!strcmp(old.effective, "running"))
            fprintf(stderr, "flipgraph search: warning: run %" PRId64 " is still running (pid %lld "
                    "on %s); a second run from its parameters starts beside it\n", resume,
                    (long long)old.pid, old.host);
        search_params stored = p;
        search_params_default(&stored);
        bool ok = search_params_from_text(text, &stored, err, sizeof err);
        free(text);
        if (!ok) {
            db_close(store);
            return cli_error(CLI_USAGE, CMD, "--resume %" PRId64 ": stored parameters: %s", resume, err);
        }
        /* the stored run's parameters, except what this command line sets */
#define KEEP(opt, field) if (!set[opt]) p.field = stored.field
        KEEP(O_DIMS, fmt); KEEP(O_TARGET, target_rank); KEEP(O_TIME, time_limit);
        KEEP(O_MAXFLIPS, max_flips); KEEP(O_THREADS, threads); KEEP(O_DEVICE, device);
        KEEP(O_PLATEAU, plateau); KEEP(O_PLATEAU_MIN, plateau_min); KEEP(O_PLATEAU_MAX, plateau_max);
        KEEP(O_PLUS_MAX, plus_max); KEEP(O_WALK_LEN, walk_len); KEEP(O_WALK_MAX, walk_max);
        KEEP(O_GEN_MAX, gen_max); KEEP(O_ISOLATED_PLUS, isolated_plus); KEEP(O_POOL_SIZE, pool_size); KEEP(O_POOL_MIN, pool_min);
        KEEP(O_POOL_UP, pool_up); KEEP(O_POOL_FRESH, pool_fresh); KEEP(O_PROGRESS, progress_every);
        KEEP(O_BATCH, batch);
#undef KEEP
        have_dims = true;
        have_time = p.time_limit > 0;
        from_db = true;
        /* a resumed run does not replay its first walks: a new seed unless given */
    }

    for (int i = 0; i < nfrom; i++) {
        scheme *s = cli_read_scheme(CMD, from[i], have_dims ? &p.fmt : NULL);
        if (!s) {
            rc = CLI_USAGE;
            goto out;
        }
        if (!have_dims) {
            p.fmt = s->fmt;
            have_dims = true;
        }
        if (s->fmt.n != p.fmt.n || s->fmt.m != p.fmt.m || s->fmt.p != p.fmt.p) {
            char a[32], b[32];
            rc = cli_error(CLI_USAGE, CMD, "%s: a scheme for %s, not %s", from[i],
                           scheme_format_str(s->fmt, a), scheme_format_str(p.fmt, b));
            scheme_free(s);
            goto out;
        }
        starts[nstarts++] = s;
    }
    if (!have_dims) {
        rc = cli_error(CLI_USAGE, CMD, "--dims NxMxP is required (flipgraph search --help)");
        goto out;
    }
    if (!scheme_format_valid(p.fmt)) {
        rc = cli_error(CLI_USAGE, CMD, "format <%d,%d,%d>: each dimension >= 1 and n*m, m*p, p*n <= 64",
                       p.fmt.n, p.fmt.m, p.fmt.p);
        goto out;
    }
    int explicit_target = p.target_rank;
    if (until_record) {
        /* the same rule as sweep --until-record, plus an explicit target: the
         * higher rank stops first, so the stop comes no later than either asks */
        int t = cli_until_record_target(p.fmt, p.target_rank);
        if (t < 0) {
            char a[32];
            rc = cli_error(CLI_USAGE, CMD,
                           "--until-record: no known GF(2) record for %s (records.tsv lists the formats "
                           "with every dimension <= 6, and <1,m,p>); give --target-rank instead",
                           scheme_format_str(p.fmt, a));
            goto out;
        }
        p.target_rank = t;
    }
    if (from_db) {
        int64_t id;
        int rank;
        db_status st = db_best(store, p.fmt, SCHEME_RING_F2, &id, &rank, err, sizeof err);
        if (st == DB_OK) {
            scheme *s = db_load_scheme(store, id, &st, err, sizeof err);
            if (!s) {
                rc = cli_error(cli_db_exit(st), CMD, "--from-db: scheme %" PRId64 ": %s", id, err);
                goto out;
            }
            starts[nstarts++] = s;
        } else if (st == DB_NOT_FOUND) {
            char a[32];
            if (!quiet)
                fprintf(stderr, "flipgraph search: no %s scheme in %s yet: starting from the standard algorithm\n",
                        scheme_format_str(p.fmt, a), db_path);
        } else {
            rc = cli_error(cli_db_exit(st), CMD, "--from-db: %s", err);
            goto out;
        }
    }
    if (!have_time && !p.target_rank && !p.max_flips)
        p.time_limit = 60;
    if (!have_seed)
        p.seed = random_seed();
    if (out_dir) {
        struct stat sb;
        if (stat(out_dir, &sb) != 0 && mkdir(out_dir, 0777) != 0) {
            rc = cli_error(CLI_USAGE, CMD, "--out %s: cannot create: %s", out_dir, strerror(errno));
            goto out;
        }
        if (stat(out_dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            rc = cli_error(CLI_USAGE, CMD, "--out %s: not a directory", out_dir);
            goto out;
        }
    }
    /* --plateau alone outside the adaptive bounds means that plateau: the bound
     * not given follows it (the GPU's plateau, 500 steps, is below the CPU's floor) */
    if (set[O_PLATEAU] && !set[O_PLATEAU_MIN] && p.plateau_min > p.plateau)
        p.plateau_min = p.plateau;
    if (set[O_PLATEAU] && !set[O_PLATEAU_MAX] && p.plateau_max < p.plateau)
        p.plateau_max = p.plateau;
    if (!search_params_check(&p, err, sizeof err)) {
        rc = cli_error(CLI_USAGE, CMD, "%s", err);
        goto out;
    }

    bool gpu = !strcmp(backend, "gpu");
    if (!strcmp(backend, "auto"))
        gpu = cuda_compiled_in() && cuda_device_count() > p.device;
    if (gopt.ndevices > 0 && !gpu) {
        rc = cli_error(CLI_USAGE, CMD, "--devices needs --backend gpu (or auto with a GPU visible)");
        goto out;
    }

    /* The GPU has measured defaults of its own for these (search/walk_gpu.h); a value
     * given on the command line runs as given, so the GPU defaults are then off. */
    if (set[O_PLATEAU] || set[O_PLUS_MAX] || set[O_POOL_MIN] || set[O_WALK_LEN])
        gopt.gpu_defaults = false;
    gopt.verbose = verbose && !quiet;

    ctx cx = {.out_dir = out_dir, .db = store, .verbose = verbose, .quiet = quiet,
              .mu = PTHREAD_MUTEX_INITIALIZER, .db_path = db_path};
    /* What the engine runs: p, but with progress reports often enough for the
     * store's heartbeat (the stored parameters and the rows keep --progress). */
    search_params run_p = p;
    if (store && (run_p.progress_every <= 0 || run_p.progress_every > DB_RUN_HEARTBEAT_SECONDS))
        run_p.progress_every = DB_RUN_HEARTBEAT_SECONDS;
    cx.print_every = p.progress_every;
    cx.engine_every = run_p.progress_every;
    cx.next_print = p.progress_every;
    if (store) {
        char *text = search_params_to_text(&p);
        char dev[256];
        if (gpu) {
            if (cuda_device_describe(dev, sizeof dev) <= 0)
                snprintf(dev, sizeof dev, "GPU %d", p.device);
        } else {
            snprintf(dev, sizeof dev, "%d thread%s", p.threads, p.threads == 1 ? "" : "s");
        }
        db_run_info info = {p.fmt, text ? text : "", p.seed, gpu ? "gpu" : "cpu", dev, NULL};
        db_status st = db_run_begin(store, &info, &cx.run_id, err, sizeof err);
        free(text);
        if (st != DB_OK) {
            rc = cli_error(cli_db_exit(st), CMD, "recording the run: %s", err);
            goto out;
        }
        if (resume && !quiet)
            fprintf(stderr, "flipgraph search: resuming run %" PRId64 " as run %" PRId64 "\n", resume,
                    cx.run_id);
    }

    char fb[32];
    if (!quiet) {
        banner_info bi = {&p, &gopt, gpu, (const scheme *const *)starts, nstarts,
                          nfrom ? "--from" : nstarts ? "the database's best" : "the standard algorithm",
                          until_record, explicit_target};
        banner(&bi);
    }

    search_clear_stop();
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cli_stop_signal_handler;
    cli_stop_signal_reset();
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    search_callbacks cb = {&cx, on_improved, on_progress};
    search_result res;
    if (gpu)
        search_run_gpu_opts(&run_p, &gopt, (const scheme *const *)starts, nstarts, &cb, &res);
    else
        search_run_cpu(&run_p, (const scheme *const *)starts, nstarts, &cb, &res);

    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);

    bool end_lost = false;
    if (store && cx.run_id) {
        const char *status = res.status == SEARCH_FAILED ? "failed"
                             : res.interrupted           ? "interrupted"
                                                         : "finished";
        if (db_run_end(store, cx.run_id, status, res.flips, res.best_rank, err, sizeof err) != DB_OK) {
            /* the schemes stored on the way stay; the run would read "running" (then
             * "killed" once this process is gone, db runs) */
            cli_error(CLI_INTERNAL, CMD, "the end of run %" PRId64 " (%s, best rank %d, %" PRIu64
                      " flips) was NOT stored; the store keeps it marked running: %s",
                      cx.run_id, status, res.best_rank, res.flips, err);
            end_lost = true;
        }
    }
    if (res.status == SEARCH_FAILED || res.status == SEARCH_BAD_PARAMS) {
        rc = cli_error(res.status == SEARCH_FAILED ? CLI_INTERNAL : CLI_USAGE, CMD, "%s", res.msg);
        search_result_free(&res);
        goto out;
    }
    if (res.interrupted && !quiet)
        fprintf(stderr, "flipgraph search: interrupted\n");
    if (!quiet)
        fprintf(stderr,
                "flipgraph search: %" PRIu64 " improvements, %" PRIu64 " plus transitions, %" PRIu64
                " restarts, %" PRIu64 " reductions\n",
                res.improvements, res.plus, res.restarts, res.reductions);
    printf("best rank %d for %s after %.1f s, %.2g flips (%.2g flips/s)\n", res.best_rank,
           scheme_format_str(p.fmt, fb), res.seconds, (double)res.flips,
           res.seconds > 0 ? (double)res.flips / res.seconds : 0.0);
    fflush(stdout);
    rc = res.status == SEARCH_REACHED ? CLI_OK : CLI_NEGATIVE;
    if (end_lost) /* a store failure outweighs the search's answer */
        rc = CLI_INTERNAL;
    search_result_free(&res);
out:
    for (int i = 0; i < nstarts; i++)
        scheme_free(starts[i]);
    db_close(store);
    return rc;
}
