#!/usr/bin/env bash
# The GPU walk (docs/gpu-walk.md) on the GPU machine in one go: build, checks, benchmarks,
# a short table last; the full log in $OUT/device_walk.log (OUT defaults to out/).
#
# Usage: scripts/device_walk.sh [PHASE...]
#   check    build, cuobjdump (MATCH.ANY in the walk kernels), tests/gpu_walk
#   flips    bench: flips/s on <4,4,4> and <5,5,5>, GPU and CPU side by side
#   ttr      bench: <4,4,4> from the standard algorithm to rank 47 (TTR_SEEDS seeds, TTR_CAP s each)
#   best     bench: best rank after BEST_SECONDS on BEST_FORMATS
#   bsweep   best rank after BEST_SECONDS on BEST_FORMATS once per setting: SWEEP="args;args;..."
#   ncu      one launch of the <4,4,4> kernel under Nsight Compute (the profile of the gap);
#            NCU_MODE=timed (default: walkers stop by their clock, as a search runs) or steps
#   knobs    flips/s per narrow-kernel setting: KNOBS="blocks:flips ..." (FLIPGRAPH_WALK_BLOCKS,
#            FLIPGRAPH_WALK_FLIPS; default "5:4 6:4 7:4 8:4 7:1 8:1"), KNOB_SECONDS each
#   sweep    <4,4,4> to rank 47 once per setting: SWEEP="args;args;..." (bench_gpu_walk options,
#            e.g. "--plus-max 0 --idle-plus 16;--plus-max 4 --idle-plus 32"), TTR_SEEDS seeds of
#            TTR_CAP s each from TTR_FIRST (default 1); one table row per setting
#   (default: check flips ttr best)
# On a machine without a GPU only the build and the (skipping) test run.
# --emulate: build tests/gpu_walk against the CPU emulator of the kernel
# (cuda/walk_emu.cpp) and run it quickly here; no GPU needed.
#
# The GPU machine has no SQLite/xxHash headers: the Debian -dev packages in
# deps/ (git-ignored; carry them) are unpacked to /tmp/fgdeps (docs/device.md).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT"
LOG=$OUT/device_walk.log
BUILD=${BUILD_DIR:-$ROOT/build-device-walk}
JOBS=$(nproc)
TTR_SEEDS=${TTR_SEEDS:-5}
TTR_CAP=${TTR_CAP:-60}
BEST_SECONDS=${BEST_SECONDS:-120}
BEST_FORMATS=${BEST_FORMATS:-5x5x5,4x4x5,4x5x5}
FLIPS_SECONDS=${FLIPS_SECONDS:-10}
BENCH_ARGS=${BENCH_ARGS:-}
SWEEP=${SWEEP:-}
TTR_FIRST=${TTR_FIRST:-1}
# PREBUILT=DIR: take gpu_walk and bench_gpu_walk from DIR (built elsewhere for sm_90a and
# carried) when they run here; otherwise build (saves the build's device time)
PREBUILT=${PREBUILT:-}
exec > >(tee -a "$LOG") 2>&1
SUMMARY=$OUT/device_walk.summary
: > "$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY" >/dev/null; echo "$*"; }

export FLIPGRAPH_CORPUS=${FLIPGRAPH_CORPUS:-$ROOT/data/corpus}

if [ "${1:-}" = "--emulate" ]; then
  B=${BUILD_DIR:-$ROOT/build-gpuwalk-emu}
  cmake -S . -B "$B" -DFLIPGRAPH_CUDA=OFF -DFLIPGRAPH_BLAS=OFF -DFLIPGRAPH_ZIP=OFF >/dev/null && cmake --build "$B" -j "$JOBS" --target fg_search >/dev/null || exit 3
  g++ -std=c++17 -O2 -g -Wall -Wno-maybe-uninitialized -I. -Icuda -c cuda/walk_emu.cpp -o "$B/walk_emu.o" || exit 3
  gcc -std=c11 -O2 -g -Wall -Wextra -D_GNU_SOURCE -c tests/gpu_walk.c -o "$B/gpu_walk.o" || exit 3
  g++ -o "$B/gpu_walk_emu" "$B/gpu_walk.o" "$B/walk_emu.o" "$B/libfg_search.a" "$B/libfg_db.a" \
      "$B/libfg_verify.a" "$B/libfg_schemes.a" -lsqlite3 -lpthread -lm || exit 3
  FLIPGRAPH_GPU_QUICK=1 "$B/gpu_walk_emu"
  exit $?
