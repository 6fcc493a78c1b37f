#!/usr/bin/env bash
# Runs longer than one device call (10 minutes), one process each, on a machine
# with any number of GPUs (bench/RESULTS.md, "One process per seed"; docs/device.md).
# The first call builds and starts every job in a process session of its own
# (setsid), which the device keeps running after the call returns, as long as
# the machine stays held (the next call comes within its warm time); later
# calls wait and report; the last one collects the logs and stores into $OUT.
#
#   start T JOB...   build, then start each JOB for at most T (seconds, or Ns/Nm):
#                    GPU:meta:SEED     the meta search over 2x2x2..5x5x5 on GF(2)
#                                      with the defaults (--until-record --symmetry
#                                      c3 --stall 20s), from nothing
#                    GPU:metaz:SEED    the same over Z (--ring z, no symmetry)
#                    GPU:metazc3:SEED  over Z with --symmetry c3 (square formats'
#                                      symmetric legs walk over GF(2) and lift)
#                    GPU:metazvia:SEED as metazc3 with --via-f2 30s: every leg
#                                      walks over GF(2) and lifts
#                    GPU:metazvia4:SEED as metazvia over <4,4,4>..<4,5,5> only,
#                                      --via-f2 60s (the legs around <4,4,5>:61)
#                    GPU:plain666:SEED <6,6,6> from the standard algorithm, no
#                                      symmetry, the GPU defaults (--progress 60s)
#                    GPU:args:LABEL    flipgraph search with the words of the
#                                      environment variable ARGS_LABEL (seed,
#                                      format, start, backend: all there), such
#                                      as ARGS_h446="--dims 4x4x6 --from deps/s.txt
#                                      --backend gpu --target-rank 72 --seed 1";
#                                      GPU c: no GPU (a CPU search beside);
#                                      ENV_LABEL="VAR=VALUE ..." sets those
#                                      variables for this job alone (such as
#                                      ENV_o="FLIPGRAPH_SYM_GLOBAL=1", the
#                                      baseline of a side-by-side run)
#                    each sees one GPU (CUDA_VISIBLE_DEVICES=GPU)
#   add T JOB...     as start, beside the jobs already running (a GPU whose job
#                    ended takes another; no build: the binary of the start)
#   wait S           waits until every job has ended or S seconds have passed
#                    (exit 3 at once where no job is here: a fresh machine),
#                    then prints each job's state and last lines
#   SEED_DB=path     (environment) each job started by this call begins with a
#                    copy of that store (carried in deps/, say): a search
#                    --meta continues from the schemes there (docs/resize.md,
#                    "The meta search", rule 7), --from-db sweeps start there
#   collect          stores every job's log in $OUT/logs.tar.gz (JOB/log.txt)
#                    and its store in $OUT/stores.tar.gz (JOB/store.db, with its
#                    -wal where the job still runs), and each log as
#                    $OUT/JOB.txt too while there are at most 6 jobs (the
#                    device sends 8 files back); prints the meta searches'
#                    tables and the <6,6,6> progress, then, last, each job's
#                    best rank at every progress row
#
# The jobs live only as long as the machine is held: each call must follow the
# last within the device's idle release (`status`: idle_release_s, 30 s in the
# forty-fifth session), so nothing else may run between the calls.
# Usage (three calls on one held machine, each within its 600 s):
#   OUT=$OUT bash scripts/device_long.sh start 1380 0:meta:6 1:meta:7 2:metaz:1 3:plain666:1 wait 480
#   OUT=$OUT bash scripts/device_long.sh wait 590
#   OUT=$OUT bash scripts/device_long.sh wait 560 collect
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
W=${LONG_DIR:-/tmp/fglong}   # the jobs' folders; must outlive the call (not a mktemp)
B=build-device
F=${FG:-$PWD/$B/flipgraph}   # FG=path: a flipgraph built already (no build)
# before any build: a bad SEED_DB costs no device time
[ -z "${SEED_DB:-}" ] || [ -f "$SEED_DB" ] || { echo "SEED_DB=$SEED_DB is not a file"; exit 2; }

secs() { case $1 in *s) echo "${1%s}" ;; *m) echo $(( ${1%m} * 60 )) ;; *) echo "$1" ;; esac; }

job_state() { # name -> running / exit N
  local d=$W/$1
  if [ -f "$d/rc" ]; then echo "exit $(cat "$d/rc")"; else echo running; fi
}

