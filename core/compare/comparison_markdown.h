#pragma once
// A comparison as Markdown: what `kinetoscope diff --markdown` prints and the app's
// Compare document exports (rendered to PDF, PNG or HTML from this same text).
#include "core/compare/comparison.h"

#include <string>

namespace kinetoscope::compare {

std::string comparisonMarkdown(const Comparison& comparison);
// Its "Lab runs" section alone ("" when the sides are not both lab sessions): the
// Compare document's overview shows it.
std::string labMarkdown(const Comparison& comparison);

// The rows of a table that are shown before the rest is summed up in one line.
inline constexpr size_t kRowsShown = 15;

}  // namespace kinetoscope::compare
