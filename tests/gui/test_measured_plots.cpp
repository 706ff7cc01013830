// Plots show what was measured and mark what cannot be right (issue 50): the Lab page draws
// a sweep's plot only when that sweep ran (no empty axes from 0.001 to 1); the roofline draws
// a dot above its roof (a measurement or peak error) apart from the others, with a legend
// entry saying so, and puts its roof labels where no dot is.
#ifndef Q_MOC_RUN
#include "core/document/document.h"
#include "tests/support/analysed_document.h"
#include "widgets/document_view.h"
#include "widgets/live_run_view.h"
#include "widgets/roofline/roofline_panel.h"
#include "widgets/roofline/roofline_plot.h"
#include "widgets/scaling/scaling_view.h"
#endif

#include <QTableWidget>
#include <QtTest>
#include <cmath>
#include <qcustomplot.h>

using namespace kinetoscope;

namespace {

std::shared_ptr<const document::Document> labSession(const char* run)
{
    return document::open(std::string(KINETOSCOPE_SOURCE_DIR "/tests/data/h100_runs/") + run +
                          "/session.kinetoscope.json");
}

// The plots of a lab's view that are shown, and the ones among them with nothing to draw.
struct ShownPlots
{
    int shown = 0;
    QStringList empty;  // by their x axis' label
};

ShownPlots shownPlots(const widgets::LiveRunView& view)
{
    ShownPlots result;
    for (QCustomPlot* plot : view.findChildren<QCustomPlot*>()) {
        if (!plot->isVisibleTo(&view))
            continue;
        ++result.shown;
        bool drawn = false;
        for (int i = 0; i < plot->plottableCount(); ++i) {
            QCPAbstractPlottable* p = plot->plottable(i);
            if (const auto* graph = qobject_cast<const QCPGraph*>(p))
                drawn |= !graph->data()->isEmpty();
            else if (const auto* bars = qobject_cast<const QCPBars*>(p))
                drawn |= !bars->data()->isEmpty();
        }
        if (!drawn)
            result.empty << plot->xAxis->label();
    }
    return result;
}

// The pixel a graph's point is drawn at.
QPointF pixelOf(const QCPGraph& graph, double key, double value)
{
    return {graph.keyAxis()->coordToPixel(key), graph.valueAxis()->coordToPixel(value)};
}

}  // namespace

