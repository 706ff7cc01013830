#include "app/cli/job_report.h"

#include "app/cli/diagnose_report.h"
#include "core/analysis/diagnosis/finding_text.h"
#include "core/format/format.h"
#include "core/job/job_text.h"
#include "core/scaling/scaling.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

namespace kinetoscope::cli {

using nlohmann::json;

namespace {

double us(double ns)
{
    return ns / 1000.0;
}

double meanHiddenNs(const job::Job& job, const job::Rank& r)
{
    double total = 0;
    for (int64_t n : job.commonSteps)
        total += double(r.steps.at(n).hiddenNs());
    return job.commonSteps.empty() ? 0.0 : total / double(job.commonSteps.size());
}

int64_t longestWait(const job::MatchedCollective& m, size_t* rankIndex = nullptr)
{
    const auto at = std::max_element(m.waitNs.begin(), m.waitNs.end());
    if (rankIndex)
        *rankIndex = size_t(at - m.waitNs.begin());
    return at == m.waitNs.end() ? 0 : *at;
}

std::string collectiveName(const job::MatchedCollective& m)
{
    return std::string(job::collectiveKindName(m.kind)) + " #" + std::to_string(m.ordinal) +
           (m.group.empty() ? std::string() : " (group " + m.group + ")");
}

// "all_to_all 5, all_reduce 3"
std::string kindsLine(const job::CollectiveMatch& match)
{
    std::map<std::string, size_t> kinds;
    for (const job::MatchedCollective& m : match.matched)
        ++kinds[job::collectiveKindName(m.kind)];
    std::vector<std::pair<size_t, std::string>> byCount;
    byCount.reserve(kinds.size());
    for (const auto& [name, count] : kinds)
        byCount.emplace_back(count, name);
    std::stable_sort(byCount.begin(), byCount.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string line;
    for (const auto& [count, name] : byCount)
        line += (line.empty() ? "" : ", ") + name + " " + format::count(count);
    return line;
}

json collectivesJson(const job::Job& job)
{
    const job::CollectiveMatch& match = job.collectives;
    json list = json::array();
    for (const job::MatchedCollective& m : match.matched) {
        json waits = json::array(), durations = json::array();
        for (size_t r = 0; r < m.ranks.size(); ++r) {
            waits.push_back(us(double(m.waitNs[r])));
            durations.push_back(us(double(m.ranks[r].durationNs)));
        }
        json row = {{"kind", job::collectiveKindName(m.kind)},
                    {"group", m.group},
                    {"ordinal", m.ordinal},
                    {"group_size", m.groupSize},
                    {"bytes", m.bytes},
                    {"sizes_agree", m.sizesAgree},
                    {"duration_us", durations},
                    {"transfer_us", us(double(m.transferNs))},
                    {"wait_us", waits},
                    {"last_to_arrive", job.ranks[size_t(m.lastToArrive)].rank},
                    {"algorithm_GBps", m.algorithmBytesPerS / 1e9},
                    {"bus_GBps", m.busBytesPerS / 1e9}};
        row["step"] = m.step ? json(*m.step) : json();
        list.push_back(std::move(row));
    }
    json offsets = json::array(), counts = json::array(), last = json::array();
    for (size_t r = 0; r < job.ranks.size(); ++r) {
        offsets.push_back(us(match.clockOffsetNs[r]));
        counts.push_back(match.countPerRank[r]);
        last.push_back(match.lastToArriveCount[r]);
    }
    return {{"matched", match.matched.size()}, {"per_rank", counts},
            {"unmatched", match.unmatched},    {"size_mismatches", match.sizeMismatches},
            {"clock_offset_us", offsets},      {"clock_spread_us", us(match.clockSpreadNs)},
            {"last_to_arrive", last},          {"list", list}};
}

// The matched collectives, longest wait first: where the ranks waited for each other.
std::vector<const job::MatchedCollective*> byLongestWait(const job::CollectiveMatch& match)
{
    std::vector<const job::MatchedCollective*> order;
    order.reserve(match.matched.size());
    for (const job::MatchedCollective& m : match.matched)
        order.push_back(&m);
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
        return longestWait(*a) > longestWait(*b);
    });
    return order;
}

// "8 matched on every rank (all_to_all 5, all_reduce 3), ..." and the clocks' spread.
std::string collectivesLine(const job::CollectiveMatch& match)
{
    std::string line =
        format::count(match.matched.size()) + " matched on every rank (" + kindsLine(match) + ")";
    if (match.unmatched)
        line += ", " + format::count(match.unmatched) + " seen on some ranks only";
    if (match.sizeMismatches)
        line += ", " + format::count(match.sizeMismatches) + " whose sizes differ across ranks";
    return line;
}

std::string clocksLine(const job::CollectiveMatch& match)
{
    return "clocks: up to " + format::duration(match.clockSpreadNs) +
           " apart (each rank's offset is the median difference of the collectives' ends)";
}

constexpr size_t kCollectivesListed = 10;  // the rest are in --json

void collectivesText(const job::Job& job, std::ostream& out)
{
    const job::CollectiveMatch& match = job.collectives;
    if (match.matched.empty()) {
        out << "\nno collective matched across the ranks\n";
        return;
    }
    out << "\ncollectives: " << collectivesLine(match) << "\n" << clocksLine(match) << "\n";
    const auto byWait = byLongestWait(match);
    out << "\ncollective                  step   size        transfer   longest wait       last in "
           "  bus bandwidth\n";
    for (size_t i = 0; i < byWait.size() && i < kCollectivesListed; ++i) {
        const job::MatchedCollective& m = *byWait[i];
        size_t waiter = 0;
        const int64_t wait = longestWait(m, &waiter);
        out << format::padRight(format::clip(collectiveName(m), 26), 26) << "  "
            << format::padLeft(m.step ? std::to_string(*m.step) : "-", 5) << "  "
            << format::padRight(m.bytes >= 0 ? format::bytes(double(m.bytes)) : "-", 10) << "  "
            << format::padLeft(format::duration(double(m.transferNs)), 9) << "  "
            << format::padLeft(format::duration(double(wait)), 9) << " rank "
            << format::padRight(std::to_string(job.ranks[waiter].rank), 3) << "  rank "
            << format::padRight(std::to_string(job.ranks[size_t(m.lastToArrive)].rank), 3) << "  "
            << (m.busBytesPerS > 0 ? format::byteRate(m.busBytesPerS) : "-") << "\n";
    }
    if (byWait.size() > kCollectivesListed)
        out << "(" << byWait.size() - kCollectivesListed << " more in --json)\n";
}

void collectivesMarkdown(const job::Job& job, std::ostream& out)
{
    const job::CollectiveMatch& match = job.collectives;
    out << "\n## Collectives\n\n";
    if (match.matched.empty()) {
        out << "No collective matched across the ranks.\n";
        return;
    }
    out << "Collectives: " << collectivesLine(match) << "; " << clocksLine(match) << ".\n\n"
        << "| Collective | Step | Size | Transfer | Longest wait | Waiting | Last in | Bus "
           "bandwidth |\n"
        << "|---|---:|---:|---:|---:|---:|---:|---:|\n";
    const auto byWait = byLongestWait(match);
    for (size_t i = 0; i < byWait.size() && i < kCollectivesListed; ++i) {
        const job::MatchedCollective& m = *byWait[i];
        size_t waiter = 0;
        const int64_t wait = longestWait(m, &waiter);
        out << "| " << collectiveName(m) << " | " << (m.step ? std::to_string(*m.step) : "-")
            << " | " << (m.bytes >= 0 ? format::bytes(double(m.bytes)) : "-") << " | "
            << format::duration(double(m.transferNs)) << " | " << format::duration(double(wait))
            << " | rank " << job.ranks[waiter].rank << " | rank "
            << job.ranks[size_t(m.lastToArrive)].rank << " | "
            << (m.busBytesPerS > 0 ? format::byteRate(m.busBytesPerS) : "-") << " |\n";
    }
    if (byWait.size() > kCollectivesListed)
        out << "\n"
            << byWait.size() - kCollectivesListed << " more in `kinetoscope summary --json`.\n";
}

// The job's efficiency estimated from its ranks' own work, and its communication time split
// (core/scaling); null without two ranks sharing a step.
json estimateJson(const job::Job& job)
{
    const std::optional<scaling::Estimate> e = scaling::estimateFromJob(job);
    if (!e)
        return nullptr;
    const scaling::LostTime& l = e->split.lost;
    return {{"efficiency", e->efficiency},
            {"estimated_from", "the ranks' own work (own work / step)"},
            {"step_ms", e->split.stepMs},
            {"own_work_ms", e->split.ownWorkMs},
            {"exposed_communication_ms", l.exposedCommunicationMs},
            {"straggler_wait_ms", l.stragglerWaitMs},
            {"imbalance_ms", l.imbalanceMs}};
}

std::string jobHeader(const job::Job& job)
{
    std::ostringstream out;
    out << "job of " << format::counted(job.ranks.size(), "rank");
    if (job.worldSize > 0)
        out << " (world size " << job.worldSize << ")";
    out << ", " << format::counted(job.commonSteps.size(), "common steady step");
    if (!job.commonSteps.empty())
        out << " (#" << job.commonSteps.front() << "–#" << job.commonSteps.back() << ")";
    out << "\n" << job::stragglerLine(job) << "\n";
    if (const std::optional<scaling::Estimate> estimate = scaling::estimateFromJob(job))
        out << scaling::estimateLine(*estimate) << "\n";
    return out.str();
}

// The straggler line, the job's findings, each rank's first finding: Markdown.
std::string findingsSections(const job::Job& job, const std::vector<analysis::Finding>& findings)
{
    std::ostringstream out;
    out << job::stragglerLine(job) << "\n\n";
    if (findings.empty())
        out << job::kNoJobFinding << "\n";
    else
        out << findingsMarkdown(findings);
    out << "\n## Each rank's first finding\n\n| Rank | Finding | Estimated gain |\n|---|---|---|\n";
    for (const job::Rank& r : job.ranks) {
        const analysis::Finding* first = job::firstOwnFinding(r);
        out << "| " << r.rank << " | "
            << (first ? first->title + " (`" + first->id + "`)" : std::string("none")) << " | "
            << (first ? analysis::gainText(*first) : std::string("-")) << " |\n";
    }
    if (const std::string note = job::rankFindingsNote(job); !note.empty())
        out << "\n" << note << "\n";
    return out.str();
}

}  // namespace

