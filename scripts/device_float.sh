#!/usr/bin/env bash
# The GPU float products (docs/float.md) on the device machine in one call of at
# most ~560 s: build, the differential checks (tests/gpu_float.c, shortened),
# the CLI against the reference, and the benchmark tables against cuBLAS
# SGEMM/DGEMM side by side (the issue's targets: f32 >= 1.2x SGEMM at n = 20480
# with a crossover at or below 4096, f64 >= 1.15x DGEMM at n = 16384), each
# time with its error and bound beside it.  The tables are printed last; the
# full log is kept in $OUT/device_float.log.
#
#   scripts/device_float.sh [table|full]      (default table)
#
# table: f32 at n = 4096, 8192, 16384, 20480 and f64 at 8192, 16384, each with
#        the per-product schedule (@plain, what was measured before), the fused
#        one (the default), fused with the last level's GEMMs on 4 streams (@s4),
#        and the corpus schemes with the fewest products per level (244-26:
#        26/32 = 0.81 of the GEMM's multiplications a level, 334-29: 0.81,
#        233-15: 0.83; Strassen 0.875).
# full:  also compute-sanitizer on gpu_float (small sizes), the whole gpu_float,
#        and TF32 rows (longer than one call: split it, or raise the limits).
#
# The device lacks the SQLite and xxHash headers: carry the git-ignored deps/
# folder (apt-get download libsqlite3-dev libxxhash-dev); scripts/device_env.sh
# unpacks them and gives the configure arguments (docs/device.md).  OpenBLAS is
# not there either: the build has -DFLIPGRAPH_BLAS=OFF (the CPU float base case
# is then a plain loop; the GPU path uses cuBLAS).  Results go to $OUT or
# out/device_float.
set -uo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-table}
case "$MODE" in table | full) ;; *)
  echo "usage: scripts/device_float.sh [table|full]" >&2
  exit 2
  ;;
esac
DEST=${OUT:-out/device_float}
mkdir -p "$DEST"
LOG=$DEST/device_float.log
: >"$LOG"
T0=$(date +%s)
. scripts/device_env.sh # fg_say, fg_step, the configure arguments

nvidia-smi -L 2>&1 | tee -a "$LOG"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv 2>&1 | tee -a "$LOG"
nvcc --version | tail -1 | tee -a "$LOG"
git log -1 --format='commit %h %s' 2>/dev/null | tee -a "$LOG"

fg_device_deps
B=build-device
fg_step "configure" 120 cmake -S . -B $B "${FG_DEVICE_CMAKE[@]}" || { tail -30 "$LOG"; exit 3; }
fg_step "build" 400 cmake --build $B -j"$(nproc)" --target flipgraph gpu_float || {
  grep -E "error|Error" "$LOG" | head -30
  exit 3
}
export FLIPGRAPH_CORPUS=$PWD/data/corpus
F=$B/flipgraph
KM=data/corpus/kauers-moosbauer

# The differential checks: every chain fused, fused on streams and per product
# against the long double reference (odd and even shapes) and cuBLAS alone.
if [ "$MODE" = full ]; then
  fg_step "gpu_float (differential checks, all sizes)" 400 $B/gpu_float
else
  fg_step "gpu_float (differential checks, one large shape)" 150 env FLIPGRAPH_GPU_FLOAT_QUICK=1 $B/gpu_float
fi
grep -E "^gpu_float|FAIL|passed|skipped|SGEMM|fused tables" "$LOG" | tail -25

