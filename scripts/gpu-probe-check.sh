#!/usr/bin/env bash
# The checks of `kinetoscope profile` on a real GPU (issue 56) and the GPU traces issue 54's
# classes 2, 4 and 6 need, run on the lent GPU machine in one call (its python3 has torch
# with CUDA, Triton and NumPy; there is no Qt):
#
#   here:    bash scripts/gpu-probe-check.sh --prebuild   # the Qt-free CLI (build-gpu-cli) -> .gpu-bin, deps -> .deps
#   device:  run(carry=[".deps", ".gpu-bin"], timeout_s=590,
#                command="bash scripts/gpu-probe-check.sh")
#   here:    python3 bench/gpu_probe_report.py RESULTS   # (the device prints it too)
#
# Everything lands in $OUT (bench/out/gpu-probe when unset): log.txt, report.md and
# results.tar.gz, packed again after every stage, so a call stopped at its limit still
# brings back what finished. Stages, most wanted first; each has an estimate of its
# seconds on an H200 (python, torch and CUDA start ~6-10 s a process there, a cold
# compile of the transformer 30-60 s), and one that would end past GPU_CHECK_LIMIT
# seconds (560) is skipped. Name some to run only those:
#   classes      (50) tests/data/make_gpu_traces.py: issue 54's class 2 and 4 traces,
#                class 6's snapshot dumped after an out-of-memory error
#   oom          (25) the transformer at a batch that cannot fit, with --memory-snapshot
#   transformer  (200) the seed's run_lab (bench/seed_run_lab.py --script) fp32 and bf16,
#                `profile --lab` on tests/probe/train_transformer.py, the seed's three arms
#                again: each arm against the seed on the same model and data, both orders
#   cnn          (150) `profile --lab` on tests/probe/train_images.py (a slow Dataset:
#                data-starved at 0 workers) with a workers sweep, then the seed's arms; its
#                fp32 run's samples hold NVML's
#   overhead     (80) four pairs, bare and under `profile` (its window at steps 5-7, long
#                before the timed steps), alternating which goes first, on the small
#                transformer (a ~3 ms step: where the probe's host cost shows most): the
#                script's own throughput, device synchronised, over 700 steps
#   cupti        (25) tests/probe/profile_again.py opens its own profiler after the probe's
#                window: its kernels, bare and under the probe
#   compiled     (60) the small transformer compiling itself (Triton kernels) and its eager
#                twin, each under `profile` with a profiler window: the fixture pair
#   overhead_default (60) two such pairs on the lab's transformer (a GPU-bound step)
#   teardown     (45) two pairs of probed runs, CUPTI left attached after the window
#                (Kineto's default) against detached (TEARDOWN_CUPTI=1): what it costs
#
# GPU_CHECK_SMOKE=1 runs every stage on the CPU with tiny sizes and the arms fp32,bf16: a
# check of this script itself on a machine without a GPU (its figures mean nothing).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# The Qt-free, torch-free CLI (all `kinetoscope profile` needs) in build-gpu-cli/ (apart from
# gpu-check.sh's build-cli/, which has the engine), from the staged deps; the configure
# log in $1.
build_cli() {
    cmake -S . -B build-gpu-cli -G Ninja -DCMAKE_BUILD_TYPE=Release -DKINETOSCOPE_GUI=OFF \
        -DKINETOSCOPE_ENGINE=OFF -DKINETOSCOPE_BUILD_BENCH=OFF -DKINETOSCOPE_BUILD_TESTS=OFF \
        -DKINETOSCOPE_DEPS_DIR="$root/.deps" > "$1" 2>&1 || { tail -30 "$1"; return 1; }
    cmake --build build-gpu-cli --target kinetoscope --parallel "$(nproc)"
}

if [[ ${1:-} == --prebuild ]]; then
    set -e
    [[ -d .deps ]] || bash scripts/stage-deps.sh
    build_cli /dev/null
    mkdir -p .gpu-bin
    strip -o .gpu-bin/kinetoscope build-gpu-cli/bin/kinetoscope
    du -sh .gpu-bin/kinetoscope .deps
    exit 0
fi

out=${OUT:-$root/bench/out/gpu-probe}
mkdir -p "$out"
results=$(mktemp -d)
exec > >(tee -a "$out/log.txt") 2>&1
tee_pid=$!
say() { printf '\n== %s (%ss)\n' "$*" "$SECONDS"; }

python=${GPU_CHECK_PYTHON:-$(command -v python3)}
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
export KINETOSCOPE_PROBE_DIR=$root/python
export LD_LIBRARY_PATH="$root/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    "$python" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, \
torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no GPU')" 2>&1
    echo "host: $(nproc) cores, $(uname -r);" \
        "NVML: $(ldconfig -p 2>/dev/null | grep -c 'libnvidia-ml.so.1') in the loader's cache"
} > "$results/env.txt"
cat "$results/env.txt"

