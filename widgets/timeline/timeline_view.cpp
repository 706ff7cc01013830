#include "widgets/timeline/timeline_view.h"

#include "core/format/format.h"
#include "widgets/keyboard_focus.h"
#include "widgets/timeline/draw_list_builder.h"
#include "widgets/timeline/timeline_painter.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace kinetoscope::widgets {

using timeline::Viewport;

namespace {
constexpr double kWheelZoomPerNotch = 0.8;  // one notch shows 80 % of the time span
constexpr double kKeyZoom = 0.8;
constexpr double kKeyPanFraction = 0.2;  // A/D move by a fifth of the view
constexpr double kClickSlackPx = 3.0;    // a press that moves less is a click
}  // namespace

TimelineView::TimelineView(const timeline::TimelineIndex& index,
                           const std::vector<timeline::CounterTrack>& counters,
                           const std::vector<analysis::Step>& steps,
                           std::vector<timeline::FrameFold> folds, QWidget* parent)
    : QAbstractScrollArea(parent), m_index(index), m_counters(counters), m_steps(steps),
      m_layout(index, counters, std::move(folds)),
      m_builder(std::make_unique<DrawListBuilder>(index, counters))
{
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setFocusPolicy(Qt::StrongFocus);
    showFocusRing(this);
    viewport()->setMouseTracking(true);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    // Low enough for two timelines stacked (a comparison's) on a laptop's 768 px screen.
    setMinimumSize(400, 120);
    // The worker thread emits; the queued connection repaints on the GUI thread.
    connect(m_builder.get(), &DrawListBuilder::frameReady, viewport(),
            qOverload<>(&QWidget::update), Qt::QueuedConnection);
    m_view = Viewport::fit(index.model().beginNs(), index.model().endNs(), timeAreaWidth());
    updateScrollBar();
    requestFrame();
}

TimelineView::~TimelineView() = default;

int TimelineView::timeAreaWidth() const
{
    return std::max(1, viewport()->width() - kLabelWidth);
}

void TimelineView::setTimeViewport(const Viewport& view)
{
    m_view = view;
    m_view.widthPx = timeAreaWidth();
    m_view.nsPerPixel =
        std::clamp(m_view.nsPerPixel, Viewport::kMinNsPerPixel, Viewport::kMaxNsPerPixel);
    m_autoFit = false;
    requestFrame();
    Q_EMIT viewportChanged();
}

void TimelineView::fitAll()
{
    const trace::TraceModel& model = m_index.model();
    const int64_t span = std::max<int64_t>(1, model.endNs() - model.beginNs());
    showRange(model.beginNs() - span / 100, model.endNs() + span / 100);
}

void TimelineView::setHomeRange(int64_t beginNs, int64_t endNs)
{
    m_home = std::pair(beginNs, std::max(endNs, beginNs + 1));
    if (m_autoFit)
        showHome();
}

void TimelineView::showHome()
{
    if (m_home)
        showRange(m_home->first, m_home->second);
    else
        fitAll();
    m_autoFit = true;
}

void TimelineView::showRange(int64_t beginNs, int64_t endNs)
{
    Viewport view = m_view;
    view.widthPx = timeAreaWidth();
    view.showRange(beginNs, std::max(endNs, beginNs + 1));
    setTimeViewport(view);
}

void TimelineView::zoomToSelection()
{
    if (m_selected.valid()) {
        const trace::Event& e = m_index.model().event(m_selected);
        const int64_t pad = std::max<int64_t>(e.durationNs / 10, 50);
        showRange(e.startNs - pad, e.endNs() + pad);
    } else if (m_range) {
        showRange(m_range->first, m_range->second);
    }
}

void TimelineView::zoomAroundX(double x, double factor)
{
    Viewport view = m_view;
    view.zoomAround(x, factor);
    setTimeViewport(view);
}

