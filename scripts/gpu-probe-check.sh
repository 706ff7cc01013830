#!/usr/bin/env bash
# The checks of `kinetoscope profile` on a real GPU (issue 56) and the GPU traces issue 54's
# classes 2, 4 and 6 need, run on the lent GPU machine in one call (its python3 has torch
# with CUDA, Triton and NumPy; there is no Qt):
#
#   here:    bash scripts/gpu-probe-check.sh --prebuild   # the Qt-free CLI -> .gpu-bin, deps -> .deps
#   device:  run(carry=[".deps", ".gpu-bin"], timeout_s=570,
#                command="bash scripts/gpu-probe-check.sh")
#   here:    python3 bench/gpu_probe_report.py RESULTS   # (the device prints it too)
#
# Everything lands in $OUT (bench/out/gpu-probe when unset): log.txt, report.md and
# results.tar.gz, packed again after every stage, so a call stopped at its limit still
# brings back what finished. Stages, most wanted first (those left when GPU_CHECK_DEADLINE
# seconds have passed are skipped; name some to run only those):
#   classes      tests/data/make_gpu_traces.py: issue 54's class 2 and 4 traces, class 6's
#                snapshot dumped after an out-of-memory error
#   transformer  `profile --lab` on tests/probe/train_transformer.py, then the seed's
#                run_lab (bench/seed_run_lab.py --script) per arm on the same model and data
#   cnn          the same on tests/probe/train_images.py (a slow Dataset: data-starved at
#                0 workers), with a workers sweep; its fp32 run's samples hold NVML's
#   oom          the transformer at a batch that cannot fit, with --memory-snapshot
#   compiled     the transformer compiling itself (Triton kernels) and its eager twin,
#                each under `profile` with a profiler window: the fixture pair
#   overhead     paired runs, bare and under `profile --no-trace`, alternating which goes
#                first: the script's own throughput (device synchronised) each time
#   again        the transformer's and cnn's lab and seed runs once more, in the other
#                order (the alternation)
#
# GPU_CHECK_SMOKE=1 runs every stage on the CPU with tiny sizes and the arms fp32,bf16: a
# check of this script itself on a machine without a GPU (its figures mean nothing).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [[ ${1:-} == --prebuild ]]; then
    set -e
    [[ -d .deps ]] || bash scripts/stage-deps.sh
    cmake -S . -B build-cli -G Ninja -DCMAKE_BUILD_TYPE=Release -DKINETOSCOPE_GUI=OFF \
        -DKINETOSCOPE_ENGINE=OFF -DKINETOSCOPE_BUILD_BENCH=OFF -DKINETOSCOPE_BUILD_TESTS=OFF \
        -DKINETOSCOPE_DEPS_DIR="$root/.deps" > /dev/null
    cmake --build build-cli --target kinetoscope --parallel "$(nproc)"
    mkdir -p .gpu-bin
    strip -o .gpu-bin/kinetoscope build-cli/bin/kinetoscope
    du -sh .gpu-bin/kinetoscope .deps
    exit 0
fi

out=${OUT:-$root/bench/out/gpu-probe}
mkdir -p "$out"
results=$(mktemp -d)
exec > >(tee -a "$out/log.txt") 2>&1
say() { printf '\n== %s (%ss)\n' "$*" "$SECONDS"; }

python=${GPU_CHECK_PYTHON:-$(command -v python3)}
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
export KINETOSCOPE_PROBE_DIR=$root/python
export LD_LIBRARY_PATH="$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    "$python" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, \
torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no GPU')" 2>&1
    echo "host: $(nproc) cores, $(uname -r); NVML: $(ldconfig -p 2>/dev/null | grep -c 'libnvidia-ml.so.1') in the loader's cache"
} > "$results/env.txt"
cat "$results/env.txt"

ks=${GPU_CHECK_KINETOSCOPE:-$root/.gpu-bin/kinetoscope}
if ! "$ks" help > /dev/null 2>&1; then
    say "the prebuilt kinetoscope does not run here: building the CLI"
    cmake -S . -B build-gpu-cli -G Ninja -DCMAKE_BUILD_TYPE=Release -DKINETOSCOPE_GUI=OFF \
        -DKINETOSCOPE_ENGINE=OFF -DKINETOSCOPE_BUILD_BENCH=OFF -DKINETOSCOPE_BUILD_TESTS=OFF \
        -DKINETOSCOPE_DEPS_DIR="$root/.deps" > "$results/configure.log" 2>&1 \
        || { tail -30 "$results/configure.log"; exit 1; }
    cmake --build build-gpu-cli --target kinetoscope --parallel "$(nproc)" || exit 1
    ks=$root/build-gpu-cli/bin/kinetoscope
