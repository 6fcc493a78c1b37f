/* Best known ranks over GF(2) and over Z, from ../shared/records.tsv (the
 * gf2 and z columns; sources there: Kauers-Moosbauer flips, Arai-Ichikawa-
 * Hukushima, Moosbauer-Poole, AlphaTensor, AlphaEvolve).  The rank is the
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
    {2, 2, 2, 7, 7, 0},
    {2, 2, 3, 11, 11, 0},
    {2, 2, 4, 14, 14, 0},
    {2, 2, 5, 18, 18, 0},
    {2, 2, 6, 21, 21, 0},
    {2, 3, 3, 15, 15, 0},
    {2, 3, 4, 20, 20, 0},
    {2, 3, 5, 25, 25, 0},
    {2, 3, 6, 30, 30, 0},
    {2, 4, 4, 26, 26, 0},
    {2, 4, 5, 33, 33, 0},
    {2, 4, 6, 39, 39, 0},
    {2, 5, 5, 40, 40, 0},
    {2, 5, 6, 47, 47, 0},
    {2, 6, 6, 56, 56, 0},
    {3, 3, 3, 23, 23, 0},
    {3, 3, 4, 29, 29, 0},
    {3, 3, 5, 36, 36, 0},
    {3, 3, 6, 42, 42, 0},
    {3, 4, 4, 38, 38, 0},
    {3, 4, 5, 47, 47, 0},
    {3, 4, 6, 54, 54, 0},
    {3, 5, 5, 58, 58, 0},
    {3, 5, 6, 68, 68, 0},
    {3, 6, 6, 83, 83, GF2_UNSURE | Z_UNSURE},
    {4, 4, 4, 47, 49, 0},
    {4, 4, 5, 60, 61, 0},
    {4, 4, 6, 73, 73, 0},
    {4, 5, 5, 73, 76, 0},
    {4, 5, 6, 89, 90, 0},
    {4, 6, 6, 105, 105, 0},
    {5, 5, 5, 93, 93, 0},
    {5, 5, 6, 110, 110, 0},
    {5, 6, 6, 130, 130, 0},
    {6, 6, 6, 153, 153, 0},
};

/* The row of f in records[] (dimensions sorted), -1 for <1,m,p> (rank m*p
 * over every ring: an outer product), -2 when unknown. */
static int find(scheme_format f, int *outer)
{
    int d[3] = {f.n, f.m, f.p};
    /* sort ascending */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (d[j] < d[i]) {
                int t = d[i]; d[i] = d[j]; d[j] = t;
            }
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
