#pragma once
// What the fuzzers run on each input, and what the regression tests run on every input
// the fuzzers ever found: the ingest, then everything that reads a loaded trace (the
// analysis, the diagnosis, every text/JSON/Markdown writer, args read back from the
// source). A defect shows as a sanitizer report, an exception or a broken invariant
// (the writers' JSON must parse back), never as a wrong return value.
#include "core/trace/trace_loader.h"

#include <cstdint>
#include <string_view>

namespace kinetoscope::fuzz {

// Reader sizes and parser backend for one input, derived from its bytes (so a crash
// reproduces from the input alone): windows of 64 B to 16 KiB, look-backs and batch
// splits as small, and the generic or the AVX2 parser.
trace::LoadOptions optionsFor(std::string_view bytes);

// Loads `bytes` as a trace with `options` and runs everything downstream on whatever
// was loaded. Returns the load's status.
trace::LoadStatus exerciseTrace(std::string_view bytes, const trace::LoadOptions& options);

// Reads `bytes` as a lab session and, when it reads, runs its measurements through the
// lab reading and the lab-aware diagnosis of a small built-in trace, and writes it back.
// Returns whether it read as a session.
bool exerciseSession(std::string_view bytes);

// Reads `bytes` as a CUDA memory snapshot and, when it reads, summarises it and writes
// its JSON, text and Markdown. A rejected input must say why in one line. Returns
// whether it read as a snapshot.
bool exerciseSnapshot(std::string_view bytes);

}  // namespace kinetoscope::fuzz
