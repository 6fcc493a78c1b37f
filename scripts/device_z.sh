#!/usr/bin/env bash
# The walk over Z on the GPU (docs/gpu-walk.md, "Walks over Z"; issue 23), one
# call on the GPU machine: build, the checks of tests/gpu_z.c (2048 GPU walkers
# of each kernel, warp, thread and global, against the core run on the CPU,
# bit for bit), then within about BUDGET seconds (default 500):
#   1. flips/s over Z with the warp kernel (the default) and the thread kernel
#      (FLIPGRAPH_WZ_KERNEL=thread), and over GF(2), on <4,4,4> and <5,5,5>
#      (`flipgraph bench search --backend gpu --flips-only`, 10 s each);
#   2. `flipgraph search --ring z --backend gpu --dims 4x4x4 --target-rank 49`
#      from the standard algorithm with the GPU Z defaults, seeds 1..3, each
#      capped at T49 (default 45s), with each of the two kernels;
#   3. `flipgraph sweep --ring z --backend gpu` over 2x2x2..5x5x5 until the Z
#      records, with the time that is left (an equal share per format, at least 5 s).
# Everything goes to $OUT (device_z.log, one log per step); a table of the
# kernels (flips/s, <4,4,4>:49) and the sweep's summary last.
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

# flips/s: the bench's rows are "FORMAT RING ... WHOLE-SEARCH BEST"; $(NF-1) is the rate
rate() { awk -v f="$1" -v r="$2" '$1 == f && $2 == r { print $(NF-1) }' "$3" | tail -1; }
say "== flips/s on the GPU over Z, warp kernel (the default), and GF(2) (bench search --backend gpu --ring both --flips-only)"
FLIPGRAPH_WZ_KERNEL=warp $F bench search --backend gpu --ring both --flips-only 2>&1 | tee "$OUT/bench_flips_warp.log" | tee -a "$LOG"
say "== flips/s on the GPU over Z, thread kernel (FLIPGRAPH_WZ_KERNEL=thread)"
FLIPGRAPH_WZ_KERNEL=thread $F bench search --backend gpu --ring z --flips-only 2>&1 | tee "$OUT/bench_flips_thread.log" | tee -a "$LOG"

# <4,4,4>:49 over Z with the GPU walk over Z's defaults (plateau 2000, walk-len 50000), both kernels
declare -A reached times
for kern in warp thread; do
  say "== FLIPGRAPH_WZ_KERNEL=$kern search --ring z --backend gpu --dims 4x4x4 --target-rank 49 --time $T49, from the standard algorithm"
  reached[$kern]=0
  times[$kern]=""
  for s in 1 2 3; do
    rm -f "/tmp/z49_${kern}_$s.db"
    t=$(date +%s%N)
    FLIPGRAPH_WZ_KERNEL=$kern $F search --ring z --backend gpu --dims 4x4x4 --target-rank 49 --time "$T49" --seed "$s" \
      --db "/tmp/z49_${kern}_$s.db" --out "$OUT/z49_${kern}_seed$s" > "$OUT/z49_${kern}_seed$s.log" 2>&1
    rc=$?
    w=$(( ($(date +%s%N) - t) / 1000000 ))
    best=$(grep -E '^best rank' "$OUT/z49_${kern}_seed$s.log" | tail -1)
    say "seed $s: exit $rc, wall ${w} ms: $best"
    if [ "$rc" = 0 ]; then
      reached[$kern]=$((reached[$kern] + 1))
      times[$kern]="${times[$kern]} $(awk -v w="$w" 'BEGIN { printf "%.1fs", w / 1000 }')"
    else
      times[$kern]="${times[$kern]} >$T49($(echo "$best" | grep -oE '[0-9]+' | head -1))"
    fi
    $F db check --db "/tmp/z49_${kern}_$s.db" >> "$LOG" 2>&1 || say "seed $s: db check FAILED"
  done
done

say "== the kernels side by side (flips/s: bench search --backend gpu --flips-only, 10 s; <4,4,4>:49 over Z: 3 seeds, wall time each)"
{
  printf '%-22s %14s %14s   %s\n' "walk" "<4,4,4> flips/s" "<5,5,5> flips/s" "<4,4,4>:49 (seeds 1..3)"
  printf '%-22s %14s %14s   %s\n' "Z, warp (default)" "$(rate "<4,4,4>" z "$OUT/bench_flips_warp.log")" \
    "$(rate "<5,5,5>" z "$OUT/bench_flips_warp.log")" "${reached[warp]}/3:${times[warp]}"
  printf '%-22s %14s %14s   %s\n' "Z, thread" "$(rate "<4,4,4>" z "$OUT/bench_flips_thread.log")" \
    "$(rate "<5,5,5>" z "$OUT/bench_flips_thread.log")" "${reached[thread]}/3:${times[thread]}"
  printf '%-22s %14s %14s   %s\n' "GF(2), warp" "$(rate "<4,4,4>" f2 "$OUT/bench_flips_warp.log")" \
    "$(rate "<5,5,5>" f2 "$OUT/bench_flips_warp.log")" "-"
} > "$OUT/table.txt"
tee -a "$LOG" < "$OUT/table.txt"

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
