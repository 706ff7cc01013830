#include "core/scaling/scaling_run.h"

#include "core/lab/probe_stream.h"
#include "core/lab/script_lab.h"
#include "core/session/timing_stats.h"

#include <algorithm>
#include <filesystem>

namespace kinetoscope::scaling {

namespace fs = std::filesystem;

std::string validateRun(const RunConfig& c)
{
    if (c.worldSizes.empty())
        return "--scaling takes world sizes: 1,2,4";
    for (int n : c.worldSizes)
        if (n < 1 || n > 4096)
            return "--scaling takes world sizes from 1 to 4096";
    if (c.script.command.size() < 2)
        return "--scaling runs a Python script: kinetoscope profile --scaling 1,2,4 -- python "
               "train.py";
    if (lab::launchesRanks(c.script.command))
        return "--scaling starts the ranks itself (through torch.distributed.run): name the "
               "script, not a launcher, after --";
    return lab::validateProfileConfig(c.script);
}

double jobStepMs(const lab::JobRunResult& job)
{
    std::vector<double> medians;
    for (const lab::RankRun& rank : job.ranks) {
        std::vector<double> walls;
        walls.reserve(rank.run.session.steps.size());
        for (const session::StepTiming& t : rank.run.session.steps)
            walls.push_back(t.wallOrPhasesMs());
        if (!walls.empty())
            medians.push_back(session::timingStats("wall", std::move(walls)).medianMs);
    }
    return medians.empty() ? 0 : session::timingStats("step", std::move(medians)).medianMs;
}

RunOutcome runStudy(const RunConfig& config, const lab::JobCallbacks& callbacks,
                    const std::function<void(int worldSize, const std::string& folder)>& starting)
{
    RunOutcome outcome;
    Study& study = outcome.study;
    study.strong = config.strong;
    study.command = lab::commandLine(config.script.command);
    std::vector<int> sizes = config.worldSizes;
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    const fs::path out = config.script.outDir;
    std::error_code ec;
    fs::create_directories(out, ec);
    outcome.studyPath = (out / "scaling.kinetoscope.json").string();

    int64_t globalBatch = 0;  // strong scaling: the first measured job's
    std::vector<std::optional<JobSplit>> splits;
    for (int n : sizes) {
        if (callbacks.run.cancel && callbacks.run.cancel->load()) {
            outcome.cancelled = true;
            break;
        }
        Point point;
        point.worldSize = n;
        point.job = "world-" + std::to_string(n);
        lab::ProfileConfig job = config.script;
        job.nproc = n;
        job.outDir = (out / point.job).string();
        if (config.strong && globalBatch > 0) {
            job.loaderBatchSize = std::max<int64_t>(1, globalBatch / n);
            if (globalBatch % n != 0)
                outcome.notes.push_back("world size " + std::to_string(n) + ": the global batch " +
                                        std::to_string(globalBatch) + " does not divide; " +
                                        std::to_string(job.loaderBatchSize) + " a rank");
        }
        if (starting)
            starting(n, job.outDir);
        const lab::JobRunResult result = lab::runProfileJob(job, callbacks);
        point.stepMs = jobStepMs(result);
        if (!result.ranks.empty())
            point.perRankBatch = lab::batchSizeOf(result.ranks.front().run.session);
        if (!result.error.empty())
            outcome.notes.push_back("world size " + std::to_string(n) + ": " + result.error);
        if (point.stepMs <= 0)
            point.error = result.error.empty() ? "no step measured" : result.error;
        else
            point.samplesPerSecond =
                double(n) *
                double(result.ranks.empty()
                           ? point.perRankBatch
                           : lab::samplesPerStepOf(result.ranks.front().run.session)) *
                1000.0 / point.stepMs;
        if (config.strong && globalBatch == 0 && point.measured())
            globalBatch = point.perRankBatch * n;
        // The lost time's split, from the job's traces (each rank's profiled window).
        std::optional<JobSplit> split;
        if (point.measured() && n > 1) {
            document::OpenOptions options;
            std::string error;
            if (const auto opened = job::openJobPaths({job.outDir}, options, error);
                opened && !opened->commonSteps.empty())
                split = splitJob(*opened);
            else if (!error.empty())
                outcome.notes.push_back("world size " + std::to_string(n) + ": " + error);
        }
        study.points.push_back(std::move(point));
        splits.push_back(split);
        complete(study, splits);
        std::string saveError;
        if (!saveStudy(study, outcome.studyPath, saveError))
            outcome.notes.push_back(saveError);
        if (result.exitCode() == 130 || (callbacks.run.cancel && callbacks.run.cancel->load())) {
            outcome.cancelled = true;
            break;
        }
    }
    return outcome;
}

}  // namespace kinetoscope::scaling
