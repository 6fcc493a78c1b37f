#!/usr/bin/env bash
# A search longer than one device call, as a chain of calls that carry its pool
# (docs/device.md, "Runs longer than one call"): each call builds (a warm
# machine keeps the build), walks for TIME from the pool the last call left in
# deps/chain/ (from ARGS's start when there is none), and returns that call's
# pool as $OUT/chain.tgz with its store and log.
# Between calls, here:  rm -rf deps/chain && tar xzf FILES_AT/chain.tgz -C deps
# Nothing lives on the machine between calls, so a call that finds a fresh
# machine (the last one released) loses only the build, not the run: the
# walkers start again from the pool's schemes, fresh seeds (SEED + the link).
#   OUT=$OUT ARGS="--dims 6x6x6 --backend gpu --plus-hold 200000 --target-rank 0" \
#     [TIME=520s] [CALL_S=600] [JOBS=K] [SEED=1] [KEEP=1000] [FG=path] bash scripts/device_chain.sh
# CALL_S: the call's limit in seconds (the run tool's limit_s); the walk is cut
#   to end 30 s before it, counting the build, so that a call never dies with
#   its pool unwritten.
# JOBS=K: K searches side by side, independent of one another: search j keeps
#   its own pool in deps/chain/jNN, seed SEED + link*K + j, store
#   store-jNN.db, log log-jNN.txt (both packed into $OUT/runs.tgz at the
#   end, as the run tool returns few files), KEEP (default 64) schemes.
#   Islands of one search share their pool at the next link (a pool is read
#   whole by --from), so separate walks across links need separate searches.
#   JOB_ARGS="WORDS;WORDS;...": search j adds the (j mod count)-th WORDS to
#   ARGS, e.g. "--weight-bias 0.2;--weight-bias 0.3" sets two values side by side.
# CHAIN_DIR: where the last link's pools are read (default deps/chain); the
#   call's own files live in a fresh folder under TMPDIR (default /tmp),
#   removed at the end, so that tests/check_device_scripts.sh can run it.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
CH=${CHAIN_DIR:-deps/chain}   # the pools the last link left (deps/ travels with each call)
mkdir -p "$OUT"
[ -n "${ARGS:-}" ] || { echo "ARGS is empty: the search's words (format, backend, options)"; exit 2; }
seconds_of() {   # 520s, 520 or 9m -> seconds; empty on anything else
  case "$1" in
    *[!0-9sm]* | "" | s | m) ;;
    *s) [[ ${1%s} =~ ^[0-9]+$ ]] && echo "${1%s}" ;;
    *m) [[ ${1%m} =~ ^[0-9]+$ ]] && echo $(( ${1%m} * 60 )) ;;
    *) [[ $1 =~ ^[0-9]+$ ]] && echo "$1" ;;
  esac
}
want_s=$(seconds_of "${TIME:-520s}")
[ -n "$want_s" ] || { echo "TIME=${TIME:-} is not a duration (520s, 520 or 9m)"; exit 2; }
call_s=$(seconds_of "${CALL_S:-600}")
[ -n "$call_s" ] || { echo "CALL_S=${CALL_S:-} is not a number of seconds"; exit 2; }
jobs=${JOBS:-}
if [ -n "$jobs" ] && ! [[ $jobs =~ ^[1-9][0-9]*$ && $jobs -le 99 ]]; then
  echo "JOBS=$jobs is not a count of searches from 1 to 99"; exit 2
fi
t0=$(date +%s)
F=${FG:-}   # FG=path: a flipgraph built already (no build; the check of this script here)
if [ -z "$F" ]; then
  . scripts/device_env.sh
  fg_build flipgraph || exit 2
  F=build-device/flipgraph
fi
built=$(( $(date +%s) - t0 ))
walk_s=$want_s
left=$(( call_s - built - 30 ))
if [ "$left" -lt "$walk_s" ]; then
  walk_s=$left
  [ "$walk_s" -ge 20 ] || { echo "the build took $built s of CALL_S=$call_s: no time left to walk"; exit 2; }