void TimelineView::select(trace::EventId event, bool reveal)
{
    m_selected = event;
    m_links = timeline::linksOf(m_index.model(), event);
    if (event.valid() && reveal) {
        // The slice and the other ends of its links, a quarter of the view, centred.
        const trace::TraceModel& model = m_index.model();
        int64_t begin = model.event(event).startNs, end = model.event(event).endNs();
        for (const timeline::FlowLink& link : m_links)
            for (trace::EventId id : {link.from, link.to}) {
                begin = std::min(begin, model.event(id).startNs);
                end = std::max(end, model.event(id).endNs());
            }
        const int64_t span = std::max<int64_t>(end - begin, 1000);
        showRange(begin - span * 3 / 2, end + span * 3 / 2);
        const uint32_t lane = m_index.laneOf(event);
        for (uint32_t g = 0; g < m_layout.groups().size(); ++g)
            if (lane >= m_layout.groups()[g].firstLane && lane < m_layout.groups()[g].lastLane)
                m_layout.setCollapsed(g, false);
        updateScrollBar();
        const int y = m_layout.laneY(lane), visible = viewport()->height() - kRulerHeight;
        if (y < verticalScrollBar()->value() ||
            y + timeline::TrackLayout::kLaneHeight > verticalScrollBar()->value() + visible)
            verticalScrollBar()->setValue(y - visible / 3);
    }
    requestFrame();
    Q_EMIT selectionChanged(event);
}

void TimelineView::setRange(std::optional<std::pair<int64_t, int64_t>> range,
                            std::pair<uint32_t, uint32_t> lanes)
{
    m_range = range;
    m_rangeLanes = lanes;
    viewport()->update();
    Q_EMIT rangeChanged();
}

void TimelineView::setMatchedNames(std::vector<uint8_t> matchedNames)
{
    m_matchedNames = std::move(matchedNames);
    viewport()->update();
}

std::optional<QPointF> TimelineView::pointOf(trace::EventId event) const
{
    const int y = m_layout.laneY(m_index.laneOf(event));
    if (y < 0)
        return std::nullopt;
    const trace::Event& e = m_index.model().event(event);
    const double x0 = std::max(0.0, m_view.xOf(e.startNs)),
                 x1 = std::min(double(m_view.widthPx), m_view.xOf(e.endNs()));
    const double widgetY =
        kRulerHeight + y - verticalScrollBar()->value() + timeline::TrackLayout::kLaneHeight / 2.0;
    if (x1 < x0 || widgetY < kRulerHeight || widgetY >= viewport()->height())
        return std::nullopt;
    return QPointF(kLabelWidth + (x0 + x1) / 2.0, widgetY);
}

bool TimelineView::waitForFrame(int timeoutMs)
{
    if (!m_builder->waitUntilIdle(timeoutMs))
        return false;
    viewport()->repaint();
    return currentFrame() && currentFrame()->request.generation == m_generation;
}

std::shared_ptr<const TimelineFrame> TimelineView::currentFrame() const
{
    return m_builder->latest();
}

void TimelineView::requestFrame()
{
    const int top = verticalScrollBar()->value();
    const auto [first, last] = m_layout.lanesIn(top, top + viewport()->height() - kRulerHeight);
    m_builder->request({m_view, first, last, ++m_generation});
    viewport()->update();
}

void TimelineView::updateScrollBar()
{
    const int visible = std::max(0, viewport()->height() - kRulerHeight);
    verticalScrollBar()->setRange(0, std::max(0, m_layout.height() - visible));
    verticalScrollBar()->setPageStep(visible);
    verticalScrollBar()->setSingleStep(timeline::TrackLayout::kLaneHeight);
}

int TimelineView::layoutY(double widgetY) const
{
    return int(std::floor(widgetY)) - kRulerHeight + verticalScrollBar()->value();
}

trace::EventId TimelineView::eventAt(QPointF position) const
{
    if (position.x() < kLabelWidth || position.y() < kRulerHeight)
        return {};
    const timeline::LayoutRow* row = m_layout.rowAt(layoutY(position.y()));
    if (!row)
        return {};
    // A folded row shows its deepest frames in front: they are hit first.
    const auto [first, last] = m_layout.lanesOf(*row);
    for (uint32_t lane = last; lane > first; --lane)
        if (const trace::EventId hit =
                m_index.hitTest(lane - 1, m_view, position.x() - kLabelWidth))
            return hit;
    return {};
}

double TimelineView::cursorX() const
{
    const QPointF at = viewport()->mapFromGlobal(QCursor::pos());
    const double x = at.x() - kLabelWidth;
    return x >= 0 && x <= m_view.widthPx && viewport()->rect().contains(at.toPoint())
               ? x
               : m_view.widthPx / 2.0;
}

