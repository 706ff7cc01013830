#include "core/analysis/runtime_calls.h"

#include <algorithm>
#include <array>
#include <limits>
#include <unordered_map>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

// When a call returns to the host.
enum class Blocking : uint8_t
{
    Never,
    Always,            // synchronisations, HIP's synchronous copies
    UnlessDeviceOnly,  // CUDA's synchronous copies: a device-to-device one does not wait
    IfPageable,        // async copies: they wait when the host side is pageable memory
};

struct CallClass
{
    CallKind kind = CallKind::Other;
    Blocking blocking = Blocking::Never;
};

struct NamedClass
{
    std::string_view name;
    CallClass cls;
};

// The names, as CUPTI and roctracer write them, that no prefix rule below covers.
constexpr std::array kExact{
    NamedClass{"cudaLaunchKernel", {CallKind::KernelLaunch}},
    NamedClass{"cudaLaunchKernelExC", {CallKind::KernelLaunch}},
    NamedClass{"cudaLaunchCooperativeKernel", {CallKind::KernelLaunch}},
    NamedClass{"cudaLaunchCooperativeKernelMultiDevice", {CallKind::KernelLaunch}},
    NamedClass{"cudaLaunch", {CallKind::KernelLaunch}},  // before CUDA 7
    NamedClass{"cuLaunchKernel", {CallKind::KernelLaunch}},
    NamedClass{"cuLaunchKernelEx", {CallKind::KernelLaunch}},
    NamedClass{"cuLaunchCooperativeKernel", {CallKind::KernelLaunch}},
    NamedClass{"hipLaunchKernel", {CallKind::KernelLaunch}},
    NamedClass{"hipExtLaunchKernel", {CallKind::KernelLaunch}},
    NamedClass{"hipModuleLaunchKernel", {CallKind::KernelLaunch}},
    NamedClass{"hipExtModuleLaunchKernel", {CallKind::KernelLaunch}},
    NamedClass{"hipHccModuleLaunchKernel", {CallKind::KernelLaunch}},
    NamedClass{"hipLaunchCooperativeKernel", {CallKind::KernelLaunch}},
    NamedClass{"hipModuleLaunchCooperativeKernel", {CallKind::KernelLaunch}},
    NamedClass{"mtiaLaunchKernel", {CallKind::KernelLaunch}},

    NamedClass{"cudaGraphLaunch", {CallKind::GraphLaunch}},
    NamedClass{"cuGraphLaunch", {CallKind::GraphLaunch}},
    NamedClass{"hipGraphLaunch", {CallKind::GraphLaunch}},

    NamedClass{"cudaStreamEndCapture", {CallKind::GraphCapture}},
    NamedClass{"cuStreamEndCapture", {CallKind::GraphCapture}},
    NamedClass{"hipStreamEndCapture", {CallKind::GraphCapture}},

    NamedClass{"cudaStreamSynchronize", {CallKind::Synchronize, Blocking::Always}},
    NamedClass{"cudaDeviceSynchronize", {CallKind::Synchronize, Blocking::Always}},
    NamedClass{"cudaEventSynchronize", {CallKind::Synchronize, Blocking::Always}},
    NamedClass{"cudaThreadSynchronize", {CallKind::Synchronize, Blocking::Always}},
    NamedClass{"cuStreamSynchronize", {CallKind::Synchronize, Blocking::Always}},
    NamedClass{"cuCtxSynchronize", {CallKind::Synchronize, Blocking::Always}},
    NamedClass{"cuEventSynchronize", {CallKind::Synchronize, Blocking::Always}},
    NamedClass{"hipStreamSynchronize", {CallKind::Synchronize, Blocking::Always}},
    NamedClass{"hipDeviceSynchronize", {CallKind::Synchronize, Blocking::Always}},
    NamedClass{"hipEventSynchronize", {CallKind::Synchronize, Blocking::Always}},
    NamedClass{"hipCtxSynchronize", {CallKind::Synchronize, Blocking::Always}},

    NamedClass{"cudaStreamWaitEvent", {CallKind::StreamWait}},
    NamedClass{"cuStreamWaitEvent", {CallKind::StreamWait}},
    NamedClass{"hipStreamWaitEvent", {CallKind::StreamWait}},

    NamedClass{"cudaHostAlloc", {CallKind::Allocation}},
    NamedClass{"cudaHostRegister", {CallKind::Allocation}},
    NamedClass{"cudaHostUnregister", {CallKind::Allocation}},
    NamedClass{"cuMemCreate", {CallKind::Allocation}},  // virtual memory (expandable segments)
    NamedClass{"cuMemRelease", {CallKind::Allocation}},
    NamedClass{"cuMemMap", {CallKind::Allocation}},
    NamedClass{"cuMemUnmap", {CallKind::Allocation}},
    NamedClass{"cuMemSetAccess", {CallKind::Allocation}},
    NamedClass{"cuMemAddressReserve", {CallKind::Allocation}},
    NamedClass{"cuMemAddressFree", {CallKind::Allocation}},
    NamedClass{"hipHostMalloc", {CallKind::Allocation}},
    NamedClass{"hipHostAlloc", {CallKind::Allocation}},
    NamedClass{"hipHostFree", {CallKind::Allocation}},
    NamedClass{"hipHostRegister", {CallKind::Allocation}},
    NamedClass{"hipHostUnregister", {CallKind::Allocation}},
    NamedClass{"hipExtMallocWithFlags", {CallKind::Allocation}},

    NamedClass{"cuModuleGetFunction", {CallKind::ModuleLoad}},
    NamedClass{"hipModuleGetFunction", {CallKind::ModuleLoad}},
};

