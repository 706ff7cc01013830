#pragma once
// The rule functions (see diagnosis.cpp for the catalogue and docs/diagnosis.md).
#include "core/analysis/diagnosis/diagnosis.h"

#include <optional>

namespace kinetoscope::analysis::rules {

using trace::Event;

void warmUpInWindow(const DiagnosisInput& in, std::vector<Finding>& out);
void extraPassInWindow(const DiagnosisInput& in, std::vector<Finding>& out);
void captureWindow(const DiagnosisInput& in, std::vector<Finding>& out);
void startsInsideEarlierWork(const DiagnosisInput& in, std::vector<Finding>& out);
void missingDeviceActivity(const DiagnosisInput& in, std::vector<Finding>& out);
void windowTooShort(const DiagnosisInput& in, std::vector<Finding>& out);
void nothingRecorded(const DiagnosisInput& in, std::vector<Finding>& out);
void traceQuality(const DiagnosisInput& in, std::vector<Finding>& out);
void pythonBound(const DiagnosisInput& in, std::vector<Finding>& out);
void dataloaderBound(const DiagnosisInput& in, std::vector<Finding>& out);
void lowGpuUtilization(const DiagnosisInput& in, std::vector<Finding>& out);
void launchBound(const DiagnosisInput& in, std::vector<Finding>& out);
void unstableSteps(const DiagnosisInput& in, std::vector<Finding>& out);
void noTensorCores(const DiagnosisInput& in, std::vector<Finding>& out);
void tensorCoreMisaligned(const DiagnosisInput& in, std::vector<Finding>& out);
void optimizerUnfused(const DiagnosisInput& in, std::vector<Finding>& out);
void copyHeavy(const DiagnosisInput& in, std::vector<Finding>& out);
void hostSync(const DiagnosisInput& in, std::vector<Finding>& out);
void pageableMemcpy(const DiagnosisInput& in, std::vector<Finding>& out);
void memoryGrowth(const DiagnosisInput& in, std::vector<Finding>& out);
void allocatorFragmentation(const DiagnosisInput& in, std::vector<Finding>& out);
void nearOom(const DiagnosisInput& in, std::vector<Finding>& out);
void allocatorChurn(const DiagnosisInput& in, std::vector<Finding>& out);
void communicationHeavy(const DiagnosisInput& in, std::vector<Finding>& out);
void dataParallel(const DiagnosisInput& in, std::vector<Finding>& out);
void unfusedElementwise(const DiagnosisInput& in, std::vector<Finding>& out);
// Compiled runs (rules_compiled.cpp): torch.compile's graph breaks, recompilations and generated
// kernels far under the memory bandwidth.
void graphBreak(const DiagnosisInput& in, std::vector<Finding>& out);
void recompilation(const DiagnosisInput& in, std::vector<Finding>& out);
void compiledBelowBandwidth(const DiagnosisInput& in, std::vector<Finding>& out);
// From the roofline (rules_roofline.cpp).
void belowRoofline(const DiagnosisInput& in, std::vector<Finding>& out);
void attentionUnfused(const DiagnosisInput& in, std::vector<Finding>& out);
// Windows without device activity (rules_host.cpp): the host's story.
void hostOnlyDataLoader(const DiagnosisInput& in, std::vector<Finding>& out);
void randomDataInLoop(const DiagnosisInput& in, std::vector<Finding>& out);
void hostOnlyPython(const DiagnosisInput& in, std::vector<Finding>& out);
void hostOptimizerUnfused(const DiagnosisInput& in, std::vector<Finding>& out);
void hostComputeBound(const DiagnosisInput& in, std::vector<Finding>& out);
void cpuOnlyWindow(const DiagnosisInput& in, std::vector<Finding>& out);
void gpuNotUsed(const DiagnosisInput& in, std::vector<Finding>& out);
// Windows without host activity (rules_device_only.cpp): the device's timeline alone.
void hostNotRecorded(const DiagnosisInput& in, std::vector<Finding>& out);
void shortKernelsIdleGaps(const DiagnosisInput& in, std::vector<Finding>& out);
// A device-only window's idle time between kernels, per step (ns), where it shows the
// signature of a host that cannot keep up: the device idle most of the step between short
// kernels. Empty otherwise, and wherever the host was recorded.
struct DeviceGaps
{
    double busyShare = 0;       // device busy / step
    double kernels = 0;         // kernels per step
    double medianKernelNs = 0;  // over the judged steps
    double gaps = 0;            // gaps between activities per step
    double gapNs = 0;           // idle between the first and the last activity, per step
    double recoverableNs = 0;   // gapNs less what a full queue still leaves per gap
};
std::optional<DeviceGaps> deviceGapsWithoutHost(const DiagnosisInput& in);
// The lab rules (rules_lab.cpp): measured findings, from a session only.
void labBaseline(const DiagnosisInput& in, std::vector<Finding>& out);
void labSplit(const DiagnosisInput& in, std::vector<Finding>& out);
// The DataLoader fix where the workers sweep measured every count above its fewest slower.
std::string moreWorkersRanSlower(const LabMeasurements& lab);  // lab.workersSweep set
void labMemory(const DiagnosisInput& in, std::vector<Finding>& out);
void labInterrupted(const DiagnosisInput& in, std::vector<Finding>& out);
void labOutsidePhases(const DiagnosisInput& in, std::vector<Finding>& out);
void labMachineShared(const DiagnosisInput& in, std::vector<Finding>& out);
// The trace's steps against a session's measured ones (rules_window.cpp).
void windowUnlikeRun(const DiagnosisInput& in, std::vector<Finding>& out);

}  // namespace kinetoscope::analysis::rules
