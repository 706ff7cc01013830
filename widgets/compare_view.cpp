#include "widgets/compare_view.h"

#include "core/compare/comparison_markdown.h"
#include "core/format/format.h"
#include "widgets/chart_style.h"
#include "widgets/compiled_change_page.h"
#include "widgets/delta_table_model.h"
#include "widgets/keyboard_focus.h"
#include "widgets/table_export.h"
#include "widgets/table_view.h"
#include "widgets/timeline/stacked_timelines.h"
#include "widgets/timeline/timeline_page.h"
#include "widgets/waterfall_chart.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace kinetoscope::widgets {

namespace {

// Below this (px) a side's timeline keeps its height and the page scrolls.
constexpr int kCompareTimelineHeight = 180;

QString text(const std::string& s)
{
    return QString::fromStdString(s);
}

QString fileName(const std::string& path)
{
    return QFileInfo(text(path)).fileName();
}

// The side-by-side figures, as an HTML table.
QString sidesHtml(const compare::Comparison& c)
{
    auto row = [](const QString& name, const QString& a, const QString& b) {
        return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td><td>%3</td></tr>").arg(name, a, b);
    };
    auto steps = [](const compare::Side& s) {
        QString t = QString::number(s.steps.valuesNs.size());
        if (s.warmUpSteps || s.outlierSteps)
            t += QStringLiteral(" (%1 warm-up, %2 outlier set apart)")
                     .arg(s.warmUpSteps)
                     .arg(s.outlierSteps);
        return t;
    };
    auto d = [](double ns) { return text(format::duration(ns)); };
    QString html = QStringLiteral(
        "<table cellspacing=\"0\" cellpadding=\"4\" border=\"0\">"
        "<tr><th></th><th align=\"left\">before</th><th align=\"left\">after</th></tr>");
    html += row(QStringLiteral("file"), fileName(c.before.path).toHtmlEscaped(),
                fileName(c.after.path).toHtmlEscaped());
    html += row(QStringLiteral("hardware"), text(c.before.hardware.text()).toHtmlEscaped(),
                text(c.after.hardware.text()).toHtmlEscaped());
    html += row(QStringLiteral("run"), text(c.before.window).toHtmlEscaped(),
                text(c.after.window).toHtmlEscaped());
    html += row(QStringLiteral("steady steps compared"), steps(c.before), steps(c.after));
    html += row(QStringLiteral("step: mean · median · p95"),
                d(c.before.steps.meanNs) + QStringLiteral(" · ") + d(c.before.steps.medianNs) +
                    QStringLiteral(" · ") + d(c.before.steps.p95Ns),
                d(c.after.steps.meanNs) + QStringLiteral(" · ") + d(c.after.steps.medianNs) +
                    QStringLiteral(" · ") + d(c.after.steps.p95Ns));
    if (c.batch)
        html += row(QStringLiteral("batch (from %1)").arg(text(c.batch->source())),
                    QString::number(c.batch->before), QString::number(c.batch->after));
    return html + QStringLiteral("</table>");
}

TableView* deltaPage(std::vector<compare::Delta> rows, const QString& name, const QString& detail,
                     const QString& exportName, QWidget* parent)
{
    auto* model = new DeltaTableModel(std::move(rows), name, detail, parent);
    auto* view = new TableView(model, DeltaTableModel::Change, parent);
    view->setExportName(exportName);
    view->table()->sortByColumn(DeltaTableModel::Change, Qt::DescendingOrder);
    view->table()->setColumnWidth(DeltaTableModel::Name, 420);
    if (detail.isEmpty())
        view->table()->hideColumn(DeltaTableModel::Detail);
    return view;
}

}  // namespace

