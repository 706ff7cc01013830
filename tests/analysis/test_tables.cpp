// Op, kernel and memcpy tables, idle gaps, launches, synchronisation, memory and the
// utilisation series, each on a tiny hand-written trace with a known answer.
#ifndef Q_MOC_RUN
#include "core/analysis/summary.h"
#include "core/trace/trace_loader.h"
#endif

#include <QtTest>

using namespace kinetoscope::analysis;
using namespace kinetoscope::trace;

namespace {

// All times in us. Two calls of aten::linear -> aten::addmm -> a launch -> a gemm kernel;
// a copy; kernels placed to make one gap of each kind on stream 7; a sync and an item();
// memory samples with allocator totals.
const char* kTrace = R"j({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 200},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 0, "dur": 50, "args": {"External id": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 5, "dur": 40, "args": {"External id": 2, "Input Dims": [[4, 8], [8, 16]]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"External id": 2, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_64x64_nn", "pid": 0, "tid": 7, "ts": 20, "dur": 20, "args": {"correlation": 1, "grid": [8, 1, 1], "block": [128, 1, 1], "registers per thread": 90, "shared memory": 4096}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 60, "dur": 20, "args": {"External id": 3}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 62, "dur": 16, "args": {"External id": 4, "Input Dims": [[2, 8], [8, 16]]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 64, "dur": 2, "args": {"External id": 4, "correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_64x64_nn", "pid": 0, "tid": 7, "ts": 70, "dur": 5, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 52, "dur": 1, "args": {"correlation": 3}},
  {"ph": "X", "cat": "kernel", "name": "fill_kernel", "pid": 0, "tid": 7, "ts": 76, "dur": 4, "args": {"correlation": 3}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 54, "dur": 1, "args": {"correlation": 4}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 100, "dur": 4, "args": {"correlation": 4, "bytes": 4096}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 120, "dur": 30},
  {"ph": "X", "cat": "cpu_op", "name": "aten::item", "pid": 1, "tid": 1, "ts": 160, "dur": 10},
  {"ph": "X", "cat": "cpu_op", "name": "aten::_local_scalar_dense", "pid": 1, "tid": 1, "ts": 161, "dur": 8},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 6, "args": {"Device Type": 1, "Device Id": 0, "Addr": 4096, "Bytes": 100, "Total Allocated": 1100, "Total Reserved": 2048}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 30, "args": {"Device Type": 1, "Device Id": 0, "Addr": 4096, "Bytes": -100, "Total Allocated": 1000, "Total Reserved": 2048}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 63, "args": {"Device Type": 1, "Device Id": 0, "Addr": 8192, "Bytes": 50, "Total Allocated": 1050, "Total Reserved": 4096}}
]})j";

// An op of 70 us: launches of 20 and 5 us (one through the driver), a range holding a
// 10 us launch, a nested op, a Python frame.
const char* kRuntimeCallsInsideAnOp = R"j({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 0, "dur": 70},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5, "dur": 20},
  {"ph": "X", "cat": "user_annotation", "name": "my_range", "pid": 1, "tid": 1, "ts": 30, "dur": 12},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 31, "dur": 10},
  {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 1, "ts": 45, "dur": 5},
  {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 52, "dur": 4},
  {"ph": "X", "cat": "python_function", "name": "torch/nn/functional.py(10): pad", "pid": 1, "tid": 1, "ts": 58, "dur": 6}
]})j";

// Step, data-fetch and optimizer marker spans around two kinds of op.
const char* kMarkerSpans = R"j({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#7", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 1, "dur": 20},
  {"ph": "X", "cat": "cpu_op", "name": "aten::stack", "pid": 1, "tid": 1, "ts": 2, "dur": 10},
  {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataPipe)#MapperIterDataPipe", "pid": 1, "tid": 1, "ts": 22, "dur": 5},
  {"ph": "X", "cat": "cpu_op", "name": "Optimizer.zero_grad#SGD.zero_grad", "pid": 1, "tid": 1, "ts": 30, "dur": 5},
  {"ph": "X", "cat": "cpu_op", "name": "Optimizer.step#SGD.step", "pid": 1, "tid": 1, "ts": 40, "dur": 50},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add_", "pid": 1, "tid": 1, "ts": 45, "dur": 30},
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#8", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add_", "pid": 1, "tid": 1, "ts": 110, "dur": 20}
]})j";

