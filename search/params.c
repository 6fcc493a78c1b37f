/* Search parameters: the table of search/params.def and everything made from
 * it (defaults, parsing, range checks, the run record's text, --help, the
 * docs table, the GPU's defaults).  A new parameter is a row there and a
 * field in search_params or search_gpu_options; nothing here changes. */
#include "search.h"
#include "walk_gpu.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU SEARCH_USE_CPU
#define GPU SEARCH_USE_GPU
#define BOTH SEARCH_USE_BOTH

static const search_param_info g_info[SEARCH_PARAM_COUNT] = {
#define PARAM(id, name, type, field, def, gdef, lo, hi, use, arg, expected, help) \
    [SEARCH_PARAM_##id] = {name, arg, expected, help, SEARCH_PT_##type, use, def, gdef, lo, hi},
#include "params.def"
#undef PARAM
};

/* Where each row's value lives in a search_config. */
static const size_t g_off[SEARCH_PARAM_COUNT] = {
#define PARAM(id, name, type, field, ...) [SEARCH_PARAM_##id] = offsetof(search_config, field),
#include "params.def"
#undef PARAM
};

#undef CPU
#undef GPU
#undef BOTH

const search_param_info *search_param(int id)
{
    return id >= 0 && id < SEARCH_PARAM_COUNT ? &g_info[id] : NULL;
}

int search_param_find(const char *name)
{
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++)
        if (!strcmp(g_info[i].name, name))
            return i;
    return -1;
}

const char *search_backend_name(search_backend b)
{
    return b == SEARCH_BACKEND_GPU ? "gpu" : b == SEARCH_BACKEND_AUTO ? "auto" : "cpu";
}

static void *field_of(search_config *c, int id) { return (char *)c + g_off[id]; }
static const void *cfield_of(const search_config *c, int id) { return (const char *)c + g_off[id]; }

/* A row that lives in search_params (the walk and stop parameters). */
static bool in_params(int id)
{
    return g_off[id] - offsetof(search_config, p) < sizeof(search_params); /* unsigned: below wraps */
}

static bool numeric(search_param_type t)
{
    return t == SEARCH_PT_INT || t == SEARCH_PT_U64 || t == SEARCH_PT_DBL || t == SEARCH_PT_DUR;
}

static uint64_t u64_bound(double x) { return x >= 1.8e19 ? UINT64_MAX : (uint64_t)x; }

static void put_number(void *v, search_param_type t, double x)
{
    switch (t) {
    case SEARCH_PT_INT: *(int *)v = (int)x; break;
    case SEARCH_PT_U64: *(uint64_t *)v = (uint64_t)x; break;
    case SEARCH_PT_DBL:
    case SEARCH_PT_DUR: *(double *)v = x; break;
    default: break;
    }
}

static double get_number(const void *v, search_param_type t)
{
    switch (t) {
    case SEARCH_PT_INT: return *(const int *)v;
    case SEARCH_PT_U64: return (double)*(const uint64_t *)v;
    case SEARCH_PT_DBL:
    case SEARCH_PT_DUR: return *(const double *)v;
    default: return 0;
    }
}

/* Whether a numeric value lies in the row's range (exactly, for 64-bit integers). */
static bool in_range(int id, const void *v)
{
    const search_param_info *r = &g_info[id];
    if (r->type == SEARCH_PT_U64) {
        uint64_t x = *(const uint64_t *)v;
        return x >= u64_bound(r->lo) && x <= u64_bound(r->hi);
    }
    double x = get_number(v, r->type);
    return x >= r->lo && x <= r->hi; /* false for NaN */
}

void search_params_default(search_params *p)
{
    search_config c;
    search_config_default(&c);
    *p = c.p;
}

void search_gpu_options_default(search_gpu_options *o)
{
    memset(o, 0, sizeof *o);
    o->mix_every = 4;
    o->store = 0; /* CUDA_WALK_STORE_AUTO */
    o->steps = 0;
    o->timed = true;
    o->check = 0;
    o->check_pairs = true;
    o->idle_plus = SEARCH_GPU_DEFAULT_IDLE_PLUS;
    o->gpu_defaults = true;
    search_config c;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++)
        if (!in_params(i) && numeric(g_info[i].type))
            put_number(field_of(&c, i), g_info[i].type, g_info[i].gpu_def);
    o->warps = c.gpu.warps;
    o->rounds = c.gpu.rounds;
    o->eager_gen = c.gpu.eager_gen;
    o->launch_ms = c.gpu.launch_ms;
}

void search_config_default(search_config *c)
{
    memset(c, 0, sizeof *c);
    search_gpu_options_default(&c->gpu);
    c->backend = SEARCH_BACKEND_CPU;
    c->p.fmt = (scheme_format){3, 3, 3};
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++)
        if (numeric(g_info[i].type))
            put_number(field_of(c, i), g_info[i].type, g_info[i].def);
}

/* The GPU's plateau bounds: --plateau unless given, so that the plateau stays
 * fixed (the measured 500 steps of docs/gpu-walk.md, "Defaults") until a bound
 * asks each walker to adapt it (the CPU's rule, search/driver.c; the warp walk
 * over GF(2) only). */
static void gpu_plateau_bounds(search_params *q, bool min_given, bool max_given)
{
    if (!min_given)
        q->plateau_min = q->plateau;
    if (!max_given)
        q->plateau_max = q->plateau;
}

/* The plateau bounds follow a plateau outside them (a --plateau alone means that
 * plateau); a plateau not given follows given bounds into their range (a bound
 * alone means that bound: --plateau-min 200000 --plateau-max 200000 fixes the
 * plateau there, whatever the backend's or the format's default); pool-min
 * stays within the pool. */
