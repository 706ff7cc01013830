#include "widgets/live_run_view.h"

#include "core/format/format.h"
#include "core/session/lab_reading.h"
#include "core/session/memory_reading.h"
#include "core/session/timing_stats.h"
#include "widgets/chart_style.h"
#include "widgets/keyboard_focus.h"
#include "widgets/live_series.h"
#include "widgets/table_export.h"

#include <QFontMetrics>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>
#include <numeric>
#include <qcustomplot.h>
#include <thread>

namespace kinetoscope::widgets {

namespace {

struct PhaseStyle
{
    const char* name;
    QColor color;
};
// The phases in the order the engine times them; colours as the breakdown's nearest kin.
const PhaseStyle kPhases[] = {{"data wait", QColor(0xd3, 0x2f, 0x2f)},
                              {"host to device", QColor(0x15, 0x65, 0xc0)},
                              {"forward", QColor(0x2e, 0x7d, 0x32)},
                              {"backward", QColor(0x66, 0xbb, 0x6a)},
                              {"optimizer", QColor(0xff, 0xa0, 0x00)}};

// legendColumns > 0: the legend under the plot, that many entries wide; else beside it.
QCustomPlot* makePlot(QWidget* parent, const QString& xLabel, const QString& yLabel,
                      const QString& tooltip, int legendColumns = 0)
{
    auto* plot = new QCustomPlot(parent);
    applyChartStyle(*plot);
    plot->setMinimumHeight(150);
    plot->xAxis->setLabel(xLabel);
    plot->yAxis->setLabel(yLabel);
    if (legendColumns > 0) {
        // Under the plot: a long entry ("GPU: not available (no NVML)") never narrows the axes.
        showLegendBelow(*plot, legendColumns);
        plot->setMinimumHeight(190);  // its rows under the axes
    } else {
        showLegendBeside(*plot);
    }
    plot->setToolTip(tooltip);
    return plot;
}

QCPGraph* addCurve(QCustomPlot* plot, const QString& name, const QColor& color, bool fill,
                   bool dashed = false)
{
    QCPGraph* graph = plot->addGraph();
    graph->setName(name);
    // One pixel wide: Qt's raster engine draws a wider line through its path stroker, which
    // made each redraw of a few thousand samples take 0.6 s against 15 ms (bench_live_view).
    graph->setPen(QPen(color, 1, dashed ? Qt::DashLine : Qt::SolidLine));
    if (fill)
        graph->setBrush(QColor(color.red(), color.green(), color.blue(), 50));
    return graph;
}

}  // namespace

LiveRunView::LiveRunView(const QString& title, QWidget* parent)
    : QWidget(parent), m_status(new QLabel(title, this)), m_progress(new QProgressBar(this)),
      m_cancel(new QPushButton(tr("Cancel"), this)), m_script(new QLabel(this)),
      m_labTable(new QTableWidget(0, 5, this)), m_memoryTable(new QTableWidget(0, 4, this)),
      m_memoryNote(new QLabel(this)), m_latency(new QLabel(this)), m_reading(new QLabel(this)),
      m_replot(new QTimer(this))
{
    auto* layout = new QVBoxLayout(this);
    m_status->setWordWrap(true);  // a long error in full, never wider than the page
    // Even one naming a long path: wrapped where it can, cut where it cannot.
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* top = new QHBoxLayout;
    top->addWidget(m_status, 1);
    top->addWidget(m_progress);
    top->addWidget(m_cancel);
    layout->addLayout(top);
    m_script->setWordWrap(true);
    // A long path wraps where it can and never widens the page past the screen.
    m_script->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_script->setTextFormat(Qt::RichText);
    m_script->setOpenExternalLinks(true);
    m_script->setTextInteractionFlags(Qt::TextBrowserInteraction);
    m_script->setStyleSheet(QStringLiteral("color: #616161"));
    m_script->hide();
    layout->addWidget(m_script);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(260);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_cancel->setEnabled(false);
        m_status->setText(tr("Cancelling…"));
        Q_EMIT cancelRequested();
    });

    m_utilisation = makePlot(
        this, tr("time since the run started (s)"), tr("busy (%)"),
        tr("CPU: busy share of all cores (/proc/stat). GPU: NVML utilisation of the run's GPU "
           "(not available without the NVIDIA driver)."),
        /*legendColumns=*/2);
    m_utilisation->yAxis->setRange(0, 105);
    m_cpu = addCurve(m_utilisation, tr("CPU"), QColor(0x75, 0x75, 0x75), false);
    m_gpu = addCurve(m_utilisation, tr("GPU"), QColor(0x2e, 0x7d, 0x32), true);

    m_phases = makePlot(this, tr("step"), tr("ms"),
                        tr("Each measured step of the fp32 arm, split into its phases."),
                        /*legendColumns=*/3);
    QCPBars* below = nullptr;
    for (const PhaseStyle& phase : kPhases) {
        auto* bars = new QCPBars(m_phases->xAxis, m_phases->yAxis);
        bars->setName(QString::fromLatin1(phase.name));
        bars->setPen(Qt::NoPen);
        bars->setBrush(phase.color);
        bars->setWidth(0.75);
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_phaseBars.push_back(bars);
    }
    m_slowestBars = std::make_unique<SlowestStepBars>(m_phaseBars, kMostBars);

    m_memory = makePlot(
        this, tr("time since the run started (s)"), tr("GiB"),
        tr("CUDA caching allocator: allocated (live tensors) vs reserved (held from the driver); "
           "GPU memory used by every process (NVML); this process's resident host memory."),
        /*legendColumns=*/2);
    m_allocated = addCurve(m_memory, tr("allocated"), QColor(0x15, 0x65, 0xc0), true);
    m_reserved = addCurve(m_memory, tr("reserved"), QColor(0x8e, 0x24, 0xaa), false);
    m_gpuUsed = addCurve(m_memory, tr("GPU used (NVML)"), QColor(0x00, 0x83, 0x8f), false, true);
    m_resident = addCurve(m_memory, tr("host resident"), QColor(0x79, 0x55, 0x48), false);

    m_sweep = makePlot(this, tr("loader workers"), tr("samples/s"),
                       tr("Samples per second against the loader's workers."));
    m_sweepWorkers = addCurve(m_sweep, tr("workers"), QColor(0x15, 0x65, 0xc0), false);
    m_batch = makePlot(
        this, tr("batch size"), tr("samples/s"),
        tr("The batch-size sweep: samples per second (left) and the step's peak allocated memory "
           "(right: the CUDA caching allocator's, or on the CPU the engine's counting allocator's) "
           "against the batch size; the first size that ran out of memory is marked and the larger "
           "ones are not run. With activation checkpointing (ckpt), its series is dotted beside "
           "the "
           "plain one: the memory it saves and the time it costs."),
        /*legendColumns=*/3);
    m_batch->setMinimumHeight(180);  // the legend takes a row under it
    m_batch->yAxis2->setVisible(true);
    m_batch->yAxis2->setLabel(tr("peak MiB"));
    const QColor rate(0xd3, 0x2f, 0x2f), peak(0x8e, 0x24, 0xaa);
    m_sweepBatch = addCurve(m_batch, tr("samples/s"), rate, false);
    m_batchPeak = m_batch->addGraph(m_batch->xAxis, m_batch->yAxis2);
    m_batchPeak->setName(tr("peak"));
    m_batchPeak->setPen(QPen(peak, 1.4, Qt::DashLine));
    m_checkpointedBatch = addCurve(m_batch, tr("samples/s (ckpt)"), rate, false);
    m_checkpointedBatch->setPen(QPen(rate, 1.4, Qt::DotLine));
    m_checkpointedPeak = m_batch->addGraph(m_batch->xAxis, m_batch->yAxis2);
    m_checkpointedPeak->setName(tr("peak (ckpt)"));
    m_checkpointedPeak->setPen(QPen(peak, 1.4, Qt::DotLine));
    m_batchOutOfMemory = m_batch->addGraph();
    m_batchOutOfMemory->setName(tr("OOM"));
    m_batchOutOfMemory->setLineStyle(QCPGraph::lsNone);
    m_batchOutOfMemory->setScatterStyle(QCPScatterStyle(
        QCPScatterStyle::ssCross, QPen(QColor(0xc6, 0x28, 0x28), 2.5), Qt::NoBrush, 12));
    for (QCPGraph* g : {m_sweepWorkers, m_sweepBatch, m_batchPeak})
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 7));
    for (QCPGraph* g : {m_checkpointedBatch, m_checkpointedPeak}) {
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle, 7));
        g->removeFromLegend();  // until a checkpointed point arrives
    }
    // Batch sizes are usually powers of two.
    m_batch->xAxis->setScaleType(QCPAxis::stLogarithmic);
    m_batch->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));

    m_memoryTable->setHorizontalHeaderLabels(
        {tr("After"), tr("allocated"), tr("reserved"), tr("peak allocated")});
    setExportColumns(*m_memoryTable, {{tr("After"), {}},
                                      {tr("allocated"), QStringLiteral("bytes")},
                                      {tr("reserved"), QStringLiteral("bytes")},
                                      {tr("peak allocated"), QStringLiteral("bytes")}});
    installTableExport(m_memoryTable, QStringLiteral("lab-memory"));
    // Every row shown, in rows of the text's height: the page scrolls, never the table inside
    // it (a table's own scroll bar inside a scrolling page takes the wheel from it). The
    // phase's name gives way to the figures on a narrow window (its tooltip has it whole).
    m_memoryTable->verticalHeader()->hide();
    tabLeavesTable(m_memoryTable);
    m_memoryTable->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_memoryTable->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_memoryTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_memoryTable->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_memoryTable->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_memoryTable->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_memoryTable->setMinimumWidth(200);
    m_memoryTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_memoryTable->setToolTip(
        tr("The seeds' memory triage: the allocator after each phase of the first step (the "
           "optimizer's state is created) and of a steady step, then where the memory goes. "
           "On a GPU the CUDA caching allocator; on the CPU the engine's counting allocator, "
           "which holds nothing in reserve (no reserved column). The phase that sets the peak "
           "is in bold."));
    m_latency->setVisible(false);

    m_labTable->setHorizontalHeaderLabels(
        {tr("Arm"), tr("throughput"), tr("step"), tr("peak allocated"), tr("status")});
    setLabExportColumns();
    m_labTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    installTableExport(m_labTable, QStringLiteral("lab-arms"));
    m_labTable->verticalHeader()->hide();
    m_labTable->horizontalHeader()->setStretchLastSection(true);
    m_labTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tabLeavesTable(m_labTable);
    // As tall as its header and rows (setArm): no blank band under the arms, no row cut; a
    // status wider than the page is cut, whole in its tooltip, rather than scrolled.
    m_labTable->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_labTable->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_labTable->setToolTip(
        tr("The three-run lab: same seed, same data slice. The third arm is bf16 with the whole "
           "step captured as one CUDA graph, the C++ counterpart of "
           "torch.compile(mode=\"reduce-overhead\"), which has no C++ API."));
    m_reading->setObjectName(QStringLiteral("lab-reading"));
    m_reading->setWordWrap(true);
    m_reading->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reading->setStyleSheet(
        QStringLiteral("QLabel { background: #f5f5f5; border: 1px solid #e0e0e0; padding: 6px; }"));
    m_reading->hide();  // until there is something to read

    // Below the status line, everything scrolls: on a laptop's screen the plots keep a
    // readable height and the page never asks for more than the screen has. The reading and
    // the arms come first: once the run has ended they are its conclusion, read without
    // scrolling; the plots are its evidence.
    auto* body = new QWidget(this);
    auto* bodyLayout = new QVBoxLayout(body);
    bodyLayout->setContentsMargins(0, 0, 0, 0);
    m_grid = new QGridLayout;
    m_memoryBox = new QWidget(body);
    auto* memoryColumn = new QVBoxLayout(m_memoryBox);
    memoryColumn->setContentsMargins(0, 0, 0, 0);
    memoryColumn->addWidget(m_memoryTable, 1);
    memoryColumn->addWidget(m_memoryNote);
    m_memoryNote->setWordWrap(true);
    m_memoryNote->setStyleSheet(QStringLiteral("color: #616161"));
    m_memoryNote->hide();
    bodyLayout->addWidget(m_reading);
    bodyLayout->addWidget(m_labTable);
    bodyLayout->addWidget(m_latency);
    bodyLayout->addLayout(m_grid, 1);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(body);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    showFocusRing(scroll);  // (the page scrolls from the keyboard)
    layout->addWidget(scroll, 1);
    arrange();

    // A redraw at most every 100 ms while something arrives; none when nothing does (an
    // ended run's view never wakes).
    m_replot->setInterval(100);
    m_replot->setSingleShot(true);
    connect(m_replot, &QTimer::timeout, this, [this] {
        showLatency();
        for (QCustomPlot* plot : {m_utilisation, m_phases, m_memory, m_sweep, m_batch})
            plot->replot(QCustomPlot::rpQueuedReplot);
    });
}

