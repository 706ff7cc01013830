#pragma once
// A folder opened as if it were a trace (a tensorboard_trace_handler folder, a TensorBoard
// log folder, a folder where torch.profiler's other outputs lie beside the trace): what it
// holds, and the one file it stands for when it holds one trace.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::document {

struct TraceFolder
{
    std::vector<std::string> traces;      // *.json and *.json.gz files, by name: not sessions,
                                          // digests or torch.profiler's other outputs
    std::vector<std::string> sessions;    // *.kinetoscope.json sessions (not digests)
    std::vector<std::string> others;      // "memtl.json (a memory timeline's data ...)"
    std::vector<std::string> subfolders;  // folders just below holding a trace, by name
                                          // (looked for where this one holds none)
};

// What `folder` holds; its files' first bytes are read to tell the other outputs apart.
TraceFolder readTraceFolder(const std::filesystem::path& folder);

// The file the folder stands for (its one session, else its one trace), or nullopt and
// `error` says what the folder holds instead and what to open (without the folder's path).
std::optional<std::string> folderFile(const std::filesystem::path& folder, std::string& error);

// "skipped memtl.json: a memory timeline's data (...)", one for each other output.
std::vector<std::string> skippedNotes(const TraceFolder& folder);

}  // namespace kinetoscope::document
