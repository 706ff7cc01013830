#include "widgets/snapshot/allocation_chart.h"

#include "core/format/format.h"

#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace kinetoscope::widgets {

namespace {

constexpr int kLeft = 72, kRight = 16, kTop = 28, kBottom = 30;  // the plot's margins, pixels
const QColor kBeforeHistory(176, 176, 176);
const QColor kReserved(180, 30, 30);

// A step of 1, 2 or 5 times a power of ten that cuts `span` into about `parts`.
double niceStep(double span, int parts)
{
    const double raw = span / std::max(parts, 1);
    const double power = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-12))));
    for (double m : {1.0, 2.0, 5.0})
        if (m * power >= raw)
            return m * power;
    return 10 * power;
}

// A byte step of 1, 2 or 5 times a power of ten of the binary unit (B, KiB, MiB, GiB, TiB)
// the axis' top is counted in, so that ticks read 2 GiB, 4 GiB, not 4.66 GiB.
double byteStep(double maxBytes, int parts)
{
    double unit = 1;
    while (unit * 1024 <= maxBytes && unit < 1024.0 * 1024 * 1024 * 1024)
        unit *= 1024;
    return niceStep(maxBytes / unit, parts) * unit;
}

}  // namespace

AllocationChart::AllocationChart(std::shared_ptr<const document::SnapshotDocument> snapshot,
                                 QWidget* parent)
    : QWidget(parent), m_snapshot(std::move(snapshot))
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setDevice(m_snapshot->summary.peakDevice);
}

const snapshot::DeviceTimeline& AllocationChart::timeline() const
{
    return m_snapshot->timelines[size_t(m_device)];
}

void AllocationChart::setDevice(int device)
{
    if (device < 0 || size_t(device) >= m_snapshot->timelines.size())
        return;
    m_device = device;
    const snapshot::DeviceTimeline& t = timeline();
    m_maxBytes = double(std::max<int64_t>(t.peakBytes, 1));
    for (const snapshot::DeviceTimeline::ReservedStep& step : t.reservedSteps)
        m_maxBytes = std::max(m_maxBytes, double(step.bytes));
    showAll();
}

double AllocationChart::fullFrom() const
{
    const snapshot::DeviceTimeline& t = timeline();
    return t.size() ? double(t.when(0)) : 0.0;
}

double AllocationChart::fullTo() const
{
    const snapshot::DeviceTimeline& t = timeline();
    // One unit past the last entry, so that it has a column of its own.
    return t.size() ? double(t.when(t.size() - 1)) +
                          std::max(1.0, 0.002 * double(t.when(t.size() - 1) - t.when(0)))
                    : 1.0;
}

void AllocationChart::showAll()
{
    setView(fullFrom(), fullTo());
}

void AllocationChart::setView(double from, double to)
{
    const double lo = fullFrom(), hi = fullTo();
    const double minimum = std::min(hi - lo, 8.0);  // no closer than a few entries or microseconds
    double width = std::clamp(to - from, minimum, hi - lo);
    from = std::clamp(from, lo, hi - width);
    if (from == m_from && from + width == m_to)
        return;
    m_from = from;
    m_to = from + width;
    m_dirty = true;
    update();
    Q_EMIT viewChanged(m_from, m_to);
}

void AllocationChart::zoomAt(double x, double factor)
{
    const QRect plot = plotRect();
    const double at =
        m_from +
        (m_to - m_from) * std::clamp((x - plot.left()) / std::max(1, plot.width()), 0.0, 1.0);
    setView(at - (at - m_from) * factor, at + (m_to - at) * factor);
}

QRect AllocationChart::plotRect() const
{
    return QRect(kLeft, kTop, std::max(1, width() - kLeft - kRight),
                 std::max(1, height() - kTop - kBottom));
}

double AllocationChart::xOf(double when) const
{
    const QRect plot = plotRect();
    return plot.left() + (when - m_from) / (m_to - m_from) * plot.width();
}

