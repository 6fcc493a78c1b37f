/* search: moves on the flip graph over GF(2), the CPU walker, pools, and the
 * search driver that runs a backend (docs/search.md).
 *
 * Three layers, each usable on its own:
 *   1. moves on a plain term array (flip, reductions, plus, generalized flip):
 *      the definitions every backend follows, O(rank) and obviously correct;
 *   2. the walker: one scheme with an incremental index of flip candidates,
 *      random flips, every reduction at once, plus transitions after a plateau;
 *   3. the driver: threads of walkers, a pool of schemes per rank, callbacks for
 *      verified improvements (the store plugs in there) and progress.
 * search_run_cpu and search_run_gpu have one signature, so the CLI picks a
 * backend with a function pointer.
 */
#ifndef FLIPGRAPH_SEARCH_H
#define FLIPGRAPH_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../schemes/scheme.h"

/* ==== 1. moves on a term array ===========================================
 *
 * Positions are SCHEME_A/B/C (0/1/2).  For a position x the other two are
 * y = (x+1)%3 and z = (x+2)%3.  Every move keeps the tensor sum_r a_r (x) b_r (x) c_r.
 * A term left with a zero factor is dropped at once (the last term takes its
 * place, as scheme_remove does), so no move ever leaves a zero factor behind.
 * Each returns false, changing nothing, when its precondition does not hold.
 */

/* flip (Kauers-Moosbauer): terms i and j share their factor at x.
 * (x, y_i, z_i), (x, y_j, z_j) -> (x, y_i + y_j, z_i), (x, y_j, z_j + z_i). */
bool search_flip(scheme_term *t, int *rank, int i, int j, int x);

/* reduction: terms i and j share the factors at two positions (and differ, or
 * not, at the third, s): one term (x, y, z_i + z_j) remains (none when equal). */
bool search_reduce_pair(scheme_term *t, int *rank, int i, int j);

/* The first non-empty subset (bit k: v[k]) of s <= 32 vectors that sums to
 * zero, the one elimination finds (it contains the first v[k] that lies in the
 * span of v[0..k), and that sum is unique); 0 when the vectors are linearly
 * independent. */
uint32_t search_find_dependent(const uint64_t *v, int s);
/* The same by Gaussian elimination, for every s: the reference of the fast
 * path search_find_dependent takes for s <= SEARCH_DEPENDENT_SPAN_MAX (the
 * sums of the vectors before each one listed), and its road beyond. */
#define SEARCH_DEPENDENT_SPAN_MAX 6
uint32_t search_find_dependent_ref(const uint64_t *v, int s);

/* General reduction (the Flip-graph post's generalized flip that finds a zero):
 * terms idx[0..s) share their factor at x; the factors at y of the subset
 * D (bit k: idx[k]) sum to zero.  With r the lowest member of D, term r is
 * dropped and its factor at z = the third position is added to the factor at
 * z of every other member of D.  Lowers the rank by one (or more, when a
 * factor becomes zero). */
bool search_reduce_dependent(scheme_term *t, int *rank, const int *idx, int s, int x, int y,
                             uint32_t subset);

/* Generalized flip over s <= 5 terms idx[] sharing the factor at x (Flip-graph post):
 * with G an invertible s x s matrix over GF(2) (row i: bit j = G[i][j]),
 * y_i <- sum_j G[i][j] y_j and z_i <- sum_j (G^-T)[i][j] z_j, where y is the
 * position given and z the third.  The flip is G = [[1,1],[0,1]]. */
bool search_gen_flip(scheme_term *t, int *rank, const int *idx, int s, int x, int y,
                     const uint32_t *G);
/* Inverse of an s x s GF(2) matrix (rows as bit masks); false when singular. */
bool search_gf2_inverse(const uint32_t *G, int s, uint32_t *inv);

/* plus (Arai-Ichikawa-Hukushima): terms i and j share no factor; with x the
 * given position: (x, y, z) + (x', y', z') = (x + x', y, z) + (x', y + y', z)
 * + (x', y', z + z').  Term i becomes the first, j the third, the second is
 * appended (needs *rank < cap). */
bool search_plus(scheme_term *t, int *rank, int cap, int i, int j, int x);

/* Finds a reduction: a pair sharing two factors (*kind = 2, idx[0..1]) or,
 * with gen_max >= 3, a set of 3..gen_max terms sharing the factor at *x whose
 * factors at *y are dependent (*kind = 3, idx[0..*s), *subset).  The plain
 * O(rank^2) reference the walker's incremental index is tested against. */
typedef struct search_reduction {
    int kind;        /* 0 none, 2 pair, 3 dependent set */
    int x, y, s;
    int idx[32];
    uint32_t subset;
} search_reduction;
bool search_find_reduction(const scheme_term *t, int rank, int gen_max, search_reduction *out);
/* Applies reductions until none is left; returns the number of terms removed. */
int search_reduce_all(scheme_term *t, int *rank, int gen_max);
/* One-term elimination by a flattening (the reduction all of the above are cases
 * of): over GF(2), if the products y_r (x) z_r of the factors at the two positions
 * other than x are linearly dependent over a set D of terms, a term r0 of D is
 * the sum of the others there, so a_r0 (x) y_r0 (x) z_r0 = sum_{r in D\r0}
 * x_r0 (x) y_r (x) z_r: drop r0 and add its factor at x to the factor at x of
 * every other member of D.  The rank falls by one (more where a factor becomes
 * zero).  Pairs sharing two factors and the dependent sets above are the D whose
 * members share a factor; a D without one (x1 y1, x1 y2, x2 y1, x2 y2,
 * (x1+x2)(y1+y2) at the other two positions) is what the walker's reductions
 * never see.  Perminov's ternary_flip_graph tests a flattening's rank for
 * this (docs/references.md); we apply the elimination.
 *
 * search_find_flattening: the first position x (a, b, c in turn) whose products
 * are dependent; *x, the members of D in members[] (ascending; room for rank),
 * their count returned, r0 the last of them (the first term that lies in the
 * span of those before it); 0 when every flattening has full rank, or -1 when
 * memory runs out.  O(rank^2 * words), words = the products' length / 64 (at
 * most 64): a move for starts and resizes, not for the walker's every flip.
 * search_reduce_flattening applies them until every flattening has full rank
 * (so no reduction of search_reduce_all is left either) and returns the terms
 * removed, or -1 when memory runs out (the terms then still hold the same
 * tensor, with the eliminations made so far). */
int search_find_flattening(scheme_format f, const scheme_term *t, int rank, int *x, int *members);
/* Every dependent set at position x the elimination meets: for each term whose
 * product lies in the span of the products before it (those not passed on
 * themselves), fn gets the set it sums with (ascending, the term last) until fn
 * returns true.  1 when fn took one, 0 when none was taken, -1 out of memory. */
int search_each_flattening(scheme_format f, const scheme_term *t, int rank, int x,
                           bool (*fn)(void *ctx, const int *members, int count), void *ctx);
int search_reduce_flattening(scheme_format f, scheme_term *t, int *rank);
/* Ordered flippable pairs (i, j, x), i != j sharing the factor at x: the
 * reference count the walker's index is tested against. */
uint64_t search_count_flips(const scheme_term *t, int rank);

/* ---- structure (stats.c; flipgraph verify --stats, docs/verify.md) -------
 *
 * What a walk sees of a scheme, in its ring: factors are the same when their
 * words are equal (GF(2)) or their coefficients equal up to sign (Z). */
