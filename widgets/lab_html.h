#pragma once
// A lab session's measurements as HTML: the arms, the fp32 arm's phases, the memory
// triage, the sweeps and the seeds' reading. For the report page and the session tab of
// a lab recorded without a trace (the same figures `kinetoscope run` prints).
#include "core/session/session.h"

#include <QString>

namespace kinetoscope::widgets {

QString labHtml(const session::Session& session);

}  // namespace kinetoscope::widgets
