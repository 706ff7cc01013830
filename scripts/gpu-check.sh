#!/usr/bin/env bash
# The engine's GPU checks, run on the lent GPU machine (CUDA, LibTorch from its python3's
# torch, CMake and ninja; no Qt, no package registry):
#
#   here:    bash scripts/stage-deps.sh          # simdjson/nlohmann/zlib -> .deps
#            bash scripts/gpu-check.sh --prebuild   # the Qt-free CLI, the engine + overhead bench -> .gpu-bin
#   device:  run(carry=[".deps", ".gpu-bin"], command="bash scripts/gpu-check.sh labs")
#            run(carry=[".deps", ".gpu-bin"], command="bash scripts/gpu-check.sh compare")
#
# On the device the prebuilt binaries are used when they run there (same torch 2.11 cu130
# wheel, found through LD_LIBRARY_PATH); otherwise the CLI is built there with the staged
# deps. Stages: labs (the three-run lab, split and profiler window on cnn 32x32, cnn
# 224x224 and transformer, plus a worker sweep), compare (a TorchScript model trained by
# the engine vs the seed's Python loop, and the overhead benchmark). Each writes under
# $OUT (bench/out/gpu when unset): log.txt, report.md (bench/gpu_report.py) and
# results.tar.gz (sessions, gzipped traces, summaries and diagnoses).
#
# GPU_CHECK_SMOKE=1 runs every stage on the CPU with tiny sizes: a check of this script
# itself on a machine without a GPU (its figures mean nothing).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [[ ${1:-} == --prebuild ]]; then
    set -e
    [[ -d .deps ]] || bash scripts/stage-deps.sh
    cmake -S . -B build-cli -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKINETOSCOPE_GUI=OFF \
        -DKINETOSCOPE_DEPS_DIR="$root/.deps" > /dev/null
    cmake --build build-cli --target kinetoscope kinetoscope-engine bench_engine_overhead --parallel "$(nproc)"
    rm -rf .gpu-bin && mkdir -p .gpu-bin
    for b in kinetoscope kinetoscope-engine bench_engine_overhead; do
        strip -o ".gpu-bin/$b" "build-cli/bin/$b"
    done
    du -sh .gpu-bin .deps
    exit 0
fi

out=${OUT:-$root/bench/out/gpu}
mkdir -p "$out"
results=$(mktemp -d)
log=$out/log.txt
exec > >(tee -a "$log") 2>&1
say() { printf '\n== %s (%ss)\n' "$*" "$SECONDS"; }

python=$(command -v python3)
torch_lib=$("$python" -c "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'lib'))")
# The prebuilt binaries' run path names this machine's folders: point the loader at the
# device's torch, the CUDA runtime of its nvidia wheels, and the staged simdjson.
export LD_LIBRARY_PATH="$root/.deps/lib:$torch_lib:$torch_lib/../../nvidia/cu13/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

{
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1
    "$python" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(0))" 2>&1
    echo "host: $(nproc) cores, $(uname -r)"
} > "$results/env.txt"
cat "$results/env.txt"

bin=$root/.gpu-bin
if ! "$bin/kinetoscope" help > /dev/null 2>&1 || ! "$bin/kinetoscope-engine" --help > /dev/null 2>&1; then
    say "prebuilt binaries do not run here: building"
    "$bin/kinetoscope-engine" --help 2>&1 | head -3
    ldd "$bin/kinetoscope-engine" 2>&1 | grep "not found"
    cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DKINETOSCOPE_GUI=OFF \
        -DKINETOSCOPE_DEPS_DIR="$root/.deps" -DKINETOSCOPE_PYTHON="$python" -DTORCH_CUDA_ARCH_LIST=9.0 \
        > "$results/configure.log" 2>&1 || { tail -30 "$results/configure.log"; exit 1; }
    cmake --build build-gpu --target kinetoscope kinetoscope-engine bench_engine_overhead --parallel "$(nproc)" || exit 1
    bin=$root/build-gpu/bin
fi
ks=$bin/kinetoscope

device=cuda
shrink=()  # appended to every run; the last value of an option wins
if [[ ${GPU_CHECK_SMOKE:-0} == 1 ]]; then
    device=cpu
    shrink=(--batch-size 4 --steps 3 --warmup 1 --image-size 32 --hidden 32 --seq-len 16)
fi

# The report and the archive, rewritten after every run: a call stopped at the device's
# 10-minute limit still brings back everything that finished.
pack() {
    "$python" bench/gpu_report.py "$results" > "$out/report.md"
    tar -C "$results" -czf "$out/results.tar.gz" .
}

# Runs left out once this many seconds have passed (the device allows 600 per call).
deadline=${GPU_CHECK_DEADLINE:-470}
in_time() {
    if ((SECONDS > deadline)); then
        say "skipped $1: past ${deadline}s"
        return 1
    fi
}

# One lab run: name, seconds allowed, then `kinetoscope run` options.
lab() {
    local name=$1 limit=$2
    shift 2
    in_time "$name" || return 0
    say "run $name: $*"
    timeout "$limit" "$ks" run --device $device --out "$results/$name" "$@" "${shrink[@]}"
    echo "exit $?"
    local trace=$results/$name/trace.json
    if [[ -f $trace ]]; then
        "$ks" summary "$trace" > "$results/$name/summary.txt" 2>&1
        "$ks" summary "$trace" --json > "$results/$name/summary.json" 2>&1
        "$ks" diagnose "$results/$name/session.kinetoscope.json" > "$results/$name/diagnosis.txt" 2>&1
        head -30 "$results/$name/summary.txt"
        gzip -9 "$trace"
    fi
    pack
}