fi

PHASES=${*:-check flips ttr best}
echo "== device_walk: $(date -u +%FT%TZ), phases: $PHASES"
echo "== host $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
git rev-parse --short=12 HEAD 2>/dev/null || true

# ---- build ----------------------------------------------------------------
CMAKE_ARGS=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90a -DFLIPGRAPH_BLAS=OFF -DFLIPGRAPH_ZIP=OFF)
if [ ! -f /usr/include/sqlite3.h ] || [ ! -f /usr/include/xxhash.h ]; then
  D=/tmp/fgdeps
  mkdir -p $D
  for p in deps/libsqlite3-dev_*.deb deps/libxxhash-dev_*.deb; do
    [ -f "$p" ] && dpkg -x "$p" $D
  done
  SQL=$(ls /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 /lib/x86_64-linux-gnu/libsqlite3.so.0 2>/dev/null | head -1)
  CMAKE_ARGS+=(-DSQLite3_INCLUDE_DIR=$D/usr/include -DSQLite3_LIBRARY=$SQL -DXXHASH_INCLUDE_DIR=$D/usr/include)
fi
t0=$(date +%s)
if [ -n "$PREBUILT" ] && [ -x "$PREBUILT/gpu_walk" ] && [ -x "$PREBUILT/bench_gpu_walk" ] &&
   "$PREBUILT/bench_gpu_walk" --help >/dev/null 2>&1; then
  BUILD=$PREBUILT
  note "| build | prebuilt binaries from $PREBUILT |"
elif ! cmake -S . -B "$BUILD" "${CMAKE_ARGS[@]}" > "$OUT/cmake.log" 2>&1; then
  tail -30 "$OUT/cmake.log"; note "| build | FAILED (cmake) |"; cat "$SUMMARY"; exit 3
elif ! cmake --build "$BUILD" -j "$JOBS" --target gpu_walk bench_gpu_walk > "$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -30; note "| build | FAILED |"; cat "$SUMMARY"; exit 3
else
  note "| build | ok, $(( $(date +%s) - t0 )) s |"
fi

