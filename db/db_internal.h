/* db: what the files of db/ share and nobody else sees. */
#ifndef FLIPGRAPH_DB_INTERNAL_H
#define FLIPGRAPH_DB_INTERNAL_H

#include <sqlite3.h>

#include "db.h"

struct db {
    sqlite3 *h;
    char *path;
    bool readonly;
    bool immutable;    /* opened with immutable=1 (a WAL file in a folder we cannot write) */
    double busy_limit; /* seconds a write may wait for other writers */
    int version;       /* the file's schema version once open (db_schema_version) */
    sqlite3_stmt *find, *insert; /* cached: inserts come in bursts */
};

/* The schema, one step per version (db_schema.c). */
typedef struct db_migration {
    int version;     /* user_version after this step */
    const char *sql;
} db_migration;
extern const db_migration db_migrations[];
extern const int db_migration_count;

/* Maps a SQLite result code to a db_status. */
db_status db__status(int rc);
/* Fills err with "PATH: what: SQLite's message (what it means)" and returns
 * the mapped status (never DB_OK). */
db_status db__fail(db *d, int rc, const char *what, char *err, size_t errlen);
/* A status with a message of our own. */
db_status db__err(db_status st, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* BEGIN IMMEDIATE, retried on SQLITE_BUSY until busy_limit: no busy error
 * reaches the caller unless another writer holds the lock that long. */
db_status db__begin(db *d, char *err, size_t errlen);
db_status db__commit(db *d, char *err, size_t errlen);
void db__rollback(db *d);
/* sqlite3_exec with the same busy retry (statements outside a transaction). */
int db__exec(db *d, const char *sql);
/* sqlite3_step for a read that has not returned rows yet, retried on BUSY. */
int db__step_first(db *d, sqlite3_stmt *st);
int db__prepare(db *d, const char *sql, sqlite3_stmt **st);
/* Sleeps ms milliseconds (backoff). */
void db__sleep_ms(int ms);
double db__now(void);

/* Copies a possibly NULL text column into buf. */
void db__col_text(sqlite3_stmt *st, int col, char *buf, size_t len);
/* The version string db_set_program_version set. */
const char *db__program_version(void);
/* Passes a warning to the handler of db_set_warning_handler (stderr by default). */
void db__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A scheme ready to store: checked, canonical bytes and hash (db_codec.c). */
typedef struct db_prepared {
    scheme_format fmt;
    scheme_ring ring;
    int rank;
    uint8_t *bytes;
    size_t len;
    char hash[17];
} db_prepared;
/* Checks the shape (format, words inside the factors, Z parity), verifies
 * over the ring, and computes the canonical bytes.  DB_INVALID with the
 * verifier's message, DB_IO when out of memory. */
db_status db__prepare_scheme(const scheme *s, db_prepared *p, char *err, size_t errlen);
void db__prepared_free(db_prepared *p);
/* Only the canonical bytes and hash, no checks (lookups). */
db_status db__canonical(const scheme *s, db_prepared *p, char *err, size_t errlen);
/* Decodes canonical bytes back into a scheme; NULL with a message when the
 * bytes are not a well-formed canonical scheme. */
scheme *db__decode(const uint8_t *b, size_t len, char *err, size_t errlen);
/* Verifies a scheme over its ring; false with the verifier's message. */
bool db__verify(const scheme *s, char *msg, size_t msglen);

/* Inserts a prepared scheme inside an open transaction (db_insert.c);
 * found_at NULL: now (merges keep the original time). */
db_status db__insert_tx(db *d, const db_prepared *p, const db_provenance *prov,
                        const char *found_at, int64_t *id, bool *existed, char *err,
                        size_t errlen);

#endif