// Families named by their first letters: cudaMalloc, cudaMallocHost, cudaMallocAsync, ...
constexpr std::array kPrefixes{
    NamedClass{"cudaGraphInstantiate", {CallKind::GraphCapture}},
    NamedClass{"cuGraphInstantiate", {CallKind::GraphCapture}},
    NamedClass{"hipGraphInstantiate", {CallKind::GraphCapture}},
    NamedClass{"cudaStreamBeginCapture", {CallKind::GraphCapture}},
    NamedClass{"cuStreamBeginCapture", {CallKind::GraphCapture}},
    NamedClass{"hipStreamBeginCapture", {CallKind::GraphCapture}},
    NamedClass{"cudaMemset", {CallKind::Memset}},
    NamedClass{"cuMemset", {CallKind::Memset}},
    NamedClass{"hipMemset", {CallKind::Memset}},
    NamedClass{"cudaMalloc", {CallKind::Allocation}},
    NamedClass{"cudaFree", {CallKind::Allocation}},
    NamedClass{"cuMemAlloc", {CallKind::Allocation}},
    NamedClass{"cuMemFree", {CallKind::Allocation}},
    NamedClass{"cuMemHostAlloc", {CallKind::Allocation}},
    NamedClass{"hipMalloc", {CallKind::Allocation}},
    NamedClass{"hipFree", {CallKind::Allocation}},
    NamedClass{"cuModuleLoad", {CallKind::ModuleLoad}},
    NamedClass{"cuLibraryLoad", {CallKind::ModuleLoad}},
    NamedClass{"hipModuleLoad", {CallKind::ModuleLoad}},
    // MTIA: "runFunction - job_prep_and_submit_for_execution" submits a kernel.
    NamedClass{"runFunction", {CallKind::KernelLaunch}},
};

bool contains(std::string_view s, std::string_view part)
{
    return s.find(part) != std::string_view::npos;
}

