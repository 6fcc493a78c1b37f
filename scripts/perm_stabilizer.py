#!/usr/bin/env python3
"""The permutation symmetries of a scheme, modulo 2: the triples (P, Q, R) of
permutations of the n row indices of A, the m inner indices and the p column
indices of B under which the scheme's terms, read mod 2, map onto themselves
(a term a (x) b (x) c goes to P a Q^-1 (x) Q b R^-1 (x) R c P^-1, in the cyclic
convention of docs/formats.md: c is p x n).  Such a triple is a symmetry of the
matrix multiplication tensor (conjugations by permutation matrices), so a scheme
fixed by one lies in the smaller space a walk invariant under it would search
(docs/search.md, "Symmetric walks"); a scheme fixed by none is out of reach of
every such walk.  Over Z a signed permutation that fixes a scheme reduces mod 2
to one of these, so none mod 2 means none over Z either.

  scripts/perm_stabilizer.py [--control] FILE.exp ...

FILE is an .exp file (`flipgraph convert --to exp FILE -o FILE.exp` writes one
from any format flipgraph reads); the format is read off the largest indices.
Prints, per file, the format, the rank and how many of the n! m! p! - 1 triples
other than the identity fix it, with the first few.  Brute force over all
triples: seconds for <4,4,5> (69120 triples), impractical beyond about 1e6.
--control first checks the standard algorithm of each file's format, which
every triple fixes.  Research aid (bench/RESULTS.md, forty-third session); not
part of the build or the tests.
"""
import itertools
import math
import re
import sys


def split_products(line):
    """A term line split at the '*' outside parentheses (scripts/local_reductions.py
    reads its terms with it too)."""
    parts, depth, cur = [], 0, ''
    for ch in line:
        if ch == '(':
            depth += 1
        elif ch == ')':
            depth -= 1
        if ch == '*' and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    parts.append(cur)
    return parts


def unwrap(line):
    """A term line without the sign and parentheses around the whole of it,
    -(a25*(b11-b12)*c12) -> (-1, 'a25*(b11-b12)*c12'), and its sign."""
    sign, text = 1, line.strip()
    while text[:2] in ('-(', '+(', '((') or text[:1] == '(':
        start = 0 if text[0] == '(' else 1
        depth = 0
        for end in range(start, len(text)):
            depth += {'(': 1, ')': -1}.get(text[end], 0)
            if depth == 0:
                break
        if end != len(text) - 1:
            break
        if text[0] == '-':
            sign = -sign
        text = text[start + 1:-1].strip()
    return sign, text


def factors(line):
    """The three factors of an .exp term line, split at the '*' outside parentheses
    (a factor may go without them: a23*(b11+2*b14)*(...); the line may be wrapped
    whole: -(a25*(...)*c12), whose sign unwrap() gives)."""
    parts = split_products(unwrap(line)[1])
    merged = []
    for part in parts:             # a bare number is a coefficient of what follows
        if merged and re.fullmatch(r'[+-]?\d+', merged[-1].strip()):
            merged[-1] += '*' + part
        else:
            merged.append(part)
    return merged if all(re.search(r'[abc]\d\d', f) for f in merged) else []


def parse_terms(path):
    """The terms of an .exp file over Z, per term three {(row, column):
    coefficient} (a term's sign in its first factor), and the format read off the
    largest indices.  A line that is not a term raises ValueError naming it."""
    terms, dims = [], [0, 0, 0, 0, 0, 0]
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            groups = factors(line)
            if len(groups) != 3:
                raise ValueError(f'{path}:{lineno}: expected a term (a..)*(b..)*(c..), '
                                 f'found {line.strip()[:60]!r}')
            sign = unwrap(line)[0]
            term = []
            for pos, g in enumerate(groups):
                entries = {}
                for coef, x, y in re.findall(r'([+-]?\s*\d*)\*?\s*[abc](\d)(\d)', g):
                    c = coef.replace(' ', '').replace('+', '')
                    c = -1 if c == '-' else 1 if c == '' else int(c)
                    x, y = int(x) - 1, int(y) - 1
                    entries[(x, y)] = entries.get((x, y), 0) + (sign if pos == 0 else 1) * c
                    dims[2 * pos] = max(dims[2 * pos], x + 1)
                    dims[2 * pos + 1] = max(dims[2 * pos + 1], y + 1)
                term.append({e: c for e, c in entries.items() if c})
            terms.append(term)
    n, m, p = max(dims[0], dims[5]), max(dims[1], dims[2]), max(dims[3], dims[4])
    return (n, m, p), terms


def mod2(terms):
    """Terms over Z read mod 2: per term three sets of (row, column)."""
    return [[{e for e, c in f.items() if c % 2} for f in t] for t in terms]


def parse(path):
    """The format and the terms read mod 2."""
    fmt, terms = parse_terms(path)
    return fmt, mod2(terms)


def standard(n, m, p):
    return [[{(i, j)}, {(j, k)}, {(k, i)}] for i in range(n) for j in range(m) for k in range(p)]


def key(term):
    return tuple(tuple(sorted(f)) for f in term)


def stabilizer(fmt, terms, limit=5):
    n, m, p = fmt
    want = sorted(key(t) for t in terms)
    found, count = [], 0
    ident = (tuple(range(n)), tuple(range(m)), tuple(range(p)))
    for P in itertools.permutations(range(n)):
        for Q in itertools.permutations(range(m)):
            a_img = [{(P[i], Q[j]) for i, j in t[0]} for t in terms]
            for R in itertools.permutations(range(p)):
                if (P, Q, R) == ident:
                    continue
                img = sorted(key([a_img[r], {(Q[j], R[k]) for j, k in t[1]},
                                  {(R[k], P[i]) for k, i in t[2]}]) for r, t in enumerate(terms))
                if img == want:
                    count += 1
                    if len(found) < limit:
                        found.append((P, Q, R))
    return count, found


def main(argv):
    control = '--control' in argv
    files = [a for a in argv if a != '--control']
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    for path in files:
        try:
            fmt, terms = parse(path)
        except (OSError, ValueError) as err:
            print(f'{path}: {err.strerror}' if isinstance(err, OSError) else err, file=sys.stderr)
            return 2
        n, m, p = fmt
        if control:
            c, _ = stabilizer(fmt, standard(n, m, p), 0)
            total = math.factorial(n) * math.factorial(m) * math.factorial(p)
            ok = c == total - 1
            print(f'control <{n},{m},{p}> standard algorithm: {c} of {total - 1} fix it: '
                  f'{"ok" if ok else "FAILED"}')
            if not ok:
                return 1
        c, found = stabilizer(fmt, terms)
        print(f'{path}: <{n},{m},{p}> rank {len(terms)}: {c} triples other than the identity fix it mod 2'
              + (f'; first: {found}' if found else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
