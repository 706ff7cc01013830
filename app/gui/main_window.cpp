#include "app/gui/main_window.h"

#include "app/gui/job_export.h"
#include "app/gui/lab_dialog.h"
#include "app/gui/lab_run.h"
#include "app/gui/preferences_dialog.h"
#include "app/gui/problems_bar.h"
#include "app/gui/start_page.h"
#include "core/compare/comparison_markdown.h"
#include "core/format/format.h"
#include "core/job/job.h"
#include "core/lab/engine_process.h"
#include "core/scaling/scaling.h"
#include "core/session/session.h"
#include "widgets/compare_view.h"
#include "widgets/document_view.h"
#include "widgets/eliding_label.h"
#include "widgets/job_view.h"
#include "widgets/live_run_view.h"
#include "widgets/markdown_report.h"
#include "widgets/report.h"
#include "widgets/scaling/scaling_view.h"
#include "widgets/session_view.h"
#include "widgets/snapshot/snapshot_view.h"
#include "widgets/table_export.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cstdio>
#include <new>

namespace kinetoscope::gui {

namespace {
constexpr int kMaxRecent = 10;
constexpr int kLatencyTickMs = 10;
// A window manager's title bar and borders, before it tells their size.
constexpr QSize kFrameAllowance(16, 40);
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_stack(new QStackedWidget(this)), m_start(new StartPage(this)),
      m_documents(new QTabWidget(this)), m_progress(new QProgressBar(this)),
      m_cancel(new QPushButton(tr("Cancel"), this)), m_status(new widgets::ElidingLabel(this)),
      m_problems(new ProblemsBar(this)), m_latencyTimer(new QTimer(this))
{
    setWindowTitle(QStringLiteral("Kinetoscope"));
    setAcceptDrops(true);
    m_documents->setTabsClosable(true);
    m_documents->setDocumentMode(true);
    m_stack->addWidget(m_start);
    m_stack->addWidget(m_documents);
    auto* central = new QWidget(this);
    auto* column = new QVBoxLayout(central);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    column->addWidget(m_problems);
    column->addWidget(m_stack, 1);
    setCentralWidget(central);
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(240);
    m_progress->hide();
    m_cancel->hide();
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_cancelFlag)
            m_cancelFlag->store(true);
    });
    connect(m_documents, &QTabWidget::tabCloseRequested, this, &MainWindow::closeDocument);
    connect(m_start, &StartPage::openRequested, this, [this] {
        openFiles(
            QFileDialog::getOpenFileNames(this, tr("Open trace"), QString(),
                                          tr("Traces, sessions and memory snapshots (*.json "
                                             "*.json.gz *.gz *.pickle *.pkl);;All files (*)")));
    });
    connect(m_start, &StartPage::openFileRequested, this,
            [this](const QString& path) { openFiles({path}); });
    connect(m_start, &StartPage::labRequested, this, &MainWindow::showLabDialog);
    m_start->setLabAvailable(labAvailable());
    connect(m_start, &StartPage::profileRequested, this, &MainWindow::showProfileDialog);
    m_start->setProfileAvailable(profileAvailable());
    connect(&m_watcher, &QFutureWatcher<std::shared_ptr<const document::Document>>::finished, this,
            &MainWindow::finishLoad);
    connect(&m_compareWatcher, &QFutureWatcher<CompareResult>::finished, this,
            &MainWindow::finishCompare);
    connect(&m_jobWatcher, &QFutureWatcher<std::shared_ptr<JobResult>>::finished, this,
            &MainWindow::finishJob);
    // Responsiveness probe: a timer that should fire every 10 ms; how late it fires is
    // how long the event loop was blocked.
    m_latencyTimer->setInterval(kLatencyTickMs);
    connect(m_latencyTimer, &QTimer::timeout, this, [this] {
        const double late = double(m_latencyClock.restart()) - kLatencyTickMs;
        m_maxLatencyMs = std::max(m_maxLatencyMs, late);
    });

    QSettings settings;
    m_recentFiles = settings.value(QStringLiteral("recentFiles")).toStringList();
    createActions();
    m_start->setRecentFiles(m_recentFiles);
    restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("windowState")).toByteArray());
    if (!settings.contains(QStringLiteral("geometry"))) {
        // 1280 x 860, or less where the screen it opens on has less room (a laptop's 1366 x
        // 768): the title bar and the status bar in reach before the window manager says how
        // large its frame is (fitOnScreen makes it exact once shown).
        QSize size(1280, 860);
        if (const QScreen* screen = QGuiApplication::primaryScreen())
            size = size.boundedTo(screen->availableGeometry().size() - kFrameAllowance);
        resize(size);
    }
}

