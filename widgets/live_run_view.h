#pragma once
// A lab run as it happens: progress and Cancel, the utilisation sawtooth (CPU and GPU
// busy %), one stacked phase bar per measured step, memory curves (CUDA allocator
// allocated vs reserved, GPU memory used, host resident), the lab table, the sweep plots
// (workers; batch size with peak memory and the out-of-memory marked), the memory triage
// after each phase of a step and, at the end, the seeds' reading. An inference run shows
// its latency percentiles as the batches come. A script run under the probe (`kinetoscope
// profile`, File > Profile a script) shows the same plots without the lab's arms table, and
// where the script's own output goes. Fed by queued calls from the engine's (or the
// launcher's) threads; redraws at most every 100 ms, so a fast run never floods the event loop.
#include "core/session/session.h"

#include <QWidget>
#include <map>
#include <memory>

class QCustomPlot;
class QCPBars;
class QCPGraph;
class QGridLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QTimer;

namespace kinetoscope::widgets {

class EnvelopeCurve;
class SlowestStepBars;

class LiveRunView : public QWidget
{
    Q_OBJECT
public:
    explicit LiveRunView(const QString& title, QWidget* parent = nullptr);
    ~LiveRunView() override;

    // fraction of the run done, 0-1; below 0 when the run's length is not known (a script
    // that runs to its end): the bar shows it is busy.
    void setProgress(const QString& stage, double fraction);
    void addStep(const session::StepTiming& step);
    // The steps shown so far were not the run's (a script's no-grad forwards counted as
    // inference until its optimizer first stepped: the launcher dropped them): gone.
    void clearSteps();
    void addSample(const session::LiveSample& sample);
    // `machineCores`: the machine the arm ran on (a saved session's); 0: this one. An arm
    // that shared it with other processes says so in its status.
    void setArm(const session::LabArm& arm, int machineCores = 0);
    void addSweepPoint(const session::SweepPoint& point);
    void setMemory(const session::MemoryTriage& memory);
    // An inference run: the bars are each batch's latency, and its percentiles show live.
    void setInference(bool inference);
    // A profiled script rather than a lab: no arms table, the phase bars are the script's
    // measured steps; under the status line its command (as a shell would read it) and, when
    // not empty, `outputLog`: the file that holds its standard output and error.
    void setScriptRun(const QString& command, const QString& outputLog);
    // The end: the error in one line (empty when it went well) and the seeds' reading.
    void finish(const QString& error, const QStringList& reading);

    // For tests and screenshots.
    int stepBars() const;  // bars drawn: one a step, then one a group past kMostBars
    int sampleCount() const;
    int sweepPoints() const;
    int checkpointedSweepPoints() const;  // batch sizes measured with activation checkpointing
    QTableWidget* labTable() const { return m_labTable; }
    QTableWidget* memoryTable() const { return m_memoryTable; }
    bool outOfMemoryMarked() const;
    QCustomPlot* batchSweepPlot() const { return m_batch; }
    QString latencyText();  // (its percentiles brought up to date first)
    QString statusText() const;
    QString readingText() const;
    QString scriptText() const;  // the lines naming a script's command and output; empty if none
    bool isRunning() const { return m_running; }
    // A finished run read back from its session: every figure it measured, as the live
    // view showed them (a lab recorded without a trace opens as this).
    void showSession(const session::Session& session);
    // "MODEL on DATASET, batch N" (a profiled script: its command): the title of a finished
    // run read back from its session.
    static QString titleOf(const session::Session& session);

Q_SIGNALS:
    void cancelRequested();

private:
    void markDirty();
    void showLatency();
    void addPoint(QCPGraph* curve, double seconds,
                  double value);  // a live curve's sample  // the latency line, when batches came
                                  // since it was written
    // What the plots hold at most (live_series.h): a redraw's cost stops growing there.
    static constexpr int kMostPoints = 4096;       // a curve's points (20 Hz: 3.4 minutes)
    static constexpr int kMostBars = 2048;         // the phase bars
    bool measured(const QCustomPlot* plot) const;  // has something to draw
    void arrange();                                // the cells with something to show, in the grid
    void showSweeps();                             // a sweep's plot with its first point
    void setLabExportColumns();  // the arms table's names and units for the CSV export

    QLabel* m_status;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QLabel* m_script;  // a script's command and where its output goes (hidden for a lab)
    QCustomPlot* m_utilisation;
    QCustomPlot* m_phases;
    QCustomPlot* m_memory;
    QCustomPlot* m_sweep;
    QCustomPlot* m_batch;
    QTableWidget* m_labTable;
    QTableWidget* m_memoryTable;
    QLabel* m_memoryNote;  // what the table's figures leave out ("reserved: the CPU has no caching
                           // allocator")
    QGridLayout* m_grid = nullptr;
    QWidget* m_memoryBox = nullptr;  // the memory triage's table and its note
    QLabel* m_latency;
    QLabel* m_reading;
    std::vector<QCPBars*> m_phaseBars;  // data, h2d, forward, backward, optimizer (stacked)
    std::unique_ptr<SlowestStepBars> m_slowestBars;  // what they hold: a bar a step, or a group
    std::map<const QCPGraph*, std::unique_ptr<EnvelopeCurve>> m_envelopes;  // the live curves
    QCPGraph* m_cpu = nullptr;
    QCPGraph* m_gpu = nullptr;
    QCPGraph* m_allocated = nullptr;
    QCPGraph* m_reserved = nullptr;
    QCPGraph* m_gpuUsed = nullptr;
    QCPGraph* m_resident = nullptr;
    QCPGraph* m_sweepWorkers = nullptr;
    // The batch-size sweep: samples/s on the left axis, peak allocated (MiB) on the right;
    // the series with activation checkpointing beside the one without, dotted.
    QCPGraph* m_sweepBatch = nullptr;
    QCPGraph* m_batchPeak = nullptr;
    QCPGraph* m_checkpointedBatch = nullptr;
    QCPGraph* m_checkpointedPeak = nullptr;
    QCPGraph* m_batchOutOfMemory = nullptr;  // a cross on the axis at each batch that ran out
    bool m_inference = false;
    std::vector<double> m_latenciesMs;  // an inference run's measured batches
    size_t m_latencyShown = 0;          // how many of them the latency line reads
    QTimer* m_replot;                   // single shot: started by what arrives
    bool m_running = true;
    int m_steps = 0;
    int m_samples = 0;
    double m_maxStepMs = 0;
    double m_maxMemoryGb = 0;  // GiB
    double m_maxSweep = 0;
    double m_minBatch = 0;
    double m_maxBatch = 0;
    double m_maxBatchPeakMib = 0;
};

}  // namespace kinetoscope::widgets
