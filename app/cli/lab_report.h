#pragma once
// A lab session's measurements as text: the arms, the fp32 arm's phases, the memory
// triage, the sweeps and the seeds' reading. What `kinetoscope run` prints at the end, and
// what `summary` and `diagnose` print of a session (with a trace or without one).
#include "core/session/session.h"

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace kinetoscope::cli {

std::string labText(const session::Session& session);
// `summary --json` of a session without a trace: {"source", "trace": false, "session": ...}
// with the session file's own JSON.
nlohmann::json labSessionJson(const std::string& source, const session::Session& session);

}  // namespace kinetoscope::cli