CompareView::CompareView(std::shared_ptr<const document::Document> before,
                         std::shared_ptr<const document::Document> after,
                         compare::Comparison comparison, QWidget* parent)
    : QTabWidget(parent), m_before(std::move(before)), m_after(std::move(after)),
      m_comparison(std::move(comparison))
{
    setDocumentMode(true);
    // Exported tables: "resnet50_v100_workers0_2021-vs-resnet50_v100_workers4_2021-changes.csv".
    setExportDocumentName(this, exportBaseName(text(m_comparison.before.path)) +
                                    QStringLiteral("-vs-") +
                                    exportBaseName(text(m_comparison.after.path)));
    addTab(overviewPage(), QStringLiteral("Overview"));
    addTab(deltaPage(DeltaTableModel::causeRows(m_comparison.causes),
                     QStringLiteral("What changed"), QStringLiteral("Kind"),
                     QStringLiteral("changes"), this),
           QStringLiteral("Changes"));
    m_kernels = deltaPage(m_comparison.kernels, QStringLiteral("Kernel"), QString(),
                          QStringLiteral("kernels"), this);
    addTab(m_kernels, QStringLiteral("Kernels"));
    addTab(deltaPage(m_comparison.ops, QStringLiteral("Operator"), QStringLiteral("Input shapes"),
                     QStringLiteral("operators"), this),
           QStringLiteral("Operators"));
    addTab(deltaPage(m_comparison.copies, QStringLiteral("Copy or memset"), QString(),
                     QStringLiteral("copies"), this),
           QStringLiteral("Copies"));
    addTab(memoryPage(), QStringLiteral("Memory"));
    addTab(findingsPage(), QStringLiteral("Findings"));
    addTab(timelinesPlaceholder(), QStringLiteral("Timelines"));
    if (m_comparison.compiled) {
        m_compiled = new CompiledChangePage(*m_comparison.compiled, m_comparison.step, this);
        addTab(m_compiled, QStringLiteral("torch.compile"));
        setTabToolTip(Compiled, text(m_comparison.compiled->direction) +
                                    QStringLiteral(": the step's change by cause"));
    }
    connect(this, &QTabWidget::currentChanged, this, [this](int page) {
        if (page == Timelines)
            buildTimelines();
    });
}

QString CompareView::title() const
{
    QString before = fileName(m_comparison.before.path), after = fileName(m_comparison.after.path);
    if (before == after) {  // two runs' session.kinetoscope.json: their folders tell them apart
        before =
            QFileInfo(text(m_comparison.before.path)).dir().dirName() + QLatin1Char('/') + before;
        after = QFileInfo(text(m_comparison.after.path)).dir().dirName() + QLatin1Char('/') + after;
    }
    return before + QStringLiteral(" ↔ ") + after;
}

QWidget* CompareView::overviewPage()
{
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    m_verdict = new QLabel(page);
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    const compare::Verdict v = m_comparison.verdict().verdict;
    // Across machines, programs or inputs a faster step is no win for a change: no green,
    // no red.
    const bool likeForLike = m_comparison.sameHardware && m_comparison.sameWorkload &&
                             m_comparison.shapeDifference.empty();
    const QString colour = !likeForLike                    ? QStringLiteral("#555555")
                           : v == compare::Verdict::Faster ? QStringLiteral("#2e7d32")
                           : v == compare::Verdict::Slower ? QStringLiteral("#c62828")
                                                           : QStringLiteral("#555555");
    m_verdict->setText(
        QStringLiteral("<p style=\"font-size:13pt; color:%1\"><b>%2</b></p><p>%3</p>")
            .arg(colour, text(m_comparison.verdictLine).toHtmlEscaped(),
                 text(m_comparison.changeLine).toHtmlEscaped()));
    layout->addWidget(m_verdict);
    auto* sides = new QLabel(sidesHtml(m_comparison), page);
    sides->setWordWrap(true);
    sides->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(sides);
    if (m_comparison.compiled) {  // the split by cause, one line, and where it is laid out
        auto* compiled = new QLabel(
            text(m_comparison.compiled->line).toHtmlEscaped() +
                QStringLiteral(" <a href=\"compiled\">The torch.compile page</a> has the parts, "
                               "the fused groups and what got slower."),
            page);
        compiled->setWordWrap(true);
        compiled->setTextInteractionFlags(Qt::TextBrowserInteraction);
        connect(compiled, &QLabel::linkActivated, this, [this] { setCurrentIndex(Compiled); });
        layout->addWidget(compiled);
    }
    auto* method = new QLabel(text(m_comparison.verdict().method) + QLatin1Char('.'), page);
    method->setWordWrap(true);
    method->setStyleSheet(QStringLiteral("color: palette(mid)"));
    layout->addWidget(method);
    if (const std::string lab = compare::labMarkdown(m_comparison); !lab.empty()) {
        auto* labText = new QLabel(page);
        labText->setTextFormat(Qt::MarkdownText);
        labText->setText(text(lab));
        labText->setWordWrap(true);
        layout->addWidget(labText);
    }
    m_waterfall = new WaterfallChart(page);
    m_waterfall->setComparison(m_comparison);
    m_waterfall->setToolTip(
        QStringLiteral("The mean steady step before, each breakdown category's change, the step "
                       "after. Categories within 0.5 % of the step are left out."));
    layout->addWidget(m_waterfall, 1);
    return page;
}