fi

arms=${GPU_CHECK_ARMS:-fp32,bf16,bf16+compile}
# Sizes: the transformer's step is GPU-bound (~10-20 ms on an H100/H200); the small one,
# a few ms, is where the probe's host cost shows most.
transformer=(--hidden 512 --layers 4 --heads 8 --seq-len 256 --batch-size 32 --workers 2)
small=(--hidden 256 --layers 2 --heads 4 --seq-len 128 --batch-size 16 --vocab 4096 --workers 2)
oom_batch=8192  # ~36 GB a layer saved for backward, four layers, 34 GB of logits: past 139 GiB
images=1536 steps=20 warmup=8 pairs=3 overhead_steps=300 overhead_after=50
if [[ ${GPU_CHECK_SMOKE:-0} == 1 ]]; then
    arms=${GPU_CHECK_ARMS:-fp32,bf16}
    transformer=(--hidden 64 --layers 2 --heads 4 --seq-len 32 --vocab 512 --batch-size 8 --workers 2 --device cpu)
    small=("${transformer[@]}")
    oom_batch=8
    images=512 steps=6 warmup=3 pairs=1 overhead_steps=30 overhead_after=10
fi
device_flag=()
[[ ${GPU_CHECK_SMOKE:-0} == 1 ]] && device_flag=(--device cpu)

pack() {
    "$python" bench/gpu_probe_report.py "$results" > "$out/report.md" 2> "$out/report.err"
    tar -C "$results" -czf "$out/results.tar.gz" .
}

# Stages left out once this many seconds have passed (the device allows 600 per call).
deadline=${GPU_CHECK_DEADLINE:-450}
in_time() {
    if ((SECONDS > deadline)); then
        say "skipped $1: past ${deadline}s"
        return 1
    fi
}

# `kinetoscope profile --lab` on a script: name, seconds allowed, profile options, --,
# the script and its arguments. Keeps the lab's session, its runs' sessions and outputs,
# the fp32 trace (gzipped) and the reading printed at the end.
profile_lab() {
    local name=$1 limit=$2
    shift 2
    say "profile --lab $name"
    local dir=$results/$name
    timeout "$limit" "$ks" profile --lab --arms "$arms" --steps $steps --skip $warmup --out "$dir" "$@" \
        > "$results/$name.txt" 2>&1
    echo "exit $?" >> "$results/$name.txt"
    tail -25 "$results/$name.txt"
    find "$dir" -name trace.json -exec gzip -9 {} \;
}

