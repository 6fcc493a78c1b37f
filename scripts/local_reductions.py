#!/usr/bin/env python3
"""Local reductions a walker does not take: a set D of k terms of a GF(2) scheme
whose sum, a tensor, has rank k - 1 or less.  Replacing the k terms by fewer
lowers the scheme's rank.  The walker's reductions take such a set only where
its terms share factors in the ways docs/search.md names ("The walker"; the
flattening eliminations of `flipgraph resize` take a set whose products at two
positions are dependent); a set like
  (a1, b, c1 + c2), (a2, b + b2, c2), (a3, b, c3 + c2), (a1 + a2 + a3, b, c2)
(the sum of (a1, b, c1), (a2, b2, c2), (a3, b, c3)) they never see.

Which sets: the rank of the sum is at least the rank of each of its three
flattenings, so a set that lowers has dependent factors at every position (or
dependent products, the eliminations' case).  The scan takes the sets of 2 to
5 terms whose factors at one position sum to zero (equal pairs, and sums of
pairs hashed; a sum that more than 200 pairs share is passed over for the
4-sets), tests each alone, and tests the unions of one such set at each
position that overlap (a's, then b's meeting it, then c's meeting either), up
to --k terms (default 9).

The test: flatten the sum along a position; its slices span a space S of
dimension d, and the rank of the sum is the fewest rank-one matrices whose span
holds S.  So rank <= k - 1 where d = k - 1 exactly when S has a basis of
rank-one matrices (each of its 2^d - 1 members tested); where d = k - 2, when S
plus one more rank-one matrix B has one (the rank-one matrices grouped by their
coset of S, one pass); where the cheapest basis of S (by matrix rank, greedy)
already costs <= k - 1, yes.  Sets whose slices span k - 3 or fewer dimensions
at every position, and are not settled by the greedy bound, are counted as
undecided.  `--self-check` compares the test with brute force on 6000 random
sums of 2 to 5 terms in 3 x 3 x 3 (every rank-one tensor, every sum of up to
four of them), with the greedy bound and without it (so that the coset test
answers too): exit 1 on any disagreement.

  scripts/local_reductions.py [--k K] [--seconds T] [--control] FILE ...
  scripts/local_reductions.py --self-check

FILE: any format whose terms are written (x)*(y)*(z) or (x) (y) (z) with named
entries (flipgraph's native .txt, .exp, Moosbauer-Poole's txt); coefficients
read mod 2.  --control first plants one set (the example above, from three
terms of FILE of which two share b) and checks that the scan finds it: the rank
goes up by one, and the planted scheme is written to FILE.control.txt
(`flipgraph verify --dims NxMxP FILE.control.txt` checks it).  --seconds stops
the union scan of a file after T seconds (default 300).  Prints, per file, the
rank, the sets tested by size, the undecided ones and every set whose sum has
lower rank.  Research aid (bench/RESULTS.md, fortieth and seventy-first
sessions); not part of the build or the tests.
"""
import itertools
import random
import re
import sys
import time
from collections import defaultdict

from perm_stabilizer import split_products


def parse(path):
    """Terms as triples of bit masks; entry names numbered per letter in order of appearance."""
    names = {'a': {}, 'b': {}, 'c': {}, 'header': []}
    terms = []
    for line in open(path):
        line = line.strip()
        if line.startswith(('flipgraph-', 'format', 'ring')):
            names['header'].append(line)    # flipgraph's native header, written back by write()
        if not line or line[0] not in '(-abc' or line.startswith(('flipgraph-', 'format', 'ring', 'rank')):
            continue
        parts = split_products(line)
        if len(parts) != 3:
            parts = re.findall(r'\(([^)]*)\)', line)
        if len(parts) != 3:
            continue
        term = []
        for part, letter in zip(parts, 'abc'):
            v = 0
            for coef, name in re.findall(r'(?:(\d+)\s*\*\s*)?(' + letter + r'[\w]+)', part):
                if coef and int(coef) % 2 == 0:
                    continue
                v ^= 1 << names[letter].setdefault(name, len(names[letter]))
            term.append(v)
        terms.append(tuple(term))
    return terms, names


def write(path, terms, names):
    inv = {l: {i: n for n, i in names[l].items()} for l in 'abc'}

    def fmt(v, letter):
        return '(' + '+'.join(inv[letter][i] for i in range(v.bit_length()) if v >> i & 1) + ')'
    with open(path, 'w') as f:
        if names['header']:
            f.write('\n'.join(names['header']) + f'\nrank {len(terms)}\n')
        for t in terms:
            f.write('*'.join(fmt(v, l) for v, l in zip(t, 'abc')) + '\n')


def echelon_add(piv, v):
    """Reduce v by the pivots (highest bit each); add it where it stays nonzero. True if added."""
    while v:
        h = v.bit_length() - 1
        if h in piv:
            v ^= piv[h]
        else:
            piv[h] = v
            return True
    return False


