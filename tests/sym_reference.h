/* The reference for symmetric walks, shared by the Criterion tests
 * (tests/test_symmetry.c) and the GPU checks (tests/gpu_sym.c, which run
 * without Criterion): is a move of a symmetric walker |G| plain flips
 * (search_flip) on the images of two terms?  Header-only. */
#ifndef FLIPGRAPH_TESTS_SYM_REFERENCE_H
#define FLIPGRAPH_TESTS_SYM_REFERENCE_H

#include <stdbool.h>
#include <stdlib.h>

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

/* 1: some term of s stands twice (two orbits equal as sets: the lazy walk,
 * gen-max 1, searches no reductions, and two equal terms make one only when
 * a flip joins them, search/walker_sym.c). */
static inline bool sym_has_repeated_term(const scheme *s)
{
    for (int i = 0; i < s->rank; i++)
        for (int j = i + 1; j < s->rank; j++)
            if (!sym_term_cmp(&s->terms[i], &s->terms[j]))
                return true;
    return false;
}

/* The reference where terms repeat: the |G| flips on disjoint pairs of
 * copies (two free orbits), each image of a and of b taken from a copy no
 * other pair took.  Which copy is the same to the result, a multiset. */
static inline bool sym_is_flip_of_copies(const scheme *before, const scheme *after, scheme_symmetry g, int i, int j,
                                         int x)
{
    const int n = before->fmt.n, order = scheme_symmetry_order(g);
    bool *used = calloc((size_t)before->rank, sizeof(bool));
    int pa[6], pb[6], px[6], np = 0;
    bool ok = used != NULL;
    for (int k = 0; k < order && ok; k++) {
        const scheme_term ta = scheme_symmetry_image(g, n, before->terms[i], k);
        const scheme_term tb = scheme_symmetry_image(g, n, before->terms[j], k);
        int a = -1, b = -1;
        for (int r = 0; r < before->rank && a < 0; r++)
            if (!used[r] && !sym_term_cmp(&before->terms[r], &ta))
                a = r;
        if (a >= 0)
            used[a] = true;
        for (int r = 0; r < before->rank && b < 0; r++)
            if (!used[r] && !sym_term_cmp(&before->terms[r], &tb))
                b = r;
        ok = a >= 0 && b >= 0;
        if (ok) {
            used[b] = true;
            pa[np] = a;
            pb[np] = b;
            px[np++] = ((x - k % 3) % 3 + 3) % 3;
        }
    }
    free(used);
    scheme *c = ok ? scheme_clone(before) : NULL;
    for (int q = 0; q < np && ok; q++)
        ok = search_flip(c->terms, &c->rank, pa[q], pb[q], px[q]) && c->rank == before->rank;
    const bool same = ok && scheme_equal(c, after);
    scheme_free(c);
    return same;
}

/* The reference: is `after` the result of the plain flips (search_flip) on
 * the pairs of images (g a, g b), g in G, of two terms a, b of `before`
 * sharing a factor at x?  Tried over every ordered pair of terms and
 * position.  The pairs are taken by their places in `before` and each once:
 * |G| pairs of disjoint terms where a and b lie in free orbits; where the
 * involution fixes a (a half orbit of c3xc2sK, search/walker_sym.c) each
 * image of a is in two pairs and flips twice, and where it fixes both the
 * pairs come twice and flip once.  A move that drops a term is not compared.
 * Where `before` holds a term twice (two equal orbits), the places of equal
 * terms are ambiguous: sym_is_flip_of_copies takes a copy per pair. */
static inline bool sym_is_flip_of(const scheme *before, const scheme *after, scheme_symmetry g)
{
    const int n = before->fmt.n, order = scheme_symmetry_order(g);
    const bool repeated = sym_has_repeated_term(before);
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
                if (same || (repeated && sym_is_flip_of_copies(before, after, g, i, j, x)))
                    return true;
            }
    return false;
}

#endif
