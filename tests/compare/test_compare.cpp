// The comparison (core/compare): the verdict and where the change came from, on the real
// before/after pairs of ../shared/traces (READINGS.md has an expert's account of each
// change), on every trace against itself, and on a planted-change corpus where the
// change is known to the microsecond.
#ifndef Q_MOC_RUN
#include "core/compare/comparison.h"
#include "core/compare/comparison_markdown.h"
#include "core/compare/run_identity.h"
#include "core/compare/step_change.h"
#include "tests/support/batch_sessions.h"
#include "tests/support/scenario_trace.h"
#include "tests/support/test_support.h"
#endif

#include <QtTest>
#include <cmath>
#include <filesystem>

using namespace kinetoscope::compare;
using kinetoscope::test::sharedTrace;

namespace {

Comparison comparePaths(const std::string& before, const std::string& after)
{
    std::string error;
    const CompareInput input = openBoth(before, after, {}, error);
    if (!input.before)
        qFatal("cannot open: %s", error.c_str());
    return compareDocuments(*input.before, *input.after);
}

Comparison compareShared(const std::string& before, const std::string& after)
{
    return comparePaths(sharedTrace(before).string(), sharedTrace(after).string());
}

const Cause* findCause(const Comparison& c, Cause::Kind kind, const std::string& name = "")
{
    for (const Cause& x : c.causes)
        if (x.kind == kind && (name.empty() || x.name == name))
            return &x;
    return nullptr;
}

const Delta* findRow(const std::vector<Delta>& rows, const std::string& name)
{
    for (const Delta& d : rows)
        if (d.name == name)
            return &d;
    return nullptr;
}

const FindingChange* findFinding(const Comparison& c, const std::string& id)
{
    for (const FindingChange& f : c.findings)
        if (f.id == id)
            return &f;
    return nullptr;
}

constexpr double kMs = 1e6;

}  // namespace

