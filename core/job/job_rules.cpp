#include "core/job/job_rules.h"

#include "core/analysis/diagnosis/diagnosis.h"
#include "core/format/format.h"
#include "core/job/median.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace kinetoscope::job {

using analysis::Evidence;
using analysis::Finding;
using analysis::Severity;
using analysis::Unit;

namespace {

constexpr double kNsPerUs = 1000.0;
// Collectives at least this big are bandwidth-bound: below it latency dominates and a low
// bus bandwidth says nothing about the link (nccl-tests reach their plateau from tens of MB).
constexpr int64_t kBandwidthBoundBytes = int64_t(16) << 20;
// Bus bandwidth under this share of the link's peak is slow.
constexpr double kSlowBusShare = 0.25;
// What a well-tuned collective reaches of the link's peak (nccl-tests on NVLink).
constexpr double kAchievableBusShare = 0.8;
// Exposed communication worth a finding: this share of the step and at least 100 us.
constexpr double kExposedShare = 0.05;
constexpr double kExposedMinNs = 100'000;

Severity severityFor(double gainNs, double stepNs)
{
    const double share = stepNs > 0 ? gainNs / stepNs : 0.0;
    return share >= 0.10 ? Severity::High : share >= 0.03 ? Severity::Medium : Severity::Low;
}

std::string rankName(int rank)
{
    return "rank " + std::to_string(rank);
}

double medianStepNs(const Job& job)
{
    std::vector<double> steps;
    steps.reserve(job.meanStepNs.size());
    for (const auto& [rank, ns] : job.meanStepNs)
        steps.push_back(ns);
    return median(std::move(steps));
}

const Rank& rankOf(const Job& job, int rank)
{
    for (const Rank& r : job.ranks)
        if (r.rank == rank)
            return r;
    return job.ranks.front();
}

// The common steps where `rank`'s own work stands out most from the others' median.
std::vector<std::string> stepsWhereAhead(const Job& job, int rank, size_t count)
{
    std::vector<std::pair<double, int64_t>> excess;
    for (int64_t n : job.commonSteps) {
        std::vector<double> others;
        for (const Rank& r : job.ranks)
            if (r.rank != rank)
                others.push_back(double(r.steps.at(n).ownNs()));
        excess.emplace_back(
            double(rankOf(job, rank).steps.at(n).ownNs()) - median(std::move(others)), n);
    }
    std::sort(excess.begin(), excess.end(), std::greater<>());
    std::vector<std::string> names;
    for (size_t i = 0; i < excess.size() && i < count; ++i)
        names.push_back("ProfilerStep#" + std::to_string(excess[i].second));
    return names;
}

std::string causeWords(const std::string& cause)
{
    if (cause == "dataloader")
        return "data loading";
    if (cause == "kernel")
        return "GPU kernels";
    if (cause == "memcpy" || cause == "memset")
        return "device copies";
    if (cause == "cpu_exec" || cause == "runtime" || cause == "other")
        return "host time (CPU work and launches)";
    return cause.empty() ? "its own work" : cause;
}

std::string stragglerFix(const std::string& cause)
{
    if (cause == "dataloader")
        return "Make that rank's input pipeline keep up: more DataLoader workers (num_workers), "
               "pin_memory and prefetch_factor, and check its host (disk, network storage, CPU "
               "contention from other processes) and its shard of the data (bigger samples).";
    if (cause == "kernel" || cause == "memcpy" || cause == "memset")
        return "Its GPU runs the same work slower or is given more: check that rank's GPU (clocks, "
               "thermals, a different part, another process on it) and whether its inputs are "
               "larger (uneven sequence lengths or sparse features: balance the batches).";
    return "Its host does more or runs slower: check CPU affinity and contention on that host "
           "(other processes, too few cores per rank), and rank-specific work in the loop "
           "(logging, checkpointing or evaluation on one rank only).";
}

// Each rank's mean exposed communication over the common steps, and the least of them:
// what even the rank that waits least for the others still waits (the transfer).
double leastExposedNs(const Job& job, int* rankOut)
{
    double least = -1;
    for (const auto& [rank, ns] : job.meanCommunicationNs)
        if (least < 0 || ns < least) {
            least = ns;
            if (rankOut)
                *rankOut = rank;
        }
    return std::max(least, 0.0);
}

void addStraggler(const Job& job, double stepNs, std::vector<Finding>& out)
{
    if (!job.straggler || job.byOwnWork.size() < 2)
        return;
    const int s = *job.straggler;
    const double own = job.meanOwnNs.at(s), next = job.meanOwnNs.at(job.byOwnWork[1]);
    std::vector<double> waits;
    for (const auto& [rank, ns] : job.meanCommunicationNs)
        if (rank != s)
            waits.push_back(ns - job.meanCommunicationNs.at(s));
    const double othersWait = std::max(0.0, median(std::move(waits)));
    const double gain = std::max(0.0, std::min(own - next, othersWait));
    if (gain <= 0)
        return;
    Finding f;
    f.id = "straggler-rank";
    f.severity = severityFor(gain, stepNs);
    f.title = rankName(s) + " holds the job back: its own work is " +
              format::duration(job.stragglerExcessNs) +
              " longer per step than the median rank's, most of it " +
              causeWords(job.stragglerCause);
    f.explanation = "Every rank waits for " + rankName(s) +
                    " in the collectives: the others spend " + format::duration(othersWait) +
                    " more per step in exposed communication than it does. Its own work " +
                    "(compute, data, host) is " + format::duration(own) + " per step against " +
                    format::duration(job.medianOwnNs) + " for the median rank; " +
                    causeWords(job.stragglerCause) + " accounts for " +
                    format::duration(job.stragglerCauseExcessNs) + " of the difference.";
    f.evidence.figures = {
        {"straggler_rank", double(s), Unit::Count},
        {"own_work_us", own / kNsPerUs, Unit::Microseconds},
        {"median_own_work_us", job.medianOwnNs / kNsPerUs, Unit::Microseconds},
        {"cause_excess_us", job.stragglerCauseExcessNs / kNsPerUs, Unit::Microseconds},
        {"others_wait_us", othersWait / kNsPerUs, Unit::Microseconds}};
    const auto& last = job.collectives.lastToArriveCount;
    const size_t index = size_t(&rankOf(job, s) - job.ranks.data());
    if (!job.collectives.matched.empty() && index < last.size())
        f.evidence.figures.push_back({"last_to_arrive_share",
                                      double(last[index]) / double(job.collectives.matched.size()),
                                      Unit::Fraction});
    f.evidence.steps = stepsWhereAhead(job, s, 3);
    f.estimatedGainNs = gain;
    f.gainMethod = "The job's step is set by the slowest rank's own work: bringing " + rankName(s) +
                   "'s down to the next slowest rank's (" + format::duration(next) +
                   ") saves that difference, at most what the others now wait for it.";
    f.fix = stragglerFix(job.stragglerCause);
    if (job.stragglerCause == "dataloader")
        f.snippet = "loader = torch.utils.data.DataLoader(dataset, batch_size=bs, num_workers=8,\n"
                    "                                     pin_memory=True, prefetch_factor=4,\n"
                    "                                     persistent_workers=True)";
    out.push_back(std::move(f));
}

void addImbalance(const Job& job, double stepNs, std::vector<Finding>& out)
{
    if (job.straggler || job.byOwnWork.size() < 2)
        return;
    const double slowest = job.meanOwnNs.at(job.byOwnWork.front());
    if (slowest - job.medianOwnNs <= kStragglerShare * stepNs)
        return;
    double mean = 0;
    for (const auto& [rank, ns] : job.meanOwnNs)
        mean += ns;
    mean /= double(job.meanOwnNs.size());
    // Evening the work out brings the slowest rank's own work to the mean; the saving is
    // no more than what the fastest ranks wait.
    int leastRank = -1;
    const double least = leastExposedNs(job, &leastRank);
    double mostWait = 0;
    for (const auto& [rank, ns] : job.meanCommunicationNs)
        mostWait = std::max(mostWait, ns - least);
    const double gain = std::max(0.0, std::min(slowest - mean, mostWait));
    if (gain <= 0)
        return;
    std::vector<int> above;
    for (int r : job.byOwnWork)
        if (job.meanOwnNs.at(r) > job.medianOwnNs + kStragglerShare * stepNs)
            above.push_back(r);
    Finding f;
    f.id = "load-imbalance";
    f.severity = severityFor(gain, stepNs);
    std::string names;
    for (size_t i = 0; i < above.size(); ++i)
        names += (i ? (i + 1 == above.size() ? " and " : ", ") : "") + std::to_string(above[i]);
    f.title = "Work is uneven across ranks: ranks " + names + " do " +
              format::duration(slowest - job.medianOwnNs) + " more per step than the median rank";
    if (above.size() == 1)
        f.title = "Work is uneven across ranks: " + rankName(above[0]) + " does " +
                  format::duration(slowest - job.medianOwnNs) +
                  " more per step than the median rank, " + rankName(job.byOwnWork[1]) +
                  " close behind";
    f.explanation = "Own work (compute, data, host) ranges from " +
                    format::duration(job.meanOwnNs.at(job.byOwnWork.back())) + " to " +
                    format::duration(slowest) +
                    " per step across the ranks, with no single rank to blame; the faster ranks "
                    "wait for the slower "
                    "in every collective.";
    f.evidence.figures = {{"slowest_own_work_us", slowest / kNsPerUs, Unit::Microseconds},
                          {"median_own_work_us", job.medianOwnNs / kNsPerUs, Unit::Microseconds},
                          {"mean_own_work_us", mean / kNsPerUs, Unit::Microseconds},
                          {"ranks_above_median", double(above.size()), Unit::Count}};
    f.evidence.steps = stepsWhereAhead(job, job.byOwnWork.front(), 3);
    f.estimatedGainNs = gain;
    f.gainMethod = "The step is set by the slowest rank's own work; spread evenly, every rank does "
                   "the mean (" +
                   format::duration(mean) + "), at most what the waiting ranks now wait.";
    f.fix = "Balance the work: equal-sized batches on every rank (bucket by sequence length, pad "
            "or pack), "
            "embedding tables sharded by their cost rather than their count, the same data "
            "pipeline and "
            "hardware on every host.";
    out.push_back(std::move(f));
}

void addExposedCommunication(const Job& job, double stepNs, std::vector<Finding>& out)
{
    // The transfer of each collective is the last part of every rank's time in it (all
    // leave together), so on rank 0's clock it is [end - transfer, end); concurrent
    // collectives (DDP buckets on gloo's threads) overlap there and count once. Of that,
    // the share the ranks hid behind compute in the step (their median) is not exposed.
    std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> transfersByStep;
    for (const MatchedCollective& m : job.collectives.matched)
        if (m.step) {
            const int64_t end = m.ranks[0].startNs + m.ranks[0].durationNs;
            transfersByStep[*m.step].emplace_back(end - m.transferNs, end);
        }
    double exposed = 0, transfer = 0;
    for (int64_t n : job.commonSteps) {
        auto& spans = transfersByStep[n];
        std::sort(spans.begin(), spans.end());
        double covered = 0;
        int64_t coveredTo = INT64_MIN;
        for (const auto& [from, to] : spans) {
            const int64_t start = std::max(from, coveredTo);
            if (to > start)
                covered += double(to - start);
            coveredTo = std::max(coveredTo, to);
        }
        std::vector<double> hiddenShares;
        for (const Rank& r : job.ranks) {
            const RankStep& step = r.steps.at(n);
            hiddenShares.push_back(
                step.collectiveNs > 0 ? double(step.hiddenNs()) / double(step.collectiveNs) : 0.0);
        }
        transfer += covered;
        exposed += covered * (1.0 - median(std::move(hiddenShares)));
    }
    if (job.commonSteps.empty())
        return;
    exposed /= double(job.commonSteps.size());
    transfer /= double(job.commonSteps.size());
    if (exposed < kExposedMinNs || exposed < kExposedShare * stepNs)
        return;
    double meanWait = 0;
    for (const auto& [rank, ns] : job.meanCommunicationNs)
        meanWait += std::max(0.0, ns - exposed);
    meanWait /= double(std::max<size_t>(1, job.meanCommunicationNs.size()));
    // Hiding needs compute to hide behind: at most the least own work of any rank.
    double leastOwn = exposed;
    for (const auto& [rank, ns] : job.meanOwnNs)
        leastOwn = std::min(leastOwn, ns);
    const double gain = std::min(exposed, leastOwn);
    Finding f;
    f.id = "exposed-communication";
    f.severity = severityFor(gain, stepNs);
    f.title = "Communication no compute hides: the collectives' transfers take " +
              format::duration(exposed) + " per step (" + format::percent(exposed / stepNs) +
              " of the step) in the open";
    f.explanation =
        "Once every rank has arrived, the collectives still need " + format::duration(transfer) +
        " per step to move their data, and compute hides " + format::duration(transfer - exposed) +
        " of it. Waiting for slower ranks comes on top (" + format::duration(meanWait) +
        " per step on the mean rank) and is not counted here.";
    if (job.worldSize > int(job.ranks.size()))
        f.explanation += " Only " + std::to_string(job.ranks.size()) + " of the job's " +
                         std::to_string(job.worldSize) +
                         " ranks are here: the shortest duration among them still includes waiting "
                         "for ranks not "
                         "given, so the transfer is an upper bound.";
    f.evidence.figures = {{"exposed_transfer_us", exposed / kNsPerUs, Unit::Microseconds},
                          {"exposed_share", exposed / stepNs, Unit::Fraction},
                          {"transfer_us", transfer / kNsPerUs, Unit::Microseconds},
                          {"waiting_us", meanWait / kNsPerUs, Unit::Microseconds}};
    f.estimatedGainNs = gain;
    f.gainMethod = "Hidden behind compute, the exposed transfer would leave the step; at most the "
                   "least own work "
                   "of any rank, the compute there is to hide it behind.";
    f.fix = "Overlap communication with compute: with DDP smaller gradient buckets (bucket_cap_mb) "
            "start "
            "all-reduces during the backward pass and no_sync() skips them in accumulation steps; "
            "with FSDP "
            "backward_prefetch=BACKWARD_PRE and forward_prefetch=True; with DeepSpeed ZeRO "
            "overlap_comm=True.";
    f.snippet =
        "model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank],\n"
        "                                                  bucket_cap_mb=25,\n"
        "                                                  gradient_as_bucket_view=True)";
    out.push_back(std::move(f));
}

void addSlowCollective(const Job& job, double stepNs, const JobRuleOptions& options,
                       std::vector<Finding>& out)
{
    double peak = options.linkBytesPerS;
    std::string peakSource = "given";
    if (peak <= 0 && !job.ranks.empty()) {
        const std::string& gpu = job.ranks.front().device;
        bool same = !gpu.empty();
        for (const Rank& r : job.ranks)
            same = same && r.device == gpu;
        peak = same ? nvlinkBytesPerS(gpu, int(job.ranks.size())) : 0.0;
        peakSource = "NVLink of " + gpu + ", one node";
    }
    if (peak <= 0 || job.commonSteps.empty())
        return;
    double lostNs = 0, slowTransferNs = 0, worstShare = 1;
    size_t count = 0;
    std::string worst;
    for (const MatchedCollective& m : job.collectives.matched) {
        if (!m.sizesAgree || m.bytes < kBandwidthBoundBytes || m.busBytesPerS <= 0 ||
            m.busBytesPerS >= kSlowBusShare * peak)
            continue;
        const double factor = busBandwidthFactor(m.kind, m.groupSize);
        const double achievableNs = double(m.bytes) * factor / (kAchievableBusShare * peak) * 1e9;
        lostNs += std::max(0.0, double(m.transferNs) - achievableNs);
        slowTransferNs += double(m.transferNs);
        ++count;
        if (m.busBytesPerS / peak < worstShare) {
            worstShare = m.busBytesPerS / peak;
            worst = std::string(collectiveKindName(m.kind)) + " #" + std::to_string(m.ordinal) +
                    " (" + format::bytes(double(m.bytes)) + ", " +
                    format::byteRate(m.busBytesPerS) + " bus)";
        }
    }
    if (count == 0)
        return;
    // Per step, and only the exposed part of it: the least exposed rank's share of its
    // collective time.
    const double steps = double(job.commonSteps.size());
    int leastRank = -1;
    const double least = leastExposedNs(job, &leastRank);
    double collective = 0;
    for (int64_t n : job.commonSteps)
        collective += double(rankOf(job, leastRank).steps.at(n).collectiveNs);
    const double exposedShare = collective > 0 ? std::min(1.0, least * steps / collective) : 1.0;
    const double gain = lostNs / steps * exposedShare;
    if (gain < 0.01 * stepNs)
        return;
    Finding f;
    f.id = "slow-collective";
    f.severity = severityFor(gain, stepNs);
    f.title = format::counted(uint64_t(count), "large collective", "large collectives") +
              (count == 1 ? " reaches under " : " reach under ") + format::percent(kSlowBusShare) +
              " of the link's bus bandwidth (" + format::byteRate(peak) + ")";
    f.explanation =
        "Messages of 16 MiB and more are bandwidth-bound, yet these move at " +
        format::percent(worstShare) + " of the link's peak at worst (" + worst +
        "). Slow links between hosts, a ring across the network instead of NVLink, or SMs taken by "
        "concurrent kernels slow them.";
    f.evidence.figures = {
        {"slow_collectives", double(count), Unit::Count},
        {"link_peak", peak / 1e9, Unit::GigabytesPerSecond},
        {"worst_bus_share", worstShare, Unit::Fraction},
        {"slow_transfer_us", slowTransferNs / steps / kNsPerUs, Unit::Microseconds}};
    f.evidence.ops = {worst};
    f.estimatedGainNs = gain;
    f.gainMethod =
        "At " + format::percent(kAchievableBusShare) + " of the link's peak (" + peakSource +
        ") these transfers would take less; of that, the share of communication not hidden.";
    f.fix =
        "Check the path NCCL takes (NCCL_DEBUG=INFO: NVLink/NVSwitch or the network, the number of "
        "channels), that no other kernel competes for SMs during collectives, and that messages "
        "are "
        "not split into many small ones (bucket sizes).";
    out.push_back(std::move(f));
}

}  // namespace

