#!/usr/bin/env bash
# The degree bias measured (docs/search.md, "The degree bias"; bench/RESULTS.md):
# one-thread CPU searches from the standard algorithm to each format's record,
# for every bias and seed, JOBS at once, capped at CAP seconds; then a table of
# the median time to the record (a run that missed counts as the cap) and how
# many runs reached it, per format and bias.  Runs anywhere flipgraph is built
# (FG, default build/flipgraph); on the GPU machine after a device build.
#
# FROM=FILE starts every run from FILE (one format) instead.  BIAS=--weight-bias
# measures the weight bias instead (docs/search.md, "The weight bias"); EXTRA
# adds options to every run (such as "--walk-len 100000000 --pool-min 1").
#
# Usage: [FG=build/flipgraph] [FORMATS="3x4x4:38 3x3x5:36"] [BIASES="0 1 2"]
#        [SEEDS="1 2 3 4"] [CAP=60] [JOBS=$(nproc)] [FROM=FILE] [BIAS=--degree-bias]
#        [EXTRA=...] [OUT=out] bash scripts/bias_grid.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
FG=${FG:-build/flipgraph}
FORMATS=${FORMATS:-3x4x4:38 3x3x5:36}
BIASES=${BIASES:-0 1 2}
SEEDS=${SEEDS:-1 2 3 4}
CAP=${CAP:-60}
JOBS=${JOBS:-$(nproc)}
OUT=${OUT:-out}
mkdir -p "$OUT"
RAW=$OUT/bias_grid.txt
: > "$RAW"
one() { # FMT RANK BIAS SEED -> "FMT BIAS SEED BEST SECONDS"
  local line
  local from=()
  [ -n "$FROM" ] && from=(--from "$FROM")
  line=$(timeout $((CAP + 30)) "$FG" search --dims "$1" "${from[@]}" --threads 1 --time "${CAP}s" \
    --target-rank "$2" --seed "$4" "$BIAS" "$3" $EXTRA --progress 0 2>&1 | grep '^best rank')
  echo "$1 $3 $4 $(echo "$line" | sed -n 's/^best rank \([0-9]*\) .* after \([0-9.]*\) s.*/\1 \2/p')"
}
export -f one
FROM=${FROM:-}
BIAS=${BIAS:---degree-bias}
EXTRA=${EXTRA:-}
export FG CAP FROM BIAS EXTRA
for f in $FORMATS; do
  for b in $BIASES; do
    for s in $SEEDS; do echo "${f%%:*} ${f##*:} $b $s"; done
  done
done | xargs -P "$JOBS" -L 1 bash -c 'one "$@"' _ >> "$RAW"
echo "| format | record | bias | reached | median s (a miss counts $CAP) | runs: best/seconds |"
echo "| --- | --- | --- | --- | --- | --- |"
for f in $FORMATS; do
  for b in $BIASES; do
    awk -v F="${f%%:*}" -v R="${f##*:}" -v B="$b" -v CAP="$CAP" '
      $1 == F && $2 == B { n++; best[n] = $4; sec[n] = ($4 <= R ? $5 : CAP); hit += ($4 <= R); runs = runs " " $4 "/" $5 }
      END {
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (sec[j] < sec[i]) { t = sec[i]; sec[i] = sec[j]; sec[j] = t }
        med = n % 2 ? sec[(n + 1) / 2] : (sec[n / 2] + sec[n / 2 + 1]) / 2
        G = F; gsub("x", ",", G); printf "| <%s> | %s | %s | %d of %d | %.1f |%s |\n", G, R, B, hit, n, med, runs
      }' "$RAW"
  done
done
