#pragma once
// The top-level keys of a trace object other than `traceEvents`: small values, read with
// nlohmann_json into TraceMetadata.
#include "core/trace/trace_metadata.h"

#include <string_view>

namespace kinetoscope::trace {

// Reads one top-level `key: value` pair. Returns false (and leaves `metadata` unchanged)
// when the value is not valid JSON even after mending Windows-path backslashes.
bool readTopLevelValue(std::string_view key, std::string_view text, TraceMetadata& metadata);

}  // namespace kinetoscope::trace
