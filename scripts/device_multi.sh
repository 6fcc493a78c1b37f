#!/usr/bin/env bash
# Several GPUs (docs/gpu-walk.md, "Several GPUs") on the GPU machine in one
# call: build, checks, then the search on --devices 0 against --devices 0,1
# (the 2-GPU machine); a short table last, the full log in $OUT/device_multi.log
# (OUT defaults to out/).
#
# Usage: scripts/device_multi.sh [PHASE...]
#   check   tests/gpu_walk (the multi-set checks: GPU 0 twice, 0,1 where two are)
#           and `flipgraph search --backend gpu --devices LIST` storing into a database
#   flips   whole-search flips/s on <4,4,4> and <5,5,5> (FLIPS_SECONDS each), 1 vs all GPUs
#   ttr     <4,4,4> from the standard algorithm to TTR_RANK (49), TTR_SEEDS seeds of at
#           most TTR_CAP s, 1 vs all GPUs
#   best    best rank of <5,5,5> after BEST_SECONDS, BEST_SEEDS seeds, 1 vs all GPUs
#   (default: check flips ttr best)
# DEVICES: the list compared with GPU 0 alone (default: every visible GPU, "0,1" on
# the 2-GPU machine; "0,0" on a one-GPU machine: two walker sets on one GPU).
# Carry deps/ (the SQLite/xxHash -dev packages; docs/device.md); the corpus the
# checks read is data/corpus, in the tree.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT"
LOG=$OUT/device_multi.log
: > "$LOG"
exec > >(tee -a "$LOG") 2>&1
BUILD=${BUILD_DIR:-$ROOT/build-device-multi}
FLIPS_SECONDS=${FLIPS_SECONDS:-10}
TTR_RANK=${TTR_RANK:-49}
TTR_SEEDS=${TTR_SEEDS:-3}
TTR_CAP=${TTR_CAP:-30}
BEST_SECONDS=${BEST_SECONDS:-45}
BEST_SEEDS=${BEST_SEEDS:-2}
PHASES=${*:-check flips ttr best}
SUMMARY=$OUT/device_multi.summary
: > "$SUMMARY"
note() { echo "$*" >> "$SUMMARY"; echo "$*"; }

NGPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
if [ -z "${DEVICES:-}" ]; then
  if [ "$NGPU" -ge 2 ]; then DEVICES=$(seq -s, 0 $((NGPU - 1))); else DEVICES=0,0; fi
fi
echo "== device_multi: $(date -u +%FT%TZ), phases: $PHASES, GPU 0 vs GPUs $DEVICES"
echo "== host $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null
git rev-parse --short=12 HEAD 2>/dev/null || true
export FLIPGRAPH_CORPUS=$ROOT/data/corpus

# ---- build ------------------------------------------------------------------
CMAKE_ARGS=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90a -DFLIPGRAPH_BLAS=OFF -DFLIPGRAPH_ZIP=OFF)
if [ ! -f /usr/include/sqlite3.h ] || [ ! -f /usr/include/xxhash.h ]; then
  D=/tmp/fgdeps
  mkdir -p $D
  for p in deps/libsqlite3-dev_*.deb deps/libxxhash-dev_*.deb; do [ -f "$p" ] && dpkg -x "$p" $D; done
  SQL=$(ls /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 /lib/x86_64-linux-gnu/libsqlite3.so.0 2>/dev/null | head -1)
  CMAKE_ARGS+=(-DSQLite3_INCLUDE_DIR=$D/usr/include -DSQLite3_LIBRARY=$SQL -DXXHASH_INCLUDE_DIR=$D/usr/include)
fi
t0=$(date +%s)
if ! cmake -S . -B "$BUILD" "${CMAKE_ARGS[@]}" > "$OUT/cmake.log" 2>&1; then
  tail -30 "$OUT/cmake.log"; note "| build | FAILED (cmake) |"; cat "$SUMMARY"; exit 3
elif ! cmake --build "$BUILD" -j "$(nproc)" --target flipgraph gpu_walk bench_gpu_walk > "$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -30; note "| build | FAILED |"; cat "$SUMMARY"; exit 3
fi
note "| build | ok, $(( $(date +%s) - t0 )) s |"
B=$BUILD/bench_gpu_walk

# one bench phase for GPU 0 and for $DEVICES; its table rows go to the summary
bench() { # phase args...
  local ph=$1; shift
  for d in 0 "$DEVICES"; do
    "$B" --only "$ph" --devices "$d" "$@" > "$OUT/bench.tmp" 2>&1
    local rc=$?
    cat "$OUT/bench.tmp"
    grep '^| ' "$OUT/bench.tmp" | grep -v -e '^| what' -e '^| ---' >> "$SUMMARY"
    [ $rc -eq 0 ] || note "| bench $ph --devices $d | exit $rc |"
  done
}

for ph in $PHASES; do
  t0=$(date +%s)
  case $ph in
  check)
    timeout 300 "$BUILD/gpu_walk" > "$OUT/gpu_walk.log" 2>&1
    rc=$?
    cat "$OUT/gpu_walk.log"
    note "| tests/gpu_walk | $(tail -1 "$OUT/gpu_walk.log"), exit $rc, $(( $(date +%s) - t0 )) s |"
    grep -e "^ok   multi" -e "^FAIL" "$OUT/gpu_walk.log" | head -8 | cut -c1-240 | sed 's/^/|   /' >> "$SUMMARY"
    rm -f /tmp/fgmulti.db
    F=$BUILD/flipgraph
    if $F search --dims 4x4x4 --backend gpu --devices "$DEVICES" --time 8s --seed 7 --db /tmp/fgmulti.db &&
       $F db check --db /tmp/fgmulti.db; then
      note "| search --backend gpu --devices $DEVICES <4,4,4> 8 s, stored, db check | ok: $($F db best --dims 4x4x4 --db /tmp/fgmulti.db 2>&1 | head -1 | cut -c1-80) |"
    else
      note "| search --backend gpu --devices $DEVICES, stored, db check | FAILED |"
    fi
    ;;
  flips) bench sflips --flips-seconds "$FLIPS_SECONDS" ;;
  ttr) bench ttr --ttr-rank "$TTR_RANK" --ttr-seeds "$TTR_SEEDS" --ttr-cap "$TTR_CAP" ;;
  best) bench best --best-formats 5x5x5 --best-seconds "$BEST_SECONDS" --best-seeds "$BEST_SEEDS" ;;
  *) echo "unknown phase $ph"; exit 2 ;;
  esac
  echo "== phase $ph: $(( $(date +%s) - t0 )) s"
done

echo
echo "== device_multi on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) x $NGPU, $(date -u +%F), GPU 0 vs GPUs $DEVICES"
echo "| what | format | value | note |"
echo "| --- | --- | --- | --- |"
cat "$SUMMARY"
grep -q -e FAILED -e "exit [1-9]" "$SUMMARY" && exit 1
exit 0
