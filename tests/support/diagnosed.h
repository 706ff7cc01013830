#pragma once
// A trace loaded, summarised and diagnosed, for the diagnosis test suites.
#include "core/analysis/diagnosis/diagnosis.h"
#include "core/trace/trace_model.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace kinetoscope::test {

struct Diagnosed
{
    std::shared_ptr<const trace::TraceModel> model;  // null when the trace could not be read
    analysis::TraceSummary summary;
    std::vector<analysis::Finding> findings;
};

// From JSON text (a generated scenario) or from a file.
Diagnosed diagnoseText(const std::string& json, const analysis::Thresholds& thresholds = {},
                       const analysis::LabMeasurements* lab = nullptr);
Diagnosed diagnoseFile(const std::filesystem::path& path,
                       const analysis::LabMeasurements* lab = nullptr);

// The first finding with this id, or null.
const analysis::Finding* findFinding(const std::vector<analysis::Finding>& findings,
                                     const std::string& id);

// The value of the evidence figure `name` of `f`, or NaN when it has none.
double figure(const analysis::Finding& f, const std::string& name);

}  // namespace kinetoscope::test
