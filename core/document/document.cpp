#include "core/document/document.h"

#include "core/document/trace_folder.h"
#include "core/format/number_text.h"
#include "core/parallel/thread_count.h"
#include "core/session/lab_reading.h"
#include "core/session/memory_reading.h"
#include "core/session/timing_stats.h"
#include "core/snapshot/snapshot_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <new>

namespace kinetoscope::document {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Reads the trace into `doc`; false when nothing usable was read.
bool read(Document& doc, const OpenOptions& options, const OpenProgress& progress)
{
    std::error_code ec;
    const double fileBytes = static_cast<double>(std::filesystem::file_size(doc.tracePath, ec));
    trace::LoadOptions load;
    load.threads = options.threads;
    load.progress = [&](uint64_t bytesRead) {
        // Reading is ~80 % of the work; a gzip file decompresses to several times its
        // size, so the fraction is capped until the end.
        if (progress.progress && fileBytes > 0)
            progress.progress(
                std::min(0.75, 0.8 * static_cast<double>(bytesRead) / (fileBytes * 4.0)));
        return !(progress.cancel && progress.cancel->load());
    };
    const auto started = Clock::now();
    trace::LoadResult loaded = trace::loadTraceFile(doc.tracePath, load);
    doc.loadSeconds = secondsSince(started);
    doc.loadStatus = loaded.status;
    doc.loadMessage = loaded.message;
    doc.errorOffset = loaded.errorOffset;
    doc.model = std::move(loaded.model);
    return doc.model != nullptr;
}

// Reads a memory snapshot into `doc`; false when it could not be read.
bool readSnapshot(Document& doc, const OpenOptions& options)
{
    const auto started = Clock::now();
    snapshot::LoadedSnapshot loaded = snapshot::loadSnapshotFile(doc.tracePath);
    doc.loadSeconds = secondsSince(started);
    if (!loaded.model) {
        doc.loadStatus = trace::LoadStatus::Malformed;
        doc.loadMessage = loaded.error;
        return false;
    }
    const auto analysing = Clock::now();
    auto opened = std::make_shared<SnapshotDocument>();
    opened->model = std::move(*loaded.model);
    // The timelines read the model's entries in place: built once it is where it stays.
    opened->timelines = snapshot::timelinesOf(opened->model, snapshot::hasTimes(opened->model));
    opened->summary = snapshot::summarize(opened->model, opened->timelines);
    doc.findings = opened->summary.findings;
    if (options.depth == Depth::Read)
        opened->timelines.clear();
    doc.snapshot = std::move(opened);
    doc.analysisSeconds = secondsSince(analysing);
    return true;
}

void analyse(Document& doc, const OpenOptions& options)
{
    const auto started = Clock::now();
    analysis::SummaryOptions summary = options.summary;
    summary.threads = options.threads;
    doc.summary = analysis::summarize(*doc.model, summary);
    doc.findings = analysis::diagnose(
        {*doc.model, doc.summary, options.thresholds, doc.lab ? &*doc.lab : nullptr});
    if (options.timelineIndex)
        doc.timeline = std::make_shared<const timeline::TimelineIndex>(
            *doc.model, timeline::leadThreadOf(*doc.model, doc.summary.window.stepMarker));
    if (options.callTree)
        doc.callTree =
            std::make_shared<const analysis::CallTree>(analysis::computeCallTree(*doc.model));
    doc.analysisSeconds = secondsSince(started);
}

std::shared_ptr<const Document> failed(Document doc, trace::LoadStatus status, std::string message)
{
    doc.loadStatus = status;
    doc.loadMessage = std::move(message);
    return std::make_shared<const Document>(std::move(doc));
}

}  // namespace

trace::LoadResult Document::loadResult() const
{
    trace::LoadResult r;
    r.status = loadStatus;
    r.message = loadMessage;
    r.errorOffset = errorOffset;
    r.model = model;
    return r;
}

