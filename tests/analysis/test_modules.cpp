// The module hierarchy and the call tree: a hand-written trace with its exact answer,
// a trace without module spans, and the real ResNet trace with module spans, pinned to
// figures worked out by hand (an independent Python script over the same file).
#ifndef Q_MOC_RUN
#include "core/analysis/call_tree.h"
#include "core/analysis/module_tree.h"
#include "core/trace/trace_loader.h"
#include "tests/support/test_support.h"
#endif

#include <QtTest>

using namespace kinetoscope::analysis;
using namespace kinetoscope::trace;

namespace {

constexpr int64_t kUs = 1000;

// All times in us. Net_0 runs twice: Linear_0 (aten::linear -> aten::addmm -> a 40 us
// gemm; the second time aten::linear launches a 30 us gemm itself), ReLU_0 (an 8 us
// kernel) the first time, and an aten::add directly in Net_0 (6 us). A backward op on
// the autograd thread launches a 50 us kernel outside every module.
const char* kModules = R"j({"traceEvents": [
  {"ph": "X", "cat": "python_function", "name": "nn.Module: Net_0", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 1, "tid": 1, "ts": 10, "dur": 30},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 12, "dur": 25},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 14, "dur": 20},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 15, "dur": 5, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 20, "dur": 40, "args": {"correlation": 1}},
  {"ph": "X", "cat": "python_function", "name": "nn.Module: ReLU_0", "pid": 1, "tid": 1, "ts": 50, "dur": 20},
  {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 52, "dur": 10},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 53, "dur": 3, "args": {"correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "relu_kernel", "pid": 0, "tid": 7, "ts": 60, "dur": 8, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 80, "dur": 10},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 81, "dur": 2, "args": {"correlation": 3}},
  {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 90, "dur": 6, "args": {"correlation": 3}},
  {"ph": "X", "cat": "python_function", "name": "nn.Module: Net_0", "pid": 1, "tid": 1, "ts": 200, "dur": 60},
  {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 1, "tid": 1, "ts": 210, "dur": 20},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 212, "dur": 15},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 213, "dur": 4, "args": {"correlation": 4}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 220, "dur": 30, "args": {"correlation": 4}},
  {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: AddmmBackward0", "pid": 1, "tid": 2, "ts": 300, "dur": 30},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 301, "dur": 3, "args": {"correlation": 5}},
  {"ph": "X", "cat": "kernel", "name": "gemm_backward", "pid": 0, "tid": 7, "ts": 310, "dur": 50, "args": {"correlation": 5}}
]})j";

// Ops and a kernel, no Python frames at all.
const char* kNoModules = R"j({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 20},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 3, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 20, "dur": 40, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#4", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 110, "dur": 20},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 112, "dur": 3, "args": {"correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 120, "dur": 40, "args": {"correlation": 2}}
]})j";

std::shared_ptr<const TraceModel> loadText(const char* text)
{
    LoadResult result = loadTraceText(text);
    return result.ok() ? result.model : nullptr;
}

const ModuleNode* findPath(const ModuleTree& tree, const std::string& path)
{
    for (const ModuleNode& m : tree.nodes)
        if (m.path == path)
            return &m;
    return nullptr;
}

int32_t childNamed(const CallTree& tree, int32_t parent, const std::string& name)
{
    for (int32_t child : tree.nodes[size_t(parent)].children)
        if (tree.nodes[size_t(child)].name == name)
            return child;
    return -1;
}

}  // namespace