for ph in $PHASES; do
  case $ph in
  check)
    if command -v cuobjdump >/dev/null; then
      obj=$BUILD/CMakeFiles/fg_cuda.dir/cuda/walk_kernel.cu.o
      [ -f "$obj" ] || obj=$BUILD/gpu_walk # PREBUILT: the object files stayed behind
      n=$(cuobjdump --dump-sass "$obj" 2>/dev/null | grep -c "MATCH.ANY" || true)
      note "| SASS | MATCH.ANY instructions in the walk kernels: $n |"
    fi
    t0=$(date +%s)
    timeout 300 "$BUILD/gpu_walk" > "$OUT/gpu_walk.log" 2>&1
    rc=$?
    cat "$OUT/gpu_walk.log"
    note "| tests/gpu_walk | $(tail -1 "$OUT/gpu_walk.log"), exit $rc, $(( $(date +%s) - t0 )) s |"
    grep "^FAIL" "$OUT/gpu_walk.log" | head -5 | sed 's/^/|   /' >> "$SUMMARY"
    ;;
  flips|ttr|best)
    args=(--only "$ph" --flips-seconds "$FLIPS_SECONDS" --ttr-seeds "$TTR_SEEDS" --ttr-cap "$TTR_CAP"
          --best-seconds "$BEST_SECONDS" --best-formats "$BEST_FORMATS")
    lim=$(( 120 + TTR_SEEDS * TTR_CAP + 4 * BEST_SECONDS ))
    echo "== bench $ph: bench_gpu_walk ${args[*]} $BENCH_ARGS"
    timeout $lim "$BUILD/bench_gpu_walk" "${args[@]}" $BENCH_ARGS > "$OUT/bench_$ph.log" 2>&1
    rc=$?
    cat "$OUT/bench_$ph.log"
    grep "^| [A-Za-z]" "$OUT/bench_$ph.log" | grep -v "^| what" >> "$SUMMARY"
    [ $rc -eq 0 ] || note "| bench $ph | exit $rc |"
    ;;
  sweep)
    IFS=';' read -r -a sets <<< "$SWEEP"
    for a in "${sets[@]}"; do
      echo "== sweep: $a"
      timeout $(( 30 + TTR_SEEDS * (TTR_CAP + 5) )) "$BUILD/bench_gpu_walk" --only ttr --ttr-seeds "$TTR_SEEDS" \
        --ttr-first "$TTR_FIRST" --ttr-cap "$TTR_CAP" --ttr-progress 5 $a > "$OUT/sweep.log.tmp" 2>&1
      rc=$?
      cat "$OUT/sweep.log.tmp" >> "$OUT/sweep.log"
      grep -E "^ttr|rank 4[5-9] at|^  .*\[" "$OUT/sweep.log.tmp"
      res=$(grep "^| time to rank" "$OUT/sweep.log.tmp" | cut -d'|' -f4,5)
      note "| sweep \`${a:-defaults}\` |${res:- exit $rc} |"
    done
    ;;
  bsweep)
    # best rank after BEST_SECONDS on BEST_FORMATS once per setting: SWEEP="args;args;..."
    # (bench_gpu_walk options; "--gpu-defaults 1 --pool-min 64" keeps the other GPU defaults)
    IFS=';' read -r -a sets <<< "$SWEEP"
    for a in "${sets[@]}"; do
      echo "== bsweep: $a"
      timeout $(( 60 + 3 * BEST_SECONDS )) "$BUILD/bench_gpu_walk" --only best --best-formats "$BEST_FORMATS" \
        --best-seconds "$BEST_SECONDS" $a > "$OUT/bsweep.log.tmp" 2>&1
      rc=$?
      cat "$OUT/bsweep.log.tmp" >> "$OUT/bsweep.log"
      grep -E "^best|: rank [0-9]+ at" "$OUT/bsweep.log.tmp" | tail -6
      grep "^| best rank" "$OUT/bsweep.log.tmp" | sed "s/^| best rank/| bsweep \`${a:-defaults}\` best rank/" >> "$SUMMARY"
      [ $rc -eq 0 ] || note "| bsweep \`${a:-defaults}\` | exit $rc |"
    done
    ;;
  ncu)
    if command -v ncu >/dev/null; then
      # the narrow (32-bit) kernel walks <4,4,4>; the wide one after it finds nothing to do
      timeout 240 ncu --kernel-name regex:walk_narrow --launch-skip 1 --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
        --section SchedulerStats --section InstructionStats \
        "$BUILD/bench_gpu_walk" --only flips --flips-seconds 1 --cpu-seconds 0 --store regs \
        --flips-mode "${NCU_MODE:-timed}" \
        > "$OUT/ncu.log" 2>&1
      grep -E "walk_narrow|Executed Instructions|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Executed Ipc Active|Stall" "$OUT/ncu.log" | head -40
      grep -E "Registers Per|Executed Instructions  |Achieved Occupancy|Issue Slots Busy|Executed Ipc Active|Warp Cycles Per Issued|No Eligible" "$OUT/ncu.log" | head -8 | \
        sed 's/^ */| ncu | /; s/ \{2,\}/ | /g' >> "$SUMMARY"
    else
      note "| ncu | not found |"
    fi
    ;;
  knobs)
    for kv in ${KNOBS:-5:4 6:4 7:4 8:4 7:1 8:1}; do
      nb=${kv%%:*}; nf=${kv##*:}
      FLIPGRAPH_WALK_BLOCKS=$nb FLIPGRAPH_WALK_FLIPS=$nf timeout 120 "$BUILD/bench_gpu_walk" --only flips \
        --flips-seconds "${KNOB_SECONDS:-1.5}" --cpu-seconds 0 --store regs > "$OUT/knobs.log.tmp" 2>&1
      cat "$OUT/knobs.log.tmp" >> "$OUT/knobs.log"
      grep "^flips" "$OUT/knobs.log.tmp"
      grep "^| GPU flips" "$OUT/knobs.log.tmp" | sed "s/^| GPU flips\/s/| blocks $nb, flips\/step $nf/" >> "$SUMMARY"
    done
    ;;
  *) echo "unknown phase $ph" ;;
  esac
done

echo
echo "== summary ($(date -u +%FT%TZ); full log $LOG)"
cat "$SUMMARY"