#define SEARCH_FACTOR_RANK_MAX 8 /* min(rows, cols) of a factor of at most 64 entries */
typedef struct search_stats {
    int rank;
    uint64_t flip_pairs[3];    /* unordered pairs of terms with the same factor at a, b, c */
    uint64_t flip_pairs_total; /* their sum: a pair the same at two positions counts twice */
    uint64_t reducible_pairs;  /* unordered pairs the same at two or three positions */
    int isolated;              /* terms that share no factor with any other term */
    int distinct[3];           /* distinct factors at a, b, c */
    uint64_t nonzeros[3];      /* nonzero coefficients at a, b, c */
    int max_coef;              /* largest |coefficient| (1 over GF(2); 0 for rank 0) */
    /* by scheme_symmetry (C3 .. C3XC2S3): 1 invariant, 0 not, -1 the group
     * does not act on the format, -2 not known (out of memory) */
    int invariant[SCHEME_SYM_C3XC2S3 + 1];
    /* terms by the ranks of their three factors as matrices (over GF(2), or
     * over Q for Z), sorted: factor_ranks[r0][r1][r2] with r0 <= r1 <= r2 counts
     * the terms whose factors have those ranks in some order.  A change of basis
     * keeps each factor's rank and a permutation of the format permutes a
     * term's three, so two schemes with different counts are not equivalent. */
    int factor_ranks[SEARCH_FACTOR_RANK_MAX + 1][SEARCH_FACTOR_RANK_MAX + 1][SEARCH_FACTOR_RANK_MAX + 1];
} search_stats;
void search_scheme_stats(const scheme *s, search_stats *out);
/* The rank of term r's factor at pos as a matrix: over GF(2) for a GF(2)
 * scheme, over Q for one over Z. */
int search_factor_rank(const scheme *s, int r, int pos);
/* The scheme's nonzero coefficients, all positions (search_stats.nonzeros
 * summed, without the pair counts): the W of the weight bias (docs/search.md). */
long search_scheme_nonzeros(const scheme *s);
/* The figures as one line of text, as `flipgraph verify --stats` prints them:
 * "flip pairs 2 (a 0, b 1, c 1), reducible pairs 0, ..., invariant under c3
 * n/a, c3xc2 n/a, t2 n/a", then c3xc2sK for each K that acts on the format,
 * then "; factor ranks 111:6 222:1" (docs/verify.md, "Structure"); 2048 bytes
 * hold any line. */
void search_stats_line(const search_stats *st, char *buf, size_t len);

/* ---- moves over Z (moves_z.c; docs/search.md, "Searching over Z") ----------
 *
 * On an integer scheme (SCHEME_RING_Z; its words kept equal to the odd
 * coefficients).  Two factors are *equal up to sign* when u = v or u = -v.
 * A term left with a zero factor is dropped (scheme_remove).  No move makes a
 * coefficient larger than coef_max in absolute value: one that would returns
 * false and changes nothing.  These are the plain definitions the walker over
 * Z is tested against. */

/* +1 when factor pos of terms i and j is equal, -1 when opposite, else 0. */
int search_z_relation(const scheme *s, int i, int j, int pos);
/* flip: x_i = sg x_j (sg = search_z_relation at x); with mu = +1 or -1,
 * y_i <- y_i + mu y_j and z_j <- z_j - mu sg z_i (y = x+1, z = x+2 mod 3). */
bool search_z_flip(scheme *s, int i, int j, int x, int mu, int coef_max);
/* reduction: i and j equal up to sign at two positions, x_j = sx x_i, y_j =
 * sy y_i: term j goes and z_i <- z_i + sx sy z_j (term i goes too when that
 * is zero). */
bool search_z_reduce_pair(scheme *s, int i, int j, int coef_max);
/* plus: i and j equal up to sign at no position; with (X, Y, Z) = (sg x_j,
 * sg y_j, z_j), sg = +1 or -1: (x_i, y_i, z_i) + (X, Y, Z) = (x_i - X, y_i, z_i)
 * + (X, y_i + Y, z_i) + (X, Y, Z - z_i); term i becomes the first, j the
 * third, the second is appended (room needed). */
bool search_z_plus(scheme *s, int i, int j, int x, int sg, int coef_max);
/* A pair reduction within the bound: true with *i, *j. */
bool search_z_find_reduction(const scheme *s, int coef_max, int *i, int *j);
/* Takes pair reductions until none is left; returns the terms removed. */
int search_z_reduce_all(scheme *s, int coef_max);
/* Ordered pairs (i, j, x), i != j, equal up to sign at x. */
uint64_t search_z_count_flips(const scheme *s);
/* The elimination by a flattening over Z (search_reduce_flattening's, over the
 * rationals): where the products y_r (x) z_r of the terms are linearly
 * dependent, sum lambda_r y_r (x) z_r = 0 with lambda_r0 = +-1 and every
 * lambda an integer, term r0 goes and x_r <- x_r - lambda_r0 lambda_r x_r0 for
 * the others.  A dependency is found modulo a prime (the first row of each
 * position that lies in the span of the rows before it, then every later one),
 * its coefficients taken as small integers and checked exactly; one whose
 * coefficients are not integers, or whose elimination passes coef_max, is
 * passed over.  So it finds the dependent sets a walk or a projection leaves
 * in practice (one set among independent terms always), not every one.
 * Returns the terms removed, -1 when out of memory (the scheme then still
 * holds the same tensor). */
int search_z_reduce_flattening(scheme *s, int coef_max);
/* An integer copy of s (a GF(2) scheme: coefficients 1 where a word has a bit);
 * NULL when out of memory. */
scheme *search_z_copy(const scheme *s);
/* The largest |coefficient| of an integer scheme. */
int search_z_max_coef(const scheme *s);

/* ==== parameters ========================================================= */

/* The diagonal cubes of a symmetric start (search_symmetric_start): mask[i]
 * bit j = diagonal index j (the text "10001": index 0 first).  count 0: the
 * default, the mirror pairs {i, n-1-i} and, for odd n, the middle alone. */
#define SEARCH_MAX_CUBES 8
typedef struct search_cubes {
    int count;
    int digits; /* of each cube as given (all alike); checked against n before a run */
    uint8_t mask[SEARCH_MAX_CUBES];
} search_cubes;

