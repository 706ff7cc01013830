#pragma once
// Two analysed documents compared: the verdict on step time with its uncertainty, what
// must match for it to mean anything (hardware, batch size), and where the change came
// from: the breakdown per category, the causes ranked by how much they moved, the op,
// kernel and copy tables per step, memory peaks and the findings resolved, new and
// persisting. Every time is nanoseconds per steady step unless a name says otherwise.
//
// Steps are matched by role: each side's steady steps (warm-up and outliers set apart by
// the window classification the diagnosis uses) are the samples; their order and count
// need not match.
#include "core/analysis/breakdown.h"
#include "core/compare/compiled_change.h"
#include "core/compare/efficiency_change.h"
#include "core/compare/lab_comparison.h"
#include "core/compare/run_identity.h"
#include "core/compare/step_change.h"
#include "core/document/document.h"

#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::compare {

struct Side
{
    std::string path;
    std::string label;  // "before" / "after"
    Hardware hardware;
    std::string runKind;     // "training", "inference", "unknown"
    std::string window;      // the window's headline
    StepSample steps;        // steady step durations
    size_t warmUpSteps = 0;  // set apart
    size_t outlierSteps = 0;
};

// A row of a table compared per step: an op (name and input shapes), a kernel, a copy
// kind, a category or a cause.
struct Delta
{
    enum class Status : uint8_t
    {
        Same,
        Changed,
        New,
        Gone
    };
    std::string name;
    std::string detail;     // input shapes of an op, "" otherwise
    double beforeNs = 0.0;  // per steady step
    double afterNs = 0.0;
    double beforeCalls = 0.0;  // per steady step
    double afterCalls = 0.0;
    Status status = Status::Same;
    double deltaNs() const { return afterNs - beforeNs; }
    double relative() const { return beforeNs > 0 ? deltaNs() / beforeNs : 0.0; }
};
const char* statusName(Delta::Status status);  // "same", "changed", "new", "gone"

// Something that moved, in the words a reader would use, ranked by |deltaNs|.
struct Cause
{
    enum class Kind : uint8_t
    {
        DataLoader,
        Kernel,
        Copy,
        Sync,
        Launches,
        Op,
        Communication
    };
    Kind kind = Kind::Kernel;
    std::string name;   // the kernel, copy kind or op; "" for the others
    std::string label;  // "DataLoader wait", "kernel ampere_sgemm_128x64_tn", ...
    double beforeNs = 0.0, afterNs = 0.0;           // per steady step
    std::optional<double> beforeCount, afterCount;  // calls per step, where counting says more
    double deltaNs() const { return afterNs - beforeNs; }
};
const char* causeKindKey(
    Cause::Kind kind);  // "dataloader", "kernel", "copy", "sync", "launches", "op", "communication"

struct MemoryDelta
{
    std::string device;
    int64_t beforePeakAllocated = -1, afterPeakAllocated = -1;  // -1: no samples on that side
    int64_t beforePeakReserved = -1, afterPeakReserved = -1;    // -1: not recorded
};

struct FindingChange
{
    enum class Status : uint8_t
    {
        Resolved,
        New,
        Persisting
    };
    std::string id;
    std::string title;  // the after side's, or the before side's when resolved
    Status status = Status::Persisting;
    double beforeGainNs = 0.0;  // estimated gain per step on each side (0 where absent)
    double afterGainNs = 0.0;
};
const char* findingStatusName(FindingChange::Status status);  // "resolved", "new", "persisting"

