#pragma once
// The Memory page: allocated and reserved memory over time, then for one device the
// memory table per op (allocations, bytes, size increase; self and total) and what was
// alive at the peak of allocated memory, by the stack of ops that allocated it.
#include "core/analysis/summary.h"

#include <QWidget>

class QComboBox;
class QLabel;

namespace kinetoscope::widgets {

class MemoryChart;
class MemoryTableModel;
class TableView;

class MemoryPage : public QWidget
{
    Q_OBJECT
public:
    MemoryPage(const analysis::TraceSummary& summary, QWidget* parent = nullptr);
    MemoryChart* chart() const { return m_chart; }
    TableView* table() const { return m_table; }
    MemoryTableModel* model() const { return m_model; }
    QComboBox* device() const { return m_device; }  // the device the table and the peak are of
    QLabel* peak() const { return m_peak; }

private:
    void showDevice(const QString& device);
    std::map<std::string, analysis::DeviceMemory> m_memory;
    int64_t m_originNs = 0;  // the trace's first event: every time on the page is after it
    MemoryChart* m_chart;
    MemoryTableModel* m_model;
    TableView* m_table;
    QComboBox* m_device;
    QLabel* m_peak;
};

}  // namespace kinetoscope::widgets
