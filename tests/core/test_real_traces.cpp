// Every real trace in ../shared/traces loads, with nothing skipped, and the counts
// agree with an independent reader.
//
// Where the expected numbers come from: `entries` is len(traceEvents) as Python's
// json.load counts it on the same file (run by hand once, 2026-11-21). It equals the
// "events" column of shared/traces/MANIFEST.md wherever the manifest gives an exact
// number; where the manifest says "~4.8k" or "~3.3k each" or leaves it blank, the
// json.load count is the one pinned here. `steps` counts ProfilerStep#N spans, `devices`
// the entries of deviceProperties/computeProperties.
#include "core/trace/format_description.h"
#include "core/trace/trace_loader.h"
#include "tests/support/test_support.h"

#include <QtTest>

using namespace kinetoscope::trace;
using kinetoscope::test::sharedTrace;

class TestRealTraces : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(std::filesystem::is_directory(kinetoscope::test::sharedTracesDir()),
                 "shared/traces is missing beside the repository");
    }

    void loadsEveryTrace_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qulonglong>("entries");
        QTest::addColumn<int>("steps");
        QTest::addColumn<int>("devices");
        QTest::addColumn<QString>("vendor");

        auto row = [](const char* file, qulonglong entries, int steps, int devices,
                      const char* vendor) {
            QTest::newRow(file) << QString(file) << entries << steps << devices << QString(vendor);
        };
        row("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz", 75718, 6, 4, "CUDA");
        row("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz", 71424, 6, 4, "CUDA");
        row("kineto/resnet50_bare_array_2020.pt.trace.json.gz", 82276, 6, 0, "CUDA");
        row("kineto/gpu_metrics_input.json.gz", 340, 1, 4, "CUDA");
        row("kineto/cuda_sync_before_fix.json", 75, 0, 8, "CUDA");
        row("kineto/cuda_sync_after_fix.json", 75, 0, 8, "CUDA");
        row("hta/allreduce_memory_rank1.json.gz", 216092, 5, 2, "CUDA");
        row("hta/diff_control.json.gz", 109123, 6, 8, "CUDA");
        row("hta/diff_test.json.gz", 105167, 6, 2, "CUDA");
        row("hta/nccl_collectives_rank0.json.gz", 40573, 3, 8, "CUDA");
        row("hta/sampled_rank0.json.gz", 4855, 2, 0, "CUDA");
        row("hta/sampled_rank1.json.gz", 4720, 2, 0, "CUDA");
        row("hta/cpu_only_gloo_rank34.pt.trace.json.gz", 7604, 5, 0, "none");
        row("hta/cpu_side_comms_only.json.gz", 2467, 1, 0, "none");
        row("hta/gpu_user_annotation_steps.json.gz", 1344, 0, 2, "CUDA");
        row("hta/capitalized_categories.json.gz", 54, 0, 0, "CUDA");
        row("hta/large_integer_ids.json.gz", 2, 0, 0, "CUDA");
        row("hta/rocm_mi250_minitoy_train.json.gz", 220, 2, 4, "ROCm");
        row("hta/alexnet_critical_path.json.gz", 1408, 0, 8, "CUDA");
        row("hta/cuda_event_sync.json.gz", 92, 1, 8, "CUDA");
        row("hta/triton_example.json.gz", 71, 1, 8, "CUDA");
        for (int rank = 0; rank < 8; ++rank) {
            static const qulonglong counts[8] = {3290, 3424, 3268, 3474, 3310, 3250, 3272, 3250};
            static const char* stamps[8] = {"1694128201545", "1694128201556", "1694128201554",
                                            "1694128201557", "1694128201547", "1694128201549",
                                            "1694128201553", "1694128201553"};
            const std::string file = "param/dlrm_8_ranks/worker" + std::to_string(rank) +
                                     "_step_12." + stamps[rank] + ".pt.trace.json.gz";
            QTest::newRow(file.c_str())
                << QString::fromStdString(file) << counts[rank] << 1 << 8 << QString("CUDA");
        }
        row("param/resnet_rtx2080ti_no_steps.json.gz", 111631, 0, 8, "CUDA");
        row("tracelens/rocm_mi300_resnet_act_checkpoint.json.gz", 56451, 3, 8, "ROCm");
        row("tracelens/rocm_mi210_gpu_only.json.gz", 2443, 0, 4, "ROCm");
        row("tracelens/torch_compile_triton.json.gz", 246, 0, 1, "ROCm");
        row("misc/zoology_no_gpu_activity.json.gz", 1784, 0, 8, "CUDA");
        row("misc/dtu_mlops_cpu_memory.json.gz", 990, 0, 0, "none");
    }

    void loadsEveryTrace()
    {
        QFETCH(QString, file);
        QFETCH(qulonglong, entries);
        QFETCH(int, steps);
        QFETCH(int, devices);
        QFETCH(QString, vendor);

        const LoadResult result = loadTraceFile(sharedTrace(file.toStdString()));
        QVERIFY2(result.ok(), result.message.c_str());
        const TraceModel& model = *result.model;
        const IngestStats& s = model.stats();
        QCOMPARE(qulonglong(s.entries), entries);
        QCOMPARE(s.skippedTotal(), uint64_t(0));
        uint64_t byCategory = 0;
        for (const auto& [cat, count] : s.byRawCategory)
            byCategory += count;
        QCOMPARE(qulonglong(byCategory), entries);
        QCOMPARE(qulonglong(s.completeEvents + s.instantEvents + s.memorySamples + s.flowEvents +
                            s.metadataEvents),
                 entries);
        QCOMPARE(int(countEventsWithNamePrefix(model)), steps);
        QCOMPARE(int(model.metadata().devices.size()), devices);
        QCOMPARE(QString::fromUtf8(gpuVendorName(detectGpuVendor(model)).data()), vendor);
        QVERIFY(model.endNs() > model.beginNs());
        // Time-sorted per track, parents before children.
        for (uint32_t t = 0; t < model.tracks().size(); ++t) {
            const auto events = model.events(TrackId{t});
            for (size_t i = 1; i < events.size(); ++i)
                QVERIFY(events[i - 1].startNs <= events[i].startNs);
            for (const Event& e : events)
                if (e.parent.valid())
                    QVERIFY(model.event(e.parent).startNs <= e.startNs &&
                            model.event(e.parent).endNs() >= e.endNs());
        }
    }

    void linksLaunchesKernelsAndOps()
    {
        // ResNet-50 on a V100 (2021): every kernel, memcpy and memset has its launch call,
        // and every launch call but the profiler's first is inside an op.
        const LoadResult result =
            loadTraceFile(sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"));
        QVERIFY(result.ok());
        const TraceModel& model = *result.model;
        uint64_t activities = 0, linked = 0, withOp = 0;
        for (const Event& e : model.events()) {
            if (e.category == Category::Kernel || e.category == Category::Memcpy ||
                e.category == Category::Memset) {
                ++activities;
                linked += e.correlated.valid();
                withOp += e.op.valid();
                if (e.correlated.valid())
                    QVERIFY(isLaunchCall(model.event(e.correlated).category));
            }
        }
        QCOMPARE(activities, uint64_t(8772 + 312 + 12));
        QCOMPARE(linked, activities);
        QVERIFY(withOp >= activities - 1);
        // Op -> launch calls is the exact reverse of launch call -> op.
        uint64_t launchesWithOp = 0, listed = 0;
        for (const Event& e : model.events()) {
            if (isLaunchCall(e.category) && e.op.valid()) {
                ++launchesWithOp;
                const auto launches = model.launchCallsOf(e.op);
                listed += std::count(launches.begin(), launches.end(), model.idOf(e));
            }
        }
        QCOMPARE(listed, launchesWithOp);
        QCOMPARE(launchesWithOp, uint64_t(11922));
        // 9,096 `async` flow pairs, each joining a launch call to a device activity.
        QCOMPARE(model.flows().size(), size_t(9096));
        for (const Flow& f : model.flows()) {
            QVERIFY(f.from.valid() && f.to.valid());
            QVERIFY(isLaunchCall(model.event(f.from).category));
            QVERIFY(isGpuActivity(model.event(f.to).category));
        }
        // 12,840 instants without `cat`: 12,838 `[memory]` samples (2021: no allocator
        // totals yet) and the profiler's two global instants.
        QCOMPARE(model.memorySamples().size(), size_t(12838));
        QCOMPARE(model.memorySamples()[0].totalAllocated, int64_t(-1));
    }

    void readsAllocatorTotalsAndRanks()
    {
        const LoadResult result = loadTraceFile(sharedTrace("hta/allreduce_memory_rank1.json.gz"));
        QVERIFY(result.ok());
        const TraceModel& model = *result.model;
        QCOMPARE(model.memorySamples().size(), size_t(28010));
        int64_t peakReserved = 0;
        for (const MemorySample& m : model.memorySamples())
            peakReserved = std::max(peakReserved, m.totalReserved);
        QVERIFY(peakReserved > int64_t(10) * 1000 * 1000 * 1000);  // > 10 GB reserved on an A100
        QVERIFY(model.metadata().distributed);
        QCOMPARE(model.metadata().distributed->rank, 1);
        QCOMPARE(model.metadata().distributed->worldSize, 2);
        QVERIFY(std::is_sorted(
            model.memorySamples().begin(), model.memorySamples().end(),
            [](const MemorySample& a, const MemorySample& b) { return a.timeNs < b.timeNs; }));
    }

    void placesRelativeTimestampsOnTheEpoch()
    {
        const LoadResult result =
            loadTraceFile(sharedTrace("hta/cpu_only_gloo_rank34.pt.trace.json.gz"));
        QVERIFY(result.ok());
        // baseTimeNanoseconds 1719853884000000000 (July 2024) + ts of ~1.2e12 us.
        const int64_t begin = result.model->beginNs();
        QVERIFY(begin > int64_t(1719853884000000000));
        QVERIFY(begin < int64_t(1719853884000000000) + int64_t(30) * 24 * 3600 * 1000000000LL);
    }
};

QTEST_GUILESS_MAIN(TestRealTraces)
#include "test_real_traces.moc"
