/* Schemes in and out of their stored form: shape checks, verification,
 * canonical bytes (scheme_canonical_bytes) and decoding them back.
 *
 * The stored blob is exactly scheme_canonical_bytes: an 8-byte header
 * (n, m, p, ring, rank as big-endian 32 bits), then per term the three words
 * big-endian, and over Z the 3 x 64 coefficient bytes.  Decoding checks every
 * byte of it, so a damaged row is reported, never trusted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../verify/verify.h"
#include "db_internal.h"

static uint64_t factor_mask(scheme_format f, int pos)
{
    int size = scheme_factor_size(f, pos);
    return size >= 64 ? ~0ull : (1ull << size) - 1;
}

/* The shape of a scheme: what verification does not look at but storing
 * relies on (the hash must not depend on bits outside the factors). */
static bool check_shape(const scheme *s, char *msg, size_t msglen)
{
    char fb[32];
    if (!scheme_format_valid(s->fmt))
        return scheme_fail(msg, msglen, "format %dx%dx%d is not a valid format", s->fmt.n,
                           s->fmt.m, s->fmt.p);
    if (s->ring != SCHEME_RING_F2 && s->ring != SCHEME_RING_Z)
        return scheme_fail(msg, msglen, "unknown ring %d", (int)s->ring);
    if (s->rank < 1 || s->rank > SCHEME_MAX_RANK)
        return scheme_fail(msg, msglen, "rank %d outside 1..%d", s->rank, SCHEME_MAX_RANK);
    if (!s->terms || (s->ring == SCHEME_RING_Z && !s->zterms))
        return scheme_fail(msg, msglen, "scheme without its terms");
    static const char pos_name[3] = {'a', 'b', 'c'};
    for (int r = 0; r < s->rank; r++) {
        const scheme_term *t = &s->terms[r];
        for (int pos = 0; pos < 3; pos++) {
            int size = scheme_factor_size(s->fmt, pos);
            if (t->f[pos] & ~factor_mask(s->fmt, pos))
                return scheme_fail(msg, msglen,
                                   "term %d: factor %c has entries outside its %dx%d matrix "
                                   "for %s", r + 1, pos_name[pos],
                                   scheme_factor_rows(s->fmt, pos),
                                   scheme_factor_cols(s->fmt, pos), scheme_format_str(s->fmt, fb));
            if (s->ring == SCHEME_RING_Z) {
                const int8_t *z = s->zterms[r].z[pos];
                bool nonzero = false;
                for (int e = 0; e < SCHEME_MAX_ENTRIES; e++) {
                    if (e >= size && z[e])
                        return scheme_fail(msg, msglen,
                                           "term %d: factor %c has a coefficient outside its "
                                           "matrix", r + 1, pos_name[pos]);
                    if (((uint64_t)(z[e] & 1)) != ((t->f[pos] >> e) & 1))
                        return scheme_fail(msg, msglen,
                                           "term %d: factor %c: coefficients and their "
                                           "reduction mod 2 disagree", r + 1, pos_name[pos]);
                    nonzero |= z[e] != 0;
                }
                if (!nonzero)
                    return scheme_fail(msg, msglen,
                                       "term %d: factor %c is zero (the term contributes "
                                       "nothing: drop it, the rank is %d)",
                                       r + 1, pos_name[pos], s->rank - 1);
            } else if (!t->f[pos]) {
                return scheme_fail(msg, msglen,
                                   "term %d: factor %c is zero (the term contributes nothing: "
                                   "drop it, the rank is %d)", r + 1, pos_name[pos], s->rank - 1);
            }
        }
    }
    return true;
}

bool db__verify(const scheme *s, char *msg, size_t msglen)
{
    if (!check_shape(s, msg, msglen))
        return false;
    verify_result res;
    memset(&res, 0, sizeof res);
    bool ok = s->ring == SCHEME_RING_Z ? verify_z(s, &res) : verify_f2(s, &res);
    if (ok && res.valid)
        return true;
    if (res.msg[0])
        return scheme_fail(msg, msglen, "does not verify over %s: %s",
                           scheme_ring_name(s->ring), res.msg);
    return scheme_fail(msg, msglen,
                       "does not verify over %s: equation a%d%d*b%d%d -> c%d%d sums to %lld, "
                       "expected %lld", scheme_ring_name(s->ring), res.ai,
                       res.aj, res.bj, res.bk, res.ck, res.ci, res.got, res.want);
}

