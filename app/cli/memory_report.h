#pragma once
// A memory snapshot's figures as JSON (the stable contract in docs/memory.md), text and
// Markdown.
#include "core/snapshot/peak_in_trace.h"
#include "core/snapshot/snapshot_summary.h"

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace kinetoscope::cli {

// `inTrace`: the peak placed in a trace of the same run (--trace), or null.
nlohmann::json memoryJson(const std::string& source, const snapshot::SnapshotModel& model,
                          const snapshot::SnapshotSummary& summary,
                          const snapshot::PeakInTrace* inTrace = nullptr);
std::string memoryText(const std::string& source, const snapshot::SnapshotModel& model,
                       const snapshot::SnapshotSummary& summary, bool markdown,
                       const snapshot::PeakInTrace* inTrace = nullptr);

}  // namespace kinetoscope::cli
