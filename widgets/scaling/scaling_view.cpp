#include "widgets/scaling/scaling_view.h"

#include "core/format/format.h"
#include "widgets/chart_style.h"
#include "widgets/keyboard_focus.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace kinetoscope::widgets {

namespace {

constexpr double kNsPerMs = 1e6;

QString qs(const std::string& text)
{
    return QString::fromStdString(text);
}

QString ms(double value)
{
    return qs(format::duration(value * kNsPerMs));
}

QCustomPlot* makePlot(QWidget* parent, const QString& yLabel, const QString& tooltip)
{
    auto* plot = new QCustomPlot(parent);
    applyChartStyle(*plot);
    plot->setMinimumHeight(190);
    plot->xAxis->setLabel(QObject::tr("world size (ranks)"));
    plot->yAxis->setLabel(yLabel);
    showLegendBelow(*plot, 2);
    plot->setToolTip(tooltip);
    return plot;
}

// Ticks at the world sizes measured, and nowhere else.
void worldSizeTicks(QCustomPlot& plot, const std::vector<scaling::Point>& points)
{
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (const scaling::Point& p : points)
        ticker->addTick(double(p.worldSize), QString::number(p.worldSize));
    plot.xAxis->setTicker(ticker);
}

struct LostPart
{
    const char* name;
    QColor color;
    double scaling::LostTime::*ms;
};

const LostPart kLostParts[] = {
    {"exposed communication", QColor(0xc6, 0x28, 0x28), &scaling::LostTime::exposedCommunicationMs},
    {"waiting for a straggler", QColor(0xef, 0x6c, 0x00), &scaling::LostTime::stragglerWaitMs},
    {"load imbalance", QColor(0xf9, 0xa8, 0x25), &scaling::LostTime::imbalanceMs},
    {"the rest (own work grew)", QColor(0x78, 0x90, 0x9c), &scaling::LostTime::restMs},
};

}  // namespace

ScalingView::ScalingView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    m_title = new QLabel(this);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_title);
    auto* plots = new QHBoxLayout;
    m_throughput = makePlot(this, tr("samples/s"),
                            tr("Samples per second at each world size, beside the ideal: the "
                               "smallest job's per rank, times the world size."));
    m_lost = makePlot(this, tr("lost time per step (ms)"),
                      tr("The step over the ideal step at each world size, split from the job's "
                         "traces."));
    plots->addWidget(m_throughput, 1);
    plots->addWidget(m_lost, 1);
    layout->addLayout(plots, 1);
    m_table = new QTableWidget(this);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tabLeavesTable(m_table);
    m_table->verticalHeader()->hide();
    layout->addWidget(m_table);
    m_method = new QLabel(this);
    m_method->setWordWrap(true);
    layout->addWidget(m_method);
}

void ScalingView::setStudy(const scaling::Study& study)
{
    std::vector<scaling::Point> measured;
    for (const scaling::Point& p : study.points)
        if (p.measured())
            measured.push_back(p);
    m_title->setText((study.strong
                          ? tr("<b>Strong scaling</b> (one global batch divided among the ranks)")
                          : tr("<b>Weak scaling</b> (the per-rank batch fixed)")) +
                     QStringLiteral(" of <tt>%1</tt>").arg(qs(study.command).toHtmlEscaped()));

    m_throughput->clearPlottables();
    QCPGraph* actual = m_throughput->addGraph();
    actual->setName(tr("measured"));
    actual->setPen(QPen(QColor(0x15, 0x65, 0xc0), 2));
    actual->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
    QCPGraph* ideal = m_throughput->addGraph();
    ideal->setName(tr("ideal (N × the smallest job's per rank)"));
    ideal->setPen(QPen(QColor(0x55, 0x55, 0x55), 1.4, Qt::DashLine));
    double top = 0, widest = 1;
    for (const scaling::Point& p : measured) {
        actual->addData(double(p.worldSize), p.samplesPerSecond);
        ideal->addData(double(p.worldSize), p.idealSamplesPerSecond);
        top = std::max({top, p.samplesPerSecond, p.idealSamplesPerSecond});
        widest = std::max(widest, double(p.worldSize));
    }
    worldSizeTicks(*m_throughput, measured);
    m_throughput->xAxis->setRange(0, widest * 1.1 + 0.5);
    m_throughput->yAxis->setRange(0, top * 1.15 + 1e-9);
    m_throughput->replot();

    m_lost->clearPlottables();
    QCPBars* below = nullptr;
    double tallest = 0;
    for (const LostPart& part : kLostParts) {
        auto* bars = new QCPBars(m_lost->xAxis, m_lost->yAxis);
        bars->setName(tr(part.name));
        bars->setPen(Qt::NoPen);
        bars->setBrush(part.color);
        bars->setWidth(std::max(0.4, widest / 12));
        for (const scaling::Point& p : measured)
            bars->addData(double(p.worldSize), p.lost.*part.ms);
        if (below)
            bars->moveAbove(below);
        below = bars;
    }
    for (const scaling::Point& p : measured)
        tallest = std::max(tallest, p.lost.totalMs());
    worldSizeTicks(*m_lost, measured);
    m_lost->xAxis->setRange(0, widest * 1.1 + 0.5);
    m_lost->yAxis->setRange(0, tallest * 1.2 + 1e-3);
    m_lost->replot();

    const QStringList headers = {
        tr("ranks"), tr("batch/rank"),   tr("samples/s"), tr("ideal"),     tr("efficiency"),
        tr("step"),  tr("exposed comm"), tr("waiting"),   tr("imbalance"), tr("rest")};
    m_table->clear();
    m_table->setColumnCount(int(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(int(study.points.size()));
    for (int row = 0; row < int(study.points.size()); ++row) {
        const scaling::Point& p = study.points[size_t(row)];
        auto set = [&](int column, const QString& text) {
            auto* item = new QTableWidgetItem(text);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, column, item);
        };
        set(0, QString::number(p.worldSize));
        if (!p.measured()) {
            set(1, qs(p.error));
            m_table->setSpan(row, 1, 1, int(headers.size()) - 1);
            continue;
        }
        set(1, qs(format::count(p.perRankBatch)));
        set(2, qs(format::number(p.samplesPerSecond)));
        set(3, qs(format::number(p.idealSamplesPerSecond)));
        set(4, qs(format::percent(p.efficiency)));
        set(5, ms(p.stepMs));
        set(6, ms(p.lost.exposedCommunicationMs));
        set(7, ms(p.lost.stragglerWaitMs));
        set(8, ms(p.lost.imbalanceMs));
        set(9, ms(p.lost.restMs));
    }
    m_table->resizeColumnsToContents();
    // As tall as its rows (a study has a few world sizes): the plots take the rest.
    int height = m_table->horizontalHeader()->height() + 2 * m_table->frameWidth();
    for (int row = 0; row < m_table->rowCount(); ++row)
        height += m_table->rowHeight(row);
    m_table->setFixedHeight(height);
    m_method->setText(
        tr("Lost time per step: the step over the ideal step (weak scaling: the smallest job's; "
           "strong: its time per sample at this batch). Split from each job's profiled window: "
           "exposed communication of the rank that waits least (the transfer itself); the mean "
           "rank's further wait for one straggler; the rest of the wait (load imbalance); and "
           "what the window does not explain (each rank's own work grew)."));
}

}  // namespace kinetoscope::widgets
