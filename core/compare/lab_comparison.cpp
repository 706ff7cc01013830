#include "core/compare/lab_comparison.h"

#include <map>
#include <set>

namespace kinetoscope::compare {

namespace {

using Figure = LabComparison::Figure;

template <class T, class Name, class Value>
std::vector<Figure> figures(const std::vector<T>& before, const std::vector<T>& after, Name name,
                            Value value)
{
    std::vector<Figure> out;
    auto at = [&](const std::string& key) -> Figure& {
        for (Figure& f : out)
            if (f.name == key)
                return f;
        out.push_back({key, std::nullopt, std::nullopt});
        return out.back();
    };
    for (const T& x : before)
        if (auto v = value(x))
            at(name(x)).before = v;
    for (const T& x : after)
        if (auto v = value(x))
            at(name(x)).after = v;
    return out;
}

std::optional<StepSample> labSteps(const session::Session& s)
{
    if (s.steps.empty())
        return std::nullopt;
    // A step's wall time where the probe measured it (everything the loop did), else the
    // sum of its phases.
    std::vector<double> ns;
    ns.reserve(s.steps.size());
    for (const session::StepTiming& t : s.steps)
        ns.push_back(t.wallOrPhasesMs() * 1e6);
    return stepSample(std::move(ns));
}

std::optional<double> fp32SamplesPerSecond(const session::Session& s)
{
    for (const session::LabArm& arm : s.lab)
        if (arm.kind == session::ArmKind::Fp32 && arm.ran)
            return arm.samplesPerSecond;
    return std::nullopt;
}

// The config key a sweep knob sets.
const char* configKeyOf(const std::string& knob)
{
    return knob == "workers" ? "workers" : knob == "batch_size" ? "batch_size" : "";
}

}  // namespace

LabComparison compareSessions(const session::Session& before, const session::Session& after)
{
    LabComparison c;
    std::set<std::string> keys;
    for (const auto& [k, v] : before.config)
        keys.insert(k);
    for (const auto& [k, v] : after.config)
        keys.insert(k);
    for (const std::string& k : keys) {
        const auto a = before.config.find(k), b = after.config.find(k);
        const std::string va = a == before.config.end() ? "" : a->second;
        const std::string vb = b == after.config.end() ? "" : b->second;
        if (va != vb)
            c.config.push_back({k, va, vb});
    }
    c.armSamplesPerSecond = figures(
        before.lab, after.lab, [](const session::LabArm& a) { return std::string(a.name()); },
        [](const session::LabArm& a) {
            return a.ran ? std::optional(a.samplesPerSecond) : std::nullopt;
        });
    c.phaseMs = figures(
        before.phases, after.phases, [](const session::PhaseTiming& p) { return p.phase; },
        [](const session::PhaseTiming& p) { return std::optional(p.meanMs); });
    if (before.dataLoaderMs || after.dataLoaderMs)
        c.splitMs.push_back({"dataloader", before.dataLoaderMs, after.dataLoaderMs});
    if (before.computeMs || after.computeMs)
        c.splitMs.push_back({"compute", before.computeMs, after.computeMs});
    c.stepsBefore = labSteps(before);
    c.stepsAfter = labSteps(after);
    if (c.stepsBefore && c.stepsAfter)
        c.steps = estimateChange(*c.stepsBefore, *c.stepsAfter);
    // A sweep on the before side over the knob that changed, with a point at the after
    // side's value: what the before run predicted for the change.
    const auto measured = fp32SamplesPerSecond(after);
    for (const session::SweepPoint& p : before.sweep) {
        const auto setting = after.config.find(configKeyOf(p.knob));
        if (!measured || setting == after.config.end() || p.samplesPerSecond <= 0 ||
            setting->second != std::to_string(p.value))
            continue;
        // Only when this knob is all that changed: with anything else changed too, the
        // sweep did not predict this run.
        if (c.config.size() != 1 || c.config.front().key != setting->first)
            continue;
        c.sweep = LabComparison::SweepPrediction{p.knob, p.value, p.samplesPerSecond, *measured};
    }
    return c;
}

}  // namespace kinetoscope::compare
