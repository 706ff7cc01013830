#include "core/analysis/window.h"

#include "core/analysis/breakdown.h"
#include "core/analysis/name_match.h"
#include "core/analysis/runtime_calls.h"
#include "core/analysis/time_ranges.h"
#include "core/compiled/compiled_window.h"
#include "core/format/format.h"
#include "core/trace/event_args.h"
#include "core/trace/name_cache.h"
#include "core/trace/printable.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

// A host call that does not wait for the device and still lasts this long is doing
// one-time work (a steady cudaLaunchKernel takes microseconds).
constexpr int64_t kOneOffCallNs = 5'000'000;  // 5 ms
// A first step this many times the median of the others is warm-up even without a
// recognisable one-off call (first batch, worker start-up, autotuning).
constexpr double kWarmUpStepRatio = 2.0;
// A step that fetched this many DataLoader batches more than the steps' median, and took
// this many times their median, ran a pass besides the training step (an evaluation).
// Two batches, not one: an epoch's end adds the __next__ that raised StopIteration.
constexpr int64_t kExtraPassBatches = 2;
constexpr double kExtraPassStepRatio = 1.5;
// A step whose one-off calls take this share of it is not steady.
constexpr double kOneOffStepShare = 0.10;
// A CPU op's first call this many times the longest of its later calls did one-time work.
constexpr double kFirstCallRatio = 10.0;
// A window shorter than this, or with fewer device activities and host ops than these,
// is a fixture or a fragment: too little to tell a bottleneck from noise.
constexpr int64_t kFewActivities = 10;
constexpr int64_t kFewHostOps = 100;
constexpr int64_t kOverlapToleranceNs = 1'000;
// An event this far outside the profiler's own span lies outside the profiled window.
constexpr int64_t kOutsideToleranceNs = 1'000'000;  // 1 ms
// Fewer ops than this share of the op ids they span: a sampled trace.
constexpr double kSampledShare = 0.10;

bool isTrainingKernel(std::string_view name)
{
    return containsNoCase(name, "backward") || containsNoCase(name, "_bwd") ||
           containsNoCase(name, "wgrad") || containsNoCase(name, "dgrad");
}

std::string describeOneOff(CallKind kind, std::string_view call)
{
    const std::string name(call);
    switch (kind) {
    case CallKind::KernelLaunch:
    case CallKind::GraphLaunch:
        return "kernel module loading (lazy loading or JIT) in " + name;
    case CallKind::ModuleLoad:
        return "module loading in " + name;
    case CallKind::Allocation:
        if (call.find("Free") != std::string_view::npos ||
            call.find("free") != std::string_view::npos)
            return "library initialisation (cuBLAS/cuDNN workspaces) in " + name;
        if (call.find("Host") != std::string_view::npos)
            return "pinned host memory allocation in " + name;
        return "allocator growth in " + name;
    case CallKind::GraphCapture:
        return "graph capture and instantiation in " + name;
    default:
        return "context creation or first-call initialisation in " + name;
    }
}

bool isBlockingKind(CallKind kind)
{
    return kind == CallKind::Synchronize || kind == CallKind::Copy;
}

// The step that holds `t`, or -1.
int stepAt(const std::vector<Step>& steps, int64_t t)
{
    for (size_t i = 0; i < steps.size(); ++i)
        if (t >= steps[i].beginNs && t < steps[i].endNs)
            return static_cast<int>(i);
    return -1;
}

