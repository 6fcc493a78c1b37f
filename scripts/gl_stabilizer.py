#!/usr/bin/env python3
"""The change-of-basis symmetries of a scheme, modulo 2: the triples (P, Q, R)
of GL(n,2) x GL(m,2) x GL(p,2) under which the scheme's terms, read mod 2, map
onto themselves (a term a (x) b (x) c goes to P a Q^-1 (x) Q b R^-1 (x)
R c P^-1, in the cyclic convention of docs/formats.md: c is p x n).  Every such
triple is a symmetry of the matrix multiplication tensor (Burichenko, "The
isotropy group of the matrix multiplication tensor", 2016), so a scheme fixed
by one other than the identity lies in the smaller space a walk invariant
under it would search (docs/search.md, "Symmetric
walks"); scripts/perm_stabilizer.py covers the permutation matrices only.

Over Z an invertible integer triple that fixes a scheme reduces mod 2 to one
of these, unless it reduces to the identity (sign changes such as P = diag(-1,
1, ...), which mod 2 cannot see).

  scripts/gl_stabilizer.py [--control] FILE.exp ...

FILE is an .exp file (`flipgraph convert --to exp FILE -o FILE.exp` writes one
from any format flipgraph reads).  Prints, per file, the format, the rank, the
order of the stabilizer (the identity counted) and the first few of its other
elements; then, for each of the five maps that permute the three factors and
keep the format (the cyclic shift on <n,n,n>, the transposition on <n,m,n>,
either composed with a shift on <n,n,p> and <n,m,m>; with the changes of basis
they make the whole symmetry group of the tensor: Burichenko, "The isotropy
group of the matrix multiplication tensor", 2016), how many triples take the
scheme to its image under that map, each a symmetry of the scheme; for a file
with a negative coefficient, how many triples of diagonal sign matrices fix it
over Z (symmetries that mod 2 cannot see).

How: the scheme is shifted cyclically so that its largest dimension is p.  P
and Q are enumerated by backtracking, column by column, keeping only the
matrices that map the set of column vectors x of the rank-one factors x y^T of
their position (a for P, b for Q) into itself, which every symmetry does; a
pair (P, Q) must then map the a factors onto themselves as a multiset.  The
terms whose a factor's image is unique then give linear equations for R (R c
P^-1 is the c of the term they go to); where those do not fix R, R is
enumerated like P and Q.  Each triple left is checked term by term.
--control first runs Strassen's <2,2,2>:7 written mod 2 and the same scheme
after a fixed change of basis (the two orders must agree with each other and
with a brute force over all 216 triples; with the five maps, 36 symmetries in
all, as Burichenko, "On symmetries of the Strassen algorithm", 2014, counts),
and the standard <2,2,3> and <3,2,2> (the second shifted before the search),
which exactly the 24 permutation triples fix, as the brute force finds, 24
more with the transposition composed with a shift, and all 128 triples of
diagonal sign matrices over Z.  Research aid (bench/RESULTS.md, seventy-fourth
session); tests/check_stabilizer.sh runs it in ctest.
"""
import itertools
import sys
from collections import Counter

from perm_stabilizer import mod2, parse_terms


def rows_of(entries, nrows):
    """A factor given as its set of (row, column) entries -> tuple of row bitmasks."""
    rows = [0] * nrows
    for i, j in entries:
        rows[i] ^= 1 << j
    return tuple(rows)


def masks_of(fmt, terms):
    """Each term's three factors as row bitmasks (a is n x m, b m x p, c p x n)."""
    n, m, p = fmt
    dims = [(n, m), (m, p), (p, n)]
    return [tuple(rows_of(t[pos], dims[pos][0]) for pos in range(3)) for t in terms]


def transformed(P, Q, R, mats):
    """The terms (row bitmasks) after (P, Q, R): a -> P a Q^-1, b -> Q b R^-1,
    c -> R c P^-1, sorted."""
    Pi, Qi, Ri = inverse(P), inverse(Q), inverse(R)
    return sorted((matmul(matmul(P, a), Qi), matmul(matmul(Q, b), Ri), matmul(matmul(R, c), Pi))
                  for a, b, c in mats)