static void settle_orders(search_params *q, bool plateau_given, bool min_given, bool max_given,
                          bool pool_min_given)
{
    if (!plateau_given && min_given && q->plateau < q->plateau_min)
        q->plateau = q->plateau_min;
    if (!plateau_given && max_given && q->plateau > q->plateau_max)
        q->plateau = q->plateau_max;
    if (!min_given && q->plateau_min > q->plateau)
        q->plateau_min = q->plateau;
    if (!max_given && q->plateau_max < q->plateau)
        q->plateau_max = q->plateau;
    if (!pool_min_given && q->pool_min > q->pool_size)
        q->pool_min = q->pool_size;
}

void search_gpu_params(const search_params *p, const search_gpu_options *o, search_params *q)
{
    *q = *p;
    if (!o->gpu_defaults)
        return;
    search_config c;
    memset(&c, 0, sizeof c);
    c.p = *p;
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++) {
        const search_param_info *r = &g_info[i];
        if (!in_params(i) || !numeric(r->type) || r->def == r->gpu_def || !(r->use & SEARCH_USE_GPU))
            continue;
        if (get_number(field_of(&c, i), r->type) == r->def)
            put_number(field_of(&c, i), r->type, r->gpu_def);
    }
    /* bounds at the CPU's defaults count as not given, as the other rows do */
    gpu_plateau_bounds(&c.p, p->plateau_min != (uint64_t)g_info[SEARCH_PARAM_PLATEAU_MIN].def,
                       p->plateau_max != (uint64_t)g_info[SEARCH_PARAM_PLATEAU_MAX].def);
    settle_orders(&c.p, true, false, false, false);
    *q = c.p;
}

bool search_params_check(const search_params *p, char *err, size_t errlen)
{
    if (!scheme_format_valid(p->fmt))
        return scheme_fail(err, errlen, "format <%d,%d,%d>: each dimension >= 1 and n*m, m*p, p*n <= 64",
                           p->fmt.n, p->fmt.m, p->fmt.p);
    search_config c;
    memset(&c, 0, sizeof c);
    c.p = *p;
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++)
        if (in_params(i) && numeric(g_info[i].type) && !in_range(i, field_of(&c, i))) {
            char v[64];
            search_config_value(&c, i, v, sizeof v);
            return scheme_fail(err, errlen, "%s %s: expected %s", g_info[i].name, v, g_info[i].expected);
        }
    if (p->plateau_min > p->plateau || p->plateau > p->plateau_max)
        return scheme_fail(err, errlen,
                           "plateau lengths: expected plateau-min <= plateau <= plateau-max");
    if (p->walk_max < p->walk_len)
        return scheme_fail(err, errlen, "walk lengths: expected walk-len <= walk-max");
    if (p->pool_min > p->pool_size)
        return scheme_fail(err, errlen, "pool-min %d: expected 1..pool-size (%d)", p->pool_min, p->pool_size);
    if (p->islands > p->threads)
        return scheme_fail(err, errlen, "--islands %d: expected at most --threads (%d): every island needs a walker",
                           p->islands, p->threads);
    if (p->ring != SCHEME_RING_F2 && p->ring != SCHEME_RING_Z)
        return scheme_fail(err, errlen, "ring %d: expected f2 or z", p->ring);
    if (p->ring == SCHEME_RING_F2 && p->coef_max != 1)
        return scheme_fail(err, errlen, "--coef-max %d: only a walk over Z has coefficients to bound (give --ring z)",
                           p->coef_max);
    if (p->ring == SCHEME_RING_Z && p->symmetry != SCHEME_SYM_NONE && p->coef_max != 1)
        return scheme_fail(err, errlen, "--coef-max %d: a symmetric walk over Z walks over GF(2) and lifts, its "
                           "coefficients are what the lift gives (drop --coef-max)", p->coef_max);
    if (p->via_f2 > 0 && p->ring != SCHEME_RING_Z)
        return scheme_fail(err, errlen, "--via-f2: only a walk over Z can go by GF(2) (give --ring z)");
    if (p->via_f2 > 0 && p->coef_max != 1)
        return scheme_fail(err, errlen, "--coef-max %d: with --via-f2 the walk is over GF(2) and lifts, its "
                           "coefficients are what the lift gives (drop --coef-max)", p->coef_max);
    if (p->degree_bias > 0 && p->symmetry != SCHEME_SYM_NONE)
        return scheme_fail(err, errlen, "--degree-bias: only the plain walk has it, over GF(2) and over Z (drop "
                                        "--symmetry)");
    if (p->weight_bias_max > 0 && !(p->weight_bias_max > p->weight_bias))
        return scheme_fail(err, errlen, "--weight-bias-max %g: expected above --weight-bias %g (or 0: off)",
                           p->weight_bias_max, p->weight_bias);
    if ((p->weight_bias > 0 || p->weight_bias_max > 0) && p->symmetry == SCHEME_SYM_T2)
        return scheme_fail(err, errlen, "--weight-bias: the walk with --symmetry t2 does not have it (the plain "
                                        "walk and c3, c3xc2 do, over GF(2) and over Z)");
    if (p->plus_tabu && p->symmetry != SCHEME_SYM_NONE)
        return scheme_fail(err, errlen, "--plus-tabu: only the plain walk has it, over GF(2) and over Z (drop "
                                        "--symmetry)");
    if (p->plus_hold > 0 && ((p->symmetry == SCHEME_SYM_NONE && p->ring != SCHEME_RING_F2) ||
                             p->symmetry == SCHEME_SYM_T2 || (p->symmetry != SCHEME_SYM_NONE && p->gen_max > 1)))
        return scheme_fail(err, errlen, "--plus-hold: the plain walk over GF(2) and the c3 and c3xc2 walks with "
                                        "gen-max 1 have it (not the plain walk over Z, t2, or a reduction search)");
    if (p->lookahead > 0 && (p->ring != SCHEME_RING_F2 || p->symmetry != SCHEME_SYM_NONE))
        return scheme_fail(err, errlen, "--lookahead: only the plain walk over GF(2) has it (drop --ring z "
                                        "and --symmetry)");
    if (p->symmetry < SCHEME_SYM_NONE || p->symmetry > SCHEME_SYM_C3XC2S3)
        return scheme_fail(err, errlen, "symmetry %d: expected none, c3, c3xc2, c3xc2s1..c3xc2s3 or t2",
                           p->symmetry);
    if (p->symmetry != SCHEME_SYM_NONE) {
        char e[200];
        if (!scheme_symmetry_fits((scheme_symmetry)p->symmetry, p->fmt, e, sizeof e))
            return scheme_fail(err, errlen, "--%s", e);
        if (!search_cubes_check(&p->cubes, p->fmt.n, (scheme_symmetry)p->symmetry, err, errlen))
            return false;
    } else if (p->cubes.count) {
        /* Without symmetry the cubes rewrite the plain walk's start
         * (search_starts_prepare): c3's start, the standard algorithm's diagonal
         * terms as cubes, which add only in characteristic 2
         * (search_symmetric_start). */
        if (p->ring != SCHEME_RING_F2)
            return scheme_fail(err, errlen, "--cubes: the cubes rewrite the standard algorithm over GF(2) only (drop "
                                            "--ring z, or give --symmetry for a symmetric walk)");
        char e[200];
        if (!scheme_symmetry_fits(SCHEME_SYM_C3, p->fmt, e, sizeof e))
            return scheme_fail(err, errlen, "--cubes: the plain walk from cubes starts where a c3 walk would (%s)", e);
        if (!search_cubes_check(&p->cubes, p->fmt.n, SCHEME_SYM_C3, err, errlen))
            return false;
    }
    if (p->symmetry == SCHEME_SYM_NONE && p->gen_max < 2) {
        return scheme_fail(err, errlen,
                           "gen-max %d: expected 2..32 (1, no reduction search, is for symmetric walks)",
                           p->gen_max);
    }
    return true;
}

