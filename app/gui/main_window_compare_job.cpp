// The main window's comparisons and jobs: both sides (or every rank) opened on a worker, a
// side already open as a tab not read again, and the Compare or Job tab added when done.
#include "app/gui/compare_dialog.h"
#include "app/gui/main_window.h"
#include "core/job/job_rules.h"
#include "widgets/compare_view.h"
#include "widgets/document_view.h"
#include "widgets/job_view.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QStackedWidget>
#include <QTabWidget>
#include <QtConcurrent/QtConcurrentRun>

namespace kinetoscope::gui {

std::shared_ptr<const document::Document> MainWindow::openDocument(const QString& path) const
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    for (int i = 0; i < m_documents->count(); ++i)
        if (const auto* doc = document(i);
            doc &&
            QFileInfo(QString::fromStdString(doc->trace().path)).absoluteFilePath() == absolute)
            return doc->sharedTrace();
    return nullptr;
}

bool MainWindow::isComparing() const
{
    return m_compareWatcher.isRunning();
}

void MainWindow::showCompareDialog()
{
    QStringList open;
    for (int i = 0; i < m_documents->count(); ++i)
        if (const auto* doc = document(i); doc && i != m_documents->currentIndex())
            open << QString::fromStdString(doc->trace().path);
    if (const auto* current = qobject_cast<widgets::DocumentView*>(m_documents->currentWidget()))
        open << QString::fromStdString(current->trace().path);
    CompareDialog dialog(open, m_recentFiles, this);
    if (dialog.exec() == QDialog::Accepted)
        compareFiles(dialog.beforePath(), dialog.afterPath());
}

void MainWindow::compareFiles(const QString& beforePath, const QString& afterPath)
{
    if (isComparing()) {
        m_status->setText(tr("A comparison is already being made"));
        return;
    }
    m_status->setText(tr("Comparing %1 and %2…")
                          .arg(QFileInfo(beforePath).fileName(), QFileInfo(afterPath).fileName()));
    m_progress->setRange(0, 0);  // busy: the two sides load at once
    m_progress->show();
    auto before = openDocument(beforePath), after = openDocument(afterPath);
    const std::string a = beforePath.toStdString(), b = afterPath.toStdString();
    document::OpenOptions options = openOptions();
    options.timelineIndex = true;  // the Timelines page shows both
    m_compareWatcher.setFuture(QtConcurrent::run([a, b, before, after, options] {
        CompareResult result;
        // A side open as a tab is not read again; the threads are shared by the sides read.
        const compare::CompareInput input =
            compare::openBoth(a, b, options, result.error, {before, after});
        if (!input.before)
            return result;
        result.before = input.before;
        result.after = input.after;
        // The Compare tab lays two traces side by side; sessions without one compare in the CLI.
        for (const auto* doc : {&result.before, &result.after})
            if (!(*doc)->hasTrace()) {
                result.error =
                    (*doc)->path +
                    ": a lab session recorded without a trace: the app compares traces "
                    "(kinetoscope diff compares two such sessions on their measured steps)";
                return result;
            }
        result.comparison = compare::compareDocuments(*result.before, *result.after);
        return result;
    }));
}

void MainWindow::finishCompare()
{
    m_progress->hide();
    m_progress->setRange(0, 1000);
    CompareResult result = m_compareWatcher.result();
    if (!result.comparison) {
        reportProblem(tr("Compare: %1").arg(QString::fromStdString(result.error)));
        return;
    }
    auto* view = new widgets::CompareView(result.before, result.after,
                                          std::move(*result.comparison), m_documents);
    const int index = m_documents->addTab(view, view->title());
    m_documents->setTabToolTip(index, QStringLiteral("%1\n→ %2")
                                          .arg(QString::fromStdString(result.before->path),
                                               QString::fromStdString(result.after->path)));
    m_documents->setCurrentIndex(index);
    m_stack->setCurrentWidget(m_documents);
    m_status->setText(QString::fromStdString(view->comparison().verdictLine));
    Q_EMIT comparisonOpened(view);
}

struct MainWindow::JobResult
{
    std::optional<job::Job> job;
    std::vector<analysis::Finding> findings;
    std::string error;
};

void MainWindow::showJobDialog()
{
    const QString folder =
        QFileDialog::getExistingDirectory(this, tr("Open a job: the folder of its ranks' traces"));
    if (!folder.isEmpty())
        openJob({folder});
}

void MainWindow::openJob(const QStringList& paths, bool readTraces)
{
    if (m_jobWatcher.isRunning()) {
        m_status->setText(tr("A job is already being opened"));
        return;
    }
    m_status->setText(tr("Opening the job in %1…").arg(paths.value(0)));
    m_progress->setRange(0, 0);  // busy: the ranks load at once
    m_progress->show();
    std::vector<std::string> files;
    for (const QString& p : paths)
        files.push_back(p.toStdString());
    document::OpenOptions options = openOptions();
    options.timelineIndex = true;  // the Timelines page stacks every rank
    job::JobOptions reading;       // the documents kept: the Timelines page draws them
    reading.digests = !readTraces;
    m_jobPaths = paths;
    m_jobWatcher.setFuture(QtConcurrent::run([files, options, reading] {
        auto result = std::make_shared<JobResult>();
        result->job = job::openJobPaths(files, options, result->error, reading);
        if (result->job)
            result->findings = job::diagnoseJob(*result->job);
        return result;
    }));
}

void MainWindow::finishJob()
{
    m_progress->hide();
    m_progress->setRange(0, 1000);
    const std::shared_ptr<JobResult> result = m_jobWatcher.result();
    if (!result->job) {
        reportProblem(tr("Job: %1").arg(QString::fromStdString(result->error)));
        return;
    }
    for (const std::string& note : result->job->notes)
        tell(tr("Job: %1").arg(QString::fromStdString(note)));
    if (const std::optional<std::string> notOneJob = job::whyNotOneJob(*result->job)) {
        // Separate runs: a tab each, as if opened one by one, and the reason in sight.
        tell(tr("Job: these %1 traces are %2; each opens on its own")
                 .arg(result->job->ranks.size())
                 .arg(QString::fromStdString(*notOneJob)));
        for (const job::Rank& rank : result->job->ranks) {
            if (!rank.doc) {  // read from its digest: its trace is read now, as a file is
                openFiles({QString::fromStdString(rank.path)});
                continue;
            }
            addDocumentTab(rank.doc);
            Q_EMIT documentOpened(document(m_documents->currentIndex()));
        }
        return;
    }
    auto* view =
        new widgets::JobView(std::move(*result->job), std::move(result->findings), m_documents);
    connect(view, &widgets::JobView::rankRequested, this,
            [this](const QString& path, std::shared_ptr<const document::Document> doc) {
                if (doc)
                    addDocumentTab(std::move(doc));
                else
                    openFiles({path});  // read from its digest: the trace is read now
            });
    const QStringList paths = m_jobPaths;
    connect(view, &widgets::JobView::tracesRequested, this,
            [this, paths] { openJob(paths, /*readTraces=*/true); });
    const int index = m_documents->addTab(view, view->title());
    m_documents->setCurrentIndex(index);
    m_stack->setCurrentWidget(m_documents);
    m_status->setText(view->findings().empty()
                          ? tr("Job: no finding")
                          : QString::fromStdString(view->findings().front().title));
    Q_EMIT jobOpened(view);
}

}  // namespace kinetoscope::gui
