#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace kinetoscope::cli {

// `kinetoscope memory SNAPSHOT [--json|--markdown]`: a CUDA memory snapshot's figures.
// A file that cannot be read as one: one line on stderr, exit 2.
int runMemory(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kinetoscope::cli
