/* search: the session around a search (docs/search.md, "The session"): the
 * store and the --out folder, the run record, every improvement written
 * there (the engine verified it first), the run's end, SIGINT/SIGTERM.
 * `flipgraph search`, `sweep` and `demo` use it; they only parse and print.
 *
 * A session holds one store (or none) for any number of runs, one after the
 * other:
 *
 *   search_session *s = session_open(db_path, &st, err, n);  // NULL: st says why
 *   session_set_out_dir(s, dir, err, n);                     // optional
 *   session_search(s, &config, starts, n, &hooks, &run, &res);
 *   session_close(s);
 *
 * Exit codes follow from what it returns: a db_status through the store's
 * table (docs/db.md), a search_status as search.h says, and run.store_failed
 * or run.end_lost: a storage failure (3), said in run.msg.
 */
#ifndef FLIPGRAPH_SEARCH_SESSION_H
#define FLIPGRAPH_SEARCH_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../db/db.h"
#include "search.h"

typedef struct search_session search_session;

/* The store at db_path, opened for writing (created when missing); db_path
 * NULL: a session without a store.  NULL on failure, *st and err say why
 * (the message names the path once). */
search_session *session_open(const char *db_path, db_status *st, char *err, size_t errlen);
void session_close(search_session *s);
/* The open store (NULL without one): reads such as db_best go through it. */
db *session_store(search_session *s);
/* Every improvement is also written to dir/NxMxP-RANK-HASH.txt (native format,
 * whole or not at all); the folder is created when missing.  false: it cannot be. */
bool session_set_out_dir(search_session *s, const char *dir, char *err, size_t errlen);
/* The folder session_write_pool writes to (made when missing, as for --out),
 * and with search_params.pool_every > 0 session_search's pool checkpoints
 * (docs/search.md, "Pool checkpoints"); false: it cannot be. */
bool session_set_pool_dir(search_session *s, const char *dir, char *err, size_t errlen);
/* Writes every scheme of res->pool (search_params.pool_keep) to the pool
 * folder as --out writes improvements (dir/NxMxP-RANK-HASH.txt, native, whole
 * or not at all); nothing without a pool folder.  Then removes the files this
 * session made for an earlier pool (a checkpoint's, or an earlier call's)
 * whose scheme this pool dropped: the folder holds this pool beside whatever
 * the session did not make.  A file it made for an earlier pool and still
 * there is kept as it is (its name is the scheme's canonical hash).
 * *written: the pool's files in the folder.  false: one could not be written
 * (err says which, and how many were; nothing was removed). */
bool session_write_pool(search_session *s, const search_result *res, int *written, char *err, size_t errlen);

/* Lifts the store's k lowest GF(2) schemes of f (by rank; the format as
 * stored) to Z with Hensel lifting (verify_lift_ex: 16 column orders) and
 * stores every lift that passes verify_z, with source "lift" and the GF(2)
 * scheme as its parent (sweep --ring z --lift K: a sweep over Z that tries
 * the GF(2) results too).  *tried and *lifted count them, *best is the lowest
 * lifted rank (0: none).  DB_OK, also when nothing lifts or none is stored;
 * else the store's failure. */
db_status session_lift_lowest(search_session *s, scheme_format f, int k, int *tried, int *lifted, int *best,
                              char *err, size_t errlen);
/* The lifting walks' threads (search_lift_walk_threads): a CPU run's own,
 * after a GPU walk the host's cores (8 at most), idle while it lifts. */
int session_lift_threads(bool gpu, int cpu_threads);
/* The lifting walk (sweep --ring z --lift K --lift-walk T): of the store's k
 * lowest GF(2) schemes of f, those of rank <= target each walk in turn (an
 * equal share of `seconds`; search_walker with the default parameters, plus
 * transitions at target, seed + i) in chunks of 20000 flips, and every
 * distinct scheme held at rank <= target (canonical hash; at most 4096 a
 * start) is lifted (search_lift_walk).  The first lift ends it: the GF(2)
 * scheme is stored with source "lift-walk" (parent: the walk's start), its
 * lift with source "lift" (parent: that scheme).  A GF(2) scheme whose own
 * lift fails can have neighbours that lift (search/lift_walk.c says what was
 * measured).  threads: walks at once on each start (search_lift_walk_threads).
 * *tried: lifts tried; *best: the lift's rank (0: none).  Ends early on a
 * stop request (SIGINT).  DB_OK, also when nothing lifts; else the store's
 * failure. */
