/* db: the scheme store, one SQLite file (docs/db.md).
 *
 * A scheme row is inserted only after it verified (the insert re-verifies it);
 * the canonical hash is unique per ring.  Every row says where it came from.
 * Several processes may write one database at once (WAL, busy timeout,
 * BEGIN IMMEDIATE).  This is the interface; db/ implements it.
 */
#ifndef FLIPGRAPH_DB_H
#define FLIPGRAPH_DB_H

#include <stdbool.h>
#include <stdint.h>

#include "../schemes/scheme.h"

typedef struct db db;

typedef enum db_status {
    DB_OK = 0,
    DB_INVALID,      /* the scheme did not verify: refused, message says why */
    DB_NOT_FOUND,    /* no such id / nothing stored */
    DB_BUSY,         /* still locked after the busy timeout */
    DB_FULL,         /* disk or page limit full: nothing of this change stored */
    DB_READONLY,     /* the file or its folder cannot be written */
    DB_NOT_FLIPGRAPH,/* a SQLite file of something else, or not SQLite at all */
    DB_CORRUPT,      /* SQLite reports corruption */
    DB_NEWER,        /* written by a newer schema version than this program knows */
    DB_IO,           /* any other failure */
    DB_MISUSE        /* the request itself is wrong (merging a database into itself, a
                      * malformed FLIPGRAPH_DB_MAX_BYTES): nothing was done */
} db_status;

/* --db PATH, else $FLIPGRAPH_DB, else ./flipgraph.db */
const char *db_default_path(const char *option);

/* Opens a database for writing (creating it when create is true; migrating
 * an older one): db_open_ex with DB_OPEN_WRITE, plus DB_OPEN_CREATE. */
db *db_open(const char *path, bool create, db_status *st, char *err, size_t errlen);
void db_close(db *d);

/* Where a scheme came from; zero / NULL fields are unknown. */
typedef struct db_provenance {
    int64_t run_id;     /* 0: none (imported) */
    int64_t parent_id;  /* 0: none (lifted or derived schemes name their parent) */
    const char *source; /* "search", "import:FILE", "lift", ... */
    uint64_t flips;     /* flips the run had done when it found this */
    double seconds;     /* seconds into the run */
} db_provenance;

/* Verifies s (over its ring) and stores it in one transaction.  When it is
 * already stored (same ring and canonical hash) *existed is true and *id is
 * the stored row.  DB_INVALID with the verifier's message when invalid. */
db_status db_insert_scheme(db *d, const scheme *s, const db_provenance *prov,
                           int64_t *id, bool *existed, char *err, size_t errlen);
/* The same for many schemes in one transaction (bursts of improvements). */
db_status db_insert_schemes(db *d, const scheme *const *s, int count, const db_provenance *prov,
                            int64_t *ids, bool *existed, char *err, size_t errlen);
/* A stored scheme by id (caller frees). */
scheme *db_load_scheme(db *d, int64_t id, db_status *st, char *err, size_t errlen);
/* The lowest-rank stored scheme of a format and ring: DB_NOT_FOUND when none. */
db_status db_best(db *d, scheme_format f, scheme_ring ring, int64_t *id, int *rank,
                  char *err, size_t errlen);

/* Runs: a run row holds every parameter needed to resume it. */
typedef struct db_run_info {
    scheme_format fmt;
    const char *params;   /* the full parameters, as "key=value" lines */
    uint64_t seed;
    const char *backend;  /* "cpu" or "gpu" */
    const char *device;   /* "2 threads", "NVIDIA H100 ..." */
    const char *version;  /* NULL: the one set with db_set_program_version */
} db_run_info;
db_status db_run_begin(db *d, const db_run_info *info, int64_t *run_id, char *err, size_t errlen);
db_status db_run_improvement(db *d, int64_t run_id, double seconds, int rank, char *err, size_t errlen);
/* status: "running", "finished", "interrupted", "failed". */
db_status db_run_end(db *d, int64_t run_id, const char *status, uint64_t flips, int best_rank,
                     char *err, size_t errlen);
/* The stored parameters of a run (malloc'd "key=value" lines), to resume it. */
char *db_run_params(db *d, int64_t run_id, db_status *st, char *err, size_t errlen);

/* ======================================================================
 * Extensions.  Everything above keeps its meaning; see docs/db.md.
 * ====================================================================== */

/* PRAGMA application_id of every flipgraph database: "FLGR" in ASCII.
 * PRAGMA user_version is the schema version; migrations bring older files
 * up to DB_SCHEMA_VERSION, newer ones are refused (DB_NEWER). */
#define DB_APPLICATION_ID 0x464C4752
#define DB_SCHEMA_VERSION 2

