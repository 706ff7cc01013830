#include "widgets/timeline/stacked_timelines.h"

#include "widgets/timeline/timeline_details.h"
#include "widgets/timeline/timeline_page.h"
#include "widgets/timeline/timeline_view.h"

#include <QEvent>
#include <QFocusEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace kinetoscope::widgets {

StackedTimelines::StackedTimelines(const QString& unit, int minimumTimelineHeight, QWidget* parent)
    : QWidget(parent), m_unit(unit), m_minimumTimelineHeight(minimumTimelineHeight)
{
    m_searchControls = new QWidget(this);
    auto* bar = new QHBoxLayout(m_searchControls);
    bar->setContentsMargins(0, 0, 0, 0);
    m_search = new QLineEdit(m_searchControls);
    m_search->setPlaceholderText(tr("Search every %1's slices").arg(unit));
    m_search->setToolTip(tr("Matches are outlined on every %1. Enter or \u25B6: each %1's next "
                            "match; \u25C0: each %1's previous one.")
                             .arg(unit));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(200);
    bar->addWidget(m_search, 1);
    for (const bool forward : {false, true}) {
        auto* step = new QToolButton(m_searchControls);
        step->setText(forward ? QStringLiteral("\u25B6") : QStringLiteral("\u25C0"));
        step->setToolTip(forward ? tr("Each %1's next match").arg(unit)
                                 : tr("Each %1's previous match").arg(unit));
        connect(step, &QToolButton::clicked, this, [this, forward] { nextMatch(forward); });
        bar->addWidget(step);
    }
    m_matchLabel = new QLabel(m_searchControls);
    // As wide as its longest count: the field and its buttons stay put as the count changes.
    m_matchLabel->setMinimumWidth(
        fontMetrics().horizontalAdvance(tr("99,999 matches on 64 of 64 %1s").arg(unit)));
    bar->addWidget(m_matchLabel);
    m_searchDelay = new QTimer(this);
    m_searchDelay->setSingleShot(true);
    m_searchDelay->setInterval(250);
    connect(m_search, &QLineEdit::textEdited, m_searchDelay, qOverload<>(&QTimer::start));
    connect(m_searchDelay, &QTimer::timeout, this, [this] { search(m_search->text()); });
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        if (m_searchDelay->isActive()) {
            m_searchDelay->stop();
            search(m_search->text());
        }
        nextMatch(true);
    });

    // The column first, the details second: children go in the order they came, so the
    // timelines (which fill their details panes) are gone before the panes are.
    auto* split = new QSplitter(Qt::Vertical, this);
    auto* scroll = m_scroll = new QScrollArea(split);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setFocusPolicy(Qt::NoFocus);  // Tab goes to the timelines, and scrolls to them
    m_column = new QSplitter(Qt::Vertical, scroll);
    scroll->setWidget(m_column);
    m_details = new QStackedWidget(split);
    split->addWidget(scroll);
    split->addWidget(m_details);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 0);
    split->setCollapsible(0, false);
    // Five lines of details: a slice's name, place and times, or a range's totals and the
    // head of its table; the rest of the height is the timelines'.
    const int lines = fontMetrics().lineSpacing();
    split->setSizes({100 * lines, 6 * lines});

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
}

void StackedTimelines::focusSearch()
{
    m_search->setFocus();
    m_search->selectAll();
}

void StackedTimelines::setSearchEnabled(bool enabled)
{
    m_searchControls->setEnabled(enabled);
}

TimelinePage* StackedTimelines::addTimeline(const QString& heading,
                                            std::shared_ptr<const document::Document> trace)
{
    auto* cell = new QWidget(m_column);
    auto* column = new QVBoxLayout(cell);
    column->setContentsMargins(0, 4, 0, 0);
    column->setSpacing(0);
    auto* title = new QLabel(heading, cell);
    title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // a long path is cut
    column->addWidget(title);
    m_headings.push_back(title);
    m_headingTexts.push_back(heading);
    auto* page = new TimelinePage(std::move(trace), cell);
    page->toolbar()->hide();
    page->layout()->setContentsMargins(0, 2, 0, 0);
    m_details->addWidget(page->takeDetails());
    column->addWidget(page, 1);
    cell->setMinimumHeight(m_minimumTimelineHeight);
    m_column->addWidget(cell);
    // A click, the wheel or the focus anywhere in the timeline (its tracks, its overview
    // strip, its heading, its scroll bars) brings its details.
    const int index = int(m_pages.size());
    m_cellOf.insert(cell, index);
    cell->installEventFilter(this);
    for (QWidget* part : cell->findChildren<QWidget*>()) {
        m_cellOf.insert(part, index);
        part->installEventFilter(this);
    }
    m_pages.push_back(page);
    if (m_detailsShown < 0)
        showDetailsOf(0);
    return page;
}

void StackedTimelines::showDetailsOf(int timeline)
{
    if (timeline < 0 || size_t(timeline) >= m_pages.size())
        return;
    m_detailsShown = timeline;
    m_details->setCurrentIndex(timeline);
    // Whose details they are, on that timeline's heading (no line of its own).
    for (size_t i = 0; i < m_headings.size(); ++i)
        m_headings[i]->setText(int(i) == timeline
                                   ? m_headingTexts[i] +
                                         tr(" <span style='color:#1565c0'>\u25BC its details "
                                            "below</span>")
                                   : m_headingTexts[i]);
}

bool StackedTimelines::eventFilter(QObject* watched, QEvent* event)
{
    // The timeline the user works in is the one whose details are shown.
    const QEvent::Type type = event->type();
    if (type == QEvent::MouseButtonPress || type == QEvent::Wheel || type == QEvent::FocusIn) {
        const int timeline = m_cellOf.value(watched, -1);
        if (timeline >= 0 && timeline != m_detailsShown)
            showDetailsOf(timeline);
        // Tab from the details pane (outside the scroll area, which scrolls to a focused
        // child only when Tab starts inside it) to a timeline out of view: scrolled to. Not
        // on a click, which would move the tracks under the pointer.
        const auto reason = type == QEvent::FocusIn ? static_cast<QFocusEvent*>(event)->reason()
                                                    : Qt::OtherFocusReason;
        if (timeline >= 0 && (reason == Qt::TabFocusReason || reason == Qt::BacktabFocusReason))
            m_scroll->ensureWidgetVisible(static_cast<QWidget*>(watched), 0, 0);
    }
    return QWidget::eventFilter(watched, event);
}

void StackedTimelines::search(const QString& text)
{
    size_t matches = 0, withMatches = 0;
    for (TimelinePage* page : m_pages) {
        page->search(text);
        matches += page->matches().size();
        withMatches += !page->matches().empty();
    }
    if (text.isEmpty())
        m_matchLabel->clear();
    else
        m_matchLabel->setText(tr("%1 matches on %2 of %3 %4s")
                                  .arg(matches)
                                  .arg(withMatches)
                                  .arg(m_pages.size())
                                  .arg(m_unit));
}

void StackedTimelines::nextMatch(bool forward)
{
    for (TimelinePage* page : m_pages)
        page->nextMatch(forward);
}

}  // namespace kinetoscope::widgets
