#include "widgets/snapshot/snapshot_tables.h"

#include "core/format/format.h"
#include "widgets/table_export.h"

namespace kinetoscope::widgets {

namespace {

QString bytesText(int64_t bytes)
{
    return QString::fromStdString(format::bytes(double(bytes)));
}

}  // namespace

StackGroupModel::StackGroupModel(std::shared_ptr<const document::SnapshotDocument> snapshot,
                                 std::vector<snapshot::StackBytes> groups, QObject* parent, Key key)
    : QAbstractTableModel(parent), m_snapshot(std::move(snapshot)), m_groups(std::move(groups)),
      m_key(key)
{
}

void StackGroupModel::setGroups(std::vector<snapshot::StackBytes> groups, Key key)
{
    beginResetModel();
    m_groups = std::move(groups);
    m_key = key;
    endResetModel();
}

int StackGroupModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_groups.size());
}

int StackGroupModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StackGroupModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    const snapshot::StackBytes& g = m_groups[size_t(index.row())];
    const snapshot::SnapshotModel& model = m_snapshot->model;
    const double peak = double(m_snapshot->summary.peakAllocatedBytes);
    const double share = peak > 0 ? double(g.bytes) / peak : 0.0;
    if (role == Qt::ToolTipRole && index.column() == Stack) {
        QStringList lines;
        for (const std::string& line : model.readableStack(g.stack))
            lines << QString::fromStdString(line);
        return lines.join(QLatin1Char('\n'));
    }
    if (role == ExportRole && index.column() == Stack) {  // every Python frame, not the first four
        QStringList frames;
        for (const std::string& line : model.readableStack(g.stack))
            frames << QString::fromStdString(line);
        return frames.join(QStringLiteral("  ‹  "));
    }
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    const bool raw = role == Qt::UserRole;
    switch (index.column()) {
    case Place:
        if (!g.stack)
            return tr("(no frames recorded)");
        return QString::fromStdString(m_key == Key::Place ? model.place(g.stack)
                                                          : model.moduleCall(g.stack));
    case Bytes:
        return raw ? QVariant(qlonglong(g.bytes)) : QVariant(bytesText(g.bytes));
    case ShareOfPeak:
        return raw ? QVariant(share) : QVariant(QString::fromStdString(format::percent(share)));
    case Allocations:
        return raw ? QVariant(qlonglong(g.allocations))
                   : QVariant(QString::fromStdString(format::count(g.allocations)));
    case Stack: {
        QStringList frames;
        for (const std::string& line : model.readableStack(g.stack, 4))
            frames << QString::fromStdString(line);
        return frames.join(QStringLiteral("  ‹  "));
    }
    default:
        return {};
    }
}

QVariant StackGroupModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Place:
            return m_key == Key::Place ? tr("The line that allocated: the innermost Python frame "
                                            "outside torch and installed packages")
                                       : tr("The line that called the nn.Module the allocation was "
                                            "made in (frames name lines, "
                                            "not module classes)");
        case ShareOfPeak:
            return tr("Of the peak allocated bytes");
        case Stack:
            return tr("Python frames, innermost first; C++ frames folded (the tooltip has more)");
        default:
            return {};
        }
    }
    if (role == UnitRole) {
        static const char* const units[] = {"", "bytes", "fraction", "count", ""};
        return section >= 0 && section < ColumnCount && *units[section]
                   ? QVariant(QString::fromLatin1(units[section]))
                   : QVariant();
    }
    if (role != Qt::DisplayRole)
        return {};
    if (section == Place)
        return m_key == Key::Place ? tr("Allocated at") : tr("Module called at");
    static const char* const names[] = {"", "Bytes", "Share of peak", "Allocations", "Stack"};
    return tr(names[section]);
}

SegmentModel::SegmentModel(std::shared_ptr<const document::SnapshotDocument> snapshot,
                           QObject* parent)
    : QAbstractTableModel(parent), m_snapshot(std::move(snapshot))
{
}

int SegmentModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_snapshot->summary.segmentUse.size());
}

int SegmentModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SegmentModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    // The segment and its state as text: their raw values are sort keys (an address, a rank).
    if (role == ExportRole)
        return index.column() == Segment || index.column() == State ? data(index, Qt::DisplayRole)
                                                                    : QVariant();
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    const bool raw = role == Qt::UserRole;
    const snapshot::SegmentUse& use = m_snapshot->summary.segmentUse[size_t(index.row())];
    const snapshot::Segment& seg = m_snapshot->model.segments[use.segment];
    auto bytes = [&](int64_t n) { return raw ? QVariant(qlonglong(n)) : QVariant(bytesText(n)); };
    switch (index.column()) {
    case Segment:
        if (raw)
            return qlonglong(seg.address);
        return QStringLiteral("0x%1 · cuda:%2 · %3 pool · stream %4")
            .arg(qulonglong(seg.address), 0, 16)
            .arg(seg.device)
            .arg(seg.large ? tr("large") : tr("small"))
            .arg(seg.stream);
    case State:
        if (raw)  // the state's rank, then the bytes cached in free blocks (< 2^48)
            return (qlonglong(use.split()               ? 2
                              : use.allocatedBytes == 0 ? 1
                                                        : 0)
                    << 48) +
                   qlonglong(use.inactiveBytes);
        return use.split()               ? tr("split")
               : use.allocatedBytes == 0 ? tr("free (cached whole)")
                                         : tr("full");
    case Reserved:
        return bytes(seg.totalSize);
    case Allocated:
        return bytes(use.allocatedBytes);
    case FreeInBlocks:
        return bytes(use.inactiveBytes);
    case FreeBlocks:
        return qlonglong(use.inactiveBlocks);
    case LargestFreeBlock:
        return bytes(use.largestFreeBlockBytes);
    default:
        return {};
    }
}

QVariant SegmentModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case FreeInBlocks:
            return tr(
                "Cached in blocks no tensor holds: only requests that fit one of them can use it");
        case State:
            return tr("split: live tensors beside free blocks (fragmentation); free: no tensor, "
                      "torch.cuda.empty_cache() would return it");
        default:
            return {};
        }
    }
    if (role == UnitRole) {
        static const char* const units[] = {"", "", "bytes", "bytes", "bytes", "count", "bytes"};
        return section >= 0 && section < ColumnCount && *units[section]
                   ? QVariant(QString::fromLatin1(units[section]))
                   : QVariant();
    }
    if (role != Qt::DisplayRole)
        return {};
    static const char* const names[] = {"Segment",           "State",          "Reserved",
                                        "Allocated",         "Free in blocks", "Free blocks",
                                        "Largest free block"};
    return tr(names[section]);
}

}  // namespace kinetoscope::widgets
