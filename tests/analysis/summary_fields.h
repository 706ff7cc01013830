#pragma once
// A TraceSummary written out field by field, one line each ("causal.gainNs[3] = 0x1.8p+20"),
// so that two summaries compare exactly and a difference names its field. Every number as
// it is held: integers in decimal, floating point in hexadecimal (%a), so equal lines mean
// equal bits. A field added to the summary's structures must be added here to be compared.
#include "core/analysis/summary.h"

#include <string>
#include <vector>

namespace kinetoscope::test {

std::vector<std::string> summaryFields(const analysis::TraceSummary& summary);

// The first line where two field lists differ, with its neighbours, or "" when they are the same.
std::string firstDifference(const std::vector<std::string>& expected,
                            const std::vector<std::string>& actual);

}  // namespace kinetoscope::test
