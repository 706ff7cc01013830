#include "widgets/breakdown_chart.h"

#include "widgets/chart_style.h"

namespace kinetoscope::widgets {

using analysis::kTimeCategoryCount;
using analysis::TimeCategory;

BreakdownChart::BreakdownChart(QWidget* parent) : QCustomPlot(parent)
{
    applyChartStyle(*this);
    // Room for its legend of eight categories beside it, and no more: the Overview fits a
    // laptop's screen with a line or two of problems above it.
    setMinimumHeight(190);
    yAxis->setLabel(QStringLiteral("time per step (ms)"));
    showLegendBeside(*this);
    setToolTip(QStringLiteral(
        "Each step's wall time, each instant counted once in the order "
        "kernel > memcpy > memset > communication > runtime > DataLoader > CPU exec > other."));
}

void BreakdownChart::setBreakdown(const analysis::StepDetection& steps,
                                  const analysis::Breakdown& breakdown)
{
    clearPlottables();
    const size_t n = breakdown.perStep.size();
    m_barCount = n ? static_cast<int>(n) + 1 : 0;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const size_t labelEvery = std::max<size_t>(1, n / 12);
    for (size_t i = 0; i < n; i += labelEvery) {
        QString name = QString::fromStdString(steps.steps[i].name);
        name.remove(QStringLiteral("ProfilerStep"));
        ticker->addTick(double(i + 1), name.isEmpty() ? QStringLiteral("window") : name);
    }
    ticker->addTick(double(n + 2), QStringLiteral("average"));
    xAxis->setTicker(ticker);
    xAxis->setTickLabelRotation(n > 12 ? 45 : 0);

    QCPBars* below = nullptr;
    double top = 0;
    for (size_t c = 0; c < kTimeCategoryCount; ++c) {
        auto* bars = new QCPBars(xAxis, yAxis);
        const auto category = TimeCategory(c);
        bars->setName(categoryLabel(category));
        bars->setPen(Qt::NoPen);
        bars->setBrush(categoryColor(category));
        bars->setWidth(0.7);
        QVector<double> keys, values;
        for (size_t i = 0; i < n; ++i) {
            keys << double(i + 1);
            values << double(breakdown.perStep[i].ns[c]) / 1e6;
        }
        keys << double(n + 2);
        values << breakdown.averageNs[c] / 1e6;
        bars->setData(keys, values, true);
        if (below)
            bars->moveAbove(below);
        below = bars;
    }
    for (const auto& step : breakdown.perStep)
        top = std::max(top, double(step.totalNs) / 1e6);
    xAxis->setRange(0, double(n) + 3);
    yAxis->setRange(0, std::max(top, breakdown.averageTotalNs / 1e6) * 1.25 + 1e-3);
    replot();
}

}  // namespace kinetoscope::widgets
