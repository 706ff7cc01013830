// The Job document in the app: a folder of ranks opened as one job (PARAM's DLRM, 8
// ranks), its overview (one row per rank, the job's findings), the rank x step heatmap,
// the collectives matched across ranks, the exported report, every rank's timeline
// stacked on one step, a rank's own pages on a double-click, and a folder that cannot be
// read (one line; the open documents stay). A job read from its ranks' digests: a rank's
// trace read when its pages are asked for, the Timelines page offering to read them all.
#ifndef Q_MOC_RUN
#include "app/cli/job_report.h"
#include "app/gui/job_export.h"
#include "app/gui/main_window.h"
#include "core/job/digest.h"
#include "tests/support/image_checks.h"
#include "tests/support/test_support.h"
#include "widgets/document_view.h"
#include "widgets/job_view.h"
#include "widgets/timeline/stacked_timelines.h"
#include "widgets/timeline/timeline_details.h"
#include "widgets/timeline/timeline_page.h"
#include "widgets/timeline/timeline_view.h"
#endif

#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <qcustomplot.h>

using namespace kinetoscope;

class TestJobWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qRegisterMetaType<widgets::JobView*>("widgets::JobView*");
        qRegisterMetaType<widgets::DocumentView*>("widgets::DocumentView*");
    }

    void opensAFolderOfRanksAsAJob()
    {
        gui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy opened(&window, &gui::MainWindow::jobOpened);
        window.openJob({QString::fromStdString(test::sharedTrace("param/dlrm_8_ranks").string())});
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 120'000);
        QCOMPARE(window.documentCount(), 1);  // one tab
        QVERIFY(!window.document(0));         // and not a single trace's document
        auto* view = opened.at(0).at(0).value<widgets::JobView*>();
        QVERIFY(view);
        QCOMPARE(view->job().ranks.size(), size_t{8});
        QVERIFY(view->title().contains(QStringLiteral("8 ranks")));
        QCOMPARE(view->ranksTable()->rowCount(), 8);
        QCOMPARE(view->ranksTable()->item(5, 0)->text(), QStringLiteral("5"));
        QVERIFY(view->headline()->text().contains(QStringLiteral("No single straggler")));

        // The heatmap: one cell per rank and common step, in ms.
        view->setCurrentIndex(widgets::JobView::Heatmap);
        QCOMPARE(view->heatmap()->data()->keySize(), int(view->job().commonSteps.size()));
        QCOMPARE(view->heatmap()->data()->valueSize(), 8);
        const double rank5 = view->heatmap()->data()->cell(0, 5);
        QVERIFY(std::fabs(rank5 - view->job().meanStepNs.at(5) / 1e6) < 1e-6);
        // Each cell's value readable on its colour: white on the dark cells, black on the light.
        int dark = 0, light = 0;
        for (int i = 0; i < view->heatmap()->parentPlot()->itemCount(); ++i)
            if (auto* label = qobject_cast<QCPItemText*>(view->heatmap()->parentPlot()->item(i))) {
                const double ms = view->heatmap()->data()->cell(int(label->position->key()),
                                                                int(label->position->value()));
                const QColor cell = QColor::fromRgb(
                    view->heatmap()->gradient().color(ms, view->heatmap()->dataRange(), false));
                const bool darkCell = cell.lightnessF() < 0.5;
                QCOMPARE(label->color(), darkCell ? QColor(Qt::white) : QColor(Qt::black));
                (darkCell ? dark : light) += 1;
            }
        QVERIFY(dark > 0 && light > 0);  // this job's ranks go from 12.5 ms to 18.7 ms
        view->showMetric(widgets::JobView::Metric::OwnWork);
        QVERIFY(std::fabs(view->heatmap()->data()->cell(0, 5) - view->job().meanOwnNs.at(5) / 1e6) <
                1e-6);

        // Collectives: every one matched across the eight ranks, one column per rank.
        QCOMPARE(view->collectivesTable()->rowCount(), int(view->job().collectives.matched.size()));
        QVERIFY(view->collectivesTable()->rowCount() > 0);
        QCOMPARE(view->collectivesTable()->columnCount(), 8 + 8);

        // The export: the CLI's job Markdown, with the heatmap as drawn laid out below it.
        QTemporaryDir dir;
        const QString md = dir.path() + QStringLiteral("/job.md"),
                      png = dir.path() + QStringLiteral("/job.png");
        QVERIFY(gui::writeJobReport(*view, md));
        QFile mdFile(md);
        QVERIFY(mdFile.open(QIODevice::ReadOnly));
        QCOMPARE(mdFile.readAll().toStdString(),
                 cli::jobReportMarkdown(view->job(), view->findings(), "dlrm_8_ranks"));
        QVERIFY(gui::writeJobReport(*view, png));
        const QImage page(png);
        QVERIFY(page.height() > page.width());  // the text, the tables and the heatmap
        QVERIFY(test::distinctColours(page) > 50);
        QString error;
        QVERIFY(!gui::writeJobReport(*view, dir.path() + QStringLiteral("/job.docx"), &error));
        QVERIFY(error.contains(QStringLiteral(".docx")));

        // Timelines: built when shown, one per rank.
        QVERIFY(view->timelines().empty());
        view->setCurrentIndex(widgets::JobView::Timelines);
        QCOMPARE(view->timelines().size(), size_t{8});
        QTRY_VERIFY(view->timelines()[3]->view()->range().has_value());
        const auto shown = *view->timelines()[3]->view()->range();
        QVERIFY(shown.second > shown.first);
        // One bar for the job: each rank's own is hidden, its tracks keep about ten rows.
        for (widgets::TimelinePage* rank : view->timelines()) {
            QVERIFY(!rank->toolbar()->isVisible());
            QVERIFY2(rank->view()->height() >= 200,
                     qPrintable(QString::number(rank->view()->height())));
        }
        // One details pane under the ranks: rank 0's first, then the rank clicked.
        widgets::StackedTimelines* stack = view->stackedTimelines();
        QCOMPARE(stack->detailsShown(), 0);
        for (widgets::TimelinePage* rank : view->timelines())
            QVERIFY(!rank->isAncestorOf(rank->details()) && stack->isAncestorOf(rank->details()));
        QTest::mouseClick(view->timelines()[3]->view()->viewport(), Qt::LeftButton, {},
                          QPoint(5, 5));
        QCOMPARE(stack->detailsShown(), 3);
        QVERIFY(view->timelines()[3]->details()->isVisible());
        QVERIFY(!view->timelines()[0]->details()->isVisible());
        // Its search outlines every rank's matches; Enter selects each rank's next one.
        view->searchField()->setFocus();
        QTest::keyClicks(view->searchField(), QStringLiteral("ProfilerStep"));
        QTest::keyClick(view->searchField(), Qt::Key_Return);
        for (widgets::TimelinePage* rank : view->timelines()) {
            QVERIFY(!rank->matches().empty());
            QVERIFY(std::find(rank->matches().begin(), rank->matches().end(),
                              rank->view()->selected()) != rank->matches().end());
        }
        const auto labels = view->findChildren<QLabel*>();
        QVERIFY(std::any_of(labels.begin(), labels.end(), [](const QLabel* l) {
            return l->text().endsWith(QStringLiteral("matches on 8 of 8 ranks"));
        }));

        // A rank's own pages: a document tab for its trace, already read.
        QSignalSpy asked(view, &widgets::JobView::rankRequested);
        view->setCurrentIndex(widgets::JobView::Overview);
        const QPoint row2 =
            view->ranksTable()->visualItemRect(view->ranksTable()->item(2, 1)).center();
        QVERIFY(view->ranksTable()->viewport()->rect().contains(row2));
        QTest::mouseClick(view->ranksTable()->viewport(), Qt::LeftButton, {}, row2);
        QTest::mouseDClick(view->ranksTable()->viewport(), Qt::LeftButton, {}, row2);
        QCOMPARE(asked.count(), 1);
        QCOMPARE(window.documentCount(), 2);
        QVERIFY(window.document(1));
        QCOMPARE(window.document(1)->sharedTrace(), view->job().ranks[2].doc);

        // A folder that is not a job: one line, the tabs stay.
        QSignalSpy failed(&window, &gui::MainWindow::loadFailed);
        window.openJob({QStringLiteral("/no/such/folder")});
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30'000);
        const QString message = failed.at(0).at(0).toString();
        QVERIFY(message.contains(QStringLiteral("/no/such/folder")));
        QVERIFY(!message.contains(QLatin1Char('\n')));
        QCOMPARE(window.documentCount(), 2);
    }

    void opensAJobFromItsDigests()
    {
        QTemporaryDir dir;
        std::vector<std::string> files;
        for (const auto& entry : std::filesystem::directory_iterator(
                 std::filesystem::path(KINETOSCOPE_SOURCE_DIR) / "tests/data/ddp_gloo_4ranks")) {
            const auto copy =
                std::filesystem::path(dir.path().toStdString()) / entry.path().filename();
            std::filesystem::copy_file(entry.path(), copy);
            std::string error;
            QVERIFY2(job::writeRankDigest(copy.string(), error, 1), error.c_str());
            files.push_back(copy.string());
        }
        gui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy opened(&window, &gui::MainWindow::jobOpened);
        window.openJob({dir.path()});
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 120'000);
        auto* view = opened.at(0).at(0).value<widgets::JobView*>();
        QCOMPARE(view->job().ranksFromDigests, size_t{4});
        QVERIFY(!view->hasEveryDocument());
        QCOMPARE(view->job().straggler, std::optional<int>(2));
        QVERIFY(view->ranksTable()->item(2, 0)->toolTip().contains(QStringLiteral("digest")));

        // A rank's own pages: its trace read now, as a file opened.
        QSignalSpy documents(&window, &gui::MainWindow::documentOpened);
        const QPoint row2 =
            view->ranksTable()->visualItemRect(view->ranksTable()->item(2, 1)).center();
        QTest::mouseClick(view->ranksTable()->viewport(), Qt::LeftButton, {}, row2);
        QTest::mouseDClick(view->ranksTable()->viewport(), Qt::LeftButton, {}, row2);
        QTRY_COMPARE_WITH_TIMEOUT(documents.count(), 1, 60'000);
        QCOMPARE(window.documentCount(), 2);
        QCOMPARE(window.document(1)->trace().path, view->job().ranks[2].path);

        // Timelines need the traces: none drawn, a button to read them, a job from the traces.
        view->setCurrentIndex(widgets::JobView::Timelines);
        QVERIFY(view->timelines().empty());
        QVERIFY(view->readTracesButton());
        view->readTracesButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 2, 120'000);
        auto* fromTraces = opened.at(1).at(0).value<widgets::JobView*>();
        QCOMPARE(fromTraces->job().ranksFromDigests, size_t{0});
        QVERIFY(fromTraces->hasEveryDocument());
        QVERIFY(!fromTraces->readTracesButton());
        fromTraces->setCurrentIndex(widgets::JobView::Timelines);
        QCOMPARE(fromTraces->timelines().size(), size_t{4});
    }
};

QTEST_MAIN(TestJobWindow)
#include "test_job_window.moc"
