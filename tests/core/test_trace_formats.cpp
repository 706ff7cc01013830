// Every format variation of ANCHORS.md ("Kineto trace format: what varies between
// versions"), each as a tiny inline trace and the model it must produce.
#include "core/trace/event_args.h"
#include "core/trace/format_description.h"
#include "core/trace/trace_loader.h"

#include <QtTest>

using namespace kinetoscope::trace;

namespace {

// One op whose args nest 100 deep, then hold odd values (outside the test class: moc
// misreads raw strings there).
std::string oddArgsTrace()
{
    const std::string deep = std::string(100, '[') + "1" + std::string(100, ']');
    return "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, "
           "\"tid\": 1, \"ts\": 1, \"dur\": 2, \"args\": {\"deep\": " +
           deep +
           ", \"big\": 18446744073709551615, \"half\": 0.5, \"whole\": 3.0, \"text\": \"a\\\"b\", "
           "\"flag\": true, \"none\": null}}]}";
}

std::shared_ptr<const TraceModel> load(const std::string& json)
{
    LoadResult result = loadTraceText(json);
    if (!result.ok())
        qWarning("load failed: %s", result.message.c_str());
    return result.ok() ? result.model : nullptr;
}

// The only event with this name (fails the test through nullptr otherwise).
const Event* byName(const TraceModel& model, std::string_view name)
{
    const Event* found = nullptr;
    for (const Event& e : model.events()) {
        if (model.text(e.name) == name) {
            if (found)
                return nullptr;
            found = &e;
        }
    }
    return found;
}

QString str(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// A 2021 trace: capitalised categories, string tids, "stream 7", `async` flows.
const char* kTrace2021 = R"j({"schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "Tesla V100", "totalGlobalMem": 34089730048,
     "computeMajor": 7, "computeMinor": 0, "numSms": 80, "warpSize": 32}],
  "traceEvents": [
  {"name": "process_name", "ph": "M", "ts": 1, "pid": 25738, "tid": 0, "args": {"name": "python"}},
  {"name": "thread_name", "ph": "M", "ts": 1, "pid": 25738, "tid": "25738", "args": {"name": "thread 0 (python)"}},
  {"name": "process_labels", "ph": "M", "ts": 1, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
  {"ph": "X", "cat": "Operator", "name": "ProfilerStep#3", "pid": 25738, "tid": "25738", "ts": 1000, "dur": 500, "args": {"External id": 1}},
  {"ph": "X", "cat": "Operator", "name": "aten::mm", "pid": 25738, "tid": "25738", "ts": 1100, "dur": 50, "args": {"External id": 2, "Input Dims": [[4, 8], [8, 16]]}},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 25738, "tid": "25738", "ts": 1110, "dur": 10.5, "args": {"cbid": 211, "correlation": 77, "external id": 2}},
  {"ph": "s", "id": 77, "pid": 25738, "tid": 25738, "ts": 1110, "cat": "async", "name": "launch"},
  {"ph": "X", "cat": "Kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": "stream 7", "ts": 1130, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 77, "external id": 2, "grid": [4, 2, 1], "block": [256, 1, 1], "registers per thread": 64}},
  {"ph": "f", "id": 77, "pid": 0, "tid": "stream 7", "ts": 1130, "cat": "async", "name": "launch", "bp": "e"},
  {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": "stream 7", "ts": 1160, "dur": 5, "args": {"correlation": 78, "bytes": 4096, "memory bandwidth (GB/s)": 0.8}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 25738, "tid": 25738, "ts": 1105, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 512}}
]})j";

}  // namespace

