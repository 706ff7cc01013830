#include "core/document/trace_folder.h"

#include "core/format/format.h"
#include "core/trace/other_outputs.h"

#include <algorithm>

namespace kinetoscope::document {

namespace fs = std::filesystem;

namespace {

bool isJsonName(const std::string& name)
{
    return name.ends_with(".json") || name.ends_with(".json.gz");
}

// kinetoscope's own files: sessions (*.kinetoscope.json, a rank's digest.kinetoscope.json)
// and digests written beside a trace (TRACE.digest.json).
bool isDigestName(const std::string& name)
{
    return name.ends_with(".digest.json") || name == "digest.kinetoscope.json";
}

std::string listed(const std::vector<std::string>& names, size_t most)
{
    std::string text;
    for (size_t i = 0; i < std::min(names.size(), most); ++i)
        text += (i ? ", " : "") + names[i];
    if (names.size() > most)
        text += " and " + format::count(names.size() - most) + " more";
    return text;
}

bool holdsTrace(const fs::path& folder)
{
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file(ec) && isJsonName(name) && !isDigestName(name) &&
            !name.ends_with(".kinetoscope.json") &&
            trace::otherTorchOutput(trace::fileHead(entry.path())).empty())
            return true;
    }
    return false;
}

}  // namespace

TraceFolder readTraceFolder(const fs::path& folder)
{
    TraceFolder found;
    std::vector<fs::path> below;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_directory(ec)) {
            below.push_back(entry.path());
            continue;
        }
        if (!entry.is_regular_file(ec) || !isJsonName(name) || isDigestName(name))
            continue;
        if (name.ends_with(".kinetoscope.json")) {
            found.sessions.push_back(entry.path().string());
            continue;
        }
        const std::string other = trace::otherTorchOutput(trace::fileHead(entry.path()));
        if (other.empty()) {
            found.traces.push_back(entry.path().string());
            continue;
        }
        std::string said = name;  // "memory_timeline.json (a memory timeline's data ...)"
        said.append(" (").append(other).append(")");
        found.others.push_back(std::move(said));
    }
    // The folders below are looked into only where this one holds nothing to open (a
    // TensorBoard log folder's runs).
    if (found.traces.empty() && found.sessions.empty())
        for (const fs::path& sub : below)
            if (holdsTrace(sub))
                found.subfolders.push_back(sub.filename().string());
    for (auto* names : {&found.traces, &found.sessions, &found.others, &found.subfolders})
        std::sort(names->begin(), names->end());
    return found;
}

std::optional<std::string> folderFile(const fs::path& folder, std::string& error)
{
    const TraceFolder found = readTraceFolder(folder);
    if (found.sessions.size() == 1)
        return found.sessions.front();
    if (found.sessions.empty() && found.traces.size() == 1)
        return found.traces.front();
    if (!found.traces.empty() || !found.sessions.empty()) {
        std::vector<std::string> names;
        for (const auto* files : {&found.sessions, &found.traces})
            for (const std::string& file : *files)
                names.push_back(fs::path(file).filename().string());
        error = "a folder of " + format::count(names.size()) + " traces (" + listed(names, 3) +
                "): open one of them, or the folder as the ranks of one job ('kinetoscope "
                "summary FOLDER'; in the app, File > Open job)";
    } else if (!found.subfolders.empty()) {
        error = "no trace here, but in the folders below it: " + listed(found.subfolders, 4) +
                " (a TensorBoard log folder: open a run's folder)";
    } else if (!found.others.empty()) {
        error = "no trace here, only torch.profiler's other outputs: " + listed(found.others, 2) +
                "; " + std::string(trace::kOpenTheTraceInstead);
    } else {
        error = "no trace (*.json, *.json.gz) in this folder";
    }
    return std::nullopt;
}

std::vector<std::string> skippedNotes(const TraceFolder& folder)
{
    std::vector<std::string> notes;
    notes.reserve(folder.others.size());
    for (const std::string& other : folder.others)
        notes.push_back("skipped " + other);
    return notes;
}

}  // namespace kinetoscope::document
