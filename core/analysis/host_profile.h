#pragma once
// Where the host's time goes, step by step, on the thread that runs the loop. It is what
// a window without device activity (a CPU run, or a GPU run whose device side was not
// recorded) has to tell, and the rules for such windows read it (rules_host.cpp): the
// wait for the DataLoader, random data drawn by the loop itself, time in no recorded op,
// and the ops that hold the step. All times are nanoseconds, means per steady step.
#include "core/analysis/steps.h"

#include <string>
#include <vector>

namespace kinetoscope::analysis {

struct HostOpTime
{
    std::string name;
    double selfNs = 0;  // per step: the op's time less the ops nested in it (through the
                        // Python frames and record_function ranges between), over the ops
                        // starting in a step
    double calls = 0;   // per step
};

struct HostProfile
{
    trace::TrackId
        thread;         // the loop's thread: the step markers', the DataLoader's, or the busiest
    size_t steps = 0;   // steady steps read
    double stepNs = 0;  // mean host span of a step
    double dataLoaderNs = 0;             // inside DataLoader __next__
    double randomDataNs = 0;             // random tensors the loop draws itself (not in an op, the
                                         // model or the DataLoader): torch.randn(...) in the loop
    std::vector<std::string> randomOps;  // those calls, the most time first
    double outsideOpsNs = 0;             // in no op on any host thread: Python (frames or nothing
                                         // recorded), sleeps
    // Where that time sits when the trace has Python stacks (with_stack): the innermost
    // Python frame over each stretch of it, by frame, the most first (<= 3); selfNs is its
    // share of outsideOpsNs, calls the frame's calls per step. Empty without stacks.
    std::vector<HostOpTime> outsideOpsFrames;
    std::vector<HostOpTime> bySelfTime;  // the ops with the most self time, most first (<= 8)
};

// Names of the ops that draw random tensors: aten::randn, rand, randint, normal_, ...
bool isRandomDataOp(std::string_view name);

HostProfile profileHost(const trace::TraceModel& model, const StepDetection& steady);

}  // namespace kinetoscope::analysis
