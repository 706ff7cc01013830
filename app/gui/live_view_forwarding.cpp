#include "app/gui/live_view_forwarding.h"

#include "widgets/live_run_view.h"

namespace kinetoscope::gui {

namespace {

// Posts `show(view, value)` to the GUI thread for each value reported.
template <typename Value, typename Show>
std::function<void(const Value&)> poster(QObject* context,
                                         const QPointer<widgets::LiveRunView>* view, Show show)
{
    return [context, view, show](const Value& value) {
        QMetaObject::invokeMethod(
            context,
            [view, show, value] {
                if (widgets::LiveRunView* shown = view->data())
                    show(*shown, value);
            },
            Qt::QueuedConnection);
    };
}

}  // namespace

void forwardToLiveView(lab::RunCallbacks& callbacks, QObject* context,
                       const QPointer<widgets::LiveRunView>* view)
{
    using widgets::LiveRunView;
    callbacks.step = poster<session::StepTiming>(
        context, view, [](LiveRunView& v, const session::StepTiming& s) { v.addStep(s); });
    callbacks.sample = poster<session::LiveSample>(
        context, view, [](LiveRunView& v, const session::LiveSample& s) { v.addSample(s); });
    callbacks.arm = poster<session::LabArm>(
        context, view, [](LiveRunView& v, const session::LabArm& a) { v.setArm(a); });
    callbacks.sweepPoint = poster<session::SweepPoint>(
        context, view, [](LiveRunView& v, const session::SweepPoint& p) { v.addSweepPoint(p); });
    callbacks.memory = poster<session::MemoryTriage>(
        context, view, [](LiveRunView& v, const session::MemoryTriage& m) { v.setMemory(m); });
}

}  // namespace kinetoscope::gui