typedef struct search_params {
    scheme_format fmt;
    int target_rank;       /* stop when reached; 0: none */
    double time_limit;     /* seconds; 0: no limit (until target, stop or max_flips) */
    double stall;          /* seconds without a lower rank after which the run stops; 0: never */
    uint64_t max_flips;    /* flips in all (over all threads); 0: no limit */
    int threads;           /* CPU walkers, one per thread */
    uint64_t seed;         /* every walker's seed derives from it (splitmix64) */
    int device;            /* GPU backend: the device index */
    int host_threads;      /* GPU backend: CPU walkers beside the GPU's in the same engine run
                              (search_gpu_options.beside holds their walk settings); 0: none */

    /* the walk (docs/search.md says how each default was measured) */
    uint64_t plateau;      /* L: flips without a rank drop before a plus transition */
    uint64_t plateau_min;  /* the adaptive L stays within [plateau_min, plateau_max] */
    uint64_t plateau_max;
    int plus_max;          /* plus transitions only while rank < base rank + plus_max (0: never) */
    uint64_t walk_len;     /* unit of walk length: the k-th walk of a walker is walk_len * luby(k)
                              flips without a lower rank, then it restarts from the pool */
    uint64_t walk_max;     /* cap on one walk's length */
    int gen_max;           /* largest set sharing a factor tested for dependent factors (2: pairs only) */
    int isolated_plus;     /* a walk that reaches a flip-isolated scheme (no two terms share a
                              factor: Strassen's square at <4,4,4>:49) 1: takes a plus transition
                              there and walks on; 0: ends, and the walker restarts from the pool
                              (a plus only when the restart is isolated too).  The plus loop is a
                              trap: plus, a few flips, the reduction back, again (docs/search.md) */
    int pool_size;         /* schemes kept per rank */
    int pool_min;          /* schemes of rank r needed before walkers start from rank r */
    double pool_up;        /* a restart climbs one nonempty rank above that level with this
                              probability, repeatedly (fresh descents keep the pools diverse) */
    double pool_fresh;     /* a restart starts over from the start schemes with this probability */
    int siblings;          /* failed walks at the level pool their scheme: 0 never, 1 while the level
                              has room, 2 always (params.def) */
    int islands;           /* CPU walkers in this many groups with a pool each: walker i offers to
                              and restarts from pool i mod islands (1: one pool; <= threads) */
    int pool_keep;         /* the run returns up to this many distinct schemes of its pool
                              (search_result.pool); 0: none */
    double pool_every;     /* seconds between checkpoints of that pool while the run goes on
                              (search_callbacks.pool_checkpoint); 0: at the end only */
    double degree_bias;    /* B: a flip from D flips to D' is kept with probability min(1, (D/D')^B)
                              (a Metropolis correction; 0: every flip is kept) */
    double weight_bias;    /* B_w: a flip that adds d > 0 nonzero coefficients to the scheme (to the
                              two orbit representatives in a c3 or c3xc2 walk) is kept with
                              probability exp(-B_w d) (0: every flip is kept) */
    double weight_bias_max; /* > weight_bias: walker k of n walks with cuda_walk_bias_at(weight_bias,
                              weight_bias_max, k, n), the window spread over the walkers (a CPU
                              backend's threads, a GPU's walkers); 0: every walker weight_bias */
    uint64_t lookahead;    /* every N-th flip of the plain GF(2) walk on the CPU is one after which
                              a pair reduction is possible, where the scheme has one; 0: off */
    int plus_tabu;         /* 1: after a plus transition the plain CPU walk takes no flip of its two
                              roads back until the rank changes (docs/search.md, "Why plus
                              transitions come back"); 0: off */
    uint64_t plus_hold;    /* N > 0: the N flips after a plus transition make no reduction, a flip
                              that would make one drawn again (the plain CPU walk over GF(2), the
                              symmetric walks with gen_max 1; docs/search.md, "The plus hold");
                              0: off */
    int symmetry;          /* scheme_symmetry: walk among invariant schemes (docs/search.md,
                              "Symmetric walks"); SCHEME_SYM_NONE: the plain walk */
    search_cubes cubes;    /* the symmetric start's diagonal cubes */
    int ring;              /* scheme_ring: SCHEME_RING_F2, or SCHEME_RING_Z (the walk over Z:
                              docs/search.md, "Searching over Z") */
    int coef_max;          /* over Z: no move makes a coefficient larger than this in absolute value */
    double via_f2;         /* over Z, > 0: the walk is over GF(2), every improvement is lifted to Z,
                              and for this many seconds after it the lifting walk runs around the
                              lowest GF(2) scheme that did not lift (session_search) */
    double progress_every; /* seconds between progress reports; 0: none */
    uint64_t batch;        /* flips per walker between checks of the stop flag */
} search_params;

/* A run over Z that walks over GF(2) and lifts its improvements (a symmetric
 * walk, or --via-f2; session_search): its results are lifts. */
static inline bool search_lifts_to_z(const search_params *p)
{
    return p->ring == SCHEME_RING_Z && (p->symmetry != SCHEME_SYM_NONE || p->via_f2 > 0);
}

/* A run over Z that does not go by GF(2) with --via-f2: on the GPU the walk
 * over Z's kernels and defaults serve it (the symmetric one asks first), and
 * its GF(2) starts become integer ones. */
static inline bool search_z_not_via_f2(const search_params *p)
{
    return p->ring == SCHEME_RING_Z && !(p->via_f2 > 0);
}

/* Whether the GPU walks this run with the plain warp walk over GF(2) (a walk
 * over GF(2) without symmetry, --via-f2 included): the GPU walk that adapts
 * its plateau and takes --siblings; the symmetric and Z GPU walks do neither. */
static inline bool search_gpu_walks_warp(const search_params *p)
{
    return p->symmetry == SCHEME_SYM_NONE && (p->ring == SCHEME_RING_F2 || p->via_f2 > 0);
}

/* The coefficient bound of a --from-db start (session_best_start's coef_max,
 * 0: any): a run --via-f2 walks its start mod 2, so the lowest stored scheme
 * of any coefficients; else the run's own --coef-max. */
static inline int search_start_coef_max(const search_params *p)
{
    return p->via_f2 > 0 ? 0 : p->coef_max;
}

/* The defaults (search/params.def: the CPU engine's column). */
void search_params_default(search_params *p);
/* Checks every range of search/params.def and the orders between them
 * (plateau-min <= plateau <= plateau-max, walk-len <= walk-max, pool-min <=
 * pool-size); false with a message. */
bool search_params_check(const search_params *p, char *err, size_t errlen);

/* The GPU backend's own knobs (docs/gpu-walk.md); those a user sets are rows of
 * search/params.def (warps, rounds, launch-ms, devices), the rest are for
 * benchmarks and tests (bench/gpu_walk.c). */
#define SEARCH_GPU_MAX_DEVICES 16
typedef struct search_gpu_options {
    int warps;          /* walkers (one warp each); 0: as many as the device runs at once */
    int rounds;         /* __match_any_sync rounds per step (k of the Flip-graph post) */
    int mix_every;      /* steps between rotations of one slot across lanes; 0: never */
    int store;          /* CUDA_WALK_STORE_*: 0 auto (registers up to rank 128) */
    uint32_t steps;     /* steps per launch (exact replay of a seed); 0: launches of launch_ms */
    double launch_ms;
    bool timed;         /* with steps 0: every walker walks launch_ms per launch, bounded by its
                           clock (cuda_walk_config.launch_us; no launch tail); false: the step
                           count adapts so that a launch takes about launch_ms (the slowest
                           walker's time: the others wait at the end) */
    int check;          /* checking mode: walkers whose current scheme is verified after every launch */
    bool check_pairs;   /* after each flip, reduce any pair the two changed terms form at once */
    int eager_gen;      /* --eager-gen: 1, after each flip that reduced nothing, reduce a dependent
                           set of 3..gen_max terms in the buckets of the two changed terms at once */
    uint32_t idle_plus; /* empty steps in a row before a plus transition (or a restart); 0: never */
    bool isolated_restart; /* idle_plus empty steps end the walk (restart) rather than a plus */
    bool verbose;       /* a line per launch on stderr */
    /* --devices: one walker set per listed GPU, one pool and one
     * store for all; ndevices 0: search_params.device alone.  A GPU may be
     * listed twice (two walker sets on one device: the multi-GPU path tested
     * on a one-GPU machine). */
    int ndevices;
    int devices[SEARCH_GPU_MAX_DEVICES];
    /* true (search_gpu_options_default): a search_params field the caller left at
     * the CPU default takes the GPU's default (params.def) instead
     * (search_gpu_params); false: search_params as given (a search_config the
     * session resolved, benchmarks sweeping them). */
    bool gpu_defaults;
    /* CPU walkers beside the GPU's in the same engine run (one pool, one
     * store): their walk settings, the CPU's reading of the run's options
     * (search_config_beside); NULL: none (search_params.host_threads is
     * then ignored).  Only the walk's own rows are taken from it (plateau,
     * walk lengths, gen-max, plus-max, isolated-plus, batch): what is
     * searched and when it stops is the run's (engine_run_beside). */
    const struct search_params *beside;
} search_gpu_options;

/* ---- the parameter table (search/params.def) ------------------------------ */

typedef enum search_param_id {
#define PARAM(id, ...) SEARCH_PARAM_##id,
#include "params.def"
#undef PARAM
    SEARCH_PARAM_COUNT
} search_param_id;

typedef enum search_param_type {
    SEARCH_PT_INT, SEARCH_PT_U64, SEARCH_PT_DBL, SEARCH_PT_DUR, SEARCH_PT_FMT,
    SEARCH_PT_BACKEND, SEARCH_PT_DEVLIST, SEARCH_PT_SYM, SEARCH_PT_CUBES, SEARCH_PT_RING
} search_param_type;

