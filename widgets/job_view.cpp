#include "widgets/job_view.h"

#include "core/analysis/diagnosis/finding_text.h"
#include "core/format/format.h"
#include "core/job/job_text.h"
#include "core/scaling/scaling.h"
#include "widgets/chart_style.h"
#include "widgets/keyboard_focus.h"
#include "widgets/table_export.h"
#include "widgets/timeline/stacked_timelines.h"
#include "widgets/timeline/timeline_page.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

namespace kinetoscope::widgets {

namespace {

// A rank's cell on the Timelines page, in px: its name, its overview strip and about ten
// rows of tracks. The ranks scroll; the splitter between them resizes one.
constexpr int kRankTimelineHeight = 330;

QString text(const std::string& s)
{
    return QString::fromStdString(s);
}

QString duration(double ns)
{
    return text(format::duration(ns));
}

// A rank's value of `metric` in step `number`, in ns.
double metricNs(const job::Rank& rank, int64_t number, JobView::Metric metric)
{
    const job::RankStep& s = rank.steps.at(number);
    switch (metric) {
    case JobView::Metric::StepTime:
        return double(s.durationNs);
    case JobView::Metric::OwnWork:
        return double(s.ownNs());
    case JobView::Metric::ExposedCommunication:
        return double(s.communicationNs);
    case JobView::Metric::HiddenCommunication:
        return double(s.hiddenNs());
    }
    return 0.0;
}

QString metricName(JobView::Metric metric)
{
    switch (metric) {
    case JobView::Metric::StepTime:
        return QStringLiteral("Step time");
    case JobView::Metric::OwnWork:
        return QStringLiteral("Own work (compute, data, host)");
    case JobView::Metric::ExposedCommunication:
        return QStringLiteral("Exposed communication (waiting)");
    case JobView::Metric::HiddenCommunication:
        return QStringLiteral("Communication hidden behind compute");
    }
    return {};
}

QTableWidgetItem* cell(const QString& value,
                       Qt::Alignment align = Qt::AlignRight | Qt::AlignVCenter)
{
    auto* item = new QTableWidgetItem(value);
    item->setTextAlignment(align);
    return item;
}

// A cell showing `value` that exports `raw` (a number in its column's unit, table_export.h).
QTableWidgetItem* cell(const QString& value, const QVariant& raw)
{
    auto* item = cell(value);
    item->setData(RawValueRole, raw);
    return item;
}

// A cell with no value: shown as "-", exported blank.
QTableWidgetItem* none()
{
    auto* item = cell(QStringLiteral("-"));
    item->setData(ExportRole, QString());
    return item;
}

// The straggler line, its first clause ("Straggler: rank 2") in bold.
QString stragglerHtml(const job::Job& job)
{
    const QString line = text(job::stragglerLine(job)).toHtmlEscaped();
    const qsizetype lead = line.indexOf(QRegularExpression(QStringLiteral("[,:]")));
    return lead < 0 ? line : QStringLiteral("<b>%1</b>%2").arg(line.left(lead), line.mid(lead));
}

}  // namespace

JobView::JobView(job::Job job, std::vector<analysis::Finding> findings, QWidget* parent)
    : QTabWidget(parent), m_job(std::move(job)), m_findings(std::move(findings))
{
    setDocumentMode(true);
    setExportDocumentName(this,
                          exportBaseName(text(job::jobName(m_job))));  // "dlrm_8_ranks-ranks.csv"
    addTab(overviewPage(), QStringLiteral("Overview"));
    addTab(heatmapPage(), QStringLiteral("Heatmap"));
    addTab(collectivesPage(), QStringLiteral("Collectives"));
    addTab(timelinesPlaceholder(), QStringLiteral("Timelines"));
    connect(this, &QTabWidget::currentChanged, this, [this](int page) {
        if (page == Timelines)
            buildTimelines();
    });
}

QString JobView::title() const
{
    return QStringLiteral("job: %1 (%2 ranks)")
        .arg(text(job::jobName(m_job)))
        .arg(m_job.ranks.size());
}

QAbstractItemView* JobView::currentTable() const
{
    switch (currentIndex()) {
    case Overview:
        return m_ranks;
    case Collectives:
        return m_collectives;
    default:
        return nullptr;
    }
}

QImage JobView::heatmapImage(int width, int height) const
{
    return m_plot->toPixmap(width, height, 2.0).toImage();
}

QWidget* JobView::overviewPage()
{
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    QString html = QStringLiteral("<p style=\"font-size:12pt\">%1</p>").arg(stragglerHtml(m_job));
    html += QStringLiteral("<p>%1 ranks").arg(m_job.ranks.size());
    if (m_job.worldSize > 0)
        html += QStringLiteral(" (world size %1)").arg(m_job.worldSize);
    html += QStringLiteral(", %1; %2 collectives matched on every rank; clocks up to %3 apart "
                           "(aligned on the collectives' ends).</p>")
                .arg(text(format::counted(m_job.commonSteps.size(), "common steady step")))
                .arg(m_job.collectives.matched.size())
                .arg(duration(m_job.collectives.clockSpreadNs));
    if (const std::optional<scaling::Estimate> estimate = scaling::estimateFromJob(m_job))
        html +=
            QStringLiteral("<p>%1</p>").arg(text(scaling::estimateLine(*estimate)).toHtmlEscaped());
    if (m_findings.empty()) {
        html += QStringLiteral("<p>%1</p>").arg(QLatin1String(job::kNoJobFinding));
    } else {
        html += QStringLiteral("<ol>");
        for (const analysis::Finding& f : m_findings)
            html +=
                QStringLiteral(
                    "<li><b>%1</b> <span style=\"color:#666\">(%2, %3, gain %4)</span><br>%5</li>")
                    .arg(text(f.title).toHtmlEscaped(), text(f.id),
                         QString::fromLatin1(analysis::severityName(f.severity)),
                         text(analysis::gainText(f)).toHtmlEscaped(), text(f.fix).toHtmlEscaped());
        html += QStringLiteral("</ol>");
    }
    m_headline = new QLabel(html, page);
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_headline);

