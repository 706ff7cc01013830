#pragma once
// A report written from Markdown, laid out by Qt as PDF, PNG or HTML (or the Markdown
// itself): the exports whose words are the CLI's (`diff --markdown`, a job's diagnosis),
// so the app and the command line say the same thing. Charts are appended as images,
// each under its own heading (not in the .md, which stays the CLI's text).
#include <QImage>
#include <QString>
#include <string>
#include <vector>

namespace kinetoscope::widgets {

struct ReportImage
{
    QString title;  // the heading above it
    QImage image;
};

// The format comes from the extension of `path` (.pdf, .png, .html, .md). Written
// atomically: an existing file is replaced only once the new one is complete.
bool writeMarkdownReport(const std::string& markdown, const std::vector<ReportImage>& images,
                         const QString& path, QString* error = nullptr);

}  // namespace kinetoscope::widgets
