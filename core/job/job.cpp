#include "core/job/job.h"

#include "core/format/format.h"
#include "core/job/median.h"
#include "core/parallel/thread_count.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <numeric>
#include <set>
#include <thread>

namespace kinetoscope::job {

namespace fs = std::filesystem;

namespace {

bool isTraceName(const std::string& name)
{
    return name.ends_with(".json") || name.ends_with(".json.gz");
}

// A profiled job's folder (kinetoscope profile --nproc, torchrun, srun): a rank-K folder
// per rank, each with its session (which names its trace) or, before the launcher saved
// one, its trace alone. In rank order; empty when the folder holds no rank folder.
std::vector<std::string> rankFolderFiles(const fs::path& folder)
{
    std::vector<std::pair<int, std::string>> ranks;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with("rank-") || !entry.is_directory(ec))
            continue;
        const int rank = rankFromFileName(name);
        for (const char* file : {"session.kinetoscope.json", "trace.json"})
            if (fs::is_regular_file(entry.path() / file, ec)) {
                ranks.emplace_back(rank, (entry.path() / file).string());
                break;
            }
    }
    std::sort(ranks.begin(), ranks.end());
    std::vector<std::string> files;
    for (auto& [rank, file] : ranks)
        files.push_back(std::move(file));
    return files;
}

// The rank a file's name gives, else its folder's ("rank-3/session.kinetoscope.json").
int rankFromPath(const fs::path& file)
{
    const int fromName = rankFromFileName(file.filename().string());
    return fromName >= 0 ? fromName : rankFromFileName(file.parent_path().filename().string());
}

// "ProfilerStep#12" -> 12; nullopt for a step without a number.
std::optional<int64_t> stepNumber(const std::string& name)
{
    const size_t hash = name.rfind('#');
    if (hash == std::string::npos)
        return std::nullopt;
    int64_t n = 0;
    const char* begin = name.data() + hash + 1;
    const char* end = name.data() + name.size();
    const auto [at, error] = std::from_chars(begin, end, n);
    if (error != std::errc() || at != end)
        return std::nullopt;
    return n;
}

// The union of the collectives' spans inside [begin, end): time in communication, hidden
// behind compute or not. `collectives` is in issue order, which on one stream (NCCL) or one
// thread (gloo) is nearly start order; overlaps are merged all the same.
int64_t collectiveTimeWithin(const std::vector<RankCollective>& collectives, int64_t begin,
                             int64_t end)
{
    std::vector<std::pair<int64_t, int64_t>> spans;
    for (const RankCollective& c : collectives) {
        const int64_t from = std::max(begin, c.startNs),
                      to = std::min(end, c.startNs + c.durationNs);
        if (from < to)
            spans.emplace_back(from, to);
    }
    std::sort(spans.begin(), spans.end());
    int64_t total = 0, coveredTo = INT64_MIN;
    for (const auto& [from, to] : spans) {
        const int64_t start = std::max(from, coveredTo);
        if (to > start)
            total += to - start;
        coveredTo = std::max(coveredTo, to);
    }
    return total;
}

Rank readRank(std::shared_ptr<const document::Document> doc,
              std::vector<RankCollective> collectives)
{
    Rank rank;
    rank.doc = std::move(doc);
    rank.collectives = std::move(collectives);
    const analysis::TraceSummary& summary = rank.doc->summary;
    for (size_t i = 0; i < summary.steps.steps.size() && i < summary.breakdown.all.perStep.size();
         ++i) {
        const auto number = stepNumber(summary.steps.steps[i].name);
        if (!number)
            continue;
        const analysis::Step& step = summary.steps.steps[i];
        const analysis::CategoryTimes& times = summary.breakdown.all.perStep[i];
        RankStep& into = rank.steps[*number];
        into = {times, step.durationNs(), times[analysis::TimeCategory::Communication]};
        into.collectiveNs = collectiveTimeWithin(rank.collectives, step.beginNs, step.endNs);
        rank.stepRanges.hostRanges.emplace_back(step.hostBeginNs, step.hostEndNs);
        rank.stepRanges.numbers.push_back(*number);
    }
    return rank;
}

// A rank's mean time per common step in one breakdown category.
double meanCategoryNs(const Job& job, const Rank& rank, analysis::TimeCategory category)
{
    double total = 0;
    for (int64_t n : job.commonSteps)
        total += double(rank.steps.at(n).categories[category]);
    return total / double(job.commonSteps.size());
}

