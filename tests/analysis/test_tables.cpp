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

// Two aten::linear -> aten::addmm launching a Tensor Core GEMM (30 us on a 8x1x1 grid, 20
// us on a 16x1x1 grid), an addmm on its own launching a SIMT GEMM (10 us) and the same
// Tensor Core GEMM (4 us, 8x1x1), and an aten::add's elementwise kernel (5 us).
const char* kTensorCoreOps = R"j({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 5, "dur": 40},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "nvjet_sm103_tst_64x16_64x16_4x1_v_bz_TNT", "pid": 0, "tid": 7, "ts": 20, "dur": 30, "args": {"correlation": 1, "grid": [8, 1, 1], "block": [128, 1, 1], "registers per thread": 90, "shared memory": 4096, "blocks per SM": 0.5, "est. achieved occupancy %": 12}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 60, "dur": 20},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 61, "dur": 2, "args": {"correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_64x64_nn", "pid": 0, "tid": 7, "ts": 60, "dur": 10, "args": {"correlation": 2, "grid": [4, 1, 1], "block": [128, 1, 1]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 64, "dur": 2, "args": {"correlation": 5}},
  {"ph": "X", "cat": "kernel", "name": "nvjet_sm103_tst_64x16_64x16_4x1_v_bz_TNT", "pid": 0, "tid": 7, "ts": 71, "dur": 4, "args": {"correlation": 5, "grid": [8, 1, 1], "block": [128, 1, 1], "registers per thread": 90, "shared memory": 4096, "blocks per SM": 0.5, "est. achieved occupancy %": 12}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 90, "dur": 10},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 91, "dur": 2, "args": {"correlation": 3}},
  {"ph": "X", "cat": "kernel", "name": "vectorized_elementwise_kernel", "pid": 0, "tid": 7, "ts": 95, "dur": 5, "args": {"correlation": 3}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 110, "dur": 30},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 112, "dur": 20},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 113, "dur": 3, "args": {"correlation": 4}},
  {"ph": "X", "cat": "kernel", "name": "nvjet_sm103_tst_64x16_64x16_4x1_v_bz_TNT", "pid": 0, "tid": 7, "ts": 120, "dur": 20, "args": {"correlation": 4, "grid": [16, 1, 1], "block": [128, 1, 1], "registers per thread": 90, "shared memory": 4096, "blocks per SM": 1, "est. achieved occupancy %": 24}}
]})j";

// Python frames around ops: aten::mm under a torch frame in train.py's step, aten::mm in
// its evaluate, aten::add in the script itself, and an aten::mm on a thread without frames.
const char* kStacks = R"j({"traceEvents": [
  {"ph": "X", "cat": "python_function", "name": "train.py(10): <module>", "pid": 1, "tid": 1, "ts": 0, "dur": 300},
  {"ph": "X", "cat": "python_function", "name": "train.py(42): step", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "python_function", "name": "torch/nn/modules/module.py(1501): _call_impl", "pid": 1, "tid": 1, "ts": 1, "dur": 90},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 2, "dur": 20},
  {"ph": "X", "cat": "python_function", "name": "train.py(50): evaluate", "pid": 1, "tid": 1, "ts": 110, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 120, "dur": 10},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 220, "dur": 5},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 0, "dur": 8}
]})j";

// Microsecond timestamps: the peak's allocation and its free share one; and an op nested
// in one of its own name allocates.
const char* kSameMicrosecond = R"j({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::to", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::to", "pid": 1, "tid": 1, "ts": 1, "dur": 98},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 50, "args": {"Device Type": 1, "Device Id": 0, "Addr": 64, "Bytes": 10, "Total Allocated": 10, "Total Reserved": 64}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 50, "args": {"Device Type": 1, "Device Id": 0, "Addr": 64, "Bytes": -10, "Total Allocated": 0, "Total Reserved": 64}}
]})j";

const OpStats* findBySource(const std::vector<OpStats>& ops, std::string_view name,
                            std::string_view source)
{
    for (const OpStats& o : ops)
        if (o.name == name && o.sourceLine == source)
            return &o;
    return nullptr;
}

