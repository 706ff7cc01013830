#pragma once
// One trace, loaded, summarised and diagnosed: the unit a GUI document, the `report`
// command and the diagnosis export work on. Immutable once built.
#include "core/analysis/diagnosis/diagnosis.h"
#include "core/trace/trace_loader.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kinetoscope::analysis {

struct AnalysedTrace
{
    std::string path;
    trace::LoadStatus loadStatus = trace::LoadStatus::Ok;
    std::string loadMessage;  // one line when loadStatus is not Ok
    std::shared_ptr<const trace::TraceModel> model;  // null when nothing could be read
    TraceSummary summary;
    std::vector<Finding> findings;
    std::optional<LabMeasurements> lab;  // when the trace came with a lab session
    std::string sessionPath;             // the session file, when opened through one
    double loadSeconds = 0.0;
    double analysisSeconds = 0.0;
};

struct AnalysisProgress
{
    // Fraction 0..1 of the work done; called from the working thread.
    std::function<void(double)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

// Loads and analyses a trace file. Never throws: a file that cannot be read comes back
// with loadStatus/loadMessage set and no model.
// `lab`, when given, feeds the lab-aware diagnosis rules.
std::shared_ptr<AnalysedTrace> analyseTraceFile(const std::string& path, const SummaryOptions& options = {},
                                                const AnalysisProgress& progress = {},
                                                const LabMeasurements* lab = nullptr);

}  // namespace kinetoscope::analysis
