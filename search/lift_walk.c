/* The lifting walk (docs/search.md, "The lifting walk"): lift the neighbours
 * of a GF(2) scheme that does not lift.
 *
 * Whether a GF(2) scheme lifts to Z (Hensel lifting, verify_lift) is a
 * property of the scheme, not of its rank, and it is not shared by its whole
 * flip-graph component either: of two GF(2) <3,4,5>:47 of our meta search,
 * neither lifts (proved mod 4), yet the walk from one of them met 4096
 * distinct 47s of which 501 lift, the walk from the other 1 in 3903
 * (bench/RESULTS.md, "The lifting walk").  The walk is the GF(2) walker of
 * Kauers, Moosbauer 2023 with plus transitions at the target rank; a lift is
 * about 5 ms for <3,4,5>, cheap beside the walk between two tries. */
#include "search.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../verify/verify.h"

#define LIFT_WALK_CHUNK 20000 /* flips between two looks at the walker's scheme */
#define LIFT_WALK_SEEN 4096   /* distinct schemes tried, at most */
#define LIFT_SURVEY_SEEN 65536 /* the survey's, at most */

/* The walk and its lifts: stop_at_first for the lifting walk (the first lift
 * returned), else the survey (every distinct scheme met lifted and counted).
 * stop (optional): set by the first of several walks that lifts, read by the
 * others between chunks. */
static scheme *lift_walk(const scheme *start, int target, double seconds, uint64_t seed, int cap, bool stop_at_first,
                         int *tried, int *lifted_n, scheme **gf2, atomic_bool *stop, search_lift_tally *tally)
{
    *tried = *lifted_n = 0;
    *gf2 = NULL;
    if (!start || target <= 0 || seconds <= 0)
        return NULL;
    scheme *g = scheme_to_f2(start);
    search_params p;
    search_params_default(&p);
    p.fmt = start->fmt;
    search_walker *w = g ? search_walker_new(g, &p, seed, 0) : NULL;
    scheme_free(g);
    uint64_t *seen = malloc((size_t)cap * sizeof *seen);
    scheme *lifted = NULL;
    const double t0 = search_clock_s(), until = t0 + seconds;
    int nseen = 0;
    while (w && seen && !lifted && nseen < cap && search_clock_s() < until && !search_stop_requested() &&
           !(stop && atomic_load(stop))) {
        search_walker_walk(w, LIFT_WALK_CHUNK, target, 0);
        if (search_walker_rank(w) > target)
            continue;
        scheme *c = search_walker_snapshot(w);
        if (!c)
            break;
        const uint64_t h = scheme_hash(c);
        bool dup = false;
        for (int q = 0; q < nseen && !dup; q++)
            dup = seen[q] == h;
        if (!dup) {
            seen[nseen++] = h;
            verify_lift_result lr;
            scheme *z = verify_lift_ex(c, NULL, &lr); /* verified over Z when not NULL */
            (*tried)++;
            if (tally && !z && lr.status == VERIFY_LIFT_NONE) {
                const int d = lr.defect;
                if (!tally->none || d < tally->defect_min) {
                    tally->defect_min = d;
                    tally->defect_min_at = search_clock_s() - t0;
                    if (tally->keep) {
                        scheme_free(tally->closest);
                        tally->closest = scheme_clone(c);
                    }
                }
                if (d > tally->defect_max)
                    tally->defect_max = d;
                tally->defect_sum += d;
                tally->none++;
            }
            if (z) {
                (*lifted_n)++;
                if (stop_at_first) {
                    lifted = z;
                    *gf2 = c;
                    c = NULL;
                    if (stop)
                        atomic_store(stop, true);
                } else
                    scheme_free(z);
            }
        }
        scheme_free(c);
    }
    free(seen);
    search_walker_free(w);
    return lifted;
}

scheme *search_lift_walk(const scheme *start, int target, double seconds, uint64_t seed, int *tried, scheme **gf2)
{
    int n;
    return lift_walk(start, target, seconds, seed, LIFT_WALK_SEEN, true, tried, &n, gf2, NULL, NULL);
}

