#!/usr/bin/env bash
# Moves between formats on the GPU machine (docs/resize.md; bench/RESULTS.md,
# "The meta search" and "<6,6,6> without symmetry"), one call: build, then the
# phases named on the command line, in order.  Carry deps/ (docs/device.md).
#
#   plain666 T   <6,6,6> on the GPU without symmetry for T each: from the
#                standard algorithm, and from the product of a <2,2,2>:7 and
#                a <3,3,3>:23 that the CPU finds first (flipgraph resize
#                --product); the best rank at the end and when it was reached
#   metacpu T    in the background while the phases after it run: the meta
#                search over 3x3x3..4x4x5 on the CPU, 3 threads each, seeds 1
#                and 2, with the reset rule (drift 10) and without (-1), T each
#   pool T       in the background: the pool's pieces on and off on the CPU,
#                <4,4,4> to 47 from the standard algorithm, one thread each,
#                seeds 1 and 2, capped at T: the defaults, --pool-min 1 (start
#                from the lowest rank at once), --pool-up 0 (never climb),
#                --pool-fresh 1 (no pool: every restart from the start),
#                --plus-max 8 (plus transitions up to 8 above the base)
#   from T FMT FILE [THREADS] ["OPTS"]
#                in the background: a CPU walk of format FMT from FILE (a
#                published scheme, reduced mod 2), THREADS threads (default 12)
#                for T, until the record; OPTS (one word starting with --, such
#                as "--ring z --coef-max 2") go to the search as they are (with
#                --target-rank R in OPTS: until R instead of the record)
#   t2 T FMT GROUPS [THREADS]
#                in the background: a t2-symmetric CPU walk of FMT (<n,m,m>)
#                from the start with the row groups GROUPS (--cubes), THREADS
#                threads (default 6) for T, until the record
#   meta T [R]   the meta search on the GPU over R (default 2x2x2..5x5x5)
#                until every record, --symmetry c3 for the square formats, T;
#                META_SEED (default 1), META_DB (a carried store to go on from),
#                META_RING=z: over Z (--ring z, no symmetry), META_ARGS: more
#                options for the search (such as --meta-neighbours); T is
#                trimmed to end CALL_LIMIT (default 585) s after the start
#   wait         waits for the background runs and prints their tables
#
# Usage: OUT=out bash scripts/device_meta.sh plain666 200s metacpu 240s wait
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
. scripts/device_env.sh
fg_device_deps
B=build-device
t0=$(date +%s)
cmake -S . -B $B "${FG_DEVICE_CMAKE[@]}" \
  > "$OUT/build.log" 2>&1 && cmake --build $B -j"$(nproc)" --target flipgraph >> "$OUT/build.log" 2>&1 || {
  tail -30 "$OUT/build.log"; exit 2; }
F=$PWD/$B/flipgraph
echo "== built in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%F), $($F version | head -1)"
W=/tmp/fgmeta
mkdir -p $W
pids=()

# The best rank a search's progress table reached, and the elapsed time of the
# first row that shows it (column 1: elapsed, column 4: best).
best_at() {
  awk '$1 ~ /^[0-9]+:[0-9][0-9]/ || $1 ~ /^[0-9.]+s$/ { if (best == "" || $4+0 < best+0) { best = $4; at = $1 } }
       END { printf "best %s first seen at %s", best, at }' "$1"
}

