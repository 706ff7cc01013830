#pragma once
// Counts of what the loader read, kept so that nothing is dropped silently.
#include <cstdint>
#include <map>
#include <string>

namespace kinetoscope::trace {

struct IngestStats
{
    uint64_t entries = 0;         // elements of the event array, whatever they were
    uint64_t completeEvents = 0;  // `X`
    uint64_t instantEvents = 0;   // `i`/`I`, memory samples excluded
    uint64_t memorySamples = 0;   // `[memory]`
    uint64_t flowEvents = 0;      // `s`/`t`/`f`
    uint64_t metadataEvents = 0;  // `M`
    std::map<std::string, uint64_t> byRawCategory;  // `cat` as written; "" when absent
    std::map<std::string, uint64_t> skipped;        // reason -> count
    uint64_t repairedEvents = 0;  // unescaped control characters, quotes or bad escapes mended,
                                  // or a lost ',' before the event
    uint64_t mendedStrings = 0;  // distinct names/labels that were not valid UTF-8 (bytes replaced)
    uint64_t clampedTimes = 0;   // times moved into the model's range by baseTimeNanoseconds
    uint64_t valuesOutOfRange =
        0;  // activities whose args held a number beyond its field (left unset)
    uint64_t halfOpenFlows = 0;            // a start without an end, or an end without a start
    uint64_t unresolvedFlowEnds = 0;       // flow endpoint with no event at its time
    uint64_t partialOverlaps = 0;          // events that overlap a sibling without nesting
    uint64_t activitiesWithoutLaunch = 0;  // device activity whose correlation is unknown
    uint64_t blocksOnThreads = 0;          // blocks of the event array parsed on several threads
    uint64_t bytesRead = 0;                // decompressed bytes parsed
    uint64_t fileBytes = 0;                // size on disk
    // Why the reader stopped before the end of the data (a cut file, broken JSON, a read
    // error), in one line; empty when it read everything. The events before it are kept.
    std::string partlyRead;
    double loadSeconds = 0.0;
    double finishSeconds = 0.0;  // of it, building the model once every event was read

    uint64_t skippedTotal() const
    {
        uint64_t total = 0;
        for (const auto& [reason, count] : skipped)
            total += count;
        return total;
    }
};

}  // namespace kinetoscope::trace
