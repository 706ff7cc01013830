#pragma once
// How the GPU was kept busy: idle gaps per stream (classified as Holistic Trace Analysis
// does), launch statistics, synchronisation, and the utilisation time series the GUI
// draws as a sawtooth. All times are int64 nanoseconds.
#include "core/analysis/distribution.h"
#include "core/analysis/steps.h"

#include <map>
#include <optional>
#include <vector>

namespace kinetoscope::analysis {

enum class GapKind : uint8_t
{
    HostWait,  // the next launch was issued after the GPU went idle: the CPU was late
    Short,     // back-to-back kernels with a gap of at most kShortGapNs
    Other,     // queued work that still left the stream idle (syncs, dependencies)
};
inline constexpr int64_t kShortGapNs = 10'000;  // 10 us
const char* gapKindKey(GapKind kind);           // "host_wait", "short", "other"

struct IdleGap
{
    int64_t device = 0;
    int64_t stream = 0;
    int64_t beginNs = 0;
    int64_t endNs = 0;
    GapKind kind = GapKind::Other;
    int64_t lengthNs() const { return endNs - beginNs; }
};

struct GapTotals
{
    int64_t hostWaitNs = 0;
    int64_t shortNs = 0;
    int64_t otherNs = 0;
    int64_t totalNs() const { return hostWaitNs + shortNs + otherNs; }
};

struct IdleGaps
{
    std::vector<GapTotals> perStep;  // gaps between device activities inside each step
                                     // (summed over streams: may exceed the step)
    // Per step: time in which some stream waited on the host and no stream of any device
    // was busy (the union, so at most the step length).
    std::vector<int64_t> hostWaitIdleNsPerStep;
    GapTotals total;  // inside all steps
    std::map<std::pair<int64_t, int64_t>, GapTotals>
        perStream;                 // (device, stream), inside all steps
    std::vector<IdleGap> largest;  // the longest ones (up to 10), longest first
};

struct LaunchStats
{
    std::vector<int64_t> kernelsPerStep;     // kernels starting inside each step
    std::optional<double> shortKernelShare;  // kernels under 10 us / all kernels
    Distribution launchDelay;         // kernel start - end of its launch call, floored at 0 (a
                                      // short kernel may start before its call returns)
    int64_t clockSkewed = 0;          // kernels starting before their call even began: host and
                                      // device clocks disagree; left out of launchDelay
    Distribution launchCallDuration;  // duration of the calls that launched kernels
};

struct SyncStats
{
    // Per step: host time in runtime calls that block the host (blocksHost in
    // runtime_calls.h: synchronisations, synchronous copies, async copies of pageable
    // memory) and in ops that copy a scalar to the host (aten::item, _local_scalar_dense).
    std::vector<int64_t> syncCallNsPerStep;
    std::vector<int64_t> syncCallsPerStep;
    std::vector<int64_t> scalarReadNsPerStep;
    std::vector<int64_t> scalarReadsPerStep;
};

struct UtilizationSeries
{
    int64_t beginNs = 0;
    int64_t bucketNs = 0;
    std::map<int64_t, std::vector<float>> gpuBusy;  // device -> busy fraction per bucket
    std::vector<float> cpuBusy;  // fraction of the bucket in which any CPU op ran
};

IdleGaps computeIdleGaps(const trace::TraceModel& model, const StepDetection& detection);
LaunchStats computeLaunchStats(const trace::TraceModel& model, const StepDetection& detection);
SyncStats computeSyncStats(const trace::TraceModel& model, const StepDetection& detection);
// `buckets` equal buckets across the whole trace.
UtilizationSeries computeUtilizationSeries(const trace::TraceModel& model, int buckets = 1000);

}  // namespace kinetoscope::analysis
