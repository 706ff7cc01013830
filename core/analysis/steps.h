#pragma once
// Training steps: the `ProfilerStep#N` spans torch.profiler writes (or any marker the
// user names), each extended to the end of the device work it launched, as the
// TensorBoard plugin defined them. A trace without markers is cut into the iterations its
// host code repeats (DataLoader `__next__` calls, else `Optimizer.step` spans, else the
// sequence of calls the loop repeats); without any of those, it is one window.
#include "core/trace/trace_model.h"

#include <string>
#include <vector>

namespace kinetoscope::analysis {

struct Step
{
    std::string name;     // the marker's name, e.g. "ProfilerStep#5"; "" for a window
    int64_t beginNs = 0;  // after the device extension
    int64_t endNs = 0;
    int64_t hostBeginNs = 0;  // the marker span itself
    int64_t hostEndNs = 0;
    uint32_t deviceActivities = 0;  // kernels/memcpys/memsets launched inside the marker
    int64_t durationNs() const { return endNs - beginNs; }
};

struct StepOptions
{
    std::string marker = "ProfilerStep#";  // name prefix of the step spans
};

enum class StepSource : uint8_t
{
    Markers,          // ProfilerStep#N (or the marker the user named)
    DataLoaderCalls,  // no markers: an iteration starts at each DataLoader __next__
    OptimizerSteps,   // no markers: an iteration ends with each Optimizer.step
    RepeatedCalls,    // none of those: the sequence of calls the loop repeats (iterations.h)
    Window,           // one window over the host activity
};
// "markers", "dataloader", "optimizer", "repeated-calls", "window"
const char* stepSourceName(StepSource source);

struct StepDetection
{
    std::vector<Step> steps;   // time-ordered, non-overlapping
    bool fromMarkers = false;  // false: iterations found otherwise, or one window
    StepSource source = StepSource::Window;
    std::string marker;
    std::string foundBy;  // RepeatedCalls: "each starts at aten::randn[, inside train]"
    // Trailing steps the profiler stopped inside: their device work not all captured, or
    // (without device work) far fewer host ops than the step before.
    int droppedIncompleteSteps = 0;
};

StepDetection detectSteps(const trace::TraceModel& model, const StepOptions& options = {});

}  // namespace kinetoscope::analysis
