// The Compare document in the app: File > Compare on two runs (one already open as a
// tab, not read again), the verdict, the waterfall, the diffed tables, the findings,
// both timelines aligned on a step, the export (the same Markdown as `diff --markdown`),
// a side that cannot be read (one line; the open documents stay), and an eager run against
// a compiled one: the torch.compile page with the change by cause, as `diff` prints it.
#ifndef Q_MOC_RUN
#include "app/gui/main_window.h"
#include "app/gui/start_page.h"
#include "core/compare/comparison_markdown.h"
#include "core/format/format.h"
#include "tests/support/test_support.h"
#include "widgets/compare_view.h"
#include "widgets/compiled_change_page.h"
#include "widgets/document_view.h"
#include "widgets/markdown_report.h"
#include "widgets/table_export.h"
#include "widgets/table_view.h"
#include "widgets/timeline/timeline_page.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/waterfall_chart.h"
#endif

#include <QComboBox>
#include <QDir>
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

QString fixture(const std::string& relative)
{
    return QString::fromStdString(test::dataFile(relative).string());
}

QString text(const std::string& s)
{
    return QString::fromStdString(s);
}

// A figure of the page against core's: shown as format's text, exported raw (ns per step,
// within a nanosecond: the two sides were read twice, their sums in any order).
bool showsTime(const QTableWidgetItem* item, double ns)
{
    return item && item->text() == text(format::duration(ns)) &&
           std::fabs(item->data(widgets::RawValueRole).toDouble() - ns) < 1.0;
}

