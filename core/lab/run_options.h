#pragma once
// The run's knobs as command-line options, shared by `kinetoscope run`, the GUI's
// `kinetoscope --lab ...` and `kinetoscope-engine` (which the other two start with the
// options runOptionArgs writes). Torch-free.
#include "core/lab/run_config.h"

#include <string>
#include <vector>

namespace kinetoscope::lab {

// Fills `config` from options like "--model cnn --batch-size 64 --sweep workers=0,2";
// false + a one-line reason on an unknown option or a bad value.
bool parseRunOptions(const std::vector<std::string>& args, RunConfig& config, std::string& error);
// Whether a run with `config` can start, as far as can be told without torch: names,
// counts, the model and data files. parseRunOptions ends with it; the engine checks again
// what only torch can tell (a CUDA device, the files' contents). False + a one-line reason.
bool validateRunConfig(const RunConfig& config, std::string& error);
// mlp, cnn or transformer (anything else names a TorchScript file).
bool isBuiltInModel(const std::string& model);
// The options that parseRunOptions reads back into `config` (every field, the test-only
// fault knobs included), for the engine's command line.
std::vector<std::string> runOptionArgs(const RunConfig& config);
// Does `args` name an output folder (--out)?
bool hasOutOption(const std::vector<std::string>& args);
extern const char* const kRunOptionsHelp;
// Why --memory-snapshot cannot run on the CPU (the parser and the engine say it alike).
extern const char* const kMemorySnapshotNeedsGpu;

}  // namespace kinetoscope::lab
