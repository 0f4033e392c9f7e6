#!/usr/bin/env bash
# Installs the Debian packages lockstep needs (only those missing) and builds
# the Release tree in build/. Idempotent and quick when everything is present.
# Usage: scripts/setup.sh            (as root on Debian 12, or with sudo available)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(build-essential cmake pkg-config clang libclang-rt-14-dev
          libtbb-dev libboost-program-options-dev liblz4-dev liblzma-dev libzstd-dev xz-utils
          libprotobuf-dev protobuf-compiler libgtest-dev libbenchmark-dev gnuplot-nox
          nlohmann-json3-dev libtomlplusplus-dev libcsv-dev slurm-wlm munge)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# clang by default (CXX chooses another compiler): it builds this tree in
# about half of g++'s time, and its binary runs about as fast (README,
# Tests; bench/README, "The compiler").
if [ ! -f build/CMakeCache.txt ]; then
  CXX=${CXX:-clang++} cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
scripts/build.sh build
