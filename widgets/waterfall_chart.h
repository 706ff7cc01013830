#pragma once
// The step from before to after as a waterfall: the before step, one floating bar per
// part that moved (down in green, up in red), the after step. The parts are the breakdown's
// categories (setComparison) or any split that adds up to the change (setSteps: the
// compiled change's fusion, GEMMs, launches, other).
#include "core/compare/comparison.h"

#include <QString>
#include <qcustomplot.h>
#include <utility>
#include <vector>

namespace kinetoscope::widgets {

class WaterfallChart : public QCustomPlot
{
    Q_OBJECT
public:
    explicit WaterfallChart(QWidget* parent = nullptr);
    void setComparison(const compare::Comparison& comparison);
    struct Change
    {
        QString label;
        double deltaNs = 0;  // per step
    };
    // Nanoseconds per step; `changes` in the order drawn, each from where the last ended.
    void setSteps(const QString& beforeLabel, double beforeNs, const std::vector<Change>& changes,
                  const QString& afterLabel, double afterNs);
    int barCount() const { return m_barCount; }  // the two steps + the categories that moved

    // Each bar's value label and the bar, in the order drawn.
    const std::vector<std::pair<QCPItemText*, QCPItemRect*>>& labels() const { return m_labels; }

private:
    void colourLabelsOnBars();

    int m_barCount = 0;
    std::vector<std::pair<QCPItemText*, QCPItemRect*>> m_labels;
};

}  // namespace kinetoscope::widgets
