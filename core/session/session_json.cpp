#include "core/session/session_json.h"

#include "core/trace/json_integer.h"
#include "core/trace/printable.h"

#include <limits>
#include <stdexcept>

namespace kinetoscope::session {

using nlohmann::json;

namespace {

int64_t integerOr(const json& object, const char* key, int64_t fallback)
{
    const auto it = object.find(key);
    return it == object.end() ? fallback : integerOf(*it, key);
}

void requireRow(const json& row, size_t size, const char* what)
{
    if (!row.is_array() || row.size() != size)
        throw std::invalid_argument(std::string(what) + " is not a row of " + std::to_string(size) +
                                    " values");
}

}  // namespace

int64_t integerOf(const json& value, const char* field)
{
    if (const std::optional<int64_t> integer = trace::integerWithin(value, INT64_MIN, INT64_MAX))
        return *integer;
    throw std::invalid_argument(std::string(field) + " is not an integer within int64");
}

json toJson(const PhaseTiming& timing)
{
    return {{"phase", timing.phase},        {"mean_ms", timing.meanMs}, {"std_ms", timing.stdMs},
            {"median_ms", timing.medianMs}, {"p95_ms", timing.p95Ms},   {"p99_ms", timing.p99Ms}};
}

PhaseTiming phaseTimingFrom(const json& value)
{
    if (!value.is_object())
        throw std::invalid_argument("a phase timing is not an object");
    return {value.value("phase", ""),      value.value("mean_ms", 0.0), value.value("std_ms", 0.0),
            value.value("median_ms", 0.0), value.value("p95_ms", 0.0),  value.value("p99_ms", 0.0)};
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
    if (a.compileSeconds >= 0)
        j["compile_seconds"] = a.compileSeconds;
    if (a.graphBreaks >= 0)
        j["graph_breaks"] = a.graphBreaks;
    if (a.recompiles >= 0)
        j["recompiles"] = a.recompiles;
    if (a.compiledInMeasured >= 0)
        j["compiled_in_measured"] = a.compiledInMeasured;
    if (!a.note.empty())
        j["note"] = a.note;
    if (a.scriptPrecision)
        j["script_precision"] = true;
    if (a.scriptCompiles)
        j["script_compiles"] = true;
    if (a.otherCpuCores >= 0)
        j["other_cpu_cores"] = a.otherCpuCores;
    return j;
}

LabArm labArmFrom(const json& value)
{
    LabArm arm;
    const std::string name = value.value("name", "");
    const std::optional<ArmKind> kind = parseArmKind(name);
    if (!kind)
        throw std::invalid_argument("lab arm \"" + trace::printableExcerpt(name) +
                                    "\" is not fp32, bf16, bf16+cuda-graph or bf16+compile");
    arm.kind = *kind;
    arm.ran = value.value("ran", false);
    arm.skippedReason = value.value("skipped_reason", "");
    arm.samplesPerSecond = value.value("samples_per_second", 0.0);
    arm.meanStepMs = value.value("mean_step_ms", 0.0);
    arm.peakAllocatedBytes = integerOr(value, "peak_allocated_bytes", -1);
    arm.peakReservedBytes = integerOr(value, "peak_reserved_bytes", -1);
    if (value.contains("latency"))
        arm.latency = phaseTimingFrom(value["latency"]);
    arm.compileSeconds = value.value("compile_seconds", -1.0);
    arm.graphBreaks = integerOr(value, "graph_breaks", -1);
    arm.recompiles = integerOr(value, "recompiles", -1);
    arm.compiledInMeasured = integerOr(value, "compiled_in_measured", -1);
    arm.note = value.value("note", "");
    arm.scriptPrecision = value.value("script_precision", false);
    arm.scriptCompiles = value.value("script_compiles", false);
    arm.otherCpuCores = value.value("other_cpu_cores", -1.0);
    return arm;
}

json toJson(const StepTiming& step)
{
    json row = {step.step,       step.dataMs,      step.h2dMs, step.forwardMs,
                step.backwardMs, step.optimizerMs, step.loss};
    // The memory columns only where measured or followed by the wall time: a CPU run's rows
    // stay 7 values, or 12 with the step's wall time.
    if (step.allocatedBytes >= 0 || step.reservedBytes >= 0 || step.peakAllocatedBytes >= 0 ||
        step.peakReservedBytes >= 0 || step.wallMs >= 0)
        for (int64_t bytes : {step.allocatedBytes, step.reservedBytes, step.peakAllocatedBytes,
                              step.peakReservedBytes})
            row.push_back(bytes);
    if (step.wallMs >= 0)
        row.push_back(step.wallMs);
    return row;
}

StepTiming stepTimingFrom(const json& row)
{
    if (!row.is_array() || (row.size() != 7 && row.size() != 11 && row.size() != 12))
        throw std::invalid_argument("a step is not a row of 7, 11 or 12 values");
    // A loss that was not finite is written as null (JSON has no NaN).
    const double loss =
        row[6].is_null() ? std::numeric_limits<double>::quiet_NaN() : row[6].get<double>();
    StepTiming t{integerOf(row[0], "step"),
                 row[1].get<double>(),
                 row[2].get<double>(),
                 row[3].get<double>(),
                 row[4].get<double>(),
                 row[5].get<double>(),
                 loss};
    if (row.size() >= 11) {  // 11: CUDA's memory columns; 12: and the step's wall time
        t.allocatedBytes = integerOf(row[7], "step");
        t.reservedBytes = integerOf(row[8], "step");
        t.peakAllocatedBytes = integerOf(row[9], "step");
        t.peakReservedBytes = integerOf(row[10], "step");
    }
    if (row.size() == 12 && !row[11].is_null())
        t.wallMs = row[11].get<double>();
    return t;
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
    if (p.otherCpuCores >= 0)
        j["other_cpu_cores"] = p.otherCpuCores;
    return j;
}

SweepPoint sweepPointFrom(const json& value)
{
    SweepPoint point;
    point.knob = value.value("knob", "");
    point.value = integerOr(value, "value", 0);
    point.samplesPerSecond = value.value("samples_per_second", 0.0);
    point.dataWaitMs = value.value("data_wait_ms", 0.0);
    point.error = value.value("error", "");
    point.meanStepMs = value.value("mean_step_ms", 0.0);
    point.peakAllocatedBytes = integerOr(value, "peak_allocated_bytes", -1);
    point.peakReservedBytes = integerOr(value, "peak_reserved_bytes", -1);
    if (value.contains("latency"))
        point.latency = phaseTimingFrom(value["latency"]);
    point.checkpointEvery = integerOr(value, "checkpoint_every", 0);
    point.otherCpuCores = value.value("other_cpu_cores", -1.0);
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
        requireRow(row, 4, "a memory phase");
        phases.push_back({row[0].get<std::string>(), integerOf(row[1], "allocated"),
                          integerOf(row[2], "reserved"), integerOf(row[3], "peak")});
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

MemoryTriage memoryTriageFrom(const json& value)
{
    if (!value.is_object())
        throw std::invalid_argument("memory is not an object");
    MemoryTriage m;
    m.firstStep = phaseRowsFrom(value.value("first_step", json::array()));
    m.steadyStep = phaseRowsFrom(value.value("steady_step", json::array()));
    for (const json& peak : value.value("peak_per_step", json::array()))
        m.peakPerStep.push_back(integerOf(peak, "peak_per_step"));
    const json split = value.value("split", json::object());
    if (!split.is_object())
        throw std::invalid_argument("memory split is not an object");
    m.split.parameterCount = integerOr(split, "parameter_count", 0);
    m.split.parameterTensors = integerOr(split, "parameter_tensors", 0);
    m.split.parameterBytes = integerOr(split, "parameter_bytes", 0);
    m.split.gradientBytes = integerOr(split, "gradient_bytes", 0);
    m.split.optimizerStateBytes = integerOr(split, "optimizer_state_bytes", 0);
    m.split.activationBytes = integerOr(split, "activation_bytes", -1);
    m.unavailable = value.value("unavailable", "");
    return m;
}

json toJson(const LiveSample& sample)
{
    return {
        sample.seconds,        sample.cpuPercent,    sample.gpuPercent,   sample.gpuMemoryUsedBytes,
        sample.allocatedBytes, sample.reservedBytes, sample.residentBytes};
}

LiveSample liveSampleFrom(const json& row)
{
    requireRow(row, 7, "a sample");
    const json& l = row;
    return {l[0].get<double>(),         l[1].get<double>(),         l[2].get<double>(),
            integerOf(l[3], "samples"), integerOf(l[4], "samples"), integerOf(l[5], "samples"),
            integerOf(l[6], "samples")};
}

}  // namespace kinetoscope::session
