// Labels read whole on a laptop's screen (1280x720 with a 40 px taskbar):
// - a waterfall's value labels sit above their bars, and the memory chart's "peak …" label
//   above its peak, after the chart was first laid out small (a label turned inside a small
//   layout turns back once the chart has room), and a label that has to go onto its bar reads
//   on it;
// - the Run-a-lab dialog shows its whole note, its whole output folder and its fields' whole
//   placeholders, and fits the screen.
//
// The test runs on an offscreen screen of 1280x720 (set up in main, before the application).
#ifndef Q_MOC_RUN
#include "app/gui/lab_dialog.h"
#include "tests/support/laptop_screen.h"
#include "widgets/chart_style.h"
#include "widgets/memory_chart.h"
#include "widgets/waterfall_chart.h"
#endif

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QScreen>
#include <QStyle>
#include <QStyleOptionFrame>
#include <QtTest>

using namespace kinetoscope;

namespace {

constexpr QSize kScreen(1280, 720);
constexpr int kTaskbar = 40;

QRectF drawnRect(const QCPItemText& text)
{
    return QRectF(text.topLeft->pixelPosition(), text.bottomRight->pixelPosition()).normalized();
}

QString describe(const QRectF& r)
{
    return QStringLiteral("%1,%2 %3x%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

// The chart laid out small first (as a splitter or a tab not yet shown lays it out), then at
// `size`: each replot is what the widget does on a resize.
void layOutSmallThenAt(QCustomPlot& chart, QSize size)
{
    chart.setMinimumSize(0, 0);
    chart.resize(110, 70);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.replot();
    chart.resize(size);
    QCoreApplication::processEvents();
    QCOMPARE(chart.viewport().size(), size);
    chart.replot();
}

// Room a line edit gives its text: its contents less the frame and the text margins.
int textRoom(const QLineEdit& edit)
{
    QStyleOptionFrame option;
    option.initFrom(&edit);
    option.rect = edit.contentsRect();
    option.lineWidth = edit.hasFrame()
                           ? edit.style()->pixelMetric(QStyle::PM_DefaultFrameWidth, &option, &edit)
                           : 0;
    const QRect text = edit.style()->subElementRect(QStyle::SE_LineEditContents, &option, &edit);
    const QMargins margins = edit.textMargins();
    return text.width() - margins.left() - margins.right() - 4;  // QLineEdit's own 2+2 px
}

}  // namespace

class TestLaptopScreenLabels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QCOMPARE(QGuiApplication::primaryScreen()->availableGeometry().size(), kScreen);
    }

    // Compare > Overview at 1280x720: the workers0 -> workers4 ResNet-50 comparison's bars.
    void waterfallLabelsSitAboveTheirBars()
    {
        widgets::WaterfallChart chart;
        chart.setSteps(QStringLiteral("before"), 178e6,
                       {{QStringLiteral("Memcpy"), 1.16e6},
                        {QStringLiteral("Runtime"), 1.56e6},
                        {QStringLiteral("DataLoader"), -58.7e6},
                        {QStringLiteral("CPU exec"), 8.03e6},
                        {QStringLiteral("Other"), 2.75e6}},
                       QStringLiteral("after"), 133e6);
        layOutSmallThenAt(chart, QSize(1262, 300));
        QCOMPARE(int(chart.labels().size()), 7);
        for (const auto& [label, bar] : chart.labels()) {
            const QRectF text = drawnRect(*label);
            const QRectF barRect =
                QRectF(bar->topLeft->pixelPosition(), bar->bottomRight->pixelPosition())
                    .normalized();
            QVERIFY2(text.bottom() <= barRect.top() + 0.5 &&
                         std::abs(text.center().x() - barRect.center().x()) < 1.0,
                     qPrintable(QStringLiteral("\"%1\" at %2, its bar at %3")
                                    .arg(label->text(), describe(text), describe(barRect))));
        }
    }

    // The torch.compile page zooms the axis on the levels: with no room above the highest bar
    // its label goes onto the bar, and reads there (the dark grey, green and red bars).
    void aLabelOnItsBarReads()
    {
        widgets::WaterfallChart chart;
        chart.setSteps(QStringLiteral("eager"), 27.3e6,
                       {{QStringLiteral("fusion"), -0.182e6}, {QStringLiteral("GEMMs"), 1.5e6}},
                       QStringLiteral("compiled"), 28.6e6);
        chart.yAxis->setRange(20.0, 28.6);  // no room above the last two bars
        layOutSmallThenAt(chart, QSize(700, 160));
        int onBars = 0;
        for (const auto& [label, bar] : chart.labels()) {
            const QRectF text = drawnRect(*label);
            const QRectF barRect =
                QRectF(bar->topLeft->pixelPosition(), bar->bottomRight->pixelPosition())
                    .normalized();
            if (!barRect.contains(text.center()))
                continue;
            ++onBars;
            const double contrast = widgets::contrastRatio(label->color(), bar->brush().color());
            QVERIFY2(contrast >= 4.5, qPrintable(QStringLiteral("\"%1\" on its bar: contrast %2")
                                                     .arg(label->text())
                                                     .arg(contrast)));
        }
        QVERIFY(onBars >= 1);
        // Back at a size with room above: above the bar again, in the plot's text colour.
        chart.yAxis->setRange(20.0, 32.0);
        chart.replot();
        for (const auto& [label, bar] : chart.labels()) {
            QVERIFY(drawnRect(*label).bottom() <= bar->topLeft->pixelPosition().y() + 0.5);
            QCOMPARE(label->color(), chart.yAxis->labelColor());
        }
    }

