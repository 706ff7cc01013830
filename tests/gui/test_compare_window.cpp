// The Compare document in the app: File > Compare on two runs (one already open as a
// tab, not read again), the verdict, the waterfall, the diffed tables, the findings,
// both timelines aligned on a step, the export (the same Markdown as `diff --markdown`),
// and a side that cannot be read (one line; the open documents stay).
#ifndef Q_MOC_RUN
#include "app/gui/main_window.h"
#include "app/gui/start_page.h"
#include "core/compare/comparison_markdown.h"
#include "tests/support/test_support.h"
#include "widgets/compare_view.h"
#include "widgets/document_view.h"
#include "widgets/markdown_report.h"
#include "widgets/table_view.h"
#include "widgets/timeline/timeline_page.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/waterfall_chart.h"
#endif

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QtTest>

using namespace kinetoscope;

namespace {

QString workers(int n)
{
    return QString::fromStdString(test::sharedTrace("kineto/resnet50_v100_workers" +
                                                    std::to_string(n) + "_2021.pt.trace.json.gz")
                                      .string());
}

}  // namespace

class TestCompareWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qRegisterMetaType<widgets::CompareView*>("widgets::CompareView*");
    }

    void comparesTwoRunsInATab()
    {
        gui::MainWindow window;
        QSignalSpy idle(&window, &gui::MainWindow::idle);
        window.openFiles({workers(4)});
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 60'000);
        const auto opened = window.document(0)->sharedTrace();
        QSignalSpy compared(&window, &gui::MainWindow::comparisonOpened);
        window.compareFiles(workers(0), workers(4));
        QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 60'000);
        QCOMPARE(window.documentCount(), 2);
        auto* view = compared.at(0).at(0).value<widgets::CompareView*>();
        QVERIFY(view);
        const compare::Comparison& c = view->comparison();
        QCOMPARE(c.verdict().verdict, compare::Verdict::Faster);
        QVERIFY(view->verdictLabel()->text().contains(QStringLiteral("Faster: ")));
        QVERIFY(view->verdictLabel()->text().contains(QStringLiteral("DataLoader wait")));
        // Before, after, and the categories that moved (the DataLoader at least).
        QVERIFY(view->waterfall()->barCount() >= 3);
        QVERIFY(view->kernels()->table()->model()->rowCount() > 10);
        bool resolved = false;
        for (int r = 0; r < view->findingsTable()->rowCount(); ++r)
            resolved |= view->findingsTable()->item(r, 0)->toolTip() ==
                            QStringLiteral("dataloader-bound") &&
                        view->findingsTable()->item(r, 1)->text() == QStringLiteral("resolved");
        QVERIFY(resolved);

        // Timelines: built when shown, each at its own steady step.
        QVERIFY(!view->beforeTimeline());
        view->setCurrentIndex(widgets::CompareView::Timelines);
        QVERIFY(view->beforeTimeline() && view->afterTimeline());
        view->stepChooser()->setCurrentIndex(2);
        const auto afterRange = view->afterTimeline()->view()->range();
        QVERIFY(afterRange);
        const analysis::Step& third = opened->summary.steps.steps[2];
        QCOMPARE(afterRange->first, third.beginNs);
        QCOMPARE(afterRange->second, third.endNs);

        // The export is the CLI's Markdown, laid out.
        QTemporaryDir dir;
        const QString md = dir.path() + QStringLiteral("/cmp.md"),
                      pdf = dir.path() + QStringLiteral("/cmp.pdf");
        QVERIFY(widgets::writeMarkdownReport(compare::comparisonMarkdown(c), {}, md));
        QFile mdFile(md);
        QVERIFY(mdFile.open(QIODevice::ReadOnly));
        QCOMPARE(mdFile.readAll().toStdString(), compare::comparisonMarkdown(c));
        QVERIFY(widgets::writeMarkdownReport(compare::comparisonMarkdown(c), {}, pdf));
        QFile pdfFile(pdf);
        QVERIFY(pdfFile.open(QIODevice::ReadOnly) && pdfFile.read(5) == "%PDF-");
        QString error;
        QVERIFY(!widgets::writeMarkdownReport(compare::comparisonMarkdown(c), {},
                                              dir.path() + QStringLiteral("/cmp.docx"), &error));
        QVERIFY(error.contains(QStringLiteral("unknown report format")));
    }

    void anUnreadableSideIsOneLineAndLeavesTheTabs()
    {
        gui::MainWindow window;
        QSignalSpy idle(&window, &gui::MainWindow::idle);
        window.openFiles({workers(0)});
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 60'000);
        QSignalSpy failed(&window, &gui::MainWindow::loadFailed);
        window.compareFiles(workers(0), QStringLiteral("/no/such/after.json"));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60'000);
        const QString message = failed.at(0).at(0).toString();
        QVERIFY(message.contains(QStringLiteral("/no/such/after.json")) &&
                !message.contains(QLatin1Char('\n')));
        QCOMPARE(window.documentCount(), 1);
        QVERIFY(window.document(0)->trace().model);
        QVERIFY(!window.isComparing());
    }
};

QTEST_MAIN(TestCompareWindow)
#include "test_compare_window.moc"