/* Flags of db_open_ex.  DB_OPEN_READONLY opens with SQLITE_OPEN_READONLY:
 * every change then fails with DB_READONLY (this works for root too, whom
 * file permissions do not stop); files of an older schema version are read
 * as they are (nothing is migrated).  DB_OPEN_WRITE: the caller means to
 * write, so a file that can only be opened read-only is refused with
 * DB_READONLY, and when the last `flipgraph db check` recorded in the file
 * found problems, a warning goes to the warning handler (below).  Without
 * DB_OPEN_READONLY the file is opened read-write where it can be, and
 * FLIPGRAPH_DB_MAX_BYTES (a number of bytes), when set, caps every writable
 * handle as db_set_max_bytes does (a quota; the tests fill the "disk" with
 * it); a malformed value refuses the open with DB_MISUSE. */
enum { DB_OPEN_CREATE = 1u, DB_OPEN_READONLY = 2u, DB_OPEN_WRITE = 4u };
db *db_open_ex(const char *path, unsigned flags, db_status *st, char *err, size_t errlen);

/* Where the store's warnings go (today one: a store whose last recorded
 * `db check` found problems is opened for writing): "warning: MSG" on
 * stderr by default (fn NULL); process-wide. */
typedef void (*db_warning_fn)(void *ctx, const char *msg);
void db_set_warning_handler(db_warning_fn fn, void *ctx);
/* The schema version of the open file (older than DB_SCHEMA_VERSION only
 * for a read-only handle on an old file). */
int db_schema_version(const db *d);

/* "ok", "invalid", "not found", ... for messages. */
const char *db_status_name(db_status st);
/* The path it was opened with; whether changes are refused (read-only). */
const char *db_path(const db *d);
bool db_is_readonly(const db *d);

/* The program version recorded in new run rows when db_run_info.version is
 * NULL (the CLI sets FLIPGRAPH_VERSION and its commit); default "unknown". */
void db_set_program_version(const char *version);
/* How long a write waits for other writers before DB_BUSY (default 600 s, or
 * FLIPGRAPH_DB_BUSY_SECONDS when set, read by db_open_ex: a malformed value
 * refuses the open with DB_MISUSE; SQLite's busy timeout and a retry loop
 * around BEGIN IMMEDIATE). */
void db_set_busy_limit(db *d, double seconds);
/* Caps this connection's file size (PRAGMA max_page_count): a change that
 * would grow past it fails with DB_FULL and stores nothing (quotas, tests). */
db_status db_set_max_bytes(db *d, int64_t bytes, char *err, size_t errlen);

/* Like db_insert_schemes, with one provenance per scheme (provs[i]).  In
 * both, schemes that do not verify are refused (ids[i] = 0) while the valid
 * ones are still stored: the status is then DB_INVALID and err names the
 * first refused one by its index.  Any other failure stores nothing. */
db_status db_insert_schemes_each(db *d, const scheme *const *s, int count,
                                 const db_provenance *provs, int64_t *ids, bool *existed,
                                 char *err, size_t errlen);
/* Stores a scheme as read (one transaction): a Z scheme is stored with ring
 * Z and its reduction mod 2 with ring F2, parent_id = the Z row.  f2_id and
 * f2_existed (may be NULL) describe the reduction; 0 when s is over F2. */
db_status db_import_scheme(db *d, const scheme *s, const db_provenance *prov, int64_t *id,
                           bool *existed, int64_t *f2_id, bool *f2_existed,
                           char *err, size_t errlen);
/* The id of a stored scheme equal to s (same ring and terms): DB_NOT_FOUND when none. */
db_status db_find_scheme(db *d, const scheme *s, int64_t *id, char *err, size_t errlen);

/* One stored scheme's row, without its terms. */
typedef struct db_scheme_row {
    int64_t id;
    scheme_format fmt;
    scheme_ring ring;
    int rank;
    char hash[17];       /* canonical hash, 16 hex digits, big-endian */
    char found_at[32];   /* UTC, "YYYY-MM-DDTHH:MM:SS.sssZ" */
    int64_t run_id;      /* 0: none */
    int64_t parent_id;   /* 0: none */
    char source[256];
    uint64_t flips;      /* 0: unknown */
    double seconds;      /* 0: unknown */
} db_scheme_row;
db_status db_scheme_info(db *d, int64_t id, db_scheme_row *row, char *err, size_t errlen);

/* Which schemes db_list visits: by format (when has_fmt), ring (-1: both),
 * at most limit rows (0: all).  Order: format, ring, rank, id. */
typedef struct db_filter {
    bool has_fmt;
    scheme_format fmt;
    int ring;
    int64_t limit;
} db_filter;
/* Callbacks return false to stop early. */
typedef bool (*db_scheme_fn)(void *ctx, const db_scheme_row *row);
db_status db_list(db *d, const db_filter *f, db_scheme_fn fn, void *ctx, char *err, size_t errlen);

/* Per format: how many schemes and the best rank per ring (index = ring). */
typedef struct db_format_row {
    scheme_format fmt;
    int64_t count[2];
    int best_rank[2];    /* 0: none stored over that ring */
    int64_t best_id[2];
} db_format_row;
typedef bool (*db_format_fn)(void *ctx, const db_format_row *row);
db_status db_formats(db *d, db_format_fn fn, void *ctx, char *err, size_t errlen);

