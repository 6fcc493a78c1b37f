/* MPI ranks around the engine (search.h section 5; engine.h, engine_layer;
 * docs/cluster.md).
 *
 * Every rank runs engine_run with its own backend (CPU threads or a GPU); this
 * file is only the layer between the ranks' engines, one thread per rank:
 *
 *   worker rank r > 0                        rank 0 (the store, the run record)
 *   kept(): every scheme its engine pooled   receives them: engine_offer_remote
 *   or reported -> a queue (a copy, no       (verified again on the CPU, pooled,
 *   wait); the thread sends it (Isend)       a new best reported once: stored)
 *   stats every STATS_EVERY seconds   --->   adds them to its progress rows
 *   pool samples: engine_offer_remote <---   every SAMPLE_EVERY s, when its pool
 *                                            changed: the best + staged entries
 *   STOP: engine_stop                 <---   its engine stopped (target, time,
 *                                            signal, failure)
 *   DONE (final counters, status)     --->   counted; a failed rank fails the run
 *
 * The walkers never wait for the network: kept() appends to a queue under a
 * short lock and every MPI call is made by the layer's thread (Isend, Iprobe,
 * Recv of a message already there, Test).  When the run stops, the engine's
 * own thread finishes the exchange in join(), after every walker has ended
 * (so nothing a walker kept is left behind): a worker sends what is queued
 * and DONE and reads until STOP; rank 0 sends STOP and reads until every
 * worker's DONE, offering (and so storing) each scheme that arrives.  MPI
 * keeps the order of messages between two ranks, so DONE comes after every
 * scheme its rank sent, and STOP after every sample.
 */
#include "search.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../cuda/fg_cuda.h"
#include "engine.h"

#if FLIPGRAPH_HAVE_MPI
#include <mpi.h>

enum { T_OFFER = 1, T_STATS, T_DONE, T_POOL, T_STOP, T_SETUP };
enum { ST_OK = 0, ST_INTERRUPTED = 1, ST_FAILED = 2 };

#define STATS_EVERY 0.5   /* seconds between a worker's counters */
#define SAMPLE_EVERY 2.0  /* seconds between rank 0's pool samples (when the pool changed) */
#define SAMPLE_SIZE 16    /* staged entries per sample, besides the best */
#define MAX_PAIRS 64      /* distinct current ranks a worker reports */
/* How long rank 0 waits for the workers' last words when the run ends.  After
 * a signal: mpirun sends SIGTERM to every rank and SIGKILL about a second
 * later (Open MPI's odls_base_sigkill_timeout, docs/cluster.md), so rank 0
 * must end its run record before then; a rank that has not answered by then
 * is taken for dead (one killed outright, whose death mpirun answers with
 * that same SIGTERM). */
#define DRAIN_AFTER_SIGNAL 0.4
#define DRAIN_SECONDS 60.0

/* A rank's counters as sent (plain words: every rank runs the same build). */
typedef struct wire_stats {
    uint64_t flips, plus, reductions, restarts, undone, plateau, siblings;
    int32_t devices, walkers, npairs, status;
    int32_t pairs[2 * MAX_PAIRS]; /* (rank, walkers at it) */
    char msg[400];                /* DONE with ST_FAILED: why */
} wire_stats;

typedef struct pending {
    MPI_Request req;
    void *buf;
} pending;

typedef struct qitem {
    struct qitem *next;
    size_t words;
    uint64_t w[];
} qitem;

typedef struct peer {
    wire_stats st;    /* the last counters it sent (rank 0) */
    bool has_stats;
    bool done;        /* its DONE arrived */
    bool stopped;     /* STOP sent to it */
    MPI_Request sample_req;
    void *sample_buf;
    char host[64];
} peer;

static struct {
    bool active;
    int rank, size, local_rank;
    char host[64];
    engine_layer layer;
    engine *e;
    pthread_t th;
    bool ran;             /* the layer started in this process (its join ends the exchange) */
    bool ended;           /* search_mpi_share ended the run before it began: no exchange */
    bool lost;            /* rank 0: a worker did not answer in time (dead): no collective call is safe */
    bool stop_seen;       /* a worker: STOP arrived */
    scheme_rng rng;
    pthread_mutex_t qmu;  /* the queue (walker threads append) */
    qitem *qhead, **qtail;
    pthread_mutex_t smu;  /* peers' stats (the engine's monitor reads them) */
    peer *peers;          /* [size] (rank 0) */
    pending *pend;        /* sends in flight */
    int npend, cpend;
    MPI_Request stats_req;
    wire_stats stats_buf;
    int *rank_count;      /* [SCHEME_MAX_RANK + 1] scratch */
    uint64_t sample_version;
    double next_stats, next_sample;
} M = {.qmu = PTHREAD_MUTEX_INITIALIZER, .smu = PTHREAD_MUTEX_INITIALIZER, .stats_req = MPI_REQUEST_NULL};

