#pragma once
// The timeline's layout, remembered per kind of run (training, inference, unknown): which
// group roles (devices, the lead process, other processes, other tracks) the user
// collapsed and whether Python-frame folds were expanded. The next trace of that kind
// opens the same way. Kept in QSettings under "timeline/<kind>/".
#include "core/analysis/window.h"

namespace kinetoscope::widgets {

class TimelineView;

void restoreTimelineLayout(TimelineView& view, analysis::RunKind kind);
void rememberTimelineLayout(const TimelineView& view, analysis::RunKind kind);

}  // namespace kinetoscope::widgets
