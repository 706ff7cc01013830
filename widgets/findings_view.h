#pragma once
// The Diagnosis page: ranked findings on the left, the selected one's explanation,
// evidence, gain and fix (with a copyable snippet) on the right. The list exports the
// findings themselves as CSV (severity, rule, title, gain in ns, ...; table_export.h).
#include "core/analysis/diagnosis/finding.h"

#include <QWidget>

class QAbstractTableModel;
class QListWidget;
class QTextBrowser;
class QPushButton;

namespace kinetoscope::widgets {

class FindingsView : public QWidget
{
    Q_OBJECT
public:
    explicit FindingsView(QWidget* parent = nullptr);
    void setFindings(const std::vector<analysis::Finding>& findings);
    // What the CSV export measures against: the mean step the diagnosis graded the gains
    // against (the breakdown's average step; unknown (0) leaves the gain share blank), and
    // the trace's first event (ranges count from it, as every time shown does).
    void setTraceFigures(double stepNs, int64_t originNs);
    // Without a trace (a lab session recorded without one) there is nothing to show the
    // evidence in: the buttons that would are hidden.
    void setTraceActions(bool shown);
    int findingCount() const;
    QString findingTitle(int row) const;
    void select(int row);
    QString detailsText() const;
    QListWidget* list() const { return m_list; }
    // The findings as a table, one row per row of the list: what the list exports.
    QAbstractTableModel* table() const { return m_table; }

Q_SIGNALS:
    // The user asked to see the evidence of a finding in the other views.
    void evidenceRequested(const analysis::Finding& finding);
    // The user asked to see the finding's time range (or kernel, or op) on the timeline.
    void timelineRequested(const analysis::Finding& finding);
    // A finding became the current one (its time range can be marked in the plots).
    void findingSelected(const analysis::Finding& finding);

private:
    void showDetails(int row);
    std::vector<analysis::Finding> m_findings;
    double m_stepNs = 0;
    int64_t m_originNs = 0;
    QListWidget* m_list;
    QAbstractTableModel* m_table = nullptr;
    QTextBrowser* m_details;
    QPushButton* m_copy;
    QPushButton* m_evidence;
    QPushButton* m_timeline;
};

// One finding as HTML (shared with the report).
QString findingHtml(const analysis::Finding& finding, int rank);

}  // namespace kinetoscope::widgets
