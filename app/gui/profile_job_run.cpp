#include "app/gui/profile_job_run.h"

#include "app/gui/profile_dialog.h"
#include "app/gui/profile_run.h"
#include "core/format/format.h"
#include "core/job/digest.h"
#include "widgets/live_job_view.h"
#include "widgets/live_run_view.h"

#include <QDir>

namespace kinetoscope::gui {

ProfileJobRun::ProfileJobRun(lab::ProfileConfig config, widgets::LiveJobView* view)
    : QObject(view), m_config(std::move(config)), m_view(view)
{
    m_config.fromTerminal = false;  // never the app's terminal: the job dies with the app
    connect(view, &widgets::LiveJobView::cancelRequested, this, &ProfileJobRun::cancel);
}

ProfileJobRun::~ProfileJobRun()
{
    m_abandon = true;
    if (m_thread.joinable())
        m_thread.join();
}

void ProfileJobRun::start()
{
    // Every callback runs on the launcher's thread and only posts to this object (on the GUI
    // thread); the rank's view is looked up when the post runs (a closed tab is gone).
    auto onRank = [this](int rank, const auto& show) {
        QMetaObject::invokeMethod(
            this,
            [this, rank, show] {
                if (m_view)
                    show(*m_view->rankView(rank));
            },
            Qt::QueuedConnection);
    };
    const QString outputLog = QDir(QString::fromStdString(m_config.outDir))
                                  .absoluteFilePath(QStringLiteral("output.log"));
    lab::JobCallbacks callbacks;
    callbacks.run.cancel = &m_cancel;
    callbacks.run.cancelledBy = [] { return std::string("the app's Cancel button"); };
    callbacks.run.abandon = &m_abandon;
    callbacks.rankStarted = [onRank, outputLog, command = m_config.command](
                                int rank, const session::Session& header, const std::string&) {
        const auto mode = header.config.find("mode");
        const bool inference = mode != header.config.end() && mode->second == "inference";
        QStringList words;
        for (const std::string& word : command)
            words << QString::fromStdString(word);
        onRank(rank, [inference, line = joinArguments(words), outputLog](widgets::LiveRunView& v) {
            v.setScriptRun(line, outputLog);
            v.setInference(inference);
        });
    };
    callbacks.rankStep = [onRank](int rank, const session::StepTiming& step) {
        onRank(rank, [step](widgets::LiveRunView& v) { v.addStep(step); });
    };
    callbacks.rankSample = [onRank](int rank, const session::LiveSample& sample) {
        onRank(rank, [sample](widgets::LiveRunView& v) { v.addSample(sample); });
    };
    callbacks.rankProgress = [onRank, config = m_config](int rank, const lab::RunProgress& p) {
        const double fraction = p.steps > 0 ? p.fraction : -1;
        onRank(rank, [stage = ProfileRun::stageLine(config, p), fraction](widgets::LiveRunView& v) {
            v.setProgress(stage, fraction);
        });
    };
    if (m_view) {
        QStringList words;
        for (const std::string& word :
             m_config.nproc > 0 ? lab::distributedCommand(m_config.command, m_config.nproc)
                                : m_config.command)
            words << QString::fromStdString(word);
        m_view->setStatus(tr("Job: %1").arg(joinArguments(words)));
    }
    m_thread = std::thread([this, callbacks] {
        const lab::JobRunResult result = lab::runProfileJob(m_config, callbacks);
        // Each rank's digest beside its session: the Job tab then opens from the digests.
        for (const lab::RankRun& rank : result.ranks)
            if (std::string ignored; !rank.run.session.tracePath.empty())
                job::writeRankDigest(rank.run.sessionPath, ignored);
        QMap<int, QStringList> readings;
        QStringList sessions;  // each rank's saved session
        for (const lab::RankRun& rank : result.ranks) {
            QStringList& lines = readings[rank.rank];
            lines << QString::fromStdString(
                format::counted(rank.run.session.steps.size(), "step", "steps") + " measured");
            if (!rank.run.error.empty())
                lines << QString::fromStdString(rank.run.error);
            if (!rank.run.sessionPath.empty())
                sessions << QString::fromStdString(rank.run.sessionPath);
        }
        // A job is read from its ranks' profiler windows: with a rank without one, each rank's
        // session opens on its own instead.
        const bool asJob = !sessions.isEmpty() && lab::ranksWithoutWindow(result).empty();
        QString status = QString::fromStdString(
            format::counted(result.ranks.size(), "rank", "ranks") + " under " + result.command);
        if (!result.note.empty())
            status += QStringLiteral("; ") + QString::fromStdString(result.note);
        const bool ok = result.error.empty() && !result.ranks.empty();
        const QString error = QString::fromStdString(result.error),
                      folder = asJob ? QString::fromStdString(m_config.outDir) : QString();
        QMetaObject::invokeMethod(
            this,
            [this, ok, error, folder, sessions, status, readings] {
                if (m_thread.joinable())
                    m_thread.join();
                if (m_view) {
                    m_view->setStatus(error.isEmpty() ? status
                                                      : status + QStringLiteral(": ") + error);
                    m_view->finish(error, readings);
                }
                Q_EMIT finished(ok, error, folder, folder.isEmpty() ? sessions : QStringList());
            },
            Qt::QueuedConnection);
    });
}

}  // namespace kinetoscope::gui
