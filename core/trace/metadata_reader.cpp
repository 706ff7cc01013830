#include "core/trace/metadata_reader.h"

#include "core/trace/json_scan.h"

#include <nlohmann/json.hpp>

namespace kinetoscope::trace {

namespace {

using nlohmann::json;

template <typename T>
T numberOr(const json& object, const char* key, T fallback)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number())
        return fallback;
    return it->get<T>();
}

std::string textOf(const json& value)
{
    return value.is_string() ? value.get<std::string>() : value.dump();
}

DeviceInfo readDevice(const json& d)
{
    DeviceInfo info;
    info.id = numberOr(d, "id", -1);
    if (auto it = d.find("name"); it != d.end() && it->is_string())
        info.name = it->get<std::string>();
    info.totalGlobalMemBytes = numberOr<int64_t>(d, "totalGlobalMem", -1);
    info.computeMajor = numberOr(d, "computeMajor", -1);
    info.computeMinor = numberOr(d, "computeMinor", -1);
    info.numSms = numberOr(d, "numSms", -1);
    info.warpSize = numberOr(d, "warpSize", -1);
    info.maxThreadsPerBlock = numberOr(d, "maxThreadsPerBlock", -1);
    info.maxThreadsPerMultiprocessor = numberOr(d, "maxThreadsPerMultiprocessor", -1);
    info.regsPerBlock = numberOr(d, "regsPerBlock", -1);
    info.regsPerMultiprocessor = numberOr(d, "regsPerMultiprocessor", -1);
    info.sharedMemPerBlockBytes = numberOr<int64_t>(d, "sharedMemPerBlock", -1);
    info.sharedMemPerMultiprocessorBytes = numberOr<int64_t>(d, "sharedMemPerMultiprocessor", -1);
    return info;
}

void apply(std::string_view key, const json& value, TraceMetadata& m)
{
    if (key == "schemaVersion" && value.is_number_integer()) {
        m.schemaVersion = value.get<int64_t>();
    } else if (key == "baseTimeNanoseconds" && value.is_number()) {
        m.baseTimeNs = value.get<int64_t>();
    } else if (key == "traceName" && value.is_string()) {
        m.traceName = value.get<std::string>();
    } else if (key == "displayTimeUnit" && value.is_string()) {
        m.displayTimeUnit = value.get<std::string>();
    } else if ((key == "deviceProperties" || key == "computeProperties") && value.is_array()) {
        m.devices.clear();
        for (const json& d : value)
            if (d.is_object())
                m.devices.push_back(readDevice(d));
        m.devicesFromComputeProperties = key == "computeProperties";
    } else if (key == "distributedInfo" && value.is_object()) {
        DistributedInfo info;
        if (auto it = value.find("backend"); it != value.end() && it->is_string())
            info.backend = it->get<std::string>();
        info.rank = numberOr(value, "rank", -1);
        info.worldSize = numberOr(value, "world_size", -1);
        m.distributed = info;
    } else if (key.ends_with("_version")) {
        m.versions.emplace_back(std::string(key), textOf(value));
    } else {
        constexpr size_t kMaxKept = 256;
        std::string text = value.dump();
        if (text.size() > kMaxKept)
            text = text.substr(0, kMaxKept) + "...";
        m.otherKeys.emplace_back(std::string(key), std::move(text));
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
