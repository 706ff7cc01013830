#include "core/compare/run_identity.h"

#include "core/format/format.h"
#include "core/trace/format_description.h"
#include "core/trace/name_cache.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

namespace kinetoscope::compare {

std::string Hardware::text() const
{
    if (!devices.empty())
        return devices;
    if (vendor == "CPU")
        return "CPU";
    return vendor.empty() ? "unknown hardware" : vendor + " GPU";
}

Hardware hardwareOf(const session::Session& session)
{
    Hardware hardware;
    const auto device = session.environment.find("device");
    if (device == session.environment.end() || device->second.empty())
        return hardware;
    if (device->second == "CPU")
        hardware.vendor = "CPU";
    else
        hardware.devices = device->second;
    return hardware;
}

Hardware hardwareOf(const trace::TraceModel& model, bool cpuOnly)
{
    Hardware hardware;
    switch (trace::detectGpuVendor(model)) {
    case trace::GpuVendor::Nvidia:
        hardware.vendor = "NVIDIA";
        break;
    case trace::GpuVendor::Amd:
        hardware.vendor = "AMD";
        break;
    case trace::GpuVendor::Mtia:
        hardware.vendor = "MTIA";
        break;
    case trace::GpuVendor::None:
        break;
    }
    std::set<std::string> seen;
    for (const trace::DeviceInfo& device : model.metadata().devices) {
        if (device.name.empty() || !seen.insert(device.name).second)
            continue;
        hardware.devices += (hardware.devices.empty() ? "" : " + ") + device.name;
    }
    // No launch, no device activity and no device named: a CPU run. (A GPU run profiled
    // with CPU activities only still names its devices in deviceProperties.)
    if (cpuOnly && hardware.vendor.empty() && hardware.devices.empty())
        hardware.vendor = "CPU";
    return hardware;
}

std::vector<std::vector<int64_t>> parseShapes(std::string_view text)
{
    // The outer list holds one entry per input; an entry is a list of integers, or
    // anything else (a scalar, a nested list of tensors) which counts as no shape.
    std::vector<std::vector<int64_t>> shapes;
    size_t i = text.find('[');
    if (i == std::string_view::npos)
        return shapes;
    ++i;
    int depth = 1;
    std::vector<int64_t> current;
    bool inEntry = false, entryValid = true;
    while (i < text.size() && depth > 0) {
        const char c = text[i];
        if (c == '[') {
            ++depth;
            if (depth == 2) {
                inEntry = true;
                entryValid = true;
                current.clear();
            } else {
                entryValid = false;
            }
            ++i;
        } else if (c == ']') {
            if (depth == 2 && inEntry) {
                shapes.push_back(entryValid ? current : std::vector<int64_t>{});
                inEntry = false;
            }
            --depth;
            ++i;
        } else if (depth == 2 && (c == '-' || (c >= '0' && c <= '9'))) {
            int64_t value = 0;
            const auto [end, error] =
                std::from_chars(text.data() + i, text.data() + text.size(), value);
            if (error != std::errc())
                entryValid = false;
            current.push_back(value);
            i = size_t(end - text.data()) > i ? size_t(end - text.data()) : i + 1;
        } else {
            ++i;
        }
    }
    return shapes;
}

namespace {

// An op's most frequent shapes (by calls), by name.
std::map<std::string, std::vector<std::vector<int64_t>>>
commonShapes(const std::vector<analysis::OpStats>& ops)
{
    std::map<std::string, std::pair<int64_t, std::string>> best;  // name -> (calls, shapes)
    for (const analysis::OpStats& op : ops) {
        if (op.inputShapes.empty())
            continue;
        auto& entry = best[op.name];
        if (op.calls > entry.first)
            entry = {op.calls, op.inputShapes};
    }
    std::map<std::string, std::vector<std::vector<int64_t>>> shapes;
    for (const auto& [name, entry] : best)
        shapes[name] = parseShapes(entry.second);
    return shapes;
}

// The first input's leading dimensions when the two shape lists differ there and only
// there (the same inputs, the same other dimensions); nullopt otherwise.
std::optional<std::pair<int64_t, int64_t>> leadingChange(const std::vector<std::vector<int64_t>>& a,
                                                         const std::vector<std::vector<int64_t>>& b)
{
    if (a.empty() || a.size() != b.size() || a[0].empty() || a[0].size() != b[0].size())
        return std::nullopt;
    if (a[0][0] == b[0][0] || a[0][0] <= 0 || b[0][0] <= 0)
        return std::nullopt;
    if (!std::equal(a[0].begin() + 1, a[0].end(), b[0].begin() + 1))
        return std::nullopt;
    return std::pair{a[0][0], b[0][0]};
}

}  // namespace

std::string BatchChange::source() const
{
    return configured
               ? "the configuration"
               : "the input shapes of " + format::counted(uint64_t(opsAgreeing), "op", "ops");
}

std::optional<BatchChange> configuredBatchChange(const session::Session& before,
                                                 const session::Session& after)
{
    auto batchOf = [](const session::Session& s) -> int64_t {
        const auto it = s.config.find("batch_size");
        if (it == s.config.end())
            return 0;
        int64_t value = 0;
        const char* end = it->second.data() + it->second.size();
        const auto [at, error] = std::from_chars(it->second.data(), end, value);
        return error == std::errc() && at == end && value > 0 ? value : 0;
    };
    const int64_t a = batchOf(before), b = batchOf(after);
    if (a == 0 || b == 0 || a == b)
        return std::nullopt;
    BatchChange change;
    change.before = a;
    change.after = b;
    change.configured = true;
    return change;
}

std::optional<BatchChange> detectBatchChange(const std::vector<analysis::OpStats>& before,
                                             const std::vector<analysis::OpStats>& after)
{
    const auto a = commonShapes(before), b = commonShapes(after);
    int otherChanges = 0;  // shapes that changed elsewhere than the leading dimension
    std::map<std::pair<int64_t, int64_t>, int> changes;
    for (const auto& [name, shapesA] : a) {
        const auto it = b.find(name);
        if (it == b.end() || shapesA.empty() || shapesA[0].empty())
            continue;
        if (shapesA == it->second)
            continue;
        if (const auto change = leadingChange(shapesA, it->second))
            ++changes[*change];
        else
            ++otherChanges;
    }
    if (changes.empty())
        return std::nullopt;
    const auto top =
        std::max_element(changes.begin(), changes.end(),
                         [](const auto& x, const auto& y) { return x.second < y.second; });
    // The batch changed when at least three shared ops show this one change and more ops
    // show it than show any other change of shape (ops on weights keep their shapes: they
    // argue for nothing).
    if (top->second < 3 || top->second <= otherChanges)
        return std::nullopt;
    return BatchChange{top->first.first, top->first.second, top->second};
}

StepShapes stepShapes(const trace::TraceModel& model,
                      const std::vector<std::pair<int64_t, int64_t>>& steps)
{
    static const std::set<std::string_view> gemms = {
        "aten::mm",          "aten::addmm",        "aten::bmm",   "aten::baddbmm",
        "aten::convolution", "aten::_convolution", "aten::conv2d"};
    auto isGemm = [](std::string_view name) { return gemms.contains(name); };
    trace::PerName<bool, decltype(isGemm)> gemm{model, isGemm};
    std::vector<std::set<std::pair<uint32_t, uint32_t>>> perStep(steps.size());
    std::map<std::pair<uint32_t, uint32_t>, size_t> stepsRunning;  // (op, shapes) -> steps
    for (const trace::Event& e : model.events()) {
        if (e.category != trace::Category::CpuOp || !gemm(e.name))
            continue;
        const auto after = std::upper_bound(
            steps.begin(), steps.end(), e.startNs,
            [](int64_t t, const std::pair<int64_t, int64_t>& step) { return t < step.first; });
        if (after == steps.begin() || e.startNs >= std::prev(after)->second)
            continue;
        const trace::StringId shapes = model.inputShapes(model.idOf(e));
        if (!shapes.valid())
            continue;
        perStep[size_t(std::prev(after) - steps.begin())].insert({e.name.value, shapes.value});
    }
    StepShapes out;
    std::set<std::set<std::pair<uint32_t, uint32_t>>> signatures;
    for (auto& step : perStep)
        if (!step.empty()) {
            ++out.steps;
            for (const auto& gemmShapes : step)
                ++stepsRunning[gemmShapes];
            signatures.insert(std::move(step));
        }
    out.signatures = signatures.size();
    // The shapes that not every step runs, by op: what changes.
    std::map<uint32_t, size_t> changing;
    for (const auto& [gemmShapes, count] : stepsRunning)
        if (count < out.steps)
            ++changing[gemmShapes.first];
    for (const auto& [name, count] : changing)
        if (count > out.opShapes) {
            out.opShapes = count;
            out.op = std::string(model.text(trace::StringId{name}));
        }
    return out;
}

}  // namespace kinetoscope::compare
