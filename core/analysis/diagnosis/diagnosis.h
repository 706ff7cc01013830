#pragma once
// The diagnosis: every rule run over one trace's summary, findings ranked by the time
// per step that fixing them would save (then by severity).
#include "core/analysis/diagnosis/finding.h"
#include "core/analysis/diagnosis/thresholds.h"
#include "core/analysis/summary.h"

#include <optional>

namespace kinetoscope::analysis {

// What only a live run measures (the engine's three-run baseline and the DataLoader-vs-
// compute split, issue #6). Every field is optional: a trace alone has none of them.
struct LabMeasurements
{
    std::optional<double> fp32StepNs;      // mean step time, fp32
    std::optional<double> bf16StepNs;      // mean step time, bf16 autocast
    std::optional<double> graphedStepNs;   // mean step time, bf16 + CUDA graph
    std::optional<double> dataLoaderNs;    // mean time per step waiting for the next batch
    std::optional<double> computeNs;       // mean time per step of forward+backward+optimizer
};

struct DiagnosisInput
{
    const trace::TraceModel& model;
    const TraceSummary& summary;
    const Thresholds& thresholds;
    const LabMeasurements* lab = nullptr;
};

// A rule looks at the input and returns zero or more findings.
using Rule = void (*)(const DiagnosisInput& input, std::vector<Finding>& findings);

struct RuleInfo
{
    const char* id;
    Rule rule;
};
// Every rule, in catalogue order (docs/diagnosis.md).
const std::vector<RuleInfo>& ruleCatalogue();

std::vector<Finding> diagnose(const DiagnosisInput& input);

}  // namespace kinetoscope::analysis
