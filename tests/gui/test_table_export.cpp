// Every table exports as CSV (RFC 4180): a header row with the units, raw numbers equal to
// the analysis's values (never the formatted text), the rows the view shows (its filter,
// its sort), a tree's rows flattened with their depth and path; Ctrl+C copies the selected
// rows as TSV; File > Export table… writes the current page's table. Real traces, offscreen.
#ifndef Q_MOC_RUN
#include "app/gui/main_window.h"
#include "core/compare/comparison.h"
#include "core/document/document.h"
#include "core/format/csv.h"
#include "core/job/job.h"
#include "tests/support/analysed_document.h"
#include "tests/support/test_support.h"
#include "widgets/compare_view.h"
#include "widgets/document_view.h"
#include "widgets/findings_view.h"
#include "widgets/job_view.h"
#include "widgets/live_run_view.h"
#include "widgets/memory_page.h"
#include "widgets/module_view.h"
#include "widgets/snapshot/snapshot_view.h"
#include "widgets/table_export.h"
#include "widgets/table_models.h"
#include "widgets/table_view.h"
#endif

#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QListWidget>
#include <QMenuBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>
#include <algorithm>
#include <map>

using namespace kinetoscope;

namespace {

using test::analysed;

// A parsed CSV: the header row, then the records.
struct Csv
{
    QStringList header;
    std::vector<QStringList> rows;
    int column(const QString& name) const { return int(header.indexOf(name)); }
    double number(size_t row, const QString& name) const
    {
        return rows.at(row).at(column(name)).toDouble();
    }
    QString text(size_t row, const QString& name) const { return rows.at(row).at(column(name)); }
};

// RFC 4180: fields separated by commas, records by CRLF, a field with a comma, a quote or a
// line break quoted (its quotes doubled). Fails the test on anything else.
Csv parseCsv(const QString& text)
{
    std::vector<QStringList> records;
    QStringList record;
    QString field;
    bool quoted = false, wasQuoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) {
                field += c;
                ++i;
            } else if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == QLatin1Char('"')) {
            if (!field.isEmpty() || wasQuoted)
                qFatal("a quote inside an unquoted field");
            quoted = wasQuoted = true;
        } else if (c == QLatin1Char(',')) {
            record << field;
            field.clear();
            wasQuoted = false;
        } else if (c == QLatin1Char('\r')) {
            if (i + 1 >= text.size() || text[i + 1] != QLatin1Char('\n'))
                qFatal("CR without LF");
            record << field;
            records.push_back(record);
            record.clear();
            field.clear();
            wasQuoted = false;
            ++i;
        } else if (c == QLatin1Char('\n')) {
            qFatal("LF without CR ends a record");
        } else {
            field += c;
        }
    }
    if (quoted || !field.isEmpty() || !record.isEmpty())
        qFatal("the last record does not end in CRLF");
    Csv csv;
    if (!records.empty()) {
        csv.header = records.front();
        csv.rows.assign(records.begin() + 1, records.end());
    }
    return csv;
}

// Every record has the header's fields; a column whose header states a unit ("Total (ns)")
// holds numbers (or blanks), never formatted text ("12.3 ms", "1.5 GiB", "n/a").
void checkShape(const Csv& csv)
{
    QVERIFY(!csv.header.isEmpty());
    for (const QStringList& row : csv.rows)
        QCOMPARE(row.size(), csv.header.size());
    for (int c = 0; c < csv.header.size(); ++c) {
        if (!csv.header[c].endsWith(QLatin1Char(')')))
            continue;
        for (const QStringList& row : csv.rows) {
            if (row[c].isEmpty())
                continue;
            bool ok = false;
            row[c].toDouble(&ok);
            QVERIFY2(ok, qPrintable(csv.header[c] + QStringLiteral(": ") + row[c]));
        }
    }
}

Csv exported(const QAbstractItemView& view)
{
    return parseCsv(widgets::tableCsv(view));
}

}  // namespace

