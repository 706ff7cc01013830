// Which files make a job, and the rank a file's name gives.
#include "core/document/trace_folder.h"
#include "core/job/digest.h"
#include "core/job/job.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

namespace kinetoscope::job {

namespace fs = std::filesystem;

namespace {

// A profiled job's folder (kinetoscope profile --nproc, torchrun, srun): a rank-K folder per
// rank, each with its session (which names its trace) or, before the launcher saved one, its
// trace alone, or only the digest written from them (the traces left on the nodes). In rank
// order; empty when the folder holds no rank folder.
std::vector<std::string> rankFolderFiles(const fs::path& folder)
{
    std::vector<std::pair<int, std::string>> ranks;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with("rank-") || !entry.is_directory(ec))
            continue;
        const int rank = rankFromFileName(name);
        for (const char* file : {"session.kinetoscope.json", "trace.json", kRankDigestName})
            if (fs::is_regular_file(entry.path() / file, ec)) {
                ranks.emplace_back(rank, (entry.path() / file).string());
                break;
            }
    }
    std::sort(ranks.begin(), ranks.end());
    std::vector<std::string> files;
    files.reserve(ranks.size());
    for (auto& [rank, file] : ranks)
        files.push_back(std::move(file));
    return files;
}

// Every trace of a folder, by name; a loose digest (TRACE.digest.json) stands for its trace
// when the trace is not there. torch.profiler's other outputs are left out (`skipped`).
std::vector<std::string> folderTraces(const fs::path& folder, const document::TraceFolder& found,
                                      std::vector<std::string>* skipped)
{
    if (skipped)
        for (std::string& note : document::skippedNotes(found))
            skipped->push_back(folder.string() + ": " + note);
    std::vector<std::string> traces = found.traces, digests;
    traces.insert(traces.end(), found.sessions.begin(), found.sessions.end());
    std::sort(traces.begin(), traces.end());
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec))
        if (entry.is_regular_file(ec) && entry.path().filename().string().ends_with(kDigestSuffix))
            digests.push_back(entry.path().string());
    std::vector<std::pair<std::string, std::string>> byTrace;  // (the trace's name, the file)
    byTrace.reserve(traces.size() + digests.size());
    for (const std::string& t : traces)
        byTrace.emplace_back(t, t);
    for (const std::string& d : digests) {
        const std::string trace = d.substr(0, d.size() - std::string_view(kDigestSuffix).size());
        if (!std::binary_search(traces.begin(), traces.end(), trace))
            byTrace.emplace_back(trace, d);
    }
    std::sort(byTrace.begin(), byTrace.end());
    std::vector<std::string> files;
    files.reserve(byTrace.size());
    for (auto& [trace, file] : byTrace)
        files.push_back(std::move(file));
    return files;
}

}  // namespace

int rankFromFileName(std::string_view name)
{
    for (std::string_view prefix : {"worker", "rank"}) {
        for (size_t at = name.find(prefix); at != std::string_view::npos;
             at = name.find(prefix, at + 1)) {
            size_t i = at + prefix.size();
            while (i < name.size() && (name[i] == '-' || name[i] == '_'))
                ++i;
            int rank = -1;
            const auto [end, error] =
                std::from_chars(name.data() + i, name.data() + name.size(), rank);
            if (error == std::errc() && end != name.data() + i && rank >= 0)
                return rank;
        }
    }
    return -1;
}

int rankFromPath(const std::string& file)
{
    const fs::path path(file);
    const int fromName = rankFromFileName(path.filename().string());
    return fromName >= 0 ? fromName : rankFromFileName(path.parent_path().filename().string());
}

std::vector<std::string> jobFiles(const std::vector<std::string>& paths, std::string& error,
                                  std::vector<std::string>* skipped)
{
    std::vector<std::string> files;
    for (const std::string& path : paths) {
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            if (std::vector<std::string> ranks = rankFolderFiles(path); !ranks.empty()) {
                files.insert(files.end(), ranks.begin(), ranks.end());
                continue;
            }
            const std::vector<std::string> inFolder =
                folderTraces(path, document::readTraceFolder(path), skipped);
            if (inFolder.empty()) {
                std::string holds;
                document::folderFile(path, holds);  // what the folder holds instead
                error = path;
                error += ": ";
                error += holds;
                return {};
            }
            files.insert(files.end(), inFolder.begin(), inFolder.end());
        } else if (fs::exists(path, ec)) {
            files.push_back(path);
        } else {
            error = path + ": no such file or folder";
            return {};
        }
    }
    return files;
}

bool isJob(const std::vector<std::string>& paths)
{
    std::error_code ec;
    if (paths.size() != 1)
        return paths.size() > 1;
    // A folder of one trace is that trace (a tensorboard_trace_handler folder of one run),
    // and one with none is said to hold none by the trace's path.
    if (!fs::is_directory(paths[0], ec))
        return false;
    if (!rankFolderFiles(paths[0]).empty())
        return true;
    // kinetoscope profile's own folder (its session beside the trace it names) is a run.
    const document::TraceFolder found = document::readTraceFolder(paths[0]);
    if (found.sessions.size() == 1)
        return false;
    // A digest alone stands for a rank whose trace is elsewhere: a job of it.
    const std::vector<std::string> files = folderTraces(paths[0], found, nullptr);
    return files.size() > 1 || (files.size() == 1 && isDigestPath(files.front()));
}

}  // namespace kinetoscope::job
