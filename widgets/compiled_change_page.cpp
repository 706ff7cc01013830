#include "widgets/compiled_change_page.h"

#include "core/format/format.h"
#include "widgets/keyboard_focus.h"
#include "widgets/table_export.h"
#include "widgets/waterfall_chart.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace kinetoscope::widgets {

namespace {

QString text(const std::string& s)
{
    return QString::fromStdString(s);
}

QTableWidget* newTable(int columns, const QStringList& headers, QWidget* parent)
{
    auto* table = new QTableWidget(0, columns, parent);
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tabLeavesTable(table);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->hide();
    table->setWordWrap(false);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
    return table;
}

// A time per step: read as format::duration, exported in ns.
QTableWidgetItem* durationItem(double ns)
{
    auto* item = new QTableWidgetItem(text(format::duration(ns)));
    item->setData(RawValueRole, ns);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

// A change per step, signed: down in green, up in red (as the compared tables).
QTableWidgetItem* changeItem(double ns)
{
    auto* item = new QTableWidgetItem(text(format::durationChange(ns)));
    item->setData(RawValueRole, ns);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (ns != 0)
        item->setForeground(ns > 0 ? QColor(0xc6, 0x28, 0x28) : QColor(0x2e, 0x7d, 0x32));
    return item;
}

QTableWidgetItem* countItem(double count)
{
    auto* item = new QTableWidgetItem(text(format::count(count)));
    item->setData(RawValueRole, count);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QTableWidgetItem* nameItem(const QString& name, const QString& tip = {})
{
    auto* item = new QTableWidgetItem(name);
    item->setToolTip(tip.isEmpty() ? name : tip);
    return item;
}

QLabel* caption(const QString& html, QWidget* parent)
{
    auto* label = new QLabel(html, parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

// A table under its caption, as one pane of a splitter.
QWidget* titled(const QString& title, QWidget* body, QWidget* parent)
{
    auto* pane = new QWidget(parent);
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(caption(title, pane));
    layout->addWidget(body, 1);
    return pane;
}

}  // namespace

CompiledChangePage::CompiledChangePage(const compare::CompiledChange& change,
                                       const compare::StepChange& verdict, QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    const double stepDelta = change.stepAfterNs - change.stepBeforeNs;
    QString step = QStringLiteral("step %1 → %2 (%3")
                       .arg(text(format::duration(change.stepBeforeNs)),
                            text(format::duration(change.stepAfterNs)),
                            text(format::durationChange(stepDelta)));
    if (change.stepBeforeNs > 0)
        step += QStringLiteral(", ") + text(format::percentChange(stepDelta / change.stepBeforeNs));
    step += QLatin1Char(')');
    // The change read as the verdict reads it: a small or noisy one is no speed-up.
    step += QStringLiteral(" per step: ") + text(compare::verdictName(verdict.verdict));
    if (verdict.lowNs && verdict.highNs)
        step += QStringLiteral(" (95 % interval %1 to %2)")
                    .arg(text(format::durationChange(*verdict.lowNs)),
                         text(format::durationChange(*verdict.highNs)));
    m_headline = caption(QStringLiteral("<p style=\"font-size:13pt\"><b>%1</b>: %2</p>")
                             .arg(text(change.direction).toHtmlEscaped(), step.toHtmlEscaped()),
                         this);
    m_headline->setToolTip(text(change.line));
    layout->addWidget(m_headline);
    m_basis = caption(
        change.deviceTime
            ? QStringLiteral("<b>Device time</b>: each kernel counted by the op that launched "
                             "it; <i>launches/idle</i> is the step less all kernel time (fewer "
                             "launches, less idle device). The parts add up to each side's step.")
            : QStringLiteral("<b>Host time</b> (no device activity on both sides): each op's self "
                             "time; <i>host/dispatch</i> is the step less the other parts: time "
                             "outside every op, in framework spans and in ops that compute "
                             "nothing. The parts add up to each side's step."),
        this);
    layout->addWidget(m_basis);

    const QString unit = change.deviceTime ? QStringLiteral("Kernels") : QStringLiteral("Ops");
    m_parts = newTable(PartColumnCount,
                       {QStringLiteral("Part"), QStringLiteral("Before"), QStringLiteral("After"),
                        QStringLiteral("Change"), unit + QStringLiteral("/step before"),
                        unit + QStringLiteral("/step after")},
                       this);
    fillParts(change);
    m_waterfall = new WaterfallChart(this);
    m_waterfall->setMinimumHeight(160);
    std::vector<WaterfallChart::Change> bars;
    for (const compare::CompiledChange::Part& p : change.parts)
        bars.push_back({text(p.label), p.deltaNs()});
    const bool eagerFirst = !change.beforeCompiled;
    const bool eagerLast = !change.afterCompiled;
    m_waterfall->setSteps(
        eagerFirst ? QStringLiteral("eager") : QStringLiteral("compiled"), change.stepBeforeNs,
        bars, eagerLast ? QStringLiteral("eager") : QStringLiteral("compiled"), change.stepAfterNs);
    m_waterfall->setToolTip(QStringLiteral("The step before, each part's change, the step after. "
                                           "The axis starts above zero: the parts move little "
                                           "against the whole step."));
    // Zoomed on the levels the step passes through, with room for the labels above them.
    double low = change.stepBeforeNs, high = change.stepBeforeNs, level = change.stepBeforeNs;
    for (const WaterfallChart::Change& bar : bars) {
        level += bar.deltaNs;
        low = std::min(low, level);
        high = std::max(high, level);
    }
    low = std::min(low, change.stepAfterNs);
    high = std::max(high, change.stepAfterNs);
    const double pad = std::max(0.4 * (high - low), 0.02 * high);
    m_waterfall->yAxis->setRange(std::max(0.0, low - pad) / 1e6, (high + pad) / 1e6);
    m_waterfall->replot();

    auto* top = new QSplitter(Qt::Horizontal, this);
    top->addWidget(titled(QStringLiteral("<b>The step by part</b> (per step)"), m_parts, top));
    top->addWidget(m_waterfall);
    top->setSizes({560, 800});

    m_groups = newTable(GroupColumnCount,
                        {QStringLiteral("Fused ops"), QStringLiteral("Eager ops/step"),
                         QStringLiteral("Eager time"), QStringLiteral("Kernels/step"),
                         QStringLiteral("Kernel time"), QStringLiteral("Change")},
                        this);
    fillGroups(change);
    QString groupsTitle = QStringLiteral(
        "<b>Fused groups</b>: generated kernels by the ops they fused, against those eager ops "
        "(an eager op fused by several groups shares its time among them)");
    if (change.unfusedCompiledNs > 0)
        groupsTitle += QStringLiteral("; ops of the fused kinds outside any generated kernel "
                                      "(after a graph break, say): %1 per step, in the fusion "
                                      "part, in no group")
                           .arg(text(format::duration(change.unfusedCompiledNs)));
    if (!change.groups.empty() &&
        change.groups.front().unnamed != compare::CompiledChange::FusedGroup::Unnamed::No)
        groupsTitle += QStringLiteral(
            ". The trace names none of Inductor's C++ kernels, so they are one group, against "
            "the eager ops of kinds the compiled run no longer calls; "
            "<tt>torch._inductor.config.cpp.enable_kernel_profile = True</tt> names each");
    m_slower = newTable(5,
                        {QStringLiteral("Slower"), QStringLiteral("Kind"), QStringLiteral("Before"),
                         QStringLiteral("After"), QStringLiteral("Change")},
                        this);
    fillSlower(change);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(titled(groupsTitle, m_groups, split));
    split->addWidget(titled(change.slower.empty()
                                ? QStringLiteral("<b>What got slower</b>: nothing by 0.5 % of the "
                                                 "step before or more")
                                : QStringLiteral("<b>What got slower</b>, largest first"),
                            m_slower, split));
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 2);
    layout->addWidget(split, 1);
    for (QTableWidget* table : {m_parts, m_groups, m_slower})
        table->installEventFilter(this);

    if (change.gemmTensorCoreBefore || change.gemmTensorCoreAfter) {
        auto share = [](const std::optional<double>& s) {
            return s ? text(format::percent(*s)) : QStringLiteral("none");
        };
        layout->addWidget(
            caption(QStringLiteral("GEMMs on Tensor Cores: %1 → %2 of their "
                                   "device time.")
                        .arg(share(change.gemmTensorCoreBefore), share(change.gemmTensorCoreAfter)),
                    this));
    }
}

void CompiledChangePage::fillParts(const compare::CompiledChange& change)
{
    m_parts->setRowCount(int(change.parts.size()) + 1);
    int row = 0;
    for (const compare::CompiledChange::Part& p : change.parts) {
        QString tip;
        if (p.key == "fusion")
            tip = QStringLiteral("The eager ops the generated kernels fused, and those kernels.");
        else if (p.key == "gemm")
            tip = QStringLiteral("Matmul, convolution and attention: extern kernels and the "
                                 "compiler's templates.");
        else if (p.key == "launches")
            tip = QStringLiteral("The step less the other parts. Its counts are every %1 of the "
                                 "step.")
                      .arg(change.deviceTime ? QStringLiteral("kernel") : QStringLiteral("op"));
        else
            tip = QStringLiteral("Every other %1 of the step.")
                      .arg(change.deviceTime ? QStringLiteral("kernel") : QStringLiteral("op"));
        m_parts->setItem(row, Part, nameItem(text(p.label), tip));
        m_parts->setItem(row, Before, durationItem(p.beforeNs));
        m_parts->setItem(row, After, durationItem(p.afterNs));
        m_parts->setItem(row, Change, changeItem(p.deltaNs()));
        m_parts->setItem(row, CountBefore, countItem(p.beforeCount));
        m_parts->setItem(row, CountAfter, countItem(p.afterCount));
        ++row;
    }
    auto* step = nameItem(QStringLiteral("step"), QStringLiteral("The four parts' sum."));
    QFont bold = step->font();
    bold.setBold(true);
    step->setFont(bold);
    m_parts->setItem(row, Part, step);
    m_parts->setItem(row, Before, durationItem(change.stepBeforeNs));
    m_parts->setItem(row, After, durationItem(change.stepAfterNs));
    m_parts->setItem(row, Change, changeItem(change.stepAfterNs - change.stepBeforeNs));
    for (int column = Before; column <= Change; ++column)
        m_parts->item(row, column)->setFont(bold);
    for (int column : {CountBefore, CountAfter}) {  // no count of its own
        auto* blank = new QTableWidgetItem;
        blank->setData(ExportRole, QString());
        m_parts->setItem(row, column, blank);
    }
    const QString count =
        change.deviceTime ? QStringLiteral("kernels/step") : QStringLiteral("ops/step");
    setExportColumns(*m_parts, {{QStringLiteral("Part"), {}},
                                {QStringLiteral("Before"), QStringLiteral("ns/step")},
                                {QStringLiteral("After"), QStringLiteral("ns/step")},
                                {QStringLiteral("Change"), QStringLiteral("ns/step")},
                                {QStringLiteral("Count before"), count},
                                {QStringLiteral("Count after"), count}});
    installTableExport(m_parts, QStringLiteral("compiled-parts"));
}

void CompiledChangePage::fillGroups(const compare::CompiledChange& change)
{
    m_groups->setRowCount(int(change.groups.size()));
    for (int row = 0; row < int(change.groups.size()); ++row) {
        const compare::CompiledChange::FusedGroup& g = change.groups[size_t(row)];
        m_groups->setItem(
            row, FusedOps,
            nameItem(text(compare::fusedGroupOps(g)), text(compare::fusedGroupText(g))));
        m_groups->setItem(row, EagerOps, countItem(g.eagerOps));
        m_groups->setItem(row, EagerTime, durationItem(g.eagerNs));
        m_groups->setItem(row, Kernels, countItem(g.kernels));
        m_groups->setItem(row, KernelTime, durationItem(g.kernelNs));
        m_groups->setItem(row, GroupChange, changeItem(g.deltaNs()));
    }
    setExportColumns(*m_groups, {{QStringLiteral("Fused ops"), {}},
                                 {QStringLiteral("Eager ops"), QStringLiteral("ops/step")},
                                 {QStringLiteral("Eager time"), QStringLiteral("ns/step")},
                                 {QStringLiteral("Kernels"), QStringLiteral("kernels/step")},
                                 {QStringLiteral("Kernel time"), QStringLiteral("ns/step")},
                                 {QStringLiteral("Change"), QStringLiteral("ns/step")}});
    m_groups->horizontalHeaderItem(GroupChange)
        ->setToolTip(QStringLiteral("After less before: the kernels' time less the eager ops' "
                                    "from eager to compiled."));
    installTableExport(m_groups, QStringLiteral("fused-groups"));
}

void CompiledChangePage::fillSlower(const compare::CompiledChange& change)
{
    m_slower->setRowCount(int(change.slower.size()));
    for (int row = 0; row < int(change.slower.size()); ++row) {
        const compare::CompiledChange::Slower& x = change.slower[size_t(row)];
        m_slower->setItem(row, 0, nameItem(text(x.name)));
        m_slower->setItem(row, 1, new QTableWidgetItem(text(x.kind)));
        m_slower->setItem(row, 2, durationItem(x.beforeNs));
        m_slower->setItem(row, 3, durationItem(x.afterNs));
        m_slower->setItem(row, 4, changeItem(x.deltaNs()));
    }
    setExportColumns(*m_slower, {{QStringLiteral("Slower"), {}},
                                 {QStringLiteral("Kind"), {}},
                                 {QStringLiteral("Before"), QStringLiteral("ns/step")},
                                 {QStringLiteral("After"), QStringLiteral("ns/step")},
                                 {QStringLiteral("Change"), QStringLiteral("ns/step")}});
    installTableExport(m_slower, QStringLiteral("slower"));
}

QAbstractItemView* CompiledChangePage::currentTable() const
{
    return m_focused ? m_focused : m_parts;
}

bool CompiledChangePage::eventFilter(QObject* watched, QEvent* event)
{
    // A menu opened over the page takes the focus away: the table is the last one that had it.
    if (event->type() == QEvent::FocusIn)
        for (QTableWidget* table : {m_parts, m_groups, m_slower})
            if (watched == table)
                m_focused = table;
    return QWidget::eventFilter(watched, event);
}

}  // namespace kinetoscope::widgets
