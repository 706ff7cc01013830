#include "app/cli/info_report.h"

#include "core/analysis/steps.h"
#include "core/format/format.h"
#include "core/trace/format_description.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kinetoscope::cli {

using nlohmann::json;
using namespace kinetoscope::trace;

namespace {

// Without markers, what the summary and the diagnosis judge instead: "no ProfilerStep
// markers: 6 iterations found from DataLoader calls", else "...: one window".
std::string stepsWithoutMarkers(const trace::TraceModel& model)
{
    const analysis::StepDetection found = analysis::detectSteps(model);
    const std::string how =
        found.source == analysis::StepSource::DataLoaderCalls  ? "from DataLoader calls"
        : found.source == analysis::StepSource::OptimizerSteps ? "from Optimizer.step"
        : found.source == analysis::StepSource::RepeatedCalls
            ? "from the repeating calls (" + found.foundBy + ")"
            : "";
    if (how.empty() || found.steps.empty())
        return "no ProfilerStep markers: analysed as one window";
    return "no ProfilerStep markers: " + format::counted(found.steps.size(), "iteration") +
           " found " + how;
}

struct TrackCounts
{
    size_t cpuThreads = 0;
    size_t gpuStreams = 0;
    size_t other = 0;
};

TrackCounts countTracks(const TraceModel& model)
{
    TrackCounts counts;
    for (const Track& t : model.tracks()) {
        if (t.eventCount == 0)
            continue;
        switch (t.kind) {
        case TrackKind::CpuThread:
            ++counts.cpuThreads;
            break;
        case TrackKind::GpuStream:
            ++counts.gpuStreams;
            break;
        case TrackKind::Other:
            ++counts.other;
            break;
        }
    }
    return counts;
}

struct LinkCounts
{
    uint64_t activities = 0;        // kernels, memcpys, memsets
    uint64_t activitiesLinked = 0;  // with their launch call
    uint64_t launchesWithOp = 0;
    uint64_t launches = 0;
};

LinkCounts countLinks(const TraceModel& model)
{
    LinkCounts c;
    for (const Event& e : model.events()) {
        if (e.category == Category::Kernel || e.category == Category::Memcpy ||
            e.category == Category::Memset) {
            ++c.activities;
            c.activitiesLinked += e.correlated.valid();
        } else if (isLaunchCall(e.category)) {
            ++c.launches;
            c.launchesWithOp += e.op.valid();
        }
    }
    return c;
}

double throughputMBps(const IngestStats& s)
{
    return s.loadSeconds > 0 ? static_cast<double>(s.bytesRead) / 1e6 / s.loadSeconds : 0.0;
}

std::string computeCapability(const DeviceInfo& d)
{
    return d.computeMajor >= 0
               ? std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor)
               : std::string();
}

}  // namespace

json infoJson(const std::string& path, const LoadResult& result)
{
    const TraceModel& model = *result.model;
    const IngestStats& s = model.stats();
    const TraceMetadata& m = model.metadata();

    json byCategory = json::object();
    for (const auto& [cat, count] : s.byRawCategory)
        byCategory[cat] = count;
    json skipped = json::object();
    for (const auto& [reason, count] : s.skipped)
        skipped[reason] = count;
    json devices = json::array();
    for (const DeviceInfo& d : m.devices)
        devices.push_back({{"id", d.id},
                           {"name", d.name},
                           {"compute_capability", computeCapability(d)},
                           {"num_sms", d.numSms},
                           {"total_memory_bytes", d.totalGlobalMemBytes}});
    json ranks = nullptr;
    if (m.distributed)
        ranks = {{"rank", m.distributed->rank},
                 {"world_size", m.distributed->worldSize},
                 {"backend", m.distributed->backend}};
    json versions = json::object();
    for (const auto& [key, value] : m.versions)
        versions[key] = value;
    const TrackCounts tracks = countTracks(model);
    const LinkCounts links = countLinks(model);
    const uint64_t modelBytes = model.memoryBytes();

    json info = {
        {"file", path},
        {"status", loadStatusName(result.status)},
        {"format", describeFormat(model)},
        {"container", m.container == TraceContainer::BareArray ? "array" : "object"},
        {"schema_version", m.schemaVersion ? json(*m.schemaVersion) : json(nullptr)},
        {"gpu_vendor", gpuVendorName(detectGpuVendor(model))},
        {"devices", devices},
        {"devices_from", m.devicesFromComputeProperties ? "computeProperties" : "deviceProperties"},
        {"ranks", ranks},
        {"versions", versions},
        {"time_span",
         {{"begin_ns", model.beginNs()},
          {"end_ns", model.endNs()},
          {"duration_ms", static_cast<double>(model.endNs() - model.beginNs()) / 1e6},
          {"base_time_ns", m.baseTimeNs ? json(*m.baseTimeNs) : json(nullptr)}}},
        {"steps", countEventsWithNamePrefix(model)},
        {"tracks",
         {{"cpu_threads", tracks.cpuThreads},
          {"gpu_streams", tracks.gpuStreams},
          {"other", tracks.other}}},
        {"events",
         {{"total", s.entries},
          {"by_category", byCategory},
          {"skipped", skipped},
          {"skipped_total", s.skippedTotal()},
          {"complete", s.completeEvents},
          {"instant", s.instantEvents},
          {"memory_samples", s.memorySamples},
          {"flow", s.flowEvents},
          {"metadata", s.metadataEvents},
          {"repaired", s.repairedEvents},
          {"mended_strings", s.mendedStrings},
          {"clamped_times", s.clampedTimes},
          {"values_out_of_range", s.valuesOutOfRange}}},
        {"links",
         {{"device_activities", links.activities},
          {"device_activities_with_launch", links.activitiesLinked},
          {"launch_calls", links.launches},
          {"launch_calls_with_op", links.launchesWithOp},
          {"flows", model.flows().size()},
          {"half_open_flows", s.halfOpenFlows},
          {"partially_overlapping_events", s.partialOverlaps}}},
        {"load_seconds", s.loadSeconds},
        {"bytes_read", s.bytesRead},
        {"file_bytes", s.fileBytes},
        {"megabytes_per_second", throughputMBps(s)},
        {"model_bytes", modelBytes},
        {"model_bytes_per_event",
         s.entries ? static_cast<double>(modelBytes) / static_cast<double>(s.entries) : 0.0},
    };
    if (!result.ok())
        info["problem"] = {{"message", result.message}, {"byte_offset", result.errorOffset}};
    return info;
}

