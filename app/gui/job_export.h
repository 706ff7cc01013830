#pragma once
// A job's report: `kinetoscope report DIR|FILES...` and the Job tab's File > Export
// report write the same thing, the Markdown of the CLI's job diagnosis (with the ranks
// table and the collectives waited on longest) and the rank x step heatmap as drawn.
#include <QString>

namespace kinetoscope::widgets {
class JobView;
}

namespace kinetoscope::gui {

// The format comes from the extension of `path` (.pdf, .png, .html, .md); written atomically.
bool writeJobReport(const widgets::JobView& view, const QString& path, QString* error = nullptr);

}  // namespace kinetoscope::gui
