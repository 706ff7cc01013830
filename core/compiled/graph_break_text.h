#pragma once
// How a graph break is named, in one place for the Overview's line, the graph-break finding
// and the CLI's summary: what ran eagerly between the graphs, and where the graph broke.
#include "core/compiled/compiled_window.h"

#include <string>

namespace kinetoscope::compiled {

// Where the graph broke: "forward at train.py:28" where the frame Dynamo resumed names the
// line, else "forward in train.py" from the user's frame around the eager ops (a resume
// function's frame reads as the function it resumes), else the frame as recorded; "" without
// stacks.
std::string breakLocation(const GraphBreak& b);

// What ran eagerly, in full: "Tensor.item() (aten::item)", else its first eager op
// ("aten::nonzero"), else "Python code".
std::string breakCall(const GraphBreak& b);

// The same, short, with where: "Tensor.item in forward at train.py:28".
std::string breakPlace(const GraphBreak& b);

}  // namespace kinetoscope::compiled