std::string jobNotes(const job::Job& job)
{
    std::string lines;
    for (const std::string& note : job.notes)
        lines += "kinetoscope: " + note + "\n";
    return lines;
}

json jobJson(const job::Job& job)
{
    json ranks = json::array();
    for (const job::Rank& r : job.ranks) {
        json row = {{"rank", r.rank},
                    {"rank_from", r.rankSource},
                    {"path", r.path},
                    {"read_from", r.fromDigest ? "digest" : "trace"},
                    {"steps", r.steps.size()}};
        if (job.meanStepNs.count(r.rank)) {
            row["mean_step_us"] = us(job.meanStepNs.at(r.rank));
            row["mean_own_work_us"] = us(job.meanOwnNs.at(r.rank));
            row["mean_exposed_communication_us"] = us(job.meanCommunicationNs.at(r.rank));
            row["mean_hidden_communication_us"] = us(meanHiddenNs(job, r));
        }
        json steps = json::array();
        for (const auto& [number, step] : r.steps)
            steps.push_back({{"step", number},
                             {"duration_us", us(double(step.durationNs))},
                             {"own_work_us", us(double(step.ownNs()))},
                             {"exposed_communication_us", us(double(step.communicationNs))},
                             {"hidden_communication_us", us(double(step.hiddenNs()))}});
        row["per_step"] = std::move(steps);
        ranks.push_back(std::move(row));
    }
    json j = {{"ranks", ranks},
              {"ranks_from_digests", job.ranksFromDigests},
              {"world_size", job.worldSize},
              {"common_steps", job.commonSteps},
              {"step_start_spread_us", us(job.startSpreadNs)},
              {"straggler_line", job::stragglerLine(job)}};
    j["straggler"] = job.straggler ? json(*job.straggler) : json();
    j["straggler_excess_us"] = us(job.stragglerExcessNs);
    j["straggler_cause"] = job.stragglerCause;
    j["straggler_cause_excess_us"] = us(job.stragglerCauseExcessNs);
    j["collectives"] = collectivesJson(job);
    j["scaling_estimate"] = estimateJson(job);
    return {{"job", j}};
}

