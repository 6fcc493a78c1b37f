/* Errors, transactions and the busy retry shared by every db_ function.
 *
 * SQLite's busy timeout makes a writer wait for the lock, but some waits
 * bypass the busy handler (SQLITE_BUSY_RECOVERY while another connection
 * rebuilds the WAL index, SQLITE_BUSY_SNAPSHOT, or a writer that holds the
 * lock longer than the timeout).  BEGIN IMMEDIATE takes the write lock up
 * front, so after it nothing in the transaction can hit SQLITE_BUSY; the
 * loop here retries BEGIN IMMEDIATE itself with a jittered backoff until
 * busy_limit, so that no busy error reaches a user of two processes. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db_internal.h"

double db__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void db__sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

db_status db__status(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE:
        return DB_OK;
    case SQLITE_FULL:
        return DB_FULL;
    case SQLITE_READONLY:
    case SQLITE_PERM:
        return DB_READONLY;
    case SQLITE_CORRUPT:
        return DB_CORRUPT;
    case SQLITE_NOTADB:
        return DB_NOT_FLIPGRAPH;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return DB_BUSY;
    default:
        return DB_IO;
    }
}

const char *db_status_name(db_status st)
{
    switch (st) {
    case DB_OK: return "ok";
    case DB_INVALID: return "invalid scheme";
    case DB_NOT_FOUND: return "not found";
    case DB_BUSY: return "busy";
    case DB_FULL: return "database full";
    case DB_READONLY: return "read-only";
    case DB_NOT_FLIPGRAPH: return "not a flipgraph database";
    case DB_CORRUPT: return "corrupt database";
    case DB_NEWER: return "newer schema";
    case DB_IO: return "I/O or internal error";
    case DB_MISUSE: return "bad request";
    }
    return "unknown status";
}

db_status db__err(db_status st, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}

db_status db__fail(db *d, int rc, const char *what, char *err, size_t errlen)
{
    db_status st = db__status(rc);
    if (st == DB_OK)
        st = DB_IO;
    const char *msg = d && d->h ? sqlite3_errmsg(d->h) : sqlite3_errstr(rc);
    const char *hint = "";
    switch (st) {
    case DB_FULL:
        hint = " (disk or size limit full: nothing of this change was stored)";
        break;
    case DB_READONLY:
        hint = " (the database cannot be written: file, folder or --read-only)";
        break;
    case DB_CORRUPT:
        hint = " (the file is damaged: `flipgraph db check` says where)";
        break;
    case DB_NOT_FLIPGRAPH:
        hint = " (not a SQLite database)";
        break;
    case DB_BUSY:
        hint = " (another process held the write lock past the busy limit)";
        break;
    default:
        break;
    }
    if (st == DB_IO) /* the extended code tells I/O failures apart (sqlite.org/rescode.html) */
        return db__err(st, err, errlen, "%s: %s: %s (SQLite code %d)",
                       d && d->path ? d->path : "database", what, msg, rc);
    return db__err(st, err, errlen, "%s: %s: %s%s", d && d->path ? d->path : "database", what,
                   msg, hint);
}

static int backoff_ms(int attempt)
{
    /* 1, 2, 4, ... 64 ms with jitter, so two writers do not retry in lockstep. */
    int base = 1 << (attempt < 6 ? attempt : 6);
    unsigned jitter = (unsigned)(db__now() * 1e9) ^ (unsigned)getpid() * 2654435761u;
    return base + (int)(jitter % (unsigned)(base + 1));
}

db_status db__begin(db *d, char *err, size_t errlen)
{
    double start = db__now();
    for (int attempt = 0;; attempt++) {
        int rc = sqlite3_exec(d->h, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return DB_OK;
        if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
            return db__fail(d, rc, "starting a transaction", err, errlen);
        if (db__now() - start > d->busy_limit)
            return db__err(DB_BUSY, err, errlen,
                           "%s: another process held the write lock for more than %.0f s",
                           d->path, d->busy_limit);
        db__sleep_ms(backoff_ms(attempt));
    }
}

db_status db__commit(db *d, char *err, size_t errlen)
{
    double start = db__now();
    for (int attempt = 0;; attempt++) {
        int rc = sqlite3_exec(d->h, "COMMIT", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return DB_OK;
        /* A busy COMMIT leaves the transaction open and may be retried. */
        if ((rc & 0xff) == SQLITE_BUSY && db__now() - start <= d->busy_limit &&
            !sqlite3_get_autocommit(d->h)) {
            db__sleep_ms(backoff_ms(attempt));
            continue;
        }
        db_status st = db__fail(d, rc, "committing", err, errlen);
        db__rollback(d);
        return st;
    }
}

void db__rollback(db *d)
{
    /* SQLite may already have rolled back (SQLITE_FULL, SQLITE_IOERR...). */
    if (!sqlite3_get_autocommit(d->h))
        sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
}

int db__exec(db *d, const char *sql)
{
    double start = db__now();
    for (int attempt = 0;; attempt++) {
        int rc = sqlite3_exec(d->h, sql, NULL, NULL, NULL);
        if ((rc & 0xff) != SQLITE_BUSY || !sqlite3_get_autocommit(d->h) ||
            db__now() - start > d->busy_limit)
            return rc;
        db__sleep_ms(backoff_ms(attempt));
    }
}

int db__step_first(db *d, sqlite3_stmt *st)
{
    double start = db__now();
    for (int attempt = 0;; attempt++) {
        int rc = sqlite3_step(st);
        if ((rc & 0xff) != SQLITE_BUSY || !sqlite3_get_autocommit(d->h) ||
            db__now() - start > d->busy_limit)
            return rc;
        sqlite3_reset(st);
        db__sleep_ms(backoff_ms(attempt));
    }
}

int db__prepare(db *d, const char *sql, sqlite3_stmt **st)
{
    double start = db__now();
    for (int attempt = 0;; attempt++) {
        /* Preparing reads the schema, which can meet a busy WAL index too. */
        int rc = sqlite3_prepare_v2(d->h, sql, -1, st, NULL);
        if ((rc & 0xff) != SQLITE_BUSY || db__now() - start > d->busy_limit)
            return rc;
        db__sleep_ms(backoff_ms(attempt));
    }
}

void db__col_text(sqlite3_stmt *st, int col, char *buf, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(buf, len, "%s", t ? (const char *)t : "");
}

