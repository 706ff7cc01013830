#pragma once
// A compiled window in one line, for the app's Overview: what share of the step ran as
// compiled code, the graph breaks, compilation in the window, and Inductor's C++ kernels
// where the trace does not name them.
#include "core/compiled/compiled_window.h"

#include <string>

namespace kinetoscope::compiled {

// "compiled regions 65.4 % of each step's host time (6 graph runs, guards 2.18 ms a step);
// 1 graph break: Tensor.item at train.py:55, 2.16 ms a step"; "" when nothing compiled.
std::string compiledLine(const CompiledWindow& window);

}  // namespace kinetoscope::compiled