def combine(mask, vectors):
    """The sum over GF(2) of the vectors picked by the bits of mask."""
    acc, j = 0, 0
    while mask:
        if mask & 1:
            acc ^= vectors[j]
        mask >>= 1
        j += 1
    return acc


def matmul(a, b):
    """(rows of a) x (rows of b) over GF(2): row i of the product is the sum of
    the rows of b picked by the bits of row i of a."""
    return tuple(combine(r, b) for r in a)


def inverse(a):
    """Inverse of a square GF(2) matrix given by row masks, or None."""
    n = len(a)
    rows = [a[i] | (1 << (n + i)) for i in range(n)]
    for col in range(n):
        piv = next((r for r in range(col, n) if rows[r] >> col & 1), None)
        if piv is None:
            return None
        rows[col], rows[piv] = rows[piv], rows[col]
        for r in range(n):
            if r != col and rows[r] >> col & 1:
                rows[r] ^= rows[col]
    return tuple(r >> n for r in rows)


def rank_one_columns(factor):
    """The column vector x of a rank-one factor x y^T (bit i set where row i is
    nonzero), or None for any other rank."""
    nonzero = [r for r in factor if r]
    if not nonzero or any(r != nonzero[0] for r in nonzero):
        return None
    return sum(1 << i for i, r in enumerate(factor) if r)


def candidates(size, src, dst=None):
    """Every invertible size x size GF(2) matrix M (as row masks) with M x in
    `dst` (default `src`) for every x in `src`, found column by column: once the
    columns of x's support are chosen, M x is fixed and is checked."""
    wanted = set(src if dst is None else dst)
    checks = [[] for _ in range(size)]   # vectors whose highest bit is column c
    for x in set(src):
        checks[x.bit_length() - 1].append(x)
    cols, found = [], []
    spans = [{0}]            # spans[c]: the span of the first c columns

    def go(c):
        if c == size:
            # columns -> rows
            found.append(tuple(sum(((cols[j] >> i) & 1) << j for j in range(size))
                               for i in range(size)))
            return
        for v in range(1, 1 << size):
            if v in spans[c]:
                continue
            cols.append(v)
            if all(combine(x, cols) in wanted for x in checks[c]):
                spans.append(spans[c] | {s ^ v for s in spans[c]})
                go(c + 1)
                spans.pop()
            cols.pop()

    go(0)
    return found


def stabilizer(fmt, terms, limit=4, target=None):
    """The order of the group of triples (P, Q, R) fixing the scheme mod 2, and
    up to `limit` of its elements other than the identity; with `target` (a
    scheme of the same format), the triples taking `terms` to `target` instead.
    The scheme is first shifted cyclically so that its largest dimension comes
    last: that matrix is solved for, not enumerated (a symmetry (P, Q, R) of the
    scheme is (Q, R, P) of the shifted scheme (b, c, a))."""
    k = max(range(3), key=lambda r: (fmt[(r + 2) % 3], -r))
    rfmt = fmt[k:] + fmt[:k]
    rterms = [t[k:] + t[:k] for t in terms]
    rtarget = None if target is None else [t[k:] + t[:k] for t in target]
    order, found = stabilizer_shifted(rfmt, rterms, limit, rtarget)
    return order, [tuple(x[(3 - k) % 3:] + x[:(3 - k) % 3]) for x in (list(f) for f in found)]


