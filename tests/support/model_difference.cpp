#include "tests/support/model_difference.h"

#include <cstring>
#include <span>
#include <sstream>

namespace kinetoscope::test {

namespace {

using namespace trace;

// Collects the first difference; later checks are skipped once one is found.
class Differ
{
public:
    template <typename T>
    void check(const std::string& what, const T& a, const T& b)
    {
        if (found() || a == b)
            return;
        std::ostringstream line;
        line << what << " differs";
        if constexpr (requires(std::ostream & o) { o << a; })
            line << ": " << a << " vs " << b;
        m_first = line.str();
    }
    bool found() const { return !m_first.empty(); }
    std::string result() const { return m_first; }

private:
    std::string m_first;
};

bool same(const KernelInfo* a, const KernelInfo* b)
{
    if (!a || !b)
        return a == b;
    return std::equal(a->grid, a->grid + 3, b->grid) &&
           std::equal(a->block, a->block + 3, b->block) &&
           a->registersPerThread == b->registersPerThread &&
           a->sharedMemoryBytes == b->sharedMemoryBytes && a->blocksPerSm == b->blocksPerSm &&
           a->warpsPerSm == b->warpsPerSm && a->occupancyPercent == b->occupancyPercent;
}

bool same(const CopyInfo* a, const CopyInfo* b)
{
    if (!a || !b)
        return a == b;
    return a->bytes == b->bytes && a->bandwidthGBps == b->bandwidthGBps;
}

std::vector<uint32_t> values(std::span<const EventId> ids)
{
    std::vector<uint32_t> out;
    for (const EventId id : ids)
        out.push_back(id.value);
    return out;
}

}  // namespace

std::string firstDifference(const TraceModel& a, const TraceModel& b)
{
    Differ d;
    d.check("string count", a.strings().size(), b.strings().size());
    for (size_t i = 0; !d.found() && i < a.strings().size(); ++i) {
        const StringId id{static_cast<uint32_t>(i)};
        d.check("string " + std::to_string(i), a.text(id), b.text(id));
    }
    d.check("track count", a.tracks().size(), b.tracks().size());
    for (size_t i = 0; !d.found() && i < a.tracks().size(); ++i) {
        const Track& x = a.tracks()[i];
        const Track& y = b.tracks()[i];
        const std::string t = "track " + std::to_string(i) + " ";
        d.check(t + "kind", int(x.kind), int(y.kind));
        d.check(t + "pid", x.pid, y.pid);
        d.check(t + "tid", x.tid, y.tid);
        d.check(t + "pidLabel", x.pidLabel.value, y.pidLabel.value);
        d.check(t + "tidLabel", x.tidLabel.value, y.tidLabel.value);
        d.check(t + "name", x.name.value, y.name.value);
        d.check(t + "processName", x.processName.value, y.processName.value);
        d.check(t + "processLabel", x.processLabel.value, y.processLabel.value);
        d.check(t + "sortIndex", x.sortIndex, y.sortIndex);
        d.check(t + "firstEvent", x.firstEvent, y.firstEvent);
        d.check(t + "eventCount", x.eventCount, y.eventCount);
        d.check(t + "maxDepth", x.maxDepth, y.maxDepth);
    }
    d.check("event count", a.events().size(), b.events().size());
    for (uint32_t i = 0; !d.found() && i < a.events().size(); ++i) {
        const Event& x = a.events()[i];
        const Event& y = b.events()[i];
        const EventId id{i};
        const std::string e = "event " + std::to_string(i) + " ";
        d.check(e + "start", x.startNs, y.startNs);
        d.check(e + "duration", x.durationNs, y.durationNs);
        d.check(e + "name", x.name.value, y.name.value);
        d.check(e + "track", x.track.value, y.track.value);
        d.check(e + "parent", x.parent.value, y.parent.value);
        d.check(e + "correlated", x.correlated.value, y.correlated.value);
        d.check(e + "op", x.op.value, y.op.value);
        d.check(e + "depth", x.depth, y.depth);
        d.check(e + "category", int(x.category), int(y.category));
        d.check(e + "flags", int(x.flags), int(y.flags));
        d.check(e + "source offset", a.sourceOffset(id), b.sourceOffset(id));
        d.check(e + "launched activities", values(a.activitiesLaunchedBy(id)),
                values(b.activitiesLaunchedBy(id)));
        d.check(e + "launch calls", values(a.launchCallsOf(id)), values(b.launchCallsOf(id)));
        d.check(e + "input shapes", a.inputShapes(id).value, b.inputShapes(id).value);
        d.check(e + "kernel info", same(a.kernelInfo(id), b.kernelInfo(id)), true);
        d.check(e + "copy info", same(a.copyInfo(id), b.copyInfo(id)), true);
    }
    d.check("flow count", a.flows().size(), b.flows().size());
    for (size_t i = 0; !d.found() && i < a.flows().size(); ++i) {
        const Flow& x = a.flows()[i];
        const Flow& y = b.flows()[i];
        const std::string f = "flow " + std::to_string(i) + " ";
        d.check(f + "id", x.id, y.id);
        d.check(f + "from", x.from.value, y.from.value);
        d.check(f + "to", x.to.value, y.to.value);
        d.check(f + "kind", int(x.kind), int(y.kind));
    }
    d.check("memory sample count", a.memorySamples().size(), b.memorySamples().size());
    for (size_t i = 0; !d.found() && i < a.memorySamples().size(); ++i) {
        const MemorySample& x = a.memorySamples()[i];
        const MemorySample& y = b.memorySamples()[i];
        const std::string m = "memory sample " + std::to_string(i) + " ";
        d.check(m + "time", x.timeNs, y.timeNs);
        d.check(m + "bytes", x.bytes, y.bytes);
        d.check(m + "allocated", x.totalAllocated, y.totalAllocated);
        d.check(m + "reserved", x.totalReserved, y.totalReserved);
        d.check(m + "address", x.address, y.address);
        d.check(m + "track", x.track.value, y.track.value);
        d.check(m + "device", int(x.deviceId), int(y.deviceId));
        d.check(m + "device type", int(x.deviceType), int(y.deviceType));
    }
    const TraceMetadata& x = a.metadata();
    const TraceMetadata& y = b.metadata();
    d.check("container", int(x.container), int(y.container));
    d.check("schemaVersion", x.schemaVersion, y.schemaVersion);
    d.check("baseTimeNs", x.baseTimeNs, y.baseTimeNs);
    d.check("rejectedValues", x.rejectedValues, y.rejectedValues);
    d.check("traceName", x.traceName, y.traceName);
    d.check("device count", x.devices.size(), y.devices.size());
    d.check("versions", x.versions, y.versions);
    d.check("otherKeys", x.otherKeys, y.otherKeys);

    const IngestStats& s = a.stats();
    const IngestStats& t = b.stats();
    d.check("entries", s.entries, t.entries);
    d.check("completeEvents", s.completeEvents, t.completeEvents);
    d.check("instantEvents", s.instantEvents, t.instantEvents);
    d.check("memorySamples", s.memorySamples, t.memorySamples);
    d.check("flowEvents", s.flowEvents, t.flowEvents);
    d.check("metadataEvents", s.metadataEvents, t.metadataEvents);
    d.check("byRawCategory", s.byRawCategory, t.byRawCategory);
    d.check("skipped", s.skipped, t.skipped);
    d.check("repairedEvents", s.repairedEvents, t.repairedEvents);
    d.check("mendedStrings", s.mendedStrings, t.mendedStrings);
    d.check("clampedTimes", s.clampedTimes, t.clampedTimes);
    d.check("valuesOutOfRange", s.valuesOutOfRange, t.valuesOutOfRange);
    d.check("halfOpenFlows", s.halfOpenFlows, t.halfOpenFlows);
    d.check("unresolvedFlowEnds", s.unresolvedFlowEnds, t.unresolvedFlowEnds);
    d.check("partialOverlaps", s.partialOverlaps, t.partialOverlaps);
    d.check("activitiesWithoutLaunch", s.activitiesWithoutLaunch, t.activitiesWithoutLaunch);
    d.check("bytesRead", s.bytesRead, t.bytesRead);
    d.check("fileBytes", s.fileBytes, t.fileBytes);
    d.check("partlyRead", s.partlyRead, t.partlyRead);
    d.check("beginNs", a.beginNs(), b.beginNs());
    d.check("endNs", a.endNs(), b.endNs());
    return d.result();
}

}  // namespace kinetoscope::test