std::shared_ptr<const Document> open(const std::string& path, const OpenOptions& options,
                                     const OpenProgress& progress)
{
    Document doc;
    doc.path = path;
    doc.tracePath = path;
    doc.threads = parallel::resolveThreads(options.threads);
    // A folder stands for its one session or trace (a tensorboard_trace_handler folder).
    if (std::error_code ec; std::filesystem::is_directory(path, ec)) {
        std::string error;
        if (const std::optional<std::string> file = folderFile(path, error))
            return open(*file, options, progress);
        return failed(std::move(doc), trace::LoadStatus::NotFound, std::move(error));
    }
    try {
        if (session::isSessionPath(path)) {
            doc.sessionPath = path;
            std::string error;
            doc.session = session::loadSession(path, error);
            if (!doc.session)
                return failed(std::move(doc), trace::LoadStatus::NotFound, error);
            doc.lab = labMeasurementsOf(*doc.session);
            doc.tracePath = session::traceOf(*doc.session, path).string();
            if (doc.tracePath.empty()) {
                // Recorded without --profile: it opens with what the lab measured.
                if (options.depth == Depth::Analysed)
                    doc.findings = analysis::diagnoseLab(*doc.lab, options.thresholds);
                if (progress.progress)
                    progress.progress(1.0);
                return std::make_shared<const Document>(std::move(doc));
            }
        }
        if (snapshot::isSnapshotFile(doc.tracePath)) {
            if (!options.snapshots || doc.session) {
                // The message first: the order in which arguments are evaluated is
                // unspecified, and `doc` may be moved from before the message is built.
                std::string message =
                    "a CUDA memory snapshot (a pickle), not a trace: 'kinetoscope memory " +
                    doc.tracePath + "' reads it";
                return failed(std::move(doc), trace::LoadStatus::NotATrace, std::move(message));
            }
            readSnapshot(doc, options);
            if (progress.progress)
                progress.progress(1.0);
            return std::make_shared<const Document>(std::move(doc));
        }
        if (!read(doc, options, progress)) {
            if (doc.session)
                doc.loadMessage = "the session's trace " + doc.tracePath + ": " + doc.loadMessage;
            return std::make_shared<const Document>(std::move(doc));
        }
        if (progress.progress)
            progress.progress(0.8);
        if (options.depth == Depth::Analysed)
            analyse(doc, options);
    } catch (const std::bad_alloc&) {
        // The reader turns running out of memory into a status itself; this is the
        // analysis, the timeline index or a session's JSON. Free what was built, say so.
        doc.model.reset();
        doc.snapshot.reset();
        doc.timeline.reset();
        doc.summary = {};
        doc.findings.clear();
        return failed(std::move(doc), trace::LoadStatus::OutOfMemory,
                      "out of memory while opening it: free memory, or close other traces, and "
                      "open it again");
    }
    if (progress.progress)
        progress.progress(1.0);
    return std::make_shared<const Document>(std::move(doc));
}

namespace {

// The measured steps' wall time outside their five phases, and whether it comes in bursts
// at one interval (validation every 10 steps); nullopt where the steps cannot say (no wall
// time, no forward timed).
std::optional<analysis::LabMeasurements::OutsidePhases>
outsidePhasesOf(const std::vector<session::StepTiming>& steps)
{
    analysis::LabMeasurements::OutsidePhases o;
    std::vector<double> outside;  // ms, one per step with a wall time
    std::vector<int64_t> numbers;
    double wall = 0;
    bool forwardTimed = false;
    for (const session::StepTiming& t : steps) {
        if (t.wallMs < 0)
            continue;
        forwardTimed |= t.forwardMs > 0;
        const double phases = t.dataMs + t.h2dMs + t.forwardMs + t.backwardMs + t.optimizerMs;
        outside.push_back(std::max(0.0, t.wallMs - phases));
        numbers.push_back(t.step);
        wall += t.wallMs;
    }
    o.steps = outside.size();
    // No forward timed (no model found, or a step not timed apart): the forward itself
    // would read as time outside the phases.
    if (outside.empty() || !(wall > 0) || !forwardTimed)
        return std::nullopt;
    double total = 0;
    for (const double ms : outside)
        total += ms;
    o.share = total / wall;
    o.perStepNs = total / double(outside.size()) * 1e6;
    std::vector<double> sorted = outside;
    std::nth_element(sorted.begin(), sorted.begin() + long(sorted.size() / 2), sorted.end());
    const double median = sorted[sorted.size() / 2];
    // A burst stands over the rest: over 4x the median and 1 ms more, and over a quarter of
    // the largest (a one-off 5 ms between bursts of 100 ms breaks no interval).
    const double largest = *std::max_element(outside.begin(), outside.end());
    const double burstOver = std::max(4 * median + 1.0, 0.25 * largest);
    std::vector<int64_t> bursts;
    std::vector<double> burstMs;
    for (size_t i = 0; i < outside.size(); ++i)
        if (outside[i] > burstOver) {
            bursts.push_back(numbers[i]);
            burstMs.push_back(outside[i]);
        }
    if (bursts.size() == 1) {  // one step's: a one-off (a checkpoint), not the loop's habit
        o.burstNs = burstMs.front() * 1e6;
        o.firstBurst = bursts.front();
        return o;
    }
    if (bursts.size() < 2)
        return o;
    const int64_t every = bursts[1] - bursts[0];
    for (size_t i = 2; i < bursts.size(); ++i)
        if (bursts[i] - bursts[i - 1] != every)
            return o;  // not at one interval
    std::nth_element(burstMs.begin(), burstMs.begin() + long(burstMs.size() / 2), burstMs.end());
    o.every = every;
    o.burstNs = burstMs[burstMs.size() / 2] * 1e6;
    o.firstBurst = bursts.front();
    return o;
}

}  // namespace