QString TimelineView::toolTipAt(QPointF position) const
{
    if (position.y() < kRulerHeight)
        return {};
    const timeline::LayoutRow* row = m_layout.rowAt(layoutY(position.y()));
    if (row && row->kind == timeline::RowKind::Fold && position.x() < kLabelWidth) {
        const timeline::LayoutFold& fold = m_layout.folds()[row->index];
        return tr("%1 Python frames that span a step or more, outermost first:\n%2\nClick to %3.")
            .arg(fold.lastLane - fold.firstLane)
            .arg(QString::fromStdString(fold.chain))
            .arg(fold.expanded ? tr("fold them into one row") : tr("show one row per frame"));
    }
    if (row && row->kind == timeline::RowKind::Fold && !m_layout.folds()[row->index].expanded) {
        const trace::EventId hit = eventAt(position);
        if (!hit)
            return {};
        const trace::Event& e = m_index.model().event(hit);
        return QStringLiteral("%1\n%2").arg(QString::fromUtf8(m_index.model().text(e.name)),
                                            QString::fromStdString(format::duration(e.durationNs)));
    }
    if (!row || row->kind != timeline::RowKind::Lane)
        return {};
    const trace::TraceModel& model = m_index.model();
    const bool overlapRow = m_index.lanes()[row->index].overlapRow > 0;
    const QString what =
        model.track(m_index.lanes()[row->index].track).kind == trace::TrackKind::GpuStream
            ? tr("stream")
            : tr("thread");
    if (position.x() < kLabelWidth)
        return overlapRow ? tr("Events on this row overlap events on the row above on the same %1 "
                               "without nesting "
                               "in them; they are drawn here so that neither hides the other.")
                                .arg(what)
                          : QString();
    const trace::EventId hit = eventAt(position);
    if (!hit)
        return {};
    const trace::Event& e = model.event(hit);
    QString text =
        QStringLiteral("%1\n%2").arg(QString::fromUtf8(model.text(e.name)),
                                     QString::fromStdString(format::duration(e.durationNs)));
    if (const trace::EventId other = overlapRow ? m_index.overlappedBy(hit) : trace::EventId{})
        text += QLatin1Char('\n') +
                tr("Overlaps %1 on the same %2 without nesting in it: drawn on its own row.")
                    .arg(QString::fromUtf8(model.text(model.event(other).name)), what);
    return text;
}

bool TimelineView::viewportEvent(QEvent* event)
{
    if (event->type() != QEvent::ToolTip)
        return QAbstractScrollArea::viewportEvent(event);
    const auto* help = static_cast<QHelpEvent*>(event);
    const QString text = toolTipAt(help->pos());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(help->globalPos(), text, viewport());
    return true;
}

void TimelineView::paintEvent(QPaintEvent*)
{
    QPainter painter(viewport());
    const auto frame = m_builder->latest();
    TimelinePaintState state;
    state.index = &m_index;
    state.layout = &m_layout;
    state.counters = &m_counters;
    state.frame = frame.get();
    state.steps = &m_steps;
    state.view = m_view;
    state.originNs = m_index.model().beginNs();
    state.scrollY = verticalScrollBar()->value();
    state.labelWidth = kLabelWidth;
    state.rulerHeight = kRulerHeight;
    state.selected = m_selected;
    state.links = m_links;
    state.range = m_range;
    state.rangeLanes = m_rangeLanes;
    state.matchedNames = m_matchedNames.empty() ? nullptr : &m_matchedNames;
    paintTimeline(painter, viewport()->size(), state);
}

void TimelineView::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    // Keep the left edge and the scale (the view shows more or less time), unless the
    // view still shows what it opened on.
    m_view.widthPx = timeAreaWidth();
    updateScrollBar();
    if (m_autoFit)
        showHome();
    requestFrame();
}

void TimelineView::scrollContentsBy(int, int)
{
    requestFrame();
}

