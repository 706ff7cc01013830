#pragma once
// A compared table (kernels, ops, copies or the ranked causes) as a sortable Qt model:
// name, detail, status, before, after and change per step (ms), and calls per step.
#include "core/compare/comparison.h"

#include <QAbstractTableModel>
#include <vector>

namespace kinetoscope::widgets {

class DeltaTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Name,
        Detail,
        Status,
        Before,
        After,
        Change,
        CallsBefore,
        CallsAfter,
        ColumnCount
    };
    // `detailHeader`: "Input shapes" for ops, "Kind" for causes; empty hides nothing but
    // leaves the column blank.
    DeltaTableModel(std::vector<compare::Delta> rows, QString nameHeader, QString detailHeader,
                    QObject* parent = nullptr);
    // The causes, as rows (name: the label; detail: the kind).
    static std::vector<compare::Delta> causeRows(const std::vector<compare::Cause>& causes);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    const compare::Delta& row(int i) const { return m_rows[size_t(i)]; }

private:
    std::vector<compare::Delta> m_rows;
    QString m_nameHeader, m_detailHeader;
};

}  // namespace kinetoscope::widgets
