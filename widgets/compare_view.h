#pragma once
// A comparison of two documents: Overview (the verdict, both sides, the waterfall from
// before to after), Changes (the causes ranked), Kernels, Operators, Copies (per step,
// diffed), Memory (both sides' curves overlaid), Findings (resolved, new, persisting),
// Timelines (before above after, aligned on a chosen steady step) and, when either side is
// compiled, torch.compile (the change by cause: compiled_change_page.h). Views only draw;
// the numbers come from core/compare.
#include "core/compare/comparison.h"
#include "core/document/document.h"

#include <QTabWidget>
#include <memory>

class QAbstractItemView;
class QComboBox;
class QLabel;
class QTableWidget;

namespace kinetoscope::widgets {

class CompiledChangePage;
class TableView;
class StackedTimelines;
class TimelinePage;
class WaterfallChart;

class CompareView : public QTabWidget
{
    Q_OBJECT
public:
    enum Page
    {
        Overview,
        Changes,
        Kernels,
        Operators,
        Copies,
        Memory,
        Findings,
        Timelines,
        Compiled  // last, and only when either side is compiled: the pages above keep their index
    };
    CompareView(std::shared_ptr<const document::Document> before,
                std::shared_ptr<const document::Document> after, compare::Comparison comparison,
                QWidget* parent = nullptr);

    const compare::Comparison& comparison() const { return m_comparison; }
    QLabel* verdictLabel() const { return m_verdict; }
    WaterfallChart* waterfall() const { return m_waterfall; }
    TableView* kernels() const { return m_kernels; }
    QTableWidget* findingsTable() const { return m_findings; }
    // The torch.compile page; null when neither side is compiled.
    CompiledChangePage* compiledPage() const { return m_compiled; }
    // The Timelines page, built when first shown (each side's index is built then).
    TimelinePage* beforeTimeline() const { return m_beforeTimeline; }
    TimelinePage* afterTimeline() const { return m_afterTimeline; }
    QComboBox* stepChooser() const { return m_step; }
    StackedTimelines* stackedTimelines() const { return m_stack; }
    // Both timelines show their `index`-th steady step (clamped to each side's count).
    void alignOnStep(int index);
    QString title() const;  // "before.json ↔ after.json" for the tab
    // Ctrl+F: the current page's filter, or the timelines' search.
    void focusFilter();
    // The current page's table (changes, kernels, operators, copies, findings); null on a
    // page without one.
    QAbstractItemView* currentTable() const;

private:
    QWidget* overviewPage();
    QWidget* memoryPage();
    QWidget* findingsPage();
    QWidget* timelinesPlaceholder();
    void buildTimelines();

    std::shared_ptr<const document::Document> m_before, m_after;
    compare::Comparison m_comparison;
    QLabel* m_verdict = nullptr;
    WaterfallChart* m_waterfall = nullptr;
    TableView* m_kernels = nullptr;
    QTableWidget* m_findings = nullptr;
    QWidget* m_timelines = nullptr;
    TimelinePage* m_beforeTimeline = nullptr;
    TimelinePage* m_afterTimeline = nullptr;
    QComboBox* m_step = nullptr;
    StackedTimelines* m_stack = nullptr;
    CompiledChangePage* m_compiled = nullptr;
};

}  // namespace kinetoscope::widgets
