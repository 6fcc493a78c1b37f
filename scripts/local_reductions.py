#!/usr/bin/env python3
"""Local reductions a walker does not take: sets of k = 4 or 5 terms of a GF(2)
scheme whose factors at one position are k distinct words summing to zero (so
they span k - 1 dimensions), and whose sum, a tensor, has rank k - 1.  Replacing
the k terms by k - 1 lowers the rank by one.  The walker's generalized reduction
(docs/search.md, "The walker") takes such a set only when its terms share a
factor and their factors at another position are dependent; a set like
  (a1, b, c1 + c2), (a2, b + b2, c2), (a3, b, c3 + c2), (a1 + a2 + a3, b, c2)
(the sum of (a1, b, c1), (a2, b2, c2), (a3, b, c3)) it never sees.

The test: flatten the sum along the dependent position; its slices span a space
S of dimension d <= k - 1, and the sum has rank k - 1 exactly when d = k - 1 and
S has a basis of rank-one matrices (the rank of a tensor is the fewest rank-one
matrices whose span holds its slices); S has 2^d - 1 nonzero members, each
tested.  Plain Python: a few seconds for k = 5 at rank 180.

  scripts/local_reductions.py [--k 4|5] [--control] FILE.txt ...   (<6,6,6>, the
  Moosbauer-Poole txt format that `flipgraph db export ID --to txt` writes)

--control first plants one such set (the example above, from three terms of
FILE of which two share b) and checks that the scan finds it: the rank goes up
by one, and the planted scheme can be checked with `flipgraph verify`
(written to FILE.control.txt).  Prints, per file, the rank, the sets tested per k
(apart: sets whose slices span fewer than k - 1 dimensions, which this test does
not decide) and every set whose sum has rank k - 1.  Research aid (bench/RESULTS.md, fortieth
session); not part of the build or the tests.
"""
import itertools
import re
import sys

N = 6                       # <6,6,6>: factors are 36-bit words, index (i-1)*6 + (j-1)
W = N * N


def parse(path):
    terms = []
    for line in open(path):
        groups = re.findall(r'\(([^)]*)\)', line)
        if len(groups) != 3:
            continue
        term = []
        for g in groups:
            v = 0
            for i, j in re.findall(r'[abc](\d)(\d)', g):
                v |= 1 << ((int(i) - 1) * N + int(j) - 1)
            term.append(v)
        terms.append(term)
    return terms


def write(path, terms):
    def fmt(v, letter):
        return '(' + ' + '.join(f'{letter}{p // N + 1}{p % N + 1}' for p in range(W) if v >> p & 1) + ')'
    with open(path, 'w') as f:
        for t in terms:
            f.write(f'{fmt(t[0], "a")} {fmt(t[1], "b")} {fmt(t[2], "c")}\n')


def reduced_basis(vectors):
    basis = []
    for v in vectors:
        for b in basis:
            v = min(v, v ^ b)
        if v:
            basis.append(v)
    return basis


def matrix_rank(vec):       # a W x W matrix packed row by row into one integer
    mask = (1 << W) - 1
    return len(reduced_basis([(vec >> (W * r)) & mask for r in range(W)]))


def slice_space(terms, p):
    q, r = (p + 1) % 3, (p + 2) % 3
    rows = {}
    for t in terms:
        m = 0
        for row in range(W):
            if t[q] >> row & 1:
                m |= t[r] << (W * row)
        for i in range(W):
            if t[p] >> i & 1:
                rows[i] = rows.get(i, 0) ^ m
    return reduced_basis(list(rows.values()))


def lowers(terms, p):
    basis = slice_space(terms, p)
    d = len(basis)
    if d < len(terms) - 1:
        return None         # the slices span less: not decided here, counted apart
    rank_one = []
    for mask in range(1, 1 << d):
        v = 0
        for i in range(d):
            if mask >> i & 1:
                v ^= basis[i]
        if matrix_rank(v) == 1:
            rank_one.append(v)
    return len(reduced_basis(rank_one)) == d


def scan(terms, kmax):
    tested, found = {}, []
    for p in range(3):
        f = [t[p] for t in terms]
        pairs = {}
        for i, j in itertools.combinations(range(len(terms)), 2):
            if f[i] != f[j]:
                pairs.setdefault(f[i] ^ f[j], []).append((i, j))
        sets = set()
        for lst in pairs.values():
            for (i, j), (k, l) in itertools.combinations(lst, 2):
                s = frozenset((i, j, k, l))
                if len(s) == 4 and len({f[x] for x in s}) == 4:
                    sets.add(s)
        if kmax >= 5:
            for i, j, k in itertools.combinations(range(len(terms)), 3):
                for a, b in pairs.get(f[i] ^ f[j] ^ f[k], ()):
                    s = frozenset((i, j, k, a, b))
                    if len(s) == 5 and len({f[x] for x in s}) == 5:
                        sets.add(s)
        for s in sets:
            answer = lowers([terms[x] for x in s], p)
            key = len(s) if answer is not None else f'{len(s)} undecided (slices span less than k - 1)'
            tested[key] = tested.get(key, 0) + 1
            if answer:
                found.append((p, sorted(s)))
    return tested, found


def plant(terms):
    """The example of the docstring from terms i, k sharing b and any j with
    a_i, a_j, a_k independent: one more term, one planted set."""
    for i, k in itertools.permutations(range(len(terms)), 2):
        if terms[i][1] != terms[k][1]:
            continue
        for j in range(len(terms)):
            a1, a2, a3 = terms[i][0], terms[j][0], terms[k][0]
            if j in (i, k) or len(reduced_basis([a1, a2, a3])) < 3:
                continue
            b, c1 = terms[i][1], terms[i][2]
            b2, c2 = terms[j][1], terms[j][2]
            c3 = terms[k][2]
            new = [(a1, b, c1 ^ c2), (a2, b ^ b2, c2), (a3, b, c3 ^ c2), (a1 ^ a2 ^ a3, b, c2)]
            if any(0 in t for t in new):
                continue
            return [t for x, t in enumerate(terms) if x not in (i, j, k)] + [list(t) for t in new]
    return None


def main(argv):
    kmax, control, files = 4, False, []
    it = iter(argv)
    for a in it:
        if a == '--k':
            kmax = int(next(it))
        elif a == '--control':
            control = True
        else:
            files.append(a)
    if not files or kmax not in (4, 5):
        print(__doc__)
        return 2
    status = 0
    for path in files:
        terms = parse(path)
        if control:
            planted = plant(terms)
            if planted is None:
                print(f'{path}: no two terms share b: nothing to plant')
                status = 1
                continue
            write(path + '.control.txt', planted)
            tested, found = scan(planted, kmax)
            ok = any(set(s) == set(range(len(planted) - 4, len(planted))) for _, s in found)
            print(f'{path}.control.txt: rank {len(planted)}, sets tested {tested}, lowering {found}: '
                  f'the planted set {"found" if ok else "MISSED"}')
            status |= 0 if ok else 1
        tested, found = scan(terms, kmax)
        print(f'{path}: rank {len(terms)}, sets tested {tested}, lowering {found}')
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
