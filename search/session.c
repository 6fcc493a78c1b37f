/* The session around a search (session.h): what `search`, `sweep` and `demo`
 * used to write three times. */
#include "session.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "../cuda/fg_cuda.h"
#include "../verify/verify.h"
#include "walk_gpu.h"

struct search_session {
    db *store;
    char *out_dir;
    char *pool_dir; /* session_set_pool_dir */
    /* the pool files this session made (a file of that name was not there
     * before): the only ones a later pool that drops their scheme removes */
    char **pool_made;
    int npool_made, pool_made_cap; /* kept in strcmp order between pools (write_pool_files) */
};

search_session *session_open(const char *db_path, db_status *st, char *err, size_t errlen)
{
    search_session *s = calloc(1, sizeof *s);
    if (!s) {
        *st = DB_IO;
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    *st = DB_OK;
    if (db_path && !(s->store = db_open(db_path, true, st, err, errlen))) {
        free(s);
        return NULL;
    }
    return s;
}

void session_close(search_session *s)
{
    if (!s)
        return;
    db_close(s->store);
    free(s->out_dir);
    free(s->pool_dir);
    for (int i = 0; i < s->npool_made; i++)
        free(s->pool_made[i]);
    free(s->pool_made);
    free(s);
}

db *session_store(search_session *s) { return s->store; }

/* dir exists as a folder afterwards (created when missing); what names it in
 * a message: the option. */
static bool make_dir(const char *dir, const char *what, char *err, size_t errlen)
{
    struct stat sb;
    if (stat(dir, &sb) != 0 && mkdir(dir, 0777) != 0)
        return scheme_fail(err, errlen, "%s %s: cannot create: %s", what, dir, strerror(errno));
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return scheme_fail(err, errlen, "%s %s: not a directory", what, dir);
    return true;
}

/* *slot = a copy of dir, made a folder first (what: the option). */
static bool set_dir(char **slot, const char *dir, const char *what, char *err, size_t errlen)
{
    if (!make_dir(dir, what, err, errlen))
        return false;
    free(*slot);
    *slot = strdup(dir);
    return *slot || scheme_fail(err, errlen, "out of memory");
}

bool session_set_out_dir(search_session *s, const char *dir, char *err, size_t errlen)
{
    return set_dir(&s->out_dir, dir, "--out", err, errlen);
}

bool session_set_pool_dir(search_session *s, const char *dir, char *err, size_t errlen)
{
    return set_dir(&s->pool_dir, dir, "--pool-out", err, errlen);
}

/* The ids of the first k rows db_list visits (its order: rank, then id). */
typedef struct ids_pick {
    int64_t id[64];
    int n, k;
} ids_pick;

static bool ids_pick_row(void *ctx, const db_scheme_row *row)
{
    ids_pick *p = ctx;
    p->id[p->n++] = row->id;
    return p->n < p->k;
}

/* The ids of the store's k (at most 64) lowest schemes of f over ring. */
static db_status pick_lowest(search_session *s, scheme_format f, scheme_ring ring, int k, ids_pick *p, char *err,
                             size_t errlen)
{
    *p = (ids_pick){.n = 0, .k = k > 64 ? 64 : k};
    const db_filter filt = {true, f, ring, p->k};
    return db_list(s->store, &filt, ids_pick_row, p, err, errlen);
}

db_status session_lift_lowest(search_session *s, scheme_format f, int k, int *tried, int *lifted, int *best,
                              char *err, size_t errlen)
{
    *tried = *lifted = *best = 0;
    if (!s->store || k <= 0)
        return DB_OK;
    ids_pick pick;
    db_status st = pick_lowest(s, f, SCHEME_RING_F2, k, &pick, err, errlen);
    for (int i = 0; st == DB_OK && i < pick.n; i++) {
        scheme *in = db_load_scheme(s->store, pick.id[i], &st, err, errlen);
        if (!in)
            break;
        verify_lift_result lr;
        scheme *z = verify_lift_ex(in, NULL, &lr);
        (*tried)++;
        if (z) {
            const db_provenance prov = {0, pick.id[i], "lift", 0, 0};
            int64_t id;
            bool existed;
            st = db_insert_scheme(s->store, z, &prov, &id, &existed, err, errlen);
            if (st == DB_OK) {
                (*lifted)++;
                if (!*best || z->rank < *best)
                    *best = z->rank;
            }
            scheme_free(z);
        }
        scheme_free(in);
    }
    return st;
}

int session_lift_threads(bool gpu, int cpu_threads)
{
    if (!gpu)
        return cpu_threads;
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 8 ? 8 : cores > 1 ? (int)cores : 1;
}

db_status session_lift_walk(search_session *s, scheme_format f, int k, int target, double seconds, uint64_t seed,
                            int threads, int *tried, int *best, char *err, size_t errlen)
{
    *tried = *best = 0;
    if (!s->store || k <= 0 || target <= 0 || seconds <= 0)
        return DB_OK;
    ids_pick pick;
    db_status st = pick_lowest(s, f, SCHEME_RING_F2, k, &pick, err, errlen);
    scheme *starts[64];
    int64_t ids[64];
    int ns = 0;
    for (int i = 0; st == DB_OK && i < pick.n; i++) {
        scheme *in = db_load_scheme(s->store, pick.id[i], &st, err, errlen);
        if (in && in->rank <= target) {
            ids[ns] = pick.id[i];
            starts[ns++] = in;
        } else
            scheme_free(in);
    }
    /* each start walks an equal share of the time */
    for (int i = 0; st == DB_OK && i < ns && !*best && !session_stop_seen(); i++) {
        int t;
        scheme *g = NULL,
               *z = search_lift_walk_threads(starts[i], target, seconds / ns, seed + (uint64_t)i, threads, &t, &g);
        *tried += t;
        if (z) {
            /* the GF(2) scheme that lifted first (its parent the walk's
             * start), then its lift (its parent that scheme) */
            const db_provenance pg = {0, ids[i], "lift-walk", 0, 0};
            int64_t gid, zid;
            bool existed;
            st = db_insert_scheme(s->store, g, &pg, &gid, &existed, err, errlen);
            const db_provenance pz = {0, gid, "lift", 0, 0};
            if (st == DB_OK)
                st = db_insert_scheme(s->store, z, &pz, &zid, &existed, err, errlen);
            if (st == DB_OK)
                *best = z->rank;
        }
        scheme_free(g);
        scheme_free(z);
    }
    for (int i = 0; i < ns; i++)
        scheme_free(starts[i]);
    return st;
}

typedef struct outside_formats {
    int64_t *id;
    const scheme_format *range;
    int nrange, n, max, volume;
} outside_formats;

static int format_volume(scheme_format f) { return f.n * f.m * f.p; }

static bool take_outside(void *ctx, const db_format_row *row)
{
    outside_formats *o = ctx;
    const scheme_format f = row->fmt;
    bool inside = false;
    for (int q = 0; q < o->nrange && !inside; q++)
        inside = search_format_holds(o->range[q], f) && search_format_holds(f, o->range[q]);
    if (!inside && row->best_rank[SCHEME_RING_F2] > 0 && f.n >= 2 && f.m >= 2 && f.p >= 2 &&
        format_volume(f) < o->volume)
        o->id[o->n++] = row->best_id[SCHEME_RING_F2];
    return o->n < o->max;
}

int session_outside_bests(search_session *s, const scheme_format *range, int n, scheme **out, int max)
{
    if (!s->store || max <= 0)
        return 0;
    outside_formats o = {.range = range, .nrange = n, .max = max, .id = malloc((size_t)max * sizeof(int64_t))};
    if (!o.id)
        return 0;
    for (int q = 0; q < n; q++)
        if (format_volume(range[q]) > o.volume)
            o.volume = format_volume(range[q]);
    char err[256];
    int k = 0;
    if (db_formats(s->store, take_outside, &o, err, sizeof err) == DB_OK)
        for (int q = 0; q < o.n; q++) {
            db_status st;
            scheme *x = db_load_scheme(s->store, o.id[q], &st, err, sizeof err);
            verify_result vr;
            if (x && x->ring == SCHEME_RING_F2 && verify_f2(x, &vr))
                out[k++] = x;
            else
                scheme_free(x);
        }
    free(o.id);
    return k;
}

session_zstart session_z_start(const scheme *in, scheme **out, int *max_coeff, char *msg, size_t msglen)
{
    *out = NULL;
    *max_coeff = 0;
    if (in->ring == SCHEME_RING_Z) {
        if (!(*out = scheme_clone(in)))
            return snprintf(msg, msglen, "out of memory"), SESSION_ZSTART_FAILED;
        return SESSION_ZSTART_AS_IS;
    }
    scheme *z = search_z_copy(in);
    if (!z)
        return snprintf(msg, msglen, "out of memory"), SESSION_ZSTART_FAILED;
    verify_result vr;
    if (verify_z(z, &vr)) {
        *out = z;
        return SESSION_ZSTART_AS_IS;
    }
    scheme_free(z);
    verify_lift_result lr;
    scheme *l = verify_lift(in, &lr);
    if (!l) {
        snprintf(msg, msglen, "%s", lr.msg);
        return lr.status == VERIFY_LIFT_TOO_LARGE || lr.status == VERIFY_LIFT_INTERNAL ? SESSION_ZSTART_FAILED
                                                                                        : SESSION_ZSTART_NO_LIFT;
    }
    *out = l;
    *max_coeff = lr.max_coeff;
    return SESSION_ZSTART_LIFTED;
}

db_status session_best_start(search_session *s, scheme_format f, scheme_ring ring, int coef_max, bool strict,
                             scheme **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!s->store)
        return DB_NOT_FOUND;
    if (ring == SCHEME_RING_Z && coef_max > 0) {
        ids_pick pick;
        db_status st = pick_lowest(s, f, SCHEME_RING_Z, 64, &pick, err, errlen);
        if (st != DB_OK)
            return st;
        for (int i = 0; i < pick.n; i++) {
            scheme *c = db_load_scheme(s->store, pick.id[i], &st, err, errlen);
            if (!c)
                return st;
            if (search_z_max_coef(c) <= coef_max) {
                *out = c;
                return DB_OK;
            }
            scheme_free(c);
        }
        if (strict)
            return DB_NOT_FOUND;
    }
    int64_t id;
    int rank;
    db_status st = db_best(s->store, f, ring, &id, &rank, err, errlen);
    if (st == DB_OK && !(*out = db_load_scheme(s->store, id, &st, err, errlen)))
        return st;
    return st;
}

