#!/usr/bin/env bash
# Ingest benchmark: a synthetic trace of SIZE (default 1G) is generated once into
# bench/out/, then loaded by bench_ingest and by Python's json.load in the same run.
# Prints both results and the ratios against the targets of issue #2:
#   ingest >= 6x faster than json.load, model <= 64 B/event + strings, peak RSS < file.
# Usage: bench/run_ingest_bench.sh [SIZE] [BUILD_DIR]
set -euo pipefail
size=${1:-1G}
build=${2:-build}
here=$(cd "$(dirname "$0")" && pwd)
out="$here/out"
mkdir -p "$out"
trace="$out/synthetic_$size.json"
if [ ! -s "$trace" ]; then
    echo "generating $trace ..."
    "$build/bin/kinetoscope-gen-trace" "$size" "$trace"
fi
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
# Warm the page cache once so both readers see the same conditions.
cat "$trace" > /dev/null
ours=$("$build/bin/bench_ingest" "$trace")
echo "kinetoscope: $ours"
theirs=$(python3 "$here/json_load_baseline.py" "$trace")
echo "json.load:   $theirs"
python3 - "$ours" "$theirs" <<'PY'
import json, sys
ours, theirs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert ours["entries"] == theirs["entries"], "entry counts differ"
speedup = theirs["seconds"] / ours["seconds"]
rss_ratio = ours["peak_rss_bytes"] / ours["file_bytes"]
print(f"speed-up over json.load: {speedup:.1f}x (target >= 6x)")
print(f"model: {ours['model_bytes_per_event_excluding_strings']:.1f} B/event + strings "
      f"({ours['string_bytes']/1e6:.1f} MB), {ours['model_bytes_per_event']:.1f} B/event in all (target <= 64 + strings)")
print(f"peak RSS: {ours['peak_rss_bytes']/1e6:.0f} MB = {rss_ratio:.2f} x file size (target < 1); "
      f"json.load: {theirs['peak_rss_bytes']/1e6:.0f} MB = {theirs['peak_rss_bytes']/ours['file_bytes']:.2f} x")
PY