    const QStringList headers{
        QStringLiteral("Rank"),           QStringLiteral("From"),
        QStringLiteral("Mean step"),      QStringLiteral("Own work"),
        QStringLiteral("Exposed comm"),   QStringLiteral("Hidden comm"),
        QStringLiteral("Last to arrive"), QStringLiteral("Its first finding")};
    m_ranks = new QTableWidget(int(m_job.ranks.size()), int(headers.size()), page);
    m_ranks->setHorizontalHeaderLabels(headers);
    m_ranks->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tabLeavesTable(m_ranks);
    m_ranks->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_ranks->verticalHeader()->hide();
    for (int i = 0; i < int(m_job.ranks.size()); ++i) {
        const job::Rank& r = m_job.ranks[size_t(i)];
        const bool has = m_job.meanStepNs.count(r.rank) > 0;
        double hidden = 0;
        for (int64_t n : m_job.commonSteps)
            hidden += double(r.steps.at(n).hiddenNs());
        hidden /= std::max<double>(1, double(m_job.commonSteps.size()));
        auto* rank = cell(QString::number(r.rank), r.rank);
        if (m_job.straggler == r.rank)
            rank->setText(QStringLiteral("%1  ◀ straggler").arg(r.rank));
        rank->setToolTip(text(r.path) +
                         (r.fromDigest ? QStringLiteral(" (read from its digest)") : QString()));
        m_ranks->setItem(i, 0, rank);
        m_ranks->setItem(i, 1,
                         cell(QString::fromLatin1(r.rankSource), Qt::AlignLeft | Qt::AlignVCenter));
        const auto mean = [&](const std::map<int, double>& means) {
            return has ? cell(duration(means.at(r.rank)), means.at(r.rank)) : none();
        };
        m_ranks->setItem(i, 2, mean(m_job.meanStepNs));
        m_ranks->setItem(i, 3, mean(m_job.meanOwnNs));
        m_ranks->setItem(i, 4, mean(m_job.meanCommunicationNs));
        m_ranks->setItem(i, 5, has ? cell(duration(hidden), hidden) : none());
        const auto& last = m_job.collectives.lastToArriveCount;
        m_ranks->setItem(i, 6,
                         size_t(i) < last.size() && !m_job.collectives.matched.empty()
                             ? cell(QStringLiteral("%1 of %2")
                                        .arg(last[size_t(i)])
                                        .arg(m_job.collectives.matched.size()),
                                    last[size_t(i)])
                             : none());
        const analysis::Finding* first = job::firstOwnFinding(r);
        m_ranks->setItem(i, 7,
                         cell(first ? text(first->title) : QStringLiteral("none"),
                              Qt::AlignLeft | Qt::AlignVCenter));
        if (!first)
            m_ranks->item(i, 7)->setData(ExportRole, QString());
        if (m_job.straggler == r.rank)
            for (int c = 0; c < int(headers.size()); ++c)
                m_ranks->item(i, c)->setBackground(QColor(0xfd, 0xe0, 0xdc));
    }
    setExportColumns(*m_ranks, {{QStringLiteral("Rank"), {}},
                                {QStringLiteral("From"), {}},
                                {QStringLiteral("Mean step"), QStringLiteral("ns")},
                                {QStringLiteral("Own work"), QStringLiteral("ns")},
                                {QStringLiteral("Exposed comm"), QStringLiteral("ns")},
                                {QStringLiteral("Hidden comm"), QStringLiteral("ns")},
                                {QStringLiteral("Last to arrive"), QStringLiteral("count")},
                                {QStringLiteral("Its first finding"), {}}});
    installTableExport(m_ranks, QStringLiteral("ranks"));
    m_ranks->resizeColumnsToContents();
    m_ranks->horizontalHeader()->setSectionResizeMode(7, QHeaderView::Stretch);
    m_ranks->setToolTip(QStringLiteral("Double-click a rank to open its own pages"));
    connect(m_ranks, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (row >= 0 && size_t(row) < m_job.ranks.size())
            Q_EMIT rankRequested(text(m_job.ranks[size_t(row)].path), m_job.ranks[size_t(row)].doc);
    });
    layout->addWidget(m_ranks, 1);
    if (const std::string note = job::rankFindingsNote(m_job); !note.empty()) {
        auto* caveat = new QLabel(text(note), page);
        caveat->setWordWrap(true);
        caveat->setStyleSheet(QStringLiteral("color: #616161"));
        layout->addWidget(caveat);
    }
    return page;
}

