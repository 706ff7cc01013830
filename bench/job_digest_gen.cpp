#include "bench/job_digest_gen.h"

#include "core/job/digest.h"
#include "core/job/median.h"
#include "core/session/atomic_file.h"

#include <algorithm>

namespace kinetoscope::bench {

namespace fs = std::filesystem;

namespace {

uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// A number in [0, 1) for rank k and one purpose.
double unit(const DigestJobSpec& spec, int k, uint64_t purpose)
{
    return double(splitmix(spec.seed * 1000003 + uint64_t(k) * 7919 + purpose) >> 11) /
           double(uint64_t(1) << 53);
}

double medianStepNs(const job::Rank& rank)
{
    std::vector<double> steps;
    for (const auto& [number, step] : rank.steps)
        steps.push_back(double(step.durationNs));
    return job::median(std::move(steps));
}

// `d` ns inserted into the rank's time at `t`: every moment at or after t moves by d, so a
// span across t grows by d.
void insertAt(job::Rank& rank, int64_t t, int64_t d)
{
    const auto shift = [&](int64_t& x) {
        if (x >= t)
            x += d;
    };
    for (auto& [number, step] : rank.steps) {
        const int64_t before = step.endNs - step.beginNs;
        shift(step.beginNs);
        shift(step.endNs);
        step.durationNs += (step.endNs - step.beginNs) - before;
    }
    for (auto& [begin, end] : rank.stepRanges.hostRanges) {
        shift(begin);
        shift(end);
    }
    for (job::RankCollective& c : rank.collectives) {
        int64_t end = c.startNs + c.durationNs;
        shift(c.startNs);
        shift(end);
        shift(c.hostNs);
        c.durationNs = end - c.startNs;
    }
}

void addTo(job::RankStep& step, analysis::TimeCategory category, int64_t d)
{
    step.categories.ns[size_t(category)] += d;
    step.categories.totalNs += d;
}

}  // namespace

std::vector<int64_t> extraWorkNs(const std::vector<job::Rank>& bases, const DigestJobSpec& spec)
{
    std::vector<int64_t> extra(size_t(spec.ranks));
    for (int k = 0; k < spec.ranks; ++k) {
        const job::Rank& base = bases[size_t(k) % bases.size()];
        extra[size_t(k)] = int64_t(0.03 * unit(spec, k, 1) * medianStepNs(base));
        if (k == spec.straggler)
            extra[size_t(k)] += spec.stragglerDelayNs;
    }
    return extra;
}

job::Rank variedRank(const job::Rank& base, int k, const DigestJobSpec& spec,
                     int64_t slowestExtraNs)
{
    job::Rank rank = base;
    rank.doc.reset();
    const int64_t delay = k == spec.straggler ? spec.stragglerDelayNs : 0;
    const int64_t own =
        int64_t(0.03 * unit(spec, k, 1) * medianStepNs(base));  // as extraWorkNs has it
    const int64_t wait = std::max<int64_t>(0, slowestExtraNs - own - delay);
    for (size_t i = 0; i < rank.stepRanges.numbers.size(); ++i) {
        job::RankStep& step = rank.steps.at(rank.stepRanges.numbers[i]);
        // Its own extra work (and the straggler's data loading) at the step's start.
        const int64_t start = std::max(step.beginNs, rank.stepRanges.hostRanges[i].first) + 1;
        if (own + delay > 0 && start < step.endNs) {
            insertAt(rank, start, own + delay);
            addTo(step, analysis::TimeCategory::CpuExec, own);
            addTo(step, analysis::TimeCategory::DataLoader, delay);
        }
        if (wait <= 0)
            continue;
        // The wait for the slowest rank, before the step's first collective can end: it and
        // every collective in flight with it (DDP's later buckets) last longer by it.
        const auto first = std::find_if(
            rank.collectives.begin(), rank.collectives.end(), [&](const job::RankCollective& c) {
                return c.startNs >= step.beginNs && c.startNs < step.endNs && c.durationNs > 0;
            });
        insertAt(rank,
                 first != rank.collectives.end() ? first->startNs + first->durationNs - 1
                                                 : step.endNs - 1,
                 wait);
        addTo(step, analysis::TimeCategory::Communication, wait);
        step.communicationNs += wait;
        if (first != rank.collectives.end())
            step.collectiveNs += wait;
    }
    // Another host's clock.
    const auto clock = int64_t(5e9 * unit(spec, k, 2));
    for (auto& [number, step] : rank.steps) {
        step.beginNs += clock;
        step.endNs += clock;
    }
    for (auto& [begin, end] : rank.stepRanges.hostRanges) {
        begin += clock;
        end += clock;
    }
    for (job::RankCollective& c : rank.collectives) {
        c.startNs += clock;
        c.hostNs += clock;
    }
    rank.traceBeginNs += clock;
    rank.distributedRank = k;
    rank.distributedWorldSize = spec.ranks;
    return rank;
}

bool writeDigestJob(const std::vector<std::string>& baseTraces, const fs::path& out,
                    const DigestJobSpec& spec, std::string& error)
{
    std::vector<job::Rank> bases;
    for (const std::string& file : baseTraces) {
        const auto doc = document::open(file);
        if (!doc->ok() || !doc->model) {
            error = file + ": " + doc->loadMessage;
            return false;
        }
        bases.push_back(job::readRank(doc, file));
        bases.back().doc.reset();
    }
    if (bases.empty()) {
        error = "no base trace";
        return false;
    }
    const std::vector<int64_t> extra = extraWorkNs(bases, spec);
    const int64_t slowest = *std::max_element(extra.begin(), extra.end());
    std::error_code ec;
    fs::create_directories(out, ec);
    for (int k = 0; k < spec.ranks; ++k) {
        const fs::path folder = out / ("rank-" + std::to_string(k));
        fs::remove_all(folder, ec);
        fs::create_directories(folder, ec);
        const fs::path trace = folder / "trace.json";
        fs::create_symlink(fs::absolute(baseTraces[size_t(k) % bases.size()]), trace, ec);
        const std::optional<job::FileStamp> stamp = job::stampOf(trace.string());
        if (ec || !stamp) {
            error = trace.string() + ": cannot link the base trace there";
            return false;
        }
        job::Rank rank = variedRank(bases[size_t(k) % bases.size()], k, spec, slowest);
        rank.path = trace.string();
        if (!session::writeFileAtomically(job::digestPathFor(trace.string()),
                                          job::digestJson(rank, *stamp, *stamp), error))
            return false;
    }
    return true;
}

}  // namespace kinetoscope::bench
