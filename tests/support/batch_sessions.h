#pragma once
// Two lab sessions of one CPU mlp, recorded without a trace, whose only change is the
// batch size (32 -> 64): each step takes 1.9x as long, but the fp32 arm goes from 1,441 to
// 1,520 samples/s (issue 50). Sixteen measured steps a side, a little noise in each.
#include "core/session/session.h"

#include <filesystem>
#include <string>

namespace kinetoscope::test {

inline session::Session batchSession(int64_t batch, double samplesPerSecond)
{
    session::Session s;
    s.config = {{"model", "mlp"},  {"dataset", "synthetic"},
                {"device", "cpu"}, {"mode", "training"},
                {"steps", "16"},   {"warmup", "2"},
                {"workers", "0"},  {"batch_size", std::to_string(batch)}};
    s.environment = {{"device", "CPU"}, {"cpu_bf16", "none"}};
    const double stepMs = 1000.0 * double(batch) / samplesPerSecond;
    session::LabArm fp32;
    fp32.ran = true;
    fp32.samplesPerSecond = samplesPerSecond;
    fp32.meanStepMs = stepMs;
    s.lab = {fp32};
    for (int64_t i = 0; i < 16; ++i) {
        const double scale = 1.0 + 0.01 * double(i % 5 - 2);
        session::StepTiming t;
        t.step = 2 + i;
        t.dataMs = 0.012;
        t.h2dMs = 0.001;
        t.forwardMs = stepMs * 0.33 * scale;
        t.backwardMs = stepMs * 0.50 * scale;
        t.optimizerMs = stepMs * 0.17 * scale;
        t.loss = 2.3;
        s.steps.push_back(t);
    }
    return s;
}

// Writes before (batch 32) and after (batch 64) into `dir`; false + error when it cannot.
// With `trace`, both sessions name it as their profiled trace (as a --profile run does).
inline bool writeBatchSessions(const std::filesystem::path& dir, std::string& beforePath,
                               std::string& afterPath, std::string& error,
                               const std::string& trace = {})
{
    const std::string suffix = trace.empty() ? "" : "_traced";
    beforePath = (dir / ("batch32" + suffix + ".kinetoscope.json")).string();
    afterPath = (dir / ("batch64" + suffix + ".kinetoscope.json")).string();
    session::Session before = batchSession(32, 1441.0), after = batchSession(64, 1520.0);
    before.tracePath = after.tracePath = trace;
    return session::saveSession(before, beforePath, error) &&
           session::saveSession(after, afterPath, error);
}

}  // namespace kinetoscope::test
