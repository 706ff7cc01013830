#!/usr/bin/env bash
# Remakes this folder's fixtures: train_block.py run twice under `kinetoscope profile` on
# this machine's CPU (torch from the project's venv), steps 5-9 of each:
#   eager.json.gz     the model run eagerly
#   compiled.json.gz  the same model under torch.compile (Inductor's C++ kernels, recorded
#                     as ops: TORCHINDUCTOR_CPP_ENABLE_KERNEL_PROFILE=1)
# Usage: tests/data/eager_vs_compiled/make_traces.sh [KINETOSCOPE] [PYTHON]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kinetoscope=${1:-$here/../../../build/bin/kinetoscope}
python=${2:-$HOME/.local/share/kinetoscope/venv/bin/python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {  # NAME SCRIPT-OPTIONS...
    local name=$1
    shift
    TORCHINDUCTOR_CPP_ENABLE_KERNEL_PROFILE=1 "$kinetoscope" profile --out "$work/$name" --skip 5 --active 5 \
        --no-profile-memory -- "$python" "$here/train_block.py" "$@" > "$work/$name.log" 2>&1 \
        || { cat "$work/$name.log"; exit 1; }
    gzip -9 -c "$work/$name/trace.json" > "$here/$name.json.gz.tmp"
    mv "$here/$name.json.gz.tmp" "$here/$name.json.gz"
}
run eager
run compiled --compile
