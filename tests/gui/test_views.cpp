// The views over real traces, offscreen: what is drawn (bars, curve points, rows, the
// top finding), the table models under QAbstractItemModelTester, and the report.
#include "core/compare/comparison.h"
#include "core/document/document.h"
#include "core/format/format.h"
#include "core/job/job.h"
#include "core/session/session.h"
#include "tests/support/analysed_document.h"
#include "tests/support/batch_sessions.h"
#include "tests/support/image_checks.h"
#include "tests/support/test_support.h"
#include "widgets/breakdown_chart.h"
#include "widgets/compare_view.h"
#include "widgets/document_view.h"
#include "widgets/findings_view.h"
#include "widgets/flame_graph.h"
#include "widgets/job_view.h"
#include "widgets/live_run_view.h"
#include "widgets/memory_chart.h"
#include "widgets/memory_page.h"
#include "widgets/module_view.h"
#include "widgets/overview_view.h"
#include "widgets/plot_export.h"
#include "widgets/report.h"
#include "widgets/roofline/roofline_panel.h"
#include "widgets/roofline/roofline_plot.h"
#include "widgets/session_view.h"
#include "widgets/snapshot/allocation_chart.h"
#include "widgets/snapshot/snapshot_tables.h"
#include "widgets/snapshot/snapshot_view.h"
#include "widgets/table_models.h"
#include "widgets/table_view.h"
#include "widgets/utilization_chart.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTreeWidget>
#include <QtTest>

using namespace kinetoscope;

namespace {

using test::analysed;

// The document shown on `page` at `size`, for what its layout gives the page.
bool shownAt(widgets::DocumentView& view, int page, QSize size)
{
    view.resize(size);
    view.setCurrentIndex(page);
    view.show();
    return QTest::qWaitForWindowExposed(&view);
}

// A snapshot of ../shared/snapshots opened as the app opens one.
std::shared_ptr<const document::Document> openedSnapshot(const char* name)
{
    document::OpenOptions options;
    options.snapshots = true;
    return document::open((test::sharedTracesDir().parent_path() / "snapshots" / name).string(),
                          options);
}

// Shows every page of a tabbed view at `size` and checks that no text label of any of its
// charts is drawn outside its bound (the axes when clipped to them, else the plot widget) and
// no legend outside the widget. Counts the charts and labels it checked.
void checkLabelsInside(QTabWidget& view, QSize size, int& charts, int& labels)
{
    view.resize(size);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (int page = 0; page < view.count(); ++page) {
        view.setCurrentIndex(page);
        QCoreApplication::processEvents();
        for (QCustomPlot* plot : view.widget(page)->findChildren<QCustomPlot*>()) {
            if (!plot->isVisible() || plot->width() < 50)
                continue;
            ++charts;
            plot->replot();
            QCoreApplication::processEvents();  // the queued replot of labels turned inside
            plot->replot();
            const QRectF widget = plot->rect();
            for (int i = 0; i < plot->itemCount(); ++i) {
                auto* text = qobject_cast<QCPItemText*>(plot->item(i));
                if (!text || !text->visible() || text->text().isEmpty())
                    continue;
                const bool clipped = text->clipToAxisRect() && text->clipAxisRect();
                const QRectF bound = clipped ? QRectF(text->clipAxisRect()->rect()) : widget;
                // A clipped label whose anchor lies outside the axes is not drawn at all.
                if (clipped && !bound.contains(text->position->pixelPosition()))
                    continue;
                const QRectF drawn =
                    QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition())
                        .normalized();
                ++labels;
                QVERIFY2(
                    bound.adjusted(-1, -1, 1, 1).contains(drawn),
                    qPrintable(QStringLiteral("page %1: \"%2\" drawn at %3,%4 %5x%6 outside %7x%8")
                                   .arg(view.tabText(page), text->text().left(40))
                                   .arg(drawn.x())
                                   .arg(drawn.y())
                                   .arg(drawn.width())
                                   .arg(drawn.height())
                                   .arg(bound.width())
                                   .arg(bound.height())));
            }
            if (plot->legend->visible())
                QVERIFY2(widget.adjusted(-1, -1, 1, 1).contains(QRectF(plot->legend->outerRect())),
                         qPrintable(view.tabText(page)));
        }
    }
}

}  // namespace

