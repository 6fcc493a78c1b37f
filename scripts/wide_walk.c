/* wide_walk: the plain GF(2) flip walk for formats beyond flipgraph's 64-entry factors.
 *
 * flipgraph holds a factor in one 64-bit word (schemes/scheme.h), so <9,9,9> and larger
 * are refused by every command.  Until the engine has wider factors this stands in for
 * its plain walk on such formats (docs/search.md, "Beyond 64 entries"): factors of up to
 * 256 entries (every format up to <16,16,16>), the flips and reductions of Kauers,
 * Moosbauer, "Flip graphs for matrix multiplication" (2023), and a plus transition after
 * PLATEAU flips without a new low (or 64 * rank draws in a row that find no two terms
 * sharing a factor) while the rank is below the lowest + PLUS_MAX.  Every
 * new low is checked against the Brent equations here (a plain loop over the terms) and
 * written to OUT_PREFIX_RANK.hex (a temporary file, then renamed); scripts/wide_scheme.py
 * reads, checks and converts that layout.  Research aid (bench/RESULTS.md, seventy-second
 * session); not part of the build (tests/check_wide_scheme.sh builds and runs it):
 *
 *     cc -O2 -std=c11 -o wide_walk scripts/wide_walk.c
 *     ./wide_walk IN.hex OUT_PREFIX SEED SECONDS PLATEAU PLUS_MAX
 *
 * Exit: 0 the time ran out (the lowest rank is printed), 1 IN is not a GF(2) scheme,
 * 2 bad usage or input, 3 an internal failure (a new low that does not verify).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORDS 4          /* 256 entries a factor */
#define MAX_ENTRIES (64 * WORDS)
#define MAX_RANK 8192
#define HASH_BITS 15

typedef struct {
    uint64_t w[WORDS];
} factor;

static int dim_n, dim_m, dim_p, rank;
static factor terms[3][MAX_RANK];
static int bucket_head[3][1 << HASH_BITS], bucket_next[3][MAX_RANK];
static uint64_t rng_state[2];

static int factor_equal(factor a, factor b)
{
    for (int i = 0; i < WORDS; i++)
        if (a.w[i] != b.w[i])
            return 0;
    return 1;
}
static factor factor_add(factor a, factor b)
{
    for (int i = 0; i < WORDS; i++)
        a.w[i] ^= b.w[i];
    return a;
}
static int factor_zero(factor a)
{
    for (int i = 0; i < WORDS; i++)
        if (a.w[i])
            return 0;
    return 1;
}
static int factor_bit(factor a, int x)
{
    return (int)(a.w[x >> 6] >> (x & 63) & 1);
}
static uint64_t random_next(void) /* xorshift128+ */
{
    uint64_t s1 = rng_state[0], s0 = rng_state[1], r = s0 + s1;
    rng_state[0] = s0;
    s1 ^= s1 << 23;
    rng_state[1] = s1 ^ s0 ^ (s1 >> 18) ^ (s0 >> 5);
    return r;
}
static unsigned factor_hash(factor v)
{
    uint64_t x = 0;
    for (int i = 0; i < WORDS; i++)
        x = (x ^ v.w[i]) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    return (unsigned)(x >> (64 - HASH_BITS));
}
static void index_insert(int pos, int t)
{
    unsigned h = factor_hash(terms[pos][t]);
    bucket_next[pos][t] = bucket_head[pos][h];
    bucket_head[pos][h] = t;
}
static void index_remove(int pos, int t)
{
    int *link = &bucket_head[pos][factor_hash(terms[pos][t])];
    while (*link != t) {
        if (*link < 0) {
            fprintf(stderr, "wide_walk: term %d missing from its bucket (internal error)\n", t);
            exit(3);
        }
        link = &bucket_next[pos][*link];
    }
    *link = bucket_next[pos][t];
}
static void set_factor(int pos, int t, factor v)
{
    index_remove(pos, t);
    terms[pos][t] = v;
    index_insert(pos, t);
}
/* Removes term k; the last term takes its place (and *track follows it). */
static void remove_term(int k, int *track)
{
    for (int pos = 0; pos < 3; pos++)
        index_remove(pos, k);
    int last = rank - 1;
    if (k != last) {
        for (int pos = 0; pos < 3; pos++) {
            index_remove(pos, last);
            terms[pos][k] = terms[pos][last];
            index_insert(pos, k);
        }
        if (track && *track == last)
            *track = k;
    }
    rank--;
}
/* Term t's factor at pos changed: while t shares two factors with another term, the two
 * are one term, (x, y, z) + (x, y, z') = (x, y, z + z'), and a term with a zero factor
 * goes. */
