#pragma once
// The Timeline page of a document: a search bar (matches outlined, Enter / Shift+Enter for
// next / previous), Steady-step, Fit and Zoom-to-selection buttons, the category legend,
// the overview strip, the timeline canvas and the details pane. Owns the level-of-detail
// index and the counter tracks.
#include "core/document/document.h"
#include "core/timeline/counter_track.h"
#include "core/timeline/timeline_index.h"

#include <QPointer>
#include <QWidget>
#include <memory>

class QLabel;
class QLineEdit;
class QTimer;

namespace kinetoscope::widgets {

class TimelineView;
class TimelineDetails;
class TimelineOverview;

class TimelinePage : public QWidget
{
    Q_OBJECT
public:
    explicit TimelinePage(std::shared_ptr<const document::Document> trace,
                          QWidget* parent = nullptr);
    ~TimelinePage() override;

    TimelineView* view() const { return m_view; }
    TimelineDetails* details() const;
    // For timelines stacked under one details pane (StackedTimelines): the pane leaves this
    // page for the caller to place; the page goes on filling it. Called once.
    TimelineDetails* takeDetails();
    TimelineOverview* overview() const { return m_overview; }
    QLineEdit* searchField() const { return m_search; }
    // The search, buttons and legend row: a job's ranks, stacked, share one bar of the
    // job's instead (JobView).
    QWidget* toolbar() const { return m_toolbar; }
    const timeline::TimelineIndex& index() const { return *m_index; }

    void focusSearch();                // Ctrl+F on this page
    void search(const QString& text);  // runs the search now (the field debounces typing)
    const std::vector<trace::EventId>& matches() const { return m_matches; }
    void nextMatch(bool forward);
    // Jumps: select a slice and bring it (and its links) into view; the longest slice with
    // exactly this name (of a GPU activity or not, as asked); a time range.
    void revealEvent(trace::EventId event);
    bool revealName(const std::string& name, bool gpuActivity);
    void revealRange(int64_t beginNs, int64_t endNs);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void selectAndShow(trace::EventId event);  // revealEvent without taking the focus
    // The selected range's totals, else the selected slice; a selected slice first where
    // asked.
    void updateDetails(bool sliceFirst);
    void updateMatchLabel();
    std::shared_ptr<const document::Document> m_trace;
    // The document's (built on the loading worker); built here only for a document
    // opened without one.
    std::shared_ptr<const timeline::TimelineIndex> m_index;
    std::vector<timeline::CounterTrack> m_counters;
    TimelineView* m_view = nullptr;
    QPointer<TimelineDetails> m_details;  // a stack's pane may go before the page
    TimelineOverview* m_overview = nullptr;
    QWidget* m_toolbar = nullptr;
    QLineEdit* m_search = nullptr;
    QLabel* m_matchLabel = nullptr;
    QTimer* m_searchDelay = nullptr;
    std::vector<trace::EventId> m_matches;
};

}  // namespace kinetoscope::widgets
