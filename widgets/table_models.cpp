#include "widgets/table_models.h"

#include "core/format/format.h"
#include "widgets/roofline/fused_ops.h"
#include "widgets/table_export.h"

#include <algorithm>
#include <iterator>

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
    return v[0] < 0 ? QStringLiteral("n/a")
                    : QStringLiteral("%1×%2×%3").arg(v[0]).arg(v[1]).arg(v[2]);
}

// A blank cell in an exported table (the raw value is only a sort key).
QVariant blank()
{
    return QString();
}

// A column's header under `role`: the display name, its tooltip, and for the CSV export
// its name without the display's unit and the unit of its raw values (table_export.h).
struct ColumnHeader
{
    const char* display;
    const char* name;
    const char* unit;
    const char* tip;
};

QVariant header(const ColumnHeader& h, int role)
{
    switch (role) {
    case Qt::DisplayRole:
        return QString::fromUtf8(h.display);
    case Qt::ToolTipRole:
        return QString::fromUtf8(h.tip);
    case ColumnNameRole:
        return QString::fromUtf8(h.name);
    case UnitRole:
        return *h.unit ? QVariant(QString::fromLatin1(h.unit)) : QVariant();
    default:
        return {};
    }
}

QVariant rooflineHeaderData(RooflineColumn column, int role)
{
    switch (role) {
    case Qt::DisplayRole:
        return rooflineHeader(column);
    case Qt::ToolTipRole:
        return rooflineHeaderTip(column);
    case ColumnNameRole:
        return rooflineColumnName(column);
    case UnitRole: {
        const QString unit = rooflineUnit(column);
        return unit.isEmpty() ? QVariant() : QVariant(unit);
    }
    default:
        return {};
    }
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

bool OpTableModel::hasFusedOps() const
{
    return std::any_of(m_tables.byName.begin(), m_tables.byName.end(),
                       [](const analysis::OpStats& o) { return !fusedOpsOf(o.name).isEmpty(); });
}

bool OpTableModel::canGroupBy(Grouping grouping) const
{
    return grouping == Grouping::Name || (grouping == Grouping::InputShapes && hasShapes()) ||
           (grouping == Grouping::Stack && hasStacks());
}

const std::vector<analysis::OpStats>& OpTableModel::rows() const
{
    switch (m_grouping) {
    case Grouping::InputShapes:
        return m_tables.byNameAndShapes;
    case Grouping::Stack:
        return m_tables.byNameAndStack;
    case Grouping::Name:
        break;
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
        const RooflineFigures* figures = m_grouping == Grouping::InputShapes
                                             ? m_roofline.op(o.name, o.inputShapes)
                                             : m_roofline.opName(o.name);
        return rooflineCell(figures, RooflineColumn(index.column() - Tflops), role);
    }
    if (role == Qt::ToolTipRole && (index.column() == Name || index.column() == FusedOps)) {
        // A compiled kernel's launch op: its whole name and what its kernel fused.
        const QString tip = compiledKernelTip(o.name);
        if (tip.isEmpty())
            return {};
        return QString::fromStdString(o.name) + QLatin1Char('\n') + tip;
    }
    if (role == Qt::ToolTipRole && index.column() == Source && !o.stack.empty()) {
        // The frames the row groups on, innermost first.
        QStringList frames;
        for (const std::string& frame : o.stack)
            frames << QString::fromStdString(frame);
        return frames.join(QLatin1Char('\n'));
    }
    if (role == ExportRole) {
        switch (index.column()) {
        case TensorCoreEligible:
            return o.tensorCoreEligible ? QStringLiteral("yes") : QStringLiteral("no");
        case TensorCoreShare:
            return o.deviceTotalNs > 0 ? QVariant() : blank();
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    const bool raw = role == Qt::UserRole;
    switch (index.column()) {
    case Name:
        return QString::fromStdString(o.name);
    case Shapes:
        return QString::fromStdString(o.inputShapes);
    case Source:
        return QString::fromStdString(o.sourceLine);
    case FusedOps:
        return fusedOpsOf(o.name);
    case Calls:
        return raw ? QVariant(qlonglong(o.calls)) : QVariant(count(o.calls));
    case SelfCpu:
        return raw ? QVariant(qlonglong(o.selfCpuNs)) : QVariant(ms(double(o.selfCpuNs)));
    case CpuTotal:
        return raw ? QVariant(qlonglong(o.cpuTotalNs)) : QVariant(ms(double(o.cpuTotalNs)));
    case SelfDevice:
        return raw ? QVariant(qlonglong(o.selfDeviceNs)) : QVariant(ms(double(o.selfDeviceNs)));
    case DeviceTotal:
        return raw ? QVariant(qlonglong(o.deviceTotalNs)) : QVariant(ms(double(o.deviceTotalNs)));
    case MeanCpu:
        return raw ? QVariant(o.meanCpuNs()) : QVariant(ms(o.meanCpuNs()));
    case MeanDevice:
        return raw ? QVariant(o.meanDeviceNs()) : QVariant(ms(o.meanDeviceNs()));
    case TensorCoreEligible:
        return raw ? QVariant(int(o.tensorCoreEligible))
                   : QVariant(o.tensorCoreEligible ? QStringLiteral("yes") : QString());
    case TensorCoreShare: {
        // Of its device time, on Tensor Core kernels; blank for ops that launch nothing.
        const double share =
            o.deviceTotalNs > 0 ? double(o.tensorCoreNs) / double(o.deviceTotalNs) : -1.0;
        if (raw)
            return share;
        return share < 0 ? QString() : QString::fromStdString(format::percent(share));
    }
    default:
        return {};
    }
}

QVariant OpTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const ColumnHeader headers[] = {
        {"Operator", "Operator", "", "The operator's name."},
        {"Input shapes", "Input shapes", "",
         "The shapes of its inputs (recorded with record_shapes=True)."},
        {"Source line", "Source line", "",
         "The innermost line of your code around the op (recorded with with_stack=True); the "
         "tooltip "
         "shows the Python frames the row groups on."},
        {"Calls", "Calls", "count", "How many times it ran."},
        {"Self CPU (ms)", "Self CPU", "ns",
         "CPU time in the op itself, without the ops it called."},
        {"CPU total (ms)", "CPU total", "ns", "CPU time including the ops it called."},
        {"Self device (ms)", "Self device", "ns",
         "GPU time of the kernels and copies the op itself launched."},
        {"Device total (ms)", "Device total", "ns",
         "GPU time of everything launched by the op and the ops it called."},
        {"Mean CPU (ms)", "Mean CPU", "ns", "CPU total divided by calls."},
        {"Mean device (ms)", "Mean device", "ns", "Device total divided by calls."},
        {"TC eligible", "TC eligible", "",
         "Whether its kernels can run on Tensor Cores (GEMM, convolution, their backward, fused "
         "attention)."},
        {"On Tensor Cores", "On Tensor Cores", "fraction",
         "The share of its device total spent in Tensor Core kernels."},
        {"Fused ops", "Fused ops", "",
         "A kernel torch.compile generated (its launch op is named after it): the source ops "
         "it fused, as its name lists them."}};
    static_assert(std::size(headers) == Tflops);
    if (section >= Tflops)
        return rooflineHeaderData(RooflineColumn(section - Tflops), role);
    return header(headers[section], role);
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

bool KernelTableModel::hasFusedOps() const
{
    return std::any_of(m_kernels.begin(), m_kernels.end(), [](const analysis::KernelStats& k) {
        return !fusedOpsOf(k.name).isEmpty();
    });
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
        return index.column() != Name && index.column() != FusedOps && index.column() != Op
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    if (index.column() >= Tflops)
        return rooflineCell(m_roofline.kernel(k.name), RooflineColumn(index.column() - Tflops),
                            role);
    if (role == Qt::ToolTipRole && (index.column() == Name || index.column() == FusedOps)) {
        // The whole name, and for a compiled kernel what it is and fused.
        const QString tip = compiledKernelTip(k.name);
        return tip.isEmpty() ? QString::fromStdString(k.name)
                             : QString::fromStdString(k.name) + QLatin1Char('\n') + tip;
    }
    if (role == ExportRole) {
        // The launch configuration as it is, not the product sorting uses; "n/a" as blank.
        const auto dims = [](const int32_t(&v)[3]) {
            return v[0] < 0 ? blank()
                            : QVariant(QStringLiteral("%1x%2x%3").arg(v[0]).arg(v[1]).arg(v[2]));
        };
        switch (index.column()) {
        case Grid:
            return dims(k.grid);
        case Block:
            return dims(k.block);
        case Registers:
            return k.registersPerThread < 0 ? blank() : QVariant();
        case SharedMemory:
            return k.sharedMemoryBytes < 0 ? blank() : QVariant();
        case BlocksPerSm:
            return k.meanBlocksPerSm ? QVariant() : blank();
        case Occupancy:
            return k.meanOccupancyPercent ? QVariant() : blank();
        case TensorCore:
            return data(index, Qt::DisplayRole);
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    const bool raw = role == Qt::UserRole;
    switch (index.column()) {
    case Name:
        return QString::fromStdString(k.name);
    case FusedOps:
        return fusedOpsOf(k.name);
    case Calls:
        return raw ? QVariant(qlonglong(k.calls)) : QVariant(count(k.calls));
    case Total:
        return raw ? QVariant(qlonglong(k.totalNs)) : QVariant(ms(double(k.totalNs)));
    case Mean:
        return raw ? QVariant(k.meanNs()) : QVariant(us(k.meanNs()));
    case Min:
        return raw ? QVariant(qlonglong(k.minNs)) : QVariant(us(double(k.minNs)));
    case Max:
        return raw ? QVariant(qlonglong(k.maxNs)) : QVariant(us(double(k.maxNs)));
    case Grid:
        return raw ? QVariant(qlonglong(k.grid[0]) * std::max(1, k.grid[1]) *
                              std::max(1, k.grid[2]))
                   : QVariant(triple(k.grid));
    case Block:
        return raw ? QVariant(qlonglong(k.block[0]) * std::max(1, k.block[1]) *
                              std::max(1, k.block[2]))
                   : QVariant(triple(k.block));
    case Registers:
        return raw ? QVariant(k.registersPerThread)
                   : QVariant(k.registersPerThread < 0 ? QStringLiteral("n/a")
                                                       : QString::number(k.registersPerThread));
    case SharedMemory:
        return raw ? QVariant(k.sharedMemoryBytes)
                   : QVariant(k.sharedMemoryBytes < 0 ? QStringLiteral("n/a")
                                                      : QString::fromStdString(format::bytes(
                                                            double(k.sharedMemoryBytes))));
    case BlocksPerSm:
        return raw ? QVariant(k.meanBlocksPerSm.value_or(-1.0))
                   : QVariant(k.meanBlocksPerSm ? QString::number(*k.meanBlocksPerSm, 'f', 2)
                                                : QStringLiteral("n/a"));
    case Occupancy:
        return raw ? QVariant(k.meanOccupancyPercent.value_or(-1.0))
                   : QVariant(k.meanOccupancyPercent ? QString::fromStdString(format::percent(
                                                           *k.meanOccupancyPercent / 100.0))
                                                     : QStringLiteral("n/a"));
    case TensorCore:
        if (raw)
            return int(k.unit == analysis::MatrixUnit::TensorCore) -
                   int(k.unit == analysis::MatrixUnit::Simt);
        return k.unit == analysis::MatrixUnit::TensorCore ? QStringLiteral("Tensor Core")
               : k.unit == analysis::MatrixUnit::Simt     ? QStringLiteral("SIMT")
                                                          : QString();
    case Op:
        return QString::fromStdString(k.topOp);
    default:
        return {};
    }
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const ColumnHeader headers[] = {
        {"Kernel", "Kernel", "", "The kernel's name."},
        {"Fused ops", "Fused ops", "",
         "A kernel torch.compile generated: the source ops it fused, as its name lists them."},
        {"Calls", "Calls", "count", "How many times it ran."},
        {"Total (ms)", "Total", "ns", "Sum of its durations."},
        {"Mean (µs)", "Mean", "ns", "Mean duration."},
        {"Min (µs)", "Min", "ns", "Shortest run."},
        {"Max (µs)", "Max", "ns", "Longest run."},
        {"Grid", "Grid", "", "Grid (of its longest run, unless grouped by launch configuration)."},
        {"Block", "Block", "",
         "Block (of its longest run, unless grouped by launch configuration)."},
        {"Registers", "Registers per thread", "count", "Registers per thread."},
        {"Shared mem", "Shared memory per block", "bytes", "Static shared memory per block."},
        {"Blocks/SM", "Blocks per SM", "count",
         "Blocks per SM, mean weighted by duration (recorded by CUPTI)."},
        {"Occupancy", "Occupancy", "%",
         "Estimated achieved occupancy, mean weighted by duration (recorded by CUPTI)."},
        {"Unit", "Unit", "",
         "Tensor Core (or AMD matrix core) or SIMT, as the diagnosis reads the kernel's name; "
         "blank when the name "
         "does not tell."},
        {"Launched by", "Launched by", "",
         "The op that launched most of its time (grouped by op: the op)."}};
    static_assert(std::size(headers) == Tflops);
    if (section >= Tflops)
        return rooflineHeaderData(RooflineColumn(section - Tflops), role);
    return header(headers[section], role);
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
    const int64_t values[] = {0,
                              o.allocations,
                              o.totalAllocations,
                              o.bytes,
                              o.totalBytes,
                              o.selfIncreaseBytes,
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
    static const ColumnHeader headers[] = {
        {"Operator", "Operator", "", "The innermost op around the memory events."},
        {"Allocations (self)", "Self allocations", "count",
         "Allocations made in the op itself, not in an op nested in it."},
        {"Allocations (total)", "Total allocations", "count",
         "Allocations made in the op or any op nested in it."},
        {"Allocated (self)", "Self allocated", "bytes",
         "Bytes allocated in the op itself (frees not subtracted)."},
        {"Allocated (total)", "Total allocated", "bytes",
         "Bytes allocated in the op or any op nested in it."},
        {"Size increase (self)", "Self size increase", "bytes",
         "Bytes allocated less bytes freed, in the op itself."},
        {"Size increase (total)", "Total size increase", "bytes",
         "Bytes allocated less bytes freed, in the op or any op nested in it."}};
    static_assert(std::size(headers) == ColumnCount);
    return header(headers[section], role);
}

}  // namespace kinetoscope::widgets
