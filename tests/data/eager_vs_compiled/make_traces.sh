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
# Inductor's C++ kernels recorded as ops, in the compiled run (and harmless in the eager one).
export TORCHINDUCTOR_CPP_ENABLE_KERNEL_PROFILE=1
fixture() {  # NAME SCRIPT-OPTIONS...
    bash "$here/../profile_fixture.sh" "$here/$1.json.gz" "$kinetoscope" "$python" --skip 5 --active 5 \
        --no-profile-memory -- "$here/train_block.py" "${@:2}"
}
fixture eager
fixture compiled --compile