MainWindow::~MainWindow()
{
    if (m_cancelFlag)
        m_cancelFlag->store(true);
    m_watcher.waitForFinished();
    m_compareWatcher.waitForFinished();
    m_jobWatcher.waitForFinished();
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, [this] { m_start->openRequested(); });
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    updateRecentMenu();
    QAction* lab = file->addAction(tr("Run a &lab…"), this, &MainWindow::showLabDialog);
    lab->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    lab->setEnabled(labAvailable());
    QAction* profile =
        file->addAction(tr("&Profile a script…"), this, &MainWindow::showProfileDialog);
    profile->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    profile->setEnabled(profileAvailable());
    profile->setToolTip(profileAvailable()
                            ? tr("Your own training script, run under the probe: its steps, "
                                 "samples and a profiler window, as a session")
                            : tr("The probe is not installed beside kinetoscope "
                                 "(KINETOSCOPE_PROBE_DIR names its folder)"));
    QAction* compareAction = file->addAction(tr("&Compare…"), this, &MainWindow::showCompareDialog);
    compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    compareAction->setToolTip(
        tr("Before and after: the verdict on step time and where the change came from"));
    QAction* jobAction = file->addAction(tr("Open &job folder…"), this, &MainWindow::showJobDialog);
    jobAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_J));
    jobAction->setToolTip(tr("One trace per rank: the straggler, collectives and communication"));
    QAction* exportAction = file->addAction(tr("&Export report…"), this, &MainWindow::exportReport);
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    QAction* tableAction = file->addAction(tr("Export &table…"), this, &MainWindow::exportTable);
    tableAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    tableAction->setToolTip(
        tr("The current page's table as CSV: raw numbers, units in the headers"));
    // Greyed in the menu on a page without a table; its shortcut there says so in the status bar.
    connect(file, &QMenu::aboutToShow, this,
            [this, tableAction] { tableAction->setEnabled(currentTable() != nullptr); });
    connect(file, &QMenu::aboutToHide, tableAction,
            [tableAction] { tableAction->setEnabled(true); });
    QAction* close = file->addAction(tr("&Close"), this, [this] {
        if (m_documents->count() > 0)
            closeDocument(m_documents->currentIndex());
    });
    close->setShortcut(QKeySequence::Close);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* find = edit->addAction(tr("&Filter tables / search the timeline"), this, [this] {
        QWidget* current = m_documents->currentWidget();
        if (auto* doc = qobject_cast<widgets::DocumentView*>(current))
            doc->focusFilter();
        else if (auto* comparison = qobject_cast<widgets::CompareView*>(current))
            comparison->focusFilter();
        else if (auto* job = qobject_cast<widgets::JobView*>(current))
            job->focusFilter();
    });
    find->setShortcut(QKeySequence::Find);
    edit->addSeparator();
    QAction* preferences = edit->addAction(tr("&Preferences…"), this, &MainWindow::showPreferences);
    // Ctrl+, where the platform names no shortcut for preferences (X11 and Wayland do not).
    preferences->setShortcuts(QKeySequence::keyBindings(QKeySequence::Preferences).isEmpty()
                                  ? QList<QKeySequence>{QKeySequence(Qt::CTRL | Qt::Key_Comma)}
                                  : QKeySequence::keyBindings(QKeySequence::Preferences));
    preferences->setMenuRole(QAction::PreferencesRole);
    preferences->setToolTip(tr("Threads for loading and analysis"));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    const QStringList pages{tr("Overview"), tr("Diagnosis"), tr("Operators"), tr("Kernels"),
                            tr("Memory"),   tr("Modules"),   tr("Timeline")};
    for (int i = 0; i < pages.size(); ++i) {
        QAction* page = view->addAction(pages[i], this, [this, i] { showPage(i); });
        page->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Kinetoscope"), this, &MainWindow::showAbout);
}

