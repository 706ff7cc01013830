#pragma once
// A sortable, filterable table page (Operators or Kernels): a filter box (Ctrl+F), an
// optional "Group by" choice, the table, and the selected row's details. The table exports
// as CSV from its context menu and copies its selected rows as TSV (table_export.h).
#include <QWidget>

class QAbstractTableModel;
class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QHBoxLayout;

namespace kinetoscope::widgets {

class TableView : public QWidget
{
    Q_OBJECT
public:
    TableView(QAbstractTableModel* model, int defaultSortColumn, QWidget* parent = nullptr);
    // Shows a "Group by" choice of `items`, the first chosen.
    QComboBox* addGroupChoice(const QStringList& items);
    // The table's name in the suggested CSV file name ("operators").
    void setExportName(const QString& name);
    void setFilter(const QString& text);
    void focusFilter();
    QTableView* table() const { return m_table; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    int visibleRows() const;

private:
    void showDetails();
    QAbstractTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QLineEdit* m_filter;
    QTableView* m_table;
    QLabel* m_details;
    QHBoxLayout* m_bar;
};

}  // namespace kinetoscope::widgets
