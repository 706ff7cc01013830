#include "widgets/roofline/roofline_plot.h"

#include "core/format/format.h"
#include "widgets/chart_style.h"

#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <map>

namespace kinetoscope::widgets {

using namespace kinetoscope::roofline;

namespace {

QColor kindColor(OpKind kind)
{
    switch (kind) {
    case OpKind::Matmul:
        return QColor(31, 119, 180);
    case OpKind::Convolution:
        return QColor(44, 160, 44);
    case OpKind::Attention:
        return QColor(148, 103, 189);
    case OpKind::Normalization:
    case OpKind::Softmax:
    case OpKind::Reduction:
        return QColor(214, 39, 40);
    case OpKind::Elementwise:
    case OpKind::Copy:
        break;
    }
    return QColor(255, 127, 14);
}

// Decades written alike, as numbers: 0.001 ... 1 ... 1,000 (QCustomPlot's "gb" format wrote
// 0.1 and 1 as decimals and 10 on as powers, 10¹ 10² 10³, on one axis).
class DecadeTicker : public QCPAxisTickerLog
{
protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar format, int precision) override
    {
        const int decade = int(std::lround(std::log10(tick)));
        // Under about 1.6 decades the log ticker falls back to linear ticks (2, 4, 6, 8):
        // those keep the axis's own labels.
        if (std::fabs(tick - std::pow(10.0, decade)) > 1e-9 * std::pow(10.0, decade))
            return QCPAxisTickerLog::getTickLabel(tick, locale, format, precision);
        if (decade >= 0)
            return QString::fromStdString(
                format::count(uint64_t(std::llround(std::pow(10.0, decade)))));
        return QStringLiteral("0.") + QString(-decade - 1, QLatin1Char('0')) + QLatin1Char('1');
    }
};

// The axes reach this factor past the dots' decades, so that a dot on the range's edge (a
// group below the plot's floor, drawn on it) is whole, not cut by the axis line.
const double kEdgeMargin = std::pow(10.0, 0.12);

QString roofLabel(Precision precision, bool matrix, bool tf32)
{
    if (!matrix)
        return QStringLiteral("fp32");
    if (precision == Precision::Fp32)
        return tf32 ? QStringLiteral("tf32") : QStringLiteral("fp32");
    return QString::fromLatin1(precisionName(precision));
}

}  // namespace

RooflinePlot::RooflinePlot(QWidget* parent) : QCustomPlot(parent)
{
    applyChartStyle(*this);
    for (QCPAxis* axis : {xAxis, yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new DecadeTicker));
    }
    xAxis->setLabel(tr("Arithmetic intensity (FLOP/byte)"));
    yAxis->setLabel(tr("Achieved (TFLOP/s)"));
    setMouseTracking(true);
    setMinimumSize(360, 280);
    // Only the flag has a legend entry (the colours are the caption's): under the axes when
    // some dot is flagged.
    setAutoAddPlottableToLegend(false);
    connect(this, &QCustomPlot::afterLayout, this, &RooflinePlot::placeRoofLabels);
}

int RooflinePlot::flaggedCount() const
{
    return int(
        std::count_if(m_dots.begin(), m_dots.end(), [](const Dot& d) { return d.abovePeak; }));
}

