#include "widgets/lab_html.h"

#include "core/format/format.h"
#include "core/session/lab_reading.h"
#include "core/session/memory_reading.h"

#include <QStringList>

namespace kinetoscope::widgets {

namespace {

QString text(const std::string& s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

QString ms(double milliseconds)
{
    return text(format::duration(milliseconds * 1e6));
}

QString bytes(int64_t value)
{
    return value < 0 ? QStringLiteral("—") : text(format::bytes(double(value)));
}

// One table: a header row, then rows; numbers right-aligned (every cell but the first).
QString table(const QStringList& header, const std::vector<QStringList>& rows)
{
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\" border=\"0\"><tr>");
    for (const QString& h : header)
        html += QStringLiteral("<th align=\"left\" style=\"color:#616161\">%1</th>").arg(h);
    html += QStringLiteral("</tr>");
    for (const QStringList& row : rows) {
        html += QStringLiteral("<tr>");
        for (qsizetype i = 0; i < row.size(); ++i)
            html += QStringLiteral("<td align=\"%1\">%2</td>")
                        .arg(i == 0 ? QStringLiteral("left") : QStringLiteral("right"), row[i]);
        html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}

QString armsHtml(const session::Session& s)
{
    // An inference run's arms carry latency percentiles; a training run's, a step time.
    const bool latency = s.inference();
    std::vector<QStringList> rows;
    for (const session::LabArm& arm : s.lab) {
        if (!arm.ran) {
            rows.push_back({QString::fromLatin1(arm.name()),
                            QStringLiteral("not run: %1").arg(text(arm.skippedReason))});
            continue;
        }
        QStringList row{QString::fromLatin1(arm.name()),
                        text(format::rate(arm.samplesPerSecond, "samples")),
                        latency ? ms(arm.latency.meanMs) : ms(arm.meanStepMs)};
        if (latency)
            row << QStringLiteral("p50 %1, p95 %2, p99 %3")
                       .arg(ms(arm.latency.medianMs), ms(arm.latency.p95Ms), ms(arm.latency.p99Ms));
        row << bytes(arm.peakAllocatedBytes);
        rows.push_back(row);
    }
    if (rows.empty())
        return {};
    QStringList header{QStringLiteral("arm"), QStringLiteral("throughput"),
                       latency ? QStringLiteral("latency (mean)") : QStringLiteral("step")};
    if (latency)
        header << QStringLiteral("percentiles");
    header << QStringLiteral("peak");
    return QStringLiteral("<h3>Arms</h3>") + table(header, rows);
}

QString phasesHtml(const session::Session& s)
{
    if (s.phases.empty())
        return {};
    std::vector<QStringList> rows;
    for (const session::PhaseTiming& p : s.phases)
        rows.push_back(
            {text(p.phase), ms(p.meanMs), ms(p.stdMs), ms(p.medianMs), ms(p.p95Ms), ms(p.p99Ms)});
    return QStringLiteral("<h3>Phases of the fp32 arm</h3>") +
           table({QStringLiteral("phase"), QStringLiteral("mean"), QStringLiteral("std"),
                  QStringLiteral("median"), QStringLiteral("p95"), QStringLiteral("p99")},
                 rows);
}

QString memoryHtml(const session::MemoryTriage& m)
{
    bool anyReserved = false;
    for (const auto* rows : {&m.firstStep, &m.steadyStep})
        for (const session::PhaseMemory& r : *rows)
            anyReserved |= r.reservedBytes >= 0;
    std::vector<QStringList> rows;
    for (const auto* phases : {&m.firstStep, &m.steadyStep})
        for (const session::PhaseMemory& r : *phases) {
            QStringList row{
                (phases == &m.firstStep ? QStringLiteral("step 0: ") : QStringLiteral("steady: ")) +
                    text(r.phase),
                bytes(r.allocatedBytes)};
            if (anyReserved)
                row << bytes(r.reservedBytes);
            row << bytes(r.peakAllocatedBytes);
            rows.push_back(row);
        }
    QStringList header{QStringLiteral("after"), QStringLiteral("allocated")};
    if (anyReserved)
        header << QStringLiteral("reserved");
    header << QStringLiteral("peak");
    QString html = QStringLiteral("<h3>Memory after each phase</h3>");
    if (!m.unavailable.empty())
        html += QStringLiteral("<p style=\"color:#616161\">%1</p>").arg(text(m.unavailable));
    if (!rows.empty())
        html += table(header, rows);
    const session::MemorySplit& split = m.split;
    html += QStringLiteral(
                "<p>Parameters %1 (%2), gradients %3, optimizer state %4, activations %5.</p>")
                .arg(bytes(split.parameterBytes), text(format::count(split.parameterCount)),
                     bytes(split.gradientBytes), bytes(split.optimizerStateBytes),
                     bytes(split.activationBytes));
    return html;
}

QString sweepHtml(const session::Session& s)
{
    if (s.sweep.empty())
        return {};
    std::vector<QStringList> rows;
    for (const session::SweepPoint& p : s.sweep) {
        const QString knob =
            text(p.knob) + QStringLiteral(" = ") + QString::number(p.value) +
            (p.checkpointEvery > 0
                 ? QStringLiteral(" (%1)").arg(text(session::checkpointingName(p.checkpointEvery)))
                 : QString());
        if (!p.error.empty())
            rows.push_back({knob, text(p.error)});
        else
            rows.push_back({knob, text(format::rate(p.samplesPerSecond, "samples")),
                            p.latency.phase.empty() ? ms(p.meanStepMs) : ms(p.latency.medianMs),
                            bytes(p.peakAllocatedBytes)});
    }
    return QStringLiteral("<h3>Sweep</h3>") +
           table({QStringLiteral("point"), QStringLiteral("throughput"),
                  s.inference() ? QStringLiteral("latency p50") : QStringLiteral("step"),
                  QStringLiteral("peak")},
                 rows);
}

}  // namespace

QString labHtml(const session::Session& s)
{
    QString html = armsHtml(s) + phasesHtml(s);  // the split is in the reading below
    if (s.memory)
        html += memoryHtml(*s.memory);
    html += sweepHtml(s);
    const session::LabReading reading = session::readLab(s);
    if (!reading.lines.empty()) {
        html += QStringLiteral("<h3>Reading</h3><ul>");
        for (const std::string& line : reading.lines)
            html += QStringLiteral("<li>%1</li>").arg(text(line));
        html += QStringLiteral("</ul>");
    }
    return html;
}

}  // namespace kinetoscope::widgets
