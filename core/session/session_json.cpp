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
        throw std::invalid_argument(std::string(what) + " is not a row of " + std::to_string(size) + " values");
    return row;
}

}  // namespace

int64_t integerOf(const json& value, const char* field)
{
    if (const std::optional<int64_t> integer = trace::integerWithin(value, INT64_MIN, INT64_MAX))
        return *integer;
    throw std::invalid_argument(std::string(field) + " is not an integer within int64");
}

json toJson(const LabArm& a)
{
    return {{"name", a.name()},
            {"ran", a.ran},
            {"skipped_reason", a.skippedReason},
            {"samples_per_second", a.samplesPerSecond},
            {"mean_step_ms", a.meanStepMs},
            {"peak_allocated_bytes", a.peakAllocatedBytes}};
}

LabArm labArmFrom(const json& a)
{
    LabArm arm;
    const std::string name = a.value("name", "");
    const std::optional<ArmKind> kind = parseArmKind(name);
    if (!kind)
        throw std::invalid_argument("lab arm \"" + trace::printableExcerpt(name) + "\" is not fp32, bf16 or bf16+cuda-graph");
    arm.kind = *kind;
    arm.ran = a.value("ran", false);
    arm.skippedReason = a.value("skipped_reason", "");
    arm.samplesPerSecond = a.value("samples_per_second", 0.0);
    arm.meanStepMs = a.value("mean_step_ms", 0.0);
    arm.peakAllocatedBytes = integerOr(a, "peak_allocated_bytes", -1);
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
            t[4].get<double>(), t[5].get<double>(), t[6].get<double>()};
}

json toJson(const SweepPoint& p)
{
    return {{"knob", p.knob},
            {"value", p.value},
            {"samples_per_second", p.samplesPerSecond},
            {"data_wait_ms", p.dataWaitMs},
            {"error", p.error}};
}

SweepPoint sweepPointFrom(const json& p)
{
    return {p.value("knob", ""), integerOr(p, "value", 0), p.value("samples_per_second", 0.0),
            p.value("data_wait_ms", 0.0), p.value("error", "")};
}

json toJson(const LiveSample& l)
{
    return {l.seconds, l.cpuPercent, l.gpuPercent, l.gpuMemoryUsedBytes, l.allocatedBytes, l.reservedBytes,
            l.residentBytes};
}

LiveSample liveSampleFrom(const json& row)
{
    const json& l = rowOf(row, 7, "a sample");
    return {l[0].get<double>(),           l[1].get<double>(),           l[2].get<double>(),
            integerOf(l[3], "samples"), integerOf(l[4], "samples"), integerOf(l[5], "samples"),
            integerOf(l[6], "samples")};
}

}  // namespace kinetoscope::session
