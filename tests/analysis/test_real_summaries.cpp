// Analysis results pinned on real traces. Each expected number was computed
// independently with Python's json module on the same file (2026-11-21): maxima of the
// allocator totals, sums of durations and bytes, counts of kernels by name.
// And the summary of every real trace and every generated scenario the same, field for
// field and bit for bit, whether its passes ran on one thread or on several; running out
// of memory on any of those threads is a std::bad_alloc for the caller, as on one.
#ifndef Q_MOC_RUN
#include "core/analysis/summary.h"
#include "core/trace/trace_loader.h"
#include "tests/analysis/failing_allocations.h"
#include "tests/analysis/summary_fields.h"
#include "tests/support/scenario_trace.h"
#include "tests/support/test_support.h"
#endif

#include <QtTest>
#include <filesystem>

using namespace kinetoscope::analysis;
using namespace kinetoscope::trace;

namespace {
std::shared_ptr<const TraceModel> loadShared(const char* file)
{
    LoadResult result = loadTraceFile(kinetoscope::test::sharedTrace(file));
    return result.ok() ? result.model : nullptr;
}

TraceSummary summarizeOn(const TraceModel& model, unsigned threads)
{
    SummaryOptions options;
    options.threads = threads;
    return summarize(model, options);
}

// The serial summary (one thread: no thread started) against two threads and three (an odd
// number: the passes and the modelled steps do not fall evenly between them).
void compareSerialWithParallel(const TraceModel& model)
{
    const std::vector<std::string> serial = kinetoscope::test::summaryFields(summarizeOn(model, 1));
    QVERIFY(serial.size() > 100);
    for (unsigned threads : {2u, 3u}) {
        const std::string difference = kinetoscope::test::firstDifference(
            serial, kinetoscope::test::summaryFields(summarizeOn(model, threads)));
        QVERIFY2(
            difference.empty(),
            qPrintable(
                QString("%1 threads, %2").arg(threads).arg(QString::fromStdString(difference))));
    }
}
}  // namespace

