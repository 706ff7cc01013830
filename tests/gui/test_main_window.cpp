// The main window: documents open off the GUI thread; a bad file is reported in one line
// and leaves the open documents alone; closing a document returns to the start page.
#include "app/gui/main_window.h"
#include "app/gui/start_page.h"
#include "tests/support/test_support.h"
#include "widgets/document_view.h"
#include "widgets/findings_view.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

using namespace kinetoscope;

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);  // QSettings away from the user's
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
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
