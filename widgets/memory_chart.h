#pragma once
// Allocated versus reserved memory over time per device, peaks marked, step
// boundaries, and a read-out that follows the mouse.
#include "core/analysis/memory_usage.h"

#include <qcustomplot.h>

namespace kinetoscope::widgets {

class MemoryChart : public QCustomPlot
{
    Q_OBJECT
public:
    explicit MemoryChart(QWidget* parent = nullptr);
    void setMemory(const std::map<std::string, analysis::DeviceMemory>& memory,
                   const analysis::StepDetection& steps, int64_t originNs);
    int curvePointCount() const;  // points over all curves (after reduction)
    QString readout() const { return m_readout ? m_readout->text() : QString(); }
    void showReadoutAt(double key);  // the hover read-out at time `key` (ms)

private:
    QCPItemText* m_readout = nullptr;
    QCPItemTracer* m_tracer = nullptr;
};

}  // namespace kinetoscope::widgets