QWidget* JobView::heatmapPage()
{
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(QStringLiteral("Colour:"), page));
    auto* chooser = new QComboBox(page);
    for (Metric m : {Metric::StepTime, Metric::OwnWork, Metric::ExposedCommunication,
                     Metric::HiddenCommunication})
        chooser->addItem(metricName(m), int(m));
    bar->addWidget(chooser);
    bar->addStretch(1);
    layout->addLayout(bar);
    m_plot = new QCustomPlot(page);
    applyChartStyle(*m_plot);
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    auto* scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, scale);
    m_map->setColorScale(scale);
    QCPColorGradient gradient;  // white to dark red: longer is hotter
    gradient.clearColorStops();
    gradient.setColorStopAt(0.0, QColor(0xf7, 0xfb, 0xff));
    gradient.setColorStopAt(0.5, QColor(0xfd, 0xae, 0x6b));
    gradient.setColorStopAt(1.0, QColor(0xb3, 0x00, 0x00));
    m_map->setGradient(gradient);
    m_map->setInterpolate(false);
    auto steps = QSharedPointer<QCPAxisTickerText>::create();
    for (size_t i = 0; i < m_job.commonSteps.size(); ++i)
        steps->addTick(double(i), QStringLiteral("#%1").arg(m_job.commonSteps[i]));
    m_plot->xAxis->setTicker(steps);
    m_plot->xAxis->setLabel(QStringLiteral("step"));
    auto ranks = QSharedPointer<QCPAxisTickerText>::create();
    for (size_t r = 0; r < m_job.ranks.size(); ++r)
        ranks->addTick(double(r), QStringLiteral("rank %1").arg(m_job.ranks[r].rank));
    m_plot->yAxis->setTicker(ranks);
    m_plot->yAxis->setRangeReversed(true);  // rank 0 on top, as in the table
    layout->addWidget(m_plot, 1);
    connect(chooser, &QComboBox::currentIndexChanged, this,
            [this, chooser](int) { showMetric(Metric(chooser->currentData().toInt())); });
    showMetric(Metric::StepTime);
    return page;
}