def rank_of(vectors):
    piv = {}
    return sum(echelon_add(piv, v) for v in vectors)


def coordinates(vectors):
    """(dimension, each vector's coordinates in the basis of the first independent ones)."""
    piv, coords, dim = {}, [], 0
    for v in vectors:
        w, c = v, 0
        while w:
            h = w.bit_length() - 1
            if h not in piv:
                break
            w ^= piv[h][0]
            c ^= piv[h][1]
        if w:
            piv[w.bit_length() - 1] = (w, c ^ (1 << dim))
            coords.append(1 << dim)
            dim += 1
        else:
            coords.append(c)
    return dim, coords


def matrix_rank(m, cols):
    mask = (1 << cols) - 1
    rows = []
    while m:
        rows.append(m & mask)
        m >>= cols
    return rank_of(rows)


def span_members(basis):
    for mask in range(1, 1 << len(basis)):
        v = 0
        for i, b in enumerate(basis):
            if mask >> i & 1:
                v ^= b
        yield v


def slice_space(terms, p):
    """The slices of the sum along position p in local coordinates: (basis of S, rows, cols)."""
    q, r = (p + 1) % 3, (p + 2) % 3
    dx, cx = coordinates([t[p] for t in terms])
    dy, cy = coordinates([t[q] for t in terms])
    dz, cz = coordinates([t[r] for t in terms])
    slices = [0] * dx
    for i in range(len(terms)):
        m = 0
        for row in range(dy):
            if cy[i] >> row & 1:
                m |= cz[i] << (row * dz)
        for j in range(dx):
            if cx[i] >> j & 1:
                slices[j] ^= m
    piv = {}
    basis = [s for s in slices if echelon_add(piv, s)]
    return basis, dy, dz


def rank_at_most(terms, r, greedy=True):
    """Is the rank of the sum of the terms <= r?  True, False, or None (undecided).
    greedy=False skips the greedy bound (the self-check's second pass, so that
    the coset test is compared with brute force too)."""
    best = None
    for p in range(3):
        basis, dy, dz = slice_space(terms, p)
        if len(basis) > r:
            return False
        if best is None or len(basis) > len(best[0]):
            best = (basis, dy, dz)
    basis, dy, dz = best
    d = len(basis)
    members = [(matrix_rank(v, dz), v) for v in span_members(basis)]
    rank_one = [v for rank, v in members if rank == 1]
    if rank_of(rank_one) == d:
        return True                 # S has a rank-one basis: rank d <= r
    if d == r:
        return False
    # the cheapest basis of S by matrix rank (a matroid: greedy is optimal)
    piv, cost = {}, 0
    for rank, v in sorted(members):
        if echelon_add(piv, v):
            cost += rank
    if greedy and cost <= r:
        return True
    if d < r - 1:
        return None
    # d = r - 1: S + <B> for a rank-one B outside S must have a rank-one basis;
    # its rank-one members are those of S and those of the coset B + S
    piv = {}
    for b in basis:
        echelon_add(piv, b)
    tops = sorted(piv, reverse=True)
    cosets = defaultdict(list)
    for u in range(1, 1 << dy):
        for z in range(1, 1 << dz):
            m = 0
            for row in range(dy):
                if u >> row & 1:
                    m |= z << (row * dz)
            w = m
            for h in tops:
                if w >> h & 1:
                    w ^= piv[h]
            if w:
                cosets[w].append(m)
    return any(rank_of(rank_one + q) == d + 1 for q in cosets.values())


def zero_sums(terms, p):
    """Sets of 2 to 5 terms whose factors at position p sum to zero (sorted tuples)."""
    f = [t[p] for t in terms]
    n = len(terms)
    by_value = defaultdict(list)
    for i, v in enumerate(f):
        by_value[v].append(i)
    out = set()
    for same in by_value.values():
        out.update(itertools.combinations(same, 2))
    pair_sums = defaultdict(list)
    for i, j in itertools.combinations(range(n), 2):
        if f[i] != f[j]:
            pair_sums[f[i] ^ f[j]].append((i, j))
    for s, pairs in pair_sums.items():
        for k in by_value.get(s, ()):
            for i, j in pairs:
                out.add(tuple(sorted((i, j, k))))
        if len(pairs) <= 200:
            for (i, j), (k, l) in itertools.combinations(pairs, 2):
                if len({i, j, k, l}) == 4:
                    out.add(tuple(sorted((i, j, k, l))))
    for i, j, k in itertools.combinations(range(n), 3):
        for a, b in pair_sums.get(f[i] ^ f[j] ^ f[k], ()):
            if len({i, j, k, a, b}) == 5:
                out.add(tuple(sorted((i, j, k, a, b))))
    return out


