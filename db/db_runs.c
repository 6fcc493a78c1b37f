/* Runs: the parameters of a search (enough to resume it), where it ran, how
 * far it got, and its log of improvements (time, rank). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "db_internal.h"

#define NOW_UTC "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

/* ---- is a run's process alive? (db_run_gone) ---- */

static void host_name(char host[128])
{
    if (gethostname(host, 127) != 0)
        snprintf(host, 128, "unknown");
    host[127] = 0;
}

/* The first line of a small file, without its newline; false when unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = 0;
    return ok && buf[0];
}

static bool boot_id(char out[40])
{
    return read_line("/proc/sys/kernel/random/boot_id", out, 40);
}

/* Field 3 (state) and field 22 (starttime, clock ticks after boot) of
 * /proc/PID/stat; false when there is no such file (no /proc, or no such pid). */
static bool proc_stat(int64_t pid, char *state, int64_t *start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    if (!read_line(path, buf, sizeof buf))
        return false;
    char *q = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    if (!q)
        return false;
    q++;
    long long v = 0;
    char c = 0;
    /* after ')': state, then fields 4..21, then starttime */
    if (sscanf(q, " %c", &c) != 1)
        return false;
    for (int field = 3; field < 22 && q; field++)
        q = strchr(q + 1, ' ');
    if (!q || sscanf(q, " %lld", &v) != 1)
        return false;
    *state = c;
    *start = v;
    return true;
}

bool db_run_gone(const db_run_row *r)
{
    if (strcmp(r->status, "running"))
        return false;
    char host[128], boot[40];
    host_name(host);
    bool here = r->host[0] && !strcmp(r->host, host);
    if (here && r->boot_id[0] && boot_id(boot) && strcmp(boot, r->boot_id))
        return true; /* the machine rebooted since */
    if (here && r->pid > 0) {
        if (kill((pid_t)r->pid, 0) != 0 && errno == ESRCH)
            return true;
        char state;
        int64_t start;
        if (proc_stat(r->pid, &state, &start)) {
            if (state == 'Z' || state == 'X')
                return true; /* dead, not yet reaped */
            if (r->pid_start > 0 && start != r->pid_start)
                return true; /* another process has the pid now */
        }
        return false;
    }
    /* another host (or no pid recorded): only the heartbeat can tell */
    return r->heartbeat_age > DB_RUN_STALE_SECONDS;
}

/* 128 random bits: a run keeps its identity when databases are merged. */
static void make_uid(char out[33])
{
    uint8_t b[16];
    bool ok = false;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ok = read(fd, b, sizeof b) == (ssize_t)sizeof b;
        close(fd);
    }
    if (!ok) { /* no /dev/urandom: time, pid and address are unique enough per host */
        uint64_t st = (uint64_t)(db__now() * 1e9) ^ (uint64_t)getpid() << 32 ^ (uintptr_t)out;
        for (int i = 0; i < 2; i++) {
            uint64_t v = scheme_splitmix64(&st);
            memcpy(b + 8 * i, &v, 8);
        }
    }
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static db_status read_only(db *d, char *err, size_t errlen)
{
    return db__err(DB_READONLY, err, errlen, "%s: the database is read-only", d->path);
}

