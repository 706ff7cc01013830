#include "widgets/delta_table_model.h"

#include "core/format/format.h"
#include "widgets/table_export.h"

#include <QBrush>
#include <QColor>

namespace kinetoscope::widgets {

namespace {

QString ms(double ns)
{
    return QString::fromStdString(format::durationIn(ns, format::TimeUnit::Milliseconds, 3));
}

}  // namespace

DeltaTableModel::DeltaTableModel(std::vector<compare::Delta> rows, QString nameHeader,
                                 QString detailHeader, QObject* parent)
    : QAbstractTableModel(parent), m_rows(std::move(rows)), m_nameHeader(std::move(nameHeader)),
      m_detailHeader(std::move(detailHeader))
{
}

std::vector<compare::Delta> DeltaTableModel::causeRows(const std::vector<compare::Cause>& causes)
{
    std::vector<compare::Delta> rows;
    for (const compare::Cause& c : causes) {
        compare::Delta d;
        d.name = c.label;
        d.detail = compare::causeKindKey(c.kind);
        d.beforeNs = c.beforeNs;
        d.afterNs = c.afterNs;
        d.beforeCalls = c.beforeCount.value_or(0.0);
        d.afterCalls = c.afterCount.value_or(0.0);
        d.status = c.beforeNs == 0  ? compare::Delta::Status::New
                   : c.afterNs == 0 ? compare::Delta::Status::Gone
                                    : compare::Delta::Status::Changed;
        rows.push_back(std::move(d));
    }
    return rows;
}

int DeltaTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int DeltaTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DeltaTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const compare::Delta& d = m_rows[size_t(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Before ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role == Qt::ForegroundRole && index.column() == Change &&
        d.status != compare::Delta::Status::Same)
        return QBrush(d.deltaNs() > 0 ? QColor(0xc6, 0x28, 0x28) : QColor(0x2e, 0x7d, 0x32));
    if (role == Qt::ToolTipRole && index.column() == Name)
        return QString::fromStdString(d.name);
    if (role == ExportRole) {
        // The status by name and the change with its sign (sorting takes its size).
        switch (index.column()) {
        case Status:
            return QString::fromLatin1(compare::statusName(d.status));
        case Change:
            return d.deltaNs();
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    const bool raw = role == Qt::UserRole;
    switch (index.column()) {
    case Name:
        return QString::fromStdString(d.name);
    case Detail:
        return QString::fromStdString(d.detail);
    case Status:
        // Sorted: what moved first.
        return raw ? QVariant(int(d.status == compare::Delta::Status::Same ? 0 : 1))
                   : QVariant(QString::fromLatin1(compare::statusName(d.status)));
    case Before:
        return raw ? QVariant(d.beforeNs) : QVariant(ms(d.beforeNs));
    case After:
        return raw ? QVariant(d.afterNs) : QVariant(ms(d.afterNs));
    case Change:
        // Sorted by size, either way.
        return raw ? QVariant(std::abs(d.deltaNs()))
                   : QVariant(QString::fromStdString(format::durationChange(d.deltaNs())));
    case CallsBefore:
        return raw ? QVariant(d.beforeCalls)
                   : QVariant(QString::fromStdString(format::count(d.beforeCalls)));
    case CallsAfter:
        return raw ? QVariant(d.afterCalls)
                   : QVariant(QString::fromStdString(format::count(d.afterCalls)));
    default:
        return {};
    }
}

QVariant DeltaTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Name:
            return m_nameHeader;
        case Detail:
            return m_detailHeader;
        case Status:
            return QStringLiteral("Status");
        case Before:
            return QStringLiteral("Before (ms/step)");
        case After:
            return QStringLiteral("After (ms/step)");
        case Change:
            return QStringLiteral("Change");
        case CallsBefore:
            return QStringLiteral("Calls/step before");
        case CallsAfter:
            return QStringLiteral("Calls/step after");
        default:
            return {};
        }
    }
    if (role == ColumnNameRole || role == UnitRole) {
        static const char* const names[] = {"",      "",       "Status",       "Before",
                                            "After", "Change", "Calls before", "Calls after"};
        static const char* const units[] = {"",        "",        "",           "ns/step",
                                            "ns/step", "ns/step", "calls/step", "calls/step"};
        if (role == UnitRole)
            return *units[section] ? QVariant(QString::fromLatin1(units[section])) : QVariant();
        return section == Name     ? m_nameHeader
               : section == Detail ? m_detailHeader
                                   : QString::fromLatin1(names[section]);
    }
    if (role == Qt::ToolTipRole && section == Status)
        return QStringLiteral(
            "changed: moved by 0.5 % of the step or more (or its calls by 5 %); new / gone: on one "
            "side only; same: within that.");
    return {};
}

}  // namespace kinetoscope::widgets
