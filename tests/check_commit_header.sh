#!/usr/bin/env bash
# cmake/commit.cmake, the header that names the build's commit (the banners,
# `flipgraph version`, the run records), on a throwaway git repository inside
# a temporary folder: a clean tree gives HEAD's 12-digit hash, a change to a
# tracked file adds +dirty, an untracked file alone does not, a folder that is
# not a git checkout gives "unknown", and the header is rewritten only when
# its text changes.  Prints "N passed, N failed"; exit 1 on any failure.
set -u
src=${FLIPGRAPH_SOURCE:-$(cd "$(dirname "$0")/.." && pwd)}
command -v git > /dev/null || { echo "git is not installed"; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fg-commit.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/check_lib.sh"
header() { cmake -DSRC="$1" -DOUT="$tmp/h.h" -P "$src/cmake/commit.cmake" && cat "$tmp/h.h"; }
repo=$tmp/repo
mkdir -p "$repo" && cd "$repo" && git init -q . && echo one > a.txt && git add a.txt &&
  git -c user.name=t -c user.email=t@t commit -q -m one || { echo "cannot make a git repository in $tmp"; exit 2; }
head=$(git rev-parse --short=12 HEAD)
check "a clean tree names HEAD" test "$(header "$repo")" = "#define FLIPGRAPH_GIT_COMMIT \"$head\""
before=$(stat -c %Y%N "$tmp/h.h")
sleep 1
header "$repo" > /dev/null
check "the same commit leaves the header untouched" test "$(stat -c %Y%N "$tmp/h.h")" = "$before"
echo new > b.txt
check "an untracked file is not a change" test "$(header "$repo")" = "#define FLIPGRAPH_GIT_COMMIT \"$head\""
echo two > a.txt
check "a changed tracked file adds +dirty" test "$(header "$repo")" = "#define FLIPGRAPH_GIT_COMMIT \"$head+dirty\""
mkdir -p "$tmp/plain"
check "a folder outside git is unknown" test "$(GIT_CEILING_DIRECTORIES=$tmp header "$tmp/plain")" = "#define FLIPGRAPH_GIT_COMMIT \"unknown\""
check_end
