/* flipgraph db: the scheme store from the command line (docs/db.md).
 *
 *   flipgraph db [--db PATH] init | stats | list | best | show | export |
 *                             import | check | runs | merge   [OPTIONS]
 *
 * --db PATH is accepted before or after the subcommand; without it
 * $FLIPGRAPH_DB, else ./flipgraph.db.  Exit codes (cli.h) for the store:
 * 0 ok; 1 a negative answer (no scheme for `best`, a scheme refused by
 * `import` or `merge`, problems found by `check`); 2 bad usage, unreadable
 * input, a database that is missing, read-only, not flipgraph's, newer or
 * corrupt, an id that does not exist; 3 a full disk or size limit, a lock
 * held past the busy limit, other I/O or internal failures. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db.h"
#include "../runtime/runtime.h"
#include "cli.h"
#include "fg_commit.h" /* FLIPGRAPH_GIT_COMMIT, written at every build */

#define CMD "db"

static const char *usage_text =
    "usage: flipgraph db [--db PATH] COMMAND [OPTIONS]\n"
    "\n"
    "The scheme store: one SQLite file (--db PATH, else $FLIPGRAPH_DB, else ./flipgraph.db).\n"
    "Every stored scheme was verified when it was stored.\n"
    "\n"
    "  init                          create the database (or bring it to this schema version)\n"
    "  stats                         counts, size, and the best rank of every format\n"
    "  list [--dims NxMxP] [--ring f2|z] [--limit N]\n"
    "                                stored schemes, by format, ring and rank\n"
    "  best --dims NxMxP [--ring f2|z]\n"
    "                                id and rank of the lowest-rank scheme (exit 1: none)\n"
    "  show ID                       one scheme: where it came from, and its terms\n"
    "  export ID --to exp|txt|m|native [-o OUT]\n"
    "                                write a stored scheme to a file (whole or not at all)\n"
    "  import FILE... [--dims NxMxP] verify and store scheme files (Z files: also mod 2)\n"
    "  check                         SQLite's integrity check and re-verify every scheme\n"
    "  runs                          the searches recorded, their parameters and results\n"
    "  merge OTHER.db                take every run and scheme of another database\n"
    "\n"
    "exit codes: 0 ok; 1 none found / some refused / problems found; 2 bad usage or input,\n"
    "a database missing, read-only, not flipgraph's, newer or corrupt; 3 disk full, lock\n"
    "held too long, other failures.  `flipgraph db COMMAND --help` for each command.\n";

static int fail(db_status st, const char *sub, const char *err)
{
    char cmd[32];
    snprintf(cmd, sizeof cmd, CMD " %s", sub);
    return cli_error(cli_db_exit(st), cmd, "%s", err);
}

/* Opens for writing (creating when asked; DB_OPEN_WRITE refuses a read-only
 * file, applies FLIPGRAPH_DB_MAX_BYTES and warns about a store a check found
 * damaged) or, for commands that only read, read-write when possible and
 * read-only otherwise. */
static db *open_db(const char *sub, const char *path, bool write, bool create, int *code)
{
    char err[1024];
    db_status st;
    const char *p = db_default_path(path);
    db *d = db_open_ex(p, (create ? DB_OPEN_CREATE : 0) | (write ? DB_OPEN_WRITE : 0), &st, err,
                       sizeof err);
    if (!d && !write && st == DB_READONLY)
        d = db_open_ex(p, DB_OPEN_READONLY, &st, err, sizeof err);
    if (!d)
        *code = fail(st, sub, err);
    return d;
}

/* ---- option parsing shared by the subcommands ---- */

typedef struct opts {
    const char *db;
    bool has_dims;
    scheme_format dims;
    int ring; /* -1: any */
    long limit;
    const char *to;
    const char *out;
    int first_arg; /* index of the first positional argument after getopt */
} opts;

enum { OPT_DB = 1000, OPT_DIMS, OPT_RING, OPT_LIMIT, OPT_TO };

static bool parse_ring(const char *s, int *ring)
{
    if (!strcmp(s, "f2") || !strcmp(s, "gf2"))
        *ring = SCHEME_RING_F2;
    else if (!strcmp(s, "z"))
        *ring = SCHEME_RING_Z;
    else
        return false;
    return true;
}

