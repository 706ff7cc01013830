#pragma once
// A lab run small enough for a test on the CPU: the mlp on synthetic data.
#include "core/lab/run_config.h"

#include <string>

namespace kinetoscope::test {

inline lab::RunConfig smallLabRun(std::string outDir, int64_t steps)
{
    lab::RunConfig c;
    c.model = "mlp";
    c.device = "cpu";
    c.steps = steps;
    c.warmup = 2;
    c.batchSize = 32;
    c.inputFeatures = 64;
    c.hidden = 128;
    c.outDir = std::move(outDir);
    return c;
}

}  // namespace kinetoscope::test
