#include "core/session/session.h"

#include "core/trace/json_integer.h"
#include "core/trace/printable.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <stdexcept>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <unistd.h>

namespace kinetoscope::session {

using nlohmann::json;

namespace {

json toJson(const Session& s)
{
    json lab = json::array();
    for (const LabArm& a : s.lab)
        lab.push_back({{"name", a.name}, {"ran", a.ran}, {"skipped_reason", a.skippedReason},
                       {"samples_per_second", a.samplesPerSecond}, {"mean_step_ms", a.meanStepMs},
                       {"peak_allocated_bytes", a.peakAllocatedBytes}});
    json phases = json::array();
    for (const PhaseTiming& p : s.phases)
        phases.push_back({{"phase", p.phase}, {"mean_ms", p.meanMs}, {"std_ms", p.stdMs}, {"median_ms", p.medianMs},
                          {"p95_ms", p.p95Ms}, {"p99_ms", p.p99Ms}});
    json findings = json::array();
    for (const auto& [id, title] : s.findings)
        findings.push_back({{"id", id}, {"title", title}});
    json split = json::object();
    if (s.dataLoaderMs)
        split["dataloader_ms"] = *s.dataLoaderMs;
    if (s.computeMs)
        split["compute_ms"] = *s.computeMs;
    json steps = json::array();
    for (const StepTiming& t : s.steps)
        steps.push_back({t.step, t.dataMs, t.h2dMs, t.forwardMs, t.backwardMs, t.optimizerMs, t.loss});
    json sweep = json::array();
    for (const SweepPoint& p : s.sweep)
        sweep.push_back({{"knob", p.knob}, {"value", p.value}, {"samples_per_second", p.samplesPerSecond},
                         {"data_wait_ms", p.dataWaitMs}, {"error", p.error}});
    json samples = json::array();
    for (const LiveSample& l : s.samples)
        samples.push_back({l.seconds, l.cpuPercent, l.gpuPercent, l.gpuMemoryUsedBytes, l.allocatedBytes,
                           l.reservedBytes, l.residentBytes});
    return {{"kinetoscope_session", kSessionFormat},
            {"config", s.config},
            {"environment", s.environment},
            {"lab", lab},
            {"phases", phases},
            {"split", split},
            // Rows: step, data, h2d, forward, backward, optimizer (ms), loss.
            {"steps", steps},
            {"sweep", sweep},
            // Rows: seconds, cpu %, gpu %, gpu memory used, allocated, reserved, resident (bytes; -1 n/a).
            {"samples", samples},
            {"trace", s.tracePath},
            {"findings", findings}};
}

// An integer field: a JSON integer, or a float with an integral value, inside int64.
// Anything else makes the session malformed (a float such as 1e23 would not fit).
int64_t integerOf(const json& v, const char* field)
{
    if (const std::optional<int64_t> value = trace::integerWithin(v, INT64_MIN, INT64_MAX))
        return *value;
    throw std::invalid_argument(std::string(field) + " is not an integer within int64");
}

int64_t integerOr(const json& object, const char* key, int64_t fallback)
{
    const auto it = object.find(key);
    return it == object.end() ? fallback : integerOf(*it, key);
}

Session fromJson(const json& j)
{
    Session s;
    s.config = j.value("config", std::map<std::string, std::string>{});
    s.environment = j.value("environment", std::map<std::string, std::string>{});
    for (const json& a : j.value("lab", json::array())) {
        LabArm arm;
        arm.name = a.value("name", "");
        arm.ran = a.value("ran", false);
        arm.skippedReason = a.value("skipped_reason", "");
        arm.samplesPerSecond = a.value("samples_per_second", 0.0);
        arm.meanStepMs = a.value("mean_step_ms", 0.0);
        arm.peakAllocatedBytes = integerOr(a, "peak_allocated_bytes", -1);
        s.lab.push_back(arm);
    }
    for (const json& p : j.value("phases", json::array()))
        s.phases.push_back({p.value("phase", ""), p.value("mean_ms", 0.0), p.value("std_ms", 0.0),
                            p.value("median_ms", 0.0), p.value("p95_ms", 0.0), p.value("p99_ms", 0.0)});
    const json split = j.value("split", json::object());
    if (split.contains("dataloader_ms"))
        s.dataLoaderMs = split["dataloader_ms"].get<double>();
    if (split.contains("compute_ms"))
        s.computeMs = split["compute_ms"].get<double>();
    for (const json& t : j.value("steps", json::array()))
        if (t.is_array() && t.size() == 7)
            s.steps.push_back({integerOf(t[0], "step"), t[1].get<double>(), t[2].get<double>(), t[3].get<double>(),
                               t[4].get<double>(), t[5].get<double>(), t[6].get<double>()});
    for (const json& p : j.value("sweep", json::array()))
        s.sweep.push_back({p.value("knob", ""), integerOr(p, "value", 0), p.value("samples_per_second", 0.0),
                           p.value("data_wait_ms", 0.0), p.value("error", "")});
    for (const json& l : j.value("samples", json::array()))
        if (l.is_array() && l.size() == 7)
            s.samples.push_back({l[0].get<double>(), l[1].get<double>(), l[2].get<double>(),
                                 integerOf(l[3], "samples"), integerOf(l[4], "samples"), integerOf(l[5], "samples"),
                                 integerOf(l[6], "samples")});
    s.tracePath = j.value("trace", "");
    for (const json& f : j.value("findings", json::array()))
        s.findings.emplace_back(f.value("id", ""), f.value("title", ""));
    return s;
}

}  // namespace

bool isSessionPath(const std::filesystem::path& path)
{
    return path.filename().string().ends_with(kSessionSuffix);
}

std::string sessionJson(const Session& session)
{
    return toJson(session).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

bool saveSession(const Session& session, const std::filesystem::path& path, std::string& error)
{
    const std::string text = sessionJson(session);
    const std::filesystem::path temporary = path.string() + ".tmp";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        error = "cannot write " + temporary.string() + ": " + std::strerror(errno);
        return false;
    }
    size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0) {
            error = "cannot write " + temporary.string() + ": " + std::strerror(errno);
            ::close(fd);
            std::remove(temporary.c_str());
            return false;
        }
        written += size_t(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        error = "cannot flush " + temporary.string() + ": " + std::strerror(errno);
        std::remove(temporary.c_str());
        return false;
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        error = "cannot replace " + path.string() + ": " + std::strerror(errno);
        std::remove(temporary.c_str());
        return false;
    }
    return true;
}

