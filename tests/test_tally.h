/* The tally of a Metropolis test's undone flips (the weight and degree
 * biases, docs/search.md): a test compares a biased walker with the unbiased
 * one step by step; each flip the bias could undo adds its chance q of being
 * undone, and in the end the undone count must lie within 5 standard
 * deviations of the sum of the q (+1, for small sums), which a correct walker
 * misses about once in 1.7 million runs (both tails of the normal).  Plain C, header-only: the Criterion
 * tests and the GPU check programs (which do not link Criterion) share it. */
#ifndef FLIPGRAPH_TEST_TALLY_H
#define FLIPGRAPH_TEST_TALLY_H

#include <math.h>
#include <stdbool.h>

typedef struct tc_tally {
    long trials;   /* flips the test could undo */
    long undone;   /* of those, undone */
    double expect; /* the sum of their chances */
    double var;    /* the variance of the undone count */
} tc_tally;

/* One flip the test could undo, with chance q of being undone. */
static inline void tc_tally_chance(tc_tally *t, double q)
{
    t->trials++;
    t->expect += q;
    t->var += q * (1 - q);
}

static inline double tc_tally_bound(const tc_tally *t) { return 5 * sqrt(t->var) + 1; }

static inline bool tc_tally_fits(const tc_tally *t)
{
    return fabs((double)t->undone - t->expect) <= tc_tally_bound(t);
}

#endif
