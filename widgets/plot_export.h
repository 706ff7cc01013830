#pragma once
// Copy a plot to the clipboard or save it as PNG, SVG or PDF at a chosen size; the
// context menu every chart gets.
#include <QString>

class QCustomPlot;

namespace kinetoscope::widgets {

// Format from the file's extension (png, svg, pdf). Size in pixels (points for PDF);
// 0 keeps the on-screen size. Returns false with `error` set on failure.
bool savePlot(QCustomPlot& plot, const QString& path, int width, int height,
              QString* error = nullptr);
void copyPlotToClipboard(QCustomPlot& plot);
// Adds "Copy", "Save as..." to the plot's context menu.
void installPlotExportMenu(QCustomPlot& plot);

}  // namespace kinetoscope::widgets
