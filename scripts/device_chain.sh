#!/usr/bin/env bash
# A search longer than one device call, as a chain of calls that carry its pool
# (docs/device.md, "Runs longer than one call"): each call builds (a warm
# machine keeps the build), walks for TIME from the pool the last call left in
# deps/chain/ (from ARGS's start when there is none), and returns that call's pool as $OUT/chain.tgz with its store and log.
# Between calls, here:  rm -rf deps/chain && tar xzf FILES_AT/chain.tgz -C deps
# Nothing lives on the machine between calls, so a call that finds a fresh
# machine (the last one released) loses only the build, not the run: the
# walkers start again from the pool's schemes, fresh seeds (SEED + the link).
#   OUT=$OUT ARGS="--dims 6x6x6 --backend gpu --plus-hold 200000 --target-rank 0" \
#     [TIME=520s] [SEED=1] [KEEP=1000] [FG=path] bash scripts/device_chain.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
[ -n "${ARGS:-}" ] || { echo "ARGS is empty: the search's words (format, backend, options)"; exit 2; }
t0=$(date +%s)
F=${FG:-}   # FG=path: a flipgraph built already (no build; the check of this script here)
if [ -z "$F" ]; then
  . scripts/device_env.sh
  fg_build flipgraph || exit 2
  F=build-device/flipgraph
fi
link=0
[ -f deps/chain/link ] && link=$(( $(cat deps/chain/link) + 1 ))
from=()
if ls deps/chain/*.txt > /dev/null 2>&1; then
  mkdir -p /tmp/fgchain-in && rm -f /tmp/fgchain-in/* && cp deps/chain/*.txt /tmp/fgchain-in/
  from=(--from /tmp/fgchain-in)
fi
echo "== link $link, built in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1);" \
  "$(date -u +%F); $($F version | head -1);" \
  "$([ ${#from[@]} -gt 0 ] && echo "from the last link's $(ls /tmp/fgchain-in | wc -l) schemes" || echo "no pool yet: from the start")"
rm -rf /tmp/fgchain && mkdir -p /tmp/fgchain
read -r -a words <<< "$ARGS"
$F search "${words[@]}" "${from[@]}" --seed $(( ${SEED:-1} + link )) --time "${TIME:-520s}" --progress 60s \
  --db "$OUT/store.db" --pool-out /tmp/fgchain/chain --pool-keep "${KEEP:-1000}" > "$OUT/log.txt" 2>&1
rc=$?
mkdir -p /tmp/fgchain/chain
# a link that wrote no pool (it failed early) hands on the pool it started from
if ! ls /tmp/fgchain/chain/*.txt > /dev/null 2>&1 && [ ${#from[@]} -gt 0 ]; then
  cp /tmp/fgchain-in/*.txt /tmp/fgchain/chain/
fi
echo "$link" > /tmp/fgchain/chain/link
tar czf "$OUT/chain.tgz" -C /tmp/fgchain chain
grep -v '^\[' "$OUT/log.txt" | tail -16
echo "== link $link: exit $rc; best at each progress row: $(grep -E '^ +[0-9]+:' "$OUT/log.txt" | awk '{printf "%s ", $4}');" \
  "pool out: $(ls /tmp/fgchain/chain | grep -c '\.txt$') schemes"
exit $rc