T=$(mktemp -d)
fg_say "flipgraph multiply --type --backend gpu against matrix mul --naive"
for ty in f32 f64; do
  tol=1e-10
  [ $ty = f32 ] && tol=2e-3
  $F matrix random --type $ty --rows 1001 --cols 777 --seed 1 -o $T/a.npy >>"$LOG" 2>&1
  $F matrix random --type $ty --rows 777 --cols 1203 --seed 2 --order f -o $T/b.npy >>"$LOG" 2>&1
  $F matrix mul --naive $T/a.npy $T/b.npy -o $T/n.npy >>"$LOG" 2>&1
  for spec in "" "--scheme strassen --sums plain" "--scheme strassen" "--scheme strassen --levels 3 --streams 4" \
    "--scheme $KM/244-26-mod0.exp,strassen" "--scheme $KM/334-29-mod0.exp --streams 3"; do
    # The corpus schemes' larger coefficients: a larger error (f32: 1.2e-3 on
    # the CPU for 244-26,strassen here; its first-order bound is about 0.1).
    t=$tol
    [ $ty = f32 ] && [[ "$spec" == *mod0* ]] && t=1e-2
    # shellcheck disable=SC2086
    if $F multiply --type $ty $spec --a $T/a.npy --b $T/b.npy -o $T/g.npy --backend gpu -v >>"$LOG" 2>&1 &&
      $F matrix cmp $T/g.npy $T/n.npy --tol $t >>"$LOG" 2>&1; then
      echo "   [$ty $spec] gpu = reference within $t" | tee -a "$LOG"
    else
      echo "   [$ty $spec] gpu != reference: MISMATCH or failure" | tee -a "$LOG"
    fi
  done
done
rm -rf "$T"

if [ "$MODE" = full ]; then
  fg_step "compute-sanitizer memcheck (gpu_float, small sizes)" 400 env FLIPGRAPH_SANITIZED=1 \
    compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_float
  grep -E "ERROR SUMMARY|passed" "$LOG" | tail -3
fi

# The tables.  The chains per size: one level where a level's blocks are small
# (4096: blocks of 2048), two and three where they stay large.
S2=strassen,strassen
S3=strassen,strassen,strassen
C244=$KM/244-26-mod0.exp
C334=$KM/334-29-mod0.exp
C233=$KM/233-15-mod0.exp
bench() { # bench TYPE SIZE TIMEOUT CHAIN...
  local ty=$1 n=$2 to=$3
  shift 3
  local args=()
  for c in "$@"; do args+=(--chain "$c"); done
  fg_step "bench $ty n=$n" "$to" $F bench multiply --type "$ty" --backend gpu --sizes "$n" --reps 3 --samples 32 "${args[@]}"
}
bench f32 4096 60 strassen@plain strassen strassen@s4 "$C244" "$C244@s4" "$C334@s4" "$C233@s4" "$S2@s4"
# FLOAT_SHORT=1: the target sizes only (f32 4096 and 20480, f64 16384), for a
# call that must leave device time to others
short=${FLOAT_SHORT:-}
[ -n "$short" ] || bench f32 8192 60 strassen@plain strassen strassen@s4 "$S2@plain" "$S2" "$S2@s4" "$C244@s4" "$C244,strassen@s4"
[ -n "$short" ] || bench f32 16384 90 strassen "$S2@plain" "$S2" "$S2@s4" "$S3@s4" "$C244@s4" "$C244,strassen@s4" "$C334,strassen@s4"
bench f32 20480 120 strassen@plain strassen "$S2@plain" "$S2" "$S2@s4" "$S3@s4" "$C244,strassen@s4" \
  "$C334,strassen@s4" "$C233,strassen@s4"
[ -n "$short" ] || bench f64 8192 60 strassen@plain strassen strassen@s4 "$S2@s4" "$C244@s4" "$C334@s4"
bench f64 16384 100 strassen@plain strassen strassen@s4 "$S2@plain" "$S2" "$S2@s4" "$C244@s4" "$C244,strassen@s4"
if [ "$MODE" = full ]; then
  fg_step "bench f32 with TF32 (for reference)" 200 $F bench multiply --type f32 --tf32 --backend gpu \
    --sizes 8192,20480 --reps 3 --chain strassen --chain "$S2@s4"
fi

fg_say "summary"
grep -E "^gpu_float|[0-9]+ passed|ERROR SUMMARY|gpu = reference|MISMATCH|   rc=[1-9]" "$LOG" | tail -24
grep -E "^flipgraph bench|^ +[0-9]+  |^ +n  method" "$LOG" | grep -v "^ *n  method" | tail -80
