#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace kinetoscope::cli {

// `kinetoscope run --model M --dataset D [--device auto|cpu|cuda] [--batch-size N]
//  [--steps N] [--warmup N] [--workers N] [--lab] [--split] [--profile] --out DIR`
// Writes DIR/session.kinetoscope.json (and DIR/trace.json with --profile), prints the
// diagnosis. Exit 2 with one line on a bad model/dataset/option or a failed run.
int runRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kinetoscope::cli
