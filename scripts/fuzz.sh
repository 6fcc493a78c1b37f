#!/usr/bin/env bash
# Builds the libFuzzer target for the scheme readers and runs it for SECONDS.
#   scripts/fuzz.sh [SECONDS]        (default 60; run it under `nice -n 19` on a shared box)
# Not part of the normal build or CI: it compiles schemes/*.c directly with
# clang (-fsanitize=fuzzer,address,undefined).  The seed corpus is every file of
# $FLIPGRAPH_CORPUS (the scheme corpus; data/corpus is the repository's copy)
# plus tests/fuzz/seeds/; new inputs go to $FUZZ_DIR/corpus, crashes to
# $FUZZ_DIR/artifacts (FUZZ_DIR defaults to build-fuzz/).  Replay one:  build-fuzz/fuzz_read FILE
set -euo pipefail
secs=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${FUZZ_DIR:-$root/build-fuzz}
corpus=${FLIPGRAPH_CORPUS:-$root/data/corpus}
cc=${CC_FUZZ:-clang}
mkdir -p "$out/corpus" "$out/artifacts" "$out/seeds"

# With libzip (scripts/setup.sh installs it) the .npz reader is fuzzed too.
zip_flags=(-DFLIPGRAPH_HAVE_ZIP=0)
if pkg-config --exists libzip 2>/dev/null; then
  read -r -a zip_flags <<<"-DFLIPGRAPH_HAVE_ZIP=1 $(pkg-config --cflags --libs libzip)"
fi
"$cc" -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root" "$root"/tests/fuzz/fuzz_read.c "$root"/schemes/*.c "${zip_flags[@]}" -o "$out/fuzz_read"

# Seeds: the published files and ours (copied: libFuzzer only reads seed folders).
if [ -d "$corpus" ]; then
  for f in "$corpus"/*/*; do
    [ -f "$f" ] && cp -f "$f" "$out/seeds/$(basename "$(dirname "$f")")_$(basename "$f")"
  done
fi
for f in "$root"/data/alphatensor/*.npz; do
  [ -f "$f" ] && cp -f "$f" "$out/seeds/alphatensor_$(basename "$f")"
done
if [ -d "$root/tests/fuzz/seeds" ]; then
  cp -f "$root"/tests/fuzz/seeds/* "$out/seeds/" 2>/dev/null || true
fi

# -timeout: no input may take a second (the readers are linear); -rss_limit_mb:
# no input may make them allocate without bound.
exec "$out/fuzz_read" -max_total_time="$secs" -timeout=5 -rss_limit_mb=1024 -max_len=65536 \
  -print_final_stats=1 -dict="$root/tests/fuzz/read.dict" -artifact_prefix="$out/artifacts/" \
  "$out/corpus" "$out/seeds"
