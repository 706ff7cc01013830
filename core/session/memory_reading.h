#pragma once
// The seeds' readings of a lab run's memory and of its batch-size sweep: which phase of a
// step sets the peak, whether the peak grows step over step, whether the caching
// allocator holds much more than the step ever used, and the batch size that fits.
#include "core/session/session.h"

#include <optional>
#include <string>

namespace kinetoscope::session {

// What sets the peak of a step: the phase after which the step's peak allocated first
// reached its maximum; a peak reached in backward is the activations' when the peak after
// the forward is within this share of it (seed 002's test), else the gradients'.
inline constexpr double kActivationsDominate = 0.8;
enum class PeakCause : uint8_t
{
    Activations,     // forward or loss, or backward with the activations still alive
    Gradients,       // backward, well above the forward's peak
    OptimizerState,  // the optimizer step (its state is created on the first step)
    Other,           // the batch itself, or zero_grad
};
const char*
peakCauseName(PeakCause cause);  // "activations", "gradients", "optimizer state", "other"

struct PeakReading
{
    std::string phase;  // as PhaseMemory::phase
    PeakCause cause = PeakCause::Other;
    int64_t peakBytes = 0;
    bool firstStep = false;  // the first step's peak is the larger one (optimizer state created)
};
// Nullopt when the allocator figures were not measured (the CPU).
std::optional<PeakReading> readPeak(const MemoryTriage& memory);

// The peak allocated grows at every step from `fromStep` to the last one (at least
// kGrowthSteps increases): something keeps each step's graph alive.
inline constexpr size_t kGrowthSteps = 3;
struct MemoryGrowth
{
    int64_t fromStep = 0;
    double bytesPerStep = 0;
};
std::optional<MemoryGrowth> readGrowth(const std::vector<int64_t>& peaks);

// Reserved at the end of the steady step over its peak allocated; above
// kReservedOverPeak, the caching allocator holds freed blocks the step never reuses.
inline constexpr double kReservedOverPeak = 1.5;
std::optional<double> reservedOverPeak(const MemoryTriage& memory);

// The batch-size sweep: the largest batch that ran, the fastest (samples/s) and the
// first that ran out of memory; of the series without checkpointing (0), or of the one
// checkpointing every N-th block.
struct BatchFit
{
    std::optional<int64_t> largestFits;
    std::optional<int64_t> fastest;
    std::optional<int64_t> firstOutOfMemory;
};
BatchFit readBatchFit(const Session& session, int64_t checkpointEvery = 0);

// Activation checkpointing as the batch-size sweep measured it: the same batch size
// without and with it, at the largest size both series ran.
struct CheckpointTrade
{
    int64_t every = 0;  // every N-th block
    int64_t batchSize = 0;
    int64_t peakWithoutBytes = -1;  // -1 when the peak was not measured
    int64_t peakWithBytes = -1;
    double stepWithoutMs = 0;
    double stepWithMs = 0;
    double memorySaved() const;  // fraction of the peak, 0 when not measured
    double timeCost() const;     // fraction of the step, > 0 when slower
};
std::optional<CheckpointTrade> readCheckpointTrade(const Session& session);
// "checkpointing every block", "checkpointing every 2nd block", ...
std::string checkpointingName(int64_t every);

}  // namespace kinetoscope::session
