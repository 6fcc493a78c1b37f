#!/usr/bin/env bash
# Two builds of flipgraph walk the same seeded plain walks (one thread, a fixed
# number of flips) one after the other; prints per format the seconds of each,
# the ratio, and whether the two walked the same (their closing lines agree).
# For a change that must not alter the walk, only its speed.
#
#   [EXTRA="--degree-bias 2"] scripts/cpu_walk_compare.sh BASE_BIN NEW_BIN [FORMAT:FLIPS ...]
#   (default: 4x4x4:100000000 5x5x5:100000000 6x6x6:300000000; seed 3; the
#    <6,6,6> walks with the plateau of 200000 the host-thread runs use; EXTRA:
#    options added to every walk)
set -uo pipefail
[ $# -ge 2 ] || { sed -n 2,10p "$0"; exit 2; }
read -r -a more <<< "${EXTRA:-}"
base=$1 new=$2; shift 2
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(4x4x4:100000000 5x5x5:100000000 6x6x6:300000000)
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
printf '%-8s %10s %9s %9s %7s %s\n' format flips base_s new_s ratio same-walk
for c in "${cases[@]}"; do
  dims=${c%%:*} flips=${c#*:}
  extra=()
  [ "$dims" = 6x6x6 ] && extra=(--plateau 200000 --plateau-min 200000 --plateau-max 200000)
  for b in base new; do
    bin=$base; [ $b = new ] && bin=$new
    s=$(date +%s.%N)
    "$bin" search --dims "$dims" --threads 1 --max-flips "$flips" --seed 3 --target-rank 0 \
      "${extra[@]}" "${more[@]}" --db "$tmp/$b.db" > "$tmp/$b.log" 2>&1
    e=$(date +%s.%N)
    echo "$s $e" | awk '{printf "%.2f", $2 - $1}' > "$tmp/$b.t"
    rm -f "$tmp/$b.db"*
  done
  # the summary lines less the times and rates
  same=no
  cmp -s <(grep -E "improvements|pool took|undid|best rank" "$tmp/base.log" | sed 's/ after .*//') \
         <(grep -E "improvements|pool took|undid|best rank" "$tmp/new.log" | sed 's/ after .*//') && same=yes
  bt=$(cat "$tmp/base.t") nt=$(cat "$tmp/new.t")
  printf '%-8s %10s %9s %9s %7s %s (%s)\n' "$dims" "$flips" "$bt" "$nt" \
    "$(awk -v a="$bt" -v b="$nt" 'BEGIN{printf "%.2f", a / b}')" "$same" \
    "$(grep "best rank" "$tmp/new.log" | sed 's/ after.*//')"
done
