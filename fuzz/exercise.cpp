#include "fuzz/exercise.h"

#include "app/cli/diagnose_report.h"
#include "app/cli/info_report.h"
#include "app/cli/lab_report.h"
#include "app/cli/memory_report.h"
#include "app/cli/summary_report.h"
#include "core/analysis/call_tree.h"
#include "core/analysis/diagnosis/diagnosis.h"
#include "core/analysis/summary.h"
#include "core/document/document.h"
#include "core/session/lab_reading.h"
#include "core/session/session.h"
#include "core/timeline/counter_track.h"
#include "core/timeline/selection.h"
#include "core/timeline/timeline_index.h"
#include "core/timeline/track_layout.h"
#include "core/trace/event_args.h"
#include "core/trace/event_array_scan.h"
#include "core/trace/event_parser_backend.h"
#include "core/trace/json_scan.h"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace kinetoscope::fuzz {

namespace {

// Every writer's JSON is dumped strictly: a string that is not valid UTF-8 throws (and
// the fuzzer reports it), where the CLI's own dump would replace it.
void checkJson(const nlohmann::json& j)
{
    (void)j.dump(2);
}

uint64_t hashOf(std::string_view bytes)
{
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (char c : bytes)
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return h;
}

// The common-shape scanner reads the input's event array as simdjson does, or declines:
// it never accepts what simdjson rejects nor reads a field differently.
void checkCommonShapeAgrees(std::string_view bytes)
{
    const size_t key = bytes.find("\"traceEvents\"");
    const size_t open = key == std::string_view::npos ? key : bytes.find('[', key);
    if (open == std::string_view::npos)
        return;
    std::string_view array = bytes.substr(open);
    const trace::json_scan::ScanResult scanned = trace::json_scan::scanValue(array);
    if (scanned.status == trace::json_scan::Scan::Complete)
        array = array.substr(0, scanned.length);
    std::string padded(array);
    padded.append(trace::kPaddingBytes, ' ');
    const std::string_view text(padded.data(), array.size());
    std::vector<trace::BatchEvent> scannedEvents;
    if (!trace::scanCommonEventArray(text, scannedEvents))
        return;
    std::vector<trace::BatchEvent> parsedEvents;
    const auto backend = trace::makeEventParserBackend(trace::ParserBackendChoice::Generic);
    if (backend->parseArray(text.data(), text.size(), padded.size(), parsedEvents) != 0)
        throw std::logic_error("the common-shape scanner accepted an array simdjson rejects");
    if (scannedEvents.size() != parsedEvents.size())
        throw std::logic_error("the common-shape scanner read another number of events");
    for (size_t i = 0; i < parsedEvents.size(); ++i)
        if (!(scannedEvents[i].event == parsedEvents[i].event) ||
            scannedEvents[i].offset != parsedEvents[i].offset ||
            scannedEvents[i].isObject != parsedEvents[i].isObject)
            throw std::logic_error("the common-shape scanner read an event differently");
}

}  // namespace

trace::LoadOptions optionsFor(std::string_view bytes)
{
    const uint64_t h = hashOf(bytes);
    trace::LoadOptions options;
    options.limits.windowBytes = size_t(64) << (h % 9);                // 64 B .. 16 KiB
    options.limits.batchLookBackBytes = size_t(32) << ((h >> 8) % 9);  // 32 B .. 8 KiB
    options.parser =
        (h >> 24) & 1 ? trace::ParserBackendChoice::Avx2 : trace::ParserBackendChoice::Generic;
    options.threads = 1 + static_cast<unsigned>((h >> 25) % 3);         // 1 .. 3
    options.limits.parallelBlockBytes = size_t(64) << ((h >> 28) % 9);  // 64 B .. 16 KiB
    return options;
}