std::string infoText(const std::string& path, const LoadResult& result)
{
    const TraceModel& model = *result.model;
    const IngestStats& s = model.stats();
    const TraceMetadata& m = model.metadata();
    std::ostringstream out;
    auto row = [&out](const char* label, const std::string& value) {
        out << "  " << label
            << std::string(13 - std::min<size_t>(12, std::char_traits<char>::length(label)), ' ')
            << value << '\n';
    };

    out << path << '\n';
    row("format",
        describeFormat(model) + ", " + std::string(gpuVendorName(detectGpuVendor(model))));
    if (m.devices.empty()) {
        row("devices", "none listed");
    } else {
        for (const DeviceInfo& d : m.devices) {
            std::string text = "#" + std::to_string(d.id) + " " + d.name;
            if (d.computeMajor >= 0)
                text += ", sm " + computeCapability(d);
            if (d.numSms > 0)
                text += ", " + format::count(d.numSms) + " SMs";
            if (d.totalGlobalMemBytes > 0)
                text += ", " + format::bytes(double(d.totalGlobalMemBytes));
            row(&d == &m.devices.front() ? "devices" : "", text);
        }
    }
    if (m.distributed)
        row("ranks",
            "rank " + std::to_string(m.distributed->rank) + " of " +
                std::to_string(m.distributed->worldSize) +
                (m.distributed->backend.empty() ? "" : " (" + m.distributed->backend + ")"));
    else
        row("ranks", "single process (no distributedInfo)");
    row("time span", format::duration(model.endNs() - model.beginNs()));
    const size_t steps = countEventsWithNamePrefix(model);
    row("steps",
        steps ? format::counted(steps, "ProfilerStep marker") : stepsWithoutMarkers(model));
    const TrackCounts tracks = countTracks(model);
    using format::counted;
    row("tracks", counted(tracks.cpuThreads, "CPU thread") + ", " +
                      counted(tracks.gpuStreams, "GPU stream") +
                      (tracks.other ? ", " + format::count(tracks.other) + " other" : ""));
    row("events", format::count(s.entries) + " entries: " + format::count(s.completeEvents) +
                      " complete, " + format::count(s.instantEvents) + " instant, " +
                      format::count(s.memorySamples) + " memory samples, " +
                      format::count(s.flowEvents) + " flow, " + format::count(s.metadataEvents) +
                      " metadata");
    std::vector<std::pair<std::string, uint64_t>> categories(s.byRawCategory.begin(),
                                                             s.byRawCategory.end());
    std::sort(categories.begin(), categories.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    bool firstCategory = true;
    for (const auto& [cat, count] : categories) {
        row(firstCategory ? "by category" : "",
            (cat.empty() ? std::string("(no cat)") : cat) + "  " + format::count(count));
        firstCategory = false;
    }
    if (s.skipped.empty()) {
        row("skipped", "none");
    } else {
        bool first = true;
        for (const auto& [reason, count] : s.skipped) {
            row(first ? "skipped" : "", format::count(count) + "  " + reason);
            first = false;
        }
    }
    if (s.repairedEvents)
        row("repaired", counted(s.repairedEvents, "event") +
                            " mended: bad characters in strings (control characters, bad "
                            "escapes, quotes not escaped, bytes not UTF-8) or a ',' lost "
                            "before them");
    if (s.mendedStrings)
        row("mended", format::count(s.mendedStrings) +
                          " names that were not valid UTF-8 (bytes replaced by U+FFFD)");
    if (s.valuesOutOfRange)
        row("unset", counted(s.valuesOutOfRange, "device activity", "device activities") +
                         " with an arg beyond what its field holds (left unset)");
    if (s.clampedTimes)
        row("clamped", format::count(s.clampedTimes) +
                           " times that baseTimeNanoseconds moved beyond 2116 or before 1934");
    const LinkCounts links = countLinks(model);
    row("links", format::count(links.activitiesLinked) + " of " +
                     counted(links.activities, "device activity", "device activities") +
                     " joined to their launch; " + format::count(links.launchesWithOp) + " of " +
                     counted(links.launches, "launch call") + " to their op; " +
                     counted(model.flows().size(), "flow"));
    row("load",
        format::seconds(s.loadSeconds) + ", " +
            format::byteRate(s.loadSeconds > 0 ? double(s.bytesRead) / s.loadSeconds : 0.0) +
            " of " + format::bytes(double(s.bytesRead)) + " JSON; model " +
            format::bytes(double(model.memoryBytes())) + " (" +
            format::bytes(s.entries ? double(model.memoryBytes()) / double(s.entries) : 0.0) +
            " per entry)");
    if (!result.ok())
        row("problem", result.message);
    return out.str();
}

}  // namespace kinetoscope::cli
