#pragma once
// Every table in the app as CSV (RFC 4180, core/format/csv.h): from its context menu
// ("Export table as CSV…", "Copy selection") and File > Export table…; Ctrl+C on a
// selection copies TSV (a header line, then the rows) that pastes into a spreadsheet.
//
// What a table exports is what its view shows: the proxy's filter and sort order, the
// columns it does not hide, every row (a tree's rows flattened, each with its depth and
// path). Numbers are raw, in the unit the column's header states ("Total (ns)"), never
// the formatted text people read. The models say what to write through these roles:
//
//   data(index, Qt::UserRole)        the raw value, as sorting uses it: a number in the
//                                    column's unit, written as a number; not a number:
//                                    the display text is written
//   data(index, ExportRole)          where the raw value is only a sort key (a rank of
//                                    states, -1 for "n/a", a size sorted either way): the
//                                    value to write instead, a number or text (an empty
//                                    text for a blank cell)
//   headerData(s, Horizontal, UnitRole)        the unit of the column's numbers: "ns",
//                                    "bytes", "count", "fraction" (0-1), "%" (0-100),
//                                    "TFLOP/s", "GB/s", "FLOP/byte", ...; none for text
//   headerData(s, Horizontal, ColumnNameRole)  the column's name without the unit the
//                                    screen shows ("Total" for "Total (ms)"); the
//                                    display header when absent
#include <QString>
#include <QtCore/qnamespace.h>
#include <utility>
#include <vector>

class QAbstractItemModel;
class QAbstractItemView;
class QTableWidget;
class QWidget;

namespace kinetoscope::widgets {

inline constexpr int RawValueRole = Qt::UserRole;
inline constexpr int UnitRole = Qt::UserRole + 1;
inline constexpr int ColumnNameRole = Qt::UserRole + 2;
inline constexpr int ExportRole = Qt::UserRole + 3;

// Gives `view` its context menu ("Export table as CSV…", "Copy selection") and Ctrl+C
// (QKeySequence::Copy: the selected rows as TSV). `table` names the table in the
// suggested file name ("operators"). `rows`, when given, is the model exported in place
// of the view's own: one row per row of the view, in the same order (the findings list
// exports the findings, not the list's text). Calling it again renames the table.
void installTableExport(QAbstractItemView* view, const QString& table,
                        QAbstractItemModel* rows = nullptr);
// A QTableWidget's columns for the export: (name, unit) per column from the first, set on
// its header items (a unit left empty: a text column). Its items carry their raw values
// themselves (setData(RawValueRole, ...), ExportRole for a blank).
void setExportColumns(QTableWidget& table, const std::vector<std::pair<QString, QString>>& columns);
// The document a widget's tables belong to, for the suggested file name: set on the
// document's widget, found from any table below it.
void setExportDocumentName(QWidget* document, const QString& name);
// A document's name for file names: its file's name without the trace extensions
// (".pt.trace.json.gz"), a session's folder for "session.kinetoscope.json", characters
// other than letters, digits, '.', '_' and '-' as '_'.
QString exportBaseName(const QString& path);

// The whole table as CSV: a header row, then every row the view shows, CRLF line ends.
QString tableCsv(const QAbstractItemView& view);
// The selected rows as TSV, with the header line; empty when nothing is selected.
QString selectionTsv(const QAbstractItemView& view);
// Puts selectionTsv on the clipboard; false when nothing is selected.
bool copySelection(const QAbstractItemView& view);
// tableCsv written to `path` atomically (a temporary file beside it, renamed);
// false with `error` set to one line on failure.
bool writeTableCsv(const QAbstractItemView& view, const QString& path, QString* error = nullptr);
// "resnet50_v100_workers0_2021-operators.csv": the document's name, then the table's.
QString suggestedCsvName(const QAbstractItemView& view);

// Asks where to save (suggestedCsvName), then writes. Returns Cancelled, Written (with
// `path`) or Failed (with `error`).
enum class ExportOutcome
{
    Cancelled,
    Written,
    Failed
};
ExportOutcome exportTableWithDialog(QAbstractItemView& view, QWidget* parent, QString* path,
                                    QString* error);

}  // namespace kinetoscope::widgets
