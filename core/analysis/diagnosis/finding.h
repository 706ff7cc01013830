#pragma once
// A diagnosis finding: what is wrong, the numbers that show it, what fixing it would
// save, and the fix. Findings are immutable values produced by the rules (rules.h).
#include "core/analysis/time_ranges.h"

#include <string>
#include <utility>
#include <vector>

namespace kinetoscope::analysis {

enum class Severity : uint8_t { Low, Medium, High };
const char* severityName(Severity severity);  // "low", "medium", "high"
bool parseSeverity(std::string_view text, Severity& severity);

struct Evidence
{
    // The figures that triggered the rule, in the order a reader should see them:
    // (name, value, unit) e.g. ("dataloader_share", 0.33, "fraction").
    struct Figure
    {
        std::string name;
        double value;
        std::string unit;  // "us", "fraction", "bytes", "count", "percent", "ratio"
    };
    std::vector<Figure> figures;
    std::vector<std::string> steps;   // step names where it shows most
    std::vector<TimeRange> ranges;    // time ranges (ns) where it shows
    std::vector<std::string> ops;     // ops involved, most important first
    std::vector<std::string> kernels; // kernels involved
};

struct Finding
{
    std::string id;       // stable, part of the CLI contract (e.g. "dataloader-bound")
    std::string title;    // one line with the headline number
    Severity severity = Severity::Low;
    std::string explanation;  // two or three sentences: what the numbers mean
    Evidence evidence;
    double estimatedGainNs = 0.0;  // time per step fixing it would save (>= 0; the gains
                                   // of one diagnosis add up to at most the step)
    std::string gainMethod;        // how the gain was estimated
    bool aboutWindow = false;      // says what the window is (warm-up, capture, missing
                                   // activity): ranked before the per-step findings
    std::string fix;               // what to change
    std::string snippet;           // a short Python snippet for a PyTorch training loop
};

}  // namespace kinetoscope::analysis
