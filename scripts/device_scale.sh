#!/usr/bin/env bash
# The host layer on one GPU (docs/host-layer.md), in one device call of at most
# 10 minutes: build, the GPU differential tests (shortened), the host layer on the
# GPU against the CPU executor, then the issue-21 measurements:
#   1. n = 2^17: in core against streaming under --max-device-memory (target: the
#      streamed rate at least 90% of the in-core rate), cubic and Strassen x1, and
#      cubic with two executors on the GPU (--devices 0,0: copies under products);
#   2. the largest `bench multiply --generate` size that fits the machine's host
#      memory and the time left (2^18, then 2^19: 32 GiB per operand).
#
#   scripts/device_scale.sh            (carry: deps)
#
# The device lacks the SQLite and xxHash headers: carry the git-ignored deps/
# folder (apt-get download libsqlite3-dev libxxhash-dev), unpacked under /tmp/deps
# (docs/device.md).  The build has no CPU BLAS (-DFLIPGRAPH_BLAS=OFF: nothing to
# install there).  Results go to $OUT (the device tool's folder) or out/device_scale;
# the summary table is printed last.
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
say() { echo "== $* ($(el) s)" | tee -a "$LOG"; }
step() { # step NAME TIMEOUT CMD...: runs, logs everything, keeps the status
  local name=$1 to=$2
  shift 2
  say "$name"
  timeout "$to" "$@" >>"$LOG" 2>&1
  local rc=$?
  echo "   rc=$rc" | tee -a "$LOG"
  return $rc
}

nvidia-smi -L 2>&1 | tee -a "$LOG"
nvidia-smi --query-gpu=name,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv 2>&1 | tee -a "$LOG"
free -g 2>&1 | tee -a "$LOG"
nproc | tee -a "$LOG"
git log --oneline -1 2>/dev/null | tee -a "$LOG"

DEPS=/tmp/deps
mkdir -p $DEPS
for f in deps/libsqlite3-dev_*.deb deps/libxxhash-dev_*.deb; do
  [ -f "$f" ] && dpkg -x "$f" $DEPS
done
SQLITE_LIB=$(ls /usr/lib/x86_64-linux-gnu/libsqlite3.so* /lib/x86_64-linux-gnu/libsqlite3.so* 2>/dev/null | head -1)
B=build-device
step "configure" 120 cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DFLIPGRAPH_BLAS=OFF -DFLIPGRAPH_ZIP=OFF \
  -DSQLite3_INCLUDE_DIR=$DEPS/usr/include -DSQLite3_LIBRARY="$SQLITE_LIB" \
  -DXXHASH_INCLUDE_DIR=$DEPS/usr/include || { tail -30 "$LOG"; exit 3; }
step "build" 300 cmake --build $B -j"$(nproc)" --target flipgraph gpu_runtime || {
  grep -E "error|Error" "$LOG" | head -30
  exit 3
}
export FLIPGRAPH_CORPUS=$PWD/data/corpus
F=$B/flipgraph

# The executor's entry point changed (cuda_rt_multiply_limit, cuda_rt_need): the
# differential tests, scaled down, must still pass.
if [ "$(left)" -gt 420 ]; then
  FLIPGRAPH_SANITIZED=1 step "gpu_runtime (FLIPGRAPH_SANITIZED=1 sizes)" 90 $B/gpu_runtime
  grep -E "passed|FAIL" "$LOG" | tail -3 | tee -a "$SUM"
fi

say "the host layer on the GPU against the CPU executor"
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

# bench multiply --generate: one line per run in the summary.
gen() { # gen LABEL TIMEOUT ARGS...
  local label=$1 to=$2
  shift 2
  say "bench multiply --generate $label: $*"
  timeout "$to" $F bench multiply -q "$@" >"$DEST/run.txt" 2>&1
  local rc=$?
  cat "$DEST/run.txt" >>"$LOG"
  local split rate t chk
  split=$(grep -o 'split: .*' "$DEST/run.txt" | head -1)
  t=$(awk '/^product/ {print $2}' "$DEST/run.txt")
  rate=$(awk '/^product/ {print $4}' "$DEST/run.txt")
  chk=$(grep -E '^Freivalds|^samples' "$DEST/run.txt" | tr '\n' ' ')
  printf '%-34s rc=%-3s %9s s  %12s bop/s  %s | %s\n' "$label" "$rc" "${t:--}" "${rate:--}" "$split" "$chk" |
    tee -a "$SUM"
  return $rc
}

N17=131072
if [ "$(left)" -gt 200 ]; then
  gen "2^17 cubic, in core" 150 --generate $N17 --devices 0 --seed 17
  gen "2^17 cubic, device limit 4 GiB" 150 --generate $N17 --devices 0 --max-device-memory 4096 --seed 17
  gen "2^17 cubic, 4 GiB, --devices 0,0" 150 --generate $N17 --devices 0,0 --max-device-memory 4096 --seed 17
  FLIPGRAPH_PINNED=0 gen "2^17 cubic, 4 GiB, pageable buffers" 150 --generate $N17 --devices 0 \
    --max-device-memory 4096 --seed 17
fi
if [ "$(left)" -gt 200 ]; then
  gen "2^17 strassen x1, in core" 150 --generate $N17 --scheme strassen --devices 0 --seed 17
  gen "2^17 strassen x1, device limit 4 GiB" 150 --generate $N17 --scheme strassen --devices 0 \
    --max-device-memory 4096 --seed 17
fi
# The largest size: 2^18 (8 GiB an operand), then 2^19 (32 GiB: 96 GiB for A, B, C)
# where the time left allows; host buffers bounded to 16 GiB beside the operands.
if [ "$(left)" -gt 150 ]; then
  gen "2^18 cubic, host layer" $(($(left) - 30)) --generate 262144 --devices 0 --max-memory 16384 --seed 18
fi
if [ "$(left)" -gt 240 ]; then
  gen "2^19 cubic, host layer" $(($(left) - 20)) --generate 524288 --devices 0 --max-memory 16384 --seed 19
fi

say "summary"
cat "$SUM"
echo "(rate: effective bit operations per second, (2n^3 - n^2)/time of the product, host sums,"
echo " transfers and accumulation included; generation and checks not included)"
