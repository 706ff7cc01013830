#pragma once
// The host side of the causal model (step_model.h): the threads that launch device work,
// merged into one timeline of what the host was doing (launching, computing on the CPU,
// blocked on the device, in the DataLoader, in Python, or nothing recorded).
// Internal to core/analysis.
#include "core/analysis/kernel_role.h"
#include "core/analysis/step_model.h"

#include <set>
#include <string>
#include <vector>

namespace kinetoscope::analysis::detail {

// Python stretches shorter than this between ops are per-op overhead (what a graph or
// compile removes with the launches), longer ones are host work of their own.
constexpr int64_t kPythonRunNs = 500'000;  // 500 us

struct Segment
{
    int64_t begin;
    int64_t end;
    HostState state;
};

// What the host timeline knows of a name.
enum NameFlag : uint8_t
{
    kDataLoaderName = 1,    // a DataLoader __next__
    kScalarReadName = 2,    // aten::item, aten::_local_scalar_dense
    kStepMarkerName = 4,    // a step marker: it says nothing of what the host does
    kProfilerSpanName = 8,  // the profiler's own span: nor does it
    kMayBlockName = 16,     // a synchronising or copy call: blocksHost() decides
    kAllocationName = 32,   // a driver allocation call (cudaMalloc, cudaFree, ...)
};

struct HostContext
{
    std::set<uint32_t> threads;  // tracks that launch device work
    uint32_t mainThread = trace::TrackId::kInvalid;
    std::vector<bool> leadsToLaunch;  // per event: the event or a descendant is a launch call
    std::vector<uint8_t> nameFlags;   // per interned name: kDataLoaderName | ...
    std::string marker;
    uint8_t flags(trace::StringId name) const
    {
        return name.value < nameFlags.size() ? nameFlags[name.value] : 0;
    }
    double pinnedBandwidth = 0;           // bytes per ns of the fastest pinned host-to-device copy
    std::vector<KernelRole> kernelRoles;  // per event: what a kernel does (kernel_role.h)
    const RoofTargets* roof = nullptr;    // the kernels the roofline would shorten, or null
    RangeSet graphBreaks;  // host time in torch.compile's graph breaks (Cause::GraphBreak)
};

HostContext hostContext(const trace::TraceModel& model, const StepDetection& steps);

// Every launching thread's time inside [begin, end), merged into one timeline, the busiest
// state winning; short Python or unrecorded stretches take their neighbours' state.
std::vector<Segment> mergedHostTimeline(const trace::TraceModel& model, const HostContext& c,
                                        int64_t begin, int64_t end);

}  // namespace kinetoscope::analysis::detail