class TestViews : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    // A memory snapshot's timeline: the band drawn under the pointer is the allocation the
    // read-out names, in its stack's colour; at the peak's column the bands are those alive
    // at the peak; the wheel zooms about the pointer and a double-click shows it all.
    void aSnapshotTimelineDrawsAndReadsOutEachAllocation()
    {
        const auto doc = openedSnapshot("decomfl_training_annotations_torch29.pickle");
        QVERIFY2(doc->isSnapshot(), doc->loadMessage.c_str());
        widgets::SnapshotView view(doc);
        view.resize(1400, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        widgets::AllocationChart* chart = view.chart();
        const snapshot::DeviceTimeline& t = doc->snapshot->timelines[size_t(chart->device())];
        QVERIFY(t.peakApplied > 0);
        const QImage drawn = chart->grab().toImage();
        const QPoint atPeak(int(std::floor(chart->xOf(double(t.when(t.peakApplied - 1))))),
                            int(chart->yOf(0.6 * double(t.peakBytes))));
        size_t applied = 0;
        const int band = chart->bandAt(atPeak, &applied);
        QCOMPARE(applied, t.peakApplied);
        QVERIFY(band >= 0);
        QVERIFY(t.aliveAfter(t.bands[size_t(band)], t.peakApplied));
        QCOMPARE(drawn.pixel(atPeak),
                 widgets::AllocationChart::colorOf(t.bands[size_t(band)].stack).rgb());
        QTest::mouseMove(chart, atPeak);
        QTRY_VERIFY(view.readout().contains(
            QString::fromStdString(doc->snapshot->model.place(t.bands[size_t(band)].stack))
                .toHtmlEscaped()));
        QVERIFY(view.readout().contains(QStringLiteral("allocated at")));
        // Above the peak nothing is drawn at that column but the reserved line's colour.
        QVERIFY(chart->bandAt(QPoint(atPeak.x(), int(chart->yOf(double(t.peakBytes))) - 3)) < 0);

        const double full = chart->viewTo() - chart->viewFrom();
        chart->zoomAt(atPeak.x(), 0.25);
        QVERIFY(std::abs((chart->viewTo() - chart->viewFrom()) - 0.25 * full) < 1e-6 * full);
        QVERIFY(chart->viewFrom() <= double(t.when(t.peakApplied - 1)) &&
                double(t.when(t.peakApplied - 1)) <= chart->viewTo());
        QTest::mouseDClick(chart, Qt::LeftButton, {}, atPeak);
        QCOMPARE(chart->viewTo() - chart->viewFrom(), full);

        QCOMPARE(view.atPeak()->table()->model()->rowCount(),
                 int(doc->snapshot->summary.topStacksAtPeak.size()));
        // Grouped by the nn.Module call instead: the rows are the module groups.
        QVERIFY(view.atPeakGrouping());
        view.atPeakGrouping()->setCurrentIndex(1);
        QCOMPARE(view.atPeak()->table()->model()->rowCount(),
                 int(doc->snapshot->summary.topModulesAtPeak.size()));
        QCOMPARE(view.atPeak()->table()->model()->headerData(0, Qt::Horizontal).toString(),
                 QStringLiteral("Module called at"));
        QCOMPARE(view.segments()->table()->model()->rowCount(), 61);
        // Split segments first, the one caching the most in free blocks at the top.
        const QModelIndex top =
            view.segments()->table()->model()->index(0, widgets::SegmentModel::State);
        QCOMPARE(top.data().toString(), QStringLiteral("split"));
        const QModelIndex freeBytes =
            view.segments()->table()->model()->index(0, widgets::SegmentModel::FreeInBlocks);
        QCOMPARE(freeBytes.data(Qt::UserRole).toLongLong(),
                 qlonglong(doc->snapshot->summary.segmentUse.front().inactiveBytes));
        for (QAbstractItemModel* model :
             {view.atPeak()->table()->model(), view.segments()->table()->model()})
            QAbstractItemModelTester tester(model,
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
    }

    // A snapshot without history (the bare list of segments) says so, and still lists them.
    void aSnapshotWithoutHistoryShowsItsSegments()
    {
        const auto doc = openedSnapshot("sketchkv_segments_only_torch24.pickle");
        QVERIFY2(doc->isSnapshot(), doc->loadMessage.c_str());
        widgets::SnapshotView view(doc);
        view.resize(1024, 768);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.headline().contains(QStringLiteral("No allocation history")));
        QVERIFY(test::distinctColours(view.chart()->grab().toImage()) >=
                2);  // the message is drawn
        QCOMPARE(view.segments()->table()->model()->rowCount(), 259);
    }

    // Issue 50 item 9: a lab cancelled in its first arm, saved with the steps it measured.
    // Its tab says it was cancelled, by whom and where, before anything else, on the note,
    // the first finding and the live view's status; the steps are drawn.
    void aCancelledSessionSaysSoOnEveryPage()
    {
        session::Session s;
        s.config = {{"model", "mlp"}, {"dataset", "synthetic"}, {"batch_size", "16"}};
        s.environment = {{"device", "CPU"}};
        s.interrupted = "cancelled by Ctrl-C (SIGINT) in the fp32 arm after step 7 of 100002";
        for (int64_t step = 2; step < 7; ++step)
            s.steps.push_back({step, 0.01, 0.001, 1.0, 2.0, 0.5, 2.3});
        const std::string path = (m_dir.path() + "/cancelled.kinetoscope.json").toStdString();
        std::string error;
        QVERIFY2(session::saveSession(s, path, error), error.c_str());
        const auto opened = document::open(path);
        QVERIFY2(opened->ok() && opened->session && !opened->hasTrace(),
                 opened->loadMessage.c_str());
        widgets::SessionView view(opened);
        const QString said = QStringLiteral(
            "This run did not finish: cancelled by Ctrl-C (SIGINT) in the fp32 arm after step 7 "
            "of 100002. What it holds was measured before: 5 measured steps, no arm finished.");
        bool noted = false;
        for (const QLabel* label : view.findChildren<QLabel*>())
            noted |= label->text().contains(said);
        QVERIFY(noted);
        QVERIFY2(view.findings()->findingTitle(0).startsWith(
                     QStringLiteral("1. The run did not finish: cancelled by Ctrl-C (SIGINT) in "
                                    "the fp32 arm after step 7 of 100002")),
                 qPrintable(view.findings()->findingTitle(0)));
        QVERIFY2(
            view.lab()->statusText().startsWith(QStringLiteral("Stopped: cancelled by Ctrl-C")),
            qPrintable(view.lab()->statusText()));
        QVERIFY(view.lab()->readingText().startsWith(said));
        QCOMPARE(view.lab()->stepBars(), 5);
    }

    // Issue 50 item 6: the Compare tab of two sessions whose batch went 32 -> 64 reads the
    // verdict the CLI does: per sample, faster, in green, the batch from the configuration.
    void aComparisonOfTwoBatchSizesIsJudgedPerSample()
    {
        std::string beforePath, afterPath, error;
        QVERIFY2(test::writeBatchSessions(m_dir.path().toStdString(), beforePath, afterPath, error),
                 error.c_str());
        const auto before = document::open(beforePath), after = document::open(afterPath);
        QVERIFY(before->ok() && after->ok());
        widgets::CompareView view(before, after, compare::compareDocuments(*before, *after));
        const QString verdict = view.verdictLabel()->text();
        QVERIFY2(verdict.contains(QStringLiteral("color:#2e7d32")), qPrintable(verdict));
        QVERIFY2(verdict.contains(QStringLiteral(
                     "The configuration changed batch_size 32 → 64: the batch size changed, "
                     "the verdict is on time per sample. Faster per sample")),
                 qPrintable(verdict));
        bool batchRow = false;
        for (const QLabel* label : view.findChildren<QLabel*>())
            batchRow |= label->text().contains(QStringLiteral("batch (from the configuration)"));
        QVERIFY(batchRow);
    }

    // A profiled lab session (the engine's data-starved run on an H100) opens on its trace
    // with the lab's live view replayed beside it: NVML's samples, the steps, the sweep.
    void aProfiledSessionKeepsItsLiveView()
    {
        const auto run = document::open(KINETOSCOPE_SOURCE_DIR
                                        "/tests/data/h100_runs/starved/session.kinetoscope.json");
        QVERIFY2(run->ok() && run->hasTrace() && run->session, run->loadMessage.c_str());
        widgets::DocumentView view(run);
        view.resize(1400, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.count(), 8);
        QVERIFY(view.lab());
        QCOMPARE(view.indexOf(view.lab()), int(widgets::DocumentView::Lab));
        QCOMPARE(size_t(view.lab()->sampleCount()), run->session->samples.size());
        QVERIFY(view.lab()->sampleCount() > 100);
        QCOMPARE(size_t(view.lab()->stepBars()), run->session->steps.size());
        QCOMPARE(view.lab()->sweepPoints(), 5);
        QVERIFY(view.lab()->readingText().contains(QStringLiteral("data-bound")));
    }

    void drawsTheOverviewOfARealTrace()
    {
        const auto trace = analysed("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        QVERIFY(trace->model);
        widgets::DocumentView view(trace);
        view.resize(1200, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.count(), 7);
        QVERIFY(!view.lab());  // a trace alone: no lab page
        // One stacked bar per step plus the average, 8 categories stacked.
        QCOMPARE(view.overview()->breakdownChart()->barCount(), 7);
        QCOMPARE(view.overview()->breakdownChart()->plottableCount(), 8);
        // The sawtooth: CPU + one GPU curve of 1000 buckets, one marker per step.
        const widgets::UtilizationChart* saw = view.overview()->utilizationChart();
        QCOMPARE(saw->graphCount(), 2);
        QCOMPARE(saw->graph(1)->data()->size(), 1000);
        QCOMPARE(saw->stepMarkerCount(), 6);
        QVERIFY(view.overview()->figuresText().contains(QStringLiteral("178 ms")));
        // The top finding in words, with its gain; its id is for scripts, not this page.
        const QString title = QString::fromStdString(trace->findings.front().title);
        QCOMPARE(trace->findings.front().id, std::string("dataloader-bound"));
        QVERIFY2(view.overview()->figuresText().contains(QStringLiteral("Top finding: ") + title),
                 qPrintable(view.overview()->figuresText()));
        QVERIFY(!view.overview()->figuresText().contains(QStringLiteral("dataloader-bound")));
        // What the trace is comes first: the kind of run and the steady steps.
        QVERIFY(view.overview()->figuresText().startsWith(
            QStringLiteral("What this trace is: training, 6 steady steps (ProfilerStep markers)")));
        QVERIFY(view.overview()->figuresText().contains(
            QStringLiteral("while the host was in: dataloader")));
        // Legends sit beside the axes: they never cover a bar, the average or a curve.
        for (const QCustomPlot* chart :
             {static_cast<const QCustomPlot*>(view.overview()->breakdownChart()),
              static_cast<const QCustomPlot*>(saw)}) {
            QVERIFY(chart->legend->visible());
            QVERIFY(chart->legend->outerRect().isValid());
            QVERIFY(!chart->axisRect()->outerRect().intersects(chart->legend->outerRect()));
        }
        const QImage image = view.overview()->grab().toImage();
        QVERIFY(kinetoscope::test::distinctColours(image) > 20);
    }

    // A compiled run says on its Overview what torch.compile made of it (before, only the
    // CLI's summary did): the compiled share, the graph break and where, the C++ kernels'
    // time the trace does not name. An eager run has no such line.
    void theOverviewSaysWhatTorchCompileMade()
    {
        document::OpenOptions options;
        const auto compiled =
            document::open(test::dataFile("compiled/graph_break_stacks.json.gz").string(), options);
        QVERIFY(compiled && compiled->summary.compiled.compiled);
        QVERIFY(!compiled->summary.compiled.breaks.empty());
        widgets::DocumentView view(compiled);
        const QString figures = view.overview()->figuresText();
        const QString line = figures.mid(figures.indexOf(QStringLiteral("torch.compile: ")));
        QVERIFY2(line.startsWith(QStringLiteral("torch.compile: compiled regions ")),
                 qPrintable(figures));
        const compiled::GraphBreak& first = compiled->summary.compiled.breaks.front();
        QVERIFY(first.line.line > 0);
        QVERIFY2(line.contains(QStringLiteral("graph break: ")) &&
                     line.contains(QStringLiteral(":%1 (").arg(first.line.line)),
                 qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("Inductor's C++ kernels ")), qPrintable(line));
        // Above the figures: read before the step time.
        QVERIFY(figures.indexOf(QStringLiteral("torch.compile: ")) <
                figures.indexOf(QStringLiteral("Step time")));

        const auto eager =
            document::open(test::dataFile("eager_vs_compiled/eager.json.gz").string(), options);
        widgets::DocumentView eagerView(eager);
        QVERIFY(!eagerView.overview()->figuresText().contains(QStringLiteral("torch.compile")));
    }

    void showsTheRankedFindings()
    {
        const auto trace = analysed("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        widgets::DocumentView view(trace);
        widgets::FindingsView* findings = view.findings();
        QCOMPARE(findings->findingCount(), int(trace->findings.size()));
        QVERIFY(findings->findingTitle(0).startsWith(QStringLiteral("1. The GPU waits for data")));
        QVERIFY(findings->detailsText().contains(QStringLiteral("num_workers")));
        // The DataLoader finding has time ranges: selecting it marks them in the plot.
        QVERIFY(!trace->findings[0].evidence.ranges.empty());
        findings->select(1);
        QVERIFY(findings->detailsText().contains(QStringLiteral("Tensor Cores")));
        QVERIFY(!view.overview()->utilizationChart()->hasHighlight());
        findings->select(0);
        QVERIFY(view.overview()->utilizationChart()->hasHighlight());
        // "Show evidence" of the Tensor Core finding lands on its kernels.
        view.showEvidence(trace->findings[1]);
        QCOMPARE(view.currentIndex(), int(widgets::DocumentView::Kernels));
        QVERIFY(view.kernels()->visibleRows() >= 1);
        QVERIFY(view.kernels()->visibleRows() < int(trace->summary.kernels.size()));
    }

    // A CPU run (the compiled fixture: no device activity): the Operators page leads with
    // the host's times and has no empty device columns or roofline; a GPU run keeps both.
    void aHostOnlyRunsOperatorsLeadWithHostTimes()
    {
        document::OpenOptions options;
        const auto cpu =
            document::open(test::dataFile("eager_vs_compiled/compiled.json.gz").string(), options);
        QVERIFY(cpu && cpu->summary.window.cpuOnly);
        widgets::DocumentView view(cpu);
        using Op = widgets::OpTableModel;
        QTableView* table = view.operators()->table();
        for (const int device : {int(Op::DeviceTotal), int(Op::SelfDevice), int(Op::MeanDevice),
                                 int(Op::TensorCoreEligible), int(Op::Tflops), int(Op::OfRoof)})
            QVERIFY(table->isColumnHidden(device));
        QVERIFY(!table->isColumnHidden(Op::FusedOps));  // Inductor's C++ kernels, recorded as ops
        QVERIFY(!table->isColumnHidden(Op::CpuTotal));
        QCOMPARE(table->horizontalHeader()->sortIndicatorSection(), int(Op::CpuTotal));
        QVERIFY(!view.roofline()->isVisibleTo(view.roofline()->parentWidget()));

        const auto gpu = analysed("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        QVERIFY(gpu && !gpu->summary.window.cpuOnly);
        widgets::DocumentView gpuView(gpu);
        QVERIFY(!gpuView.operators()->table()->isColumnHidden(Op::DeviceTotal));
        QCOMPARE(gpuView.operators()->table()->horizontalHeader()->sortIndicatorSection(),
                 int(Op::DeviceTotal));
        QVERIFY(gpu->summary.roofline.ratedNs > 0);
        QVERIFY(gpuView.roofline()->isVisibleTo(gpuView.roofline()->parentWidget()));
    }

    void tablesShowEveryRowSortedAndFiltered()
    {
        const auto trace = analysed("tracelens/rocm_mi300_resnet_act_checkpoint.json.gz");
        widgets::DocumentView view(trace);
        widgets::OpTableModel* ops = view.opModel();
        QAbstractItemModelTester opTester(ops,
                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(ops->rowCount(), int(trace->summary.ops.byName.size()));
        QVERIFY(ops->hasShapes());
        QVERIFY(ops->hasStacks());
        // Group by: name, name and input shapes, name and call stack.
        QComboBox* grouping = view.opGrouping();
        QVERIFY(grouping);
        QCOMPARE(grouping->count(), 3);
        grouping->setCurrentIndex(1);
        QCOMPARE(ops->rowCount(), int(trace->summary.ops.byNameAndShapes.size()));
        QVERIFY(!view.operators()->table()->isColumnHidden(widgets::OpTableModel::Shapes));
        grouping->setCurrentIndex(2);
        QCOMPARE(ops->rowCount(), int(trace->summary.ops.byNameAndStack.size()));
        QVERIFY(!view.operators()->table()->isColumnHidden(widgets::OpTableModel::Source));
        QVERIFY(view.operators()->table()->isColumnHidden(widgets::OpTableModel::Shapes));
        grouping->setCurrentIndex(0);
        widgets::KernelTableModel* kernels = view.kernelModel();
        QAbstractItemModelTester kernelTester(
            kernels, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(kernels->rowCount(), int(trace->summary.kernels.size()));
        // Group by kernel and launch configuration, then by kernel and op, and back.
        QVERIFY(trace->summary.kernelsByLaunch.size() > trace->summary.kernels.size());
        view.kernelGrouping()->setCurrentIndex(2);
        QCOMPARE(kernels->rowCount(), int(trace->summary.kernelsByLaunch.size()));
        view.kernelGrouping()->setCurrentIndex(1);
        QCOMPARE(kernels->rowCount(), int(trace->summary.kernelsByOp.size()));
        view.kernelGrouping()->setCurrentIndex(0);
        QCOMPARE(kernels->rowCount(), int(trace->summary.kernels.size()));
        // Sorted by device total, descending, through the raw values.
        QSortFilterProxyModel* proxy = view.operators()->proxy();
        QAbstractItemModelTester proxyTester(
            proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const qlonglong first =
            proxy->index(0, widgets::OpTableModel::DeviceTotal).data(Qt::UserRole).toLongLong();
        const qlonglong second =
            proxy->index(1, widgets::OpTableModel::DeviceTotal).data(Qt::UserRole).toLongLong();
        QVERIFY(first >= second);
        view.operators()->setFilter(QStringLiteral("conv"));
        QVERIFY(view.operators()->visibleRows() > 0);
        for (int r = 0; r < proxy->rowCount(); ++r)
            QVERIFY(proxy->index(r, 0).data().toString().contains(QStringLiteral("conv"),
                                                                  Qt::CaseInsensitive));
    }

    // The Operators page's roofline on a real MI300X run: a dot per rated op group under the
    // device's roofs; clicking the costliest one selects its row (grouped by input shapes)
    // and lists its kernels; the tables' roofline columns read the same figures.
    void theRooflineLeadsFromADotToItsRowAndKernels()
    {
        const auto trace = analysed("tracelens/rocm_mi300_resnet_act_checkpoint.json.gz");
        widgets::DocumentView view(trace);
        QVERIFY(shownAt(view, widgets::DocumentView::Operators, QSize(1400, 900)));
        const roofline::Roofline& r = trace->summary.roofline;
        QVERIFY(r.peaks && r.peaks->model == "MI300X");
        widgets::RooflinePanel* panel = view.roofline();
        QVERIFY(panel);
        QVERIFY(panel->caption().contains(QStringLiteral("MI300X")));
        widgets::RooflinePlot* plot = panel->plot();
        int rated = 0;
        for (const roofline::OpRoofline& o : r.ops)
            rated += o.modelled() && o.rating.intensity > 0 && o.rating.achievedTflops > 0;
        QCOMPARE(plot->dotCount(), std::min(rated, widgets::RooflinePlot::kMaxDots));
        QVERIFY(plot->roofCount() >= 2);  // bf16 matrix units and the fp32 vector units
        // The first dot is the costliest rated group; a click on it selects its row.
        const size_t op = plot->opOfDot(0);
        const roofline::OpRoofline& group = r.ops[op];
        const QPointF at = plot->dotPosition(0);
        QVERIFY(plot->rect().contains(at.toPoint()));
        QTest::mouseClick(plot, Qt::LeftButton, {}, at.toPoint());
        QCOMPARE(view.currentIndex(), int(widgets::DocumentView::Operators));
        QCOMPARE(view.opModel()->grouping(), widgets::OpTableModel::Grouping::InputShapes);
        const QModelIndexList selected =
            view.operators()->table()->selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QSortFilterProxyModel* proxy = view.operators()->proxy();
        QCOMPARE(proxy->index(selected.front().row(), widgets::OpTableModel::Name)
                     .data()
                     .toString()
                     .toStdString(),
                 group.name);
        QCOMPARE(proxy->index(selected.front().row(), widgets::OpTableModel::Shapes)
                     .data()
                     .toString()
                     .toStdString(),
                 group.inputShapes);
        // Its figures in the table: the raw TFLOP/s is the roofline's.
        const double tflops = proxy->index(selected.front().row(), widgets::OpTableModel::Tflops)
                                  .data(Qt::UserRole)
                                  .toDouble();
        QVERIFY(std::fabs(tflops - group.rating.achievedTflops) < 1e-9 * std::max(1.0, tflops));
        QVERIFY(!proxy->index(selected.front().row(), widgets::OpTableModel::OfRoof)
                     .data()
                     .toString()
                     .isEmpty());
        // Under the plot: the group and its kernels.
        QVERIFY(!group.kernels.empty());
        const QString kernel =
            QString::fromStdString(group.kernels.front().first).left(40).toHtmlEscaped();
        QVERIFY2(panel->selection().contains(kernel), qPrintable(panel->selection()));
        // The Kernels page rates the kernels that were their call's only kernel.
        widgets::KernelTableModel* kernels = view.kernelModel();
        int ratedKernels = 0;
        for (int row = 0; row < kernels->rowCount(); ++row)
            ratedKernels += kernels->index(row, widgets::KernelTableModel::Tflops)
                                .data(Qt::UserRole)
                                .toDouble() >= 0;
        QCOMPARE(ratedKernels, int(r.kernels.size()));
        QCOMPARE(
            kernels->headerData(widgets::KernelTableModel::Bound, Qt::Horizontal, Qt::DisplayRole)
                .toString(),
            QStringLiteral("Bound"));
    }

    // torch.compile's Triton kernels on an MI300X (tracelens/torch_compile_triton): the
    // Kernels page shows each kernel's fused source ops in a column beside its name, within
    // a laptop's 1366 px, and rates it; the Operators page names them in the launch op's
    // row (a column after the times, the name's tooltip and the row's details); the
    // roofline dot's tooltip names them. A trace without compiled kernels has no such column.
    void compiledKernelsNameTheirFusedOps()
    {
        const auto trace = analysed("tracelens/torch_compile_triton.json.gz");
        QVERIFY(trace && trace->model);
        widgets::DocumentView view(trace);
        QVERIFY(shownAt(view, widgets::DocumentView::Kernels, QSize(1366, 768)));
        const std::string reduction = "triton_red_fused_add_mean_mul_pow_rsqrt_0";
        const QString fused = QStringLiteral("add · mean · mul · pow · rsqrt");
        // The row of `name` in a page's table (its proxy's order), or -1.
        const auto rowOf = [](widgets::TableView* page, const std::string& name) {
            QSortFilterProxyModel* proxy = page->proxy();
            for (int row = 0; row < proxy->rowCount(); ++row)
                if (proxy->index(row, 0).data().toString().toStdString() == name)
                    return row;
            return -1;
        };

        using Kernel = widgets::KernelTableModel;
        QTableView* kernels = view.kernels()->table();
        QVERIFY(!kernels->isColumnHidden(Kernel::FusedOps));
        QCOMPARE(kernels->model()->headerData(Kernel::FusedOps, Qt::Horizontal).toString(),
                 QStringLiteral("Fused ops"));
        int row = rowOf(view.kernels(), reduction);
        QVERIFY(row >= 0);
        QSortFilterProxyModel* proxy = view.kernels()->proxy();
        QCOMPARE(proxy->index(row, Kernel::FusedOps).data().toString(), fused);
        const QString tip = proxy->index(row, Kernel::Name).data(Qt::ToolTipRole).toString();
        QVERIFY2(
            tip.contains(QStringLiteral("Triton reduction kernel generated by torch.compile")) &&
                tip.contains(fused),
            qPrintable(tip));
        // Rated: 268,439,552 bytes in 77.074 us (test_roofline has the hand computation).
        QVERIFY(std::fabs(proxy->index(row, Kernel::Gbps).data(Qt::UserRole).toDouble() - 3483) <
                1);
        // A library kernel names none.
        row = rowOf(view.kernels(), "attn_fwd");
        QVERIFY(row >= 0);
        QVERIFY(proxy->index(row, Kernel::FusedOps).data().toString().isEmpty());
        // The column sits beside the name, whole on a 1366 px screen, before the times.
        const QHeaderView* header = kernels->horizontalHeader();
        for (const int column :
             {int(Kernel::Name), int(Kernel::FusedOps), int(Kernel::Calls), int(Kernel::Total)}) {
            const int left = header->sectionViewportPosition(column);
            QVERIFY(left >= 0 &&
                    left + header->sectionSize(column) <= kernels->viewport()->width());
        }
        QVERIFY(header->sectionSize(Kernel::FusedOps) >=
                kernels->fontMetrics().horizontalAdvance(fused));

        using Op = widgets::OpTableModel;
        view.setCurrentIndex(widgets::DocumentView::Operators);
        QTableView* ops = view.operators()->table();
        QVERIFY(!ops->isColumnHidden(Op::FusedOps));
        row = rowOf(view.operators(), reduction);
        QVERIFY(row >= 0);
        QCOMPARE(view.operators()->proxy()->index(row, Op::FusedOps).data().toString(), fused);
        QVERIFY(view.operators()
                    ->proxy()
                    ->index(row, Op::Name)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(fused));
        QVERIFY(view.operators()
                    ->proxy()
                    ->index(rowOf(view.operators(), "aten::mm"), Op::FusedOps)
                    .data()
                    .toString()
                    .isEmpty());
        // Its dot on the roofline, and the panel once clicked, name the fused ops.
        widgets::RooflinePlot* plot = view.roofline()->plot();
        int dot = -1;
        for (int d = 0; d < plot->dotCount(); ++d)
            if (trace->summary.roofline.ops[plot->opOfDot(d)].name == reduction)
                dot = d;
        QVERIFY(dot >= 0);
        QVERIFY2(plot->dotLabel(dot).contains(QStringLiteral("fused: ") + fused),
                 qPrintable(plot->dotLabel(dot)));
        QTest::mouseClick(plot, Qt::LeftButton, {}, plot->dotPosition(dot).toPoint());
        QVERIFY2(view.roofline()->selection().contains(fused),
                 qPrintable(view.roofline()->selection()));

        // No compiled kernel, no column.
        widgets::DocumentView plain(analysed("hta/alexnet_critical_path.json.gz"));
        QVERIFY(plain.kernels()->table()->isColumnHidden(Kernel::FusedOps));
        QVERIFY(plain.operators()->table()->isColumnHidden(Op::FusedOps));
    }

    void showsTheModuleTreeAndItsFlameGraph()
    {
        const auto trace = analysed("tracelens/rocm_mi300_resnet_act_checkpoint.json.gz");
        widgets::DocumentView view(trace);
        QVERIFY(shownAt(view, widgets::DocumentView::Modules, QSize(1200, 800)));
        widgets::ModuleView* modules = view.modules();
        QVERIFY(modules->tree()->isVisible());
        // The five top-level modules, DDP first by device time, with its figures.
        QCOMPARE(modules->tree()->topLevelItemCount(), 5);
        QTreeWidgetItem* ddp = modules->tree()->topLevelItem(0);
        QCOMPARE(ddp->text(widgets::ModuleView::Name), QStringLiteral("DistributedDataParallel_0"));
        QCOMPARE(ddp->text(widgets::ModuleView::DeviceTotal), QStringLiteral("6.516"));
        QCOMPARE(ddp->text(widgets::ModuleView::DeviceSelf), QStringLiteral("0.882"));
        QCOMPARE(ddp->child(0)->text(widgets::ModuleView::Name), QStringLiteral("ResNet_0"));
        QVERIFY(modules->details()->text().contains(QStringLiteral("Memcpy DtoD")));
        QVERIFY(modules->notice()->text().contains(QStringLiteral("450 module spans")));
        // The flame graph: the root spans the width; clicking a thread's frame zooms in.
        widgets::FlameGraph* flame = modules->flameGraph();
        const QRectF root = flame->frameRect(0);
        QVERIFY(root.width() >= flame->width() - 1);
        const auto& calls = *trace->callTree;
        const int32_t thread = calls.nodes[0].children.at(0);
        const QRectF threadRect = flame->frameRect(thread);
        const double expected = root.width() * double(calls.nodes[size_t(thread)].deviceNs) /
                                double(calls.nodes[0].deviceNs);
        QVERIFY(std::abs(threadRect.width() - expected) < 1.0);
        QTest::mouseClick(flame, Qt::LeftButton, {}, threadRect.center().toPoint());
        QCOMPARE(flame->zoomedNode(), thread);
        QVERIFY(flame->frameRect(thread).width() >= flame->width() - 1);
        QTest::keyClick(flame, Qt::Key_Escape);
        QCOMPARE(flame->zoomedNode(), 0);
        QVERIFY(kinetoscope::test::distinctColours(flame->grab().toImage()) > 4);
    }

    // Two modules: their rows whole, in a pane of their height; the call tree below takes
    // the rest of the page (a half-and-half split left it about 140 px on a laptop).
    void aFewModulesLeaveThePageToTheCallTree()
    {
        const auto trace = analysed("gpupuzzlers/torch_compile_fusion.json.gz");
        widgets::DocumentView view(trace);
        QVERIFY(shownAt(view, widgets::DocumentView::Modules, QSize(1280, 650)));
        const QTreeWidget* tree = view.modules()->tree();
        QCOMPARE(tree->topLevelItemCount(), 2);
        const QRect last = tree->visualItemRect(tree->topLevelItem(1));
        QVERIFY(!last.isEmpty() && last.bottom() < tree->viewport()->height());
        const QWidget* flameArea = view.modules()->flameGraph()->parentWidget();
        QVERIFY2(flameArea->height() > view.modules()->height() * 3 / 5,
                 qPrintable(QStringLiteral("%1 of %2 px")
                                .arg(flameArea->height())
                                .arg(view.modules()->height())));
    }

    void saysWhenATraceHasNoModules()
    {
        const auto trace = analysed("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        widgets::DocumentView view(trace);
        QVERIFY(shownAt(view, widgets::DocumentView::Modules, QSize(1200, 800)));
        QVERIFY(!view.modules()->tree()->isVisible());
        QVERIFY(view.modules()->notice()->text().contains(QStringLiteral("no nn.Module spans")));
        // The call tree of its ops is still drawn, and takes the page (no empty pane above it).
        QVERIFY(view.modules()->flameGraph()->frameRect(0).width() > 0);
        QVERIFY(!view.modules()->details()->isVisible());
        const QWidget* flameArea = view.modules()->flameGraph()->parentWidget();
        QVERIFY2(flameArea->height() > view.modules()->height() * 2 / 3,
                 QByteArray::number(flameArea->height()));
    }

    // A trace without memory samples: the Memory page's notice alone, no empty plot (a
    // 0-0.001 axis, a blank legend) under it; a trace with samples keeps its chart.
    void aTraceWithoutMemorySamplesShowsNoEmptyChart()
    {
        const auto none = analysed("gpupuzzlers/torch_compile_fusion.json.gz");
        QVERIFY(none && none->summary.memory.empty());
        widgets::DocumentView view(none);
        QVERIFY(!view.memoryPage()->chart()->isVisibleTo(view.memoryPage()));
        const auto some = analysed("misc/dtu_mlops_cpu_memory.json.gz");
        QVERIFY(some && !some->summary.memory.empty());
        widgets::DocumentView withSamples(some);
        QVERIFY(withSamples.memoryPage()->chart()->isVisibleTo(withSamples.memoryPage()));
    }

    // A GPU run whose roofline rated no kernel time: no empty roofline beside the Operators
    // table (a GPU run that rates kernels keeps it: aHostOnlyRunsOperatorsLeadWithHostTimes).
    void aRooflineThatRatedNothingLeavesTheTableTheWidth()
    {
        const auto trace = analysed("hta/allreduce_memory_rank1.json.gz");
        QVERIFY(trace && !trace->summary.window.cpuOnly);
        QVERIFY(trace->summary.roofline.kernelNs > 0);
        QCOMPARE(trace->summary.roofline.ratedNs, int64_t(0));
        widgets::DocumentView view(trace);
        QVERIFY(!view.roofline()->isVisibleTo(view.roofline()->parentWidget()));
    }

    void drawsAllocatedAndReservedMemory()
    {
        const auto trace = analysed("hta/allreduce_memory_rank1.json.gz");
        widgets::DocumentView view(trace);
        widgets::MemoryChart* memory = view.memoryChart();
        // cpu (allocated; reserved recorded as well) and cuda:1 allocated + reserved.
        QVERIFY(memory->graphCount() >= 2);
        QVERIFY(memory->curvePointCount() > 100);
        QVERIFY(memory->curvePointCount() <=
                4 * 1500 * memory->graphCount());  // reduced for drawing
        memory->showReadoutAt(500.0);
        QVERIFY(memory->readout().contains(QStringLiteral("cuda:1 allocated")));
        // The memory table and the peak are the GPU's: every op row, the live stacks.
        widgets::MemoryPage* page = view.memoryPage();
        QCOMPARE(page->device()->currentText(), QStringLiteral("cuda:1"));
        const analysis::DeviceMemory& gpu = trace->summary.memory.at("cuda:1");
        QCOMPARE(page->model()->rowCount(), int(gpu.byOp.size()));
        QVERIFY(!gpu.liveAtPeak.empty());
        QVERIFY(page->peak()->text().contains(QStringLiteral("At the peak")));
        // One origin, the trace's first event: the read-out's peak time and the chart's peak
        // label sit where the samples put the first one at the peak of allocated memory.
        int64_t peakBytes = -1, peakNs = 0;
        for (const trace::MemorySample& m : trace->model->memorySamples())
            if (m.deviceType == 1 && m.deviceId == 1 && m.totalAllocated > peakBytes) {
                peakBytes = m.totalAllocated;
                peakNs = m.timeNs;
            }
        QVERIFY(peakBytes > 0);
        const int64_t afterFirstEvent = peakNs - trace->model->beginNs();
        const QString when = QString::fromStdString(format::duration(double(afterFirstEvent))) +
                             QStringLiteral(" after the first event");
        QVERIFY2(page->peak()->text().contains(when),
                 qPrintable(page->peak()->text() + " / " + when));
        QColor gpuColor;
        for (int i = 0; i < memory->graphCount(); ++i)
            if (memory->graph(i)->name() == QStringLiteral("cuda:1 allocated"))
                gpuColor = memory->graph(i)->pen().color();
        QVERIFY(gpuColor.isValid());
        bool labelled = false;
        for (int i = 0; i < memory->itemCount(); ++i)
            if (auto* text = qobject_cast<QCPItemText*>(memory->item(i));
                text && text->text().startsWith(QStringLiteral("peak ")) &&
                text->color() == gpuColor) {
                labelled = true;
                QVERIFY(std::fabs(text->position->key() - double(afterFirstEvent) / 1e6) < 1e-6);
            }
        QVERIFY(labelled);
        page->device()->setCurrentText(QStringLiteral("cpu"));
        QCOMPARE(page->model()->rowCount(), int(trace->summary.memory.at("cpu").byOp.size()));
    }

    // No label or legend drawn outside its plot, on every chart of every page, at the
    // window's default size and at 1024x768: a trace with memory curves on two devices, an
    // H100 lab session (its live plots and sweep), and a run whose roofline has dots.
    void noLabelOutsideItsPlot_data()
    {
        QTest::addColumn<QString>("document");
        QTest::addColumn<QSize>("size");
        const QString session = QStringLiteral(
            KINETOSCOPE_SOURCE_DIR "/tests/data/h100_runs/cnn224/session.kinetoscope.json");
        const QString memory = QString::fromStdString(
            test::sharedTrace("hta/allreduce_memory_rank1.json.gz").string());
        const QString roofline = QString::fromStdString(
            test::sharedTrace("tracelens/rocm_mi300_resnet_act_checkpoint.json.gz").string());
        // Memory that peaks at the trace's last event: the peak's label sits on the right edge.
        const QString peakAtEnd = m_dir.filePath(QStringLiteral("peak_at_the_end.json"));
        {
            std::string events =
                R"({"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 0, "dur": 1000})";
            for (int i = 1; i <= 40; ++i)
                events += ",\n{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", "
                          "\"name\": \"[memory]\", "
                          "\"pid\": 1, \"tid\": 1, \"ts\": " +
                          std::to_string(i * 25) +
                          ", \"args\": {\"Device Type\": 0, \"Device Id\": -1, \"Addr\": " +
                          std::to_string(4096 * i) + ", \"Bytes\": 1048576, \"Total Allocated\": " +
                          std::to_string(1048576 * i) +
                          ", \"Total Reserved\": " + std::to_string(1048576 * i) + "}}";
            QFile file(peakAtEnd);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(("{\"traceEvents\": [\n" + events + "\n]}\n").c_str());
        }
        for (const QSize size : {QSize(1280, 860), QSize(1024, 768)}) {
            const QByteArray tag =
                QByteArray::number(size.width()) + "x" + QByteArray::number(size.height());
            QTest::newRow("peak at the end " + tag) << peakAtEnd << size;
            QTest::newRow("memory " + tag) << memory << size;
            QTest::newRow("session " + tag) << session << size;
            QTest::newRow("roofline " + tag) << roofline << size;
        }
    }

    void noLabelOutsideItsPlot()
    {
        QFETCH(QString, document);
        QFETCH(QSize, size);
        document::OpenOptions options;
        options.callTree = true;
        const auto opened = document::open(document.toStdString(), options);
        QVERIFY(opened && opened->ok());
        widgets::DocumentView view(opened);
        int charts = 0, labels = 0;
        checkLabelsInside(view, size, charts, labels);
        QVERIFY(charts >= 3);
        QVERIFY(labels >= 1);
    }

    // The same over a comparison's pages (its waterfall, the memory overlay) and a job's (the
    // heatmap's values in its cells).
    void noLabelOutsideTheComparisonsAndJobsPlots()
    {
        for (const QSize size : {QSize(1280, 860), QSize(1024, 768)}) {
            const auto before = analysed("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
            const auto after = analysed("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz");
            widgets::CompareView compared(before, after,
                                          compare::compareDocuments(*before, *after));
            int charts = 0, labels = 0;
            checkLabelsInside(compared, size, charts, labels);
            QVERIFY(charts >= 1 && labels >= 1);
            std::string error;
            const auto files =
                job::jobFiles({test::sharedTrace("param/dlrm_8_ranks").string()}, error);
            const auto job = job::openJob(files, {}, error);
            QVERIFY2(job, error.c_str());
            widgets::JobView ranks(*job, {});
            charts = labels = 0;
            checkLabelsInside(ranks, size, charts, labels);
            QVERIFY(charts >= 1 && labels >= 1);
        }
    }

    void followsADarkPalette()
    {
        const QPalette light = QApplication::palette();
        QPalette dark = light;
        dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x20));
        dark.setColor(QPalette::Base, QColor(0x18, 0x18, 0x18));
        dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
        QApplication::setPalette(dark);
        widgets::BreakdownChart chart;
        QApplication::setPalette(light);
        const QImage image = chart.toPixmap(200, 100).toImage();
        QVERIFY(QColor(image.pixel(2, 2)).lightness() < 64);
        widgets::BreakdownChart lightChart;
        QVERIFY(QColor(lightChart.toPixmap(200, 100).toImage().pixel(2, 2)).lightness() > 240);
    }

    void exportsPlotsAndTheReport()
    {
        const auto trace = analysed("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz");
        widgets::DocumentView view(trace);
        const QString dir = m_dir.path();
        for (const char* name : {"bars.png", "bars.svg", "bars.pdf"})
            QVERIFY(widgets::savePlot(*view.overview()->breakdownChart(),
                                      dir + QLatin1Char('/') + QLatin1String(name), 800, 400));
        QVERIFY(kinetoscope::test::distinctColours(QImage(dir + QStringLiteral("/bars.png"))) > 10);
        QString error;
        QVERIFY(!widgets::savePlot(*view.overview()->breakdownChart(),
                                   dir + QStringLiteral("/bars.bmp"), 10, 10, &error));
        QVERIFY(error.contains(QStringLiteral("png")));

        QVERIFY(widgets::writeReport(*trace, dir + QStringLiteral("/report.pdf"), &error));
        QFile pdf(dir + QStringLiteral("/report.pdf"));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.read(5) == "%PDF-");
        QVERIFY(pdf.size() > 50'000);
        QVERIFY(widgets::writeReport(*trace, dir + QStringLiteral("/report.png"), &error));
        const QImage png(dir + QStringLiteral("/report.png"));
        QVERIFY(png.height() > png.width());  // one tall page
        QVERIFY(kinetoscope::test::distinctColours(png) > 50);
        QVERIFY(widgets::writeReport(*trace, dir + QStringLiteral("/report.html"), &error));
        QFile html(dir + QStringLiteral("/report.html"));
        QVERIFY(html.open(QIODevice::ReadOnly));
        const QByteArray text = html.readAll();
        QVERIFY(text.contains("data:image/png;base64,"));
        QVERIFY(text.contains("no-tensor-cores"));
        QVERIFY(!widgets::writeReport(*trace, dir + QStringLiteral("/report.doc"), &error));
    }
};

QTEST_MAIN(TestViews)
#include "test_views.moc"