class TestModules : public QObject
{
    Q_OBJECT
private slots:
    void moduleTreeOfAHandWrittenTrace()
    {
        const auto model = loadText(kModules);
        QVERIFY(model);
        const ModuleTree tree = computeModuleTree(*model);
        QCOMPARE(tree.moduleSpans, int64_t(5));
        QCOMPARE(tree.nodes.size(), size_t(3));
        QCOMPARE(tree.deviceNs, 134 * kUs);
        QCOMPARE(tree.deviceInModulesNs, 84 * kUs);  // the backward kernel is in no module
        QCOMPARE(tree.roots.size(), size_t(1));

        const ModuleNode* net = findPath(tree, "Net_0");
        QVERIFY(net);
        QCOMPARE(net->calls, int64_t(2));
        QCOMPARE(net->hostTotalNs, 160 * kUs);
        QCOMPARE(net->hostSelfNs, 90 * kUs);  // 160 less Linear_0 (30 + 20) and ReLU_0 (20)
        QCOMPARE(net->deviceTotalNs, 84 * kUs);
        QCOMPARE(net->deviceSelfNs, 6 * kUs);  // aten::add's kernel
        QCOMPARE(net->ops.size(), size_t(1));
        QCOMPARE(net->ops[0].name, std::string("aten::add"));
        QCOMPARE(net->ops[0].hostNs, 10 * kUs);
        QCOMPARE(net->ops[0].deviceNs, 6 * kUs);
        // Children by device time: Linear_0 (70 us) before ReLU_0 (8 us).
        QCOMPARE(net->children.size(), size_t(2));
        QCOMPARE(tree.nodes[size_t(net->children[0])].name, std::string("Linear_0"));

        const ModuleNode* linear = findPath(tree, "Net_0/Linear_0");
        QVERIFY(linear);
        QCOMPARE(linear->calls, int64_t(2));
        QCOMPARE(linear->hostTotalNs, 50 * kUs);
        QCOMPARE(linear->hostSelfNs, 50 * kUs);
        QCOMPARE(linear->deviceTotalNs, 70 * kUs);
        QCOMPARE(linear->deviceSelfNs, 70 * kUs);
        // Only the outermost op: aten::addmm is inside aten::linear.
        QCOMPARE(linear->ops.size(), size_t(1));
        QCOMPARE(linear->ops[0].name, std::string("aten::linear"));
        QCOMPARE(linear->ops[0].calls, int64_t(2));
        QCOMPARE(linear->ops[0].hostNs, 40 * kUs);
        QCOMPARE(linear->ops[0].deviceNs, 70 * kUs);
        QCOMPARE(linear->kernels.size(), size_t(1));
        QCOMPARE(linear->kernels[0].name, std::string("gemm"));
        QCOMPARE(linear->kernels[0].calls, int64_t(2));
        QCOMPARE(linear->kernels[0].deviceNs, 70 * kUs);

        const ModuleNode* relu = findPath(tree, "Net_0/ReLU_0");
        QVERIFY(relu);
        QCOMPARE(relu->calls, int64_t(1));
        QCOMPARE(relu->deviceTotalNs, 8 * kUs);
    }

    void callTreeOfAHandWrittenTrace()
    {
        const auto model = loadText(kModules);
        QVERIFY(model);
        const CallTree tree = computeCallTree(*model);
        QVERIFY(tree.hasPythonFrames);
        QCOMPARE(tree.nodes[0].deviceNs, 134 * kUs);
        QCOMPARE(tree.nodes[0].children.size(), size_t(2));  // two threads
        // The main thread's 84 us comes first, then the autograd thread's 50 us.
        const CallNode& main = tree.nodes[size_t(tree.nodes[0].children[0])];
        QCOMPARE(main.deviceNs, 84 * kUs);
        QCOMPARE(main.hostNs, 160 * kUs);
        const int32_t net = childNamed(tree, tree.nodes[0].children[0], "nn.Module: Net_0");
        QVERIFY(net > 0);
        QCOMPARE(tree.nodes[size_t(net)].calls, int64_t(2));
        const int32_t linear = childNamed(tree, net, "nn.Module: Linear_0");
        QVERIFY(linear > 0);
        const int32_t op = childNamed(tree, linear, "aten::linear");
        QVERIFY(op > 0);
        QCOMPARE(tree.nodes[size_t(op)].deviceNs, 70 * kUs);
        QCOMPARE(tree.nodes[size_t(op)].deviceSelfNs, 30 * kUs);  // the second call's own launch
        const int32_t addmm = childNamed(tree, op, "aten::addmm");
        QVERIFY(addmm > 0);
        QCOMPARE(tree.nodes[size_t(addmm)].deviceNs, 40 * kUs);
        QCOMPARE(tree.nodes[size_t(addmm)].hostNs, 20 * kUs);
        const CallNode& autograd = tree.nodes[size_t(tree.nodes[0].children[1])];
        QCOMPARE(autograd.deviceNs, 50 * kUs);
        QCOMPARE(autograd.hostNs, 30 * kUs);
    }

