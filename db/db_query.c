/* Reading the store: one scheme, the best of a format, listings, statistics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"

#define ROW_COLUMNS "id, n, m, p, ring, rank, hash, found_at, run_id, parent_id, source, flips, seconds"

static void read_row(sqlite3_stmt *st, db_scheme_row *r)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    r->fmt.n = sqlite3_column_int(st, 1);
    r->fmt.m = sqlite3_column_int(st, 2);
    r->fmt.p = sqlite3_column_int(st, 3);
    const unsigned char *ring = sqlite3_column_text(st, 4);
    r->ring = ring && !strcmp((const char *)ring, "z") ? SCHEME_RING_Z : SCHEME_RING_F2;
    r->rank = sqlite3_column_int(st, 5);
    db__col_text(st, 6, r->hash, sizeof r->hash);
    db__col_text(st, 7, r->found_at, sizeof r->found_at);
    r->run_id = sqlite3_column_int64(st, 8);
    r->parent_id = sqlite3_column_int64(st, 9);
    db__col_text(st, 10, r->source, sizeof r->source);
    r->flips = (uint64_t)sqlite3_column_int64(st, 11);
    r->seconds = sqlite3_column_double(st, 12);
}

db_status db_scheme_info(db *d, int64_t id, db_scheme_row *row, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc = db__prepare(d, "SELECT " ROW_COLUMNS " FROM schemes WHERE id = ?1", &st);
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "reading a scheme", err, errlen);
    sqlite3_bind_int64(st, 1, id);
    rc = db__step_first(d, st);
    db_status res = DB_OK;
    if (rc == SQLITE_ROW)
        read_row(st, row);
    else if (rc == SQLITE_DONE)
        res = db__err(DB_NOT_FOUND, err, errlen, "%s: no scheme with id %lld", d->path,
                      (long long)id);
    else
        res = db__fail(d, rc, "reading a scheme", err, errlen);
    sqlite3_finalize(st);
    return res;
}

scheme *db_load_scheme(db *d, int64_t id, db_status *status, char *err, size_t errlen)
{
    db_status tmp;
    status = status ? status : &tmp;
    sqlite3_stmt *st;
    int rc = db__prepare(d, "SELECT terms, n, m, p, ring, rank, hash FROM schemes WHERE id = ?1",
                         &st);
    if (rc != SQLITE_OK) {
        *status = db__fail(d, rc, "reading a scheme", err, errlen);
        return NULL;
    }
    sqlite3_bind_int64(st, 1, id);
    rc = db__step_first(d, st);
    scheme *s = NULL;
    if (rc == SQLITE_ROW) {
        char msg[300];
        s = db__decode(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), msg,
                       sizeof msg);
        const unsigned char *ring = sqlite3_column_text(st, 4);
        char hash[17];
        db__col_text(st, 6, hash, sizeof hash);
        if (!s) {
            *status = db__err(DB_CORRUPT, err, errlen, "%s: scheme %lld: %s", d->path,
                              (long long)id, msg);
        } else if (s->fmt.n != sqlite3_column_int(st, 1) || s->fmt.m != sqlite3_column_int(st, 2) ||
                   s->fmt.p != sqlite3_column_int(st, 3) || s->rank != sqlite3_column_int(st, 5) ||
                   !ring || strcmp((const char *)ring, scheme_ring_key(s->ring))) {
            *status = db__err(DB_CORRUPT, err, errlen,
                              "%s: scheme %lld: its terms disagree with its format, ring or "
                              "rank columns", d->path, (long long)id);
            scheme_free(s);
            s = NULL;
        } else {
            char h[17];
            scheme_hash_hex(scheme_hash(s), h);
            if (strcmp(h, hash)) {
                *status = db__err(DB_CORRUPT, err, errlen,
                                  "%s: scheme %lld: its terms hash to %s, the row says %s",
                                  d->path, (long long)id, h, hash);
                scheme_free(s);
                s = NULL;
            } else {
                *status = DB_OK;
            }
        }
    } else if (rc == SQLITE_DONE) {
        *status = db__err(DB_NOT_FOUND, err, errlen, "%s: no scheme with id %lld", d->path,
                          (long long)id);
    } else {
        *status = db__fail(d, rc, "reading a scheme", err, errlen);
    }
    sqlite3_finalize(st);
    return s;
}

db_status db_best(db *d, scheme_format f, scheme_ring ring, int64_t *id, int *rank, char *err,
                  size_t errlen)
{
    sqlite3_stmt *st;
    int rc = db__prepare(d,
                         "SELECT id, rank FROM schemes WHERE n = ?1 AND m = ?2 AND p = ?3 AND "
                         "ring = ?4 ORDER BY rank, id LIMIT 1", &st);
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "finding the best scheme", err, errlen);
    sqlite3_bind_int(st, 1, f.n);
    sqlite3_bind_int(st, 2, f.m);
    sqlite3_bind_int(st, 3, f.p);
    sqlite3_bind_text(st, 4, scheme_ring_key(ring), -1, SQLITE_STATIC);
    rc = db__step_first(d, st);
    db_status res = DB_OK;
    if (rc == SQLITE_ROW) {
        if (id)
            *id = sqlite3_column_int64(st, 0);
        if (rank)
            *rank = sqlite3_column_int(st, 1);
    } else if (rc == SQLITE_DONE) {
        char fb[32];
        res = db__err(DB_NOT_FOUND, err, errlen, "no %s scheme stored for %s",
                      scheme_ring_name(ring), scheme_format_str(f, fb));
    } else {
        res = db__fail(d, rc, "finding the best scheme", err, errlen);
    }
    sqlite3_finalize(st);
    return res;
}

db_status db_list(db *d, const db_filter *f, db_scheme_fn fn, void *ctx, char *err, size_t errlen)
{
    db_filter all = {false, {0, 0, 0}, -1, 0};
    if (!f)
        f = &all;
    sqlite3_stmt *st;
    int rc = db__prepare(d,
                         "SELECT " ROW_COLUMNS " FROM schemes WHERE (?1 = 0 OR (n = ?2 AND m = ?3 "
                         "AND p = ?4)) AND (?5 IS NULL OR ring = ?5) ORDER BY n, m, p, ring, "
                         "rank, id LIMIT ?6", &st);
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "listing schemes", err, errlen);
    sqlite3_bind_int(st, 1, f->has_fmt);
    sqlite3_bind_int(st, 2, f->fmt.n);
    sqlite3_bind_int(st, 3, f->fmt.m);
    sqlite3_bind_int(st, 4, f->fmt.p);
    if (f->ring == SCHEME_RING_F2 || f->ring == SCHEME_RING_Z)
        sqlite3_bind_text(st, 5, scheme_ring_key((scheme_ring)f->ring), -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, f->limit > 0 ? f->limit : -1);
    db_status res = DB_OK;
    for (rc = db__step_first(d, st); rc == SQLITE_ROW; rc = sqlite3_step(st)) {
        db_scheme_row row;
        read_row(st, &row);
        if (!fn(ctx, &row)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc != SQLITE_DONE)
        res = db__fail(d, rc, "listing schemes", err, errlen);
    sqlite3_finalize(st);
    return res;
}

db_status db_formats(db *d, db_format_fn fn, void *ctx, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    /* The covering index (n, m, p, ring, rank, id) answers this without the table. */
    int rc = db__prepare(d,
                         "SELECT n, m, p, ring, count(*), min(rank), "
                         "(SELECT s2.id FROM schemes s2 WHERE s2.n = s.n AND s2.m = s.m AND "
                         "s2.p = s.p AND s2.ring = s.ring ORDER BY s2.rank, s2.id LIMIT 1) "
                         "FROM schemes s GROUP BY n, m, p, ring ORDER BY n, m, p, ring", &st);
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "summarizing formats", err, errlen);
    db_format_row cur;
    bool have = false, stop = false;
    for (rc = db__step_first(d, st); rc == SQLITE_ROW && !stop; rc = sqlite3_step(st)) {
        scheme_format f = {sqlite3_column_int(st, 0), sqlite3_column_int(st, 1),
                           sqlite3_column_int(st, 2)};
        if (have && (f.n != cur.fmt.n || f.m != cur.fmt.m || f.p != cur.fmt.p)) {
            stop = !fn(ctx, &cur);
            have = false;
        }
        if (!have) {
            memset(&cur, 0, sizeof cur);
            cur.fmt = f;
            have = true;
        }
        const unsigned char *ring = sqlite3_column_text(st, 3);
        int r = ring && !strcmp((const char *)ring, "z") ? 1 : 0;
        cur.count[r] = sqlite3_column_int64(st, 4);
        cur.best_rank[r] = sqlite3_column_int(st, 5);
        cur.best_id[r] = sqlite3_column_int64(st, 6);
    }
    db_status res = DB_OK;
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        res = db__fail(d, rc, "summarizing formats", err, errlen);
    else if (have && !stop)
        fn(ctx, &cur);
    sqlite3_finalize(st);
    return res;
}