std::shared_ptr<const TraceModel> load()
{
    LoadResult result = loadTraceText(kTrace);
    return result.ok() ? result.model : nullptr;
}

const OpStats* find(const std::vector<OpStats>& ops, const std::string& name, const std::string& shapes = {})
{
    for (const OpStats& o : ops)
        if (o.name == name && o.inputShapes == shapes)
            return &o;
    return nullptr;
}

constexpr int64_t kUs = 1000;

}  // namespace

class TestTables : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void attributesCpuAndDeviceTimeToOps()
    {
        const auto model = load();
        QVERIFY(model);
        const OpTables tables = computeOpTables(*model);
        const OpStats* linear = find(tables.byName, "aten::linear");
        const OpStats* addmm = find(tables.byName, "aten::addmm");
        QVERIFY(linear && addmm);
        QCOMPARE(linear->calls, int64_t(2));
        QCOMPARE(linear->cpuTotalNs, 70 * kUs);
        QCOMPARE(linear->selfCpuNs, (10 + 4) * kUs);  // less the nested addmm
        QCOMPARE(linear->selfDeviceNs, int64_t(0));
        QCOMPARE(linear->deviceTotalNs, 25 * kUs);     // the gemms its addmm launched
        QCOMPARE(addmm->selfCpuNs, (40 - 5 + 16 - 2) * kUs);  // less its cudaLaunchKernel calls
        QCOMPARE(addmm->selfDeviceNs, 25 * kUs);
        QCOMPARE(addmm->deviceTotalNs, 25 * kUs);
        // The step marker (labelled cpu_op here, as some torch versions do) is not an op.
        QVERIFY(!find(tables.byName, "ProfilerStep#1"));
        // Sorted by device time: linear and addmm carry the gemms (25 us), then item.
        QCOMPARE(QString::fromStdString(tables.byName.front().name), QString("aten::linear"));
        QCOMPARE(tables.byName.front().deviceTotalNs, 25 * kUs);

        const OpStats* big = find(tables.byNameAndShapes, "aten::addmm", "[[4, 8], [8, 16]]");
        const OpStats* small = find(tables.byNameAndShapes, "aten::addmm", "[[2, 8], [8, 16]]");
        QVERIFY(big && small);
        QCOMPARE(big->calls, int64_t(1));
        QCOMPARE(big->selfDeviceNs, 20 * kUs);
        QCOMPARE(small->selfDeviceNs, 5 * kUs);

        std::vector<OpStats> sorted = tables.byName;
        sortOps(sorted, OpColumn::SelfCpu);
        QCOMPARE(QString::fromStdString(sorted.front().name), QString("aten::addmm"));
        sortOps(sorted, OpColumn::Name);
        QCOMPARE(QString::fromStdString(sorted.front().name), QString("aten::_local_scalar_dense"));
        QCOMPARE(QString::fromStdString(sorted.back().name), QString("aten::linear"));
    }

    // torch's definition: an op of 70 us that launched kernels through 20 + 10 + 5 us of
    // cudaLaunchKernel (one of them inside a record_function range) has 35 us of self
    // time; a nested op is taken off too, a Python frame under it is not (torch does not
    // count it as the op's child).
    void selfCpuLeavesOutRuntimeCallsAndRanges()
    {
        LoadResult result = loadTraceText(kRuntimeCallsInsideAnOp);
        QVERIFY(result.ok());
        const OpTables tables = computeOpTables(*result.model);
        const OpStats* conv = find(tables.byName, "aten::conv2d");
        QVERIFY(conv);
        QCOMPARE(conv->cpuTotalNs, 70 * kUs);
        QCOMPARE(conv->selfCpuNs, (70 - 20 - 12 - 5 - 4) * kUs);  // the range holds the 10 us launch
        QCOMPARE(find(tables.byName, "aten::empty")->selfCpuNs, 4 * kUs);
        QVERIFY(!find(tables.byName, "cudaLaunchKernel"));  // runtime calls are not ops
    }

    // Spans that mark steps, data fetches and optimizer steps are not operators, however
    // the trace labels them; the ops inside them are.
    void markerSpansAreNotOperators()
    {
        LoadResult result = loadTraceText(kMarkerSpans);
        QVERIFY(result.ok());
        const OpTables tables = computeOpTables(*result.model);
        QStringList names;
        for (const OpStats& o : tables.byName)
            names << QString::fromStdString(o.name);
        names.sort();
        QCOMPARE(names, (QStringList{"aten::add_", "aten::stack"}));
        QCOMPARE(find(tables.byName, "aten::add_")->calls, int64_t(2));
        QCOMPARE(find(tables.byName, "aten::add_")->cpuTotalNs, 50 * kUs);
    }

    void tabulatesKernelsAndCopies()
    {
        const auto model = load();
        const std::vector<KernelStats> kernels = computeKernelTable(*model);
        QCOMPARE(kernels.size(), size_t(2));
        const KernelStats& gemm = kernels.front();
        QCOMPARE(QString::fromStdString(gemm.name), QString("ampere_sgemm_64x64_nn"));
        QCOMPARE(gemm.calls, int64_t(2));
        QCOMPARE(gemm.totalNs, 25 * kUs);
        QCOMPARE(gemm.minNs, 5 * kUs);
        QCOMPARE(gemm.maxNs, 20 * kUs);
        QCOMPARE(gemm.meanNs(), 12500.0);
        QCOMPARE(gemm.grid[0], 8);
        QCOMPARE(gemm.registersPerThread, 90);
        QCOMPARE(gemm.sharedMemoryBytes, 4096);
        QVERIFY(!gemm.tensorCore);
        QVERIFY(!gemm.meanOccupancyPercent.has_value());  // not recorded: not available
        QCOMPARE(QString::fromStdString(gemm.topOp), QString("aten::addmm"));

        const std::vector<MemcpyStats> copies = computeMemcpyTable(*model);
        QCOMPARE(copies.size(), size_t(1));
        QCOMPARE(QString::fromStdString(copies[0].direction), QString("HtoD"));
        QCOMPARE(QString::fromStdString(copies[0].memoryKind), QString("Pageable -> Device"));
        QCOMPARE(copies[0].totalBytes, int64_t(4096));
        QCOMPARE(*copies[0].bandwidthGBps, 4096.0 / 4000.0);
    }

    void classifiesIdleGapsOnAStream()
    {
        const auto model = load();
        const StepDetection steps = detectSteps(*model);
        const IdleGaps gaps = computeIdleGaps(*model, steps);
        // [40, 70): the second gemm was launched (ends at 66) after the first ended: host wait.
        // [75, 76): fill_kernel was queued long before: a short gap.
        // [80, 100): the copy was queued long before, 20 us: other.
        QCOMPARE(gaps.total.hostWaitNs, 30 * kUs);
        QCOMPARE(gaps.total.shortNs, 1 * kUs);
        QCOMPARE(gaps.total.otherNs, 20 * kUs);
        QCOMPARE(gaps.largest.size(), size_t(3));
        QCOMPARE(gaps.largest[0].beginNs, 40 * kUs);
        QCOMPARE(gaps.largest[0].kind, GapKind::HostWait);
        QCOMPARE(gaps.perStep.size(), size_t(1));
        QCOMPARE(gaps.perStep[0].totalNs(), 51 * kUs);
        QCOMPARE(gaps.perStream.size(), size_t(1));
        QCOMPARE(gaps.perStream.at({0, 7}).hostWaitNs, 30 * kUs);
    }

    void measuresLaunchesAndSynchronisation()
    {
        const auto model = load();
        const StepDetection steps = detectSteps(*model);
        const LaunchStats launches = computeLaunchStats(*model, steps);
        QCOMPARE(launches.kernelsPerStep, std::vector<int64_t>{3});
        QCOMPARE(*launches.shortKernelShare, 2.0 / 3.0);  // 5 us and 4 us kernels
        // Delays: 20 - 15, 70 - 66, 76 - 53 us.
        QCOMPARE(launches.launchDelay.count, int64_t(3));
        QCOMPARE(launches.launchDelay.min, 4 * kUs);
        QCOMPARE(launches.launchDelay.max, 23 * kUs);
        QCOMPARE(launches.launchDelay.p50, 5 * kUs);
        QCOMPARE(launches.launchCallDuration.count, int64_t(3));

        const SyncStats sync = computeSyncStats(*model, steps);
        // cudaStreamSynchronize (30 us) and the cudaMemcpyAsync from pageable memory (1 us),
        // which blocks the host while the driver stages the copy.
        QCOMPARE(sync.syncCallNsPerStep, std::vector<int64_t>{31 * kUs});
        QCOMPARE(sync.syncCallsPerStep, std::vector<int64_t>{2});
        QCOMPARE(sync.scalarReadNsPerStep, std::vector<int64_t>{10 * kUs});  // item only, not its child
        QCOMPARE(sync.scalarReadsPerStep, std::vector<int64_t>{1});
    }

    void followsMemoryAndPairsAllocationsWithFrees()
    {
        const auto model = load();
        const StepDetection steps = detectSteps(*model);
        const auto memory = computeMemoryUsage(*model, steps);
        QCOMPARE(memory.size(), size_t(1));
        const DeviceMemory& cuda = memory.at("cuda:0");
        QVERIFY(cuda.totalsRecorded);
        QCOMPARE(cuda.curve.size(), size_t(3));
        QCOMPARE(cuda.peakAllocatedBytes, int64_t(1100));
        QCOMPARE(cuda.peakReservedBytes.value_or(-1), int64_t(4096));
        QCOMPARE(cuda.allocations.size(), size_t(2));
        QCOMPARE(cuda.allocations[0].freeNs, 30 * kUs);
        QCOMPARE(cuda.allocations[1].freeNs, int64_t(-1));
        QCOMPARE(cuda.unpairedFrees, int64_t(0));
        QCOMPARE(cuda.byOp.size(), size_t(1));  // both inside aten::addmm
        QCOMPARE(QString::fromStdString(cuda.byOp[0].op), QString("aten::addmm"));
        QCOMPARE(cuda.byOp[0].bytes, int64_t(150));
        QCOMPARE(cuda.allocatedAtStepStart.size(), size_t(1));
        QVERIFY(!cuda.allocatedAtStepStart[0].has_value());  // no sample before t = 0
    }

    void drawsTheUtilisationSawtooth()
    {
        const auto model = load();
        const UtilizationSeries series = computeUtilizationSeries(*model, 4);
        // The trace spans [0, 200) us: buckets of 50 us.
        QCOMPARE(series.bucketNs, 50 * kUs);
        const std::vector<float>& gpu = series.gpuBusy.at(0);
        QCOMPARE(gpu.size(), size_t(4));
        QCOMPARE(gpu[0], 20.0f / 50.0f);            // gemm [20, 40)
        QCOMPARE(gpu[1], 9.0f / 50.0f);             // gemm [70, 75) + fill [76, 80)
        QCOMPARE(gpu[2], 0.0f);                     // a copy is not a kernel
        QCOMPARE(series.cpuBusy[0], 1.0f);          // the step marker covers everything
    }
};

QTEST_GUILESS_MAIN(TestTables)
#include "test_tables.moc"