/* allowed: the letters of the options this subcommand takes (d dims, r ring,
 * l limit, t to, o out).  Returns -1 when parsed, else an exit code. */
static int parse(const char *sub, int argc, char **argv, const char *allowed, const char *help,
                 opts *o)
{
    static const struct option longs[] = {
        {"db", required_argument, NULL, OPT_DB},       {"dims", required_argument, NULL, OPT_DIMS},
        {"ring", required_argument, NULL, OPT_RING},   {"limit", required_argument, NULL, OPT_LIMIT},
        {"to", required_argument, NULL, OPT_TO},       {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},              {NULL, 0, NULL, 0}};
    char cmd[32];
    snprintf(cmd, sizeof cmd, CMD " %s", sub);
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", longs, NULL)) != -1) {
        char err[256];
        const char *letter = c == OPT_DIMS ? "d" : c == OPT_RING ? "r" : c == OPT_LIMIT ? "l"
                           : c == OPT_TO ? "t" : c == 'o' ? "o" : NULL;
        if (letter && !strchr(allowed, letter[0]))
            return cli_error(CLI_USAGE, cmd, "option '%s' does not apply here (flipgraph db %s --help)",
                             argv[optind - 1], sub);
        switch (c) {
        case 'h':
            fputs(help, stdout);
            return CLI_OK;
        case OPT_DB:
            o->db = optarg;
            break;
        case OPT_DIMS:
            if (!scheme_format_parse(optarg, &o->dims, err, sizeof err))
                return cli_error(CLI_USAGE, cmd, "--dims: %s", err);
            o->has_dims = true;
            break;
        case OPT_RING:
            if (!parse_ring(optarg, &o->ring))
                return cli_error(CLI_USAGE, cmd, "--ring '%s': expected f2 or z", optarg);
            break;
        case OPT_LIMIT:
            if (!cli_parse_long(optarg, 1, LONG_MAX, &o->limit))
                return cli_error(CLI_USAGE, cmd, "--limit '%s': expected a positive number",
                                 optarg);
            break;
        case OPT_TO:
            o->to = optarg;
            break;
        case 'o':
            o->out = optarg;
            break;
        case ':':
            return cli_error(CLI_USAGE, cmd, "option '%s' needs a value", argv[optind - 1]);
        default:
            return cli_error(CLI_USAGE, cmd, "unknown option '%s' (flipgraph db %s --help)",
                             argv[optind - 1], sub);
        }
    }
    o->first_arg = optind;
    return -1;
}

static int no_args(const char *sub, int argc, const opts *o)
{
    if (o->first_arg < argc) {
        char cmd[32];
        snprintf(cmd, sizeof cmd, CMD " %s", sub);
        return cli_error(CLI_USAGE, cmd, "unexpected argument (flipgraph db %s --help)", sub);
    }
    return -1;
}

static void fmt_short(scheme_format f, char buf[32]) { scheme_format_str(f, buf); }

/* "2026-01-02T03:04:05.678Z" -> "2026-01-02 03:04:05" (UTC) */
static const char *short_time(const char *iso, char buf[24])
{
    if (!iso[0])
        return "-";
    snprintf(buf, 24, "%.19s", iso);
    if (strlen(buf) > 10 && buf[10] == 'T')
        buf[10] = ' ';
    return buf;
}

static const char *id_or_dash(int64_t id, char buf[24])
{
    if (!id)
        return "-";
    snprintf(buf, 24, "%lld", (long long)id);
    return buf;
}

/* ---- init ---- */

static int db_init(int argc, char **argv, opts *o)
{
    static const char *help =
        "usage: flipgraph db init [--db PATH]\n\n"
        "Creates the database, or brings an older one to this program's schema version\n"
        "(migrations in one transaction).  Refuses files that are not flipgraph databases.\n";
    int rc = parse("init", argc, argv, "", help, o);
    if (rc >= 0 || (rc = no_args("init", argc, o)) >= 0)
        return rc;
    int code;
    db *d = open_db("init", o->db, true, true, &code);
    if (!d)
        return code;
    db_stats_info s;
    char err[1024];
    db_status st = db_stats(d, &s, err, sizeof err);
    if (st != DB_OK) {
        db_close(d);
        return fail(st, "init", err);
    }
    printf("%s: flipgraph database, schema version %d, %lld schemes, %lld runs\n", db_path(d),
           s.schema_version, (long long)(s.schemes[0] + s.schemes[1]), (long long)s.runs);
    db_close(d);
    return CLI_OK;
}