    void noModuleSpansMeansAnEmptyTree()
    {
        const auto model = loadText(kNoModules);
        QVERIFY(model);
        const ModuleTree tree = computeModuleTree(*model);
        QVERIFY(tree.empty());
        QCOMPARE(tree.deviceNs, 80 * kUs);
        QCOMPARE(tree.deviceInModulesNs, int64_t(0));
        // The call tree still has the ops; ProfilerStep#3 and #4 fold into one frame.
        const CallTree calls = computeCallTree(*model);
        QVERIFY(!calls.hasPythonFrames);
        const int32_t thread = calls.nodes[0].children.at(0);
        QCOMPARE(calls.nodes[size_t(thread)].children.size(), size_t(1));
        const int32_t step = childNamed(calls, thread, "ProfilerStep#*");
        QVERIFY(step > 0);
        QCOMPARE(calls.nodes[size_t(step)].calls, int64_t(2));
        QCOMPARE(calls.nodes[size_t(step)].deviceNs, 80 * kUs);
    }

    // tracelens/rocm_mi300_resnet_act_checkpoint: DDP ResNet with activation checkpointing
    // on an MI300, 3 steps. Checked by hand (a Python script over the JSON, nesting by
    // time on each thread and joining device activities to launches by correlation):
    // 100,230.1 us of device time, 10,725.6 us launched inside module spans; 134 nodes;
    // DistributedDataParallel_0 6,515.6 us device (882.1 self: its bucket copies), its
    // ResNet_0 5,633.5; the recomputed Sequential_0 on the autograd thread is a root of
    // its own (1,281.5 us).
    void realResNetModules()
    {
        LoadResult loaded = loadTraceFile(
            kinetoscope::test::sharedTrace("tracelens/rocm_mi300_resnet_act_checkpoint.json.gz"));
        QVERIFY2(loaded.ok(), loaded.message.c_str());
        const ModuleTree tree = computeModuleTree(*loaded.model);
        auto us = [](int64_t ns) { return double(ns) / 1000.0; };
        QCOMPARE(tree.moduleSpans, int64_t(450));
        QCOMPARE(tree.nodes.size(), size_t(134));
        QVERIFY(std::abs(us(tree.deviceNs) - 100230.1) < 0.2);
        QVERIFY(std::abs(us(tree.deviceInModulesNs) - 10725.6) < 0.2);
        QCOMPARE(tree.roots.size(), size_t(5));
        const ModuleNode& top = tree.nodes[size_t(tree.roots[0])];
        QCOMPARE(top.path, std::string("DistributedDataParallel_0"));
        QCOMPARE(top.calls, int64_t(3));
        QVERIFY(std::abs(us(top.deviceTotalNs) - 6515.6) < 0.2);
        QVERIFY(std::abs(us(top.deviceSelfNs) - 882.1) < 0.2);
        QVERIFY(std::abs(us(top.hostTotalNs) - 17108.1) < 0.2);
        QVERIFY(std::abs(us(top.hostSelfNs) - 3370.7) < 0.2);
        QCOMPARE(top.kernels.at(0).name, std::string("Memcpy DtoD (Device -> Device)"));
        QCOMPARE(top.kernels.at(0).calls, int64_t(180));
        const ModuleNode* resnet = findPath(tree, "DistributedDataParallel_0/ResNet_0");
        QVERIFY(resnet);
        QVERIFY(std::abs(us(resnet->deviceTotalNs) - 5633.5) < 0.2);
        QCOMPARE(resnet->deviceSelfNs, int64_t(0));
        const ModuleNode& recomputed = tree.nodes[size_t(tree.roots[1])];
        QCOMPARE(recomputed.path, std::string("Sequential_0"));
        QVERIFY(std::abs(us(recomputed.deviceTotalNs) - 1281.5) < 0.2);
        const ModuleNode* block = findPath(
            tree,
            "DistributedDataParallel_0/ResNet_0/CheckpointWrapper_0/Sequential_0/BasicBlock_1");
        QVERIFY(block);
        QVERIFY(std::abs(us(block->deviceTotalNs) - 736.6) < 0.2);
        QVERIFY(std::abs(us(block->deviceSelfNs) - 20.0) < 0.2);
    }
};

QTEST_GUILESS_MAIN(TestModules)
#include "test_modules.moc"
