#!/usr/bin/env bash
# The device scripts that carry a search across calls, run here with the CPU
# build (FG=$FLIPGRAPH_BIN: no build, no GPU) inside a temporary folder of
# their own (docs/device.md, "Runs longer than one call"):
# - scripts/device_chain.sh: two links of one search (the second starts from
#   the pool the first handed on, and counts itself link 1), two links of two
#   independent searches (JOBS=2, a pool each, runs.tgz), and the inputs it
#   refuses with exit 2 before it walks;
# - scripts/device_long.sh: SEED_DB gives a job a copy of that store (its
#   schemes are there after the job), and a SEED_DB that is not a file exits 2;
# - scripts/device_checkpoint.sh: a search with --pool-every killed with SIGKILL
#   leaves a folder of whole, verified schemes that the next search starts from.
# Prints "N passed, N failed"; exit 1 on any failure.
set -u
src=${FLIPGRAPH_SOURCE:-$(cd "$(dirname "$0")/.." && pwd)}
fg=${FLIPGRAPH_BIN:-}
[ -x "$fg" ] || { echo "FLIPGRAPH_BIN is not an executable: '$fg'"; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fg-devscripts.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp
. "$src/tests/check_lib.sh"
chain() { # OUT dir, then VAR=VALUE words: one call of device_chain.sh
  local out=$1; shift
  env FG="$fg" OUT="$out" CHAIN_DIR="$tmp/chain" "$@" bash "$src/scripts/device_chain.sh" > "$out.txt" 2>&1
}
# a pool handed on between calls is unpacked as the notes say: tar xzf chain.tgz
unpack() { rm -rf "$tmp/chain" && tar xzf "$1/chain.tgz" -C "$tmp"; }
txt_count() { ls "$1"/*.txt 2>/dev/null | wc -l; }
all_verify() { local f; for f in "$1"/*.txt; do "$fg" verify "$f" > /dev/null || return 1; done; }

# ---- one search, two links ----
chain "$tmp/o1" ARGS="--dims 3x3x3 --threads 1 --target-rank 0" TIME=3s SEED=5
check "link 0 exits 0 (no target)" grep -q '== link 0: exit 0' "$tmp/o1.txt"
check "link 0 hands on a pool" test -f "$tmp/o1/chain.tgz"
unpack "$tmp/o1"
check "the pool says link 0" grep -qx 0 "$tmp/chain/link"
check "the pool holds schemes" test "$(txt_count "$tmp/chain")" -ge 1
check "every pooled scheme verifies" all_verify "$tmp/chain"
n0=$(txt_count "$tmp/chain")
chain "$tmp/o2" ARGS="--dims 3x3x3 --threads 1 --target-rank 0" TIME=3s SEED=5
check "link 1 starts from the last pool" grep -q "== $n0 schemes from the last link" "$tmp/o2.txt"
check "link 1 counts itself" grep -q '== link 1: exit 0' "$tmp/o2.txt"
check "link 0 started from the standard algorithm" grep -q 'start rank [0-9]* (the standard algorithm)' "$tmp/o1/log.txt"
check "link 1 searched from the pool" grep -q "start rank [0-9]* (--from, $n0 schemes)" "$tmp/o2/log.txt"
unpack "$tmp/o2"
check "the new pool says link 1" grep -qx 1 "$tmp/chain/link"
check "no work folder left behind" test -z "$(ls -d "$tmp"/fgchain.* 2>/dev/null)"

# ---- two independent searches, two links ----
rm -rf "$tmp/chain"
chain "$tmp/j1" ARGS="--dims 2x2x3 --threads 1 --target-rank 0" TIME=2s JOBS=2 \
  JOB_ARGS="--weight-bias 0.2;--weight-bias 0.3"
check "JOBS=2: both searches reported" test "$(grep -c '^== j0[01] (--weight-bias 0\.[23]): exit 0' "$tmp/j1.txt")" -eq 2
check "JOBS=2: logs and stores in runs.tgz" \
  test "$(tar tzf "$tmp/j1/runs.tgz" | grep -cE '^(log|store)-j0[01]\.(txt|db)$')" -eq 4
unpack "$tmp/j1"
check "JOBS=2: a pool each" test "$(txt_count "$tmp/chain/j00")" -ge 1 -a "$(txt_count "$tmp/chain/j01")" -ge 1
chain "$tmp/j2" ARGS="--dims 2x2x3 --threads 1 --target-rank 0" TIME=2s JOBS=2
check "JOBS=2, link 1: each from its own pool" \
  test "$(grep -cE '^== j0[01]: exit 0; from [1-9][0-9]* schemes' "$tmp/j2.txt")" -eq 2

# ---- refused before any walk: exit 2 ----
for bad in "TIME=abc" "JOBS=0" "CALL_S=x" "JOB_ARGS=--seed"; do
  mkdir -p "$tmp/bad"
  env FG="$fg" OUT="$tmp/bad" CHAIN_DIR="$tmp/none" ARGS="--dims 2x2x2" "$bad" \
    bash "$src/scripts/device_chain.sh" > "$tmp/bad.txt" 2>&1
  check "device_chain.sh $bad exits 2" test $? -eq 2
done
env FG="$fg" OUT="$tmp/bad" CHAIN_DIR="$tmp/none" bash "$src/scripts/device_chain.sh" > "$tmp/bad.txt" 2>&1
check "device_chain.sh without ARGS exits 2" test $? -eq 2

# ---- device_long.sh: SEED_DB ----
"$fg" db --db "$tmp/seed.db" import "$src/data/corpus/kauers-moosbauer/444-47-mod2.exp" > /dev/null
check "the seed store holds the 47" grep -q 'rank 47' <<< "$("$fg" db --db "$tmp/seed.db" best --dims 4x4x4)"
ARGS_s="--dims 2x2x2 --threads 1 --target-rank 0 --seed 3" FG="$fg" OUT="$tmp/l" LONG_DIR="$tmp/long" \
  SEED_DB="$tmp/seed.db" bash "$src/scripts/device_long.sh" start 2 c:args:s wait 30 > "$tmp/long.txt" 2>&1
check "device_long.sh start/wait exit 0" test $? -eq 0
check "the job ran" grep -q 'args_ss_gc: exit' "$tmp/long.txt"
best=$("$fg" db --db "$tmp/long/args_ss_gc/store.db" best --dims 4x4x4 2>/dev/null)
check "the job's store began as the seed (<4,4,4> 47 there)" grep -q 'rank 47' <<< "$best"
check "the job's own search is stored beside it" grep -q 'rank 7 ' <<< "$("$fg" db --db "$tmp/long/args_ss_gc/store.db" best --dims 2x2x2)"
FG="$fg" OUT="$tmp/l" LONG_DIR="$tmp/long2" SEED_DB="$tmp/missing.db" \
  bash "$src/scripts/device_long.sh" start 2 c:args:s > "$tmp/long2.txt" 2>&1
check "SEED_DB that is not a file exits 2" test $? -eq 2
check "and starts no job" test ! -e "$tmp/long2"

# ---- device_checkpoint.sh: a run killed with SIGKILL leaves a whole pool ----
env FG="$fg" OUT="$tmp/ck" BACKEND=cpu THREADS=1 DIMS=4x4x4 SECONDS_EACH=3 EVERY=1s EVERY_LOST=1s KILL_AT=3 \
  RESUME_S=1 bash "$src/scripts/device_checkpoint.sh" > "$tmp/ck.txt" 2>&1
check "device_checkpoint.sh exits 0" test $? -eq 0
check "the run with checkpoints took some" grep -qE '^\| 4x4x4 3 s, --pool-every 1s \| [0-9.e+]+ \| [0-9]+ \| [1-9]' "$tmp/ck.txt"
check "the killed run's folder: files, all verify, nothing else" \
  grep -qE "folder \([1-9][0-9]* files, 0 not verifying, 0 other entries\)" "$tmp/ck.txt"
check "the next run started from that folder" grep -qE 'start [0-9]+ from [1-9][0-9]* schemes' "$tmp/ck.txt"

check_end