static void nap(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* ---- schemes as words: [walker | what << 32], [n | m << 8 | p << 16 | rank << 32], 3 words a term ---- */

static size_t scheme_words(const scheme *s) { return 2 + 3 * (size_t)s->rank; }

static void encode(uint64_t *w, int walker, int what, const scheme *s)
{
    w[0] = (uint64_t)(uint32_t)walker | (uint64_t)(uint32_t)what << 32;
    w[1] = (uint64_t)s->fmt.n | (uint64_t)s->fmt.m << 8 | (uint64_t)s->fmt.p << 16 | (uint64_t)s->rank << 32;
    for (int i = 0; i < s->rank; i++)
        memcpy(w + 2 + 3 * i, s->terms[i].f, 3 * sizeof(uint64_t));
}

/* The scheme at w (nw words left); NULL when malformed or out of memory.
 * *used: its words. */
static scheme *decode(const uint64_t *w, size_t nw, int *walker, size_t *used)
{
    if (nw < 2)
        return NULL;
    const scheme_format f = {(int)(w[1] & 0xff), (int)(w[1] >> 8 & 0xff), (int)(w[1] >> 16 & 0xff)};
    const uint64_t rank = w[1] >> 32;
    if (!scheme_format_valid(f) || rank > SCHEME_MAX_RANK || nw < 2 + 3 * rank)
        return NULL;
    scheme *s = scheme_new(f, SCHEME_RING_F2, rank ? (int)rank : 1);
    for (uint64_t i = 0; s && i < rank; i++)
        if (!scheme_push(s, w[2 + 3 * i], w[3 + 3 * i], w[4 + 3 * i])) {
            scheme_free(s);
            s = NULL;
        }
    *walker = (int)(int32_t)(uint32_t)w[0];
    *used = 2 + 3 * (size_t)rank;
    return s;
}

/* ---- sends: every one non-blocking; the buffer lives until it completed ---- */

static bool post(int dest, int tag, void *buf, size_t bytes)
{
    if (M.npend == M.cpend) {
        int c = M.cpend ? 2 * M.cpend : 64;
        pending *p = realloc(M.pend, (size_t)c * sizeof *p);
        if (!p) {
            free(buf);
            return false;
        }
        M.pend = p;
        M.cpend = c;
    }
    pending *p = &M.pend[M.npend];
    p->buf = buf;
    if (MPI_Isend(buf, (int)bytes, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &p->req) != MPI_SUCCESS) {
        free(buf);
        return false;
    }
    M.npend++;
    return true;
}

/* Frees the sends that completed (MPI_Test: no wait). */
static void reap(void)
{
    for (int i = 0; i < M.npend;) {
        int done = 0;
        MPI_Test(&M.pend[i].req, &done, MPI_STATUS_IGNORE);
        if (done) {
            free(M.pend[i].buf);
            M.pend[i] = M.pend[--M.npend];
        } else {
            i++;
        }
    }
}

static void reap_all(void)
{
    for (int i = 0; i < M.npend; i++) {
        MPI_Wait(&M.pend[i].req, MPI_STATUS_IGNORE);
        free(M.pend[i].buf);
    }
    M.npend = 0;
    if (M.stats_req != MPI_REQUEST_NULL)
        MPI_Wait(&M.stats_req, MPI_STATUS_IGNORE);
    for (int r = 0; M.peers && r < M.size; r++)
        if (M.peers[r].sample_req != MPI_REQUEST_NULL) {
            MPI_Wait(&M.peers[r].sample_req, MPI_STATUS_IGNORE);
            free(M.peers[r].sample_buf);
            M.peers[r].sample_buf = NULL;
        }
}

/* ---- the layer ---- */

/* A walker of this rank kept s (its engine verified it): queued for rank 0. */
static void layer_kept(void *ctx, int walker, const scheme *s, int what)
{
    (void)ctx;
    if (M.rank == 0)
        return;
    const size_t nw = scheme_words(s);
    qitem *q = malloc(sizeof *q + nw * sizeof(uint64_t));
    if (!q)
        return; /* not sent: the worker's own walk keeps it; rank 0 misses one scheme */
    q->next = NULL;
    q->words = nw;
    encode(q->w, walker, what, s);
    pthread_mutex_lock(&M.qmu);
    *M.qtail = q;
    M.qtail = &q->next;
    pthread_mutex_unlock(&M.qmu);
}

static void send_queue(void)
{
    pthread_mutex_lock(&M.qmu);
    qitem *q = M.qhead;
    M.qhead = NULL;
    M.qtail = &M.qhead;
    pthread_mutex_unlock(&M.qmu);
    while (q) {
        qitem *next = q->next;
        uint64_t *buf = malloc(q->words * sizeof *buf);
        if (buf) {
            memcpy(buf, q->w, q->words * sizeof *buf);
            post(0, T_OFFER, buf, q->words * sizeof *buf);
        }
        free(q);
        q = next;
    }
}

/* This rank's counters, its walkers' ranks as (rank, count) pairs. */
static void local_stats(wire_stats *w)
{
    engine_stats st;
    memset(&st, 0, sizeof st);
    memset(w, 0, sizeof *w);
    if (M.rank_count) {
        memset(M.rank_count, 0, (SCHEME_MAX_RANK + 1) * sizeof *M.rank_count);
        st.rank_count = M.rank_count;
    }
    if (M.e)
        engine_local_stats(M.e, &st);
    w->flips = st.flips;
    w->plus = st.plus;
    w->reductions = st.reductions;
    w->restarts = st.restarts;
    w->undone = st.undone;
    w->siblings = st.siblings;
    w->plateau = st.plateau;
    w->devices = st.devices;
    for (int r = 0; M.rank_count && r <= SCHEME_MAX_RANK && w->npairs < MAX_PAIRS; r++)
        if (M.rank_count[r]) {
            w->pairs[2 * w->npairs] = r;
            w->pairs[2 * w->npairs + 1] = M.rank_count[r];
            w->walkers += M.rank_count[r];
            w->npairs++;
        }
}

static void layer_stats(void *ctx, engine_stats *st)
{
    (void)ctx;
    if (M.rank != 0)
        return;
    pthread_mutex_lock(&M.smu);
    for (int r = 1; r < M.size; r++) {
        const peer *p = &M.peers[r];
        if (!p->has_stats)
            continue;
        st->flips += p->st.flips;
        st->plus += p->st.plus;
        st->reductions += p->st.reductions;
        st->restarts += p->st.restarts;
        st->undone += p->st.undone;
        st->siblings += p->st.siblings;
        st->devices += p->st.devices;
        if (st->rank_count) {
            for (int i = 0; i < p->st.npairs && i < MAX_PAIRS; i++) {
                const int k = p->st.pairs[2 * i];
                st->rank_count[k < 0 ? 0 : k > SCHEME_MAX_RANK ? SCHEME_MAX_RANK : k] += p->st.pairs[2 * i + 1];
            }
            st->walkers += p->st.walkers;
        }
    }
    pthread_mutex_unlock(&M.smu);
}

static void fail_rank(int r, const char *msg)
{
    if (M.e)
        engine_fail(M.e, SEARCH_FAILED, "rank %d (%s): %s", r, M.peers[r].host, msg);
}

/* One message that arrived (its tag, sender, bytes). */
static void handle(int tag, int src, void *buf, size_t bytes)
{
    const uint64_t *w = buf;
    const size_t nw = bytes / sizeof(uint64_t);
    if (M.rank == 0 && (src <= 0 || src >= M.size))
        return;
    if (tag == T_OFFER && M.rank == 0) {
        int walker;
        size_t used;
        scheme *s = decode(w, nw, &walker, &used);
        if (!s) {
            fail_rank(src, "a malformed scheme message");
            return;
        }
        if (M.e)
            engine_offer_remote(M.e, src, walker, s, &M.rng);
        scheme_free(s);
    } else if ((tag == T_STATS || tag == T_DONE) && M.rank == 0 && bytes == sizeof(wire_stats)) {
        pthread_mutex_lock(&M.smu);
        memcpy(&M.peers[src].st, buf, sizeof(wire_stats));
        M.peers[src].st.msg[sizeof M.peers[src].st.msg - 1] = 0;
        M.peers[src].has_stats = true;
        if (tag == T_DONE)
            M.peers[src].done = true;
        pthread_mutex_unlock(&M.smu);
        if (tag == T_DONE && M.peers[src].st.status == ST_FAILED)
            fail_rank(src, M.peers[src].st.msg);
    } else if (tag == T_POOL && M.rank != 0) {
        for (size_t at = 0; at < nw;) {
            int walker;
            size_t used;
            scheme *s = decode(w + at, nw - at, &walker, &used);
            if (!s)
                break;
            if (M.e && !M.stop_seen)
                engine_offer_remote(M.e, 0, walker, s, &M.rng);
            scheme_free(s);
            at += used;
        }
    } else if (tag == T_STOP && M.rank != 0) {
        M.stop_seen = true;
        if (M.e)
            engine_stop(M.e);
    }
}

/* Reads every message that is there (none: returns at once). */
static void receive(void)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            return;
        int bytes = 0;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        void *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
        if (!buf) {
            if (M.e)
                engine_fail(M.e, SEARCH_FAILED, "out of memory");
            return;
        }
        MPI_Recv(buf, bytes, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        handle(st.MPI_TAG, st.MPI_SOURCE, buf, (size_t)bytes);
        free(buf);
    }
}

