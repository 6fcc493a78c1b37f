/* db: the scheme store, one SQLite file (ARCHITECTURE.md section 7).
 *
 * A scheme row is inserted only after it verified (the insert re-verifies it);
 * the canonical hash is unique per ring.  Every row says where it came from.
 * Several processes may write one database at once (WAL, busy timeout,
 * BEGIN IMMEDIATE).  This is the interface; db/ implements it (issue 4).
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
    DB_IO            /* any other failure */
} db_status;

/* --db PATH, else $FLIPGRAPH_DB, else ./flipgraph.db */
const char *db_default_path(const char *option);

/* Opens (creating and migrating when create is true) a database. */
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
} db_run_info;
db_status db_run_begin(db *d, const db_run_info *info, int64_t *run_id, char *err, size_t errlen);
db_status db_run_improvement(db *d, int64_t run_id, double seconds, int rank, char *err, size_t errlen);
/* status: "running", "finished", "interrupted", "failed". */
db_status db_run_end(db *d, int64_t run_id, const char *status, uint64_t flips, int best_rank,
                     char *err, size_t errlen);
/* The stored parameters of a run (malloc'd "key=value" lines), to resume it. */
char *db_run_params(db *d, int64_t run_id, db_status *st, char *err, size_t errlen);

#endif
