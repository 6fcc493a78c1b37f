/* Storing schemes: verified first, then inserted in one transaction.
 *
 * Verification runs before BEGIN IMMEDIATE so that the write lock is held
 * only for the few statements of the insert itself (several searches share
 * one file).  A scheme is identified by its ring and canonical hash; the
 * stored bytes are compared too, so that a 64-bit hash collision is reported
 * instead of passing a different scheme off as "already stored". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"

static int cached(db *d, sqlite3_stmt **slot, const char *sql)
{
    if (*slot) {
        sqlite3_reset(*slot);
        sqlite3_clear_bindings(*slot);
        return SQLITE_OK;
    }
    return sqlite3_prepare_v3(d->h, sql, -1, SQLITE_PREPARE_PERSISTENT, slot, NULL);
}

/* Looks the prepared scheme up; *id = 0 when absent. */
static db_status lookup(db *d, const db_prepared *p, int64_t *id, char *err, size_t errlen)
{
    *id = 0;
    int rc = cached(d, &d->find, "SELECT id, terms FROM schemes WHERE ring = ?1 AND hash = ?2");
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "looking a scheme up", err, errlen);
    sqlite3_bind_text(d->find, 1, scheme_ring_key(p->ring), -1, SQLITE_STATIC);
    sqlite3_bind_text(d->find, 2, p->hash, -1, SQLITE_STATIC);
    rc = sqlite3_get_autocommit(d->h) ? db__step_first(d, d->find) : sqlite3_step(d->find);
    db_status st = DB_OK;
    if (rc == SQLITE_ROW) {
        const void *b = sqlite3_column_blob(d->find, 1);
        size_t n = (size_t)sqlite3_column_bytes(d->find, 1);
        int64_t found = sqlite3_column_int64(d->find, 0);
        if (n == p->len && b && memcmp(b, p->bytes, n) == 0)
            *id = found;
        else
            st = db__err(DB_IO, err, errlen,
                         "%s: scheme %lld has the same canonical hash %s but other terms (a "
                         "64-bit hash collision, or a damaged row: run `flipgraph db check`)",
                         d->path, (long long)found, p->hash);
    } else if (rc != SQLITE_DONE) {
        st = db__fail(d, rc, "looking a scheme up", err, errlen);
    }
    sqlite3_reset(d->find);
    return st;
}

static db_status exists(db *d, const char *sql, int64_t id, const char *what, char *err,
                        size_t errlen)
{
    sqlite3_stmt *st;
    int rc = db__prepare(d, sql, &st);
    if (rc != SQLITE_OK)
        return db__fail(d, rc, what, err, errlen);
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return DB_OK;
    if (rc == SQLITE_DONE)
        return db__err(DB_NOT_FOUND, err, errlen, "%s: %s %lld does not exist", d->path, what,
                       (long long)id);
    return db__fail(d, rc, what, err, errlen);
}

