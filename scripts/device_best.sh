#!/usr/bin/env bash
# Best rank after a fixed time for several formats (the GPU walk's measure:
# best rank after 2 and 10 minutes for <5,5,5>, <4,4,5> and <4,5,5>; docs/gpu-walk.md,
# bench/RESULTS.md), one format per visible GPU
# at once: on a 4-GPU machine the three 10-minute runs fit one call.  With
# fewer GPUs than formats, each GPU runs its share one after the other.
#
# Each run is `flipgraph search --backend gpu --dims D --time T --seed S -v`
# pinned to its GPU with CUDA_VISIBLE_DEVICES; the table gives the best rank at
# 2 minutes (the last improvement line at or before 120 s) and at the end.
#
#   BEST_SECONDS  run length (default 580: the device's command limit is 600 s)
#   BEST_FORMATS  comma-separated (default 5x5x5,4x4x5,4x5x5)
#   SEED          (default 1)
#   BACKEND       gpu (default); cpu runs the same table anywhere (to try the script)
#   F             a built flipgraph (default build-device/flipgraph; when it is
#                 missing, scripts/device_check.sh builds and checks it first).  A
#                 flipgraph built elsewhere and carried finds the shared libraries
#                 the GPU machine lacks (libm4ri) in its own folder.
# Logs: $OUT/best_<format>.log; the table is printed last.  580 s runs leave no
# room for the build in one 600 s call: run scripts/device_check.sh in the call
# before (build-device/ stays while the machine is warm), or shorten the runs.
# Ran on the H100 on 2026-11-24 (bench/RESULTS.md, "timed launches"), one format per call.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
SECS=${BEST_SECONDS:-580}
FORMATS=${BEST_FORMATS:-5x5x5,4x4x5,4x5x5}
SEED=${SEED:-1}
BACKEND=${BACKEND:-gpu}
F=${F:-build-device/flipgraph}
if [ ! -x "$F" ]; then
  bash scripts/device_check.sh || { echo "device_check failed: no runs"; exit 1; }
fi
NGPU=1
if [ "$BACKEND" = gpu ]; then
  NGPU=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU")
  [ "$NGPU" -ge 1 ] || { echo "no GPU visible (BACKEND=cpu runs on the CPU)"; exit 2; }
fi
IFS=',' read -r -a fmts <<< "$FORMATS"
export LD_LIBRARY_PATH="$(cd "$(dirname "$F")" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

run_one() { # format gpu
  CUDA_VISIBLE_DEVICES=$2 "$F" search --backend "$BACKEND" --dims "$1" --time "${SECS}s" --seed "$SEED" \
    --progress 60 -v > "$OUT/best_$1.log" 2>&1
}
start=$(date -u +%FT%TZ)
for ((g = 0; g < NGPU && g < ${#fmts[@]}; g++)); do
  ( for ((i = g; i < ${#fmts[@]}; i += NGPU)); do run_one "${fmts[$i]}" "$g"; done ) &
done
wait

# "  0:02:00  improved: rank 98 (walker ...)": seconds and rank of each improvement
best_at() { # log seconds
  awk -v lim="$2" '/ improved: rank / {
      split($1, t, ":"); s = t[1] * 3600 + t[2] * 60 + t[3];
      for (i = 1; i <= NF; i++) if ($i == "rank") r = $(i + 1);
      if (s <= lim) { best = r; at = s } }
    END { if (best != "") printf "%s (at %d s)", best, at; else printf "-" }' "$1"
}
if [ "$BACKEND" = gpu ]; then
  where="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $NGPU run(s) at once"
else
  where="the CPU ($(nproc) cores), one run at a time"
fi
echo "== best ranks, backend $BACKEND, seed $SEED, ${SECS} s, started $start on $where"
echo "| format | after 2 min | after ${SECS} s | final line |"
echo "| --- | --- | --- | --- |"
for d in "${fmts[@]}"; do
  log=$OUT/best_$d.log
  final=$(grep "^best rank" "$log" | tail -1)
  echo "| $d | $(best_at "$log" 120) | $(best_at "$log" "$SECS") | ${final:-no result: see $log} |"
done
