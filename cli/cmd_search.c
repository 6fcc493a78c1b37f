/* flipgraph search: random walks on the flip graph to lower a format's rank
 * (search/search.h; docs/search.md).  Every improvement was verified by the
 * engine before it reaches us; we write it to --out and/or store it in --db. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../cuda/fg_cuda.h"
#include "../db/db.h"
#include "../search/search.h"
#include "../search/session.h"
#include "../search/walk_gpu.h"
#include "../verify/verify.h"
#include "cli.h"

#define CMD "search"
#define MAX_FROM 64

static void usage(FILE *out)
{
    char *table = search_config_help(SEARCH_USE_BOTH, 0);
    fprintf(out,
"usage: flipgraph search --dims NxMxP [OPTIONS]\n"
"\n"
"Random walks on the flip graph of <n,m,p> over GF(2), or over Z with --ring z:\n"
"random flips, every reduction at once, plus transitions after a plateau, restarts\n"
"from a pool of the best schemes.  Every improvement is verified before it is kept\n"
"(over Z: the Brent equations over the integers; --from a GF(2) scheme is lifted).\n"
"\n"
"  --until-record      stop at the format's known GF(2) record (records.tsv, built in; its\n"
"                      z column with --ring z;\n"
"                      exit 2 for a format without one); with --target-rank the higher\n"
"                      of the two ranks (the earlier stop) wins\n"
"  --from FILE         start from this scheme (any format the readers know; repeatable); a\n"
"                      folder: every file in it (the walkers spread over the starts)\n"
"  --out DIR           write every improvement to DIR/NxMxP-RANK-HASH.txt (native format)\n"
"  --pool-out DIR      at the end write the run's pool, up to --pool-keep schemes (default\n"
"                      here 1000), lowest ranks first, to DIR/NxMxP-RANK-HASH.txt: the\n"
"                      distinct schemes it met at its best ranks, each verified; with\n"
"                      --pool-every T also every T while it walks (a checkpoint: after a\n"
"                      lost machine, --from DIR goes on from it); files of its own that a\n"
"                      later pool dropped are removed, nothing else in DIR is touched\n"
"  --db PATH           store every improvement and the run in this database\n"
"  --from-db           start from the best scheme of the format in the database\n"
"  --resume RUN        run again with the parameters stored for run RUN (its backend\n"
"                      included; options given here win), from the best stored scheme\n"
"  -q, --quiet         no banner, no progress table (the summary line on stdout stays)\n"
"  -v, --verbose       also a line for every improvement (and, on the GPU, per launch)\n"
"  --params-table      print the parameter table as Markdown (docs/search.md) and exit\n"
"  --meta              one search whose walk changes format within --dims-range A..B\n"
"                      (flipgraph search --meta --help; docs/resize.md)\n"
"  --mpi               one search over the ranks of `mpirun -n K flipgraph search --mpi ...`:\n"
"                      every rank walks (--threads each, or with --backend gpu the GPU\n"
"                      of its local rank); rank 0 reads the starts, keeps the store and\n"
"                      the run record, verifies and stores what the ranks find, and\n"
"                      sends its pool back (docs/cluster.md; exit 2 in a build without MPI)\n"
"\n"
"parameters (search/params.def; docs/search.md says how each default was measured;\n"
"one a backend does not use is refused, exit 2; the GPU's defaults are its own where\n"
"they differ, docs/gpu-walk.md):\n"
"%s"
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
"verification is a bug: reported, never kept) or a store or --pool-out write that failed\n",
            table ? table : "", CLI_PROGRESS_HEADER_EVERY);
    free(table);
}

typedef struct ctx {
    bool verbose, quiet;
    int rows;       /* progress rows printed: the header comes again every 20 */
    int64_t resume; /* --resume RUN (0: none) */
} ctx;

static void on_started(void *p, int64_t run_id)
{
    ctx *c = p;
    if (c->resume && run_id && !c->quiet)
        fprintf(stderr, "flipgraph search: resuming run %" PRId64 " as run %" PRId64 "\n", c->resume, run_id);
}

static void on_improved(void *p, const search_found *f, const char *path, bool stored_new)
{
    (void)stored_new;
    ctx *c = p;
    if (c->verbose && !c->quiet) {
        char text[4400], line[4500], fl[32];
        char who[48];
        char w[32];
        if (f->walker >= SEARCH_BESIDE_WALKER0)
            snprintf(w, sizeof w, "CPU walker %d", f->walker - SEARCH_BESIDE_WALKER0);
        else
            snprintf(w, sizeof w, "walker %d", f->walker);
        if (search_mpi_active())
            snprintf(who, sizeof who, "MPI rank %d's %s", f->node, w);
        else
            snprintf(who, sizeof who, "%s", w);
        snprintf(text, sizeof text, "improved: rank %d (%s, %s flips)%s%s", f->rank, who,
                 cli_fmt_si_cell((double)f->flips, fl, sizeof fl), path[0] ? " -> " : "", path);
        fprintf(stderr, "%s\n", cli_progress_event(line, sizeof line, f->seconds, text));
    }
}

static void on_pool_checkpoint(void *p, int written, double seconds, const char *failure)
{
    ctx *c = p;
    char line[1400], text[1300];
    if (failure) /* said even with -q: the end's write is the next chance */
        snprintf(text, sizeof text, "pool checkpoint FAILED, the walk goes on: %.1200s", failure);
    else if (c->verbose && !c->quiet)
        snprintf(text, sizeof text, "pool checkpoint: %d schemes in the folder", written);
    else
        return;
    fprintf(stderr, "%s\n", cli_progress_event(line, sizeof line, seconds, text));
}

static void on_progress(void *p, const search_progress *pr, uint64_t stored)
{
    ctx *c = p;
    if (c->quiet)
        return;
    char line[512];
    /* one fprintf per line: improvement lines from walker threads never split a row */
    if (c->rows % CLI_PROGRESS_HEADER_EVERY == 0)
        fprintf(stderr, "%s\n", cli_progress_header(line, sizeof line));
    c->rows++;
    fprintf(stderr, "%s\n", cli_progress_row(line, sizeof line, pr, stored));
    if (c->verbose) {
        char undone[64] = "";
        if (pr->undone)
            snprintf(undone, sizeof undone, ", undone by the bias %" PRIu64, pr->undone);
        fprintf(stderr, "%*s  plus %" PRIu64 ", restarts %" PRIu64 ", reductions %" PRIu64
                        ", walker 0's plateau length L %" PRIu64 "%s\n",
                9, "", pr->plus, pr->restarts, pr->reductions, pr->plateau, undone);
    }
}

/* ---- the banner: what runs, with what, from where (docs/search.md) ---- */

typedef struct banner_info {
    const search_config *c;  /* resolved: what runs */
    const scheme *const *starts;
    int nstarts;
    const char *from;        /* where the start schemes came from, in words */
    bool until_record;
    int explicit_target;     /* --target-rank as given (0: none) */
} banner_info;

/* The rows where the GPU runs its own default (params.def's gpu column), with
 * the values that run. */
static void gpu_defaults_line(const search_config *c)
{
    char line[512] = "", v[64];
    int k = 0;
    const bool large = search_config_large(c, SEARCH_BACKEND_GPU);
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++) {
        const search_param_info *r = search_param(i);
        double d;
        if (c->given[i] || r->def == r->gpu_def || !(r->use & SEARCH_USE_GPU) ||
            (large && search_param_large_default(i, SEARCH_BACKEND_GPU, c->p.fmt, &d)))
            continue; /* a large format's own rows: own_defaults_line */
        search_config_value(c, i, v, sizeof v);
        k += snprintf(line + k, sizeof line - (size_t)k, " %s=%s%s", r->name, v,
                      i == SEARCH_PARAM_PLATEAU ? " (steps)" : "");
    }
    if (k)
        fprintf(stderr, "the GPU runs its own defaults in place of the CPU's:%s\n", line);
}

/* The rows where a walk runs backend b's own default by a table of
 * search/params.c (row: whether the table has one for row id, and which), with
 * the values that run: "WHO runs its own defaults on the CPU: ... (docs/search.md,
 * "SECTION")". */
