#include "widgets/memory_chart.h"

#include "core/format/format.h"
#include "widgets/chart_style.h"

namespace kinetoscope::widgets {

namespace {

// About two points per pixel are plenty: the lowest and highest point of each bucket.
void reduce(const std::vector<analysis::MemoryPoint>& curve, bool reserved, int64_t originNs,
            int buckets, QVector<double>& keys, QVector<double>& values)
{
    for (const analysis::MemoryPoint& p :
         analysis::reduceCurve(curve, size_t(2 * buckets), reserved)) {
        keys << double(p.timeNs - originNs) / 1e6;
        values << double(reserved ? p.reservedBytes : p.allocatedBytes) / format::kGiB;
    }
}

}  // namespace

MemoryChart::MemoryChart(QWidget* parent) : QCustomPlot(parent)
{
    applyChartStyle(*this);
    setMinimumHeight(240);
    xAxis->setLabel(QStringLiteral("time since the start of the trace (ms)"));
    yAxis->setLabel(QStringLiteral("memory (GiB)"));
    showLegendBeside(*this);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeZoom(Qt::Horizontal);
    axisRect()->setRangeDrag(Qt::Horizontal);
    setMouseTracking(true);
    connect(this, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        showReadoutAt(xAxis->pixelToCoord(event->position().x()));
    });
    setToolTip(QStringLiteral(
        "Allocated: memory held by live tensors. Reserved: memory the caching allocator "
        "holds from the driver."));
}

void MemoryChart::setMemory(const std::map<std::string, analysis::DeviceMemory>& memory,
                            const analysis::StepDetection& steps, int64_t originNs)
{
    clearGraphs();
    clearItems();
    m_readout = nullptr;
    m_tracer = nullptr;
    double top = 0, right = 0;
    int colour = 0;
    int64_t maxPeak = 0;
    for (const auto& [device, d] : memory)
        maxPeak = std::max(maxPeak, d.peakAllocatedBytes);
    static const QColor colours[] = {QColor(0x15, 0x65, 0xc0), QColor(0x2e, 0x7d, 0x32),
                                     QColor(0x8e, 0x24, 0xaa), QColor(0xef, 0x6c, 0x00)};
    for (const auto& [device, d] : memory) {
        const QColor c = colours[colour++ % 4];
        for (bool reserved : {false, true}) {
            if (reserved && !d.peakReservedBytes)
                continue;  // not recorded: not drawn, rather than drawn as zero
            QVector<double> keys, values;
            reduce(d.curve, reserved, originNs, 1500, keys, values);
            QCPGraph* graph = addGraph();
            graph->setName(QStringLiteral("%1 %2%3").arg(
                QString::fromStdString(device),
                reserved ? QStringLiteral("reserved") : QStringLiteral("allocated"),
                d.totalsRecorded || reserved ? QString() : QStringLiteral(" (rebuilt)")));
            graph->setPen(QPen(c, reserved ? 1.0 : 1.6, reserved ? Qt::DashLine : Qt::SolidLine));
            graph->setLineStyle(QCPGraph::lsStepLeft);
            graph->setAdaptiveSampling(false);
            graph->setData(keys, values, true);
            for (double v : values)
                top = std::max(top, v);
            if (!keys.isEmpty())
                right = std::max(right, keys.back());
        }
        // The allocated peak, marked.
        auto peak =
            std::max_element(d.curve.begin(), d.curve.end(), [](const auto& a, const auto& b) {
                return a.allocatedBytes < b.allocatedBytes;
            });
        if (peak != d.curve.end() && double(peak->allocatedBytes) >= 0.05 * double(maxPeak)) {
            auto* label = new QCPItemText(this);
            label->position->setCoords(double(peak->timeNs - originNs) / 1e6,
                                       double(peak->allocatedBytes) / format::kGiB);
            label->setPositionAlignment(Qt::AlignBottom | Qt::AlignHCenter);
            label->setText(QStringLiteral("peak %1").arg(
                QString::fromStdString(format::bytes(double(peak->allocatedBytes)))));
            label->setColor(c);
        }
    }
    if (steps.fromMarkers) {
        for (const analysis::Step& step : steps.steps) {
            auto* line = new QCPItemStraightLine(this);
            const double x = double(step.beginNs - originNs) / 1e6;
            line->point1->setCoords(x, 0);
            line->point2->setCoords(x, 1);
            line->setPen(QPen(QColor(0x42, 0x42, 0x42, 90), 1, Qt::DashLine));
        }
    }
    if (graphCount() > 0) {
        m_tracer = new QCPItemTracer(this);
        m_tracer->setGraph(graph(0));
        m_tracer->setStyle(QCPItemTracer::tsCircle);
        m_tracer->setVisible(false);
        m_readout = new QCPItemText(this);
        m_readout->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
        m_readout->position->setType(QCPItemPosition::ptAxisRectRatio);
        m_readout->position->setCoords(0.01, 0.01);
        m_readout->setBrush(QColor(255, 255, 255, 220));
        m_readout->setPadding(QMargins(4, 2, 4, 2));
        m_readout->setVisible(false);  // appears on hover (and stays out of exported images)
    }
    xAxis->setRange(0, std::max(right, 1e-3));
    yAxis->setRange(0, std::max(top * 1.15, 1e-3));
    replot();
}

int MemoryChart::curvePointCount() const
{
    int points = 0;
    for (int i = 0; i < graphCount(); ++i)
        points += graph(i)->data()->size();
    return points;
}

void MemoryChart::showReadoutAt(double key)
{
    if (!m_readout || graphCount() == 0)
        return;
    QStringList lines{
        QStringLiteral("t = %1").arg(QString::fromStdString(format::duration(key * 1e6)))};
    for (int i = 0; i < graphCount(); ++i) {
        const auto points = graph(i)->data();
        auto it = points->findBegin(key, false);
        if (it == points->constEnd())
            continue;
        lines << QStringLiteral("%1: %2").arg(
            graph(i)->name(), QString::fromStdString(format::bytes(it->value * format::kGiB)));
    }
    m_readout->setText(lines.join(QLatin1Char('\n')));
    m_readout->setVisible(true);
    m_tracer->setGraphKey(key);
    m_tracer->setVisible(true);
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace kinetoscope::widgets