double nvlinkBytesPerS(std::string_view gpu, int ranks)
{
    if (ranks < 2 || ranks > 8)
        return 0.0;
    const auto has = [&](std::string_view part) {
        return gpu.find(part) != std::string_view::npos;
    };
    // Per direction, per GPU: NVLink 2 (V100 SXM2) 150 GB/s, 3 (A100 SXM) 300 GB/s,
    // 4 (H100/H200 SXM) 450 GB/s, 5 (B200) 900 GB/s. PCIe parts have no NVLink mesh.
    if (has("PCIe") || has("PCIE"))
        return 0.0;
    if (has("B200"))
        return 900e9;
    if (has("H100") && (has("SXM") || has("HBM3")))
        return 450e9;
    if (has("H200"))
        return 450e9;
    if (has("A100") && has("SXM"))
        return 300e9;
    if (has("V100") && has("SXM2"))
        return 150e9;
    return 0.0;
}

// A rank that failed by itself (its own error), with the ranks the launcher stopped
// because of it: the job's figures cover only the steps every rank reached.
void addFailedRanks(const Job& job, std::vector<Finding>& out)
{
    std::vector<int> stopped;
    for (const Rank& r : job.ranks)
        if (!r.failure.empty() && r.stoppedByAnother)
            stopped.push_back(r.rank);
    for (const Rank& r : job.ranks) {
        if (r.failure.empty() || r.stoppedByAnother)
            continue;
        Finding f;
        f.id = "rank-failed";
        f.severity = Severity::High;
        f.aboutWindow = true;  // the job's figures stop where it stopped
        f.title = r.failure.starts_with(rankName(r.rank) + " ")
                      ? r.failure
                      : rankName(r.rank) + " did not finish: " + r.failure;
        // Every rank of a job has its trace: its profiler window is kept.
        const size_t measured = r.sessionSteps;
        f.explanation =
            "Its session keeps the " + format::counted(measured, "step", "steps") +
            " it measured before it stopped and its profiler window. The job's figures cover the " +
            format::counted(job.commonSteps.size(), "step", "steps") + " every rank recorded.";
        if (!stopped.empty()) {
            f.explanation += " The launcher then stopped ";
            for (size_t i = 0; i < stopped.size(); ++i)
                f.explanation += (i == 0                    ? ""
                                  : i + 1 == stopped.size() ? " and "
                                                            : ", ") +
                                 rankName(stopped[i]);
            f.explanation += stopped.size() == 1 ? ": its session is whole up to that moment."
                                                 : ": their sessions are whole up to that moment.";
        }
        f.evidence.figures = {{"failed_rank", double(r.rank), Unit::Count},
                              {"steps_measured", double(measured), Unit::Count}};
        f.gainMethod = "none to estimate: the job did not run to its end";
        f.fix = "Read the failed rank's traceback (the job's output; its session's error names "
                "it) and run the job again once it is fixed.";
        out.push_back(std::move(f));
    }
}

std::vector<Finding> diagnoseJob(const Job& job, const JobRuleOptions& options)
{
    std::vector<Finding> out;
    addFailedRanks(job, out);
    if (job.ranks.size() < 2 || job.commonSteps.empty()) {
        analysis::rankFindings(out);
        return out;
    }
    const double stepNs = medianStepNs(job);
    addStraggler(job, stepNs, out);
    addImbalance(job, stepNs, out);
    addExposedCommunication(job, stepNs, out);
    addSlowCollective(job, stepNs, options, out);
    analysis::rankFindings(out);
    return out;
}

}  // namespace kinetoscope::job
