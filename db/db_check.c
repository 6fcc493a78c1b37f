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
            !ring || strcmp((const char *)ring, db__ring_name(s->ring)))
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