db_status session_resume(search_session *s, int64_t run, const search_config *cli, search_config *c,
                         db_run_row *row, char *err, size_t errlen)
{
    if (!s->store)
        return snprintf(err, errlen, "--resume needs a store"), DB_MISUSE;
    db_status st = db_run_get(s->store, run, row, err, errlen);
    if (st != DB_OK)
        return st;
    char *text = db_run_params(s->store, run, &st, err, errlen);
    if (!text)
        return st;
    search_config stored;
    search_config_default(&stored);
    /* a record from before the table names its backend only in the run's row */
    stored.backend = !strcmp(row->backend, "gpu") ? SEARCH_BACKEND_GPU : SEARCH_BACKEND_CPU;
    char e[512];
    bool ok = search_config_from_text(text, &stored, e, sizeof e);
    free(text);
    if (!ok) {
        snprintf(err, errlen, "the stored parameters of run %" PRId64 ": %s", run, e);
        return DB_INVALID;
    }
    search_backend was = stored.backend;
    search_backend now = cli->given[SEARCH_PARAM_BACKEND] ? cli->backend : was;
    unsigned use = now == SEARCH_BACKEND_GPU   ? SEARCH_USE_GPU
                   : now == SEARCH_BACKEND_CPU ? SEARCH_USE_CPU
                                               : SEARCH_USE_BOTH;
    search_config_default(c);
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++) {
        const search_param_info *r = search_param(i);
        if (cli->given[i])
            search_config_copy(c, cli, i);
        else if (stored.given[i] && (r->use & use) && i != SEARCH_PARAM_SEED)
            search_config_copy(c, &stored, i); /* never the seed: a resumed run does not replay its first walks */
    }
    if (!cli->given[SEARCH_PARAM_BACKEND]) {
        c->backend = was;
        c->given[SEARCH_PARAM_BACKEND] = false; /* restored, not asked for: a missing GPU is the caller's to say */
    }
    return DB_OK;
}

