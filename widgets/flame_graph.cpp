#include "widgets/flame_graph.h"

#include "core/format/format.h"
#include "widgets/timeline/timeline_palette.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <functional>

namespace kinetoscope::widgets {

namespace {

constexpr double kMinFrameWidth = 1.0;  // px: narrower frames are not drawn

}  // namespace

FlameGraph::FlameGraph(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::ClickFocus);
}

void FlameGraph::setTree(analysis::CallTree tree)
{
    m_tree = std::move(tree);
    m_focus = 0;
    layoutFrames();
}

void FlameGraph::setWidthBy(Width width)
{
    m_width = width;
    layoutFrames();
}

void FlameGraph::zoomTo(int32_t node)
{
    m_focus = node > 0 && size_t(node) < m_tree.nodes.size() ? node : 0;
    layoutFrames();
}

int64_t FlameGraph::value(int32_t node) const
{
    const analysis::CallNode& n = m_tree.nodes[size_t(node)];
    return m_width == Width::Device ? n.deviceNs : n.hostNs;
}

// Row 0 holds the focused frame's ancestors' path collapsed into one frame (the focus),
// then its callees below, each as wide as its share of the focus's value.
void FlameGraph::layoutFrames()
{
    m_frames.clear();
    m_depth = 0;
    if (m_tree.nodes.empty() || value(m_focus) <= 0) {
        updateGeometry();
        update();
        return;
    }
    const double scale = width() / double(value(m_focus));
    struct Pending
    {
        int32_t node;
        double x;
        int row;
    };
    std::vector<Pending> pending{{m_focus, 0.0, 0}};
    while (!pending.empty()) {
        const Pending p = pending.back();
        pending.pop_back();
        const double w = double(value(p.node)) * scale;
        if (w < kMinFrameWidth)
            continue;
        m_frames.push_back({p.node, QRectF(p.x, p.row * kRowHeight, w, kRowHeight - 1)});
        m_depth = std::max(m_depth, p.row + 1);
        double x = p.x;
        for (int32_t child : m_tree.nodes[size_t(p.node)].children) {
            pending.push_back({child, x, p.row + 1});
            x += double(value(child)) * scale;
        }
    }
    setMinimumHeight(m_depth * kRowHeight);
    updateGeometry();
    update();
}

QSize FlameGraph::sizeHint() const
{
    return {800, std::max(1, m_depth) * kRowHeight};
}

int32_t FlameGraph::nodeAt(QPoint point) const
{
    for (const Frame& f : m_frames)
        if (f.rect.contains(point))
            return f.node;
    return -1;
}

QRectF FlameGraph::frameRect(int32_t node) const
{
    for (const Frame& f : m_frames)
        if (f.node == node)
            return f.rect;
    return {};
}

void FlameGraph::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (m_frames.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter,
                         m_width == Width::Device
                             ? tr("No device time was launched from the host threads.")
                             : tr("No host frames in this trace."));
        return;
    }
    const QFontMetrics metrics = painter.fontMetrics();
    for (const Frame& f : m_frames) {
        const analysis::CallNode& n = m_tree.nodes[size_t(f.node)];
        // One colour per name, as on the timeline, so a frame looks the same wherever it is.
        const QColor fill =
            n.category == trace::Category::Other
                ? QColor(200, 200, 205)
                : sliceColor(n.category, uint32_t(std::hash<std::string>{}(n.name)));
        painter.fillRect(f.rect, fill);
        if (f.rect.width() < 3 * metrics.averageCharWidth())
            continue;
        painter.setPen(Qt::black);
        const QString text = metrics.elidedText(QString::fromStdString(n.name), Qt::ElideRight,
                                                int(f.rect.width()) - 6);
        painter.drawText(f.rect.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    }
}

void FlameGraph::mousePressEvent(QMouseEvent* event)
{
    const int32_t node = nodeAt(event->position().toPoint());
    if (node < 0)
        return;
    // The top row is the focus: clicking it goes one level up.
    zoomTo(node == m_focus ? m_tree.nodes[size_t(node)].parent : node);
    emit frameClicked(node);
}

void FlameGraph::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape && m_focus != 0)
        zoomTo(0);
    else
        QWidget::keyPressEvent(event);
}

bool FlameGraph::event(QEvent* event)
{
    if (event->type() == QEvent::Resize)
        layoutFrames();
    if (event->type() != QEvent::ToolTip)
        return QWidget::event(event);
    auto* help = static_cast<QHelpEvent*>(event);
    const int32_t node = nodeAt(help->pos());
    if (node < 0) {
        QToolTip::hideText();
        return true;
    }
    const analysis::CallNode& n = m_tree.nodes[size_t(node)];
    const double share = value(m_focus) > 0 ? double(value(node)) / double(value(m_focus)) : 0.0;
    QString text =
        QStringLiteral("<b>%1</b><br>").arg(QString::fromStdString(n.name).toHtmlEscaped());
    if (n.calls > 0)
        text += tr("%1 calls<br>").arg(QString::fromStdString(format::count(uint64_t(n.calls))));
    text += tr("device %1 (self %2)<br>host %3<br>%4 of the frame on top")
                .arg(QString::fromStdString(format::duration(double(n.deviceNs))),
                     QString::fromStdString(format::duration(double(n.deviceSelfNs))),
                     QString::fromStdString(format::duration(double(n.hostNs))),
                     QString::fromStdString(format::percent(share)));
    QToolTip::showText(help->globalPos(), text, this);
    return true;
}

}  // namespace kinetoscope::widgets
