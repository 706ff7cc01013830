// The seeds' readings of a lab run that need no torch: the latency statistics of a known
// distribution, which phase sets the peak, growth step over step, the caching allocator
// holding freed blocks, the batch size that fits, and the triage's JSON; a script lab's
// runs made into arms and sweep points, and its compile arm read apart from compilation;
// the CPU other processes took beside a run, measured on real processes, and read; how
// often a growing session is saved while its run goes on.
#include "core/lab/child_process.h"
#include "core/lab/other_processes.h"
#include "core/lab/save_pacing.h"
#include "core/lab/script_lab.h"
#include "core/session/lab_reading.h"
#include "core/session/memory_reading.h"
#include "core/session/session_json.h"
#include "core/session/timing_stats.h"

#include <QtTest>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

using namespace kinetoscope;

namespace {

// A steady step whose running peak reaches `peak` after `peakPhase`; allocated and
// reserved figures as a GPU run reports them.
std::vector<session::PhaseMemory> stepPeakingAfter(const std::string& peakPhase, int64_t peak,
                                                   int64_t reserved)
{
    const char* phases[] = {"start",    "batch to device", "forward",  "loss",
                            "backward", "optimizer step",  "zero_grad"};
    std::vector<session::PhaseMemory> rows;
    int64_t running = 100;
    for (const char* phase : phases) {
        if (phase == peakPhase)
            running = peak;
        rows.push_back({phase, running / 2, reserved, running});
    }
    return rows;
}

// An arm that ran at `samples` samples/s, batches of `batch`.
session::LabArm ranArm(session::ArmKind kind, double samples, int batch)
{
    session::LabArm a;
    a.kind = kind;
    a.ran = true;
    a.samplesPerSecond = samples;
    a.meanStepMs = 1000.0 * batch / samples;
    return a;
}

}  // namespace

