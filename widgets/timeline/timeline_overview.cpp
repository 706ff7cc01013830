#include "widgets/timeline/timeline_overview.h"

#include "widgets/timeline/timeline_palette.h"
#include "widgets/timeline/timeline_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>

namespace kinetoscope::widgets {

TimelineOverview::TimelineOverview(TimelineView* view, const analysis::WindowClass& window,
                                   timeline::BusyProfile busy, QWidget* parent)
    : QWidget(parent), m_view(view), m_window(window), m_busy(std::move(busy))
{
    const trace::TraceModel& model = view->index().model();
    m_beginNs = model.beginNs();
    m_endNs = std::max(model.endNs(), m_beginNs + 1);
    setMinimumHeight(kHeight);
    setMaximumHeight(kHeight);
    setCursor(Qt::PointingHandCursor);
    setToolTip(
        tr("The whole trace: steps (warm-up ones tinted), %1 and the part the timeline shows. "
           "Click or drag to move the timeline there.")
            .arg(QString::fromStdString(m_busy.label).toLower()));
    connect(view, &TimelineView::viewportChanged, this, qOverload<>(&QWidget::update));
}

QSize TimelineOverview::sizeHint() const
{
    return {600, kHeight};
}

int TimelineOverview::plotLeft() const
{
    return TimelineView::kLabelWidth;
}

timeline::OverviewScale TimelineOverview::scale() const
{
    return {m_beginNs, m_endNs, double(std::max(1, width() - plotLeft() - 4))};
}

void TimelineOverview::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), timeline_colors::kLabelBackground);
    const int left = plotLeft();
    const timeline::OverviewScale s = scale();
    const QRectF plot(left, 2, s.widthPx, height() - 4);
    p.fillRect(plot, Qt::white);
    p.setPen(QColor(90, 90, 90));
    p.drawText(QRect(8, 0, left - 12, height()), Qt::AlignVCenter | Qt::AlignLeft,
               tr("Overview \u00b7 %1").arg(QString::fromStdString(m_busy.label)));
    p.save();
    p.setClipRect(plot);
    // Steps: alternate light bands, warm-up ones amber, a tick at each start.
    const auto& steps = m_window.allSteps;
    for (size_t i = 0; i < steps.size(); ++i) {
        const double x0 = left + s.xOf(steps[i].beginNs), x1 = left + s.xOf(steps[i].endNs);
        const bool warmUp =
            i < m_window.roles.size() && m_window.roles[i] != analysis::StepRole::Steady;
        const QColor band = warmUp ? QColor(250, 228, 190)
                                   : (i % 2 ? QColor(236, 240, 247) : QColor(246, 248, 252));
        p.fillRect(QRectF(x0, plot.top(), std::max(1.0, x1 - x0), plot.height()), band);
        p.setPen(timeline_colors::kStepLine);
        p.drawLine(QPointF(x0, plot.top()), QPointF(x0, plot.bottom()));
    }
    // Busy: a filled sparkline, one bucket per step of x.
    if (!m_busy.values.empty() && m_busy.bucketNs > 0) {
        QPainterPath area(QPointF(left + s.xOf(m_busy.beginNs), plot.bottom()));
        for (size_t i = 0; i < m_busy.values.size(); ++i) {
            const int64_t t = m_busy.beginNs + int64_t(i) * m_busy.bucketNs;
            const double y = plot.bottom() -
                             double(std::clamp(m_busy.values[i], 0.0f, 1.0f)) * (plot.height() - 2);
            area.lineTo(left + s.xOf(t), y);
            area.lineTo(left + s.xOf(t + m_busy.bucketNs), y);
        }
        area.lineTo(left + s.xOf(m_busy.endNs()), plot.bottom());
        area.closeSubpath();
        p.setRenderHint(QPainter::Antialiasing, true);
        p.fillPath(area, timeline_colors::kOverviewBusy);
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    // The part the timeline shows.
    const timeline::Viewport& v = m_view->timeViewport();
    const double x0 = left + s.xOf(v.beginNs), x1 = left + s.xOf(v.endNs());
    const QRectF window(x0, plot.top(), std::max(3.0, x1 - x0), plot.height() - 1);
    p.fillRect(window, timeline_colors::kRangeFill);
    p.setPen(QPen(timeline_colors::kRangeEdge, 1.5));
    p.drawRect(window);
    p.restore();
    p.setPen(QColor(190, 194, 200));
    p.drawRect(plot.adjusted(-0.5, -0.5, 0.5, 0.5));
}

void TimelineOverview::centreAt(double widgetX)
{
    const timeline::OverviewScale s = scale();
    const int64_t centre = s.timeAt(std::clamp(widgetX - plotLeft(), 0.0, s.widthPx));
    timeline::Viewport v = m_view->timeViewport();
    v.beginNs = centre - int64_t(v.nsPerPixel * v.widthPx / 2);
    m_view->setTimeViewport(v);
}

void TimelineOverview::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || event->position().x() < plotLeft())
        return;
    m_dragging = true;
    centreAt(event->position().x());
}

void TimelineOverview::mouseMoveEvent(QMouseEvent* event)
{
    if (m_dragging)
        centreAt(event->position().x());
}

void TimelineOverview::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton)
        m_dragging = false;
}

}  // namespace kinetoscope::widgets
