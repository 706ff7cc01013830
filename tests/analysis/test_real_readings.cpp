// Every real trace in ../shared/traces read as an expert would: its top finding, pinned
// (docs/diagnosis.md has the table with one sentence of why for each), and the invariants
// a diagnosis must keep on any trace: gains >= 0 that add up to at most the step,
// exposed communication <= communication, idle <= the window, launch delays >= 0.
#ifndef Q_MOC_RUN
#include "core/analysis/diagnosis/diagnosis.h"
#include "core/trace/trace_loader.h"
#include "tests/support/diagnosed.h"
#include "tests/support/test_support.h"
#endif

#include <QtTest>

#include <filesystem>

using namespace kinetoscope::analysis;
using namespace kinetoscope::trace;

using kinetoscope::test::diagnoseFile;
using kinetoscope::test::Diagnosed;

namespace {

double figure(const Finding& f, const std::string& name)
{
    for (const Evidence::Figure& g : f.evidence.figures)
        if (g.name == name)
            return g.value;
    return std::nan("");
}

}  // namespace

class TestRealReadings : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void topFindingIsTheExpertReading_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<QString>("expected");  // "" : no finding at all
        auto row = [](const char* trace, const char* expected) {
            QTest::newRow(trace) << QString(trace) << QString(expected);
        };
        row("gpupuzzlers/a100_cudafree_6s_small_gemms.json.gz", "warmup-in-window");
        row("gpupuzzlers/gp100_first_launch_1580ms.json.gz", "warmup-in-window");
        row("gpupuzzlers/torch_compile_fusion.json.gz", "launch-bound");
        row("hta/a100_cupti_range_profiler.json.gz", "not-a-timing-trace");
        row("hta/a100_simple_add_first_call_24s.json.gz", "warmup-in-window");
        row("hta/alexnet_critical_path.json.gz", "warmup-in-window");
        row("hta/allreduce_memory_rank1.json.gz", "launch-bound");
        row("hta/capitalized_categories.json.gz", "window-too-short");
        row("hta/cpu_only_gloo_rank34.pt.trace.json.gz", "communication-heavy");
        row("hta/cpu_side_comms_only.json.gz", "no-device-activity");
        row("hta/cuda_event_sync.json.gz", "window-too-short");
        row("hta/diff_control.json.gz", "host-sync");
        row("hta/diff_test.json.gz", "copy-heavy");
        row("hta/gpu_user_annotation_steps.json.gz", "launch-bound");
        row("hta/large_integer_ids.json.gz", "window-too-short");
        row("hta/nccl_collectives_rank0.json.gz", "launch-bound");
        row("hta/rocm_mi250_minitoy_train.json.gz", "warmup-in-window");
        row("hta/sampled_rank0.json.gz", "trace-quality");
        row("hta/sampled_rank1.json.gz", "trace-quality");
        row("hta/triton_example.json.gz", "window-too-short");
        row("kineto/cuda_sync_after_fix.json", "window-too-short");
        row("kineto/cuda_sync_before_fix.json", "window-too-short");
        row("kineto/gpu_metrics_input.json.gz", "launch-bound");
        row("kineto/resnet50_bare_array_2020.pt.trace.json.gz", "dataloader-bound");
        row("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz", "dataloader-bound");
        row("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz", "launch-bound");
        row("misc/aipe_b200_deepseek_v3_train_step.json.gz", "launch-bound");
        row("misc/dtu_mlops_cpu_memory.json.gz", "");
        row("misc/zoology_no_gpu_activity.json.gz", "no-device-activity");
        row("pairs/d2h_sync/gpupuzzlers_d2h_item_per_element_before.json.gz", "host-sync");
        row("pairs/d2h_sync/gpupuzzlers_d2h_single_copy_after.json.gz", "python-bound");
        row("pairs/qwen3_30b_a3b_decode_b300_vs_mi300x/tracelens_b300_sglang_qwen3_30b_a3b_decode.json.gz", "launch-bound");
        row("pairs/qwen3_30b_a3b_decode_b300_vs_mi300x/tracelens_mi300x_sglang_qwen3_30b_a3b_decode.json.gz", "python-bound");
        row("pairs/streams_pageable_vs_pinned/gpupuzzlers_a100_dtoh_pageable_blocking_before.json.gz", "pageable-memcpy");
        row("pairs/streams_pageable_vs_pinned/gpupuzzlers_a100_dtoh_pinned_nonblocking_after.json.gz", "pageable-memcpy");
        row("param/dlrm_8_ranks/worker0_step_12.1694128201545.pt.trace.json.gz", "launch-bound");
        row("param/dlrm_8_ranks/worker1_step_12.1694128201556.pt.trace.json.gz", "host-sync");
        row("param/dlrm_8_ranks/worker2_step_12.1694128201554.pt.trace.json.gz", "launch-bound");
        row("param/dlrm_8_ranks/worker3_step_12.1694128201557.pt.trace.json.gz", "host-sync");
        row("param/dlrm_8_ranks/worker4_step_12.1694128201547.pt.trace.json.gz", "host-sync");
        row("param/dlrm_8_ranks/worker5_step_12.1694128201549.pt.trace.json.gz", "host-sync");
        row("param/dlrm_8_ranks/worker6_step_12.1694128201553.pt.trace.json.gz", "launch-bound");
        row("param/dlrm_8_ranks/worker7_step_12.1694128201553.pt.trace.json.gz", "launch-bound");
        row("param/resnet_rtx2080ti_no_steps.json.gz", "dataloader-bound");
        row("tracelens/b300_sglang_deepseek_r1_decode.json.gz", "launch-bound");
        row("tracelens/mi300x_sglang_qwen3_8b_prefill_decode.json.gz", "window-starts-mid-work");
        row("tracelens/mi300x_vllm_piecewise_graph_replay.json.gz", "");
        row("tracelens/rocm_mi210_gpu_only.json.gz", "");
        row("tracelens/rocm_mi300_resnet_act_checkpoint.json.gz", "communication-heavy");
        row("tracelens/torch_compile_triton.json.gz", "");
    }
    void topFindingIsTheExpertReading()
    {
        QFETCH(QString, trace);
        QFETCH(QString, expected);
        const Diagnosed d = diagnoseFile(kinetoscope::test::sharedTrace(trace.toStdString()));
        QVERIFY(d.model);
        const QString top = d.findings.empty() ? QString() : QString::fromStdString(d.findings.front().id);
        QCOMPARE(top, expected);
    }

    void invariantsHoldOnEveryTrace()
    {
        int files = 0;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(kinetoscope::test::sharedTracesDir())) {
            if (!entry.is_regular_file() || entry.path().string().find(".json") == std::string::npos)
                continue;
            ++files;
            const std::string name = entry.path().filename().string();
            const Diagnosed d = diagnoseFile(entry.path());
            QVERIFY2(d.model, name.c_str());
            const TraceSummary& s = d.summary;
            const double step = s.breakdown.all.averageTotalNs;
            double gains = 0;
            for (size_t i = 0; i < d.findings.size(); ++i) {
                const Finding& f = d.findings[i];
                QVERIFY2(std::isfinite(f.estimatedGainNs) && f.estimatedGainNs >= 0, (name + " " + f.id).c_str());
                gains += f.estimatedGainNs;
                if (f.id == "communication-heavy")
                    QVERIFY2(figure(f, "exposed_communication_per_step_us") <=
                                 figure(f, "communication_per_step_us") + 1e-6,
                             name.c_str());
                if (f.id == "low-gpu-utilization")
                    QVERIFY2(figure(f, "longest_idle_stretch_us") * 1e3 <= s.window.windowNs + 1, name.c_str());
                // No HIGH finding with nothing measured behind it ("0.00 ms per step").
                if (f.severity == Severity::High && !f.aboutWindow)
                    QVERIFY2(f.estimatedGainNs > 0 || f.id == "dataparallel" || f.id == "near-oom" ||
                                 f.id == "memory-growth",
                             (name + " " + f.id).c_str());
            }
            QVERIFY2(gains <= step + 1, name.c_str());
            // The causal model: idle within the step, credited gains within the step, and
            // its replay of the measured step exact to 1 %.
            const CausalModel& m = s.causal;
            QVERIFY2(m.deviceIdleNs <= m.stepNs + 1 && m.deviceBusyNs <= m.stepNs + 1, name.c_str());
            double credited = 0;
            for (double g : m.gainNs)
                credited += g;
            QVERIFY2(credited <= m.stepNs + 1, name.c_str());
            if (m.stepsModelled > 0)
                QVERIFY2(std::abs(m.replayedStepNs - m.stepNs) <= 0.01 * m.stepNs + 1, name.c_str());
            // Launch delays are never negative: clock skew is counted apart.
            if (s.launches.launchDelay.count > 0)
                QVERIFY2(s.launches.launchDelay.min >= 0, name.c_str());
            // The steady steps lie inside the window.
            for (const Step& st : s.steps.steps)
                QVERIFY(st.durationNs() >= 0 && st.durationNs() <= s.window.windowNs);
        }
        QVERIFY(files >= 40);
    }

    void clockSkewIsReportedOnceNotAveraged()
    {
        // The B200 trace has kernels that start before their launch call: reported as a
        // count and as a quality issue, never as a negative launch delay.
        const Diagnosed d = diagnoseFile(kinetoscope::test::sharedTrace("misc/aipe_b200_deepseek_v3_train_step.json.gz"));
        QVERIFY(d.summary.launches.clockSkewed > 0);
        QVERIFY(d.summary.launches.launchDelay.min >= 0);
        bool reported = false;
        for (const QualityIssue& q : d.summary.window.quality)
            reported |= q.code == "clock-skew";
        QVERIFY(reported);
    }

    void eventsOutsideTheProfiledWindowAreReported()
    {
        // A ProfilerStep of 13.3 s on another process, outside the profiler's own span.
        const Diagnosed d = diagnoseFile(kinetoscope::test::sharedTrace("hta/triton_example.json.gz"));
        bool reported = false;
        for (const QualityIssue& q : d.summary.window.quality)
            reported |= q.code == "events-outside-window" && q.count >= 1;
        QVERIFY(reported);
        const Diagnosed clean = diagnoseFile(kinetoscope::test::sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"));
        for (const QualityIssue& q : clean.summary.window.quality)
            QVERIFY(q.code != "events-outside-window");
    }

    void theTensorBoardRulesStillHoldOnTheResNetPair()
    {
        // torch-tb-profiler 0.4.3 recommends more workers (33.4 % in the DataLoader) and
        // AMP (68 % of kernel time in Tensor Core eligible ops) for workers0, AMP only for
        // workers4; the seeds say the same (data first, then precision).
        const Diagnosed w0 = diagnoseFile(kinetoscope::test::sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"));
        QCOMPARE(QString::fromStdString(w0.findings.front().id), QString("dataloader-bound"));
        QVERIFY(std::abs(figure(w0.findings.front(), "dataloader_share_of_step") - 0.334) < 0.001);
        bool amp = false;
        for (const Finding& f : w0.findings)
            amp |= f.id == "no-tensor-cores" && std::abs(figure(f, "gemm_conv_share_of_kernel_time") - 0.68) < 0.01;
        QVERIFY(amp);
        const Diagnosed w4 = diagnoseFile(kinetoscope::test::sharedTrace("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz"));
        bool amp4 = false, dataBound = false;
        for (const Finding& f : w4.findings) {
            amp4 |= f.id == "no-tensor-cores";
            dataBound |= f.id == "dataloader-bound";
        }
        QVERIFY(amp4);
        QVERIFY(!dataBound);
    }
};

QTEST_GUILESS_MAIN(TestRealReadings)
#include "test_real_readings.moc"
