#pragma once
// A rank's digest: what a job reads of one rank (core/job/job.h's Rank), written as a small
// JSON file where the rank's trace was written, so that a job of hundreds of ranks opens
// from the digests alone and a rank's trace is read only when its own pages are opened.
//
// Where: `digest.kinetoscope.json` in a profiled job's rank folder (OUT/rank-K/, beside its
// session and trace), `TRACE.digest.json` beside any other trace (or session) file. Written
// whole or not at all (PATH.tmp, then renamed), by `kinetoscope summary --digest` or by the
// launcher at a profiled job's end (writeRankDigest).
//
// Format (docs/scaling.md): "format": "kinetoscope-rank-digest/MAJOR.MINOR". A reader reads
// its own major version and any minor one (fields it does not know are ignored) and refuses
// a newer major version in one line. Times are integer nanoseconds on the rank's own clock.
//
// Fresh: the digest names the file it was written from (the rank's session or trace) and
// the trace it read, each with the size and modification time they had; it is used only when
// both are still so and the digest is not older than either. Otherwise the trace is read.
#include "core/job/job.h"

#include <array>
#include <optional>
#include <string>

namespace kinetoscope::job {

inline constexpr int kDigestMajor = 1, kDigestMinor = 0;
inline constexpr const char* kDigestFormatName = "kinetoscope-rank-digest";
inline constexpr const char* kRankDigestName = "digest.kinetoscope.json";  // in OUT/rank-K/
inline constexpr const char* kDigestSuffix = ".digest.json";               // TRACE.digest.json
// A digest's collectives are a table, one row each: a job of hundreds of ranks with thousands
// of collectives each reads rows far faster than objects.
inline constexpr std::array<const char*, 8> kDigestCollectiveColumns = {
    "kind", "group", "group_size", "start_ns", "duration_ns", "host_ns", "bytes", "on_device"};

// Where the digest of a rank's file (its session or trace) lives.
std::string digestPathFor(const std::string& rankFile);
// Whether a path names a digest (either name).
bool isDigestPath(const std::string& path);

// The digest of a rank read from `rank.doc` (readRank): JSON text. `rankFile` is the file it
// was read from, its trace the document's; their sizes and times are those given (stat them
// before reading, so that a change while reading makes the digest stale).
struct FileStamp
{
    std::string path;
    int64_t size = -1;
    int64_t mtimeNs = 0;  // since the Unix epoch
};
std::optional<FileStamp> stampOf(const std::string& path);
std::string digestJson(const Rank& rank, const FileStamp& rankFile, const FileStamp& trace);

// Writes the digest of a rank's file (a trace, or a profiled rank's session) beside it:
// opens and analyses it with the default reading (ProfilerStep# steps, the default
// thresholds) on `threads` (0: every core), then writes digestPathFor(rankFile) atomically.
// The path written, or nullopt with `error` in one line. What a launcher calls at a job's
// end for each rank it ran.
std::optional<std::string> writeRankDigest(const std::string& rankFile, std::string& error,
                                           unsigned threads = 0);
// Whether `options` read a trace as a digest was read (the default step marker and
// thresholds): only then may a job take a rank from its digest.
bool readsAsDigests(const document::OpenOptions& options);

// A digest read back. `rank` is the rank as readRank gave it (no document); `rankFile` and
// `trace` what it was written from, their paths resolved beside the digest.
struct Digest
{
    Rank rank;
    FileStamp rankFile, trace;
};
// Parses a digest's text; `digestPath` resolves the files it names. nullopt with `error`
// in one line: not a digest, a newer major version, a malformed field.
std::optional<Digest> parseDigest(std::string_view text, const std::string& digestPath,
                                  std::string& error);
std::optional<Digest> readDigest(const std::string& digestPath, std::string& error);

// Whether `digest` still describes `rankFile` and its trace as they are now (written from
// that very file, sizes and times unchanged, the digest not older); else why not, in words
// ("the trace changed since the digest was written").
std::optional<std::string> whyStale(const Digest& digest, const std::string& digestPath,
                                    const std::string& rankFile);

}  // namespace kinetoscope::job
