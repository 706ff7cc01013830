#!/usr/bin/env bash
# Before a commit: the layout, the static analysis of what changed, and the fast tests.
#   scripts/check.sh [BASE]    BASE (default: HEAD) is what the change is measured from
# 1. scripts/format.sh --check   every tracked C++ file follows .clang-format
#                                (scripts/format.sh fixes them)
# 2. scripts/tidy.sh --changed   clang-tidy on the sources of core/ and app/ that differ
#                                from BASE (uncommitted ones included)
# 3. the build in build/ and its tests not labelled `slow` (scripts/test.sh runs them all)
# Stops at the first step that fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-HEAD}
bash "$root/scripts/format.sh" --check
if [ ! -f "$root/build/build.ninja" ]; then
    bash "$root/scripts/build.sh" "$root/build"
else
    cmake --build "$root/build" --parallel "$(nproc)"
fi
bash "$root/scripts/tidy.sh" --changed "$base"
cd "$root/build"
ctest --output-on-failure --parallel "$(nproc)" --label-exclude slow
echo "check: format, tidy and the fast tests pass"
