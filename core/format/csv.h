#pragma once
// Tables as CSV (RFC 4180) for spreadsheets and notebooks, and as TSV for the clipboard:
// one writer for the CLI (`summary --csv`) and the app's table export. Numbers are raw,
// in the unit their column's header states ("Self CPU (ns)"), written shortest-exact
// and locale-independent; never the formatted text people read.
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kinetoscope::format {

// One cell: a number (written shortest-exact: 1234, 0.25, 1e-07) or text.
using CsvCell = std::variant<double, std::string>;

// A field quoted when it holds a comma, a quote, CR or LF (quotes doubled).
std::string csvField(std::string_view text);
// A number as CSV writes it: integers without a point, others shortest round-trip;
// not-a-number and infinities as an empty field.
std::string csvNumber(double value);
// One record ending in CRLF.
std::string csvRecord(const std::vector<CsvCell>& cells);
// One TSV line ending in LF: tabs and line breaks inside a cell become spaces.
std::string tsvRecord(const std::vector<CsvCell>& cells);

// A column's header with its unit: "Self CPU (ns)"; the name alone without one.
std::string csvHeader(std::string_view name, std::string_view unit);

}  // namespace kinetoscope::format
