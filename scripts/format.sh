#!/usr/bin/env bash
# The house's layout (.clang-format) over every tracked C++ file.
#   scripts/format.sh            rewrites the files in place
#   scripts/format.sh --check    changes nothing; lists each file that differs and fails
#   scripts/format.sh [--check] FILE...   only those files
# The formatter is the distribution's clang-format (14 on Debian 12): one version for
# everybody, since another version may lay the same code out differently.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
check=0
if [ "${1:-}" = "--check" ]; then
    check=1
    shift
fi
formatter=${CLANG_FORMAT:-clang-format}
command -v "$formatter" > /dev/null || { echo "format.sh: $formatter not found (scripts/setup.sh installs it)" >&2; exit 2; }
if [ $# -gt 0 ]; then
    files=("$@")
else
    mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.inc')
fi
[ ${#files[@]} -gt 0 ] || exit 0
if [ $check = 1 ]; then
    # One line per file that differs; the whole report (what would change) on request.
    report=$(mktemp)
    trap 'rm -f "$report"' EXIT
    if ! printf '%s\0' "${files[@]}" | xargs -0 -P "$(nproc)" -n 20 "$formatter" --dry-run --Werror \
        2> "$report"; then
        grep -o '^[^:]*:[0-9]*:[0-9]*: error' "$report" | cut -d: -f1 | sort -u |
            sed 's/^/not formatted: /'
        echo "format.sh: run scripts/format.sh to fix (details: $formatter --dry-run FILE)" >&2
        exit 1
    fi
    echo "format: ${#files[@]} files follow .clang-format"
else
    printf '%s\0' "${files[@]}" | xargs -0 -P "$(nproc)" -n 20 "$formatter" -i
fi
