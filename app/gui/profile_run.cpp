#include "app/gui/profile_run.h"

#include "app/gui/live_view_forwarding.h"
#include "app/gui/profile_dialog.h"
#include "core/format/format.h"
#include "core/session/lab_reading.h"
#include "widgets/live_run_view.h"

#include <QDir>

namespace kinetoscope::gui {

ProfileRun::ProfileRun(lab::ProfileConfig config, widgets::LiveRunView* view,
                       std::optional<lab::ScriptLabConfig> labConfig)
    : QObject(view), m_config(std::move(config)), m_lab(std::move(labConfig)), m_view(view)
{
    m_config.fromTerminal = false;  // never the app's terminal: the script dies with the app
    if (m_lab)
        m_lab->script = m_config;
    connect(view, &widgets::LiveRunView::cancelRequested, this, &ProfileRun::cancel);
}

ProfileRun::~ProfileRun()
{
    m_abandon = true;  // the tab or the window is closing: the script is killed, not waited for
    if (m_thread.joinable())
        m_thread.join();
}

QString ProfileRun::stageLine(const lab::ProfileConfig& c, const lab::RunProgress& given)
{
    lab::RunProgress p = given;
    QString run;  // a lab's run: "bf16: measured"
    if (const size_t colon = p.stage.find(": "); colon != std::string::npos) {
        run = QString::fromStdString(p.stage.substr(0, colon + 2));
        p.stage = p.stage.substr(colon + 2);
    }
    const int64_t measuredFrom = c.skip + c.active;
    int64_t step = p.step + 1, of = 0;
    if (p.stage == "warm-up") {
        of = c.skip;
    } else if (p.stage == "profiler window") {
        step -= c.skip;
        of = c.active;
    } else if (p.stage == "measured") {
        step -= measuredFrom;
        of = c.steps;
    }  // else a stage this app does not know: the probe's own step number, from 1
    QString line = run + QString::fromStdString(p.stage) + QStringLiteral(" step %1").arg(step);
    if (of > 0)
        line += QStringLiteral(" of %1").arg(of);
    return line;
}

void ProfileRun::start()
{
    // Every callback runs on the launcher's thread: it only posts to this object, which lives
    // on the GUI thread (posts still queued when it is deleted are dropped).
    auto post = [this](auto function) {
        QMetaObject::invokeMethod(this, std::move(function), Qt::QueuedConnection);
    };
    lab::RunCallbacks callbacks;
    callbacks.cancel = &m_cancel;
    callbacks.cancelledBy = [] { return std::string("the app's Cancel button"); };
    callbacks.abandon = &m_abandon;
    callbacks.engineStarted = [this](int pid) { m_scriptPid = pid; };
    callbacks.progress = [this, post](const lab::RunProgress& progress) {
        // Unbounded (measured steps 0: to the script's end): no fraction to show, only busy.
        const double fraction = progress.steps > 0 ? progress.fraction : -1;
        post([this, stage = stageLine(m_config, progress), fraction] {
            if (m_view)
                m_view->setProgress(stage, fraction);
        });
    };
    forwardToLiveView(callbacks, this, &m_view);
    // A run first taken for inference that turns out to train (a validation pass before the
    // first optimizer step): the launcher drops the steps it had; the view drops them too.
    callbacks.started = [this, post, mode = std::string()](const session::Session& header,
                                                           const std::string&) mutable {
        const auto now = header.config.find("mode");
        if (now == header.config.end())
            return;
        if (mode == "inference" && now->second == "train")
            post([this] {
                if (m_view) {
                    m_view->clearSteps();
                    m_view->setInference(false);
                }
            });
        mode = now->second;
    };
    if (m_view) {
        QStringList command;
        for (const std::string& word : m_config.command)
            command << QString::fromStdString(word);
        // A lab's runs each write their own log, in OUT/runs/NAME/.
        m_view->setScriptRun(
            joinArguments(command),
            QDir(QString::fromStdString(m_config.outDir))
                .absoluteFilePath(m_lab ? QStringLiteral("runs") : QStringLiteral("output.log")));
    }
    m_thread = std::thread([this, callbacks, post] {
        lab::RunResult run;
        std::string note;
        if (m_lab) {
            lab::ScriptLabResult result = lab::runScriptLab(*m_lab, callbacks);
            run = std::move(result.run);
            for (const std::string& line : result.notes)
                note += (note.empty() ? "" : "; ") + line;
        } else {
            lab::ProfileResult result = lab::runProfile(m_config, callbacks);
            run = std::move(result.run);
            note = result.note;
        }
        const session::Session& s = run.session;
        QStringList reading;
        reading << QString::fromStdString(format::counted(s.steps.size(), "step", "steps") +
                                          " measured");
        if (!note.empty())
            reading << QString::fromStdString(note);
        for (const std::string& line : session::readLab(s).lines)
            reading << QString::fromStdString(line);
        const bool ok = run.ok, hasTrace = !s.tracePath.empty();
        const QString error = QString::fromStdString(run.error),
                      path = QString::fromStdString(run.sessionPath),
                      noteText = QString::fromStdString(note);
        post([this, ok, hasTrace, error, path, noteText, reading] {
            if (m_thread.joinable())
                m_thread.join();
            if (m_view)
                m_view->finish(error, reading);
            Q_EMIT finished(ok, error, path, hasTrace, noteText);
        });
    });
}

}  // namespace kinetoscope::gui
