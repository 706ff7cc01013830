#include "widgets/timeline/timeline_painter.h"

#include "core/format/format.h"
#include "core/timeline/time_ruler.h"
#include "widgets/timeline/timeline_palette.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace kinetoscope::widgets {

using timeline::RowKind;
using timeline::TrackLayout;

namespace {

// Pixel geometry shared by the passes below.
struct Geometry
{
    const TimelinePaintState& s;
    int width, height;
    int timeLeft() const { return s.labelWidth; }
    int rowsTop() const { return s.rulerHeight; }
    int yOf(int layoutY) const { return s.rulerHeight + layoutY - s.scrollY; }
    double xOf(int64_t timeNs) const { return s.labelWidth + s.view.xOf(timeNs); }
};

void paintRows(QPainter& p, const Geometry& g)
{
    const TimelinePaintState& s = g.s;
    const TrackLayout& layout = *s.layout;
    QFont bold = p.font();
    bold.setBold(true);
    const QFont plain = p.font();
    const int visibleEnd = s.scrollY + g.height - s.rulerHeight;
    for (const timeline::LayoutRow& row : layout.rows()) {
        if (row.y + row.height <= s.scrollY)
            continue;
        if (row.y >= visibleEnd)
            break;
        const int y = g.yOf(row.y);
        switch (row.kind) {
        case RowKind::Group: {
            const timeline::TrackGroup& group = layout.groups()[row.index];
            p.fillRect(0, y, g.width, row.height, timeline_colors::kGroupBackground);
            p.setPen(QColor(60, 64, 70));
            p.setFont(bold);
            const QString arrow =
                group.collapsed ? QStringLiteral("\u25B8 ") : QStringLiteral("\u25BE ");
            p.drawText(QRect(6, y, g.width - 12, row.height), Qt::AlignVCenter | Qt::AlignLeft,
                       arrow + QString::fromStdString(group.label));
            p.setFont(plain);
            break;
        }
        case RowKind::Lane: {
            p.fillRect(0, y, s.labelWidth, row.height, timeline_colors::kLabelBackground);
            const std::string label = layout.laneLabel(row.index);
            const bool overlapRow = s.index->lanes()[row.index].overlapRow > 0;
            if (overlapRow)  // a marker down the label: events here overlap the row above
                p.fillRect(0, y, 3, row.height, timeline_colors::kOverlapMarker);
            if (!label.empty()) {
                if (!overlapRow) {
                    p.setPen(QColor(200, 204, 210));
                    p.drawLine(0, y, g.width, y);  // a new thread or stream starts here
                }
                p.setPen(overlapRow ? timeline_colors::kOverlapMarker.darker(130)
                                    : QColor(40, 40, 40));
                p.drawText(QRect(14, y, s.labelWidth - 18, row.height),
                           Qt::AlignVCenter | Qt::AlignLeft,
                           p.fontMetrics().elidedText(QString::fromStdString(label), Qt::ElideRight,
                                                      s.labelWidth - 18));
            }
            break;
        }
        case RowKind::Fold: {
            const timeline::LayoutFold& fold = layout.folds()[row.index];
            p.fillRect(0, y, s.labelWidth, row.height, timeline_colors::kFoldBackground);
            if (fold.expanded)  // a header over its rows
                p.fillRect(s.labelWidth, y, g.width - s.labelWidth, row.height,
                           timeline_colors::kFoldBackground);
            p.setPen(QColor(70, 90, 60));
            const QString text =
                (fold.expanded ? QStringLiteral("\u25BE ") : QStringLiteral("\u25B8 ")) +
                QString::fromStdString(fold.label);
            const int width = (fold.expanded ? g.width : s.labelWidth) - 18;
            p.drawText(QRect(14, y, width, row.height), Qt::AlignVCenter | Qt::AlignLeft,
                       p.fontMetrics().elidedText(text, Qt::ElideRight, width));
            break;
        }
        case RowKind::Counter: {
            const timeline::CounterTrack& track = (*s.counters)[row.index];
            p.fillRect(0, y, s.labelWidth, row.height, timeline_colors::kLabelBackground);
            p.setPen(QColor(200, 204, 210));
            p.drawLine(0, y, g.width, y);
            p.setPen(QColor(40, 40, 40));
            p.drawText(QRect(14, y + 2, s.labelWidth - 18, row.height / 2),
                       Qt::AlignVCenter | Qt::AlignLeft, QString::fromStdString(track.label));
            p.setPen(QColor(110, 110, 110));
            const QString peak = track.unit == timeline::CounterUnit::Bytes
                                     ? QObject::tr("peak %1").arg(
                                           QString::fromStdString(format::bytes(track.maxValue)))
                                     : QStringLiteral("0-100 %");
            p.drawText(QRect(14, y + row.height / 2, s.labelWidth - 18, row.height / 2 - 2),
                       Qt::AlignVCenter | Qt::AlignLeft, peak);
            break;
        }
        }
    }
}

// Maps x in the frame's (possibly older) viewport onto the current one: x' = a x + b.
struct FrameMapping
{
    double a = 1, b = 0;
    FrameMapping(const timeline::Viewport& built, const timeline::Viewport& now)
        : a(built.nsPerPixel / now.nsPerPixel),
          b(double(built.beginNs - now.beginNs) / now.nsPerPixel)
    {
    }
};

void paintCounters(QPainter& p, const Geometry& g)
{
    const TimelinePaintState& s = g.s;
    const FrameMapping map(s.frame->request.view, s.view);
    const int visibleEnd = s.scrollY + g.height - s.rulerHeight;
    for (const timeline::LayoutRow& row : s.layout->rows()) {
        if (row.kind != RowKind::Counter || row.y + row.height <= s.scrollY || row.y >= visibleEnd)
            continue;
        if (row.index >= s.frame->counters.size())
            continue;
        const timeline::CounterTrack& track = (*s.counters)[row.index];
        const double top = g.yOf(row.y) + 4, base = g.yOf(row.y) + row.height - 2;
        const double scale = track.maxValue > 0 ? (base - top) / track.maxValue : 0.0;
        for (size_t series = 0; series < track.series.size(); ++series) {
            const auto& columns = s.frame->counters[row.index][series];
            // Reserved (first of two) light behind, the last series solid in front.
            const bool front = series + 1 == track.series.size();
            const QColor fill = track.unit == timeline::CounterUnit::Fraction ? QColor(64, 160, 110)
                                : front                                       ? QColor(86, 132, 196)
                                        : QColor(190, 205, 230);
            const QColor spread = fill.darker(140);
            const double w = std::max(1.0, map.a);
            for (size_t i = 0; i < columns.size(); ++i) {
                const timeline::CounterColumn& c = columns[i];
                if (!c.covered)
                    continue;
                const double x = g.timeLeft() + map.a * double(i) + map.b;
                const double yMax = base - c.max * scale, yMin = base - c.min * scale;
                p.fillRect(QRectF(x, yMin, w, base - yMin), fill);
                if (yMax < yMin)  // the value moved within this pixel: show its range
                    p.fillRect(QRectF(x, yMax, w, yMin - yMax), spread);
            }
        }
    }
}

void paintSlices(QPainter& p, const Geometry& g)
{
    const TimelinePaintState& s = g.s;
    const FrameMapping map(s.frame->request.view, s.view);
    const auto events = s.index->model().events();
    const int laneHeight = TrackLayout::kLaneHeight;
    const QFontMetrics metrics = p.fontMetrics();
    const int top = s.scrollY - laneHeight, bottom = s.scrollY + g.height - s.rulerHeight;
    const QPen matchPen(timeline_colors::kSearchMatch, 2);
    for (const timeline::DrawItem& item : s.frame->items) {
        const int laneY = s.layout->laneY(item.lane);
        // A collapsed group's lanes have no row (-1): at the top of the scroll, -1 is inside
        // [top, bottom] and would paint over the first header.
        if (laneY < 0 || laneY < top || laneY > bottom)
            continue;  // collapsed, or scrolled away since the frame was built
        const trace::Event& e = events[item.event.value];
        const double x0 = g.timeLeft() + map.a * item.x0 + map.b;
        const double w = std::max(1.0, map.a * (item.x1 - item.x0));
        const QRectF rect(x0, g.yOf(laneY) + 1, w, laneHeight - 2);
        const QColor color = sliceColor(e.category, e.name.value);
        p.fillRect(rect, item.count > 1 ? color.darker(125) : color);
        if (s.index->lanes()[item.lane].overlapRow > 0)  // overlaps a slice above without nesting
            p.fillRect(QRectF(rect.left(), rect.top(), rect.width(), 2),
                       timeline_colors::kOverlapMarker);
        if (s.matchedNames && e.name.value < s.matchedNames->size() &&
            (*s.matchedNames)[e.name.value]) {
            p.setPen(matchPen);
            p.drawRect(rect.adjusted(1, 1, -1, -1));
        }
        if (item.count == 1 && w >= 36) {
            // Names only where they fit; the text is clipped to the slice's visible part.
            const double left = std::max(x0, double(g.timeLeft())),
                         right = std::min(x0 + w, double(g.width));
            if (right - left >= 30) {
                p.setPen(color.lightness() > 150 ? Qt::black : Qt::white);
                const QString name = QString::fromUtf8(s.index->model().text(e.name));
                p.drawText(QRectF(left + 3, rect.top(), right - left - 6, rect.height()),
                           Qt::AlignVCenter | Qt::AlignLeft,
                           metrics.elidedText(name, Qt::ElideRight, int(right - left - 6)));
            }
        }
    }
}

// The selection's rectangle in the current view, or empty when its lane is hidden.
QRectF sliceRect(const Geometry& g, trace::EventId id)
{
    const TimelinePaintState& s = g.s;
    const int laneY = s.layout->laneY(s.index->laneOf(id));
    if (laneY < 0)
        return {};
    const trace::Event& e = s.index->model().event(id);
    const double x0 = g.xOf(e.startNs), x1 = g.xOf(e.endNs());
    return {x0, double(g.yOf(laneY)), std::max(3.0, x1 - x0), double(TrackLayout::kLaneHeight)};
}

void paintSelection(QPainter& p, const Geometry& g)
{
    const TimelinePaintState& s = g.s;
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const timeline::FlowLink& link : s.links) {
        const QRectF from = sliceRect(g, link.from), to = sliceRect(g, link.to);
        if (from.isEmpty() || to.isEmpty())
            continue;
        // Leave the launch on the side facing the kernel (devices are listed above the
        // threads, so usually upwards) and enter the kernel on its near side.
        const double down = to.top() >= from.bottom() ? 1.0 : -1.0;
        const QPointF a(from.left(), down > 0 ? from.bottom() : from.top());
        const QPointF b(to.left(), down > 0 ? to.top() : to.bottom());
        QPainterPath path(a);
        const double bend = down * std::max(12.0, std::abs(b.y() - a.y()) * 0.5);
        path.cubicTo(a + QPointF(0, bend), b - QPointF(0, bend), b);
        p.setPen(QPen(timeline_colors::kFlowArrow, 1.6));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        // The head points along the curve's last tangent (straight into the kernel).
        const QPointF tip = b, left = b + QPointF(-4.5, -8 * down),
                      right = b + QPointF(4.5, -8 * down);
        p.setBrush(timeline_colors::kFlowArrow);
        p.drawPolygon(QPolygonF({tip, left, right}));
        p.setBrush(Qt::NoBrush);
    }
    if (s.selected.valid()) {
        const QRectF rect = sliceRect(g, s.selected);
        if (!rect.isEmpty()) {
            p.setPen(QPen(timeline_colors::kSelection, 2));
            p.drawRect(rect.adjusted(0.5, 0.5, -0.5, -0.5));
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

// The steps overlapping the view, found by binary search (steps are time-ordered).
std::pair<size_t, size_t> visibleSteps(const std::vector<analysis::Step>& steps,
                                       const timeline::Viewport& view)
{
    const auto first =
        std::partition_point(steps.begin(), steps.end(),
                             [&](const analysis::Step& s) { return s.endNs < view.beginNs; });
    const int64_t end = view.endNs();
    const auto last = std::partition_point(
        first, steps.end(), [&](const analysis::Step& s) { return s.beginNs <= end; });
    return {size_t(first - steps.begin()), size_t(last - steps.begin())};
}

void paintSteps(QPainter& p, const Geometry& g)
{
    const TimelinePaintState& s = g.s;
    if (!s.steps || s.steps->empty())
        return;
    QPen pen(timeline_colors::kStepLine, 1, Qt::DashLine);
    p.setPen(pen);
    double lastX = -1e9;
    auto line = [&](int64_t t) {
        const double x = g.xOf(t);
        // Thousands of steps on a whole-trace view: one line per few pixels is all the eye
        // can tell apart.
        if (x >= g.timeLeft() && x <= g.width && x - lastX >= 4.0) {
            p.drawLine(QPointF(x, g.rowsTop()), QPointF(x, g.height));
            lastX = x;
        }
    };
    const auto [first, last] = visibleSteps(*s.steps, s.view);
    for (size_t i = first; i < last; ++i)
        line((*s.steps)[i].beginNs);
    if (last == s.steps->size())
        line(s.steps->back().endNs);
}

void paintRange(QPainter& p, const Geometry& g)
{
    const TimelinePaintState& s = g.s;
    if (!s.range)
        return;
    const double x0 = g.xOf(s.range->first), x1 = g.xOf(s.range->second);
    p.fillRect(QRectF(x0, 0, std::max(1.0, x1 - x0), g.height), timeline_colors::kRangeFill);
    p.setPen(timeline_colors::kRangeEdge);
    p.drawLine(QPointF(x0, 0), QPointF(x0, g.height));
    p.drawLine(QPointF(x1, 0), QPointF(x1, g.height));
    const auto [first, last] = s.rangeLanes;
    if (first == 0 && last == UINT32_MAX)
        return;
    // A box over some lanes: outline the lanes it totals.
    int top = INT32_MAX, bottom = INT32_MIN;
    for (uint32_t lane = first; lane < last && lane < s.index->lanes().size(); ++lane) {
        const int y = s.layout->laneY(lane);
        if (y >= 0) {
            top = std::min(top, y);
            bottom = std::max(bottom, y + TrackLayout::kLaneHeight);
        }
    }
    if (top < bottom) {
        p.fillRect(QRectF(x0, g.yOf(top), std::max(1.0, x1 - x0), bottom - top),
                   timeline_colors::kRangeFill);
        p.setPen(QPen(timeline_colors::kRangeEdge, 1.5));
        p.drawRect(QRectF(x0, g.yOf(top), std::max(1.0, x1 - x0), bottom - top));
    }
}

void paintRuler(QPainter& p, const Geometry& g)
{
    const TimelinePaintState& s = g.s;
    p.fillRect(0, 0, g.width, s.rulerHeight, timeline_colors::kLabelBackground);
    p.setPen(QColor(160, 164, 170));
    p.drawLine(0, s.rulerHeight - 1, g.width, s.rulerHeight - 1);
    p.save();
    p.setClipRect(g.timeLeft(), 0, g.width - g.timeLeft(), s.rulerHeight);
    for (const timeline::RulerTick& tick : timeline::rulerTicks(s.view, s.originNs)) {
        const double x = g.timeLeft() + tick.x;
        p.setPen(QColor(120, 120, 120));
        p.drawLine(QPointF(x, s.rulerHeight - (tick.labelled ? 9 : 4)),
                   QPointF(x, s.rulerHeight - 1));
        if (tick.labelled) {
            p.setPen(QColor(40, 40, 40));
            p.drawText(QPointF(x + 3, s.rulerHeight - 10), QString::fromStdString(tick.label));
        }
    }
    if (s.steps) {  // step numbers between the boundaries
        QFont small = p.font();
        small.setPointSizeF(small.pointSizeF() * 0.85);
        p.setFont(small);
        p.setPen(QColor(110, 70, 150));
        const auto [first, last] = visibleSteps(*s.steps, s.view);
        for (size_t i = first; i < last; ++i) {
            const analysis::Step& step = (*s.steps)[i];
            const double x0 = g.xOf(step.beginNs), x1 = g.xOf(step.endNs);
            if (x1 - x0 < 40 || x1 < g.timeLeft() || x0 > g.width)
                continue;
            const QString name = QString::fromStdString(step.name);
            const QString label = name.contains(QLatin1Char('#'))
                                      ? name.mid(name.lastIndexOf(QLatin1Char('#')))
                                      : name;
            p.drawText(QRectF(x0 + 3, 1, x1 - x0 - 6, 12), Qt::AlignLeft | Qt::AlignTop, label);
        }
    }
    p.restore();
    if (s.range) {
        const QString width =
            QString::fromStdString(format::duration(s.range->second - s.range->first));
        p.setPen(timeline_colors::kRangeEdge);
        p.drawText(QRect(4, 0, s.labelWidth - 8, s.rulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   QObject::tr("Range %1").arg(width));
    }
}

}  // namespace

void paintTimeline(QPainter& painter, QSize size, const TimelinePaintState& state)
{
    const Geometry g{state, size.width(), size.height()};
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    painter.save();
    painter.setClipRect(0, g.rowsTop(), g.width, g.height - g.rowsTop());
    paintRows(painter, g);
    painter.setClipRect(g.timeLeft(), g.rowsTop(), g.width - g.timeLeft(), g.height - g.rowsTop());
    if (state.frame) {
        paintCounters(painter, g);
        paintSlices(painter, g);
    }
    paintSteps(painter, g);
    paintRange(painter, g);
    paintSelection(painter, g);
    painter.restore();
    painter.setPen(QColor(190, 194, 200));
    painter.drawLine(g.timeLeft() - 1, 0, g.timeLeft() - 1, g.height);
    paintRuler(painter, g);
}

}  // namespace kinetoscope::widgets
