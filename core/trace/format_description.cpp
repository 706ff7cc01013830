#include "core/trace/format_description.h"

#include <unordered_set>

namespace kinetoscope::trace {

namespace {
bool hasRawCategory(const TraceModel& model, std::string_view cat)
{
    return model.stats().byRawCategory.contains(std::string(cat));
}
}  // namespace

std::string describeFormat(const TraceModel& model)
{
    const TraceMetadata& m = model.metadata();
    const auto& categories = model.stats().byRawCategory;
    const bool noCategories = categories.size() == 1 && categories.contains("");
    if (m.container == TraceContainer::BareArray)
        return noCategories ? "legacy autograd profiler (bare event array, no categories)"
                            : "Kineto, PyTorch 1.8 (bare event array)";
    if (hasRawCategory(model, "Operator") || hasRawCategory(model, "Runtime") ||
        hasRawCategory(model, "Kernel"))
        return "Kineto, PyTorch 1.8-1.10 (capitalised categories)";
    if (m.baseTimeNs)
        return "Kineto, PyTorch 2.4 or later (relative ts + baseTimeNanoseconds)";
    if (hasRawCategory(model, "async_cpu_to_gpu") || hasRawCategory(model, "async_gpu"))
        return "Kineto, PyTorch 1.11-1.13";
    if (hasRawCategory(model, "ac2g"))
        return "Kineto, PyTorch 2.0-2.3";
    return m.schemaVersion
               ? "Kineto (traceEvents object, schema " + std::to_string(*m.schemaVersion) + ")"
               : "Chrome trace object (no schemaVersion)";
}

GpuVendor detectGpuVendor(const TraceModel& model)
{
    const TraceMetadata& m = model.metadata();
    for (const auto& [cat, count] : model.stats().byRawCategory)
        if (cat.starts_with("mtia_"))
            return GpuVendor::Mtia;
    for (const auto& [key, value] : m.versions)
        if (key.starts_with("roctracer") || key.starts_with("hip_"))
            return GpuVendor::Amd;
    for (const DeviceInfo& d : m.devices)
        if (d.name.find("AMD") != std::string::npos || d.name.find("Instinct") != std::string::npos)
            return GpuVendor::Amd;
    for (const Event& e : model.events()) {
        if (isLaunchCall(e.category)) {
            const std::string_view name = model.text(e.name);
            if (name.starts_with("hip"))
                return GpuVendor::Amd;
            if (name.starts_with("cuda") || name.starts_with("cu"))
                return GpuVendor::Nvidia;
        }
    }
    for (const Event& e : model.events())
        if (isGpuActivity(e.category))
            return GpuVendor::Nvidia;  // device activity with no runtime names: CUDA by default
    return m.devices.empty() ? GpuVendor::None : GpuVendor::Nvidia;
}

std::string_view gpuVendorName(GpuVendor vendor)
{
    switch (vendor) {
    case GpuVendor::None:
        return "none";
    case GpuVendor::Nvidia:
        return "CUDA";
    case GpuVendor::Amd:
        return "ROCm";
    case GpuVendor::Mtia:
        return "MTIA";
    }
    return "unknown";
}

size_t countEventsWithNamePrefix(const TraceModel& model, std::string_view prefix)
{
    std::unordered_set<uint32_t> names;
    const StringTable& strings = model.strings();
    for (uint32_t i = 0; i < strings.size(); ++i)
        if (strings.view(StringId{i}).starts_with(prefix))
            names.insert(i);
    size_t count = 0;
    if (names.empty())
        return 0;
    for (const Event& e : model.events())
        if ((e.category == Category::CpuOp || e.category == Category::UserAnnotation) &&
            names.contains(e.name.value))
            ++count;
    return count;
}

}  // namespace kinetoscope::trace
