#include "widgets/overview_view.h"

#include "core/analysis/diagnosis/finding_text.h"
#include "core/compiled/compiled_line.h"
#include "core/format/format.h"
#include "widgets/breakdown_chart.h"
#include "widgets/plot_export.h"
#include "widgets/utilization_chart.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

namespace kinetoscope::widgets {

QString keyFiguresHtml(const document::Document& trace)
{
    const analysis::TraceSummary& s = trace.summary;
    QStringList cells;
    auto cell = [&](const QString& label, const QString& value, const QString& tip) {
        cells << QStringLiteral("<td title=\"%3\" style=\"padding:4px 18px 4px 0\"><span "
                                "style=\"color:#616161\">%1</span>"
                                "<br><span style=\"font-size:15pt;font-weight:600\">%2</span></td>")
                     .arg(label, value, tip);
    };
    cell(QStringLiteral("Step time"),
         QString::fromStdString(format::duration(s.breakdown.all.averageTotalNs)),
         QStringLiteral(
             "Average wall time of a step, extended to the end of the GPU work it launched."));
    cell(QStringLiteral("Steady steps"),
         QString::fromStdString(format::count(uint64_t(s.steps.steps.size()))) +
             (s.steps.source == analysis::StepSource::Window ? QStringLiteral(" (window)")
                                                             : QString()),
         QStringLiteral(
             "Steps judged: ProfilerStep#N spans, or iterations found from DataLoader calls or "
             "Optimizer.step; warm-up and the loop's tail are left out."));
    QString utilization = QStringLiteral("n/a");
    if (!s.gpu.empty() && s.gpu.begin()->second.utilization)
        utilization = QString::fromStdString(format::percent(*s.gpu.begin()->second.utilization));
    cell(QStringLiteral("GPU utilisation"), utilization,
         QStringLiteral("Share of the steps' span in which a kernel ran (first device)."));
    const double kernel = s.breakdown.all.averageTotalNs > 0
                              ? s.breakdown.all.average(analysis::TimeCategory::Kernel) /
                                    s.breakdown.all.averageTotalNs
                              : 0.0;
    cell(QStringLiteral("Kernel share"), QString::fromStdString(format::percent(kernel)),
         QStringLiteral("Share of the step in which a kernel ran."));
    // The top finding in words, on its own line: a title is a sentence, not a figure.
    QString top = QStringLiteral("none: nothing in this trace crosses a rule's threshold");
    if (!trace.findings.empty()) {
        const analysis::Finding& f = trace.findings.front();
        top = QStringLiteral("%1 <span style=\"color:#616161\">(%2)</span>")
                  .arg(QString::fromStdString(f.title).toHtmlEscaped(),
                       QString::fromStdString(analysis::gainText(f)).toHtmlEscaped());
    }
    // A file read only in part (or with events skipped) says so before anything read from it.
    QString partly;
    if (trace.model && !trace.model->stats().partlyRead.empty())
        partly = QStringLiteral("<p style=\"margin:2px 0;color:#b71c1c\"><b>Partly read:</b> %1. "
                                "Every figure below "
                                "covers only the events before that point.</p>")
                     .arg(QString::fromStdString(trace.loadMessage).toHtmlEscaped());
    else if (!trace.ok())
        partly = QStringLiteral(
                     "<p style=\"margin:2px 0;color:#b71c1c\"><b>Read with problems:</b> %1.</p>")
                     .arg(QString::fromStdString(trace.loadMessage).toHtmlEscaped());
    return partly + windowHtml(s) +
           QStringLiteral("<table><tr>%1</tr></table>").arg(cells.join(QString())) +
           QStringLiteral("<p style=\"margin:2px 0\" title=\"The finding whose fix saves the most "
                          "time per step\">"
                          "<b>Top finding:</b> %1</p>")
               .arg(top);
}

QString windowHtml(const analysis::TraceSummary& s)
{
    // What the trace is, before any figure: the kind of run, the steady steps, warm-up,
    // capture or replay, and what is wrong with the trace itself.
    QString html = QStringLiteral("<p style=\"margin:2px 0\"><b>What this trace is:</b> %1</p>")
                       .arg(QString::fromStdString(s.window.headline()).toHtmlEscaped());
    for (const analysis::QualityIssue& q : s.window.quality)
        html += QStringLiteral("<p style=\"margin:2px 0;color:#b26a00\">Trace quality: %1</p>")
                    .arg(QString::fromStdString(q.message).toHtmlEscaped());
    if (const std::string compiled = compiled::compiledLine(s.compiled); !compiled.empty())
        html += QStringLiteral("<p style=\"margin:2px 0\" title=\"What torch.compile made of the "
                               "steady steps (per step)\"><b>torch.compile:</b> %1</p>")
                    .arg(QString::fromStdString(compiled).toHtmlEscaped());
    const analysis::CausalModel& m = s.causal;
    if (m.stepsModelled > 0 && m.deviceIdleNs > 0 && s.window.deviceActivities > 0) {
        QStringList parts;
        std::vector<std::pair<double, size_t>> states;
        for (size_t i = 0; i < analysis::kHostStateCount; ++i)
            if (m.idleByHostState[i] > 0.005 * m.stepNs)
                states.emplace_back(m.idleByHostState[i], i);
        std::sort(states.rbegin(), states.rend());
        for (const auto& [ns, i] : states)
            parts << QStringLiteral("%1 %2").arg(
                QString::fromLatin1(analysis::hostStateName(analysis::HostState(i))),
                QString::fromStdString(format::duration(ns)));
        html += QStringLiteral("<p style=\"margin:2px 0\" title=\"What the host was doing while no "
                               "kernel, copy or "
                               "memset ran (per steady step)\"><b>GPU idle %1 per step, while the "
                               "host was in:</b> "
                               "%2</p>")
                    .arg(QString::fromStdString(format::duration(m.deviceIdleNs)),
                         parts.isEmpty() ? QStringLiteral("nothing recorded")
                                         : parts.join(QStringLiteral(", ")));
    }
    return html;
}

OverviewView::OverviewView(QWidget* parent)
    : QWidget(parent), m_figures(new QLabel(this)), m_breakdown(new BreakdownChart(this)),
      m_utilization(new UtilizationChart(this))
{
    auto* layout = new QVBoxLayout(this);
    // Every text wraps: the trace's one-line description runs to hundreds of characters
    // (a window starting inside earlier work says which call and how long), and a label that
    // does not wrap asks for its whole width, past a laptop's screen.
    m_figures->setTextFormat(Qt::RichText);
    m_figures->setWordWrap(true);
    layout->addWidget(m_figures);
    auto* barsTitle =
        new QLabel(tr("<b>Step-time breakdown</b> — where each step's wall time went"), this);
    barsTitle->setWordWrap(true);
    layout->addWidget(barsTitle);
    layout->addWidget(m_breakdown, 3);
    auto* sawTitle = new QLabel(
        tr("<b>Utilisation over time</b> — GPU kernels and CPU ops; dashed lines mark steps"),
        this);
    sawTitle->setWordWrap(true);
    layout->addWidget(sawTitle);
    layout->addWidget(m_utilization, 2);
    installPlotExportMenu(*m_breakdown);
    installPlotExportMenu(*m_utilization);
}

void OverviewView::setTrace(const document::Document& trace)
{
    m_figures->setText(keyFiguresHtml(trace));
    m_breakdown->setBreakdown(trace.summary.steps, trace.summary.breakdown.all);
    m_utilization->setSeries(trace.summary.utilization, trace.summary.steps);
}

QString OverviewView::figuresText() const
{
    QTextDocument doc;
    doc.setHtml(m_figures->text());
    return doc.toPlainText();
}

}  // namespace kinetoscope::widgets
