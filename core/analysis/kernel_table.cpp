#include "core/analysis/kernel_table.h"

#include "core/analysis/tensor_cores.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

struct KernelAccumulator
{
    KernelStats stats;
    int64_t longestNs = -1;
    double blocksWeighted = 0, blocksTime = 0, occupancyWeighted = 0, occupancyTime = 0;
    std::unordered_map<uint32_t, int64_t> timeByOp;  // op name -> ns
};

// A row's key: the name, then the op (by op) or the launch configuration (by config).
using GroupKey = std::array<int64_t, 10>;

GroupKey groupKey(const Event& e, const TraceModel& model, const KernelInfo* info,
                  KernelGrouping grouping)
{
    GroupKey key{};
    key.fill(-1);
    key[0] = e.name.value;
    if (grouping == KernelGrouping::NameAndOp)
        key[1] = e.op.valid() ? int64_t(model.event(e.op).name.value) : -1;
    if (grouping == KernelGrouping::LaunchConfig && info) {
        for (size_t i = 0; i < 3; ++i) {
            key[1 + i] = info->grid[i];
            key[4 + i] = info->block[i];
        }
        key[7] = info->registersPerThread;
        key[8] = info->sharedMemoryBytes;
    }
    return key;
}

}  // namespace

std::string_view matrixUnitName(MatrixUnit unit)
{
    switch (unit) {
    case MatrixUnit::TensorCore:
        return "tensor_core";
    case MatrixUnit::Simt:
        return "simt";
    case MatrixUnit::Unknown:
        break;
    }
    return "unknown";
}

std::vector<KernelStats> computeKernelTable(const TraceModel& model, const RangeSet* within,
                                            KernelGrouping grouping)
{
    std::map<GroupKey, KernelAccumulator> groups;
    for (const Event& e : model.events()) {
        if (e.category != Category::Kernel || (within && !contains(*within, e.startNs)))
            continue;
        const KernelInfo* info = model.kernelInfo(model.idOf(e));
        KernelAccumulator& acc = groups[groupKey(e, model, info, grouping)];
        KernelStats& s = acc.stats;
        if (s.calls == 0) {
            s.minNs = e.durationNs;
            s.maxNs = e.durationNs;
        }
        ++s.calls;
        s.totalNs += e.durationNs;
        s.minNs = std::min(s.minNs, e.durationNs);
        s.maxNs = std::max(s.maxNs, e.durationNs);
        if (info) {
            if (e.durationNs > acc.longestNs) {
                acc.longestNs = e.durationNs;
                std::copy(std::begin(info->grid), std::end(info->grid), s.grid);
                std::copy(std::begin(info->block), std::end(info->block), s.block);
                s.registersPerThread = info->registersPerThread;
                s.sharedMemoryBytes = info->sharedMemoryBytes;
            }
            const double d = static_cast<double>(e.durationNs);
            if (info->blocksPerSm >= 0) {
                acc.blocksWeighted += info->blocksPerSm * d;
                acc.blocksTime += d;
            }
            if (info->occupancyPercent >= 0) {
                acc.occupancyWeighted += info->occupancyPercent * d;
                acc.occupancyTime += d;
            }
        }
        if (e.op.valid())
            acc.timeByOp[model.event(e.op).name.value] += e.durationNs;
    }
    std::vector<KernelStats> table;
    table.reserve(groups.size());
    for (auto& [key, acc] : groups) {
        KernelStats& s = acc.stats;
        s.name = std::string(model.text(StringId{static_cast<uint32_t>(key[0])}));
        s.unit = matrixUnitOf(s.name);
        s.tensorCore = s.unit == MatrixUnit::TensorCore;
        if (acc.blocksTime > 0)
            s.meanBlocksPerSm = acc.blocksWeighted / acc.blocksTime;
        if (acc.occupancyTime > 0)
            s.meanOccupancyPercent = acc.occupancyWeighted / acc.occupancyTime;
        const auto top =
            std::max_element(acc.timeByOp.begin(), acc.timeByOp.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        if (top != acc.timeByOp.end())
            s.topOp = std::string(model.text(StringId{top->first}));
        table.push_back(std::move(s));
    }
    std::sort(table.begin(), table.end(), [](const KernelStats& a, const KernelStats& b) {
        return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name < b.name;
    });
    return table;
}

std::vector<MemcpyStats> computeMemcpyTable(const TraceModel& model, const RangeSet* within)
{
    std::unordered_map<uint32_t, MemcpyStats> byKind;
    for (const Event& e : model.events()) {
        if ((e.category != Category::Memcpy && e.category != Category::Memset) ||
            (within && !contains(*within, e.startNs)))
            continue;
        MemcpyStats& s = byKind[e.name.value];
        ++s.calls;
        s.totalNs += e.durationNs;
        s.isMemset = e.category == Category::Memset;
        if (const CopyInfo* info = model.copyInfo(model.idOf(e)); info && info->bytes >= 0)
            s.totalBytes = std::max<int64_t>(s.totalBytes, 0) + info->bytes;
    }
    std::vector<MemcpyStats> table;
    for (auto& [name, s] : byKind) {
        s.kind = std::string(model.text(StringId{name}));
        // "Memcpy HtoD (Pageable -> Device)": direction, then memory kinds in brackets.
        const std::string_view kind = s.kind;
        if (!s.isMemset) {
            const size_t space = kind.find(' ');
            if (space != std::string_view::npos) {
                const std::string_view rest = kind.substr(space + 1);
                s.direction = std::string(rest.substr(0, rest.find(' ')));
            }
        }
        const size_t open = kind.find('('), close = kind.rfind(')');
        if (open != std::string_view::npos && close != std::string_view::npos && close > open)
            s.memoryKind = std::string(kind.substr(open + 1, close - open - 1));
        if (s.totalBytes >= 0 && s.totalNs > 0)
            s.bandwidthGBps = static_cast<double>(s.totalBytes) / static_cast<double>(s.totalNs);
        table.push_back(std::move(s));
    }
    std::sort(table.begin(), table.end(),
              [](const MemcpyStats& a, const MemcpyStats& b) { return a.totalNs > b.totalNs; });
    return table;
}

}  // namespace kinetoscope::analysis
