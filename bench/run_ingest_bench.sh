#!/usr/bin/env bash
# Ingest benchmark, serial against parallel in one run. A synthetic trace of SIZE (default
# 1G) is generated once into bench/out/ (or FILE is used as it is: a real trace, a .gz),
# then, alternating the thread counts RUNS times:
#   bench_ingest TRACE --threads N      the load alone: time, the finish's share, peak RSS
#   kinetoscope info TRACE --threads N  the whole process a user waits for
# and Python's json.load once on the same file. Prints each run, then the medians and the
# ratios: N threads against 1, and whole-process `info` against json.load.
# Usage: bench/run_ingest_bench.sh [SIZE|FILE] [BUILD_DIR]
#        THREADS="1 2 4" RUNS=3 JSON_LOAD=0 (skip json.load) in the environment.
set -euo pipefail
arg=${1:-1G}
build=${2:-build}
threads=${THREADS:-"1 $(nproc)"}
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
out="$here/out"
mkdir -p "$out"
if [ -f "$arg" ]; then
    trace=$arg
else
    trace="$out/synthetic_$arg.json"
    if [ ! -s "$trace" ]; then
        echo "generating $trace ..."
        "$build/bin/kinetoscope-gen-trace" "$arg" "$trace"
    fi
fi
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "trace: $trace ($(du -h "$trace" | cut -f1))"
cat "$trace" > /dev/null  # the page cache warm for every reader alike

results=$(mktemp)
trap 'rm -f "$results" "$results.time"' EXIT
for run in $(seq "$runs"); do
    for n in $threads; do
        line=$(/usr/bin/time -f "%e %M" -o "$results.time" "$build/bin/bench_ingest" "$trace" --threads "$n")
        read -r wall rss < "$results.time"
        echo "{\"kind\": \"load\", \"threads\": $n, \"process_seconds\": $wall, \"process_rss_kb\": $rss, \"bench\": $line}" | tee -a "$results"
        /usr/bin/time -f "%e %M" -o "$results.time" "$build/bin/kinetoscope" info "$trace" --threads "$n" > /dev/null
        read -r wall rss < "$results.time"
        echo "{\"kind\": \"info\", \"threads\": $n, \"process_seconds\": $wall, \"process_rss_kb\": $rss}" | tee -a "$results"
    done
done
if [ "${JSON_LOAD:-1}" = 1 ]; then
    case "$trace" in
    *.gz) echo "json.load: skipped for a .gz trace" ;;
    *) python3 "$here/json_load_baseline.py" "$trace" | sed 's/^/{"kind": "json.load", "result": /; s/$/}/' | tee -a "$results" ;;
    esac
fi
python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
def median(kind, threads, key):
    values = [key(r) for r in rows if r["kind"] == kind and r["threads"] == threads]
    return statistics.median(values) if values else None
counts = sorted({r["threads"] for r in rows if "threads" in r})
base_load = median("load", counts[0], lambda r: r["bench"]["seconds"])
base_info = median("info", counts[0], lambda r: r["process_seconds"])
json_load = next((r["result"]["seconds"] for r in rows if r["kind"] == "json.load"), None)
file_bytes = next(r["bench"]["file_bytes"] for r in rows if r["kind"] == "load")
print(f"medians of {sum(1 for r in rows if r['kind'] == 'load' and r['threads'] == counts[0])} runs:")
for n in counts:
    load = median("load", n, lambda r: r["bench"]["seconds"])
    finish = median("load", n, lambda r: r["bench"]["finish_seconds"])
    rss = median("load", n, lambda r: r["process_rss_kb"]) * 1024
    info = median("info", n, lambda r: r["process_seconds"])
    line = (f"  {n:>2} threads: load {load:.2f} s ({base_load / load:.2f}x of {counts[0]} thread), "
            f"of it finish {finish:.2f} s; peak RSS {rss / 1e6:.0f} MB = {rss / file_bytes:.2f}x the file; "
            f"whole-process info {info:.2f} s ({base_info / info:.2f}x)")
    if json_load:
        line += f", {json_load / info:.1f}x faster than json.load"
    print(line)
if json_load:
    print(f"  json.load: {json_load:.1f} s")
PY
