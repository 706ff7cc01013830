#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace kinetoscope::cli {

// `kinetoscope info TRACE [--json]`. On a truncated or malformed trace it still prints
// what was recovered, then the one-line reason on stderr, and returns 2.
int runInfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kinetoscope::cli
