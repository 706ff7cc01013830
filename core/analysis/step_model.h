#pragma once
// A causal model of the steady-state step, for the diagnosis's gains.
//
// What it represents, per step: the host threads that launch device work, their time cut
// into what they were doing (loading data, running Python, dispatching ops and launching,
// computing on the CPU, blocked on the device); every kernel, copy and memset with the
// call that launched it and its stream; and the host calls that block until device work
// finishes. From it:
//   - the device's idle time, attributed to what the host was doing meanwhile;
//   - each cause's gain: the cause is removed (its host time taken out, its blocking calls
//     made non-blocking, or its device work shortened) and the step is replayed: host
//     events keep their order and other durations, each activity starts when both its
//     launch (shifted) and its stream allow, a blocking call returns when the work it waits
//     for is done. gain = replayed step - replayed step without the cause.
//   - gains that never overlap: causes are removed one after another (the specific before
//     the general, the host before the device), and each is credited with what its
//     removal adds at its turn, capped at what it saves alone; so the gains sum to at most
//     the step, and no finding is credited with a gain that needs another fix first.
// What it assumes: streams are FIFO; a cross-stream wait keeps its measured delay; an
// activity whose launch is unknown stays at its time relative to the host; removing a
// DataLoader, Python or launch cost removes it entirely (the upper bound of the fix);
// 16-bit Tensor Core kernels run GEMMs/convolutions in half the fp32 SIMT time; pinned
// host-to-device copies run at the best bandwidth the trace shows for pinned copies.
// All times are int64 nanoseconds; the figures are means per modelled step.
// The parts: host_timeline.h (the host's states), step_replay.h (the device work, the
// blocking calls and the replay); this file samples the steps and credits the gains.
#include "core/analysis/roofline_gaps.h"
#include "core/analysis/steps.h"
#include "core/analysis/time_ranges.h"

#include <array>
#include <cstdint>

namespace kinetoscope::analysis {

// What the host was doing, merged over the threads that launch device work.
enum class HostState : uint8_t
{
    Idle,        // nothing recorded on any launching thread: not attributed
    Python,      // Python frames (with_stack) and record_function annotations
    DataLoader,  // inside a DataLoader __next__
    Blocked,     // in a call that waits for the device (sync, blocking copy)
    CpuCompute,  // CPU ops that launch no device work
    Launching,   // dispatching ops that launch device work, and the launch calls
};
inline constexpr size_t kHostStateCount = 6;
const char* hostStateName(HostState state);  // "idle", "python", "dataloader", ...

enum class Cause : uint8_t
{
    DataLoader,      // the host waits for the next batch
    Python,          // long stretches of Python (or unrecorded host code) between launches
    LaunchOverhead,  // op dispatch and launch calls: what CUDA graphs / torch.compile remove
    HostSync,        // synchronising calls and device-to-host reads waiting for the GPU
    PageableCopy,    // host-to-device copies from pageable memory: host blocks, copy slow
    DeviceCopies,    // device copies/conversions inside the model (aten::copy_/to)
    Fp32Matmul,      // GEMM/convolution kernels that do not use Tensor Cores
    Communication,   // collective kernels on the critical path
    OptimizerHost,   // the optimizer's per-parameter host loop
    CpuCompute,      // long stretches of CPU ops that launch nothing (CPU tensors, Python loops
                     // over elements); last of the host causes, so that ties go to the causes above
    Fusion,          // chains of memory-bound kernels on a stream that a compiler fuses into one
    Allocation,      // driver allocation calls in the step (cudaMalloc, cudaFree): the caching
                     // allocator handing memory back and asking again
    BelowRoof,       // GEMM/convolution kernels far below what their roof allows for their
                     // shape (roofline_gaps.h): shortened to a realistic share of it
    UnfusedAttention,  // attention on separate GEMM and softmax kernels: shortened to what a
                       // fused kernel reaches
    GraphBreak,        // torch.compile's graph breaks: the host's time between two compiled
                       // graphs of one frame (guards, region entry, Python), less the eager
                       // ops run there (core/compiled)
    // torch.compile's generated pointwise and reduction kernels far under the memory
    // bandwidth (roofline_gaps.h): shortened to kStreamingTargetShare of it.
    CompiledBelowBandwidth,
};
// A bit each in a uint16_t mask (step_replay.h's causeBit).
inline constexpr size_t kCauseCount = 16;
const char* causeName(Cause cause);  // "dataloader", "python", ...

struct CausalModel
{
    size_t stepsModelled = 0;   // steady steps replayed (an even sample of at most 32)
    double stepNs = 0;          // mean measured step
    double replayedStepNs = 0;  // mean replayed step with nothing removed (the model's check)
    double deviceBusyNs = 0;    // union of kernels, copies and memsets over all devices
    double deviceIdleNs = 0;    // step - busy
    std::array<double, kHostStateCount> idleByHostState{};  // the device's idle time, by host state
    std::array<double, kHostStateCount> hostByState{};      // host time, by state
    std::array<double, kCauseCount> soloGainNs{};           // step saved removing the cause alone
    std::array<double, kCauseCount> gainNs{};               // credited gain: sums to <= stepNs
    std::array<double, kCauseCount> afterOthersNs{};        // what removing it adds once the causes
                                                            // before it (credit order) are gone
    std::array<double, kCauseCount> deviceNs{};  // device time of the activities a cause shortens
    int64_t blockingCalls = 0;  // per all modelled steps: calls that wait for the device

    double gain(Cause c) const { return gainNs[static_cast<size_t>(c)]; }
    double solo(Cause c) const { return soloGainNs[static_cast<size_t>(c)]; }
    double afterOthers(Cause c) const { return afterOthersNs[static_cast<size_t>(c)]; }
    double idleWhile(HostState s) const { return idleByHostState[static_cast<size_t>(s)]; }
    double host(HostState s) const { return hostByState[static_cast<size_t>(s)]; }
};

// `roof`: the kernels the roofline would shorten (roofTargets), or null. The sampled steps
// are modelled on up to `threads` threads (1: on the calling thread only); the model is the
// same whatever the number.
// `graphBreaks`: the host's time in torch.compile's graph breaks (GraphBreak), or null.
CausalModel buildCausalModel(const trace::TraceModel& model, const StepDetection& steady,
                             const RoofTargets* roof = nullptr, unsigned threads = 1,
                             const RangeSet* graphBreaks = nullptr);

}  // namespace kinetoscope::analysis