// A long call that recurs in most steps is what every step costs, not a one-off: a device
// whose runtime runs synchronously, a blocking call the loop makes each step. Only its
// first occurrence can still be warm-up, when it is far longer than the rest.
void keepOnlyFirstOfRecurring(const WindowClass& w, std::vector<OneOffCost>& candidates)
{
    if (w.allSteps.size() < 2)
        return;
    std::map<std::string, std::vector<size_t>> byCall;
    for (size_t i = 0; i < candidates.size(); ++i)
        if (!candidates[i].beforeWindow)
            byCall[candidates[i].call].push_back(i);
    std::vector<bool> drop(candidates.size(), false);
    for (const auto& [call, indices] : byCall) {
        std::set<int> steps;
        for (size_t i : indices)
            steps.insert(stepAt(w.allSteps, candidates[i].beginNs));
        steps.erase(-1);
        if (steps.size() < std::max<size_t>(2, (w.allSteps.size() + 1) / 2))
            continue;
        std::vector<size_t> byTime = indices;
        std::sort(byTime.begin(), byTime.end(), [&](size_t a, size_t b) {
            return candidates[a].beginNs < candidates[b].beginNs;
        });
        std::vector<int64_t> rest;
        for (size_t k = 1; k < byTime.size(); ++k)
            rest.push_back(candidates[byTime[k]].lengthNs());
        std::nth_element(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(rest.size() / 2),
                         rest.end());
        const bool firstIsWarmUp =
            !rest.empty() && static_cast<double>(candidates[byTime[0]].lengthNs()) >=
                                 kWarmUpStepRatio * static_cast<double>(rest[rest.size() / 2]);
        for (size_t k = firstIsWarmUp ? 1 : 0; k < byTime.size(); ++k)
            drop[byTime[k]] = true;
    }
    std::vector<OneOffCost> kept;
    for (size_t i = 0; i < candidates.size(); ++i)
        if (!drop[i])
            kept.push_back(std::move(candidates[i]));
    candidates = std::move(kept);
}

// A CPU op whose first call lasts far longer than its later ones did one-time work there
// (library initialisation, lazy module set-up, a first batch): in a window without device
// activity, where no runtime call shows it. The outermost such op stands for the rest.
void findFirstCallCosts(const TraceModel& model, std::vector<OneOffCost>& out)
{
    std::map<std::pair<uint32_t, uint32_t>, std::vector<const Event*>> calls;  // (track, name)
    for (const Event& e : model.events())
        if (e.category == Category::CpuOp)
            calls[{e.track.value, e.name.value}].push_back(&e);
    std::set<uint32_t> firsts;
    std::vector<std::pair<const Event*, int64_t>> found;  // (first call, the longest later one)
    for (auto& [key, list] : calls) {
        if (list.size() < 3)
            continue;
        std::sort(list.begin(), list.end(),
                  [](const Event* a, const Event* b) { return a->startNs < b->startNs; });
        const Event* first = list.front();
        if (first->durationNs < kOneOffCallNs)
            continue;
        // Against the longest later call: one name covers calls of every shape (without
        // record_shapes nothing tells them apart), and a first call is one-time work only
        // when no later call comes near it.
        int64_t longest = 0;
        for (size_t i = 1; i < list.size(); ++i)
            longest = std::max(longest, list[i]->durationNs);
        if (static_cast<double>(first->durationNs) < kFirstCallRatio * static_cast<double>(longest))
            continue;
        firsts.insert(model.idOf(*first).value);
        found.emplace_back(first, longest);
    }
    for (const auto& [first, longest] : found) {
        bool outermost = true;
        for (EventId p = first->parent; p.valid() && outermost; p = model.event(p).parent)
            outermost = !firsts.count(p.value);
        if (!outermost)
            continue;
        const std::string name(model.text(first->name));
        out.push_back({"first-call initialisation in " + name + " (later calls take up to " +
                           format::duration(static_cast<double>(longest)) + ")",
                       name, false, first->startNs, first->endNs()});
    }
}

