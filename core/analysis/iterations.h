#pragma once
// The iterations of a loop that marks none: no ProfilerStep, no DataLoader __next__, no
// Optimizer.step — a hand-written loop, a benchmark, an inference loop. A loop repeats the
// same sequence of host calls, so its iterations are found from that repetition on the
// thread that does the work: at the top level of the thread, or, where one event spans
// nearly all of it (Python frames of the script, a wrapper function, a module span), one
// level inside it, and so on down.
//
// A repeat is an iteration only when each one holds a training op (backward, optimizer),
// a call of a whole model (an nn.Module span with no module above it), or new data made
// on the loop's thread (random data drawn, a DataLoader batch): the layers of one forward
// pass repeat too, and so do the elements of a Python loop inside one call, but they make
// no data of their own. This holds whether or not the device was
// recorded: a CPU run, or a GPU run profiled without its device activity, is read from its
// host calls alone. An inference loop on fixed inputs recorded without module spans stays
// one window.
//
// At one level, a name that occurs once per iteration cuts the sequence into segments
// that are all the same sequence of names (the modal segment); a name that occurs twice
// per iteration, or only in some iterations, cuts it into segments that differ. Among the
// names whose segments mostly agree, the one whose agreeing segments cover the most time
// wins (an iteration, not a layer repeated inside it, nor every tenth iteration that
// logs), and among the names that cut the same loop at another point, the one that comes
// first in the iteration (the loop's first call).
#include "core/analysis/steps.h"

#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::analysis {

struct RepeatedIterations
{
    std::vector<Step> steps;          // "Iteration#N", time-ordered, host spans only
    std::string anchor;               // the call each iteration starts with, e.g. "aten::randn"
    std::vector<std::string> inside;  // the events the loop runs inside, outermost first
                                      // (empty at the top level): "<module>", "main", "train"
    size_t agreeing = 0;              // segments that are the modal sequence
    size_t callsPerIteration = 0;     // events in the modal segment
    // What showed each repeat to be an iteration (the first that every one holds).
    enum class Mark : uint8_t
    {
        Trains,      // a backward or optimizer op
        CallsModel,  // a call of a whole model
        TakesData,   // new data: random data drawn, a DataLoader batch
    };
    Mark mark = Mark::Trains;
};

// The thread whose top-level host calls take the most time (a thread that runs only the
// backward engine only when there is no other); invalid when no thread has host calls.
trace::TrackId busiestHostThread(const trace::TraceModel& model);

// The loop's iterations, or nothing when no level of the busiest host thread repeats at
// least three times.
std::optional<RepeatedIterations> findRepeatedIterations(const trace::TraceModel& model);

}  // namespace kinetoscope::analysis