# The seed's run_lab on the same script, one process per arm: name, script, its arguments.
seed_arms() {
    local name=$1 script=$2
    shift 2
    say "seed run_lab $name"
    local arm
    for arm in ${arms//,/ }; do
        local seed_arm=$arm
        [[ $arm == bf16+compile ]] && seed_arm=compile
        timeout 240 "$python" bench/seed_run_lab.py --script "$script" --arm $seed_arm --compile-mode default \
            --steps $steps --warmup $warmup -- "$@" 2>&1 | grep -E "samples/s|Error" | sed "s/^/$arm: /"
    done | tee "$results/$name.txt"
}

images_dir=$(mktemp -d)
write_images() {
    [[ -n $(ls "$images_dir") ]] && return 0
    "$python" -c "import sys; sys.path.insert(0, 'tests/probe'); import train_images; \
train_images.write_images(sys.argv[1], $images, 128)" "$images_dir"
}

stage_classes() {
    in_time classes || return 0
    say "issue 54's GPU classes"
    timeout 120 "$python" tests/data/make_gpu_traces.py --out "$results/classes" "${device_flag[@]}" \
        2>&1 | grep -v -E "Warning|warn" | tee "$results/classes.txt"
}

transformer_round() {
    local round=$1 first=$2
    local lab=(profile_lab "transformer-lab$round" 300 -- "$python" tests/probe/train_transformer.py
        "${transformer[@]}" --log-every 0)
    local seed=(seed_arms "transformer-seed$round" tests/probe/train_transformer.py "${transformer[@]}")
    if [[ $first == lab ]]; then "${lab[@]}"; "${seed[@]}"; else "${seed[@]}"; "${lab[@]}"; fi
}

cnn_round() {
    local round=$1 first=$2 sweep=()
    [[ $round == 1 ]] && sweep=(--sweep workers=0,4,8)
    write_images
    local lab=(profile_lab "cnn-lab$round" 300 "${sweep[@]}" -- "$python" tests/probe/train_images.py
        --data "$images_dir" --epochs 1000 --log-every 0 "${device_flag[@]}")
    local seed=(seed_arms "cnn-seed$round" tests/probe/train_images.py --data "$images_dir" "${device_flag[@]}")
    if [[ $first == lab ]]; then "${lab[@]}"; "${seed[@]}"; else "${seed[@]}"; "${lab[@]}"; fi
}

stage_transformer() { in_time transformer && transformer_round 1 lab; }
stage_cnn() { in_time cnn && cnn_round 1 lab; }

stage_again() {
    in_time "transformer again" && transformer_round 2 seed
    in_time "cnn again" && cnn_round 2 seed
}

stage_oom() {
    in_time oom || return 0
    say "out of memory with --memory-snapshot (batch $oom_batch)"
    # --steps-total: should the batch fit after all, the run ends at once instead of training on
    timeout 120 "$ks" profile --memory-snapshot --out "$results/oom" -- "$python" tests/probe/train_transformer.py \
        "${transformer[@]}" --batch-size $oom_batch --steps-total 8 --log-every 0 > "$results/oom.txt" 2>&1
    echo "exit $?" >> "$results/oom.txt"
    tail -8 "$results/oom.txt"
    ls -la "$results/oom"
    find "$results/oom" \( -name memory_snapshot.pickle -o -name trace.json \) -exec gzip -9 {} \;
}

# One run of the overhead pairs: bare or probed, the config's name, then the arguments.
overhead_run() {
    local how=$1 config=$2
    shift 2
    local command=("$python" tests/probe/train_transformer.py "$@" --steps-total $overhead_steps
        --throughput-after $overhead_after --log-every 0)
    if [[ $how == probed ]]; then
        command=("$ks" profile --no-trace --skip 5 --out "$(mktemp -d)/run" -- "${command[@]}")
    fi
    timeout 120 "${command[@]}" 2>&1 | grep "throughput:" | sed "s/^/$config $how: /"
}

stage_overhead() {
    in_time overhead || return 0
    say "overhead: bare and probed, $pairs pairs per size, alternating"
    local pair config
    for config in default small; do
        local sizes=("${transformer[@]}")
        [[ $config == small ]] && sizes=("${small[@]}")
        for ((pair = 0; pair < pairs; pair++)); do
            if ((pair % 2 == 0)); then
                overhead_run bare $config "${sizes[@]}"; overhead_run probed $config "${sizes[@]}"
            else
                overhead_run probed $config "${sizes[@]}"; overhead_run bare $config "${sizes[@]}"
            fi
        done
    done | tee "$results/overhead.txt"
}

stage_compiled() {
    in_time compiled || return 0
    say "a compiled run's trace and its eager twin"
    local how
    for how in compiled eager; do
        local flag=()
        [[ $how == compiled ]] && flag=(--compile)
        timeout 200 "$ks" profile --skip 10 --active 2 --steps 3 --out "$results/$how" -- "$python" \
            tests/probe/train_transformer.py "${small[@]}" "${flag[@]}" --log-every 0 > "$results/$how.txt" 2>&1
        echo "exit $?" >> "$results/$how.txt"
        tail -12 "$results/$how.txt"
        [[ -f $results/$how/trace.json ]] && gzip -9 "$results/$how/trace.json"
    done
}

stages=("$@")
[[ ${#stages[@]} -gt 0 ]] || stages=(classes transformer cnn oom compiled overhead again)
for stage in "${stages[@]}"; do
    "stage_$stage"
    pack
done
rm -rf "$images_dir"
say "done"
cat "$out/report.md"
ls -la "$out"