class TestMeasuredPlots : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // A lab that ran no sweep (the H100 CNN run) shows no sweep plot; one that swept only the
    // loader's workers (the data-starved run) shows that one and not the batch size's; one
    // that swept only the batch size (the checkpointing run, which recorded no live sample:
    // no utilisation or memory curve either) the other way round. No plot shown is empty.
    void theLabPageShowsOnlyTheSweepsThatRan_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<int>("plots");
        QTest::addColumn<QString>("sweep");
        QTest::newRow("no sweep") << QStringLiteral("cnn224") << 3 << QString();
        QTest::newRow("workers") << QStringLiteral("starved") << 4
                                 << QStringLiteral("loader workers");
        QTest::newRow("batch size")
            << QStringLiteral("checkpoint") << 2 << QStringLiteral("batch size");
    }

    void theLabPageShowsOnlyTheSweepsThatRan()
    {
        QFETCH(QString, run);
        QFETCH(int, plots);
        QFETCH(QString, sweep);
        const auto opened = labSession(run.toUtf8().constData());
        QVERIFY2(opened && opened->session, opened ? opened->loadMessage.c_str() : "");
        widgets::LiveRunView view(widgets::LiveRunView::titleOf(*opened->session));
        view.showSession(*opened->session);
        view.resize(1366, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const ShownPlots shown = shownPlots(view);
        QVERIFY2(shown.empty.isEmpty(),
                 qPrintable(QStringLiteral("empty: ") + shown.empty.join(QStringLiteral(", "))));
        QCOMPARE(shown.shown, plots);
        bool sweepShown = false;
        for (const QCustomPlot* plot : view.findChildren<QCustomPlot*>())
            sweepShown |= plot->isVisibleTo(&view) && plot->xAxis->label() == sweep;
        QCOMPARE(sweepShown, !sweep.isEmpty());
    }

    // Live, a sweep's plot appears with its first point; what measures as the run goes (the
    // samples, the steps) is drawn from the start, and goes at the end if nothing came.
    void aSweepPlotAppearsWithItsFirstPoint()
    {
        widgets::LiveRunView view(QStringLiteral("mlp on synthetic, batch 32"));
        view.resize(1366, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const int before = shownPlots(view).shown;
        session::SweepPoint point;
        point.knob = "workers";
        point.value = 2;
        point.samplesPerSecond = 1000;
        view.addSweepPoint(point);
        QCOMPARE(shownPlots(view).shown, before + 1);
        point.knob = "batch_size";
        point.value = 64;
        view.addSweepPoint(point);
        QCOMPARE(shownPlots(view).shown, before + 2);
        // At the end, the plots that got nothing (no sample, no step) go.
        view.finish({}, {});
        const ShownPlots shown = shownPlots(view);
        QVERIFY2(shown.empty.isEmpty(), qPrintable(shown.empty.join(QStringLiteral(", "))));
        QCOMPARE(shown.shown, 2);
    }

    // ResNet-50 on a V100 has op groups measured above their roof (the fp32 roof, for
    // convolutions that ran on Tensor Cores): each is drawn with a red ring over its dot, the
    // legend says what the ring means; the roof labels cover no dot, at a laptop's size and
    // a large one.
    void theRooflineFlagsDotsAboveTheirRoofAndLabelsNoDot_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<QSize>("size");
        for (const char* trace : {"kineto/resnet50_v100_workers4_2021.pt.trace.json.gz",
                                  "tracelens/rocm_mi300_resnet_act_checkpoint.json.gz"})
            for (const QSize size : {QSize(1366, 700), QSize(1920, 1040)})
                QTest::newRow(qPrintable(QStringLiteral("%1 %2x%3")
                                             .arg(QString::fromLatin1(trace).section('/', 1, 1))
                                             .arg(size.width())
                                             .arg(size.height())))
                    << QString::fromLatin1(trace) << size;
    }

    void theRooflineFlagsDotsAboveTheirRoofAndLabelsNoDot()
    {
        QFETCH(QString, trace);
        QFETCH(QSize, size);
        const auto opened = test::analysed(trace.toUtf8().constData());
        widgets::DocumentView view(opened);
        view.resize(size);
        view.setCurrentIndex(widgets::DocumentView::Operators);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        widgets::RooflinePlot* plot = view.roofline()->plot();
        plot->replot();
        const roofline::Roofline& r = opened->summary.roofline;
        QVERIFY(plot->dotCount() > 0);
        int flagged = 0;
        std::vector<double> radius(size_t(plot->dotCount()), 0.0);  // of each dot's disc
        for (int dot = 0; dot < plot->dotCount(); ++dot) {
            const roofline::OpRoofline& op = r.ops[plot->opOfDot(dot)];
            const QPointF at = plot->dotPosition(dot);
            // The graphs drawn at the dot: its own, and a red ring when it is above its roof.
            int graphs = 0;
            bool ring = false;
            for (int g = 0; g < plot->graphCount(); ++g) {
                const QCPGraph* graph = plot->graph(g);
                for (const QCPGraphData& d : *graph->data()) {
                    const QPointF p = pixelOf(*graph, d.key, d.value);
                    if (std::hypot(p.x() - at.x(), p.y() - at.y()) > 0.5)
                        continue;
                    ++graphs;
                    const QColor pen = graph->scatterStyle().pen().color();
                    const bool red = pen.red() > 180 && pen.green() < 80 && pen.blue() < 80 &&
                                     graph->scatterStyle().brush().style() == Qt::NoBrush;
                    ring |= red;
                    if (!red)
                        radius[size_t(dot)] =
                            std::max(radius[size_t(dot)], graph->scatterStyle().size() / 2);
                }
            }
            QVERIFY(graphs >= 1);
            QVERIFY2(ring == op.rating.abovePeak,
                     qPrintable(QStringLiteral("%1: above its roof %2, ringed %3")
                                    .arg(QString::fromStdString(op.name))
                                    .arg(op.rating.abovePeak)
                                    .arg(ring)));
            flagged += op.rating.abovePeak;
        }
        bool legendSays = false;
        for (int i = 0; i < plot->legend->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i)))
                legendSays |= item->plottable()->name().contains(QStringLiteral("above its roof"));
        QCOMPARE(legendSays && plot->legend->visible(), flagged > 0);
        if (trace.contains(QStringLiteral("v100")))
            QVERIFY(flagged > 0);  // the convolutions measured above the fp32 roof

        // No roof label over a dot: the label's box clear of every dot's disc.
        int labels = 0;
        for (int i = 0; i < plot->itemCount(); ++i) {
            const auto* text = qobject_cast<QCPItemText*>(plot->item(i));
            if (!text || !text->visible() || text->text().isEmpty())
                continue;
            ++labels;
            const QRectF box =
                QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition())
                    .normalized();
            const QRect axes = plot->axisRect()->rect();
            QVERIFY2(axes.adjusted(-1, -1, 1, 1).contains(box.toRect()),
                     qPrintable(QStringLiteral("\"%1\" at %2,%3 %4x%5 outside the axes %6,%7 %8x%9")
                                    .arg(text->text())
                                    .arg(box.x())
                                    .arg(box.y())
                                    .arg(box.width())
                                    .arg(box.height())
                                    .arg(axes.x())
                                    .arg(axes.y())
                                    .arg(axes.width())
                                    .arg(axes.height())));
            for (int dot = 0; dot < plot->dotCount(); ++dot) {
                const QPointF c = plot->dotPosition(dot);
                const double dx = std::max({box.left() - c.x(), 0.0, c.x() - box.right()});
                const double dy = std::max({box.top() - c.y(), 0.0, c.y() - box.bottom()});
                QVERIFY2(
                    std::hypot(dx, dy) >= radius[size_t(dot)],
                    qPrintable(QStringLiteral("\"%1\" at %2,%3 %4x%5 covers the dot of %6")
                                   .arg(text->text())
                                   .arg(box.x())
                                   .arg(box.y())
                                   .arg(box.width())
                                   .arg(box.height())
                                   .arg(QString::fromStdString(r.ops[plot->opOfDot(dot)].name))));
            }
        }
        QVERIFY(labels >= plot->roofCount());
    }

    // The Scaling page on a real study (kinetoscope profile --scaling 1,2,4 on
    // tests/probe/train_ddp.py, this 2-core machine): one measured dot per world size on
    // the ideal's line's world sizes, the ideal N times the one rank's, the lost time
    // stacked per world size exactly as the study split it, a table row per world size.
    // Every tick label is its tick's value: decades as numbers (0.01 ... 1 ... 1,000), and
    // the linear ticks (2, 4, 6, 8) of an axis that spans about one decade as themselves.
    void theRooflineLabelsEachTickWithItsValue()
    {
        for (const double spread : {1.0, 1000.0}) {  // one decade of dots, or four
            roofline::Roofline r;
            for (const double intensity : {1.5, 1.5 * spread}) {
                roofline::OpRoofline op;
                op.name = "aten::mm";
                op.deviceNs = 1000;
                op.rating.intensity = intensity;
                op.rating.achievedTflops = 2.0 * (intensity / 1.5 > 1 ? 3.0 : 1.0);
                r.ops.push_back(op);
            }
            widgets::RooflinePlot plot;
            plot.resize(600, 400);
            plot.setRoofline(r);
            plot.replot();
            for (QCPAxis* axis : {plot.xAxis, plot.yAxis}) {
                const QVector<double> ticks = axis->tickVector();
                const QVector<QString> labels = axis->tickVectorLabels();
                QVERIFY(!ticks.isEmpty());
                for (int i = 0; i < ticks.size(); ++i) {
                    const double read = QLocale::c().toDouble(QString(labels[i]).remove(','));
                    QVERIFY2(std::fabs(read - ticks[i]) <= 1e-6 * ticks[i],
                             qPrintable(labels[i] + " at " + QString::number(ticks[i])));
                }
            }
        }
    }

    void theScalingPageDrawsWhatTheStudyMeasured()
    {
        std::string error;
        const auto study =
            scaling::loadStudy(KINETOSCOPE_SOURCE_DIR
                               "/tests/data/scaling/train_ddp_weak_1_2_4.scaling.kinetoscope.json",
                               error);
        QVERIFY2(study, error.c_str());
        widgets::ScalingView view;
        view.resize(1280, 700);
        view.setStudy(*study);
        QCustomPlot* throughput = view.throughputPlot();
        QCOMPARE(throughput->graphCount(), 2);
        QCPGraph* measured = throughput->graph(0);
        QCPGraph* ideal = throughput->graph(1);
        QCOMPARE(measured->dataCount(), 3);
        QCOMPARE(ideal->dataCount(), 3);
        for (int i = 0; i < 3; ++i) {
            const scaling::Point& p = study->points[size_t(i)];
            QCOMPARE(measured->data()->at(i)->key, double(p.worldSize));
            QCOMPARE(measured->data()->at(i)->value, p.samplesPerSecond);
            QCOMPARE(ideal->data()->at(i)->value, study->points[0].samplesPerSecond * p.worldSize);
        }
        // The ideal is above what was measured from two ranks on: both fit the axis.
        QVERIFY(throughput->yAxis->range().upper >= ideal->data()->at(2)->value);
        QCustomPlot* lost = view.lostTimePlot();
        QCOMPARE(lost->plottableCount(), 4);
        double stacked = 0;
        for (int b = 0; b < 4; ++b) {
            auto* bars = qobject_cast<QCPBars*>(lost->plottable(b));
            QVERIFY(bars);
            QCOMPARE(bars->dataCount(), 3);
            stacked += bars->data()->at(2)->value;  // four ranks
        }
        QVERIFY(std::abs(stacked - study->points[2].lost.totalMs()) < 1e-9);
        QVERIFY(stacked > 0);
        QVERIFY(lost->yAxis->range().upper >= stacked);
        QCOMPARE(view.table()->rowCount(), 3);
        QCOMPARE(view.table()->item(2, 0)->text(), QStringLiteral("4"));
    }
};

QTEST_MAIN(TestMeasuredPlots)
#include "test_measured_plots.moc"
