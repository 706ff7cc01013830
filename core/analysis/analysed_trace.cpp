#include "core/analysis/analysed_trace.h"

#include <chrono>
#include <filesystem>
#include <new>

namespace kinetoscope::analysis {

std::shared_ptr<AnalysedTrace> analyseTraceFile(const std::string& path,
                                                const SummaryOptions& options,
                                                const AnalysisProgress& progress,
                                                const LabMeasurements* lab)
{
    using Clock = std::chrono::steady_clock;
    auto result = std::make_shared<AnalysedTrace>();
    result->path = path;
    std::error_code ec;
    const double fileBytes = static_cast<double>(std::filesystem::file_size(path, ec));
    trace::LoadOptions load;
    load.progress = [&](uint64_t bytesRead) {
        // Loading is ~80 % of the work; a gzip file decompresses to several times its size,
        // so the fraction is capped until the end.
        if (progress.progress && fileBytes > 0)
            progress.progress(
                std::min(0.75, 0.8 * static_cast<double>(bytesRead) / (fileBytes * 4.0)));
        return !(progress.cancel && progress.cancel->load());
    };
    const auto started = Clock::now();
    trace::LoadResult loaded = trace::loadTraceFile(path, load);
    result->loadSeconds = std::chrono::duration<double>(Clock::now() - started).count();
    result->loadStatus = loaded.status;
    result->loadMessage = loaded.message;
    result->model = loaded.model;
    if (!result->model)
        return result;
    if (progress.progress)
        progress.progress(0.8);
    const auto analysing = Clock::now();
    try {
        result->summary = summarize(*result->model, options);
        if (lab)
            result->lab = *lab;
        result->findings = diagnose({*result->model, result->summary, Thresholds{}, lab});
    } catch (const std::bad_alloc&) {
        // The trace itself fitted; its analysis did not. Free the model and say so.
        result->model.reset();
        result->summary = {};
        result->findings.clear();
        result->loadStatus = trace::LoadStatus::OutOfMemory;
        result->loadMessage =
            "out of memory while analysing the trace: free memory, or close other traces, "
            "and open it again";
        return result;
    }
    result->analysisSeconds = std::chrono::duration<double>(Clock::now() - analysing).count();
    if (progress.progress)
        progress.progress(1.0);
    return result;
}

}  // namespace kinetoscope::analysis
