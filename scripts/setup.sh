#!/usr/bin/env bash
# One-time set-up of everything Kinetoscope needs on a Debian 12 machine.
# Idempotent: every step checks first and skips what is already there.
#   - Debian packages: compiler, CMake, Ninja, Python's headers (torch.compile's inductor
#     builds its CPU kernels with g++ against them), Qt 6, QCustomPlot (Qt 6), nlohmann-json,
#     simdjson, zlib, Xvfb (GUI tests), clang + compiler-rt (the fuzzers, scripts/fuzz.sh),
#     clang-format (scripts/format.sh) and run-clang-tidy (scripts/tidy.sh's parallel runner)
#   - the pinned torch wheel (LibTorch for core/engine) and the pinned clang-tidy wheel
#     (scripts/tidy.sh), in a virtual environment that sees the system site-packages,
#     shared by every clone on the machine.
set -euo pipefail

TORCH_VERSION=2.11.0
# clang-tidy 22 rather than Debian's 14: from LLVM 22 it leaves the code of system headers
# (Qt, LibTorch, the standard library) unvisited, and the whole tree is checked in about
# 2.6x less time (673 s against ~1750 s on 2 cores), which CI pays in full on a machine
# whose tidy cache is cold.
CLANG_TIDY_VERSION=22.1.8
VENV=${KINETOSCOPE_VENV:-$HOME/.local/share/kinetoscope/venv}

log() { printf '[setup] %s\n' "$*"; }

packages=(build-essential cmake ninja-build ccache pkg-config python3 python3-venv python3-dev
          qt6-base-dev qt6-svg-dev libqcustomplot-dev nlohmann-json3-dev libsimdjson-dev zlib1g-dev
          xvfb xauth clang libclang-rt-14-dev clang-format clang-tidy desktop-file-utils appstream)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
    log "installing Debian packages: ${missing[*]}"
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    log "Debian packages: all present"
fi

# Prefer the python3 on PATH (pyenv or Debian's); the venv inherits its site-packages so
# a torch that is already installed there is reused instead of downloaded again.
if [ ! -x "$VENV/bin/python" ]; then
    log "creating virtual environment $VENV"
    mkdir -p "$(dirname "$VENV")"
    python3 -m venv --system-site-packages "$VENV"
fi
have_torch() {
    "$VENV/bin/python" - "$TORCH_VERSION" <<'PY' 2>/dev/null
import sys, importlib.metadata as md
sys.exit(0 if md.version("torch").split("+")[0] == sys.argv[1] else 1)
PY
}
if have_torch; then
    log "torch $TORCH_VERSION: present"
else
    log "installing torch==$TORCH_VERSION (several GB with its CUDA libraries; once per machine)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "torch==$TORCH_VERSION"
    have_torch || { echo "[setup] torch $TORCH_VERSION did not install" >&2; exit 1; }
fi
if [ "$("$VENV/bin/clang-tidy" --version 2>/dev/null | sed -n 's/.*LLVM version \([0-9.]*\).*/\1/p')" = "$CLANG_TIDY_VERSION" ]; then
    log "clang-tidy $CLANG_TIDY_VERSION: present"
else
    log "installing clang-tidy==$CLANG_TIDY_VERSION (a wheel of some 40 MB)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "clang-tidy==$CLANG_TIDY_VERSION"
fi
log "done (python for CMake: $VENV/bin/python)"