/* ---- values as text ---- */

bool search_parse_duration(const char *s, double *seconds)
{
    double total = 0;
    const char *q = s;
    if (!*q)
        return false;
    while (*q) {
        char *end;
        errno = 0;
        double v = strtod(q, &end);
        if (end == q || errno || !(v >= 0))
            return false;
        q = end;
        double unit = 1;
        if (*q == 's') q++;
        else if (*q == 'm') unit = 60, q++;
        else if (*q == 'h') unit = 3600, q++;
        else if (*q == 'd') unit = 86400, q++;
        else if (*q) return false;
        total += v * unit;
    }
    *seconds = total;
    return true;
}

static bool parse_devices(const char *s, search_gpu_options *g)
{
    int n = 0;
    int dev[SEARCH_GPU_MAX_DEVICES];
    const char *q = s;
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(q, &end, 10);
        if (end == q || errno || v < 0 || v > 255 || (*end && *end != ',') || n == SEARCH_GPU_MAX_DEVICES)
            return false;
        dev[n++] = (int)v;
        if (!*end)
            break;
        q = end + 1;
    }
    g->ndevices = n;
    memcpy(g->devices, dev, sizeof dev[0] * (size_t)n);
    return true;
}

bool search_config_set(search_config *c, int id, const char *value, char *err, size_t errlen)
{
    const search_param_info *r = search_param(id);
    if (!r)
        return scheme_fail(err, errlen, "no parameter %d", id);
    void *v = field_of(c, id);
    char *end = NULL;
    bool ok = *value != 0;
    errno = 0;
    switch (r->type) {
    case SEARCH_PT_INT: {
        long x = strtol(value, &end, 0);
        ok = ok && end && !*end && !errno && x >= r->lo && x <= r->hi;
        if (ok)
            *(int *)v = (int)x;
        break;
    }
    case SEARCH_PT_U64: {
        unsigned long long x = strtoull(value, &end, 0);
        ok = ok && value[0] != '-' && end && !*end && !errno;
        if (ok) {
            uint64_t y = x;
            ok = in_range(id, &y);
            if (ok)
                *(uint64_t *)v = y;
        }
        break;
    }
    case SEARCH_PT_DBL: {
        double x = strtod(value, &end);
        ok = ok && end && !*end && !errno && x >= r->lo && x <= r->hi;
        if (ok)
            *(double *)v = x;
        break;
    }
    case SEARCH_PT_DUR: {
        double x;
        ok = ok && search_parse_duration(value, &x) && x >= r->lo && x <= r->hi;
        if (ok)
            *(double *)v = x;
        break;
    }
    case SEARCH_PT_FMT: {
        scheme_format f;
        char e[128];
        ok = ok && scheme_format_parse(value, &f, e, sizeof e) && scheme_format_valid(f);
        if (ok)
            c->p.fmt = f;
        break;
    }
    case SEARCH_PT_BACKEND:
        if (!strcmp(value, "cpu")) c->backend = SEARCH_BACKEND_CPU;
        else if (!strcmp(value, "gpu")) c->backend = SEARCH_BACKEND_GPU;
        else if (!strcmp(value, "auto")) c->backend = SEARCH_BACKEND_AUTO;
        else ok = false;
        break;
    case SEARCH_PT_DEVLIST:
        ok = ok && parse_devices(value, &c->gpu);
        if (ok)
            c->p.device = c->gpu.devices[0];
        break;
    case SEARCH_PT_SYM: {
        scheme_symmetry g;
        ok = ok && scheme_symmetry_parse(value, &g);
        if (ok)
            c->p.symmetry = (int)g;
        break;
    }
    case SEARCH_PT_RING:
        if (!strcmp(value, "f2")) c->p.ring = SCHEME_RING_F2;
        else if (!strcmp(value, "z")) c->p.ring = SCHEME_RING_Z;
        else ok = false;
        break;
    case SEARCH_PT_CUBES:
        if (!strcmp(value, "default"))
            memset(&c->p.cubes, 0, sizeof c->p.cubes);
        else
            ok = ok && search_cubes_parse(value, &c->p.cubes);
        break;
    }
    if (!ok)
        return scheme_fail(err, errlen, "--%s %s: expected %s", r->name, value, r->expected);
    c->given[id] = true;
    return true;
}

