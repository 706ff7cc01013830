#include "core/analysis/diagnosis/finding_text.h"

#include "core/format/format.h"
#include "core/trace/printable.h"

#include <array>
#include <string_view>

namespace kinetoscope::analysis {

namespace {

// The unit suffixes figure names carry (the value is shown with its unit instead).
constexpr std::array<std::string_view, 3> kUnitSuffixes{"_us", "_bytes", "_gb_per_s"};

// Evidence names longer than this (C++ kernel names run to hundreds of bytes) are cut.
constexpr size_t kTargetBytes = 120;

}  // namespace

std::string figureLabel(const Evidence::Figure& figure)
{
    std::string label = figure.name;
    for (std::string_view suffix : kUnitSuffixes)
        if (label.ends_with(suffix))
            label.resize(label.size() - suffix.size());
    for (char& c : label)
        if (c == '_')
            c = ' ';
    return label;
}

std::string figureValue(const Evidence::Figure& figure)
{
    const double v = figure.value;
    if (figure.unit == "us")
        return format::duration(v * 1e3);
    if (figure.unit == "fraction")
        return format::percent(v);
    if (figure.unit == "bytes")
        return format::bytes(v);
    if (figure.unit == "count")
        return format::count(v);
    if (figure.unit == "ratio")
        return format::ratio(v);
    if (figure.unit == "GB/s")  // bytes per nanosecond
        return format::byteRate(v * 1e9);
    return format::number(v) + (figure.unit.empty() ? "" : " " + figure.unit);
}

std::string gainText(const Finding& finding)
{
    if (!(finding.estimatedGainNs > 0))
        return "none per step";
    return "~" + format::duration(finding.estimatedGainNs) + " per step";
}

std::string targetText(const std::string& name)
{
    return std::string(trace::utf8Prefix(name, kTargetBytes));
}

}  // namespace kinetoscope::analysis
