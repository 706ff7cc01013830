#pragma once
// The step from before to after as a waterfall: the before step, one floating bar per
// breakdown category that moved (down in green, up in red), the after step.
#include "core/compare/comparison.h"

#include <qcustomplot.h>

namespace kinetoscope::widgets {

class WaterfallChart : public QCustomPlot
{
    Q_OBJECT
public:
    explicit WaterfallChart(QWidget* parent = nullptr);
    void setComparison(const compare::Comparison& comparison);
    int barCount() const { return m_barCount; }  // the two steps + the categories that moved

private:
    int m_barCount = 0;
};

}  // namespace kinetoscope::widgets