void MainWindow::fitOnScreen()
{
    // A size saved on a larger screen (or the default, on a small one) would put the
    // title bar or the status bar out of reach: never larger than the screen, never off it.
    const QScreen* screen = this->screen();
    if (!screen || isMaximized() || isFullScreen())
        return;
    const QRect available = screen->availableGeometry();
    const QSize frame =
        frameGeometry().size() - geometry().size();  // the window manager's decorations
    resize(std::min(width(), available.width() - frame.width()),
           std::min(height(), available.height() - frame.height()));
    if (!available.contains(frameGeometry().topLeft()))
        move(available.topLeft());
}

void MainWindow::reportProblem(const QString& message)
{
    tell(message);
    Q_EMIT loadFailed(message);
}

void MainWindow::tell(const QString& message)
{
    m_status->setText(message);
    m_problems->add(message);
    std::fprintf(stderr, "kinetoscope: %s\n", qPrintable(message));
}

QStringList MainWindow::problems() const
{
    return m_problems->messages();
}

void MainWindow::showPage(int page)
{
    if (auto* doc = qobject_cast<widgets::DocumentView*>(m_documents->currentWidget()))
        doc->setCurrentIndex(page);
}

void MainWindow::openFiles(const QStringList& paths)
{
    for (const QString& path : paths) {
        if (path.isEmpty())
            continue;
        if (const std::filesystem::path study = scaling::studyFileOf(path.toStdString());
            !study.empty()) {
            std::string error;
            if (const std::optional<scaling::Study> opened = scaling::loadStudy(study, error)) {
                auto* view = new widgets::ScalingView(m_documents);
                view->setStudy(*opened);
                showTab(view, tr("Scaling: %1").arg(QFileInfo(path).fileName()),
                        QString::fromStdString(study.string()));
                Q_EMIT scalingOpened(view);
            } else {
                reportProblem(QString::fromStdString(error));
            }
            continue;
        }
        // kinetoscope profile's job: a rank-K folder per rank.
        if (QFileInfo(path).isDir() &&
            !QDir(path).entryList({QStringLiteral("rank-*")}, QDir::Dirs).isEmpty()) {
            openJob({path});
            continue;
        }
        m_queue << path;
    }
    if (!isLoading())
        startNextLoad();
}

bool MainWindow::isLoading() const
{
    return m_watcher.isRunning();
}

int MainWindow::documentCount() const
{
    return m_documents->count();
}

widgets::DocumentView* MainWindow::document(int index) const
{
    return qobject_cast<widgets::DocumentView*>(m_documents->widget(index));
}

void MainWindow::startNextLoad()
{
    if (m_queue.isEmpty()) {
        Q_EMIT idle();
        return;
    }
    m_loadingPath = m_queue.takeFirst();
    m_cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    m_status->setText(tr("Loading %1…").arg(QFileInfo(m_loadingPath).fileName()));
    m_maxLatencyMs = 0;
    m_latencyClock.start();
    m_latencyTimer->start();
    const std::string path = m_loadingPath.toStdString();
    auto cancel = m_cancelFlag;
    QPointer<QProgressBar> bar = m_progress;
    document::OpenOptions options = openOptions();
    options.timelineIndex = true;  // here, on the worker, not in the page's constructor
    options.callTree = true;
    options.snapshots = true;
    m_watcher.setFuture(QtConcurrent::run([path, cancel, bar, options] {
        document::OpenProgress progress;
        progress.cancel = cancel.get();
        progress.progress = [bar](double fraction) {
            QMetaObject::invokeMethod(
                qApp,
                [bar, fraction] {
                    if (bar)
                        bar->setValue(int(fraction * 1000));
                },
                Qt::QueuedConnection);
        };
        return document::open(path, options, progress);
    }));
}

