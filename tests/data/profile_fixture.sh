#!/usr/bin/env bash
# One fixture trace from a real run, for the fixture folders' make scripts: SCRIPT run under
# `kinetoscope profile` with the given options, its profiler window's trace gzipped to DEST
# (written whole or not at all). The run's output is shown only when it fails.
# Usage: tests/data/profile_fixture.sh DEST KINETOSCOPE PYTHON [PROFILE-OPTIONS...] -- SCRIPT [ARGS...]
set -euo pipefail
dest=$1 kinetoscope=$2 python=$3
shift 3
options=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    options+=("$1")
    shift
done
shift  # the --
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$kinetoscope" profile --out "$work/run" "${options[@]}" -- "$python" "$@" > "$work/run.log" 2>&1 \
    || { cat "$work/run.log"; exit 1; }
gzip -9 -c "$work/run/trace.json" > "$dest.tmp"
mv "$dest.tmp" "$dest"
