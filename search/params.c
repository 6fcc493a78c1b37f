/* Search parameters: defaults, range checks, and the "key=value" text that a
 * run record stores (so that a run can be resumed with the same parameters). */
#include "search.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void search_params_default(search_params *p)
{
    memset(p, 0, sizeof *p);
    p->fmt = (scheme_format){3, 3, 3};
    p->threads = 1;
    p->seed = 1;
    /* Walk defaults: measured on <3,3,3>, <4,4,4>, <2,4,5>, <3,4,5> (docs/search.md). */
    p->plateau = SEARCH_DEFAULT_PLATEAU;
    p->plateau_min = SEARCH_DEFAULT_PLATEAU_MIN;
    p->plateau_max = SEARCH_DEFAULT_PLATEAU_MAX;
    p->plus_max = SEARCH_DEFAULT_PLUS_MAX;
    p->walk_len = SEARCH_DEFAULT_WALK_LEN;
    p->walk_max = SEARCH_DEFAULT_WALK_MAX;
    p->gen_max = SEARCH_DEFAULT_GEN_MAX;
    p->isolated_plus = SEARCH_DEFAULT_ISOLATED_PLUS;
    p->pool_size = SEARCH_DEFAULT_POOL_SIZE;
    p->pool_min = SEARCH_DEFAULT_POOL_MIN;
    p->pool_up = SEARCH_DEFAULT_POOL_UP;
    p->pool_fresh = SEARCH_DEFAULT_POOL_FRESH;
    p->progress_every = 5;
    p->batch = 4096;
}

bool search_params_check(const search_params *p, char *err, size_t errlen)
{
    if (!scheme_format_valid(p->fmt))
        return scheme_fail(err, errlen, "format <%d,%d,%d>: each dimension >= 1 and n*m, m*p, p*n <= 64",
                           p->fmt.n, p->fmt.m, p->fmt.p);
    if (p->target_rank < 0 || p->target_rank > SCHEME_MAX_RANK)
        return scheme_fail(err, errlen, "target rank %d out of range", p->target_rank);
    if (!(p->time_limit >= 0))
        return scheme_fail(err, errlen, "time limit must be >= 0");
    if (p->threads < 1 || p->threads > 1024)
        return scheme_fail(err, errlen, "threads %d: expected 1..1024", p->threads);
    if (p->plateau < 1 || p->plateau_min < 1 || p->plateau_max < 1 ||
        p->plateau_min > p->plateau || p->plateau > p->plateau_max)
        return scheme_fail(err, errlen,
                           "plateau lengths: expected 1 <= plateau-min <= plateau <= plateau-max");
    if (p->plus_max < 0 || p->plus_max > 64)
        return scheme_fail(err, errlen, "plus-max %d: expected 0..64", p->plus_max);
    if (p->walk_len < 1 || p->walk_max < p->walk_len)
        return scheme_fail(err, errlen, "walk lengths: expected 1 <= walk-len <= walk-max");
    if (p->gen_max < 2 || p->gen_max > 32)
        return scheme_fail(err, errlen, "gen-max %d: expected 2..32", p->gen_max);
    if (p->isolated_plus != 0 && p->isolated_plus != 1)
        return scheme_fail(err, errlen, "isolated-plus %d: expected 0 or 1", p->isolated_plus);
    if (p->pool_size < 1 || p->pool_size > 1000000)
        return scheme_fail(err, errlen, "pool-size %d: expected 1..1000000", p->pool_size);
    if (p->pool_min < 1 || p->pool_min > p->pool_size)
        return scheme_fail(err, errlen, "pool-min %d: expected 1..pool-size", p->pool_min);
    if (!(p->pool_up >= 0 && p->pool_up < 1))
        return scheme_fail(err, errlen, "pool-up %g: expected 0 <= pool-up < 1", p->pool_up);
    if (!(p->pool_fresh >= 0 && p->pool_fresh <= 1))
        return scheme_fail(err, errlen, "pool-fresh %g: expected 0 <= pool-fresh <= 1", p->pool_fresh);
    if (!(p->progress_every >= 0))
        return scheme_fail(err, errlen, "progress interval must be >= 0");
    if (p->batch < 1 || p->batch > (1u << 30))
        return scheme_fail(err, errlen, "batch must be in 1..2^30");
    return true;
}

/* ---- text form ---- */

