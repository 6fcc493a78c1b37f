#!/usr/bin/env python3
"""GF(2) schemes beyond flipgraph's 64-entry factors: read, check and write them.

flipgraph holds a factor in one 64-bit word (schemes/scheme.h), so `<9,9,9>` (81
entries) and larger are refused by every command.  This script and
scripts/wide_walk.c stand in for it on such formats until the engine has wider
factors (docs/search.md, "Beyond 64 entries").  Research aid, not part of the
build; tests/check_wide_scheme.sh runs it where python3 is installed.

  scripts/wide_scheme.py from-json IN.json OUT.hex   the catalogue's JSON (Perminov's
                                                     FastMatrixMultiplication, n/m/u/v/w),
                                                     coefficients mod 2, to the hex layout
  scripts/wide_scheme.py to-json IN.hex OUT.json     the hex layout to that JSON ("z2": true)
  scripts/wide_scheme.py product A B OUT.hex         the tensor product of two schemes (hex or
                                                     JSON), checked, to the hex layout
  scripts/wide_scheme.py project IN n|m|p OUT.hex     one index of that dimension deleted, the
                                                     one that leaves the fewest terms, checked
  scripts/wide_scheme.py verify [--flipgraph BIN] FILE ...
                                                     the checks below; exit 1 on a failure
  scripts/wide_scheme.py --self-check [--flipgraph BIN]

The hex layout (wide_walk.c reads and writes it): a line "n m p rank", then one line
per term of three hexadecimal numbers, the A, B and C factors with bit i*m+j of A,
j*p+k of B and k*n+i of C (the cyclic convention of docs/formats.md; the JSON rows
in the same order, as flipgraph's JSON reader takes them).

The checks (FILE: hex or JSON): (1) the Brent equations, plainly: for every entry x
of A and y of B the sum over terms with a[x] b[y] = 1 of the C factors must be the
one entry (k, i) where x = (i, j), y = (j, k), else zero; (2) the scheme as an
algorithm: 256 products of random GF(2) matrices (bit-sliced, 64 at a time) computed
with the scheme's products and compared with the plain product.  The two share no
code beyond the file reader; a scheme with one coefficient changed fails both
(tested by `--self-check [--flipgraph BIN]`, which also checks the standard
algorithm of <3,4,5>, and with BIN the third check too).
(3) With `--flipgraph BIN`, flipgraph's own verifier, on every projection that
deletes one index of each dimension (n*m*p of them, each a scheme of
<n-1,m-1,p-1>, terms with a zero factor left out, written as JSON): a Brent
equation names at most two values of each index, so some projection keeps it, and
the scheme is valid exactly when all projections are.  This needs every
dimension >= 3 (two values of an index must leave a third to delete) and
(n-1)(m-1), (m-1)(p-1), (p-1)(n-1) <= 64 (flipgraph's factors): among the
squares, <9,9,9> only; elsewhere the line says the check was not made.
"""
import json
import os
import random
import subprocess
import sys
import tempfile


def read(path):
    """(n, m, p), [(a, b, c)] with the factors as integers (bit sets), from hex or JSON."""
    text = open(path).read()
    if text.lstrip().startswith('{'):
        d = json.loads(text)
        n, m, p = d['n']
        terms = []
        for t in range(len(d['u'])):
            ws = []
            for key, size in (('u', n * m), ('v', m * p), ('w', p * n)):
                row = d[key][t]
                if len(row) != size:
                    sys.exit(f'{path}: term {t + 1}: {key} has {len(row)} entries, not {size}')
                ws.append(sum(1 << e for e, v in enumerate(row) if int(v) % 2))
            terms.append(tuple(ws))
        return (n, m, p), terms
    lines = [(k + 1, l) for k, l in enumerate(text.split('\n')) if l.strip()]
    if not lines:
        sys.exit(f'{path}: empty; expected a line "n m p rank" and then the terms')
    try:
        n, m, p, r = map(int, lines[0][1].split())
    except ValueError:
        sys.exit(f'{path}:{lines[0][0]}: expected "n m p rank" (four integers)')
    terms = []
    for number, l in lines[1:]:
        try:
            t = tuple(int(x, 16) for x in l.split())
        except ValueError:
            t = ()
        if len(t) != 3:
            sys.exit(f'{path}:{number}: expected three hexadecimal factors (A, B, C)')
        terms.append(t)
    if len(terms) != r:
        sys.exit(f'{path}: the header says rank {r}, the file holds {len(terms)} terms')
    return (n, m, p), terms


def write_whole(path, text):
    """path whole or not at all: a temporary file beside it, then a rename."""
    with open(path + '.tmp', 'w') as f:
        f.write(text)
    os.replace(path + '.tmp', path)


def write_hex(path, dims, terms):
    n, m, p = dims
    write_whole(path, f'{n} {m} {p} {len(terms)}\n' + ''.join(' '.join(f'{w:x}' for w in t) + '\n' for t in terms))


