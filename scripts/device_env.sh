# Sourced by the scripts/device_*.sh scripts (docs/device.md): what every one of
# them needs before it configures on the GPU machine, in one place.  That
# machine lacks the SQLite and xxHash headers and nothing can be installed
# there: the caller carries the git-ignored deps/ folder (apt-get download
# libsqlite3-dev libxxhash-dev, and Open MPI's packages for device_mpi.sh),
# unpacked here under FG_DEPS; the build has no CPU BLAS (-DFLIPGRAPH_BLAS=OFF)
# and no libzip (-DFLIPGRAPH_ZIP=OFF: .npz files are refused there).
#
#   . scripts/device_env.sh          (from the repository root)
#   fg_device_deps [PATTERN...]      unpacks deps/PATTERN (default: the SQLite
#                                    and xxHash -dev packages) under FG_DEPS
#   cmake -S . -B DIR "${FG_DEVICE_CMAKE[@]}" [more -D...]
#   fg_say TEXT                      "== TEXT (N s)" on the screen and in $LOG, N the
#                                    seconds since $T0 (the caller sets both)
#   fg_step NAME TIMEOUT CMD...      fg_say NAME, then CMD under timeout, its output
#                                    to $LOG, "   rc=STATUS" shown; returns the status
#   fg_begin LOGNAME                 $OUT made, LOG=$OUT/LOGNAME emptied, T0 now
#   fg_build TARGET...               fg_device_deps, then B=build-device configured and
#                                    the TARGETs built, output in $OUT/build.log (its
#                                    tail on failure: returns 2)
#   fg_banner TEXT                   fg_say the GPU's name, the date, the commit and TEXT:
#                                    the first line of a run's log
#   fg_wants STEP                    true where STEP is a word of $STEPS (the steps a
#                                    script was asked to run)
#   fg_best_ranks FILE               the best rank of each progress row of a search's
#                                    log FILE, on one line
FG_DEPS=${FG_DEPS:-/tmp/fgdeps}

fg_device_deps() {
  mkdir -p "$FG_DEPS"
  local pats=("$@") f
  [ ${#pats[@]} -gt 0 ] || pats=("libsqlite3-dev_*.deb" "libxxhash-dev_*.deb")
  for p in "${pats[@]}"; do
    for f in deps/$p; do [ -f "$f" ] && dpkg -x "$f" "$FG_DEPS"; done
  done
  return 0
}

FG_SQLITE_LIB=$(ls /lib/x86_64-linux-gnu/libsqlite3.so.0 /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 2>/dev/null | head -1)
FG_DEVICE_CMAKE=(-DCMAKE_BUILD_TYPE=Release -DFLIPGRAPH_CUDA_ARCH=90a -DFLIPGRAPH_BLAS=OFF -DFLIPGRAPH_ZIP=OFF
  "-DSQLite3_INCLUDE_DIR=$FG_DEPS/usr/include" "-DSQLite3_LIBRARY=$FG_SQLITE_LIB"
  "-DXXHASH_INCLUDE_DIR=$FG_DEPS/usr/include")

fg_say() { echo "== $* ($(($(date +%s) - T0)) s)" | tee -a "$LOG"; }

fg_step() {
  local name=$1 to=$2
  shift 2
  fg_say "$name"
  timeout "$to" "$@" >>"$LOG" 2>&1
  local rc=$?
  echo "   rc=$rc" | tee -a "$LOG"
  return $rc
}

fg_begin() {
  mkdir -p "$OUT"
  LOG=$OUT/$1
  : > "$LOG"
  T0=$(date +%s)
}

fg_build() {
  fg_device_deps
  B=build-device
  cmake -S . -B $B "${FG_DEVICE_CMAKE[@]}" > "$OUT/build.log" 2>&1 &&
    cmake --build $B -j"$(nproc)" --target "$@" >> "$OUT/build.log" 2>&1 || {
    tail -30 "$OUT/build.log"; return 2; }
}

fg_banner() {
  fg_say "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(date -u '+%F %TZ'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $*"
}

fg_wants() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

fg_best_ranks() { grep -E '^ +[0-9]+:' "$1" | awk '{printf "%s ", $4}'; }
