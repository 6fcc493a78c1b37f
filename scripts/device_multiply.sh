#!/usr/bin/env bash
# The GPU runtime (docs/gpu-runtime.md) on the device machine in one call: build, the
# differential tests, one compute-sanitizer run, the SASS check, benchmarks and
# a short profile; the short table is printed last, the full log is kept.
#
#   scripts/device_multiply.sh [quick|full]      (default full)
#
# The device lacks the SQLite and xxHash headers: carry the git-ignored deps/
# folder (apt-get download libsqlite3-dev libxxhash-dev); scripts/device_env.sh
# unpacks them and gives the configure arguments (docs/device.md).  Results go to $OUT (the device
# tool's folder) or out/device_multiply.
set -uo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-full}
DEST=${OUT:-out/device_multiply}
mkdir -p "$DEST"
LOG=$DEST/device_multiply.log
: >"$LOG"
T0=$(date +%s)
. scripts/device_env.sh # fg_say, fg_step, the configure arguments

nvidia-smi -L 2>&1 | tee -a "$LOG"
nvcc --version | tail -1 | tee -a "$LOG"

fg_device_deps
B=build-device
fg_step "configure" 120 cmake -S . -B $B "${FG_DEVICE_CMAKE[@]}" || { tail -30 "$LOG"; exit 3; }
fg_step "build" 300 cmake --build $B -j"$(nproc)" --target gpu_runtime bench_gpu_multiply || {
  grep -E "error|Error" "$LOG" | head -30
  exit 3
}
# flipgraph itself only where it builds now (other modules are in flux).
fg_step "build flipgraph" 200 cmake --build $B -j"$(nproc)" --target flipgraph

# the corpus is in the repository (data/corpus), so it travels with the checkout
export FLIPGRAPH_CORPUS=$PWD/data/corpus

fg_say "SASS: bit tensor-core instructions in the inner kernel"
for o in bmm_tc bmm_wgmma; do
  echo "   $o:" | tee -a "$LOG"
  cuobjdump --dump-sass $B/CMakeFiles/fg_cuda.dir/cuda/$o.cu.o 2>>"$LOG" |
    grep -oE "[A-Z]*GMMA[.A-Z0-9]*|BMMA[.A-Z0-9]*|LDSM[.A-Z0-9]*|LDGSTS[.A-Z0-9]*" | sort | uniq -c | tee -a "$LOG"
done

fg_step "gpu_runtime (differential tests)" 240 $B/gpu_runtime
grep -E "^gpu_runtime|FAIL|passed|skipped" "$LOG" | tail -25

# flipgraph multiply --backend gpu against --backend cpu (where runtime/exec_gpu.c
# calls cuda_rt_multiply; until then the GPU backend answers exit 2).
if [ -x $B/flipgraph ]; then
  fg_say "flipgraph multiply: --backend gpu against --backend cpu"
  T=$(mktemp -d)
  F=$B/flipgraph
  $F matrix random --rows 3001 --cols 2500 --seed 1 -o $T/a.bin >>"$LOG" 2>&1
  $F matrix random --rows 2500 --cols 2777 --seed 2 -o $T/b.bin >>"$LOG" 2>&1
  for spec in "" "--boolean" "--scheme strassen --levels 2" \
    "--scheme $FLIPGRAPH_CORPUS/kauers-moosbauer/444-47-mod2.exp,strassen"; do
    $F multiply $spec --a $T/a.bin --b $T/b.bin -o $T/cpu.bin --backend cpu -q >>"$LOG" 2>&1
    $F multiply $spec --a $T/a.bin --b $T/b.bin -o $T/gpu.bin --backend gpu >>"$LOG" 2>&1
    g=$?
    if [ $g -ne 0 ]; then echo "   [$spec] gpu backend exit $g" | tee -a "$LOG"
    elif $F matrix cmp $T/cpu.bin $T/gpu.bin >>"$LOG" 2>&1; then echo "   [$spec] gpu = cpu" | tee -a "$LOG"
    else echo "   [$spec] gpu != cpu: MISMATCH" | tee -a "$LOG"; fi
  done
  rm -rf "$T"
fi

if [ "$MODE" = full ]; then
  fg_step "TC pipeline depth sweep, n = 2^15" 120 bash -c "for s in 3 4 5 6; do FLIPGRAPH_TC_STAGES=\$s $B/bench_gpu_multiply --tc-only --log2 15 --reps 3 | grep -E 'TC stages|tensor'; done"
fi
BEST=${FLIPGRAPH_TC_STAGES:-4}
if [ "$MODE" = full ]; then
  BEST=$(awk '/TC stages/{s=$NF} /mma\.sync b1\).*gf2/{for(i=1;i<=NF;i++) if($i=="Pbop/s") p=$(i-1); if(p>b){b=p; bs=s}} END{print bs?bs:4}' "$LOG")
fi
fg_say "TC stages used: $BEST"
export FLIPGRAPH_TC_STAGES=$BEST
SIZES=14,15,16
[ "$MODE" = quick ] && SIZES=14
fg_step "bench_gpu_multiply --log2 $SIZES" 360 $B/bench_gpu_multiply --log2 $SIZES
cp "$LOG" "$DEST/" 2>/dev/null

if [ "$MODE" = full ] && [ $(($(date +%s) - T0)) -lt 420 ]; then
  fg_step "compute-sanitizer memcheck, small sizes" 150 env FLIPGRAPH_SANITIZED=1 \
    compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_runtime
  grep -E "ERROR SUMMARY|passed" "$LOG" | tail -3
fi
if [ "$MODE" = full ] && [ $(($(date +%s) - T0)) -lt 480 ]; then
  for k in bmm_tc_kernel bmm_wgmma_kernel; do
    fg_step "ncu: $k at n = 2^14" 60 ncu --launch-count 1 -k regex:$k \
      --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis \
      --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio \
      $B/bench_gpu_multiply --tc-only --log2 14 --reps 1
  done
  grep -E "Throughput|Busy|Issue|highest-utilized|Duration|Warp Cycles|stalled_(barrier|long|short|math|wait|mio|lg|not_sel|selected|dispatch|tex|membar|sleep|branch|drain|imc|no_inst)" "$LOG" | tail -60
fi

fg_say "summary"
grep -E "^gpu_runtime|[0-9]+ passed|ERROR SUMMARY|mismatches|gpu = cpu|MISMATCH|gpu backend exit" "$LOG" | tail -12
grep -E "^\| " "$LOG" | tail -60
