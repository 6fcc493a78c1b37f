/* db check: is the file sound, and is every stored scheme what its row says
 * and still valid?  SQLite's integrity and foreign-key checks, then every
 * row decoded, compared with its columns and hash, and re-verified. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "db_internal.h"

typedef struct checker {
    db_problem_fn fn;
    void *ctx;
    db_check_report *rep;
} checker;

static void problem(checker *c, int64_t id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void problem(checker *c, int64_t id, const char *fmt, ...)
{
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->rep->problems++;
    if (c->fn)
        c->fn(c->ctx, id, msg);
}

/* Runs a PRAGMA whose rows are problems ("ok" alone meaning none). */
static bool pragma_check(db *d, checker *c, const char *sql, const char *name)
{
    sqlite3_stmt *st;
    int rc = db__prepare(d, sql, &st);
    if (rc != SQLITE_OK) {
        problem(c, 0, "%s could not run: %s", name, sqlite3_errmsg(d->h));
        return false;
    }
    bool clean = true;
    for (rc = db__step_first(d, st); rc == SQLITE_ROW; rc = sqlite3_step(st)) {
        int cols = sqlite3_column_count(st);
        const unsigned char *t0 = sqlite3_column_text(st, 0);
        if (cols == 1 && t0 && !strcmp((const char *)t0, "ok"))
            continue;
        clean = false;
        char line[600] = "";
        size_t used = 0;
        for (int i = 0; i < cols && used < sizeof line - 1; i++) {
            const unsigned char *t = sqlite3_column_text(st, i);
            used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", i ? " " : "",
                                     t ? (const char *)t : "NULL");
        }
        problem(c, 0, "%s: %s", name, line);
    }
    if (rc != SQLITE_DONE) {
        clean = false;
        problem(c, 0, "%s stopped: %s", name, sqlite3_errmsg(d->h));
    }
    sqlite3_finalize(st);
    return clean;
}

db_status db_check(db *d, db_problem_fn fn, void *ctx, db_check_report *report, char *err,
                   size_t errlen)
{
    db_check_report tmp;
    db_check_report *rep = report ? report : &tmp;
    memset(rep, 0, sizeof *rep);
    checker c = {fn, ctx, rep};

    rep->integrity_ok = pragma_check(d, &c, "PRAGMA integrity_check", "integrity check");
    rep->integrity_ok &= pragma_check(d, &c, "PRAGMA foreign_key_check", "foreign key check");

    sqlite3_stmt *st;
    int rc = db__prepare(d, "SELECT id, terms, n, m, p, ring, rank, hash FROM schemes ORDER BY id",
                         &st);
    if (rc != SQLITE_OK) {
        problem(&c, 0, "cannot read the schemes: %s", sqlite3_errmsg(d->h));
        return DB_OK;
    }
    for (rc = db__step_first(d, st); rc == SQLITE_ROW; rc = sqlite3_step(st)) {
        int64_t id = sqlite3_column_int64(st, 0);
        rep->schemes++;
        char msg[700];
        scheme *s = db__decode(sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1),
                               msg, sizeof msg);
        if (!s) {
            problem(&c, id, "%s", msg);
            continue;
        }
        const unsigned char *ring = sqlite3_column_text(st, 5);
        char hash[17], h[17];
        db__col_text(st, 7, hash, sizeof hash);
        scheme_hash_hex(scheme_hash(s), h);
        if (s->fmt.n != sqlite3_column_int(st, 2) || s->fmt.m != sqlite3_column_int(st, 3) ||
            s->fmt.p != sqlite3_column_int(st, 4) || s->rank != sqlite3_column_int(st, 6) ||
            !ring || strcmp((const char *)ring, scheme_ring_key(s->ring)))
            problem(&c, id, "its terms disagree with its format, ring or rank columns");
        else if (strcmp(h, hash))
            problem(&c, id, "its terms hash to %s, the row says %s", h, hash);
        else if (!db__verify(s, msg, sizeof msg))
            problem(&c, id, "%s", msg);
        else
            rep->verified++;
        scheme_free(s);
    }
    if (rc != SQLITE_DONE)
        problem(&c, 0, "reading the schemes stopped after %lld rows: %s",
                (long long)rep->schemes, sqlite3_errmsg(d->h));
    sqlite3_finalize(st);
    (void)err;
    (void)errlen;
    return DB_OK;
}

/* ---- the verdict, kept in the store (table checks, schema 2) ---- */

db_status db_record_check(db *d, const db_check_report *rep, char *err, size_t errlen)
{
    if (d->readonly)
        return db__err(DB_READONLY, err, errlen, "%s: the database is read-only", d->path);
    db_status res = db__begin(d, err, errlen);
    if (res != DB_OK)
        return res;
    int rc = sqlite3_exec(d->h, "DELETE FROM checks", NULL, NULL, NULL);
    if (rc == SQLITE_OK && rep->problems > 0) {
        sqlite3_stmt *st;
        rc = sqlite3_prepare_v2(d->h,
                                "INSERT INTO checks (at, problems, integrity_ok) VALUES "
                                "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?1, ?2)", -1, &st, NULL);
        if (rc == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, rep->problems);
            sqlite3_bind_int(st, 2, rep->integrity_ok ? 1 : 0);
            rc = sqlite3_step(st);
            sqlite3_finalize(st);
            if (rc == SQLITE_DONE)
                rc = SQLITE_OK;
        }
    }
    if (rc != SQLITE_OK) {
        res = db__fail(d, rc, "recording the check's verdict", err, errlen);
        db__rollback(d);
        return res;
    }
    return db__commit(d, err, errlen);
}

db_status db_last_check(db *d, char at[32], int64_t *problems, bool *integrity_ok, char *err,
                        size_t errlen)
{
    if (d->version < 2)
        return db__err(DB_NOT_FOUND, err, errlen, "%s: no check recorded", d->path);
    sqlite3_stmt *st;
    int rc = db__prepare(d,
                         "SELECT at, problems, integrity_ok FROM checks ORDER BY rowid DESC "
                         "LIMIT 1", &st);
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "reading the last check", err, errlen);
    rc = db__step_first(d, st);
    db_status res = DB_OK;
    if (rc == SQLITE_ROW) {
        db__col_text(st, 0, at, 32);
        *problems = sqlite3_column_int64(st, 1);
        *integrity_ok = sqlite3_column_int(st, 2) != 0;
    } else if (rc == SQLITE_DONE) {
        res = db__err(DB_NOT_FOUND, err, errlen, "%s: no check recorded", d->path);
    } else {
        res = db__fail(d, rc, "reading the last check", err, errlen);
    }
    sqlite3_finalize(st);
    return res;
}
