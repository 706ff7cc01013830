#pragma once
// The device side of the causal model (step_model.h) and its replay: a step's device work
// with what started each activity, its blocking calls with what each waited for, and the
// step replayed with causes removed. Internal to core/analysis.
#include "core/analysis/host_timeline.h"
#include "core/analysis/time_ranges.h"

#include <array>
#include <map>

namespace kinetoscope::analysis::detail {

struct Activity
{
    int64_t launchNs;  // end of the launch call (a blocking call's own copy: the call's
                       // begin); the start when the call is unknown
    int64_t startNs;
    int64_t durationNs;
    int64_t latencyNs;  // start - max(launch, previous end on the stream): may be < 0 (skew)
    uint32_t stream;
    uint32_t syncItem = UINT32_MAX;   // launched by this blocking call (its own copy)
    uint32_t dependsOn = UINT32_MAX;  // the activity on another stream it waited for
    int64_t overlapNs = -1;  // >= 0: it started this long after the previous activity on its
                             // stream started, before that one ended (kernels of one graph
                             // may run concurrently): the replay keeps that offset
    uint16_t causes = 0;     // bit per Cause whose removal shortens it
    int64_t pinnedNs = -1;   // duration from pinned memory, for pageable host-to-device copies
    float roofFactor =
        1;  // BelowRoof / UnfusedAttention: its target duration over its measured one
    int64_t fusedNs = -1;  // the kept kernel of a fusible chain: its duration fused (Fusion), where
                           // the roofline knows the bytes it moves
};

struct BlockingCall
{
    trace::EventId call;
    int64_t beginNs;
    int64_t endNs;
    int64_t residualNs;     // the call's own cost after the awaited work finished
    bool waits;             // false: it awaited nothing in the step; a fixed host cost
    Cause cause;            // HostSync or PageableCopy
    bool removable = true;  // false for a synchronous launch: no fix makes it return early
    uint32_t awaitedCollective = UINT32_MAX;  // the collective it waited for, if it did: what
                                              // follows a read after a collective uses its result
};

struct StepInputs
{
    int64_t beginNs = 0;
    int64_t hostBeginNs = 0;    // the step's host span (its marker), which sets the period of
    int64_t hostEndNs = 0;      // the loop when the host is the slower side
    int64_t hostExcessNs = 0;   // how much longer the host span is than the measured step
    int64_t hostBlockedNs = 0;  // time in the host span spent waiting for the device
    std::vector<Activity> activities;        // by launch time
    std::vector<BlockingCall> calls;         // by begin
    std::vector<std::vector<size_t>> own;    // per call: the activities it launched itself
    std::map<uint32_t, int64_t> streamFree;  // per stream: end of the work queued before the step
    int64_t deviceBusyNs = 0;                // union of the step's device work, as measured
    std::array<RangeSet, kCauseCount> removedHost;
};

// The host work behind a step starts with its marker, which may be well before the step
// itself begins (when the device lags, the step begins where the last one's work ended).
int64_t hostFrom(const Step& step);

inline uint16_t causeBit(Cause c)
{
    return static_cast<uint16_t>(1u << static_cast<unsigned>(c));
}

// The step's inputs: its device work (adding the device time each cause could shorten to
// `deviceNs`, in nanoseconds), its blocking calls, and the host time each cause removes.
StepInputs stepInputs(const trace::TraceModel& model, const HostContext& c, const Step& step,
                      const std::vector<Segment>& host, std::array<int64_t, kCauseCount>& deviceNs);

// The step's length replayed with the causes in `removedMask` (causeBit) taken away.
int64_t replay(const StepInputs& in, uint16_t removedMask);

}  // namespace kinetoscope::analysis::detail
