#include "core/lab/engine_protocol.h"

#include "core/session/session_json.h"
#include "core/trace/printable.h"

#include <array>
#include <stdexcept>

namespace kinetoscope::lab {

using nlohmann::json;

namespace {

constexpr std::array<std::pair<MessageType, const char*>, 11> kTypeNames{{
    {MessageType::Hello, "hello"},
    {MessageType::Started, "started"},
    {MessageType::Progress, "progress"},
    {MessageType::Step, "step"},
    {MessageType::Sample, "sample"},
    {MessageType::Arm, "arm"},
    {MessageType::SweepPoint, "sweep_point"},
    {MessageType::Memory, "memory"},
    {MessageType::Saved, "saved"},
    {MessageType::Done, "done"},
    {MessageType::Cancel, "cancel"},
}};

const char* nameOf(MessageType type)
{
    for (const auto& [t, name] : kTypeNames)
        if (t == type)
            return name;
    return "?";
}

std::optional<MessageType> typeNamed(const std::string& name)
{
    for (const auto& [t, n] : kTypeNames)
        if (name == n)
            return t;
    return std::nullopt;
}

}  // namespace

std::string encodeMessage(const EngineMessage& m)
{
    json j = {{"type", nameOf(m.type)}};
    switch (m.type) {
    case MessageType::Hello:
        j["protocol"] = m.protocol;
        j["pid"] = m.pid;
        break;
    case MessageType::Started:
        j["session"] = m.sessionPath;
        j["config"] = m.header.config;
        j["environment"] = m.header.environment;
        break;
    case MessageType::Progress:
        j["stage"] = m.progress.stage;
        j["fraction"] = m.progress.fraction;
        j["step"] = m.progress.step;
        j["steps"] = m.progress.steps;
        break;
    case MessageType::Step:
        j["step"] = session::toJson(m.step);
        break;
    case MessageType::Sample:
        j["sample"] = session::toJson(m.sample);
        break;
    case MessageType::Arm:
        j["arm"] = session::toJson(m.arm);
        break;
    case MessageType::SweepPoint:
        j["point"] = session::toJson(m.sweepPoint);
        break;
    case MessageType::Memory:
        j["memory"] = session::toJson(m.memory);
        break;
    case MessageType::Saved:
        j["session"] = m.sessionPath;
        break;
    case MessageType::Done:
        j["ok"] = m.ok;
        j["error"] = m.error;
        j["session"] = m.sessionPath;
        if (!m.by.empty())
            j["by"] = m.by;
        break;
    case MessageType::Cancel:
        if (!m.by.empty())
            j["by"] = m.by;
        break;
    }
    // dump(-1) escapes control characters: the line never holds a raw newline.
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::optional<EngineMessage> decodeMessage(std::string_view line, std::string& error)
{
    const json j = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
        error = "not a message: " + trace::printableExcerpt(line);
        return std::nullopt;
    }
    const auto type = j.contains("type") && j["type"].is_string()
                          ? typeNamed(j["type"].get<std::string>())
                          : std::nullopt;
    if (!type) {
        error = "a message of no known type: " + trace::printableExcerpt(line);
        return std::nullopt;
    }
    EngineMessage m;
    m.type = *type;
    try {
        switch (m.type) {
        case MessageType::Hello:
            m.protocol = int(session::integerOf(j.at("protocol"), "protocol"));
            m.pid = session::integerOf(j.at("pid"), "pid");
            break;
        case MessageType::Started:
            m.sessionPath = j.at("session").get<std::string>();
            m.header.config = j.value("config", std::map<std::string, std::string>{});
            m.header.environment = j.value("environment", std::map<std::string, std::string>{});
            break;
        case MessageType::Progress:
            m.progress.stage = j.at("stage").get<std::string>();
            m.progress.fraction = j.at("fraction").get<double>();
            m.progress.step = session::integerOf(j.at("step"), "step");
            m.progress.steps = session::integerOf(j.at("steps"), "steps");
            break;
        case MessageType::Step:
            m.step = session::stepTimingFrom(j.at("step"));
            break;
        case MessageType::Sample:
            m.sample = session::liveSampleFrom(j.at("sample"));
            break;
        case MessageType::Arm:
            m.arm = session::labArmFrom(j.at("arm"));
            break;
        case MessageType::SweepPoint:
            m.sweepPoint = session::sweepPointFrom(j.at("point"));
            break;
        case MessageType::Memory:
            m.memory = session::memoryTriageFrom(j.at("memory"));
            break;
        case MessageType::Saved:
            m.sessionPath = j.at("session").get<std::string>();
            break;
        case MessageType::Done:
            m.ok = j.at("ok").get<bool>();
            m.error = j.value("error", "");
            m.sessionPath = j.value("session", "");
            m.by = j.value("by", "");
            break;
        case MessageType::Cancel:
            m.by = j.value("by", "");
            break;
        }
    } catch (const std::exception& e) {  // json::exception or integerOf's invalid_argument
        error = std::string("a malformed \"") + nameOf(m.type) +
                "\" message: " + trace::printableExcerpt(e.what(), 120);
        return std::nullopt;
    }
    return m;
}

}  // namespace kinetoscope::lab