QWidget* CompareView::memoryPage()
{
    auto* plot = new QCustomPlot(this);
    applyChartStyle(*plot);
    plot->xAxis->setLabel(QStringLiteral("time from the first steady step (ms)"));
    plot->yAxis->setLabel(QStringLiteral("allocated (GiB)"));
    showLegendBeside(*plot);
    const QColor colours[] = {QColor(0x15, 0x65, 0xc0), QColor(0xef, 0x6c, 0x00)};
    double top = 0, right = 0;
    int side = 0;
    for (const document::Document* doc : {m_before.get(), m_after.get()}) {
        const auto& steps = doc->summary.steps.steps;
        const int64_t origin = steps.empty() ? 0 : steps.front().beginNs;
        for (const auto& [device, memory] : doc->summary.memory) {
            if (device == "cpu" && doc->summary.memory.size() > 1)
                continue;  // the devices' curves; host memory only when it is all there is
            QVector<double> keys, values;
            const size_t stride = std::max<size_t>(1, memory.curve.size() / 2000);
            for (size_t i = 0; i < memory.curve.size(); i += stride) {
                keys.push_back(double(memory.curve[i].timeNs - origin) / 1e6);
                values.push_back(double(memory.curve[i].allocatedBytes) / format::kGiB);
                top = std::max(top, values.back());
                right = std::max(right, keys.back());
            }
            QCPGraph* graph = plot->addGraph();
            graph->setName(QStringLiteral("%1 %2").arg(
                side == 0 ? QStringLiteral("before") : QStringLiteral("after"), text(device)));
            graph->setPen(QPen(colours[side], 1.6, side == 0 ? Qt::SolidLine : Qt::DashLine));
            graph->setLineStyle(QCPGraph::lsStepLeft);
            graph->setData(keys, values, true);
        }
        ++side;
    }
    plot->xAxis->setRange(0, std::max(right, 1e-3));
    plot->yAxis->setRange(0, top * 1.1 + 1e-9);
    if (plot->graphCount() == 0) {
        auto* none = new QLabel(
            QStringLiteral("No memory samples on either side (profile with profile_memory=True)."),
            this);
        none->setAlignment(Qt::AlignCenter);
        delete plot;
        return none;
    }
    plot->replot();
    return plot;
}

QWidget* CompareView::findingsPage()
{
    m_findings = new QTableWidget(int(m_comparison.findings.size()), 4, this);
    m_findings->setHorizontalHeaderLabels({QStringLiteral("Finding"), QStringLiteral("Status"),
                                           QStringLiteral("Gain before"),
                                           QStringLiteral("Gain after")});
    m_findings->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tabLeavesTable(m_findings);
    m_findings->verticalHeader()->hide();
    for (int i = 0; i < int(m_comparison.findings.size()); ++i) {
        const compare::FindingChange& f = m_comparison.findings[size_t(i)];
        auto* title = new QTableWidgetItem(text(f.title));
        title->setToolTip(text(f.id));
        m_findings->setItem(i, 0, title);
        m_findings->setItem(
            i, 1, new QTableWidgetItem(QString::fromLatin1(compare::findingStatusName(f.status))));
        const bool hasBefore = f.status != compare::FindingChange::Status::New;
        const bool hasAfter = f.status != compare::FindingChange::Status::Resolved;
        // The raw gains (ns per step) for the CSV export; none where the side lacks it.
        auto* before =
            new QTableWidgetItem(hasBefore ? text(format::duration(f.beforeGainNs)) : QString());
        if (hasBefore)
            before->setData(RawValueRole, f.beforeGainNs);
        auto* after =
            new QTableWidgetItem(hasAfter ? text(format::duration(f.afterGainNs)) : QString());
        if (hasAfter)
            after->setData(RawValueRole, f.afterGainNs);
        m_findings->setItem(i, 2, before);
        m_findings->setItem(i, 3, after);
    }
    for (int column : {2, 3})
        m_findings->horizontalHeaderItem(column)->setData(UnitRole, QStringLiteral("ns/step"));
    m_findings->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_findings->setSelectionBehavior(QAbstractItemView::SelectRows);
    installTableExport(m_findings, QStringLiteral("findings"));
    return m_findings;
}