/* Which backends read a parameter (bits). */
enum { SEARCH_USE_CPU = 1, SEARCH_USE_GPU = 2, SEARCH_USE_BOTH = 3 };

typedef enum search_backend { SEARCH_BACKEND_CPU = 0, SEARCH_BACKEND_GPU = 1, SEARCH_BACKEND_AUTO = 2 } search_backend;
const char *search_backend_name(search_backend b); /* "cpu", "gpu", "auto" */

typedef struct search_param_info {
    const char *name, *arg, *expected, *help;
    search_param_type type;
    unsigned use;               /* SEARCH_USE_* */
    double def, gpu_def, lo, hi;
} search_param_info;
/* A duration as the table's DUR rows read it: "90", "30s", "10m", "8h", "2d",
 * "1h30m" (non-negative; plain numbers are seconds). */
bool search_parse_duration(const char *s, double *seconds);
/* Row id of the table; NULL outside 0..SEARCH_PARAM_COUNT-1. */
const search_param_info *search_param(int id);
/* The row named name ("plateau"); -1 when none. */
int search_param_find(const char *name);

/* Everything a search runs with: the walk and stop parameters, the GPU's
 * options, the backend, and which parameters were given (not defaults). */
typedef struct search_config {
    search_params p;
    search_gpu_options gpu;
    search_backend backend;
    bool given[SEARCH_PARAM_COUNT];
} search_config;

/* Every row's CPU default (the backend: cpu); nothing given. */
void search_config_default(search_config *c);
/* Parses value for row id (ranges checked) and marks it given; false with
 * "--name VALUE: expected ..." in err. */
bool search_config_set(search_config *c, int id, const char *value, char *err, size_t errlen);
/* Row id's value as text (the record's spelling: durations in seconds). */
void search_config_value(const search_config *c, int id, char *buf, size_t len);
/* Whether row id's value differs from the default of backend b. */
bool search_config_differs(const search_config *c, int id, search_backend b);
/* Copies row id's value from src (given flag included). */
void search_config_copy(search_config *dst, const search_config *src, int id);

/* The symmetric walk's default of row id for <n,n,n> (*has false: the row
 * has none, the backend's default holds); search_config_resolve takes it for
 * a row not given when c->p.symmetry is not none. */
double search_param_symmetric_default(int id, int n, bool *has);
/* The plain walk over GF(2) on a large format (n m p >= SEARCH_LARGE_FORMAT)
 * takes its own defaults for a few rows, per backend (docs/search.md, "Large
 * formats"): search_param_large_default gives backend b's value for format f
 * (false: the row has none there; a row may hold for a band of n m p only,
 * as the CPU's pool-min does); search_config_large says whether a config resolved
 * for backend b takes them. */
#define SEARCH_LARGE_FORMAT 150
static inline bool search_large_format(scheme_format f) { return f.n * f.m * f.p >= SEARCH_LARGE_FORMAT; }
bool search_param_large_default(int id, search_backend b, scheme_format f, double *v);
bool search_config_large(const search_config *c, search_backend b);
/* The plain walk over Z (no symmetry, not --via-f2) takes its own defaults for
 * a few rows, per backend (docs/search.md, "Searching over Z"):
 * search_param_z_default gives backend b's value (false: the row has none);
 * search_config_z_own says whether a config resolved for b takes them. */
bool search_param_z_default(int id, search_backend b, double *v);
bool search_config_z_own(const search_config *c, search_backend b);

/* Makes c ready to run on backend b (cpu or gpu; auto was decided before):
 * a row the backend does not read that was given is refused (false, "--threads:
 * the gpu backend does not use it (CPU only)"); every row not given takes b's
 * default (params.def's gpu column for the GPU); the plateau bounds follow a
 * --plateau outside them; then search_params_check.  c->backend = b and
 * c->gpu.gpu_defaults = false (the defaults are in place). */
bool search_config_resolve(search_config *c, search_backend b, char *err, size_t errlen);

/* Whether the GPU walk over Z can walk p's options: false, with the refusal in
 * err, for a coefficient bound other than 1 or a degree bias (the CPU walk over
 * Z has both).  One message for the CLI (search_config_resolve) and for library
 * callers of search_run_gpu_z. */
bool search_gpu_z_accepts(const search_params *p, char *err, size_t errlen);

/* The walk settings of the CPU walkers beside the GPU's (--host-threads):
 * c resolved for the GPU; *q becomes c as --backend cpu would resolve it (a
 * row not given takes the CPU's default; the GPU's own rows dropped), with
 * threads = c->p.host_threads and no flip budget of its own (the run's
 * applies to all walkers).  false with the reason in err. */
bool search_config_beside(const search_config *c, search_params *q, char *err, size_t errlen);

/* The run record: "key=value" lines, the backend first, then every row the
 * backend reads, then "given=" with the rows that were given (a resumed run
 * on another backend keeps those, the rest take its defaults). */
char *search_config_to_text(const search_config *c);
/* Reads such lines over *c: each key read is marked given (except as the
 * "given" line says otherwise); unknown keys and bad values are errors
 * ("line N: ...").  Records written before the table had neither "backend"
 * nor "given": then a value equal to the CPU default counts as not given. */
bool search_config_from_text(const char *text, search_config *c, char *err, size_t errlen);

/* The table as --help lines ("  --name ARG   help (default X; GPU Y)"), for
 * rows in use (SEARCH_USE_* mask) but not excluded (bit 1 << id); caller frees. */
char *search_config_help(unsigned use, uint64_t exclude);
/* The table as the Markdown table of docs/search.md; caller frees. */
char *search_config_markdown(void);

/* ---- symmetric walks (walker_sym.c; docs/search.md, "Symmetric walks") ----- */

/* The symmetric start of <n,n,n> under g: the standard algorithm with its
 * diagonal terms sum_i a_ii b_ii c_ii written as the cubes D_S (x) D_S (x) D_S
 * of the diagonal matrices D_S of the given cubes S (which partition the
 * diagonal), plus the terms (E_ii, E_jj, E_kk), i, j, k in one S not all
 * equal, that the cubes add (Moosbauer, Poole 2025).  Invariant under g.
 * NULL with a message when the cubes do not fit (lengths, partition, a cube
 * whose mirror is not a cube under c3xc2) or out of memory.  Under t2 (on
 * <n,m,m>) the "cubes" are groups of the rows of a (n digits; default: each
 * row alone): the standard algorithm with, for each j and each group S, the
 * fixed terms a_ij b_jj c_ji (i in S) written as one, (sum_S E_ij, E_jj,
 * sum_S E_ji), plus the cross terms it adds; m * |groups| fixed terms. */
scheme *search_symmetric_start(scheme_format f, scheme_symmetry g, const search_cubes *cubes, char *err,
                               size_t errlen);
/* The default cubes of n (search_cubes count 0): the mirror pairs, and the
 * middle alone for odd n; for n = 6 Moosbauer and Poole's 110000,001100,000011,
 * for n = 7 the same pattern, 1100000,0011100,0000011 (measured). */
void search_cubes_default(int n, search_cubes *out);
/* Whether g can walk every square format of a range, as the meta search and
 * the sweep walk theirs: none, c3 and c3xc2 can; t2 and c3xc2sK walk one
 * format (t2 <n,m,m>, c3xc2sK only from n = 2K + 2): false with the rest of
 * the sentence "the meta search ..." saying so. */
bool search_symmetry_for_ranges(scheme_symmetry g, char *err, size_t errlen);
/* The default of group g: search_cubes_default for c3 and c3xc2; for t2 every
 * row of a alone (the standard algorithm itself, n*m fixed terms). */
void search_cubes_default_for(scheme_symmetry g, int n, search_cubes *out);
/* Parses "10001,01010,00100" (each a string of 0/1, at most 8 cubes of at
 * most 8 digits; the lengths are checked against n later); false otherwise. */
