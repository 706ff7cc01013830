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
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        axis->setTicker(ticker);
        axis->setNumberFormat(QStringLiteral("gb"));
        axis->setNumberPrecision(0);
    }
    xAxis->setLabel(tr("Arithmetic intensity (FLOP/byte)"));
    yAxis->setLabel(tr("Achieved (TFLOP/s)"));
    setMouseTracking(true);
    setMinimumSize(360, 280);
}

void RooflinePlot::setRoofline(const Roofline& roofline)
{
    clearGraphs();
    clearItems();
    m_dots.clear();
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
        label += QStringLiteral("\n%1, %2: %3, %4 (%5-bound, %6 of its roof)")
                     .arg(QString::fromLatin1(precisionName(op.precision)),
                          QString::fromStdString(format::duration(double(op.deviceNs))),
                          QString::fromStdString(format::flopRate(r.achievedTflops * 1e12)),
                          QString::fromStdString(format::bandwidth(r.achievedGbps * 1e9)),
                          QString::fromLatin1(boundName(r.bound)),
                          QString::fromStdString(format::percent(r.shareOfRoof)));
        if (!op.note.empty())
            label += QLatin1Char('\n') + QString::fromStdString(op.note);
        m_dots.push_back({r.intensity, r.achievedTflops, i, label, size, fill});
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
    for (const auto& [tflops, label] : ceilings) {
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
    xAxis->setRange(x0, x1);
    yAxis->setRange(y0, y1);

    // The roofs under the dots: the memory slope up to each ceiling, then the ceiling.
    QPen roofPen(QColor(60, 60, 60));
    roofPen.setWidthF(1.6);
    for (const auto& [tflops, label] : ceilings) {
        QCPGraph* roof = addGraph();
        roof->setPen(roofPen);
        roof->setSelectable(QCP::stNone);
        const double ridge = bandwidth > 0 ? tflops * 1e3 / bandwidth : x0;
        if (bandwidth > 0 && ridge > x0)
            roof->addData(x0, x0 * bandwidth / 1e3);
        roof->addData(std::max(ridge, x0), tflops);
        roof->addData(x1, tflops);
        // The label sits on the ceiling, inside the axes, right-aligned: above the highest
        // one, under the others (above them runs a higher roof's slope).
        const bool highest = tflops == ceilings.rbegin()->first;
        auto* text = new QCPItemText(this);
        text->setClipToAxisRect(true);
        text->position->setType(QCPItemPosition::ptPlotCoords);
        text->setPositionAlignment(Qt::AlignRight | (highest ? Qt::AlignBottom : Qt::AlignTop));
        text->position->setCoords(x1 / 1.15, highest ? tflops * 1.05 : tflops / 1.05);
        text->setText(QStringLiteral("%1 %2").arg(
            label, QString::fromStdString(format::flopRate(tflops * 1e12))));
        text->setColor(QColor(60, 60, 60));
        ++m_roofs;
    }
    if (bandwidth > 0) {
        auto* text = new QCPItemText(this);
        text->setClipToAxisRect(true);
        text->position->setType(QCPItemPosition::ptPlotCoords);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        const double x = x0 * 1.3;
        text->position->setCoords(x, std::max(y0 * 1.2, x * bandwidth / 1e3 * 1.15));
        text->setText(QString::fromStdString(format::bandwidth(bandwidth * 1e9)));
        text->setColor(QColor(60, 60, 60));
    }
    // Dots drawn last, over the roofs.
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
    }
    replot();
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
