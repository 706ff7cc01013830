#!/usr/bin/env bash
# Remakes this folder's fixtures: train_graph_break.py run under `kinetoscope profile` on
# this machine's CPU (torch from the project's venv, Inductor's C++ kernels), two windows:
#   graph_break_stacks.json.gz  steps 3-5, steady, with Python stacks (where the break is)
#   recompile.json.gz           steps 10-13, the epoch's short last batch (step 12)
#                               recompiling the model for its new shape
# Usage: tests/data/compiled/make_traces.sh [KINETOSCOPE] [PYTHON]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kinetoscope=${1:-$here/../../../build/bin/kinetoscope}
python=${2:-$HOME/.local/share/kinetoscope/venv/bin/python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {  # NAME PROFILE-OPTIONS...
    local name=$1
    shift
    "$kinetoscope" profile --out "$work/$name" "$@" -- "$python" "$here/train_graph_break.py" > "$work/$name.log" 2>&1 \
        || { cat "$work/$name.log"; exit 1; }
    gzip -9 -c "$work/$name/trace.json" > "$here/$name.json.gz.tmp"
    mv "$here/$name.json.gz.tmp" "$here/$name.json.gz"
}
run graph_break_stacks --skip 3 --active 3 --with-stack
run recompile --skip 10 --active 4 --no-profile-memory
