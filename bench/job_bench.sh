#!/usr/bin/env bash
# A job of RANKS synthetic ranks of SIZE each (kinetoscope-gen-trace, one seed per rank,
# written once into bench/out/job/), opened one after another and as a job, RUNS times,
# each in its own process. Usage: bench/job_bench.sh [BUILD_DIR] [RANKS] [SIZE] [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
ranks=${2:-8}
size=${3:-250M}
runs=${4:-3}
out="$root/bench/out/job"
mkdir -p "$out"
files=()
for ((r = 0; r < ranks; ++r)); do
    f="$out/rank${r}_${size}.pt.trace.json"
    [[ -s "$f" ]] || "$build/bin/kinetoscope-gen-trace" "$size" "$f" $((r + 1)) > /dev/null
    files+=("$f")
done
for ((i = 0; i < runs; ++i)); do
    "$build/bin/bench_job" each "${files[@]}"
    "$build/bin/bench_job" job "${files[@]}"
done
