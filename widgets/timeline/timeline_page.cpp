#include "widgets/timeline/timeline_page.h"

#include "core/timeline/frame_folds.h"
#include "widgets/keyboard_focus.h"
#include "widgets/timeline/layout_memory.h"
#include "widgets/timeline/timeline_details.h"
#include "widgets/timeline/timeline_overview.h"
#include "widgets/timeline/timeline_palette.h"
#include "widgets/timeline/timeline_view.h"

#include <QGuiApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTextDocument>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

namespace kinetoscope::widgets {

namespace {

// A wrapping label that asks for its text on one line (a wrapping QLabel asks for a
// narrower guess): the legend takes one row where the toolbar has room, and wraps only where
// it has not.
class OneLineFirstLabel : public QLabel
{
public:
    using QLabel::QLabel;
    QSize sizeHint() const override
    {
        QTextDocument document;
        document.setDefaultFont(font());
        document.setDocumentMargin(0);
        document.setHtml(text());
        const QMargins m = contentsMargins();
        return {int(std::ceil(document.idealWidth())) + m.left() + m.right() + 2 * margin(),
                QLabel::sizeHint().height()};
    }
};

// The legend: a swatch and a label for each category present in the trace, in one label
// that wraps between entries (never inside one): a trace of many categories gets a second
// line rather than a toolbar wider than a laptop's screen.
QWidget* makeLegend(const trace::TraceModel& model, QWidget* parent)
{
    bool present[trace::kCategoryCount] = {};
    for (const trace::Event& e : model.events())
        present[int(e.category)] = true;
    QStringList entries;
    for (int c = 0; c < trace::kCategoryCount; ++c) {
        if (!present[c])
            continue;
        const QColor color = sliceCategoryColor(trace::Category(c));
        QString label = sliceCategoryLabel(trace::Category(c)).toHtmlEscaped();
        label.replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
        entries << QStringLiteral("<span style='color:%1'>\u25A0</span>&nbsp;%2")
                       .arg(color.name(), label);
    }
    auto* legend = new OneLineFirstLabel(entries.join(QStringLiteral("&nbsp;&nbsp; ")), parent);
    legend->setTextFormat(Qt::RichText);
    legend->setWordWrap(true);
    return legend;
}

}  // namespace

TimelinePage::TimelinePage(std::shared_ptr<const document::Document> trace, QWidget* parent)
    : QWidget(parent), m_trace(std::move(trace)),
      m_index(m_trace->timeline
                  ? m_trace->timeline
                  : std::make_shared<const timeline::TimelineIndex>(
                        *m_trace->model, timeline::leadThreadOf(
                                             *m_trace->model, m_trace->summary.window.stepMarker))),
      m_counters(timeline::countersFromSummary(m_trace->summary, m_trace->model->endNs()))
{
    // Every step is marked (warm-up ones too); the view opens on the first steady one, with
    // the Python frames that span a steady step folded.
    const auto& steady = m_trace->summary.steps.steps;
    m_view = new TimelineView(
        *m_index, m_counters, m_trace->summary.window.allSteps,
        timeline::findFrameFolds(*m_index, timeline::foldSpanNs(*m_trace->model, steady)), this);
    if (!steady.empty()) {
        const int64_t pad = steady.front().durationNs() / 50;
        m_view->setHomeRange(steady.front().beginNs - pad, steady.front().endNs + pad);
    }
    m_details = new TimelineDetails(*m_index, m_view->layout(), this);
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search slices by name"));
    m_search->setToolTip(tr("Matches are outlined. Enter: the next match, Shift+Enter: the "
                            "previous one."));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(240);
    m_matchLabel = new QLabel(this);
    m_searchDelay = new QTimer(this);
    m_searchDelay->setSingleShot(true);
    m_searchDelay->setInterval(250);
    auto* previous = new QToolButton(this);
    previous->setText(QStringLiteral("\u25C0"));
    previous->setToolTip(tr("Previous match (Shift+Enter)"));
    auto* next = new QToolButton(this);
    next->setText(QStringLiteral("\u25B6"));
    next->setToolTip(tr("Next match (Enter)"));
    auto* home = new QPushButton(tr("Steady step"), this);
    home->setToolTip(tr("Show the first steady step, as the timeline opened (Home)"));
    auto* fit = new QPushButton(tr("Fit all"), this);
    fit->setToolTip(tr("Show the whole trace (0)"));
    auto* zoom = new QPushButton(tr("Zoom to selection"), this);
    zoom->setToolTip(tr("Zoom to the selected slice or range (F)"));

    m_toolbar = new QWidget(this);
    auto* bar = new QHBoxLayout(m_toolbar);
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_search, 1);
    bar->addWidget(previous);
    bar->addWidget(next);
    bar->addWidget(m_matchLabel);
    bar->addSpacing(12);
    bar->addWidget(home);
    bar->addWidget(fit);
    bar->addWidget(zoom);
    bar->addSpacing(12);
    bar->addWidget(makeLegend(*m_trace->model, this));  // one row where it fits

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_view);
    splitter->addWidget(m_details);
    splitter->setStretchFactor(0, 4);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({640, 150});
    // Tab in reading order: the toolbar, then the tracks, then their details.
    tabOrder({m_toolbar, m_view, m_details});
    m_overview = new TimelineOverview(m_view, m_trace->summary.window,
                                      timeline::busyProfile(m_trace->summary.utilization), this);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_toolbar);
    layout->addWidget(m_overview);
    layout->addWidget(splitter, 1);

    connect(m_search, &QLineEdit::textEdited, m_searchDelay, qOverload<>(&QTimer::start));
    connect(m_searchDelay, &QTimer::timeout, this, [this] { search(m_search->text()); });
    // Enter / Shift+Enter in the field: read from the key event itself (the application's
    // modifier state lags behind synthesised and remote input).
    m_search->installEventFilter(this);
    connect(previous, &QToolButton::clicked, this, [this] { nextMatch(false); });
    connect(next, &QToolButton::clicked, this, [this] { nextMatch(true); });
    connect(fit, &QPushButton::clicked, m_view, &TimelineView::fitAll);
    connect(home, &QPushButton::clicked, m_view, &TimelineView::showHome);
    connect(zoom, &QPushButton::clicked, m_view, &TimelineView::zoomToSelection);
    // The pane shows what was done last: a slice clicked shows the slice even where a range
    // is set (Compare and a job set one on each timeline), a range drawn its totals.
    connect(m_view, &TimelineView::selectionChanged, this, [this] {
        updateDetails(true);
        updateMatchLabel();
    });
    connect(m_view, &TimelineView::rangeChanged, this, [this] { updateDetails(false); });
    connect(m_details, &TimelineDetails::eventRequested, this, &TimelinePage::revealEvent);
    // The layout this kind of run was last left in; what the user changes is remembered.
    const analysis::RunKind kind = m_trace->summary.window.kind;
    restoreTimelineLayout(*m_view, kind);
    connect(m_view, &TimelineView::layoutChanged, this,
            [this, kind] { rememberTimelineLayout(*m_view, kind); });
}

