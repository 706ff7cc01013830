// The method of shared/seeds/, run through LibTorch: warm-up, per-phase timings, the
// three-run lab, the DataLoader-vs-compute split, sweeps and a Kineto profiler window.
// The profiler is enabled and disabled on this (the training) thread: its state is
// thread-local.
#include "core/engine/lab_runner.h"

#include "core/engine/arm_runner.h"
#include "core/engine/cuda_support.h"
#include "core/engine/engine_internal.h"
#include "core/engine/memory_limit.h"
#include "core/format/format.h"
#include "core/lab/cpu_flags.h"
#include "core/lab/live_sampler.h"
#include "core/lab/other_processes.h"
#include "core/lab/run_options.h"
#include "core/session/timing_stats.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <thread>
#include <torch/cuda.h>
#include <torch/version.h>

namespace kinetoscope::engine {

namespace {

// --memory-snapshot: the newest entries kept (about 100 bytes each in the pickle), and the
// file, beside the session.
constexpr size_t kMemorySnapshotEntries = 200'000;
constexpr const char* kMemorySnapshotFile = "memory_snapshot.pickle";

using detail::UserError;

std::string firstLine(std::string text)
{
    if (const size_t newline = text.find('\n'); newline != std::string::npos)
        text.resize(newline);
    return text;
}

std::string outOfMemoryAt(int64_t batchSize)
{
    return "out of memory at batch size " + std::to_string(batchSize);
}

// One arm's run. An out-of-memory, torch's or the C++ runtime's, gives nullopt and its
// reason in `outOfMemory` ("out of memory at batch size N", the cached blocks released);
// any other error propagates.
std::optional<detail::ArmResult> runUnlessOutOfMemory(detail::ArmRunner& runner,
                                                      const detail::ArmOptions& arm,
                                                      const RunConfig& config, double progressFrom,
                                                      double progressTo, std::string& outOfMemory)
{
    try {
        return runner.run(arm, config, progressFrom, progressTo);
    } catch (const c10::Error& e) {
        if (!detail::isOutOfMemory(e))
            throw;
        detail::cuda::releaseCachedMemory();
    } catch (const std::bad_alloc&) {  // NOLINT(bugprone-empty-catch): read as the device's, below
    }
    outOfMemory = outOfMemoryAt(config.batchSize);
    return std::nullopt;
}

std::map<std::string, std::string> configEntries(const RunConfig& c)
{
    auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
    std::map<std::string, std::string> entries{
        {"model", c.model},
        {"dataset", c.dataset},
        {"device", c.device},
        {"mode", c.mode},
        {"batch_size", std::to_string(c.batchSize)},
        {"steps", std::to_string(c.steps)},
        {"warmup", std::to_string(c.warmup)},
        {"workers", std::to_string(c.workers)},
        {"prefetch", std::to_string(c.prefetch)},
        {"pin_memory", flag(c.pinMemory)},
        {"non_blocking", flag(c.nonBlocking)},
        {"shuffle", flag(c.shuffle)},
        {"drop_last", flag(c.dropLast)},
        {"seed", std::to_string(c.seed)},
        {"optimizer", "Adam lr 1e-4, gradient norm clipped to 1.0 (fused, capturable)"}};
    if (!c.dataPath.empty())
        entries["data"] = c.dataPath;
    if (c.memoryLimitMb > 0)
        entries["memory_limit_mb"] = std::to_string(c.memoryLimitMb);
    if (c.checkpointEvery > 0)
        entries["checkpoint_every"] = std::to_string(c.checkpointEvery);
    if (c.mode == "inference")
        entries["optimizer"] = "none (inference: eval mode, no autograd)";
    return entries;
}

// A stage as a sentence names it: "the fp32 arm", "the sweep point workers=4".
std::string stageName(const std::string& stage)
{
    return stage.starts_with("sweep ") ? "the sweep point " + stage.substr(6)
                                       : "the " + stage + " arm";
}

// The phase timings of steps that an arm did not finish measuring (a cancel in its middle).
std::vector<session::PhaseTiming> phasesOf(const std::vector<session::StepTiming>& steps,
                                           bool inference)
{
    std::vector<double> data, h2d, forward, backward, optimizer;
    for (const session::StepTiming& t : steps) {
        data.push_back(t.dataMs);
        h2d.push_back(t.h2dMs);
        forward.push_back(t.forwardMs);
        backward.push_back(t.backwardMs);
        optimizer.push_back(t.optimizerMs);
    }
    if (inference)  // a batch's latency is kept where a training step keeps its forward
        return {session::timingStats("data", std::move(data)),
                session::timingStats("h2d", std::move(h2d)),
                session::timingStats("latency", std::move(forward))};
    return {session::timingStats("data", std::move(data)),
            session::timingStats("h2d", std::move(h2d)),
            session::timingStats("forward", std::move(forward)),
            session::timingStats("backward", std::move(backward)),
            session::timingStats("optimizer", std::move(optimizer))};
}

// Where a cancelled run stopped, and who stopped it, as the session keeps it: "cancelled by
// Ctrl-C in the fp32 arm after step 7 of 22". `at` is the last step that began (and, a cancel
// being taken between steps, finished); `finished` the last arm or sweep point that ended.
std::string whereCancelled(const std::string& by, const lab::RunProgress& at,
                           const std::string& finished)
{
    std::string text = by.empty() ? "cancelled" : "cancelled by " + by;
    if (!at.stage.empty())
        text += " in " + stageName(at.stage) + " after step " +
                format::count(uint64_t(at.step + 1)) +
                (at.steps > 0 ? " of " + format::count(uint64_t(at.steps)) : "");
    else if (!finished.empty())
        text += " after " + stageName(finished);
    else
        text += " before its first step";
    return text;
}

}  // namespace

RunResult runLab(const RunConfig& config, const RunCallbacks& callbacks)
{
    RunResult result;
    session::Session& s = result.session;
    s.config = configEntries(config);
    s.environment = {{"torch", TORCH_VERSION},
                     {"cuda_available", torch::cuda::is_available() ? "yes" : "no"},
                     {"host_threads", std::to_string(std::thread::hardware_concurrency())}};

    // Live samples arrive on the sampler's thread; the session takes a copy when saved.
    std::mutex samplesMutex;
    std::vector<session::LiveSample> samples;
    std::unique_ptr<lab::LiveSampler> sampler;

    const auto sessionPath = std::filesystem::path(config.outDir) / "session.kinetoscope.json";
    // Nothing is written until the run has started, which is when its first step has
    // finished: options, model, data, device, the loader's first batch and the model's
    // first forward all good. A run that stops before (a bad file, a batch larger than
    // the dataset, a TorchScript model that does not fit its input, Ctrl-C) leaves a
    // session already in outDir, and its log, as they were.
    bool started = false;
    auto markStarted = [&] {
        if (started)
            return;
        std::error_code ec;
        if (!std::filesystem::create_directories(config.outDir, ec) && ec)
            throw UserError("cannot create " + config.outDir + ": " + ec.message());
        started = true;
        if (callbacks.started)
            callbacks.started(s, sessionPath.string());
    };
    // What the arm runner reports: a step that begins after another has finished starts
    // the run.
    lab::RunCallbacks runnerCallbacks = callbacks;
    // Where the run is, and what the arm in flight has measured: its steps reach the
    // session when the arm ends, and a cancel before then keeps them all the same.
    lab::RunProgress at;
    std::string finished;
    std::vector<session::StepTiming> armSteps;
    std::string keptOnCancel;  // "; kept: N steps, N arms", said once the session is saved
    runnerCallbacks.progress = [&](const lab::RunProgress& progress) {
        at = progress;
        if (progress.step >= 1)
            markStarted();
        if (callbacks.progress)
            callbacks.progress(progress);
    };
    runnerCallbacks.step = [&](const session::StepTiming& step) {
        armSteps.push_back(step);
        if (callbacks.step)
            callbacks.step(step);
    };
    auto save = [&] {
        if (!started)
            return;
        {
            std::lock_guard lock(samplesMutex);
            s.samples = samples;
        }
        std::error_code ec;
        std::filesystem::create_directories(config.outDir, ec);
        std::string error;
        if (session::saveSession(s, sessionPath, error)) {
            result.sessionPath = sessionPath.string();
            if (callbacks.saved)
                callbacks.saved(result.sessionPath);
        } else if (result.error.empty())
            result.error = error;
    };
    try {
        detail::ArmRunner runner(config, runnerCallbacks);
        const detail::MemoryLimit memoryLimit(config.memoryLimitMb * 1024 * 1024, runner.cuda());
        if (config.memorySnapshot) {
            if (!runner.cuda())  // --device auto on a machine without a GPU
                throw UserError(lab::kMemorySnapshotNeedsGpu);
            detail::cuda::recordMemoryHistory(kMemorySnapshotEntries);
        }
        s.environment["device"] = runner.cuda() ? detail::cuda::deviceName() : "CPU";
        if (runner.cuda())
            s.environment["device_memory_bytes"] = std::to_string(detail::cuda::totalMemoryBytes());
        if (!runner.cuda())
            s.environment["cpu_bf16"] = lab::cpuBf16Units();
        if (config.liveSamples) {
            const bool cuda = runner.cuda();
            sampler = std::make_unique<lab::LiveSampler>(
                config.samplesPerSecond,
                [&](const session::LiveSample& sample) {
                    {
                        std::lock_guard lock(samplesMutex);
                        samples.push_back(sample);
                    }
                    if (callbacks.sample)
                        callbacks.sample(sample);
                },
                [cuda]() -> std::pair<int64_t, int64_t> {
                    if (!cuda)
                        return {-1, -1};
                    const detail::cuda::AllocatorBytes bytes = detail::cuda::allocatorBytes();
                    return {bytes.allocated, bytes.reserved};
                },
                runner.cuda() ? detail::cuda::pciBusId() : std::string());
            s.environment["nvml"] = sampler->nvml().available() ? "yes" : "not available";
            if (sampler->nvml().available())
                s.environment["driver"] = sampler->nvml().driverVersion();
        }

        using session::ArmKind;
        std::vector<ArmKind> arms{ArmKind::Fp32};
        if (config.lab)
            arms.insert(arms.end(), {ArmKind::Bf16, ArmKind::Bf16CudaGraph});
        const size_t units = arms.size() + config.sweepWorkers.size() +
                             config.sweepBatchSizes.size() * (config.checkpointEvery > 0 ? 2 : 1);
        size_t unit = 0;
        for (const ArmKind kind : arms) {
            // The fp32 arm carries the profiler window and reports each step.
            const detail::ArmOptions options{
                session::armName(kind), kind != ArmKind::Fp32, kind == ArmKind::Bf16CudaGraph,
                kind == ArmKind::Fp32 && config.profile, kind == ArmKind::Fp32};
            session::LabArm arm;
            arm.kind = kind;
            if (options.graph && !runner.cuda()) {
                // torch.compile has no C++ API; its C++ counterpart is a whole-step CUDA graph.
                arm.skippedReason = "needs a GPU";
            } else {
                lab::OtherProcessesCpu others;
                others.start();
                const std::optional<detail::ArmResult> measured =
                    runUnlessOutOfMemory(runner, options, config, double(unit) / double(units),
                                         double(unit + 1) / double(units), arm.skippedReason);
                others.finishInProcess();
                arm.otherCpuCores = others.cores().value_or(-1);
                if (measured) {
                    markStarted();  // a one-step arm has no second step to start it
                    arm.ran = true;
                    arm.samplesPerSecond = measured->samplesPerSecond;
                    arm.meanStepMs = measured->meanStepMs;
                    arm.peakAllocatedBytes = measured->peakAllocatedBytes;
                    arm.peakReservedBytes = measured->peakReservedBytes;
                    arm.latency = measured->latency;
                    if (options.recordSteps) {
                        s.phases = measured->phases;
                        s.steps = measured->steps;
                        if (config.split) {
                            s.dataLoaderMs = measured->meanMs("data");
                            s.computeMs = config.mode == "inference"
                                              ? measured->meanMs("latency")
                                              : measured->meanMs("forward") +
                                                    measured->meanMs("backward") +
                                                    measured->meanMs("optimizer");
                        }
                        s.memory = measured->memory;
                        if (s.memory && callbacks.memory)
                            callbacks.memory(*s.memory);
                    }
                }
            }
            ++unit;
            s.lab.push_back(arm);
            finished = arm.name();
            at = {};
            armSteps.clear();  // in the session now (or skipped): a later cancel keeps none
            if (callbacks.arm)
                callbacks.arm(arm);
            save();  // nothing measured is lost if a later arm fails
        }

        // Sweeps: the fp32 arm again with one knob changed, samples/s against the knob.
        // The batch-size sweep stops at the first out-of-memory: the larger sizes after it
        // are reported as not run. With checkpointing asked for, each batch size runs
        // without it and then with it: two series, each stopping at its own out-of-memory.
        auto measurePoint = [&](session::SweepPoint& p, const RunConfig& point) {
            std::string name = std::string("sweep ") + p.knob + "=" + std::to_string(p.value);
            if (p.checkpointEvery > 0)
                name += " checkpoint_every=" + std::to_string(p.checkpointEvery);
            try {
                lab::OtherProcessesCpu others;
                others.start();
                const std::optional<detail::ArmResult> measured = runUnlessOutOfMemory(
                    runner, {name, false, false, false, false}, point, double(unit) / double(units),
                    double(unit + 1) / double(units), p.error);
                others.finishInProcess();
                p.otherCpuCores = others.cores().value_or(-1);
                if (!measured)
                    return;
                markStarted();
                p.samplesPerSecond = measured->samplesPerSecond;
                p.dataWaitMs = measured->meanMs("data");
                p.meanStepMs = measured->meanStepMs;
                p.peakAllocatedBytes = measured->peakAllocatedBytes;
                p.peakReservedBytes = measured->peakReservedBytes;
                p.latency = measured->latency;
            } catch (const UserError& e) {
                p.error =
                    e.what();  // a batch larger than the dataset, say: the other points still run
            }
        };
        auto sweep = [&](const char* knob, const std::vector<int64_t>& values,
                         const std::vector<int64_t>& series) {
            std::map<int64_t, int64_t> outOfMemoryAtBatch;  // per series (checkpoint_every)
            for (int64_t value : values) {
                for (int64_t checkpointEvery : series) {
                    RunConfig point = config;
                    point.checkpointEvery = checkpointEvery;
                    session::SweepPoint p;
                    p.knob = knob;
                    p.value = value;
                    p.checkpointEvery = checkpointEvery;
                    (p.knob == "workers" ? point.workers : point.batchSize) = value;
                    const auto oom = outOfMemoryAtBatch.find(checkpointEvery);
                    if (oom != outOfMemoryAtBatch.end() && value >= oom->second)
                        p.error = "not run: batch size " + std::to_string(oom->second) +
                                  " ran out of memory";
                    else
                        measurePoint(p, point);
                    if (p.knob == "batch_size" && p.error.starts_with("out of memory"))
                        outOfMemoryAtBatch.emplace(checkpointEvery, value);
                    ++unit;
                    s.sweep.push_back(p);
                    finished = "sweep " + p.knob + "=" + std::to_string(p.value);
                    at = {};
                    armSteps.clear();
                    if (callbacks.sweepPoint)
                        callbacks.sweepPoint(p);
                    save();
                }
            }
        };
        std::vector<int64_t> batchSeries{0};
        if (config.checkpointEvery > 0)
            batchSeries.push_back(config.checkpointEvery);
        sweep("workers", config.sweepWorkers, {config.checkpointEvery});
        sweep("batch_size", config.sweepBatchSizes, batchSeries);
        if (!runner.tracePath().empty())
            s.tracePath = std::filesystem::path(runner.tracePath()).filename().string();
        if (config.memorySnapshot) {
            const std::filesystem::path snapshot =
                std::filesystem::path(config.outDir) / kMemorySnapshotFile;
            std::string error;
            if (detail::cuda::writeMemorySnapshot(snapshot.string(), error))
                s.snapshotPath = kMemorySnapshotFile;
            else  // what was measured stays; the snapshot alone is missing
                std::fprintf(stderr,
                             "kinetoscope-engine: the memory snapshot was not written: %s\n",
                             error.c_str());
        }
        result.ok = started;
        if (!started) {  // every arm and point ran out of memory (or needs a GPU): nothing measured
            std::string why = "nothing was measured";
            for (const session::LabArm& arm : s.lab)
                if (!arm.skippedReason.empty()) {
                    why += ": " + arm.skippedReason;
                    break;
                }
            result.error = why;
        }
    } catch (const detail::Cancelled&) {
        // The steps of the arm in flight are kept (the fp32 arm's, the only one that records
        // them, when it had not ended), and the session says it was cancelled, by whom and
        // where: read back, it is a run cut short, never an empty one.
        if (s.steps.empty() && !armSteps.empty()) {
            s.steps = armSteps;
            if (s.phases.empty())
                s.phases = phasesOf(armSteps, config.mode == "inference");
        }
        s.interrupted =
            whereCancelled(callbacks.cancelledBy ? callbacks.cancelledBy() : "", at, finished);
        result.error = s.interrupted;
        if (started)
            keptOnCancel =
                "; kept: " + format::counted(uint64_t(s.steps.size()), "step", "steps") + ", " +
                format::counted(
                    uint64_t(std::count_if(s.lab.begin(), s.lab.end(),
                                           [](const session::LabArm& a) { return a.ran; })),
                    "arm", "arms");
    } catch (const UserError& e) {
        result.error = e.what();
    } catch (const c10::Error& e) {
        result.error = detail::isOutOfMemory(e)
                           ? outOfMemoryAt(config.batchSize)
                           : std::string("torch: ") + e.what_without_backtrace();
    } catch (const std::exception& e) {
        result.error = e.what();
    }
    sampler.reset();  // stops its thread before the last save
    result.error = firstLine(result.error);
    save();
    // What a cancel kept is said once it is saved, never before.
    if (!keptOnCancel.empty())
        result.error += result.sessionPath.empty() ? "; the steps measured could not be saved"
                                                   : keptOnCancel + " in " + result.sessionPath;
    return result;
}

}  // namespace kinetoscope::engine