void TimelineView::wheelEvent(QWheelEvent* event)
{
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ShiftModifier) {
        verticalScrollBar()->setValue(verticalScrollBar()->value() -
                                      delta.y() / 120 * 3 * timeline::TrackLayout::kLaneHeight);
    } else if (std::abs(delta.x()) > std::abs(delta.y())) {
        Viewport view = m_view;
        view.pan(-delta.x() / 120.0 * 0.1 * m_view.widthPx);
        setTimeViewport(view);
    } else if (delta.y() != 0) {
        const double x =
            std::clamp(event->position().x() - kLabelWidth, 0.0, double(m_view.widthPx));
        zoomAroundX(x, std::pow(kWheelZoomPerNotch, delta.y() / 120.0));
    }
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    m_pressAt = m_lastMouse = event->position();
    m_viewAtPress = m_view;
    m_moved = false;
    const bool inTimeArea = event->position().x() >= kLabelWidth;
    if (inTimeArea &&
        (event->position().y() < kRulerHeight || (event->modifiers() & Qt::ShiftModifier))) {
        m_drag = Drag::Range;
        m_rangeAnchorNs = m_view.timeAt(event->position().x() - kLabelWidth);
        m_rangeAnchorY = event->position().y() < kRulerHeight ? -1 : layoutY(event->position().y());
    } else {
        m_drag = Drag::Pan;
        viewport()->setCursor(Qt::ClosedHandCursor);
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    const QPointF at = event->position();
    if (m_drag == Drag::None)
        return;
    if ((at - m_pressAt).manhattanLength() > kClickSlackPx)
        m_moved = true;
    if (m_drag == Drag::Pan && m_moved) {
        const QPointF delta = at - m_lastMouse;
        Viewport view = m_viewAtPress;
        view.pan(m_pressAt.x() - at.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - int(std::lround(delta.y())));
        setTimeViewport(view);
    } else if (m_drag == Drag::Range && m_moved) {
        const int64_t t =
            m_view.timeAt(std::clamp(at.x() - kLabelWidth, 0.0, double(m_view.widthPx)));
        m_range = std::pair(std::min(m_rangeAnchorNs, t), std::max(m_rangeAnchorNs, t));
        if (m_rangeAnchorY < 0) {
            m_rangeLanes = {0, UINT32_MAX};
        } else {  // a box: the lanes between the press and the cursor
            const int y = layoutY(at.y());
            m_rangeLanes =
                m_layout.lanesIn(std::min(y, m_rangeAnchorY), std::max(y, m_rangeAnchorY) + 1);
        }
        viewport()->update();
    }
    m_lastMouse = at;
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || m_drag == Drag::None)
        return;
    const Drag drag = m_drag;
    m_drag = Drag::None;
    viewport()->unsetCursor();
    if (drag == Drag::Range) {
        if (!m_moved)
            m_range.reset();  // a click on the ruler clears the range
        viewport()->update();
        Q_EMIT rangeChanged();
        return;
    }
    if (m_moved)
        return;
    const timeline::LayoutRow* row = event->position().y() >= kRulerHeight
                                         ? m_layout.rowAt(layoutY(event->position().y()))
                                         : nullptr;
    if (row && row->kind == timeline::RowKind::Group) {
        setGroupCollapsed(row->index, !m_layout.groups()[row->index].collapsed);
        return;
    }
    // A fold's label (or an expanded fold's whole header row) toggles it.
    if (row && row->kind == timeline::RowKind::Fold &&
        (event->position().x() < kLabelWidth || m_layout.folds()[row->index].expanded)) {
        setFoldExpanded(row->index, !m_layout.folds()[row->index].expanded);
        return;
    }
    select(eventAt(event->position()), false);
}

void TimelineView::setGroupCollapsed(uint32_t group, bool collapsed)
{
    m_layout.setCollapsed(group, collapsed);
    updateScrollBar();
    requestFrame();
    Q_EMIT layoutChanged();
}

void TimelineView::setFoldExpanded(uint32_t fold, bool expanded)
{
    m_layout.setExpanded(fold, expanded);
    updateScrollBar();
    requestFrame();
    Q_EMIT layoutChanged();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event)
{
    const trace::EventId hit = eventAt(event->position());
    if (hit.valid()) {
        select(hit, false);
        zoomToSelection();
    }
}

void TimelineView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_W:
        zoomAroundX(cursorX(), kKeyZoom);
        break;
    case Qt::Key_S:
        zoomAroundX(cursorX(), 1.0 / kKeyZoom);
        break;
    case Qt::Key_A:
    case Qt::Key_D: {
        Viewport view = m_view;
        view.pan((event->key() == Qt::Key_A ? -1.0 : 1.0) * kKeyPanFraction * m_view.widthPx);
        setTimeViewport(view);
        break;
    }
    case Qt::Key_F:
        zoomToSelection();
        break;
    case Qt::Key_0:
        fitAll();
        break;
    case Qt::Key_Home:
        showHome();
        break;
    case Qt::Key_Escape:
        select({}, false);
        setRange(std::nullopt);
        break;
    default:
        QAbstractScrollArea::keyPressEvent(event);
        return;
    }
    event->accept();
}

}  // namespace kinetoscope::widgets