class TestTableExport : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qRegisterMetaType<widgets::DocumentView*>("widgets::DocumentView*");
    }

    void kernelsExportRawNumbersWithUnits()
    {
        const auto trace = analysed("tracelens/rocm_mi300_resnet_act_checkpoint.json.gz");
        widgets::DocumentView view(trace);
        QTableView* table = view.kernels()->table();
        const Csv csv = exported(*table);
        checkShape(csv);
        for (const char* header :
             {"Kernel", "Calls (count)", "Total (ns)", "Mean (ns)", "Min (ns)", "Max (ns)", "Grid",
              "Registers per thread (count)", "Shared memory per block (bytes)", "Occupancy (%)",
              "Achieved compute (TFLOP/s)", "Achieved bandwidth (GB/s)",
              "Arithmetic intensity (FLOP/byte)", "Bound", "Of roof (fraction)"})
            QVERIFY2(csv.column(QString::fromUtf8(header)) >= 0, header);
        QCOMPARE(int(csv.rows.size()), view.kernels()->visibleRows());
        QCOMPARE(int(csv.rows.size()), int(trace->summary.kernels.size()));
        // Sorted as the view is, by total time: the top kernel's total is the summary's, in ns.
        int64_t longest = 0;
        for (const analysis::KernelStats& k : trace->summary.kernels)
            longest = std::max(longest, k.totalNs);
        QCOMPARE(csv.number(0, QStringLiteral("Total (ns)")), double(longest));
        const auto top = std::find_if(
            trace->summary.kernels.begin(), trace->summary.kernels.end(), [&](const auto& k) {
                return k.name == csv.text(0, QStringLiteral("Kernel")).toStdString();
            });
        QVERIFY(top != trace->summary.kernels.end());
        QCOMPARE(csv.number(0, QStringLiteral("Total (ns)")), double(top->totalNs));
        QCOMPARE(csv.number(0, QStringLiteral("Calls (count)")), double(top->calls));
        QCOMPARE(csv.number(0, QStringLiteral("Mean (ns)")), top->meanNs());
        for (size_t r = 1; r < csv.rows.size(); ++r)
            QVERIFY(csv.number(r - 1, QStringLiteral("Total (ns)")) >=
                    csv.number(r, QStringLiteral("Total (ns)")));
        // The display's units never reach the file.
        const QString text = widgets::tableCsv(*table);
        QVERIFY(!text.contains(QStringLiteral(" ms")));
        QVERIFY(!text.contains(QStringLiteral("µs")));
        QVERIFY(!text.contains(QStringLiteral("n/a")));
        // Rated kernels carry the roofline's figures; the others are blank, not -1.
        int rated = 0;
        for (size_t r = 0; r < csv.rows.size(); ++r) {
            const QString tflops = csv.text(r, QStringLiteral("Achieved compute (TFLOP/s)"));
            QVERIFY(tflops.isEmpty() || tflops.toDouble() >= 0);
            rated += !tflops.isEmpty();
            const QString shared = csv.text(r, QStringLiteral("Shared memory per block (bytes)"));
            QVERIFY2(shared.isEmpty() || shared.toDouble() >= 0,
                     qPrintable(shared));  // unknown: blank, not -1
            const QString bound = csv.text(r, QStringLiteral("Bound"));
            QVERIFY(bound.isEmpty() || bound == QStringLiteral("memory") ||
                    bound == QStringLiteral("compute"));
        }
        QCOMPARE(rated, int(trace->summary.roofline.kernels.size()));
        // A filter: only the rows it leaves.
        view.kernels()->setFilter(QStringLiteral("gemm"));
        const Csv filtered = exported(*table);
        QVERIFY(!filtered.rows.empty());
        QCOMPARE(int(filtered.rows.size()), view.kernels()->visibleRows());
        QVERIFY(filtered.rows.size() < csv.rows.size());
        for (const QStringList& row : filtered.rows)
            QVERIFY(row[0].contains(QStringLiteral("gemm"), Qt::CaseInsensitive));
    }

    void operatorsQuoteShapesAndFollowTheGrouping()
    {
        const auto trace = analysed("tracelens/rocm_mi300_resnet_act_checkpoint.json.gz");
        widgets::DocumentView view(trace);
        QTableView* table = view.operators()->table();
        Csv csv = exported(*table);
        checkShape(csv);
        // Grouped by name, the shapes and source columns are hidden: not exported.
        QCOMPARE(csv.column(QStringLiteral("Input shapes")), -1);
        for (const char* header : {"Operator", "Calls (count)", "Self CPU (ns)", "CPU total (ns)",
                                   "Self device (ns)", "Device total (ns)", "Mean CPU (ns)",
                                   "Mean device (ns)", "TC eligible", "On Tensor Cores (fraction)"})
            QVERIFY2(csv.column(QString::fromLatin1(header)) >= 0, header);
        QCOMPARE(int(csv.rows.size()), int(trace->summary.ops.byName.size()));
        int64_t most = 0;
        for (const analysis::OpStats& o : trace->summary.ops.byName)
            most = std::max(most, o.deviceTotalNs);
        QCOMPARE(csv.number(0, QStringLiteral("Device total (ns)")), double(most));
        for (size_t r = 0; r < csv.rows.size(); ++r) {
            const auto o = std::find_if(
                trace->summary.ops.byName.begin(), trace->summary.ops.byName.end(),
                [&](const auto& op) {
                    return op.name == csv.text(r, QStringLiteral("Operator")).toStdString();
                });
            QVERIFY(o != trace->summary.ops.byName.end());
            QCOMPARE(csv.number(r, QStringLiteral("Device total (ns)")), double(o->deviceTotalNs));
            QCOMPARE(csv.number(r, QStringLiteral("Self CPU (ns)")), double(o->selfCpuNs));
            QCOMPARE(csv.number(r, QStringLiteral("Mean CPU (ns)")), o->meanCpuNs());
        }
        for (const QStringList& row : csv.rows)
            QVERIFY(row[csv.column(QStringLiteral("TC eligible"))] == QStringLiteral("yes") ||
                    row[csv.column(QStringLiteral("TC eligible"))] == QStringLiteral("no"));

        // By name and input shapes: shapes such as "[[8, 3], []]" hold commas, so they are quoted.
        view.opGrouping()->setCurrentIndex(1);
        QCOMPARE(view.opModel()->grouping(), widgets::OpTableModel::Grouping::InputShapes);
        const QString text = widgets::tableCsv(*table);
        csv = parseCsv(text);
        checkShape(csv);
        const int shapes = csv.column(QStringLiteral("Input shapes"));
        QVERIFY(shapes >= 0);
        QCOMPARE(int(csv.rows.size()), int(trace->summary.ops.byNameAndShapes.size()));
        std::map<std::pair<std::string, std::string>, const analysis::OpStats*> groups;
        for (const analysis::OpStats& o : trace->summary.ops.byNameAndShapes)
            groups[{o.name, o.inputShapes}] = &o;
        int withCommas = 0;
        for (size_t r = 0; r < csv.rows.size(); ++r) {
            const std::string name = csv.text(r, QStringLiteral("Operator")).toStdString();
            const std::string shape = csv.rows[r][shapes].toStdString();
            const auto it = groups.find({name, shape});
            QVERIFY2(it != groups.end(), (name + " " + shape).c_str());
            QCOMPARE(csv.number(r, QStringLiteral("Self CPU (ns)")), double(it->second->selfCpuNs));
            QCOMPARE(csv.number(r, QStringLiteral("Calls (count)")), double(it->second->calls));
            if (shape.find(',') != std::string::npos) {
                ++withCommas;
                QVERIFY(text.contains(QString::fromStdString(format::csvField(shape))));
                QVERIFY(format::csvField(shape).front() == '"');
            }
        }
        QVERIFY(withCommas > 0);
    }

    // Ctrl+C on two selected rows: a header line and the two rows, tab-separated, raw.
    void ctrlCCopiesTheSelectedRowsAsTsv()
    {
        const auto trace = analysed("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        widgets::DocumentView view(trace);
        view.resize(1200, 800);
        view.setCurrentIndex(widgets::DocumentView::Kernels);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTableView* table = view.kernels()->table();
        QSortFilterProxyModel* proxy = view.kernels()->proxy();
        QVERIFY(proxy->rowCount() >= 3);
        QGuiApplication::clipboard()->clear();
        table->setFocus();
        table->selectionModel()->select(QModelIndex(proxy->index(0, 0)),
                                        QItemSelectionModel::ClearAndSelect |
                                            QItemSelectionModel::Rows);
        table->selectionModel()->select(QModelIndex(proxy->index(2, 0)),
                                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QTest::keyClick(table, Qt::Key_C, Qt::ControlModifier);
        const QString tsv = QGuiApplication::clipboard()->text();
        QVERIFY(tsv.endsWith(QLatin1Char('\n')));
        const QStringList lines = tsv.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 3);
        const Csv csv = exported(*table);
        QCOMPARE(lines[0].split(QLatin1Char('\t')), csv.header);
        const QStringList first = lines[1].split(QLatin1Char('\t')),
                          second = lines[2].split(QLatin1Char('\t'));
        QCOMPARE(first.size(), csv.header.size());
        QCOMPARE(first, csv.rows[0]);
        QCOMPARE(second, csv.rows[2]);
        QCOMPARE(first[csv.column(QStringLiteral("Total (ns)"))].toDouble(),
                 proxy->index(0, widgets::KernelTableModel::Total).data(Qt::UserRole).toDouble());
        // The context menu's copy says so: Ctrl+C beside it.
        QCOMPARE(widgets::selectionTsv(*table), tsv);
        // Nothing selected: nothing copied.
        table->clearSelection();
        QVERIFY(widgets::selectionTsv(*table).isEmpty());
        QCOMPARE(table->contextMenuPolicy(), Qt::CustomContextMenu);
    }

    void memoryByOpExportsBytesAndCounts()
    {
        const auto trace = analysed("hta/allreduce_memory_rank1.json.gz");
        widgets::DocumentView view(trace);
        view.setCurrentIndex(widgets::DocumentView::Memory);
        QCOMPARE(view.currentTable(),
                 static_cast<QAbstractItemView*>(view.memoryPage()->table()->table()));
        const Csv csv = exported(*view.currentTable());
        checkShape(csv);
        QCOMPARE(csv.header, QStringList({QStringLiteral("Operator"),
                                          QStringLiteral("Self allocations (count)"),
                                          QStringLiteral("Total allocations (count)"),
                                          QStringLiteral("Self allocated (bytes)"),
                                          QStringLiteral("Total allocated (bytes)"),
                                          QStringLiteral("Self size increase (bytes)"),
                                          QStringLiteral("Total size increase (bytes)")}));
        const analysis::DeviceMemory& gpu = trace->summary.memory.at("cuda:1");
        QCOMPARE(int(csv.rows.size()), int(gpu.byOp.size()));
        std::map<std::string, const analysis::OpAllocation*> ops;
        for (const analysis::OpAllocation& o : gpu.byOp)
            ops[o.op.empty() ? "(outside any op)" : o.op] = &o;
        for (size_t r = 0; r < csv.rows.size(); ++r) {
            const auto* o = ops.at(csv.text(r, QStringLiteral("Operator")).toStdString());
            QCOMPARE(csv.number(r, QStringLiteral("Self allocated (bytes)")), double(o->bytes));
            QCOMPARE(csv.number(r, QStringLiteral("Total size increase (bytes)")),
                     double(o->totalIncreaseBytes));
            QCOMPARE(csv.number(r, QStringLiteral("Total allocations (count)")),
                     double(o->totalAllocations));
        }
        QVERIFY(!widgets::tableCsv(*view.currentTable()).contains(QStringLiteral("iB")));
    }

    // The module tree flattened: every module once, its depth and path beside its figures.
    void modulesExportFlattenedWithDepthAndPath()
    {
        const auto trace = analysed("tracelens/rocm_mi300_resnet_act_checkpoint.json.gz");
        widgets::DocumentView view(trace);
        view.setCurrentIndex(widgets::DocumentView::Modules);
        QTreeWidget* tree = view.modules()->tree();
        QCOMPARE(view.currentTable(), static_cast<QAbstractItemView*>(tree));
        const Csv csv = exported(*tree);
        checkShape(csv);
        QCOMPARE(
            csv.header,
            QStringList({QStringLiteral("Depth"), QStringLiteral("Path"), QStringLiteral("Module"),
                         QStringLiteral("Calls (count)"), QStringLiteral("Host total (ns)"),
                         QStringLiteral("Host self (ns)"), QStringLiteral("Device total (ns)"),
                         QStringLiteral("Device self (ns)")}));
        const analysis::ModuleTree& modules = trace->summary.modules;
        QCOMPARE(int(csv.rows.size()), int(modules.nodes.size()));
        std::map<std::string, const analysis::ModuleNode*> byPath;
        for (const analysis::ModuleNode& m : modules.nodes)
            byPath[m.path] = &m;
        QCOMPARE(csv.text(0, QStringLiteral("Path")), QStringLiteral("DistributedDataParallel_0"));
        QCOMPARE(csv.number(0, QStringLiteral("Depth")), 0.0);
        QCOMPARE(csv.text(1, QStringLiteral("Path")),
                 QStringLiteral("DistributedDataParallel_0/ResNet_0"));
        QCOMPARE(csv.number(1, QStringLiteral("Depth")), 1.0);
        int deepest = 0;
        for (size_t r = 0; r < csv.rows.size(); ++r) {
            const std::string path = csv.text(r, QStringLiteral("Path")).toStdString();
            const auto it = byPath.find(path);
            QVERIFY2(it != byPath.end(), path.c_str());
            const analysis::ModuleNode& m = *it->second;
            QCOMPARE(csv.text(r, QStringLiteral("Module")).toStdString(), m.name);
            QCOMPARE(csv.number(r, QStringLiteral("Depth")),
                     double(std::count(path.begin(), path.end(), '/')));
            QCOMPARE(csv.number(r, QStringLiteral("Device total (ns)")), double(m.deviceTotalNs));
            QCOMPARE(csv.number(r, QStringLiteral("Host self (ns)")), double(m.hostSelfNs));
            QCOMPARE(csv.number(r, QStringLiteral("Calls (count)")), double(m.calls));
            deepest = std::max(deepest, int(csv.number(r, QStringLiteral("Depth"))));
        }
        QVERIFY(deepest >= 2);
        // Ctrl+C on the tree: the selected modules with their depth and path.
        tree->setCurrentItem(tree->topLevelItem(0));
        tree->topLevelItem(0)->setSelected(true);
        tree->topLevelItem(0)->child(0)->setSelected(true);
        QVERIFY(widgets::copySelection(*tree));
        const QStringList lines =
            QGuiApplication::clipboard()->text().trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 3);
        QVERIFY(lines[2].startsWith(
            QStringLiteral("1\tDistributedDataParallel_0/ResNet_0\tResNet_0\t")));
        // A trace without module spans has no modules table to export.
        const auto plain = analysed("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        widgets::DocumentView plainView(plain);
        plainView.setCurrentIndex(widgets::DocumentView::Modules);
        QVERIFY(!plainView.currentTable());
    }

    // The findings list exports the findings: severity, rule, gain in ns and its share, ranges.
    void findingsExportWhatEachFindingHolds()
    {
        const auto trace = analysed("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        widgets::DocumentView view(trace);
        view.setCurrentIndex(widgets::DocumentView::Diagnosis);
        QListWidget* list = view.findings()->list();
        QCOMPARE(view.currentTable(), static_cast<QAbstractItemView*>(list));
        const Csv csv = exported(*list);
        checkShape(csv);
        for (const char* header :
             {"Rank", "Severity", "Rule", "Title", "Gain (ns)", "Gain share of step (fraction)",
              "Gain kind", "First range begin after the first event (ns)",
              "First range end after the first event (ns)", "Ranges (count)", "Ops", "Kernels",
              "Figures", "Fix"})
            QVERIFY2(csv.column(QString::fromLatin1(header)) >= 0, header);
        QCOMPARE(int(csv.rows.size()), int(trace->findings.size()));
        const double step = trace->summary.breakdown.all.averageTotalNs;
        for (size_t r = 0; r < csv.rows.size(); ++r) {
            const analysis::Finding& f = trace->findings[r];
            QCOMPARE(csv.number(r, QStringLiteral("Rank")), double(r + 1));
            QCOMPARE(csv.text(r, QStringLiteral("Rule")).toStdString(), f.id);
            QCOMPARE(csv.text(r, QStringLiteral("Title")).toStdString(), f.title);
            QCOMPARE(csv.text(r, QStringLiteral("Severity")),
                     QString::fromLatin1(analysis::severityName(f.severity)));
            QCOMPARE(csv.number(r, QStringLiteral("Gain (ns)")), f.estimatedGainNs);
            QCOMPARE(csv.number(r, QStringLiteral("Gain share of step (fraction)")),
                     f.estimatedGainNs / step);
            QCOMPARE(csv.number(r, QStringLiteral("Ranges (count)")),
                     double(f.evidence.ranges.size()));
            if (!f.evidence.ranges.empty())
                QCOMPARE(
                    csv.number(r, QStringLiteral("First range begin after the first event (ns)")),
                    double(f.evidence.ranges.front().begin - trace->model->beginNs()));
            else
                QVERIFY(csv.text(r, QStringLiteral("First range begin after the first event (ns)"))
                            .isEmpty());
        }
        QCOMPARE(csv.text(0, QStringLiteral("Rule")), QStringLiteral("dataloader-bound"));
        QVERIFY(!trace->findings[0].evidence.ranges.empty());
        // Not the list's text ("1. The GPU waits ...").
        QVERIFY(!csv.text(0, QStringLiteral("Title")).startsWith(QStringLiteral("1. ")));
    }

    void jobTablesCarryRawValues()
    {
        std::string error;
        const auto files = job::jobFiles({test::sharedTrace("param/dlrm_8_ranks").string()}, error);
        const auto job = job::openJob(files, {}, error);
        QVERIFY2(job, error.c_str());
        widgets::JobView view(*job, {});
        view.setCurrentIndex(widgets::JobView::Overview);
        QCOMPARE(view.currentTable(), static_cast<QAbstractItemView*>(view.ranksTable()));
        Csv csv = exported(*view.ranksTable());
        checkShape(csv);
        QCOMPARE(
            csv.header,
            QStringList({QStringLiteral("Rank"), QStringLiteral("From"),
                         QStringLiteral("Mean step (ns)"), QStringLiteral("Own work (ns)"),
                         QStringLiteral("Exposed comm (ns)"), QStringLiteral("Hidden comm (ns)"),
                         QStringLiteral("Last to arrive (count)"),
                         QStringLiteral("Its first finding")}));
        QCOMPARE(int(csv.rows.size()), 8);
        for (size_t r = 0; r < csv.rows.size(); ++r) {
            const job::Rank& rank = job->ranks[r];
            QCOMPARE(csv.number(r, QStringLiteral("Rank")), double(rank.rank));
            QCOMPARE(csv.number(r, QStringLiteral("Mean step (ns)")),
                     job->meanStepNs.at(rank.rank));
            QCOMPARE(csv.number(r, QStringLiteral("Exposed comm (ns)")),
                     job->meanCommunicationNs.at(rank.rank));
            QCOMPARE(csv.number(r, QStringLiteral("Last to arrive (count)")),
                     double(job->collectives.lastToArriveCount.at(r)));
        }
        QCOMPARE(widgets::suggestedCsvName(*view.ranksTable()),
                 QStringLiteral("dlrm_8_ranks-ranks.csv"));

        view.setCurrentIndex(widgets::JobView::Collectives);
        QCOMPARE(view.currentTable(), static_cast<QAbstractItemView*>(view.collectivesTable()));
        csv = exported(*view.collectivesTable());
        checkShape(csv);
        QCOMPARE(int(csv.rows.size()), int(job->collectives.matched.size()));
        QVERIFY(!csv.rows.empty());
        for (const char* header :
             {"Collective", "Step", "Size (bytes)", "Transfer (ns)", "Longest wait (ns)",
              "Waiting rank", "Last in", "Bus bandwidth (bytes/s)", "Rank 0 (ns)", "Rank 7 (ns)"})
            QVERIFY2(csv.column(QString::fromLatin1(header)) >= 0, header);
        double transfer = 0, expected = 0, rank3 = 0, expected3 = 0;
        for (size_t r = 0; r < csv.rows.size(); ++r) {
            transfer += csv.number(r, QStringLiteral("Transfer (ns)"));
            rank3 += csv.number(r, QStringLiteral("Rank 3 (ns)"));
        }
        for (const job::MatchedCollective& m : job->collectives.matched) {
            expected += double(m.transferNs);
            expected3 += double(m.ranks.at(3).durationNs);
        }
        QCOMPARE(transfer, expected);
        QCOMPARE(rank3, expected3);
        view.setCurrentIndex(widgets::JobView::Heatmap);
        QVERIFY(!view.currentTable());
    }

    void compareTablesExportSignedChanges()
    {
        const auto before = analysed("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        const auto after = analysed("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz");
        const compare::Comparison comparison = compare::compareDocuments(*before, *after);
        widgets::CompareView view(before, after, comparison);
        view.setCurrentIndex(widgets::CompareView::Changes);
        QAbstractItemView* changes = view.currentTable();
        QVERIFY(changes);
        Csv csv = exported(*changes);
        checkShape(csv);
        QCOMPARE(csv.header,
                 QStringList({QStringLiteral("What changed"), QStringLiteral("Kind"),
                              QStringLiteral("Status"), QStringLiteral("Before (ns/step)"),
                              QStringLiteral("After (ns/step)"), QStringLiteral("Change (ns/step)"),
                              QStringLiteral("Calls before (calls/step)"),
                              QStringLiteral("Calls after (calls/step)")}));
        QCOMPARE(int(csv.rows.size()), int(comparison.causes.size()));
        std::map<std::string, const compare::Cause*> causes;
        for (const compare::Cause& c : comparison.causes)
            causes[c.label] = &c;
        bool negative = false;
        for (size_t r = 0; r < csv.rows.size(); ++r) {
            const compare::Cause& c =
                *causes.at(csv.text(r, QStringLiteral("What changed")).toStdString());
            QCOMPARE(csv.number(r, QStringLiteral("Before (ns/step)")), c.beforeNs);
            QCOMPARE(csv.number(r, QStringLiteral("Change (ns/step)")), c.deltaNs());
            negative |= c.deltaNs() < 0;
            const QString status = csv.text(r, QStringLiteral("Status"));
            QVERIFY(QStringList({QStringLiteral("same"), QStringLiteral("changed"),
                                 QStringLiteral("new"), QStringLiteral("gone")})
                        .contains(status));
        }
        QVERIFY(
            negative);  // more workers: the DataLoader wait falls, and the export keeps its sign
        QCOMPARE(widgets::suggestedCsvName(*changes),
                 QStringLiteral(
                     "resnet50_v100_workers0_2021-vs-resnet50_v100_workers4_2021-changes.csv"));

        view.setCurrentIndex(widgets::CompareView::Kernels);
        csv = exported(*view.currentTable());
        checkShape(csv);
        QCOMPARE(int(csv.rows.size()), int(comparison.kernels.size()));
        QCOMPARE(csv.column(QStringLiteral("Kind")),
                 -1);  // the detail column is hidden for kernels

        view.setCurrentIndex(widgets::CompareView::Findings);
        QCOMPARE(view.currentTable(), static_cast<QAbstractItemView*>(view.findingsTable()));
        csv = exported(*view.findingsTable());
        checkShape(csv);
        QCOMPARE(csv.header, QStringList({QStringLiteral("Finding"), QStringLiteral("Status"),
                                          QStringLiteral("Gain before (ns/step)"),
                                          QStringLiteral("Gain after (ns/step)")}));
        QCOMPARE(int(csv.rows.size()), int(comparison.findings.size()));
        for (size_t r = 0; r < csv.rows.size(); ++r) {
            const compare::FindingChange& f = comparison.findings[r];
            QCOMPARE(csv.text(r, QStringLiteral("Finding")).toStdString(), f.title);
            if (f.status == compare::FindingChange::Status::New)
                QVERIFY(csv.text(r, QStringLiteral("Gain before (ns/step)")).isEmpty());
            else
                QCOMPARE(csv.number(r, QStringLiteral("Gain before (ns/step)")), f.beforeGainNs);
            if (f.status != compare::FindingChange::Status::Resolved)
                QCOMPARE(csv.number(r, QStringLiteral("Gain after (ns/step)")), f.afterGainNs);
        }
        view.setCurrentIndex(widgets::CompareView::Overview);
        QVERIFY(!view.currentTable());
    }

    void snapshotTablesExportBytesAndShares()
    {
        document::OpenOptions options;
        options.snapshots = true;
        const auto doc = document::open((test::sharedTracesDir().parent_path() / "snapshots" /
                                         "decomfl_training_annotations_torch29.pickle")
                                            .string(),
                                        options);
        QVERIFY2(doc->isSnapshot(), doc->loadMessage.c_str());
        widgets::SnapshotView view(doc);
        view.setCurrentPage(widgets::SnapshotView::AtPeak);
        Csv csv = exported(*view.currentTable());
        checkShape(csv);
        QCOMPARE(csv.header.mid(0, 4),
                 QStringList({QStringLiteral("Allocated at"), QStringLiteral("Bytes (bytes)"),
                              QStringLiteral("Share of peak (fraction)"),
                              QStringLiteral("Allocations (count)")}));
        const snapshot::SnapshotSummary& s = doc->snapshot->summary;
        QCOMPARE(int(csv.rows.size()), int(s.topStacksAtPeak.size()));
        double bytes = 0, expected = 0;
        for (size_t r = 0; r < csv.rows.size(); ++r)
            bytes += csv.number(r, QStringLiteral("Bytes (bytes)"));
        for (const snapshot::StackBytes& g : s.topStacksAtPeak)
            expected += double(g.bytes);
        QCOMPARE(bytes, expected);
        QCOMPARE(csv.number(0, QStringLiteral("Share of peak (fraction)")),
                 csv.number(0, QStringLiteral("Bytes (bytes)")) / double(s.peakAllocatedBytes));
        view.setCurrentPage(widgets::SnapshotView::Segments);
        csv = exported(*view.currentTable());
        checkShape(csv);
        QCOMPARE(int(csv.rows.size()), int(s.segmentUse.size()));
        QVERIFY(csv.column(QStringLiteral("Reserved (bytes)")) >= 0);
        QVERIFY(csv.text(0, QStringLiteral("Segment")).startsWith(QStringLiteral("0x")));
        QVERIFY(QStringList({QStringLiteral("split"), QStringLiteral("full"),
                             QStringLiteral("free (cached whole)")})
                    .contains(csv.text(0, QStringLiteral("State"))));
        view.setCurrentPage(widgets::SnapshotView::Diagnosis);
        QCOMPARE(int(exported(*view.currentTable()).rows.size()), int(doc->findings.size()));
        view.setCurrentPage(widgets::SnapshotView::Timeline);
        QVERIFY(!view.currentTable());
    }

    // A lab session's pages: its arms (throughput, step, peak) and its memory triage, raw.
    void labTablesExportTheirMeasurements()
    {
        const auto run = document::open(KINETOSCOPE_SOURCE_DIR
                                        "/tests/data/h100_runs/starved/session.kinetoscope.json");
        QVERIFY2(run->ok() && run->session, run->loadMessage.c_str());
        widgets::DocumentView view(run);
        view.setCurrentIndex(widgets::DocumentView::Lab);
        QCOMPARE(view.currentTable(), static_cast<QAbstractItemView*>(view.lab()->labTable()));
        Csv csv = exported(*view.currentTable());
        checkShape(csv);
        QCOMPARE(csv.header,
                 QStringList({QStringLiteral("Arm"), QStringLiteral("throughput (samples/s)"),
                              QStringLiteral("step (ns)"), QStringLiteral("peak allocated (bytes)"),
                              QStringLiteral("status")}));
        const session::Session& s = *run->session;
        QCOMPARE(csv.rows.size(), s.lab.size());
        for (size_t r = 0; r < csv.rows.size(); ++r) {
            const session::LabArm& arm = s.lab[r];
            QCOMPARE(csv.text(r, QStringLiteral("Arm")), QString::fromLatin1(arm.name()));
            if (!arm.ran) {
                QVERIFY(csv.text(r, QStringLiteral("step (ns)")).isEmpty());
                continue;
            }
            QCOMPARE(csv.number(r, QStringLiteral("throughput (samples/s)")), arm.samplesPerSecond);
            QCOMPARE(csv.number(r, QStringLiteral("step (ns)")), arm.meanStepMs * 1e6);
            QCOMPARE(csv.number(r, QStringLiteral("peak allocated (bytes)")),
                     double(arm.peakAllocatedBytes));
        }
        // The memory triage beside it, from its own menu.
        QVERIFY(s.memory);
        csv = exported(*view.lab()->memoryTable());
        checkShape(csv);
        QCOMPARE(csv.header.mid(0, 2),
                 QStringList({QStringLiteral("After"), QStringLiteral("allocated (bytes)")}));
        QCOMPARE(csv.rows.size(), s.memory->firstStep.size() + s.memory->steadyStep.size() + 4);
        const size_t gradients = s.memory->firstStep.size() + s.memory->steadyStep.size() + 1;
        QCOMPARE(csv.text(gradients, QStringLiteral("After")), QStringLiteral("gradients"));
        QCOMPARE(csv.number(gradients, QStringLiteral("allocated (bytes)")),
                 double(s.memory->split.gradientBytes));
        QVERIFY(!widgets::tableCsv(*view.lab()->memoryTable()).contains(QStringLiteral("—")));
    }

    // File > Export table…: the current page's table, written atomically under the path given.
    void fileExportTableWritesTheCurrentPagesTable()
    {
        gui::MainWindow window;
        QSignalSpy idle(&window, &gui::MainWindow::idle);
        window.openFiles({QString::fromStdString(
            test::sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz").string())});
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 60'000);
        widgets::DocumentView* doc = window.document(0);
        QVERIFY(doc);
        bool found = false;
        for (QAction* menu : window.menuBar()->actions())
            if (menu->menu())
                for (QAction* action : menu->menu()->actions())
                    found |= action->text() == QStringLiteral("Export &table…");
        QVERIFY(found);

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("kernels.csv"));
        doc->setCurrentIndex(widgets::DocumentView::Kernels);
        QCOMPARE(window.currentTable(), static_cast<QAbstractItemView*>(doc->kernels()->table()));
        QCOMPARE(widgets::suggestedCsvName(*window.currentTable()),
                 QStringLiteral("resnet50_v100_workers0_2021-kernels.csv"));
        QString error;
        QVERIFY2(window.exportCurrentTable(path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString written = QString::fromUtf8(file.readAll());
        file.close();
        QCOMPARE(written, widgets::tableCsv(*doc->kernels()->table()));
        const Csv csv = parseCsv(written);
        checkShape(csv);
        QCOMPARE(int(csv.rows.size()), int(doc->trace().summary.kernels.size()));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files),
                 QStringList({QStringLiteral("kernels.csv")}));  // no temporary left

        // Another page, another table, over the same file.
        doc->setCurrentIndex(widgets::DocumentView::Operators);
        QVERIFY(window.exportCurrentTable(path, &error));
        QVERIFY(file.open(QIODevice::ReadOnly));
        // In the columns' order as shown: device and host time beside the calls.
        QVERIFY(file.readAll().startsWith("Operator,Calls (count),Device total (ns),CPU total "
                                          "(ns),Self device (ns),Self CPU (ns)"));
        file.close();
        QCOMPARE(widgets::suggestedCsvName(*window.currentTable()),
                 QStringLiteral("resnet50_v100_workers0_2021-operators.csv"));

        // A page without a table, and a folder that does not exist: one line each.
        doc->setCurrentIndex(widgets::DocumentView::Overview);
        QVERIFY(!window.currentTable());
        QVERIFY(!window.exportCurrentTable(path, &error));
        QVERIFY(error.contains(QStringLiteral("no table")));
        doc->setCurrentIndex(widgets::DocumentView::Diagnosis);
        QVERIFY(!window.exportCurrentTable(dir.filePath(QStringLiteral("missing/findings.csv")),
                                           &error));
        QVERIFY(error.startsWith(QStringLiteral("cannot write")));
        QVERIFY(!error.contains(QLatin1Char('\n')));
    }

    void suggestedNamesDropTheTraceExtensions()
    {
        QCOMPARE(widgets::exportBaseName(
                     QStringLiteral("/t/resnet50_v100_workers0_2021.pt.trace.json.gz")),
                 QStringLiteral("resnet50_v100_workers0_2021"));
        QCOMPARE(widgets::exportBaseName(QStringLiteral("/runs/lab 3/session.kinetoscope.json")),
                 QStringLiteral("lab_3"));
        QCOMPARE(widgets::exportBaseName(QStringLiteral("snap.pickle")), QStringLiteral("snap"));
    }
};

QTEST_MAIN(TestTableExport)
#include "test_table_export.moc"