static void reduce_term(int t, int pos)
{
    for (;;) {
        int found = -1, merge_pos = -1;
        for (int k = bucket_head[pos][factor_hash(terms[pos][t])]; k >= 0; k = bucket_next[pos][k]) {
            if (k == t || !factor_equal(terms[pos][k], terms[pos][t]))
                continue;
            int p1 = (pos + 1) % 3, p2 = (pos + 2) % 3;
            if (factor_equal(terms[p1][k], terms[p1][t])) {
                found = k, merge_pos = p2;
                break;
            }
            if (factor_equal(terms[p2][k], terms[p2][t])) {
                found = k, merge_pos = p1;
                break;
            }
        }
        if (found < 0)
            return;
        set_factor(merge_pos, t, factor_add(terms[merge_pos][t], terms[merge_pos][found]));
        remove_term(found, &t);
        if (factor_zero(terms[merge_pos][t])) {
            remove_term(t, NULL);
            return;
        }
        pos = merge_pos;
    }
}
static void reduce_all(void)
{
    for (int t = 0; t < rank; t++)
        for (int pos = 0; pos < 3 && t < rank; pos++)
            reduce_term(t, pos);
}
/* The Brent equations, plainly: for each entry x of A and y of B the C factors of the
 * terms with a[x] = b[y] = 1 must sum to the one entry (k, i) where x = (i, j) and
 * y = (j, k) (the cyclic convention of docs/formats.md), else to zero. */