LiveRunView::~LiveRunView() = default;

void LiveRunView::markDirty()
{
    if (!m_replot->isActive())
        m_replot->start();
}

void LiveRunView::showLatency()
{
    if (!m_inference || m_latencyShown == m_latenciesMs.size())
        return;
    m_latencyShown = m_latenciesMs.size();
    const session::PhaseTiming t = session::timingStats("latency", m_latenciesMs);
    auto ms = [](double value) { return QString::fromStdString(format::duration(value * 1e6)); };
    m_latency->setText(
        tr("Latency per batch (fp32, %1 batches): mean %2 · std %3 · p50 %4 · p95 %5 · p99 %6")
            .arg(m_latenciesMs.size())
            .arg(ms(t.meanMs), ms(t.stdMs), ms(t.medianMs), ms(t.p95Ms), ms(t.p99Ms)));
}

bool LiveRunView::measured(const QCustomPlot* plot) const
{
    if (plot == m_phases)
        return m_steps > 0;
    for (int i = 0; i < plot->graphCount(); ++i)
        if (!plot->graph(i)->data()->isEmpty())
            return true;
    return false;
}

void LiveRunView::arrange()
{
    // What was measured, and while running what is measured as it goes (samples, steps): a
    // sweep's plot comes with its first point, the memory triage with its figures, and at the
    // end a plot that got nothing goes. The cells shown fill the grid in this order, two a
    // row when four, else three.
    const std::pair<QWidget*, bool> cells[] = {
        {m_utilisation, m_running || measured(m_utilisation)},
        {m_phases, m_running || measured(m_phases)},
        {m_batch, measured(m_batch)},
        {m_memory, m_running || measured(m_memory)},
        {m_sweep, measured(m_sweep)},
        {m_memoryBox, m_memoryTable->rowCount() > 0}};
    int shown = 0;
    for (const auto& [cell, show] : cells) {
        m_grid->removeWidget(cell);
        shown += show;
    }
    const int columns = shown == 4 ? 2 : 3;
    int at = 0;
    for (const auto& [cell, show] : cells) {
        if (show) {
            m_grid->addWidget(cell, at / columns, at % columns);  // reparents it: shown after
            ++at;
        }
        cell->setVisible(show);
    }
    for (int column = 0; column < 3; ++column)
        m_grid->setColumnStretch(column, column < std::min(shown, columns) ? 1 : 0);
    markDirty();
}