db_status session_lift_walk(search_session *s, scheme_format f, int k, int target, double seconds, uint64_t seed,
                            int threads, int *tried, int *best, char *err, size_t errlen);
/* The best stored scheme of f over ring (--from-db; SCHEME_RING_Z for a walk
 * over Z): DB_OK with *out, DB_NOT_FOUND when there is none (or no store),
 * else the store's failure.  Over Z with coef_max > 0: the lowest-rank one
 * whose coefficients are within coef_max (a lift can hold a 2 or a 4, which
 * the GPU walk refuses), of the 64 lowest; when none is, the lowest of all,
 * or DB_NOT_FOUND when strict (the GPU walk: a lifted device sweep whose
 * lifts all held a 4 failed the format on its own store's start). */
db_status session_best_start(search_session *s, scheme_format f, scheme_ring ring, int coef_max, bool strict,
                             scheme **out, char *err, size_t errlen);

/* The store's best GF(2) scheme of every format outside `range` (its n
 * formats, any orientation) that is smaller than the range's largest, every
 * dimension at least 2, each verified: factors for the sums and products of
 * the meta starts (search --meta, sweep --meta), beside the range's own bests.
 * At most max into out (the caller frees them); returns how many, 0 without a
 * store or when it does not answer (the starts are then those of the range
 * alone), a scheme that does not load or verify left out (db check reports it). */
int session_outside_bests(search_session *s, const scheme_format *range, int n, scheme **out, int max);

/* A walk over Z's start from a --from scheme (search --ring z --from FILE):
 * an integer scheme as it is; a GF(2) one with its coefficients 1 where that
 * is valid over Z (the standard algorithm, Strassen's), else its Hensel lift
 * (verify_lift, as `flipgraph lift` does).  *out is the caller's (scheme_free)
 * with AS_IS or LIFTED (*max_coeff: the lift's largest |coefficient|); NO_LIFT:
 * a GF(2) scheme without a lift, FAILED: out of memory or the lifter's own
 * failure (a scheme too large for it), msg saying which. */
typedef enum session_zstart {
    SESSION_ZSTART_AS_IS,
    SESSION_ZSTART_LIFTED,
    SESSION_ZSTART_NO_LIFT,
    SESSION_ZSTART_FAILED
} session_zstart;
session_zstart session_z_start(const scheme *in, scheme **out, int *max_coeff, char *msg, size_t msglen);

/* --resume RUN: *c becomes the stored run's configuration, except the rows
 * given on this command line (cli->given), which win; *row is the stored run
 * (row->effective "killed" for a run whose process is gone).  Stored rows
 * the resumed backend does not read are dropped; a stored row that was a
 * backend default, when the backend changes, takes the new backend's; the
 * seed is never restored (a resumed run does not replay its first walks).
 * The backend is the stored one unless cli gives it. */
db_status session_resume(search_session *s, int64_t run, const search_config *cli, search_config *c,
                         db_run_row *row, char *err, size_t errlen);

/* What the caller prints; every hook is optional and called serialized. */
typedef struct session_hooks {
    void *ctx;
    /* an improvement after it was written (path: its --out file, "" when none);
     * stored_new: a scheme no earlier run had stored */
    void (*improved)(void *ctx, const search_found *f, const char *path, bool stored_new);
    /* every progress_every seconds of the configuration (not the heartbeat's);
     * stored: schemes this run wrote so far (UINT64_MAX: it writes nothing) */
    void (*progress)(void *ctx, const search_progress *pr, uint64_t stored);
    /* the run is recorded (before the walk starts; run_id 0 without a store) */
    void (*started)(void *ctx, int64_t run_id);
    /* a pool checkpoint (search_params.pool_every, with a pool folder): the
     * pool's files in the folder (written, or kept from an earlier pool),
     * when; failure NULL, else what went wrong in words (the walk goes on) */
    void (*pool_checkpoint)(void *ctx, int written, double seconds, const char *failure);
} session_hooks;