std::string jobText(const job::Job& job)
{
    std::ostringstream out;
    out << jobHeader(job);
    if (!job.commonSteps.empty())
        out << "step starts differ by up to " << format::duration(job.startSpreadNs)
            << " across ranks (host clocks and launch skew together)\n";
    out << "\nrank  from             mean step   own work   exposed comm  hidden comm  file\n";
    for (const job::Rank& r : job.ranks) {
        const bool has = job.meanStepNs.count(r.rank) > 0;
        auto time = [&](double ns, size_t width) {
            return format::padLeft(has ? format::duration(ns) : "-", width);
        };
        out << format::padLeft(std::to_string(r.rank), 4) << "  "
            << format::padRight(r.rankSource, 15) << "  "
            << time(has ? job.meanStepNs.at(r.rank) : 0, 10) << "  "
            << time(has ? job.meanOwnNs.at(r.rank) : 0, 9) << "  "
            << time(has ? job.meanCommunicationNs.at(r.rank) : 0, 12) << "  "
            << time(has ? meanHiddenNs(job, r) : 0, 11) << "  " << r.path
            << (job.straggler == r.rank ? "  <- straggler" : "") << "\n";
    }
    collectivesText(job, out);
    return out.str();
}

json jobDiagnosisJson(const job::Job& job, const std::vector<analysis::Finding>& findings)
{
    json ranks = json::array();
    for (const job::Rank& r : job.ranks) {
        json rank = {{"rank", r.rank},
                     {"path", r.path},
                     {"read_from", r.fromDigest ? "digest" : "trace"},
                     {"findings", findingsJson(r.findings)}};
        if (!r.failure.empty())
            rank["failure"] = {{"reason", r.failure}, {"stopped_by_another", r.stoppedByAnother}};
        ranks.push_back(std::move(rank));
    }
    const job::CollectiveMatch& match = job.collectives;
    return {{"job",
             {{"ranks", job.ranks.size()},
              {"world_size", job.worldSize},
              {"common_steps", job.commonSteps},
              {"collectives",
               {{"matched", match.matched.size()},
                {"unmatched", match.unmatched},
                {"size_mismatches", match.sizeMismatches},
                {"clock_spread_us", match.clockSpreadNs / 1000.0}}},
              {"straggler_line", job::stragglerLine(job)},
              {"scaling_estimate", estimateJson(job)},
              {"findings", findingsJson(findings)},
              {"per_rank", ranks}}}};
}

