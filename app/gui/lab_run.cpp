#include "app/gui/lab_run.h"

#include "app/gui/live_view_forwarding.h"
#include "core/lab/engine_process.h"
#include "core/lab/run_progress.h"
#include "core/session/lab_reading.h"
#include "widgets/live_run_view.h"

#include <memory>

namespace kinetoscope::gui {

LabRun::LabRun(lab::RunConfig config, widgets::LiveRunView* view)
    : QObject(view), m_config(std::move(config)), m_view(view)
{
    connect(view, &widgets::LiveRunView::cancelRequested, this, &LabRun::cancel);
}

LabRun::~LabRun()
{
    m_abandon = true;  // the tab or the window is closing: the engine is killed, not waited for
    if (m_thread.joinable())
        m_thread.join();
}

void LabRun::start()
{
    // Every callback runs on an engine thread: it only posts to this object, which lives
    // on the GUI thread (posts still queued when it is deleted are dropped).
    auto post = [this](auto function) {
        QMetaObject::invokeMethod(this, std::move(function), Qt::QueuedConnection);
    };
    lab::RunCallbacks callbacks;
    callbacks.cancel = &m_cancel;
    callbacks.cancelledBy = [] { return std::string("the app's Cancel button"); };
    callbacks.abandon = &m_abandon;
    callbacks.engineStarted = [this](int pid) { m_enginePid = pid; };
    // The view shows the stage with the time it has left, estimated here from its pace.
    auto estimate = std::make_shared<lab::StageEstimate>();
    callbacks.progress = [this, post, estimate](const lab::RunProgress& progress) {
        estimate->update(progress);
        post(
            [this, stage = QString::fromStdString(estimate->line()), fraction = progress.fraction] {
                if (m_view)
                    m_view->setProgress(stage, fraction);
            });
    };
    forwardToLiveView(callbacks, this, &m_view);
    if (m_view)
        m_view->setInference(m_config.mode == "inference");
    m_thread = std::thread([this, callbacks, post] {
        const lab::RunResult result = lab::runEngine(m_config, callbacks);
        QStringList reading;
        for (const std::string& line : session::readLab(result.session).lines)
            reading << QString::fromStdString(line);
        const bool ok = result.ok, hasTrace = !result.session.tracePath.empty();
        const QString error = QString::fromStdString(result.error),
                      path = QString::fromStdString(result.sessionPath);
        post([this, ok, hasTrace, error, path, reading] {
            if (m_thread.joinable())
                m_thread.join();
            if (m_view)
                m_view->finish(error, reading);
            Q_EMIT finished(ok, error, path, hasTrace);
        });
    });
}

}  // namespace kinetoscope::gui
