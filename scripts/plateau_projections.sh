#!/usr/bin/env bash
# A scheme's plateau taken down (bench/RESULTS.md, "The <6,6,6>:153 plateau
# taken down"): the plain walk at the scheme's rank collects N distinct
# schemes of that rank (every walk's end pooled: --siblings 2, walks of 20000
# flips, no weight bias), each is projected to every format of DIMS by
# `flipgraph resize --dims` (every orientation: docs/resize.md), and a table
# gives, per format, the count at each rank.  With GENS > 1 the next
# generation walks from a scheme whose projection to the first format of
# DIMS was the lowest (a selection by the projection), GENS times in all.
# The projections run JOBS at once; everything stays under OUT.
#
# Usage: [FG=build/flipgraph] [DIMS="5x5x6 5x5x5"] [N=3000] [WALK=60s]
#        [THREADS=2] [JOBS=$(nproc)] [GENS=1] [SEED=1] [OUT=out]
#        bash scripts/plateau_projections.sh FILE
set -uo pipefail
[ $# -eq 1 ] || { sed -n '2,14p' "$0"; exit 2; }
START=$(realpath "$1")
cd "$(dirname "$0")/.." || exit 2
FG=$(realpath "${FG:-build/flipgraph}")
DIMS=${DIMS:-5x5x6 5x5x5}
N=${N:-3000}
WALK=${WALK:-60s}
THREADS=${THREADS:-2}
JOBS=${JOBS:-$(nproc)}
GENS=${GENS:-1}
SEED=${SEED:-1}
OUT=${OUT:-out}
mkdir -p "$OUT"
first=${DIMS%% *}
for g in $(seq 1 "$GENS"); do
  pool=$OUT/gen$g
  rm -rf "$pool"
  "$FG" search --from "$START" --target-rank 0 --threads "$THREADS" --time "$WALK" --siblings 2 \
    --weight-bias 0 --walk-len 20000 --walk-max 20000 --pool-size "$N" --pool-out "$pool" \
    --pool-keep "$N" --seed $((SEED + g - 1)) --progress 0 > "$pool.log" 2>&1
  grep -E "improvements|pool took|written" "$pool.log" | sed "s/^/gen $g: /"
  for d in $DIMS; do
    # "RANK FILE" per scheme (an empty rank: the projection failed, shown as '-')
    find "$pool" -name '*.txt' -print0 | xargs -0 -P "$JOBS" -I{} sh -c \
      'r=$("$0" resize "$1" --dims "$2" -o /dev/null 2>&1 | sed -n "s/.* rank \([0-9]*\) (verified.*/\1/p"); echo "${r:--} $1"' \
      "$FG" {} "$d" > "$pool.$d"
    echo "gen $g, $(basename "$START") -> <${d//x/,}>: $(awk '{print $1}' "$pool.$d" | sort -n | uniq -c |
      awk '{printf "%s%s (%s)", (NR > 1 ? ", " : ""), $2, $1}')"
  done
  START=$(realpath "$(sort -n "$pool.$first" | awk '$1 != "-" {print $2; exit}')")
done