/* ---- stats ---- */

static bool print_format(void *ctx, const db_format_row *r)
{
    (void)ctx;
    char fb[32], b[4][24];
    fmt_short(r->fmt, fb);
    for (int ring = 0; ring < 2; ring++) {
        if (r->best_rank[ring])
            snprintf(b[2 * ring], 24, "%d", r->best_rank[ring]);
        else
            snprintf(b[2 * ring], 24, "-");
        char idb[24];
        snprintf(b[2 * ring + 1], 24, "%s", id_or_dash(r->best_id[ring], idb));
    }
    printf("%-10s %8s %8s %8lld %8s %8s %8lld\n", fb, b[0], b[1], (long long)r->count[0], b[2],
           b[3], (long long)r->count[1]);
    return true;
}

static int db_stats_cmd(int argc, char **argv, opts *o)
{
    static const char *help =
        "usage: flipgraph db stats [--db PATH]\n\n"
        "What the database holds: schemes per ring, runs, size, and per format the best\n"
        "rank over GF(2) and over Z with the id of that scheme.\n";
    int rc = parse("stats", argc, argv, "", help, o);
    if (rc >= 0 || (rc = no_args("stats", argc, o)) >= 0)
        return rc;
    int code;
    db *d = open_db("stats", o->db, false, false, &code);
    if (!d)
        return code;
    db_stats_info s;
    char err[1024];
    db_status st = db_stats(d, &s, err, sizeof err);
    if (st == DB_OK) {
        printf("database   %s\n", db_path(d));
        printf("schema     version %d, journal %s, %.1f KiB%s\n", s.schema_version,
               s.journal_mode, (double)s.bytes / 1024.0, db_is_readonly(d) ? ", read-only" : "");
        printf("schemes    %lld (GF(2) %lld, Z %lld) in %lld format%s\n",
               (long long)(s.schemes[0] + s.schemes[1]), (long long)s.schemes[0],
               (long long)s.schemes[1], (long long)s.formats, s.formats == 1 ? "" : "s");
        printf("runs       %lld (%lld running, %lld killed), %lld improvements logged\n",
               (long long)s.runs, (long long)s.runs_running, (long long)s.runs_killed,
               (long long)s.improvements);
        char at[32];
        int64_t problems;
        bool integrity;
        if (db_last_check(d, at, &problems, &integrity, NULL, 0) == DB_OK)
            printf("checked    %.10s %.8s UTC: %lld problem%s found (`flipgraph db check` again "
                   "once repaired)\n", at, at + (strlen(at) > 11 ? 11 : strlen(at)),
                   (long long)problems, problems == 1 ? "" : "s");
        if (s.formats) {
            printf("\n%-10s %8s %8s %8s %8s %8s %8s\n", "format", "f2 best", "f2 id", "f2 n",
                   "z best", "z id", "z n");
            st = db_formats(d, print_format, NULL, err, sizeof err);
        }
    }
    db_close(d);
    return st == DB_OK ? CLI_OK : fail(st, "stats", err);
}

/* ---- list ---- */

static bool print_row(void *ctx, const db_scheme_row *r)
{
    int *n = ctx;
    if ((*n)++ == 0)
        printf("%8s  %-10s %-4s %6s  %-16s  %-19s  %6s  %6s  %s\n", "id", "format", "ring", "rank",
               "hash", "found (UTC)", "run", "parent", "source");
    char fb[32], tb[24], rb[24], pb[24];
    fmt_short(r->fmt, fb);
    printf("%8lld  %-10s %-4s %6d  %-16s  %-19s  %6s  %6s  %s\n", (long long)r->id, fb,
           scheme_ring_key(r->ring), r->rank, r->hash, short_time(r->found_at, tb),
           id_or_dash(r->run_id, rb), id_or_dash(r->parent_id, pb), r->source);
    return true;
}

