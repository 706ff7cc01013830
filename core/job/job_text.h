#pragma once
// The sentences a job is read with, written once for the CLI's text and Markdown, the
// report and the Job tab: who holds the job back, what to say when no job rule fires,
// and how to read each rank's own first finding beside the job's.
#include "core/analysis/diagnosis/finding.h"
#include "core/job/job.h"

#include <string>

namespace kinetoscope::job {

inline constexpr const char* kNoJobFinding =
    "No job finding: the ranks keep pace and communication does not cross a rule's threshold.";

// "Straggler: rank 2, its own work ...", "No single straggler: ...", "One rank: ...".
std::string stragglerLine(const Job& job);

// A rank's first finding about its steps (window findings, about the trace itself, skipped);
// null when it has none.
const analysis::Finding* firstOwnFinding(const Rank& rank);

// Shown beside each rank's own first finding when the job has a straggler: a rank's own
// diagnosis cannot tell waiting for it from moving data. Empty without a straggler.
std::string rankFindingsNote(const Job& job);

}  // namespace kinetoscope::job