QWidget* CompareView::timelinesPlaceholder()
{
    m_timelines = new QWidget(this);
    auto* layout = new QVBoxLayout(m_timelines);
    // Before above after, under one search and one details pane: each keeps its overview
    // strip and about ten rows of tracks on a laptop's screen.
    m_stack = new StackedTimelines(QStringLiteral("trace"), kCompareTimelineHeight, m_timelines);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(QStringLiteral("Align on steady step:"), m_timelines));
    m_step = new QComboBox(m_timelines);
    const size_t before = m_comparison.before.steps.valuesNs.size(),
                 after = m_comparison.after.steps.valuesNs.size();
    // A step only one side has says so: the other shows its last.
    for (size_t i = 0; i < std::max(before, after); ++i)
        m_step->addItem(
            i < std::min(before, after)
                ? QString::number(i + 1)
                : QStringLiteral("%1 (%2 has %3)")
                      .arg(i + 1)
                      .arg(i < before ? QStringLiteral("after") : QStringLiteral("before"))
                      .arg(std::min(before, after)));
    bar->addWidget(m_step);
    bar->addStretch(1);
    bar->addWidget(m_stack->searchControls(), 1);
    tabOrder({m_step, m_stack->searchControls(), m_stack});  // left to right, then down
    layout->addLayout(bar);
    layout->addWidget(m_stack, 1);
    connect(m_step, &QComboBox::currentIndexChanged, this, &CompareView::alignOnStep);
    return m_timelines;
}

void CompareView::buildTimelines()
{
    if (m_beforeTimeline)
        return;
    auto heading = [](const QString& side, const std::string& path) {
        return QStringLiteral("<b>%1</b> <span style='color:#616161'>%2</span>")
            .arg(side, fileName(path).toHtmlEscaped());
    };
    m_beforeTimeline =
        m_stack->addTimeline(heading(QStringLiteral("Before"), m_comparison.before.path), m_before);
    m_afterTimeline =
        m_stack->addTimeline(heading(QStringLiteral("After"), m_comparison.after.path), m_after);
    // Once laid out: a view with no width yet cannot frame a range.
    QTimer::singleShot(0, this, [this] { alignOnStep(m_step->currentIndex()); });
}

void CompareView::focusFilter()
{
    if (currentIndex() == Timelines)
        m_stack->focusSearch();
    else if (auto* table = qobject_cast<TableView*>(currentWidget()))
        table->focusFilter();
}

QAbstractItemView* CompareView::currentTable() const
{
    if (currentIndex() == Findings)
        return m_findings;
    if (m_compiled && currentWidget() == m_compiled)
        return m_compiled->currentTable();
    if (const auto* table = qobject_cast<const TableView*>(currentWidget()))
        return table->table();
    return nullptr;
}

void CompareView::alignOnStep(int index)
{
    buildTimelines();
    index = std::max(index, 0);
    for (auto [page, doc] :
         {std::pair{m_beforeTimeline, m_before.get()}, std::pair{m_afterTimeline, m_after.get()}}) {
        const auto& steps = doc->summary.steps.steps;
        if (steps.empty())
            continue;
        const analysis::Step& step = steps[std::min(size_t(index), steps.size() - 1)];
        page->revealRange(step.beginNs, step.endNs);
    }
}

}  // namespace kinetoscope::widgets