bool TimelinePage::eventFilter(QObject* watched, QEvent* event)
{
    if (watched != m_search || event->type() != QEvent::KeyPress)
        return QWidget::eventFilter(watched, event);
    const auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() != Qt::Key_Return && key->key() != Qt::Key_Enter)
        return QWidget::eventFilter(watched, event);
    if (m_searchDelay->isActive()) {
        m_searchDelay->stop();
        search(m_search->text());
    }
    nextMatch(!(key->modifiers() & Qt::ShiftModifier));
    return true;
}

void TimelinePage::focusSearch()
{
    m_search->setFocus();
    m_search->selectAll();
}

TimelinePage::~TimelinePage()
{
    // The view's worker reads the index: stop it before the index goes.
    delete m_view;
    m_view = nullptr;
}

TimelineDetails* TimelinePage::details() const
{
    return m_details;
}

TimelineDetails* TimelinePage::takeDetails()
{
    m_details->setParent(nullptr);
    return m_details;
}

void TimelinePage::search(const QString& text)
{
    m_matches = timeline::searchByName(*m_trace->model, text.toStdString());
    std::vector<uint8_t> names;
    for (trace::EventId id : m_matches) {
        const uint32_t name = m_trace->model->event(id).name.value;
        if (name >= names.size())
            names.resize(size_t(name) + 1, 0);
        names[name] = 1;
    }
    m_view->setMatchedNames(std::move(names));
    updateMatchLabel();
}

void TimelinePage::nextMatch(bool forward)
{
    if (m_matches.empty())
        return;
    const trace::EventId current = m_view->selected();
    const timeline::Viewport& v = m_view->timeViewport();
    // From the selection, else from the left edge: the first match in view comes first.
    const int64_t from =
        current.valid() ? m_trace->model->event(current).startNs : v.beginNs - (forward ? 1 : -1);
    // The focus stays where it is (the search field, for the next Enter).
    selectAndShow(timeline::nextMatch(*m_trace->model, m_matches, from, forward));
}

void TimelinePage::selectAndShow(trace::EventId event)
{
    m_view->setRange(std::nullopt);
    m_view->select(event, true);
}

void TimelinePage::revealEvent(trace::EventId event)
{
    selectAndShow(event);
    m_view->setFocus();
}

bool TimelinePage::revealName(const std::string& name, bool gpuActivity)
{
    trace::EventId longest;
    const auto events = m_trace->model->events();
    for (uint32_t i = 0; i < events.size(); ++i) {
        const trace::Event& e = events[i];
        if (trace::isGpuActivity(e.category) == gpuActivity &&
            m_trace->model->text(e.name) == name &&
            (!longest || e.durationNs > events[longest.value].durationNs))
            longest = trace::EventId{i};
    }
    if (longest)
        revealEvent(longest);
    return longest.valid();
}

void TimelinePage::revealRange(int64_t beginNs, int64_t endNs)
{
    m_view->select({}, false);
    const int64_t pad = std::max<int64_t>((endNs - beginNs) / 20, 1);
    m_view->showRange(beginNs - pad, endNs + pad);
    m_view->setRange(std::pair(beginNs, endNs));
}

void TimelinePage::updateDetails(bool sliceFirst)
{
    if (!m_details)
        return;
    if (sliceFirst && m_view->selected().valid()) {
        m_details->showEvent(m_view->selected());
    } else if (const auto range = m_view->range()) {
        const auto [first, last] = m_view->rangeLanes();
        m_details->showTotals(
            timeline::totalsInRange(*m_index, range->first, range->second, first, last));
    } else {
        m_details->showEvent(m_view->selected());
    }
}

void TimelinePage::updateMatchLabel()
{
    if (m_search->text().isEmpty()) {
        m_matchLabel->clear();
        return;
    }
    const auto it = std::find(m_matches.begin(), m_matches.end(), m_view->selected());
    if (it != m_matches.end())
        m_matchLabel->setText(tr("%1 of %2").arg(it - m_matches.begin() + 1).arg(m_matches.size()));
    else
        m_matchLabel->setText(tr("%1 matches").arg(m_matches.size()));
}

}  // namespace kinetoscope::widgets
