#!/usr/bin/env bash
# The host layer on one GPU (docs/host-layer.md), in one device call of at most
# 10 minutes: build, the GPU differential tests (shortened), the host layer on the
# GPU against the CPU executor, then the issue-21 measurements:
#   0. the streaming session on small sizes (pinned, pageable, depths 1 and 3,
#      0,0,cpu, Strassen x2, Boolean), checked by Freivalds and samples;
#   1. n = 2^17: in core against streaming under --max-device-memory 4096 (target:
#      the streamed rate at least 90% of the in-core rate), cubic (default,
#      page-locked, pageable, pipeline 3, --devices 0,0) and Strassen x1;
#   2. 2^18 in core, 2^19 cubic (target 8e15 bop/s), 2^19 with a Strassen level
#      on the host, and 2^18 Boolean streamed, as the time allows.
# Each run prints its profile (docs/host-layer.md) into the summary.
#
#   scripts/device_scale.sh            (carry: deps)
#
# The device lacks the SQLite and xxHash headers: carry the git-ignored deps/
# folder (scripts/device_env.sh unpacks it; docs/device.md).  Results go to $OUT
# (the device tool's folder) or out/device_scale; the summary table is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
DEST=${OUT:-out/device_scale}
mkdir -p "$DEST"
LOG=$DEST/device_scale.log
SUM=$DEST/summary.txt
: >"$LOG"
: >"$SUM"
T0=$(date +%s)
BUDGET=${SCALE_BUDGET_S:-570} # the device tool stops a command at 600 s
el() { echo $(($(date +%s) - T0)); }
left() { echo $((BUDGET - $(el))); }
. scripts/device_env.sh # fg_say, fg_step, the configure arguments

nvidia-smi -L 2>&1 | tee -a "$LOG"
nvidia-smi --query-gpu=name,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv 2>&1 | tee -a "$LOG"
free -g 2>&1 | tee -a "$LOG"
nproc | tee -a "$LOG"
git log --oneline -1 2>/dev/null | tee -a "$LOG"

fg_device_deps
B=build-device
fg_step "configure" 120 cmake -S . -B $B "${FG_DEVICE_CMAKE[@]}" || { tail -30 "$LOG"; exit 3; }
fg_step "build" 300 cmake --build $B -j"$(nproc)" --target flipgraph gpu_runtime || {
  grep -E "error|Error" "$LOG" | head -30
  exit 3
}
export FLIPGRAPH_CORPUS=$PWD/data/corpus
F=$B/flipgraph

# The executor changed (the streaming session, no pack/unpack copies without
# levels): the differential tests, scaled down, must still pass.
if [ "$(left)" -gt 420 ]; then
  FLIPGRAPH_SANITIZED=1 fg_step "gpu_runtime (FLIPGRAPH_SANITIZED=1 sizes)" 90 $B/gpu_runtime
  grep -E "passed|FAIL" "$LOG" | tail -3 | tee -a "$SUM"
fi

fg_say "the host layer on the GPU against the CPU executor"
T=$(mktemp -d)
$F matrix random --rows 3001 --cols 2500 --seed 1 -o $T/a.bin >>"$LOG" 2>&1
$F matrix random --rows 2500 --cols 2777 --seed 2 -o $T/b.bin >>"$LOG" 2>&1
for spec in "" "--boolean" "--scheme strassen --levels 2" \
  "--scheme $FLIPGRAPH_CORPUS/kauers-moosbauer/444-47-mod2.exp,strassen"; do
  $F multiply $spec --a $T/a.bin --b $T/b.bin -o $T/cpu.bin --backend cpu -q >>"$LOG" 2>&1
  for dev in "--devices 0 --max-device-memory 16" "--devices 0,cpu --max-device-memory 16" "--devices 0"; do
    timeout 60 $F multiply $spec --a $T/a.bin --b $T/b.bin -o $T/gpu.bin $dev >>"$LOG" 2>&1
    g=$?
    if [ $g -ne 0 ]; then r="exit $g"
    elif $F matrix cmp $T/cpu.bin $T/gpu.bin >>"$LOG" 2>&1; then r="= cpu"
    else r="MISMATCH"; fi
    echo "   [${spec:-cubic}] [$dev]: $r" | tee -a "$LOG" "$SUM"
  done
done
rm -rf "$T"

