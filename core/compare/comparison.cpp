#include "core/compare/comparison.h"

#include "core/analysis/kernel_table.h"
#include "core/analysis/op_table.h"
#include "core/format/format.h"
#include "core/parallel/thread_count.h"
#include "core/trace/printable.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <thread>
#include <unordered_set>

namespace kinetoscope::compare {

using analysis::TimeCategory;

const char* statusName(Delta::Status status)
{
    switch (status) {
    case Delta::Status::Changed:
        return "changed";
    case Delta::Status::New:
        return "new";
    case Delta::Status::Gone:
        return "gone";
    case Delta::Status::Same:
        break;
    }
    return "same";
}

const char* causeKindKey(Cause::Kind kind)
{
    switch (kind) {
    case Cause::Kind::DataLoader:
        return "dataloader";
    case Cause::Kind::Kernel:
        return "kernel";
    case Cause::Kind::Copy:
        return "copy";
    case Cause::Kind::Sync:
        return "sync";
    case Cause::Kind::Launches:
        return "launches";
    case Cause::Kind::Op:
        return "op";
    case Cause::Kind::Communication:
        break;
    }
    return "communication";
}

const char* findingStatusName(FindingChange::Status status)
{
    switch (status) {
    case FindingChange::Status::Resolved:
        return "resolved";
    case FindingChange::Status::New:
        return "new";
    case FindingChange::Status::Persisting:
        break;
    }
    return "persisting";
}

namespace {

// One side, read once: its steady steps and the tables restricted to them.
struct SideData
{
    const document::Document* doc = nullptr;
    Side side;
    size_t steadySteps = 1;  // the divisor of every per-step figure (at least 1)
    std::vector<analysis::KernelStats> kernels;
    std::vector<analysis::MemcpyStats> copies;
    analysis::OpTables ops;
    analysis::RangeSet steady;  // the steady steps
    // The runtime calls that launched the kernels of the steady steps, each counted once
    // (a cudaGraphLaunch starts hundreds of kernels): how many, and their time.
    double launchCalls = 0.0, launchCallNs = 0.0;
};

double meanOf(const std::vector<int64_t>& values)
{
    return values.empty() ? 0.0
                          : double(std::accumulate(values.begin(), values.end(), int64_t{0})) /
                                double(values.size());
}

SideData readSide(const document::Document& doc, const char* label)
{
    SideData data;
    data.doc = &doc;
    Side& side = data.side;
    side.path = doc.path;
    side.label = label;
    const analysis::TraceSummary& summary = doc.summary;
    if (doc.model)
        side.hardware = hardwareOf(*doc.model, summary.window.cpuOnly);
    if (doc.session && side.hardware.vendor.empty() && side.hardware.devices.empty())
        side.hardware = hardwareOf(*doc.session);
    if (!doc.model) {  // a lab session recorded without a trace: its lab figures only
        side.runKind = doc.session && doc.session->inference() ? "inference" : "training";
        side.window = "a lab session recorded without a trace";
        side.steps = stepSample({});
        return data;
    }
    side.runKind = analysis::runKindName(summary.window.kind);
    side.window = summary.window.headline();
    for (analysis::StepRole role : summary.window.roles) {
        side.warmUpSteps += role == analysis::StepRole::WarmUp;
        side.outlierSteps +=
            role == analysis::StepRole::Outlier || role == analysis::StepRole::ExtraPass;
    }
    std::vector<double> durations;
    std::vector<analysis::TimeRange> ranges;
    for (const analysis::Step& step : summary.steps.steps) {
        durations.push_back(double(step.durationNs()));
        ranges.push_back({step.beginNs, step.endNs});
    }
    side.steps = stepSample(std::move(durations));
    data.steadySteps = std::max<size_t>(1, summary.steps.steps.size());
    data.steady = analysis::unionOf(std::move(ranges));
    const analysis::RangeSet& steady = data.steady;
    data.kernels = analysis::computeKernelTable(*doc.model, &steady);
    data.copies = analysis::computeMemcpyTable(*doc.model, &steady);
    data.ops = analysis::computeOpTables(*doc.model, &steady);
    std::unordered_set<uint32_t> calls;
    for (const trace::Event& e : doc.model->events())
        if (e.category == trace::Category::Kernel && e.correlated.valid() &&
            analysis::contains(steady, e.startNs) && calls.insert(e.correlated.value).second) {
            data.launchCalls += 1.0;
            data.launchCallNs += double(doc.model->event(e.correlated).durationNs);
        }
    return data;
}

// Rows present on either side, keyed by name (and detail), per step.
struct RowValues
{
    double ns = 0.0, calls = 0.0;
};
using RowKey = std::pair<std::string, std::string>;

std::vector<Delta> diffRows(const std::map<RowKey, RowValues>& before,
                            const std::map<RowKey, RowValues>& after, double thresholdNs)
{
    std::map<RowKey, Delta> rows;
    for (const auto& [key, v] : before) {
        Delta& d = rows[key];
        d.beforeNs = v.ns;
        d.beforeCalls = v.calls;
    }
    for (const auto& [key, v] : after) {
        Delta& d = rows[key];
        d.afterNs = v.ns;
        d.afterCalls = v.calls;
    }
    std::vector<Delta> out;
    out.reserve(rows.size());
    for (auto& [key, d] : rows) {
        d.name = key.first;
        d.detail = key.second;
        const double callChange = std::fabs(d.afterCalls - d.beforeCalls);
        if (d.beforeCalls == 0 && d.afterCalls > 0)
            d.status = Delta::Status::New;
        else if (d.afterCalls == 0 && d.beforeCalls > 0)
            d.status = Delta::Status::Gone;
        else if (std::fabs(d.deltaNs()) >= thresholdNs ||
                 callChange >= std::max(1.0, 0.05 * d.beforeCalls))
            d.status = Delta::Status::Changed;
        out.push_back(std::move(d));
    }
    std::stable_sort(out.begin(), out.end(), [](const Delta& a, const Delta& b) {
        const bool movedA = a.status != Delta::Status::Same,
                   movedB = b.status != Delta::Status::Same;
        if (movedA != movedB)
            return movedA;
        const double ka = movedA ? std::fabs(a.deltaNs()) : a.beforeNs;
        const double kb = movedB ? std::fabs(b.deltaNs()) : b.beforeNs;
        return ka > kb;
    });
    return out;
}

std::map<RowKey, RowValues> kernelRows(const SideData& s)
{
    std::map<RowKey, RowValues> rows;
    const double n = double(s.steadySteps);
    for (const analysis::KernelStats& k : s.kernels)
        rows[{k.name, ""}] = {double(k.totalNs) / n, double(k.calls) / n};
    return rows;
}

std::map<RowKey, RowValues> copyRows(const SideData& s)
{
    std::map<RowKey, RowValues> rows;
    const double n = double(s.steadySteps);
    for (const analysis::MemcpyStats& c : s.copies)
        rows[{c.kind, ""}] = {double(c.totalNs) / n, double(c.calls) / n};
    return rows;
}

// Ops by name and input shapes when both sides recorded shapes, else by name; valued by
// their host (self CPU) time: their kernels are in the kernel table.
// The step markers themselves (ProfilerStep#N) are the steps, not ops.
std::map<RowKey, RowValues> opRows(const SideData& s, bool byShapes)
{
    std::map<RowKey, RowValues> rows;
    const double n = double(s.steadySteps);
    const std::string& marker = s.doc->summary.steps.marker;
    for (const analysis::OpStats& op : byShapes ? s.ops.byNameAndShapes : s.ops.byName)
        if (marker.empty() || !op.name.starts_with(marker))
            rows[{op.name, op.inputShapes}] = {double(op.selfCpuNs) / n, double(op.calls) / n};
    return rows;
}

std::vector<Delta> breakdownRows(const SideData& a, const SideData& b)
{
    std::vector<Delta> rows;
    for (size_t c = 0; c < analysis::kTimeCategoryCount; ++c) {
        Delta d;
        d.name = std::string(analysis::timeCategoryKey(TimeCategory(c)));
        d.beforeNs = a.doc->summary.breakdown.all.averageNs[c];
        d.afterNs = b.doc->summary.breakdown.all.averageNs[c];
        rows.push_back(d);
    }
    return rows;
}

std::vector<MemoryDelta> memoryRows(const SideData& a, const SideData& b)
{
    std::map<std::string, MemoryDelta> rows;
    for (const auto& [device, m] : a.doc->summary.memory) {
        MemoryDelta& d = rows[device];
        d.beforePeakAllocated = m.peakAllocatedBytes;
        d.beforePeakReserved = m.peakReservedBytes.value_or(-1);
    }
    for (const auto& [device, m] : b.doc->summary.memory) {
        MemoryDelta& d = rows[device];
        d.afterPeakAllocated = m.peakAllocatedBytes;
        d.afterPeakReserved = m.peakReservedBytes.value_or(-1);
    }
    std::vector<MemoryDelta> out;
    for (auto& [device, d] : rows) {
        d.device = device;
        out.push_back(d);
    }
    return out;
}

// The per-step findings; those about the window (warm-up, capture, missing activity)
// describe the trace, not the run's performance, and show in each side's window line.
std::vector<FindingChange> findingRows(const SideData& a, const SideData& b)
{
    std::map<std::string, FindingChange> rows;
    for (const analysis::Finding& f : a.doc->findings) {
        if (f.aboutWindow)
            continue;
        FindingChange& c = rows[f.id];
        c.id = f.id;
        c.title = f.title;
        c.beforeGainNs = f.estimatedGainNs;
        c.status = FindingChange::Status::Resolved;
    }
    for (const analysis::Finding& f : b.doc->findings) {
        if (f.aboutWindow)
            continue;
        FindingChange& c = rows[f.id];
        c.status = c.id.empty() ? FindingChange::Status::New : FindingChange::Status::Persisting;
        c.id = f.id;
        c.title = f.title;
        c.afterGainNs = f.estimatedGainNs;
    }
    std::vector<FindingChange> out;
    out.reserve(rows.size());
    for (auto& [id, c] : rows)
        out.push_back(std::move(c));
    std::stable_sort(out.begin(), out.end(), [](const FindingChange& x, const FindingChange& y) {
        if (x.status != y.status)
            return x.status < y.status;
        return std::max(x.beforeGainNs, x.afterGainNs) > std::max(y.beforeGainNs, y.afterGainNs);
    });
    return out;
}

// A kernel's or op's name as a sentence can carry it: no return type, template arguments
// or parameter list ("void ck::kernel_moe_gemm<ck::Gridwise...>(...)" reads
// "ck::kernel_moe_gemm<…>").
std::string shortName(std::string_view name)
{
    if (name.starts_with("void "))
        name.remove_prefix(5);
    const size_t cut = name.find_first_of("<(");
    std::string text(name.substr(0, cut));
    if (cut != std::string_view::npos && name[cut] == '<')
        text += "<…>";
    constexpr size_t kLongest = 80;
    return text.size() > kLongest ? std::string(trace::utf8Prefix(text, kLongest)) + "…" : text;
}

// What moved, each in a reader's words, by |delta|: the DataLoader wait, host
// synchronisation, kernel launches, and every kernel, copy kind and op that changed.
std::vector<Cause> rankCauses(const SideData& a, const SideData& b, const Comparison& c)
{
    std::vector<Cause> causes;
    const auto& sa = a.doc->summary;
    const auto& sb = b.doc->summary;
    Cause loader{Cause::Kind::DataLoader,
                 "",
                 "DataLoader wait",
                 sa.breakdown.all.average(TimeCategory::DataLoader),
                 sb.breakdown.all.average(TimeCategory::DataLoader),
                 std::nullopt,
                 std::nullopt};
    causes.push_back(loader);
    causes.push_back({Cause::Kind::Sync, "", "host blocked in synchronising calls",
                      meanOf(sa.sync.syncCallNsPerStep), meanOf(sb.sync.syncCallNsPerStep),
                      meanOf(sa.sync.syncCallsPerStep), meanOf(sb.sync.syncCallsPerStep)});
    const double na = double(a.steadySteps), nb = double(b.steadySteps);
    causes.push_back({Cause::Kind::Launches, "", "kernel launch calls", a.launchCallNs / na,
                      b.launchCallNs / nb, a.launchCalls / na, b.launchCalls / nb});
    for (const Delta& k : c.kernels) {
        if (k.status == Delta::Status::Same)
            continue;
        const bool communication = analysis::isCommunicationKernel(k.name);
        causes.push_back(
            {communication ? Cause::Kind::Communication : Cause::Kind::Kernel, k.name,
             std::string(communication ? "communication kernel " : "kernel ") + shortName(k.name),
             k.beforeNs, k.afterNs, k.beforeCalls, k.afterCalls});
    }
    for (const Delta& copy : c.copies)
        if (copy.status != Delta::Status::Same)
            causes.push_back({Cause::Kind::Copy, copy.name, copy.name, copy.beforeNs, copy.afterNs,
                              copy.beforeCalls, copy.afterCalls});
    // Ops by name (their shapes are in the table), host time; the DataLoader's own
    // spans are the DataLoader wait above.
    std::map<RowKey, RowValues> opsA = opRows(a, false), opsB = opRows(b, false);
    for (const Delta& op : diffRows(opsA, opsB, 0.0)) {
        if (op.status == Delta::Status::Same || analysis::isDataLoaderOp(op.name))
            continue;
        causes.push_back({Cause::Kind::Op, op.name, "host time in " + shortName(op.name),
                          op.beforeNs, op.afterNs, op.beforeCalls, op.afterCalls});
    }
    std::stable_sort(causes.begin(), causes.end(), [](const Cause& x, const Cause& y) {
        return std::fabs(x.deltaNs()) > std::fabs(y.deltaNs());
    });
    // Keep what moved by at least the unchanged threshold; at most 20.
    const double threshold = kUnchangedShareOfStep * a.side.steps.meanNs;
    std::erase_if(causes, [&](const Cause& x) {
        return std::fabs(x.deltaNs()) < threshold || x.deltaNs() == 0;
    });
    if (causes.size() > 20)
        causes.resize(20);
    return causes;
}

std::string changeText(const StepChange& change)
{
    std::string text =
        format::durationChange(change.deltaNs) + ", " + format::percentChange(change.relative);
    if (change.lowNs && change.highNs)
        text += "; 95 % interval " + format::durationChange(*change.lowNs) + " to " +
                format::durationChange(*change.highNs);
    return text;
}

std::string capitalised(std::string text)
{
    if (!text.empty() && text[0] >= 'a' && text[0] <= 'z')
        text[0] = char(text[0] - 'a' + 'A');
    return text;
}

// The configuration's changes, "batch_size 32 → 64, workers 0 → 2".
std::string configChanges(const LabComparison& lab)
{
    std::string text;
    for (const LabComparison::ConfigChange& change : lab.config)
        text += (text.empty() ? "" : ", ") + change.key + " " +
                (change.before.empty() ? "(unset)" : change.before) + " → " +
                (change.after.empty() ? "(unset)" : change.after);
    return text;
}

// The batch changed: the verdict is on time per sample, said first with where the change
// was read (the sessions' configuration, with all it changed, or the ops' input shapes),
// then the step, then, for two profiled sessions, the fp32 arm's throughput.
std::string perSampleVerdict(const Comparison& c, const std::string& traceStepPart)
{
    const BatchChange& batch = *c.batch;
    std::string line =
        batch.configured && c.lab
            ? "The configuration changed " + configChanges(*c.lab) + ": the batch size changed, "
            : "The batch changed " + format::count(batch.before) + " → " +
                  format::count(batch.after) + " (read from " + batch.source() + "): ";
    line += "the verdict is on time per sample. " + capitalised(verdictName(c.perSample->verdict)) +
            " per sample";
    if (c.perSampleOfLab)
        line += " (the lab's measured steps, " + format::count(c.perSampleBefore->valuesNs.size()) +
                " and " + format::count(c.perSampleAfter->valuesNs.size()) + ")";
    line += ": " + format::duration(c.perSampleBefore->meanNs) + " → " +
            format::duration(c.perSampleAfter->meanNs) + " per sample (" +
            changeText(*c.perSample) + "); ";
    if (c.perSampleOfLab) {
        const LabComparison& lab = *c.lab;
        line += "per step " + format::duration(lab.stepsBefore->meanNs) + " → " +
                format::duration(lab.stepsAfter->meanNs) + " (" +
                format::percentChange(lab.steps->relative) + ")";
    } else {
        line += traceStepPart;
    }
    // Without a trace the change line gives every arm's samples/s; with one, the fp32 arm's
    // here.
    if (c.traced && c.lab)
        for (const LabComparison::Figure& f : c.lab->armSamplesPerSecond)
            if (f.name == "fp32" && f.before && f.after)
                line += "; the fp32 arm " + format::rate(*f.before, "samples") + " → " +
                        format::rate(*f.after, "samples");
    return line + ".";
}

std::string verdictLine(const Comparison& c)
{
    // What must match before a step time compares: said before the verdict, never after.
    std::string line;
    std::vector<std::string> differences;
    if (!c.sameHardware)
        differences.push_back("different hardware (" + c.before.hardware.text() + " → " +
                              c.after.hardware.text() + ")");
    if (!c.sameWorkload)
        differences.push_back("different models (" + c.modelBefore + " → " + c.modelAfter + ")");
    if (!c.shapeDifference.empty())
        differences.push_back(c.shapeDifference);
    if (!differences.empty()) {
        line = differences.front();
        for (size_t i = 1; i < differences.size(); ++i)
            line += " and " + differences[i];
        const bool machinesOnly = c.sameWorkload && c.shapeDifference.empty();
        line = capitalised(line) + ": a comparison of " +
               (machinesOnly ? "machines, not of a change to the code. "
                             : "two runs, not of one change. ");
    }
    // Little op time in common hints at two programs, but a compiled or fused run shares
    // little with its eager self too: a caution, after the verdict, never a verdict.
    std::string caution;
    if (c.compiled && c.compiled->beforeCompiled != c.compiled->afterCompiled)
        caution = " This compares an eager and a compiled run (torch.compile)" +
                  (c.sharedOpTime && *c.sharedOpTime < kSameWorkloadShare
                       ? ", which share little op time (" + format::percent(*c.sharedOpTime) +
                             ") as such runs do"
                       : std::string()) +
                  ": the change is split by cause (fusion, GEMMs, launches, other).";
    else if (c.sameWorkload && c.sharedOpTime && *c.sharedOpTime < kSameWorkloadShare)
        caution = " The two share only " + format::percent(*c.sharedOpTime) +
                  " of their op time: check that both run the same model (a compiled or fused run "
                  "also shares little "
                  "with an eager one).";
    const StepChange& step = c.step;
    const std::string stepPart = format::duration(c.before.steps.meanNs) + " → " +
                                 format::duration(c.after.steps.meanNs) + " per step (" +
                                 changeText(step) + ")";
    if (c.labSteps()) {
        const LabComparison& lab = *c.lab;
        line += capitalised(verdictName(lab.steps->verdict)) + " (the lab's measured steps, " +
                format::count(lab.stepsBefore->valuesNs.size()) + " and " +
                format::count(lab.stepsAfter->valuesNs.size()) +
                "): " + format::duration(lab.stepsBefore->meanNs) + " → " +
                format::duration(lab.stepsAfter->meanNs) + " per step (" + changeText(*lab.steps) +
                ")" + (c.traced ? "; the profiled window: " + stepPart : std::string()) + "." +
                caution;
        return line;
    }
    if (c.perSample && c.batch && c.perSampleBefore && c.perSampleAfter)
        return line + perSampleVerdict(c, stepPart) + caution;
    return line + capitalised(verdictName(step.verdict)) + ": " + stepPart + "." + caution;
}

std::string causeText(const Cause& cause)
{
    std::string text = cause.label + " " + format::durationChange(cause.deltaNs()) + " per step";
    if (cause.beforeNs > 0 && cause.afterNs > 0)
        text += " (" + format::percentChange(cause.deltaNs() / cause.beforeNs) + ")";
    else
        text += cause.beforeNs > 0 ? " (gone)" : " (new)";
    if (cause.beforeCount && cause.afterCount &&
        std::fabs(*cause.afterCount - *cause.beforeCount) >= 1.0)
        text += ", calls " + format::count(*cause.beforeCount) + " → " +
                format::count(*cause.afterCount) + " per step";
    return text;
}

std::string kernelTotalText(const Comparison& c)
{
    const double delta = c.kernelAfterNs - c.kernelBeforeNs;
    return "kernels " + format::durationChange(delta) + " per step" +
           (c.kernelBeforeNs > 0 ? " (" + format::percentChange(delta / c.kernelBeforeNs) + ")"
                                 : std::string());
}

// The breakdown's "CPU exec" or "other" row when it moved more than `thanNs`: host time
// that no cause (DataLoader, sync, launches, a kernel, copy or op) accounts for, such as
// Python the profiler did not record.
const Delta* unattributedMove(const Comparison& c, double thanNs)
{
    const Delta* largest = nullptr;
    for (TimeCategory category : {TimeCategory::CpuExec, TimeCategory::Other}) {
        const Delta& d = c.breakdown[size_t(category)];
        if (d.status != Delta::Status::Same && std::fabs(d.deltaNs()) > thanNs &&
            (!largest || std::fabs(d.deltaNs()) > std::fabs(largest->deltaNs())))
            largest = &d;
    }
    return largest;
}

std::string unattributedText(const Delta& d)
{
    return "in the breakdown, " +
           std::string(d.name == "other" ? "untraced host time (\"other\")" : "CPU exec") + " " +
           format::durationChange(d.deltaNs()) + " per step";
}

std::string changeLine(const Comparison& c)
{
    // Across hardware the kernels are what differ first; the causes after them.
    if (!c.sameHardware)
        return capitalised(kernelTotalText(c)) +
               (c.causes.empty() ? std::string(".")
                                 : "; the largest single change: " + causeText(c.causes[0]) + ".");
    if (c.causes.empty()) {
        if (const Delta* host = unattributedMove(c, 0.0))
            return "No cause moved by 0.5 % of the step or more; " + unattributedText(*host) + ".";
        return "Nothing moved by 0.5 % of the step or more: the DataLoader wait, synchronisation, "
               "launches, every "
               "kernel, copy and op are as they were.";
    }
    std::string line = capitalised(causeText(c.causes[0]));
    if (c.causes.size() > 1 &&
        std::fabs(c.causes[1].deltaNs()) >= 0.5 * std::fabs(c.causes[0].deltaNs()))
        line += "; " + causeText(c.causes[1]);
    const bool kernelNamed =
        c.causes[0].kind == Cause::Kind::Kernel ||
        (c.causes.size() > 1 && c.causes[1].kind == Cause::Kind::Kernel &&
         std::fabs(c.causes[1].deltaNs()) >= 0.5 * std::fabs(c.causes[0].deltaNs()));
    if (!kernelNamed) {
        const double kernelDelta = c.kernelAfterNs - c.kernelBeforeNs;
        const bool unchanged =
            std::fabs(kernelDelta) <=
            std::max(0.02 * c.kernelBeforeNs, kUnchangedShareOfStep * c.before.steps.meanNs);
        line += unchanged ? "; kernels unchanged" : "; " + kernelTotalText(c);
    }
    if (const Delta* host = unattributedMove(c, std::fabs(c.causes[0].deltaNs())))
        line += "; " + unattributedText(*host);
    return line + ".";
}

// Each op's share of its side's self time, the smaller of the two sides', summed over the
// ops both ran; nullopt where a side has no op time.
std::optional<double> sharedOpTime(const std::vector<analysis::OpStats>& a,
                                   const std::vector<analysis::OpStats>& b)
{
    auto shares = [](const std::vector<analysis::OpStats>& ops) {
        std::map<std::string, double> byName;
        double total = 0;
        for (const analysis::OpStats& op : ops) {
            byName[op.name] += double(op.selfCpuNs);
            total += double(op.selfCpuNs);
        }
        for (auto& [name, ns] : byName)
            ns = total > 0 ? ns / total : 0.0;
        return total > 0 ? std::optional(byName) : std::nullopt;
    };
    const auto sa = shares(a), sb = shares(b);
    if (!sa || !sb)
        return std::nullopt;
    double shared = 0;
    for (const auto& [name, share] : *sa)
        if (const auto other = sb->find(name); other != sb->end())
            shared += std::min(share, other->second);
    return shared;
}

// Two sessions without traces: what their arms and the split did.
std::string labChangeLine(const LabComparison& lab)
{
    std::vector<std::string> parts;
    for (const LabComparison::Figure& f : lab.armSamplesPerSecond)
        if (f.before && f.after && *f.before > 0)
            parts.push_back(f.name + " arm " + format::rate(*f.before, "samples") + " → " +
                            format::rate(*f.after, "samples") + " (" +
                            format::percentChange(*f.after / *f.before - 1) + ")");
    for (const LabComparison::Figure& f : lab.splitMs)
        if (f.before && f.after)
            parts.push_back(f.name + " " + format::duration(*f.before * 1e6) + " → " +
                            format::duration(*f.after * 1e6) + " per step");
    if (parts.empty())
        return "Neither side recorded a trace: the lab's measured steps are all there is to "
               "compare.";
    std::string line = "Neither side recorded a trace; ";
    for (size_t i = 0; i < parts.size(); ++i)
        line += (i ? "; " : "") + parts[i];
    return line + ".";
}

double kernelNsPerStep(const SideData& s)
{
    double total = 0.0;
    for (const analysis::KernelStats& k : s.kernels)
        total += double(k.totalNs);
    return total / double(s.steadySteps);
}

}  // namespace

namespace {

// Comparison::shapeDifference.
std::string shapeDifference(const document::Document& before, const document::Document& after)
{
    // A sampled trace dropped other calls in each step: its shapes say nothing of its work.
    if (!before.model || !after.model || before.summary.window.sampled ||
        after.summary.window.sampled)
        return {};
    // The host's own spans: a step's device extension lags its host ops into the next step.
    auto stepsOf = [](const document::Document& doc) {
        std::vector<std::pair<int64_t, int64_t>> steps;
        steps.reserve(doc.summary.steps.steps.size());
        for (const analysis::Step& step : doc.summary.steps.steps)
            steps.emplace_back(step.hostBeginNs, step.hostEndNs);
        std::sort(steps.begin(), steps.end());
        return steps;
    };
    const StepShapes sb = stepShapes(*before.model, stepsOf(before));
    const StepShapes sa = stepShapes(*after.model, stepsOf(after));
    if (sb.varies() == sa.varies() || sb.steps < 2 || sa.steps < 2)
        return {};
    const StepShapes& varying = sb.varies() ? sb : sa;
    return "input shapes that change from step to step " +
           std::string(sb.varies() ? "before" : "after") + " (" + format::count(varying.opShapes) +
           " shapes of " + varying.op + " that not every one of its " +
           format::counted(varying.steps, "step") + " runs; the same every step " +
           (sb.varies() ? "after" : "before") + ")";
}

}  // namespace

Comparison compareDocuments(const document::Document& beforeDoc, const document::Document& afterDoc)
{
    SideData a, b;
    std::thread other([&] { b = readSide(afterDoc, "after"); });
    a = readSide(beforeDoc, "before");
    other.join();

    Comparison c;
    c.before = a.side;
    c.after = b.side;
    c.traced = beforeDoc.hasTrace() && afterDoc.hasTrace();
    c.step = estimateChange(c.before.steps, c.after.steps);
    c.shapeDifference = shapeDifference(beforeDoc, afterDoc);
    // Different only where both sides say what they ran on (a 2020 trace names no device).
    const Hardware& ha = c.before.hardware;
    const Hardware& hb = c.after.hardware;
    c.sameHardware = !((!ha.devices.empty() && !hb.devices.empty() && ha.devices != hb.devices) ||
                       (!ha.vendor.empty() && !hb.vendor.empty() && ha.vendor != hb.vendor));
    const bool sessions = beforeDoc.session && afterDoc.session;
    if (sessions)
        c.lab = compareSessions(*beforeDoc.session, *afterDoc.session);
    // Two sessions say their batch size; traces show it in their ops' input shapes.
    const bool shapesOnBothSides = !a.ops.byNameAndShapes.empty() && !b.ops.byNameAndShapes.empty();
    // A session written without batch_size in its configuration falls back to its trace's.
    if (sessions)
        c.batch = configuredBatchChange(*beforeDoc.session, *afterDoc.session);
    if (!c.batch && shapesOnBothSides)
        c.batch = detectBatchChange(a.ops.byNameAndShapes, b.ops.byNameAndShapes);
    if (c.batch) {
        auto perSample = [](const StepSample& s, int64_t batch) {
            std::vector<double> values = s.valuesNs;
            for (double& v : values)
                v /= double(batch);
            return stepSample(std::move(values));
        };
        // The lab's own measured steps where both sessions have them, as for the verdict
        // per step.
        c.perSampleOfLab = c.lab && c.lab->steps;
        c.perSampleBefore =
            perSample(c.perSampleOfLab ? *c.lab->stepsBefore : c.before.steps, c.batch->before);
        c.perSampleAfter =
            perSample(c.perSampleOfLab ? *c.lab->stepsAfter : c.after.steps, c.batch->after);
        // Without steps on both sides there is nothing to read per sample: no verdict.
        if (!c.perSampleBefore->valuesNs.empty() && !c.perSampleAfter->valuesNs.empty())
            c.perSample = estimateChange(*c.perSampleBefore, *c.perSampleAfter);
    }

    if (!c.traced) {  // two lab sessions without traces: their lab figures only
        c.findings = findingRows(a, b);
        c.verdictLine = verdictLine(c);
        c.changeLine = labChangeLine(*c.lab);
        return c;
    }
    const double threshold = kUnchangedShareOfStep * c.before.steps.meanNs;
    c.breakdown = breakdownRows(a, b);
    for (Delta& d : c.breakdown)
        d.status =
            std::fabs(d.deltaNs()) >= threshold ? Delta::Status::Changed : Delta::Status::Same;
    c.kernels = diffRows(kernelRows(a), kernelRows(b), threshold);
    c.copies = diffRows(copyRows(a), copyRows(b), threshold);
    c.efficiency = compareEfficiency(a.doc->summary.roofline, double(a.steadySteps),
                                     b.doc->summary.roofline, double(b.steadySteps));
    c.ops = diffRows(opRows(a, shapesOnBothSides), opRows(b, shapesOnBothSides), threshold);
    c.opsByShapes = shapesOnBothSides;
    c.memory = memoryRows(a, b);
    c.findings = findingRows(a, b);
    c.kernelBeforeNs = kernelNsPerStep(a);
    c.kernelAfterNs = kernelNsPerStep(b);
    c.causes = rankCauses(a, b, c);
    c.sharedOpTime = sharedOpTime(a.ops.byName, b.ops.byName);
    if (beforeDoc.session && afterDoc.session) {
        auto modelOf = [](const session::Session& s) {
            const auto model = s.config.find("model");
            return model == s.config.end() ? std::string() : model->second;
        };
        c.modelBefore = modelOf(*beforeDoc.session);
        c.modelAfter = modelOf(*afterDoc.session);
    }
    c.sameWorkload = c.modelBefore.empty() || c.modelAfter.empty() || c.modelBefore == c.modelAfter;
    if (c.sameWorkload) {
        const CompiledSideInput ia{&beforeDoc, &a.steady, &a.ops, double(a.steadySteps),
                                   c.before.steps.meanNs};
        const CompiledSideInput ib{&afterDoc, &b.steady, &b.ops, double(b.steadySteps),
                                   c.after.steps.meanNs};
        c.compiled = compareCompiled(ia, ib, threshold);
    }
    c.verdictLine = verdictLine(c);
    c.changeLine = changeLine(c);
    return c;
}

bool Comparison::slowerBeyond(double fraction) const
{
    const double beforeNs = perSample && perSampleBefore ? perSampleBefore->meanNs
                            : labSteps()                 ? lab->stepsBefore->meanNs
                                                         : before.steps.meanNs;
    return verdict().slowerBeyond(fraction, beforeNs);
}

CompareInput openBoth(const std::string& beforePath, const std::string& afterPath,
                      const document::OpenOptions& options, std::string& error, CompareInput opened)
{
    CompareInput input = std::move(opened);
    const unsigned budget = parallel::resolveThreads(options.threads);
    const bool both = !input.before && !input.after;
    document::OpenOptions each = options;
    each.threads = parallel::shareOf(budget, both ? 2 : 1);
    if (both && budget > 1) {
        std::thread other([&] { input.after = document::open(afterPath, each); });
        input.before = document::open(beforePath, each);
        other.join();
    } else {
        if (!input.before)
            input.before = document::open(beforePath, each);
        if (!input.after)
            input.after = document::open(afterPath, each);
    }
    if (const std::optional<std::string> why = whyNotComparable(*input.before, *input.after)) {
        error = *why;
        return {};
    }
    return input;
}

std::optional<std::string> whyNotComparable(const document::Document& before,
                                            const document::Document& after)
{
    for (const document::Document* doc : {&before, &after})
        if (!doc->ok())  // unreadable, or read only in part: never compared
            return doc->path + ": " + doc->loadMessage;
    // A session without a trace has only the lab's measured steps: another session's are
    // what it can be compared with.
    if ((!before.hasTrace() || !after.hasTrace()) && !(before.session && after.session))
        return (before.hasTrace() ? after : before).path +
               ": a lab session recorded without a trace compares only with another lab session "
               "(their measured "
               "steps); run it again with --profile to compare it with a trace";
    return std::nullopt;
}

}  // namespace kinetoscope::compare
