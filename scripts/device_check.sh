#!/usr/bin/env bash
# One short call on the GPU machine that checks the whole GPU side of a change:
# build once, the GPU walk and GPU runtime checks, a GPU search that must reach
# <3,3,3>:23 with every scheme verified and stored, and `multiply --backend gpu`
# against `--backend cpu`.  The short table is printed last; the log is kept
# in $OUT/device_check.log.  Carry deps/ (the SQLite/xxHash -dev packages,
# docs/device.md); the corpus files the checks read are in the repository
# (data/corpus) and travel with the tree.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
LOG=$OUT/device_check.log
: > "$LOG"
. scripts/device_env.sh
fg_device_deps
B=build-device
results=()
step() { # name command...
  local name=$1; shift
  if "$@" >> "$LOG" 2>&1; then results+=("ok      $name"); else results+=("FAILED  $name (exit $?)"); fi
}
step configure cmake -S . -B $B "${FG_DEVICE_CMAKE[@]}"
step build cmake --build $B -j"$(nproc)" --target flipgraph gpu_walk gpu_runtime
export FLIPGRAPH_BIN=$PWD/$B/flipgraph
export FLIPGRAPH_CORPUS=$PWD/data/corpus
F=$B/flipgraph
step "flipgraph version sees a GPU" bash -c "$F version | tee -a $LOG | grep -q 'gpu visible: NVIDIA'"
step "tests/gpu_walk" bash -c "$B/gpu_walk 2>&1 | tail -3 | tee -a $LOG | grep -E '^[0-9]+ passed, 0 failed'"
step "tests/gpu_runtime" bash -c "$B/gpu_runtime 2>&1 | tail -3 | tee -a $LOG | grep -E '^[0-9]+ passed, 0 failed'"
rm -f /tmp/fgdev.db
step "search --backend gpu <3,3,3> to 23, stored" bash -c \
  "$F search --dims 3x3x3 --target-rank 23 --time 30s --backend gpu --db /tmp/fgdev.db && $F db check --db /tmp/fgdev.db && $F db best --dims 3x3x3 --db /tmp/fgdev.db | grep -q 23"
step "search --resume of the GPU run walks on the GPU" bash -c \
  "$F search --resume 1 --db /tmp/fgdev.db --time 3s 2>&1 | tee -a $LOG | grep -q 'backend gpu:' && \
   test \$($F db runs --db /tmp/fgdev.db | tee -a $LOG | grep -c ' gpu ') -eq 2"
step "--threads with --backend gpu: exit 2, named" bash -c \
  "$F search --backend gpu --dims 2x2x2 --threads 2 > $OUT/refused.txt 2>&1; rc=\$?; cat $OUT/refused.txt; \
   test \$rc -eq 2 && grep -q -- '--threads: the gpu backend does not use it' $OUT/refused.txt"
rm -f /tmp/fgz.db
step "search --backend gpu --ring z --symmetry c3 <3,3,3> to 23: the GPU's C3 walk, lifted, stored over Z" bash -c \
  "$F search --dims 3x3x3 --ring z --symmetry c3 --target-rank 23 --time 30s --backend gpu --db /tmp/fgz.db && \
   $F db check --db /tmp/fgz.db && $F db best --dims 3x3x3 --ring z --db /tmp/fgz.db | grep -q 23 && \
   $F db list --ring z --db /tmp/fgz.db | tee -a $LOG | awk 'NR > 1 && \$NF != \"lift\" { bad = 1 } END { exit bad }'"
rm -f /tmp/fgv.db
step "search --backend gpu --ring z --via-f2 10s <3,4,4> to 38: the GF(2) GPU walk, lifted, stored over Z" bash -c \
  "$F search --dims 3x4x4 --ring z --via-f2 10s --target-rank 38 --time 60s --backend gpu --db /tmp/fgv.db && \
   $F db check --db /tmp/fgv.db && $F db best --dims 3x4x4 --ring z --db /tmp/fgv.db | grep -q 38 && \
   $F db list --ring z --db /tmp/fgv.db | tee -a $LOG | awk 'NR > 1 && \$NF != \"lift\" { bad = 1 } END { exit bad }'"
for s in 1 2 3; do
  step "search --backend gpu <4,4,4> to 47, seed $s (60 s cap)" bash -c \
    "$F search --backend gpu --dims 4x4x4 --target-rank 47 --time 60s --seed $s -q > $OUT/ttr47_$s.txt"
  results+=("        seed $s: $(tail -1 $OUT/ttr47_$s.txt)")
done
step "multiply --backend gpu == cpu (3001x2500x2777, strassen,strassen)" bash -c \
  "$F matrix random --rows 3001 --cols 2500 --seed 1 -o /tmp/A.bm && $F matrix random --rows 2500 --cols 2777 --seed 2 -o /tmp/B.bm && \
   $F multiply --scheme strassen,strassen --a /tmp/A.bm --b /tmp/B.bm -o /tmp/Cg.bm --backend gpu && \
   $F multiply --scheme strassen,strassen --a /tmp/A.bm --b /tmp/B.bm -o /tmp/Cc.bm --backend cpu && $F matrix cmp /tmp/Cg.bm /tmp/Cc.bm"
nvidia-smi --query-gpu=name --format=csv,noheader >> "$LOG" 2>&1
echo "== device check on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(date -u +%F)"
printf '%s\n' "${results[@]}"
printf '%s\n' "${results[@]}" | grep -q FAILED && exit 1
exit 0
