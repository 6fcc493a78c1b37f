#!/usr/bin/env bash
# The symmetric walk on the GPU (docs/gpu-walk.md, "Symmetric walks"), one call
# on the GPU machine: build, the checks of tests/gpu_sym.c (the GPU walker by
# walker against the core run on the CPU), the flips per second for a few
# walker counts, then K seeds of `flipgraph search --backend gpu --symmetry G`
# to the target, each capped at T.  Carry deps/ (docs/device.md).
# Usage: OUT=out bash scripts/device_sym_gpu.sh [DIMS] [TARGET] [T] [K] [G] [EXTRA...]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
DIMS=${1:-5x5x5}; TARGET=${2:-93}; T=${3:-60s}; K=${4:-5}; G=${5:-c3}
shift $(( $# < 5 ? $# : 5 ))
mkdir -p "$OUT"
DEPS=/tmp/fgdeps
mkdir -p $DEPS
for f in deps/libsqlite3-dev_*.deb deps/libxxhash-dev_*.deb; do [ -f "$f" ] && dpkg -x "$f" $DEPS; done
SQLITE_LIB=$(ls /lib/x86_64-linux-gnu/libsqlite3.so.0 /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 2>/dev/null | head -1)
B=build-device
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DFLIPGRAPH_CUDA_ARCH=90a -DFLIPGRAPH_BLAS=OFF -DFLIPGRAPH_ZIP=OFF \
  -DSQLite3_INCLUDE_DIR=$DEPS/usr/include -DSQLite3_LIBRARY="$SQLITE_LIB" -DXXHASH_INCLUDE_DIR=$DEPS/usr/include \
  > "$OUT/build.log" 2>&1 && cmake --build $B -j"$(nproc)" --target flipgraph gpu_sym >> "$OUT/build.log" 2>&1 || {
  tail -30 "$OUT/build.log"; exit 2; }
F=$B/flipgraph
echo "== tests/gpu_sym on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%F)"
FLIPGRAPH_SOURCE=$PWD $B/gpu_sym 2>&1 | tail -6
echo "== flips/s, $DIMS --symmetry $G, 10 s each: the shared-memory kernel (default), the global-memory one"
printf "shared memory, default walkers: %s\n" \
  "$($F search --backend gpu --dims "$DIMS" --symmetry "$G" --time 10s --seed 1 --db /tmp/symg_s.db -q "$@" 2>&1 | tail -1)"
printf "global memory, 8192 walkers:    %s\n" \
  "$(FLIPGRAPH_SYM_GLOBAL=1 $F search --backend gpu --dims "$DIMS" --symmetry "$G" --warps 256 --time 10s --seed 1 --db /tmp/symg_g.db -q "$@" 2>&1 | tail -1)"
echo "== $DIMS --backend gpu --symmetry $G --target-rank $TARGET --time $T $*"
for s in $(seq 1 "$K"); do
  printf "seed %-3s %s\n" "$s" \
    "$($F search --backend gpu --dims "$DIMS" --symmetry "$G" --target-rank "$TARGET" --time "$T" --seed "$s" \
       --db "/tmp/symg_$s.db" -q "$@" 2> "$OUT/seed_$s.log" | tail -1)"
done
