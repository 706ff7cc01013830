#pragma once
// A comparison as JSON and as terminal text (the Markdown is core/compare's, shared with
// the app's export).
#include "core/compare/comparison.h"

#include <nlohmann/json.hpp>
#include <string>

namespace kinetoscope::cli {

nlohmann::json comparisonJson(const compare::Comparison& comparison);
std::string comparisonText(const compare::Comparison& comparison);

}  // namespace kinetoscope::cli
