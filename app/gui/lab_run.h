#pragma once
// One lab run from the GUI: kinetoscope-engine as a child process, read on a thread of
// this object's, its messages forwarded to a LiveRunView on the GUI thread. If the
// engine dies the view says so in one line and the app goes on. Deleting it cancels the
// run (a message, then a signal after a grace period) and waits for the engine to stop.
#include "core/lab/run_config.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <atomic>
#include <thread>

namespace kinetoscope::widgets {
class LiveRunView;
}

namespace kinetoscope::gui {

class LabRun : public QObject
{
    Q_OBJECT
public:
    LabRun(lab::RunConfig config, widgets::LiveRunView* view);  // parented to the view
    ~LabRun() override;
    void start();
    void cancel() { m_cancel = true; }
    const lab::RunConfig& config() const { return m_config; }
    int enginePid() const { return m_enginePid; }  // 0 before the engine starts and after it ends

Q_SIGNALS:
    // On the GUI thread. sessionPath is empty when nothing could be saved.
    void finished(bool ok, const QString& error, const QString& sessionPath, bool hasTrace);

private:
    lab::RunConfig m_config;
    QPointer<widgets::LiveRunView> m_view;
    std::atomic<bool> m_cancel{false};
    std::atomic<bool> m_abandon{false};  // set when this goes: no grace period to wait out
    std::atomic<int> m_enginePid{0};
    std::thread m_thread;
};

}  // namespace kinetoscope::gui
