// Every view fits a laptop's screen (issue 50): on a 1366x768 screen the window opens
// inside it and no page of any document (a trace, a lab session with or without its trace,
// a comparison, a job) makes it wider or taller than the screen; a comparison's two
// timelines are both in view over one whole details pane; at 1280 px the Operators
// table shows each op's name, calls, host and device time without scrolling; the Diagnosis
// list shows each finding's severity and its whole title. Tab goes through every page in
// reading order and shows where it is.
//
// The test runs on an offscreen screen of 1366x768 (set up in main, before the application).
#ifndef Q_MOC_RUN
#include "app/gui/main_window.h"
#include "app/gui/profile_dialog.h"
#include "tests/support/laptop_screen.h"
#include "tests/support/test_support.h"
#include "widgets/compare_view.h"
#include "widgets/document_view.h"
#include "widgets/findings_view.h"
#include "widgets/job_view.h"
#include "widgets/live_run_view.h"
#include "widgets/session_view.h"
#include "widgets/table_models.h"
#include "widgets/table_view.h"
#include "widgets/timeline/stacked_timelines.h"
#include "widgets/timeline/timeline_details.h"
#include "widgets/timeline/timeline_overview.h"
#include "widgets/timeline/timeline_page.h"
#include "widgets/timeline/timeline_view.h"
#endif

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace kinetoscope;

