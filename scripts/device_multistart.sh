#!/usr/bin/env bash
# Many starts for one stubborn format (issue 19's <4,5,5>:73, issue 23's
# <4,4,5>:61 over Z), one call on a machine with any number of GPUs
# (bench/RESULTS.md, "Many starts"; docs/device.md).  The legs of the meta
# search end in different basins by where they start (<4,5,5>: 74 from
# <3,5,5>:58 extended, 76 from <5,5,5>:93 projected, 77 from the standard
# algorithm), so this script draws many starts and walks each for a while:
# every GPU (or, with BACKEND=cpu, every group of THREADS cores) runs a loop of
#   1. a feeder walk: a format of FEEDERS from its standard algorithm (or its
#      symmetric start) to its rank, a fresh seed each time, capped at TF;
#   2. its best scheme taken to TARGET by `flipgraph resize` (projection,
#      extension; verified);
#   3. a walk of TARGET from it, capped at TW, until the target rank, every
#      improvement stored (one store per loop, merged at the end).
# A line per leg goes to $OUT/multistart.log: feeder, feeder rank, the start's
# rank, the leg's best.  Carry deps/ on a GPU machine.
#
# Usage: OUT=out TARGET=4x5x5:73 FEEDERS="3x5x5:58 5x5x5:93:c3 4x4x5:61"
#        [RING=f2|z] [TF=30s] [TW=40s] [TOTAL=500] [GPUS="0 1"] [BACKEND=gpu|cpu]
#        [THREADS=2] [LOOPS=1] [WALK="--walk-len 10000000"] bash scripts/device_multistart.sh
# GPUS: the GPUs to use (default: every one nvidia-smi lists); with BACKEND=cpu,
# LOOPS loops of THREADS threads each.  WALK: options for the TARGET walks,
# every second leg (so that a leg with and one without alternate).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
TARGET=${TARGET:-4x5x5:73}
FEEDERS=${FEEDERS:-3x5x5:58 5x5x5:93:c3 4x4x5:61}
RING=${RING:-f2}
TF=${TF:-30s}
TW=${TW:-40s}
TOTAL=${TOTAL:-500}
BACKEND=${BACKEND:-gpu}
THREADS=${THREADS:-2}
WALK=${WALK:-}
. scripts/device_env.sh
fg_begin multistart.log
if [ -n "${FG:-}" ]; then
  F=$FG
else
  fg_build flipgraph || exit 2
  F=$B/flipgraph
fi
if [ "$BACKEND" = gpu ]; then
  GPUS=${GPUS:-$(nvidia-smi --query-gpu=index --format=csv,noheader | tr '\n' ' ')}
  fg_say "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(echo $GPUS | wc -w), $(date -u '+%F %TZ'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), target $TARGET over $RING, feeders $FEEDERS"
else
  GPUS=$(seq 0 $((${LOOPS:-1} - 1)) | tr '\n' ' ')
  fg_say "CPU, $(echo $GPUS | wc -w) loops of $THREADS threads, target $TARGET over $RING, feeders $FEEDERS"
fi
TDIMS=${TARGET%%:*}
TRANK=${TARGET##*:}
W=$OUT/work
rm -rf "$W"
END=$((T0 + TOTAL))
read -r -a feeders <<< "$FEEDERS"

leg_loop() {
  local g=$1 i=0 where fe fdims frank fsym d best start srank brank extra
  if [ "$BACKEND" = gpu ]; then where=(--backend gpu --device "$g"); else where=(--backend cpu --threads "$THREADS"); fi
  while :; do
    i=$((i + 1))
    fe=${feeders[$(((i + g) % ${#feeders[@]}))]}
    IFS=: read -r fdims frank fsym <<< "$fe"
    local seed=$((1000 * (g + 1) + i))
    local sym=()
    [ -n "$fsym" ] && sym=(--symmetry "$fsym")
    d=$W/g$g/leg$i
    mkdir -p "$d/found"
    # the feeder must leave time for the target walk
    [ $(($(date +%s) + ${TF%s} + ${TW%s})) -le $END ] || break
    timeout $((${TF%s} + 30)) $F search --dims "$fdims" "${where[@]}" --ring "$RING" "${sym[@]}" \
      --target-rank "$frank" --time "$TF" --seed $seed --out "$d/found" -q > "$d/feeder.log" 2>&1
    best=$(ls "$d/found" | sort -t- -k2,2n | head -1)
    [ -n "$best" ] || { echo "loop $g leg $i: feeder $fdims found nothing" >> "$LOG"; continue; }
    timeout 60 $F resize "$d/found/$best" --dims "$TDIMS" --ring "$RING" -o "$d/start.txt" > "$d/resize.log" 2>&1 || {
      echo "loop $g leg $i: resize of $best failed: $(tail -1 "$d/resize.log")" >> "$LOG"; continue; }
    srank=$(sed -n 's/.*-> <[0-9,]*> rank \([0-9]*\).*/\1/p' "$d/resize.log")
    extra=()
    # shellcheck disable=SC2206 # WALK is a list of options
    [ $((i % 2)) -eq 0 ] && [ -n "$WALK" ] && extra=($WALK)
    timeout $((${TW%s} + 30)) $F search --dims "$TDIMS" --from "$d/start.txt" "${where[@]}" --ring "$RING" \
      --target-rank "$TRANK" --time "$TW" --seed $seed --db "$W/g$g.db" -q "${extra[@]}" > "$d/walk.log" 2>&1
    brank=$(sed -n 's/^best rank \([0-9]*\).*/\1/p' "$d/walk.log")
    echo "loop $g leg $i: feeder $fdims${fsym:+ $fsym} seed $seed rank ${best#*-}, start $srank, best ${brank:-?}${extra[*]:+ (${extra[*]})} at $(($(date +%s) - T0)) s" \
      | sed 's/-[0-9a-f]*\.txt//' >> "$LOG"
  done
}

for g in $GPUS; do leg_loop "$g" & done
wait
fg_say "legs done"
DB=$OUT/multistart.db
rm -f "$DB"
$F db --db "$DB" init > /dev/null
for g in $GPUS; do [ -f "$W/g$g.db" ] && $F db --db "$DB" merge "$W/g$g.db" > /dev/null; done
grep -c " leg " "$LOG" | sed 's/^/legs: /' | tee -a "$LOG"
sed -n 's/.* best \([0-9?]*\).*/\1/p' "$LOG" | sort | uniq -c | sed 's/^/  best /' | tee -a "$LOG"
$F db --db "$DB" list --dims "$TDIMS" --ring "$RING" --limit 6 | tee -a "$LOG"
fg_say "done"