void RooflinePlot::setRoofline(const Roofline& roofline)
{
    clearGraphs();
    clearItems();
    legend->clearItems();
    legend->setVisible(false);
    if (legend->layout() != axisRect()->insetLayout()) {
        // Out of the plot's grid: hidden there, it would still hold the axes to its width.
        plotLayout()->take(legend);
        plotLayout()->simplify();
        axisRect()->insetLayout()->addElement(legend, Qt::AlignRight | Qt::AlignTop);
    }
    m_dots.clear();
    m_labels.clear();
    m_roofGraphs.clear();
    m_bandwidth = 0;
    m_highestRidge = 0;
    m_roofs = 0;
    int64_t total = 0;
    for (const OpRoofline& op : roofline.ops)
        total += op.modelled() ? op.deviceNs : 0;
    double xMin = 1e9, xMax = 0, yMin = 1e9, yMax = 0;
    std::map<double, QString> ceilings;  // TFLOP/s -> label
    double bandwidth = 0;
    for (size_t i = 0; i < roofline.ops.size() && m_dots.size() < size_t(kMaxDots); ++i) {
        const OpRoofline& op = roofline.ops[i];
        const Rating& r = op.rating;
        if (!op.modelled() || r.intensity <= 0 || r.achievedTflops <= 0)
            continue;
        const double share = total > 0 ? double(op.deviceNs) / double(total) : 0;
        const double size = 5.0 + 28.0 * std::sqrt(share);  // area by device time
        QColor fill = kindColor(op.kind);
        fill.setAlpha(170);
        QString label = QString::fromStdString(op.name);
        if (!op.inputShapes.empty())
            label += QLatin1Char(' ') + QString::fromStdString(format::clip(op.inputShapes, 80));
        if (!op.fusedOps.empty())  // a compiled kernel's launch: what its kernel fused
            label += QStringLiteral("\nfused: ") + QString::fromStdString(op.fusedOps);
        label += QStringLiteral("\n%1, %2: %3, %4 (%5-bound, %6 of its roof)")
                     .arg(QString::fromLatin1(precisionName(op.precision)),
                          QString::fromStdString(format::duration(double(op.deviceNs))),
                          QString::fromStdString(format::flopRate(r.achievedTflops * 1e12)),
                          QString::fromStdString(format::bandwidth(r.achievedGbps * 1e9)),
                          QString::fromLatin1(boundName(r.bound)),
                          QString::fromStdString(format::percent(r.shareOfRoof)));
        if (!op.note.empty())
            label += QLatin1Char('\n') + QString::fromStdString(op.note);
        m_dots.push_back({r.intensity, r.achievedTflops, i, label, size, fill, r.abovePeak});
        xMin = std::min(xMin, r.intensity);
        xMax = std::max(xMax, r.intensity);
        yMin = std::min(yMin, r.achievedTflops);
        yMax = std::max(yMax, r.achievedTflops);
        if (r.roofs.tflops > 0) {
            const bool tf32 = roofline.peaks && r.roofs.tflops == roofline.peaks->tf32Tflops;
            ceilings.emplace(r.roofs.tflops, roofLabel(op.precision, isMatrixKind(op.kind), tf32));
        }
        bandwidth = std::max(bandwidth, r.roofs.gbps);
    }
    if (m_dots.empty()) {
        xAxis->setRange(0.1, 1000);
        yAxis->setRange(0.01, 1000);
        replot();
        return;
    }
    // The range holds every dot and every ridge point, in whole decades.
    for (const auto& [tflops, name] : ceilings) {
        yMax = std::max(yMax, tflops);
        if (bandwidth > 0)
            xMax = std::max(xMax, tflops * 1e3 / bandwidth);
    }
    const double x0 = std::pow(10.0, std::floor(std::log10(xMin)));
    const double x1 = std::pow(10.0, std::ceil(std::log10(xMax * 1.5)));
    const double y1 = std::pow(10.0, std::ceil(std::log10(yMax * 1.5)));
    // At most kDecades below the top: groups slower than that (a few-element op) sit on
    // the bottom edge, drawn hollow.
    const double y0 =
        std::max(std::pow(10.0, std::floor(std::log10(yMin))), y1 / std::pow(10.0, kDecades));
    xAxis->setRange(x0 / kEdgeMargin, x1);
    yAxis->setRange(y0 / kEdgeMargin, y1);

    // The roofs under the dots: the memory slope up to each ceiling, then the ceiling.
    QPen roofPen(QColor(60, 60, 60));
    roofPen.setWidthF(1.6);
    m_bandwidth = bandwidth;
    const auto label = [this, x0, y0](const QString& text) {
        // Placed by placeRoofLabels once the axes have their pixels; on a white box, so a
        // grid line or a roof crossing it never makes it hard to read.
        auto* item = new QCPItemText(this);
        item->setClipToAxisRect(true);
        item->position->setType(QCPItemPosition::ptPlotCoords);
        item->position->setCoords(x0, y0);  // on the axes (a log axis has no 0) until placed
        item->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        item->setText(text);
        item->setColor(QColor(60, 60, 60));
        item->setBrush(QColor(255, 255, 255, 220));
        item->setPadding(QMargins(2, 1, 2, 1));
        return item;
    };
    for (const auto& [tflops, name] : ceilings) {
        QCPGraph* roof = addGraph();
        roof->setPen(roofPen);
        roof->setSelectable(QCP::stNone);
        const double ridge = bandwidth > 0 ? tflops * 1e3 / bandwidth : x0;
        if (bandwidth > 0 && ridge > x0)
            roof->addData(x0, x0 * bandwidth / 1e3);
        roof->addData(std::max(ridge, x0), tflops);
        roof->addData(x1, tflops);
        m_roofGraphs.push_back(roof);
        m_highestRidge = std::max(m_highestRidge, ridge);
        m_labels.push_back({label(QStringLiteral("%1 %2").arg(
                                name, QString::fromStdString(format::flopRate(tflops * 1e12)))),
                            tflops, std::max(ridge, x0)});
        ++m_roofs;
    }
    if (bandwidth > 0)
        m_labels.push_back(
            {label(QString::fromStdString(format::bandwidth(bandwidth * 1e9))), 0.0, x0});
    // Dots drawn last, over the roofs; a dot above its roof ringed in red.
    const QColor flagColor(0xc6, 0x28, 0x28);
    for (Dot& d : m_dots) {
        QCPGraph* dot = addGraph();
        dot->setLineStyle(QCPGraph::lsNone);
        const bool offScale = d.tflops < y0;
        d.tflops = std::max(d.tflops, y0);
        dot->setScatterStyle(
            offScale
                ? QCPScatterStyle(QCPScatterStyle::ssCircle, d.color.darker(130), d.size)
                : QCPScatterStyle(QCPScatterStyle::ssDisc, d.color.darker(130), d.color, d.size));
        dot->addData(d.intensity, d.tflops);
        if (offScale)
            d.label += tr("\n(below the plot's range: drawn on its lower edge)");
        if (d.abovePeak) {
            QCPGraph* ring = addGraph();
            ring->setLineStyle(QCPGraph::lsNone);
            ring->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(flagColor, 2.2),
                                                  Qt::NoBrush, d.size + 7));
            ring->addData(d.intensity, d.tflops);
            d.label += tr("\nAbove its roof: a measurement or peak error, not a real rate");
        }
    }
    if (flaggedCount() > 0) {
        // The legend's entry: a graph of no data in the ring's style.
        QCPGraph* entry = addGraph();
        entry->setName(tr("above its roof (a measurement or peak error)"));
        entry->setLineStyle(QCPGraph::lsNone);
        entry->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(flagColor, 2.2), Qt::NoBrush, 11));
        entry->addToLegend();
        showLegendBelow(*this, 1);
    }
    replot();
}