bool showsChange(const QTableWidgetItem* item, double ns)
{
    return item && item->text() == text(format::durationChange(ns)) &&
           std::fabs(item->data(widgets::RawValueRole).toDouble() - ns) < 1.0;
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
        // Two eager runs: no torch.compile page, nor its line on the overview.
        QVERIFY(!c.compiled);
        QVERIFY(!view->compiledPage());
        QCOMPARE(view->count(), int(widgets::CompareView::Timelines) + 1);
        for (const QLabel* label :
             view->widget(widgets::CompareView::Overview)->findChildren<QLabel*>())
            QVERIFY(!label->text().contains(QStringLiteral("torch.compile")));

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

    // The same script run eagerly and under torch.compile on a CPU
    // (tests/data/eager_vs_compiled/): the torch.compile page shows what core computes for
    // the two documents, the parts, the fused groups and what got slower.
    void eagerAgainstCompiledHasATorchCompilePage()
    {
        const QString eager = fixture("eager_vs_compiled/eager.json.gz"),
                      compiled = fixture("eager_vs_compiled/compiled.json.gz");
        gui::MainWindow window;
        window.resize(1366, 768);
        QSignalSpy compared(&window, &gui::MainWindow::comparisonOpened);
        window.compareFiles(eager, compiled);
        QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 60'000);
        auto* view = compared.at(0).at(0).value<widgets::CompareView*>();
        QVERIFY(view);
        widgets::CompiledChangePage* page = view->compiledPage();
        QVERIFY(page);
        QCOMPARE(view->count(), int(widgets::CompareView::Compiled) + 1);
        QCOMPARE(view->widget(widgets::CompareView::Compiled), page);
        QCOMPARE(view->tabText(widgets::CompareView::Compiled), QStringLiteral("torch.compile"));

        // What core computes for the same two documents, read here on their own.
        std::string error;
        const compare::CompareInput input =
            compare::openBoth(eager.toStdString(), compiled.toStdString(), {}, error);
        QVERIFY2(input.before && input.after, error.c_str());
        const compare::Comparison expected = compare::compareDocuments(*input.before, *input.after);
        QVERIFY(expected.compiled);
        const compare::CompiledChange& cc = *expected.compiled;
        QVERIFY(!cc.beforeCompiled && cc.afterCompiled && !cc.deviceTime);

        QVERIFY(page->headline()->text().contains(QStringLiteral("Eager → compiled")));
        // The verdict on the same steps: 5 a side, an interval across zero, so no speed-up
        // is claimed for the -8.9 %.
        QCOMPARE(expected.step.verdict, compare::Verdict::NoSignificantChange);
        QVERIFY(page->headline()->text().contains(
            text(compare::verdictName(expected.step.verdict)) + QStringLiteral(" (95 % interval ") +
            text(format::durationChange(*expected.step.lowNs))));
        QVERIFY(page->headline()->text().contains(text(format::duration(cc.stepBeforeNs)) +
                                                  QStringLiteral(" → ") +
                                                  text(format::duration(cc.stepAfterNs))));
        QVERIFY(page->timeBasis()->text().contains(QStringLiteral("Host time")));
        QVERIFY(page->timeBasis()->text().contains(QStringLiteral("host/dispatch")));

        // The four parts, then the step they add up to.
        using P = widgets::CompiledChangePage;
        QTableWidget* parts = page->parts();
        QCOMPARE(parts->rowCount(), int(cc.parts.size()) + 1);
        QCOMPARE(cc.parts.size(), size_t{4});
        for (int r = 0; r < int(cc.parts.size()); ++r) {
            const compare::CompiledChange::Part& p = cc.parts[size_t(r)];
            QCOMPARE(parts->item(r, P::Part)->text(), text(p.label));
            QVERIFY2(showsTime(parts->item(r, P::Before), p.beforeNs), p.key.c_str());
            QVERIFY2(showsTime(parts->item(r, P::After), p.afterNs), p.key.c_str());
            QVERIFY2(showsChange(parts->item(r, P::Change), p.deltaNs()), p.key.c_str());
            QCOMPARE(parts->item(r, P::CountBefore)->text(), text(format::count(p.beforeCount)));
            QCOMPARE(parts->item(r, P::CountAfter)->text(), text(format::count(p.afterCount)));
        }
        QCOMPARE(parts->item(3, P::Part)->text(), QStringLiteral("other"));
        QCOMPARE(parts->item(2, P::Part)->text(), QStringLiteral("host/dispatch"));
        const int step = int(cc.parts.size());
        QCOMPARE(parts->item(step, P::Part)->text(), QStringLiteral("step"));
        QVERIFY(showsTime(parts->item(step, P::Before), cc.stepBeforeNs));
        QVERIFY(showsTime(parts->item(step, P::After), cc.stepAfterNs));
        QVERIFY(showsChange(parts->item(step, P::Change), cc.stepAfterNs - cc.stepBeforeNs));
        // The waterfall: eager, the four parts, compiled.
        QCOMPARE(page->waterfall()->barCount(), 6);

        // The fused groups, named by their source ops; gelu's with its backward among them.
        QTableWidget* groups = page->groups();
        QCOMPARE(groups->rowCount(), int(cc.groups.size()));
        QVERIFY(groups->rowCount() >= 5);
        bool gelu = false;
        for (int r = 0; r < groups->rowCount(); ++r) {
            const compare::CompiledChange::FusedGroup& g = cc.groups[size_t(r)];
            const QString ops = groups->item(r, P::FusedOps)->text();
            QCOMPARE(ops.split(QStringLiteral(" · ")).size(), qsizetype(g.ops.size()));
            QVERIFY(showsTime(groups->item(r, P::EagerTime), g.eagerNs));
            QVERIFY(showsTime(groups->item(r, P::KernelTime), g.kernelNs));
            QVERIFY(showsChange(groups->item(r, P::GroupChange), g.deltaNs()));
            QCOMPARE(groups->item(r, P::FusedOps)->toolTip(), text(compare::fusedGroupText(g)));
            gelu |= ops.startsWith(QStringLiteral("gelu · gelu_backward"));
        }
        QVERIFY(gelu);

        // What got slower: the fused groups whose kernels took longer, largest first.
        QTableWidget* slower = page->slower();
        QCOMPARE(slower->rowCount(), int(cc.slower.size()));
        QVERIFY(slower->rowCount() > 0);
        QCOMPARE(slower->item(0, 0)->text(), text(cc.slower.front().name));
        QCOMPARE(slower->item(0, 1)->text(), QStringLiteral("fused group"));
        QVERIFY(showsChange(slower->item(0, 4), cc.slower.front().deltaNs()));

        // The overview says it in one line and links to the page.
        QLabel* line = nullptr;
        for (QLabel* label : view->widget(widgets::CompareView::Overview)->findChildren<QLabel*>())
            if (label->text().contains(QStringLiteral("torch.compile page")))
                line = label;
        QVERIFY(line);
        QVERIFY(line->text().contains(text(cc.line).toHtmlEscaped()));
        Q_EMIT line->linkActivated(QStringLiteral("compiled"));
        QCOMPARE(view->currentIndex(), int(widgets::CompareView::Compiled));
        QCOMPARE(view->currentTable(), static_cast<QAbstractItemView*>(parts));

        // On a laptop's screen: the page asks for no more than the window has.
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QSize asks = page->minimumSizeHint();
        QVERIFY2(asks.width() <= page->width() && asks.height() <= page->height(),
                 qPrintable(QStringLiteral("%1x%2 in %3x%4")
                                .arg(asks.width())
                                .arg(asks.height())
                                .arg(page->width())
                                .arg(page->height())));
        // File > Export table: the table last focused.
        // (The focus arriving as it does on a click, the window active or not.)
        QFocusEvent focusIn(QEvent::FocusIn, Qt::MouseFocusReason);
        QCoreApplication::sendEvent(groups, &focusIn);
        QCOMPARE(view->currentTable(), static_cast<QAbstractItemView*>(groups));
        // KINETOSCOPE_SCREENSHOTS=DIR: the window as it is, for a person to look at.
        if (const QString dir = qEnvironmentVariable("KINETOSCOPE_SCREENSHOTS"); !dir.isEmpty())
            QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("compare_compiled.png"))));
    }

    // The compiled run with Inductor's kernel profile off (torch's default): one group of
    // its unnamed C++ kernels, and the page says why and how to name them.
    void unnamedCppKernelsAreOneGroupThatSaysWhy()
    {
        gui::MainWindow window;
        window.resize(1366, 768);
        QSignalSpy compared(&window, &gui::MainWindow::comparisonOpened);
        window.compareFiles(fixture("eager_vs_compiled/eager.json.gz"),
                            fixture("eager_vs_compiled/compiled_unnamed_stacks.json.gz"));
        QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 60'000);
        auto* view = compared.at(0).at(0).value<widgets::CompareView*>();
        QVERIFY(view && view->compiledPage());
        QTableWidget* groups = view->compiledPage()->groups();
        QCOMPARE(groups->rowCount(), 1);
        const QString ops = groups->item(0, widgets::CompiledChangePage::FusedOps)->text();
        QVERIFY2(ops.startsWith(QStringLiteral("unnamed C++ kernels (")) &&
                     ops.contains(QStringLiteral("gelu")),
                 qPrintable(ops));
        bool said = false;
        for (const QLabel* label : view->compiledPage()->findChildren<QLabel*>())
            said = said || label->text().contains(QStringLiteral("cpp.enable_kernel_profile"));
        QVERIFY(said);
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
