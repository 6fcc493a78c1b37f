/* Best known ranks over GF(2) and over Z, from data/records.tsv (the gf2
 * and z columns, turned into records_table.inc by cmake/records.cmake;
 * sources there: Kauers-Moosbauer flips, Arai-Ichikawa-Hukushima,
 * Moosbauer-Poole, AlphaTensor, AlphaEvolve).  The rank is the
 * same for every permutation of n, m, p.  A value the file marks with '?'
 * (its sources disagree: <3,6,6> is "83?" in both columns, one catalogue has
 * 82 over GF(2)) keeps its number here and carries an UNSURE flag, so that a
 * report can say so (search_record_uncertain).  The q column (rational
 * coefficients) is not embedded: no part of flipgraph searches over Q. */
#include "search.h"

enum { GF2_UNSURE = 1, Z_UNSURE = 2 };

static const struct {
    unsigned char n, m, p;
    short gf2, z;
    unsigned char unsure;
} records[] = {
#include "records_table.inc"
};

scheme_format search_format_sorted(scheme_format f)
{
    int d[3] = {f.n, f.m, f.p};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (d[j] < d[i]) {
                int t = d[i]; d[i] = d[j]; d[j] = t;
            }
    return (scheme_format){d[0], d[1], d[2]};
}

bool search_format_holds(scheme_format big, scheme_format small)
{
    const scheme_format b = search_format_sorted(big), s = search_format_sorted(small);
    return b.n >= s.n && b.m >= s.m && b.p >= s.p;
}

/* The row of f in records[] (dimensions sorted), -1 for <1,m,p> (rank m*p
 * over every ring: an outer product), -2 when unknown. */
static int find(scheme_format f, int *outer)
{
    f = search_format_sorted(f);
    const int d[3] = {f.n, f.m, f.p};
    *outer = 0;
    if (d[0] < 1)
        return -2;
    if (d[0] == 1) {
        *outer = d[1] * d[2];
        return -1;
    }
    for (size_t i = 0; i < sizeof records / sizeof *records; i++)
        if (records[i].n == d[0] && records[i].m == d[1] && records[i].p == d[2])
            return (int)i;
    return -2;
}

int search_record_rank(scheme_format f)
{
    int outer, i = find(f, &outer);
    return i >= 0 ? records[i].gf2 : i == -1 ? outer : -1;
}

int search_record_rank_z(scheme_format f)
{
    int outer, i = find(f, &outer);
    return i >= 0 ? records[i].z : i == -1 ? outer : -1;
}

bool search_record_uncertain(scheme_format f, scheme_ring ring)
{
    int outer, i = find(f, &outer);
    return i >= 0 && (records[i].unsure & (ring == SCHEME_RING_Z ? Z_UNSURE : GF2_UNSURE));
}
