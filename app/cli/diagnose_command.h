#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace kinetoscope::cli {

// `kinetoscope diagnose TRACE [--json|--markdown] [--fail-on SEVERITY]
//                             [--threshold NAME=VALUE]... [--step-marker NAME]`
// Exit 1 when a finding at or above --fail-on exists, 2 on bad input.
int runDiagnose(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kinetoscope::cli