db_status db_run_begin(db *d, const db_run_info *info, int64_t *run_id, char *err, size_t errlen)
{
    if (d->readonly)
        return read_only(d, err, errlen);
    if (!info || !scheme_format_valid(info->fmt))
        return db__err(DB_IO, err, errlen, "db_run_begin: no run or an invalid format");
    char uid[33], host[128], boot[40] = "";
    make_uid(uid);
    host_name(host);
    int64_t pid = (int64_t)getpid(), pid_start = 0;
    char state;
    if (!proc_stat(pid, &state, &pid_start))
        pid_start = 0;
    bool have_boot = boot_id(boot);
    db_status res = db__begin(d, err, errlen);
    if (res != DB_OK)
        return res;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(d->h,
                                "INSERT INTO runs (uid, n, m, p, params, seed, backend, device, "
                                "host, version, started, status, pid, pid_start, boot_id, "
                                "heartbeat) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                                NOW_UTC ", 'running', ?11, ?12, ?13, " NOW_UTC ")", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, uid, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, info->fmt.n);
        sqlite3_bind_int(st, 3, info->fmt.m);
        sqlite3_bind_int(st, 4, info->fmt.p);
        sqlite3_bind_text(st, 5, info->params ? info->params : "", -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 6, (int64_t)info->seed);
        sqlite3_bind_text(st, 7, info->backend ? info->backend : "cpu", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 8, info->device ? info->device : "", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 9, host, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 10, info->version ? info->version : db__program_version(), -1,
                          SQLITE_STATIC);
        sqlite3_bind_int64(st, 11, pid);
        if (pid_start > 0)
            sqlite3_bind_int64(st, 12, pid_start);
        if (have_boot)
            sqlite3_bind_text(st, 13, boot, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
    }
    if (rc != SQLITE_DONE && rc != SQLITE_OK) {
        res = db__fail(d, rc, "recording a run", err, errlen);
        db__rollback(d);
        return res;
    }
    int64_t id = sqlite3_last_insert_rowid(d->h);
    res = db__commit(d, err, errlen);
    if (res == DB_OK && run_id)
        *run_id = id;
    return res;
}

/* Runs sql (binding ?1 = run id, then the int64s in v) in a transaction;
 * DB_NOT_FOUND when it changed no row. */
static db_status update_run(db *d, int64_t run_id, const char *sql, const char *text,
                            const int64_t *v, int nv, const double *dv, const char *what,
                            char *err, size_t errlen)
{
    if (d->readonly)
        return read_only(d, err, errlen);
    db_status res = db__begin(d, err, errlen);
    if (res != DB_OK)
        return res;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(d->h, sql, -1, &st, NULL);
    int changed = 0;
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, run_id);
        int k = 2;
        for (int i = 0; i < nv; i++)
            sqlite3_bind_int64(st, k++, v[i]);
        if (dv)
            sqlite3_bind_double(st, k++, *dv);
        if (text)
            sqlite3_bind_text(st, k++, text, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        changed = sqlite3_changes(d->h);
        sqlite3_finalize(st);
    }
    if (rc != SQLITE_DONE && rc != SQLITE_OK) {
        res = db__fail(d, rc, what, err, errlen);
        db__rollback(d);
        return res;
    }
    if (changed == 0) {
        db__rollback(d);
        return db__err(DB_NOT_FOUND, err, errlen, "%s: no run with id %lld", d->path,
                       (long long)run_id);
    }
    return db__commit(d, err, errlen);
}

db_status db_run_improvement(db *d, int64_t run_id, double seconds, int rank, char *err,
                             size_t errlen)
{
    /* The log row and the run's best rank change in one transaction. */
    if (d->readonly)
        return read_only(d, err, errlen);
    db_status res = db__begin(d, err, errlen);
    if (res != DB_OK)
        return res;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(d->h,
                                "UPDATE runs SET best_rank = min(coalesce(best_rank, ?2), ?2), "
                                "heartbeat = " NOW_UTC " WHERE id = ?1", -1, &st, NULL);
    int changed = 0;
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int(st, 2, rank);
        rc = sqlite3_step(st);
        changed = sqlite3_changes(d->h);
        sqlite3_finalize(st);
    }
    if (rc == SQLITE_DONE && changed == 1) {
        rc = sqlite3_prepare_v2(d->h,
                                "INSERT INTO improvements (run_id, seconds, rank) VALUES (?1, "
                                "?2, ?3)", -1, &st, NULL);
        if (rc == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, run_id);
            sqlite3_bind_double(st, 2, seconds);
            sqlite3_bind_int(st, 3, rank);
            rc = sqlite3_step(st);
            sqlite3_finalize(st);
        }
    }
    if (rc != SQLITE_DONE) {
        res = db__fail(d, rc, "recording an improvement", err, errlen);
        db__rollback(d);
        return res;
    }
    if (changed != 1) {
        db__rollback(d);
        return db__err(DB_NOT_FOUND, err, errlen, "%s: no run with id %lld", d->path,
                       (long long)run_id);
    }
    return db__commit(d, err, errlen);
}

