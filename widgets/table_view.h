#pragma once
// A sortable, filterable table page (Operators or Kernels): a filter box (Ctrl+F), an
// optional "Group by" choice, the table, and the selected row's details.
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
