#include "widgets/table_export.h"

#include "core/format/csv.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeyEvent>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QPointer>
#include <QSaveFile>
#include <QSet>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTreeView>
#include <string>
#include <vector>

namespace kinetoscope::widgets {

namespace {

const char* const kHookName = "kinetoscope-table-export";
const char* const kDocumentProperty = "kinetoscopeExportDocument";

// What a view exports, and its Ctrl+C: a child of the view.
class ExportHook : public QObject
{
public:
    explicit ExportHook(QAbstractItemView* view) : QObject(view), m_view(view)
    {
        setObjectName(QLatin1String(kHookName));
        view->installEventFilter(this);
    }
    QString table;
    QPointer<QAbstractItemModel> rows;

protected:
    // Ctrl+C copies the selected rows (not the current cell's text, as item views do):
    // the override keeps a window's shortcut from taking the key while the table has focus.
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (watched == m_view &&
            (event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress) &&
            static_cast<QKeyEvent*>(event)->matches(QKeySequence::Copy)) {
            if (event->type() == QEvent::KeyPress)
                copySelection(*m_view);
            event->accept();
            return true;
        }
        return QObject::eventFilter(watched, event);
    }

private:
    QAbstractItemView* m_view;
};

ExportHook* hookOf(const QAbstractItemView& view)
{
    for (QObject* child : view.children())
        if (child->objectName() == QLatin1String(kHookName))
            return static_cast<ExportHook*>(child);
    return nullptr;
}

bool isNumber(const QVariant& value)
{
    switch (value.typeId()) {
    case QMetaType::Int:
    case QMetaType::UInt:
    case QMetaType::Long:
    case QMetaType::ULong:
    case QMetaType::LongLong:
    case QMetaType::ULongLong:
    case QMetaType::Short:
    case QMetaType::UShort:
    case QMetaType::Double:
    case QMetaType::Float:
        return true;
    default:
        return false;
    }
}

format::CsvCell number(double value)
{
    return format::CsvCell(std::in_place_type<double>, value);
}

format::CsvCell text(const QString& value)
{
    return format::CsvCell(std::in_place_type<std::string>, value.toStdString());
}

// The value a cell exports: ExportRole, else a numeric raw value, else the display text.
format::CsvCell cellOf(const QModelIndex& index)
{
    QVariant value = index.data(ExportRole);
    if (!value.isValid()) {
        value = index.data(RawValueRole);
        if (!isNumber(value))
            value = index.data(Qt::DisplayRole);
    }
    return isNumber(value) ? number(value.toDouble()) : text(value.toString());
}

format::CsvCell headerOf(const QAbstractItemModel& model, int section)
{
    QString name = model.headerData(section, Qt::Horizontal, ColumnNameRole).toString();
    if (name.isEmpty())
        name = model.headerData(section, Qt::Horizontal, Qt::DisplayRole).toString();
    const QString unit = model.headerData(section, Qt::Horizontal, UnitRole).toString();
    return format::CsvCell(std::in_place_type<std::string>,
                           format::csvHeader(name.toStdString(), unit.toStdString()));
}

// The columns the view shows, in the order it shows them.
std::vector<int> shownColumns(const QAbstractItemView& view, const QAbstractItemModel& model)
{
    const QHeaderView* header = nullptr;
    if (const auto* table = qobject_cast<const QTableView*>(&view))
        header = table->horizontalHeader();
    else if (const auto* tree = qobject_cast<const QTreeView*>(&view))
        header = tree->header();
    std::vector<int> columns;
    const int count = model.columnCount();
    for (int visual = 0; visual < count; ++visual) {
        const int logical =
            header && header->count() == count ? header->logicalIndex(visual) : visual;
        if (logical < 0 || (header && header->isSectionHidden(logical)))
            continue;
        columns.push_back(logical);
    }
    return columns;
}

struct Row
{
    QModelIndex index;  // column 0 of the row, in the view's model
    int depth = 0;
    QString path;
};

// Every row the view's model has, in its order; a tree's depth first (iterative: a
// malformed trace may nest modules thousands deep).
std::vector<Row> rowsOf(const QAbstractItemModel& model, bool tree)
{
    std::vector<Row> rows;
    struct Level
    {
        QModelIndex parent;
        int next = 0;
        int depth = 0;
        QString path;
    };
    std::vector<Level> stack;
    stack.push_back(Level{QModelIndex(), 0, 0, QString()});
    while (!stack.empty()) {
        Level& level = stack.back();
        if (level.next >= model.rowCount(level.parent)) {
            stack.pop_back();
            continue;
        }
        Row row;
        row.index = model.index(level.next++, 0, level.parent);
        row.depth = level.depth;
        if (tree) {
            const QString name = row.index.data(Qt::DisplayRole).toString();
            row.path = level.path.isEmpty() ? name : level.path + QLatin1Char('/') + name;
        }
        const bool descend = tree && model.hasChildren(row.index);
        rows.push_back(row);
        if (descend)
            stack.push_back(
                Level{row.index, 0, row.depth + 1, row.path});  // `level` is not used after this
    }
    return rows;
}

// The table as records: CSV, or the selected rows as TSV (empty when none is selected).
QString records(const QAbstractItemView& view, bool selectedOnly)
{
    const QAbstractItemModel* shown = view.model();
    if (!shown)
        return {};
    const ExportHook* hook = hookOf(view);
    const QAbstractItemModel* replacement = hook && hook->rows ? hook->rows.data() : nullptr;
    const bool tree = !replacement && qobject_cast<const QTreeView*>(&view);
    const QAbstractItemModel& model = replacement ? *replacement : *shown;
    std::vector<int> columns;
    if (replacement)
        for (int c = 0; c < replacement->columnCount(); ++c)
            columns.push_back(c);
    else
        columns = shownColumns(view, *shown);

    QSet<QModelIndex> selected;
    if (selectedOnly) {
        if (!view.selectionModel())
            return {};
        for (const QModelIndex& index : view.selectionModel()->selectedIndexes())
            selected.insert(index.siblingAtColumn(0));
        if (selected.isEmpty())
            return {};
    }
    const auto line = [selectedOnly](const std::vector<format::CsvCell>& cells) {
        return selectedOnly ? format::tsvRecord(cells) : format::csvRecord(cells);
    };

    std::vector<format::CsvCell> cells;
    if (tree) {
        cells.push_back(text(QStringLiteral("Depth")));
        cells.push_back(text(QStringLiteral("Path")));
    }
    for (int c : columns)
        cells.push_back(headerOf(model, c));
    std::string out = line(cells);
    for (const Row& row : rowsOf(*shown, tree)) {
        if (selectedOnly && !selected.contains(row.index))
            continue;
        const QModelIndex at = replacement ? replacement->index(row.index.row(), 0) : row.index;
        if (!at.isValid())
            continue;
        cells.clear();
        if (tree) {
            cells.push_back(number(row.depth));
            cells.push_back(text(row.path));
        }
        for (int c : columns)
            cells.push_back(cellOf(model.index(at.row(), c, at.parent())));
        out += line(cells);
    }
    return QString::fromStdString(out);
}

}  // namespace