// torch.compile compiling inside the window (a first compile, or a recompile for a new
// shape): the outermost compile span on each thread.
void findCompilations(const TraceModel& model, std::vector<OneOffCost>& out)
{
    auto compiling = perName<bool>(model, compiled::isCompileWork);
    for (const Track& track : model.tracks()) {
        if (track.kind != TrackKind::CpuThread)
            continue;
        int64_t insideUntil = std::numeric_limits<int64_t>::min();
        for (const Event& e :
             model.events(TrackId{static_cast<uint32_t>(&track - model.tracks().data())})) {
            if (e.startNs < insideUntil || !compiling(e.name))
                continue;
            insideUntil = e.endNs();
            const std::string name(model.text(e.name));
            out.push_back(
                {"torch.compile compiling in " + name, name, false, e.startNs, e.endNs()});
        }
    }
}

void findOneOffs(const TraceModel& model, WindowClass& w)
{
    // When the device was busy, to tell whether a long blocking call had anything
    // recorded to wait for.
    std::vector<TimeRange> busy;
    for (const Event& e : model.events())
        if (e.category == Category::Kernel || e.category == Category::Memcpy ||
            e.category == Category::Memset)
            busy.push_back({e.startNs, e.endNs()});
    const RangeSet busySet = unionOf(std::move(busy));
    for (const Event& e : model.events()) {
        if (!isLaunchCall(e.category) || e.durationNs < kOneOffCallNs)
            continue;
        const std::string_view name = model.text(e.name);
        const CallKind kind = classifyRuntimeCall(name);
        if (kind == CallKind::StreamWait)
            continue;
        if (isBlockingKind(kind)) {
            // A blocking call waits for device work. When the device ran (in the trace)
            // for almost none of the wait, the work it waited for is not recorded: it was
            // launched before the profiler started, and is no cost of this window.
            if (10 * lengthWithin(busySet, e.startNs, e.endNs()) >= e.durationNs)
                continue;
            w.oneOffs.push_back(
                {"a blocking " + std::string(name) +
                     " waiting for device work launched before the profiler started",
                 std::string(name), true, e.startNs, e.endNs()});
            continue;
        }
        if (isSynchronousLaunch(model, e))
            continue;  // it waited for the work it launched: the device's time, every step
        w.oneOffs.push_back(
            {describeOneOff(kind, name), std::string(name), false, e.startNs, e.endNs()});
    }
    findCompilations(model, w.oneOffs);
    if (w.deviceActivities == 0 && w.kernelLaunchCalls + w.graphLaunches == 0)
        findFirstCallCosts(model, w.oneOffs);  // no runtime call shows one-time work here
    keepOnlyFirstOfRecurring(w, w.oneOffs);
    std::sort(w.oneOffs.begin(), w.oneOffs.end(),
              [](const OneOffCost& a, const OneOffCost& b) { return a.lengthNs() > b.lengthNs(); });
    std::vector<TimeRange> ranges;
    for (const OneOffCost& o : w.oneOffs)
        if (!o.beforeWindow)
            ranges.push_back({o.beginNs, o.endNs});
    w.oneOffNs = totalLength(unionOf(std::move(ranges)));
}

int64_t oneOffNsWithin(const WindowClass& w, int64_t begin, int64_t end)
{
    std::vector<TimeRange> ranges;
    for (const OneOffCost& o : w.oneOffs) {
        const int64_t b = std::max(o.beginNs, begin), e = std::min(o.endNs, end);
        if (b < e)
            ranges.push_back({b, e});
    }
    return totalLength(unionOf(std::move(ranges)));
}

