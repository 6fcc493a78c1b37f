#!/usr/bin/env bash
# The research aids that find a scheme's symmetries (docs/verify.md, "Structure"):
# scripts/gl_stabilizer.py's self-check (Strassen's <2,2,2>:7 before and after a change
# of basis and the standard <2,2,3> and <3,2,2>, against a brute force over every triple), the
# AlphaEvolve <4,4,5>:61 of the corpus fixed by nothing but the identity (bench/RESULTS.md,
# "No symmetry of the tensor fixes the Z record"), Kauers and Moosbauer's GF(2)
# <4,4,4>:47 fixed by exactly one change of basis besides it (a search that finds too few or
# too many fails here), a term line wrapped whole with its sign read as the term, malformed
# and empty files named, and scripts/perm_stabilizer.py's count of 0 permutations on the 61.
# Skipped (exit 77) where python3 is not installed: the scripts are research aids, not the
# build.  Writes only inside its own temporary folder.  Prints "N passed, N failed".
set -u
src=${FLIPGRAPH_SOURCE:-$(cd "$(dirname "$0")/.." && pwd)}
corpus=${FLIPGRAPH_CORPUS:-$src/data/corpus}
command -v python3 > /dev/null || { echo "python3 is not installed: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fg-stab.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/check_lib.sh"
export PYTHONDONTWRITEBYTECODE=1
gl="python3 $src/scripts/gl_stabilizer.py"
ae=$corpus/alphaevolve/445-61-mod0.exp
km=$corpus/kauers-moosbauer/444-47-mod2.exp

$gl --control "$ae" "$km" > "$tmp/gl.out" 2>&1
check "gl_stabilizer.py exits 0" test $? -eq 0
check "its three controls pass against the brute force" test "$(grep -c '^control: .*: ok$' "$tmp/gl.out")" -eq 3
check "the AlphaEvolve 61: order 1" grep -q "445-61-mod0.exp: <4,4,5> rank 61: .* of order 1$" "$tmp/gl.out"
check "the AlphaEvolve 61: none after the transposition and the shift, 8 sign triples" \
  test "$(sed -n '/445-61-mod0.exp/,/444-47/p' "$tmp/gl.out" | grep -c ': 0 more$\|: 8 (the 8 scalar')" -eq 2
check "Kauers-Moosbauer's 47 mod 2: order 2, its element written out" \
  grep -q "444-47-mod2.exp: <4,4,4> rank 47: .* of order 2$" "$tmp/gl.out"
check "the element is not a permutation triple" \
  grep -q '^  P 1000/0100/0001/0010  Q 1000/1100/1010/1001  R 0001/1101/0010/1000$' "$tmp/gl.out"
# the AlphaEvolve 61 with its first term written whole with a sign, as one line of
# Kauers-Moosbauer's <5,5,5>:97 is: the same scheme
sed '1s/.*/-((-a43+a44)*(b13+b15-b43-b45)*(c54))/' "$ae" > "$tmp/wrapped.exp"
check "the wrapped copy differs in its first line only" test "$(diff "$ae" "$tmp/wrapped.exp" | grep -c '^<')" -eq 1
$gl "$tmp/wrapped.exp" > "$tmp/wrapped.out" 2>&1
check "a term written -(x*y*z) is read: the copy is the valid 61, order 1" \
  grep -q "wrapped.exp: <4,4,5> rank 61: .* of order 1$" "$tmp/wrapped.out"
printf '(a11+a22)*(b11)*(c11)\nnot a term\n' > "$tmp/bad.exp"
$gl "$tmp/bad.exp" > "$tmp/bad.out" 2>&1
check "a line that is not a term is refused (exit 2)" test $? -eq 2
check "the refusal names the file and line" grep -q "bad.exp:2: expected a term" "$tmp/bad.out"
: > "$tmp/none.exp"
$gl "$tmp/none.exp" > "$tmp/none.out" 2>&1
check "an empty file is refused (exit 2)" test $? -eq 2
check "the refusal names the file" grep -q "none.exp: no terms read" "$tmp/none.out"
$gl "$tmp/missing.exp" > "$tmp/missing.out" 2>&1
check "a missing file is named (exit 2)" test $? -eq 2 -a "$(grep -c 'missing.exp: cannot read' "$tmp/missing.out")" -eq 1
python3 "$src/scripts/perm_stabilizer.py" "$ae" > "$tmp/perm.out" 2>&1
check "perm_stabilizer.py: no permutation fixes the 61" \
  grep -q 'rank 61: 0 triples other than the identity fix it mod 2' "$tmp/perm.out"
check_end
