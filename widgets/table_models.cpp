#include "widgets/table_models.h"

#include "core/format/format.h"

#include <algorithm>

namespace kinetoscope::widgets {

namespace {

// Fixed units in the columns (named in the headers), so that values line up.
QString ms(double ns)
{
    return QString::fromStdString(format::durationIn(ns, format::TimeUnit::Milliseconds, 3));
}

QString us(double ns)
{
    return QString::fromStdString(format::durationIn(ns, format::TimeUnit::Microseconds, 1));
}

QString count(int64_t n)
{
    return QString::fromStdString(format::count(uint64_t(std::max<int64_t>(0, n))));
}

QString triple(const int32_t (&v)[3])
{
    return v[0] < 0 ? QStringLiteral("n/a") : QStringLiteral("%1×%2×%3").arg(v[0]).arg(v[1]).arg(v[2]);
}

}  // namespace

OpTableModel::OpTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void OpTableModel::setTables(const analysis::OpTables& tables)
{
    beginResetModel();
    m_tables = tables;
    if (!canGroupBy(m_grouping))
        m_grouping = Grouping::Name;
    endResetModel();
}

void OpTableModel::setRoofline(const roofline::Roofline& roofline)
{
    beginResetModel();
    m_roofline.set(roofline);
    endResetModel();
}

void OpTableModel::setGrouping(Grouping grouping)
{
    if (!canGroupBy(grouping))
        grouping = Grouping::Name;
    if (grouping == m_grouping)
        return;
    beginResetModel();
    m_grouping = grouping;
    endResetModel();
}

bool OpTableModel::canGroupBy(Grouping grouping) const
{
    return grouping == Grouping::Name || (grouping == Grouping::InputShapes && hasShapes()) ||
           (grouping == Grouping::Stack && hasStacks());
}

const std::vector<analysis::OpStats>& OpTableModel::rows() const
{
    switch (m_grouping) {
    case Grouping::InputShapes: return m_tables.byNameAndShapes;
    case Grouping::Stack: return m_tables.byNameAndStack;
    case Grouping::Name: break;
    }
    return m_tables.byName;
}

int OpTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(rows().size());
}

int OpTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const analysis::OpStats& o = rows()[size_t(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Calls ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (index.column() >= Tflops) {
        const RooflineFigures* figures =
            m_grouping == Grouping::InputShapes ? m_roofline.op(o.name, o.inputShapes) : m_roofline.opName(o.name);
        return rooflineCell(figures, RooflineColumn(index.column() - Tflops), role);
    }
    if (role == Qt::ToolTipRole && index.column() == Source && !o.stack.empty()) {
        // The frames the row groups on, innermost first.
        QStringList frames;
        for (const std::string& frame : o.stack)
            frames << QString::fromStdString(frame);
        return frames.join(QLatin1Char('\n'));
    }
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    const bool raw = role == Qt::UserRole;
    switch (index.column()) {
    case Name: return QString::fromStdString(o.name);
    case Shapes: return QString::fromStdString(o.inputShapes);
    case Source: return QString::fromStdString(o.sourceLine);
    case Calls: return raw ? QVariant(qlonglong(o.calls)) : QVariant(count(o.calls));
    case SelfCpu: return raw ? QVariant(qlonglong(o.selfCpuNs)) : QVariant(ms(double(o.selfCpuNs)));
    case CpuTotal: return raw ? QVariant(qlonglong(o.cpuTotalNs)) : QVariant(ms(double(o.cpuTotalNs)));
    case SelfDevice: return raw ? QVariant(qlonglong(o.selfDeviceNs)) : QVariant(ms(double(o.selfDeviceNs)));
    case DeviceTotal: return raw ? QVariant(qlonglong(o.deviceTotalNs)) : QVariant(ms(double(o.deviceTotalNs)));
    case MeanCpu: return raw ? QVariant(o.meanCpuNs()) : QVariant(ms(o.meanCpuNs()));
    case MeanDevice: return raw ? QVariant(o.meanDeviceNs()) : QVariant(ms(o.meanDeviceNs()));
    case TensorCoreEligible:
        return raw ? QVariant(int(o.tensorCoreEligible)) : QVariant(o.tensorCoreEligible ? QStringLiteral("yes") : QString());
    case TensorCoreShare: {
        // Of its device time, on Tensor Core kernels; blank for ops that launch nothing.
        const double share = o.deviceTotalNs > 0 ? double(o.tensorCoreNs) / double(o.deviceTotalNs) : -1.0;
        if (raw)
            return share;
        return share < 0 ? QString() : QString::fromStdString(format::percent(share));
    }
    default: return {};
    }
}

QVariant OpTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    static const char* names[] = {"Operator", "Input shapes", "Source line", "Calls", "Self CPU (ms)", "CPU total (ms)",
                                  "Self device (ms)", "Device total (ms)", "Mean CPU (ms)", "Mean device (ms)",
                                  "TC eligible", "On Tensor Cores"};
    static const char* tips[] = {
        "The operator's name.",
        "The shapes of its inputs (recorded with record_shapes=True).",
        "The innermost line of your code around the op (recorded with with_stack=True); the tooltip "
        "shows the Python frames the row groups on.",
        "How many times it ran.",
        "CPU time in the op itself, without the ops it called.",
        "CPU time including the ops it called.",
        "GPU time of the kernels and copies the op itself launched.",
        "GPU time of everything launched by the op and the ops it called.",
        "CPU total divided by calls.",
        "Device total divided by calls.",
        "Whether its kernels can run on Tensor Cores (GEMM, convolution, their backward, fused attention).",
        "The share of its device total spent in Tensor Core kernels."};
    if (section < 0 || section >= ColumnCount)
        return {};
    if (section >= Tflops)
        return role == Qt::DisplayRole   ? QVariant(rooflineHeader(RooflineColumn(section - Tflops)))
               : role == Qt::ToolTipRole ? QVariant(rooflineHeaderTip(RooflineColumn(section - Tflops)))
                                         : QVariant();
    if (role == Qt::DisplayRole)
        return QString::fromLatin1(names[section]);
    if (role == Qt::ToolTipRole)
        return QString::fromLatin1(tips[section]);
    return {};
}

