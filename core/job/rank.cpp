// One rank of a job read from its analysed document: the one reading its digest is written
// from (digest.cpp) and a job opened from traces uses.
#include "core/job/job.h"
#include "core/job/rank_read.h"

#include <algorithm>
#include <charconv>

namespace kinetoscope::job {

namespace {

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

}  // namespace

namespace detail {

void addStep(Rank& rank, int64_t number, const RankStep& step, int64_t hostBeginNs,
             int64_t hostEndNs)
{
    rank.steps[number] = step;
    rank.stepRanges.hostRanges.emplace_back(hostBeginNs, hostEndNs);
    rank.stepRanges.numbers.push_back(number);
}

}  // namespace detail

Rank readRank(std::shared_ptr<const document::Document> doc, const std::string& file)
{
    Rank rank;
    rank.path = file;
    const trace::TraceModel& model = *doc->model;
    rank.collectives = rankCollectives(model);
    const trace::TraceMetadata& metadata = model.metadata();
    if (metadata.distributed) {
        rank.distributedRank = metadata.distributed->rank;
        rank.distributedWorldSize = metadata.distributed->worldSize;
    }
    if (!metadata.devices.empty())
        rank.device = metadata.devices.front().name;
    rank.traceBeginNs = model.beginNs();
    const analysis::TraceSummary& summary = doc->summary;
    for (size_t i = 0; i < summary.steps.steps.size() && i < summary.breakdown.all.perStep.size();
         ++i) {
        const auto number = stepNumber(summary.steps.steps[i].name);
        if (!number)
            continue;
        const analysis::Step& step = summary.steps.steps[i];
        const analysis::CategoryTimes& times = summary.breakdown.all.perStep[i];
        RankStep into;
        into.categories = times;
        into.beginNs = step.beginNs;
        into.endNs = step.endNs;
        into.durationNs = step.durationNs();
        into.communicationNs = times[analysis::TimeCategory::Communication];
        into.collectiveNs = collectiveTimeWithin(rank.collectives, step.beginNs, step.endNs);
        detail::addStep(rank, *number, into, step.hostBeginNs, step.hostEndNs);
    }
    rank.findings = doc->findings;
    if (doc->session) {
        rank.sessionSteps = doc->session->steps.size();
        if (!doc->session->interrupted.empty()) {
            rank.failure = doc->session->interrupted;
            const auto end = doc->session->config.find("rank_end");
            rank.stoppedByAnother =
                end != doc->session->config.end() && end->second == "stopped by another";
        }
    }
    rank.doc = std::move(doc);
    return rank;
}

}  // namespace kinetoscope::job
