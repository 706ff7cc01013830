#!/usr/bin/env bash
# Fails when the AVX2-compiled event parser object defines a function that the linker
# could share with the rest of the program (a weak symbol: an inline function or template
# instantiation). The linker keeps one copy of each for the whole program; were it this
# one, code built for every CPU would run AVX2 instructions. Weak data (lookup tables,
# static locals) is the same on every CPU and allowed, and so are functions of
# simdjson's haswell namespace, which only this object instantiates. See
# core/trace/CMakeLists.txt.
#   Usage: tests/check_avx2_object.sh OBJECT...
set -euo pipefail
status=0
for object in "$@"; do
    # nm: W = weak function or object symbol; the section tells code from data.
    shared=$(nm --defined-only --format=sysv "$object" | awk -F'|' '
        { gsub(/ /, "", $3); gsub(/ /, "", $7) }
        ($3 == "W" || $3 == "w") && $7 ~ /^\.text/ { print $1 }' | c++filt | grep -v "haswell::" || true)
    if [[ -n $shared ]]; then
        echo "check_avx2_object: $object defines functions the linker may share:" >&2
        echo "$shared" | sed 's/^/  /' >&2
        status=1
    fi
done
[[ $status == 0 ]] && echo "check_avx2_object: no shared functions in $*"
exit $status
