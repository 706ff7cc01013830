#include "core/snapshot/snapshot_iterations.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace kinetoscope::snapshot {

namespace {

// Between consecutive occurrences, what stays allocated may be at most this share of how
// high memory rose in between: a step frees most of what it allocated.
constexpr double kNetOverSwing = 0.25;

Iterations fromAnnotations(const SnapshotModel& model)
{
    std::map<std::string, std::vector<int64_t>> starts;
    for (const Annotation& a : model.annotations)
        if (a.stage == "START" && a.timeUs >= 0)
            starts[a.name].push_back(a.timeUs);
    Iterations best;
    for (auto& [name, times] : starts)
        if (times.size() >= kMinIterations && times.size() > best.starts.size()) {
            best.starts = times;
            best.foundBy = "annotation " + name;
        }
    std::sort(best.starts.begin(), best.starts.end());
    return best;
}

// Whether memory rises and mostly comes back between each pair of consecutive entries
// in `at` (indices into the timeline, increasing).
bool comesBackDown(const DeviceTimeline& t, const std::vector<uint32_t>& at)
{
    for (size_t k = 0; k + 1 < at.size(); ++k) {
        const int64_t start = t.allocatedAfter(at[k]);
        const int64_t next = t.allocatedAfter(at[k + 1]);
        int64_t high = start;
        for (uint32_t i = at[k]; i < at[k + 1]; ++i)
            high = std::max(high, t.allocated[i]);
        const int64_t swing = high - start;
        if (swing <= 0 || double(std::abs(next - start)) > kNetOverSwing * double(swing))
            return false;
    }
    return true;
}

Iterations fromRepeatingAllocations(const SnapshotModel& model, const DeviceTimeline& t)
{
    struct Signature
    {
        StackId stack;
        int64_t size;
        bool operator==(const Signature&) const = default;
    };
    struct Hash
    {
        size_t operator()(const Signature& s) const noexcept
        {
            return size_t(s.stack) * 1000003u ^ size_t(s.size);
        }
    };
    std::unordered_map<Signature, std::vector<uint32_t>, Hash> occurrences;
    for (uint32_t i = 0; i < t.size(); ++i) {
        const TraceEntry& e = t.entry(i);
        if (e.action == Action::Alloc && e.stack != 0)
            occurrences[{e.stack, e.size}].push_back(i);
    }
    // The most frequent signatures first (a step's first allocation recurs once per step);
    // the first that comes back down between its occurrences marks the iterations.
    std::vector<const std::vector<uint32_t>*> candidates;
    for (const auto& [signature, at] : occurrences)
        if (at.size() >= kMinIterations)
            candidates.push_back(&at);
    std::sort(candidates.begin(), candidates.end(), [](const auto* a, const auto* b) {
        return a->size() != b->size() ? a->size() > b->size() : a->front() < b->front();
    });
    constexpr size_t kTried = 32;  // each try reads the history once
    for (size_t c = 0; c < candidates.size() && c < kTried; ++c) {
        const std::vector<uint32_t>& at = *candidates[c];
        if (!comesBackDown(t, at))
            continue;
        Iterations found;
        for (uint32_t i : at)
            found.starts.push_back(t.when(i));
        found.foundBy = "a repeating allocation at " + model.place(t.entry(at.front()).stack);
        return found;
    }
    return {};
}

}  // namespace

Iterations findIterations(const SnapshotModel& model, const DeviceTimeline& timeline)
{
    Iterations marked = fromAnnotations(model);
    if (!marked.starts.empty())
        return marked;
    return fromRepeatingAllocations(model, timeline);
}

}  // namespace kinetoscope::snapshot
