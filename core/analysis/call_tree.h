#pragma once
// The merged call tree of the host threads, for the flame (icicle) graph: Python frames
// (`python_function`), operators and record_function ranges, merged by their path of
// names from the thread's top (ProfilerStep#N folded into "ProfilerStep#*"), with the
// host time of the spans and the device time launched under them. All times are int64
// nanoseconds.
#include "core/trace/trace_model.h"

#include <string>
#include <vector>

namespace kinetoscope::analysis {

struct CallNode
{
    std::string name;
    trace::Category category = trace::Category::Other;  // Other: the root or a thread
    int32_t parent = -1;            // index into CallTree::nodes; -1 for the root
    std::vector<int32_t> children;  // by device time, then host time, descending
    int64_t calls = 0;              // spans merged into the node (0: the root, a thread)
    int64_t hostNs = 0;             // their durations (a thread: its top-level spans)
    int64_t deviceNs = 0;           // kernels, copies, memsets launched under it
    int64_t deviceSelfNs = 0;       // ... launched in it, in none of its children
};

struct CallTree
{
    std::vector<CallNode>
        nodes;  // nodes[0] is the root (all threads); a parent before its children
    bool hasPythonFrames = false;
};

CallTree computeCallTree(const trace::TraceModel& model);

}  // namespace kinetoscope::analysis
