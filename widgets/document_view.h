#pragma once
// One opened trace: tabs for Overview, Diagnosis, Operators, Kernels, Memory, Modules and Timeline
// over one AnalysedTrace. Views only draw; all numbers come from core/analysis.
#include "core/document/document.h"

#include <QTabWidget>

class QAbstractItemView;
class QComboBox;

#include <memory>

namespace kinetoscope::widgets {

class OverviewView;
class FindingsView;
class TableView;
class OpTableModel;
class KernelTableModel;
class MemoryChart;
class MemoryPage;
class ModuleView;
class TimelinePage;
class LiveRunView;
class RooflinePanel;

class DocumentView : public QTabWidget
{
    Q_OBJECT
public:
    // Lab: a profiled lab session's measurements as its live view showed them (a trace
    // opened alone has no such page).
    enum Page
    {
        Overview,
        Diagnosis,
        Operators,
        Kernels,
        Memory,
        Modules,
        Timeline,
        Lab
    };
    explicit DocumentView(std::shared_ptr<const document::Document> trace,
                          QWidget* parent = nullptr);

    const document::Document& trace() const { return *m_trace; }
    std::shared_ptr<const document::Document> sharedTrace() const { return m_trace; }
    OverviewView* overview() const { return m_overview; }
    FindingsView* findings() const { return m_findings; }
    TableView* operators() const { return m_operators; }
    TableView* kernels() const { return m_kernels; }
    MemoryChart* memoryChart() const { return m_memory; }
    MemoryPage* memoryPage() const { return m_memoryPage; }
    ModuleView* modules() const { return m_modules; }
    TimelinePage* timeline() const { return m_timeline; }
    RooflinePanel* roofline() const { return m_roofline; }  // beside the Operators table
    LiveRunView* lab() const { return m_lab; }  // null unless the document is a lab session
    OpTableModel* opModel() const { return m_opModel; }
    KernelTableModel* kernelModel() const { return m_kernelModel; }
    // The Kernels page's "Group by": kernel, kernel and op, kernel and launch configuration.
    QComboBox* kernelGrouping() const { return m_kernelGroups; }
    // The Operators page's "Group by" (name, and input shapes and call stack where the
    // trace has them); null when the trace has neither.
    QComboBox* opGrouping() const { return m_opGroups; }
    // The current page's table, what File > Export table… writes: the findings, operators,
    // kernels, memory by op, modules or a lab's arms; null on a page without one (or a
    // trace without memory samples or module spans).
    QAbstractItemView* currentTable() const;
    void focusFilter();  // Ctrl+F: the filter of the current table page, or the timeline's search
    void showEvidence(const analysis::Finding& finding);
    // The Timeline page at a finding's time range (or its first kernel or op).
    void showEvidenceInTimeline(const analysis::Finding& finding);
    // The Timeline page at the longest slice of this op (or GPU activity) name.
    bool showInTimeline(const QString& name, bool gpuActivity);
    // The Operators row of a roofline op group (grouped by input shapes where the trace
    // has them), selected and scrolled to; false when no row shows it.
    bool selectOpGroup(size_t opIndex);

private:
    std::shared_ptr<const document::Document> m_trace;
    OverviewView* m_overview;
    FindingsView* m_findings;
    OpTableModel* m_opModel;
    KernelTableModel* m_kernelModel;
    TableView* m_operators;
    TableView* m_kernels;
    RooflinePanel* m_roofline = nullptr;
    QComboBox* m_kernelGroups = nullptr;
    QComboBox* m_opGroups = nullptr;
    MemoryChart* m_memory;
    MemoryPage* m_memoryPage = nullptr;
    ModuleView* m_modules;
    TimelinePage* m_timeline;
    LiveRunView* m_lab = nullptr;
};

}  // namespace kinetoscope::widgets
