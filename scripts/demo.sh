#!/usr/bin/env bash
# The main job on the embedded default: set-up, then `flipgraph demo` (a short
# search of <3,3,3> to rank 23 that finds, verifies, stores and uses a scheme).
# Extra arguments go to `flipgraph demo` (e.g. --db PATH --seed S).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/flipgraph demo "$@"