void search_config_value(const search_config *c, int id, char *buf, size_t len)
{
    const search_param_info *r = search_param(id);
    if (!r || !len) {
        if (len)
            buf[0] = 0;
        return;
    }
    const void *v = cfield_of(c, id);
    switch (r->type) {
    case SEARCH_PT_INT: snprintf(buf, len, "%d", *(const int *)v); break;
    case SEARCH_PT_U64: snprintf(buf, len, "%" PRIu64, *(const uint64_t *)v); break;
    case SEARCH_PT_DBL:
    case SEARCH_PT_DUR: snprintf(buf, len, "%.17g", *(const double *)v); break;
    case SEARCH_PT_FMT: snprintf(buf, len, "%dx%dx%d", c->p.fmt.n, c->p.fmt.m, c->p.fmt.p); break;
    case SEARCH_PT_BACKEND: snprintf(buf, len, "%s", search_backend_name(c->backend)); break;
    case SEARCH_PT_DEVLIST: {
        size_t k = 0;
        buf[0] = 0;
        for (int i = 0; i < c->gpu.ndevices && k < len; i++)
            k += (size_t)snprintf(buf + k, len - k, "%s%d", i ? "," : "", c->gpu.devices[i]);
        if (!c->gpu.ndevices)
            snprintf(buf, len, "%d", c->p.device);
        break;
    }
    case SEARCH_PT_SYM: snprintf(buf, len, "%s", scheme_symmetry_name((scheme_symmetry)c->p.symmetry)); break;
    case SEARCH_PT_CUBES: search_cubes_text(&c->p.cubes, buf, len); break;
    case SEARCH_PT_RING: snprintf(buf, len, "%s", scheme_ring_key(c->p.ring)); break;
    }
}

bool search_config_differs(const search_config *c, int id, search_backend b)
{
    const search_param_info *r = search_param(id);
    if (!r)
        return false;
    if (!numeric(r->type)) {
        search_config d;
        search_config_default(&d);
        char x[128], y[128];
        search_config_value(c, id, x, sizeof x);
        search_config_value(&d, id, y, sizeof y);
        return strcmp(x, y) != 0;
    }
    double def = b == SEARCH_BACKEND_GPU ? r->gpu_def : r->def;
    if (r->type == SEARCH_PT_U64)
        return *(const uint64_t *)cfield_of(c, id) != u64_bound(def);
    return get_number(cfield_of(c, id), r->type) != def;
}

void search_config_copy(search_config *dst, const search_config *src, int id)
{
    const search_param_info *r = search_param(id);
    if (!r)
        return;
    switch (r->type) {
    case SEARCH_PT_INT: *(int *)field_of(dst, id) = *(const int *)cfield_of(src, id); break;
    case SEARCH_PT_U64: *(uint64_t *)field_of(dst, id) = *(const uint64_t *)cfield_of(src, id); break;
    case SEARCH_PT_DBL:
    case SEARCH_PT_DUR: *(double *)field_of(dst, id) = *(const double *)cfield_of(src, id); break;
    case SEARCH_PT_FMT: dst->p.fmt = src->p.fmt; break;
    case SEARCH_PT_BACKEND: dst->backend = src->backend; break;
    case SEARCH_PT_DEVLIST:
        dst->gpu.ndevices = src->gpu.ndevices;
        memcpy(dst->gpu.devices, src->gpu.devices, sizeof dst->gpu.devices);
        dst->p.device = src->p.device;
        break;
    case SEARCH_PT_SYM: dst->p.symmetry = src->p.symmetry; break;
    case SEARCH_PT_CUBES: dst->p.cubes = src->p.cubes; break;
    case SEARCH_PT_RING: dst->p.ring = src->p.ring; break;
    }
    dst->given[id] = src->given[id];
}

/* The symmetric walk's own defaults (docs/search.md, "Symmetric walks"):
 * those of Moosbauer, Poole 2025 and their program, in orbit flips (they
 * count 3 per orbit flip under c3, 6 under c3xc2): every walk starts over
 * from the start (pool-fresh 1) and ends walk-len flips after its last new
 * minimum, a plus transition comes after `plateau` flips without a reduction
 * and at once where no flip is left (isolated-plus 1), plus transitions up to
 * far above the walk's base (theirs: up to the start rank), and no reduction
 * search (gen-max 1: a flip that zeroes a factor reduces).  Walk and plateau
 * are their <5,5,5> settings (1e8 and 5e4 of their flips) up to n = 5 and
 * their <6,6,6> settings (1e9 and 5e5, under c3xc2) from n = 6.  Their <5,5,5>
 * walks end anywhere from 111 to 93, 93 about once in 30; so do these: 2
 * threads reached 93 in a median of 3 minutes where the pool's restarts and
 * eager reductions stayed at 96, and one H100 reached <6,6,6>:153 in 6
 * minutes with the n = 6 settings (bench/RESULTS.md).  From n = 7 they take a
 * weight bias too, not in this table (weight_bias_default).  Rows given win. */
static const struct {
    int id;
    double value, value6; /* n <= 5, n >= 6 */
} g_sym_defaults[] = {
    {SEARCH_PARAM_WALK_LEN, 33000000, 166666667},
    {SEARCH_PARAM_WALK_MAX, 33000000, 166666667},
    {SEARCH_PARAM_PLATEAU, 17000, 83333},
    {SEARCH_PARAM_PLATEAU_MIN, 17000, 83333},
    {SEARCH_PARAM_PLATEAU_MAX, 17000, 83333},
    {SEARCH_PARAM_PLUS_MAX, 64, 64},
    {SEARCH_PARAM_GEN_MAX, 1, 1},
    {SEARCH_PARAM_POOL_FRESH, 1, 1},
    {SEARCH_PARAM_ISOLATED_PLUS, 1, 1},
};

