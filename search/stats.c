/* The structure of a scheme as a walk sees it (search.h, "structure";
 * docs/verify.md, "Structure"): how many flips and reductions it offers, how
 * many distinct factors and nonzero coefficients it has, and which of the
 * symmetries it is invariant under.  Why: a scheme with few flippable pairs
 * is one a walk reaches only through the few schemes next to it (the
 * published <4,4,5>:61 over Z has 2 such pairs mod 2, bench/RESULTS.md,
 * "Where the published Z <4,4,5>:61 lies"); this makes that count one
 * command instead of a script.  Plain O(rank^2) loops: the figures are
 * definitions, not a fast path. */
#include "search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether factor pos of terms i and j counts as the same for a flip: equal
 * words over GF(2), equal up to sign over Z (search_z_relation). */
static bool same_factor(const scheme *s, int i, int j, int pos)
{
    if (s->ring == SCHEME_RING_Z)
        return search_z_relation(s, i, j, pos) != 0;
    return s->terms[i].f[pos] == s->terms[j].f[pos];
}

static uint64_t nonzeros(const scheme *s, int r, int pos)
{
    if (s->ring != SCHEME_RING_Z)
        return (uint64_t)__builtin_popcountll(s->terms[r].f[pos]);
    uint64_t n = 0;
    const int size = scheme_factor_size(s->fmt, pos);
    for (int e = 0; e < size; e++)
        n += s->zterms[r].z[pos][e] != 0;
    return n;
}

long search_scheme_nonzeros(const scheme *s)
{
    uint64_t n = 0;
    for (int r = 0; r < s->rank; r++)
        for (int pos = 0; pos < 3; pos++)
            n += nonzeros(s, r, pos);
    return (long)n;
}

/* Over GF(2): the rows of the rows x cols word reduced against a basis kept
 * by leading bit. */
static int rank_f2(uint64_t w, int rows, int cols)
{
    uint64_t basis[64] = {0};
    const uint64_t mask = cols >= 64 ? ~0ull : (1ull << cols) - 1;
    int rank = 0;
    for (int r = 0; r < rows; r++) {
        uint64_t v = (w >> (r * cols)) & mask;
        while (v) {
            const int lead = 63 - __builtin_clzll(v);
            if (!basis[lead]) {
                basis[lead] = v;
                rank++;
                break;
            }
            v ^= basis[lead];
        }
    }
    return rank;
}

/* Over Q: fraction-free (Bareiss) elimination, exact in integers.  Rows are
 * the smaller dimension (at most 8 of a 64-entry factor); every entry is a
 * minor of at most 8 x 8 int8 coefficients, below 3e20 by Hadamard's bound,
 * and a product of two 7 x 7 minors stays below 2.3e35, so __int128 holds
 * each step. */
static int rank_z(const int8_t *z, int rows, int cols)
{
    const bool turn = rows > cols;
    const int nr = turn ? cols : rows, nc = turn ? rows : cols;
    __int128 a[SEARCH_FACTOR_RANK_MAX][SCHEME_MAX_ENTRIES];
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nc; j++)
            a[i][j] = turn ? z[j * cols + i] : z[i * cols + j];
    __int128 prev = 1;
    int r = 0;
    for (int c = 0; c < nc && r < nr; c++) {
        int piv = r;
        while (piv < nr && a[piv][c] == 0)
            piv++;
        if (piv == nr)
            continue;
        for (int j = 0; j < nc; j++) {
            const __int128 t = a[r][j];
            a[r][j] = a[piv][j];
            a[piv][j] = t;
        }
        for (int i = r + 1; i < nr; i++) {
            for (int j = c + 1; j < nc; j++)
                a[i][j] = (a[r][c] * a[i][j] - a[i][c] * a[r][j]) / prev;
            a[i][c] = 0;
        }
        prev = a[r][c];
        r++;
    }
    return r;
}

int search_factor_rank(const scheme *s, int r, int pos)
{
    const int rows = scheme_factor_rows(s->fmt, pos), cols = scheme_factor_cols(s->fmt, pos);
    return s->ring == SCHEME_RING_Z ? rank_z(s->zterms[r].z[pos], rows, cols) : rank_f2(s->terms[r].f[pos], rows, cols);
}

