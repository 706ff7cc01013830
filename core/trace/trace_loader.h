#pragma once
// Loading a trace file into a TraceModel: streamed (plain or gzip), one event parsed at
// a time, never a DOM of the whole file. Bad input is reported in one line and whatever
// could be read before the problem is kept.
#include "core/trace/event_parser.h"
#include "core/trace/trace_model.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace kinetoscope::trace {

enum class LoadStatus
{
    Ok,
    Truncated,  // the data ends inside the event array: the events before the cut are kept
    Malformed,  // invalid JSON: events before it are kept, or malformed events were skipped
    NotATrace,  // valid JSON (or not JSON at all) but no trace events
    Empty,      // the file has no content
    NotFound,   // missing file, a directory, or unreadable
    ReadError,  // an I/O or decompression error
    Cancelled,
    OutOfMemory,  // memory ran out while reading: nothing is kept (what was built is freed)
};
std::string_view loadStatusName(LoadStatus status);

// The streaming reader's sizes. The defaults suit traces of any size; tests and the
// fuzzer shrink them so that inputs of a few kilobytes cross window refills, batch
// look-backs and the blocks read in parallel.
struct ReaderLimits
{
    size_t windowBytes = size_t(8) << 20;         // read granularity (grows for one larger value)
    size_t batchLookBackBytes = size_t(1) << 20;  // how far back a batch's last event is searched
    size_t parallelBlockBytes = size_t(4) << 20;  // the unit of work when several threads read
    // An event that has not ended after this many bytes is not read as one: its quotes are
    // taken to be broken, and the reader resumes at the next event (a profiler's events are
    // a few kilobytes at most).
    size_t maxEventBytes = size_t(16) << 20;
};

struct LoadOptions
{
    // Called after each chunk with the decompressed bytes read so far; return false to
    // cancel. Runs on the loading thread.
    std::function<bool(uint64_t bytesRead)> progress;
    ReaderLimits limits;
    ParserBackendChoice parser = ParserBackendChoice::Fastest;
    // Threads that parse and build (core/parallel/thread_count.h): 0 = every core, 1 = one
    // thread only. The model is the same whatever the number.
    unsigned threads = 0;
};

struct LoadResult
{
    LoadStatus status = LoadStatus::Ok;
    std::string message;       // one line; empty when status is Ok
    uint64_t errorOffset = 0;  // byte offset (in decompressed data) the message refers to
    // What was read: complete for Ok, partial for Truncated/Malformed, null when nothing
    // usable was found.
    std::shared_ptr<const TraceModel> model;

    bool ok() const { return status == LoadStatus::Ok; }
};

LoadResult loadTraceFile(const std::filesystem::path& path, const LoadOptions& options = {});
// The same, over JSON text in memory (tests, and traces received from the engine).
LoadResult loadTraceText(std::string text, const LoadOptions& options = {});

}  // namespace kinetoscope::trace
