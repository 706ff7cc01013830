#pragma once
// Table models over the analysis tables. Qt::DisplayRole gives formatted text,
// Qt::UserRole the raw number (ns, counts) that sorting uses, Qt::ToolTipRole explains
// the column. Wrap them in a QSortFilterProxyModel with sortRole = Qt::UserRole.
#include "core/analysis/kernel_table.h"
#include "core/analysis/memory_usage.h"
#include "core/analysis/op_table.h"
#include "widgets/roofline/roofline_columns.h"

#include <QAbstractTableModel>

namespace kinetoscope::widgets {

class OpTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Name,
        Shapes,
        Source,
        Calls,
        SelfCpu,
        CpuTotal,
        SelfDevice,
        DeviceTotal,
        MeanCpu,
        MeanDevice,
        TensorCoreEligible,
        TensorCoreShare,
        FusedOps,  // a compiled kernel's launch op: the source ops its kernel fused
        Tflops,
        Gbps,
        Intensity,
        Bound,
        OfRoof,
        ColumnCount
    };
    enum class Grouping
    {
        Name,
        InputShapes,
        Stack
    };
    explicit OpTableModel(QObject* parent = nullptr);
    void setTables(const analysis::OpTables& tables);
    // The roofline's figures per row: by name and shapes when grouped so, else by name.
    void setRoofline(const roofline::Roofline& roofline);
    // Falls back to Name when the trace has no shapes (or no Python frames) to group by.
    void setGrouping(Grouping grouping);
    Grouping grouping() const { return m_grouping; }
    bool hasShapes() const { return !m_tables.byNameAndShapes.empty(); }
    bool hasStacks() const { return !m_tables.byNameAndStack.empty(); }
    bool canGroupBy(Grouping grouping) const;  // the trace has what the grouping needs
    bool hasFusedOps() const;                  // some op launches a compiled kernel

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    const std::vector<analysis::OpStats>& rows() const;
    analysis::OpTables m_tables;
    RooflineLookup m_roofline;
    Grouping m_grouping = Grouping::Name;
};

class KernelTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Name,
        FusedOps,  // a compiled kernel: the source ops it fused (torch.compile)
        Calls,
        Total,
        Mean,
        Min,
        Max,
        Grid,
        Block,
        Registers,
        SharedMemory,
        BlocksPerSm,
        Occupancy,
        TensorCore,
        Op,
        Tflops,
        Gbps,
        Intensity,
        Bound,
        OfRoof,
        ColumnCount
    };
    explicit KernelTableModel(QObject* parent = nullptr);
    void setKernels(std::vector<analysis::KernelStats> kernels);
    void setRoofline(const roofline::Roofline& roofline);  // figures per kernel name
    bool hasFusedOps() const;  // some kernel is a compiled one that names its fused ops

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<analysis::KernelStats> m_kernels;
    RooflineLookup m_roofline;
};

// The TensorBoard plugin's memory table for one device: per op, allocations, bytes
// allocated and size increase (allocated less freed), self and total.
class MemoryTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Name,
        Allocations,
        TotalAllocations,
        Bytes,
        TotalBytes,
        SelfIncrease,
        TotalIncrease,
        ColumnCount
    };
    explicit MemoryTableModel(QObject* parent = nullptr);
    void setRows(std::vector<analysis::OpAllocation> rows);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<analysis::OpAllocation> m_rows;
};

}  // namespace kinetoscope::widgets
