#pragma once
// Python frames that hold a thread's whole window (`<module>`, spawn_main, _bootstrap, the
// user's profiling wrappers above the loop) fill rows with nothing to read, and push the
// ops below the screen. A fold is a chain of such rows: consecutive depths of one thread
// whose own rows hold only Python frames, one of them as long as a step at least. The
// thread's first row (which names it) stays out, so does any depth with overlapping
// events; the frames that vary within a step stay visible. TrackLayout draws a fold as one
// row, expandable.
#include "core/analysis/steps.h"
#include "core/timeline/timeline_index.h"

#include <string>
#include <vector>

namespace kinetoscope::timeline {

struct FrameFold
{
    uint32_t firstLane = 0, lastLane = 0;  // the folded lanes: [firstLane, lastLane)
    std::string label;                     // "9 Python frames: spawn_main > … > run_batch"
    std::string chain;                     // every frame, outermost first, " > " between
};

// The frame a Python frame's name calls: "scheduler.py(1534): run_event_loop" ->
// "run_event_loop"; a name without "): " as it is.
std::string_view frameFunction(std::string_view name);

// How long a frame must be to fold: 90 % of the median steady step (a frame spanning a
// step repeats identically in each), or half the trace without steps.
int64_t foldSpanNs(const trace::TraceModel& model, const std::vector<analysis::Step>& steps);

// The folds of every thread, in lane order.
std::vector<FrameFold> findFrameFolds(const TimelineIndex& index, int64_t minSpanNs);

}  // namespace kinetoscope::timeline