/* One of several walks at once: a lifting walk that stops at the first lift
 * (any walk's, through stop), or a survey's walk (survey: its own tally). */
typedef struct lift_walk_job {
    const scheme *start;
    int target;
    double seconds;
    uint64_t seed;
    atomic_bool *stop;
    bool survey;
    int tried, lifted;
    scheme *z, *gf2;
    search_lift_tally tally;
} lift_walk_job;

static void *lift_walk_thread(void *p)
{
    lift_walk_job *j = p;
    if (j->survey)
        lift_walk(j->start, j->target, j->seconds, j->seed, LIFT_SURVEY_SEEN, false, &j->tried, &j->lifted, &j->gf2,
                  NULL, &j->tally);
    else
        j->z = lift_walk(j->start, j->target, j->seconds, j->seed, LIFT_WALK_SEEN, true, &j->tried, &j->lifted,
                         &j->gf2, j->stop, NULL);
    return NULL;
}

/* How many walks run at once for a caller's `threads`: 1..64. */
static int walks_for(int threads) { return threads < 1 ? 1 : threads > 64 ? 64 : threads; }

/* Runs job[0..n) at once (n from walks_for; one job, or one whose thread
 * cannot start, runs here, in turn); walk i's seed is seed + i * phi (seed
 * itself for the first, as one walk has it). */
static void run_walks(lift_walk_job *job, int n, uint64_t seed)
{
    pthread_t th[64];
    bool started[64];
    for (int i = 0; i < n; i++) {
        job[i].seed = seed + (uint64_t)i * 0x9e3779b97f4a7c15ull;
        started[i] = n > 1 && pthread_create(&th[i], NULL, lift_walk_thread, &job[i]) == 0;
        if (!started[i])
            lift_walk_thread(&job[i]);
    }
    for (int i = 0; i < n; i++)
        if (started[i])
            pthread_join(th[i], NULL);
}

scheme *search_lift_walk_threads(const scheme *start, int target, double seconds, uint64_t seed, int threads,
                                 int *tried, scheme **gf2)
{
    threads = walks_for(threads);
    lift_walk_job job[64];
    atomic_bool stop = false;
    for (int i = 0; i < threads; i++)
        job[i] = (lift_walk_job){.start = start, .target = target, .seconds = seconds, .stop = &stop};
    run_walks(job, threads, seed);
    scheme *z = NULL;
    *tried = 0;
    *gf2 = NULL;
    for (int i = 0; i < threads; i++) {
        *tried += job[i].tried;
        if (job[i].z && !z) { /* the first walk's lift that lifted: several can, in the same chunk */
            z = job[i].z;
            *gf2 = job[i].gf2;
        } else {
            scheme_free(job[i].z);
            scheme_free(job[i].gf2);
        }
    }
    return z;
}

bool search_lift_survey(const scheme *start, int target, double seconds, uint64_t seed, int threads,
                        search_lift_tally *t)
{
    threads = walks_for(threads);
    lift_walk_job job[64];
    for (int i = 0; i < threads; i++)
        job[i] = (lift_walk_job){.start = start, .target = target, .seconds = seconds, .survey = true,
                                 .tally = {.keep = t->keep}};
    run_walks(job, threads, seed);
    const bool keep = t->keep;
    memset(t, 0, sizeof *t);
    t->keep = keep;
    for (int i = 0; i < threads; i++) {
        const search_lift_tally *u = &job[i].tally;
        t->met += job[i].tried;
        t->lifted += job[i].lifted;
        if (u->none && (!t->none || u->defect_min < t->defect_min ||
                        (u->defect_min == t->defect_min && u->defect_min_at < t->defect_min_at))) {
            t->defect_min = u->defect_min;
            t->defect_min_at = u->defect_min_at;
            scheme_free(t->closest);
            t->closest = u->closest;
        } else
            scheme_free(u->closest);
        if (u->defect_max > t->defect_max)
            t->defect_max = u->defect_max;
        t->defect_sum += u->defect_sum;
        t->none += u->none;
    }
    return t->met > 0;
}
