/* Fresh schemes for the Criterion tests: a start walked by the CPU walker.
 * Header-only. */
#ifndef FLIPGRAPH_TESTS_TEST_WALK_H
#define FLIPGRAPH_TESTS_TEST_WALK_H

#include <criterion/criterion.h>
#include <stdint.h>

#include "schemes/scheme.h"
#include "search/search.h"

/* start walked `flips` flips (plus transitions and, for a symmetric p, its
 * moves included) with p and seed: the scheme the walker holds then. */
static inline scheme *tc_walked_from(const scheme *start, const search_params *p, uint64_t seed, uint64_t flips)
{
    search_walker *w = search_walker_new(start, p, seed, 0);
    cr_assert_not_null(w, "no walker");
    search_walker_walk(w, flips, search_walker_rank(w), 0);
    scheme *s = search_walker_snapshot(w);
    cr_assert_not_null(s, "no snapshot");
    search_walker_free(w);
    return s;
}

#endif
