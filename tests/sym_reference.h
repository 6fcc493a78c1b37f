/* The reference for symmetric walks, shared by the Criterion tests
 * (tests/test_symmetry.c) and the GPU checks (tests/gpu_sym.c, which run
 * without Criterion): is a move of a symmetric walker |G| plain flips
 * (search_flip) on the images of two terms?  Header-only. */
#ifndef FLIPGRAPH_TESTS_SYM_REFERENCE_H
#define FLIPGRAPH_TESTS_SYM_REFERENCE_H

#include <stdbool.h>

#include "schemes/scheme.h"
#include "search/search.h"

static inline int sym_term_cmp(const void *pa, const void *pb)
{
    const scheme_term *a = pa, *b = pb;
    for (int x = 0; x < 3; x++)
        if (a->f[x] != b->f[x])
            return a->f[x] < b->f[x] ? -1 : 1;
    return 0;
}

static inline int sym_find_term(const scheme *s, scheme_term t)
{
    for (int r = 0; r < s->rank; r++)
        if (!sym_term_cmp(&s->terms[r], &t))
            return r;
    return -1;
}

/* The reference: is `after` the result of the plain flips (search_flip) on
 * the pairs of images (g a, g b), g in G, of two terms a, b of `before`
 * sharing a factor at x?  Tried over every ordered pair of terms and
 * position.  The pairs are taken by their places in `before` and each once:
 * |G| pairs of disjoint terms where a and b lie in free orbits; where the
 * involution fixes a (a half orbit of c3xc2sK, search/walker_sym.c) each
 * image of a is in two pairs and flips twice, and where it fixes both the
 * pairs come twice and flip once.  A move that drops a term is not compared. */
static inline bool sym_is_flip_of(const scheme *before, const scheme *after, scheme_symmetry g)
{
    const int n = before->fmt.n, order = scheme_symmetry_order(g);
    for (int i = 0; i < before->rank; i++)
        for (int j = 0; j < before->rank; j++)
            for (int x = 0; x < 3; x++) {
                if (i == j || before->terms[i].f[x] != before->terms[j].f[x])
                    continue;
                int pa[6], pb[6], px[6], np = 0;
                bool ok = true;
                for (int k = 0; k < order && ok; k++) {
                    const int a = sym_find_term(before, scheme_symmetry_image(g, n, before->terms[i], k));
                    const int b = sym_find_term(before, scheme_symmetry_image(g, n, before->terms[j], k));
                    /* the images sit at position (x - shift) after the shift */
                    const int xs = ((x - k % 3) % 3 + 3) % 3;
                    ok = a >= 0 && b >= 0 && a != b;
                    bool seen = false;
                    for (int q = 0; q < np; q++)
                        seen = seen || (pa[q] == a && pb[q] == b && px[q] == xs);
                    if (ok && !seen) {
                        pa[np] = a;
                        pb[np] = b;
                        px[np++] = xs;
                    }
                }
                scheme *c = scheme_clone(before);
                for (int q = 0; q < np && ok; q++)
                    ok = search_flip(c->terms, &c->rank, pa[q], pb[q], px[q]) && c->rank == before->rank;
                const bool same = ok && scheme_equal(c, after);
                scheme_free(c);
                if (same)
                    return true;
            }
    return false;
}

#endif