std::string jobDiagnosisText(const job::Job& job, const std::vector<analysis::Finding>& findings)
{
    std::ostringstream out;
    out << jobHeader(job) << "\n";
    if (findings.empty())
        out << job::kNoJobFinding << "\n\n";
    else
        out << findingsText(findings);
    out << "each rank's first finding (kinetoscope diagnose FILE for the rest):\n";
    for (const job::Rank& r : job.ranks) {
        const analysis::Finding* first = job::firstOwnFinding(r);
        out << "  rank " << r.rank << ": "
            << (first ? first->title + " (" + first->id + ", " + analysis::gainText(*first) + ")"
                      : std::string("no finding"))
            << "\n";
    }
    if (const std::string note = job::rankFindingsNote(job); !note.empty())
        out << note << "\n";
    return out.str();
}

std::string jobDiagnosisMarkdown(const job::Job& job,
                                 const std::vector<analysis::Finding>& findings)
{
    return "# Diagnosis of a job of " + format::counted(job.ranks.size(), "rank") + "\n\n" +
           findingsSections(job, findings);
}

std::string jobReportMarkdown(const job::Job& job, const std::vector<analysis::Finding>& findings,
                              const std::string& name)
{
    std::ostringstream out;
    out << "# Why is this job slow? — " << name << "\n\n"
        << format::counted(job.ranks.size(), "rank");
    if (job.worldSize > 0)
        out << " (world size " << job.worldSize << ")";
    out << ", " << format::counted(job.commonSteps.size(), "common steady step");
    if (!job.commonSteps.empty())
        out << " (#" << job.commonSteps.front() << "–#" << job.commonSteps.back() << ")";
    out << ".\n\n" << findingsSections(job, findings);
    out << "\n## Ranks\n\n| Rank | From | Mean step | Own work | Exposed comm | Hidden comm | File "
           "|\n"
           "|---:|---|---:|---:|---:|---:|---|\n";
    for (const job::Rank& r : job.ranks) {
        const bool has = job.meanStepNs.count(r.rank) > 0;
        auto cell = [&](const std::map<int, double>& means) {
            return has ? format::duration(means.at(r.rank)) : "-";
        };
        out << "| " << r.rank << (job.straggler == r.rank ? " (straggler)" : "") << " | "
            << r.rankSource << " | " << cell(job.meanStepNs) << " | " << cell(job.meanOwnNs)
            << " | " << cell(job.meanCommunicationNs) << " | "
            << (has ? format::duration(meanHiddenNs(job, r)) : "-") << " | `"
            << std::filesystem::path(r.path).filename().string() << "` |\n";
    }
    collectivesMarkdown(job, out);
    return out.str();
}

}  // namespace kinetoscope::cli
