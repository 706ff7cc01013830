#pragma once
// The tables `kinetoscope summary TRACE --csv TABLE` writes: CSV (RFC 4180, core/format/
// csv.h) with a header row and raw numbers in the units the headers state, for
// spreadsheets and notebooks. A trace has ops, kernels, steps and memory-by-op; a job
// (several ranks) has ranks and collectives.
#include "core/analysis/summary.h"
#include "core/job/job.h"

#include <optional>
#include <string>

namespace kinetoscope::cli {

inline constexpr const char* kTraceCsvTables = "ops, kernels, steps, memory-by-op";
inline constexpr const char* kJobCsvTables = "ranks, collectives";

bool isTraceCsvTable(const std::string& table);
bool isJobCsvTable(const std::string& table);

// The table's CSV; `originNs` is the trace's first event (times count from it).
std::string traceCsv(const std::string& table, const analysis::TraceSummary& summary,
                     int64_t originNs);
std::string jobCsv(const std::string& table, const job::Job& job);

}  // namespace kinetoscope::cli