void JobView::showMetric(Metric metric)
{
    const int steps = int(m_job.commonSteps.size()), ranks = int(m_job.ranks.size());
    m_plot->clearItems();
    m_map->data()->setSize(std::max(steps, 1), std::max(ranks, 1));
    // Cell centres at 0..n-1; a single cell spans -0.5..0.5 (a zero-width range draws nothing).
    const auto centres = [](int n) { return n > 1 ? QCPRange(0, n - 1) : QCPRange(-0.5, 0.5); };
    m_map->data()->setRange(centres(steps), centres(ranks));
    std::vector<std::pair<QCPItemText*, double>> labels;  // each with its cell's value (ms)
    for (int s = 0; s < steps; ++s)
        for (int r = 0; r < ranks; ++r) {
            const double ns =
                metricNs(m_job.ranks[size_t(r)], m_job.commonSteps[size_t(s)], metric);
            m_map->data()->setCell(s, r, ns / 1e6);  // ms
            if (steps * ranks <= 400) {  // the value in each cell while they stay readable
                auto* label = new QCPItemText(m_plot);
                label->position->setCoords(s, r);
                label->setText(duration(ns));
                label->setFont(QFont(m_plot->font().family(), 8));
                labels.emplace_back(label, ns / 1e6);
            }
        }
    m_map->rescaleDataRange(true);
    // White on the dark end of the gradient, black on the light end: readable on every cell.
    for (const auto& [label, ms] : labels) {
        const QColor cell = QColor::fromRgb(m_map->gradient().color(ms, m_map->dataRange(), false));
        label->setColor(cell.lightnessF() < 0.5 ? Qt::white : Qt::black);
    }
    m_map->colorScale()->axis()->setLabel(metricName(metric) + QStringLiteral(" (ms)"));
    m_plot->xAxis->setRange(-0.5, std::max(steps, 1) - 0.5);
    m_plot->yAxis->setRange(-0.5, std::max(ranks, 1) - 0.5);
    m_plot->replot();
}

