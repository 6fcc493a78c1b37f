/* Opening a database: is it ours, which schema version, WAL, migrations. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db_internal.h"

/* Writers wait this long for each other before DB_BUSY: long enough that a
 * merge or a large batch in another process never surfaces as an error. */
#define DB_DEFAULT_BUSY_LIMIT 600.0
#define DB_BUSY_TIMEOUT_MS 5000

const char *db_default_path(const char *option)
{
    if (option && *option)
        return option;
    const char *env = getenv("FLIPGRAPH_DB");
    if (env && *env)
        return env;
    return "flipgraph.db";
}

const char *db_path(const db *d) { return d->path; }
bool db_is_readonly(const db *d) { return d->readonly; }
void db_set_busy_limit(db *d, double seconds) { d->busy_limit = seconds > 0 ? seconds : 0; }

db_status db_set_max_bytes(db *d, int64_t bytes, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc = db__prepare(d, "PRAGMA page_size", &st);
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "reading the page size", err, errlen);
    rc = db__step_first(d, st);
    int64_t page = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 4096;
    sqlite3_finalize(st);
    if (page <= 0)
        page = 4096;
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA max_page_count = %lld",
             (long long)(bytes / page > 1 ? bytes / page : 1));
    rc = db__exec(d, sql);
    return rc == SQLITE_OK ? DB_OK : db__fail(d, rc, "setting the size limit", err, errlen);
}

/* What the file says it is, read outside any transaction. */
typedef struct header {
    int app, version;
    int64_t objects; /* rows of sqlite_master */
} header;

/* One statement, so one snapshot: read piecewise, another process's
 * migration could commit in between and make a fresh file look foreign. */
