#pragma once
// The run's knobs as command-line options, shared by `kinetoscope run` and the GUI's
// `kinetoscope --lab ...`. Torch-free.
#include "core/engine/run_config.h"

#include <string>
#include <vector>

namespace kinetoscope::engine {

// Fills `config` from options like "--model cnn --batch-size 64 --sweep workers=0,2";
// false + a one-line reason on an unknown option or a bad value.
bool parseRunOptions(const std::vector<std::string>& args, RunConfig& config, std::string& error);
// Does `args` name an output folder (--out)?
bool hasOutOption(const std::vector<std::string>& args);
extern const char* const kRunOptionsHelp;

}  // namespace kinetoscope::engine
