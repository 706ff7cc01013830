// Steps, the step-time breakdown and the GPU metrics: hand-written traces whose exact
// answer is known, and the TensorBoard plugin's own numbers on two real traces.
#ifndef Q_MOC_RUN
#include "core/analysis/breakdown.h"
#include "core/analysis/gpu_metrics.h"
#include "core/trace/trace_loader.h"
#include "tests/support/test_support.h"
#endif

#include <QtTest>

using namespace kinetoscope::analysis;
using namespace kinetoscope::trace;

namespace {

// Two steps; the device's only kernel runs after them.
const char* kKernelsAfterTheSteps = R"j({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 210, "dur": 5, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "xmma_gemm", "pid": 0, "tid": 7, "ts": 220, "dur": 30, "args": {"correlation": 1, "blocks per SM": 2.0, "est. achieved occupancy %": 50}}
]})j";

std::shared_ptr<const TraceModel> load(const std::string& json)
{
    LoadResult result = loadTraceText(json);
    return result.ok() ? result.model : nullptr;
}

// Microseconds, for readable expectations.
int64_t us(int64_t ns)
{
    return ns / 1000;
}

// Two steps on one thread and one stream (all times in us):
//  step 1 [0, 100): aten::add [10, 40) launches a kernel [30, 60) from [20, 25);
//                   a copy [70, 80) launched from [65, 68); the DataLoader [85, 95).
//  step 2 [100, 150): a kernel launched at [110, 115) runs [140, 180): the step ends
//                   at 180, when its device work does; a memset launched at [118, 120)
//                   runs [150, 155), hidden under the kernel.
const char* kTwoSteps = R"j({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10, "dur": 30, "args": {"External id": 5}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"correlation": 1, "External id": 5}},
  {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 30, "dur": 30, "args": {"correlation": 1, "blocks per SM": 0.5, "est. achieved occupancy %": 40}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 65, "dur": 3, "args": {"correlation": 2}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 70, "dur": 10, "args": {"correlation": 2}},
  {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 85, "dur": 10},
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"correlation": 3}},
  {"ph": "X", "cat": "kernel", "name": "sm80_xmma_gemm_f16f16_tn", "pid": 0, "tid": 7, "ts": 140, "dur": 40, "args": {"correlation": 3, "blocks per SM": 2.0, "est. achieved occupancy %": 70}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "pid": 1, "tid": 1, "ts": 118, "dur": 2, "args": {"correlation": 4}},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 150, "dur": 5, "args": {"correlation": 4}}
]})j";

// One step [0, 100) us; device 0 runs a kernel [10, 60), device 1 one [40, 90).
const char* kTwoDevices = R"j({"traceEvents": [
          {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 1}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 3, "dur": 1, "args": {"correlation": 2}},
          {"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 10, "dur": 50, "args": {"correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "b", "pid": 1, "tid": 7, "ts": 40, "dur": 50, "args": {"correlation": 2}}
        ]})j";

}  // namespace

