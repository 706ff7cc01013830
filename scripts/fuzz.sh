#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) in build-fuzz/ and runs them.
#   scripts/fuzz.sh                      CI: each target for a fixed number of inputs from
#                                        a fixed random seed (reproducible: the same seeds
#                                        and binary give the same run on any machine):
#                                        40,000 ingest inputs (about 90 s here), 200,000
#                                        session inputs (about 30 s); FUZZ_RUNS scales both
#   scripts/fuzz.sh ingest|session|snapshot [libFuzzer options...]
#                                        one target, by hand, as long as the options say,
#                                        e.g. scripts/fuzz.sh ingest -runs=10000000 -fork=2
# The corpus starts from seeds cut out of ../shared/traces (fuzz/make_seeds.py) and the
# regression inputs; it grows in build-fuzz/corpus/. A crash, leak or hang stops the run
# with a non-zero exit and leaves the input in build-fuzz/artifacts/: minimise it
# (-minimize_crash=1), fix the cause, and add it to fuzz/regressions/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
bash "$root/scripts/setup.sh"
mkdir -p "$build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DKINETOSCOPE_FUZZ=ON -DKINETOSCOPE_WERROR="${KINETOSCOPE_WERROR:-OFF}" \
    > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --target fuzz_ingest fuzz_session fuzz_snapshot --parallel "$(nproc)"

seeds=$build/seeds
if [ ! -d "$seeds" ]; then
    if [ -d "$root/../shared/traces" ]; then
        python3 "$root/fuzz/make_seeds.py" "$root/../shared/traces" "$seeds"
    else
        mkdir -p "$seeds/ingest" "$seeds/session" "$seeds/snapshot"  # the regression inputs alone
    fi
fi
mkdir -p "$build/artifacts"

# run TARGET [libFuzzer options...]
run() {
    local target=$1
    shift
    mkdir -p "$build/corpus/$target" "$seeds/$target"
    # malloc_context_size=0: no allocation stacks (a third of the time per input); a
    # report is reproduced with full stacks by running the binary on the saved input.
    ASAN_OPTIONS=malloc_context_size=0:detect_leaks=1 "$build/bin/fuzz_$target" \
        -dict="$root/fuzz/kineto.dict" -max_len=2048 -timeout=10 -rss_limit_mb=2048 -entropic=0 \
        -artifact_prefix="$build/artifacts/" -print_final_stats=1 "$@" \
        "$build/corpus/$target" "$seeds/$target" "$root/fuzz/regressions/$target"
}

if [ $# -ge 1 ]; then
    target=$1
    shift
    run "$target" "$@"
else
    runs=${FUZZ_RUNS:-40000}
    run ingest -seed=1 -runs="$runs"
    run session -seed=1 -runs="$(( runs * 5 ))"
    run snapshot -seed=1 -runs="$(( runs * 5 ))"
    echo "fuzz: no crash, leak or hang"
fi
