#pragma once
// The phase breakdown bars: one stacked bar per step (kernel ... other) and the average.
#include "core/analysis/breakdown.h"

#include <qcustomplot.h>

namespace kinetoscope::widgets {

class BreakdownChart : public QCustomPlot
{
    Q_OBJECT
public:
    explicit BreakdownChart(QWidget* parent = nullptr);
    void setBreakdown(const analysis::StepDetection& steps, const analysis::Breakdown& breakdown);
    int barCount() const { return m_barCount; }  // steps + 1 (the average)

private:
    int m_barCount = 0;
};

}  // namespace kinetoscope::widgets
