#!/usr/bin/env bash
# The engine's GPU checks, run on the lent GPU machine (CUDA, LibTorch from its python3's
# torch, CMake and ninja; no Qt, no package registry):
#
#   here:    bash scripts/stage-deps.sh          # simdjson/nlohmann/zlib -> .deps
#            bash scripts/gpu-check.sh --prebuild   # the Qt-free CLI, the engine + overhead bench -> .gpu-bin
#   device:  run(carry=[".deps", ".gpu-bin"], command="bash scripts/gpu-check.sh")
#
# On the device the prebuilt binaries are used when they run there (same torch 2.11 cu130
# wheel, found through LD_LIBRARY_PATH); otherwise the CLI is built there with the staged
# deps. Stages, in the order they run when none is named (one device call; those left
# when GPU_CHECK_DEADLINE seconds have passed are skipped):
#   snapshot     the allocator's history as a memory snapshot (--memory-snapshot) with a
#                profiler window: kinetoscope memory, and its peak placed in the trace
#   transformer  the three-run lab, memory triage, split and CUDA profiler window
#   cnn32        the same on the cnn at 32x32
#   torchscript  a TorchScript model trained by the engine vs the seed's Python loop
#   starved      a data-starved run (heavy per-sample CPU work, no workers) and its worker sweep
#   cnn224       the three-run lab on the cnn at 224x224
#   checkpoint   the batch size that fits under a GPU memory limit, without and with
#                activation checkpointing (transformer)
#   serve        inference latency per arm and batch size
#   arms         the engine's bf16 and graph arms vs torch.autocast and torch.compile
#   overhead     the engine's step against a bare LibTorch loop
# Each writes under $OUT (bench/out/gpu when unset): log.txt, report.md
# (bench/gpu_report.py) and results.tar.gz (sessions, gzipped traces, summaries and
# diagnoses).
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
        # Debug information out, symbols in: a memory snapshot's C++ stacks name the
        # engine's own functions (1.2 MB instead of 0.9 MB for the engine).
        strip --strip-debug -o ".gpu-bin/$b" "build-cli/bin/$b"
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

# The lab runs, most wanted first: a call cut short by the deadline loses the tail.
loader=(--pin-memory --non-blocking --prefetch 4)

stage_transformer() {
    # The full lab on the transformer: the arms, the memory triage by phase, the split and a
    # profiler window with CUDA activities.
    lab transformer 120 --model transformer --hidden 512 --layers 6 --heads 8 --seq-len 256 \
        --batch-size 64 --steps 60 --warmup 10 --workers 4 "${loader[@]}" --lab --split --profile
}

stage_snapshot() {
    # The allocator's history through the engine's C++ API, read back by Kinetoscope's own
    # pickle reader, and its peak placed in the profiler window of the same run.
    if [[ ${GPU_CHECK_SMOKE:-0} == 1 ]]; then
        say "skipped snapshot: a memory snapshot needs the CUDA caching allocator"
        return 0
    fi
    lab snapshot 120 --model transformer --hidden 512 --layers 6 --heads 8 --seq-len 256 \
        --batch-size 32 --steps 20 --warmup 5 --workers 4 "${loader[@]}" --profile --memory-snapshot
    local dir=$results/snapshot
    if [[ -f $dir/memory_snapshot.pickle ]]; then
        "$ks" memory "$dir/memory_snapshot.pickle" --trace "$dir/trace.json.gz" > "$dir/memory.txt" 2>&1
        "$ks" memory "$dir/memory_snapshot.pickle" --trace "$dir/trace.json.gz" --json > "$dir/memory.json" 2> "$dir/memory.err"
        head -25 "$dir/memory.txt"
        # Python's own pickle.load and an independent replay of the peak (requested bytes;
        # Kinetoscope counts blocks from before the history at their rounded size).
        "$python" bench/snapshot_replay.py "$dir/memory_snapshot.pickle" > "$dir/replay.json" 2> "$dir/replay.err"
        "$python" - "$dir/replay.json" "$dir/memory.json" <<'PY'
import json, sys
py, ks = (json.load(open(p)) for p in sys.argv[1:3])
differ = 0
for key in ("segments", "reserved_bytes", "trace_entries", "peak_allocated_bytes"):
    a, b = py.get(key), ks.get(key)
    differ += a != b
    print(f"{key}: python {a}, kinetoscope {b}" + ("" if a == b else "  DIFFERS"))
print("snapshot check:", "agrees with Python" if differ == 0 else f"{differ} figures differ")
PY
        gzip -9 "$dir/memory_snapshot.pickle"
    fi
    pack
}

stage_cnn32() {
    lab cnn32 100 --model cnn --image-size 32 --batch-size 256 --steps 60 --warmup 10 --workers 6 \
        "${loader[@]}" --lab --split --profile
}

stage_starved() {
    # The seeds' story: heavy per-sample CPU work and no workers starve the GPU; the
    # diagnosis should lead with the DataLoader and the worker sweep show the fix.
    lab starved 100 --model cnn --image-size 32 --batch-size 128 --steps 30 --warmup 5 --workers 0 \
        --sample-cpu-us 400 "${loader[@]}" --split --profile --sweep workers=0,2,4,8,12
}

