#!/usr/bin/env bash
# The research aids for formats beyond 64 entries a factor (docs/search.md, "Beyond 64
# entries"): scripts/wide_scheme.py's self-check (its three checks against the standard
# <3,4,5> and 20 one-coefficient changes, flipgraph's verify among them), its checks of
# data/found/999-482-gf2.json (all 729 projections valid by flipgraph) and of a copy with
# one coefficient changed (refused), and scripts/wide_walk.c built with cc, walking the 482
# for a second (its own Brent check at the start) and refusing the changed copy; the tensor
# product of two Kauers-Moosbauer <2,2,3>:11 (wide_scheme.py product) verified by flipgraph
# itself, a product with a broken input refused, malformed hex named by file and line, and
# the walk's plus transition on Kauers and Moosbauer's <4,4,4>:47, which has no flip, and
# every scheme of data/found/beyond64/ valid with the format and rank its name gives.  Skipped
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
# the product, checked by flipgraph's own verifier (<4,4,9> fits its 64-entry factors)
"$bin" convert --to json "$src/data/corpus/kauers-moosbauer/223-11-mod0.exp" -o "$tmp/k11.json" > /dev/null 2>&1
$ws product "$tmp/k11.json" "$tmp/k11.json" "$tmp/k121.hex" > "$tmp/product.out" 2>&1
check "product: <2,2,3>:11 twice is <4,4,9> rank 121" grep -q '<4,4,9> rank 121 over GF(2), the product' "$tmp/product.out"
$ws to-json "$tmp/k121.hex" "$tmp/k121.json"
"$bin" verify "$tmp/k121.json" > "$tmp/k121.out" 2>&1
check "flipgraph verify: the product is valid" grep -q '<4,4,9> rank 121 over GF(2): valid' "$tmp/k121.out"
$ws from-json "$tmp/k11.json" "$tmp/k11.hex"
awk 'NR == 2 { $1 = ($1 == "1") ? "3" : "1" } { print }' "$tmp/k11.hex" > "$tmp/k11bad.hex"
$ws product "$tmp/k11bad.hex" "$tmp/k11.json" "$tmp/bad121.hex" > "$tmp/badproduct.out" 2>&1
check "product: a broken input is refused (exit 1, no file)" test $? -eq 1 -a ! -e "$tmp/bad121.hex"
check "product: the refusal says why" grep -q 'does not satisfy the Brent equations' "$tmp/badproduct.out"
printf '2 2 3 1\n1 2 zz\n' > "$tmp/malformed.hex"
$ws verify "$tmp/malformed.hex" > "$tmp/malformed.out" 2>&1
check "malformed hex: exit 1 naming the file and line 2" \
  grep -q "malformed.hex:2: expected three hexadecimal factors" "$tmp/malformed.out"
: > "$tmp/empty.hex"
$ws verify "$tmp/empty.hex" > "$tmp/empty.out" 2>&1
check "an empty file is named as empty" grep -q 'empty.hex: empty' "$tmp/empty.out"
# Kauers and Moosbauer's 47 has no two terms sharing a factor: no flip to count, so the
# walk must reach its plateau by the draws without a partner
"$bin" convert --to json "$src/data/corpus/kauers-moosbauer/444-47-mod2.exp" -o "$tmp/k47.json" > /dev/null 2>&1
$ws from-json "$tmp/k47.json" "$tmp/k47.hex"
(cd "$tmp" && ./wide_walk k47.hex "$tmp/k" 1 1 5000000 2 > walk47.out 2>&1)
check "wide_walk makes plus transitions on a scheme without a flip (the 47)" \
  grep -q 'end: lowest 4[0-9] from 47; [0-9]* flips, [0-9]* draws without a partner, [1-9][0-9]* plus transitions' "$tmp/walk47.out"
# data/found/beyond64: NxMxP-RANK-gf2.hex, each valid (Brent equations and random products;
# flipgraph on the projections where they fit) with the format and rank of its name
count=0
for f in "$src"/data/found/beyond64/*.hex; do
  name=$(basename "$f")
  IFS='x-' read -r n m p r rest <<< "$name"
  $ws verify --flipgraph "$bin" "$f" > "$tmp/b64.out" 2>&1
  check "beyond64/$name is valid as named" grep -q "^$f: <$n,$m,$p> rank $r over GF(2): valid" "$tmp/b64.out"
  count=$((count + 1))
done
check "data/found/beyond64 holds its 11 schemes" test $count -ge 11
check_end
