#!/usr/bin/env bash
# Pool checkpoints (docs/search.md, "Pool checkpoints") measured in one call:
#   cost   the same search (DIMS, SEED, SECONDS) twice, one after the other: without
#          checkpoints, then with --pool-out and --pool-every EVERY; flips/s and best
#          rank side by side
#   lost   a search with --pool-every EVERY_LOST killed with SIGKILL after KILL_AT s (a
#          lost machine: no end, no final pool), the folder's files counted and each
#          verified, then a search --from that folder for RESUME_S s: its start rank and
#          best
# A table last; the logs in $OUT.  BACKEND=gpu (default; the build here first) or cpu
# (THREADS threads; FG=path of a CPU build, no build: the check on a machine without a
# GPU).  The GPU machine lacks SQLite/xxHash headers: carry deps/ (docs/device.md).
#
#   OUT=out scripts/device_checkpoint.sh
#   FG=build/flipgraph BACKEND=cpu THREADS=2 SECONDS_EACH=30 KILL_AT=25 scripts/device_checkpoint.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
DIMS=${DIMS:-6x6x6}
SEED=${SEED:-1}
SECONDS_EACH=${SECONDS_EACH:-100}
EVERY=${EVERY:-10s}
EVERY_LOST=${EVERY_LOST:-15s}
KILL_AT=${KILL_AT:-50}
RESUME_S=${RESUME_S:-20}
BACKEND=${BACKEND:-gpu}
THREADS=${THREADS:-2}
. scripts/device_env.sh
fg_begin device_checkpoint.log
if [ -z "${FG:-}" ]; then
  fg_build flipgraph || exit 2
  FG=$PWD/build-device/flipgraph
fi
fg_banner "pool checkpoints, $DIMS, $BACKEND"
where="--backend $BACKEND"
[ "$BACKEND" = cpu ] && where="$where --threads $THREADS"
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
A="--dims $DIMS $where --target-rank 0 --seed $SEED --progress 10s"

rate() { # the summary line's flips/s and best rank of log $1
  sed -n 's/^best rank \([0-9]*\) .*(\([0-9.e+]*\) flips\/s)$/\2 \1/p' "$1" | tail -1
}
run() { # NAME TIMEOUT ARGS...: one search, its output in $OUT/NAME.txt
  local name=$1 to=$2
  shift 2
  fg_say "$name: flipgraph search $*"
  timeout "$to" $FG search "$@" > "$OUT/$name.txt" 2>&1
  echo "   rc=$?" | tee -a "$LOG"
}

run plain $((SECONDS_EACH + 120)) $A --time ${SECONDS_EACH}s
run every $((SECONDS_EACH + 120)) $A --time ${SECONDS_EACH}s --pool-out "$work/cost" --pool-every "$EVERY" -v
read -r f0 b0 < <(rate "$OUT/plain.txt")
read -r f1 b1 < <(rate "$OUT/every.txt")
ck=$(grep -c 'pool checkpoint: ' "$OUT/every.txt")

fg_say "lost: --pool-every $EVERY_LOST, SIGKILL at $KILL_AT s"
$FG search $A --time 1h --pool-out "$work/lost" --pool-every "$EVERY_LOST" -v > "$OUT/lost.txt" 2>&1 &
pid=$!
sleep "$KILL_AT"
kill -9 $pid
wait $pid 2>/dev/null
n=$(ls "$work/lost"/*.txt 2>/dev/null | wc -l)
bad=0
for f in "$work/lost"/*.txt; do [ -f "$f" ] && { "$FG" verify "$f" > /dev/null 2>&1 || bad=$((bad + 1)); }; done
tmpfiles=$(ls -A "$work/lost" | grep -vc '\.txt$')
lostck=$(grep -c 'pool checkpoint: ' "$OUT/lost.txt")
lostbest=$(ls "$work/lost" | sed -n 's/^[0-9]*x[0-9]*x[0-9]*-\([0-9]*\)-.*/\1/p' | sort -n | head -1)
fg_say "lost: $lostck checkpoints before the kill, $n files, $bad not verifying, $tmpfiles other entries"
run resume $((RESUME_S + 120)) --from "$work/lost" $where --target-rank 0 --seed $((SEED + 1)) --progress 10s \
  --time ${RESUME_S}s
start=$(sed -n 's/.*start rank \([0-9]*\) (--from, \([0-9]*\) schemes).*/\1 from \2 schemes/p' "$OUT/resume.txt" | head -1)
read -r f2 b2 < <(rate "$OUT/resume.txt")

{
  echo
  echo "| run | flips/s | best rank | checkpoints |"
  echo "| --- | --- | --- | --- |"
  echo "| $DIMS $SECONDS_EACH s, no checkpoints | $f0 | $b0 | 0 |"
  echo "| $DIMS $SECONDS_EACH s, --pool-every $EVERY | $f1 | $b1 | $ck |"
  echo "| killed at $KILL_AT s (--pool-every $EVERY_LOST): the folder's lowest rank | - | $lostbest | $lostck |"
  echo "| --from the killed run's folder ($n files, $bad not verifying, $tmpfiles other entries), $RESUME_S s: start $start | $f2 | $b2 | - |"
} | tee -a "$LOG"