class TestRealSummaries : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void allReduceRankOne()
    {
        const auto model = loadShared("hta/allreduce_memory_rank1.json.gz");
        QVERIFY(model);
        const TraceSummary s = summarize(*model);
        QCOMPARE(s.steps.steps.size(), size_t(5));
        // 26,770 CUDA memory samples; max Total Allocated / Total Reserved.
        const DeviceMemory& cuda = s.memory.at("cuda:1");
        QCOMPARE(cuda.curve.size(), size_t(26770));
        QCOMPARE(cuda.peakAllocatedBytes, int64_t(6629508096));
        QCOMPARE(cuda.peakReservedBytes.value_or(-1), int64_t(12782141440));
        // 2,040 device-to-device copies, 21,862 us, 5,892,787,600 bytes.
        QCOMPARE(s.memcpy.front().calls, int64_t(2040));
        QCOMPARE(s.memcpy.front().totalNs, int64_t(21862) * 1000);
        QCOMPARE(s.memcpy.front().totalBytes, int64_t(5892787600));
        // The longest kernel: 2,020 NCCL all-reduces, 357,343 us in all, counted as
        // communication in the breakdown.
        QCOMPARE(QString::fromStdString(s.kernels.front().name),
                 QString("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"));
        QCOMPARE(s.kernels.front().calls, int64_t(2020));
        QCOMPARE(s.kernels.front().totalNs, int64_t(357343) * 1000);
        QVERIFY(s.breakdown.all.average(TimeCategory::Communication) >
                0.2 * s.breakdown.all.averageTotalNs);
        QVERIFY(s.gpu.contains(1));
    }

    void cpuOnlyTraceWithMemory()
    {
        const auto model = loadShared("misc/dtu_mlops_cpu_memory.json.gz");
        QVERIFY(model);
        const TraceSummary s = summarize(*model);
        QVERIFY(!s.steps.fromMarkers);
        QVERIFY(s.gpu.empty());  // no kernels: no GPU metrics at all, not zeros
        const DeviceMemory& cpu = s.memory.at("cpu");
        QCOMPARE(cpu.curve.size(), size_t(496));
        QCOMPARE(cpu.peakAllocatedBytes, int64_t(117349888));
        QCOMPARE(cpu.allocations.size(), size_t(248));
        QCOMPARE(QString::fromStdString(cpu.byOp.front().op), QString("aten::mkldnn_convolution"));
    }

    void rocmTraceWithRccl()
    {
        const auto model = loadShared("tracelens/rocm_mi300_resnet_act_checkpoint.json.gz");
        QVERIFY(model);
        const TraceSummary s = summarize(*model);
        QCOMPARE(s.steps.steps.size(), size_t(3));
        QVERIFY(s.gpu.contains(2));
        QVERIFY(!s.gpu.at(2).achievedOccupancy.has_value());  // ROCm writes no occupancy
        QVERIFY(*s.gpu.at(2).tensorCoreShare > 0.0);          // composable-kernel xdlops GEMMs
        QVERIFY(s.breakdown.all.average(TimeCategory::Communication) > 0.0);  // RCCL kernels
        QVERIFY(!s.ops.byNameAndShapes.empty());  // recorded with record_shapes
        QVERIFY(s.ops.byNameAndShapes.size() > s.ops.byName.size());
    }

    void traceWithoutStepsIsCutIntoIterations()
    {
        // No ProfilerStep markers: the iterations come from the DataLoader's __next__
        // calls. The first holds cuDNN/cuBLAS initialisation and module loading (warm-up),
        // the last runs to the end of the host activity (the loop's tail).
        const auto model = loadShared("param/resnet_rtx2080ti_no_steps.json.gz");
        QVERIFY(model);
        const TraceSummary s = summarize(*model);
        QVERIFY(!s.steps.fromMarkers);
        QCOMPARE(s.window.stepSource, StepSource::DataLoaderCalls);
        QCOMPARE(s.window.allSteps.size(), size_t(30));
        QCOMPARE(s.window.roles.front(), StepRole::WarmUp);
        QCOMPARE(s.window.roles.back(), StepRole::Outlier);
        QCOMPARE(s.steps.steps.size(), size_t(28));
        QVERIFY(!s.window.oneOffs.empty());
        QCOMPARE(s.window.kind, RunKind::Training);
        QCOMPARE(s.launches.kernelsPerStep.size(), size_t(28));
        QVERIFY(s.ops.byNameAndShapes.empty());  // recorded without record_shapes
    }

    void parallelSummaryOfRealTraceIsSerialOne_data()
    {
        QTest::addColumn<QString>("file");
        int files = 0;
        for (const auto& entry :
             std::filesystem::recursive_directory_iterator(kinetoscope::test::sharedTracesDir())) {
            if (!entry.is_regular_file() ||
                entry.path().string().find(".json") == std::string::npos)
                continue;
            const std::string relative =
                entry.path().lexically_relative(kinetoscope::test::sharedTracesDir()).string();
            QTest::newRow(relative.c_str()) << QString::fromStdString(entry.path().string());
            ++files;
        }
        QVERIFY(files >= 30);
    }

    void parallelSummaryOfRealTraceIsSerialOne()
    {
        QFETCH(QString, file);
        const LoadResult loaded = loadTraceFile(file.toStdString());
        QVERIFY(loaded.model);
        compareSerialWithParallel(*loaded.model);
    }

    void outOfMemoryInAParallelPassReachesTheCaller()
    {
        using kinetoscope::test::FailingAllocations;
        if (!FailingAllocations::supported())
            QSKIP("the sanitizer in this build replaces operator new itself");
        // A real trace, so that each pass lasts long enough for the other thread to take some.
        const auto model = loadShared("hta/nccl_collectives_rank0.json.gz");
        QVERIFY(model);
        const TraceModel& traceModel = *model;
        int64_t needed = 0;
        {
            const FailingAllocations counting(-1);
            summarizeOn(traceModel, 2);
            needed = counting.allocations();
        }
        QVERIFY(needed > 100);
        // Memory runs out at ten points through the analysis: each time the caller gets the
        // std::bad_alloc (the process is not terminated), and at some of them it was thrown
        // on a thread of the parallel passes.
        bool onOtherThread = false;
        for (int64_t tenth = 0; tenth < 10; ++tenth) {
            for (unsigned threads : {1u, 2u}) {
                bool threw = false;
                {
                    const FailingAllocations failing(needed * tenth / 10);
                    try {
                        summarizeOn(traceModel, threads);
                    } catch (const std::bad_alloc&) {
                        threw = true;
                    }
                    onOtherThread = onOtherThread || failing.failedOnOtherThread();
                }
                QVERIFY2(threw, qPrintable(QString("%1 threads, after %2 of %3 allocations")
                                               .arg(threads)
                                               .arg(needed * tenth / 10)
                                               .arg(needed)));
            }
        }
        QVERIFY(onOtherThread);
        // And with memory back, the same summary as ever.
        const std::string difference = kinetoscope::test::firstDifference(
            kinetoscope::test::summaryFields(summarizeOn(traceModel, 1)),
            kinetoscope::test::summaryFields(summarizeOn(traceModel, 2)));
        QVERIFY2(difference.empty(), difference.c_str());
    }

    void parallelSummaryOfScenarioIsSerialOne_data()
    {
        using kinetoscope::test::Pathology;
        QTest::addColumn<int>("pathology");
        std::vector<Pathology> cases = kinetoscope::test::allPathologies();
        for (Pathology p : kinetoscope::test::windowAndCausalCases())
            cases.push_back(p);
        cases.push_back(Pathology::None);
        for (Pathology p : cases)  // the names repeat (two cases expect one finding): numbered
            QTest::addRow("%d %s", static_cast<int>(p), kinetoscope::test::pathologyName(p))
                << static_cast<int>(p);
    }

    void parallelSummaryOfScenarioIsSerialOne()
    {
        QFETCH(int, pathology);
        const LoadResult loaded = loadTraceText(
            kinetoscope::test::scenarioTrace(static_cast<kinetoscope::test::Pathology>(pathology)));
        QVERIFY(loaded.model);
        compareSerialWithParallel(*loaded.model);
    }
};

QTEST_GUILESS_MAIN(TestRealSummaries)
#include "test_real_summaries.moc"