double search_param_symmetric_default(int id, int n, bool *has)
{
    for (size_t i = 0; i < sizeof g_sym_defaults / sizeof g_sym_defaults[0]; i++)
        if (g_sym_defaults[i].id == id) {
            *has = true;
            return n >= 6 ? g_sym_defaults[i].value6 : g_sym_defaults[i].value;
        }
    *has = false;
    return 0;
}

/* The walk over Z's own defaults, per backend (a negative value: the row
 * keeps the backend's default).
 * The GPU: plus transitions far rarer than the GF(2) warp walk's (a plateau of
 * 200000 steps, not 500), walks of 1e6 steps.  Over Z a walker that takes a
 * plus transition every few thousand steps wanders around its start and hardly
 * descends (one walker of this source on the CPU from the standard <4,4,5>: 79
 * after 2.3e7 flips with 2000, 71 after 3.0e7 with 200000); on one H200,
 * <4,4,4> from the standard algorithm reached the Z record 49 within 20 s (2
 * seeds) with these, 54 with the earlier 2000 and 50000, and <4,4,5> 64-65
 * where those stopped at 68 (bench/RESULTS.md, "The GPU walk over Z with rare
 * plus transitions").
 * The CPU, for the same reason: with the GF(2) walk's (an adaptive plateau of
 * 2000..200000 from 20000, walks of 1000 x luby(k)) a walker over Z restarts
 * from its pool's level long before it descends, and the level stays the
 * start's (16 schemes of a rank are rare there): a fixed plateau of 200000 and
 * walks of 1e7.  One thread each from the standard algorithm for 120 s, 16 at
 * a time on the 16 cores of the H200 host, seeds 1-3 (bench/RESULTS.md, "The
 * CPU walk over Z's own defaults"): <4,4,5> 68, 67, 68 against 77, 78, 78;
 * <3,4,5> 50, 51, 52 against 57, 57, 57; <3,3,5> 36, 36, 38 against 36, 39,
 * 38; walks of 1e7 with the adaptive plateau and the GPU's pair each within a
 * rank of these.  Rows given win. */
static const struct {
    int id;
    double cpu, gpu;
} g_z_defaults[] = {
    {SEARCH_PARAM_PLATEAU, 200000, 200000},
    {SEARCH_PARAM_PLATEAU_MIN, 200000, -1},
    {SEARCH_PARAM_PLATEAU_MAX, 200000, -1},
    {SEARCH_PARAM_WALK_LEN, 10000000, 1000000},
};

bool search_param_z_default(int id, search_backend b, double *v)
{
    for (size_t i = 0; i < sizeof g_z_defaults / sizeof g_z_defaults[0]; i++)
        if (g_z_defaults[i].id == id) {
            *v = b == SEARCH_BACKEND_GPU ? g_z_defaults[i].gpu : g_z_defaults[i].cpu;
            return *v >= 0;
        }
    return false;
}

bool search_config_z_own(const search_config *c, search_backend b)
{
    return (b == SEARCH_BACKEND_CPU || b == SEARCH_BACKEND_GPU) && c->p.symmetry == SCHEME_SYM_NONE &&
           search_z_not_via_f2(&c->p);
}

/* The plain walk over GF(2) on a large format (n m p >= 150), per backend
 * (a negative value: the row keeps the backend's default).
 * The CPU: the weight bias and long walks (pool-min by band, below).  One
 * thread, 120 s (bench/RESULTS.md, "The walk unit per format"): <6,6,6> 184
 * where the other defaults stay at 214; the bias alone or long walks alone do
 * not do it (213; 215-216).  Not on <5,5,5> (125): 103, 102 against 106, 108 in
 * 120 s, but over 20 minutes 102 against 100; <4,5,5> (100) 82, 82 against 77,
 * 78; on <4,4,5> the bias is worse than none (docs/search.md, "The weight bias").
 * The GPU: the bias and a plateau of 200000 steps (its walks of 1e6 stay; walks
 * of 1e7 and 1e8 were slower).  One H200, <6,6,6>: B = 0.2 183 at 60 s against
 * 202 without (B = 0.25 one and two ranks worse on <5,5,5> and <4,5,5>); the
 * plateau of 200000 181 against 184 at 60 s, 178 in 16.7 minutes against 181
 * in 18 (bench/RESULTS.md, "The weight bias side by side on one H200" and "The
 * plateau on <6,6,6> on one H200"). */
static const struct {
    int id;
    double cpu, gpu;
    int lo, hi; /* the row holds for lo <= n m p < hi (hi 0: no bound) */
} g_large_defaults[] = {
    {SEARCH_PARAM_WEIGHT_BIAS, 0.2, 0.2, SEARCH_LARGE_FORMAT, 0},
    {SEARCH_PARAM_WALK_LEN, 100000000, -1, SEARCH_LARGE_FORMAT, 0},
    /* pool-min by band (thirty-fifth and thirty-sixth sessions, one thread each,
     * bench/RESULTS.md): 4 ahead of 1 on <5,5,6> (150) on three seeds of three
     * (120, 123, 120 against 124, 125, 123 at 15-18 minutes) and on <5,6,6> (180)
     * on two of two (147 against 151 at 12 minutes, 148 against 154 at 20), and
     * after the change <5,5,7> (175) 145 against 154 (seed 1, 20 minutes); 1
     * ahead on <6,6,6> (216) on two seeds of three (179, 177, 183 against 182,
     * 180, 181 at 20 minutes). */
    {SEARCH_PARAM_POOL_MIN, 4, -1, SEARCH_LARGE_FORMAT, 216},
    {SEARCH_PARAM_POOL_MIN, 1, -1, 216, 0},
    {SEARCH_PARAM_PLATEAU, -1, 200000, SEARCH_LARGE_FORMAT, 0},
};