    // The Memory page: the "peak 2.60 GiB" label above the peak, clear of the curve.
    void theMemoryPeakLabelSitsAboveThePeak()
    {
        analysis::DeviceMemory gpu;
        gpu.device = "cuda:0";
        constexpr double kGiB = 1024.0 * 1024 * 1024;
        // Six steps of 170 ms: memory rising to 2.6 GiB and released; the first the highest.
        for (int step = 0; step < 6; ++step)
            for (int i = 0; i <= 100; ++i) {
                const double x = double(i) / 100.0;
                const double height = step == 0 ? 2.6 : 2.58;
                const auto bytes = int64_t(height * kGiB * 4 * x * (1 - x));
                gpu.curve.push_back({int64_t((step * 170.0 + 70.0 + x * 90.0) * 1e6), bytes, -1});
                gpu.peakAllocatedBytes = std::max(gpu.peakAllocatedBytes, bytes);
            }
        std::map<std::string, analysis::DeviceMemory> memory{{"cuda:0", gpu}};
        widgets::MemoryChart chart;
        chart.setMemory(memory, analysis::StepDetection{}, 0);
        layOutSmallThenAt(chart, QSize(1260, 340));
        QCPItemText* peak = nullptr;
        for (int i = 0; i < chart.itemCount(); ++i)
            if (auto* text = qobject_cast<QCPItemText*>(chart.item(i));
                text && text->text().startsWith(QStringLiteral("peak ")))
                peak = text;
        QVERIFY(peak);
        const QRectF text = drawnRect(*peak);
        const QPointF point = peak->position->pixelPosition();
        QVERIFY2(text.bottom() <= point.y() + 0.5 && text.left() < point.x() &&
                     point.x() < text.right(),
                 qPrintable(QStringLiteral("\"%1\" at %2, the peak at %3,%4")
                                .arg(peak->text(), describe(text))
                                .arg(point.x())
                                .arg(point.y())));
        // No point of the curve under the label's span reaches up into it.
        const auto data = chart.graph(0)->data();
        for (auto it = data->constBegin(); it != data->constEnd(); ++it) {
            const QPointF p(chart.xAxis->coordToPixel(it->key),
                            chart.yAxis->coordToPixel(it->value));
            QVERIFY2(p.x() < text.left() || p.x() > text.right() || p.y() >= text.bottom() - 0.5,
                     qPrintable(QStringLiteral("\"%1\" at %2, the curve at %3,%4")
                                    .arg(peak->text(), describe(text))
                                    .arg(p.x())
                                    .arg(p.y())));
        }
    }

    // Run a lab: the note under the measurements whole, the output folder's whole path, the
    // file fields' whole placeholders, and the dialog on the screen less a taskbar.
    void theLabDialogShowsItsWholeNote()
    {
        gui::LabDialog dialog;
        const QSize room = kScreen - QSize(0, kTaskbar);
        QVERIFY2(dialog.sizeHint().width() <= room.width() &&
                     dialog.sizeHint().height() <= room.height(),
                 qPrintable(QStringLiteral("%1x%2")
                                .arg(dialog.sizeHint().width())
                                .arg(dialog.sizeHint().height())));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(dialog.width() <= room.width() && dialog.height() <= room.height());
        QLabel* note = nullptr;
        for (QLabel* label : dialog.findChildren<QLabel*>())
            if (label->text().startsWith(QStringLiteral("The lab's third arm")))
                note = label;
        QVERIFY(note);
        QVERIFY2(note->heightForWidth(note->width()) <= note->height(),
                 qPrintable(QStringLiteral("the note needs %1 px at %2 px wide, has %3")
                                .arg(note->heightForWidth(note->width()))
                                .arg(note->width())
                                .arg(note->height())));
        int placeholders = 0;
        for (QLineEdit* edit : dialog.findChildren<QLineEdit*>()) {
            if (qobject_cast<QAbstractSpinBox*>(edit->parentWidget()))
                continue;  // a spin box's own editor
            for (const QString& shown : {edit->text(), edit->placeholderText()}) {
                if (shown.isEmpty())
                    continue;
                placeholders += shown == edit->placeholderText();
                QVERIFY2(edit->fontMetrics().horizontalAdvance(shown) <= textRoom(*edit),
                         qPrintable(QStringLiteral("\"%1\": %2 px in %3 px")
                                        .arg(shown)
                                        .arg(edit->fontMetrics().horizontalAdvance(shown))
                                        .arg(textRoom(*edit))));
            }
        }
        QVERIFY(placeholders >= 4);  // TorchScript file, data, the two sweeps
    }
};

int main(int argc, char** argv)
{
    QTEST_SET_MAIN_SOURCE_PATH
    return kinetoscope::test::runOnLaptopScreen<TestLaptopScreenLabels>(argc, argv,
                                                                        QSize(1280, 720));
}

#include "test_laptop_screen_labels.moc"
