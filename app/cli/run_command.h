#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace kinetoscope::cli {

// `kinetoscope run --model M --dataset D [knobs] [--lab] [--split] [--sweep K=V,...]
//  [--profile] --out DIR` (the knobs: `kinetoscope run --help`). Writes
// DIR/session.kinetoscope.json (and DIR/trace.json with --profile), prints the lab
// table, the seeds' reading and the diagnosis. A progress bar goes to stderr when it is
// a terminal. Exit 2 with one line on a bad model/dataset/option or a failed run.
int runRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kinetoscope::cli
