#pragma once
// A lab session recorded without a trace (no --profile): what it measured, read back.
// The findings the lab's measurements support first, then the lab's figures as the live
// view showed them (arms, phases, memory triage, sweeps, latency, the seeds' reading).
// The trace's pages need a trace, and the tab says so.
#include "core/document/document.h"

#include <QWidget>
#include <memory>

class QAbstractItemView;
class QTabWidget;

namespace kinetoscope::widgets {

class FindingsView;
class LiveRunView;

class SessionView : public QWidget
{
    Q_OBJECT
public:
    explicit SessionView(std::shared_ptr<const document::Document> session,
                         QWidget* parent = nullptr);
    const document::Document& document() const { return *m_document; }
    FindingsView* findings() const { return m_findings; }
    LiveRunView* lab() const { return m_lab; }
    enum Page
    {
        Diagnosis,
        Lab
    };
    void setCurrentPage(Page page);
    // The findings on the Diagnosis page, the lab's arms on the Lab page.
    QAbstractItemView* currentTable() const;

private:
    std::shared_ptr<const document::Document> m_document;
    QTabWidget* m_pages;
    FindingsView* m_findings;
    LiveRunView* m_lab;
};

}  // namespace kinetoscope::widgets
