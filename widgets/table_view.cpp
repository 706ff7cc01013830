#include "widgets/table_view.h"

#include "widgets/keyboard_focus.h"
#include "widgets/table_export.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace kinetoscope::widgets {

TableView::TableView(QAbstractTableModel* model, int defaultSortColumn, QWidget* parent)
    : QWidget(parent), m_model(model), m_proxy(new QSortFilterProxyModel(this)),
      m_filter(new QLineEdit(this)), m_table(new QTableView(this)), m_details(new QLabel(this)),
      m_bar(new QHBoxLayout)
{
    m_proxy->setSourceModel(model);
    m_proxy->setSortRole(Qt::UserRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(0);
    m_filter->setPlaceholderText(tr("Filter by name (Ctrl+F)"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    m_table->setModel(m_proxy);
    tabLeavesTable(m_table);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(defaultSortColumn, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    // Rows to copy (Ctrl+C: TSV) may be several; the details show the current one.
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setVisible(false);
    // Numbers fit their contents; the name column gets a generous, adjustable width
    // (kernel names run to hundreds of characters; the full name is in the tooltip).
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_table->horizontalHeader()->resizeSection(0, 440);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &TableView::showDetails);
    installTableExport(m_table, QStringLiteral("table"));
    m_bar->addWidget(m_filter, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(m_bar);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_details);
}

QComboBox* TableView::addGroupChoice(const QStringList& items)
{
    m_bar->addWidget(new QLabel(tr("Group by"), this));
    auto* box = new QComboBox(this);
    box->addItems(items);
    m_bar->addWidget(box);
    tabOrder({m_filter, box, m_table});  // the bar left to right, then the table
    return box;
}

void TableView::setExportName(const QString& name)
{
    installTableExport(m_table, name);
}

void TableView::setFilter(const QString& text)
{
    m_filter->setText(text);
}

void TableView::focusFilter()
{
    m_filter->setFocus();
    m_filter->selectAll();
}

int TableView::visibleRows() const
{
    return m_proxy->rowCount();
}

void TableView::showDetails()
{
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid()) {
        m_details->clear();
        return;
    }
    QStringList parts;
    for (int c = 0; c < m_proxy->columnCount(); ++c) {
        const QString value = m_proxy->index(current.row(), c).data(Qt::DisplayRole).toString();
        if (!value.isEmpty())
            parts << QStringLiteral("<b>%1</b>: %2")
                         .arg(m_proxy->headerData(c, Qt::Horizontal).toString(),
                              value.toHtmlEscaped());
    }
    m_details->setText(parts.join(QStringLiteral(" · ")));
}

}  // namespace kinetoscope::widgets