def write_json(path, dims, terms):
    n, m, p = dims
    text = '{\n  "n": ' + json.dumps([n, m, p]) + ',\n  "m": ' + str(len(terms)) + ',\n  "z2": true'
    for q, (key, size) in enumerate((('u', n * m), ('v', m * p), ('w', p * n))):
        rows = ([t[q] >> e & 1 for e in range(size)] for t in terms)
        text += ',\n  "' + key + '": [\n    ' + ',\n    '.join(json.dumps(r, separators=(',', ':')) for r in rows) + '\n  ]'
    write_whole(path, text + '\n}\n')


def bits(w, size):
    return [x for x in range(size) if w >> x & 1]


def brent(dims, terms):
    """The number of (x, y) pairs whose C sum is wrong (0: valid)."""
    n, m, p = dims
    rows = {}
    for a, b, c in terms:
        for x in bits(a, n * m):
            for y in bits(b, m * p):
                rows[x, y] = rows.get((x, y), 0) ^ c
    bad = 0
    for x in range(n * m):
        i, j = divmod(x, m)
        for y in range(m * p):
            j2, k = divmod(y, p)
            want = 1 << (k * n + i) if j == j2 else 0
            bad += rows.get((x, y), 0) != want
    return bad


def products(dims, terms, rounds=4, seed=12345):
    """The number of wrong entries over 64 * rounds random products (0: all agree)."""
    n, m, p = dims
    rng = random.Random(seed)
    bad = 0
    for _ in range(rounds):
        A = [rng.getrandbits(64) for _ in range(n * m)]
        B = [rng.getrandbits(64) for _ in range(m * p)]
        C = [[0] * p for _ in range(n)]
        for a, b, c in terms:
            sa = 0
            for x in bits(a, n * m):
                sa ^= A[x]
            sb = 0
            for y in bits(b, m * p):
                sb ^= B[y]
            prod = sa & sb
            for z in bits(c, p * n):
                k, i = divmod(z, n)
                C[i][k] ^= prod
        for i in range(n):
            for k in range(p):
                want = 0
                for j in range(m):
                    want ^= A[i * m + j] & B[j * p + k]
                bad += bin(C[i][k] ^ want).count('1')
    return bad


def delete_indices(dims, terms, deleted):
    """The scheme with index deleted[d] of dimension d deleted (0: n, 1: m, 2: p; -1: none):
    the Brent equations of the smaller format are among the larger one's, so the terms that
    keep three nonzero factors, with equal terms cancelled in pairs (GF(2)), are a scheme of it."""
    sizes = (dims[0], dims[1]), (dims[1], dims[2]), (dims[2], dims[0])
    rows_cols = ((0, 1), (1, 2), (2, 0))

    def keep(w, q):
        rows, cols = sizes[q]
        drow, dcol = deleted[rows_cols[q][0]], deleted[rows_cols[q][1]]
        out, e = 0, 0
        for r in range(rows):
            if r == drow:
                continue
            for c in range(cols):
                if c != dcol:
                    out |= (w >> (r * cols + c) & 1) << e
                    e += 1
        return out
    odd = {}
    for t in terms:
        k = (keep(t[0], 0), keep(t[1], 1), keep(t[2], 2))
        if all(k):
            odd[k] = not odd.get(k, False)
    smaller = tuple(d - (x >= 0) for d, x in zip(dims, deleted))
    return smaller, [k for k, v in odd.items() if v]


def kron(w1, rows1, cols1, w2, rows2, cols2):
    """The Kronecker product of two factors: entry ((r1, r2), (c1, c2)) is w1[r1, c1] w2[r2, c2]."""
    out = 0
    for r1 in range(rows1):
        for c1 in range(cols1):
            if w1 >> (r1 * cols1 + c1) & 1:
                for r2 in range(rows2):
                    for c2 in range(cols2):
                        if w2 >> (r2 * cols2 + c2) & 1:
                            out |= 1 << ((r1 * rows2 + r2) * (cols1 * cols2) + c1 * cols2 + c2)
    return out


def product(dims1, terms1, dims2, terms2):
    """The tensor product of two schemes: <n1 n2, m1 m2, p1 p2> of rank r1 r2, a block scheme of
    the first whose block products are the second's (the classical construction of a larger
    scheme from two smaller ones, as `flipgraph resize --product` does within 64 entries)."""
    (n1, m1, p1), (n2, m2, p2) = dims1, dims2
    terms = [(kron(a1, n1, m1, a2, n2, m2), kron(b1, m1, p1, b2, m2, p2), kron(c1, p1, n1, c2, p2, n2))
             for a1, b1, c1 in terms1 for a2, b2, c2 in terms2]
    return (n1 * n2, m1 * m2, p1 * p2), terms


def projections_by_flipgraph(flipgraph, dims, terms):
    """The number of projections flipgraph verify does not call valid (-1: cannot run)."""
    n, m, p = dims
    if min(dims) < 3 or (n - 1) * (m - 1) > 64 or (m - 1) * (p - 1) > 64 or (p - 1) * (n - 1) > 64:
        return -1
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for dn in range(n):
            for dm in range(m):
                for dp in range(p):
                    pd, pt = delete_indices(dims, terms, (dn, dm, dp))
                    path = os.path.join(tmp, f'proj_{dn}_{dm}_{dp}.json')
                    write_json(path, pd, pt)
                    paths.append(path)
        out = subprocess.run([flipgraph, 'verify'] + paths, capture_output=True, text=True)
        return sum(1 for line in out.stdout.splitlines() if not line.endswith(': valid')) + \
            (len(paths) - len(out.stdout.splitlines()))