void MainWindow::finishLoad()
{
    m_latencyTimer->stop();
    m_lastLatencyMs = m_maxLatencyMs;
    m_progress->hide();
    m_cancel->hide();
    const auto trace = m_watcher.result();
    const QString name = QFileInfo(m_loadingPath).fileName();
    if (trace && trace->isSnapshot()) {
        auto* view = new widgets::SnapshotView(trace, m_documents);
        showTab(view, name, m_loadingPath);
        addRecentFile(m_loadingPath);
        m_status->setText(tr("%1: a CUDA memory snapshot, %2 allocation entries, read in %3")
                              .arg(name,
                                   QString::fromStdString(format::count(
                                       int64_t(trace->snapshot->summary.traceEntries))),
                                   QString::fromStdString(format::seconds(
                                       trace->loadSeconds + trace->analysisSeconds))));
        Q_EMIT snapshotOpened(view);
    } else if (trace && trace->ok() && !trace->hasTrace() && trace->session) {
        // A lab recorded without a trace: its measurements and their findings.
        auto* view = new widgets::SessionView(trace, m_documents);
        m_labSessions.removeAll(m_loadingPath);  // its diagnosis is its first page already
        showTab(view, name, m_loadingPath);
        addRecentFile(m_loadingPath);
        m_status->setText(tr("%1: a lab session recorded without a trace").arg(name));
        queueSessionSnapshot(*trace);
        Q_EMIT sessionOpened(view);
    } else if (!trace || !trace->model) {
        const QString message =
            trace && trace->loadStatus == trace::LoadStatus::Cancelled
                ? tr("%1: loading cancelled").arg(name)
                : tr("%1: %2").arg(name, QString::fromStdString(trace ? trace->loadMessage
                                                                      : std::string("failed")));
        reportProblem(message);
    } else {
        auto* doc = new widgets::DocumentView(trace, m_documents);
        showTab(doc, name, m_loadingPath);
        addRecentFile(m_loadingPath);
        if (m_labSessions.removeAll(m_loadingPath) > 0)
            doc->setCurrentIndex(1);  // a lab just finished: its diagnosis first
        QString status =
            tr("%1: %2 events, %3, loaded in %4")
                .arg(name, QString::fromStdString(format::count(trace->model->stats().entries)),
                     QString::fromStdString(
                         format::counted(uint64_t(trace->summary.steps.steps.size()), "step")),
                     QString::fromStdString(format::seconds(trace->loadSeconds)));
        if (trace->loadStatus != trace::LoadStatus::Ok) {
            // Its Overview says so on its first line; the terminal hears it too.
            const char* how =
                trace->model->stats().partlyRead.empty() ? "read with problems" : "partly read";
            status = tr("%1 — %2: %3")
                         .arg(name, QLatin1String(how), QString::fromStdString(trace->loadMessage));
            std::fprintf(stderr, "kinetoscope: %s: %s: %s\n", qPrintable(m_loadingPath), how,
                         trace->loadMessage.c_str());
        }
        m_status->setText(status);
        queueSessionSnapshot(*trace);
        Q_EMIT documentOpened(doc);
    }
    startNextLoad();
}

void MainWindow::addDocumentTab(std::shared_ptr<const document::Document> doc)
{
    const QString path = QString::fromStdString(doc->path);
    showTab(new widgets::DocumentView(std::move(doc), m_documents), QFileInfo(path).fileName(),
            path);
}

void MainWindow::showTab(QWidget* view, const QString& title, const QString& toolTip)
{
    const int index = m_documents->addTab(view, title);
    m_documents->setTabToolTip(index, toolTip);
    m_documents->setCurrentIndex(index);
    m_stack->setCurrentWidget(m_documents);
    placeSnapshotPeaks();
}

void MainWindow::queueSessionSnapshot(const document::Document& opened)
{
    // A lab run with --memory-snapshot: its snapshot opens next, beside the session, and
    // its peak is placed in the session's trace.
    if (!opened.session || opened.session->snapshotPath.empty())
        return;
    const QString path =
        QString::fromStdString(session::snapshotOf(*opened.session, opened.sessionPath).string());
    if (QFileInfo::exists(path) && !m_queue.contains(path))
        m_queue.prepend(path);
}

void MainWindow::placeSnapshotPeaks()
{
    // A snapshot and a trace of the same run, both open: the snapshot's peak in the trace.
    for (int s = 0; s < m_documents->count(); ++s) {
        auto* snapshot = qobject_cast<widgets::SnapshotView*>(m_documents->widget(s));
        if (!snapshot || !snapshot->peakInTraceText().isEmpty())
            continue;
        for (int t = 0; t < m_documents->count(); ++t) {
            const auto* doc = qobject_cast<widgets::DocumentView*>(m_documents->widget(t));
            if (!doc || !doc->trace().hasTrace())
                continue;
            const snapshot::PeakInTrace placed = snapshot::placePeak(
                snapshot->document().snapshot->summary, *doc->trace().model, doc->trace().summary);
            if (placed.inWindow) {
                snapshot->setPeakInTrace(m_documents->tabText(t), placed);
                break;
            }
        }
    }
}