static int scheme_valid(void)
{
    static factor sums[MAX_ENTRIES * MAX_ENTRIES];
    const int na = dim_n * dim_m, nb = dim_m * dim_p;
    memset(sums, 0, sizeof(factor) * (size_t)na * (size_t)nb);
    for (int t = 0; t < rank; t++) {
        if (factor_zero(terms[0][t]) || factor_zero(terms[1][t]) || factor_zero(terms[2][t]))
            return 0;
        for (int x = 0; x < na; x++)
            if (factor_bit(terms[0][t], x))
                for (int y = 0; y < nb; y++)
                    if (factor_bit(terms[1][t], y))
                        sums[x * nb + y] = factor_add(sums[x * nb + y], terms[2][t]);
    }
    for (int x = 0; x < na; x++)
        for (int y = 0; y < nb; y++) {
            const int i = x / dim_m, j = x % dim_m, j2 = y / dim_p, k = y % dim_p;
            factor want = {{0}};
            if (j == j2)
                want.w[(k * dim_n + i) >> 6] = 1ull << ((k * dim_n + i) & 63);
            if (!factor_equal(sums[x * nb + y], want))
                return 0;
        }
    return 1;
}
static void write_hex(FILE *f, factor v)
{
    int top = WORDS - 1;
    while (top > 0 && !v.w[top])
        top--;
    fprintf(f, "%llx", (unsigned long long)v.w[top]);
    for (int i = top - 1; i >= 0; i--)
        fprintf(f, "%016llx", (unsigned long long)v.w[i]);
}
static int save(const char *prefix)
{
    char path[600], tmp[640];
    snprintf(path, sizeof path, "%s_%d.hex", prefix, rank);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return 0;
    fprintf(f, "%d %d %d %d\n", dim_n, dim_m, dim_p, rank);
    for (int t = 0; t < rank; t++)
        for (int pos = 0; pos < 3; pos++) {
            write_hex(f, terms[pos][t]);
            fputc(pos < 2 ? ' ' : '\n', f);
        }
    if (fclose(f) || rename(tmp, path)) {
        remove(tmp);
        return 0;
    }
    return 1;
}
static int parse_hex(const char *s, int entries, factor *out)
{
    factor v = {{0}};
    int digits = (int)strlen(s);
    if (digits == 0 || digits > (entries + 3) / 4)
        return 0;
    for (int d = 0; d < digits; d++) {
        const char c = s[digits - 1 - d];
        int x = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (x < 0)
            return 0;
        v.w[(4 * d) >> 6] |= (uint64_t)x << ((4 * d) & 63);
    }
    for (int e = entries; e < MAX_ENTRIES; e++)
        if (factor_bit(v, e))
            return 0;
    *out = v;
    return 1;
}
static int read_scheme(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 0;
    }
    if (fscanf(f, "%d %d %d %d", &dim_n, &dim_m, &dim_p, &rank) != 4 || dim_n < 1 || dim_m < 1 || dim_p < 1 ||
        rank < 1 || rank > MAX_RANK / 2 || dim_n * dim_m > MAX_ENTRIES || dim_m * dim_p > MAX_ENTRIES ||
        dim_p * dim_n > MAX_ENTRIES) {
        fprintf(stderr, "%s:1: expected \"n m p rank\" with factors of at most %d entries and rank at most %d\n", path,
                MAX_ENTRIES, MAX_RANK / 2);
        fclose(f);
        return 0;
    }
    const int entries[3] = {dim_n * dim_m, dim_m * dim_p, dim_p * dim_n};
    for (int t = 0; t < rank; t++)
        for (int pos = 0; pos < 3; pos++) {
            char word[80];
            if (fscanf(f, "%79s", word) != 1 || !parse_hex(word, entries[pos], &terms[pos][t])) {
                fprintf(stderr, "%s:%d: factor %d: expected a hexadecimal number of at most %d bits\n", path, t + 2,
                        pos + 1, entries[pos]);
                fclose(f);
                return 0;
            }
        }
    fclose(f);
    return 1;
}
static void rebuild_index(void)
{
    for (int pos = 0; pos < 3; pos++) {
        memset(bucket_head[pos], -1, sizeof bucket_head[pos]);
        for (int t = 0; t < rank; t++)
            index_insert(pos, t);
    }
}
int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: wide_walk IN.hex OUT_PREFIX SEED SECONDS PLATEAU PLUS_MAX\n");
        return 2;
    }
    if (!read_scheme(argv[1]))
        return 2;
    const uint64_t seed = strtoull(argv[3], NULL, 10);
    const double seconds = atof(argv[4]);
    const long long plateau = atoll(argv[5]);
    const int plus_max = atoi(argv[6]);
    rng_state[0] = seed * 0x9E3779B97F4A7C15ull + 1;
    rng_state[1] = seed ^ 0xD1B54A32D192ED03ull;
    for (int i = 0; i < 20; i++)
        random_next();
    if (!scheme_valid()) {
        fprintf(stderr, "%s: not a scheme of <%d,%d,%d> over GF(2)\n", argv[1], dim_n, dim_m, dim_p);
        return 1;
    }
    rebuild_index();
    const int start_rank = rank;
    reduce_all();
    int lowest = rank;
    printf("start: <%d,%d,%d> rank %d (%d after its reductions)\n", dim_n, dim_m, dim_p, start_rank, rank);
    fflush(stdout);
    if (rank < start_rank && !save(argv[2])) {
        perror(argv[2]);
        return 3;
    }
    const time_t t0 = time(NULL);
    long long flips = 0, since_low = 0, plus = 0, misses = 0, iterations = 0, misses_in_a_row = 0;
    for (;;) {
        if ((++iterations & 0xfffff) == 0 && difftime(time(NULL), t0) >= seconds)
            break;
        if (since_low >= plateau && rank < lowest + plus_max && rank < MAX_RANK) {
            /* (a,b,c) + (a',b',c') = (a+a',b,c) + (a',b+b',c) + (a',b',c+c'): rank + 1 */
            const int i = (int)(random_next() % (uint64_t)rank), j = (int)(random_next() % (uint64_t)rank);
            if (i == j || factor_equal(terms[0][i], terms[0][j]) || factor_equal(terms[1][i], terms[1][j]) ||
                factor_equal(terms[2][i], terms[2][j]))
                continue;
            const factor a2 = terms[0][j], b = terms[1][i], b2 = terms[1][j], c = terms[2][i], c2 = terms[2][j];
            const int k = rank++;
            terms[0][k] = a2, terms[1][k] = b2, terms[2][k] = factor_add(c, c2);
            for (int pos = 0; pos < 3; pos++)
                index_insert(pos, k);
            set_factor(0, i, factor_add(terms[0][i], a2));
            set_factor(1, j, factor_add(b, b2));
            set_factor(2, j, c);
            plus++;
            since_low = 0;
            reduce_all();
            continue;
        }
        const int i = (int)(random_next() % (uint64_t)rank), pos0 = (int)(random_next() % 3);
        int partners[64], count = 0;
        for (int k = bucket_head[pos0][factor_hash(terms[pos0][i])]; k >= 0 && count < 64; k = bucket_next[pos0][k])
            if (k != i && factor_equal(terms[pos0][k], terms[pos0][i]))
                partners[count++] = k;
        if (!count) {
            misses++;
            /* a scheme with no two terms sharing a factor (a product such as 47 (x) 47) has
               no flip to count toward the plateau: so many draws in a row without a partner
               count as one, and the plus transition gives it pairs */
            if (++misses_in_a_row >= 64LL * rank) {
                misses_in_a_row = 0;
                since_low = plateau;
            }
            continue;
        }
        misses_in_a_row = 0;
        const int j = partners[random_next() % (uint64_t)count];
        /* (x, y, z) + (x, y', z') = (x, y + y', z) + (x, y', z' + z) */
        int q = (pos0 + 1) % 3, s = (pos0 + 2) % 3;
        if (random_next() & 1) {
            const int swap = q;
            q = s, s = swap;
        }
        set_factor(q, i, factor_add(terms[q][i], terms[q][j]));
        set_factor(s, j, factor_add(terms[s][j], terms[s][i]));
        flips++, since_low++;
        const int before = rank;
        reduce_term(j, s);
        if (rank == before)
            reduce_term(i, q);
        else
            reduce_all(); /* indices moved; reductions are rare */
        if (rank < lowest) {
            lowest = rank;
            since_low = 0;
            if (!scheme_valid()) {
                fprintf(stderr, "wide_walk: rank %d does not verify (internal error)\n", rank);
                return 3;
            }
            if (!save(argv[2])) {
                perror(argv[2]);
                return 3;
            }
            printf("rank %d after %lld flips, %.0f s (verified, written)\n", rank, flips, difftime(time(NULL), t0));
            fflush(stdout);
        }
    }
    printf("end: lowest %d from %d; %lld flips, %lld draws without a partner, %lld plus transitions, rank now %d, "
           "%.0f s\n",
           lowest, start_rank, flips, misses, plus, rank, difftime(time(NULL), t0));
    if (!scheme_valid()) {
        fprintf(stderr, "wide_walk: the final scheme does not verify (internal error)\n");
        return 3;
    }
    return 0;
}
