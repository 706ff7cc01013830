#pragma once
// Colours of the timeline: one hue per event category (shown in the legend), a small
// lightness shift per name so neighbouring slices stay apart, and the overlay colours.
#include "core/trace/category.h"

#include <QColor>
#include <QString>

namespace kinetoscope::widgets {

QColor sliceCategoryColor(trace::Category category);
// The category colour, lighter or darker by a few percent depending on the name.
QColor sliceColor(trace::Category category, uint32_t nameId);
QString sliceCategoryLabel(trace::Category category);  // "CPU op", "Kernel", ...

namespace timeline_colors {
inline const QColor kSelection{20, 20, 20};
inline const QColor kSearchMatch{255, 196, 0};
inline const QColor kFlowArrow{200, 30, 60};
inline const QColor kRangeFill{60, 120, 220, 40};
inline const QColor kRangeEdge{60, 120, 220};
inline const QColor kStepLine{90, 90, 90, 140};
inline const QColor kGroupBackground{232, 235, 240};
inline const QColor kLabelBackground{246, 247, 249};
inline const QColor kOverviewBusy{64, 160, 110, 200};  // the overview's busy sparkline
inline const QColor kFoldBackground{236, 242, 232};    // a fold of Python frames
inline const QColor kOverlapMarker{214, 120, 0};       // rows of events overlapping without nesting
}  // namespace timeline_colors

}  // namespace kinetoscope::widgets