double AllocationChart::yOf(double bytes) const
{
    const QRect plot = plotRect();
    return plot.bottom() + 1 - bytes / m_maxBytes * plot.height();
}

QColor AllocationChart::colorOf(snapshot::StackId stack)
{
    if (stack == 0)
        return kBeforeHistory;
    // Spread neighbouring ids over the hue circle (the golden angle), two saturations.
    const int hue = int((uint64_t(stack) * 137u) % 360u);
    return QColor::fromHsv(hue, stack % 2 ? 150 : 95, stack % 3 ? 225 : 190);
}

void AllocationChart::renderBands()
{
    const QRect plot = plotRect();
    m_bands = QImage(plot.size(), QImage::Format_ARGB32_Premultiplied);
    m_bands.fill(Qt::transparent);
    const snapshot::DeviceTimeline& t = timeline();
    m_samples = snapshot::columnSamples(t, m_from, m_to, size_t(plot.width()));
    const double rowsPerByte = double(plot.height()) / m_maxBytes;
    const int rows = plot.height();
    snapshot::forEachColumn(t, m_samples, [&](size_t x, const std::vector<uint32_t>& live) {
        // Rows from the bottom: a band covers the rows its stacked byte range starts in,
        // so bands thinner than a row still fill the column without a gap.
        double below = 0;
        int row = 0;
        for (uint32_t b : live) {
            const snapshot::Band& band = t.bands[b];
            below += double(band.size);
            const int end = std::min(rows, int(below * rowsPerByte));
            if (end <= row)
                continue;
            const QRgb rgb = colorOf(band.beforeHistory ? 0 : band.stack).rgba();
            for (; row < end; ++row)
                reinterpret_cast<QRgb*>(m_bands.scanLine(rows - 1 - row))[x] = rgb;
        }
    });
    m_dirty = false;
}

int AllocationChart::bandAt(QPoint point, size_t* applied) const
{
    const QRect plot = plotRect();
    if (!plot.contains(point) || m_samples.size() != size_t(plot.width()))
        return -1;
    const size_t column = size_t(point.x() - plot.left());
    const snapshot::DeviceTimeline& t = timeline();
    const size_t at = m_samples[column];
    if (applied)
        *applied = at;
    const double bytes = double(plot.bottom() + 1 - point.y()) / plot.height() * m_maxBytes;
    double below = 0;
    for (uint32_t b : t.liveAfter(at)) {
        below += double(t.bands[b].size);
        if (bytes < below)
            return int(b);
    }
    return -1;
}

QString AllocationChart::xLabel(double when) const
{
    if (!m_snapshot->timed())
        return QString::fromStdString(format::count(int64_t(when)));
    if (when <= fullFrom())
        return QStringLiteral("0");
    return QString::fromStdString(
        format::duration((when - fullFrom()) * 1e3));  // microseconds -> ns
}

void AllocationChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRect plot = plotRect();
    const snapshot::DeviceTimeline& t = timeline();
    if (t.size() == 0) {
        p.setPen(palette().text().color());
        p.drawText(
            rect(), Qt::AlignCenter | Qt::TextWordWrap,
            tr("No allocation history on cuda:%1: the snapshot was taken without "
               "torch.cuda.memory._record_memory_history, so only the state at the dump is known.")
                .arg(m_device));
        return;
    }
    if (m_dirty || m_bands.size() != plot.size())
        renderBands();
    p.drawImage(plot.topLeft(), m_bands);

    // Axes: bytes on the left, time (or entry numbers) below.
    p.setPen(palette().mid().color());
    p.drawRect(plot.adjusted(0, 0, -1, -1));
    const QFontMetrics fm(font());
    const double step = byteStep(m_maxBytes, 5);
    for (double v = 0; v <= m_maxBytes * 1.0001; v += step) {
        const int y = int(yOf(v));
        p.setPen(palette().mid().color());
        p.drawLine(plot.left() - 4, y, plot.left(), y);
        p.setPen(palette().text().color());
        const QString label = QString::fromStdString(format::bytes(v));
        p.drawText(QRect(0, y - fm.height() / 2, kLeft - 8, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, label);
    }
    const double timeStep = niceStep(m_to - m_from, std::max(2, plot.width() / 110));
    for (double v = std::ceil((m_from - fullFrom()) / timeStep) * timeStep + fullFrom(); v < m_to;
         v += timeStep) {
        const int x = int(xOf(v));
        p.setPen(palette().mid().color());
        p.drawLine(x, plot.bottom(), x, plot.bottom() + 4);
        p.setPen(palette().text().color());
        const QString label = xLabel(v);
        const int w = fm.horizontalAdvance(label);
        p.drawText(std::clamp(x - w / 2, plot.left(), plot.right() - w),
                   plot.bottom() + 6 + fm.ascent(), label);
    }

    // Reserved, column by column (the state each column's bands show).
    p.setRenderHint(QPainter::Antialiasing, true);
    QPolygonF reserved;
    for (size_t x = 0; x < m_samples.size(); ++x)
        reserved << QPointF(plot.left() + double(x) + 0.5,
                            yOf(double(t.reservedAfter(m_samples[x]))));
    p.setPen(QPen(kReserved, 1.5));
    p.drawPolyline(reserved);

    // The peak: a line where it is reached (when in view) and its figure.
    const QString peakText =
        tr("peak %1").arg(QString::fromStdString(format::bytes(double(t.peakBytes))));
    if (t.peakApplied > 0) {
        const double peakWhen = double(t.when(t.peakApplied - 1));
        if (peakWhen >= m_from && peakWhen < m_to) {
            const double x = xOf(peakWhen);
            p.setPen(QPen(palette().text().color(), 1, Qt::DashLine));
            p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
            const int w = fm.horizontalAdvance(peakText);
            const int left = x + 4 + w > plot.right() ? int(x) - 4 - w : int(x) + 4;
            p.setPen(palette().text().color());
            p.drawText(left, plot.top() + fm.ascent() + 2, peakText);
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);

    // The legend, above the plot.
    int x = plot.left();
    const int y = (kTop - fm.height()) / 2;
    auto key = [&](const QColor& color, const QString& text, bool line) {
        if (line) {
            p.setPen(QPen(color, 2));
            p.drawLine(x, y + fm.height() / 2, x + 14, y + fm.height() / 2);
        } else {
            p.fillRect(QRect(x, y + 2, 14, fm.height() - 4), color);
        }
        p.setPen(palette().text().color());
        p.drawText(x + 18, y + fm.ascent(), text);
        x += 18 + fm.horizontalAdvance(text) + 16;
    };
    key(colorOf(1), tr("allocations, coloured by stack"), false);
    key(kBeforeHistory, tr("before the history"), false);
    key(kReserved, tr("reserved (segments)"), true);
}

void AllocationChart::resizeEvent(QResizeEvent* event)
{
    m_dirty = true;
    QWidget::resizeEvent(event);
}

void AllocationChart::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0)
        return;
    zoomAt(event->position().x(), std::pow(0.8, steps));
    event->accept();
}

void AllocationChart::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        m_dragging = true;
        m_dragFrom = event->pos();
        m_dragViewFrom = m_from;
        m_dragViewTo = m_to;
    }
}

void AllocationChart::mouseMoveEvent(QMouseEvent* event)
{
    if (m_dragging) {
        const double shift = double(event->pos().x() - m_dragFrom.x()) / plotRect().width() *
                             (m_dragViewTo - m_dragViewFrom);
        setView(m_dragViewFrom - shift, m_dragViewTo - shift);
        return;
    }
    size_t applied = 0;
    const int band = bandAt(event->pos(), &applied);
    Q_EMIT allocationHovered(band, applied);
}

void AllocationChart::mouseReleaseEvent(QMouseEvent*)
{
    m_dragging = false;
}

void AllocationChart::mouseDoubleClickEvent(QMouseEvent*)
{
    showAll();
}

void AllocationChart::leaveEvent(QEvent*)
{
    Q_EMIT allocationHovered(-1, 0);
}

}  // namespace kinetoscope::widgets
