#pragma once
// One lab run from the GUI: the engine on its own thread, its callbacks forwarded to a
// LiveRunView on the GUI thread. Deleting it cancels the run and waits for the step in
// flight. Only built with the engine.
#include "core/engine/run_config.h"

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
    LabRun(engine::RunConfig config, widgets::LiveRunView* view);  // parented to the view
    ~LabRun() override;
    void start();
    void cancel() { m_cancel = true; }
    const engine::RunConfig& config() const { return m_config; }

Q_SIGNALS:
    // On the GUI thread. sessionPath is empty when nothing could be saved.
    void finished(bool ok, const QString& error, const QString& sessionPath, bool hasTrace);

private:
    engine::RunConfig m_config;
    QPointer<widgets::LiveRunView> m_view;
    std::atomic<bool> m_cancel{false};
    std::thread m_thread;
};

}  // namespace kinetoscope::gui
