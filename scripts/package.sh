#!/usr/bin/env bash
# Makes the packages of an already-built tree with CPack: the Debian package
# (kinetoscope_VERSION_ARCH.deb) and a tarball, in BUILD_DIR/package/.
#   scripts/package.sh [BUILD_DIR]      (default: build/)
# Prints the .deb's path, alone, on standard output (the tarball's goes to standard error);
# CPack's log stays in BUILD_DIR/package/cpack.log (shown on failure). Install it with
#   sudo apt-get install ./build/package/kinetoscope_*.deb
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" 2>/dev/null && pwd) \
    || { echo "package: no build folder ${1:-$root/build}: build first (scripts/build.sh)" >&2; exit 1; }
[ -f "$build/CPackConfig.cmake" ] \
    || { echo "package: $build is not a configured build folder (no CPackConfig.cmake)" >&2; exit 1; }
[ -x "$build/bin/kinetoscope" ] \
    || { echo "package: $build/bin/kinetoscope is missing: build first (scripts/build.sh $build)" >&2; exit 1; }
command -v dpkg-deb >/dev/null || { echo "package: dpkg-deb is missing (Debian's dpkg)" >&2; exit 1; }

out="$build/package"
rm -rf "$out"
mkdir -p "$out"
# CPack installs the tree into a staging folder (building first whatever is out of date),
# strips the binaries and writes each generator's package.
if ! cpack --config "$build/CPackConfig.cmake" -B "$out" > "$out/cpack.log" 2>&1; then
    cat "$out/cpack.log" >&2
    echo "package: cpack failed (log: $out/cpack.log)" >&2
    exit 1
fi
rm -rf "$out/_CPack_Packages"
shopt -s nullglob
debs=("$out"/kinetoscope_*.deb)
((${#debs[@]} == 1)) || { echo "package: expected one kinetoscope_*.deb in $out, found ${#debs[@]}" >&2; exit 1; }
for f in "$out"/*.tar.gz; do echo "package: also $f" >&2; done
echo "${debs[0]}"