// Drops the per-thread default stream suffixes (`_ptsz`, `_ptds`, HIP's `_spt`) and API
// version suffixes (`_v2`, `_v11020`) that some CUPTI versions keep in the name.
std::string_view baseName(std::string_view name)
{
    for (std::string_view suffix : {"_ptsz", "_ptds", "_spt"}) {
        if (name.ends_with(suffix)) {
            name.remove_suffix(suffix.size());
            break;
        }
    }
    const size_t v = name.rfind("_v");
    if (v != std::string_view::npos && v + 2 < name.size() &&
        name.find_first_not_of("0123456789", v + 2) == std::string_view::npos)
        name = name.substr(0, v);
    return name;
}

CallClass copyClass(std::string_view name)
{
    if (contains(name, "Async"))
        return {CallKind::Copy, Blocking::IfPageable};
    if (name.starts_with("hip"))
        return {CallKind::Copy, Blocking::Always};  // hipMemcpy, hipMemcpyWithStream, hipMemcpyDtoH
    // CUDA: "for transfers from device memory to device memory, no host-side
    // synchronization is performed" (API synchronization behavior).
    for (std::string_view deviceOnly : {"DtoD", "DtoA", "AtoD", "AtoA"})
        if (contains(name, deviceOnly))
            return {CallKind::Copy, Blocking::Never};
    return {CallKind::Copy, Blocking::UnlessDeviceOnly};
}

CallClass classify(std::string_view rawName)
{
    static const std::unordered_map<std::string_view, CallClass> exact = [] {
        std::unordered_map<std::string_view, CallClass> map;
        for (const NamedClass& entry : kExact)
            map.emplace(entry.name, entry.cls);
        return map;
    }();
    const std::string_view name = baseName(rawName);
    if (const auto it = exact.find(name); it != exact.end())
        return it->second;
    if (name.starts_with("cudaMemcpy") || name.starts_with("cuMemcpy") ||
        name.starts_with("hipMemcpy"))
        return copyClass(name);
    for (const NamedClass& entry : kPrefixes)
        if (name.starts_with(entry.name))
            return entry.cls;
    return {};
}

bool isDeviceOnly(CopyDirection direction)
{
    return direction == CopyDirection::DeviceToDevice || direction == CopyDirection::PeerToPeer;
}

CopyDirection directionOf(std::string_view code)
{
    if (code == "HtoD" || code == "HtoA")
        return CopyDirection::HostToDevice;
    if (code == "DtoH" || code == "AtoH")
        return CopyDirection::DeviceToHost;
    if (code == "DtoD" || code == "DtoA" || code == "AtoD" || code == "AtoA")
        return CopyDirection::DeviceToDevice;
    if (code == "HtoH")
        return CopyDirection::HostToHost;
    if (code == "PtoP")
        return CopyDirection::PeerToPeer;
    return CopyDirection::Unknown;
}

}  // namespace

const char* callKindName(CallKind kind)
{
    switch (kind) {
    case CallKind::KernelLaunch:
        return "kernel_launch";
    case CallKind::GraphLaunch:
        return "graph_launch";
    case CallKind::GraphCapture:
        return "graph_capture";
    case CallKind::Copy:
        return "copy";
    case CallKind::Memset:
        return "memset";
    case CallKind::Synchronize:
        return "synchronize";
    case CallKind::StreamWait:
        return "stream_wait";
    case CallKind::Allocation:
        return "allocation";
    case CallKind::ModuleLoad:
        return "module_load";
    case CallKind::Other:
        break;
    }
    return "other";
}

CallKind classifyRuntimeCall(std::string_view name)
{
    return classify(name).kind;
}