ks=${GPU_CHECK_KINETOSCOPE:-$root/.gpu-bin/kinetoscope}
if ! "$ks" help > /dev/null 2>&1; then
    say "the prebuilt kinetoscope does not run here: building the CLI"
    build_cli "$results/configure.log" || exit 1
    ks=$root/build-gpu-cli/bin/kinetoscope
fi

arms=${GPU_CHECK_ARMS:-fp32,bf16,bf16+compile}
# Sizes: the transformer's step is GPU-bound (~10-20 ms on an H100/H200); the small one,
# a few ms, is where the probe's host cost shows most.
transformer=(--hidden 512 --layers 4 --heads 8 --seq-len 256 --batch-size 32 --workers 2)
small=(--hidden 256 --layers 2 --heads 4 --seq-len 128 --batch-size 16 --vocab 4096 --workers 2)
oom_batch=8192  # ~36 GB a layer saved for backward, four layers, 34 GB of logits: past 139 GiB
images=1536 steps=20 warmup=8 pairs=4 overhead_steps=800 overhead_after=100
if [[ ${GPU_CHECK_SMOKE:-0} == 1 ]]; then
    arms=${GPU_CHECK_ARMS:-fp32,bf16}
    transformer=(--hidden 64 --layers 2 --heads 4 --seq-len 32 --vocab 512 --batch-size 8 --workers 2 --device cpu)
    small=("${transformer[@]}")
    oom_batch=8
    images=512 steps=6 warmup=3 pairs=2 overhead_steps=30 overhead_after=10
fi
device_flag=()
[[ ${GPU_CHECK_SMOKE:-0} == 1 ]] && device_flag=(--device cpu)

pack() {
    "$python" bench/gpu_probe_report.py "$results" > "$out/report.md" 2> "$out/report.err"
    tar -C "$results" -czf "$out/results.tar.gz" .
}

# A stage that would end past this many seconds is left out (the device allows 600 a call).
limit=${GPU_CHECK_LIMIT:-560}
in_time() {  # name, estimated seconds
    if ((SECONDS + $2 > limit)); then
        say "skipped $1: ${SECONDS}s + its ~$2s would pass ${limit}s"
        return 1
    fi
}

# `kinetoscope profile --lab` on a script: name, seconds allowed, profile options, --,
# the script and its arguments. Keeps the lab's session, its runs' sessions and outputs,
# the fp32 trace (gzipped) and the reading printed at the end.
profile_lab() {
    local name=$1 seconds=$2
    shift 2
    say "profile --lab $name"
    local dir=$results/$name
    timeout "$seconds" "$ks" profile --lab --arms "$arms" --steps $steps --skip $warmup --out "$dir" "$@" \
        > "$results/$name.txt" 2>&1
    echo "exit $?" >> "$results/$name.txt"
    tail -25 "$results/$name.txt"
    find "$dir" -name trace.json -exec gzip -9 {} \;
}