stage_cnn224() {
    lab cnn224 100 --model cnn --image-size 224 --batch-size 64 --steps 40 --warmup 8 --workers 12 \
        "${loader[@]}" --lab --split --profile
}

stage_checkpoint() {
    # The batch size that fits under a 4 GiB limit on the transformer, each size without and
    # with activation checkpointing of every block: the out-of-memory each series meets,
    # the memory checkpointing saves and the time it costs; the arms (the graph arm with
    # checkpointed blocks inside its capture) at the smallest size.
    lab checkpoint 120 --model transformer --hidden 512 --layers 6 --heads 8 --seq-len 256 \
        --steps 10 --warmup 3 --workers 4 "${loader[@]}" --checkpoint-every 1 --memory-limit-mb 4096 \
        --lab --sweep batch=16,32,64,128,256 --no-samples
}

stage_serve() {
    # Inference latency per arm (CUDA events), and per batch size.
    lab serve 100 --model cnn --image-size 224 --mode inference --batch-size 32 --steps 100 --warmup 10 \
        --workers 8 "${loader[@]}" --lab --sweep batch=1,8,32,128 --no-samples
}

# The compared model: a scripted ResNet-style cnn (bench/make_scripted_model.py).
width=64 blocks=3 shape=3x64x64 batch=128 steps=60 warmup=10 workers=6
[[ $device == cpu ]] && { width=8 blocks=2 shape=3x16x16 batch=4 steps=3 warmup=1 workers=0; }
scripted=$(mktemp -d)/scripted_cnn.pt  # 19 MB: kept out of the results archive
py_loader=(--workers $workers --prefetch 4 --pin-memory)
ks_loader=(--workers $workers --prefetch 4 --pin-memory --non-blocking)
seed_loop() {
    PYTHONWARNINGS=ignore timeout "$1" "$python" bench/seed_run_lab.py "$scripted" --input-shape $shape \
        --batch-size $batch --steps $steps --warmup $warmup "${py_loader[@]}" --device $device "${@:2}" 2>&1 |
        grep -E "samples/s|Error"
}

stage_torchscript() {
    in_time torchscript || return 0
    say "TorchScript model: engine vs the seed's Python loop"
    "$python" bench/make_scripted_model.py cnn "$scripted" --width $width --blocks $blocks
    {
        echo "scripted ResNet-style cnn width $width, $blocks blocks, input $shape, batch $batch," \
            "$warmup warm-up + $steps measured steps, alternating rounds, loader: ${ks_loader[*]}"
        for round in 1 2 3; do
            seed_loop 90
            timeout 90 "$ks" run --model "$scripted" --input-shape $shape --batch-size $batch --steps $steps \
                --warmup $warmup "${ks_loader[@]}" --device $device --no-samples --out "$results/ts$round" > /dev/null 2>&1
            "$python" -c "import json, sys; s = json.load(open(sys.argv[1])); \
print('kinetoscope fp32: %.1f samples/s' % s['lab'][0]['samples_per_second'])" \
                "$results/ts$round/session.kinetoscope.json"
        done
        seed_loop 90 --as-seed
    } | tee "$results/torchscript.txt"
    rm -rf "$results"/ts[0-9]
    pack
}

stage_arms() {
    # The engine's bf16 and graph arms on the scripted model, beside torch.autocast and
    # torch.compile(mode="reduce-overhead") on the same network as a Python module.
    in_time arms || return 0
    say "bf16 and graph arms vs torch.autocast and torch.compile"
    [[ -f $scripted ]] || "$python" bench/make_scripted_model.py cnn "$scripted" --width $width --blocks $blocks
    {
        echo "ResNet-style cnn width $width, $blocks blocks, input $shape, batch $batch; loader: ${ks_loader[*]}"
        timeout 90 "$ks" run --model "$scripted" --input-shape $shape --batch-size $batch --steps $steps \
            --warmup $warmup "${ks_loader[@]}" --device $device --lab --no-samples --out "$results/arms" > /dev/null 2>&1
        "$python" -c "import json, sys; s = json.load(open(sys.argv[1])); \
[print('kinetoscope %s: %.1f samples/s' % (a['name'], a['samples_per_second']) if a['ran'] else \
'kinetoscope %s: %s' % (a['name'], a['skipped_reason'])) for a in s['lab']]" "$results/arms/session.kinetoscope.json"
        seed_loop 90 --eager ${width}x$blocks
        seed_loop 90 --eager ${width}x$blocks --arm bf16
        [[ $device == cuda ]] && seed_loop 150 --eager ${width}x$blocks --arm compile
    } | tee "$results/arms.txt"
    pack
}

stage_overhead() {
    in_time overhead || return 0
    say "overhead: cnn"
    local small=()
    [[ $device == cpu ]] && small=(--rounds 1 --steps 3 --batch-size 4)
    timeout 100 "$bin/bench_engine_overhead" --model cnn --device $device --rounds 5 --steps 60 --batch-size 256 "${small[@]}" \
        2>&1 | tee "$results/overhead_cnn.txt"
    pack
}

stages=("$@")
[[ ${#stages[@]} -gt 0 ]] || stages=(snapshot transformer cnn32 torchscript starved cnn224 checkpoint serve arms overhead)
for stage in "${stages[@]}"; do
    "stage_$stage"
done
say "done"
ls -la "$out"
