#pragma once
// A job of several ranks: Overview (the straggler line, the job's findings, one row per
// rank: double-click opens that rank's own document), Heatmap (rank x step of step time,
// own work, exposed or hidden communication), Collectives (matched across ranks: transfer,
// wait, last to arrive, bus bandwidth) and Timelines (every rank stacked, on one step,
// aligned by the clock offsets the collectives give; a job read from its ranks' digests
// offers to read the traces first). Views only draw; the numbers come from core/job.
#include "core/analysis/diagnosis/finding.h"
#include "core/job/job.h"

#include <QImage>
#include <QTabWidget>
#include <memory>
#include <vector>

class QAbstractItemView;
class QComboBox;
class QCPColorMap;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace kinetoscope::widgets {

class StackedTimelines;
class TimelinePage;

class JobView : public QTabWidget
{
    Q_OBJECT
public:
    enum Page
    {
        Overview,
        Heatmap,
        Collectives,
        Timelines
    };
    // What the heatmap colours, per rank and step.
    enum class Metric
    {
        StepTime,
        OwnWork,
        ExposedCommunication,
        HiddenCommunication
    };

    // The Collectives page has a column per rank up to this many ranks.
    static constexpr size_t kRankColumnsUpTo = 64;

    JobView(job::Job job, std::vector<analysis::Finding> findings, QWidget* parent = nullptr);

    const job::Job& job() const { return m_job; }
    const std::vector<analysis::Finding>& findings() const { return m_findings; }
    QString title() const;  // "job: folder (8 ranks)"
    QLabel* headline() const { return m_headline; }
    QTableWidget* ranksTable() const { return m_ranks; }
    QTableWidget* collectivesTable() const { return m_collectives; }
    // The current page's table (the ranks on the Overview, the collectives); null elsewhere.
    QAbstractItemView* currentTable() const;
    QCPColorMap* heatmap() const { return m_map; }
    void showMetric(Metric metric);
    // The heatmap as it is coloured now, for a report (`width` x `height` at twice the pixels).
    QImage heatmapImage(int width, int height) const;
    // The Timelines page, built when first shown: one timeline per rank.
    const std::vector<TimelinePage*>& timelines() const;
    // Every rank's timeline shows the common step `index` (0-based among the common steps).
    void alignOnStep(int index);
    // The Timelines page's one search: every rank's slices named like its text are outlined;
    // Enter, next and previous select each rank's next match.
    QLineEdit* searchField() const;
    void focusFilter();  // Ctrl+F: the Timelines page's search
    StackedTimelines* stackedTimelines() const { return m_stack; }

    // Every rank's document is here (the job was read from the traces and kept them): the
    // Timelines page can draw them. Otherwise that page offers to read the traces.
    bool hasEveryDocument() const;
    QPushButton* readTracesButton() const { return m_readTraces; }

Q_SIGNALS:
    // A rank's own pages were asked for (double-click on its row): its file, and its document
    // when the job kept it (null: open the file).
    void rankRequested(const QString& path, std::shared_ptr<const document::Document> rank);
    // The Timelines page asked for every rank's trace (the job was read from digests).
    void tracesRequested();

private:
    QWidget* overviewPage();
    QWidget* heatmapPage();
    QWidget* collectivesPage();
    QWidget* timelinesPlaceholder();
    void buildTimelines();

    job::Job m_job;
    std::vector<analysis::Finding> m_findings;
    QLabel* m_headline = nullptr;
    QTableWidget* m_ranks = nullptr;
    QTableWidget* m_collectives = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCPColorMap* m_map = nullptr;
    QWidget* m_timelinePage = nullptr;
    QComboBox* m_step = nullptr;
    StackedTimelines* m_stack = nullptr;
    QPushButton* m_readTraces = nullptr;
};

}  // namespace kinetoscope::widgets
