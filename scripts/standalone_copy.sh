#!/usr/bin/env bash
# Copies this checkout (tracked files and untracked ones git does not ignore:
# what a commit of the working tree would hold) into DEST, a new folder with
# nothing beside it, as a fresh clone would be.  CI builds and tests the copy
# (scripts/test.sh) to prove that nothing reaches outside the repository.
# Usage: scripts/standalone_copy.sh DEST
set -euo pipefail
dest=${1:?usage: scripts/standalone_copy.sh DEST}
cd "$(dirname "$0")/.."
[ ! -e "$dest" ] || { echo "standalone_copy: $dest exists; give a new folder" >&2; exit 2; }
mkdir -p "$dest"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -xf - -C "$dest"
  # the commit the copy was made from, for `flipgraph version` in the copy's build
  cp -r .git "$dest/.git"
else
  tar --exclude='./build*' -cf - . | tar -xf - -C "$dest"
fi
