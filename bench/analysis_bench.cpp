// bench_analysis TRACE [--runs N] [--threads A,B,...]: loads a trace, then runs the whole
// analysis (summarize) serially (threads 1) and in parallel (threads 0, every core, and
// threads 2, and any other counts --threads adds), alternating them N times (3 by default)
// in this one process, and prints the medians side by side with their speed-ups over the
// serial run, so one run gives the ratio; then the diagnosis on it. One JSON line: ingest
// (with the loader's default threads), analysis (serial, every core, 2 threads, and every
// count run; of which the window classification, the causal model of the step serial and
// on every core, and the views' extra tables — the module tree and the kernel tables by op
// and by launch configuration, part of the analysis, and the call tree, which only the app
// builds — timed again on their own), the rules, and the roofline (issue #32: it reads back
// one call's args per op group) on its own. Issue #3 asks that the analysis take less time
// than the ingest on a 1 GB trace. A line for people goes to standard error.
#include "core/analysis/call_tree.h"
#include "core/analysis/diagnosis/diagnosis.h"
#include "core/analysis/summary.h"
#include "core/parallel/thread_count.h"
#include "core/trace/trace_loader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <sys/resource.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
namespace analysis = kinetoscope::analysis;

double secondsBetween(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Bit for bit, the figures the causal model credits: a cheap check that the parallel runs
// computed what the serial one did (tests/analysis compares whole summaries).
bool sameCausal(const analysis::CausalModel& a, const analysis::CausalModel& b)
{
    return a.stepsModelled == b.stepsModelled &&
           std::memcmp(&a.stepNs, &b.stepNs, sizeof a.stepNs) == 0 &&
           std::memcmp(a.gainNs.data(), b.gainNs.data(), sizeof a.gainNs) == 0 &&
           std::memcmp(a.soloGainNs.data(), b.soloGainNs.data(), sizeof a.soloGainNs) == 0 &&
           std::memcmp(a.deviceNs.data(), b.deviceNs.data(), sizeof a.deviceNs) == 0;
}

// "1,2,4" -> {1, 2, 4}; empty on anything else.
std::vector<unsigned> threadCounts(std::string_view list)
{
    std::vector<unsigned> counts;
    while (!list.empty()) {
        const size_t comma = std::min(list.find(','), list.size());
        const std::string item(list.substr(0, comma));
        char* end = nullptr;
        const unsigned long count = std::strtoul(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || count > 1024)
            return {};
        counts.push_back(static_cast<unsigned>(count));
        list.remove_prefix(std::min(comma + 1, list.size()));
    }
    return counts;
}

}  // namespace