// The category the straggler spends most in beyond the median of the other ranks.
void nameCause(Job& job)
{
    const Rank* straggler = nullptr;
    for (const Rank& r : job.ranks)
        if (r.rank == job.straggler)
            straggler = &r;
    for (size_t c = 0; c < analysis::kTimeCategoryCount; ++c) {
        const auto category = analysis::TimeCategory(c);
        if (category == analysis::TimeCategory::Communication)
            continue;
        std::vector<double> others;
        for (const Rank& r : job.ranks)
            if (&r != straggler)
                others.push_back(meanCategoryNs(job, r, category));
        const double excess = meanCategoryNs(job, *straggler, category) - median(others);
        if (excess > job.stragglerCauseExcessNs) {
            job.stragglerCauseExcessNs = excess;
            job.stragglerCause = std::string(analysis::timeCategoryKey(category));
        }
    }
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

std::vector<std::string> jobFiles(const std::vector<std::string>& paths, std::string& error)
{
    std::vector<std::string> files;
    for (const std::string& path : paths) {
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            if (std::vector<std::string> ranks = rankFolderFiles(path); !ranks.empty()) {
                files.insert(files.end(), ranks.begin(), ranks.end());
                continue;
            }
            std::vector<std::string> inFolder;
            for (const fs::directory_entry& entry : fs::directory_iterator(path, ec))
                if (entry.is_regular_file(ec) && isTraceName(entry.path().filename().string()))
                    inFolder.push_back(entry.path().string());
            if (inFolder.empty()) {
                error = path + ": no trace (*.json, *.json.gz) in this folder";
                return {};
            }
            std::sort(inFolder.begin(), inFolder.end());
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

std::optional<Job> openJob(const std::vector<std::string>& files,
                           const document::OpenOptions& options, std::string& error)
{
    std::vector<std::shared_ptr<const document::Document>> docs(files.size());
    std::vector<std::vector<RankCollective>> collectives(files.size());
    // One budget for the whole job: as many ranks open at once as it has threads (at most
    // one per file), each with its share, so the ranks together never run more threads than
    // asked for. A budget of 1 opens them one after another on this thread.
    const unsigned budget = parallel::resolveThreads(options.threads);
    const size_t workers = std::clamp<size_t>(budget, 1, std::max<size_t>(1, files.size()));
    document::OpenOptions each = options;
    each.threads = parallel::shareOf(budget, workers);
    std::atomic<size_t> next{0};
    auto openRanks = [&] {
        for (size_t i = next++; i < files.size(); i = next++) {
            docs[i] = document::open(files[i], each);
            if (docs[i]->ok() && docs[i]->model)
                collectives[i] = rankCollectives(*docs[i]->model);
        }
    };
    if (workers == 1) {
        openRanks();
    } else {
        std::vector<std::thread> pool;
        for (size_t t = 0; t < workers; ++t)
            pool.emplace_back(openRanks);
        for (std::thread& t : pool)
            t.join();
    }

    Job job;
    for (size_t i = 0; i < docs.size(); ++i) {
        if (!docs[i]->ok() || !docs[i]->model) {
            error = files[i] + ": " +
                    (docs[i]->model || !docs[i]->ok()
                         ? docs[i]->loadMessage
                         : "a lab session recorded without a trace is not a rank's trace");
            return std::nullopt;
        }
        Rank rank = readRank(docs[i], std::move(collectives[i]));
        if (rank.doc->session && !rank.doc->session->interrupted.empty()) {
            rank.failure = rank.doc->session->interrupted;
            const auto end = rank.doc->session->config.find("rank_end");
            rank.stoppedByAnother =
                end != rank.doc->session->config.end() && end->second == "stopped by another";
        }
        if (const auto& distributed = rank.doc->model->metadata().distributed;
            distributed && distributed->rank >= 0) {
            rank.rank = distributed->rank;
            rank.rankSource = "distributedInfo";
            job.worldSize = std::max(job.worldSize, distributed->worldSize);
        } else if (const int fromName = rankFromPath(files[i]); fromName >= 0) {
            rank.rank = fromName;
            rank.rankSource = "file name";
        }
        job.ranks.push_back(std::move(rank));
    }
    // Ranks that neither names take the places after the named ones, in the order given;
    // two files claiming one rank keep the order given too.
    std::vector<int> taken;
    for (const Rank& r : job.ranks)
        if (r.rank >= 0)
            taken.push_back(r.rank);
    std::sort(taken.begin(), taken.end());
    if (std::adjacent_find(taken.begin(), taken.end()) != taken.end()) {
        for (Rank& r : job.ranks) {
            r.rank = -1;
            r.rankSource = "order";
        }
        taken.clear();
    }
    int free = 0;
    for (Rank& r : job.ranks) {
        if (r.rank >= 0)
            continue;
        while (std::binary_search(taken.begin(), taken.end(), free))
            ++free;
        r.rank = free++;
    }
    std::stable_sort(job.ranks.begin(), job.ranks.end(),
                     [](const Rank& a, const Rank& b) { return a.rank < b.rank; });

    std::vector<std::span<const RankCollective>> byRank;
    std::vector<RankSteps> stepsByRank;
    for (const Rank& r : job.ranks) {
        byRank.emplace_back(r.collectives);
        stepsByRank.push_back(r.stepRanges);
    }
    job.collectives = matchCollectives(byRank, stepsByRank, job.worldSize);

    // The steps every rank has.
    for (const auto& entry : job.ranks.front().steps) {
        const int64_t number = entry.first;
        if (std::all_of(job.ranks.begin(), job.ranks.end(),
                        [&](const Rank& r) { return r.steps.count(number) > 0; }))
            job.commonSteps.push_back(number);
    }
    if (job.commonSteps.empty())
        return job;
    std::vector<double> own, step;
    for (const Rank& r : job.ranks) {
        double d = 0, c = 0;
        for (int64_t n : job.commonSteps) {
            d += double(r.steps.at(n).durationNs);
            c += double(r.steps.at(n).communicationNs);
        }
        const double count = double(job.commonSteps.size());
        job.meanStepNs[r.rank] = d / count;
        job.meanCommunicationNs[r.rank] = c / count;
        job.meanOwnNs[r.rank] = (d - c) / count;
        own.push_back((d - c) / count);
        step.push_back(d / count);
    }
    job.medianOwnNs = median(own);
    const double medianStep = median(step);
    for (const auto& [rank, ns] : job.meanOwnNs)
        job.byOwnWork.push_back(rank);
    std::stable_sort(job.byOwnWork.begin(), job.byOwnWork.end(),
                     [&](int a, int b) { return job.meanOwnNs.at(a) > job.meanOwnNs.at(b); });
    if (job.ranks.size() > 1) {
        const double slowest = job.meanOwnNs.at(job.byOwnWork[0]);
        const double second = job.meanOwnNs.at(job.byOwnWork[1]);
        const double excess = slowest - job.medianOwnNs;
        // One rank, standing out from the median and from the next slowest: a straggler.
        // Two or more near the top: an imbalance, not one rank to blame.
        if (excess > kStragglerShare * medianStep && slowest - second >= 0.5 * excess) {
            job.straggler = job.byOwnWork[0];
            job.stragglerExcessNs = excess;
            nameCause(job);
        }
    }
    // How far the hosts' clocks (and launches) were apart at the first common step.
    int64_t earliest = INT64_MAX, latest = INT64_MIN;
    for (const Rank& r : job.ranks)
        for (const analysis::Step& s : r.doc->summary.steps.steps)
            if (stepNumber(s.name) == job.commonSteps.front()) {
                earliest = std::min(earliest, s.beginNs);
                latest = std::max(latest, s.beginNs);
            }
    if (earliest <= latest)
        job.startSpreadNs = double(latest - earliest);
    return job;
}

std::optional<std::string> whyNotOneJob(const Job& job)
{
    if (job.ranks.size() < 2)
        return std::nullopt;
    std::set<int> named;
    int worldSize = -1;
    bool everyRankNamed = true;
    for (const Rank& r : job.ranks) {
        const auto& distributed = r.doc->model->metadata().distributed;
        if (!distributed || distributed->rank < 0 ||
            (worldSize >= 0 && distributed->worldSize != worldSize)) {
            everyRankNamed = false;
            break;
        }
        worldSize = distributed->worldSize;
        named.insert(distributed->rank);
    }
    if (everyRankNamed && named.size() == job.ranks.size())
        return std::nullopt;
    const CollectiveMatch& match = job.collectives;
    if (!match.matched.empty() && match.clockSpreadNs < kSameJobClockSpreadNs)
        return std::nullopt;
    int64_t earliest = INT64_MAX, latest = INT64_MIN;
    for (const Rank& r : job.ranks) {
        earliest = std::min(earliest, r.doc->model->beginNs());
        latest = std::max(latest, r.doc->model->beginNs());
    }
    // Files named as ranks ("rank3", "worker3"), each a different one, profiled together:
    // a job that recorded no collective (CPU activities only, say).
    const bool namedAsRanks = std::all_of(job.ranks.begin(), job.ranks.end(), [](const Rank& r) {
        return std::string_view(r.rankSource) == "file name";
    });
    if (namedAsRanks && latest - earliest < kSameJobClockSpreadNs)
        return std::nullopt;
    std::string reason = "not ranks of one job: ";
    reason += everyRankNamed ? "distributedInfo names the same rank twice"
                             : "no distributedInfo names them ranks of one world";
    reason += match.matched.empty() ? ", no collective matches across them"
                                    : ", their collectives match only on clocks " +
                                          format::duration(match.clockSpreadNs) + " apart";
    if (latest - earliest >= kSameJobClockSpreadNs)
        reason += ", and they start " + format::duration(double(latest - earliest)) + " apart";
    return reason;
}

bool isJob(const std::vector<std::string>& paths)
{
    std::error_code ec;
    return paths.size() > 1 || (paths.size() == 1 && fs::is_directory(paths[0], ec));
}

std::optional<Job> openJobPaths(const std::vector<std::string>& paths,
                                const document::OpenOptions& options, std::string& error)
{
    const std::vector<std::string> files = jobFiles(paths, error);
    return files.empty() ? std::nullopt : openJob(files, options, error);
}

std::string jobName(const Job& job)
{
    if (job.ranks.empty())
        return "job";
    fs::path folder = fs::path(job.ranks.front().doc->path).parent_path();
    if (rankFromFileName(folder.filename().string()) >= 0 &&
        folder.filename().string().starts_with("rank-"))
        folder = folder.parent_path();  // a profiled job's OUT/rank-K
    return folder.filename().empty() ? "job" : folder.filename().string();
}

}  // namespace kinetoscope::job
