#!/usr/bin/env bash
# The weight bias and its window over the walkers on the GPU (docs/search.md,
# "The weight bias"; issues 19, 23), one call on the GPU machine:
#   check  the kernels against their CPU definitions with the bias and the
#          window: tests/gpu_walk's traces (FLIPGRAPH_GPU_ONLY=trace),
#          tests/gpu_sym and tests/gpu_z (FLIPGRAPH_SEED=1);
#   race   every run of RUNS ("DIMS:TIME:OPTIONS" separated by ';', OPTIONS
#          any search options such as "--weight-bias 0.05 --weight-bias-max
#          0.4" or "--ring z"), one after the other from the standard
#          algorithm with seed SEED: `flipgraph search --dims DIMS --backend
#          gpu --time TIME --seed SEED --target-rank 0 --progress 10s OPTIONS`;
#          one line each: the best rank every 10 s, then the summary line.
# The default RUNS put B = 0, B = 0.2 and two windows (0.05-0.4, 0.15-0.3) side by side on <6,6,6>
# and windows beside B = 0 on <5,5,5>, <4,4,5> and <4,4,5> over Z (about 8
# minutes with the build).  Everything goes to $OUT (window.log, build.log,
# one log per run).  Carry deps/.
# Usage: OUT=out [STEPS="check race"] [SEED=1] [RUNS="6x6x6:60s:--weight-bias 0.2;..."]
#        bash scripts/device_window.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
STEPS=${STEPS:-check race}
SEED=${SEED:-1}
RUNS=${RUNS:-"6x6x6:60s:;6x6x6:60s:--weight-bias 0.2;6x6x6:60s:--weight-bias 0.05 --weight-bias-max 0.4;\
6x6x6:60s:--weight-bias 0.15 --weight-bias-max 0.3;5x5x5:40s:;5x5x5:40s:--weight-bias 0 --weight-bias-max 0.3;\
4x4x5:40s:;4x4x5:40s:--weight-bias 0 --weight-bias-max 0.2;4x4x5:60s:--ring z;\
4x4x5:60s:--ring z --weight-bias 0 --weight-bias-max 0.2"}
. scripts/device_env.sh
fg_begin window.log
fg_build flipgraph gpu_walk gpu_sym gpu_z || exit 2
F=$B/flipgraph
fg_banner "steps: $STEPS"
if fg_wants check; then
  fg_step "tests/gpu_walk, the traces (FLIPGRAPH_SEED=1)" 300 env FLIPGRAPH_SEED=1 FLIPGRAPH_GPU_ONLY=trace \
    FLIPGRAPH_CORPUS=data/corpus $B/gpu_walk
  grep -E '^FAIL|weight bias|passed' "$LOG" | tail -8
  fg_step "tests/gpu_sym (FLIPGRAPH_SEED=1)" 300 env FLIPGRAPH_SEED=1 $B/gpu_sym
  tail -1 "$LOG"
  fg_step "tests/gpu_z (FLIPGRAPH_SEED=1)" 300 env FLIPGRAPH_SEED=1 FLIPGRAPH_CORPUS=data/corpus $B/gpu_z
  grep -E '^FAIL|over the walkers|passed' "$LOG" | tail -6
fi
if fg_wants race; then
  IFS=';' read -r -a runs <<< "$RUNS"
  k=0
  for r in "${runs[@]}"; do
    k=$((k + 1))
    IFS=: read -r dims t opts <<< "$r"
    log=$OUT/run$k.txt
    # shellcheck disable=SC2086 # opts is a list of options
    timeout 600 $F search --dims "$dims" --backend gpu --time "$t" --seed "$SEED" --target-rank 0 --progress 10s \
      $opts > "$log" 2>&1
    echo "== run $k: <$dims> $t ${opts:-(defaults)}: $(grep -E '^ +[0-9]+:' "$log" | awk '{printf "%s ", $4}')" |
      tee -a "$LOG"
    grep -E '^best rank' "$log" | tee -a "$LOG"
  done
fi