void LiveRunView::setProgress(const QString& stage, double fraction)
{
    if (!m_running)
        return;
    if (fraction < 0) {
        m_progress->setRange(0, 0);  // busy: how long the run lasts is not known
    } else {
        m_progress->setRange(0, 1000);
        m_progress->setValue(int(fraction * 1000));
    }
    if (m_cancel->isEnabled())
        m_status->setText(tr("Running: %1").arg(stage));
}

void LiveRunView::addStep(const session::StepTiming& step)
{
    const std::vector<double> values = {step.dataMs, step.h2dMs, step.forwardMs, step.backwardMs,
                                        step.optimizerMs};
    m_slowestBars->add(double(step.step), values);
    const double total = std::accumulate(values.begin(), values.end(), 0.0);
    ++m_steps;
    if (m_inference)
        m_latenciesMs.push_back(step.forwardMs);  // its percentiles at the next redraw
    m_maxStepMs = std::max(m_maxStepMs, total);
    m_phases->yAxis->setRange(0, m_maxStepMs * 1.1);
    m_phases->xAxis->setRange(double(step.step - m_steps) + 0.5, double(step.step) + 0.5);
    markDirty();
}

void LiveRunView::clearSteps()
{
    m_slowestBars->clear();
    m_steps = 0;
    m_maxStepMs = 0;
    m_latenciesMs.clear();
    markDirty();
}

