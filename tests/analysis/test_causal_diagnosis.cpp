// The window and the causal model behind the diagnosis, on the planted corpus
// (tests/support/scenario_trace.cpp): each planted case gets its correct reading, and
// each planted cost comes back as a gain within 10 % of what was planted.
#ifndef Q_MOC_RUN
#include "core/analysis/diagnosis/diagnosis.h"
#include "core/trace/trace_loader.h"
#include "tests/support/diagnosed.h"
#include "tests/support/scenario_trace.h"
#endif

#include <QtTest>
#include <algorithm>

using namespace kinetoscope::analysis;
using namespace kinetoscope::trace;
using kinetoscope::test::Pathology;

using kinetoscope::test::Diagnosed;

namespace {

Diagnosed diagnoseCase(Pathology p)
{
    return kinetoscope::test::diagnoseText(kinetoscope::test::scenarioTrace(p));
}

const Finding* find(const std::vector<Finding>& findings, const std::string& id)
{
    return kinetoscope::test::findFinding(findings, id);
}

QString ids(const std::vector<Finding>& findings)
{
    QStringList list;
    for (const Finding& f : findings)
        list << QString::fromStdString(f.id);
    return list.join(", ");
}

}  // namespace

class TestCausalDiagnosis : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void eachCaseReadsRight_data()
    {
        QTest::addColumn<int>("pathology");
        for (Pathology p : kinetoscope::test::windowAndCausalCases())
            QTest::newRow(kinetoscope::test::pathologyName(p)) << static_cast<int>(p);
    }
    void eachCaseReadsRight()
    {
        QFETCH(int, pathology);
        const auto p = static_cast<Pathology>(pathology);
        const Diagnosed d = diagnoseCase(p);
        QVERIFY(d.model);
        const std::string expected = kinetoscope::test::pathologyName(p);
        if (p == Pathology::GpuBoundFinalSync) {
            // A GPU-bound loop: the final synchronize waits for work that is running, so
            // nothing on the host is worth a HIGH finding.
            for (const Finding& f : d.findings)
                QVERIFY2(f.severity != Severity::High, f.id.c_str());
            const Finding* sync = find(d.findings, "host-sync");
            QVERIFY(!sync || sync->estimatedGainNs < 0.05 * d.summary.breakdown.all.averageTotalNs);
            return;
        }
        QVERIFY2(!d.findings.empty(), "nothing found");
        QVERIFY2(d.findings.front().id == expected, qPrintable(ids(d.findings)));
    }

    // Every planted time cost comes back as the gain of its finding, within 10 %.
    void gainsMatchWhatWasPlanted_data()
    {
        QTest::addColumn<int>("pathology");
        std::vector<Pathology> cases = kinetoscope::test::allPathologies();
        for (Pathology p : kinetoscope::test::windowAndCausalCases())
            cases.push_back(p);
        for (Pathology p : cases)
            if (kinetoscope::test::plantedGainUs(p) > 0)
                QTest::newRow(kinetoscope::test::pathologyName(p)) << static_cast<int>(p);
    }
    void gainsMatchWhatWasPlanted()
    {
        QFETCH(int, pathology);
        const auto p = static_cast<Pathology>(pathology);
        const Diagnosed d = diagnoseCase(p);
        const Finding* f = find(d.findings, kinetoscope::test::pathologyName(p));
        QVERIFY(f);
        const double planted = kinetoscope::test::plantedGainUs(p) * 1e3;
        QVERIFY2(std::abs(f->estimatedGainNs - planted) <= 0.10 * planted,
                 qPrintable(QString("gain %1 us, planted %2 us")
                                .arg(f->estimatedGainNs / 1e3)
                                .arg(planted / 1e3)));
    }

    void gainsNeverClaimTheSameTime()
    {
        std::vector<Pathology> cases = kinetoscope::test::allPathologies();
        for (Pathology p : kinetoscope::test::windowAndCausalCases())
            cases.push_back(p);
        for (Pathology p : cases) {
            const Diagnosed d = diagnoseCase(p);
            double total = 0;
            for (const Finding& f : d.findings) {
                QVERIFY(f.estimatedGainNs >= 0);
                total += f.estimatedGainNs;
            }
            QVERIFY2(total <= d.summary.breakdown.all.averageTotalNs + 1,
                     kinetoscope::test::pathologyName(p));
            // The model replays the measured step before it removes anything.
            const CausalModel& m = d.summary.causal;
            QVERIFY(std::abs(m.replayedStepNs - m.stepNs) <= 0.01 * m.stepNs);
        }
    }

    void warmUpIsLeftOutOfTheSteadyState()
    {
        const Diagnosed d = diagnoseCase(Pathology::WarmUp);
        QCOMPARE(d.summary.window.allSteps.size(), size_t(8));
        QCOMPARE(d.summary.window.roles.front(), StepRole::WarmUp);
        QCOMPARE(d.summary.steps.steps.size(), size_t(7));
        QVERIFY(d.summary.window.oneOffNs >= 1'500'000'000);  // the 1.5 s module load at least
        for (const char* id : {"unstable-steps", "launch-bound", "low-gpu-utilization"})
            QVERIFY2(!find(d.findings, id), id);
        const Finding& first = d.findings.front();
        QVERIFY(first.snippet.find("schedule(wait=1, warmup=2, active=3)") != std::string::npos);
    }

    void iterationsAreFoundWithoutMarkers()
    {
        const Diagnosed d = diagnoseCase(Pathology::WarmUpNoMarkers);
        QCOMPARE(d.summary.window.stepSource, StepSource::DataLoaderCalls);
        QCOMPARE(d.summary.window.allSteps.size(), size_t(8));
        QCOMPARE(d.summary.window.roles.front(), StepRole::WarmUp);
        QCOMPARE(d.summary.window.kind, RunKind::Training);
    }

    void captureIsNotIdleness()
    {
        const Diagnosed d = diagnoseCase(Pathology::CaptureWindow);
        QVERIFY(d.summary.window.captureWindow);
        QVERIFY(!d.summary.window.diagnosable());
        for (const char* id : {"low-gpu-utilization", "launch-bound", "python-bound"})
            QVERIFY2(!find(d.findings, id), id);
    }

    void inferenceGetsInferenceAdvice()
    {
        const Diagnosed d = diagnoseCase(Pathology::Inference);
        QCOMPARE(d.summary.window.kind, RunKind::Inference);
        QVERIFY(!d.findings.empty());
        for (const Finding& f : d.findings) {
            const std::string text = f.title + f.explanation + f.fix + f.snippet;
            for (const char* training :
                 {"optimizer", "Optimizer", "lr", "learning rate", "num_workers", "backward"})
                QVERIFY2(text.find(training) == std::string::npos,
                         (f.id + ": " + training).c_str());
        }
        QVERIFY(d.findings.front().snippet.find("reduce-overhead") != std::string::npos);
        // The training loop is recognised as training.
        QCOMPARE(diagnoseCase(Pathology::None).summary.window.kind, RunKind::Training);
    }

    void aBlockingReadIsASyncNotACopy()
    {
        const Diagnosed d = diagnoseCase(Pathology::BlockingD2HCopy);
        QCOMPARE(QString::fromStdString(d.findings.front().id), QString("host-sync"));
        QVERIFY(!find(d.findings, "copy-heavy"));
        QVERIFY(
            !find(d.findings, "python-bound"));  // the CPU work after the wait is the sync's gain
    }

    // Both ways a value is read back count as reads: the pageable copy that blocks itself,
    // and .item()'s copy to pinned memory followed by a wait under the same op.
    void everyBlockingReadIsCountedAsARead_data()
    {
        QTest::addColumn<int>("pathology");
        QTest::newRow("pageable copy that blocks") << int(Pathology::BlockingD2HCopy);
        QTest::newRow("pinned copy, then a wait") << int(Pathology::HostSync);
    }

    void everyBlockingReadIsCountedAsARead()
    {
        QFETCH(int, pathology);
        const Diagnosed d = diagnoseCase(Pathology(pathology));
        const Finding* sync = find(d.findings, "host-sync");
        QVERIFY(sync);
        double reads = -1;
        for (const Evidence::Figure& g : sync->evidence.figures)
            if (g.name == "device_to_host_reads_per_step")
                reads = g.value;
        QCOMPARE(reads, 1.0);
    }

    void pythonWithTheGpuIdleIsCounted()
    {
        const Diagnosed d = diagnoseCase(Pathology::PythonPreprocessing);
        QVERIFY(d.summary.causal.host(HostState::Python) >= 4'900'000);
        for (const char* id : {"dataloader-bound", "launch-bound"})
            QVERIFY2(!find(d.findings, id), id);
    }

    // record_shapes' input dtypes confirm or overrule what the kernel names say: fp32
    // inputs confirm the finding; 16-bit inputs mean the library chose these kernels for
    // 16-bit work, and "use AMP" would be wrong.
    void inputDtypesConfirmTheTensorCoreFinding()
    {
        const std::string trace = kinetoscope::test::scenarioTrace(Pathology::NoTensorCores);
        auto withTypes = [&](const std::string& type) {
            std::string text = trace;
            const std::string key = "\"Input Dims\":";
            const std::string types =
                "\"Input type\": [\"" + type + "\", \"" + type + "\", \"" + type + "\"], ";
            for (size_t at = text.find(key); at != std::string::npos;
                 at = text.find(key, at + types.size() + key.size()))
                text.insert(at, types);
            return kinetoscope::test::diagnoseText(text);
        };
        const Diagnosed fp32 = withTypes("float");
        const Finding* confirmed = find(fp32.findings, "no-tensor-cores");
        QVERIFY(confirmed);
        const auto note = std::find(confirmed->evidence.ops.begin(), confirmed->evidence.ops.end(),
                                    "input dtypes recorded: float (fp32)");
        QVERIFY(note != confirmed->evidence.ops.end());
        QVERIFY(!note->event.valid());  // a note, not an event
        // The ops and kernels it names point at their longest instance in the trace.
        QVERIFY(!confirmed->evidence.kernels.empty());
        for (const auto* targets : {&confirmed->evidence.ops, &confirmed->evidence.kernels})
            for (const EvidenceTarget& t : *targets) {
                if (&t == &*note)
                    continue;
                QVERIFY2(t.event.valid(), t.name.c_str());
                const kinetoscope::trace::Event& e = fp32.model->event(t.event);
                QCOMPARE(std::string(fp32.model->text(e.name)), t.name);
                QCOMPARE(kinetoscope::trace::isGpuActivity(e.category),
                         targets == &confirmed->evidence.kernels);
                for (const kinetoscope::trace::Event& other : fp32.model->events())
                    if (other.name == e.name && kinetoscope::trace::isGpuActivity(other.category) ==
                                                    kinetoscope::trace::isGpuActivity(e.category))
                        QVERIFY(other.durationNs <= e.durationNs);
            }
        const Diagnosed bf16 = withTypes("c10::BFloat16");
        QVERIFY(bf16.model);
        QVERIFY(!find(bf16.findings, "no-tensor-cores"));
    }

    // Removing a cause never makes the step longer; credited gains are at most the gain
    // of the cause alone plus what removing it after others adds (never negative).
    void creditedGainsAreConsistent()
    {
        const Diagnosed d = diagnoseCase(Pathology::DataLoader);
        const CausalModel& m = d.summary.causal;
        double credited = 0;
        for (size_t c = 0; c < kCauseCount; ++c) {
            QVERIFY(m.gainNs[c] >= 0 && m.soloGainNs[c] >= 0);
            credited += m.gainNs[c];
        }
        QVERIFY(credited <= m.stepNs);
        QVERIFY(m.deviceBusyNs + m.deviceIdleNs <= m.stepNs + 1);
        QVERIFY(std::abs(m.gain(Cause::DataLoader) - 4.0e6) < 0.1 * 4.0e6);
    }
};

QTEST_GUILESS_MAIN(TestCausalDiagnosis)
#include "test_causal_diagnosis.moc"
