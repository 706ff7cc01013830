#pragma once
// What `kinetoscope summary` reports, as JSON (schema in docs/summary-json.md) and as
// text, both from one TraceSummary.
#include "core/analysis/summary.h"
#include "core/trace/trace_loader.h"

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace kinetoscope::cli {

struct SummaryReportOptions
{
    bool includeSeries = false;  // the utilisation time series (1000 values per device)
    size_t topRows = 20;         // rows of the op and kernel tables
    size_t memoryPoints = 0;  // > 0: each device's memory curve, reduced to about this many points
};

nlohmann::json summaryJson(const std::string& path, const trace::LoadResult& loaded,
                           const analysis::TraceSummary& summary, double analysisSeconds,
                           const SummaryReportOptions& options = {});
std::string summaryText(const std::string& path, const trace::LoadResult& loaded,
                        const analysis::TraceSummary& summary, double analysisSeconds,
                        const SummaryReportOptions& options = {});

}  // namespace kinetoscope::cli
