#pragma once
// The diagnosis as JSON, Markdown (ready to paste into a report) and text.
#include "core/analysis/diagnosis/diagnosis.h"

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace kinetoscope::cli {

// The findings alone (a job's diagnosis writes its own header above them): the JSON list,
// the Markdown table and sections, the numbered text.
nlohmann::json findingsJson(const std::vector<analysis::Finding>& findings);
std::string findingsMarkdown(const std::vector<analysis::Finding>& findings);
std::string findingsText(const std::vector<analysis::Finding>& findings);

// `summary` is the trace's; null for a lab session recorded without a trace (its findings
// are what the lab measured).
nlohmann::json diagnosisJson(const std::string& source,
                             const std::vector<analysis::Finding>& findings,
                             const analysis::TraceSummary* summary);
std::string diagnosisMarkdown(const std::string& source,
                              const std::vector<analysis::Finding>& findings,
                              const analysis::TraceSummary* summary);
std::string diagnosisText(const std::string& source, const std::vector<analysis::Finding>& findings,
                          const analysis::TraceSummary* summary);

}  // namespace kinetoscope::cli