struct Comparison
{
    Side before, after;
    StepChange step;  // per step as measured
    bool sameHardware = true;
    // The share of op time the two runs spend in the same ops (each op's share of its
    // side's self time, the smaller of the two, summed over the ops both ran): near 1 for
    // one program before and after a change; nullopt where a side recorded no op. Below
    // kSameWorkloadShare the verdict adds a caution (a compiled run shares little with its
    // eager self as well).
    std::optional<double> sharedOpTime;
    std::string modelBefore, modelAfter;  // two lab sessions: the model each ran
    // Not known to differ: false only for two lab sessions of different models, and then
    // the verdict says it compares two runs.
    bool sameWorkload = true;
    // One side's steps run their GEMMs in shapes that change from step to step and the
    // other's do not (stepShapes): "" when not; else what differs, said before the verdict
    // ("input shapes that change from step to step after (aten::addmm in 12 shapes over 3
    // steps; the same every step before)").
    std::string shapeDifference;
    // Both sides have a trace. Two lab sessions recorded without one compare their lab
    // figures alone: no steps, breakdown, tables or causes.
    bool traced = true;
    std::optional<BatchChange> batch;  // when the batch size changed
    // The verdict per sample, when it did, and each side's time per sample: over the lab's
    // own measured steps for two lab sessions that have them (perSampleOfLab), else over
    // the traces' steady steps.
    std::optional<StepChange> perSample;
    std::optional<StepSample> perSampleBefore, perSampleAfter;
    bool perSampleOfLab = false;
    // The verdict that counts: per sample when the batch changed; else, for two lab
    // sessions, over the lab's own measured steps (many more than the profiled window);
    // else per step of the traces.
    const StepChange& verdict() const
    {
        return perSample ? *perSample : labSteps() ? *lab->steps : step;
    }
    bool labSteps() const { return !perSample && lab && lab->steps; }
    // Is the after side slower by more than `fraction` of the before side's step (or
    // sample), with confidence? What `diff --fail-on-regression` exits 1 on.
    bool slowerBeyond(double fraction) const;

    std::vector<Delta> breakdown;  // one per TimeCategory, in category order (name = its key)
    std::vector<Cause> causes;     // by |deltaNs|, largest first
    std::vector<Delta> kernels;    // by |deltaNs|: changed, new and gone before same
    std::vector<Delta> ops;        // by name and input shapes (by name when a side has none)
    bool opsByShapes = false;      // which of the two
    std::vector<Delta> copies;     // memcpy and memset kinds
    std::vector<EfficiencyDelta> efficiency;  // the costliest op groups' roofline readings
    std::vector<MemoryDelta> memory;
    std::vector<FindingChange> findings;               // resolved, new, persisting; each by gain
    double kernelBeforeNs = 0.0, kernelAfterNs = 0.0;  // summed kernel time per step
    std::optional<LabComparison> lab;                  // when both sides are lab sessions
    // An eager run against a compiled one (or two compiled runs): the step's change split
    // by cause, kernels matched by the source ops they fused (compiled_change.h).
    std::optional<CompiledChange> compiled;

    // One sentence on the step ("Faster: step 175 ms → 123 ms (−51.5 ms, −29.5 %, 95 %
    // interval ...)") and one on what changed ("DataLoader wait −68.0 ms per step
    // (−98.4 %); kernels unchanged").
    std::string verdictLine;
    std::string changeLine;
};

// A row that moved by less than this share of the step (and of itself) reads as the same.
inline constexpr double kUnchangedShareOfStep = 0.005;
// Below this shared op time the verdict cautions that the runs may be two programs.
inline constexpr double kSameWorkloadShare = 0.3;

// Both documents analysed (Depth::Analysed) and readable.
Comparison compareDocuments(const document::Document& before, const document::Document& after);

// Opens both files at once, sharing options.threads (0 = every core) between the two
// sides (parallel::shareOf), so together they run no more threads than asked for; with a
// budget of 1, one after the other on this thread. A side already in `opened` (a document
// the app has open) is not read again, and the other side gets the whole budget. On a file
// that cannot be read returns empty pointers, with `error` set to one line naming the file.
struct CompareInput
{
    std::shared_ptr<const document::Document> before, after;
};
CompareInput openBoth(const std::string& beforePath, const std::string& afterPath,
                      const document::OpenOptions& options, std::string& error,
                      CompareInput opened = {});
// Why two opened documents cannot be compared, in one line naming the file (unreadable or
// read only in part; a session without a trace against anything but another session);
// nullopt when they can.
std::optional<std::string> whyNotComparable(const document::Document& before,
                                            const document::Document& after);

}  // namespace kinetoscope::compare