def stabilizer_shifted(fmt, terms, limit, target):
    n, m, p = fmt
    dims = [(n, m), (m, p), (p, n)]
    mats = masks_of(fmt, terms)
    goal = mats if target is None else masks_of(fmt, target)

    def columns(scheme, pos):
        return [x for x in (rank_one_columns(t[pos]) for t in scheme) if x is not None]

    lists = [candidates(dims[pos][0], columns(mats, pos), columns(goal, pos)) for pos in range(2)]
    r_list = None                # R enumerated only where the terms do not fix it
    want_a = Counter(t[0] for t in goal)
    where_a = {t[0]: t for t in goal if want_a[t[0]] == 1}
    want = sorted(goal)
    found, order = [], 0
    for P in lists[0]:
        Pi = inverse(P)
        for Q in lists[1]:
            Qi = inverse(Q)
            img_a = [matmul(matmul(P, t[0]), Qi) for t in mats]
            if Counter(img_a) != want_a:
                continue
            # a term whose a factor is the goal's only one with that image goes to
            # that goal term: R c P^-1 = c', so R maps each column of c to that of c' P
            pairs = []
            for a, t in zip(img_a, mats):
                if a in where_a:
                    pairs.extend(zip(columns_of(t[2], n), columns_of(matmul(where_a[a][2], P), n)))
            R, agree = solve_linear_map(pairs, p)
            if R is not None:
                tries = [R] if inverse(R) is not None else []
            elif not agree:
                tries = []
            else:
                if r_list is None:
                    r_list = candidates(p, columns(mats, 2), columns(goal, 2))
                tries = r_list
            for R in tries:
                Ri = inverse(R)
                img = sorted((a, matmul(matmul(Q, t[1]), Ri), matmul(matmul(R, t[2]), Pi))
                             for a, t in zip(img_a, mats))
                if img != want:
                    continue
                order += 1
                if (P, Q, R) != (identity(n), identity(m), identity(p)) and len(found) < limit:
                    found.append((P, Q, R))
    return order, found


def columns_of(mat, ncols):
    """The columns of a matrix given by row masks, each as a mask over the rows."""
    return [sum(((r >> j) & 1) << i for i, r in enumerate(mat)) for j in range(ncols)]


def reduce_pairs(pairs):
    """Gaussian elimination on the pairs (v, w) of a wanted map v -> w: the basis
    (leading bits distinct, largest first) and whether the pairs agree."""
    basis = []
    for v, w in pairs:
        for bv, bw in basis:
            if v ^ bv < v:
                v, w = v ^ bv, w ^ bw
        if v:
            basis.append((v, w))
            basis.sort(reverse=True)
        elif w:
            return basis, False
    return basis, True


def solve_linear_map(pairs, size):
    """(M, agree): M the size x size matrix (row masks) with M v = w for every
    (v, w), or None when the pairs disagree or do not span; agree, whether
    some matrix satisfies them all."""
    basis, agree = reduce_pairs(pairs)
    if not agree or len(basis) != size:
        return None, agree
    cols = []
    for j in range(size):
        v, w = 1 << j, 0
        for bv, bw in basis:
            if v ^ bv < v:
                v, w = v ^ bv, w ^ bw
        cols.append(w)
    return tuple(sum(((cols[j] >> i) & 1) << j for j in range(size)) for i in range(size)), True


def transpose_set(f):
    return {(j, i) for i, j in f}


def outer_maps(fmt, terms):
    """The images of a scheme under the five symmetries of the matrix
    multiplication tensor that permute its three factors, as (name, terms) for
    those that keep the format: the cyclic shift (a, b, c) -> (b, c, a) takes
    <n,m,p> to <m,p,n> (tr(XYZ) = tr(YZX)); the transposition (a, b, c) ->
    (b^T, a^T, c^T) takes it to <p,m,n> (tr(XYZ) = tr(Z^T Y^T X^T))."""
    n, m, p = fmt

    def shift(f, ts):
        return (f[1], f[2], f[0]), [[b, c, a] for a, b, c in ts]

    def transpose(f, ts):
        return (f[2], f[1], f[0]), [[transpose_set(b), transpose_set(a), transpose_set(c)]
                                    for a, b, c in ts]

    out = []
    once = shift(fmt, terms)
    twice = shift(*once)
    flipped = transpose(fmt, terms)
    flipped_once = shift(*flipped)
    flipped_twice = shift(*flipped_once)
    for name, (f, ts) in (('the cyclic shift', once), ('the shift twice', twice),
                          ('the transposition', flipped),
                          ('the transposition and the shift', flipped_once),
                          ('the transposition and the shift twice', flipped_twice)):
        if f == fmt:
            out.append((name, ts))
    return out


def identity(size):
    return tuple(1 << i for i in range(size))


