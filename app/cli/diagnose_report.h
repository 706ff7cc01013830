#pragma once
// The diagnosis as JSON, Markdown (ready to paste into a report) and text.
#include "core/analysis/diagnosis/diagnosis.h"

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace kinetoscope::cli {

nlohmann::json diagnosisJson(const std::string& source, const std::vector<analysis::Finding>& findings,
                             const analysis::TraceSummary& summary);
std::string diagnosisMarkdown(const std::string& source, const std::vector<analysis::Finding>& findings,
                              const analysis::TraceSummary& summary);
std::string diagnosisText(const std::string& source, const std::vector<analysis::Finding>& findings,
                          const analysis::TraceSummary& summary);

}  // namespace kinetoscope::cli