bool search_param_large_default(int id, search_backend b, scheme_format f, double *v)
{
    const int nmp = f.n * f.m * f.p;
    for (size_t i = 0; i < sizeof g_large_defaults / sizeof g_large_defaults[0]; i++)
        if (g_large_defaults[i].id == id && nmp >= g_large_defaults[i].lo &&
            (!g_large_defaults[i].hi || nmp < g_large_defaults[i].hi)) {
            *v = b == SEARCH_BACKEND_GPU ? g_large_defaults[i].gpu : g_large_defaults[i].cpu;
            return *v >= 0;
        }
    return false;
}

bool search_config_large(const search_config *c, search_backend b)
{
    return (b == SEARCH_BACKEND_CPU || b == SEARCH_BACKEND_GPU) && c->p.symmetry == SCHEME_SYM_NONE &&
           c->p.ring == SCHEME_RING_F2 && search_large_format(c->p.fmt);
}

bool search_gpu_z_accepts(const search_params *p, char *err, size_t errlen)
{
    if (p->coef_max != 1)
        return scheme_fail(err, errlen,
                           "--coef-max %d: the GPU walk over Z holds coefficients in {-1, 0, 1} (--coef-max 1); "
                           "larger bounds walk on the CPU (--backend cpu)",
                           p->coef_max);
    if (p->degree_bias > 0)
        return scheme_fail(err, errlen, "--degree-bias: the GPU walk over Z does not have it (the CPU walk over Z "
                                        "does: --backend cpu; the GPU walk over GF(2) does)");
    return true;
}

/* The weight bias rows' rules, each stated once (docs/search.md, "The
 * weight bias"); true with *v where one sets row id, false where the tables
 * decide.
 * - A window asked for (--weight-bias-max given, --weight-bias not) starts at
 *   0, on every walk: the window is the user's.
 * - Symmetric walks from n = 7 (c3 and c3xc2, not t2, which has no bias; ours,
 *   not the paper's) spread the window 0.05..0.2 over their walkers, and a lone
 *   walker (one CPU thread, where a window is its lower end) walks 0.1; a bias
 *   given alone keeps one bias.  On <7,7,7> c3xc2 from the default cubes, one
 *   thread each for 120 s, three seeds: B = 0.1 285, 297, 291 against 315, 321,
 *   303 without (medians: 0.05 309, 0.15 303, 0.2 297); two threads for 21
 *   minutes on the H200 host, seeds 2-4: the window 285, 285, 279 against 291,
 *   291, 291 at 0.1; the GPU, one seed: the window 291, 0.1 297, none 309
 *   (bench/RESULTS.md, "The weight bias on <7,7,7>" and "The bias window on
 *   <7,7,7>").  Up to n = 6 no bias: on <6,6,6> 0.1 did not help. */
static bool weight_bias_default(const search_config *c, search_backend b, int id, double *v)
{
    const bool sym7 = c->p.symmetry != SCHEME_SYM_NONE && c->p.symmetry != SCHEME_SYM_T2 && c->p.fmt.n >= 7;
    const bool lone = b == SEARCH_BACKEND_CPU && (!c->given[SEARCH_PARAM_THREADS] || c->p.threads < 2);
    if (id == SEARCH_PARAM_WEIGHT_BIAS && (c->given[SEARCH_PARAM_WEIGHT_BIAS_MAX] || sym7)) {
        *v = c->given[SEARCH_PARAM_WEIGHT_BIAS_MAX] ? 0 : lone ? 0.1 : 0.05;
        return true;
    }
    if (id == SEARCH_PARAM_WEIGHT_BIAS_MAX && sym7 && !c->given[SEARCH_PARAM_WEIGHT_BIAS]) {
        *v = lone ? 0 : 0.2;
        return true;
    }
    return false;
}