def sign_symmetries(fmt, terms):
    """How many triples of diagonal sign matrices (P, Q, R) fix the scheme over
    Z, each term read as a tensor (a sign moved between its factors is the same
    term).  Mod 2 they are all the identity; the 8 scalar triples fix every scheme."""
    n, m, p = fmt

    def normal(term):
        sign, out = 1, []
        for f in term:
            items = sorted(f.items())
            if items[0][1] < 0:
                sign, items = -sign, [(e, -c) for e, c in items]
            out.append(tuple(items))
        return (sign, *out)

    want = sorted(normal(t) for t in terms)
    count = 0
    for P in itertools.product((1, -1), repeat=n):
        for Q in itertools.product((1, -1), repeat=m):
            for R in itertools.product((1, -1), repeat=p):
                img = sorted(normal([{(i, j): c * P[i] * Q[j] for (i, j), c in t[0].items()},
                                     {(j, k): c * Q[j] * R[k] for (j, k), c in t[1].items()},
                                     {(k, i): c * R[k] * P[i] for (k, i), c in t[2].items()}])
                             for t in terms)
                count += img == want
    return count


def show(mat):
    return '/'.join(''.join(str(r >> j & 1) for j in range(len(mat))) for r in mat)


STRASSEN = [  # <2,2,2>:7 in the cyclic convention, entries (row, column), mod 2
    [{(0, 0), (1, 1)}, {(0, 0), (1, 1)}, {(0, 0), (1, 1)}],
    [{(1, 0), (1, 1)}, {(0, 0)}, {(0, 1), (1, 1)}],
    [{(0, 0)}, {(0, 1), (1, 1)}, {(1, 0), (1, 1)}],
    [{(1, 1)}, {(1, 0), (0, 0)}, {(0, 0), (0, 1)}],
    [{(0, 0), (0, 1)}, {(1, 1)}, {(1, 0), (0, 0)}],
    [{(1, 0), (0, 0)}, {(0, 0), (0, 1)}, {(1, 1)}],
    [{(0, 1), (1, 1)}, {(1, 0), (1, 1)}, {(0, 0)}],
]


def valid(fmt, terms):
    n, m, p = fmt
    acc = Counter()
    for a, b, c in terms:
        for (i, j) in a:
            for (j2, k) in b:
                for (k2, i2) in c:
                    acc[(i, j, j2, k, k2, i2)] ^= 1
    want = {(i, j, j, k, k, i) for i in range(n) for j in range(m) for k in range(p)}
    return {e for e, v in acc.items() if v} == want


def brute_force_order(fmt, terms):
    """The stabilizer's order by trying every triple: the reference the
    backtracking search is checked against in --control (small formats only)."""
    n, m, p = fmt
    mats = sorted(masks_of(fmt, terms))
    return sum(transformed(P, Q, R, mats) == mats
               for P in candidates(n, []) for Q in candidates(m, []) for R in candidates(p, []))


def takes(fmt, terms, triple, target):
    """Whether the triple takes `terms` to `target`, checked from the definition:
    the check of every triple the search returns."""
    return transformed(*triple, masks_of(fmt, terms)) == sorted(masks_of(fmt, target))


