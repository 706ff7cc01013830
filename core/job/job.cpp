#include "core/job/job.h"

#include "core/format/format.h"
#include "core/job/digest.h"
#include "core/job/median.h"
#include "core/parallel/parallel_for.h"
#include "core/parallel/thread_count.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace kinetoscope::job {

namespace fs = std::filesystem;

namespace {

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

std::optional<Job> openJob(const std::vector<std::string>& files,
                           const document::OpenOptions& options, std::string& error,
                           const JobOptions& how)
{
    const unsigned budget = parallel::resolveThreads(options.threads);
    Job job;
    std::vector<std::optional<Rank>> ranks(files.size());

    // First the digests: a file that is one is read alone (its trace is elsewhere); a
    // file with a fresh one beside it is read from it. Small files: one per thread.
    const bool digests = how.digests && readsAsDigests(options);
    std::vector<std::string> failures(files.size()), notes(files.size());
    std::vector<char> alone(files.size(), 0), passedBy(files.size(), 0);
    parallel::parallelFor(files.size(), budget, [&](size_t i) {
        const std::string& file = files[i];
        std::string why;
        if (isDigestPath(file)) {
            alone[i] = 1;
            if (std::optional<Digest> d = readDigest(file, why))
                ranks[i] = std::move(d->rank);
            else
                failures[i] = why;
            return;
        }
        const std::string digestPath = digestPathFor(file);
        if (!how.digests || !stampOf(digestPath))
            return;
        if (!digests) {
            passedBy[i] = 1;
            return;
        }
        std::optional<Digest> d = readDigest(digestPath, why);
        if (d) {
            if (const std::optional<std::string> stale = whyStale(*d, digestPath, file))
                why = "its digest is stale (" + *stale + ")";
            else
                ranks[i] = std::move(d->rank);
        }
        if (!ranks[i])
            notes[i] = file + ": " + why + ": read from its trace";
    });
    for (size_t i = 0; i < files.size(); ++i) {
        if (!failures[i].empty()) {
            error = failures[i];  // it names the digest
            return std::nullopt;
        }
        if (!notes[i].empty())
            job.notes.push_back(std::move(notes[i]));
    }
    if (std::count(passedBy.begin(), passedBy.end(), 1) > 0)
        job.notes.emplace_back("a step marker or threshold of its own: every rank read from its "
                               "trace (a digest holds the default reading)");
    const size_t alones = size_t(std::count(alone.begin(), alone.end(), 1));
    if (alones > 0)
        job.notes.push_back(format::counted(alones, "rank", "ranks") +
                            " read from the digest alone (the trace is not here: its own "
                            "pages cannot be opened)");

    // Then the traces of the rest. One budget for all of them: as many ranks open at once
    // as it has threads (at most one per trace), each with its share, so the ranks together
    // never run more threads than asked for. A budget of 1 opens them one after another.
    std::vector<size_t> traces;
    for (size_t i = 0; i < files.size(); ++i)
        if (!ranks[i])
            traces.push_back(i);
    const size_t workers = std::clamp<size_t>(budget, 1, std::max<size_t>(1, traces.size()));
    document::OpenOptions each = options;
    each.threads = parallel::shareOf(budget, workers);
    std::vector<std::string> messages(files.size());
    parallel::parallelFor(traces.size(), unsigned(workers), [&](size_t t) {
        const size_t i = traces[t];
        std::shared_ptr<const document::Document> doc = document::open(files[i], each);
        if (!doc->ok() || !doc->model) {
            messages[i] = doc->model || !doc->ok()
                              ? doc->loadMessage
                              : "a lab session recorded without a trace is not a rank's trace";
            return;
        }
        ranks[i] = readRank(std::move(doc), files[i]);
        if (traces.size() > how.keepDocumentsUpTo)
            ranks[i]->doc.reset();
    });
    for (size_t i = 0; i < files.size(); ++i) {
        if (!ranks[i]) {
            error = files[i] + ": " + messages[i];
            return std::nullopt;
        }
        Rank& rank = *ranks[i];
        job.ranksFromDigests += rank.fromDigest ? 1 : 0;
        if (rank.distributedRank >= 0) {
            rank.rank = rank.distributedRank;
            rank.rankSource = "distributedInfo";
            job.worldSize = std::max(job.worldSize, rank.distributedWorldSize);
        } else if (const int fromName = rankFromPath(rank.path); fromName >= 0) {
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
    for (const Rank& r : job.ranks) {
        const int64_t begin = r.steps.at(job.commonSteps.front()).beginNs;
        earliest = std::min(earliest, begin);
        latest = std::max(latest, begin);
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
        if (r.distributedRank < 0 || (worldSize >= 0 && r.distributedWorldSize != worldSize)) {
            everyRankNamed = false;
            break;
        }
        worldSize = r.distributedWorldSize;
        named.insert(r.distributedRank);
    }
    if (everyRankNamed && named.size() == job.ranks.size())
        return std::nullopt;
    const CollectiveMatch& match = job.collectives;
    if (!match.matched.empty() && match.clockSpreadNs < kSameJobClockSpreadNs)
        return std::nullopt;
    int64_t earliest = INT64_MAX, latest = INT64_MIN;
    for (const Rank& r : job.ranks) {
        earliest = std::min(earliest, r.traceBeginNs);
        latest = std::max(latest, r.traceBeginNs);
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

std::optional<Job> openJobPaths(const std::vector<std::string>& paths,
                                const document::OpenOptions& options, std::string& error,
                                const JobOptions& how)
{
    std::vector<std::string> skipped;
    const std::vector<std::string> files = jobFiles(paths, error, &skipped);
    if (files.empty())
        return std::nullopt;
    std::optional<Job> job = openJob(files, options, error, how);
    if (job)
        job->notes.insert(job->notes.begin(), skipped.begin(), skipped.end());
    return job;
}

std::shared_ptr<const document::Document> rankDocument(const Rank& rank,
                                                       const document::OpenOptions& options)
{
    return rank.doc ? rank.doc : document::open(rank.path, options);
}

std::string jobName(const Job& job)
{
    if (job.ranks.empty())
        return "job";
    fs::path folder = fs::path(job.ranks.front().path).parent_path();
    if (rankFromFileName(folder.filename().string()) >= 0 &&
        folder.filename().string().starts_with("rank-"))
        folder = folder.parent_path();  // a profiled job's OUT/rank-K
    return folder.filename().empty() ? "job" : folder.filename().string();
}

}  // namespace kinetoscope::job
