/* Merging another database into this one (independent jobs of a cluster,
 * docs/db.md): runs are matched by their uid, schemes by ring and hash, and
 * every scheme taken is decoded and re-verified as if it were inserted.
 * Runs go in one transaction, schemes in batches of MERGE_BATCH: a merge
 * that stops half-way can be repeated and takes only what is missing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db_internal.h"

#define MERGE_BATCH 256

typedef struct idmap {
    int64_t *from, *to;
    int64_t n, cap;
} idmap;

static bool map_put(idmap *m, int64_t from, int64_t to)
{
    if (m->n == m->cap) {
        int64_t cap = m->cap ? 2 * m->cap : 256;
        int64_t *f = realloc(m->from, (size_t)cap * sizeof *f);
        if (!f)
            return false;
        m->from = f;
        int64_t *t = realloc(m->to, (size_t)cap * sizeof *t);
        if (!t)
            return false;
        m->to = t;
        m->cap = cap;
    }
    m->from[m->n] = from; /* rows are read in id order: the map stays sorted */
    m->to[m->n] = to;
    m->n++;
    return true;
}

static int64_t map_get(const idmap *m, int64_t from)
{
    int64_t lo = 0, hi = m->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (m->from[mid] < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n && m->from[lo] == from ? m->to[lo] : 0;
}

static void map_free(idmap *m)
{
    free(m->from);
    free(m->to);
}

static db_status merge_runs(db *d, db *o, idmap *runs, db_merge_report *rep, char *err,
                            size_t errlen)
{
    sqlite3_stmt *rd, *find = NULL, *ins = NULL, *imp_rd = NULL, *imp_ins = NULL;
    /* the liveness columns of schema 2: NULL from a file of schema 1 */
    int rc = db__prepare(o,
                         o->version >= 2
                             ? "SELECT id, uid, n, m, p, params, seed, backend, device, host, "
                               "version, started, ended, status, flips, best_rank, pid, pid_start, "
                               "boot_id, heartbeat FROM runs ORDER BY id"
                             : "SELECT id, uid, n, m, p, params, seed, backend, device, host, "
                               "version, started, ended, status, flips, best_rank, NULL, NULL, "
                               "NULL, NULL FROM runs ORDER BY id", &rd);
    if (rc != SQLITE_OK)
        return db__fail(o, rc, "reading runs", err, errlen);
    db_status st = db__begin(d, err, errlen);
    if (st != DB_OK) {
        sqlite3_finalize(rd);
        return st;
    }
    if ((rc = sqlite3_prepare_v2(d->h, "SELECT id FROM runs WHERE uid = ?1", -1, &find, NULL)) ||
        (rc = sqlite3_prepare_v2(d->h,
                                 "INSERT INTO runs (uid, n, m, p, params, seed, backend, device, "
                                 "host, version, started, ended, status, flips, best_rank, pid, "
                                 "pid_start, boot_id, heartbeat) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                                 "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
                                 -1, &ins, NULL)) ||
        (rc = sqlite3_prepare_v2(o->h,
                                 "SELECT seconds, rank FROM improvements WHERE run_id = ?1 "
                                 "ORDER BY rowid", -1, &imp_rd, NULL)) ||
        (rc = sqlite3_prepare_v2(d->h,
                                 "INSERT INTO improvements (run_id, seconds, rank) VALUES (?1, "
                                 "?2, ?3)", -1, &imp_ins, NULL))) {
        st = db__fail(d, rc, "merging runs", err, errlen);
        goto out;
    }
    for (rc = db__step_first(o, rd); rc == SQLITE_ROW; rc = sqlite3_step(rd)) {
        int64_t old = sqlite3_column_int64(rd, 0);
        sqlite3_reset(find);
        sqlite3_bind_value(find, 1, sqlite3_column_value(rd, 1));
        int frc = sqlite3_step(find);
        if (frc == SQLITE_ROW) {
            if (!map_put(runs, old, sqlite3_column_int64(find, 0))) {
                st = db__err(DB_IO, err, errlen, "out of memory");
                goto out;
            }
            rep->runs_known++;
            continue;
        }
        if (frc != SQLITE_DONE) {
            st = db__fail(d, frc, "merging runs", err, errlen);
            goto out;
        }
        sqlite3_reset(ins);
        for (int i = 1; i <= 19; i++)
            sqlite3_bind_value(ins, i, sqlite3_column_value(rd, i));
        if ((frc = sqlite3_step(ins)) != SQLITE_DONE) {
            st = db__fail(d, frc, "merging runs", err, errlen);
            goto out;
        }
        int64_t now = sqlite3_last_insert_rowid(d->h);
        if (!map_put(runs, old, now)) {
            st = db__err(DB_IO, err, errlen, "out of memory");
            goto out;
        }
        rep->runs_added++;
        sqlite3_reset(imp_rd);
        sqlite3_bind_int64(imp_rd, 1, old);
        while ((frc = sqlite3_step(imp_rd)) == SQLITE_ROW) {
            sqlite3_reset(imp_ins);
            sqlite3_bind_int64(imp_ins, 1, now);
            sqlite3_bind_value(imp_ins, 2, sqlite3_column_value(imp_rd, 0));
            sqlite3_bind_value(imp_ins, 3, sqlite3_column_value(imp_rd, 1));
            if ((frc = sqlite3_step(imp_ins)) != SQLITE_DONE)
                break;
        }
        if (frc != SQLITE_DONE) {
            st = db__fail(d, frc, "merging improvements", err, errlen);
            goto out;
        }
    }
    if (rc != SQLITE_DONE)
        st = db__fail(o, rc, "reading runs", err, errlen);
out:
    sqlite3_finalize(rd);
    sqlite3_finalize(find);
    sqlite3_finalize(ins);
    sqlite3_finalize(imp_rd);
    sqlite3_finalize(imp_ins);
    if (st == DB_OK)
        return db__commit(d, err, errlen);
    db__rollback(d);
    return st;
}

typedef struct pending {
    int64_t old_id;
    db_prepared p;
    db_provenance prov;
    char source[256];
    char found_at[32];
    int64_t old_parent;
} pending;

static db_status flush(db *d, pending *b, int n, idmap *schemes, db_merge_report *rep, char *err,
                       size_t errlen)
{
    if (n == 0)
        return DB_OK;
    db_status st = db__begin(d, err, errlen);
    int64_t *ids = calloc((size_t)n, sizeof *ids);
    if (!ids && st == DB_OK) {
        db__rollback(d);
        st = db__err(DB_IO, err, errlen, "out of memory");
    }
    int64_t added = 0, known = 0;
    for (int i = 0; st == DB_OK && i < n; i++) {
        /* Parents precede children (lower ids), possibly in this very batch. */
        int64_t parent = b[i].old_parent ? map_get(schemes, b[i].old_parent) : 0;
        for (int j = 0; !parent && b[i].old_parent && j < i; j++)
            if (b[j].old_id == b[i].old_parent)
                parent = ids[j];
        b[i].prov.parent_id = parent;
        bool existed = false;
        st = db__insert_tx(d, &b[i].p, &b[i].prov, b[i].found_at, &ids[i], &existed, err, errlen);
        if (st == DB_OK) /* a failed insert left existed unset (UBSan: test_store_exits, the size cap) */
            existed ? known++ : added++;
    }
    if (st == DB_OK)
        st = db__commit(d, err, errlen);
    else
        db__rollback(d);
    if (st == DB_OK) {
        rep->schemes_added += added;
        rep->schemes_known += known;
        for (int i = 0; i < n; i++)
            if (!map_put(schemes, b[i].old_id, ids[i])) {
                st = db__err(DB_IO, err, errlen, "out of memory");
                break;
            }
    }
    free(ids);
    return st;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

db_status db_merge(db *d, const char *other_path, db_problem_fn fn, void *ctx,
                   db_merge_report *report, char *err, size_t errlen)
{
    db_merge_report tmp;
    db_merge_report *rep = report ? report : &tmp;
    memset(rep, 0, sizeof *rep);
    if (d->readonly)
        return db__err(DB_READONLY, err, errlen, "%s: the database is read-only", d->path);
    if (same_file(d->path, other_path))
        return db__err(DB_MISUSE, err, errlen,
                       "%s and %s are the same file: a database cannot be merged into itself",
                       other_path, d->path);
    db_status st;
    db *o = db_open_ex(other_path, DB_OPEN_READONLY, &st, err, errlen);
    if (!o)
        return st;
    idmap runs = {0}, schemes = {0};
    st = merge_runs(d, o, &runs, rep, err, errlen);
    pending *batch = st == DB_OK ? calloc(MERGE_BATCH, sizeof *batch) : NULL;
    if (st == DB_OK && !batch)
        st = db__err(DB_IO, err, errlen, "out of memory");
    sqlite3_stmt *rd = NULL;
    int rc = SQLITE_DONE;
    if (st == DB_OK &&
        (rc = db__prepare(o,
                          "SELECT id, terms, run_id, parent_id, source, flips, seconds, found_at "
                          "FROM schemes ORDER BY id", &rd)) != SQLITE_OK)
        st = db__fail(o, rc, "reading schemes", err, errlen);
    int n = 0;
    if (st == DB_OK) {
        for (rc = db__step_first(o, rd); rc == SQLITE_ROW && st == DB_OK; rc = sqlite3_step(rd)) {
            int64_t old = sqlite3_column_int64(rd, 0);
            char msg[700];
            scheme *s = db__decode(sqlite3_column_blob(rd, 1), (size_t)sqlite3_column_bytes(rd, 1),
                                   msg, sizeof msg);
            pending *b = &batch[n];
            memset(b, 0, sizeof *b);
            db_status ps = s ? db__prepare_scheme(s, &b->p, msg, sizeof msg) : DB_INVALID;
            scheme_free(s);
            if (ps == DB_INVALID) {
                rep->schemes_refused++;
                if (fn) {
                    char line[800];
                    snprintf(line, sizeof line, "%s: scheme %lld refused: %s", other_path,
                             (long long)old, msg);
                    fn(ctx, old, line);
                }
                continue;
            }
            if (ps != DB_OK) {
                st = db__err(ps, err, errlen, "%s", msg);
                break;
            }
            b->old_id = old;
            b->old_parent = sqlite3_column_int64(rd, 3);
            db__col_text(rd, 4, b->source, sizeof b->source);
            db__col_text(rd, 7, b->found_at, sizeof b->found_at);
            b->prov.run_id = map_get(&runs, sqlite3_column_int64(rd, 2));
            b->prov.source = b->source;
            b->prov.flips = (uint64_t)sqlite3_column_int64(rd, 5);
            b->prov.seconds = sqlite3_column_double(rd, 6);
            if (++n == MERGE_BATCH) {
                st = flush(d, batch, n, &schemes, rep, err, errlen);
                for (int i = 0; i < n; i++)
                    db__prepared_free(&batch[i].p);
                n = 0;
            }
        }
        if (st == DB_OK && rc != SQLITE_DONE)
            st = db__fail(o, rc, "reading schemes", err, errlen);
        if (st == DB_OK)
            st = flush(d, batch, n, &schemes, rep, err, errlen);
        for (int i = 0; i < n; i++)
            db__prepared_free(&batch[i].p);
    }
    sqlite3_finalize(rd);
    free(batch);
    map_free(&runs);
    map_free(&schemes);
    db_close(o);
    return st;
}
