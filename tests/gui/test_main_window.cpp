// The main window: documents open off the GUI thread; a bad file is reported in one line
// and leaves the open documents alone; closing a document returns to the start page.
#include "app/gui/lab_run.h"
#include "app/gui/main_window.h"
#include "app/gui/start_page.h"
#include "core/session/session.h"
#include "tests/support/small_lab_run.h"
#include "tests/support/test_support.h"
#include "widgets/document_view.h"
#include "widgets/findings_view.h"
#include "widgets/live_run_view.h"

#include <QSignalSpy>
#include <QTableWidget>
#include <QStandardPaths>
#include <QtTest>

#include <csignal>

using namespace kinetoscope;

namespace {

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
        window.openFiles({QString::fromStdString(test::sharedTrace("hta/sampled_rank0.json.gz").string()), bad,
                          QStringLiteral("/no/such/trace.json")});
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 60'000);
        QCOMPARE(window.documentCount(), 1);
        QCOMPARE(failed.count(), 2);
        QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("not a trace")));
        QVERIFY(!failed.at(1).at(0).toString().contains(QLatin1Char('\n')));
        QVERIFY(window.startPage()->errorText().contains(QStringLiteral("no such file")));
        QVERIFY(window.document(0)->trace().model);
        QCOMPARE(window.document(0)->findings()->findingCount() > 0, true);
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
        QCOMPARE(live->sweepPoints(), 2);
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

    // The engine is a child process: SIGKILL in the middle of a run leaves the app and
    // its open documents alone, says what happened in one line, and keeps the steps
    // measured before it in the session.
    void anEngineKilledMidRunLeavesTheAppAndItsSteps()
    {
        if (!gui::MainWindow::labAvailable())
            QSKIP("built without the engine");
        gui::MainWindow window;
        QSignalSpy idle(&window, &gui::MainWindow::idle);
        window.openFiles({QString::fromStdString(test::sharedTrace("hta/sampled_rank0.json.gz").string())});
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
        QVERIFY2(error.contains(QStringLiteral("killed by SIGKILL in the fp32 arm at step")), qPrintable(error));
        QVERIFY(!error.contains(QLatin1Char('\n')));
        QVERIFY(live->statusText().contains(QStringLiteral("SIGKILL")));
        QVERIFY(!live->isRunning());
        // The app goes on, with its document; the session holds the steps shown live.
        QCOMPARE(window.documentCount(), 2);
        QVERIFY(window.document(0)->trace().model);
        std::string loadError;
        const auto saved = session::loadSession(finished.at(0).at(2).toString().toStdString(), loadError);
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
