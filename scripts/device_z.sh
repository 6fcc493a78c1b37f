#!/usr/bin/env bash
# The walk over Z on the GPU (docs/gpu-walk.md, "Walks over Z"; issue 23), one
# call on the GPU machine: build, the checks of tests/gpu_z.c (2048 GPU walkers
# of each kernel against the core run on the CPU, bit for bit), then within
# about BUDGET seconds (default 500):
#   1. flips/s over Z and GF(2) side by side on <4,4,4> and <5,5,5>
#      (`flipgraph bench search --backend gpu --ring both --flips-only`, 10 s each);
#   2. `flipgraph search --ring z --backend gpu --dims 4x4x4 --target-rank 49`
#      from the standard algorithm, seeds 1..3, each capped at T49 (default 45s),
#      with the GF(2) walk's --plateau 500 --walk-len 1000000 and then the GPU Z defaults (2000, 50000);
#   3. `flipgraph sweep --ring z --backend gpu` over 2x2x2..5x5x5 until the Z
#      records, with the time that is left (an equal share per format, at least 5 s).
# Everything goes to $OUT (device_z.log, one log per step); the summary last.
# Carry deps/ (docs/device.md).
# Usage: OUT=out [BUDGET=500] [T49=45s] bash scripts/device_z.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
BUDGET=${BUDGET:-500}
T49=${T49:-45s}
mkdir -p "$OUT"
LOG=$OUT/device_z.log
: > "$LOG"
. scripts/device_env.sh
fg_device_deps
B=build-device
cmake -S . -B $B "${FG_DEVICE_CMAKE[@]}" \
  > "$OUT/build.log" 2>&1 && cmake --build $B -j"$(nproc)" --target flipgraph gpu_z >> "$OUT/build.log" 2>&1 || {
  tail -30 "$OUT/build.log"; exit 2; }
F=$B/flipgraph
export FLIPGRAPH_CORPUS=$PWD/data/corpus FLIPGRAPH_SOURCE=$PWD
say() { echo "$@" | tee -a "$LOG"; }
T0=$(date +%s)
say "== $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u '+%F %TZ'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

say "== tests/gpu_z (FLIPGRAPH_SEED=1)"
FLIPGRAPH_SEED=1 $B/gpu_z > "$OUT/gpu_z.log" 2>&1
rc=$?
tail -8 "$OUT/gpu_z.log" | tee -a "$LOG"
say "gpu_z exit $rc"

say "== flips/s on the GPU, GF(2) and Z side by side (bench search --backend gpu --ring both --flips-only)"
$F bench search --backend gpu --ring both --flips-only 2>&1 | tee "$OUT/bench_flips.log" | tee -a "$LOG"

# the GF(2) warp walk's plateau and walk (500 steps, 1e6), then the GPU walk over Z's own defaults
# (plateau 2000, walk-len 50000: the better of the two on the H100, bench/RESULTS.md)
k=0
for args in "--plateau 500 --walk-len 1000000" ""; do
  k=$((k + 1))
  say "== search --ring z --backend gpu --dims 4x4x4 --target-rank 49 --time $T49 $args, from the standard algorithm"
  for s in 1 2 3; do
    rm -f "/tmp/z49_${k}_$s.db"
    t=$(date +%s%N)
    # shellcheck disable=SC2086
    $F search --ring z --backend gpu --dims 4x4x4 --target-rank 49 --time "$T49" --seed "$s" $args \
      --db "/tmp/z49_${k}_$s.db" --out "$OUT/z49_${k}_seed$s" > "$OUT/z49_${k}_seed$s.log" 2>&1
    rc=$?
    w=$(( ($(date +%s%N) - t) / 1000000 ))
    say "seed $s: exit $rc, wall ${w} ms: $(grep -E '^best rank' "$OUT/z49_${k}_seed$s.log" | tail -1)"
    $F db check --db "/tmp/z49_${k}_$s.db" >> "$LOG" 2>&1 || say "seed $s: db check FAILED"
  done
done

left=$(( BUDGET - ($(date +%s) - T0) ))
per=$(( left / 20 ))
[ "$per" -lt 5 ] && per=5
say "== sweep --ring z --backend gpu 2x2x2..5x5x5 --until-record, ${per}s per format (${left}s left of ${BUDGET}s)"
rm -f /tmp/zsweep.db
$F sweep --ring z --backend gpu --dims-list 2x2x2..5x5x5 --until-record --time-per "${per}s" --seed 1 \
  --progress 0 --db /tmp/zsweep.db > "$OUT/sweep_z.log" 2>&1
rc=$?
sed -n '/^over Z: record/,$p' "$OUT/sweep_z.log" | tee -a "$LOG"
say "sweep exit $rc (0: every Z record reached; 1: one missed)"
$F db check --db /tmp/zsweep.db >> "$LOG" 2>&1 || say "sweep store: db check FAILED"
cp /tmp/zsweep.db "$OUT/" 2>/dev/null
say "== done in $(( $(date +%s) - T0 ))s (after the build)"
