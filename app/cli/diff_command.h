#pragma once
// `kinetoscope diff BEFORE AFTER [--json|--markdown] [--fail-on-regression PCT]
//                  [--step-marker NAME]`: the verdict on step time and where the change
// came from. Exit 1 when AFTER is slower by more than PCT % with confidence.
#include <iosfwd>
#include <string>
#include <vector>

namespace kinetoscope::cli {

int runDiff(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kinetoscope::cli