QWidget* JobView::collectivesPage()
{
    const job::CollectiveMatch& match = m_job.collectives;
    std::vector<const job::MatchedCollective*> rows;
    for (const job::MatchedCollective& m : match.matched)
        rows.push_back(&m);
    const auto longest = [](const job::MatchedCollective& m) {
        return m.waitNs.empty() ? int64_t{0} : *std::max_element(m.waitNs.begin(), m.waitNs.end());
    };
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const auto* a, const auto* b) { return longest(*a) > longest(*b); });

    QStringList headers{QStringLiteral("Collective"),   QStringLiteral("Step"),
                        QStringLiteral("Size"),         QStringLiteral("Transfer"),
                        QStringLiteral("Longest wait"), QStringLiteral("Waiting rank"),
                        QStringLiteral("Last in"),      QStringLiteral("Bus bandwidth")};
    // A column per rank while they stay readable; a job of hundreds of ranks would make a
    // table of hundreds of thousands of cells (`kinetoscope summary --csv collectives` has them).
    const bool rankColumns = m_job.ranks.size() <= kRankColumnsUpTo;
    if (rankColumns)
        for (const job::Rank& r : m_job.ranks)
            headers << QStringLiteral("Rank %1").arg(r.rank);
    m_collectives = new QTableWidget(int(rows.size()), int(headers.size()), this);
    m_collectives->setHorizontalHeaderLabels(headers);
    m_collectives->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tabLeavesTable(m_collectives);
    m_collectives->verticalHeader()->hide();
    for (int i = 0; i < int(rows.size()); ++i) {
        const job::MatchedCollective& m = *rows[size_t(i)];
        const auto waiter =
            size_t(std::max_element(m.waitNs.begin(), m.waitNs.end()) - m.waitNs.begin());
        QString name = QStringLiteral("%1 #%2")
                           .arg(QString::fromLatin1(job::collectiveKindName(m.kind)))
                           .arg(m.ordinal);
        if (!m.group.empty())
            name += QStringLiteral(" (group %1)").arg(text(m.group));
        auto* first = cell(name, Qt::AlignLeft | Qt::AlignVCenter);
        if (!m.sizesAgree)
            first->setToolTip(QStringLiteral("The ranks gave different sizes for this collective"));
        m_collectives->setItem(i, 0, first);
        m_collectives->setItem(
            i, 1, m.step ? cell(QString::number(*m.step), qlonglong(*m.step)) : none());
        m_collectives->setItem(
            i, 2,
            m.bytes >= 0 ? cell(text(format::bytes(double(m.bytes))), qlonglong(m.bytes)) : none());
        m_collectives->setItem(i, 3, cell(duration(double(m.transferNs)), qlonglong(m.transferNs)));
        m_collectives->setItem(i, 4, cell(duration(double(longest(m))), qlonglong(longest(m))));
        m_collectives->setItem(
            i, 5, cell(QString::number(m_job.ranks[waiter].rank), m_job.ranks[waiter].rank));
        const int lastIn = m_job.ranks[size_t(m.lastToArrive)].rank;
        m_collectives->setItem(i, 6, cell(QString::number(lastIn), lastIn));
        m_collectives->setItem(i, 7,
                               m.busBytesPerS > 0
                                   ? cell(text(format::byteRate(m.busBytesPerS)), m.busBytesPerS)
                                   : none());
        for (size_t r = 0; rankColumns && r < m.ranks.size(); ++r) {
            auto* item =
                cell(duration(double(m.ranks[r].durationNs)), qlonglong(m.ranks[r].durationNs));
            item->setToolTip(QStringLiteral("waited %1").arg(duration(double(m.waitNs[r]))));
            if (int(r) == m.lastToArrive)
                item->setBackground(QColor(0xfd, 0xe0, 0xdc));
            m_collectives->setItem(i, 8 + int(r), item);
        }
    }
    std::vector<std::pair<QString, QString>> exported{
        {QStringLiteral("Collective"), {}},
        {QStringLiteral("Step"), {}},
        {QStringLiteral("Size"), QStringLiteral("bytes")},
        {QStringLiteral("Transfer"), QStringLiteral("ns")},
        {QStringLiteral("Longest wait"), QStringLiteral("ns")},
        {QStringLiteral("Waiting rank"), {}},
        {QStringLiteral("Last in"), {}},
        {QStringLiteral("Bus bandwidth"), QStringLiteral("bytes/s")}};
    if (rankColumns)
        for (const job::Rank& r : m_job.ranks)
            exported.emplace_back(QStringLiteral("Rank %1").arg(r.rank), QStringLiteral("ns"));
    setExportColumns(*m_collectives, exported);
    m_collectives->setSelectionBehavior(QAbstractItemView::SelectRows);
    installTableExport(m_collectives, QStringLiteral("collectives"));
    m_collectives->resizeColumnsToContents();
    m_collectives->setToolTip(
        QStringLiteral("Transfer: the shortest duration across ranks (the data movement once all "
                       "have arrived). Wait: a rank's "
                       "duration beyond it. Last in: the rank the others waited for (arrivals on "
                       "clocks aligned by the collectives).") +
        (rankColumns ? QString()
                     : QStringLiteral(" Each rank's duration: kinetoscope summary --csv "
                                      "collectives (more than %1 ranks here).")
                           .arg(kRankColumnsUpTo)));
    return m_collectives;
}