std::optional<Session> parseSession(std::string_view text, const std::string& origin, std::string& error)
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
    const bool newer = !format.is_number_integer() ||
                       (format.is_number_unsigned() ? format.get<uint64_t>() > uint64_t(kSessionFormat)
                                                    : format.get<int64_t>() > kSessionFormat);
    if (newer) {
        error = "session format " + trace::printableExcerpt(format.dump(-1, ' ', false, json::error_handler_t::replace)) +
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

std::filesystem::path traceOf(const Session& session, const std::filesystem::path& sessionPath)
{
    const std::filesystem::path trace(session.tracePath);
    if (trace.empty() || trace.is_absolute())
        return trace;
    return sessionPath.parent_path() / trace;
}

analysis::LabMeasurements labMeasurementsOf(const Session& session)
{
    analysis::LabMeasurements lab;
    for (const LabArm& arm : session.lab) {
        if (!arm.ran || arm.meanStepMs <= 0)
            continue;
        const double ns = arm.meanStepMs * 1e6;
        if (arm.name == "fp32")
            lab.fp32StepNs = ns;
        else if (arm.name == "bf16")
            lab.bf16StepNs = ns;
        else if (arm.name.starts_with("bf16+"))
            lab.graphedStepNs = ns;
    }
    if (session.dataLoaderMs)
        lab.dataLoaderNs = *session.dataLoaderMs * 1e6;
    if (session.computeMs)
        lab.computeNs = *session.computeMs * 1e6;
    return lab;
}

std::shared_ptr<const analysis::AnalysedTrace> analyseFile(const std::string& path,
                                                           const analysis::SummaryOptions& options,
                                                           const analysis::AnalysisProgress& progress)
{
    if (!isSessionPath(path))
        return analysis::analyseTraceFile(path, options, progress);
    std::string error;
    const std::optional<Session> session = loadSession(path, error);
    if (!session) {
        auto failed = std::make_shared<analysis::AnalysedTrace>();
        failed->path = path;
        failed->loadStatus = trace::LoadStatus::NotFound;
        failed->loadMessage = error;
        return failed;
    }
    const analysis::LabMeasurements lab = labMeasurementsOf(*session);
    const std::filesystem::path trace = traceOf(*session, path);
    if (trace.empty()) {
        auto failed = std::make_shared<analysis::AnalysedTrace>();
        failed->path = path;
        failed->loadStatus = trace::LoadStatus::NotATrace;
        failed->loadMessage = "the session records no trace (run with --profile)";
        return failed;
    }
    auto result = analysis::analyseTraceFile(trace.string(), options, progress, &lab);
    result->sessionPath = path;
    if (!result->model)
        result->loadMessage = "the session's trace " + trace.string() + ": " + result->loadMessage;
    return result;
}

}  // namespace kinetoscope::session
