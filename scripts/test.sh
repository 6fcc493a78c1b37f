#!/usr/bin/env bash
# Set-up, then every test through ctest.  With CI=true (or SANITIZE=1) the
# tests run a second time under AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
(cd build && ctest --output-on-failure -j "$(nproc)")

if [ "${CI:-}" = "true" ] || [ "${SANITIZE:-0}" = "1" ]; then
  echo "test: again under ASan+UBSan (build-asan, host code only)"
  BUILD_DIR=build-asan BUILD_TYPE=Debug \
    CMAKE_ARGS="-DFLIPGRAPH_SANITIZE=ON -DFLIPGRAPH_CUDA=OFF" scripts/setup.sh
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 FLIPGRAPH_SANITIZED=1 \
     ctest --output-on-failure -j "$(nproc)")
fi