static int db_list_cmd(int argc, char **argv, opts *o)
{
    static const char *help =
        "usage: flipgraph db list [--db PATH] [--dims NxMxP] [--ring f2|z] [--limit N]\n\n"
        "Stored schemes ordered by format, ring and rank: id, hash, when and by which run\n"
        "each was found, its parent (the Z scheme a GF(2) one was reduced from...) and source.\n";
    int rc = parse("list", argc, argv, "drl", help, o);
    if (rc >= 0 || (rc = no_args("list", argc, o)) >= 0)
        return rc;
    int code;
    db *d = open_db("list", o->db, false, false, &code);
    if (!d)
        return code;
    db_filter f = {o->has_dims, o->dims, o->ring, o->limit};
    int n = 0;
    char err[1024];
    db_status st = db_list(d, &f, print_row, &n, err, sizeof err);
    db_close(d);
    if (st != DB_OK)
        return fail(st, "list", err);
    if (n == 0)
        printf("no schemes stored%s\n", o->has_dims || o->ring >= 0 ? " that match" : "");
    return CLI_OK;
}

/* ---- best ---- */

static int db_best_cmd(int argc, char **argv, opts *o)
{
    static const char *help =
        "usage: flipgraph db best --dims NxMxP [--ring f2|z] [--db PATH]\n\n"
        "Prints 'id ID rank R' of the lowest-rank scheme stored for the format (over GF(2)\n"
        "unless --ring z), or says there is none and exits 1.\n";
    int rc = parse("best", argc, argv, "dr", help, o);
    if (rc >= 0 || (rc = no_args("best", argc, o)) >= 0)
        return rc;
    if (!o->has_dims)
        return cli_error(CLI_USAGE, CMD " best", "--dims NxMxP is required");
    int code;
    db *d = open_db("best", o->db, false, false, &code);
    if (!d)
        return code;
    scheme_ring ring = o->ring == SCHEME_RING_Z ? SCHEME_RING_Z : SCHEME_RING_F2;
    int64_t id;
    int rank;
    char err[1024], fb[32];
    db_status st = db_best(d, o->dims, ring, &id, &rank, err, sizeof err);
    db_close(d);
    fmt_short(o->dims, fb);
    if (st == DB_NOT_FOUND) {
        printf("none: no %s scheme stored for %s\n", scheme_ring_name(ring), fb);
        return CLI_NEGATIVE;
    }
    if (st != DB_OK)
        return fail(st, "best", err);
    printf("id %lld rank %d (%s over %s)\n", (long long)id, rank, fb,
           scheme_ring_name(ring));
    return CLI_OK;
}

/* ---- show / export ---- */

static int parse_id(const char *sub, int argc, char **argv, const opts *o, int64_t *id)
{
    char cmd[32];
    snprintf(cmd, sizeof cmd, CMD " %s", sub);
    if (o->first_arg >= argc)
        return cli_error(CLI_USAGE, cmd, "expected a scheme ID (flipgraph db list shows them)");
    if (o->first_arg + 1 < argc)
        return cli_error(CLI_USAGE, cmd, "expected one scheme ID, got more arguments");
    long v;
    if (!cli_parse_long(argv[o->first_arg], 1, LONG_MAX, &v))
        return cli_error(CLI_USAGE, cmd, "'%s': expected a scheme ID (a positive number)",
                         argv[o->first_arg]);
    *id = v;
    return -1;
}

