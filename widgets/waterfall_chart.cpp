#include "widgets/waterfall_chart.h"

#include "core/format/format.h"
#include "widgets/chart_style.h"

namespace kinetoscope::widgets {

WaterfallChart::WaterfallChart(QWidget* parent) : QCustomPlot(parent)
{
    applyChartStyle(*this);
    yAxis->setLabel(QStringLiteral("time per step (ms)"));
    setMinimumHeight(260);
}

void WaterfallChart::setComparison(const compare::Comparison& c)
{
    clearItems();
    clearPlottables();
    struct Bar
    {
        QString label;
        double from, to;  // ms
        QColor colour;
    };
    std::vector<Bar> bars;
    const double beforeMs = c.before.steps.meanNs / 1e6, afterMs = c.after.steps.meanNs / 1e6;
    const QColor total(0x75, 0x75, 0x75);
    bars.push_back({QStringLiteral("before"), 0.0, beforeMs, total});
    double level = beforeMs;
    for (size_t i = 0; i < c.breakdown.size(); ++i) {
        const compare::Delta& d = c.breakdown[i];
        if (d.status == compare::Delta::Status::Same)
            continue;
        const double delta = d.deltaNs() / 1e6;
        bars.push_back({categoryLabel(analysis::TimeCategory(i)), level, level + delta,
                        delta > 0 ? QColor(0xc6, 0x28, 0x28) : QColor(0x2e, 0x7d, 0x32)});
        level += delta;
    }
    bars.push_back({QStringLiteral("after"), 0.0, afterMs, total});
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
        top = std::max({top, b.from, b.to});
    }
    xAxis->setTicker(ticker);
    xAxis->setRange(0.4, double(bars.size()) + 0.6);
    yAxis->setRange(0.0, top * 1.15 + 1e-9);
    replot();
}

}  // namespace kinetoscope::widgets