typedef struct sample_buf {
    uint64_t *w;
    size_t at, cap;
} sample_buf;

static bool sample_add(sample_buf *b, const scheme *s)
{
    const size_t nw = scheme_words(s);
    if (b->at + nw > b->cap) {
        size_t c = b->cap ? 2 * b->cap : 4096;
        while (c < b->at + nw)
            c *= 2;
        uint64_t *w = realloc(b->w, c * sizeof *w);
        if (!w)
            return false;
        b->w = w;
        b->cap = c;
    }
    encode(b->w + b->at, -1, 0, s);
    b->at += nw;
    return true;
}

static void sample_visit(void *ctx, int i, const scheme *s)
{
    (void)i;
    sample_add(ctx, s);
}

/* Rank 0: the best scheme and SAMPLE_SIZE entries staged by the restart
 * policy (what a restart here would draw) to every worker whose last sample
 * has arrived; only when the pool changed since the last one. */
static void send_samples(void)
{
    const uint64_t v = engine_pool_version(M.e);
    if (v == M.sample_version)
        return;
    M.sample_version = v;
    sample_buf b = {0};
    scheme *best = engine_best(M.e);
    if (best)
        sample_add(&b, best);
    scheme_free(best);
    int level, count;
    engine_stage(M.e, &M.rng, SAMPLE_SIZE, sample_visit, &b, &level, &count);
    for (int r = 1; b.at && r < M.size; r++) {
        peer *p = &M.peers[r];
        if (p->done || p->stopped)
            continue;
        if (p->sample_req != MPI_REQUEST_NULL) {
            int done = 0;
            MPI_Test(&p->sample_req, &done, MPI_STATUS_IGNORE);
            if (!done)
                continue; /* the last one is still on its way: never queue up behind a slow rank */
            free(p->sample_buf);
            p->sample_buf = NULL;
        }
        p->sample_buf = malloc(b.at * sizeof *b.w);
        if (!p->sample_buf)
            continue;
        memcpy(p->sample_buf, b.w, b.at * sizeof *b.w);
        MPI_Isend(p->sample_buf, (int)(b.at * sizeof *b.w), MPI_BYTE, r, T_POOL, MPI_COMM_WORLD, &p->sample_req);
    }
    free(b.w);
}

