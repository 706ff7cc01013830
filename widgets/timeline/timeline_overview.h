#pragma once
// The overview strip above the timeline: the whole trace at once, its steps (warm-up ones
// tinted), how busy the device was as a sparkline, and the part the timeline shows as a
// window. A click centres the timeline there, a drag moves it along; the zoom stays.
#include "core/analysis/window.h"
#include "core/timeline/overview.h"

#include <QWidget>

namespace kinetoscope::widgets {

class TimelineView;

class TimelineOverview : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kHeight = 34;

    TimelineOverview(TimelineView* view, const analysis::WindowClass& window,
                     timeline::BusyProfile busy, QWidget* parent = nullptr);

    QSize sizeHint() const override;
    // The strip's time scale over its plot (x = 0 at the plot's left edge).
    timeline::OverviewScale scale() const;
    int plotLeft() const;  // where the plot starts in the widget: under the timeline's time area

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    void centreAt(double widgetX);
    TimelineView* m_view;
    const analysis::WindowClass& m_window;
    timeline::BusyProfile m_busy;
    int64_t m_beginNs = 0, m_endNs = 1;
    bool m_dragging = false;
};

}  // namespace kinetoscope::widgets
