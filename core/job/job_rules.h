#pragma once
// The diagnosis of a job as a whole: what holds the ranks back together, next to each
// rank's own diagnosis (its document's).
//
// The gains come from the job's causal model: a synchronous step ends when the slowest
// rank reaches the collectives and the transfer is done, so every rank's step is the
// slowest own work (compute, data, host) plus the transfer no compute hides. Taking work
// off the straggler shortens the job's step until the next slowest rank sets it; evening
// out the work shortens it to the mean; hiding the transfer removes what even the last
// rank to arrive waits for.
//
// Rule ids (the CLI contract):
//   straggler-rank          one rank's own work stands out; the others wait for it
//   load-imbalance          several ranks' own work differs (no single straggler)
//   exposed-communication   collectives no compute hides, even on the last rank to arrive
//   slow-collective         bus bandwidth far below the link's, on messages big enough
#include "core/analysis/diagnosis/finding.h"
#include "core/job/job.h"

#include <vector>

namespace kinetoscope::job {

struct JobRuleOptions
{
    // The link's peak bus bandwidth in bytes per second; 0: what the GPUs' names tell (one
    // node of SXM parts: NVLink), else none and slow-collective stays silent.
    double linkBytesPerS = 0;
};

// The link's peak per direction for a job whose every rank names `gpu`, when the job fits
// one node (`ranks` <= 8) and the part is one whose GPUs talk over NVLink: 0 otherwise.
double nvlinkBytesPerS(std::string_view gpu, int ranks);

// Findings, the largest gain first.
std::vector<analysis::Finding> diagnoseJob(const Job& job, const JobRuleOptions& options = {});

}  // namespace kinetoscope::job