static void send_stats(void)
{
    if (M.stats_req != MPI_REQUEST_NULL) {
        int done = 0;
        MPI_Test(&M.stats_req, &done, MPI_STATUS_IGNORE);
        if (!done)
            return;
    }
    local_stats(&M.stats_buf);
    MPI_Isend(&M.stats_buf, (int)sizeof M.stats_buf, MPI_BYTE, 0, T_STATS, MPI_COMM_WORLD, &M.stats_req);
}

/* One round of the layer's thread: nothing in it waits. */
static void pump(void)
{
    receive();
    const double t = search_clock_s();
    if (M.rank == 0) {
        if (t >= M.next_sample) {
            send_samples();
            M.next_sample = t + SAMPLE_EVERY;
        }
    } else {
        send_queue();
        if (t >= M.next_stats) {
            send_stats();
            M.next_stats = t + STATS_EVERY;
        }
    }
    reap();
}

static void *layer_thread(void *arg)
{
    engine *e = arg;
    while (!engine_should_stop(e)) {
        pump();
        nap(2000);
    }
    engine_thread_end(e);
    return NULL;
}

static bool layer_start(engine *e, void *ctx)
{
    (void)ctx;
    M.e = e;
    M.stop_seen = false;
    M.sample_version = 0;
    M.next_stats = M.next_sample = search_clock_s();
    scheme_rng_seed(&M.rng, engine_params(e)->seed ^ 0x6a09e667f3bcc909ull);
    if (!M.rank_count)
        M.rank_count = calloc(SCHEME_MAX_RANK + 1, sizeof *M.rank_count);
    engine_thread_begin(e);
    int err = pthread_create(&M.th, NULL, layer_thread, e);
    if (err != 0) {
        engine_thread_end(e);
        engine_fail(e, SEARCH_FAILED, "cannot start the MPI thread: %s", strerror(err));
        M.e = NULL;
        return false;
    }
    M.ran = true;
    return true;
}

