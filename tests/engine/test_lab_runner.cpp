// The engine on the CPU: a small mlp lab run with the split and a profiler window writes
// a session whose LibTorch trace loads, summarises and diagnoses; the fault paths give
// one-line reasons and keep what was measured.
#include "app/cli/cli_main.h"
#include "core/analysis/summary.h"
#include "core/engine/lab_runner.h"
#include "core/trace/trace_loader.h"
#include "tests/support/small_lab_run.h"

#include <QtTest>

#include <sstream>

using namespace kinetoscope;

class TestLabRunner : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    engine::RunConfig small(const char* out) const
    {
        return test::smallLabRun((m_dir.path() + QLatin1Char('/') + QLatin1String(out)).toStdString(), 8);
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
        QCOMPARE(s.lab[0].peakAllocatedBytes, int64_t(-1));  // no CUDA allocator on the CPU
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
        QVERIFY(!r.sessionPath.empty());  // the configuration is still saved

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

    void cancelsAtOnceKeepingWhatWasMeasured()
    {
        engine::RunConfig c = small("cancel");
        c.lab = true;
        std::atomic<bool> cancel{false};
        engine::RunCallbacks callbacks;
        callbacks.cancel = &cancel;
        callbacks.progress = [&](const std::string& stage, double) {
            if (stage == "bf16")
                cancel = true;  // during the second arm
        };
        const engine::RunResult r = engine::runLab(c, callbacks);
        QVERIFY(!r.ok);
        QCOMPARE(QString::fromStdString(r.error), QString("cancelled"));
        QCOMPARE(r.session.lab.size(), size_t(1));  // the fp32 arm is kept
        QVERIFY(r.session.lab[0].ran);
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
        QCOMPARE(QString::fromStdString(r.session.lab[1].skippedReason), QString("out of memory at batch size 32"));
        std::string error;
        const auto saved = session::loadSession(r.sessionPath, error);
        QVERIFY(saved && saved->lab[0].ran && saved->lab[0].samplesPerSecond > 0);
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
                 qPrintable(QString("%1 ms vs %2 ms").arg(r.session.sweep[1].dataWaitMs).arg(r.session.sweep[0].dataWaitMs)));
        QVERIFY(r.session.sweep[1].samplesPerSecond > 0);
        std::string error;
        const auto saved = session::loadSession(r.sessionPath, error);
        QVERIFY(saved && saved->sweep.size() == 2 && saved->sweep[1].value == 4);
    }
};

QTEST_GUILESS_MAIN(TestLabRunner)
#include "test_lab_runner.moc"
