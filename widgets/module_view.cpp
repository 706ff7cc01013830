#include "widgets/module_view.h"

#include "core/format/format.h"
#include "widgets/flame_graph.h"
#include "widgets/keyboard_focus.h"
#include "widgets/table_export.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>

namespace kinetoscope::widgets {

namespace {

constexpr int kNodeRole = Qt::UserRole + 1;  // the item's index in ModuleTree::nodes

QString ms(int64_t ns)
{
    return QString::fromStdString(
        format::durationIn(double(ns), format::TimeUnit::Milliseconds, 3));
}

// Kernel names run to hundreds of characters: the start says what it is.
QString elided(const QString& name)
{
    constexpr int kChars = 48;
    return name.size() <= kChars ? name : name.left(kChars - 1) + QChar(0x2026);
}

// Sorts numeric columns by the nanoseconds in Qt::UserRole, not by their text.
class ModuleItem : public QTreeWidgetItem
{
public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem& other) const override
    {
        const int column = treeWidget() ? treeWidget()->sortColumn() : 0;
        if (column == ModuleView::Name)
            return text(column) < other.text(column);
        return data(column, Qt::UserRole).toLongLong() <
               other.data(column, Qt::UserRole).toLongLong();
    }
};

// Asks for the height of its shown rows (at least six, at most a dozen): the module
// tree of a small model leaves the page's height to the call tree below it, rather than half.
class RowsHighTree : public QTreeWidget
{
public:
    using QTreeWidget::QTreeWidget;
    QSize sizeHint() const override
    {
        constexpr int kFewest = 6, kMost = 12;  // six: the selected module's details beside
        int rows = 0;
        for (QTreeWidgetItemIterator it(const_cast<RowsHighTree*>(this),
                                        QTreeWidgetItemIterator::NotHidden);
             *it && rows < kMost; ++it) {
            bool shown = true;
            for (const QTreeWidgetItem* up = (*it)->parent(); up && shown; up = up->parent())
                shown = up->isExpanded();
            rows += shown;
        }
        const int rowHeight =
            sizeHintForRow(0) > 0 ? sizeHintForRow(0) : fontMetrics().height() + 4;
        const int height = header()->sizeHint().height() + std::max(rows, kFewest) * rowHeight +
                           2 * frameWidth() + horizontalScrollBar()->sizeHint().height();
        return {QTreeWidget::sizeHint().width(), height};
    }
};

}  // namespace

ModuleView::ModuleView(QWidget* parent)
    : QWidget(parent), m_notice(new QLabel(this)), m_tree(new RowsHighTree(this)),
      m_details(new QLabel(this)), m_widthBy(new QComboBox(this)), m_flame(new FlameGraph(this))
{
    m_notice->setWordWrap(true);
    m_tree->setColumnCount(ColumnCount);
    m_tree->setHeaderLabels({tr("Module"), tr("Calls"), tr("Host total (ms)"), tr("Host self (ms)"),
                             tr("Device total (ms)"), tr("Device self (ms)")});
    m_tree->headerItem()->setToolTip(HostSelf,
                                     tr("The module's spans less its child modules' spans"));
    m_tree->headerItem()->setToolTip(
        DeviceTotal, tr("Kernels, copies and memsets launched inside the module's spans "
                        "(its forward pass; backward runs outside module spans)"));
    m_tree->headerItem()->setToolTip(
        DeviceSelf, tr("Device time launched in the module but in none of its children"));
    // Exported as CSV with raw numbers: each column's name without the display's unit, and
    // the unit of its raw values; rows flattened with their depth and path.
    const std::pair<QString, QString> exported[] = {{tr("Module"), QString()},
                                                    {tr("Calls"), QStringLiteral("count")},
                                                    {tr("Host total"), QStringLiteral("ns")},
                                                    {tr("Host self"), QStringLiteral("ns")},
                                                    {tr("Device total"), QStringLiteral("ns")},
                                                    {tr("Device self"), QStringLiteral("ns")}};
    for (int column = 0; column < ColumnCount; ++column) {
        m_tree->headerItem()->setData(column, ColumnNameRole, exported[column].first);
        if (!exported[column].second.isEmpty())
            m_tree->headerItem()->setData(column, UnitRole, exported[column].second);
    }
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    installTableExport(m_tree, QStringLiteral("modules"));
    m_tree->setSortingEnabled(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(Name, QHeaderView::Interactive);
    m_tree->header()->resizeSection(Name, 250);
    m_details->setWordWrap(true);
    m_details->setTextFormat(Qt::RichText);
    m_details->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_tree, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem* item) { showDetails(item); });

    m_widthBy->addItem(tr("Width: device time"));
    m_widthBy->addItem(tr("Width: host time"));
    connect(m_widthBy, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_flame->setWidthBy(index == 0 ? FlameGraph::Width::Device : FlameGraph::Width::Host);
    });

    auto* upper = m_upper = new QWidget(this);
    auto* upperLayout = new QHBoxLayout(upper);
    upperLayout->setContentsMargins(0, 0, 0, 0);
    upperLayout->addWidget(m_tree, 2);
    auto* detailsScroll = new QScrollArea(upper);
    detailsScroll->setWidget(m_details);
    detailsScroll->setWidgetResizable(true);
    showFocusRing(detailsScroll);
    // The tree sets the pane's height; long details scroll beside it.
    detailsScroll->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);
    upperLayout->addWidget(detailsScroll, 1);

    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    auto* flameTitle =
        new QLabel(tr("Call tree of the host threads (Python frames, ops, ranges). Click a frame "
                      "to zoom in, its top row or Esc to zoom out."),
                   lower);
    flameTitle->setWordWrap(true);  // on a narrow window, a second line rather than a wider one
    bar->addWidget(flameTitle, 1);
    bar->addWidget(m_widthBy);
    lowerLayout->addLayout(bar);
    auto* flameScroll = new QScrollArea(lower);
    flameScroll->setWidget(m_flame);
    flameScroll->setWidgetResizable(true);
    showFocusRing(flameScroll);
    flameScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    lowerLayout->addWidget(flameScroll, 1);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(upper);
    splitter->addWidget(lower);
    // The module tree keeps the rows it asks for; the call tree takes the rest.
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_notice);
    layout->addWidget(splitter, 1);
}

