#pragma once
// The utilisation sawtooth: GPU busy fraction over time per device, CPU activity on the
// same axis, step boundaries marked; regular idle gaps show at a glance.
#include "core/analysis/summary.h"

#include <qcustomplot.h>

namespace kinetoscope::widgets {

class UtilizationChart : public QCustomPlot
{
    Q_OBJECT
public:
    explicit UtilizationChart(QWidget* parent = nullptr);
    void setSeries(const analysis::UtilizationSeries& series, const analysis::StepDetection& steps);
    // Shades [beginNs, endNs) (evidence of a finding); an empty range clears it.
    void highlight(int64_t beginNs, int64_t endNs);
    int stepMarkerCount() const { return m_stepMarkers; }
    bool hasHighlight() const { return m_highlight != nullptr; }
    int64_t originNs() const { return m_originNs; }

private:
    int64_t m_originNs = 0;
    int m_stepMarkers = 0;
    QCPItemRect* m_highlight = nullptr;
};

}  // namespace kinetoscope::widgets
