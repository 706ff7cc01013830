#pragma once
// Colours, fonts and axis conventions shared by every chart, so the views and the
// exported report look like one product.
#include "core/analysis/breakdown.h"

#include <QColor>
#include <QString>

class QCustomPlot;

namespace kinetoscope::widgets {

QColor categoryColor(analysis::TimeCategory category);
QString categoryLabel(analysis::TimeCategory category);  // "Kernel", "CPU exec", ...
// A one-sentence explanation of a breakdown category, for tooltips.
QString categoryTooltip(analysis::TimeCategory category);
// The text colour (white or the light theme's near-black) that reads best on `fill`: for a
// label drawn on a bar.
QColor textColorOn(const QColor& fill);
// WCAG's contrast ratio of two colours: 1 (the same) to 21 (black on white).
double contrastRatio(const QColor& a, const QColor& b);
// Light plot background, readable fonts, no adaptive sampling in exports.
void applyChartStyle(QCustomPlot& plot);
// Keeps every text label inside its plot: in each replot, once the layout is known and before
// drawing, a label that would be drawn past the axes (clipped to them) or the widget turns to
// the side of its anchor that keeps it in. Costs no second replot. applyChartStyle installs it.
void keepLabelsInside(QCustomPlot& plot);
// Shows the legend in its own column right of the axes, top-aligned: a legend never
// covers data (inside the axes it hid the last bars and the average's label).
void showLegendBeside(QCustomPlot& plot);
// The legend in a row under the plot, `columns` entries wide: for a plot of many curves
// in a narrow cell.
void showLegendBelow(QCustomPlot& plot, int columns);

}  // namespace kinetoscope::widgets