void LiveRunView::addSample(const session::LiveSample& s)
{
    ++m_samples;
    addPoint(m_cpu, s.seconds, std::max(0.0, s.cpuPercent));
    if (s.gpuPercent >= 0)
        addPoint(m_gpu, s.seconds, s.gpuPercent);
    auto addGb = [&](QCPGraph* graph, int64_t bytes) {
        if (bytes < 0)
            return;
        addPoint(graph, s.seconds, double(bytes) / format::kGiB);
        m_maxMemoryGb = std::max(m_maxMemoryGb, double(bytes) / format::kGiB);
    };
    addGb(m_allocated, s.allocatedBytes);
    addGb(m_reserved, s.reservedBytes);
    addGb(m_gpuUsed, s.gpuMemoryUsedBytes);
    addGb(m_resident, s.residentBytes);
    m_utilisation->xAxis->setRange(0, std::max(1.0, s.seconds));
    m_memory->xAxis->setRange(0, std::max(1.0, s.seconds));
    m_memory->yAxis->setRange(0, std::max(0.1, m_maxMemoryGb * 1.15));
    markDirty();
}

void LiveRunView::addPoint(QCPGraph* curve, double seconds, double value)
{
    auto it = m_envelopes.find(curve);
    if (it == m_envelopes.end())
        it = m_envelopes.emplace(curve, std::make_unique<EnvelopeCurve>(curve, kMostPoints)).first;
    it->second->add(seconds, value);
}