fi
[ "$walk_s" -ge 1 ] || { echo "TIME=$TIME: a walk needs at least 1 s"; exit 2; }
link=0
[ -f "$CH/link" ] && link=$(( $(cat "$CH/link") + 1 ))
read -r -a words <<< "$ARGS"
IFS=';' read -r -a job_args <<< "${JOB_ARGS:-}"
[ -z "${JOB_ARGS:-}" ] || [ -n "$jobs" ] || { echo "JOB_ARGS needs JOBS"; exit 2; }
WK=$(mktemp -d "${TMPDIR:-/tmp}/fgchain.XXXXXX") || exit 2
trap 'rm -rf "$WK"' EXIT
mkdir -p "$WK/out/chain" "$WK/in"
echo "== link $link, built in $built s, walks $walk_s s (TIME ${want_s} s, CALL_S $call_s s);" \
  "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); $(date -u +%F); $($F version | head -1)"

# one search: its pool dir in $CH ($1, "" for the chain's top), its
# name in $OUT ($2: "" or -jNN), its seed ($3), schemes kept ($4), its own
# words after ARGS ($5)
one_search() {
  local pool=$1 name=$2 seed=$3 keep=$4 from=() in=$WK/in/x$2 out=$WK/out/chain${1:+/$1} more=()
  read -r -a more <<< "${5:-}"
  mkdir -p "$in"
  if ls "$CH"/${pool:+$pool/}*.txt > /dev/null 2>&1; then
    cp "$CH"/${pool:+$pool/}*.txt "$in/"
    from=(--from "$in")
  fi
  $F search "${words[@]}" "${more[@]}" "${from[@]}" --seed "$seed" --time "${walk_s}s" --progress 60s \
    --db "$OUT/store$name.db" --pool-out "$out" --pool-keep "$keep" > "$OUT/log$name.txt" 2>&1
  local rc=$?
  mkdir -p "$out"
  # a search that wrote no pool (it failed early) hands on the pool it started from
  if ! ls "$out"/*.txt > /dev/null 2>&1 && [ ${#from[@]} -gt 0 ]; then cp "$in"/*.txt "$out/"; fi
  echo "$rc" > "$WK/in/rc$name"
}
# the best rank of each progress row, then the run's last word on it
best_ranks() {
  grep -E '^ +[0-9]+:' "$1" | awk '{printf "%s ", $4}'
  grep -E '^best rank [0-9]+ ' "$1" | tail -1 | awk '{printf "%s", $3}'
}

rc=0
if [ -z "$jobs" ]; then
  echo "== $(ls "$CH"/*.txt 2>/dev/null | wc -l) schemes from the last link"
  one_search "" "" $(( ${SEED:-1} + link )) "${KEEP:-1000}"
  rc=$(cat "$WK/in/rc")
  grep -v '^\[' "$OUT/log.txt" | tail -16
  echo "== link $link: exit $rc; best at each progress row: $(best_ranks "$OUT/log.txt");" \
    "pool out: $(ls "$WK/out/chain" | grep -c '\.txt$') schemes"
else
  for (( j = 0; j < jobs; j++ )); do
    nn=$(printf 'j%02d' "$j")
    extra=""
    [ ${#job_args[@]} -gt 0 ] && extra=${job_args[$(( j % ${#job_args[@]} ))]}
    one_search "$nn" "-$nn" $(( ${SEED:-1} + link * jobs + j )) "${KEEP:-64}" "$extra" &
  done
  wait
  for (( j = 0; j < jobs; j++ )); do
    nn=$(printf 'j%02d' "$j")
    r=$(cat "$WK/in/rc-$nn" 2>/dev/null || echo 2)
    [ "$r" = 0 ] || rc=$r
    echo "== $nn${job_args:+ (${job_args[$(( j % ${#job_args[@]} ))]})}: exit $r; from $(ls "$CH"/$nn/*.txt 2>/dev/null | wc -l) schemes; best at each row: $(best_ranks "$OUT/log-$nn.txt");" \
      "pool out: $(ls "$WK/out/chain/$nn" 2>/dev/null | grep -c '\.txt$')"
  done
  echo "== link $link: $jobs searches, exit $rc; best of each: $(for f in "$OUT"/log-j*.txt; do best_ranks "$f" | awk '{print $NF}'; done | sort -n | tr '\n' ' ')"
  # The run tool brings back only a few files from $OUT, so the searches'
  # logs and stores travel as one archive.
  (cd "$OUT" && tar czf runs.tgz log-j*.txt store-j*.db) && rm -f "$OUT"/log-j*.txt "$OUT"/store-j*.db
fi
echo "$link" > "$WK/out/chain/link"
tar czf "$OUT/chain.tgz" -C "$WK/out" chain
exit "$rc"
