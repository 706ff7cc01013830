#include "core/trace/metadata_reader.h"

#include "core/trace/json_integer.h"
#include "core/trace/json_scan.h"
#include "core/trace/printable.h"
#include "core/trace/trace_model.h"

#include <cstdint>
#include <nlohmann/json.hpp>

namespace kinetoscope::trace {

namespace {

using nlohmann::json;

// A number of the metadata, when it is an integer (or an integral float) within
// [low, high]; otherwise `fallback`, and a value present but out of range is recorded
// (m.rejectedValues) so that the load can count it.
template <typename T>
T integerOr(const json& object, const char* key, T fallback, int64_t low, int64_t high,
            const char* where, TraceMetadata& m)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number())
        return fallback;
    const std::optional<int64_t> value = integerWithin(*it, low, high);
    if (!value) {
        m.rejectedValues.push_back(std::string(where) + "." + key);
        return fallback;
    }
    return static_cast<T>(*value);
}

std::string textOf(const json& value)
{
    return value.is_string() ? value.get<std::string>() : value.dump();
}

// At most `maxBytes` of valid UTF-8 text, cut at a character boundary, "..." when cut.
std::string cutAtCharacter(const std::string& text, size_t maxBytes)
{
    const std::string_view kept = utf8Prefix(text, maxBytes);
    return kept.size() == text.size() ? text : std::string(kept) + "...";
}

DeviceInfo readDevice(const json& d, TraceMetadata& m)
{
    // Plausible hardware: counts up to 2^20, sizes up to 2^50 bytes (a petabyte).
    constexpr int64_t kCount = int64_t(1) << 20, kBytes = int64_t(1) << 50;
    constexpr const char* where = "deviceProperties";
    DeviceInfo info;
    info.id = integerOr(d, "id", -1, 0, kCount, where, m);
    if (auto it = d.find("name"); it != d.end() && it->is_string())
        info.name = it->get<std::string>();
    info.totalGlobalMemBytes = integerOr<int64_t>(d, "totalGlobalMem", -1, 0, kBytes, where, m);
    info.computeMajor = integerOr(d, "computeMajor", -1, 0, kCount, where, m);
    info.computeMinor = integerOr(d, "computeMinor", -1, 0, kCount, where, m);
    info.numSms = integerOr(d, "numSms", -1, 0, kCount, where, m);
    info.warpSize = integerOr(d, "warpSize", -1, 0, kCount, where, m);
    info.maxThreadsPerBlock = integerOr(d, "maxThreadsPerBlock", -1, 0, kCount, where, m);
    info.maxThreadsPerMultiprocessor =
        integerOr(d, "maxThreadsPerMultiprocessor", -1, 0, kCount, where, m);
    info.regsPerBlock = integerOr(d, "regsPerBlock", -1, 0, kCount, where, m);
    info.regsPerMultiprocessor = integerOr(d, "regsPerMultiprocessor", -1, 0, kCount, where, m);
    info.sharedMemPerBlockBytes =
        integerOr<int64_t>(d, "sharedMemPerBlock", -1, 0, kBytes, where, m);
    info.sharedMemPerMultiprocessorBytes =
        integerOr<int64_t>(d, "sharedMemPerMultiprocessor", -1, 0, kBytes, where, m);
    return info;
}

void apply(std::string_view key, const json& value, TraceMetadata& m)
{
    if (key == "schemaVersion" && value.is_number()) {
        const json top = {{"schemaVersion", value}};
        if (const int64_t v = integerOr<int64_t>(top, "schemaVersion", -1, 0, INT32_MAX, "top", m);
            v >= 0)
            m.schemaVersion = v;
    } else if (key == "baseTimeNanoseconds" && value.is_number()) {
        // Within the model's range, so that shifting a time by it cannot overflow.
        constexpr int64_t kNone = INT64_MIN;
        const json top = {{"baseTimeNanoseconds", value}};
        if (const int64_t v = integerOr<int64_t>(top, "baseTimeNanoseconds", kNone, kMinTimeNs,
                                                 kMaxTimeNs, "top", m);
            v != kNone)
            m.baseTimeNs = v;
    } else if (key == "traceName" && value.is_string()) {
        m.traceName = value.get<std::string>();
    } else if (key == "displayTimeUnit" && value.is_string()) {
        m.displayTimeUnit = value.get<std::string>();
    } else if ((key == "deviceProperties" || key == "computeProperties") && value.is_array()) {
        m.devices.clear();
        for (const json& d : value)
            if (d.is_object())
                m.devices.push_back(readDevice(d, m));
        m.devicesFromComputeProperties = key == "computeProperties";
    } else if (key == "distributedInfo" && value.is_object()) {
        DistributedInfo info;
        if (auto it = value.find("backend"); it != value.end() && it->is_string())
            info.backend = it->get<std::string>();
        info.rank = integerOr(value, "rank", -1, 0, INT32_MAX, "distributedInfo", m);
        info.worldSize = integerOr(value, "world_size", -1, 0, INT32_MAX, "distributedInfo", m);
        m.distributed = info;
    } else if (key.ends_with("_version")) {
        m.versions.emplace_back(toValidUtf8(key), cutAtCharacter(textOf(value), 256));
    } else {
        m.otherKeys.emplace_back(toValidUtf8(key), cutAtCharacter(value.dump(), 256));
    }
}

}  // namespace

bool readTopLevelValue(std::string_view key, std::string_view text, TraceMetadata& metadata)
{
    json value = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) {
        std::string repaired;
        if (!json_scan::repairStrings(text, repaired))
            return false;
        value = json::parse(repaired, nullptr, /*allow_exceptions=*/false);
        if (value.is_discarded())
            return false;
    }
    apply(key, value, metadata);
    return true;
}

}  // namespace kinetoscope::trace
