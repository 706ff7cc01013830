#pragma once
// A memory snapshot's Active Memory Timeline: every allocation a band from its alloc to
// its free, stacked in allocation order and coloured by its stack (what predates the
// history grey, at the bottom), the allocator's reserved bytes drawn over it on the same
// axis, the peak marked. The wheel zooms about the pointer, a drag pans, a double-click
// shows the whole history; the band under the pointer is reported (allocationHovered).
#include "core/document/document.h"

#include <QImage>
#include <QWidget>
#include <memory>

namespace kinetoscope::widgets {

class AllocationChart : public QWidget
{
    Q_OBJECT
public:
    AllocationChart(std::shared_ptr<const document::SnapshotDocument> snapshot,
                    QWidget* parent = nullptr);

    void setDevice(int device);  // an index into the document's timelines
    int device() const { return m_device; }
    // The visible range, in the timeline's `when` units (time_us, or entry numbers).
    double viewFrom() const { return m_from; }
    double viewTo() const { return m_to; }
    void setView(double from, double to);
    void showAll();
    void zoomAt(double x, double factor);  // x in widget pixels; factor < 1 zooms in

    QRect plotRect() const;
    // The band drawn at a point of the widget (-1: none), and the entry count its column shows.
    int bandAt(QPoint point, size_t* applied = nullptr) const;
    // The x of a `when` value, and the y of a byte count, in widget pixels.
    double xOf(double when) const;
    double yOf(double bytes) const;
    static QColor colorOf(snapshot::StackId stack);

    QSize sizeHint() const override { return {900, 420}; }
    QSize minimumSizeHint() const override { return {420, 240}; }

Q_SIGNALS:
    void allocationHovered(int band, size_t applied);  // band -1: none under the pointer
    void viewChanged(double from, double to);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    const snapshot::DeviceTimeline& timeline() const;
    void renderBands();
    QString xLabel(double when) const;
    double fullFrom() const;
    double fullTo() const;

    std::shared_ptr<const document::SnapshotDocument> m_snapshot;
    int m_device = 0;
    double m_from = 0, m_to = 1;
    double m_maxBytes = 1;          // the y axis' top: the device's largest of peak and reserved
    QImage m_bands;                 // the plot's bands at the current view and size
    std::vector<size_t> m_samples;  // per pixel column of the plot: the entries applied
    bool m_dirty = true;
    QPoint m_dragFrom;
    double m_dragViewFrom = 0, m_dragViewTo = 0;
    bool m_dragging = false;
};

}  // namespace kinetoscope::widgets
