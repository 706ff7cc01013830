#!/usr/bin/env bash
# Stages the third-party headers and libraries Kinetoscope builds against (simdjson,
# nlohmann-json, zlib) from this machine's Debian packages into one folder, for a machine
# that lacks them (the lent GPU machine has LibTorch, CMake and a compiler, but no
# package registry). Configure there with -DKINETOSCOPE_DEPS_DIR=FOLDER.
#   Usage: scripts/stage-deps.sh [FOLDER]     (default: .deps, ignored by git)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/.deps}
lib=/usr/lib/$(gcc -print-multiarch)
for f in /usr/include/simdjson.h /usr/include/nlohmann/json.hpp /usr/include/zlib.h "$lib/libsimdjson.so"; do
    [[ -e $f ]] || { echo "stage-deps: $f is missing: run scripts/setup.sh" >&2; exit 2; }
done
rm -rf "$out"
mkdir -p "$out/include" "$out/lib"
cp /usr/include/simdjson.h /usr/include/zlib.h /usr/include/zconf.h "$out/include/"
cp -r /usr/include/nlohmann "$out/include/"
# Real files under their sonames: the loader looks for these names, and the device
# tool carries plain files, not links.
simdjson_so=$(readlink -f "$lib/libsimdjson.so")
cp "$simdjson_so" "$out/lib/$(objdump -p "$simdjson_so" | awk '/SONAME/ {print $2}')"
# zlib apart, so that it cannot shadow the machine's own libz.so.1 on the run path.
mkdir -p "$out/lib/zlib"
cp "$(readlink -f "$lib/libz.so.1")" "$out/lib/zlib/libz.so.1"
du -sh "$out" | awk '{print "stage-deps: " $1 " in " $2}'