class TestTraceFormats : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void reads2021Traces()
    {
        const auto model = load(kTrace2021);
        QVERIFY(model);
        const IngestStats& s = model->stats();
        QCOMPARE(s.entries, uint64_t(11));
        QCOMPARE(s.byRawCategory.at("Operator"), uint64_t(2));
        QCOMPARE(s.byRawCategory.at(""), uint64_t(4));  // 3 metadata rows + 1 memory event
        QCOMPARE(s.metadataEvents, uint64_t(3));
        QCOMPARE(s.memorySamples, uint64_t(1));
        QCOMPARE(s.skippedTotal(), uint64_t(0));

        // One CPU thread (string tid "25738" and integer tid 25738 are the same thread)
        // and one GPU stream.
        int cpu = 0, gpu = 0;
        for (const Track& t : model->tracks()) {
            if (t.kind == TrackKind::CpuThread) {
                ++cpu;
                QCOMPARE(t.tid, int64_t(25738));
                QCOMPARE(str(model->text(t.name)), QString("thread 0 (python)"));
                QCOMPARE(str(model->text(t.processName)), QString("python"));
            } else if (t.kind == TrackKind::GpuStream) {
                ++gpu;
                QCOMPARE(t.pid, int64_t(0));
                QCOMPARE(t.tid, int64_t(7));
                QCOMPARE(str(model->text(t.processLabel)), QString("GPU 0"));
            }
        }
        QCOMPARE(cpu, 1);
        QCOMPARE(gpu, 1);

        const Event* step = byName(*model, "ProfilerStep#3");
        const Event* mm = byName(*model, "aten::mm");
        const Event* launch = byName(*model, "cudaLaunchKernel");
        const Event* kernel = byName(*model, "volta_sgemm_128x64_nn");
        const Event* copy = byName(*model, "Memcpy HtoD (Pageable -> Device)");
        QVERIFY(step && mm && launch && kernel && copy);
        QCOMPARE(step->category, Category::CpuOp);
        QCOMPARE(launch->category, Category::Runtime);
        QCOMPARE(kernel->category, Category::Kernel);
        QCOMPARE(copy->category, Category::Memcpy);

        // Microseconds -> nanoseconds, float durations kept to the nanosecond.
        QCOMPARE(mm->startNs, int64_t(1100000));
        QCOMPARE(launch->durationNs, int64_t(10500));

        // Nesting on the CPU thread.
        QCOMPARE(mm->parent, model->idOf(*step));
        QCOMPARE(launch->parent, model->idOf(*mm));
        QCOMPARE(int(launch->depth), 2);

        // Links: correlation joins launch and kernel; External id joins launch and op.
        QCOMPARE(kernel->correlated, model->idOf(*launch));
        QCOMPARE(launch->correlated, model->idOf(*kernel));
        QCOMPARE(launch->op, model->idOf(*mm));
        QCOMPARE(kernel->op, model->idOf(*mm));
        QVERIFY(!copy->correlated.valid());  // its launch call is not in the trace
        QCOMPARE(s.activitiesWithoutLaunch, uint64_t(1));

        // Side tables.
        const KernelInfo* info = model->kernelInfo(model->idOf(*kernel));
        QVERIFY(info);
        QCOMPARE(info->grid[0], 4);
        QCOMPARE(info->block[0], 256);
        QCOMPARE(info->registersPerThread, 64);
        QCOMPARE(str(model->text(model->inputShapes(model->idOf(*mm)))),
                 QString("[[4, 8], [8, 16]]"));
        QVERIFY(!model->inputShapes(model->idOf(*step)).valid());
        const CopyInfo* bytes = model->copyInfo(model->idOf(*copy));
        QVERIFY(bytes);
        QCOMPARE(bytes->bytes, int64_t(4096));

        // The `async` flow binds the launch to the kernel.
        QCOMPARE(model->flows().size(), size_t(1));
        QCOMPARE(model->flows()[0].kind, FlowKind::LaunchToDevice);
        QCOMPARE(model->flows()[0].from, model->idOf(*launch));
        QCOMPARE(model->flows()[0].to, model->idOf(*kernel));

        // Memory sample without `cat` and without allocator totals.
        const MemorySample& m = model->memorySamples()[0];
        QCOMPARE(m.bytes, int64_t(512));
        QCOMPARE(m.totalAllocated, int64_t(-1));
        QCOMPARE(int(m.deviceId), 0);

        // Metadata.
        QCOMPARE(model->metadata().container, TraceContainer::EventsObject);
        QCOMPARE(model->metadata().devices.size(), size_t(1));
        QCOMPARE(model->metadata().devices[0].numSms, 80);
        QCOMPARE(countEventsWithNamePrefix(*model), size_t(1));
        QCOMPARE(detectGpuVendor(*model), GpuVendor::Nvidia);
        QVERIFY(describeFormat(*model).find("1.8-1.10") != std::string::npos);
    }

    void readsArgsOnDemand()
    {
        const auto model = load(kTrace2021);
        QVERIFY(model);
        const Event* mm = byName(*model, "aten::mm");
        const auto args = readArgs(*model, model->idOf(*mm));
        QVERIFY(args);
        QCOMPARE(QString::fromStdString(argsText(*args)),
                 QString(R"j({"External id": 2, "Input Dims": [[4, 8], [8, 16]]})j"));
        // Typed: the analysis asks for a key and gets a number or a list.
        QCOMPARE(findArg(*args, "External id")->integer(), std::optional<int64_t>(2));
        const ArgValue::Array* dims = findArg(*args, "Input Dims")->array();
        QVERIFY(dims && dims->size() == 2);
        QCOMPARE(argText(dims->front()), std::string("[4, 8]"));
        QVERIFY(!findArg(*args, "Input type"));
        const Event* step = byName(*model, "ProfilerStep#3");
        const auto stepArgs = readArgs(*model, model->idOf(*step));
        QVERIFY(stepArgs && findArg(*stepArgs, "External id"));
    }

    // Nesting beyond what any trace needs is left unread (null) and the keys after it
    // still come back; numbers keep their kind (int64, beyond int64, fractional).
    void argsNestedDeeplyOrOddlyStillRead()
    {
        const auto model = load(oddArgsTrace());
        QVERIFY(model);
        const auto args = readArgs(*model, EventId{0});
        QVERIFY(args);
        QCOMPARE(args->size(), size_t(7));
        QCOMPARE(argText(*findArg(*args, "big")), std::string("18446744073709551615"));
        QVERIFY(!findArg(*args, "big")->integer());  // beyond int64
        QCOMPARE(findArg(*args, "whole")->integer(), std::optional<int64_t>(3));
        QVERIFY(!findArg(*args, "half")->integer());
        QCOMPARE(*findArg(*args, "text")->string(), std::string("a\"b"));
        QCOMPARE(argText(*findArg(*args, "flag")), std::string("true"));
        QCOMPARE(argText(*findArg(*args, "none")), std::string("null"));
        QVERIFY(argText(*findArg(*args, "deep")).find("null") != std::string::npos);
    }

    void readsBareArrays()
    {
        const auto model = load(R"j([
          {"ph": "X", "cat": "Operator", "name": "aten::add", "pid": 1, "tid": "1", "ts": 10, "dur": 5},
          {"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": "stream 7", "ts": 20, "dur": 5}
        ])j");
        QVERIFY(model);
        QCOMPARE(model->metadata().container, TraceContainer::BareArray);
        QCOMPARE(model->stats().entries, uint64_t(2));
        QVERIFY(describeFormat(*model).find("bare event array") != std::string::npos);
    }

    void readsLegacyEventsWithoutCategories()
    {
        const auto model = load(R"j([
          {"name": "aten::add", "ph": "X", "ts": 10, "dur": 5, "tid": 1, "pid": "CPU functions", "args": {}},
          {"name": "add_kernel", "ph": "X", "ts": 12, "dur": 2, "tid": 0, "pid": "CUDA functions", "args": {}}
        ])j");
        QVERIFY(model);
        QCOMPARE(byName(*model, "aten::add")->category, Category::CpuOp);
        QCOMPARE(byName(*model, "add_kernel")->category, Category::Kernel);
        QCOMPARE(model->stats().byRawCategory.at(""), uint64_t(2));
        QVERIFY(describeFormat(*model).find("legacy") != std::string::npos);
    }

    void shiftsRelativeTimestampsByBaseTime()
    {
        const auto model = load(R"j({"schemaVersion": 1, "baseTimeNanoseconds": 1775078550000000000,
          "traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "op1", "pid": 5, "tid": 5, "ts": 88511388202.765, "dur": 0.04}
          ], "traceName": "/tmp/x.json", "displayTimeUnit": "ms"})j");
        QVERIFY(model);
        const Event* op = byName(*model, "op1");
        QCOMPARE(op->startNs, int64_t(1775078550000000000) + int64_t(88511388202765));
        QCOMPARE(op->durationNs, int64_t(40));
        QCOMPARE(model->metadata().baseTimeNs.value_or(0), int64_t(1775078550000000000));
        QCOMPARE(QString::fromStdString(model->metadata().traceName), QString("/tmp/x.json"));
        QVERIFY(describeFormat(*model).find("2.4") != std::string::npos);
    }

    void readsComputePropertiesAndDistributedInfo()
    {
        const auto model = load(R"j({"schemaVersion": 1,
          "computeProperties": [{"id": 0, "name": "Tesla V100", "computeMajor": 7, "computeMinor": 0}],
          "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
          "cupti_version": 16,
          "traceEvents": [{"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": "stream 7", "ts": 1, "dur": 1}]})j");
        QVERIFY(model);
        QVERIFY(model->metadata().devicesFromComputeProperties);
        QCOMPARE(model->metadata().devices.size(), size_t(1));
        QCOMPARE(model->metadata().devices[0].computeMajor, 7);
        QVERIFY(model->metadata().distributed);
        QCOMPARE(model->metadata().distributed->rank, 3);
        QCOMPARE(model->metadata().distributed->worldSize, 8);
        QCOMPARE(QString::fromStdString(model->metadata().versions.at(0).first),
                 QString("cupti_version"));
    }

    void readsKernelsWithoutArgsAndIdsAbove2To63()
    {
        const auto model = load(R"j({"schemaVersion": 1, "traceEvents": [
          {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 0, "ts": 100, "dur": 50},
          {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 0, "tid": 1, "ts": 200, "dur": 100,
           "args": {"Comms Id": 10159970886766084423}},
          {"ph": "s", "id": 18446744073709551615, "pid": 0, "tid": 1, "ts": 200, "cat": "ac2g", "name": "ac2g"},
          {"ph": "f", "id": 18446744073709551615, "pid": 0, "tid": 0, "ts": 100, "cat": "ac2g", "name": "ac2g", "bp": "e"}
        ]})j");
        QVERIFY(model);
        QCOMPARE(model->events().size(), size_t(2));
        QCOMPARE(model->flows().size(), size_t(1));
        QCOMPARE(model->flows()[0].id, uint64_t(18446744073709551615ULL));
        QVERIFY(model->flows()[0].from.valid() && model->flows()[0].to.valid());
        QVERIFY(model->kernelInfo(model->idOf(*byName(*model, "ncclKernel_AllReduce"))));
        const auto none = readArgs(*model, model->idOf(*byName(*model, "ncclKernel_AllReduce")));
        QVERIFY(none && none->empty());
    }

    void readsRocmCorrelationIds()
    {
        const auto model = load(R"j({"schemaVersion": 1, "roctracer_version": 4.1, "traceEvents": [
          {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 542, "tid": 542, "ts": 10.5, "dur": 20.25, "args": {"External id": 45}},
          {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 542, "tid": 542, "ts": 12.0, "dur": 6.619, "args": {"External id": 45, "correlation": 5179}},
          {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 2, "tid": 0, "ts": 40.0, "dur": 3.5, "args": {"device": 2, "stream": 0, "cid": 5179}}
        ]})j");
        QVERIFY(model);
        const Event* kernel = byName(*model, "add_kernel");
        QCOMPARE(kernel->correlated, model->idOf(*byName(*model, "hipLaunchKernel")));
        QCOMPARE(kernel->op, model->idOf(*byName(*model, "aten::add")));
        QCOMPARE(detectGpuVendor(*model), GpuVendor::Amd);
    }

    void readsMtiaCategories()
    {
        const auto model = load(R"j({"schemaVersion": 1, "traceEvents": [
          {"ph": "X", "cat": "mtia_runtime", "name": "mtiaLaunch", "pid": 1, "tid": 1, "ts": 1, "dur": 2, "args": {"correlation": 9}},
          {"ph": "X", "cat": "mtia_ccp_events", "name": "mtia_kernel", "pid": 0, "tid": 3, "ts": 5, "dur": 2, "args": {"correlation": 9}}
        ]})j");
        QVERIFY(model);
        QCOMPARE(byName(*model, "mtiaLaunch")->category, Category::Runtime);
        QCOMPARE(byName(*model, "mtia_kernel")->category, Category::Kernel);
        QCOMPARE(byName(*model, "mtia_kernel")->correlated,
                 model->idOf(*byName(*model, "mtiaLaunch")));
        QCOMPARE(detectGpuVendor(*model), GpuVendor::Mtia);
    }

    void readsNewerMemoryEventsAndFloatDurations()
    {
        const auto model = load(R"j({"schemaVersion": 1, "traceEvents": [
          {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 2, "ts": 30,
           "args": {"Device Type": 1, "Device Id": 1, "Addr": 139926520725504, "Bytes": -4096,
                    "Total Allocated": 8192, "Total Reserved": 2097152}},
          {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 2, "ts": 20,
           "args": {"Device Type": 1, "Device Id": 1, "Addr": 139926520725504, "Bytes": 4096,
                    "Total Allocated": 12288, "Total Reserved": 2097152}},
          {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 2, "ts": 10, "dur": 30.5}
        ]})j");
        QVERIFY(model);
        const auto samples = model->memorySamples();
        QCOMPARE(samples.size(), size_t(2));
        QCOMPARE(samples[0].timeNs, int64_t(20000));  // sorted by time
        QCOMPARE(samples[0].totalAllocated, int64_t(12288));
        QCOMPARE(samples[1].bytes, int64_t(-4096));
        QCOMPARE(samples[1].totalReserved, int64_t(2097152));
        QCOMPARE(int(samples[1].deviceType), 1);
        QCOMPARE(byName(*model, "op")->durationNs, int64_t(30500));
        QCOMPARE(model->stats().byRawCategory.at("cpu_instant_event"), uint64_t(2));
    }

    void countsWhatItCannotUse()
    {
        const auto model = load(R"j({"traceEvents": [
          {"ph": "B", "name": "begin", "pid": 1, "tid": 1, "ts": 1},
          {"ph": "X", "name": "no ts", "pid": 1, "tid": 1, "dur": 1},
          {"ph": "X", "name": "negative", "pid": 1, "tid": 1, "ts": 5, "dur": -3},
          {"name": "no phase", "pid": 1, "tid": 1, "ts": 5},
          42,
          {"ph": "X", "cat": "cpu_op", "name": "good", "pid": 1, "tid": 1, "ts": 5, "dur": 3}
        ]})j");
        QVERIFY(model);
        const auto& skipped = model->stats().skipped;
        QCOMPARE(model->stats().entries, uint64_t(6));
        QCOMPARE(skipped.at("unsupported phase 'B'"), uint64_t(1));
        QCOMPARE(skipped.at("event without ts"), uint64_t(1));
        QCOMPARE(skipped.at("negative duration"), uint64_t(1));
        QCOMPARE(skipped.at("event without ph"), uint64_t(1));
        QCOMPARE(skipped.at("array element is not an object"), uint64_t(1));
        QCOMPARE(model->events().size(), size_t(1));
    }

    void nestsParentsBeforeChildrenAtEqualStarts()
    {
        // Out of order in the file; equal starts: the longer event is the parent.
        const auto model = load(R"j({"traceEvents": [
          {"ph": "X", "cat": "cpu_op", "name": "child", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
          {"ph": "X", "cat": "cpu_op", "name": "sibling", "pid": 1, "tid": 1, "ts": 30, "dur": 5},
          {"ph": "X", "cat": "cpu_op", "name": "parent", "pid": 1, "tid": 1, "ts": 10, "dur": 15},
          {"ph": "X", "cat": "cpu_op", "name": "overlapper", "pid": 1, "tid": 1, "ts": 33, "dur": 10}
        ]})j");
        QVERIFY(model);
        const Event* parent = byName(*model, "parent");
        const Event* child = byName(*model, "child");
        QVERIFY(parent < child);  // laid out by start, longer first
        QCOMPARE(child->parent, model->idOf(*parent));
        QCOMPARE(int(child->depth), 1);
        QVERIFY(!byName(*model, "sibling")->parent.valid());
        // `overlapper` starts inside `sibling` but ends after it: not its child.
        QVERIFY(!byName(*model, "overlapper")->parent.valid());
        QCOMPARE(model->stats().partialOverlaps, uint64_t(1));
    }

    void readsUnreadableTraceNameWithoutFailing()
    {
        // Windows paths written without escaping (pytorch/kineto#336).
        const auto model =
            load("{\"schemaVersion\": 1, \"traceName\": \"C:\\Users\\me\\trace.json\", "
                 "\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", "
                 "\"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 3}]}");
        QVERIFY(model);
        QCOMPARE(QString::fromStdString(model->metadata().traceName),
                 QString("C:\\Users\\me") + "\t" + "race.json");
    }
};

QTEST_GUILESS_MAIN(TestTraceFormats)
#include "test_trace_formats.moc"