def scan(terms, kmax, seconds):
    start = time.time()
    tested, undecided, found, seen = defaultdict(int), defaultdict(int), [], set()

    def test(d):
        if len(d) > kmax or d in seen:
            return
        seen.add(d)
        answer = rank_at_most([terms[x] for x in d], len(d) - 1)
        tested[len(d)] += 1
        if answer is None:
            undecided[len(d)] += 1
        elif answer:
            found.append(d)

    circ = [zero_sums(terms, p) for p in range(3)]
    by_term = [defaultdict(list) for _ in range(3)]
    for p in range(3):
        for c in circ[p]:
            test(c)
            for x in c:
                by_term[p][x].append(c)
    cut = False
    for ca in circ[0]:
        if time.time() - start > seconds:
            cut = True
            break
        for cb in {c for x in ca for c in by_term[1][x]}:
            u = set(ca) | set(cb)
            if len(u) > kmax:
                continue
            for cc in {c for x in u for c in by_term[2][x]}:
                test(tuple(sorted(u | set(cc))))
    return dict(tested), dict(undecided), found, [len(c) for c in circ], cut


def plant(terms):
    """The example of the docstring from terms i, k sharing b and any j with
    a_i, a_j, a_k independent: one more term, one planted set (the last four)."""
    for i, k in itertools.permutations(range(len(terms)), 2):
        if terms[i][1] != terms[k][1]:
            continue
        for j in range(len(terms)):
            a1, a2, a3 = terms[i][0], terms[j][0], terms[k][0]
            if j in (i, k) or rank_of([a1, a2, a3]) < 3:
                continue
            b, c1 = terms[i][1], terms[i][2]
            b2, c2 = terms[j][1], terms[j][2]
            c3 = terms[k][2]
            new = [(a1, b, c1 ^ c2), (a2, b ^ b2, c2), (a3, b, c3 ^ c2), (a1 ^ a2 ^ a3, b, c2)]
            if any(0 in t for t in new):
                continue
            return [t for x, t in enumerate(terms) if x not in (i, j, k)] + new
    return None


def self_check():
    n = 3

    def tensor(x, y, z):
        t = 0
        for i in range(n):
            for j in range(n):
                for k in range(n):
                    if x >> i & 1 and y >> j & 1 and z >> k & 1:
                        t ^= 1 << (i * n * n + j * n + k)
        return t
    ones = [tensor(x, y, z) for x in range(1, 8) for y in range(1, 8) for z in range(1, 8)]
    one, two = set(ones), {a ^ b for a in ones for b in ones}

    def brute(t, r):
        return (t == 0 or (r >= 1 and t in one) or (r >= 2 and t in two)
                or (r >= 3 and any(t ^ a in two for a in ones))
                or (r >= 4 and any(t ^ a ^ b in two for a in ones for b in ones)))
    counts, bad = defaultdict(int), 0
    for greedy in (True, False):
        rng = random.Random(7)
        for _ in range(6000):
            k = rng.choice([2, 3, 4, 5])
            terms = [tuple(rng.randrange(1, 8) for _ in range(3)) for _ in range(k)]
            t = 0
            for x in terms:
                t ^= tensor(*x)
            mine, ref = rank_at_most(terms, k - 1, greedy), brute(t, k - 1)
            counts[(greedy, k, mine, ref)] += 1
            bad += mine is not None and mine != ref
    for key in sorted(counts, key=str):
        print(f'greedy bound {"on " if key[0] else "off"}, k {key[1]}: test {key[2]}, brute force {key[3]}: {counts[key]}')
    print('self-check:', 'DISAGREES' if bad else 'agrees', f'({bad} disagreements)')
    return 1 if bad else 0


def main(argv):
    kmax, seconds, control, files = 9, 300.0, False, []
    it = iter(argv)
    for a in it:
        if a == '--k':
            kmax = int(next(it))
        elif a == '--seconds':
            seconds = float(next(it))
        elif a == '--control':
            control = True
        elif a == '--self-check':
            return self_check()
        else:
            files.append(a)
    if not files or kmax < 2:
        print(__doc__)
        return 2
    status = 0
    for path in files:
        terms, names = parse(path)
        if control:
            planted = plant(terms)
            if planted is None:
                print(f'{path}: no two terms share b: nothing to plant')
                status = 1
                continue
            write(path + '.control.txt', planted, names)
            found = scan(planted, kmax, seconds)[2]
            ok = tuple(range(len(planted) - 4, len(planted))) in found
            print(f'{path}.control.txt: rank {len(planted)}, the planted set {"found" if ok else "MISSED"}')
            status |= 0 if ok else 1
        tested, undecided, found, ncirc, cut = scan(terms, kmax, seconds)
        print(f'{path}: rank {len(terms)}, zero-sum sets at a, b, c {ncirc}, sets tested by size '
              f'{dict(sorted(tested.items()))}{" (cut at --seconds)" if cut else ""}, undecided '
              f'{dict(sorted(undecided.items()))}, lowering {len(found)}{" " + str(found[:5]) if found else ""}')
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