# The seed's run_lab on the same script, one process per arm: name, the arms, the script,
# its arguments.
seed_arms() {
    local name=$1 these=$2 script=$3
    shift 3
    say "seed run_lab $name: $these"
    local arm
    for arm in ${these//,/ }; do
        local seed_arm=$arm
        [[ $arm == bf16+compile ]] && seed_arm=compile
        timeout 150 "$python" bench/seed_run_lab.py --script "$script" --arm $seed_arm --compile-mode default \
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
    in_time classes 50 || return 0
    say "issue 54's GPU classes"
    timeout 120 "$python" tests/data/make_gpu_traces.py --out "$results/classes" "${device_flag[@]}" \
        2>&1 | grep -v -E "Warning|warn" | tee "$results/classes.txt"
}

stage_transformer() {
    in_time transformer 200 || return 0
    local script=tests/probe/train_transformer.py
    seed_arms transformer-seed0 "${arms%,bf16+compile}" $script "${transformer[@]}"
    profile_lab transformer-lab 200 -- "$python" $script "${transformer[@]}" --log-every 0
    seed_arms transformer-seed1 "$arms" $script "${transformer[@]}"
}

stage_cnn() {
    in_time cnn 150 || return 0
    write_images
    local script=tests/probe/train_images.py
    profile_lab cnn-lab 200 --sweep workers=0,4,8 -- "$python" $script --data "$images_dir" --epochs 1000 \
        --log-every 0 "${device_flag[@]}"
    seed_arms cnn-seed1 "$arms" $script --data "$images_dir" "${device_flag[@]}"
}

stage_oom() {
    in_time oom 25 || return 0
    say "out of memory with --memory-snapshot (batch $oom_batch)"
    # --steps-total: should the batch fit after all, the run ends at once instead of training on
    timeout 120 "$ks" profile --memory-snapshot --out "$results/oom" -- "$python" \
        tests/probe/train_transformer.py "${transformer[@]}" --batch-size $oom_batch --steps-total 8 \
        --log-every 0 > "$results/oom.txt" 2>&1
    echo "exit $?" >> "$results/oom.txt"
    tail -8 "$results/oom.txt"
    ls -la "$results/oom"
    find "$results/oom" \( -name memory_snapshot.pickle -o -name trace.json \) -exec gzip -9 {} \;
}

# One run of the overhead pairs: the pair's number, then bare, probed, or teardown (probed
# with TEARDOWN_CUPTI=1 in the script's environment: Kineto detaches CUPTI when the window
# stops, which by default it leaves attached). A probed run has the probe's default
# profiler window (steps 5-7), long before the script's timed steps: what it leaves behind
# counts, its own time does not.
overhead_run() {
    local pair=$1 how=$2 sizes=("${small[@]}") steps=$overhead_steps
    if [[ ${3:-small} == default ]]; then
        sizes=("${transformer[@]}")
        steps=$((overhead_after + 200))
    fi
    local command=("$python" tests/probe/train_transformer.py "${sizes[@]}" --steps-total $steps
        --throughput-after $overhead_after --log-every 0)
    if [[ $how != bare ]]; then
        command=("$ks" profile --skip 5 --active 3 --out "$(mktemp -d)/run" -- "${command[@]}")
    fi
    [[ $how == teardown ]] && command=(env TEARDOWN_CUPTI=1 "${command[@]}")
    timeout 60 "${command[@]}" 2>&1 | grep "throughput:" | sed "s/^/pair $pair $how: /"
}

# Paired overhead runs, alternating which goes first: the number of pairs, the two kinds
# (bare, probed, teardown), the size (small unless "default").
alternate() {
    local count=$1 first=$2 second=$3 config=${4:-small} pair
    for ((pair = 1; pair <= count; pair++)); do
        if ((pair % 2 == 1)); then
            overhead_run $pair $first $config; overhead_run $pair $second $config
        else
            overhead_run $pair $second $config; overhead_run $pair $first $config
        fi
    done
}

stage_overhead() {
    in_time overhead 80 || return 0
    say "overhead: $pairs pairs, bare and probed, alternating which goes first"
    alternate $pairs bare probed | tee "$results/overhead.txt"
}

stage_overhead_default() {
    # The same on the lab's transformer (a GPU-bound step of ~15 ms), 200 timed steps, two pairs.
    in_time overhead_default 60 || return 0
    say "overhead on the lab's transformer: 2 pairs"
    alternate 2 bare probed default | tee "$results/overhead_default.txt"
}

stage_cupti() {
    # After the probe's window, a profiler the script opens itself (steps 20-22) must still
    # record the device: kernels counted, bare and under the probe.
    in_time cupti 25 || return 0
    say "a profiler of the script's own after the probe's window"
    local how
    for how in bare probed; do
        local command=("$python" tests/probe/profile_again.py --steps 30 --from 20 "${device_flag[@]}")
        [[ $how == probed ]] &&
            command=("$ks" profile --skip 5 --active 3 --out "$(mktemp -d)/run" -- "${command[@]}")
        timeout 60 "${command[@]}" 2>&1 | grep "own profiler:" | sed "s/^/$how: /"
    done | tee "$results/cupti.txt"
}

stage_teardown() {
    # Whether CUPTI left attached after the window (Kineto's default) slows the measured
    # steps (pytorch#144455): probed runs as they are against probed runs whose window
    # detaches it (TEARDOWN_CUPTI=1), two pairs, alternating. Kinetoscope does not set it
    # (torch 2.11's Kineto finalises CUPTI asynchronously, and a profiler started while it
    # does loses its device events): evidence first.
    in_time teardown 45 || return 0
    say "CUPTI left attached after the window against detached"
    alternate 2 teardown probed | tee "$results/teardown.txt"
}

stage_compiled() {
    in_time compiled 60 || return 0
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
[[ ${#stages[@]} -gt 0 ]] || stages=(classes oom transformer cnn overhead cupti compiled overhead_default teardown)
for stage in "${stages[@]}"; do
    "stage_$stage"
    pack
done
rm -rf "$images_dir"
say "done"
cat "$out/report.md"
ls -la "$out"
exec > /dev/null 2>&1
wait "$tee_pid"  # log.txt whole before the call returns
