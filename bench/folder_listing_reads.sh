#!/usr/bin/env bash
# What listing a folder reads: COPIES copies of a gzip trace (default: a 2.9 MB shared one)
# in a folder, and the bytes `kinetoscope info FOLDER` reads from files (its rchar, a
# count the machine's load does not move) before it says the folder holds several traces.
# Each JSON file is looked at for what it is (a trace, or another of torch.profiler's
# outputs) from its first 4 KiB. Usage: bench/folder_listing_reads.sh [BUILD_DIR] [COPIES]
# [TRACE.json.gz]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
copies=${2:-20}
trace=${3:-$root/../shared/traces/hta/allreduce_memory_rank1.json.gz}
folder=$(mktemp -d)
trap 'rm -rf "$folder"' EXIT
for ((i = 0; i < copies; ++i)); do
    cp "$trace" "$folder/rank$i.json.gz"
done
# A reaped child's reads are added to its parent's: this shell's rchar before and after.
rchar() { awk '/^rchar/ { print $2 }' /proc/$$/io; }
before=$(rchar)
"$build/bin/kinetoscope" info "$folder" > /dev/null 2>&1 || true
after=$(rchar)
size=$(stat -c %s "$trace")
echo "listing $copies gzip files of $size bytes read $((after - before)) bytes" \
    "($(((after - before) / copies)) a file)"