void search_scheme_stats(const scheme *s, search_stats *out)
{
    *out = (search_stats){.rank = s->rank};
    for (int i = 0; i < s->rank; i++) {
        bool shares = false;
        for (int j = 0; j < s->rank; j++) {
            if (j == i)
                continue;
            int equal = 0;
            for (int pos = 0; pos < 3; pos++)
                if (same_factor(s, i, j, pos)) {
                    equal++;
                    if (j > i)
                        out->flip_pairs[pos]++;
                }
            if (equal >= 2 && j > i)
                out->reducible_pairs++;
            shares = shares || equal;
        }
        out->isolated += !shares;
        int k[3];
        for (int pos = 0; pos < 3; pos++)
            k[pos] = search_factor_rank(s, i, pos);
        for (int x = 0; x < 2; x++) /* sort the three */
            for (int y = 0; y < 2 - x; y++)
                if (k[y] > k[y + 1]) {
                    const int t = k[y];
                    k[y] = k[y + 1];
                    k[y + 1] = t;
                }
        out->factor_ranks[k[0]][k[1]][k[2]]++;
        for (int pos = 0; pos < 3; pos++) {
            /* distinct: i is the first term with its factor at pos */
            bool first = true;
            for (int j = 0; j < i && first; j++)
                first = !same_factor(s, i, j, pos);
            out->distinct[pos] += first;
            out->nonzeros[pos] += nonzeros(s, i, pos);
        }
    }
    out->flip_pairs_total = out->flip_pairs[0] + out->flip_pairs[1] + out->flip_pairs[2];
    out->max_coef = s->ring == SCHEME_RING_Z ? search_z_max_coef(s) : s->rank > 0;

    for (int g = SCHEME_SYM_C3; g <= SCHEME_SYM_C3XC2S3; g++) {
        int term, elem;
        if (!scheme_symmetry_fits((scheme_symmetry)g, s->fmt, NULL, 0))
            out->invariant[g] = -1;
        else if (scheme_symmetry_check(s, (scheme_symmetry)g, &term, &elem, NULL, 0))
            out->invariant[g] = 1;
        else
            out->invariant[g] = term >= 0 ? 0 : -2; /* -2: out of memory, not known */
    }
}

static const char *invariant_word(int v) { return v == 1 ? "yes" : v == 0 ? "no" : v == -1 ? "n/a" : "unknown"; }

void search_stats_line(const search_stats *st, char *buf, size_t len)
{
    snprintf(buf, len,
             "flip pairs %llu (a %llu, b %llu, c %llu), reducible pairs %llu, terms sharing no factor %d;"
             " distinct factors a %d, b %d, c %d; nonzero coefficients %llu (a %llu, b %llu, c %llu), largest %d;"
             " invariant under c3 %s, c3xc2 %s, t2 %s",
             (unsigned long long)st->flip_pairs_total, (unsigned long long)st->flip_pairs[0],
             (unsigned long long)st->flip_pairs[1], (unsigned long long)st->flip_pairs[2],
             (unsigned long long)st->reducible_pairs, st->isolated, st->distinct[0], st->distinct[1],
             st->distinct[2], (unsigned long long)(st->nonzeros[0] + st->nonzeros[1] + st->nonzeros[2]),
             (unsigned long long)st->nonzeros[0], (unsigned long long)st->nonzeros[1],
             (unsigned long long)st->nonzeros[2], st->max_coef, invariant_word(st->invariant[SCHEME_SYM_C3]),
             invariant_word(st->invariant[SCHEME_SYM_C3XC2]), invariant_word(st->invariant[SCHEME_SYM_T2]));
    /* the involutions with fixed points only where they act (n >= 2K + 2):
     * the line of a non-square format stays as it was */
    for (int g = SCHEME_SYM_C3XC2S1; g <= SCHEME_SYM_C3XC2S3; g++) {
        const size_t used = strlen(buf);
        if (st->invariant[g] != -1 && used < len)
            snprintf(buf + used, len - used, ", %s %s", scheme_symmetry_name((scheme_symmetry)g),
                     invariant_word(st->invariant[g]));
    }
    const char *sep = "; factor ranks ";
    for (int x = 0; x <= SEARCH_FACTOR_RANK_MAX; x++)
        for (int y = x; y <= SEARCH_FACTOR_RANK_MAX; y++)
            for (int z = y; z <= SEARCH_FACTOR_RANK_MAX; z++) {
                if (!st->factor_ranks[x][y][z])
                    continue;
                const size_t used = strlen(buf);
                if (used < len)
                    snprintf(buf + used, len - used, "%s%d%d%d:%d", sep, x, y, z, st->factor_ranks[x][y][z]);
                sep = " ";
            }
}