static int db_show_cmd(int argc, char **argv, opts *o)
{
    static const char *help =
        "usage: flipgraph db show ID [--db PATH]\n\n"
        "One stored scheme: its row (format, ring, rank, hash, provenance), its stability\n"
        "factor for float products when it is valid over Z (docs/float.md), and its terms\n"
        "in the .exp notation (native for dimensions above 9).\n";
    int rc = parse("show", argc, argv, "", help, o);
    int64_t id;
    if (rc >= 0 || (rc = parse_id("show", argc, argv, o, &id)) >= 0)
        return rc;
    int code;
    db *d = open_db("show", o->db, false, false, &code);
    if (!d)
        return code;
    db_scheme_row r;
    char err[1024];
    db_status st = db_scheme_info(d, id, &r, err, sizeof err);
    scheme *s = st == DB_OK ? db_load_scheme(d, id, &st, err, sizeof err) : NULL;
    if (!s) {
        db_close(d);
        return fail(st, "show", err);
    }
    char fb[32], tb[24], b1[24], b2[24];
    fmt_short(r.fmt, fb);
    printf("scheme    %lld\n", (long long)r.id);
    printf("format    %s\n", fb);
    printf("ring      %s\n", scheme_ring_name(r.ring));
    printf("rank      %d\n", r.rank);
    printf("hash      %s\n", r.hash);
    printf("found     %s UTC\n", short_time(r.found_at, tb));
    printf("run       %s\n", id_or_dash(r.run_id, b1));
    printf("parent    %s\n", id_or_dash(r.parent_id, b2));
    printf("source    %s\n", r.source);
    if (r.flips)
        printf("flips     %llu\n", (unsigned long long)r.flips);
    if (r.seconds > 0)
        printf("seconds   %.3f\n", r.seconds);
    /* The stability factor (Ballard, Benson, Druinsky, Lipshitz, Schwartz 2016):
     * how much a level of the scheme can grow rounding errors in a float product
     * (docs/float.md); only a scheme valid over Z computes float products. */
    rt_fplan fp;
    const scheme *one[1] = {s};
    if (rt_fplan_init(&fp, one, NULL, 1, NULL, err, sizeof err)) {
        printf("stability %g (float products, docs/float.md; additions depth %d)\n", fp.lv[0].stability,
               fp.lv[0].adds);
        rt_fplan_free(&fp);
    } else {
        printf("stability - (not valid over Z: no float products)\n");
    }
    scheme_file_kind kind =
        scheme_writable(s, SCHEME_FILE_EXP, NULL, 0) ? SCHEME_FILE_EXP : SCHEME_FILE_NATIVE;
    printf("terms     (%s)\n", scheme_file_kind_name(kind));
    bool ok = scheme_write(s, kind, stdout);
    scheme_free(s);
    db_close(d);
    if (!ok)
        return cli_error(CLI_INTERNAL, CMD " show", "writing the terms failed");
    return CLI_OK;
}

static int db_export_cmd(int argc, char **argv, opts *o)
{
    static const char *help =
        "usage: flipgraph db export ID --to exp|txt|m|native [-o OUT] [--db PATH]\n\n"
        "Writes a stored scheme to OUT (default: standard output), whole or not at all.\n"
        "The other formats of the field (json, bb, tex, md, c) are `flipgraph export ID`.\n";
    int rc = parse("export", argc, argv, "to", help, o);
    int64_t id;
    if (rc >= 0 || (rc = parse_id("export", argc, argv, o, &id)) >= 0)
        return rc;
    if (!o->to)
        return cli_error(CLI_USAGE, CMD " export", "--to exp|txt|m|native is required");
    scheme_file_kind kind = scheme_file_kind_parse(o->to);
    if (kind != SCHEME_FILE_EXP && kind != SCHEME_FILE_TXT && kind != SCHEME_FILE_M && kind != SCHEME_FILE_NATIVE)
        return cli_error(CLI_USAGE, CMD " export", "--to '%s': expected exp, txt, m or native (json and the "
                         "others: flipgraph export ID)", o->to);
    int code;
    db *d = open_db("export", o->db, false, false, &code);
    if (!d)
        return code;
    char err[1024];
    db_status st;
    scheme *s = db_load_scheme(d, id, &st, err, sizeof err);
    db_close(d);
    if (!s)
        return fail(st, "export", err);
    if (!scheme_writable(s, kind, err, sizeof err)) {
        scheme_free(s);
        return cli_error(CLI_USAGE, CMD " export", "scheme %lld as .%s: %s", (long long)id,
                         o->to, err);
    }
    scheme_write_ctx ctx = {s, kind};
    bool ok = scheme_write_file_atomic(o->out ? o->out : "-", scheme_write_cb, &ctx, err,
                                       sizeof err);
    scheme_free(s);
    if (!ok)
        return cli_error(CLI_INTERNAL, CMD " export", "%s", err);
    return CLI_OK;
}

/* ---- import ---- */

/* Verifies and stores one scheme read from label; false after a store
 * failure (*result says its exit code), which ends the import. */
