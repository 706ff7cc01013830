#!/usr/bin/env bash
# Configures and builds Kinetoscope. Usage: scripts/build.sh [BUILD_DIR] [CMAKE_ARGS...]
# Runs scripts/setup.sh first (a no-op when everything is installed). KINETOSCOPE_WERROR=ON
# in the environment (CI sets it) makes every compiler warning an error;
# KINETOSCOPE_DEBUG_INFO=lines (CI sets it too) writes line tables only (CMakeLists.txt).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
bash "$root/scripts/setup.sh"
jobs=$(nproc)
mkdir -p "$build"
# torch's CMake package is chatty; its output is kept in the log and shown on failure.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DKINETOSCOPE_WERROR="${KINETOSCOPE_WERROR:-OFF}" \
    -DKINETOSCOPE_DEBUG_INFO="${KINETOSCOPE_DEBUG_INFO:-full}" "$@" > "$build/configure.log" 2>&1 \
    || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --parallel "$jobs"