const KernelStats* findKernel(const std::vector<KernelStats>& rows, std::string_view name,
                              std::string_view op, int32_t grid = -2)
{
    for (const KernelStats& k : rows)
        if (k.name == name && k.topOp == op && (grid == -2 || k.grid[0] == grid))
            return &k;
    return nullptr;
}

std::shared_ptr<const TraceModel> load()
{
    LoadResult result = loadTraceText(kTrace);
    return result.ok() ? result.model : nullptr;
}

const OpStats* find(const std::vector<OpStats>& ops, const std::string& name,
                    const std::string& shapes = {})
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
        QCOMPARE(linear->deviceTotalNs, 25 * kUs);            // the gemms its addmm launched
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
        QCOMPARE(conv->selfCpuNs,
                 (70 - 20 - 12 - 5 - 4) * kUs);  // the range holds the 10 us launch
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

    void groupsOpsByCallStack()
    {
        LoadResult loaded = loadTraceText(kStacks);
        QVERIFY(loaded.ok());
        const OpTables ops = computeOpTables(*loaded.model);
        QCOMPARE(ops.byName.size(), size_t(2));
        QCOMPARE(ops.byNameAndStack.size(), size_t(4));
        const OpStats* step = findBySource(ops.byNameAndStack, "aten::mm", "train.py(42): step");
        QVERIFY(step);
        QCOMPARE(step->calls, int64_t(1));
        QCOMPARE(step->cpuTotalNs, 20 * kUs);
        const std::vector<std::string> frames{"torch/nn/modules/module.py(1501): _call_impl",
                                              "train.py(42): step", "train.py(10): <module>"};
        QCOMPARE(step->stack, frames);
        const OpStats* evaluate =
            findBySource(ops.byNameAndStack, "aten::mm", "train.py(50): evaluate");
        QVERIFY(evaluate);
        QCOMPARE(evaluate->cpuTotalNs, 10 * kUs);
        QCOMPARE(evaluate->stack.size(), size_t(2));
        const OpStats* add =
            findBySource(ops.byNameAndStack, "aten::add", "train.py(10): <module>");
        QVERIFY(add);
        QCOMPARE(add->stack.size(), size_t(1));
        const OpStats* bare = findBySource(ops.byNameAndStack, "aten::mm", "");
        QVERIFY(bare);
        QVERIFY(bare->stack.empty());
        QCOMPARE(bare->cpuTotalNs, 8 * kUs);
        // No frames at all: no by-stack table (the kTrace ops).
        QVERIFY(computeOpTables(*load()).byNameAndStack.empty());
        // The user's code, not torch's, a library's or a built-in.
        QVERIFY(isUserFrame("examples/train.py(42): step"));
        QVERIFY(!isUserFrame("torch/nn/modules/module.py(1501): _call_impl"));
        QVERIFY(
            !isUserFrame("/usr/lib/python3.10/site-packages/transformers/trainer.py(10): train"));
        QVERIFY(!isUserFrame("<built-in method mm of type object at 0x7f>"));
        QVERIFY(!isUserFrame("nn.Module: Linear_0"));
        QVERIFY(isUserFrame("/home/me/pytorch/train.py(3): main"));  // not torch's own
        QVERIFY(isUserFrame("my_torch/model.py(8): forward"));
        QVERIFY(!isUserFrame("torch\\nn\\modules\\module.py(1501): _call_impl"));  // Windows
        QVERIFY(!isUserFrame("threading.py(1016): run"));  // standard library
        QVERIFY(!isUserFrame("/usr/lib/python3.11/runpy.py(196): _run_module_as_main"));
        QVERIFY(isUserFrame("/home/u/lib/python_utils/io.py(4): read"));
    }

    void groupsKernelsByOpAndByLaunchConfiguration()
    {
        LoadResult loaded = loadTraceText(kTensorCoreOps);
        QVERIFY(loaded.ok());
        const std::string tc = "nvjet_sm103_tst_64x16_64x16_4x1_v_bz_TNT";
        // By name: three rows; the Tensor Core GEMM's 54 us, duration-weighted occupancy.
        const std::vector<KernelStats> byName = computeKernelTable(*loaded.model);
        QCOMPARE(byName.size(), size_t(3));
        QCOMPARE(byName[0].name, tc);
        QCOMPARE(byName[0].totalNs, 54 * kUs);
        QCOMPARE(byName[0].unit, MatrixUnit::TensorCore);
        QCOMPARE(byName[0].grid[0], 8);  // the longest call's
        QVERIFY(std::abs(*byName[0].meanOccupancyPercent - (12.0 * 34 + 24.0 * 20) / 54) < 1e-9);
        QVERIFY(std::abs(*byName[0].meanBlocksPerSm - (0.5 * 34 + 1.0 * 20) / 54) < 1e-9);
        QCOMPARE(byName[1].unit, MatrixUnit::Simt);
        QCOMPARE(byName[2].unit, MatrixUnit::Unknown);
        // By kernel and op: every launch here comes from aten::addmm or aten::add.
        const auto byOp = computeKernelTable(*loaded.model, nullptr, KernelGrouping::NameAndOp);
        QCOMPARE(byOp.size(), size_t(3));
        QVERIFY(findKernel(byOp, tc, "aten::addmm"));
        QCOMPARE(findKernel(byOp, tc, "aten::addmm")->calls, int64_t(3));
        // By launch configuration: the 8x1x1 calls (34 us) and the 16x1x1 call (20 us).
        const auto byLaunch =
            computeKernelTable(*loaded.model, nullptr, KernelGrouping::LaunchConfig);
        QCOMPARE(byLaunch.size(), size_t(4));
        const KernelStats* small = findKernel(byLaunch, tc, "aten::addmm", 8);
        const KernelStats* large = findKernel(byLaunch, tc, "aten::addmm", 16);
        QVERIFY(small && large);
        QCOMPARE(small->calls, int64_t(2));
        QCOMPARE(small->totalNs, 34 * kUs);
        QCOMPARE(*small->meanOccupancyPercent, 12.0);
        QCOMPARE(large->calls, int64_t(1));
        QCOMPARE(large->totalNs, 20 * kUs);
        QCOMPARE(large->registersPerThread, 90);
        QCOMPARE(*large->meanBlocksPerSm, 1.0);
    }

    void tensorCoreEligibilityPerOp()
    {
        LoadResult loaded = loadTraceText(kTensorCoreOps);
        QVERIFY(loaded.ok());
        const OpTables ops = computeOpTables(*loaded.model);
        const OpStats* linear = find(ops.byName, "aten::linear");
        const OpStats* addmm = find(ops.byName, "aten::addmm");
        const OpStats* add = find(ops.byName, "aten::add");
        QVERIFY(linear && addmm && add);
        QVERIFY(linear->tensorCoreEligible && addmm->tensorCoreEligible &&
                !add->tensorCoreEligible);
        QCOMPARE(addmm->deviceTotalNs, 64 * kUs);
        QCOMPARE(addmm->tensorCoreNs, 54 * kUs);  // all but the 10 us SIMT GEMM
        QCOMPARE(linear->deviceTotalNs, 50 * kUs);
        QCOMPARE(linear->tensorCoreNs, 50 * kUs);
        QCOMPARE(add->tensorCoreNs, int64_t(0));
        // Each kernel once: 69 us in all, 64 us under an eligible op, 54 of it on Tensor Cores.
        QCOMPARE(ops.kernelNs, 69 * kUs);
        QCOMPARE(ops.eligibleKernelNs, 64 * kUs);
        QCOMPARE(ops.eligibleTensorCoreNs, 54 * kUs);
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
        QCOMPARE(sync.scalarReadNsPerStep,
                 std::vector<int64_t>{10 * kUs});  // item only, not its child
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
        // The memory table: both allocations and the free in aten::addmm (self), which
        // aten::linear holds (total); ProfilerStep#1 is a marker, not an op.
        QCOMPARE(cuda.byOp.size(), size_t(2));
        const OpAllocation& addmm = cuda.byOp[0];
        QCOMPARE(QString::fromStdString(addmm.op), QString("aten::addmm"));
        QCOMPARE(addmm.allocations, int64_t(2));
        QCOMPARE(addmm.bytes, int64_t(150));
        QCOMPARE(addmm.selfIncreaseBytes, int64_t(50));  // 100 - 100 + 50
        QCOMPARE(addmm.totalAllocations, int64_t(2));
        QCOMPARE(addmm.totalBytes, int64_t(150));
        QCOMPARE(addmm.totalIncreaseBytes, int64_t(50));
        const OpAllocation& linear = cuda.byOp[1];
        QCOMPARE(QString::fromStdString(linear.op), QString("aten::linear"));
        QCOMPARE(linear.allocations, int64_t(0));
        QCOMPARE(linear.bytes, int64_t(0));
        QCOMPARE(linear.selfIncreaseBytes, int64_t(0));
        QCOMPARE(linear.totalAllocations, int64_t(2));
        QCOMPARE(linear.totalBytes, int64_t(150));
        QCOMPARE(linear.totalIncreaseBytes, int64_t(50));
        // The peak (1100 at 6 us): the 100 bytes aten::addmm had just allocated inside
        // aten::linear; the other 1000 predate the trace.
        QCOMPARE(cuda.peakTimeNs.value_or(-1), 6 * kUs);
        QCOMPARE(cuda.liveAtPeak.size(), size_t(1));
        QCOMPARE(QString::fromStdString(cuda.liveAtPeak[0].stack),
                 QString("aten::linear > aten::addmm"));
        QCOMPARE(cuda.liveAtPeak[0].allocations, int64_t(1));
        QCOMPARE(cuda.liveAtPeak[0].bytes, int64_t(100));
        QCOMPARE(cuda.peakUntrackedBytes, int64_t(1000));
        // Reduced for plotting: three points fit; with room for two, the lowest and the
        // highest of one bucket, in time order.
        QCOMPARE(reduceCurve(cuda.curve, 10).size(), size_t(3));
        const std::vector<MemoryPoint> two = reduceCurve(cuda.curve, 2);
        QCOMPARE(two.size(), size_t(2));
        QCOMPARE(two[0].allocatedBytes, int64_t(1100));
        QCOMPARE(two[1].allocatedBytes, int64_t(1000));
        QCOMPARE(cuda.allocatedAtStepStart.size(), size_t(1));
        QVERIFY(!cuda.allocatedAtStepStart[0].has_value());  // no sample before t = 0
    }

    void peakByOrderOfSamplesAndNestedNamesOnce()
    {
        LoadResult loaded = loadTraceText(kSameMicrosecond);
        QVERIFY(loaded.ok());
        const auto memory = computeMemoryUsage(*loaded.model, detectSteps(*loaded.model));
        const DeviceMemory& cuda = memory.at("cuda:0");
        // The allocation made the peak; its free, in the same microsecond, came after.
        QCOMPARE(cuda.peakAllocatedBytes, int64_t(10));
        QCOMPARE(cuda.liveAtPeak.size(), size_t(1));
        QCOMPARE(cuda.liveAtPeak[0].bytes, int64_t(10));
        QCOMPARE(QString::fromStdString(cuda.liveAtPeak[0].stack), QString("aten::to > aten::to"));
        QCOMPARE(cuda.peakUntrackedBytes, int64_t(0));
        // aten::to inside aten::to: the name's totals count each event once.
        QCOMPARE(cuda.byOp.size(), size_t(1));
        QCOMPARE(cuda.byOp[0].totalAllocations, int64_t(1));
        QCOMPARE(cuda.byOp[0].totalBytes, int64_t(10));
        QCOMPARE(cuda.byOp[0].totalIncreaseBytes, int64_t(0));
    }

    void drawsTheUtilisationSawtooth()
    {
        const auto model = load();
        const UtilizationSeries series = computeUtilizationSeries(*model, 4);
        // The trace spans [0, 200) us: buckets of 50 us.
        QCOMPARE(series.bucketNs, 50 * kUs);
        const std::vector<float>& gpu = series.gpuBusy.at(0);
        QCOMPARE(gpu.size(), size_t(4));
        QCOMPARE(gpu[0], 20.0f / 50.0f);    // gemm [20, 40)
        QCOMPARE(gpu[1], 9.0f / 50.0f);     // gemm [70, 75) + fill [76, 80)
        QCOMPARE(gpu[2], 0.0f);             // a copy is not a kernel
        QCOMPARE(series.cpuBusy[0], 1.0f);  // the step marker covers everything
    }
};

QTEST_GUILESS_MAIN(TestTables)
#include "test_tables.moc"