static bool import_one(db *d, const char *label, const scheme *s, int *stored, int *known, int *refused,
                       int *result)
{
    char src[300], err[1024], fb[32], extra[128] = "";
    snprintf(src, sizeof src, "import:%s", label);
    db_provenance prov = {0, 0, src, 0, 0};
    int64_t id, f2_id;
    bool existed, f2_existed;
    db_status st = db_import_scheme(d, s, &prov, &id, &existed, &f2_id, &f2_existed, err,
                                    sizeof err);
    fmt_short(s->fmt, fb);
    if (st == DB_INVALID) {
        (*refused)++;
        printf("%-10s %s: %s\n", "refused", label, err);
    } else if (st != DB_OK) {
        printf("%-10s %s\n", "failed", label);
        *result = fail(st, "import", err);
        return false;
    } else {
        existed ? (*known)++ : (*stored)++;
        if (f2_id)
            snprintf(extra, sizeof extra, "  (mod 2: id %lld, %s)", (long long)f2_id,
                     f2_existed ? "already there" : "stored");
        printf("%-10s id %6lld  %-9s %-2s rank %4d  %s%s\n",
               existed ? "already" : "stored", (long long)id, fb, scheme_ring_key(s->ring),
               s->rank, label, extra);
    }
    return true;
}

static int db_import_cmd(int argc, char **argv, opts *o)
{
    static const char *help =
        "usage: flipgraph db import FILE... [--dims NxMxP] [--db PATH]\n\n"
        "Reads each scheme file (exp, txt, m, native, AlphaTensor .npz, JSON: detected), verifies\n"
        "it over its ring and stores it, creating the database when needed.  An .npz brings\n"
        "every scheme it holds (FILE[N,M,P]; --dims: only that one).  A file with integer coefficients\n"
        "is stored over Z, and its reduction mod 2 over GF(2) with the Z scheme as parent.\n"
        "Says per file: stored, already there (with the stored id), refused (the verifier's\n"
        "message) or unreadable (FILE:LINE:COL).\n"
        "exit: 0 all stored or already there; 1 some refused; 2 some unreadable.\n";
    int rc = parse("import", argc, argv, "d", help, o);
    if (rc >= 0)
        return rc;
    if (o->first_arg >= argc)
        return cli_error(CLI_USAGE, CMD " import", "expected scheme files to import");
    int code;
    db *d = open_db("import", o->db, true, true, &code);
    if (!d)
        return code;
    int stored = 0, known = 0, refused = 0, unreadable = 0;
    int result = CLI_OK;
    for (int i = o->first_arg; i < argc && result == CLI_OK; i++) {
        const char *path = argv[i];
        if (!o->has_dims && cli_is_npz_path(path)) {
            /* An AlphaTensor .npz: every scheme in it, labelled FILE[N,M,P]. */
            scheme_diag diag;
            memset(&diag, 0, sizeof diag);
            scheme_npz *z = scheme_npz_read_file(path, &diag);
            if (!z) {
                unreadable++;
                printf("%-10s %s: %s\n", "unreadable", path, diag.msg);
                continue;
            }
            for (int k = 0; k < z->count && result == CLI_OK; k++) {
                char label[4200];
                snprintf(label, sizeof label, "%s[%s]", path, z->e[k].key);
                if (!z->e[k].s) {
                    unreadable++;
                    printf("%-10s %s: beyond flipgraph's limits: %s\n", "unreadable", label, z->e[k].skipped);
                } else
                    import_one(d, label, z->e[k].s, &stored, &known, &refused, &result);
            }
            scheme_npz_free(z);
            continue;
        }
        scheme_diag diag;
        memset(&diag, 0, sizeof diag);
        scheme *s = scheme_read_file(path, o->has_dims ? &o->dims : NULL, &diag);
        if (!s) {
            unreadable++;
            if (diag.line > 0)
                printf("%-10s %s:%d:%d: %s\n", "unreadable", diag.file[0] ? diag.file : path, diag.line,
                       diag.col, diag.msg);
            else
                printf("%-10s %s: %s\n", "unreadable", path, diag.msg);
            continue;
        }
        import_one(d, path, s, &stored, &known, &refused, &result);
        scheme_free(s);
    }
    db_close(d);
    printf("%d stored, %d already there, %d refused, %d unreadable\n", stored, known, refused,
           unreadable);
    if (result != CLI_OK)
        return result;
    return unreadable ? CLI_USAGE : refused ? CLI_NEGATIVE : CLI_OK;
}