bool MainWindow::labAvailable()
{
    return !lab::findEngine().empty();
}

void MainWindow::showLabDialog()
{
    LabDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    lab::RunConfig config;
    QString error;
    if (dialog.config(config,
                      error))  // checked again: a file may have gone since the dialog closed
        startLab(config);
    else
        tell(tr("Lab: %1").arg(error));
}

widgets::LiveRunView* MainWindow::startLab(const lab::RunConfig& config)
{
    const QString name =
        tr("Lab: %1").arg(QFileInfo(QString::fromStdString(config.model)).fileName());
    auto* view = new widgets::LiveRunView(
        tr("%1 on %2, batch %3")
            .arg(QString::fromStdString(config.model), QString::fromStdString(config.dataset))
            .arg(config.batchSize),
        m_documents);
    showTab(view, name, QString::fromStdString(config.outDir));
    auto* run = new LabRun(config, view);  // owned by the view: closing the tab cancels it
    connect(run, &LabRun::finished, this,
            [this](bool ok, const QString& error, const QString& path, bool hasTrace) {
                if (ok)
                    m_status->setText(tr("Lab finished: %1").arg(path));
                else
                    tell(tr("Lab stopped: %1").arg(error));
                if (!path.isEmpty() && hasTrace)
                    openFinishedRun(path);
                Q_EMIT labFinished(ok, error, path);
            });
    run->start();
    return view;
}

void MainWindow::openFinishedRun(const QString& sessionPath)
{
    m_labSessions << sessionPath;
    openFiles({sessionPath});
}

void MainWindow::closeDocument(int index)
{
    QWidget* doc = m_documents->widget(index);
    m_documents->removeTab(index);
    delete doc;
    if (m_documents->count() == 0)
        m_stack->setCurrentWidget(m_start);
}

void MainWindow::exportReport()
{
    if (auto* comparison = qobject_cast<widgets::CompareView*>(m_documents->currentWidget())) {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export comparison"), QStringLiteral("comparison.pdf"),
            tr("PDF (*.pdf);;PNG image (*.png);;HTML (*.html);;Markdown (*.md)"));
        if (path.isEmpty())
            return;
        QString error;
        if (widgets::writeMarkdownReport(compare::comparisonMarkdown(comparison->comparison()), {},
                                         path, &error))
            m_status->setText(tr("Comparison written to %1").arg(path));
        else
            tell(tr("Export failed: %1").arg(error));
        return;
    }
    if (auto* job = qobject_cast<widgets::JobView*>(m_documents->currentWidget())) {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export job report"),
            QString::fromStdString(job::jobName(job->job())) + QStringLiteral("-report.pdf"),
            tr("PDF (*.pdf);;PNG image (*.png);;HTML (*.html);;Markdown (*.md)"));
        if (path.isEmpty())
            return;
        QString error;
        if (writeJobReport(*job, path, &error))
            m_status->setText(tr("Job report written to %1").arg(path));
        else
            tell(tr("Export failed: %1").arg(error));
        return;
    }
    // A trace's tab, or a lab session's recorded without a trace: the same report page.
    const document::Document* opened = nullptr;
    if (const auto* doc = qobject_cast<widgets::DocumentView*>(m_documents->currentWidget()))
        opened = &doc->trace();
    else if (const auto* session =
                 qobject_cast<widgets::SessionView*>(m_documents->currentWidget()))
        opened = &session->document();
    if (!opened && qobject_cast<widgets::SnapshotView*>(m_documents->currentWidget())) {
        m_status->setText(tr("A snapshot's report: kinetoscope memory SNAPSHOT --markdown"));
        return;
    }
    if (!opened) {
        m_status->setText(tr("Open a trace first"));
        return;
    }
    const QString suggested = QFileInfo(QString::fromStdString(opened->path)).completeBaseName() +
                              QStringLiteral("-report.pdf");
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export report"), suggested, tr("PDF (*.pdf);;PNG image (*.png);;HTML (*.html)"));
    if (path.isEmpty())
        return;
    QString error;
    if (widgets::writeReport(*opened, path, &error))
        m_status->setText(tr("Report written to %1").arg(path));
    else
        tell(tr("Export failed: %1").arg(error));
}

