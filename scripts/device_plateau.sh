#!/usr/bin/env bash
# Where the plain GPU walk stalls on <6,6,6> with the weight bias (issue 19,
# bench/RESULTS.md): one call on the GPU machine.
#   check    tests/gpu_sym (FLIPGRAPH_SEED=1): the symmetric kernels, and the
#            backend's launch shape on <2,2,2> c3xc2
#   plateau  a run to the plateau (B = 0.2 from the standard algorithm for
#            FIRST, its pool of up to 200 schemes kept), then every variant
#            of VARIANTS (options separated by ';') from that pool's 64 lowest for TIME:
#            does a setting leave the plateau the fixed bias stops at?
# Everything goes to $OUT (plateau.log, build.log, one log per run). Carry deps/.
# Usage: OUT=out [STEPS="check plateau"] [DIMS=6x6x6] [FIRST=90s] [TIME=60s] [SEED=1]
#        [VARIANTS="--weight-bias 0.2;--weight-bias 0.1;..."] bash scripts/device_plateau.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
STEPS=${STEPS:-check plateau}
DIMS=${DIMS:-6x6x6}
FIRST=${FIRST:-90s}
TIME=${TIME:-60s}
SEED=${SEED:-1}
VARIANTS=${VARIANTS:-"--weight-bias 0.2;--weight-bias 0.2 --plus-max 8;--weight-bias 0.1;\
--weight-bias 0 --weight-bias-max 0.2;--weight-bias 0.05"}
. scripts/device_env.sh
fg_begin plateau.log
fg_build flipgraph gpu_sym || exit 2
F=$B/flipgraph
fg_banner "steps: $STEPS"
if fg_wants check; then
  fg_step "tests/gpu_sym (FLIPGRAPH_SEED=1)" 300 env FLIPGRAPH_SEED=1 $B/gpu_sym
  grep -E '^FAIL|passed' "$LOG" | tail -4
fi
if fg_wants plateau; then
  pool=$OUT/pool
  mkdir -p "$pool"
  timeout 600 $F search --dims "$DIMS" --backend gpu --time "$FIRST" --seed "$SEED" --target-rank 0 --progress 10s \
    --weight-bias 0.2 --pool-keep 200 --pool-out "$pool" > "$OUT/first.txt" 2>&1
  echo "== first: <$DIMS> $FIRST --weight-bias 0.2: $(fg_best_ranks "$OUT/first.txt")" | tee -a "$LOG"
  grep -E '^best rank' "$OUT/first.txt" | tee -a "$LOG"
  froms=()
  # the 64 lowest (flipgraph search takes at most 64 --from files; names sort by rank)
  for f in $(ls "$pool" | head -64); do froms+=(--from "$pool/$f"); done
  echo "   the pool kept $(ls "$pool" | wc -l) schemes, the variants start from the lowest $((${#froms[@]} / 2)); ranks $(ls "$pool" | sed -E 's/^[^-]*-([0-9]+)-.*/\1/' | sort -n | uniq -c | tr -s ' \n' ' ')" | tee -a "$LOG"
  IFS=';' read -r -a vs <<< "$VARIANTS"
  k=0
  for v in "${vs[@]}"; do
    k=$((k + 1))
    log=$OUT/variant$k.txt
    # shellcheck disable=SC2086 # v is a list of options
    timeout 600 $F search --backend gpu --time "$TIME" --seed "$SEED" --target-rank 0 --progress 10s \
      "${froms[@]}" $v > "$log" 2>&1
    echo "== variant $k: from the pool, $TIME $v: $(fg_best_ranks "$log")" | tee -a "$LOG"
    grep -E '^best rank|the bias undid' "$log" | tee -a "$LOG"
  done
fi
