#pragma once
// The timeline's details pane: the selected slice (name, category, track, start, duration,
// input shapes, launch configuration, its args read back from the file on demand, the op or
// call that launched it and the kernels it launched, as links) or a selected range's totals.
#include "core/timeline/selection.h"
#include "core/timeline/track_layout.h"

#include <QTextBrowser>

namespace kinetoscope::widgets {

class TimelineDetails : public QTextBrowser
{
    Q_OBJECT
public:
    TimelineDetails(const timeline::TimelineIndex& index, const timeline::TrackLayout& layout,
                    QWidget* parent = nullptr);
    void showEvent(trace::EventId event);
    void showTotals(const timeline::RangeTotals& totals);
    void showHint();
    // Any height: it shares a splitter with the timeline, which the user may drag over it
    // (a text browser asks for 70 px, and two timelines stacked, as Compare shows them, then
    // asked a laptop's window for more than its screen).
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void eventRequested(trace::EventId event);  // a link to another slice was clicked

private:
    QString eventLink(trace::EventId event) const;
    QString trackLabel(trace::EventId event) const;
    const timeline::TimelineIndex& m_index;
    const timeline::TrackLayout& m_layout;
};

}  // namespace kinetoscope::widgets