void installTableExport(QAbstractItemView* view, const QString& table, QAbstractItemModel* rows)
{
    ExportHook* hook = hookOf(*view);
    if (hook) {
        hook->table = table;
        hook->rows = rows;
        return;
    }
    hook = new ExportHook(view);
    hook->table = table;
    hook->rows = rows;
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(view, &QWidget::customContextMenuRequested, hook, [view](const QPoint& pos) {
        QMenu menu(view);
        QAction* exportAction = menu.addAction(QObject::tr("Export table as CSV…"));
        QAction* copyAction = menu.addAction(QObject::tr("Copy selection"));
        copyAction->setShortcut(QKeySequence::Copy);  // shown beside it; the view handles the key
        copyAction->setShortcutContext(Qt::WidgetShortcut);
        copyAction->setEnabled(view->selectionModel() && view->selectionModel()->hasSelection());
        QAction* chosen = menu.exec(view->viewport()->mapToGlobal(pos));
        if (chosen == copyAction) {
            copySelection(*view);
        } else if (chosen == exportAction) {
            QString path, error;
            switch (exportTableWithDialog(*view, view, &path, &error)) {
            case ExportOutcome::Written:
                if (auto* window = qobject_cast<QMainWindow*>(view->window()))
                    window->statusBar()->showMessage(QObject::tr("Table written to %1").arg(path),
                                                     5000);
                break;
            case ExportOutcome::Failed:
                QMessageBox::warning(view, QObject::tr("Export table"),
                                     QObject::tr("Export failed: %1").arg(error));
                break;
            case ExportOutcome::Cancelled:
                break;
            }
        }
    });
}