bool search_cubes_parse(const char *s, search_cubes *out);
/* "10001,01010,00100"; "default" for count 0. */
void search_cubes_text(const search_cubes *c, char *buf, size_t len);
/* Checks the cubes against <n,n,n> and g (see search_symmetric_start). */
bool search_cubes_check(const search_cubes *c, int n, scheme_symmetry g, char *err, size_t errlen);
/* The cube move: the GF(2) sum D_x^3 + D_y^3 + D_(x+y)^3 + the six terms of
 * D_x and D_y mixed ((D_x, D_x, D_y), its three rotations and the three of
 * (D_x, D_y, D_y)) is zero, for disjoint cubes x, y (pair: two cubes of n
 * digits) of <n,n,n>.  Adding it to s (equal terms cancel) merges the terms
 * D_x^3 and D_y^3 of s into D_(x+y)^3 (rank + 5, less what cancels) or, where
 * s holds D_(x+y)^3 and not both, splits it (rank + 7, less what cancels).
 * The only move that changes the number of fixed terms of a c3xc2 scheme by
 * one, so its parity (docs/search.md, "Symmetric walks").  The result is
 * invariant under c3 where s was, and under c3xc2 where s was and the
 * reversal maps the pair to itself (y the mirror of x, or both palindromes).  NULL with a
 * message when s is not a GF(2) <n,n,n>, the cubes do not fit (count, digits,
 * overlap), s holds neither both cubes nor their union's, or out of memory. */
scheme *search_cubes_merge(const scheme *s, const search_cubes *pair, char *err, size_t errlen);
/* A g-invariant GF(2) scheme as the symmetric walk holds it (equal terms
 * cancelled, zero terms dropped): one representative (3 words) per free orbit
 * in reps (room for s->rank terms) and the terms some element fixes in fixed
 * (room for s->rank terms).  false when s is not invariant or out of memory. */
bool search_symmetric_split(const scheme *s, scheme_symmetry g, uint64_t *reps, int *norbits, uint64_t *fixed,
                            int *nfixed);
/* Under c3xc2 and c3xc2sK: the fixed terms of a split that the shift moves
 * (each fixed by the involution: the terms among the indices c3xc2sK's
 * involution fixes) are half orbits, three images each once, which the walks
 * flip (docs/search.md, "Other involutions").  Moves them out of fixed (the
 * rest compacted, *nfixed updated) to half, one representative each (room
 * for *nfixed / 3); returns their number, 0 under the other groups, -1 when
 * an image under the shift is missing (not invariant). */
int search_symmetric_halves(scheme_format f, scheme_symmetry g, uint64_t *fixed, int *nfixed, uint64_t *half);
/* A g-invariant scheme as the walks hold it: search_symmetric_split, then
 * search_symmetric_halves on its fixed terms.  Each buffer has room for
 * s->rank terms (at least one), 3 words a term. */
typedef struct search_symmetric_parts {
    uint64_t *reps;  /* norbits free orbits' representatives */
    uint64_t *fixed; /* nfixed terms some element fixes, less the half orbits' */
    uint64_t *half;  /* nhalf half orbits' representatives (c3xc2 and c3xc2sK) */
    int norbits, nfixed, nhalf;
} search_symmetric_parts;
/* Out of memory is the run's failure, a scheme that does not split the
 * caller's bad start: callers report them apart. */
typedef enum search_parts_status {
    SEARCH_PARTS_OK = 0,
    SEARCH_PARTS_NOT_INVARIANT = 1, /* the split or the halves refused s */
    SEARCH_PARTS_NO_MEMORY = 2      /* the buffers could not be allocated */
} search_parts_status;
/* Fills *out (its old contents ignored); on failure *out is zeroed, nothing
 * held.  The halves are taken in s->fmt. */
search_parts_status search_symmetric_parts_make(const scheme *s, scheme_symmetry g, search_symmetric_parts *out);
/* Frees the buffers and zeroes *p; a zeroed *p is fine. */
void search_symmetric_parts_free(search_symmetric_parts *p);
/* The inverse: the GF(2) scheme of format f made of the fixed terms and every
 * image under g of each representative (norbits * |G| + nfixed terms, the
 * fixed ones first); NULL when out of memory. */
scheme *search_symmetric_join(scheme_format f, scheme_symmetry g, const uint64_t *reps, int norbits,
                              const uint64_t *fixed, int nfixed);

/* f with its dimensions in ascending order (<5,3,4> -> <3,4,5>): every
 * permutation of a format has the same rank, so the records and the meta
 * search key formats by it. */
scheme_format search_format_sorted(scheme_format f);
/* Whether `big` holds `small`: sorted, each of small's dimensions at most
 * big's, so that some orientation of a scheme of big projects to small (or is
 * small reordered, when the two sort alike). */
bool search_format_holds(scheme_format big, scheme_format small);
/* Best known rank over GF(2) (data/records.tsv), symmetric in n, m, p;
 * <1,m,p> has rank m*p; -1 when unknown (a dimension above 6). */
int search_record_rank(scheme_format f);
/* The same over Z (integer coefficients; the z column), same conventions. */
int search_record_rank_z(scheme_format f);
/* Whether records.tsv marks that record with '?' (its sources disagree; the
 * number is still the one returned above).  false for unknown formats. */
bool search_record_uncertain(scheme_format f, scheme_ring ring);

/* ==== 2. the walker ======================================================= */

typedef struct search_walker search_walker;

typedef struct search_walker_stats {
    uint64_t flips, plus, reductions, gen_reductions, no_flip;
    uint64_t rejected;     /* over Z: flips drawn and not taken (over the coefficient bound) */
    uint64_t undone;       /* with degree_bias or weight_bias: flips undone by the Metropolis test */
    uint64_t unmade;       /* of those, with weight_bias (and degree_bias or not): refused before
                              they were made, the checks of a flip run on the scheme it would
                              leave (walker.c, flip_reduces) having found that it makes no
                              reduction */
    uint64_t lookahead;    /* flips the lookahead chose (search_params.lookahead) */
    uint64_t tabu;         /* draws (and the lookahead's candidates) the plus tabu refused
                              (search_params.plus_tabu) */
    uint64_t held;         /* draws the plus hold refused, each a flip that would have reduced
                              (search_params.plus_hold) */
    uint64_t hold_reduced; /* flips that reduced while a hold refused reductions (a bug: must
                              stay 0) */
    uint64_t skipped;      /* checks a flip makes needless, skipped: the dependence check of the
                              bucket it flips in, every work item of an undone flip (the plain
                              walker over GF(2); docs/search.md, "The walker") */
    uint64_t skipped_found; /* with search_walker_check_skipped: those that found a reduction,
                               and the flips refused or kept on a wrong answer of walker.c's
                               flip_reduces (a bug: must stay 0) */
} search_walker_stats;

/* A walker on a copy of start (GF(2) words; zero-factor terms dropped, then
 * every reduction taken).  cap: the most terms the walk may hold (plus
 * transitions stop there); 0: start rank + plus_max + 8.  NULL when out of memory
 * or when start is not a scheme of p->fmt. */
search_walker *search_walker_new(const scheme *start, const search_params *p, uint64_t seed, int cap);
void search_walker_free(search_walker *w);
/* Replaces the walker's scheme (same format) and resets its plateau; the RNG continues. */
bool search_walker_reset(search_walker *w, const scheme *s);
int search_walker_rank(const search_walker *w);
/* One uniformly random flip (over ordered flippable pairs), then every
 * reduction it enables.  false when no two terms share a factor. */
bool search_walker_flip(search_walker *w);
/* One plus transition on a random pair of terms sharing no factor, then every
 * reduction it enables.  false when none was found or the walker is full. */
bool search_walker_plus(search_walker *w);
/* Walks: up to n flips, a plus transition after each plateau of the adaptive
 * length L while the rank is below base + plus_max.  Returns early, after the
 * flip that did it, when the rank drops below stop_below.  Returns flips done. */