static int read_header(db *d, header *h)
{
    sqlite3_stmt *st;
    int rc = db__prepare(d,
                         "SELECT (SELECT application_id FROM pragma_application_id), "
                         "(SELECT user_version FROM pragma_user_version), "
                         "(SELECT count(*) FROM sqlite_master)", &st);
    if (rc != SQLITE_OK)
        return rc;
    rc = db__step_first(d, st);
    if (rc == SQLITE_ROW) {
        h->app = sqlite3_column_int(st, 0);
        h->version = sqlite3_column_int(st, 1);
        h->objects = sqlite3_column_int64(st, 2);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

static bool is_fresh(const header *h) { return h->app == 0 && h->version == 0 && h->objects == 0; }

/* Refuses what is not ours or too new; DB_OK for ours (any older version)
 * and for a fresh empty file when create is allowed. */
static db_status judge(db *d, const header *h, bool create, char *err, size_t errlen)
{
    if (h->app == DB_APPLICATION_ID) {
        /* Our migrations set the id, the version and the tables in one
         * transaction: tables at version 0 were not made by flipgraph (or by
         * hand), and migrating would meet "table runs already exists". */
        if (h->version <= 0 && h->objects > 0)
            return db__err(DB_NOT_FLIPGRAPH, err, errlen,
                           "%s: not a flipgraph database: it carries flipgraph's application_id, "
                           "but schema version %d with tables present (%lld schema objects; "
                           "flipgraph writes the version with its tables): refusing to touch it",
                           d->path, h->version, (long long)h->objects);
        if (h->version > DB_SCHEMA_VERSION)
            return db__err(DB_NEWER, err, errlen,
                           "%s: written by a newer flipgraph (schema version %d; this program "
                           "knows versions up to %d): use a newer flipgraph, or another --db",
                           d->path, h->version, DB_SCHEMA_VERSION);
        return DB_OK;
    }
    if (is_fresh(h))
        return create ? DB_OK
                      : db__err(DB_NOT_FLIPGRAPH, err, errlen,
                                "%s: an empty file, not a flipgraph database yet "
                                "(`flipgraph db init --db %s` makes it one)",
                                d->path, d->path);
    if (h->app == 0)
        return db__err(DB_NOT_FLIPGRAPH, err, errlen,
                       "%s: a SQLite database of another program (no flipgraph application_id), "
                       "not a flipgraph database: refusing to touch it",
                       d->path);
    return db__err(DB_NOT_FLIPGRAPH, err, errlen,
                   "%s: a SQLite database of another program (application_id 0x%08x, "
                   "flipgraph's is 0x%08x): refusing to touch it",
                   d->path, (unsigned)h->app, (unsigned)DB_APPLICATION_ID);
}

static db_status header_fail(db *d, int rc, char *err, size_t errlen)
{
    if ((rc & 0xff) == SQLITE_NOTADB)
        return db__err(DB_NOT_FLIPGRAPH, err, errlen,
                       "%s: not a flipgraph database (not a SQLite file, or its header is damaged)", d->path);
    if ((rc & 0xff) == SQLITE_READONLY)
        return db__err(DB_READONLY, err, errlen,
                       "%s: the database is read-only: the file or its folder is not writable "
                       "(SQLite: %s)", d->path, sqlite3_errmsg(d->h));
    if ((rc & 0xff) == SQLITE_CORRUPT)
        return db__err(DB_CORRUPT, err, errlen,
                       "%s: the database file is corrupt (%s)", d->path, sqlite3_errmsg(d->h));
    return db__fail(d, rc, "reading the database header", err, errlen);
}

static db_status migrate(db *d, bool create, char *err, size_t errlen)
{
    db_status st = db__begin(d, err, errlen);
    if (st != DB_OK)
        return st;
    header h;
    int rc = read_header(d, &h); /* again, under the write lock: another process may have won */
    if (rc != SQLITE_OK) {
        st = header_fail(d, rc, err, errlen);
        db__rollback(d);
        return st;
    }
    if ((st = judge(d, &h, create, err, errlen)) != DB_OK) {
        db__rollback(d);
        return st;
    }
    int from = h.app == DB_APPLICATION_ID ? h.version : 0;
    for (int i = 0; i < db_migration_count; i++) {
        if (db_migrations[i].version <= from)
            continue;
        rc = sqlite3_exec(d->h, db_migrations[i].sql, NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            char what[64];
            snprintf(what, sizeof what, "migrating to schema version %d", db_migrations[i].version);
            st = db__fail(d, rc, what, err, errlen);
            db__rollback(d);
            return st;
        }
    }
    if (from < DB_SCHEMA_VERSION) {
        char sql[128];
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d; PRAGMA application_id = %d",
                 DB_SCHEMA_VERSION, DB_APPLICATION_ID);
        rc = sqlite3_exec(d->h, sql, NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            st = db__fail(d, rc, "recording the schema version", err, errlen);
            db__rollback(d);
            return st;
        }
    }
    return db__commit(d, err, errlen);
}

static db_status set_wal(db *d, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc = db__prepare(d, "PRAGMA journal_mode", &st);
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "reading the journal mode", err, errlen);
    rc = db__step_first(d, st);
    bool wal = rc == SQLITE_ROW && sqlite3_column_text(st, 0) &&
               !strcmp((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return db__fail(d, rc, "reading the journal mode", err, errlen);
    if (wal)
        return DB_OK;
    rc = db__prepare(d, "PRAGMA journal_mode = WAL", &st);
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "switching to WAL", err, errlen);
    rc = db__step_first(d, st);
    wal = rc == SQLITE_ROW && sqlite3_column_text(st, 0) &&
          !strcmp((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return db__fail(d, rc, "switching to WAL", err, errlen);
    if (!wal)
        return db__err(DB_IO, err, errlen,
                       "%s: SQLite refused the WAL journal (a file system without shared "
                       "memory?)", d->path);
    return DB_OK;
}

/* 0 when the folder of path is writable, else errno (ENOENT: no such folder). */
static int dir_writable(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return 0;
    char *slash = strrchr(copy, '/');
    const char *dir = ".";
    if (slash == copy)
        dir = "/";
    else if (slash) {
        *slash = 0;
        dir = copy;
    }
    int e = access(dir, W_OK) == 0 ? 0 : errno;
    free(copy);
    return e;
}

/* Opens the SQLite handle; immutable: as a URI with immutable=1. */
static int open_handle(db *d, const char *path, int flags, bool immutable)
{
    int rc;
    if (!immutable) {
        rc = sqlite3_open_v2(path, &d->h, flags, NULL);
    } else {
        size_t n = strlen(path);
        char *uri = malloc(3 * n + 32), *q = uri;
        if (!uri)
            return SQLITE_NOMEM;
        q += sprintf(q, "file:");
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)path[i];
            if (c == '%' || c == '?' || c == '#' || c <= ' ' || c >= 0x7f)
                q += sprintf(q, "%%%02X", c);
            else
                *q++ = (char)c;
        }
        sprintf(q, "?immutable=1");
        rc = sqlite3_open_v2(uri, &d->h, flags | SQLITE_OPEN_URI, NULL);
        free(uri);
    }
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_extended_result_codes(d->h, 1);
    /* one wait of SQLite's never outlasts the whole limit */
    sqlite3_busy_timeout(d->h, d->busy_limit * 1000 < DB_BUSY_TIMEOUT_MS ? (int)(d->busy_limit * 1000)
                                                                          : DB_BUSY_TIMEOUT_MS);
    /* A file we may not write is opened read-only by SQLite without a word:
     * remember it, so that a change says "read-only" rather than failing oddly. */
    if (sqlite3_db_readonly(d->h, "main") == 1)
        d->readonly = true;
    return SQLITE_OK;
}

static db *fail_open(db *d, db_status code, db_status *st)
{
    if (st)
        *st = code;
    db_close(d);
    return NULL;
}

/* FLIPGRAPH_DB_MAX_BYTES on a writable handle (db_open_ex). */
static db_status apply_max_bytes(db *d, char *err, size_t errlen)
{
    const char *env = getenv("FLIPGRAPH_DB_MAX_BYTES");
    if (!env || !*env)
        return DB_OK;
    char *end;
    errno = 0;
    long long v = strtoll(env, &end, 10);
    if (end == env || *end || errno || v < 1)
        return db__err(DB_MISUSE, err, errlen,
                       "FLIPGRAPH_DB_MAX_BYTES='%s': expected a positive number of bytes", env);
    return db_set_max_bytes(d, v, err, errlen);
}

/* The verdict of the last `db check`, when it found problems: a warning
 * before anything is written (DB_OPEN_WRITE). */
static void warn_if_checked_bad(db *d)
{
    char at[32], when[32];
    int64_t problems;
    bool integrity;
    if (db_last_check(d, at, &problems, &integrity, NULL, 0) != DB_OK || problems <= 0)
        return;
    snprintf(when, sizeof when, "%.19s UTC", at);
    if (strlen(when) > 10 && when[10] == 'T')
        when[10] = ' ';
    db__warn("%s: the last `flipgraph db check` (%s) found %lld problem%s%s; writing anyway",
             d->path, when, (long long)problems, problems == 1 ? "" : "s",
             integrity ? "" : " (SQLite's integrity check failed)");
}

db *db_open_ex(const char *path, unsigned flags, db_status *st, char *err, size_t errlen)
{
    bool create = flags & DB_OPEN_CREATE, ro = flags & DB_OPEN_READONLY;
    bool write = !ro && (flags & DB_OPEN_WRITE);
    if (err && errlen)
        err[0] = 0;
    if (!path || !*path) {
        if (st)
            *st = db__err(DB_NOT_FOUND, err, errlen, "no database path given");
        return NULL;
    }
    db *d = calloc(1, sizeof *d);
    if (!d || !(d->path = strdup(path))) {
        free(d);
        if (st)
            *st = db__err(DB_IO, err, errlen, "%s: out of memory", path);
        return NULL;
    }
    d->busy_limit = DB_DEFAULT_BUSY_LIMIT;
    d->readonly = ro;
    /* FLIPGRAPH_DB_BUSY_SECONDS: how long a writer waits for another's lock
     * (a cluster's shared store may want more; tests of a locked store less) */
    const char *busy = getenv("FLIPGRAPH_DB_BUSY_SECONDS");
    if (busy && *busy) {
        char *end;
        errno = 0;
        double v = strtod(busy, &end);
        if (end == busy || *end || errno || !(v > 0 && v <= 1e6))
            return fail_open(d, db__err(DB_MISUSE, err, errlen,
                                        "FLIPGRAPH_DB_BUSY_SECONDS='%s': expected seconds, more "
                                        "than 0 and at most 1e6", busy), st);
        d->busy_limit = v;
    }

    struct stat sb;
    if (stat(path, &sb) != 0) {
        if (errno != ENOENT)
            return fail_open(d, db__err(DB_IO, err, errlen, "%s: %s", path, strerror(errno)), st);
        if (!create || ro)
            return fail_open(d, db__err(DB_NOT_FOUND, err, errlen,
                                        "%s: no such database (`flipgraph db init --db %s` "
                                        "creates one)", path, path), st);
        int e = dir_writable(path);
        if (e == ENOENT || e == ENOTDIR)
            return fail_open(d, db__err(DB_NOT_FOUND, err, errlen,
                                        "%s: cannot create the database: its folder does not "
                                        "exist", path), st);
        if (e)
            return fail_open(d, db__err(DB_READONLY, err, errlen,
                                        "%s: cannot create the database: its folder is not "
                                        "writable (%s)", path, strerror(e)), st);
    } else if (!S_ISREG(sb.st_mode)) {
        return fail_open(d, db__err(DB_NOT_FLIPGRAPH, err, errlen,
                                    "%s: not a flipgraph database (not a regular file)", path), st);
    }

    int oflags = ro ? SQLITE_OPEN_READONLY
                    : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    int rc = open_handle(d, path, oflags, false);
    if (rc != SQLITE_OK)
        return fail_open(d, db__fail(d, rc, "opening", err, errlen), st);

    header h;
    rc = read_header(d, &h);
    if (ro && ((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN)) {
        /* A WAL database whose -shm file cannot be created (a folder we may
         * not write) cannot be read the normal way; opened immutable, SQLite
         * reads the main file alone.  Nobody can be writing it then, except
         * root: docs/db.md says so. */
        char wal[4200];
        struct stat ws;
        snprintf(wal, sizeof wal, "%s-wal", path);
        if (stat(wal, &ws) == 0 && ws.st_size > 0)
            /* immutable would ignore it, and with it schemes already committed */
            return fail_open(d, db__err(DB_READONLY, err, errlen,
                                        "%s: committed changes wait in %s, and this folder "
                                        "cannot be written to fold them in: open the database "
                                        "once as a user who can write there", path, wal), st);
        sqlite3_close_v2(d->h);
        d->h = NULL;
        rc = open_handle(d, path, SQLITE_OPEN_READONLY, true);
        d->immutable = true;
        if (rc != SQLITE_OK)
            return fail_open(d, db__fail(d, rc, "opening read-only", err, errlen), st);
        rc = read_header(d, &h);
    }
    if (!ro && (rc & 0xff) == SQLITE_CANTOPEN && (d->readonly || dir_writable(path) != 0))
        return fail_open(d, db__err(DB_READONLY, err, errlen,
                                    "%s: the database is read-only here: the file or its folder "
                                    "is not writable (SQLite keeps its -wal and -shm files next "
                                    "to it)", path), st);
    if (rc != SQLITE_OK)
        return fail_open(d, header_fail(d, rc, err, errlen), st);
    db_status js = judge(d, &h, create && !d->readonly, err, errlen);
    if (js != DB_OK)
        return fail_open(d, js, st);
    if (write && d->readonly) /* SQLite opened it read-only without a word */
        return fail_open(d, db__err(DB_READONLY, err, errlen,
                                    "%s: the database is read-only: the file or its folder is "
                                    "not writable", path), st);
    if (!d->readonly) {
        db_status ws = set_wal(d, err, errlen);
        if (ws != DB_OK)
            return fail_open(d, ws, st);
        /* FULL: a commit is on disk (WAL fsync'd) before the caller hears "stored". */
        db__exec(d, "PRAGMA synchronous = FULL");
    }
    db__exec(d, "PRAGMA foreign_keys = ON");
    d->version = h.app == DB_APPLICATION_ID ? h.version : 0;
    if (d->readonly && d->version >= 1) {
        /* an older file, read as it is: the queries know every version */
    } else if (h.app != DB_APPLICATION_ID || h.version < DB_SCHEMA_VERSION) {
        if (d->readonly)
            return fail_open(d, db__err(DB_READONLY, err, errlen,
                                        "%s: schema version %d must be migrated to %d, but the "
                                        "database is read-only", path, h.version,
                                        DB_SCHEMA_VERSION), st);
        db_status ms = migrate(d, create, err, errlen);
        if (ms != DB_OK)
            return fail_open(d, ms, st);
        d->version = DB_SCHEMA_VERSION;
    }
    if (!d->readonly) {
        /* after the migration: a quota must not keep a file from being brought up */
        db_status ls = apply_max_bytes(d, err, errlen);
        if (ls != DB_OK)
            return fail_open(d, ls, st);
    }
    if (write)
        warn_if_checked_bad(d);
    if (st)
        *st = DB_OK;
    return d;
}

int db_schema_version(const db *d) { return d->version; }

db *db_open(const char *path, bool create, db_status *st, char *err, size_t errlen)
{
    return db_open_ex(path, DB_OPEN_WRITE | (create ? DB_OPEN_CREATE : 0), st, err, errlen);
}

void db_close(db *d)
{
    if (!d)
        return;
    sqlite3_finalize(d->find);
    sqlite3_finalize(d->insert);
    if (d->h)
        sqlite3_close_v2(d->h);
    free(d->path);
    free(d);
}

/* ---- the program version recorded in runs ---- */

static char program_version[64] = "unknown";

void db_set_program_version(const char *version)
{
    snprintf(program_version, sizeof program_version, "%s", version && *version ? version : "unknown");
}

const char *db__program_version(void) { return program_version; }

/* ---- warnings ---- */

static db_warning_fn warning_fn;
static void *warning_ctx;

void db_set_warning_handler(db_warning_fn fn, void *ctx)
{
    warning_fn = fn;
    warning_ctx = ctx;
}

void db__warn(const char *fmt, ...)
{
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (warning_fn)
        warning_fn(warning_ctx, msg);
    else
        fprintf(stderr, "warning: %s\n", msg);
}
