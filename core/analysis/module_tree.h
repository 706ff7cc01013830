#pragma once
// The nn.Module hierarchy of a trace, from the Python tracer's module spans
// (`python_function` events named "nn.Module: ResNet_0", recorded with with_stack=True):
// one node per path of module names (calls of the same path merged), with host and
// device time, inclusive and exclusive, and the ops and device activities under each.
//
// Device time is attributed through the launch: a kernel, copy or memset counts for the
// innermost module whose span, on the launching thread, encloses its launch call. So a
// module's device time is its forward pass; backward kernels launched from the autograd
// thread lie outside every module span and count for no module (as torch's module
// hierarchy and the TensorBoard plugin's module view count them). All times are int64
// nanoseconds.
#include "core/trace/trace_model.h"

#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::analysis {

struct NamedTime
{
    std::string name;
    int64_t calls = 0;
    int64_t hostNs = 0;    // CPU time (ops); 0 for device activities
    int64_t deviceNs = 0;  // device time: of the activity, or launched under the op
};

struct ModuleNode
{
    std::string name;               // "ResNet_0": the class and torch's instance index
    std::string path;               // "DistributedDataParallel_0/ResNet_0"
    int32_t parent = -1;            // index into ModuleTree::nodes; -1 for a top-level module
    std::vector<int32_t> children;  // by device total, then host total, descending
    int64_t calls = 0;
    int64_t hostTotalNs = 0;
    int64_t hostSelfNs = 0;  // less the spans of its direct child modules
    int64_t deviceTotalNs = 0;
    int64_t deviceSelfNs = 0;        // launched in it but in none of its child modules
    std::vector<NamedTime> ops;      // the outermost ops directly in it, by device then host time
    std::vector<NamedTime> kernels;  // device activities launched directly in it, by time
};

struct ModuleTree
{
    std::vector<ModuleNode> nodes;  // a parent before its children
    std::vector<int32_t> roots;     // top-level modules, by device total then host total
    int64_t moduleSpans = 0;        // module events in the trace
    int64_t deviceNs = 0;           // every kernel, copy and memset in the trace
    int64_t deviceInModulesNs = 0;  // ... launched inside some module span
    bool empty() const { return nodes.empty(); }
};

// Is this a Python tracer's module span name ("nn.Module: ResNet_0")?
bool isModuleSpanName(std::string_view name);

ModuleTree computeModuleTree(const trace::TraceModel& model);

}  // namespace kinetoscope::analysis
