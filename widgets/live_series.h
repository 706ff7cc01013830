#pragma once
// The series a live run keeps growing (its samples at 20 Hz, a bar a step), held to what a
// screen can show, so that a redraw costs about the same after eight hours as after a
// minute (bench_live_view). Halving when the count doubles costs O(1) a point on average.
#include <vector>

class QCPBars;
class QCPGraph;

namespace kinetoscope::widgets {

// A curve drawn as the envelope of groups of 1, 2, 4, ... consecutive samples: each group
// two points, its lowest and its highest in time order (what QCustomPlot's own sampling
// would draw at a pixel); the group doubles when the curve passes `mostPoints`. The group
// being filled is drawn as it fills.
class EnvelopeCurve
{
public:
    EnvelopeCurve(QCPGraph* curve, int mostPoints);
    void add(double key, double value);  // keys increasing
    int samplesPerGroup() const { return m_stride; }

private:
    void halve();

    QCPGraph* m_curve;
    int m_mostPoints;
    int m_stride = 1;
    int m_inGroup = 0;
    double m_lowKey = 0, m_low = 0, m_highKey = 0, m_high = 0;  // the group being filled
};

// Stacked bars, one per step until there are `mostBars`, then one per group of 2, 4, ...
// consecutive steps: the group's slowest step whole (its phases as measured: a slow step
// stays as visible as it was when bars overlapped on screen), as wide as the group. The
// group being filled is drawn as it fills, over the steps it has so far.
class SlowestStepBars
{
public:
    SlowestStepBars(std::vector<QCPBars*> stacked, int mostBars);
    // A step numbered `step` (consecutive numbers) and its phases, one per stacked bar.
    void add(double step, const std::vector<double>& phases);
    void clear();
    int bars() const;  // drawn
    int stepsPerBar() const { return m_stride; }

private:
    void drawGroup();  // the group being filled, over the last bar if it was drawn
    void halve();

    std::vector<QCPBars*> m_stacked;
    int m_mostBars;
    int m_stride = 1;
    double m_barWidth;  // of a bar of one step, in steps
    // The group being filled: its first step, how many it has, its slowest so far.
    double m_groupFirst = 0;
    int m_inGroup = 0;
    double m_drawnKey = 0;  // where its bar is drawn now
    std::vector<double> m_slowest;
    double m_slowestTotal = -1;
};

}  // namespace kinetoscope::widgets
