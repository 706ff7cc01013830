#pragma once
// What an event is, independent of the profiler version that wrote it. Kineto renamed
// its categories in PyTorch 1.11 (`Operator` -> `cpu_op`, `Kernel` -> `kernel`, ...),
// ROCm keeps the `cuda_*` names, MTIA uses `mtia_*`, and legacy files have no `cat`.
#include <cstdint>
#include <optional>
#include <string_view>

namespace kinetoscope::trace {

enum class Category : uint8_t
{
    CpuOp,              // aten and other operators (`cpu_op`, `Operator`)
    UserAnnotation,     // record_function ranges, ProfilerStep#N (`user_annotation`)
    PythonFunction,     // with_stack Python frames (`python_function`)
    Runtime,            // CUDA/HIP/MTIA runtime API calls (`cuda_runtime`, `Runtime`)
    Driver,             // CUDA driver API calls (`cuda_driver`)
    Kernel,             // device kernels (`kernel`, `Kernel`)
    Memcpy,             // device copies (`gpu_memcpy`, `Memcpy`)
    Memset,             // device memsets (`gpu_memset`, `Memset`)
    Sync,               // CUDA synchronisation records (`cuda_sync`)
    GpuUserAnnotation,  // record_function ranges projected on a stream
    Instant,            // instant events other than memory samples
    Overhead,           // profiler overhead (`overhead`)
    ProfilerSpan,       // the profiler's own window (`Trace`)
    Other,              // any category this version does not know
};
inline constexpr int kCategoryCount = static_cast<int>(Category::Other) + 1;

std::string_view categoryName(Category category);

// Device-side activity: lives on a GPU stream track and is joined to its launch call
// through the correlation id.
constexpr bool isGpuActivity(Category c)
{
    return c == Category::Kernel || c == Category::Memcpy || c == Category::Memset ||
           c == Category::Sync || c == Category::GpuUserAnnotation;
}
// Work that occupies the device's timeline: kernels, copies and memsets (not the sync
// records or the annotation spans projected on a stream).
constexpr bool isDeviceWork(Category c)
{
    return c == Category::Kernel || c == Category::Memcpy || c == Category::Memset;
}
constexpr bool isLaunchCall(Category c)
{
    return c == Category::Runtime || c == Category::Driver;
}

// Maps the raw `cat` string of a complete (`X`) event to a Category. `hasCat` is false
// for legacy files, whose events are then classified by their process label.
Category classifyCategory(std::string_view cat, bool hasCat, std::string_view pidLabel);

// A device activity is read by what it is, not only by its category: MTIA writes its DMA
// transfers (`dma_request`, ...) among its kernels (`mtia_ccp_events`, or `kernel` since
// Kineto folded MTIA's types into the generic ones), and HTA counts `dma*` as memory too.
// Returns Memcpy or Memset for a Kernel whose name says it moves or sets memory, else
// `category` unchanged.
Category refineDeviceActivity(Category category, std::string_view name);

enum class FlowKind : uint8_t
{
    LaunchToDevice,   // `ac2g`, `async_cpu_to_gpu`, `async_gpu`, `async`/`launch` (2021)
    ForwardBackward,  // `fwdbwd`
    Other,
};
std::string_view flowKindName(FlowKind kind);
// The kind of a flow (`s`/`t`/`f`) event, or nothing for a category that is not a flow.
std::optional<FlowKind> classifyFlow(std::string_view cat);

}  // namespace kinetoscope::trace