typedef struct session_run {
    int64_t run_id;     /* the store's run (0: no store, or it could not be begun) */
    uint64_t stored;    /* schemes this run wrote: new rows, else --out files */
    bool begin_failed;  /* the run could not be recorded: nothing ran; begin_status says why */
    db_status begin_status;
    bool store_failed;  /* an improvement was not written: the run stopped there */
    bool end_lost;      /* the run's end was not stored (its row reads running, then killed) */
    char msg[1536];     /* the first failure to store an improvement (or to begin), in words */
    char end_msg[1024]; /* with end_lost: what was not stored, in words */
    /* a symmetric walk over Z (docs/search.md, "Symmetric walks over Z"):
     * GF(2) improvements lifted, how many of them lifted, and how many were
     * not tried (pending when the walk ended and a lower one had lifted, or
     * after a stop request) */
    int lifts_tried, lifts_ok, lifts_skipped;
    /* --via-f2: the lifting walk after the walk (lift_walk_rank 0: none ran),
     * the GF(2) neighbours it tried and whether one lifted */
    int lift_walk_rank, lift_walk_tried;
    bool lift_walk_ok;
    double lift_walk_seconds;
    /* pool checkpoints (search_params.pool_every with a pool folder): how many
     * were taken, how many failed, the first failure in words */
    int pool_checkpoints, pool_failed;
    char pool_msg[1200];
} session_run;

/* One search on c->backend (cpu or gpu; search_config_resolve first): the
 * run recorded (c's record text; device: the hardware in words, NULL: the
 * session says), SIGINT/SIGTERM caught while it runs (the first ends the
 * batch, a second ends the process at once), the engine run with the store
 * and the --out files behind it, the run ended as finished, interrupted or
 * failed.  Returns the search's status (SEARCH_FAILED also when something was
 * not stored); *res as search.h says (free it with search_result_free).
 * Over Z with a symmetry (c->p.ring z, c->p.symmetry set) the walk is the
 * symmetric walk over GF(2), its improvements stored and lifted on a thread
 * of their own; the lifts are the run's improvements and res->best the
 * lowest (NULL, best_rank 0, when none lifted), res->pool empty, run->lifts_*
 * the counts (docs/search.md, "Symmetric walks over Z"). */
search_status session_search(search_session *s, const search_config *c, const char *device,
                             const scheme *const *starts, int nstarts, const session_hooks *h,
                             session_run *run, search_result *res);

/* A scheme the run `run` did not walk to but started from or kept beside (a
 * meta leg's or a sweep format's moved start, a sum or product kept beside a
 * leg) stored under it with source "resize" and `parent` (the store's row it
 * came from; 0: none), docs/db.md: a start at the record walks no flip,
 * improves on nothing, and would otherwise be lost.  Nothing (DB_OK) without
 * a store, where the run was not recorded or a store of it failed already;
 * else the store's status, with err set (the caller says what it means). */
db_status session_store_moved(search_session *s, const session_run *run, const scheme *sch, int64_t parent, char *err,
                              size_t errlen);

/* SIGINT/SIGTERM for longer than one search (a sweep over formats): while
 * held, the first signal stops the search running (and session_stop_seen
 * says so), a second ends the process.  Calls nest; session_search takes
 * them itself. */
void session_signals_hold(void);
void session_signals_release(void);
bool session_stop_seen(void);

/* ---- the sweep (search/sweep.c; docs/report.md, "sweep") ----
 *
 * flipgraph sweep walks a list of formats one after the other; the sweep
 * state decides where each format starts and keeps each format's best for
 * the ones after it (--meta), so that the command only parses and prints:
 *
 *   session_sweep *sw = session_sweep_new(ss, list, n, &opts, &st, err, len);
 *   for each format i:  session_sweep_start(sw, i, symmetric, &begin, err, len);
 *                       session_search(...from begin.start...);
 *                       session_sweep_keep(sw, i, res.best);
 *   session_sweep_free(sw);
 */
typedef struct session_sweep session_sweep;

typedef struct session_sweep_options {
    scheme_ring ring;
    bool from_db;      /* a format starts from the store's best where it has one (--from-db) */
    bool meta;         /* ... or from the lowest of the known bests moved to it (--meta) */
    int meta_reach;    /* --meta's projections from formats up to this many steps larger (1: neighbours) */
    int start_coef_max; /* session_best_start's coef_max (search_start_coef_max) */
    bool strict;       /* session_best_start's strict (a GPU walk over Z) */
} session_sweep_options;

