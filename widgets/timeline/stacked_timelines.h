#pragma once
// Timelines of several traces one under the other (a comparison's before and after, a job's
// ranks): one search for them all (matches outlined on each, Enter or ▶ steps each to its
// next match), the timelines in a scrolled column, each under its heading, and one details
// pane under the column for the timeline last clicked, zoomed or scrolled. Each timeline keeps
// its overview strip and tracks; its own search bar and details pane give way to the shared
// ones, so that two or sixty-four traces leave their tracks the height of a laptop's screen.
#include "core/document/document.h"

#include <QHash>
#include <QWidget>
#include <memory>
#include <vector>

class QLabel;
class QLineEdit;
class QScrollArea;
class QSplitter;
class QStackedWidget;
class QTimer;

namespace kinetoscope::widgets {

class TimelinePage;

class StackedTimelines : public QWidget
{
    Q_OBJECT
public:
    // `unit` names one trace in the search's texts ("rank": "3 matches on 2 of 8 ranks").
    // A timeline is never squeezed below `minimumTimelineHeight` (px): the column scrolls.
    StackedTimelines(const QString& unit, int minimumTimelineHeight, QWidget* parent = nullptr);

    // The search field, ◀ ▶ and the match count: the owner's bar holds them.
    QWidget* searchControls() const { return m_searchControls; }
    QLineEdit* searchField() const { return m_search; }
    void focusSearch();  // Ctrl+F on the page
    void setSearchEnabled(bool enabled);

    // Adds a timeline under `heading` (rich text: "<b>Rank 3</b> path"); the heading of the
    // timeline whose details are shown says so.
    TimelinePage* addTimeline(const QString& heading,
                              std::shared_ptr<const document::Document> trace);
    const std::vector<TimelinePage*>& timelines() const { return m_pages; }

    void search(const QString& text);  // every timeline, now (the field debounces typing)
    void nextMatch(bool forward);      // each timeline to its next (previous) match
    // The timeline whose details the pane shows (-1 before any is added).
    int detailsShown() const { return m_detailsShown; }
    void showDetailsOf(int timeline);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QString m_unit;
    int m_minimumTimelineHeight = 0;
    QWidget* m_searchControls = nullptr;
    QLineEdit* m_search = nullptr;
    QTimer* m_searchDelay = nullptr;
    QLabel* m_matchLabel = nullptr;
    QScrollArea* m_scroll = nullptr;
    QSplitter* m_column = nullptr;        // the timelines, in the scroll area
    QStackedWidget* m_details = nullptr;  // each timeline's details pane, one shown
    std::vector<TimelinePage*> m_pages;
    QHash<const QObject*, int> m_cellOf;  // each timeline's widgets: which timeline
    std::vector<QLabel*> m_headings;
    std::vector<QString> m_headingTexts;
    int m_detailsShown = -1;
};

}  // namespace kinetoscope::widgets
