#!/usr/bin/env bash
# The cost of MPI on one GPU (docs/cluster.md, "Measured"): on the GPU machine,
# `mpirun -n 1 flipgraph search --mpi --backend gpu` against the plain GPU
# search, same seeds, <4,4,4> to 47: flips/s and the time to 47 (or the best
# rank in the time given).  NOT RUN YET: written on the CPU box, where no GPU is.
#
# Usage: scripts/device_mpi.sh [SEEDS] [TIME]      (default "1 2 3", 120s)
#
# The GPU machine has no Open MPI and installs nothing (docs/device.md).  Carry
# it in deps/ like the -dev packages, downloaded on a Debian box:
#   (cd deps && apt-get download libsqlite3-dev libxxhash-dev libopenmpi-dev libopenmpi3 \
#      openmpi-bin openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 \
#      libfabric1 libucx0 libnl-3-200 libnl-route-3-200 libibverbs1 librdmacm1 libpsm2-2 libpsm-infinipath1 libmunge2 libnuma1)
# They are unpacked into /tmp and Open MPI is relocated there with OPAL_PREFIX.
# A Debian build of Open MPI may not run on that machine's system; then this
# script says so (exit 3) and the measurement waits for a machine with MPI.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT"
SEEDS=${1:-1 2 3}
TIME=${2:-120s}
D=/tmp/fgdeps
mkdir -p $D
for p in deps/*.deb; do [ -f "$p" ] && dpkg -x "$p" $D; done
if ! command -v mpirun > /dev/null; then
  M=$D/usr/lib/x86_64-linux-gnu/openmpi
  [ -x $D/usr/bin/mpirun.openmpi ] && ln -sf mpirun.openmpi $D/usr/bin/mpirun
  export OPAL_PREFIX=$M PATH=$D/usr/bin:$PATH
  export LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu:$M/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  MPIARGS=(-DMPI_C_INCLUDE_DIRS=$M/include -DMPI_C_LIB_NAMES=mpi -DMPI_mpi_LIBRARY=$M/lib/libmpi.so)
else
  MPIARGS=()
fi
command -v mpirun > /dev/null || { echo "no mpirun here and none in deps/ (see the head of this script)"; exit 3; }
SQL=$(ls /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 /lib/x86_64-linux-gnu/libsqlite3.so.0 2>/dev/null | head -1)
cmake -S . -B build-mpi -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90a -DFLIPGRAPH_BLAS=OFF -DFLIPGRAPH_ZIP=OFF \
  -DSQLite3_INCLUDE_DIR=$D/usr/include -DSQLite3_LIBRARY=$SQL -DXXHASH_INCLUDE_DIR=$D/usr/include \
  "${MPIARGS[@]}" > "$OUT/mpi_cmake.log" 2>&1 &&
  cmake --build build-mpi -j "$(nproc)" --target flipgraph > "$OUT/mpi_build.log" 2>&1 ||
  { echo "build FAILED"; tail -20 "$OUT/mpi_cmake.log" "$OUT/mpi_build.log"; exit 3; }
F=$ROOT/build-mpi/flipgraph
$F version
$F version | grep -q "mpi: built" || { echo "built without MPI (CMake did not find it): $OUT/mpi_cmake.log"; exit 3; }
MR=(mpirun -n 1); [ "$(id -u)" = 0 ] && MR+=(--allow-run-as-root)
echo "== $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%FT%TZ): <4,4,4> to 47, $TIME"
for seed in $SEEDS; do
  echo "seed $seed plain: $($F search --dims 4x4x4 --backend gpu --target-rank 47 --time "$TIME" --seed "$seed" -q 2>&1 | tail -1)"
  echo "seed $seed mpi-1: $("${MR[@]}" "$F" search --mpi --dims 4x4x4 --backend gpu --target-rank 47 --time "$TIME" --seed "$seed" -q 2>&1 | grep "^best rank" | tail -1)"
done
