#pragma once
// The roofline's columns on the Operators and Kernels tables: achieved TFLOP/s and GB/s,
// arithmetic intensity, the bound and the share of its roof, looked up per row.
#include "core/roofline/roofline.h"

#include <QString>
#include <QVariant>
#include <map>
#include <string>
#include <utility>

namespace kinetoscope::widgets {

enum class RooflineColumn
{
    Tflops,
    Gbps,
    Intensity,
    Bound,
    OfRoof
};
inline constexpr int kRooflineColumnCount = 5;

// One row's figures: a rated op group, a by-name total of them, or a rated kernel.
struct RooflineFigures
{
    roofline::Rating rating;
    std::string unmodelled;  // why an op in the catalogue has no figures
    std::string note;        // above a roof: why
};

class RooflineLookup
{
public:
    void set(const roofline::Roofline& roofline);
    const RooflineFigures* op(const std::string& name, const std::string& inputShapes) const;
    const RooflineFigures* opName(const std::string& name) const;  // its rated groups together
    const RooflineFigures* kernel(const std::string& name) const;
    bool empty() const { return m_byName.empty() && m_kernels.empty(); }

private:
    std::map<std::pair<std::string, std::string>, RooflineFigures> m_ops;
    std::map<std::string, RooflineFigures> m_byName;
    std::map<std::string, RooflineFigures> m_kernels;
};

// A cell: Qt::DisplayRole text, Qt::UserRole the raw number for sorting (-1 when blank),
// Qt::ToolTipRole why it is blank or flagged, ExportRole (table_export.h) a blank or the
// bound's name where the raw number is only a sort key. `figures` may be null (not rated).
QVariant rooflineCell(const RooflineFigures* figures, RooflineColumn column, int role);
QString rooflineHeader(RooflineColumn column);
QString rooflineHeaderTip(RooflineColumn column);
// For the CSV export: the column's name and the unit of its raw numbers ("" for the bound).
QString rooflineColumnName(RooflineColumn column);
QString rooflineUnit(RooflineColumn column);

}  // namespace kinetoscope::widgets
