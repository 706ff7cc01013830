// The main window's profiled scripts (File > Profile a script…): the dialog, the run in a tab
// of its own with live views, and its session opened as a finished lab's is.
#include "app/gui/main_window.h"
#include "app/gui/profile_dialog.h"
#include "app/gui/profile_job_run.h"
#include "app/gui/profile_run.h"
#include "core/lab/profile_job.h"
#include "widgets/live_job_view.h"
#include "widgets/live_run_view.h"

#include <QFileInfo>
#include <QLabel>
#include <QTabWidget>

namespace kinetoscope::gui {

bool MainWindow::profileAvailable()
{
    return !lab::findProbe().empty();
}

void MainWindow::showProfileDialog()
{
    ProfileDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    // Checked again: a file may have come or gone since the dialog closed.
    if (const std::string invalid = lab::validateProfileConfig(dialog.config()); !invalid.empty())
        tell(tr("Profile: %1").arg(QString::fromStdString(invalid)));
    else if (dialog.config().nproc > 0 || lab::launchesRanks(dialog.config().command))
        startProfileJob(dialog.config());
    else
        startProfile(dialog.config(), dialog.labConfig());
}

namespace {

// The tab's name: the script (or the module); the page names the whole command.
QString scriptName(const lab::ProfileConfig& config)
{
    QStringList command;
    for (const std::string& word : config.command)
        command << QString::fromStdString(word);
    const qsizetype module = command.indexOf(QStringLiteral("-m"));
    return module > 0 && module + 1 < command.size()
               ? command.at(module + 1)
               : QFileInfo(command.value(1, command.value(0))).fileName();
}

}  // namespace

widgets::LiveJobView* MainWindow::startProfileJob(const lab::ProfileConfig& config)
{
    const QString what = scriptName(config);
    auto* view = new widgets::LiveJobView(tr("Starting %1…").arg(what), m_documents);
    showTab(view, tr("Job: %1").arg(what), QString::fromStdString(config.outDir));
    auto* run = new ProfileJobRun(config, view);  // owned by the view: closing the tab kills it
    connect(run, &ProfileJobRun::finished, this,
            [this, out = QString::fromStdString(config.outDir)](
                bool ok, const QString& error, const QString& folder, const QStringList& sessions) {
                if (!ok)
                    tell(tr("Job stopped: %1").arg(error));
                else
                    m_status->setText(tr("Job finished: %1").arg(out));
                // A failed job's ranks too: what they measured, the failed rank marked; ranks
                // without a profiler window each on its own.
                if (!folder.isEmpty())
                    openJob({folder});
                else
                    openFiles(sessions);
                Q_EMIT profileFinished(ok, error, out);
            });
    run->start();
    return view;
}

widgets::LiveRunView* MainWindow::startProfile(const lab::ProfileConfig& config,
                                               const std::optional<lab::ScriptLabConfig>& lab)
{
    const QString what = scriptName(config);
    auto* view = new widgets::LiveRunView(tr("Starting %1…").arg(what), m_documents);
    showTab(view, (lab ? tr("Lab: %1") : tr("Profile: %1")).arg(what),
            QString::fromStdString(config.outDir));
    auto* run = new ProfileRun(config, view, lab);  // owned by the view: closing the tab kills it
    connect(run, &ProfileRun::finished, this,
            [this](bool ok, const QString& error, const QString& path, bool, const QString& note) {
                if (!ok)
                    tell(tr("Profile stopped: %1").arg(error));
                else if (!note.isEmpty())
                    m_status->setText(tr("Profile finished: %1").arg(note));
                else
                    m_status->setText(tr("Profile finished: %1").arg(path));
                // A failed script's session too: what it measured before it stopped.
                if (!path.isEmpty())
                    openFinishedRun(path);
                Q_EMIT profileFinished(ok, error, path);
            });
    run->start();
    return view;
}

}  // namespace kinetoscope::gui