bool search_config_resolve(search_config *c, search_backend b, char *err, size_t errlen)
{
    unsigned use = b == SEARCH_BACKEND_GPU ? SEARCH_USE_GPU : SEARCH_USE_CPU;
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++) {
        const search_param_info *r = &g_info[i];
        if (c->given[i] && !(r->use & use))
            return scheme_fail(err, errlen, "--%s: the %s backend does not use it (%s only)", r->name,
                               search_backend_name(b), r->use & SEARCH_USE_GPU ? "GPU" : "CPU");
        if (!c->given[i] && numeric(r->type)) {
            bool sym;
            double sd = search_param_symmetric_default(i, c->p.fmt.n, &sym);
            double bd, zd, ld;
            /* the bias rules first (weight_bias_default); then a symmetric
             * walk's own defaults, on either backend; then the walk over Z's,
             * per backend; then the CPU's on a large format */
            if (weight_bias_default(c, b, i, &bd))
                put_number(field_of(c, i), r->type, bd);
            else if (sym && c->p.symmetry != SCHEME_SYM_NONE)
                put_number(field_of(c, i), r->type, sd);
            else if (search_config_z_own(c, b) && search_param_z_default(i, b, &zd))
                put_number(field_of(c, i), r->type, zd);
            else if (search_config_large(c, b) && search_param_large_default(i, b, c->p.fmt, &ld))
                put_number(field_of(c, i), r->type, ld);
            else
                put_number(field_of(c, i), r->type, b == SEARCH_BACKEND_GPU ? r->gpu_def : r->def);
        }
    }
    if (b == SEARCH_BACKEND_GPU && search_z_not_via_f2(&c->p) && !search_gpu_z_accepts(&c->p, err, errlen))
        return false;
    if (b == SEARCH_BACKEND_GPU && search_z_not_via_f2(&c->p) && c->given[SEARCH_PARAM_ROUNDS])
        return scheme_fail(err, errlen, "--rounds: the GPU walk over Z does not use it (its kernels take no rounds)");
    if (b == SEARCH_BACKEND_GPU && c->p.symmetry != SCHEME_SYM_NONE && c->given[SEARCH_PARAM_ROUNDS])
        return scheme_fail(err, errlen, "--rounds: the symmetric GPU walk does not use it (one walker per warp or per thread)");
    if (b == SEARCH_BACKEND_GPU && c->p.plus_hold > 0 && !search_gpu_walks_warp(&c->p))
        return scheme_fail(err, errlen,
                           "--plus-hold: the %s GPU walk does not have it (the plain walk over GF(2) does on the GPU; "
                           "c3 and c3xc2 with gen-max 1 on the CPU: --backend cpu)",
                           c->p.symmetry != SCHEME_SYM_NONE ? "symmetric" : "Z");
    if (b == SEARCH_BACKEND_GPU && c->given[SEARCH_PARAM_EAGER_GEN] && !search_gpu_walks_warp(&c->p))
        return scheme_fail(err, errlen,
                           "--eager-gen: the %s GPU walk does not use it (the plain walk over GF(2) does; "
                           "every CPU walker reduces at once)",
                           c->p.symmetry != SCHEME_SYM_NONE ? "symmetric" : "Z");
    static const int bounds[2] = {SEARCH_PARAM_PLATEAU_MIN, SEARCH_PARAM_PLATEAU_MAX};
    for (int k = 0; k < 2; k++) {
        const int id = bounds[k];
        if (b == SEARCH_BACKEND_GPU && c->given[id] && !search_gpu_walks_warp(&c->p))
            return scheme_fail(err, errlen,
                               "--%s: the %s GPU walk keeps its plateau fixed (--plateau); the plain walk "
                               "over GF(2) adapts it on the GPU, every walk on the CPU",
                               g_info[id].name, c->p.symmetry != SCHEME_SYM_NONE ? "symmetric" : "Z");
    }
    if (b == SEARCH_BACKEND_GPU && c->given[SEARCH_PARAM_SIBLINGS] && !search_gpu_walks_warp(&c->p))
        return scheme_fail(err, errlen,
                           "--siblings: the %s GPU walk brings its own schemes home (the plain walk over GF(2) "
                           "takes --siblings on the GPU, every walk on the CPU)",
                           c->p.symmetry != SCHEME_SYM_NONE ? "symmetric" : "Z");
    if (b == SEARCH_BACKEND_GPU)
        gpu_plateau_bounds(&c->p, c->given[SEARCH_PARAM_PLATEAU_MIN], c->given[SEARCH_PARAM_PLATEAU_MAX]);
    if (!c->given[SEARCH_PARAM_DEVICES])
        c->gpu.ndevices = 0;
    if (c->given[SEARCH_PARAM_DEVICES] && c->given[SEARCH_PARAM_DEVICE] &&
        c->p.device != c->gpu.devices[0])
        return scheme_fail(err, errlen, "--device %d and --devices: give one of them", c->p.device);
    if (c->given[SEARCH_PARAM_DEVICES])
        c->p.device = c->gpu.devices[0];
    settle_orders(&c->p, c->given[SEARCH_PARAM_PLATEAU], c->given[SEARCH_PARAM_PLATEAU_MIN],
                  c->given[SEARCH_PARAM_PLATEAU_MAX], c->given[SEARCH_PARAM_POOL_MIN]);
    /* a default walk length (the walk over Z's, a large format's) stays within a given cap */
    if (!c->given[SEARCH_PARAM_WALK_LEN] && c->given[SEARCH_PARAM_WALK_MAX] && c->p.walk_len > c->p.walk_max)
        c->p.walk_len = c->p.walk_max;
    c->backend = b;
    c->gpu.gpu_defaults = false;
    return search_params_check(&c->p, err, errlen);
}

bool search_config_beside(const search_config *c, search_params *q, char *err, size_t errlen)
{
    search_config cc = *c;
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++)
        if (!(g_info[i].use & SEARCH_USE_CPU))
            cc.given[i] = false; /* the GPU's own rows: the CPU walkers do not read them */
    /* the walkers beside are the CPU's threads: rows that depend on how many
     * there are (weight_bias_default) read them */
    cc.p.threads = c->p.host_threads > 0 ? c->p.host_threads : 1;
    cc.given[SEARCH_PARAM_THREADS] = true;
    if (!search_config_resolve(&cc, SEARCH_BACKEND_CPU, err, errlen))
        return false;
    cc.p.threads = c->p.host_threads;
    cc.p.host_threads = 0;
    cc.p.max_flips = 0; /* the run's budget counts every walker's flips (the engine stops it) */
    *q = cc.p;
    return true;
}

/* ---- the run record ---- */

typedef struct strbuf {
    char *s;
    size_t len, cap;
    bool failed;
} strbuf;

static void sb_add(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(strbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = true;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap ? b->cap * 2 : 1024) + (size_t)n;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

static char *sb_done(strbuf *b)
{
    if (b->failed || !b->s) {
        free(b->s);
        return NULL;
    }
    return b->s;
}

static unsigned backend_use(search_backend b)
{
    return b == SEARCH_BACKEND_GPU ? SEARCH_USE_GPU : b == SEARCH_BACKEND_CPU ? SEARCH_USE_CPU : SEARCH_USE_BOTH;
}

char *search_config_to_text(const search_config *c)
{
    strbuf b = {0};
    unsigned use = backend_use(c->backend);
    char v[256];
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++) {
        if (!(g_info[i].use & use) || (i == SEARCH_PARAM_DEVICES && !c->gpu.ndevices))
            continue;
        search_config_value(c, i, v, sizeof v);
        sb_add(&b, "%s=%s\n", g_info[i].name, v);
    }
    sb_add(&b, "given=");
    for (int i = 0, k = 0; i < SEARCH_PARAM_COUNT; i++)
        if (c->given[i] && i != SEARCH_PARAM_BACKEND)
            sb_add(&b, "%s%s", k++ ? "," : "", g_info[i].name);
    sb_add(&b, "\n");
    return sb_done(&b);
}