static void own_defaults_line(const search_config *c, search_backend b,
                              bool (*row)(const search_config *c, int id, search_backend b, double *v),
                              const char *who, const char *section)
{
    char line[512] = "", v[64];
    int k = 0;
    double d;
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++) {
        if (c->given[i] || !row(c, i, b, &d) || !search_config_differs(c, i, b))
            continue;
        if (search_param(i)->type == SEARCH_PT_DBL)
            snprintf(v, sizeof v, "%g", d); /* as the table writes it, not to the last digit */
        else
            search_config_value(c, i, v, sizeof v);
        k += snprintf(line + k, sizeof line - (size_t)k, " %s=%s", search_param(i)->name, v);
    }
    if (k)
        fprintf(stderr, "%s runs its own defaults on the %s:%s (docs/search.md, \"%s\")\n", who,
                b == SEARCH_BACKEND_GPU ? "GPU" : "CPU", line, section);
}

/* The plain walk on a large format (search_param_large_default). */
static bool large_row(const search_config *c, int id, search_backend b, double *v)
{
    return search_param_large_default(id, b, c->p.fmt, v);
}

/* The plain walk over Z (search_param_z_default); the GPU's rows are in
 * gpu_defaults_line. */
static bool z_row(const search_config *c, int id, search_backend b, double *v)
{
    (void)c;
    return search_param_z_default(id, b, v);
}

/* The terms of the symmetric start s under g that the walks hold as half
 * orbits (search_symmetric_halves): under c3xc2sK those among the indices the
 * involution fixes (a block of the standard algorithm); 0 under the other
 * groups, or when s does not split or memory runs out. */
static int half_orbit_terms(const scheme *s, scheme_symmetry g)
{
    search_symmetric_parts parts;
    if (search_symmetric_parts_make(s, g, &parts) != SEARCH_PARTS_OK)
        return 0;
    const int nhalf = parts.nhalf;
    search_symmetric_parts_free(&parts);
    return 3 * nhalf;
}

