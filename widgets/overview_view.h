#pragma once
// The first page of a document: the key figures, the phase breakdown bars and the
// utilisation sawtooth.
#include "core/document/document.h"

#include <QWidget>

class QLabel;

namespace kinetoscope::widgets {

class BreakdownChart;
class UtilizationChart;

class OverviewView : public QWidget
{
    Q_OBJECT
public:
    explicit OverviewView(QWidget* parent = nullptr);
    void setTrace(const document::Document& trace);
    BreakdownChart* breakdownChart() const { return m_breakdown; }
    UtilizationChart* utilizationChart() const { return m_utilization; }
    QString figuresText() const;  // the key figures as shown

private:
    QLabel* m_figures;
    BreakdownChart* m_breakdown;
    UtilizationChart* m_utilization;
};

// The key figures as HTML (shared with the report).
QString keyFiguresHtml(const document::Document& trace);
// "What this trace is": the window's headline, its quality problems, and the GPU's idle
// time by what the host was doing (also in the exported report, through keyFiguresHtml).
QString windowHtml(const analysis::TraceSummary& summary);

}  // namespace kinetoscope::widgets