while [ $# -gt 0 ]; do
  phase=$1; shift
  case $phase in
  plain666)
    T=$1; shift
    $F search --dims 2x2x2 --target-rank 7 --threads 1 --seed 1 --db $W/small.db -q > /dev/null 2>&1
    $F search --dims 3x3x3 --target-rank 23 --threads 4 --seed 1 --db $W/small.db -q > /dev/null 2>&1
    $F export "$($F db list --db $W/small.db --dims 2x2x2 | awk 'NR==2{print $1}')" --db $W/small.db --to native -o $W/s222.native
    $F export "$($F db list --db $W/small.db --dims 3x3x3 | awk 'NR==2{print $1}')" --db $W/small.db --to native -o $W/s333.native
    $F resize $W/s222.native --product $W/s333.native -o $W/p666.native 2>&1 | sed 's/^/  /'
    echo "== <6,6,6> --backend gpu, no symmetry, $T each (seed 1)"
    for start in standard product; do
      from=""
      [ $start = product ] && from="--from $W/p666.native"
      $F search --backend gpu --dims 6x6x6 --time "$T" --seed 1 --progress 10s $from --db $W/p666_$start.db \
        > $W/p666_$start.sum 2> "$OUT/p666_$start.log"
      printf "from %-9s %s; %s\n" "$start" "$(tail -1 $W/p666_$start.sum)" "$(best_at "$OUT/p666_$start.log")"
    done
    ;;
  metacpu)
    T=$1; shift
    for drift in 10 -1; do
      for seed in 1 2; do
        $F search --meta --dims-range 3x3x3..4x4x5 --until-record --backend cpu --threads 3 --stall 10s \
          --meta-drift $drift --time "$T" --seed $seed --db $W/mc_${drift}_$seed.db \
          > "$OUT/metacpu_drift${drift}_seed$seed.txt" 2>&1 &
        pids+=($!)
      done
    done
    echo "== metacpu: 4 meta searches in the background (3x3x3..4x4x5, 3 threads, $T; drift 10 and -1, seeds 1 2)"
    ;;
  pool)
    T=$1; shift
    for cfg in "defaults:" "pool-min-1:--pool-min 1" "pool-up-0:--pool-up 0" "pool-fresh-1:--pool-fresh 1" \
               "plus-max-8:--plus-max 8"; do
      name=${cfg%%:*}; opts=${cfg#*:}
      for seed in 1 2; do
        $F search --dims 4x4x4 --target-rank 47 --backend cpu --threads 1 --seed $seed --time "$T" --progress 0 \
          $opts > "$OUT/pool_${name}_seed$seed.txt" 2>&1 &
        pids+=($!)
      done
    done
    echo "== pool: 10 CPU searches in the background (<4,4,4> to 47, 1 thread, $T cap)"
    ;;
  from)
    T=$1; FMT=$2; FILE=$3; shift 3
    TH=12
    if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then TH=$1; shift; fi
    OPTS=()
    if [ $# -gt 0 ] && [[ $1 == --* ]]; then read -r -a OPTS <<< "$1"; shift; fi
    tag=from_${FMT}_$(basename "$FILE" | tr -c 'A-Za-z0-9_\n-' _)$(printf '%s' "${OPTS[*]}" | tr -c 'A-Za-z0-9' _)
    UNTIL=(--until-record)
    [[ " ${OPTS[*]} " == *" --target-rank "* ]] && UNTIL=()
    $F search --dims "$FMT" "${UNTIL[@]}" --backend cpu --threads "$TH" --seed 1 --time "$T" --progress 30s \
      --from "$FILE" "${OPTS[@]}" --db "$W/$tag.db" > "$OUT/$tag.txt" 2>&1 &
    pids+=($!)
    echo "== $tag: a CPU walk of <$FMT> from $FILE in the background ($TH threads, $T)"
    ;;
  t2)
    T=$1; FMT=$2; GR=$3; shift 3
    TH=6
    if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then TH=$1; shift; fi
    tag=t2_${FMT}_$(echo "$GR" | tr , _)
    $F search --dims "$FMT" --symmetry t2 --cubes "$GR" --until-record --backend cpu --threads "$TH" --seed 1 \
      --time "$T" --progress 30s --db "$W/$tag.db" > "$OUT/$tag.txt" 2>&1 &
    pids+=($!)
    echo "== $tag: a t2 walk of <$FMT> with the row groups $GR in the background ($TH threads, $T)"
    ;;
  meta)
    T=$1; shift
    R=2x2x2..5x5x5
    if [ $# -gt 0 ] && [[ $1 == *..* ]]; then R=$1; shift; fi
    S=${META_SEED:-1}
    # META_DB=FILE (carried): go on from an earlier call's store (search --meta
    # takes every format's stored bests into its pools); the store comes back
    # as $OUT/meta_gpu.db either way
    rm -f $W/meta_gpu.db
    if [ -n "${META_DB:-}" ]; then cp "$META_DB" $W/meta_gpu.db || exit 2; fi
    # META_RING=z: the meta search over Z (no symmetry there), else GF(2) with c3
    RA=(--symmetry c3)
    [ "${META_RING:-f2}" = z ] && RA=(--ring z)
    read -r -a XA <<< "${META_ARGS:-}"
    # the call's limit (CALL_LIMIT seconds from the script's start, default
    # 585: the device's 600 less a margin) trims T, so that the search ends by
    # itself and its store comes back (a call killed at its limit loses it)
    case $T in *s) TS=${T%s} ;; *m) TS=$(( ${T%m} * 60 )) ;; *) TS=$T ;; esac
    MAXS=$(( ${CALL_LIMIT:-585} - ($(date +%s) - t0) - 10 ))
    if [[ $TS =~ ^[0-9]+$ ]] && [ "$TS" -gt "$MAXS" ]; then
      echo "== --time $T trimmed to ${MAXS}s (the call's limit)"
      T=${MAXS}s
    fi
    echo "== search --meta --dims-range $R --until-record --backend gpu ${RA[*]} --stall 20s --time $T (seed $S) ${XA[*]}"
    $F search --meta --dims-range $R --until-record --backend gpu "${RA[@]}" --stall 20s --time "$T" --seed $S \
      "${XA[@]}" --db $W/meta_gpu.db > "$OUT/meta_gpu.txt" 2>&1
    echo "exit $?"
    cp $W/meta_gpu.db "$OUT/meta_gpu.db"
    grep -v '^\[leg' "$OUT/meta_gpu.txt" | tail -25
    ;;
  wait)
    for p in "${pids[@]}"; do wait "$p"; done
    pids=()
    for f in "$OUT"/pool_*.txt; do
      [ -f "$f" ] || continue
      printf "%-28s %s\n" "$(basename "$f" .txt)" "$(tail -1 "$f")"
    done
    for f in "$OUT"/from_*.txt "$OUT"/t2_*.txt; do
      [ -f "$f" ] || continue
      printf "%-40s %s; %s\n" "$(basename "$f" .txt)" "$(tail -1 "$f")" "$(best_at "$f")"
    done
    for f in "$OUT"/metacpu_*.txt; do
      [ -f "$f" ] || continue
      echo "== $(basename "$f" .txt)"
      grep -v '^\[leg' "$f" | tail -9
    done
    ;;
  *) echo "unknown phase $phase"; exit 2 ;;
  esac
done