QWidget* JobView::timelinesPlaceholder()
{
    m_timelinePage = new QWidget(this);
    auto* layout = new QVBoxLayout(m_timelinePage);
    // The ranks' timelines one under the other, scrolled: four or sixty-four ranks never ask
    // for more than the screen's height (about ten rows of tracks a rank).
    m_stack = new StackedTimelines(QStringLiteral("rank"), kRankTimelineHeight, m_timelinePage);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(QStringLiteral("Step:"), m_timelinePage));
    m_step = new QComboBox(m_timelinePage);
    for (int64_t n : m_job.commonSteps)
        m_step->addItem(QStringLiteral("#%1").arg(n));
    bar->addWidget(m_step);
    bar->addWidget(new QLabel(
        QStringLiteral("every rank on rank %1's clock, shifted by the offsets the collectives give")
            .arg(m_job.ranks.empty() ? 0 : m_job.ranks.front().rank),
        m_timelinePage));
    bar->addStretch(1);
    bar->addWidget(m_stack->searchControls(), 1);            // one search for every rank
    tabOrder({m_step, m_stack->searchControls(), m_stack});  // left to right, then down
    m_stack->setSearchEnabled(hasEveryDocument());
    layout->addLayout(bar);
    connect(m_step, &QComboBox::currentIndexChanged, this, &JobView::alignOnStep);
    if (hasEveryDocument()) {
        layout->addWidget(m_stack, 1);
        return m_timelinePage;
    }
    m_stack->hide();
    // Read from digests (or too many traces to keep): a timeline needs the rank's trace.
    const size_t fromDigests = size_t(std::count_if(m_job.ranks.begin(), m_job.ranks.end(),
                                                    [](const job::Rank& r) { return !r.doc; }));
    auto* note =
        new QLabel(QStringLiteral("%1 of the %2 ranks were read from their digests, not their "
                                  "traces: their timelines need the traces. Double-click a rank "
                                  "on the Overview to open its own pages, or read every rank's "
                                  "trace (as much memory as the traces take).")
                       .arg(fromDigests)
                       .arg(m_job.ranks.size()),
                   m_timelinePage);
    note->setWordWrap(true);
    layout->addWidget(note);
    m_readTraces = new QPushButton(QStringLiteral("Read every rank's trace"), m_timelinePage);
    connect(m_readTraces, &QPushButton::clicked, this, &JobView::tracesRequested);
    auto* row = new QHBoxLayout;
    row->addWidget(m_readTraces);
    row->addStretch(1);
    layout->addLayout(row);
    layout->addStretch(1);
    return m_timelinePage;
}

bool JobView::hasEveryDocument() const
{
    return std::all_of(m_job.ranks.begin(), m_job.ranks.end(),
                       [](const job::Rank& r) { return r.doc != nullptr; });
}

const std::vector<TimelinePage*>& JobView::timelines() const
{
    return m_stack->timelines();
}

QLineEdit* JobView::searchField() const
{
    return m_stack->searchField();
}

void JobView::focusFilter()
{
    if (currentIndex() == Timelines && hasEveryDocument())
        m_stack->focusSearch();
}

void JobView::buildTimelines()
{
    if (!timelines().empty() || m_job.ranks.empty() || !hasEveryDocument())
        return;
    for (const job::Rank& r : m_job.ranks)
        m_stack->addTimeline(QStringLiteral("<b>Rank %1</b> <span style='color:#616161'>%2</span>")
                                 .arg(r.rank)
                                 .arg(text(r.path).toHtmlEscaped()),
                             r.doc);
    QTimer::singleShot(0, this, [this] { alignOnStep(m_step->currentIndex()); });
}

void JobView::alignOnStep(int index)
{
    buildTimelines();
    if (m_job.commonSteps.empty() || timelines().empty())
        return;
    const int64_t number =
        m_job.commonSteps[size_t(std::clamp<int>(index, 0, int(m_job.commonSteps.size()) - 1))];
    // Rank 0's step, shown on each rank at the same aligned moment; without matched
    // collectives each rank shows its own step.
    const job::RankStep& first = m_job.ranks.front().steps.at(number);
    const bool aligned = !m_job.collectives.matched.empty();
    for (size_t r = 0; r < timelines().size(); ++r) {
        if (aligned) {
            const auto offset = int64_t(m_job.collectives.clockOffsetNs[r]);
            timelines()[r]->revealRange(first.beginNs + offset, first.endNs + offset);
            continue;
        }
        const job::RankStep& own = m_job.ranks[r].steps.at(number);
        timelines()[r]->revealRange(own.beginNs, own.endNs);
    }
}

}  // namespace kinetoscope::widgets
