#!/usr/bin/env bash
# The repository stands alone: no file that the build, the tests, the scripts or
# the program read may name a path outside it (the engineers' reading matter
# beside the checkout is never a dependency).  Run by ctest; the
# CI's second pass also builds and tests a copy with nothing beside it
# (scripts/test.sh).  Prints "N passed, N failed".
set -u
src=${FLIPGRAPH_SOURCE:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src" || exit 2
. "$src/tests/check_lib.sh"
# Files that are code, build or test input (docs may tell an engineer where reading matter lives).
files=$(find CMakeLists.txt cmake .ci scripts tests cli search db schemes verify export runtime cuda bench \
             -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' \
             -o -name '*.sh' -o -name '*.cmake' -o -name 'CMakeLists.txt' -o -name run \) 2>/dev/null |
        grep -v '^tests/check_standalone.sh$')
# What sits beside the checkout is what a file could reach by mistake: every
# folder there (the engineers' reading matter among them, wherever the clone
# lives) may not be named as "../NAME", unless the repository has an entry of
# that name itself (a module's "../search/search.h").  Absolute paths into the
# engineers' workspace are never right either.
top=$(ls -A)
siblings=$(cd .. && for d in */; do d=${d%/}; [ "$src" -ef "$d" ] && continue; echo "$d"; done)
no_outside_paths() {
  local hits="" name
  while IFS= read -r name; do
    [ ${#name} -ge 3 ] || continue
    grep -qxF -- "$name" <<< "$top" && continue
    hits+=$(grep -nF -- "../$name/" $files; grep -nE -- "\.\./$name([\"' ]|$)" $files)
  done <<< "$siblings"
  hits+=$(grep -nE '(^|[^A-Za-z0-9_.])/work/[A-Za-z_]' $files)
  [ -z "$hits" ] || { echo "$hits" | head -20; return 1; }
}
check "no code, build or test file names a path outside the repository" no_outside_paths
check "data/records.tsv is in the repository" test -s data/records.tsv
check "data/corpus holds the scheme files the tests read" test -s data/corpus/kauers-moosbauer/444-47-mod2.exp
check "data/README.md says where the data comes from" grep -q 'licence' data/README.md
check_end