/* Where a format starts (session_sweep_start). */
typedef struct session_sweep_begin {
    scheme *start;       /* the caller's (scheme_free); NULL: the standard algorithm, or the cubes */
    char from[112];      /* what it starts from, in words: "the standard algorithm", "the database's
                            best", "<4,4,4>'s best plus <3,4,4>'s best", ... */
    bool moved;          /* start came from another format (a meta move): the caller stores it
                            under the format's run (session_store_moved) with parent meta_parent */
    int64_t meta_parent; /* the store's row of the scheme it came from (0: none or not stored) */
} session_sweep_begin;

/* The sweep over list[0..n) (the caller's; it outlives the sweep).  With
 * meta and from_db every format's store best is a best so far from the
 * start, and over GF(2) the store's bests of the smaller formats outside the
 * list count for sums and products (session_outside_bests).  NULL on
 * failure: *st is the store's status (DB_OK: out of memory), err says which
 * format. */
session_sweep *session_sweep_new(search_session *ss, const scheme_format *list, int n,
                                 const session_sweep_options *o, db_status *st, char *err, size_t errlen);
void session_sweep_free(session_sweep *sw);
/* Where list[i] starts: a symmetric format from its cubes (begin->from says
 * which symmetry g); else the store's best with from_db; with meta the meta
 * start (search_meta_start_reach over the bests so far) when it is lower
 * than that.  DB_OK, or the store's failure (err set). */
db_status session_sweep_start(session_sweep *sw, int i, scheme_symmetry g, session_sweep_begin *begin, char *err,
                              size_t errlen);
/* The run of list[i] ended with best (NULL: none): it is the format's best so
 * far when lower than the one held (false: out of memory). */
bool session_sweep_keep(session_sweep *sw, int i, const scheme *best);

/* How one format of a sweep ended, for its table row. */
typedef enum session_sweep_outcome {
    SESSION_SWEEP_FAILED,      /* the search or the store failed */
    SESSION_SWEEP_INTERRUPTED, /* SIGINT/SIGTERM */
    SESSION_SWEEP_NONE_LIFTED, /* a walk over Z by GF(2) whose improvements did not lift */
    SESSION_SWEEP_BELOW,       /* below the record */
    SESSION_SWEEP_REACHED,     /* at the record */
    SESSION_SWEEP_STALLED,     /* --stall ended it before its time */
    SESSION_SWEEP_TIME_UP      /* its time ran out above the record (or the record is unknown) */
} session_sweep_outcome;
/* best: the format's best (0: none); record: -1 or 0 unknown; stalled: it
 * ended before its time with --stall given. */
session_sweep_outcome session_sweep_outcome_of(search_status st, bool interrupted, int best, int record,
                                               bool stalled);
/* The table's words: "failed", "interrupted", "none lifted", "BELOW THE
 * RECORD", "record reached", "stalled", "time up". */
const char *session_sweep_outcome_name(session_sweep_outcome o);

/* ---- the meta search (search/meta.c; docs/resize.md, "The meta search") ----
 *
 * One search whose walk changes format (Kauers, Wood 2025): legs of the
 * engine's walk, each on one format of the range and stored as its own run,
 * each ending when its rank stalls; the next leg takes the leg's best to a
 * neighbouring format (search_resize, search_permute), unless that lands
 * more than `drift` above the best this search holds there (then the leg
 * starts from that format's pool). */
typedef enum search_meta_detours {
    SEARCH_META_DETOURS_OFF,   /* no detours */
    SEARCH_META_DETOURS_BEST,  /* the neighbour walks from the stuck format's best moved there */
    SEARCH_META_DETOURS_FRESH  /* the neighbour walks from the standard algorithm */
} search_meta_detours;