# bench multiply --generate: one line per run in the summary, then its profile
# (docs/host-layer.md, "The profile": where the wall time went, GPU phases from
# CUDA events).
gen() { # gen LABEL TIMEOUT ARGS...
  local label=$1 to=$2
  shift 2
  fg_say "bench multiply --generate $label: $*"
  timeout "$to" $F bench multiply -q "$@" >"$DEST/run.txt" 2>&1
  local rc=$?
  cat "$DEST/run.txt" >>"$LOG"
  local split rate t chk
  split=$(grep -o 'split: .*' "$DEST/run.txt" | head -1)
  t=$(awk '/^product/ {print $2}' "$DEST/run.txt")
  rate=$(awk '/^product/ {print $4}' "$DEST/run.txt")
  chk=$(grep -E '^Freivalds|^samples' "$DEST/run.txt" | tr '\n' ' ')
  printf '%-40s rc=%-3s %9s s  %12s bop/s  %s | %s\n' "$label" "$rc" "${t:--}" "${rate:--}" "$split" "$chk" |
    tee -a "$SUM"
  sed -n '/^profile:/,/^Freivalds\|^samples/p' "$DEST/run.txt" | grep -v '^Freivalds\|^samples' |
    sed 's/^/    /' | tee -a "$SUM"
  [ $rc -eq 0 ] || tail -5 "$DEST/run.txt" | sed 's/^/    ! /' | tee -a "$SUM"
  return $rc
}

# The streaming session on small sizes, checked by Freivalds and samples:
# page-locked and pageable buffers, one and two executors on the GPU, a GPU
# beside a CPU executor, pipeline depths 1 and 3, Strassen on the host.
if [ "$(left)" -gt 400 ]; then
  FLIPGRAPH_PINNED=1 gen "check: 20000 streamed, pinned" 60 --generate 20000 --devices 0 --max-device-memory 64 --seed 5
  FLIPGRAPH_PINNED=0 gen "check: 20000 streamed, pageable, depth 1" 60 --generate 20000 --devices 0 \
    --max-device-memory 64 --pipeline 1 --seed 6
  gen "check: 20000x9000x13000 0,0,cpu depth 3" 60 --generate 20000x9000x13000 --devices 0,0,cpu \
    --max-device-memory 64 --pipeline 3 --seed 7
  gen "check: 20000 strassen x2 streamed" 60 --generate 20000 --scheme strassen --levels 2 --devices 0 \
    --max-device-memory 64 --seed 8
  gen "check: 20000 Boolean streamed" 60 --generate 20000 --boolean --devices 0 --max-device-memory 64 --seed 9
fi

N17=131072
if [ "$(left)" -gt 300 ]; then
  gen "2^17 cubic, in core" 150 --generate $N17 --devices 0 --seed 17
  FLIPGRAPH_PIN_OPERANDS=1 gen "2^17 cubic, in core, operands locked" 150 --generate $N17 --devices 0 --seed 17
  gen "2^17 cubic, device limit 4 GiB" 150 --generate $N17 --devices 0 --max-device-memory 4096 --seed 17
  FLIPGRAPH_PINNED=1 gen "2^17 cubic, 4 GiB, page-locked" 150 --generate $N17 --devices 0 \
    --max-device-memory 4096 --seed 17
  FLIPGRAPH_PINNED=0 gen "2^17 cubic, 4 GiB, pageable" 150 --generate $N17 --devices 0 \
    --max-device-memory 4096 --seed 17
  gen "2^17 cubic, 4 GiB, pipeline 3" 150 --generate $N17 --devices 0 --max-device-memory 4096 --pipeline 3 --seed 17
  gen "2^17 cubic, 4 GiB, --devices 0,0" 150 --generate $N17 --devices 0,0 --max-device-memory 4096 --seed 17
fi
if [ "$(left)" -gt 280 ]; then
  gen "2^17 strassen x1, in core" 150 --generate $N17 --scheme strassen --devices 0 --seed 17
  gen "2^17 strassen x1, device limit 4 GiB" 150 --generate $N17 --scheme strassen --devices 0 \
    --max-device-memory 4096 --seed 17
fi
# The largest sizes: 2^18 (8 GiB an operand) in core, then 2^19 (32 GiB: 96 GiB
# for A, B, C) on the host layer, cubic (4x4x4 tiles of 2^17) and with a Strassen
# level on the host (1 host level and 2x2x2 tiles: 56 subproblems of 2^17);
# host buffers bounded to 16 GiB beside the operands.
if [ "$(left)" -gt 250 ]; then
  gen "2^18 cubic, in core" 120 --generate 262144 --devices 0 --max-memory 16384 --seed 18
fi
if [ "$(left)" -gt 150 ]; then
  gen "2^19 cubic, host layer" $(($(left) - 20)) --generate 524288 --devices 0 --max-memory 16384 --seed 19
fi
if [ "$(left)" -gt 150 ]; then
  gen "2^19 strassen x1 on the host" $(($(left) - 20)) --generate 524288 --scheme strassen --devices 0 \
    --max-memory 16384 --seed 19
fi
# Boolean at 2^18 streamed (2^19 would need 32 GiB more host memory than the
# machine has: the generator thins the operands with a third matrix).
if [ "$(left)" -gt 100 ]; then
  gen "2^18 Boolean, device limit 20 GiB" $(($(left) - 20)) --generate 262144 --boolean --devices 0 \
    --max-device-memory 20480 --max-memory 16384 --seed 18
fi

fg_say "summary"
cat "$SUM"
echo "(rate: effective bit operations per second, (2n^3 - n^2)/time of the product, host sums,"
echo " transfers and accumulation included; generation and checks not included)"
