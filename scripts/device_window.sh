#!/usr/bin/env bash
# The weight bias and its window over the walkers on the GPU (docs/search.md,
# "The weight bias"; issues 19, 23), one call on the GPU machine:
#   check  the kernels against their CPU definitions with the bias and the
#          window: tests/gpu_walk's traces (FLIPGRAPH_GPU_ONLY=trace) and its
#          adaptive plateau and its siblings, tests/gpu_sym and tests/gpu_z
#          (FLIPGRAPH_SEED=1, the name every test reads: tests/test_seed.h);
#   race   every run of RUNS ("DIMS:TIME:OPTIONS" separated by ';', OPTIONS
#          any search options such as "--weight-bias 0.05 --weight-bias-max
#          0.4" or "--ring z"), one after the other from the standard
#          algorithm with seed SEED: `flipgraph search --dims DIMS --backend
#          gpu --time TIME --seed SEED --target-rank 0 --progress 10s OPTIONS`;
#          one line each: the best rank every 10 s, then the summary line;
#          with SEEDS (such as "1 2 3") every run once per seed, the seeds
#          innermost (a GPU search does not replay: each walker walks its own
#          clock per launch, so one seed's few ranks are noise; bench/RESULTS.md,
#          "The bias and its window on the GPU").
# The default RUNS are the thirty-fourth session's next ones, the plain
# <6,6,6> for 4 minutes each: the GPU's large-format defaults (B = 0.2, a
# plateau of 200000 steps; docs/search.md, "Large formats"), then the same
# with the host's 14 threads beside, walking as the 14 threads that reached
# 172 alone did (pool-min 1, the plateau fixed at 200000; beside the GPU
# with the run's pool-min 4 and an adaptive plateau they reached 177 in 17
# minutes: bench/RESULTS.md, "Siblings and the host's threads on <6,6,6>").
# About 9 minutes with the build; the checks take about 5 more, another
# call.  Everything goes to $OUT (window.log, build.log, one log per run).
# Carry deps/.
# Usage: OUT=out [STEPS="check race"] [SEED=1] [SEEDS="1 2 3"] [RUNS="6x6x6:60s:--weight-bias 0.2;..."]
#        bash scripts/device_window.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
STEPS=${STEPS:-check race}
SEED=${SEED:-1}
SEEDS=${SEEDS:-$SEED}
RUNS=${RUNS:-"6x6x6:240s:;\
6x6x6:240s:--host-threads 14 --pool-min 1 --plateau-min 200000 --plateau-max 200000"}
. scripts/device_env.sh
fg_begin window.log
fg_build flipgraph gpu_walk gpu_sym gpu_z || exit 2
F=$B/flipgraph
fg_banner "steps: $STEPS"
if fg_wants check; then
  fg_step "tests/gpu_walk, the traces (FLIPGRAPH_SEED=1)" 300 env FLIPGRAPH_SEED=1 FLIPGRAPH_GPU_ONLY=trace \
    FLIPGRAPH_CORPUS=data/corpus $B/gpu_walk
  grep -E '^FAIL|weight bias|passed' "$LOG" | tail -8
  fg_step "tests/gpu_walk, the adaptive plateau (FLIPGRAPH_SEED=1)" 120 env FLIPGRAPH_SEED=1 \
    FLIPGRAPH_GPU_ONLY="adaptive plateau" FLIPGRAPH_CORPUS=data/corpus $B/gpu_walk
  grep -E '^FAIL|^ok|passed' "$LOG" | tail -3
  fg_step "tests/gpu_walk, siblings (FLIPGRAPH_SEED=1)" 120 env FLIPGRAPH_SEED=1 \
    FLIPGRAPH_GPU_ONLY=siblings FLIPGRAPH_CORPUS=data/corpus $B/gpu_walk
  grep -E '^FAIL|^ok|passed' "$LOG" | tail -4
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
    for seed in $SEEDS; do
      log=$OUT/run$k-seed$seed.txt
      # shellcheck disable=SC2086 # opts is a list of options
      timeout 600 $F search --dims "$dims" --backend gpu --time "$t" --seed "$seed" --target-rank 0 --progress 10s \
        $opts > "$log" 2>&1
      echo "== run $k seed $seed: <$dims> $t ${opts:-(defaults)}: $(fg_best_ranks "$log")" |
        tee -a "$LOG"
      grep -E '^best rank|the bias undid|the pool took' "$log" | tee -a "$LOG"
    done
  done
fi
