#pragma once
// The rule functions (see diagnosis.cpp for the catalogue and docs/diagnosis.md).
#include "core/analysis/diagnosis/diagnosis.h"

namespace kinetoscope::analysis::rules {

using trace::Event;

void warmUpInWindow(const DiagnosisInput& in, std::vector<Finding>& out);
void captureWindow(const DiagnosisInput& in, std::vector<Finding>& out);
void startsInsideEarlierWork(const DiagnosisInput& in, std::vector<Finding>& out);
void missingDeviceActivity(const DiagnosisInput& in, std::vector<Finding>& out);
void windowTooShort(const DiagnosisInput& in, std::vector<Finding>& out);
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
// From the roofline (rules_roofline.cpp).
void belowRoofline(const DiagnosisInput& in, std::vector<Finding>& out);
void attentionUnfused(const DiagnosisInput& in, std::vector<Finding>& out);
// Windows without device activity (rules_host.cpp): the host's story.
void hostOnlyDataLoader(const DiagnosisInput& in, std::vector<Finding>& out);
void randomDataInLoop(const DiagnosisInput& in, std::vector<Finding>& out);
void hostOnlyPython(const DiagnosisInput& in, std::vector<Finding>& out);
void hostComputeBound(const DiagnosisInput& in, std::vector<Finding>& out);
void cpuOnlyWindow(const DiagnosisInput& in, std::vector<Finding>& out);
// The lab rules (rules_lab.cpp): measured findings, from a session only.
void labBaseline(const DiagnosisInput& in, std::vector<Finding>& out);
void labSplit(const DiagnosisInput& in, std::vector<Finding>& out);
void labMemory(const DiagnosisInput& in, std::vector<Finding>& out);
void labInterrupted(const DiagnosisInput& in, std::vector<Finding>& out);

}  // namespace kinetoscope::analysis::rules
