#include "core/session/memory_reading.h"

#include <algorithm>

namespace kinetoscope::session {

namespace {

// The row after which the step's running peak first reached its maximum; nullptr when
// the rows carry no allocator figures.
const PhaseMemory* peakRow(const std::vector<PhaseMemory>& rows)
{
    const PhaseMemory* best = nullptr;
    for (const PhaseMemory& row : rows)
        if (row.peakAllocatedBytes >= 0 &&
            (!best || row.peakAllocatedBytes > best->peakAllocatedBytes))
            best = &row;
    return best;
}

PeakCause causeOf(const std::string& phase)
{
    if (phase == "forward" || phase == "loss")
        return PeakCause::Activations;
    if (phase == "backward")
        return PeakCause::Gradients;
    if (phase == "optimizer step")
        return PeakCause::OptimizerState;
    return PeakCause::Other;
}

}  // namespace

const char* peakCauseName(PeakCause cause)
{
    switch (cause) {
    case PeakCause::Activations:
        return "activations";
    case PeakCause::Gradients:
        return "gradients";
    case PeakCause::OptimizerState:
        return "optimizer state";
    case PeakCause::Other:
        return "other";
    }
    return "other";
}

std::optional<PeakReading> readPeak(const MemoryTriage& memory)
{
    const PhaseMemory* steady = peakRow(memory.steadyStep);
    const PhaseMemory* first = peakRow(memory.firstStep);
    const bool firstLarger =
        first && (!steady || first->peakAllocatedBytes > steady->peakAllocatedBytes);
    const PhaseMemory* row = firstLarger ? first : steady;
    if (!row)
        return std::nullopt;
    PeakCause cause = causeOf(row->phase);
    if (cause == PeakCause::Gradients) {
        // Backward frees the activations as it goes and adds the gradients: the seed's
        // test tells which set the peak. A peak after the forward within 80 % of the
        // backward's means the activations, still alive when backward starts, did.
        const std::vector<PhaseMemory>& rows = firstLarger ? memory.firstStep : memory.steadyStep;
        for (const PhaseMemory& r : rows)
            if ((r.phase == "forward" || r.phase == "loss") &&
                double(r.peakAllocatedBytes) >
                    kActivationsDominate * double(row->peakAllocatedBytes))
                cause = PeakCause::Activations;
    }
    return PeakReading{row->phase, cause, row->peakAllocatedBytes, firstLarger};
}

std::optional<MemoryGrowth> readGrowth(const std::vector<int64_t>& peaks)
{
    // Step 0 creates the optimizer's state, so growth is looked for from step 1 on.
    if (peaks.size() < kGrowthSteps + 2)
        return std::nullopt;
    size_t from = peaks.size() - 1;
    while (from > 1 && peaks[from - 1] < peaks[from])
        --from;
    const size_t increases = peaks.size() - 1 - from;
    if (increases < kGrowthSteps)
        return std::nullopt;
    return MemoryGrowth{int64_t(from), double(peaks.back() - peaks[from]) / double(increases)};
}

std::optional<double> reservedOverPeak(const MemoryTriage& memory)
{
    const PhaseMemory* peak = peakRow(memory.steadyStep);
    if (!peak || peak->peakAllocatedBytes <= 0 || memory.steadyStep.back().reservedBytes < 0)
        return std::nullopt;
    return double(memory.steadyStep.back().reservedBytes) / double(peak->peakAllocatedBytes);
}

BatchFit readBatchFit(const Session& session, int64_t checkpointEvery)
{
    BatchFit fit;
    double fastest = 0;
    for (const SweepPoint& p : session.sweep) {
        if (p.knob != "batch_size" || p.checkpointEvery != checkpointEvery)
            continue;
        if (p.error.starts_with("out of memory")) {
            if (!fit.firstOutOfMemory || p.value < *fit.firstOutOfMemory)
                fit.firstOutOfMemory = p.value;
            continue;
        }
        if (!p.error.empty() || p.samplesPerSecond <= 0)
            continue;
        if (!fit.largestFits || p.value > *fit.largestFits)
            fit.largestFits = p.value;
        if (p.samplesPerSecond > fastest) {
            fastest = p.samplesPerSecond;
            fit.fastest = p.value;
        }
    }
    return fit;
}

double CheckpointTrade::memorySaved() const
{
    if (peakWithoutBytes <= 0 || peakWithBytes < 0)
        return 0.0;
    return double(peakWithoutBytes - peakWithBytes) / double(peakWithoutBytes);
}

double CheckpointTrade::timeCost() const
{
    return stepWithoutMs > 0 ? (stepWithMs - stepWithoutMs) / stepWithoutMs : 0.0;
}

std::string checkpointingName(int64_t every)
{
    if (every <= 1)
        return "checkpointing every block";
    const int64_t lastTwo = every % 100, last = every % 10;
    const char* suffix = (lastTwo >= 11 && lastTwo <= 13) ? "th"
                         : last == 1                      ? "st"
                         : last == 2                      ? "nd"
                         : last == 3                      ? "rd"
                                                          : "th";
    return "checkpointing every " + std::to_string(every) + suffix + " block";
}

std::optional<CheckpointTrade> readCheckpointTrade(const Session& session)
{
    auto ran = [](const SweepPoint& p) {
        return p.knob == "batch_size" && p.error.empty() && p.meanStepMs > 0;
    };
    std::optional<CheckpointTrade> trade;
    for (const SweepPoint& with : session.sweep) {
        if (with.checkpointEvery <= 0 || !ran(with) || (trade && with.value <= trade->batchSize))
            continue;
        for (const SweepPoint& without : session.sweep)
            if (without.checkpointEvery == 0 && without.value == with.value && ran(without))
                trade = CheckpointTrade{with.checkpointEvery,       with.value,
                                        without.peakAllocatedBytes, with.peakAllocatedBytes,
                                        without.meanStepMs,         with.meanStepMs};
    }
    return trade;
}

}  // namespace kinetoscope::session
