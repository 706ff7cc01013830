#pragma once
// Compares two trace models field by field: every string, track, event (links included),
// side table, flow, memory sample, the metadata and the ingest counts (the load time
// aside). Returns a one-line description of the first difference, or "" when the models
// are the same.
#include "core/trace/trace_model.h"

#include <string>

namespace kinetoscope::test {

std::string firstDifference(const trace::TraceModel& a, const trace::TraceModel& b);

}  // namespace kinetoscope::test