void LiveRunView::setArm(const session::LabArm& arm, int machineCores)
{
    const int row = m_labTable->rowCount();
    m_labTable->insertRow(row);
    // `raw`: the number the CSV export writes (table_export.h); none for text, and a figure
    // not measured ("—") exports blank.
    auto set = [&](int column, const QString& text, const QVariant& raw = {}) {
        auto* item = new QTableWidgetItem(text);
        if (column > 0 && column < 4)
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (raw.isValid())
            item->setData(RawValueRole, raw);
        else if (column > 0 && column < 4)
            item->setData(ExportRole, QString());
        m_labTable->setItem(row, column, item);
    };
    set(0, QString::fromLatin1(arm.name()));
    // The same figures, in the same words, as `kinetoscope run` prints (core/format).
    auto text = [](const std::string& s) { return QString::fromStdString(s); };
    if (arm.ran) {
        set(1, text(format::rate(arm.samplesPerSecond, "samples")), arm.samplesPerSecond);
        set(2, text(format::duration(arm.meanStepMs * 1e6)), arm.meanStepMs * 1e6);
        if (arm.peakAllocatedBytes >= 0)
            set(3, text(format::bytes(double(arm.peakAllocatedBytes))),
                qlonglong(arm.peakAllocatedBytes));
        else
            set(3, QStringLiteral("—"));  // a script on the CPU: no allocator to read
    } else {
        for (int column : {1, 2, 3})
            set(column, QStringLiteral("—"));
    }
    QString status =
        arm.ran ? tr("measured") : tr("not run: %1").arg(QString::fromStdString(arm.skippedReason));
    if (arm.compileSeconds >= 0)
        status += tr("; compiling %1 apart").arg(text(format::duration(arm.compileSeconds * 1e9)));
    if (!arm.note.empty())
        status += QStringLiteral("; ") + text(arm.note);
    if (arm.ran && session::sharedMachine(
                       arm.otherCpuCores,
                       machineCores > 0 ? machineCores : int(std::thread::hardware_concurrency())))
        status += tr("; other processes used %1 cores meanwhile")
                      .arg(text(format::number(arm.otherCpuCores)));
    set(4, status);
    m_labTable->item(row, 4)->setToolTip(status);
    if (arm.kind == session::ArmKind::Bf16Compile)  // a script's lab: the real compiler
        m_labTable->setToolTip(
            tr("The three-run lab on the script: same seed, same data. The third arm is bf16 "
               "with the model compiled by torch.compile; its compilation is timed apart and "
               "never counts in its steady figures."));
    m_labTable->show();  // a script's run hides it until a lab arm comes
    m_labTable->resizeColumnsToContents();
    m_labTable->setFixedHeight(m_labTable->horizontalHeader()->sizeHint().height() +
                               m_labTable->verticalHeader()->length() +
                               2 * m_labTable->frameWidth());
}

