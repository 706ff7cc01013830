#pragma once
// The exported report: one page with the key figures, the plots and the findings, as
// PDF, PNG or HTML (images embedded). Used by File > Export report and by
// `kinetoscope report`, so both produce the same document. Needs a QApplication
// (the offscreen platform is enough).
#include "core/document/document.h"

#include <QIODevice>
#include <QString>
#include <QTextDocument>

namespace kinetoscope::widgets {

// The format comes from the extension of `path` (.pdf, .png, .html). Written atomically:
// an existing file is replaced only once the new one is complete.
// Writes a laid-out document as PDF (A4) or PNG ("pdf" or "png"), for every report.
bool printDocument(QTextDocument& doc, const QString& suffix, QIODevice& out,
                   QString* error = nullptr);

bool writeReport(const document::Document& trace, const QString& path, QString* error = nullptr);

}  // namespace kinetoscope::widgets
