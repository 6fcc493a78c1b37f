#!/usr/bin/env bash
# Before and after on the GPU machine, side by side in one call: the working tree
# against a base tree, both built here, bench_gpu_walk run on each in turn.
#
# Usage: scripts/device_compare.sh PHASES [BENCH ARGS...]
#   PHASES: bench_gpu_walk's --only list (flips, ttr, best) or "check" (tests/gpu_walk of
#   the working tree first).  The base: deps/base-files.tar, made on the CPU box with
#   `git archive BASE_COMMIT DIR... > deps/base-files.tar` (the folders that differ); it is
#   unpacked over a copy of the working tree, and files that the working tree adds in
#   those folders are removed from the copy first (BASE_REMOVE="path ...").
#   Carry deps/ (the -dev packages and the tar).  Logs in $OUT/compare_*.log.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT"
PHASES=${1:?usage: scripts/device_compare.sh PHASES [BENCH ARGS...]}
shift
BASE=/tmp/fg-compare-base
D=/tmp/fgdeps
mkdir -p $D
for p in deps/libsqlite3-dev_*.deb deps/libxxhash-dev_*.deb; do [ -f "$p" ] && dpkg -x "$p" $D; done
SQL=$(ls /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 /lib/x86_64-linux-gnu/libsqlite3.so.0 2>/dev/null | head -1)
ARGS=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90a -DFLIPGRAPH_BLAS=OFF -DFLIPGRAPH_ZIP=OFF -DSQLite3_INCLUDE_DIR=$D/usr/include
      -DSQLite3_LIBRARY=$SQL -DXXHASH_INCLUDE_DIR=$D/usr/include)
rm -rf "$BASE" && mkdir -p "$BASE"
tar --exclude='./build*' --exclude='./out' -cf - . | tar -xf - -C "$BASE"
for f in ${BASE_REMOVE:-}; do rm -f "$BASE/$f"; done
tar -mxf deps/base-files.tar -C "$BASE" || exit 3
build() { # dir
  cmake -S "$1" -B "$1/build-compare" "${ARGS[@]}" > "$OUT/compare_cmake.log" 2>&1 &&
    cmake --build "$1/build-compare" -j "$(nproc)" --target gpu_walk bench_gpu_walk >> "$OUT/compare_build.log" 2>&1
}
build "$ROOT" & b1=$!
build "$BASE" & b2=$!
wait $b1 || { echo "build of the working tree FAILED"; tail -20 "$OUT/compare_build.log"; exit 3; }
wait $b2 || { echo "build of the base FAILED"; tail -20 "$OUT/compare_build.log"; exit 3; }
echo "== compare on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%FT%TZ)"
export FLIPGRAPH_CORPUS=$ROOT/data/corpus
if [[ ",$PHASES," == *",check,"* ]]; then
  timeout 300 "$ROOT/build-compare/gpu_walk" > "$OUT/compare_gpu_walk.log" 2>&1
  echo "tests/gpu_walk (working tree): $(tail -1 "$OUT/compare_gpu_walk.log"), exit $?"
  grep "^FAIL" "$OUT/compare_gpu_walk.log" | head -5
  PHASES=$(echo ",$PHASES," | sed 's/,check,/,/; s/^,//; s/,$//')
fi
[ -n "$PHASES" ] || exit 0
for who in base tree base tree; do
  dir=$ROOT; [ $who = base ] && dir=$BASE
  echo "== $who: bench_gpu_walk --only $PHASES $*"
  "$dir/build-compare/bench_gpu_walk" --only "$PHASES" "$@" > "$OUT/compare_$who.log" 2>&1
  grep -E "^\|" "$OUT/compare_$who.log"
  [ "${ONCE:-0}" = 1 ] && [ $who = tree ] && break
done