uint64_t search_walker_walk(search_walker *w, uint64_t n, int base, int stop_below);
/* The current scheme (caller frees). */
scheme *search_walker_snapshot(const search_walker *w);
/* The current terms copied into out (room for cap terms); returns the rank.  Over Z
 * the GF(2) words (the odd coefficients; search_walker_snapshot has the integers). */
int search_walker_terms(const search_walker *w, scheme_term *out);
void search_walker_stats_get(const search_walker *w, search_walker_stats *st);
uint64_t search_walker_plateau(const search_walker *w); /* the current adaptive L */
/* Checks the index against a recomputation and that no reduction is left
 * (tests); false with a message. */
bool search_walker_check(const search_walker *w, char *err, size_t errlen);
/* Tests: the dependence checks a flip makes needless (stats.skipped) run
 * anyway, and one that finds a reduction takes it and counts in
 * stats.skipped_found; so does a flip the biases refused before making it
 * (stats.unmade), made anyway, that reduces or leaves another flip count than
 * the one its test used, and a flip kept for a reduction that it did not make. */
void search_walker_check_skipped(search_walker *w, bool on);

/* ==== 3. the driver ======================================================= */

typedef enum search_status {
    SEARCH_REACHED = 0,     /* target reached; or no target and the time/flip budget ran out */
    SEARCH_NOT_REACHED = 1, /* the budget ran out (or a stop was requested) before the target */
    SEARCH_BAD_PARAMS = 2,  /* bad parameters or start scheme; or the backend is not built */
    SEARCH_FAILED = 3       /* a scheme failed verification (a bug), out of memory, a callback failed */
} search_status;

/* Walker ids from here on are CPU walkers beside a GPU's (--host-threads):
 * SEARCH_BESIDE_WALKER0 + k is CPU thread k. */
#define SEARCH_BESIDE_WALKER0 (1 << 30)

/* A verified improvement: a scheme of lower rank than any before in this run. */
typedef struct search_found {
    const scheme *s;       /* verified over GF(2) */
    int rank;
    double seconds;        /* since the run began */
    uint64_t flips;        /* all walkers' flips so far */
    int walker;            /* which thread / warp found it (of process `node`) */
    int node;              /* the MPI rank whose walker found it; 0 without MPI (docs/cluster.md) */
} search_found;

typedef struct search_progress {
    double seconds;
    uint64_t flips;
    double flips_per_s;    /* over the last interval */
    int best_rank, record; /* record: search_record_rank, -1 unknown */
    int level;             /* the pool rank walkers start from */
    int level_count;       /* schemes in the pool at that rank */
    uint64_t plateau;      /* walker 0's adaptive L */
    uint64_t plus, restarts, reductions;
    uint64_t undone;       /* flips the degree or weight bias undid (counted in flips) */
    /* the spread of the walkers' current ranks (progress line): how many walkers
     * reported, and the lowest, median and highest of their ranks; 0 when
     * the backend does not know */
    int walkers, rank_min, rank_median, rank_max;
    double best_age;       /* seconds since best_rank was first reached (the plateau of the run) */
    int devices;           /* GPUs walking (0: CPU threads) */
} search_progress;

typedef struct search_callbacks {
    void *ctx;
    /* Called (serialized, from any walker's thread) for every improvement after
     * it verified; return false to stop the run with SEARCH_FAILED (the callback
     * prints why).  NULL: improvements are only counted. */
    bool (*improved)(void *ctx, const search_found *f);
    /* Called from the driver's thread every progress_every seconds. */
    void (*progress)(void *ctx, const search_progress *pr);
    /* With search_params.pool_every > 0 and pool_keep > 0: called from the
     * driver's thread every pool_every seconds with the pool as the run's end
     * returns it (search_result.pool: up to pool_keep distinct schemes, lowest
     * ranks first, each verified when it entered the pool), `seconds` into the
     * run.  The schemes are the engine's to free.  NULL: no checkpoints. */
    void (*pool_checkpoint)(void *ctx, scheme *const *pool, int n, double seconds);
} search_callbacks;

typedef struct search_result {
    search_status status;
    int start_rank, best_rank;
    scheme *best;            /* the lowest-rank scheme seen (verified); free with search_result_free */
    double seconds;
    uint64_t flips, plus, restarts, reductions, improvements;
    uint64_t undone;         /* flips the degree or weight bias undid (counted in flips) */
    uint64_t siblings;       /* failed walks' schemes the pool took (search_params.siblings; the plain
                                walks: CPU walkers and the GPU's warp walk over GF(2)) */
    uint64_t pooled;         /* schemes the run's pool took in all (starts, improvements, siblings) */
    bool interrupted;        /* search_request_stop was called */
    char msg[512];           /* why, when status is not SEARCH_REACHED/NOT_REACHED */
    scheme **pool;           /* with search_params.pool_keep N > 0: up to N distinct schemes the
                                run's pool held at its end (each verified when it entered), by
                                rank, the lowest first; freed by search_result_free */
    int npool;
} search_result;
void search_result_free(search_result *r);

/* Runs a search from the given start schemes (all of format p->fmt; none:
 * the standard algorithm).  Every scheme the run keeps was verified with
 * verify_f2 first (verify_z for p->ring z: start schemes over GF(2) count
 * with coefficients 1, the schemes kept are integer schemes); one that fails
 * is reported as SEARCH_FAILED with a diagnostic, never kept.  Returns
 * res->status. */
typedef search_status (*search_run_fn)(const search_params *p, const scheme *const *starts,
                                       int nstarts, const search_callbacks *cb, search_result *res);
search_status search_run_cpu(const search_params *p, const scheme *const *starts, int nstarts,
                             const search_callbacks *cb, search_result *res);
/* The GPU backend (search/walk_gpu.c, docs/gpu-walk.md); SEARCH_BAD_PARAMS when not built. */
search_status search_run_gpu(const search_params *p, const scheme *const *starts, int nstarts,
                             const search_callbacks *cb, search_result *res);

/* The Luby sequence (1 1 2 1 1 2 4 ...), i >= 1: the restart schedule. */
uint64_t search_luby(uint64_t i);
/* Seconds since an arbitrary start (CLOCK_MONOTONIC): the clock of every time
 * limit in search/ (the engine's, the meta search's legs, the lifting walk). */
double search_clock_s(void);

/* Asks every running search to finish its batch and return (async-signal-safe). */
void search_request_stop(void);
bool search_stop_requested(void);
void search_clear_stop(void);

/* ==== 4. moves between formats (resize.c; docs/resize.md) ================
 *
 * The meta flip graph's projections and extensions (Kauers, Wood, "Exploring
 * the meta flip graph for matrix multiplication", 2025): a scheme of <n,m,p>
 * becomes one of a format one smaller or one larger in one dimension.  dim
 * 0/1/2 is n/m/p.  Over GF(2) and over Z alike: the result is in the input's
 * ring (an integer scheme's coefficients move as its bits do), its terms in
 * the input's order, the new ones after; the change of basis is over GF(2)
 * only. */

/* Deletes index `index` of dimension dim from every factor (dim 0: row index
 * of a and column index of c; dim 1: column of a and row of b; dim 2: column
 * of b and row of c), the bits laid out for the new widths; a term left with a
 * zero factor (every coefficient 0) is dropped.  A scheme of <n,m,p> gives one
 * of <n-1,m,p> (etc.).  NULL when that dimension is 1, index or dim is out of
 * range, or out of memory. */
