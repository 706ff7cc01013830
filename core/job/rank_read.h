#pragma once
// Inside core/job: how a rank's numbered steps are added, whether they come from its
// document (readRank) or from its digest, so that both keep the same steps the same way.
#include "core/job/job.h"

namespace kinetoscope::job::detail {

// Step `number` of the rank: into its steps by number (a later step of the same number
// replaces an earlier one) and its host ranges in trace order.
void addStep(Rank& rank, int64_t number, const RankStep& step, int64_t hostBeginNs,
             int64_t hostEndNs);

}  // namespace kinetoscope::job::detail