void LiveRunView::addSweepPoint(const session::SweepPoint& p)
{
    const bool batch = p.knob == "batch_size";
    if (!p.error.empty()) {
        const QString series = p.checkpointEvery > 0
                                   ? QStringLiteral(" (%1)").arg(QString::fromStdString(
                                         session::checkpointingName(p.checkpointEvery)))
                                   : QString();
        m_reading->setText(m_reading->text() + tr("Sweep %1 = %2%3: %4\n")
                                                   .arg(QString::fromStdString(p.knob))
                                                   .arg(p.value)
                                                   .arg(series, QString::fromStdString(p.error)));
        m_reading->show();
        if (batch && p.error.starts_with("out of memory")) {
            // The legend's entry (no point drawn: NaN); the cross and its label stand on the
            // axis, whatever the y range, rather than half under it.
            m_batchOutOfMemory->addData(double(p.value), qQNaN());
            const bool checkpointed = p.checkpointEvery > 0;
            const QColor red(0xc6, 0x28, 0x28);
            // Where the batch ran out of memory, on the x axis whatever the y range: a cross
            // of two lines standing on the axis (a glyph's box left it a few px above), and its
            // label over it; the checkpointed series' a line higher, clear of the plain one's.
            auto* foot = new QCPItemTracer(m_batch);
            foot->setStyle(QCPItemTracer::tsNone);
            foot->position->setTypeX(QCPItemPosition::ptPlotCoords);
            foot->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
            foot->position->setCoords(double(p.value), 1.0);
            constexpr double kHalf = 5;  // px: the cross is as large as the legend's
            for (const double slope : {1.0, -1.0}) {
                auto* stroke = new QCPItemLine(m_batch);
                stroke->setPen(QPen(red, 2.5));
                for (QCPItemPosition* end : {stroke->start, stroke->end})
                    end->setParentAnchor(foot->position);
                stroke->start->setCoords(-kHalf, slope > 0 ? 0 : -2 * kHalf);
                stroke->end->setCoords(kHalf, slope > 0 ? -2 * kHalf : 0);
            }
            auto* label = new QCPItemText(m_batch);
            label->position->setParentAnchor(foot->position);
            label->position->setCoords(0, checkpointed ? -32 : -16);
            label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            label->setText(checkpointed ? tr("OOM (ckpt)") : tr("OOM"));
            label->setColor(red);
            m_maxBatch = std::max(m_maxBatch, double(p.value));
            m_batch->xAxis->setRange(m_batch->xAxis->range().lower, m_maxBatch * 2);
            showSweeps();
        }
        return;
    }
    if (batch) {
        const bool checkpointed = p.checkpointEvery > 0;
        QCPGraph* rateCurve = checkpointed ? m_checkpointedBatch : m_sweepBatch;
        QCPGraph* peakCurve = checkpointed ? m_checkpointedPeak : m_batchPeak;
        if (checkpointed && rateCurve->data()->isEmpty()) {
            rateCurve->addToLegend();  // a second legend row, under the plain pair and OOM
            peakCurve->addToLegend();
        }
        rateCurve->addData(double(p.value), p.samplesPerSecond);
        if (p.peakAllocatedBytes >= 0) {
            const double mib = double(p.peakAllocatedBytes) / (1024.0 * 1024.0);
            peakCurve->addData(double(p.value), mib);
            m_maxBatchPeakMib = std::max(m_maxBatchPeakMib, mib);
        }
        m_maxBatch = std::max(m_maxBatch, double(p.value));
        m_minBatch = m_minBatch > 0 ? std::min(m_minBatch, double(p.value)) : double(p.value);
        m_batch->xAxis->setRange(m_minBatch / 2, m_maxBatch * 2);
        m_batch->yAxis->setRange(
            0, std::max(m_batch->yAxis->range().upper, p.samplesPerSecond * 1.15));
        m_batch->yAxis2->setRange(0, std::max(1.0, m_maxBatchPeakMib * 1.15));
        if (m_batchPeak->data()->isEmpty() && m_checkpointedPeak->data()->isEmpty())
            m_batchPeak->setName(tr("peak: not measured"));
        else
            m_batchPeak->setName(tr("peak"));
    } else {
        m_sweepWorkers->addData(double(p.value), p.samplesPerSecond);
        m_maxSweep = std::max(m_maxSweep, p.samplesPerSecond);
        bool found = false;
        const QCPRange keys = m_sweepWorkers->getKeyRange(found);
        m_sweep->xAxis->setRange(keys.lower - 1, keys.upper + 1);
        m_sweep->yAxis->setRange(0, m_maxSweep * 1.15);
    }
    showSweeps();
}