bool search_config_from_text(const char *text, search_config *c, char *err, size_t errlen)
{
    search_config q = *c;
    bool read[SEARCH_PARAM_COUNT] = {0};
    bool have_given = false, have_backend = false;
    bool given_list[SEARCH_PARAM_COUNT] = {0};
    int line = 0;
    const char *s = text;
    while (*s) {
        line++;
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        char buf[1024];
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
        if (!strcmp(buf, "given")) {
            have_given = true;
            char list[1024];
            snprintf(list, sizeof list, "%s", val);
            for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int id = search_param_find(t);
                if (id < 0)
                    return scheme_fail(err, errlen, "line %d: unknown parameter '%s' in given", line, t);
                given_list[id] = true;
            }
            continue;
        }
        int id = search_param_find(buf);
        if (id < 0)
            return scheme_fail(err, errlen, "line %d: unknown parameter '%s'", line, buf);
        char e[256];
        if (!search_config_set(&q, id, val, e, sizeof e))
            return scheme_fail(err, errlen, "line %d: %s", line, e);
        read[id] = true;
        if (id == SEARCH_PARAM_BACKEND)
            have_backend = true;
    }
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++) {
        if (!read[i])
            continue;
        if (have_given)
            q.given[i] = given_list[i] || i == SEARCH_PARAM_BACKEND;
        else if (!have_backend) /* a record from before the table: defaults were written out */
            q.given[i] = search_config_differs(&q, i, SEARCH_BACKEND_CPU);
        else
            q.given[i] = true;
    }
    *c = q;
    return true;
}

/* ---- --help and the docs table ---- */

static void default_text(int id, bool gpu, char *buf, size_t len)
{
    const search_param_info *r = &g_info[id];
    double x = gpu ? r->gpu_def : r->def;
    switch (r->type) {
    case SEARCH_PT_FMT: snprintf(buf, len, "-"); break;
    case SEARCH_PT_BACKEND: snprintf(buf, len, "cpu"); break;
    case SEARCH_PT_DEVLIST: snprintf(buf, len, "the --device"); break;
    case SEARCH_PT_SYM: snprintf(buf, len, "none"); break;
    case SEARCH_PT_CUBES: snprintf(buf, len, "mirror pairs"); break;
    case SEARCH_PT_RING: snprintf(buf, len, "f2"); break;
    case SEARCH_PT_DUR: snprintf(buf, len, x == 0 ? "none" : "%gs", x); break;
    default:
        if (x == 0 && (strstr(r->expected, "(0: none)") || id == SEARCH_PARAM_TARGET_RANK))
            snprintf(buf, len, "none");
        else if (x >= 1e6 && x == floor(x) && fmod(x, 1e6) == 0)
            snprintf(buf, len, "%ge%d", x / pow(10, floor(log10(x))), (int)floor(log10(x)));
        else
            snprintf(buf, len, "%g", x);
    }
}

char *search_config_help(unsigned use, uint64_t exclude)
{
    strbuf b = {0};
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++) {
        const search_param_info *r = &g_info[i];
        if (!(r->use & use) || (exclude >> i & 1))
            continue;
        char left[64], d[32], gd[32];
        snprintf(left, sizeof left, "--%s %s", r->name, r->arg);
        default_text(i, false, d, sizeof d);
        default_text(i, true, gd, sizeof gd);
        char tail[128];
        if (r->type == SEARCH_PT_FMT)
            snprintf(tail, sizeof tail, "%s", r->use == SEARCH_USE_BOTH ? "" : r->use == SEARCH_USE_CPU ? " [CPU]" : " [GPU]");
        else
            snprintf(tail, sizeof tail, " (default %s%s%s%s)", r->use & SEARCH_USE_CPU ? d : gd,
                     (r->use == SEARCH_USE_BOTH && strcmp(d, gd)) ? "; GPU " : "",
                     (r->use == SEARCH_USE_BOTH && strcmp(d, gd)) ? gd : "",
                     r->use == SEARCH_USE_BOTH ? "" : r->use == SEARCH_USE_CPU ? "; CPU only" : "; GPU only");
        /* the help wrapped to 80 columns after a 22-column option */
        char text[768];
        snprintf(text, sizeof text, "%s%s", r->help, tail);
        sb_add(&b, "  %-19s", left);
        if (strlen(left) > 19)
            sb_add(&b, "\n%21s", "");
        int col = 22;
        const char *w = text;
        while (*w) {
            size_t wl = strcspn(w, " ");
            if (col + 1 + (int)wl > 92 && col > 22) {
                sb_add(&b, "\n%21s", "");
                col = 22;
            }
            sb_add(&b, " %.*s", (int)wl, w);
            col += 1 + (int)wl;
            w += wl;
            while (*w == ' ')
                w++;
        }
        sb_add(&b, "\n");
    }
    return sb_done(&b);
}

char *search_config_markdown(void)
{
    strbuf b = {0};
    sb_add(&b, "| option | default | GPU default | backends | range | meaning |\n");
    sb_add(&b, "| --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < SEARCH_PARAM_COUNT; i++) {
        const search_param_info *r = &g_info[i];
        char d[32], gd[32];
        default_text(i, false, d, sizeof d);
        default_text(i, true, gd, sizeof gd);
        const char *use = r->use == SEARCH_USE_BOTH ? "cpu, gpu" : r->use == SEARCH_USE_CPU ? "cpu" : "gpu";
        sb_add(&b, "| `--%s %s` | %s | %s | %s | %s | %s |\n", r->name, r->arg,
               r->use & SEARCH_USE_CPU ? d : "-", r->use & SEARCH_USE_GPU ? gd : "-", use, r->expected,
               r->help);
    }
    return sb_done(&b);
}
