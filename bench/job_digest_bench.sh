#!/usr/bin/env bash
# Jobs of many ranks read from their digests (issue 53), written once into bench/out/job_digests/:
#   dlrm_512       512 ranks made from PARAM's 8 DLRM ranks (NCCL all-to-all and all-reduce);
#                  rank 307 loads data 10 ms longer per step
#   gloo_512       512 ranks made from ranks 0, 1 and 3 of tests/data/ddp_gloo_4ranks (gloo,
#                  4 steps); rank 307 loads data 30 ms longer per step
#   allreduce_512  512 ranks made from HTA's allreduce_memory_rank1 (54 MB, 2,020 NCCL
#                  all-reduces in 5 steps: the heaviest rank here); rank 307 +100 ms
#   rank_64        that one real rank's trace 64 times, read as a job from the traces, then
#                  from digests written by `kinetoscope summary --digest`
# each opened in this process, by `kinetoscope summary` and `diagnose` (RUNS times each) and
# by the app (bench_job_app, RUNS times). Usage: bench/job_digest_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
runs=${2:-3}
bin="$build/bin"
out="$root/bench/out/job_digests"
traces="$root/../shared/traces"
mkdir -p "$out"

gloo=("$root"/tests/data/ddp_gloo_4ranks/worker{0,1,3}.*.pt.trace.json.gz)
[[ -d "$out/dlrm_512" ]] || "$bin/bench_job_digests" make "$out/dlrm_512" 512 307 10 \
    "$traces"/param/dlrm_8_ranks/worker*.pt.trace.json.gz
[[ -d "$out/gloo_512" ]] || "$bin/bench_job_digests" make "$out/gloo_512" 512 307 30 "${gloo[@]}"
[[ -d "$out/allreduce_512" ]] || "$bin/bench_job_digests" make "$out/allreduce_512" 512 307 100 \
    "$traces/hta/allreduce_memory_rank1.json.gz"

app() {
    if [[ -x "$bin/bench_job_app" ]]; then
        for ((i = 0; i < runs; ++i)); do
            "$bin/bench_job_app" "$@" 2> /dev/null
        done
    fi
}

for job in dlrm_512 gloo_512 allreduce_512; do
    echo "# $job"
    "$bin/bench_job_digests" open "$out/$job"
    "$bin/bench_job_digests" cli "$bin/kinetoscope" "$runs" "$out/$job"
    app "$out/$job"
done

echo "# rank_64: from the traces"
"$bin/bench_job_digests" links "$out/rank_64" 64 "$traces/hta/allreduce_memory_rank1.json.gz"
"$bin/bench_job_digests" cli "$bin/kinetoscope" 1 "$out/rank_64"
runs=1 app "$out/rank_64"
echo "# rank_64: writing the digests"
/usr/bin/time -f '{"mode": "write digests", "seconds": %e, "peak_rss_kb": %M}' \
    "$bin/kinetoscope" summary "$out/rank_64" --digest > /dev/null
echo "# rank_64: from the digests"
"$bin/bench_job_digests" cli "$bin/kinetoscope" "$runs" "$out/rank_64"
app "$out/rank_64"
echo "# the app alone"
runs=1 app --idle
