#!/usr/bin/env bash
# Starts for the plain walk on <6,6,6> made of smaller schemes (bench/RESULTS.md,
# "The plain walk on <6,6,6> from products"), written into DIR:
#   sxstd.native     Strassen's <2,2,2>:7 (a walk finds it) times the standard
#                    <3,3,3> (27): rank 189, no searched factor but the 7
#   stdxl.native     the standard <2,2,2> (8) times a walked <3,3,3>:23: 184
#   p161/            <2,2,2>:7 times <3,3,3>:23 from walks of seeds 2..K+1: 161
#                    each, K files (walkers spread over a folder's files)
#   p165/            <2,3,3>:15 times <3,2,2>:11, two seeds: 165
# Every product is checked by `flipgraph resize` (verified over GF(2)).
#
#   FG=build/flipgraph bash scripts/product_starts.sh DIR [K]   (K: 6 by default)
set -euo pipefail
FG=${FG:-build/flipgraph}
D=${1:?usage: product_starts.sh DIR [K]}
K=${2:-6}
mkdir -p "$D/p161" "$D/p165"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
walk() { # FORMAT RANK SEED -> the file of a scheme of that rank
  "$FG" search --dims "$1" --target-rank "$2" --threads 1 --seed "$3" --out "$T/$1-$3" > /dev/null 2>&1
  ls "$T/$1-$3/$1-$2-"*.txt | head -1
}
echo 'a11*b11*c11' > "$T/one.exp"
"$FG" resize "$T/one.exp" --dims 3x3x3 -o "$T/std333.native" 2> /dev/null
"$FG" resize "$T/one.exp" --dims 2x2x2 -o "$T/std222.native" 2> /dev/null
s7=$(walk 2x2x2 7 1)
"$FG" resize "$s7" --product "$T/std333.native" -o "$D/sxstd.native"
"$FG" resize "$T/std222.native" --product "$(walk 3x3x3 23 1)" -o "$D/stdxl.native"
for s in $(seq 2 $((K + 1))); do
  "$FG" resize "$s7" --product "$(walk 3x3x3 23 "$s")" -o "$D/p161/p161-$s.native"
done
for s in 1 2; do
  "$FG" resize "$(walk 2x3x3 15 "$s")" --product "$(walk 3x2x2 11 "$s")" -o "$D/p165/p165-$s.native"
done
