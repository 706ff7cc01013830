#include "core/job/digest.h"

#include "core/session/atomic_file.h"
#include "core/session/session.h"

#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

namespace kinetoscope::job {

namespace fs = std::filesystem;
using Written = nlohmann::ordered_json;  // a digest's fields in the order a reader meets them

namespace {

bool inRankFolder(const fs::path& file)
{
    const std::string name = file.filename().string();
    return (name == "session.kinetoscope.json" || name == "trace.json") &&
           file.parent_path().filename().string().starts_with("rank-");
}

// A file's path as a digest in `folder` names it: its name when it is in that folder, else
// the whole path.
std::string namedFrom(const fs::path& folder, const std::string& file)
{
    const fs::path path(file);
    std::error_code ec;
    if (fs::equivalent(path.parent_path().empty() ? fs::path(".") : path.parent_path(),
                       folder.empty() ? fs::path(".") : folder, ec))
        return path.filename().string();
    const fs::path absolute = fs::absolute(path, ec);
    return ec ? file : absolute.lexically_normal().string();
}

Written stampJson(const fs::path& folder, const FileStamp& stamp)
{
    return {
        {"path", namedFrom(folder, stamp.path)}, {"size", stamp.size}, {"mtime_ns", stamp.mtimeNs}};
}

Written stepJson(int64_t number, const RankStep& s, const std::pair<int64_t, int64_t>& host)
{
    Written categories = Written::object();
    for (size_t c = 0; c < analysis::kTimeCategoryCount; ++c)
        categories[std::string(analysis::timeCategoryKey(analysis::TimeCategory(c)))] =
            s.categories.ns[c];
    return {{"step", number},
            {"begin_ns", s.beginNs},
            {"end_ns", s.endNs},
            {"host_begin_ns", host.first},
            {"host_end_ns", host.second},
            {"duration_ns", s.durationNs},
            {"communication_ns", s.communicationNs},
            {"collective_ns", s.collectiveNs},
            {"total_ns", s.categories.totalNs},
            {"categories", std::move(categories)}};
}

// A collective as one row of the digest's collectives table (kDigestCollectiveColumns).
Written collectiveRow(const RankCollective& c)
{
    return Written::array({collectiveKindName(c.kind), c.group, c.groupSize, c.startNs,
                           c.durationNs, c.hostNs, c.bytes, c.onDevice});
}

const char* basisKey(analysis::SeverityBasis basis)
{
    switch (basis) {
    case analysis::SeverityBasis::Gain:
        return "gain";
    case analysis::SeverityBasis::DeviceGain:
        return "device_gain";
    case analysis::SeverityBasis::Own:
        break;
    }
    return "rule";
}

Written findingJson(const analysis::Finding& f)
{
    return {{"id", f.id},
            {"severity", analysis::severityName(f.severity)},
            {"severity_from", basisKey(f.basis)},
            {"title", f.title},
            {"estimated_gain_ns", f.estimatedGainNs},
            {"measured", f.measured},
            {"per_batch", f.perBatch},
            {"about_window", f.aboutWindow}};
}

}  // namespace

std::string digestPathFor(const std::string& rankFile)
{
    const fs::path file(rankFile);
    if (inRankFolder(file))
        return (file.parent_path() / kRankDigestName).string();
    return rankFile + kDigestSuffix;
}

bool isDigestPath(const std::string& path)
{
    return path.ends_with(kDigestSuffix) || fs::path(path).filename() == kRankDigestName;
}

std::optional<FileStamp> stampOf(const std::string& path)
{
    struct stat st
    {
    };
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return std::nullopt;
    FileStamp stamp;
    stamp.path = path;
    stamp.size = int64_t(st.st_size);
    stamp.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + int64_t(st.st_mtim.tv_nsec);
    return stamp;
}

std::string digestJson(const Rank& rank, const FileStamp& rankFile, const FileStamp& trace)
{
    const fs::path folder = fs::path(digestPathFor(rankFile.path)).parent_path();
    Written steps = Written::array();
    for (size_t i = 0; i < rank.stepRanges.numbers.size(); ++i) {
        const int64_t number = rank.stepRanges.numbers[i];
        steps.push_back(stepJson(number, rank.steps.at(number), rank.stepRanges.hostRanges[i]));
    }
    Written rows = Written::array();
    for (const RankCollective& c : rank.collectives)
        rows.push_back(collectiveRow(c));
    Written collectives = {{"columns", kDigestCollectiveColumns}, {"rows", std::move(rows)}};
    Written findings = Written::array();
    for (const analysis::Finding& f : rank.findings)
        findings.push_back(findingJson(f));
    Written j = {{"format", std::string(kDigestFormatName) + "/" + std::to_string(kDigestMajor) +
                                "." + std::to_string(kDigestMinor)},
                 {"rank_file", stampJson(folder, rankFile)},
                 {"trace", stampJson(folder, trace)}};
    j["distributed"] =
        rank.distributedRank >= 0 || rank.distributedWorldSize >= 0
            ? Written{{"rank", rank.distributedRank}, {"world_size", rank.distributedWorldSize}}
            : Written();
    j["device"] = rank.device;
    j["trace_begin_ns"] = rank.traceBeginNs;
    j["session_steps"] = rank.sessionSteps;
    if (!rank.failure.empty())
        j["failure"] = {{"reason", rank.failure}, {"stopped_by_another", rank.stoppedByAnother}};
    j["steps"] = std::move(steps);
    j["collectives"] = std::move(collectives);
    j["findings"] = std::move(findings);
    return j.dump(-1, ' ', false, Written::error_handler_t::replace) + "\n";
}

bool readsAsDigests(const document::OpenOptions& options)
{
    return options.summary.steps.marker == analysis::StepOptions{}.marker &&
           options.thresholds.describe() == analysis::Thresholds{}.describe();
}

std::optional<std::string> writeRankDigest(const std::string& rankFile, std::string& error,
                                           unsigned threads)
{
    // Stamped before reading: a file that changes while it is read leaves a stale digest.
    const std::optional<FileStamp> rankStamp = stampOf(rankFile);
    if (!rankStamp) {
        error = rankFile + ": no such file";
        return std::nullopt;
    }
    std::optional<FileStamp> traceStamp = rankStamp;
    if (session::isSessionPath(rankFile)) {
        const std::optional<session::Session> saved = session::loadSession(rankFile, error);
        if (!saved) {
            error = rankFile + ": " + error;
            return std::nullopt;
        }
        const std::string trace = session::traceOf(*saved, rankFile).string();
        traceStamp = trace.empty() ? std::nullopt : stampOf(trace);
        if (!traceStamp) {
            error = rankFile + ": " +
                    (trace.empty() ? std::string("a session recorded without a trace has no "
                                                 "rank's trace to digest")
                                   : "its trace " + trace + " is not there");
            return std::nullopt;
        }
    }
    document::OpenOptions options;
    options.threads = threads;
    const std::shared_ptr<const document::Document> doc = document::open(rankFile, options);
    if (!doc->ok() || !doc->model) {
        error = rankFile + ": " +
                (!doc->ok() ? doc->loadMessage
                            : "a lab session recorded without a trace is not a rank's trace");
        return std::nullopt;
    }
    const Rank rank = readRank(doc, rankFile);
    std::string path = digestPathFor(rankFile);
    if (!session::writeFileAtomically(path, digestJson(rank, *rankStamp, *traceStamp), error)) {
        error = path + ": " + error;
        return std::nullopt;
    }
    return path;
}

std::optional<std::string> whyStale(const Digest& digest, const std::string& digestPath,
                                    const std::string& rankFile)
{
    if (fs::path(digest.rankFile.path).filename() != fs::path(rankFile).filename())
        return "it was written from " + fs::path(digest.rankFile.path).filename().string() +
               ", not " + fs::path(rankFile).filename().string();
    const std::optional<FileStamp> digestStamp = stampOf(digestPath);
    const std::pair<const FileStamp*, std::string> sources[] = {{&digest.rankFile, rankFile},
                                                                {&digest.trace, digest.trace.path}};
    for (const auto& [recorded, path] : sources) {
        const std::optional<FileStamp> now = stampOf(path);
        const std::string name = fs::path(path).filename().string();
        if (!now)
            return name + " is not there any more";
        if (now->size != recorded->size || now->mtimeNs != recorded->mtimeNs)
            return name + " changed since the digest was written";
        if (digestStamp && digestStamp->mtimeNs < now->mtimeNs)
            return "the digest is older than " + name;
    }
    return std::nullopt;
}

}  // namespace kinetoscope::job
