#include "widgets/document_view.h"

#include "widgets/findings_view.h"
#include "widgets/live_run_view.h"
#include "widgets/memory_chart.h"
#include "widgets/memory_page.h"
#include "widgets/module_view.h"
#include "widgets/overview_view.h"
#include "widgets/roofline/roofline_panel.h"
#include "widgets/table_export.h"
#include "widgets/table_models.h"
#include "widgets/table_view.h"
#include "widgets/timeline/timeline_page.h"
#include "widgets/utilization_chart.h"

#include <QComboBox>
#include <QHeaderView>
#include <QListWidget>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <iterator>

namespace kinetoscope::widgets {

namespace {

// Beside the roofline, at 1280 px, the Operators table shows an op's name, calls, device and
// host time without scrolling: those columns first (device total, the sort, before CPU
// total), the self and mean times after them, and the name column as wide as a usual op's
// name (a longer one is cut in its middle, whole in its tooltip). The CSV export follows the
// columns as shown.
void showOpTimesFirst(QTableView& table)
{
    QHeaderView* header = table.horizontalHeader();
    const OpTableModel::Column order[] = {OpTableModel::Name,        OpTableModel::Shapes,
                                          OpTableModel::Source,      OpTableModel::Calls,
                                          OpTableModel::DeviceTotal, OpTableModel::CpuTotal,
                                          OpTableModel::SelfDevice,  OpTableModel::SelfCpu,
                                          OpTableModel::MeanDevice,  OpTableModel::MeanCpu};
    for (int visual = 0; visual < int(std::size(order)); ++visual)
        header->moveSection(header->visualIndex(order[visual]), visual);
    header->resizeSection(OpTableModel::Name, table.fontMetrics().horizontalAdvance(QStringLiteral(
                                                  "aten::cudnn_convolution_backward")) +
                                                  12);
}

// The fused-ops column of a compiled graph's kernels: shown only where the trace has some,
// as wide as its text up to `widest` px (a longer list is cut, whole in its tooltip).
void showFusedOps(QTableView& table, int column, bool any, int widest)
{
    table.setColumnHidden(column, !any);
    if (!any)
        return;
    const QAbstractItemModel* model = table.model();
    int width = table.fontMetrics().horizontalAdvance(
        model->headerData(column, Qt::Horizontal).toString() + QStringLiteral("    "));
    for (int row = 0; row < model->rowCount(); ++row)
        width = std::max(width, table.fontMetrics().horizontalAdvance(
                                    model->index(row, column).data().toString()) +
                                    12);
    QHeaderView* header = table.horizontalHeader();
    header->setSectionResizeMode(column, QHeaderView::Interactive);
    header->resizeSection(column, std::min(width, widest));
}

}  // namespace

DocumentView::DocumentView(std::shared_ptr<const document::Document> trace, QWidget* parent)
    : QTabWidget(parent), m_trace(std::move(trace)), m_overview(new OverviewView(this)),
      m_findings(new FindingsView(this)), m_opModel(new OpTableModel(this)),
      m_kernelModel(new KernelTableModel(this)), m_operators(nullptr), m_kernels(nullptr),
      m_memory(nullptr), m_modules(new ModuleView(this)),
      m_timeline(new TimelinePage(m_trace, this))
{
    const document::Document& t = *m_trace;
    m_overview->setTrace(t);
    m_findings->setFindings(t.findings);
    m_opModel->setTables(t.summary.ops);
    m_opModel->setRoofline(t.summary.roofline);
    m_kernelModel->setKernels(t.summary.kernels);
    m_kernelModel->setRoofline(t.summary.roofline);
    // Nothing ran on a device (a CPU run): the device columns would read 0 on every row, the
    // Tensor Core and roofline columns and the roofline have nothing to say, so the host's
    // times lead and fill the page.
    const bool hostOnly = t.summary.window.cpuOnly;
    m_operators = new TableView(
        m_opModel, hostOnly ? OpTableModel::CpuTotal : OpTableModel::DeviceTotal, this);
    m_operators->table()->setColumnHidden(OpTableModel::Shapes, true);
    m_operators->table()->setColumnHidden(OpTableModel::Source, true);
    showOpTimesFirst(*m_operators->table());
    for (const OpTableModel::Column device :
         {OpTableModel::DeviceTotal, OpTableModel::SelfDevice, OpTableModel::MeanDevice,
          OpTableModel::TensorCoreEligible, OpTableModel::TensorCoreShare, OpTableModel::Tflops,
          OpTableModel::Gbps, OpTableModel::Intensity, OpTableModel::Bound, OpTableModel::OfRoof})
        m_operators->table()->setColumnHidden(device, hostOnly);
    // After the times: beside the roofline the table has no room for it before them; the
    // name's tooltip and the row's details name the fused ops too.
    showFusedOps(*m_operators->table(), OpTableModel::FusedOps, m_opModel->hasFusedOps(), 240);
    if (m_opModel->hasShapes() || m_opModel->hasStacks()) {
        // Choices the trace can answer: shapes need record_shapes, stacks with_stack.
        QStringList choices;
        std::vector<OpTableModel::Grouping> groupings;
        const std::pair<OpTableModel::Grouping, QString> offered[] = {
            {OpTableModel::Grouping::Name, tr("name")},
            {OpTableModel::Grouping::InputShapes, tr("name and input shapes")},
            {OpTableModel::Grouping::Stack, tr("name and call stack")}};
        for (const auto& [grouping, label] : offered)
            if (m_opModel->canGroupBy(grouping)) {
                groupings.push_back(grouping);
                choices << label;
            }
        m_opGroups = m_operators->addGroupChoice(choices);
        connect(m_opGroups, &QComboBox::currentIndexChanged, this, [this, groupings](int index) {
            const OpTableModel::Grouping grouping = groupings.at(size_t(std::max(0, index)));
            m_opModel->setGrouping(grouping);
            m_operators->table()->setColumnHidden(OpTableModel::Shapes,
                                                  grouping != OpTableModel::Grouping::InputShapes);
            m_operators->table()->setColumnHidden(OpTableModel::Source,
                                                  grouping != OpTableModel::Grouping::Stack);
        });
    }
    m_kernels = new TableView(m_kernelModel, KernelTableModel::Total, this);
    // Beside the kernel's name, which lists the same ops between its kind and its index.
    showFusedOps(*m_kernels->table(), KernelTableModel::FusedOps, m_kernelModel->hasFusedOps(),
                 320);
    m_kernelGroups = m_kernels->addGroupChoice(
        {tr("kernel"), tr("kernel and op"), tr("kernel and launch configuration")});
    connect(m_kernelGroups, &QComboBox::currentIndexChanged, this, [this](int index) {
        const analysis::TraceSummary& s = m_trace->summary;
        m_kernelModel->setKernels(index == 1   ? s.kernelsByOp
                                  : index == 2 ? s.kernelsByLaunch
                                               : s.kernels);
    });

    m_memoryPage = new MemoryPage(t.summary, this);
    m_memory = m_memoryPage->chart();
    // Exported tables are named after the document and the table:
    // "resnet50_v100_workers0_2021-operators.csv".
    setExportDocumentName(this, exportBaseName(QString::fromStdString(t.path)));
    m_findings->setTraceFigures(t.summary.breakdown.all.averageTotalNs,
                                t.model ? t.model->beginNs() : 0);
    m_operators->setExportName(QStringLiteral("operators"));
    m_kernels->setExportName(QStringLiteral("kernels"));
    m_memoryPage->table()->setExportName(QStringLiteral("memory-by-op"));

    addTab(m_overview, tr("&Overview"));
    addTab(m_findings, tr("&Diagnosis"));
    // The roofline beside the table: each op group's achieved rate against the device's roofs.
    auto* operatorsPage = new QSplitter(Qt::Horizontal, this);
    operatorsPage->addWidget(m_operators);
    m_roofline = new RooflinePanel(operatorsPage);
    m_roofline->setRoofline(t.summary.roofline);
    operatorsPage->addWidget(m_roofline);
    // Hidden where it would be empty (a host-only run, or no kernel time rated): the table
    // gets the width its device columns need.
    m_roofline->setVisible(!hostOnly && t.summary.roofline.ratedNs > 0);
    operatorsPage->setStretchFactor(0, 3);
    operatorsPage->setStretchFactor(1, 2);
    connect(m_roofline, &RooflinePanel::opClicked, this, [this](size_t op) { selectOpGroup(op); });
    addTab(operatorsPage, tr("O&perators"));
    addTab(m_kernels, tr("&Kernels"));
    addTab(m_memoryPage, tr("&Memory"));
    // Built on the loading worker when the app opened it; here for a document opened without.
    m_modules->setTrees(t.summary.modules,
                        t.callTree ? *t.callTree : analysis::computeCallTree(*t.model));
    addTab(m_modules, tr("Mod&ules"));
    setTabToolTip(Modules, tr("The nn.Module hierarchy and the call tree as a flame graph"));
    addTab(m_timeline, tr("&Timeline"));
    setTabToolTip(Timeline, tr("Every slice, counter and step on a zoomable time axis"));
    if (t.session) {
        // The run's measurements beside its profiler window: arms, phases, live samples
        // (NVML's utilisation, the allocator's curves), sweeps, memory triage.
        m_lab = new LiveRunView(LiveRunView::titleOf(*t.session), this);
        m_lab->showSession(*t.session);
        addTab(m_lab, tr("&Lab"));
        setTabToolTip(Lab,
                      tr("What the lab measured: arms, phases, live samples, sweeps and memory"));
    }
    setTabToolTip(Overview, tr("Key figures, the step-time breakdown and utilisation over time"));
    setTabToolTip(Diagnosis, tr("Ranked findings with evidence and the fix"));
    connect(m_findings, &FindingsView::evidenceRequested, this, &DocumentView::showEvidence);
    connect(m_findings, &FindingsView::timelineRequested, this,
            &DocumentView::showEvidenceInTimeline);
    // Double-clicking an op or kernel row shows its longest instance on the timeline.
    auto jumpFrom = [this](TableView* table, bool gpuActivity) {
        table->table()->setToolTip(tr("Double-click a row to show it on the timeline"));
        connect(table->table(), &QTableView::doubleClicked, this,
                [this, table, gpuActivity](const QModelIndex& index) {
                    showInTimeline(
                        table->proxy()->index(index.row(), 0).data(Qt::DisplayRole).toString(),
                        gpuActivity);
                });
    };
    jumpFrom(m_operators, false);
    jumpFrom(m_kernels, true);
    // Selecting a finding marks its time range in the utilisation plot right away.
    connect(m_findings, &FindingsView::findingSelected, this, [this](const analysis::Finding& f) {
        if (!f.evidence.ranges.empty())
            m_overview->utilizationChart()->highlight(f.evidence.ranges.front().begin,
                                                      f.evidence.ranges.front().end);
        else
            m_overview->utilizationChart()->highlight(0, 0);
    });
    if (!t.findings.empty() && !t.findings.front().evidence.ranges.empty())
        m_overview->utilizationChart()->highlight(0, 0);  // start unzoomed
}

QAbstractItemView* DocumentView::currentTable() const
{
    switch (currentIndex()) {
    case Diagnosis:
        return m_findings->list();
    case Operators:
        return m_operators->table();
    case Kernels:
        return m_kernels->table();
    case Memory:
        return m_trace->summary.memory.empty() ? nullptr : m_memoryPage->table()->table();
    case Modules:
        return m_modules->tree()->topLevelItemCount() > 0 ? m_modules->tree() : nullptr;
    case Lab:
        return m_lab ? m_lab->labTable() : nullptr;  // its arms; the memory triage from its menu
    default:
        return nullptr;
    }
}

void DocumentView::focusFilter()
{
    if (currentIndex() == Timeline)
        m_timeline->focusSearch();
    else if (currentIndex() == Kernels)
        m_kernels->focusFilter();
    else {
        setCurrentIndex(Operators);
        m_operators->focusFilter();
    }
}

void DocumentView::showEvidence(const analysis::Finding& finding)
{
    // The kernels, the ops, or the time range behind a finding.
    // A target with an event is an op or kernel of this trace (a note has none).
    if (!finding.evidence.kernels.empty()) {
        setCurrentIndex(Kernels);
        m_kernels->setFilter(
            QString::fromStdString(finding.evidence.kernels.front().name).left(40));
    } else if (!finding.evidence.ops.empty() && finding.evidence.ops.front().event.valid()) {
        setCurrentIndex(Operators);
        m_operators->setFilter(QString::fromStdString(finding.evidence.ops.front().name));
    } else if (!finding.evidence.ranges.empty()) {
        setCurrentIndex(Overview);
        m_overview->utilizationChart()->highlight(finding.evidence.ranges.front().begin,
                                                  finding.evidence.ranges.front().end);
    }
    if (!finding.evidence.ranges.empty())
        m_overview->utilizationChart()->highlight(finding.evidence.ranges.front().begin,
                                                  finding.evidence.ranges.front().end);
}

void DocumentView::showEvidenceInTimeline(const analysis::Finding& finding)
{
    if (!finding.evidence.ranges.empty()) {
        setCurrentIndex(Timeline);
        m_timeline->revealRange(finding.evidence.ranges.front().begin,
                                finding.evidence.ranges.front().end);
        return;
    }
    // The first op or kernel that is an event of this trace: the event itself.
    for (const auto* targets : {&finding.evidence.kernels, &finding.evidence.ops})
        for (const analysis::EvidenceTarget& t : *targets)
            if (t.event.valid()) {
                setCurrentIndex(Timeline);
                m_timeline->revealEvent(t.event);
                return;
            }
}

bool DocumentView::selectOpGroup(size_t opIndex)
{
    const auto& ops = m_trace->summary.roofline.ops;
    if (opIndex >= ops.size())
        return false;
    const roofline::OpRoofline& op = ops[opIndex];
    if (m_opGroups && m_opModel->canGroupBy(OpTableModel::Grouping::InputShapes))
        for (int i = 0; i < m_opGroups->count(); ++i)
            if (m_opGroups->itemText(i) == tr("name and input shapes"))
                m_opGroups->setCurrentIndex(i);
    setCurrentIndex(Operators);
    m_operators->setFilter(QString::fromStdString(op.name));
    const bool byShapes = m_opModel->grouping() == OpTableModel::Grouping::InputShapes;
    QSortFilterProxyModel* proxy = m_operators->proxy();
    for (int row = 0; row < proxy->rowCount(); ++row) {
        if (proxy->index(row, OpTableModel::Name).data().toString().toStdString() != op.name)
            continue;
        if (byShapes && proxy->index(row, OpTableModel::Shapes).data().toString().toStdString() !=
                            op.inputShapes)
            continue;
        m_operators->table()->selectRow(row);
        m_operators->table()->scrollTo(proxy->index(row, 0));
        return true;
    }
    return false;
}

bool DocumentView::showInTimeline(const QString& name, bool gpuActivity)
{
    if (!m_timeline->revealName(name.toStdString(), gpuActivity))
        return false;
    setCurrentIndex(Timeline);
    return true;
}

}  // namespace kinetoscope::widgets
