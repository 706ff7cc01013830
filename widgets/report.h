#pragma once
// The exported report: one page with the key figures, the plots and the findings, as
// PDF, PNG or HTML (images embedded). Used by File > Export report and by
// `kinetoscope report`, so both produce the same document. Needs a QApplication
// (the offscreen platform is enough).
#include "core/document/document.h"

#include <QString>

namespace kinetoscope::widgets {

// The format comes from the extension of `path` (.pdf, .png, .html). Written atomically:
// an existing file is replaced only once the new one is complete.
bool writeReport(const document::Document& trace, const QString& path, QString* error = nullptr);

}  // namespace kinetoscope::widgets
