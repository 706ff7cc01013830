#pragma once
// A Session: what one lab run measured (configuration, environment, the three-run
// baseline, phase timings, the DataLoader-vs-compute split), the trace it wrote and the
// findings at the time, saved as one JSON file (`*.kinetoscope.json`), written
// atomically. Opened by the GUI and by `kinetoscope diagnose|report SESSION`, it feeds
// the lab-aware diagnosis rules.
#include "core/analysis/analysed_trace.h"
#include "core/analysis/diagnosis/diagnosis.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::session {

inline constexpr int kSessionFormat = 1;
inline constexpr const char* kSessionSuffix = ".kinetoscope.json";

struct LabArm
{
    std::string name;           // "fp32", "bf16", "bf16+cuda-graph"
    bool ran = false;
    std::string skippedReason;  // why it did not run ("needs a GPU", "out of memory at batch 512")
    double samplesPerSecond = 0.0;
    double meanStepMs = 0.0;
    int64_t peakAllocatedBytes = -1;
};

struct PhaseTiming
{
    std::string phase;  // "data", "h2d", "forward", "backward", "optimizer"
    double meanMs = 0, stdMs = 0, medianMs = 0, p95Ms = 0, p99Ms = 0;
};

struct Session
{
    std::map<std::string, std::string> config;       // model, dataset, device, batch_size...
    std::map<std::string, std::string> environment;  // device name, driver, torch version
    std::vector<LabArm> lab;
    std::vector<PhaseTiming> phases;
    std::optional<double> dataLoaderMs;  // mean wait for the next batch per step
    std::optional<double> computeMs;     // mean forward + backward + optimizer per step
    std::string tracePath;               // relative to the session file's folder, or absolute
    std::vector<std::pair<std::string, std::string>> findings;  // (id, title) when saved
};

bool isSessionPath(const std::filesystem::path& path);
// Writes to a temporary file in the same folder, flushes it to disk, then renames it over
// `path`: a crash mid-write never leaves a half-written session. False + one-line error.
bool saveSession(const Session& session, const std::filesystem::path& path, std::string& error);
std::optional<Session> loadSession(const std::filesystem::path& path, std::string& error);
// The trace path resolved against the session file's folder.
std::filesystem::path traceOf(const Session& session, const std::filesystem::path& sessionPath);
analysis::LabMeasurements labMeasurementsOf(const Session& session);

// Opens what the user gave: a trace, or a session (its trace analysed with its lab
// measurements). A session that cannot be read comes back with the reason in
// loadMessage and no model, like an unreadable trace.
std::shared_ptr<const analysis::AnalysedTrace> analyseFile(const std::string& path,
                                                           const analysis::SummaryOptions& options = {},
                                                           const analysis::AnalysisProgress& progress = {});

}  // namespace kinetoscope::session