void RooflinePlot::placeRoofLabels()
{
    // Each label along its own roof where it covers no dot (nor a label placed before it) or,
    // where no such place is, the fewest, crossing as little of the other roofs as it can; of
    // the places as good, the one nearest the right end of a ceiling, or the left end of the
    // slope, where readers look for it.
    const QRectF area = QRectF(axisRect()->rect()).adjusted(2, 2, -2, -2);
    if (m_labels.empty() || area.width() < 20 || area.height() < 20)
        return;
    std::vector<QRectF> taken;  // dots (with their rings) and labels placed
    for (size_t i = 0; i < m_dots.size(); ++i) {
        const double r = (m_dots[i].size + (m_dots[i].abovePeak ? 7 : 0)) / 2 + 2;
        const QPointF c = dotPosition(int(i));
        taken.emplace_back(c.x() - r, c.y() - r, 2 * r, 2 * r);
    }
    const size_t dots = taken.size();
    std::vector<QPointF> roofPoints;  // the roofs, a point every few pixels
    for (const QCPGraph* roof : m_roofGraphs) {
        QPointF last(-1, -1);
        for (const QCPGraphData& d : *roof->data()) {
            const QPointF p(xAxis->coordToPixel(d.key), yAxis->coordToPixel(d.value));
            if (last.x() >= 0) {
                const int steps =
                    std::max(1, int(std::hypot(p.x() - last.x(), p.y() - last.y()) / 3));
                for (int k = 0; k <= steps; ++k)
                    roofPoints.push_back(last + (p - last) * (double(k) / steps));
            }
            last = p;
        }
    }
    const auto overlap = [](const QRectF& a, const QRectF& b) {
        const QRectF both = a.intersected(b);
        return both.isValid() ? both.width() * both.height() : 0.0;
    };
    constexpr double kGap = 3;   // pixels between a label and its roof
    constexpr double kStep = 4;  // pixels between the places tried
    constexpr int kLevels = 5;   // places further from the roof, half a label's height apart
    struct Place
    {
        QRectF rect;
        double penalty;  // further from its roof, or past its ridge
    };
    for (const RoofLabel& label : m_labels) {
        const QSizeF size =
            QRectF(label.text->topLeft->pixelPosition(), label.text->bottomRight->pixelPosition())
                .normalized()
                .size();
        const double away = size.height() / 2;
        std::vector<Place> places;  // in order of preference
        if (label.tflops > 0) {
            // Along the ceiling, right to left; left of its ridge only when nothing else fits.
            const double y = yAxis->coordToPixel(label.tflops);
            const double ridge = xAxis->coordToPixel(label.ridge);
            for (int level = 0; level < kLevels; ++level)
                for (double x = area.right() - size.width(); x >= area.left(); x -= kStep)
                    for (const double top :
                         {y - kGap - size.height() - level * away, y + kGap + level * away})
                        places.push_back({QRectF(QPointF(x, top), size),
                                          level * 30.0 + (x < ridge ? 50.0 : 0.0)});
        } else {
            const double right = m_highestRidge > 0
                                     ? std::min(area.right(), xAxis->coordToPixel(m_highestRidge))
                                     : area.right();
            for (int level = 0; level < kLevels; ++level)
                for (double x = area.left(); x <= right; x += kStep) {
                    const double y =
                        yAxis->coordToPixel(xAxis->pixelToCoord(x) * m_bandwidth / 1e3);
                    const double off = kGap + level * away;
                    // Above the slope and left of it, or under it and right of it: clear of it.
                    places.push_back(
                        {QRectF(QPointF(x - off - size.width(), y - off - size.height()), size),
                         level * 30.0});
                    places.push_back({QRectF(QPointF(x + off, y + off), size), level * 30.0});
                }
        }
        double bestCost = -1;
        QRectF best;
        for (size_t i = 0; i < places.size(); ++i) {
            const QRectF& place = places[i].rect;
            if (!area.contains(place))
                continue;
            double cost = places[i].penalty + double(i) * 1e-4;
            for (size_t t = 0; t < taken.size(); ++t)
                cost += overlap(place, taken[t]) * (t < dots ? 1000.0 : 2000.0);
            if (bestCost >= 0 && cost >= bestCost)
                continue;
            for (const QPointF& p : roofPoints)
                cost += place.contains(p) ? 10.0 : 0.0;
            if (bestCost < 0 || cost < bestCost) {
                bestCost = cost;
                best = place;
            }
        }
        if (bestCost < 0)
            continue;  // no room along its roof at this size: left where it was
        label.text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label.text->position->setPixelPosition(best.topLeft());
        taken.push_back(best);
    }
}

