#!/usr/bin/env bash
# The walk over Z on the GPU (docs/gpu-walk.md, "Walks over Z"; issue 23), one
# call on the GPU machine: build, then the steps named in STEPS (default all,
# in this order) within about BUDGET seconds after the build (default 500):
#   check  tests/gpu_z: 2048 GPU walkers of each kernel against the core run on
#          the CPU, bit for bit (warp, thread, global against the thread's walk;
#          match against the CPU's run of its sampled walk);
#   flips  flips/s over Z with each kernel of KERNELS (default "warp thread
#          match"; FLIPGRAPH_WZ_KERNEL), and over GF(2), on <4,4,4> and <5,5,5>
#          (`flipgraph bench search --backend gpu --flips-only`, 10 s each);
#   z49    `flipgraph search --ring z --backend gpu --dims 4x4x4 --target-rank 49`
#          from the standard algorithm with the GPU Z defaults, seeds 1..3, each
#          capped at T49 (default 30s), with each kernel of KERNELS;
#   sweep  `flipgraph sweep --ring z --backend gpu` over 2x2x2..5x5x5 until the Z
#          records, with the time that is left (an equal share per format, at
#          least 5 s, or ZPER seconds; skipped when less than 100 s are left);
#          with ZDB (a carried store holding GF(2) results, e.g. a meta
#          search's) it goes on from a copy of that store with --lift ZLIFT
#          (default 16): each format first lifts the store's lowest GF(2)
#          schemes to Z and starts from the best Z scheme.
# A table of the kernels (flips/s, <4,4,4>:49) last; everything goes to $OUT
# (device_z.log, one log per step, table.txt).  The build stays in
# build-device, so that a second call (STEPS="z49 sweep") does not rebuild;
# the flips step's logs stay there too (build-device/device_z_logs), so that
# the second call's table has the first call's flips/s.
# Carry deps/ (docs/device.md).
# Usage: OUT=out [BUDGET=500] [T49=30s] [STEPS="check flips z49 sweep"]
#        [KERNELS="warp thread match"] bash scripts/device_z.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
BUDGET=${BUDGET:-500}
T49=${T49:-30s}
STEPS=${STEPS:-check flips z49 sweep}
KERNELS=${KERNELS:-warp thread match}
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
ZL=$B/device_z_logs # the flips step's logs, for a later call's table
mkdir -p "$ZL"
export FLIPGRAPH_CORPUS=$PWD/data/corpus FLIPGRAPH_SOURCE=$PWD
say() { echo "$@" | tee -a "$LOG"; }
T0=$(date +%s)
say "== $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u '+%F %TZ'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), steps: $STEPS; kernels: $KERNELS"

if fg_wants check; then
  say "== tests/gpu_z (FLIPGRAPH_SEED=1)"
  FLIPGRAPH_SEED=1 $B/gpu_z > "$OUT/gpu_z.log" 2>&1
  rc=$?
  grep -E 'kernel:|FAILED' "$OUT/gpu_z.log" | head -20 | tee -a "$LOG"
  tail -1 "$OUT/gpu_z.log" | tee -a "$LOG"
  say "gpu_z exit $rc"
fi

# flips/s: the bench's rows are "FORMAT RING ... WHOLE-SEARCH BEST"; $(NF-1) is the rate
rate() { [ -f "$3" ] && awk -v f="$1" -v r="$2" '$1 == f && $2 == r { print $(NF-1) }' "$3" | tail -1; }
if fg_wants flips; then
  ring=both # GF(2) once, beside the first kernel
  for kern in $KERNELS; do
    say "== flips/s on the GPU, FLIPGRAPH_WZ_KERNEL=$kern (bench search --backend gpu --ring $ring --flips-only)"
    FLIPGRAPH_WZ_KERNEL=$kern $F bench search --backend gpu --ring $ring --flips-only 2>&1 |
      tee "$OUT/bench_flips_$kern.log" | tee -a "$LOG"
    cp "$OUT/bench_flips_$kern.log" "$ZL/"
    [ $ring = both ] && cp "$OUT/bench_flips_$kern.log" "$ZL/bench_flips_f2.log"
    ring=z
  done