enum { T_INT, T_U64, T_DBL, T_FMT };
static const struct {
    const char *key;
    int type;
    size_t off;
} fields[] = {
    {"dims", T_FMT, offsetof(search_params, fmt)},
    {"target-rank", T_INT, offsetof(search_params, target_rank)},
    {"time", T_DBL, offsetof(search_params, time_limit)},
    {"max-flips", T_U64, offsetof(search_params, max_flips)},
    {"threads", T_INT, offsetof(search_params, threads)},
    {"seed", T_U64, offsetof(search_params, seed)},
    {"device", T_INT, offsetof(search_params, device)},
    {"plateau", T_U64, offsetof(search_params, plateau)},
    {"plateau-min", T_U64, offsetof(search_params, plateau_min)},
    {"plateau-max", T_U64, offsetof(search_params, plateau_max)},
    {"plus-max", T_INT, offsetof(search_params, plus_max)},
    {"walk-len", T_U64, offsetof(search_params, walk_len)},
    {"walk-max", T_U64, offsetof(search_params, walk_max)},
    {"gen-max", T_INT, offsetof(search_params, gen_max)},
    {"isolated-plus", T_INT, offsetof(search_params, isolated_plus)},
    {"pool-size", T_INT, offsetof(search_params, pool_size)},
    {"pool-min", T_INT, offsetof(search_params, pool_min)},
    {"pool-up", T_DBL, offsetof(search_params, pool_up)},
    {"pool-fresh", T_DBL, offsetof(search_params, pool_fresh)},
    {"progress", T_DBL, offsetof(search_params, progress_every)},
    {"batch", T_U64, offsetof(search_params, batch)},
};
#define NFIELDS (sizeof fields / sizeof *fields)

char *search_params_to_text(const search_params *p)
{
    size_t cap = 64 * NFIELDS, len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (size_t i = 0; i < NFIELDS; i++) {
        const void *v = (const char *)p + fields[i].off;
        int n = 0;
        switch (fields[i].type) {
        case T_INT: n = snprintf(buf + len, cap - len, "%s=%d\n", fields[i].key, *(const int *)v); break;
        case T_U64:
            n = snprintf(buf + len, cap - len, "%s=%" PRIu64 "\n", fields[i].key, *(const uint64_t *)v);
            break;
        case T_DBL: n = snprintf(buf + len, cap - len, "%s=%.17g\n", fields[i].key, *(const double *)v); break;
        case T_FMT: {
            const scheme_format *f = v;
            n = snprintf(buf + len, cap - len, "%s=%dx%dx%d\n", fields[i].key, f->n, f->m, f->p);
            break;
        }
        }
        len += (size_t)n;
    }
    return buf;
}

bool search_params_from_text(const char *text, search_params *p, char *err, size_t errlen)
{
    search_params q = *p;
    int line = 0;
    const char *s = text;
    while (*s) {
        line++;
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        char buf[256];
        if (n >= sizeof buf)
            return scheme_fail(err, errlen, "line %d: too long", line);
        memcpy(buf, s, n);
        buf[n] = 0;
        s += n + (eol ? 1 : 0);
        if (!buf[0])
            continue;
        char *eq = strchr(buf, '=');
        if (!eq)
            return scheme_fail(err, errlen, "line %d: expected key=value", line);
        *eq = 0;
        const char *val = eq + 1;
        size_t i;
        for (i = 0; i < NFIELDS; i++)
            if (!strcmp(buf, fields[i].key))
                break;
        if (i == NFIELDS)
            return scheme_fail(err, errlen, "line %d: unknown parameter '%s'", line, buf);
        void *v = (char *)&q + fields[i].off;
        char *end = NULL;
        errno = 0;
        switch (fields[i].type) {
        case T_INT: {
            long x = strtol(val, &end, 10);
            if (x < -2147483647L || x > 2147483647L)
                errno = ERANGE;
            *(int *)v = (int)x;
            break;
        }
        case T_U64: *(uint64_t *)v = strtoull(val, &end, 10); break;
        case T_DBL: *(double *)v = strtod(val, &end); break;
        case T_FMT:
            if (!scheme_format_parse(val, v, err, errlen))
                return false;
            end = (char *)val + strlen(val);
            break;
        }
        if (end == val || *end || errno)
            return scheme_fail(err, errlen, "line %d: bad value '%s' for %s", line, val, buf);
    }
    *p = q;
    return true;
}
