#include "core/session/session_json.h"

#include "core/trace/json_integer.h"
#include "core/trace/printable.h"

#include <stdexcept>

namespace kinetoscope::session {

using nlohmann::json;

namespace {

int64_t integerOr(const json& object, const char* key, int64_t fallback)
{
    const auto it = object.find(key);
    return it == object.end() ? fallback : integerOf(*it, key);
}

const json& rowOf(const json& row, size_t size, const char* what)
{
    if (!row.is_array() || row.size() != size)
        throw std::invalid_argument(std::string(what) + " is not a row of " + std::to_string(size) +
                                    " values");
    return row;
}

}  // namespace

int64_t integerOf(const json& value, const char* field)
{
    if (const std::optional<int64_t> integer = trace::integerWithin(value, INT64_MIN, INT64_MAX))
        return *integer;
    throw std::invalid_argument(std::string(field) + " is not an integer within int64");
}

json toJson(const PhaseTiming& p)
{
    return {{"phase", p.phase},        {"mean_ms", p.meanMs}, {"std_ms", p.stdMs},
            {"median_ms", p.medianMs}, {"p95_ms", p.p95Ms},   {"p99_ms", p.p99Ms}};
}

PhaseTiming phaseTimingFrom(const json& p)
{
    if (!p.is_object())
        throw std::invalid_argument("a phase timing is not an object");
    return {p.value("phase", ""),      p.value("mean_ms", 0.0), p.value("std_ms", 0.0),
            p.value("median_ms", 0.0), p.value("p95_ms", 0.0),  p.value("p99_ms", 0.0)};
}

json toJson(const LabArm& a)
{
    json j = {{"name", a.name()},
              {"ran", a.ran},
              {"skipped_reason", a.skippedReason},
              {"samples_per_second", a.samplesPerSecond},
              {"mean_step_ms", a.meanStepMs},
              {"peak_allocated_bytes", a.peakAllocatedBytes},
              {"peak_reserved_bytes", a.peakReservedBytes}};
    if (!a.latency.phase.empty())
        j["latency"] = toJson(a.latency);
    return j;
}

LabArm labArmFrom(const json& a)
{
    LabArm arm;
    const std::string name = a.value("name", "");
    const std::optional<ArmKind> kind = parseArmKind(name);
    if (!kind)
        throw std::invalid_argument("lab arm \"" + trace::printableExcerpt(name) +
                                    "\" is not fp32, bf16 or bf16+cuda-graph");
    arm.kind = *kind;
    arm.ran = a.value("ran", false);
    arm.skippedReason = a.value("skipped_reason", "");
    arm.samplesPerSecond = a.value("samples_per_second", 0.0);
    arm.meanStepMs = a.value("mean_step_ms", 0.0);
    arm.peakAllocatedBytes = integerOr(a, "peak_allocated_bytes", -1);
    arm.peakReservedBytes = integerOr(a, "peak_reserved_bytes", -1);
    if (a.contains("latency"))
        arm.latency = phaseTimingFrom(a["latency"]);
    return arm;
}

json toJson(const StepTiming& t)
{
    return {t.step, t.dataMs, t.h2dMs, t.forwardMs, t.backwardMs, t.optimizerMs, t.loss};
}

StepTiming stepTimingFrom(const json& row)
{
    const json& t = rowOf(row, 7, "a step");
    return {integerOf(t[0], "step"), t[1].get<double>(), t[2].get<double>(), t[3].get<double>(),
            t[4].get<double>(),      t[5].get<double>(), t[6].get<double>()};
}

json toJson(const SweepPoint& p)
{
    json j = {{"knob", p.knob},
              {"value", p.value},
              {"samples_per_second", p.samplesPerSecond},
              {"data_wait_ms", p.dataWaitMs},
              {"error", p.error},
              {"mean_step_ms", p.meanStepMs},
              {"peak_allocated_bytes", p.peakAllocatedBytes},
              {"peak_reserved_bytes", p.peakReservedBytes}};
    if (!p.latency.phase.empty())
        j["latency"] = toJson(p.latency);
    if (p.checkpointEvery > 0)
        j["checkpoint_every"] = p.checkpointEvery;
    return j;
}

SweepPoint sweepPointFrom(const json& p)
{
    SweepPoint point;
    point.knob = p.value("knob", "");
    point.value = integerOr(p, "value", 0);
    point.samplesPerSecond = p.value("samples_per_second", 0.0);
    point.dataWaitMs = p.value("data_wait_ms", 0.0);
    point.error = p.value("error", "");
    point.meanStepMs = p.value("mean_step_ms", 0.0);
    point.peakAllocatedBytes = integerOr(p, "peak_allocated_bytes", -1);
    point.peakReservedBytes = integerOr(p, "peak_reserved_bytes", -1);
    if (p.contains("latency"))
        point.latency = phaseTimingFrom(p["latency"]);
    point.checkpointEvery = integerOr(p, "checkpoint_every", 0);
    return point;
}

namespace {

json phaseRows(const std::vector<PhaseMemory>& phases)
{
    json rows = json::array();
    for (const PhaseMemory& m : phases)
        rows.push_back({m.phase, m.allocatedBytes, m.reservedBytes, m.peakAllocatedBytes});
    return rows;
}

std::vector<PhaseMemory> phaseRowsFrom(const json& rows)
{
    std::vector<PhaseMemory> phases;
    if (!rows.is_array())
        throw std::invalid_argument("memory phases are not an array");
    for (const json& row : rows) {
        const json& r = rowOf(row, 4, "a memory phase");
        phases.push_back({r[0].get<std::string>(), integerOf(r[1], "allocated"),
                          integerOf(r[2], "reserved"), integerOf(r[3], "peak")});
    }
    return phases;
}

}  // namespace

json toJson(const MemoryTriage& m)
{
    const MemorySplit& s = m.split;
    return {{"first_step", phaseRows(m.firstStep)},
            {"steady_step", phaseRows(m.steadyStep)},
            {"peak_per_step", m.peakPerStep},
            {"split",
             {{"parameter_count", s.parameterCount},
              {"parameter_tensors", s.parameterTensors},
              {"parameter_bytes", s.parameterBytes},
              {"gradient_bytes", s.gradientBytes},
              {"optimizer_state_bytes", s.optimizerStateBytes},
              {"activation_bytes", s.activationBytes}}},
            {"unavailable", m.unavailable}};
}

MemoryTriage memoryTriageFrom(const json& j)
{
    if (!j.is_object())
        throw std::invalid_argument("memory is not an object");
    MemoryTriage m;
    m.firstStep = phaseRowsFrom(j.value("first_step", json::array()));
    m.steadyStep = phaseRowsFrom(j.value("steady_step", json::array()));
    for (const json& peak : j.value("peak_per_step", json::array()))
        m.peakPerStep.push_back(integerOf(peak, "peak_per_step"));
    const json split = j.value("split", json::object());
    if (!split.is_object())
        throw std::invalid_argument("memory split is not an object");
    m.split.parameterCount = integerOr(split, "parameter_count", 0);
    m.split.parameterTensors = integerOr(split, "parameter_tensors", 0);
    m.split.parameterBytes = integerOr(split, "parameter_bytes", 0);
    m.split.gradientBytes = integerOr(split, "gradient_bytes", 0);
    m.split.optimizerStateBytes = integerOr(split, "optimizer_state_bytes", 0);
    m.split.activationBytes = integerOr(split, "activation_bytes", -1);
    m.unavailable = j.value("unavailable", "");
    return m;
}

json toJson(const LiveSample& l)
{
    return {l.seconds,        l.cpuPercent,    l.gpuPercent,   l.gpuMemoryUsedBytes,
            l.allocatedBytes, l.reservedBytes, l.residentBytes};
}

LiveSample liveSampleFrom(const json& row)
{
    const json& l = rowOf(row, 7, "a sample");
    return {l[0].get<double>(),         l[1].get<double>(),         l[2].get<double>(),
            integerOf(l[3], "samples"), integerOf(l[4], "samples"), integerOf(l[5], "samples"),
            integerOf(l[6], "samples")};
}

}  // namespace kinetoscope::session
