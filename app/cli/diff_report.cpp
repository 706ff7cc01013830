#include "app/cli/diff_report.h"

#include "core/format/format.h"

#include <sstream>

namespace kinetoscope::cli {

using namespace kinetoscope::compare;
using nlohmann::json;

namespace {

// Times in microseconds, as every JSON output of the CLI writes them.
double us(double ns)
{
    return ns / 1000.0;
}

json changeJson(const StepChange& change)
{
    json j = {{"verdict", verdictName(change.verdict)},
              {"delta_us", us(change.deltaNs)},
              {"relative", change.relative},
              {"method", change.method}};
    j["interval_us"] = change.lowNs && change.highNs
                           ? json::array({us(*change.lowNs), us(*change.highNs)})
                           : json();
    return j;
}

json sideJson(const Side& side)
{
    json values = json::array();
    for (double v : side.steps.valuesNs)
        values.push_back(us(v));
    return {{"path", side.path},
            {"hardware", side.hardware.text()},
            {"vendor", side.hardware.vendor},
            {"run_kind", side.runKind},
            {"window", side.window},
            {"steady_steps", side.steps.valuesNs.size()},
            {"warm_up_steps", side.warmUpSteps},
            {"outlier_steps", side.outlierSteps},
            {"step_mean_us", us(side.steps.meanNs)},
            {"step_median_us", us(side.steps.medianNs)},
            {"step_p95_us", us(side.steps.p95Ns)},
            {"step_us", values}};
}

json deltasJson(const std::vector<Delta>& rows, bool withDetail)
{
    json out = json::array();
    for (const Delta& d : rows) {
        json row = {{"name", d.name},
                    {"status", statusName(d.status)},
                    {"before_us", us(d.beforeNs)},
                    {"after_us", us(d.afterNs)},
                    {"delta_us", us(d.deltaNs())},
                    {"before_calls", d.beforeCalls},
                    {"after_calls", d.afterCalls}};
        if (withDetail)
            row["input_shapes"] = d.detail;
        out.push_back(std::move(row));
    }
    return out;
}

json readingJson(const std::optional<EfficiencyDelta::Reading>& r)
{
    if (!r)
        return nullptr;
    return {{"dtype", r->dtype},
            {"device_time_per_step_us", us(r->deviceNsPerStep)},
            {"achieved_tflops", r->achievedTflops},
            {"achieved_gbps", r->achievedGbps},
            {"share_of_roof", r->shareOfRoof ? json(*r->shareOfRoof) : json(nullptr)},
            {"bound", r->bound}};
}

json efficiencyJson(const std::vector<EfficiencyDelta>& rows)
{
    json out = json::array();
    for (const EfficiencyDelta& d : rows)
        out.push_back({{"name", d.name},
                       {"input_shapes", d.inputShapes},
                       {"before", readingJson(d.before)},
                       {"after", readingJson(d.after)}});
    return out;
}

json figuresJson(const std::vector<LabComparison::Figure>& figures)
{
    json out = json::array();
    for (const LabComparison::Figure& f : figures)
        out.push_back({{"name", f.name},
                       {"before", f.before ? json(*f.before) : json()},
                       {"after", f.after ? json(*f.after) : json()}});
    return out;
}

json labJson(const LabComparison& lab)
{
    json config = json::array();
    for (const auto& change : lab.config)
        config.push_back({{"key", change.key}, {"before", change.before}, {"after", change.after}});
    json j = {{"config_changes", config},
              {"arm_samples_per_second", figuresJson(lab.armSamplesPerSecond)},
              {"phase_ms", figuresJson(lab.phaseMs)},
              {"split_ms", figuresJson(lab.splitMs)}};
    j["steps"] = lab.steps ? changeJson(*lab.steps) : json();
    if (lab.sweep)
        j["sweep_prediction"] = {
            {"knob", lab.sweep->knob},
            {"value", lab.sweep->value},
            {"predicted_samples_per_second", lab.sweep->predictedSamplesPerSecond},
            {"measured_samples_per_second", lab.sweep->measuredSamplesPerSecond}};
    return j;
}

// How a fused group's kernels were read: "" named, "kernels" unnamed C++ kernels (their
// Python frames), "graph-runs" the compiled graphs' own time.
std::string unnamedName(CompiledChange::FusedGroup::Unnamed unnamed)
{
    using Unnamed = CompiledChange::FusedGroup::Unnamed;
    return unnamed == Unnamed::Kernels     ? "kernels"
           : unnamed == Unnamed::GraphRuns ? "graph-runs"
                                           : "";
}

json compiledJson(const std::optional<CompiledChange>& change)
{
    if (!change)
        return nullptr;
    const CompiledChange& c = *change;
    json parts = json::array();
    for (const CompiledChange::Part& p : c.parts)
        parts.push_back({{"key", p.key},
                         {"label", p.label},
                         {"before_us", us(p.beforeNs)},
                         {"after_us", us(p.afterNs)},
                         {"delta_us", us(p.deltaNs())},
                         {"before_count", p.beforeCount},
                         {"after_count", p.afterCount}});
    json groups = json::array();
    for (const CompiledChange::FusedGroup& g : c.groups)
        groups.push_back({{"ops", g.ops},
                          {"text", fusedGroupText(g)},
                          {"eager_us", us(g.eagerNs)},
                          {"eager_ops", g.eagerOps},
                          {"kernel_us", us(g.kernelNs)},
                          {"kernels", g.kernels},
                          {"kernel_names", g.kernelNames},
                          {"compiled_side", g.compiledBefore ? "before" : "after"},
                          {"unnamed", unnamedName(g.unnamed)},
                          {"delta_us", us(g.deltaNs())}});
    json slower = json::array();
    for (const CompiledChange::Slower& x : c.slower)
        slower.push_back({{"kind", x.kind},
                          {"name", x.name},
                          {"before_us", us(x.beforeNs)},
                          {"after_us", us(x.afterNs)},
                          {"delta_us", us(x.deltaNs())}});
    auto share = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    return {{"direction", c.direction},
            {"before_compiled", c.beforeCompiled},
            {"after_compiled", c.afterCompiled},
            {"time", c.deviceTime ? "device" : "host"},
            {"step_before_us", us(c.stepBeforeNs)},
            {"step_after_us", us(c.stepAfterNs)},
            {"step_delta_us", us(c.stepAfterNs - c.stepBeforeNs)},
            {"parts", parts},
            {"fused_groups", groups},
            {"unfused_compiled_us", us(c.unfusedCompiledNs)},
            {"gemm_tensor_core_share_before", share(c.gemmTensorCoreBefore)},
            {"gemm_tensor_core_share_after", share(c.gemmTensorCoreAfter)},
            {"slower", slower},
            {"line", c.line}};
}

}  // namespace

json comparisonJson(const Comparison& c)
{
    json j;
    j["before"] = sideJson(c.before);
    j["after"] = sideJson(c.after);
    j["verdict"] = verdictName(c.verdict().verdict);
    j["verdict_line"] = c.verdictLine;
    j["change_line"] = c.changeLine;
    j["traced"] = c.traced;
    j["step"] = c.traced ? changeJson(c.step) : json();
    j["same_hardware"] = c.sameHardware;
    j["same_workload"] = c.sameWorkload;
    j["shape_difference"] = c.shapeDifference.empty() ? json(nullptr) : json(c.shapeDifference);
    j["shared_op_time"] = c.sharedOpTime ? json(*c.sharedOpTime) : json(nullptr);
    if (c.batch)
        j["batch"] = {{"before", c.batch->before},
                      {"after", c.batch->after},
                      {"source", c.batch->configured ? "configuration" : "input shapes"},
                      {"ops_agreeing", c.batch->opsAgreeing}};
    j["per_sample"] = c.perSample ? changeJson(*c.perSample) : json();
    if (c.perSample && c.perSampleBefore && c.perSampleAfter) {
        j["per_sample"]["before_mean_us"] = us(c.perSampleBefore->meanNs);
        j["per_sample"]["after_mean_us"] = us(c.perSampleAfter->meanNs);
        j["per_sample"]["of"] = c.perSampleOfLab ? "lab steps" : "trace steps";
    }
    json breakdown = json::array();
    for (const Delta& d : c.breakdown)
        breakdown.push_back({{"category", d.name},
                             {"before_us", us(d.beforeNs)},
                             {"after_us", us(d.afterNs)},
                             {"delta_us", us(d.deltaNs())}});
    j["breakdown"] = breakdown;
    json causes = json::array();
    for (const Cause& x : c.causes) {
        json cause = {{"kind", causeKindKey(x.kind)},
                      {"name", x.name},
                      {"label", x.label},
                      {"before_us", us(x.beforeNs)},
                      {"after_us", us(x.afterNs)},
                      {"delta_us", us(x.deltaNs())}};
        if (x.beforeCount && x.afterCount) {
            cause["before_calls"] = *x.beforeCount;
            cause["after_calls"] = *x.afterCount;
        }
        causes.push_back(std::move(cause));
    }
    j["causes"] = causes;
    j["kernels"] = deltasJson(c.kernels, false);
    j["ops"] = deltasJson(c.ops, true);
    j["efficiency"] = efficiencyJson(c.efficiency);
    j["copies"] = deltasJson(c.copies, false);
    json memory = json::array();
    for (const MemoryDelta& m : c.memory)
        memory.push_back({{"device", m.device},
                          {"before_peak_allocated_bytes", m.beforePeakAllocated},
                          {"after_peak_allocated_bytes", m.afterPeakAllocated},
                          {"before_peak_reserved_bytes", m.beforePeakReserved},
                          {"after_peak_reserved_bytes", m.afterPeakReserved}});
    j["memory"] = memory;
    json findings = json::array();
    for (const FindingChange& f : c.findings)
        findings.push_back({{"id", f.id},
                            {"title", f.title},
                            {"status", findingStatusName(f.status)},
                            {"before_gain_us", us(f.beforeGainNs)},
                            {"after_gain_us", us(f.afterGainNs)}});
    j["findings"] = findings;
    j["lab"] = c.lab ? labJson(*c.lab) : json();
    j["compiled_change"] = compiledJson(c.compiled);
    return j;
}

std::string comparisonText(const Comparison& c)
{
    std::ostringstream out;
    out << c.before.path << " → " << c.after.path << "\n"
        << c.verdictLine << "\n"
        << c.changeLine << "\n\n";
    if (!c.traced) {  // two lab sessions without traces: the verdict and the lab's figures say it
                      // all
        out << c.verdict().method << "\n";
        return out.str();
    }
    out << "steady steps: " << c.before.steps.valuesNs.size() << " → "
        << c.after.steps.valuesNs.size() << "; median " << format::duration(c.before.steps.medianNs)
        << " → " << format::duration(c.after.steps.medianNs) << ", p95 "
        << format::duration(c.before.steps.p95Ns) << " → " << format::duration(c.after.steps.p95Ns)
        << "\n"
        << c.verdict().method << "\n";
    if (c.compiled) {
        const CompiledChange& cc = *c.compiled;
        out << "\n" << cc.line << "\n";
        for (const CompiledChange::Part& p : cc.parts)
            out << "  " << format::padRight(p.label, 17) << format::duration(p.beforeNs) << " → "
                << format::duration(p.afterNs) << " (" << format::durationChange(p.deltaNs())
                << ")\n";
        out << "  (the parts add up to each side's step; \""
            << (cc.deviceTime ? "launches/idle\" is the step less all kernel time"
                              : "host/dispatch\" is the step less the other parts: outside ops, "
                                "framework spans, metadata ops")
            << ")\n";
        if (!cc.groups.empty()) {
            out << "  fused groups:\n";
            for (size_t i = 0; i < cc.groups.size() && i < 5; ++i)
                out << "    " << fusedGroupText(cc.groups[i]) << "\n";
        }
        if (!cc.slower.empty()) {
            out << "  slower:\n";
            for (size_t i = 0; i < cc.slower.size() && i < 8; ++i)
                out << "    " << format::durationChange(cc.slower[i].deltaNs()) << "  "
                    << cc.slower[i].name << " (" << cc.slower[i].kind << ")\n";
        }
    }
    if (!c.causes.empty()) {
        out << "\nwhat changed (per step):\n";
        for (size_t i = 0; i < c.causes.size() && i < 8; ++i)
            out << "  " << format::durationChange(c.causes[i].deltaNs()) << "  "
                << c.causes[i].label << "\n";
    }
    out << "\nbreakdown per step (before → after):\n";
    for (const Delta& d : c.breakdown)
        out << "  " << d.name << ": " << format::duration(d.beforeNs) << " → "
            << format::duration(d.afterNs) << " (" << format::durationChange(d.deltaNs()) << ")\n";
    if (!c.efficiency.empty()) {
        out << "\nkernel efficiency (before → after):\n";
        for (const EfficiencyDelta& d : c.efficiency) {
            auto side = [](const std::optional<EfficiencyDelta::Reading>& r) {
                if (!r)
                    return std::string("not run");
                return r->dtype + " " + format::flopRate(r->achievedTflops * 1e12) +
                       (r->shareOfRoof ? " (" + format::percent(*r->shareOfRoof) + " of roof)"
                                       : std::string());
            };
            out << "  " << format::clip(d.name + " " + d.inputShapes, 60) << ": " << side(d.before)
                << " → " << side(d.after) << "\n";
        }
    }
    if (!c.findings.empty()) {
        out << "\nfindings:\n";
        for (const FindingChange& f : c.findings)
            out << "  " << findingStatusName(f.status) << ": " << f.id << "\n";
    }
    return out.str();
}

}  // namespace kinetoscope::cli
