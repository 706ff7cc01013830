#include "widgets/roofline/roofline_columns.h"

#include "core/format/format.h"
#include "widgets/table_export.h"

namespace kinetoscope::widgets {

using namespace kinetoscope::roofline;

void RooflineLookup::set(const Roofline& roofline)
{
    m_ops.clear();
    m_byName.clear();
    m_kernels.clear();
    // By name: the groups' work and time summed, judged against the roofs of its costliest
    // group (ops are sorted by device time, so the first group of a name is it).
    struct Sum
    {
        double flops = 0, bytes = 0;
        int64_t ns = 0;
        Roofs roofs;
    };
    std::map<std::string, Sum> sums;
    for (const OpRoofline& o : roofline.ops) {
        m_ops[{o.name, o.inputShapes}] = {o.rating, o.unmodelled, o.note};
        if (!o.modelled())
            continue;
        auto [it, fresh] = sums.try_emplace(o.name);
        if (fresh)
            it->second.roofs = o.rating.roofs;
        it->second.flops += o.flopsPerCall * double(o.calls);
        it->second.bytes += o.bytesPerCall * double(o.calls);
        it->second.ns += o.deviceNs;
    }
    for (const auto& [name, s] : sums) {
        RooflineFigures f;
        f.rating = rate(s.flops, s.bytes, s.ns, s.roofs);
        m_byName[name] = f;
    }
    for (const KernelRoofline& k : roofline.kernels)
        m_kernels[k.name] = {k.rating, {}, {}};
}

const RooflineFigures* RooflineLookup::op(const std::string& name,
                                          const std::string& inputShapes) const
{
    const auto it = m_ops.find({name, inputShapes});
    return it == m_ops.end() ? nullptr : &it->second;
}

const RooflineFigures* RooflineLookup::opName(const std::string& name) const
{
    const auto it = m_byName.find(name);
    return it == m_byName.end() ? nullptr : &it->second;
}

const RooflineFigures* RooflineLookup::kernel(const std::string& name) const
{
    const auto it = m_kernels.find(name);
    return it == m_kernels.end() ? nullptr : &it->second;
}

QVariant rooflineCell(const RooflineFigures* figures, RooflineColumn column, int role)
{
    const bool rated = figures && figures->unmodelled.empty() && figures->rating.intensity > 0;
    if (role == Qt::ToolTipRole) {
        if (!figures)
            return QStringLiteral(
                "Not rated: no work model for this op, or its time is charged to the op around it");
        if (!figures->unmodelled.empty())
            return QStringLiteral("Not rated: %1").arg(QString::fromStdString(figures->unmodelled));
        if (!figures->note.empty())
            return QString::fromStdString(figures->note);
        return {};
    }
    if (role == ExportRole) {
        if (!rated || (column == RooflineColumn::OfRoof && figures->rating.attainableTflops <= 0))
            return QString();
        if (column == RooflineColumn::Bound)
            return rooflineCell(figures, column, Qt::DisplayRole);
        return {};  // the raw number
    }
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    const bool raw = role == Qt::UserRole;
    if (!rated)
        return raw ? QVariant(-1.0) : QVariant(QString());
    const Rating& r = figures->rating;
    switch (column) {
    case RooflineColumn::Tflops:
        return raw ? QVariant(r.achievedTflops)
                   : QVariant(QString::fromStdString(format::number(r.achievedTflops)));
    case RooflineColumn::Gbps:
        return raw ? QVariant(r.achievedGbps)
                   : QVariant(QString::fromStdString(format::number(r.achievedGbps)));
    case RooflineColumn::Intensity:
        return raw ? QVariant(r.intensity)
                   : QVariant(QString::fromStdString(format::number(r.intensity)));
    case RooflineColumn::Bound:
        if (raw)
            return int(r.bound);
        return r.bound == Bound::Unknown ? QString() : QString::fromLatin1(boundName(r.bound));
    case RooflineColumn::OfRoof:
        if (r.attainableTflops <= 0)
            return raw ? QVariant(-1.0) : QVariant(QString());
        if (raw)
            return r.shareOfRoof;
        return QString::fromStdString(format::percent(r.shareOfRoof)) +
               (r.abovePeak ? QStringLiteral(" ⚠") : QString());
    }
    return {};
}

QString rooflineHeader(RooflineColumn column)
{
    switch (column) {
    case RooflineColumn::Tflops:
        return QStringLiteral("TFLOP/s");
    case RooflineColumn::Gbps:
        return QStringLiteral("GB/s");
    case RooflineColumn::Intensity:
        return QStringLiteral("FLOP/byte");
    case RooflineColumn::Bound:
        return QStringLiteral("Bound");
    case RooflineColumn::OfRoof:
        return QStringLiteral("Of roof");
    }
    return {};
}

QString rooflineColumnName(RooflineColumn column)
{
    switch (column) {
    case RooflineColumn::Tflops:
        return QStringLiteral("Achieved compute");
    case RooflineColumn::Gbps:
        return QStringLiteral("Achieved bandwidth");
    case RooflineColumn::Intensity:
        return QStringLiteral("Arithmetic intensity");
    case RooflineColumn::Bound:
        return QStringLiteral("Bound");
    case RooflineColumn::OfRoof:
        return QStringLiteral("Of roof");
    }
    return {};
}

QString rooflineUnit(RooflineColumn column)
{
    switch (column) {
    case RooflineColumn::Tflops:
        return QStringLiteral("TFLOP/s");
    case RooflineColumn::Gbps:
        return QStringLiteral("GB/s");
    case RooflineColumn::Intensity:
        return QStringLiteral("FLOP/byte");
    case RooflineColumn::Bound:
        return {};
    case RooflineColumn::OfRoof:
        return QStringLiteral("fraction");
    }
    return {};
}

QString rooflineHeaderTip(RooflineColumn column)
{
    switch (column) {
    case RooflineColumn::Tflops:
        return QStringLiteral(
            "Achieved TFLOP/s: the FLOPs its recorded shapes imply over its kernels' time.");
    case RooflineColumn::Gbps:
        return QStringLiteral(
            "Achieved GB/s: the least bytes it must move (inputs read once, outputs written "
            "once) over its kernels' time.");
    case RooflineColumn::Intensity:
        return QStringLiteral("Arithmetic intensity: FLOPs per byte moved.");
    case RooflineColumn::Bound:
        return QStringLiteral(
            "Which roof caps it at its intensity: the device's compute peak for its precision, "
            "or its memory bandwidth.");
    case RooflineColumn::OfRoof:
        return QStringLiteral(
            "Achieved over what its roof allows at its intensity. ⚠: above a roof, so the work "
            "model or the peak is wrong for it (the tooltip says which).");
    }
    return {};
}

}  // namespace kinetoscope::widgets
