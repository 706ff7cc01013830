#pragma once
// What torch.compile made of the window in `kinetoscope summary`: the JSON object
// "compiled" (docs/summary-json.md) and the text section "torch.compile", shown only for a
// trace with compiled code.
#include "core/compiled/compiled_window.h"

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace kinetoscope::cli {

nlohmann::json compiledJson(const compiled::CompiledWindow& window);
std::string compiledText(const compiled::CompiledWindow& window);  // "" when nothing was compiled

}  // namespace kinetoscope::cli
