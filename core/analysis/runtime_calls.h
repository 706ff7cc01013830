#pragma once
// What a CUDA / HIP runtime or driver call does to the host thread that makes it, and
// what a device copy is (direction, pageable or pinned). The tables behind the causal
// model of a step (step_model.h): a call that blocks the host waits for device work,
// so its time is the device's, not the host's.
#include "core/trace/trace_model.h"

#include <string_view>

namespace kinetoscope::analysis {

enum class CallKind : uint8_t
{
    KernelLaunch,  // cudaLaunchKernel, cuLaunchKernel, hipLaunchKernel, hipExtModuleLaunchKernel,
                   // ...
    GraphLaunch,   // cudaGraphLaunch, hipGraphLaunch: one call, many kernels
    GraphCapture,  // cudaStreamBeginCapture / EndCapture, cudaGraphInstantiate, hip equivalents
    Copy,          // cudaMemcpy*, hipMemcpy*: blocking or not depends on the call and the memory
    Memset,        // cudaMemset*, hipMemset*
    Synchronize,   // cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize, hip*
    StreamWait,    // cudaStreamWaitEvent, hipStreamWaitEvent: orders streams, never blocks the host
    Allocation,    // cudaMalloc, cudaFree, cudaHostAlloc, cudaMallocHost, hipMalloc, hipFree, ...
    ModuleLoad,    // cuModuleLoad*, cuLibraryLoad*, hipModuleLoad*: lazy loading of kernels
    Other,         // queries, event records, stream creation, ...
};
const char* callKindName(CallKind kind);  // "kernel_launch", ...

CallKind classifyRuntimeCall(std::string_view name);
// Only these kinds can block the host (blocksHost() decides for a given call).
inline bool mayBlockHost(CallKind kind)
{
    return kind == CallKind::Synchronize || kind == CallKind::Copy;
}

enum class CopyDirection : uint8_t
{
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
    HostToHost,
    PeerToPeer,
    Unknown
};
enum class HostMemory : uint8_t
{
    Pageable,
    Pinned,
    Unknown
};  // the host side of a copy

struct CopyKind
{
    CopyDirection direction = CopyDirection::Unknown;
    HostMemory hostMemory = HostMemory::Unknown;  // Unknown for device-to-device copies
};
// From a memcpy activity's name: "Memcpy HtoD (Pageable -> Device)", "Memcpy DtoH (Device ->
// Pinned)", "Memcpy DtoD (Device -> Device)", ROCm's "CopyHostToDevice", ...
CopyKind classifyCopy(std::string_view activityName);

// A copy whose pageable host memory is the problem to fix (pin it): any host-to-device
// upload from pageable memory, and device-to-host downloads of at least 1 MiB into
// pageable memory. A smaller download is a value read back (.item(), .cpu() of a
// scalar): a synchronisation, whatever the memory. `activity` is a Memcpy event.
bool isBulkPageableCopy(const trace::TraceModel& model, const trace::Event& activity);
inline constexpr int64_t kBulkCopyBytes = 1 << 20;

// Does this launch call block the host until device work has finished? True for the
// synchronising calls, for synchronous copies (cudaMemcpy, hipMemcpy, hipMemcpyWithStream),
// for cudaMemcpyAsync / hipMemcpyAsync whose copy has pageable host memory (the activity
// it started tells) and for synchronous launches (below); false for other launches,
// cudaStreamWaitEvent and pinned async copies. `call` must be a Runtime or Driver event.
bool blocksHost(const trace::TraceModel& model, const trace::Event& call);

// An MTIA launch (runFunction, mtiaLaunchKernel) of at least kSynchronousLaunchNs that
// returned only once the work it launched had run (it ran for at least half the call): a
// runtime that executes synchronously. The host waits for the device there as at a
// synchronisation, but it is the device's way, not a call the program could leave out.
// (A CUDA or HIP launch that waits is CUDA_LAUNCH_BLOCKING's doing: not this.)
bool isSynchronousLaunch(const trace::TraceModel& model, const trace::Event& call);
inline constexpr int64_t kSynchronousLaunchNs = 100'000;  // 100 us: far beyond a launch's own cost

}  // namespace kinetoscope::analysis
