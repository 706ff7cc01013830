#include "widgets/waterfall_chart.h"

#include "core/format/format.h"
#include "widgets/chart_style.h"

namespace kinetoscope::widgets {

WaterfallChart::WaterfallChart(QWidget* parent) : QCustomPlot(parent)
{
    applyChartStyle(*this);
    yAxis->setLabel(QStringLiteral("time per step (ms)"));
    setMinimumHeight(260);
    // After applyChartStyle's turn of the labels inside (connected first, so called first):
    // a label that had to go onto its bar takes the colour that reads on the bar.
    connect(this, &QCustomPlot::afterLayout, this, &WaterfallChart::colourLabelsOnBars);
}

void WaterfallChart::colourLabelsOnBars()
{
    for (const auto& [label, bar] : m_labels) {
        const QPointF centre =
            (label->topLeft->pixelPosition() + label->bottomRight->pixelPosition()) / 2;
        const QRectF barRect =
            QRectF(bar->topLeft->pixelPosition(), bar->bottomRight->pixelPosition()).normalized();
        label->setColor(barRect.contains(centre) ? textColorOn(bar->brush().color())
                                                 : yAxis->labelColor());
    }
}

void WaterfallChart::setComparison(const compare::Comparison& c)
{
    std::vector<Change> changes;
    for (size_t i = 0; i < c.breakdown.size(); ++i)
        if (c.breakdown[i].status != compare::Delta::Status::Same)
            changes.push_back({categoryLabel(analysis::TimeCategory(i)), c.breakdown[i].deltaNs()});
    setSteps(QStringLiteral("before"), c.before.steps.meanNs, changes, QStringLiteral("after"),
             c.after.steps.meanNs);
}

void WaterfallChart::setSteps(const QString& beforeLabel, double beforeNs,
                              const std::vector<Change>& changes, const QString& afterLabel,
                              double afterNs)
{
    clearItems();
    clearPlottables();
    m_labels.clear();
    struct Bar
    {
        QString label;
        double from, to;  // ms
        QColor colour;
    };
    std::vector<Bar> bars;
    const QColor total(0x75, 0x75, 0x75);
    bars.push_back({beforeLabel, 0.0, beforeNs / 1e6, total});
    double level = beforeNs / 1e6;
    for (const Change& change : changes) {
        const double delta = change.deltaNs / 1e6;
        bars.push_back({change.label, level, level + delta,
                        delta > 0 ? QColor(0xc6, 0x28, 0x28) : QColor(0x2e, 0x7d, 0x32)});
        level += delta;
    }
    bars.push_back({afterLabel, 0.0, afterNs / 1e6, total});
    m_barCount = int(bars.size());

    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    double top = 0.0;
    for (size_t i = 0; i < bars.size(); ++i) {
        const Bar& b = bars[i];
        auto* rect = new QCPItemRect(this);
        rect->topLeft->setCoords(double(i) + 0.65, std::max(b.from, b.to));
        rect->bottomRight->setCoords(double(i) + 1.35, std::min(b.from, b.to));
        rect->setPen(QPen(b.colour.darker(120)));
        rect->setBrush(b.colour);
        ticker->addTick(double(i) + 1, b.label);
        auto* value = new QCPItemText(this);
        value->position->setCoords(double(i) + 1, std::max(b.from, b.to));
        value->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        const double shown = i == 0 || i + 1 == bars.size() ? b.to : b.to - b.from;
        value->setText(QString::fromStdString(i == 0 || i + 1 == bars.size()
                                                  ? format::duration(shown * 1e6)
                                                  : format::durationChange(shown * 1e6)));
        value->setColor(yAxis->labelColor());
        m_labels.emplace_back(value, rect);
        top = std::max({top, b.from, b.to});
    }
    xAxis->setTicker(ticker);
    xAxis->setRange(0.4, double(bars.size()) + 0.6);
    yAxis->setRange(0.0, top * 1.15 + 1e-9);
    replot();
}

}  // namespace kinetoscope::widgets