db_status db__prepare_scheme(const scheme *s, db_prepared *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (!s)
        return db__err(DB_INVALID, err, errlen, "no scheme given");
    char msg[600];
    if (!db__verify(s, msg, sizeof msg))
        return db__err(DB_INVALID, err, errlen, "%s", msg);
    return db__canonical(s, p, err, errlen);
}

db_status db__canonical(const scheme *s, db_prepared *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    scheme *c = scheme_clone(s);
    if (!c)
        return db__err(DB_IO, err, errlen, "out of memory");
    p->bytes = scheme_canonical_bytes(c, &p->len);
    uint64_t h = scheme_hash(c);
    scheme_free(c);
    if (!p->bytes)
        return db__err(DB_IO, err, errlen, "out of memory");
    scheme_hash_hex(h, p->hash);
    p->fmt = s->fmt;
    p->ring = s->ring;
    p->rank = s->rank;
    return DB_OK;
}

void db__prepared_free(db_prepared *p)
{
    free(p->bytes);
    p->bytes = NULL;
}

static uint64_t get_be64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return v;
}

static int term_order(const uint8_t *x, const uint8_t *y, size_t per)
{
    return memcmp(x, y, per); /* big-endian words, then coefficient bytes: the canonical order */
}

scheme *db__decode(const uint8_t *b, size_t len, char *err, size_t errlen)
{
    if (!b || len < 8) {
        scheme_fail(err, errlen, "stored terms: %zu bytes, shorter than the 8-byte header", len);
        return NULL;
    }
    scheme_format f = {b[0], b[1], b[2]};
    int ring = b[3];
    uint32_t rank = (uint32_t)b[4] << 24 | (uint32_t)b[5] << 16 | (uint32_t)b[6] << 8 | b[7];
    if (!scheme_format_valid(f) || (ring != SCHEME_RING_F2 && ring != SCHEME_RING_Z) ||
        rank < 1 || rank > SCHEME_MAX_RANK) {
        scheme_fail(err, errlen, "stored terms: bad header (format %dx%dx%d, ring %d, rank %u)",
                    f.n, f.m, f.p, ring, rank);
        return NULL;
    }
    size_t per = 24 + (ring == SCHEME_RING_Z ? 3 * SCHEME_MAX_ENTRIES : 0);
    if (len != 8 + (size_t)rank * per) {
        scheme_fail(err, errlen, "stored terms: %zu bytes, expected %zu for rank %u", len,
                    8 + (size_t)rank * per, rank);
        return NULL;
    }
    scheme *s = scheme_new(f, (scheme_ring)ring, (int)rank);
    if (!s) {
        scheme_fail(err, errlen, "out of memory");
        return NULL;
    }
    const uint8_t *q = b + 8;
    for (uint32_t r = 0; r < rank; r++, q += per) {
        if (r > 0 && term_order(q - per, q, per) > 0) {
            scheme_fail(err, errlen, "stored terms: term %u out of canonical order", r + 1);
            scheme_free(s);
            return NULL;
        }
        uint64_t w[3] = {get_be64(q), get_be64(q + 8), get_be64(q + 16)};
        bool ok;
        if (ring == SCHEME_RING_Z) {
            scheme_zterm z;
            memcpy(z.z, q + 24, 3 * SCHEME_MAX_ENTRIES);
            ok = scheme_push_z(s, &z);
            if (ok)
                for (int pos = 0; pos < 3; pos++)
                    ok &= s->terms[r].f[pos] == w[pos];
        } else {
            ok = scheme_push(s, w[0], w[1], w[2]);
        }
        if (!ok) {
            scheme_fail(err, errlen, "stored terms: term %u is inconsistent", r + 1);
            scheme_free(s);
            return NULL;
        }
    }
    char msg[400];
    if (!check_shape(s, msg, sizeof msg)) {
        scheme_fail(err, errlen, "stored terms: %s", msg);
        scheme_free(s);
        return NULL;
    }
    return s;
}