/* ---- check ---- */

static void print_problem(void *ctx, int64_t id, const char *msg)
{
    (void)ctx;
    if (id)
        printf("problem  scheme %lld: %s\n", (long long)id, msg);
    else
        printf("problem  %s\n", msg);
}

static int db_check_cmd(int argc, char **argv, opts *o)
{
    static const char *help =
        "usage: flipgraph db check [--db PATH]\n\n"
        "Runs SQLite's integrity and foreign-key checks, then decodes every stored scheme,\n"
        "compares it with its row (format, ring, rank, hash) and re-verifies it.\n"
        "The verdict is recorded in the store: while the last check found problems, every\n"
        "command that writes to it warns first (a clean check clears it).\n"
        "exit: 0 all well; 1 problems found (each printed); 2 the file cannot be opened as a\n"
        "flipgraph database; 3 a clean check whose verdict could not be recorded.\n";
    int rc = parse("check", argc, argv, "", help, o);
    if (rc >= 0 || (rc = no_args("check", argc, o)) >= 0)
        return rc;
    int code;
    db *d = open_db("check", o->db, false, false, &code);
    if (!d)
        return code;
    db_check_report rep;
    char err[1024];
    db_status st = db_check(d, print_problem, NULL, &rep, err, sizeof err);
    if (st != DB_OK) {
        db_close(d);
        return fail(st, "check", err);
    }
    printf("integrity %s; %lld schemes, %lld verified; %lld problem%s\n",
           rep.integrity_ok ? "ok" : "FAILED", (long long)rep.schemes, (long long)rep.verified,
           (long long)rep.problems, rep.problems == 1 ? "" : "s");
    fflush(stdout);
    code = rep.problems ? CLI_NEGATIVE : CLI_OK;
    /* the verdict, for the writers that come later (they warn while it says damaged) */
    if (db_is_readonly(d)) {
        fprintf(stderr, "flipgraph db check: %s is read-only here: the verdict was not recorded "
                        "in it\n", db_path(d));
    } else if ((st = db_record_check(d, &rep, err, sizeof err)) != DB_OK) {
        cli_error(code, CMD " check", "the verdict could not be recorded in the store: %s", err);
        if (code == CLI_OK) /* an earlier verdict of damage may stay: say so by the code */
            code = CLI_INTERNAL;
    }
    db_close(d);
    return code;
}

/* ---- runs ---- */

static bool print_run(void *ctx, const db_run_row *r)
{
    int *n = ctx;
    if ((*n)++ == 0)
        printf("%6s  %-10s %-11s %-4s %20s %14s %5s %6s %7s  %-19s  %-19s  %s\n", "id", "format",
               "status", "back", "seed", "flips", "best", "impr", "schemes", "started (UTC)",
               "ended (UTC)", "device / host:pid / version");
    char fb[32], t1[24], t2[24], best[16];
    fmt_short(r->fmt, fb);
    if (r->best_rank)
        snprintf(best, sizeof best, "%d", r->best_rank);
    else
        snprintf(best, sizeof best, "-");
    char pid[24] = "";
    if (r->pid)
        snprintf(pid, sizeof pid, ":%lld", (long long)r->pid);
    /* effective: "killed" for a run marked running whose process is gone (db_run_gone) */
    printf("%6lld  %-10s %-11s %-4s %20llu %14llu %5s %6lld %7lld  %-19s  %-19s  %s / %s%s / %s\n",
           (long long)r->id, fb, r->effective, r->backend, (unsigned long long)r->seed,
           (unsigned long long)r->flips, best, (long long)r->improvements, (long long)r->schemes,
           short_time(r->started, t1), short_time(r->ended, t2), r->device[0] ? r->device : "-",
           r->host, pid, r->version);
    return true;
}

