#!/usr/bin/env bash
# Remakes this folder's fixtures: train_graph_break.py run under `kinetoscope profile` on
# this machine's CPU (torch from the project's venv, Inductor's C++ kernels), two windows:
#   graph_break_stacks.json.gz  steps 3-5, steady, with Python stacks (where the break is)
#   recompile.json.gz           steps 10-13, the epoch's short last batch (step 12)
#                               recompiling the model for its new shape
#   two_blocks_graph_break.json.gz  train_two_blocks.py --mode break, recorded by its own
#                               torch.profiler (two cached graphs of one frame a step)
# Usage: tests/data/compiled/make_traces.sh [KINETOSCOPE] [PYTHON]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kinetoscope=${1:-$here/../../../build/bin/kinetoscope}
python=${2:-$HOME/.local/share/kinetoscope/venv/bin/python}
fixture() { bash "$here/../profile_fixture.sh" "$here/$1" "$kinetoscope" "$python" "${@:2}"; }
fixture graph_break_stacks.json.gz --skip 3 --active 3 --with-stack -- "$here/train_graph_break.py"
fixture recompile.json.gz --skip 10 --active 4 --no-profile-memory -- "$here/train_graph_break.py"
out=$(mktemp -d)
OMP_NUM_THREADS=1 "$python" "$here/train_two_blocks.py" --mode break --out "$out/trace.json"
gzip -9 -c "$out/trace.json" > "$here/two_blocks_graph_break.json.gz"
rm -rf "$out"
# cold_compile_unescaped_quote.json.gz: 1,000 events on each side of a Python frame whose
# name torch wrote with its quotes not escaped, cut from a cold compile's trace (the window
# holds the compilation; the whole trace is ~400 MB); bytes as torch wrote them.
out=$(mktemp -d)
OMP_NUM_THREADS=1 "$python" "$here/train_two_blocks.py" --mode compile --cold --steps 4 \
    --out "$out/trace.json"
"$python" "$here/excerpt_events.py" "$out/trace.json" \
    "$here/cold_compile_unescaped_quote.json.gz" 'validator.py(0):     """"' 1000
rm -rf "$out"
# two_blocks_eager.json.gz, two_blocks_dynamic.json.gz: train_two_blocks.py eager, and
# compiled with dynamic=True on sequences of 32, 48, 64 and 40 tokens in turn (no stacks)
for mode in eager dynamic; do
    out=$(mktemp -d)
    OMP_NUM_THREADS=1 "$python" "$here/train_two_blocks.py" --mode $mode --nostack --out "$out/trace.json"
    gzip -9 -c "$out/trace.json" > "$here/two_blocks_$mode.json.gz"
    rm -rf "$out"
done
