#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks and builds flipgraph into build/.
# Usage: scripts/setup.sh            (BUILD_DIR=build, extra CMake options in CMAKE_ARGS)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake make gcc pkg-config libsqlite3-dev libxxhash-dev libzip-dev libcriterion-dev sqlite3 gnuplot-nox libm4ri-dev libopenblas-dev
          openmpi-bin libopenmpi-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} ${CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
echo "setup: built $BUILD_DIR/flipgraph"
