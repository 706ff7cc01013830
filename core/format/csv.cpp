#include "core/format/csv.h"

#include <charconv>
#include <cmath>

namespace kinetoscope::format {

std::string csvField(std::string_view text)
{
    if (text.find_first_of(",\"\r\n") == std::string_view::npos)
        return std::string(text);
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    quoted += '"';
    return quoted;
}

std::string csvNumber(double value)
{
    if (!std::isfinite(value))
        return {};
    char buffer[32];
    // Integers within double's exact range: no point, no exponent.
    if (value == std::floor(value) && std::fabs(value) < 9.007199254740992e15) {
        const auto [end, error] =
            std::to_chars(buffer, buffer + sizeof buffer, static_cast<long long>(value));
        return error == std::errc() ? std::string(buffer, end) : std::string();
    }
    const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return error == std::errc() ? std::string(buffer, end) : std::string();
}

namespace {

template <typename Write>
std::string record(const std::vector<CsvCell>& cells, char separator, const char* end, Write write)
{
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
        if (i > 0)
            line += separator;
        if (const double* number = std::get_if<double>(&cells[i]))
            line += csvNumber(*number);
        else
            line += write(std::get<std::string>(cells[i]));
    }
    line += end;
    return line;
}

}  // namespace

std::string csvRecord(const std::vector<CsvCell>& cells)
{
    return record(cells, ',', "\r\n", [](const std::string& text) { return csvField(text); });
}

std::string tsvRecord(const std::vector<CsvCell>& cells)
{
    return record(cells, '\t', "\n", [](std::string text) {
        for (char& c : text)
            if (c == '\t' || c == '\n' || c == '\r')
                c = ' ';
        return text;
    });
}

std::string csvHeader(std::string_view name, std::string_view unit)
{
    return unit.empty() ? std::string(name) : std::string(name) + " (" + std::string(unit) + ")";
}

}  // namespace kinetoscope::format
