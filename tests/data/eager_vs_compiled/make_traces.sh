#!/usr/bin/env bash
# Remakes this folder's fixtures: train_block.py run under `kinetoscope profile` on this
# machine's CPU (torch from the project's venv), steps 5-9 of each:
#   eager.json.gz     the model run eagerly
#   compiled.json.gz  the same model under torch.compile (Inductor's C++ kernels, recorded
#                     as ops: TORCHINDUCTOR_CPP_ENABLE_KERNEL_PROFILE=1)
#   compiled_unnamed.json.gz, compiled_unnamed_stacks.json.gz
#                     the compiled run with the kernel profile off (torch's default): its
#                     C++ kernels are named nowhere in the trace; with Python stacks, their
#                     frames ("<built-in function kernel>") hold their time
# Usage: tests/data/eager_vs_compiled/make_traces.sh [KINETOSCOPE] [PYTHON]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kinetoscope=${1:-$here/../../../build/bin/kinetoscope}
python=${2:-$HOME/.local/share/kinetoscope/venv/bin/python}
fixture() {  # NAME KERNEL-PROFILE [PROFILE-OPTIONS...] -- [SCRIPT-OPTIONS...]
    local name=$1 profile=$2
    shift 2
    local options=()
    while [ "$1" != "--" ]; do
        options+=("$1")
        shift
    done
    shift
    TORCHINDUCTOR_CPP_ENABLE_KERNEL_PROFILE=$profile \
        bash "$here/../profile_fixture.sh" "$here/$name.json.gz" "$kinetoscope" "$python" \
        --skip 5 --active 5 --no-profile-memory "${options[@]}" -- "$here/train_block.py" "$@"
}
fixture eager 1 --
fixture compiled 1 -- --compile
fixture compiled_unnamed 0 -- --compile
fixture compiled_unnamed_stacks 0 --with-stack -- --compile
