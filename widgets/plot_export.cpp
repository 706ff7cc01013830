#include "widgets/plot_export.h"

#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QInputDialog>
#include <QMenu>
#include <QSvgGenerator>
#include <qcustomplot.h>

namespace kinetoscope::widgets {

bool savePlot(QCustomPlot& plot, const QString& path, int width, int height, QString* error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        ok = plot.savePng(path, width, height, 2.0);
    } else if (suffix == QLatin1String("pdf")) {
        ok = plot.savePdf(path, width, height);
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        const int w = width > 0 ? width : plot.width(), h = height > 0 ? height : plot.height();
        svg.setSize(QSize(w, h));
        svg.setViewBox(QRect(0, 0, w, h));
        svg.setTitle(QStringLiteral("Kinetoscope plot"));
        QCPPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            plot.toPainter(&painter, w, h);
            painter.end();
        }
    } else {
        if (error)
            *error =
                QStringLiteral("unknown image format '%1' (use .png, .svg or .pdf)").arg(suffix);
        return false;
    }
    if (!ok && error)
        *error = QStringLiteral("could not write %1").arg(path);
    return ok;
}

void copyPlotToClipboard(QCustomPlot& plot)
{
    QApplication::clipboard()->setPixmap(plot.toPixmap(0, 0, 2.0));
}

void installPlotExportMenu(QCustomPlot& plot)
{
    plot.setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(&plot, &QWidget::customContextMenuRequested, &plot,
                     [&plot](const QPoint& pos) {
                         QMenu menu(&plot);
                         menu.addAction(QObject::tr("Copy image"), &plot,
                                        [&plot] { copyPlotToClipboard(plot); });
                         menu.addAction(QObject::tr("Save as..."), &plot, [&plot] {
                             const QString path = QFileDialog::getSaveFileName(
                                 &plot, QObject::tr("Save plot"), QStringLiteral("plot.png"),
                                 QObject::tr("Images (*.png *.svg *.pdf)"));
                             if (path.isEmpty())
                                 return;
                             bool ok = false;
                             const QString size = QInputDialog::getText(
                                 &plot, QObject::tr("Size"),
                                 QObject::tr("Width x height (pixels):"), QLineEdit::Normal,
                                 QStringLiteral("%1x%2").arg(plot.width()).arg(plot.height()), &ok);
                             if (!ok)
                                 return;
                             const QStringList parts = size.split(QLatin1Char('x'));
                             const int w = parts.value(0).toInt(), h = parts.value(1).toInt();
                             savePlot(plot, path, w, h);
                         });
                         menu.exec(plot.mapToGlobal(pos));
                     });
}

}  // namespace kinetoscope::widgets