stage_labs() {
    local loader=(--pin-memory --non-blocking --prefetch 4)
    lab cnn32 120 --model cnn --image-size 32 --batch-size 256 --steps 60 --warmup 10 --workers 6 \
        "${loader[@]}" --lab --split --profile
    lab cnn224 120 --model cnn --image-size 224 --batch-size 64 --steps 40 --warmup 8 --workers 12 \
        "${loader[@]}" --lab --split --profile
    lab transformer 120 --model transformer --hidden 512 --layers 6 --heads 8 --seq-len 256 \
        --batch-size 64 --steps 60 --warmup 10 --workers 4 "${loader[@]}" --lab --split --profile
    lab sweep 100 --model cnn --image-size 32 --batch-size 256 --steps 30 --warmup 5 "${loader[@]}" \
        --sweep workers=0,1,2,4,8 --no-samples
    # The memory triage on a real allocator, and the batch size that fits under a 2 GiB
    # limit (the cnn at 224x224 runs out between 64 and 512).
    lab fit 150 --model cnn --image-size 224 --batch-size 32 --steps 10 --warmup 3 --workers 8 "${loader[@]}" \
        --lab --memory-limit-mb 2048 --sweep batch=16,32,64,128,256,512,1024 --no-samples
    # Activation checkpointing of every transformer block: each batch size without and
    # with it under a 4 GiB limit, the memory it saves and the time it costs.
    lab checkpoint 150 --model transformer --hidden 512 --layers 6 --heads 8 --seq-len 256 --batch-size 32 \
        --steps 10 --warmup 3 --workers 4 "${loader[@]}" --checkpoint-every 1 --memory-limit-mb 4096 \
        --sweep batch=16,32,64,128,256 --no-samples
    # Inference latency per arm and per batch size, with CUDA events.
    lab serve 120 --model cnn --image-size 224 --mode inference --batch-size 32 --steps 100 --warmup 10 \
        --workers 8 "${loader[@]}" --lab --profile --sweep batch=1,8,32,128
}

stage_compare() {
    say "TorchScript model: engine vs the seed's Python loop"
    # The same loader knobs on both sides: worker processes (Python) or threads (engine),
    # pinned batches, non-blocking copies.
    local model=$(mktemp -d)/scripted_cnn.pt shape=3x64x64 batch=128 steps=60 warmup=10 width=64 rounds=5
    local workers=6
    [[ $device == cpu ]] && { shape=3x16x16 batch=4 steps=3 warmup=1 width=8 rounds=2 workers=0; }
    local py_loader=(--workers $workers --prefetch 4 --pin-memory)
    local ks_loader=(--workers $workers --prefetch 4 --pin-memory --non-blocking)
    "$python" bench/make_scripted_model.py cnn "$model" --width $width --blocks 3
    {
        echo "scripted ResNet-style cnn width $width, input $shape, batch $batch, $warmup warm-up + $steps measured" \
            "steps, $rounds alternating rounds, loader: ${ks_loader[*]}"
        for round in $(seq "$rounds"); do
            PYTHONWARNINGS=ignore timeout 120 "$python" bench/seed_run_lab.py "$model" --input-shape $shape \
                --batch-size $batch --steps $steps --warmup $warmup "${py_loader[@]}" --device $device 2>&1 | grep "samples/s"
            timeout 120 "$ks" run --model "$model" --input-shape $shape --batch-size $batch --steps $steps \
                --warmup $warmup "${ks_loader[@]}" --device $device --no-samples --out "$results/ts$round" > /dev/null 2>&1
            "$python" -c "import json, sys; s = json.load(open(sys.argv[1])); \
print('kinetoscope fp32: %.1f samples/s' % s['lab'][0]['samples_per_second'])" \
                "$results/ts$round/session.kinetoscope.json"
        done
        PYTHONWARNINGS=ignore timeout 120 "$python" bench/seed_run_lab.py "$model" --input-shape $shape \
            --batch-size $batch --steps $steps --warmup $warmup "${py_loader[@]}" --device $device --as-seed 2>&1 | grep "samples/s"
    } | tee "$results/torchscript.txt"
    rm -rf "$results"/ts[0-9]
    pack
    in_time "overhead" || return 0
    say "overhead: cnn"
    local small=()
    [[ $device == cpu ]] && small=(--rounds 1 --steps 3 --batch-size 4)
    timeout 150 "$bin/bench_engine_overhead" --model cnn --device $device --rounds 5 --steps 60 --batch-size 256 "${small[@]}" \
        2>&1 | tee "$results/overhead_cnn.txt"
    pack
    in_time "overhead mlp" || return 0
    say "overhead: mlp"
    timeout 100 "$bin/bench_engine_overhead" --model mlp --device $device --rounds 5 --steps 200 --batch-size 512 "${small[@]}" \
        2>&1 | tee "$results/overhead_mlp.txt"
    pack
}

stages=("$@")
[[ ${#stages[@]} -gt 0 ]] || stages=(labs compare)
for stage in "${stages[@]}"; do
    "stage_$stage"
done
say "done"
ls -la "$out"
