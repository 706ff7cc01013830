#pragma once
// A memory snapshot's figures as JSON (the stable contract in docs/memory.md), text and
// Markdown.
#include "core/snapshot/snapshot_summary.h"

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace kinetoscope::cli {

nlohmann::json memoryJson(const std::string& source, const snapshot::SnapshotModel& model,
                          const snapshot::SnapshotSummary& summary);
std::string memoryText(const std::string& source, const snapshot::SnapshotModel& model,
                       const snapshot::SnapshotSummary& summary, bool markdown);

}  // namespace kinetoscope::cli