db_status db_run_end(db *d, int64_t run_id, const char *status, uint64_t flips, int best_rank,
                     char *err, size_t errlen)
{
    static const char *ok[] = {"running", "finished", "interrupted", "failed"};
    bool known = false;
    for (int i = 0; i < 4; i++)
        known |= status && !strcmp(status, ok[i]);
    if (!known)
        return db__err(DB_IO, err, errlen,
                       "db_run_end: status '%s' is none of running, finished, interrupted, "
                       "failed", status ? status : "(null)");
    int64_t v[2] = {(int64_t)flips, best_rank};
    return update_run(d, run_id,
                      "UPDATE runs SET flips = ?2, best_rank = CASE WHEN ?3 > 0 THEN "
                      "min(coalesce(best_rank, ?3), ?3) ELSE best_rank END, status = ?4, "
                      "ended = CASE WHEN ?4 = 'running' THEN NULL ELSE "
                      NOW_UTC " END, heartbeat = " NOW_UTC " WHERE id = ?1",
                      status, v, 2, NULL, "ending a run", err, errlen);
}

db_status db_run_progress(db *d, int64_t run_id, uint64_t flips, int best_rank, char *err,
                          size_t errlen)
{
    int64_t v[2] = {(int64_t)flips, best_rank};
    return update_run(d, run_id,
                      "UPDATE runs SET flips = max(flips, ?2), best_rank = CASE WHEN ?3 > 0 "
                      "THEN min(coalesce(best_rank, ?3), ?3) ELSE best_rank END, heartbeat = "
                      NOW_UTC " WHERE id = ?1",
                      NULL, v, 2, NULL, "recording progress", err, errlen);
}

char *db_run_params(db *d, int64_t run_id, db_status *status, char *err, size_t errlen)
{
    db_status tmp;
    status = status ? status : &tmp;
    sqlite3_stmt *st;
    int rc = db__prepare(d, "SELECT params FROM runs WHERE id = ?1", &st);
    if (rc != SQLITE_OK) {
        *status = db__fail(d, rc, "reading a run", err, errlen);
        return NULL;
    }
    sqlite3_bind_int64(st, 1, run_id);
    rc = db__step_first(d, st);
    char *out = NULL;
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        out = strdup(t ? (const char *)t : "");
        *status = out ? DB_OK : db__err(DB_IO, err, errlen, "out of memory");
    } else if (rc == SQLITE_DONE) {
        *status = db__err(DB_NOT_FOUND, err, errlen, "%s: no run with id %lld", d->path,
                          (long long)run_id);
    } else {
        *status = db__fail(d, rc, "reading a run", err, errlen);
    }
    sqlite3_finalize(st);
    return out;
}

#define RUN_COLUMNS_1                                                                        \
    "id, uid, n, m, p, seed, backend, device, host, version, started, ended, status, flips, " \
    "best_rank, (SELECT count(*) FROM schemes s WHERE s.run_id = runs.id), "                 \
    "(SELECT count(*) FROM improvements i WHERE i.run_id = runs.id)"
/* Schema 2's columns, and NULLs in their place when a read-only handle reads
 * a file of schema 1. */
#define RUN_COLUMNS                                                                          \
    RUN_COLUMNS_1 ", pid, pid_start, boot_id, heartbeat, "                                   \
    "(julianday('now') - julianday(heartbeat)) * 86400.0"
#define RUN_COLUMNS_V1 RUN_COLUMNS_1 ", NULL, NULL, NULL, NULL, NULL"

static const char *run_select(db *d, bool one)
{
    if (d->version >= 2)
        return one ? "SELECT " RUN_COLUMNS " FROM runs WHERE id = ?1"
                   : "SELECT " RUN_COLUMNS " FROM runs ORDER BY id";
    return one ? "SELECT " RUN_COLUMNS_V1 " FROM runs WHERE id = ?1"
               : "SELECT " RUN_COLUMNS_V1 " FROM runs ORDER BY id";
}