static bool all_done(void)
{
    for (int r = 1; r < M.size; r++)
        if (!M.peers[r].done)
            return false;
    return true;
}

/* Rank 0's end of the exchange: STOP to every worker, then every message
 * until each one's DONE (schemes that arrive are offered: stored). */
static void drain_root(void)
{
    for (int r = 1; r < M.size; r++)
        if (!M.peers[r].stopped) {
            char *b = malloc(1);
            if (b) {
                *b = 0;
                post(r, T_STOP, b, 1);
            }
            M.peers[r].stopped = true;
        }
    const double until = search_clock_s() + (search_stop_requested() ? DRAIN_AFTER_SIGNAL : DRAIN_SECONDS);
    while (!all_done()) {
        receive();
        reap();
        if (search_clock_s() > until) {
            for (int r = 1; r < M.size; r++)
                if (!M.peers[r].done)
                    fprintf(stderr, "flipgraph search: MPI rank %d (%s) did not answer; what it had not sent is "
                            "lost\n", r, M.peers[r].host);
            M.lost = true; /* its sends may never complete: no waiting on them, no collective */
            return;
        }
        nap(500);
    }
    reap_all();
}

/* A worker's end: what its walkers kept, DONE, then every message until STOP. */
static void drain_worker(int status, const char *msg)
{
    send_queue();
    wire_stats *d = malloc(sizeof *d);
    if (d) {
        local_stats(d);
        d->status = status;
        snprintf(d->msg, sizeof d->msg, "%s", msg ? msg : "");
        post(0, T_DONE, d, sizeof *d);
    }
    while (!M.stop_seen) {
        receive();
        reap();
        nap(500);
    }
    reap_all();
}

static void layer_join(void *ctx)
{
    (void)ctx;
    pthread_join(M.th, NULL);
    /* every walker has ended (the backend joined first): nothing more is queued */
    if (M.rank == 0) {
        drain_root();
    } else {
        const char *fail = engine_failure(M.e);
        drain_worker(fail ? ST_FAILED : search_stop_requested() ? ST_INTERRUPTED : ST_OK, fail);
    }
    M.e = NULL;
}

/* ---- set-up and end ---- */

bool search_mpi_built(void) { return true; }