/* ---- signals ---- */

static volatile sig_atomic_t g_signals;
static int g_hold;
static struct sigaction g_old_int, g_old_term;

static void on_signal(int sig)
{
    if (g_signals++) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    search_request_stop();
}

void session_signals_hold(void)
{
    if (g_hold++)
        return;
    g_signals = 0;
    search_clear_stop();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &g_old_int);
    sigaction(SIGTERM, &sa, &g_old_term);
}

void session_signals_release(void)
{
    if (g_hold <= 0 || --g_hold)
        return;
    sigaction(SIGINT, &g_old_int, NULL);
    sigaction(SIGTERM, &g_old_term, NULL);
}

bool session_stop_seen(void) { return g_signals != 0; }

/* ---- one search ---- */

typedef struct run_ctx {
    search_session *s;
    const session_hooks *h;
    session_run *run;
    pthread_mutex_t mu; /* the store: improvements (walker threads) and progress (the engine's monitor) */
    _Atomic uint64_t stored;
    double print_every, engine_every, next_print;
    const char *source; /* the schemes' provenance: "search", or "search:c3" for a symmetric walk */
    scheme_symmetry symmetry; /* the walk's: its lifts are invariant where they can be (lift_one) */
    /* a symmetric walk over Z, or one --via-f2 (lift_each): the walk is over
     * GF(2) and every improvement is lifted by the lifter thread
     * (lifter_main); z_best the lowest lift (the run's result); unlifted the
     * lowest GF(2) improvement that did not lift (its row unlifted_id), where
     * the lifting walk starts after the walk (--via-f2 T) */
    bool lift_each;
    scheme *z_best;
    scheme *unlifted;
    int64_t unlifted_id;
    search_found unlifted_f;
    struct lifter *lifter;
    pthread_mutex_t hook_mu; /* the caller's hooks: the lifter's improvements and the engine's progress */
} run_ctx;

/* A GF(2) improvement waiting for its lift. */
typedef struct lift_item {
    scheme *s;
    search_found f; /* f.s unused */
    int64_t gf2_id;
} lift_item;

/* The lifter: one thread that lifts the walk's GF(2) improvements, so that
 * the walkers (and the GPU's host thread) never wait for a lift (a lift of a
 * <6,6,6> of rank 207 took 5 to 13 s of one core here, one of <5,5,5> 20 ms).
 * It takes the lowest pending rank first (the improvements come in falling
 * ranks); once the walk has ended it lifts the pending ones below the
 * lowest lift, lowest first, until one lifts (LIFT_AT_END tries at most: they
 * can cost 10 s each), and drops the rest (their GF(2) schemes are stored:
 * flipgraph lift takes them), or none after a stop request. */
#define LIFT_AT_END 4
typedef struct lifter {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    lift_item *q;
    int n, cap;
    bool closing, interrupted;
} lifter;

