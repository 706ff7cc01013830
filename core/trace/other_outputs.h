#pragma once
// The other files torch.profiler writes beside a trace, told from their first bytes: a user
// who opens one (or a folder holding one) is told what it is and what to open instead.
#include <filesystem>
#include <string>
#include <string_view>

namespace kinetoscope::trace {

// What the file is, from its first bytes (a few KiB, decompressed): "an execution trace
// (torch.profiler.ExecutionTraceObserver: the ops' graph, without their times)"; "" when
// the bytes do not say (a trace, or a file of no kind known here).
std::string otherTorchOutput(std::string_view head);

// What to open instead, after otherTorchOutput's words.
inline constexpr std::string_view kOpenTheTraceInstead =
    "open the trace torch.profiler wrote for the same run (export_chrome_trace, or "
    "tensorboard_trace_handler's *.pt.trace.json)";

// The first `bytes` of a file's content (a gzip file decompressed); "" when it cannot be read.
std::string fileHead(const std::filesystem::path& path, size_t bytes = 4096);

}  // namespace kinetoscope::trace