scheme *search_project(const scheme *s, int dim, int index);
/* The projection of dimension dim after a change of basis on it (Kauers,
 * Wood 2025's projection, in any basis): with P invertible, P u = e_last and
 * the last row of P equal to z (z.u = 1 over GF(2); rows 0..d-2 of P span the
 * vectors orthogonal to u), every factor at position dim becomes P a and every
 * factor at (dim+2)%3 becomes c P^-1, which keeps the tensor, and the last
 * index is deleted (search_project).  The terms dropped are those whose factor
 * at dim is u v^T for some v and those whose factor at (dim+2)%3 is w z^T;
 * u = z = e_i is search_project(s, dim, i).  u and z are bit masks over the
 * d = s's dimension dim indices (bit i: index i), 2 <= d <= 8.  NULL when z.u
 * is 0, u or z is 0 or out of range, d is out of 2..8, s is not over GF(2),
 * or out of memory.  search_resize tries the candidates that drop the most. */
scheme *search_project_basis(const scheme *s, int dim, unsigned u, unsigned z);
/* The same over Z (docs/resize.md, "Over Z"): u in {-1,0,1}^d with an entry
 * +-1 (the first such, i, is the pivot) and z integer with z.u = 1; P has the
 * rows e_j - u_j u_i e_i (j != i, in order) and then z, and is unimodular
 * (P^-1 has the columns e_j - z_j u and then u), so the result is an integer
 * scheme.  Dropped: the terms whose factor at dim is u v^T and those whose
 * factor at (dim+2)%3 is w z^T.  NULL when s is not over Z, d is out of
 * 2..8, u has no pivot or an entry beyond 1, z.u != 1, a coefficient would
 * pass 127, or out of memory; the coefficients can grow (search_resize keeps
 * a result only within the input's largest coefficient, at least 1). */
scheme *search_project_basis_z(const scheme *s, int dim, const int8_t *u, const int8_t *z);
/* Appends one index at the end of dimension dim, the bits laid out for the new
 * widths, and the standard terms of the new slice (dim 0, new i = n:
 * a_nj b_jk c_kn for every j, k: m*p terms; dim 1: n*p; dim 2: n*m).  A
 * scheme of <n,m,p> gives one of <n+1,m,p> (etc.; over Z the new terms have
 * coefficients 1).  NULL when the larger format is not a format
 * (scheme_format_valid: 64 entries a factor at most), or out of memory. */
scheme *search_extend(const scheme *s, int dim);
/* <n,n,n> to <N,N,N> (n < N <= 8): search_extend in every dimension up to N,
 * then every factor conjugated by the relabelling that moves the new indices
 * to the middle (an odd n's middle index to the middle of N), no reductions:
 * an involution swapping i and n-1-i (c3xc2, c3xc2sK) then swaps i and N-1-i
 * and fixes the new indices, so a scheme invariant under c3, c3xc2 or
 * c3xc2sK gives one invariant under c3, c3xc2 or c3xc2sK' (an odd n to an
 * even N: K' = (n-1)/2 pairs, the two middle indices fixed; docs/resize.md,
 * "Square extensions").  Rank: s's plus N^3 - n^3.  In s's ring (over GF(2)
 * an integer s is reduced mod 2).  NULL: s not square, N out of range, or out
 * of memory. */
scheme *search_extend_square(const scheme *s, int N);
/* s taken to the format `to` exactly, in its ring (a GF(2) scheme, or an
 * integer one, which stays one): a permutation of s's format by
 * search_permute (the rank kept); otherwise every dimension too large is projected one
 * index at a time, at the index whose deletion followed by the reductions
 * leaves the lowest rank (ties: the lowest index), or, over GF(2) and where
 * strictly lower, after one of the 16 changes of basis that drop the most
 * terms (search_project_basis; dimensions of 2..8); then every dimension too
 * small is extended, each extension followed by the reductions (a square s
 * to a larger square `to`: by search_extend_square, then the reductions); then the
 * reductions once more.  The reductions: search_reduce_all (gen_max 5) over
 * GF(2); over Z search_z_reduce_all within the scheme's largest coefficient
 * (at least 1), so no coefficient grows.  The result is checked with
 * verify_f2 or verify_z.  NULL with a message in err: `to` is not a format,
 * the input is not valid in its ring, out of memory, or "BUG: ..." when the
 * result failed its check. */
scheme *search_resize(const scheme *s, scheme_format to, char *err, size_t errlen);
/* The lowest-rank projection of s to `to` over s's six orientations (the
 * rotations and transpositions of its factors, a square format's included)
 * whose format holds `to` (every dimension at least to's), each taken there
 * by search_resize (one index at a time, the best after a change of basis,
 * then every reduction, the result checked); ties: the first orientation, s
 * itself first.  Which orientation is projected decides which of the
 * scheme's indices are deleted, and the ranks differ (docs/resize.md,
 * "Orientations").  *steps (may be NULL): the sum of the dimensions'
 * differences.  NULL with a message in err: `to` is not a format, is larger
 * than s's format in every ordering, more than `reach` steps below (reach <= 0:
 * any), or search_resize failed (out of memory, an input not valid in its
 * ring, a BUG). */
scheme *search_project_oriented(const scheme *s, scheme_format to, int reach, int *steps, char *err, size_t errlen);
/* The survey (flipgraph resize --survey): every format <a,b,c>, 2 <= a <= b
 * <= c, that s's format holds (sorted, each dimension at most s's sorted
 * one), other than s's own, at most `reach` steps below it (reach <= 0: all),
 * each with s's search_project_oriented there; *rows by format (a, then b,
 * then c), search_survey_free frees them.  Returns how many, -1 with a
 * message in err (out of memory, an input not valid in its ring, a BUG). */
typedef struct search_survey_row {
    scheme_format fmt; /* sorted */
    int steps;         /* the dimensions' differences summed */
    scheme *s;         /* the projection, of fmt, checked in s's ring */
} search_survey_row;
int search_survey(const scheme *s, int reach, search_survey_row **rows, char *err, size_t errlen);
void search_survey_free(search_survey_row *rows, int n);
/* The product of two schemes (the tensor product of their tensors, as
 * Strassen 1969's recursion is the product of his scheme with itself): s1 of <n1,m1,p1> rank r1 and
 * s2 of <n2,m2,p2> rank r2 give a scheme of <n1*n2,m1*m2,p1*p2> of rank
 * r1*r2, term (t1, t2) the Kronecker product of their factors, index i of
 * the product i1*n2 + i2 in every factor alike.  Over Z when both are over Z
 * (coefficients multiplied), else over GF(2) (an integer input counts by
 * its reduction mod 2, scheme_to_f2).  No reduction is taken.  NULL when the
 * product format is not a format (scheme_format_valid), its rank would pass
 * SCHEME_MAX_RANK, a coefficient product would pass 127, or out of memory. */
scheme *search_product(const scheme *s1, const scheme *s2);
scheme_format search_product_format(scheme_format f1, scheme_format f2);
/* s (in its ring: an integer scheme stays one) as a scheme of `to`, a
 * permutation of its format: the rotation (a, b, c) -> (b, c, a)
 * takes <n,m,p> to <m,p,n>, the transposition (a, b, c) -> (b^T, a^T, c^T)
 * to <p,m,n>; the rank stays.  NULL when `to` is not a permutation of
 * s's format, or out of memory. */
scheme *search_permute(const scheme *s, scheme_format to);
/* The lifting walk (lift_walk.c; docs/search.md, "The lifting walk"): the
 * GF(2) walker from start (its reduction mod 2; default parameters, plus
 * transitions at rank target, seed) in chunks of 20000 flips for up to
 * `seconds`, and every distinct scheme it holds at rank <= target (canonical
 * hash; at most 4096) Hensel-lifted (verify_lift_ex) until one lifts: that
 * lift is returned (it passed verify_z) and *gf2 is the GF(2) scheme it lifts
 * (the caller frees both).  NULL (and *gf2 NULL) when none lifted in time,
 * on search_request_stop, or out of memory; *tried counts the lifts tried. */
