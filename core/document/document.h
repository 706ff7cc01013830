#pragma once
// The one way to open anything: a trace file, a lab session (with its trace, or with
// its measurements alone when it was recorded without one), or a CUDA memory snapshot. Every CLI
// command and the GUI call open(); it reads the file (progress, cancel), analyses and diagnoses it
// once, and for the GUI builds the timeline's level-of-detail index on the same worker. A Document
// is immutable once built. (A job of several ranks, and a comparison of two documents, will be
// documents too.)
#include "core/analysis/call_tree.h"
#include "core/analysis/diagnosis/diagnosis.h"
#include "core/session/session.h"
#include "core/snapshot/snapshot_summary.h"
#include "core/snapshot/snapshot_timeline.h"
#include "core/timeline/timeline_index.h"
#include "core/trace/trace_loader.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kinetoscope::document {

enum class Depth
{
    Read,      // the model only (`kinetoscope info`)
    Analysed,  // + summary and diagnosis
};

struct OpenOptions
{
    Depth depth = Depth::Analysed;
    analysis::SummaryOptions summary;
    analysis::Thresholds thresholds;
    bool timelineIndex = false;  // build the timeline's index (the GUI does)
    bool callTree = false;       // build the Modules page's call tree (the GUI does)
    // A CUDA memory snapshot opens as a document of its own (the GUI, `kinetoscope
    // memory`); otherwise it is refused with a line that points to `kinetoscope memory`.
    bool snapshots = false;
    // Threads for reading and analysing the trace (core/parallel/thread_count.h): 0 = every
    // core, 1 = the serial path. The one number for both: it goes to the reader
    // (trace::LoadOptions::threads) and replaces summary.threads. The document is the same
    // whatever the number. (`--threads N` on every command, the app's performance/threads.)
    unsigned threads = 0;
};

// A memory snapshot as opened: its columns, what they say, and each device's history as
// the bands the allocation timeline draws.
struct SnapshotDocument
{
    // The timelines read the model's entries in place: a copy would point into the original.
    SnapshotDocument() = default;
    SnapshotDocument(const SnapshotDocument&) = delete;
    SnapshotDocument& operator=(const SnapshotDocument&) = delete;

    snapshot::SnapshotModel model;
    snapshot::SnapshotSummary summary;
    std::vector<snapshot::DeviceTimeline> timelines;  // Depth::Analysed
    bool timed() const
    {
        return summary.firstTimeUs >= 0 && summary.lastTimeUs > summary.firstTimeUs;
    }
};

struct OpenProgress
{
    std::function<void(double)> progress;  // fraction 0..1, on the opening thread
    const std::atomic<bool>* cancel = nullptr;
};

struct Document
{
    std::string path;         // what was opened: a trace, or a session file
    std::string sessionPath;  // the session file, when one was opened
    std::string tracePath;    // the trace read (a session's own trace)
    trace::LoadStatus loadStatus = trace::LoadStatus::Ok;
    std::string loadMessage;   // one line when loadStatus is not Ok
    uint64_t errorOffset = 0;  // byte offset the message refers to (decompressed)
    std::shared_ptr<const trace::TraceModel>
        model;  // null when nothing could be read, or no trace was recorded
    std::optional<session::Session> session;                  // when a session was opened
    std::optional<analysis::LabMeasurements> lab;             // the session's, for the lab rules
    analysis::TraceSummary summary;                           // Depth::Analysed
    std::vector<analysis::Finding> findings;                  // Depth::Analysed, ranked
    std::shared_ptr<const timeline::TimelineIndex> timeline;  // when asked for
    std::shared_ptr<const analysis::CallTree> callTree;       // when asked for
    std::shared_ptr<const SnapshotDocument> snapshot;  // a memory snapshot (OpenOptions::snapshots)
    double loadSeconds = 0.0;
    double analysisSeconds = 0.0;
    unsigned threads = 1;  // the threads it was opened with: OpenOptions::threads resolved, never 0

    bool ok() const { return loadStatus == trace::LoadStatus::Ok; }
    // A trace was read (false for a lab session recorded without --profile, which is
    // opened with its measurements and their findings alone: no model, no summary).
    bool hasTrace() const { return model != nullptr; }
    bool isSnapshot() const { return snapshot != nullptr; }
    // The load as the trace reader reported it (for writers that describe the read).
    trace::LoadResult loadResult() const;
};

// Never throws: a file that cannot be read comes back with loadStatus/loadMessage set
// and no model; one that runs out of memory while analysed, with the model freed.
std::shared_ptr<const Document> open(const std::string& path, const OpenOptions& options = {},
                                     const OpenProgress& progress = {});

// What a session measured, as the diagnosis's lab rules read it.
analysis::LabMeasurements labMeasurementsOf(const session::Session& session);

}  // namespace kinetoscope::document
