// The engine on the CPU: a small mlp lab run with the split and a profiler window writes
// a session whose LibTorch trace loads, summarises and diagnoses; the fault paths give
// one-line reasons and keep what was measured.
#include "app/cli/cli_main.h"
#include "core/analysis/summary.h"
#include "core/engine/lab_runner.h"
#include "core/format/format.h"
#include "core/session/memory_reading.h"
#include "core/trace/trace_loader.h"
#include "tests/support/small_lab_run.h"

#include <QtTest>
#include <cmath>
#include <sstream>

using namespace kinetoscope;

class TestLabRunner : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    engine::RunConfig small(const char* out) const
    {
        return test::smallLabRun(
            (m_dir.path() + QLatin1Char('/') + QLatin1String(out)).toStdString(), 8);
    }

private Q_SLOTS:
    void runsTheLabWithSplitAndProfilerWindow()
    {
        engine::RunConfig c = small("lab");
        c.lab = c.split = c.profile = true;
        c.workers = 2;
        const engine::RunResult r = engine::runLab(c);
        QVERIFY2(r.ok, r.error.c_str());
        const session::Session& s = r.session;
        QCOMPARE(s.lab.size(), size_t(3));
        QVERIFY(s.lab[0].ran && s.lab[0].samplesPerSecond > 0);
        QVERIFY(s.lab[1].ran && s.lab[1].meanStepMs > 0);
        QCOMPARE(QString::fromStdString(s.lab[2].skippedReason), QString("needs a GPU"));
        QCOMPARE(s.phases.size(), size_t(5));
        QVERIFY(s.phases[2].meanMs > 0 && s.phases[2].p95Ms >= s.phases[2].medianMs);
        QVERIFY(s.dataLoaderMs && s.computeMs);
        QCOMPARE(QString::fromStdString(s.tracePath), QString("trace.json"));
        QCOMPARE(s.steps.size(), size_t(c.steps));  // every measured fp32 step, in order
        QCOMPARE(s.steps.front().step, c.warmup);
        // No CUDA allocator on the CPU: the engine's counting allocator gives the peak.
        QVERIFY(s.lab[0].peakAllocatedBytes > 0);
        // Live samples while it ran: CPU busy share and resident memory; no GPU here.
        QVERIFY(!s.samples.empty());
        for (const session::LiveSample& sample : s.samples) {
            QVERIFY(sample.cpuPercent >= 0 && sample.cpuPercent <= 100);
            QVERIFY(sample.residentBytes > 0);
            if (s.environment.at("nvml") != "yes")
                QCOMPARE(sample.gpuPercent, -1.0);
        }
        for (size_t i = 1; i < s.samples.size(); ++i)
            QVERIFY(s.samples[i].seconds > s.samples[i - 1].seconds);

        // The LibTorch trace goes through the same ingest and analysis as any file.
        const trace::LoadResult loaded = trace::loadTraceFile(c.outDir + "/trace.json");
        QVERIFY2(loaded.ok(), loaded.message.c_str());
        const analysis::TraceSummary summary = analysis::summarize(*loaded.model);
        QVERIFY(summary.steps.fromMarkers);
        // Every active step is a ProfilerStep marker; on a loaded machine one may be
        // timed as an outlier and left out of the steady set, never out of allSteps.
        QCOMPARE(summary.window.allSteps.size(), size_t(5));
        QVERIFY(!summary.steps.steps.empty() && summary.steps.steps.size() <= 5);
        // The window follows the measured steps and a step that prepares the profiler:
        // no measured figure carries the profiler's cost.
        for (const analysis::Step& step : summary.window.allSteps)
            QVERIFY2(std::stoll(step.name.substr(step.name.find('#') + 1)) >
                         s.steps.back().step + 1,
                     step.name.c_str());
        QVERIFY(summary.breakdown.all.average(analysis::TimeCategory::DataLoader) > 0);

        std::ostringstream out, err;
        QCOMPARE(cli::run({"diagnose", r.sessionPath, "--json"}, out, err), 0);
        QVERIFY(out.str().find("\"findings\"") != std::string::npos);
    }

    void reportsBadModelsAndDevicesInOneLine()
    {
        engine::RunConfig c = small("bad-model");
        c.model = "no-such-model";
        engine::RunResult r = engine::runLab(c);
        QVERIFY(!r.ok);
        QVERIFY(r.error.find("no-such-model") != std::string::npos);
        QVERIFY(r.error.find('\n') == std::string::npos);
        QVERIFY(r.sessionPath.empty());  // a run that could not start writes no session

        c = small("bad-device");
        c.device = "tpu";
        r = engine::runLab(c);
        QVERIFY(!r.ok);
        QVERIFY(r.error.find("--device") != std::string::npos);
    }

    void stopsOnANanLossNamingTheStep()
    {
        engine::RunConfig c = small("nan");
        c.poisonLossAtStep = 4;
        const engine::RunResult r = engine::runLab(c);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.find("NaN at step 4") != std::string::npos, r.error.c_str());
        QVERIFY(QFileInfo::exists(QString::fromStdString(r.sessionPath)));
    }

    // Issue 50 item 9: a cancel inside the first arm, whose steps reach the session only
    // when the arm ends, keeps every step measured before it, their phases, and who
    // cancelled it and where; the saved session reads the same.
    void aCancelInTheFirstArmKeepsItsSteps()
    {
        engine::RunConfig c = small("cancel-first");
        c.steps = 100000;
        std::atomic<bool> cancel{false};
        engine::RunCallbacks callbacks;
        callbacks.cancel = &cancel;
        callbacks.cancelledBy = [] { return std::string("a test"); };
        int reported = 0;
        callbacks.step = [&](const session::StepTiming&) {
            if (++reported == 5)
                cancel = true;
        };
        const engine::RunResult r = engine::runLab(c, callbacks);
        QVERIFY(!r.ok);
        const std::string where = "cancelled by a test in the fp32 arm after step " +
                                  format::count(int64_t(c.warmup + 5)) + " of " +
                                  format::count(int64_t(c.warmup + c.steps));  // "100,003"
        QCOMPARE(r.error, where + "; kept: 5 steps, 0 arms in " + r.sessionPath);
        std::string error;
        const auto saved = session::loadSession(r.sessionPath, error);
        QVERIFY2(saved, error.c_str());
        QCOMPARE(saved->interrupted, where);
        QCOMPARE(saved->steps.size(), size_t(5));
        QCOMPARE(saved->steps.front().step, c.warmup);
        QVERIFY(saved->lab.empty());
        QCOMPARE(saved->phases.size(), size_t(5));
        QCOMPARE(saved->phases[2].phase, std::string("forward"));
        QVERIFY(saved->phases[2].meanMs > 0);
    }

    void cancelsAtOnceKeepingWhatWasMeasured()
    {
        engine::RunConfig c = small("cancel");
        c.lab = true;
        std::atomic<bool> cancel{false};
        engine::RunCallbacks callbacks;
        callbacks.cancel = &cancel;
        std::vector<engine::RunProgress> fp32Progress;
        callbacks.progress = [&](const engine::RunProgress& progress) {
            if (progress.stage == "fp32")
                fp32Progress.push_back(progress);
            if (progress.stage == "bf16")
                cancel = true;  // during the second arm
        };
        const engine::RunResult r = engine::runLab(c, callbacks);
        QVERIFY(!r.ok);
        // Where: the bf16 arm's first step ran, the second never began.
        const std::string where = "cancelled in the bf16 arm after step 1 of " +
                                  format::count(int64_t(c.warmup + c.steps));
        QCOMPARE(r.session.interrupted, where);
        QCOMPARE(r.error, where + "; kept: " + std::to_string(c.steps) + " steps, 1 arm in " +
                              r.sessionPath);
        QCOMPARE(r.session.lab.size(), size_t(1));  // the fp32 arm is kept
        QVERIFY(r.session.lab[0].ran);
        // One progress message as each step starts, warm-up included, numbered in the stage.
        QCOMPARE(int64_t(fp32Progress.size()), c.warmup + c.steps);
        for (size_t i = 0; i < fp32Progress.size(); ++i) {
            QCOMPARE(fp32Progress[i].step, int64_t(i));
            QCOMPARE(fp32Progress[i].steps, c.warmup + c.steps);
        }
    }

    void anOutOfMemoryInOneArmKeepsTheOthers()
    {
        // The bf16 arm fails as an allocator failure does (c10::OutOfMemoryError, injected:
        // a CPU cannot be made to run out in only one arm).
        engine::RunConfig c = small("oom-arm");
        c.lab = true;
        c.outOfMemoryInArm = "bf16";
        const engine::RunResult r = engine::runLab(c);
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.session.lab.size(), size_t(3));
        QVERIFY(r.session.lab[0].ran);
        QVERIFY(!r.session.lab[1].ran);
        QCOMPARE(QString::fromStdString(r.session.lab[1].skippedReason),
                 QString("out of memory at batch size 32"));
        std::string error;
        const auto saved = session::loadSession(r.sessionPath, error);
        QVERIFY(saved && saved->lab[0].ran && saved->lab[0].samplesPerSecond > 0);
    }

    // An arm or a sweep point of half a second or more says how many cores other processes
    // took meanwhile (the engine's own threads are the run's), as a script's run does.
    void anArmOfHalfASecondKnowsWhatOtherProcessesTook()
    {
        engine::RunConfig c = small("others");
        c.sampleCpuUs = 2500;  // 80 ms a batch of 32 on the loading thread: 10 steps, 0.8 s
        c.sweepWorkers = {0};
        const engine::RunResult r = engine::runLab(c);
        QVERIFY2(r.ok, r.error.c_str());
        QVERIFY(r.session.lab[0].ran);
        QVERIFY2(r.session.lab[0].otherCpuCores >= 0,
                 QByteArray::number(r.session.lab[0].otherCpuCores));
        QVERIFY(r.session.sweep.at(0).otherCpuCores >= 0);
        std::string error;
        const auto saved = session::loadSession(r.sessionPath, error);
        QVERIFY(saved && saved->lab[0].otherCpuCores == r.session.lab[0].otherCpuCores);
    }

    void aRealOutOfMemoryInASweepPointKeepsTheOthers()
    {
        // A batch of 10^12 samples: the CPU allocator really refuses it, inside a loader
        // worker thread; the error crosses to the training thread and names the batch size.
        engine::RunConfig c = small("oom-sweep");
        c.workers = 2;
        c.sweepBatchSizes = {16, 1'000'000'000'000};
        const engine::RunResult r = engine::runLab(c);
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.session.sweep.size(), size_t(2));
        QVERIFY(r.session.sweep[0].samplesPerSecond > 0 && r.session.sweep[0].error.empty());
        QCOMPARE(QString::fromStdString(r.session.sweep[1].error),
                 QString("out of memory at batch size 1000000000000"));
    }

    void memoryTriageSplitIsExact_data()
    {
        QTest::addColumn<QString>("model");
        QTest::newRow("mlp") << "mlp";
        QTest::newRow("cnn") << "cnn";
    }

    void memoryTriageSplitIsExact()
    {
        QFETCH(QString, model);
        engine::RunConfig c = small(model == "mlp" ? "triage-mlp" : "triage-cnn");
        c.model = model.toStdString();
        c.steps = 3;
        c.imageSize = 8;
        c.layers = model == "mlp" ? 4 : 2;
        std::vector<session::MemoryTriage> heard;
        engine::RunCallbacks callbacks;
        callbacks.memory = [&](const session::MemoryTriage& m) { heard.push_back(m); };
        const engine::RunResult r = engine::runLab(c, callbacks);
        QVERIFY2(r.ok, r.error.c_str());
        QVERIFY(r.session.memory);
        QCOMPARE(heard.size(), size_t(1));
        const session::MemoryTriage& m = *r.session.memory;
        // The parameter count from the model's definition (models.cpp): mlp = Linear(64,
        // hidden) + (layers - 2) x Linear(hidden, hidden) + Linear(hidden, classes); cnn =
        // Conv(3, 32) + BN(32) + Conv(32, 64) + BN(64) + Linear(64, classes), convolutions
        // 3x3 without bias.
        int64_t count = 0, tensors = 0;
        if (model == "mlp") {
            int64_t width = c.inputFeatures;
            for (int64_t i = 0; i < c.layers - 1; ++i, width = c.hidden)
                count += width * c.hidden + c.hidden, tensors += 2;
            count += width * c.classes + c.classes, tensors += 2;
        } else {
            count = 3 * 32 * 9 + 2 * 32 + 32 * 64 * 9 + 2 * 64 + 64 * c.classes + c.classes;
            tensors = 1 + 2 + 1 + 2 + 2;
        }
        QCOMPARE(m.split.parameterCount, count);
        QCOMPARE(m.split.parameterTensors, tensors);
        QCOMPARE(m.split.parameterBytes, 4 * count);  // float32
        QCOMPARE(m.split.gradientBytes, m.split.parameterBytes);
        // Adam: two moments per parameter and a float32 step count per tensor.
        QCOMPARE(m.split.optimizerStateBytes, 2 * m.split.parameterBytes + 4 * tensors);
        // The phase table is there, from the engine's counting allocator: allocated and
        // the step's peak; nothing reserved on the CPU, and said once (issue 29).
        QCOMPARE(QString::fromStdString(m.unavailable),
                 QString("reserved: the CPU has no caching allocator"));
        const std::vector<std::string> phases{"start",    "batch to device", "forward",  "loss",
                                              "backward", "optimizer step",  "zero_grad"};
        for (const auto* rows : {&m.firstStep, &m.steadyStep}) {
            QCOMPARE(rows->size(), phases.size());
            for (size_t i = 0; i < phases.size(); ++i) {
                QCOMPARE((*rows)[i].phase, phases[i]);
                QCOMPARE((*rows)[i].reservedBytes, int64_t(-1));
                // The parameters at least are live all along; the peak never below the live bytes.
                QVERIFY((*rows)[i].allocatedBytes >= m.split.parameterBytes);
                QVERIFY((*rows)[i].peakAllocatedBytes >= (*rows)[i].allocatedBytes);
            }
        }
        // The optimizer's state appears on step 0's optimizer step, and stays.
        QVERIFY(m.firstStep[5].allocatedBytes - m.firstStep[4].allocatedBytes >=
                m.split.optimizerStateBytes - 4096);
        // Activations: what forward and the loss kept on top of the batch.
        QVERIFY(m.split.activationBytes > 0);
        QCOMPARE(int64_t(m.peakPerStep.size()),
                 c.warmup + c.steps);  // no loader worker: every step's peak
        QVERIFY(session::readPeak(m));
        // It survives the session file.
        std::string error;
        const auto saved = session::loadSession(r.sessionPath, error);
        QVERIFY2(saved && saved->memory, error.c_str());
        QCOMPARE(saved->memory->split.optimizerStateBytes, m.split.optimizerStateBytes);
        QCOMPARE(saved->memory->steadyStep.size(), phases.size());
    }

    void theBatchSweepStopsAtTheFirstOutOfMemoryUnderALimit()
    {
        // A 64 MiB limit: the batch of 262144 samples x 64 float32 features is 64 MiB by
        // itself, so the counting allocator refuses it where the loader makes it.
        engine::RunConfig c = small("fit");
        c.steps = 3;
        c.memoryLimitMb = 64;
        c.sweepBatchSizes = {16, 64, 256, 262144, 1048576};
        const engine::RunResult r = engine::runLab(c);
        QVERIFY2(r.ok, r.error.c_str());
        const std::vector<session::SweepPoint>& sweep = r.session.sweep;
        QCOMPARE(sweep.size(), size_t(5));
        for (size_t i = 0; i < 3; ++i)
            QVERIFY2(sweep[i].error.empty() && sweep[i].samplesPerSecond > 0 &&
                         sweep[i].meanStepMs > 0,
                     sweep[i].error.c_str());
        QCOMPARE(QString::fromStdString(sweep[3].error),
                 QString("out of memory at batch size 262144"));
        QCOMPARE(QString::fromStdString(sweep[4].error),
                 QString("not run: batch size 262144 ran out of memory"));
        QCOMPARE(sweep[4].samplesPerSecond, 0.0);
        // The counting allocator's step peak grows with the batch.
        QVERIFY(sweep[0].peakAllocatedBytes > 0 &&
                sweep[2].peakAllocatedBytes > sweep[0].peakAllocatedBytes);
        QCOMPARE(r.session.config.at("memory_limit_mb"), std::string("64"));
        const session::BatchFit fit = session::readBatchFit(r.session);
        QCOMPARE(fit.largestFits, std::optional<int64_t>(256));
        QCOMPARE(fit.firstOutOfMemory, std::optional<int64_t>(262144));
        size_t fastest = 0;
        for (size_t i = 1; i < 3; ++i)
            if (sweep[i].samplesPerSecond > sweep[fastest].samplesPerSecond)
                fastest = i;
        QCOMPARE(fit.fastest, std::optional<int64_t>(sweep[fastest].value));
        // The limit is lifted with the run: the same batch now fits.
        engine::RunConfig after = small("fit-after");
        after.steps = 1;
        after.warmup = 0;
        after.batchSize = 262144;
        const engine::RunResult unlimited = engine::runLab(after);
        QVERIFY2(unlimited.ok, unlimited.error.c_str());
    }

    void checkpointingSavesMemoryAndKeepsTheLoss()
    {
        // A small transformer of four equal blocks: each keeps its norms, projections,
        // attention and MLP activations for backward unless it is checkpointed.
        auto transformer = [&](const char* out, int64_t every) {
            engine::RunConfig c = small(out);
            c.model = "transformer";
            c.hidden = 64;
            c.heads = 4;
            c.layers = 4;
            c.sequenceLength = 64;
            c.vocabulary = 100;
            c.batchSize = 16;
            c.steps = 3;
            c.warmup = 1;
            c.checkpointEvery = every;
            return c;
        };
        engine::RunConfig c = transformer("checkpoint", 1);
        c.sweepBatchSizes = {8, 16};
        const engine::RunResult r = engine::runLab(c);
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.session.config.at("checkpoint_every"), std::string("1"));

        // Backward through the recomputed blocks gives the gradients plain backward does:
        // the same losses, step after step.
        const engine::RunResult plain = engine::runLab(transformer("checkpoint-off", 0));
        QVERIFY2(plain.ok, plain.error.c_str());
        QCOMPARE(r.session.steps.size(), plain.session.steps.size());
        for (size_t i = 0; i < plain.session.steps.size(); ++i) {
            const double with = r.session.steps[i].loss, without = plain.session.steps[i].loss;
            QVERIFY2(std::abs(with - without) <= 1e-5 * std::max(1.0, std::abs(without)),
                     qPrintable(QString("step %1: %2 vs %3").arg(i).arg(with).arg(without)));
        }

        // Each batch size runs without and then with checkpointing, side by side.
        const std::vector<session::SweepPoint>& sweep = r.session.sweep;
        QCOMPARE(sweep.size(), size_t(4));
        for (size_t i = 0; i < sweep.size(); ++i) {
            QVERIFY2(sweep[i].error.empty(), sweep[i].error.c_str());
            QCOMPARE(sweep[i].value, i < 2 ? int64_t(8) : int64_t(16));
            QCOMPARE(sweep[i].checkpointEvery, int64_t(i % 2));
            QVERIFY(sweep[i].peakAllocatedBytes > 0 && sweep[i].meanStepMs > 0);
        }
        for (size_t i = 0; i < sweep.size(); i += 2)
            QVERIFY2(sweep[i + 1].peakAllocatedBytes < sweep[i].peakAllocatedBytes,
                     qPrintable(QString("batch %1: %2 bytes with, %3 without")
                                    .arg(sweep[i].value)
                                    .arg(sweep[i + 1].peakAllocatedBytes)
                                    .arg(sweep[i].peakAllocatedBytes)));
        const std::optional<session::CheckpointTrade> trade =
            session::readCheckpointTrade(r.session);
        QVERIFY(trade);
        QCOMPARE(trade->batchSize, int64_t(16));
        QCOMPARE(trade->every, int64_t(1));
        QCOMPARE(trade->peakWithoutBytes, sweep[2].peakAllocatedBytes);
        QCOMPARE(trade->peakWithBytes, sweep[3].peakAllocatedBytes);
        QVERIFY(trade->memorySaved() > 0);
        // Every 5th of four blocks would checkpoint none: refused before anything runs.
        engine::RunConfig tooFew = transformer("checkpoint-too-few", 5);
        const engine::RunResult refused = engine::runLab(tooFew);
        QVERIFY(!refused.ok);
        QCOMPARE(
            QString::fromStdString(refused.error),
            QString("--checkpoint-every 5: the transformer has 4 blocks (--layers sets them)"));
        // The sweep's point with checkpointing survives the session file.
        std::string error;
        const auto saved = session::loadSession(r.sessionPath, error);
        QVERIFY2(saved, error.c_str());
        QCOMPARE(saved->sweep.at(3).checkpointEvery, int64_t(1));
        QCOMPARE(saved->sweep.at(2).checkpointEvery, int64_t(0));
    }

    void inferenceLatencyFollowsThePlantedDelays()
    {
        // 90 batches of 2 ms, 8 of 10 ms, 2 of 40 ms, slept inside each timed forward:
        // nearest rank puts the median at 2, p95 at 10 and p99 at 40 ms. Sleeps only
        // overshoot and the levels are 5x apart, so each statistic stays in its band.
        engine::RunConfig c = small("inference");
        c.mode = "inference";
        c.steps = 100;
        c.warmup = 3;
        c.lab = true;
        c.liveSamples = false;
        c.plantedLatencyUs.assign(90, 2000);
        c.plantedLatencyUs.insert(c.plantedLatencyUs.end(), 8, 10000);
        c.plantedLatencyUs.insert(c.plantedLatencyUs.end(), 2, 40000);
        const engine::RunResult r = engine::runLab(c);
        QVERIFY2(r.ok, r.error.c_str());
        const session::Session& s = r.session;
        QVERIFY(s.inference());
        QCOMPARE(s.steps.size(), size_t(100));
        for (const session::StepTiming& t : s.steps)
            QVERIFY(t.backwardMs == 0 && t.optimizerMs == 0 && t.forwardMs >= 2.0);
        QVERIFY(!s.memory);                     // no training step to triage
        for (size_t arm = 0; arm < 2; ++arm) {  // fp32 and bf16; the graph arm needs a GPU
            const session::PhaseTiming& l = s.lab[arm].latency;
            QCOMPARE(QString::fromStdString(l.phase), QString("latency"));
            const QByteArray what = QString("%1: mean %2 median %3 p95 %4 p99 %5")
                                        .arg(s.lab[arm].name())
                                        .arg(l.meanMs)
                                        .arg(l.medianMs)
                                        .arg(l.p95Ms)
                                        .arg(l.p99Ms)
                                        .toUtf8();
            QVERIFY2(l.medianMs >= 2.0 && l.medianMs < 10.0, what.constData());
            QVERIFY2(l.p95Ms >= 10.0 && l.p95Ms < 40.0, what.constData());
            QVERIFY2(l.p99Ms >= 40.0, what.constData());
            QVERIFY2(l.meanMs >= 3.4 && l.stdMs > 0, what.constData());
            QCOMPARE(s.lab[arm].meanStepMs, l.meanMs);
            QVERIFY(std::abs(s.lab[arm].samplesPerSecond - double(c.batchSize) * 1e3 / l.meanMs) <
                    1e-6);
        }
        QCOMPARE(QString::fromStdString(s.lab[2].skippedReason), QString("needs a GPU"));
        std::string error;
        const auto saved = session::loadSession(r.sessionPath, error);
        QVERIFY2(saved && saved->inference(), error.c_str());
        QCOMPARE(saved->lab[0].latency.p99Ms, s.lab[0].latency.p99Ms);
    }

    void sweepsTheWorkerCount()
    {
        engine::RunConfig c = small("sweep");
        c.sampleIoUs = 200;  // a slow disk: more workers should help
        c.steps = 16;
        c.sweepWorkers = {0, 4};
        std::vector<session::SweepPoint> seen;
        engine::RunCallbacks callbacks;
        callbacks.sweepPoint = [&](const session::SweepPoint& p) { seen.push_back(p); };
        const engine::RunResult r = engine::runLab(c, callbacks);
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(seen.size(), size_t(2));
        QCOMPARE(r.session.sweep.size(), size_t(2));
        QCOMPARE(r.session.sweep[1].value, int64_t(4));
        // 32 samples x 200 us = 6.4 ms of waiting per batch in the training thread; four
        // workers load four batches at once and hide most of it. The data wait is asserted,
        // not samples/s: a loaded CI machine slows the compute, which only hides more of
        // the wait, whereas samples/s of a starved run says nothing about the loader.
        QVERIFY(r.session.sweep[0].dataWaitMs > 5.0);
        QVERIFY2(r.session.sweep[1].dataWaitMs < 0.5 * r.session.sweep[0].dataWaitMs,
                 qPrintable(QString("%1 ms vs %2 ms")
                                .arg(r.session.sweep[1].dataWaitMs)
                                .arg(r.session.sweep[0].dataWaitMs)));
        QVERIFY(r.session.sweep[1].samplesPerSecond > 0);
        std::string error;
        const auto saved = session::loadSession(r.sessionPath, error);
        QVERIFY(saved && saved->sweep.size() == 2 && saved->sweep[1].value == 4);
    }
};

QTEST_GUILESS_MAIN(TestLabRunner)
#include "test_lab_runner.moc"
