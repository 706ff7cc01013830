#include "widgets/snapshot/snapshot_view.h"

#include "core/format/format.h"
#include "widgets/findings_view.h"
#include "widgets/snapshot/allocation_chart.h"
#include "widgets/snapshot/snapshot_tables.h"
#include "widgets/table_export.h"
#include "widgets/table_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace kinetoscope::widgets {

namespace {

QString bytesText(int64_t bytes)
{
    return QString::fromStdString(format::bytes(double(bytes)));
}

}  // namespace

SnapshotView::SnapshotView(std::shared_ptr<const document::Document> snapshot, QWidget* parent)
    : QWidget(parent), m_document(std::move(snapshot)), m_pages(new QTabWidget(this)),
      m_headline(new QLabel(this)), m_inTrace(new QLabel(this)),
      m_chart(new AllocationChart(m_document->snapshot, this)), m_readout(new QLabel(this)),
      m_findings(new FindingsView(this))
{
    const std::shared_ptr<const document::SnapshotDocument>& snap = m_document->snapshot;
    const snapshot::SnapshotSummary& s = snap->summary;
    m_headline->setText(headline());
    m_headline->setWordWrap(true);
    m_headline->setTextFormat(Qt::RichText);

    // Timeline: the chart, the device it shows, and the read-out below.
    auto* timelinePage = new QWidget(this);
    auto* timelineLayout = new QVBoxLayout(timelinePage);
    auto* bar = new QHBoxLayout;
    bar->addWidget(
        new QLabel(tr("Wheel: zoom · drag: pan · double-click: the whole history"), timelinePage));
    bar->addStretch(1);
    if (snap->timelines.size() > 1) {
        m_devices = new QComboBox(timelinePage);
        for (const snapshot::DeviceTimeline& t : snap->timelines)
            m_devices->addItem(tr("cuda:%1 (%2 entries)")
                                   .arg(t.device)
                                   .arg(QString::fromStdString(format::count(int64_t(t.size())))));
        m_devices->setCurrentIndex(m_chart->device());
        connect(m_devices, &QComboBox::currentIndexChanged, m_chart, &AllocationChart::setDevice);
        bar->addWidget(m_devices);
    }
    timelineLayout->addLayout(bar);
    timelineLayout->addWidget(m_chart, 1);
    m_readout->setWordWrap(true);
    m_readout->setTextFormat(Qt::RichText);
    m_readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_readout->setMinimumHeight(fontMetrics().height() * 6);
    m_readout->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    timelineLayout->addWidget(m_readout);
    showAllocation(-1, 0);
    connect(m_chart, &AllocationChart::allocationHovered, this, &SnapshotView::showAllocation);

    auto* atPeakModel = new StackGroupModel(snap, s.topStacksAtPeak, this);
    m_atPeak = new TableView(atPeakModel, StackGroupModel::Bytes, this);
    if (!s.topModulesAtPeak.empty()) {
        // The module grouping, where the stacks pass through nn.Module calls.
        m_groupBy =
            m_atPeak->addGroupChoice({tr("the line that allocated"), tr("the nn.Module call")});
        connect(m_groupBy, &QComboBox::currentIndexChanged, this, [snap, atPeakModel](int index) {
            if (index == 1)
                atPeakModel->setGroups(snap->summary.topModulesAtPeak,
                                       StackGroupModel::Key::ModuleCall);
            else
                atPeakModel->setGroups(snap->summary.topStacksAtPeak, StackGroupModel::Key::Place);
        });
    }
    m_leaks = new TableView(new StackGroupModel(snap, s.leaks, this), StackGroupModel::Bytes, this);
    m_segments =
        new TableView(new SegmentModel(snap, this), SegmentModel::State, this);  // split ones first
    for (TableView* table : {m_atPeak, m_leaks, m_segments})
        table->table()->horizontalHeader()->resizeSection(0, 320);
    setExportDocumentName(this, exportBaseName(QString::fromStdString(m_document->path)));
    m_atPeak->setExportName(QStringLiteral("at-peak"));
    m_leaks->setExportName(QStringLiteral("leaks"));
    m_segments->setExportName(QStringLiteral("segments"));
    m_findings->setFindings(m_document->findings);
    m_findings->setTraceActions(false);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_headline);
    m_inTrace->setWordWrap(true);
    m_inTrace->hide();  // until a trace of the same run is open
    layout->addWidget(m_inTrace);
    layout->addWidget(m_pages, 1);
    m_pages->addTab(timelinePage, tr("&Timeline"));
    m_pages->addTab(m_atPeak, tr("At the &peak"));
    m_pages->addTab(m_leaks, tr("&Leaks (%1)").arg(s.leaks.size()));
    m_pages->addTab(m_segments, tr("&Segments"));
    m_pages->addTab(m_findings, tr("&Diagnosis (%1)").arg(m_document->findings.size()));
}

