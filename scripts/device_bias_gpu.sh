#!/usr/bin/env bash
# The degree bias on the GPU (docs/search.md, "The degree bias"; issue 19),
# one call on the GPU machine:
#   check  tests/gpu_walk's trace checks (FLIPGRAPH_GPU_ONLY=trace), the bias's
#          among them: every move of many walkers replayed on the CPU;
#   speed  flips/s of `flipgraph search --backend gpu` on SPEED (a format,
#          default 4x5x5) from its standard algorithm, 20 s per bias of BIASES;
#   race   for every RACE "DIMS:TARGET:START" (START a scheme file, or the word
#          standard; TARGET 0: none), every seed of SEEDS and every bias of
#          BIASES: `flipgraph search --dims DIMS [--from START] --backend gpu
#          --time CAP --seed S --target-rank TARGET --degree-bias B`, one line
#          each (bias, seed, best rank, seconds), progress rows every PROGRESS
#          in the log where PROGRESS is set.
# Everything goes to $OUT (bias.log, build.log).  Carry deps/ and the starts.
# Usage: OUT=out [STEPS="check speed race"] [BIASES="0 2"] [SEEDS="1 2 3"] [CAP=40s]
#        [RACES="4x5x5:73:deps/a455back.txt 6x6x6:0:standard"] [SPEED=4x5x5]
#        [PROGRESS=15s] [EXTRA="--walk-len 10000000"] bash scripts/device_bias_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
STEPS=${STEPS:-check speed race}
BIASES=${BIASES:-0 2}
SEEDS=${SEEDS:-1 2 3}
CAP=${CAP:-40s}
RACES=${RACES:-4x5x5:73:standard}
SPEED=${SPEED:-4x5x5}
EXTRA=${EXTRA:-}
QUIET=(-q)
[ -n "${PROGRESS:-}" ] && QUIET=(--progress "$PROGRESS")
. scripts/device_env.sh
fg_begin bias.log
fg_build flipgraph gpu_walk || exit 2
F=$B/flipgraph
fg_banner "steps: $STEPS"
if fg_wants check; then
  fg_step "tests/gpu_walk, the traces (FLIPGRAPH_SEED=1)" 300 env FLIPGRAPH_SEED=1 FLIPGRAPH_GPU_ONLY=trace \
    FLIPGRAPH_CORPUS=data/corpus $B/gpu_walk
  grep -E '^(ok|FAIL)|passed' "$LOG" | tail -20
fi
if fg_wants speed; then
  for b in $BIASES; do
    # shellcheck disable=SC2086 # EXTRA is a list of options
    fg_step "speed: $SPEED from the standard algorithm, 20 s, degree bias $b" 120 $F search --dims $SPEED \
      --backend gpu --time 20s --seed 1 --target-rank 0 --degree-bias "$b" --progress 0 -v $EXTRA
    grep -E '^best rank|the bias undid' "$LOG" | tail -2
  done
fi
if fg_wants race; then
  for r in $RACES; do
    IFS=: read -r dims target start <<< "$r"
    from=(--from "$start")
    [ "$start" = standard ] && from=()
    for s in $SEEDS; do
      for b in $BIASES; do
        # shellcheck disable=SC2086 # EXTRA is a list of options
        fg_step "race $dims to $target from $start, seed $s, degree bias $b, $CAP" 600 $F search --dims "$dims" \
          "${from[@]}" --backend gpu --time "$CAP" --seed "$s" --target-rank "$target" --degree-bias "$b" \
          "${QUIET[@]}" $EXTRA
        line=$(grep -E '^best rank' "$LOG" | tail -1)
        echo "RACE $dims:$target from $(basename "$start") bias $b seed $s: $line" | tee -a "$LOG"
      done
    done
  done
fi
fg_say "done"
