#include "core/scaling/scaling.h"

#include "core/format/format.h"
#include "core/session/atomic_file.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kinetoscope::scaling {

namespace {

using json = nlohmann::json;
constexpr double kNsPerMs = 1e6;

double meanOf(const std::map<int, double>& byRank)
{
    if (byRank.empty())
        return 0;
    double sum = 0;
    for (const auto& [rank, value] : byRank)
        sum += value;
    return sum / double(byRank.size());
}

json lostJson(const LostTime& l)
{
    return {{"exposed_communication_ms", l.exposedCommunicationMs},
            {"straggler_wait_ms", l.stragglerWaitMs},
            {"imbalance_ms", l.imbalanceMs},
            {"rest_ms", l.restMs}};
}

LostTime lostFromJson(const json& j)
{
    LostTime l;
    l.exposedCommunicationMs = j.value("exposed_communication_ms", 0.0);
    l.stragglerWaitMs = j.value("straggler_wait_ms", 0.0);
    l.imbalanceMs = j.value("imbalance_ms", 0.0);
    l.restMs = j.value("rest_ms", 0.0);
    return l;
}

std::string ms(double value)
{
    return format::duration(value * kNsPerMs);
}

}  // namespace

JobSplit splitJob(const job::Job& job)
{
    JobSplit split;
    if (job.meanStepNs.empty())
        return split;
    split.stepMs = meanOf(job.meanStepNs) / kNsPerMs;
    split.ownWorkMs = meanOf(job.meanOwnNs) / kNsPerMs;
    double least = -1;
    for (const auto& [rank, ns] : job.meanCommunicationNs)
        least = least < 0 ? ns : std::min(least, ns);
    least = std::max(0.0, least);
    double waiting = 0;  // the mean rank's exposed communication beyond the least
    for (const auto& [rank, ns] : job.meanCommunicationNs)
        waiting += ns - least;
    waiting /= double(job.meanCommunicationNs.size());
    split.lost.exposedCommunicationMs = least / kNsPerMs;
    if (job.straggler && job.byOwnWork.size() > 1) {
        // Every other rank waits for the straggler's work beyond the next slowest rank's:
        // over all ranks, (n - 1) / n of that difference per step.
        const double n = double(job.byOwnWork.size());
        const double beyond =
            job.meanOwnNs.at(job.byOwnWork[0]) - job.meanOwnNs.at(job.byOwnWork[1]);
        split.straggler = *job.straggler;
        split.lost.stragglerWaitMs = std::clamp(beyond * (n - 1) / n, 0.0, waiting) / kNsPerMs;
    }
    split.lost.imbalanceMs = std::max(0.0, waiting / kNsPerMs - split.lost.stragglerWaitMs);
    return split;
}

std::optional<Estimate> estimateFromJob(const job::Job& job)
{
    if (job.ranks.size() < 2 || job.commonSteps.empty())
        return std::nullopt;
    Estimate e;
    e.split = splitJob(job);
    if (e.split.stepMs <= 0)
        return std::nullopt;
    e.efficiency = std::clamp(e.split.ownWorkMs / e.split.stepMs, 0.0, 1.0);
    return e;
}

std::string estimateLine(const Estimate& e)
{
    const LostTime& l = e.split.lost;
    std::string line = "Scaling efficiency (estimated from the ranks' own work): " +
                       format::percent(e.efficiency) + "; of the " + ms(e.split.stepMs) +
                       " step, " + ms(l.exposedCommunicationMs) + " exposed communication";
    if (e.split.straggler >= 0)
        line +=
            ", " + ms(l.stragglerWaitMs) + " waiting for rank " + std::to_string(e.split.straggler);
    line += ", " + ms(l.imbalanceMs) + " load imbalance.";
    return line;
}

void complete(Study& study, const std::vector<std::optional<JobSplit>>& splits)
{
    const Point* base = nullptr;
    for (const Point& p : study.points)
        if (p.measured() && (!base || p.worldSize < base->worldSize))
            base = &p;
    if (!base)
        return;
    const Point reference = *base;
    for (size_t i = 0; i < study.points.size(); ++i) {
        Point& p = study.points[i];
        if (!p.measured())
            continue;
        const double ratio = double(p.worldSize) / double(reference.worldSize);
        p.idealSamplesPerSecond = reference.samplesPerSecond * ratio;
        p.efficiency =
            p.idealSamplesPerSecond > 0 ? p.samplesPerSecond / p.idealSamplesPerSecond : 0;
        p.idealStepMs = study.strong ? reference.stepMs / ratio : reference.stepMs;
        // With a changed per-rank batch (strong scaling, a batch that does not divide), the
        // ideal step is the reference's time per sample at this batch.
        if (reference.perRankBatch > 0 && p.perRankBatch > 0)
            p.idealStepMs =
                reference.stepMs * double(p.perRankBatch) / double(reference.perRankBatch);
        const double lost = std::max(0.0, p.stepMs - p.idealStepMs);
        p.lost = {};
        if (i < splits.size() && splits[i] && p.worldSize > 1) {
            // The split comes from the profiled window; what it does not explain is the rest.
            // A window whose parts add up to more than the measured loss (its few steps ran
            // slower than the measured ones) gives the loss in the same proportions.
            const LostTime& s = splits[i]->lost;
            const double parts = s.exposedCommunicationMs + s.stragglerWaitMs + s.imbalanceMs;
            const double scale = parts > lost && parts > 0 ? lost / parts : 1.0;
            p.lost.exposedCommunicationMs = s.exposedCommunicationMs * scale;
            p.lost.stragglerWaitMs = s.stragglerWaitMs * scale;
            p.lost.imbalanceMs = s.imbalanceMs * scale;
            p.lost.restMs = std::max(0.0, lost - parts * scale);
        } else {
            p.lost.restMs = lost;
        }
    }
}