KernelTableModel::KernelTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelTableModel::setKernels(std::vector<analysis::KernelStats> kernels)
{
    beginResetModel();
    m_kernels = std::move(kernels);
    endResetModel();
}

void KernelTableModel::setRoofline(const roofline::Roofline& roofline)
{
    beginResetModel();
    m_roofline.set(roofline);
    endResetModel();
}

int KernelTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_kernels.size());
}

int KernelTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const analysis::KernelStats& k = m_kernels[size_t(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() != Name && index.column() != Op ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (index.column() >= Tflops)
        return rooflineCell(m_roofline.kernel(k.name), RooflineColumn(index.column() - Tflops), role);
    if (role == Qt::ToolTipRole && index.column() == Name)
        return QString::fromStdString(k.name);
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    const bool raw = role == Qt::UserRole;
    switch (index.column()) {
    case Name: return QString::fromStdString(k.name);
    case Calls: return raw ? QVariant(qlonglong(k.calls)) : QVariant(count(k.calls));
    case Total: return raw ? QVariant(qlonglong(k.totalNs)) : QVariant(ms(double(k.totalNs)));
    case Mean: return raw ? QVariant(k.meanNs()) : QVariant(us(k.meanNs()));
    case Min: return raw ? QVariant(qlonglong(k.minNs)) : QVariant(us(double(k.minNs)));
    case Max: return raw ? QVariant(qlonglong(k.maxNs)) : QVariant(us(double(k.maxNs)));
    case Grid: return raw ? QVariant(qlonglong(k.grid[0]) * std::max(1, k.grid[1]) * std::max(1, k.grid[2])) : QVariant(triple(k.grid));
    case Block: return raw ? QVariant(qlonglong(k.block[0]) * std::max(1, k.block[1]) * std::max(1, k.block[2])) : QVariant(triple(k.block));
    case Registers: return raw ? QVariant(k.registersPerThread) : QVariant(k.registersPerThread < 0 ? QStringLiteral("n/a") : QString::number(k.registersPerThread));
    case SharedMemory: return raw ? QVariant(k.sharedMemoryBytes) : QVariant(QString::fromStdString(format::bytes(double(k.sharedMemoryBytes))));
    case BlocksPerSm:
        return raw ? QVariant(k.meanBlocksPerSm.value_or(-1.0))
                   : QVariant(k.meanBlocksPerSm ? QString::number(*k.meanBlocksPerSm, 'f', 2) : QStringLiteral("n/a"));
    case Occupancy:
        return raw ? QVariant(k.meanOccupancyPercent.value_or(-1.0))
                   : QVariant(k.meanOccupancyPercent ? QString::fromStdString(format::percent(*k.meanOccupancyPercent / 100.0))
                                                     : QStringLiteral("n/a"));
    case TensorCore:
        if (raw)
            return int(k.unit == analysis::MatrixUnit::TensorCore) - int(k.unit == analysis::MatrixUnit::Simt);
        return k.unit == analysis::MatrixUnit::TensorCore ? QStringLiteral("Tensor Core")
               : k.unit == analysis::MatrixUnit::Simt     ? QStringLiteral("SIMT")
                                                          : QString();
    case Op: return QString::fromStdString(k.topOp);
    default: return {};
    }
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const char* names[] = {"Kernel", "Calls", "Total (ms)", "Mean (µs)", "Min (µs)", "Max (µs)", "Grid",
                                  "Block", "Registers", "Shared mem", "Blocks/SM", "Occupancy", "Unit", "Launched by"};
    static const char* tips[] = {
        "The kernel's name.", "How many times it ran.", "Sum of its durations.", "Mean duration.",
        "Shortest run.", "Longest run.", "Grid (of its longest run, unless grouped by launch configuration).",
        "Block (of its longest run, unless grouped by launch configuration).",
        "Registers per thread.", "Static shared memory per block.",
        "Blocks per SM, mean weighted by duration (recorded by CUPTI).",
        "Estimated achieved occupancy, mean weighted by duration (recorded by CUPTI).",
        "Tensor Core (or AMD matrix core) or SIMT, as the diagnosis reads the kernel's name; blank when the name "
        "does not tell.",
        "The op that launched most of its time (grouped by op: the op)."};
    if (section >= Tflops)
        return role == Qt::DisplayRole   ? QVariant(rooflineHeader(RooflineColumn(section - Tflops)))
               : role == Qt::ToolTipRole ? QVariant(rooflineHeaderTip(RooflineColumn(section - Tflops)))
                                         : QVariant();
    if (role == Qt::DisplayRole)
        return QString::fromUtf8(names[section]);
    if (role == Qt::ToolTipRole)
        return QString::fromLatin1(tips[section]);
    return {};
}

MemoryTableModel::MemoryTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void MemoryTableModel::setRows(std::vector<analysis::OpAllocation> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int MemoryTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int MemoryTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MemoryTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const analysis::OpAllocation& o = m_rows[size_t(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() != Name ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    if (index.column() == Name)
        return o.op.empty() ? QStringLiteral("(outside any op)") : QString::fromStdString(o.op);
    const int64_t values[] = {0, o.allocations, o.totalAllocations, o.bytes, o.totalBytes, o.selfIncreaseBytes,
                              o.totalIncreaseBytes};
    const int64_t v = values[index.column()];
    if (role == Qt::UserRole)
        return qlonglong(v);
    if (index.column() == Allocations || index.column() == TotalAllocations)
        return count(v);
    // Size increases may be negative (an op that frees more than it allocates).
    return QString::fromStdString((v < 0 ? "-" : "") + format::bytes(double(v < 0 ? -v : v)));
}

QVariant MemoryTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const char* names[] = {"Operator",  "Allocations (self)", "Allocations (total)", "Allocated (self)",
                                  "Allocated (total)", "Size increase (self)", "Size increase (total)"};
    static const char* tips[] = {
        "The innermost op around the memory events.",
        "Allocations made in the op itself, not in an op nested in it.",
        "Allocations made in the op or any op nested in it.",
        "Bytes allocated in the op itself (frees not subtracted).",
        "Bytes allocated in the op or any op nested in it.",
        "Bytes allocated less bytes freed, in the op itself.",
        "Bytes allocated less bytes freed, in the op or any op nested in it."};
    if (role == Qt::DisplayRole)
        return QString::fromLatin1(names[section]);
    if (role == Qt::ToolTipRole)
        return QString::fromLatin1(tips[section]);
    return {};
}

}  // namespace kinetoscope::widgets
