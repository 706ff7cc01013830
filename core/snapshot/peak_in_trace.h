#pragma once
// A snapshot's peak placed in a trace of the same run: the allocator's times (time_us)
// and Kineto's are both Unix-epoch microseconds, so the moment memory peaked is a moment
// of the trace, in a step, a phase of it, an op and the module around that op.
#include "core/analysis/summary.h"
#include "core/snapshot/snapshot_summary.h"
#include "core/trace/trace_model.h"

#include <cstdint>
#include <string>

namespace kinetoscope::snapshot {

struct PeakInTrace
{
    bool inWindow = false;  // the peak (or a moment level with it) is inside the window
    // On the trace's clock: the first moment within 1 % of the peak inside the window, else
    // the peak (SnapshotSummary::peakMomentsUs).
    int64_t peakNs = 0;
    // The times memory comes within 1 % of its peak, at most once an iteration (the set-up
    // before the first counts as one); 0 when there is no timed peak.
    size_t peakMoments = 0;
    size_t peakMomentsInWindow = 0;  // of them, inside the trace's window
    std::string step;                // "ProfilerStep#12", "" outside every step
    std::string phase;   // "forward", "backward", "the optimizer step", "data loading"; "" unknown
    std::string op;      // the innermost operator running on the host then, e.g. "aten::mm"
    std::string module;  // the module or Python function around it, e.g. "Block.forward"
    // "the peak is in ProfilerStep#12's backward, in aten::mm under Block.forward", or why
    // it cannot be placed.
    std::string sentence;
};

// Nothing to place (inWindow false, an empty sentence) when the snapshot has no timed peak.
PeakInTrace placePeak(const SnapshotSummary& snapshot, const trace::TraceModel& trace,
                      const analysis::TraceSummary& summary);

}  // namespace kinetoscope::snapshot