std::string studyText(const Study& study)
{
    std::ostringstream out;
    out << (study.strong ? "Strong scaling (one global batch divided among the ranks)"
                         : "Weak scaling (the per-rank batch fixed)")
        << "\n";
    out << format::padLeft("ranks", 6) << format::padLeft("batch/rank", 12)
        << format::padLeft("samples/s", 12) << format::padLeft("ideal", 10)
        << format::padLeft("efficiency", 12) << format::padLeft("step", 10)
        << "   lost per step: comm · waiting · imbalance · rest\n";
    for (const Point& p : study.points) {
        out << format::padLeft(std::to_string(p.worldSize), 6);
        if (!p.measured()) {
            out << "  " << p.error << "\n";
            continue;
        }
        const LostTime& l = p.lost;
        out << format::padLeft(format::count(p.perRankBatch), 12)
            << format::padLeft(format::number(p.samplesPerSecond), 12)
            << format::padLeft(format::number(p.idealSamplesPerSecond), 10)
            << format::padLeft(format::percent(p.efficiency), 12)
            << format::padLeft(ms(p.stepMs), 10) << "   " << ms(l.exposedCommunicationMs) << " · "
            << ms(l.stragglerWaitMs) << " · " << ms(l.imbalanceMs) << " · " << ms(l.restMs) << "\n";
    }
    out << "The ideal is the smallest job's samples/s times the world size over its own; the lost "
           "time per step (the step over the ideal step) is split from each job's profiled window: "
           "comm is the exposed communication of the rank that waits least (the transfer), "
           "waiting the mean rank's further wait for one straggler, imbalance the rest of the "
           "wait, rest what the window does not explain (each rank's own work grew).\n";
    return out.str();
}

std::filesystem::path studyFileOf(const std::filesystem::path& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        const std::filesystem::path inside = path / "scaling.kinetoscope.json";
        return std::filesystem::is_regular_file(inside, ec) ? inside : std::filesystem::path();
    }
    const std::string name = path.filename().string();
    const bool named =
        name == "scaling.kinetoscope.json" || name.ends_with(".scaling.kinetoscope.json");
    return named && std::filesystem::is_regular_file(path, ec) ? path : std::filesystem::path();
}

bool saveStudy(const Study& study, const std::filesystem::path& path, std::string& error)
{
    json points = json::array();
    for (const Point& p : study.points)
        points.push_back({{"world_size", p.worldSize},
                          {"per_rank_batch", p.perRankBatch},
                          {"step_ms", p.stepMs},
                          {"samples_per_s", p.samplesPerSecond},
                          {"ideal_samples_per_s", p.idealSamplesPerSecond},
                          {"ideal_step_ms", p.idealStepMs},
                          {"efficiency", p.efficiency},
                          {"lost", lostJson(p.lost)},
                          {"job", p.job},
                          {"error", p.error}});
    const json j = {{"kinetoscope_scaling", kScalingFormat},
                    {"strong", study.strong},
                    {"command", study.command},
                    {"points", points}};
    return session::writeFileAtomically(path, j.dump(2) + "\n", error);
}

std::optional<Study> loadStudy(const std::filesystem::path& path, std::string& error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot read " + path.string();
        return std::nullopt;
    }
    const json j = json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("kinetoscope_scaling")) {
        error = path.string() + " is not a scaling study";
        return std::nullopt;
    }
    if (!j["kinetoscope_scaling"].is_number_integer() ||
        j["kinetoscope_scaling"].get<int64_t>() > kScalingFormat) {
        error = path.string() + ": a scaling study newer than this Kinetoscope reads";
        return std::nullopt;
    }
    try {
        Study study;
        study.strong = j.value("strong", false);
        study.command = j.value("command", "");
        for (const json& p : j.at("points")) {
            Point point;
            point.worldSize = p.at("world_size").get<int>();
            point.perRankBatch = p.value("per_rank_batch", int64_t(0));
            point.stepMs = p.value("step_ms", 0.0);
            point.samplesPerSecond = p.value("samples_per_s", 0.0);
            point.idealSamplesPerSecond = p.value("ideal_samples_per_s", 0.0);
            point.idealStepMs = p.value("ideal_step_ms", 0.0);
            point.efficiency = p.value("efficiency", 0.0);
            point.lost = lostFromJson(p.value("lost", json::object()));
            point.job = p.value("job", "");
            point.error = p.value("error", "");
            study.points.push_back(std::move(point));
        }
        return study;
    } catch (const json::exception& e) {
        error = path.string() + ": malformed scaling study (" + e.what() + ")";
        return std::nullopt;
    }
}

}  // namespace kinetoscope::scaling