fi

# <4,4,4>:49 over Z with the GPU walk over Z's defaults (search/params.c, g_gpu_z_defaults), each kernel
declare -A reached times
for kern in $KERNELS; do
  reached[$kern]=-
  times[$kern]=""
done
if fg_wants z49; then
  for kern in $KERNELS; do
    say "== FLIPGRAPH_WZ_KERNEL=$kern search --ring z --backend gpu --dims 4x4x4 --target-rank 49 --time $T49, from the standard algorithm"
    reached[$kern]=0
    for s in 1 2 3; do
      rm -f "/tmp/z49_${kern}_$s.db"
      t=$(date +%s%N)
      FLIPGRAPH_WZ_KERNEL=$kern $F search --ring z --backend gpu --dims 4x4x4 --target-rank 49 --time "$T49" \
        --seed "$s" --db "/tmp/z49_${kern}_$s.db" --out "$OUT/z49_${kern}_seed$s" > "$OUT/z49_${kern}_seed$s.log" 2>&1
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
fi

{
  echo "== the kernels side by side (flips/s: bench search --backend gpu --flips-only, 10 s; <4,4,4>:49 over Z: seeds 1..3, wall time each, or >T49(best))"
  printf '%-18s %16s %16s   %s\n' "walk" "<4,4,4> flips/s" "<5,5,5> flips/s" "<4,4,4>:49 over Z"
  for kern in $KERNELS; do
    printf '%-18s %16s %16s   %s\n' "Z, $kern" "$(rate "<4,4,4>" z "$ZL/bench_flips_$kern.log")" \
      "$(rate "<5,5,5>" z "$ZL/bench_flips_$kern.log")" "${reached[$kern]}/3:${times[$kern]}"
  done
  printf '%-18s %16s %16s   %s\n' "GF(2), warp" "$(rate "<4,4,4>" f2 "$ZL/bench_flips_f2.log")" \
    "$(rate "<5,5,5>" f2 "$ZL/bench_flips_f2.log")" "-"
} > "$OUT/table.txt"
tee -a "$LOG" < "$OUT/table.txt"

if fg_wants sweep; then
  left=$(( BUDGET - ($(date +%s) - T0) ))
  per=$(( left / 20 ))
  [ "$per" -lt 5 ] && per=5
  [ -n "${ZPER:-}" ] && per=$ZPER
  lift=()
  [ -n "${ZDB:-}" ] && lift=(--lift "${ZLIFT:-16}")
  if [ "$left" -lt 100 ]; then
    say "== sweep skipped: ${left}s left of ${BUDGET}s (STEPS=sweep runs it alone)"
  else
    say "== sweep --ring z --backend gpu 2x2x2..5x5x5 --until-record, ${per}s per format (${left}s left of ${BUDGET}s)"
    rm -f /tmp/zsweep.db
    if [ -n "${ZDB:-}" ]; then cp "$ZDB" /tmp/zsweep.db && chmod u+w /tmp/zsweep.db || exit 2; fi
    $F sweep --ring z --backend gpu --dims-list 2x2x2..5x5x5 --until-record --time-per "${per}s" --seed 1 \
      "${lift[@]}" --progress 0 --db /tmp/zsweep.db > "$OUT/sweep_z.log" 2>&1
    rc=$?
    sed -n '/^over Z: record/,$p' "$OUT/sweep_z.log" | tee -a "$LOG"
    say "sweep exit $rc (0: every Z record reached; 1: one missed)"
    $F db check --db /tmp/zsweep.db >> "$LOG" 2>&1 || say "sweep store: db check FAILED"
    cp /tmp/zsweep.db "$OUT/" 2>/dev/null
  fi
fi
say "== done in $(( $(date +%s) - T0 ))s (after the build)"
