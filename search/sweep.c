/* The sweep's state (session.h, "the sweep"; docs/report.md, "sweep"): where
 * each format of a `flipgraph sweep` starts, and each format's best so far
 * for the --meta starts of the ones after it.  The command parses and prints;
 * the decisions are here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

/* The store's formats outside the list that join --meta's sums and products
 * (session_outside_bests): more than any store we keep has below 7x7x7. */
enum { SWEEP_OUTSIDE_MAX = 64 };

struct session_sweep {
    search_session *ss;
    const scheme_format *list;
    int n;
    session_sweep_options o;
    /* --meta's known schemes: bests[i] the best so far of list[i] (NULL:
     * none), then bests[n..n+nout) the store's bests outside the list */
    scheme **bests;
    int nout;
};

session_sweep *session_sweep_new(search_session *ss, const scheme_format *list, int n,
                                 const session_sweep_options *o, db_status *st, char *err, size_t errlen)
{
    *st = DB_OK;
    session_sweep *sw = calloc(1, sizeof *sw);
    if (sw)
        sw->bests = calloc((size_t)n + SWEEP_OUTSIDE_MAX, sizeof *sw->bests);
    if (!sw || !sw->bests) {
        free(sw);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    sw->ss = ss;
    sw->list = list;
    sw->n = n;
    sw->o = *o;
    if (!o->meta || !o->from_db)
        return sw;
    /* as in search --meta: over GF(2) the store's smaller formats outside the
     * list count for sums and products (a <4,4,7> from <4,4,4> + <4,4,3>) */
    if (o->ring == SCHEME_RING_F2)
        sw->nout = session_outside_bests(ss, list, n, sw->bests + n, SWEEP_OUTSIDE_MAX);
    /* the store's best of every format of the list is a best so far from the
     * first round, as search --meta's pools start from the store (a
     * <6,6,6>:153 imported before the sweep serves <5,6,6>, which comes
     * before it in the list) */
    for (int i = 0; i < n; i++) {
        char e[512];
        const db_status s =
            session_best_start(ss, list[i], o->ring, o->start_coef_max, o->strict, &sw->bests[i], e, sizeof e);
        if (s == DB_NOT_FOUND) {
            sw->bests[i] = NULL;
        } else if (s != DB_OK) {
            char fb[32];
            snprintf(err, errlen, "%s: --from-db: %s", scheme_format_str(list[i], fb), e);
            *st = s;
            session_sweep_free(sw);
            return NULL;
        }
    }
    return sw;
}

void session_sweep_free(session_sweep *sw)
{
    if (!sw)
        return;
    for (int i = 0; i < sw->n + sw->nout; i++)
        scheme_free(sw->bests[i]);
    free(sw->bests);
    free(sw);
}

/* The words of a meta start from bests[j] (and bests[j2] for a sum or product) to list[i]. */
static void meta_words(const session_sweep *sw, int i, int j, int j2, search_meta_how how, char *out, size_t len)
{
    char fj[32], fj2[32];
    const scheme_format to = sw->list[i], fmt_j = j < sw->n ? sw->list[j] : sw->bests[j]->fmt;
    if (j2 >= 0)
        snprintf(out, len, "%s's best %s %s's best", scheme_format_str(fmt_j, fj),
                 how == SEARCH_META_SUM ? "plus" : "times",
                 scheme_format_str(j2 < sw->n ? sw->list[j2] : sw->bests[j2]->fmt, fj2));
    else if (j == i)
        snprintf(out, len, "its own best so far");
    else
        snprintf(out, len, "%s's best, %s", scheme_format_str(fmt_j, fj),
                 fmt_j.n * fmt_j.m * fmt_j.p > to.n * to.m * to.p ? "projected" : "extended");
}

db_status session_sweep_start(session_sweep *sw, int i, scheme_symmetry g, session_sweep_begin *b, char *err,
                              size_t errlen)
{
    memset(b, 0, sizeof *b);
    snprintf(b->from, sizeof b->from, "the standard algorithm");
    const scheme_format f = sw->list[i];
    if (g != SCHEME_SYM_NONE) { /* the walk starts from its cubes: no other start */
        snprintf(b->from, sizeof b->from, "its diagonal cubes, %s", scheme_symmetry_name(g));
        return DB_OK;
    }
    if (sw->o.from_db) {
        const db_status st =
            session_best_start(sw->ss, f, sw->o.ring, sw->o.start_coef_max, sw->o.strict, &b->start, err, errlen);
        if (st == DB_OK)
            snprintf(b->from, sizeof b->from, "the database's best");
        else if (st != DB_NOT_FOUND)
            return st;
    }
    if (!sw->o.meta)
        return DB_OK;
    int j, j2;
    search_meta_how how;
    scheme *m = search_meta_start_reach(f, (const scheme *const *)sw->bests, sw->n + sw->nout, sw->n,
                                        sw->o.meta_reach, &j, &j2, &how);
    const int usual = b->start ? b->start->rank : f.n * f.m * f.p;
    if (!m || m->rank >= usual) {
        scheme_free(m);
        return DB_OK;
    }
    scheme_free(b->start);
    b->start = m;
    b->moved = j != i;
    db *d = session_store(sw->ss);
    char e[256];
    if (d && b->moved && db_find_scheme(d, sw->bests[j], &b->meta_parent, e, sizeof e) != DB_OK)
        b->meta_parent = 0; /* not stored (a best of this sweep's walk without a store row): no parent */
    meta_words(sw, i, j, j2, how, b->from, sizeof b->from);
    return DB_OK;
}

bool session_sweep_keep(session_sweep *sw, int i, const scheme *best)
{
    if (!best || (sw->bests[i] && sw->bests[i]->rank <= best->rank))
        return true;
    scheme *c = scheme_clone(best);
    if (!c)
        return false;
    scheme_free(sw->bests[i]);
    sw->bests[i] = c;
    return true;
}

session_sweep_outcome session_sweep_outcome_of(search_status st, bool interrupted, int best, int record,
                                               bool stalled)
{
    if (st == SEARCH_BAD_PARAMS || st == SEARCH_FAILED)
        return SESSION_SWEEP_FAILED;
    if (interrupted)
        return SESSION_SWEEP_INTERRUPTED;
    if (best <= 0)
        return SESSION_SWEEP_NONE_LIFTED;
    if (record > 0 && best < record)
        return SESSION_SWEEP_BELOW;
    if (record > 0 && best == record)
        return SESSION_SWEEP_REACHED;
    return stalled ? SESSION_SWEEP_STALLED : SESSION_SWEEP_TIME_UP;
}

const char *session_sweep_outcome_name(session_sweep_outcome o)
{
    switch (o) {
    case SESSION_SWEEP_FAILED:
        return "failed";
    case SESSION_SWEEP_INTERRUPTED:
        return "interrupted";
    case SESSION_SWEEP_NONE_LIFTED:
        return "none lifted";
    case SESSION_SWEEP_BELOW:
        return "BELOW THE RECORD";
    case SESSION_SWEEP_REACHED:
        return "record reached";
    case SESSION_SWEEP_STALLED:
        return "stalled";
    case SESSION_SWEEP_TIME_UP:
        return "time up";
    }
    return "failed";
}
