#pragma once
// What `kinetoscope info` reports about a loaded trace, as JSON and as text. Both are
// built from the same facts so they cannot disagree.
#include "core/trace/trace_loader.h"

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace kinetoscope::cli {

// Requires result.model. Keys: see README ("kinetoscope info --json").
nlohmann::json infoJson(const std::string& path, const trace::LoadResult& result);
std::string infoText(const std::string& path, const trace::LoadResult& result);

}  // namespace kinetoscope::cli
