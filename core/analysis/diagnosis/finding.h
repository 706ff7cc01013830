#pragma once
// A diagnosis finding: what is wrong, the numbers that show it, what fixing it would
// save, and the fix. Findings are immutable values produced by the rules (rules.h).
#include "core/analysis/time_ranges.h"
#include "core/trace/ids.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kinetoscope::analysis {

enum class Severity : uint8_t
{
    Low,
    Medium,
    High
};
const char* severityName(Severity severity);  // "low", "medium", "high"
bool parseSeverity(std::string_view text, Severity& severity);

// Severity from the share of the step a fix would save: one scale for every time finding,
// trace, job or lab alike.
inline Severity severityForGain(double fraction)
{
    return fraction >= 0.20 ? Severity::High : fraction >= 0.08 ? Severity::Medium : Severity::Low;
}

// Where a finding's severity comes from.
enum class SeverityBasis : uint8_t
{
    Own,         // the rule's own scale: what the window is, memory risks, information, and
                 // the lab's measured findings (graded on the lab's own step)
    Gain,        // a time finding: severityForGain of its credited gain's share of the step,
                 // set once for all of them when the diagnosis is assembled
    DeviceGain,  // a time finding about the device's own work: as Gain, and at most LOW
                 // while the device waits on the host most of the step (it does not set the pace)
};

// What a figure's value is measured in. The JSON names them by unitKey.
enum class Unit : uint8_t
{
    Microseconds,
    Fraction,  // 0-1, a share
    Bytes,
    Count,  // may be a mean (per step)
    Ratio,
    GigabytesPerSecond,  // bytes per nanosecond
};
const char* unitKey(Unit unit);  // "us", "fraction", "bytes", "count", "ratio", "GB/s"

// An op or kernel the evidence names, and where it is in the trace: its longest instance
// (found after the rules ran), so that a view can jump to the event itself. A note ("called
// from X", "input dtypes recorded: float") has no event.
struct EvidenceTarget
{
    std::string name;
    trace::EventId event;  // invalid for a note, or a name no event carries

    EvidenceTarget(std::string targetName, trace::EventId targetEvent = {})
        : name(std::move(targetName)), event(targetEvent)
    {
    }
    EvidenceTarget(std::string_view targetName, trace::EventId targetEvent = {})
        : name(targetName), event(targetEvent)
    {
    }
    EvidenceTarget(const char* targetName) : name(targetName) {}
    bool operator==(std::string_view other) const { return name == other; }
};

struct Evidence
{
    // The figures that triggered the rule, in the order a reader should see them:
    // (name, value, unit) e.g. ("dataloader_share", 0.33, Unit::Fraction).
    struct Figure
    {
        std::string name;
        double value;
        Unit unit;
    };
    std::vector<Figure> figures;
    std::vector<std::string> steps;       // step names where it shows most
    std::vector<TimeRange> ranges;        // time ranges (ns) where it shows
    std::vector<EvidenceTarget> ops;      // ops involved, most important first
    std::vector<EvidenceTarget> kernels;  // kernels involved
};

struct Finding
{
    std::string id;     // stable, part of the CLI contract (e.g. "dataloader-bound")
    std::string title;  // one line with the headline number
    Severity severity = Severity::Low;
    SeverityBasis basis = SeverityBasis::Own;
    std::string explanation;  // two or three sentences: what the numbers mean
    Evidence evidence;
    double estimatedGainNs = 0.0;  // time per step fixing it would save (>= 0; the gains
                                   // of one diagnosis add up to at most the step)
    std::string gainMethod;        // how the gain was estimated (or measured)
    bool measured = false;         // the gain was measured by the lab (a live run's arms or
                                   // split), not estimated from the trace: ranked before
                                   // the trace's findings, outside their time accounting
    bool perBatch = false;         // the gain is time per batch served (an inference run's
                                   // lab), not per training step
    bool aboutWindow = false;      // says what the window is (warm-up, capture, missing
                                   // activity): ranked before the per-step findings
    std::string fix;               // what to change
    std::string snippet;           // a short Python snippet for a PyTorch training loop
};

}  // namespace kinetoscope::analysis
