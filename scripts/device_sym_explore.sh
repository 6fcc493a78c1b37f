#!/usr/bin/env bash
# Exploratory symmetric GPU runs beside the GPU checks, in one call: build,
# scripts/device_check.sh's checks (GPU walk and runtime), tests/gpu_sym, then
# each "DIMS T ARGS..." line of $RUNS as `flipgraph search --backend gpu --dims DIMS
# --time T ARGS`, the last line of each printed.  Carry deps/ (docs/device.md).
# Usage: OUT=out RUNS=$'6x6x6 300s --symmetry c3xc2 --cubes 110000,001100,000011' bash scripts/device_sym_explore.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
bash scripts/device_check.sh | tail -14
B=build-device
cmake --build $B -j"$(nproc)" --target gpu_sym > "$OUT/build_sym.log" 2>&1 || { tail -20 "$OUT/build_sym.log"; exit 2; }
echo "== tests/gpu_sym"
FLIPGRAPH_SOURCE=$PWD $B/gpu_sym 2>&1 | tail -6
i=0
while read -r dims t args; do
  [ -z "$dims" ] && continue
  i=$((i + 1))
  echo "== search --backend gpu --dims $dims --time $t $args"
  # shellcheck disable=SC2086
  $B/flipgraph search --backend gpu --dims "$dims" --time "$t" $args --progress 30s --db "/tmp/explore_$i.db" \
    > "$OUT/explore_$i.log" 2>&1
  grep -E "^ *[0-9]+:[0-9]+:[0-9]+ " "$OUT/explore_$i.log" | tail -3
  tail -1 "$OUT/explore_$i.log"
done <<< "${RUNS:-}"
