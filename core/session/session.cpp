#include "core/session/session.h"

#include "core/session/atomic_file.h"
#include "core/session/session_json.h"
#include "core/trace/printable.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace kinetoscope::session {

using nlohmann::json;

namespace {

// The session's document with its two long arrays of rows (steps, samples) left empty.
json documentWithoutRows(const Session& s)
{
    json lab = json::array();
    for (const LabArm& a : s.lab)
        lab.push_back(toJson(a));
    json phases = json::array();
    for (const PhaseTiming& p : s.phases)
        phases.push_back(toJson(p));
    json findings = json::array();
    for (const auto& [id, title] : s.findings)
        findings.push_back({{"id", id}, {"title", title}});
    json split = json::object();
    if (s.dataLoaderMs)
        split["dataloader_ms"] = *s.dataLoaderMs;
    if (s.computeMs)
        split["compute_ms"] = *s.computeMs;
    json sweep = json::array();
    for (const SweepPoint& p : s.sweep)
        sweep.push_back(toJson(p));
    json j = {{"kinetoscope_session", kSessionFormat},
              {"config", s.config},
              {"environment", s.environment},
              {"lab", lab},
              {"phases", phases},
              {"split", split},
              // Rows: step, data, h2d, forward, backward, optimizer (ms), loss; then, where
              // measured (CUDA), allocated, reserved, peak allocated, peak reserved (bytes).
              {"steps", json::array()},
              {"sweep", sweep},
              // Rows: seconds, cpu %, gpu %, gpu memory used, allocated, reserved, resident (bytes;
              // -1 n/a).
              {"samples", json::array()},
              {"trace", s.tracePath},
              {"memory_snapshot", s.snapshotPath},
              {"findings", findings}};
    if (!s.interrupted.empty())
        j["interrupted"] = s.interrupted;
    if (s.memory)
        j["memory"] = toJson(*s.memory);
    return j;
}

// `"KEY": []` at the document's top level (2 spaces in, after a newline: a string's
// newline is escaped, so no value can hold this) replaced by one row a line.
template <class Row>
void spliceRows(std::string& text, std::string_view key, const std::vector<Row>& rows)
{
    const std::string empty = "\n  \"" + std::string(key) + "\": []";
    const size_t at = text.find(empty);
    if (at == std::string::npos || rows.empty())
        return;
    std::string lines = "\n  \"" + std::string(key) + "\": [";
    lines.reserve(rows.size() * 80);
    for (size_t i = 0; i < rows.size(); ++i) {
        lines += i == 0 ? "\n    " : ",\n    ";
        lines += toJson(rows[i]).dump(-1, ' ', false, json::error_handler_t::replace);
    }
    lines += "\n  ]";
    text.replace(at, empty.size(), lines);
}

Session fromJson(const json& j)
{
    Session s;
    s.config = j.value("config", std::map<std::string, std::string>{});
    s.environment = j.value("environment", std::map<std::string, std::string>{});
    for (const json& a : j.value("lab", json::array()))
        s.lab.push_back(labArmFrom(a));
    for (const json& p : j.value("phases", json::array()))
        s.phases.push_back(phaseTimingFrom(p));
    const json split = j.value("split", json::object());
    if (split.contains("dataloader_ms"))
        s.dataLoaderMs = split["dataloader_ms"].get<double>();
    if (split.contains("compute_ms"))
        s.computeMs = split["compute_ms"].get<double>();
    // Rows of 7 values (the CPU's), 11 (with CUDA memory) or 12 (with the step's wall time);
    // rows of another length (a later format's) are left out, not an error.
    for (const json& t : j.value("steps", json::array()))
        if (t.is_array() && (t.size() == 7 || t.size() == 11 || t.size() == 12))
            s.steps.push_back(stepTimingFrom(t));
    for (const json& p : j.value("sweep", json::array()))
        s.sweep.push_back(sweepPointFrom(p));
    for (const json& l : j.value("samples", json::array()))
        if (l.is_array() && l.size() == 7)
            s.samples.push_back(liveSampleFrom(l));
    s.tracePath = j.value("trace", "");
    s.snapshotPath = j.value("memory_snapshot", "");
    for (const json& f : j.value("findings", json::array()))
        s.findings.emplace_back(f.value("id", ""), f.value("title", ""));
    s.interrupted = j.value("interrupted", "");
    if (j.contains("memory"))
        s.memory = memoryTriageFrom(j["memory"]);
    return s;
}

}  // namespace

