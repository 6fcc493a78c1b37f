/* Best known ranks over GF(2), from ../shared/records.tsv (the gf2 column;
 * sources there: Kauers-Moosbauer flips, Arai-Ichikawa-Hukushima, Moosbauer-
 * Poole, AlphaTensor, AlphaEvolve).  The rank is the same for every
 * permutation of n, m, p.  <3,6,6> is listed there as "83?" (one catalogue
 * has 82): we keep 83. */
#include "search.h"

static const struct {
    unsigned char n, m, p;
    short rank;
} records[] = {
    {2, 2, 2, 7},
    {2, 2, 3, 11},
    {2, 2, 4, 14},
    {2, 2, 5, 18},
    {2, 2, 6, 21},
    {2, 3, 3, 15},
    {2, 3, 4, 20},
    {2, 3, 5, 25},
    {2, 3, 6, 30},
    {2, 4, 4, 26},
    {2, 4, 5, 33},
    {2, 4, 6, 39},
    {2, 5, 5, 40},
    {2, 5, 6, 47},
    {2, 6, 6, 56},
    {3, 3, 3, 23},
    {3, 3, 4, 29},
    {3, 3, 5, 36},
    {3, 3, 6, 42},
    {3, 4, 4, 38},
    {3, 4, 5, 47},
    {3, 4, 6, 54},
    {3, 5, 5, 58},
    {3, 5, 6, 68},
    {3, 6, 6, 83},
    {4, 4, 4, 47},
    {4, 4, 5, 60},
    {4, 4, 6, 73},
    {4, 5, 5, 73},
    {4, 5, 6, 89},
    {4, 6, 6, 105},
    {5, 5, 5, 93},
    {5, 5, 6, 110},
    {5, 6, 6, 130},
    {6, 6, 6, 153},
};

int search_record_rank(scheme_format f)
{
    int d[3] = {f.n, f.m, f.p};
    /* sort ascending */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (d[j] < d[i]) {
                int t = d[i]; d[i] = d[j]; d[j] = t;
            }
    if (d[0] < 1)
        return -1;
    if (d[0] == 1) /* <1,m,p>: an outer product, rank m*p exactly */
        return d[1] * d[2];
    for (size_t i = 0; i < sizeof records / sizeof *records; i++)
        if (records[i].n == d[0] && records[i].m == d[1] && records[i].p == d[2])
            return records[i].rank;
    return -1;
}
