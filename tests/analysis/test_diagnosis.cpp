// The diagnosis: a validation corpus with one planted pathology per rule plus a healthy
// trace (tests/support/scenario_trace.cpp), the real ResNet-50 traces against the
// TensorBoard plugin's own recommendations, thresholds and lab measurements.
#ifndef Q_MOC_RUN
#include "core/analysis/diagnosis/diagnosis.h"
#include "core/analysis/diagnosis/finding_text.h"
#include "core/trace/trace_loader.h"
#include "tests/support/diagnosed.h"
#include "tests/support/scenario_trace.h"
#include "tests/support/test_support.h"
#endif

#include <QtTest>

#include <map>
#include <set>

using namespace kinetoscope::analysis;
using namespace kinetoscope::trace;
using kinetoscope::test::Pathology;

using kinetoscope::test::diagnoseText;
using kinetoscope::test::Diagnosed;

namespace {

Diagnosed diagnoseShared(const char* file)
{
    return kinetoscope::test::diagnoseFile(kinetoscope::test::sharedTrace(file));
}

const Finding* find(const std::vector<Finding>& findings, const std::string& id)
{
    return kinetoscope::test::findFinding(findings, id);
}

}  // namespace

class TestDiagnosis : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // One renderer of a finding's figures for the CLI, the findings page and the report.
    void figuresReadInOneConvention()
    {
                const auto value = [](double v, Unit unit) { return figureValue(Evidence::Figure{"x", v, unit}); };
        QCOMPARE(value(59261, Unit::Microseconds), std::string("59.3 ms"));
        QCOMPARE(value(812, Unit::Microseconds), std::string("812 µs"));
        QCOMPARE(value(0.334, Unit::Fraction), std::string("33.4 %"));
        QCOMPARE(value(1.5 * 1024 * 1024 * 1024, Unit::Bytes), std::string("1.50 GiB"));
        QCOMPARE(value(4.5, Unit::Count), std::string("4.50"));
        QCOMPARE(value(1234, Unit::Count), std::string("1,234"));
        QCOMPARE(value(2.31, Unit::Ratio), std::string("2.31×"));
        QCOMPARE(value(12.3, Unit::GigabytesPerSecond), std::string("11.5 GiB/s"));  // bytes per ns
        QCOMPARE(figureLabel({"dataloader_wait_us", 1, Unit::Microseconds}), std::string("dataloader wait"));
        QCOMPARE(figureLabel({"bandwidth_gb_per_s", 1, Unit::GigabytesPerSecond}), std::string("bandwidth"));
        Finding f;
        QCOMPARE(gainText(f), std::string("none per step"));
        f.estimatedGainNs = 12.34e6;
        QCOMPARE(gainText(f), std::string("~12.3 ms per step"));
        // A long kernel name is cut at a UTF-8 boundary, never inside a character.
        const std::string name = std::string(119, 'k') + "\xC3\xA9tail";
        QCOMPARE(targetText(name), std::string(119, 'k'));
    }

    void healthyTraceHasNoHighFinding()
    {
        const Diagnosed d = diagnoseText(kinetoscope::test::scenarioTrace(Pathology::None));
        QVERIFY(d.model);
        for (const Finding& f : d.findings)
            QVERIFY2(f.severity != Severity::High, f.id.c_str());
        QVERIFY(d.findings.empty());  // in fact, nothing at all
    }

    void findsEachPlantedPathologyFirst_data()
    {
        QTest::addColumn<int>("pathology");
        for (Pathology p : kinetoscope::test::allPathologies())
            QTest::newRow(kinetoscope::test::pathologyName(p)) << static_cast<int>(p);
    }
    void findsEachPlantedPathologyFirst()
    {
        QFETCH(int, pathology);
        const auto p = static_cast<Pathology>(pathology);
        const Diagnosed d = diagnoseText(kinetoscope::test::scenarioTrace(p));
        QVERIFY(d.model);
        QVERIFY2(!d.findings.empty(), "nothing found");
        QCOMPARE(QString::fromStdString(d.findings.front().id), QString(kinetoscope::test::pathologyName(p)));
        const Finding& f = d.findings.front();
        // Every finding carries numbers, a gain method and a fix with a snippet.
        QVERIFY(!f.evidence.figures.empty());
        QVERIFY(!f.title.empty() && !f.explanation.empty());
        QVERIFY(!f.gainMethod.empty());
        QVERIFY(!f.fix.empty());
        QVERIFY(!f.snippet.empty());
    }

    // Precision and recall of every rule over the corpus (the rule cases, the window and
    // causal cases): both must be 1. The README's table is this output.
    void precisionAndRecallOverTheCorpus()
    {
        std::map<std::string, int> truePositives, falsePositives, planted;
        std::vector<Pathology> corpus = kinetoscope::test::allPathologies();
        corpus.insert(corpus.begin(), Pathology::None);
        for (Pathology p : kinetoscope::test::windowAndCausalCases())
            corpus.push_back(p);  // GpuBoundFinalSync plants nothing: any finding is a false alarm
        for (Pathology p : corpus) {
            const std::string expected = kinetoscope::test::pathologyName(p);
            if (p != Pathology::None && p != Pathology::GpuBoundFinalSync)
                ++planted[expected];
            const Diagnosed d = diagnoseText(kinetoscope::test::scenarioTrace(p));
            std::set<std::string> seen;
            for (const Finding& f : d.findings) {
                if (!seen.insert(f.id).second)
                    continue;
                (f.id == expected ? truePositives : falsePositives)[f.id]++;
            }
        }
        qInfo("| rule | planted | found | false alarms | precision | recall |");
        qInfo("|---|---|---|---|---|---|");
        for (const auto& [rule, count] : planted) {
            const int tp = truePositives[rule], fp = falsePositives[rule];
            const double precision = tp + fp ? double(tp) / double(tp + fp) : 0.0;
            const double recall = double(tp) / double(count);
            qInfo("| %s | %d | %d | %d | %.2f | %.2f |", rule.c_str(), count, tp, fp, precision, recall);
            QCOMPARE(recall, 1.0);
            QCOMPARE(precision, 1.0);
        }
    }

    void resnetWithoutWorkersLeadsWithTheDataLoader()
    {
        // The TensorBoard plugin (torch-tb-profiler 0.4.3) recommends on this trace:
        // more DataLoader workers (33.4 % of the step in the DataLoader) and AMP (68 % of
        // kernel time in Tensor Core eligible ops). Both must be among ours.
        const Diagnosed d = diagnoseShared("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        QVERIFY(!d.findings.empty());
        QCOMPARE(QString::fromStdString(d.findings.front().id), QString("dataloader-bound"));
        QCOMPARE(d.findings.front().severity, Severity::High);
        QVERIFY(std::abs(d.findings.front().evidence.figures[1].value - 0.334) < 0.001);
        QVERIFY(find(d.findings, "no-tensor-cores"));
        QVERIFY(std::abs(find(d.findings, "no-tensor-cores")->evidence.figures[1].value - 0.68) < 0.01);
    }

    void resnetWithWorkersIsNotDataLoaderBound()
    {
        // The twin run with 4 workers: the plugin recommends only AMP.
        const Diagnosed d = diagnoseShared("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz");
        const Finding* dataloader = find(d.findings, "dataloader-bound");
        QVERIFY(!dataloader || dataloader->severity != Severity::High);
        QVERIFY(find(d.findings, "no-tensor-cores"));
    }

    void thresholdsAreNamedAndOverridable()
    {
        Thresholds t;
        QVERIFY(t.set("dataloader_share", 0.5));
        QCOMPARE(t.dataloaderShare, 0.5);
        QVERIFY(!t.set("no_such_threshold", 1.0));
        QVERIFY(t.describe().size() >= 20);
        const Diagnosed d = diagnoseText(kinetoscope::test::scenarioTrace(Pathology::DataLoader), t);
        QVERIFY(!find(d.findings, "dataloader-bound"));  // 33 % < 50 %
    }

    void readsLabMeasurementsWhenGiven()
    {
        // The seeds' rules on the three-run baseline, and the DataLoader-vs-compute split.
        LabMeasurements lab;
        lab.fp32StepNs = 100e6;
        lab.bf16StepNs = 95e6;     // bf16 gains 5 %: not precision-bound
        lab.graphedStepNs = 94e6;  // CUDA graph gains 1 %: already fused
        lab.dataLoaderNs = 8e6;    // 80 % of the step waiting for data
        lab.computeNs = 2e6;
        const Diagnosed d = diagnoseText(kinetoscope::test::scenarioTrace(Pathology::None), {}, &lab);
        QVERIFY(find(d.findings, "not-precision-bound"));
        QVERIFY(find(d.findings, "already-fused"));
        const Finding* dataloader = find(d.findings, "dataloader-bound");
        QVERIFY(dataloader);
        QCOMPARE(dataloader->severity, Severity::High);
        const Diagnosed without = diagnoseText(kinetoscope::test::scenarioTrace(Pathology::None));
        QVERIFY(!find(without.findings, "not-precision-bound"));
    }

    void everyRealTraceDiagnoses()
    {
        int files = 0;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(kinetoscope::test::sharedTracesDir())) {
            if (!entry.is_regular_file() || entry.path().string().find(".json") == std::string::npos)
                continue;
            ++files;
            const LoadResult loaded = loadTraceFile(entry.path());
            QVERIFY(loaded.model);
            const TraceSummary s = summarize(*loaded.model);
            const std::vector<Finding> findings = diagnose({*loaded.model, s, Thresholds{}, nullptr});
            for (size_t i = 1; i < findings.size(); ++i)
                QVERIFY(findings[i - 1].estimatedGainNs >= findings[i].estimatedGainNs);
            for (const Finding& f : findings) {
                QVERIFY2(std::isfinite(f.estimatedGainNs) && f.estimatedGainNs >= 0, f.id.c_str());
                QVERIFY(f.estimatedGainNs <= s.breakdown.all.averageTotalNs + 1);
            }
        }
        QVERIFY(files >= 30);
    }
};

QTEST_GUILESS_MAIN(TestDiagnosis)
#include "test_diagnosis.moc"
