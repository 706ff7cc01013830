#pragma once
// Table models over a memory snapshot's readings: groups of allocations by the place that
// made them (alive at the peak, or leaking), and the segments with what their blocks hold.
// Qt::DisplayRole gives formatted text, Qt::UserRole the raw number sorting uses (bytes,
// counts), as the trace's table models do.
#include "core/document/document.h"

#include <QAbstractTableModel>
#include <memory>

namespace kinetoscope::widgets {

class StackGroupModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Place,
        Bytes,
        ShareOfPeak,
        Allocations,
        Stack,
        ColumnCount
    };
    // Place: the line that allocated; ModuleCall: the line that called the nn.Module.
    enum class Key
    {
        Place,
        ModuleCall
    };
    StackGroupModel(std::shared_ptr<const document::SnapshotDocument> snapshot,
                    std::vector<snapshot::StackBytes> groups, QObject* parent = nullptr,
                    Key key = Key::Place);
    // Another grouping of the same allocations (the "Group by" choice).
    void setGroups(std::vector<snapshot::StackBytes> groups, Key key);
    const snapshot::StackBytes& group(int row) const { return m_groups[size_t(row)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const document::SnapshotDocument> m_snapshot;
    std::vector<snapshot::StackBytes> m_groups;
    Key m_key = Key::Place;
};

class SegmentModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // State sorts split segments above free ones above full ones, each by the bytes it
    // caches in free blocks.
    enum Column
    {
        Segment,
        State,
        Reserved,
        Allocated,
        FreeInBlocks,
        FreeBlocks,
        LargestFreeBlock,
        ColumnCount
    };
    explicit SegmentModel(std::shared_ptr<const document::SnapshotDocument> snapshot,
                          QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const document::SnapshotDocument> m_snapshot;
};

}  // namespace kinetoscope::widgets
