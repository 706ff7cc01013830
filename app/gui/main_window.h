#pragma once
// The main window: a start page, then one tab per opened trace. Loading and analysis
// run on a worker thread with progress and cancel; a bad file is reported in one line
// and leaves the other documents untouched.
#include "core/compare/comparison.h"
#include "core/document/document.h"
#include "core/lab/probe_process.h"
#include "core/lab/run_config.h"
#include "core/lab/script_lab.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QMainWindow>
#include <QStringList>
#include <atomic>
#include <memory>
#include <optional>

class QAbstractItemView;
class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QTimer;

namespace kinetoscope::widgets {
class CompareView;
class DocumentView;
class JobView;
class LiveJobView;
class LiveRunView;
class ScalingView;
class SessionView;
class SnapshotView;
}  // namespace kinetoscope::widgets

namespace kinetoscope::gui {

class ProblemsBar;
class StartPage;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Each path: a scaling study (or its folder) opens at once in a Scaling tab; a profiled
    // job's folder (rank-K folders) as a job; anything else is loaded in turn (a trace, a
    // session, a snapshot).
    void openFiles(const QStringList& paths);
    bool isLoading() const;
    int documentCount() const;
    widgets::DocumentView* document(int index) const;
    StartPage* startPage() const { return m_start; }
    // Every file (comparison, job) that could not be opened since the last Dismiss, and
    // whatever else went wrong (a lab that stopped, an export that failed), one line each,
    // as the window shows them.
    QStringList problems() const;
    static bool labAvailable();  // kinetoscope-engine is installed (core/lab/engine_process.h)
    // Runs a lab in a new tab with live views; when it wrote a trace, its session then
    // opens as a document (diagnosis first). Returns the live view (the run reports a missing
    // engine itself).
    widgets::LiveRunView* startLab(const lab::RunConfig& config);
    void showLabDialog();
    // The probe is installed beside the app (core/lab/probe_process.h: findProbe).
    static bool profileAvailable();
    // Runs the user's own script under the probe in a new tab with live views; its session
    // then opens as a finished lab's does (a document on its diagnosis when it holds a trace),
    // a failed script's too, with what it measured. With `lab`, the lab on the script (its
    // arms and sweep, one run each) in a "Lab: SCRIPT" tab. Returns the live view.
    widgets::LiveRunView* startProfile(const lab::ProfileConfig& config,
                                       const std::optional<lab::ScriptLabConfig>& lab = {});
    // A job (config.nproc > 0, or a command that starts ranks: torchrun, srun): one live view
    // per rank of this machine in a "Job: SCRIPT" tab; the job opens as a Job tab at its end.
    widgets::LiveJobView* startProfileJob(const lab::ProfileConfig& config);
    void showProfileDialog();  // File > Profile a script…
    // Opens both sides on a worker (a side already open as a tab is not read again) and
    // adds a Compare tab; a side that cannot be read is reported in one line.
    void compareFiles(const QString& beforePath, const QString& afterPath);
    void showCompareDialog();
    bool isComparing() const;
    // Opens a job (a folder of one trace per rank, or several traces) on a worker, ranks in
    // parallel, and adds a Job tab; a rank that cannot be read is reported in one line. Ranks
    // with a fresh digest are read from it unless `readTraces` (core/job/digest.h).
    void openJob(const QStringList& paths, bool readTraces = false);
    void showJobDialog();
    // The table of the current tab's current page (operators, kernels, findings, ...): what
    // File > Export table… writes; null when the page has none.
    QAbstractItemView* currentTable() const;
    // Writes that table as CSV to `path` (File > Export table… asks for the path, then
    // calls this); false with `error` set, one line, when there is no table or no file.
    bool exportCurrentTable(const QString& path, QString* error = nullptr);
    // Longest the event loop was late (ms) during the last load: the responsiveness figure.
    double lastLoadMaxLatencyMs() const { return m_lastLatencyMs; }
    // Threads for reading and analysing what opens next (0 = every core): this launch's
    // --threads when it was given, else Edit > Preferences (performance/threads).
    unsigned threads() const;
    void setLaunchThreads(std::optional<unsigned> threads) { m_launchThreads = threads; }
    // What every open starts from (a trace, a comparison's sides, a job's ranks): threads().
    document::OpenOptions openOptions() const;
    // Edit > Preferences…: saved when accepted, used from the next open on.
    void showPreferences();

Q_SIGNALS:
    void documentOpened(widgets::DocumentView* document);
    void sessionOpened(widgets::SessionView* session);     // a lab session recorded without a trace
    void snapshotOpened(widgets::SnapshotView* snapshot);  // a CUDA memory snapshot
    void comparisonOpened(widgets::CompareView* comparison);
    void jobOpened(widgets::JobView* job);
    void scalingOpened(widgets::ScalingView* scaling);
    void loadFailed(const QString& message);
    void idle();  // nothing left to load
    void labFinished(bool ok, const QString& error, const QString& sessionPath);
    void profileFinished(bool ok, const QString& error, const QString& sessionPath);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void createActions();
    void startNextLoad();
    void finishLoad();
    void closeDocument(int index);
    void exportReport();
    void exportTable();
    void showAbout();
    void addRecentFile(const QString& path);
    void updateRecentMenu();
    void showPage(int page);
    // A file, comparison or job that could not be opened: told (below), and loadFailed.
    void reportProblem(const QString& message);
    // Something the user must not miss: the status bar, the problems bar (kept until
    // dismissed) and standard error.
    void tell(const QString& message);
    void fitOnScreen();
    // The session a lab or a profiled script saved: opened as a document, on its diagnosis.
    void openFinishedRun(const QString& sessionPath);

    QStackedWidget* m_stack;
    StartPage* m_start;
    QTabWidget* m_documents;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QLabel* m_status;
    ProblemsBar* m_problems;
    class QMenu* m_recentMenu = nullptr;
    QStringList m_recentFiles;

    QStringList m_queue;
    QStringList m_labSessions;  // sessions of finished labs, still to open
    QString m_loadingPath;
    QFutureWatcher<std::shared_ptr<const document::Document>> m_watcher;
    struct CompareResult
    {
        std::shared_ptr<const document::Document> before, after;
        std::optional<compare::Comparison> comparison;
        std::string error;
    };
    void finishCompare();
    std::shared_ptr<const document::Document> openDocument(const QString& path) const;
    QFutureWatcher<CompareResult> m_compareWatcher;
    struct JobResult;
    void finishJob();
    void addDocumentTab(std::shared_ptr<const document::Document> doc);
    void showTab(QWidget* view, const QString& title,
                 const QString& toolTip);  // a new tab, made current
    void placeSnapshotPeaks();
    void queueSessionSnapshot(const document::Document& opened);
    QFutureWatcher<std::shared_ptr<JobResult>> m_jobWatcher;
    QStringList m_jobPaths;  // the job being opened, for its Timelines' "read the traces"
    std::shared_ptr<std::atomic<bool>> m_cancelFlag;
    QTimer* m_latencyTimer;
    QElapsedTimer m_latencyClock;
    double m_maxLatencyMs = 0;
    double m_lastLatencyMs = 0;
    bool m_fitted = false;  // fitted on its screen once, when first shown
    std::optional<unsigned>
        m_launchThreads;  // --threads on the command line: wins over the setting
};

}  // namespace kinetoscope::gui