QPointF RooflinePlot::dotPosition(int dot) const
{
    if (dot < 0 || size_t(dot) >= m_dots.size())
        return {-1, -1};
    return {xAxis->coordToPixel(m_dots[size_t(dot)].intensity),
            yAxis->coordToPixel(m_dots[size_t(dot)].tflops)};
}

int RooflinePlot::dotAt(const QPointF& pixel) const
{
    int best = -1;
    double bestDistance = 12.0;  // pixels
    for (size_t i = 0; i < m_dots.size(); ++i) {
        const QPointF p = dotPosition(int(i));
        const double d = std::hypot(p.x() - pixel.x(), p.y() - pixel.y());
        if (d < bestDistance) {
            bestDistance = d;
            best = int(i);
        }
    }
    return best;
}

void RooflinePlot::mousePressEvent(QMouseEvent* event)
{
    const int dot = dotAt(event->position());
    if (dot >= 0 && event->button() == Qt::LeftButton) {
        emit opClicked(m_dots[size_t(dot)].op);
        return;
    }
    QCustomPlot::mousePressEvent(event);
}

void RooflinePlot::mouseMoveEvent(QMouseEvent* event)
{
    const int dot = dotAt(event->position());
    if (dot >= 0)
        QToolTip::showText(event->globalPosition().toPoint(), m_dots[size_t(dot)].label, this);
    else
        QToolTip::hideText();
    QCustomPlot::mouseMoveEvent(event);
}

}  // namespace kinetoscope::widgets
