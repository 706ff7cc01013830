#include "widgets/timeline/timeline_details.h"

#include "core/format/format.h"
#include "core/timeline/time_ruler.h"
#include "core/trace/event_args.h"
#include "widgets/keyboard_focus.h"
#include "widgets/timeline/timeline_palette.h"

#include <QUrl>

namespace kinetoscope::widgets {

namespace {

constexpr int kMaxListed = 20;  // kernels or rows listed before "and N more"

QString row(const QString& key, const QString& value)
{
    return QStringLiteral("<tr><td style='color:#555;padding-right:12px'>%1</td><td>%2</td></tr>")
        .arg(key, value);
}

}  // namespace

TimelineDetails::TimelineDetails(const timeline::TimelineIndex& index,
                                 const timeline::TrackLayout& layout, QWidget* parent)
    : QTextBrowser(parent), m_index(index), m_layout(layout)
{
    setOpenLinks(false);
    showFocusRing(this);
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("event"))
            Q_EMIT eventRequested(trace::EventId{url.path().toUInt()});
    });
    showHint();
}

QString TimelineDetails::eventLink(trace::EventId event) const
{
    const trace::Event& e = m_index.model().event(event);
    return QStringLiteral("<a href='event:%1'>%2</a> (%3)")
        .arg(event.value)
        .arg(QString::fromUtf8(m_index.model().text(e.name)).toHtmlEscaped(),
             QString::fromStdString(format::duration(e.durationNs)));
}

QString TimelineDetails::trackLabel(trace::EventId event) const
{
    const uint32_t lane = m_index.laneOf(event);
    const trace::TrackId track = m_index.lanes()[lane].track;
    uint32_t first = lane;
    while (first > 0 && m_index.lanes()[first - 1].track == track)
        --first;
    for (const timeline::TrackGroup& g : m_layout.groups())
        if (lane >= g.firstLane && lane < g.lastLane)
            return QString::fromStdString(g.label + " / " + m_layout.laneLabel(first));
    return QString::fromStdString(m_layout.laneLabel(first));
}

QSize TimelineDetails::minimumSizeHint() const
{
    return {QTextBrowser::minimumSizeHint().width(), 0};
}

void TimelineDetails::showHint()
{
    setHtml(tr("<p style='color:#666'>Click a slice for its details, Shift+drag (or drag on the "
               "ruler) to total a "
               "range. Wheel or W/S zoom, drag or A/D pan, F zooms to the selection, 0 fits the "
               "trace, Home "
               "returns to the first steady step; click or drag the overview to move there.</p>"));
}

