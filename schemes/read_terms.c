/* Terms as the readers collect them, and the scheme built from them at the end.
 *
 * The ring of a published file is known only once the whole file is read (a
 * single minus sign on the last line makes it an integer scheme), so terms are
 * kept with their integer coefficients until then.  Two checks wait for the
 * ring: a coefficient sum outside int8 is an error over Z only (over GF(2) only
 * its parity counts), and a factor is refused when it is zero in the scheme's
 * own ring.  An integer term whose factor is nonzero over Z but even (2*a11)
 * is kept: its GF(2) word is 0, so it adds nothing to any GF(2) equation, and
 * scheme_to_f2 drops it (docs/formats.md, "Integer terms that vanish mod 2"). */
#include "read_internal.h"

#include <stdlib.h>
#include <string.h>

void rd_terms_free(rd_terms *ts)
{
    free(ts->t);
    memset(ts, 0, sizeof *ts);
}

rd_term *rd_terms_add(rd_ctx *c, rd_terms *ts, size_t off)
{
    if (ts->n >= SCHEME_MAX_RANK) {
        rd_fail_plain(c, off, "more than %d terms (the limit SCHEME_MAX_RANK)", SCHEME_MAX_RANK);
        return NULL;
    }
    if (ts->n == ts->cap) {
        int cap = ts->cap ? ts->cap * 2 : 64;
        if (cap > SCHEME_MAX_RANK)
            cap = SCHEME_MAX_RANK;
        rd_term *t = realloc(ts->t, (size_t)cap * sizeof *t);
        if (!t) {
            rd_fail_plain(c, off, "out of memory");
            return NULL;
        }
        ts->t = t;
        ts->cap = cap;
    }
    rd_term *t = &ts->t[ts->n++];
    memset(t, 0, sizeof *t);
    t->off[0] = t->off[1] = t->off[2] = (uint32_t)off;
    return t;
}

static bool factor_is_zero(const int8_t *g, bool ring_z)
{
    for (int e = 0; e < RD_GRID; e++)
        if (ring_z ? g[e] != 0 : (g[e] & 1) != 0)
            return false;
    return true;
}

scheme *rd_terms_finish(rd_ctx *c, rd_terms *ts, scheme_format fmt, bool grid)
{
    static const char *const which[3] = {"first (a)", "second (b)", "third (c)"};
    if (ts->n == 0) {
        rd_fail_at(c, c->pos, "expected at least one term");
        return NULL;
    }
    if (ts->ring_z && ts->overflow) {
        rd_fail_plain(c, ts->overflow_off, "%s", ts->overflow_msg);
        return NULL;
    }
    for (int r = 0; r < ts->n; r++)
        for (int pos = 0; pos < 3; pos++)
            if (factor_is_zero(ts->t[r].g[pos], ts->ring_z)) {
                rd_fail_plain(c, ts->t[r].off[pos],
                              "the %s factor of this term is zero%s (its entries cancel); "
                              "every factor of a term must be nonzero",
                              which[pos], ts->ring_z ? "" : " mod 2");
                return NULL;
            }
    scheme_ring ring = ts->ring_z ? SCHEME_RING_Z : SCHEME_RING_F2;
    scheme *s = scheme_new(fmt, ring, ts->n);
    if (!s) {
        rd_fail_plain(c, 0, "out of memory");
        return NULL;
    }
    for (int r = 0; r < ts->n; r++) {
        scheme_zterm z;
        memset(&z, 0, sizeof z);
        for (int pos = 0; pos < 3; pos++) {
            int cols = scheme_factor_cols(fmt, pos), size = scheme_factor_size(fmt, pos);
            for (int e = 0; e < RD_GRID; e++) {
                int8_t v = ts->t[r].g[pos][e];
                if (!v)
                    continue;
                int bit = grid ? (e / RD_GRID_SIDE) * cols + e % RD_GRID_SIDE : e;
                /* The readers check every index against the format; this only guards. */
                if (bit < 0 || bit >= size || (grid && e % RD_GRID_SIDE >= cols)) {
                    scheme_free(s);
                    rd_fail_plain(c, ts->t[r].off[pos], "internal error: entry outside the format");
                    return NULL;
                }
                z.z[pos][bit] = ring == SCHEME_RING_Z ? v : (int8_t)(v & 1);
            }
        }
        bool ok;
        if (ring == SCHEME_RING_Z) {
            ok = scheme_push_z(s, &z);
        } else {
            uint64_t w[3] = {0, 0, 0};
            for (int pos = 0; pos < 3; pos++)
                for (int e = 0; e < SCHEME_MAX_ENTRIES; e++)
                    w[pos] |= (uint64_t)(z.z[pos][e] & 1) << e;
            ok = scheme_push(s, w[0], w[1], w[2]);
        }
        if (!ok) {
            scheme_free(s);
            rd_fail_plain(c, 0, "out of memory");
            return NULL;
        }
    }
    return s;
}