trace::LoadStatus exerciseTrace(std::string_view bytes, const trace::LoadOptions& options)
{
    const std::string source = "fuzz-input.json";
    checkCommonShapeAgrees(bytes);
    const trace::LoadResult loaded = trace::loadTraceText(std::string(bytes), options);
    if (!loaded.model)
        return loaded.status;
    const trace::TraceModel& model = *loaded.model;
    checkJson(cli::infoJson(source, loaded));
    (void)cli::infoText(source, loaded);

    // args read back from the source, for the first and the last events
    if (!model.events().empty()) {
        for (const trace::Event* e : {&model.events().front(), &model.events().back()})
            if (const auto args = trace::readArgs(model, model.idOf(*e)))
                (void)trace::argsText(*args);
    }

    analysis::SummaryOptions summaryOptions;
    summaryOptions.utilizationBuckets = 50;
    const analysis::TraceSummary summary = analysis::summarize(model, summaryOptions);
    cli::SummaryReportOptions reportOptions;
    reportOptions.includeSeries = true;
    reportOptions.memoryPoints = 16;
    checkJson(cli::summaryJson(source, loaded, summary, 0.0, reportOptions));
    (void)cli::summaryText(source, loaded, summary, 0.0, reportOptions);
    (void)analysis::computeCallTree(model);  // the Modules page's, built by the app only

    const analysis::Thresholds thresholds;
    const std::vector<analysis::Finding> findings =
        analysis::diagnose({model, summary, thresholds, nullptr});
    checkJson(cli::diagnosisJson(source, findings, &summary));
    (void)cli::diagnosisMarkdown(source, findings, &summary);
    (void)cli::diagnosisText(source, findings, &summary);

    // What a document's timeline builds and what its first paint and a selection ask.
    const timeline::TimelineIndex index(model);
    const timeline::TrackLayout layout(index,
                                       timeline::countersFromSummary(summary, model.endNs()));
    for (uint32_t lane = 0; lane < index.lanes().size(); ++lane)
        (void)layout.laneLabel(lane);
    const timeline::Viewport view = timeline::Viewport::fit(model.beginNs(), model.endNs(), 1200);
    std::vector<timeline::DrawItem> items;
    index.buildDrawList(view, 1.0f, items);
    if (!index.lanes().empty())
        (void)index.hitTest(0, view, 600.0);
    (void)timeline::totalsInRange(index, model.beginNs(), model.endNs());
    (void)timeline::searchByName(model, "a");
    if (!model.events().empty())
        (void)timeline::linksOf(model, model.idOf(model.events().front()));
    return loaded.status;
}

bool exerciseSession(std::string_view bytes)
{
    std::string error;
    const std::optional<session::Session> read =
        session::parseSession(bytes, "fuzz-input.kinetoscope.json", error);
    if (!read) {
        if (error.empty() || error.find('\n') != std::string::npos)
            throw std::logic_error("a rejected session must say why in one line");
        return false;
    }
    (void)session::readLab(*read);
    const analysis::LabMeasurements lab = document::labMeasurementsOf(*read);

    // The lab-aware rules on a small trace of two steps with one kernel each.
    static const trace::LoadResult small = trace::loadTraceText(R"({"traceEvents":[
        {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},
        {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},
        {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":500,"args":{"correlation":1,"device":0,"stream":7}},
        {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":1000,"dur":1000},
        {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1010,"dur":5,"args":{"correlation":2}},
        {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1020,"dur":500,"args":{"correlation":2,"device":0,"stream":7}}]})");
    const analysis::TraceSummary summary = analysis::summarize(*small.model);
    const analysis::Thresholds thresholds;
    const std::vector<analysis::Finding> findings =
        analysis::diagnose({*small.model, summary, thresholds, &lab});
    checkJson(cli::diagnosisJson("session", findings, &summary));
    (void)cli::diagnosisMarkdown("session", findings, &summary);
    checkJson(nlohmann::json::parse(session::sessionJson(*read)));
    // As a session recorded without a trace opens: its measured findings and its figures.
    const std::vector<analysis::Finding> measured = analysis::diagnoseLab(lab, thresholds);
    checkJson(cli::diagnosisJson("session", measured, nullptr));
    (void)cli::diagnosisText("session", measured, nullptr);
    (void)cli::labText(*read);
    return true;
}

bool exerciseSnapshot(std::string_view bytes)
{
    const snapshot::LoadedSnapshot loaded = snapshot::readSnapshot(bytes);
    if (!loaded.model) {
        if (loaded.error.empty() || loaded.error.find('\n') != std::string::npos)
            throw std::logic_error("a rejected snapshot must say why in one line");
        return false;
    }
    const snapshot::SnapshotSummary summary = snapshot::summarize(*loaded.model);
    if (summary.peakAllocatedBytes < 0 || summary.leakedBytes < 0)
        throw std::logic_error("a snapshot's byte counts are never negative");
    checkJson(cli::memoryJson("fuzz-input.pickle", *loaded.model, summary));
    (void)cli::memoryText("fuzz-input.pickle", *loaded.model, summary, false);
    (void)cli::memoryText("fuzz-input.pickle", *loaded.model, summary, true);
    return true;
}

}  // namespace kinetoscope::fuzz
