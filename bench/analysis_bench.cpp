// bench_analysis TRACE: loads a trace, then runs the whole analysis (summarize) and the
// diagnosis on it, and prints the times as one JSON line: ingest, analysis (of which the
// window classification, the causal model of the step, and the views' extra tables — the
// module tree and the kernel tables by op and by launch configuration, part of the
// analysis, and the call tree, which only the app builds — timed again on their own),
// and the rules, and the roofline (issue #32: it reads back one call's args per op group) on
// its own. Issue #3 asks that the analysis take less time than the ingest on a 1 GB trace.
#include "core/analysis/call_tree.h"
#include "core/analysis/diagnosis/diagnosis.h"
#include "core/analysis/summary.h"
#include "core/trace/trace_loader.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_analysis TRACE\n");
        return 2;
    }
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto loaded = kinetoscope::trace::loadTraceFile(argv[1]);
    const auto t1 = Clock::now();
    if (!loaded.model) {
        std::fprintf(stderr, "bench_analysis: %s\n", loaded.message.c_str());
        return 2;
    }
    const auto summary = kinetoscope::analysis::summarize(*loaded.model);
    const auto t2 = Clock::now();
    const auto findings = kinetoscope::analysis::diagnose({*loaded.model, summary, {}, nullptr});
    const auto t3 = Clock::now();
    const auto window = kinetoscope::analysis::classifyWindow(
        *loaded.model, kinetoscope::analysis::detectSteps(*loaded.model));
    const auto t4 = Clock::now();
    const auto causal = kinetoscope::analysis::buildCausalModel(*loaded.model, summary.steps);
    const auto t5 = Clock::now();
    const auto modules = kinetoscope::analysis::computeModuleTree(*loaded.model);
    const auto calls = kinetoscope::analysis::computeCallTree(*loaded.model);
    const auto byOp = kinetoscope::analysis::computeKernelTable(*loaded.model, nullptr,
                                                                kinetoscope::analysis::KernelGrouping::NameAndOp);
    const auto byLaunch = kinetoscope::analysis::computeKernelTable(*loaded.model, nullptr,
                                                                    kinetoscope::analysis::KernelGrouping::LaunchConfig);
    const auto t6 = Clock::now();
    const auto roofline = kinetoscope::roofline::computeRoofline(*loaded.model);
    const auto t7 = Clock::now();
    rusage usage{};  // after everything: the peak holds the summary and the extra tables
    getrusage(RUSAGE_SELF, &usage);
    const double ingest = std::chrono::duration<double>(t1 - t0).count();
    const double analysis = std::chrono::duration<double>(t2 - t1).count();
    const auto seconds = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
    std::printf("{\"entries\": %llu, \"steps\": %zu, \"findings\": %zu, \"ingest_seconds\": %.3f, "
                "\"analysis_seconds\": %.3f, \"window_seconds\": %.3f, \"steady_steps\": %zu, \"causal_model_seconds\": %.3f, "
                "\"steps_modelled\": %zu, \"diagnosis_seconds\": %.3f, \"analysis_over_ingest\": %.2f, "
                "\"view_tables_seconds\": %.3f, \"view_tables_over_analysis\": %.2f, \"module_nodes\": %zu, "
                "\"call_nodes\": %zu, \"kernel_rows_by_op\": %zu, \"kernel_rows_by_launch\": %zu, "
                "\"roofline_seconds\": %.3f, \"roofline_op_groups\": %zu, \"peak_rss_bytes\": %lld}\n",
                static_cast<unsigned long long>(loaded.model->stats().entries), summary.steps.steps.size(),
                findings.size(), ingest, analysis, seconds(t3, t4), window.steadyCount(), seconds(t4, t5),
                causal.stepsModelled, seconds(t2, t3), analysis / ingest, seconds(t5, t6), seconds(t5, t6) / analysis,
                modules.nodes.size(), calls.nodes.size(), byOp.size(), byLaunch.size(), seconds(t6, t7),
                roofline.ops.size(), static_cast<long long>(usage.ru_maxrss) * 1024);
    return 0;
}