def name(dims):
    return '<%d,%d,%d>' % tuple(dims)


def write_checked(path, dims, terms, refusal, how):
    """OUT of a command that builds a scheme: written only when it satisfies the Brent equations."""
    if brent(dims, terms):
        sys.exit(refusal)
    write_hex(path, dims, terms)
    print(f'{path}: {name(dims)} rank {len(terms)} over GF(2), {how}')


def check(path, dims, terms, flipgraph=None):
    zero = sum(1 for t in terms if not all(t))
    b, q = brent(dims, terms), products(dims, terms)
    n, m, p = dims
    ok = not zero and not b and not q
    how = 'Brent equations; 256 random products agree'
    proj = None
    if flipgraph:
        proj = projections_by_flipgraph(flipgraph, dims, terms)
        ok &= proj <= 0  # -1: not made (said below)
        how += f'; flipgraph verify: {n * m * p - max(proj, 0)} of {n * m * p} projections valid' if proj >= 0 else \
            '; no flipgraph check: its projections do not fit flipgraph or do not cover every equation'
    print(f'{path}: {name(dims)} rank {len(terms)} over GF(2): ' +
          (f'valid ({how})' if ok else
           f'NOT VALID: {zero} terms with a zero factor, {b} Brent rows wrong, {q} product entries wrong' +
           (f', {proj} projections not valid by flipgraph' if proj and proj > 0 else '')))
    return ok


def self_check(flipgraph=None):
    dims = (3, 4, 5)
    n, m, p = dims
    std = [(1 << (i * m + j), 1 << (j * p + k), 1 << (k * n + i)) for i in range(n) for j in range(m) for k in range(p)]
    if not check('standard <3,4,5>', dims, std):
        return False
    rng = random.Random(7)
    for _ in range(20):
        t = list(std)
        r, q = rng.randrange(len(t)), rng.randrange(3)
        size = (n * m, m * p, p * n)[q]
        term = list(t[r])
        term[q] ^= 1 << rng.randrange(size)
        t[r] = tuple(term)
        if not all(term):
            continue
        if brent(dims, t) == 0 or products(dims, t) == 0:
            print('self-check: a changed coefficient passed a check')
            return False
        if flipgraph and projections_by_flipgraph(flipgraph, dims, t) <= 0:
            print('self-check: a changed coefficient passed flipgraph on every projection')
            return False
    if flipgraph and projections_by_flipgraph(flipgraph, dims, std) != 0:
        print('self-check: a projection of the standard algorithm fails flipgraph verify')
        return False
    print('self-check: the standard algorithm passes, 20 one-coefficient changes fail ' +
          ('all three checks' if flipgraph else 'both checks'))
    return True


def main(argv):
    if argv[:1] == ['--self-check']:
        flipgraph = argv[2] if argv[1:2] == ['--flipgraph'] and len(argv) == 3 else None
        return 0 if self_check(flipgraph) else 1
    if len(argv) == 3 and argv[0] == 'from-json':
        dims, terms = read(argv[1])
        write_hex(argv[2], dims, terms)
        return 0
    if len(argv) == 3 and argv[0] == 'to-json':
        dims, terms = read(argv[1])
        write_json(argv[2], dims, terms)
        return 0
    if len(argv) == 4 and argv[0] == 'product':
        dims1, terms1 = read(argv[1])
        dims2, terms2 = read(argv[2])
        dims, terms = product(dims1, terms1, dims2, terms2)
        write_checked(argv[3], dims, terms,
                      'product: the product does not satisfy the Brent equations (are both inputs schemes?)',
                      f'the product of {name(dims1)}:{len(terms1)} and {name(dims2)}:{len(terms2)}')
        return 0
    if len(argv) == 4 and argv[0] == 'project' and argv[2] in ('n', 'm', 'p'):
        dims, terms = read(argv[1])
        dim = 'nmp'.index(argv[2])
        if dims[dim] < 2:
            sys.exit(f'project: {argv[2]} is {dims[dim]} already')
        # the first index of those that leave the fewest terms
        index, (smaller, kept) = min(
            ((index, delete_indices(dims, terms, [index if d == dim else -1 for d in range(3)]))
             for index in range(dims[dim])), key=lambda candidate: len(candidate[1][1]))
        write_checked(argv[3], smaller, kept,
                      'project: the projection does not satisfy the Brent equations (is the input a scheme?)',
                      f'index {index} of {argv[2]} deleted (the lowest of the {dims[dim]})')
        return 0
    if len(argv) >= 2 and argv[0] == 'verify':
        flipgraph = None
        files = argv[1:]
        if files[:1] == ['--flipgraph'] and len(files) >= 3:
            flipgraph, files = files[1], files[2:]
        ok = True
        for path in files:
            dims, terms = read(path)
            ok &= check(path, dims, terms, flipgraph)
        return 0 if ok else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
