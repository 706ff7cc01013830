#pragma once
// The timeline canvas: tracks by process and device, slices by depth, counters and step
// boundaries over a time ruler. Mouse wheel zooms around the cursor, dragging pans,
// Shift+drag (or a drag on the ruler) selects a range, a click selects a slice; keys as in
// Perfetto: W/S zoom, A/D pan, F zooms to the selection, 0 fits the whole trace, Home
// returns to the first steady step (what the view opens on), Esc clears. Frames are built off the
// GUI thread (DrawListBuilder); paintEvent only paints.
#include "core/analysis/steps.h"
#include "core/timeline/selection.h"
#include "core/timeline/track_layout.h"

#include <QAbstractScrollArea>
#include <memory>
#include <optional>

namespace kinetoscope::widgets {

class DrawListBuilder;
struct TimelineFrame;

class TimelineView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    static constexpr int kLabelWidth = 200;
    static constexpr int kRulerHeight = 34;

    // `steps` are marked; `folds` (frame_folds.h) start folded.
    TimelineView(const timeline::TimelineIndex& index,
                 const std::vector<timeline::CounterTrack>& counters,
                 const std::vector<analysis::Step>& steps,
                 std::vector<timeline::FrameFold> folds = {}, QWidget* parent = nullptr);
    ~TimelineView() override;

    const timeline::TimelineIndex& index() const { return m_index; }
    const timeline::Viewport& timeViewport() const { return m_view; }
    void setTimeViewport(const timeline::Viewport& view);
    int timeAreaWidth() const;
    void fitAll();
    // The range the view opens on (and refits to on a resize until the user moves it).
    void setHomeRange(int64_t beginNs, int64_t endNs);
    void showHome();
    void showRange(int64_t beginNs, int64_t endNs);  // with the range filling the view
    void zoomToSelection();                          // the selected slice, else the range
    void zoomAroundX(double x, double factor);       // x in the time area, factor < 1 zooms in
    void setGroupCollapsed(uint32_t group, bool collapsed);  // as a click on its header does
    void setFoldExpanded(uint32_t fold, bool expanded);      // as a click on its label does

    trace::EventId selected() const { return m_selected; }
    // Selects a slice; `reveal` scrolls and zooms so that it and its links are in view.
    void select(trace::EventId event, bool reveal);
    const std::vector<timeline::FlowLink>& links() const { return m_links; }
    std::optional<std::pair<int64_t, int64_t>> range() const { return m_range; }
    // Selects a time range over the lanes [firstLane, lastLane) (all of them by default).
    void setRange(std::optional<std::pair<int64_t, int64_t>> range,
                  std::pair<uint32_t, uint32_t> lanes = {0, UINT32_MAX});
    std::pair<uint32_t, uint32_t> rangeLanes() const { return m_rangeLanes; }
    // Names to outline (by string id), from a search; empty clears.
    void setMatchedNames(std::vector<uint8_t> matchedNames);

    timeline::TrackLayout& layout() { return m_layout; }
    const timeline::TrackLayout& layout() const { return m_layout; }
    // The centre of a slice in widget-viewport coordinates (tests, screenshots); null when
    // off screen.
    std::optional<QPointF> pointOf(trace::EventId event) const;
    // What hovering at `position` (viewport coordinates) says: a slice's name and length,
    // and why it sits on an extra row when it overlaps another without nesting.
    QString toolTipAt(QPointF position) const;
    // Waits for the frame of the current view (tests, screenshots).
    bool waitForFrame(int timeoutMs = 5000);
    std::shared_ptr<const TimelineFrame> currentFrame() const;

Q_SIGNALS:
    void selectionChanged(trace::EventId event);
    void rangeChanged();
    void viewportChanged();
    void layoutChanged();  // a group collapsed or a fold expanded, by the user or a call

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    bool viewportEvent(QEvent* event) override;

private:
    enum class Drag
    {
        None,
        Pan,
        Range
    };
    void requestFrame();
    void updateScrollBar();
    int layoutY(double widgetY) const;  // widget y -> layout y
    trace::EventId eventAt(QPointF position) const;
    double cursorX() const;  // time-area x of the mouse, or the centre when it is outside

    const timeline::TimelineIndex& m_index;
    const std::vector<timeline::CounterTrack>& m_counters;
    const std::vector<analysis::Step>& m_steps;
    timeline::TrackLayout m_layout;
    timeline::Viewport m_view;
    std::unique_ptr<DrawListBuilder> m_builder;
    uint64_t m_generation = 0;
    trace::EventId m_selected;
    std::vector<timeline::FlowLink> m_links;
    std::optional<std::pair<int64_t, int64_t>> m_range;
    std::vector<uint8_t> m_matchedNames;
    Drag m_drag = Drag::None;
    QPointF m_pressAt, m_lastMouse;
    timeline::Viewport m_viewAtPress;  // a drag pans from here: no rounding drift
    bool m_moved = false;
    int64_t m_rangeAnchorNs = 0;
    int m_rangeAnchorY = -1;  // layout y where a box selection started; -1: on the ruler
    std::pair<uint32_t, uint32_t> m_rangeLanes{0, UINT32_MAX};
    bool m_autoFit = true;  // until the user moves the view, a resize refits the home range
    std::optional<std::pair<int64_t, int64_t>> m_home;  // none: the whole trace
};

}  // namespace kinetoscope::widgets
