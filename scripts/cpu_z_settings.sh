#!/usr/bin/env bash
# Walk settings of the CPU walk over Z side by side: every format x setting x
# seed is one search from the standard algorithm (--ring z, THREADS threads,
# default 1, T seconds), JOBS of them at a time; prints per format and setting
# the best rank of each seed and the time its progress table first showed it.
#
#   [THREADS=N] scripts/cpu_z_settings.sh BIN T JOBS "SEEDS" "FORMATS" "SETTING" ["SETTING" ...]
#   e.g. scripts/cpu_z_settings.sh build/flipgraph 60 2 "1 2" "3x4x5 4x4x5" "" "--walk-len 10000000"
#   (a SETTING is a string of search options, "" the defaults)
set -uo pipefail
[ $# -ge 6 ] || { sed -n 2,10p "$0"; exit 2; }
bin=$1 t=$2 jobs=$3 seeds=$4 formats=$5
shift 5
settings=("$@")
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
run() { # format setting-index seed
  local f=$1 i=$2 s=$3 opts
  read -r -a opts <<< "${settings[$i]}"
  "$bin" search --ring z --dims "$f" --threads "${THREADS:-1}" --time "${t}s" --seed "$s" --target-rank 0 --progress 5s \
    "${opts[@]}" --db "$tmp/$f-$i-$s.db" > "$tmp/$f-$i-$s.log" 2>&1
  rm -f "$tmp/$f-$i-$s.db"*
}
n=0
for f in $formats; do
  for i in "${!settings[@]}"; do
    for s in $seeds; do
      run "$f" "$i" "$s" &
      n=$((n + 1))
      if [ $((n % jobs)) -eq 0 ]; then wait; fi
    done
  done
done
wait
# the best rank of a log and the elapsed time of the first progress row showing it
best_at() {
  awk '$1 ~ /^[0-9]+:[0-9][0-9]/ { if (best == "" || $4+0 < best+0) { best = $4; at = $1 } }
       END { printf "%s@%s", best, at }' "$1"
}
printf '%-7s %-58s %s\n' format setting "best@first seen, per seed"
for f in $formats; do
  for i in "${!settings[@]}"; do
    line=""
    for s in $seeds; do line="$line $(best_at "$tmp/$f-$i-$s.log")"; done
    printf '%-7s %-58s%s\n' "$f" "${settings[$i]:-(defaults)}" "$line"
  done
done