void LiveRunView::showSweeps()
{
    // A sweep's plot is shown from its first point on.
    if ((m_batch->isHidden() && measured(m_batch)) || (m_sweep->isHidden() && measured(m_sweep)))
        arrange();
    markDirty();
}

void LiveRunView::setMemory(const session::MemoryTriage& m)
{
    m_memoryTable->setRowCount(0);
    const std::optional<session::PeakReading> peak = session::readPeak(m);
    // Shown formatted; exported raw (bytes), a figure not measured ("—") blank.
    auto cell = [](int64_t bytes) {
        return std::pair<QString, int64_t>{
            bytes < 0 ? QStringLiteral("—") : QString::fromStdString(format::bytes(double(bytes))),
            bytes};
    };
    using Cells = std::vector<std::pair<QString, int64_t>>;
    // A column nothing measured (reserved, on the CPU) is hidden; the table's note says why.
    bool anyReserved = false;
    for (const auto* rows : {&m.firstStep, &m.steadyStep})
        for (const session::PhaseMemory& r : *rows)
            anyReserved |= r.reservedBytes >= 0;
    m_memoryTable->setColumnHidden(2, !anyReserved);
    m_memoryNote->setText(QString::fromStdString(m.unavailable));
    m_memoryNote->setVisible(!m.unavailable.empty());
    auto addRow = [&](const QString& label, const Cells& values, bool bold) {
        const int row = m_memoryTable->rowCount();
        m_memoryTable->insertRow(row);
        for (int column = 0; column < 4; ++column) {
            const bool has = column > 0 && size_t(column - 1) < values.size();
            auto* item = new QTableWidgetItem(column == 0 ? label
                                              : has       ? values[size_t(column - 1)].first
                                                          : QString());
            if (column > 0)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (has && values[size_t(column - 1)].second >= 0)
                item->setData(RawValueRole, qlonglong(values[size_t(column - 1)].second));
            else if (column > 0)
                item->setData(ExportRole, QString());
            QFont font = item->font();
            font.setBold(bold);
            item->setFont(font);
            if (column == 0)
                item->setToolTip(label);
            m_memoryTable->setItem(row, column, item);
        }
    };
    for (const auto* rows : {&m.firstStep, &m.steadyStep}) {
        const bool first = rows == &m.firstStep;
        for (const session::PhaseMemory& r : *rows) {
            const bool setsPeak = peak && peak->firstStep == first && peak->phase == r.phase;
            addRow(
                (first ? tr("step 0: %1") : tr("steady: %1")).arg(QString::fromStdString(r.phase)),
                {cell(r.allocatedBytes), cell(r.reservedBytes), cell(r.peakAllocatedBytes)},
                setsPeak);
        }
    }
    const session::MemorySplit& split = m.split;
    addRow(tr("parameters (%1)").arg(QString::fromStdString(format::count(split.parameterCount))),
           {cell(split.parameterBytes)}, false);
    addRow(tr("gradients"), {cell(split.gradientBytes)}, false);
    addRow(tr("optimizer state"), {cell(split.optimizerStateBytes)}, false);
    addRow(tr("activations"), {cell(split.activationBytes)}, false);
    m_memoryTable->setFixedHeight(m_memoryTable->horizontalHeader()->sizeHint().height() +
                                  m_memoryTable->verticalHeader()->length() +
                                  2 * m_memoryTable->frameWidth());
    if (m_memoryBox->isHidden())
        arrange();
}

void LiveRunView::setLabExportColumns()
{
    setExportColumns(*m_labTable, {{tr("Arm"), {}},
                                   {tr("throughput"), QStringLiteral("samples/s")},
                                   {m_inference ? tr("latency") : tr("step"), QStringLiteral("ns")},
                                   {tr("peak allocated"), QStringLiteral("bytes")},
                                   {tr("status"), {}}});
}

void LiveRunView::setInference(bool inference)
{
    m_inference = inference;
    m_latency->setVisible(inference);
    m_latency->setText(tr("Latency per batch: waiting for the first measured batch…"));
    m_phases->yAxis->setLabel(inference ? tr("ms per batch") : tr("ms"));
    m_labTable->setHorizontalHeaderItem(
        2, new QTableWidgetItem(inference ? tr("latency") : tr("step")));
    setLabExportColumns();
    m_phases->setToolTip(
        inference ? tr("Each measured batch of the fp32 arm: the wait for data, the copy to the "
                       "device, and the forward (the latency).")
                  : tr("Each measured step of the fp32 arm, split into its phases."));
    markDirty();
}

