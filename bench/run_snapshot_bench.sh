#!/usr/bin/env bash
# Memory-snapshot benchmark: a synthetic snapshot of SIZE (default 1G) is generated once
# into bench/out/ (bench/make_snapshot.py), then opened by bench_snapshot (read,
# timelines, summary: what the app does) and by Python's pickle.load in the same run.
# Prints both and the ratios against issue 31's targets: opens in seconds, peak RSS below
# the file's size.
# Usage: bench/run_snapshot_bench.sh [SIZE] [BUILD_DIR]
set -euo pipefail
size=${1:-1G}
build=${2:-build}
here=$(cd "$(dirname "$0")" && pwd)
out="$here/out"
mkdir -p "$out"
snapshot="$out/snapshot_$size.pickle"
if [ ! -s "$snapshot" ]; then
    echo "generating $snapshot ..."
    python3 "$here/make_snapshot.py" "$size" "$snapshot"
fi
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
cat "$snapshot" > /dev/null  # the page cache warm for both readers
ours=$("$build/bin/bench_snapshot" "$snapshot")
echo "kinetoscope:  $ours"
theirs=$(python3 "$here/pickle_load_baseline.py" "$snapshot")
echo "pickle.load:  $theirs"
python3 - "$ours" "$theirs" <<'PY'
import json, sys
ours, theirs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert ours["entries"] == theirs["entries"], "entry counts differ"
size = ours["file_bytes"]
print(f"opened in {ours['seconds']:.1f} s (read {ours['read_seconds']:.1f} s, timelines {ours['timeline_seconds']:.2f} s, "
      f"summary {ours['summary_seconds']:.2f} s); pickle.load alone {theirs['seconds']:.1f} s: "
      f"{theirs['seconds'] / ours['seconds']:.1f}x")
print(f"peak RSS {ours['peak_rss_bytes'] / 1e6:.0f} MB = {ours['peak_rss_bytes'] / size:.2f} x the file (target < 1); "
      f"pickle.load {theirs['peak_rss_bytes'] / 1e6:.0f} MB = {theirs['peak_rss_bytes'] / size:.2f} x")
print(f"model: {ours['entries']:,} entries, {ours['frames']} frames, {ours['stacks']} stacks")
PY
