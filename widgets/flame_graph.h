#pragma once
// An icicle graph of a merged call tree (core/analysis/call_tree): the root on top, each
// frame as wide as its device time (or host time), its callees below it. Click a frame to
// make it the full width; click the top row, or press Escape, to go back up.
#include "core/analysis/call_tree.h"

#include <QWidget>

namespace kinetoscope::widgets {

class FlameGraph : public QWidget
{
    Q_OBJECT
public:
    enum class Width
    {
        Device,
        Host
    };
    explicit FlameGraph(QWidget* parent = nullptr);
    void setTree(analysis::CallTree tree);
    void setWidthBy(Width width);
    void zoomTo(int32_t node);  // that frame spans the width; -1 or 0: the root
    int32_t zoomedNode() const { return m_focus; }
    // The frame drawn at a point, or -1.
    int32_t nodeAt(QPoint point) const;
    // The rectangle a frame is drawn in (empty when it is too narrow to draw).
    QRectF frameRect(int32_t node) const;
    static constexpr int kRowHeight = 18;

signals:
    void frameClicked(int32_t node);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;  // tooltips
    QSize sizeHint() const override;

private:
    struct Frame
    {
        int32_t node;
        QRectF rect;
    };
    int64_t value(int32_t node) const;
    void layoutFrames();
    analysis::CallTree m_tree;
    Width m_width = Width::Device;
    int32_t m_focus = 0;
    std::vector<Frame> m_frames;  // laid out for the current width, focus and size
    int m_depth = 0;
};

}  // namespace kinetoscope::widgets
