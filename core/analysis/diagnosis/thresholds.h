#pragma once
// Every number a rule compares against, in one place, with its default and meaning.
// Overridable by name (`kinetoscope diagnose --threshold NAME=VALUE`).
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::analysis {

struct Thresholds
{
    // dataloader-bound: GPU-idle DataLoader time as a share of the step.
    double dataloaderShare = 0.05;  // TensorBoard plugin: 5 %
    // low-gpu-utilization: kernel-busy fraction of the steps' span.
    double lowUtilization = 0.50;    // plugin and Nsight: 50 %
    double idleStretchUs = 500'000;  // Nsight's GPU starvation: idle > 500 ms
    // python-bound: step saved without the Python stretches between launches, a share.
    double pythonShare = 0.05;
    // launch-bound: GPU idle while the host dispatches and launches, and the step saved
    // without that host time, each as a share of the step.
    double launchHostWaitShare = 0.10;
    // no-tensor-cores: GEMM/conv kernel time as a share of kernel time, below which
    // the rule stays quiet, and the Tensor Core share below which it fires.
    double tensorCoreEligibleShare = 0.10;
    double tensorCoreShareMax = 0.05;
    // tensor-core-misaligned: device time of misaligned GEMM/conv ops, share of kernels.
    double misalignedShare = 0.05;
    // host-sync: blocked time per step as a share of the step.
    double hostSyncShare = 0.02;
    // pageable-memcpy: pageable host-to-device copy time as a share of the step.
    double pageableShare = 0.01;
    // copy-heavy: device time of copies/conversions inside the model, a share of the step.
    double copyShare = 0.10;
    // memory-growth: growth of allocated memory at step start, first to last step,
    // as a share of the peak, over at least this many steps.
    double memoryGrowthShare = 0.02;
    double memoryGrowthMinSteps = 3;
    // allocator-fragmentation: peak reserved / peak allocated, and the gap in bytes.
    double fragmentationRatio = 1.5;
    double fragmentationMinBytes = 1e9;
    // near-oom: peak memory as a share of the device's total memory (plugin: 90 %).
    double nearOomShare = 0.90;
    // communication-heavy: exposed collective time as a share of the step (plugin: 10 %).
    double communicationShare = 0.10;
    // optimizer-unfused: kernels launched inside Optimizer.step per step.
    double optimizerKernelsPerStep = 200;
    // unstable-steps: coefficient of variation of step times, or slowest / median.
    double unstableCv = 0.20;
    double unstableMaxOverMedian = 1.5;
    // unfused-elementwise: memory-bound pointwise/norm/reduction kernels, share of kernel time.
    double fusibleShare = 0.25;
    // compiled-below-bandwidth: the device time of torch.compile's generated kernels judged
    // far under the memory bandwidth (roofline_gaps.h), a share of the step.
    double compiledBelowBandwidthShare = 0.03;
    // allocator-churn: driver allocation calls in a step, a share of it, in most steps.
    double allocatorChurnShare = 0.05;
    // Windows without device activity (rules_host.cpp), each a share of the step: random data
    // drawn by the loop itself, time in no recorded op, and one op's self time (a CPU run).
    double randomDataShare = 0.05;
    double hostOutsideOpsShare = 0.10;
    double hostHotspotShare = 0.30;

    // Sets one threshold by its name as in the list below; false for an unknown name.
    bool set(std::string_view name, double value);
    // (name, value, meaning) for every threshold, for `--help` and the docs.
    std::vector<std::tuple<std::string, double, std::string>> describe() const;
};

}  // namespace kinetoscope::analysis
