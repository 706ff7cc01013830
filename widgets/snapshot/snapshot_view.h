#pragma once
// A CUDA memory snapshot opened as a document: the allocation timeline (with a read-out
// of the allocation under the pointer and its stack), what was alive at the peak and what
// leaks, by the place that allocated, the segments and their free blocks, and the
// snapshot's findings. Views only draw; every figure comes from core/snapshot.
#include "core/document/document.h"
#include "core/snapshot/peak_in_trace.h"

#include <QWidget>
#include <memory>

class QAbstractItemView;
class QComboBox;
class QLabel;
class QTabWidget;

namespace kinetoscope::widgets {

class AllocationChart;
class FindingsView;
class TableView;

class SnapshotView : public QWidget
{
    Q_OBJECT
public:
    enum Page
    {
        Timeline,
        AtPeak,
        Leaks,
        Segments,
        Diagnosis
    };
    explicit SnapshotView(std::shared_ptr<const document::Document> snapshot,
                          QWidget* parent = nullptr);

    const document::Document& document() const { return *m_document; }
    AllocationChart* chart() const { return m_chart; }
    TableView* atPeak() const { return m_atPeak; }
    TableView* leaks() const { return m_leaks; }
    TableView* segments() const { return m_segments; }
    FindingsView* findings() const { return m_findings; }
    QComboBox* devices() const { return m_devices; }  // null with one device
    QComboBox* atPeakGrouping() const
    {
        return m_groupBy;
    }                         // null when no stack shows a module call
    QString readout() const;  // the allocation under the pointer, as shown
    QString headline() const;
    void setCurrentPage(Page page);
    // The current page's table (at the peak, leaks, segments, findings); null on the timeline.
    QAbstractItemView* currentTable() const;
    // The peak placed in an open trace of the same run (core/snapshot/peak_in_trace.h).
    void setPeakInTrace(const QString& traceName, const snapshot::PeakInTrace& placed);
    QString peakInTraceText() const;

private:
    void showAllocation(int band, size_t applied);
    std::shared_ptr<const document::Document> m_document;
    QTabWidget* m_pages;
    QLabel* m_headline;
    QLabel* m_inTrace;
    AllocationChart* m_chart;
    QLabel* m_readout;
    QComboBox* m_devices = nullptr;
    QComboBox* m_groupBy = nullptr;
    TableView* m_atPeak;
    TableView* m_leaks;
    TableView* m_segments;
    FindingsView* m_findings;
};

}  // namespace kinetoscope::widgets
