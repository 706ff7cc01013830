#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace kinetoscope::cli {

// `kinetoscope summary TRACE [--json|--csv TABLE] [--series] [--step-marker NAME]`.
int runSummary(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kinetoscope::cli
