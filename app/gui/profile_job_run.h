#pragma once
// A job profiled from the GUI (File > Profile a script… with processes, or a command that
// starts ranks): lab::runProfileJob on a thread of this object's, every rank of this
// machine's steps, progress and samples forwarded to its view in a LiveJobView on the GUI
// thread. The command runs in a process group of its own, its output in OUT/output.log.
// Deleting this object kills the job at once and waits for the thread.
#include "core/lab/profile_job.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <atomic>
#include <thread>

namespace kinetoscope::widgets {
class LiveJobView;
}

namespace kinetoscope::gui {

class ProfileJobRun : public QObject
{
    Q_OBJECT
public:
    ProfileJobRun(lab::ProfileConfig config, widgets::LiveJobView* view);  // parented to the view
    ~ProfileJobRun() override;
    void start();
    // Every rank stops at one step they agree on (OUT/cancel), then signals after grace periods.
    void cancel() { m_cancel = true; }

Q_SIGNALS:
    // On the GUI thread: the job's folder when it reads as a job (every rank saved its
    // profiler window), else empty and the ranks' sessions to open one by one (maybe none).
    void finished(bool ok, const QString& error, const QString& jobFolder,
                  const QStringList& rankSessions);

private:
    lab::ProfileConfig m_config;
    QPointer<widgets::LiveJobView> m_view;
    std::atomic<bool> m_cancel{false};
    std::atomic<bool> m_abandon{false};
    std::thread m_thread;
};

}  // namespace kinetoscope::gui
