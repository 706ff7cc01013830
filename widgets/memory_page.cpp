#include "widgets/memory_page.h"

#include "core/format/format.h"
#include "widgets/keyboard_focus.h"
#include "widgets/memory_chart.h"
#include "widgets/plot_export.h"
#include "widgets/table_models.h"
#include "widgets/table_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace kinetoscope::widgets {

MemoryPage::MemoryPage(const analysis::TraceSummary& summary, QWidget* parent)
    : QWidget(parent), m_memory(summary.memory), m_originNs(summary.utilization.beginNs),
      m_chart(new MemoryChart(this)), m_model(new MemoryTableModel(this)),
      m_table(new TableView(m_model, MemoryTableModel::Bytes, this)), m_device(new QComboBox(this)),
      m_peak(new QLabel(this))
{
    m_chart->setMemory(summary.memory, summary.steps, m_originNs);
    installPlotExportMenu(*m_chart);
    auto* layout = new QVBoxLayout(this);
    if (m_memory.empty()) {
        layout->addWidget(new QLabel(
            tr("This trace has no memory samples (profile with profile_memory=True)."), this));
        // No chart under the notice: an empty plot's 0-0.001 axis and blank legend say
        // nothing the notice has not said.
        layout->addStretch(1);
        m_chart->hide();
        m_table->hide();
        m_device->hide();
        m_peak->hide();
        return;
    }
    m_peak->setWordWrap(true);
    m_peak->setTextFormat(Qt::RichText);
    m_peak->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_peak->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The first GPU's table by default: it is the memory that runs out.
    QString first;
    for (const auto& [name, d] : m_memory) {
        m_device->addItem(QString::fromStdString(name));
        if (first.isEmpty() && name.starts_with("cuda"))
            first = QString::fromStdString(name);
    }
    m_device->setCurrentText(first.isEmpty() ? m_device->itemText(0) : first);
    connect(m_device, &QComboBox::currentTextChanged, this, &MemoryPage::showDevice);
    tabOrder({m_device, m_table});  // the device above the table's own bar

    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Memory by op on"), lower));
    bar->addWidget(m_device);
    bar->addStretch(1);
    lowerLayout->addLayout(bar);
    auto* tableAndPeak = new QHBoxLayout;
    tableAndPeak->addWidget(m_table, 3);
    tableAndPeak->addWidget(m_peak, 2);
    m_table->table()->horizontalHeader()->resizeSection(0, 260);
    lowerLayout->addLayout(tableAndPeak, 1);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_chart);
    splitter->addWidget(lower);
    layout->addWidget(splitter, 1);
    showDevice(m_device->currentText());
}

void MemoryPage::showDevice(const QString& device)
{
    const auto it = m_memory.find(device.toStdString());
    if (it == m_memory.end())
        return;
    const analysis::DeviceMemory& d = it->second;
    m_model->setRows(d.byOp);
    if (!d.peakTimeNs) {  // no sample reached the peak: frees only, nothing to show
        m_peak->clear();
        return;
    }
    QString text =
        tr("<b>At the peak</b> (%1 allocated, %2 after the first event), alive by the ops that "
           "allocated it:<br>")
            .arg(QString::fromStdString(format::bytes(double(d.peakAllocatedBytes))),
                 QString::fromStdString(format::duration(double(*d.peakTimeNs - m_originNs))));
    text += QStringLiteral("<table cellspacing=2>");
    for (size_t i = 0; i < std::min<size_t>(8, d.liveAtPeak.size()); ++i) {
        const analysis::LiveAtPeak& live = d.liveAtPeak[i];
        text +=
            QStringLiteral("<tr><td align=right>%1</td><td align=right>%2×</td><td>%3</td></tr>")
                .arg(QString::fromStdString(format::bytes(double(live.bytes))),
                     QString::fromStdString(format::count(uint64_t(live.allocations))),
                     live.stack.empty() ? tr("(outside any op)")
                                        : QString::fromStdString(live.stack).toHtmlEscaped());
    }
    text += QStringLiteral("</table>");
    if (d.peakUntrackedBytes > 0)
        text += tr("and %1 allocated before the trace began.")
                    .arg(QString::fromStdString(format::bytes(double(d.peakUntrackedBytes))));
    m_peak->setText(text);
}

}  // namespace kinetoscope::widgets
