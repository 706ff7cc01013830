#pragma once
// A finding's figures and gain in words: the one renderer used by the CLI (text and
// Markdown), the findings page and the report. Numbers follow core/format's convention.
#include "core/analysis/diagnosis/finding.h"

#include <string>

namespace kinetoscope::analysis {

// The figure's name without its unit suffix, '_' as spaces: "dataloader_wait_us" ->
// "dataloader wait".
std::string figureLabel(const Evidence::Figure& figure);
// Its value with its unit: "59.3 ms", "33.4 %", "1.50 GiB", "1,234", "2.31×", "11.5 GiB/s".
std::string figureValue(const Evidence::Figure& figure);
// "~12.3 ms per step" (estimated), "56.3 ms per step" (measured), or "none per step".
std::string gainText(const Finding& finding);
// What the gain is: "estimated gain" (from the trace) or "measured gain" (by the lab).
const char* gainKind(const Finding& finding);
// The gain with what it is: "estimated gain ~12.3 ms per step", "measured gain 56.3 ms
// per step". The one label of a finding's gain in the CLI, the findings page and the report.
std::string gainLabel(const Finding& finding);
// An op or kernel named in the evidence, cut to a readable length at a UTF-8 boundary.
std::string targetText(const EvidenceTarget& target);

}  // namespace kinetoscope::analysis