while [ $# -gt 0 ]; do
  phase=$1; shift
  case $phase in
  start|add)
    T=$(secs "$1"); shift
    t0=$(date +%s)
    if [ "$phase" = start ]; then
      if [ -z "${FG:-}" ]; then
        . scripts/device_env.sh
        fg_build flipgraph || exit 2
      fi
      echo "== built in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | tr -s ' ');" \
        "$(date -u +%F); $($F version | head -1)"
      rm -rf $W
    fi
    mkdir -p $W
    while [ $# -gt 0 ] && [[ $1 == *:*:* ]]; do
      IFS=: read -r gpu kind seed <<< "$1"; shift
      jobenv=()
      name=${kind}_s${seed}_g${gpu}
      d=$W/$name
      mkdir -p "$d"
      [ -z "${SEED_DB:-}" ] || cp "$SEED_DB" "$d/store.db" || exit 2
      case $kind in
      meta) args=(search --meta --dims-range 2x2x2..5x5x5 --until-record --backend gpu --symmetry c3 --stall 20s) ;;
      metaz) args=(search --meta --dims-range 2x2x2..5x5x5 --until-record --backend gpu --ring z --stall 20s) ;;
      metazc3) args=(search --meta --dims-range 2x2x2..5x5x5 --until-record --backend gpu --ring z --symmetry c3 --stall 20s) ;;
      metazvia) args=(search --meta --dims-range 2x2x2..5x5x5 --until-record --backend gpu --ring z --symmetry c3 --via-f2 30s --stall 20s) ;;
      metazvia4) args=(search --meta --dims-range 4x4x4..4x5x5 --until-record --backend gpu --ring z --symmetry c3 --via-f2 60s --stall 20s) ;;
      plain666) args=(search --dims 6x6x6 --backend gpu --target-rank 0 --progress 60s) ;;
      args) v=ARGS_$seed
            [ -n "${!v:-}" ] || { echo "job $gpu:args:$seed: $v is empty"; exit 2; }
            read -r -a args <<< "search ${!v}"
            ev=ENV_$seed
            read -r -a jobenv <<< "${!ev:-}" ;;
      *) echo "unknown job kind $kind"; exit 2 ;;
      esac
      [ "$kind" = args ] || args+=(--seed "$seed")
      args+=(--time "${T}s" --db "$d/store.db")
      echo "$(date +%s)" > "$d/t0"
      echo "== $name: ${jobenv[*]:+${jobenv[*]} }flipgraph ${args[*]} (GPU $gpu)"
      # its own process session, so that it outlives this call
      env CUDA_VISIBLE_DEVICES="$gpu" "${jobenv[@]}" setsid bash -c '"$@" > "$0/log.txt" 2>&1; echo $? > "$0/rc"' \
        "$d" "$F" "${args[@]}" < /dev/null > /dev/null 2>&1 &
    done
    ;;
  wait)
    S=$(secs "$1"); shift
    # no job here: the machine is a fresh one (the last was released, its
    # jobs with it, when a call came later than the idle release); say so at
    # once rather than wait S seconds for nothing
    if ! ls -d "$W"/*/ > /dev/null 2>&1; then
      echo "no jobs under $W: this machine did not start them (the one that did was released); nothing to wait for"
      exit 3
    fi
    t0=$(date +%s)
    while [ $(( $(date +%s) - t0 )) -lt "$S" ]; do
      left=0
      for d in "$W"/*/; do [ -f "$d/rc" ] || left=1; done
      [ $left = 0 ] && break
      sleep 5
    done
    for d in "$W"/*/; do
      name=$(basename "$d")
      echo "== $name: $(job_state "$name"), $(( $(date +%s) - $(cat "$d/t0") )) s since its start"
      grep -v '^\[leg' "$d/log.txt" | grep -E 'meta search:|^ *[0-9:.]+s? ' | tail -2
      grep '^\[leg' "$d/log.txt" | tail -2
    done
    ;;
  collect)
    ls -d "$W"/*/ > /dev/null 2>&1 || { echo "no jobs under $W: nothing to collect (the machine was released)"; exit 3; }
    # the stores in one archive: the device sends a limited number of files back.
    # A job still running holds its rows in the write-ahead log (store.db-wal,
    # docs/db.md): it goes with its store, or a store collected early is empty
    tar czf "$OUT/stores.tar.gz" -C $W $(cd $W && ls -d */store.db */store.db-wal 2>/dev/null)
    # the logs in one archive too: a run of 15 jobs sent back 8 of its 16 files
    tar czf "$OUT/logs.tar.gz" -C $W $(cd $W && ls -d */log.txt 2>/dev/null)
    njobs=$(ls -d "$W"/*/ | wc -l)
    for d in "$W"/*/; do
      name=$(basename "$d")
      [ "$njobs" -le 6 ] && cp "$d/log.txt" "$OUT/$name.txt"
      echo "== $name: $(job_state "$name")"
      case $name in
      plain666*|args*) grep -v '^\[' "$d/log.txt" | tail -30 ;;
      *) grep -v '^\[leg' "$d/log.txt" | tail -24 ;;
      esac
    done
    # last, so that a call's output tail (its last lines) keeps every job's
    for d in "$W"/*/; do
      echo "== $(basename "$d"): best at each progress row: $(grep -E '^ +[0-9]+:' "$d/log.txt" | awk '{printf "%s ", $4}')"
    done
    ;;
  *) echo "unknown phase $phase"; exit 2 ;;
  esac
done
# a phase that fails exits above; what the reports grep for may be absent (a
# job that is not a meta search has no [leg] lines), which is no failure
exit 0