void setExportColumns(QTableWidget& table, const std::vector<std::pair<QString, QString>>& columns)
{
    for (int c = 0; c < int(columns.size()) && c < table.columnCount(); ++c) {
        QTableWidgetItem* header = table.horizontalHeaderItem(c);
        if (!header)
            continue;
        header->setData(ColumnNameRole, columns[size_t(c)].first);
        header->setData(UnitRole, columns[size_t(c)].second.isEmpty()
                                      ? QVariant()
                                      : QVariant(columns[size_t(c)].second));
    }
}

void setExportDocumentName(QWidget* document, const QString& name)
{
    document->setProperty(kDocumentProperty, name);
}

QString exportBaseName(const QString& path)
{
    const QFileInfo info(path);
    QString name = info.fileName();
    static const char* const extensions[] = {".gz",     ".json", ".trace",      ".pt",
                                             ".pickle", ".pkl",  ".kinetoscope"};
    for (bool stripped = true; stripped;) {
        stripped = false;
        for (const char* extension : extensions) {
            const QLatin1String suffix(extension);
            if (name.size() > suffix.size() && name.endsWith(suffix, Qt::CaseInsensitive)) {
                name.chop(suffix.size());
                stripped = true;
            }
        }
    }
    // Every lab run writes session.kinetoscope.json: its folder tells them apart.
    if (name.compare(QLatin1String("session"), Qt::CaseInsensitive) == 0 &&
        !info.dir().dirName().isEmpty())
        name = info.dir().dirName();
    for (QChar& c : name)
        if (!(c.isLetterOrNumber() && c.unicode() < 128) && c != QLatin1Char('.') &&
            c != QLatin1Char('_') && c != QLatin1Char('-'))
            c = QLatin1Char('_');
    return name;
}

QString tableCsv(const QAbstractItemView& view)
{
    return records(view, false);
}

QString selectionTsv(const QAbstractItemView& view)
{
    return records(view, true);
}

bool copySelection(const QAbstractItemView& view)
{
    const QString tsv = selectionTsv(view);
    if (tsv.isEmpty())
        return false;
    QApplication::clipboard()->setText(tsv);
    return true;
}

bool writeTableCsv(const QAbstractItemView& view, const QString& path, QString* error)
{
    const auto fail = [&](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    const QByteArray bytes = tableCsv(view).toUtf8();
    QSaveFile out(path);  // a temporary file beside it, renamed over it on commit
    if (!out.open(QIODevice::WriteOnly))
        return fail(QStringLiteral("cannot write %1: %2").arg(path, out.errorString()));
    if (out.write(bytes) != bytes.size()) {
        const QString reason = out.errorString();
        out.cancelWriting();
        return fail(QStringLiteral("cannot write %1: %2").arg(path, reason));
    }
    if (!out.commit())
        return fail(QStringLiteral("cannot write %1: %2").arg(path, out.errorString()));
    return true;
}

QString suggestedCsvName(const QAbstractItemView& view)
{
    QString document;
    for (const QWidget* w = &view; w && document.isEmpty(); w = w->parentWidget())
        document = w->property(kDocumentProperty).toString();
    const ExportHook* hook = hookOf(view);
    const QString table = hook && !hook->table.isEmpty() ? hook->table : QStringLiteral("table");
    return (document.isEmpty() ? table : document + QLatin1Char('-') + table) +
           QStringLiteral(".csv");
}

ExportOutcome exportTableWithDialog(QAbstractItemView& view, QWidget* parent, QString* path,
                                    QString* error)
{
    QString chosen =
        QFileDialog::getSaveFileName(parent, QObject::tr("Export table as CSV"),
                                     suggestedCsvName(view), QObject::tr("CSV (*.csv)"));
    if (chosen.isEmpty())
        return ExportOutcome::Cancelled;
    if (QFileInfo(chosen).suffix().isEmpty())
        chosen += QStringLiteral(".csv");
    if (path)
        *path = chosen;
    return writeTableCsv(view, chosen, error) ? ExportOutcome::Written : ExportOutcome::Failed;
}

}  // namespace kinetoscope::widgets
