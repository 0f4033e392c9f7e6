#!/usr/bin/env bash
# Builds one CMake build tree, showing only errors and warnings (compiler,
# linker, make and CMake lines, not a file whose name holds "error"), and fails
# (exit 1, saying so) when the build fails.
# Usage: scripts/build.sh DIR [more cmake --build options, e.g. --target T]
set -euo pipefail
dir=$1
shift
# Under pipefail the pipeline fails with cmake; the filter itself never does.
cmake --build "$dir" -j"$(nproc)" "$@" 2>&1 | { grep -E "error:|warning:|Error [0-9]|CMake Error" || true; } ||
  { echo "build failed in $dir (run: cmake --build $dir $*)" >&2; exit 1; }
