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
// "~12.3 ms per step", or "none per step".
std::string gainText(const Finding& finding);
// An op or kernel named in the evidence, cut to a readable length at a UTF-8 boundary.
std::string targetText(const EvidenceTarget& target);

}  // namespace kinetoscope::analysis