class TestBreakdown : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void extendsStepsToTheirDeviceWork()
    {
        const auto model = load(kTwoSteps);
        QVERIFY(model);
        const StepDetection steps = detectSteps(*model);
        QVERIFY(steps.fromMarkers);
        QCOMPARE(steps.steps.size(), size_t(2));
        QCOMPARE(QString::fromStdString(steps.steps[0].name), QString("ProfilerStep#1"));
        QCOMPARE(us(steps.steps[0].beginNs), int64_t(0));
        QCOMPARE(us(steps.steps[0].endNs), int64_t(100));
        QCOMPARE(us(steps.steps[1].beginNs), int64_t(100));
        QCOMPARE(us(steps.steps[1].endNs), int64_t(180));
        QCOMPARE(steps.steps[0].deviceActivities, 2u);
        QCOMPARE(steps.steps[1].deviceActivities, 2u);
    }

    void countsEveryInstantOnceInPriorityOrder()
    {
        const auto model = load(kTwoSteps);
        const StepDetection steps = detectSteps(*model);
        const BreakdownResult result = computeBreakdown(*model, steps);
        const CategoryTimes& s1 = result.all.perStep[0];
        QCOMPARE(us(s1.totalNs), int64_t(100));
        QCOMPARE(us(s1[TimeCategory::Kernel]), int64_t(30));      // [30, 60)
        QCOMPARE(us(s1[TimeCategory::Memcpy]), int64_t(10));      // [70, 80)
        QCOMPARE(us(s1[TimeCategory::Runtime]), int64_t(8));      // [20, 25) + [65, 68)
        QCOMPARE(us(s1[TimeCategory::DataLoader]), int64_t(10));  // [85, 95)
        QCOMPARE(us(s1[TimeCategory::CpuExec]), int64_t(15));  // aten::add less kernel and launch
        QCOMPARE(us(s1[TimeCategory::Other]), int64_t(27));
        int64_t sum = 0;
        for (int64_t v : s1.ns)
            sum += v;
        QCOMPARE(sum, s1.totalNs);

        const CategoryTimes& s2 = result.all.perStep[1];
        QCOMPARE(us(s2.totalNs), int64_t(80));
        QCOMPARE(us(s2[TimeCategory::Kernel]), int64_t(40));
        QCOMPARE(us(s2[TimeCategory::Memset]), int64_t(0));  // under the kernel
        QCOMPARE(us(s2[TimeCategory::Runtime]), int64_t(7));
        QCOMPARE(us(s2[TimeCategory::Other]), int64_t(33));
        QCOMPARE(result.all.average(TimeCategory::Kernel), 35000.0);
        QCOMPARE(result.all.averageTotalNs, 90000.0);
        QVERIFY(result.perDevice.empty());  // one device only
    }

    void computesGpuMetricsOverTheStepSpan()
    {
        const auto model = load(kTwoSteps);
        const StepDetection steps = detectSteps(*model);
        const auto metrics = computeGpuMetrics(*model, steps);
        QCOMPARE(metrics.size(), size_t(1));
        const GpuMetrics& m = metrics.at(0);
        // Span [0, 180): kernels 30 + 40 us.
        QCOMPARE(*m.utilization, 70.0 / 180.0);
        // SM efficiency: 0.5 for 30 us, min(2, 1) for 40 us.
        QCOMPARE(*m.smEfficiency, (0.5 * 30 + 1.0 * 40) / 180.0);
        QCOMPARE(*m.achievedOccupancy, (40.0 * 30 + 70.0 * 40) / 70.0);
        QCOMPARE(*m.tensorCoreShare, 40.0 / 70.0);  // the xmma gemm
        QCOMPARE(m.kernelCount, int64_t(2));
    }

    // A device whose kernels all ran outside the steps: nothing to average, so every
    // kernel metric is "not available", SM efficiency included (it used to read 0).
    void kernelsOutsideTheStepsGiveNoKernelMetrics()
    {
        const auto model = load(kKernelsAfterTheSteps);
        QVERIFY(model);
        const auto metrics = computeGpuMetrics(*model, detectSteps(*model));
        QCOMPARE(metrics.size(), size_t(1));
        const GpuMetrics& m = metrics.at(0);
        QCOMPARE(m.kernelCount, int64_t(0));
        QCOMPARE(*m.utilization, 0.0);  // the device was idle inside the steps: that is known
        QVERIFY(!m.smEfficiency);
        QVERIFY(!m.achievedOccupancy);
        QVERIFY(!m.tensorCoreShare);
    }

    void breaksDownEachDeviceOnItsOwn()
    {
        const auto model = load(kTwoDevices);
        QVERIFY(model);
        const BreakdownResult b = computeBreakdown(*model, detectSteps(*model));
        QCOMPARE(us(b.all.perStep[0][TimeCategory::Kernel]), int64_t(80));  // union of both
        QCOMPARE(b.perDevice.size(), size_t(2));
        QCOMPARE(us(b.perDevice.at(0).perStep[0][TimeCategory::Kernel]), int64_t(50));
        QCOMPARE(us(b.perDevice.at(1).perStep[0][TimeCategory::Kernel]), int64_t(50));
        QCOMPARE(us(b.perDevice.at(1).perStep[0][TimeCategory::Runtime]), int64_t(2));
        const auto metrics = computeGpuMetrics(*model, detectSteps(*model));
        QCOMPARE(*metrics.at(0).utilization, 0.5);
        QCOMPARE(*metrics.at(1).utilization, 0.5);
    }

    void dropsATrailingStepWhoseKernelsWereNotCaptured()
    {
        // Step 3 launched 1 kernel where step 2 launched 2: under 80 %, so it is dropped.
        std::string json = R"j({"traceEvents": [)j";
        int correlation = 1;
        for (int step = 1; step <= 3; ++step) {
            const int t0 = step * 100;
            json += R"j({"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#)j" +
                    std::to_string(step) + R"j(", "pid": 1, "tid": 1, "ts": )j" +
                    std::to_string(t0) + R"j(, "dur": 90},)j";
            const int kernels = step == 3 ? 1 : 2;
            for (int k = 0; k < kernels; ++k, ++correlation) {
                json +=
                    R"j({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )j" +
                    std::to_string(t0 + 10 + k * 10) + R"j(, "dur": 2, "args": {"correlation": )j" +
                    std::to_string(correlation) + "}},";
                json +=
                    R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": )j" +
                    std::to_string(t0 + 20 + k * 10) + R"j(, "dur": 5, "args": {"correlation": )j" +
                    std::to_string(correlation) + "}},";
            }
        }
        json.back() = ']';
        json += "}";
        const auto model = load(json);
        QVERIFY(model);
        const StepDetection steps = detectSteps(*model);
        QCOMPARE(steps.steps.size(), size_t(2));
        QCOMPARE(steps.droppedIncompleteSteps, 1);
    }

    void countsPythonAndAnnotationsAsCpuExecution()
    {
        // Host time in Python frames and record_function ranges is CPU execution; the step
        // marker itself is not.
        auto event = [](const char* cat, const char* name, int ts, int dur) {
            return std::string("{\"ph\": \"X\", \"cat\": \"") + cat + "\", \"name\": \"" + name +
                   "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts) +
                   ", \"dur\": " + std::to_string(dur) + "}";
        };
        const auto model =
            load("{\"traceEvents\": [" + event("user_annotation", "ProfilerStep#1", 0, 100) + ", " +
                 event("python_function", "train.py: preprocess", 10, 30) + ", " +
                 event("user_annotation", "compute_metrics", 50, 20) + ", " +
                 event("cpu_op", "aten::sum", 55, 10) + "]}");
        QVERIFY(model);
        const StepDetection steps = detectSteps(*model);
        QVERIFY(steps.fromMarkers);
        const BreakdownResult b = computeBreakdown(*model, steps);
        QCOMPARE(us(b.all.perStep[0][TimeCategory::CpuExec]), int64_t(50));
        QCOMPARE(us(b.all.perStep[0][TimeCategory::Other]), int64_t(50));
    }

    void analysesATraceWithoutMarkersAsOneWindow()
    {
        const auto model = load(R"j({"traceEvents": [
          {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 20},
          {"ph": "X", "cat": "cpu_op", "name": "my_step", "pid": 1, "tid": 1, "ts": 50, "dur": 20},
          {"ph": "X", "cat": "cpu_op", "name": "my_step", "pid": 1, "tid": 1, "ts": 80, "dur": 20}
        ]})j");
        QVERIFY(model);
        const StepDetection window = detectSteps(*model);
        QVERIFY(!window.fromMarkers);
        QCOMPARE(window.steps.size(), size_t(1));
        QCOMPARE(us(window.steps[0].beginNs), int64_t(10));
        QCOMPARE(us(window.steps[0].endNs), int64_t(100));
        const BreakdownResult b = computeBreakdown(*model, window);
        QCOMPARE(us(b.all.perStep[0][TimeCategory::CpuExec]), int64_t(60));
        QCOMPARE(us(b.all.perStep[0][TimeCategory::Other]), int64_t(30));

        // Steps by another annotation name; the markers themselves are not CPU work.
        const StepDetection custom = detectSteps(*model, StepOptions{"my_step"});
        QVERIFY(custom.fromMarkers);
        QCOMPARE(custom.steps.size(), size_t(2));
        const BreakdownResult c = computeBreakdown(*model, custom);
        QCOMPARE(us(c.all.perStep[0][TimeCategory::CpuExec]), int64_t(0));
        QCOMPARE(us(c.all.perStep[0][TimeCategory::Other]), int64_t(20));
    }

    // The reference numbers below are the TensorBoard plugin's: torch-tb-profiler 0.4.3
    // (the last release on PyPI, installed in a throw-away venv), run on the same file as
    //   p = RunProfileData.from_json("worker0", "span", json.load(gzip.open(path)));
    //   p.process(); p.steps_costs, p.avg_costs, p.gpu_metrics_parser
    // on 2026-11-21. Units: microseconds per step, in the order kernel, memcpy, memset,
    // communication, runtime, dataloader, cpu_exec, other, total. The issue asks for 1 %
    // of the step time; we agree to the microsecond, so the test allows 1 us of rounding.
    void matchesTheTensorBoardPlugin_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QList<QList<qint64>>>("steps");
        QTest::addColumn<double>("utilization");
        QTest::addColumn<double>("smEfficiency");
        QTest::addColumn<double>("occupancy");
        QTest::newRow("workers0")
            << QString("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz")
            << QList<QList<qint64>>{{98598, 1941, 90, 0, 2796, 69317, 14091, 1115, 187948},
                                    {98570, 1947, 89, 0, 2762, 57669, 12968, 1148, 175153},
                                    {98596, 1931, 91, 0, 2877, 61257, 13768, 1213, 179733},
                                    {98623, 1938, 89, 0, 2841, 56453, 13420, 1200, 174564},
                                    {98504, 1937, 87, 0, 2788, 62690, 15025, 1141, 182172},
                                    {98641, 1798, 88, 0, 3381, 48185, 12773, 1117, 165983}}
            << 0.5551408517455255 << 0.546790410706937 << 49.128004909286396;
        QTest::newRow("workers4")
            << QString("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz")
            << QList<QList<qint64>>{{99778, 3606, 98, 0, 41028, 4341, 27460, 5995, 182306},
                                    {99208, 2948, 98, 0, 3406, 0, 16404, 4119, 126183},
                                    {99114, 2949, 98, 0, 3417, 6, 19521, 2076, 127181},
                                    {99021, 2975, 97, 0, 3544, 0, 15464, 1978, 123079},
                                    {98791, 3596, 97, 0, 8275, 1370, 43905, 7427, 163461},
                                    {98956, 2885, 98, 0, 3714, 1400, 13235, 3910, 124198}}
            << 0.7027034689359772 << 0.6922497791013418 << 48.90989093378699;
    }
    void matchesTheTensorBoardPlugin()
    {
        QFETCH(QString, file);
        QFETCH(QList<QList<qint64>>, steps);
        QFETCH(double, utilization);
        QFETCH(double, smEfficiency);
        QFETCH(double, occupancy);
        const LoadResult loaded = loadTraceFile(kinetoscope::test::sharedTrace(file.toStdString()));
        QVERIFY(loaded.ok());
        const StepDetection detection = detectSteps(*loaded.model);
        QCOMPARE(detection.steps.size(), size_t(steps.size()));
        const BreakdownResult result = computeBreakdown(*loaded.model, detection);
        for (qsizetype s = 0; s < steps.size(); ++s) {
            const CategoryTimes& ours = result.all.perStep[size_t(s)];
            for (size_t c = 0; c < kTimeCategoryCount; ++c)
                QVERIFY2(
                    std::llabs(us(ours.ns[c]) - steps[s][qsizetype(c)]) <= 1,
                    qPrintable(QString("step %1 %2: %3 vs plugin %4")
                                   .arg(s)
                                   .arg(QString::fromUtf8(timeCategoryKey(TimeCategory(c)).data()))
                                   .arg(us(ours.ns[c]))
                                   .arg(steps[s][qsizetype(c)])));
            QVERIFY(std::llabs(us(ours.totalNs) - steps[s][8]) <= 1);
        }
        const auto metrics = computeGpuMetrics(*loaded.model, detection);
        QCOMPARE(metrics.size(), size_t(1));
        QVERIFY(std::abs(*metrics.at(0).utilization - utilization) < 1e-6);
        QVERIFY(std::abs(*metrics.at(0).smEfficiency - smEfficiency) < 1e-6);
        QVERIFY(std::abs(*metrics.at(0).achievedOccupancy - occupancy) < 1e-6);
        QCOMPARE(*metrics.at(0).tensorCoreShare, 0.0);  // fp32 on a V100: no HMMA kernels
    }
};

QTEST_GUILESS_MAIN(TestBreakdown)
#include "test_breakdown.moc"