static void first_failure(run_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void first_failure(run_ctx *x, const char *fmt, ...)
{
    if (x->run->msg[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->run->msg, sizeof x->run->msg, fmt, ap);
    va_end(ap);
}

static bool write_native(void *c, FILE *f) { return scheme_write_native(c, f); }

/* dir/NxMxP-RANK-HASH.txt for s into path[4096] (HASH the canonical hash, so
 * one scheme is one file); returns path. */
static const char *path_in_dir(const char *dir, const scheme *s, char *path)
{
    char hx[17];
    scheme_hash_hex(scheme_hash((scheme *)s), hx);
    snprintf(path, 4096, "%s/%dx%dx%d-%d-%s.txt", dir, s->fmt.n, s->fmt.m, s->fmt.p, s->rank, hx);
    return path;
}

/* s written to path_in_dir (native, whole or not at all), its path in path[4096]. */
static bool write_in_dir(const char *dir, const scheme *s, char *path, char *err, size_t errlen)
{
    return scheme_write_file_atomic(path_in_dir(dir, s, path), write_native, (void *)s, err, errlen);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* pool[0..n) written to the pool folder; then the files this session made for
 * an earlier pool whose scheme this one dropped are removed (only regular
 * files, only after every new file is whole), so that the folder holds the
 * latest pool beside whatever was there before the session.  A file this
 * session made for an earlier pool and still there is not written again: its
 * name is its scheme's canonical hash (a week of checkpoints every ten
 * minutes would otherwise rewrite the same thousand files a thousand times).
 * A failed write removes nothing: the folder keeps the earlier pool and the
 * new files made so far, each whole. */
static bool write_pool_files(search_session *s, scheme *const *pool, int n, int *written, char *err, size_t errlen)
{
    *written = 0;
    if (!s->pool_dir)
        return true;
    char **now = calloc((size_t)n + 1, sizeof *now);
    if (!now)
        return scheme_fail(err, errlen, "--pool-out: out of memory");
    bool ok = true;
    /* the earlier pools' files, sorted at the end of the last call; this one
     * appends its new files after them */
    const int sorted = s->npool_made;
    for (int i = 0; i < n && ok; i++) {
        char path[4096], e[512];
        struct stat sb;
        const bool existed = lstat(path_in_dir(s->pool_dir, pool[i], path), &sb) == 0;
        const char *key = path;
        const bool made = sorted > 0 && bsearch(&key, s->pool_made, (size_t)sorted, sizeof *s->pool_made, cmp_str);
        const bool ours = made && existed && S_ISREG(sb.st_mode);
        if (!ours && !write_in_dir(s->pool_dir, pool[i], path, e, sizeof e)) {
            ok = scheme_fail(err, errlen, "--pool-out: %d of %d schemes written, then: %s", *written, n, e);
            break;
        }
        ++*written;
        if (!(now[i] = strdup(path)))
            ok = scheme_fail(err, errlen, "--pool-out: out of memory");
        if (ok && !existed && !made) { /* made: listed already (its file went missing since) */
            if (s->npool_made == s->pool_made_cap) {
                const int cap = s->pool_made_cap ? 2 * s->pool_made_cap : 256;
                char **g = realloc(s->pool_made, (size_t)cap * sizeof *g);
                if (!g) {
                    ok = scheme_fail(err, errlen, "--pool-out: out of memory");
                    break;
                }
                s->pool_made = g;
                s->pool_made_cap = cap;
            }
            if (!(s->pool_made[s->npool_made] = strdup(path)))
                ok = scheme_fail(err, errlen, "--pool-out: out of memory");
            else
                s->npool_made++;
        }
    }
    if (ok) {
        qsort(now, (size_t)n, sizeof *now, cmp_str);
        int kept = 0;
        for (int i = 0; i < s->npool_made; i++) {
            char *made = s->pool_made[i];
            if (bsearch(&made, now, (size_t)n, sizeof *now, cmp_str)) {
                s->pool_made[kept++] = made;
                continue;
            }
            struct stat sb; /* never a link, FIFO or device put there since */
            if (lstat(made, &sb) == 0 && S_ISREG(sb.st_mode))
                unlink(made);
            free(made);
        }
        s->npool_made = kept;
    }
    if (s->npool_made > 1)
        qsort(s->pool_made, (size_t)s->npool_made, sizeof *s->pool_made, cmp_str);
    for (int i = 0; i < n; i++)
        free(now[i]);
    free(now);
    return ok;
}

bool session_write_pool(search_session *s, const search_result *res, int *written, char *err, size_t errlen)
{
    return write_pool_files(s, res->pool, res->npool, written, err, errlen);
}

/* f's scheme stored (source, parent); when it is one of the run's results
 * (not a GF(2) scheme a symmetric walk over Z lifts) also written to --out
 * and entered in the run's improvement log.  *stored_new: a scheme no earlier
 * run had stored; *id its row (0 without a store).  false: it was not written
 * or stored (the run's first failure says why). */
static bool keep_found(run_ctx *x, const search_found *f, const char *source, int64_t parent, bool result,
                       char path[4096], bool *stored_new, int64_t *id_out)
{
    char fb[32];
    scheme_format_str(f->s->fmt, fb);
    bool wrote = false;
    if (x->s->out_dir && result) {
        char err[512];
        if (!write_in_dir(x->s->out_dir, f->s, path, err, sizeof err)) {
            pthread_mutex_lock(&x->mu);
            first_failure(x, "the %s rank-%d scheme found after %.1f s was NOT written: %s", fb, f->rank,
                          f->seconds, err);
            x->run->store_failed = true;
            pthread_mutex_unlock(&x->mu);
            return false;
        }
        wrote = true;
    }
    *stored_new = wrote;
    *id_out = 0;
    if (x->s->store) {
        char err[512];
        int64_t id = 0;
        bool existed = false;
        /* an MPI run names the rank whose walker found it (docs/cluster.md) */
        char src[64];
        if (search_mpi_active())
            snprintf(src, sizeof src, "%s@rank%d", source, f->node);
        else
            snprintf(src, sizeof src, "%s", source);
        db_provenance prov = {x->run->run_id, parent, src, f->flips, f->seconds};
        pthread_mutex_lock(&x->mu);
        db_status st = db_insert_scheme(x->s->store, f->s, &prov, &id, &existed, err, sizeof err);
        bool scheme_in = st == DB_OK;
        if (st == DB_OK && result)
            st = db_run_improvement(x->s->store, x->run->run_id, f->seconds, f->rank, err, sizeof err);
        if (st != DB_OK) {
            if (scheme_in)
                first_failure(x, "the %s rank-%d scheme found after %.1f s is stored (id %" PRId64 "), "
                              "but not its entry in run %" PRId64 "'s improvement log: %s", fb, f->rank,
                              f->seconds, id, x->run->run_id, err);
            else
                first_failure(x, "the %s rank-%d scheme found after %.1f s was NOT stored: %s", fb, f->rank,
                              f->seconds, err);
            x->run->store_failed = true;
        }
        pthread_mutex_unlock(&x->mu);
        if (st != DB_OK)
            return false;
        *stored_new = !existed; /* already stored by an earlier run: not this run's */
        *id_out = id;
    }
    if (*stored_new)
        atomic_fetch_add(&x->stored, 1);
    return true;
}

/* A lift z (taken) of the GF(2) scheme at row parent, found as f says: the
 * run's improvement (--out, the store with source "lift", the improvement
 * log, the hook) and its best when it is the lowest lift. */
static void keep_lift(run_ctx *x, const search_found *f, scheme *z, int64_t parent)
{
    search_found zf = *f;
    zf.s = z;
    zf.rank = z->rank;
    char path[4096] = "";
    bool stored_new;
    int64_t z_id;
    if (keep_found(x, &zf, "lift", parent, true, path, &stored_new, &z_id) && x->h && x->h->improved) {
        pthread_mutex_lock(&x->hook_mu);
        x->h->improved(x->h->ctx, &zf, path, stored_new);
        pthread_mutex_unlock(&x->hook_mu);
    }
    pthread_mutex_lock(&x->mu);
    if (!x->z_best || z->rank < x->z_best->rank) {
        scheme_free(x->z_best);
        x->z_best = z;
        z = NULL;
    }
    pthread_mutex_unlock(&x->mu);
    scheme_free(z);
}

/* A symmetric walk over Z, on the lifter's thread: the GF(2) improvement
 * it takes is lifted (verify_lift_ex, verified over Z); a lift is the run's
 * improvement: --out, the store (source "lift", parent the GF(2) row), the
 * improvement log and the hook.  One that does not lift is counted.  Why
 * lift instead of walking over Z: the C3 schemes of the GF(2) walk lift
 * (<5,5,5> at 99, 102 and 105 of one CPU run, and Moosbauer, Poole's 93, at
 * the first column order), where the plain walk over Z stops near 101
 * (bench/RESULTS.md). */
static void lift_one(run_ctx *x, lift_item *it)
{
    /* a lift within {-1, 0, 1} if one of the attempts gives it: the walks
     * over Z (the GPU's) start only from those; Hensel lifting's first lift
     * of a CPU <5,5,5>:99 held a 3, its third attempt's none above 1 */
    verify_lift_options opt = {.max_coef = 1};
    verify_lift_result lr;
    /* an invariant lift first, so that the stored integer scheme keeps the
     * walk's symmetry (docs/verify.md, "Invariant lifts"); the plain lift when
     * there is none within {-1, 0, 1} */
    scheme *z = NULL, *inv = NULL;
    if (x->symmetry != SCHEME_SYM_NONE) {
        opt.symmetry = x->symmetry;
        inv = verify_lift_ex(it->s, &opt, &lr);
        opt.symmetry = SCHEME_SYM_NONE;
        if (inv && lr.max_coeff <= 1) {
            z = inv;
            inv = NULL;
        }
    }
    if (!z)
        z = verify_lift_ex(it->s, &opt, &lr);
    if (!z) {
        z = inv; /* coefficients beyond 1, but a lift */
        inv = NULL;
    }
    scheme_free(inv);
    pthread_mutex_lock(&x->mu);
    x->run->lifts_tried++;
    if (z)
        x->run->lifts_ok++;
    else if (!x->unlifted || it->s->rank < x->unlifted->rank) {
        scheme_free(x->unlifted);
        x->unlifted = it->s; /* taken: the caller frees NULL */
        it->s = NULL;
        x->unlifted_id = it->gf2_id;
        x->unlifted_f = it->f;
    }
    pthread_mutex_unlock(&x->mu);
    if (z)
        keep_lift(x, &it->f, z, it->gf2_id);
}

/* The pending item of lowest rank, taken out of the queue (lf->mu held). */
static lift_item take_lowest(lifter *lf)
{
    int at = 0;
    for (int i = 1; i < lf->n; i++)
        if (lf->q[i].s->rank < lf->q[at].s->rank)
            at = i;
    lift_item it = lf->q[at];
    lf->q[at] = lf->q[--lf->n];
    return it;
}

static void *lifter_main(void *p)
{
    run_ctx *x = p;
    lifter *lf = x->lifter;
    int tries_at_end = 0;
    pthread_mutex_lock(&lf->mu);
    for (;;) {
        while (!lf->n && !lf->closing)
            pthread_cond_wait(&lf->cv, &lf->mu);
        if (!lf->n || (lf->closing && (lf->interrupted || tries_at_end >= LIFT_AT_END)))
            break;
        tries_at_end += lf->closing;
        const bool closing = lf->closing;
        lift_item it = take_lowest(lf);
        pthread_mutex_lock(&x->mu);
        const bool beaten = x->z_best && x->z_best->rank <= it.s->rank;
        pthread_mutex_unlock(&x->mu);
        /* the rest are no lower: the run's best stands (also right after a
         * lift at the end, the lowest pending one) */
        if (closing && beaten) {
            lf->q[lf->n++] = it;
            break;
        }
        pthread_mutex_unlock(&lf->mu);
        lift_one(x, &it);
        scheme_free(it.s);
        pthread_mutex_lock(&lf->mu);
        lf->interrupted |= lf->closing && (session_stop_seen() || search_stop_requested());
    }
    for (int i = 0; i < lf->n; i++) /* dropped: their GF(2) schemes are stored */
        scheme_free(lf->q[i].s);
    pthread_mutex_lock(&x->mu);
    x->run->lifts_skipped += lf->n;
    pthread_mutex_unlock(&x->mu);
    lf->n = 0;
    pthread_mutex_unlock(&lf->mu);
    return NULL;
}

/* it queued for the lifter (taken); false: out of memory (it is not). */
static bool lifter_push(lifter *lf, lift_item it)
{
    pthread_mutex_lock(&lf->mu);
    if (lf->n == lf->cap) {
        const int cap = lf->cap ? 2 * lf->cap : 16;
        lift_item *q = realloc(lf->q, (size_t)cap * sizeof *q);
        if (!q) {
            pthread_mutex_unlock(&lf->mu);
            return false;
        }
        lf->q = q;
        lf->cap = cap;
    }
    lf->q[lf->n++] = it;
    pthread_cond_signal(&lf->cv);
    pthread_mutex_unlock(&lf->mu);
    return true;
}

/* A symmetric walk over Z, on the walker's thread: the GF(2) improvement is
 * stored (a result over GF(2), in the store only) and handed to the lifter.
 * false: it was not stored, or out of memory. */
static bool lift_improved(run_ctx *x, const search_found *f)
{
    char path[4096] = "";
    bool stored_new;
    lift_item it = {scheme_clone(f->s), *f, 0};
    if (!it.s || !keep_found(x, f, x->source, 0, false, path, &stored_new, &it.gf2_id)) {
        if (!it.s) {
            pthread_mutex_lock(&x->mu);
            first_failure(x, "out of memory");
            x->run->store_failed = true;
            pthread_mutex_unlock(&x->mu);
        }
        scheme_free(it.s);
        return false;
    }
    it.f.s = NULL;
    if (!lifter_push(x->lifter, it)) {
        scheme_free(it.s);
        pthread_mutex_lock(&x->mu);
        x->run->lifts_skipped++;
        pthread_mutex_unlock(&x->mu); /* the GF(2) scheme is stored; its lift is not tried */
    }
    return true;
}

static bool on_improved(void *p, const search_found *f)
{
    run_ctx *x = p;
    if (x->lift_each)
        return lift_improved(x, f);
    char path[4096] = "";
    bool stored_new;
    int64_t id;
    if (!keep_found(x, f, x->source, 0, true, path, &stored_new, &id))
        return false;
    if (x->h && x->h->improved)
        x->h->improved(x->h->ctx, f, path, stored_new);
    return true;
}

static void on_progress(void *p, const search_progress *pr)
{
    run_ctx *x = p;
    if (x->s->store) { /* the run's progress and heartbeat */
        char err[512];
        pthread_mutex_lock(&x->mu);
        /* a symmetric walk over Z: the run's best is its lowest lift */
        const int best = !x->lift_each ? pr->best_rank : x->z_best ? x->z_best->rank : 0;
        db_run_progress(x->s->store, x->run->run_id, pr->flips, best, err, sizeof err);
        pthread_mutex_unlock(&x->mu); /* a missed heartbeat is not a lost result: the next one retries */
    }
    if (!x->h || !x->h->progress || x->print_every <= 0)
        return;
    if (x->engine_every != x->print_every) {
        if (pr->seconds + 1e-3 < x->next_print)
            return;
        x->next_print = pr->seconds + x->print_every;
    }
    pthread_mutex_lock(&x->hook_mu);
    x->h->progress(x->h->ctx, pr, x->s->store || x->s->out_dir ? atomic_load(&x->stored) : UINT64_MAX);
    pthread_mutex_unlock(&x->hook_mu);
}

/* search_callbacks.pool_checkpoint: the pool written as --pool-out writes it
 * at the end (write_pool_files).  A failure is the run's warning, not its
 * end: every improvement is in the store and --out already, and the next
 * checkpoint or the end tries again (session_run.pool_failed says it). */
static void on_pool_checkpoint(void *p, scheme *const *pool, int n, double seconds)
{
    run_ctx *x = p;
    char err[1024];
    int written = 0;
    const bool ok = write_pool_files(x->s, pool, n, &written, err, sizeof err);
    x->run->pool_checkpoints++;
    if (!ok && !x->run->pool_failed++)
        snprintf(x->run->pool_msg, sizeof x->run->pool_msg, "the checkpoint at %.0f s: %s", seconds, err);
    if (x->h && x->h->pool_checkpoint) {
        pthread_mutex_lock(&x->hook_mu);
        x->h->pool_checkpoint(x->h->ctx, written, seconds, ok ? NULL : err);
        pthread_mutex_unlock(&x->hook_mu);
    }
}

/* The start of lowest rank over ring (NULL: none). */
static const scheme *lowest_start(const scheme *const *starts, int nstarts, scheme_ring ring)
{
    const scheme *low = NULL;
    for (int i = 0; i < nstarts; i++)
        if (starts[i]->ring == ring && (!low || starts[i]->rank < low->rank))
            low = starts[i];
    return low;
}

/* --via-f2 T, after the walk and its lifts: when the lowest GF(2)
 * improvement that did not lift is below every lift, the lifting walk
 * (search_lift_walk; docs/search.md, "The lifting walk") walks it at its rank
 * and lifts every distinct neighbour met, until one lifts or T passes (one
 * walk a thread, search_lift_walk_threads).  The
 * neighbour that lifted is stored (source lift-walk, its parent that
 * improvement) and its lift is the run's improvement (source lift).  Why:
 * whether a GF(2) scheme lifts goes by region, not by rank (of two GF(2)
 * <3,4,5>:47 neither lifts, yet the neighbours of one lift one in eight;
 * bench/RESULTS.md, "The lifting walk"), and the walk stops at the target
 * whether or not its scheme there lifts. */
static void lift_walk_at_end(run_ctx *x, const search_params *p, int threads, const search_result *res)
{
    if (!(p->via_f2 > 0) || !x->unlifted || (x->z_best && x->z_best->rank <= x->unlifted->rank) ||
        res->interrupted || session_stop_seen() || search_stop_requested())
        return;
    const double t0 = search_clock_s();
    int tried = 0;
    scheme *g = NULL;
    scheme *z = search_lift_walk_threads(x->unlifted, x->unlifted->rank, p->via_f2, p->seed ^ 0x6c69667477616c6bull,
                                         threads, &tried, &g);
    x->run->lift_walk_rank = x->unlifted->rank;
    x->run->lift_walk_tried = tried;
    x->run->lift_walk_seconds = search_clock_s() - t0;
    if (!z || !g) {
        scheme_free(z);
        scheme_free(g);
        return;
    }
    x->run->lift_walk_ok = true;
    search_found gf = x->unlifted_f;
    gf.s = g;
    gf.rank = g->rank;
    gf.seconds = res->seconds + x->run->lift_walk_seconds;
    char path[4096] = "";
    bool stored_new;
    int64_t g_id = 0;
    if (keep_found(x, &gf, "lift-walk", x->unlifted_id, false, path, &stored_new, &g_id))
        keep_lift(x, &gf, z, g_id);
    else
        scheme_free(z);
    scheme_free(g);
}

/* The end of a symmetric walk over Z (or one --via-f2): the run's result is
 * its lowest lift, or its lowest integer start where that is lower (the
 * GF(2) best is stored already); the GF(2) pool is dropped (its schemes
 * are not integer ones); the target counts as reached only when a lift
 * reached it.  A run whose improvements all failed to lift ends with no best
 * (best_rank 0) and says so. */
static void lift_result(run_ctx *x, const search_params *p, const scheme *const *starts, int nstarts,
                        search_result *res)
{
    /* an integer start below every lift is the run's best, as a walk over Z
     * keeps its start when it finds nothing lower (a meta leg from a moved
     * start at the record walks nothing and lifts nothing) */
    const scheme *low = lowest_start(starts, nstarts, SCHEME_RING_Z);
    if (low && (!x->z_best || low->rank < x->z_best->rank)) {
        scheme *c = scheme_clone(low);
        if (c) {
            scheme_free(x->z_best);
            x->z_best = c;
        }
    }
    for (int i = 0; i < res->npool; i++)
        scheme_free(res->pool[i]);
    free(res->pool);
    res->pool = NULL;
    res->npool = 0;
    scheme_free(res->best);
    res->best = x->z_best;
    x->z_best = NULL;
    res->best_rank = res->best ? res->best->rank : 0;
    if (res->status == SEARCH_REACHED && (!res->best || (p->target_rank > 0 && res->best_rank > p->target_rank)))
        res->status = SEARCH_NOT_REACHED;
    if (!res->best && (res->status == SEARCH_REACHED || res->status == SEARCH_NOT_REACHED))
        snprintf(res->msg, sizeof res->msg, "none of the walk's %d GF(2) improvements lifted to Z",
                 x->run->lifts_tried);
}

db_status session_store_moved(search_session *s, const session_run *run, const scheme *sch, int64_t parent, char *err,
                              size_t errlen)
{
    if (!s->store || !run->run_id || run->begin_failed || run->store_failed)
        return DB_OK;
    db_provenance prov = {run->run_id, parent, "resize", 0, 0};
    int64_t id;
    bool existed;
    return db_insert_scheme(s->store, sch, &prov, &id, &existed, err, errlen);
}

search_status session_search(search_session *s, const search_config *c, const char *device,
                             const scheme *const *starts, int nstarts, const session_hooks *h,
                             session_run *run, search_result *res)
{
    memset(run, 0, sizeof *run);
    memset(res, 0, sizeof *res);
    bool gpu = c->backend == SEARCH_BACKEND_GPU;
    run_ctx x = {.s = s, .h = h, .run = run, .mu = PTHREAD_MUTEX_INITIALIZER, .hook_mu = PTHREAD_MUTEX_INITIALIZER};
    lifter lf = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    /* a symmetric walk's schemes say so in the store (docs/db.md, "source") */
    char source[32] = "search";
    if (c->p.symmetry != SCHEME_SYM_NONE)
        snprintf(source, sizeof source, "search:%s", scheme_symmetry_name((scheme_symmetry)c->p.symmetry));
    x.source = source;
    x.symmetry = (scheme_symmetry)c->p.symmetry;
    /* What the engine runs: c->p, with progress reports often enough for the
     * store's heartbeat (the record and the printed rows keep c's interval). */
    search_params run_p = c->p;
    /* --host-threads: CPU walkers beside the GPU's, with the CPU's walk
     * settings (docs/search.md, "CPU walkers beside the GPU") */
    search_gpu_options gpu_o = c->gpu;
    search_params beside;
    if (gpu && c->p.host_threads > 0) {
        if (!search_config_beside(c, &beside, res->msg, sizeof res->msg)) {
            res->status = SEARCH_BAD_PARAMS;
            return res->status;
        }
        gpu_o.beside = &beside;
    }
    /* a symmetric walk over Z, or one --via-f2, walks over GF(2) and lifts
     * (lift_improved) */
    x.lift_each = search_lifts_to_z(&c->p);
    if (x.lift_each) {
        run_p.ring = SCHEME_RING_F2;
        run_p.coef_max = 1;
        run_p.via_f2 = 0;
    }
    if (s->store && (run_p.progress_every <= 0 || run_p.progress_every > DB_RUN_HEARTBEAT_SECONDS))
        run_p.progress_every = DB_RUN_HEARTBEAT_SECONDS;
    x.print_every = c->p.progress_every;
    x.engine_every = run_p.progress_every;
    x.next_print = c->p.progress_every;

    if (s->store) {
        char *text = search_config_to_text(c);
        char dev[256];
        if (device)
            snprintf(dev, sizeof dev, "%s", device);
        else if (gpu) {
            if (cuda_device_describe(dev, sizeof dev) <= 0)
                snprintf(dev, sizeof dev, "GPU %d", c->p.device);
        } else
            snprintf(dev, sizeof dev, "%d thread%s", c->p.threads, c->p.threads == 1 ? "" : "s");
        if (gpu && c->p.host_threads > 0) {
            const size_t used = strlen(dev);
            snprintf(dev + used, sizeof dev - used, " + %d CPU thread%s beside", c->p.host_threads,
                     c->p.host_threads == 1 ? "" : "s");
        }
        db_run_info info = {c->p.fmt, text ? text : "", c->p.seed, gpu ? "gpu" : "cpu", dev, NULL};
        char err[512];
        db_status st = text ? db_run_begin(s->store, &info, &run->run_id, err, sizeof err) : DB_IO;
        if (!text)
            snprintf(err, sizeof err, "out of memory");
        free(text);
        if (st != DB_OK) {
            run->begin_failed = true;
            run->begin_status = st;
            snprintf(run->msg, sizeof run->msg, "recording the run: %s", err);
            res->status = SEARCH_FAILED;
            snprintf(res->msg, sizeof res->msg, "%.*s", (int)sizeof res->msg - 1, run->msg);
            return SEARCH_FAILED;
        }
    }
    if (h && h->started)
        h->started(h->ctx, run->run_id);

    session_signals_hold();
    search_callbacks cb = {.ctx = &x, .improved = on_improved, .progress = on_progress,
                           .pool_checkpoint = s->pool_dir ? on_pool_checkpoint : NULL};
    bool lifting = false;
    if (x.lift_each) {
        x.lifter = &lf;
        /* --via-f2 from GF(2) schemes: the lowest is lifted too (it is no
         * improvement of the walk's, and a walk from a start at its target
         * makes none), so that the lifting walk goes around it when it
         * does not lift; an integer start lifts by itself */
        const scheme *low = c->p.via_f2 > 0 ? lowest_start(starts, nstarts, SCHEME_RING_F2) : NULL;
        if (low) {
            const lift_item it = {scheme_clone(low), {NULL, low->rank, 0, 0, 0, 0}, 0};
            if (it.s && !lifter_push(&lf, it))
                scheme_free(it.s);
        }
        lifting = pthread_create(&lf.th, NULL, lifter_main, &x) == 0;
        if (!lifting) {
            res->status = SEARCH_FAILED;
            snprintf(res->msg, sizeof res->msg, "the lifter thread could not be started");
        }
    }
    if (lifting || !x.lift_each) {
        if (gpu)
            search_run_gpu_opts(&run_p, &gpu_o, starts, nstarts, &cb, res);
        else
            search_run_cpu(&run_p, starts, nstarts, &cb, res);
    }
    if (lifting) { /* the walk has ended: the lifter finishes (lifter_main) */
        pthread_mutex_lock(&lf.mu);
        lf.closing = true;
        lf.interrupted = res->interrupted || session_stop_seen() || search_stop_requested();
        pthread_cond_signal(&lf.cv);
        pthread_mutex_unlock(&lf.mu);
        pthread_join(lf.th, NULL);
        free(lf.q);
        lift_walk_at_end(&x, &c->p, session_lift_threads(gpu, c->p.threads), res);
    }
    scheme_free(x.unlifted);
    session_signals_release();
    if (x.lift_each)
        lift_result(&x, &c->p, starts, nstarts, res);
    run->stored = atomic_load(&x.stored);

    if (s->store && run->run_id) {
        const char *status = res->status == SEARCH_FAILED || res->status == SEARCH_BAD_PARAMS ? "failed"
                             : res->interrupted                                               ? "interrupted"
                                                                                              : "finished";
        char err[512];
        if (db_run_end(s->store, run->run_id, status, res->flips, res->best_rank, err, sizeof err) != DB_OK) {
            /* the schemes stored on the way stay; the row reads running, then killed */
            run->end_lost = true;
            snprintf(run->end_msg, sizeof run->end_msg, "the end of run %" PRId64 " (%s, best rank %d, %" PRIu64
                     " flips) was NOT stored; the store keeps it marked running: %.512s", run->run_id, status,
                     res->best_rank, res->flips, err);
        }
    }
    pthread_mutex_destroy(&x.mu);
    pthread_mutex_destroy(&x.hook_mu);
    pthread_mutex_destroy(&lf.mu);
    pthread_cond_destroy(&lf.cv);
    if (run->store_failed) {
        res->status = SEARCH_FAILED;
        snprintf(res->msg, sizeof res->msg, "%.*s", (int)sizeof res->msg - 1, run->msg);
    }
    return res->status;
}
