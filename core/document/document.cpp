#include "core/document/document.h"

#include <chrono>
#include <filesystem>
#include <new>

namespace kinetoscope::document {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Reads the trace into `doc`; false when nothing usable was read.
bool read(Document& doc, const OpenProgress& progress)
{
    std::error_code ec;
    const double fileBytes = static_cast<double>(std::filesystem::file_size(doc.tracePath, ec));
    trace::LoadOptions load;
    load.progress = [&](uint64_t bytesRead) {
        // Reading is ~80 % of the work; a gzip file decompresses to several times its
        // size, so the fraction is capped until the end.
        if (progress.progress && fileBytes > 0)
            progress.progress(std::min(0.75, 0.8 * static_cast<double>(bytesRead) / (fileBytes * 4.0)));
        return !(progress.cancel && progress.cancel->load());
    };
    const auto started = Clock::now();
    trace::LoadResult loaded = trace::loadTraceFile(doc.tracePath, load);
    doc.loadSeconds = secondsSince(started);
    doc.loadStatus = loaded.status;
    doc.loadMessage = loaded.message;
    doc.errorOffset = loaded.errorOffset;
    doc.model = std::move(loaded.model);
    return doc.model != nullptr;
}

void analyse(Document& doc, const OpenOptions& options)
{
    const auto started = Clock::now();
    doc.summary = analysis::summarize(*doc.model, options.summary);
    doc.findings = analysis::diagnose({*doc.model, doc.summary, options.thresholds, doc.lab ? &*doc.lab : nullptr});
    if (options.timelineIndex)
        doc.timeline = std::make_shared<const timeline::TimelineIndex>(*doc.model);
    if (options.callTree)
        doc.callTree = std::make_shared<const analysis::CallTree>(analysis::computeCallTree(*doc.model));
    doc.analysisSeconds = secondsSince(started);
}

std::shared_ptr<const Document> failed(Document doc, trace::LoadStatus status, std::string message)
{
    doc.loadStatus = status;
    doc.loadMessage = std::move(message);
    return std::make_shared<const Document>(std::move(doc));
}

}  // namespace

trace::LoadResult Document::loadResult() const
{
    trace::LoadResult r;
    r.status = loadStatus;
    r.message = loadMessage;
    r.errorOffset = errorOffset;
    r.model = model;
    return r;
}

std::shared_ptr<const Document> open(const std::string& path, const OpenOptions& options, const OpenProgress& progress)
{
    Document doc;
    doc.path = path;
    doc.tracePath = path;
    try {
        if (session::isSessionPath(path)) {
            doc.sessionPath = path;
            std::string error;
            doc.session = session::loadSession(path, error);
            if (!doc.session)
                return failed(std::move(doc), trace::LoadStatus::NotFound, error);
            doc.lab = labMeasurementsOf(*doc.session);
            doc.tracePath = session::traceOf(*doc.session, path).string();
            if (doc.tracePath.empty())
                return failed(std::move(doc), trace::LoadStatus::NotATrace,
                              "the session records no trace (run with --profile)");
        }
        if (!read(doc, progress)) {
            if (doc.session)
                doc.loadMessage = "the session's trace " + doc.tracePath + ": " + doc.loadMessage;
            return std::make_shared<const Document>(std::move(doc));
        }
        if (progress.progress)
            progress.progress(0.8);
        if (options.depth == Depth::Analysed)
            analyse(doc, options);
    } catch (const std::bad_alloc&) {
        // The reader turns running out of memory into a status itself; this is the
        // analysis, the timeline index or a session's JSON. Free what was built, say so.
        doc.model.reset();
        doc.timeline.reset();
        doc.summary = {};
        doc.findings.clear();
        return failed(std::move(doc), trace::LoadStatus::OutOfMemory,
                      "out of memory while opening it: free memory, or close other traces, and open it again");
    }
    if (progress.progress)
        progress.progress(1.0);
    return std::make_shared<const Document>(std::move(doc));
}

analysis::LabMeasurements labMeasurementsOf(const session::Session& session)
{
    analysis::LabMeasurements lab;
    for (const session::LabArm& arm : session.lab) {
        if (!arm.ran || arm.meanStepMs <= 0)
            continue;
        const double ns = arm.meanStepMs * 1e6;
        switch (arm.kind) {
        case session::ArmKind::Fp32: lab.fp32StepNs = ns; break;
        case session::ArmKind::Bf16: lab.bf16StepNs = ns; break;
        case session::ArmKind::Bf16CudaGraph: lab.graphedStepNs = ns; break;
        }
    }
    if (session.dataLoaderMs)
        lab.dataLoaderNs = *session.dataLoaderMs * 1e6;
    if (session.computeMs)
        lab.computeNs = *session.computeMs * 1e6;
    return lab;
}

}  // namespace kinetoscope::document
