#include "core/trace/category.h"

#include <array>
#include <cctype>

namespace kinetoscope::trace {

std::string_view categoryName(Category category)
{
    static constexpr std::array<std::string_view, kCategoryCount> names = {
        "cpu_op",  "user_annotation", "python_function", "runtime", "driver",
        "kernel",  "memcpy",          "memset",          "sync",    "gpu_user_annotation",
        "instant", "overhead",        "profiler_span",   "other",
    };
    return names[static_cast<size_t>(category)];
}

Category classifyCategory(std::string_view cat, bool hasCat, std::string_view pidLabel)
{
    if (!hasCat) {
        // The legacy autograd profiler put CUDA kernels in a process named after the device.
        const bool device = pidLabel.starts_with("CUDA") || pidLabel.starts_with("GPU") ||
                            pidLabel.starts_with("device");
        return device ? Category::Kernel : Category::CpuOp;
    }
    struct Entry
    {
        std::string_view name;
        Category category;
    };
    static constexpr Entry table[] = {
        {"cpu_op", Category::CpuOp},
        {"Operator", Category::CpuOp},
        {"user_annotation", Category::UserAnnotation},
        {"python_function", Category::PythonFunction},
        {"cuda_runtime", Category::Runtime},
        {"Runtime", Category::Runtime},
        {"cuda_driver", Category::Driver},
        {"kernel", Category::Kernel},
        {"Kernel", Category::Kernel},
        {"gpu_memcpy", Category::Memcpy},
        {"Memcpy", Category::Memcpy},
        {"gpu_memset", Category::Memset},
        {"Memset", Category::Memset},
        {"cuda_sync", Category::Sync},
        {"gpu_user_annotation", Category::GpuUserAnnotation},
        {"cpu_instant_event", Category::Instant},
        {"overhead", Category::Overhead},
        {"Trace", Category::ProfilerSpan},
        {"mtia_runtime", Category::Runtime},
        {"mtia_ccp_events", Category::Kernel},
        {"cuda_profiler_range", Category::UserAnnotation},
    };
    for (const Entry& entry : table)
        if (entry.name == cat)
            return entry.category;
    return Category::Other;
}

Category refineDeviceActivity(Category category, std::string_view name)
{
    if (category != Category::Kernel)
        return category;
    auto startsNoCase = [&](std::string_view prefix) {
        if (name.size() < prefix.size())
            return false;
        for (size_t i = 0; i < prefix.size(); ++i)
            if (std::tolower(static_cast<unsigned char>(name[i])) != prefix[i])
                return false;
        return true;
    };
    if (startsNoCase("dma") || startsNoCase("memcpy"))
        return name.find("memset") != std::string_view::npos ||
                       name.find("Memset") != std::string_view::npos
                   ? Category::Memset
                   : Category::Memcpy;
    if (startsNoCase("memset"))
        return Category::Memset;
    return category;
}

std::string_view flowKindName(FlowKind kind)
{
    switch (kind) {
    case FlowKind::LaunchToDevice:
        return "launch";
    case FlowKind::ForwardBackward:
        return "fwdbwd";
    case FlowKind::Other:
        break;
    }
    return "other";
}

std::optional<FlowKind> classifyFlow(std::string_view cat)
{
    if (cat == "ac2g" || cat == "async_cpu_to_gpu" || cat == "async_gpu" || cat == "async")
        return FlowKind::LaunchToDevice;
    if (cat == "fwdbwd")
        return FlowKind::ForwardBackward;
    if (cat.starts_with("async") || cat == "flow")
        return FlowKind::Other;
    return std::nullopt;
}

}  // namespace kinetoscope::trace
