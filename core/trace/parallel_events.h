#pragma once
// Reads the event array in blocks on several threads. The bytes are cut into blocks at
// event boundaries guessed from the text ("}, {"); each block is parsed as one JSON array
// on a worker, into a chunk builder of its own (TraceBuilder::Part::Chunk), and the
// chunks are appended to the trace's builder in file order, so the model is the one a
// serial read makes.
//
// A guessed boundary is right exactly when the block before it parses: a cut inside a
// string or a nested value leaves that block invalid. So blocks are appended only while
// every block before them parsed; at the first that did not (a wrong cut, a malformed or
// mended event, the end of the array) the read stops and hands the bytes from there back
// to the serial reader, which reads them one event at a time as before.
#include "core/trace/event_parser.h"

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace kinetoscope::trace {

class TraceBuilder;

struct ParallelEventsInput
{
    // Bytes already read: the one before the first event's '{' (a '[', ',' or
    // whitespace), that '{', and whatever follows in the reader's window.
    std::string_view start;
    uint64_t startOffset = 0;  // offset of start[0] in the decompressed data
    // The decompressed data's size when known (a plain file), else 0: the trace's columns
    // are sized for the whole once its first blocks are in (TraceBuilder::expectTotal).
    uint64_t totalBytes = 0;
    // Further bytes in order: copies up to `capacity` bytes, returns how many; 0 at the end.
    std::function<size_t(char* into, size_t capacity)> read;
    // After each read, with the offset just past the bytes read; false cancels.
    std::function<bool(uint64_t bytesRead)> progress;
    unsigned threads = 2;  // the calling thread counts as one
    size_t blockBytes = size_t(4) << 20;
    size_t lookBackBytes = size_t(1) << 20;  // how far back a block's last boundary is looked for
    ParserBackendChoice parser = ParserBackendChoice::Fastest;
};

struct ParallelEventsOutcome
{
    bool appendedAny = false;  // the serial reader resumes after an event, not before one
    bool cancelled = false;
    // The bytes read but not appended, starting one byte before where the serial reader
    // resumes (the '}' of the last event appended, or the byte before the first '{').
    std::vector<char> rest;
    uint64_t restOffset = 0;      // offset of rest[0]
    uint64_t failedBlockEnd = 0;  // where the block that did not parse ends; 0 if none failed
};

// Appends to `builder` every event of the blocks that parse, in order. `ownParser` is the
// calling thread's parser. Throws std::bad_alloc when memory runs out on any thread.
ParallelEventsOutcome readEventsInParallel(const ParallelEventsInput& input, EventParser& ownParser,
                                           TraceBuilder& builder);

}  // namespace kinetoscope::trace