int main(int argc, char** argv)
{
    const char* path = nullptr;
    int runs = 3;
    std::vector<unsigned> threads = {1, 0, 2};  // serial first: the speed-ups are over it
    bool usage = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--runs" && i + 1 < argc) {
            runs = std::atoi(argv[++i]);
        } else if (arg == "--threads" && i + 1 < argc) {
            const std::vector<unsigned> more = threadCounts(argv[++i]);
            usage = usage || more.empty();
            for (unsigned count : more)
                if (std::find(threads.begin(), threads.end(), count) == threads.end())
                    threads.push_back(count);
        } else if (!path) {
            path = argv[i];
        } else {
            usage = true;
        }
    }
    if (usage || !path || runs < 1) {
        std::fprintf(stderr, "usage: bench_analysis TRACE [--runs N] [--threads A,B,...]\n");
        return 2;
    }
    const auto t0 = Clock::now();
    const auto loaded = kinetoscope::trace::loadTraceFile(path);
    const auto t1 = Clock::now();
    if (!loaded.model) {
        std::fprintf(stderr, "bench_analysis: %s\n", loaded.message.c_str());
        return 2;
    }
    const auto& model = *loaded.model;

    // Every thread count in turn, each round starting with the next one, so that neither
    // the machine's load nor a warm cache favours one of them.
    std::vector<std::vector<double>> analysisTimes(threads.size());
    std::optional<analysis::TraceSummary> summary;  // the serial one, for what follows
    bool identical = true;
    for (int run = 0; run < runs; ++run) {
        for (size_t turn = 0; turn < threads.size(); ++turn) {
            const size_t which = (turn + static_cast<size_t>(run)) % threads.size();
            analysis::SummaryOptions options;
            options.threads = threads[which];
            const auto begin = Clock::now();
            analysis::TraceSummary result = analysis::summarize(model, options);
            analysisTimes[which].push_back(secondsBetween(begin, Clock::now()));
            if (!summary && threads[which] == 1)
                summary = std::move(result);
            else if (summary)
                identical = identical && sameCausal(summary->causal, result.causal);
        }
    }
    std::vector<double> medians;
    for (const std::vector<double>& times : analysisTimes)
        medians.push_back(median(times));
    const double serial = medians[0], cores = medians[1], two = medians[2];
    std::string byThreads, speedups, forPeople;
    for (size_t i = 0; i < threads.size(); ++i) {
        char item[160];
        std::snprintf(item, sizeof item, "%s\"%u\": %.3f", i ? ", " : "", threads[i], medians[i]);
        byThreads += item;
        std::snprintf(item, sizeof item, "%s\"%u\": %.2f", i ? ", " : "", threads[i],
                      serial / medians[i]);
        speedups += item;
        const unsigned count = kinetoscope::parallel::resolveThreads(threads[i]);
        std::snprintf(item, sizeof item, "%s%s%u thread%s %.3f s (%.2fx)", i ? " | " : "",
                      threads[i] == 0 ? "every core: " : "", count, count == 1 ? "" : "s",
                      medians[i], serial / medians[i]);
        forPeople += item;
    }

    const auto t2 = Clock::now();
    const auto findings = analysis::diagnose({model, *summary, {}, nullptr});
    const auto t3 = Clock::now();
    const auto window = analysis::classifyWindow(model, analysis::detectSteps(model));
    const auto t4 = Clock::now();
    const auto causal = analysis::buildCausalModel(model, summary->steps);
    const auto t5 = Clock::now();
    const auto causalParallel = analysis::buildCausalModel(model, summary->steps, nullptr,
                                                           kinetoscope::parallel::availableCores());
    const auto t6 = Clock::now();
    identical = identical && sameCausal(causal, causalParallel);
    const auto modules = analysis::computeModuleTree(model);
    const auto calls = analysis::computeCallTree(model);
    const auto byOp =
        analysis::computeKernelTable(model, nullptr, analysis::KernelGrouping::NameAndOp);
    const auto byLaunch =
        analysis::computeKernelTable(model, nullptr, analysis::KernelGrouping::LaunchConfig);
    const auto t7 = Clock::now();
    const auto roofline = kinetoscope::roofline::computeRoofline(model);
    const auto t8 = Clock::now();
    rusage resources{};  // after everything: the peak holds the summary and the extra tables
    getrusage(RUSAGE_SELF, &resources);
    const double ingest = secondsBetween(t0, t1);
    const unsigned coreCount = kinetoscope::parallel::availableCores();
    std::printf(
        "{\"entries\": %llu, \"steps\": %zu, \"findings\": %zu, \"ingest_seconds\": %.3f, "
        "\"runs\": %d, "
        "\"cores\": %u, \"analysis_seconds_serial\": %.3f, \"analysis_seconds_cores\": %.3f, "
        "\"analysis_seconds_2_threads\": %.3f, \"speedup_cores\": %.2f, \"speedup_2_threads\": "
        "%.2f, "
        "\"analysis_seconds_by_threads\": {%s}, \"speedup_by_threads\": {%s}, "
        "\"parallel_identical\": %s, \"window_seconds\": %.3f, \"steady_steps\": %zu, "
        "\"causal_model_seconds_serial\": %.3f, \"causal_model_seconds_cores\": %.3f, "
        "\"steps_modelled\": %zu, \"diagnosis_seconds\": %.3f, \"analysis_over_ingest_serial\": "
        "%.2f, "
        "\"analysis_over_ingest_cores\": %.2f, \"view_tables_seconds\": %.3f, "
        "\"view_tables_over_analysis\": %.2f, \"module_nodes\": %zu, \"call_nodes\": %zu, "
        "\"kernel_rows_by_op\": %zu, \"kernel_rows_by_launch\": %zu, \"roofline_seconds\": %.3f, "
        "\"roofline_op_groups\": %zu, \"peak_rss_bytes\": %lld}\n",
        static_cast<unsigned long long>(model.stats().entries), summary->steps.steps.size(),
        findings.size(), ingest, runs, coreCount, serial, cores, two, serial / cores, serial / two,
        byThreads.c_str(), speedups.c_str(), identical ? "true" : "false", secondsBetween(t3, t4),
        window.steadyCount(), secondsBetween(t4, t5), secondsBetween(t5, t6), causal.stepsModelled,
        secondsBetween(t2, t3), serial / ingest, cores / ingest, secondsBetween(t6, t7),
        secondsBetween(t6, t7) / serial, modules.nodes.size(), calls.nodes.size(), byOp.size(),
        byLaunch.size(), secondsBetween(t7, t8), roofline.ops.size(),
        static_cast<long long>(resources.ru_maxrss) * 1024);
    std::fprintf(stderr, "analysis, median of %d: %s%s\n", runs, forPeople.c_str(),
                 identical ? "" : " | RESULTS DIFFER");
    return identical ? 0 : 1;
}