bool search_mpi_init(char *err, size_t errlen)
{
    if (M.active)
        return true;
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        return scheme_fail(err, errlen, "--mpi: MPI_Init_thread failed");
    if (provided < MPI_THREAD_SERIALIZED) {
        MPI_Finalize();
        return scheme_fail(err, errlen, "--mpi: the MPI library gives no MPI_THREAD_SERIALIZED");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &M.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &M.size);
    MPI_Comm local;
    M.local_rank = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, M.rank, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
        MPI_Comm_rank(local, &M.local_rank);
        MPI_Comm_free(&local);
    }
    if (gethostname(M.host, sizeof M.host) != 0)
        snprintf(M.host, sizeof M.host, "unknown");
    M.host[sizeof M.host - 1] = 0;
    M.peers = calloc((size_t)M.size, sizeof *M.peers);
    if (!M.peers) {
        MPI_Finalize();
        return scheme_fail(err, errlen, "out of memory");
    }
    for (int r = 0; r < M.size; r++)
        M.peers[r].sample_req = MPI_REQUEST_NULL;
    char *hosts = calloc((size_t)M.size, sizeof M.host);
    if (!hosts) {
        MPI_Finalize();
        return scheme_fail(err, errlen, "out of memory");
    }
    MPI_Allgather(M.host, (int)sizeof M.host, MPI_CHAR, hosts, (int)sizeof M.host, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < M.size; r++)
        memcpy(M.peers[r].host, hosts + (size_t)r * sizeof M.host, sizeof M.host);
    free(hosts);
    M.qtail = &M.qhead;
    M.layer = (engine_layer){"mpi", NULL, layer_start, layer_stats, layer_join, layer_kept};
    engine_set_layer(&M.layer);
    M.active = true;
    return true;
}

int search_mpi_rank(void) { return M.active ? M.rank : 0; }
int search_mpi_size(void) { return M.active ? M.size : 1; }
bool search_mpi_active(void) { return M.active; }

/* What every rank must agree on before it takes rank 0's bytes. */
static uint64_t layout_id(void)
{
    return (uint64_t)sizeof(search_config) << 32 | (uint64_t)SEARCH_PARAM_COUNT << 16 | (uint64_t)sizeof(wire_stats);
}

