#!/usr/bin/env bash
# Set-up, then every test through ctest.  With CI=true (or SANITIZE=1) the
# tests run a second time under AddressSanitizer and UndefinedBehaviorSanitizer,
# and that pass runs in a copy of the repository in a new temporary folder with
# nothing beside it (scripts/standalone_copy.sh): the build and the tests must
# need nothing outside the repository.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
(cd build && ctest --output-on-failure -j "$(nproc)")

if [ "${CI:-}" = "true" ] || [ "${SANITIZE:-0}" = "1" ]; then
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/flipgraph-standalone.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  scripts/standalone_copy.sh "$tmp/flipgraph"
  echo "test: again under ASan+UBSan, in a standalone copy at $tmp/flipgraph (host code only)"
  cd "$tmp/flipgraph"
  BUILD_DIR=build-asan BUILD_TYPE=Debug \
    CMAKE_ARGS="-DFLIPGRAPH_SANITIZE=ON -DFLIPGRAPH_CUDA=OFF" scripts/setup.sh
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 FLIPGRAPH_SANITIZED=1 \
     ctest --output-on-failure -j "$(nproc)")
fi