static db_status count(db *d, const char *sql, int64_t *out, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc = db__prepare(d, sql, &st);
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "counting", err, errlen);
    rc = db__step_first(d, st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? DB_OK : db__fail(d, rc, "counting", err, errlen);
}

static bool count_killed(void *ctx, const db_run_row *r)
{
    if (!strcmp(r->effective, "killed"))
        ++*(int64_t *)ctx;
    return true;
}

db_status db_stats(db *d, db_stats_info *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int64_t v, pages, psize;
    db_status st;
    if ((st = count(d, "PRAGMA user_version", &v, err, errlen)))
        return st;
    out->schema_version = (int)v;
    if ((st = count(d, "SELECT count(*) FROM schemes WHERE ring = 'f2'", &out->schemes[0], err,
                    errlen)) ||
        (st = count(d, "SELECT count(*) FROM schemes WHERE ring = 'z'", &out->schemes[1], err,
                    errlen)) ||
        (st = count(d, "SELECT count(*) FROM (SELECT DISTINCT n, m, p FROM schemes)",
                    &out->formats, err, errlen)) ||
        (st = count(d, "SELECT count(*) FROM runs", &out->runs, err, errlen)) ||
        (st = count(d, "SELECT count(*) FROM runs WHERE status = 'running'", &out->runs_running,
                    err, errlen)) ||
        (st = count(d, "SELECT count(*) FROM improvements", &out->improvements, err, errlen)) ||
        (st = count(d, "PRAGMA page_count", &pages, err, errlen)) ||
        (st = count(d, "PRAGMA page_size", &psize, err, errlen)))
        return st;
    out->bytes = pages * psize;
    /* "running" as stored, less the runs whose process is gone (db_run_gone) */
    if (out->runs_running > 0 &&
        (st = db_list_runs(d, count_killed, &out->runs_killed, err, errlen)) != DB_OK)
        return st;
    out->runs_running -= out->runs_killed;
    sqlite3_stmt *s;
    if (d->immutable)
        snprintf(out->journal_mode, sizeof out->journal_mode, "immutable");
    else if (db__prepare(d, "PRAGMA journal_mode", &s) == SQLITE_OK) {
        if (db__step_first(d, s) == SQLITE_ROW)
            db__col_text(s, 0, out->journal_mode, sizeof out->journal_mode);
        sqlite3_finalize(s);
    }
    return DB_OK;
}