analysis::LabMeasurements labMeasurementsOf(const session::Session& session)
{
    static_assert(analysis::kSmallLabJump == session::kSmallLabJump,
                  "one threshold for the reading and the rules");
    static_assert(analysis::kLabSlowdown == session::kLabSlowdown,
                  "one threshold for the reading and the rules");
    static_assert(analysis::kLabReservedOverPeak == session::kReservedOverPeak,
                  "one threshold for both");
    static_assert(analysis::Thresholds{}.dataloaderShare == session::kLoaderWaitShare,
                  "the reading's loader wait and dataloader-bound's default: one share");
    // A measured figure: finite and positive, or nothing.
    auto positive = [](double v) {
        return std::isfinite(v) && v > 0 ? std::optional<double>(v) : std::nullopt;
    };
    analysis::LabMeasurements lab;
    lab.inference = session.inference();
    lab.interrupted = session.interrupted;
    if (const auto status = session.config.find("exit_status"); status != session.config.end())
        if (const std::optional<int64_t> n = format::integerIn(status->second))
            lab.exitStatus = int(*n);
    const auto kind = session.config.find("kind");
    lab.script = kind != session.config.end() && kind->second == "script";
    lab.keptSteps = session.steps.size();
    // A script's measured steps run in the process the window was in (an engine lab's trace
    // is a run of its own): their wall times, boundary to boundary as the trace's steps.
    std::vector<double> walls;
    for (const session::StepTiming& t : session.steps)
        if (t.wallMs >= 0)
            walls.push_back(t.wallMs);
    if (lab.script && walls.size() >= analysis::kMeasuredStepsToCompare) {
        lab.measuredStepMedianNs = positive(session::timingStats("wall", walls).medianMs * 1e6);
        lab.outsidePhases = outsidePhasesOf(session.steps);
    }
    if (const auto skip = session.config.find("skip"); skip != session.config.end())
        lab.windowSkip = format::integerIn(skip->second).value_or(0);
    for (const session::SharedRun& shared : session::sharedRuns(session))
        lab.sharedRuns.push_back({shared.run, shared.otherCores});
    lab.machineCores = session::machineCores(session);
    lab.armsFinished = size_t(std::count_if(session.lab.begin(), session.lab.end(),
                                            [](const session::LabArm& arm) { return arm.ran; }));
    if (const auto every = session.config.find("checkpoint_every"); every != session.config.end())
        lab.armsCheckpointing =
            session::checkpointingName(format::integerIn(every->second).value_or(0));
    const auto device = session.config.find("device");
    const auto environment = session.environment.find("device");
    lab.cpu = (device != session.config.end() && device->second == "cpu") ||
              (environment != session.environment.end() && environment->second == "CPU");
    if (const auto units = session.environment.find("cpu_bf16"); units != session.environment.end())
        lab.cpuBf16Units = units->second;
    if (const auto loop = session.config.find("loader_loop"); loop != session.config.end())
        lab.loaderLoop = loop->second;
    if (const auto total = session.environment.find("device_memory_bytes");
        total != session.environment.end())
        lab.memoryAvailableBytes = positive(format::numberIn(total->second).value_or(0));
    if (const auto limit = session.config.find("memory_limit_mb"); limit != session.config.end())
        if (const std::optional<double> bytes =
                positive(format::numberIn(limit->second).value_or(0) * 1024 * 1024))
            lab.memoryAvailableBytes = std::min(*bytes, lab.memoryAvailableBytes.value_or(*bytes));
    for (const session::LabArm& arm : session.lab) {
        if (!arm.ran)
            continue;
        auto fill = [&](std::optional<double>& step, std::optional<double>& samples,
                        std::optional<double>& peak, std::optional<double>& latency) {
            step = positive(arm.meanStepMs * 1e6);
            samples = positive(arm.samplesPerSecond);
            if (arm.peakAllocatedBytes >= 0)
                peak = double(arm.peakAllocatedBytes);
            if (!arm.latency.phase.empty())
                latency = positive(arm.latency.meanMs * 1e6);
        };
        switch (arm.kind) {
        case session::ArmKind::Fp32:
            fill(lab.fp32StepNs, lab.fp32SamplesPerSecond, lab.fp32PeakBytes, lab.fp32LatencyNs);
            break;
        case session::ArmKind::Bf16:
            fill(lab.bf16StepNs, lab.bf16SamplesPerSecond, lab.bf16PeakBytes, lab.bf16LatencyNs);
            lab.bf16AsWritten = arm.scriptPrecision;
            break;
        case session::ArmKind::Bf16CudaGraph:
        case session::ArmKind::Bf16Compile:
            fill(lab.graphedStepNs, lab.graphedSamplesPerSecond, lab.graphedPeakBytes,
                 lab.graphedLatencyNs);
            if (arm.kind == session::ArmKind::Bf16Compile) {
                lab.compiled = true;
                lab.compileAsWritten = arm.scriptCompiles;
                if (arm.compileSeconds >= 0)
                    lab.compileSeconds = arm.compileSeconds;
            }
            break;
        }
    }
    const session::SweepPoint* fewest = nullptr;
    const session::SweepPoint* best = nullptr;
    size_t measured = 0;
    for (const session::SweepPoint& p : session.sweep)
        if (p.knob == "workers" && p.error.empty() && p.samplesPerSecond > 0) {
            ++measured;
            if (!fewest || p.value < fewest->value)
                fewest = &p;
            if (!best || p.samplesPerSecond > best->samplesPerSecond)
                best = &p;
        }
    // (the fewest the fastest too is a finding of its own: more workers ran slower)
    if (fewest && best && measured > 1) {
        analysis::LabMeasurements::WorkersSweep sweep{fewest->value,
                                                      best->value,
                                                      fewest->samplesPerSecond,
                                                      best->samplesPerSecond,
                                                      fewest->dataWaitMs * 1e6,
                                                      best->dataWaitMs * 1e6};
        if (const std::optional<session::WorkersAgainstRun> against =
                session::workersAgainstRun(session)) {
            sweep.ran = against->ran->value;
            sweep.ranSamples = against->ran->samplesPerSecond;
        }
        lab.workersSweep = sweep;
    }
    if (session.dataLoaderMs && std::isfinite(*session.dataLoaderMs) && *session.dataLoaderMs >= 0)
        lab.dataLoaderNs = *session.dataLoaderMs * 1e6;
    if (session.computeMs && std::isfinite(*session.computeMs) && *session.computeMs >= 0)
        lab.computeNs = *session.computeMs * 1e6;
    if (session.memory) {
        const session::MemoryTriage& memory = *session.memory;
        if (const std::optional<session::PeakReading> peak = session::readPeak(memory)) {
            analysis::LabPeakCause cause = analysis::LabPeakCause::Other;
            switch (peak->cause) {
            case session::PeakCause::Activations:
                cause = analysis::LabPeakCause::Activations;
                break;
            case session::PeakCause::Gradients:
                cause = analysis::LabPeakCause::Gradients;
                break;
            case session::PeakCause::OptimizerState:
                cause = analysis::LabPeakCause::OptimizerState;
                break;
            case session::PeakCause::Other:
                break;
            }
            lab.peak = analysis::LabMeasurements::Peak{peak->phase, cause, double(peak->peakBytes),
                                                       peak->firstStep};
        }
        if (const std::optional<session::MemoryGrowth> growth =
                session::readGrowth(memory.peakPerStep))
            if (std::isfinite(growth->bytesPerStep) && growth->bytesPerStep > 0)
                lab.growth =
                    analysis::LabMeasurements::Growth{growth->fromStep, growth->bytesPerStep};
        if (const std::optional<double> held = session::reservedOverPeak(memory);
            held && std::isfinite(*held))
            lab.reservedOverPeak = held;
        if (memory.split.activationBytes >= 0)
            lab.activationBytes = double(memory.split.activationBytes);
    }
    const session::BatchFit fit = session::readBatchFit(session);
    lab.largestBatchFits = fit.largestFits;
    lab.fastestBatch = fit.fastest;
    lab.firstBatchOutOfMemory = fit.firstOutOfMemory;
    if (const std::optional<session::CheckpointTrade> trade = session::readCheckpointTrade(session))
        lab.checkpointing = analysis::LabMeasurements::Checkpointing{
            session::checkpointingName(trade->every),
            trade->batchSize,
            double(trade->peakWithoutBytes),
            double(trade->peakWithBytes),
            trade->stepWithoutMs * 1e6,
            trade->stepWithMs * 1e6,
            session::readBatchFit(session, trade->every).largestFits};
    return lab;
}

}  // namespace kinetoscope::document