void ModuleView::setTrees(const analysis::ModuleTree& modules, const analysis::CallTree& calls)
{
    m_modules = modules;
    m_tree->clear();
    m_tree->setSortingEnabled(false);
    for (int32_t root : m_modules.roots)
        addNode(m_modules, root, nullptr);
    m_tree->setSortingEnabled(true);
    m_tree->sortByColumn(DeviceTotal, Qt::DescendingOrder);
    m_tree->setVisible(!m_modules.empty());
    if (m_modules.empty()) {
        m_notice->setText(
            tr("This trace has no nn.Module spans, so there is no module hierarchy: record with "
               "with_stack=True to see it. The call tree below shows the frames the trace has."));
    } else {
        const double share = m_modules.deviceNs > 0
                                 ? double(m_modules.deviceInModulesNs) / double(m_modules.deviceNs)
                                 : 0.0;
        m_notice->setText(
            tr("%1 module spans. %2 of the trace's %3 of device time was launched inside them "
               "(%4): "
               "the forward pass; backward kernels run outside module spans.")
                .arg(QString::fromStdString(format::count(uint64_t(m_modules.moduleSpans))),
                     QString::fromStdString(format::duration(double(m_modules.deviceInModulesNs))),
                     QString::fromStdString(format::duration(double(m_modules.deviceNs))),
                     QString::fromStdString(format::percent(share))));
        if (m_tree->topLevelItemCount() > 0) {
            m_tree->topLevelItem(0)->setExpanded(true);
            m_tree->setCurrentItem(m_tree->topLevelItem(0));
        }
    }
    // Without modules the upper pane (the tree and its details) goes: the call tree takes
    // the page, not half of it under an empty panel.
    m_upper->setVisible(!m_modules.empty());
    m_tree->updateGeometry();  // its height follows its rows
    m_flame->setTree(calls);
    m_flame->setWidthBy(calls.nodes.empty() || calls.nodes[0].deviceNs > 0
                            ? FlameGraph::Width::Device
                            : FlameGraph::Width::Host);
    m_widthBy->setCurrentIndex(calls.nodes.empty() || calls.nodes[0].deviceNs > 0 ? 0 : 1);
}

void ModuleView::addNode(const analysis::ModuleTree& modules, int32_t root, QTreeWidgetItem* parent)
{
    // Iterative: a malformed trace may nest modules thousands deep.
    std::vector<std::pair<int32_t, QTreeWidgetItem*>> pending{{root, parent}};
    while (!pending.empty()) {
        const auto [index, above] = pending.back();
        pending.pop_back();
        const analysis::ModuleNode& m = modules.nodes[size_t(index)];
        auto* item = above ? new ModuleItem(above) : new ModuleItem(m_tree);
        item->setText(Name, QString::fromStdString(m.name));
        item->setToolTip(Name, QString::fromStdString(m.path));
        item->setData(Name, kNodeRole, index);
        const std::pair<Column, int64_t> numbers[] = {{Calls, m.calls},
                                                      {HostTotal, m.hostTotalNs},
                                                      {HostSelf, m.hostSelfNs},
                                                      {DeviceTotal, m.deviceTotalNs},
                                                      {DeviceSelf, m.deviceSelfNs}};
        for (const auto& [column, value] : numbers) {
            item->setText(column, column == Calls
                                      ? QString::fromStdString(format::count(uint64_t(value)))
                                      : ms(value));
            item->setData(column, Qt::UserRole, qlonglong(value));
            item->setTextAlignment(column, Qt::AlignRight | Qt::AlignVCenter);
        }
        for (auto child = m.children.rbegin(); child != m.children.rend(); ++child)
            pending.emplace_back(*child, item);
    }
}

void ModuleView::showDetails(QTreeWidgetItem* item)
{
    if (!item) {
        m_details->clear();
        return;
    }
    const analysis::ModuleNode& m = m_modules.nodes[size_t(item->data(Name, kNodeRole).toInt())];
    auto rows = [](const std::vector<analysis::NamedTime>& list, bool withHost) {
        QString html = QStringLiteral("<table cellspacing=2>");
        for (size_t i = 0; i < std::min<size_t>(8, list.size()); ++i) {
            const analysis::NamedTime& r = list[i];
            html +=
                QStringLiteral(
                    "<tr><td>%1</td><td align=right>%2×</td><td align=right>%3</td>%4</tr>")
                    .arg(elided(QString::fromStdString(r.name)).toHtmlEscaped(),
                         QString::fromStdString(format::count(uint64_t(r.calls))),
                         QString::fromStdString(format::duration(double(r.deviceNs))),
                         withHost
                             ? QStringLiteral("<td align=right>host %1</td>")
                                   .arg(QString::fromStdString(format::duration(double(r.hostNs))))
                             : QString());
        }
        if (list.empty())
            html += QStringLiteral("<tr><td><i>none</i></td></tr>");
        return html + QStringLiteral("</table>");
    };
    m_details->setText(tr("<b>%1</b><br>Ops directly in it (device time launched under each):%2"
                          "Device activities launched directly in it:%3")
                           .arg(QString::fromStdString(m.path).toHtmlEscaped(), rows(m.ops, true),
                                rows(m.kernels, false)));
}

}  // namespace kinetoscope::widgets
