#include "widgets/report.h"

#include "core/format/format.h"
#include "widgets/breakdown_chart.h"
#include "widgets/findings_view.h"
#include "widgets/lab_html.h"
#include "widgets/memory_chart.h"
#include "widgets/overview_view.h"
#include "widgets/utilization_chart.h"

#include <QBuffer>
#include <QDateTime>
#include <QFileInfo>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextDocument>

namespace kinetoscope::widgets {

namespace {

constexpr int kChartWidth = 1000;

struct Images
{
    QImage breakdown, utilization, memory;
};

Images renderCharts(const document::Document& trace)
{
    Images images;
    if (!trace.hasTrace())
        return images;  // a lab session without a trace: its figures are tables
    BreakdownChart breakdown;
    breakdown.resize(kChartWidth, 320);
    breakdown.setBreakdown(trace.summary.steps, trace.summary.breakdown.all);
    images.breakdown = breakdown.toPixmap(kChartWidth, 320, 2.0).toImage();
    UtilizationChart utilization;
    utilization.resize(kChartWidth, 260);
    utilization.setSeries(trace.summary.utilization, trace.summary.steps);
    images.utilization = utilization.toPixmap(kChartWidth, 260, 2.0).toImage();
    if (!trace.summary.memory.empty()) {
        MemoryChart memory;
        memory.resize(kChartWidth, 280);
        memory.setMemory(trace.summary.memory, trace.summary.steps,
                         trace.summary.utilization.beginNs);
        images.memory = memory.toPixmap(kChartWidth, 280, 2.0).toImage();
    }
    return images;
}

// `src(name)` maps an image name to what the <img> tag should reference.
template <typename Src>
QString reportHtml(const document::Document& trace, const Images& images, Src src)
{
    const QString file = QFileInfo(QString::fromStdString(trace.path)).fileName().toHtmlEscaped();
    QString html =
        QStringLiteral("<html><head><meta charset=\"utf-8\"><title>Kinetoscope: %1</title></head>"
                       "<body style=\"font-family:sans-serif\">")
            .arg(file);
    html += QStringLiteral("<h1>Why is this run slow? — %1</h1>").arg(file);
    const QString read =
        trace.hasTrace() ? QStringLiteral("%1 · loaded in %2, analysed in %3")
                               .arg(QString::fromStdString(
                                        format::counted(trace.summary.steps.steps.size(), "step")),
                                    QString::fromStdString(format::seconds(trace.loadSeconds)),
                                    QString::fromStdString(format::seconds(trace.analysisSeconds)))
                         : QStringLiteral("a lab session without a trace");
    html += QStringLiteral("<p style=\"color:#616161\">Kinetoscope %1 · %2 · %3</p>")
                .arg(QStringLiteral(KINETOSCOPE_VERSION),
                     QDateTime::currentDateTime().toString(Qt::ISODate), read);
    if (trace.hasTrace())
        html += keyFiguresHtml(trace);
    else
        html += QStringLiteral(
            "<p><b>What this is:</b> a lab session recorded without a trace: the figures and "
            "findings below are what the lab measured. The trace's breakdown, utilisation and "
            "findings need a run with <code>--profile</code>.</p>");
    if (trace.session)
        html += QStringLiteral("<h2>What the lab measured</h2>") + labHtml(*trace.session);
    // Both dimensions given: QTextDocument lays an image out at its own size otherwise.
    const int width = 680;
    auto image = [&](const char* title, const char* name, const QImage& img) {
        if (img.isNull())
            return;
        const int height = img.width() > 0 ? width * img.height() / img.width() : 0;
        html += QStringLiteral("<h2>%1</h2><p><img src=\"%2\" width=\"%3\" height=\"%4\"></p>")
                    .arg(QLatin1String(title), src(name), QString::number(width),
                         QString::number(height));
    };
    image("Step-time breakdown", "breakdown", images.breakdown);
    image("Utilisation over time", "utilization", images.utilization);
    image("Memory", "memory", images.memory);
    html += QStringLiteral("<h2>Findings</h2>");
    if (trace.findings.empty())
        html +=
            trace.hasTrace()
                ? QStringLiteral(
                      "<p>No finding: nothing in this trace crosses a rule's threshold.</p>")
                : QStringLiteral(
                      "<p>No finding: nothing the lab measured crosses a rule's threshold.</p>");
    for (size_t i = 0; i < trace.findings.size(); ++i)
        html += findingHtml(trace.findings[i], int(i) + 1);
    html += QStringLiteral("</body></html>");
    return html;
}

QByteArray pngBytes(const QImage& image)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

void addImages(QTextDocument& doc, const Images& images)
{
    if (!images.breakdown.isNull())
        doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("breakdown")),
                        images.breakdown);
    if (!images.utilization.isNull())
        doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("utilization")),
                        images.utilization);
    if (!images.memory.isNull())
        doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("memory")),
                        images.memory);
}

}  // namespace

bool printDocument(QTextDocument& doc, const QString& suffix, QIODevice& out, QString* error)
{
    if (suffix == QLatin1String("pdf")) {
        QPdfWriter writer(&out);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setResolution(150);
        writer.setTitle(QStringLiteral("Kinetoscope report"));
        writer.setCreator(QStringLiteral("Kinetoscope"));
        doc.setPageSize(QSizeF(writer.width(), writer.height()));
        doc.print(&writer);
        return true;
    }
    doc.setTextWidth(820);
    QImage image(QSize(820, int(doc.size().height()) + 1) * 2, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(2.0);
    image.fill(Qt::white);
    QPainter painter(&image);
    doc.drawContents(&painter);
    painter.end();
    if (image.save(&out, "PNG"))
        return true;
    if (error)
        *error = QStringLiteral("could not encode the PNG");
    return false;
}

bool writeReport(const document::Document& trace, const QString& path, QString* error)
{
    auto fail = [&](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    if (!trace.model && !trace.session)
        return fail(QStringLiteral("no trace to report on"));
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("pdf") && suffix != QLatin1String("png") &&
        suffix != QLatin1String("html"))
        return fail(
            QStringLiteral("unknown report format '.%1' (use .pdf, .png or .html)").arg(suffix));
    const Images images = renderCharts(trace);
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly))
        return fail(QStringLiteral("cannot write %1: %2").arg(path, out.errorString()));

    if (suffix == QLatin1String("html")) {
        const QString html = reportHtml(trace, images, [&](const char* name) {
            const QImage& image =
                QLatin1String(name) == QLatin1String("breakdown")     ? images.breakdown
                : QLatin1String(name) == QLatin1String("utilization") ? images.utilization
                                                                      : images.memory;
            return QStringLiteral("data:image/png;base64,") +
                   QString::fromLatin1(pngBytes(image).toBase64());
        });
        out.write(html.toUtf8());
    } else {
        QTextDocument doc;
        addImages(doc, images);
        doc.setHtml(
            reportHtml(trace, images, [](const char* name) { return QString::fromLatin1(name); }));
        if (!printDocument(doc, suffix, out, error))
            return false;
    }
    if (!out.commit())
        return fail(QStringLiteral("cannot write %1: %2").arg(path, out.errorString()));
    return true;
}

}  // namespace kinetoscope::widgets