void TimelineDetails::showEvent(trace::EventId event)
{
    if (!event.valid()) {
        showHint();
        return;
    }
    const trace::TraceModel& model = m_index.model();
    const trace::Event& e = model.event(event);
    QString html = QStringLiteral("<p><b>%1</b></p><table>")
                       .arg(QString::fromUtf8(model.text(e.name)).toHtmlEscaped());
    html += row(tr("Category"), sliceCategoryLabel(e.category));
    html += row(tr("Track"), trackLabel(event).toHtmlEscaped());
    html += row(tr("Start"),
                QString::fromStdString(timeline::formatTime(e.startNs - model.beginNs(), 1)) +
                    tr(" after the trace's first event"));
    html += row(tr("Duration"), QString::fromStdString(format::duration(e.durationNs)) +
                                    QStringLiteral(" (%1 ns)").arg(e.durationNs));
    if (const trace::StringId shapes = model.inputShapes(event); shapes.valid())
        html += row(tr("Input shapes"), QString::fromUtf8(model.text(shapes)).toHtmlEscaped());
    if (const trace::KernelInfo* k = model.kernelInfo(event)) {
        html += row(tr("Grid / block"), QStringLiteral("[%1, %2, %3] / [%4, %5, %6]")
                                            .arg(k->grid[0])
                                            .arg(k->grid[1])
                                            .arg(k->grid[2])
                                            .arg(k->block[0])
                                            .arg(k->block[1])
                                            .arg(k->block[2]));
        if (k->registersPerThread >= 0)
            html += row(tr("Registers / thread"), QString::number(k->registersPerThread));
        if (k->occupancyPercent >= 0)
            html +=
                row(tr("Est. achieved occupancy"),
                    QString::fromStdString(format::percent(double(k->occupancyPercent) / 100.0)));
    }
    if (const trace::CopyInfo* c = model.copyInfo(event); c && c->bytes >= 0)
        html += row(tr("Bytes"), QString::fromStdString(format::bytes(double(c->bytes))));
    // Where it came from and what it started.
    if (trace::isGpuActivity(e.category)) {
        if (e.correlated.valid())
            html += row(tr("Launched by"), eventLink(e.correlated));
        if (e.op.valid())
            html += row(tr("From op"), eventLink(e.op));
    } else {
        const std::vector<timeline::FlowLink> links =
            timeline::linksOf(model, event, kMaxListed + 1);
        if (trace::isLaunchCall(e.category) && e.op.valid())
            html += row(tr("From op"), eventLink(e.op));
        QStringList started;
        for (size_t i = 0; i < links.size() && i < size_t(kMaxListed); ++i)
            started << eventLink(links[i].to);
        if (links.size() > size_t(kMaxListed))
            started << tr("and more");
        if (!started.isEmpty())
            html += row(tr("Launched on the GPU"), started.join(QStringLiteral("<br>")));
    }
    html += QStringLiteral("</table>");
    // The args are not kept in memory: read back from the file now.
    const std::optional<std::vector<trace::Arg>> args = trace::readArgs(model, event);
    if (!args) {
        html += tr("<p style='color:#666'>Args: the trace file can no longer be read.</p>");
    } else if (!args->empty()) {
        html += tr("<p><b>Args</b></p><table>");
        for (const trace::Arg& arg : *args)
            html += row(QString::fromStdString(arg.key).toHtmlEscaped(),
                        QString::fromStdString(trace::argText(arg.value)).toHtmlEscaped());
        html += QStringLiteral("</table>");
    }
    setHtml(html);
}

void TimelineDetails::showTotals(const timeline::RangeTotals& totals)
{
    QString html =
        tr("<p><b>Range of %1</b> from %2 to %3 after the trace's first event</p>")
            .arg(QString::fromStdString(format::duration(totals.endNs - totals.beginNs)),
                 QString::fromStdString(
                     timeline::formatTime(totals.beginNs - m_index.model().beginNs(), 1000)),
                 QString::fromStdString(
                     timeline::formatTime(totals.endNs - m_index.model().beginNs(), 1000)));
    html += tr("<p>%1, %2 of slice time in the range.</p>")
                .arg(QString::fromStdString(format::counted(uint64_t(totals.slices), "slice")))
                .arg(QString::fromStdString(format::duration(totals.totalNs)));
    // Cells keep a gap after them, as the details' rows do ("ProfilerStep#2Annotation" read
    // as one word).
    html += tr("<table><tr><th align='left' style='padding-right:12px'>Name</th><th "
               "align='left' style='padding-right:12px'>Category</th><th align='right' "
               "style='padding-right:12px'>Count</th><th align='right'>Time in range</th></tr>");
    for (size_t i = 0; i < totals.byName.size() && i < size_t(kMaxListed); ++i) {
        const timeline::RangeTotalsRow& r = totals.byName[i];
        html +=
            QStringLiteral(
                "<tr><td style='padding-right:12px'>%1</td><td style='padding-right:12px'>%2</td>"
                "<td align='right' style='padding-right:12px'>%3</td><td "
                "align='right'>%4</td></tr>")
                .arg(QString::fromStdString(r.name).left(120).toHtmlEscaped(),
                     sliceCategoryLabel(r.category))
                .arg(r.count)
                .arg(QString::fromStdString(format::duration(r.totalNs)));
    }
    html += QStringLiteral("</table>");
    if (totals.byName.size() > size_t(kMaxListed))
        html += tr("<p style='color:#666'>and %1 more names</p>")
                    .arg(totals.byName.size() - size_t(kMaxListed));
    setHtml(html);
}

}  // namespace kinetoscope::widgets
