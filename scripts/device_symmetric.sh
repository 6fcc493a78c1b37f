#!/usr/bin/env bash
# The symmetric walk's CPU target measured on the GPU machine's 16 cores: K
# independent `flipgraph search --symmetry c3 --threads 2` runs side by side
# (each the 2-core run of docs/search.md, "Symmetric walks"), one seed each,
# every run capped at T.  Prints a row per seed: the time to the target (or
# the best rank at the cap) and the flips.  Carry deps/ (docs/device.md).
# Usage: OUT=out bash scripts/device_symmetric.sh [DIMS] [TARGET] [T] [K] [EXTRA...]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
DIMS=${1:-5x5x5}; TARGET=${2:-93}; T=${3:-540s}; K=${4:-8}
shift $(( $# < 4 ? $# : 4 ))
mkdir -p "$OUT"
DEPS=/tmp/fgdeps
mkdir -p $DEPS
for f in deps/libsqlite3-dev_*.deb deps/libxxhash-dev_*.deb; do [ -f "$f" ] && dpkg -x "$f" $DEPS; done
SQLITE_LIB=$(ls /lib/x86_64-linux-gnu/libsqlite3.so.0 /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 2>/dev/null | head -1)
B=build-sym
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DFLIPGRAPH_CUDA=OFF -DFLIPGRAPH_BLAS=OFF -DFLIPGRAPH_ZIP=OFF \
  -DSQLite3_INCLUDE_DIR=$DEPS/usr/include -DSQLite3_LIBRARY="$SQLITE_LIB" -DXXHASH_INCLUDE_DIR=$DEPS/usr/include \
  > "$OUT/build.log" 2>&1 && cmake --build $B -j"$(nproc)" --target flipgraph >> "$OUT/build.log" 2>&1 || {
  tail -20 "$OUT/build.log"; exit 2; }
F=$B/flipgraph
for s in $(seq 1 "$K"); do
  "$F" search --dims "$DIMS" --symmetry c3 --threads 2 --target-rank "$TARGET" --time "$T" --seed "$s" \
    --progress 30s --db "/tmp/sym_$s.db" "$@" > "$OUT/seed_$s.log" 2>&1 &
done
wait
echo "== $DIMS --symmetry c3 --threads 2 --target-rank $TARGET --time $T $*, $K runs side by side on" \
     "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores, $(date -u +%F)"
for s in $(seq 1 "$K"); do
  printf "seed %-3s %s\n" "$s" "$(grep "^best rank" "$OUT/seed_$s.log" | tail -1)"
done