CopyKind classifyCopy(std::string_view name)
{
    CopyKind kind;
    if (name.starts_with("Memcpy ")) {
        // Kineto: "Memcpy <kind> (<source memory> -> <destination memory>)".
        name.remove_prefix(7);
        const size_t space = name.find(' ');
        kind.direction = directionOf(name.substr(0, space));
        const std::string_view memory = space == std::string_view::npos ? "" : name.substr(space);
        if (!isDeviceOnly(kind.direction)) {
            // ROCm writes "Host": the kind of host memory is not known.
            if (contains(memory, "Pageable"))
                kind.hostMemory = HostMemory::Pageable;
            else if (contains(memory, "Pinned"))
                kind.hostMemory = HostMemory::Pinned;
        }
        return kind;
    }
    // roctracer's activity names: CopyHostToDevice, CopyDeviceToHost, CopyDeviceToDevice, ...
    static constexpr std::array<std::pair<std::string_view, CopyDirection>, 5> rocm{{
        {"CopyHostToDevice", CopyDirection::HostToDevice},
        {"CopyDeviceToHost", CopyDirection::DeviceToHost},
        {"CopyDeviceToDevice", CopyDirection::DeviceToDevice},
        {"CopyHostToHost", CopyDirection::HostToHost},
        {"CopyDeviceToPeer", CopyDirection::PeerToPeer},
    }};
    for (const auto& [prefix, direction] : rocm)
        if (name.starts_with(prefix))
            kind.direction = direction;
    return kind;
}

bool isSynchronousLaunch(const TraceModel& model, const Event& call)
{
    // MTIA's runtime submits and waits by design. On CUDA or HIP a launch that waits for
    // its kernel means CUDA_LAUNCH_BLOCKING or a debugger: a fix of its own, not the
    // device's way, so it stays an ordinary launch here.
    if (!isLaunchCall(call.category) || call.durationNs < kSynchronousLaunchNs)
        return false;
    const std::string_view name = model.text(call.name);
    if (!name.starts_with("runFunction") && !name.starts_with("mtiaLaunchKernel"))
        return false;
    constexpr int64_t kToleranceNs = 1'000;
    int64_t ran = 0, end = std::numeric_limits<int64_t>::min();
    for (EventId id : model.activitiesLaunchedBy(model.idOf(call))) {
        const Event& activity = model.event(id);
        ran += std::max<int64_t>(0, std::min(activity.endNs(), call.endNs()) -
                                        std::max(activity.startNs, call.startNs));
        end = std::max(end, activity.endNs());
    }
    return end != std::numeric_limits<int64_t>::min() && end <= call.endNs() + kToleranceNs &&
           2 * ran >= call.durationNs;
}

bool blocksHost(const TraceModel& model, const Event& call)
{
    if (!isLaunchCall(call.category))
        return false;
    const CallClass c = classify(model.text(call.name));
    switch (c.blocking) {
    case Blocking::Never:
        return c.kind == CallKind::KernelLaunch && isSynchronousLaunch(model, call);
    case Blocking::Always:
        return true;
    case Blocking::UnlessDeviceOnly: {
        bool copies = false;
        for (EventId id : model.activitiesLaunchedBy(model.idOf(call))) {
            const Event& activity = model.event(id);
            if (activity.category != Category::Memcpy)
                continue;
            copies = true;
            if (!isDeviceOnly(classifyCopy(model.text(activity.name)).direction))
                return true;
        }
        return !copies;  // no copy in the trace: trust the name
    }
    case Blocking::IfPageable:
        for (EventId id : model.activitiesLaunchedBy(model.idOf(call))) {
            const Event& activity = model.event(id);
            if (activity.category == Category::Memcpy &&
                classifyCopy(model.text(activity.name)).hostMemory == HostMemory::Pageable)
                return true;
        }
        return false;
    }
    return false;
}

bool isBulkPageableCopy(const trace::TraceModel& model, const trace::Event& activity)
{
    if (activity.category != trace::Category::Memcpy)
        return false;
    const CopyKind kind = classifyCopy(model.text(activity.name));
    if (kind.hostMemory != HostMemory::Pageable)
        return false;
    if (kind.direction == CopyDirection::HostToDevice)
        return true;
    const trace::CopyInfo* info = model.copyInfo(model.idOf(activity));
    return kind.direction == CopyDirection::DeviceToHost && info && info->bytes >= kBulkCopyBytes;
}

}  // namespace kinetoscope::analysis
