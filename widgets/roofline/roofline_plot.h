#pragma once
// The roofline plot: arithmetic intensity (FLOP/byte) against achieved throughput
// (TFLOP/s), both on log axes; the device's roofs drawn (the memory slope and one
// ceiling per precision the trace's ops use); one dot per op group, its area by its device
// time, its colour by its kind. A group measured above its roof (a measurement or peak error,
// roofline::Rating::abovePeak) gets a red ring and a legend entry saying so. The roof labels
// are placed, at each layout, along their roof where they cover no dot. Hovering a dot names
// it (a compiled kernel's launch with the ops its kernel fused); clicking one emits opClicked.
#include "core/roofline/roofline.h"

#include <qcustomplot.h>
#include <vector>

namespace kinetoscope::widgets {

class RooflinePlot : public QCustomPlot
{
    Q_OBJECT
public:
    explicit RooflinePlot(QWidget* parent = nullptr);
    // Dots for the rated op groups (at most kMaxDots, by device time).
    void setRoofline(const roofline::Roofline& roofline);
    int dotCount() const { return static_cast<int>(m_dots.size()); }
    int roofCount() const { return m_roofs; }
    int flaggedCount() const;  // dots above their roof
    QString dotLabel(int dot) const { return m_dots.at(size_t(dot)).label; }  // its tooltip
    // The dot's centre in widget pixels, for tests; (-1, -1) when out of range.
    QPointF dotPosition(int dot) const;
    // The op group of a dot: its index in the Roofline's ops.
    size_t opOfDot(int dot) const { return m_dots.at(size_t(dot)).op; }
    static constexpr int kMaxDots = 200;
    static constexpr double kDecades = 5;  // of throughput below the highest roof shown

signals:
    void opClicked(size_t opIndex);  // index into the Roofline's ops

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    struct Dot
    {
        double intensity;
        double tflops;
        size_t op;
        QString label;
        double size;  // pixels
        QColor color;
        bool abovePeak;
    };
    // A roof's label and where it may go: along a ceiling (from its ridge point to the right
    // edge) or along the memory slope (from the left edge to the highest ridge).
    struct RoofLabel
    {
        QCPItemText* text;
        double tflops;  // the ceiling; 0 for the memory slope
        double ridge;   // FLOP/byte where the ceiling starts
    };
    int dotAt(const QPointF& pixel) const;  // -1 when none within reach
    void placeRoofLabels();                 // after each layout, before drawing
    std::vector<Dot> m_dots;
    std::vector<RoofLabel> m_labels;
    std::vector<QCPGraph*> m_roofGraphs;
    double m_bandwidth = 0;  // GB/s
    double m_highestRidge = 0;
    int m_roofs = 0;
};

}  // namespace kinetoscope::widgets