static void read_run(sqlite3_stmt *st, db_run_row *r)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    db__col_text(st, 1, r->uid, sizeof r->uid);
    r->fmt = (scheme_format){sqlite3_column_int(st, 2), sqlite3_column_int(st, 3),
                             sqlite3_column_int(st, 4)};
    r->seed = (uint64_t)sqlite3_column_int64(st, 5);
    db__col_text(st, 6, r->backend, sizeof r->backend);
    db__col_text(st, 7, r->device, sizeof r->device);
    db__col_text(st, 8, r->host, sizeof r->host);
    db__col_text(st, 9, r->version, sizeof r->version);
    db__col_text(st, 10, r->started, sizeof r->started);
    db__col_text(st, 11, r->ended, sizeof r->ended);
    db__col_text(st, 12, r->status, sizeof r->status);
    r->flips = (uint64_t)sqlite3_column_int64(st, 13);
    r->best_rank = sqlite3_column_int(st, 14);
    r->schemes = sqlite3_column_int64(st, 15);
    r->improvements = sqlite3_column_int64(st, 16);
    r->pid = sqlite3_column_int64(st, 17);
    r->pid_start = sqlite3_column_int64(st, 18);
    db__col_text(st, 19, r->boot_id, sizeof r->boot_id);
    db__col_text(st, 20, r->heartbeat, sizeof r->heartbeat);
    r->heartbeat_age = sqlite3_column_type(st, 21) == SQLITE_NULL ? -1
                                                                   : sqlite3_column_double(st, 21);
    snprintf(r->effective, sizeof r->effective, "%s", db_run_gone(r) ? "killed" : r->status);
}

db_status db_list_runs(db *d, db_run_fn fn, void *ctx, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc = db__prepare(d, run_select(d, false), &st);
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "listing runs", err, errlen);
    for (rc = db__step_first(d, st); rc == SQLITE_ROW; rc = sqlite3_step(st)) {
        db_run_row r;
        read_run(st, &r);
        if (!fn(ctx, &r)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    db_status res = rc == SQLITE_DONE ? DB_OK : db__fail(d, rc, "listing runs", err, errlen);
    sqlite3_finalize(st);
    return res;
}

db_status db_run_get(db *d, int64_t run_id, db_run_row *row, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc = db__prepare(d, run_select(d, true), &st);
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "reading a run", err, errlen);
    sqlite3_bind_int64(st, 1, run_id);
    rc = db__step_first(d, st);
    db_status res = DB_OK;
    if (rc == SQLITE_ROW)
        read_run(st, row);
    else if (rc == SQLITE_DONE)
        res = db__err(DB_NOT_FOUND, err, errlen, "%s: no run with id %lld", d->path,
                      (long long)run_id);
    else
        res = db__fail(d, rc, "reading a run", err, errlen);
    sqlite3_finalize(st);
    return res;
}

db_status db_run_improvements(db *d, int64_t run_id, db_improvement **out, int64_t *count,
                              char *err, size_t errlen)
{
    *out = NULL;
    *count = 0;
    db_run_row row;
    db_status res = db_run_get(d, run_id, &row, err, errlen);
    if (res != DB_OK)
        return res;
    sqlite3_stmt *st;
    int rc = db__prepare(d,
                         "SELECT seconds, rank FROM improvements WHERE run_id = ?1 "
                         "ORDER BY seconds, rowid", &st);
    if (rc != SQLITE_OK)
        return db__fail(d, rc, "reading improvements", err, errlen);
    sqlite3_bind_int64(st, 1, run_id);
    int64_t n = 0, cap = 0;
    db_improvement *v = NULL;
    for (rc = db__step_first(d, st); rc == SQLITE_ROW; rc = sqlite3_step(st)) {
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            db_improvement *nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv) {
                free(v);
                sqlite3_finalize(st);
                return db__err(DB_IO, err, errlen, "out of memory");
            }
            v = nv;
        }
        v[n].seconds = sqlite3_column_double(st, 0);
        v[n].rank = sqlite3_column_int(st, 1);
        n++;
    }
    if (rc != SQLITE_DONE) {
        res = db__fail(d, rc, "reading improvements", err, errlen);
        free(v);
        v = NULL;
        n = 0;
    }
    sqlite3_finalize(st);
    *out = v;
    *count = n;
    return res;
}
