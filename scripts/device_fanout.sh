#!/usr/bin/env bash
# Many moves at once (issue 19): does a walk of a format started from the
# extensions of MANY distinct schemes of a neighbouring format reach lower than
# one started from the extension of its best?  The <4,5,5>:73 of Arai, Ichikawa,
# Hukushima projected to <4,4,5> (62) and extended back walks to 73 within
# seconds (bench/RESULTS.md), while the extensions of our own best <4,4,5>s end
# at 74-77: the right neighbour may be one of many, not the best.  One call on
# the GPU machine:
#   source  `flipgraph search --dims SRC --backend gpu --time TSRC --pool-out POOL
#           --pool-keep KEEP` from the standard algorithm (or from SRCFROM, a file
#           or folder): the distinct schemes it met at its best ranks;
#   move    every one taken to DST with `flipgraph resize` (16 at once);
#   walk    `flipgraph search --dims DST --backend gpu --target-rank TARGET --time
#           TDST` from (one) the lowest extension alone, (all) every extension
#           (walker i from extension i mod their number), (fresh) every
#           extension with --pool-fresh 0.5 (half the restarts go back to them);
#           with POOLOUT=DIR the walk (all) writes its pool there, so that a
#           second call with SRCFROM=DIR goes on (a chain of moves, each taking
#           a whole pool along).
# Everything goes to $OUT (fanout.log, build.log).  Carry deps/ (and SRCFROM).
# Usage: OUT=out [SRC=4x4x5] [DST=4x5x5] [TARGET=73] [TSRC=60s] [TDST=100s] [KEEP=1000]
#        [SEED=1] [SRCFROM=FILE|DIR] [WALKS="one all fresh"] [POOLOUT=DIR] bash scripts/device_fanout.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
SRC=${SRC:-4x4x5}
DST=${DST:-4x5x5}
TARGET=${TARGET:-73}
TSRC=${TSRC:-60s}
TDST=${TDST:-100s}
KEEP=${KEEP:-1000}
SEED=${SEED:-1}
WALKS=${WALKS:-one all fresh}
. scripts/device_env.sh
fg_begin fanout.log
fg_build flipgraph || exit 2
F=$B/flipgraph
W=$(mktemp -d)
fg_banner "$SRC -> $DST"
from=()
[ -n "${SRCFROM:-}" ] && from=(--from "$SRCFROM")
fg_step "source: $SRC ${SRCFROM:-from the standard algorithm}, $TSRC, --pool-out (keep $KEEP)" 600 \
  $F search --dims $SRC "${from[@]}" --backend gpu --time $TSRC --seed $SEED --target-rank 0 --progress 0 \
  --pool-out "$W/pool" --pool-keep $KEEP
grep -E '^best rank|schemes of the pool' "$LOG" | tail -2
mkdir -p "$W/ext"
fg_say "move: every pool scheme to $DST (flipgraph resize)"
find "$W/pool" -type f -name '*.txt' -print0 |
  xargs -0 -P 16 -I{} sh -c "$F resize '{}' --dims $DST -o '$W/ext/'\$(basename '{}') 2>>'$W/resize.err'"
n=$(find "$W/ext" -type f | wc -l)
# the extensions' ranks: how many at each
ranks=$(for f in "$W"/ext/*; do sed -n 's/^rank //p' "$f" | head -1; done | sort -n | uniq -c | awk '{printf "%s:%s ", $2, $1}')
fg_say "$n extensions; rank:count $ranks"
low=$(for f in "$W"/ext/*; do echo "$(sed -n 's/^rank //p' "$f" | head -1) $f"; done | sort -n | head -1 | cut -d' ' -f2)
for w in $WALKS; do
  case $w in
    one) args=(--from "$low") ;;
    all) args=(--from "$W/ext")
      [ -n "${POOLOUT:-}" ] && args+=(--pool-out "$POOLOUT" --pool-keep "$KEEP") ;;
    fresh) args=(--from "$W/ext" --pool-fresh 0.5) ;;
    *) continue ;;
  esac
  fg_step "walk ($w): $DST to $TARGET, $TDST" 600 $F search --dims $DST "${args[@]}" --backend gpu \
    --time $TDST --seed $SEED --target-rank $TARGET --progress 20s
  echo "WALK $w: $(grep -E '^best rank' "$LOG" | tail -1)" | tee -a "$LOG"
done
rm -rf "$W"
fg_say "done"
