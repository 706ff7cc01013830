#pragma once
// The seeds' statistics of a list of per-step (or per-batch) times: mean, population std,
// and nearest-rank median, p95 and p99, as np.percentile would report them on the times
// that were actually seen (no interpolation).
#include "core/session/session.h"

#include <string>
#include <vector>

namespace kinetoscope::session {

// All zero for an empty list.
PhaseTiming timingStats(std::string phase, std::vector<double> valuesMs);

}  // namespace kinetoscope::session