db_status db__insert_tx(db *d, const db_prepared *p, const db_provenance *prov,
                        const char *found_at, int64_t *id, bool *existed, char *err,
                        size_t errlen)
{
    static const db_provenance none = {0, 0, NULL, 0, 0};
    if (!prov)
        prov = &none;
    int64_t found;
    db_status st = lookup(d, p, &found, err, errlen);
    if (st != DB_OK)
        return st;
    if (found) {
        *id = found;
        *existed = true;
        return DB_OK;
    }
    if (prov->run_id &&
        (st = exists(d, "SELECT 1 FROM runs WHERE id = ?1", prov->run_id, "run", err, errlen)))
        return st;
    if (prov->parent_id && (st = exists(d, "SELECT 1 FROM schemes WHERE id = ?1",
                                        prov->parent_id, "parent scheme", err, errlen)))
        return st;
    int rc = cached(d, &d->insert,
                    "INSERT INTO schemes (n, m, p, ring, rank, terms, hash, found_at, run_id, "
                    "parent_id, source, flips, seconds) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                    "coalesce(?13, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), ?8, ?9, ?10, ?11, ?12)");
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "storing a scheme", err, errlen);
    sqlite3_stmt *s = d->insert;
    sqlite3_bind_int(s, 1, p->fmt.n);
    sqlite3_bind_int(s, 2, p->fmt.m);
    sqlite3_bind_int(s, 3, p->fmt.p);
    sqlite3_bind_text(s, 4, scheme_ring_key(p->ring), -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 5, p->rank);
    sqlite3_bind_blob(s, 6, p->bytes, (int)p->len, SQLITE_STATIC);
    sqlite3_bind_text(s, 7, p->hash, -1, SQLITE_STATIC);
    if (prov->run_id)
        sqlite3_bind_int64(s, 8, prov->run_id);
    if (prov->parent_id)
        sqlite3_bind_int64(s, 9, prov->parent_id);
    sqlite3_bind_text(s, 10, prov->source && *prov->source ? prov->source : "unknown", -1,
                      SQLITE_TRANSIENT);
    if (prov->flips)
        sqlite3_bind_int64(s, 11, (int64_t)prov->flips);
    if (prov->seconds > 0)
        sqlite3_bind_double(s, 12, prov->seconds);
    if (found_at)
        sqlite3_bind_text(s, 13, found_at, -1, SQLITE_STATIC);
    rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return db__fail(d, rc, "storing a scheme", err, errlen);
    *id = sqlite3_last_insert_rowid(d->h);
    *existed = false;
    return DB_OK;
}

static db_status read_only(db *d, char *err, size_t errlen)
{
    return db__err(DB_READONLY, err, errlen,
                   "%s: the database is read-only: nothing can be stored", d->path);
}

db_status db_insert_scheme(db *d, const scheme *s, const db_provenance *prov, int64_t *id,
                           bool *existed, char *err, size_t errlen)
{
    int64_t tmp_id;
    bool tmp_existed;
    return db_insert_schemes_each(d, &s, 1, prov, id ? id : &tmp_id,
                                  existed ? existed : &tmp_existed, err, errlen);
}

static db_status insert_many(db *d, const scheme *const *s, int count, const db_provenance *prov,
                             size_t prov_stride, int64_t *ids, bool *existed, char *err,
                             size_t errlen)
{
    if (count < 0 || (count > 0 && (!s || !ids || !existed)))
        return db__err(DB_IO, err, errlen, "db_insert_schemes: bad arguments");
    for (int i = 0; i < count; i++) {
        ids[i] = 0;
        existed[i] = false;
    }
    if (count == 0)
        return DB_OK;
    if (d->readonly)
        return read_only(d, err, errlen);
    db_prepared *p = calloc((size_t)count, sizeof *p);
    bool *ok = calloc((size_t)count, sizeof *ok);
    if (!p || !ok) {
        free(p);
        free(ok);
        return db__err(DB_IO, err, errlen, "out of memory for %d schemes", count);
    }
    /* Verify everything before taking the write lock. */
    db_status result = DB_OK;
    int valid = 0;
    for (int i = 0; i < count; i++) {
        char msg[700];
        db_status st = db__prepare_scheme(s[i], &p[i], msg, sizeof msg);
        if (st == DB_OK) {
            ok[i] = true;
            valid++;
        } else if (st == DB_INVALID) {
            if (result == DB_OK) {
                if (count == 1)
                    db__err(DB_INVALID, err, errlen, "%s", msg);
                else
                    db__err(DB_INVALID, err, errlen, "scheme %d of %d: %s", i + 1, count, msg);
                result = DB_INVALID;
            }
        } else {
            db__err(st, err, errlen, "%s", msg);
            result = st;
            valid = 0;
            break;
        }
    }
    if (valid > 0) {
        db_status st = db__begin(d, err, errlen);
        for (int i = 0; st == DB_OK && i < count; i++) {
            if (!ok[i])
                continue;
            const db_provenance *pv = prov ? (const db_provenance *)((const char *)prov +
                                                                     (size_t)i * prov_stride)
                                           : NULL;
            st = db__insert_tx(d, &p[i], pv, NULL, &ids[i], &existed[i], err, errlen);
        }
        if (st == DB_OK)
            st = db__commit(d, err, errlen);
        else
            db__rollback(d);
        if (st != DB_OK) {
            for (int i = 0; i < count; i++) {
                ids[i] = 0;
                existed[i] = false;
            }
            result = st;
        }
    }
    for (int i = 0; i < count; i++)
        db__prepared_free(&p[i]);
    free(p);
    free(ok);
    return result;
}