const char* armName(ArmKind kind)
{
    switch (kind) {
    case ArmKind::Fp32:
        return "fp32";
    case ArmKind::Bf16:
        return "bf16";
    case ArmKind::Bf16CudaGraph:
        return "bf16+cuda-graph";
    case ArmKind::Bf16Compile:
        return "bf16+compile";
    }
    return "fp32";
}

std::optional<ArmKind> parseArmKind(std::string_view name)
{
    for (ArmKind kind :
         {ArmKind::Fp32, ArmKind::Bf16, ArmKind::Bf16CudaGraph, ArmKind::Bf16Compile})
        if (name == armName(kind))
            return kind;
    return std::nullopt;
}

bool Session::inference() const
{
    const auto it = config.find("mode");
    return it != config.end() && it->second == "inference";
}

bool isSessionPath(const std::filesystem::path& path)
{
    return path.filename().string().ends_with(kSessionSuffix);
}

std::string sessionJson(const Session& session)
{
    // Indented, with the long arrays one row a line: a long run's session (100,000 steps) is
    // built without a node per value, and is about half the size.
    std::string text =
        documentWithoutRows(session).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    spliceRows(text, "steps", session.steps);
    spliceRows(text, "samples", session.samples);
    return text;
}

bool saveSession(const Session& session, const std::filesystem::path& path, std::string& error)
{
    return writeFileAtomically(path, sessionJson(session), error);
}

std::optional<Session> parseSession(std::string_view text, const std::string& origin,
                                    std::string& error)
{
    const json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
        error = "not a session: " + origin + " is not valid JSON";
        return std::nullopt;
    }
    if (!j.is_object() || !j.contains("kinetoscope_session")) {
        error = "not a session: " + origin + " has no \"kinetoscope_session\" key";
        return std::nullopt;
    }
    const json& format = j["kinetoscope_session"];
    const bool newer =
        !format.is_number_integer() ||
        (format.is_number_unsigned() ? format.get<uint64_t>() > uint64_t(kSessionFormat)
                                     : format.get<int64_t>() > kSessionFormat);
    if (newer) {
        error =
            "session format " +
            trace::printableExcerpt(format.dump(-1, ' ', false, json::error_handler_t::replace)) +
            " is newer than this Kinetoscope reads";
        return std::nullopt;
    }
    try {
        return fromJson(j);
    } catch (const std::exception& e) {  // json::exception, or integerOf's invalid_argument
        error = "malformed session: " + trace::printableExcerpt(e.what(), 160);
        return std::nullopt;
    }
}

std::optional<Session> loadSession(const std::filesystem::path& path, std::string& error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "no such session file: " + path.string();
        return std::nullopt;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) {
        error = "cannot read the session file " + path.string();
        return std::nullopt;
    }
    return parseSession(text, path.string(), error);
}

namespace {

// A file the session names, beside the session when relative; compressed after the run
// (gzip trace.json) it is still the session's.
std::filesystem::path besideSession(const std::string& named,
                                    const std::filesystem::path& sessionPath)
{
    std::filesystem::path file(named);
    if (file.empty())
        return file;
    if (!file.is_absolute())
        file = sessionPath.parent_path() / file;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) {
        std::filesystem::path gzipped = file;
        gzipped += ".gz";
        if (std::filesystem::exists(gzipped, ec))
            return gzipped;
    }
    return file;
}

}  // namespace

std::string noTraceAdvice(const Session& session)
{
    const auto window = session.config.find("window");
    if (window == session.config.end())
        return kNoTraceAdvice;
    return "the profiler window was " + window->second +
           "; a process has one profiler session: --skip and --active place the window "
           "elsewhere";
}

std::filesystem::path snapshotOf(const Session& session, const std::filesystem::path& sessionPath)
{
    return besideSession(session.snapshotPath, sessionPath);
}

std::filesystem::path traceOf(const Session& session, const std::filesystem::path& sessionPath)
{
    return besideSession(session.tracePath, sessionPath);
}

}  // namespace kinetoscope::session
