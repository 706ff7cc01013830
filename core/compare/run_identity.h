#pragma once
// What must match before two runs' step times can be compared as they are: the hardware
// (the devices the traces name) and the batch size. Two lab sessions name their batch
// size in their configuration. A trace does not; it is read from the input shapes of the
// ops both runs share: when the ops' most frequent shapes differ only in their leading
// dimension, by one factor, the batch changed by that factor. Either way the comparison
// moves to time per sample.
#include "core/analysis/op_table.h"
#include "core/session/session.h"
#include "core/trace/trace_model.h"

#include <optional>
#include <string>

namespace kinetoscope::compare {

struct Hardware
{
    // "NVIDIA", "AMD", "MTIA"; "CPU" for a run known to have used no accelerator (a trace
    // without any launch or device activity, a lab session on the CPU); "" when unknown.
    std::string vendor;
    std::string devices;  // the device names, distinct, joined with " + " ("" when none)
    bool operator==(const Hardware&) const = default;
    std::string text() const;  // "NVIDIA A100-SXM4-80GB", "AMD GPU", "CPU", "unknown hardware"
};
// `cpuOnly`: the window classification found no launch and no device activity at all.
Hardware hardwareOf(const trace::TraceModel& model, bool cpuOnly);
// A lab session's, from its environment (the device it ran on).
Hardware hardwareOf(const session::Session& session);

struct BatchChange
{
    int64_t before = 0;  // the leading dimension most of the shared ops agree on
    int64_t after = 0;
    int opsAgreeing = 0;  // shared ops whose shapes changed by the same factor, and only there
    // Two lab sessions: their configurations' batch_size (no shapes read, opsAgreeing 0).
    bool configured = false;
    double factor() const { return before > 0 ? double(after) / double(before) : 1.0; }
    // Where it was read: "the configuration" or "the input shapes of 12 ops".
    std::string source() const;
};

// A changed batch, when the shared ops show one; nullopt when the batch is the same or no
// op with shapes is shared. `before`/`after`: the by-name-and-shapes op tables.
std::optional<BatchChange> detectBatchChange(const std::vector<analysis::OpStats>& before,
                                             const std::vector<analysis::OpStats>& after);

// Two lab sessions whose configurations name different batch sizes (batch_size, a positive
// integer on both sides); nullopt when they agree or a side does not say.
std::optional<BatchChange> configuredBatchChange(const session::Session& before,
                                                 const session::Session& after);

// How a run's matrix multiplications and convolutions vary in shape from step to step:
// steps whose GEMMs run other shapes do other work (a sequence length that changes every
// step, torch.compile(dynamic=True) on inputs of several lengths). Read from the traced input
// shapes; nothing where none were recorded.
struct StepShapes
{
    size_t steps = 0;       // steps with a GEMM of known shapes
    size_t signatures = 0;  // distinct per-step sets of (GEMM, input shapes)
    std::string op;         // the GEMM with the most shapes not run in every step
    size_t opShapes = 0;    // and how many
    bool varies() const { return steps > 1 && signatures > 1; }
};
// `steps`: the steady steps, [begin, end) ns, sorted and not overlapping.
StepShapes stepShapes(const trace::TraceModel& model,
                      const std::vector<std::pair<int64_t, int64_t>>& steps);

// "[[32, 3, 224, 224], [64, 3, 7, 7]]" -> {{32, 3, 224, 224}, {64, 3, 7, 7}}; an input
// that is not a list of dimensions (a scalar, "[]") is an empty shape.
std::vector<std::vector<int64_t>> parseShapes(std::string_view text);

}  // namespace kinetoscope::compare
