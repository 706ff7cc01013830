#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace kinetoscope::cli {

// `kinetoscope profile [options] [--out DIR] -- COMMAND...`: the user's own script (COMMAND,
// `python train.py ARGS` or `python -m package.train ARGS`) run under the probe
// (core/lab/probe_process.h). The script's output, standard input and signals are its own;
// at its end the session (and trace) are named and the diagnosis printed. The exit code is
// the script's (128 + N for a signal), 2 for a usage error of the launcher itself.
int runProfile(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kinetoscope::cli
