#include "widgets/chart_style.h"

#include <QVariant>
#include <algorithm>
#include <array>
#include <cmath>
#include <qcustomplot.h>
#include <utility>

namespace kinetoscope::widgets {

using analysis::TimeCategory;

QColor categoryColor(TimeCategory category)
{
    switch (category) {
    case TimeCategory::Kernel:
        return QColor(0x2e, 0x7d, 0x32);  // green: the GPU computes
    case TimeCategory::Memcpy:
        return QColor(0x15, 0x65, 0xc0);
    case TimeCategory::Memset:
        return QColor(0x64, 0xb5, 0xf6);
    case TimeCategory::Communication:
        return QColor(0x8e, 0x24, 0xaa);
    case TimeCategory::Runtime:
        return QColor(0xff, 0xa0, 0x00);
    case TimeCategory::DataLoader:
        return QColor(0xd3, 0x2f, 0x2f);  // red: waiting for data
    case TimeCategory::CpuExec:
        return QColor(0x79, 0x55, 0x48);
    case TimeCategory::Other:
        return QColor(0x9e, 0x9e, 0x9e);
    }
    return Qt::gray;
}

QString categoryLabel(TimeCategory category)
{
    switch (category) {
    case TimeCategory::Kernel:
        return QStringLiteral("Kernel");
    case TimeCategory::Memcpy:
        return QStringLiteral("Memcpy");
    case TimeCategory::Memset:
        return QStringLiteral("Memset");
    case TimeCategory::Communication:
        return QStringLiteral("Communication");
    case TimeCategory::Runtime:
        return QStringLiteral("Runtime");
    case TimeCategory::DataLoader:
        return QStringLiteral("DataLoader");
    case TimeCategory::CpuExec:
        return QStringLiteral("CPU exec");
    case TimeCategory::Other:
        return QStringLiteral("Other");
    }
    return {};
}

QString categoryTooltip(TimeCategory category)
{
    switch (category) {
    case TimeCategory::Kernel:
        return QStringLiteral("Time a GPU kernel was running.");
    case TimeCategory::Memcpy:
        return QStringLiteral("Time a device copy ran while no kernel did.");
    case TimeCategory::Memset:
        return QStringLiteral("Time a device memset ran while no kernel or copy did.");
    case TimeCategory::Communication:
        return QStringLiteral("Collective communication not hidden behind compute.");
    case TimeCategory::Runtime:
        return QStringLiteral("CUDA runtime calls (launches, syncs) with the GPU idle.");
    case TimeCategory::DataLoader:
        return QStringLiteral("Waiting for the next batch with the GPU idle.");
    case TimeCategory::CpuExec:
        return QStringLiteral("CPU operators running with the GPU idle.");
    case TimeCategory::Other:
        return QStringLiteral("Nothing profiled was running: Python, gaps.");
    }
    return {};
}

namespace {

// The text of a light plot: near-black.
QColor lightThemeText()
{
    return {0x21, 0x21, 0x21};
}

// WCAG's relative luminance of a colour, 0 (black) to 1 (white).
double luminance(const QColor& colour)
{
    const auto linear = [](double c) {
        return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) +
           0.0722 * linear(colour.blueF());
}

}  // namespace

double contrastRatio(const QColor& a, const QColor& b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor textColorOn(const QColor& fill)
{
    const QColor light(Qt::white);
    return contrastRatio(light, fill) >= contrastRatio(lightThemeText(), fill) ? light
                                                                               : lightThemeText();
}

void applyChartStyle(QCustomPlot& plot)
{
    // Follow the platform's palette: a dark window gets a dark plot. (Exported reports
    // are rendered offscreen, whose default palette is light.)
    const QPalette palette = plot.palette();
    const bool dark = palette.color(QPalette::Window).lightness() < 128;
    const QColor background = dark ? palette.color(QPalette::Base) : QColor(Qt::white);
    const QColor text = dark ? palette.color(QPalette::Text) : lightThemeText();
    const QColor grid = dark ? QColor(0x50, 0x50, 0x50) : QColor(0xe0, 0xe0, 0xe0);
    plot.setBackground(background);
    plot.setAntialiasedElements(QCP::aeAll);
    QFont font = plot.font();
    font.setPointSizeF(9);
    for (QCPAxis* axis : {plot.xAxis, plot.yAxis}) {
        axis->setTickLabelFont(font);
        axis->setLabelFont(font);
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->setBasePen(QPen(text, 0));
        axis->setTickPen(QPen(text, 0));
        axis->setSubTickPen(QPen(text, 0));
        axis->grid()->setPen(QPen(grid, 0));
    }
    plot.legend->setFont(font);
    plot.legend->setTextColor(text);
    plot.legend->setBrush(dark ? QColor(0x30, 0x30, 0x30, 220) : QColor(255, 255, 255, 220));
    plot.legend->setBorderPen(QPen(dark ? QColor(0x60, 0x60, 0x60) : QColor(0xbd, 0xbd, 0xbd)));
    plot.setNoAntialiasingOnDrag(true);
    keepLabelsInside(plot);
}

namespace {

// The span [lo, hi) a label of `size` pixels covers when `alignment` puts it against its
// anchor at `anchor`: left/top alignment starts it there, right/bottom ends it there.
std::pair<double, double> spanFor(Qt::Alignment alignment, double anchor, double size)
{
    if (alignment & (Qt::AlignLeft | Qt::AlignTop))
        return {anchor, anchor + size};
    if (alignment & (Qt::AlignRight | Qt::AlignBottom))
        return {anchor - size, anchor};
    return {anchor - size / 2, anchor + size / 2};
}

// Of the three alignments along one direction, the one a label is drawn with: its preferred
// one when the label fits the bound that way, else the first that fits, else the one that
// overflows least. A function of the preferred alignment, the anchor, the size and the bound
// alone, so a second pass never changes what the first chose (no replot loop), and a label
// turned in a small layout turns back once the plot has room for it.
Qt::Alignment alignmentInside(Qt::Alignment preferred, const std::array<Qt::Alignment, 3>& options,
                              double anchor, double size, double lo, double hi)
{
    constexpr double kSlack = 0.5;  // pixels: rounding never counts as overflow
    const auto overflow = [&](Qt::Alignment a) {
        const auto [from, to] = spanFor(a, anchor, size);
        return std::max(0.0, lo - from) + std::max(0.0, to - hi);
    };
    if (overflow(preferred) <= kSlack)
        return preferred;
    Qt::Alignment best = options[0];
    for (Qt::Alignment option : options) {
        if (overflow(option) <= kSlack)
            return option;
        if (overflow(option) < overflow(best))
            best = option;
    }
    return best;
}

// A label's own placement, the one its chart asked for, kept on the label: the alignment
// turnLabelsInside last gave it tells a turn of ours from a new request of the chart's.
constexpr const char* kPreferredAlignment = "kinetoscopePreferredAlignment";
constexpr const char* kTurnedAlignment = "kinetoscopeTurnedAlignment";

Qt::Alignment preferredAlignment(QCPItemText& text)
{
    const int current = int(text.positionAlignment());
    const QVariant turned = text.property(kTurnedAlignment);
    if (turned.isValid() && turned.toInt() == current)
        return Qt::Alignment(text.property(kPreferredAlignment).toInt());
    text.setProperty(kPreferredAlignment, current);  // the chart's, set since the last layout
    return text.positionAlignment();
}

// Turns every label that would be drawn past its bound (the axes when it is clipped to
// them, else the widget) to the side of its anchor that keeps it inside, starting each
// layout from the side its chart asked for: a turn is never kept past the layout that
// needed it. Runs after the layout and before drawing, so the labels are drawn where they
// stay in the same replot.
void turnLabelsInside(QCustomPlot& plot)
{
    for (int i = 0; i < plot.itemCount(); ++i) {
        auto* text = qobject_cast<QCPItemText*>(plot.item(i));
        if (!text || !text->visible() || text->text().isEmpty())
            continue;
        const Qt::Alignment preferred = preferredAlignment(*text);
        const QRectF bound = text->clipToAxisRect() && text->clipAxisRect()
                                 ? QRectF(text->clipAxisRect()->rect())
                                 : QRectF(plot.rect());
        const QRectF drawn =
            QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition()).normalized();
        const QPointF anchor = text->position->pixelPosition();
        const Qt::Alignment horizontal = alignmentInside(
            preferred & Qt::AlignHorizontal_Mask, {Qt::AlignLeft, Qt::AlignHCenter, Qt::AlignRight},
            anchor.x(), drawn.width(), bound.left(), bound.right());
        const Qt::Alignment vertical = alignmentInside(
            preferred & Qt::AlignVertical_Mask, {Qt::AlignTop, Qt::AlignVCenter, Qt::AlignBottom},
            anchor.y(), drawn.height(), bound.top(), bound.bottom());
        text->setProperty(kTurnedAlignment, int(horizontal | vertical));
        if ((horizontal | vertical) != text->positionAlignment())
            text->setPositionAlignment(horizontal | vertical);
    }
}

}  // namespace

void keepLabelsInside(QCustomPlot& plot)
{
    constexpr const char* kInstalled = "kinetoscopeKeepsLabelsInside";
    if (plot.property(kInstalled).toBool())
        return;  // once per plot, however often its style is applied
    plot.setProperty(kInstalled, true);
    // afterLayout comes inside replot(), once the axes have their pixels and before
    // anything is drawn: moving a label there costs no second replot.
    QObject::connect(&plot, &QCustomPlot::afterLayout, &plot, [&plot] { turnLabelsInside(plot); });
}

void showLegendBeside(QCustomPlot& plot)
{
    plot.legend->setVisible(true);
    if (plot.legend->layout() != plot.axisRect()->insetLayout())
        return;  // already beside
    plot.axisRect()->insetLayout()->take(plot.legend);
    // A column of its own: the legend on top, an empty row below taking the rest.
    auto* column = new QCPLayoutGrid;
    plot.plotLayout()->addElement(0, plot.plotLayout()->columnCount(), column);
    column->addElement(0, 0, plot.legend);
    column->addElement(1, 0, new QCPLayoutElement(&plot));
    column->setRowStretchFactor(0, 0.001);
    column->setMargins(QMargins(0, 8, 8, 0));
    plot.plotLayout()->setColumnStretchFactor(plot.plotLayout()->columnCount() - 1, 0.001);
}

void showLegendBelow(QCustomPlot& plot, int columns)
{
    plot.legend->setVisible(true);
    if (plot.legend->layout() != plot.axisRect()->insetLayout())
        return;  // already placed
    plot.axisRect()->insetLayout()->take(plot.legend);
    const int row = plot.plotLayout()->rowCount();
    plot.plotLayout()->addElement(row, 0, plot.legend);
    plot.plotLayout()->setRowStretchFactor(row, 0.001);
    plot.legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot.legend->setWrap(columns);
    plot.legend->setMargins(QMargins(8, 0, 8, 4));
}

}  // namespace kinetoscope::widgets
