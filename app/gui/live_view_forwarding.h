#pragma once
// What a lab or a profiled script reports, forwarded to its LiveRunView: the one way both
// runners (LabRun, ProfileRun) feed the live views. The callbacks run on the run's thread;
// each only posts to `context` (an object on the GUI thread: posts still queued when it is
// deleted are dropped), and the view is checked when the post runs (a closed tab is gone).
#include "core/lab/run_result.h"

#include <QObject>
#include <QPointer>

namespace kinetoscope::widgets {
class LiveRunView;
}

namespace kinetoscope::gui {

// Sets callbacks' step, sample, arm, sweepPoint and memory. `view` is a member of `context`
// (the runner's own pointer to its view): it lives as long as the posts that read it.
void forwardToLiveView(lab::RunCallbacks& callbacks, QObject* context,
                       const QPointer<widgets::LiveRunView>* view);

}  // namespace kinetoscope::gui