int search_mpi_share(search_config *c, scheme ***starts, int *nstarts, int end, char *err, size_t errlen)
{
    if (!M.active)
        return end;
    /* head: the end code (-1: go on), the layout, the number of starts */
    int64_t head[3] = {end, (int64_t)layout_id(), M.rank == 0 && end < 0 ? *nstarts : 0};
    MPI_Bcast(head, 3, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (head[0] >= 0) {
        M.ended = true;
        return (int)head[0];
    }
    /* a rank whose build differs cannot read rank 0's bytes: every rank ends with 3 */
    int64_t mismatch = head[1] != (int64_t)layout_id(), any = 0;
    MPI_Allreduce(&mismatch, &any, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        snprintf(err, errlen, "--mpi: the ranks run different builds of flipgraph (their search_config differs)");
        M.ended = true;
        return 3;
    }
    MPI_Bcast(c, (int)sizeof *c, MPI_BYTE, 0, MPI_COMM_WORLD);
    const int n = (int)head[2];
    if (M.rank != 0) {
        *nstarts = 0;
        *starts = n ? calloc((size_t)n, sizeof **starts) : NULL;
    }
    int64_t bad = n && !*starts;
    for (int i = 0; i < n; i++) {
        int64_t nw = M.rank == 0 ? (int64_t)scheme_words((*starts)[i]) : 0;
        MPI_Bcast(&nw, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
        uint64_t *w = malloc((size_t)nw * sizeof *w);
        if (M.rank == 0 && w)
            encode(w, 0, 0, (*starts)[i]);
        /* every rank takes part in the broadcast even without its buffer */
        uint64_t dummy;
        MPI_Bcast(w ? w : &dummy, w ? (int)(nw * 8) : 0, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (M.rank != 0 && *starts) {
            int walker;
            size_t used;
            scheme *s = w ? decode(w, (size_t)nw, &walker, &used) : NULL;
            if (s)
                (*starts)[(*nstarts)++] = s;
            else
                bad = 1;
        }
        free(w);
    }
    int64_t anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
        snprintf(err, errlen, "--mpi: a rank could not take the start schemes (out of memory)");
        M.ended = true;
        return 3;
    }
    return -1;
}

char *search_mpi_configure(search_config *c)
{
    if (!M.active)
        return NULL;
    search_params *p = &c->p;
    if (M.rank > 0) {
        uint64_t s = p->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)M.rank);
        p->seed = scheme_splitmix64(&s) >> 1;
        p->time_limit = 0; /* rank 0 decides when the run ends */
        p->stall = 0;
        p->progress_every = 0;
        c->gpu.verbose = false; /* rank 0 prints; the others stay quiet */
    }
    char dev[200], line[320];
    if (c->backend == SEARCH_BACKEND_GPU) {
        const int ndev = cuda_compiled_in() ? cuda_device_count() : 0;
        p->device = ndev > 0 ? M.local_rank % ndev : 0;
        char name[160] = "";
        if (ndev > 0)
            cuda_device_describe(name, sizeof name);
        snprintf(dev, sizeof dev, "GPU %d of %d%s%s", p->device, ndev, name[0] ? ", " : "", name);
    } else {
        snprintf(dev, sizeof dev, "%d thread%s", p->threads, p->threads == 1 ? "" : "s");
    }
    snprintf(line, sizeof line, "rank %d: %s pid %ld, %s", M.rank, M.host, (long)getpid(), dev);
    char *all = M.rank == 0 ? calloc((size_t)M.size, sizeof line) : NULL;
    MPI_Gather(line, (int)sizeof line, MPI_CHAR, all, (int)sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (M.rank != 0)
        return NULL;
    if (!all)
        return NULL;
    int hosts = 0;
    for (int r = 0; r < M.size; r++) {
        bool seen = false;
        for (int q = 0; q < r && !seen; q++)
            seen = !strcmp(M.peers[q].host, M.peers[r].host);
        hosts += !seen;
    }
    size_t cap = 64 + (size_t)M.size * (sizeof line + 2);
    char *out = malloc(cap);
    if (out) {
        size_t at = (size_t)snprintf(out, cap, "mpi: %d rank%s on %d host%s", M.size, M.size == 1 ? "" : "s", hosts,
                                     hosts == 1 ? "" : "s");
        for (int r = 0; r < M.size; r++)
            at += (size_t)snprintf(out + at, cap - at, "; %s", all + (size_t)r * sizeof line);
    }
    free(all);
    return out;
}

int search_mpi_finish(int rc, const char *msg)
{
    if (!M.active)
        return rc;
    int code = rc;
    if (M.ended)
        goto out; /* every rank knows the code already */
    if (M.lost)
        return code; /* a rank is gone: MPI_Finalize could wait for it forever; mpirun ends the others */
    if (!M.ran) {
        /* this rank's search never walked (a start at the target, a failure
         * before the walk): it still ends the exchange the others expect */
        if (M.rank == 0) {
            drain_root();
        } else {
            drain_worker(rc == 0 || rc == 1 ? ST_OK : ST_FAILED,
                         msg && msg[0] ? msg : "its search ended before it walked");
        }
    }
    if (M.rank == 0) {
        /* a worker's failure that rank 0's engine did not see (rank 0 did not walk) */
        for (int r = 1; r < M.size; r++)
            if (M.peers[r].done && M.peers[r].st.status == ST_FAILED && !M.ran) {
                fprintf(stderr, "flipgraph search: rank %d (%s): %s\n", r, M.peers[r].host, M.peers[r].st.msg);
                if (code == 0 || code == 1)
                    code = 3;
            }
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
out:
    pthread_mutex_lock(&M.qmu);
    for (qitem *q = M.qhead, *n; q; q = n) {
        n = q->next;
        free(q);
    }
    M.qhead = NULL;
    M.qtail = &M.qhead;
    pthread_mutex_unlock(&M.qmu);
    engine_set_layer(NULL);
    free(M.pend);
    M.pend = NULL;
    free(M.peers);
    M.peers = NULL;
    free(M.rank_count);
    M.rank_count = NULL;
    M.active = false;
    MPI_Finalize();
    return code;
}

#else /* no MPI in this build: the calls say so */

bool search_mpi_built(void) { return false; }

bool search_mpi_init(char *err, size_t errlen)
{
    return scheme_fail(err, errlen, "--mpi: this flipgraph was built without MPI (CMake found none; "
                                    "scripts/setup.sh installs Open MPI, docs/cluster.md)");
}

int search_mpi_rank(void) { return 0; }
int search_mpi_size(void) { return 1; }
bool search_mpi_active(void) { return false; }

int search_mpi_share(search_config *c, scheme ***starts, int *nstarts, int end, char *err, size_t errlen)
{
    (void)c, (void)starts, (void)nstarts, (void)err, (void)errlen;
    return end;
}

char *search_mpi_configure(search_config *c)
{
    (void)c;
    return NULL;
}

int search_mpi_finish(int rc, const char *msg)
{
    (void)msg;
    return rc;
}

#endif