typedef struct search_meta_config {
    scheme_format lo, hi; /* the range: every <n,m,p>, n <= m <= p, each dimension between theirs */
    double leg_stall;     /* a leg ends after this long without a lower rank (seconds, > 0) */
    int drift;            /* the reset rule (Kauers-Wood: 10); negative: never reset */
    int pool;             /* distinct schemes kept per format, 1..64 */
    bool until_record;    /* stop when every format is at its record; prefer formats that are not */
    int stall_grow;       /* a format's legs that fail in a row: the next one's stall doubles, up to
                             2^stall_grow times leg_stall (0: never grows), and every second one
                             starts from the format's pool instead of a move */
    bool from_store;      /* each format's pool starts with the store's lowest distinct GF(2)
                             schemes of it (any orientation), so that a search on a store that
                             holds an earlier one's results goes on from them */
    bool all_neighbours;  /* a moved leg starts also from every other visited neighbour's best,
                             moved in every orientation (search --meta-neighbours); false: from
                             the one neighbour's move (every orientation of it) */
    search_meta_detours detours; /* with until_record, the one unfinished format, after its
                                    2nd (and every later) failed leg in a row, goes through a
                                    neighbour at its record and back; when several are left and
                                    each failed more than stall_grow legs in a row, the one
                                    whose detour starts nearest its record does (search
                                    --meta-detours; search/meta.c says why) */
    int reach;            /* the first leg (and a format never walked that the walk jumps to)
                             starts also from the projection of any format of the range that
                             holds it, up to this many steps away (the dimensions' differences
                             summed), where that is below its best; search --meta-reach; 0 or
                             1: the neighbours only */
    int below;            /* with until_record: a format's goal is its record less this
                             (search --meta-below), so that one at its record is walked on;
                             0: the record */
} search_meta_config;

typedef struct search_meta_leg {
    int index;            /* 1, 2, ... */
    scheme_format fmt;
    int record;           /* -1 unknown */
    char from[176];       /* what it starts from, in words */
    char beside[96];      /* a sum or product stored and pooled beside the leg, not walked
                             (search/meta.c, meta_start_for; a large format's first leg from
                             the standard algorithm walks it, and says so in `from`), in
                             words; "" none */
    int beside_rank;
    bool reset;           /* the move here was dropped by the reset rule */
    bool detour;          /* a leg on a format at its record for the stuck one's sake (from the
                             standard algorithm, or the stuck format's best moved there); the next
                             leg goes back from its best (search_meta_config.detours) */
    scheme_format detour_for; /* a detour: the stuck format it is for (the next leg's) */
    double stall;         /* this leg's stall (seconds): leg_stall, grown after failed legs */
    int start_rank;       /* leg_start: the first start's rank (-1: the standard algorithm or cubes) */
    int best_rank;        /* leg_end: */
    double seconds;
    uint64_t flips;
    int64_t run_id;
    search_status status;
    /* leg_end, a leg over Z by GF(2) (session_run's): improvements lifted of
     * those tried, and the lifting walk after it (lift_walk_rank 0: none) */
    int lifts_tried, lifts_ok, lift_walk_rank, lift_walk_tried;
    bool lift_walk_ok;
    double lift_walk_seconds;
} search_meta_leg;

typedef struct search_meta_hooks {
    void *ctx;
    void (*leg_start)(void *ctx, const search_meta_leg *leg);
    void (*leg_end)(void *ctx, const search_meta_leg *leg);
    session_hooks inner; /* each leg's search, as session_search has them */
} search_meta_hooks;

typedef struct search_meta_format {
    scheme_format fmt;
    int record, start, best; /* start: the lowest a leg started from; -1: never visited / none */
    bool best_held;          /* over Z: best is a scheme beyond --coef-max (a lift), stored, never walked */
    int visits;
    double seconds;
    uint64_t flips;
} search_meta_format;

typedef struct search_meta_result {
    search_status status;   /* REACHED: until_record and every record reached; NOT_REACHED: time up or
                               interrupted; BAD_PARAMS, FAILED as session_search */
    search_meta_format *formats;
    int nformats, legs, resets;
    int stored;             /* from_store: distinct schemes the store added to the pools */
    double seconds;
    bool interrupted, all_records;
    bool store_failed;      /* a leg's run could not be begun, stored or ended (msg says) */
    db_status begin_status;
    char msg[2048];
} search_meta_result;

/* The formats of the range lo..hi (n <= m <= p, each dimension between the
 * corners', 64 entries a factor at most) into out (cap at most); false when
 * there are none or more than cap (*n: how many). */
bool search_meta_formats(scheme_format lo, scheme_format hi, scheme_format *out, int *n, int cap);
/* Runs the meta search: base is the configuration of every leg (its time
 * limit the whole search's; its symmetry, where given, for the square
 * formats, which then start from their cubes); starts (optional, all of one
 * format of the range) the first leg's; the caller holds the signals
 * (session_signals_hold) so that SIGINT ends the leg running and the search. */
search_status search_meta_run(search_session *ss, const search_config *base, const char *device,
                              const search_meta_config *mc, const scheme *const *starts, int nstarts,
                              const search_meta_hooks *h, search_meta_result *out);
void search_meta_result_free(search_meta_result *r);

#endif