db_status db_insert_schemes(db *d, const scheme *const *s, int count, const db_provenance *prov,
                            int64_t *ids, bool *existed, char *err, size_t errlen)
{
    return insert_many(d, s, count, prov, 0, ids, existed, err, errlen);
}

db_status db_insert_schemes_each(db *d, const scheme *const *s, int count,
                                 const db_provenance *provs, int64_t *ids, bool *existed,
                                 char *err, size_t errlen)
{
    return insert_many(d, s, count, provs, sizeof *provs, ids, existed, err, errlen);
}

db_status db_import_scheme(db *d, const scheme *s, const db_provenance *prov, int64_t *id,
                           bool *existed, int64_t *f2_id, bool *f2_existed, char *err,
                           size_t errlen)
{
    int64_t id_tmp, f2_tmp;
    bool ex_tmp, f2ex_tmp;
    id = id ? id : &id_tmp;
    existed = existed ? existed : &ex_tmp;
    f2_id = f2_id ? f2_id : &f2_tmp;
    f2_existed = f2_existed ? f2_existed : &f2ex_tmp;
    *id = *f2_id = 0;
    *existed = *f2_existed = false;
    if (d->readonly)
        return read_only(d, err, errlen);
    db_prepared pz, p2;
    memset(&p2, 0, sizeof p2);
    db_status st = db__prepare_scheme(s, &pz, err, errlen);
    if (st != DB_OK)
        return st;
    bool is_z = s->ring == SCHEME_RING_Z;
    if (is_z) {
        scheme *r = scheme_to_f2(s);
        if (!r) {
            db__prepared_free(&pz);
            return db__err(DB_IO, err, errlen, "out of memory");
        }
        char msg[700];
        st = db__prepare_scheme(r, &p2, msg, sizeof msg);
        scheme_free(r);
        if (st != DB_OK) { /* cannot happen for a valid Z scheme: say so loudly */
            db__prepared_free(&pz);
            return db__err(st, err, errlen, "the reduction mod 2 of a valid Z scheme: %s", msg);
        }
    }
    st = db__begin(d, err, errlen);
    if (st == DB_OK)
        st = db__insert_tx(d, &pz, prov, NULL, id, existed, err, errlen);
    if (st == DB_OK && is_z) {
        db_provenance pv = prov ? *prov : (db_provenance){0, 0, NULL, 0, 0};
        char src[300];
        snprintf(src, sizeof src, "%s mod 2", pv.source && *pv.source ? pv.source : "unknown");
        pv.source = src;
        pv.parent_id = *id;
        st = db__insert_tx(d, &p2, &pv, NULL, f2_id, f2_existed, err, errlen);
    }
    if (st == DB_OK)
        st = db__commit(d, err, errlen);
    else if (sqlite3_get_autocommit(d->h) == 0)
        db__rollback(d);
    if (st != DB_OK) {
        *id = *f2_id = 0;
        *existed = *f2_existed = false;
    }
    db__prepared_free(&pz);
    db__prepared_free(&p2);
    return st;
}

db_status db_find_scheme(db *d, const scheme *s, int64_t *id, char *err, size_t errlen)
{
    db_prepared p;
    db_status st = db__canonical(s, &p, err, errlen);
    if (st != DB_OK)
        return st;
    int64_t found = 0;
    st = lookup(d, &p, &found, err, errlen);
    db__prepared_free(&p);
    if (st != DB_OK)
        return st;
    if (id)
        *id = found;
    return found ? DB_OK : db__err(DB_NOT_FOUND, err, errlen, "not stored");
}