class TestLabReadings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void latencyStatisticsOfAKnownDistribution()
    {
        // 90 x 2 ms, 8 x 10 ms, 2 x 40 ms, shuffled: nearest rank, population std.
        std::vector<double> values;
        for (int i = 0; i < 100; ++i)
            values.push_back(i % 50 == 7 ? 40.0 : (i % 12 == 3 && i < 96) ? 10.0 : 2.0);
        QCOMPARE(std::count(values.begin(), values.end(), 10.0), 8);
        QCOMPARE(std::count(values.begin(), values.end(), 40.0), 2);
        const session::PhaseTiming t = session::timingStats("latency", values);
        QCOMPARE(t.phase, std::string("latency"));
        QCOMPARE(t.meanMs, 3.4);
        QCOMPARE(t.medianMs, 2.0);
        QCOMPARE(t.p95Ms, 10.0);
        QCOMPARE(t.p99Ms, 40.0);
        // sqrt((90 x 1.4^2 + 8 x 6.6^2 + 2 x 36.6^2) / 100)
        QVERIFY(std::abs(t.stdMs - std::sqrt((90 * 1.96 + 8 * 43.56 + 2 * 1339.56) / 100)) < 1e-9);
        const session::PhaseTiming one = session::timingStats("x", {5.0});
        QVERIFY(one.medianMs == 5.0 && one.p99Ms == 5.0 && one.stdMs == 0.0);
        QCOMPARE(session::timingStats("x", {}).meanMs, 0.0);
    }

    void thePhaseAfterWhichThePeakIsReachedSetsIt()
    {
        session::MemoryTriage m;
        m.steadyStep = stepPeakingAfter("forward", 900, 1000);
        m.firstStep = stepPeakingAfter("optimizer step", 800, 1000);
        std::optional<session::PeakReading> peak = session::readPeak(m);
        QVERIFY(peak);
        QCOMPARE(peak->phase, std::string("forward"));
        QCOMPARE(peak->cause, session::PeakCause::Activations);
        QCOMPARE(peak->peakBytes, int64_t(900));
        QVERIFY(!peak->firstStep);
        // The first step's optimizer state creation peaks higher: it sets the peak.
        m.firstStep = stepPeakingAfter("optimizer step", 1200, 1300);
        peak = session::readPeak(m);
        QVERIFY(peak && peak->firstStep && peak->cause == session::PeakCause::OptimizerState);
        m.steadyStep = stepPeakingAfter("backward", 2000, 2100);
        QCOMPARE(session::readPeak(m)->cause, session::PeakCause::Gradients);
        // Reached in backward, but the forward had already reached 90 % of it: the
        // activations, still alive when backward starts, set it (the H100 cnn's step:
        // 1.64 GiB after the forward, 2.02 GiB in backward, gradients 1.5 MiB).
        for (session::PhaseMemory& row : m.steadyStep)
            if (row.phase == "forward" || row.phase == "loss")
                row.peakAllocatedBytes = 1900;
        QCOMPARE(session::readPeak(m)->phase, std::string("backward"));
        QCOMPARE(session::readPeak(m)->cause, session::PeakCause::Activations);
        // No allocator (the CPU): no reading.
        session::MemoryTriage cpu;
        cpu.steadyStep = {{"forward", -1, -1, -1}};
        QVERIFY(!session::readPeak(cpu));
    }

    void growthIsFoundWithTheStepItStarts()
    {
        QVERIFY(
            !session::readGrowth({500, 300, 300, 300, 300, 300}));  // steady after the first step
        const auto growth = session::readGrowth({500, 300, 300, 400, 500, 600, 700});
        QVERIFY(growth);
        QCOMPARE(growth->fromStep, int64_t(2));
        QCOMPARE(growth->bytesPerStep, 100.0);
        QVERIFY(!session::readGrowth({500, 300, 300, 300, 400, 500}));  // two increases: too few
        QVERIFY(!session::readGrowth({}));
    }

    void reservedFarAbovePeakIsRead()
    {
        session::MemoryTriage m;
        m.steadyStep = stepPeakingAfter("loss", 1000, 3000);
        QCOMPARE(*session::reservedOverPeak(m), 3.0);
        const session::LabReading reading = session::readLab([&] {
            session::Session s;
            s.memory = m;
            return s;
        }());
        bool said = false;
        for (const std::string& line : reading.lines)
            said = said || line.find("empty_cache() between phases") != std::string::npos;
        QVERIFY(said);
    }

    // The CPU lab of issue 29: bf16 at a quarter of fp32's samples/s is a slowdown, with the
    // CPU's missing bf16 units as its cause; never "a small jump"; a graph slower than
    // bf16 is one too.
    void aSlowdownIsNeverASmallJump()
    {
        auto arm = [](session::ArmKind kind, double samples) { return ranArm(kind, samples, 64); };
        session::Session s;
        s.environment = {{"device", "CPU"}, {"cpu_bf16", "none"}};
        s.lab = {arm(session::ArmKind::Fp32, 57.2), arm(session::ArmKind::Bf16, 14.2)};
        const session::LabReading slow = session::readLab(s);
        QCOMPARE(slow.lines.size(), size_t(1));
        const std::string& line = slow.lines.front();
        QVERIFY2(
            line.starts_with(
                "fp32 -> bf16 is a slowdown (0.248×: each step takes 4.03× as long in bf16): this "
                "CPU has no bf16 matrix units"),
            line.c_str());
        QVERIFY(line.find("small jump") == std::string::npos);
        QVERIFY(line.ends_with("keep fp32 on this device."));
        // Within the noise it is still a slowdown, said as one: never a jump.
        s.lab = {arm(session::ArmKind::Fp32, 57.2), arm(session::ArmKind::Bf16, 55.0)};
        QVERIFY2(session::readLab(s).lines.front().starts_with(
                     "fp32 -> bf16 is a slowdown within this run's noise (0.962×: each step takes "
                     "1.04× as long in bf16)"),
                 session::readLab(s).lines.front().c_str());
        // A graph slower than bf16 (a GPU run).
        s.environment = {{"device", "NVIDIA H100 80GB HBM3"}};
        s.lab = {arm(session::ArmKind::Fp32, 100), arm(session::ArmKind::Bf16, 250),
                 arm(session::ArmKind::Bf16CudaGraph, 200)};
        const session::LabReading graph = session::readLab(s);
        QVERIFY(graph.lines.at(0).starts_with("fp32 -> bf16 is a large jump"));
        QVERIFY2(graph.lines.at(1).starts_with("bf16 -> CUDA graph is a slowdown (0.800×)"),
                 graph.lines.at(1).c_str());
    }

    // A script that trains another model with an optimizer of its own (a GAN, whose probe
    // config says other_optimizers): the arms changed one model, said before the jumps
    // (helper 47: "keep fp32" for the whole script, from its discriminator alone).
    void armsThatChangedOneOfTwoModelsSaySo()
    {
        auto arm = [](session::ArmKind kind, double samples) { return ranArm(kind, samples, 32); };
        session::Session s;
        s.environment = {{"device", "CPU"}, {"cpu_bf16", "none"}};
        s.config = {{"kind", "script"}, {"model", "Sequential"}, {"other_optimizers", "1"}};
        s.lab = {arm(session::ArmKind::Fp32, 57.2), arm(session::ArmKind::Bf16, 14.2)};
        const session::LabReading r = session::readLab(s);
        QCOMPARE(r.lines.size(), size_t(2));
        QCOMPARE(r.lines.front(),
                 std::string("The arms changed one model, Sequential, the one the script's first "
                             "optimizer trains: it trains another model with an optimizer of its "
                             "own, which ran as written in every arm; the jumps below are that "
                             "model's alone."));
        QVERIFY(r.lines.at(1).starts_with("fp32 -> bf16 is a slowdown"));
        s.config.erase("other_optimizers");
        QCOMPARE(session::readLab(s).lines.size(), size_t(1));
    }

    // Issue 50 item 7: a CPU lab whose bf16 arm runs at 0.902× fp32, its data phase 12 µs of
    // a 5 ms step. A slowdown is a slowdown, and the DataLoader is named only where the
    // measured data wait supports it: here it does not, so the reading says so.
    void theDataLoaderIsNamedOnlyWhenItsWaitSupportsIt()
    {
        auto arm = [](session::ArmKind kind, double samples) { return ranArm(kind, samples, 32); };
        auto phase = [](const char* name, double meanMs) {
            session::PhaseTiming p;
            p.phase = name;
            p.meanMs = meanMs;
            return p;
        };
        session::Session s;
        s.environment = {{"device", "CPU"}, {"cpu_bf16", "none"}};
        // The arms' step is the phases' (5.013 ms), as a run measures them: the reading's
        // step is the arms' table's.
        const double fp32 = 32 * 1000.0 / 5.013;
        s.lab = {arm(session::ArmKind::Fp32, fp32), arm(session::ArmKind::Bf16, 0.902 * fp32)};
        s.phases = {phase("data", 0.012), phase("h2d", 0.001), phase("forward", 1.6),
                    phase("backward", 2.9), phase("optimizer", 0.5)};
        const std::string slow = session::readLab(s).lines.at(0);
        QVERIFY2(slow.starts_with("fp32 -> bf16 is a slowdown within this run's noise (0.902×"),
                 slow.c_str());
        QVERIFY2(slow.find("small jump") == std::string::npos, slow.c_str());
        QVERIFY2(slow.find("usually the DataLoader") == std::string::npos, slow.c_str());
        QVERIFY2(slow.find("the data wait is 12.0 µs of a 5.01 ms step: not the DataLoader") !=
                     std::string::npos,
                 slow.c_str());
        // A step with time that no phase holds (a checkpoint saved, the script's own Python):
        // the step is the arms' table's, not the phases' 99.0 ms.
        {
            session::Session checkpointed = s;
            checkpointed.lab = {arm(session::ArmKind::Fp32, 32 * 1000.0 / 114),
                                arm(session::ArmKind::Bf16, 0.95 * 32 * 1000.0 / 114)};
            checkpointed.phases = {phase("data", 17.7), phase("forward", 30.0),
                                   phase("backward", 45.0), phase("optimizer", 6.3)};
            const std::string line = session::readLab(checkpointed).lines.at(0);
            QVERIFY2(line.find("the data wait is 17.7 ms of a 114 ms step") != std::string::npos,
                     line.c_str());
        }
        // A small jump with the same tiny data wait: not the DataLoader either.
        s.lab = {arm(session::ArmKind::Fp32, 1000), arm(session::ArmKind::Bf16, 1100)};
        const std::string small = session::readLab(s).lines.at(0);
        QVERIFY2(small.starts_with("fp32 -> bf16 is a small jump (1.10×): precision is not the "
                                   "bottleneck;"),
                 small.c_str());
        QVERIFY2(small.find("usually the DataLoader") == std::string::npos, small.c_str());
        QVERIFY2(small.find("not the DataLoader") != std::string::npos, small.c_str());
        // A data wait longer than the compute (the split's own verdict): the DataLoader.
        s.dataLoaderMs = 8.0;
        s.computeMs = 2.0;
        const std::string loader = session::readLab(s).lines.at(0);
        QVERIFY2(loader.find("the step waits on the DataLoader (8.00 ms of data wait against "
                             "2.00 ms of compute per step)") != std::string::npos,
                 loader.c_str());
        // Nothing measured of the data wait: it is named as a suspect to measure, no more.
        s.dataLoaderMs.reset();
        s.computeMs.reset();
        s.phases.clear();
        const std::string unmeasured = session::readLab(s).lines.at(0);
        QVERIFY2(unmeasured.find("usually the DataLoader") == std::string::npos,
                 unmeasured.c_str());
        QVERIFY2(unmeasured.find("--split") != std::string::npos, unmeasured.c_str());
    }

    // Issue 50 item 8: a CPU memory triage with loader workers measured the phase table
    // but could not tell the activations apart; the reading names only what is missing.
    void theMemoryReadingSaysOnlyWhatIsMissing()
    {
        session::Session s;
        s.config = {{"workers", "2"}};
        s.environment = {{"device", "CPU"}};
        session::MemoryTriage m;
        m.unavailable = "reserved: the CPU has no caching allocator; with loader workers the "
                        "figures include the batches they prefetch, and activations cannot be told "
                        "apart";
        for (auto* rows : {&m.firstStep, &m.steadyStep})
            for (const char* phase : {"start", "batch to device", "forward", "loss", "backward"})
                rows->push_back({phase, 1 << 20, -1, 2 << 20});
        m.split = {1000, 4, 4000, 4000, 8064, -1};
        s.memory = m;
        auto splitLine = [](const session::Session& session) {
            for (const std::string& line : session::readLab(session).lines)
                if (line.starts_with("Memory of the model"))
                    return line;
            return std::string();
        };
        const std::string workers = splitLine(s);
        QVERIFY2(workers.find("GPU") == std::string::npos, workers.c_str());
        QVERIFY2(workers.find("phase table") == std::string::npos, workers.c_str());
        QVERIFY2(workers.ends_with("; activations not told apart: the loader workers' prefetched "
                                   "batches count too (--workers 0 measures them)."),
                 workers.c_str());
        // No phase table and no activations (a session written before the CPU was counted):
        // both are missing, for the reason the session gives.
        s.memory->firstStep.clear();
        s.memory->steadyStep.clear();
        s.memory->unavailable = "needs a GPU";
        const std::string old = splitLine(s);
        QVERIFY2(old.ends_with("; activations and the phase table not measured (needs a GPU)."),
                 old.c_str());
    }

    // Issue 50 item 9: a run cancelled in its first arm keeps the steps it measured and says
    // so first; a run that finished says nothing of the kind.
    void aCancelledRunSaysSoFirst()
    {
        session::Session s;
        s.interrupted = "cancelled by Ctrl-C (SIGINT) in the fp32 arm after step 7 of 22";
        for (int64_t step = 2; step < 7; ++step)
            s.steps.push_back({step, 0.01, 0.001, 1.0, 2.0, 0.5, 2.3});
        const session::LabReading reading = session::readLab(s);
        QVERIFY(!reading.lines.empty());
        QCOMPARE(reading.lines.front(),
                 std::string("This run did not finish: cancelled by Ctrl-C (SIGINT) in the fp32 "
                             "arm after step 7 of 22. What it holds was measured before: 5 "
                             "measured steps, no arm finished."));
        s.steps.clear();
        QCOMPARE(*session::stoppedEarly(s),
                 std::string("This run did not finish: cancelled by Ctrl-C (SIGINT) in the fp32 "
                             "arm after step 7 of 22. Nothing was measured before."));
        s.interrupted.clear();
        QVERIFY(!session::stoppedEarly(s));
        QVERIFY(session::readLab(s).lines.empty());
    }

    void theBatchThatFitsAndTheFastest()
    {
        session::Session s;
        s.sweep = {{"batch_size", 16, 100.0, 0, ""},
                   {"batch_size", 64, 300.0, 0, ""},
                   {"batch_size", 256, 250.0, 0, ""},
                   {"batch_size", 1024, 0.0, 0, "out of memory at batch size 1024"},
                   {"batch_size", 4096, 0.0, 0, "not run: batch size 1024 ran out of memory"},
                   {"workers", 8, 900.0, 0, ""}};
        const session::BatchFit fit = session::readBatchFit(s);
        QCOMPARE(fit.largestFits, std::optional<int64_t>(256));
        QCOMPARE(fit.fastest, std::optional<int64_t>(64));
        QCOMPARE(fit.firstOutOfMemory, std::optional<int64_t>(1024));
        const session::LabReading reading = session::readLab(s);
        QVERIFY(std::find(reading.lines.begin(), reading.lines.end(),
                          "Batch size: the largest that fits is 256 (1024 ran out of memory), the "
                          "fastest is 64.") != reading.lines.end());
    }

    void checkpointingIsReadSideBySide()
    {
        // Two series: without checkpointing 1024 runs out of memory; with it, 1024 fits.
        auto point = [](int64_t batch, int64_t every, double stepMs, int64_t peak,
                        std::string error = {}) {
            session::SweepPoint p;
            p.knob = "batch_size";
            p.value = batch;
            p.checkpointEvery = every;
            p.error = std::move(error);
            if (p.error.empty()) {
                p.meanStepMs = stepMs;
                p.samplesPerSecond = double(batch) * 1e3 / stepMs;
                p.peakAllocatedBytes = peak;
            }
            return p;
        };
        session::Session s;
        s.sweep = {point(256, 0, 100, 800 << 20), point(256, 2, 125, 500 << 20),
                   point(1024, 0, 0, 0, "out of memory at batch size 1024"),
                   point(1024, 2, 480, 1900 << 20)};
        QCOMPARE(session::readBatchFit(s).largestFits, std::optional<int64_t>(256));
        QCOMPARE(session::readBatchFit(s).firstOutOfMemory, std::optional<int64_t>(1024));
        QCOMPARE(session::readBatchFit(s, 2).largestFits, std::optional<int64_t>(1024));
        QVERIFY(!session::readBatchFit(s, 2).firstOutOfMemory);
        // The trade is read where both series ran: 256, not 1024.
        const std::optional<session::CheckpointTrade> trade = session::readCheckpointTrade(s);
        QVERIFY(trade);
        QCOMPARE(trade->batchSize, int64_t(256));
        QCOMPARE(trade->every, int64_t(2));
        QCOMPARE(trade->memorySaved(), 300.0 / 800.0);
        QCOMPARE(trade->timeCost(), 0.25);
        QCOMPARE(session::checkpointingName(1), std::string("checkpointing every block"));
        QCOMPARE(session::checkpointingName(2), std::string("checkpointing every 2nd block"));
        QCOMPARE(session::checkpointingName(11), std::string("checkpointing every 11th block"));
        QCOMPARE(session::checkpointingName(23), std::string("checkpointing every 23rd block"));
        const session::LabReading reading = session::readLab(s);
        auto says = [&](const std::string& line) {
            return std::find(reading.lines.begin(), reading.lines.end(), line) !=
                   reading.lines.end();
        };
        QVERIFY(says("Batch size: the largest that fits is 256 (1024 ran out of memory), the "
                     "fastest is 256."));
        QVERIFY(says("Batch size with checkpointing every 2nd block: the largest that fits is 1024 "
                     "(none ran out of "
                     "memory), the fastest is 1024."));
        QVERIFY(says("At batch size 256, checkpointing every 2nd block takes the peak from 800 MiB "
                     "to 500 MiB (\u221237.5 "
                     "%) and the step from 100 ms to 125 ms (+25.0 %)."));
        // Without the plain series' point there is no trade, but the checkpointed series
        // that fits where the plain one ran out is still read.
        session::Session onlyCheckpointFits;
        onlyCheckpointFits.sweep = {point(256, 0, 0, 0, "out of memory at batch size 256"),
                                    point(256, 2, 125, 500 << 20)};
        QVERIFY(!session::readCheckpointTrade(onlyCheckpointFits));
        const session::LabReading fits = session::readLab(onlyCheckpointFits);
        QVERIFY(std::find(fits.lines.begin(), fits.lines.end(),
                          "Batch size with checkpointing every 2nd block: the largest that fits is "
                          "256 (none ran out "
                          "of memory), the fastest is 256.") != fits.lines.end());
    }

    // A script lab's run becomes an arm: its step is the mean wall time without a step that
    // compiled again (3x the median), and samples/s is that step's (the table shows both),
    // with the probe's batch size times its batches a step (gradient accumulation); an arm
    // the probe could not apply is skipped with its reason, whatever it measured.
    void aScriptRunBecomesAnArm()
    {
        session::Session run;
        run.config = {{"batch_size", "32"},         {"arm", "bf16+compile"},
                      {"compile_seconds", "17.25"}, {"graph_breaks", "1"},
                      {"recompiles", "0"},          {"compiled_in_measured", "1"}};
        for (double wall : {10.0, 12.0, 10.0, 95.0, 9.0}) {
            session::StepTiming t;
            t.step = int64_t(run.steps.size());
            t.dataMs = 1;
            t.wallMs = wall;
            run.steps.push_back(t);
        }
        const session::LabArm arm = lab::armFromRun("bf16+compile", run, "");
        QVERIFY(arm.ran);
        QVERIFY(arm.kind == session::ArmKind::Bf16Compile);
        QCOMPARE(arm.meanStepMs, 10.25);  // (10 + 12 + 10 + 9) / 4: the 95 ms step left out
        QCOMPARE(arm.samplesPerSecond, 32 * 1000.0 / 10.25);
        QCOMPARE(arm.compileSeconds, 17.25);
        QCOMPARE(arm.graphBreaks, int64_t(1));
        QCOMPARE(arm.recompiles, int64_t(0));
        QCOMPARE(arm.peakAllocatedBytes, int64_t(-1));  // a CPU run

        QVERIFY(arm.note.empty());

        // Half its steps beyond 3x the median are how the arm ran, not one-offs (helper 47: a
        // bf16 arm of 280 ms and 20 ms steps read as its 20 ms ones): the mean of all, said.
        session::Session bimodal = run;
        for (size_t i = 0; i < bimodal.steps.size(); ++i)
            bimodal.steps[i].wallMs = i % 2 ? 280.0 : 20.0;  // 3 of 20 ms, 2 of 280 ms
        const session::LabArm uneven = lab::armFromRun("bf16+compile", bimodal, "");
        QCOMPARE(uneven.meanStepMs, (3 * 20.0 + 2 * 280.0) / 5);
        QVERIFY2(uneven.note.find("its steps were not steady: 2 of 5 took over 3x the median "
                                  "(20.0 ms); the figure is the mean of them all") !=
                     std::string::npos,
                 uneven.note.c_str());

        run.config["batches_per_step"] = "2";  // two batches each optimizer step
        QCOMPARE(lab::armFromRun("bf16+compile", run, "").samplesPerSecond,
                 2 * 32 * 1000.0 / 10.25);

        run.config["arm_error"] = "torch.compile failed: InductorError: no C++ compiler";
        const session::LabArm failed = lab::armFromRun("bf16+compile", run, "");
        QVERIFY(!failed.ran);
        QCOMPARE(failed.skippedReason, run.config["arm_error"]);
        QVERIFY(
            !lab::armFromRun("bf16", session::Session{}, "the script exited with status 1").ran);

        // Sweep points: an out-of-memory error, a peak over the limit, a measured point.
        const session::SweepPoint oom = lab::sweepPointFromRun(
            "batch_size", 512, session::Session{},
            "the script failed: torch.OutOfMemoryError: CUDA out of memory", 0);
        QCOMPARE(oom.error, std::string("out of memory at batch size 512"));
        session::Session big = run;
        big.config.erase("arm_error");
        session::LiveSample sample;
        sample.residentBytes = int64_t(3) << 30;
        big.samples = {sample};
        const session::SweepPoint over =
            lab::sweepPointFromRun("batch_size", 256, big, "", int64_t(2) << 30);
        QVERIFY2(over.error == "out of memory at batch size 256 (3.00 GiB at its peak, over the "
                               "2.00 GiB limit)",
                 over.error.c_str());
        const session::SweepPoint fits = lab::sweepPointFromRun("workers", 2, big, "", 0);
        QVERIFY(fits.error.empty());
        QCOMPARE(fits.samplesPerSecond, 2 * 32 * 1000.0 / 10.25);  // as the arm's
        QCOMPARE(fits.dataWaitMs, 1.0);
    }

    // A script that runs its own mixed precision (autocast, a GradScaler) runs it in the
    // fp32 arm too, and the bf16 arm leaves it as it is: the reading says fp32 -> bf16 was
    // not measured, never 'a small jump' between two runs of the same code.
    void aScriptsOwnPrecisionIsNotReadAsAJump()
    {
        session::Session run;
        run.config = {{"batch_size", "64"},
                      {"arm", "bf16"},
                      {"arm_note", "the script already uses autocast (bfloat16 not applied twice)"},
                      {"arm_precision", "script"}};
        for (double wall : {4.0, 4.1, 4.0, 4.2}) {
            session::StepTiming t;
            t.step = int64_t(run.steps.size());
            t.wallMs = wall;
            run.steps.push_back(t);
        }
        session::LabArm bf16 = lab::armFromRun("bf16", run, "");
        QVERIFY(bf16.ran && bf16.scriptPrecision);
        bf16 = session::labArmFrom(session::toJson(bf16));  // kept through the session file
        QVERIFY(bf16.scriptPrecision);
        session::Session s;
        s.lab = {ranArm(session::ArmKind::Fp32, 64 * 1000.0 / 4.47, 64), bf16};
        const session::LabReading reading = session::readLab(s);
        QVERIFY(!reading.lines.empty());
        QVERIFY2(reading.lines.front() ==
                     "fp32 -> bf16 was not measured: both arms ran the script's own mixed "
                     "precision as written. The bf16 arm: the script already uses autocast "
                     "(bfloat16 not applied twice).",
                 reading.lines.front().c_str());
        QVERIFY(!reading.bf16OverFp32);
        run.config.erase("arm_precision");
        QVERIFY(!lab::armFromRun("bf16", run, "").scriptPrecision);

        // A script that compiles its model itself: the third arm did not compile it again.
        run.config = {{"batch_size", "64"},
                      {"arm", "bf16+compile"},
                      {"arm_note", "the script compiles its model itself (torch.compile not "
                                   "applied twice)"},
                      {"arm_compile", "script"}};
        session::LabArm compiled = lab::armFromRun("bf16+compile", run, "");
        QVERIFY(compiled.ran && compiled.scriptCompiles && !compiled.scriptPrecision);
        compiled = session::labArmFrom(session::toJson(compiled));
        QVERIFY(compiled.scriptCompiles);
        s.lab = {ranArm(session::ArmKind::Fp32, 64 * 1000.0 / 4.47, 64),
                 ranArm(session::ArmKind::Bf16, 64 * 1000.0 / 4.07, 64), compiled};
        const session::LabReading both = session::readLab(s);
        QVERIFY(both.lines.size() >= 2);
        QVERIFY2(both.lines.front().starts_with("fp32 -> bf16 is a small jump"),
                 both.lines.front().c_str());
        QVERIFY2(both.lines.at(1) ==
                     "bf16 -> compile was not measured: the script compiles its model itself, so "
                     "every arm ran compiled. The bf16+compile arm: the script compiles its model "
                     "itself (torch.compile not applied twice).",
                 both.lines.at(1).c_str());
        QVERIFY(!both.graphOverBf16);
    }

    // The third arm of a script's lab is the real torch.compile: its jump read in its own
    // words, its compilation said apart, and both kept through the session file.
    void theCompileArmIsReadApartFromCompilation()
    {
        auto arm = [](session::ArmKind kind, double samples) { return ranArm(kind, samples, 32); };
        session::Session s;
        s.environment = {{"device", "NVIDIA H100 80GB HBM3"}};
        session::LabArm compiled = arm(session::ArmKind::Bf16Compile, 900);
        compiled.compileSeconds = 17.5;
        compiled.graphBreaks = 1;
        compiled.recompiles = 0;
        compiled.note = "the script already uses autocast";
        s.lab = {arm(session::ArmKind::Fp32, 300), arm(session::ArmKind::Bf16, 600), compiled};
        const session::LabReading r = session::readLab(s);
        auto has = [&r](const std::string& start) {
            return std::any_of(r.lines.begin(), r.lines.end(),
                               [&](const std::string& line) { return line.starts_with(start); });
        };
        QVERIFY(has("bf16 -> compile is a large jump (1.50×): fusion and fewer launches pay"));
        QVERIFY(has("Compiling took 17.5 s (warm-up, not in the figures above); 1 graph break, "
                    "no recompilation."));
        QVERIFY(!has("bf16 -> CUDA graph"));
        QVERIFY(!has("The script seeds torch itself"));
        s.config["script_reseeds"] = "true";
        const session::LabReading reseeded = session::readLab(s);
        QVERIFY(std::find(reseeded.lines.begin(), reseeded.lines.end(),
                          "The script seeds torch itself (torch.manual_seed): each run used its "
                          "seed, not the lab's.") != reseeded.lines.end());
        s.config.erase("script_reseeds");
        s.lab[2].samplesPerSecond = 500;  // slower than eager bf16: a slowdown, said as one
        const session::LabReading slower = session::readLab(s);
        QVERIFY(std::any_of(slower.lines.begin(), slower.lines.end(), [](const std::string& line) {
            return line.starts_with("bf16 -> compile is a slowdown (0.833×)");
        }));

        const session::LabArm back = session::labArmFrom(session::toJson(compiled));
        QVERIFY(back.kind == session::ArmKind::Bf16Compile);
        QCOMPARE(back.compileSeconds, 17.5);
        QCOMPARE(back.graphBreaks, int64_t(1));
        QCOMPARE(back.recompiles, int64_t(0));
        QCOMPARE(back.note, compiled.note);
        const session::LabArm plain = session::labArmFrom(session::toJson(s.lab[0]));
        QCOMPARE(plain.compileSeconds, -1.0);
        QVERIFY(!session::toJson(s.lab[0]).contains("compile_seconds"));

        // A step's wall time rides as the row's 12th value; a row without one reads -1.
        session::StepTiming t;
        t.step = 9;
        t.wallMs = 12.5;
        const nlohmann::json row = session::toJson(t);
        QCOMPARE(row.size(), size_t(12));
        QCOMPARE(session::stepTimingFrom(row).wallMs, 12.5);
        QCOMPARE(session::stepTimingFrom(row).allocatedBytes, int64_t(-1));
        t.wallMs = -1;
        QCOMPARE(session::toJson(t).size(), size_t(7));
        QCOMPARE(session::stepTimingFrom(session::toJson(t)).wallMs, -1.0);
        // A session keeps every kind of row through its file: the CPU's 7, CUDA's 11, 12
        // (the probe's rows on a GPU: the memory columns and the wall time).
        session::StepTiming cuda = t;
        cuda.allocatedBytes = 1 << 20;
        session::StepTiming cudaWithWall = cuda;
        cudaWithWall.peakReservedBytes = 3 << 20;
        cudaWithWall.wallMs = 7.25;
        QCOMPARE(session::toJson(cudaWithWall).size(), size_t(12));
        const session::StepTiming probeRow = session::stepTimingFrom(
            nlohmann::json::parse("[4,0.5,0.1,2,3,1,0.75,1048576,2097152,3145728,4194304,7.5]"));
        QCOMPARE(probeRow.allocatedBytes, int64_t(1) << 20);
        QCOMPARE(probeRow.peakReservedBytes, int64_t(4) << 20);
        QCOMPARE(probeRow.wallMs, 7.5);
        session::Session withSteps;
        withSteps.steps = {t, cuda, session::stepTimingFrom(row), cudaWithWall};
        std::string error;
        const std::optional<session::Session> reread =
            session::parseSession(session::sessionJson(withSteps), "test", error);
        QVERIFY2(reread, error.c_str());
        QCOMPARE(reread->steps.size(), size_t(4));
        QCOMPARE(reread->steps[1].allocatedBytes, int64_t(1) << 20);
        QCOMPARE(reread->steps[2].wallMs, 12.5);
        QCOMPARE(reread->steps[3].allocatedBytes, int64_t(1) << 20);
        QCOMPARE(reread->steps[3].peakReservedBytes, int64_t(3) << 20);
        QCOMPARE(reread->steps[3].wallMs, 7.25);
    }

    // A workers sweep's best point is read against its fewest workers, with the data wait
    // each measured: the fix and what it bought.
    void theWorkersSweepSaysWhatTheBestBought()
    {
        session::Session s;
        for (const auto& [workers, samples, wait] :
             {std::tuple{0, 1154.0, 17.6}, std::tuple{1, 1355.0, 12.5},
              std::tuple{2, 1778.0, 5.98}}) {
            session::SweepPoint p;
            p.knob = "workers";
            p.value = workers;
            p.samplesPerSecond = samples;
            p.dataWaitMs = wait;
            s.sweep.push_back(p);
        }
        const session::LabReading r = session::readLab(s);
        QCOMPARE(r.lines.size(), size_t(1));
        QCOMPARE(r.lines.front(),
                 std::string("Sweep of workers: best at workers = 2 (1,778 samples/s, 1.54× "
                             "workers = 0's; the data wait 17.6 ms -> 5.98 ms per step)."));
        // The run's split (at its own num_workers=0) read its wait under its compute, but the
        // sweep measured 1.54x with two workers: the loader does not keep up (a CI run read
        // "compute-bound, the loader keeps up" beside a sweep of 2.73x).
        s.config["workers"] = "0";
        s.dataLoaderMs = 1.5;
        s.computeMs = 4.0;
        const std::string split = session::readLab(s).lines.front();
        QVERIFY2(split.find("keeps up") == std::string::npos, split.c_str());
        QVERIFY2(split.find("DataLoader 1.50 ms vs compute 4.00 ms per step: the wait is under the "
                            "compute, but the workers sweep measured workers = 2 at 1.54× the "
                            "samples per second of the run's 0: the loader holds the run back") !=
                     std::string::npos,
                 split.c_str());
        // Run with one worker, 1.31x from the best: still held back; run with the best's two,
        // or with a count the sweep did not measure: the split's own verdict stands.
        s.config["workers"] = "1";
        QVERIFY(session::readLab(s).lines.front().find("holds the run back") != std::string::npos);
        for (const char* ran : {"2", "3", "two"}) {
            s.config["workers"] = ran;
            const std::string own = session::readLab(s).lines.front();
            // (27.3 % of the step waiting: not a loader that keeps up, helper 47)
            QVERIFY2(own.ends_with("per step: compute takes most of the step, but the loop waits "
                                   "27.3 % of it for the next batch: the loader does not keep up "
                                   "(more workers, pinned memory, cheaper transforms)."),
                     own.c_str());
        }
        s.dataLoaderMs = 0.1;  // 2.4 % of the step
        const std::string keepsUp = session::readLab(s).lines.front();
        QVERIFY2(keepsUp.ends_with("per step: compute-bound, the loader keeps up."),
                 keepsUp.c_str());
        // A sweep through the run's own count that more workers did not beat (1.05x): the
        // wait is not the workers' count, and more workers are not advised (helper 49).
        s.dataLoaderMs = 1.5;
        s.config["workers"] = "1";
        s.sweep[2].samplesPerSecond = 1355.0 * 1.05;
        const std::string notWorkers = session::readLab(s).lines.front();
        QVERIFY2(notWorkers.ends_with("per step: compute takes most of the step; the loop waits "
                                      "27.3 % of it for the next batch, which more workers did "
                                      "not shorten (the workers sweep): the batch's own cost in "
                                      "the loop's process (collation, transforms, pinning) sets "
                                      "it."),
                 notWorkers.c_str());
    }

    // Real processes: a child measured while a busy process of another runs beside it sees
    // that process's core; a child that keeps a core busy itself (with the processes it
    // starts and waits for) is not counted as another's.
    void otherProcessesAreMeasuredBesideAChild()
    {
        auto spawn = [](lab::ChildProcess& child, const std::string& script) {
            lab::SpawnSpec spec;
            spec.name = "the test's shell";
            spec.executable = "/bin/sh";
            spec.args = {"-c", script};
            spec.noChannel = true;
            std::string error;
            QVERIFY2(child.spawn(spec, error), error.c_str());
        };
        auto waitFor = [](lab::ChildProcess& child) {
            while (!child.reap())
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
        };
        std::optional<double> beside, alone;
        {
            lab::ChildProcess busy;  // not the measured child's: another process
            spawn(busy, "while :; do :; done");
            lab::ChildProcess measured;
            spawn(measured, "sleep 1.5");
            waitFor(measured);
            beside = measured.otherProcessesCores();
            busy.signal(SIGKILL);
            waitFor(busy);
        }
        {
            lab::ChildProcess measured;  // busy itself, and through `date` children it waits for
            spawn(measured, "end=$(($(date +%s) + 2)); while [ $(date +%s) -lt $end ]; do :; done");
            waitFor(measured);
            alone = measured.otherProcessesCores();
        }
        QVERIFY(beside && alone);
        qInfo("other processes: %.2f cores beside a busy process, %.2f alone", *beside, *alone);
        QVERIFY2(*beside >= session::kSharedMachineCores, QByteArray::number(*beside));
        QVERIFY2(*alone < *beside,
                 QByteArray::number(*alone) + " >= " + QByteArray::number(*beside));

        // Work on this process's own thread (the engine's arms): its CPU is the work's.
        auto spinHere = [] {
            lab::OtherProcessesCpu others;
            others.start();
            const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1200);
            volatile unsigned long long spins = 0;
            while (std::chrono::steady_clock::now() < end)
                spins = spins + 1;
            others.finishInProcess();
            return others.cores();
        };
        std::optional<double> inProcessBeside, inProcessAlone;
        {
            lab::ChildProcess busy;
            spawn(busy, "while :; do :; done");
            inProcessBeside = spinHere();
            busy.signal(SIGKILL);
            waitFor(busy);
        }
        inProcessAlone = spinHere();
        QVERIFY(inProcessBeside && inProcessAlone);
        qInfo("in this process: %.2f cores beside a busy process, %.2f alone", *inProcessBeside,
              *inProcessAlone);
        QVERIFY2(*inProcessBeside >= session::kSharedMachineCores,
                 QByteArray::number(*inProcessBeside));
        QVERIFY2(*inProcessAlone < *inProcessBeside, QByteArray::number(*inProcessAlone) + " >= " +
                                                         QByteArray::number(*inProcessBeside));
    }

    // A long run's session is saved less often as it grows: at most 2 % of the launcher's
    // time and 1 MB/s of writes on average, never more often than every 2 s.
    void aGrowingSessionIsSavedLessOften()
    {
        using Clock = lab::SavePacing::Clock;
        using std::chrono::milliseconds;
        using std::chrono::seconds;
        const Clock::time_point t0 = Clock::now();
        lab::SavePacing pacing(t0);
        QVERIFY(!pacing.due(t0 + milliseconds(1999)));
        QVERIFY(pacing.due(t0 + seconds(2)));
        pacing.saved(t0 + seconds(2), t0 + seconds(2) + milliseconds(5), 200e3);  // small, quick
        QVERIFY(pacing.next() == t0 + seconds(4) + milliseconds(5));
        pacing.saved(t0, t0 + milliseconds(600), 1e6);  // slow: 50 x its time
        QVERIFY(pacing.next() == t0 + milliseconds(600) + seconds(30));
        pacing.saved(t0, t0 + milliseconds(10), 48.0 * (1 << 20));  // big: 1 MB/s
        QVERIFY(pacing.next() == t0 + milliseconds(10) + seconds(48));

        // A real session file of 100,000 steps, its size read from the disk.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        session::Session big;
        for (int64_t step = 0; step < 100000; ++step) {
            session::StepTiming timing;
            timing.step = step;
            timing.wallMs = 101.25;
            big.steps.push_back(timing);
        }
        const std::string path = (dir.path() + "/session.kinetoscope.json").toStdString();
        std::string error;
        const Clock::time_point began = Clock::now();
        QVERIFY2(session::saveSession(big, path, error), error.c_str());
        const Clock::time_point ended = Clock::now();
        lab::SavePacing real(began);
        real.saved(began, ended, path);
        const double bytes = double(std::filesystem::file_size(path));
        const double waitS = std::chrono::duration<double>(real.next() - ended).count();
        qInfo("100,000 steps: %.1f MB saved in %.0f ms, the next save %.1f s later", bytes / 1e6,
              std::chrono::duration<double, std::milli>(ended - began).count(), waitS);
        QVERIFY2(waitS >= bytes / lab::SavePacing::kBytesPerSecond - 1e-3,
                 QByteArray::number(waitS));
        QVERIFY2(waitS > 2.0, QByteArray::number(waitS));
    }

    // A run that shared the machine says so before the jumps, in the arms' lines and in the
    // session file; a script run's measure becomes its arm's and its sweep point's.
    void aRunThatSharedTheMachineSaysSo()
    {
        QVERIFY(!session::sharedMachine(-1, 2));
        QVERIFY(!session::sharedMachine(0.4, 2));
        QVERIFY(session::sharedMachine(0.6, 2));
        QVERIFY(!session::sharedMachine(0.6, 16));  // under a tenth of 16 cores
        QVERIFY(session::sharedMachine(0.6, 0));    // cores not recorded: the count alone

        session::Session run;
        run.config = {{"batch_size", "32"}, {"other_cpu_cores", "1.02"}};
        session::StepTiming t;
        t.wallMs = 10;
        run.steps = {t, t};
        QCOMPARE(lab::armFromRun("bf16", run, "").otherCpuCores, 1.02);
        QCOMPARE(lab::sweepPointFromRun("workers", 4, run, "", 0).otherCpuCores, 1.02);
        run.config.erase("other_cpu_cores");
        QCOMPARE(lab::armFromRun("bf16", run, "").otherCpuCores, -1.0);

        auto arm = [](session::ArmKind kind, double samples, double others) {
            session::LabArm a = ranArm(kind, samples, 32);
            a.otherCpuCores = others;
            return a;
        };
        session::Session s;
        s.environment = {{"device", "CPU"}, {"cpu_bf16", "amx_bf16"}, {"host_threads", "2"}};
        s.lab = {arm(session::ArmKind::Fp32, 12763, 0.03), arm(session::ArmKind::Bf16, 514, 1.02)};
        const session::LabReading r = session::readLab(s);
        QVERIFY(r.lines.size() >= 2);
        QCOMPARE(r.lines.front(),
                 std::string("Other processes used the CPU while the bf16 run went on (cores in "
                             "use by them on average: bf16 1.02, of the machine's 2): the "
                             "figures, and the jumps between runs, are the machine's as much as "
                             "the model's; run the lab again on an idle machine."));
        QVERIFY(r.lines[1].starts_with("fp32 -> bf16 is a slowdown"));
        const std::vector<session::SharedRun> shared = session::sharedRuns(s);
        QCOMPARE(shared.size(), size_t(1));
        QCOMPARE(shared.front().run, std::string("bf16"));

        const session::LabArm back = session::labArmFrom(session::toJson(s.lab[1]));
        QCOMPARE(back.otherCpuCores, 1.02);
        QCOMPARE(session::labArmFrom(session::toJson(ranArm(session::ArmKind::Fp32, 1, 1)))
                     .otherCpuCores,
                 -1.0);

        s.lab[1].otherCpuCores = 0.2;  // a quiet machine: nothing said
        QVERIFY(session::readLab(s).lines.front().starts_with("fp32 -> bf16"));
    }

    void theTriageRoundTripsThroughJson()
    {
        session::MemoryTriage m;
        m.firstStep = stepPeakingAfter("optimizer step", 1200, 1300);
        m.steadyStep = stepPeakingAfter("forward", 900, 1000);
        m.peakPerStep = {1200, 900, 900};
        m.split = {42634, 8, 170536, 170536, 341104, 4096};
        const session::MemoryTriage back = session::memoryTriageFrom(session::toJson(m));
        QCOMPARE(back.steadyStep.size(), m.steadyStep.size());
        QCOMPARE(back.steadyStep[2].peakAllocatedBytes, int64_t(900));
        QCOMPARE(back.firstStep[5].phase, std::string("optimizer step"));
        QCOMPARE(back.peakPerStep, m.peakPerStep);
        QCOMPARE(back.split.optimizerStateBytes, int64_t(341104));
        QCOMPARE(back.split.activationBytes, int64_t(4096));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 session::memoryTriageFrom(nlohmann::json::array()));
    }
};

QTEST_GUILESS_MAIN(TestLabReadings)
#include "test_lab_readings.moc"