QAbstractItemView* MainWindow::currentTable() const
{
    QWidget* tab = m_documents->currentWidget();
    if (const auto* doc = qobject_cast<widgets::DocumentView*>(tab))
        return doc->currentTable();
    if (const auto* snapshot = qobject_cast<widgets::SnapshotView*>(tab))
        return snapshot->currentTable();
    if (const auto* session = qobject_cast<widgets::SessionView*>(tab))
        return session->currentTable();
    if (const auto* comparison = qobject_cast<widgets::CompareView*>(tab))
        return comparison->currentTable();
    if (const auto* job = qobject_cast<widgets::JobView*>(tab))
        return job->currentTable();
    if (const auto* lab = qobject_cast<widgets::LiveRunView*>(tab);
        lab && !lab->labTable()->isHidden())  // a lab running: its arms so far (a script has none)
        return lab->labTable();
    return nullptr;
}

bool MainWindow::exportCurrentTable(const QString& path, QString* error)
{
    const QAbstractItemView* table = currentTable();
    if (!table) {
        if (error)
            *error = tr("this page has no table to export");
        return false;
    }
    return widgets::writeTableCsv(*table, path, error);
}

void MainWindow::exportTable()
{
    QAbstractItemView* table = currentTable();
    if (!table) {
        m_status->setText(tr("This page has no table to export"));
        return;
    }
    QString path, error;
    switch (widgets::exportTableWithDialog(*table, this, &path, &error)) {
    case widgets::ExportOutcome::Written:
        m_status->setText(tr("Table written to %1").arg(path));
        break;
    case widgets::ExportOutcome::Failed:
        tell(tr("Export failed: %1").arg(error));
        break;
    case widgets::ExportOutcome::Cancelled:
        break;
    }
}

unsigned MainWindow::threads() const
{
    return m_launchThreads ? *m_launchThreads : threadsSetting();
}

document::OpenOptions MainWindow::openOptions() const
{
    document::OpenOptions options;
    options.threads = threads();
    return options;
}

void MainWindow::showPreferences()
{
    PreferencesDialog dialog(m_launchThreads, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const unsigned saved = threadsSetting();
    const QString threads = saved == 0   ? tr("every core")
                            : saved == 1 ? tr("1 thread")
                                         : tr("%1 threads").arg(saved);
    m_status->setText(
        m_launchThreads
            ? tr("Saved: %1 for loading and analysis from the next launch (this one was "
                 "started with --threads %2)")
                  .arg(threads)
                  .arg(*m_launchThreads)
            : tr("Saved: %1 for loading and analysis, from the next file opened").arg(threads));
}

void MainWindow::showAbout()
{
    QString versions;
    if (auto* doc = qobject_cast<widgets::DocumentView*>(m_documents->currentWidget())) {
        const auto& m = doc->trace().model->metadata();
        for (const auto& [key, value] : m.versions)
            versions += QStringLiteral("<br>%1: %2")
                            .arg(QString::fromStdString(key), QString::fromStdString(value));
        if (versions.isEmpty())
            versions = tr("<br>The current trace records no tool versions.");
        versions = tr("<p>Current trace:%1</p>").arg(versions);
    }
    QMessageBox::about(
        this, tr("About Kinetoscope"),
        tr("<h3>Kinetoscope %1</h3><p>A profiler and trace viewer for PyTorch training.</p>"
           "<p>Qt %2 (built with %3)</p>%4")
            .arg(QStringLiteral(KINETOSCOPE_VERSION), QString::fromLatin1(qVersion()),
                 QStringLiteral(QT_VERSION_STR), versions));
}

void MainWindow::addRecentFile(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_recentFiles.removeAll(absolute);
    m_recentFiles.prepend(absolute);
    while (m_recentFiles.size() > kMaxRecent)
        m_recentFiles.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), m_recentFiles);
    m_start->setRecentFiles(m_recentFiles);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    for (const QString& file : m_recentFiles)
        m_recentMenu->addAction(file, this, [this, file] { openFiles({file}); });
    m_recentMenu->setEnabled(!m_recentFiles.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    openFiles(paths);
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    // Once shown, the window has its screen and its frame: fit them, the first time.
    if (!m_fitted) {
        m_fitted = true;
        fitOnScreen();
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("windowState"), saveState());
    if (m_cancelFlag)
        m_cancelFlag->store(true);
    event->accept();
}

}  // namespace kinetoscope::gui
