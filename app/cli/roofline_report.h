#pragma once
// The roofline in `kinetoscope summary`: the JSON object "roofline" (a stable contract,
// docs/summary-json.md) and the text section "Kernel efficiency".
#include "core/roofline/roofline.h"

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace kinetoscope::cli {

// `rows`: the op groups and kernels listed, by device time.
nlohmann::json rooflineJson(const roofline::Roofline& roofline, size_t rows);
std::string rooflineText(const roofline::Roofline& roofline, size_t rows);

}  // namespace kinetoscope::cli
