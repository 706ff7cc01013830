#!/usr/bin/env bash
# Checks the build without Qt (KINETOSCOPE_GUI=OFF) from staged dependencies
# (KINETOSCOPE_DEPS_DIR): the configuration scripts/gpu-check.sh uses on the GPU machine.
# Builds the command-line tool without the engine (the engine is Qt-free and built by
# scripts/build.sh), then checks that it links no Qt and summarises the sample trace, and
# that `run` without kinetoscope-engine beside it says so in one line. Built unoptimised
# (Debug): what is checked is the configuration and what links, not speed, and at -O0
# it builds in about 70 % of the time (134 s against 187 s, 2 cores; the optimised build
# is scripts/build.sh's).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-cli-check
bash "$root/scripts/setup.sh"
bash "$root/scripts/stage-deps.sh" "$build/deps"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKINETOSCOPE_GUI=OFF \
    -DKINETOSCOPE_ENGINE=OFF -DKINETOSCOPE_BUILD_BENCH=OFF -DKINETOSCOPE_DEPS_DIR="$build/deps" \
    -DKINETOSCOPE_WERROR="${KINETOSCOPE_WERROR:-OFF}" \
    > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --target kinetoscope --parallel "$(nproc)"
if grep -q -i libQt <<< "$(ldd "$build/bin/kinetoscope")"; then
    echo "check-cli-only: the command-line build links Qt" >&2
    exit 1
fi
# The whole output first: `grep -q` stops reading at its match, and under pipefail the
# writer's SIGPIPE would fail the check at random.
summary=$("$build/bin/kinetoscope" summary "$root/resources/sample.pt.trace.json.gz") \
    || { echo "check-cli-only: summary of the sample trace failed" >&2; exit 1; }
grep -q "steps (ProfilerStep" <<< "$summary" \
    || { echo "check-cli-only: the sample's summary does not name its steps" >&2; exit 1; }
if "$build/bin/kinetoscope" 2> /dev/null; then
    echo "check-cli-only: without a command the CLI-only build should exit 2" >&2
    exit 1
fi
message=$("$build/bin/kinetoscope" run --out "$build/run" 2>&1 >/dev/null) && exit 1
[[ $message == "kinetoscope run: the engine (kinetoscope-engine) is not installed beside kinetoscope"* ]] \
    || { echo "check-cli-only: run without the engine said: $message" >&2; exit 1; }
echo "check-cli-only: the Qt-free command-line build works"