def control():
    fmt = (2, 2, 2)
    if not valid(fmt, STRASSEN):
        print('control: Strassen table is not a <2,2,2> scheme: FAILED')
        return False
    order, found = stabilizer(fmt, STRASSEN)
    # the same scheme after P0 = [[1,1],[0,1]], Q0 = [[1,0],[1,1]], R0 = [[0,1],[1,1]]
    P0, Q0, R0 = (0b11, 0b10), (0b01, 0b11), (0b10, 0b11)
    mats = [[{(i, j) for i in range(2) for j in range(2) if f[i] >> j & 1} for f in t]
            for t in transformed(P0, Q0, R0, masks_of(fmt, STRASSEN))]
    ok_valid = valid(fmt, mats)
    order2, _ = stabilizer(fmt, mats)
    brute, brute2 = brute_force_order(fmt, STRASSEN), brute_force_order(fmt, mats)
    whole = order + sum(stabilizer(fmt, STRASSEN, target=image)[0]
                        for _, image in outer_maps(fmt, STRASSEN))
    # Burichenko, "On symmetries of the Strassen algorithm", 2014: S3 x S3, order 36
    ok = order > 1 and order2 == order == brute == brute2 and ok_valid and whole == 36
    ok_std = True
    for sfmt in ((2, 2, 3), (3, 2, 2)):   # the second is shifted before the search
        n, m, p = sfmt
        std = [[{(i, j)}, {(j, k)}, {(k, i)}] for i in range(n) for j in range(m) for k in range(p)]
        s_order, s_found = stabilizer(sfmt, std, limit=30)
        s_brute = brute_force_order(sfmt, std)
        s_fix = all(takes(sfmt, std, x, std) for x in s_found)
        (name, image), = outer_maps(sfmt, std)
        s_more, _ = stabilizer(sfmt, std, target=image)
        s_signs = sign_symmetries(sfmt, [[{e: 1 for e in f} for f in t] for t in std])
        this = s_order == s_brute == s_more == 24 and s_signs == 128 and s_fix and len(s_found) == 23
        print(f'control: the standard <{n},{m},{p}> (its symmetries: the 2! 2! 3! = 24 permutation '
              f'triples): order {s_order}, every triple tried {s_brute}, the 23 others found each '
              f'fix it {s_fix}, after {name} {s_more} more, sign triples over Z {s_signs} of 128: '
              f'{"ok" if this else "FAILED"}')
        ok_std = ok_std and this
    ok = ok and ok_std
    print(f'control: Strassen <2,2,2>:7 mod 2 stabilizer order {order}; after a change of basis '
          f'{order2} (valid {ok_valid}); every triple tried: {brute} and {brute2}; with the five '
          f'maps that permute the factors {whole} in all (36 published): '
          f'{"ok" if ok else "FAILED"}')
    return ok


def main(argv):
    files = [a for a in argv if a != '--control']
    if not files and '--control' not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    if '--control' in argv and not control():
        return 1
    for path in files:
        try:
            fmt, signed = parse_terms(path)
        except OSError as err:
            print(f'{path}: cannot read: {err.strerror}', file=sys.stderr)
            return 2
        except ValueError as err:
            print(err, file=sys.stderr)
            return 2
        n, m, p = fmt
        terms = mod2(signed)
        if not terms:
            print(f'{path}: no terms read (expected .exp lines such as (a11+a22)*(b11)*(c11-c21))',
                  file=sys.stderr)
            return 2
        if not valid(fmt, terms):
            print(f'{path}: not a valid <{n},{m},{p}> scheme mod 2', file=sys.stderr)
            return 2
        order, found = stabilizer(fmt, terms)
        if not all(takes(fmt, terms, x, terms) for x in found):
            print(f'{path}: a triple found does not fix the scheme: internal error', file=sys.stderr)
            return 3
        print(f'{path}: <{n},{m},{p}> rank {len(terms)}: stabilizer in GL({n},2) x GL({m},2) x '
              f'GL({p},2) of order {order}' +
              ''.join(f'\n  P {show(P)}  Q {show(Q)}  R {show(R)}' for P, Q, R in found))
        for name, image in outer_maps(fmt, terms):
            if not valid(fmt, image):
                print(f'{path}: its image under {name} is not valid: internal error', file=sys.stderr)
                return 3
            more, found = stabilizer(fmt, terms, target=image)
            if not all(takes(fmt, terms, x, image) for x in found):
                print(f'{path}: a triple found does not take the scheme to its image under {name}: '
                      'internal error', file=sys.stderr)
                return 3
            print(f'  after {name}: {more} more' +
                  ''.join(f'\n  P {show(P)}  Q {show(Q)}  R {show(R)} after it' for P, Q, R in found))
        if any(c < 0 for t in signed for f in t for c in f.values()):
            print(f'  over Z, triples of diagonal sign matrices that fix it: '
                  f'{sign_symmetries(fmt, signed)} (the 8 scalar ones fix every scheme)')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
