#include "widgets/markdown_report.h"

#include "widgets/report.h"

#include <QBuffer>
#include <QFileInfo>
#include <QSaveFile>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextImageFormat>
#include <QUrl>

namespace kinetoscope::widgets {

namespace {

constexpr int kImageWidth = 680;  // laid-out width of a chart, in the document's pixels

QString resourceName(size_t index)
{
    return QStringLiteral("report-image-%1").arg(index);
}

QString pngDataUrl(const QImage& image)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(bytes.toBase64());
}

// Each image under a level-2 heading, after the text. Both dimensions are given: the
// document lays an image out at its own size otherwise.
void appendImages(QTextDocument& doc, const std::vector<ReportImage>& images)
{
    QTextCursor cursor(&doc);
    cursor.movePosition(QTextCursor::End);
    for (size_t i = 0; i < images.size(); ++i) {
        const QImage& image = images[i].image;
        if (image.isNull() || image.width() == 0)
            continue;
        doc.addResource(QTextDocument::ImageResource, QUrl(resourceName(i)), image);
        cursor.insertHtml(QStringLiteral("<h2>%1</h2>").arg(images[i].title.toHtmlEscaped()));
        cursor.insertBlock();
        QTextImageFormat format;
        format.setName(resourceName(i));
        format.setWidth(kImageWidth);
        format.setHeight(double(kImageWidth) * image.height() / image.width());
        cursor.insertImage(format);
    }
}

}  // namespace

bool writeMarkdownReport(const std::string& markdown, const std::vector<ReportImage>& images,
                         const QString& path, QString* error)
{
    auto fail = [&](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("pdf") && suffix != QLatin1String("png") &&
        suffix != QLatin1String("html") && suffix != QLatin1String("md"))
        return fail(QStringLiteral("unknown report format '.%1' (use .pdf, .png, .html or .md)")
                        .arg(suffix));
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly))
        return fail(QStringLiteral("cannot write %1: %2").arg(path, out.errorString()));
    if (suffix == QLatin1String("md")) {
        out.write(markdown.data(), qint64(markdown.size()));
    } else {
        QTextDocument doc;
        doc.setMarkdown(QString::fromStdString(markdown));
        appendImages(doc, images);
        if (suffix == QLatin1String("html")) {
            // One self-contained file: the images travel inside it.
            QString html = doc.toHtml();
            for (size_t i = 0; i < images.size(); ++i)
                if (!images[i].image.isNull())
                    html.replace(QStringLiteral("src=\"%1\"").arg(resourceName(i)),
                                 QStringLiteral("src=\"%1\"").arg(pngDataUrl(images[i].image)));
            out.write(html.toUtf8());
        } else if (!printDocument(doc, suffix, out, error)) {
            return false;
        }
    }
    if (!out.commit())
        return fail(QStringLiteral("cannot write %1: %2").arg(path, out.errorString()));
    return true;
}

}  // namespace kinetoscope::widgets