typedef struct db_stats_info {
    int schema_version;
    int64_t schemes[2];      /* by ring */
    int64_t formats;
    int64_t runs, improvements;
    int64_t runs_running;    /* marked running and not killed (db_run_row.effective) */
    int64_t runs_killed;     /* marked running, their process gone */
    int64_t bytes;           /* page_count * page_size */
    char journal_mode[16];
} db_stats_info;
db_status db_stats(db *d, db_stats_info *out, char *err, size_t errlen);

/* Runs. */
typedef struct db_run_row {
    int64_t id;
    char uid[33];            /* random, unique across databases (merges) */
    scheme_format fmt;
    uint64_t seed;
    char backend[16];
    char device[1024];       /* an MPI run lists its ranks here (docs/cluster.md) */
    char host[128];
    char version[64];
    char started[32], ended[32]; /* ended "" while running */
    char status[16];         /* as stored: running, finished, interrupted, failed */
    char effective[16];      /* status, or "killed" when it says running and its
                              * process is gone (db_run_gone) */
    int64_t pid;             /* the process that ran it; 0: unknown (schema 1) */
    int64_t pid_start;       /* its start time (/proc/PID/stat, clock ticks after boot); 0: unknown */
    char boot_id[40];        /* the host's boot id when it started; "" unknown */
    char heartbeat[32];      /* UTC of its last sign of life; "" unknown */
    double heartbeat_age;    /* seconds since then; -1 unknown */
    uint64_t flips;
    int best_rank;           /* 0: none yet */
    int64_t schemes;         /* schemes stored with this run_id */
    int64_t improvements;
} db_run_row;
typedef bool (*db_run_fn)(void *ctx, const db_run_row *row);
db_status db_list_runs(db *d, db_run_fn fn, void *ctx, char *err, size_t errlen);
db_status db_run_get(db *d, int64_t run_id, db_run_row *row, char *err, size_t errlen);
/* Records progress of a live run (flips so far, best rank; 0 keeps it) so that
 * a run killed without db_run_end still says how far it got; it is also the
 * run's heartbeat (db_run_begin, db_run_improvement and db_run_end beat too).
 * A live run writes progress at least every DB_RUN_HEARTBEAT_SECONDS. */
db_status db_run_progress(db *d, int64_t run_id, uint64_t flips, int best_rank,
                          char *err, size_t errlen);
#define DB_RUN_HEARTBEAT_SECONDS 60
/* A run marked running whose process is gone: on this host (same host name),
 * another boot, or its pid not alive (kill(pid, 0) fails with ESRCH, a
 * zombie, or a live pid with another start time: reused); on another host, a
 * heartbeat older than DB_RUN_STALE_SECONDS.  A row without pid or heartbeat
 * (schema 1) is taken as alive.  db_list_runs and db_run_get fill
 * row->effective with it ("killed"). */
#define DB_RUN_STALE_SECONDS 900
bool db_run_gone(const db_run_row *row);
/* The improvement log of a run, oldest first (caller frees *out). */
typedef struct db_improvement {
    double seconds;
    int rank;
} db_improvement;
db_status db_run_improvements(db *d, int64_t run_id, db_improvement **out, int64_t *count,
                              char *err, size_t errlen);

/* db check: SQLite's integrity check, then every stored scheme decoded,
 * compared with its columns and hash, and re-verified over its ring.  Each
 * problem goes to fn (scheme_id 0: not about one scheme).  DB_OK when the
 * check ran to its end, whatever it found (report->problems says). */
typedef struct db_check_report {
    bool integrity_ok;
    int64_t schemes, verified, problems;
} db_check_report;
typedef void (*db_problem_fn)(void *ctx, int64_t scheme_id, const char *msg);
db_status db_check(db *d, db_problem_fn fn, void *ctx, db_check_report *report,
                   char *err, size_t errlen);
/* Records a check's verdict in the store (table checks): one row when it
 * found problems, none when it was clean; opening for writing then warns
 * (DB_OPEN_WRITE).  DB_READONLY on a read-only handle. */
db_status db_record_check(db *d, const db_check_report *report, char *err, size_t errlen);
/* The verdict recorded last: DB_NOT_FOUND when none (never checked, or the
 * last check was clean). */
db_status db_last_check(db *d, char at[32], int64_t *problems, bool *integrity_ok, char *err,
                        size_t errlen);

/* Takes every run and scheme of another database (opened read-only) into d:
 * runs matched by uid, schemes by hash, every scheme re-verified before it is
 * stored, run and parent ids remapped.  Idempotent, so an interrupted merge
 * can simply be repeated.  Refused schemes go to fn and are counted. */
typedef struct db_merge_report {
    int64_t runs_added, runs_known;
    int64_t schemes_added, schemes_known, schemes_refused;
} db_merge_report;
db_status db_merge(db *d, const char *other_path, db_problem_fn fn, void *ctx,
                   db_merge_report *report, char *err, size_t errlen);

#endif