namespace {

constexpr QSize kScreen(1366, 768);

QString sharedFile(const char* relative)
{
    return QString::fromStdString(test::sharedTrace(relative).string());
}

QString sourceFile(const char* relative)
{
    return QStringLiteral(KINETOSCOPE_SOURCE_DIR "/") + QLatin1String(relative);
}

// The deepest widgets under `root` that ask for more than `limit` (width or height): what
// forces the window past the screen, named for the failure message.
QStringList tooLarge(QWidget* root, QSize limit)
{
    QStringList found;
    const auto asks = [&](const QWidget* w) {
        const QSize m = w->minimumSize().expandedTo(w->minimumSizeHint());
        return m.width() > limit.width() || m.height() > limit.height();
    };
    for (QWidget* w : root->findChildren<QWidget*>()) {
        if (!asks(w))
            continue;
        bool deepest = true;
        for (const QWidget* child : w->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
            deepest &= !asks(child);
        if (!deepest)
            continue;
        const QSize m = w->minimumSize().expandedTo(w->minimumSizeHint());
        QString what = QString::fromLatin1(w->metaObject()->className());
        if (const auto* label = qobject_cast<const QLabel*>(w))
            what += QStringLiteral(" \"%1\"").arg(label->text().left(60));
        found << QStringLiteral("%1 (%2x%3)").arg(what).arg(m.width()).arg(m.height());
    }
    return found;
}

// The window inside the screen, and nothing in it asking for more.
void checkFits(gui::MainWindow& window, const QString& where)
{
    // The layout requests go up one level an event: the window's size settles after a few.
    QTest::qWait(50);
    const QRect screen = window.screen()->availableGeometry();
    const QSize frame = window.frameGeometry().size() - window.geometry().size();
    const QSize room = screen.size() - frame;
    // The window sizes itself to the screen's available room; its minimum must also fit a
    // real laptop's, where a desktop keeps some of the 768 px: a panel or taskbar (about 40)
    // and the window's title bar (about 30; the offscreen screen has neither).
    const QSize laptopRoom = room.boundedTo(kScreen - QSize(0, 40 + 30));
    const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(minimum.width() <= laptopRoom.width() && minimum.height() <= laptopRoom.height() &&
                 window.width() <= room.width() && window.height() <= room.height(),
             qPrintable(QStringLiteral("%1: window %2x%3, at least %4x%5, on %6x%7: %8")
                            .arg(where)
                            .arg(window.width())
                            .arg(window.height())
                            .arg(minimum.width())
                            .arg(minimum.height())
                            .arg(laptopRoom.width())
                            .arg(laptopRoom.height())
                            .arg(tooLarge(&window, laptopRoom).join(QStringLiteral("; ")))));
}

// Shows the window and opens one document of the kind ("trace", "session", "compare", "job"),
// waiting for both; null when either does not come.
QWidget* openDocument(gui::MainWindow& window, const QString& kind, const QStringList& paths)
{
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return nullptr;
    const auto waitFor = [](QSignalSpy& spy) {
        return QTest::qWaitFor([&] { return spy.count() == 1; }, 120'000);
    };
    if (kind == QLatin1String("trace")) {
        QSignalSpy spy(&window, &gui::MainWindow::documentOpened);
        window.openFiles(paths);
        return waitFor(spy) ? spy.at(0).at(0).value<widgets::DocumentView*>() : nullptr;
    }
    if (kind == QLatin1String("session")) {
        QSignalSpy spy(&window, &gui::MainWindow::sessionOpened);
        window.openFiles(paths);
        return waitFor(spy) ? spy.at(0).at(0).value<widgets::SessionView*>() : nullptr;
    }
    if (kind == QLatin1String("compare")) {
        QSignalSpy spy(&window, &gui::MainWindow::comparisonOpened);
        window.compareFiles(paths.at(0), paths.at(1));
        return waitFor(spy) ? spy.at(0).at(0).value<widgets::CompareView*>() : nullptr;
    }
    QSignalSpy spy(&window, &gui::MainWindow::jobOpened);
    window.openJob(paths);
    return waitFor(spy) ? spy.at(0).at(0).value<widgets::JobView*>() : nullptr;
}

// From the page's tab, Tab through the page until the window's own tabs (the documents')
// have the focus.
void checkTabWalk(gui::MainWindow& window, QTabWidget* pages, const QString& where)
{
    QTest::qWait(50);
    pages->tabBar()->setFocus(Qt::TabFocusReason);
    struct Stop
    {
        QWidget* widget;
        QRect rect;  // in the window
    };
    std::vector<Stop> stops;
    constexpr int kMostStops = 40;
    for (int press = 0; press <= kMostStops; ++press) {
        QWidget* from = QApplication::focusWidget();
        QVERIFY2(from, qPrintable(where + QStringLiteral(": nothing has the focus")));
        QTest::keyClick(from, Qt::Key_Tab);
        QWidget* at = QApplication::focusWidget();
        QVERIFY2(at && at != from,
                 qPrintable(QStringLiteral("%1: Tab stays in a %2")
                                .arg(where, QLatin1String(from->metaObject()->className()))));
        if (qobject_cast<QTabBar*>(at) && !pages->isAncestorOf(at))
            return;  // the documents' tabs: round the page and out
        const QString name = where + QStringLiteral(": a %1 at (%2, %3)")
                                         .arg(QLatin1String(at->metaObject()->className()))
                                         .arg(at->mapTo(&window, QPoint(0, 0)).x())
                                         .arg(at->mapTo(&window, QPoint(0, 0)).y());
        QVERIFY2(!at->visibleRegion().isEmpty(), qPrintable(name + QStringLiteral(" not in view")));
        const QImage focused = window.grab().toImage();
        at->clearFocus();
        const QImage unfocused = window.grab().toImage();
        at->setFocus(Qt::TabFocusReason);
        QVERIFY2(focused != unfocused, qPrintable(name + QStringLiteral(" shows no focus")));
        const Stop stop{at, QRect(at->mapTo(&window, QPoint(0, 0)), at->size())};
        // A control (a line's height) after another stop: not above it, and right of it in
        // a row. Views may come in any order (a timeline's details before the next one).
        constexpr int kControlHeight = 40;
        if (stop.rect.height() < kControlHeight)
            for (const Stop& before : stops) {
                const bool above = stop.rect.bottom() < before.rect.top();
                const bool leftInRow = stop.rect.top() <= before.rect.bottom() &&
                                       before.rect.top() <= stop.rect.bottom() &&
                                       stop.rect.left() < before.rect.left();
                QVERIFY2(!above && !leftInRow,
                         qPrintable(name + QStringLiteral(" comes after a %1 at (%2, %3)")
                                               .arg(QLatin1String(
                                                   before.widget->metaObject()->className()))
                                               .arg(before.rect.x())
                                               .arg(before.rect.y())));
            }
        stops.push_back(stop);
    }
    QFAIL(qPrintable(where + QStringLiteral(": Tab does not leave the page")));
}

// Every page of every tabbed view in the window's current document, each shown in turn.
void checkEveryPageFits(gui::MainWindow& window, QWidget* document)
{
    checkFits(window, QStringLiteral("opened"));
    if (QTest::currentTestFailed())
        return;
    for (QTabWidget* tabs : document->findChildren<QTabWidget*>()) {
        for (int page = 0; page < tabs->count(); ++page) {
            tabs->setCurrentIndex(page);
            checkFits(window, tabs->tabText(page).remove(QLatin1Char('&')));
            if (QTest::currentTestFailed())
                return;
        }
    }
    if (auto* tabs = qobject_cast<QTabWidget*>(document))
        for (int page = 0; page < tabs->count(); ++page) {
            tabs->setCurrentIndex(page);
            checkFits(window, tabs->tabText(page).remove(QLatin1Char('&')));
            if (QTest::currentTestFailed())
                return;
        }
}

}  // namespace

class TestLaptopScreen : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);  // QSettings away from the user's
        QSettings().remove(QStringLiteral("geometry"));
        QSettings().remove(QStringLiteral("windowState"));
        QCOMPARE(QGuiApplication::primaryScreen()->availableGeometry().size(), kScreen);
        qRegisterMetaType<widgets::DocumentView*>("widgets::DocumentView*");
        qRegisterMetaType<widgets::SessionView*>("widgets::SessionView*");
        qRegisterMetaType<widgets::CompareView*>("widgets::CompareView*");
        qRegisterMetaType<widgets::JobView*>("widgets::JobView*");
    }

    void cleanup() { QSettings().remove(QStringLiteral("geometry")); }

    // The window as it first opens (nothing saved): inside the screen, before it is shown.
    void theDefaultWindowFitsTheScreen()
    {
        gui::MainWindow window;
        QVERIFY2(window.width() <= kScreen.width() && window.height() <= kScreen.height(),
                 qPrintable(QStringLiteral("%1x%2").arg(window.width()).arg(window.height())));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        checkFits(window, QStringLiteral("the start page"));
    }

    void everyPageFitsTheScreen_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QStringList>("paths");
        QTest::newRow("the sample") << QStringLiteral("trace")
                                    << QStringList{sourceFile("resources/sample.pt.trace.json.gz")};
        QTest::newRow("resnet50 workers4")
            << QStringLiteral("trace")
            << QStringList{sharedFile("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz")};
        QTest::newRow("roofline on an MI300X")
            << QStringLiteral("trace")
            << QStringList{sharedFile("tracelens/rocm_mi300_resnet_act_checkpoint.json.gz")};
        QTest::newRow("lab session with its trace")
            << QStringLiteral("trace")
            << QStringList{sourceFile("tests/data/h100_runs/starved/session.kinetoscope.json")};
        QTest::newRow("lab session without a trace")
            << QStringLiteral("session")
            << QStringList{sourceFile("tests/data/h100_runs/checkpoint/session.kinetoscope.json")};
        QTest::newRow("compare workers 0 and 4")
            << QStringLiteral("compare")
            << QStringList{sharedFile("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"),
                           sharedFile("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz")};
        QTest::newRow("job") << QStringLiteral("job")
                             << QStringList{sourceFile("tests/data/ddp_gloo_4ranks")};
    }

    void everyPageFitsTheScreen()
    {
        QFETCH(QString, kind);
        QFETCH(QStringList, paths);
        gui::MainWindow window;
        QWidget* opened = openDocument(window, kind, paths);
        QVERIFY(opened);
        QVERIFY2(window.problems().isEmpty(),
                 qPrintable(window.problems().join(QLatin1Char('\n'))));
        checkEveryPageFits(window, opened);
    }

    // The keyboard: on every page, Tab goes through the page's controls and back to the
    // window's tabs (never round a table's cells: the arrows move in a table), each control
    // in a row left to right and the controls above a view before it, and the one it lands
    // on shows it (the window's pixels change), also a text browser, a scroll area and the
    // timeline, for which the style draws no focus.
    void tabVisitsEveryControlAndShowsWhereItIs_data() { everyPageFitsTheScreen_data(); }

    void tabVisitsEveryControlAndShowsWhereItIs()
    {
        QFETCH(QString, kind);
        QFETCH(QStringList, paths);
        gui::MainWindow window;
        QWidget* opened = openDocument(window, kind, paths);
        QVERIFY(opened);
        auto* pages = qobject_cast<QTabWidget*>(opened);
        if (!pages)
            pages = opened->findChild<QTabWidget*>();
        QVERIFY(pages);
        for (int page = 0; page < pages->count(); ++page) {
            pages->setCurrentIndex(page);
            checkTabWalk(window, pages, pages->tabText(page).remove(QLatin1Char('&')));
            if (QTest::currentTestFailed())
                return;
        }
    }

    // A file that cannot be opened, its path hundreds of characters long: told in the status
    // bar (cut, whole in its tooltip) and in the problems bar (wrapped), its Dismiss in reach.
    void aLongProblemKeepsTheWindowOnTheScreen()
    {
        gui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy failed(&window, &gui::MainWindow::loadFailed);
        window.openFiles({QStringLiteral("/no/such/folder/") +
                          QStringLiteral("a_trace_with_a_very_long_name_").repeated(12) +
                          QStringLiteral(".pt.trace.json")});
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30'000);
        QVERIFY(window.problems().size() == 1 && window.problems().front().size() > 300);
        checkFits(window, QStringLiteral("a long problem"));
        const auto* dismiss = window.findChild<QPushButton*>();
        for (const QPushButton* button : window.findChildren<QPushButton*>())
            if (button->text() == QLatin1String("Dismiss"))
                dismiss = button;
        QVERIFY(dismiss && dismiss->isVisible());
        const QRect onWindow(dismiss->mapTo(&window, QPoint(0, 0)), dismiss->size());
        QVERIFY(window.rect().contains(onWindow));
    }

    // File > Profile a script…: the dialog opens inside the screen with its Profile button in
    // reach, even with a script's path and a problem line wider than the screen.
    void theProfileDialogFitsTheScreen()
    {
        gui::ProfileDialog dialog;
        dialog.findChild<QLineEdit*>(QStringLiteral("script"))
            ->setText(QStringLiteral("/no/such/folder/") +
                      QStringLiteral("a_script_with_a_very_long_name_").repeated(8) +
                      QStringLiteral(".py"));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::qWait(50);
        QVERIFY(dialog.problem().size() > 200);
        const QSize room = dialog.screen()->availableGeometry().size();
        const QSize minimum = dialog.minimumSizeHint().expandedTo(dialog.minimumSize());
        QVERIFY2(minimum.width() <= room.width() && minimum.height() <= room.height() &&
                     dialog.width() <= room.width() && dialog.height() <= room.height(),
                 qPrintable(QStringLiteral("dialog %1x%2, at least %3x%4: %5")
                                .arg(dialog.width())
                                .arg(dialog.height())
                                .arg(minimum.width())
                                .arg(minimum.height())
                                .arg(tooLarge(&dialog, room).join(QStringLiteral("; ")))));
        for (const QPushButton* button : dialog.findChildren<QPushButton*>()) {
            const QRect onDialog(button->mapTo(&dialog, QPoint(0, 0)), button->size());
            QVERIFY2(dialog.rect().contains(onDialog), qPrintable(button->text()));
        }
    }

    // A profiled script's live view, its output file's path longer than the screen is wide:
    // the window stays inside the screen while it runs and once it has stopped.
    void aProfiledScriptsLiveViewFitsTheScreen()
    {
        QTemporaryDir dir;
        lab::ProfileConfig c;
        c.command = {"/bin/sh", "-c", "sleep 0.3; exit 3"};
        c.outDir = dir.filePath(QStringLiteral("a_folder_with_a_very_long_name_").repeated(7))
                       .toStdString();
        c.fromTerminal = false;
        gui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy finished(&window, &gui::MainWindow::profileFinished);
        widgets::LiveRunView* live = window.startProfile(c);
        QVERIFY(live->scriptText().size() > 250);
        checkFits(window, QStringLiteral("a script running"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30'000);
        QVERIFY(!live->statusText().isEmpty());
        checkFits(window, QStringLiteral("a script stopped"));
    }

    // Compare's two timelines on a 1280x720 laptop (the window less a panel and a title
    // bar): before above after, both in view without scrolling, each with its ruler and about seven
    // tracks, over one details pane that shows its lines whole, its timeline's heading saying so.
    void aComparisonsTimelinesShareOneWholeDetailsPane()
    {
        gui::MainWindow window;
        window.resize(1280, 720 - 40 - 30);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy spy(&window, &gui::MainWindow::comparisonOpened);
        window.compareFiles(sharedFile("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"),
                            sharedFile("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz"));
        QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 1, 120'000);
        auto* view = spy.at(0).at(0).value<widgets::CompareView*>();
        view->setCurrentIndex(widgets::CompareView::Timelines);
        QTest::qWait(50);
        widgets::StackedTimelines* stack = view->stackedTimelines();
        const QWidget* column = stack->findChild<QScrollArea*>()->viewport();
        const int rows = 10 * stack->fontMetrics().height();  // the ruler and about seven tracks
        for (widgets::TimelinePage* side : {view->beforeTimeline(), view->afterTimeline()}) {
            QWidget* tracks = side->view();
            const QRect inColumn(tracks->mapTo(column, QPoint(0, 0)), tracks->size());
            QVERIFY2(column->rect().contains(inColumn),
                     qPrintable(QStringLiteral("tracks at %1,%2 %3x%4 in a column of %5 px")
                                    .arg(inColumn.x())
                                    .arg(inColumn.y())
                                    .arg(inColumn.width())
                                    .arg(inColumn.height())
                                    .arg(column->height())));
            QVERIFY2(tracks->height() >= rows,
                     qPrintable(QStringLiteral("%1 px of tracks").arg(tracks->height())));
            QVERIFY(!side->isAncestorOf(side->details()));  // its pane is the stack's
        }
        // One pane: the first two lines of a range's totals whole, and whose they are.
        const auto panes = view->findChildren<widgets::TimelineDetails*>();
        QCOMPARE(std::count_if(panes.begin(), panes.end(),
                               [](const QWidget* p) { return p->isVisible(); }),
                 1);
        widgets::TimelineDetails* shown = view->beforeTimeline()->details();
        QVERIFY(shown->isVisible());
        QVERIFY2(shown->viewport()->height() >= 3 * shown->fontMetrics().lineSpacing(),
                 qPrintable(QString::number(shown->viewport()->height())));
        const auto captionSays = [stack](const QString& side) {
            const auto labels = stack->findChildren<QLabel*>();
            return std::any_of(labels.begin(), labels.end(), [&](const QLabel* l) {
                return l->isVisible() && l->text().startsWith(side) &&
                       l->text().contains(QStringLiteral("its details below"));
            });
        };
        QVERIFY(captionSays(QStringLiteral("<b>Before</b>")));
        // A click on the after side's tracks brings its details.
        QTest::mouseClick(view->afterTimeline()->view()->viewport(), Qt::LeftButton, {},
                          QPoint(5, 5));
        QCOMPARE(stack->detailsShown(), 1);
        QVERIFY(view->afterTimeline()->details()->isVisible() && !shown->isVisible());
        QVERIFY(captionSays(QStringLiteral("<b>After</b>")));
        // So does a click on the before side's overview strip (not only on its tracks).
        QTest::mouseClick(view->beforeTimeline()->overview(), Qt::LeftButton, {}, QPoint(5, 5));
        QCOMPARE(stack->detailsShown(), 0);
        // Each side shows a step as a range; a slice selected then is what the pane shows.
        QTRY_VERIFY(view->afterTimeline()->view()->range().has_value());
        widgets::TimelinePage* after = view->afterTimeline();
        QVERIFY(after->details()->toPlainText().startsWith(QStringLiteral("Range of")));
        QVERIFY(!after->index().model().events().empty());
        after->view()->select(trace::EventId{0}, false);
        QVERIFY(after->view()->range().has_value());
        QVERIFY2(!after->details()->toPlainText().startsWith(QStringLiteral("Range of")),
                 qPrintable(after->details()->toPlainText().left(80)));
        // A step only one side has says so (before has 6 steady steps here, after 5).
        QComboBox* steps = view->stepChooser();
        QCOMPARE(steps->itemText(steps->count() - 1), QStringLiteral("6 (after has 5)"));
        // Ctrl+F: the timelines' one search.
        QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
        QVERIFY(stack->searchField()->hasFocus());
    }

    // A lab session on a 1280x720 laptop (the window less a panel and a title bar): the Lab
    // page opens on the run's reading and its arms, whole, without scrolling; the plots
    // (the evidence) follow below.
    void aLabsReadingAndArmsAreReadWithoutScrolling()
    {
        gui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.resize(1280, 720 - 40 - 30);
        QSignalSpy spy(&window, &gui::MainWindow::documentOpened);
        window.openFiles({sourceFile("tests/data/h100_runs/cnn224/session.kinetoscope.json")});
        QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 1, 120'000);
        auto* doc = spy.at(0).at(0).value<widgets::DocumentView*>();
        QVERIFY(doc && doc->lab());
        doc->setCurrentIndex(widgets::DocumentView::Lab);
        QTest::qWait(50);
        const auto* reading = doc->lab()->findChild<QLabel*>(QStringLiteral("lab-reading"));
        QVERIFY(reading && reading->isVisible() &&
                reading->text().contains(QStringLiteral("fp32 -> bf16")));
        const auto* scroll = doc->lab()->findChild<QScrollArea*>();
        QVERIFY(scroll);
        QCOMPARE(scroll->verticalScrollBar()->value(), 0);
        const QRect seen = scroll->viewport()->rect();
        for (const QWidget* w : {static_cast<const QWidget*>(reading),
                                 static_cast<const QWidget*>(doc->lab()->labTable())}) {
            const QRect at(w->mapTo(scroll->viewport(), QPoint(0, 0)), w->size());
            QVERIFY2(seen.contains(at),
                     qPrintable(QStringLiteral("%1 at %2,%3 %4x%5, the page shows %6 px")
                                    .arg(QString::fromLatin1(w->metaObject()->className()))
                                    .arg(at.x())
                                    .arg(at.y())
                                    .arg(at.width())
                                    .arg(at.height())
                                    .arg(seen.height())));
        }
        // The arms' table is as tall as its rows: no blank band under the last, no row cut.
        const QTableWidget* arms = doc->lab()->labTable();
        QCOMPARE(arms->rowCount(), 3);
        QVERIFY(!arms->verticalScrollBar()->isVisible());
        const QRect last = arms->visualRect(arms->model()->index(2, 0));
        const QString where = QStringLiteral("last row at %1, viewport %2 high")
                                  .arg(last.bottom())
                                  .arg(arms->viewport()->height());
        QVERIFY2(arms->viewport()->rect().contains(last), qPrintable(where));
        QVERIFY2(arms->viewport()->height() - last.bottom() < last.height() / 2, qPrintable(where));
    }

    // At 1280 px the Operators table shows, for each op, its name, calls, host and device
    // time at once: no horizontal scrolling to reach them.
    void theOperatorsTableShowsHostAndDeviceTimeAt1280()
    {
        gui::MainWindow window;
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy spy(&window, &gui::MainWindow::documentOpened);
        window.openFiles({sharedFile("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz")});
        QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 1, 120'000);
        auto* doc = spy.at(0).at(0).value<widgets::DocumentView*>();
        doc->setCurrentIndex(widgets::DocumentView::Operators);
        QCoreApplication::processEvents();
        QCOMPARE(window.width(), 1280);
        QTableView* table = doc->operators()->table();
        QCOMPARE(table->horizontalScrollBar()->value(), 0);
        const QHeaderView* header = table->horizontalHeader();
        const int visible = table->viewport()->width();
        using Op = widgets::OpTableModel;
        for (const int column : {int(Op::Name), int(Op::Calls), int(Op::CpuTotal),
                                 int(Op::SelfDevice), int(Op::DeviceTotal)}) {
            const int left = header->sectionViewportPosition(column);
            const int right = left + header->sectionSize(column);
            QVERIFY2(
                left >= 0 && right <= visible,
                qPrintable(QStringLiteral("%1 at %2-%3 px of a %4 px table")
                               .arg(header->model()->headerData(column, Qt::Horizontal).toString())
                               .arg(left)
                               .arg(right)
                               .arg(visible)));
        }
        // The name column still shows a whole usual op name (aten::cudnn_convolution).
        QVERIFY(header->sectionSize(Op::Name) >=
                table->fontMetrics().horizontalAdvance(QStringLiteral("aten::cudnn_convolution")));
    }

    // The Diagnosis list: each finding's severity in words on its row, and its whole title
    // (wrapped to the list's width rather than cut at it).
    void theDiagnosisListShowsSeverityAndWholeTitles()
    {
        gui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy spy(&window, &gui::MainWindow::documentOpened);
        window.openFiles({sharedFile("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz")});
        QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 1, 120'000);
        auto* doc = spy.at(0).at(0).value<widgets::DocumentView*>();
        doc->setCurrentIndex(widgets::DocumentView::Diagnosis);
        QCoreApplication::processEvents();
        QListWidget* list = doc->findings()->list();
        const std::vector<analysis::Finding>& findings = doc->trace().findings;
        QVERIFY(findings.size() >= 3);
        QCOMPARE(list->count(), int(findings.size()));
        const QImage shown = list->viewport()->grab().toImage();
        const qreal scale = shown.devicePixelRatio();
        const QFontMetrics metrics(list->font());
        bool anyLong = false;
        for (int row = 0; row < list->count(); ++row) {
            const analysis::Finding& f = findings[size_t(row)];
            const QString title = QString::fromStdString(f.title);
            const QRect rect = list->visualRect(list->model()->index(row, 0));
            if (rect.bottom() >= list->viewport()->height())
                break;  // scrolled out of sight
            // Its whole title: the row is inside the list's width, and has the lines the
            // title takes at that width.
            QVERIFY2(rect.left() >= 0 && rect.right() < list->viewport()->width(),
                     qPrintable(title));
            const int wide = metrics.horizontalAdvance(title);
            anyLong |= wide > rect.width();
            const int lines = std::max(1, rect.height() / metrics.lineSpacing());
            QVERIFY2(qint64(lines) * rect.width() >= wide,
                     qPrintable(QStringLiteral("\"%1\" (%2 px) on %3 line(s) of %4 px")
                                    .arg(title)
                                    .arg(wide)
                                    .arg(lines)
                                    .arg(rect.width())));
            // Its severity in words for whoever reads the row (a screen reader too), and in
            // its colour as a badge: a solid run of the severity's colour, not just its text.
            const QString severity = QString::fromLatin1(analysis::severityName(f.severity));
            QVERIFY2(list->item(row)
                         ->data(Qt::AccessibleTextRole)
                         .toString()
                         .contains(severity, Qt::CaseInsensitive),
                     qPrintable(title));
            const QColor colour = list->item(row)->foreground().color();
            int longestRun = 0;
            for (int y = int(rect.top() * scale); y <= int(rect.bottom() * scale); ++y) {
                int run = 0;
                for (int x = int(rect.left() * scale); x <= int(rect.right() * scale); ++x) {
                    run = shown.pixelColor(x, y).rgb() == colour.rgb() ? run + 1 : 0;
                    longestRun = std::max(longestRun, run);
                }
            }
            QVERIFY2(longestRun >= int(24 * scale),
                     qPrintable(QStringLiteral("%1: no %2 badge").arg(title, severity)));
        }
        QVERIFY(anyLong);  // some title is wider than the list: it wraps
    }
};

int main(int argc, char** argv)
{
    QTEST_SET_MAIN_SOURCE_PATH
    return kinetoscope::test::runOnLaptopScreen<TestLaptopScreen>(argc, argv, QSize(1366, 768));
}

#include "test_laptop_screen.moc"
