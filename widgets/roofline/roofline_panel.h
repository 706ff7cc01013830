#pragma once
// The Operators page's roofline: the device and its peaks, the plot, and the kernels of the
// op group last clicked.
#include "core/roofline/roofline.h"

#include <QWidget>

class QLabel;

namespace kinetoscope::widgets {

class RooflinePlot;

class RooflinePanel : public QWidget
{
    Q_OBJECT
public:
    explicit RooflinePanel(QWidget* parent = nullptr);
    void setRoofline(const roofline::Roofline& roofline);
    // Shows the op group's figures and kernels under the plot.
    void showOp(size_t opIndex);
    RooflinePlot* plot() const { return m_plot; }
    QString caption() const;
    QString selection() const;

signals:
    void opClicked(size_t opIndex);  // index into the Roofline's ops

private:
    roofline::Roofline m_roofline;
    QLabel* m_caption;
    RooflinePlot* m_plot;
    QLabel* m_selection;
};

}  // namespace kinetoscope::widgets
