#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over the C++ sources of core/ and app/, from a build's
# compile_commands.json; any finding fails.
#   scripts/tidy.sh                     every source file of core/ and app/
#   scripts/tidy.sh --changed [BASE]    those a change touches: the files that differ from
#                                       BASE (default: HEAD) plus uncommitted ones; a
#                                       changed header brings in the sources beside it,
#                                       a changed .inc the sources that include it
#   scripts/tidy.sh FILE...             the given source files
# BUILD_DIR (default build/) must have been built once (scripts/build.sh): app/ sources
# include headers that the build generates. Runs on every core (TIDY_JOBS to change).
# clang-tidy is the pinned one scripts/setup.sh puts in the venv (CLANG_TIDY to change).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-$root/build}
jobs=${TIDY_JOBS:-$(nproc)}
command -v run-clang-tidy > /dev/null || { echo "tidy.sh: run-clang-tidy not found (scripts/setup.sh installs clang-tidy)" >&2; exit 2; }
tidy=${CLANG_TIDY:-${KINETOSCOPE_VENV:-$HOME/.local/share/kinetoscope/venv}/bin/clang-tidy}
[ -x "$tidy" ] || { echo "tidy.sh: no clang-tidy at $tidy (scripts/setup.sh installs it)" >&2; exit 2; }
[ -f "$build/compile_commands.json" ] || { echo "tidy.sh: no $build/compile_commands.json: build first (scripts/build.sh)" >&2; exit 2; }

in_scope() { grep -E '^(core|app)/.*\.(cpp|h|inc)$' || true; }
if [ "${1:-}" = "--changed" ]; then
    base=${2:-HEAD}
    mapfile -t changed < <({ git diff --name-only --diff-filter=d "$base"; git ls-files --others --exclude-standard; } | in_scope | sort -u)
    sources=()
    for file in "${changed[@]}"; do
        case $file in
        *.cpp) sources+=("$file") ;;
        *.inc) mapfile -t -O "${#sources[@]}" sources < <(git grep -l -F "\"$file\"" -- 'core/*.cpp' 'app/*.cpp') ;;
        *) for beside in "${file%.*}".cpp "${file%.*}"_*.cpp; do [ -f "$beside" ] && sources+=("$beside"); done ;;
        esac
    done
    if [ ${#sources[@]} -eq 0 ]; then
        echo "tidy: no source of core/ or app/ changed since $base"
        exit 0
    fi
    mapfile -t sources < <(printf '%s\n' "${sources[@]}" | sort -u)
elif [ $# -gt 0 ]; then
    sources=("$@")
else
    mapfile -t sources < <(git ls-files 'core/*.cpp' 'app/*.cpp')
fi
# Only the files the build compiles (the engine's sources are absent from a build without
# LibTorch, the GUI's from a CLI-only one).
mapfile -t compiled < <(python3 - "$build/compile_commands.json" "$root" "${sources[@]}" <<'PY'
import json, os, sys
database, root, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
known = {os.path.realpath(entry["file"]) for entry in json.load(open(database))}
for path in wanted:
    if os.path.realpath(os.path.join(root, path)) in known:
        print(os.path.join(root, path))
PY
)
if [ ${#compiled[@]} -eq 0 ]; then
    echo "tidy: none of the ${#sources[@]} files is compiled in $build"
    exit 0
fi
log=$build/tidy.log  # the whole output, kept
start=$(date +%s)
# Files found clean before, with nothing they are checked from changed since, are not
# checked again (scripts/tidy_cache.py; TIDY_CACHE=0 checks every file).
cache=${TIDY_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/kinetoscope/tidy}
keys=$build/tidy.keys
: > "$keys"
total=${#compiled[@]}
if [ "${TIDY_CACHE:-1}" != 0 ]; then
    if python3 "$root/scripts/tidy_cache.py" pending "$build" "$root" "$cache" \
        "$("$tidy" --version)" "$keys" "${compiled[@]}" > "$keys.pending"; then
        mapfile -t compiled < "$keys.pending"
    else
        echo "tidy: the cache could not be read; every file is checked" >&2
        : > "$keys"
    fi
    if [ ${#compiled[@]} -eq 0 ]; then
        echo "tidy: $total files clean (all unchanged since they were found clean)"
        exit 0
    fi
fi
# run-clang-tidy takes regular expressions: each path is matched whole, its dots escaped.
patterns=()
for file in "${compiled[@]}"; do patterns+=("^${file//./\\.}\$"); done
# The findings as file:line:column: message [check], without the terminal's colours.
status=0
run-clang-tidy -quiet -clang-tidy-binary "$tidy" -p "$build" -j "$jobs" "${patterns[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' > "$log" ||
    status=$?
if [ $status = 0 ] && ! grep -q -E '(warning|error): ' "$log"; then
    python3 "$root/scripts/tidy_cache.py" record "$cache" "$keys" ||
        echo "tidy: the clean files could not be recorded in $cache" >&2
    echo "tidy: $total files clean, ${#compiled[@]} of them checked, in $(( $(date +%s) - start )) s"
    exit 0
fi
grep -E '(warning|error): ' "$log" | sort -u || tail -20 "$log"
echo "tidy: findings above in ${#compiled[@]} files ($(( $(date +%s) - start )) s; the whole output: $log)" >&2
exit 1
