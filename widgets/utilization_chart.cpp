#include "widgets/utilization_chart.h"

#include "widgets/chart_style.h"

namespace kinetoscope::widgets {

namespace {
const QColor kGpuColors[] = {QColor(0x2e, 0x7d, 0x32), QColor(0x00, 0x83, 0x8f),
                             QColor(0x55, 0x8b, 0x2f), QColor(0x00, 0x69, 0x5c)};
}

UtilizationChart::UtilizationChart(QWidget* parent) : QCustomPlot(parent)
{
    applyChartStyle(*this);
    setMinimumHeight(150);  // the Overview fits a laptop's screen (breakdown_chart.cpp)
    xAxis->setLabel(QStringLiteral("time since the start of the trace (ms)"));
    yAxis->setLabel(QStringLiteral("busy (%)"));
    yAxis->setRange(0, 105);
    showLegendBeside(*this);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeZoom(Qt::Horizontal);
    axisRect()->setRangeDrag(Qt::Horizontal);
    setToolTip(QStringLiteral(
        "Share of each time bucket in which a GPU kernel ran (green) and a CPU op ran "
        "(grey); dashed lines are step boundaries."));
}

void UtilizationChart::setSeries(const analysis::UtilizationSeries& series,
                                 const analysis::StepDetection& steps)
{
    clearGraphs();
    clearItems();
    m_highlight = nullptr;
    m_originNs = series.beginNs;
    auto addCurve = [&](const std::vector<float>& values, const QString& name, const QColor& color,
                        bool fill) {
        QCPGraph* graph = addGraph();
        graph->setName(name);
        graph->setLineStyle(QCPGraph::lsStepLeft);
        graph->setPen(QPen(color, 1.2));
        if (fill)
            graph->setBrush(QColor(color.red(), color.green(), color.blue(), 60));
        graph->setAdaptiveSampling(false);
        QVector<double> keys, busy;
        keys.reserve(int(values.size()));
        for (size_t b = 0; b < values.size(); ++b) {
            keys << double(int64_t(b) * series.bucketNs) / 1e6;
            busy << std::min(100.0, double(values[b]) * 100.0);
        }
        graph->setData(keys, busy, true);
    };
    addCurve(series.cpuBusy, QStringLiteral("CPU ops"), QColor(0x75, 0x75, 0x75), false);
    int index = 0;
    for (const auto& [device, values] : series.gpuBusy)
        addCurve(values, QStringLiteral("GPU %1 kernels").arg(device), kGpuColors[index++ % 4],
                 true);
    m_stepMarkers = 0;
    for (const analysis::Step& step : steps.steps) {
        if (!steps.fromMarkers)
            break;
        auto* line = new QCPItemStraightLine(this);
        const double x = double(step.beginNs - m_originNs) / 1e6;
        line->point1->setCoords(x, 0);
        line->point2->setCoords(x, 1);
        line->setPen(QPen(QColor(0x42, 0x42, 0x42, 120), 1, Qt::DashLine));
        ++m_stepMarkers;
    }
    const double span = double(series.bucketNs) * double(series.cpuBusy.size()) / 1e6;
    xAxis->setRange(0, std::max(span, 1e-3));
    replot();
}

void UtilizationChart::highlight(int64_t beginNs, int64_t endNs)
{
    if (m_highlight) {
        removeItem(m_highlight);
        m_highlight = nullptr;
    }
    if (endNs > beginNs) {
        m_highlight = new QCPItemRect(this);
        m_highlight->topLeft->setCoords(double(beginNs - m_originNs) / 1e6, 105);
        m_highlight->bottomRight->setCoords(double(endNs - m_originNs) / 1e6, 0);
        m_highlight->setPen(QPen(QColor(0xd3, 0x2f, 0x2f), 1));
        m_highlight->setBrush(QColor(0xd3, 0x2f, 0x2f, 50));
        const double width = double(endNs - beginNs) / 1e6;
        xAxis->setRange(double(beginNs - m_originNs) / 1e6 - 4 * width,
                        double(endNs - m_originNs) / 1e6 + 4 * width);
    }
    replot();
}

}  // namespace kinetoscope::widgets
