// The main window: documents open off the GUI thread; a bad file is reported in one line
// and leaves the open documents alone; closing a document returns to the start page.
#include "app/gui/lab_run.h"
#include "app/gui/main_window.h"
#include "app/gui/preferences_dialog.h"
#include "app/gui/single_instance.h"
#include "app/gui/start_page.h"
#include "core/session/session.h"
#include "tests/support/pickle_writer.h"
#include "tests/support/small_lab_run.h"
#include "tests/support/test_support.h"
#include "widgets/document_view.h"
#include "widgets/findings_view.h"
#include "widgets/job_view.h"
#include "widgets/live_run_view.h"
#include "widgets/overview_view.h"
#include "widgets/scaling/scaling_view.h"
#include "widgets/session_view.h"
#include "widgets/snapshot/snapshot_view.h"
#include "widgets/table_view.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QProcess>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QtTest>
#include <algorithm>
#include <csignal>
#include <map>
#include <memory>
#include <qcustomplot.h>
#include <sys/resource.h>
#include <vector>

using namespace kinetoscope;

namespace {

// User and system CPU time this process has used, in seconds.
double processCpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// A CPU run that would last minutes unless stopped.
lab::RunConfig longRun(const QTemporaryDir& dir)
{
    lab::RunConfig c;
    c.model = "mlp";
    c.device = "cpu";
    c.steps = 100000;
    c.sampleIoUs = 100;
    c.outDir = dir.path().toStdString();
    return c;
}

}  // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);  // QSettings away from the user's
        qRegisterMetaType<widgets::DocumentView*>("widgets::DocumentView*");
        qRegisterMetaType<widgets::SessionView*>("widgets::SessionView*");
        qRegisterMetaType<widgets::SnapshotView*>("widgets::SnapshotView*");
    }

    // A first launch: the start page says what its recent files will be, not a blank box;
    // the list comes with the first file opened. Preferences answer Ctrl+, on every platform.
    void theStartPageAndPreferencesOnAFirstLaunch()
    {
        QSettings().remove(QStringLiteral("recentFiles"));
        gui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QListWidget* recent = window.startPage()->recentList();
        QVERIFY(!recent->isVisible());
        const auto labels = window.startPage()->findChildren<QLabel*>();
        QVERIFY(std::any_of(labels.begin(), labels.end(), [](const QLabel* l) {
            return l->isVisible() && l->text().startsWith(QStringLiteral("Nothing opened yet"));
        }));
        QSignalSpy opened(&window, &gui::MainWindow::documentOpened);
        window.openFiles(
            {QString::fromStdString(test::sharedTrace("hta/sampled_rank0.json.gz").string())});
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 60'000);
        QCOMPARE(recent->count(), 1);
        QVERIFY(recent->isVisibleTo(window.startPage()));
        QSettings().remove(QStringLiteral("recentFiles"));

        bool preferences = false;
        for (const QAction* action : window.findChildren<QAction*>())
            if (action->menuRole() == QAction::PreferencesRole)
                preferences = action->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_Comma));
        QVERIFY(preferences);
    }

    // A file opened from the file manager (the real binary, as xdg-open starts it) reaches
    // the running app as a new tab and the launch exits at once; with no app listening,
    // the launch becomes the app.
    void aSecondLaunchHandsItsFilesToTheRunningApp()
    {
        const QString name =
            QStringLiteral("kinetoscope-test-%1").arg(QCoreApplication::applicationPid());
        qputenv("KINETOSCOPE_INSTANCE", name.toUtf8());
        gui::MainWindow window;
        gui::InstanceServer server;
        QVERIFY(server.listen());
        gui::openHandedFiles(server, window);
        QSignalSpy opened(&window, &gui::MainWindow::documentOpened);
        QProcess launch;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("KINETOSCOPE_INSTANCE"), name);
        launch.setProcessEnvironment(env);
        const QString trace =
            QString::fromStdString(test::sharedTrace("hta/sampled_rank0.json.gz").string());
        launch.start(QStringLiteral(KINETOSCOPE_BINARY), {trace});
        QTRY_COMPARE_WITH_TIMEOUT(launch.state(), QProcess::NotRunning, 30'000);
        QCOMPARE(launch.exitStatus(), QProcess::NormalExit);
        QCOMPARE(launch.exitCode(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 60'000);
        QCOMPARE(window.documentCount(), 1);
        QCOMPARE(
            QFileInfo(QString::fromStdString(window.document(0)->trace().path)).canonicalFilePath(),
            QFileInfo(trace).canonicalFilePath());
        // A relative path is made absolute by the launch, whatever the app's folder.
        launch.setWorkingDirectory(QString::fromStdString(test::sharedTracesDir().string()));
        launch.start(QStringLiteral(KINETOSCOPE_BINARY),
                     {QStringLiteral("hta/sampled_rank1.json.gz")});
        QTRY_COMPARE_WITH_TIMEOUT(launch.state(), QProcess::NotRunning, 30'000);
        QCOMPARE(launch.exitCode(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 2, 60'000);
        // A second app cannot take the name from one that answers.
        gui::InstanceServer second;
        QVERIFY(!second.listen());
        // --new-window keeps a launch apart: it stays up as its own app.
        launch.start(QStringLiteral(KINETOSCOPE_BINARY),
                     {QStringLiteral("hta/sampled_rank1.json.gz"), QStringLiteral("--new-window")});
        QVERIFY(launch.waitForStarted());
        QTest::qWait(1500);
        QCOMPARE(launch.state(), QProcess::Running);
        launch.kill();
        launch.waitForFinished();
        QCOMPARE(opened.count(), 2);
        qunsetenv("KINETOSCOPE_INSTANCE");
    }

    void aBadFileLeavesOpenDocumentsUntouched()
    {
        gui::MainWindow window;
        QSignalSpy idle(&window, &gui::MainWindow::idle);
        QSignalSpy failed(&window, &gui::MainWindow::loadFailed);
        QTemporaryDir dir;
        const QString bad = dir.path() + QStringLiteral("/notes.json");
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"hello\": \"world\"}");
        file.close();
        window.openFiles(
            {QString::fromStdString(test::sharedTrace("hta/sampled_rank0.json.gz").string()), bad,
             QStringLiteral("/no/such/trace.json")});
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 60'000);
        QCOMPARE(window.documentCount(), 1);
        QCOMPARE(failed.count(), 2);
        QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("not a trace")));
        QVERIFY(!failed.at(1).at(0).toString().contains(QLatin1Char('\n')));
        // Both failures stay in sight (not only the last), one line each.
        QCOMPARE(window.problems().size(), 2);
        QVERIFY(window.problems().at(0).contains(QStringLiteral("notes.json")));
        QVERIFY(window.problems().at(1).contains(QStringLiteral("no such file")));
        QVERIFY(window.document(0)->trace().model);
        QCOMPARE(window.document(0)->findings()->findingCount() > 0, true);
    }

    // A trace cut in the middle opens with what it holds, and its Overview says so on its
    // first line (issue 29: it read as a healthy "CPU only" run).
    void aPartlyReadTraceSaysSoFirst()
    {
        gui::MainWindow window;
        QSignalSpy opened(&window, &gui::MainWindow::documentOpened);
        QTemporaryDir dir;
        const std::string whole = test::readDecompressed(
            test::sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"));
        const QString cut = dir.path() + QStringLiteral("/cut.json");
        test::writeFile(cut.toStdString(), whole.substr(0, whole.size() / 2));
        window.openFiles({cut});
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 60'000);
        const QString figures = window.document(0)->overview()->figuresText();
        QVERIFY2(figures.startsWith(QStringLiteral("Partly read: truncated trace")),
                 qPrintable(figures.left(200)));
        QVERIFY(figures.contains(QStringLiteral("What this trace is: partly read")));
        // The diagnosis leads with it too.
        QCOMPARE(QString::fromStdString(window.document(0)->trace().findings.front().id),
                 QStringLiteral("trace-quality"));
    }

    // Traces open with nothing happening leave the app idle (issue 50: the Memory plot's peak
    // label queued a replot from every replot, a core at 100 % for as long as the tab was
    // open): no chart replots by itself, a replot asked for is one replot, and the process
    // uses next to no CPU.
    void openTracesLeaveTheAppIdle()
    {
        gui::MainWindow window;
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy idle(&window, &gui::MainWindow::idle);
        // Both have memory samples, so both draw a Memory plot with its peak label.
        window.openFiles(
            {QStringLiteral(KINETOSCOPE_SOURCE_DIR "/resources/sample.pt.trace.json.gz"),
             QString::fromStdString(
                 test::sharedTrace("misc/dtu_mlops_cpu_memory.json.gz").string())});
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 60'000);
        QCOMPARE(window.documentCount(), 2);
        // Every page of each document shown once, so every chart has been laid out and drawn.
        for (int d = 0; d < window.documentCount(); ++d) {
            widgets::DocumentView* view = window.document(d);
            for (int page = 0; page < view->count(); ++page) {
                view->setCurrentIndex(page);
                QTest::qWait(20);
            }
        }
        const QList<QCustomPlot*> charts = window.findChildren<QCustomPlot*>();
        QVERIFY(charts.size() >= 2);
        std::vector<std::unique_ptr<QSignalSpy>> replots;
        auto spyOnEveryChart = [&] {
            replots.clear();
            for (QCustomPlot* chart : charts)
                replots.push_back(std::make_unique<QSignalSpy>(chart, &QCustomPlot::afterReplot));
        };
        auto noneReplotted = [&] {
            return std::all_of(replots.begin(), replots.end(),
                               [](const auto& spy) { return spy->isEmpty(); });
        };
        // Settled: what showing the pages set going is done once half a second passes with
        // no replot (on a loaded machine that can take a while; 15 s at most, and a chart
        // that never stops fails below).
        QElapsedTimer settling;
        settling.start();
        do {
            spyOnEveryChart();
            QTest::qWait(500);
        } while (!noneReplotted() && settling.elapsed() < 15'000);
        spyOnEveryChart();
        const double cpuBefore = processCpuSeconds();
        QTest::qWait(2000);
        const double cpu = processCpuSeconds() - cpuBefore;
        for (size_t i = 0; i < replots.size(); ++i)
            QVERIFY2(replots[i]->isEmpty(),
                     qPrintable(QStringLiteral("%1 replotted %2 times idle")
                                    .arg(charts[int(i)]->metaObject()->className())
                                    .arg(replots[i]->count())));
        // A core kept busy would use about 2 s; an idle app, a few milliseconds.
        QVERIFY2(cpu < 0.5, qPrintable(QStringLiteral("%1 s of CPU in 2 s idle").arg(cpu)));
        // One replot asked for is one replot, whatever its labels needed.
        for (size_t i = 0; i < replots.size(); ++i) {
            replots[i]->clear();
            charts[int(i)]->replot();
        }
        QTest::qWait(200);
        for (size_t i = 0; i < replots.size(); ++i)
            QCOMPARE(replots[i]->count(), 1);
    }

    // A lab session recorded without --profile opens with what it measured: its findings and
    // its lab figures (issue 29: "the session records no trace").
    void aSessionWithoutATraceOpensAsItsMeasurements()
    {
        QTemporaryDir dir;
        session::Session s;
        s.config = {
            {"model", "mlp"}, {"dataset", "synthetic"}, {"batch_size", "64"}, {"device", "cpu"}};
        s.environment = {{"device", "CPU"}, {"cpu_bf16", "none"}};
        session::LabArm fp32, bf16;
        fp32.kind = session::ArmKind::Fp32;
        bf16.kind = session::ArmKind::Bf16;
        fp32.ran = bf16.ran = true;
        fp32.samplesPerSecond = 57.2;
        fp32.meanStepMs = 1119;
        bf16.samplesPerSecond = 14.2;
        bf16.meanStepMs = 4507;
        s.lab = {fp32, bf16};
        for (int i = 0; i < 5; ++i)
            s.steps.push_back({i, 1.0, 0.1, 300.0, 600.0, 200.0, 2.3});
        // Recorded with --memory-snapshot: the snapshot beside the session opens with it.
        {
            test::PickleWriter w;
            w.dict().str("segments").list();
            test::segment(w, 0x100000000, {{64 << 20, "active_allocated"}});
            w.endList().str("device_traces").list().list();
            test::entry(w, "alloc", 0x100000000, 64 << 20, 1000, "/home/u/train.py", 10);
            w.endList().endList().endDict();
            QFile out(dir.path() + QStringLiteral("/memory_snapshot.pickle"));
            QVERIFY(out.open(QIODevice::WriteOnly));
            const std::string bytes = w.done();
            out.write(bytes.data(), qint64(bytes.size()));
        }
        s.snapshotPath = "memory_snapshot.pickle";
        const std::string path =
            (dir.path() + QStringLiteral("/session.kinetoscope.json")).toStdString();
        std::string error;
        QVERIFY2(session::saveSession(s, path, error), error.c_str());

        gui::MainWindow window;
        QSignalSpy opened(&window, &gui::MainWindow::sessionOpened);
        QSignalSpy snapshots(&window, &gui::MainWindow::snapshotOpened);
        QSignalSpy failed(&window, &gui::MainWindow::loadFailed);
        window.openFiles({QString::fromStdString(path)});
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 60'000);
        QTRY_COMPARE_WITH_TIMEOUT(snapshots.count(), 1, 60'000);
        QCOMPARE(failed.count(), 0);
        QVERIFY(window.problems().isEmpty());
        auto* view = opened.at(0).at(0).value<widgets::SessionView*>();
        QVERIFY(view);
        QVERIFY2(view->findings()->findingTitle(0).startsWith(
                     QStringLiteral("1. bf16 autocast makes each step 4.03× slower")),
                 qPrintable(view->findings()->findingTitle(0)));
        QCOMPARE(view->lab()->stepBars(), 5);
        QCOMPARE(view->lab()->labTable()->rowCount(), 2);
        QVERIFY(view->lab()->readingText().contains(QStringLiteral("slowdown")));
    }

    // A memory snapshot dropped on the window opens as a document of its own (sniffed by its
    // bytes: this one is named .json), beside a trace, and a trace next to it still opens.
    void aMemorySnapshotOpensAsItsOwnDocument()
    {
        QTemporaryDir dir;
        const QString renamed = dir.path() + QStringLiteral("/snapshot.json");
        QVERIFY(QFile::copy(
            QString::fromStdString((test::sharedTracesDir().parent_path() / "snapshots" /
                                    "cs336_forward_bf16_linux_torch26.pickle")
                                       .string()),
            renamed));
        gui::MainWindow window;
        QSignalSpy snapshots(&window, &gui::MainWindow::snapshotOpened);
        QSignalSpy traces(&window, &gui::MainWindow::documentOpened);
        QSignalSpy failed(&window, &gui::MainWindow::loadFailed);
        window.openFiles({renamed, QString::fromStdString(
                                       test::sharedTrace("hta/sampled_rank0.json.gz").string())});
        QTRY_COMPARE_WITH_TIMEOUT(traces.count(), 1, 60'000);
        QCOMPARE(snapshots.count(), 1);
        QCOMPARE(failed.count(), 0);
        auto* view = snapshots.at(0).at(0).value<widgets::SnapshotView*>();
        QVERIFY(view);
        QVERIFY2(view->headline().contains(QStringLiteral("822 MiB reserved in 43 segments")),
                 qPrintable(view->headline()));
        QCOMPARE(view->atPeak()->table()->model()->rowCount(),
                 int(view->document().snapshot->summary.topStacksAtPeak.size()));
    }

    // A snapshot and a trace of the same run, both open: the snapshot's page says where in
    // the trace its peak was (ResNet-50's ProfilerStep#5, autograd's thread in a
    // convolution's backward at 1623212388540300 us, read from the JSON with Python).
    void aSnapshotsPeakIsPlacedInAnOpenTraceOfTheSameRun()
    {
        const int64_t MiB = 1 << 20, peakUs = 1623212388540300;
        test::PickleWriter w;
        w.dict().str("segments").list();
        test::segment(w, 0x100000000, {{512 * MiB, "inactive"}});
        w.endList().str("device_traces").list().list();
        test::entry(w, "alloc", 0x104000000, 300 * MiB, peakUs, "/home/u/model.py", 42);
        test::entry(w, "free_requested", 0x104000000, 300 * MiB, peakUs + 50);
        w.endList().endList().endDict();
        QTemporaryDir dir;
        const QString snapshotPath = dir.path() + QStringLiteral("/run.pickle");
        {
            QFile out(snapshotPath);
            QVERIFY(out.open(QIODevice::WriteOnly));
            const std::string bytes = w.done();
            out.write(bytes.data(), qint64(bytes.size()));
        }
        gui::MainWindow window;
        QSignalSpy snapshots(&window, &gui::MainWindow::snapshotOpened);
        QSignalSpy traces(&window, &gui::MainWindow::documentOpened);
        window.openFiles(
            {snapshotPath,
             QString::fromStdString(
                 test::sharedTrace("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz")
                     .string())});
        QTRY_COMPARE_WITH_TIMEOUT(traces.count(), 1, 60'000);
        auto* view = snapshots.at(0).at(0).value<widgets::SnapshotView*>();
        QVERIFY2(view->peakInTraceText().contains(QStringLiteral(
                     "ProfilerStep#5's backward, in aten::cudnn_convolution_backward_input")),
                 qPrintable(view->peakInTraceText()));
    }

    // Traces that are not ranks of one job, opened as one, open each on its own tab, the
    // reason in sight.
    void separateRunsOpenedAsAJobOpenApart()
    {
        gui::MainWindow window;
        QSignalSpy opened(&window, &gui::MainWindow::documentOpened);
        QSignalSpy failed(&window, &gui::MainWindow::loadFailed);
        window.openJob(
            {QString::fromStdString(
                 test::sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz").string()),
             QString::fromStdString(
                 test::sharedTrace("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz")
                     .string())});
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 2, 120'000);
        QCOMPARE(failed.count(), 0);  // nothing failed: a note, in sight
        QCOMPARE(window.problems().size(), 1);
        QVERIFY(window.problems().front().contains(QStringLiteral("not ranks of one job")));
        QCOMPARE(window.documentCount(), 2);
        QVERIFY(window.document(0) && window.document(1));
    }

    // Edit > Preferences: the threads for loading and analysis, saved in QSettings
    // (performance/threads, 0 = every core by default) and used by every open after it: a
    // trace's, a job's ranks (sharing it) and, over it, this launch's --threads.
    void theThreadsPreferenceIsSavedAndReachesEveryOpen()
    {
        qRegisterMetaType<widgets::JobView*>("widgets::JobView*");
        QSettings().remove(QLatin1String(gui::kThreadsSettingKey));
        gui::MainWindow window;
        QCOMPARE(window.threads(), 0u);
        QCOMPARE(window.openOptions().threads, 0u);
        QMenu* edit = nullptr;
        for (QAction* menu : window.menuBar()->actions())
            if (menu->text() == QStringLiteral("&Edit"))
                edit = menu->menu();
        QVERIFY(edit);
        const QList<QAction*> editActions = edit->actions();
        QVERIFY(std::any_of(editActions.begin(), editActions.end(), [](const QAction* a) {
            return a->text() == QStringLiteral("&Preferences…") &&
                   a->menuRole() == QAction::PreferencesRole;
        }));
        {
            gui::PreferencesDialog dialog;
            QCOMPARE(dialog.threadsBox()->value(), 0);
            QVERIFY(dialog.threadsBox()->text().startsWith(
                QStringLiteral("All cores")));  // what 0 means
            const QList<QLabel*> labels = dialog.findChildren<QLabel*>();
            QVERIFY(std::any_of(labels.begin(), labels.end(), [](const QLabel* l) {
                return l->text().startsWith(
                    QStringLiteral("Threads for loading and analysis (0 = "));
            }));
            QVERIFY(!dialog.findChild<QLabel*>(QStringLiteral("launchThreads")));
            dialog.threadsBox()->setValue(1);
            dialog.accept();
        }
        QCOMPARE(QSettings().value(QLatin1String(gui::kThreadsSettingKey)).toInt(), 1);
        QCOMPARE(window.threads(), 1u);
        QCOMPARE(window.openOptions().threads, 1u);
        QSignalSpy opened(&window, &gui::MainWindow::documentOpened);
        window.openFiles(
            {QString::fromStdString(test::sharedTrace("hta/sampled_rank0.json.gz").string())});
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 60'000);
        QCOMPARE(window.document(0)->trace().threads, 1u);  // the serial path

        // 8 threads for a job of 4 ranks: 4 open at once, 2 threads each.
        gui::PreferencesDialog again;
        QCOMPARE(again.threadsBox()->value(), 1);  // as saved
        again.threadsBox()->setValue(8);
        again.accept();
        QSignalSpy jobs(&window, &gui::MainWindow::jobOpened);
        window.openJob({QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/data/ddp_gloo_4ranks")});
        QTRY_COMPARE_WITH_TIMEOUT(jobs.count(), 1, 120'000);
        const auto* job = jobs.at(0).at(0).value<widgets::JobView*>();
        QCOMPARE(job->job().ranks.size(), size_t(4));
        for (const job::Rank& rank : job->job().ranks)
            QCOMPARE(rank.doc->threads, 2u);

        // --threads on the command line wins for the launch; the dialog says so.
        window.setLaunchThreads(3);
        QCOMPARE(window.threads(), 3u);
        QCOMPARE(window.openOptions().threads, 3u);
        gui::PreferencesDialog launched(3u);
        QVERIFY(launched.findChild<QLabel*>(QStringLiteral("launchThreads")));
        QCOMPARE(launched.threadsBox()->value(), 8);  // the setting, kept for later launches
        window.openFiles(
            {QString::fromStdString(test::sharedTrace("hta/sampled_rank1.json.gz").string())});
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 2, 60'000);
        QCOMPARE(window.document(window.documentCount() - 1)->trace().threads, 3u);
        QSettings().remove(QLatin1String(gui::kThreadsSettingKey));
    }

    // A scaling study opens in a Scaling tab from the file or its folder (File > Open, drag
    // and drop, the command line all go through openFiles); a file that is no study is one
    // problem, and the window keeps what it had.
    void aScalingStudyOpensInItsOwnTab()
    {
        qRegisterMetaType<widgets::ScalingView*>("widgets::ScalingView*");
        gui::MainWindow window;
        QSignalSpy opened(&window, &gui::MainWindow::scalingOpened);
        QSignalSpy failed(&window, &gui::MainWindow::loadFailed);
        window.openFiles(
            {QStringLiteral(KINETOSCOPE_SOURCE_DIR
                            "/tests/data/scaling/train_ddp_weak_1_2_4.scaling.kinetoscope.json")});
        QCOMPARE(opened.count(), 1);
        auto* view = opened.at(0).at(0).value<widgets::ScalingView*>();
        QVERIFY(view);
        QCOMPARE(view->table()->rowCount(), 3);
        QTemporaryDir folder;
        QFile broken(folder.filePath(QStringLiteral("scaling.kinetoscope.json")));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("{\"kinetoscope_scaling\": 1, \"points\": 3}");
        broken.close();
        window.openFiles({folder.path()});
        QCOMPARE(opened.count(), 1);
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("malformed scaling study")),
                 qPrintable(failed.at(0).at(0).toString()));
    }

    // A geometry saved on a larger screen, or the default size on a smaller one, never puts
    // the window past this screen.
    void aRestoredWindowFitsTheScreen()
    {
        QSettings().remove(QStringLiteral("geometry"));
        {
            gui::MainWindow first;  // 1280 x 860 by default; the offscreen screen is smaller
            first.show();
            QVERIFY(QTest::qWaitForWindowExposed(&first));
            const QSize screen =
                first.screen()->availableGeometry().size().expandedTo(first.minimumSizeHint());
            QVERIFY2(first.frameGeometry().width() <= screen.width() &&
                         first.frameGeometry().height() <= screen.height(),
                     qPrintable(QStringLiteral("%1x%2")
                                    .arg(first.frameGeometry().width())
                                    .arg(first.frameGeometry().height())));
        }
        {
            gui::MainWindow big;
            big.show();
            QVERIFY(QTest::qWaitForWindowExposed(&big));
            big.resize(5000, 4000);
            big.close();  // saves the geometry
        }
        gui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // No larger than the screen, unless the window cannot be made that small.
        const QSize screen =
            window.screen()->availableGeometry().size().expandedTo(window.minimumSizeHint());
        QVERIFY2(window.frameGeometry().height() <= screen.height() &&
                     window.frameGeometry().width() <= screen.width(),
                 qPrintable(QStringLiteral("%1x%2 on %3x%4")
                                .arg(window.frameGeometry().width())
                                .arg(window.frameGeometry().height())
                                .arg(screen.width())
                                .arg(screen.height())));
    }

    void aLabRunsLiveThenOpensItsDiagnosis()
    {
        if (!gui::MainWindow::labAvailable())
            QSKIP("built without the engine");
        gui::MainWindow window;
        QTemporaryDir dir;
        lab::RunConfig c = test::smallLabRun(dir.path().toStdString(), 12);
        c.sampleIoUs = 100;  // about 3 ms per batch: a run long enough to sample
        c.lab = c.split = c.profile = true;
        c.sweepWorkers = {0, 2};
        c.memoryLimitMb = 64;  // 262144 samples x 64 features of float32 are 64 MiB: out of memory
        c.sweepBatchSizes = {16, 262144};
        QSignalSpy finished(&window, &gui::MainWindow::labFinished);
        QSignalSpy opened(&window, &gui::MainWindow::documentOpened);
        widgets::LiveRunView* live = window.startLab(c);
        QVERIFY(live);
        QVERIFY(live->isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120'000);
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        // Filled live, from queued engine callbacks: one bar per measured step, the lab
        // table, both sweep points, samples, and the seeds' reading at the end.
        QCOMPARE(live->stepBars(), int(c.steps));
        QCOMPARE(live->labTable()->rowCount(), 3);
        QCOMPARE(live->labTable()->item(2, 4)->text(), QStringLiteral("not run: needs a GPU"));
        QCOMPARE(live->sweepPoints(), 3);  // two worker counts, one batch size that fit
        QVERIFY(live->outOfMemoryMarked());
        // The memory triage: both steps' phases and the split; the CPU has no allocator.
        QCOMPARE(live->memoryTable()->rowCount(), 7 + 7 + 4);
        // On the CPU: the counting allocator's figures, and no reserved column (issue 29).
        QVERIFY(live->memoryTable()->item(2, 1)->text().endsWith(QStringLiteral("iB")));
        QVERIFY(live->memoryTable()->isColumnHidden(2));
        QVERIFY(
            live->memoryTable()->item(16, 0)->text().startsWith(QStringLiteral("optimizer state")));
        QVERIFY(live->memoryTable()->item(16, 1)->text().endsWith(QStringLiteral("KiB")));
        QVERIFY(live->sampleCount() > 0);
        QVERIFY(live->readingText().contains(QStringLiteral("fp32 -> bf16")));
        QVERIFY(!live->isRunning());
        // Then its session opens as a document, on the diagnosis page.
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 60'000);
        QCOMPARE(window.documentCount(), 2);
        widgets::DocumentView* doc = window.document(1);
        QVERIFY(doc && doc->trace().model);
        QCOMPARE(doc->currentIndex(), 1);
    }

    // The live view fed as the engine feeds it, without an engine: the triage table with
    // the phase that sets the peak in bold, the batch plot with its out-of-memory, and an
    // inference run's percentiles as its batches come.
    void theLiveViewShowsTriageBatchFitAndLatency()
    {
        widgets::LiveRunView view(QStringLiteral("test"));
        session::MemoryTriage m;
        const char* phases[] = {"start",    "batch to device", "forward",  "loss",
                                "backward", "optimizer step",  "zero_grad"};
        for (const char* phase : phases) {
            const bool peak = std::string(phase) == "forward";
            m.steadyStep.push_back({phase, 1 << 20, 4 << 20, (peak ? 3 : 1) << 20});
        }
        m.split = {1000, 2, 4000, 4000, 8008, 2 << 20};
        view.setMemory(m);
        QCOMPARE(view.memoryTable()->rowCount(), 7 + 4);
        QVERIFY(view.memoryTable()->item(2, 0)->font().bold());  // steady: forward sets the peak
        QVERIFY(!view.memoryTable()->item(3, 0)->font().bold());
        QCOMPARE(view.memoryTable()->item(2, 3)->text(), QStringLiteral("3.00 MiB"));
        QCOMPARE(view.memoryTable()->item(10, 1)->text(),
                 QStringLiteral("2.00 MiB"));  // activations
        // Every row in view: the Lab page scrolls, not the table inside it.
        const QTableWidget* table = view.memoryTable();
        QCOMPARE(table->verticalScrollBarPolicy(), Qt::ScrollBarAlwaysOff);
        QVERIFY(table->height() >=
                table->horizontalHeader()->sizeHint().height() + table->verticalHeader()->length());
        view.addSweepPoint({"batch_size", 64, 1000.0, 0, "", 64.0, 100 << 20});
        QVERIFY(!view.outOfMemoryMarked());
        view.addSweepPoint({"batch_size", 128, 0.0, 0, "out of memory at batch size 128"});
        QVERIFY(view.outOfMemoryMarked());
        // Its cross and label stand on the axis, inside the plot, whatever the y range.
        view.resize(1280, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCustomPlot* batch = view.batchSweepPlot();
        batch->replot();
        const QRect plotArea = batch->axisRect()->rect();
        const int axisY = plotArea.top() + plotArea.height();  // the x axis' line
        int labels = 0, strokes = 0;
        for (int i = 0; i < batch->itemCount(); ++i) {
            if (const auto* label = qobject_cast<QCPItemText*>(batch->item(i))) {
                ++labels;
                QVERIFY2(label->bottom->pixelPosition().y() <= axisY &&
                             label->top->pixelPosition().y() >= plotArea.top(),
                         qPrintable(label->text()));
            } else if (const auto* stroke = qobject_cast<QCPItemLine*>(batch->item(i))) {
                // The cross's two strokes end on the axis line (helper 44: a glyph's box
                // left the cross floating a few px above it).
                ++strokes;
                const double lowest =
                    std::max(stroke->start->pixelPosition().y(), stroke->end->pixelPosition().y());
                QCOMPARE(std::lround(lowest), long(axisY));
            }
        }
        QCOMPARE(labels, 1);  // "OOM"
        QCOMPARE(strokes, 2);
        QCOMPARE(view.sweepPoints(), 1);
        // The same batch with activation checkpointing goes on its own series.
        session::SweepPoint checkpointed{"batch_size", 64, 800.0, 0, "", 80.0, 60 << 20};
        checkpointed.checkpointEvery = 2;
        view.addSweepPoint(checkpointed);
        QCOMPARE(view.checkpointedSweepPoints(), 1);
        QCOMPARE(view.sweepPoints(), 2);

        view.setInference(true);
        QCOMPARE(view.labTable()->horizontalHeaderItem(2)->text(), QStringLiteral("latency"));
        for (int i = 0; i < 100; ++i)
            view.addStep({i, 0.1, 0.05, i < 90 ? 2.0 : i < 98 ? 10.0 : 40.0, 0, 0, 0});
        const QString latency = view.latencyText();
        QVERIFY2(latency.contains(QStringLiteral("100 batches")) &&
                     latency.contains(QStringLiteral("p50 2.00 ms")) &&
                     latency.contains(QStringLiteral("p95 10.0 ms")) &&
                     latency.contains(QStringLiteral("p99 40.0 ms")),
                 qPrintable(latency));
    }

    // A long run's live view holds what a screen can show: its bars and curves stop growing
    // (a redraw's cost with them: bench_live_view), a slow step and a memory spike stay as
    // measured, and once nothing arrives the view does not wake.
    void aLongRunsLiveViewHoldsWhatAScreenShows()
    {
        widgets::LiveRunView view(QStringLiteral("long"));
        view.setScriptRun(QStringLiteral("python train.py"), QString());
        view.resize(1366, 768);
        view.show();
        constexpr int kSteps = 20000, kSlow = 12345;
        for (int i = 0; i < kSteps; ++i) {
            session::StepTiming step;
            step.step = 8 + i;
            step.dataMs = 1.0;
            step.forwardMs = 10.0 + (i % 3);
            step.backwardMs = i == kSlow ? 400.0 : 20.0;
            step.optimizerMs = 2.0;
            view.addStep(step);
        }
        constexpr int kSamples = 200000;
        for (int i = 0; i < kSamples; ++i) {
            session::LiveSample sample;
            sample.seconds = i / 20.0;
            sample.cpuPercent = 40.0 + (i % 50);
            sample.residentBytes = (i == 150001 ? 9LL : 2LL) << 30;
            view.addSample(sample);
        }
        QVERIFY2(view.stepBars() <= 2048 && view.stepBars() >= 1024,
                 QByteArray::number(view.stepBars()));
        QCOMPARE(view.sampleCount(), kSamples);
        double tallest = 0;
        int mostPoints = 0;
        double highestResident = 0;
        for (QCustomPlot* plot : view.findChildren<QCustomPlot*>()) {
            std::map<double, double> stacked;  // bar key -> its phases' total
            for (int i = 0; i < plot->plottableCount(); ++i)
                if (auto* bars = qobject_cast<QCPBars*>(plot->plottable(i)))
                    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
                        stacked[it->key] += it->value;
            for (const auto& [key, total] : stacked)
                tallest = std::max(tallest, total);
            for (int g = 0; g < plot->graphCount(); ++g) {
                mostPoints = std::max(mostPoints, plot->graph(g)->dataCount());
                if (plot->graph(g)->name() == QStringLiteral("host resident"))
                    for (auto it = plot->graph(g)->data()->constBegin();
                         it != plot->graph(g)->data()->constEnd(); ++it)
                        highestResident = std::max(highestResident, it->value);
                if (plot->graph(g)->name() == QStringLiteral("CPU")) {
                    // Thinned alike over the whole run (not the oldest most), its envelope kept.
                    int firstTenth = 0;
                    double lowest = 100, highest = 0;
                    for (auto it = plot->graph(g)->data()->constBegin();
                         it != plot->graph(g)->data()->constEnd(); ++it) {
                        firstTenth += it->key < kSamples / 20.0 / 10 ? 1 : 0;
                        lowest = std::min(lowest, it->value);
                        highest = std::max(highest, it->value);
                    }
                    QVERIFY2(firstTenth * 10 >= plot->graph(g)->dataCount() / 2,
                             QByteArray::number(firstTenth));
                    QCOMPARE(lowest, 40.0);
                    QCOMPARE(highest, 89.0);
                }
            }
        }
        QCOMPARE(tallest, 1.0 + 10.0 + (kSlow % 3) + 400.0 + 2.0);  // the slow step, whole
        QVERIFY2(mostPoints <= 4096, QByteArray::number(mostPoints));
        QCOMPARE(highestResident, 9.0);  // GiB: the spike
        QTest::qWait(250);               // the last redraw
        for (const QTimer* timer : view.findChildren<QTimer*>())
            QVERIFY2(!timer->isActive(), qPrintable(timer->objectName()));
    }

    // The engine is a child process: SIGKILL in the middle of a run leaves the app and
    // its open documents alone, says what happened in one line, and keeps the steps
    // measured before it in the session.
    void anEngineKilledMidRunLeavesTheAppAndItsSteps()
    {
        if (!gui::MainWindow::labAvailable())
            QSKIP("built without the engine");
        gui::MainWindow window;
        QSignalSpy idle(&window, &gui::MainWindow::idle);
        window.openFiles(
            {QString::fromStdString(test::sharedTrace("hta/sampled_rank0.json.gz").string())});
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 60'000);
        QCOMPARE(window.documentCount(), 1);
        QTemporaryDir dir;
        const lab::RunConfig c = longRun(dir);
        QSignalSpy finished(&window, &gui::MainWindow::labFinished);
        widgets::LiveRunView* live = window.startLab(c);
        QTRY_VERIFY_WITH_TIMEOUT(live->stepBars() >= 3, 60'000);
        auto* run = live->findChild<gui::LabRun*>();
        QVERIFY(run && run->enginePid() > 0);
        QCOMPARE(::kill(run->enginePid(), SIGKILL), 0);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30'000);
        QVERIFY(!finished.at(0).at(0).toBool());
        const QString error = finished.at(0).at(1).toString();
        QVERIFY2(error.contains(QStringLiteral("killed by SIGKILL in the fp32 arm at step")),
                 qPrintable(error));
        QVERIFY(!error.contains(QLatin1Char('\n')));
        QVERIFY(live->statusText().contains(QStringLiteral("SIGKILL")));
        QVERIFY(!live->isRunning());
        // The app goes on, with its document; the session holds the steps shown live.
        QCOMPARE(window.documentCount(), 2);
        QVERIFY(window.document(0)->trace().model);
        std::string loadError;
        const auto saved =
            session::loadSession(finished.at(0).at(2).toString().toStdString(), loadError);
        QVERIFY2(saved, loadError.c_str());
        QVERIFY(saved->steps.size() >= 3);
        QVERIFY(saved->interrupted.find("SIGKILL") != std::string::npos);
    }

    void closingARunningLabCancelsIt()
    {
        if (!gui::MainWindow::labAvailable())
            QSKIP("built without the engine");
        QTemporaryDir dir;
        const lab::RunConfig c = longRun(dir);
        QElapsedTimer clock;
        clock.start();
        {
            gui::MainWindow window;
            widgets::LiveRunView* live = window.startLab(c);
            QTRY_VERIFY_WITH_TIMEOUT(live->stepBars() > 3, 60'000);
        }  // the window, the tab and the run go: the run is cancelled, its thread joined
        QVERIFY(clock.elapsed() < 60'000);
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