void LiveRunView::finish(const QString& error, const QStringList& reading)
{
    m_running = false;
    m_cancel->hide();
    if (m_progress->maximum() == 0)  // was busy: a known end now
        m_progress->setRange(0, 1000);
    m_progress->setValue(error.isEmpty() ? 1000 : m_progress->value());
    m_status->setText(error.isEmpty() ? tr("Finished.") : tr("Stopped: %1").arg(error));
    m_status->setStyleSheet(error.isEmpty() ? QString() : QStringLiteral("color: #c62828"));
    // Curves that never got a sample say why in the legend.
    if (m_gpu->data()->isEmpty())
        m_gpu->setName(tr("GPU: not available (no NVML)"));
    for (QCPGraph* g : {m_allocated, m_reserved})
        if (g->data()->isEmpty())
            g->setName(g->name() + tr(": CUDA only"));
    if (m_gpuUsed->data()->isEmpty())
        m_gpuUsed->setName(tr("GPU used: not available"));
    QString text = m_reading->text();
    for (const QString& line : reading)
        text += line + QLatin1Char('\n');
    m_reading->setText(text.trimmed());
    m_reading->setVisible(!m_reading->text().isEmpty());
    arrange();  // the plots that got nothing go
}

void LiveRunView::setScriptRun(const QString& command, const QString& outputLog)
{
    m_labTable->hide();
    m_phases->setToolTip(
        tr("Each measured step of the script (after its warm-up and the profiler window), split "
           "into its phases."));
    QStringList lines;
    if (!command.isEmpty())
        lines << tr("Command: <tt>%1</tt>").arg(command.toHtmlEscaped());
    if (!outputLog.isEmpty())
        lines << tr("Its output (standard output and error) goes to <a href=\"%1\">%2</a>")
                     .arg(QUrl::fromLocalFile(outputLog).toString(QUrl::FullyEncoded),
                          outputLog.toHtmlEscaped());
    m_script->setText(lines.join(QStringLiteral("<br>")));
    m_script->setVisible(!lines.isEmpty());
}

QString LiveRunView::titleOf(const session::Session& s)
{
    auto value = [&](const char* key) {
        const auto it = s.config.find(key);
        return it == s.config.end() ? QString() : QString::fromStdString(it->second);
    };
    if (value("kind") == QLatin1String("script"))
        return value("command");
    return tr("%1 on %2, batch %3").arg(value("model"), value("dataset"), value("batch_size"));
}

void LiveRunView::showSession(const session::Session& s)
{
    if (const auto kind = s.config.find("kind"); kind != s.config.end() && kind->second == "script")
        setScriptRun(titleOf(s), QString());
    setInference(s.inference());
    for (const session::StepTiming& step : s.steps)
        addStep(step);
    for (const session::LiveSample& sample : s.samples)
        addSample(sample);
    for (const session::LabArm& arm : s.lab)
        setArm(arm, session::machineCores(s));
    for (const session::SweepPoint& point : s.sweep)
        addSweepPoint(point);
    if (s.memory)
        setMemory(*s.memory);
    QStringList reading;
    for (const std::string& line : session::readLab(s).lines)
        reading << QString::fromStdString(line);
    finish(QString::fromStdString(s.interrupted), reading);
}

int LiveRunView::stepBars() const
{
    return m_slowestBars->bars();
}

int LiveRunView::sampleCount() const
{
    return m_samples;
}

int LiveRunView::sweepPoints() const
{
    return m_sweepWorkers->data()->size() + m_sweepBatch->data()->size() +
           m_checkpointedBatch->data()->size();
}

int LiveRunView::checkpointedSweepPoints() const
{
    return m_checkpointedBatch->data()->size();
}

bool LiveRunView::outOfMemoryMarked() const
{
    return !m_batchOutOfMemory->data()->isEmpty();
}

QString LiveRunView::latencyText()
{
    showLatency();
    return m_latency->text();
}

QString LiveRunView::statusText() const
{
    return m_status->text();
}

QString LiveRunView::readingText() const
{
    return m_reading->text();
}

QString LiveRunView::scriptText() const
{
    return m_script->isHidden() ? QString() : m_script->text();
}

}  // namespace kinetoscope::widgets