static int db_runs_cmd(int argc, char **argv, opts *o)
{
    static const char *help =
        "usage: flipgraph db runs [--db PATH]\n\n"
        "The searches recorded: format, status, backend, seed, flips, best rank, number of\n"
        "improvements logged and schemes stored, start and end, device, host and process id,\n"
        "version.  A run marked running whose process is gone shows as killed: on this host\n"
        "its process id is no longer alive (or belongs to a later process); on another host\n"
        "its heartbeat (progress written at least every minute) is older than 15 minutes.\n"
        "`flipgraph search --resume ID` continues one with its stored parameters.\n";
    int rc = parse("runs", argc, argv, "", help, o);
    if (rc >= 0 || (rc = no_args("runs", argc, o)) >= 0)
        return rc;
    int code;
    db *d = open_db("runs", o->db, false, false, &code);
    if (!d)
        return code;
    int n = 0;
    char err[1024];
    db_status st = db_list_runs(d, print_run, &n, err, sizeof err);
    db_close(d);
    if (st != DB_OK)
        return fail(st, "runs", err);
    if (n == 0)
        printf("no runs recorded\n");
    return CLI_OK;
}

/* ---- merge ---- */

static int db_merge_cmd(int argc, char **argv, opts *o)
{
    static const char *help =
        "usage: flipgraph db merge OTHER.db [--db PATH]\n\n"
        "Takes every run and scheme of OTHER.db (opened read-only) into the database:\n"
        "runs matched by their unique id, schemes by ring and hash, each scheme re-verified.\n"
        "Repeating a merge adds nothing.  exit: 0 ok; 1 some schemes refused.\n";
    int rc = parse("merge", argc, argv, "", help, o);
    if (rc >= 0)
        return rc;
    if (o->first_arg + 1 != argc)
        return cli_error(CLI_USAGE, CMD " merge", "expected one database to merge from");
    int code;
    db *d = open_db("merge", o->db, true, true, &code);
    if (!d)
        return code;
    db_merge_report rep;
    char err[1024];
    db_status st = db_merge(d, argv[o->first_arg], print_problem, NULL, &rep, err, sizeof err);
    db_close(d);
    if (st != DB_OK)
        return fail(st, "merge", err);
    printf("runs: %lld added, %lld already there; schemes: %lld added, %lld already there, "
           "%lld refused\n", (long long)rep.runs_added, (long long)rep.runs_known,
           (long long)rep.schemes_added, (long long)rep.schemes_known,
           (long long)rep.schemes_refused);
    return rep.schemes_refused ? CLI_NEGATIVE : CLI_OK;
}

/* ---- dispatch ---- */

static const struct {
    const char *name;
    int (*fn)(int, char **, opts *);
} subs[] = {
    {"init", db_init},       {"stats", db_stats_cmd},   {"list", db_list_cmd},
    {"best", db_best_cmd},   {"show", db_show_cmd},     {"export", db_export_cmd},
    {"import", db_import_cmd}, {"check", db_check_cmd}, {"runs", db_runs_cmd},
    {"merge", db_merge_cmd},
};

int cmd_db(int argc, char **argv)
{
#ifdef FLIPGRAPH_VERSION
    db_set_program_version(FLIPGRAPH_VERSION " (" FLIPGRAPH_GIT_COMMIT ")");
#endif
    opts o = {NULL, false, {0, 0, 0}, -1, 0, NULL, NULL, 0};
    int i = 1;
    /* --db may come before the subcommand too. */
    while (i < argc && argv[i][0] == '-') {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            return CLI_OK;
        }
        if (!strcmp(argv[i], "--db") && i + 1 < argc) {
            o.db = argv[i + 1];
            i += 2;
        } else if (!strncmp(argv[i], "--db=", 5)) {
            o.db = argv[i] + 5;
            i++;
        } else {
            return cli_error(CLI_USAGE, CMD, "unknown option '%s' before the command (flipgraph db "
                             "--help)", argv[i]);
        }
    }
    if (i >= argc) {
        fputs(usage_text, stderr);
        return CLI_USAGE;
    }
    for (size_t k = 0; k < sizeof subs / sizeof *subs; k++)
        if (!strcmp(argv[i], subs[k].name))
            return subs[k].fn(argc - i, argv + i, &o);
    return cli_error(CLI_USAGE, CMD, "unknown command '%s' (flipgraph db --help)", argv[i]);
}
