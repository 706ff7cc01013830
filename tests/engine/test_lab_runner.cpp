// The engine on the CPU: a small mlp lab run with the split and a profiler window writes
// a session whose LibTorch trace loads, summarises and diagnoses; the fault paths give
// one-line reasons and keep what was measured.
#include "app/cli/cli_main.h"
#include "core/analysis/summary.h"
#include "core/engine/lab_runner.h"
#include "core/trace/trace_loader.h"

#include <QtTest>

#include <sstream>

using namespace kinetoscope;

class TestLabRunner : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    engine::RunConfig small(const char* out) const
    {
        engine::RunConfig c;
        c.model = "mlp";
        c.device = "cpu";
        c.steps = 8;
        c.warmup = 2;
        c.batchSize = 32;
        c.inputFeatures = 64;
        c.hidden = 128;
        c.outDir = (m_dir.path() + QLatin1Char('/') + QLatin1String(out)).toStdString();
        return c;
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

        // The LibTorch trace goes through the same ingest and analysis as any file.
        const trace::LoadResult loaded = trace::loadTraceFile(c.outDir + "/trace.json");
        QVERIFY2(loaded.ok(), loaded.message.c_str());
        const analysis::TraceSummary summary = analysis::summarize(*loaded.model);
        QVERIFY(summary.steps.fromMarkers);
        QCOMPARE(summary.steps.steps.size(), size_t(5));
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

    void theCliRunsAndRejectsBadOptions()
    {
        std::ostringstream out, err;
        const std::string dir = (m_dir.path() + QStringLiteral("/cli")).toStdString();
        QCOMPARE(cli::run({"run", "--model", "mlp", "--device", "cpu", "--steps", "4", "--warmup", "1", "--out", dir}, out, err), 0);
        QVERIFY(out.str().find("fp32") != std::string::npos);
        QVERIFY(out.str().find("session:") != std::string::npos);
        std::ostringstream out2, err2;
        QCOMPARE(cli::run({"run", "--steps", "many", "--out", dir}, out2, err2), 2);
        QCOMPARE(cli::run({"run", "--model", "mlp"}, out2, err2), 2);  // no --out
    }
};

QTEST_GUILESS_MAIN(TestLabRunner)
#include "test_lab_runner.moc"