double medianOf(std::vector<int64_t> values)
{
    std::nth_element(values.begin(),
                     values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
    return static_cast<double>(values[values.size() / 2]);
}

// DataLoader __next__ calls (the outermost) that begin inside each step's marker span.
std::vector<int64_t> batchesPerStep(const TraceModel& model, const std::vector<Step>& steps)
{
    std::vector<int64_t> batches(steps.size(), 0);
    auto dataLoader = perName<bool>(model, isDataLoaderOp);
    for (const Event& e : model.events()) {
        if (e.category != Category::UserAnnotation && e.category != Category::CpuOp)
            continue;
        if (!dataLoader(e.name) || (e.parent.valid() && dataLoader(model.event(e.parent).name)))
            continue;
        auto after = std::upper_bound(steps.begin(), steps.end(), e.startNs,
                                      [](int64_t t, const Step& s) { return t < s.hostBeginNs; });
        if (after == steps.begin())
            continue;
        const auto i = static_cast<size_t>(after - steps.begin() - 1);
        batches[i] += e.startNs < steps[i].hostEndNs;
    }
    return batches;
}

// Later steps that fetched more batches than the steps' median and took far longer: a pass
// over other batches ran inside them (kExtraPassBatches). Medians of all the steps (one pass:
// a loop found without markers may have thousands), which such steps rarely move.
void findExtraPasses(const TraceModel& model, WindowClass& w)
{
    const std::vector<Step>& steps = w.allSteps;
    const std::vector<int64_t> batches = batchesPerStep(model, steps);
    std::vector<int64_t> durations;
    durations.reserve(steps.size());
    for (const Step& s : steps)
        durations.push_back(s.durationNs());
    const double steadyBatches = medianOf(batches), steadyNs = medianOf(std::move(durations));
    for (size_t i = 1; i < steps.size(); ++i)
        if (w.roles[i] == StepRole::Steady &&
            static_cast<double>(batches[i]) >= steadyBatches + kExtraPassBatches &&
            static_cast<double>(steps[i].durationNs()) >= kExtraPassStepRatio * steadyNs) {
            w.roles[i] = StepRole::ExtraPass;
            w.extraPasses.push_back({i, batches[i], static_cast<int64_t>(steadyBatches)});
        }
}

void assignRoles(const TraceModel& model, WindowClass& w)
{
    const std::vector<Step>& steps = w.allSteps;
    w.roles.assign(steps.size(), StepRole::Steady);
    for (size_t i = 0; i < steps.size(); ++i) {
        const double length = static_cast<double>(std::max<int64_t>(1, steps[i].durationNs()));
        if (static_cast<double>(oneOffNsWithin(w, steps[i].beginNs, steps[i].endNs)) >=
            kOneOffStepShare * length)
            w.roles[i] = i == 0 ? StepRole::WarmUp : StepRole::Outlier;
    }
    if (steps.size() < 3)
        return;
    auto medianOfOthers = [&](size_t skip) {
        std::vector<int64_t> rest;
        for (size_t i = 0; i < steps.size(); ++i)
            if (i != skip)
                rest.push_back(steps[i].durationNs());
        return medianOf(std::move(rest));
    };
    if (w.roles[0] == StepRole::Steady &&
        static_cast<double>(steps[0].durationNs()) >= kWarmUpStepRatio * medianOfOthers(0))
        w.roles[0] = StepRole::WarmUp;
    // An iteration found without markers ends where the next begins; the last one runs
    // to the end of the host activity, whatever follows the loop: a tail, not a step.
    const size_t last = steps.size() - 1;
    if (w.stepSource != StepSource::Markers && w.roles[last] == StepRole::Steady &&
        static_cast<double>(steps[last].durationNs()) >= kWarmUpStepRatio * medianOfOthers(last))
        w.roles[last] = StepRole::Outlier;
    findExtraPasses(model, w);
}

void countActivity(const TraceModel& model, WindowClass& w)
{
    auto callKind = perName<CallKind>(model, classifyRuntimeCall);
    for (const Event& e : model.events()) {
        if (e.category == Category::Kernel || e.category == Category::Memcpy ||
            e.category == Category::Memset) {
            ++w.deviceActivities;
            continue;
        }
        if (!isLaunchCall(e.category))
            continue;
        const CallKind kind = callKind(e.name);
        const bool ran = !model.activitiesLaunchedBy(model.idOf(e)).empty();
        if (kind == CallKind::KernelLaunch) {
            ++w.kernelLaunchCalls;
            w.launchesWithoutActivity += !ran;
        } else if (kind == CallKind::GraphLaunch) {
            ++w.graphLaunches;
            w.graphReplay |= ran;
        } else if (kind == CallKind::GraphCapture) {
            ++w.graphCaptureCalls;
        }
    }
}

// The op ids (`External id`) of a few CPU ops spread over the trace, read back from the
// file: ids are handed out one per op, so ops far fewer than the ids they span mean the
// trace kept a sample of its events. Returns the share kept, or -1 when it cannot tell.
double keptShareOfOps(const TraceModel& model)
{
    std::vector<const Event*> ops;
    for (const Event& e : model.events())
        if (e.category == Category::CpuOp)
            ops.push_back(&e);
    constexpr size_t kSamples = 12;
    if (ops.size() < 4 * kSamples)
        return -1;
    std::sort(ops.begin(), ops.end(),
              [](const Event* a, const Event* b) { return a->startNs < b->startNs; });
    std::vector<std::pair<size_t, int64_t>> ids;  // (rank among ops, External id)
    for (size_t i = 0; i < kSamples; ++i) {
        const size_t rank = i * (ops.size() - 1) / (kSamples - 1);
        const std::optional<std::vector<Arg>> args = readArgs(model, model.idOf(*ops[rank]));
        if (!args)
            continue;
        const ArgValue* id = findArg(*args, "External id");
        if (!id)
            id = findArg(*args, "external id");
        if (const std::optional<int64_t> external = id ? id->integer() : std::nullopt)
            ids.emplace_back(rank, *external);
    }
    if (ids.size() < kSamples / 2 || ids.back().second <= ids.front().second)
        return -1;
    return static_cast<double>(ids.back().first - ids.front().first) /
           static_cast<double>(ids.back().second - ids.front().second);
}

void findQualityIssues(const TraceModel& model, WindowClass& w)
{
    int64_t overlapping = 0, skewed = 0;
    for (const Track& track : model.tracks()) {
        if (track.kind != TrackKind::GpuStream)
            continue;
        int64_t previousEnd = std::numeric_limits<int64_t>::min();
        for (const Event& e :
             model.events(TrackId{static_cast<uint32_t>(&track - model.tracks().data())})) {
            if (e.category != Category::Kernel && e.category != Category::Memcpy &&
                e.category != Category::Memset)
                continue;
            overlapping += e.startNs + kOverlapToleranceNs < previousEnd;
            previousEnd = std::max(previousEnd, e.endNs());
            if (e.correlated.valid() &&
                e.startNs + kOverlapToleranceNs < model.event(e.correlated).startNs)
                ++skewed;
        }
    }
    auto add = [&](const char* code, int64_t count, const std::string& message) {
        if (count > 0)
            w.quality.push_back({code, message, count});
    };
    // Kernels of one graph replay may run concurrently although reported on one stream.
    if (w.graphReplay)
        overlapping = 0;
    add("overlapping-on-stream", overlapping,
        format::counted(uint64_t(overlapping), "device activity overlaps",
                        "device activities overlap") +
            " the one before on the same stream (a stream runs one at a time): their timestamps "
            "are unreliable");
    add("clock-skew", skewed,
        format::counted(uint64_t(skewed), "device activity starts", "device activities start") +
            " before the call that launched it: host and device clocks disagree, so launch delays "
            "leave them out");
    if (!w.captureWindow && !w.deviceActivityMissing && w.kernelLaunchCalls > 0 &&
        w.launchesWithoutActivity * 20 > w.kernelLaunchCalls)
        add("launches-without-kernels", w.launchesWithoutActivity,
            format::count(w.launchesWithoutActivity) + " of " + format::count(w.kernelLaunchCalls) +
                " kernel launches have no kernel in the trace (activity buffers lost or dropped)");
    if (const double kept = keptShareOfOps(model); kept >= 0 && kept < kSampledShare) {
        w.sampled = true;
        add("sampled-trace", 1,
            "only about " + format::percent(kept) +
                " of the host ops were kept (their op ids are sparse): busy and idle times cannot "
                "be trusted");
    }
    const IngestStats& stats = model.stats();
    if (!stats.partlyRead.empty())
        add("partly-read", 1,
            stats.partlyRead + ": every figure covers only the events before it, and what the "
                               "profiler wrote after "
                               "it is missing (device activity is often written last)");
    add("skipped-events", static_cast<int64_t>(stats.skippedTotal()),
        format::count(stats.skippedTotal()) + " events could not be used (see `kinetoscope info`)");
    // The profiler's own span should cover the events: far longer, it is not the window;
    // events outside it were recorded outside the profiled window.
    auto profilerSpanName =
        perName<bool>(model, [](std::string_view n) { return n.starts_with("PyTorch Profiler"); });
    auto isSpan = [&](const Event& e) {
        return e.category == Category::ProfilerSpan || profilerSpanName(e.name);
    };
    int64_t hostBegin = std::numeric_limits<int64_t>::max(),
            hostEnd = std::numeric_limits<int64_t>::min();
    const Event* span = nullptr;
    for (const Event& e : model.events()) {
        if (isSpan(e)) {
            if (!span || e.durationNs > span->durationNs)
                span = &e;
        } else if (e.category != Category::Instant) {
            hostBegin = std::min(hostBegin, e.startNs);
            hostEnd = std::max(hostEnd, e.endNs());
        }
    }
    if (!span || hostEnd <= hostBegin)
        return;
    if (span->durationNs / 10 > hostEnd - hostBegin &&
        span->durationNs - (hostEnd - hostBegin) > 1'000'000'000)
        add("profiler-span", 1,
            "the profiler's own span lasts " + format::duration(span->durationNs) +
                " but the recorded events only " + format::duration(hostEnd - hostBegin) +
                ": the span is not used as the window");
    int64_t outside = 0;
    for (const Event& e : model.events())
        outside += !isSpan(e) && e.category != Category::Instant &&
                   (e.startNs + kOutsideToleranceNs < span->startNs ||
                    e.endNs() > span->endNs() + kOutsideToleranceNs);
    add("events-outside-window", outside,
        format::count(outside) +
            " events lie outside the profiler's window (started before it or ended after "
            "it): they were recorded by other means, or the clocks disagree");
}

}  // namespace

const char* runKindName(RunKind kind)
{
    switch (kind) {
    case RunKind::Training:
        return "training";
    case RunKind::Inference:
        return "inference";
    case RunKind::Unknown:
        break;
    }
    return "unknown";
}

const char* stepRoleName(StepRole role)
{
    switch (role) {
    case StepRole::Steady:
        return "steady";
    case StepRole::WarmUp:
        return "warm-up";
    case StepRole::Outlier:
        return "outlier";
    case StepRole::ExtraPass:
        return "extra-pass";
    }
    return "steady";
}

bool WindowClass::partlyRead() const
{
    return std::any_of(quality.begin(), quality.end(),
                       [](const QualityIssue& q) { return q.code == "partly-read"; });
}

size_t WindowClass::steadyCount() const
{
    return static_cast<size_t>(std::count(roles.begin(), roles.end(), StepRole::Steady));
}

std::string WindowClass::headline() const
{
    std::string text = runKindName(kind);
    if (kind == RunKind::Unknown)
        text = "kind of run unknown";
    if (partlyRead())
        text = "partly read (the file stops early), " + text;
    if (cpuOnly)
        text += ", CPU only";
    else if (partlyRead() && deviceActivities == 0)
        text += ", no device activity before the cut";  // it may lie beyond
    const size_t steady = steadyCount();
    const std::string markers =
        stepMarker == "ProfilerStep#" ? "ProfilerStep markers" : "'" + stepMarker + "' markers";
    const std::string source =
        stepSource == StepSource::Markers           ? markers
        : stepSource == StepSource::DataLoaderCalls ? "found from DataLoader calls"
        : stepSource == StepSource::OptimizerSteps  ? "found from Optimizer.step"
        : stepSource == StepSource::RepeatedCalls   ? "found from the repeating calls: " + foundBy
                                                    : "";
    if (stepSource == StepSource::Window)
        text += ", one window of " + format::duration(windowNs) + " (no iterations found)";
    else if (steady == 0)
        text += ", " + format::counted(uint64_t(allSteps.size()), "step", "steps") + " (" + source +
                "), " + (allSteps.size() == 1 ? "not steady" : "none steady") +
                ": judged as recorded";
    else
        text += ", " + format::count(steady) + " steady step" + (steady == 1 ? "" : "s") + " (" +
                source + ")";
    const size_t extra = extraPasses.size();
    if (const size_t other = allSteps.size() - steady - extra; other > 0 && steady > 0)
        text += ", " + format::count(other) + " warm-up or outlier step" + (other == 1 ? "" : "s") +
                " left out";
    if (extra > 0 && steady > 0)
        text += ", " + format::counted(uint64_t(extra), "step", "steps") +
                " with an extra pass over other batches (an evaluation) left out";
    for (const OneOffCost& o : oneOffs) {
        if (o.beforeWindow) {
            text += ", starts inside earlier work (" + o.what + ", " +
                    format::duration(o.lengthNs()) + ")";
            break;
        }
    }
    for (const OneOffCost& o : oneOffs) {
        if (!o.beforeWindow) {
            text += ", one-off costs " + format::duration(oneOffNs) + " (" + o.what + ")";
            break;
        }
    }
    if (captureWindow)
        text += ", CUDA/HIP graph capture (nothing runs on the device by design)";
    else if (graphReplay)
        text += ", CUDA/HIP graph replay";
    if (deviceActivityMissing && !partlyRead())
        text += ", no device activity recorded";
    if (countersOnly)
        text += ", counter ranges only (CUPTI range profiler)";
    if (nearlyEmpty)
        text += ", nearly empty";
    if (sparse)
        text +=
            ", few events (" +
            format::counted(uint64_t(deviceActivities), "device activity", "device activities") +
            ")";
    if (sampled)
        text += ", sampled (most host events dropped)";
    return text;
}

WindowClass classifyWindow(const TraceModel& model, const StepDetection& steps)
{
    WindowClass w;
    w.stepSource = steps.source;
    w.foundBy = steps.foundBy;
    w.allSteps = steps.steps;
    if (!w.allSteps.empty())
        w.windowNs = w.allSteps.back().endNs - w.allSteps.front().beginNs;

    bool trainingOp = false, anyOp = false, trainingKernel = false, collectiveOp = false;
    int64_t hostOps = 0;
    std::string evidence;
    auto trainingOpName = perName<bool>(model, isTrainingOp);
    auto trainingKernelName = perName<bool>(model, isTrainingKernel);
    auto collectiveName = perName<bool>(
        model, [](std::string_view n) { return n.starts_with("nccl:") || n.starts_with("rccl:"); });
    for (const Event& e : model.events()) {
        if (e.category == Category::CpuOp || e.category == Category::UserAnnotation) {
            anyOp |= e.category == Category::CpuOp;
            hostOps += e.category == Category::CpuOp;
            collectiveOp |= collectiveName(e.name);
            if (!trainingOp && trainingOpName(e.name)) {
                const std::string_view name = model.text(e.name);
                trainingOp = true;
                evidence =
                    "backward or optimizer ops (" + std::string(trace::utf8Prefix(name, 60)) + ")";
            }
        } else if (e.category == Category::Kernel && !trainingKernel &&
                   trainingKernelName(e.name)) {
            const std::string_view name = model.text(e.name);
            trainingKernel = true;
            if (evidence.empty())
                evidence = "backward kernels (" + std::string(trace::utf8Prefix(name, 60)) + ")";
        }
    }
    w.hostOpsRecorded = hostOps > 0;
    w.kind = trainingOp || trainingKernel ? RunKind::Training
             : anyOp                      ? RunKind::Inference
                                          : RunKind::Unknown;
    w.kindEvidence = w.kind == RunKind::Inference ? "no backward or optimizer op" : evidence;
    if (w.kind == RunKind::Unknown)
        w.kindEvidence = "no CPU ops recorded";

    countActivity(model, w);
    findOneOffs(model, w);
    assignRoles(model, w);
    w.captureWindow = w.graphCaptureCalls > 0 &&
                      w.launchesWithoutActivity * 2 >= w.kernelLaunchCalls &&
                      w.kernelLaunchCalls > 0;
    // Launches without any activity, or NCCL collectives (a GPU job) without any device
    // work: the device side was not recorded.
    w.deviceActivityMissing = !w.captureWindow && w.deviceActivities == 0 &&
                              (w.kernelLaunchCalls + w.graphLaunches > 0 || collectiveOp);
    const auto& categories = model.stats().byRawCategory;
    const auto ranges = categories.find("cuda_profiler_range");
    w.countersOnly = w.deviceActivities == 0 && ranges != categories.end() && ranges->second > 0;
    w.cpuOnly = !w.countersOnly && !w.deviceActivityMissing && w.deviceActivities == 0 &&
                w.kernelLaunchCalls + w.graphLaunches == 0;
    w.nearlyEmpty = w.windowNs < kNearlyEmptyWindowNs;
    w.sparse = !w.nearlyEmpty && w.deviceActivities > 0 && w.deviceActivities < kFewActivities &&
               hostOps < kFewHostOps;
    w.warmUpDominated = w.windowNs > 0 && 2 * w.oneOffNs >= w.windowNs;
    findQualityIssues(model, w);
    // A file cut short holds only what came before the cut. A claim that rests on something
    // being absent (no backward or optimizer op: inference; no device activity: CPU only)
    // could be contradicted by the part not read, so it is
    // not made: the headline says what was seen before the cut instead.
    if (w.partlyRead()) {
        if (w.kind != RunKind::Training) {
            w.kind = RunKind::Unknown;
            w.kindEvidence = anyOp ? "no backward or optimizer op before the cut; the part not "
                                     "read may hold them"
                                   : "no CPU ops before the cut";
        }
        w.cpuOnly = false;
    }
    return w;
}

StepDetection steadyState(const TraceModel& model, const StepDetection& steps,
                          const WindowClass& window)
{
    StepDetection steady = steps;
    if (window.steadyCount() > 0 && window.steadyCount() < steps.steps.size()) {
        steady.steps.clear();
        for (size_t i = 0; i < steps.steps.size(); ++i)
            if (window.roles[i] == StepRole::Steady)
                steady.steps.push_back(steps.steps[i]);
        return steady;
    }
    if (steady.steps.size() != 1 || window.oneOffs.empty())
        return steady;
    // One window with one-off costs: judge what runs after the last of them, if device
    // work runs there.
    Step& only = steady.steps.front();
    int64_t after = only.beginNs;
    for (const OneOffCost& o : window.oneOffs)
        if (o.endNs < only.endNs)
            after = std::max(after, o.endNs);
    int64_t deviceAfter = 0;
    for (const Event& e : model.events())
        if ((e.category == Category::Kernel || e.category == Category::Memcpy) &&
            e.startNs >= after)
            ++deviceAfter;
    if (after > only.beginNs && deviceAfter > 0) {
        only.beginNs = after;
        only.hostBeginNs = std::max(only.hostBeginNs, after);
    }
    return steady;
}

}  // namespace kinetoscope::analysis
