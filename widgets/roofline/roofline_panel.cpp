#include "widgets/roofline/roofline_panel.h"

#include "core/format/format.h"
#include "widgets/roofline/roofline_plot.h"

#include <QLabel>
#include <QVBoxLayout>

namespace kinetoscope::widgets {

using namespace kinetoscope::roofline;

namespace {

QString html(const std::string& text)
{
    return QString::fromStdString(text).toHtmlEscaped();
}

QString rate(double tflops)
{
    return QString::fromStdString(format::flopRate(tflops * 1e12));
}

}  // namespace

RooflinePanel::RooflinePanel(QWidget* parent)
    : QWidget(parent), m_caption(new QLabel(this)), m_plot(new RooflinePlot(this)),
      m_selection(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_caption->setWordWrap(true);
    m_caption->setTextFormat(Qt::RichText);
    m_selection->setWordWrap(true);
    m_selection->setTextFormat(Qt::RichText);
    m_selection->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_selection->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    layout->addWidget(m_caption);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_selection);
    connect(m_plot, &RooflinePlot::opClicked, this, [this](size_t op) {
        showOp(op);
        emit opClicked(op);
    });
}

void RooflinePanel::setRoofline(const Roofline& roofline)
{
    m_roofline = roofline;
    m_plot->setRoofline(m_roofline);
    QString text;
    if (m_roofline.peaks) {
        const DevicePeaks& p = *m_roofline.peaks;
        text = tr("<b>%1</b> (%2%3): fp32 %4, TF32 %5, fp16/bf16 %6, fp8 %7, memory %8")
                   .arg(m_roofline.device.empty() ? tr("unnamed device") : html(m_roofline.device),
                        html(p.model), p.estimated ? tr(", peaks estimated") : QString(),
                        rate(p.fp32Tflops), p.tf32Tflops > 0 ? rate(p.tf32Tflops) : tr("none"),
                        p.fp16Tflops > 0 ? rate(p.fp16Tflops) : tr("none"),
                        p.fp8Tflops > 0 ? rate(p.fp8Tflops) : tr("none"),
                        QString::fromStdString(format::bandwidth(p.memoryGBps * 1e9)));
    } else {
        text = tr("The trace does not describe its GPU: achieved rates only, no roofs.");
    }
    text += tr("<br>Dots: op groups, area by device time; <span style='color:#1f77b4'>GEMM</span>, "
               "<span style='color:#2ca02c'>convolution</span>, <span "
               "style='color:#9467bd'>attention</span>, "
               "<span style='color:#d62728'>norm, softmax, reduction</span>, "
               "<span style='color:#ff7f0e'>elementwise, copy</span>. %1 of %2 kernel time rated. "
               "Click a dot for "
               "its row and kernels.")
                .arg(QString::fromStdString(format::duration(double(m_roofline.ratedNs))),
                     QString::fromStdString(format::duration(double(m_roofline.kernelNs))));
    if (const int flagged = m_plot->flaggedCount(); flagged > 0)
        text += tr("<br><span style='color:#c62828'><b>Red ring</b></span>: %1 measured above "
                   "its roof, which no op can be: a measurement or peak error (the work counted, "
                   "or the device's peak), not a real rate. Hover a dot for which.")
                    .arg(flagged == 1 ? tr("1 op group") : tr("%1 op groups").arg(flagged));
    m_caption->setText(text);
    m_selection->clear();
}

void RooflinePanel::showOp(size_t opIndex)
{
    if (opIndex >= m_roofline.ops.size())
        return;
    const OpRoofline& op = m_roofline.ops[opIndex];
    const Rating& r = op.rating;
    QString text = QStringLiteral("<b>%1</b> %2<br>").arg(html(op.name), html(op.inputShapes));
    if (!op.fusedOps.empty())
        text += tr("Fused: %1<br>").arg(html(op.fusedOps));
    text += tr("%1 calls, %2 of device time; %3 GFLOP and %4 per call; %5: %6, %7, %8-bound at %9 "
               "of its roof")
                .arg(QString::fromStdString(format::count(op.calls)),
                     QString::fromStdString(format::duration(double(op.deviceNs))),
                     QString::fromStdString(format::number(op.flopsPerCall / 1e9)),
                     QString::fromStdString(format::bytes(op.bytesPerCall)),
                     QString::fromLatin1(precisionName(op.precision)), rate(r.achievedTflops),
                     QString::fromStdString(format::bandwidth(r.achievedGbps * 1e9)),
                     QString::fromLatin1(boundName(r.bound)),
                     QString::fromStdString(format::percent(r.shareOfRoof)));
    if (!op.note.empty())
        text += QStringLiteral("<br><i>%1</i>").arg(html(op.note));
    text += tr("<br>Kernels:");
    for (const auto& [name, ns] : op.kernels)
        text += QStringLiteral("<br>&nbsp;&nbsp;%1 &nbsp;%2")
                    .arg(QString::fromStdString(format::duration(double(ns))),
                         html(format::clip(name, 90)));
    m_selection->setText(text);
}

QString RooflinePanel::caption() const
{
    return m_caption->text();
}

QString RooflinePanel::selection() const
{
    return m_selection->text();
}

}  // namespace kinetoscope::widgets
