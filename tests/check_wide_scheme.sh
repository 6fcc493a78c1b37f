#!/usr/bin/env bash
# The research aids for formats beyond 64 entries a factor (docs/search.md, "Beyond 64
# entries"): scripts/wide_scheme.py's self-check (its three checks against the standard
# <3,4,5> and 20 one-coefficient changes, flipgraph's verify among them), its checks of
# data/found/999-482-gf2.json (all 729 projections valid by flipgraph) and of a copy with
# one coefficient changed (refused), and scripts/wide_walk.c built with cc, walking the 482
# for a second (its own Brent check at the start) and refusing the changed copy.  Skipped
# (exit 77) where python3 is not installed: the scripts are research aids, not the build.
# Writes only inside its own temporary folder.  Prints "N passed, N failed".
set -u
src=${FLIPGRAPH_SOURCE:-$(cd "$(dirname "$0")/.." && pwd)}
bin=${FLIPGRAPH_BIN:-$src/build/flipgraph}
command -v python3 > /dev/null || { echo "python3 is not installed: skipped"; exit 77; }
command -v cc > /dev/null || { echo "cc is not installed: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fg-wide.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/check_lib.sh"
export TMPDIR=$tmp
ws="python3 $src/scripts/wide_scheme.py"
found=$src/data/found/999-482-gf2.json

check "wide_scheme.py --self-check with flipgraph's verify" $ws --self-check --flipgraph "$bin"
$ws verify --flipgraph "$bin" "$found" > "$tmp/found.out" 2>&1
check "999-482-gf2.json is valid, all 729 projections by flipgraph" \
  grep -q '<9,9,9> rank 482 over GF(2): valid (.*729 of 729 projections valid)' "$tmp/found.out"
$ws from-json "$found" "$tmp/482.hex"
check "the hex layout has the header and 482 terms" test "$(head -n 1 "$tmp/482.hex")" = "9 9 9 482" -a \
  "$(wc -l < "$tmp/482.hex")" -eq 483
# the last word of term 1 with its lowest bit flipped
awk 'NR == 2 { w = $3; n = index("0123456789abcdef", substr(w, length(w), 1));
               $3 = substr(w, 1, length(w) - 1) substr("1032547698badcfe", n, 1) } { print }' \
  "$tmp/482.hex" > "$tmp/bad.hex"
check "the changed copy differs in one term" test "$(diff "$tmp/482.hex" "$tmp/bad.hex" | grep -c '^<')" -eq 1
$ws verify --flipgraph "$bin" "$tmp/bad.hex" > "$tmp/bad.out" 2>&1
check "the changed copy is refused (exit 1)" test $? -eq 1
check "the refusal names Brent rows, products and projections" \
  grep -q 'NOT VALID: 0 terms with a zero factor, [1-9][0-9]* Brent rows wrong, [1-9][0-9]* product entries wrong, [1-9][0-9]* projections' "$tmp/bad.out"
check "wide_walk.c builds with cc -std=c11" cc -O2 -std=c11 -o "$tmp/wide_walk" "$src/scripts/wide_walk.c"
(cd "$tmp" && ./wide_walk 482.hex "$tmp/w" 1 1 5000000 2 > walk.out 2>&1)
check "wide_walk walks the 482 for a second (exit 0)" test $? -eq 0
check "wide_walk checked its start" grep -q '^start: <9,9,9> rank 482 (482 after its reductions)' "$tmp/walk.out"
(cd "$tmp" && ./wide_walk bad.hex "$tmp/v" 1 1 5000000 2 > walk_bad.out 2>&1)
check "wide_walk refuses the changed copy (exit 1)" test $? -eq 1
check_end
