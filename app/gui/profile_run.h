#pragma once
// One profiled script from the GUI (File > Profile a script…): lab::runProfile (or, for a lab
// on the script, lab::runScriptLab: one run per arm and sweep point) on a thread of this
// object's, the script in a process group of its own with its output in OUT/output.log (a
// lab's runs: OUT/runs/NAME/output.log), what the probe reports forwarded to a LiveRunView on
// the GUI thread. A script that fails
// keeps what it measured (the session is saved however it ends) and the view says why in
// one line. Deleting this object kills the script at once and waits for the thread.
#include "core/lab/probe_process.h"
#include "core/lab/script_lab.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <atomic>
#include <optional>
#include <thread>

namespace kinetoscope::widgets {
class LiveRunView;
}

namespace kinetoscope::gui {

class ProfileRun : public QObject
{
    Q_OBJECT
public:
    // Parented to the view. With `labConfig`, its runs (its script field is `config`).
    ProfileRun(lab::ProfileConfig config, widgets::LiveRunView* view,
               std::optional<lab::ScriptLabConfig> labConfig = std::nullopt);
    ~ProfileRun() override;
    void start();
    // Asks the probe to stop the script after its step in flight (then signals, after grace
    // periods): what was measured is kept and opens.
    void cancel() { m_cancel = true; }
    const lab::ProfileConfig& config() const { return m_config; }
    int scriptPid() const { return m_scriptPid; }  // 0 before the script starts and after it ends

    // "warm-up step 2 of 5", "profiler window step 1 of 3", "measured step 12 of 30" (or
    // "measured step 12" when the script runs to its end): the probe's step counts every
    // step from 0, this counts each stage's own from 1. A lab's run names itself first
    // ("bf16: measured step 3 of 20").
    static QString stageLine(const lab::ProfileConfig& config, const lab::RunProgress& given);

Q_SIGNALS:
    // On the GUI thread. sessionPath is empty when nothing could be saved; note is what a
    // run should still hear (nothing measured and why, stopped after N steps), maybe empty.
    void finished(bool ok, const QString& error, const QString& sessionPath, bool hasTrace,
                  const QString& note);

private:
    lab::ProfileConfig m_config;
    std::optional<lab::ScriptLabConfig> m_lab;
    QPointer<widgets::LiveRunView> m_view;
    std::atomic<bool> m_cancel{false};
    std::atomic<bool> m_abandon{false};  // set when this goes: the script is killed at once
    std::atomic<int> m_scriptPid{0};
    std::thread m_thread;
};

}  // namespace kinetoscope::gui