static void banner(const banner_info *b)
{
    const search_params *p = &b->c->p;
    const search_gpu_options *g = &b->c->gpu;
    bool gpu = b->c->backend == SEARCH_BACKEND_GPU;
    char buf[512], fb[32], t[32];
    fprintf(stderr, "%s\n", cli_build_info(buf, sizeof buf));

    int rec = search_record_rank(p->fmt), recz = search_record_rank_z(p->fmt);
    int start = p->fmt.n * p->fmt.m * p->fmt.p;
    for (int i = 0; i < b->nstarts; i++)
        if (!i || b->starts[i]->rank < start)
            start = b->starts[i]->rank;
    const char *from = b->from;
    char fromsym[128];
    int sym_start = 0; /* the rank of the symmetric start built from the cubes */
    int halves = 0;    /* its terms in half orbits (c3xc2sK: the involution fixes them) */
    if (!b->nstarts && (p->symmetry != SCHEME_SYM_NONE || p->cubes.count)) {
        /* the walk starts from the symmetric start the engine builds (search.h;
         * the plain walk from the C3 one when cubes are given) */
        const scheme_symmetry g = p->symmetry != SCHEME_SYM_NONE ? (scheme_symmetry)p->symmetry : SCHEME_SYM_C3;
        char e[256], cubes[64];
        scheme *s = search_symmetric_start(p->fmt, g, &p->cubes, e, sizeof e);
        if (s) {
            start = s->rank;
            if (p->symmetry != SCHEME_SYM_NONE) {
                sym_start = s->rank;
                halves = half_orbit_terms(s, g);
            }
        }
        scheme_free(s);
        search_cubes c = p->cubes;
        if (!c.count)
            search_cubes_default_for(g, p->fmt.n, &c);
        search_cubes_text(&c, cubes, sizeof cubes);
        snprintf(fromsym, sizeof fromsym, "the standard algorithm with the cubes %s", cubes);
        from = fromsym;
    }
    char rs[64] = "no known record", rz[32] = "";
    if (rec > 0)
        snprintf(rs, sizeof rs, "record %d%s", rec,
                 search_record_uncertain(p->fmt, SCHEME_RING_F2) ? "?" : "");
    if (recz > 0)
        snprintf(rz, sizeof rz, " (over Z %d%s)", recz, search_record_uncertain(p->fmt, SCHEME_RING_Z) ? "?" : "");
    if (p->ring == SCHEME_RING_Z) { /* the Z record first: it is the walk's */
        snprintf(rs, sizeof rs, recz > 0 ? "record %d%s" : "no known record", recz,
                 search_record_uncertain(p->fmt, SCHEME_RING_Z) ? "?" : "");
        if (rec > 0)
            snprintf(rz, sizeof rz, " (over GF(2) %d%s)", rec, search_record_uncertain(p->fmt, SCHEME_RING_F2) ? "?" : "");
        else
            rz[0] = 0;
    }
    fprintf(stderr, "search %s over %s: %s%s; start rank %d (%s%s); seed %" PRIu64 "\n",
            scheme_format_str(p->fmt, fb), scheme_ring_name(p->ring), rs, rz, start, from,
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
    if (p->stall > 0)
        at += snprintf(stop + at, sizeof stop - (size_t)at, " after %s without a lower rank,",
                       p->stall < 60 ? (snprintf(t, sizeof t, "%gs", p->stall), t)
                                     : cli_fmt_hms(p->stall, t, sizeof t));
    if (p->max_flips)
        at += snprintf(stop + at, sizeof stop - (size_t)at, " after %s flips,",
                       cli_fmt_si_cell((double)p->max_flips, t, sizeof t));
    snprintf(stop + at, sizeof stop - (size_t)at, " on SIGINT/SIGTERM");
    fprintf(stderr, "%s\n", stop);

    /* where it runs */
    if (gpu) {
        char dev[256] = "";
        int visible = cuda_device_describe(dev, sizeof dev);
        char list[128] = "";
        int n = g->ndevices ? g->ndevices : 1;
        for (int i = 0, k = 0; i < n; i++)
            k += snprintf(list + k, sizeof list - (size_t)k, "%s%d", i ? "," : "",
                          g->ndevices ? g->devices[i] : p->device);
        fprintf(stderr, "backend gpu: device%s %s of %d visible (device 0: %s)\n", n > 1 ? "s" : "", list,
                visible, visible > 0 ? dev : "none");
        if (p->symmetry != SCHEME_SYM_NONE)
            fprintf(stderr, "gpu: symmetric walk, warps %d%s, launch %g ms (adaptive flips)\n", g->warps,
                    g->warps ? "" : " (as many as the device holds)", g->launch_ms);
        else if (search_z_not_via_f2(p))
            fprintf(stderr, "gpu: walk over Z (a warp per walker unless FLIPGRAPH_WZ_KERNEL says otherwise), warps %d%s, "
                    "launch %g ms (adaptive steps)\n",
                    g->warps, g->warps ? "" : " (as many as the device holds)", g->launch_ms);
        else
            fprintf(stderr, "gpu: warps %d%s, rounds %d, launch %g ms (%s)%s\n", g->warps,
                    g->warps ? "" : " (as many as run at once)", g->rounds, g->launch_ms,
                    g->steps ? "fixed steps" : g->timed ? "each walker's clock" : "adaptive steps",
                    g->eager_gen ? ", eager generalized reductions" : "");
        if (p->host_threads > 0) {
            search_params q;
            char err[256];
            if (search_config_beside(b->c, &q, err, sizeof err))
                fprintf(stderr, "cpu: %d walker%s beside the GPU's, one per thread (plateau %llu in %llu..%llu, "
                                "walk-len %llu, walk-max %llu)\n",
                        q.threads, q.threads == 1 ? "" : "s", (unsigned long long)q.plateau,
                        (unsigned long long)q.plateau_min, (unsigned long long)q.plateau_max,
                        (unsigned long long)q.walk_len, (unsigned long long)q.walk_max);
        }
    } else {
        char isl[64] = "";
        if (p->islands > 1)
            snprintf(isl, sizeof isl, "; %d islands, a pool each", p->islands);
        fprintf(stderr, "backend cpu: %d CPU thread%s (one walker each%s%s)\n", p->threads,
                p->threads == 1 ? "" : "s",
                search_z_not_via_f2(p) && p->symmetry == SCHEME_SYM_NONE
                    ? (snprintf(t, sizeof t, ", over Z, |coefficients| <= %d", p->coef_max), t)
                    : "",
                isl);
    }

    /* every parameter the backend reads, as the run record stores them (--resume
     * reads them back); the record's "given" line is left to it */
    char *text = search_config_to_text(b->c);
    char *given = text ? strstr(text, "given=") : NULL;
    if (given)
        *given = 0;
    char *grid = text ? cli_kv_columns(text, 4, "  ") : NULL;
    if (grid)
        fprintf(stderr, "parameters:\n%s", grid);
    free(grid);
    free(text);
    if (gpu && p->symmetry == SCHEME_SYM_NONE)
        gpu_defaults_line(b->c);
    else if (p->symmetry != SCHEME_SYM_NONE)
        fprintf(stderr, "a symmetric walk runs its own defaults (docs/search.md, \"Symmetric walks\")\n");
    if (search_config_large(b->c, b->c->backend)) {
        char who[64];
        snprintf(who, sizeof who, "a large format (n*m*p >= %d)", SEARCH_LARGE_FORMAT);
        own_defaults_line(b->c, b->c->backend, large_row, who, "Large formats");
    }
    if (!gpu && search_config_z_own(b->c, b->c->backend))
        own_defaults_line(b->c, b->c->backend, z_row, "a walk over Z", "Searching over Z");
    /* A walk from its cubes keeps its start's class mod `step`: under c3xc2 and
     * t2 the fixed terms change two at a time if at all (step 2, the parity),
     * under c3 only when an orbit becomes a new cube, which walks almost never
     * make (rank = fixed terms + 3 * orbits).  Under c3xc2sK the walks' half
     * orbits of 3 terms (search/walker_sym.c) take the parity away and leave the
     * class mod 3 (rank = fixed terms + 6 * orbits + 3 * half orbits).  An
     * overnight run at a target outside the class should say at once where it
     * is met. */
    const int step = p->symmetry == SCHEME_SYM_C3 || halves ? 3
                     : scheme_symmetry_has_c2((scheme_symmetry)p->symmetry) || p->symmetry == SCHEME_SYM_T2 ? 2
                                                                                                               : 0;
    if (sym_start > 0 && step) {
        if (step == 2)
            fprintf(stderr,
                    "every rank of this walk is %s, like its start's %d (orbits of %d terms, fixed terms "
                    "that change two at a time if at all: docs/search.md, \"Symmetric walks\")",
                    sym_start % 2 ? "odd" : "even", sym_start,
                    scheme_symmetry_order((scheme_symmetry)p->symmetry));
        else
            fprintf(stderr,
                    "the ranks of this walk are %d mod 3, like its start's %d, while no new cube appears (orbits "
                    "of %s terms beside the fixed ones: docs/search.md, \"Symmetric walks\")",
                    sym_start % 3, sym_start, halves ? "6 and half orbits of 3" : "3");
        /* the highest rank at or below the target in the start's class */
        const int met = p->target_rank - ((p->target_rank - sym_start) % step + step) % step;
        if (p->target_rank > 0 && met != p->target_rank)
            fprintf(stderr, "; --target-rank %d is met at %d or below", p->target_rank, met);
        fprintf(stderr, "\n");
    }
    if (halves > 0)
        fprintf(stderr,
                "%d of the start's terms are fixed by the involution of %s and not by the shift (those among the "
                "indices %d..%d): the walk holds them as half orbits of 3 terms and flips them (docs/search.md, "
                "\"Other involutions\")\n",
                halves, scheme_symmetry_name((scheme_symmetry)p->symmetry),
                scheme_symmetry_swaps((scheme_symmetry)p->symmetry, p->fmt.n),
                p->fmt.n - 1 - scheme_symmetry_swaps((scheme_symmetry)p->symmetry, p->fmt.n));
    if (p->symmetry != SCHEME_SYM_NONE && p->ring == SCHEME_RING_Z)
        fprintf(stderr, "over Z: the symmetric walk is over GF(2); each of its improvements is lifted to Z "
                        "(Hensel lifting) and the lifts are the results (docs/search.md, \"Symmetric walks over "
                        "Z\")\n");
    else if (p->via_f2 > 0 && p->ring == SCHEME_RING_Z)
        fprintf(stderr, "over Z by GF(2): the walk is over GF(2); each of its improvements is lifted to Z "
                        "(Hensel lifting), the lifts are the results, and for %g s after it the lifting walk runs "
                        "around the lowest that did not lift (docs/search.md, \"Walks over Z by lifting\")\n",
                p->via_f2);
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

/* Options of this command that are not search parameters; the parameters'
 * options are the rows of search/params.def, value OPT_PARAM + row. */
enum { O_UNTIL_RECORD = 256, O_FROM, O_OUT, O_DB, O_FROMDB, O_RESUME, O_HELP, O_PARAMS_TABLE, O_MPI,
       O_POOL_OUT, OPT_PARAM = 1024 };

static const struct option own_options[] = {
    {"until-record", no_argument, 0, O_UNTIL_RECORD},
    {"from", required_argument, 0, O_FROM},
    {"out", required_argument, 0, O_OUT},
    {"pool-out", required_argument, 0, O_POOL_OUT},
    {"db", required_argument, 0, O_DB},
    {"from-db", no_argument, 0, O_FROMDB},
    {"resume", required_argument, 0, O_RESUME},
    {"quiet", no_argument, 0, 'q'},
    {"verbose", no_argument, 0, 'v'},
    {"help", no_argument, 0, O_HELP},
    {"params-table", no_argument, 0, O_PARAMS_TABLE},
    {"mpi", no_argument, 0, O_MPI},
};

/* --mpi on rank 0: whether the run went to the other ranks (search_mpi_share);
 * when it did not, cmd_search ends them with rank 0's code. */
static bool g_mpi_shared;

int cli_until_record_target(scheme_format f, int target_rank)
{
    return cli_until_record_target_ring(f, SCHEME_RING_F2, target_rank);
}

int cli_until_record_target_ring(scheme_format f, scheme_ring ring, int target_rank)
{
    int record = ring == SCHEME_RING_Z ? search_record_rank_z(f) : search_record_rank(f);
    if (record <= 0)
        return -1;
    return target_rank > record ? target_rank : record;
}

/* The backend that runs: auto is a GPU when one is visible (also for a
 * symmetric walk, unless it was given a walk only the CPU walks: eager
 * reductions, restarts from the pool, --threads); a resumed GPU run needs one
 * unless --backend is given.  -1: refused (message printed). */
static int decide_backend(const search_config *c, int64_t resume)
{
    bool visible = cuda_compiled_in() && cuda_device_count() > c->p.device;
    if (c->backend == SEARCH_BACKEND_AUTO && c->p.ring == SCHEME_RING_Z)
        /* the GPU walk over Z holds coefficients in {-1, 0, 1} */
        return visible && c->p.coef_max == 1 ? SEARCH_BACKEND_GPU : SEARCH_BACKEND_CPU;
    if (c->backend == SEARCH_BACKEND_AUTO) {
        const bool cpu_only_sym =
            c->p.symmetry == SCHEME_SYM_T2 ||
            (c->p.symmetry != SCHEME_SYM_NONE &&
            (c->given[SEARCH_PARAM_GEN_MAX] || c->given[SEARCH_PARAM_POOL_FRESH] ||
             c->given[SEARCH_PARAM_ISOLATED_PLUS] || c->given[SEARCH_PARAM_THREADS] ||
             c->given[SEARCH_PARAM_PLATEAU_MIN] || c->given[SEARCH_PARAM_PLATEAU_MAX] || c->given[SEARCH_PARAM_BATCH]));
        return visible && !cpu_only_sym ? SEARCH_BACKEND_GPU : SEARCH_BACKEND_CPU;
    }
    if (resume && c->backend == SEARCH_BACKEND_GPU && !c->given[SEARCH_PARAM_BACKEND] && !visible) {
        cli_error(CLI_USAGE, CMD, "--resume %" PRId64 ": the run walked on the GPU backend, and %s; "
                  "give --backend cpu to go on from it on the CPU", resume,
                  cuda_compiled_in() ? "no GPU is visible here" : "this build has no GPU backend");
        return -1;
    }
    return c->backend;
}

/* ---- search --meta: the walk changes format (search/meta.c) ---- */

static void meta_usage(FILE *out)
{
    fprintf(out,
"usage: flipgraph search --meta --dims-range A..B [--until-record] [--time T] [--stall T]\n"
"                        [--meta-below K] [--meta-drift D] [--meta-pool K] [--meta-stall-grow G] [--meta-fresh]\n"
"                        [--meta-neighbours] [--meta-detours off|best|fresh] [--meta-reach K]\n"
"                        [--from FILE] [--db PATH] [--out DIR]\n"
"                        [walk parameters] [-q] [-v]\n"
"\n"
"One search whose walk changes format (Kauers, Wood 2025; docs/resize.md, \"The meta\n"
"search\"): legs of the usual walk, each on one format of the range and stored as its own\n"
"run, each ending when --stall passes without a lower rank (default 10s); the next leg\n"
"takes the leg's best to a neighbouring format (one dimension one larger or smaller, by\n"
"projection or extension, then sorted), unless that lands more than D above the best\n"
"this search holds there: then the leg starts from that format's pool (its K lowest\n"
"distinct schemes).\n"
"\n"
"  --dims-range A..B   every <n,m,p>, n <= m <= p, each dimension between the corners'\n"
"                      (2x2x2..5x5x5: 20 formats)\n"
"  --until-record      end when every format is at its known record; the walk prefers\n"
"                      formats that are not, and jumps to the nearest one when every\n"
"                      neighbour is\n"
"  --meta-below K      with --until-record: every format's goal is K below its record, so\n"
"                      that a format at its record is walked on (legs aim at record - K;\n"
"                      a sum or product at the record still starts a format): 1..100\n"
"  --meta-drift D      the reset rule: 0..1000 (default 10; -1: never reset)\n"
"  --meta-pool K       distinct schemes kept per format, 1..64 (default 16)\n"
"  --meta-stall-grow G after each leg of a format that does not lower its best, that\n"
"                      format's next leg stalls twice as long, up to 2^G times --stall,\n"
"                      and every second one starts from its pool, not a move: 0..10\n"
"                      (default 3; 0: fixed legs, always moves)\n"
"  --meta-neighbours   a leg that moves starts also from every other visited neighbour's\n"
"                      best, each moved in every orientation (default: the one\n"
"                      neighbour's move; every orientation of it)\n"
"  --meta-detours M    with --until-record, when one format is left and its 2nd (or\n"
"                      later) leg in a row fails, a neighbour at its record is walked\n"
"                      again and the next leg brings its best back: fresh (default:\n"
"                      from the standard algorithm, a new descent), best (from the\n"
"                      stuck format's best moved there), off; when several are left\n"
"                      and each failed more than G legs in a row, the one whose detour\n"
"                      starts nearest its record takes one\n"
"  --meta-reach K      the first leg (and a format never walked that the walk jumps to)\n"
"                      starts from the projection of any format of the range that holds\n"
"                      it (each dimension at least as large) up to K steps away, the\n"
"                      dimensions' differences summed, where that is below its best so\n"
"                      far: 1..64 (default 1, the neighbours only)\n"
"  --meta-fresh        do not start from the store: by default every format's pool\n"
"                      starts with the store's K lowest distinct schemes of it over the\n"
"                      walk's ring (any orientation), so that a second search on the same\n"
"                      --db goes on where the first stopped; over GF(2) the store's bests\n"
"                      of smaller formats outside the range count for sums and products\n"
"  --from FILE         the first leg starts from this scheme (its format in the range)\n"
"  --ring z            walk over Z: legs over Z, the moves keep integer schemes integer\n"
"                      (unimodular changes of basis; docs/resize.md), the z records\n"
"  --symmetry G        the square formats walk G-symmetrically from their cubes\n"
"  --time T            the whole search's time (default 60s without --until-record)\n"
"every other walk parameter of flipgraph search applies to every leg; --dims,\n"
"--target-rank, --max-flips and --resume do not apply.\n"
"\n"
"exit: 0 every record reached with --until-record, or the time ran out without it;\n"
"1 interrupted, or a record missed; 2 bad usage; 3 a failure (store, internal)\n");
}

typedef struct meta_ctx {
    ctx inner;
    bool quiet;
} meta_ctx;

static void meta_leg_start(void *p, const search_meta_leg *l)
{
    meta_ctx *m = p;
    if (m->quiet)
        return;
    char fb[32], rk[32] = "";
    if (l->start_rank > 0)
        snprintf(rk, sizeof rk, " rank %d", l->start_rank);
    fprintf(stderr, "[leg %d] %s from %s%s%s, record %d, stall %gs\n", l->index, scheme_format_str(l->fmt, fb), l->from,
            rk, l->reset ? " (reset: the move landed more than the drift above the best)" : "", l->record, l->stall);
    if (l->beside[0])
        fprintf(stderr, "[leg %d] %s: stored beside it, not walked: %s rank %d\n", l->index,
                scheme_format_str(l->fmt, fb), l->beside, l->beside_rank);
    m->inner.rows = 0;
}

static void meta_leg_end(void *p, const search_meta_leg *l)
{
    meta_ctx *m = p;
    if (m->quiet)
        return;
    char fb[32], fl[32];
    if (l->status == SEARCH_FAILED || l->status == SEARCH_BAD_PARAMS) {
        fprintf(stderr, "[leg %d] %s: failed (below)\n", l->index, scheme_format_str(l->fmt, fb));
        return;
    }
    /* a leg over Z by GF(2): what its lifts and its lifting walk did */
    if (l->lifts_tried || l->lift_walk_rank) {
        fprintf(stderr, "[leg %d] %s: %d of %d GF(2) improvements lifted", l->index, scheme_format_str(l->fmt, fb),
                l->lifts_ok, l->lifts_tried);
        if (l->lift_walk_rank)
            fprintf(stderr, "; the lifting walk at rank %d: %d neighbours tried in %.1f s, %s", l->lift_walk_rank,
                    l->lift_walk_tried, l->lift_walk_seconds, l->lift_walk_ok ? "one lifted" : "none lifted");
        fputc('\n', stderr);
    }
    if (l->best_rank <= 0) { /* a symmetric leg over Z none of whose improvements lifted */
        fprintf(stderr, "[leg %d] %s: no scheme over Z (none of the walk's GF(2) improvements lifted) in %.1f s, %s "
                "flips\n", l->index, scheme_format_str(l->fmt, fb), l->seconds,
                cli_fmt_si((double)l->flips, fl, sizeof fl));
        return;
    }
    const bool has_record = l->record > 0; /* best_rank > 0 here (returned above otherwise) */
    fprintf(stderr, "[leg %d] %s: best %d (start %d) in %.1f s, %s flips%s\n", l->index, scheme_format_str(l->fmt, fb),
            l->best_rank, l->start_rank, l->seconds, cli_fmt_si((double)l->flips, fl, sizeof fl),
            has_record && l->best_rank < l->record    ? ", BELOW THE RECORD"
            : has_record && l->best_rank == l->record ? ", record reached"
                                                      : "");
}

static bool parse_dims_range(const char *s, scheme_format *lo, scheme_format *hi, char *err, size_t errlen)
{
    const char *dots = strstr(s, "..");
    char a[64];
    if (!dots || (size_t)(dots - s) >= sizeof a) {
        snprintf(err, errlen, "'%s': expected A..B such as 2x2x2..5x5x5", s);
        return false;
    }
    memcpy(a, s, (size_t)(dots - s));
    a[dots - s] = 0;
    if (!scheme_format_parse(a, lo, err, errlen) || !scheme_format_parse(dots + 2, hi, err, errlen))
        return false;
    if (lo->n > hi->n || lo->m > hi->m || lo->p > hi->p) {
        snprintf(err, errlen, "'%s': every dimension of A must be at most B's", s);
        return false;
    }
    return true;
}

static int z_start(scheme **s, const char *path, bool quiet);

static int cmd_search_meta(int argc, char **argv)
{
    enum { M_META = 256, M_RANGE, M_UNTIL, M_DRIFT, M_POOL, M_GROW, M_FRESH, M_FROM, M_OUT, M_DB, M_HELP, M_NEIGH, M_DETOUR,
           M_REACH, M_BELOW };
    static const struct option own[] = {
        {"meta", no_argument, 0, M_META},         {"dims-range", required_argument, 0, M_RANGE},
        {"until-record", no_argument, 0, M_UNTIL}, {"meta-drift", required_argument, 0, M_DRIFT},
        {"meta-pool", required_argument, 0, M_POOL}, {"from", required_argument, 0, M_FROM},
        {"out", required_argument, 0, M_OUT},     {"db", required_argument, 0, M_DB},
        {"quiet", no_argument, 0, 'q'},           {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, M_HELP},         {"meta-stall-grow", required_argument, 0, M_GROW},
        {"meta-fresh", no_argument, 0, M_FRESH}, {"meta-neighbours", no_argument, 0, M_NEIGH},
        {"meta-detours", required_argument, 0, M_DETOUR}, {"meta-reach", required_argument, 0, M_REACH},
        {"meta-below", required_argument, 0, M_BELOW},
    };
    const size_t nown = sizeof own / sizeof *own;
    struct option longopts[sizeof own / sizeof *own + SEARCH_PARAM_COUNT + 1];
    size_t nopt = 0;
    for (size_t i = 0; i < nown; i++)
        longopts[nopt++] = own[i];
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++)
        longopts[nopt++] = (struct option){search_param(i)->name, required_argument, 0, OPT_PARAM + i};
    longopts[nopt] = (struct option){0, 0, 0, 0};

    search_config cfg;
    search_config_default(&cfg);
    search_meta_config mc = {.leg_stall = 10, .drift = 10, .pool = 16, .stall_grow = 3, .from_store = true,
                             .reach = 1, .detours = SEARCH_META_DETOURS_FRESH};
    bool have_range = false, quiet = false, verbose = false;
    const char *from[MAX_FROM], *out_dir = NULL, *db_path = NULL;
    int nfrom = 0;
    char err[1024];
    long l;
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":qvh", longopts, NULL)) != -1) {
        if (c >= OPT_PARAM && c < OPT_PARAM + SEARCH_PARAM_COUNT) {
            int id = c - OPT_PARAM;
            if (id == SEARCH_PARAM_DIMS || id == SEARCH_PARAM_TARGET_RANK || id == SEARCH_PARAM_MAX_FLIPS)
                return cli_error(CLI_USAGE, CMD, "--meta: --%s does not apply (the range is --dims-range; "
                                 "--until-record stops at the records)", search_param(id)->name);
            if (id == SEARCH_PARAM_POOL_EVERY) /* its legs' pools are the meta pools, kept in the store */
                return cli_error(CLI_USAGE, CMD, "--meta: --pool-every does not apply (only a plain search "
                                 "writes its pool, to --pool-out)");
            if (id == SEARCH_PARAM_CUBES) /* cubes are of one n; the range has several formats */
                return cli_error(CLI_USAGE, CMD, "--meta: --cubes does not apply (each square format's "
                                 "symmetric legs start from its default cubes; give --dims for a walk from other cubes)");
            if (!search_config_set(&cfg, id, optarg, err, sizeof err))
                return cli_error(CLI_USAGE, CMD, "%s", err);
            continue;
        }
        switch (c) {
        case M_META: break;
        case M_RANGE:
            if (!parse_dims_range(optarg, &mc.lo, &mc.hi, err, sizeof err))
                return cli_error(CLI_USAGE, CMD, "--dims-range %s", err);
            have_range = true;
            break;
        case M_UNTIL: mc.until_record = true; break;
        case M_BELOW:
            if (!cli_parse_long(optarg, 1, 100, &l))
                return cli_error(CLI_USAGE, CMD, "--meta-below '%s': expected 1..100 (ranks below each record)", optarg);
            mc.below = (int)l;
            break;
        case M_DRIFT:
            if (!cli_parse_long(optarg, -1, 1000, &l))
                return cli_error(CLI_USAGE, CMD, "--meta-drift '%s': expected -1..1000", optarg);
            mc.drift = (int)l;
            break;
        case M_POOL:
            if (!cli_parse_long(optarg, 1, 64, &l))
                return cli_error(CLI_USAGE, CMD, "--meta-pool '%s': expected 1..64", optarg);
            mc.pool = (int)l;
            break;
        case M_GROW:
            if (!cli_parse_long(optarg, 0, 10, &l))
                return cli_error(CLI_USAGE, CMD, "--meta-stall-grow '%s': expected 0..10", optarg);
            mc.stall_grow = (int)l;
            break;
        case M_FRESH: mc.from_store = false; break;
        case M_NEIGH: mc.all_neighbours = true; break;
        case M_REACH:
            if (!cli_parse_long(optarg, 1, 64, &l))
                return cli_error(CLI_USAGE, CMD, "--meta-reach '%s': expected 1..64 (steps between formats)", optarg);
            mc.reach = (int)l;
            break;
        case M_DETOUR:
            if (!strcmp(optarg, "off"))
                mc.detours = SEARCH_META_DETOURS_OFF;
            else if (!strcmp(optarg, "best"))
                mc.detours = SEARCH_META_DETOURS_BEST;
            else if (!strcmp(optarg, "fresh"))
                mc.detours = SEARCH_META_DETOURS_FRESH;
            else
                return cli_error(CLI_USAGE, CMD, "--meta-detours '%s': expected off, best or fresh", optarg);
            break;
        case M_FROM:
            if (nfrom == MAX_FROM)
                return cli_error(CLI_USAGE, CMD, "at most %d --from files", MAX_FROM);
            from[nfrom++] = optarg;
            break;
        case M_OUT: out_dir = optarg; break;
        case M_DB: db_path = optarg; break;
        case 'q': quiet = true; break;
        case 'v': verbose = true; break;
        case 'h':
        case M_HELP: meta_usage(stdout); return CLI_OK;
        case ':':
            return cli_error(CLI_USAGE, CMD, "%s needs a value (flipgraph search --meta --help)", argv[optind - 1]);
        default:
            return cli_error(CLI_USAGE, CMD, "--meta: unknown or inapplicable option '%s' (flipgraph search --meta "
                             "--help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_error(CLI_USAGE, CMD, "unexpected argument '%s' (flipgraph search --meta --help)", argv[optind]);
    if (!have_range)
        return cli_error(CLI_USAGE, CMD, "--meta needs --dims-range A..B, e.g. 2x2x2..5x5x5");
    if (mc.below && !mc.until_record)
        return cli_error(CLI_USAGE, CMD, "--meta-below needs --until-record (it moves the records the walk ends at)");
    scheme_format fl[512];
    int nf;
    if (!search_meta_formats(mc.lo, mc.hi, fl, &nf, 512))
        return cli_error(CLI_USAGE, CMD, "--dims-range: %s", nf ? "more than 512 formats" : "no format in the range");
    if (cfg.given[SEARCH_PARAM_STALL]) {
        if (cfg.p.stall <= 0)
            return cli_error(CLI_USAGE, CMD, "--meta: --stall must be above 0 (it ends each leg)");
        mc.leg_stall = cfg.p.stall;
    }
    if (!cfg.given[SEARCH_PARAM_TIME] && !mc.until_record)
        cfg.p.time_limit = 60;
    cfg.given[SEARCH_PARAM_TIME] = cfg.p.time_limit > 0;
    if (!cfg.given[SEARCH_PARAM_SEED]) {
        cfg.p.seed = random_seed();
        cfg.given[SEARCH_PARAM_SEED] = true;
    }
    char why[256];
    if (!search_symmetry_for_ranges((scheme_symmetry)cfg.p.symmetry, why, sizeof why))
        return cli_error(CLI_USAGE, CMD, "--meta --symmetry %s: the meta search %s",
                         scheme_symmetry_name((scheme_symmetry)cfg.p.symmetry), why);
    int backend = decide_backend(&cfg, 0);
    if (backend < 0)
        return CLI_USAGE;
    cfg.backend = (search_backend)backend;
    { /* refused options before anything runs: probe one leg's resolution */
        search_config probe = cfg;
        probe.p.fmt = fl[nf - 1];
        probe.given[SEARCH_PARAM_DIMS] = true;
        if (probe.p.symmetry != SCHEME_SYM_NONE && !(fl[nf - 1].n == fl[nf - 1].m && fl[nf - 1].m == fl[nf - 1].p)) {
            probe.p.symmetry = SCHEME_SYM_NONE;
            probe.given[SEARCH_PARAM_SYMMETRY] = false;
        }
        if (!search_config_resolve(&probe, cfg.backend, err, sizeof err))
            return cli_error(CLI_USAGE, CMD, "%s", err);
    }

    int rc = CLI_OK;
    scheme *starts[MAX_FROM];
    int nstarts = 0;
    db_status st;
    search_session *ss = session_open(db_path, &st, err, sizeof err);
    if (!ss)
        return cli_error(cli_db_exit(st), CMD, "%s", err);
    for (int i = 0; i < nfrom; i++) {
        scheme *s = cli_read_scheme(CMD, from[i], NULL);
        if (!s) {
            rc = CLI_USAGE;
            goto out;
        }
        if (cfg.p.ring == SCHEME_RING_Z && (rc = z_start(&s, from[i], quiet)) != CLI_OK) {
            scheme_free(s);
            goto out;
        }
        starts[nstarts++] = s;
        char a[32];
        const scheme_format srt = search_format_sorted(s->fmt);
        bool in = false;
        for (int k = 0; k < nf; k++)
            in |= fl[k].n == srt.n && fl[k].m == srt.m && fl[k].p == srt.p;
        if (!in) {
            rc = cli_error(CLI_USAGE, CMD, "%s: a scheme for %s, which is not in --dims-range", from[i],
                           scheme_format_str(s->fmt, a));
            goto out;
        }
        verify_result vr;
        bool valid;
        if (cfg.p.ring == SCHEME_RING_Z) {
            valid = verify_z(s, &vr);
        } else {
            scheme *g = scheme_to_f2(s);
            valid = g && verify_f2(g, &vr);
            scheme_free(g);
        }
        if (!valid) {
            rc = cli_error(CLI_USAGE, CMD, "%s: not a valid scheme over %s (flipgraph verify says more)", from[i],
                           scheme_ring_name(cfg.p.ring));
            goto out;
        }
    }
    if (out_dir && !session_set_out_dir(ss, out_dir, err, sizeof err)) {
        rc = cli_error(CLI_USAGE, CMD, "%s", err);
        goto out;
    }
    if (cfg.backend == SEARCH_BACKEND_GPU)
        cfg.gpu.verbose = verbose && !quiet;
    char fa[32], fb[32], buf[512], dev[256] = "", reach[32] = "", belowtxt[64] = "";
    if (cfg.backend == SEARCH_BACKEND_GPU)
        cuda_device_describe(dev, sizeof dev);
    const char *until = "";
    if (mc.until_record && mc.below) {
        snprintf(belowtxt, sizeof belowtxt, ", until every format is %d below its record", mc.below);
        until = belowtxt;
    } else if (mc.until_record) {
        until = ", until every record";
    }
    if (!quiet) {
        fprintf(stderr, "%s\n", cli_build_info(buf, sizeof buf));
        fprintf(stderr, "search --meta %s..%s over %s: %d formats, legs end after %gs without a lower rank, "
                        "growing to %gs, drift %d%s, pool %d%s, seed %" PRIu64 "%s%s%s\n",
                scheme_format_str(mc.lo, fa), scheme_format_str(mc.hi, fb),
                scheme_ring_name(cfg.p.ring), nf, mc.leg_stall,
                mc.leg_stall * (double)(1 << mc.stall_grow), mc.drift, mc.drift < 0 ? " (never reset)" : "", mc.pool,
                mc.reach > 1 ? (snprintf(reach, sizeof reach, ", reach %d", mc.reach), reach) : "", cfg.p.seed,
                until,
                !mc.until_record || mc.detours == SEARCH_META_DETOURS_OFF ? ""
                : mc.detours == SEARCH_META_DETOURS_BEST                 ? " (detours from the best)"
                                                                         : " (fresh detours)",
                cfg.p.symmetry != SCHEME_SYM_NONE ? ", square formats symmetric" : "");
        if (cfg.backend == SEARCH_BACKEND_GPU)
            fprintf(stderr, "backend gpu: device %d (%s)\n", cfg.p.device, dev);
        else
            fprintf(stderr, "backend cpu: %d CPU thread%s\n", cfg.p.threads, cfg.p.threads == 1 ? "" : "s");
    }
    meta_ctx mx = {.inner = {.verbose = verbose, .quiet = quiet || !verbose}, .quiet = quiet};
    search_meta_hooks hooks = {&mx, meta_leg_start, meta_leg_end,
                               {.ctx = &mx.inner, .improved = on_improved, .progress = on_progress}};
    search_meta_result res;
    session_signals_hold();
    search_meta_run(ss, &cfg, cfg.backend == SEARCH_BACKEND_GPU ? dev : NULL, &mc, (const scheme *const *)starts,
                    nstarts, &hooks, &res);
    session_signals_release();
    search_clear_stop();
    if (res.status == SEARCH_BAD_PARAMS || res.status == SEARCH_FAILED) {
        rc = cli_error(res.store_failed && res.begin_status != DB_OK ? cli_db_exit(res.begin_status)
                       : res.status == SEARCH_BAD_PARAMS ? CLI_USAGE : CLI_INTERNAL,
                       CMD, "%s", res.msg);
    }
    /* the table: every format of the range */
    printf("%-10s %6s %6s %6s %5s %7s %10s %11s  %s\n", "format", "start", "best", "record", "gap", "visits", "time",
           "flips", "status");
    int missed = 0, held = 0, below = 0;
    for (int i = 0; i < res.nformats; i++) {
        const search_meta_format *f = &res.formats[i];
        char gap[16] = "-", rec[16] = "?", sr[16] = "-", br[16] = "-", fl2[32];
        if (f->record > 0)
            snprintf(rec, sizeof rec, "%d", f->record);
        if (f->start > 0)
            snprintf(sr, sizeof sr, "%d", f->start);
        if (f->best > 0)
            snprintf(br, sizeof br, "%d%s", f->best, f->best_held ? "*" : "");
        held += f->best > 0 && f->best_held;
        if (f->best > 0 && f->record > 0)
            snprintf(gap, sizeof gap, "%d", f->best - f->record);
        const char *status = f->best <= 0 ? "not visited"
                             : f->record <= 0 ? "no record"
                             : f->best < f->record ? "BELOW THE RECORD"
                             : f->best == f->record ? "record reached" : "above the record";
        if (!(f->best > 0 && f->record > 0 && f->best <= f->record))
            missed++;
        below += f->best > 0 && f->record > 0 && f->best < f->record;
        printf("%-10s %6s %6s %6s %5s %7d %8.1f s %11s  %s\n", scheme_format_str(f->fmt, fa), sr, br, rec, gap,
               f->visits, f->seconds, cli_fmt_si((double)f->flips, fl2, sizeof fl2), status);
    }
    if (held)
        printf("*: a scheme over Z with coefficients beyond --coef-max %d (a lift), stored; the walks start from "
               "the pool's\n", cfg.p.coef_max);
    char from_db[64] = "";
    if (res.stored > 0)
        snprintf(from_db, sizeof from_db, "; %d schemes from the store", res.stored);
    char below_n[64] = "";
    if (mc.below) /* the goal of --meta-below: how many went under their record */
        snprintf(below_n, sizeof below_n, ", %d of them below it", below);
    printf("meta search: %d legs in %.1f s, %d resets, %d of %d formats at their record%s%s%s\n", res.legs, res.seconds,
           res.resets, res.nformats - missed, res.nformats, below_n, from_db, res.interrupted ? "; interrupted" : "");
    fflush(stdout);
    if (rc == CLI_OK)
        rc = res.interrupted ? CLI_NEGATIVE : mc.until_record && !res.all_records ? CLI_NEGATIVE : CLI_OK;
    search_meta_result_free(&res);
out:
    for (int i = 0; i < nstarts; i++)
        scheme_free(starts[i]);
    session_close(ss);
    return rc;
}

/* A --from scheme for a walk over Z (session_z_start): *s replaced by its
 * integer form; CLI_USAGE with the reason when it has none. */
static int z_start(scheme **s, const char *path, bool quiet)
{
    scheme *z;
    int mx;
    char msg[600];
    switch (session_z_start(*s, &z, &mx, msg, sizeof msg)) {
    case SESSION_ZSTART_NO_LIFT:
        return cli_error(CLI_USAGE, CMD, "--ring z --from %s: a GF(2) scheme that does not lift to Z: %s", path, msg);
    case SESSION_ZSTART_FAILED:
        return cli_error(CLI_INTERNAL, CMD, "--ring z --from %s: %s", path, msg);
    case SESSION_ZSTART_LIFTED:
        if (!quiet)
            fprintf(stderr, "flipgraph search: %s is over GF(2); lifted to Z (largest |coefficient| %d)\n", path, mx);
        break;
    case SESSION_ZSTART_AS_IS:
        break;
    }
    scheme_free(*s);
    *s = z;
    return CLI_OK;
}

static int search_body(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) /* search --meta is its own command line */
        if (!strcmp(argv[i], "--meta"))
            return cmd_search_meta(argc, argv);
    /* the options: this command's own, then one per parameter row */
    struct option longopts[sizeof own_options / sizeof *own_options + SEARCH_PARAM_COUNT + 1];
    size_t nopt = 0;
    for (size_t i = 0; i < sizeof own_options / sizeof *own_options; i++)
        longopts[nopt++] = own_options[i];
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++)
        longopts[nopt++] = (struct option){search_param(i)->name, required_argument, 0, OPT_PARAM + i};
    longopts[nopt] = (struct option){0, 0, 0, 0};

    search_config cli; /* as given on the command line */
    search_config_default(&cli);
    const char *from[MAX_FROM];
    int nfrom = 0;
    const char *out_dir = NULL, *db_path = NULL, *pool_dir = NULL;
    bool from_db = false, quiet = false, verbose = false, until_record = false;
    int64_t resume = 0;
    char err[1024];

    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":qvh", longopts, NULL)) != -1) {
        long l;
        if (c >= OPT_PARAM && c < OPT_PARAM + SEARCH_PARAM_COUNT) {
            if (!search_config_set(&cli, c - OPT_PARAM, optarg, err, sizeof err))
                return cli_error(CLI_USAGE, CMD, "%s", err);
            continue;
        }
        switch (c) {
        case O_UNTIL_RECORD: until_record = true; break;
        case O_FROM:
            if (nfrom == MAX_FROM)
                return cli_error(CLI_USAGE, CMD, "at most %d --from arguments (a folder gives all its files)",
                                 MAX_FROM);
            from[nfrom++] = optarg;
            break;
        case O_OUT: out_dir = optarg; break;
        case O_POOL_OUT: pool_dir = optarg; break;
        case O_DB: db_path = optarg; break;
        case O_FROMDB: from_db = true; break;
        case O_RESUME:
            if (!cli_parse_long(optarg, 1, 0x7fffffffffffffffL, &l))
                return cli_error(CLI_USAGE, CMD, "--resume %s: expected a run id", optarg);
            resume = l;
            break;
        case 'q': quiet = true; break;
        case 'v': verbose = true; break;
        case 'h':
        case O_HELP: usage(stdout); return CLI_OK;
        case O_MPI: /* cmd_search started MPI when it saw the option spelled out */
            if (!search_mpi_active())
                return cli_error(CLI_USAGE, CMD, "%s: write --mpi in full", argv[optind - 1]);
            break;
        case O_PARAMS_TABLE: {
            char *t = search_config_markdown();
            if (!t)
                return cli_error(CLI_INTERNAL, CMD, "out of memory");
            fputs(t, stdout);
            free(t);
            return CLI_OK;
        }
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

    /* --from FOLDER: its files */
    char **fromv = NULL;
    int nfromv = 0;
    int rc = cli_expand_paths(CMD, "--from", from, nfrom, &fromv, &nfromv);
    if (rc != CLI_OK)
        return rc;
    scheme **starts = calloc((size_t)nfromv + 1, sizeof *starts);
    int nstarts = 0;
    if (!starts) {
        cli_paths_free(fromv, nfromv);
        return cli_error(CLI_INTERNAL, CMD, "out of memory");
    }
    db_status st;
    search_session *ss = session_open(db_path, &st, err, sizeof err);
    if (!ss) { /* the store's messages name the path; its table of exit codes (docs/db.md) */
        cli_paths_free(fromv, nfromv);
        free(starts);
        return cli_error(cli_db_exit(st), CMD, "%s", err);
    }

    search_config cfg = cli;
    if (resume) {
        db_run_row old;
        if ((st = session_resume(ss, resume, &cli, &cfg, &old, err, sizeof err)) != DB_OK) {
            rc = cli_error(st == DB_INVALID ? CLI_USAGE : cli_db_exit(st), CMD, "--resume %" PRId64 ": %s",
                           resume, err);
            goto out;
        }
        /* a run marked running: killed (its process gone, db_run_gone), or alive */
        if (!strcmp(old.effective, "killed") && !quiet)
            fprintf(stderr, "flipgraph search: run %" PRId64 " was killed (pid %lld on %s is "
                    "gone); going on from what it stored\n", resume, (long long)old.pid, old.host);
        else if (!strcmp(old.effective, "running"))
            fprintf(stderr, "flipgraph search: warning: run %" PRId64 " is still running (pid %lld "
                    "on %s); a second run from its parameters starts beside it\n", resume,
                    (long long)old.pid, old.host);
        from_db = true;
        /* a resumed run does not replay its first walks: a new seed unless given */
    }

    for (int i = 0; i < nfromv; i++) {
        bool have_dims = cfg.given[SEARCH_PARAM_DIMS];
        scheme *s = cli_read_scheme(CMD, fromv[i], have_dims ? &cfg.p.fmt : NULL);
        if (!s) {
            rc = CLI_USAGE;
            goto out;
        }
        if (!have_dims) {
            cfg.p.fmt = s->fmt;
            cfg.given[SEARCH_PARAM_DIMS] = true;
        }
        if (s->fmt.n != cfg.p.fmt.n || s->fmt.m != cfg.p.fmt.m || s->fmt.p != cfg.p.fmt.p) {
            char a[32], b[32];
            rc = cli_error(CLI_USAGE, CMD, "%s: a scheme for %s, not %s", fromv[i],
                           scheme_format_str(s->fmt, a), scheme_format_str(cfg.p.fmt, b));
            scheme_free(s);
            goto out;
        }
        starts[nstarts++] = s;
    }
    if (!cfg.given[SEARCH_PARAM_DIMS]) {
        rc = cli_error(CLI_USAGE, CMD, "--dims NxMxP is required (flipgraph search --help)");
        goto out;
    }
    /* GF(2) starts become integer ones (or are refused); a walk --via-f2 is
     * over GF(2) and takes them as they are */
    if (search_z_not_via_f2(&cfg.p))
        for (int i = 0; i < nstarts; i++)
            if ((rc = z_start(&starts[i], fromv[i], quiet)) != CLI_OK)
                goto out;

    int backend = decide_backend(&cfg, resume);
    if (backend < 0) {
        rc = CLI_USAGE;
        goto out;
    }
    if (!search_config_resolve(&cfg, (search_backend)backend, err, sizeof err)) {
        rc = cli_error(CLI_USAGE, CMD, "%s%s", err,
                       cli.backend == SEARCH_BACKEND_AUTO && cli.given[SEARCH_PARAM_BACKEND]
                           ? " (--backend auto chose it)" : "");
        goto out;
    }
    if (pool_dir) {
        /* the folder now, not after the run: a bad --pool-out must not cost the walk */
        if (!session_set_pool_dir(ss, pool_dir, err, sizeof err)) {
            rc = cli_error(CLI_USAGE, CMD, "%s", err);
            goto out;
        }
        if (!cfg.given[SEARCH_PARAM_POOL_KEEP])
            cfg.p.pool_keep = 1000;
    } else if (cfg.p.pool_every > 0) {
        if (cli.given[SEARCH_PARAM_POOL_EVERY]) {
            rc = cli_error(CLI_USAGE, CMD, "--pool-every: the checkpoints go to --pool-out DIR (give it)");
            goto out;
        }
        cfg.p.pool_every = 0; /* a resumed run's interval, without a folder to write to this time */
    }
    if (cfg.p.pool_every > 0 && cfg.p.pool_keep <= 0) {
        rc = cli_error(CLI_USAGE, CMD, "--pool-every: --pool-keep 0 keeps no pool to write");
        goto out;
    }
    int explicit_target = cfg.p.target_rank;
    if (until_record) {
        /* the same rule as sweep --until-record, plus an explicit target: the
         * higher rank stops first, so the stop comes no later than either asks */
        int t = cli_until_record_target_ring(cfg.p.fmt, (scheme_ring)cfg.p.ring, cfg.p.target_rank);
        if (t < 0) {
            char a[32];
            rc = cli_error(CLI_USAGE, CMD,
                           "--until-record: no known %s record for %s (records.tsv lists the formats "
                           "with every dimension <= 6, those with a 7, and <1,m,p>); give --target-rank instead",
                           scheme_ring_name(cfg.p.ring), scheme_format_str(cfg.p.fmt, a));
            goto out;
        }
        cfg.p.target_rank = t;
    }
    if (!cfg.given[SEARCH_PARAM_TIME] && !cfg.p.target_rank && !cfg.p.max_flips)
        cfg.p.time_limit = 60;
    if (!cfg.given[SEARCH_PARAM_SEED])
        cfg.p.seed = random_seed();
    if (from_db) {
        scheme *s = NULL;
        st = session_best_start(ss, cfg.p.fmt, (scheme_ring)cfg.p.ring, search_start_coef_max(&cfg.p),
                                cfg.backend == SEARCH_BACKEND_GPU, &s, err, sizeof err);
        if (st == DB_OK) {
            starts[nstarts++] = s;
        } else if (st == DB_NOT_FOUND) {
            char a[32];
            if (!quiet)
                fprintf(stderr, "flipgraph search: no %s scheme%s in %s yet: starting from the standard algorithm\n",
                        scheme_format_str(cfg.p.fmt, a),
                        cfg.p.ring == SCHEME_RING_Z && cfg.backend == SEARCH_BACKEND_GPU
                            ? " over Z with coefficients in {-1, 0, 1} (the GPU walk's)"
                            : "",
                        db_path);
        } else {
            rc = cli_error(cli_db_exit(st), CMD, "--from-db: %s", err);
            goto out;
        }
    }
    if (out_dir && !session_set_out_dir(ss, out_dir, err, sizeof err)) {
        rc = cli_error(CLI_USAGE, CMD, "%s", err);
        goto out;
    }
    if (cfg.backend == SEARCH_BACKEND_GPU)
        cfg.gpu.verbose = verbose && !quiet;
    if (search_mpi_active() && cfg.p.ring == SCHEME_RING_Z) {
        /* the ranks exchange schemes as GF(2) words (search/mpi.c) */
        rc = cli_error(CLI_USAGE, CMD, "--mpi with --ring z: the ranks exchange GF(2) schemes only; a search over Z "
                       "runs in one process (docs/cluster.md)");
        goto out;
    }
    if (search_mpi_active() && (cli.given[SEARCH_PARAM_DEVICE] || cli.given[SEARCH_PARAM_DEVICES])) {
        rc = cli_error(CLI_USAGE, CMD, "--mpi: every rank walks on the GPU of its local rank; give no --device or "
                       "--devices (docs/cluster.md)");
        goto out;
    }

    char fb[32];
    if (!quiet) {
        banner_info bi = {&cfg, (const scheme *const *)starts, nstarts,
                          nfromv ? "--from" : nstarts ? "the database's best" : "the standard algorithm",
                          until_record, explicit_target};
        banner(&bi);
    }

    char *mpi_ranks = NULL; /* the ranks, hosts and devices in words: the run record's device */
    if (search_mpi_active()) {
        scheme **sp = starts;
        int code = search_mpi_share(&cfg, &sp, &nstarts, -1, err, sizeof err);
        g_mpi_shared = true;
        if (code >= 0) {
            rc = cli_error(code, CMD, "%s", err);
            goto out;
        }
        mpi_ranks = search_mpi_configure(&cfg);
        if (!quiet)
            fprintf(stderr, "%s\n", mpi_ranks ? mpi_ranks : "mpi: (out of memory)");
    }

    ctx cx = {.verbose = verbose, .quiet = quiet, .resume = resume};
    session_hooks hooks = {.ctx = &cx, .improved = on_improved, .progress = on_progress, .started = on_started,
                           .pool_checkpoint = on_pool_checkpoint};
    session_run run;
    search_result res;
    session_search(ss, &cfg, mpi_ranks, (const scheme *const *)starts, nstarts, &hooks, &run, &res);
    free(mpi_ranks);
    if (run.begin_failed) {
        rc = cli_error(cli_db_exit(run.begin_status), CMD, "%s", run.msg);
        search_result_free(&res);
        goto out;
    }
    if (run.end_lost) /* said even when the search failed for another reason */
        cli_error(CLI_INTERNAL, CMD, "%s", run.end_msg);
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
    /* the pool's intake; the failed walks' share where --siblings is read (docs/search.md, "Siblings") */
    const bool reads_siblings = cfg.backend != SEARCH_BACKEND_GPU || search_gpu_walks_warp(&cfg.p);
    if (!quiet && reads_siblings && cfg.p.siblings > 0)
        fprintf(stderr, "flipgraph search: the pool took %" PRIu64 " schemes, %" PRIu64 " of them siblings (--siblings %d)\n",
                res.pooled, res.siblings, cfg.p.siblings);
    else if (!quiet)
        fprintf(stderr, "flipgraph search: the pool took %" PRIu64 " schemes\n", res.pooled);
    /* how hard the bias pushed: the share of flips its test undid (docs/search.md);
     * a window from 0 (--weight-bias 0 --weight-bias-max M) biases all its walkers but one */
    if (!quiet && (cfg.p.weight_bias > 0 || cfg.p.weight_bias_max > 0 || cfg.p.degree_bias > 0))
        fprintf(stderr, "flipgraph search: the bias undid %" PRIu64 " of %" PRIu64 " flips (%.1f%%)\n", res.undone,
                res.flips, res.flips ? 100.0 * (double)res.undone / (double)res.flips : 0.0);
    if ((run.lifts_tried || run.lifts_skipped) && !quiet)
        fprintf(stderr, "flipgraph search: %d of %d GF(2) improvements lifted to Z%s\n", run.lifts_ok,
                run.lifts_tried,
                run.lifts_skipped ? (snprintf(fb, sizeof fb, " (%d not tried)", run.lifts_skipped), fb) : "");
    if (run.lift_walk_rank && !quiet)
        fprintf(stderr, "flipgraph search: the lifting walk around a GF(2) scheme of rank %d: %d neighbours tried in "
                        "%.1f s, %s\n", run.lift_walk_rank, run.lift_walk_tried, run.lift_walk_seconds,
                run.lift_walk_ok ? "one lifted" : "none lifted");
    if (search_lifts_to_z(&cfg.p) && !res.best)
        printf("no scheme over Z for %s after %.1f s: %s\n", scheme_format_str(cfg.p.fmt, fb), res.seconds, res.msg);
    else
        printf("best rank %d for %s after %.1f s, %.2g flips (%.2g flips/s)\n", res.best_rank,
           scheme_format_str(cfg.p.fmt, fb), res.seconds, (double)res.flips,
           res.seconds > 0 ? (double)res.flips / res.seconds : 0.0);
    fflush(stdout);
    rc = res.status == SEARCH_REACHED ? CLI_OK : CLI_NEGATIVE;
    if (run.end_lost) /* a store failure outweighs the search's answer */
        rc = CLI_INTERNAL;
    if (pool_dir) {
        int written = 0;
        if (!session_write_pool(ss, &res, &written, err, sizeof err))
            rc = cli_error(CLI_INTERNAL, CMD, "%s", err);
        else if (!quiet)
            fprintf(stderr, "flipgraph search: %d schemes of the pool (ranks %d..%d) written to %s\n", written,
                    res.npool ? res.pool[0]->rank : 0, res.npool ? res.pool[res.npool - 1]->rank : 0, pool_dir);
        if (run.pool_failed) /* the end's write decides the exit code: it holds the latest pool */
            fprintf(stderr, "flipgraph search: %d of %d pool checkpoints failed; the first, %s\n", run.pool_failed,
                    run.pool_checkpoints, run.pool_msg);
    }
    search_result_free(&res);
out:
    for (int i = 0; i < nstarts; i++)
        scheme_free(starts[i]);
    free(starts);
    cli_paths_free(fromv, nfromv);
    session_close(ss);
    return rc;
}

/* A worker rank of --mpi (rank > 0): rank 0 parsed, read the starts and keeps
 * the store; this rank walks what it is given and prints nothing (a failure
 * goes to rank 0, which says it). */
static int search_worker(void)
{
    search_config cfg;
    search_config_default(&cfg);
    scheme **starts = NULL;
    int nstarts = 0;
    char err[512] = "";
    int code = search_mpi_share(&cfg, &starts, &nstarts, -1, err, sizeof err);
    if (code >= 0)
        return search_mpi_finish(code, err);
    free(search_mpi_configure(&cfg));
    int rc = CLI_INTERNAL;
    const char *msg = "out of memory";
    db_status st;
    search_session *ss = session_open(NULL, &st, err, sizeof err);
    session_run run;
    search_result res;
    memset(&res, 0, sizeof res);
    if (ss) {
        session_search(ss, &cfg, NULL, (const scheme *const *)starts, nstarts, NULL, &run, &res);
        rc = res.status == SEARCH_FAILED ? CLI_INTERNAL : res.status == SEARCH_BAD_PARAMS ? CLI_USAGE
             : res.status == SEARCH_REACHED                                        ? CLI_OK
                                                                                   : CLI_NEGATIVE;
        msg = res.msg;
    }
    rc = search_mpi_finish(rc, msg);
    search_result_free(&res);
    session_close(ss);
    for (int i = 0; i < nstarts; i++)
        scheme_free(starts[i]);
    free(starts);
    return rc;
}

int cmd_search(int argc, char **argv)
{
    bool mpi = false, meta = false;
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        mpi |= !strcmp(argv[i], "--mpi");
        meta |= !strcmp(argv[i], "--meta");
    }
    if (mpi && meta) /* the meta search's legs run in one process (docs/resize.md) */
        return cli_error(CLI_USAGE, CMD, "--meta and --mpi: the meta search runs in one process; give one of them");
    if (!mpi)
        return search_body(argc, argv);
    char err[512];
    if (!search_mpi_init(err, sizeof err))
        return cli_error(CLI_USAGE, CMD, "%s", err);
    if (search_mpi_rank() > 0)
        return search_worker();
    g_mpi_shared = false;
    int rc = search_body(argc, argv);
    if (!g_mpi_shared) /* rank 0 ended before the run (bad usage, --help): so does every rank */
        search_mpi_share(NULL, NULL, NULL, rc, err, sizeof err);
    return search_mpi_finish(rc, NULL);
}