scheme *search_lift_walk(const scheme *start, int target, double seconds, uint64_t seed, int *tried, scheme **gf2);
/* The same with `threads` walks at once (seeds seed, seed + phi, ...; 64 at
 * most), each its own walker and seen set, until the first lifts (the others
 * stop at their next chunk) or `seconds` pass: the lift of the lowest-numbered
 * walk that lifted, its GF(2) scheme in *gf2; *tried all walks' lifts.  One
 * thread: search_lift_walk. */
scheme *search_lift_walk_threads(const scheme *start, int target, double seconds, uint64_t seed, int threads,
                                 int *tried, scheme **gf2);
/* The survey (flipgraph lift --survey): the same walk for `seconds`, every
 * distinct scheme met at rank <= target (at most 65536) lifted and counted,
 * none kept: t counts the distinct schemes met, those that lift, and the
 * defects of those refused mod 4 (verify_lift_result.defect).
 * Whether a GF(2) scheme lifts goes by region (bench/RESULTS.md, "Liftability
 * by region"): from the mod-2 image of a Z scheme nearly all neighbours lift,
 * from some GF(2) schemes none.  false when none was met (time too short, out
 * of memory). */
typedef struct search_lift_tally {
    int met, lifted;  /* distinct schemes met; of them, those that lift */
    int none;         /* those refused modulo 4 (the rest lift mod 4 but were not lifted) */
    int defect_min, defect_max; /* their defects (verify_lift_result.defect) */
    double defect_sum;
    double defect_min_at;       /* seconds into the survey when defect_min was first met */
    bool keep;                  /* set by the caller: keep the scheme of defect_min */
    scheme *closest;            /* with keep: that scheme (GF(2); the first met of that defect),
                                   NULL when none was refused mod 4; the caller frees it */
} search_lift_tally;
bool search_lift_survey(const scheme *start, int target, double seconds, uint64_t seed, int threads,
                        search_lift_tally *t);
/* t->keep is read before the survey (every other field is reset).  threads
 * (1..64): walks at once, seeds as search_lift_walk_threads gives them, each
 * with its own set of schemes seen: met and the rest are summed walk by walk
 * (a scheme two walks meet counts twice); the lowest defect is the lowest of
 * all (its time the walk's own). */
/* The direct sum along dimension dim (0: n, 1: m, 2: p): s1 of <n,m1,p> and
 * s2 of <n,m2,p> (dim 1; the other two dimensions equal) give a scheme of
 * <n,m1+m2,p> of rank r1 + r2, the block decomposition of the product, s2's
 * index of dimension dim shifted by s1's; an extension (search_extend) is the
 * sum with the standard algorithm of one slice.  Over Z when both are over Z,
 * else over GF(2).  No reduction is taken.  NULL when the other dimensions
 * differ, the sum is not a format (scheme_format_valid), its rank would pass
 * SCHEME_MAX_RANK, or out of memory. */
scheme *search_sum(const scheme *s1, const scheme *s2, int dim);
/* The first ordering of b's format (search_permute takes a scheme there)
 * that agrees with a's format in every dimension but *dim, where search_sum
 * adds them (with along >= 0 only that dimension; one ordering equal to a's
 * format counts only with along >= 0, which then is *dim): false when none.
 * flipgraph resize --sum. */
bool search_sum_ordering(scheme_format a, scheme_format b, int along, scheme_format *b_ordered, int *dim);
/* How search_meta_start made its start. */
typedef enum search_meta_how {
    SEARCH_META_MOVED = 0, /* one known scheme projected or extended (or `to` itself) */
    SEARCH_META_PRODUCT,   /* the product of two (search_product) */
    SEARCH_META_SUM        /* the sum of two (search_sum) */
} search_meta_how;
/* The meta start of `to` (flipgraph sweep --meta, search --meta): of the
 * first nnear known schemes those whose format is `to` or one step from it
 * (one of n, m, p larger or smaller by one, the others equal), each taken to `to` by
 * search_resize, and (where from2 is not NULL) of the products of two known
 * schemes whose formats, the second in any ordering, multiply to an ordering
 * of `to` (search_product), and of the sums of two whose formats, each in any
 * ordering, split `to` along one dimension (search_sum: <4,4,6> from
 * <4,4,2> and <4,4,4>), each permuted to `to` and then search_resize for its
 * reductions and check, the lowest rank; ties: the first.  NULL when none is
 * below n*m*p (the standard algorithm) or none is near; *from: the index of
 * the one it came from (of the product's or sum's first part), *from2: the
 * second part, -1 when the start is neither; *how (may be NULL) which.  A
 * product or sum whose rank before its reductions is not below the lowest so
 * far is not built. */
scheme *search_meta_start(scheme_format to, const scheme *const *known, int nknown, int nnear, int *from,
                          int *from2, search_meta_how *how);
/* search_meta_start with a longer reach for the projections: a known scheme
 * whose format holds `to` (each dimension at least to's, in some ordering) up
 * to `reach` steps above it (the dimensions' sums differ by the steps) is
 * projected there by search_project_oriented; extensions stay one step.
 * reach 1 is search_meta_start.  flipgraph sweep --meta-reach. */
scheme *search_meta_start_reach(scheme_format to, const scheme *const *known, int nknown, int nnear, int reach,
                                int *from, int *from2, search_meta_how *how);

/* ==== 5. MPI ranks (mpi.c; docs/cluster.md) ==============================
 *
 * `mpirun -n K flipgraph search --mpi ...`: every rank runs the engine with
 * its own walkers (CPU threads, or the GPU of its local rank); rank 0 holds
 * the store and the run record.  A layer around the engine (engine.h,
 * engine_layer) carries the schemes each worker rank's engine kept to rank 0,
 * whose engine verifies them again and stores its improvements, and sends
 * samples of rank 0's pool and the stop back; messages are non-blocking (a
 * walker never waits for the network; one thread per rank talks).  Where the
 * build has no MPI every call below says so or does nothing. */

/* Whether this flipgraph was built with MPI. */
bool search_mpi_built(void);
/* MPI_Init_thread (MPI_THREAD_SERIALIZED: one thread at a time talks) and
 * the layer installed for every later search of this process; false with a
 * message (no MPI in this build, or the library refused). */
bool search_mpi_init(char *err, size_t errlen);
/* After search_mpi_init: this process's rank and the number of ranks; 0 and
 * 1 otherwise. */
int search_mpi_rank(void);
int search_mpi_size(void);
bool search_mpi_active(void);
/* Rank 0 gives every rank the run (the resolved configuration and the start
 * schemes) with end -1, or, with end >= 0, the exit code every rank ends with
 * now (rank 0 could not start the run, or had nothing to run); the other
 * ranks pass -1 and receive the run into *c, *starts, *nstarts (caller frees
 * the schemes and the array).  Collective and blocking (before any walk).
 * Returns -1 to go on, else the code to exit with (then search_mpi_finish
 * only finalizes); 3 with a message when the ranks' builds differ or memory
 * ran out. */
int search_mpi_share(search_config *c, scheme ***starts, int *nstarts, int end, char *err, size_t errlen);
/* This rank's share of c: rank 0 keeps c; rank r > 0 walks with a seed
 * derived from c's and r, and leaves time, stall and progress to rank 0.
 * With the GPU backend every rank takes the GPU of its local rank (modulo the
 * GPUs it sees).  Then gathers every rank's host, pid and device: rank 0 gets
 * them in words (for the run record and the banner; caller frees), the other
 * ranks NULL.  Collective. */
char *search_mpi_configure(search_config *c);
/* After the run (every rank, also one whose run never started): ends the
 * exchange (a rank whose search did not walk still answers the others), then
 * every rank takes rank 0's exit code; MPI_Finalize.  rc, msg: this rank's
 * code and, when it failed, why (a worker's failure reaches rank 0, which
 * prints it and ends with 3).  Returns the code this process exits with. */
int search_mpi_finish(int rc, const char *msg);

#endif
