#pragma once
// Scaling efficiency: how much of the hardware a larger job wastes, and where the lost time
// per step goes. A study runs the same script at several world sizes (`kinetoscope profile
// --scaling 1,2,4`): weak scaling keeps the per-rank batch (the ideal step time stays the
// smallest job's), strong scaling divides one global batch (the ideal step shrinks with the
// world size). Each point's lost time is split from its ranks' traces (core/job):
//   exposed communication  what even the rank that waits least spends in collectives no
//                          compute hides: the transfer itself;
//   waiting for the slowest rank  the mean rank's further wait for one straggler (its own
//                          work beyond the next slowest rank's);
//   load imbalance         the rest of the mean rank's wait: work spread unevenly;
//   the rest               what is left of the lost time: each rank's own work grew (shared
//                          cores, memory bandwidth, per-rank overhead).
// A job opened from files (one world size) gets the same split; its efficiency is then
// estimated from the ranks' own work (own work / step). docs/scaling.md. Qt-free.
#include "core/job/job.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::scaling {

// Milliseconds per step.
struct LostTime
{
    double exposedCommunicationMs = 0;
    double stragglerWaitMs = 0;
    double imbalanceMs = 0;
    double restMs = 0;
    double totalMs() const
    {
        return exposedCommunicationMs + stragglerWaitMs + imbalanceMs + restMs;
    }
};

// The split of a job's communication time from its ranks' common steps (no "rest": that
// needs a smaller job to compare with). `stepMs`: the job's mean step over the common steps.
struct JobSplit
{
    double stepMs = 0;
    double ownWorkMs = 0;  // the mean rank's own work (compute, data, host) per step
    int straggler = -1;    // the straggler the waiting is for, or -1
    LostTime lost;
};
JobSplit splitJob(const job::Job& job);

// A job opened from files: its efficiency estimated from the ranks' own work (the mean
// rank's own work over its step), the lost time its communication time. nullopt without
// two ranks sharing a step.
struct Estimate
{
    double efficiency = 0;
    JobSplit split;
};
std::optional<Estimate> estimateFromJob(const job::Job& job);
// "Scaling efficiency (estimated from the ranks' own work): 61 %; of the 24.9 ms step,
// 3.99 ms exposed communication, 5.01 ms waiting for rank 1, 0.22 ms load imbalance."
std::string estimateLine(const Estimate& estimate);

struct Point
{
    int worldSize = 0;
    int64_t perRankBatch = 0;
    double stepMs = 0;            // the ranks' median measured step (wall), the median over ranks
    double samplesPerSecond = 0;  // worldSize * perRankBatch * 1000 / stepMs
    double idealSamplesPerSecond = 0;  // the smallest job's, times worldSize / its world size
    double idealStepMs = 0;            // weak: the smallest job's step; strong: it / the ratio
    double efficiency = 0;             // samplesPerSecond / idealSamplesPerSecond
    LostTime lost;                     // stepMs - idealStepMs, split (ms per step)
    std::string job;                   // its job folder, relative to the study's folder
    std::string error;                 // why it measured nothing (then no figures)
    bool measured() const { return error.empty() && stepMs > 0; }
};

struct Study
{
    bool strong = false;
    std::string command;        // the user's, as one line
    std::vector<Point> points;  // by world size
};

// Fills in each measured point's ideal, efficiency and lost time against the smallest
// measured world size; `splits` are the points' job splits, in the same order.
void complete(Study& study, const std::vector<std::optional<JobSplit>>& splits);

// "world size  samples/s  ideal  efficiency  step  lost: comm  wait  imbalance  rest".
std::string studyText(const Study& study);

// The study a path names: a file called scaling.kinetoscope.json (or NAME.scaling.
// kinetoscope.json), or a folder holding scaling.kinetoscope.json; empty for anything else.
std::filesystem::path studyFileOf(const std::filesystem::path& path);

// OUT/scaling.kinetoscope.json, written atomically; versioned ("kinetoscope_scaling": 1).
inline constexpr int kScalingFormat = 1;
bool saveStudy(const Study& study, const std::filesystem::path& path, std::string& error);
std::optional<Study> loadStudy(const std::filesystem::path& path, std::string& error);

}  // namespace kinetoscope::scaling
