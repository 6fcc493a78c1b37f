#!/usr/bin/env python3
"""Large-neighbourhood moves by SAT: keep most coefficients of a GF(2) scheme,
drop D of its terms, and ask a SAT solver for values of the rest that make the
r - D remaining terms a scheme again.  A flip changes one factor of one term by
another term's factor; this move changes any coefficients of any terms at once,
so it reaches schemes that no short flip sequence does, and a "yes" with D >= 1
is a scheme of lower rank.  After Heule, Kauers, Seidl, "New ways to multiply
3x3-matrices" (2019), who solve the Brent equations with a SAT solver, and the
"alternative scheme finding" of Perminov's FastMatrixMultiplication
(docs/references.md), which keeps each coefficient with probability 0.8 and lets
CryptoMiniSat (Soos, Nohl, Castelluccia 2009) find the rest.

The equations: for every entry x of A, y of B, z of C (the cyclic convention of
docs/formats.md), the sum over terms of a_t[x] b_t[y] c_t[z] is 1 exactly when
x = (i,j), y = (j,k), z = (k,i).  A kept coefficient is a constant, a free one
a variable; a product of two or three variables is an AND gate (an auxiliary
variable with its clauses), and each equation one XOR clause, which
CryptoMiniSat takes natively ("x1 -2 3 0").  Which coefficients go free:
`--keep P` keeps each with probability P (default 0.8); `--free-terms K` picks K
more terms, those sharing the most support with the dropped ones, and keeps each
of their coefficients with probability `--keep-freed Q` instead (default 0: the
whole term free).  The dropped terms are drawn uniformly.  With `--drop 0` the
input itself is a solution, so one clause asks for another (some free coefficient
differs): a "yes" is a different scheme of the same rank.

  scripts/sat_neighbourhood.py [--drop D] [--keep P] [--free-terms K] [--keep-freed Q]
      [--tries N] [--seconds T] [--solver-seconds S] [--seed N] [--out DIR]
      [--flipgraph BIN] [--control] [FILE]

FILE: any scheme file flipgraph reads (`flipgraph convert --to native` reads it;
coefficients mod 2).  Each try: draw, encode, solve (at most S seconds, default
10); a solution is written to DIR (default: the current folder) as
NxMxP_rRANK_tryK.txt (native, GF(2); terms with a zero factor left out) and checked
with `flipgraph verify` (the CPU verifier decides, not this script; a solution that
does not verify stops the script with exit 1).  A try whose kept coefficients
already contradict an equation is counted as a contradiction, without the solver.
Stops after N tries (default 100) or T seconds (default 600), or at the first
scheme below the input's rank.  Prints a line per try (sat / unsat / unknown,
variables, clauses, seconds) and the counts.  `--control` first runs the standard
algorithm of <2,2,2> with D = 1 and nothing kept: it must find a rank-7 scheme
(Strassen's rank), exit 1 otherwise.  The flipgraph binary: --flipgraph, else
$FLIPGRAPH_BIN, else `flipgraph` on the PATH.

What it found (bench/RESULTS.md, "SAT neighbourhoods"): nothing lower, even at a
<4,4,4> on a walk's way down: where most coefficients are kept the answer is a fast
"no", where fewer are the solver does not finish; no move is built on it.

Needs the `cryptominisat5` binary (Debian package cryptominisat).  Research aid
(bench/RESULTS.md, seventy-second session); not part of the build or the tests.
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time

ENTRY = re.compile(r'([+-]?)\s*(?:(\d+)\s*\*?\s*)?([abc])(\d+)_(\d+)')


def read_scheme(flipgraph, path):
    """(n, m, p), terms as lists of three sets of entry indices (mod 2)."""
    out = subprocess.run([flipgraph, 'convert', '--to', 'native', path], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f'{path}: flipgraph convert failed: {out.stderr.strip()}')
    dims, terms = None, []
    for line in out.stdout.splitlines():
        line = line.split('#')[0].strip()
        if line.startswith('format '):
            dims = tuple(int(x) for x in line.split()[1].split('x'))
        elif line.startswith('('):
            n, m, p = dims
            cols = {'a': m, 'b': p, 'c': n}
            fac = {'a': set(), 'b': set(), 'c': set()}
            for sign, coef, letter, row, col in ENTRY.findall(line):
                if coef and int(coef) % 2 == 0:
                    continue
                fac[letter] ^= {(int(row) - 1) * cols[letter] + int(col) - 1}
            terms.append([fac['a'], fac['b'], fac['c']])
    return dims, terms


def write_native(path, dims, terms):
    n, m, p = dims
    cols = [m, p, n]
    lines = []
    for t in terms:
        parts = []
        for pos, letter in enumerate('abc'):
            ents = sorted(t[pos])
            parts.append('(' + '+'.join(f'{letter}{e // cols[pos] + 1}_{e % cols[pos] + 1}' for e in ents) + ')')
        lines.append('*'.join(parts))
    with open(path, 'w') as f:
        f.write(f'flipgraph-scheme 1\nformat {n}x{m}x{p}\nring f2\nrank {len(terms)}\n')
        f.write('\n'.join(lines) + '\n')


def sizes(dims):
    n, m, p = dims
    return [n * m, m * p, p * n]


def target(dims, x, y, z):
    """1 when a[x] b[y] c[z] is a term of the product (cyclic convention)."""
    n, m, p = dims
    i, j = divmod(x, m)
    j2, k = divmod(y, p)
    k2, i2 = divmod(z, n)
    return j == j2 and k == k2 and i == i2


ONE = -1  # a kept coefficient 1; 0 is a kept 0, a positive number a variable


def encode(dims, terms, drop, keep, free_terms, keep_freed, rng):
    """The CNF with XOR clauses of one try: (clauses, variables, values) where
    values[t][pos][e] is 0, ONE or a variable; None when a constant equation fails."""
    r = len(terms)
    sz = sizes(dims)
    dropped = set(rng.sample(range(r), drop))
    rest = [t for t in range(r) if t not in dropped]
    freed = set()
    if free_terms:
        sup = [set() for _ in range(3)]
        for t in dropped:
            for pos in range(3):
                sup[pos] |= terms[t][pos]
        score = sorted(rest, key=lambda t: (-sum(len(terms[t][q] & sup[q]) for q in range(3)), rng.random()))
        freed = set(score[:free_terms])
    nvar = 0
    values = []
    for t in rest:
        tv = []
        for pos in range(3):
            row = []
            for e in range(sz[pos]):
                if rng.random() >= (keep_freed if t in freed else keep):
                    nvar += 1
                    row.append(nvar)
                else:
                    row.append(ONE if e in terms[t][pos] else 0)
            tv.append(row)
        values.append(tv)
    clauses = []
    gates = {}

    def gate(vs):
        nonlocal nvar
        key = tuple(sorted(vs))
        if key not in gates:
            nvar += 1
            gates[key] = nvar
            for v in key:
                clauses.append(f'{-nvar} {v} 0')
            clauses.append(' '.join([str(nvar)] + [str(-v) for v in key]) + ' 0')
        return gates[key]

    eqs = {}  # (x, y, z) -> [parity of the constant products, variables]
    for tv in values:
        nz = [[(e, v) for e, v in enumerate(tv[pos]) if v != 0] for pos in range(3)]
        for x, vx in nz[0]:
            for y, vy in nz[1]:
                for z, vz in nz[2]:
                    vs = [v for v in (vx, vy, vz) if v != ONE]
                    eq = eqs.setdefault((x, y, z), [0, []])
                    if not vs:
                        eq[0] ^= 1
                    else:
                        eq[1].append(vs[0] if len(vs) == 1 else gate(vs))
    for x in range(sz[0]):
        for y in range(sz[1]):
            for z in range(sz[2]):
                const, vs = eqs.get((x, y, z), (0, []))
                odd = {}
                for v in vs:  # a variable twice cancels
                    odd[v] = odd.get(v, 0) ^ 1
                vs = [v for v, o in odd.items() if o]
                rhs = int(target(dims, x, y, z)) ^ const
                if not vs:
                    if rhs:
                        return None
                    continue
                lits = [str(v) for v in vs]
                if not rhs:
                    lits[0] = '-' + lits[0]
                clauses.append('x' + ' '.join(lits) + ' 0')
    if drop == 0:  # the input itself is a solution: ask for another
        block = []
        for t, tv in zip(rest, values):
            for pos in range(3):
                for e, v in enumerate(tv[pos]):
                    if v > 0:
                        block.append(str(-v) if e in terms[t][pos] else str(v))
        if not block:
            return None
        clauses.append(' '.join(block) + ' 0')
    return clauses, nvar, values


def solve(clauses, nvar, seconds, seed):
    """('sat' | 'unsat' | 'unknown', assignment)."""
    with tempfile.NamedTemporaryFile('w', suffix='.cnf', delete=False) as f:
        f.write(f'p cnf {nvar} {len(clauses)}\n')
        f.write('\n'.join(clauses) + '\n')
        name = f.name
    try:
        out = subprocess.run(['cryptominisat5', '--verb', '0', '--random', str(seed), '--maxtime', str(seconds),
                              name], capture_output=True, text=True, timeout=seconds + 60)
    except subprocess.TimeoutExpired:
        return 'unknown', {}
    finally:
        os.unlink(name)
    status, assign = 'unknown', {}
    for line in out.stdout.splitlines():
        if line.startswith('s '):
            status = {'s SATISFIABLE': 'sat', 's UNSATISFIABLE': 'unsat'}.get(line.strip(), 'unknown')
        elif line.startswith('v '):
            for lit in line[2:].split():
                v = int(lit)
                if v:
                    assign[abs(v)] = v > 0
    return status, assign


def decode(values, assign):
    """The solved terms; a term with a zero factor is left out."""
    terms = []
    for tv in values:
        t = [{e for e, v in enumerate(row) if v == ONE or (v > 0 and assign.get(v, False))} for row in tv]
        if all(t):
            terms.append(t)
    return terms


def verify(flipgraph, path):
    out = subprocess.run([flipgraph, 'verify', path], capture_output=True, text=True)
    return out.returncode == 0, (out.stdout + out.stderr).strip()


def run(args, dims, terms, label):
    rng = random.Random(args.seed)
    r = len(terms)
    counts = {'sat': 0, 'unsat': 0, 'unknown': 0, 'contradiction': 0}
    best = None
    start = time.time()
    for k in range(1, args.tries + 1):
        if time.time() - start > args.seconds:
            break
        enc = encode(dims, terms, args.drop, args.keep, args.free_terms, args.keep_freed, rng)
        if enc is None:
            counts['contradiction'] += 1
            continue
        clauses, nvar, values = enc
        t0 = time.time()
        status, assign = solve(clauses, nvar, args.solver_seconds, rng.randrange(1 << 30))
        counts[status] += 1
        line = f'{label} try {k}: {status:7s} vars {nvar:6d} clauses {len(clauses):7d} {time.time() - t0:6.1f} s'
        if status == 'sat':
            new = decode(values, assign)
            n, m, p = dims
            path = os.path.join(args.out, f'{n}x{m}x{p}_r{len(new)}_try{k}.txt')
            write_native(path, dims, new)
            ok, msg = verify(args.flipgraph, path)
            line += f' -> rank {len(new)} ({"verified" if ok else "NOT VALID: " + msg})'
            if not ok:
                print(line, flush=True)
                sys.exit(f'{path}: the solver\'s answer does not verify: the encoding is wrong')
            if len(new) < r and (best is None or len(new) < best):
                best = len(new)
        print(line, flush=True)
        if best is not None:
            break
    print(f'{label}: rank {r}, drop {args.drop}, keep {args.keep}, free terms {args.free_terms} (keep {args.keep_freed}): ' +
          ', '.join(f'{v} {k}' for k, v in counts.items()) +
          f'; {"lowest found " + str(best) if best is not None else "nothing lower"} in {time.time() - start:.0f} s',
          flush=True)
    return best


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('file', nargs='?')
    ap.add_argument('--drop', type=int, default=1)
    ap.add_argument('--keep', type=float, default=0.8)
    ap.add_argument('--free-terms', type=int, default=0)
    ap.add_argument('--keep-freed', type=float, default=0.0)
    ap.add_argument('--tries', type=int, default=100)
    ap.add_argument('--seconds', type=float, default=600)
    ap.add_argument('--solver-seconds', type=float, default=10)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--out', default='.')
    ap.add_argument('--flipgraph', default=os.environ.get('FLIPGRAPH_BIN', 'flipgraph'))
    ap.add_argument('--control', action='store_true')
    args = ap.parse_args(argv)
    if args.control:
        dims = (2, 2, 2)
        std = [[{i * 2 + j}, {j * 2 + k}, {k * 2 + i}] for i in range(2) for j in range(2) for k in range(2)]
        ctl = argparse.Namespace(**vars(args))
        ctl.drop, ctl.keep, ctl.keep_freed, ctl.free_terms, ctl.tries, ctl.seconds = 1, 0.0, 0.0, 0, 3, 120
        if run(ctl, dims, std, 'control <2,2,2>:8') != 7:
            sys.exit('control: no rank-7 scheme found from the standard algorithm with nothing kept')
    if args.file:
        dims, terms = read_scheme(args.flipgraph, args.file)
        run(args, dims, terms, os.path.basename(args.file))


if __name__ == '__main__':
    main(sys.argv[1:])