class TestCompare : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void bootstrapCallsOnlyWhatTheSamplesSupport()
    {
        const StepSample same = stepSample({100, 102, 98, 101, 99});
        QCOMPARE(estimateChange(same, same).verdict, Verdict::NoSignificantChange);
        const StepChange faster = estimateChange(same, stepSample({80, 81, 79, 80, 82}));
        QCOMPARE(faster.verdict, Verdict::Faster);
        QVERIFY(faster.lowNs && faster.highNs && *faster.highNs < 0 &&
                *faster.lowNs <= faster.deltaNs);
        // Overlapping noisy samples: the interval spans zero.
        const StepChange noisy =
            estimateChange(stepSample({100, 140, 90, 130}), stepSample({95, 135, 105, 120}));
        QCOMPARE(noisy.verdict, Verdict::NoSignificantChange);
        QVERIFY(*noisy.lowNs < 0 && *noisy.highNs > 0);
        // One step a side: no interval; 5 % is called, 3 % is not.
        const StepChange single = estimateChange(stepSample({100}), stepSample({106}));
        QCOMPARE(single.verdict, Verdict::Slower);
        QVERIFY(!single.lowNs);
        QVERIFY(single.method.find("no confidence interval") != std::string::npos);
        QCOMPARE(estimateChange(stepSample({100}), stepSample({103})).verdict,
                 Verdict::NoSignificantChange);
        QVERIFY(single.slowerBeyond(0.05, 100) && !single.slowerBeyond(0.07, 100));
        // Two steps a side: an interval, but too few steps to call 1.4 % on it.
        const StepChange two = estimateChange(stepSample({1000, 1002}), stepSample({1015, 1016}));
        QVERIFY(two.lowNs && *two.lowNs > 0);
        QCOMPARE(two.verdict, Verdict::NoSignificantChange);
        QVERIFY(two.method.find("fewer than 5 steps") != std::string::npos);
        // Hundreds of steps: Welch's interval, around the true difference of 2.
        std::vector<double> slow, fast;
        for (int i = 0; i < 300; ++i) {
            slow.push_back(100 + (i % 7));
            fast.push_back(98 + (i % 5) + 1);  // means 103 and 101
        }
        const StepChange many = estimateChange(stepSample(slow), stepSample(fast));
        QCOMPARE(many.verdict, Verdict::Faster);
        QVERIFY(many.method.find("Welch") != std::string::npos);
        QVERIFY(*many.lowNs < -2.0 && *many.highNs > -2.0 && *many.highNs < 0);
        // A side with no measurable step: no verdict, no percentage.
        const StepChange empty = estimateChange(stepSample({0}), stepSample({10}));
        QCOMPARE(empty.verdict, Verdict::NoSignificantChange);
        QCOMPARE(empty.relative, 0.0);
        QVERIFY(empty.method.find("no step of measurable length") != std::string::npos);
    }

    void batchSizeIsReadFromSharedShapes()
    {
        using kinetoscope::analysis::OpStats;
        QCOMPARE(parseShapes("[[32, 3, 224, 224], [64, 3, 7, 7], [], [[1, 2]], 5]"),
                 (std::vector<std::vector<int64_t>>{{32, 3, 224, 224}, {64, 3, 7, 7}, {}, {}}));
        auto op = [](const char* name, const char* shapes) {
            OpStats s;
            s.name = name;
            s.inputShapes = shapes;
            s.calls = 10;
            return s;
        };
        const std::vector<OpStats> before{op("aten::conv2d", "[[32, 3, 224, 224], [64, 3, 7, 7]]"),
                                          op("aten::relu", "[[32, 64, 112, 112]]"),
                                          op("aten::linear", "[[32, 2048], [1000, 2048], [1000]]"),
                                          op("aten::add_", "[[1000, 2048], [1000, 2048]]")};
        const std::vector<OpStats> after{op("aten::conv2d", "[[64, 3, 224, 224], [64, 3, 7, 7]]"),
                                         op("aten::relu", "[[64, 64, 112, 112]]"),
                                         op("aten::linear", "[[64, 2048], [1000, 2048], [1000]]"),
                                         op("aten::add_", "[[1000, 2048], [1000, 2048]]")};
        const auto batch = detectBatchChange(before, after);
        QVERIFY(batch);
        QCOMPARE(batch->before, int64_t{32});
        QCOMPARE(batch->after, int64_t{64});
        QCOMPARE(batch->opsAgreeing, 3);
        QVERIFY(!detectBatchChange(before, before));
        // A change of sequence length (not the leading dimension) is not a batch change.
        const std::vector<OpStats> longer{op("aten::conv2d", "[[32, 3, 448, 224], [64, 3, 7, 7]]"),
                                          op("aten::relu", "[[32, 64, 224, 112]]"),
                                          op("aten::linear", "[[32, 4096], [1000, 4096], [1000]]")};
        QVERIFY(!detectBatchChange(before, longer));
    }

    // READINGS.md: DataLoader wait 69 -> ~1 ms per step, the kernels unchanged (98.6 ms of
    // fp32 conv/BN per step on both sides), the step 175 -> 123-140 ms.
    void moreWorkersMakeTheStepFasterThroughTheDataLoader()
    {
        const Comparison c = compareShared("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz",
                                           "kineto/resnet50_v100_workers4_2021.pt.trace.json.gz");
        QVERIFY(c.sameHardware);
        QVERIFY(!c.batch);
        QCOMPARE(c.verdict().verdict, Verdict::Faster);
        QVERIFY(c.step.relative < -0.15 && c.step.relative > -0.35);
        QVERIFY(c.step.highNs && *c.step.highNs < 0);
        QCOMPARE(c.before.steps.valuesNs.size(), size_t{6});
        QCOMPARE(c.after.warmUpSteps, size_t{1});  // #5: its first H2D waits 40 ms
        QCOMPARE(c.causes.front().kind, Cause::Kind::DataLoader);
        QVERIFY(c.causes.front().deltaNs() < -50 * kMs && c.causes.front().deltaNs() > -70 * kMs);
        QVERIFY2(c.changeLine.starts_with("DataLoader wait −") &&
                     c.changeLine.find("kernels unchanged") != std::string::npos,
                 c.changeLine.c_str());
        QVERIFY(std::fabs(c.kernelAfterNs - c.kernelBeforeNs) < 0.02 * c.kernelBeforeNs);
        QVERIFY(c.verdictLine.starts_with("Faster: "));
        const FindingChange* loader = findFinding(c, "dataloader-bound");
        QVERIFY(loader && loader->status == FindingChange::Status::Resolved &&
                loader->beforeGainNs > 50 * kMs);
        const std::string markdown = comparisonMarkdown(c);
        QVERIFY(markdown.find("Predicted and measured: `dataloader-bound`") != std::string::npos);
    }

    // The two sides share the threads: half each when both are read, all of them for the one
    // side read when the other is already open (the app's tab), one each with a budget of 1
    // (then read one after the other). The comparison is the same.
    void theSidesShareTheThreads()
    {
        const std::string before =
            sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz").string();
        const std::string after =
            sharedTrace("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz").string();
        std::string error;
        kinetoscope::document::OpenOptions options;
        options.threads = 1;
        const CompareInput serial = openBoth(before, after, options, error);
        QVERIFY2(serial.before, error.c_str());
        QCOMPARE(serial.before->threads, 1u);
        QCOMPARE(serial.after->threads, 1u);
        options.threads = 4;
        const CompareInput shared = openBoth(before, after, options, error);
        QVERIFY2(shared.before, error.c_str());
        QCOMPARE(shared.before->threads, 2u);
        QCOMPARE(shared.after->threads, 2u);
        const CompareInput oneRead =
            openBoth(before, after, options, error, {serial.before, nullptr});
        QVERIFY2(oneRead.before, error.c_str());
        QVERIFY(oneRead.before == serial.before);  // not read again
        QCOMPARE(oneRead.after->threads, 4u);
        const Comparison a = compareDocuments(*serial.before, *serial.after);
        const Comparison b = compareDocuments(*shared.before, *shared.after);
        QCOMPARE(a.verdictLine, b.verdictLine);
        QCOMPARE(a.changeLine, b.changeLine);
        QCOMPARE(a.step.relative, b.step.relative);
    }

    // The HTA TraceDiff pair: its two files name different GPUs (an A100 and a V100).
    void theHtaPairIsReportedAsDifferentHardware()
    {
        const Comparison c = compareShared("hta/diff_control.json.gz", "hta/diff_test.json.gz");
        QVERIFY(!c.sameHardware);
        QVERIFY(c.before.hardware.devices.find("A100") != std::string::npos);
        QVERIFY(c.after.hardware.devices.find("V100") != std::string::npos);
        QVERIFY2(c.verdictLine.starts_with("Different hardware ("), c.verdictLine.c_str());
        QVERIFY(c.changeLine.starts_with("Kernels +"));
        QCOMPARE(c.verdict().verdict, Verdict::Slower);
        // Kernel efficiency of the costliest op groups, each side against its own roof: the
        // same fp32 GEMM is a TF32 kernel at a fifth of the A100's roof and a SIMT one near
        // the V100's fp32 peak.
        QVERIFY(c.efficiency.size() >= 5);
        auto cost = [](const EfficiencyDelta& d) {
            return std::max(d.before ? d.before->deviceNsPerStep : 0.0,
                            d.after ? d.after->deviceNsPerStep : 0.0);
        };
        for (size_t i = 1; i < c.efficiency.size(); ++i)
            QVERIFY(cost(c.efficiency[i - 1]) >= cost(c.efficiency[i]));
        const auto gemm =
            std::find_if(c.efficiency.begin(), c.efficiency.end(), [](const EfficiencyDelta& d) {
                return d.name == "aten::mm" && d.inputShapes == "[[1024, 1024], [1024, 1705]]";
            });
        QVERIFY(gemm != c.efficiency.end() && gemm->before && gemm->after);
        QCOMPARE(gemm->before->dtype, std::string("fp32"));
        QVERIFY(gemm->before->shareOfRoof && gemm->after->shareOfRoof);
        QVERIFY(*gemm->before->shareOfRoof < 0.3 && *gemm->after->shareOfRoof > 0.6);
        QVERIFY(gemm->before->achievedTflops > 2 * gemm->after->achievedTflops);
        QVERIFY(comparisonMarkdown(c).find("## Kernel efficiency of the costliest op groups") !=
                std::string::npos);
    }

    // READINGS.md: 183.5 -> 50.0 ms (-72.8 %); D2H copies 4,096 -> 1, syncs 4,096 -> 1.
    void oneCopyInsteadOfFourThousandRemovesTheSyncs()
    {
        const Comparison c =
            compareShared("pairs/d2h_sync/gpupuzzlers_d2h_item_per_element_before.json.gz",
                          "pairs/d2h_sync/gpupuzzlers_d2h_single_copy_after.json.gz");
        QCOMPARE(c.verdict().verdict, Verdict::Faster);
        QVERIFY(std::fabs(c.step.relative + 0.728) < 0.01);
        const Cause* sync = findCause(c, Cause::Kind::Sync);
        QVERIFY(sync && sync->beforeCount && *sync->beforeCount >= 8192 && *sync->afterCount <= 3);
        const Delta* copies = findRow(c.copies, "Memcpy DtoH (Device -> Pageable)");
        QVERIFY(copies && copies->beforeCalls == 4096 && copies->afterCalls == 1);
        QVERIFY(c.causes.size() >= 2);
        QVERIFY(c.causes[0].kind == Cause::Kind::Sync || c.causes[0].name == "aten::copy_");
        QVERIFY(c.changeLine.find("kernels unchanged") != std::string::npos);
    }

    // READINGS.md: 274.3 -> 197.0 ms (-28 %), syncs 200 -> 0, host blocking in
    // cudaMemcpyAsync 189 -> 99.6 ms, D2H now into pinned memory.
    void pinnedCopiesWithoutSyncs()
    {
        const Comparison c =
            compareShared("pairs/streams_pageable_vs_pinned/"
                          "gpupuzzlers_a100_dtoh_pageable_blocking_before.json.gz",
                          "pairs/streams_pageable_vs_pinned/"
                          "gpupuzzlers_a100_dtoh_pinned_nonblocking_after.json.gz");
        QCOMPARE(c.verdict().verdict, Verdict::Faster);
        QVERIFY(std::fabs(c.step.relative + 0.28) < 0.01);
        QCOMPARE(c.causes.front().kind, Cause::Kind::Sync);
        QVERIFY(c.causes.front().deltaNs() < -80 * kMs);
        const Delta* pageable = findRow(c.copies, "Memcpy DtoH (Device -> Pageable)");
        const Delta* pinned = findRow(c.copies, "Memcpy DtoH (Device -> Pinned)");
        QVERIFY(pageable && pageable->status == Delta::Status::Gone);
        QVERIFY(pinned && pinned->status == Delta::Status::New);
    }

    void theSameDecodeOnTwoVendorsIsAHardwareComparison()
    {
        const std::string dir = "pairs/qwen3_30b_a3b_decode_b300_vs_mi300x/";
        const Comparison c =
            compareShared(dir + "tracelens_b300_sglang_qwen3_30b_a3b_decode.json.gz",
                          dir + "tracelens_mi300x_sglang_qwen3_30b_a3b_decode.json.gz");
        QVERIFY(!c.sameHardware);
        QCOMPARE(c.before.hardware.vendor, std::string("NVIDIA"));
        QCOMPARE(c.after.hardware.vendor, std::string("AMD"));
        QCOMPARE(c.before.runKind, std::string("inference"));
        QVERIFY2(c.verdictLine.find("NVIDIA B300") != std::string::npos &&
                     c.verdictLine.find("MI300X") != std::string::npos,
                 c.verdictLine.c_str());
        // READINGS.md: kernel sum 6.29 -> 10.90 ms.
        QVERIFY(c.kernelAfterNs / c.kernelBeforeNs > 1.5 &&
                c.kernelAfterNs / c.kernelBeforeNs < 1.9);
        QVERIFY(c.changeLine.starts_with("Kernels +"));
        QCOMPARE(c.verdict().verdict, Verdict::Slower);
        // One cudaGraphLaunch starts hundreds of kernels: launch calls are counted as calls.
        const Cause* launches = findCause(c, Cause::Kind::Launches);
        QVERIFY(!launches ||
                (*launches->beforeCount < 100 && launches->beforeNs < c.before.steps.meanNs));
    }

    // Issue 50 item 6: two lab sessions, batch 32 -> 64. Each step takes 1.9x as long, but
    // the fp32 arm's samples/s rose 1,441 -> 1,520: the verdict is on time per sample, read
    // from the sessions' configuration, and says so with the configuration's change.
    void aBatchChangeInTheConfigurationIsJudgedPerSample()
    {
        std::string before, after, error;
        QVERIFY2(
            kinetoscope::test::writeBatchSessions(m_dir.path().toStdString(), before, after, error),
            error.c_str());
        const Comparison c = comparePaths(before, after);
        QVERIFY(!c.traced);
        QVERIFY(c.batch && c.batch->configured);
        QCOMPARE(c.batch->before, int64_t{32});
        QCOMPARE(c.batch->after, int64_t{64});
        QCOMPARE(c.lab->steps->verdict, Verdict::Slower);  // per step, as measured
        QVERIFY(c.perSampleOfLab);
        QCOMPARE(c.verdict().verdict, Verdict::Faster);  // per sample: what counts
        QVERIFY(c.perSampleAfter->meanNs < c.perSampleBefore->meanNs);
        QVERIFY(!c.slowerBeyond(0.0));
        QVERIFY2(c.verdictLine.starts_with(
                     "The configuration changed batch_size 32 → 64: the batch size changed, the "
                     "verdict is on time per sample. Faster per sample (the lab's measured steps, "
                     "16 and 16): 694 µs → 657 µs per sample ("),
                 c.verdictLine.c_str());
        QVERIFY2(c.verdictLine.find("; per step 22.2 ms → 42.1 ms (+89.6 %).") != std::string::npos,
                 c.verdictLine.c_str());
        QVERIFY2(c.verdictLine.find("Slower") == std::string::npos, c.verdictLine.c_str());
        // The same sessions the other way round: slower per sample.
        const Comparison back = comparePaths(after, before);
        QCOMPARE(back.verdict().verdict, Verdict::Slower);
        QVERIFY(back.slowerBeyond(0.03));
        // Profiled, the same: the configuration still says the batch (the traces here are one
        // file), and the verdict adds the fp32 arm's throughput.
        QVERIFY2(kinetoscope::test::writeBatchSessions(
                     m_dir.path().toStdString(), before, after, error,
                     sharedTrace("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz").string()),
                 error.c_str());
        const Comparison traced = comparePaths(before, after);
        QVERIFY(traced.traced && traced.batch && traced.batch->configured);
        QCOMPARE(traced.verdict().verdict, Verdict::Faster);
        QVERIFY2(traced.verdictLine.ends_with("; the fp32 arm 1,441 samples/s → 1,520 samples/s."),
                 traced.verdictLine.c_str());
    }

    // A V100 trace against a CPU-only one (a gloo rank that launched nothing): different
    // hardware, said first, and no verdict in a colour of its own (issue 29).
    void aCpuRunIsDifferentHardware()
    {
        const Comparison c = compareShared("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz",
                                           "hta/cpu_only_gloo_rank34.pt.trace.json.gz");
        QCOMPARE(c.after.hardware.vendor, std::string("CPU"));
        QCOMPARE(c.after.hardware.text(), std::string("CPU"));
        QVERIFY(!c.sameHardware);
        QVERIFY2(c.verdictLine.starts_with("Different hardware (Tesla V100-DGXS-32GB → CPU)"),
                 c.verdictLine.c_str());
    }

    // One program before and after a change shares most of its op time; two programs do
    // not, and the verdict cautions so. Only a certainty (two sessions of different models)
    // makes it "a comparison of two runs": a compiled run shares little with its eager self.
    void twoProgramsAreCautionedAbout()
    {
        const Comparison same =
            compareShared("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz",
                          "kineto/resnet50_v100_workers4_2021.pt.trace.json.gz");
        QVERIFY(same.sharedOpTime && *same.sharedOpTime >= kSameWorkloadShare);
        QVERIFY(same.verdictLine.find("share only") == std::string::npos);
        const Comparison other =
            compareShared("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz",
                          "hta/cpu_only_gloo_rank34.pt.trace.json.gz");
        QVERIFY(other.sharedOpTime && *other.sharedOpTime < kSameWorkloadShare);
        QVERIFY(other.sameWorkload);  // not known to differ
        QVERIFY2(other.verdictLine.find(". The two share only ") != std::string::npos &&
                     other.verdictLine.ends_with(
                         "check that both run the same model (a compiled or fused run also "
                         "shares little with an eager one)."),
                 other.verdictLine.c_str());
    }

    // The 2020 file names no device: not called different hardware from the 2021 V100 one.
    void anUnnamedDeviceIsNotDifferentHardware()
    {
        const Comparison c = compareShared("kineto/resnet50_bare_array_2020.pt.trace.json.gz",
                                           "kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        QVERIFY(c.before.hardware.devices.empty());
        QVERIFY(c.sameHardware);
        QVERIFY(!c.verdictLine.starts_with("Different hardware"));
    }

    // Kineto's fixtures: the same 0.3 µs window, only the cuda_sync events' links differ.
    void aFormatChangeIsNoChange()
    {
        const Comparison c =
            compareShared("kineto/cuda_sync_before_fix.json", "kineto/cuda_sync_after_fix.json");
        QCOMPARE(c.verdict().verdict, Verdict::NoSignificantChange);
        QVERIFY(c.causes.empty());
        QCOMPARE(c.step.deltaNs, 0.0);
    }

    void everyTraceAgainstItselfIsUnchanged_data()
    {
        QTest::addColumn<QString>("trace");
        for (const char* t : {"kineto/resnet50_v100_workers0_2021.pt.trace.json.gz",
                              "hta/diff_control.json.gz", "kineto/cuda_sync_before_fix.json",
                              "pairs/d2h_sync/gpupuzzlers_d2h_single_copy_after.json.gz",
                              "pairs/streams_pageable_vs_pinned/"
                              "gpupuzzlers_a100_dtoh_pinned_nonblocking_after.json.gz",
                              "pairs/qwen3_30b_a3b_decode_b300_vs_mi300x/"
                              "tracelens_mi300x_sglang_qwen3_30b_a3b_decode.json.gz"})
            QTest::newRow(t) << QString(t);
    }
    void everyTraceAgainstItselfIsUnchanged()
    {
        QFETCH(QString, trace);
        const std::string path = sharedTrace(trace.toStdString()).string();
        const Comparison c = comparePaths(path, path);
        QCOMPARE(c.verdict().verdict, Verdict::NoSignificantChange);
        QVERIFY(c.sameHardware && !c.batch);
        QCOMPARE(c.step.deltaNs, 0.0);
        QVERIFY(c.causes.empty());
        QVERIFY(c.changeLine.starts_with("Nothing moved"));
        for (const auto* rows : {&c.breakdown, &c.kernels, &c.ops, &c.copies})
            for (const Delta& d : *rows) {
                QCOMPARE(d.deltaNs(), 0.0);
                QCOMPARE(d.status, Delta::Status::Same);
            }
        for (const FindingChange& f : c.findings) {
            QCOMPARE(f.status, FindingChange::Status::Persisting);
            QCOMPARE(f.beforeGainNs, f.afterGainNs);
        }
    }

    // One known change per pair: the diff names it first and measures it within 5 %.
    // The same script run eagerly and under torch.compile on this machine's CPU
    // (tests/data/eager_vs_compiled/): Inductor's C++ kernels, recorded as ops, matched to
    // the eager ops they fused; the step's change split by cause.
    void eagerAgainstCompiledSplitsTheStepByCause()
    {
        const std::string dir = KINETOSCOPE_SOURCE_DIR "/tests/data/eager_vs_compiled/";
        const Comparison c = comparePaths(dir + "eager.json.gz", dir + "compiled.json.gz");
        QVERIFY(c.compiled);
        const CompiledChange& cc = *c.compiled;
        QVERIFY(!cc.beforeCompiled && cc.afterCompiled);
        QCOMPARE(cc.direction, std::string("Eager → compiled"));
        QVERIFY(!cc.deviceTime);  // a CPU run: host self time
        // The verdict says what is compared, not that the runs may be two programs.
        QVERIFY2(c.verdictLine.find("compares an eager and a compiled run") != std::string::npos,
                 c.verdictLine.c_str());
        QVERIFY(c.verdictLine.find("check that both run the same model") == std::string::npos);
        // Four parts that add up to each side's step, so their changes to the step's.
        QCOMPARE(cc.parts.size(), size_t{4});
        double before = 0, after = 0;
        for (const CompiledChange::Part& p : cc.parts) {
            before += p.beforeNs;
            after += p.afterNs;
        }
        QVERIFY(std::fabs(before - c.before.steps.meanNs) < 1.0);
        QVERIFY(std::fabs(after - c.after.steps.meanNs) < 1.0);
        QVERIFY(std::fabs((after - before) - c.step.deltaNs) < 1.0);
        const CompiledChange::Part* fusion = findPart(cc, "fusion");
        const CompiledChange::Part* gemm = findPart(cc, "gemm");
        const CompiledChange::Part* launches = findPart(cc, "launches");
        QVERIFY(fusion && gemm && launches && findPart(cc, "other"));
        // Many eager ops became few generated kernels; the GEMMs ran on both sides (extern
        // aten::mm and addmm); fewer ops per step in all.
        QVERIFY(fusion->beforeNs > 0 && fusion->afterNs > 0);
        QVERIFY(fusion->beforeCount > 3 * fusion->afterCount);
        QVERIFY(gemm->beforeNs > 0 && gemm->afterNs > 0);
        QVERIFY(launches->beforeCount > 2 * launches->afterCount);
        QCOMPARE(launches->label, std::string("host/dispatch"));
        // The fused groups, named by their source ops; the eager side's time shared among
        // them adds up to the fusion part's, and their kernels with the compiled side's ops
        // of the fused kinds run outside them (aten::expand in the loss) to its after time.
        QVERIFY(cc.groups.size() >= 5);
        double groupsEager = 0, groupsKernels = 0;
        bool gelu = false, layerNorm = false;
        for (const CompiledChange::FusedGroup& g : cc.groups) {
            groupsEager += g.eagerNs;
            groupsKernels += g.kernelNs;
            QVERIFY(g.kernels > 0 && g.kernelNs > 0 && !g.compiledBefore);
            auto has = [&](const char* op) {
                return std::find(g.ops.begin(), g.ops.end(), op) != g.ops.end();
            };
            gelu = gelu || (has("gelu") && has("gelu_backward"));
            layerNorm = layerNorm || (has("native_layer_norm") && has("add") && has("mul"));
        }
        QVERIFY(gelu && layerNorm);
        QVERIFY(std::fabs(groupsEager - fusion->beforeNs) < 1.0);
        QVERIFY(std::fabs(groupsKernels + cc.unfusedCompiledNs - fusion->afterNs) < 1.0);
        const std::string text = fusedGroupText(cc.groups.front());
        QVERIFY2(text.find(" eager ops ") != std::string::npos &&
                     text.find(" → ") != std::string::npos &&
                     text.find(" kernel") != std::string::npos,
                 text.c_str());
        // What got slower is listed, each by at least the unchanged threshold.
        QVERIFY(!cc.slower.empty());
        for (const CompiledChange::Slower& x : cc.slower)
            QVERIFY(x.deltaNs() >= kUnchangedShareOfStep * c.before.steps.meanNs);
        QVERIFY2(cc.line.starts_with("Eager → compiled: step ") &&
                     cc.line.find("fusion ") != std::string::npos &&
                     cc.line.find("; slower: ") != std::string::npos,
                 cc.line.c_str());

        // The other way round, the same split with its signs turned.
        const Comparison back = comparePaths(dir + "compiled.json.gz", dir + "eager.json.gz");
        QVERIFY(back.compiled);
        QCOMPARE(back.compiled->direction, std::string("Compiled → eager"));
        QVERIFY(std::fabs(findPart(*back.compiled, "fusion")->deltaNs() + fusion->deltaNs()) < 1.0);
        QVERIFY(back.compiled->groups.front().compiledBefore);

        // A compiled run against itself: every part unchanged, nothing slower; two eager
        // runs: no split.
        const Comparison same = comparePaths(dir + "compiled.json.gz", dir + "compiled.json.gz");
        QVERIFY(same.compiled);
        QCOMPARE(same.compiled->direction, std::string("Compiled → compiled"));
        for (const CompiledChange::Part& p : same.compiled->parts)
            QCOMPARE(p.deltaNs(), 0.0);
        QVERIFY(same.compiled->slower.empty());
        QVERIFY(!comparePaths(dir + "eager.json.gz", dir + "eager.json.gz").compiled);
    }

    // The same compiled run with Inductor's kernel profile off (torch's default): the trace
    // names none of its C++ kernels. With stacks their time is in their Python frames
    // ("<built-in function kernel>"); without, in the compiled graphs' own time. Either way
    // the fusion part holds them, against the eager ops of kinds the compiled run no longer
    // calls (helper 43: they read as "host/dispatch +11.7 ms, other -10.8 ms", no group).
    void unnamedCppKernelsAreTheFusionPart()
    {
        using Unnamed = CompiledChange::FusedGroup::Unnamed;
        const std::string dir = KINETOSCOPE_SOURCE_DIR "/tests/data/eager_vs_compiled/";
        const Comparison named = comparePaths(dir + "eager.json.gz", dir + "compiled.json.gz");
        const double namedFusionBefore = findPart(*named.compiled, "fusion")->beforeNs;
        std::vector<double> afterOps;
        for (const auto& [file, unnamed] :
             {std::pair{"compiled_unnamed_stacks.json.gz", Unnamed::Kernels},
              std::pair{"compiled_unnamed.json.gz", Unnamed::GraphRuns}}) {
            const Comparison c = comparePaths(dir + "eager.json.gz", dir + file);
            QVERIFY(c.compiled && !c.compiled->deviceTime);
            const CompiledChange& cc = *c.compiled;
            QCOMPARE(cc.groups.size(), size_t{1});
            const CompiledChange::FusedGroup& g = cc.groups.front();
            QVERIFY(g.unnamed == unnamed);
            const CompiledChange::Part* fusion = findPart(cc, "fusion");
            QVERIFY(std::fabs(g.eagerNs - fusion->beforeNs) < 1.0);
            QVERIFY(std::fabs(g.kernelNs - fusion->afterNs) < 1.0);
            QVERIFY(g.kernelNs > 0);
            // The eager ops it stands for are the elementwise and normalisation ops, never a
            // GEMM or an op that computes nothing; and they are those the named kernels
            // fused: the eager side's fusion part agrees with the named run's within 10 %.
            auto has = [&](const char* op) {
                return std::find(g.ops.begin(), g.ops.end(), op) != g.ops.end();
            };
            QVERIFY(has("gelu") && has("gelu_backward") && has("native_layer_norm"));
            QVERIFY(!has("mm") && !has("addmm") && !has("view") && !has("transpose"));
            QVERIFY2(std::fabs(fusion->beforeNs - namedFusionBefore) < 0.1 * namedFusionBefore,
                     qPrintable(QString::number(fusion->beforeNs)));
            // Parts still add up to each side's step.
            double after = 0;
            for (const CompiledChange::Part& p : cc.parts)
                after += p.afterNs;
            QVERIFY(std::fabs(after - c.after.steps.meanNs) < 1.0);
            // Kernel frames and graph runs are no ops: the op count a step is the same with
            // stacks and without (helper 45: 248 and 230 before).
            afterOps.push_back(findPart(cc, "launches")->afterCount);
            const std::string text = fusedGroupText(g);
            if (unnamed == Unnamed::Kernels) {
                QVERIFY(g.kernels > 2);  // each kernel's frame
                QVERIFY2(text.starts_with("unnamed C++ kernels (") &&
                             text.find(" kernels ") != std::string::npos,
                         text.c_str());
            } else {
                QCOMPARE(g.kernels, 2.0);  // the forward's graph run and the backward's
                QVERIFY2(text.find("2 graph runs") != std::string::npos &&
                             text.find("with_stack tells them apart") != std::string::npos,
                         text.c_str());
            }
        }
        QCOMPARE(afterOps.size(), size_t{2});
        QCOMPARE(afterOps[0], afterOps[1]);

        // Two compiled runs, one naming its kernels and one not: on both sides the kernels
        // are the fusion part (helper 45: the unnamed side's had read as host/dispatch), and
        // the unnamed ones make no group (there are no eager ops to set them against).
        const Comparison both =
            comparePaths(dir + "compiled_unnamed_stacks.json.gz", dir + "compiled.json.gz");
        QVERIFY(both.compiled && both.compiled->direction == "Compiled → compiled");
        const CompiledChange::Part* fusion = findPart(*both.compiled, "fusion");
        QVERIFY(fusion->beforeNs > 0.3 * fusion->afterNs);
        for (const CompiledChange::FusedGroup& g : both.compiled->groups)
            QVERIFY(g.unnamed == Unnamed::No);
    }

    // One side's steps run other shapes each step (train_two_blocks.py compiled with
    // dynamic=True on 32, 48, 64 and 40 tokens in turn; the eager run, 64 every step): its
    // steps do other work, which the verdict says first (helper 43: it read as the same
    // workload, 50 % faster). Runs whose shapes do not change say nothing of it.
    void shapesThatChangeEveryStepAreAWorkloadDifference()
    {
        const std::string eager =
            kinetoscope::test::dataFile("compiled/two_blocks_eager.json.gz").string();
        const std::string dynamic =
            kinetoscope::test::dataFile("compiled/two_blocks_dynamic.json.gz").string();
        const Comparison c = comparePaths(eager, dynamic);
        QVERIFY2(
            c.shapeDifference.starts_with("input shapes that change from step to step after ("),
            c.shapeDifference.c_str());
        QVERIFY2(c.verdictLine.starts_with("Input shapes that change from step to step after (") &&
                     c.verdictLine.find("a comparison of two runs, not of one change") !=
                         std::string::npos,
                 c.verdictLine.c_str());
        QVERIFY(comparePaths(dynamic, eager).shapeDifference.find(" before (") !=
                std::string::npos);
        QVERIFY(comparePaths(dynamic, dynamic).shapeDifference.empty());
        QVERIFY(comparePaths(eager, eager).shapeDifference.empty());
        // Helper 46: a GPU run's host ops bucketed by the steps' device extension fell into
        // the step before (diff_test read as varying), and a sampled trace drops other calls
        // in each step: neither is a workload that changes.
        QVERIFY(compareShared("hta/diff_control.json.gz", "hta/diff_test.json.gz")
                    .shapeDifference.empty());
        QVERIFY(compareShared("hta/sampled_rank0.json.gz", "hta/diff_control.json.gz")
                    .shapeDifference.empty());
        const std::string dir = KINETOSCOPE_SOURCE_DIR "/tests/data/eager_vs_compiled/";
        QVERIFY(
            comparePaths(dir + "eager.json.gz", dir + "compiled.json.gz").shapeDifference.empty());
    }

    // With device time (shared traces; no real eager/compiled pair of one program on a GPU
    // here): an eager ResNet against a compiled Triton model, two programs, only to read
    // the device path: kernels by their launching op, the parts adding up to the step.
    void compiledSplitReadsDeviceTime()
    {
        const Comparison c = compareShared("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz",
                                           "tracelens/torch_compile_triton.json.gz");
        QVERIFY(c.compiled);
        const CompiledChange& cc = *c.compiled;
        QCOMPARE(cc.direction, std::string("Eager → compiled"));
        QVERIFY(cc.deviceTime);
        double delta = 0;
        for (const CompiledChange::Part& p : cc.parts)
            delta += p.deltaNs();
        QVERIFY(std::fabs(delta - c.step.deltaNs) < 1.0);
        QCOMPARE(findPart(cc, "launches")->label, std::string("launches/idle"));
        QVERIFY(findPart(cc, "gemm")->beforeNs > 0 && findPart(cc, "gemm")->afterNs > 0);
        QVERIFY(cc.gemmTensorCoreBefore && cc.gemmTensorCoreAfter);
        bool rsqrt = false;
        for (const CompiledChange::FusedGroup& g : cc.groups)
            rsqrt = rsqrt || std::find(g.ops.begin(), g.ops.end(), "rsqrt") != g.ops.end();
        QVERIFY(rsqrt);  // triton_red_fused__unsafe_view_add_mean_mul_pow_rsqrt_1
        // One trace with compiled and eager paths against itself: nothing moved.
        const Comparison same = compareShared("gpupuzzlers/torch_compile_fusion.json.gz",
                                              "gpupuzzlers/torch_compile_fusion.json.gz");
        QVERIFY(same.compiled && same.compiled->deviceTime);
        for (const CompiledChange::Part& p : same.compiled->parts)
            QCOMPARE(p.deltaNs(), 0.0);
        QVERIFY(same.compiled->slower.empty());
    }

    void namesThePlantedChangeFirst_data()
    {
        QTest::addColumn<int>("change");
        for (auto change : kinetoscope::test::allPlantedChanges())
            QTest::newRow(kinetoscope::test::plantedChangeName(change)) << int(change);
    }
    void namesThePlantedChangeFirst()
    {
        QFETCH(int, change);
        const auto planted =
            kinetoscope::test::plantedPair(kinetoscope::test::PlantedChange(change));
        const std::filesystem::path dir = m_dir.path().toStdString();
        kinetoscope::test::writeFile(dir / "before.json", planted.before);
        kinetoscope::test::writeFile(dir / "after.json", planted.after);
        const Comparison c =
            comparePaths((dir / "before.json").string(), (dir / "after.json").string());
        QVERIFY(!c.causes.empty());
        const Cause& first = c.causes.front();
        QVERIFY2(causeKindKey(first.kind) == planted.causeKind,
                 (std::string(causeKindKey(first.kind)) + " " + first.label).c_str());
        if (!planted.causeName.empty())
            QCOMPARE(first.name, planted.causeName);
        if (planted.plantedLaunches != 0) {
            QVERIFY(first.beforeCount && first.afterCount);
            const double launches = *first.afterCount - *first.beforeCount;
            QVERIFY2(std::fabs(launches - planted.plantedLaunches) <=
                         0.05 * std::fabs(planted.plantedLaunches),
                     std::to_string(launches).c_str());
        } else {
            const double measuredUs = first.deltaNs() / 1000.0;
            QVERIFY2(
                std::fabs(measuredUs - planted.plantedUs) <= 0.05 * planted.plantedUs,
                (std::to_string(measuredUs) + " vs " + std::to_string(planted.plantedUs)).c_str());
        }
        QVERIFY2(c.changeLine.starts_with(std::string(1, char(std::toupper(first.label[0]))) +
                                          first.label.substr(1)),
                 c.changeLine.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCompare)
#include "test_compare.moc"
