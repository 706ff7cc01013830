#pragma once
// The Scaling page: a study of the same script at several world sizes (core/scaling):
// samples/s against world size beside the ideal line (N times the smallest job's per
// rank), the lost time per step stacked per world size (exposed communication, waiting for
// a straggler, load imbalance, the rest), and the figures in a table.
#include "core/scaling/scaling.h"

#include <QWidget>

class QCustomPlot;
class QLabel;
class QTableWidget;

namespace kinetoscope::widgets {

class ScalingView : public QWidget
{
    Q_OBJECT

public:
    explicit ScalingView(QWidget* parent = nullptr);
    void setStudy(const scaling::Study& study);

    QCustomPlot* throughputPlot() const { return m_throughput; }
    QCustomPlot* lostTimePlot() const { return m_lost; }
    QTableWidget* table() const { return m_table; }

private:
    QLabel* m_title = nullptr;
    QCustomPlot* m_throughput = nullptr;
    QCustomPlot* m_lost = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_method = nullptr;
};

}  // namespace kinetoscope::widgets