QString SnapshotView::headline() const
{
    const snapshot::SnapshotSummary& s = m_document->snapshot->summary;
    QString text = tr("<b>A CUDA memory snapshot</b> — at the dump %1 reserved in %2 segments, %3 "
                      "allocated, %4 cached "
                      "in free blocks (the largest %5).")
                       .arg(bytesText(s.reservedBytes),
                            QString::fromStdString(format::count(int64_t(s.segments))),
                            bytesText(s.allocatedBytes), bytesText(s.inactiveBytes),
                            bytesText(s.largestFreeBlockBytes));
    if (s.traceEntries > 1) {
        text += tr(" Peak allocated <b>%1</b> on cuda:%2")
                    .arg(bytesText(s.peakAllocatedBytes))
                    .arg(s.peakDevice);
        if (s.peakTimeUs >= 0 && s.firstTimeUs >= 0)
            text += tr(", %1 into the history")
                        .arg(QString::fromStdString(
                            format::duration(double(s.peakTimeUs - s.firstTimeUs) * 1e3)));
        text += QLatin1Char('.');
    } else {
        text += tr(" No allocation history was recorded: the state at the dump is all there is.");
    }
    // The failure's state, not the dump's: a dump taken after the error caches what the
    // failed step freed since.
    if (const auto& oom = s.outOfMemory)
        text += tr(" <b>Out of memory:</b> a request of %1 failed on cuda:%2; %3.")
                    .arg(bytesText(oom->requestedBytes))
                    .arg(oom->device)
                    .arg(QString::fromStdString(snapshot::atFailureText(*oom)).toHtmlEscaped());
    return text;
}

void SnapshotView::showAllocation(int band, size_t applied)
{
    const document::SnapshotDocument& snap = *m_document->snapshot;
    const snapshot::DeviceTimeline& t = snap.timelines[size_t(m_chart->device())];
    if (band < 0) {
        m_readout->setText(
            tr("<i>Point at an allocation for its size, lifetime and stack. Allocated at the peak: "
               "%1.</i>")
                .arg(bytesText(t.peakBytes)));
        return;
    }
    const snapshot::Band& b = t.bands[size_t(band)];
    const double origin = snap.timed() ? double(snap.summary.firstTimeUs) : 0.0;
    auto at = [&](uint32_t entry) {
        if (!snap.timed())
            return tr("entry %1").arg(QString::fromStdString(format::count(int64_t(entry))));
        return QString::fromStdString(format::duration((double(t.when(entry)) - origin) * 1e3));
    };
    QString text = tr("<b>%1</b>").arg(bytesText(b.size));
    if (b.beforeHistory) {
        text += tr(" allocated before the history began");
    } else {
        text += tr(" allocated at %1").arg(at(b.from));
    }
    if (b.to < t.size())
        text += tr(", freed at %1").arg(at(b.to));
    else
        text += tr(", alive at the dump");
    text += tr(" · %1 allocated then").arg(bytesText(t.allocatedAfter(applied)));
    if (!b.beforeHistory && b.stack) {
        text += QStringLiteral(" · <b>%1</b><br><tt>")
                    .arg(QString::fromStdString(snap.model.place(b.stack)).toHtmlEscaped());
        QStringList lines;
        for (const std::string& line : snap.model.readableStack(b.stack, 6))
            lines << QString::fromStdString(line).toHtmlEscaped();
        text += lines.join(QStringLiteral("<br>")) + QStringLiteral("</tt>");
    } else if (!b.beforeHistory) {
        text += tr(" · no frames recorded (record with stacks=\"python\" or \"all\")");
    }
    m_readout->setText(text);
}

void SnapshotView::setPeakInTrace(const QString& traceName, const snapshot::PeakInTrace& placed)
{
    QString sentence = QString::fromStdString(placed.sentence);
    if (!sentence.isEmpty())
        sentence[0] = sentence[0].toUpper();
    m_inTrace->setText(tr("In %1: %2.").arg(traceName, sentence));
    m_inTrace->show();
}

QString SnapshotView::peakInTraceText() const
{
    return m_inTrace->text();
}

QString SnapshotView::readout() const
{
    return m_readout->text();
}

QAbstractItemView* SnapshotView::currentTable() const
{
    switch (m_pages->currentIndex()) {
    case AtPeak:
        return m_atPeak->table();
    case Leaks:
        return m_leaks->table();
    case Segments:
        return m_segments->table();
    case Diagnosis:
        return m_findings->list();
    default:
        return nullptr;
    }
}

void SnapshotView::setCurrentPage(Page page)
{
    m_pages->setCurrentIndex(page);
}

}  // namespace kinetoscope::widgets
