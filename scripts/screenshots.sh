#!/usr/bin/env bash
# Regenerates docs/screenshots/: each view of the real app on real traces, taken by the
# app itself (--screenshot) in a 1400x900 window under Xvfb.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
app="$root/build/bin/kinetoscope"
traces="$root/../shared/traces"
out="$root/docs/screenshots"
mkdir -p "$out"
shoot() {  # trace view file
    xvfb-run -a -s "-screen 0 1400x900x24" "$app" "$traces/$1" --screenshot "$out/$3" --view "$2"
}
shoot kineto/resnet50_v100_workers0_2021.pt.trace.json.gz overview overview.png
shoot kineto/resnet50_v100_workers0_2021.pt.trace.json.gz diagnosis diagnosis.png
shoot kineto/resnet50_v100_workers0_2021.pt.trace.json.gz operators operators.png
shoot kineto/resnet50_v100_workers0_2021.pt.trace.json.gz kernels kernels.png
shoot misc/aipe_b200_deepseek_v3_train_step.json.gz memory memory.png
shoot tracelens/rocm_mi300_resnet_act_checkpoint.json.gz modules modules.png
# The roofline beside the Operators table: the H100 CNN run's trace (its op groups under the
# fp32 and TF32 roofs, the labels placed clear of them).
xvfb-run -a -s "-screen 0 1400x900x24" "$app" "$root/tests/data/h100_runs/cnn224/trace.json.gz" \
    --screenshot "$out/roofline_operators.png" --view operators
# The timeline zoomed in: the first volta_sgemm_64x64_nt kernel selected, its launch arrow
# drawn.
xvfb-run -a -s "-screen 0 1400x900x24" "$app" "$traces/kineto/resnet50_v100_workers0_2021.pt.trace.json.gz" \
    --screenshot "$out/timeline_detail.png" --find volta_sgemm_64x64_nt
# The timeline as it opens on three kinds of run: training with its DataLoader in the loop,
# inference with every Python frame recorded (the frames spanning the window folded into
# one row, kernels overlapping on a stream on an extra row), a GPU-bound step on two
# streams (compute and NCCL).
shoot kineto/resnet50_v100_workers0_2021.pt.trace.json.gz timeline timeline_training_dataloader.png
shoot tracelens/b300_sglang_deepseek_r1_decode.json.gz timeline timeline_inference_python.png
shoot hta/allreduce_memory_rank1.json.gz timeline timeline_multistream.png
# The Compare document: 0 -> 4 DataLoader workers, its overview and the two timelines.
w0="$traces/kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"
w4="$traces/kineto/resnet50_v100_workers4_2021.pt.trace.json.gz"
for view in overview kernels timelines; do
    xvfb-run -a -s "-screen 0 1400x900x24" "$app" --compare "$w0" "$w4" --screenshot "$out/compare_$view.png" --view "$view"
done
# The Job document: the 4-rank gloo DDP job made here (rank 2 slowed in its data loading).
for view in overview heatmap collectives; do
    xvfb-run -a -s "-screen 0 1400x900x24" "$app" --job "$root/tests/data/ddp_gloo_4ranks" --screenshot "$out/job_$view.png" \
        --view "$view"
done
# A lab live on the CPU (the run itself takes about twenty seconds): a small transformer
# with every block checkpointed, under a 48 MiB limit that checkpointing fits twice the
# batch of.
xvfb-run -a -s "-screen 0 1400x900x24" "$app" --screenshot "$out/lab.png" --lab --model transformer --hidden 64 \
    --heads 4 --layers 4 --seq-len 64 --vocab 100 --device cpu --steps 30 --warmup 3 --lab --split \
    --sweep workers=0,1,2,4 --sweep batch=8,16,32,64,128 --checkpoint-every 1 --memory-limit-mb 48 \
    --sample-io-us 150 --sample-cpu-us 50 --batch-size 16 --out "$(mktemp -d)"
# The data-starved run recorded on an H100 (docs/gpu-run.md): its live view replayed.
xvfb-run -a -s "-screen 0 1400x900x24" "$app" "$root/tests/data/h100_runs/starved/session.kinetoscope.json" \
    --screenshot "$out/h100_starved_lab.png" --view lab
"$app" report "$traces/kineto/resnet50_v100_workers0_2021.pt.trace.json.gz" --out "$out/report.png"
echo "written to $out"
